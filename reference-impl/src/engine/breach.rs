//! Deliberate holes in the confinement, for the escape mutations.
//!
//! The harness proves that its escape scenarios catch a server that leaves its
//! root (`toolspec mutants`), so the reference server can be started with one of
//! the classic confinement bugs switched on ([`Breach`]). Each is a flawed check
//! that admits one kind of path the honest check refuses; the server then uses
//! that path by name, as a server with the bug would, so the system follows its
//! `..` steps and links wherever they lead. Both layers give way, and for that
//! kind only: the policy ([`super::paths::PathPolicy`]) admits what the flawed
//! check admits, and the confined handles ([`super::confined_fs::ConfinedFs`])
//! open such a path by name instead of beneath a jail (see [`by_name`]). Every
//! other path is checked and opened exactly as without the bug, so a mutation
//! lets out only its own kind of escape.
//!
//! The bugs are the engine's, shared by every dialect that confines; each
//! confining dialect lists them in its catalogue under the same names
//! ([`Breach::CATALOGUE`], added by `catalogue!`), and the server switches on
//! those its `--mutate` names.

use std::io;
use std::path::{Component, Path, PathBuf};

use super::resolve::resolve_keeping;
use crate::mutations::{Mutation, MutationInfo};

/// One confinement bug: the kind of path its flawed check lets through.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Breach {
    /// `..` steps are left in the path the check reads.
    DotDot,
    /// A path whose text is not under the root is not checked at all.
    Absolute,
    /// The check compares strings, not path components.
    SiblingPrefix,
    /// A link to a file is checked by its own path.
    FileLink,
    /// A link to a folder is checked by its own path.
    FolderLink,
    /// A link that leads nowhere yet is checked by its own path.
    DanglingLink,
}

impl Breach {
    /// Every bug, in [`Breach::CATALOGUE`] order.
    pub(crate) const ALL: [Breach; 6] = [
        Breach::DotDot,
        Breach::Absolute,
        Breach::SiblingPrefix,
        Breach::FileLink,
        Breach::FolderLink,
        Breach::DanglingLink,
    ];

    /// The names and descriptions every confining dialect lists, in variant
    /// order; the names are shared so that one mutation means one bug
    /// whichever suite scores it.
    pub(crate) const CATALOGUE: &'static [MutationInfo] = &[
        MutationInfo {
            name: "escape-dot-dot",
            what: "the confinement check reads a path with its `..` steps unresolved, so `<root>/../x` passes as inside and the access climbs out",
        },
        MutationInfo {
            name: "escape-absolute",
            what: "an absolute path that does not begin with the root is not checked (only paths under the root are), so `/elsewhere/x` is opened",
        },
        MutationInfo {
            name: "escape-sibling-prefix",
            what: "the confinement check is a string prefix test, so a sibling `<root>_evil` passes as inside the root",
        },
        MutationInfo {
            name: "escape-file-link",
            what: "a symlink to a file is not resolved before the check, which reads the link's own path, so a link in the root reaches a file outside",
        },
        MutationInfo {
            name: "escape-folder-link",
            what: "a symlink to a folder is not resolved before the check, so `<root>/link/x` reaches into a folder outside",
        },
        MutationInfo {
            name: "escape-dangling-link",
            what: "a symlink that leads nowhere yet is checked by its own path, and the write follows it and creates its target outside",
        },
    ];

    /// Whether this bug's check admits `named` (absolute, as the caller named
    /// it: `..` steps and links left in) as lying in one of `dirs`, the folders
    /// the server is confined to, for a server whose relative paths are taken
    /// against `root`. It admits only a path that shows the bug's kind (a `..`
    /// step, a link of its sort, ...), so a path without it is left to the
    /// honest check.
    fn admits(self, named: &Path, dirs: &[PathBuf], root: &Path) -> bool {
        let inside = |path: &Path| dirs.iter().any(|dir| path.starts_with(dir));
        let text_under = |path: &Path, dir: &Path| {
            path.as_os_str()
                .as_encoded_bytes()
                .starts_with(dir.as_os_str().as_encoded_bytes())
        };
        match self {
            // `Path::starts_with` compares components, and `..` is one: the
            // unresolved `<root>/../x` starts with `<root>`.
            Breach::DotDot => {
                named.components().any(|c| c == Component::ParentDir) && inside(named)
            }
            // Only what reads as a path in the root (a relative path, made
            // absolute against it) is checked: one that begins with the root's
            // text (`<root>/../x`, `<root>_evil`) is checked honestly, and any
            // other absolute path is taken as given.
            Breach::Absolute => !text_under(named, root),
            Breach::SiblingPrefix => super::resolve::resolve_real(named)
                .is_ok_and(|real| !inside(&real) && dirs.iter().any(|dir| text_under(&real, dir))),
            Breach::FileLink => {
                kept_inside(named, inside, |to| to.is_ok_and(|meta| !meta.is_dir()))
            }
            Breach::FolderLink => {
                kept_inside(named, inside, |to| to.is_ok_and(|meta| meta.is_dir()))
            }
            Breach::DanglingLink => kept_inside(named, inside, |to| {
                to.is_err_and(|err| err.kind() == io::ErrorKind::NotFound)
            }),
        }
    }
}

impl Mutation for Breach {
    fn name(self) -> &'static str {
        // Variants are numbered in catalogue order.
        Breach::CATALOGUE[self as usize].name
    }
}

/// Whether resolving `named` with the links that lead to what `leads_to`
/// accepts left as they are (checked by their own path) kept at least one such
/// link and gives a path `inside` the confinement.
fn kept_inside(
    named: &Path,
    inside: impl Fn(&Path) -> bool,
    leads_to: impl Fn(io::Result<std::fs::Metadata>) -> bool,
) -> bool {
    resolve_keeping(named, |link| leads_to(std::fs::metadata(link)))
        .is_ok_and(|(checked, kept)| kept && inside(&checked))
}

/// The bugs a server was started with, and the folders its paths must lie in
/// (the allowed folders, else the root for a dialect confined to it; none for
/// one that may reach anywhere, which no bug can then let out).
#[derive(Debug, Clone, Default)]
pub(crate) struct Breaches {
    on: Vec<Breach>,
    confinement: Vec<PathBuf>,
    /// The root relative paths are taken against.
    root: PathBuf,
}

impl Breaches {
    /// None switched on yet, for a server confined to `confinement` whose
    /// relative paths are taken against `root`.
    pub(crate) fn confined_to(confinement: Vec<PathBuf>, root: PathBuf) -> Breaches {
        Breaches {
            on: Vec::new(),
            confinement,
            root,
        }
    }

    /// The same confinement with the bugs `on` switched on.
    pub(crate) fn with(self, on: Vec<Breach>) -> Breaches {
        Breaches { on, ..self }
    }

    /// Whether any bug is switched on (and there is a confinement to break).
    pub(crate) fn any(&self) -> bool {
        !self.on.is_empty() && !self.confinement.is_empty()
    }

    /// Whether `real` (every link resolved) lies in the confinement, as the
    /// honest check reads it; true where there is none.
    pub(crate) fn confines(&self, real: &Path) -> bool {
        self.confinement.is_empty() || self.confinement.iter().any(|dir| real.starts_with(dir))
    }

    /// Whether a bug that is switched on admits `named` (see
    /// [`Breach::admits`]). Always false without one, at no cost.
    pub(crate) fn admit(&self, named: &Path) -> bool {
        self.any()
            && self
                .on
                .iter()
                .any(|breach| breach.admits(named, &self.confinement, &self.root))
    }
}

/// What a server with a confinement bug does with a path its flawed check
/// admitted: it hands the path to the system by name, which follows every `..`
/// and link in it. Only [`super::confined_fs::ConfinedFs`] calls these, and only
/// for such a path; they are the one place the server opens anything outside its
/// jails' handles.
pub(crate) mod by_name {
    use std::fs::{self, File, OpenOptions};
    use std::io;
    use std::os::unix::fs::OpenOptionsExt;
    use std::path::Path;

    use cap_std::fs::{Dir, Metadata};

    /// Stats what `path` leads to.
    pub(crate) fn metadata(path: &Path) -> io::Result<Metadata> {
        fs::metadata(path).map(Metadata::from_just_metadata)
    }

    /// Opens the file `path` leads to for reading (`O_NONBLOCK`, so a FIFO
    /// cannot hang the call; a directory is refused with EISDIR).
    pub(crate) fn open_read(path: &Path) -> io::Result<File> {
        let file = OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NONBLOCK)
            .open(path)?;
        if file.metadata()?.is_dir() {
            return Err(io::Error::from_raw_os_error(libc::EISDIR));
        }
        Ok(file)
    }

    /// Opens the existing file `path` leads to for writing, neither creating
    /// nor truncating it.
    pub(crate) fn open_write(path: &Path) -> io::Result<File> {
        OpenOptions::new()
            .write(true)
            .custom_flags(libc::O_NONBLOCK)
            .open(path)
    }

    /// Opens the directory `path` leads to.
    pub(crate) fn open_dir(path: &Path) -> io::Result<Dir> {
        Dir::open_ambient_dir(path, cap_std::ambient_authority())
    }

    /// Creates directory `path` and its missing parents, through any link.
    pub(crate) fn create_dir_all(path: &Path) -> io::Result<()> {
        fs::create_dir_all(path)
    }

    /// Writes `content` to `path`, creating or truncating what it leads to (a
    /// dangling link's target is created).
    pub(crate) fn write(path: &Path, content: &[u8]) -> io::Result<()> {
        fs::write(path, content)
    }

    /// Removes the entry `path` names.
    pub(crate) fn remove_file(path: &Path) -> io::Result<()> {
        fs::remove_file(path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::files;
    use crate::engine::paths::{PathPolicy, Scope};
    use std::os::unix::fs::symlink;

    /// A root with a place beside it and a sibling named like it, and in the
    /// root a link to a file outside, one to the folder outside and one that
    /// leads to a file outside not made yet: one path of each kind of escape.
    struct Beside {
        _dir: tempfile::TempDir,
        base: PathBuf,
        root: PathBuf,
    }

    fn beside() -> Beside {
        let dir = tempfile::tempdir().expect("tempdir");
        let base = std::fs::canonicalize(dir.path()).expect("canonical");
        let root = base.join("root");
        for folder in ["root", "outside", "root_evil"] {
            std::fs::create_dir(base.join(folder)).expect("mkdir");
        }
        std::fs::write(base.join("outside/secret.txt"), "outside-canary").expect("write");
        std::fs::write(base.join("root_evil/secret.txt"), "evil-canary").expect("write");
        std::fs::write(root.join("inside.txt"), "inside").expect("write");
        symlink("../outside/secret.txt", root.join("notes.txt")).expect("symlink");
        symlink(base.join("outside"), root.join("docs")).expect("symlink");
        symlink("../outside/new.txt", root.join("new.txt")).expect("symlink");
        Beside {
            _dir: dir,
            base,
            root,
        }
    }

    /// The path of `kind`'s escape, as a caller would give it.
    fn probe(place: &Beside, kind: Breach) -> String {
        match kind {
            Breach::DotDot => "../outside/secret.txt".to_string(),
            Breach::Absolute => place.base.join("outside/secret.txt").display().to_string(),
            Breach::SiblingPrefix => place
                .base
                .join("root_evil/secret.txt")
                .display()
                .to_string(),
            Breach::FileLink => "notes.txt".to_string(),
            Breach::FolderLink => "docs/secret.txt".to_string(),
            Breach::DanglingLink => "new.txt".to_string(),
        }
    }

    /// Whether the policy lets the path of `kind` out: read to its canary, or
    /// for the dangling link, written to a file made outside.
    fn escapes(policy: &PathPolicy, place: &Beside, kind: Breach) -> bool {
        let raw = probe(place, kind);
        let Ok(path) = policy.resolve(&raw) else {
            return false;
        };
        if !policy.within_root(&raw, &path) {
            return false;
        }
        match kind {
            Breach::DanglingLink => {
                let _ = files::write_atomic(policy, &path, b"x", u64::MAX);
                place.base.join("outside/new.txt").exists()
            }
            _ => {
                files::read(policy, &path, u64::MAX).is_ok_and(|bytes| bytes.ends_with(b"-canary"))
            }
        }
    }

    /// boris with its allow list (`rooted` false), or a dialect confined to
    /// its root, with the bugs `on`.
    fn policy(root: &Path, rooted: bool, on: &[Breach]) -> PathPolicy {
        let policy = if rooted {
            PathPolicy::new(root, &[], &[], Scope::Root)
        } else {
            PathPolicy::new(root, &[root.to_path_buf()], &[], Scope::Anywhere)
        };
        policy.expect("policy").breached_by(on.to_vec())
    }

    #[test]
    fn each_bug_lets_out_its_own_kind_of_escape_and_no_other() {
        for breach in Breach::ALL {
            for kind in Breach::ALL {
                for rooted in [false, true] {
                    // A place of its own: a write through the dangling link
                    // makes its target, and the link no longer dangles.
                    let place = beside();
                    let policy = policy(&place.root, rooted, &[breach]);
                    assert_eq!(
                        escapes(&policy, &place, kind),
                        breach == kind,
                        "{} with {kind:?}, rooted {rooted}",
                        breach.name()
                    );
                    // Still honest about what lies inside.
                    let inside = files::read(&policy, &place.root.join("inside.txt"), 64);
                    assert_eq!(inside.ok(), Some(b"inside".to_vec()));
                    assert!(policy.resolve("missing/../inside.txt").is_ok());
                }
            }
        }
    }

    #[test]
    fn without_a_bug_nothing_gets_out() {
        for kind in Breach::ALL {
            for rooted in [false, true] {
                let place = beside();
                assert!(
                    !escapes(&policy(&place.root, rooted, &[]), &place, kind),
                    "{kind:?}"
                );
            }
        }
    }

    #[test]
    fn the_handles_open_by_name_only_what_the_bug_admits() {
        for breach in Breach::ALL {
            for rooted in [false, true] {
                let place = beside();
                let policy = policy(&place.root, rooted, &[breach]);
                for kind in Breach::ALL {
                    if kind == breach || kind == Breach::DanglingLink {
                        continue;
                    }
                    // The path as named, handed to the handles past the policy.
                    let named = place.root.join(probe(&place, kind));
                    assert!(
                        policy.fs().read(&named).is_err(),
                        "{} read {kind:?}",
                        breach.name()
                    );
                }
            }
        }
    }

    #[test]
    fn a_bug_changes_nothing_where_there_is_no_confinement() {
        let place = beside();
        let anywhere = PathPolicy::new(&place.root, &[], &[], Scope::Anywhere)
            .expect("policy")
            .breached_by(Breach::ALL.to_vec());
        // Resolved as ever, not answered as named.
        assert_eq!(
            anywhere.resolve("../outside/secret.txt").ok(),
            Some(place.base.join("outside/secret.txt"))
        );
        assert_eq!(
            anywhere.resolve("notes.txt").ok(),
            Some(place.base.join("outside/secret.txt"))
        );
    }
}
