//! `toolspec run`: every selected scenario against one server, a block for each one
//! that did not pass, a summary line per suite and for the run, and the report files.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use super::bless::{refuse_built_in, Collector};
use super::error::CliError;
use super::outcome::Outcome;
use super::output::{print, say};
use super::progress::Progress;
use super::report_files::{ReportFiles, ReportStreams};
use super::target_flags::external_target;
use crate::bless::BlessMode;
use crate::catalogue::{refuse_without_reference, Catalogue};
use crate::execute::cache_folder::cache_file_here;
use crate::execute::durations::{self, Durations};
use crate::execute::parallel::{default_jobs, run_scenarios, Planned};
use crate::execute::schedule::{self, StartOrder};
use crate::execute::{RunOptions, ScenarioReport, Verdict};
use crate::report::matrix::ClauseOrder;
use crate::report::text::{run_summary, scenario_text, suite_summary, Styles};
use crate::report::{RunFacts, Standing, SuiteFacts, Tally};
use crate::scenario::{
    Basis, IdSelection, LoadError, Partition, Scenario, Suite, SuiteScenarioFile,
};
use crate::server::{preflight, Target};

/// `toolspec run`.
#[derive(clap::Args, Debug)]
pub(crate) struct RunArgs {
    /// Suite to run; repeat for several (default: the suites a target file pins in
    /// `suites:`, else all).
    #[arg(long)]
    pub(super) suite: Vec<String>,
    /// A stdio MCP server to test instead of the bundled one: 'CMD ARGS {root}'.
    #[arg(long, conflicts_with = "target")]
    pub(super) server: Option<String>,
    /// A target file describing the server under test (command or URL, settings,
    /// renames, baseline of known failures).
    #[arg(long)]
    pub(super) target: Option<PathBuf>,
    /// Write a JUnit XML report here.
    #[arg(long)]
    junit: Option<PathBuf>,
    /// Write a JSON report here.
    #[arg(long)]
    pub(super) json: Option<PathBuf>,
    /// Write a Markdown conformance matrix (one row per requirement) here.
    #[arg(long)]
    markdown: Option<PathBuf>,
    /// Write the results page (one self-contained HTML file) here.
    #[arg(long)]
    html: Option<PathBuf>,
    /// Write the ids of every failing scenario here, as a baseline file for a target.
    #[arg(long)]
    write_baseline: Option<PathBuf>,
    /// Only scenarios whose id contains this text.
    #[arg(long)]
    filter: Option<String>,
    /// Only the scenario with this exact id (`suite::file::scenario`); repeat for
    /// several. An id that names no scenario is refused. Without --suite, the
    /// suites the ids name run.
    #[arg(long = "id", value_name = "ID")]
    ids: Vec<String>,
    /// Only the scenarios whose ids this file lists, one a line (as --id).
    #[arg(long, value_name = "FILE")]
    ids_from: Option<PathBuf>,
    /// Per-call timeout in milliseconds, overriding the suites'.
    #[arg(long)]
    pub(super) timeout_ms: Option<u64>,
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
    /// Run every scenario N times, each in a fresh fixture and server; a scenario
    /// whose verdict changes is FLAKY, which fails the run unless the baseline lists it.
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=100))]
    repeat: u32,
    /// Run one shard of the selected scenarios: count:K/N (the K-th of N by
    /// position) or hash:K/N (by the scenario id's hash), as nextest splits tests;
    /// `toolspec report merge` joins the shards' JSON reports.
    #[arg(long, value_name = "count:K/N|hash:K/N")]
    partition: Option<Partition>,
    /// Only scenarios of this conformance level: `spec` (the document requires it),
    /// `upstream` (the real program does it where the document is silent), or `all`.
    #[arg(long, value_enum, default_value_t = BasisFilter::All)]
    basis: BasisFilter,
    /// Let a run that selects or judges no scenario pass (by default it fails: a gate
    /// must not pass on nothing).
    #[arg(long)]
    allow_empty: bool,
    /// Print every scenario, not only the ones that did not pass.
    #[arg(long, short)]
    verbose: bool,
    /// Run every server without isolation for this run: writes anywhere, the real
    /// home, the network (docs/isolation.md). The summary line says so.
    #[arg(long)]
    pub(super) no_isolation: bool,
    /// Accepted and does nothing: isolation is the default now.
    #[arg(long, hide = true)]
    sandbox: bool,
    /// Give each failing scenario's failed `text`, `json`, `code`, `is_error` and
    /// file texts what the server answered (suites of --specs only): `diff` (the
    /// default) prints each file's change, `write` writes it (docs/authoring.md).
    #[arg(long, value_enum, value_name = "diff|write", num_args = 0..=1, require_equals = true, default_missing_value = "diff")]
    bless: Option<BlessMode>,
}

impl RunArgs {
    /// The run `toolspec init` makes: one suite against the proposed target file,
    /// writing the ids of what fails as the first baseline.
    pub(super) fn first_baseline(
        target: &Path,
        suite: &str,
        baseline: &Path,
    ) -> Result<RunArgs, CliError> {
        #[derive(clap::Parser)]
        struct Line {
            #[command(flatten)]
            args: RunArgs,
        }
        let line = [
            "run".into(),
            "--suite".into(),
            std::ffi::OsString::from(suite),
            "--target".into(),
            target.as_os_str().to_owned(),
            "--write-baseline".into(),
            baseline.as_os_str().to_owned(),
        ];
        <Line as clap::Parser>::try_parse_from(line)
            .map(|l| l.args)
            .map_err(|e| CliError::Init(format!("cannot make the first run: {e}")))
    }
}

/// `--basis`: which conformance levels to run.
#[derive(clap::ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
enum BasisFilter {
    Spec,
    Upstream,
    All,
}

impl BasisFilter {
    fn admits(self, basis: Basis) -> bool {
        match self {
            BasisFilter::All => true,
            BasisFilter::Spec => basis == Basis::Spec,
            BasisFilter::Upstream => basis == Basis::Upstream,
        }
    }
}

pub(crate) fn run(
    catalogue: &Catalogue,
    args: &RunArgs,
    colour: bool,
) -> Result<Outcome, CliError> {
    if args.sandbox {
        eprintln!(
            "note: --sandbox does nothing now: every server is isolated unless \
             --no-isolation or its target file's `isolation:` section says otherwise"
        );
    }
    let external = external_target(args.target.as_deref(), args.server.as_deref())?;
    let ids = IdSelection::gather(&args.ids, args.ids_from.as_deref())?;
    // Without --suite, the suites exact ids name run; else a target file that pins
    // suites is gated on those suites alone.
    let named = match &ids {
        Some(ids) if args.suite.is_empty() => ids.suites(),
        _ => args.suite.clone(),
    };
    let pinned: Vec<String> = match &external {
        Some(target) if named.is_empty() => target.pins.keys().cloned().collect(),
        _ => Vec::new(),
    };
    let suites = catalogue.select(if pinned.is_empty() { &named } else { &pinned })?;
    if let Some(ids) = &ids {
        ids.check(&suites)?;
    }
    if args.bless.is_some() {
        refuse_built_in(catalogue, &suites)?;
    }
    if external.is_none() {
        refuse_without_reference(
            &suites,
            "give the server to run it against with --server or --target",
        )?;
    }
    let mut blessing = args.bless.map(Collector::new);
    let exe = std::env::current_exe().map_err(CliError::OwnExecutable)?;
    if let Some(target) = &external {
        check_baseline(target, &suites, args.target.as_deref())?;
    }
    let options = RunOptions {
        call_timeout_ms: args.timeout_ms,
        scenario_timeout_ms: args.scenario_timeout_ms,
        keep_failed: args.keep_failed,
        repeat: args.repeat,
    };
    let styles = Styles::coloured(colour);

    check_pins(&external, &suites, args.target.as_deref())?;
    let order = ClauseOrder::of_suites(&suites);
    let mut streams = ReportStreams::new(ReportFiles {
        json: args.json.as_deref(),
        junit: args.junit.as_deref(),
        markdown: args.markdown.as_deref(),
        html: args.html.as_deref(),
        order: &order,
    });
    let mut plans = plan_suites(args, ids.as_ref(), &suites, &external, &exe);
    ask_for_tools(&mut plans, &options);
    let work: Vec<Planned<'_>> = plans
        .iter()
        .flat_map(|plan| {
            plan.work.iter().map(move |(file, scenario)| Planned {
                suite: plan.suite,
                file,
                scenario,
                target: &plan.target,
                listed: plan.listed.as_ref(),
            })
        })
        .collect();
    let suite_of: Vec<usize> = plans
        .iter()
        .enumerate()
        .flat_map(|(k, plan)| std::iter::repeat_n(k, plan.work.len()))
        .collect();
    let durations_file = cache_file_here(durations::FILE_NAME);
    let mut durations = durations_file
        .as_deref()
        .map(Durations::load)
        .unwrap_or_default();
    let expected: Vec<Option<Duration>> = work
        .iter()
        .map(|p| durations.of(&p.target.name, &p.suite.scenario_id(p.file, p.scenario)))
        .collect();
    let start = StartOrder::slow_first(&expected);
    let workers = schedule::workers(args.jobs, external.is_none(), start.early, default_jobs());

    // The ids `--write-baseline` writes, kept instead of every report.
    let mut failing: Vec<String> = Vec::new();
    let mut facts = Vec::new();
    let mut grand = Tally::default();
    let mut target_name = String::new();
    let label = match plans.as_slice() {
        [one] => one.suite.name.clone(),
        all => format!("{} suites", all.len()),
    };
    let progress = Progress::new(&label, work.len());
    let show = |report: &ScenarioReport| {
        progress.scenario_ended(Standing::of(report).breaks_the_run());
    };
    let started = Instant::now();
    // Each report is counted, printed if it did not pass, and handed to the report
    // files in the run's order as soon as those before it have ended, and not kept.
    // The suites are opened (their notes printed) and closed (their summary line)
    // in order as their reports are handed on, so the output reads as if they had
    // run one after the other.
    let mut tallies = vec![Tally::default(); plans.len()];
    let mut opened = 0;
    say_notes(&plans, 0);
    let close_through = |upto: usize,
                         opened: &mut usize,
                         tallies: &[Tally],
                         facts: &mut Vec<SuiteFacts>,
                         grand: &mut Tally,
                         target_name: &mut String| {
        while *opened < upto {
            let plan = &plans[*opened];
            let summary = close_suite(catalogue, plan, &tallies[*opened], started.elapsed(), facts);
            progress.above(|| say(summary));
            grand.add(&tallies[*opened]);
            target_name.clone_from(&plan.target.name);
            *opened += 1;
            progress.above(|| say_notes(&plans, *opened));
        }
    };
    run_scenarios(
        &work,
        &options,
        workers,
        &start,
        &show,
        &mut |index, mut report| {
            let k = suite_of[index];
            close_through(
                k,
                &mut opened,
                &tallies,
                &mut facts,
                &mut grand,
                &mut target_name,
            );
            let plan = &plans[k];
            report.position = plan.positions[index - plan.first];
            durations.record(&plan.target.name, &report.id, report.elapsed);
            // NEW is shown too: what raising the pin would bring is worth reading.
            let standing = Standing::of(&report);
            if args.verbose || standing.breaks_the_run() || standing == Standing::New {
                progress.above(|| print(&scenario_text(&report, styles)));
            }
            tallies[k].count(&report);
            if let Some(blessing) = &mut blessing {
                blessing.consider(index, &report);
            }
            if args.write_baseline.is_some() && fails(&report) {
                failing.push(report.id.clone());
            }
            streams.add(report);
        },
    );
    close_through(
        plans.len(),
        &mut opened,
        &tallies,
        &mut facts,
        &mut grand,
        &mut target_name,
    );
    progress.finish();
    if let Some(file) = &durations_file {
        // A cache: a run that cannot keep it only starts the next one slower.
        let _ = durations.save(file);
    }
    let mut summary = run_summary(&grand);
    if args.no_isolation {
        summary.push_str(" (isolation: off, --no-isolation)");
    }
    say(summary);
    let isolation = plans
        .first()
        .map(|plan| {
            plan.target
                .isolation_layers()
                .into_iter()
                .map(|layer| layer.name().to_string())
                .collect()
        })
        .unwrap_or_default();
    let run = RunFacts {
        target: target_name,
        isolation,
        partition: args.partition.map(|p| p.to_string()),
        suites: facts,
    };
    streams.finish(&run)?;
    write_baseline(args, &failing)?;
    if grand.judged() == 0 && !args.allow_empty {
        if grand.scenarios() == 0 {
            say(format_args!(
                "error: no scenario was selected ({}): a run that checks nothing does not pass (--allow-empty lets it)",
                selection(args)
            ));
        } else {
            say(format_args!(
                "error: no scenario was judged ({} SKIP, {} UNSUPPORTED): a run that checks nothing does not pass (--allow-empty lets it)",
                grand.skipped, grand.unsupported
            ));
        }
        return Ok(Outcome::Broken);
    }
    if let Some(blessing) = blessing {
        return Ok(blessing.finish(&work, &options));
    }
    Ok(if grand.breaks_the_run() {
        Outcome::Broken
    } else {
        Outcome::Held
    })
}

/// One suite of a run, planned before anything runs.
struct SuitePlan<'s> {
    suite: &'s Suite,
    target: Target,
    /// The selected scenarios this run (or shard) runs.
    work: Vec<(&'s SuiteScenarioFile, &'s Scenario)>,
    /// Each one's position among the selected scenarios of every suite.
    positions: Vec<usize>,
    /// Where the suite's scenarios begin in the run's list.
    first: usize,
    /// What the server's tool list says of the suite, said as the suite opens.
    notes: Vec<String>,
    listed: Option<BTreeSet<String>>,
}

/// Each suite's target and the scenarios of it this run runs.
fn plan_suites<'s>(
    args: &RunArgs,
    ids: Option<&IdSelection>,
    suites: &'s [Suite],
    external: &Option<Target>,
    exe: &Path,
) -> Vec<SuitePlan<'s>> {
    let mut plans = Vec::new();
    // The position of each selected scenario across the suites, for --partition.
    let mut position = 0;
    let mut first = 0;
    for suite in suites {
        let target = match external {
            Some(t) => t.clone(),
            None => {
                let mutate: Vec<&str> = args
                    .mutate
                    .iter()
                    .flat_map(|m| ["--mutate", m.as_str()])
                    .collect();
                Target::reference(exe, suite).with_extra_args(&mutate)
            }
        };
        let mut target = target;
        if args.no_isolation {
            target.isolation.enabled = false;
        }
        let chosen: Vec<_> = suite
            .scenarios()
            .filter(|(f, s)| selected(args, ids, suite, f, s))
            .collect();
        let start = position;
        position += chosen.len();
        let (positions, work): (Vec<usize>, Vec<_>) = chosen
            .into_iter()
            .enumerate()
            .map(|(i, work)| (start + i, work))
            .filter(|(at, (f, s))| {
                args.partition
                    .is_none_or(|p| p.admits(*at, &suite.scenario_id(f, s)))
            })
            .unzip();
        let count = work.len();
        plans.push(SuitePlan {
            suite,
            target,
            work,
            positions,
            first,
            notes: Vec::new(),
            listed: None,
        });
        first += count;
    }
    plans
}

/// Asks each suite's server for its tool list, all suites at once, before any
/// scenario runs.
fn ask_for_tools(plans: &mut [SuitePlan<'_>], options: &RunOptions) {
    let answers: Vec<_> = std::thread::scope(|scope| {
        let asking: Vec<_> = plans
            .iter()
            .map(|plan| {
                let timeout = Duration::from_millis(
                    options
                        .call_timeout_ms
                        .unwrap_or(plan.suite.config.call_timeout_ms),
                );
                scope.spawn(move || preflight::check(plan.suite, &plan.target, timeout))
            })
            .collect();
        asking.into_iter().map(|a| a.join()).collect()
    });
    for (plan, answer) in plans.iter_mut().zip(answers) {
        match answer {
            Ok(Ok(gaps)) => {
                plan.notes = gaps.lines(&plan.target.name);
                plan.listed = Some(gaps.listed);
            }
            Ok(Err(why)) => {
                plan.notes = vec![format!(
                    "note: could not list `{}`'s tools: {why}",
                    plan.target.name
                )];
            }
            Err(_) => {
                plan.notes = vec![format!(
                    "note: could not list `{}`'s tools: the look-up panicked",
                    plan.target.name
                )];
            }
        }
    }
}

/// Says the notes of the suite at `k`, if there is one.
fn say_notes(plans: &[SuitePlan<'_>], k: usize) {
    for line in plans.get(k).map(|p| p.notes.as_slice()).unwrap_or_default() {
        say(line);
    }
}

/// The summary line of a suite whose reports have all been handed on, `elapsed`
/// after the run's scenarios began; its facts are added for the reports.
fn close_suite(
    catalogue: &Catalogue,
    plan: &SuitePlan<'_>,
    tally: &Tally,
    elapsed: Duration,
    facts: &mut Vec<SuiteFacts>,
) -> String {
    let suite = plan.suite;
    let mut origin = catalogue
        .origin(&suite.name)
        .map(|o| o.describe())
        .unwrap_or_default();
    facts.push(SuiteFacts {
        name: suite.name.clone(),
        version: suite.config.version,
        origin: origin.clone(),
    });
    origin.push_str(&format!(", version {}", suite.config.version));
    if let Some(pin) = plan.target.pins.get(&suite.name) {
        origin.push_str(&format!(", pinned at {pin}"));
    }
    suite_summary(&suite.name, tally, elapsed, &plan.target.name, &origin).to_string()
}

/// A pin above a suite's version names a version that does not exist (a typo, or a
/// target file written for a newer toolspec): refuse it rather than gate on nothing.
fn check_pins(
    target: &Option<Target>,
    suites: &[Suite],
    file: Option<&Path>,
) -> Result<(), CliError> {
    let (Some(target), Some(file)) = (target, file) else {
        return Ok(());
    };
    let errors: Vec<LoadError> = suites
        .iter()
        .filter_map(|suite| {
            let pin = *target.pins.get(&suite.name)?;
            (pin == 0 || pin > suite.config.version).then(|| {
                LoadError::new(
                    file,
                    None,
                    format!(
                        "`suites: {{ {}: {pin} }}` pins a version the suite does not have (it is at version {}); pin 1 to {}",
                        suite.name, suite.config.version, suite.config.version
                    ),
                )
            })
        })
        .collect();
    if errors.is_empty() {
        Ok(())
    } else {
        Err(CliError::Files(errors))
    }
}

/// Whether `--suite`'s scenario passes `--basis`, `--filter` and `--id` (before
/// `--partition` takes a shard of those that do).
fn selected(
    args: &RunArgs,
    ids: Option<&IdSelection>,
    suite: &Suite,
    file: &crate::scenario::SuiteScenarioFile,
    scenario: &crate::scenario::Scenario,
) -> bool {
    let id = suite.scenario_id(file, scenario);
    args.basis.admits(scenario.basis)
        && args
            .filter
            .as_ref()
            .is_none_or(|needle| id.contains(needle.as_str()))
        && ids.is_none_or(|ids| ids.admits(&id))
}

/// What chose the scenarios, in words, for a run that chose none.
fn selection(args: &RunArgs) -> String {
    let mut parts = Vec::new();
    if !args.suite.is_empty() {
        parts.push(format!("--suite {}", args.suite.join(", --suite ")));
    }
    if let Some(filter) = &args.filter {
        parts.push(format!("--filter {filter:?} matches no scenario id"));
    }
    if !args.ids.is_empty() || args.ids_from.is_some() {
        parts.push("the ids given (--id, --ids-from)".to_string());
    }
    if let Some(partition) = &args.partition {
        parts.push(format!("--partition {partition} leaves none in this shard"));
    }
    if args.basis != BasisFilter::All {
        parts.push(format!("--basis {:?}", args.basis).to_lowercase());
    }
    if parts.is_empty() {
        "the suites hold no scenario".to_string()
    } else {
        parts.join("; ")
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
        .filter(|entry| !names_a_scenario(entry, &ids))
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

/// Whether a baseline entry names a scenario of `ids`: the whole scenario, or one
/// of its expectations (`id#key`; a scenario name may itself hold a `#`).
fn names_a_scenario(entry: &str, ids: &BTreeSet<String>) -> bool {
    ids.contains(entry)
        || entry
            .match_indices('#')
            .any(|(at, _)| ids.contains(&entry[..at]) && !entry[at + 1..].is_empty())
}

/// Whether `--write-baseline` lists the scenario: it failed, errored or was flaky.
fn fails(report: &ScenarioReport) -> bool {
    report.is_flaky() || matches!(report.verdict, Verdict::Fail(_) | Verdict::Error { .. })
}

/// `--write-baseline`: the ids of the scenarios that [`fails`] picked, in run order.
fn write_baseline(args: &RunArgs, failing: &[String]) -> Result<(), CliError> {
    if let Some(path) = &args.write_baseline {
        let mut text = String::from(
            "# Scenarios that fail on this target; name this file in `baseline_file:`.\n",
        );
        for id in failing {
            text.push_str(id);
            text.push('\n');
        }
        std::fs::write(path, text).map_err(|source| CliError::WriteReport {
            path: path.clone(),
            source,
        })?;
    }
    Ok(())
}
