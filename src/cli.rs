//! The `toolspec` command line: run suites, list scenarios, serve the reference.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use clap::{Parser, Subcommand};

use crate::color::{paint, ColorChoice};
use crate::execute::{RunOptions, ScenarioReport, Verdict};
use crate::parallel::{default_jobs, run_scenarios};
use crate::preflight;
use crate::report::{self, Standing, Tally};
use crate::scenario::{load_suite, load_suites, LoadError, Suite};
use crate::target::{load_target_file, Target};

/// Prints a line to stdout, ignoring a closed pipe (`toolspec run | head`): the run
/// goes on, so its servers are still stopped and its exit code still counts.
macro_rules! say {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stdout().lock(), $($arg)*);
    }};
}

/// Like `say!`, without the newline.
macro_rules! say_raw {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = write!(std::io::stdout().lock(), $($arg)*);
    }};
}

#[derive(Parser, Debug)]
#[command(
    name = "toolspec",
    version,
    about = "Conformance harness for coding-agent MCP tool servers"
)]
pub struct Cli {
    /// Folder holding the suites (default: ./specs, else the one toolspec was built from).
    #[arg(long, global = true)]
    pub specs: Option<PathBuf>,
    /// Colour the output: auto (a terminal, without NO_COLOR), always, never.
    #[arg(long, global = true, value_enum, default_value_t = ColorChoice::Auto)]
    pub color: ColorChoice,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Run suites against a server and print a summary; exits 1 on any FAIL or ERROR.
    Run(Box<RunArgs>),
    /// List suites, or the scenarios of the suites named.
    List {
        #[arg(long)]
        suite: Vec<String>,
    },
    /// Which clauses of the spec documents have a scenario; exits 1 when a clause has
    /// none or a `covers:` names no clause.
    Coverage(crate::coverage::CoverageArgs),
    /// Write skeleton scenarios for the clauses of a spec document that have none.
    Scaffold(crate::scaffold::ScaffoldArgs),
    /// Mutation testing: run each suite against every deliberate deviation of the
    /// bundled server and report which ones the suite catches; exits 1 if any survives.
    Mutants(MutantsArgs),
    /// Serve the bundled reference server over stdio (flags: --dialect, --root, ...).
    #[command(disable_help_flag = true)]
    ReferenceServer {
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<OsString>,
    },
}

#[derive(clap::Args, Debug)]
pub struct RunArgs {
    /// Suite to run; repeat for several (default: all).
    #[arg(long)]
    pub suite: Vec<String>,
    /// A stdio MCP server to test instead of the bundled one: 'CMD ARGS {root}'.
    #[arg(long, conflicts_with = "target")]
    pub server: Option<String>,
    /// A target file describing the server under test (command or URL, settings,
    /// renames, baseline of known failures).
    #[arg(long)]
    pub target: Option<PathBuf>,
    /// Write a JUnit XML report here.
    #[arg(long)]
    pub junit: Option<PathBuf>,
    /// Write a JSON report here.
    #[arg(long)]
    pub json: Option<PathBuf>,
    /// Write a Markdown conformance matrix (one row per requirement) here.
    #[arg(long)]
    pub markdown: Option<PathBuf>,
    /// Write the ids of every failing scenario here, as a baseline file for a target.
    #[arg(long)]
    pub write_baseline: Option<PathBuf>,
    /// Only scenarios whose id contains this text.
    #[arg(long)]
    pub filter: Option<String>,
    /// Per-call timeout in milliseconds, overriding the suites'.
    #[arg(long)]
    pub timeout_ms: Option<u64>,
    /// Scenarios run at once (default: number of CPUs).
    #[arg(long, short)]
    pub jobs: Option<usize>,
    /// Start the bundled server with this deliberate deviation (see its --mutate).
    #[arg(long, conflicts_with_all = ["server", "target"])]
    pub mutate: Vec<String>,
    /// Leave the fixture of every failed or errored scenario on disk.
    #[arg(long)]
    pub keep_failed: bool,
    /// Print every scenario, not only the ones that did not pass.
    #[arg(long, short)]
    pub verbose: bool,
}

#[derive(clap::Args, Debug)]
pub struct MutantsArgs {
    /// Suite to score; repeat for several (default: all).
    #[arg(long)]
    pub suite: Vec<String>,
    /// Only this mutation; repeat for several (default: the whole catalogue).
    #[arg(long)]
    pub mutation: Vec<String>,
    /// Scenarios run at once (default: number of CPUs).
    #[arg(long, short)]
    pub jobs: Option<usize>,
    /// Write the scores as JSON here.
    #[arg(long)]
    pub json: Option<PathBuf>,
    /// Name every scenario that kills each mutation.
    #[arg(long, short)]
    pub verbose: bool,
}

pub fn main() -> ExitCode {
    let cli = Cli::parse();
    if let Command::ReferenceServer { args } = cli.command {
        return toolspec_reference::main_with_args(args);
    }
    let specs = cli.specs.unwrap_or_else(default_specs_dir);
    crate::target::stop_servers_on_interrupt();
    let result = match cli.command {
        Command::Run(args) => run(&specs, *args, cli.color.for_stdout()),
        Command::List { suite } => list(&specs, &suite),
        Command::Coverage(args) => crate::coverage::command(&specs, &args),
        Command::Scaffold(args) => crate::scaffold::command(&specs, &args),
        Command::Mutants(args) => mutants(&specs, &args),
        Command::ReferenceServer { .. } => unreachable!("handled above"),
    };
    if crate::target::interrupted() {
        // The interrupt watcher is stopping the servers; finish that before leaving.
        crate::target::kill_every_session();
        return ExitCode::from(130);
    }
    result.unwrap_or_else(|errors| {
        for e in errors {
            eprintln!("error: {e}");
        }
        ExitCode::from(2)
    })
}

fn default_specs_dir() -> PathBuf {
    let local = PathBuf::from("specs");
    if local.is_dir() {
        local
    } else {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("specs")
    }
}

pub(crate) fn selected_suites(
    specs: &Path,
    names: &[String],
) -> Result<Vec<Suite>, Vec<LoadError>> {
    if names.is_empty() {
        return load_suites(specs);
    }
    let mut suites = Vec::new();
    let mut errors = Vec::new();
    for name in names {
        let dir = specs.join(name);
        if !dir.join("suite.yaml").is_file() {
            errors.push(LoadError::new(
                &dir,
                None,
                format!("no suite `{name}` (no suite.yaml there)"),
            ));
            continue;
        }
        match load_suite(&dir) {
            Ok(s) => suites.push(s),
            Err(mut e) => errors.append(&mut e),
        }
    }
    if errors.is_empty() {
        Ok(suites)
    } else {
        Err(errors)
    }
}

fn list(specs: &Path, names: &[String]) -> Result<ExitCode, Vec<LoadError>> {
    let suites = selected_suites(specs, names)?;
    for suite in &suites {
        let count = suite.scenarios().count();
        say!("{}: {} ({count} scenarios)", suite.name, suite.config.title);
        if !names.is_empty() {
            for (file, scenario) in suite.scenarios() {
                say!("  {}", suite.scenario_id(file, scenario));
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn own_exe() -> Result<PathBuf, Vec<LoadError>> {
    std::env::current_exe().map_err(|e| {
        vec![LoadError::new(
            Path::new("toolspec"),
            None,
            format!("cannot find my own executable: {e}"),
        )]
    })
}

fn mutants(specs: &Path, args: &MutantsArgs) -> Result<ExitCode, Vec<LoadError>> {
    let suites = selected_suites(specs, &args.suite)?;
    let exe = own_exe()?;
    let jobs = args.jobs.unwrap_or_else(default_jobs).max(1);
    let mut scores = Vec::new();
    let mut survived = 0;
    for suite in &suites {
        let started = Instant::now();
        let progress = |m: &crate::mutants::MutantOutcome| {
            let verdict = if m.killed() { "killed  " } else { "SURVIVED" };
            say!(
                "  {verdict} {:<32} {:>3} failing  {}",
                m.mutation.name,
                m.killed_by.len(),
                m.mutation.what
            );
            if args.verbose {
                for id in &m.killed_by {
                    say!("             by {id}");
                }
            }
        };
        say!("{}: mutating the bundled server", suite.name);
        let score = crate::mutants::score_suite(
            &exe,
            suite,
            &args.mutation,
            &RunOptions::default(),
            jobs,
            &progress,
        )
        .map_err(|e| vec![LoadError::new(&suite.dir, None, e)])?;
        if !score.not_passing.is_empty() {
            say!(
                "  note: {} scenario(s) do not pass against the honest server and cannot kill: {}",
                score.not_passing.len(),
                score.not_passing.join(", ")
            );
        }
        for m in score.survivors() {
            say!(
                "  hole: no scenario catches `{}` ({}); add one the spec justifies",
                m.mutation.name,
                m.mutation.what
            );
        }
        let total = score.mutants.len();
        survived += total - score.killed();
        say!(
            "{}: {} of {total} mutations killed ({}%) over {} scenarios in {:.1}s",
            suite.name,
            score.killed(),
            (score.killed() * 100).checked_div(total).unwrap_or(100),
            score.scenarios,
            started.elapsed().as_secs_f64()
        );
        scores.push(score);
    }
    if let Some(path) = &args.json {
        crate::report::write_mutants_json(path, &scores).map_err(|e| {
            vec![LoadError::new(
                path,
                None,
                format!("cannot write report: {e}"),
            )]
        })?;
    }
    Ok(if survived > 0 {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}

fn run(specs: &Path, args: RunArgs, colour: bool) -> Result<ExitCode, Vec<LoadError>> {
    let suites = selected_suites(specs, &args.suite)?;
    let exe = own_exe()?;
    let external = external_target(&args)?;
    if let Some(target) = &external {
        check_baseline(target, &suites, args.target.as_deref())?;
    }
    let options = RunOptions {
        call_timeout_ms: args.timeout_ms,
        keep_failed: args.keep_failed,
    };
    let jobs = args.jobs.unwrap_or_else(default_jobs).max(1);

    let mut all_reports = Vec::new();
    let mut grand = Tally::default();
    let mut target_name = String::new();
    for suite in &suites {
        let target = match &external {
            Some(t) => t.clone(),
            None => {
                let mutate: Vec<String> = args
                    .mutate
                    .iter()
                    .flat_map(|m| ["--mutate".to_string(), m.clone()])
                    .collect();
                let refs: Vec<&str> = mutate.iter().map(String::as_str).collect();
                Target::reference(&exe, suite).with_extra_args(&refs)
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
                    say!("{line}");
                }
            }
            Err(why) => say!("note: could not list `{}`'s tools: {why}", target.name),
        }
        let started = Instant::now();
        let show = Show {
            verbose: args.verbose,
            colour,
        };
        let print = |report: &ScenarioReport| {
            if show.verbose || Standing::of(report).breaks_the_run() {
                let text = report.to_string();
                if show.colour {
                    say_raw!("{}", paint(&text));
                } else {
                    say_raw!("{text}");
                }
            }
        };
        let reports = run_scenarios(suite, &work, &target, &options, jobs, &print);
        let tally = Tally::of(&reports);
        let known = if tally.known + tally.stale > 0 {
            format!(
                ", {} known failures, {} stale baseline entries",
                tally.known, tally.stale
            )
        } else {
            String::new()
        };
        say!(
            "{}: {} PASS, {} FAIL, {} ERROR, {} SKIP{known} in {:.1}s (target: {})",
            suite.name,
            tally.passed,
            tally.failed,
            tally.errored,
            tally.skipped,
            started.elapsed().as_secs_f64(),
            target.name
        );
        grand.add(&tally);
        all_reports.extend(reports);
    }
    say!(
        "{} passed, {} failed, {} skipped",
        grand.passed + grand.known,
        grand.failed + grand.errored + grand.stale,
        grand.skipped
    );
    write_reports(&args, &target_name, &all_reports)?;
    Ok(if grand.breaks_the_run() {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}

/// The target named by `--target` or `--server`, if any (else the bundled server).
fn external_target(args: &RunArgs) -> Result<Option<Target>, Vec<LoadError>> {
    if let Some(path) = &args.target {
        return load_target_file(path).map(Some).map_err(|e| vec![e]);
    }
    match &args.server {
        Some(line) => Target::from_command_line(line)
            .map(Some)
            .map_err(|e| vec![LoadError::new(Path::new("--server"), None, e)]),
        None => Ok(None),
    }
}

/// A baseline entry that names no scenario of a selected suite is a typo or a
/// leftover from a renamed scenario: refuse it rather than silently ignore it.
fn check_baseline(
    target: &Target,
    suites: &[Suite],
    file: Option<&Path>,
) -> Result<(), Vec<LoadError>> {
    let ids: std::collections::BTreeSet<String> = suites
        .iter()
        .flat_map(|s| s.scenarios().map(move |(f, sc)| s.scenario_id(f, sc)))
        .collect();
    let selected: Vec<&str> = suites.iter().map(|s| s.name.as_str()).collect();
    let where_ = file.unwrap_or(Path::new("--target"));
    let errors: Vec<LoadError> = target
        .baseline
        .iter()
        .filter(|id| selected.contains(&id.split("::").next().unwrap_or_default()))
        .filter(|id| !ids.contains(*id))
        .map(|id| {
            LoadError::new(
                where_,
                None,
                format!("baseline names no scenario: `{id}`; fix or remove it"),
            )
        })
        .collect();
    if errors.is_empty() {
        Ok(())
    } else {
        Err(errors)
    }
}

fn write_reports(
    args: &RunArgs,
    target: &str,
    reports: &[ScenarioReport],
) -> Result<(), Vec<LoadError>> {
    let fail = |path: &Path, e: std::io::Error| {
        vec![LoadError::new(
            path,
            None,
            format!("cannot write report: {e}"),
        )]
    };
    if let Some(path) = &args.junit {
        report::write_junit(path, target, reports).map_err(|e| fail(path, e))?;
    }
    if let Some(path) = &args.json {
        report::write_json(path, target, reports).map_err(|e| fail(path, e))?;
    }
    if let Some(path) = &args.markdown {
        report::write_markdown(path, target, reports).map_err(|e| fail(path, e))?;
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
        std::fs::write(path, text).map_err(|e| fail(path, e))?;
    }
    Ok(())
}

/// What to print while scenarios run.
#[derive(Debug, Clone, Copy)]
struct Show {
    /// Every scenario, not only the ones that break the run.
    verbose: bool,
    colour: bool,
}
