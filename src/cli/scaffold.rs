//! `toolspec scaffold`: skeleton scenarios for the clauses of spec documents that no
//! scenario covers yet, written beside the suite's files and never over them.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use super::catalogue::Catalogue;

use super::error::CliError;
use super::output::say;
use super::Outcome;
use crate::proof::coverage::documents::given_documents;
use crate::proof::scaffold::{covered_ids, plan, write, TODO_PREFIX};

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
    let documents = given_documents(&args.spec)?;
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
        say("every clause already has a scenario; nothing written");
        return Ok(Outcome::Held);
    }
    for line in write(&out, &plan)? {
        say(line);
    }
    let scenarios: usize = plan.iter().map(|p| p.scenarios).sum();
    say(format_args!(
        "scaffolded {scenarios} clauses; each scenario fails until its `when` and `then` are \
         written and `{TODO_PREFIX}` is dropped from its name"
    ));
    Ok(Outcome::Held)
}
