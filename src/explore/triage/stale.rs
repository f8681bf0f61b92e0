//! The stale check of a baseline: a listed class that a run did not see may be out
//! of the run's reach (another seed, fewer cases) or may no longer diverge at all.
//! Its witness, the seed and case number that showed it when it was triaged, tells
//! the two apart: the case is generated again and run on both sides, and a class
//! whose witness no longer shows it is stale, as a run's baseline entry that now
//! passes is. A witness gets a second run before it is called stale, so one slow
//! answer under load does not make a class look fixed.

use std::collections::BTreeSet;

use crate::explore::cases::job_threads::{run_numbered, Ended};
use crate::explore::compare::differential::{run_case, CaseOutcome, Sides};
use crate::explore::compare::signature::signature;
use crate::explore::explore_file::ExploreData;
use crate::explore::generate::case::generate_case;
use crate::explore::triage::baseline::Baseline;

/// What a listed class's witness showed when it was run again.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum WitnessRun {
    /// It still shows the class: the run only did not reach it.
    Shows,
    /// It no longer does; what it showed instead (a signature, or that it ran
    /// clean or could not run).
    Stale(String),
}

/// Runs the witness of every class of `baseline` not in `seen` that has one, on
/// `jobs` threads; (class index, what it showed), in class order.
pub(crate) fn recheck_unseen(
    sides: &Sides<'_>,
    data: &ExploreData,
    baseline: &Baseline,
    seen: &BTreeSet<usize>,
    jobs: usize,
) -> Vec<(usize, WitnessRun)> {
    let unseen: Vec<usize> = (0..baseline.classes.len())
        .filter(|i| !seen.contains(i) && baseline.classes[*i].witness.is_some())
        .collect();
    if unseen.is_empty() {
        return Vec::new();
    }
    let threads = jobs.clamp(1, unseen.len());
    let done = run_numbered(threads, |runtime, number| {
        let Some(&index) = usize::try_from(number).ok().and_then(|i| unseen.get(i)) else {
            return Ended::Stop;
        };
        let Some(witness) = baseline.classes[index].witness else {
            return Ended::Drop;
        };
        let case = generate_case(witness.seed, witness.case, data);
        let mut found = WitnessRun::Stale(String::new());
        for _ in 0..2 {
            let shown = match runtime.block_on(run_case(sides, &case)) {
                CaseOutcome::Ran {
                    divergence,
                    passed_over,
                    ..
                } => {
                    // A class the case passed over shows as much as one that
                    // stopped it.
                    let signatures: Vec<_> = passed_over
                        .iter()
                        .chain(&divergence)
                        .map(|d| signature(&case, d))
                        .collect();
                    if signatures
                        .iter()
                        .any(|s| baseline.class_of(s) == Some(index))
                    {
                        found = WitnessRun::Shows;
                        break;
                    }
                    match signatures.last() {
                        Some(signature) => format!("shows {} instead", signature.id()),
                        None => "runs clean".to_string(),
                    }
                }
                CaseOutcome::Failed(why) => {
                    format!("could not run: {}", why.lines().next().unwrap_or_default())
                }
            };
            found = WitnessRun::Stale(shown);
        }
        Ended::Keep(number, (index, found))
    });
    done.into_values().collect()
}
