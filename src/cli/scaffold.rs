//! `toolspec scaffold`: the suite's clause index for spec documents, and skeleton
//! scenarios for the clauses no scenario covers yet, written beside the suite's files
//! and never over them.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use crate::catalogue::Catalogue;

use super::error::CliError;
use super::outcome::Outcome;
use super::output::say;
use crate::proof::coverage::documents::read_documents;
use crate::proof::coverage::index::{render, with_documents, UPSTREAM_UNKNOWN};
use crate::proof::coverage::spec_document::SpecDocument;
use crate::proof::scaffold::{covered_ids, plan, write, TODO_PREFIX};
use crate::scenario::{read_clause_index, LoadError, CLAUSE_INDEX_FILE};

/// `toolspec scaffold`.
#[derive(clap::Args, Debug)]
pub(crate) struct ScaffoldArgs {
    /// Spec document to take the clauses from; repeat for several.
    #[arg(long, required = true)]
    spec: Vec<PathBuf>,
    /// Suite whose scenarios already cover some clauses (those are skipped). It need
    /// not exist yet. The files go into its folder unless --out is given.
    #[arg(long)]
    suite: Option<String>,
    /// Folder to write the files into.
    #[arg(long)]
    out: Option<PathBuf>,
}

/// `specs` is the folder given with `--specs`: without `--out`, the files go into
/// the suite's folder there (never into a built-in suite, which is not a folder of
/// the user's).
pub(crate) fn scaffold(
    catalogue: &Catalogue,
    specs: Option<&Path>,
    args: &ScaffoldArgs,
) -> Result<Outcome, CliError> {
    let documents = read_documents(&args.spec)?;
    if documents.iter().all(|d| d.clauses.is_empty()) {
        // A typo'd path more likely than a suite of design notes.
        return Err(CliError::from(
            args.spec
                .iter()
                .map(|p| {
                    LoadError::new(
                        p,
                        None,
                        "no clauses found in this document (see docs/coverage.md for what \
                         counts as a clause), nor in any other given",
                    )
                })
                .collect::<Vec<_>>(),
        ));
    }
    for document in documents.iter().filter(|d| d.clauses.is_empty()) {
        say(format_args!(
            "note: {} has no clauses (see docs/coverage.md for what counts as one); \
             it is indexed with none",
            document.path.display()
        ));
    }
    let covered = match &args.suite {
        Some(name) if catalogue.origin(name).is_some() => {
            let suite = catalogue.select(std::slice::from_ref(name))?;
            match suite.first() {
                Some(suite) => covered_ids(&suite.dir)?,
                None => BTreeSet::new(),
            }
        }
        _ => BTreeSet::new(),
    };
    let out = match (&args.out, &args.suite, specs) {
        (Some(out), _, _) => out.clone(),
        (None, Some(name), Some(specs)) => specs.join(name),
        (None, _, _) => return Err(CliError::ScaffoldNeedsAPlace),
    };
    let plan = plan(&documents, &covered, &out)?;
    if plan.is_empty() {
        say("every clause already has a scenario; no scenario written");
    } else {
        for line in write(&out, &plan)? {
            say(line);
        }
    }
    say(write_index(&out, &documents)?);
    if !plan.is_empty() {
        let scenarios: usize = plan.iter().map(|p| p.scenarios).sum();
        say(format_args!(
            "scaffolded {scenarios} clauses; each scenario fails until its `when` and `then` \
             are written and `{TODO_PREFIX}` is dropped from its name"
        ));
    }
    Ok(Outcome::Held)
}

/// Writes `out/clauses.yaml` with an entry for each of `documents` (the others it
/// had kept), unless it already says exactly that; returns the line to print.
fn write_index(out: &Path, documents: &[SpecDocument]) -> Result<String, Vec<LoadError>> {
    let path = out.join(CLAUSE_INDEX_FILE);
    let existing = read_clause_index(out)?;
    let index = with_documents(existing.as_ref(), documents);
    let text = render(&index);
    let clauses: usize = index.documents.iter().map(|d| d.clauses.len()).sum();
    let counted = format!(
        "{} {}, {clauses} {}",
        index.documents.len(),
        if index.documents.len() == 1 {
            "document"
        } else {
            "documents"
        },
        if clauses == 1 { "clause" } else { "clauses" }
    );
    if std::fs::read_to_string(&path).is_ok_and(|old| old == text) {
        return Ok(format!("{} is up to date ({counted})", path.display()));
    }
    std::fs::create_dir_all(out)
        .and_then(|()| std::fs::write(&path, &text))
        .map_err(|e| vec![LoadError::new(&path, None, format!("cannot write: {e}"))])?;
    let unnamed = index
        .documents
        .iter()
        .any(|d| d.name == d.file || d.upstream == UPSTREAM_UNKNOWN);
    Ok(format!(
        "wrote {} (the clause index: {counted}{})",
        path.display(),
        if unnamed {
            "; give each document a readable `name` and its `upstream`"
        } else {
            ""
        }
    ))
}
