//! What a server may read when the real home is hidden: everything outside the home,
//! and inside it only the folders the server needs to run.
//!
//! Landlock allows, it never denies: a ruleset that handles reading allows it only
//! beneath the places named. So "all but the home" is named as every entry of each
//! folder above the home that does not lead to it (for `/root`, every entry of `/`
//! but `root`). They are opened once per run and kept open; each server's rules add
//! them again from the kept descriptors, without opening anything.
//!
//! An entry made later in a folder above the home (a new folder in `/`) is not
//! readable by a server of the same run; fixture roots and scratch folders are
//! named in each server's rules, so they always are.

use std::ffi::OsString;
use std::os::fd::{AsFd, OwnedFd};
use std::path::{Path, PathBuf};

/// The real home and the places outside it, opened.
pub(crate) struct HomeView {
    /// The home, resolved (no symlink in it).
    home: PathBuf,
    /// Every entry of each folder above the home that does not lead to it, and
    /// whether it is a folder.
    outside: Vec<(OwnedFd, bool)>,
}

/// Why the real home cannot be hidden from a server.
#[derive(Debug, thiserror::Error)]
pub(crate) enum HomeViewError {
    /// `HOME` is unset or empty.
    #[error("HOME is not set")]
    Unset,
    /// `HOME` names nothing that can be resolved.
    #[error("the home {} cannot be resolved: {source}", home.display())]
    Unresolvable {
        /// `HOME`, as given.
        home: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// `HOME` is `/`, which holds everything.
    #[error("the home is `/`")]
    IsRoot,
    /// A folder above the home cannot be listed.
    #[error("cannot list {}: {source}", folder.display())]
    List {
        /// The folder.
        folder: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
}

impl HomeView {
    /// The view of `home` (a path as `HOME` gives it); `Err` says why it cannot be
    /// hidden (no such folder, or it is `/`).
    pub(crate) fn of(home: &Path) -> Result<HomeView, HomeViewError> {
        let home = std::fs::canonicalize(home).map_err(|source| HomeViewError::Unresolvable {
            home: home.to_path_buf(),
            source,
        })?;
        if home.parent().is_none() {
            return Err(HomeViewError::IsRoot);
        }
        let mut outside = Vec::new();
        let mut above = home.as_path();
        while let Some(parent) = above.parent() {
            let toward: Option<OsString> = above.file_name().map(|n| n.to_owned());
            let entries = std::fs::read_dir(parent).map_err(|source| HomeViewError::List {
                folder: parent.to_path_buf(),
                source,
            })?;
            for entry in entries.flatten() {
                if Some(entry.file_name()) == toward {
                    continue;
                }
                let path = entry.path();
                // A link into the home would open the home.
                match std::fs::canonicalize(&path) {
                    Ok(resolved) if !resolved.starts_with(&home) => {}
                    _ => continue,
                }
                if let Ok(fd) = open_path(&path) {
                    let folder = is_dir(&fd);
                    outside.push((fd, folder));
                }
            }
            above = parent;
        }
        Ok(HomeView { home, outside })
    }

    /// The home, resolved.
    #[cfg(test)]
    pub(crate) fn home(&self) -> &Path {
        &self.home
    }

    /// The places outside the home, opened, and whether each is a folder.
    pub(in crate::server) fn outside(&self) -> &[(OwnedFd, bool)] {
        &self.outside
    }

    /// Of `wanted` (folders a server needs), those inside the home, resolved; a
    /// `bin` folder (a `PATH` entry) stands for the toolchain folder holding it, so
    /// that what its programs read beside it is there too, but never for the whole
    /// home.
    pub(crate) fn needed_inside(
        &self,
        wanted: &[PathBuf],
        path_entries: &[PathBuf],
    ) -> Vec<PathBuf> {
        let inside = |p: &Path| -> Option<PathBuf> {
            std::fs::canonicalize(p)
                .ok()
                .filter(|resolved| resolved.starts_with(&self.home))
        };
        let mut needed: Vec<PathBuf> = wanted.iter().filter_map(|p| inside(p)).collect();
        for entry in path_entries {
            let Some(resolved) = inside(entry) else {
                continue;
            };
            match resolved.parent() {
                Some(holder) if holder != self.home && holder.starts_with(&self.home) => {
                    needed.push(holder.to_path_buf())
                }
                _ => needed.push(resolved),
            }
        }
        needed.sort();
        needed.dedup();
        needed
    }
}

/// `path` opened only to name it (`O_PATH`), as Landlock rules take it.
fn open_path(path: &Path) -> std::io::Result<OwnedFd> {
    use std::os::unix::fs::OpenOptionsExt;
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_PATH)
        .open(path)?;
    Ok(file.into())
}

/// Whether `fd` is a folder.
pub(in crate::server) fn is_dir(fd: &impl AsFd) -> bool {
    use std::os::fd::AsRawFd;
    let mut stat = std::mem::MaybeUninit::<libc::stat>::zeroed();
    // SAFETY: fstat writes into `stat` for an open descriptor.
    let done = unsafe { libc::fstat(fd.as_fd().as_raw_fd(), stat.as_mut_ptr()) };
    // SAFETY: fstat filled it in when it returned 0.
    done == 0 && unsafe { stat.assume_init() }.st_mode & libc::S_IFMT == libc::S_IFDIR
}

#[cfg(test)]
mod tests {
    use super::HomeView;
    use std::path::PathBuf;

    #[test]
    fn everything_beside_the_home_is_named_and_the_home_is_not() {
        let dir = tempfile::tempdir().expect("tempdir");
        let home = dir.path().join("home");
        for folder in ["home/.cargo/bin", "home/bin", "other"] {
            std::fs::create_dir_all(dir.path().join(folder)).expect("folder");
        }
        let view = HomeView::of(&home).expect("a view");
        // `other` beside the home, and the entries of every folder above.
        assert!(view.outside().len() >= 2, "{}", view.outside().len());
        let needed = view.needed_inside(
            &[PathBuf::from("/usr")],
            &[home.join(".cargo/bin"), home.join("bin")],
        );
        let home = view.home().to_path_buf();
        assert_eq!(needed, [home.join(".cargo"), home.join("bin")]);
        assert!(HomeView::of(std::path::Path::new("/")).is_err());
    }
}
