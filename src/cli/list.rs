//! `toolspec list`: the suites, or the scenario ids of the suites named, or what
//! arrived in them after a version a gate pins; with `--json`, the scenario ids of
//! the selected suites for a program to read (the pytest plugin and the node:test
//! registration collect their tests from it).

use std::path::PathBuf;

use super::error::CliError;
use super::outcome::Outcome;
use super::output::{print, say};
use crate::catalogue::Catalogue;
use crate::report::list_json::list_json;
use crate::server::load_target_file;

/// `toolspec list [--suite NAME]... [--since N] [--json [--target FILE]]`.
#[derive(clap::Args, Debug)]
pub(crate) struct ListArgs {
    /// Suite whose scenarios to list; repeat for several (default: every suite, by name).
    #[arg(long)]
    suite: Vec<String>,
    /// Only the scenarios that arrived after suite version N (what a target pinned
    /// at N would see as NEW), with the version each arrived in.
    #[arg(long, value_name = "N")]
    since: Option<u32>,
    /// Print the suites and every scenario id of them as one JSON object, for
    /// programs: the suites `toolspec run` would run with the same --suite and
    /// --target.
    #[arg(long, conflicts_with = "since")]
    json: bool,
    /// With --json and no --suite: the suites this target file pins (`suites:`),
    /// as `toolspec run --target` picks them.
    #[arg(long, requires = "json")]
    target: Option<PathBuf>,
}

pub(crate) fn list(catalogue: &Catalogue, args: &ListArgs) -> Result<Outcome, CliError> {
    if args.json {
        return list_suites_json(catalogue, args);
    }
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

/// `list --json`: `{"suites": [{"name", "title", "version", "scenarios": [{"id",
/// "requirement", "basis"}]}]}`, the suites chosen as `run` chooses them.
fn list_suites_json(catalogue: &Catalogue, args: &ListArgs) -> Result<Outcome, CliError> {
    let mut names = args.suite.clone();
    if names.is_empty() {
        if let Some(file) = &args.target {
            names = load_target_file(file)?.pins.keys().cloned().collect();
        }
    }
    let suites = catalogue.select(&names)?;
    let listed = list_json(&suites).map_err(CliError::ListJson)?;
    // Printed as it is: the ids come from suite files, and a program reading them
    // must get them exact (`say` would mark a C1 control inside one).
    print(&format!("{listed}\n"));
    Ok(Outcome::Held)
}
