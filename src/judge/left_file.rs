//! Reading a file the server left behind, without trusting it.
//!
//! A checked path may now be anything the server made it: a FIFO that never gives
//! an end of file, a link to `/dev/zero` or to a file outside the root, a file that
//! keeps growing. So it is reached through the fixture's directory handle (no path
//! leads outside the root), never followed when it is a link, opened with
//! `O_NOFOLLOW | O_NONBLOCK`, read only when the opened file is a regular file, and
//! read only up to a size cap and a deadline. Whatever else it is is named, not read.

use std::io;
use std::ops::ControlFlow;
use std::os::fd::AsRawFd;
use std::os::unix::fs::FileExt;
use std::path::Path;
use std::time::Instant;

use cap_fs_ext::{FollowSymlinks, OpenOptionsFollowExt};
use cap_std::fs::{Dir, FileType, OpenOptions, OpenOptionsExt, PermissionsExt};

/// The most bytes of one checked file that are read whole (for `text:` and
/// `contains:`): as much as a fixture file may hold, and no more. An `unchanged`
/// check reads in pieces and needs no cap: it stops where the file stops matching.
pub(crate) const MAX_CHECKED_BYTES: u64 = 256 * 1024 * 1024;

/// How much of a checked file is read at once.
pub(crate) const READ_PIECE: usize = 64 * 1024;

/// What is at a checked path after the call.
#[derive(Debug)]
pub(crate) enum LeftFile {
    /// Nothing is there.
    Absent,
    /// A regular file, opened, to be read.
    Regular(RegularFile),
    /// Something is there that is not read, and why: a link, a FIFO, a device, a
    /// folder, a path leading outside.
    Unread(String),
}

impl LeftFile {
    /// Whether anything is at the path.
    pub(crate) fn exists(&self) -> bool {
        !matches!(self, LeftFile::Absent)
    }
}

/// Why a regular file the server left could not be read; said after "it".
#[derive(Debug, thiserror::Error)]
pub(crate) enum ReadError {
    /// Its size could not be asked.
    #[error("cannot be examined: {0}")]
    Examine(#[source] io::Error),
    /// A read failed.
    #[error("cannot be read: {0}")]
    Read(#[source] io::Error),
    /// It holds more than may be read whole.
    #[error("holds more than {cap} bytes, more than a checked file may; it is not read")]
    TooLarge {
        /// The cap, in bytes.
        cap: u64,
    },
    /// The judged call's deadline passed while it was read.
    #[error("could not be read within the scenario's time limit ({offset} bytes read)")]
    OutOfTime {
        /// Where the read was when time ran out.
        offset: u64,
    },
}

/// A regular file the server left, opened without following links, read only
/// before the judged call's deadline. Every read says where it starts, so no read
/// depends on another.
#[derive(Debug)]
pub(crate) struct RegularFile {
    file: std::fs::File,
    deadline: Instant,
}

impl RegularFile {
    /// How many bytes it holds now.
    pub(crate) fn len(&self) -> Result<u64, ReadError> {
        self.file
            .metadata()
            .map(|meta| meta.len())
            .map_err(ReadError::Examine)
    }

    /// The whole file, if it holds at most [`MAX_CHECKED_BYTES`].
    pub(crate) fn read_whole(&self) -> Result<Vec<u8>, ReadError> {
        self.read_whole_capped(MAX_CHECKED_BYTES)
    }

    fn read_whole_capped(&self, cap: u64) -> Result<Vec<u8>, ReadError> {
        let mut bytes = Vec::new();
        let mut too_large = false;
        self.read_pieces(|_, piece| {
            bytes.extend_from_slice(piece);
            too_large = bytes.len() as u64 > cap;
            if too_large {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        })?;
        if too_large {
            return Err(ReadError::TooLarge { cap });
        }
        Ok(bytes)
    }

    /// Up to `len` bytes from `offset` on (fewer where the file ends).
    pub(crate) fn read_range(&self, offset: u64, len: usize) -> Result<Vec<u8>, ReadError> {
        let mut bytes = Vec::with_capacity(len.min(READ_PIECE));
        let mut at = offset;
        let mut buffer = vec![0; len.min(READ_PIECE)];
        while bytes.len() < len {
            let want = (len - bytes.len()).min(buffer.len());
            match self.read_piece_at(at, &mut buffer[..want])? {
                0 => break,
                n => {
                    bytes.extend_from_slice(&buffer[..n]);
                    at += n as u64;
                }
            }
        }
        Ok(bytes)
    }

    /// Hands the file to `each` in pieces of at most [`READ_PIECE`] bytes, with the
    /// offset each starts at, from the start to the end or until `each` breaks off.
    pub(crate) fn read_pieces(
        &self,
        mut each: impl FnMut(u64, &[u8]) -> ControlFlow<()>,
    ) -> Result<(), ReadError> {
        let mut buffer = vec![0; READ_PIECE];
        let mut offset = 0u64;
        loop {
            let n = self.read_piece_at(offset, &mut buffer)?;
            if n == 0 || each(offset, &buffer[..n]).is_break() {
                return Ok(());
            }
            offset += n as u64;
        }
    }

    /// One read at `offset`, if the deadline has not passed.
    fn read_piece_at(&self, offset: u64, buffer: &mut [u8]) -> Result<usize, ReadError> {
        loop {
            if Instant::now() > self.deadline {
                return Err(ReadError::OutOfTime { offset });
            }
            match self.file.read_at(buffer, offset) {
                Ok(n) => return Ok(n),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(ReadError::Read(e)),
            }
        }
    }
}

/// Looks at `name` (relative to the root `root`) and opens it if it is a regular
/// file; reading it must be done before `deadline`.
pub(crate) fn look_at(root: &Dir, name: &str, deadline: Instant) -> LeftFile {
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
    let file = match open_to_read(root, path) {
        Ok(f) => f,
        Err(e) => return LeftFile::Unread(format!("cannot be opened: {e}")),
    };
    // It may have been swapped since it was looked at: judge what was opened.
    match file.metadata() {
        Ok(meta) if meta.file_type().is_file() => {}
        Ok(meta) => return LeftFile::Unread(not_regular(meta.file_type())),
        Err(e) => return LeftFile::Unread(format!("cannot be examined: {e}")),
    }
    LeftFile::Regular(RegularFile {
        file: file.into_std(),
        deadline,
    })
}

/// Opens `path` to read it, never through a link. A file whose mode forbids its
/// owner to read it (a scenario's `mode: "000"`, which the server left alone) is
/// lent the owner's read right for the moment of the open, and its mode put back
/// at once: toolspec owns what it made in the fixture, and as root it would never
/// have been asked. The mode is changed through a handle on the file itself, so a
/// link put in its place meanwhile changes nothing outside. Where the mode cannot
/// be changed (not toolspec's file), the refusal stands.
fn open_to_read(root: &Dir, path: &Path) -> io::Result<cap_std::fs::File> {
    let open = |flags| {
        root.open_with(
            path,
            OpenOptions::new()
                .read(true)
                .follow(FollowSymlinks::No)
                .custom_flags(flags),
        )
    };
    let refused = match open(libc::O_NONBLOCK) {
        Err(e) if e.kind() == io::ErrorKind::PermissionDenied => e,
        opened => return opened,
    };
    // A handle that needs no right to the file, and names exactly it.
    let Ok(handle) = open(libc::O_PATH) else {
        return Err(refused);
    };
    let Ok(meta) = handle.metadata() else {
        return Err(refused);
    };
    if !meta.is_file() {
        return Err(refused);
    }
    let was = meta.permissions().mode() & 0o7777;
    let by_handle = format!("/proc/self/fd/{}", handle.as_raw_fd());
    let set = |bits| {
        std::fs::set_permissions(
            &by_handle,
            <std::fs::Permissions as std::os::unix::fs::PermissionsExt>::from_mode(bits),
        )
    };
    if set(was | 0o400).is_err() {
        return Err(refused);
    }
    let opened = open(libc::O_NONBLOCK);
    // Put back whatever the open gave.
    set(was)?;
    opened
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
            regular(&handle, "a.txt", soon()).read_whole().ok(),
            Some(b"hi".to_vec())
        );
        assert!(matches!(look_at(&handle, "gone", soon()), LeftFile::Absent));
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

    fn regular(root: &Dir, name: &str, deadline: Instant) -> RegularFile {
        match look_at(root, name, deadline) {
            LeftFile::Regular(file) => file,
            other => panic!("{name}: {other:?}"),
        }
    }

    #[test]
    fn stops_at_the_cap_and_the_deadline() {
        let (dir, handle) = root();
        std::fs::write(dir.path().join("big"), vec![b'a'; 100]).unwrap();
        let file = regular(&handle, "big", soon());
        assert!(matches!(
            file.read_whole_capped(99),
            Err(why) if why.to_string().starts_with("holds more than 99 bytes")
        ));
        assert!(matches!(file.read_whole_capped(100), Ok(b) if b.len() == 100));
        let past = Instant::now() - Duration::from_millis(1);
        assert!(matches!(
            regular(&handle, "big", past).read_whole(),
            Err(why) if why.to_string().starts_with("could not be read within")
        ));
    }

    #[test]
    fn reads_pieces_and_ranges_from_where_they_start() {
        let (dir, handle) = root();
        let bytes: Vec<u8> = (0..200_000u32).map(|i| (i % 251) as u8).collect();
        std::fs::write(dir.path().join("f"), &bytes).unwrap();
        let file = regular(&handle, "f", soon());
        assert_eq!(file.len().ok(), Some(200_000));
        let mut seen = Vec::new();
        file.read_pieces(|offset, piece| {
            assert_eq!(offset, seen.len() as u64);
            assert!(piece.len() <= READ_PIECE);
            seen.extend_from_slice(piece);
            ControlFlow::Continue(())
        })
        .unwrap();
        assert_eq!(seen, bytes);
        assert_eq!(
            file.read_range(65_530, 100_000).ok(),
            Some(bytes[65_530..165_530].to_vec())
        );
        assert_eq!(
            file.read_range(199_990, 50).ok(),
            Some(bytes[199_990..].to_vec())
        );
        assert_eq!(file.read_range(300_000, 50).ok(), Some(Vec::new()));
    }
}
