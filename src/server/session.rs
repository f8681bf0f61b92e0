//! One server process for one scenario: start it, initialize MCP, make calls, stop
//! it, and keep the tail of its stderr, and the lines of it that may show a
//! denial, for reports.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rmcp::model::CallToolRequestParams;
use rmcp::service::{ClientInitializeError, RoleClient, RunningService, ServiceError};
use rmcp::transport::async_rw::AsyncRwTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::ServiceExt;
use tokio::io::AsyncReadExt;

use super::exchange::{Exchange, Recorded};
use super::http_client::CheckedHttp;
use super::port_lease::PortLease;
use super::process::{ServerProcess, StopFault};
use super::stdout_guard::{guard, Fault, Noise};
use super::supervisor_child::ServerPipes;
use super::Target;
use crate::fixture::Places;
use crate::server::outcome::{CallOutcome, ToolResult};

/// How much of the server's stderr is kept for reports.
const STDERR_TAIL_BYTES: usize = 4096;
/// How many lines of the server's stderr that may show a denial are kept besides
/// the tail, from anywhere in it: a denial printed early and followed by a long
/// traceback is gone from the tail by the time a report reads it.
const DENIAL_LINES: usize = 8;
/// How much of each such line is kept (and looked at).
const DENIAL_LINE_BYTES: usize = 1024;
/// How long a server gets to exit after its stdin is closed.
const EXIT_GRACE: Duration = Duration::from_millis(1000);

/// One tool of a server's `tools/list`, as much of it as toolspec reads.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ListedTool {
    /// The tool's name.
    pub name: String,
    /// Its description, or empty.
    pub description: String,
    /// The properties of its input schema, or `None` when the schema declares none
    /// (a schema without `properties` accepts anything).
    pub arguments: Option<Vec<String>>,
    /// Its whole input schema as listed, for `explore`, which draws each argument
    /// from the type the schema gives it.
    pub input_schema: serde_json::Value,
}

pub(crate) struct Session {
    client: Option<RunningService<RoleClient, ()>>,
    process: ServerProcess,
    fault: Fault,
    stderr: Arc<Mutex<Vec<u8>>>,
    /// The first lines of stderr that may show a denial (`DENIAL_LINES`).
    denials: Arc<Mutex<Vec<String>>>,
    /// Set when the server's stderr reached its end, so a report can wait for it.
    stderr_done: Arc<AtomicBool>,
    /// Over HTTP the server's stdin is held open until the session stops, so that a
    /// server watching for end of input stays up.
    stdin: Option<tokio::net::unix::pipe::Sender>,
    /// The port it serves on over HTTP, held from before it starts until the
    /// session is gone (`port_lease.rs`).
    port: Option<PortLease>,
    /// The lines that are not JSON skipped on stdout, when the target lets them
    /// be (`Target::skip_stdout_noise`).
    noise: Noise,
}

/// Why `initialize` did not complete, and whether the server did answer it: an
/// answer (a JSON-RPC error) is the reason, whatever the server does next, where
/// a broken connection is better explained by what the guard saw or the exit.
struct InitFailure {
    why: String,
    answered: bool,
}

impl From<ClientInitializeError> for InitFailure {
    fn from(error: ClientInitializeError) -> Self {
        match error {
            ClientInitializeError::JsonRpcError(data) => InitFailure {
                why: format!(
                    "the server answered initialize with JSON-RPC error {}: {}",
                    data.code.0, data.message
                ),
                answered: true,
            },
            other => InitFailure {
                why: plain_words(&other),
                answered: false,
            },
        }
    }
}

/// How a [`StartError`] begins when the program itself could not be started.
const CANNOT_START: &str = "cannot start ";

/// The server could not be started or did not complete the MCP handshake.
#[derive(Debug, Clone)]
pub(crate) struct StartError {
    pub message: String,
    pub stderr_tail: String,
    /// The lines of its stderr that may show a denial, as
    /// [`Session::denial_lines`] gives them.
    pub denial_lines: Vec<String>,
}

impl StartError {
    /// The message with the lines of stderr that tell why the server did not
    /// start (`telling_lines.rs`), each on a line of its own below it: what a
    /// command that cannot go on without the server says once. A server that ran
    /// isolated is told how to find out whether that was why: a program installed
    /// where isolation hides it (a virtualenv or a cache under `/tmp`) fails to
    /// start with an error about its own files, which names no isolation.
    pub(crate) fn told(&self, target: &Target) -> String {
        let mut told = self.message.clone();
        for line in super::telling_lines::telling_lines(&self.stderr_tail) {
            told.push_str("\n  stderr: ");
            told.push_str(&line);
        }
        // A program that could not be started at all was missing before any
        // isolation began.
        let spawned = !self.message.starts_with(CANNOT_START);
        if spawned && !target.isolation_layers().is_empty() {
            told.push_str(
                "\n  (it ran isolated, docs/isolation.md: a server that needs a place isolation \
                 hides, such as a virtualenv under /tmp, cannot start; --no-isolation tells \
                 whether that is why, and a target file's `isolation: { read: [...] }` shows it \
                 the place)",
            );
        }
        told
    }
}

impl Session {
    /// Starts `target` for a fixture root with the scenario's settings: picks a port
    /// when the target speaks HTTP, builds its command line, and starts it, giving
    /// `initialize` the target's start timeout (`timeout`, a call's, at least). Callers
    /// skip scenarios whose settings the target cannot express before they get here.
    pub(crate) async fn launch(
        target: &Target,
        places: Places<'_>,
        settings: &BTreeMap<String, serde_json::Value>,
        timeout: Duration,
    ) -> Result<Session, StartError> {
        let refuse = |message: String| StartError {
            message,
            stderr_tail: String::new(),
            denial_lines: Vec::new(),
        };
        let lease = match &target.url {
            Some(_) => Some(
                PortLease::take(target.isolation.serving_namespace())
                    .map_err(|e| refuse(format!("cannot find a free local port: {e}")))?,
            ),
            None => None,
        };
        let port = lease.as_ref().map(PortLease::port);
        let argv = target
            .argv(places.root, port, settings)
            .map_err(|u| refuse(u.0))?;
        let timeout = target.start_timeout(timeout);
        let mut session = Session::start(target, &argv, places, port, timeout).await?;
        session.port = lease;
        Ok(session)
    }

    /// Starts the server in `root` and completes `initialize` within `timeout`:
    /// over the server's stdio, or over streamable HTTP when the target has a URL.
    pub(crate) async fn start(
        target: &Target,
        argv: &[String],
        places: Places<'_>,
        port: Option<u16>,
        timeout: Duration,
    ) -> Result<Session, StartError> {
        let served_on = port.filter(|_| target.url.is_some());
        let mut process = ServerProcess::spawn(
            &target.program,
            argv,
            places,
            &target.env,
            &target.isolation,
            served_on,
        )
        .map_err(|e| StartError {
            message: format!("{CANNOT_START}`{}`: {e}", target.program.display()),
            stderr_tail: String::new(),
            denial_lines: Vec::new(),
        })?;
        let fault: Fault = Arc::new(Mutex::new(None));
        let stderr = Arc::new(Mutex::new(Vec::new()));
        let denials = Arc::new(Mutex::new(Vec::new()));
        let stderr_done = Arc::new(AtomicBool::new(false));
        let Some(ServerPipes {
            stdin,
            stdout,
            stderr: child_stderr,
        }) = process.take_pipes()
        else {
            return Err(StartError {
                message: "the server's stdio pipes were not created".to_string(),
                stderr_tail: String::new(),
                denial_lines: Vec::new(),
            });
        };
        tokio::spawn(keep_tail(
            child_stderr,
            stderr.clone(),
            denials.clone(),
            stderr_done.clone(),
        ));
        let mut session = Session {
            client: None,
            process,
            fault,
            stderr,
            denials,
            stderr_done,
            stdin: None,
            port: None,
            noise: target.skip_stdout_noise.then(Arc::default),
        };
        let connected = match &target.url {
            None => {
                let exchange = Arc::new(Exchange::default());
                let from_server = guard(
                    stdout,
                    session.fault.clone(),
                    exchange.clone(),
                    session.noise.clone(),
                );
                let transport =
                    Recorded::new(AsyncRwTransport::new_client(from_server, stdin), exchange);
                tokio::time::timeout(timeout, ().serve(transport))
                    .await
                    .map(|r| r.map_err(InitFailure::from))
            }
            Some(url) => {
                // Over HTTP, stdout is only a log: keep its tail with stderr's.
                tokio::spawn(keep_tail(
                    stdout,
                    session.stderr.clone(),
                    session.denials.clone(),
                    Arc::new(AtomicBool::new(false)),
                ));
                session.stdin = Some(stdin);
                let url = url.replace("{port}", &port.map(|p| p.to_string()).unwrap_or_default());
                Ok(session.connect_http(&url, timeout).await)
            }
        };
        match connected {
            Ok(Ok(client)) => {
                session.client = Some(client);
                Ok(session)
            }
            Ok(Err(InitFailure {
                why,
                answered: true,
            })) => {
                session.settle_stderr().await;
                Err(session.start_error(format!("MCP initialize failed: {why}")))
            }
            Ok(Err(InitFailure { why, .. })) => {
                let why = session.explain(&why).await;
                Err(session.start_error(format!("MCP initialize failed: {why}")))
            }
            Err(_) => {
                // The wait gave up and dropped the connection, closing the
                // server's stdin: an exit now is the consequence, not the cause.
                let fault = session.fault.lock().ok().and_then(|f| f.clone());
                session.settle_stderr().await;
                let why = fault.unwrap_or_else(|| {
                    format!(
                        "no answer to initialize within {} ms (a server slow to start: \
                         set `start_timeout_ms` in its target file or the suite's \
                         suite.yaml, or give --timeout-ms)",
                        timeout.as_millis()
                    )
                });
                Err(session.start_error(why))
            }
        }
    }

    /// Connects to a server that may still be starting: retries while nothing
    /// answers, until `timeout`; gives up at once when the server exits or answers
    /// with something that is not MCP (the checked client records that as the
    /// fault), and otherwise reports the last error.
    async fn connect_http(
        &mut self,
        url: &str,
        timeout: Duration,
    ) -> Result<RunningService<RoleClient, ()>, InitFailure> {
        let unanswered = |why| InitFailure {
            why,
            answered: false,
        };
        let deadline = tokio::time::Instant::now() + timeout;
        let last_error = Arc::new(Mutex::new(None));
        loop {
            // A fresh exchange per attempt: requests of a failed attempt wait for nothing.
            let exchange = Arc::new(Exchange::default());
            let client = CheckedHttp::new(
                exchange.clone(),
                self.fault.clone(),
                last_error.clone(),
                self.process.namespace(),
            );
            let transport = Recorded::new(
                StreamableHttpClientTransport::with_client(
                    client,
                    StreamableHttpClientTransportConfig::with_uri(url.to_string()),
                ),
                exchange,
            );
            let attempt = tokio::time::timeout_at(deadline, ().serve(transport)).await;
            let last = match attempt {
                Ok(Ok(client)) => return Ok(client),
                Ok(Err(e)) => match InitFailure::from(e) {
                    answer @ InitFailure { answered: true, .. } => return Err(answer),
                    InitFailure { why, .. } => why,
                },
                Err(_) => "no answer".to_string(),
            };
            if let Some(why) = self.fault_or_exit() {
                return Err(unanswered(why));
            }
            if tokio::time::Instant::now() >= deadline {
                let last = last_error
                    .lock()
                    .ok()
                    .and_then(|l| l.clone())
                    .unwrap_or(last);
                return Err(unanswered(format!(
                    "no MCP session at {url} within {} ms; last error: {last}",
                    timeout.as_millis(),
                )));
            }
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
    }

    fn start_error(&self, message: String) -> StartError {
        StartError {
            message,
            stderr_tail: self.stderr_tail(),
            denial_lines: self.denial_lines(),
        }
    }

    /// Calls `tool` and classifies whatever comes back.
    pub(crate) async fn call(
        &mut self,
        tool: &str,
        args: serde_json::Map<String, serde_json::Value>,
        timeout: Duration,
    ) -> CallOutcome {
        let Some(client) = &self.client else {
            return CallOutcome::Transport("the session is closed".to_string());
        };
        let params = CallToolRequestParams::new(tool.to_string()).with_arguments(args);
        match tokio::time::timeout(timeout, client.call_tool(params)).await {
            Err(_) => {
                if let Some(why) = self.fault_or_exit() {
                    CallOutcome::Transport(why)
                } else {
                    CallOutcome::Timeout(timeout)
                }
            }
            Ok(Ok(result)) => CallOutcome::Result(ToolResult::from(result)),
            Ok(Err(ServiceError::McpError(e))) => CallOutcome::Protocol {
                code: e.code.0,
                message: e.message.to_string(),
            },
            Ok(Err(ServiceError::UnexpectedResponse)) => CallOutcome::Transport(
                "the server's answer to tools/call is not a valid CallToolResult".to_string(),
            ),
            Ok(Err(other)) => CallOutcome::Transport(self.explain(&plain_words(&other)).await),
        }
    }

    /// Every tool the server lists, with the argument names its input schema declares
    /// (`None` when the schema declares no `properties`).
    pub(crate) async fn list_tools(
        &self,
        timeout: Duration,
    ) -> Result<Vec<ListedTool>, ListToolsError> {
        let Some(client) = &self.client else {
            return Err(ListToolsError::Closed);
        };
        let tools = tokio::time::timeout(timeout, client.list_all_tools())
            .await
            .map_err(|_| ListToolsError::NoAnswer {
                millis: timeout.as_millis(),
            })?
            .map_err(|e| match e {
                ServiceError::McpError(e) => ListToolsError::JsonRpc {
                    code: e.code.0,
                    message: e.message.to_string(),
                },
                other => ListToolsError::Failed { source: other },
            })?;
        Ok(tools
            .into_iter()
            .map(|tool| {
                let properties = tool
                    .input_schema
                    .get("properties")
                    .and_then(|p| p.as_object())
                    .map(|p| p.keys().cloned().collect());
                ListedTool {
                    name: tool.name.into_owned(),
                    description: tool.description.map(|d| d.into_owned()).unwrap_or_default(),
                    arguments: properties,
                    input_schema: serde_json::Value::Object((*tool.input_schema).clone()),
                }
            })
            .collect())
    }

    /// The name the server gave itself in its answer to `initialize`.
    pub(crate) fn server_name(&self) -> Option<String> {
        let info = self.client.as_ref()?.peer_info()?;
        Some(info.server_info.as_ref()?.name.clone())
    }

    /// The folders the server was given that another machine will not have
    /// (`{scratch}`, `{home}`, `{tmp}`).
    pub(crate) fn places(&self) -> &crate::scenario::MachinePlaces {
        self.process.places()
    }

    /// The last few KiB the server wrote on stderr.
    /// A warning that the server wrote lines that are not JSON on stdout, which
    /// were skipped (`Target::skip_stdout_noise`), if it did.
    pub(crate) fn stdout_noise(&self) -> Option<String> {
        let noise = self.noise.as_ref()?.lock().ok()?;
        let first = noise.first.as_deref()?;
        let lines = noise.lines;
        let (plural, are) = if lines == 1 {
            ("line", "is")
        } else {
            ("lines", "are")
        };
        Some(format!(
            "the server wrote {lines} {plural} that {are} not JSON on stdout, skipped (skip_stdout_noise); the first: {first}"
        ))
    }

    pub(crate) fn stderr_tail(&self) -> String {
        let bytes = self.stderr.lock().map(|b| b.clone()).unwrap_or_default();
        String::from_utf8_lossy(&bytes).into_owned()
    }

    /// The first few lines the server wrote on stderr that may show a denial
    /// (`denied::may_show_denial`), from anywhere in it, each cut to
    /// `DENIAL_LINE_BYTES`: what the tail alone may have lost.
    pub(crate) fn denial_lines(&self) -> Vec<String> {
        self.denials.lock().map(|d| d.clone()).unwrap_or_default()
    }

    /// Closes stdin, gives the server a moment to exit, then kills what is left. An
    /// error says the server had broken out of its containment, or hit a limit.
    pub(crate) async fn stop(mut self) -> Result<(), StopFault> {
        if let Some(client) = self.client.take() {
            let _ = tokio::time::timeout(EXIT_GRACE, client.cancel()).await;
        }
        let over_http = self.stdin.take().is_some();
        self.process.stop(EXIT_GRACE, !over_http).await
    }

    /// Prefers what the guard saw, then the exit status, over a transport's words.
    async fn explain(&mut self, fallback: &str) -> String {
        // A dying server closes stdout a moment before it can be reaped.
        let mut why = None;
        for _ in 0..20 {
            why = self.fault_or_exit();
            if why.is_some() {
                break;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        self.settle_stderr().await;
        why.unwrap_or_else(|| fallback.to_string())
    }

    /// Waits briefly for the rest of stderr once the server has exited, so the tail
    /// in a report holds the server's last words.
    async fn settle_stderr(&self) {
        for _ in 0..30 {
            if self.stderr_done.load(Ordering::Relaxed) {
                return;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }

    fn fault_or_exit(&mut self) -> Option<String> {
        if let Some(why) = self.fault.lock().ok().and_then(|f| f.clone()) {
            return Some(why);
        }
        self.process
            .exited()
            .map(|status| format!("the server exited ({status}) before answering"))
    }
}

/// An rmcp error without the transport's Rust type name, which says nothing to
/// whoever reads the report (`Transport [rmcp::transport::worker::...] error: `).
/// Why the server's tool list could not be read.
#[derive(Debug, thiserror::Error)]
pub(crate) enum ListToolsError {
    /// The session was stopped already.
    #[error("the session is closed")]
    Closed,
    /// The server did not answer in time.
    #[error("no answer to tools/list within {millis} ms")]
    NoAnswer {
        /// The time allowed, in milliseconds.
        millis: u128,
    },
    /// The server answered with a JSON-RPC error.
    #[error("the server answered tools/list with JSON-RPC error {code}: {message}")]
    JsonRpc {
        /// The error's code.
        code: i32,
        /// The error's message.
        message: String,
    },
    /// The exchange failed otherwise (the transport, an answer rmcp cannot read).
    #[error("tools/list failed: {}", plain_words(source))]
    Failed {
        /// What rmcp said.
        #[source]
        source: ServiceError,
    },
}

fn plain_words(error: &dyn std::fmt::Display) -> String {
    let mut words = error.to_string();
    while let Some(start) = words.find("Transport [") {
        let Some(end) = words[start..].find("] error: ") else {
            break;
        };
        words.replace_range(start..start + end + "] error: ".len(), "");
    }
    words
}

/// Keeps the last `STDERR_TAIL_BYTES` of a stream in `tail`, and in `denials` the
/// first lines of it that may show a denial (up to `DENIAL_LINES` there, from
/// whichever streams share it); reads to the end so the server never blocks on a
/// full stderr pipe.
pub(super) async fn keep_tail<R: tokio::io::AsyncRead + Unpin>(
    mut stream: R,
    tail: Arc<Mutex<Vec<u8>>>,
    denials: Arc<Mutex<Vec<String>>>,
    done: Arc<AtomicBool>,
) {
    let mut buf = vec![0u8; 8192];
    let mut lines = DenialLines {
        line: Vec::new(),
        kept: denials,
        full: false,
    };
    while let Ok(n) = stream.read(&mut buf).await {
        if n == 0 {
            break;
        }
        lines.feed(&buf[..n]);
        if let Ok(mut t) = tail.lock() {
            t.extend_from_slice(&buf[..n]);
            let excess = t.len().saturating_sub(STDERR_TAIL_BYTES);
            t.drain(..excess);
        }
    }
    // A last line without its newline is a line too.
    lines.end_line();
    done.store(true, Ordering::Relaxed);
}

/// The lines of one stream being read, looked at one by one for a denial.
struct DenialLines {
    /// The line read so far, cut to `DENIAL_LINE_BYTES`: a server's line may be
    /// as long as it likes, what is kept of it is not.
    line: Vec<u8>,
    kept: Arc<Mutex<Vec<String>>>,
    /// Set once `kept` holds `DENIAL_LINES`: nothing more is looked at.
    full: bool,
}

impl DenialLines {
    fn feed(&mut self, mut bytes: &[u8]) {
        while !self.full {
            let Some(at) = bytes.iter().position(|&b| b == b'\n') else {
                self.take(bytes);
                return;
            };
            self.take(&bytes[..at]);
            self.end_line();
            bytes = &bytes[at + 1..];
        }
    }

    fn take(&mut self, part: &[u8]) {
        let room = DENIAL_LINE_BYTES.saturating_sub(self.line.len());
        self.line.extend_from_slice(&part[..part.len().min(room)]);
    }

    /// Keeps the line read so far if it may show a denial and there is room, and
    /// starts the next one.
    fn end_line(&mut self) {
        if !self.full && !self.line.is_empty() {
            let text = String::from_utf8_lossy(&self.line);
            if super::isolation::denied::may_show_denial(&text) {
                if let Ok(mut kept) = self.kept.lock() {
                    if kept.len() < DENIAL_LINES {
                        kept.push(text.into_owned());
                    }
                    self.full = kept.len() >= DENIAL_LINES;
                }
            }
        }
        self.line.clear();
    }
}
