//! `explore --fail-fast`: no case is started after the first one that shows a
//! new divergence (one the run's baseline does not know), as proptest and
//! Hypothesis stop at their first failure; that case is then shrunk and reported
//! as any run's first new divergence is.
//!
//! On several jobs, cases after it may already be under way when it ends, and
//! one before it may still be running and diverge too. So the run keeps, per
//! case index, what each ended with, and what it reports is cut at the lowest
//! index that showed a new divergence: every case before that one was started
//! before it, so the cases and the divergence reported are the same at any
//! `--jobs`.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

use crate::explore::compare::differential::{CaseOutcome, ExploredCase, Sides};
use crate::explore::compare::signature::signature;
use crate::explore::generate::case::Case;

/// The first new divergence of a run with `--fail-fast`, and the clean cases'
/// calls by index until the cut is known.
pub(crate) struct FailFast {
    on: bool,
    /// The lowest index of a case that showed a new divergence; `u64::MAX`: none yet.
    first_new: AtomicU64,
    /// Index -> the tools of the calls a clean case made (empty for a kept one).
    ended: Mutex<BTreeMap<u64, Vec<String>>>,
}

impl FailFast {
    pub(crate) fn new(on: bool) -> Self {
        FailFast {
            on,
            first_new: AtomicU64::new(u64::MAX),
            ended: Mutex::new(BTreeMap::new()),
        }
    }

    /// Whether the case of `index` is not to be started: one before it showed a
    /// new divergence.
    pub(crate) fn stops(&self, index: u64) -> bool {
        index > self.first_new.load(Ordering::Relaxed)
    }

    /// Notes how the case of `index` ended; `clean_tools`, the tools of the
    /// calls a clean case made (empty for one that is kept).
    pub(crate) fn ended(
        &self,
        index: u64,
        sides: &Sides<'_>,
        explored: &ExploredCase,
        clean_tools: Vec<String>,
    ) {
        if !self.on {
            return;
        }
        if shows_new(sides, &explored.case, &explored.outcome) {
            self.first_new.fetch_min(index, Ordering::Relaxed);
        }
        if let Ok(mut ended) = self.ended.lock() {
            ended.insert(index, clean_tools);
        }
    }

    /// The cut, when a case showed a new divergence: the index of the first, and
    /// how many cases ran up to it with the calls the clean ones made by tool,
    /// which replace the run's own counts (they include cases past the cut).
    pub(crate) fn cut(self) -> Option<(u64, u64, BTreeMap<String, u64>)> {
        let first = self.first_new.into_inner();
        if first == u64::MAX {
            return None;
        }
        let ended = self.ended.into_inner().unwrap_or_default();
        let mut clean_calls = BTreeMap::new();
        let mut cases = 0;
        for (_, tools) in ended.range(..=first) {
            cases += 1;
            for tool in tools {
                *clean_calls.entry(tool.clone()).or_insert(0) += 1;
            }
        }
        Some((first, cases, clean_calls))
    }
}

/// Whether `outcome` stopped at a divergence the run's baseline does not know.
fn shows_new(sides: &Sides<'_>, case: &Case, outcome: &CaseOutcome) -> bool {
    match outcome {
        CaseOutcome::Ran {
            divergence: Some(divergence),
            ..
        } => !sides
            .known
            .is_some_and(|known| known.knows(&signature(case, divergence))),
        _ => false,
    }
}
