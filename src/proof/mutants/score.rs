//! What a scoring run found: per suite, which mutations its scenarios kill
//! (sensitivity), and which conforming variations they wrongly fail
//! (specificity).

use super::catalogue::{Mutation, Variation};
use crate::proof::freedoms::FalseAnswer;

/// How one mutation fared.
#[derive(Debug, Clone)]
pub(crate) struct MutantOutcome {
    pub mutation: Mutation,
    /// Ids of scenarios that pass against the honest server and not against this
    /// one, in suite order: the first one found, when scoring stops at the first
    /// kill; every one, in a full count.
    pub killed_by: Vec<String>,
}

impl MutantOutcome {
    pub(crate) fn killed(&self) -> bool {
        !self.killed_by.is_empty()
    }
}

/// A suite's mutation score.
#[derive(Debug, Clone)]
pub(crate) struct SuiteScore {
    pub suite: String,
    pub scenarios: usize,
    /// Scenarios that do not pass against the honest server; they cannot kill.
    pub not_passing: Vec<String>,
    pub mutants: Vec<MutantOutcome>,
    /// The variations run, each alone (a full count) or all at once (one entry).
    pub variations: Vec<VariationOutcome>,
    /// The answers derived along the clauses' freedoms (`proof::freedoms`).
    pub derived: DerivedOutcome,
}

/// What the answers derived along the documents' freedoms showed, over a
/// suite's `basis: spec` scenarios that pass honestly.
#[derive(Debug, Clone, Default)]
pub(crate) struct DerivedOutcome {
    /// Scenarios judged again.
    pub scenarios: usize,
    /// Answers derived and judged.
    pub answers: usize,
    /// Each a scenario's id and an answer it failed, in suite order.
    pub false_answers: Vec<(String, FalseAnswer)>,
}

/// How one run of conforming variations fared: every scenario that passes
/// against the honest server must pass against it too.
#[derive(Debug, Clone)]
pub(crate) struct VariationOutcome {
    /// The variations the server took at once: one, or the whole catalogue.
    pub variations: Vec<Variation>,
    /// The scenarios that failed against it though they pass honestly, in suite
    /// order: each a false failure.
    pub false_failures: Vec<FalseFailure>,
}

impl VariationOutcome {
    pub(crate) fn spared(&self) -> bool {
        self.false_failures.is_empty()
    }

    /// The variations by name, comma-separated.
    pub(crate) fn names(&self) -> String {
        self.variations
            .iter()
            .map(|v| v.name.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// A scenario that fails a conforming answer, and why.
#[derive(Debug, Clone)]
pub(crate) struct FalseFailure {
    pub scenario: String,
    /// The expectations that did not hold, as the scenario writes them (or the
    /// error the run ended in), each with the first line of what was wrong.
    pub expectations: Vec<String>,
}

impl SuiteScore {
    pub(crate) fn killed(&self) -> usize {
        self.mutants.iter().filter(|m| m.killed()).count()
    }

    pub(crate) fn survivors(&self) -> impl Iterator<Item = &MutantOutcome> {
        self.mutants.iter().filter(|m| !m.killed())
    }

    /// How many variations were run, and how many of them no scenario failed:
    /// a run of all at once counts for each of its variations.
    pub(crate) fn specificity(&self) -> (usize, usize) {
        self.variations.iter().fold((0, 0), |(spared, total), run| {
            let n = run.variations.len();
            (spared + if run.spared() { n } else { 0 }, total + n)
        })
    }
}

/// The counts of a whole scoring run, every suite together.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Totals {
    pub killed: usize,
    /// Mutations scored.
    pub total: usize,
    /// Variations no scenario failed.
    pub spared: usize,
    /// Variations run.
    pub varied: usize,
    /// Answers derived along the clauses' freedoms.
    pub derived: usize,
    /// Derived answers a scenario failed.
    pub derived_failed: usize,
}

impl Totals {
    pub(crate) fn of(scores: &[SuiteScore]) -> Totals {
        scores.iter().fold(Totals::default(), |t, score| {
            let (spared, varied) = score.specificity();
            Totals {
                killed: t.killed + score.killed(),
                total: t.total + score.mutants.len(),
                spared: t.spared + spared,
                varied: t.varied + varied,
                derived: t.derived + score.derived.answers,
                derived_failed: t.derived_failed + score.derived.false_answers.len(),
            }
        })
    }

    /// Whether every mutation was killed, every variation spared and every
    /// derived answer passed.
    pub(crate) fn held(&self) -> bool {
        self.killed == self.total && self.spared == self.varied && self.derived_failed == 0
    }
}
