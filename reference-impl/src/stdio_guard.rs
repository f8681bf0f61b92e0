//! Between stdin/stdout and rmcp: every request gets an answer.
//!
//! rmcp drops a line longer than its limit (16 MiB) and a line its JSON
//! parser refuses for nesting deeper than 127 levels without a word, so the
//! client waits forever. Here each line from stdin is measured first: one
//! over [`MAX_MESSAGE_BYTES`] or nested deeper than [`MAX_DEPTH`] is answered
//! with a JSON-RPC "Invalid Request" error naming the limit (addressed to the
//! request's id when it can be found in the text), and serving goes on; any
//! other line is passed to rmcp as it is. rmcp writes into a pipe that is
//! copied to stdout a whole line at a time, so a refusal never lands in the
//! middle of another answer.

use std::io;

use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader, DuplexStream};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

use crate::json_shape;

/// The largest request line passed on (rmcp's own stdio limit).
pub(crate) const MAX_MESSAGE_BYTES: usize = 16 * 1024 * 1024;
/// The deepest nesting passed on: serde_json refuses 128 levels and more.
pub(crate) const MAX_DEPTH: usize = 127;
/// How much of an oversized line is kept to find its id in.
const ID_SEARCH_BYTES: usize = 64 * 1024;
/// The pipes' buffer size.
const PIPE_BYTES: usize = 64 * 1024;
/// JSON-RPC's "Invalid Request" code.
const INVALID_REQUEST: i64 = -32600;

/// The streams rmcp serves on, and the task copying its answers out.
pub(crate) struct GuardedStdio {
    /// What rmcp reads: the lines from stdin that passed.
    pub(crate) read: DuplexStream,
    /// What rmcp writes: copied to stdout line by line.
    pub(crate) write: DuplexStream,
    /// Ends once rmcp has closed its side and everything is written.
    pub(crate) output: JoinHandle<()>,
}

/// A line for stdout: one of rmcp's, a refusal, or the end of rmcp's output.
enum Outgoing {
    Line(Vec<u8>),
    End,
}

/// Puts the guard between `input`/`output` (stdin/stdout) and rmcp.
pub(crate) fn guard<R, W>(input: R, output: W) -> GuardedStdio
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let (rmcp_read, to_rmcp) = tokio::io::duplex(PIPE_BYTES);
    let (rmcp_write, from_rmcp) = tokio::io::duplex(PIPE_BYTES);
    let (sender, receiver) = mpsc::unbounded_channel();
    tokio::spawn(screen_requests(input, to_rmcp, sender.clone()));
    tokio::spawn(collect_answers(from_rmcp, sender));
    let output = tokio::spawn(write_out(receiver, output));
    GuardedStdio {
        read: rmcp_read,
        write: rmcp_write,
        output,
    }
}

/// Reads request lines; passes the acceptable ones to rmcp and answers the
/// others. Ends at end of input (closing rmcp's input) or when rmcp is gone.
async fn screen_requests<R: AsyncRead + Unpin>(
    input: R,
    mut to_rmcp: DuplexStream,
    refusals: mpsc::UnboundedSender<Outgoing>,
) {
    let mut reader = BufReader::new(input);
    let mut line = Vec::new();
    loop {
        let size = match read_bounded_line(&mut reader, &mut line).await {
            Ok(Some(size)) => size,
            Ok(None) | Err(_) => break,
        };
        let shape = json_shape::scan(&line);
        let refusal = if size > MAX_MESSAGE_BYTES {
            Some(format!(
                "Invalid Request: the message is over {MAX_MESSAGE_BYTES} bytes, the most this server reads"
            ))
        } else if shape.depth > MAX_DEPTH {
            Some(format!(
                "Invalid Request: the message nests {} levels deep, more than the {MAX_DEPTH} this server reads",
                shape.depth
            ))
        } else {
            None
        };
        match refusal {
            Some(message) => {
                let id = shape.id.unwrap_or(Value::Null);
                let answer = json!({"jsonrpc": "2.0", "id": id,
                    "error": {"code": INVALID_REQUEST, "message": message}});
                if refusals
                    .send(Outgoing::Line(answer.to_string().into_bytes()))
                    .is_err()
                {
                    break;
                }
            }
            None => {
                line.push(b'\n');
                if to_rmcp.write_all(&line).await.is_err() {
                    break;
                }
            }
        }
    }
    let _ = to_rmcp.shutdown().await;
}

/// Reads one line (without its newline) into `line`, keeping at most
/// [`MAX_MESSAGE_BYTES`] of it, or only the first [`ID_SEARCH_BYTES`] once
/// it is longer; returns its full size, or `None` at end of input (an
/// unterminated last line is not a message, as rmcp treats it).
async fn read_bounded_line<R: AsyncRead + Unpin>(
    reader: &mut BufReader<R>,
    line: &mut Vec<u8>,
) -> io::Result<Option<usize>> {
    line.clear();
    let mut size = 0usize;
    loop {
        let chunk = reader.fill_buf().await?;
        if chunk.is_empty() {
            return Ok(None);
        }
        let (part, done) = match chunk.iter().position(|&b| b == b'\n') {
            Some(at) => (&chunk[..at], true),
            None => (chunk, false),
        };
        size = size.saturating_add(part.len());
        let keep = if size > MAX_MESSAGE_BYTES {
            ID_SEARCH_BYTES
        } else {
            MAX_MESSAGE_BYTES
        };
        line.extend_from_slice(&part[..part.len().min(keep.saturating_sub(line.len()))]);
        line.truncate(keep);
        let used = part.len() + usize::from(done);
        reader.consume(used);
        if done {
            return Ok(Some(size));
        }
    }
}

/// Copies rmcp's answers, a line at a time, to the writer's queue.
async fn collect_answers(from_rmcp: DuplexStream, out: mpsc::UnboundedSender<Outgoing>) {
    let mut reader = BufReader::new(from_rmcp);
    loop {
        let mut line = Vec::new();
        match reader.read_until(b'\n', &mut line).await {
            Ok(0) | Err(_) => break,
            Ok(_) => {
                if line.last() == Some(&b'\n') {
                    line.pop();
                }
                if out.send(Outgoing::Line(line)).is_err() {
                    return;
                }
            }
        }
    }
    let _ = out.send(Outgoing::End);
}

/// Writes queued lines to `output` until rmcp's output ends.
async fn write_out<W: AsyncWrite + Unpin>(
    mut receiver: mpsc::UnboundedReceiver<Outgoing>,
    mut output: W,
) {
    while let Some(Outgoing::Line(mut line)) = receiver.recv().await {
        line.push(b'\n');
        if output.write_all(&line).await.is_err() || output.flush().await.is_err() {
            return;
        }
    }
    let _ = output.flush().await;
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::AsyncReadExt;

    #[tokio::test]
    async fn long_lines_keep_their_start_and_report_their_size() {
        let mut text = b"{\"id\":5,\"x\":\"".to_vec();
        text.extend(std::iter::repeat_n(b'a', MAX_MESSAGE_BYTES + 10));
        text.extend_from_slice(b"\"}\n{\"id\":6}\n");
        let mut reader = BufReader::new(&text[..]);
        let mut line = Vec::new();
        let size = read_bounded_line(&mut reader, &mut line)
            .await
            .expect("read");
        assert_eq!(size, Some(MAX_MESSAGE_BYTES + 10 + 15));
        assert_eq!(line.len(), ID_SEARCH_BYTES);
        assert_eq!(json_shape::scan(&line).id, Some(json!(5)));
        let size = read_bounded_line(&mut reader, &mut line)
            .await
            .expect("read");
        assert_eq!((size, line.as_slice()), (Some(8), &b"{\"id\":6}"[..]));
        assert_eq!(
            read_bounded_line(&mut reader, &mut line)
                .await
                .expect("eof"),
            None
        );
    }

    #[tokio::test]
    async fn deep_requests_are_answered_and_others_passed_on() {
        let deep = format!(
            "{{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"tools/call\",\"params\":{}1{}}}\n",
            "[".repeat(200),
            "]".repeat(200)
        );
        let input = format!("{deep}{{\"jsonrpc\":\"2.0\",\"id\":10,\"method\":\"ping\"}}\n");
        let (stdout_write, mut stdout_read) = tokio::io::duplex(PIPE_BYTES);
        let mut guarded = guard(std::io::Cursor::new(input.into_bytes()), stdout_write);
        let mut passed = String::new();
        guarded
            .read
            .read_to_string(&mut passed)
            .await
            .expect("rmcp side");
        assert_eq!(
            passed,
            "{\"jsonrpc\":\"2.0\",\"id\":10,\"method\":\"ping\"}\n"
        );
        drop(guarded.write);
        guarded.output.await.expect("writer");
        let mut written = String::new();
        stdout_read
            .read_to_string(&mut written)
            .await
            .expect("stdout");
        let answer: Value = serde_json::from_str(written.trim_end()).expect("one JSON line");
        assert_eq!(answer["id"], 9);
        assert_eq!(answer["error"]["code"], INVALID_REQUEST);
        let message = answer["error"]["message"].as_str().expect("message");
        assert!(message.contains("201 levels"), "{message}");
    }
}
