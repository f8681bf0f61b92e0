//! A scenario that calls a tool of the suite which the server does not list cannot
//! say anything about how the server does that tool: it is UNSUPPORTED, not failed,
//! unless the target claims the whole spec.

use std::collections::BTreeSet;

use crate::execute::Verdict;
use crate::judge::Mismatch;
use crate::scenario::{Scenario, Suite};
use crate::server::Target;

/// A suite tool a scenario calls that the server does not list.
pub(super) struct MissingTool {
    /// The suite's name for it.
    suite_name: String,
    /// The name the server was asked for, after the target's renames.
    server_name: String,
}

impl MissingTool {
    /// UNSUPPORTED, or a FAIL when the target says it implements every tool.
    pub(super) fn verdict(&self, target: &Target) -> Verdict {
        let named = if self.suite_name == self.server_name {
            format!("`{}`", self.server_name)
        } else {
            format!("`{}` (the suite's `{}`)", self.server_name, self.suite_name)
        };
        if target.require_all_tools {
            Verdict::Fail(vec![Mismatch::new(
                "the suite's tools",
                format!(
                    "the server does not list {named}, and the target claims every tool of the spec (require_all_tools: true)"
                ),
            )
            .keyed("tools")])
        } else {
            Verdict::Unsupported(format!("the server does not list {named}"))
        }
    }
}

/// The first tool of the suite's `tools:` that `scenario` calls (in set-up or in
/// `when`) and `listed` lacks, once renamed for `target`.
pub(super) fn missing_tool(
    suite: &Suite,
    scenario: &Scenario,
    target: &Target,
    listed: &BTreeSet<String>,
) -> Option<MissingTool> {
    scenario
        .given
        .calls
        .iter()
        .chain(&scenario.when.0)
        .filter(|call| suite.config.tools.contains(&call.tool))
        .map(|call| MissingTool {
            suite_name: call.tool.clone(),
            server_name: target.translate(&call.tool, serde_json::Map::new()).0,
        })
        .find(|tool| !listed.contains(&tool.server_name))
}
