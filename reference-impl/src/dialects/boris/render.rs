//! Writing a reply as boris does: `[CODE] message` errors (no trailing
//! period), plain successes, and the mutations that bend either.

use super::failure::INVALID_INPUT;
use super::mutations::Mutation;
use crate::dialects::{Rendered, Reply};
use crate::mutations::Mutations;

/// Mutations that report one code as another: (mutation, honest code, reported code).
const RECODED: &[(Mutation, &str, &str)] = &[
    (Mutation::WrongCode, "PATH_NOT_FOUND", "IO_ERROR"),
    (
        Mutation::EmptyCommandAsInvalidInput,
        "BASH_EMPTY_COMMAND",
        INVALID_INPUT,
    ),
    (
        Mutation::AmbiguousAsNotFound,
        "STR_REPLACE_AMBIGUOUS",
        "STR_REPLACE_NOT_FOUND",
    ),
    (
        Mutation::DeniedAsNotFound,
        "ACCESS_DENIED",
        "PATH_NOT_FOUND",
    ),
    (
        Mutation::BadRegexAsInvalidInput,
        "GREP_INVALID_PATTERN",
        INVALID_INPUT,
    ),
];

/// Writes a reply as boris does: `[CODE] message` errors, plain successes.
pub(super) fn render(mutations: &Mutations, reply: Reply) -> Rendered {
    match reply {
        Reply::Success { text, exit_code } => Rendered {
            text,
            is_error: mutations.flags_nonzero_exit(Mutation::ErrorOnNonzeroExit, exit_code),
        },
        Reply::Failure(mut failure) => {
            if let Some((_, _, to)) = RECODED
                .iter()
                .find(|(name, from, _)| *from == failure.code && mutations.is_active(*name))
            {
                failure.code = to;
            }
            if mutations.is_active(Mutation::TooLargeMessageWithoutPath)
                && failure.code == "FILE_TOO_LARGE"
            {
                for path in failure.paths.iter().filter(|p| !p.is_empty()) {
                    failure.message = failure.message.replace(&format!(" {path}"), "");
                }
            }
            if mutations.is_active(Mutation::IoErrorBareCause) && failure.code == "IO_ERROR" {
                if let Some((_, cause)) = failure.message.rsplit_once(": ") {
                    failure.message = cause.to_string();
                }
            }
            if mutations.is_active(Mutation::DropPathFromMessage) {
                for path in failure.paths.iter().filter(|p| !p.is_empty()) {
                    failure.message = failure.message.replace(path.as_str(), "the file");
                }
            }
            Rendered {
                text: code_line(mutations, failure.code, &failure.message),
                is_error: !mutations.is_active(Mutation::OmitIsError),
            }
        }
    }
}

/// `[CODE] message`, or one of its mutated spellings.
fn code_line(mutations: &Mutations, code: &str, message: &str) -> String {
    if mutations.is_active(Mutation::DropCodePrefix) {
        return message.to_string();
    }
    let code = if mutations.is_active(Mutation::LowercaseCode) {
        code.to_ascii_lowercase()
    } else {
        code.to_string()
    };
    let space = if mutations.is_active(Mutation::NoSpaceAfterCode) {
        ""
    } else if mutations.is_active(Mutation::DoubleSpaceAfterCode) {
        "  "
    } else {
        " "
    };
    format!("[{code}]{space}{message}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dialects::boris::failure::engine_failure;
    use crate::dialects::Failure;
    use crate::engine::EngineError;

    fn mutated(names: &[Mutation]) -> Mutations {
        Mutations::of(names)
    }
    #[test]
    fn code_lines_and_their_mutations() {
        let failure = Failure {
            paths: vec!["/r/x".into()],
            ..Failure::new("PATH_NOT_FOUND", "/r/x does not exist")
        };
        let render_with =
            |names: &[Mutation]| render(&mutated(names), Reply::Failure(failure.clone()));
        assert_eq!(
            render_with(&[]).text,
            "[PATH_NOT_FOUND] /r/x does not exist"
        );
        assert_eq!(
            render_with(&[Mutation::LowercaseCode, Mutation::NoSpaceAfterCode]).text,
            "[path_not_found]/r/x does not exist"
        );
        assert_eq!(
            render_with(&[Mutation::DropCodePrefix]).text,
            "/r/x does not exist"
        );
        assert_eq!(
            render_with(&[Mutation::WrongCode, Mutation::DropPathFromMessage]).text,
            "[IO_ERROR] the file does not exist"
        );
        assert!(!render_with(&[Mutation::OmitIsError]).is_error);
        let exit = |names: &[Mutation]| {
            render(
                &mutated(names),
                Reply::Success {
                    text: String::new(),
                    exit_code: Some(1),
                },
            )
            .is_error
        };
        assert!(!exit(&[]));
        assert!(exit(&[Mutation::ErrorOnNonzeroExit]));
    }

    #[test]
    fn message_mutations_strip_what_they_name() {
        let too_large = engine_failure(EngineError::TooLarge {
            path: "/r/big.txt".into(),
            size: 100,
            limit: 64,
        });
        let text = |names: &[Mutation], failure: &Failure| {
            render(&mutated(names), Reply::Failure(failure.clone())).text
        };
        assert_eq!(
            text(&[Mutation::TooLargeMessageWithoutPath], &too_large),
            "[FILE_TOO_LARGE] file is 100 bytes, exceeds maximum 64 bytes"
        );
        assert_eq!(
            text(&[Mutation::DoubleSpaceAfterCode], &too_large),
            "[FILE_TOO_LARGE]  file /r/big.txt is 100 bytes, exceeds maximum 64 bytes"
        );
        let io = Failure {
            paths: vec!["/r/t.txt".into()],
            ..Failure::new("IO_ERROR", "could not read /r/t.txt: is a directory")
        };
        assert_eq!(
            text(&[], &io),
            "[IO_ERROR] could not read /r/t.txt: is a directory"
        );
        assert_eq!(
            text(&[Mutation::IoErrorBareCause], &io),
            "[IO_ERROR] is a directory"
        );
    }
}
