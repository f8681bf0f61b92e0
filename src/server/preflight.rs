//! Before a suite runs against a target: does the server list the tools and
//! arguments the suite will call? A server without `bash` would otherwise show up as
//! a wall of identical failures; the preflight says it once, up front, and points at
//! the renames a target file can make.

use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

use crate::fixture::Fixture;
use crate::scenario::Suite;
use crate::server::session::ListToolsError;
use crate::server::{ListedTool, Session, Target};

/// What the server lists, and what it lacks, in the server's own names.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Gaps {
    /// Every tool the server lists: scenarios calling a suite tool not among them
    /// are UNSUPPORTED.
    pub listed: BTreeSet<String>,
    /// Tools of the suite's `tools:` that the server does not list.
    pub unsupported_tools: Vec<String>,
    /// Other tools the suite calls that the server does not list.
    pub missing_tools: Vec<String>,
    /// `(tool, argument)` pairs the suite sends that the tool's schema does not declare.
    pub unknown_arguments: Vec<(String, String)>,
}

impl Gaps {
    /// One line per gap, for the run's output.
    pub(crate) fn lines(&self, target: &str) -> Vec<String> {
        let mut lines = Vec::new();
        if !self.unsupported_tools.is_empty() {
            lines.push(format!(
                "note: `{target}` does not list the suite's tool(s) {}: the scenarios calling them are UNSUPPORTED (a target file can rename tools; `require_all_tools: true` makes them FAIL)",
                self.unsupported_tools.join(", ")
            ));
        }
        if !self.missing_tools.is_empty() {
            lines.push(format!(
                "note: `{target}` does not list tool(s) {}: scenarios calling them will fail (a target file can rename tools)",
                self.missing_tools.join(", ")
            ));
        }
        for (tool, arg) in &self.unknown_arguments {
            lines.push(format!(
                "note: `{target}`'s tool `{tool}` declares no argument `{arg}` (a target file can rename arguments)"
            ));
        }
        lines
    }
}

/// The tools and argument names the suite's scenarios send, after the target's renames.
///
/// The judged call of a scenario that expects a refusal (an error result, a code or
/// a JSON-RPC error) is left out: an unknown tool or argument there is the point of
/// the scenario, not a gap of the server.
pub(crate) fn calls_of(suite: &Suite, target: &Target) -> BTreeMap<String, BTreeSet<String>> {
    let mut used: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (_, scenario) in suite.scenarios() {
        let then = &scenario.then;
        let expects_refusal =
            then.is_error == Some(true) || then.code.is_some() || then.protocol_error.is_some();
        let judged = if expects_refusal {
            scenario
                .when
                .0
                .split_last()
                .map_or(&[][..], |(_, earlier)| earlier)
        } else {
            &scenario.when.0[..]
        };
        for call in scenario.given.calls.iter().chain(judged) {
            let (tool, args) = target.translate(&call.tool, call.args.to_map());
            used.entry(tool).or_default().extend(args.keys().cloned());
        }
    }
    used
}

/// Why the tool list could not be read. The run goes on without the preflight: a
/// note says why, and each scenario meets the same trouble on its own.
#[derive(Debug, thiserror::Error)]
pub(crate) enum PreflightError {
    #[error("cannot start an async runtime: {0}")]
    Runtime(#[source] std::io::Error),
    #[error("{0}")]
    Fixture(#[source] std::io::Error),
    /// The server did not start or finish the handshake: why, with the lines of
    /// its stderr that tell it.
    #[error("{0}")]
    Start(String),
    /// `tools/list` failed.
    #[error("{0}")]
    List(#[source] ListToolsError),
    /// The server broke out of its containment while it was asked.
    #[error("{0}")]
    Containment(String),
}

/// What a server says of itself: its name and its tools.
#[derive(Debug)]
pub(crate) struct Description {
    /// The name in its answer to `initialize`, if it gave one.
    pub name: Option<String>,
    /// Its whole tool list.
    pub tools: Vec<ListedTool>,
}

/// Starts the target once on an empty fixture and reads its name and whole tool
/// list.
pub(crate) fn describe(target: &Target, timeout: Duration) -> Result<Description, PreflightError> {
    let runtime = super::runtime::thread_runtime().map_err(PreflightError::Runtime)?;
    runtime.block_on(async {
        let fixture = Fixture::build(&BTreeMap::new()).map_err(PreflightError::Fixture)?;
        let session = Session::launch(target, fixture.places(), &BTreeMap::new(), timeout)
            .await
            .map_err(|e| PreflightError::Start(e.told(target)))?;
        let name = session.server_name();
        let listed = session.list_tools(timeout).await;
        session
            .stop()
            .await
            .map_err(|broken| PreflightError::Containment(broken.to_string()))?;
        let tools = listed.map_err(PreflightError::List)?;
        Ok(Description { name, tools })
    })
}

/// Starts the target once on an empty fixture and compares its tool list with what
/// the suite will call.
pub(crate) fn check(
    suite: &Suite,
    target: &Target,
    timeout: Duration,
) -> Result<Gaps, PreflightError> {
    let listed: BTreeMap<String, Option<Vec<String>>> = describe(target, timeout)?
        .tools
        .into_iter()
        .map(|tool| (tool.name, tool.arguments))
        .collect();
    let declared: BTreeSet<String> = suite
        .config
        .tools
        .iter()
        .map(|t| target.translate(t, serde_json::Map::new()).0)
        .collect();
    let mut gaps = Gaps {
        listed: listed.keys().cloned().collect(),
        unsupported_tools: declared
            .iter()
            .filter(|t| !listed.contains_key(*t))
            .cloned()
            .collect(),
        ..Gaps::default()
    };
    for (tool, args) in calls_of(suite, target) {
        match listed.get(&tool) {
            None if declared.contains(&tool) => {}
            None => gaps.missing_tools.push(tool),
            Some(Some(declared)) => gaps.unknown_arguments.extend(
                args.into_iter()
                    .filter(|a| !declared.contains(a))
                    .map(|a| (tool.clone(), a)),
            ),
            Some(None) => {}
        }
    }
    Ok(gaps)
}
