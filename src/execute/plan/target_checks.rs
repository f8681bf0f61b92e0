//! A target file checked against the suites a run selected, before anything runs:
//! its baseline and its version pins may only name what the suites have, so a typo
//! or a leftover refuses the run rather than excusing or gating on nothing.

use std::collections::BTreeSet;
use std::path::Path;

use super::error::PlanError;
use crate::scenario::{LoadError, Suite};
use crate::server::Target;

/// The target file `file` that `target` was read from, checked against `suites`:
/// its baseline first, then its pins. A target given as a command line has
/// neither to check.
pub(crate) fn check_target_file(
    target: &Target,
    suites: &[Suite],
    file: Option<&Path>,
) -> Result<(), PlanError> {
    let Some(file) = file else {
        return Ok(());
    };
    refuse_any(check_baseline(target, suites, file))?;
    refuse_any(check_pins(target, suites, file))
}

fn refuse_any(errors: Vec<LoadError>) -> Result<(), PlanError> {
    if errors.is_empty() {
        Ok(())
    } else {
        Err(PlanError::TargetFile(errors))
    }
}

/// A baseline entry that names no scenario of a selected suite is a typo or a
/// leftover from a renamed scenario: refuse it rather than silently ignore it. A
/// baseline comes only from a target file, so `file` is where each entry is.
fn check_baseline(target: &Target, suites: &[Suite], file: &Path) -> Vec<LoadError> {
    let ids: BTreeSet<String> = suites
        .iter()
        .flat_map(|s| s.scenarios().map(move |(f, sc)| s.scenario_id(f, sc)))
        .collect();
    let selected: Vec<&str> = suites.iter().map(|s| s.name.as_str()).collect();
    target
        .baseline
        .iter()
        .filter(|id| selected.contains(&id.split("::").next().unwrap_or_default()))
        .filter(|entry| !names_a_scenario(entry, &ids))
        .map(|id| {
            LoadError::new(
                file,
                None,
                format!("baseline names no scenario: `{id}`; fix or remove it"),
            )
        })
        .collect()
}

/// Whether a baseline entry names a scenario of `ids`: the whole scenario, or one
/// of its expectations (`id#key`; a scenario name may itself hold a `#`).
fn names_a_scenario(entry: &str, ids: &BTreeSet<String>) -> bool {
    ids.contains(entry)
        || entry
            .match_indices('#')
            .any(|(at, _)| ids.contains(&entry[..at]) && !entry[at + 1..].is_empty())
}

/// A pin above a suite's version names a version that does not exist (a typo, or a
/// target file written for a newer toolspec): refuse it rather than gate on nothing.
fn check_pins(target: &Target, suites: &[Suite], file: &Path) -> Vec<LoadError> {
    suites
        .iter()
        .filter_map(|suite| {
            let pin = *target.pins.get(&suite.name)?;
            (pin == 0 || pin > suite.config.version).then(|| {
                LoadError::new(
                    file,
                    None,
                    format!(
                        "`suites: {{ {}: {pin} }}` pins a version the suite does not have (it is at version {}); pin 1 to {}",
                        suite.name, suite.config.version, suite.config.version
                    ),
                )
            })
        })
        .collect()
}
