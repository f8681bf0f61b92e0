//! Runs a budget of generated cases on both sides, on a few threads, keeping the
//! divergent and failed ones in case order and only counts of the clean ones, so
//! memory stays flat however long a run is.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::Instant;

use super::allocator;
use super::budget::{Budget, Shard};
use super::fail_fast::FailFast;
use super::warm::{Spare, Spares};
use super::watch::Watch;
use crate::explore::compare::differential::{
    run_started, stop_unused, CaseOutcome, ExploredCase, Sides,
};
use crate::explore::explore_file::ExploreData;
use crate::explore::generate::case::{generate_case, Case};

/// What one run explores.
pub(crate) struct ExplorePlan<'a> {
    pub sides: Sides<'a>,
    pub data: &'a ExploreData,
    pub seed: u64,
    pub budget: Budget,
    pub shard: Shard,
    pub jobs: usize,
    pub watch: &'a dyn Watch,
    /// `--fail-fast`: no case is started after one shows a new divergence (one
    /// the baseline does not know), as proptest and Hypothesis stop at their
    /// first failure.
    pub fail_fast: bool,
}

/// What a run explored: the cases worth showing, and only counts of the rest.
#[derive(Default)]
pub(crate) struct Explored {
    /// The cases that diverged (a known divergence passed over included) or
    /// could not be run, in case order.
    pub kept: Vec<ExploredCase>,
    /// How many cases ran, kept or not.
    pub cases: u64,
    /// Tool -> how many calls of it the clean cases made. A clean case is
    /// counted here and dropped, so memory stays flat however long a run is.
    pub clean_calls: BTreeMap<String, u64>,
}

/// Runs every case of `plan` (its shard, within its budget) on `plan.jobs`
/// threads, each starting the servers of its next cases ahead of their turn
/// (`warm.rs`). Cases not run because of an interrupt are left out; a case
/// that ran clean is only counted.
pub(crate) fn run_cases(plan: &ExplorePlan<'_>) -> Explored {
    let started = Instant::now();
    let time_up = AtomicBool::new(false);
    let next = AtomicU64::new(0);
    let counts = Mutex::new((0u64, BTreeMap::<String, u64>::new()));
    let kept = Mutex::new(BTreeMap::<u64, ExploredCase>::new());
    let fail_fast = FailFast::new(plan.fail_fast);
    allocator::share_arenas();
    std::thread::scope(|scope| {
        for _ in 0..plan.jobs.max(1) {
            scope.spawn(|| {
                let Ok(runtime) = crate::server::runtime::thread_runtime() else {
                    return;
                };
                let mut spares = Spares::new(
                    plan.sides.oracle,
                    plan.sides.subject,
                    plan.sides.call_timeout,
                );
                let mut claiming = true;
                loop {
                    // Claim cases up to what this thread wants started ahead.
                    while claiming && spares.claimed() < spares.wanted() {
                        let index = next.fetch_add(1, Ordering::Relaxed);
                        if !plan.budget.admits(index, started) || fail_fast.stops(index) {
                            claiming = false;
                            break;
                        }
                        let number = plan.shard.case_number(index);
                        spares.claim(index, number, generate_case(plan.seed, number, plan.data));
                    }
                    if crate::server::interrupted() {
                        break;
                    }
                    let Some(Spare {
                        index,
                        number,
                        case,
                        start,
                    }) = spares.next()
                    else {
                        break;
                    };
                    if fail_fast.stops(index) {
                        if let Some(unused) = spares.started(&runtime, start) {
                            spares.run(&runtime, stop_unused(unused));
                        }
                        break;
                    }
                    if !plan.budget.admits(index, started) {
                        if !time_up.swap(true, Ordering::Relaxed) {
                            plan.watch
                                .phase("time is up, finishing the cases under way");
                        }
                        if let Some(unused) = spares.started(&runtime, start) {
                            spares.run(&runtime, stop_unused(unused));
                        }
                        break;
                    }
                    let outcome = match spares.started(&runtime, start) {
                        Some(both) => spares.run(&runtime, run_started(&plan.sides, &case, both)),
                        None => CaseOutcome::Failed("starting the servers panicked".to_string()),
                    };
                    let ended = Ended {
                        index,
                        case,
                        outcome,
                    };
                    if let Some(explored) = counted(plan, &counts, &fail_fast, ended) {
                        if let Ok(mut kept) = kept.lock() {
                            kept.insert(number, explored);
                        }
                    }
                }
                spares.stop_all(&runtime);
            });
        }
    });
    let (mut cases, mut clean_calls) = counts.into_inner().unwrap_or_default();
    let mut kept = kept.into_inner().unwrap_or_default();
    // With --fail-fast, what ran past the first new divergence on other jobs is
    // left out, so the run reports the same at any --jobs (`fail_fast.rs`).
    if let Some((first, cut_cases, cut_calls)) = fail_fast.cut() {
        let last = plan.shard.case_number(first);
        kept.retain(|&number, _| number <= last);
        (cases, clean_calls) = (cut_cases, cut_calls);
    }
    Explored {
        kept: kept.into_values().collect(),
        cases,
        clean_calls,
    }
}

/// A case that ran, with its index in the run.
struct Ended {
    index: u64,
    case: Case,
    outcome: CaseOutcome,
}

/// Tells `--fail-fast` and the watcher of a case that ended and counts it: a clean one is only
/// counted (None), one that diverged, passed over a known divergence or could
/// not run is handed back to keep.
fn counted(
    plan: &ExplorePlan<'_>,
    counts: &Mutex<(u64, BTreeMap<String, u64>)>,
    fail_fast: &FailFast,
    ended: Ended,
) -> Option<ExploredCase> {
    let Ended {
        index,
        case,
        outcome,
    } = ended;
    // A case that passed over a known divergence is kept, so its report
    // and classification read what it passed over.
    let clean_calls = match &outcome {
        CaseOutcome::Ran {
            calls,
            divergence: None,
            passed_over,
        } if passed_over.is_empty() => Some(*calls),
        _ => None,
    };
    let explored = ExploredCase { case, outcome };
    let clean_tools = explored.case.calls.iter().take(clean_calls.unwrap_or(0));
    fail_fast.ended(
        index,
        &plan.sides,
        &explored,
        clean_tools.map(|c| c.tool.clone()).collect(),
    );
    plan.watch.case_ended(&explored);
    let mut trim_now = false;
    if let Ok(mut counts) = counts.lock() {
        counts.0 += 1;
        trim_now = counts.0 % allocator::TRIM_EVERY == 0;
        for call in explored.case.calls.iter().take(clean_calls.unwrap_or(0)) {
            *counts.1.entry(call.tool.clone()).or_insert(0) += 1;
        }
    }
    if trim_now {
        allocator::trim();
    }
    match clean_calls {
        Some(_) => None,
        None => Some(explored),
    }
}
