//! One HTTP/1.1 request at a time, on a connection of its own, with hyper's
//! connection API.
//!
//! The checked client ([`super::http_client`]) needs only this from HTTP: send a
//! request to a plain `http://` URL, follow a 307 or 308 to the same origin, and
//! hand back the status, the headers and the body as a stream. A general client
//! (reqwest) brought a URL parser with Unicode tables, tower and a connection pool
//! for that: about thirty crates in every build. A server under test is talked to a
//! few times per scenario, so a fresh connection per request costs nothing that
//! shows, and keeps one request's broken connection from touching the next.

use bytes::Bytes;
use futures::{Stream, StreamExt};
use http_body_util::{BodyDataStream, Full};
use hyper::body::Incoming;
use hyper::header::{HeaderMap, HOST, LOCATION};
use hyper::{Method, Request, Response, StatusCode, Uri};
use hyper_util::rt::TokioIo;
use std::os::fd::OwnedFd;

use tokio::net::TcpStream;

use super::isolation::inside_namespace;

/// Redirects followed within one origin (307 and 308 keep the method and body).
const MAX_REDIRECTS: usize = 10;

/// Why no answer came back.
#[derive(Debug)]
pub(super) enum WireError {
    /// Nothing is listening (yet): the connection was never made.
    Connect(String),
    /// A server was reached and the exchange broke, or the request could not be
    /// made at all (a URL that is not `http://`).
    Exchange(String),
}

/// A request to send, again if it is redirected.
pub(super) struct WireRequest {
    pub(super) method: Method,
    pub(super) url: String,
    pub(super) headers: HeaderMap,
    pub(super) body: Bytes,
}

/// Sends `request`, following a 307 or 308 within its origin up to
/// [`MAX_REDIRECTS`] times; any other redirect is returned as the answer.
/// With `inside`, the connection is made from inside that network namespace (the
/// server's own).
pub(super) async fn send(
    request: WireRequest,
    inside: Option<&OwnedFd>,
) -> Result<Response<Incoming>, WireError> {
    let first = parse_http_url(&request.url)?;
    let mut uri = first.clone();
    for _ in 0..=MAX_REDIRECTS {
        let response = send_once(&request, &uri, inside).await?;
        let keeps_body = matches!(
            response.status(),
            StatusCode::TEMPORARY_REDIRECT | StatusCode::PERMANENT_REDIRECT
        );
        let next = response
            .headers()
            .get(LOCATION)
            .and_then(|l| l.to_str().ok())
            .and_then(|l| resolve(&uri, l));
        match next {
            Some(next) if keeps_body && same_origin(&first, &next) => uri = next,
            _ => return Ok(response),
        }
    }
    Err(WireError::Exchange(format!(
        "more than {MAX_REDIRECTS} redirects from {}",
        request.url
    )))
}

/// A body that broke off while it was read; said by its innermost cause.
#[derive(Debug, thiserror::Error)]
#[error("reading the body failed: {}", root_cause(source))]
pub(super) struct BodyBroke {
    /// What hyper said.
    #[source]
    source: hyper::Error,
}

/// The body as a stream of byte pieces.
pub(super) fn body_stream(
    response: Response<Incoming>,
) -> impl Stream<Item = Result<Bytes, BodyBroke>> + Send + 'static {
    BodyDataStream::new(response.into_body())
        .map(|piece| piece.map_err(|source| BodyBroke { source }))
}

async fn send_once(
    request: &WireRequest,
    uri: &Uri,
    inside: Option<&OwnedFd>,
) -> Result<Response<Incoming>, WireError> {
    let authority = uri
        .authority()
        .ok_or_else(|| WireError::Exchange(format!("{uri} names no host")))?;
    let host = authority
        .host()
        .trim_start_matches('[')
        .trim_end_matches(']');
    let port = authority.port_u16().unwrap_or(80);
    let stream = connect(host, port, inside)
        .await
        .map_err(|e| WireError::Connect(format!("cannot connect to {uri}: {e}")))?;
    let broke = |e: hyper::Error| WireError::Exchange(root_cause(&e));
    let (mut sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
        .await
        .map_err(broke)?;
    // The connection is driven beside the request, and ends with the body.
    tokio::spawn(connection);
    let target = uri.path_and_query().map_or("/", |p| p.as_str());
    let mut builder = Request::builder()
        .method(request.method.clone())
        .uri(target)
        .header(HOST, authority.as_str());
    for (name, value) in &request.headers {
        builder = builder.header(name, value);
    }
    let outgoing = builder
        .body(Full::new(request.body.clone()))
        .map_err(|e| WireError::Exchange(format!("cannot make the request to {uri}: {e}")))?;
    sender.send_request(outgoing).await.map_err(broke)
}

/// A connection to `host` and `port`, from inside the network namespace `inside`
/// when given: the socket is made there (a socket belongs to the namespace it was
/// made in), then connected as any other.
async fn connect(host: &str, port: u16, inside: Option<&OwnedFd>) -> std::io::Result<TcpStream> {
    let Some(namespace) = inside else {
        return TcpStream::connect((host, port)).await;
    };
    let mut last = None;
    for address in tokio::net::lookup_host((host, port)).await? {
        let socket = inside_namespace::tcp_socket(namespace, address.is_ipv6())?;
        match socket.connect(address).await {
            Ok(stream) => return Ok(stream),
            Err(e) => last = Some(e),
        }
    }
    Err(last.unwrap_or_else(|| {
        std::io::Error::new(
            std::io::ErrorKind::NotFound,
            format!("{host} resolves to no address"),
        )
    }))
}

/// `url` as an `http://` URI with a host, or why not.
fn parse_http_url(url: &str) -> Result<Uri, WireError> {
    let uri: Uri = url
        .parse()
        .map_err(|e| WireError::Exchange(format!("{url} is not a URL: {e}")))?;
    match uri.scheme_str() {
        Some("http") if uri.authority().is_some() => Ok(uri),
        Some("https") => Err(WireError::Exchange(format!(
            "{url}: https is not supported; toolspec talks plain HTTP to a server it starts \
             or one on this machine's network"
        ))),
        _ => Err(WireError::Exchange(format!(
            "{url} is not an http:// URL with a host"
        ))),
    }
}

/// Where a `Location` header leads from `base`: an absolute URL, a path on the
/// same origin, or a path relative to the base's folder.
fn resolve(base: &Uri, location: &str) -> Option<Uri> {
    if location.contains("://") {
        return location.parse().ok();
    }
    let scheme = base.scheme_str()?;
    let authority = base.authority()?;
    let path = if location.starts_with('/') {
        location.to_string()
    } else {
        let folder = base
            .path()
            .rsplit_once('/')
            .map_or("", |(folder, _)| folder);
        format!("{folder}/{location}")
    };
    format!("{scheme}://{authority}{path}").parse().ok()
}

fn same_origin(a: &Uri, b: &Uri) -> bool {
    let port = |u: &Uri| u.port_u16().unwrap_or(80);
    a.scheme_str() == b.scheme_str() && a.host() == b.host() && port(a) == port(b)
}

/// What actually went wrong under an error: its innermost cause ("Connection
/// refused (os error 111)"), without the layers of wrapping.
fn root_cause(error: &(dyn std::error::Error + 'static)) -> String {
    let mut innermost = error;
    while let Some(inner) = innermost.source() {
        innermost = inner;
    }
    innermost.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn uri(s: &str) -> Uri {
        s.parse().expect("a test URL")
    }

    #[test]
    fn a_location_is_resolved_against_the_url_it_answered() {
        let base = uri("http://127.0.0.1:8080/mcp/v1");
        assert_eq!(
            resolve(&base, "/other"),
            Some(uri("http://127.0.0.1:8080/other"))
        );
        assert_eq!(
            resolve(&base, "v2"),
            Some(uri("http://127.0.0.1:8080/mcp/v2"))
        );
        assert_eq!(
            resolve(&base, "http://example.com/mcp"),
            Some(uri("http://example.com/mcp"))
        );
    }

    #[test]
    fn only_the_same_scheme_host_and_port_are_one_origin() {
        let base = uri("http://127.0.0.1:8080/mcp");
        assert!(same_origin(&base, &uri("http://127.0.0.1:8080/elsewhere")));
        assert!(!same_origin(&base, &uri("http://127.0.0.1:8081/mcp")));
        assert!(!same_origin(&base, &uri("http://localhost:8080/mcp")));
        assert!(same_origin(&uri("http://a/x"), &uri("http://a:80/y")));
    }

    #[test]
    fn a_url_that_is_not_plain_http_is_refused_in_words() {
        let https = parse_http_url("https://example.com/mcp").expect_err("https is refused");
        assert!(
            matches!(https, WireError::Exchange(ref w) if w.contains("https is not supported"))
        );
        let relative = parse_http_url("/mcp").expect_err("a path alone is refused");
        assert!(matches!(relative, WireError::Exchange(ref w) if w.contains("not an http:// URL")));
    }
}
