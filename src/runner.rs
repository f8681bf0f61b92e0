//! Scenarios as libtest-mimic trials, so `cargo test` and `cargo nextest run` drive
//! them with the usual filters, `--list`, `--exact` and partitions.
//!
//! Trial names are `suite::file::scenario`: stable across runs, because they come from
//! the files and not from their order. Because nextest owns the test binary's argv,
//! the target is chosen by environment: `TOOLSPEC_SERVER='cmd args {root}'` points the
//! trials at any stdio MCP server instead of the bundled one.
//!
//! A scenario that cannot run here whatever the server says (a `requires:` the
//! machine does not meet, a setting the target cannot express) is marked ignored when
//! the trials are listed, so both `cargo test` and nextest count it as ignored or
//! skipped, not passed. What is only known by running (UNSUPPORTED, KNOWN, NEW) ends
//! as libtest's runtime "ignored" with its reason, which `cargo test` shows; nextest
//! reads only the exit code, so there they count as passed (`docs/architecture.md`).

use std::collections::BTreeSet;
use std::path::Path;
use std::process::ExitCode;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use libtest_mimic::{Arguments, Completion, Failed, Trial};

use crate::author::bless::gathered::Gathered;
use crate::author::bless::{BlessMode, BLESS_ENV};
use crate::execute::cache_folder::cache_file_here;
use crate::execute::durations::{self, Durations};
use crate::execute::schedule::{StartOrder, BUNDLED_WORKERS_PER_CORE};
use crate::execute::standing::Standing;
use crate::execute::{run_scenario, skip_reason, RunOptions, ScenarioReport, Verdict};
use crate::proof::freedoms::{self, FalseAnswer};
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
/// Set (to `1`) by cargo-nextest in every test process it runs.
const NEXTEST_ENV: &str = "NEXTEST";

/// The `main` of a `harness = false` test: every scenario under `specs_dir` against
/// the reference server in `toolspec_exe`, or the server named by `TOOLSPEC_TARGET`
/// or `TOOLSPEC_SERVER`.
pub fn conformance_main(specs_dir: &Path, toolspec_exe: &Path) -> ExitCode {
    main_with(specs_dir, false, |suite| {
        Target::reference(toolspec_exe, suite)
    })
}

/// The `main` of a `harness = false` test in an implementer's own repository: every
/// scenario under `specs_dir` against `target` (for example built from
/// `env!("CARGO_BIN_EXE_my-server")`), unless `TOOLSPEC_TARGET` or `TOOLSPEC_SERVER`
/// names another.
///
/// With `TOOLSPEC_BLESS=diff` (or `write`), the scenarios that fail are blessed
/// after the trials, as `toolspec run --bless` does: each file's change printed
/// (and written), and the test passes when every failure was blessed and written.
pub fn target_main(specs_dir: &Path, target: Target) -> ExitCode {
    main_with(specs_dir, true, |_| target.clone())
}

/// `may_bless`: `TOOLSPEC_BLESS` may edit the suites under `specs_dir` (an
/// implementer's own; never the suites this repository builds in).
fn main_with(
    specs_dir: &Path,
    may_bless: bool,
    default_target: impl Fn(&Suite) -> Target,
) -> ExitCode {
    // First, while the test binary runs one thread and is small (`spawner.rs`).
    crate::server::start_spawner();
    let bless_mode = match BlessMode::from_env() {
        Ok(Some(_)) if !may_bless => {
            eprintln!(
                "error: {BLESS_ENV}: these are the suites toolspec builds in, which are never \
                 blessed; write them out with `toolspec suites export DIR` and bless the copy"
            );
            return ExitCode::from(2);
        }
        Ok(mode) => mode,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let gathered = bless_mode.map(|_| Arc::new(Mutex::new(Gathered::default())));
    let mut args = Arguments::from_args();
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
    // The bundled server is the default only of a suite that says how to start it.
    let without_reference = suites.iter().find(|s| s.config.reference.is_none());
    if let (None, false, Some(suite)) = (&external, may_bless, without_reference) {
        eprintln!(
            "error: suite `{}` has no reference server (its suite.yaml has no `reference:`): \
             name the server to run it against with {TARGET_ENV} or {SERVER_ENV}",
            suite.name
        );
        return ExitCode::from(2);
    }
    let options = RunOptions {
        call_timeout_ms: std::env::var(TIMEOUT_ENV).ok().and_then(|v| v.parse().ok()),
        scenario_timeout_ms: None,
        keep_failed: std::env::var_os(KEEP_ENV).is_some_and(|v| !v.is_empty() && v != "0"),
        repeat: 1,
        // Against the bundled server, a spec scenario must also pass the answers
        // derived from the reference's own along its clause's freedoms.
        keep_judged: external.is_none(),
    };
    // The bundled server lists every tool of its suite, so only an external target
    // is asked for its tool list (once per suite, by the first trial that runs).
    let ask_for_tools = external.is_some();
    args.test_threads = args
        .test_threads
        .or_else(|| trial_threads(external.is_none()));
    let under_nextest = std::env::var_os(NEXTEST_ENV).is_some_and(|v| v == "1");
    // nextest runs one trial a process, each of which would write the whole file.
    let durations_file = (!under_nextest && !args.list)
        .then(|| cache_file_here(durations::FILE_NAME))
        .flatten();
    let measured = Arc::new(Mutex::new(Durations::default()));
    let trials = trials(
        suites,
        |suite| match &external {
            Some(t) => t.clone(),
            None => default_target(suite),
        },
        options.clone(),
        ask_for_tools,
        under_nextest,
        &measured,
        gathered.clone(),
    );
    if !args.list {
        print_skipped(&args, &trials);
    }
    let trials = match &durations_file {
        Some(file) => slow_first(trials, &Durations::load(file)),
        None => trials.into_iter().map(|t| t.trial).collect(),
    };
    crate::server::contain_the_run();
    let conclusion = libtest_mimic::run(&args, trials);
    let blessed = match (bless_mode, gathered) {
        (Some(mode), Some(gathered)) if !args.list => {
            let gathered = match gathered.lock() {
                Ok(mut g) => std::mem::take(&mut *g),
                Err(poisoned) => std::mem::take(&mut *poisoned.into_inner()),
            };
            Some(gathered.bless(&options, mode))
        }
        _ => None,
    };
    crate::server::end_what_escaped();
    crate::server::stop_spawner();
    if let (Some(file), Ok(mut measured)) = (&durations_file, measured.lock()) {
        // A cache, as under `toolspec run`: one that cannot be kept only starts
        // the next run slower.
        let _ = std::mem::take(&mut *measured).save(file);
    }
    match blessed {
        Some(true) => ExitCode::SUCCESS,
        _ => conclusion.exit_code(),
    }
}

/// The trials in the order to start them: those known to be slow from their last
/// run first, slowest first, as `toolspec run` starts them (`execute::schedule`).
/// libtest-mimic starts trials in the order it is given them and prints each as it
/// ends, so a scenario that waits a second on purpose no longer starts last and
/// holds the run open alone.
fn slow_first(trials: Vec<ScenarioTrial>, last: &Durations) -> Vec<Trial> {
    let expected: Vec<Option<Duration>> = trials
        .iter()
        .map(|t| last.of(&t.target_name, t.trial.name()))
        .collect();
    let start = StartOrder::slow_first(&expected);
    let mut slots: Vec<Option<Trial>> = trials.into_iter().map(|t| Some(t.trial)).collect();
    start
        .order
        .iter()
        .filter_map(|&index| slots.get_mut(index).and_then(Option::take))
        .collect()
}

/// How many scenarios run at once when `--test-threads` does not say:
/// `RUST_TEST_THREADS` as libtest reads it, else, against the bundled server,
/// [`BUNDLED_WORKERS_PER_CORE`] a core, as `toolspec run` (`execute::schedule`).
/// The bundled server answers in well under a millisecond, so its scenarios spend
/// their time waiting: on a background task
/// they gave a second to finish, on a timeout they provoke. One a core would leave
/// the cores idle through those waits. An external server may be heavy to start
/// (a Node program takes a second of CPU), so it gets libtest's one a core.
fn trial_threads(bundled_server: bool) -> Option<usize> {
    if let Some(threads) = std::env::var("RUST_TEST_THREADS")
        .ok()
        .and_then(|v| v.trim().parse::<usize>().ok())
        .filter(|&n| n > 0)
    {
        return Some(threads);
    }
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    bundled_server.then_some(cores * BUNDLED_WORKERS_PER_CORE)
}

/// A scenario as a libtest trial, and why it is ignored before it runs, if it is.
pub(crate) struct ScenarioTrial {
    pub(crate) trial: Trial,
    pub(crate) skip: Option<String>,
    /// The name of the target it runs against, under which its duration is kept.
    pub(crate) target_name: String,
}

/// Says on stderr why each trial this run selects but leaves out as ignored is
/// ignored: libtest-mimic prints a bare `ignored` for a trial ignored before it runs.
fn print_skipped(args: &Arguments, trials: &[ScenarioTrial]) {
    let skipped: Vec<(&str, &str)> = trials
        .iter()
        .filter(|t| !args.is_filtered_out(&t.trial) && args.is_ignored(&t.trial))
        .filter_map(|t| Some((t.trial.name(), t.skip.as_deref()?)))
        .collect();
    if skipped.is_empty() {
        return;
    }
    eprintln!(
        "note: {} scenario{} cannot run here and {} listed as ignored (SKIP):",
        skipped.len(),
        if skipped.len() == 1 { "" } else { "s" },
        if skipped.len() == 1 { "is" } else { "are" }
    );
    for (name, why) in skipped {
        eprintln!("  {name}: {why}");
    }
}

/// One trial per scenario of every suite, each against the target `target_for` gives.
/// With `ask_for_tools`, the first trial of a suite to run asks the server for its
/// tool list, and a scenario calling a suite tool it lacks is UNSUPPORTED, which
/// does not fail its test, as under `toolspec run`. A scenario that cannot run here
/// ([`skip_reason`]) is marked ignored; `under_nextest`, such a scenario run anyway
/// (`--run-ignored`) fails with its reason, since nextest would show it as passed.
pub(crate) fn trials(
    suites: Vec<Suite>,
    target_for: impl Fn(&Suite) -> Target,
    options: RunOptions,
    ask_for_tools: bool,
    under_nextest: bool,
    measured: &Arc<Mutex<Durations>>,
    gathered: Option<Arc<Mutex<Gathered>>>,
) -> Vec<ScenarioTrial> {
    let mut trials = Vec::new();
    for suite in suites {
        let target = Arc::new(target_for(&suite));
        let listed: Arc<OnceLock<Option<BTreeSet<String>>>> = Arc::new(OnceLock::new());
        let suite = Arc::new(suite);
        for (file_index, file) in suite.files.iter().enumerate() {
            for (index, scenario) in file.content.scenarios.iter().enumerate() {
                let id = suite.scenario_id(file, scenario);
                let skip = skip_reason(scenario, &target);
                let (suite, target, options, listed, measured, gathered) = (
                    suite.clone(),
                    target.clone(),
                    options.clone(),
                    listed.clone(),
                    measured.clone(),
                    gathered.clone(),
                );
                let target_name = target.name.clone();
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
                    if let Ok(mut measured) = measured.lock() {
                        measured.record(&target.name, &report.id, report.elapsed);
                    }
                    if let Some(gathered) = &gathered {
                        if let Ok(mut gathered) = gathered.lock() {
                            gathered.consider(&report, (&suite, file_index, index), &target);
                        }
                    }
                    if let Some(judgement) = options
                        .keep_judged
                        .then(|| freedoms::judge_derived(&suite, scenario, &report))
                        .flatten()
                        .filter(|j| !j.false_answers.is_empty())
                    {
                        let said: Vec<String> = judgement
                            .false_answers
                            .iter()
                            .map(FalseAnswer::describe)
                            .collect();
                        return Err(Failed::from(format!(
                            "{} passes on the reference server but {}",
                            report.id,
                            said.join("\nand ")
                        )));
                    }
                    completion(&report, under_nextest)
                })
                .with_ignored_flag(skip.is_some());
                trials.push(ScenarioTrial {
                    trial,
                    skip,
                    target_name,
                });
            }
        }
    }
    trials
}

/// How a scenario's report shows under libtest: a failure with its report, a pass,
/// or "ignored" with the reason for one that was not judged (SKIP, UNSUPPORTED) or
/// whose failure the baseline excuses, so none of them reads as a plain pass.
/// `under_nextest`, which takes a test that returns for a pass, a SKIP (a scenario
/// listed as ignored and run anyway) fails with its reason instead.
fn completion(report: &ScenarioReport, under_nextest: bool) -> Result<Completion, Failed> {
    let standing = Standing::of(report);
    if standing.breaks_the_run() {
        return Err(Failed::from(report.to_string()));
    }
    if let (true, Verdict::Skip(why)) = (under_nextest, &report.verdict) {
        return Err(Failed::from(format!(
            "SKIP: {why}\nnot judged: the scenario cannot run here, which is why it is \
             listed as ignored; run anyway (--run-ignored), it fails rather than show under \
             nextest as passed"
        )));
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
        match completion(report, false) {
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
            completion(&report(Verdict::Pass, Excuse::None), false),
            Ok(Completion::Completed)
        ));
        assert!(completion(&report(fail(), Excuse::None), false).is_err());
    }

    #[test]
    fn under_nextest_a_skip_run_anyway_fails_with_its_reason_and_the_rest_is_unchanged() {
        let skip = report(Verdict::Skip("requires non-root".into()), Excuse::None);
        let Err(failed) = completion(&skip, true) else {
            panic!("a SKIP must fail under nextest");
        };
        let message = failed.message().unwrap_or_default();
        assert!(
            message.starts_with("SKIP: requires non-root\nnot judged:"),
            "{message}"
        );
        let lacking = report(Verdict::Unsupported("no `bash`".into()), Excuse::None);
        assert!(matches!(
            completion(&lacking, true),
            Ok(Completion::Ignored { .. })
        ));
        assert!(matches!(
            completion(&report(Verdict::Pass, Excuse::None), true),
            Ok(Completion::Completed)
        ));
    }

    fn trials_of(suite_dir: &str, target: &Target) -> Vec<ScenarioTrial> {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(suite_dir);
        let suite = crate::scenario::load_suite(&dir).expect("suite loads");
        trials(
            vec![suite],
            |_| target.clone(),
            RunOptions::default(),
            false,
            false,
            &Arc::default(),
            None,
        )
    }

    #[test]
    fn a_setting_the_target_cannot_express_is_ignored_when_listed() {
        // A target with no flags for settings cannot express `max_file_size`.
        let target = Target::from_command_line("true {root}").expect("target");
        let trials = trials_of("specs/boris", &target);
        let ignored: Vec<&ScenarioTrial> = trials
            .iter()
            .filter(|t| t.trial.has_ignored_flag())
            .collect();
        assert!(!ignored.is_empty());
        for t in &ignored {
            let why = t.skip.as_deref().unwrap_or_default();
            assert!(
                why.contains("cannot express setting"),
                "{}: {why}",
                t.trial.name()
            );
        }
        assert!(trials
            .iter()
            .filter(|t| !t.trial.has_ignored_flag())
            .all(|t| t.skip.is_none()));
    }

    #[test]
    fn a_requirement_this_machine_does_not_meet_is_ignored_when_listed() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("specs/ikigai");
        let suite = crate::scenario::load_suite(&dir).expect("suite loads");
        let isolated = Target::reference(std::path::Path::new("toolspec"), &suite);
        let mut open = isolated.clone();
        open.isolation.enabled = false;
        // SAFETY: geteuid has no preconditions and cannot fail.
        let as_root = unsafe { libc::geteuid() == 0 };
        // Isolated, a server keeps no capability, root or not: permission bits hold
        // for it. Without isolation, root's server ignores them.
        for (target, unmet) in [(&isolated, false), (&open, as_root)] {
            let trials = trials_of("specs/ikigai", target);
            let needing: Vec<&ScenarioTrial> = trials
                .iter()
                .filter(|t| t.trial.name().contains("::Permission denied"))
                .collect();
            // The spec scenarios and their upstream twins, reading and writing.
            assert_eq!(needing.len(), 4);
            for t in needing {
                assert_eq!(t.trial.has_ignored_flag(), unmet, "{}", t.trial.name());
                assert_eq!(
                    t.skip
                        .as_deref()
                        .is_some_and(|w| w.starts_with("requires non-root")),
                    unmet
                );
            }
            assert_eq!(
                trials.iter().filter(|t| t.trial.has_ignored_flag()).count(),
                if unmet { 4 } else { 0 }
            );
        }
    }

    #[test]
    fn trials_known_to_be_slow_start_first_and_the_rest_keep_their_order() {
        let target = Target::from_command_line("true {root}").expect("target");
        let trials = trials_of("specs/ikigai", &target);
        let names: Vec<String> = trials.iter().map(|t| t.trial.name().to_string()).collect();
        let (first, last) = (names[0].clone(), names[names.len() - 1].clone());
        let mut last_run = Durations::default();
        for name in &names {
            last_run.record(&target.name, name, Duration::from_millis(20));
        }
        last_run.record(&target.name, &last, Duration::from_secs(2));
        let started: Vec<String> = slow_first(trials, &last_run)
            .iter()
            .map(|t| t.name().to_string())
            .collect();
        assert_eq!(started[0], last, "the slow one starts first");
        assert_eq!(started[1], first, "then the others in suite order");
        assert_eq!(started.len(), names.len());
        let mut rest = names.clone();
        rest.pop();
        assert_eq!(&started[1..], rest.as_slice());
        // With nothing known, the order is the suite's.
        let trials = trials_of("specs/ikigai", &target);
        let as_listed: Vec<String> = slow_first(trials, &Durations::default())
            .iter()
            .map(|t| t.name().to_string())
            .collect();
        assert_eq!(as_listed, names);
    }
}
