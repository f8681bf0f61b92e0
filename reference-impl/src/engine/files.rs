//! Reading, listing, writing and editing files under a size limit.
//!
//! Writes are atomic (a temporary file in the same directory, then a rename),
//! so a failed write never leaves a half-written file behind; edits count
//! matches first and write nothing unless the edit is unambiguous.

use std::fs::{self, Metadata};
use std::io::{self, Write};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use super::error::{EngineError, IoOp};

/// Mode for newly created files (before the umask-free temp file is renamed).
const NEW_FILE_MODE: u32 = 0o644;

/// Stats `path` (following symlinks): missing -> [`EngineError::NotFound`],
/// anything else that fails (e.g. a parent that is a regular file, ENOTDIR)
/// -> an IO error naming `stat`.
pub(crate) fn stat(path: &Path) -> Result<Metadata, EngineError> {
    fs::metadata(path).map_err(|err| {
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
/// (reading those would fail or block) and files over `max_size`.
pub(crate) fn read(path: &Path, max_size: u64) -> Result<Vec<u8>, EngineError> {
    let meta = stat(path)?;
    ensure_regular(path, &meta, IoOp::Read)?;
    if meta.len() > max_size {
        return Err(EngineError::TooLarge {
            path: path.to_path_buf(),
            size: meta.len(),
            limit: max_size,
        });
    }
    fs::read(path).map_err(|err| EngineError::io(IoOp::Read, path, &err))
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
    pub(crate) name: String,
    /// True for directories and symlinks to directories.
    pub(crate) is_dir: bool,
}

/// Lists a directory's entries sorted by name.
pub(crate) fn list_dir(path: &Path) -> Result<Vec<DirEntry>, EngineError> {
    let reader = fs::read_dir(path).map_err(|err| EngineError::io(IoOp::List, path, &err))?;
    let mut entries = Vec::new();
    for entry in reader {
        let entry = entry.map_err(|err| EngineError::io(IoOp::List, path, &err))?;
        let is_dir = fs::metadata(entry.path())
            .map(|m| m.is_dir())
            .unwrap_or(false);
        entries.push(DirEntry {
            name: entry.file_name().to_string_lossy().into_owned(),
            is_dir,
        });
    }
    entries.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(entries)
}

/// What [`write_atomic`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct WriteOutcome {
    pub(crate) created: bool,
    pub(crate) bytes: u64,
}

/// Writes `content` to `path` atomically, creating parent directories. Checks
/// the size limit first so an oversized write touches nothing. An existing
/// file keeps its permission bits.
pub(crate) fn write_atomic(
    path: &Path,
    content: &[u8],
    max_size: u64,
) -> Result<WriteOutcome, EngineError> {
    let size = content.len() as u64;
    if size > max_size {
        return Err(EngineError::TooLarge {
            path: path.to_path_buf(),
            size,
            limit: max_size,
        });
    }
    let existing = match fs::metadata(path) {
        Ok(meta) => {
            ensure_regular(path, &meta, IoOp::Write)?;
            Some(meta)
        }
        Err(err) if err.kind() == io::ErrorKind::NotFound => None,
        Err(err) => return Err(EngineError::io(IoOp::Write, path, &err)),
    };
    let parent = parent_of(path);
    fs::create_dir_all(&parent).map_err(|err| EngineError::io(IoOp::CreateDir, &parent, &err))?;
    let mode = existing
        .as_ref()
        .map_or(NEW_FILE_MODE, |m| m.permissions().mode() & 0o7777);
    let write_err = |err: io::Error| EngineError::io(IoOp::Write, path, &err);
    let mut temp = tempfile::Builder::new()
        .prefix(".toolspec-write-")
        .tempfile_in(&parent)
        .map_err(write_err)?;
    temp.write_all(content).map_err(write_err)?;
    temp.as_file().sync_all().map_err(write_err)?;
    fs::set_permissions(temp.path(), fs::Permissions::from_mode(mode)).map_err(write_err)?;
    temp.persist(path).map_err(|err| write_err(err.error))?;
    Ok(WriteOutcome {
        created: existing.is_none(),
        bytes: size,
    })
}

/// Writes `content` straight into `path`, truncating first and without any
/// atomicity. Only the `partial-write` mutation uses this, to imitate a
/// server that leaves a truncated file behind when a write fails.
pub(crate) fn write_in_place_unsafely(path: &Path, content: &[u8]) -> Result<(), EngineError> {
    let parent = parent_of(path);
    fs::create_dir_all(&parent).map_err(|err| EngineError::io(IoOp::CreateDir, &parent, &err))?;
    fs::write(path, content).map_err(|err| EngineError::io(IoOp::Write, path, &err))
}

fn parent_of(path: &Path) -> PathBuf {
    path.parent()
        .map_or_else(|| PathBuf::from("/"), Path::to_path_buf)
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

/// Replaces `old` with `new` in the file at `path`. Without `replace_all`
/// exactly one occurrence must exist; on every error the file is untouched.
pub(crate) fn replace(
    path: &Path,
    old: &str,
    new: &str,
    replace_all: bool,
    max_size: u64,
) -> Result<Replacement, EngineError> {
    if old.is_empty() {
        return Err(EngineError::InvalidInput(
            "old_str must not be empty".to_string(),
        ));
    }
    let original = read(path, max_size)?;
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
    write_atomic(path, &replacement.content, max_size)?;
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
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("dup.txt");
        fs::write(&path, "x\nx\nx\n").expect("write");
        let err = replace(&path, "x", "y", false, 1024).expect_err("ambiguous");
        assert_eq!(
            err,
            EngineError::AmbiguousMatch {
                path: path.clone(),
                count: 3
            }
        );
        assert_eq!(fs::read_to_string(&path).expect("read"), "x\nx\nx\n");
        replace(&path, "x", "y", true, 1024).expect("replace all");
        assert_eq!(fs::read_to_string(&path).expect("read"), "y\ny\ny\n");
    }

    #[test]
    fn atomic_write_creates_parents_and_respects_the_limit() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("a/b/c.txt");
        let outcome = write_atomic(&path, b"hello", 10).expect("write");
        assert_eq!(
            outcome,
            WriteOutcome {
                created: true,
                bytes: 5
            }
        );
        let err = write_atomic(&path, b"far too long", 10).expect_err("too large");
        assert!(matches!(
            err,
            EngineError::TooLarge {
                size: 12,
                limit: 10,
                ..
            }
        ));
        assert_eq!(fs::read(&path).expect("read"), b"hello", "old content kept");
        let leftovers: Vec<_> = fs::read_dir(dir.path().join("a/b")).expect("ls").collect();
        assert_eq!(leftovers.len(), 1, "no temporary files left behind");
    }

    #[test]
    fn atomic_write_keeps_the_existing_mode() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("script.sh");
        fs::write(&path, "old").expect("write");
        fs::set_permissions(&path, fs::Permissions::from_mode(0o755)).expect("chmod");
        write_atomic(&path, b"new", 100).expect("write");
        assert_eq!(
            fs::metadata(&path).expect("stat").permissions().mode() & 0o777,
            0o755
        );
    }

    #[test]
    fn directories_and_fifos_are_io_errors_not_reads() {
        let dir = tempfile::tempdir().expect("tempdir");
        let err = read(dir.path(), 100).expect_err("dir");
        assert!(
            matches!(err, EngineError::Io { op: IoOp::Read, ref cause, .. } if cause == "is a directory")
        );
        let fifo = dir.path().join("fifo");
        let c_path = std::ffi::CString::new(fifo.as_os_str().as_encoded_bytes()).expect("cstring");
        // SAFETY: c_path is a valid NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(c_path.as_ptr(), 0o644) }, 0);
        let err = read(&fifo, 100).expect_err("fifo");
        assert!(
            matches!(err, EngineError::Io { op: IoOp::Read, ref cause, .. } if cause == "not a regular file")
        );
        let err = write_atomic(dir.path(), b"x", 100).expect_err("dir");
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
        let dir = tempfile::tempdir().expect("tempdir");
        fs::write(dir.path().join("file.txt"), "x").expect("write");
        let err = stat(&dir.path().join("file.txt/child")).expect_err("enotdir");
        assert!(
            matches!(err, EngineError::Io { op: IoOp::Stat, ref cause, .. } if cause == "not a directory")
        );
        let err = stat(&dir.path().join("missing")).expect_err("missing");
        assert!(matches!(err, EngineError::NotFound { .. }));
    }
}
