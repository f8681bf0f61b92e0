//! `toolspec scaffold`: skeleton scenarios for the clauses of spec documents that no
//! scenario covers yet, written beside the suite's files and never over them.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

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

pub(crate) fn scaffold(specs: &Path, args: &ScaffoldArgs) -> Result<Outcome, CliError> {
    let documents = given_documents(&args.spec)?;
    let covered = match &args.suite {
        Some(name) => covered_ids(&specs.join(name))?,
        None => BTreeSet::new(),
    };
    let out = match (&args.out, &args.suite) {
        (Some(out), _) => out.clone(),
        (None, Some(name)) => specs.join(name),
        (None, None) => return Err(CliError::ScaffoldNeedsAPlace),
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
