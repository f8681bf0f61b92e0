//! Keeping every path inside the root. gemini-cli checks the text of a path
//! (`isWithinRoot`); here the path's symlinks are resolved first, through the
//! engine's [`PathPolicy`](crate::engine::paths::PathPolicy), so a link
//! planted in the root cannot lead outside it. Each tool words the refusal
//! its own way (see [`Refusal`]).

use std::path::{Component, Path, PathBuf};

use super::mutations::Mutation;
use super::node_error;
use super::Context;
use crate::engine::EngineError;

/// Why a path may not be used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Refusal {
    /// The tool needs an absolute path and was given a relative one.
    Relative,
    /// The path, once resolved, lies outside the root.
    OutsideRoot,
    /// The server's allow/deny settings refuse it, or it cannot be resolved
    /// (a symlink loop); the text says which.
    Unusable(String),
}

/// For tools whose path parameter must be absolute (list_directory,
/// read_file, write_file, replace): the real path, or why not.
pub(crate) fn absolute_within_root(ctx: &Context, raw: &str) -> Result<PathBuf, Refusal> {
    let accept_relative = ctx.mutations.is_active(Mutation::AcceptRelativePath);
    if !Path::new(raw).is_absolute() && !accept_relative {
        return Err(Refusal::Relative);
    }
    within_root(ctx, raw)
}

/// For paths taken against the root when relative (search and glob paths,
/// the shell's directory): the real path, or why not.
///
/// Both checks are the policy's, which a confinement bug bends as it bends the
/// resolution.
pub(crate) fn within_root(ctx: &Context, raw: &str) -> Result<PathBuf, Refusal> {
    if !ctx.policy.lexically_within_root(raw) {
        return Err(Refusal::OutsideRoot);
    }
    match ctx.policy.resolve(raw) {
        Ok(real) if ctx.policy.within_root(raw, &real) => Ok(real),
        Ok(_) => Err(Refusal::OutsideRoot),
        Err(EngineError::AccessDenied { path, .. }) => Err(Refusal::Unusable(format!(
            "Path is not allowed by the server's settings: {}",
            path.display()
        ))),
        Err(EngineError::Io { cause, .. }) => Err(Refusal::Unusable(node_error::describe_cause(
            &cause, "stat", raw,
        ))),
        Err(other) => Err(Refusal::Unusable(format!("{other:?}"))),
    }
}

/// Whether `raw` steps out of a folder (`..`) that does not exist, or that is
/// not a folder: `{root}/missing/../a.txt`. Node hands such a path to the
/// system as it is, and the system finds nothing there (ENOENT, ENOTDIR),
/// though the path folded (`{root}/a.txt`) may exist.
pub(crate) fn through_missing_folder(ctx: &Context, raw: &str) -> bool {
    stepping_out_error(ctx, raw).is_some()
}

/// What the system answers for `raw` when it steps out of a folder that is
/// missing (ENOENT) or not a folder (ENOTDIR); `None` when it does not.
pub(crate) fn stepping_out_error(ctx: &Context, raw: &str) -> Option<std::io::Error> {
    folders_stepped_out_of(ctx, raw)
        .iter()
        .find_map(|folder| match ctx.policy.stat(folder) {
            Err(err) => Some(err),
            Ok(meta) if !meta.is_dir() => Some(std::io::Error::from_raw_os_error(libc::ENOTDIR)),
            Ok(_) => None,
        })
}

/// The folders under the root that `raw` steps out of (`..`) and that do not
/// exist, which Node's recursive `mkdir` of the path's parent makes before a
/// write (`{root}/missing/../a.txt` makes `missing`).
pub(crate) fn missing_folders_stepped_out_of(ctx: &Context, raw: &str) -> Vec<PathBuf> {
    folders_stepped_out_of(ctx, raw)
        .into_iter()
        .filter(|folder| {
            ctx.policy
                .stat(folder)
                .is_err_and(|err| err.kind() == std::io::ErrorKind::NotFound)
        })
        .collect()
}

/// Each folder under the root (not the root itself) that `raw` names just
/// before a `..`, with what comes before it folded.
fn folders_stepped_out_of(ctx: &Context, raw: &str) -> Vec<PathBuf> {
    let root = ctx.policy.root();
    let mut walked = PathBuf::new();
    let mut folders = Vec::new();
    for component in Path::new(raw).components() {
        if component == Component::ParentDir && walked.starts_with(root) && walked != root {
            folders.push(walked.clone());
        }
        walked = ctx
            .policy
            .lexical(&walked.join(component).display().to_string());
    }
    folders
}

/// `raw` made absolute against the root with `.` and `..` folded, as
/// Node's `path.resolve` does: how gemini names a path it resolved itself.
pub(crate) fn resolved_display(ctx: &Context, raw: &str) -> String {
    ctx.policy.lexical(raw).display().to_string()
}
