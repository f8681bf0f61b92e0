//! What a run's cases came to in counts: the calls compared (up to each case's
//! divergence), the divergences by level, the cases not run, and the calls of
//! tools the subject lacks, which are not made and not counted as compared.

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
    /// Divergences by level, in `Level::ALL` order.
    pub by_level: [usize; Level::ALL.len()],
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
            let (calls, divergence) = match outcome {
                CaseOutcome::Failed(_) => {
                    tally.failed += 1;
                    continue;
                }
                CaseOutcome::Ran { calls, divergence } => (*calls, divergence),
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
                let level = divergence.difference.level;
                if let Some(slot) = Level::ALL.iter().position(|l| *l == level) {
                    tally.by_level[slot] += 1;
                }
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

    /// How often the two sides agreed over the calls counted.
    pub(crate) fn agreement(&self) -> Agreement {
        Agreement {
            calls: self.calls,
            by_level: self.by_level,
        }
    }
}
