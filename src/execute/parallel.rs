//! Runs a run's scenarios on a few threads, each scenario on its own server.
//!
//! For `toolspec run`, which needs every report back in the run's order and prints
//! each as it arrives (`toolspec mutants` has a pool of its own, which decides its
//! next job from what the earlier ones found: `proof::mutants::pool`). The
//! scenarios of every suite of a run share one pool, so a suite's slow scenario
//! does not hold the next suite back. With `repeat`, every attempt at a scenario
//! is a job of its own (fresh fixture, fresh server), and the scenario's report is
//! made from all of them once the last ends. Which scenario starts when is
//! [`super::schedule`]'s choice; the order reports are handed on in is not.
//! Each worker may open the scenarios it takes next (fixture and server) while
//! it runs the current one: its warm spares ([`super::warm`]).

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex, PoisonError};

use super::schedule::{StartOrder, Workers};
use super::warm::WarmWorker;
use crate::execute::{RunOptions, ScenarioReport};
use crate::scenario::{Scenario, Suite, SuiteScenarioFile};
use crate::server::Target;

/// One scenario of a run, with what it runs against.
#[derive(Clone, Copy)]
pub(crate) struct Planned<'a> {
    pub(crate) suite: &'a Suite,
    pub(crate) file: &'a SuiteScenarioFile,
    pub(crate) scenario: &'a Scenario,
    pub(crate) target: &'a Target,
    /// The server's tool list, when it could be read (see
    /// [`super::run_scenario`]).
    pub(crate) listed: Option<&'a BTreeSet<String>>,
}

/// How far past the first scenario whose report has not been handed on a worker
/// may start one in its turn. A slow scenario at the head holds every report after
/// it (they are handed on in order); with this bound the reports held wait for at
/// most this many scenarios (and the few started early), however long the run, and
/// the workers wait for the head once they are this far ahead.
const AHEAD: usize = 256;

/// Runs `work` on `workers.count` threads, each keeping warm spares when
/// `workers.warm`, starting its scenarios in `start`'s order,
/// calling `on_report` with each scenario's report as its last attempt ends, then
/// handing it to `in_order` (with its index in `work`) in the order of `work`: a
/// report that ends before those ahead of it waits in a reorder buffer until they
/// have been handed on, and no scenario starts in its turn more than [`AHEAD`]
/// places past the first not yet handed on, so what is held at once is bounded,
/// not the run's. `in_order` is called on the worker threads, one call at a time.
pub(crate) fn run_scenarios(
    work: &[Planned<'_>],
    options: &RunOptions,
    workers: Workers,
    start: &StartOrder,
    on_report: &(dyn Fn(&ScenarioReport) + Sync),
    in_order: &mut (dyn FnMut(usize, ScenarioReport) + Send),
) {
    let repeat = options.repeat.max(1) as usize;
    // Per scenario, the attempts that have ended, each with its number.
    let attempts: Mutex<Vec<Vec<(usize, ScenarioReport)>>> =
        Mutex::new(vec![Vec::new(); work.len()]);
    let ended = |index: usize, number: usize, attempt: ScenarioReport| -> Option<ScenarioReport> {
        let ended: Vec<ScenarioReport> = {
            // Pushing and sorting cannot leave the lists half changed.
            let mut all = attempts.lock().unwrap_or_else(PoisonError::into_inner);
            all[index].push((number, attempt));
            if all[index].len() < repeat {
                return None;
            }
            let mut ended = std::mem::take(&mut all[index]);
            ended.sort_by_key(|(number, _)| *number);
            ended.into_iter().map(|(_, report)| report).collect()
        };
        let report = ScenarioReport::from_attempts(ended)?;
        on_report(&report);
        Some(report)
    };
    let worker = || -> Box<dyn Worker<ScenarioReport> + '_> {
        Box::new(WarmWorker::new(work, options, &ended, workers.warm))
    };
    in_order_on_workers(start, repeat, workers.count, AHEAD, &worker, in_order);
}

/// What one worker thread does with the jobs it takes, a job being attempt
/// `number` of item `index`: it may start a job ahead of its turn (a scenario's
/// warm spare: `super::warm`) and runs them in the order it took them.
pub(crate) trait Worker<R> {
    /// How many jobs it wants in hand, the next to run included.
    fn wanted(&self) -> usize;
    /// Starts a job: now, while the jobs before it run.
    fn start(&mut self, index: usize, number: usize);
    /// Runs the first job started and not yet run, to the item's result: None
    /// when it was not the item's last attempt to end.
    fn run_next(&mut self) -> Option<R>;
}

/// A worker that starts nothing ahead: each job runs whole in its turn.
#[cfg(test)]
struct Cold<'f, R> {
    attempt: &'f (dyn Fn(usize, usize) -> Option<R> + Sync),
    started: VecDeque<(usize, usize)>,
}

#[cfg(test)]
impl<R> Worker<R> for Cold<'_, R> {
    fn wanted(&self) -> usize {
        1
    }

    fn start(&mut self, index: usize, number: usize) {
        self.started.push_back((index, number));
    }

    fn run_next(&mut self) -> Option<R> {
        let (index, number) = self.started.pop_front()?;
        (self.attempt)(index, number)
    }
}

/// [`in_order_on_workers`] with workers that start nothing ahead, each job an
/// `attempt` of its own.
#[cfg(test)]
fn in_order_on_threads<R: Send>(
    start: &StartOrder,
    repeat: usize,
    jobs: usize,
    ahead: usize,
    attempt: &(dyn Fn(usize, usize) -> Option<R> + Sync),
    in_order: &mut (dyn FnMut(usize, R) + Send),
) {
    let worker = || -> Box<dyn Worker<R> + '_> {
        Box::new(Cold {
            attempt,
            started: VecDeque::new(),
        })
    };
    in_order_on_workers(start, repeat, jobs, ahead, &worker, in_order);
}

/// Runs attempts `0..repeat` of the items of `start` on `jobs` threads, each
/// with a [`Worker`] of its own, taking them in `start`'s order, and hands each
/// item's result (the one its last attempt to end returns) to `in_order` in item
/// order. A worker takes as many jobs as it wants in hand and starts each as it
/// takes it, but an item taken in its turn (not one of `start.early`) starts
/// only while it is fewer than `ahead` places past the first item not yet handed
/// on: one past that is held unstarted, and nothing more taken, until it may.
/// An item whose attempt panics is passed over, and so is every item its worker
/// held, so the others are not held up; the panic reaches the caller once every
/// thread has ended.
fn in_order_on_workers<'w, R: Send>(
    start: &StartOrder,
    repeat: usize,
    jobs: usize,
    ahead: usize,
    worker: &(dyn Fn() -> Box<dyn Worker<R> + 'w> + Sync),
    in_order: &mut (dyn FnMut(usize, R) + Send),
) {
    let items = start.order.len();
    let total = items * repeat;
    let next_job = AtomicUsize::new(0);
    let line = Mutex::new(Reorder {
        next: 0,
        waiting: BTreeMap::new(),
        consumer: in_order,
    });
    let moved = Condvar::new();
    // Whether item `index` may start now, taken in its turn or not.
    let may_start = |index: usize, in_turn: bool| -> bool {
        !in_turn || line.lock().map_or(true, |held| index < held.next + ahead)
    };
    // Waits until item `index` may start.
    let wait_to_start = |index: usize| {
        if let Ok(mut held) = line.lock() {
            while index >= held.next + ahead {
                match moved.wait(held) {
                    Ok(again) => held = again,
                    // A consumer panicked: nothing is handed on any more.
                    Err(_) => break,
                }
            }
        }
    };
    std::thread::scope(|scope| {
        for _ in 0..jobs.clamp(1, total.max(1)) {
            scope.spawn(|| {
                let mut worker = worker();
                // The jobs taken and not yet run, in order: (index, number, started).
                let mut hand: VecDeque<(usize, usize, bool)> = VecDeque::new();
                let mut taking = true;
                loop {
                    // Take jobs up to what the worker wants in hand, none past
                    // one that must wait to start.
                    while taking
                        && hand.len() < worker.wanted()
                        && hand.back().is_none_or(|&(_, _, started)| started)
                    {
                        let job = next_job.fetch_add(1, Ordering::Relaxed);
                        let Some(&index) = start.order.get(job / repeat) else {
                            taking = false;
                            break;
                        };
                        let (number, in_turn) = (job % repeat, job / repeat >= start.early);
                        let started = may_start(index, in_turn);
                        if started {
                            worker.start(index, number);
                        }
                        hand.push_back((index, number, started));
                    }
                    let Some((index, number, started)) = hand.pop_front() else {
                        break;
                    };
                    let mut passed_over = PassOverOnPanic {
                        indices: std::iter::once(index)
                            .chain(hand.iter().map(|&(i, _, _)| i))
                            .collect(),
                        line: &line,
                        moved: &moved,
                    };
                    if !started {
                        wait_to_start(index);
                        worker.start(index, number);
                    }
                    let result = worker.run_next();
                    passed_over.indices.clear();
                    if let Some(result) = result {
                        if let Ok(mut held) = line.lock() {
                            held.arrived(index, Some(result));
                        }
                        moved.notify_all();
                    }
                }
            });
        }
    });
}

/// Passes over the items a worker held (the one it ran first) when dropped by a
/// panic in its attempt, so the items after them are handed on and the workers
/// waiting for them go on.
struct PassOverOnPanic<'a, 'c, R> {
    /// Empty once the attempt has returned.
    indices: Vec<usize>,
    line: &'a Mutex<Reorder<'c, R>>,
    moved: &'a Condvar,
}

impl<R> Drop for PassOverOnPanic<'_, '_, R> {
    fn drop(&mut self) {
        if self.indices.is_empty() {
            return;
        }
        if let Ok(mut held) = self.line.lock() {
            for &index in &self.indices {
                held.arrived(index, None);
            }
        }
        self.moved.notify_all();
    }
}

/// The results that ended before one ahead of them, until it does.
struct Reorder<'c, R> {
    /// The index of the next result to hand on.
    next: usize,
    /// Arrived out of turn: a result, or `None` for an item passed over.
    waiting: BTreeMap<usize, Option<R>>,
    consumer: &'c mut (dyn FnMut(usize, R) + Send),
}

impl<R> Reorder<'_, R> {
    /// Takes the result at `index` (`None`: there will be none), and hands on every
    /// result now next in line. One for an item already passed over is dropped.
    fn arrived(&mut self, index: usize, result: Option<R>) {
        if index < self.next {
            return;
        }
        self.waiting.insert(index, result);
        while let Some(result) = self.waiting.remove(&self.next) {
            if let Some(result) = result {
                (self.consumer)(self.next, result);
            }
            self.next += 1;
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

    #[test]
    fn jobs_default_to_the_cores_there_are() {
        let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
        assert_eq!(default_jobs(), cores);
    }

    #[test]
    fn results_are_handed_on_in_order_whatever_order_they_end_in() {
        let mut seen = Vec::new();
        let mut consumer = |index: usize, id: &'static str| seen.push((index, id));
        let mut reorder = Reorder {
            next: 0,
            waiting: BTreeMap::new(),
            consumer: &mut consumer,
        };
        reorder.arrived(2, Some("c"));
        reorder.arrived(1, Some("b"));
        assert!(reorder.waiting.len() == 2, "held until the first ends");
        reorder.arrived(0, Some("a"));
        assert!(reorder.waiting.is_empty());
        reorder.arrived(4, Some("e"));
        reorder.arrived(3, None);
        reorder.arrived(3, Some("late"));
        drop(reorder);
        assert_eq!(seen, [(0, "a"), (1, "b"), (2, "c"), (4, "e")]);
    }

    /// The first item ends last, after every other has ended or is waiting: no item
    /// starts `ahead` or more places past it, so at most `ahead - 1` results wait.
    #[test]
    fn workers_run_no_further_ahead_of_the_first_than_allowed() {
        use std::sync::atomic::AtomicBool;
        use std::time::Duration;
        let (items, ahead) = (40, 5);
        let highest_started = AtomicUsize::new(0);
        let first_may_end = AtomicBool::new(false);
        let attempt = |index: usize, _: usize| -> Option<usize> {
            highest_started.fetch_max(index, Ordering::SeqCst);
            if index == 0 {
                // Until the others have gone as far as they may.
                while !first_may_end.load(Ordering::SeqCst) {
                    std::thread::sleep(Duration::from_millis(1));
                }
            } else if index == ahead - 1 {
                std::thread::sleep(Duration::from_millis(50));
                first_may_end.store(true, Ordering::SeqCst);
            }
            Some(index)
        };
        let mut seen = Vec::new();
        let mut most_ahead = 0;
        let mut consumer = |index: usize, result: usize| {
            if index == 0 {
                most_ahead = highest_started.load(Ordering::SeqCst);
            }
            seen.push((index, result));
        };
        in_order_on_threads(
            &StartOrder::as_listed(items),
            1,
            4,
            ahead,
            &attempt,
            &mut consumer,
        );
        assert_eq!(seen, (0..items).map(|i| (i, i)).collect::<Vec<_>>());
        assert_eq!(
            most_ahead,
            ahead - 1,
            "while the first item ran, one started {most_ahead} places past it"
        );
    }

    #[test]
    fn an_item_that_panics_holds_up_none_after_it() {
        let attempt = |index: usize, _: usize| -> Option<usize> {
            assert!(index != 3, "item 3 fails");
            Some(index)
        };
        let mut seen = Vec::new();
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            in_order_on_threads(
                &StartOrder::as_listed(10),
                1,
                2,
                2,
                &attempt,
                &mut |index, _| seen.push(index),
            );
        }));
        assert!(outcome.is_err(), "the panic reaches the caller");
        assert_eq!(seen, [0, 1, 2, 4, 5, 6, 7, 8, 9]);
    }

    #[test]
    fn every_attempt_runs_and_the_result_comes_once_per_item() {
        let runs = AtomicUsize::new(0);
        let attempt = |index: usize, number: usize| -> Option<(usize, usize)> {
            runs.fetch_add(1, Ordering::SeqCst);
            (number == 2).then_some((index, number))
        };
        let mut seen = Vec::new();
        in_order_on_threads(
            &StartOrder::as_listed(6),
            3,
            3,
            2,
            &attempt,
            &mut |index, result| seen.push((index, result)),
        );
        assert_eq!(runs.load(Ordering::SeqCst), 18);
        assert_eq!(seen, (0..6).map(|i| (i, (i, 2))).collect::<Vec<_>>());
    }

    /// Items started early, far past the bound, start before any other and hold
    /// nobody up; the results still come in item order.
    #[test]
    fn early_items_start_first_wherever_they_stand() {
        let start = StartOrder {
            order: std::iter::once(30)
                .chain(std::iter::once(20))
                .chain((0..40).filter(|i| *i != 30 && *i != 20))
                .collect(),
            early: 2,
        };
        let started = Mutex::new(Vec::new());
        let attempt = |index: usize, _: usize| -> Option<usize> {
            started.lock().expect("lock").push(index);
            Some(index)
        };
        let mut seen = Vec::new();
        in_order_on_threads(&start, 1, 1, 3, &attempt, &mut |index, result| {
            seen.push((index, result))
        });
        let started = started.into_inner().expect("lock");
        assert_eq!(
            &started[..3],
            [30, 20, 0],
            "one worker: the early ones first"
        );
        assert_eq!(seen, (0..40).map(|i| (i, i)).collect::<Vec<_>>());
    }
}
