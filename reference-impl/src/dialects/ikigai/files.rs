//! `file_read` and `file_write`.

use std::io::{self, Read, Seek, SeekFrom};
use std::path::Path;

use rmcp::model::JsonObject;

use super::mutations::Mutation;
use super::params::{self, argument_failure};
use super::render::Data;
use super::{dotdot, is_permission_denied, path_failure, resolve, Outcome};
use crate::dialects::common::args::Args;
use crate::dialects::{Context, Failure};
use crate::engine::{files, EngineError};

/// How an error names the file: as the caller wrote it, or (the
/// `error-resolved-path` mutation) as the resolved absolute path.
fn named<'a>(ctx: &Context, path_arg: &'a str, real: &Path) -> std::borrow::Cow<'a, str> {
    if ctx.mutations.is_active(Mutation::ErrorResolvedPath) {
        real.display().to_string().into()
    } else {
        path_arg.into()
    }
}

/// The message for an IO error while opening `path`, in upstream's words.
fn open_failure(err: &io::Error, path: &str) -> Failure {
    match err.kind() {
        io::ErrorKind::NotFound => path_failure("File not found", path),
        io::ErrorKind::PermissionDenied => path_failure("Permission denied", path),
        _ => path_failure("Cannot open file", path),
    }
}

pub(crate) fn file_read(ctx: &Context, raw: &JsonObject) -> Outcome {
    let args = Args::new(raw, &["path"]).map_err(argument_failure)?;
    let path_arg = params::string(&args, "path")?;
    if path_arg.is_empty() {
        return Err(path_failure("File not found", &path_arg));
    }
    let path = resolve(ctx, &path_arg)?;
    let shown = named(ctx, &path_arg, &path);
    dotdot::check(ctx, &path_arg).map_err(|err| open_failure(&err, &shown))?;
    // Checked before opening: opening a FIFO would block.
    let meta = ctx.policy.stat(&path).map_err(|err| open_failure(&err, &shown))?;
    if meta.is_dir() {
        return read_folder(ctx, &path, &shown);
    }
    if !meta.is_file() {
        return Err(path_failure("Cannot open file", &path_arg));
    }
    if meta.len() > ctx.max_file_size {
        return Err(Failure {
            paths: vec![path_arg.clone()],
            ..Failure::new(
                "",
                format!(
                    "File too large: {path_arg} ({} bytes, limit {} bytes)",
                    meta.len(),
                    ctx.max_file_size
                ),
            )
        });
    }
    let mut content = Vec::new();
    ctx.policy
        .open_read(&path)
        .map_err(|err| open_failure(&err, &shown))?
        .read_to_end(&mut content)
        .map_err(|_| path_failure("Failed to read file", &path_arg))?;
    let text = String::from_utf8_lossy(&content);
    Ok(Data {
        output: params::until_nul(&text).to_string(),
        ..Data::default()
    }
    .into_reply())
}

/// A folder read as rel-04 reads a file (file_utils.c:20-63): `fopen` opens
/// it, the offset of its end is taken for its size, and reading that many
/// bytes fails, since a folder gives none. Where its end lies depends on the
/// file system: ext4 puts it past any size rel-04 accepts ("File too large",
/// file_utils.c:46-48), tmpfs refuses the seek ("Cannot seek file",
/// tool_file_read.c:58), others give the folder's size ("Failed to read
/// file", tool_file_read.c:61-62) or 0 (an empty output). The folder is
/// opened and seeked in here too, so the answer is the one rel-04 gives on
/// the same file system. Seed 004 says nothing of folders.
fn read_folder(ctx: &Context, path: &Path, shown: &str) -> Outcome {
    let end = ctx
        .policy
        .open_dir_as_file(path)
        .map_err(|err| open_failure(&err, shown))?
        .seek(SeekFrom::End(0))
        .map_err(|_| path_failure("Cannot seek file", shown))?;
    if end > u64::from(u32::MAX) - 1 {
        return Err(path_failure("File too large", shown));
    }
    if end > 0 {
        return Err(path_failure("Failed to read file", shown));
    }
    Ok(Data::default().into_reply())
}

pub(crate) fn file_write(ctx: &Context, raw: &JsonObject) -> Outcome {
    let args = Args::new(raw, &["path", "content"]).map_err(argument_failure)?;
    let path_arg = params::string(&args, "path")?;
    let content = params::string(&args, "content")?;
    if path_arg.is_empty() {
        return Err(path_failure("Cannot open file", &path_arg));
    }
    let path = resolve(ctx, &path_arg)?;
    let shown = named(ctx, &path_arg, &path);
    dotdot::check(ctx, &path_arg).map_err(|err| match err.kind() {
        io::ErrorKind::PermissionDenied => path_failure("Permission denied", &shown),
        _ => path_failure("Cannot open file", &shown),
    })?;
    // As fopen(…, "w"): the directory must exist, and an existing file must
    // be writable (an atomic rename alone would replace a read-only file).
    let parent_is_dir = path
        .parent()
        .is_some_and(|parent| ctx.policy.stat(parent).is_ok_and(|meta| meta.is_dir()));
    if !parent_is_dir {
        return Err(path_failure("Cannot open file", &shown));
    }
    match ctx.policy.stat(&path) {
        Ok(meta) if !meta.is_file() => return Err(path_failure("Cannot open file", &path_arg)),
        Ok(_) => {
            ctx.policy
                .open_write(&path)
                .map_err(|err| open_failure(&err, &shown))?;
        }
        Err(err) if err.kind() == io::ErrorKind::NotFound => {}
        Err(err) => return Err(open_failure(&err, &path_arg)),
    }
    let written = files::write_atomic(&ctx.policy, &path, content.as_bytes(), ctx.max_file_size)
        .map_err(|err| write_failure(err, &path_arg))?;
    let bytes = if ctx.mutations.is_active(Mutation::BytesAsChars) {
        content.chars().count() as u64
    } else {
        written.bytes
    };
    // upstream names basename(path); a server may name the path whole.
    let target = if ctx.mutations.is_active(Mutation::WriteNamesFullPath) {
        &path_arg
    } else {
        base_name(&path_arg)
    };
    Ok(Data {
        output: format!("Wrote {bytes} bytes to {target}"),
        bytes: Some(bytes),
        ..Data::default()
    }
    .into_reply())
}

fn write_failure(err: EngineError, path_arg: &str) -> Failure {
    match err {
        EngineError::TooLarge { size, limit, .. } => Failure {
            paths: vec![path_arg.to_string()],
            ..Failure::new(
                "",
                format!("File too large: {path_arg} ({size} bytes, limit {limit} bytes)"),
            )
        },
        EngineError::Io { cause, .. } if is_permission_denied(&cause) => {
            path_failure("Permission denied", path_arg)
        }
        _ => path_failure("Failed to write file", path_arg),
    }
}

/// The last component of the path as written, as `basename(3)` gives it
/// (trailing slashes ignored; `/` for the root).
fn base_name(path: &str) -> &str {
    let trimmed = path.trim_end_matches('/');
    if trimmed.is_empty() {
        return if path.is_empty() { "." } else { "/" };
    }
    Path::new(trimmed)
        .file_name()
        .and_then(|name| name.to_str())
        .unwrap_or(trimmed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base_names_follow_basename() {
        assert_eq!(base_name("out.txt"), "out.txt");
        assert_eq!(base_name("/tmp/r/dir/out.txt"), "out.txt");
        assert_eq!(base_name("dir/"), "dir");
        assert_eq!(base_name("/"), "/");
        assert_eq!(base_name("héllo 世界.txt"), "héllo 世界.txt");
    }
}
