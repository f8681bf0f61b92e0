//! Mutation testing of a suite: the bundled reference server is started once per
//! entry of its dialect's catalogue of deliberate deviations (`--mutate NAME`),
//! and the suite is run against each. A mutation is killed when at least one
//! scenario that passes against the honest server fails (or errors) against the
//! mutated one; a survivor is a hole in the suite.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

use crate::execute::{RunOptions, ScenarioReport, Verdict};
use crate::parallel::run_scenarios;
use crate::scenario::Suite;
use crate::target::Target;

/// One deviation of the reference server's catalogue.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mutation {
    pub name: String,
    /// What goes wrong, as the reference server describes it.
    pub what: String,
}

/// How one mutation fared.
#[derive(Debug, Clone)]
pub struct MutantOutcome {
    pub mutation: Mutation,
    /// Scenarios that pass against the honest server and not against this one.
    pub killed_by: Vec<String>,
}

impl MutantOutcome {
    pub fn killed(&self) -> bool {
        !self.killed_by.is_empty()
    }
}

/// A suite's mutation score.
#[derive(Debug, Clone)]
pub struct SuiteScore {
    pub suite: String,
    pub scenarios: usize,
    /// Scenarios that do not pass against the honest server; they cannot kill.
    pub not_passing: Vec<String>,
    pub mutants: Vec<MutantOutcome>,
}

impl SuiteScore {
    pub fn killed(&self) -> usize {
        self.mutants.iter().filter(|m| m.killed()).count()
    }

    pub fn survivors(&self) -> impl Iterator<Item = &MutantOutcome> {
        self.mutants.iter().filter(|m| !m.killed())
    }
}

/// The catalogue of the reference server as `suite` starts it, read from its
/// `--list-mutations` (`name<TAB>what` lines).
pub fn catalogue(exe: &Path, suite: &Suite) -> Result<Vec<Mutation>, String> {
    let target = Target::reference(exe, suite);
    let scratch = tempfile::tempdir().map_err(|e| format!("cannot make a temporary root: {e}"))?;
    let args = target
        .argv(scratch.path(), None, &BTreeMap::new())
        .map_err(|u| u.0)?;
    let output = Command::new(&target.program)
        .args(&args)
        .arg("--list-mutations")
        .output()
        .map_err(|e| format!("cannot start {}: {e}", target.program.display()))?;
    if !output.status.success() {
        return Err(format!(
            "`{} {} --list-mutations` failed ({}): {}",
            target.program.display(),
            args.join(" "),
            output.status,
            String::from_utf8_lossy(&output.stderr).trim()
        ));
    }
    let listing = String::from_utf8_lossy(&output.stdout);
    Ok(listing
        .lines()
        .filter(|line| !line.trim().is_empty())
        .map(|line| {
            let (name, what) = line.split_once('\t').unwrap_or((line, ""));
            Mutation {
                name: name.trim().to_string(),
                what: what.trim().to_string(),
            }
        })
        .collect())
}

/// Runs `suite` against the honest reference server, then once per mutation
/// (all of the catalogue, or those named in `only`), calling `progress` after each.
pub fn score_suite(
    exe: &Path,
    suite: &Suite,
    only: &[String],
    options: &RunOptions,
    jobs: usize,
    progress: &dyn Fn(&MutantOutcome),
) -> Result<SuiteScore, String> {
    let catalogue = catalogue(exe, suite)?;
    let unknown: Vec<&String> = only
        .iter()
        .filter(|name| !catalogue.iter().any(|m| &m.name == *name))
        .collect();
    if !unknown.is_empty() {
        let valid: Vec<&str> = catalogue.iter().map(|m| m.name.as_str()).collect();
        return Err(format!(
            "suite {} has no mutation {}; its catalogue: {}",
            suite.name,
            unknown
                .iter()
                .map(|n| format!("`{n}`"))
                .collect::<Vec<_>>()
                .join(", "),
            valid.join(", ")
        ));
    }
    let work: Vec<_> = suite.scenarios().collect();
    let silent = |_: &ScenarioReport| {};
    let honest = run_scenarios(
        suite,
        &work,
        &Target::reference(exe, suite),
        options,
        jobs,
        &silent,
    );
    let not_passing: Vec<String> = honest
        .iter()
        .filter(|r| !matches!(r.verdict, Verdict::Pass))
        .map(|r| r.id.clone())
        .collect();
    let mut mutants = Vec::new();
    for mutation in catalogue
        .into_iter()
        .filter(|m| only.is_empty() || only.contains(&m.name))
    {
        let target = Target::reference(exe, suite).with_extra_args(&["--mutate", &mutation.name]);
        let reports = run_scenarios(suite, &work, &target, options, jobs, &silent);
        let killed_by = reports
            .iter()
            .filter(|r| matches!(r.verdict, Verdict::Fail(_) | Verdict::Error { .. }))
            .filter(|r| !not_passing.contains(&r.id))
            .map(|r| r.id.clone())
            .collect();
        let outcome = MutantOutcome {
            mutation,
            killed_by,
        };
        progress(&outcome);
        mutants.push(outcome);
    }
    Ok(SuiteScore {
        suite: suite.name.clone(),
        scenarios: work.len(),
        not_passing,
        mutants,
    })
}
