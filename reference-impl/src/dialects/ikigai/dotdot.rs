//! A `..` step taken as the kernel takes it.
//!
//! rel-04 hands a path to `fopen` (file_utils.c:20, tool_file_write.c:21) or
//! `glob(3)` (tool_glob.c:26, tool_grep.c:153) as the caller wrote it, so in
//! `src/../a.txt` the kernel looks `src` up before it steps back out of it:
//! a missing `src` fails the open (ENOENT), a file there fails it too
//! (ENOTDIR). The engine resolves a path as `realpath -m` does, folding a
//! `..` after a missing name away as text, so the dialect checks this first.
//! Seed 004 says nothing of paths.

use std::io;
use std::path::{Component, Path, PathBuf};

use crate::dialects::Context;

/// Whether every name that a `..` of `raw` steps back out of is a folder
/// (or a link to one), taken against the root as the path is. The error is
/// the one an open of the whole path would meet first: ENOENT for a name
/// that is missing, ENOTDIR for one that is not a folder, or what the path
/// policy says of it. A folder the server may not search is not caught here
/// (the kernel would say EACCES); the fixtures' folders are all searchable.
pub(super) fn check(ctx: &Context, raw: &str) -> io::Result<()> {
    let mut walked = PathBuf::new();
    for component in Path::new(raw).components() {
        if component == Component::ParentDir {
            let meta = ctx.policy.stat(&ctx.policy.root().join(&walked))?;
            if !meta.is_dir() {
                return Err(io::Error::from_raw_os_error(libc::ENOTDIR));
            }
        }
        walked.push(component);
    }
    Ok(())
}
