//! Sits between the server's stdout and the MCP client.
//!
//! The stdio transport of MCP is one JSON-RPC message per line. A server that writes
//! anything else there (a log line, a banner, a flood with no newline) breaks the
//! protocol; the guard records what it saw and ends the stream, so the pending call
//! fails at once with a clear reason instead of hanging until the timeout. Each
//! message is also checked against the requests waiting for an answer (`exchange`),
//! so a stray response or a malformed result ends the stream the same way.

use std::sync::{Arc, Mutex};

use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWriteExt, BufReader, DuplexStream};

use super::exchange::{Exchange, Violation};

/// The longest single message accepted, in bytes.
pub(super) const MAX_LINE_BYTES: usize = 16 * 1024 * 1024;
/// The most the server may write on stdout in one session, in bytes.
pub(super) const MAX_TOTAL_BYTES: usize = 256 * 1024 * 1024;

/// What the guard found wrong, shared with the session for its reports.
pub(super) type Fault = Arc<Mutex<Option<String>>>;

/// The lines that are not JSON a guard skipped, when its target lets it
/// (`Target::skip_stdout_noise`): how many, and the first, for the warning.
#[derive(Debug, Default)]
pub(super) struct SkippedNoise {
    pub(super) lines: u64,
    pub(super) first: Option<String>,
}

/// Where a guard that skips noise counts it; `None` refuses noise instead.
pub(super) type Noise = Option<Arc<Mutex<SkippedNoise>>>;

/// Forwards well-formed lines from `stdout` into the returned stream. A line that
/// is not JSON at all ends it too, unless `noise` counts such lines: then it is
/// skipped, as the MCP SDKs' own clients skip it (JSON that is not a JSON-RPC
/// message still ends the stream).
pub(super) fn guard<R>(
    stdout: R,
    fault: Fault,
    exchange: Arc<Exchange>,
    noise: Noise,
) -> DuplexStream
where
    R: AsyncRead + Unpin + Send + 'static,
{
    let (client_side, mut server_side) = tokio::io::duplex(256 * 1024);
    tokio::spawn(async move {
        let mut reader = BufReader::new(stdout);
        let mut total = 0usize;
        let mut line = Vec::new();
        loop {
            line.clear();
            match read_line_capped(&mut reader, &mut line).await {
                Ok(0) => break,
                Ok(n) => total += n,
                Err(why) => {
                    set(&fault, why.to_string());
                    break;
                }
            }
            if total > MAX_TOTAL_BYTES {
                set(
                    &fault,
                    format!("the server wrote more than {MAX_TOTAL_BYTES} bytes on stdout"),
                );
                break;
            }
            let trimmed = line.trim_ascii();
            if trimmed.is_empty() {
                continue;
            }
            let checked = check_message(trimmed);
            if let (Err(StdoutError::NotJson { shown }), Some(noise)) = (&checked, &noise) {
                if let Ok(mut skipped) = noise.lock() {
                    skipped.lines += 1;
                    skipped.first.get_or_insert_with(|| shown.clone());
                }
                continue;
            }
            if let Err(why) = checked.and_then(|m| Ok(exchange.received(&m)?)) {
                set(&fault, why.to_string());
                break;
            }
            if server_side.write_all(trimmed).await.is_err()
                || server_side.write_all(b"\n").await.is_err()
            {
                break;
            }
        }
        let _ = server_side.shutdown().await;
    });
    client_side
}

fn set(fault: &Fault, why: String) {
    if let Ok(mut slot) = fault.lock() {
        slot.get_or_insert(why);
    }
}

/// Why the server's stdout ended the connection.
#[derive(Debug, thiserror::Error)]
enum StdoutError {
    /// Reading the pipe failed.
    #[error("reading the server's stdout failed: {0}")]
    Read(#[source] std::io::Error),
    /// A line longer than one message may be.
    #[error("the server wrote a line of more than {MAX_LINE_BYTES} bytes on stdout: {shown}")]
    LongLine {
        /// Its start.
        shown: String,
    },
    /// A line of JSON that is not JSON-RPC 2.0.
    #[error("the server wrote JSON that is not a JSON-RPC 2.0 message on stdout: {shown}")]
    NotJsonRpc {
        /// The line.
        shown: String,
    },
    /// A line that is not JSON.
    #[error("the server wrote something that is not JSON on stdout: {shown} (the stdio transport carries JSON-RPC messages only; --skip-stdout-noise, or skip_stdout_noise: true in a target file, skips such lines with a warning)")]
    NotJson {
        /// The line.
        shown: String,
    },
    /// A message the exchange does not accept.
    #[error(transparent)]
    Violation(#[from] Violation),
}

/// Reads one line into `out`; `Ok(0)` at end of stream.
async fn read_line_capped<R: AsyncRead + Unpin>(
    reader: &mut BufReader<R>,
    out: &mut Vec<u8>,
) -> Result<usize, StdoutError> {
    let mut read = 0;
    loop {
        let available = reader.fill_buf().await.map_err(StdoutError::Read)?;
        if available.is_empty() {
            return Ok(read);
        }
        let (chunk, done) = match available.iter().position(|b| *b == b'\n') {
            Some(i) => (&available[..=i], true),
            None => (available, false),
        };
        out.extend_from_slice(chunk);
        let used = chunk.len();
        reader.consume(used);
        read += used;
        if out.len() > MAX_LINE_BYTES {
            return Err(StdoutError::LongLine {
                shown: crate::visible::excerpt(&String::from_utf8_lossy(&out[..200]), 200),
            });
        }
        if done {
            return Ok(read);
        }
    }
}

/// A line must be a JSON object that says it is JSON-RPC 2.0; returns the message.
fn check_message(line: &[u8]) -> Result<serde_json::Value, StdoutError> {
    let shown = || crate::visible::excerpt(&String::from_utf8_lossy(line), 200);
    match serde_json::from_slice::<serde_json::Value>(line) {
        Ok(message @ serde_json::Value::Object(_))
            if message.get("jsonrpc").is_some_and(|v| v == "2.0") =>
        {
            Ok(message)
        }
        Ok(_) => Err(StdoutError::NotJsonRpc { shown: shown() }),
        Err(_) => Err(StdoutError::NotJson { shown: shown() }),
    }
}
