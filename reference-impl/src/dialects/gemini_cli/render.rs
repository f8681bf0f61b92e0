//! Writing a reply as gemini-cli does: the text as it is, errors flagged.

use super::mutations::Mutation;
use crate::dialects::{Rendered, Reply};
use crate::mutations::Mutations;

/// Successes as they are; failures are their text with `isError: true`.
pub(super) fn render(mutations: &Mutations, reply: Reply) -> Rendered {
    match reply {
        Reply::Success { text, exit_code } => Rendered {
            text,
            is_error: mutations.flags_nonzero_exit(Mutation::ErrorOnNonzeroExit, exit_code),
        },
        // Seed 002 fixes the text only; 0.1.13 itself has no error flag. The flag
        // is set for MCP clients, and the suite does not demand it.
        Reply::Failure(failure) => Rendered {
            text: failure.message,
            is_error: true,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dialects::gemini_cli::{invalid_params, plain_error};

    #[test]
    fn errors_are_flagged_and_failed_commands_only_when_mutated() {
        let failure = || Reply::Failure(plain_error("File not found: /r/x"));
        let clean = Mutations::default();
        assert_eq!(
            render(&clean, failure()),
            Rendered {
                text: "File not found: /r/x".into(),
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
