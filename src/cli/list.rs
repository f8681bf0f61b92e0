//! `toolspec list`: the suites, or the scenario ids of the suites named, or what
//! arrived in them after a version a gate pins.

use super::catalogue::Catalogue;
use super::error::CliError;
use super::output::say;
use super::Outcome;

/// `toolspec list [--suite NAME]... [--since N]`.
#[derive(clap::Args, Debug)]
pub(crate) struct ListArgs {
    /// Suite whose scenarios to list; repeat for several (default: every suite, by name).
    #[arg(long)]
    suite: Vec<String>,
    /// Only the scenarios that arrived after suite version N (what a target pinned
    /// at N would see as NEW), with the version each arrived in.
    #[arg(long, value_name = "N")]
    since: Option<u32>,
}

pub(crate) fn list(catalogue: &Catalogue, args: &ListArgs) -> Result<Outcome, CliError> {
    let suites = catalogue.select(&args.suite)?;
    for suite in &suites {
        let origin = catalogue
            .origin(&suite.name)
            .map(|o| format!(", {}", o.describe()))
            .unwrap_or_default();
        let version = suite.config.version;
        let Some(since) = args.since else {
            let count = suite.scenarios().count();
            say(format_args!(
                "{}: {} ({count} scenarios, version {version}{origin})",
                suite.name, suite.config.title
            ));
            if !args.suite.is_empty() {
                for (file, scenario) in suite.scenarios() {
                    say(format_args!("  {}", suite.scenario_id(file, scenario)));
                }
            }
            continue;
        };
        let newer: Vec<_> = suite
            .scenarios()
            .filter(|(_, scenario)| scenario.since > since)
            .collect();
        say(format_args!(
            "{}: {} scenarios arrived after version {since} (now at version {version}{origin})",
            suite.name,
            newer.len()
        ));
        for (file, scenario) in newer {
            say(format_args!(
                "  {} (version {})",
                suite.scenario_id(file, scenario),
                scenario.since
            ));
        }
    }
    Ok(Outcome::Held)
}
