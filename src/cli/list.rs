//! `toolspec list`: the suites, or the scenario ids of the suites named.

use super::error::CliError;
use super::output::say;
use super::Outcome;
use crate::scenario::Catalogue;

/// `toolspec list [--suite NAME]...`.
#[derive(clap::Args, Debug)]
pub(crate) struct ListArgs {
    /// Suite whose scenarios to list; repeat for several (default: every suite, by name).
    #[arg(long)]
    suite: Vec<String>,
}

pub(crate) fn list(catalogue: &Catalogue, args: &ListArgs) -> Result<Outcome, CliError> {
    let suites = catalogue.select(&args.suite)?;
    for suite in &suites {
        let count = suite.scenarios().count();
        let origin = catalogue
            .origin(&suite.name)
            .map(|o| format!(", {}", o.describe()))
            .unwrap_or_default();
        say(format_args!(
            "{}: {} ({count} scenarios{origin})",
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
