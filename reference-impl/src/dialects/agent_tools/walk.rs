//! The walk behind agent-tools' `glob` and `grep`: every file under a
//! folder, a folder's files in name order and then its subfolders, depth
//! first; `.git` and what the root `.gitignore` names (plain patterns, no
//! `!` negation) are left out when asked, a symlink to a directory is never
//! followed, and a symlinked file is listed only when its target is inside
//! the root.
//!
//! Each folder is opened from its parent's handle and each file from its
//! folder's (see [`OpenedDir`]), without following a link, so the walk
//! neither leaves the confined root nor looks every path up again from it;
//! only a symlink to a file goes through the policy by path.

use std::ffi::OsStr;
use std::io;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use globset::GlobMatcher;

use super::workspace::relative_to;
use crate::dialects::Context;
use crate::engine::confined_fs::{Metadata, OpenedDir};
use crate::engine::search::compile_glob;

/// A root `.gitignore` line.
struct IgnoreRule {
    matcher: GlobMatcher,
    dir_only: bool,
}

fn ignore_rules(ctx: &Context, root: &Path) -> Vec<IgnoreRule> {
    let Ok(bytes) = ctx.policy.read(&root.join(".gitignore")) else {
        return Vec::new();
    };
    let Ok(text) = String::from_utf8(bytes) else {
        return Vec::new();
    };
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#') && !l.starts_with('!'))
        .filter_map(|line| {
            let dir_only = line.ends_with('/');
            let line = line.trim_end_matches('/');
            // A pattern with an inner slash is anchored at the root; one
            // without matches a name at any depth.
            let pattern = match line.strip_prefix('/') {
                Some(anchored) => anchored.to_string(),
                None if line.contains('/') => line.to_string(),
                None => format!("**/{line}"),
            };
            compile_glob(&pattern)
                .ok()
                .map(|matcher| IgnoreRule { matcher, dir_only })
        })
        .collect()
}

/// A file found by [`walk`].
pub(super) struct Found<'a> {
    pub(super) path: PathBuf,
    /// Relative to the directory walked.
    pub(super) under_base: String,
    /// Relative to the workspace root (absolute where only a confinement bug
    /// let the walk outside it).
    pub(super) shown: String,
    /// Where it was listed, or for a symlink what it leads to.
    place: Place<'a>,
}

/// Where a found file is opened from.
enum Place<'a> {
    /// The folder it was listed in, and its name there.
    Listed { dir: &'a OpenedDir, name: &'a OsStr },
    /// A symlink, and what it leads to (already stat'ed through the policy).
    Linked(Metadata),
}

impl Found<'_> {
    /// When the file (a link itself, when it is one) was last modified.
    pub(super) fn modified(&self) -> Option<SystemTime> {
        let modified = match &self.place {
            Place::Listed { dir, name } => dir.metadata(name).and_then(|meta| meta.modified()),
            Place::Linked(meta) => meta.modified(),
        };
        modified.ok().map(cap_std::time::SystemTime::into_std)
    }

    /// Opens the file for reading and stats what was opened: from its
    /// folder's handle once the policy allows its path, or for a symlink
    /// through the policy, which follows it only where it may lead.
    pub(super) fn open(&self, ctx: &Context) -> io::Result<(std::fs::File, std::fs::Metadata)> {
        match &self.place {
            Place::Listed { dir, name } => {
                ctx.policy.check(&self.path).map_err(|err| {
                    io::Error::new(io::ErrorKind::PermissionDenied, format!("{err:?}"))
                })?;
                dir.open_file(name)
            }
            Place::Linked(_) => {
                let file = ctx.policy.open_read(&self.path)?;
                let metadata = file.metadata()?;
                Ok((file, metadata))
            }
        }
    }
}

/// Hands every file under `base` to `visit` as it is found: a folder's files
/// in name order, then its subfolders, depth first.
pub(super) fn walk(
    ctx: &Context,
    base: &Path,
    respect_ignore: bool,
    visit: &mut dyn FnMut(Found<'_>),
) {
    let rules = if respect_ignore {
        ignore_rules(ctx, ctx.policy.root())
    } else {
        Vec::new()
    };
    let Ok(dir) = ctx.policy.open_dir(base) else {
        return;
    };
    let walk = Walk {
        ctx,
        base,
        respect_ignore,
        rules,
    };
    walk.folder(&dir, base, visit);
}

/// What stays the same through one walk.
struct Walk<'a> {
    ctx: &'a Context,
    base: &'a Path,
    respect_ignore: bool,
    rules: Vec<IgnoreRule>,
}

impl Walk<'_> {
    /// Visits the files of folder `dir` (at `path`), then walks its subfolders.
    fn folder(&self, dir: &OpenedDir, path: &Path, visit: &mut dyn FnMut(Found<'_>)) {
        let root = self.ctx.policy.root();
        let Ok(mut listed) = dir.entries() else {
            return;
        };
        listed.sort_by(|a, b| a.name.cmp(&b.name));
        let mut subdirs = Vec::new();
        for entry in &listed {
            let name = entry.name.as_os_str();
            let child = path.join(name);
            // The listing's own type: a symlink is not a directory here.
            let is_dir = entry.is_dir && !entry.is_symlink;
            if self.respect_ignore && is_dir && name == ".git" {
                continue;
            }
            // Outside the root only where a confinement bug let the walk out
            // (an escape mutation): named by its absolute path.
            let shown = relative_to(root, &child).unwrap_or_else(|| child.display().to_string());
            if self
                .rules
                .iter()
                .any(|r| (is_dir || !r.dir_only) && r.matcher.is_match(&shown))
            {
                continue;
            }
            if is_dir {
                subdirs.push((child, name));
                continue;
            }
            let place = if entry.is_symlink {
                // Followed only where the confinement allows (inside the root).
                match self.ctx.policy.stat(&child) {
                    Ok(meta) if meta.is_file() => Place::Linked(meta),
                    _ => continue,
                }
            } else {
                Place::Listed { dir, name }
            };
            visit(Found {
                under_base: relative_to(self.base, &child).unwrap_or_else(|| shown.clone()),
                shown,
                path: child,
                place,
            });
        }
        for (child, name) in subdirs {
            // As listing the folder by its path would: the policy must allow it.
            if self.ctx.policy.check(&child).is_err() {
                continue;
            }
            if let Ok(sub) = dir.subdir(name) {
                self.folder(&sub, &child, visit);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;
    use std::io::Read;
    use std::os::unix::fs::symlink;
    use std::time::Duration;

    use crate::dialects::agent_tools::mutations::Mutation;
    use crate::engine::paths::{PathPolicy, Scope};
    use crate::engine::shell::Shell;
    use crate::mutations::Mutations;

    fn context(root: &Path) -> Context {
        Context {
            policy: PathPolicy::new(root, &[], &[], Scope::Root).expect("policy"),
            max_file_size: 1 << 20,
            default_timeout: Duration::from_secs(1),
            output_limit: 1 << 20,
            read_only: false,
            shell: Shell::new(root.to_path_buf()),
            mutations: Mutations::of::<Mutation>(&[]),
        }
    }

    /// Every file found (shown path, path under the base, content).
    fn found(ctx: &Context, base: &Path, respect_ignore: bool) -> Vec<(String, String, String)> {
        let mut seen = Vec::new();
        walk(ctx, base, respect_ignore, &mut |found| {
            let (mut file, _) = found.open(ctx).expect("open");
            let mut text = String::new();
            file.read_to_string(&mut text).expect("read");
            assert!(found.modified().is_some(), "{}", found.shown);
            seen.push((found.shown, found.under_base, text));
        });
        seen
    }

    #[test]
    fn files_come_before_subfolders_and_ignored_or_outside_ones_are_left_out() {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = fs::canonicalize(dir.path()).expect("canonical");
        let outside = tempfile::tempdir().expect("tempdir");
        fs::write(outside.path().join("secret.txt"), "secret").expect("write");
        for folder in ["src/deep", ".git", "node_modules", "build", "logs"] {
            fs::create_dir_all(root.join(folder)).expect("mkdir");
        }
        fs::write(root.join(".gitignore"), "build/\n*.log\n/logs\n").expect("write");
        fs::write(root.join("src/deep/c.txt"), "c").expect("write");
        fs::write(root.join("src/b.txt"), "b").expect("write");
        fs::write(root.join("src/z.log"), "log").expect("write");
        fs::write(root.join("a.txt"), "a").expect("write");
        fs::write(root.join(".git/config"), "git").expect("write");
        fs::write(root.join("node_modules/m.js"), "m").expect("write");
        fs::write(root.join("build/out.txt"), "out").expect("write");
        fs::write(root.join("logs/today.txt"), "today").expect("write");
        symlink(outside.path(), root.join("out-dir")).expect("symlink");
        symlink(outside.path().join("secret.txt"), root.join("out-file")).expect("symlink");
        symlink(root.join("a.txt"), root.join("in-file")).expect("symlink");
        let ctx = context(&root);
        let shown = |seen: Vec<(String, String, String)>| -> Vec<String> {
            seen.into_iter()
                .map(|(shown, under, text)| format!("{shown} {under} {text}"))
                .collect()
        };
        assert_eq!(
            shown(found(&ctx, &root, true)),
            [
                ".gitignore .gitignore build/\n*.log\n/logs\n",
                "a.txt a.txt a",
                "in-file in-file a",
                "node_modules/m.js node_modules/m.js m",
                "src/b.txt src/b.txt b",
                "src/deep/c.txt src/deep/c.txt c",
            ]
        );
        let all = shown(found(&ctx, &root, false));
        assert!(all.contains(&".git/config .git/config git".to_string()), "{all:?}");
        assert!(all.contains(&"build/out.txt build/out.txt out".to_string()), "{all:?}");
        assert!(!all.iter().any(|line| line.contains("secret")), "{all:?}");
        assert_eq!(
            shown(found(&ctx, &root.join("src"), true)),
            ["src/b.txt b.txt b", "src/deep/c.txt deep/c.txt c"]
        );
    }
}
