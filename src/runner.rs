//! Scenarios as libtest-mimic trials, so `cargo test` and `cargo nextest run` drive
//! them with the usual filters, `--list`, `--exact` and partitions.
//!
//! Trial names are `suite::file::scenario`: stable across runs, because they come from
//! the files and not from their order. Because nextest owns the test binary's argv,
//! the target is chosen by environment: `TOOLSPEC_SERVER='cmd args {root}'` points the
//! trials at any stdio MCP server instead of the bundled one.

use std::path::Path;
use std::process::ExitCode;
use std::sync::Arc;

use libtest_mimic::{Arguments, Failed, Trial};

use crate::execute::{run_scenario, RunOptions};
use crate::report::Standing;
use crate::scenario::{load_suites, Suite};
use crate::server::{load_target_file, Target};

/// Environment variable naming an external stdio server command line.
pub const SERVER_ENV: &str = "TOOLSPEC_SERVER";
/// Environment variable naming a target file (takes precedence over `TOOLSPEC_SERVER`).
pub const TARGET_ENV: &str = "TOOLSPEC_TARGET";
/// Environment variable that, set to anything but `0`, keeps failed fixtures.
pub const KEEP_ENV: &str = "TOOLSPEC_KEEP_FAILED";
/// Environment variable overriding every per-call timeout, in milliseconds.
pub const TIMEOUT_ENV: &str = "TOOLSPEC_CALL_TIMEOUT_MS";

/// The `main` of a `harness = false` test: every scenario under `specs_dir` against
/// the reference server in `toolspec_exe`, or the server named by `TOOLSPEC_TARGET`
/// or `TOOLSPEC_SERVER`.
pub fn conformance_main(specs_dir: &Path, toolspec_exe: &Path) -> ExitCode {
    main_with(specs_dir, |suite| Target::reference(toolspec_exe, suite))
}

/// The `main` of a `harness = false` test in an implementer's own repository: every
/// scenario under `specs_dir` against `target` (for example built from
/// `env!("CARGO_BIN_EXE_my-server")`), unless `TOOLSPEC_TARGET` or `TOOLSPEC_SERVER`
/// names another.
pub fn target_main(specs_dir: &Path, target: Target) -> ExitCode {
    main_with(specs_dir, |_| target.clone())
}

fn main_with(specs_dir: &Path, default_target: impl Fn(&Suite) -> Target) -> ExitCode {
    let args = Arguments::from_args();
    let suites = match load_suites(specs_dir) {
        Ok(s) => s,
        Err(errors) => {
            for e in errors {
                eprintln!("error: {e}");
            }
            return ExitCode::from(2);
        }
    };
    let external = match external_target() {
        Ok(t) => t,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let options = RunOptions {
        call_timeout_ms: std::env::var(TIMEOUT_ENV).ok().and_then(|v| v.parse().ok()),
        scenario_timeout_ms: None,
        keep_failed: std::env::var_os(KEEP_ENV).is_some_and(|v| !v.is_empty() && v != "0"),
    };
    let trials = trials(
        suites,
        |suite| match &external {
            Some(t) => t.clone(),
            None => default_target(suite),
        },
        options,
    );
    crate::server::stop_servers_on_interrupt();
    libtest_mimic::run(&args, trials).exit_code()
}

/// One trial per scenario of every suite, each against the target `target_for` gives.
pub(crate) fn trials(
    suites: Vec<Suite>,
    target_for: impl Fn(&Suite) -> Target,
    options: RunOptions,
) -> Vec<Trial> {
    let mut trials = Vec::new();
    for suite in suites {
        let target = Arc::new(target_for(&suite));
        let suite = Arc::new(suite);
        for (file_index, file) in suite.files.iter().enumerate() {
            for (index, scenario) in file.content.scenarios.iter().enumerate() {
                let id = suite.scenario_id(file, scenario);
                let skip = target.unsupported(&scenario.given.settings).is_some();
                let (suite, target, options) = (suite.clone(), target.clone(), options.clone());
                let trial = Trial::test(id, move || {
                    let file = &suite.files[file_index];
                    let scenario = &file.content.scenarios[index];
                    let report = run_scenario(&suite, &file.stem, scenario, &target, &options);
                    if Standing::of(&report).breaks_the_run() {
                        Err(Failed::from(report.to_string()))
                    } else {
                        Ok(())
                    }
                })
                .with_ignored_flag(skip);
                trials.push(trial);
            }
        }
    }
    trials
}

/// The target from `TOOLSPEC_TARGET` or `TOOLSPEC_SERVER`, if either is set.
fn external_target() -> Result<Option<Target>, String> {
    if let Some(path) = std::env::var_os(TARGET_ENV).filter(|v| !v.is_empty()) {
        return load_target_file(Path::new(&path))
            .map(Some)
            .map_err(|e| format!("{TARGET_ENV}: {e}"));
    }
    match std::env::var(SERVER_ENV) {
        Ok(line) if !line.trim().is_empty() => Target::from_command_line(&line)
            .map(Some)
            .map_err(|e| format!("{SERVER_ENV}: {e}")),
        _ => Ok(None),
    }
}
