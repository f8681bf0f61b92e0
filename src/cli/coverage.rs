//! `toolspec coverage`: which clauses of each suite's spec documents have a scenario,
//! as a listing or JSON; exits 1 when one has none or a `covers:` names no clause.

use std::path::{Path, PathBuf};

use super::error::CliError;
use super::output::print;
use super::Outcome;
use crate::proof::coverage::documents::{default_seeds_dir, given_documents, suite_documents};
use crate::proof::coverage::{listing, SuiteCoverage};
use crate::scenario::selected_suites;

/// `toolspec coverage`.
#[derive(clap::Args, Debug)]
pub(crate) struct CoverageArgs {
    /// Suite to check; repeat for several (default: all).
    #[arg(long)]
    suite: Vec<String>,
    /// Spec document to take the clauses from; repeat for several. Needs exactly one
    /// --suite. Default: the suite's `documents:`, read from the seeds folder.
    #[arg(long)]
    spec: Vec<PathBuf>,
    /// Folder holding the documents named in suite.yaml (default: ../shared/seeds,
    /// seen from the folder that holds the specs folder).
    #[arg(long, conflicts_with = "spec")]
    seeds: Option<PathBuf>,
    /// Print machine-readable JSON instead of the listing.
    #[arg(long)]
    json: bool,
}

/// Runs `toolspec coverage`: prints the listing (or JSON) and exits 1 when a suite is
/// not completely covered.
pub(crate) fn coverage(specs: &Path, args: &CoverageArgs) -> Result<Outcome, CliError> {
    if !args.spec.is_empty() && args.suite.len() != 1 {
        return Err(CliError::SpecNeedsOneSuite);
    }
    let suites = selected_suites(specs, &args.suite)?;
    let seeds = args
        .seeds
        .clone()
        .unwrap_or_else(|| default_seeds_dir(specs));
    let mut results = Vec::new();
    let mut errors = Vec::new();
    for suite in &suites {
        let documents = if args.spec.is_empty() {
            suite_documents(
                &suite.dir.join("suite.yaml"),
                &suite.config.documents,
                &seeds,
            )
        } else {
            given_documents(&args.spec)
        };
        match documents {
            Ok(documents) => results.push(SuiteCoverage::of(suite, &documents)),
            Err(mut e) => errors.append(&mut e),
        }
    }
    if !errors.is_empty() {
        return Err(errors.into());
    }
    let text = if args.json {
        listing::json(&results)
    } else {
        listing::text(&results)
    };
    print(&text);
    Ok(if results.iter().all(SuiteCoverage::is_complete) {
        Outcome::Held
    } else {
        Outcome::Broken
    })
}
