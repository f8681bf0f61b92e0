//! `toolspec explore`: generated cases on the suite's reference server (the
//! oracle) and on a subject, a block for each divergence, and a summary. The seed
//! is printed first, so any run can be made again; timings go to stderr, so the
//! same seed and number of cases print the same stdout at any `--jobs`.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use super::catalogue::Catalogue;
use super::error::CliError;
use super::output::say;
use super::Outcome;
use crate::execute::parallel::default_jobs;
use crate::execute::schedule;
use crate::explore::compare::Level;
use crate::explore::differential::{CaseOutcome, Sides};
use crate::explore::explore_file::load_explore_data;
use crate::explore::{explore, list_oracle_tools, ExplorePlan, ExploredCase};
use crate::proof::mutants::catalogue as mutations;
use crate::server::{load_target_file, Target};

/// How many divergences are shown in full; the rest get their heading line only.
const SHOWN_IN_FULL: usize = 20;

/// `toolspec explore`.
#[derive(clap::Args, Debug)]
pub(crate) struct ExploreArgs {
    /// The suite whose tools are explored.
    #[arg(long)]
    suite: String,
    /// The oracle: a target file instead of the suite's bundled reference server,
    /// so two releases of one program, or two programs, are explored against
    /// each other.
    #[arg(long)]
    oracle: Option<PathBuf>,
    /// The subject: the bundled server with this deliberate deviation (see
    /// `toolspec reference-server --dialect D --list-mutations`).
    #[arg(long, conflicts_with_all = ["server", "target"])]
    mutate: Option<String>,
    /// The subject: a stdio MCP server, 'CMD ARGS {root}'.
    #[arg(long, conflicts_with = "target")]
    server: Option<String>,
    /// The subject: a target file (command or URL, renames).
    #[arg(long)]
    target: Option<PathBuf>,
    /// The seed of the cases (default: a fresh one, printed).
    #[arg(long)]
    seed: Option<u64>,
    /// How many cases to run.
    #[arg(long, default_value_t = 200)]
    cases: u64,
    /// Cases run at once (default: four a core when both sides are the bundled
    /// server, else one a core).
    #[arg(long, short)]
    jobs: Option<usize>,
    /// Write the divergences as JSON here.
    #[arg(long)]
    json: Option<PathBuf>,
}

pub(crate) fn explore_command(
    catalogue: &Catalogue,
    args: &ExploreArgs,
) -> Result<Outcome, CliError> {
    let suites = catalogue.select(std::slice::from_ref(&args.suite))?;
    let Some(suite) = suites.first() else {
        return Err(CliError::Explore(format!("no suite `{}`", args.suite)));
    };
    let exe = std::env::current_exe().map_err(CliError::OwnExecutable)?;
    let oracle = match &args.oracle {
        Some(path) => load_target_file(path)?,
        None => Target::reference(&exe, suite),
    };
    let subject = match (&args.mutate, &args.server, &args.target) {
        (Some(mutation), _, _) => {
            let known = mutations::read(&exe, suite)?;
            mutations::select(suite, known, std::slice::from_ref(mutation))?;
            Target {
                name: format!("reference --mutate {mutation}"),
                ..Target::reference(&exe, suite).with_extra_args(&["--mutate", mutation])
            }
        }
        (None, Some(line), _) => {
            Target::from_command_line(line).map_err(|source| CliError::ServerLine {
                line: line.clone(),
                source,
            })?
        }
        (None, None, Some(path)) => load_target_file(path)?,
        (None, None, None) => oracle.clone(),
    };
    let call_timeout = Duration::from_millis(suite.config.call_timeout_ms);
    let listed = list_oracle_tools(&oracle, call_timeout)
        .map_err(|why| CliError::Explore(format!("suite {}: {why}", suite.name)))?;
    let data = load_explore_data(suite, &listed)?;
    let seed = args.seed.unwrap_or_else(|| fastrand::u64(..));
    say(format_args!(
        "explore {}: seed {seed}, {} cases, oracle {}, subject {}",
        suite.name, args.cases, oracle.name, subject.name
    ));
    let plan = ExplorePlan {
        sides: Sides {
            oracle: &oracle,
            subject: &subject,
            convention: suite.config.convention,
            masks: &data.masks,
            call_timeout,
        },
        data: &data,
        seed,
        cases: args.cases,
        // Both sides the bundled server: its cases mostly wait on process
        // starts and pipes, so four a core as `run` runs it (execute/schedule.rs).
        jobs: schedule::workers(
            args.jobs,
            args.oracle.is_none() && args.server.is_none() && args.target.is_none(),
            0,
            default_jobs(),
        ),
    };
    let started = Instant::now();
    let explored = explore(&plan);
    let elapsed = started.elapsed();
    let tally = show(&explored);
    say(format_args!(
        "explore {}: {} cases, {} calls, {} divergences ({}), {} cases not run",
        suite.name,
        explored.len(),
        tally.calls,
        tally.divergences,
        Level::ALL
            .iter()
            .zip(tally.by_level)
            .map(|(level, n)| format!("{} {n}", level.label()))
            .collect::<Vec<_>>()
            .join(", "),
        tally.failed
    ));
    eprintln!(
        "explore: {} cases in {:.1}s ({:.1} cases/s, {:.1} calls/s)",
        explored.len(),
        elapsed.as_secs_f64(),
        explored.len() as f64 / elapsed.as_secs_f64().max(1e-9),
        tally.calls as f64 / elapsed.as_secs_f64().max(1e-9),
    );
    if let Some(path) = &args.json {
        let text = serde_json::to_string_pretty(&report_json(&suite.name, seed, &explored, &tally))
            .unwrap_or_default();
        std::fs::write(path, text + "\n").map_err(|source| CliError::WriteReport {
            path: path.clone(),
            source,
        })?;
    }
    Ok(if tally.divergences == 0 && tally.failed == 0 {
        Outcome::Held
    } else {
        Outcome::Broken
    })
}

/// What the run came to.
struct Tally {
    calls: usize,
    divergences: usize,
    by_level: [usize; 4],
    failed: usize,
}

/// Prints a block per divergence and a line per case not run, in case order.
fn show(explored: &[ExploredCase]) -> Tally {
    let mut tally = Tally {
        calls: 0,
        divergences: 0,
        by_level: [0; 4],
        failed: 0,
    };
    for ExploredCase { case, outcome } in explored {
        let (calls, divergence) = match outcome {
            CaseOutcome::Failed(why) => {
                tally.failed += 1;
                say(format_args!(
                    "case {} not run: {}",
                    case.number,
                    first_line(why)
                ));
                continue;
            }
            CaseOutcome::Ran { calls, divergence } => (calls, divergence),
        };
        tally.calls += calls;
        let Some(divergence) = divergence else {
            continue;
        };
        tally.divergences += 1;
        let level = divergence.difference.level;
        if let Some(slot) = Level::ALL.iter().position(|l| *l == level) {
            tally.by_level[slot] += 1;
        }
        let (place, tool) = match divergence.at_call {
            Some(i) => (
                format!("call {} of {}", i + 1, case.calls.len()),
                case.calls.get(i).map(|c| c.tool.as_str()).unwrap_or("?"),
            ),
            None => ("start".to_string(), "-"),
        };
        say(format_args!(
            "DIVERGENCE [{}] case {} {place}: {tool}",
            level.label(),
            case.number
        ));
        if tally.divergences > SHOWN_IN_FULL {
            continue;
        }
        let files: Vec<String> = case
            .fixture
            .entries
            .iter()
            .map(|(name, text)| match text {
                Some(text) => format!("{name} ({} bytes)", text.len()),
                None => format!("{name}/"),
            })
            .collect();
        say(format_args!("  fixture: {}", files.join(", ")));
        let last = divergence.at_call.map_or(0, |i| i + 1);
        for (i, call) in case.calls.iter().take(last).enumerate() {
            say(format_args!("  {}. {}", i + 1, call.shown()));
        }
        for line in divergence.difference.diff.lines() {
            say(format_args!("    {line}"));
        }
        if !divergence.stderr_tail.is_empty() {
            say("  subject's stderr (tail):");
            for line in divergence
                .stderr_tail
                .lines()
                .rev()
                .take(10)
                .collect::<Vec<_>>()
                .into_iter()
                .rev()
            {
                say(format_args!("    {line}"));
            }
        }
    }
    if tally.divergences > SHOWN_IN_FULL {
        say(format_args!(
            "({} divergences shown in full; --json FILE has them all)",
            SHOWN_IN_FULL
        ));
    }
    tally
}

fn first_line(text: &str) -> &str {
    text.lines().next().unwrap_or_default()
}

/// The run as JSON: the seed, the counts, and every divergence with its calls.
fn report_json(suite: &str, seed: u64, explored: &[ExploredCase], tally: &Tally) -> Value {
    let divergences: Vec<Value> = explored
        .iter()
        .filter_map(|ExploredCase { case, outcome }| match outcome {
            CaseOutcome::Ran {
                divergence: Some(d),
                ..
            } => {
                let last = d.at_call.map_or(0, |i| i + 1);
                Some(json!({
                    "case": case.number,
                    "call": d.at_call.map(|i| i + 1),
                    "level": d.difference.level.label(),
                    "calls": case.calls.iter().take(last)
                        .map(|c| json!({"tool": c.tool, "args": c.args}))
                        .collect::<Vec<_>>(),
                    "files": case.fixture.entries,
                    "oracle": d.difference.oracle,
                    "subject": d.difference.subject,
                }))
            }
            _ => None,
        })
        .collect();
    let not_run: Vec<Value> = explored
        .iter()
        .filter_map(|ExploredCase { case, outcome }| match outcome {
            CaseOutcome::Failed(why) => Some(json!({"case": case.number, "why": why})),
            CaseOutcome::Ran { .. } => None,
        })
        .collect();
    json!({
        "schema_version": 1,
        "suite": suite,
        "seed": seed,
        "cases": explored.len(),
        "calls": tally.calls,
        "divergences": divergences,
        "not_run": not_run,
    })
}
