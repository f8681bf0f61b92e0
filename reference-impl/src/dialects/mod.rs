//! One adapter per suite: tool names, input schemas, argument parsing and the
//! rendering of engine results and errors in that suite's conventions.
//!
//! New suites (gemini-cli, agent-tools, ikigai) become sibling modules and a
//! variant of [`Dialect`]; the engine, the mutations and the server stay as
//! they are.

pub mod args;
pub mod boris;

use std::time::Duration;

use rmcp::model::{CallToolResult, ContentBlock, JsonObject, Tool};

use crate::config::{Config, DialectName};
use crate::engine::paths::PathPolicy;
use crate::engine::shell::Shell;
use crate::mutations::{Failure, Mutations};

/// What every tool call can use: the path policy, limits, the shell and its
/// background tasks, and the active mutations.
pub struct Context {
    pub policy: PathPolicy,
    pub max_file_size: u64,
    pub default_timeout: Duration,
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
            shell,
            mutations: config.mutations,
        }
    }
}

/// A tool call's outcome before rendering.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reply {
    /// `exit_code` is set for command results, so that `error-on-nonzero-exit`
    /// can act on it.
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

/// The suite whose tools are served.
#[derive(Debug, Clone, Copy)]
pub enum Dialect {
    Boris,
}

impl Dialect {
    pub fn new(name: DialectName) -> Dialect {
        match name {
            DialectName::Boris => Dialect::Boris,
        }
    }

    pub fn tools(self) -> Vec<Tool> {
        match self {
            Dialect::Boris => boris::tools(),
        }
    }

    /// Runs a tool; `None` when the dialect has no tool of that name.
    pub async fn call(self, ctx: &Context, name: &str, args: JsonObject) -> Option<Reply> {
        match self {
            Dialect::Boris => boris::call(ctx, name, &args).await,
        }
    }

    /// Turns a reply into an MCP result, applying the active mutations.
    pub fn render(self, mutations: &Mutations, reply: Reply) -> CallToolResult {
        let (text, is_error) = match reply {
            Reply::Success { text, exit_code } => (text, mutations.is_error_flag(false, exit_code)),
            Reply::Failure(failure) => {
                let failure = mutations.adjust_failure(failure);
                let text = match self {
                    Dialect::Boris => mutations
                        .code_style()
                        .render(failure.code, &failure.message),
                };
                (text, mutations.is_error_flag(true, None))
            }
        };
        let content = vec![ContentBlock::text(text)];
        if is_error {
            CallToolResult::error(content)
        } else {
            // `isError` is left out rather than sent as false, as the Go SDK does.
            let mut result = CallToolResult::success(content);
            result.is_error = None;
            result
        }
    }
}
