//! Paths in the agent-tools conventions: every path is confined to the
//! workspace root (after resolving `..` and symlinks), and a message names a
//! path the way the caller gave it: a relative one relative to that root (with
//! `.` and `..` folded), an absolute one as it was written, as v0.1.0's
//! `fsError` echoes it.
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

/// A path argument: where it really is, and how messages name it.
#[derive(Debug, Clone)]
pub(crate) struct Target {
    /// Absolute, with every symlink resolved; inside the root.
    pub(crate) real: PathBuf,
    /// How messages name it: workspace-relative (`.` for the root itself), or
    /// absolute as given.
    pub(crate) shown: String,
}

/// Resolves a path argument and refuses one that ends up outside the root,
/// whether through `..`, an absolute path or a symlink.
pub(crate) fn resolve(ctx: &Context, raw: &str) -> Result<Target, Failure> {
    let shown = display(ctx, raw);
    let real = ctx.policy.resolve(raw).map_err(|err| match err {
        EngineError::AccessDenied { .. } => path_escape(raw),
        other => engine_failure(other, &shown),
    })?;
    if !inside_root(ctx, raw, &real) {
        return Err(path_escape(raw));
    }
    Ok(Target { real, shown })
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

/// How messages name `raw`: an absolute path as given; a relative one
/// relative to the root with `.` and `..` folded, or as given when it leads
/// outside the root.
pub(crate) fn display(ctx: &Context, raw: &str) -> String {
    let lexical = ctx.policy.lexical(raw);
    if ctx.mutations.is_active(Mutation::AbsolutePathsInMessages) {
        return lexical.display().to_string();
    }
    if Path::new(raw).is_absolute() {
        return raw.to_string();
    }
    relative_to(ctx.policy.root(), &lexical).unwrap_or_else(|| raw.to_string())
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
