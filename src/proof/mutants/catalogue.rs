//! A dialect's catalogues of mutations and of conforming variations, as the
//! bundled reference server lists them (`--list-mutations`, `--list-variations`),
//! and the entries a run asks for checked against them.

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

/// One conforming variation of the reference server's catalogue: an answer in
/// another form the documents allow, which no scenario may fail.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Variation {
    pub name: String,
    /// What changes, as the reference server describes it.
    pub what: String,
    /// The sentence that allows it, as the reference server cites it.
    pub allowed_by: String,
    /// Whether `basis: upstream` scenarios must accept it too: false for one that
    /// changes words the upstream program has, which only the documents allow.
    pub spares_upstream: bool,
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
    #[error("suite {suite}: `{command} {flag}` failed ({status}): {stderr}")]
    Catalogue {
        suite: String,
        command: String,
        flag: &'static str,
        status: std::process::ExitStatus,
        stderr: String,
    },
    #[error("suite {suite} has no {kind} {}; its catalogue: {}", quoted(.unknown), .catalogue.join(", "))]
    UnknownMutation {
        suite: String,
        /// `mutation` or `variation`.
        kind: &'static str,
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
    let listing = listing(exe, suite, "--list-mutations")?;
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

/// The variations of the reference server as `suite` starts it, read from its
/// `--list-variations` (`name<TAB>what<TAB>allowed by<TAB>spares` lines, spares
/// being `all` or `spec`; the freedoms it rejected, listed after them as
/// `!rejected` lines, are not variations).
pub(crate) fn read_variations(exe: &Path, suite: &Suite) -> Result<Vec<Variation>, MutantsError> {
    let listing = listing(exe, suite, "--list-variations")?;
    Ok(listing
        .lines()
        .filter(|line| !line.trim().is_empty() && !line.starts_with('!'))
        .map(|line| {
            let mut fields = line.splitn(4, '\t').map(str::trim);
            Variation {
                name: fields.next().unwrap_or_default().to_string(),
                what: fields.next().unwrap_or_default().to_string(),
                allowed_by: fields.next().unwrap_or_default().to_string(),
                spares_upstream: fields.next() != Some("spec"),
            }
        })
        .collect())
}

/// What the reference server prints, started as `suite` starts it, with `flag`.
fn listing(exe: &Path, suite: &Suite, flag: &'static str) -> Result<String, MutantsError> {
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
    let output = output_of_listed(Command::new(&target.program).args(&args).arg(flag)).map_err(
        |source| MutantsError::Spawn {
            suite: suite.name.clone(),
            program: target.program.clone(),
            source,
        },
    )?;
    if !output.status.success() {
        return Err(MutantsError::Catalogue {
            suite: suite.name.clone(),
            command: format!("{} {}", target.program.display(), args.join(" ")),
            flag,
            status: output.status,
            stderr: String::from_utf8_lossy(&output.stderr).trim().to_string(),
        });
    }
    Ok(String::from_utf8_lossy(&output.stdout).into_owned())
}

/// The mutations of `catalogue` to score: all of them, or those named in `only`,
/// each of which must be in it.
pub(crate) fn select(
    suite: &Suite,
    catalogue: Vec<Mutation>,
    only: &[String],
) -> Result<Vec<Mutation>, MutantsError> {
    select_named(suite, "mutation", catalogue, only, |m| &m.name)
}

/// The variations of `catalogue` to run: all of them, or those named in `only`,
/// each of which must be in it.
pub(crate) fn select_variations(
    suite: &Suite,
    catalogue: Vec<Variation>,
    only: &[String],
) -> Result<Vec<Variation>, MutantsError> {
    select_named(suite, "variation", catalogue, only, |v| &v.name)
}

/// The entries of a catalogue of `kind` whose `name` is in `only` (all when it is
/// empty); a name in `only` that the catalogue lacks is an error listing it.
fn select_named<T>(
    suite: &Suite,
    kind: &'static str,
    catalogue: Vec<T>,
    only: &[String],
    name: impl Fn(&T) -> &String,
) -> Result<Vec<T>, MutantsError> {
    let unknown: Vec<String> = only
        .iter()
        .filter(|wanted| !catalogue.iter().any(|entry| name(entry) == *wanted))
        .cloned()
        .collect();
    if !unknown.is_empty() {
        return Err(MutantsError::UnknownMutation {
            suite: suite.name.clone(),
            kind,
            unknown,
            catalogue: catalogue.iter().map(|entry| name(entry).clone()).collect(),
        });
    }
    Ok(catalogue
        .into_iter()
        .filter(|entry| only.is_empty() || only.contains(name(entry)))
        .collect())
}
