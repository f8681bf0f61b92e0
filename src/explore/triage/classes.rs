//! A run's divergences grouped by signature, those a case passed over included:
//! each class has the cases that showed it, whether a baseline already knows it,
//! and, for a new one, its first case (in case order) shrunk. Only that first
//! case is shrunk: the others show the same deviation and would shrink to about
//! the same thing at many times the cost.

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
    /// How many times a case went on past it (a known divergence while the
    /// fixtures agreed).
    pub passed_over: usize,
    /// The first case shrunk (new classes only, when shrinking ran).
    pub shrunk: Option<Shrunk>,
}

/// Every divergence of a run, each with its class.
pub(crate) struct Classified<'a> {
    pub classes: Vec<DivergenceClass<'a>>,
    /// Case number -> the index of the class of the divergence that stopped it;
    /// read through [`Classified::class_of_case`], so no reporter indexes
    /// `classes` itself.
    class_of: BTreeMap<u64, usize>,
    /// Case number -> the classes of the known divergences it went on past, in
    /// call order; read through [`Classified::passed_over_in_case`].
    passed_over_of: BTreeMap<u64, Vec<usize>>,
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

    /// The classes of the divergences case `number` passed over, in the order
    /// of its `passed_over` (empty for a case that passed over none).
    pub(crate) fn passed_over_in_case(&self, number: u64) -> Vec<&DivergenceClass<'a>> {
        self.passed_over_of
            .get(&number)
            .into_iter()
            .flatten()
            .filter_map(|&index| self.classes.get(index))
            .collect()
    }
}

/// Groups the divergences of `explored` by signature, in order of first showing
/// (in each case, those it passed over before the one that stopped it), and
/// marks those the baseline knows with its class. A divergence passed over is
/// one the baseline knows, so its class counts as seen.
pub(crate) fn classify<'a>(explored: &'a [ExploredCase], baseline: &Baseline) -> Classified<'a> {
    let mut grouping = Grouping::default();
    let mut class_of = BTreeMap::new();
    let mut passed_over_of: BTreeMap<u64, Vec<usize>> = BTreeMap::new();
    for ExploredCase { case, outcome } in explored {
        let CaseOutcome::Ran {
            divergence,
            passed_over,
            ..
        } = outcome
        else {
            continue;
        };
        for passed in passed_over {
            let index = grouping.add(case, passed, baseline);
            grouping.classes[index].passed_over += 1;
            passed_over_of.entry(case.number).or_default().push(index);
        }
        if let Some(divergence) = divergence {
            let index = grouping.add(case, divergence, baseline);
            class_of.insert(case.number, index);
        }
    }
    Classified {
        classes: grouping.classes,
        class_of,
        passed_over_of,
    }
}

/// The classes found so far, by signature id.
#[derive(Default)]
struct Grouping<'a> {
    classes: Vec<DivergenceClass<'a>>,
    by_id: BTreeMap<String, usize>,
}

impl<'a> Grouping<'a> {
    /// Adds `divergence` of `case` to its class, made when it is the first of
    /// its signature; the class's index. Cases come in order, so a case that
    /// shows one signature twice is listed once.
    fn add(&mut self, case: &'a Case, divergence: &'a Divergence, baseline: &Baseline) -> usize {
        let signature = signature(case, divergence);
        let classes = &mut self.classes;
        let index = *self.by_id.entry(signature.id()).or_insert_with(|| {
            classes.push(DivergenceClass {
                known: baseline.class_of(&signature),
                signature,
                first: (case, divergence),
                cases: Vec::new(),
                passed_over: 0,
                shrunk: None,
            });
            classes.len() - 1
        });
        let cases = &mut self.classes[index].cases;
        if cases.last() != Some(&case.number) {
            cases.push(case.number);
        }
        index
    }
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
