//! A newline-delimited JSON log of JSON-RPC messages (what an MCP proxy in
//! front of a real agent session writes, one message a line) read for
//! `toolspec record --log`: the `tools/call` requests in it, each with its line
//! number; every other line (a response, a notification, another method) is
//! skipped and counted. A line that is not a JSON object, not UTF-8, or longer
//! than [`MAX_LINE`] is an error naming its line, and nothing is recorded.

use std::io::{BufRead, Read};

use serde_json::{Map, Value};

/// The longest line read: a JSON-RPC message of a tool call is far smaller,
/// and a log that holds a longer one is refused rather than read whole.
pub(crate) const MAX_LINE: u64 = 8 * 1024 * 1024;

/// Why the log could not be read, naming its line.
#[derive(Debug, thiserror::Error)]
pub(crate) enum CallLogError {
    #[error("line {line}: cannot read: {source}")]
    Read {
        line: usize,
        #[source]
        source: std::io::Error,
    },
    #[error("line {line}: longer than {} MiB; a log line is one JSON-RPC message", MAX_LINE / 1024 / 1024)]
    TooLong { line: usize },
    /// `column`: the 1-based column of the first bad byte.
    #[error("line {line}: not UTF-8 text (a bad byte at column {column})")]
    NotUtf8 { line: usize, column: usize },
    #[error("line {line}: not JSON: {source}")]
    NotJson {
        line: usize,
        #[source]
        source: serde_json::Error,
    },
    #[error(
        "line {line}: a JSON value that is not an object; each line must be one JSON-RPC message"
    )]
    NotAnObject { line: usize },
    #[error("line {line}: a tools/call request without `params`")]
    NoParams { line: usize },
    #[error("line {line}: a tools/call request whose `params.name` is not a string")]
    NameNotAString { line: usize },
    #[error("line {line}: a tools/call request whose `params.arguments` is not an object")]
    ArgumentsNotAnObject { line: usize },
}

/// One `tools/call` request of the log.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct LoggedCall {
    /// Its line in the log, from 1.
    pub line: usize,
    pub tool: String,
    pub args: Map<String, Value>,
}

/// What the log held: its calls, and the lines skipped, by why.
#[derive(Debug, Default, PartialEq)]
pub(crate) struct CallLog {
    pub calls: Vec<LoggedCall>,
    pub responses: usize,
    pub notifications: usize,
    /// Requests of another method (`initialize`, `tools/list`, ...).
    pub other_requests: usize,
    pub blank: usize,
}

impl CallLog {
    /// The lines skipped, said in one line.
    pub(crate) fn skipped(&self) -> String {
        let total = self.responses + self.notifications + self.other_requests + self.blank;
        format!(
            "{total} lines that are not tools/call requests ({} responses, {} notifications, {} requests of other methods, {} blank)",
            self.responses, self.notifications, self.other_requests, self.blank
        )
    }
}

/// Reads the log from `source`.
pub(crate) fn read_call_log(source: impl Read) -> Result<CallLog, CallLogError> {
    let mut reader = std::io::BufReader::new(source);
    let mut log = CallLog::default();
    let mut bytes = Vec::new();
    for line in 1.. {
        bytes.clear();
        let read = (&mut reader)
            .take(MAX_LINE + 1)
            .read_until(b'\n', &mut bytes)
            .map_err(|source| CallLogError::Read { line, source })?;
        if read == 0 {
            break;
        }
        if bytes.len() as u64 > MAX_LINE {
            return Err(CallLogError::TooLong { line });
        }
        let text = std::str::from_utf8(&bytes).map_err(|e| CallLogError::NotUtf8 {
            line,
            column: e.valid_up_to() + 1,
        })?;
        let text = text.trim();
        if text.is_empty() {
            log.blank += 1;
            continue;
        }
        let message: Value =
            serde_json::from_str(text).map_err(|source| CallLogError::NotJson { line, source })?;
        let Value::Object(message) = message else {
            return Err(CallLogError::NotAnObject { line });
        };
        match (message.get("method"), message.contains_key("id")) {
            (None, _) => log.responses += 1,
            (Some(_), false) => log.notifications += 1,
            (Some(method), true) if method != "tools/call" => log.other_requests += 1,
            (Some(_), true) => log.calls.push(call(line, &message)?),
        }
    }
    Ok(log)
}

/// The tool and arguments of the `tools/call` request on `line`.
fn call(line: usize, message: &Map<String, Value>) -> Result<LoggedCall, CallLogError> {
    let params = message
        .get("params")
        .and_then(Value::as_object)
        .ok_or(CallLogError::NoParams { line })?;
    let tool = params
        .get("name")
        .and_then(Value::as_str)
        .ok_or(CallLogError::NameNotAString { line })?;
    let args = match params.get("arguments") {
        None | Some(Value::Null) => Map::new(),
        Some(Value::Object(args)) => args.clone(),
        Some(_) => return Err(CallLogError::ArgumentsNotAnObject { line }),
    };
    Ok(LoggedCall {
        line,
        tool: tool.to_string(),
        args,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn calls_are_read_and_every_other_line_is_counted() {
        let text = concat!(
            r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{}}"#,
            "\n",
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
            "\n\n",
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"view","arguments":{"path":"/p/a.txt"}}}"#,
            "\n",
            r#"{"jsonrpc":"2.0","id":1,"result":{"content":[]}}"#,
            "\n",
            r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"ls"}}"#,
        );
        let log = read_call_log(text.as_bytes()).expect("a log");
        assert_eq!(log.calls.len(), 2);
        assert_eq!(log.calls[0].line, 4);
        assert_eq!(log.calls[0].tool, "view");
        assert_eq!(log.calls[0].args["path"], "/p/a.txt");
        assert_eq!(log.calls[1].line, 6);
        assert!(log.calls[1].args.is_empty());
        assert_eq!(
            (
                log.responses,
                log.notifications,
                log.other_requests,
                log.blank
            ),
            (1, 1, 1, 1)
        );
    }

    #[test]
    fn a_bad_line_is_an_error_naming_it() {
        let call = r#"{"id":1,"method":"tools/call","params":{"name":"view"}}"#;
        let cases: Vec<(Vec<u8>, &str)> = vec![
            (
                format!("{call}\n{{not json\n").into_bytes(),
                "line 2: not JSON",
            ),
            (
                format!("{call}\n[1, 2]\n").into_bytes(),
                "line 2: a JSON value that is not an object",
            ),
            (
                [call.as_bytes(), b"\n\"\xff\"\n"].concat(),
                "line 2: not UTF-8 text",
            ),
            (
                r#"{"id":1,"method":"tools/call","params":{"name":3}}"#
                    .as_bytes()
                    .to_vec(),
                "line 1: a tools/call request whose `params.name`",
            ),
            (
                format!("{call}\n{call}\n\"{}\"\n", "x".repeat(MAX_LINE as usize)).into_bytes(),
                "line 3: longer than 8 MiB",
            ),
        ];
        for (bytes, want) in cases {
            let why = read_call_log(bytes.as_slice()).expect_err(want).to_string();
            assert!(why.starts_with(want), "{why}");
        }
    }
}
