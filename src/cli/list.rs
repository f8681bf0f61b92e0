//! `toolspec list`: the suites, or the scenario ids of the suites named.

use std::path::Path;

use super::error::CliError;
use super::output::say;
use super::Outcome;
use crate::scenario::selected_suites;

/// `toolspec list [--suite NAME]...`.
#[derive(clap::Args, Debug)]
pub(crate) struct ListArgs {
    /// Suite whose scenarios to list; repeat for several (default: every suite, by name).
    #[arg(long)]
    suite: Vec<String>,
}

pub(crate) fn list(specs: &Path, args: &ListArgs) -> Result<Outcome, CliError> {
    let suites = selected_suites(specs, &args.suite)?;
    for suite in &suites {
        let count = suite.scenarios().count();
        say(format_args!(
            "{}: {} ({count} scenarios)",
            suite.name, suite.config.title
        ));
        if !args.suite.is_empty() {
            for (file, scenario) in suite.scenarios() {
                say(format_args!("  {}", suite.scenario_id(file, scenario)));
            }
        }
    }
    Ok(Outcome::Held)
}
