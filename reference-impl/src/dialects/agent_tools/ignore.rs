//! `.gitignore` as v0.1.0 reads it (src/lib/ignore.ts, with the `ignore`
//! package 7.0.5), which is close to git but not git:
//!
//! - `.git`, `.clarvis` and `.clarvis-tmp-*` are always ignored, and so is
//!   anything with a `.git` folder on its path.
//! - The `.gitignore` of the root and of every folder down to a file's own
//!   are read, outermost first, each for the file's path relative to its
//!   folder; the last one that ignores or brings back the file decides. So a
//!   deeper file can bring back what an outer one ignored, folder or not.
//! - Within one file, the path's folders are tried first (`a/`, `a/b/`): an
//!   ignored folder ignores everything below it; otherwise the last line that
//!   matches the path decides, a `!` line bringing it back.
//! - Each line becomes a regular expression by the package's own steps
//!   ([`line_regex`]), matched with case ignored.
//!
//! Only files are judged (v0.1.0 lists every file, then drops the ignored
//! ones), so nothing here prunes a walk.

use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::LazyLock;

use regex::{Regex, RegexBuilder};

use crate::dialects::Context;
use std::path::Path;

/// The name of the ignore file read in each folder.
const IGNORE_FILE: &str = ".gitignore";

/// Lines every reading starts with (src/lib/ignore.ts:48).
const ALWAYS: &str = ".git\n.clarvis\n.clarvis-tmp-*";

/// The ignore files of one walk, each read once.
pub(super) struct Ignores<'a> {
    ctx: &'a Context,
    always: Rules,
    /// Each folder's rules by its path relative to the root (`""` for it).
    folders: RefCell<HashMap<String, Option<Rules>>>,
}

impl<'a> Ignores<'a> {
    pub(super) fn new(ctx: &'a Context) -> Ignores<'a> {
        Ignores {
            ctx,
            always: Rules::parse(ALWAYS),
            folders: RefCell::new(HashMap::new()),
        }
    }

    /// Whether the file at `relative` (to the root, `/`-separated) is ignored.
    pub(super) fn ignores(&self, relative: &str) -> bool {
        if relative.is_empty() || relative == "." {
            return false;
        }
        if relative.split('/').any(|step| step == ".git") {
            return true;
        }
        let mut decision = self.always.decide(relative, None);
        let steps: Vec<&str> = relative.split('/').collect();
        for depth in 0..steps.len() {
            let folder = steps[..depth].join("/");
            let below = steps[depth..].join("/");
            self.with_rules(&folder, |rules| decision = rules.decide(&below, decision));
        }
        decision == Some(true)
    }

    /// Runs `f` on the rules of `folder`'s ignore file, if it has one.
    fn with_rules(&self, folder: &str, f: impl FnOnce(&Rules)) {
        let mut folders = self.folders.borrow_mut();
        let rules = folders.entry(folder.to_string()).or_insert_with(|| {
            let file = self.ctx.policy.root().join(folder).join(IGNORE_FILE);
            let bytes = self.ctx.policy.read(Path::new(&file)).ok()?;
            Some(Rules::parse(&String::from_utf8_lossy(&bytes)))
        });
        if let Some(rules) = rules {
            f(rules);
        }
    }
}

/// One ignore file's lines, in order.
struct Rules {
    lines: Vec<Line>,
}

struct Line {
    negative: bool,
    regex: Regex,
}

/// What one file's lines say of a path.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
struct Verdict {
    ignored: bool,
    unignored: bool,
}

impl Rules {
    fn parse(text: &str) -> Rules {
        let lines = text
            .split('\n')
            .map(|line| line.strip_suffix('\r').unwrap_or(line))
            .filter(|line| usable(line))
            .filter_map(|line| {
                let (negative, body) = match line.strip_prefix('!') {
                    Some(rest) => (true, rest),
                    None => (false, line),
                };
                let body = match body.strip_prefix("\\!").or_else(|| body.strip_prefix("\\#")) {
                    Some(rest) => format!("{}{rest}", &body[1..2]),
                    None => body.to_string(),
                };
                let regex = RegexBuilder::new(&for_regex_crate(&line_regex(&body)))
                    .case_insensitive(true)
                    .build()
                    .ok()?;
                Some(Line { negative, regex })
            })
            .collect();
        Rules { lines }
    }

    /// `current` after these rules have looked at `path` (src/lib/ignore.ts:83-89).
    fn decide(&self, path: &str, current: Option<bool>) -> Option<bool> {
        if path.is_empty() || path.starts_with("../") {
            return current;
        }
        let verdict = self.test(path);
        if verdict.ignored {
            Some(true)
        } else if verdict.unignored {
            Some(false)
        } else {
            current
        }
    }

    /// The package's `test`: the path's folders first, outermost first; an
    /// ignored one decides for everything below it.
    fn test(&self, path: &str) -> Verdict {
        let steps: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
        for depth in 1..steps.len() {
            let folder = format!("{}/", steps[..depth].join("/"));
            let verdict = self.test_one(&folder);
            if verdict.ignored {
                return verdict;
            }
        }
        self.test_one(path)
    }

    /// The lines on one path: the last that matches decides, a line that
    /// could not change the answer being skipped.
    fn test_one(&self, path: &str) -> Verdict {
        let mut verdict = Verdict::default();
        for line in &self.lines {
            if verdict.unignored == line.negative && verdict.ignored != verdict.unignored {
                continue;
            }
            if line.regex.is_match(path) {
                verdict = Verdict {
                    ignored: !line.negative,
                    unignored: line.negative,
                };
            }
        }
        verdict
    }
}

/// Whether a line is a pattern at all: not empty, not blank, not a comment,
/// not ending in a lone backslash.
fn usable(line: &str) -> bool {
    !line.is_empty()
        && !line.chars().all(char::is_whitespace)
        && !line.starts_with('#')
        && !ends_with_lone_backslash(line)
}

fn ends_with_lone_backslash(line: &str) -> bool {
    let bytes = line.as_bytes();
    bytes.last() == Some(&b'\\') && (bytes.len() == 1 || bytes[bytes.len() - 2] != b'\\')
}

/// The regular expression the package makes of one line (its `REPLACERS`
/// in order, then the trailing-wildcard step of `_make`), in JavaScript's
/// syntax; [`for_regex_crate`] spells it for the regex crate.
fn line_regex(pattern: &str) -> String {
    let mut s = pattern.strip_prefix('\u{feff}').unwrap_or(pattern).to_string();
    s = trailing_spaces(&s);
    s = escaped_spaces(&s);
    s = escape_specials(&s);
    s = s.replace('?', "[^/]");
    if let Some(rest) = s.strip_prefix('/') {
        s = format!("^{rest}");
    }
    s = s.replace('/', "\\/");
    s = leading_double_star(&s);
    if !s.is_empty() && !s.starts_with('^') {
        // A `/` anywhere but at the very end anchors the line at its folder.
        let inner_slash = pattern
            .char_indices()
            .any(|(i, c)| c == '/' && i + 1 < pattern.len());
        s = format!("{}{s}", if inner_slash { "^" } else { "(?:^|\\/)" });
    }
    s = middle_double_stars(&s);
    s = inner_stars(&s);
    s = escaped_escapes(&s);
    s = s.replace("\\\\", "\\");
    s = brackets(&s);
    s = ending(&s);
    trailing_wildcard(&s)
}

/// The package's own patterns for its steps, compiled once.
fn constant(pattern: &str) -> Regex {
    Regex::new(pattern).expect("a constant pattern compiles")
}

static TRAILING_SPACES: LazyLock<Regex> = LazyLock::new(|| constant(r"((?:\\\\)*?)(\\?\s+)$"));
static ESCAPED_SPACES: LazyLock<Regex> = LazyLock::new(|| constant(r"(\\+?)\s"));
static LEADING_DOUBLE_STAR: LazyLock<Regex> = LazyLock::new(|| constant(r"^\^*\\\*\\\*\\/"));
static ESCAPED_ESCAPES: LazyLock<Regex> = LazyLock::new(|| constant(r"\\\\\\([$.|*+(){^])"));
static BRACKETS: LazyLock<Regex> = LazyLock::new(|| constant(r"(\\)?\[([^\]/]*?)(\\*)($|\])"));
static RANGES: LazyLock<Regex> = LazyLock::new(|| constant(r"([0-z])-([0-z])"));

/// Spaces at the end are dropped, unless the last is escaped.
fn trailing_spaces(s: &str) -> String {
    TRAILING_SPACES.replace(s, |c: &regex::Captures| {
        let kept = if c[2].starts_with('\\') { " " } else { "" };
        format!("{}{kept}", &c[1])
    })
    .into_owned()
}

/// A space after backslashes: the escaping one dropped.
fn escaped_spaces(s: &str) -> String {
    ESCAPED_SPACES.replace_all(s, |c: &regex::Captures| {
        let n = c[1].len();
        format!("{} ", &c[1][..n - n % 2])
    })
    .into_owned()
}

fn escape_specials(s: &str) -> String {
    let mut out = String::with_capacity(s.len() * 2);
    for c in s.chars() {
        if matches!(c, '\\' | '$' | '.' | '|' | '*' | '+' | '(' | ')' | '{' | '^') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// A leading `**/` (after any `^`) matches any folders or none.
fn leading_double_star(s: &str) -> String {
    LEADING_DOUBLE_STAR.replace(s, "^(?:.*\\/)?").into_owned()
}

/// `/**` before a `/` or at the end: any folders between, or everything below.
fn middle_double_stars(s: &str) -> String {
    const TOKEN: &str = "\\/\\*\\*";
    let mut out = String::with_capacity(s.len());
    let mut at = 0;
    while let Some(found) = s[at..].find(TOKEN) {
        let start = at + found;
        let end = start + TOKEN.len();
        let rest = &s[end..];
        if rest.is_empty() || rest.starts_with("\\/") {
            out.push_str(&s[at..start]);
            out.push_str(if start + 6 < s.len() {
                "(?:\\/[^\\/]+)*"
            } else {
                "\\/.+"
            });
        } else {
            out.push_str(&s[at..end]);
        }
        at = end;
    }
    out.push_str(&s[at..]);
    out
}

/// A run of `*` not at the very end, after a character that is not a
/// backslash: each any text within one folder.
fn inner_stars(s: &str) -> String {
    const STAR: &str = "\\*";
    let bytes = s.as_bytes();
    let mut out = String::with_capacity(s.len() * 2);
    let mut at = 0;
    while at < s.len() {
        if s[at..].starts_with(STAR) && (at == 0 || bytes[at - 1] != b'\\') {
            let mut end = at;
            while s[end..].starts_with(STAR) {
                end += STAR.len();
            }
            let stars = (end - at) / STAR.len();
            let replaced = if end == s.len() { stars - 1 } else { stars };
            for _ in 0..replaced {
                out.push_str("[^\\/]*");
            }
            for _ in replaced..stars {
                out.push_str(STAR);
            }
            at = end;
            continue;
        }
        let c = s[at..].chars().next().unwrap_or_default();
        out.push(c);
        at += c.len_utf8();
    }
    out
}

/// An escaped backslash before an escaped special character: the special
/// character, escaped once.
fn escaped_escapes(s: &str) -> String {
    ESCAPED_ESCAPES.replace_all(s, "\\$1").into_owned()
}

/// Bracket expressions: kept when closed (backwards ranges dropped), a class
/// that never matches when not.
fn brackets(s: &str) -> String {
    BRACKETS.replace_all(s, |c: &regex::Captures| {
        let lead = c.get(1).is_some();
        let range = &c[2];
        let end_escape = &c[3];
        let close = &c[4];
        if lead {
            let kept = &end_escape[..end_escape.len() - end_escape.len() % 2];
            format!("\\[{range}{kept}{close}")
        } else if close == "]" && end_escape.len().is_multiple_of(2) {
            format!("[{}{end_escape}]", sane_ranges(range))
        } else {
            "[]".to_string()
        }
    })
    .into_owned()
}

/// A range whose ends are backwards is dropped.
fn sane_ranges(range: &str) -> String {
    RANGES.replace_all(range, |c: &regex::Captures| {
        if c[1] <= c[2] {
            c[0].to_string()
        } else {
            String::new()
        }
    })
    .into_owned()
}

/// The end: a folder pattern (ending in `/`) ends there; anything else may
/// be followed by a `/` (a folder tried as `a/`).
fn ending(s: &str) -> String {
    match s.chars().last() {
        Some('*') | None => s.to_string(),
        Some('/') => format!("{s}$"),
        Some(_) => format!("{s}(?=$|\\/$)"),
    }
}

/// A `*` left at the very end: one folder's name at least, after a `/`.
fn trailing_wildcard(s: &str) -> String {
    let Some(head) = s.strip_suffix("\\*") else {
        return s.to_string();
    };
    match head.strip_suffix("\\/") {
        Some(before) => format!("{before}\\/[^/]+(?=$|\\/$)"),
        None => format!("{head}[^/]*(?=$|\\/$)"),
    }
}

/// The JavaScript regular expression spelled for the regex crate: the final
/// look-ahead made a plain group (it ends the pattern, so matching it or
/// looking at it is the same), `[]` (nothing) a class of nothing, and a `[`,
/// `&`, `~` inside a class escaped (the regex crate reads them as operators).
fn for_regex_crate(js: &str) -> String {
    let js = js.replace("(?=$|\\/$)", "(?:$|\\/$)");
    let mut out = String::with_capacity(js.len() + 8);
    let mut in_class = false;
    let mut chars = js.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                out.push(c);
                if let Some(next) = chars.next() {
                    out.push(next);
                }
            }
            '[' if !in_class => {
                if chars.peek() == Some(&']') {
                    chars.next();
                    out.push_str("[^\\x00-\\x{10FFFF}]");
                } else {
                    in_class = true;
                    out.push(c);
                }
            }
            '[' | '&' | '~' if in_class => {
                out.push('\\');
                out.push(c);
            }
            ']' if in_class => {
                in_class = false;
                out.push(c);
            }
            _ => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The package's own regular expressions for these lines, as `ignore`
    /// 7.0.5 makes them (read from a run of it).
    #[test]
    fn lines_become_the_packages_regular_expressions() {
        for (line, js) in [
            ("*.txt", r"(?:^|\/)[^\/]*\.txt(?=$|\/$)"),
            ("src/", r"(?:^|\/)src\/$"),
            ("/logs", r"^logs(?=$|\/$)"),
            ("docs/readme.md", r"^docs\/readme\.md(?=$|\/$)"),
            ("**/*.rs", r"^(?:.*\/)?[^\/]*\.rs(?=$|\/$)"),
            ("a/**", r"^a\/.+(?=$|\/$)"),
            ("a/**/b", r"^a(?:\/[^\/]+)*\/b(?=$|\/$)"),
            ("x?y", r"(?:^|\/)x[^\/]y(?=$|\/$)"),
            ("[ab].txt", r"(?:^|\/)[ab]\.txt(?=$|\/$)"),
            ("foo\\ ", r"(?:^|\/)foo (?=$|\/$)"),
            ("*", r"(?:^|\/)[^/]*(?=$|\/$)"),
            ("src/*", r"^src\/[^/]+(?=$|\/$)"),
            (".hidden*", r"(?:^|\/)\.hidden[^/]*(?=$|\/$)"),
            ("[z-a].txt", r"(?:^|\/)[]\.txt(?=$|\/$)"),
            ("[", r"(?:^|\/)[](?=$|\/$)"),
        ] {
            assert_eq!(line_regex(line), js, "{line}");
        }
    }

    fn verdict(lines: &str, path: &str) -> (bool, bool) {
        let v = Rules::parse(lines).test(path);
        (v.ignored, v.unignored)
    }

    #[test]
    fn paths_are_judged_as_the_package_judges_them() {
        assert_eq!(verdict("*.txt", "src/A.TXT"), (true, false));
        assert_eq!(verdict("*.txt", "a.txtx"), (false, false));
        assert_eq!(verdict("src/", "src"), (false, false));
        assert_eq!(verdict("src/", "x/src/a"), (true, false));
        assert_eq!(verdict("/logs", "x/logs/a"), (false, false));
        assert_eq!(verdict("deep/util.py", "src/deep/util.py"), (false, false));
        assert_eq!(verdict("a/**", "a"), (false, false));
        assert_eq!(verdict("a/**", "a/b"), (true, false));
        assert_eq!(verdict("[", "["), (false, false));
        assert_eq!(verdict("b.md\n!b.md\n", "b.md"), (false, true));
        assert_eq!(verdict("src/\n!src/a.rs\n", "src/a.rs"), (true, false));
        assert_eq!(verdict("# note\n\n   \n\\#x\n", "#x"), (true, false));
    }
}
