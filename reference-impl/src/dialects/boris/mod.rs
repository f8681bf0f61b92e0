//! The `boris` dialect (mjkoo/boris, seeds 000 and 001).
//!
//! Errors are `isError: true` with the text `[CODE] message`, no trailing
//! period. Where the seed is silent, formats follow the upstream program:
//!
//! - `bash`: `exit_code: N\n`, then `\nstderr:\n…` and `\nstdout:\n…` when
//!   non-empty, each ending with a newline. A timeout kills the process group and is a normal result that
//!   starts with `Command timed out after <ms> ms\n\n`, then `exit_code: -1`.
//! - `view` of a file: `<n>\t<line>\n` with `n` right-aligned to the width of
//!   the last shown number; at most 2000 lines (then a `[Truncated: …]` note)
//!   and 2000 characters per line. A binary file (NUL in its first 512 bytes)
//!   is `Binary file (<size>)`. A directory: a tree two levels deep under its
//!   name (`sub/\n└── b.txt\n`), see `tree`.
//! - `str_replace`: `Replaced in <abs>\n\n` and the numbered lines around the
//!   edit, four on each side (see `numbered`); with `replace_all`, `Replaced
//!   N occurrences in <abs>`. `create_file`: `Created <abs> (<n> bytes)`.
//! - `grep`: `files_with_matches` lists paths (newest first in whole
//!   seconds, ties in walk order); `count` lists `path:N`; `content` lists
//!   `path:N:line` for matches and `path-N-line` for context, `--` between
//!   groups and files. Paths are relative to a searched directory, or the
//!   `path` argument as given when it names a file. No match is an empty text.
//! - `glob`: paths relative to the search folder, newest first (as grep's
//!   file list), one per line; `No files found` if none. A missing `path` is
//!   `PATH_NOT_FOUND` (the seed's rule for every tool; Boris departs). An
//!   invalid pattern is `invalid glob pattern: <pattern>`.
//!
//! IO errors are worded as Boris wraps Go's: what it could not do, then Go's
//! error, which names the system call and the path again (`could not write
//! <p>: open <p>: is a directory`, `could not read <p>: read <p>: is a
//! directory`, `could not stat <p>: stat <p>: not a directory` for a path
//! through a regular file, `could not create directories for <p>: mkdir <q>:
//! permission denied`); a FIFO given to `view` is `could not read <p>: not a
//! regular file`, a refusal of the engine's own.
//!
//! Where seed 000 is silent the checks come in Boris's order (create_file
//! measures the content before the path; str_replace checks `old_str` before
//! the path), grep reads its pattern as RE2 does (`re2`), takes negative
//! counts as Boris does, and holds only a multiline search to the size limit.

mod failure;
mod files;
mod gitignore;
mod grep_output;
mod listing;
mod mutations;
mod numbered;
mod order;
mod params;
mod re2;
mod render;
mod search;
mod shell;
mod tools;
mod tree;

use rmcp::model::JsonObject;

use super::{Adapter, Call, Context, Failure, Reply};
use crate::engine::paths::Scope;
use mutations::Mutation;

/// A tool's outcome before rendering.
type Outcome = Result<Reply, Failure>;

/// The boris adapter, registered in `registry!` (`super`). Without
/// `--allow-dir`, boris may reach any path on the machine (deny patterns
/// aside), as upstream does.
pub(crate) const ADAPTER: Adapter =
    Adapter::new(Mutation::CATALOGUE, |_| tools::tools(), call, render::render)
        .reaching(Scope::Anywhere)
        .wording_messages_freely();

/// Runs one boris tool; `None` for an unknown tool name.
fn call<'a>(ctx: &'a Context, name: &'a str, args: &'a JsonObject) -> Call<'a> {
    Box::pin(async move {
        let outcome = match name {
            "bash" => shell::bash(ctx, args).await,
            "task_output" => shell::task_output(ctx, args),
            "view" => files::view(ctx, args),
            "str_replace" => files::str_replace(ctx, args),
            "create_file" => files::create_file(ctx, args),
            "grep" => search::grep(ctx, args),
            "glob" => search::glob(ctx, args),
            _ => return None,
        };
        Some(outcome.unwrap_or_else(Reply::Failure))
    })
}
