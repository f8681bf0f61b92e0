//! A run's divergences grouped by signature: each class has the cases that showed
//! it, whether a baseline already knows it, and, for a new one, its first case (in
//! case order) shrunk. Only that first case is shrunk: the others show the same
//! deviation and would shrink to about the same thing at many times the cost.

use std::collections::BTreeMap;

use crate::explore::triage::baseline::Baseline;

use crate::explore::compare::differential::ExploredCase;
use crate::explore::compare::differential::{CaseOutcome, Divergence, Sides};
use crate::explore::compare::signature::{signature, Signature};
use crate::explore::generate::case::Case;
use crate::explore::shrink::shrink_case::{shrink_each, Shrunk};

/// The divergences of one signature.
pub(crate) struct DivergenceClass<'a> {
    pub signature: Signature,
    /// The first case that showed it, with its divergence.
    pub first: (&'a Case, &'a Divergence),
    /// The numbers of every case that showed it, in case order.
    pub cases: Vec<u64>,
    /// The baseline's class it belongs to, if the baseline knows it.
    pub known: Option<usize>,
    /// The first case shrunk (new classes only, when shrinking ran).
    pub shrunk: Option<Shrunk>,
}

/// Every divergence of a run, each with its class.
pub(crate) struct Classified<'a> {
    pub classes: Vec<DivergenceClass<'a>>,
    /// Case number -> the index of its class; read through
    /// [`Classified::class_of_case`], so no reporter indexes `classes` itself.
    class_of: BTreeMap<u64, usize>,
}

impl<'a> Classified<'a> {
    /// How many classes the baseline does not list.
    pub(crate) fn new_count(&self) -> usize {
        self.classes.iter().filter(|c| c.known.is_none()).count()
    }

    /// The class the divergence of case `number` fell in; None for a case that
    /// did not diverge (or was not run). The text and the JSON report both ask
    /// it, so a case names the same signature in each.
    pub(crate) fn class_of_case(&self, number: u64) -> Option<&DivergenceClass<'a>> {
        self.class_of
            .get(&number)
            .and_then(|&index| self.classes.get(index))
    }
}

/// Groups the divergences of `explored` by signature, in order of first showing,
/// and marks those the baseline knows with its class.
pub(crate) fn classify<'a>(explored: &'a [ExploredCase], baseline: &Baseline) -> Classified<'a> {
    let mut classes: Vec<DivergenceClass<'a>> = Vec::new();
    let mut by_id: BTreeMap<String, usize> = BTreeMap::new();
    let mut class_of = BTreeMap::new();
    for ExploredCase { case, outcome } in explored {
        let CaseOutcome::Ran {
            divergence: Some(divergence),
            ..
        } = outcome
        else {
            continue;
        };
        let signature = signature(case, divergence);
        let id = signature.id();
        let index = *by_id.entry(id.clone()).or_insert_with(|| {
            classes.push(DivergenceClass {
                known: baseline.class_of(&signature),
                signature,
                first: (case, divergence),
                cases: Vec::new(),
                shrunk: None,
            });
            classes.len() - 1
        });
        classes[index].cases.push(case.number);
        class_of.insert(case.number, index);
    }
    Classified { classes, class_of }
}

/// Shrinks the first case of every new class, `budget` re-runs each.
pub(crate) fn shrink_new(
    classified: &mut Classified<'_>,
    sides: &Sides<'_>,
    budget: usize,
    jobs: usize,
) {
    if budget == 0 {
        return;
    }
    let wanted: Vec<usize> = (0..classified.classes.len())
        .filter(|&i| classified.classes[i].known.is_none())
        .collect();
    let found: Vec<(&Case, &Divergence)> = wanted
        .iter()
        .map(|&i| classified.classes[i].first)
        .collect();
    let shrunk = shrink_each(sides, &found, budget, jobs);
    for (index, shrunk) in wanted.into_iter().zip(shrunk) {
        classified.classes[index].shrunk = shrunk;
    }
}
