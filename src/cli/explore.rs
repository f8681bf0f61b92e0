//! `toolspec explore`: generated cases on the suite's reference server (the
//! oracle) and on a subject, a block for each divergence, and a summary. The seed
//! is printed first, so any run can be made again; timings go to stderr, so the
//! same seed and number of cases print the same stdout at any `--jobs`.
//!
//! This file resolves the two sides from the flags (and, for `--into`, where
//! the proposal is kept), hands the run to the explore
//! stage (`explore::session`), and prints what the stage reports through the
//! renderers of `report::explore`.

use std::path::PathBuf;
use std::time::Duration;

use super::error::CliError;
use super::explore_progress::ExploreProgress;
use super::outcome::Outcome;
use super::output::say;
use super::proposal_key::arguments_but;
use super::target_flags::external_target;
use crate::author::pending::{pending_path, Pending};
use crate::catalogue::{refuse_without_reference, Catalogue, Origin};
use crate::explore::cases::budget::{Budget, Shard};
use crate::explore::cases::watch::Watch;
use crate::explore::compare::differential::ExploredCase;
use crate::explore::session::{
    explore_session, FoundInto, ReportFailed, SessionEnd, SessionEvent, SessionReporter,
    SessionRequest,
};
use crate::explore::shrink::shrink_case;
use crate::proof::mutants::catalogue as mutations;
use crate::report::explore::{json, text};
use crate::scenario::Partition;
use crate::server::{load_target_file, Target};

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
    /// How many cases to run (in each shard, with --partition).
    #[arg(long, default_value_t = 200)]
    cases: u64,
    /// A time budget instead of --cases: start new cases until S seconds have
    /// passed. How many run depends on the machine, so the output is not repeatable.
    #[arg(long, value_name = "S", conflicts_with = "cases", value_parser = parse_seconds)]
    seconds: Option<u64>,
    /// Explore one shard of the case space, K of N (`K/N` or `count:K/N`): every
    /// N-th case number from K-1, so N shards of --cases C together run the cases
    /// of one run of --cases C*N.
    #[arg(long, value_name = "K/N", value_parser = parse_partition)]
    partition: Option<Shard>,
    /// Per-call timeout in milliseconds, overriding the suite's (a program that
    /// starts slowly, such as a Node one on a loaded machine, needs more).
    #[arg(long)]
    timeout_ms: Option<u64>,
    /// Cases run at once (default: four a core when both sides are the bundled
    /// server, else one a core).
    #[arg(long, short)]
    jobs: Option<usize>,
    /// Write the divergences as JSON here.
    #[arg(long)]
    json: Option<PathBuf>,
    /// Divergence classes already known (a YAML triage, signatures one a line,
    /// or an `--json` file): the run fails only on a new one, or on a listed class
    /// whose witness case no longer shows it (stale).
    #[arg(long)]
    baseline: Option<PathBuf>,
    /// Write every signature the run found here, as a baseline file (YAML, each
    /// with its witness case, when the name ends in .yaml).
    #[arg(long)]
    write_baseline: Option<PathBuf>,
    /// Write each new divergence, shrunk, as a scenario file of a suite
    /// `DIR/<suite>/` (which must not exist or be empty).
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Propose each new divergence, shrunk, as scenarios added to the explored
    /// suite's own file FILE.yaml (default: found.yaml), made or appended to as
    /// `record --into` does: shown as a diff and kept as a pending proposal
    /// beside the suite for `toolspec review`; nothing is written into the
    /// suite without --write.
    #[arg(long, value_name = "FILE", num_args = 0..=1, default_missing_value = "found", conflicts_with = "out")]
    into: Option<String>,
    /// With --into: write the file at once. Given with the arguments of a run
    /// that kept a proposal, it writes that proposal as shown, exploring
    /// nothing again (as `record --write`).
    #[arg(long, requires = "into")]
    write: bool,
    /// Re-runs each new divergence may take to shrink (0: no shrinking).
    #[arg(long, default_value_t = shrink_case::DEFAULT_BUDGET)]
    shrink_budget: usize,
    /// Stop starting cases at the first new divergence (one the baseline does
    /// not know), shrink it, print it and exit 1, as proptest and Hypothesis do.
    #[arg(long)]
    fail_fast: bool,
    /// For a suite without an explore.yaml: write the one derived from the
    /// oracle's tools/list (which every such run prints) beside its suite.yaml,
    /// to keep and edit.
    #[arg(long)]
    write_explore_file: bool,
    /// Run every server without isolation (docs/isolation.md), as `run
    /// --no-isolation` does: the oracle and the subject alike. The first line
    /// says so.
    #[arg(long)]
    no_isolation: bool,
    #[command(flatten)]
    noise: super::target_flags::NoiseFlag,
}

pub(crate) fn explore_command(
    catalogue: &Catalogue,
    args: &ExploreArgs,
) -> Result<Outcome, CliError> {
    let suites = catalogue.select(std::slice::from_ref(&args.suite))?;
    let Some(suite) = suites.first() else {
        return Err(CliError::Explore(format!("no suite `{}`", args.suite)));
    };
    // A suite with no reference server (one `record` made) and no --oracle:
    // the subject given is explored against itself (docs/explore.md).
    let against_itself = suite.config.reference.is_none()
        && args.oracle.is_none()
        && args.mutate.is_none()
        && (args.server.is_some() || args.target.is_some());
    if (args.oracle.is_none() || args.mutate.is_some()) && !against_itself {
        refuse_without_reference(
            std::slice::from_ref(suite),
            "give the server with --server or --target (explored against itself), or the oracle with --oracle FILE",
        )?;
    }
    let into = match &args.into {
        Some(file) => {
            let into = found_into(catalogue, suite, file, args)?;
            if let Some(outcome) = write_kept(&into, suite)? {
                return Ok(outcome);
            }
            Some(into)
        }
        None => None,
    };
    let exe = std::env::current_exe().map_err(CliError::OwnExecutable)?;
    // Both sides alike: a side isolated and the other not would diverge on
    // everything the isolation denies, which is no difference of the programs.
    let isolated = !args.no_isolation;
    let oracle = match (&args.oracle, against_itself) {
        (Some(path), _) => load_target_file(path)?,
        (None, true) => {
            external_target(args.target.as_deref(), args.server.as_deref(), args.noise)?
                .ok_or_else(|| CliError::Explore("no server to explore".to_string()))?
        }
        (None, false) => Target::reference(&exe, suite),
    }
    .isolated_if(isolated)
    .with_start_timeout_of(suite);
    let subject = match (&args.mutate, &args.server, &args.target) {
        (Some(mutation), _, _) => {
            let known = mutations::read(&exe, suite)?;
            mutations::select(suite, known, std::slice::from_ref(mutation))?;
            Target {
                name: format!("reference --mutate {mutation}"),
                ..Target::reference(&exe, suite).with_extra_args(&["--mutate", mutation])
            }
        }
        (None, server, target) => {
            external_target(target.as_deref(), server.as_deref(), args.noise)?
                .unwrap_or_else(|| oracle.clone())
        }
    }
    .isolated_if(isolated)
    .with_start_timeout_of(suite);
    let budget = match args.seconds {
        Some(seconds) => Budget::Seconds(Duration::from_secs(seconds)),
        None => Budget::Cases(args.cases),
    };
    let request = SessionRequest {
        suite,
        oracle: &oracle,
        subject: &subject,
        subject_is_oracle: against_itself
            || (args.mutate.is_none() && args.server.is_none() && args.target.is_none()),
        both_bundled: args.oracle.is_none() && args.server.is_none() && args.target.is_none(),
        isolated,
        seed: args.seed.unwrap_or_else(|| fastrand::u64(..)),
        budget,
        shard: args.partition.unwrap_or(Shard::WHOLE),
        timeout_ms: args.timeout_ms,
        jobs: args.jobs,
        baseline: args.baseline.as_deref(),
        shrink_budget: args.shrink_budget,
        out: args.out.as_deref(),
        into: into.as_ref(),
        write_baseline: args.write_baseline.as_deref(),
        fail_fast: args.fail_fast,
        write_explore_file: args.write_explore_file,
    };
    let reporter = Printed {
        progress: ExploreProgress::new(&suite.name, budget),
        json: args.json.as_deref(),
    };
    Ok(match explore_session(&request, &reporter)? {
        SessionEnd::Held => Outcome::Held,
        SessionEnd::Broken => Outcome::Broken,
    })
}

/// `--into FILE` resolved: refused for a built-in suite (it is rewritten from
/// the binary each time, so nothing proposed into it could be kept), with the
/// proposal's place keyed by the arguments as `record`'s is.
fn found_into(
    catalogue: &Catalogue,
    suite: &crate::scenario::Suite,
    file: &str,
    args: &ExploreArgs,
) -> Result<FoundInto, CliError> {
    if catalogue.origin(&suite.name) == Some(&Origin::BuiltIn) {
        return Err(CliError::Explore(format!(
            "--into: the built-in suite {0} cannot take proposals; write it out with `toolspec suites export DIR --suite {0}` and explore the copy with `--specs DIR/specs`",
            suite.name
        )));
    }
    let command = proposal_key();
    Ok(FoundInto {
        file: file.to_string(),
        proposal: pending_path(&suite.dir, "explore", &command),
        command,
        write: args.write,
    })
}

/// `--write` given with the arguments of a run that kept a proposal: that
/// proposal written as it was shown, no case run again. None when there is none.
fn write_kept(
    into: &FoundInto,
    suite: &crate::scenario::Suite,
) -> Result<Option<Outcome>, CliError> {
    if !into.write {
        return Ok(None);
    }
    let refuse = |why: String| CliError::Explore(why);
    let Some(pending) = Pending::load(&into.proposal).map_err(|e| refuse(e.to_string()))? else {
        return Ok(None);
    };
    let written = pending
        .apply(&suite.dir, &into.proposal)
        .map_err(|e| refuse(e.to_string()))?;
    for path in &written {
        say(format!("wrote {}", path.display()));
    }
    say(format!(
        "explore {}: wrote the proposal shown ({}); no case was run",
        suite.name,
        into.proposal.display()
    ));
    Ok(Some(Outcome::Held))
}

/// What names a proposal of `--into`: the command's arguments but `--write` and
/// those that change how the run goes, not what it finds (`--jobs`, `--json`,
/// `--timeout-ms`, `--no-isolation`, `--skip-stdout-noise`), so the same
/// exploration finds its proposal again.
fn proposal_key() -> Vec<String> {
    arguments_but(
        &["--write", "--no-isolation", "--skip-stdout-noise"],
        &["--jobs", "-j", "--json", "--timeout-ms"],
    )
}

/// The console reporter: the live progress line while cases run, the stage's
/// events as text on stdout (the timing on stderr), and the `--json` file.
struct Printed<'a> {
    progress: ExploreProgress,
    json: Option<&'a std::path::Path>,
}

impl Watch for Printed<'_> {
    fn case_ended(&self, case: &ExploredCase) {
        self.progress.case_ended(case);
    }

    fn phase(&self, text: &str) {
        self.progress.phase(text);
    }
}

impl SessionReporter for Printed<'_> {
    fn event(&self, event: SessionEvent<'_>) -> Result<(), ReportFailed> {
        let lines = match event {
            SessionEvent::Began(request) => {
                let mut lines = vec![text::heading(request)];
                lines.extend(text::against_itself(request));
                lines
            }
            SessionEvent::Derived {
                suite,
                text: file,
                written,
            } => text::derived(suite, file, written),
            SessionEvent::Settings {
                request,
                drawn,
                not_drawn,
            } => text::settings(request, drawn, not_drawn),
            SessionEvent::SubjectLacks { suite, lacks, all } => {
                vec![text::subject_lacks(suite, lacks, all)]
            }
            SessionEvent::Finished(findings) => {
                self.progress.finish();
                for line in text::findings(findings) {
                    say(line);
                }
                eprintln!("{}", text::timing(findings));
                if let Some(path) = self.json {
                    json::write_explore_json(path, findings)?;
                }
                Vec::new()
            }
            SessionEvent::Wrote(written) => text::written(written),
            SessionEvent::Proposed {
                suite,
                proposed,
                kept,
            } => text::proposed(suite, proposed, kept),
        };
        for line in lines {
            say(line);
        }
        Ok(())
    }
}

/// `--seconds`: a whole number of seconds, at least one.
fn parse_seconds(text: &str) -> Result<u64, String> {
    match text.trim().parse::<u64>() {
        Ok(seconds) if seconds > 0 => Ok(seconds),
        _ => Err(format!(
            "`{text}`: expected a whole number of seconds, 1 or more"
        )),
    }
}

/// `--partition`: `K/N` or `count:K/N`, parsed as `run --partition` parses it. The
/// `hash:` form is refused: it keeps a scenario in its shard when others are added,
/// but case numbers never move, so the count form is as stable and stays even.
fn parse_partition(text: &str) -> Result<Shard, String> {
    let written = if text.contains(':') {
        text.to_string()
    } else {
        format!("count:{text}")
    };
    match written.parse::<Partition>().map_err(|_| {
        format!("`{text}`: expected K/N (or count:K/N), whole numbers with 1 <= K <= N")
    })? {
        Partition::Count { shard, of } => Ok(Shard {
            shard: u64::from(shard),
            of: u64::from(of),
        }),
        Partition::Hash { .. } => Err(format!(
            "`{text}`: explore splits cases by number only (K/N or count:K/N): a case's number never moves, so hashing it would only make the shards uneven"
        )),
    }
}
