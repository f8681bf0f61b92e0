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

mod bash;
mod edit;
mod envelope;
mod files;
mod params;
mod patch;
mod schema;
mod search;
mod text;
mod workspace;

use rmcp::model::{JsonObject, Tool};

use super::{Context, Failure, Rendered, Reply};
use crate::mutations::{MutationInfo, Mutations};

/// The mistakes an agent-tools implementation could make.
pub const MUTATIONS: &[MutationInfo] = &[
    MutationInfo {
        name: "code-field-renamed",
        what: "the envelope names its code `code` instead of `error`",
    },
    MutationInfo {
        name: "uppercase-codes",
        what: "codes are written in upper case: `NOT_FOUND`",
    },
    MutationInfo {
        name: "plain-text-errors",
        what: "a failure's text is only its message, not the JSON envelope",
    },
    MutationInfo {
        name: "omit-is-error",
        what: "failures are sent without `isError: true`",
    },
    MutationInfo {
        name: "error-on-nonzero-exit",
        what: "a command's non-zero exit is an `io_error` envelope with `isError: true`",
    },
    MutationInfo {
        name: "leak-internal-details",
        what: "an internal error's message carries the underlying error and path",
    },
    MutationInfo {
        name: "multi-edit-partial-write",
        what: "multi_edit writes after each edit, so a failing later edit leaves earlier ones applied",
    },
    MutationInfo {
        name: "patch-not-atomic",
        what: "apply_patch writes each file as soon as its hunks apply, so a later failing file leaves earlier ones patched",
    },
    MutationInfo {
        name: "absolute-paths-in-messages",
        what: "messages name absolute paths instead of workspace-relative ones",
    },
    MutationInfo {
        name: "success-in-envelope",
        what: "a success's text is wrapped in a JSON object `{\"result\": …}`",
    },
    MutationInfo {
        name: "timeout-drops-output",
        what: "a timeout envelope leaves out the partial stdout and stderr",
    },
    MutationInfo {
        name: "read-only-still-listed",
        what: "read-only mode refuses the mutating tools but still lists them in tools/list",
    },
    MutationInfo {
        name: "read-only-ignored",
        what: "read-only mode still lists and runs the mutating tools",
    },
    MutationInfo {
        name: "write-counts-chars",
        what: "write_file reports the content's characters as its byte count (UTF-8 bytes vs chars)",
    },
    MutationInfo {
        name: "write-adds-final-newline",
        what: "write_file ends a content that lacks one with a newline",
    },
    MutationInfo {
        name: "empty-dir-blank",
        what: "list_dir of an empty directory answers an empty text instead of `(empty directory)`",
    },
    MutationInfo {
        name: "offset-zero-based",
        what: "read_file's positive offset counts lines to skip, so offset=2 starts at line 3",
    },
    MutationInfo {
        name: "limit-ignored",
        what: "read_file ignores `limit` and shows up to the default 2000 lines",
    },
    MutationInfo {
        name: "prefix-confinement",
        what: "confinement compares path strings, so a sibling `<root>-x` counts as inside the root",
    },
    MutationInfo {
        name: "identical-checked-late",
        what: "edit_file checks identical strings only after finding old_string, so an absent one is no_match",
    },
    MutationInfo {
        name: "unescaped-envelope",
        what: "the envelope is built by string formatting, so a quote or newline in a message breaks the JSON",
    },
    MutationInfo {
        name: "grep-ignore-case-ignored",
        what: "grep matches case-sensitively even with `ignore_case: true`",
    },
    MutationInfo {
        name: "signal-exit-code-minus-one",
        what: "a command ended by a signal reports `exit_code: -1` instead of 128 + the signal's number",
    },
    MutationInfo {
        name: "exit-code-as-string",
        what: "bash's `exit_code` is a JSON string (`\"3\"`) instead of a number",
    },
];

/// Whether `name` is hidden by read-only mode.
fn hidden(ctx: &Context, name: &str) -> bool {
    ctx.read_only
        && !ctx.mutations.is_active("read-only-ignored")
        && schema::MUTATING.contains(&name)
}

pub fn tools(ctx: &Context) -> Vec<Tool> {
    let listed_anyway = ctx.mutations.is_active("read-only-still-listed");
    schema::all()
        .into_iter()
        .filter(|tool| listed_anyway || !hidden(ctx, &tool.name))
        .collect()
}

/// Every name gets an answer: an unknown or hidden tool is `not_found`.
pub async fn call(ctx: &Context, name: &str, args: &JsonObject) -> Reply {
    let outcome = match name {
        _ if hidden(ctx, name) => Err(unknown_tool(name)),
        "read_file" => files::read_file(ctx, args),
        "list_dir" => files::list_dir(ctx, args),
        "write_file" => files::write_file(ctx, args),
        "glob" => search::glob(ctx, args),
        "grep" => search::grep(ctx, args),
        "edit_file" => edit::edit_file(ctx, args),
        "multi_edit" => edit::multi_edit(ctx, args),
        "apply_patch" => patch::apply_patch(ctx, args),
        "bash" => bash::bash(ctx, args).await,
        _ => Err(unknown_tool(name)),
    };
    outcome.unwrap_or_else(|failure| Reply::Failure(conceal_internal(ctx, name, failure)))
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
    if !ctx.mutations.is_active("leak-internal-details") {
        failure.message = "internal error".to_string();
        failure.extra.clear();
    }
    failure
}

pub fn render(mutations: &Mutations, reply: Reply) -> Rendered {
    envelope::render(mutations, reply)
}
