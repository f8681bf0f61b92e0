//! `record` calls only tools the server lists. A call to a tool it does not list
//! would come back as the server's "unknown tool" error, and record would
//! propose that as the golden answer; so the server's `tools/list` is read once
//! before any call, and a call to a tool not in it is refused with the list (and
//! the listed name closest to the one given, when one is within a typo's reach).

use std::time::Duration;

use crate::nearest::nearest;
use crate::server::preflight::{describe, PreflightError};
use crate::server::Target;

/// Why the calls cannot be made: the list could not be read, or names no tool
/// the calls need.
#[derive(Debug, thiserror::Error)]
pub(crate) enum UnlistedError {
    #[error("`{target}` gave no answer: {source}")]
    CannotList {
        target: String,
        #[source]
        source: PreflightError,
    },
    #[error("`{target}` lists no tool `{tool}`{}; {}{}", renamed(.tool, .asked), listed_words(.listed), did_you_mean(.nearest))]
    Unlisted {
        target: String,
        /// The suite's name for the tool.
        asked: String,
        /// The server's name for it (the target's rename applied).
        tool: String,
        listed: Vec<String>,
        nearest: Option<String>,
    },
}

fn renamed(tool: &str, asked: &str) -> String {
    match tool == asked {
        true => String::new(),
        false => format!(" (the suite's `{asked}`, renamed by the target)"),
    }
}

fn listed_words(listed: &[String]) -> String {
    match listed.is_empty() {
        true => "its tools/list is empty".into(),
        false => format!("its tools/list names: {}", listed.join(", ")),
    }
}

fn did_you_mean(nearest: &Option<String>) -> String {
    nearest
        .as_deref()
        .map(|n| format!(" (did you mean `{n}`?)"))
        .unwrap_or_default()
}

/// Starts `target` once and checks that it lists every tool of `tools` (the
/// suite's names, in the order the calls make them); the first one it does not
/// list is refused. A server that starts but does not answer `tools/list` is
/// not refused for it (the calls may still work): the check is skipped and the
/// reason returned, to be shown.
pub(crate) fn check_listed(
    target: &Target,
    tools: &[&str],
    timeout: Duration,
) -> Result<Listed, UnlistedError> {
    let described = match describe(target, timeout) {
        Ok(described) => described,
        Err(PreflightError::List(why)) => {
            return Ok(Listed {
                unchecked: Some(format!(
                    "the tools called are not checked against `{}`'s tools/list: {why}",
                    target.name
                )),
                started_in: None,
            })
        }
        Err(source) => {
            return Err(UnlistedError::CannotList {
                target: target.name.clone(),
                source,
            })
        }
    };
    let started_in = Some(described.started_in);
    let listed: Vec<String> = described.tools.into_iter().map(|t| t.name).collect();
    for asked in tools {
        let tool = target.translate(asked, serde_json::Map::new()).0;
        if listed.contains(&tool) {
            continue;
        }
        let names: Vec<&str> = listed.iter().map(String::as_str).collect();
        return Err(UnlistedError::Unlisted {
            target: target.name.clone(),
            asked: asked.to_string(),
            nearest: nearest(&tool, &names).map(str::to_string),
            tool,
            listed,
        });
    }
    Ok(Listed {
        unchecked: None,
        started_in,
    })
}

/// What the check found besides a refusal.
pub(crate) struct Listed {
    /// Why the tools were not checked, when the server did not answer
    /// tools/list, to be shown.
    pub unchecked: Option<String>,
    /// How long the server took to start and answer `initialize`, when it
    /// listed its tools.
    pub started_in: Option<Duration>,
}
