//! The soak's tree: a base folder holding the server's root and, beside it,
//! a canary folder that the root's symlinks lead to. Nothing the server
//! does may change the canary or add anything to the base.

use std::collections::{BTreeMap, BTreeSet};
use std::os::unix::fs::{symlink, MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};

/// Text only the canary's files hold: an answer that shows it read outside
/// the root. No argument the soak sends contains it.
pub(super) const TOKEN: &str = "CANARY-TOKEN-5e7c41";

/// The base folder (removed on drop) and the two folders in it.
pub(super) struct Fixture {
    _dir: tempfile::TempDir,
    pub(super) base: PathBuf,
    pub(super) root: PathBuf,
    pub(super) canary: PathBuf,
}

/// The symlinks planted in the root, and where they lead.
pub(super) const LINKS: [&str; 6] = [
    "ln-dir",
    "ln-file",
    "ln-rel",
    "ln-dangling",
    "ln-up",
    "sub/ln-deep",
];

impl Fixture {
    /// Builds the tree; a failure here is the test machine's, so it panics.
    pub(super) fn new() -> Fixture {
        let dir = tempfile::tempdir().expect("tempdir");
        let base = std::fs::canonicalize(dir.path()).expect("canonical");
        let root = base.join("root");
        let canary = base.join("canary");
        let write = |path: PathBuf, text: &str, mode: u32| {
            std::fs::write(&path, text).expect("write fixture file");
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode))
                .expect("chmod fixture file");
        };
        std::fs::create_dir_all(canary.join("sub")).expect("mkdir canary");
        write(
            canary.join("secret.txt"),
            &format!("canary alpha {TOKEN}\n"),
            0o644,
        );
        write(
            canary.join("sub/deep.txt"),
            &format!("deep canary {TOKEN}\nalpha\n"),
            0o600,
        );
        write(canary.join("empty"), "", 0o444);
        symlink(&root, canary.join("to-root")).expect("symlink");

        std::fs::create_dir_all(root.join("sub")).expect("mkdir root");
        std::fs::create_dir_all(root.join("src")).expect("mkdir root");
        write(root.join("a.txt"), "alpha\nbeta\nalpha\n", 0o644);
        write(root.join("sub/notes.md"), "# notes\nalpha beta\n", 0o644);
        write(
            root.join("src/main.rs"),
            "fn main() {\n    println!(\"alpha\");\n}\n",
            0o644,
        );
        write(root.join(".gitignore"), "ignored/\n", 0o644);
        symlink(&canary, root.join("ln-dir")).expect("symlink");
        symlink(canary.join("secret.txt"), root.join("ln-file")).expect("symlink");
        symlink("../canary", root.join("ln-rel")).expect("symlink");
        symlink(canary.join("planted.txt"), root.join("ln-dangling")).expect("symlink");
        symlink(&base, root.join("ln-up")).expect("symlink");
        symlink("../../canary/sub", root.join("sub/ln-deep")).expect("symlink");
        Fixture {
            _dir: dir,
            base,
            root,
            canary,
        }
    }

    /// What the check compares: the names in the base, and every entry of
    /// the canary (not following links).
    pub(super) fn state(&self) -> State {
        let names = std::fs::read_dir(&self.base)
            .expect("list the base")
            .map(|entry| {
                entry
                    .expect("base entry")
                    .file_name()
                    .to_string_lossy()
                    .into_owned()
            })
            .collect();
        let mut canary = BTreeMap::new();
        let mut pending = vec![self.canary.clone()];
        while let Some(dir) = pending.pop() {
            canary.insert(dir.clone(), entry_state(&dir));
            for entry in std::fs::read_dir(&dir).expect("list the canary") {
                let path = entry.expect("canary entry").path();
                let state = entry_state(&path);
                if state.kind == "dir" {
                    pending.push(path);
                } else {
                    canary.insert(path, state);
                }
            }
        }
        State {
            base_names: names,
            canary,
        }
    }
}

/// Names beside the root, and the canary's entries by path.
#[derive(PartialEq, Eq)]
pub(super) struct State {
    base_names: BTreeSet<String>,
    canary: BTreeMap<PathBuf, EntryState>,
}

/// One entry as `lstat` and a read show it. The change time catches a mode
/// or owner set back to what it was.
#[derive(PartialEq, Eq, Debug)]
struct EntryState {
    kind: &'static str,
    mode: u32,
    inode: u64,
    modified: (i64, i64),
    changed: (i64, i64),
    /// A file's bytes or a link's target.
    content: Vec<u8>,
}

fn entry_state(path: &Path) -> EntryState {
    let meta = std::fs::symlink_metadata(path).expect("lstat canary entry");
    let (kind, content) = if meta.file_type().is_symlink() {
        let target = std::fs::read_link(path).expect("readlink");
        ("link", target.into_os_string().into_encoded_bytes())
    } else if meta.is_dir() {
        ("dir", Vec::new())
    } else if meta.is_file() {
        ("file", std::fs::read(path).expect("read canary file"))
    } else {
        ("other", Vec::new())
    };
    EntryState {
        kind,
        mode: meta.mode(),
        inode: meta.ino(),
        modified: (meta.mtime(), meta.mtime_nsec()),
        changed: (meta.ctime(), meta.ctime_nsec()),
        content,
    }
}

impl State {
    /// How `now` differs from `self`, one line per entry; empty if not.
    pub(super) fn changes(&self, now: &State) -> Vec<String> {
        let mut out = Vec::new();
        for name in now.base_names.difference(&self.base_names) {
            out.push(format!("{name} appeared beside the root"));
        }
        for name in self.base_names.difference(&now.base_names) {
            out.push(format!("{name} vanished from beside the root"));
        }
        for (path, was) in &self.canary {
            match now.canary.get(path) {
                None => out.push(format!("{} was removed", path.display())),
                Some(is) if is != was => out.push(format!(
                    "{} changed: {}",
                    path.display(),
                    what_changed(was, is)
                )),
                Some(_) => {}
            }
        }
        for path in now
            .canary
            .keys()
            .filter(|path| !self.canary.contains_key(*path))
        {
            out.push(format!("{} appeared", path.display()));
        }
        out
    }
}

fn what_changed(was: &EntryState, is: &EntryState) -> String {
    let mut parts = Vec::new();
    if was.kind != is.kind {
        parts.push(format!("{} became {}", was.kind, is.kind));
    }
    if was.content != is.content {
        parts.push(format!(
            "content {:?} became {:?}",
            String::from_utf8_lossy(&was.content),
            String::from_utf8_lossy(&is.content)
        ));
    }
    if was.mode != is.mode {
        parts.push(format!("mode {:o} became {:o}", was.mode, is.mode));
    }
    if was.inode != is.inode {
        parts.push("replaced (new inode)".to_string());
    }
    if was.modified != is.modified {
        parts.push("modification time moved".to_string());
    }
    if was.changed != is.changed {
        parts.push("change time moved".to_string());
    }
    parts.join(", ")
}
