//! `toolspec run`: every selected scenario against one server, a block for each one
//! that did not pass, a summary line per suite and for the run, and the report files.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use super::error::CliError;
use super::output::{print, say};
use super::Outcome;
use crate::execute::parallel::{default_jobs, run_scenarios};
use crate::execute::{RunOptions, ScenarioReport, Verdict};
use crate::report::text::{run_summary, scenario_text, suite_summary, Styles};
use crate::report::{self, Standing, Tally};
use crate::scenario::{selected_suites, LoadError, Suite};
use crate::server::{load_target_file, preflight, Target};

/// `toolspec run`.
#[derive(clap::Args, Debug)]
pub(crate) struct RunArgs {
    /// Suite to run; repeat for several (default: all).
    #[arg(long)]
    suite: Vec<String>,
    /// A stdio MCP server to test instead of the bundled one: 'CMD ARGS {root}'.
    #[arg(long, conflicts_with = "target")]
    server: Option<String>,
    /// A target file describing the server under test (command or URL, settings,
    /// renames, baseline of known failures).
    #[arg(long)]
    target: Option<PathBuf>,
    /// Write a JUnit XML report here.
    #[arg(long)]
    junit: Option<PathBuf>,
    /// Write a JSON report here.
    #[arg(long)]
    json: Option<PathBuf>,
    /// Write a Markdown conformance matrix (one row per requirement) here.
    #[arg(long)]
    markdown: Option<PathBuf>,
    /// Write the ids of every failing scenario here, as a baseline file for a target.
    #[arg(long)]
    write_baseline: Option<PathBuf>,
    /// Only scenarios whose id contains this text.
    #[arg(long)]
    filter: Option<String>,
    /// Per-call timeout in milliseconds, overriding the suites'.
    #[arg(long)]
    timeout_ms: Option<u64>,
    /// Deadline for a whole scenario in milliseconds, overriding the suites' (never
    /// less than three call timeouts).
    #[arg(long)]
    scenario_timeout_ms: Option<u64>,
    /// Scenarios run at once (default: number of CPUs).
    #[arg(long, short)]
    jobs: Option<usize>,
    /// Start the bundled server with this deliberate deviation (see its --mutate).
    #[arg(long, conflicts_with_all = ["server", "target"])]
    mutate: Vec<String>,
    /// Leave the fixture of every failed or errored scenario on disk.
    #[arg(long)]
    keep_failed: bool,
    /// Print every scenario, not only the ones that did not pass.
    #[arg(long, short)]
    verbose: bool,
}

pub(crate) fn run(specs: &Path, args: &RunArgs, colour: bool) -> Result<Outcome, CliError> {
    let suites = selected_suites(specs, &args.suite)?;
    let exe = std::env::current_exe().map_err(CliError::OwnExecutable)?;
    let external = external_target(args)?;
    if let Some(target) = &external {
        check_baseline(target, &suites, args.target.as_deref())?;
    }
    let options = RunOptions {
        call_timeout_ms: args.timeout_ms,
        scenario_timeout_ms: args.scenario_timeout_ms,
        keep_failed: args.keep_failed,
    };
    let jobs = args.jobs.unwrap_or_else(default_jobs).max(1);
    let styles = Styles::coloured(colour);

    let mut all_reports = Vec::new();
    let mut grand = Tally::default();
    let mut target_name = String::new();
    for suite in &suites {
        let target = match &external {
            Some(t) => t.clone(),
            None => {
                let mutate: Vec<&str> = args
                    .mutate
                    .iter()
                    .flat_map(|m| ["--mutate", m.as_str()])
                    .collect();
                Target::reference(&exe, suite).with_extra_args(&mutate)
            }
        };
        target_name.clone_from(&target.name);
        let work: Vec<_> = suite
            .scenarios()
            .filter(|(f, s)| {
                args.filter
                    .as_ref()
                    .is_none_or(|needle| suite.scenario_id(f, s).contains(needle.as_str()))
            })
            .collect();
        let preflight_timeout = Duration::from_millis(
            options
                .call_timeout_ms
                .unwrap_or(suite.config.call_timeout_ms),
        );
        match preflight::check(suite, &target, preflight_timeout) {
            Ok(gaps) => {
                for line in gaps.lines(&target.name) {
                    say(line);
                }
            }
            Err(why) => say(format_args!(
                "note: could not list `{}`'s tools: {why}",
                target.name
            )),
        }
        let started = Instant::now();
        let show = |report: &ScenarioReport| {
            if args.verbose || Standing::of(report).breaks_the_run() {
                print(&scenario_text(report, styles));
            }
        };
        let reports = run_scenarios(suite, &work, &target, &options, jobs, &show);
        let tally = Tally::of(&reports);
        say(suite_summary(
            &suite.name,
            &tally,
            started.elapsed(),
            &target.name,
        ));
        grand.add(&tally);
        all_reports.extend(reports);
    }
    say(run_summary(&grand));
    write_reports(args, &target_name, &all_reports)?;
    Ok(if grand.breaks_the_run() {
        Outcome::Broken
    } else {
        Outcome::Held
    })
}

/// The target named by `--target` or `--server`, if any (else the bundled server).
fn external_target(args: &RunArgs) -> Result<Option<Target>, CliError> {
    if let Some(path) = &args.target {
        return Ok(Some(load_target_file(path)?));
    }
    match &args.server {
        Some(line) => {
            Target::from_command_line(line)
                .map(Some)
                .map_err(|source| CliError::ServerLine {
                    line: line.clone(),
                    source,
                })
        }
        None => Ok(None),
    }
}

/// A baseline entry that names no scenario of a selected suite is a typo or a
/// leftover from a renamed scenario: refuse it rather than silently ignore it. A
/// baseline comes only from a target file, so `file` is where each entry is.
fn check_baseline(target: &Target, suites: &[Suite], file: Option<&Path>) -> Result<(), CliError> {
    let Some(file) = file else {
        return Ok(());
    };
    let ids: BTreeSet<String> = suites
        .iter()
        .flat_map(|s| s.scenarios().map(move |(f, sc)| s.scenario_id(f, sc)))
        .collect();
    let selected: Vec<&str> = suites.iter().map(|s| s.name.as_str()).collect();
    let errors: Vec<LoadError> = target
        .baseline
        .iter()
        .filter(|id| selected.contains(&id.split("::").next().unwrap_or_default()))
        .filter(|id| !ids.contains(*id))
        .map(|id| {
            LoadError::new(
                file,
                None,
                format!("baseline names no scenario: `{id}`; fix or remove it"),
            )
        })
        .collect();
    if errors.is_empty() {
        Ok(())
    } else {
        Err(CliError::Files(errors))
    }
}

fn write_reports(args: &RunArgs, target: &str, reports: &[ScenarioReport]) -> Result<(), CliError> {
    let failed = |path: &Path| {
        let path = path.to_path_buf();
        move |source| CliError::WriteReport { path, source }
    };
    if let Some(path) = &args.junit {
        report::write_junit(path, target, reports).map_err(failed(path))?;
    }
    if let Some(path) = &args.json {
        report::write_json(path, target, reports).map_err(failed(path))?;
    }
    if let Some(path) = &args.markdown {
        report::write_markdown(path, target, reports).map_err(failed(path))?;
    }
    if let Some(path) = &args.write_baseline {
        let mut text = String::from(
            "# Scenarios that fail on this target; name this file in `baseline_file:`.\n",
        );
        for r in reports {
            if matches!(r.verdict, Verdict::Fail(_) | Verdict::Error { .. }) {
                text.push_str(&r.id);
                text.push('\n');
            }
        }
        std::fs::write(path, text).map_err(failed(path))?;
    }
    Ok(())
}
