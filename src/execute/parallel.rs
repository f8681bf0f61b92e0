//! Runs a suite's scenarios on a few threads, each scenario on its own server.
//!
//! Shared by `toolspec run` and `toolspec mutants`: both need every report back in
//! scenario order, and `run` also wants to print each report as it arrives.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use crate::execute::{run_scenario, RunOptions, ScenarioReport};
use crate::scenario::{Scenario, Suite, SuiteScenarioFile};
use crate::server::Target;

/// The scenarios to run: each with the file it comes from.
pub(crate) type Work<'a> = [(&'a SuiteScenarioFile, &'a Scenario)];

/// Runs `work` on `jobs` threads, calling `on_report` with each report as it
/// arrives, and returns all reports in the order of `work`.
pub(crate) fn run_scenarios(
    suite: &Suite,
    work: &Work<'_>,
    target: &Target,
    options: &RunOptions,
    jobs: usize,
    on_report: &(dyn Fn(&ScenarioReport) + Sync),
) -> Vec<ScenarioReport> {
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<ScenarioReport>>> = Mutex::new(vec![None; work.len()]);
    std::thread::scope(|scope| {
        for _ in 0..jobs.clamp(1, work.len().max(1)) {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some((file, scenario)) = work.get(i) else {
                    break;
                };
                let report = run_scenario(suite, &file.stem, scenario, target, options);
                on_report(&report);
                if let Ok(mut r) = results.lock() {
                    r[i] = Some(report);
                }
            });
        }
    });
    results
        .into_inner()
        .unwrap_or_default()
        .into_iter()
        .flatten()
        .collect()
}

/// The number of scenarios to run at once when the user does not say.
pub(crate) fn default_jobs() -> usize {
    std::thread::available_parallelism().map_or(2, |n| n.get())
}
