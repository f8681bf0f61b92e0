//! One component of a POSIX glob pattern (no `/`): `*`, `?`, bracket
//! expressions (`[abc]`, `[!a-z]`, `[^a]`, `[[:digit:]]`) and backslash
//! escapes, as `glob(3)` without flags understands them. There is no `**`
//! (it is `*` twice) and no `{a,b}` (braces are ordinary characters).
//!
//! A wildcard never matches a leading `.` of a name: `*` does not find
//! `.env`, `.*` does.
//!
//! glibc quietly takes an unclosed `[` as an ordinary character; seed 004
//! lists `Invalid glob pattern: [unclosed` as an error, so here it is one.

use crate::engine::star_match::star_match;

/// Why a component cannot be used.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum WildcardError {
    UnclosedBracket,
    UnknownClass,
}

const CLASS_NAMES: [&str; 12] = [
    "alnum", "alpha", "blank", "cntrl", "digit", "graph", "lower", "print", "punct", "space",
    "upper", "xdigit",
];

#[derive(Debug, Clone, PartialEq, Eq)]
enum Token {
    Char(char),
    AnyOne,
    AnyRun,
    Set { negated: bool, items: Vec<SetItem> },
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum SetItem {
    Char(char),
    Range(char, char),
    Class(String),
}

/// A parsed pattern component.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Wildcard {
    tokens: Vec<Token>,
}

impl Wildcard {
    pub(crate) fn parse(component: &str) -> Result<Wildcard, WildcardError> {
        let chars: Vec<char> = component.chars().collect();
        let mut tokens = Vec::new();
        let mut at = 0;
        while at < chars.len() {
            let c = chars[at];
            at += 1;
            tokens.push(match c {
                '*' => Token::AnyRun,
                '?' => Token::AnyOne,
                '[' => {
                    let (set, next) = parse_set(&chars, at)?;
                    at = next;
                    set
                }
                // A trailing backslash stands for itself, as in fnmatch.
                '\\' if at < chars.len() => {
                    at += 1;
                    Token::Char(chars[at - 1])
                }
                other => Token::Char(other),
            });
        }
        Ok(Wildcard { tokens })
    }

    /// The component's text when it has no wildcard at all (escapes
    /// removed), so a caller can look the name up instead of listing.
    pub(crate) fn literal(&self) -> Option<String> {
        self.tokens
            .iter()
            .map(|t| match t {
                Token::Char(c) => Some(*c),
                _ => None,
            })
            .collect()
    }

    pub(crate) fn matches(&self, name: &str) -> bool {
        let name: Vec<char> = name.chars().collect();
        if name.first() == Some(&'.') && self.tokens.first() != Some(&Token::Char('.')) {
            return false;
        }
        match_from(&self.tokens, &name)
    }

    /// Matches without the leading-dot rule, as `glob(3)` with
    /// `GLOB_PERIOD` would (used only by the `glob-matches-dotfiles`
    /// mutation; upstream passes no flags).
    pub(crate) fn matches_dotfiles_too(&self, name: &str) -> bool {
        let name: Vec<char> = name.chars().collect();
        match_from(&self.tokens, &name)
    }
}

/// Parses a bracket expression whose `[` ends just before `at`; returns the
/// set and the index after its `]`.
fn parse_set(chars: &[char], mut at: usize) -> Result<(Token, usize), WildcardError> {
    let negated = matches!(chars.get(at), Some('!' | '^'));
    if negated {
        at += 1;
    }
    let mut items = Vec::new();
    let mut first = true;
    loop {
        let c = *chars.get(at).ok_or(WildcardError::UnclosedBracket)?;
        if c == ']' && !first {
            return Ok((Token::Set { negated, items }, at + 1));
        }
        first = false;
        if c == '[' && chars.get(at + 1) == Some(&':') {
            let rest = &chars[at + 2..];
            let end = rest
                .windows(2)
                .position(|w| w == [':', ']'])
                .ok_or(WildcardError::UnclosedBracket)?;
            let name: String = rest[..end].iter().collect();
            if !CLASS_NAMES.contains(&name.as_str()) {
                return Err(WildcardError::UnknownClass);
            }
            items.push(SetItem::Class(name));
            at += 2 + end + 2;
            continue;
        }
        let (low, next) = set_char(chars, at)?;
        at = next;
        let is_range = chars.get(at) == Some(&'-') && chars.get(at + 1).is_some_and(|&n| n != ']');
        if is_range {
            let (high, next) = set_char(chars, at + 1)?;
            at = next;
            items.push(SetItem::Range(low, high));
        } else {
            items.push(SetItem::Char(low));
        }
    }
}

/// One character of a set, a backslash quoting the next one.
fn set_char(chars: &[char], at: usize) -> Result<(char, usize), WildcardError> {
    match chars.get(at) {
        Some('\\') => chars
            .get(at + 1)
            .map(|&c| (c, at + 2))
            .ok_or(WildcardError::UnclosedBracket),
        Some(&c) => Ok((c, at + 1)),
        None => Err(WildcardError::UnclosedBracket),
    }
}

fn class_has(name: &str, c: char) -> bool {
    match name {
        "alnum" => c.is_alphanumeric(),
        "alpha" => c.is_alphabetic(),
        "blank" => c == ' ' || c == '\t',
        "cntrl" => c.is_control(),
        "digit" => c.is_ascii_digit(),
        "graph" => !c.is_whitespace() && !c.is_control(),
        "lower" => c.is_lowercase(),
        "print" => !c.is_control(),
        "punct" => c.is_ascii_punctuation(),
        "space" => c.is_whitespace(),
        "upper" => c.is_uppercase(),
        "xdigit" => c.is_ascii_hexdigit(),
        _ => false,
    }
}

fn token_matches(token: &Token, c: char) -> bool {
    match token {
        Token::Char(expected) => *expected == c,
        Token::AnyOne | Token::AnyRun => true,
        Token::Set { negated, items } => {
            let member = items.iter().any(|item| match item {
                SetItem::Char(m) => *m == c,
                SetItem::Range(low, high) => *low <= c && c <= *high,
                SetItem::Class(name) => class_has(name, c),
            });
            member != *negated
        }
    }
}

/// Matches the whole name, `*` (any run) walked by the engine's matcher.
fn match_from(tokens: &[Token], name: &[char]) -> bool {
    star_match(tokens, name, |token| *token == Token::AnyRun, token_matches)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(pattern: &str, name: &str) -> bool {
        Wildcard::parse(pattern).expect("valid").matches(name)
    }

    #[test]
    fn stars_questions_and_sets() {
        assert!(m("*.c", "main.c"));
        assert!(!m("*.c", "main.h"));
        assert!(m("a*b*c", "axxbyyc"));
        assert!(!m("a*b*c", "axxbyy"));
        assert!(m("?.txt", "a.txt"));
        assert!(!m("?.txt", "ab.txt"));
        assert!(m("[abc].rs", "b.rs"));
        assert!(m("[!abc].rs", "d.rs"));
        assert!(!m("[^abc].rs", "a.rs"));
        assert!(m("[a-c]x", "bx"));
        assert!(m("[]]", "]"));
        assert!(m("[[:digit:]]*", "9lives"));
        assert!(m("\\*", "*"));
        assert!(!m("\\*", "a"));
        assert!(m("{a,b}", "{a,b}"), "braces are ordinary characters");
        assert!(m("**", "name"), "** is just two stars");
    }

    #[test]
    fn a_leading_dot_must_be_written() {
        assert!(!m("*", ".env"));
        assert!(!m("?env", ".env"));
        assert!(m(".*", ".env"));
        assert!(m("*", "env"));
    }

    #[test]
    fn unclosed_brackets_and_unknown_classes_are_refused() {
        for bad in ["[unclosed", "[", "[]", "[!]", "a[b", "[[:alpha:]"] {
            assert_eq!(
                Wildcard::parse(bad),
                Err(WildcardError::UnclosedBracket),
                "{bad}"
            );
        }
        assert_eq!(
            Wildcard::parse("[[:nope:]]"),
            Err(WildcardError::UnknownClass)
        );
    }

    #[test]
    fn literal_components_are_recognised() {
        let parse = |p| Wildcard::parse(p).expect("valid");
        assert_eq!(parse("src").literal().as_deref(), Some("src"));
        assert_eq!(parse("a\\*b").literal().as_deref(), Some("a*b"));
        assert_eq!(parse("*.c").literal(), None);
    }
}
