//! One case run on both sides: each in its own copy of the generated fixture, with
//! its own server, the calls made in step (each side's renames applied to its own
//! calls), and the answers and the files compared after every call. The case stops
//! at its first divergence, and both servers are stopped and both fixtures removed
//! however it ends.

use std::time::Duration;

use regex::Regex;
use serde_json::{Map, Value};

use super::argument_gen::{NO_TASK, TASK};
use super::case::{Case, GeneratedCall};
use super::compare::{
    compare_answers, compare_files, difference, is_broken, Difference, Level, Masking,
};
use super::explore_file::TaskRules;
use super::fixture_gen::{CANARY_DIR, ROOT_DIR};
use super::left_behind::listing;
use crate::fixture::{Fixture, Places};
use crate::scenario::{Bindings, Convention};
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
}

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

/// How a case came out.
#[derive(Debug, Clone)]
pub(crate) enum CaseOutcome {
    /// Calls made on both sides, and the divergence that stopped the case, if any.
    Ran {
        calls: usize,
        divergence: Option<Divergence>,
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
            fixture: &self.around,
            masks,
        }
    }
}

/// Builds one side's fixture, and starts its server in the root inside it.
pub(crate) async fn start(target: &Target, case: &Case, timeout: Duration) -> Result<Live, String> {
    let fixture = Fixture::build(&case.fixture.file_specs())
        .map_err(|e| format!("cannot build the fixture: {e}"))?;
    let root_path = fixture.root().join(ROOT_DIR);
    let root = root_path.display().to_string();
    let around = fixture.root().display().to_string();
    // The canary beside the root is in the server's view, read-only, as the rest
    // of the machine is: a server that reaches out of its root finds it there.
    let target = target.reading(fixture.root().join(CANARY_DIR));
    let session = Session::launch(
        &target,
        Places::root_only(&root_path),
        &case.settings,
        timeout,
    )
    .await
    .map_err(|e| {
        if e.stderr_tail.is_empty() {
            e.message
        } else {
            format!("{}\nstderr:\n{}", e.message, e.stderr_tail)
        }
    })?;
    let mut bindings = Bindings::new(&root);
    bindings.bind(TASK, NO_TASK);
    Ok(Live {
        fixture,
        bindings,
        root,
        around,
        session,
    })
}

/// Runs `case` on both sides.
pub(crate) async fn run_case(sides: &Sides<'_>, case: &Case) -> CaseOutcome {
    let (oracle, subject) = tokio::join!(
        start(sides.oracle, case, sides.call_timeout),
        start(sides.subject, case, sides.call_timeout)
    );
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
            let difference = difference(Level::Broken, "started".to_string(), why);
            return CaseOutcome::Ran {
                calls: 0,
                divergence: Some(Divergence {
                    at_call: None,
                    difference,
                    stderr_tail: String::new(),
                }),
            };
        }
    };
    let (calls, divergence) = make_calls(sides, case, &mut oracle, &mut subject).await;
    let (_, stopped) = tokio::join!(oracle.session.stop(), subject.session.stop());
    let divergence = divergence.or_else(|| {
        stopped.err().map(|broken| Divergence {
            at_call: calls.checked_sub(1),
            difference: difference(Level::Broken, "stopped".to_string(), broken.to_string()),
            stderr_tail: String::new(),
        })
    });
    drop((oracle.fixture, subject.fixture));
    CaseOutcome::Ran { calls, divergence }
}

/// The calls in step, until the first divergence or a call that broke both.
async fn make_calls(
    sides: &Sides<'_>,
    case: &Case,
    oracle: &mut Live,
    subject: &mut Live,
) -> (usize, Option<Divergence>) {
    for (index, call) in case.calls.iter().enumerate() {
        if sides.subject_lacks.contains(&call.tool) {
            continue;
        }
        let (o_outcome, s_outcome): (CallOutcome, CallOutcome) = tokio::join!(
            oracle.call(sides, sides.oracle, call),
            subject.call(sides, sides.subject, call)
        );
        let o_masking = oracle.masking(sides.masks);
        let s_masking = subject.masking(sides.masks);
        let difference = compare_answers(
            sides.convention,
            (&o_outcome, &o_masking),
            (&s_outcome, &s_masking),
        )
        .or_else(|| {
            compare_files(
                &listing(oracle.fixture.handle(), &o_masking),
                &listing(subject.fixture.handle(), &s_masking),
            )
        });
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
            return (index + 1, Some(divergence));
        }
        if is_broken(&o_outcome) {
            // Both broke: nothing after this call can be compared.
            return (index + 1, None);
        }
    }
    (case.calls.len(), None)
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
        .map(|(k, v)| (k.clone(), fill(v, bindings)))
        .collect();
    target.translate(&call.tool, args)
}

fn fill(value: &Value, bindings: &Bindings) -> Value {
    match value {
        Value::String(s) => Value::String(bindings.fill(s)),
        Value::Array(items) => Value::Array(items.iter().map(|v| fill(v, bindings)).collect()),
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, v)| (k.clone(), fill(v, bindings)))
                .collect(),
        ),
        other => other.clone(),
    }
}
