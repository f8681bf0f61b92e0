//! One adapter per suite: tool names, input schemas, argument parsing, the
//! rendering of engine results and errors in that suite's conventions, and
//! the catalogue of mutations that bend those conventions.
//!
//! Every adapter module offers the same four items: `tools()`, `call()`,
//! `render()` and `MUTATIONS`. [`Dialect`] only dispatches to them; the
//! engine and the server are shared.

pub mod agent_tools;
pub mod args;
pub mod boris;
pub mod gemini_cli;
pub mod ikigai;
pub mod ordered_json;
pub mod tool_schema;

use std::time::Duration;

use rmcp::model::{CallToolResult, ContentBlock, JsonObject, Tool};
use serde_json::Value;

use crate::config::{Config, DialectName};
use crate::engine::paths::PathPolicy;
use crate::engine::shell::Shell;
use crate::mutations::{MutationInfo, Mutations};

/// What every tool call can use: the path policy, limits, the shell and its
/// background tasks, and the active mutations.
pub struct Context {
    pub policy: PathPolicy,
    pub max_file_size: u64,
    pub default_timeout: Duration,
    /// Most bytes of command output captured before the command is killed.
    pub output_limit: u64,
    /// Mutating tools are hidden and refused.
    pub read_only: bool,
    pub shell: Shell,
    pub mutations: Mutations,
}

impl Context {
    pub fn new(config: Config) -> Context {
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
}

/// A failure before rendering: a code (empty for dialects without codes), a
/// message, the paths the message mentions (so a mutation can drop them),
/// and extra fields some dialects add to their error object.
#[derive(Debug, Clone, PartialEq)]
pub struct Failure {
    pub code: &'static str,
    pub message: String,
    pub paths: Vec<String>,
    pub extra: serde_json::Map<String, Value>,
}

impl Failure {
    pub fn new(code: &'static str, message: impl Into<String>) -> Failure {
        Failure {
            code,
            message: message.into(),
            paths: Vec::new(),
            extra: serde_json::Map::new(),
        }
    }
}

/// A tool call's outcome before rendering.
#[derive(Debug, Clone, PartialEq)]
pub enum Reply {
    /// `exit_code` is set for command results, so that a mutation can act on it.
    Success {
        text: String,
        exit_code: Option<i32>,
    },
    Failure(Failure),
}

impl Reply {
    pub fn text(text: impl Into<String>) -> Reply {
        Reply::Success {
            text: text.into(),
            exit_code: None,
        }
    }
}

/// A rendered answer: the result text and whether it is an error.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rendered {
    pub text: String,
    pub is_error: bool,
}

/// The suite whose tools are served.
#[derive(Debug, Clone, Copy)]
pub enum Dialect {
    Boris,
    GeminiCli,
    AgentTools,
    Ikigai,
}

impl Dialect {
    pub fn new(name: DialectName) -> Dialect {
        match name {
            DialectName::Boris => Dialect::Boris,
            DialectName::GeminiCli => Dialect::GeminiCli,
            DialectName::AgentTools => Dialect::AgentTools,
            DialectName::Ikigai => Dialect::Ikigai,
        }
    }

    /// The deviations this dialect can be started with.
    pub fn mutations(self) -> &'static [MutationInfo] {
        match self {
            Dialect::Boris => boris::MUTATIONS,
            Dialect::GeminiCli => gemini_cli::MUTATIONS,
            Dialect::AgentTools => agent_tools::MUTATIONS,
            Dialect::Ikigai => ikigai::MUTATIONS,
        }
    }

    pub fn tools(self, ctx: &Context) -> Vec<Tool> {
        match self {
            Dialect::Boris => boris::tools(),
            Dialect::GeminiCli => gemini_cli::tools(),
            Dialect::AgentTools => agent_tools::tools(ctx),
            Dialect::Ikigai => ikigai::tools(),
        }
    }

    /// Runs a tool; `None` when the dialect has no tool of that name and
    /// answers unknown tools with a JSON-RPC error.
    pub async fn call(self, ctx: &Context, name: &str, args: JsonObject) -> Option<Reply> {
        match self {
            Dialect::Boris => boris::call(ctx, name, &args).await,
            Dialect::GeminiCli => gemini_cli::call(ctx, name, &args).await,
            Dialect::AgentTools => Some(agent_tools::call(ctx, name, &args).await),
            Dialect::Ikigai => ikigai::call(ctx, name, &args).await,
        }
    }

    /// Turns a reply into an MCP result, applying the active mutations.
    pub fn render(self, mutations: &Mutations, reply: Reply) -> CallToolResult {
        let rendered = match self {
            Dialect::Boris => boris::render(mutations, reply),
            Dialect::GeminiCli => gemini_cli::render(mutations, reply),
            Dialect::AgentTools => agent_tools::render(mutations, reply),
            Dialect::Ikigai => ikigai::render(mutations, reply),
        };
        let content = vec![ContentBlock::text(rendered.text)];
        if rendered.is_error {
            CallToolResult::error(content)
        } else {
            // `isError` is left out rather than sent as false, as the Go SDK does.
            let mut result = CallToolResult::success(content);
            result.is_error = None;
            result
        }
    }
}
