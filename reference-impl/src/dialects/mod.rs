//! One adapter per suite: tool names, input schemas, argument parsing, the
//! rendering of engine results and errors in that suite's conventions, and
//! the catalogue of mutations that bend those conventions.
//!
//! Every dialect declares an [`Adapter`]; the `registry!` below is the one place
//! that names them all: one line per dialect declares its module, its `--dialect`
//! value and its adapter ([`Dialect::adapter`]).
//! The engine, the server and [`common`] are shared.

pub(crate) mod common;

use std::future::Future;
use std::pin::Pin;
use std::time::Duration;

use clap::ValueEnum;
use rmcp::model::{CallToolResult, ContentBlock, JsonObject, Tool};
use serde_json::Value;

use crate::engine::paths::{PathPolicy, Scope};
use crate::engine::shell::Shell;
use crate::mutations::{MutationInfo, Mutations};

/// What every tool call can use: the path policy, limits, the shell and its
/// background tasks, and the active mutations.
pub(crate) struct Context {
    pub(crate) policy: PathPolicy,
    pub(crate) max_file_size: u64,
    pub(crate) default_timeout: Duration,
    /// Most bytes of command output captured before the command is killed.
    pub(crate) output_limit: u64,
    /// Mutating tools are hidden and refused.
    pub(crate) read_only: bool,
    pub(crate) shell: Shell,
    pub(crate) mutations: Mutations,
}

/// A failure before rendering: a code (empty for dialects without codes), a
/// message, the paths the message mentions (so a mutation can drop them),
/// and extra fields some dialects add to their error object.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Failure {
    pub(crate) code: &'static str,
    pub(crate) message: String,
    pub(crate) paths: Vec<String>,
    pub(crate) extra: serde_json::Map<String, Value>,
}

impl Failure {
    pub(crate) fn new(code: &'static str, message: impl Into<String>) -> Failure {
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
pub(crate) enum Reply {
    /// `exit_code` is set for command results, so that a mutation can act on it.
    Success {
        text: String,
        exit_code: Option<i32>,
    },
    Failure(Failure),
}

impl Reply {
    pub(crate) fn text(text: impl Into<String>) -> Reply {
        Reply::Success {
            text: text.into(),
            exit_code: None,
        }
    }
}

/// A rendered answer: the result text and whether it is an error.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Rendered {
    pub(crate) text: String,
    pub(crate) is_error: bool,
}

impl Rendered {
    /// The MCP result: the text as one content block, flagged as an error
    /// when it is one.
    pub(crate) fn into_result(self) -> CallToolResult {
        let content = vec![ContentBlock::text(self.text)];
        if self.is_error {
            CallToolResult::error(content)
        } else {
            // `isError` is left out rather than sent as false, as the Go SDK does.
            let mut result = CallToolResult::success(content);
            result.is_error = None;
            result
        }
    }
}

/// Declares the registry from one line per dialect: its module (a folder beside
/// this file, whose `ADAPTER` serves it) and its variant of [`Dialect`], whose kebab-case name is
/// the `--dialect` value. Order is the order `--help` lists them in.
macro_rules! registry {
    ($( $(#[$doc:meta])* $module:ident => $variant:ident, )+) => {
        $( mod $module; )+

        /// The suites whose tool surface this server can speak (`--dialect`).
        #[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
        pub(crate) enum Dialect {
            $( $(#[$doc])* $variant, )+
        }

        impl Dialect {
            /// The registry: the adapter that serves each dialect.
            pub(crate) fn adapter(self) -> &'static Adapter {
                match self {
                    $( Dialect::$variant => &$module::ADAPTER, )+
                }
            }
        }
    };
}

registry! {
    /// mjkoo/boris: `[CODE] message` errors (seeds 000 and 001).
    boris => Boris,
    /// gemini-cli 0.1.13's built-in tools: exact strings (seed 002).
    gemini_cli => GeminiCli,
    /// @clarvis/agent-tools: the `{"error","message"}` envelope (seed 003).
    agent_tools => AgentTools,
    /// mgreenly/ikigai: the `{"success",…}` result envelope (seed 004).
    ikigai => Ikigai,
}

/// A tool call in progress; boxed so that adapters can sit behind `dyn`.
pub(crate) type Call<'a> = Pin<Box<dyn Future<Output = Option<Reply>> + Send + 'a>>;

/// What a dialect offers the server: its catalogue of mutations, its tool
/// list, running a tool, and writing a reply in its conventions. Each dialect
/// declares one as a `const ADAPTER` and `registry!` names it; plain function
/// fields (rather than a trait with one implementation per dialect) keep that
/// declaration to the four lines that differ.
pub(crate) struct Adapter {
    /// The deviations this dialect can be started with, in `--list-mutations`
    /// order.
    pub(crate) mutations: &'static [MutationInfo],
    /// The tools announced by `tools/list`.
    pub(crate) tools: fn(&Context) -> Vec<Tool>,
    /// Runs a tool; `None` when the dialect has no tool of that name and
    /// answers unknown tools with a JSON-RPC error.
    pub(crate) call: for<'a> fn(&'a Context, &'a str, &'a JsonObject) -> Call<'a>,
    /// Turns a reply into result text and error flag, applying the active
    /// mutations.
    pub(crate) render: fn(&Mutations, Reply) -> Rendered,
    /// Where the dialect's tools may reach when no `--allow-dir` is given:
    /// the root unless [`Adapter::reaching`] says otherwise.
    pub(crate) scope: Scope,
    /// Whether the dialect writes texts that are JSON objects of its own (an
    /// envelope, bash's object) and no other text that is one, so that the
    /// variations of JSON spelling apply to every text that is a JSON object.
    pub(crate) json_texts: bool,
    /// Whether the dialect's documents leave the words of a failure's message to
    /// the program (they say what it must hold, not how it reads).
    pub(crate) free_messages: bool,
    /// Whether the dialect's documents give failures as texts alone, with no
    /// error flag.
    pub(crate) unflagged_errors: bool,
}

impl Adapter {
    /// An adapter from a dialect's catalogue and its three functions, for its
    /// `const ADAPTER`.
    pub(crate) const fn new(
        mutations: &'static [MutationInfo],
        tools: fn(&Context) -> Vec<Tool>,
        call: for<'a> fn(&'a Context, &'a str, &'a JsonObject) -> Call<'a>,
        render: fn(&Mutations, Reply) -> Rendered,
    ) -> Adapter {
        Adapter {
            mutations,
            tools,
            call,
            render,
            scope: Scope::Root,
            json_texts: false,
            free_messages: false,
            unflagged_errors: false,
        }
    }

    /// The same adapter, reaching `scope` when no `--allow-dir` is given.
    pub(crate) const fn reaching(self, scope: Scope) -> Adapter {
        Adapter { scope, ..self }
    }

    /// The same adapter, marked as leaving messages' words free
    /// ([`Adapter::free_messages`]).
    pub(crate) const fn wording_messages_freely(self) -> Adapter {
        Adapter {
            free_messages: true,
            ..self
        }
    }

    /// The same adapter, marked as giving failures without an error flag
    /// ([`Adapter::unflagged_errors`]).
    pub(crate) const fn failing_without_a_flag(self) -> Adapter {
        Adapter {
            unflagged_errors: true,
            ..self
        }
    }

    /// The same adapter, marked as writing JSON texts ([`Adapter::json_texts`]).
    pub(crate) const fn writing_json(self) -> Adapter {
        Adapter {
            json_texts: true,
            ..self
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Dialect;
    use crate::engine::breach::Breach;
    use crate::mutations::Mutation as _;

    /// The escapes of `engine/breach.rs` are in the catalogue of every dialect
    /// that confines, by their shared names, and of no other.
    #[test]
    fn every_confining_dialect_lists_every_bug_by_its_shared_name() {
        use clap::ValueEnum;
        for dialect in Dialect::value_variants() {
            let catalogue = dialect.adapter().mutations;
            let listed = Breach::ALL
                .iter()
                .filter(|breach| catalogue.iter().any(|m| m.name == breach.name()))
                .count();
            let confines = *dialect != Dialect::Ikigai;
            assert_eq!(
                listed,
                if confines { Breach::ALL.len() } else { 0 },
                "{dialect:?}"
            );
        }
    }
}
