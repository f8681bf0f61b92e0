//! Paths in the agent-tools conventions: every path is confined to the
//! workspace root (after resolving `..` and symlinks). A failure names a path
//! exactly as the caller wrote it (v0.1.0's errors echo their input: an empty
//! path stays empty, `src/../a.txt` stays as written); an answer names it
//! relative to the root, `.` and `..` folded, as v0.1.0's `displayPath` does
//! (src/lib/paths.ts:11-16).
//!
//! File-system errors are classified the way upstream's `fsError` does:
//! ENOENT is `not_found`, EISDIR and ENOTDIR are `not_a_file`, anything else
//! the operating system refuses is `io_error`.

use std::io;
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::super::{Context, Failure};
use super::mutations::Mutation;
use crate::engine::error::describe_io;
use crate::engine::EngineError;

/// A path argument: where it really is, and how answers name it.
#[derive(Debug, Clone)]
pub(crate) struct Target {
    /// Absolute, with every symlink resolved; inside the root.
    pub(crate) real: PathBuf,
    /// Absolute, `.` and `..` folded, links left alone: the path as named,
    /// whose own last component a write must not go through when it is a link.
    pub(crate) named: PathBuf,
    /// How failures name it: as the caller wrote it.
    pub(crate) shown: String,
    /// How successes name it: relative to the root (`.` for the root itself).
    pub(crate) display: String,
}

/// Resolves a path argument and refuses one that ends up outside the root,
/// whether through `..`, an absolute path or a symlink.
pub(crate) fn resolve(ctx: &Context, raw: &str) -> Result<Target, Failure> {
    let shown = echoed(ctx, raw);
    let real = ctx.policy.resolve(raw).map_err(|err| match err {
        EngineError::AccessDenied { .. } => path_escape(raw),
        other => engine_failure(other, &shown),
    })?;
    if !inside_root(ctx, raw, &real) {
        return Err(path_escape(raw));
    }
    Ok(Target {
        real,
        named: ctx.policy.lexical(raw),
        display: display(ctx, raw),
        shown,
    })
}

/// Whether `real`, what the policy resolved `raw` to, lies in the root,
/// compared component by component so that a sibling such as `<root>-old` is
/// outside (the policy's own check, which a confinement bug bends as it bends
/// the resolution).
fn inside_root(ctx: &Context, raw: &str, real: &Path) -> bool {
    let root = ctx.policy.root();
    if ctx.mutations.is_active(Mutation::PrefixConfinement) {
        return real
            .to_string_lossy()
            .starts_with(root.to_string_lossy().as_ref());
    }
    ctx.policy.within_root(raw, real)
}

fn path_escape(raw: &str) -> Failure {
    with_path(
        Failure::new(
            "path_escape",
            format!("Path escapes the workspace root: {raw}"),
        ),
        raw,
    )
}

/// How failures name `raw`: as written (absolute against the root under the
/// `absolute-paths-in-messages` mutation).
pub(crate) fn echoed(ctx: &Context, raw: &str) -> String {
    if ctx.mutations.is_active(Mutation::AbsolutePathsInMessages) {
        return ctx.policy.lexical(raw).display().to_string();
    }
    raw.to_string()
}

/// How successes name `raw`: relative to the root with `.` and `..` folded,
/// or absolute when it lies outside the root.
pub(crate) fn display(ctx: &Context, raw: &str) -> String {
    let lexical = ctx.policy.lexical(raw);
    if ctx.mutations.is_active(Mutation::AbsolutePathsInMessages) {
        return lexical.display().to_string();
    }
    relative_to(ctx.policy.root(), &lexical).unwrap_or_else(|| lexical.display().to_string())
}

/// `path` relative to `root` (`.` for the root), or `None` outside it.
pub(crate) fn relative_to(root: &Path, path: &Path) -> Option<String> {
    let rest = path.strip_prefix(root).ok()?;
    let text = rest.display().to_string();
    Some(if text.is_empty() {
        ".".to_string()
    } else {
        text
    })
}

/// v0.1.0 never writes through a link: a link at the path as named, whatever
/// it leads to, is refused with `invalid_input` naming the absolute path
/// (`assertNotSymlink`, src/lib/atomic.ts:65-71), before anything is written.
pub(crate) fn refuse_link(ctx: &Context, target: &Target) -> Result<(), Failure> {
    match ctx.policy.lstat(&target.named) {
        Ok(meta) if meta.is_symlink() => {
            let named = target.named.display().to_string();
            Err(with_path(
                Failure::new(
                    "invalid_input",
                    format!("Refusing to write through a symlink: {named}"),
                ),
                &named,
            ))
        }
        _ => Ok(()),
    }
}

/// Adds the `path` extra field.
pub(crate) fn with_path(mut failure: Failure, shown: &str) -> Failure {
    failure
        .extra
        .insert("path".to_string(), Value::from(shown.to_string()));
    failure
}

pub(crate) fn not_found(shown: &str) -> Failure {
    with_path(
        Failure::new("not_found", format!("No such file: {shown}")),
        shown,
    )
}

pub(crate) fn is_directory(shown: &str) -> Failure {
    with_path(
        Failure::new("not_a_file", format!("Path is a directory: {shown}")),
        shown,
    )
}

pub(crate) fn not_directory(shown: &str) -> Failure {
    with_path(
        Failure::new("not_a_file", format!("Not a directory: {shown}")),
        shown,
    )
}

/// Classifies an error of a file-system call on `shown` (`op` is the verb
/// for the io_error message: `stat`, `list`, `write`, ...).
pub(crate) fn fs_failure(err: &io::Error, shown: &str, op: &str) -> Failure {
    if err.kind() == io::ErrorKind::NotFound {
        return not_found(shown);
    }
    match err.raw_os_error() {
        Some(libc::EISDIR) => is_directory(shown),
        Some(libc::ENOTDIR) => not_directory(shown),
        _ => io_failure(op, shown, &describe_io(err)),
    }
}

fn io_failure(op: &str, shown: &str, cause: &str) -> Failure {
    with_path(
        Failure::new("io_error", format!("Cannot {op} {shown}: {cause}")),
        shown,
    )
}

/// Classifies an engine error about `shown`. Errors the agent-tools
/// adapter never asks the engine for are internal.
pub(crate) fn engine_failure(err: EngineError, shown: &str) -> Failure {
    match err {
        EngineError::NotFound { .. } => not_found(shown),
        EngineError::Io { op, cause, .. } => match cause.as_str() {
            "is a directory" => is_directory(shown),
            "not a directory" => not_directory(shown),
            _ => io_failure(&op.to_string(), shown, &cause),
        },
        EngineError::AccessDenied { .. } => path_escape(shown),
        EngineError::InvalidInput(message) => Failure::new("invalid_input", message),
        EngineError::StartFailed { cause } => {
            Failure::new("io_error", format!("Failed to start the command: {cause}"))
        }
        other => internal(format!("{other:?}")),
    }
}

/// An unexpected failure. `detail` goes to stderr only (see `super::call`).
pub(crate) fn internal(detail: impl Into<String>) -> Failure {
    Failure::new("internal", detail)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_display_folds_to_the_root() {
        let root = Path::new("/w");
        assert_eq!(
            relative_to(root, Path::new("/w/a/b.txt")).as_deref(),
            Some("a/b.txt")
        );
        assert_eq!(relative_to(root, Path::new("/w")).as_deref(), Some("."));
        assert_eq!(relative_to(root, Path::new("/etc/passwd")), None);
    }

    #[test]
    fn errno_classification_follows_fs_error() {
        let code = |errno| fs_failure(&io::Error::from_raw_os_error(errno), "x", "stat").code;
        assert_eq!(code(libc::ENOENT), "not_found");
        assert_eq!(code(libc::EISDIR), "not_a_file");
        assert_eq!(code(libc::ENOTDIR), "not_a_file");
        assert_eq!(code(libc::ELOOP), "io_error");
        let loop_failure = fs_failure(&io::Error::from_raw_os_error(libc::ELOOP), "a", "stat");
        assert_eq!(
            loop_failure.message,
            "Cannot stat a: too many levels of symbolic links"
        );
    }
}
