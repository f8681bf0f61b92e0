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

/// Why the oracle's tools/list could not be read: the preflight's own error (it
/// is the same start on an empty fixture), told as the oracle's, since explore
/// has no run to go on with and stops on it.
#[derive(Debug, thiserror::Error)]
#[error("{}", oracle_words(.0))]
pub(crate) struct ToolsListError(#[from] PreflightError);

/// `why` in the words of an explore that needs the oracle's tools.
fn oracle_words(why: &PreflightError) -> String {
    match why {
        PreflightError::Runtime(_) => why.to_string(),
        PreflightError::Fixture(e) => format!("cannot build an empty fixture: {e}"),
        PreflightError::Start(message) => format!("the oracle did not start: {message}"),
        PreflightError::List(e) => format!("the oracle's tools/list: {e}"),
        PreflightError::Containment(broken) => {
            format!("the oracle broke out of its containment: {broken}")
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

    #[test]
    fn a_preflight_error_is_told_as_the_oracles() {
        let told = |why| ToolsListError::from(why).to_string();
        assert_eq!(
            told(PreflightError::Start("exit status 2".into())),
            "the oracle did not start: exit status 2"
        );
        assert_eq!(
            told(PreflightError::Fixture(std::io::Error::other("disk full"))),
            "cannot build an empty fixture: disk full"
        );
        assert_eq!(
            told(PreflightError::Runtime(std::io::Error::other("no threads"))),
            "cannot start an async runtime: no threads"
        );
        assert_eq!(
            told(PreflightError::Containment("wrote /etc/x".into())),
            "the oracle broke out of its containment: wrote /etc/x"
        );
    }
}
