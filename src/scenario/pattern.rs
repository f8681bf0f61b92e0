//! The regexes a scenario writes (`then.matches`, a call's `capture:`): checked for
//! syntax while the file loads, so a bad one is refused before anything runs, but
//! compiled only when a scenario that uses it is judged, once for that judging.
//!
//! Parsing a regex is a small part of compiling it (no automaton is built), so a
//! suite of 10,000 scenarios loads without compiling 10,000 regexes, and a run
//! `--filter`ed to one scenario compiles only that scenario's. The compiled regex
//! is not kept once the scenario is judged: a compiled regex and the match cache
//! it grows take kilobytes, and kept for every scenario of a large suite they
//! would make a run's memory grow with the suite.
//!
//! What the syntax check cannot see is a regex too big to compile (`a{1000}{1000}`):
//! that is a mismatch of the scenario that uses it, named "bad regex", when judged.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use regex_automata::meta::Regex;

/// The most a compiled scenario regex may take: the `regex` crate's own default.
const SIZE_LIMIT: usize = 10 << 20;

/// Why a regex cannot be compiled for judging.
#[derive(Debug, thiserror::Error)]
pub(crate) enum CompileError {
    /// Compiled, it would take more than it may.
    #[error("compiled, the regex would pass the size limit of {limit} bytes")]
    TooBig {
        /// The limit, in bytes.
        limit: usize,
    },
    /// Any other reason the `regex` crate's engine gives (boxed: it is large, and
    /// every compile's `Result` would carry its size).
    #[error("{0}")]
    Build(#[source] Box<regex_automata::meta::BuildError>),
}

/// A regex written in a scenario: its text, syntax-checked when the file loaded.
#[derive(Clone)]
pub(crate) struct Pattern(Arc<Written>);

struct Written {
    text: String,
    /// How many times it was compiled, for the tests that show when that happens.
    compiled: AtomicUsize,
}

impl std::fmt::Debug for Pattern {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("Pattern").field(&self.0.text).finish()
    }
}

impl Pattern {
    /// `text` as a pattern, not yet checked (see [`check_syntax`]).
    pub(crate) fn unchecked(text: String) -> Pattern {
        Pattern(Arc::new(Written {
            text,
            compiled: AtomicUsize::new(0),
        }))
    }

    /// The regex as written.
    pub(crate) fn as_str(&self) -> &str {
        &self.0.text
    }

    /// The regex compiled, for one judging: the caller keeps it as long as it
    /// needs it, and no longer.
    pub(crate) fn compile(&self) -> Result<Regex, CompileError> {
        self.0.compiled.fetch_add(1, Ordering::Relaxed);
        compile_filled(&self.0.text)
    }

    /// How many times [`Pattern::compile`] has compiled it (any copy of it).
    #[cfg(test)]
    pub(crate) fn compilations(&self) -> usize {
        self.0.compiled.load(Ordering::Relaxed)
    }
}

/// A scenario's regex with its `{root}` and captures filled in, compiled for one
/// judging (see [`compile_for_one_judging`]).
pub(crate) fn compile_filled(text: &str) -> Result<Regex, CompileError> {
    compile_for_one_judging(text, SIZE_LIMIT)
}

/// `text` compiled to be matched a few times and dropped: the `regex` crate's
/// engine (same syntax, same leftmost-first matches) without its fully compiled DFA.
///
/// Why: the reference server's search crates (`grep-regex`) turn that DFA on for
/// every regex in the build (cargo unifies a crate's features), and for a small
/// regex it is built at once, which costs far more than the one or two matches a
/// judging makes. The lazy DFA it falls back to builds only the states a match
/// visits. Replaying the template fuzzer's corpus took 3.2 s of CPU with it and
/// 1.7 s without (`cargo test --test harness fuzz_corpus`). Past `size_limit`
/// bytes the regex is refused, saying so.
pub(crate) fn compile_for_one_judging(
    text: &str,
    size_limit: usize,
) -> Result<Regex, CompileError> {
    Regex::builder()
        .configure(Regex::config().dfa(false).nfa_size_limit(Some(size_limit)))
        .build(text)
        .map_err(|e| match e.size_limit() {
            Some(limit) => CompileError::TooBig { limit },
            None => CompileError::Build(Box::new(e)),
        })
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
pub(crate) fn check_syntax(text: &str) -> Result<usize, Box<regex_syntax::Error>> {
    regex_syntax::Parser::new()
        .parse(text)
        .map(|hir| hir.properties().explicit_captures_len())
        .map_err(Box::new)
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
        let error = check_syntax(&bad).unwrap_err().to_string();
        // The same words the regex crate's own error gives.
        let compiled = regex::Regex::new(&bad).unwrap_err().to_string();
        assert_eq!(error, compiled);
        assert!(error.contains("unclosed group"), "{error}");
    }

    #[test]
    fn compiles_only_when_asked_and_counts_it_across_copies() {
        let pattern = Pattern::unchecked("line [0-9]+".into());
        let copy = pattern.clone();
        assert_eq!(pattern.compilations(), 0);
        assert!(copy.compile().expect("compiles").is_match("line 7"));
        assert_eq!(pattern.compilations(), 1, "the copy's compilation counts");
    }

    #[test]
    fn a_regex_too_big_to_compile_is_an_error_when_used() {
        let pattern = Pattern::unchecked("(?:a{1000}){1000}".into());
        assert!(check_syntax(pattern.as_str()).is_ok());
        let error = pattern.compile().unwrap_err().to_string();
        assert!(error.contains("size limit"), "{error}");
    }
}
