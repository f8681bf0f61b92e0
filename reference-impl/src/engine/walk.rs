//! The tree walk that content search and name search share.
//!
//! It goes depth first in name order, so results are deterministic, skips
//! `.git` and `node_modules` (as the upstream servers do), never follows a
//! symlink to a directory (no loops, no escaping the tree), and silently
//! skips entries the path policy refuses (a symlink to a file is followed
//! only where the policy allows its target). A name that is not UTF-8 is
//! walked under its real bytes and shown as [`display_name`] renders it.
//!
//! A dialect whose program honours ignore files (boris's `.gitignore`) hands
//! the walk a [`Prune`]: it is told each directory the walk enters, so the
//! rules read there apply only below it, and an entry it prunes is neither
//! visited nor, for a directory, descended into.
//!
//! It streams: each entry is handed to the caller as it is found, so a search
//! of a large tree holds one directory listing per level, never the whole
//! tree. Each directory is opened from its parent's handle (see
//! [`OpenedDir`]) and each file from its directory's, without following a
//! link, so the walk neither leaves the confined root nor looks every path up
//! again from it; only a symlink to a file goes through the policy by path.

use std::ffi::OsStr;
use std::io;
use std::ops::ControlFlow;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use super::confined_fs::{Metadata, OpenedDir};
use super::names::display_name;
use super::paths::PathPolicy;

/// Directory names never descended into (nor listed).
const SKIPPED_DIRS: [&[u8]; 2] = [b".git", b"node_modules"];

/// Rules that hide entries of a walk, and everything below a hidden
/// directory: a dialect's ignore files. The walk calls [`Prune::enter`] as it
/// enters each directory (the search root first) and [`Prune::leave`] when it
/// has walked it, so rules can be stacked by depth.
pub(crate) trait Prune {
    /// The walk enters the directory at `dir` (`relative` to the search
    /// root, `""` for the root itself) and will list it next.
    fn enter(&mut self, policy: &PathPolicy, dir: &Path, relative: &str);
    /// The walk is done with the directory it entered last.
    fn leave(&mut self);
    /// Whether the entry at `relative` (to the search root) is hidden.
    fn prunes(&self, relative: &str, is_dir: bool) -> bool;
}

/// Hides nothing: the walk of a dialect without ignore files.
pub(crate) struct NoPrune;

impl Prune for NoPrune {
    fn enter(&mut self, _: &PathPolicy, _: &Path, _: &str) {}
    fn leave(&mut self) {}
    fn prunes(&self, _: &str, _: bool) -> bool {
        false
    }
}

/// An entry found by [`walk_each`], kept after the walk.
#[derive(Debug, Clone)]
pub(crate) struct WalkEntry {
    /// Absolute path (under the real search root).
    pub(crate) path: PathBuf,
    /// Path relative to the search root, `/`-separated.
    pub(crate) relative: String,
    pub(crate) is_dir: bool,
    pub(crate) modified: Option<SystemTime>,
}

/// An entry as [`walk_each`] meets it: what [`WalkEntry`] holds, with its
/// modification time read only when asked for and its content opened from
/// the walk's own directory handle.
pub(crate) struct Visit<'a> {
    /// Absolute path (under the real search root).
    pub(crate) path: PathBuf,
    /// Path relative to the search root, `/`-separated.
    pub(crate) relative: String,
    pub(crate) is_dir: bool,
    dir: &'a OpenedDir,
    name: &'a OsStr,
    /// For a symlink, what it leads to (already stat'ed through the policy).
    followed: Option<Metadata>,
}

impl Visit<'_> {
    /// The last component of [`Visit::relative`].
    pub(crate) fn base_name(&self) -> &str {
        self.relative.rsplit('/').next().unwrap_or(&self.relative)
    }

    /// When the entry (a link: what it leads to) was last modified; `None`
    /// when that cannot be read.
    pub(crate) fn modified(&self) -> Option<SystemTime> {
        let modified = match &self.followed {
            Some(meta) => meta.modified(),
            None => self
                .dir
                .metadata(self.name)
                .and_then(|meta| meta.modified()),
        };
        modified.ok().map(cap_std::time::SystemTime::into_std)
    }

    /// When the entry itself was last modified: a link's own time, not what
    /// it leads to (as an `lstat` reads it); `None` when that cannot be read.
    pub(crate) fn own_modified(&self) -> Option<SystemTime> {
        self.dir
            .metadata(self.name)
            .and_then(|meta| meta.modified())
            .ok()
            .map(cap_std::time::SystemTime::into_std)
    }

    /// Opens the file for reading and stats what was opened: from the
    /// directory's handle, or for a symlink through the policy, which
    /// follows it only where it may lead.
    pub(crate) fn open(
        &self,
        policy: &PathPolicy,
    ) -> io::Result<(std::fs::File, std::fs::Metadata)> {
        if self.followed.is_some() {
            let file = policy.open_read(&self.path)?;
            let metadata = file.metadata()?;
            Ok((file, metadata))
        } else {
            self.dir.open_file(self.name)
        }
    }

    /// The entry kept after the walk (its modification time read now).
    pub(crate) fn into_entry(self) -> WalkEntry {
        let modified = self.modified();
        WalkEntry {
            path: self.path,
            relative: self.relative,
            is_dir: self.is_dir,
            modified,
        }
    }
}

/// Hands every entry under `root` (not `root` itself) to `visit`, depth first
/// in name order, a directory before what it holds. Unreadable directories
/// are handed over but not descended into.
pub(crate) fn walk_each(
    policy: &PathPolicy,
    root: &Path,
    prune: &mut dyn Prune,
    visit: &mut dyn FnMut(Visit<'_>),
) {
    // The visitor never stops the walk, so how it ended says nothing.
    let _ = walk_until(policy, root, prune, &mut |entry| {
        visit(entry);
        ControlFlow::Continue(())
    });
}

/// [`walk_each`] for a caller that may have seen enough: the walk ends as
/// soon as `visit` answers [`ControlFlow::Break`], listing and opening
/// nothing more (and says so by answering `Break` itself).
pub(crate) fn walk_until(
    policy: &PathPolicy,
    root: &Path,
    prune: &mut dyn Prune,
    visit: &mut dyn FnMut(Visit<'_>) -> ControlFlow<()>,
) -> ControlFlow<()> {
    let Ok(dir) = policy.open_dir(root) else {
        return ControlFlow::Continue(());
    };
    walk_dir(policy, &dir, root, "", prune, visit)
}

/// Walks one directory between telling `prune` it is entered and left.
fn walk_dir(
    policy: &PathPolicy,
    dir: &OpenedDir,
    path: &Path,
    prefix: &str,
    prune: &mut dyn Prune,
    visit: &mut dyn FnMut(Visit<'_>) -> ControlFlow<()>,
) -> ControlFlow<()> {
    prune.enter(policy, path, prefix);
    let walked = walk_entries(policy, dir, path, prefix, prune, visit);
    prune.leave();
    walked
}

fn walk_entries(
    policy: &PathPolicy,
    dir: &OpenedDir,
    path: &Path,
    prefix: &str,
    prune: &mut dyn Prune,
    visit: &mut dyn FnMut(Visit<'_>) -> ControlFlow<()>,
) -> ControlFlow<()> {
    let Ok(mut listed) = dir.entries() else {
        return ControlFlow::Continue(());
    };
    listed.sort_by(|a, b| a.name.cmp(&b.name));
    for entry in &listed {
        if SKIPPED_DIRS.contains(&entry.name.as_bytes()) {
            continue;
        }
        let name = display_name(&entry.name);
        let child = path.join(&entry.name);
        let relative = if prefix.is_empty() {
            name
        } else {
            format!("{prefix}/{name}")
        };
        let followed = if entry.is_symlink {
            // A symlink to a file is listed (after checking where it really
            // points); a symlink to a directory is not followed.
            match policy.stat(&child) {
                Ok(meta) if !meta.is_dir() => Some(meta),
                _ => continue,
            }
        } else {
            if policy.check(&child).is_err() {
                continue;
            }
            None
        };
        let is_dir = followed.is_none() && entry.is_dir;
        if prune.prunes(&relative, is_dir) {
            continue;
        }
        // Descending needs the path and relative name after the visit.
        let descend = is_dir.then(|| (child.clone(), relative.clone()));
        visit(Visit {
            path: child,
            relative,
            is_dir,
            dir,
            name: &entry.name,
            followed,
        })?;
        if let Some((child, relative)) = descend {
            if let Ok(sub) = dir.subdir(&entry.name) {
                walk_dir(policy, &sub, &child, &relative, prune, visit)?;
            }
        }
    }
    ControlFlow::Continue(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;
    use std::io::Read;
    use std::os::unix::fs::symlink;

    #[test]
    fn the_walk_is_sorted_depth_first_and_never_leaves_the_root() {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = fs::canonicalize(dir.path()).expect("canonical");
        let outside = tempfile::tempdir().expect("tempdir");
        fs::write(outside.path().join("secret.txt"), "secret").expect("write");
        fs::create_dir_all(root.join("b/deep")).expect("mkdir");
        fs::create_dir_all(root.join("node_modules/x")).expect("mkdir");
        fs::write(root.join("b/deep/c.txt"), "c").expect("write");
        fs::write(root.join("a.txt"), "a").expect("write");
        symlink(outside.path(), root.join("out-dir")).expect("symlink");
        symlink(outside.path().join("secret.txt"), root.join("out-file")).expect("symlink");
        symlink(root.join("a.txt"), root.join("in-file")).expect("symlink");
        let policy =
            PathPolicy::new(&root, &[], &[], crate::engine::paths::Scope::Root).expect("policy");
        let mut seen = Vec::new();
        walk_each(&policy, &root, &mut NoPrune, &mut |visit| {
            let content = if visit.is_dir {
                String::new()
            } else {
                let (mut file, _) = visit.open(&policy).expect("open");
                let mut text = String::new();
                file.read_to_string(&mut text).expect("read");
                text
            };
            seen.push((visit.relative.clone(), visit.is_dir, content));
        });
        let expected = [
            ("a.txt", false, "a"),
            ("b", true, ""),
            ("b/deep", true, ""),
            ("b/deep/c.txt", false, "c"),
            ("in-file", false, "a"),
        ];
        let expected: Vec<(String, bool, String)> = expected
            .iter()
            .map(|(name, is_dir, text)| (name.to_string(), *is_dir, text.to_string()))
            .collect();
        assert_eq!(seen, expected);
    }

    #[test]
    fn the_walk_ends_when_the_visitor_has_seen_enough() {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = fs::canonicalize(dir.path()).expect("canonical");
        fs::create_dir_all(root.join("b/deep")).expect("mkdir");
        for name in ["a.txt", "b/deep/c.txt", "d.txt"] {
            fs::write(root.join(name), "x").expect("write");
        }
        let policy =
            PathPolicy::new(&root, &[], &[], crate::engine::paths::Scope::Root).expect("policy");
        let mut seen = Vec::new();
        let ended = walk_until(&policy, &root, &mut NoPrune, &mut |visit| {
            seen.push(visit.relative.clone());
            if visit.relative == "b/deep" {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        });
        assert_eq!(ended, ControlFlow::Break(()));
        assert_eq!(seen, ["a.txt", "b", "b/deep"], "nothing after the stop");
        let mut all = 0;
        let ended = walk_until(&policy, &root, &mut NoPrune, &mut |_| {
            all += 1;
            ControlFlow::Continue(())
        });
        assert_eq!((ended, all), (ControlFlow::Continue(()), 5));
    }
}
