//! `toolspec coverage`: which clauses of each suite's spec documents have a scenario,
//! as a listing or JSON; exits 1 when one has none or a `covers:` names no clause.

use std::path::{Path, PathBuf};

use super::catalogue::{Catalogue, Origin};
use super::error::CliError;
use super::output::print;
use super::Outcome;
use crate::proof::coverage::documents::{default_seeds_dir, given_documents, suite_documents};
use crate::proof::coverage::{listing, SuiteCoverage};

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
pub(crate) fn coverage(catalogue: &Catalogue, args: &CoverageArgs) -> Result<Outcome, CliError> {
    if !args.spec.is_empty() && args.suite.len() != 1 {
        return Err(CliError::SpecNeedsOneSuite);
    }
    let suites = catalogue.select(&args.suite)?;
    // A suite's documents are in the seeds folder beside the checkout its specs
    // folder belongs to: for a built-in suite, the one toolspec was built from.
    let seeds_for =
        |suite: &crate::scenario::Suite| match (&args.seeds, catalogue.origin(&suite.name)) {
            (Some(seeds), _) => seeds.clone(),
            (None, Some(Origin::Folder(specs))) => default_seeds_dir(specs),
            (None, _) => default_seeds_dir(&Path::new(env!("CARGO_MANIFEST_DIR")).join("specs")),
        };
    let mut results = Vec::new();
    let mut errors = Vec::new();
    for suite in &suites {
        let documents = if args.spec.is_empty() {
            suite_documents(
                &suite.dir.join("suite.yaml"),
                &suite.config.documents,
                &seeds_for(suite),
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
