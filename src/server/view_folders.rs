//! The two folders every view of this toolspec process shares, made once: the
//! mount point each server's view is built on, and the path its scratch tmpfs is
//! mounted at inside the view.
//!
//! Why shared: each server makes its view in a mount namespace of its own, so one
//! mount point serves every view at once, and a scratch folder that is a fresh
//! tmpfs of the server's own view needs no folder on the machine's disk at all. Both
//! were new folders per server before (with the private home, three new inodes each
//! time), and on an ext4 `/tmp` that a run fills with freed inodes, making them was
//! the largest part of isolation's CPU (docs/isolation.md, "Cost"). Nothing is ever
//! mounted on them in toolspec's own namespace, and nothing is written in them: they
//! are removed, empty, when toolspec exits (an interrupted run too, which exits).

use std::ffi::CString;
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// The shared folders, on the machine.
#[derive(Debug)]
pub(super) struct ViewFolders {
    /// Where each view's tmpfs is mounted while it is made.
    mount_point: PathBuf,
    /// Where each server's scratch tmpfs is, inside its view (its `TMPDIR`).
    scratch: PathBuf,
}

impl ViewFolders {
    /// Makes the folders in the temporary folder, and has them removed at exit.
    pub(super) fn make() -> io::Result<ViewFolders> {
        let parent = tempfile::Builder::new()
            .prefix("toolspec-views-")
            .tempdir()?
            .keep();
        let folders = ViewFolders {
            mount_point: parent.join("view"),
            scratch: parent.join("scratch"),
        };
        let made = std::fs::create_dir(&folders.mount_point)
            .and_then(|()| std::fs::create_dir(&folders.scratch));
        remove_at_exit([&folders.mount_point, &folders.scratch, &parent]);
        made.map(|()| folders)
    }

    pub(super) fn mount_point(&self) -> &Path {
        &self.mount_point
    }

    pub(super) fn scratch(&self) -> &Path {
        &self.scratch
    }
}

/// The folders to remove at exit, children first, and the process that made them
/// (a forked child that exits must not remove them).
static AT_EXIT: OnceLock<(u32, Vec<CString>)> = OnceLock::new();

fn remove_at_exit(folders: [&Path; 3]) {
    let paths = folders
        .iter()
        .filter_map(|path| CString::new(path.as_os_str().as_bytes()).ok())
        .collect();
    if AT_EXIT.set((std::process::id(), paths)).is_ok() {
        // SAFETY: registers a function that only reads a static and calls rmdir.
        unsafe {
            libc::atexit(remove_folders);
        }
    }
}

extern "C" fn remove_folders() {
    let Some((owner, paths)) = AT_EXIT.get() else {
        return;
    };
    if *owner != std::process::id() {
        return;
    }
    for path in paths {
        // SAFETY: a path made above; rmdir removes only an empty folder.
        unsafe {
            libc::rmdir(path.as_ptr());
        }
    }
}
