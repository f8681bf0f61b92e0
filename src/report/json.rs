//! A JSON report: the counts of every suite and of the run, and one object per
//! scenario, for dashboards, CI gates and diffing two runs.

use std::io::Write;
use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use super::spill::Spill;
use super::{RunFacts, Standing, SuiteFacts, SuiteTallies, Tally};
use crate::execute::{Excuse, ScenarioReport, Verdict};

/// The shape of the run report, as `docs/report.schema.json` describes it: raise it
/// with any change a reader could notice, and the schema with it.
pub(super) const REPORT_SCHEMA_VERSION: u64 = 5;

/// The versions a report is read back from: 3 lacks `isolation`, 3 and 4 lack
/// `escape` and the ESCAPE count.
pub(super) const READABLE_SCHEMA_VERSIONS: [u64; 3] = [3, 4, REPORT_SCHEMA_VERSION];

/// Writes the run's counts and every report as JSON to `path`.
pub(crate) fn write_json(
    path: &Path,
    run: &RunFacts,
    reports: &[ScenarioReport],
) -> std::io::Result<()> {
    let scenarios: Vec<Value> = reports.iter().map(scenario_json).collect();
    let doc = document(
        run,
        &Tally::of(reports),
        &super::by_suite(reports),
        scenarios,
    );
    let mut file = std::fs::File::create(path)?;
    serde_json::to_writer_pretty(&mut file, &doc)?;
    file.write_all(b"\n")
}

/// The whole report: the counts of the run and of each suite, and `scenarios`.
fn document(
    run: &RunFacts,
    total: &Tally,
    tallies: &[(String, Tally)],
    scenarios: Vec<Value>,
) -> Value {
    let suites: Vec<Value> = run
        .suites
        .iter()
        .map(|suite| {
            let tally = tallies
                .iter()
                .find(|(name, _)| *name == suite.name)
                .map(|(_, t)| *t)
                .unwrap_or_default();
            json!({
                "name": suite.name,
                "version": suite.version,
                "origin": suite.origin,
                "counts": counts_json(&tally),
            })
        })
        .collect();
    json!({
        "schema_version": REPORT_SCHEMA_VERSION,
        "target": run.target,
        "isolation": run.isolation,
        "partition": run.partition,
        "counts": counts_json(total),
        "suites": suites,
        "scenarios": scenarios,
    })
}

/// The JSON report written as the run goes, the same bytes as [`write_json`]
/// gives for the same reports: each scenario is set aside on disk as it ends (in
/// the order given), and the file is put together at the end, when the counts that
/// come before the scenarios in it are known. Memory does not grow with the run.
pub(crate) struct JsonStream {
    path: PathBuf,
    /// The scenarios' objects so far, each indented as in the whole document and
    /// separated by `,\n`.
    scenarios: Spill,
    total: Tally,
    tallies: SuiteTallies,
}

/// The array's place in the document [`document`] makes with no scenarios: keys
/// are sorted and every string is escaped onto one line, so this text is found
/// once, at the top level.
const EMPTY_SCENARIOS: &str = "\n  \"scenarios\": [],\n";

impl JsonStream {
    /// A report to be written to `path` once the run ends.
    pub(crate) fn new(path: &Path) -> std::io::Result<JsonStream> {
        Ok(JsonStream {
            path: path.to_path_buf(),
            scenarios: Spill::new()?,
            total: Tally::default(),
            tallies: SuiteTallies::default(),
        })
    }

    /// Adds the next scenario's report.
    pub(crate) fn add(&mut self, report: &ScenarioReport) -> std::io::Result<()> {
        self.total.count(report);
        self.tallies.count(report);
        let object = serde_json::to_string_pretty(&scenario_json(report))?;
        let mut text = String::with_capacity(object.len() + object.len() / 8);
        if !self.scenarios.is_empty() {
            text.push_str(",\n");
        }
        // One level deeper than a value of its own: inside the document and the array.
        for (i, line) in object.split('\n').enumerate() {
            if i > 0 {
                text.push('\n');
            }
            text.push_str("    ");
            text.push_str(line);
        }
        self.scenarios.push(&text)
    }

    /// Writes the file: the document with no scenarios, and the scenarios set aside
    /// put into its array.
    pub(crate) fn finish(mut self, run: &RunFacts) -> std::io::Result<()> {
        let tallies: Vec<(String, Tally)> = self
            .tallies
            .iter()
            .map(|(name, tally)| (name.to_string(), *tally))
            .collect();
        let mut text =
            serde_json::to_string_pretty(&document(run, &self.total, &tallies, Vec::new()))?;
        text.push('\n');
        let mut file = std::io::BufWriter::new(std::fs::File::create(&self.path)?);
        match text.find(EMPTY_SCENARIOS) {
            _ if self.scenarios.is_empty() => file.write_all(text.as_bytes())?,
            Some(at) => {
                let (head, tail) =
                    text.split_at(at + EMPTY_SCENARIOS.len() - ",\n".len() - "]".len());
                file.write_all(head.as_bytes())?;
                file.write_all(b"\n")?;
                self.scenarios.copy_into(&mut file)?;
                file.write_all(b"\n  ")?;
                file.write_all(tail.as_bytes())?;
            }
            None => {
                return Err(std::io::Error::other(
                    "the JSON report has no place for its scenarios",
                ))
            }
        }
        file.flush()
    }
}

/// The suites a run ran (name, version, origin), as the pages' JSON names them.
pub(super) fn suites_json(suites: &[SuiteFacts]) -> Vec<Value> {
    suites
        .iter()
        .map(|s| {
            json!({
                "name": s.name,
                "version": s.version,
                "origin": s.origin,
            })
        })
        .collect()
}

/// The counts of the summary line, by the same names.
pub(super) fn counts_json(t: &Tally) -> Value {
    json!({
        "PASS": t.passed,
        "FAIL": t.failed,
        "ERROR": t.errored,
        "SKIP": t.skipped,
        "UNSUPPORTED": t.unsupported,
        "KNOWN": t.known,
        "FLAKY": t.flaky,
        "STALE": t.stale,
        "NEW": t.new,
        "ESCAPE": t.escaped,
        "spec": { "passed": t.spec.passed, "total": t.spec.total },
        "upstream": { "passed": t.upstream.passed, "total": t.upstream.total },
    })
}

fn scenario_json(r: &ScenarioReport) -> Value {
    let (mismatches, error, reason) = match &r.verdict {
        Verdict::Fail(m) => (
            m.iter()
                .map(|m| {
                    json!({
                        "id": format!("{}#{}", r.id, m.key),
                        "expectation": m.expectation,
                        "detail": m.detail,
                        "excused": r.excuse.covers(m),
                    })
                })
                .collect(),
            Value::Null,
            Value::Null,
        ),
        Verdict::Error { what, stderr_tail } => (
            Vec::new(),
            json!({ "what": what, "stderr_tail": stderr_tail }),
            Value::Null,
        ),
        Verdict::Skip(why) | Verdict::Unsupported(why) => (Vec::new(), Value::Null, json!(why)),
        Verdict::Pass | Verdict::Escape(_) => (Vec::new(), Value::Null, Value::Null),
    };
    let escape = match &r.verdict {
        Verdict::Escape(e) => json!({
            "kind": e.kind.word(),
            "tool": e.tool,
            "given": e.given,
            "reached": e.reached,
            "line": e.line(),
        }),
        _ => Value::Null,
    };
    let baseline = match &r.excuse {
        Excuse::None => Value::Null,
        Excuse::Whole => json!("scenario"),
        Excuse::Expectations(keys) => json!(keys),
    };
    json!({
        "id": r.id,
        "requirement": r.requirement,
        "covers": r.covers,
        "since": r.since,
        "pinned": r.pinned,
        "basis": match r.basis {
            crate::scenario::Basis::Spec => "spec",
            crate::scenario::Basis::Upstream => "upstream",
        },
        "verdict": r.verdict.label(),
        "standing": Standing::of(r).label(),
        "baseline": baseline,
        "attempts": r.attempts.iter().map(Verdict::label).collect::<Vec<_>>(),
        "escape": escape,
        "mismatches": mismatches,
        "error": error,
        "reason": reason,
        "call": r.call,
        "answer": r.answer,
        "warnings": r.warnings,
        "note": r.note,
        "fixture_root": r.root,
        "isolation_denied": r.isolation_denied,
        "position": r.position,
        "elapsed_ms": r.elapsed.as_millis() as u64,
    })
}
