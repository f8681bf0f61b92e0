//! What a scoring run found: per suite, which mutations its scenarios kill.

use super::catalogue::Mutation;

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
}

impl SuiteScore {
    pub(crate) fn killed(&self) -> usize {
        self.mutants.iter().filter(|m| m.killed()).count()
    }

    pub(crate) fn survivors(&self) -> impl Iterator<Item = &MutantOutcome> {
        self.mutants.iter().filter(|m| !m.killed())
    }
}
