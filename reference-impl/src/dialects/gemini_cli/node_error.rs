//! File-system errors worded as Node.js words them (`ENOENT: no such file or
//! directory, stat '/p'`), because gemini-cli passes Node's messages through
//! to the model and seed 002 quotes them.

use std::io;

use crate::engine::error::describe_io;

/// The errno values gemini's tools meet, with libuv's code and description.
const NODE_ERRORS: &[(i32, &str, &str)] = &[
    (libc::ENOENT, "ENOENT", "no such file or directory"),
    (libc::ENOTDIR, "ENOTDIR", "not a directory"),
    (libc::EISDIR, "EISDIR", "illegal operation on a directory"),
    (libc::EACCES, "EACCES", "permission denied"),
    (libc::EPERM, "EPERM", "operation not permitted"),
    (libc::EEXIST, "EEXIST", "file already exists"),
    (libc::ELOOP, "ELOOP", "too many symbolic links encountered"),
    (libc::ENAMETOOLONG, "ENAMETOOLONG", "name too long"),
    (libc::ENOSPC, "ENOSPC", "no space left on device"),
    (libc::EROFS, "EROFS", "read-only file system"),
    (libc::EBUSY, "EBUSY", "resource busy or locked"),
    (libc::EMFILE, "EMFILE", "too many open files"),
    (libc::EINVAL, "EINVAL", "invalid argument"),
];

/// `CODE: description, syscall 'path'` for an OS error.
pub(crate) fn describe(err: &io::Error, syscall: &str, path: &str) -> String {
    let known = err
        .raw_os_error()
        .and_then(|errno| NODE_ERRORS.iter().find(|(n, _, _)| *n == errno));
    match known {
        Some((_, code, text)) => format!("{code}: {text}, {syscall} '{path}'"),
        None => format!("UNKNOWN: {}, {syscall} '{path}'", describe_io(err)),
    }
}

/// The same for an engine error that carries only the OS's phrase (as
/// [`describe_io`] wrote it): the phrase is matched back to its errno.
pub(crate) fn describe_cause(cause: &str, syscall: &str, path: &str) -> String {
    let errno = NODE_ERRORS
        .iter()
        .map(|(errno, _, _)| *errno)
        .find(|errno| describe_io(&io::Error::from_raw_os_error(*errno)) == cause);
    match errno {
        Some(errno) => describe(&io::Error::from_raw_os_error(errno), syscall, path),
        None => format!("UNKNOWN: {cause}, {syscall} '{path}'"),
    }
}

/// Node's message for reading a directory as a file, which names no path.
pub(crate) const READ_DIRECTORY: &str = "EISDIR: illegal operation on a directory, read";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_read_like_node() {
        let err = io::Error::from_raw_os_error(libc::ENOENT);
        assert_eq!(
            describe(&err, "stat", "/r/x"),
            "ENOENT: no such file or directory, stat '/r/x'"
        );
        assert_eq!(
            describe_cause("not a directory", "open", "/r/f/x"),
            "ENOTDIR: not a directory, open '/r/f/x'"
        );
        assert_eq!(
            describe_cause("something odd", "open", "/p"),
            "UNKNOWN: something odd, open '/p'"
        );
    }
}
