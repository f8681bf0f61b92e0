//! Mutation testing of a suite: the bundled reference server is started once per
//! entry of its dialect's catalogue of deliberate deviations (`--mutate NAME`),
//! and the suite is run against each. A mutation is killed when at least one
//! scenario that passes against the honest server fails (or errors) against the
//! mutated one; a survivor is a hole in the suite.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{json, Value};

use crate::execute::parallel::run_scenarios;
use crate::execute::{RunOptions, ScenarioReport, Verdict};
use crate::scenario::Suite;
use crate::server::Target;

/// One deviation of the reference server's catalogue.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Mutation {
    pub name: String,
    /// What goes wrong, as the reference server describes it.
    pub what: String,
}

/// How one mutation fared.
#[derive(Debug, Clone)]
pub(crate) struct MutantOutcome {
    pub mutation: Mutation,
    /// Scenarios that pass against the honest server and not against this one.
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

/// Why a suite could not be scored.
#[derive(Debug, thiserror::Error)]
pub(crate) enum MutantsError {
    #[error("suite {suite}: cannot make a temporary root: {source}")]
    Scratch {
        suite: String,
        #[source]
        source: std::io::Error,
    },
    #[error("suite {suite}: the reference server cannot be started as the suite says: {why}")]
    Unstartable { suite: String, why: String },
    #[error("suite {suite}: cannot start {}: {source}", .program.display())]
    Spawn {
        suite: String,
        program: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("suite {suite}: `{command} --list-mutations` failed ({status}): {stderr}")]
    Catalogue {
        suite: String,
        command: String,
        status: std::process::ExitStatus,
        stderr: String,
    },
    #[error("suite {suite} has no mutation {}; its catalogue: {}", quoted(.unknown), .catalogue.join(", "))]
    UnknownMutation {
        suite: String,
        unknown: Vec<String>,
        catalogue: Vec<String>,
    },
}

fn quoted(names: &[String]) -> String {
    names
        .iter()
        .map(|n| format!("`{n}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The catalogue of the reference server as `suite` starts it, read from its
/// `--list-mutations` (`name<TAB>what` lines).
pub(crate) fn catalogue(exe: &Path, suite: &Suite) -> Result<Vec<Mutation>, MutantsError> {
    let target = Target::reference(exe, suite);
    let scratch = tempfile::tempdir().map_err(|source| MutantsError::Scratch {
        suite: suite.name.clone(),
        source,
    })?;
    let args = target
        .argv(scratch.path(), None, &BTreeMap::new())
        .map_err(|u| MutantsError::Unstartable {
            suite: suite.name.clone(),
            why: u.0,
        })?;
    let output = Command::new(&target.program)
        .args(&args)
        .arg("--list-mutations")
        .output()
        .map_err(|source| MutantsError::Spawn {
            suite: suite.name.clone(),
            program: target.program.clone(),
            source,
        })?;
    if !output.status.success() {
        return Err(MutantsError::Catalogue {
            suite: suite.name.clone(),
            command: format!("{} {}", target.program.display(), args.join(" ")),
            status: output.status,
            stderr: String::from_utf8_lossy(&output.stderr).trim().to_string(),
        });
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
pub(crate) fn score_suite(
    exe: &Path,
    suite: &Suite,
    only: &[String],
    options: &RunOptions,
    jobs: usize,
    progress: &dyn Fn(&MutantOutcome),
) -> Result<SuiteScore, MutantsError> {
    let catalogue = catalogue(exe, suite)?;
    let unknown: Vec<&String> = only
        .iter()
        .filter(|name| !catalogue.iter().any(|m| &m.name == *name))
        .collect();
    if !unknown.is_empty() {
        return Err(MutantsError::UnknownMutation {
            suite: suite.name.clone(),
            unknown: unknown.into_iter().cloned().collect(),
            catalogue: catalogue.iter().map(|m| m.name.clone()).collect(),
        });
    }
    let work: Vec<_> = suite.scenarios().collect();
    let silent = |_: &ScenarioReport| {};
    let honest = run_scenarios(
        suite,
        &work,
        &Target::reference(exe, suite),
        options,
        None,
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
        let reports = run_scenarios(suite, &work, &target, options, None, jobs, &silent);
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

/// The shape of the mutation scores, as `docs/mutants.schema.json` describes it:
/// raise it with any change a reader could notice, and the schema with it.
const SCHEMA_VERSION: u64 = 1;

/// Writes mutation scores as JSON to `path`.
pub(crate) fn write_json(path: &Path, scores: &[SuiteScore]) -> std::io::Result<()> {
    let suites: Vec<Value> = scores
        .iter()
        .map(|score| {
            let mutants: Vec<Value> = score
                .mutants
                .iter()
                .map(|m| {
                    json!({
                        "name": m.mutation.name,
                        "what": m.mutation.what,
                        "killed": m.killed(),
                        "killed_by": m.killed_by,
                    })
                })
                .collect();
            json!({
                "suite": score.suite,
                "scenarios": score.scenarios,
                "killed": score.killed(),
                "total": score.mutants.len(),
                "not_passing": score.not_passing,
                "mutants": mutants,
            })
        })
        .collect();
    let mut file = std::fs::File::create(path)?;
    serde_json::to_writer_pretty(
        &mut file,
        &json!({ "schema_version": SCHEMA_VERSION, "suites": suites }),
    )?;
    file.write_all(b"\n")
}
