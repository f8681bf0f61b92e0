//! The MCP side: an rmcp [`ServerHandler`] that lists the dialect's tools and
//! dispatches calls to it, served over stdin/stdout here or over streamable
//! HTTP by [`crate::http`].

use std::sync::Arc;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, Implementation, ListToolsResult,
    PaginatedRequestParams, ServerCapabilities, ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler, ServiceExt};
use thiserror::Error;

use crate::config::Config;
use crate::dialects::{Adapter, Context};
use crate::engine::shell::Shell;
use crate::stdio_guard::{self, GuardedStdio};
use crate::stdio_transport::StdioTransport;
use crate::stop_signals::{stop_signals, SignalError};
use crate::variations::Variations;

/// Tool calls are handled by the dialect; everything else is rmcp's default.
/// Clones share one [`Context`] (one shell, one set of background tasks), so
/// HTTP sessions each get a clone.
#[derive(Clone)]
pub(crate) struct ToolServer {
    adapter: &'static Adapter,
    ctx: Arc<Context>,
    /// The forms answers take; the dialect never sees them.
    variations: Arc<Variations>,
}

impl ToolServer {
    pub(crate) fn new(config: Config) -> ToolServer {
        let variations = Arc::new(config.variations.clone());
        ToolServer {
            adapter: config.dialect.adapter(),
            ctx: Arc::new(context(config)),
            variations,
        }
    }

    /// Kills the process group of everything the shell started and is still
    /// running, whichever clone (session) started it. What left its group
    /// is killed on the process's way out, once the runtime has ended
    /// (`main_with_args`, through `kill_descendants`).
    pub(crate) fn kill_background_tasks(&self) {
        self.ctx.shell.kill_all();
    }
}

impl ServerHandler for ToolServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build()).with_server_info(
            Implementation::new("toolspec-reference", env!("CARGO_PKG_VERSION")),
        )
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        Ok(ListToolsResult::with_all_items((self.adapter.tools)(
            &self.ctx,
        )))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let args = request.arguments.unwrap_or_default();
        match (self.adapter.call)(&self.ctx, &request.name, &args).await {
            Some(reply) => {
                let reply = self.variations.reword(reply);
                let rendered = (self.adapter.render)(&self.ctx.mutations, reply);
                Ok(self
                    .variations
                    .result(rendered, self.adapter.json_texts)
                    .into())
            }
            // Upstream servers answer an unknown tool with a JSON-RPC error.
            None => Err(McpError::invalid_params(
                format!("unknown tool \"{}\"", request.name),
                None,
            )),
        }
    }
}

/// Why serving MCP ended in failure; printed on stderr before the process
/// exits with 1.
#[derive(Debug, Error)]
pub(crate) enum ServeError {
    #[error("server stopped: {0}")]
    Stopped(tokio::task::JoinError),
    /// Boxed: rmcp's error is large, and this one is rare.
    #[error("MCP initialization failed: {0}")]
    Initialize(Box<rmcp::service::ServerInitializeError>),
    #[error("cannot listen on {host}:{port}: {cause}")]
    Listen {
        host: String,
        port: u16,
        cause: std::io::Error,
    },
    #[error("cannot read the bound address: {0}")]
    BoundAddress(std::io::Error),
    #[error(transparent)]
    Signal(#[from] SignalError),
    #[error("accepting connections failed: {0}")]
    Accept(std::io::Error),
}

/// What every tool call can use, made from the validated flags, with a shell
/// that runs commands in the root.
fn context(config: Config) -> Context {
    let shell = Shell::new(config.policy.root().to_path_buf());
    Context {
        policy: config.policy,
        max_file_size: config.max_file_size,
        default_timeout: config.default_timeout,
        output_limit: config.output_limit,
        read_only: config.read_only,
        shell,
        mutations: config.mutations,
    }
}

/// Serves until stdin closes or a stop signal arrives ([`stop_signals`]),
/// then kills everything the shell started. Requests reach rmcp through the
/// [`stdio_guard`], so one too large or too deep is answered with an error
/// instead of dropped; answers are serialized straight to stdout
/// ([`StdioTransport`]).
pub(crate) async fn serve_stdio(config: Config) -> Result<(), ServeError> {
    let stop = stop_signals()?;
    let server = ToolServer::new(config);
    let cleanup = server.clone();
    let GuardedStdio {
        read,
        write,
        answers,
        output,
    } = stdio_guard::guard(tokio::io::stdin(), tokio::io::stdout());
    let serving = async {
        match server
            .serve(StdioTransport::new(read, write, answers))
            .await
        {
            Ok(running) => running
                .waiting()
                .await
                .map(|_| ())
                .map_err(ServeError::Stopped),
            Err(err) => Err(ServeError::Initialize(Box::new(err))),
        }
    };
    let (outcome, signalled) = tokio::select! {
        outcome = serving => (outcome, false),
        () = stop => (Ok(()), true),
    };
    cleanup.kill_background_tasks();
    if !signalled {
        // Everything rmcp wrote reaches stdout before the process ends.
        let _ = output.await;
    }
    outcome
}
