//! Boris's error codes: the conversions from argument and engine errors to
//! a coded [`Failure`]. They are functions of this dialect, not `From`
//! impls, so that no other dialect picks up boris's codes through `?`.

use std::path::Path;

use super::mutations::Mutation;
use crate::dialects::common::args::ArgError;
use crate::dialects::{Context, Failure};
use crate::engine::error::{DenyReason, IoOp};
use crate::engine::EngineError;

/// The code of every malformed argument.
pub(super) const INVALID_INPUT: &str = "INVALID_INPUT";

pub(super) fn failure(code: &'static str, message: impl Into<String>) -> Failure {
    Failure::new(code, message)
}

pub(super) fn invalid(message: impl Into<String>) -> Failure {
    failure(INVALID_INPUT, message)
}

/// A malformed argument: `INVALID_INPUT` with the argument's message.
pub(super) fn argument_failure(err: ArgError) -> Failure {
    invalid(err.message())
}

/// An engine error under its boris code, the path it names kept aside so a
/// mutation can drop it from the message.
pub(super) fn engine_failure(err: EngineError) -> Failure {
    let with_path = |code, message: String, path: &Path| Failure {
        paths: vec![path.display().to_string()],
        ..Failure::new(code, message)
    };
    match err {
        EngineError::InvalidInput(message) => invalid(message),
        EngineError::NotFound { path } => {
            with_path("PATH_NOT_FOUND", format!("{} does not exist", path.display()), &path)
        }
        EngineError::AccessDenied { path, reason } => {
            let why = match reason {
                DenyReason::OutsideAllowedDirs => "is outside allowed directories".to_string(),
                DenyReason::MatchesDenyPattern(pattern) => format!("matches deny pattern \"{pattern}\""),
            };
            let message = format!("path not allowed: access denied: path \"{}\" {why}", path.display());
            with_path("ACCESS_DENIED", message, &path)
        }
        EngineError::TooLarge { path, size, limit } => with_path(
            "FILE_TOO_LARGE",
            format!("file {} is {size} bytes, exceeds maximum {limit} bytes", path.display()),
            &path,
        ),
        EngineError::Io { op, path, cause } => with_path("IO_ERROR", io_message(op, &path, &cause), &path),
        EngineError::StringNotFound { path } => {
            with_path("STR_REPLACE_NOT_FOUND", format!("old_str not found in {}", path.display()), &path)
        }
        EngineError::AmbiguousMatch { path, count } => with_path(
            "STR_REPLACE_AMBIGUOUS",
            format!(
                "found {count} occurrences in {}; match must be unique (use replace_all to replace all)",
                path.display()
            ),
            &path,
        ),
        EngineError::InvalidRegex { message } => {
            failure("GREP_INVALID_PATTERN", format!("invalid regex pattern: {message}"))
        }
        EngineError::InvalidGlob { pattern, message } => {
            failure("GLOB_INVALID_PATTERN", format!("invalid glob pattern \"{pattern}\": {message}"))
        }
        EngineError::StartFailed { cause } => {
            failure("BASH_START_FAILED", format!("could not start command: {cause}"))
        }
        EngineError::TaskLimit { limit } => failure(
            "BASH_TASK_LIMIT",
            format!("cannot start background task: maximum concurrent background task limit ({limit}) reached"),
        ),
        EngineError::TaskNotFound { id } => failure("BASH_TASK_NOT_FOUND", format!("task not found: {id}")),
    }
}

/// An IO failure as Boris 1.0.0 words it: what it could not do, then Go's
/// own error for the system call that failed, which names the call and the
/// path again (`could not write P: open P: is a directory`, create_file.go:54;
/// `could not read P: read P: is a directory`, str_replace.go:52, where
/// opening a folder succeeds and reading it fails). A cause the system never
/// gives (`not a regular file`, the engine's refusal of a FIFO) has no call.
fn io_message(op: IoOp, path: &Path, cause: &str) -> String {
    let p = path.display();
    let call = match op {
        _ if cause == "not a regular file" => None,
        IoOp::Read if cause == "is a directory" => Some("read"),
        IoOp::Read | IoOp::Write | IoOp::List => Some("open"),
        IoOp::Stat => Some("stat"),
        IoOp::CreateDir => Some("mkdir"),
    };
    let what = match op {
        IoOp::List => "list directory".to_string(),
        IoOp::CreateDir => "create directories for".to_string(),
        other => other.to_string(),
    };
    match call {
        Some(call) => format!("could not {what} {p}: {call} {p}: {cause}"),
        None => format!("could not {what} {p}: {cause}"),
    }
}

/// Names a missing path the way the caller wrote it (made absolute), so a
/// dangling symlink is reported by its own name rather than its target's.
pub(super) fn as_requested(ctx: &Context, raw: &str) -> impl Fn(EngineError) -> Failure {
    let requested = ctx.policy.lexical(raw);
    let name_target = ctx.mutations.is_active(Mutation::NameSymlinkTarget);
    move |err| match err {
        EngineError::NotFound { .. } if !name_target => engine_failure(EngineError::NotFound {
            path: requested.clone(),
        }),
        other => engine_failure(other),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn failures_never_end_with_a_period() {
        let err = engine_failure(EngineError::TaskLimit { limit: 10 });
        assert_eq!(err.code, "BASH_TASK_LIMIT");
        assert!(err.message.ends_with("limit (10) reached"));
        let err = engine_failure(EngineError::AmbiguousMatch {
            path: "/r/dup.txt".into(),
            count: 3,
        });
        assert_eq!(
            err.message,
            "found 3 occurrences in /r/dup.txt; match must be unique (use replace_all to replace all)"
        );
    }
}
