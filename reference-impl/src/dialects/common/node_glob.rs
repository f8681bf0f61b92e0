//! Globs as the JavaScript glob libraries read them (gemini-cli 0.1.13's
//! node-glob; agent-tools v0.1.0's tinyglobby, whose picomatch does the
//! same): a bracket or a brace that does not close is the character itself,
//! so no pattern fails to compile (`[` finds a file named `[`, and nothing
//! where there is none). globset refuses such a pattern; it is then compiled
//! again with every bracket and brace literal.

use globset::{GlobBuilder, GlobMatcher};

/// `pattern` compiled with `/` matched only by `/`, case ignored when asked.
pub(crate) fn node_glob(
    pattern: &str,
    case_insensitive: bool,
) -> Result<GlobMatcher, globset::Error> {
    let build = |text: &str| {
        GlobBuilder::new(text)
            .literal_separator(true)
            .case_insensitive(case_insensitive)
            .build()
            .map(|glob| glob.compile_matcher())
    };
    build(pattern).or_else(|_| build(&brackets_and_braces_literal(pattern)))
}

/// Each `[`, `]`, `{` and `}` made a class holding only itself.
fn brackets_and_braces_literal(pattern: &str) -> String {
    let mut out = String::with_capacity(pattern.len() + 8);
    for c in pattern.chars() {
        match c {
            '[' | ']' | '{' | '}' => {
                out.push('[');
                out.push(c);
                out.push(']');
            }
            _ => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unclosed_bracket_or_brace_is_itself() {
        let bracket = node_glob("[", false).expect("compiles");
        assert!(bracket.is_match("["));
        assert!(!bracket.is_match("a.txt"));
        let brace = node_glob("*{a", false).expect("compiles");
        assert!(brace.is_match("x{a"));
        assert!(!brace.is_match("xa"));
    }

    #[test]
    fn a_well_formed_glob_keeps_its_meaning() {
        let glob = node_glob("src/*.{md,txt}", true).expect("compiles");
        assert!(glob.is_match("src/A.TXT"));
        assert!(!glob.is_match("src/deep/a.txt"));
        assert!(!node_glob("*.txt", false)
            .expect("compiles")
            .is_match("A.TXT"));
    }
}
