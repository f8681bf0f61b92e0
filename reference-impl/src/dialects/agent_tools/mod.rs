//! The `agent-tools` dialect (seed 003): @clarvis/agent-tools v0.1.0.
//!
//! Every failure is `isError: true` with one compact JSON object as its
//! text, `{"error":"<code>","message":"…"}` plus the code's extra fields;
//! every success is the tool's plain output (for `bash`, a JSON object that
//! is a success even for a non-zero exit). Paths in messages are
//! workspace-relative, and every path is confined to the root.
//!
//! Choices where the seed is silent, following upstream:
//! - read-only mode hides `write_file`, `edit_file`, `multi_edit`,
//!   `apply_patch` and also `bash` (upstream counts it as mutating); calling
//!   a hidden tool is `not_found`, like an unknown one.
//! - `io_error` comes from the operating system refusing a path: a symlink
//!   loop (ELOOP), a NUL byte in a path, or a command that cannot be
//!   started. ENOTDIR (`file.txt/child`) is `not_a_file`, as upstream's
//!   `fsError` maps it.
//! - `internal` is any failure no tool anticipates. Reading a file after its
//!   stat accepted it is one: `open` refuses a UNIX socket with ENXIO. The
//!   details go to stderr; the caller gets only `internal error`.

mod cascade;
mod files;
mod ignore;
mod line_ends;
mod mutations;
mod params;
mod render;
mod search;
mod shell;
mod text;
mod text_lines;
mod tools;
mod walk;
mod workspace;

use rmcp::model::{JsonObject, Tool};

use super::{Adapter, Call, Context, Failure, Reply};
use mutations::Mutation;

/// Whether `name` is hidden by read-only mode.
fn hidden(ctx: &Context, name: &str) -> bool {
    ctx.read_only
        && !ctx.mutations.is_active(Mutation::ReadOnlyIgnored)
        && tools::MUTATING.contains(&name)
}

/// The tools announced: all nine, less those read-only mode hides.
fn listed(ctx: &Context) -> Vec<Tool> {
    let listed_anyway = ctx.mutations.is_active(Mutation::ReadOnlyStillListed);
    tools::all()
        .into_iter()
        .filter(|tool| listed_anyway || !hidden(ctx, &tool.name))
        .collect()
}

fn unknown_tool(name: &str) -> Failure {
    Failure::new("not_found", format!("Unknown tool: {name}"))
}

/// An internal failure's details are logged to stderr and replaced by the
/// generic message, so nothing about the server's insides reaches the caller.
fn conceal_internal(ctx: &Context, tool: &str, mut failure: Failure) -> Failure {
    if failure.code != "internal" {
        return failure;
    }
    eprintln!(
        "toolspec-reference: agent-tools: internal error in {tool}: {}",
        failure.message
    );
    if !ctx.mutations.is_active(Mutation::LeakInternalDetails) {
        failure.message = "internal error".to_string();
        failure.extra.clear();
    }
    failure
}

/// The agent-tools adapter, registered in `registry!` (`super`). It writes the
/// failure envelope and bash's object as JSON; its other texts are never a JSON
/// object (read_file numbers its lines).
pub(crate) const ADAPTER: Adapter =
    Adapter::new(Mutation::CATALOGUE, listed, call, render::render)
        .writing_json()
        .wording_messages_freely();

/// Every name gets an answer: an unknown or hidden tool is `not_found`.
fn call<'a>(ctx: &'a Context, name: &'a str, args: &'a JsonObject) -> Call<'a> {
    Box::pin(async move {
        let outcome = match name {
            _ if hidden(ctx, name) => Err(unknown_tool(name)),
            "read_file" => files::read_file(ctx, args),
            "list_dir" => files::list_dir(ctx, args),
            "write_file" => files::write_file(ctx, args),
            "glob" => search::glob(ctx, args),
            "grep" => search::grep(ctx, args),
            "edit_file" => files::edit_file(ctx, args),
            "multi_edit" => files::multi_edit(ctx, args),
            "apply_patch" => files::apply_patch(ctx, args),
            "bash" => shell::bash(ctx, args).await,
            _ => Err(unknown_tool(name)),
        };
        Some(
            outcome
                .unwrap_or_else(|failure| Reply::Failure(conceal_internal(ctx, name, failure))),
        )
    })
}
