//! What a run's cases came to in counts: the calls compared (up to the divergence
//! that stopped each case, the calls after a known one it passed over included),
//! the divergences by level, those passed over by level, the cases not run, and
//! the calls of tools the subject lacks, which are not made and not counted as
//! compared.

use std::collections::BTreeMap;

use super::agreement::Agreement;
use crate::explore::cases::run::Explored;
use crate::explore::compare::differential::{CaseOutcome, ExploredCase};
use crate::explore::compare::levels::Level;

/// The counts of a run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Tally {
    /// Calls made on both sides and compared.
    pub calls: usize,
    pub divergences: usize,
    /// Divergences that stopped a case, by level, in `Level::ALL` order.
    pub by_level: [usize; Level::ALL.len()],
    /// Known divergences a case went on past, by level, in `Level::ALL` order.
    pub passed_over_by_level: [usize; Level::ALL.len()],
    /// Cases that could not be run.
    pub failed: usize,
    /// Calls of tools the subject does not list, up to each case's divergence.
    pub unsupported: usize,
}

impl Tally {
    /// The counts of `explored`: its kept cases one by one, and the calls its clean
    /// cases made (only counted, never kept); calls of `subject_lacks` count as
    /// UNSUPPORTED.
    pub(crate) fn of(explored: &Explored, subject_lacks: &[String]) -> Tally {
        let mut tally = Tally::default();
        for ExploredCase { case, outcome } in &explored.kept {
            let (calls, divergence, passed_over) = match outcome {
                CaseOutcome::Failed(_) => {
                    tally.failed += 1;
                    continue;
                }
                CaseOutcome::Ran {
                    calls,
                    divergence,
                    passed_over,
                } => (*calls, divergence, passed_over),
            };
            let unsupported = case
                .calls
                .iter()
                .take(calls)
                .filter(|c| subject_lacks.contains(&c.tool))
                .count();
            tally.unsupported += unsupported;
            tally.calls += calls - unsupported;
            if let Some(divergence) = divergence {
                tally.divergences += 1;
                count_level(&mut tally.by_level, divergence.difference.level);
            }
            for passed in passed_over {
                count_level(&mut tally.passed_over_by_level, passed.difference.level);
            }
        }
        tally.count_clean_calls(&explored.clean_calls, subject_lacks);
        tally
    }

    /// Adds the calls the clean cases made, those of tools the subject lacks as
    /// UNSUPPORTED.
    fn count_clean_calls(&mut self, clean_calls: &BTreeMap<String, u64>, subject_lacks: &[String]) {
        for (tool, &calls) in clean_calls {
            let calls = usize::try_from(calls).unwrap_or(usize::MAX);
            if subject_lacks.contains(tool) {
                self.unsupported += calls;
            } else {
                self.calls += calls;
            }
        }
    }

    /// How many known divergences the cases went on past.
    pub(crate) fn passed_over(&self) -> usize {
        self.passed_over_by_level.iter().sum()
    }

    /// How often the two sides agreed over the calls counted: a call passed
    /// over disagreed at its level as much as one that stopped its case.
    pub(crate) fn agreement(&self) -> Agreement {
        let mut by_level = self.by_level;
        for (slot, passed) in by_level.iter_mut().zip(self.passed_over_by_level) {
            *slot += passed;
        }
        Agreement {
            calls: self.calls,
            by_level,
        }
    }
}

/// Counts one divergence at `level` in `by_level`.
fn count_level(by_level: &mut [usize; Level::ALL.len()], level: Level) {
    if let Some(slot) = Level::ALL.iter().position(|l| *l == level) {
        by_level[slot] += 1;
    }
}
