//! Reading, listing, writing and editing files under a size limit.
//!
//! Writes are atomic (a temporary file in the same directory, then a rename),
//! so a failed write never leaves a half-written file behind; edits count
//! matches first and write nothing unless the edit is unambiguous. Every
//! access goes through the policy's confined handles (see
//! [`super::confined_fs`]), never through a path opened by name.

use std::io::{self, Read};
use std::path::Path;

use super::confined_fs::{LeadsTo, Metadata};
use super::error::{EngineError, IoOp};
use super::names::display_name;
use super::paths::PathPolicy;

/// Mode for newly created files (before the umask-free temp file is renamed).
const NEW_FILE_MODE: u32 = 0o644;

/// Stats `path` (following symlinks): missing -> [`EngineError::NotFound`],
/// anything else that fails (e.g. a parent that is a regular file, ENOTDIR)
/// -> an IO error naming `stat`.
pub(crate) fn stat(policy: &PathPolicy, path: &Path) -> Result<Metadata, EngineError> {
    policy.stat(path).map_err(|err| {
        if err.kind() == io::ErrorKind::NotFound {
            EngineError::NotFound {
                path: path.to_path_buf(),
            }
        } else {
            EngineError::io(IoOp::Stat, path, &err)
        }
    })
}

/// Reads a whole regular file, refusing directories, FIFOs and devices
/// (reading those would fail or block) and files over `max_size`. The size
/// is checked on the opened file, so a file swapped after the stat is
/// still held to it.
pub(crate) fn read(
    policy: &PathPolicy,
    path: &Path,
    max_size: u64,
) -> Result<Vec<u8>, EngineError> {
    let (file, opened) = open_regular(policy, path, max_size)?;
    let mut bytes = Vec::new();
    file.take(max_size.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(|err| EngineError::io(IoOp::Read, path, &err))?;
    if bytes.len() as u64 > max_size {
        return Err(EngineError::TooLarge {
            path: path.to_path_buf(),
            size: opened.len(),
            limit: max_size,
        });
    }
    Ok(bytes)
}

/// Opens a regular file of at most `max_size` bytes for reading (as
/// [`read`] checks it) and stats what was opened; the caller reads at most
/// `max_size` bytes of it.
pub(crate) fn open_regular(
    policy: &PathPolicy,
    path: &Path,
    max_size: u64,
) -> Result<(std::fs::File, std::fs::Metadata), EngineError> {
    let meta = stat(policy, path)?;
    ensure_regular(path, &meta, IoOp::Read)?;
    if meta.len() > max_size {
        return Err(EngineError::TooLarge {
            path: path.to_path_buf(),
            size: meta.len(),
            limit: max_size,
        });
    }
    let read_err = |err: io::Error| EngineError::io(IoOp::Read, path, &err);
    let file = policy.open_read(path).map_err(read_err)?;
    let opened = file.metadata().map_err(read_err)?;
    if !opened.is_file() {
        return Err(EngineError::Io {
            op: IoOp::Read,
            path: path.to_path_buf(),
            cause: "not a regular file".to_string(),
        });
    }
    Ok((file, opened))
}

fn ensure_regular(path: &Path, meta: &Metadata, op: IoOp) -> Result<(), EngineError> {
    let cause = if meta.is_dir() {
        "is a directory"
    } else if !meta.is_file() {
        "not a regular file"
    } else {
        return Ok(());
    };
    Err(EngineError::Io {
        op,
        path: path.to_path_buf(),
        cause: cause.to_string(),
    })
}

/// One entry of a directory listing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct DirEntry {
    /// The name as shown (see [`display_name`]).
    pub(crate) name: String,
    /// True for directories and symlinks to directories.
    pub(crate) is_dir: bool,
    /// Where a symlink points, as its text says; `None` for anything else.
    pub(crate) link_target: Option<String>,
}

/// Lists a directory's entries sorted by name. A symlink counts as a
/// directory when it leads to one, wherever that is (only its type is read;
/// nothing is listed through it).
pub(crate) fn list_dir(policy: &PathPolicy, path: &Path) -> Result<Vec<DirEntry>, EngineError> {
    let listed = policy
        .read_dir(path)
        .map_err(|err| EngineError::io(IoOp::List, path, &err))?;
    Ok(sorted_entries(listed))
}

/// Lists `real`, a real folder found below one the policy allowed (a tree's
/// subfolder), whatever the deny patterns say of it, as Boris's tree does;
/// the confined handles still keep it inside the confined directories.
pub(crate) fn list_dir_below_allowed(
    policy: &PathPolicy,
    real: &Path,
) -> Result<Vec<DirEntry>, EngineError> {
    let listed = policy
        .fs()
        .read_dir(real)
        .map_err(|err| EngineError::io(IoOp::List, real, &err))?;
    Ok(sorted_entries(listed))
}

fn sorted_entries(listed: Vec<super::confined_fs::ListedEntry>) -> Vec<DirEntry> {
    let mut entries: Vec<DirEntry> = listed
        .into_iter()
        .map(|entry| DirEntry {
            name: display_name(&entry.name),
            is_dir: entry.leads_to == LeadsTo::Directory,
            link_target: entry
                .link_target
                .map(|target| target.to_string_lossy().into_owned()),
        })
        .collect();
    entries.sort_by(|a, b| a.name.cmp(&b.name));
    entries
}

/// What [`write_atomic`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct WriteOutcome {
    pub(crate) created: bool,
    pub(crate) bytes: u64,
}

/// How a write replaces a file that exists.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Rewrite {
    /// A temporary file renamed over it: a reader sees the old content or
    /// the new, never half, and the folder's time changes.
    Renamed,
    /// Truncated and written where it is, as Go's `os.WriteFile` does (Boris,
    /// create_file.go:53, str_replace.go:63, 80): the folder's time stays.
    InPlace,
    /// A temporary file renamed over it, with no other way: a folder the
    /// server may enter but not write refuses the write, even of a file in it
    /// it may write (agent-tools v0.1.0 always stages a temporary file).
    RenamedOnly,
}

/// Writes `content` to `path` atomically, creating parent directories. Checks
/// the size limit first so an oversized write touches nothing. An existing
/// file keeps its permission bits.
pub(crate) fn write_atomic(
    policy: &PathPolicy,
    path: &Path,
    content: &[u8],
    max_size: u64,
) -> Result<WriteOutcome, EngineError> {
    write(policy, path, content, max_size, Rewrite::Renamed)
}

/// [`write_atomic`], with `rewrite` saying how an existing file is replaced
/// (a new one is always created beside nothing, its parents made first).
pub(crate) fn write(
    policy: &PathPolicy,
    path: &Path,
    content: &[u8],
    max_size: u64,
    rewrite: Rewrite,
) -> Result<WriteOutcome, EngineError> {
    let size = content.len() as u64;
    if size > max_size {
        return Err(EngineError::TooLarge {
            path: path.to_path_buf(),
            size,
            limit: max_size,
        });
    }
    let existing = match policy.stat(path) {
        Ok(meta) => {
            ensure_regular(path, &meta, IoOp::Write)?;
            Some(meta)
        }
        Err(err) if err.kind() == io::ErrorKind::NotFound => None,
        Err(err) => return Err(EngineError::io(IoOp::Write, path, &err)),
    };
    let mode = existing.as_ref().map_or(NEW_FILE_MODE, |m| {
        cap_std::fs::PermissionsExt::mode(&m.permissions()) & 0o7777
    });
    let write_err = |err: io::Error| EngineError::io(IoOp::Write, path, &err);
    let real = policy.follow(path).map_err(write_err)?;
    create_parents(policy, path, &real)?;
    let fs = policy.fs();
    match (rewrite, &existing) {
        (Rewrite::InPlace, Some(_)) => fs.rewrite_existing(&real, content),
        (Rewrite::RenamedOnly, _) => fs.write_beside(&real, content, mode),
        _ => fs.write_atomic(&real, content, mode),
    }
    .map_err(write_err)?;
    Ok(WriteOutcome {
        created: existing.is_none(),
        bytes: size,
    })
}

/// Writes `content` straight into `path`, truncating first and without any
/// atomicity. Only the `partial-write` mutation uses this, to imitate a
/// server that leaves a truncated file behind when a write fails.
pub(crate) fn write_in_place_unsafely(
    policy: &PathPolicy,
    path: &Path,
    content: &[u8],
) -> Result<(), EngineError> {
    let write_err = |err: io::Error| EngineError::io(IoOp::Write, path, &err);
    let real = policy.follow(path).map_err(write_err)?;
    create_parents(policy, path, &real)?;
    policy
        .fs()
        .write_in_place(&real, content)
        .map_err(write_err)
}

/// Creates the missing parents of `real` (which `path` names), an error
/// naming the parent as the caller named it.
fn create_parents(policy: &PathPolicy, path: &Path, real: &Path) -> Result<(), EngineError> {
    let (Some(parent), Some(named)) = (real.parent(), path.parent()) else {
        return Ok(());
    };
    policy
        .fs()
        .create_dir_all(parent)
        .map_err(|err| EngineError::io(IoOp::CreateDir, named, &err))
}

/// A successful string replacement.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Replacement {
    /// How many occurrences were replaced.
    pub(crate) count: usize,
    /// The file's new content.
    pub(crate) content: Vec<u8>,
    /// Byte offset of the first replacement in the new content.
    pub(crate) first_offset: usize,
}

/// Replaces `old` with `new` in the file at `path`, written back as
/// `rewrite` says. Without `replace_all` exactly one occurrence must exist;
/// on every error the file is untouched.
pub(crate) fn replace(
    policy: &PathPolicy,
    path: &Path,
    edit: (&str, &str),
    replace_all: bool,
    max_size: u64,
    rewrite: Rewrite,
) -> Result<Replacement, EngineError> {
    let (old, new) = edit;
    if old.is_empty() {
        return Err(EngineError::InvalidInput(
            "old_str must not be empty".to_string(),
        ));
    }
    let original = read(policy, path, max_size)?;
    let replacement =
        replace_in(&original, old.as_bytes(), new.as_bytes(), replace_all).map_err(|count| {
            match count {
                0 => EngineError::StringNotFound {
                    path: path.to_path_buf(),
                },
                count => EngineError::AmbiguousMatch {
                    path: path.to_path_buf(),
                    count,
                },
            }
        })?;
    write(policy, path, &replacement.content, max_size, rewrite)?;
    Ok(replacement)
}

/// The pure part of [`replace`]: `Err(count)` when the match count forbids
/// the edit (0, or more than 1 without `replace_all`).
pub(crate) fn replace_in(
    haystack: &[u8],
    old: &[u8],
    new: &[u8],
    replace_all: bool,
) -> Result<Replacement, usize> {
    let offsets = find_all(haystack, old);
    if offsets.is_empty() || (offsets.len() > 1 && !replace_all) {
        return Err(offsets.len());
    }
    Ok(Replacement {
        count: offsets.len(),
        content: splice(haystack, &offsets, old.len(), new),
        first_offset: offsets[0],
    })
}

/// `haystack` with the `old_len` bytes at each of `offsets` (ascending, not
/// overlapping, as [`find_all`] gives them) replaced by `new`. Dialects that
/// word their own match-count errors check the count, then call this.
pub(crate) fn splice(haystack: &[u8], offsets: &[usize], old_len: usize, new: &[u8]) -> Vec<u8> {
    let mut content = Vec::with_capacity(haystack.len());
    let mut last = 0;
    for &at in offsets {
        content.extend_from_slice(&haystack[last..at]);
        content.extend_from_slice(new);
        last = at + old_len;
    }
    content.extend_from_slice(&haystack[last..]);
    content
}

/// Start offsets of the non-overlapping occurrences of `needle`, left to right.
pub(crate) fn find_all(haystack: &[u8], needle: &[u8]) -> Vec<usize> {
    let mut found = Vec::new();
    let mut at = 0;
    while at + needle.len() <= haystack.len() {
        if haystack[at..].starts_with(needle) {
            found.push(at);
            at += needle.len();
        } else {
            at += 1;
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::paths::Scope;
    use std::fs;
    use std::os::unix::fs::PermissionsExt;
    use std::path::PathBuf;

    /// A fresh root and a policy confined to it.
    fn confined() -> (tempfile::TempDir, PathBuf, PathPolicy) {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = fs::canonicalize(dir.path()).expect("canonical");
        let policy = PathPolicy::new(&root, &[], &[], Scope::Root).expect("policy");
        (dir, root, policy)
    }

    #[test]
    fn replace_counts_non_overlapping_matches() {
        assert_eq!(replace_in(b"x\nx\nx\n", b"x", b"y", false), Err(3));
        assert_eq!(replace_in(b"abc", b"z", b"y", false), Err(0));
        assert_eq!(
            replace_in(b"aaaa", b"aa", b"b", true).map(|r| (r.count, r.content)),
            Ok((2, b"bb".to_vec()))
        );
        let one = replace_in(b"hello world", b"world", b"there", false).expect("unique");
        assert_eq!(
            (one.count, one.content, one.first_offset),
            (1, b"hello there".to_vec(), 6)
        );
    }

    #[test]
    fn failed_replace_leaves_the_file_untouched() {
        let (_dir, root, policy) = confined();
        let path = root.join("dup.txt");
        fs::write(&path, "x\nx\nx\n").expect("write");
        let err = replace(&policy, &path, ("x", "y"), false, 1024, Rewrite::Renamed)
            .expect_err("ambiguous");
        assert_eq!(
            err,
            EngineError::AmbiguousMatch {
                path: path.clone(),
                count: 3
            }
        );
        assert_eq!(fs::read_to_string(&path).expect("read"), "x\nx\nx\n");
        replace(&policy, &path, ("x", "y"), true, 1024, Rewrite::InPlace).expect("replace all");
        assert_eq!(fs::read_to_string(&path).expect("read"), "y\ny\ny\n");
    }

    #[test]
    fn a_rewrite_in_place_keeps_the_file_and_its_folder_and_a_renamed_one_does_not() {
        use std::os::unix::fs::{MetadataExt, PermissionsExt};
        let (_dir, root, policy) = confined();
        let path = root.join("d/f.txt");
        write(&policy, &path, b"one", 1024, Rewrite::InPlace).expect("create");
        fs::set_permissions(&path, fs::Permissions::from_mode(0o600)).expect("chmod");
        let folder = root.join("d");
        let old_time =
            std::time::SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(1_000_000);
        let set_old_time = || {
            fs::File::open(&folder)
                .and_then(|dir| dir.set_modified(old_time))
                .expect("set the folder's time");
        };
        let seen = || {
            let file = fs::metadata(&path).expect("stat");
            let folder_time = fs::metadata(&folder)
                .and_then(|m| m.modified())
                .expect("time");
            (file.ino(), file.mode() & 0o777, folder_time)
        };
        set_old_time();
        let (inode, _, _) = seen();
        let done = write(&policy, &path, b"two", 1024, Rewrite::InPlace).expect("rewrite");
        assert!(!done.created);
        assert_eq!(
            seen(),
            (inode, 0o600, old_time),
            "same file, mode and folder time"
        );
        assert_eq!(fs::read(&path).expect("read"), b"two");
        write(&policy, &path, b"three", 1024, Rewrite::Renamed).expect("rename over");
        let (renamed_inode, mode, folder_time) = seen();
        assert_eq!(mode, 0o600, "a renamed write keeps the mode too");
        assert_ne!(renamed_inode, inode, "a new file took its name");
        assert_ne!(folder_time, old_time, "the rename touched the folder");
    }

    #[test]
    fn atomic_write_creates_parents_and_respects_the_limit() {
        let (_dir, root, policy) = confined();
        let path = root.join("a/b/c.txt");
        let outcome = write_atomic(&policy, &path, b"hello", 10).expect("write");
        assert_eq!(
            outcome,
            WriteOutcome {
                created: true,
                bytes: 5
            }
        );
        let err = write_atomic(&policy, &path, b"far too long", 10).expect_err("too large");
        assert!(matches!(
            err,
            EngineError::TooLarge {
                size: 12,
                limit: 10,
                ..
            }
        ));
        assert_eq!(fs::read(&path).expect("read"), b"hello", "old content kept");
        let leftovers: Vec<_> = fs::read_dir(root.join("a/b")).expect("ls").collect();
        assert_eq!(leftovers.len(), 1, "no temporary files left behind");
    }

    #[test]
    fn atomic_write_keeps_the_existing_mode() {
        let (_dir, root, policy) = confined();
        let path = root.join("script.sh");
        fs::write(&path, "old").expect("write");
        fs::set_permissions(&path, fs::Permissions::from_mode(0o755)).expect("chmod");
        write_atomic(&policy, &path, b"new", 100).expect("write");
        assert_eq!(
            fs::metadata(&path).expect("stat").permissions().mode() & 0o777,
            0o755
        );
    }

    #[test]
    fn directories_and_fifos_are_io_errors_not_reads() {
        let (_dir, root, policy) = confined();
        let err = read(&policy, &root, 100).expect_err("dir");
        assert!(
            matches!(err, EngineError::Io { op: IoOp::Read, ref cause, .. } if cause == "is a directory")
        );
        let fifo = root.join("fifo");
        let c_path = std::ffi::CString::new(fifo.as_os_str().as_encoded_bytes()).expect("cstring");
        // SAFETY: c_path is a valid NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(c_path.as_ptr(), 0o644) }, 0);
        let err = read(&policy, &fifo, 100).expect_err("fifo");
        assert!(
            matches!(err, EngineError::Io { op: IoOp::Read, ref cause, .. } if cause == "not a regular file")
        );
        let err = write_atomic(&policy, &root, b"x", 100).expect_err("dir");
        assert!(matches!(
            err,
            EngineError::Io {
                op: IoOp::Write,
                ..
            }
        ));
    }

    #[test]
    fn a_regular_file_used_as_a_directory_is_a_stat_error() {
        let (_dir, root, policy) = confined();
        fs::write(root.join("file.txt"), "x").expect("write");
        let err = stat(&policy, &root.join("file.txt/child")).expect_err("enotdir");
        assert!(
            matches!(err, EngineError::Io { op: IoOp::Stat, ref cause, .. } if cause == "not a directory")
        );
        let err = stat(&policy, &root.join("missing")).expect_err("missing");
        assert!(matches!(err, EngineError::NotFound { .. }));
    }
}
