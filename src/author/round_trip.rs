//! A draft is kept only when it says what the oracle does and the subject does
//! not: each scenario runs three times on the oracle (it must pass every time, so
//! an answer that changes from run to run is not written down as a fact) and once
//! on the subject (it must not pass, or it would not show the difference).

use std::path::Path;

use super::scenario_text::Draft;
use crate::execute::{run_scenario, RunOptions, Verdict};
use crate::scenario::{scenario_file_from_text, Suite};
use crate::server::Target;

/// How many times a scenario must pass on the oracle.
pub(crate) const ORACLE_RUNS: usize = 3;

/// Why `draft` is not kept, or None when it is: it loads in `suite`, passes
/// [`ORACLE_RUNS`] times on `oracle`, and fails (or errs) on `subject`.
pub(crate) fn rejection(
    draft: &Draft,
    suite: &Suite,
    oracle: &Target,
    subject: Option<&Target>,
) -> Option<String> {
    let path = suite.dir.join(&draft.file_name);
    let content =
        match scenario_file_from_text(&suite.config, &suite.fixtures_dir, &path, &draft.text) {
            Ok(content) => content,
            Err(errors) => {
                let first = errors.first().map(ToString::to_string).unwrap_or_default();
                return Some(format!(
                    "it does not load: {}",
                    first.lines().next().unwrap_or_default()
                ));
            }
        };
    let stem = Path::new(&draft.file_name)
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or_default()
        .to_string();
    let options = RunOptions::default();
    for scenario in &content.scenarios {
        for attempt in 1..=ORACLE_RUNS {
            let report = run_scenario(suite, &stem, scenario, oracle, &options, None);
            if !matches!(report.verdict, Verdict::Pass) {
                return Some(format!(
                    "`{}` did not pass on the oracle (run {attempt} of {ORACLE_RUNS}): {}",
                    scenario.name,
                    report.verdict.headline()
                ));
            }
        }
        if let Some(subject) = subject {
            let report = run_scenario(suite, &stem, scenario, subject, &options, None);
            if matches!(
                report.verdict,
                Verdict::Pass | Verdict::Skip(_) | Verdict::Unsupported(_)
            ) {
                return Some(format!(
                    "`{}` did not fail on the subject: {}",
                    scenario.name,
                    report.verdict.headline()
                ));
            }
        }
    }
    None
}
