//! One case run on both sides: each in its own copy of the generated fixture (the
//! places beside its root included, writable), with its own server, the calls made
//! in step (each side's renames applied to its own calls), and after every call,
//! where the suite's program is meant to stay inside its root, each side judged for
//! an escape as `run` judges one; then the answers and the files compared. The case
//! stops at its first divergence, but for one the run's baseline already names
//! while the fixtures still agree (`pass_over.rs`), which is counted and passed
//! over; both servers are stopped and both fixtures removed however it ends.

use std::time::Duration;

use regex::Regex;
use serde_json::{Map, Value};

use crate::execute::escape::escape_of;
use crate::explore::compare::levels::{
    compare_answers, compare_files, difference, is_broken, Difference, Level, Masking,
};
use crate::explore::compare::pass_over::{passes_over, KnownSignatures};
use crate::explore::explore_file::TaskRules;
use crate::explore::generate::argument_gen::{NO_TASK, TASK};
use crate::explore::generate::call::GeneratedCall;
use crate::explore::generate::case::Case;
use crate::fixture::{CanarySeed, Fixture};
use crate::scenario::{Bindings, Convention, Outside, SuiteConfinement, OUTSIDE_FOLDER};
use crate::server::outcome::CallOutcome;
use crate::server::{Session, Target};

/// The two servers a run compares, and how their answers are read.
pub(crate) struct Sides<'a> {
    pub oracle: &'a Target,
    pub subject: &'a Target,
    pub convention: Convention,
    pub masks: &'a [Regex],
    pub call_timeout: Duration,
    /// How background tasks are read, when the suite's `explore.yaml` says.
    pub tasks: Option<&'a TaskRules>,
    /// Suite tools the subject does not list: their calls are UNSUPPORTED, made
    /// on neither side, so both go on from the same state.
    pub subject_lacks: &'a [String],
    /// The suite's `confinement:`: a case started with settings under which its
    /// program stays inside its root is judged for escapes after every call.
    pub confinement: Option<&'a SuiteConfinement>,
    /// The run's `--baseline`: a case goes on past a divergence one of its
    /// classes names (while the fixtures agree), so a known departure does not
    /// hide the calls after it. None: every case stops at its first divergence.
    pub known: Option<&'a dyn KnownSignatures>,
    /// The oracle is the subject's own program (no reference to compare with):
    /// a call that breaks both sides is then a `broken` divergence, not an
    /// agreement, since no other program shows it is to be expected.
    pub same_program: bool,
}

impl Sides<'_> {
    /// Whether the servers of `case` are meant to stay inside their roots.
    pub(crate) fn confine(&self, case: &Case) -> bool {
        self.confinement.is_some_and(|c| c.confines(&case.settings))
    }
}

/// What a side that did not escape reads at the escape level.
const STAYED_INSIDE: &str = "stayed inside the root";

/// Where a case diverged.
#[derive(Debug, Clone)]
pub(crate) struct Divergence {
    /// The index of the call after which the sides differed; None when the subject
    /// did not start.
    pub at_call: Option<usize>,
    pub difference: Difference,
    /// The subject's stderr tail, when it broke.
    pub stderr_tail: String,
}

impl Divergence {
    /// How many calls the case made up to and including the one that diverged
    /// (0 when the subject did not start): the calls a report shows and a
    /// shrunk or written case keeps.
    pub(crate) fn calls_made(&self) -> usize {
        self.at_call.map_or(0, |i| i + 1)
    }

    /// The calls of `case` up to and including the one that diverged.
    pub(crate) fn calls_of<'c>(&self, case: &'c Case) -> &'c [GeneratedCall] {
        case.calls.get(..self.calls_made()).unwrap_or(&case.calls)
    }

    /// Drops the calls after the one that diverged, so a case shrunk or written
    /// ends where it diverged; when the subject did not start, no call is to blame
    /// and all are kept.
    pub(crate) fn drop_later_calls(&self, calls: &mut Vec<GeneratedCall>) {
        if let Some(at) = self.at_call {
            calls.truncate(at + 1);
        }
    }
}

/// A case with how it came out.
pub(crate) struct ExploredCase {
    pub case: Case,
    pub outcome: CaseOutcome,
}

/// How a case came out.
#[derive(Debug, Clone)]
pub(crate) enum CaseOutcome {
    /// Calls made on both sides, the divergence that stopped the case, if any,
    /// and the known ones it went on past, in call order (empty without a
    /// baseline).
    Ran {
        calls: usize,
        divergence: Option<Divergence>,
        passed_over: Vec<Divergence>,
    },
    /// The case could not be run at all: the fixture could not be built or the
    /// oracle did not start.
    Failed(String),
}

/// One side's live fixture and server.
pub(crate) struct Live {
    pub fixture: Fixture,
    pub root: String,
    around: String,
    /// The folder beside the root that `{outside}` names.
    outside_folder: String,
    pub session: Session,
    /// `{root}`, and `{task}`: the last background task the side started, or
    /// [`NO_TASK`] before it has started one.
    bindings: Bindings,
}

/// How many times, and how often, a call reading a task that still runs is made
/// again before its answer is taken as it is.
const TASK_POLLS: usize = 40;
const TASK_POLL_EVERY: Duration = Duration::from_millis(50);

impl Live {
    /// Makes `call` on this side: its placeholders filled, `target`'s renames
    /// applied. A call reading a background task (a `task-id` argument) whose
    /// answer says the task still runs is made again, a bounded number of times,
    /// so both sides read it once it has ended; the id an answer gives of a task
    /// it started is kept for the calls after.
    pub(crate) async fn call(
        &mut self,
        sides: &Sides<'_>,
        target: &Target,
        call: &GeneratedCall,
    ) -> CallOutcome {
        let (tool, args) = sent(target, call, &self.bindings);
        let reads_task = call.args.values().any(|v| v.as_str() == Some(TASK_HOLE));
        let mut outcome = self
            .session
            .call(&tool, args.clone(), sides.call_timeout)
            .await;
        let Some(tasks) = sides.tasks else {
            return outcome;
        };
        if reads_task {
            for _ in 0..TASK_POLLS {
                if !tasks.running.is_match(&outcome.answer_text(usize::MAX)) {
                    break;
                }
                tokio::time::sleep(TASK_POLL_EVERY).await;
                outcome = self
                    .session
                    .call(&tool, args.clone(), sides.call_timeout)
                    .await;
            }
        }
        if let Some(id) = tasks
            .started
            .captures(&outcome.answer_text(usize::MAX))
            .and_then(|c| c.get(1))
        {
            self.bindings.bind(TASK, id.as_str());
        }
        outcome
    }
}

/// A `task-id` argument as drawn, before a side fills it in.
const TASK_HOLE: &str = "{task}";

impl Live {
    fn masking<'a>(&'a self, masks: &'a [Regex]) -> Masking<'a> {
        Masking {
            root: &self.root,
            outside_folder: &self.outside_folder,
            fixture: &self.around,
            outside: self.fixture.outside(),
            masks,
        }
    }

    /// The escape `call`, answered with `outcome`, made on this side, as a report
    /// line, if it made one.
    fn escape(&self, call: &GeneratedCall, outcome: &CallOutcome) -> Option<String> {
        let answer = outcome.answer_text(usize::MAX);
        let stderr = self.session.stderr_tail();
        escape_of(&self.fixture, (&call.tool, &call.args), &answer, &stderr).map(|e| e.line())
    }

    /// `text` as a scenario would expect it: the root written `{root}`, the folder
    /// beside it `{outside}`, and a canary `[..]` (each run draws its own).
    pub(crate) fn as_written(&self, text: &str) -> String {
        self.masking(&[])
            .with_placeholders(text, |_| "[..]".to_string())
    }

    /// Everything in the side's temporary folder, one masked line per entry.
    fn listing(&self, masks: &[Regex]) -> String {
        let masking = self.masking(masks);
        self.fixture.tree().listing(|line| masking.apply(line))
    }
}

/// Why one side of a case did not start; its text is the side's reading at the
/// `broken` level, so it is what signatures hash.
#[derive(Debug, thiserror::Error)]
pub(crate) enum SideStartError {
    #[error("cannot build the fixture: {0}")]
    Fixture(#[source] std::io::Error),
    /// The server's own message, and the tail of its stderr when it wrote any.
    #[error("{message}{}", if stderr_tail.is_empty() { String::new() } else { format!("\nstderr:\n{stderr_tail}") })]
    Server {
        message: String,
        stderr_tail: String,
    },
}

/// Builds one side's fixture, the places beside its root included (writable, so
/// a write that escapes can happen and be seen) and their canaries drawn from
/// `canaries` (the other side's are the same), and starts its server in the root
/// with those places in its view.
async fn start(
    target: &Target,
    case: &Case,
    canaries: CanarySeed,
    timeout: Duration,
) -> Result<Live, SideStartError> {
    let outside = Outside {
        files: case.fixture.outside.clone(),
        writable: true,
    };
    let outside = (!outside.files.is_empty()).then_some(&outside);
    let fixture = Fixture::build_over(None, &case.fixture.file_specs(), outside, canaries)
        .map_err(SideStartError::Fixture)?;
    let root = fixture.root().display().to_string();
    let around = match fixture.root().parent() {
        Some(around) => around.display().to_string(),
        None => root.clone(),
    };
    let outside_folder = format!("{around}/{OUTSIDE_FOLDER}");
    let session = Session::launch(target, fixture.places(), &case.settings, timeout)
        .await
        .map_err(|e| SideStartError::Server {
            message: e.message,
            stderr_tail: e.stderr_tail,
        })?;
    let mut bindings = Bindings::new(&root);
    bindings.bind(TASK, NO_TASK);
    Ok(Live {
        fixture,
        bindings,
        root,
        around,
        outside_folder,
        session,
    })
}

/// Both sides of a case, each started or not.
pub(crate) type Started = (Result<Live, SideStartError>, Result<Live, SideStartError>);

/// Starts both sides of `case`, their fixtures' canaries alike.
pub(crate) async fn start_both(sides: &Sides<'_>, case: &Case) -> Started {
    start_pair(sides.oracle, sides.subject, case, sides.call_timeout).await
}

/// Starts `oracle` and `subject` on `case`'s fixture (built whole first) with
/// its settings, at once: what a warm spare of `cases/warm.rs` is.
pub(crate) async fn start_pair(
    oracle: &Target,
    subject: &Target,
    case: &Case,
    call_timeout: Duration,
) -> Started {
    let canaries = CanarySeed::fresh();
    tokio::join!(
        start(oracle, case, canaries, call_timeout),
        start(subject, case, canaries, call_timeout)
    )
}

/// Stops both sides of a case that will not run (a spare left over when the
/// budget ran out): each server with everything it started, its fixture
/// removed.
pub(crate) async fn stop_unused(started: Started) {
    let (oracle, subject) = started;
    let stop = |side: Result<Live, SideStartError>| async move {
        if let Ok(live) = side {
            let _ = live.session.stop().await;
        }
    };
    tokio::join!(stop(oracle), stop(subject));
}

/// Runs `case` on both sides.
pub(crate) async fn run_case(sides: &Sides<'_>, case: &Case) -> CaseOutcome {
    let started = start_both(sides, case).await;
    run_started(sides, case, started).await
}

/// Runs `case` on both sides, already started on its fixture.
pub(crate) async fn run_started(sides: &Sides<'_>, case: &Case, started: Started) -> CaseOutcome {
    let (oracle, subject) = started;
    let mut oracle = match oracle {
        Ok(live) => live,
        Err(why) => {
            if let Ok(subject) = subject {
                let _ = subject.session.stop().await;
            }
            return CaseOutcome::Failed(format!("the oracle did not start: {why}"));
        }
    };
    let mut subject = match subject {
        Ok(live) => live,
        Err(why) => {
            let _ = oracle.session.stop().await;
            let difference = difference(Level::Broken, "started".to_string(), why.to_string());
            return CaseOutcome::Ran {
                calls: 0,
                divergence: Some(Divergence {
                    at_call: None,
                    difference,
                    stderr_tail: String::new(),
                }),
                passed_over: Vec::new(),
            };
        }
    };
    let CallsMade {
        calls,
        divergence,
        passed_over,
    } = make_calls(sides, case, &mut oracle, &mut subject).await;
    let (_, stopped) = tokio::join!(oracle.session.stop(), subject.session.stop());
    let divergence = divergence.or_else(|| {
        stopped.err().map(|broken| Divergence {
            at_call: calls.checked_sub(1),
            difference: difference(Level::Broken, "stopped".to_string(), broken.to_string()),
            stderr_tail: String::new(),
        })
    });
    drop((oracle.fixture, subject.fixture));
    CaseOutcome::Ran {
        calls,
        divergence,
        passed_over,
    }
}

/// What the calls of a case came to.
struct CallsMade {
    /// How many were made on both sides.
    calls: usize,
    /// The divergence that stopped the case.
    divergence: Option<Divergence>,
    /// The known divergences the case went on past.
    passed_over: Vec<Divergence>,
}

/// The calls in step, until the first divergence the case may not pass over
/// (`pass_over.rs`) or a call that broke both.
async fn make_calls(
    sides: &Sides<'_>,
    case: &Case,
    oracle: &mut Live,
    subject: &mut Live,
) -> CallsMade {
    let confined = sides.confine(case);
    let mut passed_over = Vec::new();
    for (index, call) in case.calls.iter().enumerate() {
        if sides.subject_lacks.contains(&call.tool) {
            continue;
        }
        let (o_outcome, s_outcome): (CallOutcome, CallOutcome) = tokio::join!(
            oracle.call(sides, sides.oracle, call),
            subject.call(sides, sides.subject, call)
        );
        let escaped = if confined {
            match (
                oracle.escape(call, &o_outcome),
                subject.escape(call, &s_outcome),
            ) {
                (None, None) => None,
                (o, s) => Some(difference(
                    Level::Escape,
                    o.unwrap_or_else(|| STAYED_INSIDE.to_string()),
                    s.unwrap_or_else(|| STAYED_INSIDE.to_string()),
                )),
            }
        } else {
            None
        };
        let o_masking = oracle.masking(sides.masks);
        let s_masking = subject.masking(sides.masks);
        let difference = escaped
            .or_else(|| {
                compare_answers(
                    sides.convention,
                    (&o_outcome, &o_masking),
                    (&s_outcome, &s_masking),
                )
            })
            .or_else(|| compare_files(&oracle.listing(sides.masks), &subject.listing(sides.masks)));
        if let Some(difference) = difference {
            let stderr_tail = if difference.level == Level::Broken {
                subject.session.stderr_tail()
            } else {
                String::new()
            };
            let divergence = Divergence {
                at_call: Some(index),
                difference,
                stderr_tail,
            };
            let files_agree = || {
                compare_files(&oracle.listing(sides.masks), &subject.listing(sides.masks)).is_none()
            };
            if !passes_over(sides.known, case, &divergence, files_agree) {
                return CallsMade {
                    calls: index + 1,
                    divergence: Some(divergence),
                    passed_over,
                };
            }
            passed_over.push(divergence);
        }
        if is_broken(&o_outcome) {
            // Both broke: nothing after this call can be compared. Against
            // itself, that is what the run is there to find.
            let divergence = (sides.same_program && is_broken(&s_outcome)).then(|| Divergence {
                at_call: Some(index),
                difference: crate::explore::compare::levels::difference(
                    Level::Broken,
                    "an answer".to_string(),
                    s_outcome.summary(),
                ),
                stderr_tail: subject.session.stderr_tail(),
            });
            return CallsMade {
                calls: index + 1,
                divergence,
                passed_over,
            };
        }
    }
    CallsMade {
        calls: case.calls.len(),
        divergence: None,
        passed_over,
    }
}

/// The call as one side is sent it: its root (and task id) filled in, its
/// renames applied.
fn sent(
    target: &Target,
    call: &GeneratedCall,
    bindings: &Bindings,
) -> (String, Map<String, Value>) {
    let args = call
        .args
        .iter()
        .map(|(k, v)| (k.clone(), bindings.fill_value(v)))
        .collect();
    target.translate(&call.tool, args)
}
