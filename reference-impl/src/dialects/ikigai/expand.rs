//! Expanding a glob pattern against the file system, one path component at
//! a time, as `glob(3)` does for ikigai's `glob` and `grep` tools.
//!
//! The pattern is taken relative to a base directory (the `path` argument,
//! used as written, or the root); each match is shown as the base as written
//! joined with the matched names, so `path: src, pattern: *.c` shows
//! `src/a.c` (and `path: src/` shows `src//a.c`, as the text rel-04 hands
//! glob(3) reads) and a pattern alone shows `a.c`. Matching does not recurse
//! beyond what the pattern spells out, and results are sorted by their text.
//!
//! Nothing confines the expansion to the root, as nothing confines
//! glob(3): `../*`, `/tmp/*` or a symlink out of the root list what they
//! name. Only what the path policy refuses (a folder outside `--allow-dir`,
//! when the server is given one) is left out.

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
    // rel-04 hands glob(3) the text `<base>/<pattern>` (tool_glob.c:18,
    // tool_grep.c:142-144), and glob(3) shows the part before the first
    // wildcard as written: `{root}/` as base shows `{root}//a.txt`.
    let leading = &pattern[..pattern.len() - pattern.trim_start_matches('/').len()];
    let (start, shown) = match base {
        Some(base) => (base.to_string(), format!("{base}/{leading}")),
        None => (leading.to_string(), leading.to_string()),
    };
    // Each candidate is the text shown and the path it names, built from
    // the names' real bytes (a name that is not UTF-8 is shown replaced but
    // still reached).
    let mut candidates = vec![(policy.root().join(&start), shown)];
    for (index, component) in components.iter().enumerate() {
        let last = index + 1 == components.len();
        let mut next = Vec::new();
        for (path, shown) in &candidates {
            match component.literal() {
                // A name is looked up, not listed, so a folder that may be
                // entered but not listed (mode 0111, or one above the
                // folders `--allow-dir` names) is walked through.
                Some(name) => {
                    let child = path.join(&name);
                    if exists_as(policy, &child, last) {
                        next.push((child, join(shown, &name)));
                    }
                }
                None => {
                    let Some(dir) = reachable(policy, path) else {
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
        .filter_map(|(path, shown)| reachable(policy, &path).map(|real| Found { shown, real }))
        .collect();
    found.sort_by(|a, b| a.shown.cmp(&b.shown));
    Ok(found)
}

/// The real path that `path` leads to (symlinks resolved), wherever it is,
/// if the path policy allows it.
fn reachable(policy: &PathPolicy, path: &Path) -> Option<PathBuf> {
    policy.follow(path).ok()
}

/// Whether `path` exists (a dangling symlink counts, as a name that glob
/// lists); a component that is not the last must also be a directory. A
/// path that cannot be looked at (EACCES, or a folder the policy refuses on
/// the way down to an allowed one) is let through: [`reachable`] has the
/// last word on matches.
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
    use crate::engine::paths::Scope;
    use std::fs;

    /// A temporary folder holding the root and, beside it, `outside/` with
    /// `secret.txt` in it; the root holds a few files and `escape`, a link
    /// to `outside/`. The policy is the one the ikigai adapter starts with
    /// (`allow`: the folders `--allow-dir` would name).
    fn tree_allowing(allow: &[&str]) -> (tempfile::TempDir, PathBuf, PathPolicy) {
        let dir = tempfile::tempdir().expect("tempdir");
        let base = fs::canonicalize(dir.path()).expect("canonical");
        let root = base.join("root");
        fs::create_dir_all(root.join("src/deep")).expect("mkdir");
        fs::create_dir(base.join("outside")).expect("mkdir");
        fs::write(base.join("outside/secret.txt"), "secret\n").expect("write");
        std::os::unix::fs::symlink(base.join("outside"), root.join("escape")).expect("symlink");
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
        let allow: Vec<PathBuf> = allow.iter().map(PathBuf::from).collect();
        let policy = PathPolicy::new(&root, &allow, &[], Scope::Anywhere).expect("policy");
        (dir, base, policy)
    }

    fn tree() -> (tempfile::TempDir, PathPolicy) {
        let (dir, _, policy) = tree_allowing(&[]);
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
        assert_eq!(
            expand(&policy, None, "[unclosed"),
            Err(WildcardError::UnclosedBracket)
        );
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
        let slashed = expand(&policy, Some("src/"), "*.c").expect("valid");
        assert_eq!(shown(slashed), ["src//x.c"], "the base's own slash kept");
        let doubled = expand(&policy, Some("src"), "/*.c").expect("valid");
        assert_eq!(shown(doubled), ["src//x.c"], "the pattern's own slash kept");
        let absolute = expand(&policy, None, &format!("{root}/src/*.c")).expect("valid");
        assert_eq!(shown(absolute), [format!("{root}/src/x.c")]);
    }

    /// As glob(3): `..`, an absolute path and a link out of the root lead
    /// where they lead, and what is there is listed.
    #[test]
    fn what_the_pattern_names_outside_the_root_is_listed() {
        let (_dir, base, policy) = tree_allowing(&[]);
        let secret = base.join("outside/secret.txt");
        let up = expand(&policy, None, "../outside/*").expect("valid");
        assert_eq!(shown(up.clone()), ["../outside/secret.txt"]);
        assert_eq!(up[0].real, secret);
        let beside = expand(&policy, None, "../*").expect("valid");
        assert_eq!(shown(beside), ["../outside", "../root"]);
        let from_base = expand(&policy, Some("../outside"), "*.txt").expect("valid");
        assert_eq!(shown(from_base), ["../outside/secret.txt"]);
        let outside = base.join("outside").display().to_string();
        let absolute = expand(&policy, None, &format!("{outside}/*")).expect("valid");
        assert_eq!(shown(absolute), [format!("{outside}/secret.txt")]);
        let linked = expand(&policy, None, "escape/*").expect("valid");
        assert_eq!(shown(linked.clone()), ["escape/secret.txt"]);
        assert_eq!(linked[0].real, secret);
        let listed = expand(&policy, None, "*").expect("valid");
        assert!(shown(listed).contains(&"escape".to_string()));
    }

    /// Given `--allow-dir`, the policy bounds what is listed: nothing
    /// outside the allowed folder is, by `..`, an absolute path or a link.
    #[test]
    fn an_allowed_folder_bounds_the_expansion() {
        let (_dir, base, policy) = tree_allowing(&["."]);
        assert!(expand(&policy, None, "../outside/*").expect("valid").is_empty());
        assert!(expand(&policy, None, "../*").expect("valid").is_empty());
        let outside = base.join("outside").display().to_string();
        assert!(expand(&policy, None, &format!("{outside}/*"))
            .expect("valid")
            .is_empty());
        assert!(expand(&policy, None, "escape/*").expect("valid").is_empty());
        assert_eq!(shown(expand(&policy, None, "*.c").expect("valid")), ["a.c", "b.c"]);
    }
}
