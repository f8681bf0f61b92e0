//! `.gitignore` as Boris 1.0.0's grep and glob read it, which is not quite as
//! git reads it. The seed is silent on ignore files; the boris suite pins
//! Boris's reading (`specs/boris/gitignore.yaml`), so the reference follows it
//! rule for rule:
//!
//! - Only the `.gitignore` of the searched folder and of the folders below it
//!   count, each for what lies below it; one above the searched folder does not
//!   (git would read it). No `.git` folder is needed.
//! - Each line is trimmed of white space; an empty line or one starting with
//!   `#` is nothing. A leading `!` negates the line and one trailing `/` makes
//!   it match folders only; the rest is turned into a regular expression on
//!   its own, by the steps of [`line_regex`] (those of the Go package
//!   `github.com/sabhiram/go-gitignore` that Boris compiles each line with).
//! - An entry is matched against every line of every level, outermost level
//!   first, by its path relative to that level's folder; the last line that
//!   matches decides. A hidden folder is not walked, so nothing below it can be
//!   brought back.
//!
//! Where that reading departs from git's (a pattern with an inner slash but no
//! `*.` after it matches at any depth; `?` is a literal question mark; other
//! regular-expression characters keep their meaning), the reference departs
//! with it. The translation runs on Rust's `regex`, whose syntax agrees with
//! Go's RE2 on everything the steps produce; a line neither can compile is
//! nothing in both.

use std::borrow::Cow;
use std::path::Path;

use regex::Regex;

use crate::engine::paths::PathPolicy;
use crate::engine::search::Prune;

/// The name of the ignore file read in each folder.
const IGNORE_FILE: &str = ".gitignore";

/// Boris reads an ignore file with Go's line scanner, which gives up at a line
/// of this many bytes or more: the lines before it count, the rest do not.
const LONGEST_LINE: usize = 64 * 1024;

/// Stands for a `*` that the steps must not turn into `([^/]*)`; the library's
/// own marker, so a line that holds it literally is read as Boris reads it.
const KEPT_STAR: &str = "#$~";

/// One line of an ignore file.
#[derive(Debug)]
struct Rule {
    regex: Regex,
    negated: bool,
    folders_only: bool,
}

/// The lines of one folder's ignore file.
#[derive(Debug)]
struct Level {
    /// The folder, relative to the search root (`""` for the root).
    folder: String,
    /// For a folder above the search root (read only by the
    /// `gitignore-reads-parents` mutation): the search root relative to it.
    above: String,
    rules: Vec<Rule>,
}

impl Level {
    /// `path` (relative to the search root) relative to this level's folder,
    /// or `None` when it is not below it.
    fn inside<'a>(&self, path: &'a str) -> Option<Cow<'a, str>> {
        if !self.above.is_empty() {
            return Some(Cow::Owned(format!("{}/{path}", self.above)));
        }
        if self.folder.is_empty() {
            return Some(Cow::Borrowed(path));
        }
        let inside = path.strip_prefix(self.folder.as_str())?.strip_prefix('/')?;
        Some(Cow::Borrowed(inside))
    }
}

/// The ignore files of the folders from the search root down to the one the
/// walk is in: the [`Prune`] of boris's grep and glob.
#[derive(Debug, Default)]
pub(super) struct GitignoreStack {
    levels: Vec<Level>,
    reading: Reading,
    /// For [`Reading::OnlyInRepository`]: whether the search root is inside
    /// a repository.
    obeyed: bool,
}

/// How the stack reads ignore files: as Boris does, or as one of the
/// deliberate deviations of the mutation catalogue.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(super) enum Reading {
    #[default]
    AsBoris,
    /// Nothing is hidden.
    NotAtAll,
    /// `!` lines are dropped instead of bringing entries back.
    WithoutNegation,
    /// Only the search root's own ignore file counts.
    RootOnly,
    /// A trailing `/` is dropped, so a folder pattern hides files too.
    FolderPatternsHideFiles,
    /// Every pattern with a slash before its end is anchored at its folder.
    AnchoredAsGit,
    /// The ignore files of the folders above the search root (up to the
    /// fixture root) count too, as in git.
    WithParents,
    /// Ignore files count only inside a repository: a `.git` folder in the
    /// search root or above it (up to the fixture root).
    OnlyInRepository,
}

impl GitignoreStack {
    pub(super) fn new(reading: Reading) -> GitignoreStack {
        GitignoreStack {
            levels: Vec::new(),
            reading,
            obeyed: true,
        }
    }

    /// The rules of `dir`'s ignore file; one that cannot be read (none, a
    /// folder, a link leading out of the root) hides nothing, as in Boris.
    fn read(&self, policy: &PathPolicy, dir: &Path) -> Vec<Rule> {
        policy
            .read(&dir.join(IGNORE_FILE))
            .map(|bytes| parse(&bytes, self.reading))
            .unwrap_or_default()
    }

    /// The folders from the fixture root down to the search root's parent,
    /// each with the search root relative to it, outermost first.
    fn folders_above<'a>(policy: &PathPolicy, dir: &'a Path) -> Vec<(&'a Path, String)> {
        let mut above = Vec::new();
        let mut below = Vec::new();
        let mut current = dir;
        while current != policy.root() {
            let (Some(parent), Some(name)) = (current.parent(), current.file_name()) else {
                break;
            };
            if !parent.starts_with(policy.root()) {
                break;
            }
            below.insert(0, name.to_string_lossy().into_owned());
            above.push((parent, below.join("/")));
            current = parent;
        }
        above.reverse();
        above
    }

    /// Whether a `.git` folder stands in `dir` or above it, up to the
    /// fixture root.
    fn in_repository(policy: &PathPolicy, dir: &Path) -> bool {
        std::iter::once(dir)
            .chain(Self::folders_above(policy, dir).into_iter().map(|(f, _)| f))
            .any(|folder| policy.stat(&folder.join(".git")).is_ok_and(|m| m.is_dir()))
    }
}

impl Prune for GitignoreStack {
    fn enter(&mut self, policy: &PathPolicy, dir: &Path, relative: &str) {
        let at_search_root = self.levels.is_empty();
        if at_search_root && self.reading == Reading::WithParents {
            for (folder, above) in Self::folders_above(policy, dir) {
                let rules = self.read(policy, folder);
                self.levels.push(Level {
                    folder: String::new(),
                    above,
                    rules,
                });
            }
        }
        if at_search_root && self.reading == Reading::OnlyInRepository {
            self.obeyed = Self::in_repository(policy, dir);
        }
        let wanted = match self.reading {
            Reading::NotAtAll => false,
            Reading::RootOnly => at_search_root,
            Reading::OnlyInRepository => self.obeyed,
            _ => true,
        };
        let rules = if wanted {
            self.read(policy, dir)
        } else {
            Vec::new()
        };
        self.levels.push(Level {
            folder: relative.to_string(),
            above: String::new(),
            rules,
        });
    }

    fn leave(&mut self) {
        self.levels.pop();
    }

    fn prunes(&self, relative: &str, is_dir: bool) -> bool {
        let mut hidden = false;
        for level in &self.levels {
            let Some(inside) = level.inside(relative) else {
                continue;
            };
            for rule in &level.rules {
                if rule.folders_only && !is_dir {
                    continue;
                }
                if rule.regex.is_match(&inside) {
                    hidden = !rule.negated;
                }
            }
        }
        hidden
    }
}

/// The rules of an ignore file's bytes.
fn parse(bytes: &[u8], reading: Reading) -> Vec<Rule> {
    let text = String::from_utf8_lossy(bytes);
    let mut rules = Vec::new();
    for line in scanned_lines(&text) {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let (negated, line) = match line.strip_prefix('!') {
            Some(rest) => (true, rest),
            None => (false, line),
        };
        if negated && reading == Reading::WithoutNegation {
            continue;
        }
        let (folders_only, line) = match line.strip_suffix('/') {
            Some(rest) => (reading != Reading::FolderPatternsHideFiles, rest),
            None => (false, line),
        };
        let git_anchored = reading == Reading::AnchoredAsGit && line.contains('/');
        let anchored;
        let line = if git_anchored && !line.starts_with('/') {
            anchored = format!("/{line}");
            anchored.as_str()
        } else {
            line
        };
        if let Some(regex) = line_regex(line) {
            rules.push(Rule {
                regex,
                negated,
                folders_only,
            });
        }
    }
    rules
}

/// The lines Go's line scanner yields: split at `\n`, a `\r` before it
/// dropped, a last line without `\n` kept when it is not empty, and nothing
/// from the first line of [`LONGEST_LINE`] bytes on.
fn scanned_lines(text: &str) -> Vec<&str> {
    let mut lines = Vec::new();
    let mut rest = text;
    while !rest.is_empty() {
        let (line, after) = match rest.split_once('\n') {
            Some((line, after)) => (line, after),
            None => (rest, ""),
        };
        if line.len() >= LONGEST_LINE {
            break;
        }
        lines.push(line.strip_suffix('\r').unwrap_or(line));
        rest = after;
    }
    lines
}

/// The regular expression one line becomes once Boris has taken its `!` and
/// trailing `/` off, or `None` where it becomes none: a comment, an empty
/// pattern, a second `!` (a negated pattern alone in its matcher never
/// matches), or a pattern that does not compile.
fn line_regex(line: &str) -> Option<Regex> {
    let line = line.trim_end_matches('\r');
    if line.starts_with('#') {
        return None;
    }
    let line = line.trim_matches(' ');
    if line.is_empty() || line.starts_with('!') {
        return None;
    }
    let mut pattern = line.to_string();
    // A folder name, a slash and later a `*.` anchor the pattern at the
    // ignore file's folder; any other pattern matches at any depth.
    if !pattern.starts_with('/') && anchors_at_its_folder(&pattern) {
        pattern.insert(0, '/');
    }
    pattern = pattern.replace('.', r"\.");
    if pattern.starts_with("/**/") {
        pattern.remove(0);
    }
    pattern = pattern.replace("/**/", "(/|/.+/)");
    pattern = pattern.replace("**/", &format!("(|.{KEPT_STAR}/)"));
    pattern = pattern.replace("/**", &format!("(|/.{KEPT_STAR})"));
    pattern = pattern.replace(r"\*", &format!(r"\{KEPT_STAR}"));
    pattern = pattern.replace('*', "([^/]*)");
    pattern = pattern.replace('?', r"\?");
    pattern = pattern.replace(KEPT_STAR, "*");
    let tail = if pattern.ends_with('/') {
        "(|.*)$"
    } else {
        "(|/.*)$"
    };
    let expression = match pattern.strip_prefix('/') {
        Some(anchored) => format!("^(|/){anchored}{tail}"),
        None => format!("^(|.*/){pattern}{tail}"),
    };
    Regex::new(&expression).ok()
}

/// Whether some character other than `/` and `+` is followed by a `/`, with a
/// `*` directly followed by a `.` somewhere after that slash.
fn anchors_at_its_folder(pattern: &str) -> bool {
    let mut chars = pattern.char_indices().peekable();
    while let Some((_, c)) = chars.next() {
        if c == '/' || c == '+' {
            continue;
        }
        if let Some(&(at, '/')) = chars.peek() {
            if pattern[at + 1..].contains("*.") {
                return true;
            }
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hides(lines: &str, path: &str, is_dir: bool) -> bool {
        let mut stack = GitignoreStack::new(Reading::AsBoris);
        stack.levels.push(Level {
            folder: String::new(),
            above: String::new(),
            rules: parse(lines.as_bytes(), Reading::AsBoris),
        });
        stack.prunes(path, is_dir)
    }

    #[test]
    fn a_name_matches_at_any_depth_and_a_leading_slash_anchors_it() {
        assert!(hides("*.log\n", "a.log", false));
        assert!(hides("*.log\n", "deep/er/a.log", false));
        assert!(!hides("*.log\n", "a.logx", false));
        assert!(hides("/top.txt\n", "top.txt", false));
        assert!(!hides("/top.txt\n", "sub/top.txt", false));
    }

    #[test]
    fn the_last_matching_line_decides_and_negation_brings_back() {
        assert!(!hides("*.log\n!keep.log\n", "keep.log", false));
        assert!(hides("*.log\n!keep.log\n", "drop.log", false));
        assert!(hides("!keep.log\n*.log\n", "keep.log", false));
    }

    #[test]
    fn a_trailing_slash_matches_folders_only() {
        assert!(hides("build/\n", "build", true));
        assert!(!hides("build/\n", "build", false));
        assert!(hides("build/\n", "sub/build", true));
    }

    #[test]
    fn an_inner_slash_anchors_only_before_a_star_dot() {
        // `docs/*.md` is anchored, as in git.
        assert!(hides("docs/*.md\n", "docs/a.md", false));
        assert!(!hides("docs/*.md\n", "sub/docs/a.md", false));
        // `docs/notes.txt` has no `*.` after its slash: Boris matches it at
        // any depth, where git would anchor it.
        assert!(hides("docs/notes.txt\n", "docs/notes.txt", false));
        assert!(hides("docs/notes.txt\n", "sub/docs/notes.txt", false));
    }

    #[test]
    fn double_stars_cross_folders() {
        assert!(hides("**/gen\n", "gen", true));
        assert!(hides("**/gen\n", "a/b/gen", true));
        assert!(hides("a/**/z.txt\n", "a/z.txt", false));
        assert!(hides("a/**/z.txt\n", "a/b/c/z.txt", false));
        assert!(hides("out/**\n", "out/x/y", false));
    }

    #[test]
    fn question_marks_are_literal_and_classes_are_classes() {
        assert!(!hides("a?.txt\n", "ab.txt", false));
        assert!(hides("a?.txt\n", "a?.txt", false));
        assert!(hides("[ab].txt\n", "b.txt", false));
        assert!(!hides("[ab].txt\n", "c.txt", false));
    }

    #[test]
    fn comments_blanks_and_spaces_are_nothing() {
        assert!(!hides("# a.txt\n\n   \n", "a.txt", false));
        assert!(hides("  a.txt  \r\n", "a.txt", false));
        assert!(!hides("!!a.txt\n", "a.txt", false), "a lone second `!`");
        assert!(!hides("!#a.txt\n", "a.txt", false));
        assert!(!hides("a(\n", "a(", false), "does not compile");
    }

    #[test]
    fn the_lines_stop_at_one_of_64_kib() {
        let long = "x".repeat(LONGEST_LINE);
        let text = format!("a.txt\n{long}\nb.txt\n");
        assert!(hides(&text, "a.txt", false));
        assert!(!hides(&text, "b.txt", false));
        let short = "x".repeat(LONGEST_LINE - 1);
        assert!(hides(&format!("{short}\nb.txt"), "b.txt", false));
    }

    #[test]
    fn a_lower_level_counts_for_its_own_folder_and_later_levels_win() {
        let mut stack = GitignoreStack::new(Reading::AsBoris);
        stack.levels.push(Level {
            folder: String::new(),
            above: String::new(),
            rules: parse(b"*.log\n", Reading::AsBoris),
        });
        stack.levels.push(Level {
            folder: "sub".to_string(),
            above: String::new(),
            rules: parse(b"!keep.log\n/only.txt\n", Reading::AsBoris),
        });
        assert!(!stack.prunes("sub/keep.log", false));
        assert!(stack.prunes("keep.log", false), "sub's `!` is not the root's");
        assert!(stack.prunes("sub/only.txt", false));
        assert!(!stack.prunes("only.txt", false));
        assert!(!stack.prunes("subway/only.txt", false));
    }

    #[test]
    fn the_deviant_readings_deviate() {
        assert!(parse(b"!a\n", Reading::WithoutNegation).is_empty());
        let rules = parse(b"build/\n", Reading::FolderPatternsHideFiles);
        assert!(!rules[0].folders_only);
    }
}
