//! Reading a file the server left behind, without trusting it.
//!
//! A checked path may now be anything the server made it: a FIFO that never gives
//! an end of file, a link to `/dev/zero` or to a file outside the root, a file that
//! keeps growing. So it is reached through the fixture's directory handle (no path
//! leads outside the root), never followed when it is a link, opened with
//! `O_NOFOLLOW | O_NONBLOCK`, read only when the opened file is a regular file, and
//! read only up to a size cap and a deadline. Whatever else it is is named, not read.

use std::io::{self, Read};
use std::path::Path;
use std::time::Instant;

use cap_fs_ext::{FollowSymlinks, OpenOptionsFollowExt};
use cap_std::fs::{Dir, FileType, OpenOptions, OpenOptionsExt};

/// The most bytes of one checked file that are read: as much as a fixture file may
/// hold (so `unchanged` on the largest fixture file still works), and no more.
pub(crate) const MAX_CHECKED_BYTES: u64 = 256 * 1024 * 1024;

/// What is at a checked path after the call.
#[derive(Debug, PartialEq)]
pub(crate) enum LeftFile {
    /// Nothing is there.
    Absent,
    /// A regular file, with its bytes.
    Content(Vec<u8>),
    /// Something is there that is not read, and why: a link, a FIFO, a device, a
    /// folder, a file too large or too slow to read, a path leading outside.
    Unread(String),
}

impl LeftFile {
    /// Whether anything is at the path.
    pub(crate) fn exists(&self) -> bool {
        !matches!(self, LeftFile::Absent)
    }
}

/// Looks at `name` (relative to the root `root`) and reads it if it is a regular
/// file of at most [`MAX_CHECKED_BYTES`] that can be read before `deadline`.
pub(crate) fn look_at(root: &Dir, name: &str, deadline: Instant) -> LeftFile {
    look_at_capped(root, name, deadline, MAX_CHECKED_BYTES)
}

fn look_at_capped(root: &Dir, name: &str, deadline: Instant, cap: u64) -> LeftFile {
    let path = Path::new(name.trim_end_matches('/'));
    let kind = match root.symlink_metadata(path) {
        Ok(meta) => meta.file_type(),
        Err(e) if e.kind() == io::ErrorKind::NotFound => return LeftFile::Absent,
        Err(e) => return LeftFile::Unread(format!("cannot be looked at inside the root: {e}")),
    };
    if kind.is_symlink() {
        let target = root
            .read_link_contents(path)
            .map(|t| format!(" to {}", t.display()))
            .unwrap_or_default();
        return LeftFile::Unread(format!(
            "is a symlink{target}, not a regular file; links are not followed"
        ));
    }
    if !kind.is_file() {
        return LeftFile::Unread(not_regular(kind));
    }
    let file = root.open_with(
        path,
        OpenOptions::new()
            .read(true)
            .follow(FollowSymlinks::No)
            .custom_flags(libc::O_NONBLOCK),
    );
    let mut file = match file {
        Ok(f) => f,
        Err(e) => return LeftFile::Unread(format!("cannot be opened: {e}")),
    };
    // It may have been swapped since it was looked at: judge what was opened.
    match file.metadata() {
        Ok(meta) if meta.file_type().is_file() => {}
        Ok(meta) => return LeftFile::Unread(not_regular(meta.file_type())),
        Err(e) => return LeftFile::Unread(format!("cannot be examined: {e}")),
    }
    read_bounded(&mut file, deadline, cap)
}

/// Reads `file` to its end, unless it holds more than `cap` bytes or `deadline`
/// passes first.
fn read_bounded(file: &mut impl Read, deadline: Instant, cap: u64) -> LeftFile {
    let mut bytes = Vec::new();
    let mut chunk = vec![0; 64 * 1024];
    loop {
        if Instant::now() > deadline {
            return LeftFile::Unread(format!(
                "could not be read within the scenario's time limit ({} bytes read)",
                bytes.len()
            ));
        }
        match file.read(&mut chunk) {
            Ok(0) => return LeftFile::Content(bytes),
            Ok(n) => bytes.extend_from_slice(&chunk[..n]),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return LeftFile::Unread(format!("cannot be read: {e}")),
        }
        if bytes.len() as u64 > cap {
            return LeftFile::Unread(format!(
                "holds more than {cap} bytes, more than a checked file may; it is not read"
            ));
        }
    }
}

/// What a file of `kind` is, in words, when it is not a regular file.
fn not_regular(kind: FileType) -> String {
    use cap_std::fs::FileTypeExt;
    let what = if kind.is_dir() {
        "a folder"
    } else if kind.is_fifo() {
        "a FIFO (named pipe)"
    } else if kind.is_socket() {
        "a socket"
    } else if kind.is_char_device() {
        "a character device"
    } else if kind.is_block_device() {
        "a block device"
    } else {
        "not a regular file"
    };
    format!("is {what}, not a regular file; it is not read")
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    fn root() -> (tempfile::TempDir, Dir) {
        let dir = tempfile::tempdir().unwrap();
        let handle = Dir::open_ambient_dir(dir.path(), cap_std::ambient_authority()).unwrap();
        (dir, handle)
    }

    fn soon() -> Instant {
        Instant::now() + Duration::from_secs(5)
    }

    #[test]
    fn reads_regular_files_and_names_everything_else() {
        let (dir, handle) = root();
        std::fs::write(dir.path().join("a.txt"), "hi").unwrap();
        std::fs::create_dir(dir.path().join("d")).unwrap();
        std::os::unix::fs::symlink("/dev/zero", dir.path().join("zero")).unwrap();
        let fifo = std::ffi::CString::new(dir.path().join("pipe").to_str().unwrap()).unwrap();
        // SAFETY: mkfifo reads a NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o600) }, 0);

        assert_eq!(
            look_at(&handle, "a.txt", soon()),
            LeftFile::Content(b"hi".to_vec())
        );
        assert_eq!(look_at(&handle, "gone", soon()), LeftFile::Absent);
        let said = |name| match look_at(&handle, name, soon()) {
            LeftFile::Unread(why) => why,
            other => panic!("{name}: {other:?}"),
        };
        assert!(said("d").starts_with("is a folder"), "{}", said("d"));
        assert!(said("pipe").starts_with("is a FIFO"), "{}", said("pipe"));
        assert!(
            said("zero").starts_with("is a symlink to /dev/zero"),
            "{}",
            said("zero")
        );
    }

    #[test]
    fn stops_at_the_cap_and_the_deadline() {
        let (dir, handle) = root();
        std::fs::write(dir.path().join("big"), vec![b'a'; 100]).unwrap();
        let far = soon();
        assert!(matches!(
            look_at_capped(&handle, "big", far, 99),
            LeftFile::Unread(why) if why.starts_with("holds more than 99 bytes")
        ));
        assert!(
            matches!(look_at_capped(&handle, "big", far, 100), LeftFile::Content(b) if b.len() == 100)
        );
        let past = Instant::now() - Duration::from_millis(1);
        assert!(matches!(
            look_at(&handle, "big", past),
            LeftFile::Unread(why) if why.starts_with("could not be read within")
        ));
    }
}
