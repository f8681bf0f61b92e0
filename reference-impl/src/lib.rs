//! The bundled reference tool server that toolspec suites are checked against.
//!
//! One dialect-neutral [`engine`] (confined paths, files, search, shell) sits
//! under one adapter per suite in [`dialects`], which names the tools, parses
//! their arguments and renders results in that suite's conventions. The
//! [`mutations`] catalogue deliberately bends the rendering so the harness can
//! prove its checks catch realistic deviations, and the [`variations`]
//! catalogue answers in other forms the documents allow, so the harness can
//! prove its checks accept them. [`server`] speaks MCP over
//! stdio with rmcp (behind [`stdio_guard`], which answers requests too large
//! or too deep for rmcp, through [`stdio_transport`], which writes answers
//! straight to stdout), and [`http`] over streamable HTTP.

mod config;
mod dialects;
mod engine;
mod http;
mod json_shape;
mod json_spelling;
mod mutations;
mod server;
mod stdio_guard;
mod stdio_transport;
mod stop_signals;
#[doc(hidden)]
pub mod test_binary;
mod variations;

use std::ffi::OsString;
use std::process::ExitCode;

/// Parses `args` (without a program name), then serves MCP over stdin/stdout
/// until stdin closes, or over streamable HTTP until SIGTERM/SIGINT (or stdin
/// EOF with `--exit-on-stdin-eof`). Errors go to stderr; stdout carries only
/// JSON-RPC (and nothing at all with HTTP).
pub fn main_with_args<I: IntoIterator<Item = OsString>>(args: I) -> ExitCode {
    let config = match config::Config::from_args(args) {
        Ok(config) => config,
        Err(exit) => return exit,
    };
    // Before any command runs: whatever leaves its process group stays ours.
    if let Err(err) = engine::shell::become_subreaper() {
        eprintln!(
            "toolspec-reference: cannot become a subreaper ({err}); a command that calls setsid may outlive the server"
        );
    }
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(err) => {
            eprintln!("toolspec-reference: could not start the async runtime: {err}");
            return ExitCode::FAILURE;
        }
    };
    let outcome = runtime.block_on(async move {
        match config.transport.clone() {
            config::Transport::Stdio => server::serve_stdio(config).await,
            config::Transport::Http(options) => {
                http::serve(server::ToolServer::new(config), options).await
            }
        }
    });
    // Do not wait for blocking stdin reads or open HTTP connections: a server
    // stopped by a signal has a stdin read pending on a blocking thread, which
    // never ends, and every answer has been written by now.
    runtime.shutdown_timeout(std::time::Duration::from_millis(50));
    // Whatever left its command's group (`setsid`) and was adopted, killed with
    // the runtime's threads gone, so that only the main thread's children list
    // is read (see `orphans::FORKED`).
    engine::shell::kill_descendants();
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("toolspec-reference: {message}");
            ExitCode::FAILURE
        }
    }
}
