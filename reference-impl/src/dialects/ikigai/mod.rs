//! The `ikigai` dialect (mgreenly/ikigai's rel-04 tools, seed 004).
//!
//! Every result is compact JSON: `{"success":true,"data":{…}}` with the
//! tool's fields, or `{"success":false,"error":"…"}` with a message meant
//! for a person; `isError` is set exactly on the second (see [`render`]).
//!
//! Where the seed is silent the upstream program decides:
//!
//! - Paths are not confined (the seed says nothing of a root, and rel-04
//!   confines nothing): a relative path is taken against the root, and any
//!   path, through `..`, absolute or through a symlink, is opened wherever
//!   it leads; glob and grep list and search whatever the pattern names.
//!   Only the operating system refuses a path (EACCES is `Permission
//!   denied: <path>`), or `--allow-dir`, this server's own option, which
//!   confines it to the folders named and refuses in the same words.
//!   A `..` is taken as the kernel takes it: the name before it must be a
//!   folder (see [`dotdot`]).
//! - Every string argument, and every `output`, ends at its first NUL, as
//!   the C strings rel-04 holds them in do (see [`params::until_nul`]).
//! - `glob` and `grep` expand their pattern like `glob(3)`, relative to
//!   `path` (or the root) and without recursion beyond what the pattern
//!   spells out; matches are shown as `path` as written joined with the
//!   names (see [`expand`]). No match, or a `path` that does not exist, is a
//!   success with `count` 0 and an empty `output`.
//! - `grep`'s pattern is a POSIX extended regex (see [`ere`]); it searches
//!   the regular files that `glob` (default `*`) names under `path`, line by
//!   line, and writes `<file>:<line>: <text>` per matching line; without
//!   `path` it searches `.`, so a file is shown as `./name`.
//! - `file_read` returns the file's bytes as they are (invalid UTF-8
//!   replaced); a folder is opened and seeked in as rel-04 does, so its
//!   answer is the file system's (see [`files`]); `file_write` needs the parent directory to exist, writes
//!   atomically and reports `Wrote N bytes to <base name>`.
//! - `bash` returns stdout and stderr merged in the order written (the seed
//!   asks for them combined, in no order; upstream's `popen` only captured
//!   stdout) with one trailing newline removed (upstream), and `exit_code`.
//!
//! Choices of this server, not upstream's:
//!
//! - Messages name the path as the caller wrote it (`File not found:
//!   missing.txt`), as the seed's examples and upstream do.
//! - An unclosed `[` in a glob is `Invalid glob pattern: <pattern>` (the
//!   seed's example; glibc would take the `[` literally).
//! - Back-references in a grep pattern are refused (the `regex` crate has
//!   none).
//! - A command still running at the timeout is killed, and the call fails
//!   with `Command execution failed: timed out after …`; a command killed by
//!   a signal otherwise reports `exit_code` -1 (rel-04's 0 would read as
//!   success, which seed 004 line 65 gives to 0 alone).
//! - Bad arguments: `Missing required parameter: <name>` (upstream's
//!   wording), `Invalid type for parameter <name>: …` and `Unknown
//!   parameter: <name>`.

mod dotdot;
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
use crate::engine::paths::Scope;
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

/// Resolves a path argument to the real path it leads to, a relative one
/// taken against the root, wherever that is: nothing confines it to the root.
/// EACCES on the way, or a path outside the folders `--allow-dir` names, is
/// `Permission denied`, as an `open` the caller may not make.
fn resolve(ctx: &Context, raw: &str) -> Result<PathBuf, Failure> {
    match ctx.policy.resolve(raw) {
        Ok(real) => Ok(real),
        Err(EngineError::AccessDenied { .. }) => Err(path_failure("Permission denied", raw)),
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
/// is its JSON result envelope. Without `--allow-dir`, its tools reach any
/// path on the machine, as rel-04's do.
pub(crate) const ADAPTER: Adapter =
    Adapter::new(Mutation::CATALOGUE, |_| tools::tools(), call, render::render)
        .reaching(Scope::Anywhere)
        .writing_json();

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

#[cfg(test)]
mod tests {
    use std::path::Path;
    use std::time::Duration;

    use serde_json::{json, Value};

    use super::*;
    use crate::engine::paths::PathPolicy;
    use crate::engine::shell::Shell;
    use crate::mutations::Mutations;

    /// A temporary folder holding the root and, beside it, `outside/` with
    /// `secret.txt`; the root holds `link.txt`, a link to that file, and
    /// `out`, a link to that folder.
    struct Tree {
        _dir: tempfile::TempDir,
        base: PathBuf,
        ctx: Context,
    }

    /// The tree, served as the adapter starts (its scope, no `--allow-dir`)
    /// unless `allow` names folders.
    fn tree(allow: &[PathBuf]) -> Tree {
        let dir = tempfile::tempdir().expect("tempdir");
        let base = std::fs::canonicalize(dir.path()).expect("canonical");
        let root = base.join("root");
        std::fs::create_dir(&root).expect("mkdir");
        std::fs::create_dir(base.join("outside")).expect("mkdir");
        std::fs::write(base.join("outside/secret.txt"), "beside the root\n").expect("write");
        std::os::unix::fs::symlink(base.join("outside/secret.txt"), root.join("link.txt"))
            .expect("symlink");
        std::os::unix::fs::symlink("../outside", root.join("out")).expect("symlink");
        let ctx = Context {
            policy: PathPolicy::new(&root, allow, &[], ADAPTER.scope).expect("policy"),
            max_file_size: 1 << 20,
            default_timeout: Duration::from_secs(10),
            output_limit: 1 << 20,
            read_only: false,
            shell: Shell::new(root),
            mutations: Mutations::of::<Mutation>(&[]),
        };
        Tree {
            _dir: dir,
            base,
            ctx,
        }
    }

    /// The tool's answer as JSON, and whether it is flagged an error.
    async fn answer(ctx: &Context, tool: &str, args: Value) -> (Value, bool) {
        let Value::Object(args) = args else {
            panic!("arguments must be an object");
        };
        let reply = call(ctx, tool, &args).await.expect("a tool of ikigai's");
        let rendered = render::render(&ctx.mutations, reply);
        let text: Value = serde_json::from_str(&rendered.text).expect("JSON");
        (text, rendered.is_error)
    }

    fn at(dir: &Path, name: &str) -> String {
        dir.join(name).display().to_string()
    }

    /// As rel-04: a read by `..`, by an absolute path or through a link out of
    /// the root is served, and so is a write; glob, grep and bash reach there
    /// too.
    #[tokio::test]
    async fn paths_out_of_the_root_are_served() {
        let Tree { base, ctx, .. } = &tree(&[]);
        let secret = at(base, "outside/secret.txt");
        for path in ["../outside/secret.txt", "link.txt", "out/secret.txt", &secret] {
            let (read, is_error) = answer(ctx, "file_read", json!({ "path": path })).await;
            assert!(!is_error, "{path}: {read}");
            assert_eq!(read["data"]["output"], "beside the root\n", "{path}");
        }
        for (path, file) in [("../outside/new.txt", "new.txt"), ("out/other.txt", "other.txt")] {
            let args = json!({ "path": path, "content": "written\n" });
            let (wrote, is_error) = answer(ctx, "file_write", args).await;
            assert!(!is_error, "{path}: {wrote}");
            let written = std::fs::read_to_string(base.join("outside").join(file));
            assert_eq!(written.ok().as_deref(), Some("written\n"), "{path}");
        }
        let (globbed, _) = answer(ctx, "glob", json!({ "pattern": "../outside/s*" })).await;
        assert_eq!(globbed["data"]["output"], "../outside/secret.txt");
        let (globbed, _) = answer(ctx, "glob", json!({ "pattern": "*", "path": "out" })).await;
        assert_eq!(
            globbed["data"]["output"],
            "out/new.txt\nout/other.txt\nout/secret.txt"
        );
        let args = json!({ "pattern": "beside", "path": "../outside" });
        let (grepped, _) = answer(ctx, "grep", args).await;
        assert_eq!(
            grepped["data"]["output"],
            "../outside/secret.txt:1: beside the root"
        );
        let (grepped, _) = answer(ctx, "grep", json!({ "pattern": "root", "glob": "l*" })).await;
        assert_eq!(grepped["data"]["output"], "./link.txt:1: beside the root");
        let args = json!({ "command": "cat ../outside/secret.txt" });
        let (ran, _) = answer(ctx, "bash", args).await;
        assert_eq!(ran["data"]["output"], "beside the root");
    }

    /// Missing files keep their wording wherever they are.
    #[tokio::test]
    async fn a_missing_file_out_of_the_root_is_not_found() {
        let Tree { ctx, .. } = &tree(&[]);
        let (read, is_error) = answer(ctx, "file_read", json!({ "path": "../outside/no.txt" })).await;
        assert!(is_error);
        assert_eq!(read["error"], "File not found: ../outside/no.txt");
        let args = json!({ "path": "../nowhere/new.txt", "content": "x" });
        let (wrote, is_error) = answer(ctx, "file_write", args).await;
        assert!(is_error);
        assert_eq!(wrote["error"], "Cannot open file: ../nowhere/new.txt");
    }

    /// This server's own `--allow-dir` still confines, in the words of an
    /// `open` the caller may not make.
    #[tokio::test]
    async fn an_allowed_folder_still_confines() {
        let Tree { ctx, .. } = &tree(&[PathBuf::from(".")]);
        for path in ["../outside/secret.txt", "link.txt", "out/secret.txt"] {
            let (read, is_error) = answer(ctx, "file_read", json!({ "path": path })).await;
            assert!(is_error, "{path}: {read}");
            assert_eq!(read["error"], format!("Permission denied: {path}"));
        }
        let (globbed, _) = answer(ctx, "glob", json!({ "pattern": "out/*" })).await;
        assert_eq!(globbed["data"]["count"], 0);
    }
}
