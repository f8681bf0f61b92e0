//! The regexes a scenario writes (`then.matches`, a call's `capture:`): checked for
//! syntax while the file loads, so a bad one is refused before anything runs, but
//! compiled only when a scenario that uses it is judged, and then once.
//!
//! Parsing a regex is a small part of compiling it (no automaton is built), so a
//! suite of 10,000 scenarios loads without compiling 10,000 regexes, and a run
//! `--filter`ed to one scenario compiles only that scenario's. A clone shares the
//! compiled regex (`Arc`), so the judge uses the one compiled for it.
//!
//! What the syntax check cannot see is a regex too big to compile (`a{1000}{1000}`):
//! that is a mismatch of the scenario that uses it, named "bad regex", when judged.

use std::sync::{Arc, OnceLock};

use regex::Regex;

/// A regex written in a scenario: its text, syntax-checked, and its compiled form
/// once something asked for it.
#[derive(Clone)]
pub(crate) struct Pattern(Arc<Compiled>);

struct Compiled {
    text: String,
    regex: OnceLock<Result<Regex, String>>,
}

impl std::fmt::Debug for Pattern {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("Pattern").field(&self.0.text).finish()
    }
}

impl Pattern {
    /// `text` as a pattern, not yet checked (see [`check_syntax`]).
    pub(crate) fn unchecked(text: String) -> Pattern {
        Pattern(Arc::new(Compiled {
            text,
            regex: OnceLock::new(),
        }))
    }

    /// The regex as written.
    pub(crate) fn as_str(&self) -> &str {
        &self.0.text
    }

    /// The compiled regex, compiled on the first call (by whichever thread asks
    /// first) and shared by every clone after that.
    pub(crate) fn regex(&self) -> Result<&Regex, &str> {
        self.0
            .regex
            .get_or_init(|| Regex::new(&self.0.text).map_err(|e| e.to_string()))
            .as_ref()
            .map_err(String::as_str)
    }

    /// Whether [`Pattern::regex`] has compiled it yet.
    #[cfg(test)]
    pub(crate) fn is_compiled(&self) -> bool {
        self.0.regex.get().is_some()
    }
}

/// `matches:` entries are read as written; `scenario/validate.rs` checks each one
/// with its placeholders filled, as it will run.
impl<'de> serde::Deserialize<'de> for Pattern {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        String::deserialize(deserializer).map(Pattern::unchecked)
    }
}

/// Checks `text`'s syntax as the `regex` crate reads it (same parser, same
/// defaults), without compiling it; on success, the number of capture groups it
/// writes (group 0, the whole match, not counted).
pub(crate) fn check_syntax(text: &str) -> Result<usize, String> {
    regex_syntax::Parser::new()
        .parse(text)
        .map(|hir| hir.properties().explicit_captures_len())
        .map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn syntax_is_checked_without_compiling_and_counts_groups() {
        assert_eq!(check_syntax(r"task (\w+) started"), Ok(1));
        assert_eq!(check_syntax(r"(?:a)(?P<b>b)(c)"), Ok(2));
        // Built at run time, so that the lint that checks literal regexes lets it be.
        let bad = ["a", "(", "b"].concat();
        let error = check_syntax(&bad).unwrap_err();
        // The same words the regex crate's own error gives.
        let compiled = Regex::new(&bad).unwrap_err().to_string();
        assert_eq!(error, compiled);
        assert!(error.contains("unclosed group"), "{error}");
    }

    #[test]
    fn compiles_once_on_first_use_and_clones_share_it() {
        let pattern = Pattern::unchecked("line [0-9]+".into());
        let clone = pattern.clone();
        assert!(!pattern.is_compiled());
        let first: *const Regex = pattern.regex().expect("compiles");
        assert!(clone.is_compiled(), "the clone sees the one compilation");
        let second: *const Regex = clone.regex().expect("compiles");
        assert_eq!(first, second, "one compiled regex, not two");
    }

    #[test]
    fn a_regex_too_big_to_compile_is_an_error_when_used() {
        let pattern = Pattern::unchecked("(?:a{1000}){1000}".into());
        assert!(check_syntax(pattern.as_str()).is_ok());
        let error = pattern.regex().unwrap_err();
        assert!(error.contains("size limit"), "{error}");
    }
}
