//! A catalogue of named, realistic deviations, switched on with `--mutate`.
//!
//! The harness proves that its checks can fail by running the suites against
//! a deliberately broken reference server. Each mutation imitates a mistake a
//! real implementation could make, and applies to every call of the affected
//! kind: none of them looks at which scenario is running.

use std::fmt;

/// One deviation from the dialect's conventions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Mutation {
    /// Error text loses its `[CODE] ` prefix.
    DropCodePrefix,
    /// The code is written in lower case: `[path_not_found] …`.
    LowercaseCode,
    /// No space after the code: `[CODE]message`.
    NoSpaceAfterCode,
    /// Error results are sent without `isError: true`.
    OmitIsError,
    /// A command's non-zero exit is reported with `isError: true`.
    ErrorOnNonzeroExit,
    /// `PATH_NOT_FOUND` is reported as `IO_ERROR`.
    WrongCode,
    /// A write refused for its size leaves a truncated file behind.
    PartialWrite,
    /// Error messages no longer name the path they are about.
    DropPathFromMessage,
}

impl Mutation {
    /// Every mutation with its command-line name.
    pub const ALL: [(&'static str, Mutation); 8] = [
        ("drop-code-prefix", Mutation::DropCodePrefix),
        ("lowercase-code", Mutation::LowercaseCode),
        ("no-space-after-code", Mutation::NoSpaceAfterCode),
        ("omit-is-error", Mutation::OmitIsError),
        ("error-on-nonzero-exit", Mutation::ErrorOnNonzeroExit),
        ("wrong-code", Mutation::WrongCode),
        ("partial-write", Mutation::PartialWrite),
        ("drop-path-from-message", Mutation::DropPathFromMessage),
    ];

    /// Parses a `--mutate` value; an unknown name lists the valid ones.
    pub fn parse(name: &str) -> Result<Mutation, String> {
        Self::ALL
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, m)| *m)
            .ok_or_else(|| {
                let names: Vec<&str> = Self::ALL.iter().map(|(n, _)| *n).collect();
                format!(
                    "unknown mutation {name:?}; valid mutations: {}",
                    names.join(", ")
                )
            })
    }

    pub fn name(self) -> &'static str {
        Self::ALL
            .iter()
            .find(|(_, m)| *m == self)
            .map_or("?", |(n, _)| n)
    }
}

impl fmt::Display for Mutation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The set of active mutations.
#[derive(Debug, Clone, Default)]
pub struct Mutations {
    active: Vec<Mutation>,
}

/// A dialect's failure before rendering: a code, a message, and the paths the
/// message mentions (so `drop-path-from-message` knows what to remove).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    pub code: &'static str,
    pub message: String,
    pub paths: Vec<String>,
}

/// How a `[CODE] message` line is to be written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct CodeStyle {
    pub drop_prefix: bool,
    pub lowercase: bool,
    pub no_space: bool,
}

impl CodeStyle {
    /// Writes `[CODE] message` in this style.
    pub fn render(self, code: &str, message: &str) -> String {
        if self.drop_prefix {
            return message.to_string();
        }
        let code = if self.lowercase {
            code.to_ascii_lowercase()
        } else {
            code.to_string()
        };
        let space = if self.no_space { "" } else { " " };
        format!("[{code}]{space}{message}")
    }
}

impl Mutations {
    pub fn new(mut active: Vec<Mutation>) -> Mutations {
        active.dedup();
        Mutations { active }
    }

    pub fn is_active(&self, mutation: Mutation) -> bool {
        self.active.contains(&mutation)
    }

    /// Applies the message-level mutations (code swap, path removal).
    pub fn adjust_failure(&self, mut failure: Failure) -> Failure {
        if self.is_active(Mutation::WrongCode) && failure.code == "PATH_NOT_FOUND" {
            failure.code = "IO_ERROR";
        }
        if self.is_active(Mutation::DropPathFromMessage) {
            for path in &failure.paths {
                if !path.is_empty() {
                    failure.message = failure.message.replace(path.as_str(), "the file");
                }
            }
        }
        failure
    }

    /// The style in which codes are written.
    pub fn code_style(&self) -> CodeStyle {
        CodeStyle {
            drop_prefix: self.is_active(Mutation::DropCodePrefix),
            lowercase: self.is_active(Mutation::LowercaseCode),
            no_space: self.is_active(Mutation::NoSpaceAfterCode),
        }
    }

    /// The `isError` flag to send, given the honest one and, for commands,
    /// the exit code.
    pub fn is_error_flag(&self, honest: bool, exit_code: Option<i32>) -> bool {
        if honest {
            return !self.is_active(Mutation::OmitIsError);
        }
        self.is_active(Mutation::ErrorOnNonzeroExit) && exit_code.is_some_and(|code| code != 0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for (name, mutation) in Mutation::ALL {
            assert_eq!(Mutation::parse(name), Ok(mutation));
            assert_eq!(mutation.name(), name);
        }
    }

    #[test]
    fn code_styles() {
        assert_eq!(CodeStyle::default().render("IO_ERROR", "m"), "[IO_ERROR] m");
        let muts = Mutations::new(vec![Mutation::LowercaseCode, Mutation::NoSpaceAfterCode]);
        assert_eq!(muts.code_style().render("IO_ERROR", "m"), "[io_error]m");
        let muts = Mutations::new(vec![Mutation::DropCodePrefix]);
        assert_eq!(muts.code_style().render("IO_ERROR", "m"), "m");
    }

    #[test]
    fn failure_adjustments() {
        let failure = Failure {
            code: "PATH_NOT_FOUND",
            message: "/r/x does not exist".into(),
            paths: vec!["/r/x".into()],
        };
        let muts = Mutations::new(vec![Mutation::WrongCode, Mutation::DropPathFromMessage]);
        let adjusted = muts.adjust_failure(failure);
        assert_eq!(
            (adjusted.code, adjusted.message.as_str()),
            ("IO_ERROR", "the file does not exist")
        );
        assert!(!Mutations::default().is_error_flag(false, Some(1)));
        assert!(Mutations::new(vec![Mutation::ErrorOnNonzeroExit]).is_error_flag(false, Some(1)));
        assert!(!Mutations::new(vec![Mutation::OmitIsError]).is_error_flag(true, None));
    }
}
