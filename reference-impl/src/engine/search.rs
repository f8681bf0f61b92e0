//! Content search (regex over lines or whole files) and name search (glob).
//!
//! Both walk directories in sorted order, so results are deterministic, skip
//! `.git` and `node_modules` (as the upstream servers do), never follow
//! symlinks to directories (no loops, no escaping the tree), and silently
//! skip entries the path policy refuses (a symlink to a file is followed only
//! where the policy allows its target). Every directory is listed and every
//! file read through the policy's confined handles. A name that is not UTF-8
//! is walked under its real bytes and shown as [`display_name`] renders it.

use std::path::{Path, PathBuf};
use std::time::SystemTime;

use globset::{GlobBuilder, GlobMatcher, GlobSet, GlobSetBuilder};
use regex::{Regex, RegexBuilder};

use super::error::EngineError;
use super::files;
use super::names::display_name;
use super::paths::PathPolicy;

/// Directory names never descended into.
const SKIPPED_DIRS: [&str; 2] = [".git", "node_modules"];
/// Bytes inspected for a NUL to decide that a file is binary (and skip it).
const BINARY_SNIFF_BYTES: usize = 512;

/// An entry found by [`walk`].
#[derive(Debug, Clone)]
pub(crate) struct WalkEntry {
    /// Absolute path (under the real search root).
    pub(crate) path: PathBuf,
    /// Path relative to the search root, `/`-separated.
    pub(crate) relative: String,
    pub(crate) is_dir: bool,
    pub(crate) modified: Option<SystemTime>,
}

/// Depth-first walk of `root` in name order, yielding files and directories
/// (not `root` itself). Unreadable directories are skipped.
pub(crate) fn walk(policy: &PathPolicy, root: &Path) -> Vec<WalkEntry> {
    let mut out = Vec::new();
    walk_into(policy, root, "", &mut out);
    out
}

fn walk_into(policy: &PathPolicy, dir: &Path, prefix: &str, out: &mut Vec<WalkEntry>) {
    let Ok(mut listed) = policy.read_dir(dir) else {
        return;
    };
    listed.sort_by(|a, b| a.name.cmp(&b.name));
    for entry in listed {
        let name = display_name(&entry.name);
        if SKIPPED_DIRS.contains(&name.as_str()) {
            continue;
        }
        let path = dir.join(&entry.name);
        let relative = if prefix.is_empty() {
            name.clone()
        } else {
            format!("{prefix}/{name}")
        };
        let meta = if entry.metadata.is_symlink() {
            // A symlink to a file is listed (after checking where it really
            // points); a symlink to a directory is not followed.
            match policy.stat(&path) {
                Ok(meta) if !meta.is_dir() => meta,
                _ => continue,
            }
        } else {
            if policy.check(&path).is_err() {
                continue;
            }
            entry.metadata
        };
        let is_dir = meta.is_dir();
        out.push(WalkEntry {
            path: path.clone(),
            relative: relative.clone(),
            is_dir,
            modified: meta
                .modified()
                .ok()
                .map(cap_std::time::SystemTime::into_std),
        });
        if is_dir {
            walk_into(policy, &path, &relative, out);
        }
    }
}

/// Compiles a glob with doublestar semantics: `*` stays within one path
/// component, `**` crosses them.
pub(crate) fn compile_glob(pattern: &str) -> Result<GlobMatcher, EngineError> {
    GlobBuilder::new(pattern)
        .literal_separator(true)
        .build()
        .map(|glob| glob.compile_matcher())
        .map_err(|err| EngineError::InvalidGlob {
            pattern: pattern.to_string(),
            message: glob_reason(&err),
        })
}

/// globset's message without the `error parsing glob '…': ` preamble (the
/// caller's message already names the pattern).
fn glob_reason(err: &globset::Error) -> String {
    let text = err.to_string();
    match text.split_once("': ") {
        Some((_, reason)) if text.starts_with("error parsing glob") => reason.to_string(),
        _ => text,
    }
}

/// Compiles several globs (e.g. a file type's extensions) into one set.
pub(crate) fn compile_glob_set(patterns: &[&str]) -> Result<GlobSet, EngineError> {
    let mut builder = GlobSetBuilder::new();
    for pattern in patterns {
        let glob = GlobBuilder::new(pattern)
            .literal_separator(true)
            .build()
            .map_err(|err| EngineError::InvalidGlob {
                pattern: pattern.to_string(),
                message: glob_reason(&err),
            })?;
        builder.add(glob);
    }
    builder.build().map_err(|err| EngineError::InvalidGlob {
        pattern: patterns.join(","),
        message: glob_reason(&err),
    })
}

/// What kinds of entries [`glob`] returns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum EntryKind {
    Any,
    File,
    Directory,
}

/// Entries under `root` whose relative path or base name matches `matcher`,
/// in walk order (name order, depth first), for the dialect to order and name.
/// A missing or non-directory root yields nothing (as upstream).
pub(crate) fn glob(
    policy: &PathPolicy,
    root: &Path,
    matcher: &GlobMatcher,
    kind: EntryKind,
) -> Vec<WalkEntry> {
    if !policy.stat(root).is_ok_and(|meta| meta.is_dir()) {
        return Vec::new();
    }
    walk(policy, root)
        .into_iter()
        .filter(|e| match kind {
            EntryKind::Any => true,
            EntryKind::File => !e.is_dir,
            EntryKind::Directory => e.is_dir,
        })
        .filter(|e| {
            let base = e.relative.rsplit('/').next().unwrap_or(&e.relative);
            matcher.is_match(&e.relative) || matcher.is_match(base)
        })
        .collect()
}

/// Builds the search regex. `multiline` lets `.` match newlines and searches
/// whole files instead of single lines.
pub(crate) fn compile_regex(
    pattern: &str,
    case_insensitive: bool,
    multiline: bool,
) -> Result<Regex, EngineError> {
    RegexBuilder::new(pattern)
        .case_insensitive(case_insensitive)
        .dot_matches_new_line(multiline)
        .multi_line(multiline)
        .build()
        .map_err(|err| EngineError::InvalidRegex {
            message: regex_reason(&err),
        })
}

/// The regex crate's error with its multi-line caret diagram folded onto one
/// line, so it fits in a one-line error message.
fn regex_reason(err: &regex::Error) -> String {
    let text = err.to_string();
    let lines: Vec<&str> = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    match lines.iter().position(|l| l.starts_with("error:")) {
        Some(at) => {
            let detail = lines[at].trim_start_matches("error:").trim();
            let context = lines.get(1).copied().unwrap_or("");
            format!("{detail} (in `{context}`)")
        }
        None => lines.join(" "),
    }
}

/// How to pick files in a directory search.
#[derive(Debug, Default)]
pub(crate) struct FileFilter {
    /// Matched against the path relative to the search root, then the base name.
    pub(crate) include: Option<GlobMatcher>,
    /// Matched against the base name (a file type's extensions).
    pub(crate) types: Option<GlobSet>,
}

/// The matches in one file.
#[derive(Debug, Clone)]
pub(crate) struct FileHits {
    /// For a directory search, the path relative to it; for a single file,
    /// whatever display name the caller chose.
    pub(crate) display: String,
    /// All lines of the file, without line terminators.
    pub(crate) lines: Vec<String>,
    /// 1-based numbers of matching lines, ascending.
    pub(crate) matched: Vec<usize>,
    pub(crate) modified: Option<SystemTime>,
}

/// Searches one file (`display` names it in the results) or, if `root` is a
/// directory, every text file under it that passes `filter`. Files without a
/// match are left out. Binary files and, in a tree, files over `max_size`
/// or unreadable are skipped.
pub(crate) fn grep(
    policy: &PathPolicy,
    root: &Path,
    display: &str,
    regex: &Regex,
    multiline: bool,
    filter: &FileFilter,
    max_size: u64,
) -> Result<Vec<FileHits>, EngineError> {
    let meta = files::stat(policy, root)?;
    if !meta.is_dir() {
        let content = files::read(policy, root, max_size)?;
        return Ok(search_content(&content, regex, multiline)
            .map(|(lines, matched)| FileHits {
                display: display.to_string(),
                lines,
                matched,
                modified: meta
                    .modified()
                    .ok()
                    .map(cap_std::time::SystemTime::into_std),
            })
            .into_iter()
            .collect());
    }
    let mut hits = Vec::new();
    for entry in walk(policy, root) {
        if entry.is_dir {
            continue;
        }
        let base = entry.relative.rsplit('/').next().unwrap_or(&entry.relative);
        if let Some(include) = &filter.include {
            if !include.is_match(&entry.relative) && !include.is_match(base) {
                continue;
            }
        }
        if let Some(types) = &filter.types {
            if !types.is_match(base) {
                continue;
            }
        }
        let Ok(content) = files::read(policy, &entry.path, max_size) else {
            continue;
        };
        if let Some((lines, matched)) = search_content(&content, regex, multiline) {
            hits.push(FileHits {
                display: entry.relative,
                lines,
                matched,
                modified: entry.modified,
            });
        }
    }
    Ok(hits)
}

/// Splits `content` into lines and finds the matching ones; `None` for a
/// binary file or no match.
fn search_content(
    content: &[u8],
    regex: &Regex,
    multiline: bool,
) -> Option<(Vec<String>, Vec<usize>)> {
    if content.iter().take(BINARY_SNIFF_BYTES).any(|&b| b == 0) {
        return None;
    }
    let text = String::from_utf8_lossy(content);
    let mut lines: Vec<String> = text.split('\n').map(str::to_string).collect();
    if lines.last().is_some_and(String::is_empty) {
        lines.pop();
    }
    let matched = matching_lines(&text, &lines, regex, multiline);
    (!matched.is_empty()).then_some((lines, matched))
}

/// The 1-based numbers of the `lines` of `text` that `regex` matches. With
/// `multiline` the pattern runs over the whole text and every line a match
/// spans counts; otherwise it runs over each line alone.
pub(crate) fn matching_lines(
    text: &str,
    lines: &[String],
    regex: &Regex,
    multiline: bool,
) -> Vec<usize> {
    if multiline {
        let mut set = std::collections::BTreeSet::new();
        for m in regex.find_iter(text) {
            let first = line_of(text, m.start());
            // A match ending right after a newline does not touch the next line.
            let end = if m.end() > m.start() {
                m.end() - 1
            } else {
                m.start()
            };
            let last = line_of(text, end).max(first);
            set.extend(first..=last);
        }
        set.into_iter().filter(|&n| n <= lines.len()).collect()
    } else {
        lines
            .iter()
            .enumerate()
            .filter(|(_, l)| regex.is_match(l))
            .map(|(i, _)| i + 1)
            .collect()
    }
}

/// 1-based line number of byte offset `at` in `text`.
fn line_of(text: &str, at: usize) -> usize {
    text.as_bytes()[..at.min(text.len())]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
        + 1
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    fn tree() -> (tempfile::TempDir, PathPolicy) {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = std::fs::canonicalize(dir.path()).expect("canonical");
        fs::create_dir_all(root.join("src/deep")).expect("mkdir");
        fs::create_dir_all(root.join(".git")).expect("mkdir");
        fs::write(root.join("src/a.rs"), "fn main() {}\n// TODO one\n").expect("write");
        fs::write(root.join("src/deep/b.rs"), "todo two\nTODO three\n").expect("write");
        fs::write(root.join("notes.md"), "TODO notes\n").expect("write");
        fs::write(root.join(".git/config"), "TODO hidden\n").expect("write");
        fs::write(root.join("bin.dat"), b"TODO\0binary").expect("write");
        let policy =
            PathPolicy::new(&root, &[], &[], crate::engine::paths::Scope::Root).expect("policy");
        (dir, policy)
    }

    #[test]
    fn grep_walks_sorted_and_skips_binary_and_git() {
        let (_dir, policy) = tree();
        let regex = compile_regex("TODO", false, false).expect("regex");
        let hits = grep(
            &policy,
            policy.root(),
            "",
            &regex,
            false,
            &FileFilter::default(),
            1 << 20,
        )
        .expect("grep");
        let names: Vec<_> = hits
            .iter()
            .map(|h| (h.display.as_str(), h.matched.clone()))
            .collect();
        assert_eq!(
            names,
            vec![
                ("notes.md", vec![1]),
                ("src/a.rs", vec![2]),
                ("src/deep/b.rs", vec![2])
            ]
        );
    }

    #[test]
    fn grep_filters_by_include_and_case() {
        let (_dir, policy) = tree();
        let regex = compile_regex("todo", true, false).expect("regex");
        let filter = FileFilter {
            include: Some(compile_glob("*.rs").expect("glob")),
            types: None,
        };
        let hits = grep(&policy, policy.root(), "", &regex, false, &filter, 1 << 20).expect("grep");
        let names: Vec<_> = hits
            .iter()
            .map(|h| (h.display.as_str(), h.matched.clone()))
            .collect();
        assert_eq!(
            names,
            vec![("src/a.rs", vec![2]), ("src/deep/b.rs", vec![1, 2])]
        );
    }

    #[test]
    fn multiline_matches_cover_every_spanned_line() {
        let regex = compile_regex("one.two", false, true).expect("regex");
        let (_, matched) = search_content(b"zero\none\ntwo\nthree\n", &regex, true).expect("match");
        assert_eq!(matched, vec![2, 3]);
    }

    #[test]
    fn bad_patterns_explain_themselves() {
        let err = compile_regex("a(b", false, false).expect_err("bad");
        let EngineError::InvalidRegex { message } = err else {
            panic!("wrong error")
        };
        assert!(message.contains("unclosed group"), "{message}");
        assert!(!message.contains('\n'));
        for bad in ["[unclosed", "a/**b["] {
            assert!(
                matches!(compile_glob(bad), Err(EngineError::InvalidGlob { .. })),
                "{bad}"
            );
        }
    }

    #[test]
    fn glob_matches_relative_paths_and_base_names() {
        let (_dir, policy) = tree();
        let root = policy.root().to_path_buf();
        let relative = |found: Vec<WalkEntry>| -> Vec<String> {
            found.into_iter().map(|e| e.relative).collect()
        };
        let all_rs = glob(
            &policy,
            &root,
            &compile_glob("**/*.rs").expect("glob"),
            EntryKind::Any,
        );
        assert_eq!(all_rs[0].path, root.join("src/a.rs"));
        assert_eq!(relative(all_rs), ["src/a.rs", "src/deep/b.rs"]);
        let by_name = glob(
            &policy,
            &root,
            &compile_glob("*.rs").expect("glob"),
            EntryKind::File,
        );
        assert_eq!(by_name.len(), 2);
        let dirs = glob(
            &policy,
            &root,
            &compile_glob("*").expect("glob"),
            EntryKind::Directory,
        );
        assert_eq!(relative(dirs), ["src", "src/deep"]);
    }
}
