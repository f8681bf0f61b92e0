//! A JSON report: the counts of every suite and of the run, and one object per
//! scenario, for dashboards, CI gates and diffing two runs.

use std::io::Write;
use std::path::{Path, PathBuf};

use serde::Serialize;

use super::records::{sorted_pretty, CountsRecord, SuiteRecord};
use super::scenario_record::ScenarioRecord;
use super::spill::Spill;
use super::{RunFacts, SuiteTallies, Tally};
use crate::execute::ScenarioReport;

/// The shape of the run report, as `docs/report.schema.json` describes it: raise it
/// with any change a reader could notice, and the schema with it.
pub(super) const REPORT_SCHEMA_VERSION: u64 = 5;

/// The versions a report is read back from: 3 lacks `isolation`, 3 and 4 lack
/// `escape` and the ESCAPE count.
pub(super) const READABLE_SCHEMA_VERSIONS: [u64; 3] = [3, 4, REPORT_SCHEMA_VERSION];

/// The whole report: the counts of the run and of each suite, and the scenarios.
#[derive(Serialize)]
struct RunReport<'r> {
    schema_version: u64,
    target: &'r str,
    isolation: &'r [String],
    partition: Option<&'r str>,
    counts: CountsRecord,
    suites: Vec<SuiteCounts<'r>>,
    scenarios: Vec<ScenarioRecord<'r>>,
}

/// A suite of the run with its counts.
#[derive(Serialize)]
struct SuiteCounts<'r> {
    #[serde(flatten)]
    suite: SuiteRecord<'r>,
    counts: CountsRecord,
}

/// Writes the run's counts and every report as JSON to `path`.
pub(crate) fn write_json(
    path: &Path,
    run: &RunFacts,
    reports: &[ScenarioReport],
) -> std::io::Result<()> {
    let scenarios = reports.iter().map(ScenarioRecord::of).collect();
    let doc = document(
        run,
        &Tally::of(reports),
        &super::by_suite(reports),
        scenarios,
    );
    std::fs::write(path, sorted_pretty(&doc)?)
}

/// The whole report: the counts of the run and of each suite, and `scenarios`.
fn document<'r>(
    run: &'r RunFacts,
    total: &Tally,
    tallies: &[(String, Tally)],
    scenarios: Vec<ScenarioRecord<'r>>,
) -> RunReport<'r> {
    let suites = run
        .suites
        .iter()
        .map(|suite| {
            let tally = tallies
                .iter()
                .find(|(name, _)| *name == suite.name)
                .map(|(_, t)| *t)
                .unwrap_or_default();
            SuiteCounts {
                suite: SuiteRecord::of(suite),
                counts: CountsRecord::of(&tally),
            }
        })
        .collect();
    RunReport {
        schema_version: REPORT_SCHEMA_VERSION,
        target: &run.target,
        isolation: &run.isolation,
        partition: run.partition.as_deref(),
        counts: CountsRecord::of(total),
        suites,
        scenarios,
    }
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
        let record = serde_json::to_value(ScenarioRecord::of(report))?;
        let object = serde_json::to_string_pretty(&record)?;
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
        let text = sorted_pretty(&document(run, &self.total, &tallies, Vec::new()))?;
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
