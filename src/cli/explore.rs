//! `toolspec explore`: generated cases on the suite's reference server (the
//! oracle) and on a subject, a block for each divergence, and a summary. The seed
//! is printed first, so any run can be made again; timings go to stderr, so the
//! same seed and number of cases print the same stdout at any `--jobs`.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use std::collections::BTreeSet;

use serde_json::{json, Value};

use super::error::CliError;
use super::explore_progress::ExploreProgress;
use super::outcome::Outcome;
use super::output::say;
use super::target_flags::external_target;
use crate::author::suite_folder::free_folder;
use crate::author::{write_suite, Observed, Written};
use crate::catalogue::{refuse_without_reference, Catalogue};
use crate::execute::parallel::default_jobs;
use crate::execute::schedule;
use crate::explore::agreement::Agreement;
use crate::explore::baseline::{
    baseline_text, is_yaml, read_baseline, Baseline, FoundClass, Witness,
};
use crate::explore::baseline_yaml::baseline_yaml;
use crate::explore::budget::{Budget, Shard};
use crate::explore::case::Case;
use crate::explore::classes::{classify, shrink_new, Classified};
use crate::explore::compare::Level;
use crate::explore::differential::Divergence;
use crate::explore::differential::{CaseOutcome, Sides};
use crate::explore::explore_file::{load_explore_data, ExploreData};
use crate::explore::shrink;
use crate::explore::stale::{recheck_unseen, WitnessRun};
use crate::explore::transcript::observe;
use crate::explore::watch::Watch;
use crate::explore::{explore, list_oracle_tools, ExplorePlan, Explored, ExploredCase};
use crate::proof::mutants::catalogue as mutations;
use crate::scenario::Partition;
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
    /// Re-runs each new divergence may take to shrink (0: no shrinking).
    #[arg(long, default_value_t = shrink::DEFAULT_BUDGET)]
    shrink_budget: usize,
    /// Run every server without isolation (docs/isolation.md), as `run
    /// --no-isolation` does: the oracle and the subject alike. The first line
    /// says so.
    #[arg(long)]
    no_isolation: bool,
}

pub(crate) fn explore_command(
    catalogue: &Catalogue,
    args: &ExploreArgs,
) -> Result<Outcome, CliError> {
    let suites = catalogue.select(std::slice::from_ref(&args.suite))?;
    let Some(suite) = suites.first() else {
        return Err(CliError::Explore(format!("no suite `{}`", args.suite)));
    };
    if args.oracle.is_none() || args.mutate.is_some() {
        refuse_without_reference(
            std::slice::from_ref(suite),
            "give the oracle with --oracle FILE (and the subject with --server or --target)",
        )?;
    }
    let exe = std::env::current_exe().map_err(CliError::OwnExecutable)?;
    // Both sides alike: a side isolated and the other not would diverge on
    // everything the isolation denies, which is no difference of the programs.
    let isolated = !args.no_isolation;
    let oracle = match &args.oracle {
        Some(path) => load_target_file(path)?,
        None => Target::reference(&exe, suite),
    }
    .isolated_if(isolated);
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
            external_target(target.as_deref(), server.as_deref())?.unwrap_or_else(|| oracle.clone())
        }
    }
    .isolated_if(isolated);
    let call_timeout =
        Duration::from_millis(args.timeout_ms.unwrap_or(suite.config.call_timeout_ms));
    let listed = list_oracle_tools(&oracle, call_timeout)
        .map_err(|why| CliError::Explore(format!("suite {}: {why}", suite.name)))?;
    let mut data = load_explore_data(suite, &listed, suite.config.settings())?;
    let not_drawn = data.keep_settings(|name| oracle.expresses(name) && subject.expresses(name));
    data.confining = suite
        .config
        .confinement
        .as_ref()
        .map(|c| c.when_settings.clone())
        .unwrap_or_default();
    let baseline = match &args.baseline {
        Some(path) => read_baseline(path).map_err(CliError::Explore)?,
        None => Baseline::default(),
    };
    if let Some(out) = &args.out {
        free_folder(out, &suite.name).map_err(CliError::Explore)?;
    }
    let seed = args.seed.unwrap_or_else(|| fastrand::u64(..));
    let budget = match args.seconds {
        Some(seconds) => Budget::Seconds(Duration::from_secs(seconds)),
        None => Budget::Cases(args.cases),
    };
    let shard = args.partition.unwrap_or(Shard::WHOLE);
    say(format_args!(
        "explore {}: seed {seed}, {}{}, oracle {}, subject {}{}",
        suite.name,
        match budget {
            Budget::Cases(cases) => format!("{cases} cases"),
            Budget::Seconds(limit) => match limit.as_secs() {
                1 => "1 second".to_string(),
                n => format!("{n} seconds"),
            },
        },
        if shard.is_whole() {
            String::new()
        } else {
            format!(" of shard {}/{}", shard.shard, shard.of)
        },
        oracle.name,
        subject.name,
        if isolated {
            ""
        } else {
            " (isolation: off, --no-isolation)"
        }
    ));
    show_settings(&suite.name, &data.settings, &not_drawn, (&oracle, &subject));
    let subject_is_oracle = args.mutate.is_none() && args.server.is_none() && args.target.is_none();
    let subject_lacks = if subject_is_oracle {
        Vec::new()
    } else {
        tools_the_subject_lacks(&data, &subject, call_timeout)
    };
    if !subject_lacks.is_empty() {
        if subject_lacks.len() == data.tools.len() {
            say(format_args!(
                "explore {}: the subject lists none of the explored tools ({}): every call would be UNSUPPORTED, so nothing is explored",
                suite.name,
                subject_lacks.join(", ")
            ));
            return Ok(Outcome::Broken);
        }
        say(format_args!(
            "explore {}: the subject does not list {}: calls to {} are UNSUPPORTED, made on neither side and not compared",
            suite.name,
            subject_lacks.join(", "),
            if subject_lacks.len() == 1 { "it" } else { "them" }
        ));
    }
    let progress = ExploreProgress::new(&suite.name, budget);
    let plan = ExplorePlan {
        sides: Sides {
            oracle: &oracle,
            subject: &subject,
            convention: suite.config.convention,
            masks: &data.masks,
            tasks: data.tasks.as_ref(),
            call_timeout,
            subject_lacks: &subject_lacks,
            confinement: suite.config.confinement.as_ref(),
        },
        data: &data,
        seed,
        budget,
        shard,
        // Both sides the bundled server: its cases mostly wait on process
        // starts and pipes, so four a core as `run` runs it (execute/schedule.rs).
        jobs: schedule::workers(
            args.jobs,
            args.oracle.is_none() && args.server.is_none() && args.target.is_none(),
            0,
            default_jobs(),
        ),
        watch: &progress,
    };
    let started = Instant::now();
    let explored = explore(&plan);
    let mut classified = classify(&explored.kept, &baseline);
    progress.phase(&format!(
        "shrinking {} new signatures",
        classified.new_count()
    ));
    shrink_new(&mut classified, &plan.sides, args.shrink_budget, plan.jobs);
    progress.finish();
    let elapsed = started.elapsed();
    let mut tally = show(
        &explored.kept,
        &classified,
        &baseline,
        args.shrink_budget,
        &subject_lacks,
    );
    count_clean_calls(&mut tally, &explored.clean_calls, &subject_lacks);
    if tally.unsupported > 0 {
        say(format_args!(
            "explore {}: {} calls UNSUPPORTED (not made)",
            suite.name, tally.unsupported
        ));
    }
    say(format_args!(
        "explore {}: {} cases, {} calls, {} divergences ({}), {} cases not run",
        suite.name,
        explored.cases,
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
    say(format_args!(
        "explore {}: {} signatures, {} new{}",
        suite.name,
        classified.classes.len(),
        classified.new_count(),
        if args.baseline.is_some() {
            format!(
                ", {} in the baseline",
                classified.classes.len() - classified.new_count()
            )
        } else {
            String::new()
        }
    ));
    say(format_args!(
        "explore {}: agreement over {}: {}",
        suite.name,
        plural(tally.calls, "call"),
        tally.agreement().shown()
    ));
    let stale = if args.baseline.is_some() {
        let seen: BTreeSet<usize> = classified.classes.iter().filter_map(|c| c.known).collect();
        let rechecked = recheck_unseen(&plan.sides, &data, &baseline, &seen, plan.jobs);
        show_baseline(&suite.name, &baseline, &seen, &rechecked);
        rechecked
    } else {
        Vec::new()
    };
    let stale_count = stale
        .iter()
        .filter(|(_, run)| matches!(run, WitnessRun::Stale(_)))
        .count();
    eprintln!(
        "explore: {} cases in {:.1}s ({:.1} cases/s, {:.1} calls/s)",
        explored.cases,
        elapsed.as_secs_f64(),
        explored.cases as f64 / elapsed.as_secs_f64().max(1e-9),
        tally.calls as f64 / elapsed.as_secs_f64().max(1e-9),
    );
    if let Some(path) = &args.json {
        let text = serde_json::to_string_pretty(&report_json(
            RunHeader {
                suite: &suite.name,
                seed,
                settings_drawn: &data.settings,
            },
            &subject_lacks,
            &explored,
            &tally,
            &classified,
            args.baseline.is_some().then_some(&baseline),
            &stale,
        ))
        .unwrap_or_default();
        std::fs::write(path, text + "\n").map_err(|source| CliError::WriteReport {
            path: path.clone(),
            source,
        })?;
    }
    if let Some(out) = &args.out {
        let observed = observe_new(&plan.sides, &classified, seed);
        let written = write_suite(out, suite, &observed, &oracle, Some(&subject))
            .map_err(CliError::Explore)?;
        show_written(&written);
    }
    if let Some(path) = &args.write_baseline {
        let found: Vec<FoundClass> = classified
            .classes
            .iter()
            .map(|c| FoundClass {
                id: c.signature.id(),
                oracle: c.signature.oracle.join(" / "),
                subject: c.signature.subject.join(" / "),
                witness: Witness {
                    seed,
                    case: c.first.0.number,
                },
            })
            .collect();
        let text = if is_yaml(path) {
            baseline_yaml(&found)
        } else {
            baseline_text(&found)
        };
        std::fs::write(path, text).map_err(|source| CliError::WriteReport {
            path: path.clone(),
            source,
        })?;
    }
    Ok(
        if classified.new_count() == 0 && tally.failed == 0 && stale_count == 0 {
            Outcome::Held
        } else {
            Outcome::Broken
        },
    )
}

/// Adds the calls the clean cases made (only counted, never kept) to `tally`,
/// those of tools the subject lacks as UNSUPPORTED.
fn count_clean_calls(
    tally: &mut Tally,
    clean_calls: &BTreeMap<String, u64>,
    subject_lacks: &[String],
) {
    for (tool, &calls) in clean_calls {
        let calls = usize::try_from(calls).unwrap_or(usize::MAX);
        if subject_lacks.contains(tool) {
            tally.unsupported += calls;
        } else {
            tally.calls += calls;
        }
    }
}

/// What the run came to.
struct Tally {
    calls: usize,
    divergences: usize,
    by_level: [usize; Level::ALL.len()],
    failed: usize,
    /// Calls of tools the subject does not list, up to each case's divergence.
    unsupported: usize,
}

impl Tally {
    /// How often the two sides agreed over the calls counted.
    fn agreement(&self) -> Agreement {
        Agreement {
            calls: self.calls,
            by_level: self.by_level,
        }
    }
}

/// Prints a block per divergence and a line per case not run, in case order. A
/// divergence whose signature an earlier case showed, or the baseline lists, gets
/// its heading and signature only; a new one is shown as it was shrunk.
fn show(
    explored: &[ExploredCase],
    classified: &Classified<'_>,
    baseline: &Baseline,
    budget: usize,
    subject_lacks: &[String],
) -> Tally {
    let mut tally = Tally {
        calls: 0,
        divergences: 0,
        by_level: [0; Level::ALL.len()],
        failed: 0,
        unsupported: 0,
    };
    let mut shown_in_full = 0;
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
        let unsupported = case
            .calls
            .iter()
            .take(*calls)
            .filter(|c| subject_lacks.contains(&c.tool))
            .count();
        tally.unsupported += unsupported;
        tally.calls += calls - unsupported;
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
        let Some(class) = classified
            .class_of
            .get(&case.number)
            .and_then(|&i| classified.classes.get(i))
        else {
            continue;
        };
        let id = class.signature.id();
        if class.first.0.number != case.number {
            say(format_args!(
                "  signature {id}, as case {}",
                class.first.0.number
            ));
            continue;
        }
        if let Some(known) = class.known.and_then(|i| baseline.classes.get(i)) {
            say(format_args!(
                "  signature {id}, in the baseline as {} ({})",
                known.name,
                known.verdict.label()
            ));
            continue;
        }
        say(format_args!("  signature {id}"));
        shown_in_full += 1;
        if shown_in_full > SHOWN_IN_FULL {
            continue;
        }
        let (case, divergence) = match &class.shrunk {
            Some(shrunk) => {
                say(format_args!(
                    "  shrunk in {} re-runs from {} and {}{}",
                    shrunk.runs,
                    plural(divergence.at_call.map_or(0, |i| i + 1), "call"),
                    plural(case.fixture.entries.len(), "fixture entry"),
                    if shrunk.stopped_by_budget {
                        format!(" (stopped by the budget of {budget} re-runs)")
                    } else {
                        String::new()
                    }
                ));
                (&shrunk.case, &shrunk.divergence)
            }
            None => (case, divergence),
        };
        show_case(case, divergence);
    }
    if shown_in_full > SHOWN_IN_FULL {
        say(format_args!(
            "({} new signatures shown in full; --json FILE has them all)",
            SHOWN_IN_FULL
        ));
    }
    tally
}

fn plural(n: usize, what: &str) -> String {
    match (n, what) {
        (1, _) => format!("1 {what}"),
        (_, "class") => format!("{n} classes"),
        (_, "fixture entry") => format!("{n} fixture entries"),
        _ => format!("{n} {what}s"),
    }
}

/// A case's fixture, its calls up to the divergence, the diff and the stderr tail.
fn show_case(case: &Case, divergence: &Divergence) {
    let files: Vec<String> = case
        .fixture
        .entries
        .iter()
        .map(|(name, text)| match text {
            Some(text) => format!("{name} ({} bytes)", text.len()),
            None => format!("{name}/"),
        })
        .collect();
    let links = case
        .fixture
        .links
        .iter()
        .map(|(name, target)| format!("{name} -> {target}"));
    let modes = case
        .fixture
        .modes
        .iter()
        .map(|(name, mode)| format!("{name} mode {mode:o}"));
    let files: Vec<String> = files.into_iter().chain(links).chain(modes).collect();
    if files.is_empty() {
        say("  fixture: (empty)");
    } else {
        say(format_args!("  fixture: {}", files.join(", ")));
    }
    if !case.fixture.outside.is_empty() {
        say(format_args!(
            "  beside the root: {}",
            case.fixture.outside.join(", ")
        ));
    }
    if !case.settings.is_empty() {
        say(format_args!("  settings: {}", json!(case.settings)));
    }
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

/// Each new class's case (as shrunk) run once more and described for the writer.
fn observe_new(sides: &Sides<'_>, classified: &Classified<'_>, seed: u64) -> Vec<Observed> {
    let Ok(runtime) = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    else {
        return Vec::new();
    };
    classified
        .classes
        .iter()
        .filter(|class| class.known.is_none())
        .filter_map(|class| {
            let (case, divergence, how) = match &class.shrunk {
                Some(s) => (&s.case, &s.divergence, "shrunk"),
                None => (class.first.0, class.first.1, "not shrunk"),
            };
            let id = class.signature.id();
            let key = id.rsplit('/').next().unwrap_or_default().to_string();
            let provenance = format!(
                "toolspec explore, seed {seed}, case {} ({how}), signature {id}",
                class.first.0.number
            );
            let mut case = case.clone();
            if let Some(at) = divergence.at_call {
                case.calls.truncate(at + 1);
            }
            runtime
                .block_on(observe(sides, &case, divergence, key, provenance))
                .ok()
        })
        .collect()
}

/// What `--out` wrote and what it dropped.
fn show_written(written: &Written) {
    let scenarios: usize = written.files.iter().map(|(_, n)| n).sum();
    say(format_args!(
        "wrote {} scenario files ({scenarios} scenarios) to {}; {} scenarios dropped",
        written.files.len(),
        written.dir.display(),
        written.dropped.len()
    ));
    for (file, why) in &written.dropped {
        say(format_args!("  dropped {file}: {}", first_line(why)));
    }
}

/// What became of the baseline's classes: how many the run saw, how many it did
/// not whose witness still shows them, and each stale one on a line of its own.
fn show_baseline(
    suite: &str,
    baseline: &Baseline,
    seen: &BTreeSet<usize>,
    rechecked: &[(usize, WitnessRun)],
) {
    let still = rechecked
        .iter()
        .filter(|(_, run)| *run == WitnessRun::Shows)
        .count();
    let stale: Vec<&(usize, WitnessRun)> = rechecked
        .iter()
        .filter(|(_, run)| matches!(run, WitnessRun::Stale(_)))
        .collect();
    let unchecked = baseline.classes.len() - seen.len() - rechecked.len();
    say(format_args!(
        "explore {suite}: baseline {}: {}, {} seen, {} not reached whose witness still shows {}, {} without a witness, {} stale",
        baseline.file,
        plural(baseline.classes.len(), "class"),
        seen.len(),
        still,
        if still == 1 { "it" } else { "them" },
        unchecked,
        stale.len()
    ));
    for (index, run) in stale {
        let (Some(class), WitnessRun::Stale(why)) = (baseline.classes.get(*index), run) else {
            continue;
        };
        say(format_args!(
            "STALE {} ({}): its witness case {} {why}; the class no longer diverges, so remove it from the baseline",
            class.name,
            baseline.place(*index),
            class.witness.map(Witness::shown).unwrap_or_default(),
        ));
    }
}

/// The settings drawn and their values (a line only when the suite's
/// `explore.yaml` names some), and those left out because a side cannot express
/// them.
fn show_settings(
    suite: &str,
    drawn: &BTreeMap<String, Vec<Value>>,
    not_drawn: &[String],
    (oracle, subject): (&Target, &Target),
) {
    if !drawn.is_empty() {
        let listed: Vec<String> = drawn
            .iter()
            .map(|(name, values)| {
                let values: Vec<String> = values.iter().map(Value::to_string).collect();
                format!("{name} {}", values.join("|"))
            })
            .collect();
        say(format_args!(
            "explore {suite}: settings drawn, one case in three: {}",
            listed.join(", ")
        ));
    }
    if !not_drawn.is_empty() {
        let unable: Vec<String> = [("oracle", oracle), ("subject", subject)]
            .iter()
            .filter(|(_, side)| not_drawn.iter().any(|n| !side.expresses(n)))
            .map(|(role, side)| format!("the {role} `{}`", side.name))
            .collect();
        say(format_args!(
            "explore {suite}: settings not drawn, as {} cannot express them: {}",
            unable.join(" and "),
            not_drawn.join(", ")
        ));
    }
}

/// The explored tools the subject does not list in its tools/list (read back
/// in the suite's names through its renames). None when its tools/list cannot
/// be read: then every call is made, and a subject that breaks shows as a broken
/// divergence.
fn tools_the_subject_lacks(data: &ExploreData, subject: &Target, timeout: Duration) -> Vec<String> {
    let Ok(listed) = list_oracle_tools(subject, timeout) else {
        return Vec::new();
    };
    data.tools
        .iter()
        .filter(|tool| !listed.iter().any(|l| l.name == tool.name))
        .map(|tool| tool.name.clone())
        .collect()
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

fn first_line(text: &str) -> &str {
    text.lines().next().unwrap_or_default()
}

/// What the JSON report says of the run before its results.
struct RunHeader<'a> {
    suite: &'a str,
    seed: u64,
    settings_drawn: &'a BTreeMap<String, Vec<Value>>,
}

/// The run as JSON: the seed, the counts, and every divergence with its calls;
/// `baseline` is the one the run was given (`None`: none, and the report's
/// `baseline` is null).
fn report_json(
    RunHeader {
        suite,
        seed,
        settings_drawn,
    }: RunHeader<'_>,
    subject_lacks: &[String],
    explored: &Explored,
    tally: &Tally,
    classified: &Classified<'_>,
    baseline: Option<&Baseline>,
    rechecked: &[(usize, WitnessRun)],
) -> Value {
    let divergences: Vec<Value> = explored
        .kept
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
                    "links": case.fixture.links,
                    "modes": case.fixture.modes.iter()
                        .map(|(name, mode)| (name.clone(), format!("{mode:o}")))
                        .collect::<BTreeMap<String, String>>(),
                    "outside": case.fixture.outside,
                    "settings": case.settings,
                    "oracle": d.difference.oracle,
                    "subject": d.difference.subject,
                    "signature": classified
                        .class_of
                        .get(&case.number)
                        .and_then(|&i| classified.classes.get(i))
                        .map(|c| c.signature.id()),
                }))
            }
            _ => None,
        })
        .collect();
    let not_run: Vec<Value> = explored
        .kept
        .iter()
        .filter_map(|ExploredCase { case, outcome }| match outcome {
            CaseOutcome::Failed(why) => Some(json!({"case": case.number, "why": why})),
            CaseOutcome::Ran { .. } => None,
        })
        .collect();
    let signatures: Vec<Value> = classified
        .classes
        .iter()
        .map(|class| {
            json!({
                "id": class.signature.id(),
                "level": class.signature.level.label(),
                "tool": class.signature.tool,
                "oracle": class.signature.oracle,
                "subject": class.signature.subject,
                "call": class.signature.call,
                "cases": class.cases,
                "known": class.known.is_some(),
                "class": baseline
                    .zip(class.known)
                    .and_then(|(baseline, i)| baseline.classes.get(i))
                    .map(|k| &k.name),
                "shrunk": class.shrunk.as_ref().map(|shrunk| {
                    let last = shrunk.divergence.at_call.map_or(0, |i| i + 1);
                    json!({
                        "runs": shrunk.runs,
                        "stopped_by_budget": shrunk.stopped_by_budget,
                        "calls": shrunk.case.calls.iter().take(last)
                            .map(|c| json!({"tool": c.tool, "args": c.args}))
                            .collect::<Vec<_>>(),
                        "files": shrunk.case.fixture.entries,
                        "oracle": shrunk.divergence.difference.oracle,
                        "subject": shrunk.divergence.difference.subject,
                    })
                }),
            })
        })
        .collect();
    let agreement = tally.agreement();
    let baseline_json = baseline.map(|baseline| {
        let classes: Vec<Value> = baseline
            .classes
            .iter()
            .enumerate()
            .map(|(i, known)| {
                let seen = classified
                    .classes
                    .iter()
                    .filter(|c| c.known == Some(i))
                    .count();
                let witness_run =
                    rechecked
                        .iter()
                        .find(|(c, _)| *c == i)
                        .map(|(_, run)| match run {
                            WitnessRun::Shows => "shows".to_string(),
                            WitnessRun::Stale(why) => format!("stale: {why}"),
                        });
                json!({
                    "class": known.name,
                    "verdict": known.verdict.label(),
                    "line": known.line,
                    "signatures_seen": seen,
                    "witness": known.witness.map(Witness::shown),
                    "witness_run": witness_run,
                })
            })
            .collect();
        json!({"file": baseline.file, "classes": classes})
    });
    json!({
        "schema_version": 5,
        "suite": suite,
        "seed": seed,
        "settings_drawn": settings_drawn,
        "cases": explored.cases,
        "calls": tally.calls,
        "divergences": divergences,
        "signatures": signatures,
        "not_run": not_run,
        "unsupported": {"tools": subject_lacks, "calls": tally.unsupported},
        "agreement": {
            "calls": tally.calls,
            "convention": agreement.fraction(Level::Convention),
            "text": agreement.fraction(Level::Text),
            "files": agreement.fraction(Level::Files),
        },
        "baseline": baseline_json,
    })
}
