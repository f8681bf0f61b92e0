//! The `gemini-cli` dialect (seed 002): the seven built-in tools of
//! `@google/gemini-cli-core` 0.1.13, answering with the exact strings the
//! seed gives. An error is that string alone, with no `isError`, as 0.1.13
//! puts it in the tool's `llmContent`; only what 0.1.13 throws (the shell
//! tool's crash on a command that is not a string) is flagged, as the CLI's
//! scheduler sends a thrown error apart (see [`thrown`]). There are no codes.
//! Where the seed is silent the upstream program decides (see each tool's
//! module); the main choices:
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
mod files;
mod mutations;
mod node_error;
mod order;
mod params;
mod render;
mod search;
mod shell;
mod tools;

use rmcp::model::JsonObject;

use super::{Adapter, Call, Context, Failure, Reply};
use mutations::Mutation;

/// A tool's outcome before rendering.
type Outcome = Result<Reply, Failure>;

/// The code of a failure that 0.1.13 throws rather than answers: the only
/// kind its CLI sends apart as `{error: message}`, so the only kind flagged.
const THROWN: &str = "thrown";

/// An error whose text is exactly `message`, answered as 0.1.13 answers one:
/// in the tool's text, with no error flag.
fn plain_error(message: impl Into<String>) -> Failure {
    Failure::new("", message)
}

/// An error 0.1.13 throws (a JavaScript `TypeError` on an argument it reads
/// before validating it): the message, flagged as an error.
fn thrown(message: impl Into<String>) -> Failure {
    Failure::new(THROWN, message)
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

/// The gemini-cli adapter, registered in `registry!` (`super`). Seed 002
/// gives its failures as texts alone, and 0.1.13 flags none it answers.
pub(crate) const ADAPTER: Adapter =
    Adapter::new(Mutation::CATALOGUE, |_| tools::tools(), call, render::render)
        .failing_without_a_flag();

/// Runs one tool; `None` for an unknown tool name.
fn call<'a>(ctx: &'a Context, name: &'a str, args: &'a JsonObject) -> Call<'a> {
    Box::pin(async move {
        let outcome = match name {
            "list_directory" => files::list_directory(ctx, args),
            "read_file" => files::read_file(ctx, args),
            "write_file" => files::write_file(ctx, args),
            "replace" => files::replace(ctx, args),
            "run_shell_command" => shell::run_shell_command(ctx, args).await,
            "search_file_content" => search::search_file_content(ctx, args),
            "glob" => search::glob(ctx, args),
            _ => return None,
        };
        Some(outcome.unwrap_or_else(Reply::Failure))
    })
}
