//! Writing a reply as gemini-cli 0.1.13 does: the text as it is, and the
//! error flag only on what the program throws.

use super::mutations::Mutation;
use super::THROWN;
use crate::dialects::{Rendered, Reply};
use crate::mutations::Mutations;

/// Successes as they are; failures are their text with `isError: true`.
pub(super) fn render(mutations: &Mutations, reply: Reply) -> Rendered {
    match reply {
        Reply::Success { text, exit_code } => Rendered {
            text,
            is_error: mutations.flags_nonzero_exit(Mutation::ErrorOnNonzeroExit, exit_code),
        },
        // Seed 002 fixes the text only. 0.1.13 answers its errors as text
        // (`llmContent`, no error set); only a thrown error reaches the model
        // as `{error: message}`, which an MCP server flags.
        Reply::Failure(failure) => Rendered {
            is_error: failure.code == THROWN,
            text: failure.message,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dialects::gemini_cli::{invalid_params, plain_error, thrown};

    #[test]
    fn only_thrown_errors_are_flagged_and_failed_commands_only_when_mutated() {
        let failure = || Reply::Failure(plain_error("File not found: /r/x"));
        let clean = Mutations::default();
        assert_eq!(
            render(&clean, failure()),
            Rendered {
                text: "File not found: /r/x".into(),
                is_error: false
            }
        );
        let crash = Reply::Failure(thrown("command.includes is not a function"));
        assert_eq!(
            render(&clean, crash),
            Rendered {
                text: "command.includes is not a function".into(),
                is_error: true
            }
        );
        let failed_command = || Reply::Success {
            text: String::new(),
            exit_code: Some(3),
        };
        assert!(!render(&clean, failed_command()).is_error);
        let mutated = Mutations::of(&[Mutation::ErrorOnNonzeroExit]);
        assert!(render(&mutated, failed_command()).is_error);
        assert_eq!(
            invalid_params("Path must be absolute: x").message,
            "Error: Invalid parameters provided. Reason: Path must be absolute: x"
        );
    }
}
