//! A target's tools/list read back in the suite's names: an oracle given as a
//! target file may rename tools and arguments, while `explore.yaml` and the
//! generated calls use the suite's, so its listing is renamed back before the
//! explore file is checked against it and arguments are drawn from it.

use std::collections::BTreeMap;
use std::time::Duration;

use serde_json::Value;

use crate::server::preflight::{describe, PreflightError};
use crate::server::{ListedTool, Target};

/// `listed` (as `target` spells it) with each tool and argument in the suite's
/// names; what the target does not rename keeps its name.
pub(crate) fn listed_in_suite_names(listed: Vec<ListedTool>, target: &Target) -> Vec<ListedTool> {
    listed
        .into_iter()
        .map(|tool| {
            let suite_name = target
                .tools
                .iter()
                .find(|(_, theirs)| **theirs == tool.name)
                .map_or_else(|| tool.name.clone(), |(ours, _)| ours.clone());
            let back: BTreeMap<&str, &str> = target
                .arguments
                .get(&suite_name)
                .into_iter()
                .flatten()
                .map(|(ours, theirs)| (theirs.as_str(), ours.as_str()))
                .collect();
            let rename = |name: &str| back.get(name).map_or(name, |ours| *ours).to_string();
            let mut schema = tool.input_schema.clone();
            if let Some(Value::Object(properties)) = schema.get_mut("properties") {
                *properties = std::mem::take(properties)
                    .into_iter()
                    .map(|(k, v)| (rename(&k), v))
                    .collect();
            }
            if let Some(Value::Array(required)) = schema.get_mut("required") {
                for name in required.iter_mut() {
                    if let Value::String(s) = name {
                        *s = rename(s);
                    }
                }
            }
            ListedTool {
                name: suite_name,
                description: tool.description,
                arguments: tool
                    .arguments
                    .map(|names| names.iter().map(|n| rename(n)).collect()),
                input_schema: schema,
            }
        })
        .collect()
}

/// Why a target's tools/list could not be read.
#[derive(Debug, thiserror::Error)]
pub(crate) enum ToolsListError {
    #[error("cannot build an empty fixture: {0}")]
    Fixture(#[source] std::io::Error),
    #[error("cannot start an async runtime: {0}")]
    Runtime(#[source] std::io::Error),
    /// The server did not start or answer `initialize` (its message).
    #[error("the oracle did not start: {0}")]
    Start(String),
    /// It started, but its tools/list failed (why).
    #[error("the oracle's tools/list: {0}")]
    List(String),
    /// It broke out of its containment while it was asked.
    #[error("the oracle broke out of its containment: {0}")]
    Containment(String),
}

impl From<PreflightError> for ToolsListError {
    fn from(error: PreflightError) -> Self {
        match error {
            PreflightError::Runtime(e) => ToolsListError::Runtime(e),
            PreflightError::Fixture(e) => ToolsListError::Fixture(e),
            PreflightError::Start(message) => ToolsListError::Start(message),
            PreflightError::List(why) => ToolsListError::List(why.to_string()),
            PreflightError::Containment(broken) => ToolsListError::Containment(broken),
        }
    }
}

/// The oracle's tools/list, from a server started on an empty fixture (as the
/// preflight starts one), in the suite's names (an oracle given as a target file
/// may rename them).
pub(crate) fn list_oracle_tools(
    oracle: &Target,
    timeout: Duration,
) -> Result<Vec<ListedTool>, ToolsListError> {
    let described = describe(oracle, timeout)?;
    Ok(listed_in_suite_names(described.tools, oracle))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renamed_tools_and_arguments_read_back_in_the_suite_names() {
        let target = Target {
            tools: BTreeMap::from([("view".to_string(), "read".to_string())]),
            arguments: BTreeMap::from([(
                "view".to_string(),
                BTreeMap::from([("path".to_string(), "file".to_string())]),
            )]),
            ..Target::default()
        };
        let listed = vec![
            ListedTool {
                name: "read".into(),
                description: String::new(),
                arguments: Some(vec!["file".into(), "limit".into()]),
                input_schema: serde_json::json!({
                    "properties": {"file": {"type": "string"}, "limit": {"type": "integer"}},
                    "required": ["file"]
                }),
            },
            ListedTool {
                name: "bash".into(),
                description: String::new(),
                arguments: None,
                input_schema: Value::Null,
            },
        ];
        let back = listed_in_suite_names(listed, &target);
        assert_eq!(back[0].name, "view");
        assert_eq!(back[0].arguments, Some(vec!["path".into(), "limit".into()]));
        assert!(back[0].input_schema.pointer("/properties/path").is_some());
        assert!(back[0].input_schema.pointer("/properties/file").is_none());
        assert_eq!(back[0].input_schema["required"][0], "path");
        assert_eq!(back[1].name, "bash");
    }
}
