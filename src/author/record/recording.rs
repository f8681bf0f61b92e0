//! A session's calls made scenarios: each call made on both runs of a live
//! session (`session.rs`), its answers merged into the `then` the suite's
//! convention reads (`live_call.rs`), what it did to the fixture written as
//! `then.files`, and the calls before it as `given.calls`, so that running
//! the scenario alone rebuilds the server's state (a read-before-edit rule)
//! and the fixture's.

use std::collections::BTreeSet;
use std::time::Duration;

use serde_json::{json, Map, Value};

use super::live_call::{answer_then, RecordError, RecordedScenario};
use super::names::{default_name, unique};
use super::scenario_item::{item, ItemSpec};
use super::session::{FileAfter, FixtureSource, LiveSession};
use crate::author::two_answers::merged;
use crate::scenario::Suite;
use crate::server::Target;

/// What a session starts from and is written with.
pub(crate) struct SessionPlan<'a> {
    pub suite: &'a Suite,
    pub target: &'a Target,
    pub timeout: Duration,
    /// The fixture each run is built from.
    pub source: FixtureSource<'a>,
    /// The name of the tree the scenarios give (`given.tree`), when there is one.
    pub tree_name: Option<&'a str>,
}

/// A live session and the calls made in it so far.
pub(crate) struct SessionRecorder<'a> {
    plan: SessionPlan<'a>,
    live: LiveSession,
    earlier: Vec<(String, Map<String, Value>)>,
}

impl<'a> SessionRecorder<'a> {
    /// Builds both fixtures and starts both servers.
    pub(crate) fn start(plan: SessionPlan<'a>) -> Result<SessionRecorder<'a>, RecordError> {
        let live = LiveSession::start(
            plan.target,
            &plan.source,
            plan.suite.config.convention,
            plan.timeout,
        )?;
        Ok(SessionRecorder {
            plan,
            live,
            earlier: Vec::new(),
        })
    }

    /// How long the first server took to start and answer `initialize`.
    pub(crate) fn started_in(&self) -> Duration {
        self.live.started_in()
    }

    /// The tools the server lists, or why it could not say.
    pub(crate) fn listed(&self) -> Result<Vec<String>, String> {
        self.live.listed()
    }

    /// Makes the call and writes it as a scenario named `name` (or by
    /// default, unique among `taken`).
    pub(crate) fn record(
        &mut self,
        tool: &str,
        args: &Map<String, Value>,
        name: Option<&str>,
        taken: &mut BTreeSet<String>,
    ) -> Result<RecordedScenario, RecordError> {
        let [first, second] = self.live.call(tool, args)?;
        let answered = answer_then(
            first.answer,
            second.answer,
            self.plan.suite.config.convention,
        )?;
        let mut loosened = answered.loosened;
        let mut notes = Vec::new();
        let mut then_files = Vec::new();
        let paths: BTreeSet<&String> = first.files.keys().chain(second.files.keys()).collect();
        for path in paths {
            let value = match (first.files.get(path), second.files.get(path)) {
                (Some(FileAfter::Text(a)), Some(FileAfter::Text(b))) => {
                    let made = merged(&json!(a), &json!(b), true)?;
                    loosened.extend(
                        made.loosened
                            .into_iter()
                            .map(|l| format!("`files: {path}`: {l}")),
                    );
                    made.value
                }
                (Some(FileAfter::Removed), Some(FileAfter::Removed)) => json!({ "absent": true }),
                (Some(FileAfter::Binary), Some(FileAfter::Binary)) => {
                    notes.push(format!(
                        "{path} was written and is not UTF-8 text: checked only to exist (`contains: []`)"
                    ));
                    json!({ "contains": [] })
                }
                _ => {
                    notes.push(format!(
                        "{path} was changed otherwise in the two runs: not checked"
                    ));
                    continue;
                }
            };
            then_files.push((path.clone(), value));
        }
        let chosen = match name {
            Some(name) => name.to_string(),
            None => default_name(tool, args, answered.failure.is_some()),
        };
        let name = unique(chosen, taken);
        let text = item(&ItemSpec {
            name: &name,
            tool,
            target_name: &self.plan.target.name,
            tree: self.plan.tree_name,
            files: self.plan.source.files,
            earlier: &self.earlier,
            args,
            then: &answered.then,
            then_files: &then_files,
        });
        self.earlier.push((tool.to_string(), args.clone()));
        Ok(RecordedScenario {
            name,
            item: text,
            loosened,
            notes,
            failure: answered.failure,
        })
    }

    /// Stops both servers; returns the warning of stdout noise skipped, if any.
    pub(crate) fn stop(self) -> Option<String> {
        self.live.stop()
    }
}

/// The names of the scenarios of the suite file `into`, which recorded ones
/// must not take.
pub(crate) fn names_taken(suite: &Suite, into: &str) -> BTreeSet<String> {
    suite
        .files
        .iter()
        .filter(|f| f.stem == into)
        .flat_map(|f| f.content.scenarios.iter().map(|s| s.name.clone()))
        .collect()
}
