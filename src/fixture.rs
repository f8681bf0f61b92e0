//! Builds a scenario's file tree in a fresh temporary directory.
//!
//! The root is canonicalized so that `{root}` in expectations matches the path a
//! server reports after resolving symlinks (on many systems `/tmp` is itself a link).
//!
//! Every entry is made relative to a directory handle on the root (cap-std), never
//! by a path string: no file is created, written, chmodded or timestamped through a
//! symlink, and no path can lead outside the root. A `given.tree` may hold links
//! pointing anywhere; a `given.files` entry below one is refused, and one that
//! replaces a link replaces the link itself, not what it points to.

use std::collections::BTreeMap;
use std::io::{self, Write};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use cap_fs_ext::{DirExt, FollowSymlinks, OpenOptionsFollowExt, OpenOptionsMaybeDirExt};
use cap_std::fs::{Dir, File, OpenOptions, Permissions};
use tempfile::TempDir;

use crate::scenario::{FileDetail, FileSpec, Outside, ROOT_FOLDER};

mod initial;
mod live;
mod outside;
mod tree;

pub(crate) use initial::Initial;
use initial::SizedFile;
pub(crate) use live::{make_listed_dir, remove_every_fixture, ListedDir};
pub(crate) use outside::{CanarySeed, OutsidePlaces};
pub(crate) use tree::Tree;

/// Where a server under test works: its root, and the places a scenario gave
/// beside it, which its isolated view shows at their own paths (read-only unless
/// `writable`).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Places<'a> {
    pub(crate) root: &'a Path,
    pub(crate) beside: &'a [PathBuf],
    pub(crate) beside_writable: bool,
}

impl<'a> Places<'a> {
    /// A root with nothing beside it.
    pub(crate) fn root_only(root: &'a Path) -> Places<'a> {
        Places {
            root,
            beside: &[],
            beside_writable: false,
        }
    }
}

/// A built fixture. Dropping it removes the tree, even where modes forbid it.
///
/// The root is the folder `root` of a fresh temporary folder, so that the places
/// a scenario asks for beside it (`given.outside`) are siblings it can name
/// (`../outside/secret.txt`), made and removed with it.
pub(crate) struct Fixture {
    /// The temporary folder that holds the root; `None` once the tree is kept.
    dir: Option<TempDir>,
    /// The temporary folder, opened once: the outside places are reached through it.
    container: Dir,
    /// The places beside the root, when the scenario gives some.
    outside: Option<OutsidePlaces>,
    /// The root's entry in the list an interrupted run removes; `None` once gone
    /// or kept.
    listed: Option<live::Listed>,
    root: PathBuf,
    /// The root, opened once: what is built and what is read back after the call
    /// are reached through it, so a path never leads outside the root.
    handle: Dir,
    /// The bytes each content file was created with, for `unchanged` checks.
    initial: BTreeMap<String, Vec<u8>>,
    /// Files given by `size:`, which are written in pieces and never held whole.
    sized: BTreeMap<String, SizedFile>,
    /// Some entry got a mode of its own, so removal may need permissions back.
    has_modes: bool,
}

impl Fixture {
    /// Creates the files, then symlinks, then mtimes, then modes (modes last, so a
    /// locked directory does not stop its own children from being made).
    pub(crate) fn build(files: &BTreeMap<String, FileSpec>) -> io::Result<Fixture> {
        Fixture::build_over(None, files, None, CanarySeed::fresh())
    }

    /// Copies `tree` (a folder of `fixtures/`) into the root first, then builds
    /// `files` over it, and makes the places `outside` gives beside it, their
    /// canaries drawn from `canaries`.
    pub(crate) fn build_over<'f>(
        tree: Option<&Path>,
        files: impl IntoIterator<Item = (&'f String, &'f FileSpec)>,
        outside: Option<&Outside>,
        canaries: CanarySeed,
    ) -> io::Result<Fixture> {
        let (dir, listed) = live::make_listed_tempdir("toolspec-")?;
        let container = Dir::open_ambient_dir(dir.path(), cap_std::ambient_authority())?;
        container.create_dir(ROOT_FOLDER)?;
        let at = dir.path().canonicalize()?;
        let outside = match outside {
            Some(outside) => {
                let entries = outside.entries().map_err(|e| {
                    io::Error::new(io::ErrorKind::InvalidInput, format!("given.outside: {e}"))
                })?;
                Some(OutsidePlaces::make(
                    &container,
                    &at,
                    &entries,
                    outside.writable,
                    canaries,
                )?)
            }
            None => None,
        };
        let mut fixture = Fixture {
            root: at.join(ROOT_FOLDER),
            handle: container.open_dir(ROOT_FOLDER)?,
            container,
            outside,
            dir: Some(dir),
            listed: Some(listed),
            initial: BTreeMap::new(),
            sized: BTreeMap::new(),
            has_modes: false,
        };
        if let Some(tree) = tree {
            copy_tree(tree, &fixture.handle, Path::new(""), &mut fixture.initial)?;
        }
        fixture.lay_files(files)?;
        Ok(fixture)
    }

    /// Builds `files` over what the root holds already (a copied tree).
    fn lay_files<'f>(
        &mut self,
        files: impl IntoIterator<Item = (&'f String, &'f FileSpec)>,
    ) -> io::Result<()> {
        let mut links = Vec::new();
        let mut mtimes = Vec::new();
        let mut modes = Vec::new();
        for (name, spec) in files {
            let path = Path::new(name.trim_end_matches('/'));
            refuse_links_above(&self.handle, name, path)?;
            if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
                self.handle.create_dir_all(parent)?;
            }
            let detail = match spec {
                FileSpec::Text(text) => {
                    write_new_file(&self.handle, path, text.as_bytes())?;
                    self.initial.insert(name.clone(), text.as_bytes().to_vec());
                    continue;
                }
                FileSpec::Detailed(detail) => detail,
            };
            if detail.dir {
                remove_link(&self.handle, path)?;
                self.handle.create_dir_all(path)?;
            } else if let Some(target) = &detail.symlink {
                links.push((path, target));
            } else if let Some(size) = detail.size {
                let sized = SizedFile::new(size, detail.fill.as_deref());
                sized.write_to(&mut io::BufWriter::new(open_new_file(&self.handle, path)?))?;
                self.sized.insert(name.clone(), sized);
            } else {
                let bytes = content_of(detail);
                write_new_file(&self.handle, path, &bytes)?;
                self.initial.insert(name.clone(), bytes);
            }
            if let Some(offset) = detail.mtime {
                mtimes.push((path, offset));
            }
            if let Some(mode) = detail.mode {
                modes.push((name, path, mode.0));
            }
        }
        // The bindings are made only when there are links: most fixtures have none.
        if !links.is_empty() {
            let bindings = crate::scenario::Bindings::new(&self.root.to_string_lossy());
            for (path, target) in links {
                remove_link(&self.handle, path)?;
                // The target is kept as written, `{root}` and `{outside}` filled in:
                // it is what the server is shown.
                self.handle.symlink_contents(bindings.fill(target), path)?;
            }
        }
        for (path, offset) in mtimes {
            let when = cap_std::time::SystemTime::from_std(shift(SystemTime::now(), offset));
            let spec = || Some(cap_fs_ext::SystemTimeSpec::Absolute(when));
            self.handle.set_symlink_times(path, spec(), spec())?;
        }
        self.has_modes = !modes.is_empty();
        // Deepest first, so locking a directory comes after its children.
        modes.sort_by_key(|(_, p, _)| std::cmp::Reverse(p.components().count()));
        for (name, path, mode) in modes {
            set_mode(&self.handle, path, mode).map_err(|e| {
                io::Error::new(
                    e.kind(),
                    format!("given.files `{name}`: cannot set its mode: {e}"),
                )
            })?;
        }
        Ok(())
    }

    /// The canonical fixture root, substituted for `{root}`.
    pub(crate) fn root(&self) -> &Path {
        &self.root
    }

    /// The root as a directory handle, for reading what the server left without
    /// leaving the root.
    pub(crate) fn handle(&self) -> &Dir {
        &self.handle
    }

    /// The root and the places beside it, for starting a server.
    pub(crate) fn places(&self) -> Places<'_> {
        match &self.outside {
            Some(outside) => {
                let (beside, beside_writable) = outside.places();
                Places {
                    root: &self.root,
                    beside,
                    beside_writable,
                }
            }
            None => Places::root_only(&self.root),
        }
    }

    /// Everything in the temporary folder now: the root (as `root/…`) and the
    /// places beside it.
    pub(crate) fn tree(&self) -> Tree {
        Tree::read(&self.container, None)
    }

    /// The places beside the root the scenario gave, if it gave some.
    pub(crate) fn outside(&self) -> Option<&OutsidePlaces> {
        self.outside.as_ref()
    }

    /// The first change beside the root since its places were made, in words.
    pub(crate) fn changed_outside(&self) -> Option<String> {
        self.outside.as_ref()?.written(&self.container)
    }

    /// Leaves the tree on disk instead of removing it, for inspecting a failure.
    pub(crate) fn keep(mut self) -> PathBuf {
        if let Some(dir) = self.dir.take() {
            let _kept_path = dir.keep();
        }
        drop(self.listed.take());
        self.root.clone()
    }

    /// The bytes a fixture file was created with, if it was a content file.
    pub(crate) fn initial_content(&self, name: &str) -> Option<Initial<'_>> {
        match self.initial.get(name) {
            Some(bytes) => Some(Initial::Bytes(bytes)),
            None => self.sized.get(name).map(Initial::Sized),
        }
    }
}

impl Drop for Fixture {
    fn drop(&mut self) {
        let Some(dir) = self.dir.take() else { return };
        let path = dir.path().to_path_buf();
        if self.has_modes {
            unlock_tree(&self.container);
        }
        drop(dir);
        // A server under test may have locked something too: unlock and try again.
        if path.exists() {
            unlock_tree(&self.container);
            let _ = std::fs::remove_dir_all(&path);
        }
        // Only once it is gone: an interrupt meanwhile removes it too.
        drop(self.listed.take());
    }
}

/// A scratch folder beside the fixture roots (never inside one, so a listing of a
/// root shows only what the scenario built): where an isolated server may write
/// temporary files. Removed when dropped, and by an interrupt like a fixture.
pub(crate) struct Scratch {
    dir: TempDir,
    /// Dropped after `dir`, once the folder is gone.
    _listed: live::Listed,
}

impl Scratch {
    /// A fresh, empty scratch folder.
    pub(crate) fn new() -> io::Result<Scratch> {
        let (dir, listed) = live::make_listed_tempdir("toolspec-")?;
        Ok(Scratch {
            dir,
            _listed: listed,
        })
    }

    /// Where it is.
    pub(crate) fn path(&self) -> &Path {
        self.dir.path()
    }
}

/// Refuses a `given.files` entry with a symlink (from `given.tree`) in one of its
/// parent folders: writing below it would write wherever the link points.
fn refuse_links_above(root: &Dir, name: &str, path: &Path) -> io::Result<()> {
    let mut above = PathBuf::new();
    let parents = path.parent().into_iter().flat_map(Path::components);
    for part in parents {
        above.push(part);
        match root.symlink_metadata(&above) {
            Ok(meta) if meta.file_type().is_symlink() => {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidInput,
                    format!(
                        "given.files `{name}`: `{}` is a symlink (from given.tree), and a fixture file is never written through a link; name a real folder",
                        above.display()
                    ),
                ))
            }
            Ok(_) => {}
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

/// Removes `path` if it is a symlink (from `given.tree`), so an entry laid over it
/// replaces the link instead of writing through it.
fn remove_link(root: &Dir, path: &Path) -> io::Result<()> {
    match root.symlink_metadata(path) {
        Ok(meta) if meta.file_type().is_symlink() => root.remove_file_or_symlink(path),
        _ => Ok(()),
    }
}

/// Creates (or truncates) the regular file `path` with `bytes`, never through a
/// symlink.
fn write_new_file(root: &Dir, path: &Path, bytes: &[u8]) -> io::Result<()> {
    open_new_file(root, path)?.write_all(bytes)
}

/// Opens `path` for writing from empty, replacing a link there rather than following
/// it.
fn open_new_file(root: &Dir, path: &Path) -> io::Result<File> {
    remove_link(root, path)?;
    root.open_with(
        path,
        OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .follow(FollowSymlinks::No),
    )
}

/// Sets the permission bits of the file or folder `path` through a handle opened
/// without following a link, so the mode lands on the entry itself.
fn set_mode(root: &Dir, path: &Path, mode: u32) -> io::Result<()> {
    let entry: File = root.open_with(
        path,
        OpenOptions::new()
            .read(true)
            .follow(FollowSymlinks::No)
            .maybe_dir(true),
    )?;
    entry.set_permissions(Permissions::from_std(std::fs::Permissions::from_mode(mode)))
}

/// Copies `from` into `to` (files, folders, symlinks as links), recording each file's
/// bytes under its `/`-separated path below the root.
fn copy_tree(
    from: &Path,
    to: &Dir,
    below: &Path,
    initial: &mut BTreeMap<String, Vec<u8>>,
) -> io::Result<()> {
    let mut entries: Vec<_> = std::fs::read_dir(from)?.collect::<Result<_, _>>()?;
    entries.sort_by_key(|e| e.file_name());
    for entry in entries {
        let target = below.join(entry.file_name());
        let source = entry.path();
        let kind = entry.file_type()?;
        if kind.is_symlink() {
            to.symlink_contents(std::fs::read_link(&source)?, &target)?;
        } else if kind.is_dir() {
            to.create_dir(&target)?;
            copy_tree(&source, to, &target, initial)?;
        } else {
            let bytes = std::fs::read(&source)?;
            write_new_file(to, &target, &bytes)?;
            initial.insert(target.to_string_lossy().into_owned(), bytes);
        }
    }
    Ok(())
}

/// Gives the owner full access everywhere below `dir` so the tree can be removed.
/// Symlinks are skipped, and modes are changed without following one.
fn unlock_tree(dir: &Dir) {
    let Ok(entries) = dir.entries() else {
        return;
    };
    for entry in entries.flatten() {
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        if kind.is_symlink() {
            continue;
        }
        let name = entry.file_name();
        let open = Permissions::from_std(std::fs::Permissions::from_mode(0o700));
        if dir.set_symlink_permissions(&name, open).is_err() {
            let _ = set_mode(dir, Path::new(&name), 0o700);
        }
        if kind.is_dir() {
            if let Ok(inner) = dir.open_dir_nofollow(&name) {
                unlock_tree(&inner);
            }
        }
    }
}

fn shift(now: SystemTime, offset: i64) -> SystemTime {
    let delta = Duration::from_secs(offset.unsigned_abs());
    // Loading bounds the offset; the fallbacks only keep a bad value from panicking.
    if offset < 0 {
        now.checked_sub(delta).unwrap_or(SystemTime::UNIX_EPOCH)
    } else {
        now.checked_add(delta).unwrap_or(now)
    }
}

/// The bytes a detailed entry is made with; never fails, since `bytes:` is decoded
/// (and refused if bad) when the scenario loads.
fn content_of(detail: &FileDetail) -> Vec<u8> {
    if let Some(text) = &detail.text {
        return text.as_bytes().to_vec();
    }
    if let Some(bytes) = &detail.bytes {
        return bytes.0.clone();
    }
    // Sized files are written by `SizedFile`; an entry with no content is empty.
    Vec::new()
}

#[cfg(test)]
mod tests {
    use std::fs;

    use super::*;
    use crate::scenario::HexBytes;

    /// What the fixture says `name` was created with, whole.
    fn initial_of(fx: &Fixture, name: &str) -> Option<Vec<u8>> {
        let initial = fx.initial_content(name)?;
        let mut bytes = vec![0; usize::try_from(initial.len()).unwrap()];
        assert_eq!(initial.copy_at(0, &mut bytes), bytes.len());
        Some(bytes)
    }

    #[test]
    fn builds_every_kind_of_entry() {
        let mut files = BTreeMap::new();
        files.insert("a/b.txt".to_string(), FileSpec::Text("hi\n".into()));
        files.insert(
            "bin".to_string(),
            FileSpec::Detailed(Box::new(FileDetail {
                bytes: Some(HexBytes(vec![0, 0xff])),
                ..Default::default()
            })),
        );
        files.insert(
            "big".to_string(),
            FileSpec::Detailed(Box::new(FileDetail {
                size: Some(5),
                fill: Some("xy".into()),
                ..Default::default()
            })),
        );
        files.insert(
            "empty/".to_string(),
            FileSpec::Detailed(Box::new(FileDetail {
                dir: true,
                ..Default::default()
            })),
        );
        files.insert(
            "link".to_string(),
            FileSpec::Detailed(Box::new(FileDetail {
                symlink: Some("a/b.txt".into()),
                ..Default::default()
            })),
        );
        let fx = Fixture::build(&files).unwrap();
        let root = fx.root();
        assert_eq!(fs::read(root.join("a/b.txt")).unwrap(), b"hi\n");
        assert_eq!(fs::read(root.join("bin")).unwrap(), vec![0, 0xff]);
        assert_eq!(fs::read(root.join("big")).unwrap(), b"xyxyx");
        assert!(root.join("empty").is_dir());
        assert_eq!(fs::read(root.join("link")).unwrap(), b"hi\n");
        assert_eq!(initial_of(&fx, "bin"), Some(vec![0, 0xff]));
    }

    #[test]
    fn sized_files_are_written_in_pieces_with_an_unbroken_pattern() {
        let long_fill = "x".repeat(SizedFile::PIECE + 7);
        for (size, fill) in [
            (200_003u64, "0123456789\n"),
            (150_000, long_fill.as_str()),
            (0, "ab"),
        ] {
            let mut files = BTreeMap::new();
            files.insert(
                "big".to_string(),
                FileSpec::Detailed(Box::new(FileDetail {
                    size: Some(size),
                    fill: Some(fill.to_string()),
                    ..Default::default()
                })),
            );
            let fx = Fixture::build(&files).unwrap();
            let want: Vec<u8> = fill.bytes().cycle().take(size as usize).collect();
            assert_eq!(
                fs::read(fx.root().join("big")).unwrap(),
                want,
                "fill {fill:.12}"
            );
            assert_eq!(initial_of(&fx, "big"), Some(want));
        }
    }

    #[test]
    fn removes_trees_that_were_locked_afterwards() {
        let mut files = BTreeMap::new();
        files.insert("d/x.txt".to_string(), FileSpec::Text("x".into()));
        let fx = Fixture::build(&files).unwrap();
        let root = fx.root().to_path_buf();
        // As a server under test might: lock a directory the fixture did not.
        fs::set_permissions(root.join("d"), fs::Permissions::from_mode(0o000)).unwrap();
        drop(fx);
        assert!(!root.exists(), "{} left behind", root.display());
    }

    #[test]
    fn lays_files_over_a_tree() {
        let tree = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/small-project");
        let mut files = BTreeMap::new();
        files.insert("README.md".to_string(), FileSpec::Text("replaced\n".into()));
        let fx = Fixture::build_over(Some(&tree), &files, None, CanarySeed::fresh()).unwrap();
        let root = fx.root();
        assert!(root.join("src/text/mod.rs").is_file());
        assert_eq!(fs::read(root.join("README.md")).unwrap(), b"replaced\n");
        assert_eq!(initial_of(&fx, "README.md"), Some(b"replaced\n".to_vec()));
        assert_eq!(
            initial_of(&fx, "src/text/mod.rs"),
            Some(fs::read(tree.join("src/text/mod.rs")).unwrap())
        );
    }

    #[test]
    fn never_writes_or_chmods_through_a_link_from_the_tree() {
        let outside = tempfile::tempdir().unwrap();
        fs::write(outside.path().join("victim.txt"), "keep\n").unwrap();
        let tree = tempfile::tempdir().unwrap();
        std::os::unix::fs::symlink(outside.path(), tree.path().join("out")).unwrap();
        std::os::unix::fs::symlink(
            outside.path().join("victim.txt"),
            tree.path().join("victim.txt"),
        )
        .unwrap();

        let below = BTreeMap::from([("out/new.txt".to_string(), FileSpec::Text("x".into()))]);
        let refused = Fixture::build_over(Some(tree.path()), &below, None, CanarySeed::fresh())
            .err()
            .unwrap();
        assert!(
            refused
                .to_string()
                .contains("given.files `out/new.txt`: `out` is a symlink"),
            "{refused}"
        );
        assert!(!outside.path().join("new.txt").exists());

        // An entry laid over a link replaces the link, with its own mode.
        let over = BTreeMap::from([(
            "victim.txt".to_string(),
            FileSpec::Detailed(Box::new(FileDetail {
                text: Some("new\n".into()),
                mode: Some(crate::scenario::FileMode(0o600)),
                ..Default::default()
            })),
        )]);
        let fx = Fixture::build_over(Some(tree.path()), &over, None, CanarySeed::fresh()).unwrap();
        let laid = fx.root().join("victim.txt");
        assert!(laid.symlink_metadata().unwrap().file_type().is_file());
        assert_eq!(fs::read(&laid).unwrap(), b"new\n");
        let victim = outside.path().join("victim.txt");
        assert_eq!(fs::read(&victim).unwrap(), b"keep\n");
        assert_ne!(
            victim.metadata().unwrap().permissions().mode() & 0o777,
            0o600
        );
    }
}
