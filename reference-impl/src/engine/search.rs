//! Content search (regex over lines or whole files) and name search (glob)
//! over the confined walk (see [`super::walk`]): each file is searched as the
//! walk finds it, and only matches are kept.

use std::ops::ControlFlow;
use std::path::Path;
use std::time::SystemTime;

use globset::{GlobBuilder, GlobMatcher, GlobSet, GlobSetBuilder};
use regex::{Regex, RegexBuilder};

use super::error::EngineError;
use super::files;
use super::line_search::{FileOutcome, LinePattern, LineSearch, Matches, Want};
use super::paths::PathPolicy;
pub(crate) use super::walk::WalkEntry;
use super::walk::{walk_each, walk_until};
pub(crate) use super::walk::{DirLinks, NoPrune, Prune};

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
/// A missing or non-directory root yields nothing (as upstream). What `prune`
/// hides is not found, nor anything below it.
pub(crate) fn glob(
    policy: &PathPolicy,
    root: &Path,
    prune: &mut dyn Prune,
    matcher: &GlobMatcher,
    kind: EntryKind,
) -> Vec<WalkEntry> {
    let mut found = Vec::new();
    if !policy.stat(root).is_ok_and(|meta| meta.is_dir()) {
        return found;
    }
    walk_each(policy, root, prune, &mut |visit| {
        let wanted = match kind {
            EntryKind::Any => true,
            EntryKind::File => !visit.is_dir,
            EntryKind::Directory => visit.is_dir,
        };
        if wanted && (matcher.is_match(&visit.relative) || matcher.is_match(visit.base_name())) {
            found.push(visit.into_entry());
        }
    });
    found
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

/// Compiles `pattern` for [`grep`]: [`compile_regex`], and the same pattern
/// for the buffer search.
#[cfg(test)]
fn compile_pattern(
    pattern: &str,
    case_insensitive: bool,
    multiline: bool,
) -> Result<LinePattern, EngineError> {
    let regex = compile_regex(pattern, case_insensitive, multiline)?;
    Ok(LinePattern::new(
        regex,
        pattern,
        case_insensitive,
        multiline,
    ))
}

/// The matches in one file.
#[derive(Debug, Clone)]
pub(crate) struct FileHits {
    /// For a directory search, the path relative to it; for a single file,
    /// whatever display name the caller chose.
    pub(crate) display: String,
    /// What was kept of the matches (see [`Want`]).
    pub(crate) matches: Matches,
    pub(crate) modified: Option<SystemTime>,
}

impl FileHits {
    /// A file's hits from all its lines (`matched`: 1-based, ascending).
    #[cfg(test)]
    pub(crate) fn from_lines(display: &str, lines: &[&str], matched: &[usize]) -> FileHits {
        let mut matches = Matches::new(matched.len(), matched.to_vec());
        for (i, line) in lines.iter().enumerate() {
            matches.keep_line(i + 1, line);
        }
        FileHits {
            display: display.to_string(),
            matches,
            modified: None,
        }
    }

    /// The 1-based numbers of the matching lines ([`Want::Lines`] only).
    pub(crate) fn matched(&self) -> &[usize] {
        &self.matches.matched
    }

    /// Line `n` (1-based), if kept: a match, or context asked for.
    pub(crate) fn line(&self, n: usize) -> Option<&str> {
        self.matches.line(n)
    }

    /// The kept lines, numbered, ascending.
    pub(crate) fn lines(&self) -> impl Iterator<Item = (usize, &str)> + '_ {
        self.matches.lines()
    }

    /// The last line of the run of kept lines from `n` up to at most `limit`:
    /// `limit`, or the file's last line when it ends first (the searcher
    /// hands over all the context asked for that the file has).
    pub(crate) fn kept_through(&self, n: usize, limit: usize) -> usize {
        let mut last = n;
        while last < limit && self.line(last + 1).is_some() {
            last += 1;
        }
        last
    }
}

/// Searches one file (`display` names it in the results) or, if `root` is a
/// directory, every text file under it that passes `filter`, each as the
/// walk finds it; the files with a match, in walk order (see [`grep_each`]).
pub(crate) fn grep(
    policy: &PathPolicy,
    root: &Path,
    display: &str,
    pattern: &LinePattern,
    filter: &FileFilter,
    max_size: u64,
    want: Want,
) -> Result<Vec<FileHits>, EngineError> {
    let mut hits = Vec::new();
    let mut search = LineSearch::new(pattern, want);
    grep_each(
        policy,
        root,
        &mut NoPrune,
        DirLinks::Skipped,
        display,
        filter,
        max_size,
        &mut search,
        &mut |hit| {
            hits.push(hit);
            Further::Search { match_limit: None }
        },
    )?;
    Ok(hits)
}

/// What a caller of [`grep_each`] can still use after a file's matches.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Further {
    /// Nothing: the search ends, reading no further file.
    Stop,
    /// The files still to come, of each at most `match_limit` matching
    /// lines (`None`: all; see [`LineSearch::set_match_limit`]).
    Search { match_limit: Option<usize> },
}

/// Searches one file (`display` names it in the results) or, if `root` is a
/// directory, every text file under it that passes `filter`, each as the
/// walk finds it, and hands each file's matches to `found` at once, so a
/// caller that writes them out holds one file's matches at a time; its
/// answer says how much more it can use, so a caller whose answer is
/// complete ends the search there. Files without a match are left out;
/// `search` holds the pattern and how much of each file's matches to keep.
/// Binary files and, in a tree, files over `max_size` or unreadable are
/// skipped, and so is what `prune` hides in a tree; `links` says whether
/// the tree's links to directories are searched too.
#[allow(clippy::too_many_arguments)]
pub(crate) fn grep_each(
    policy: &PathPolicy,
    root: &Path,
    prune: &mut dyn Prune,
    links: DirLinks,
    display: &str,
    filter: &FileFilter,
    max_size: u64,
    search: &mut LineSearch<'_>,
    found: &mut dyn FnMut(FileHits) -> Further,
) -> Result<(), EngineError> {
    let meta = files::stat(policy, root)?;
    if !meta.is_dir() {
        let content = files::read(policy, root, max_size)?;
        if let Some(matches) = search.search(&content) {
            // One file: nothing follows, whatever the caller answers.
            let _ = found(FileHits {
                display: display.to_string(),
                matches,
                modified: meta
                    .modified()
                    .ok()
                    .map(cap_std::time::SystemTime::into_std),
            });
        }
        return Ok(());
    }
    let _ = walk_until(policy, root, prune, links, &mut |visit| {
        let go_on = ControlFlow::Continue(());
        if visit.is_dir {
            return go_on;
        }
        let base = visit.base_name();
        if let Some(include) = &filter.include {
            if !include.is_match(&visit.relative) && !include.is_match(base) {
                return go_on;
            }
        }
        if let Some(types) = &filter.types {
            if !types.is_match(base) {
                return go_on;
            }
        }
        let Ok((file, opened)) = visit.open(policy) else {
            return go_on;
        };
        if !opened.is_file() {
            return go_on;
        }
        let Ok(FileOutcome::Searched(Some(matches))) =
            search.search_file(file, opened.len(), max_size)
        else {
            return go_on;
        };
        let further = found(FileHits {
            matches,
            modified: opened.modified().ok(),
            display: visit.relative,
        });
        match further {
            Further::Stop => ControlFlow::Break(()),
            Further::Search { match_limit } => {
                search.set_match_limit(match_limit);
                go_on
            }
        }
    });
    Ok(())
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
        let regex = compile_pattern("TODO", false, false).expect("regex");
        let hits = grep(
            &policy,
            policy.root(),
            "",
            &regex,
            &FileFilter::default(),
            1 << 20,
            Want::Lines {
                before: 0,
                after: 0,
            },
        )
        .expect("grep");
        let names: Vec<_> = hits
            .iter()
            .map(|h| (h.display.as_str(), h.matched().to_vec()))
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

    /// Once the caller has what it can use, no further file is searched;
    /// until then, each file after the answer keeps at most the matching
    /// lines asked for.
    #[test]
    fn grep_each_stops_and_limits_where_the_caller_says() {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = std::fs::canonicalize(dir.path()).expect("canonical");
        for name in ["a.txt", "b.txt", "c.txt"] {
            fs::write(root.join(name), "hit\nhit\nhit\n").expect("write");
        }
        let policy =
            PathPolicy::new(&root, &[], &[], crate::engine::paths::Scope::Root).expect("policy");
        let pattern = compile_pattern("hit", false, false).expect("regex");
        let want = Want::Lines {
            before: 0,
            after: 0,
        };
        let grep_answering = |answers: &[Further]| {
            let mut search = LineSearch::new(&pattern, want);
            let mut seen = Vec::new();
            let mut answers = answers.iter();
            grep_each(
                &policy,
                &root,
                &mut NoPrune,
                DirLinks::Skipped,
                "",
                &FileFilter::default(),
                1 << 20,
                &mut search,
                &mut |hit| {
                    seen.push((hit.display, hit.matches.matched.len()));
                    *answers.next().expect("no call after the last answer")
                },
            )
            .expect("grep");
            seen
        };
        let limit_one = Further::Search {
            match_limit: Some(1),
        };
        assert_eq!(
            grep_answering(&[limit_one, Further::Stop]),
            [("a.txt".to_string(), 3), ("b.txt".to_string(), 1)]
        );
        assert_eq!(grep_answering(&[Further::Stop]), [("a.txt".to_string(), 3)]);
    }

    #[test]
    fn grep_filters_by_include_and_case() {
        let (_dir, policy) = tree();
        let regex = compile_pattern("todo", true, false).expect("regex");
        let filter = FileFilter {
            include: Some(compile_glob("*.rs").expect("glob")),
            types: None,
        };
        let want = Want::Lines {
            before: 0,
            after: 0,
        };
        let hits = grep(&policy, policy.root(), "", &regex, &filter, 1 << 20, want).expect("grep");
        let names: Vec<_> = hits
            .iter()
            .map(|h| (h.display.as_str(), h.matched().to_vec()))
            .collect();
        assert_eq!(
            names,
            vec![("src/a.rs", vec![2]), ("src/deep/b.rs", vec![1, 2])]
        );
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
            &mut NoPrune,
            &compile_glob("**/*.rs").expect("glob"),
            EntryKind::Any,
        );
        assert_eq!(all_rs[0].path, root.join("src/a.rs"));
        assert_eq!(relative(all_rs), ["src/a.rs", "src/deep/b.rs"]);
        let by_name = glob(
            &policy,
            &root,
            &mut NoPrune,
            &compile_glob("*.rs").expect("glob"),
            EntryKind::File,
        );
        assert_eq!(by_name.len(), 2);
        let dirs = glob(
            &policy,
            &root,
            &mut NoPrune,
            &compile_glob("*").expect("glob"),
            EntryKind::Directory,
        );
        assert_eq!(relative(dirs), ["src", "src/deep"]);
    }
}
