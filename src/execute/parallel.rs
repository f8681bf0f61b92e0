//! Runs a suite's scenarios on a few threads, each scenario on its own server.
//!
//! For `toolspec run`, which needs every report back in scenario order and prints
//! each as it arrives (`toolspec mutants` has a pool of its own, which decides its
//! next job from what the earlier ones found: `proof::mutants::pool`). With
//! `repeat`, every attempt at a scenario is a job of its own (fresh fixture, fresh
//! server), and the scenario's report is made from all of them once the last ends.

use std::collections::BTreeSet;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use crate::execute::{run_scenario, RunOptions, ScenarioReport};
use crate::scenario::{Scenario, Suite, SuiteScenarioFile};
use crate::server::Target;

/// The scenarios to run: each with the file it comes from.
pub(crate) type Work<'a> = [(&'a SuiteScenarioFile, &'a Scenario)];

/// Runs `work` on `jobs` threads, calling `on_report` with each scenario's report as
/// its last attempt ends, and returns all reports in the order of `work`. `listed`
/// is the server's tool list, when it could be read (see [`run_scenario`]).
pub(crate) fn run_scenarios(
    suite: &Suite,
    work: &Work<'_>,
    target: &Target,
    options: &RunOptions,
    listed: Option<&BTreeSet<String>>,
    jobs: usize,
    on_report: &(dyn Fn(&ScenarioReport) + Sync),
) -> Vec<ScenarioReport> {
    let repeat = options.repeat.max(1) as usize;
    let total = work.len() * repeat;
    let next = AtomicUsize::new(0);
    // Per scenario, the attempts that have ended, each with its number.
    let attempts: Mutex<Vec<Vec<(usize, ScenarioReport)>>> =
        Mutex::new(vec![Vec::new(); work.len()]);
    let reports: Mutex<Vec<Option<ScenarioReport>>> = Mutex::new(vec![None; work.len()]);
    std::thread::scope(|scope| {
        for _ in 0..jobs.clamp(1, total.max(1)) {
            scope.spawn(|| loop {
                let job = next.fetch_add(1, Ordering::Relaxed);
                let index = job / repeat;
                let Some((file, scenario)) = work.get(index) else {
                    break;
                };
                let attempt = run_scenario(suite, &file.stem, scenario, target, options, listed);
                let finished = match attempts.lock() {
                    Ok(mut all) => {
                        all[index].push((job % repeat, attempt));
                        (all[index].len() == repeat).then(|| {
                            let mut ended = std::mem::take(&mut all[index]);
                            ended.sort_by_key(|(number, _)| *number);
                            ended.into_iter().map(|(_, report)| report).collect()
                        })
                    }
                    Err(_) => None,
                };
                let Some(report) = finished.and_then(ScenarioReport::from_attempts) else {
                    continue;
                };
                on_report(&report);
                if let Ok(mut r) = reports.lock() {
                    r[index] = Some(report);
                }
            });
        }
    });
    reports
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
