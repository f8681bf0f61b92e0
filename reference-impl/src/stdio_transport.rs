//! The transport rmcp serves on over stdio: requests are read by rmcp's own
//! read/write transport (from the guard's pipe, see [`crate::stdio_guard`]),
//! and every message the server sends goes to the guard's queue for stdout:
//! a small one as one line, a larger one serialized straight to stdout on a
//! blocking thread ([`Answers::write_message`]). rmcp's own writer would
//! first build the whole JSON line in memory and copy it through the pipe:
//! for a grep answer of a few hundred megabytes that is the answer held
//! twice more, and most of the time spent after the search.

use std::future::Future;
use std::io;
use std::sync::Arc;

use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::async_rw::AsyncRwTransport;
use rmcp::transport::Transport;
use rmcp::RoleServer;
use tokio::io::DuplexStream;
use tokio::sync::Mutex;

use crate::stdio_guard::Answers;

/// rmcp's stdio transport with its sending replaced.
pub(crate) struct StdioTransport {
    /// Reads the requests (and answers the lines it cannot parse itself,
    /// through the guard's pipe).
    requests: AsyncRwTransport<RoleServer, DuplexStream, DuplexStream>,
    answers: Answers,
    /// Held for the whole of each message sent, so that messages go out one
    /// at a time and closing waits for those under way; `true` once closed.
    closed: Arc<Mutex<bool>>,
}

impl StdioTransport {
    /// Reads requests from `read`, writes what rmcp's reader itself answers
    /// into `write`, and sends messages through `answers`.
    pub(crate) fn new(read: DuplexStream, write: DuplexStream, answers: Answers) -> StdioTransport {
        StdioTransport {
            requests: AsyncRwTransport::new(read, write),
            answers,
            closed: Arc::new(Mutex::new(false)),
        }
    }
}

impl Transport<RoleServer> for StdioTransport {
    type Error = io::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleServer>,
    ) -> impl Future<Output = Result<(), io::Error>> + Send + 'static {
        let closed = Arc::clone(&self.closed);
        let answers = self.answers.clone();
        async move {
            let closed = closed.lock().await;
            if *closed {
                return Err(io::Error::new(
                    io::ErrorKind::NotConnected,
                    "the transport is closed",
                ));
            }
            // Most messages are small: written as one line from here. A
            // large one is streamed from a blocking thread.
            let sent = match answers.small_message(&item)? {
                Some(line) => answers.write_line(line).await,
                None => tokio::task::spawn_blocking(move || answers.write_message(&item))
                    .await
                    .map_err(io::Error::other)?,
            };
            drop(closed);
            sent
        }
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleServer>> {
        self.requests.receive().await
    }

    async fn close(&mut self) -> Result<(), io::Error> {
        *self.closed.lock().await = true;
        self.requests.close().await
    }
}
