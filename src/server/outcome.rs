//! What one tool call came back as.
//!
//! Every call ends in exactly one of these, so a verdict can tell a wrong answer
//! (the server answered, but not as the spec says) from a broken server.

use std::time::Duration;

use serde_json::Value;

#[derive(Debug, Clone)]
pub(crate) enum CallOutcome {
    /// A `tools/call` result, whatever its `isError`.
    Result(ToolResult),
    /// A JSON-RPC error response instead of a result.
    Protocol { code: i32, message: String },
    /// The connection broke: the server died, or wrote something that is not JSON-RPC.
    Transport(String),
    /// No answer within the per-call timeout.
    Timeout(Duration),
}

/// A tool result as the harness judges it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ToolResult {
    /// `isError` as sent: `None` when the field was absent.
    pub is_error: Option<bool>,
    /// The text content blocks joined with `\n`.
    pub text: String,
    /// The whole result as it came over the wire, for reports.
    pub raw: Value,
}

impl ToolResult {
    pub(crate) fn is_error(&self) -> bool {
        self.is_error == Some(true)
    }
}

impl CallOutcome {
    /// One line saying what came back, for reports.
    pub(crate) fn summary(&self) -> String {
        match self {
            CallOutcome::Result(r) => {
                let flag = match r.is_error {
                    Some(b) => format!("isError: {b}"),
                    None => "isError absent".to_string(),
                };
                format!(
                    "tool result ({flag}): {}",
                    crate::visible::excerpt(&r.text, 200)
                )
            }
            CallOutcome::Protocol { code, message } => {
                format!("JSON-RPC error {code}: {message}")
            }
            CallOutcome::Transport(why) => format!("connection failed: {why}"),
            CallOutcome::Timeout(after) => {
                format!("no answer within {} ms", after.as_millis())
            }
        }
    }
}

impl From<rmcp::model::CallToolResult> for ToolResult {
    fn from(result: rmcp::model::CallToolResult) -> Self {
        let text = result
            .content
            .iter()
            .filter_map(|block| block.as_text().map(|t| t.text.as_str()))
            .collect::<Vec<_>>()
            .join("\n");
        let raw = serde_json::to_value(&result).unwrap_or(Value::Null);
        ToolResult {
            is_error: result.is_error,
            text,
            raw,
        }
    }
}
