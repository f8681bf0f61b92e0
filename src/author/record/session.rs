//! A recording session: the calls made in order on one fixture by one server,
//! the way an agent makes them. To tell what the server chose (an id, a time)
//! from what it must say, the whole session is made twice at once, each run on
//! a fresh fixture with its own server: two servers in all, however many calls,
//! started at once.
//! Each call is made on both runs before the next is read (so calls can be
//! typed one after another), the fixture read before and after it, and what it
//! created, changed or removed there kept as the call's `then.files`.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::{json, Map, Value};

use super::fixture_snapshot::{changes, snapshot, Change};
use super::live_call::{read_answer, Answer, RecordError};
use crate::fixture::{CanarySeed, Fixture, Places};
use crate::judge::judge;
use crate::scenario::{Bindings, Convention, FileSpec, Then};
use crate::server::outcome::CallOutcome;
use crate::server::{Session, StartError, Target};

/// What a run's fixture is built from: a folder copied first (`given.tree`),
/// then files laid over it (`given.files`: path -> text, a folder: None).
pub(crate) struct FixtureSource<'a> {
    pub tree: Option<&'a Path>,
    pub files: &'a BTreeMap<String, Option<String>>,
}

/// One of the two runs: its fixture, its server, its root's bindings.
struct Run {
    fixture: Fixture,
    session: Session,
    bindings: Bindings,
}

/// What a file became after a call, in one run.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum FileAfter {
    /// A text file created or changed: its text, the root written `{root}`.
    Text(String),
    /// A file created or changed that is not UTF-8 text.
    Binary,
    /// Removed (or no longer a file).
    Removed,
}

/// One call's answer and file effects in one run.
pub(crate) struct RunAnswer {
    pub answer: Answer,
    pub files: BTreeMap<String, FileAfter>,
}

/// The two runs, live.
pub(crate) struct LiveSession {
    runtime: tokio::runtime::Runtime,
    runs: Vec<Run>,
    convention: Convention,
    timeout: Duration,
    target: Target,
    /// How long the first server took to start and answer `initialize`.
    started_in: Duration,
}

impl LiveSession {
    /// How long the first server took to start and answer `initialize`, for
    /// `record` to learn a start timeout from (`start_time.rs`).
    pub(crate) fn started_in(&self) -> Duration {
        self.started_in
    }

    /// Builds two fixtures from `source` and starts `target` on each.
    pub(crate) fn start(
        target: &Target,
        source: &FixtureSource<'_>,
        convention: Convention,
        timeout: Duration,
    ) -> Result<LiveSession, RecordError> {
        let runtime =
            crate::server::runtime::thread_runtime().map_err(|e| RecordError::NoAnswer {
                target: target.name.clone(),
                what: format!("cannot start an async runtime: {e}"),
                stderr_tail: String::new(),
            })?;
        let specs: BTreeMap<String, FileSpec> = source
            .files
            .iter()
            .map(|(path, text)| {
                let value = match text {
                    Some(text) => json!(text),
                    None => json!({ "dir": true }),
                };
                serde_json::from_value(value)
                    .map(|spec| (path.clone(), spec))
                    .map_err(|e| RecordError::Fixture(format!("{path}: {e}")))
            })
            .collect::<Result<_, _>>()?;
        let build = || {
            Fixture::build_over(source.tree, &specs, None, CanarySeed::fresh())
                .map_err(|e| RecordError::Fixture(e.to_string()))
        };
        let fixtures = [build()?, build()?];
        // Both servers start at once, each on its finished fixture, so a slow
        // start is paid once a session, not twice; the first is timed, from
        // its own start to its `initialize` answered.
        let [first, second] = &fixtures;
        let ((first, started_in), (second, _)) = runtime.block_on(async {
            tokio::join!(
                timed_launch(target, first.places(), timeout),
                timed_launch(target, second.places(), timeout)
            )
        });
        // The lines of its stderr that tell why, not its whole tail.
        let no_answer = |e: StartError| RecordError::NoAnswer {
            target: target.name.clone(),
            what: e.told(target),
            stderr_tail: String::new(),
        };
        // One that started beside one that did not is stopped, with all it
        // started; the first one's failure is told.
        let sessions = match (first, second) {
            (Ok(first), Ok(second)) => [first, second],
            (Err(e), other) => {
                if let Ok(started) = other {
                    let _ = runtime.block_on(started.stop());
                }
                return Err(no_answer(e));
            }
            (Ok(started), Err(e)) => {
                let _ = runtime.block_on(started.stop());
                return Err(no_answer(e));
            }
        };
        let runs = fixtures
            .into_iter()
            .zip(sessions)
            .map(|(fixture, session)| {
                let root = fixture.root().to_string_lossy().into_owned();
                // The machine's places as this server was given them, so an
                // answer naming them is written `{scratch}`, `{home}`, `{tmp}`.
                let bindings = Bindings::new(&root).with_places(session.places());
                Run {
                    fixture,
                    session,
                    bindings,
                }
            })
            .collect();
        Ok(LiveSession {
            runtime,
            runs,
            convention,
            timeout,
            target: target.clone(),
            started_in,
        })
    }

    /// The tools the first run's server lists, or why it could not say.
    pub(crate) fn listed(&self) -> Result<Vec<String>, String> {
        let first = self.runs.first().ok_or("no server")?;
        self.runtime
            .block_on(first.session.list_tools(self.timeout))
            .map(|tools| tools.into_iter().map(|tool| tool.name).collect())
            .map_err(|e| e.to_string())
    }

    /// Makes the call `tool` with `args` (`{root}` where the root goes) on
    /// both runs: each run's answer and what the call did to its fixture.
    pub(crate) fn call(
        &mut self,
        tool: &str,
        args: &Map<String, Value>,
    ) -> Result<[RunAnswer; 2], RecordError> {
        let mut answers = Vec::new();
        for run in &mut self.runs {
            answers.push(call_on(
                &self.runtime,
                run,
                &self.target,
                self.convention,
                self.timeout,
                (tool, args),
            )?);
        }
        let second = answers.pop().ok_or(RecordError::NoScenario)?;
        let first = answers.pop().ok_or(RecordError::NoScenario)?;
        Ok([first, second])
    }

    /// Stops both servers, with everything they started; returns the warning
    /// that the first wrote lines that are not JSON on stdout, skipped
    /// (`Target::skip_stdout_noise`), if it did.
    pub(crate) fn stop(self) -> Option<String> {
        let noise = self.runs.first().and_then(|run| run.session.stdout_noise());
        for run in self.runs {
            // A server that does not stop cleanly has already answered every call.
            let _ = self.runtime.block_on(run.session.stop());
        }
        noise
    }
}

/// Starts `target` on a fixture's places with no settings, and how long it
/// took to start and answer `initialize`.
async fn timed_launch(
    target: &Target,
    places: Places<'_>,
    timeout: Duration,
) -> (Result<Session, StartError>, Duration) {
    let starting = Instant::now();
    let launched = Session::launch(target, places, &BTreeMap::new(), timeout).await;
    (launched, starting.elapsed())
}

/// One call on one run: the fixture read before and after it, and its answer
/// and new file texts read by judging a probe `then` that cannot hold (so the
/// answer is read the suite's way, the root written `{root}`).
fn call_on(
    runtime: &tokio::runtime::Runtime,
    run: &mut Run,
    target: &Target,
    convention: Convention,
    timeout: Duration,
    (tool, args): (&str, &Map<String, Value>),
) -> Result<RunAnswer, RecordError> {
    let root = run.fixture.root().to_path_buf();
    let before = snapshot(&root);
    let filled = run.bindings.fill_value(&Value::Object(args.clone()));
    let Value::Object(filled) = filled else {
        return Err(RecordError::NoScenario);
    };
    let (sent_tool, sent_args) = target.translate(tool, filled);
    let outcome = runtime.block_on(run.session.call(&sent_tool, sent_args, timeout));
    if let CallOutcome::Transport(_) | CallOutcome::Timeout(_) = &outcome {
        return Err(RecordError::NoAnswer {
            target: target.name.clone(),
            what: outcome.summary(),
            stderr_tail: run.session.stderr_tail(),
        });
    }
    let after = snapshot(&root);
    let changed = changes(&before, &after);
    let mut probe = json!({ "is_error": true, "text": "\u{0}" });
    if convention.has_codes() {
        probe["code"] = json!("");
    }
    let mut probed = Map::new();
    for (path, change) in &changed {
        if let Change::Text = change {
            probed.insert(path.clone(), json!("\u{0}"));
        }
    }
    probe["files"] = Value::Object(probed);
    let probe: Then =
        serde_json::from_value(probe).map_err(|e| RecordError::Fixture(e.to_string()))?;
    let mismatches = judge(
        &probe,
        convention,
        &outcome,
        &run.fixture,
        &run.bindings,
        Instant::now() + timeout,
    );
    let answer = read_answer(&mismatches)?;
    let mut files = BTreeMap::new();
    for (path, change) in changed {
        let after = match change {
            Change::Removed => FileAfter::Removed,
            Change::Binary => FileAfter::Binary,
            Change::Text => {
                let key = format!("files[{path}]");
                let text = mismatches
                    .iter()
                    .find(|m| m.key == key)
                    .and_then(|m| m.blessed.as_ref()?.as_str().map(str::to_string));
                match text {
                    Some(text) => FileAfter::Text(text),
                    // The probe held: the file's text is the probe's own.
                    None => FileAfter::Text("\u{0}".into()),
                }
            }
        };
        files.insert(path, after);
    }
    Ok(RunAnswer { answer, files })
}
