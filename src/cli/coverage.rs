//! `toolspec coverage`: which clauses of each suite's spec documents have a scenario,
//! as a listing or JSON; exits 1 when one has none, a `covers:` names no clause, or
//! a document read has other clauses than the suite's clause index records.

use std::path::PathBuf;

use super::error::CliError;
use super::outcome::Outcome;
use super::output::print;
use crate::catalogue::Catalogue;
use crate::proof::coverage::documents::{from_folder, from_index, from_paths};
use crate::proof::coverage::{listing, SuiteCoverage};

/// `toolspec coverage`.
#[derive(clap::Args, Debug)]
pub(crate) struct CoverageArgs {
    /// Suite to check; repeat for several (default: all).
    #[arg(long)]
    suite: Vec<String>,
    /// Spec document to read the clauses from, compared with the suite's clause index
    /// entry of the same file name (or content); repeat for several. Needs exactly one
    /// --suite. Default: the clauses the suite's index records.
    #[arg(long)]
    spec: Vec<PathBuf>,
    /// Folder holding the suites' documents under the file names their clause
    /// indexes give: each is read and compared with its index entry.
    #[arg(long, alias = "seeds", conflicts_with = "spec")]
    documents: Option<PathBuf>,
    /// Print machine-readable JSON instead of the listing.
    #[arg(long)]
    json: bool,
}

/// Runs `toolspec coverage`: prints the listing (or JSON) and exits 1 when a suite is
/// not completely covered or its clause index is out of date.
pub(crate) fn coverage(catalogue: &Catalogue, args: &CoverageArgs) -> Result<Outcome, CliError> {
    if !args.spec.is_empty() && args.suite.len() != 1 {
        return Err(CliError::SpecNeedsOneSuite);
    }
    let suites = catalogue.select(&args.suite)?;
    let mut results = Vec::new();
    let mut errors = Vec::new();
    for suite in &suites {
        let documents = match (&args.documents, args.spec.is_empty()) {
            (_, false) => from_paths(suite, &args.spec),
            (Some(dir), true) => from_folder(suite, dir),
            (None, true) => from_index(suite),
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
