//! Runs one scenario from fixture to verdict.
//!
//! Data flows one way: fixture -> server session -> set-up calls -> the judged call
//! -> expectations. The session is stopped, with everything the server started,
//! whatever the verdict.

pub(crate) mod cache_folder;
pub(crate) mod cancel;
pub(crate) mod durations;
mod durations_file;
pub(crate) mod escape;
pub(crate) mod parallel;
pub(crate) mod plan;
pub(crate) mod schedule;
pub(crate) mod standing;
mod unsupported;
mod verdict;
mod warm;

pub use verdict::{Escape, EscapeKind, Excuse, ScenarioReport, Verdict};
pub(crate) use verdict::{JudgedCall, ANSWER_LIMIT};

use std::collections::{BTreeMap, BTreeSet};
use std::time::{Duration, Instant};

use serde_json::{Map, Value};

use crate::execute::cancel::Cancel;
use crate::fixture::{CanarySeed, Fixture};
use crate::judge::{indent, judge, judge_listed_tools, Mismatch};
use crate::scenario::{Bindings, Call, Requirement, Scenario, Suite};
use crate::server::outcome::CallOutcome;
use crate::server::{running_as_root, Session, Target};

/// Knobs that apply to a whole run.
#[derive(Debug, Clone, Default)]
pub struct RunOptions {
    /// Overrides every per-call timeout, in milliseconds.
    pub call_timeout_ms: Option<u64>,
    /// Overrides the suites' deadline for a whole scenario, in milliseconds.
    pub scenario_timeout_ms: Option<u64>,
    /// Leave the fixture of a failed or errored scenario on disk, for a look.
    pub keep_failed: bool,
    /// Run every scenario this many times, each in a fresh fixture and server, to
    /// catch a server whose verdict changes from run to run (0 and 1: once).
    pub repeat: u32,
    /// Keep the judged call's outcome in the report ([`ScenarioReport::judged`]),
    /// for the proof that derives other right answers from it.
    pub keep_judged: bool,
}

/// Runs the scenario of `suite` whose id (`suite::file::name`) or bare name is
/// `name` against `target`, or None when the suite has no such scenario. A bare name
/// that two files share runs the first, in file order.
pub fn run_named(
    suite: &Suite,
    name: &str,
    target: &Target,
    options: &RunOptions,
) -> Option<ScenarioReport> {
    let (file, scenario) = suite
        .scenarios()
        .find(|(f, s)| suite.scenario_id(f, s) == name)
        .or_else(|| suite.scenarios().find(|(_, s)| s.name == name))?;
    Some(run_scenario(
        suite, &file.stem, scenario, target, options, None,
    ))
}

/// Runs `scenario` of `suite` against `target` on a fresh runtime. `listed` is the
/// server's tool list, asked once for the run, when it could be read: a scenario
/// that calls one of the suite's tools the server lacks is UNSUPPORTED without
/// starting it.
pub(crate) fn run_scenario(
    suite: &Suite,
    file_stem: &str,
    scenario: &Scenario,
    target: &Target,
    options: &RunOptions,
    listed: Option<&BTreeSet<String>>,
) -> ScenarioReport {
    let never = Cancel::never();
    run_scenario_unless_cancelled(suite, file_stem, scenario, target, options, listed, &never)
        .unwrap_or_else(|| {
            let id = scenario_id(suite, file_stem, scenario);
            ScenarioReport::blank(id, error("cancelled".to_string(), String::new()))
        })
}

/// [`run_scenario`], cut short when `cancel` fires: the server is stopped and the
/// fixture removed as for any other ending, and there is no report (None).
pub(crate) fn run_scenario_unless_cancelled(
    suite: &Suite,
    file_stem: &str,
    scenario: &Scenario,
    target: &Target,
    options: &RunOptions,
    listed: Option<&BTreeSet<String>>,
    cancel: &Cancel,
) -> Option<ScenarioReport> {
    if cancel.is_cancelled() {
        return None;
    }
    let run = ScenarioRun {
        suite,
        file_stem,
        scenario,
        target,
        options,
        listed,
    };
    let runtime = match crate::server::runtime::thread_runtime() {
        Ok(rt) => rt,
        Err(e) => {
            let mut report = run.begin_report();
            report.verdict = error(format!("cannot start an async runtime: {e}"), String::new());
            return Some(report);
        }
    };
    runtime.block_on(async { finish(run, open(run).await, cancel).await })
}

/// One scenario of a run, with all it runs against: what [`open`] and
/// [`finish`] share.
#[derive(Clone, Copy)]
pub(crate) struct ScenarioRun<'a> {
    pub suite: &'a Suite,
    pub file_stem: &'a str,
    pub scenario: &'a Scenario,
    pub target: &'a Target,
    pub options: &'a RunOptions,
    /// The server's tool list, when it could be read (see [`run_scenario`]).
    pub listed: Option<&'a BTreeSet<String>>,
}

impl ScenarioRun<'_> {
    /// The report before anything has run: what the suite and target say of the
    /// scenario, and a PASS to be replaced.
    fn begin_report(&self) -> ScenarioReport {
        let id = scenario_id(self.suite, self.file_stem, self.scenario);
        let requirement = self
            .suite
            .files
            .iter()
            .find(|f| f.stem == self.file_stem)
            .map(|f| f.content.requirement.clone())
            .unwrap_or_default();
        ScenarioReport {
            excuse: Excuse::of(&self.target.baseline, &id),
            requirement,
            covers: self.scenario.covers.clone(),
            note: self.scenario.note.clone(),
            basis: self.scenario.basis,
            since: self.scenario.since,
            pinned: self.target.pins.get(&self.suite.name).copied(),
            ..ScenarioReport::blank(id, Verdict::Pass)
        }
    }
}

/// A scenario up to its first call ([`open`]): its report begun, and its
/// fixture and started server, or the verdict it ended in before any call.
/// `run`'s warm spares are scenarios opened ahead of their turn
/// (`execute::warm`); a cold run opens and finishes at once.
pub(crate) struct Opened {
    report: ScenarioReport,
    /// How long opening took (the fixture built, the server started): the part
    /// of the scenario's deadline and duration spent before its calls.
    took: Duration,
    state: Opening,
}

enum Opening {
    /// Ended before any call: skipped, UNSUPPORTED, or its fixture or server
    /// could not be made; with the server's stderr lines that may show a denial.
    Ended {
        verdict: Verdict,
        denial_lines: Vec<String>,
    },
    Live(Box<Live>),
}

/// A scenario's fixture and its server, started and initialized.
struct Live {
    fixture: Fixture,
    session: Session,
    root: String,
    timeout: Duration,
    deadline: Duration,
}

impl Opened {
    /// How long opening took.
    pub(crate) fn took(&self) -> Duration {
        self.took
    }
}

/// Opens `run`'s scenario: the tool it needs checked against the server's list,
/// its requirements against the machine, its fixture built whole and its server
/// started on it with the scenario's settings and initialized, within the
/// scenario's deadline. Nothing here depends on when the scenario's turn comes,
/// so a scenario opened ahead of it is started exactly as a cold one is.
pub(crate) async fn open(run: ScenarioRun<'_>) -> Opened {
    let began = tokio::time::Instant::now();
    let mut report = run.begin_report();
    let state = match run
        .listed
        .and_then(|l| unsupported::missing_tool(run.suite, run.scenario, run.target, l))
    {
        Some(missing) => Opening::Ended {
            verdict: missing.verdict(run.target),
            denial_lines: Vec::new(),
        },
        None => open_live(run, &mut report, began).await,
    };
    Opened {
        report,
        took: began.elapsed(),
        state,
    }
}

async fn open_live(
    run: ScenarioRun<'_>,
    report: &mut ScenarioReport,
    began: tokio::time::Instant,
) -> Opening {
    let ScenarioRun {
        suite,
        scenario,
        target,
        options,
        ..
    } = run;
    let ended = |verdict| Opening::Ended {
        verdict,
        denial_lines: Vec::new(),
    };
    if let Some(why) = skip_reason(scenario, target) {
        return ended(Verdict::Skip(why));
    }
    let tree = scenario
        .given
        .tree
        .as_ref()
        .map(|t| suite.fixtures_dir.join(t));
    let fixture = match Fixture::build_over(
        tree.as_deref(),
        &scenario.given.files,
        scenario.given.outside.as_ref(),
        CanarySeed::fresh(),
    ) {
        Ok(f) => f,
        Err(e) => {
            return ended(error(
                format!("cannot build the fixture: {e}"),
                String::new(),
            ))
        }
    };
    let root = fixture.root().to_string_lossy().into_owned();
    report.root = root.clone();
    let settings: BTreeMap<String, Value> =
        substitute_entries(&scenario.given.settings, &Bindings::new(&root));
    let timeout = Duration::from_millis(
        options
            .call_timeout_ms
            .or(scenario.timeout_ms)
            .unwrap_or(suite.config.call_timeout_ms),
    );
    let deadline = scenario_deadline(suite, options, timeout, target.start_timeout(timeout));
    let launched = tokio::time::timeout_at(
        began + deadline,
        Session::launch(target, fixture.places(), &settings, timeout),
    );
    // Starting is not cut short: it is brief, and a started session is stopped
    // the one way that waits for everything the server started.
    match launched.await {
        Ok(Ok(session)) => Opening::Live(Box::new(Live {
            fixture,
            session,
            root,
            timeout,
            deadline,
        })),
        Ok(Err(e)) => Opening::Ended {
            verdict: error(e.message, e.stderr_tail),
            denial_lines: e.denial_lines,
        },
        Err(_) => ended(error(past_deadline(deadline), String::new())),
    }
}

/// Runs an opened scenario to its report: its calls, judged, within what is
/// left of its deadline once its opening is taken off, counted from now, so
/// time it waited opened for its turn counts for neither its deadline nor its
/// duration (`elapsed` is its opening's time and its calls'). None when
/// `cancel` fires first: the server is stopped and the fixture removed.
pub(crate) async fn finish(
    run: ScenarioRun<'_>,
    opened: Opened,
    cancel: &Cancel,
) -> Option<ScenarioReport> {
    let Opened {
        mut report,
        took,
        state,
    } = opened;
    let turn = tokio::time::Instant::now();
    // The lines of the server's stderr that may show a denial, from wherever in it
    // they came: an ERROR's tail holds only the server's last words, and a FAIL
    // keeps no stderr at all.
    let (verdict, denial_lines) = match state {
        Opening::Ended {
            verdict,
            denial_lines,
        } => (verdict, denial_lines),
        Opening::Live(live) => {
            let until = turn + live.deadline.saturating_sub(took);
            calls(run, *live, until, cancel, &mut report).await?
        }
    };
    report.verdict = verdict;
    if run.target.isolation.enabled {
        let stderr = match &report.verdict {
            Verdict::Error { stderr_tail, .. } => Some(stderr_tail.as_str()),
            Verdict::Fail(_) => Some(""),
            _ => None,
        };
        if let Some(stderr) = stderr {
            let answer = report.answer.as_deref().unwrap_or_default();
            // The earliest denial first: what follows it is often its consequence.
            let said: Vec<&str> = std::iter::once(answer)
                .chain(denial_lines.iter().map(String::as_str))
                .chain([stderr])
                .collect();
            report.isolation_denied =
                crate::server::denied_by_isolation(run.target, &report.root, &said);
        }
    }
    report.elapsed = took + turn.elapsed();
    Some(report)
}

fn scenario_id(suite: &Suite, file_stem: &str, scenario: &Scenario) -> String {
    format!("{}::{}::{}", suite.name, file_stem, scenario.name)
}

fn past_deadline(deadline: Duration) -> String {
    format!(
        "the scenario ran past its deadline of {} ms (scenario_timeout_ms, at least three \
         call timeouts), so it was ended and the server stopped",
        deadline.as_millis()
    )
}

/// A live scenario's calls, judged, by `until`: the verdict and the lines of the
/// server's stderr the session kept as possible denials, or None when `cancel`
/// fired first. The session is stopped whatever the verdict.
async fn calls(
    run: ScenarioRun<'_>,
    live: Live,
    until: tokio::time::Instant,
    cancel: &Cancel,
    report: &mut ScenarioReport,
) -> Option<(Verdict, Vec<String>)> {
    let Live {
        fixture,
        mut session,
        root,
        timeout,
        deadline,
    } = live;
    let plan = Plan {
        suite: run.suite,
        scenario: run.scenario,
        target: run.target,
        fixture: &fixture,
        root: &root,
        timeout,
        keep_judged: run.options.keep_judged,
    };
    let driven = tokio::time::timeout_at(until, drive(&plan, &mut session, report));
    let verdict = tokio::select! {
        ended = driven => Some(match ended {
            Ok(verdict) => verdict,
            Err(_) => error(past_deadline(deadline), session.stderr_tail()),
        }),
        () = cancel.cancelled() => None,
    };
    let stderr_tail = session.stderr_tail();
    let denial_lines = session.denial_lines();
    report.warnings.extend(session.stdout_noise());
    let stopped = session.stop().await;
    // A cancelled scenario's fixture goes with it: nobody will read its verdict.
    let mut verdict = verdict?;
    if let Err(broken) = stopped {
        // Whatever the calls showed, the run did not hold the server.
        verdict = error(broken.to_string(), stderr_tail);
    }
    if run.options.keep_failed && matches!(verdict, Verdict::Fail(_) | Verdict::Error { .. }) {
        fixture.keep();
        report.root_kept = true;
    }
    Some((verdict, denial_lines))
}

/// How long the scenario may run in all: the suite's `scenario_timeout_ms` (or the
/// run's override), and never less than the start timeout and two call timeouts,
/// so that starting the server and the judged call always fit.
fn scenario_deadline(
    suite: &Suite,
    options: &RunOptions,
    call_timeout: Duration,
    start_timeout: Duration,
) -> Duration {
    let configured = Duration::from_millis(
        options
            .scenario_timeout_ms
            .unwrap_or(suite.config.scenario_timeout_ms),
    );
    configured.max(start_timeout.saturating_add(call_timeout.saturating_mul(2)))
}

/// Why `scenario` cannot run against `target` on this machine, if it cannot: a
/// setting the target has no flag for, or a `requires:` the machine does not meet.
/// Both are known before anything starts, so the libtest runner lists such a
/// scenario as ignored, and this is what a run of it ends in (SKIP).
pub(crate) fn skip_reason(scenario: &Scenario, target: &Target) -> Option<String> {
    target
        .unsupported(&scenario.given.settings)
        .map(|u| u.0)
        .or_else(|| unmet_requirement(&scenario.requires, target))
}

/// Why this machine cannot run a scenario with these requirements against
/// `target`, if it cannot.
fn unmet_requirement(requires: &[Requirement], target: &Target) -> Option<String> {
    requires.iter().find_map(|r| match r {
        // An isolated server has no capability, root or not (docs/isolation.md), so
        // permission bits hold for it.
        Requirement::NonRoot if running_as_root() && !target.isolation.enabled => Some(
            "requires non-root: the server runs as root without isolation, which keeps its \
             capabilities and so ignores permission bits: the scenario's premise (an \
             unreadable file) cannot be set up"
                .to_string(),
        ),
        Requirement::NonRoot => None,
    })
}

/// What one scenario run needs besides the live session.
struct Plan<'a> {
    suite: &'a Suite,
    scenario: &'a Scenario,
    target: &'a Target,
    fixture: &'a Fixture,
    root: &'a str,
    timeout: Duration,
    keep_judged: bool,
}

async fn drive(plan: &Plan<'_>, session: &mut Session, report: &mut ScenarioReport) -> Verdict {
    let Plan {
        suite,
        scenario,
        target,
        fixture,
        root,
        timeout,
        keep_judged,
    } = *plan;
    let (last, earlier) = scenario
        .when
        .0
        .split_last()
        .expect("validated: `when` has a call");
    // Set-up calls, then every call of `when` but the last: not judged, but a broken
    // server ends the scenario, an error answer is kept for the report, since the
    // scenario's premise may not hold, and a capture that finds nothing is a FAIL.
    let mut bindings = Bindings::new(root).with_places(session.places());
    // A server meant to stay inside its root, given places beside it, is judged by
    // what it did there after every call, set-up calls too; without such places
    // nothing is looked at.
    let confined = fixture.outside().is_some() && suite.config.confines(&scenario.given.settings);
    let setup = scenario
        .given
        .calls
        .iter()
        .flat_map(|c| std::iter::repeat_n(c, c.repeat as usize))
        .chain(earlier);
    for (i, call) in setup.enumerate() {
        let outcome = make_call(session, target, call, &bindings, timeout).await;
        if confined {
            let answer = outcome.answer_text(ANSWER_LIMIT);
            if let Some(escape) = escape::escape_of(
                fixture,
                (&call.tool, &call.args.to_map()),
                &answer,
                &session.stderr_tail(),
            ) {
                return Verdict::Escape(escape);
            }
        }
        let shown = || {
            format!(
                "preparatory call {} ({})",
                i + 1,
                render_call(target, call, &bindings)
            )
        };
        if let Some(why) = broken(&outcome) {
            return error(format!("{} failed: {why}", shown()), session.stderr_tail());
        }
        let refused = match &outcome {
            CallOutcome::Result(r) => r.is_error(),
            _ => true,
        };
        if refused {
            report.warnings.push(format!(
                "{} was answered with {}",
                shown(),
                outcome.summary()
            ));
        }
        if !call.capture.is_empty() {
            let shown = shown();
            if let Err(mismatch) = take_captures(call, &outcome, &shown, &mut bindings) {
                return Verdict::Fail(vec![mismatch]);
            }
        }
    }
    report.call = render_call(target, last, &bindings);
    let outcome = make_call(session, target, last, &bindings, timeout).await;
    let answer = report.answer.insert(outcome.answer_text(ANSWER_LIMIT));
    if confined {
        if let Some(escape) = escape::escape_of(
            fixture,
            (&last.tool, &last.args.to_map()),
            answer,
            &session.stderr_tail(),
        ) {
            return Verdict::Escape(escape);
        }
    }
    if let Some(why) = broken(&outcome) {
        return error(why, session.stderr_tail());
    }
    // Reading what the server left gets the judged call's own time limit.
    let mut mismatches = judge(
        &scenario.then,
        suite.config.convention,
        &outcome,
        fixture,
        &bindings,
        Instant::now() + timeout,
    );
    if let Some(want) = &scenario.then.listed_tools {
        match session.list_tools(timeout).await {
            Ok(listed) => {
                let names: Vec<String> = listed.into_iter().map(|tool| tool.name).collect();
                let renamed = |tool: &String| target.translate(tool, Map::new()).0;
                mismatches.extend(judge_listed_tools(want, &names, renamed));
            }
            Err(why) => return error(why.to_string(), session.stderr_tail()),
        }
    }
    if keep_judged {
        report.judged = Some(JudgedCall {
            outcome,
            args: substitute_entries(&last.args, &bindings),
            bindings,
        });
    }
    if mismatches.is_empty() {
        Verdict::Pass
    } else {
        Verdict::Fail(mismatches)
    }
}

/// Binds each of `call`'s captures to the first group of its regex in the result
/// text. The server answered, so a capture that finds nothing is a mismatch (the
/// scenario FAILs, and nothing after the call runs), naming the call, the regex
/// and the text.
fn take_captures(
    call: &Call,
    outcome: &CallOutcome,
    shown: &str,
    bindings: &mut Bindings,
) -> Result<(), Mismatch> {
    for (name, pattern) in &call.capture {
        let expectation = format!("capture: {{{name}: {:?}}}", pattern.0.as_str());
        let key = format!("capture[{name}]");
        let CallOutcome::Result(result) = outcome else {
            return Err(Mismatch::new(
                expectation,
                format!(
                    "{shown}: a capture needs a tool result, got {}\nnothing after this call was made",
                    outcome.summary()
                ),
            )
            .keyed(key));
        };
        let regex = match pattern.0.compile() {
            Ok(regex) => regex,
            Err(e) => {
                return Err(Mismatch::new(
                    expectation,
                    format!("bad regex: {e}\nnothing after this call was made"),
                )
                .keyed(key))
            }
        };
        let mut groups = regex.create_captures();
        regex.captures(result.text.as_str(), &mut groups);
        let value = groups
            .get_group(1)
            .and_then(|span| result.text.get(span.range()));
        match value {
            Some(value) => bindings.bind(name, value),
            None => {
                return Err(Mismatch::new(
                    expectation,
                    format!(
                    "{shown}: no match for /{}/ in the text:\n{}nothing after this call was made",
                    pattern.0.as_str(),
                    indent(&result.text)
                ),
                )
                .keyed(key))
            }
        }
    }
    Ok(())
}

/// Why an outcome means the server is broken, if it does.
fn broken(outcome: &CallOutcome) -> Option<String> {
    match outcome {
        CallOutcome::Transport(_) | CallOutcome::Timeout(_) => Some(outcome.summary()),
        CallOutcome::Result(_) | CallOutcome::Protocol { .. } => None,
    }
}

async fn make_call(
    session: &mut Session,
    target: &Target,
    call: &Call,
    bindings: &Bindings,
    timeout: Duration,
) -> CallOutcome {
    let (tool, args) = target.translate(&call.tool, substitute_entries(&call.args, bindings));
    session.call(&tool, args, timeout).await
}

fn error(what: String, stderr_tail: String) -> Verdict {
    Verdict::Error { what, stderr_tail }
}

/// The call as sent to the server (`tool {json args}`, placeholders filled in), and
/// as the suite wrote it when the target renames tools or arguments.
pub(crate) fn render_call(target: &Target, call: &Call, bindings: &Bindings) -> String {
    let args: Map<String, Value> = substitute_entries(&call.args, bindings);
    let (tool, sent) = target.translate(&call.tool, args.clone());
    if tool == call.tool && sent == args {
        format!("{tool} {}", Value::Object(sent))
    } else {
        format!(
            "{tool} {} (the suite's {} {})",
            Value::Object(sent),
            call.tool,
            Value::Object(args)
        )
    }
}

/// Fills placeholders into every value of a map, whichever map type it is.
fn substitute_entries<'a, C>(
    entries: impl IntoIterator<Item = (&'a String, &'a Value)>,
    bindings: &Bindings,
) -> C
where
    C: FromIterator<(String, Value)>,
{
    entries
        .into_iter()
        .map(|(k, v)| (k.clone(), bindings.fill_value(v)))
        .collect()
}
