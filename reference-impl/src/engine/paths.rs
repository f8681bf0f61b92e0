//! Path confinement: every path a tool touches goes through [`PathPolicy::resolve`].
//!
//! A path is made absolute (relative paths are taken against the root), then
//! every symlink in it is resolved, including in the part that does not exist
//! yet, *before* the allow list and deny patterns are checked. Checking the
//! text of the path instead would let `..` or a symlink planted inside an
//! allowed directory reach anything on the machine.
//!
//! Resolving is only half of it: the tree can change between the check and
//! the use. So the policy also holds the [`ConfinedFs`] that every access
//! goes through (its methods here resolve and check first, then open the
//! resolved path beneath a directory handle without following any link).
//!
//! A server started with a confinement bug ([`super::breach`]) admits one more
//! kind of path than the honest check, and uses it by name; every path the
//! honest check admits is still resolved, checked and opened as above.

use std::io;
use std::path::{Component, Path, PathBuf};

use globset::{GlobBuilder, GlobMatcher};
use thiserror::Error;

use super::breach::{Breach, Breaches};
use super::confined_fs::{ConfinedFs, ListedEntry, Metadata, OpenedDir};
use super::error::{describe_io, DenyReason, EngineError, IoOp};
use super::resolve::resolve_real;

#[derive(Debug, Clone)]
struct DenyPattern {
    text: String,
    matcher: GlobMatcher,
    /// For a pattern ending in `/**`, the pattern without it: doublestar,
    /// which Boris matches deny patterns with, takes `a/**` to match `a`
    /// itself too (`**/src/**` denies the folder `src`), where globset does not.
    folder_itself: Option<GlobMatcher>,
}

impl DenyPattern {
    fn is_match(&self, path: &Path) -> bool {
        self.matcher.is_match(path)
            || self
                .folder_itself
                .as_ref()
                .is_some_and(|m| m.is_match(path))
    }
}

fn deny_glob(text: &str) -> Result<GlobMatcher, globset::Error> {
    GlobBuilder::new(text)
        .literal_separator(true)
        .build()
        .map(|glob| glob.compile_matcher())
}

/// A policy that cannot be built. The messages name the flag each value
/// came from: the command line is the policy's only source.
#[derive(Debug, Error)]
pub(crate) enum PolicyError {
    #[error("--root {}: {cause}", path.display())]
    Root { path: PathBuf, cause: String },
    #[error("--root {}: not a directory", path.display())]
    RootNotDirectory { path: PathBuf },
    #[error("--allow-dir {}: {cause}", dir.display())]
    AllowDir { dir: PathBuf, cause: String },
    #[error("--deny-dir {text:?}: {cause}")]
    DenyPattern { text: String, cause: globset::Error },
}

/// Where a dialect's tools may reach when no `--allow-dir` is given.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Scope {
    /// Only the root (gemini-cli and agent-tools confine every path to it).
    Root,
    /// Anywhere on the machine (boris and ikigai without allowed
    /// directories), deny patterns aside.
    Anywhere,
}

/// Where tools may go: a root, optional allowed directories and deny
/// patterns, and the directory handles every access starts from.
#[derive(Debug)]
pub(crate) struct PathPolicy {
    root: PathBuf,
    allow: Vec<PathBuf>,
    deny: Vec<DenyPattern>,
    fs: ConfinedFs,
    /// The confinement bugs switched on (none but for a mutation).
    breaches: Breaches,
}

impl PathPolicy {
    /// Builds the policy; the root must be an existing directory. Allowed
    /// directories are resolved like tool paths, so a symlinked allow dir
    /// compares equal to the real paths under it. Accesses start from the
    /// root and each allowed directory, and from `/` only for a dialect of
    /// [`Scope::Anywhere`] without allowed directories.
    pub(crate) fn new(
        root: &Path,
        allow: &[PathBuf],
        deny: &[String],
        scope: Scope,
    ) -> Result<PathPolicy, PolicyError> {
        let root = std::fs::canonicalize(root).map_err(|err| PolicyError::Root {
            path: root.to_path_buf(),
            cause: describe_io(&err),
        })?;
        if !root.is_dir() {
            return Err(PolicyError::RootNotDirectory { path: root });
        }
        let allow = allow
            .iter()
            .map(|dir| {
                let resolved =
                    resolve_real(&root.join(dir)).map_err(|err| PolicyError::AllowDir {
                        dir: dir.clone(),
                        cause: describe_io(&err),
                    })?;
                // Opened as a jail below: say which folder is missing, not the root.
                match std::fs::metadata(&resolved) {
                    Ok(meta) if meta.is_dir() => Ok(resolved),
                    Ok(_) => Err(PolicyError::AllowDir {
                        dir: dir.clone(),
                        cause: "not a directory".to_string(),
                    }),
                    Err(err) => Err(PolicyError::AllowDir {
                        dir: dir.clone(),
                        cause: describe_io(&err),
                    }),
                }
            })
            .collect::<Result<Vec<_>, _>>()?;
        let deny = deny
            .iter()
            .map(|text| {
                let refused = |cause| PolicyError::DenyPattern {
                    text: text.clone(),
                    cause,
                };
                let folder_itself = match text.strip_suffix("/**") {
                    Some(folder) if !folder.is_empty() => Some(deny_glob(folder).map_err(refused)?),
                    _ => None,
                };
                Ok(DenyPattern {
                    text: text.clone(),
                    matcher: deny_glob(text).map_err(refused)?,
                    folder_itself,
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        let mut jails = vec![root.clone()];
        jails.extend(allow.iter().cloned());
        if allow.is_empty() && scope == Scope::Anywhere {
            jails.push(PathBuf::from("/"));
        }
        let fs = ConfinedFs::open(&jails).map_err(|err| PolicyError::Root {
            path: root.clone(),
            cause: describe_io(&err),
        })?;
        // What a path must lie in: the allowed folders, else the root where
        // the dialect confines to it; a bug can only let a path out of these.
        let confinement = match (allow.is_empty(), scope) {
            (false, _) => allow.clone(),
            (true, Scope::Root) => vec![root.clone()],
            (true, Scope::Anywhere) => Vec::new(),
        };
        let breaches = Breaches::confined_to(confinement, root.clone());
        Ok(PathPolicy {
            root,
            allow,
            deny,
            fs,
            breaches,
        })
    }

    /// The same policy with the confinement bugs `on` switched on, in the
    /// check and in the handles alike (the escape mutations).
    pub(crate) fn breached_by(mut self, on: Vec<Breach>) -> PathPolicy {
        self.breaches = self.breaches.with(on);
        self.fs.breached_by(self.breaches.clone());
        self
    }

    /// The canonical working directory.
    pub(crate) fn root(&self) -> &Path {
        &self.root
    }

    /// Resolves `raw` to a real absolute path and checks it against the policy.
    /// The path need not exist; its deepest existing ancestor is resolved and
    /// the rest appended.
    ///
    /// With a confinement bug switched on, a path the honest check would not
    /// keep in the confinement but the bug admits is answered as named (see
    /// [`PathPolicy::named`]), for the accesses to use by name.
    pub(crate) fn resolve(&self, raw: &str) -> Result<PathBuf, EngineError> {
        let joined = self.root.join(raw);
        let real =
            resolve_real(&joined).map_err(|err| EngineError::io(IoOp::Stat, &joined, &err))?;
        if self.breaches.any()
            && !(self.honest_check(&real).is_ok() && self.breaches.confines(&real))
        {
            let named = self.named(raw);
            if self.breached(&named) {
                return Ok(named);
            }
        }
        self.honest_check(&real)?;
        Ok(real)
    }

    /// `raw` made absolute against the root, as written otherwise: its `..`
    /// steps and links left in (only `.` steps and a trailing `/` dropped).
    fn named(&self, raw: &str) -> PathBuf {
        self.root.join(raw).components().collect()
    }

    /// Whether `path`, what [`PathPolicy::resolve`] answered for `raw`, lies
    /// in the root: the check a dialect confined to its root makes of it. With
    /// a confinement bug switched on, also a path answered as named that the
    /// bug admits (never a resolved path that only its resolution led out).
    pub(crate) fn within_root(&self, raw: &str, path: &Path) -> bool {
        path.starts_with(&self.root) || (*path == self.named(raw) && self.breached(path))
    }

    /// Whether `raw`, made absolute with its `..` steps folded (links left
    /// alone), lies in the root: the check of a path's text that a dialect
    /// makes before resolving it. With a confinement bug switched on, also a
    /// path as named that the bug admits.
    pub(crate) fn lexically_within_root(&self, raw: &str) -> bool {
        self.lexical(raw).starts_with(&self.root) || self.breached(&self.named(raw))
    }

    /// Whether a confinement bug that is switched on admits `named` (absolute,
    /// as named) where the deny patterns allow it, which the bug still reads.
    fn breached(&self, named: &Path) -> bool {
        self.breaches.admit(named) && self.denied_by(named).is_none()
    }

    /// `raw` made absolute against the root with `.` and `..` removed
    /// lexically, symlinks left alone: the path as the caller named it, for
    /// messages about a path that does not exist (a dangling symlink is
    /// reported by its own name, not by its target's).
    pub(crate) fn lexical(&self, raw: &str) -> PathBuf {
        let mut out = PathBuf::from("/");
        for component in self.root.join(raw).components() {
            match component {
                Component::Normal(name) => out.push(name),
                Component::ParentDir => {
                    out.pop();
                }
                Component::RootDir | Component::CurDir | Component::Prefix(_) => {}
            }
        }
        out
    }

    /// The handles every access goes through, for paths already resolved.
    pub(crate) fn fs(&self) -> &ConfinedFs {
        &self.fs
    }

    /// `path` (absolute) with every symlink resolved, if the policy allows
    /// the result and a jail holds it; otherwise a permission error, so a
    /// walk or a listing can treat it like any other unusable entry.
    ///
    /// With a confinement bug switched on, a path the bug admits where the
    /// honest check refuses it is answered as it is, for the handles to open
    /// by name.
    pub(crate) fn follow(&self, path: &Path) -> io::Result<PathBuf> {
        self.follow_honestly(path).or_else(|err| {
            if self.breached(path) {
                Ok(path.to_path_buf())
            } else {
                Err(err)
            }
        })
    }

    /// [`PathPolicy::follow`] without the confinement bugs.
    fn follow_honestly(&self, path: &Path) -> io::Result<PathBuf> {
        let real = resolve_real(path)?;
        if self.honest_check(&real).is_err() {
            return Err(io::Error::new(
                io::ErrorKind::PermissionDenied,
                format!("{} is refused by the path policy", real.display()),
            ));
        }
        if !self.fs.contains(&real) {
            return Err(io::Error::new(
                io::ErrorKind::PermissionDenied,
                format!("{} is outside the confined directories", real.display()),
            ));
        }
        Ok(real)
    }

    /// Stats `path`, following symlinks (within the policy), like `fs::metadata`.
    pub(crate) fn stat(&self, path: &Path) -> io::Result<Metadata> {
        self.fs.metadata(&self.follow(path)?)
    }

    /// Stats `path` itself, a symlink at its end not followed, like
    /// `fs::symlink_metadata`.
    pub(crate) fn lstat(&self, path: &Path) -> io::Result<Metadata> {
        self.fs.metadata(&self.follow_parent(path)?)
    }

    /// Reads the file at `path` whole, following symlinks (within the policy).
    pub(crate) fn read(&self, path: &Path) -> io::Result<Vec<u8>> {
        self.fs.read(&self.follow(path)?)
    }

    /// Opens the file at `path` for reading (see [`ConfinedFs::open_read`]).
    pub(crate) fn open_read(&self, path: &Path) -> io::Result<std::fs::File> {
        self.fs.open_read(&self.follow(path)?)
    }

    /// Opens the directory at `path` for reading as a file (see
    /// [`ConfinedFs::open_dir_as_file`]).
    pub(crate) fn open_dir_as_file(&self, path: &Path) -> io::Result<std::fs::File> {
        self.fs.open_dir_as_file(&self.follow(path)?)
    }

    /// Opens the file at `path` for writing, without truncating it: the
    /// check that an existing file may be written to.
    pub(crate) fn open_write(&self, path: &Path) -> io::Result<std::fs::File> {
        self.fs.open_write(&self.follow(path)?)
    }

    /// The entries of the directory at `path` (see [`ConfinedFs::read_dir`]).
    pub(crate) fn read_dir(&self, path: &Path) -> io::Result<Vec<ListedEntry>> {
        self.fs.read_dir(&self.follow(path)?)
    }

    /// Opens the directory at `path` for a walk (see [`ConfinedFs::open_dir`]).
    pub(crate) fn open_dir(&self, path: &Path) -> io::Result<OpenedDir> {
        self.fs.open_dir(&self.follow(path)?)
    }

    /// Removes the file or link at `path` itself.
    pub(crate) fn remove_file(&self, path: &Path) -> io::Result<()> {
        self.fs.remove_file(&self.follow_parent(path)?)
    }

    /// `path` with its parent resolved and its last component kept.
    fn follow_parent(&self, path: &Path) -> io::Result<PathBuf> {
        match (path.parent(), path.file_name()) {
            (Some(parent), Some(name)) => Ok(self.follow(parent)?.join(name)),
            _ => self.follow(path),
        }
    }

    /// Checks an already-real absolute path (e.g. an entry found by a walk).
    /// With a confinement bug switched on, a path the bug admits passes too
    /// (the entries of a folder it let the server into).
    pub(crate) fn check(&self, real: &Path) -> Result<(), EngineError> {
        self.honest_check(real).or_else(|err| {
            if self.breached(real) {
                Ok(())
            } else {
                Err(err)
            }
        })
    }

    /// [`PathPolicy::check`] without the confinement bugs: the allow list,
    /// then the deny patterns.
    fn honest_check(&self, real: &Path) -> Result<(), EngineError> {
        if !self.allow.is_empty() && !self.allow.iter().any(|dir| real.starts_with(dir)) {
            return Err(EngineError::AccessDenied {
                path: real.to_path_buf(),
                reason: DenyReason::OutsideAllowedDirs,
            });
        }
        if let Some(pattern) = self.denied_by(real) {
            return Err(EngineError::AccessDenied {
                path: real.to_path_buf(),
                reason: DenyReason::MatchesDenyPattern(pattern.text.clone()),
            });
        }
        Ok(())
    }

    /// The first deny pattern that `path` or one of its folders matches.
    fn denied_by(&self, path: &Path) -> Option<&DenyPattern> {
        path.ancestors()
            .find_map(|candidate| self.deny.iter().find(|p| p.is_match(candidate)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    fn setup() -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = std::fs::canonicalize(dir.path()).expect("canonical");
        (dir, root)
    }

    #[test]
    fn relative_paths_resolve_against_root() {
        let (_dir, root) = setup();
        let policy = PathPolicy::new(&root, &[], &[], Scope::Anywhere).expect("policy");
        assert_eq!(policy.resolve("a/b.txt").expect("ok"), root.join("a/b.txt"));
        assert_eq!(policy.resolve("a/../c").expect("ok"), root.join("c"));
    }

    #[test]
    fn a_missing_allowed_folder_is_named_in_the_refusal() {
        let (_dir, root) = setup();
        let missing = root.join("nowhere");
        let err = PathPolicy::new(&root, std::slice::from_ref(&missing), &[], Scope::Anywhere)
            .expect_err("refused");
        assert!(
            err.to_string()
                .starts_with(&format!("--allow-dir {}:", missing.display())),
            "{err}"
        );
        assert!(PathPolicy::new(&root, std::slice::from_ref(&root), &[], Scope::Anywhere).is_ok());
    }

    #[test]
    fn dotdot_cannot_escape_allowed_dir() {
        let (_dir, root) = setup();
        let policy = PathPolicy::new(&root, std::slice::from_ref(&root), &[], Scope::Anywhere)
            .expect("policy");
        let err = policy.resolve("../outside.txt").expect_err("denied");
        assert!(matches!(
            err,
            EngineError::AccessDenied {
                reason: DenyReason::OutsideAllowedDirs,
                ..
            }
        ));
        let err = policy
            .resolve("missing/../../../etc/passwd")
            .expect_err("denied");
        assert!(matches!(err, EngineError::AccessDenied { .. }), "{err:?}");
    }

    #[test]
    fn symlinks_are_resolved_before_checking() {
        let (_dir, root) = setup();
        let inside = root.join("inside");
        std::fs::create_dir(&inside).expect("mkdir");
        let outside = tempfile::tempdir().expect("tempdir");
        symlink(outside.path(), inside.join("escape")).expect("symlink");
        symlink(outside.path().join("nothing-yet"), inside.join("dangling")).expect("symlink");
        let policy = PathPolicy::new(&root, std::slice::from_ref(&inside), &[], Scope::Anywhere)
            .expect("policy");
        assert!(matches!(
            policy.resolve("inside/escape/x.txt"),
            Err(EngineError::AccessDenied { .. })
        ));
        assert!(matches!(
            policy.resolve("inside/dangling"),
            Err(EngineError::AccessDenied { .. })
        ));
        assert!(policy.resolve("inside/new/file.txt").is_ok());
    }

    #[test]
    fn deny_patterns_match_the_path_and_its_parents() {
        let (_dir, root) = setup();
        let policy =
            PathPolicy::new(&root, &[], &["**/.env".to_string()], Scope::Anywhere).expect("policy");
        let err = policy.resolve(".env").expect_err("denied");
        assert_eq!(
            err,
            EngineError::AccessDenied {
                path: root.join(".env"),
                reason: DenyReason::MatchesDenyPattern("**/.env".into())
            }
        );
        assert!(matches!(
            policy.resolve(".env/inner"),
            Err(EngineError::AccessDenied { .. })
        ));
        assert!(policy.resolve("env.txt").is_ok());
        let bare =
            PathPolicy::new(&root, &[], &[".env".to_string()], Scope::Anywhere).expect("policy");
        assert!(
            bare.resolve(".env").is_ok(),
            "a bare name never matches an absolute path"
        );
    }

    #[test]
    fn lexical_keeps_symlinks_but_folds_dots() {
        let (_dir, root) = setup();
        symlink("/nonexistent-target", root.join("dangling")).expect("symlink");
        let policy = PathPolicy::new(&root, &[], &[], Scope::Anywhere).expect("policy");
        assert_eq!(policy.lexical("./a/../dangling"), root.join("dangling"));
        assert_eq!(
            policy.resolve("dangling").expect("ok"),
            PathBuf::from("/nonexistent-target")
        );
    }

    #[test]
    fn a_file_used_as_a_directory_resolves_without_error() {
        let (_dir, root) = setup();
        std::fs::write(root.join("file.txt"), "x").expect("write");
        let policy = PathPolicy::new(&root, &[], &[], Scope::Anywhere).expect("policy");
        assert_eq!(
            policy.resolve("file.txt/child").expect("ok"),
            root.join("file.txt/child")
        );
    }
}
