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
use crate::proof::mutants::{self, Progress, Scoring, Totals};
use crate::report::mutants::{write_mutants_json, MutantsText};

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
    let mut text = MutantsText::new(args.full, args.verbose, Instant::now());
    let mut show = |progress: Progress<'_>| {
        for line in text.lines(progress) {
            say(line);
        }
    };
    let scoring = Scoring {
        only: &args.mutation,
        only_variations: &args.variation,
        options: &RunOptions::default(),
        // The bundled server's scenarios mostly wait (on a background task, a
        // timeout, a sleeping command), and the variations run every one of them,
        // the slow ones too: as for `run`, four a core unless --jobs says.
        jobs: schedule::workers(args.jobs, true, 0, default_jobs()).count,
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
        write_mutants_json(path, &scores, args.full).map_err(|source| CliError::WriteReport {
            path: path.clone(),
            source,
        })?;
    }
    if let Some(line) = text.total(&scores) {
        say(line);
    }
    Ok(if Totals::of(&scores).held() {
        Outcome::Held
    } else {
        Outcome::Broken
    })
}
