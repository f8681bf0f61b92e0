//! `toolspec explore`: generated cases run on an oracle and a subject, compared
//! call by call. A stage after `execute`: it builds fixtures and sessions with the
//! fixture and server stages, reads answers with the judge's convention code, and
//! hands the command a list of divergences in case order.
//!
//! Generation is data-driven: the tools and their argument types come from the
//! oracle's tools/list, what each argument means from the suite's `explore.yaml`.
//! Each case has its own seed, so a run's output depends on the seed and the
//! number of cases, never on how many jobs ran them.

pub(crate) mod agreement;
pub(crate) mod argument_gen;
pub(crate) mod baseline;
pub(crate) mod baseline_yaml;
pub(crate) mod budget;
pub(crate) mod case;
pub(crate) mod classes;
pub(crate) mod compare;
pub(crate) mod differential;
pub(crate) mod escape_gen;
pub(crate) mod explore_file;
pub(crate) mod fixture_gen;
pub(crate) mod heap;
pub(crate) mod ignore_gen;
pub(crate) mod job_threads;
pub(crate) mod patch_gen;
pub(crate) mod rare_gen;
pub(crate) mod shell_gen;
pub(crate) mod shrink;
pub(crate) mod signature;
pub(crate) mod stale;
pub(crate) mod suite_names;
pub(crate) mod transcript;
pub(crate) mod watch;

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use budget::{Budget, Shard};
use case::{generate_case, Case};
use differential::{run_case, CaseOutcome, Sides};
use explore_file::ExploreData;
use job_threads::Ended;
use watch::Watch;

use crate::fixture::Fixture;
use crate::server::{ListedTool, Session, Target};

/// What one run explores.
pub(crate) struct ExplorePlan<'a> {
    pub sides: Sides<'a>,
    pub data: &'a ExploreData,
    pub seed: u64,
    pub budget: Budget,
    pub shard: Shard,
    pub jobs: usize,
    pub watch: &'a dyn Watch,
}

/// A case with how it came out.
pub(crate) struct ExploredCase {
    pub case: Case,
    pub outcome: CaseOutcome,
}

/// What a run explored: the cases worth showing, and only counts of the rest.
#[derive(Default)]
pub(crate) struct Explored {
    /// The cases that diverged or could not be run, in case order.
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
pub(crate) fn explore(plan: &ExplorePlan<'_>) -> Explored {
    let started = Instant::now();
    let time_up = AtomicBool::new(false);
    let counts = Mutex::new((0u64, BTreeMap::<String, u64>::new()));
    heap::share_arenas();
    let kept = job_threads::run_numbered(plan.jobs, |runtime, index| {
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
        let clean_calls = match outcome {
            CaseOutcome::Ran {
                calls,
                divergence: None,
            } => Some(calls),
            _ => None,
        };
        let explored = ExploredCase { case, outcome };
        plan.watch.case_ended(&explored);
        let mut trim_now = false;
        if let Ok(mut counts) = counts.lock() {
            counts.0 += 1;
            trim_now = counts.0 % heap::TRIM_EVERY == 0;
            for call in explored.case.calls.iter().take(clean_calls.unwrap_or(0)) {
                *counts.1.entry(call.tool.clone()).or_insert(0) += 1;
            }
        }
        if trim_now {
            heap::trim();
        }
        match clean_calls {
            Some(_) => Ended::Drop,
            None => Ended::Keep(number, explored),
        }
    });
    let (cases, clean_calls) = counts.into_inner().unwrap_or_default();
    Explored {
        kept: kept.into_values().collect(),
        cases,
        clean_calls,
    }
}

/// The oracle's tools/list, from a server started on an empty fixture, in the
/// suite's names (an oracle given as a target file may rename them).
pub(crate) fn list_oracle_tools(
    oracle: &Target,
    timeout: Duration,
) -> Result<Vec<ListedTool>, String> {
    let fixture = Fixture::build(&BTreeMap::new())
        .map_err(|e| format!("cannot build an empty fixture: {e}"))?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start an async runtime: {e}"))?;
    runtime.block_on(async {
        let session = Session::launch(oracle, fixture.places(), &BTreeMap::new(), timeout)
            .await
            .map_err(|e| format!("the oracle did not start: {}", e.message))?;
        let listed = session.list_tools(timeout).await;
        let _ = session.stop().await;
        listed
            .map(|tools| suite_names::listed_in_suite_names(tools, oracle))
            .map_err(|why| format!("the oracle's tools/list: {why}"))
    })
}
