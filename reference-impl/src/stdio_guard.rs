//! Between stdin/stdout and rmcp: every request gets an answer.
//!
//! rmcp drops a line longer than its limit (16 MiB) and a line its JSON
//! parser refuses for nesting deeper than 127 levels without a word, so the
//! client waits forever. Here each line from stdin is measured first: one
//! over [`MAX_MESSAGE_BYTES`] or nested deeper than [`MAX_DEPTH`] is answered
//! with a JSON-RPC "Invalid Request" error naming the limit (addressed to the
//! request's id when it can be found in the text), and serving goes on; any
//! other line is passed to rmcp as it is.
//!
//! Answers reach stdout two ways, and a line is never cut by another: what
//! rmcp writes into its pipe is copied a whole line at a time, and a message
//! handed to [`Answers::write_message`] is serialized straight to stdout in
//! pieces (so a large answer is never held as JSON text), with lines from
//! elsewhere held back until its last piece.

use std::io::{self, Write};

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
/// The size of the pieces a streamed message is written in.
const PIECE_BYTES: usize = 256 * 1024;
/// Lines and pieces queued for stdout before their writers wait.
const QUEUED: usize = 8;
/// JSON-RPC's "Invalid Request" code.
const INVALID_REQUEST: i64 = -32600;

/// The streams rmcp serves on, and the task copying its answers out.
pub(crate) struct GuardedStdio {
    /// What rmcp reads: the lines from stdin that passed.
    pub(crate) read: DuplexStream,
    /// What rmcp writes: copied to stdout line by line.
    pub(crate) write: DuplexStream,
    /// Messages serialized straight to stdout.
    pub(crate) answers: Answers,
    /// Ends once rmcp has closed its side and everything is written.
    pub(crate) output: JoinHandle<()>,
}

/// What goes to stdout: a whole line (one of rmcp's, or a refusal), a piece
/// of a streamed message, or the end of rmcp's output.
enum Outgoing {
    Line(Vec<u8>),
    /// Part of a streamed message; the `last` one ends with its newline.
    Piece {
        bytes: Vec<u8>,
        last: bool,
    },
    End,
}

/// Writes messages to stdout as they are serialized. The caller sends one
/// message at a time (a second one started before the first ends would mix
/// their pieces).
#[derive(Clone)]
pub(crate) struct Answers {
    sender: mpsc::Sender<Outgoing>,
}

impl Answers {
    /// `message` as one JSON line, without its newline, if that takes at
    /// most one piece; `None` for a larger one, to be streamed with
    /// [`Answers::write_message`] instead.
    pub(crate) fn small_message<T: serde::Serialize>(
        &self,
        message: &T,
    ) -> io::Result<Option<Vec<u8>>> {
        let mut line = Capped {
            bytes: Vec::new(),
            overflowed: false,
        };
        match serde_json::to_writer(&mut line, message) {
            Ok(()) => Ok(Some(line.bytes)),
            Err(_) if line.overflowed => Ok(None),
            Err(err) => Err(err.into()),
        }
    }

    /// Writes `line` (one whole JSON line without its newline) to stdout.
    pub(crate) async fn write_line(&self, line: Vec<u8>) -> io::Result<()> {
        self.sender
            .send(Outgoing::Line(line))
            .await
            .map_err(|_| io::Error::new(io::ErrorKind::BrokenPipe, "stdout is no longer written"))
    }

    /// Serializes `message` as one JSON line to stdout, a piece at a time,
    /// waiting while stdout is behind. Blocks: call it off the async runtime.
    /// Should serializing fail half way, the line is ended where it stopped.
    pub(crate) fn write_message<T: serde::Serialize>(&self, message: &T) -> io::Result<()> {
        let mut pieces = Pieces {
            sender: self.sender.clone(),
            buffer: Vec::with_capacity(PIECE_BYTES),
            started: false,
        };
        serde_json::to_writer(&mut pieces, message)?;
        pieces.buffer.push(b'\n');
        pieces.send(true)
    }
}

/// A message's JSON, refused once it outgrows one piece.
struct Capped {
    bytes: Vec<u8>,
    overflowed: bool,
}

impl Write for Capped {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        if self.bytes.len() + bytes.len() > PIECE_BYTES {
            self.overflowed = true;
            return Err(io::Error::other("larger than one piece"));
        }
        self.bytes.extend_from_slice(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// A message's JSON on its way to stdout, a piece at a time.
struct Pieces {
    sender: mpsc::Sender<Outgoing>,
    buffer: Vec<u8>,
    /// A piece has been sent (so stdout is in the middle of this line).
    started: bool,
}

impl Pieces {
    fn send(&mut self, last: bool) -> io::Result<()> {
        let bytes = std::mem::replace(
            &mut self.buffer,
            Vec::with_capacity(if last { 0 } else { PIECE_BYTES }),
        );
        self.started = !last;
        self.sender
            .blocking_send(Outgoing::Piece { bytes, last })
            .map_err(|_| io::Error::new(io::ErrorKind::BrokenPipe, "stdout is no longer written"))
    }
}

impl Write for Pieces {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        self.buffer.extend_from_slice(bytes);
        if self.buffer.len() >= PIECE_BYTES {
            self.send(false)?;
        }
        Ok(bytes.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl Drop for Pieces {
    /// A message abandoned half way still ends its line, so the lines held
    /// back behind it are written.
    fn drop(&mut self) {
        if self.started {
            self.buffer.clear();
            self.buffer.push(b'\n');
            let _ = self.send(true);
        }
    }
}

/// Puts the guard between `input`/`output` (stdin/stdout) and rmcp.
pub(crate) fn guard<R, W>(input: R, output: W) -> GuardedStdio
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let (rmcp_read, to_rmcp) = tokio::io::duplex(PIPE_BYTES);
    let (rmcp_write, from_rmcp) = tokio::io::duplex(PIPE_BYTES);
    let (sender, receiver) = mpsc::channel(QUEUED);
    let answers = Answers {
        sender: sender.clone(),
    };
    tokio::spawn(screen_requests(input, to_rmcp, sender.clone()));
    tokio::spawn(collect_answers(from_rmcp, sender));
    let output = tokio::spawn(write_out(receiver, output));
    GuardedStdio {
        read: rmcp_read,
        write: rmcp_write,
        answers,
        output,
    }
}

/// Reads request lines; passes the acceptable ones to rmcp and answers the
/// others. Ends at end of input (closing rmcp's input) or when rmcp is gone.
async fn screen_requests<R: AsyncRead + Unpin>(
    input: R,
    mut to_rmcp: DuplexStream,
    refusals: mpsc::Sender<Outgoing>,
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
                    .await
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
async fn collect_answers(from_rmcp: DuplexStream, out: mpsc::Sender<Outgoing>) {
    let mut reader = BufReader::new(from_rmcp);
    loop {
        let mut line = Vec::new();
        match reader.read_until(b'\n', &mut line).await {
            Ok(0) | Err(_) => break,
            Ok(_) => {
                if line.last() == Some(&b'\n') {
                    line.pop();
                }
                if out.send(Outgoing::Line(line)).await.is_err() {
                    return;
                }
            }
        }
    }
    let _ = out.send(Outgoing::End).await;
}

/// Writes queued lines and pieces to `output` until rmcp's output ends (and
/// the message being streamed then, if any, is written whole); while a
/// streamed message is half written, whole lines wait for its end.
async fn write_out<W: AsyncWrite + Unpin>(mut receiver: mpsc::Receiver<Outgoing>, mut output: W) {
    let mut held: Vec<Vec<u8>> = Vec::new();
    let mut streaming = false;
    let mut ended = false;
    while let Some(outgoing) = receiver.recv().await {
        let written = match outgoing {
            Outgoing::End if streaming => {
                ended = true;
                Ok(())
            }
            Outgoing::End => break,
            Outgoing::Line(line) if streaming => {
                held.push(line);
                Ok(())
            }
            Outgoing::Line(line) => write_line(&mut output, line).await,
            Outgoing::Piece { bytes, last } => {
                streaming = !last;
                let mut written = output.write_all(&bytes).await;
                if last && written.is_ok() {
                    written = output.flush().await;
                    for line in held.drain(..) {
                        if written.is_ok() {
                            written = write_line(&mut output, line).await;
                        }
                    }
                }
                written
            }
        };
        if written.is_err() {
            return;
        }
        if ended && !streaming {
            break;
        }
    }
    let _ = output.flush().await;
}

/// Writes `line` and its newline, and flushes.
async fn write_line<W: AsyncWrite + Unpin>(output: &mut W, mut line: Vec<u8>) -> io::Result<()> {
    line.push(b'\n');
    output.write_all(&line).await?;
    output.flush().await
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

    /// Everything `write_out` writes for `queued`, in order.
    async fn written_for(queued: Vec<Outgoing>) -> String {
        let (sender, receiver) = mpsc::channel(queued.len() + 1);
        for outgoing in queued {
            sender.send(outgoing).await.expect("queued");
        }
        drop(sender);
        let mut written = Vec::new();
        write_out(receiver, &mut written).await;
        String::from_utf8(written).expect("UTF-8")
    }

    #[tokio::test]
    async fn lines_wait_for_the_end_of_a_streamed_message() {
        let piece = |text: &str, last| Outgoing::Piece {
            bytes: text.as_bytes().to_vec(),
            last,
        };
        let written = written_for(vec![
            Outgoing::Line(b"first".to_vec()),
            piece("{\"big\":", false),
            Outgoing::Line(b"refusal".to_vec()),
            piece("\"text\"", false),
            Outgoing::Line(b"other".to_vec()),
            piece("}\n", true),
            Outgoing::Line(b"after".to_vec()),
            Outgoing::End,
            Outgoing::Line(b"never".to_vec()),
        ])
        .await;
        assert_eq!(
            written,
            "first\n{\"big\":\"text\"}\nrefusal\nother\nafter\n"
        );
    }

    #[tokio::test]
    async fn the_end_waits_for_the_message_under_way() {
        let piece = |text: &str, last| Outgoing::Piece {
            bytes: text.as_bytes().to_vec(),
            last,
        };
        let written = written_for(vec![
            piece("{\"a\":", false),
            Outgoing::End,
            Outgoing::Line(b"held".to_vec()),
            piece("1}\n", true),
            Outgoing::Line(b"never".to_vec()),
        ])
        .await;
        assert_eq!(written, "{\"a\":1}\nheld\n");
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_message_is_written_in_pieces_as_one_json_line() {
        let (sender, receiver) = mpsc::channel(QUEUED);
        let answers = Answers { sender };
        let message = json!({"id": 2, "text": "a\"b\n".repeat(PIECE_BYTES)});
        let expected = format!("{message}\n");
        let writer = tokio::spawn(async move {
            let mut written = Vec::new();
            write_out(receiver, &mut written).await;
            written
        });
        let sent = tokio::task::spawn_blocking(move || {
            answers.write_message(&message)?;
            // One more message after the first, through the same handle.
            answers.write_message(&json!({"id": 3}))
        })
        .await
        .expect("joined");
        assert!(sent.is_ok(), "{sent:?}");
        let written = writer.await.expect("writer");
        let written = String::from_utf8(written).expect("UTF-8");
        assert_eq!(written, format!("{expected}{{\"id\":3}}\n"));
    }

    #[tokio::test]
    async fn a_small_message_is_one_line_and_a_large_one_is_left_to_stream() {
        let (sender, _receiver) = mpsc::channel(QUEUED);
        let answers = Answers { sender };
        let small = json!({"id": 1, "text": "a\"b"});
        let line = answers.small_message(&small).expect("serialized");
        assert_eq!(line, Some(small.to_string().into_bytes()));
        let large = json!({"id": 2, "text": "x".repeat(PIECE_BYTES)});
        assert_eq!(answers.small_message(&large).expect("measured"), None);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_message_abandoned_half_way_still_ends_its_line() {
        let (sender, receiver) = mpsc::channel(QUEUED);
        let writer = tokio::spawn(async move {
            let mut written = Vec::new();
            write_out(receiver, &mut written).await;
            written
        });
        let line_sender = sender.clone();
        tokio::task::spawn_blocking(move || {
            let mut pieces = Pieces {
                sender,
                buffer: Vec::new(),
                started: false,
            };
            pieces
                .write_all(&vec![b'x'; PIECE_BYTES])
                .expect("a whole piece");
            line_sender
                .blocking_send(Outgoing::Line(b"held".to_vec()))
                .expect("queued");
            // Dropped here, mid-message.
        })
        .await
        .expect("joined");
        let written = writer.await.expect("writer");
        let mut expected = vec![b'x'; PIECE_BYTES];
        expected.extend_from_slice(b"\nheld\n");
        assert_eq!(written, expected);
    }
}
