//! The tree walk that content search and name search share.
//!
//! It goes depth first in name order, so results are deterministic, skips
//! `.git` and `node_modules` (as the upstream servers do), and silently
//! skips entries the path policy refuses (a symlink to a file is followed
//! only where the policy allows its target). A symlink to a directory is
//! left out unless the caller asks for [`DirLinks::Listed`] (handed over as
//! an entry of its own, never entered) or [`DirLinks::Followed`] (entered
//! only where the policy allows its target, and each real directory once,
//! so a link cannot make it loop). A name that is not UTF-8 is walked under
//! its real bytes and shown as [`display_name`] renders it.
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

use std::collections::HashSet;
use std::ffi::OsStr;
use std::io;
use std::ops::ControlFlow;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use cap_std::fs::MetadataExt;

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

/// What the walk does with a symlink that leads to a directory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum DirLinks {
    /// Left out: neither listed nor entered (how most programs walk).
    Skipped,
    /// Handed over as an entry of its own, not a folder and not entered,
    /// and so is a link that leads nowhere (a link out of the policy's reach
    /// is still left out): node-glob's walk with `nodir` and without
    /// `follow`, which judges a link by its own type (gemini-cli-core
    /// 0.1.13, tools/glob.js:132).
    Listed,
    /// Entered as a directory under the link's name where the policy allows
    /// where it leads; every real directory is walked once, under the first
    /// name the walk meets it by, the root counted as met (Boris's grep,
    /// grep.go:578-583 and 648-685, so a link into the tree hides the
    /// folder's own name when it sorts first).
    Followed,
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
    let _ = walk_until(policy, root, prune, DirLinks::Skipped, &mut |entry| {
        visit(entry);
        ControlFlow::Continue(())
    });
}

/// [`walk_each`] for a caller that may have seen enough: the walk ends as
/// soon as `visit` answers [`ControlFlow::Break`], listing and opening
/// nothing more (and says so by answering `Break` itself). `links` says
/// what becomes of symlinks to directories.
pub(crate) fn walk_until(
    policy: &PathPolicy,
    root: &Path,
    prune: &mut dyn Prune,
    links: DirLinks,
    visit: &mut dyn FnMut(Visit<'_>) -> ControlFlow<()>,
) -> ControlFlow<()> {
    let Ok(dir) = policy.open_dir(root) else {
        return ControlFlow::Continue(());
    };
    let mut seen = HashSet::new();
    if links == DirLinks::Followed {
        if let Ok(meta) = dir.own_metadata() {
            seen.insert(identity(&meta));
        }
    }
    let mut walk = Walk {
        policy,
        prune,
        links,
        seen,
        visit,
    };
    walk.dir(&dir, root, "")
}

/// A directory's identity on the machine: the same real directory under two
/// names has one.
fn identity(meta: &Metadata) -> (u64, u64) {
    (meta.dev(), meta.ino())
}

/// One walk's state: who is told what, and (kept only when links to
/// directories are followed, the one way to meet a directory twice) the
/// real directories already entered.
struct Walk<'p, 'v> {
    policy: &'p PathPolicy,
    prune: &'p mut dyn Prune,
    links: DirLinks,
    seen: HashSet<(u64, u64)>,
    visit: &'v mut dyn FnMut(Visit<'_>) -> ControlFlow<()>,
}

impl Walk<'_, '_> {
    /// Walks one directory between telling `prune` it is entered and left.
    fn dir(&mut self, dir: &OpenedDir, path: &Path, prefix: &str) -> ControlFlow<()> {
        self.prune.enter(self.policy, path, prefix);
        let walked = self.entries(dir, path, prefix);
        self.prune.leave();
        walked
    }

    fn entries(&mut self, dir: &OpenedDir, path: &Path, prefix: &str) -> ControlFlow<()> {
        let Ok(mut listed) = dir.entries() else {
            return ControlFlow::Continue(());
        };
        listed.sort_by(|a, b| a.name.cmp(&b.name));
        let follows_dir_links = self.links == DirLinks::Followed;
        let lists_links = self.links == DirLinks::Listed;
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
            // For a link, what it leads to, checked through the policy: a
            // link to a file is listed; a link to a directory only when
            // such links are followed or listed, and one that leads nowhere
            // only when links are listed as themselves.
            let followed = if entry.is_symlink {
                match self.policy.stat(&child) {
                    Ok(meta) if !meta.is_dir() || follows_dir_links => Some(meta),
                    Ok(_) if lists_links => None,
                    Err(err) if lists_links && err.kind() == io::ErrorKind::NotFound => None,
                    _ => continue,
                }
            } else {
                if self.policy.check(&child).is_err() {
                    continue;
                }
                None
            };
            let is_dir = match &followed {
                Some(meta) => meta.is_dir(),
                None => entry.is_dir,
            };
            if self.prune.prunes(&relative, is_dir) {
                continue;
            }
            if is_dir && follows_dir_links {
                // Entered only the first time its real directory is met.
                let met = match &followed {
                    Some(meta) => Ok(identity(meta)),
                    None => dir.metadata(&entry.name).map(|meta| identity(&meta)),
                };
                match met {
                    Ok(id) if self.seen.insert(id) => {}
                    _ => continue,
                }
            }
            // Descending needs the path and relative name after the visit.
            let descend = is_dir.then(|| (child.clone(), relative.clone()));
            let through_link = followed.is_some();
            (self.visit)(Visit {
                path: child,
                relative,
                is_dir,
                dir,
                name: &entry.name,
                followed,
            })?;
            if let Some((child, relative)) = descend {
                let sub = if through_link {
                    self.policy.open_dir(&child)
                } else {
                    dir.subdir(&entry.name)
                };
                if let Ok(sub) = sub {
                    self.dir(&sub, &child, &relative)?;
                }
            }
        }
        ControlFlow::Continue(())
    }
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
        let ended = walk_until(
            &policy,
            &root,
            &mut NoPrune,
            DirLinks::Skipped,
            &mut |visit| {
                seen.push(visit.relative.clone());
                if visit.relative == "b/deep" {
                    ControlFlow::Break(())
                } else {
                    ControlFlow::Continue(())
                }
            },
        );
        assert_eq!(ended, ControlFlow::Break(()));
        assert_eq!(seen, ["a.txt", "b", "b/deep"], "nothing after the stop");
        let mut all = 0;
        let ended = walk_until(&policy, &root, &mut NoPrune, DirLinks::Skipped, &mut |_| {
            all += 1;
            ControlFlow::Continue(())
        });
        assert_eq!((ended, all), (ControlFlow::Continue(()), 5));
    }

    #[test]
    fn links_to_folders_are_left_out_followed_once_or_listed_and_stay_in_the_root() {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = fs::canonicalize(dir.path()).expect("canonical");
        let outside = tempfile::tempdir().expect("tempdir");
        fs::write(outside.path().join("secret.txt"), "secret").expect("write");
        fs::create_dir_all(root.join("b/deep")).expect("mkdir");
        fs::write(root.join("b/deep/c.txt"), "c").expect("write");
        symlink("b/deep", root.join("a-link")).expect("symlink");
        symlink("..", root.join("b/up")).expect("symlink");
        symlink(".", root.join("self")).expect("symlink");
        symlink("b", root.join("z-link")).expect("symlink");
        symlink(outside.path(), root.join("out-dir")).expect("symlink");
        symlink("nowhere", root.join("gone")).expect("symlink");
        let policy =
            PathPolicy::new(&root, &[], &[], crate::engine::paths::Scope::Root).expect("policy");
        let walked = |links| {
            let mut seen = Vec::new();
            let _ = walk_until(&policy, &root, &mut NoPrune, links, &mut |visit| {
                seen.push(visit.relative.clone());
                ControlFlow::Continue(())
            });
            seen
        };
        // The link sorts before the folder it leads to, so the folder is
        // found under the link's name and not again; a link back up or to
        // the root is a folder already met; one out of the root is refused.
        assert_eq!(
            walked(DirLinks::Followed),
            ["a-link", "a-link/c.txt", "b"].map(String::from),
            "b/deep, b/up, self and z-link lead to folders already met"
        );
        assert_eq!(
            walked(DirLinks::Skipped),
            ["b", "b/deep", "b/deep/c.txt"].map(String::from)
        );
        // Listed: every link in reach, or leading nowhere, is an entry of its
        // own and never entered; the one out of the root is still left out.
        assert_eq!(
            walked(DirLinks::Listed),
            [
                "a-link",
                "b",
                "b/deep",
                "b/deep/c.txt",
                "b/up",
                "gone",
                "self",
                "z-link"
            ]
            .map(String::from)
        );
    }
}
