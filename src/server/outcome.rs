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

    /// The content blocks that are not text, each as its type and what it holds
    /// (`image (image/png)`), read from the result as it came over the wire.
    pub(crate) fn other_content(&self) -> Vec<String> {
        let blocks = self.raw.get("content").and_then(Value::as_array);
        blocks
            .into_iter()
            .flatten()
            .filter(|block| block.get("type").and_then(Value::as_str) != Some("text"))
            .map(|block| {
                let kind = block
                    .get("type")
                    .and_then(Value::as_str)
                    .unwrap_or("untyped");
                let detail = block
                    .get("mimeType")
                    .or_else(|| block.get("uri"))
                    .or_else(|| block.pointer("/resource/uri"))
                    .and_then(Value::as_str);
                match detail {
                    Some(detail) => format!("{} ({})", kind, crate::visible::excerpt(detail, 80)),
                    None => kind.to_string(),
                }
            })
            .collect()
    }

    /// When the result has no text but other content came back, a sentence saying
    /// so: an expectation on the text then reads as what happened, not as an empty
    /// text.
    pub(crate) fn no_text_note(&self) -> Option<String> {
        let others = self.other_content();
        (self.text.is_empty() && !others.is_empty()).then(|| {
            format!(
                "the result has no text content; non-text content came back instead: {}",
                others.join(", ")
            )
        })
    }
}

impl CallOutcome {
    /// What came back, as the text a reader compares: a tool result's text, else
    /// [`CallOutcome::summary`]; cut at `limit` bytes (on a character boundary) with
    /// a note saying how much was left out.
    pub(crate) fn answer_text(&self, limit: usize) -> String {
        let whole = match self {
            CallOutcome::Result(r) if !r.text.is_empty() || r.other_content().is_empty() => {
                r.text.clone()
            }
            other => other.summary(),
        };
        if whole.len() <= limit {
            return whole;
        }
        let mut end = limit;
        while !whole.is_char_boundary(end) {
            end -= 1;
        }
        format!(
            "{}\n[... {} more bytes left out of the report]",
            &whole[..end],
            whole.len() - end
        )
    }

    /// One line saying what came back, for reports.
    pub(crate) fn summary(&self) -> String {
        match self {
            CallOutcome::Result(r) => {
                let flag = match r.is_error {
                    Some(b) => format!("isError: {b}"),
                    None => "isError absent".to_string(),
                };
                match r.other_content() {
                    others if r.text.is_empty() && !others.is_empty() => format!(
                        "tool result ({flag}) with no text, only {}",
                        others.join(", ")
                    ),
                    _ => format!(
                        "tool result ({flag}): {}",
                        crate::visible::excerpt(&r.text, 200)
                    ),
                }
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
