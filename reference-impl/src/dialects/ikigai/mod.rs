//! The `ikigai` dialect (mgreenly/ikigai's rel-04 tools, seed 004).
//!
//! Every result is compact JSON: `{"success":true,"data":{…}}` with the
//! tool's fields, or `{"success":false,"error":"…"}` with a message meant
//! for a person; `isError` is set exactly on the second (see [`render`]).
//!
//! Where the seed is silent the upstream program decides:
//!
//! - `glob` and `grep` expand their pattern like `glob(3)`, relative to
//!   `path` (or the root) and without recursion beyond what the pattern
//!   spells out; matches are shown as `path` as written joined with the
//!   names (see [`expand`]). No match, or a `path` that does not exist, is a
//!   success with `count` 0 and an empty `output`.
//! - `grep`'s pattern is a POSIX extended regex (see [`ere`]); it searches
//!   the regular files that `glob` (default `*`) names under `path`, line by
//!   line, and writes `<file>:<line>: <text>` per matching line.
//! - `file_read` returns the file's bytes as they are (invalid UTF-8
//!   replaced); `file_write` needs the parent directory to exist, writes
//!   atomically and reports `Wrote N bytes to <base name>`.
//! - `bash` returns stdout and stderr merged in the order written (the seed;
//!   upstream's `popen` only captured stdout) with one trailing newline
//!   removed (upstream), and `exit_code`.
//!
//! Choices of this server, not upstream's:
//!
//! - Messages name the path as the caller wrote it (`File not found:
//!   missing.txt`), as the seed's examples and upstream do.
//! - Paths are confined to the root: a path that leaves it (by `..`, an
//!   absolute path or a symlink) is `Permission denied: <path>`; glob and
//!   grep leave such matches out.
//! - An unclosed `[` in a glob is `Invalid glob pattern: <pattern>` (the
//!   seed's example; glibc would take the `[` literally).
//! - Back-references in a grep pattern are refused (the `regex` crate has
//!   none).
//! - A command still running at the timeout is killed, and the call fails
//!   with `Command execution failed: timed out after …`; a command killed by
//!   a signal otherwise reports `exit_code` -1.
//! - Bad arguments: `Missing required parameter: <name>` (upstream's
//!   wording), `Invalid type for parameter <name>: …` and `Unknown
//!   parameter: <name>`.

mod ere;
mod expand;
mod files;
mod mutations;
mod params;
mod render;
mod search;
mod shell;
mod tools;
mod wildcard;

use std::path::PathBuf;

use rmcp::model::JsonObject;

use super::{Adapter, Call, Context, Failure, Reply};
use crate::engine::EngineError;
use mutations::Mutation;

type Outcome = Result<Reply, Failure>;

/// A failure whose message ends with the path it is about.
fn path_failure(prefix: &str, path: &str) -> Failure {
    Failure {
        paths: vec![path.to_string()],
        ..Failure::new("", format!("{prefix}: {path}"))
    }
}

/// Resolves a path argument to a real path under the root. Leaving the root
/// is refused as `Permission denied`, like a path the caller may not open.
fn confine(ctx: &Context, raw: &str) -> Result<PathBuf, Failure> {
    match ctx.policy.resolve(raw) {
        Ok(real) if real.starts_with(ctx.policy.root()) => Ok(real),
        Ok(_) | Err(EngineError::AccessDenied { .. }) => {
            Err(path_failure("Permission denied", raw))
        }
        Err(EngineError::Io { cause, .. }) if is_permission_denied(&cause) => {
            Err(path_failure("Permission denied", raw))
        }
        Err(_) => Err(path_failure("Cannot open file", raw)),
    }
}

/// Whether an engine IO cause is EACCES (the engine keeps causes as text).
fn is_permission_denied(cause: &str) -> bool {
    let eacces = std::io::Error::from_raw_os_error(libc::EACCES);
    cause == crate::engine::error::describe_io(&eacces)
}

/// The ikigai adapter, registered in `registry!` (`super`); every text it writes
/// is its JSON result envelope.
pub(crate) const ADAPTER: Adapter =
    Adapter::new(Mutation::CATALOGUE, |_| tools::tools(), call, render::render).writing_json();

/// Runs one tool; `None` for a name that is not one of the five.
fn call<'a>(ctx: &'a Context, name: &'a str, args: &'a JsonObject) -> Call<'a> {
    Box::pin(async move {
        let outcome = match name {
            "glob" => search::glob(ctx, args),
            "file_read" => files::file_read(ctx, args),
            "grep" => search::grep(ctx, args),
            "file_write" => files::file_write(ctx, args),
            "bash" => shell::bash(ctx, args).await,
            _ => return None,
        };
        Some(outcome.unwrap_or_else(Reply::Failure))
    })
}
