//! Which suites a run takes and which of their scenarios: the suites named, else
//! those the exact ids name, else those a target file pins, else all; then the
//! scenarios `--basis`, `--filter` and `--id` admit.

use super::error::PlanError;
use crate::catalogue::Catalogue;
use crate::scenario::{Basis, IdSelection, Partition, Scenario, Suite, SuiteScenarioFile};
use crate::server::Target;

/// The suites of `catalogue` a run takes, loaded: those `named` (`--suite`);
/// without any, the suites the exact `ids` name; else, for a target file that pins
/// suites, those it pins (it is gated on them alone); else every suite. Each id
/// must name a scenario of them.
pub(crate) fn suites_to_run(
    catalogue: &Catalogue,
    named: &[String],
    ids: Option<&IdSelection>,
    given: Option<&Target>,
) -> Result<Vec<Suite>, PlanError> {
    let named = match ids {
        Some(ids) if named.is_empty() => ids.suites(),
        _ => named.to_vec(),
    };
    let pinned: Vec<String> = match given {
        Some(target) if named.is_empty() => target.pins.keys().cloned().collect(),
        _ => Vec::new(),
    };
    let suites = catalogue
        .select(if pinned.is_empty() { &named } else { &pinned })
        .map_err(PlanError::Suites)?;
    if let Some(ids) = ids {
        ids.check(&suites).map_err(PlanError::Ids)?;
    }
    Ok(suites)
}

/// What chooses among a suite's scenarios: `--basis`, `--filter`, `--id`, then
/// `--partition`, which takes a shard of those the others admit.
#[derive(Clone, Copy)]
pub(crate) struct Selection<'a> {
    /// Only this conformance level; every level when `None`.
    pub(crate) basis: Option<Basis>,
    /// Only ids that contain this text.
    pub(crate) filter: Option<&'a str>,
    /// Only these exact ids.
    pub(crate) ids: Option<&'a IdSelection>,
    pub(crate) partition: Option<Partition>,
}

impl Selection<'_> {
    /// Whether the scenario passes `--basis`, `--filter` and `--id` (before
    /// `--partition` takes a shard of those that do).
    pub(crate) fn admits(
        &self,
        suite: &Suite,
        file: &SuiteScenarioFile,
        scenario: &Scenario,
    ) -> bool {
        let id = suite.scenario_id(file, scenario);
        self.basis.is_none_or(|basis| basis == scenario.basis)
            && self.filter.is_none_or(|needle| id.contains(needle))
            && self.ids.is_none_or(|ids| ids.admits(&id))
    }
}
