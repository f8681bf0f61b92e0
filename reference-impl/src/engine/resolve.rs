//! Where a path really leads: every symlink followed, as `realpath -m` does, with
//! no policy and no root. A leaf: the path policy, the confined filesystem and
//! the deliberate confinement bugs all resolve through it.

use std::collections::VecDeque;
use std::ffi::OsString;
use std::io;
use std::path::{Component, Path, PathBuf};

/// Symlinks followed while resolving one path before giving up (Linux uses 40).
const MAX_SYMLINK_HOPS: usize = 40;

/// Resolves every symlink in absolute `path`, like `realpath -m`: once a
/// component does not exist (or its parent is not a directory), the rest is
/// appended lexically, with `..` removing the previous component.
pub(crate) fn resolve_real(path: &Path) -> io::Result<PathBuf> {
    resolve_keeping(path, |_| false).map(|(real, _)| real)
}

/// [`resolve_real`], except that a link for which `keep` (given the link's
/// path so far) says so is left in the answer by its own name instead of being
/// replaced by where it leads; the flag says whether one was. Only the
/// confinement bugs of [`super::breach`] keep any: the honest check resolves
/// every link before it looks.
pub(crate) fn resolve_keeping(
    path: &Path,
    keep: impl Fn(&Path) -> bool,
) -> io::Result<(PathBuf, bool)> {
    let mut pending: VecDeque<OsString> = VecDeque::new();
    push_components(&mut pending, path, false);
    let mut out = PathBuf::from("/");
    let mut exists = true;
    let mut hops = 0;
    let mut kept = false;
    while let Some(part) = pending.pop_front() {
        if part == ".." {
            out.pop();
            continue;
        }
        out.push(&part);
        if !exists {
            continue;
        }
        match std::fs::symlink_metadata(&out) {
            Ok(meta) if meta.file_type().is_symlink() && keep(&out) => kept = true,
            Ok(meta) if meta.file_type().is_symlink() => {
                hops += 1;
                if hops > MAX_SYMLINK_HOPS {
                    return Err(io::Error::from_raw_os_error(libc::ELOOP));
                }
                let target = std::fs::read_link(&out)?;
                out.pop();
                if target.is_absolute() {
                    out = PathBuf::from("/");
                }
                push_components(&mut pending, &target, true);
            }
            Ok(_) => {}
            Err(err)
                if err.kind() == io::ErrorKind::NotFound
                    || err.raw_os_error() == Some(libc::ENOTDIR) =>
            {
                exists = false;
            }
            Err(err) => return Err(err),
        }
    }
    Ok((out, kept))
}

/// Queues the normal and `..` components of `path`, at the front (a symlink
/// target replaces the link) or at the back.
fn push_components(queue: &mut VecDeque<OsString>, path: &Path, front: bool) {
    let parts: Vec<OsString> = path
        .components()
        .filter_map(|c| match c {
            Component::Normal(name) => Some(name.to_os_string()),
            Component::ParentDir => Some(OsString::from("..")),
            Component::RootDir | Component::CurDir | Component::Prefix(_) => None,
        })
        .collect();
    if front {
        for part in parts.into_iter().rev() {
            queue.push_front(part);
        }
    } else {
        queue.extend(parts);
    }
}
