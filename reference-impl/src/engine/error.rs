//! The engine's error type: one variant per condition a dialect may need to
//! tell apart, each carrying the values (path, size, count) that a good
//! message must show.

use std::fmt;
use std::io;
use std::path::PathBuf;

/// The file-system operation that failed, named in IO error messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum IoOp {
    Read,
    Write,
    Stat,
    List,
    CreateDir,
}

impl fmt::Display for IoOp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            IoOp::Read => "read",
            IoOp::Write => "write",
            IoOp::Stat => "stat",
            IoOp::List => "list",
            IoOp::CreateDir => "create directory",
        })
    }
}

/// Why the path policy refused a path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum DenyReason {
    OutsideAllowedDirs,
    MatchesDenyPattern(String),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum EngineError {
    /// A value the caller gave is unusable; the text says which and why.
    InvalidInput(String),
    NotFound {
        path: PathBuf,
    },
    AccessDenied {
        path: PathBuf,
        reason: DenyReason,
    },
    TooLarge {
        path: PathBuf,
        size: u64,
        limit: u64,
    },
    /// `cause` is already a readable lower-case phrase (see [`describe_io`]).
    Io {
        op: IoOp,
        path: PathBuf,
        cause: String,
    },
    StringNotFound {
        path: PathBuf,
    },
    AmbiguousMatch {
        path: PathBuf,
        count: usize,
    },
    InvalidRegex {
        message: String,
    },
    InvalidGlob {
        pattern: String,
        message: String,
    },
    StartFailed {
        cause: String,
    },
    TaskLimit {
        limit: usize,
    },
    TaskNotFound {
        id: String,
    },
}

impl EngineError {
    pub(crate) fn io(op: IoOp, path: impl Into<PathBuf>, err: &io::Error) -> EngineError {
        EngineError::Io {
            op,
            path: path.into(),
            cause: describe_io(err),
        }
    }
}

/// Renders an OS error as a short phrase (`permission denied`, `is a
/// directory`), without Rust's `(os error N)` suffix or Debug noise, so
/// messages read like the Go program's.
pub(crate) fn describe_io(err: &io::Error) -> String {
    let text = err.to_string();
    let text = match text.rfind(" (os error ") {
        Some(at) if text.ends_with(')') => text[..at].to_string(),
        _ => text,
    };
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => first.to_lowercase().chain(chars).collect(),
        None => "unknown error".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn io_causes_read_as_phrases() {
        let err = io::Error::from_raw_os_error(libc::EISDIR);
        assert_eq!(describe_io(&err), "is a directory");
        let err = io::Error::from_raw_os_error(libc::EACCES);
        assert_eq!(describe_io(&err), "permission denied");
    }
}
