//! The HTTP client under rmcp's streamable HTTP transport.
//!
//! rmcp's own client hands the transport typed messages, after its lenient reading
//! has already thrown away what a conformance check needs (was `content` there? was
//! the id a string?), and it words an HTTP failure in Rust type names. This client
//! does the same requests but keeps the raw JSON: every message the server sends,
//! in a JSON body or an SSE event, is checked by the [`Exchange`] before rmcp reads
//! it, as the stdout guard does over stdio. An answer that is not MCP at all (an
//! HTTP 500, an HTML page, a redirect elsewhere) is put in plain words into the
//! session's fault slot, which ends the attempt at once: the server did answer, so
//! waiting longer would only hide the reason. A connection that fails before any
//! answer (the server is still starting) is only remembered as the last error.

use std::collections::HashMap;
use std::os::fd::OwnedFd;
use std::sync::{Arc, Mutex};

use bytes::Bytes;
use futures::stream::BoxStream;
use futures::{Stream, StreamExt};
use hyper::body::Incoming;
use hyper::header::{
    HeaderMap, HeaderName, HeaderValue, ACCEPT, AUTHORIZATION, CONTENT_TYPE, LOCATION,
};
use hyper::{Method, Response, StatusCode};
use rmcp::model::{ClientJsonRpcMessage, ServerJsonRpcMessage};
use rmcp::transport::streamable_http_client::{
    SseError, StreamableHttpClient, StreamableHttpError, StreamableHttpPostResponse,
};
use serde_json::Value;
use sse_stream::{Sse, SseStream};

use super::exchange::{Exchange, Violation};
use super::http_wire::{self, BodyBroke, WireError, WireRequest};
use super::stdout_guard::{Fault, MAX_LINE_BYTES, MAX_TOTAL_BYTES};
use crate::visible::excerpt;

const SESSION_HEADER: &str = "mcp-session-id";
const LAST_EVENT_HEADER: &str = "last-event-id";
const EVENT_STREAM: &str = "text/event-stream";
const JSON: &str = "application/json";
const ACCEPT_BOTH: &str = "application/json, text/event-stream";
const ACCEPT_EVENTS_FIRST: &str = "text/event-stream, application/json";
/// How much of a body that is not MCP is read, to quote it.
const QUOTED_BODY_BYTES: usize = 4096;

/// A failure in plain words: what the server answered, or why nothing came back.
#[derive(Debug, Clone, thiserror::Error)]
#[error("{0}")]
pub(super) struct HttpFailure(String);

/// Why a body the server sent is not one JSON-RPC message the exchange accepts.
#[derive(Debug, thiserror::Error)]
enum MessageError {
    /// Valid JSON, but not JSON-RPC 2.0.
    #[error("the server sent JSON that is not a JSON-RPC 2.0 message in {container}: {shown}")]
    NotJsonRpc {
        /// Where it came: an SSE event, a JSON body, an error response.
        container: &'static str,
        /// What it was.
        shown: String,
    },
    /// Not JSON at all.
    #[error("the server sent something that is not JSON in {container}: {shown}")]
    NotJson {
        /// Where it came.
        container: &'static str,
        /// What it was.
        shown: String,
    },
    /// A message, but not one the exchange accepts.
    #[error(transparent)]
    Violation(#[from] Violation),
}

/// Why a body could not be read whole.
#[derive(Debug, thiserror::Error)]
enum CappedBodyError {
    /// It broke off.
    #[error(transparent)]
    Broke(#[from] BodyBroke),
    /// It went on past the limit.
    #[error("the body is longer than {limit} bytes")]
    TooLong {
        /// The limit, in bytes.
        limit: usize,
    },
}

/// The checked client; one per connection attempt.
#[derive(Clone)]
pub(super) struct CheckedHttp {
    exchange: Arc<Exchange>,
    /// Set when the server's answer means the session cannot work.
    fault: Fault,
    /// The latest failure that is not an answer (a refused connection), for the
    /// message when the server never comes up.
    last_error: Arc<Mutex<Option<String>>>,
    /// The server's own network namespace, which connections are made from inside
    /// of; `None` when it shares toolspec's.
    inside: Option<Arc<OwnedFd>>,
}

impl CheckedHttp {
    pub(super) fn new(
        exchange: Arc<Exchange>,
        fault: Fault,
        last_error: Arc<Mutex<Option<String>>>,
        inside: Option<Arc<OwnedFd>>,
    ) -> CheckedHttp {
        CheckedHttp {
            exchange,
            fault,
            last_error,
            inside,
        }
    }

    /// Records `why` as the reason the session cannot work, and returns it as the
    /// error for rmcp.
    fn definite(&self, why: String) -> StreamableHttpError<HttpFailure> {
        if let Ok(mut slot) = self.fault.lock() {
            slot.get_or_insert(why.clone());
        }
        StreamableHttpError::Client(HttpFailure(why))
    }

    /// Records `why` as the latest failure before any answer.
    fn not_answered(&self, why: String) -> StreamableHttpError<HttpFailure> {
        if let Ok(mut slot) = self.last_error.lock() {
            *slot = Some(why.clone());
        }
        StreamableHttpError::Client(HttpFailure(why))
    }

    /// The server's messages from an SSE body, each checked; a failed check is
    /// recorded and ends the stream.
    fn checked_events(
        &self,
        response: Response<Incoming>,
    ) -> BoxStream<'static, Result<Sse, SseError>> {
        let exchange = self.exchange.clone();
        let fault = self.fault.clone();
        let events = SseStream::from_bytes_stream(bounded(http_wire::body_stream(response)));
        events
            .scan(false, move |ended, event| {
                let item = if *ended {
                    None
                } else {
                    let checked = event.and_then(|event| match check_event(&event, &exchange) {
                        Ok(()) => Ok(event),
                        Err(why) => {
                            let why = why.to_string();
                            if let Ok(mut slot) = fault.lock() {
                                slot.get_or_insert(why.clone());
                            }
                            Err(SseError::Body(Box::new(HttpFailure(why))))
                        }
                    });
                    *ended = checked.is_err();
                    Some(checked)
                };
                std::future::ready(item)
            })
            .boxed()
    }
}

/// An SSE event's data must be a JSON-RPC message that the exchange accepts; an
/// event without data (a keep-alive, a resumption id) passes.
fn check_event(event: &Sse, exchange: &Exchange) -> Result<(), MessageError> {
    let Some(data) = event.data.as_deref().filter(|d| !d.trim().is_empty()) else {
        return Ok(());
    };
    let message = json_rpc(data.as_bytes(), "an SSE event")?;
    Ok(exchange.received(&message)?)
}

/// `body` as a JSON-RPC 2.0 message, or what it is instead.
fn json_rpc(body: &[u8], container: &'static str) -> Result<Value, MessageError> {
    let shown = || excerpt(&String::from_utf8_lossy(body), 200);
    match serde_json::from_slice::<Value>(body) {
        Ok(message) if message.get("jsonrpc").is_some_and(|v| v == "2.0") => Ok(message),
        Ok(_) => Err(MessageError::NotJsonRpc {
            container,
            shown: shown(),
        }),
        Err(_) => Err(MessageError::NotJson {
            container,
            shown: shown(),
        }),
    }
}

/// Ends a body stream that grows past the stdout guard's limits: a line longer than
/// one message may be, or more than a session may send.
fn bounded(
    body: impl Stream<Item = Result<Bytes, BodyBroke>> + Send + 'static,
) -> impl Stream<Item = Result<Bytes, HttpFailure>> + Send + 'static {
    let mut total = 0usize;
    let mut line = 0usize;
    body.map(move |chunk| {
        let chunk = chunk.map_err(|why| HttpFailure(why.to_string()))?;
        total += chunk.len();
        line = match chunk.iter().rposition(|b| *b == b'\n') {
            Some(at) => chunk.len() - at - 1,
            None => line + chunk.len(),
        };
        if total > MAX_TOTAL_BYTES {
            return Err(HttpFailure(format!(
                "the server sent more than {MAX_TOTAL_BYTES} bytes in one response"
            )));
        }
        if line > MAX_LINE_BYTES {
            return Err(HttpFailure(format!(
                "the server sent a line of more than {MAX_LINE_BYTES} bytes in an SSE stream"
            )));
        }
        Ok(chunk)
    })
}

/// Reads at most `limit` bytes of a body; `Err` when it is longer.
async fn read_capped(
    response: Response<Incoming>,
    limit: usize,
) -> Result<Vec<u8>, CappedBodyError> {
    let mut body = Vec::new();
    let mut chunks = std::pin::pin!(http_wire::body_stream(response));
    while let Some(chunk) = chunks.next().await {
        let chunk = chunk?;
        body.extend_from_slice(&chunk);
        if body.len() > limit {
            return Err(CappedBodyError::TooLong { limit });
        }
    }
    Ok(body)
}

/// The first `limit` bytes of a body (fewer when it is shorter or breaks off).
async fn read_prefix(response: Response<Incoming>, limit: usize) -> Vec<u8> {
    let mut body = Vec::new();
    let mut chunks = std::pin::pin!(http_wire::body_stream(response));
    while let Some(Ok(chunk)) = chunks.next().await {
        body.extend_from_slice(&chunk);
        if body.len() >= limit {
            break;
        }
    }
    body
}

/// A body that is not MCP, quoted.
fn describe_body(body: &[u8]) -> String {
    let text = String::from_utf8_lossy(&body[..body.len().min(QUOTED_BODY_BYTES)]).into_owned();
    if text.trim().is_empty() {
        "an empty body".to_string()
    } else {
        format!("the body begins {}", excerpt(text.trim(), 200))
    }
}

fn content_type(headers: &HeaderMap) -> Option<String> {
    headers
        .get(CONTENT_TYPE)
        .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned())
}

/// `HTTP 500 Internal Server Error`.
fn status_words(status: StatusCode) -> String {
    match status.canonical_reason() {
        Some(reason) => format!("HTTP {} {reason}", status.as_u16()),
        None => format!("HTTP {}", status.as_u16()),
    }
}

/// What `message` is, for messages: `initialize`, `tools/call`, or its kind.
fn what_was_sent(message: &ClientJsonRpcMessage) -> String {
    match serde_json::to_value(message) {
        Ok(sent) => match sent.get("method").and_then(Value::as_str) {
            Some(method) => method.to_string(),
            None => "a response".to_string(),
        },
        Err(_) => "a message".to_string(),
    }
}

fn is_request(message: &ClientJsonRpcMessage) -> bool {
    matches!(message, ClientJsonRpcMessage::Request(_))
}

/// A request with the session's headers: its id, the bearer token, and the
/// target's own headers.
fn request(
    method: Method,
    uri: &str,
    mut headers: HeaderMap,
    body: Vec<u8>,
    session_id: Option<&str>,
    auth_header: Option<String>,
    custom_headers: HashMap<HeaderName, HeaderValue>,
) -> WireRequest {
    if let Some(id) = session_id.and_then(|id| HeaderValue::from_str(id).ok()) {
        headers.insert(SESSION_HEADER, id);
    }
    if let Some(token) =
        auth_header.and_then(|t| HeaderValue::from_str(&format!("Bearer {t}")).ok())
    {
        headers.insert(AUTHORIZATION, token);
    }
    headers.extend(custom_headers);
    WireRequest {
        method,
        url: uri.to_string(),
        headers,
        body: Bytes::from(body),
    }
}

/// A header map of `(name, value)` pairs that are known to be valid.
fn headers_of(pairs: &[(HeaderName, &'static str)]) -> HeaderMap {
    pairs
        .iter()
        .map(|(name, value)| (name.clone(), HeaderValue::from_static(value)))
        .collect()
}

impl StreamableHttpClient for CheckedHttp {
    type Error = HttpFailure;

    async fn post_message(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<StreamableHttpPostResponse, StreamableHttpError<HttpFailure>> {
        let sent = what_was_sent(&message);
        let body = serde_json::to_vec(&message)
            .map_err(|e| HttpFailure(format!("cannot encode {sent}: {e}")))
            .map_err(StreamableHttpError::Client)?;
        let request = request(
            Method::POST,
            &uri,
            headers_of(&[(ACCEPT, ACCEPT_BOTH), (CONTENT_TYPE, JSON)]),
            body,
            session_id.as_deref(),
            auth_header,
            custom_headers,
        );
        // A refused connection means the server is not listening yet; anything else
        // that breaks the exchange (a reply that is not HTTP, a connection dropped
        // mid-answer) came from a listening server and is its answer.
        let response = http_wire::send(request, self.inside.as_deref())
            .await
            .map_err(|e| match e {
                WireError::Connect(why) => self.not_answered(why),
                WireError::Exchange(why) => {
                    self.definite(format!("{uri} broke off {sent} over HTTP: {why}"))
                }
            })?;
        let status = response.status();
        let headers = response.headers().clone();
        let kind = content_type(&headers);
        let answered = |what: String| format!("{uri} answered {sent} with {what}");
        if matches!(status, StatusCode::ACCEPTED | StatusCode::NO_CONTENT) {
            return Ok(StreamableHttpPostResponse::Accepted);
        }
        if status == StatusCode::NOT_FOUND && session_id.is_some() {
            return Err(StreamableHttpError::SessionExpired);
        }
        if status.is_redirection() {
            let to = headers
                .get(LOCATION)
                .map(|l| String::from_utf8_lossy(l.as_bytes()).into_owned())
                .unwrap_or_else(|| "nowhere (no Location header)".to_string());
            return Err(self.definite(answered(format!(
                "a redirect ({}) to {to}; only a redirect to the same host with 307 or 308 is \
                 followed, so give the target the URL the server serves MCP at",
                status_words(status)
            ))));
        }
        let is_json = kind.as_deref().is_some_and(|k| k.starts_with(JSON));
        let is_events = kind.as_deref().is_some_and(|k| k.starts_with(EVENT_STREAM));
        if !status.is_success() {
            let body = match read_capped(response, MAX_LINE_BYTES).await {
                Ok(body) => body,
                Err(why) => {
                    return Err(self.definite(answered(format!("{}; {why}", status_words(status)))))
                }
            };
            // A JSON-RPC error may come with an error status; then it is the answer.
            if let Some(error) = is_json
                .then(|| json_rpc(&body, "an error response").ok())
                .flatten()
            {
                if error.get("error").is_some() {
                    self.exchange
                        .received(&error)
                        .map_err(|w| self.definite(w.to_string()))?;
                    if let Ok(parsed) = serde_json::from_value::<ServerJsonRpcMessage>(error) {
                        return Ok(StreamableHttpPostResponse::Json(parsed, None));
                    }
                }
            }
            let shown = kind.map(|k| format!(" ({k})")).unwrap_or_default();
            return Err(self.definite(answered(format!(
                "{}{shown}; {}",
                status_words(status),
                describe_body(&body)
            ))));
        }
        let session = headers
            .get(SESSION_HEADER)
            .and_then(|v| v.to_str().ok())
            .map(str::to_string);
        if is_events {
            return Ok(StreamableHttpPostResponse::Sse(
                self.checked_events(response),
                session,
            ));
        }
        if !is_request(&message) {
            // Nothing is owed for a notification or a response; whatever came back
            // with a success status is taken as accepted.
            return Ok(StreamableHttpPostResponse::Accepted);
        }
        if !is_json {
            let shown = kind.unwrap_or_else(|| "no content type".to_string());
            let body = read_prefix(response, QUOTED_BODY_BYTES).await;
            return Err(self.definite(answered(format!(
                "{} and a {shown} body instead of JSON-RPC (application/json or text/event-stream); {}",
                status_words(status),
                describe_body(&body)
            ))));
        }
        let body = read_capped(response, MAX_LINE_BYTES)
            .await
            .map_err(|why| self.definite(answered(why.to_string())))?;
        let checked = json_rpc(&body, "a JSON body")
            .and_then(|m| Ok(self.exchange.received(&m).map(|()| m)?))
            .map_err(|why| self.definite(why.to_string()))?;
        let parsed = serde_json::from_value::<ServerJsonRpcMessage>(checked)
            .map_err(|e| self.definite(answered(format!("a message rmcp cannot read: {e}"))))?;
        Ok(StreamableHttpPostResponse::Json(parsed, session))
    }

    async fn delete_session(
        &self,
        uri: Arc<str>,
        session_id: Arc<str>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<(), StreamableHttpError<HttpFailure>> {
        let request = request(
            Method::DELETE,
            &uri,
            HeaderMap::new(),
            Vec::new(),
            Some(&session_id),
            auth_header,
            custom_headers,
        );
        let response = http_wire::send(request, self.inside.as_deref())
            .await
            .map_err(|e| {
                let (WireError::Connect(why) | WireError::Exchange(why)) = e;
                StreamableHttpError::Client(HttpFailure(format!("cannot end the session: {why}")))
            })?;
        match response.status() {
            StatusCode::METHOD_NOT_ALLOWED => {
                Err(StreamableHttpError::ServerDoesNotSupportDeleteSession)
            }
            status if status.is_success() => Ok(()),
            status => Err(StreamableHttpError::Client(HttpFailure(format!(
                "ending the session was answered with {}",
                status_words(status)
            )))),
        }
    }

    async fn get_stream(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<BoxStream<'static, Result<Sse, SseError>>, StreamableHttpError<HttpFailure>> {
        let mut headers = headers_of(&[(ACCEPT, ACCEPT_EVENTS_FIRST)]);
        if let Some(last) = last_event_id.and_then(|l| HeaderValue::from_str(&l).ok()) {
            headers.insert(LAST_EVENT_HEADER, last);
        }
        let request = request(
            Method::GET,
            &uri,
            headers,
            Vec::new(),
            session_id.as_deref(),
            auth_header,
            custom_headers,
        );
        // The stream for messages outside any request is optional: a server without
        // one says so, and no failure here is a fault of the session.
        let response = http_wire::send(request, self.inside.as_deref())
            .await
            .map_err(|e| {
                let (WireError::Connect(why) | WireError::Exchange(why)) = e;
                StreamableHttpError::Client(HttpFailure(format!(
                    "cannot open the event stream: {why}"
                )))
            })?;
        let status = response.status();
        if status == StatusCode::METHOD_NOT_ALLOWED {
            return Err(StreamableHttpError::ServerDoesNotSupportSse);
        }
        if status == StatusCode::NOT_FOUND && session_id.is_some() {
            return Err(StreamableHttpError::SessionExpired);
        }
        let is_events =
            content_type(response.headers()).is_some_and(|k| k.starts_with(EVENT_STREAM));
        if !status.is_success() || !is_events {
            return Err(StreamableHttpError::ServerDoesNotSupportSse);
        }
        Ok(self.checked_events(response))
    }
}
