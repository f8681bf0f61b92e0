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

use crate::config::Config;
use crate::dialects::{Context, Dialect};

/// Tool calls are handled by the dialect; everything else is rmcp's default.
/// Clones share one [`Context`] (one shell, one set of background tasks), so
/// HTTP sessions each get a clone.
#[derive(Clone)]
pub struct ToolServer {
    dialect: Dialect,
    ctx: Arc<Context>,
}

impl ToolServer {
    pub fn new(config: Config) -> ToolServer {
        let dialect = Dialect::new(config.dialect);
        ToolServer {
            dialect,
            ctx: Arc::new(Context::new(config)),
        }
    }

    /// Kills every process group the shell still has running, whichever
    /// clone (session) started it.
    pub fn kill_background_tasks(&self) {
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
        Ok(ListToolsResult::with_all_items(
            self.dialect.tools(&self.ctx),
        ))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let args = request.arguments.unwrap_or_default();
        match self.dialect.call(&self.ctx, &request.name, args).await {
            Some(reply) => Ok(self.dialect.render(&self.ctx.mutations, reply).into()),
            // Upstream servers answer an unknown tool with a JSON-RPC error.
            None => Err(McpError::invalid_params(
                format!("unknown tool \"{}\"", request.name),
                None,
            )),
        }
    }
}

/// Serves until stdin closes, then kills every process group still running.
pub async fn serve_stdio(config: Config) -> Result<(), String> {
    let server = ToolServer::new(config);
    let cleanup = server.clone();
    let outcome = match server.serve(rmcp::transport::stdio()).await {
        Ok(running) => running
            .waiting()
            .await
            .map(|_| ())
            .map_err(|err| format!("server stopped: {err}")),
        Err(err) => Err(format!("MCP initialization failed: {err}")),
    };
    cleanup.kill_background_tasks();
    outcome
}
