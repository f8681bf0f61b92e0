//! The `ikigai` dialect (mgreenly/ikigai's rel-04 tools, seed 004).
//!
//! Every result is compact JSON: `{"success":true,"data":{…}}` with the
//! tool's fields, or `{"success":false,"error":"…"}` with a message meant
//! for a person; `isError` is set exactly on the second (see [`envelope`]).
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

mod envelope;
mod ere;
mod expand;
mod file_tools;
mod search_tools;
mod shell_tool;
mod wildcard;

use crate::dialects::tool_schema::closed_object_tool as tool;
use std::path::PathBuf;

use rmcp::model::{JsonObject, Tool};
use serde_json::json;

use super::args::ArgError;
use super::{Context, Failure, Reply};
use crate::engine::EngineError;
use crate::mutations::MutationInfo;

pub use envelope::render;

/// The mistakes an ikigai-style server could make.
pub const MUTATIONS: &[MutationInfo] = &[
    MutationInfo {
        name: "success-as-string",
        what: "`success` is the string \"true\"/\"false\" instead of a boolean",
    },
    MutationInfo {
        name: "omit-count",
        what: "glob and grep leave `count` out of `data`",
    },
    MutationInfo {
        name: "count-newlines",
        what: "`count` is the number of newlines in `output`, one less than its lines",
    },
    MutationInfo {
        name: "count-as-string",
        what: "`count` is written as a string (\"2\")",
    },
    MutationInfo {
        name: "bytes-as-chars",
        what: "file_write counts characters instead of UTF-8 bytes",
    },
    MutationInfo {
        name: "nonzero-exit-is-failure",
        what: "a command's non-zero exit is reported as success:false",
    },
    MutationInfo {
        name: "omit-is-error",
        what: "failures are sent without `isError: true`",
    },
    MutationInfo {
        name: "is-error-on-success",
        what: "successes are sent with `isError: true`",
    },
    MutationInfo {
        name: "no-data-wrapper",
        what: "the tool fields sit beside `success` instead of inside `data`",
    },
    MutationInfo {
        name: "grep-no-space",
        what: "grep lines read `file:42:text`, without the space after the line number",
    },
    MutationInfo {
        name: "error-without-path",
        what: "error messages leave out the path (`File not found`)",
    },
    MutationInfo {
        name: "bash-stdout-only",
        what: "bash output has stdout only; stderr is dropped",
    },
    MutationInfo {
        name: "no-match-is-error",
        what: "glob and grep with no match answer success:false",
    },
    MutationInfo {
        name: "grep-ignore-case",
        what: "grep matches without regard to case (REG_ICASE)",
    },
    MutationInfo {
        name: "glob-matches-dotfiles",
        what: "a wildcard matches a leading `.` (`*` lists `.env`)",
    },
    MutationInfo {
        name: "grep-recursive",
        what: "grep also searches the files in subdirectories of `path`",
    },
    MutationInfo {
        name: "grep-count-occurrences",
        what: "grep's `count` counts every match in a line, not matching lines",
    },
    MutationInfo {
        name: "grep-strip-cr",
        what: "grep removes a `\\r` before the newline from the lines it shows",
    },
    MutationInfo {
        name: "grep-drop-last-line",
        what: "grep skips a last line that has no newline",
    },
    MutationInfo {
        name: "exit-code-wait-status",
        what: "bash reports the wait status (code << 8) as `exit_code`",
    },
    MutationInfo {
        name: "write-names-full-path",
        what: "file_write's confirmation names the path as given, not its base name",
    },
    MutationInfo {
        name: "error-resolved-path",
        what: "file errors name the resolved absolute path instead of the path as written",
    },
];

/// The five tools of seed 004, with upstream's parameters (all strings).
pub fn tools() -> Vec<Tool> {
    vec![
        tool(
            "glob",
            "List the paths matching a glob pattern.",
            json!({
                "pattern": {"type": "string", "description": "glob pattern, e.g. 'src/*.c'"},
                "path": {"type": "string", "description": "directory the pattern is relative to (default: the working directory)"},
            }),
            &["pattern"],
        ),
        tool(
            "file_read",
            "Return a file's contents.",
            json!({"path": {"type": "string", "description": "file to read"}}),
            &["path"],
        ),
        tool(
            "grep",
            "Find the lines matching a POSIX extended regular expression.",
            json!({
                "pattern": {"type": "string", "description": "POSIX extended regular expression"},
                "path": {"type": "string", "description": "directory whose files are searched (default: the working directory)"},
                "glob": {"type": "string", "description": "which files of that directory to search, e.g. '*.c' (default: all)"},
            }),
            &["pattern"],
        ),
        tool(
            "file_write",
            "Create or replace a file with the given content.",
            json!({
                "path": {"type": "string", "description": "file to write; its directory must exist"},
                "content": {"type": "string", "description": "the complete new content"},
            }),
            &["path", "content"],
        ),
        tool(
            "bash",
            "Run a shell command and return its combined output and exit code.",
            json!({"command": {"type": "string", "description": "command line for bash -c"}}),
            &["command"],
        ),
    ]
}

/// Runs one tool; `None` for a name that is not one of the five.
pub async fn call(ctx: &Context, name: &str, args: &JsonObject) -> Option<Reply> {
    let outcome = match name {
        "glob" => search_tools::glob(ctx, args),
        "file_read" => file_tools::file_read(ctx, args),
        "grep" => search_tools::grep(ctx, args),
        "file_write" => file_tools::file_write(ctx, args),
        "bash" => shell_tool::bash(ctx, args).await,
        _ => return None,
    };
    Some(outcome.unwrap_or_else(Reply::Failure))
}

type Outcome = Result<Reply, Failure>;

/// A failure whose message ends with the path it is about.
fn path_failure(prefix: &str, path: &str) -> Failure {
    Failure {
        paths: vec![path.to_string()],
        ..Failure::new("", format!("{prefix}: {path}"))
    }
}

fn argument_failure(err: ArgError) -> Failure {
    Failure::new(
        "",
        match err {
            ArgError::Missing(name) => format!("Missing required parameter: {name}"),
            ArgError::WrongType {
                name,
                expected,
                got,
            } => format!("Invalid type for parameter {name}: expected {expected}, got {got}"),
            ArgError::Unknown { name, .. } => format!("Unknown parameter: {name}"),
        },
    )
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
