//! A dialect's catalogue of mutations, as the bundled reference server lists it
//! (`--list-mutations`), and the mutations a run asks for checked against it.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::scenario::Suite;
use crate::server::{output_of_listed, Target};

/// One deviation of the reference server's catalogue.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Mutation {
    pub name: String,
    /// What goes wrong, as the reference server describes it.
    pub what: String,
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
pub(crate) fn read(exe: &Path, suite: &Suite) -> Result<Vec<Mutation>, MutantsError> {
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
    let output = output_of_listed(
        Command::new(&target.program)
            .args(&args)
            .arg("--list-mutations"),
    )
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

/// The mutations of `catalogue` to score: all of them, or those named in `only`,
/// each of which must be in it.
pub(crate) fn select(
    suite: &Suite,
    catalogue: Vec<Mutation>,
    only: &[String],
) -> Result<Vec<Mutation>, MutantsError> {
    let unknown: Vec<String> = only
        .iter()
        .filter(|name| !catalogue.iter().any(|m| &m.name == *name))
        .cloned()
        .collect();
    if !unknown.is_empty() {
        return Err(MutantsError::UnknownMutation {
            suite: suite.name.clone(),
            unknown,
            catalogue: catalogue.iter().map(|m| m.name.clone()).collect(),
        });
    }
    Ok(catalogue
        .into_iter()
        .filter(|m| only.is_empty() || only.contains(&m.name))
        .collect())
}
