//! Scenarios as libtest-mimic trials, so `cargo test` and `cargo nextest run` drive
//! them with the usual filters, `--list`, `--exact` and partitions.
//!
//! Trial names are `suite::file::scenario`: stable across runs, because they come from
//! the files and not from their order. Because nextest owns the test binary's argv,
//! the target is chosen by environment: `TOOLSPEC_SERVER='cmd args {root}'` points the
//! trials at any stdio MCP server instead of the bundled one.

use std::collections::BTreeSet;
use std::path::Path;
use std::process::ExitCode;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use libtest_mimic::{Arguments, Completion, Failed, Trial};

use crate::execute::{run_scenario, RunOptions, ScenarioReport, Verdict};
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
        repeat: 1,
    };
    // The bundled server lists every tool of its suite, so only an external target
    // is asked for its tool list (once per suite, by the first trial that runs).
    let ask_for_tools = external.is_some();
    let trials = trials(
        suites,
        |suite| {
            match &external {
                Some(t) => t.clone(),
                None => default_target(suite),
            }
            .sandboxed_where_possible()
        },
        options,
        ask_for_tools,
    );
    crate::server::contain_the_run();
    let conclusion = libtest_mimic::run(&args, trials);
    crate::server::end_what_escaped();
    conclusion.exit_code()
}

/// One trial per scenario of every suite, each against the target `target_for` gives.
/// With `ask_for_tools`, the first trial of a suite to run asks the server for its
/// tool list, and a scenario calling a suite tool it lacks is UNSUPPORTED, which
/// does not fail its test, as under `toolspec run`.
pub(crate) fn trials(
    suites: Vec<Suite>,
    target_for: impl Fn(&Suite) -> Target,
    options: RunOptions,
    ask_for_tools: bool,
) -> Vec<Trial> {
    let mut trials = Vec::new();
    for suite in suites {
        let target = Arc::new(target_for(&suite));
        let listed: Arc<OnceLock<Option<BTreeSet<String>>>> = Arc::new(OnceLock::new());
        let suite = Arc::new(suite);
        for (file_index, file) in suite.files.iter().enumerate() {
            for (index, scenario) in file.content.scenarios.iter().enumerate() {
                let id = suite.scenario_id(file, scenario);
                let (suite, target, options, listed) = (
                    suite.clone(),
                    target.clone(),
                    options.clone(),
                    listed.clone(),
                );
                let trial = Trial::ignorable_test(id, move || {
                    let file = &suite.files[file_index];
                    let scenario = &file.content.scenarios[index];
                    let listed = listed.get_or_init(|| {
                        ask_for_tools.then(|| listed_tools(&suite, &target, &options))?
                    });
                    let report = run_scenario(
                        &suite,
                        &file.stem,
                        scenario,
                        &target,
                        &options,
                        listed.as_ref(),
                    );
                    completion(&report)
                });
                trials.push(trial);
            }
        }
    }
    trials
}

/// How a scenario's report shows under libtest: a failure with its report, a pass,
/// or "ignored" with the reason for one that was not judged (SKIP, UNSUPPORTED) or
/// whose failure the baseline excuses, so none of them reads as a plain pass.
fn completion(report: &ScenarioReport) -> Result<Completion, Failed> {
    let standing = Standing::of(report);
    if standing.breaks_the_run() {
        return Err(Failed::from(report.to_string()));
    }
    Ok(match (standing, &report.verdict) {
        (Standing::Skipped, Verdict::Skip(why)) => Completion::ignored_with(format!("SKIP: {why}")),
        (Standing::Unsupported, Verdict::Unsupported(why)) => {
            Completion::ignored_with(format!("UNSUPPORTED: {why}"))
        }
        (Standing::New, verdict) => Completion::ignored_with(format!(
            "NEW: {} in a scenario newer than the pinned suite version",
            verdict.label()
        )),
        (Standing::KnownFailure, verdict) => Completion::ignored_with(format!(
            "KNOWN: the baseline excuses its {}",
            verdict.label()
        )),
        _ => Completion::Completed,
    })
}

/// The tools `target` lists, or None (and every scenario runs) when they cannot be
/// read.
fn listed_tools(suite: &Suite, target: &Target, options: &RunOptions) -> Option<BTreeSet<String>> {
    let timeout = Duration::from_millis(
        options
            .call_timeout_ms
            .unwrap_or(suite.config.call_timeout_ms),
    );
    crate::server::preflight::check(suite, target, timeout)
        .ok()
        .map(|gaps| gaps.listed)
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

#[cfg(test)]
mod tests {

    use super::*;
    use crate::execute::Excuse;
    use crate::judge::Mismatch;

    fn report(verdict: Verdict, excuse: Excuse) -> ScenarioReport {
        ScenarioReport {
            excuse,
            ..ScenarioReport::blank("s::f::x", verdict)
        }
    }

    fn ignored_reason(report: &ScenarioReport) -> Option<String> {
        match completion(report) {
            Ok(Completion::Ignored { reason }) => reason,
            Ok(Completion::Completed) => Some("<completed>".into()),
            Err(_) => Some("<failed>".into()),
        }
    }

    #[test]
    fn what_was_not_judged_or_is_excused_is_ignored_with_its_reason() {
        let skip = report(Verdict::Skip("requires non-root".into()), Excuse::None);
        assert_eq!(
            ignored_reason(&skip).as_deref(),
            Some("SKIP: requires non-root")
        );
        let lacking = report(Verdict::Unsupported("no `bash`".into()), Excuse::None);
        assert_eq!(
            ignored_reason(&lacking).as_deref(),
            Some("UNSUPPORTED: no `bash`")
        );
        let fail = || Verdict::Fail(vec![Mismatch::new("code", "x").keyed("code")]);
        let known = report(fail(), Excuse::Whole);
        assert_eq!(
            ignored_reason(&known).as_deref(),
            Some("KNOWN: the baseline excuses its FAIL")
        );
        assert!(matches!(
            completion(&report(Verdict::Pass, Excuse::None)),
            Ok(Completion::Completed)
        ));
        assert!(completion(&report(fail(), Excuse::None)).is_err());
    }
}
