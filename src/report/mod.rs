//! Reports of a run: what each verdict means for the run (with the target's
//! baseline of known failures), and machine-readable files for CI pages.

mod baseline_file;
pub(crate) mod explore;
mod flips;
pub(crate) mod history;
mod html;
mod json;
mod junit;
pub(crate) mod list_json;
mod markdown;
pub(crate) mod matrix;
pub(crate) mod mutants;
mod read;
mod records;
mod run_ledger;
mod scenario_record;
mod spill;
pub(crate) mod text;

pub(crate) use crate::execute::standing::{Standing, Tally};
pub(crate) use baseline_file::BaselineFile;
pub(crate) use flips::{version_changes, Flips};
pub(crate) use html::{history_page, page as html_page};
pub(crate) use json::{write_json, JsonStream};
pub(crate) use junit::{write_junit, JunitStream};
pub(crate) use markdown::write_markdown;
pub(crate) use read::{read_json, ReadError};
pub(crate) use run_ledger::RunLedger;

use crate::execute::ScenarioReport;

/// What the reports say of a run besides its scenarios: the server, the shard, and
/// the suites selected (each even when the shard holds none of its scenarios, so
/// shards of one run can be told from shards of another).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct RunFacts {
    pub target: String,
    /// The layers of isolation the target's servers ran under (`writes`, `home`,
    /// `network-namespace` or `tcp-ports`); empty under `--no-isolation`.
    pub isolation: Vec<String>,
    /// `--partition`, as given (`count:1/2`), when the run is a shard.
    pub partition: Option<String>,
    pub suites: Vec<SuiteFacts>,
}

/// What the reports say of a suite that ran, besides its scenarios' verdicts.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct SuiteFacts {
    pub name: String,
    /// Its `version:`.
    pub version: u32,
    /// Where it came from: `built-in`, or `from DIR`.
    pub origin: String,
}

/// The results page of one run (`run --html`): the page of a matrix of one column,
/// its rows in `order`.
pub(crate) fn write_html(
    path: &std::path::Path,
    run: &RunFacts,
    reports: &[ScenarioReport],
    order: &matrix::ClauseOrder,
) -> std::io::Result<()> {
    let column = matrix::Column::new(run.target.clone(), run.clone(), reports.to_vec());
    let suites: Vec<&str> = run.suites.iter().map(|s| s.name.as_str()).collect();
    let title = format!("toolspec: {} against {}", suites.join(", "), run.target);
    std::fs::write(
        path,
        html_page(&matrix::Matrix::new(title, vec![column], order)),
    )
}

/// The name of the suite of a scenario id (`suite::file::name`).
pub(crate) fn suite_of(id: &str) -> &str {
    id.split("::").next().unwrap_or_default()
}

/// The reports' counts per suite, in the order the suites first appear.
pub(crate) fn by_suite(reports: &[ScenarioReport]) -> Vec<(String, Tally)> {
    let mut tallies = SuiteTallies::default();
    for r in reports {
        tallies.count(r);
    }
    tallies.0
}

/// Counts per suite, in the order the suites first appear, kept as reports come
/// (by the report files written while a run goes).
#[derive(Debug, Default)]
pub(crate) struct SuiteTallies(Vec<(String, Tally)>);

impl SuiteTallies {
    /// Counts one report, under its suite.
    pub(crate) fn count(&mut self, report: &ScenarioReport) {
        let name = suite_of(&report.id);
        match self.0.iter_mut().find(|(n, _)| n == name) {
            Some((_, tally)) => tally.count(report),
            None => {
                let mut tally = Tally::default();
                tally.count(report);
                self.0.push((name.to_string(), tally));
            }
        }
    }

    /// Each suite with its counts.
    pub(crate) fn iter(&self) -> impl Iterator<Item = (&str, &Tally)> {
        self.0.iter().map(|(name, tally)| (name.as_str(), tally))
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::execute::{Excuse, Verdict};
    use crate::judge::Mismatch;

    /// Reports of two suites, of every kind a file writes differently: a pass, a
    /// failure with text that needs escaping, an excused one, an error, a skip.
    fn reports() -> Vec<ScenarioReport> {
        let at = |id: &str, verdict: Verdict, ms: u64, position: usize| ScenarioReport {
            elapsed: Duration::from_millis(ms),
            position,
            requirement: "R \"quoted\"".into(),
            covers: "r/c".into(),
            call: "view {\"path\":\"/tmp/x\"}".into(),
            answer: Some("line 1\n\tline <2> & \u{1}".into()),
            root: "/tmp/root".into(),
            ..ScenarioReport::blank(id, verdict)
        };
        let fail = |what: &str| {
            Verdict::Fail(vec![
                Mismatch::new(what, "expected \"a\"\ngot <b>").keyed("text")
            ])
        };
        vec![
            at("one::f::pass", Verdict::Pass, 3, 0),
            at("one::f::fail", fail("text"), 17, 1),
            ScenarioReport {
                excuse: Excuse::Whole,
                ..at("one::g::known", fail("code"), 1, 2)
            },
            at(
                "two::f::error",
                Verdict::Error {
                    what: "server exited".into(),
                    stderr_tail: "panic at 'x'\n".into(),
                },
                1234,
                3,
            ),
            at(
                "two::f::skip",
                Verdict::Skip("needs a non-root user".into()),
                0,
                4,
            ),
        ]
    }

    fn run_facts() -> RunFacts {
        let suite = |name: &str| SuiteFacts {
            name: name.into(),
            version: 2,
            origin: "built-in".into(),
        };
        RunFacts {
            target: "reference <&>".into(),
            isolation: vec!["writes".into()],
            partition: Some("count:1/2".into()),
            suites: vec![suite("one"), suite("two"), suite("empty")],
        }
    }

    /// The files written as a run goes are the very bytes of the files built whole
    /// from the same reports, with and without scenarios.
    #[test]
    fn streamed_files_are_the_files_built_whole() {
        let dir = tempfile::tempdir().expect("tempdir");
        let run = run_facts();
        for reports in [reports(), Vec::new()] {
            let whole_json = dir.path().join("whole.json");
            let whole_xml = dir.path().join("whole.xml");
            write_json(&whole_json, &run, &reports).expect("whole json");
            write_junit(&whole_xml, &run.target, &reports).expect("whole junit");
            let streamed_json = dir.path().join("streamed.json");
            let streamed_xml = dir.path().join("streamed.xml");
            let mut json = JsonStream::new(&streamed_json).expect("json stream");
            let mut junit = JunitStream::new(&streamed_xml).expect("junit stream");
            for report in &reports {
                json.add(report).expect("add");
                junit.add(report).expect("add");
            }
            json.finish(&run).expect("finish json");
            junit.finish(&run.target).expect("finish junit");
            let read = |p: &std::path::Path| std::fs::read_to_string(p).expect("read");
            assert_eq!(read(&streamed_json), read(&whole_json));
            assert_eq!(read(&streamed_xml), read(&whole_xml));
            if !reports.is_empty() {
                let doc: serde_json::Value =
                    serde_json::from_str(&read(&streamed_json)).expect("valid JSON");
                assert_eq!(doc["scenarios"].as_array().map(Vec::len), Some(5));
                assert_eq!(doc["counts"]["FAIL"], 1);
            }
        }
    }
}
