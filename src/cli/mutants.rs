//! `toolspec mutants`: each suite against every deliberate deviation of the bundled
//! server and against its conforming variations, a line per mutation and per run
//! of variations as it is decided, a hole named for each survivor and a false
//! failure named, with its scenario and expectations, for each conforming answer
//! a scenario fails.

use std::path::PathBuf;
use std::time::Instant;

use super::error::CliError;
use super::outcome::Outcome;
use super::output::say;
use crate::catalogue::{refuse_without_reference, Catalogue};
use crate::execute::parallel::default_jobs;
use crate::execute::schedule;
use crate::execute::RunOptions;
use crate::proof::mutants::hints::{self, Killers};
use crate::proof::mutants::{self, Progress, Scoring, SuiteScore};

/// `toolspec mutants`.
#[derive(clap::Args, Debug)]
pub(crate) struct MutantsArgs {
    /// Suite to score; repeat for several (default: all).
    #[arg(long)]
    suite: Vec<String>,
    /// Only this mutation; repeat for several (default: the whole catalogue; with
    /// only --variation given, none).
    #[arg(long)]
    mutation: Vec<String>,
    /// Only this conforming variation; repeat for several (default: the whole
    /// catalogue; with only --mutation given, none).
    #[arg(long)]
    variation: Vec<String>,
    /// Scenarios run at once, across all suites, mutations and variations
    /// (default: four a CPU).
    #[arg(long, short)]
    jobs: Option<usize>,
    /// Run every scenario against every mutation and count all that kill it (the
    /// table in docs/proof.md), instead of stopping each mutation at its first kill; and
    /// run each variation alone, instead of all at once.
    #[arg(long)]
    full: bool,
    /// Write the scores as JSON here.
    #[arg(long)]
    json: Option<PathBuf>,
    /// Name the scenario that killed each mutation (with --full, every one).
    #[arg(long, short)]
    verbose: bool,
    /// Run every server without isolation (docs/isolation.md), as `run
    /// --no-isolation` does.
    #[arg(long)]
    no_isolation: bool,
}

pub(crate) fn mutants(catalogue: &Catalogue, args: &MutantsArgs) -> Result<Outcome, CliError> {
    let suites = catalogue.select(&args.suite)?;
    refuse_without_reference(
        &suites,
        "mutants mutates the bundled reference server, so it scores only suites that name one",
    )?;
    let exe = std::env::current_exe().map_err(CliError::OwnExecutable)?;
    let hints_file = hints::file_path(|name| std::env::var(name).ok());
    let mut killers = hints_file.as_deref().map(Killers::load).unwrap_or_default();
    let started = Instant::now();
    let mut announced = None;
    let mut show = |progress: Progress<'_>| match progress {
        Progress::Mutant { suite, outcome: m } => {
            announce(&mut announced, suite);
            let verdict = if m.killed() { "killed  " } else { "SURVIVED" };
            if args.full {
                say(format_args!(
                    "  {verdict} {:<32} {:>3} failing  {}",
                    m.mutation.name,
                    m.killed_by.len(),
                    m.mutation.what
                ));
            } else {
                say(format_args!(
                    "  {verdict} {:<32} {}",
                    m.mutation.name, m.mutation.what
                ));
            }
            if args.verbose {
                for id in &m.killed_by {
                    say(format_args!("             by {id}"));
                }
            }
        }
        Progress::Variation { suite, outcome } => {
            announce(&mut announced, suite);
            let verdict = if outcome.spared() {
                "spared  "
            } else {
                "FAILED  "
            };
            let what = match outcome.variations.as_slice() {
                [one] => format!("{:<32} {}", one.name, one.what),
                every => format!("{} variations at once: {}", every.len(), outcome.names()),
            };
            say(format_args!("  {verdict} {what}"));
            for failure in &outcome.false_failures {
                say(format_args!(
                    "  false failure: {} fails a conforming answer",
                    failure.scenario
                ));
                for expectation in &failure.expectations {
                    say(format_args!("             {expectation}"));
                }
            }
        }
        Progress::Suite(score) => {
            announce(&mut announced, &score.suite);
            summarize(score, started);
        }
    };
    let scoring = Scoring {
        only: &args.mutation,
        only_variations: &args.variation,
        options: &RunOptions::default(),
        // The bundled server's scenarios mostly wait (on a background task, a
        // timeout, a sleeping command), and the variations run every one of them,
        // the slow ones too: as for `run`, four a core unless --jobs says.
        jobs: schedule::workers(args.jobs, true, 0, default_jobs()),
        full_count: args.full,
        hints: &killers,
        isolated: !args.no_isolation,
    };
    let scores = mutants::score(&exe, &suites, &scoring, &mut show)?;
    mutants::remember(&scores, &mut killers);
    if let Some(path) = &hints_file {
        if let Err(e) = killers.save(path) {
            eprintln!(
                "toolspec: note: cannot keep this run's killers in {} for the next run: {e}",
                path.display()
            );
        }
    }
    if let Some(path) = &args.json {
        mutants::write_json(path, &scores, args.full).map_err(|source| CliError::WriteReport {
            path: path.clone(),
            source,
        })?;
    }
    let total: usize = scores.iter().map(|s| s.mutants.len()).sum();
    let killed: usize = scores.iter().map(SuiteScore::killed).sum();
    let (spared, varied) = scores
        .iter()
        .map(SuiteScore::specificity)
        .fold((0, 0), |(a, b), (s, t)| (a + s, b + t));
    if scores.len() > 1 {
        say(format_args!(
            "all {} suites: {killed} of {total} killed, {spared} of {varied} variations spared in {:.1}s",
            scores.len(),
            started.elapsed().as_secs_f64()
        ));
    }
    Ok(if killed < total || spared < varied {
        Outcome::Broken
    } else {
        Outcome::Held
    })
}

/// Prints a suite's heading before its first line.
fn announce(announced: &mut Option<String>, suite: &str) {
    if announced.as_deref() != Some(suite) {
        say(format_args!("{suite}: mutating the bundled server"));
        *announced = Some(suite.to_string());
    }
}

/// A suite's notes, holes and score, once all its mutations are scored.
fn summarize(score: &SuiteScore, started: Instant) {
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
    let (spared, varied) = score.specificity();
    let specificity = if varied == 0 {
        String::new()
    } else {
        format!(
            ", {spared} of {varied} variations spared ({}%)",
            (spared * 100).checked_div(varied).unwrap_or(100)
        )
    };
    say(format_args!(
        "{}: {} of {total} mutations killed ({}%){specificity} over {} scenarios in {:.1}s",
        score.suite,
        score.killed(),
        (score.killed() * 100).checked_div(total).unwrap_or(100),
        score.scenarios,
        started.elapsed().as_secs_f64()
    ));
}
