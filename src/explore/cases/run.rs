//! Runs a budget of generated cases on both sides, on a few threads, keeping the
//! divergent and failed ones in case order and only counts of the clean ones, so
//! memory stays flat however long a run is.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;
use std::time::Instant;

use super::allocator;
use super::budget::{Budget, Shard};
use super::fail_fast::FailFast;
use super::job_threads::{self, Ended};
use super::watch::Watch;
use crate::explore::compare::differential::{run_case, CaseOutcome, ExploredCase, Sides};
use crate::explore::explore_file::ExploreData;
use crate::explore::generate::case::generate_case;

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
/// threads. Cases not run because of an interrupt are left out; a case that ran
/// clean is only counted.
pub(crate) fn run_cases(plan: &ExplorePlan<'_>) -> Explored {
    let started = Instant::now();
    let time_up = AtomicBool::new(false);
    let counts = Mutex::new((0u64, BTreeMap::<String, u64>::new()));
    let fail_fast = FailFast::new(plan.fail_fast);
    allocator::share_arenas();
    let mut kept = job_threads::run_numbered(plan.jobs, |runtime, index| {
        if fail_fast.stops(index) {
            return Ended::Stop;
        }
        if !plan.budget.admits(index, started) {
            if matches!(plan.budget, Budget::Seconds(_)) && !time_up.swap(true, Ordering::Relaxed) {
                plan.watch
                    .phase("time is up, finishing the cases under way");
            }
            return Ended::Stop;
        }
        let number = plan.shard.case_number(index);
        let case = generate_case(plan.seed, number, plan.data);
        let outcome = runtime.block_on(run_case(&plan.sides, &case));
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
            Some(_) => Ended::Drop,
            None => Ended::Keep(number, explored),
        }
    });
    let (mut cases, mut clean_calls) = counts.into_inner().unwrap_or_default();
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
