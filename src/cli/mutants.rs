//! `toolspec mutants`: each suite against every deliberate deviation of the bundled
//! server, a line per mutation as it is scored, and a hole named for each survivor.

use std::path::PathBuf;
use std::time::Instant;

use super::catalogue::Catalogue;
use super::error::CliError;
use super::output::say;
use super::Outcome;
use crate::execute::parallel::default_jobs;
use crate::execute::RunOptions;
use crate::proof::mutants::{self, MutantOutcome};

/// `toolspec mutants`.
#[derive(clap::Args, Debug)]
pub(crate) struct MutantsArgs {
    /// Suite to score; repeat for several (default: all).
    #[arg(long)]
    suite: Vec<String>,
    /// Only this mutation; repeat for several (default: the whole catalogue).
    #[arg(long)]
    mutation: Vec<String>,
    /// Scenarios run at once (default: number of CPUs).
    #[arg(long, short)]
    jobs: Option<usize>,
    /// Write the scores as JSON here.
    #[arg(long)]
    json: Option<PathBuf>,
    /// Name every scenario that kills each mutation.
    #[arg(long, short)]
    verbose: bool,
}

pub(crate) fn mutants(catalogue: &Catalogue, args: &MutantsArgs) -> Result<Outcome, CliError> {
    let suites = catalogue.select(&args.suite)?;
    let exe = std::env::current_exe().map_err(CliError::OwnExecutable)?;
    let jobs = args.jobs.unwrap_or_else(default_jobs).max(1);
    let mut scores = Vec::new();
    let mut survived = 0;
    for suite in &suites {
        let started = Instant::now();
        let progress = |m: &MutantOutcome| {
            let verdict = if m.killed() { "killed  " } else { "SURVIVED" };
            say(format_args!(
                "  {verdict} {:<32} {:>3} failing  {}",
                m.mutation.name,
                m.killed_by.len(),
                m.mutation.what
            ));
            if args.verbose {
                for id in &m.killed_by {
                    say(format_args!("             by {id}"));
                }
            }
        };
        say(format_args!("{}: mutating the bundled server", suite.name));
        let score = mutants::score_suite(
            &exe,
            suite,
            &args.mutation,
            &RunOptions::default(),
            jobs,
            &progress,
        )?;
        if !score.not_passing.is_empty() {
            say(format_args!(
                "  note: {} scenario(s) do not pass against the honest server and cannot kill: {}",
                score.not_passing.len(),
                score.not_passing.join(", ")
            ));
        }
        for m in score.survivors() {
            say(format_args!(
                "  hole: no scenario catches `{}` ({}); add one the spec justifies",
                m.mutation.name, m.mutation.what
            ));
        }
        let total = score.mutants.len();
        survived += total - score.killed();
        say(format_args!(
            "{}: {} of {total} mutations killed ({}%) over {} scenarios in {:.1}s",
            suite.name,
            score.killed(),
            (score.killed() * 100).checked_div(total).unwrap_or(100),
            score.scenarios,
            started.elapsed().as_secs_f64()
        ));
        scores.push(score);
    }
    if let Some(path) = &args.json {
        mutants::write_json(path, &scores).map_err(|source| CliError::WriteReport {
            path: path.clone(),
            source,
        })?;
    }
    Ok(if survived > 0 {
        Outcome::Broken
    } else {
        Outcome::Held
    })
}
