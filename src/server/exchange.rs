//! Which requests wait for an answer, and whether what a server sends answers one.
//!
//! rmcp is lenient where a conformance harness must not be: it lets a response with
//! the string id `"1"` answer request `1`, and it reads a `tools/call` result that
//! has no `content` as an empty text. Either would let a broken server pass a
//! scenario. So every message a server sends is checked here as raw JSON, before
//! rmcp reads it: by the stdout guard over stdio, by the checked HTTP client over
//! HTTP. A message that fails the check ends the connection with the reason, the way
//! a line that is not JSON-RPC does.
//!
//! Requests are recorded as they are sent, by [`Recorded`], a transport wrapper.

use std::sync::{Arc, Mutex};

use rmcp::service::{RoleClient, RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use serde_json::Value;

use crate::visible::excerpt;

/// How a message from the server breaks the exchange: what the connection ends
/// with. Each quotes (an excerpt of) what the server sent.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub(super) enum Violation {
    /// Neither `method`, `result` nor `error`.
    #[error("the server sent a message that is neither a request, a notification nor a response (it has no `method`, `result` or `error`): {shown}")]
    NoKind {
        /// The message.
        shown: String,
    },
    /// Both `result` and `error`.
    #[error("the server sent a response with both `result` and `error`: {shown}")]
    ResultAndError {
        /// The message.
        shown: String,
    },
    /// An error with a null or missing id.
    #[error(
        "the server sent a JSON-RPC error without an id (it could not read a request): {shown}"
    )]
    ErrorWithoutId {
        /// The error.
        shown: String,
    },
    /// A result with a null or missing id.
    #[error("the server sent a response without an id: {shown}")]
    ResponseWithoutId {
        /// The message.
        shown: String,
    },
    /// An answer to `tools/call` that is no CallToolResult.
    #[error("the server's answer to tools/call is not a valid CallToolResult: {problem}; the result was {shown}")]
    NotCallToolResult {
        /// What is wrong with it.
        problem: String,
        /// The result.
        shown: String,
    },
    /// A response whose id no waiting request has.
    #[error("a response with id {id} arrived; {}", waiting_text(waiting))]
    Unexpected {
        /// The id it has.
        id: Value,
        /// The ids of the requests that were waiting, as JSON.
        waiting: Vec<String>,
    },
    /// The waiting list's lock was poisoned.
    #[error("the list of waiting requests is unusable")]
    WaitingListUnusable,
}

/// The requests waiting, for [`Violation::Unexpected`].
fn waiting_text(waiting: &[String]) -> String {
    match waiting {
        [] => "no request was waiting for an answer".to_string(),
        [one] => format!("the request was {one}"),
        many => format!("the requests waiting were {}", many.join(", ")),
    }
}

/// The requests sent and not yet answered, shared by the sending and the reading side.
#[derive(Debug, Default)]
pub(super) struct Exchange {
    /// Each waiting request's id, exactly as sent, and its method.
    waiting: Mutex<Vec<(Value, String)>>,
}

impl Exchange {
    /// Records a request the client is about to send; other messages need no answer.
    pub(super) fn sending(&self, message: &TxJsonRpcMessage<RoleClient>) {
        let Ok(Value::Object(sent)) = serde_json::to_value(message) else {
            return;
        };
        if let (Some(id), Some(Value::String(method))) = (sent.get("id"), sent.get("method")) {
            if let Ok(mut waiting) = self.waiting.lock() {
                waiting.push((id.clone(), method.clone()));
            }
        }
    }

    /// Checks one JSON-RPC message from the server: a response must answer a waiting
    /// request, with the same id of the same JSON type, and an answer to `tools/call`
    /// must be a valid CallToolResult. Requests and notifications from the server
    /// pass unchecked.
    pub(super) fn received(&self, message: &Value) -> Result<(), Violation> {
        let Some(fields) = message.as_object() else {
            return Ok(());
        };
        if fields.contains_key("method") {
            return Ok(());
        }
        let (result, error) = (fields.get("result"), fields.get("error"));
        match (result, error) {
            (None, None) => {
                return Err(Violation::NoKind {
                    shown: excerpt(&message.to_string(), 300),
                })
            }
            (Some(_), Some(_)) => {
                return Err(Violation::ResultAndError {
                    shown: excerpt(&message.to_string(), 300),
                })
            }
            _ => {}
        }
        let id = fields.get("id").unwrap_or(&Value::Null);
        if id.is_null() {
            return Err(match error {
                Some(error) => Violation::ErrorWithoutId {
                    shown: excerpt(&error.to_string(), 300),
                },
                None => Violation::ResponseWithoutId {
                    shown: excerpt(&message.to_string(), 300),
                },
            });
        }
        let method = self.answered(id)?;
        match result {
            Some(result) if method == "tools/call" => match call_result_problem(result) {
                Some(problem) => Err(Violation::NotCallToolResult {
                    problem,
                    shown: excerpt(&result.to_string(), 300),
                }),
                None => Ok(()),
            },
            _ => Ok(()),
        }
    }

    /// Takes the request `id` answers off the waiting list, and returns its method.
    fn answered(&self, id: &Value) -> Result<String, Violation> {
        let mut waiting = self
            .waiting
            .lock()
            .map_err(|_| Violation::WaitingListUnusable)?;
        if let Some(at) = waiting.iter().position(|(sent, _)| same_id(sent, id)) {
            return Ok(waiting.remove(at).1);
        }
        Err(Violation::Unexpected {
            id: id.clone(),
            waiting: waiting.iter().map(|(sent, _)| sent.to_string()).collect(),
        })
    }
}

/// JSON-RPC ids match when they are the same JSON value: a string never matches a
/// number, and numbers match by value (`1` and `1.0` are one number).
fn same_id(sent: &Value, received: &Value) -> bool {
    match (sent, received) {
        (Value::Number(a), Value::Number(b)) => a == b || a.as_f64() == b.as_f64(),
        (a, b) => a == b,
    }
}

/// The content block types MCP defines.
const CONTENT_TYPES: [&str; 5] = ["text", "image", "audio", "resource", "resource_link"];

/// What makes `result` not a CallToolResult, if anything: it must be an object with a
/// `content` list (empty is allowed) of blocks that each name a type MCP defines,
/// a text block must carry its text, and `isError`, when present, is a boolean.
fn call_result_problem(result: &Value) -> Option<String> {
    let Some(fields) = result.as_object() else {
        return Some(format!("it is {}, not an object", kind(result)));
    };
    let Some(content) = fields.get("content") else {
        return Some(
            "it has no `content` (a list of content blocks, empty if nothing came back)".into(),
        );
    };
    let Some(blocks) = content.as_array() else {
        return Some(format!("`content` is {}, not a list", kind(content)));
    };
    for (i, block) in blocks.iter().enumerate() {
        let Some(block) = block.as_object() else {
            return Some(format!(
                "content[{i}] is {}, not an object",
                kind(&blocks[i])
            ));
        };
        match block.get("type") {
            None => return Some(format!("content[{i}] has no `type`")),
            Some(Value::String(t)) if !CONTENT_TYPES.contains(&t.as_str()) => {
                return Some(format!(
                    "content[{i}] has type {:?}, which MCP does not define (it defines {})",
                    t,
                    CONTENT_TYPES.join(", ")
                ))
            }
            Some(Value::String(t))
                if t == "text" && !block.get("text").is_some_and(Value::is_string) =>
            {
                return Some(format!(
                    "content[{i}] is a text block without a string `text`"
                ))
            }
            Some(Value::String(_)) => {}
            Some(other) => {
                return Some(format!(
                    "content[{i}] has a `type` that is {}, not a string",
                    kind(other)
                ))
            }
        }
    }
    match fields.get("isError") {
        Some(flag) if !flag.is_boolean() => {
            Some(format!("`isError` is {}, not true or false", kind(flag)))
        }
        _ => None,
    }
}

/// A JSON value's kind, with the value when short, for messages.
fn kind(value: &Value) -> String {
    let what = match value {
        Value::Null => return "null".into(),
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    };
    format!("{what} ({})", excerpt(&value.to_string(), 60))
}

/// A transport that records every request it sends in an [`Exchange`], so that the
/// reading side can tell an answer from a stray response.
pub(super) struct Recorded<T> {
    inner: T,
    exchange: Arc<Exchange>,
}

impl<T> Recorded<T> {
    pub(super) fn new(inner: T, exchange: Arc<Exchange>) -> Self {
        Recorded { inner, exchange }
    }
}

impl<T: Transport<RoleClient>> Transport<RoleClient> for Recorded<T> {
    type Error = T::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleClient>,
    ) -> impl std::future::Future<Output = Result<(), Self::Error>> + Send + 'static {
        self.exchange.sending(&item);
        self.inner.send(item)
    }

    fn receive(
        &mut self,
    ) -> impl std::future::Future<Output = Option<RxJsonRpcMessage<RoleClient>>> + Send {
        self.inner.receive()
    }

    fn close(&mut self) -> impl std::future::Future<Output = Result<(), Self::Error>> + Send {
        self.inner.close()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn waiting(requests: &[(Value, &str)]) -> Exchange {
        let exchange = Exchange::default();
        if let Ok(mut list) = exchange.waiting.lock() {
            list.extend(requests.iter().map(|(id, m)| (id.clone(), m.to_string())));
        }
        exchange
    }

    #[test]
    fn a_string_id_does_not_answer_a_number_id() {
        let exchange = waiting(&[(json!(1), "tools/call")]);
        let stray = json!({"jsonrpc": "2.0", "id": "1", "result": {"content": []}});
        assert_eq!(
            exchange.received(&stray).map_err(|e| e.to_string()),
            Err("a response with id \"1\" arrived; the request was 1".into())
        );
        let answer = json!({"jsonrpc": "2.0", "id": 1, "result": {"content": []}});
        assert_eq!(exchange.received(&answer), Ok(()));
        // Answered once; a second answer is stray.
        let again = exchange.received(&answer).unwrap_err().to_string();
        assert!(again.contains("no request was waiting"), "{again}");
    }

    #[test]
    fn a_result_without_content_is_not_a_call_tool_result() {
        let exchange = waiting(&[(json!(7), "tools/call")]);
        let answer = json!({"jsonrpc": "2.0", "id": 7, "result": {"isError": false}});
        let why = exchange.received(&answer).unwrap_err().to_string();
        assert!(why.contains("has no `content`"), "{why}");
        assert!(why.contains(r#"{"isError":false}"#), "{why}");
    }

    #[test]
    fn other_methods_and_server_requests_pass() {
        let exchange = waiting(&[(json!(0), "initialize")]);
        let init = json!({"jsonrpc": "2.0", "id": 0, "result": {"protocolVersion": "x"}});
        assert_eq!(exchange.received(&init), Ok(()));
        let ping = json!({"jsonrpc": "2.0", "id": 0, "method": "ping"});
        assert_eq!(exchange.received(&ping), Ok(()));
        let note = json!({"jsonrpc": "2.0", "method": "notifications/message"});
        assert_eq!(exchange.received(&note), Ok(()));
    }

    #[test]
    fn a_message_that_is_no_kind_of_message_is_reported() {
        let exchange = waiting(&[(json!(1), "tools/call")]);
        let neither = json!({"jsonrpc": "2.0", "id": 1});
        let why = exchange.received(&neither).unwrap_err().to_string();
        assert!(
            why.contains("neither a request, a notification nor a response"),
            "{why}"
        );
        let both = json!({"jsonrpc": "2.0", "id": 1, "result": {"content": []}, "error": {"code": 1, "message": "m"}});
        let why = exchange.received(&both).unwrap_err().to_string();
        assert!(why.contains("both `result` and `error`"), "{why}");
    }

    #[test]
    fn an_error_without_an_id_is_reported() {
        let exchange = waiting(&[(json!(1), "tools/call")]);
        let error =
            json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32700, "message": "parse"}});
        let why = exchange.received(&error).unwrap_err().to_string();
        assert!(why.contains("without an id"), "{why}");
    }

    #[test]
    fn names_what_is_wrong_with_a_result() {
        let problem = |v: Value| call_result_problem(&v).unwrap_or_default();
        assert!(problem(json!([])).contains("a list"));
        assert!(problem(json!({"content": "x"})).contains("`content` is a string"));
        assert!(problem(json!({"content": [1]})).contains("content[0] is a number"));
        assert!(problem(json!({"content": [{"text": "x"}]})).contains("no `type`"));
        assert!(problem(json!({"content": [{"type": "video"}]})).contains("\"video\""));
        assert!(problem(json!({"content": [{"type": "text"}]})).contains("without a string"));
        assert!(problem(json!({"content": [], "isError": "no"})).contains("`isError` is a string"));
        assert_eq!(
            call_result_problem(
                &json!({"content": [{"type": "image", "data": "", "mimeType": "image/png"}]})
            ),
            None
        );
        assert_eq!(
            call_result_problem(&json!({"content": [], "isError": true})),
            None
        );
    }

    #[test]
    fn numbers_match_by_value() {
        assert!(same_id(&json!(1), &json!(1.0)));
        assert!(!same_id(&json!(1), &json!("1")));
        assert!(!same_id(&json!("a"), &json!("b")));
    }
}
