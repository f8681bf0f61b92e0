//! A JSON report: the counts of every suite and of the run, and one object per
//! scenario, for dashboards, CI gates and diffing two runs.

use std::io::Write;
use std::path::Path;

use serde_json::{json, Value};

use super::{RunFacts, Standing, Tally};
use crate::execute::{Excuse, ScenarioReport, Verdict};

/// The shape of the run report, as `docs/report.schema.json` describes it: raise it
/// with any change a reader could notice, and the schema with it.
pub(super) const REPORT_SCHEMA_VERSION: u64 = 3;

/// Writes the run's counts and every report as JSON to `path`.
pub(crate) fn write_json(
    path: &Path,
    run: &RunFacts,
    reports: &[ScenarioReport],
) -> std::io::Result<()> {
    let scenarios: Vec<Value> = reports.iter().map(scenario_json).collect();
    let tallies = super::by_suite(reports);
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
    let doc = json!({
        "schema_version": REPORT_SCHEMA_VERSION,
        "target": run.target,
        "partition": run.partition,
        "counts": counts_json(&Tally::of(reports)),
        "suites": suites,
        "scenarios": scenarios,
    });
    let mut file = std::fs::File::create(path)?;
    serde_json::to_writer_pretty(&mut file, &doc)?;
    file.write_all(b"\n")
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
        Verdict::Pass => (Vec::new(), Value::Null, Value::Null),
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
        "mismatches": mismatches,
        "error": error,
        "reason": reason,
        "call": r.call,
        "answer": r.answer,
        "warnings": r.warnings,
        "note": r.note,
        "fixture_root": r.root,
        "position": r.position,
        "elapsed_ms": r.elapsed.as_millis() as u64,
    })
}
