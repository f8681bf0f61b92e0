//! The walk behind agent-tools' `glob` and `grep`: every file under a
//! folder, a folder's files in name order and then its subfolders, depth
//! first, as v0.1.0's tinyglobby lists them (src/lib/files.ts:38-58): a link
//! to a file is listed by its own name wherever it leads (its content is
//! read only where it leads inside the root), a link to a folder is walked
//! under its own name (only where it leads inside the root: v0.1.0 follows
//! one out of it too, an escape), and a dangling link is not listed. When
//! asked, what v0.1.0's ignore rules leave out ([`Ignores`]) is left out.
//!
//! Each folder is opened from its parent's handle and each file from its
//! folder's (see [`OpenedDir`]), without following a link, so the walk
//! neither leaves the confined root nor looks every path up again from it;
//! only a link goes through the policy by path.

use std::ffi::OsStr;
use std::io;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use super::ignore::Ignores;
use super::workspace::relative_to;
use crate::dialects::Context;
use crate::engine::confined_fs::{LeadsTo, Metadata, OpenedDir};

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
    /// A symlink to a file inside the root (already stat'ed through the policy).
    Linked(Metadata),
    /// A symlink to a file beyond the root: listed, never opened; when it
    /// was last changed, read through the link without opening it.
    Beyond(Option<SystemTime>),
}

impl Found<'_> {
    /// When the file (what a link leads to, when it is one) was last modified.
    pub(super) fn modified(&self) -> Option<SystemTime> {
        let modified = match &self.place {
            Place::Listed { dir, name } => dir.metadata(name).and_then(|meta| meta.modified()),
            Place::Linked(meta) => meta.modified(),
            Place::Beyond(modified) => return *modified,
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
            Place::Beyond(_) => Err(io::Error::new(
                io::ErrorKind::PermissionDenied,
                "a link out of the root is listed, never read",
            )),
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
    let Ok(dir) = ctx.policy.open_dir(base) else {
        return;
    };
    let walk = Walk {
        ctx,
        base,
        ignores: respect_ignore.then(|| Ignores::new(ctx)),
    };
    walk.folder(&dir, base, base, visit);
}

/// What stays the same through one walk.
struct Walk<'a> {
    ctx: &'a Context,
    base: &'a Path,
    ignores: Option<Ignores<'a>>,
}

/// A subfolder to walk once its folder's files are visited.
enum Subfolder<'a> {
    /// A folder listed by this name.
    Named(&'a OsStr),
    /// A link to a folder inside the root, and where it leads.
    Linked(PathBuf),
}

impl Walk<'_> {
    /// Visits the files of folder `dir`, named `path` (links on the way kept)
    /// and really at `real`, then walks its subfolders.
    fn folder(&self, dir: &OpenedDir, path: &Path, real: &Path, visit: &mut dyn FnMut(Found<'_>)) {
        let root = self.ctx.policy.root();
        let Ok(mut listed) = dir.entries() else {
            return;
        };
        listed.sort_by(|a, b| a.name.cmp(&b.name));
        let mut subfolders = Vec::new();
        for entry in &listed {
            let name = entry.name.as_os_str();
            let child = path.join(name);
            let place = if entry.is_symlink {
                match dir.through_link(name) {
                    None => continue,
                    Some(through) if through.leads_to == LeadsTo::Directory => {
                        // Walked where it leads inside the root, and never into
                        // a folder the walk is already in.
                        if let Ok(target) = self.ctx.policy.follow(&child) {
                            if target.starts_with(root) && !real.starts_with(&target) {
                                subfolders.push((child, Subfolder::Linked(target)));
                            }
                        }
                        continue;
                    }
                    Some(through) => match self.ctx.policy.stat(&child) {
                        Ok(meta) if meta.is_file() => Place::Linked(meta),
                        _ => Place::Beyond(through.modified),
                    },
                }
            } else if entry.is_dir {
                if self.ignores.is_some() && name == ".git" {
                    continue;
                }
                subfolders.push((child, Subfolder::Named(name)));
                continue;
            } else {
                Place::Listed { dir, name }
            };
            // Outside the root only where a confinement bug let the walk out
            // (an escape mutation): named by its absolute path.
            let shown = relative_to(root, &child).unwrap_or_else(|| child.display().to_string());
            if self.ignores.as_ref().is_some_and(|i| i.ignores(&shown)) {
                continue;
            }
            visit(Found {
                under_base: relative_to(self.base, &child).unwrap_or_else(|| shown.clone()),
                shown,
                path: child,
                place,
            });
        }
        for (child, subfolder) in subfolders {
            match subfolder {
                Subfolder::Named(name) => {
                    // As listing the folder by its path would: the policy must allow it.
                    if self.ctx.policy.check(&real.join(name)).is_err() {
                        continue;
                    }
                    if let Ok(sub) = dir.subdir(name) {
                        self.folder(&sub, &child, &real.join(name), visit);
                    }
                }
                Subfolder::Linked(target) => {
                    if let Ok(sub) = self.ctx.policy.open_dir(&target) {
                        self.folder(&sub, &child, &target, visit);
                    }
                }
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
            let mut text = String::new();
            match found.open(ctx) {
                Ok((mut file, _)) => {
                    file.read_to_string(&mut text).expect("read");
                }
                Err(_) => text.push_str("(unread)"),
            }
            assert!(found.modified().is_some(), "{}", found.shown);
            seen.push((found.shown, found.under_base, text));
        });
        seen
    }

    #[test]
    fn files_come_before_subfolders_links_are_followed_inside_and_ignored_ones_are_left_out() {
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
        symlink(root.join("src/deep"), root.join("in-dir")).expect("symlink");
        symlink(root.join("missing"), root.join("dangling")).expect("symlink");
        symlink(&root, root.join("src/loop")).expect("symlink");
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
                "out-file out-file (unread)",
                "in-dir/c.txt in-dir/c.txt c",
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
