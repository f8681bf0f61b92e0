//! The `gemini-cli` dialect (seed 002): the seven built-in tools of
//! `@google/gemini-cli-core` 0.1.13, answering with the exact strings the
//! seed gives. Errors are those strings with `isError: true`; there are no
//! codes. Where the seed is silent the upstream program decides (see each
//! tool's module); the main choices:
//!
//! - Argument errors are `Error: Invalid parameters provided. Reason: …` with
//!   Ajv's wording (`params must have required property 'x'`, see
//!   [`params`]); the shell tool words every refusal as
//!   `Command rejected: <command>\nReason: …` once it has a command.
//! - Paths must stay inside the root, symlinks resolved ([`confine`]). Outside
//!   it, a tool answers with upstream's own refusal, e.g. `Error: Invalid
//!   parameters provided. Reason: File path must be within the root directory
//!   (<root>): <path>`.
//! - Messages echo a path as the caller sent it, except where upstream
//!   resolves it first (glob's search dir, the search tool's stat errors).
//! - An unknown tool is a JSON-RPC error, not a tool result.

mod confine;
mod glob;
mod grep;
mod listing;
mod mutations;
mod node_error;
mod order;
mod params;
mod reading;
mod shell_command;
mod writing;

use crate::dialects::common::tool_schema::open_object_tool as tool;

use rmcp::model::{JsonObject, Tool};
use serde_json::json;

use super::{Adapter, Call, Context, Failure, Rendered, Reply};
use crate::mutations::{MutationInfo, Mutations};
use mutations::Mutation;

/// A tool's outcome before rendering.
type Outcome = Result<Reply, Failure>;

/// The seven tools, with gemini-cli's names and parameters.
pub(crate) fn tools() -> Vec<Tool> {
    vec![
        tool(
            "list_directory",
            "List the entries of a directory, directories first.",
            json!({
                "path": {"type": "string", "description": "absolute path of the directory"},
                "ignore": {"type": "array", "items": {"type": "string"}, "description": "name patterns (* and ?) to leave out"},
            }),
            &["path"],
        ),
        tool(
            "read_file",
            "Read a text file, or a window of its lines.",
            json!({
                "absolute_path": {"type": "string", "description": "absolute path of the file"},
                "offset": {"type": "number", "description": "0-based line to start at"},
                "limit": {"type": "number", "description": "how many lines to show"},
            }),
            &["absolute_path"],
        ),
        tool(
            "write_file",
            "Write a file, creating it and its parent directories if needed.",
            json!({
                "file_path": {"type": "string", "description": "absolute path of the file"},
                "content": {"type": "string", "description": "the whole new content"},
            }),
            &["file_path", "content"],
        ),
        tool(
            "replace",
            "Replace text in a file; the number of occurrences must be the expected one.",
            json!({
                "file_path": {"type": "string", "description": "absolute path of the file"},
                "old_string": {"type": "string", "description": "the exact text to replace (empty creates a new file)"},
                "new_string": {"type": "string", "description": "the replacement text"},
                "expected_replacements": {"type": "number", "minimum": 1, "description": "how many occurrences to replace (default 1)"},
            }),
            &["file_path", "old_string", "new_string"],
        ),
        tool(
            "run_shell_command",
            "Run a command with bash -c in its own process group.",
            json!({
                "command": {"type": "string", "description": "the command"},
                "description": {"type": "string", "description": "what the command does"},
                "directory": {"type": "string", "description": "directory relative to the root to run in"},
            }),
            &["command"],
        ),
        tool(
            "search_file_content",
            "Search file contents with a regular expression.",
            json!({
                "pattern": {"type": "string", "description": "the regular expression"},
                "path": {"type": "string", "description": "directory to search (default: the root)"},
                "include": {"type": "string", "description": "glob of the files to search"},
            }),
            &["pattern"],
        ),
        tool(
            "glob",
            "Find files by glob pattern, recently modified first.",
            json!({
                "pattern": {"type": "string", "description": "the glob pattern"},
                "path": {"type": "string", "description": "directory to search (default: the root)"},
                "case_sensitive": {"type": "boolean", "description": "match case (default false)"},
            }),
            &["pattern"],
        ),
    ]
}

/// Runs one tool; `None` for an unknown tool name.
pub(crate) async fn call(ctx: &Context, name: &str, args: &JsonObject) -> Option<Reply> {
    let outcome = match name {
        "list_directory" => listing::list_directory(ctx, args),
        "read_file" => reading::read_file(ctx, args),
        "write_file" => writing::write_file(ctx, args),
        "replace" => writing::replace(ctx, args),
        "run_shell_command" => shell_command::run_shell_command(ctx, args).await,
        "search_file_content" => grep::search_file_content(ctx, args),
        "glob" => glob::glob(ctx, args),
        _ => return None,
    };
    Some(outcome.unwrap_or_else(Reply::Failure))
}

/// Successes as they are; failures are their text with `isError: true`.
pub(crate) fn render(mutations: &Mutations, reply: Reply) -> Rendered {
    match reply {
        Reply::Success { text, exit_code } => Rendered {
            text,
            is_error: mutations.flags_nonzero_exit(Mutation::ErrorOnNonzeroExit, exit_code),
        },
        // Seed 002 fixes the text only; 0.1.13 itself has no error flag. The flag
        // is set for MCP clients, and the suite does not demand it.
        Reply::Failure(failure) => Rendered {
            text: failure.message,
            is_error: true,
        },
    }
}

/// An error whose text is exactly `message`.
fn plain_error(message: impl Into<String>) -> Failure {
    Failure::new("", message)
}

/// gemini's answer to arguments it refuses before doing anything.
fn invalid_params(reason: impl Into<String>) -> Failure {
    plain_error(format!(
        "Error: Invalid parameters provided. Reason: {}",
        reason.into()
    ))
}

/// A success sentence with its final period (which a mutation drops).
fn sentence(ctx: &Context, text: String) -> String {
    if ctx.mutations.is_active(Mutation::DropTrailingPeriod) {
        text
    } else {
        text + "."
    }
}

/// The gemini-cli adapter, registered in [`super::Dialect::adapter`].
pub(crate) struct GeminiCli;

impl Adapter for GeminiCli {
    fn mutations(&self) -> &'static [MutationInfo] {
        Mutation::CATALOGUE
    }

    fn tools(&self, _ctx: &Context) -> Vec<Tool> {
        tools()
    }

    fn call<'a>(&'a self, ctx: &'a Context, name: &'a str, args: &'a JsonObject) -> Call<'a> {
        Box::pin(call(ctx, name, args))
    }

    fn render(&self, mutations: &Mutations, reply: Reply) -> Rendered {
        render(mutations, reply)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_are_flagged_and_failed_commands_only_when_mutated() {
        let failure = || Reply::Failure(plain_error("File not found: /r/x"));
        let clean = Mutations::default();
        assert_eq!(
            render(&clean, failure()),
            Rendered {
                text: "File not found: /r/x".into(),
                is_error: true
            }
        );
        let failed_command = || Reply::Success {
            text: String::new(),
            exit_code: Some(3),
        };
        assert!(!render(&clean, failed_command()).is_error);
        let mutated = Mutations::of(&[Mutation::ErrorOnNonzeroExit]);
        assert!(render(&mutated, failed_command()).is_error);
        assert_eq!(
            invalid_params("Path must be absolute: x").message,
            "Error: Invalid parameters provided. Reason: Path must be absolute: x"
        );
    }

    #[test]
    fn every_tool_is_listed_once() {
        let names: Vec<String> = tools().iter().map(|t| t.name.to_string()).collect();
        assert_eq!(
            names,
            vec![
                "list_directory",
                "read_file",
                "write_file",
                "replace",
                "run_shell_command",
                "search_file_content",
                "glob"
            ]
        );
    }
}
