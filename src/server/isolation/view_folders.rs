//! The folders every view of this toolspec process shares, made once: the mount
//! point each server's view is built on, the path its scratch tmpfs is mounted at
//! inside the view, and an empty folder bound over the folders a view hides.
//!
//! Why shared: each server makes its view in a mount namespace of its own, so one
//! mount point serves every view at once, and a scratch folder that is a fresh
//! tmpfs of the server's own view needs no folder on the machine's disk at all. Both
//! were new folders per server before (with the private home, three new inodes each
//! time), and on an ext4 `/tmp` that a run fills with freed inodes, making them was
//! the largest part of isolation's CPU (docs/isolation.md, "Cost"). Nothing is ever
//! mounted on them in toolspec's own namespace, and nothing is written in them: they
//! are removed, empty, when toolspec exits (an interrupted run too, which exits).

use std::io;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use crate::server::at_exit::at_exit;

/// The shared folders, on the machine.
#[derive(Debug)]
pub(in crate::server) struct ViewFolders {
    /// Where each view's tmpfs is mounted while it is made.
    mount_point: PathBuf,
    /// Where each server's scratch tmpfs is, inside its view (its `TMPDIR`).
    scratch: PathBuf,
    /// Bound read-only over a folder the view hides (`/etc/ssh`): a bind of it
    /// costs less than a tmpfs of its own.
    empty: PathBuf,
}

impl ViewFolders {
    /// Makes the folders in the temporary folder, and has them removed at exit.
    pub(in crate::server) fn make() -> io::Result<ViewFolders> {
        let parent = tempfile::Builder::new()
            .prefix("toolspec-views-")
            .tempdir()?
            .keep();
        let folders = ViewFolders {
            mount_point: parent.join("view"),
            scratch: parent.join("scratch"),
            empty: parent.join("empty"),
        };
        let made = std::fs::create_dir(&folders.mount_point)
            .and_then(|()| std::fs::create_dir(&folders.scratch))
            .and_then(|()| std::fs::create_dir(&folders.empty));
        remove_at_exit([
            &folders.mount_point,
            &folders.scratch,
            &folders.empty,
            &parent,
        ]);
        made.map(|()| folders)
    }

    pub(in crate::server) fn mount_point(&self) -> &Path {
        &self.mount_point
    }

    pub(in crate::server) fn scratch(&self) -> &Path {
        &self.scratch
    }

    pub(in crate::server) fn empty(&self) -> &Path {
        &self.empty
    }
}

/// The folders to remove at exit, children first.
static MADE: OnceLock<Vec<PathBuf>> = OnceLock::new();

fn remove_at_exit(folders: [&Path; 4]) {
    if MADE
        .set(folders.iter().map(|path| path.to_path_buf()).collect())
        .is_ok()
    {
        at_exit(remove_folders);
    }
}

fn remove_folders() {
    for path in MADE.get().into_iter().flatten() {
        // Only an empty folder: nothing is ever put in them.
        let _ = std::fs::remove_dir(path);
    }
}
