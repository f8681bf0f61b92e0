//! POSIX extended regular expressions (what `regcomp(…, REG_EXTENDED)`
//! accepts) translated into the `regex` crate's syntax.
//!
//! ikigai's grep compiles its pattern with glibc's `regcomp`, so the same
//! pattern must be accepted or refused the same way here, and mean the same
//! thing. The two syntaxes differ in ways that matter:
//!
//! - in a bracket expression a backslash is an ordinary character, `]` first
//!   is a member, and `[`, `&&`, `--` and `~~` have no special meaning;
//! - `a+?` is `a+` made optional, not a lazy `a+`; quantifiers may be stacked;
//! - an unmatched `)` is an ordinary character;
//! - a quantifier with nothing before it (`*a`, `(+a)`, `a|?`, `^*`) is an
//!   error, and so is `{` that does not start a valid interval;
//! - glibc's extensions `\w \W \s \S \b \B \< \> \` \'` are kept, and any
//!   other escaped character stands for itself.
//!
//! Errors carry glibc's `regerror` wording, so `Invalid pattern: <error>`
//! reads as the real program's does. Back-references (`\1`) cannot be
//! expressed with the `regex` crate and are refused with their own message.

use std::fmt;

/// Largest interval count glibc accepts (`RE_DUP_MAX`).
const MAX_REPEAT: u32 = 0x7fff;

/// The POSIX character class names.
const CLASS_NAMES: [&str; 12] = [
    "alnum", "alpha", "blank", "cntrl", "digit", "graph", "lower", "print", "punct", "space",
    "upper", "xdigit",
];

/// Why a pattern is refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum EreError {
    /// glibc's REG_BADPAT, which it gives when the pattern ends right after
    /// a `[` or `[^`, before any member (`regcomp.c` parse_bracket_exp);
    /// a bracket left open later is [`EreError::UnmatchedBracket`].
    BadPattern,
    UnmatchedParen,
    UnmatchedBracket,
    UnmatchedBrace,
    BadInterval,
    BadRepetition,
    TrailingBackslash,
    BadBackReference,
    BackReferenceUnsupported,
    BadRange,
    BadClassName,
    BadCollation,
    TooBig,
}

impl fmt::Display for EreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            EreError::BadPattern => "Invalid regular expression",
            EreError::UnmatchedParen => "Unmatched ( or \\(",
            EreError::UnmatchedBracket => "Unmatched [, [^, [:, [., or [=",
            EreError::UnmatchedBrace => "Unmatched \\{",
            EreError::BadInterval => "Invalid content of \\{\\}",
            EreError::BadRepetition => "Invalid preceding regular expression",
            EreError::TrailingBackslash => "Trailing backslash",
            EreError::BadBackReference => "Invalid back reference",
            EreError::BackReferenceUnsupported => "Back references are not supported",
            EreError::BadRange => "Invalid range end",
            EreError::BadClassName => "Invalid character class name",
            EreError::BadCollation => "Invalid collation character",
            EreError::TooBig => "Regular expression too big",
        })
    }
}

/// Translates an ERE into an equivalent `regex` crate pattern.
pub(crate) fn translate(pattern: &str) -> Result<String, EreError> {
    Translator::new(pattern).run()
}

/// Compiles an ERE; a pattern the `regex` crate then refuses for its size is
/// reported as glibc reports an oversized one.
pub(crate) fn compile(pattern: &str) -> Result<regex::Regex, EreError> {
    let translated = translate(pattern)?;
    regex::Regex::new(&translated).map_err(|_| EreError::TooBig)
}

/// Compiles an ERE that ignores case, as `REG_ICASE` would; upstream does
/// not ask for it, so only the `grep-ignore-case` mutation uses this.
pub(crate) fn compile_ignoring_case(pattern: &str) -> Result<regex::Regex, EreError> {
    let translated = translate(pattern)?;
    regex::RegexBuilder::new(&translated)
        .case_insensitive(true)
        .build()
        .map_err(|_| EreError::TooBig)
}

struct Translator {
    chars: Vec<char>,
    at: usize,
    out: String,
    /// Where in `out` the last quantifiable item starts; `None` right after
    /// the start, `(`, `|` or an anchor, where a quantifier is an error.
    atom: Option<usize>,
    /// Output positions of the groups still open.
    open_groups: Vec<usize>,
    closed_groups: usize,
}

impl Translator {
    fn new(pattern: &str) -> Translator {
        Translator {
            chars: pattern.chars().collect(),
            at: 0,
            out: String::new(),
            atom: None,
            open_groups: Vec::new(),
            closed_groups: 0,
        }
    }

    fn peek(&self) -> Option<char> {
        self.chars.get(self.at).copied()
    }

    fn run(mut self) -> Result<String, EreError> {
        while let Some(c) = self.peek() {
            self.at += 1;
            match c {
                '(' => {
                    self.open_groups.push(self.out.len());
                    self.out.push_str("(?:");
                    self.atom = None;
                }
                ')' => match self.open_groups.pop() {
                    Some(start) => {
                        self.out.push(')');
                        self.closed_groups += 1;
                        self.atom = Some(start);
                    }
                    None => self.literal(')'),
                },
                '|' => {
                    self.out.push('|');
                    self.atom = None;
                }
                '^' | '$' => {
                    self.out.push(c);
                    self.atom = None;
                }
                '.' => self.item("."),
                '*' | '+' | '?' => self.quantify(&c.to_string())?,
                '{' => {
                    let interval = self.interval()?;
                    self.quantify(&interval)?;
                }
                '[' => {
                    let class = self.bracket()?;
                    self.item(&class);
                }
                '\\' => self.escape()?,
                other => self.literal(other),
            }
        }
        if !self.open_groups.is_empty() {
            return Err(EreError::UnmatchedParen);
        }
        Ok(self.out)
    }

    /// Appends a quantifiable item.
    fn item(&mut self, text: &str) {
        self.atom = Some(self.out.len());
        self.out.push_str(text);
    }

    fn literal(&mut self, c: char) {
        self.item(&regex::escape(c.encode_utf8(&mut [0; 4])));
    }

    /// Applies a quantifier to the last item, wrapped in a group so that a
    /// stacked quantifier (`a+?`, `a**`) keeps its POSIX meaning.
    fn quantify(&mut self, quantifier: &str) -> Result<(), EreError> {
        let start = self.atom.ok_or(EreError::BadRepetition)?;
        let operand = self.out.split_off(start);
        self.out.push_str("(?:");
        self.out.push_str(&operand);
        self.out.push(')');
        self.out.push_str(quantifier);
        Ok(())
    }

    /// Reads `m}`, `m,}`, `,n}` or `m,n}` after `{` and returns the `regex`
    /// crate's spelling.
    fn interval(&mut self) -> Result<String, EreError> {
        let mut body = String::new();
        loop {
            match self.peek() {
                None => return Err(EreError::UnmatchedBrace),
                Some('}') => {
                    self.at += 1;
                    break;
                }
                Some(c) if c.is_ascii_digit() || c == ',' => {
                    self.at += 1;
                    body.push(c);
                }
                Some(_) => return Err(EreError::BadInterval),
            }
        }
        if self.atom.is_none() {
            return Err(EreError::BadRepetition);
        }
        let number = |text: &str| -> Result<Option<u32>, EreError> {
            if text.is_empty() {
                return Ok(None);
            }
            match text.parse::<u32>() {
                Ok(n) if n <= MAX_REPEAT => Ok(Some(n)),
                _ => Err(EreError::TooBig),
            }
        };
        let (min, max) = match body.split_once(',') {
            None => {
                let n = number(&body)?.ok_or(EreError::BadInterval)?;
                return Ok(format!("{{{n}}}"));
            }
            Some((_, rest)) if rest.contains(',') => return Err(EreError::BadInterval),
            Some((min, max)) => (number(min)?.unwrap_or(0), number(max)?),
        };
        match max {
            None => Ok(format!("{{{min},}}")),
            Some(max) if max < min => Err(EreError::BadInterval),
            Some(max) => Ok(format!("{{{min},{max}}}")),
        }
    }

    fn escape(&mut self) -> Result<(), EreError> {
        let Some(c) = self.peek() else {
            return Err(EreError::TrailingBackslash);
        };
        self.at += 1;
        match c {
            '1'..='9' => {
                let number = c as usize - '0' as usize;
                if number > self.closed_groups {
                    Err(EreError::BadBackReference)
                } else {
                    Err(EreError::BackReferenceUnsupported)
                }
            }
            'w' | 'W' | 's' | 'S' => {
                self.item(&format!("\\{c}"));
                Ok(())
            }
            'b' | 'B' | '<' | '>' => {
                self.out.push('\\');
                self.out.push(c);
                self.atom = None;
                Ok(())
            }
            '`' => {
                self.out.push_str("\\A");
                self.atom = None;
                Ok(())
            }
            '\'' => {
                self.out.push_str("\\z");
                self.atom = None;
                Ok(())
            }
            other => {
                self.literal(other);
                Ok(())
            }
        }
    }

    /// Reads a bracket expression after `[` and returns it as a `regex`
    /// crate class, every member written as a `\x{…}` escape.
    fn bracket(&mut self) -> Result<String, EreError> {
        let mut class = String::from("[");
        if self.peek() == Some('^') {
            self.at += 1;
            class.push('^');
        }
        if self.peek().is_none() {
            return Err(EreError::BadPattern);
        }
        let mut first = true;
        // Set right after a range, where a further `-` may only be the last member.
        let mut after_range = false;
        loop {
            let c = self.peek().ok_or(EreError::UnmatchedBracket)?;
            if c == ']' && !first {
                self.at += 1;
                break;
            }
            first = false;
            let dash_not_last = |t: &Translator| {
                t.peek() == Some('-') && t.chars.get(t.at + 1).is_some_and(|&n| n != ']')
            };
            if after_range && dash_not_last(self) {
                return Err(EreError::BadRange);
            }
            let start = self.member()?;
            let range_follows = dash_not_last(self);
            if !range_follows {
                after_range = false;
                class.push_str(&start.to_class());
                continue;
            }
            self.at += 1; // the `-`
            let Member::Char(low) = start else {
                return Err(EreError::BadRange);
            };
            let Member::Char(high) = self.member()? else {
                return Err(EreError::BadRange);
            };
            if high < low {
                return Err(EreError::BadRange);
            }
            class.push_str(&format!("{}-{}", hex(low), hex(high)));
            after_range = true;
        }
        class.push(']');
        Ok(class)
    }

    /// One member of a bracket expression: a character (a collating symbol
    /// `[.c.]` is one too), a class `[:name:]` or an equivalence class `[=c=]`.
    fn member(&mut self) -> Result<Member, EreError> {
        let c = self.peek().ok_or(EreError::UnmatchedBracket)?;
        self.at += 1;
        if c != '[' {
            return Ok(Member::Char(c));
        }
        let kind = match self.peek() {
            Some(k @ (':' | '.' | '=')) => k,
            _ => return Ok(Member::Char('[')),
        };
        self.at += 1;
        let name_start = self.at;
        loop {
            match (self.peek(), self.chars.get(self.at + 1)) {
                (None, _) => return Err(EreError::UnmatchedBracket),
                (Some(k), Some(']')) if k == kind => break,
                _ => self.at += 1,
            }
        }
        let name: String = self.chars[name_start..self.at].iter().collect();
        self.at += 2;
        match kind {
            ':' if CLASS_NAMES.contains(&name.as_str()) => Ok(Member::Class(name)),
            ':' => Err(EreError::BadClassName),
            _ => {
                let mut chars = name.chars();
                match (chars.next(), chars.next()) {
                    (Some(only), None) if kind == '.' => Ok(Member::Char(only)),
                    (Some(only), None) => Ok(Member::Equivalence(only)),
                    _ => Err(EreError::BadCollation),
                }
            }
        }
    }
}

enum Member {
    Char(char),
    Class(String),
    /// `[=c=]`: in the C locale, just `c`, but it cannot start a range.
    Equivalence(char),
}

impl Member {
    fn to_class(&self) -> String {
        match self {
            Member::Char(c) | Member::Equivalence(c) => hex(*c),
            Member::Class(name) => format!("[:{name}:]"),
        }
    }
}

fn hex(c: char) -> String {
    format!("\\x{{{:x}}}", c as u32)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn matches(pattern: &str, text: &str) -> bool {
        compile(pattern).expect("valid pattern").is_match(text)
    }

    #[test]
    fn refuses_what_glibc_refuses_with_its_wording() {
        let cases = [
            ("(unclosed", EreError::UnmatchedParen),
            ("(()", EreError::UnmatchedParen),
            ("[", EreError::BadPattern),
            ("x[", EreError::BadPattern),
            ("[^", EreError::BadPattern),
            ("([", EreError::BadPattern),
            ("[a][", EreError::BadPattern),
            ("[unclosed", EreError::UnmatchedBracket),
            ("[a", EreError::UnmatchedBracket),
            ("[[", EreError::UnmatchedBracket),
            ("[^a", EreError::UnmatchedBracket),
            ("[a-", EreError::UnmatchedBracket),
            ("([)", EreError::UnmatchedBracket),
            ("[]", EreError::UnmatchedBracket),
            ("[^]", EreError::UnmatchedBracket),
            ("[[:alpha:]", EreError::UnmatchedBracket),
            ("[[:a]", EreError::UnmatchedBracket),
            ("a{", EreError::UnmatchedBrace),
            ("a{1,2", EreError::UnmatchedBrace),
            ("a{2,1}", EreError::BadInterval),
            ("x{a}", EreError::BadInterval),
            ("a{}", EreError::BadInterval),
            ("a{ 1}", EreError::BadInterval),
            ("*a", EreError::BadRepetition),
            ("+a", EreError::BadRepetition),
            ("?", EreError::BadRepetition),
            ("{1}", EreError::BadRepetition),
            ("(*a)", EreError::BadRepetition),
            ("a|*b", EreError::BadRepetition),
            ("^*", EreError::BadRepetition),
            ("\\b*", EreError::BadRepetition),
            ("a\\", EreError::TrailingBackslash),
            ("\\1", EreError::BadBackReference),
            ("(a)\\1", EreError::BackReferenceUnsupported),
            ("[z-a]", EreError::BadRange),
            ("[a-c-e]", EreError::BadRange),
            ("[a-\\]", EreError::BadRange),
            ("[[:alpha:]-z]", EreError::BadRange),
            ("[[=a=]-z]", EreError::BadRange),
            ("[[:foo:]]", EreError::BadClassName),
            ("[[.hyphen.]]", EreError::BadCollation),
            ("a{32768}", EreError::TooBig),
        ];
        for (pattern, expected) in cases {
            assert_eq!(translate(pattern), Err(expected), "{pattern}");
        }
        assert_eq!(
            EreError::UnmatchedParen.to_string(),
            "Unmatched ( or \\(",
            "glibc's regerror text"
        );
    }

    #[test]
    fn brackets_follow_posix_not_the_regex_crate() {
        assert!(matches("[]a]", "]"));
        assert!(matches("[^]a]", "b"));
        assert!(!matches("[^]a]", "]"));
        assert!(matches("[a-]", "-"));
        assert!(matches("[\\]", "\\"), "a backslash is a member");
        assert!(!matches("[\\]", "]"));
        assert!(matches("[[a]", "["));
        assert!(matches("[a&&b]", "&"));
        assert!(matches("[--z]", "a"));
        assert!(matches("[%--]", "+"));
        assert!(matches("[[:upper:][:digit:]]", "7"));
        assert!(!matches("[[:upper:][:digit:]]", "a"));
        assert!(matches("[[.-.]-z]", "a"));
        assert!(matches("[[=a=]]", "a"));
        assert!(matches("[é-ü]", "ö"));
    }

    #[test]
    fn quantifiers_and_groups_keep_their_posix_meaning() {
        assert!(matches("^a+?$", ""), "a+? is (a+)?");
        assert!(matches("^a**$", "aaa"));
        assert!(matches("^a{1}{2}$", "aa"));
        assert!(!matches("^a{1}{2}$", "a"));
        assert!(matches("^a{,2}$", "aa"));
        assert!(!matches("^a{,2}$", "aaa"));
        assert!(matches("^x{2,}$", "xxxx"));
        assert!(matches("a)", "a)"), "an unmatched ) is literal");
        assert!(matches("^()*$", ""));
        assert!(matches("a||b", "b"));
        assert!(matches("^(ab|cd)+$", "abcdab"));
        assert!(matches("\\.", "."));
        assert!(!matches("\\.", "x"));
        assert!(matches("\\d", "d"), "an escaped letter stands for itself");
        assert!(matches("x\\{", "x{"));
    }

    #[test]
    fn gnu_extensions_are_kept() {
        assert!(matches("\\<foo\\>", "a foo b"));
        assert!(!matches("\\<foo\\>", "afoob"));
        assert!(matches("\\bfoo\\b", "foo"));
        assert!(matches("^\\w+\\s\\S$", "ab c"));
        assert!(matches("\\`a", "ab"));
        assert!(matches("b\\'", "ab"));
    }
}
