//! The `toolspec` command line: run suites, list scenarios, serve the reference.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Instant;

use clap::{Parser, Subcommand};

use crate::execute::{run_scenario, RunOptions, ScenarioReport, Verdict};
use crate::scenario::{load_suite, load_suites, LoadError, Suite};
use crate::target::StdioTarget;

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
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Run suites against a server and print a summary; exits 1 on any FAIL or ERROR.
    Run(RunArgs),
    /// List suites, or the scenarios of the suites named.
    List {
        #[arg(long)]
        suite: Vec<String>,
    },
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
    #[arg(long)]
    pub server: Option<String>,
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
    #[arg(long)]
    pub mutate: Vec<String>,
    /// Print every scenario, not only the ones that did not pass.
    #[arg(long, short)]
    pub verbose: bool,
}

pub fn main() -> ExitCode {
    let cli = Cli::parse();
    if let Command::ReferenceServer { args } = cli.command {
        return toolspec_reference::main_with_args(args);
    }
    let specs = cli.specs.unwrap_or_else(default_specs_dir);
    let result = match cli.command {
        Command::Run(args) => run(&specs, args),
        Command::List { suite } => list(&specs, &suite),
        Command::ReferenceServer { .. } => unreachable!("handled above"),
    };
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

fn selected_suites(specs: &Path, names: &[String]) -> Result<Vec<Suite>, Vec<LoadError>> {
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
        println!("{}: {} ({count} scenarios)", suite.name, suite.config.title);
        if !names.is_empty() {
            for (file, scenario) in suite.scenarios() {
                println!("  {}", suite.scenario_id(file, scenario));
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn run(specs: &Path, args: RunArgs) -> Result<ExitCode, Vec<LoadError>> {
    let suites = selected_suites(specs, &args.suite)?;
    let exe = std::env::current_exe().map_err(|e| {
        vec![LoadError::new(
            Path::new("toolspec"),
            None,
            format!("cannot find my own executable: {e}"),
        )]
    })?;
    let external = match &args.server {
        Some(line) => Some(
            StdioTarget::from_command_line(line)
                .map_err(|e| vec![LoadError::new(Path::new("--server"), None, e)])?,
        ),
        None => None,
    };
    let options = RunOptions {
        call_timeout_ms: args.timeout_ms,
    };
    let jobs = args
        .jobs
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(2, |n| n.get()))
        .max(1);

    let mut any_bad = false;
    let mut grand = Tally::default();
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
                StdioTarget::reference(&exe, suite).with_extra_args(&refs)
            }
        };
        let work: Vec<_> = suite
            .scenarios()
            .filter(|(f, s)| {
                args.filter
                    .as_ref()
                    .is_none_or(|needle| suite.scenario_id(f, s).contains(needle.as_str()))
            })
            .collect();
        let started = Instant::now();
        let reports = run_parallel(suite, &work, &target, &options, jobs, args.verbose);
        let tally = Tally::of(&reports);
        println!(
            "{}: {} PASS, {} FAIL, {} ERROR, {} SKIP in {:.1}s (target: {})",
            suite.name,
            tally.pass,
            tally.fail,
            tally.error,
            tally.skip,
            started.elapsed().as_secs_f64(),
            target.name
        );
        any_bad |= tally.fail + tally.error > 0;
        grand.add(&tally);
    }
    println!(
        "{} passed, {} failed, {} skipped",
        grand.pass,
        grand.fail + grand.error,
        grand.skip
    );
    Ok(if any_bad {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}

/// Runs scenarios on `jobs` threads, printing each report that did not pass as it
/// arrives, and returns all reports in scenario order.
fn run_parallel(
    suite: &Suite,
    work: &[(
        &crate::scenario::SuiteScenarioFile,
        &crate::scenario::Scenario,
    )],
    target: &StdioTarget,
    options: &RunOptions,
    jobs: usize,
    verbose: bool,
) -> Vec<ScenarioReport> {
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<ScenarioReport>>> = Mutex::new(vec![None; work.len()]);
    std::thread::scope(|scope| {
        for _ in 0..jobs.min(work.len().max(1)) {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some((file, scenario)) = work.get(i) else {
                    break;
                };
                let report = run_scenario(suite, &file.stem, scenario, target, options);
                if verbose || matches!(report.verdict, Verdict::Fail(_) | Verdict::Error { .. }) {
                    print!("{report}");
                }
                if let Ok(mut r) = results.lock() {
                    r[i] = Some(report);
                }
            });
        }
    });
    results
        .into_inner()
        .unwrap_or_default()
        .into_iter()
        .flatten()
        .collect()
}

#[derive(Debug, Default, Clone, Copy)]
struct Tally {
    pass: usize,
    fail: usize,
    error: usize,
    skip: usize,
}

impl Tally {
    fn of(reports: &[ScenarioReport]) -> Tally {
        let mut t = Tally::default();
        for r in reports {
            match r.verdict {
                Verdict::Pass => t.pass += 1,
                Verdict::Fail(_) => t.fail += 1,
                Verdict::Error { .. } => t.error += 1,
                Verdict::Skip(_) => t.skip += 1,
            }
        }
        t
    }

    fn add(&mut self, other: &Tally) {
        self.pass += other.pass;
        self.fail += other.fail;
        self.error += other.error;
        self.skip += other.skip;
    }
}
