//! Reports of a run: what each verdict means for the run (with the target's
//! baseline of known failures), and machine-readable files for CI pages.

mod flips;
mod html;
mod json;
mod junit;
mod markdown;
pub(crate) mod matrix;
mod read;
mod standing;
pub(crate) mod text;

pub(crate) use flips::{version_changes, Flips};
pub(crate) use html::page as html_page;
pub(crate) use json::write_json;
pub(crate) use junit::write_junit;
pub(crate) use markdown::write_markdown;
pub(crate) use read::{read_json, ReadError};
pub(crate) use standing::{Standing, Tally};

use crate::execute::ScenarioReport;

/// What the reports say of a run besides its scenarios: the server, the shard, and
/// the suites selected (each even when the shard holds none of its scenarios, so
/// shards of one run can be told from shards of another).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct RunFacts {
    pub target: String,
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
    let mut suites: Vec<(String, Tally)> = Vec::new();
    for r in reports {
        let name = suite_of(&r.id);
        match suites.iter_mut().find(|(n, _)| n == name) {
            Some((_, tally)) => tally.count(r),
            None => {
                let mut tally = Tally::default();
                tally.count(r);
                suites.push((name.to_string(), tally));
            }
        }
    }
    suites
}
