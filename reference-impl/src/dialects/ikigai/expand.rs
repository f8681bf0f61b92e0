//! Expanding a glob pattern against the file system, one path component at
//! a time, as `glob(3)` does for ikigai's `glob` and `grep` tools.
//!
//! The pattern is taken relative to a base directory (the `path` argument,
//! used as written, or the root); each match is shown as the base as written
//! joined with the matched names, so `path: src, pattern: *.c` shows
//! `src/a.c` and a pattern alone shows `a.c`. Matching does not recurse
//! beyond what the pattern spells out, and results are sorted by their text.
//!
//! Nothing outside the root is listed or returned: a directory to list or a
//! match whose real path (symlinks resolved) leaves the root is left out.

use std::ffi::OsString;
use std::io;
use std::path::{Path, PathBuf};

use super::wildcard::{Wildcard, WildcardError};
use crate::engine::names::display_name;
use crate::engine::paths::PathPolicy;

/// A match: the text shown and the real path it names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Found {
    pub(crate) shown: String,
    pub(crate) real: PathBuf,
}

/// Which names a wildcard may match.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) enum LeadingDot {
    /// A leading `.` must be matched by a literal `.` (glob(3) without flags).
    #[default]
    Literal,
    /// Wildcards match a leading `.` too (the `glob-matches-dotfiles`
    /// mutation).
    Wildcard,
}

/// [`expand_with`] with the honest leading-dot rule (the tests' shorthand).
#[cfg(test)]
pub(crate) fn expand(
    policy: &PathPolicy,
    base: Option<&str>,
    pattern: &str,
) -> Result<Vec<Found>, WildcardError> {
    expand_with(policy, base, pattern, LeadingDot::default())
}

/// Expands `pattern` under `base` (the base is not a pattern; `None` means
/// the root, with matches shown relative to it); `leading_dot` says how
/// wildcards treat a name's leading `.`.
pub(crate) fn expand_with(
    policy: &PathPolicy,
    base: Option<&str>,
    pattern: &str,
    leading_dot: LeadingDot,
) -> Result<Vec<Found>, WildcardError> {
    let components: Vec<Wildcard> = pattern
        .split('/')
        .filter(|part| !part.is_empty())
        .map(Wildcard::parse)
        .collect::<Result<_, _>>()?;
    if components.is_empty() {
        return Ok(Vec::new());
    }
    let start = match base {
        Some(base) => base.to_string(),
        None if pattern.starts_with('/') => "/".to_string(),
        None => String::new(),
    };
    // Each candidate is the text shown and the path it names, built from
    // the names' real bytes (a name that is not UTF-8 is shown replaced but
    // still reached).
    let mut candidates = vec![(policy.root().join(&start), start)];
    for (index, component) in components.iter().enumerate() {
        let last = index + 1 == components.len();
        let mut next = Vec::new();
        for (path, shown) in &candidates {
            match component.literal() {
                // A name is looked up, not listed, so the directories on the
                // way to the root (`/`, `/tmp`) may be walked through.
                Some(name) => {
                    let child = path.join(&name);
                    if exists_as(policy, &child, last) {
                        next.push((child, join(shown, &name)));
                    }
                }
                None => {
                    let Some(dir) = inside_root(policy, path) else {
                        continue;
                    };
                    for (name, real_name) in sorted_names(policy, &dir) {
                        let matched = match leading_dot {
                            LeadingDot::Literal => component.matches(&name),
                            LeadingDot::Wildcard => component.matches_dotfiles_too(&name),
                        };
                        let child = dir.join(&real_name);
                        if matched && exists_as(policy, &child, last) {
                            next.push((child, join(shown, &name)));
                        }
                    }
                }
            }
        }
        candidates = next;
    }
    let mut found: Vec<Found> = candidates
        .into_iter()
        .filter_map(|(path, shown)| inside_root(policy, &path).map(|real| Found { shown, real }))
        .collect();
    found.sort_by(|a, b| a.shown.cmp(&b.shown));
    Ok(found)
}

/// The real path that `path` names, if it is the root or under it and the
/// policy allows it.
fn inside_root(policy: &PathPolicy, path: &Path) -> Option<PathBuf> {
    let real = policy.follow(path).ok()?;
    real.starts_with(policy.root()).then_some(real)
}

/// Whether `path` exists (a dangling symlink counts, as a name that glob
/// lists); a component that is not the last must also be a directory. A
/// path the confinement will not look at (a directory on the way down to
/// the root) is let through: [`inside_root`] has the last word on matches.
fn exists_as(policy: &PathPolicy, path: &Path, last: bool) -> bool {
    let looked = if last {
        policy.lstat(path).map(|_| true)
    } else {
        policy.stat(path).map(|meta| meta.is_dir())
    };
    match looked {
        Ok(exists) => exists,
        Err(err) => err.kind() == io::ErrorKind::PermissionDenied,
    }
}

/// The entries of `dir` by shown name, each with its real name.
fn sorted_names(policy: &PathPolicy, dir: &Path) -> Vec<(String, OsString)> {
    let Ok(listed) = policy.read_dir(dir) else {
        return Vec::new();
    };
    let mut names: Vec<(String, OsString)> = listed
        .into_iter()
        .map(|entry| (display_name(&entry.name), entry.name))
        .collect();
    names.sort();
    names
}

fn join(shown: &str, name: &str) -> String {
    if shown.is_empty() {
        name.to_string()
    } else if shown.ends_with('/') {
        format!("{shown}{name}")
    } else {
        format!("{shown}/{name}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    fn tree() -> (tempfile::TempDir, PathPolicy) {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = std::fs::canonicalize(dir.path()).expect("canonical");
        fs::create_dir_all(root.join("src/deep")).expect("mkdir");
        for file in [
            "a.c",
            "b.c",
            "notes.md",
            ".hidden.c",
            "src/x.c",
            "src/deep/y.c",
        ] {
            fs::write(root.join(file), "x\n").expect("write");
        }
        let policy = PathPolicy::new(&root, &[], &[], crate::engine::paths::Scope::Root).expect("policy");
        (dir, policy)
    }

    fn shown(found: Vec<Found>) -> Vec<String> {
        found.into_iter().map(|f| f.shown).collect()
    }

    #[test]
    fn matches_only_what_the_pattern_spells_out() {
        let (_dir, policy) = tree();
        let top = expand(&policy, None, "*.c").expect("valid");
        assert_eq!(shown(top), ["a.c", "b.c"]);
        let nested = expand(&policy, None, "*/*.c").expect("valid");
        assert_eq!(shown(nested), ["src/x.c"]);
        let literal = expand(&policy, None, "src/deep/y.c").expect("valid");
        assert_eq!(shown(literal), ["src/deep/y.c"]);
        assert!(expand(&policy, None, "nothing*").expect("valid").is_empty());
    }

    #[test]
    fn the_base_is_shown_as_written() {
        let (_dir, policy) = tree();
        let root = policy.root().display().to_string();
        let found = expand(&policy, Some(&root), "*.c").expect("valid");
        assert_eq!(
            shown(found.clone()),
            [format!("{root}/a.c"), format!("{root}/b.c")]
        );
        assert_eq!(found[0].real, policy.root().join("a.c"));
        let relative = expand(&policy, Some("src"), "*").expect("valid");
        assert_eq!(shown(relative), ["src/deep", "src/x.c"]);
        let absolute = expand(&policy, None, &format!("{root}/src/*.c")).expect("valid");
        assert_eq!(shown(absolute), [format!("{root}/src/x.c")]);
    }

    #[test]
    fn nothing_outside_the_root_is_listed() {
        let (_dir, policy) = tree();
        assert!(expand(&policy, None, "../*").expect("valid").is_empty());
        assert!(expand(&policy, None, "/*").expect("valid").is_empty());
        std::os::unix::fs::symlink("/", policy.root().join("escape")).expect("symlink");
        assert!(expand(&policy, None, "escape/*").expect("valid").is_empty());
        assert_eq!(
            expand(&policy, None, "[unclosed"),
            Err(WildcardError::UnclosedBracket)
        );
    }
}
