//! `toolspec matrix`: one suite across several servers, as a folder a CI job can
//! publish: the results page (`index.html`), `matrix.json`, `matrix.md` (for a job
//! summary) and a badge per server. From JSON reports already written
//! (`--from-json`), or by running the suite against each `--target` first, each
//! run a `toolspec run` of its own, as many at once as the machine has cores.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use super::error::CliError;
use super::outcome::Outcome;
use super::output::say;
use crate::execute::parallel::default_jobs;
use crate::report::matrix::clause_order;
use crate::report::matrix::{
    badge_svg, file_stem, matrix_json, matrix_markdown, percent, Column, Matrix,
};
use crate::report::{html_page, read_json};

/// `toolspec matrix`.
#[derive(clap::Args, Debug)]
pub(crate) struct MatrixArgs {
    /// JSON reports already written (`run --json`), one column each.
    #[arg(long, num_args = 1.., required_unless_present = "target", conflicts_with_all = ["target", "suite"])]
    from_json: Vec<PathBuf>,
    /// The suite to run against every target; repeat for several.
    #[arg(long, requires = "target")]
    suite: Vec<String>,
    /// A target file (as for `run --target`); repeat, one column each.
    #[arg(long, requires = "suite")]
    target: Vec<PathBuf>,
    /// Only scenarios whose id contains this text (passed to each run).
    #[arg(long, requires = "target")]
    filter: Option<String>,
    /// The folder to write into (made if missing).
    #[arg(long)]
    out: PathBuf,
    /// The page's heading (default: the suites and how many servers).
    #[arg(long)]
    title: Option<String>,
    /// Scenarios run at once across all runs (default: number of CPUs).
    #[arg(long, short)]
    jobs: Option<usize>,
    /// Run every server without isolation (docs/isolation.md): each run is a `run
    /// --no-isolation`, whose report's `isolation` is empty.
    #[arg(long, requires = "target")]
    no_isolation: bool,
}

pub(crate) fn matrix(args: &MatrixArgs, specs: Option<&Path>) -> Result<Outcome, CliError> {
    let failed = |what: &Path| {
        let path = what.to_path_buf();
        move |source| CliError::WriteReport { path, source }
    };
    std::fs::create_dir_all(args.out.join("badges")).map_err(failed(&args.out))?;
    let reports = if args.target.is_empty() {
        args.from_json.clone()
    } else {
        run_targets(args, specs)?
    };
    let mut columns: Vec<Column> = Vec::new();
    for path in &reports {
        let (run, scenario_reports) = read_json(path)?;
        let mut name = run.target.clone();
        if columns.iter().any(|c| c.name == name) {
            let stem = path.file_stem().unwrap_or_default().to_string_lossy();
            name = format!("{name} ({stem})");
        }
        columns.push(Column::new(name, run, scenario_reports));
    }
    let mut names: Vec<String> = Vec::new();
    for column in &columns {
        for suite in &column.run.suites {
            if !names.contains(&suite.name) {
                names.push(suite.name.clone());
            }
        }
    }
    let (order, unknown) = clause_order(specs, &names);
    for name in unknown {
        say(format_args!(
            "note: no clause index of suite `{name}` here; its rows are in the reports' order"
        ));
    }
    let mut matrix = Matrix::new(String::new(), columns, &order);
    matrix.title = args.title.clone().unwrap_or_else(|| {
        format!(
            "toolspec: {} across {} server(s)",
            matrix.suites().join(", "),
            matrix.columns.len()
        )
    });
    let write = |name: &str, text: &str| {
        let path = args.out.join(name);
        std::fs::write(&path, text).map_err(failed(&path))
    };
    write("index.html", &html_page(&matrix))?;
    let json = matrix_json(&matrix).map_err(failed(&args.out.join("matrix.json")))?;
    write("matrix.json", &json)?;
    write("matrix.md", &matrix_markdown(&matrix))?;
    for c in &matrix.columns {
        write(&format!("badges/{}.svg", c.stem), &badge_svg(&c.tally.spec))?;
        write(
            &format!("badges/{}.json", c.stem),
            &crate::report::matrix::shields_endpoint(&c.tally.spec),
        )?;
        say(format_args!(
            "{}: spec {} ({}), upstream {} ({}); {}",
            c.name,
            c.tally.spec,
            percent(&c.tally.spec),
            c.tally.upstream,
            percent(&c.tally.upstream),
            c.tally.counts_line()
        ));
    }
    say(format_args!(
        "wrote {} (index.html, matrix.json, matrix.md, badges/)",
        args.out.display()
    ));
    Ok(Outcome::Held)
}

/// Runs the suites against every target, each as `toolspec run --json` into
/// `OUT/runs/`, and returns the reports' paths in the targets' order.
fn run_targets(args: &MatrixArgs, specs: Option<&Path>) -> Result<Vec<PathBuf>, CliError> {
    let exe = std::env::current_exe().map_err(CliError::OwnExecutable)?;
    let runs = args.out.join("runs");
    std::fs::create_dir_all(&runs).map_err(|source| CliError::WriteReport {
        path: runs.clone(),
        source,
    })?;
    let jobs = args.jobs.unwrap_or_else(default_jobs).max(1);
    let at_once = jobs.min(args.target.len()).max(1);
    let per_run = (jobs / at_once).max(1);
    let planned: Vec<(PathBuf, PathBuf)> = args
        .target
        .iter()
        .enumerate()
        .map(|(i, target)| {
            let stem = file_stem(&target.file_stem().unwrap_or_default().to_string_lossy());
            (target.clone(), runs.join(format!("{}-{stem}", i + 1)))
        })
        .collect();
    let next = AtomicUsize::new(0);
    let problems: Mutex<Vec<String>> = Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for _ in 0..at_once {
            scope.spawn(|| loop {
                let at = next.fetch_add(1, Ordering::SeqCst);
                let Some((target, base)) = planned.get(at) else {
                    break;
                };
                if let Err(why) = run_one(&exe, specs, args, target, base, per_run) {
                    if let Ok(mut list) = problems.lock() {
                        list.push(why);
                    }
                }
            });
        }
    });
    let problems = problems.into_inner().unwrap_or_default();
    if !problems.is_empty() {
        return Err(CliError::Matrix(problems.join("\n")));
    }
    Ok(planned
        .into_iter()
        .map(|(_, base)| base.with_extension("json"))
        .collect())
}

/// One `toolspec run` of the suites against `target`: its JSON report at
/// `base.json`, its console output at `base.log`. A run that judged (exit 0 or 1)
/// is fine; one that could not run is an error naming its log.
fn run_one(
    exe: &Path,
    specs: Option<&Path>,
    args: &MatrixArgs,
    target: &Path,
    base: &Path,
    jobs: usize,
) -> Result<(), String> {
    let log_path = base.with_extension("log");
    let log = std::fs::File::create(&log_path)
        .map_err(|e| format!("cannot write {}: {e}", log_path.display()))?;
    let err_log = log
        .try_clone()
        .map_err(|e| format!("cannot write {}: {e}", log_path.display()))?;
    let mut command = Command::new(exe);
    if let Some(specs) = specs {
        command.arg("--specs").arg(specs);
    }
    command.args(["--color", "never", "run", "--allow-empty", "-j"]);
    command.arg(jobs.to_string());
    for suite in &args.suite {
        command.arg("--suite").arg(suite);
    }
    if let Some(filter) = &args.filter {
        command.arg("--filter").arg(filter);
    }
    if args.no_isolation {
        command.arg("--no-isolation");
    }
    command
        .arg("--target")
        .arg(target)
        .arg("--json")
        .arg(base.with_extension("json"))
        .stdin(std::process::Stdio::null())
        .stdout(log)
        .stderr(err_log);
    let status = command
        .status()
        .map_err(|e| format!("cannot start `{}`: {e}", exe.display()))?;
    match status.code() {
        Some(0 | 1) => Ok(()),
        _ => {
            let tail = std::fs::read_to_string(&log_path).unwrap_or_default();
            let tail: Vec<&str> = tail.lines().rev().take(5).collect();
            let tail: Vec<&str> = tail.into_iter().rev().collect();
            Err(format!(
                "the run against {} ended with {status} (log: {}):\n{}",
                target.display(),
                log_path.display(),
                crate::visible::inert(&tail.join("\n"))
            ))
        }
    }
}
