//! MCP over streamable HTTP: rmcp's [`StreamableHttpService`] behind a plain
//! hyper HTTP/1.1 accept loop, at the single path [`MCP_PATH`].
//!
//! Sessions are rmcp's default stateful ones (`Mcp-Session-Id`, kept in a
//! [`LocalSessionManager`]); every session gets a clone of the one
//! [`ToolServer`], so all of them share one shell and its background tasks,
//! and the process-wide cleanup kills every task whichever session started it.
//!
//! The process stops on SIGTERM, SIGINT or SIGHUP, and on stdin reaching end of file
//! when asked to (`--exit-on-stdin-eof`): a harness that closes a child's stdin
//! to stop it gets the same cleanup as one that signals it.

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::Arc;

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use tokio::io::AsyncReadExt;
use tokio::net::TcpListener;

use crate::config::HttpOptions;
use crate::server::{ServeError, ToolServer};
use crate::stop_signals::stop_signals;

/// The one path MCP is served at; every other path answers 404.
pub(crate) const MCP_PATH: &str = "/mcp";

type Service = StreamableHttpService<ToolServer, LocalSessionManager>;

/// Binds, announces `listening on http://ADDR/mcp` on stderr, then serves
/// until asked to stop; every background shell task is killed on the way out.
pub(crate) async fn serve(server: ToolServer, options: HttpOptions) -> Result<(), ServeError> {
    let listener = TcpListener::bind((options.host.as_str(), options.port))
        .await
        .map_err(|cause| ServeError::Listen {
            host: options.host.clone(),
            port: options.port,
            cause,
        })?;
    let addr = listener.local_addr().map_err(ServeError::BoundAddress)?;
    // Signal handlers go in before the announcement, so a harness that signals
    // as soon as it has read the line still gets the cleanup.
    let stop = stop_requested(options.exit_on_stdin_eof)?;

    let shell_owner = server.clone();
    let service: Service = StreamableHttpService::new(
        move || Ok(server.clone()),
        Arc::new(LocalSessionManager::default()),
        http_config(&options.host, addr),
    );
    let sessions = service.config.cancellation_token.clone();

    eprintln!("listening on http://{addr}{MCP_PATH}");
    let outcome = tokio::select! {
        result = accept_loop(listener, service) => result,
        () = stop => Ok(()),
    };
    sessions.cancel();
    shell_owner.kill_background_tasks();
    outcome
}

/// rmcp's defaults (stateful sessions, SSE keep-alive), with the `Host`
/// allow-list (DNS-rebinding protection, loopback names by default) widened
/// to the address asked for; a wildcard bind accepts any `Host`.
fn http_config(host: &str, addr: SocketAddr) -> StreamableHttpServerConfig {
    let config = StreamableHttpServerConfig::default();
    if addr.ip().is_unspecified() {
        return config.disable_allowed_hosts();
    }
    let mut hosts = config.allowed_hosts.clone();
    for extra in [host.to_string(), addr.ip().to_string()] {
        if !hosts.contains(&extra) {
            hosts.push(extra);
        }
    }
    config.with_allowed_hosts(hosts)
}

async fn accept_loop(listener: TcpListener, service: Service) -> Result<(), ServeError> {
    loop {
        let (stream, _peer) = match listener.accept().await {
            Ok(accepted) => accepted,
            // Per-connection failures (a reset before accept, too many open
            // files for a moment) must not take the server down.
            Err(err) if is_transient(&err) => continue,
            Err(err) => return Err(ServeError::Accept(err)),
        };
        let _ = stream.set_nodelay(true);
        let service = service.clone();
        tokio::spawn(async move {
            let handler = service_fn(move |request: Request<Incoming>| {
                let service = service.clone();
                async move { Ok::<_, Infallible>(route(&service, request).await) }
            });
            // A client that goes away mid-request is its own problem.
            let _ = http1::Builder::new()
                .serve_connection(TokioIo::new(stream), handler)
                .await;
        });
    }
}

fn is_transient(err: &std::io::Error) -> bool {
    use std::io::ErrorKind::*;
    matches!(
        err.kind(),
        ConnectionAborted | ConnectionReset | Interrupted | WouldBlock
    ) || err
        .raw_os_error()
        .is_some_and(|code| code == libc::EMFILE || code == libc::ENFILE || code == libc::ENOBUFS)
}

async fn route(
    service: &Service,
    request: Request<Incoming>,
) -> Response<http_body_util::combinators::BoxBody<Bytes, Infallible>> {
    if request.uri().path() == MCP_PATH {
        return service.handle(request).await;
    }
    let mut response = Response::new(Full::new(Bytes::from_static(b"Not Found")).boxed());
    *response.status_mut() = StatusCode::NOT_FOUND;
    response
}

/// Resolves when the process has been asked to stop: SIGTERM, SIGINT or
/// SIGHUP ([`stop_signals`]), or (with `exit_on_stdin_eof`) stdin at end of
/// file or unreadable. Installing the handlers can fail, so that happens
/// here, before anything is served.
fn stop_requested(
    exit_on_stdin_eof: bool,
) -> Result<impl std::future::Future<Output = ()>, ServeError> {
    let signalled = stop_signals()?;
    Ok(async move {
        let stdin_closed = async {
            if exit_on_stdin_eof {
                stdin_eof().await
            } else {
                std::future::pending().await
            }
        };
        tokio::select! {
            () = signalled => {}
            () = stdin_closed => {}
        }
    })
}

/// Reads and discards stdin until end of file (or a read error).
async fn stdin_eof() {
    let mut stdin = tokio::io::stdin();
    let mut buf = [0u8; 1024];
    while let Ok(n) = stdin.read(&mut buf).await {
        if n == 0 {
            break;
        }
    }
}
