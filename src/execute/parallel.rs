//! Runs a suite's scenarios on a few threads, each scenario on its own server.
//!
//! For `toolspec run`, which needs every report back in scenario order and prints
//! each as it arrives (`toolspec mutants` has a pool of its own, which decides its
//! next job from what the earlier ones found: `proof::mutants::pool`). With
//! `repeat`, every attempt at a scenario is a job of its own (fresh fixture, fresh
//! server), and the scenario's report is made from all of them once the last ends.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use crate::execute::{run_scenario, RunOptions, ScenarioReport};
use crate::scenario::{Scenario, Suite, SuiteScenarioFile};
use crate::server::Target;

/// The scenarios to run: each with the file it comes from.
pub(crate) type Work<'a> = [(&'a SuiteScenarioFile, &'a Scenario)];

/// Runs `work` on `jobs` threads, calling `on_report` with each scenario's report as
/// its last attempt ends, then handing it to `in_order` (with its index in `work`)
/// in the order of `work`: a report that ends before those ahead of it waits in a
/// reorder buffer until they have been handed on, so what is held at once is the
/// reports in flight, not the run's. `in_order` is called on the worker threads,
/// one call at a time. `listed` is the server's tool list, when it could be read
/// (see [`run_scenario`]).
#[allow(
    clippy::too_many_arguments,
    reason = "run_scenarios' arguments and the consumer"
)]
pub(crate) fn run_scenarios(
    suite: &Suite,
    work: &Work<'_>,
    target: &Target,
    options: &RunOptions,
    listed: Option<&BTreeSet<String>>,
    jobs: usize,
    on_report: &(dyn Fn(&ScenarioReport) + Sync),
    in_order: &mut (dyn FnMut(usize, ScenarioReport) + Send),
) {
    let repeat = options.repeat.max(1) as usize;
    let total = work.len() * repeat;
    let next = AtomicUsize::new(0);
    // Per scenario, the attempts that have ended, each with its number.
    let attempts: Mutex<Vec<Vec<(usize, ScenarioReport)>>> =
        Mutex::new(vec![Vec::new(); work.len()]);
    let reorder = Mutex::new(Reorder {
        next: 0,
        waiting: BTreeMap::new(),
        consumer: in_order,
    });
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
                if let Ok(mut reorder) = reorder.lock() {
                    reorder.arrived(index, report);
                }
            });
        }
    });
    // A scenario that left no report (a worker that panicked) holds up none after it.
    if let Ok(mut reorder) = reorder.into_inner() {
        reorder.flush();
    }
}

/// The reports that ended before one ahead of them, until it does.
struct Reorder<'c> {
    /// The index of the next report to hand on.
    next: usize,
    waiting: BTreeMap<usize, ScenarioReport>,
    consumer: &'c mut (dyn FnMut(usize, ScenarioReport) + Send),
}

impl Reorder<'_> {
    /// Takes the report at `index`, and hands on every report now next in line.
    fn arrived(&mut self, index: usize, report: ScenarioReport) {
        self.waiting.insert(index, report);
        while let Some(report) = self.waiting.remove(&self.next) {
            (self.consumer)(self.next, report);
            self.next += 1;
        }
    }

    /// Hands on every report still waiting, in order, past any that never came.
    fn flush(&mut self) {
        while let Some((index, report)) = self.waiting.pop_first() {
            (self.consumer)(index, report);
        }
    }
}

/// The number of scenarios to run at once when the user does not say.
pub(crate) fn default_jobs() -> usize {
    std::thread::available_parallelism().map_or(2, |n| n.get())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::execute::Verdict;

    #[test]
    fn jobs_default_to_the_cores_there_are() {
        let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
        assert_eq!(default_jobs(), cores);
    }

    #[test]
    fn reports_are_handed_on_in_order_whatever_order_they_end_in() {
        let mut seen = Vec::new();
        let mut consumer = |index: usize, report: ScenarioReport| seen.push((index, report.id));
        let mut reorder = Reorder {
            next: 0,
            waiting: BTreeMap::new(),
            consumer: &mut consumer,
        };
        let report = |id: &str| ScenarioReport::blank(id, Verdict::Pass);
        reorder.arrived(2, report("c"));
        reorder.arrived(1, report("b"));
        assert!(reorder.waiting.len() == 2, "held until the first ends");
        reorder.arrived(0, report("a"));
        assert!(reorder.waiting.is_empty());
        reorder.arrived(4, report("e"));
        reorder.flush();
        drop(reorder);
        let order: Vec<(usize, &str)> = seen.iter().map(|(i, id)| (*i, id.as_str())).collect();
        assert_eq!(order, [(0, "a"), (1, "b"), (2, "c"), (4, "e")]);
    }
}
