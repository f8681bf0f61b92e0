//! Builds a scenario's file tree in a fresh temporary directory.
//!
//! The root is canonicalized so that `{root}` in expectations matches the path a
//! server reports after resolving symlinks (on many systems `/tmp` is itself a link).

use std::collections::BTreeMap;
use std::fs;
use std::io;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use tempfile::TempDir;

use crate::scenario::{FileDetail, FileSpec};

/// A built fixture. Dropping it removes the tree, even where modes forbid it.
pub(crate) struct Fixture {
    /// `None` once the tree is kept.
    dir: Option<TempDir>,
    root: PathBuf,
    /// The bytes each content file was created with, for `unchanged` checks.
    initial: BTreeMap<String, Vec<u8>>,
    /// Files given by `size:`, which are written in pieces and only held whole if
    /// an `unchanged` check asks for their bytes.
    sized: BTreeMap<String, SizedFile>,
    /// Some entry got a mode of its own, so removal may need permissions back.
    has_modes: bool,
}

impl Fixture {
    /// Creates the files, then symlinks, then mtimes, then modes (modes last, so a
    /// locked directory does not stop its own children from being made).
    pub(crate) fn build(files: &BTreeMap<String, FileSpec>) -> io::Result<Fixture> {
        Fixture::build_over(None, files)
    }

    /// Copies `tree` (a folder of `fixtures/`) into the root first, then builds
    /// `files` over it.
    pub(crate) fn build_over(
        tree: Option<&Path>,
        files: &BTreeMap<String, FileSpec>,
    ) -> io::Result<Fixture> {
        let dir = tempfile::Builder::new().prefix("toolspec-").tempdir()?;
        let root = dir.path().canonicalize()?;
        let mut initial = BTreeMap::new();
        let mut large = BTreeMap::new();
        if let Some(tree) = tree {
            copy_tree(tree, &root, "", &mut initial)?;
        }
        let mut links = Vec::new();
        let mut mtimes = Vec::new();
        let mut modes = Vec::new();

        for (name, spec) in files {
            let path = root.join(name.trim_end_matches('/'));
            if let Some(parent) = path.parent() {
                fs::create_dir_all(parent)?;
            }
            let detail = match spec {
                FileSpec::Text(text) => {
                    fs::write(&path, text)?;
                    initial.insert(name.clone(), text.as_bytes().to_vec());
                    continue;
                }
                FileSpec::Detailed(detail) => detail,
            };
            if detail.dir {
                fs::create_dir_all(&path)?;
            } else if let Some(target) = &detail.symlink {
                links.push((path.clone(), target.clone()));
            } else if let Some(size) = detail.size {
                let sized = SizedFile::new(size, detail.fill.as_deref());
                sized.write_to(&mut io::BufWriter::new(fs::File::create(&path)?))?;
                large.insert(name.clone(), sized);
            } else {
                let bytes = content_of(detail).map_err(io::Error::other)?;
                fs::write(&path, &bytes)?;
                initial.insert(name.clone(), bytes);
            }
            if let Some(offset) = detail.mtime {
                mtimes.push((path.clone(), offset));
            }
            if let Some(mode) = detail.mode {
                modes.push((path, mode.0));
            }
        }
        for (path, target) in links {
            std::os::unix::fs::symlink(target, &path)?;
        }
        for (path, offset) in mtimes {
            let when = shift(SystemTime::now(), offset);
            filetime::set_symlink_file_times(
                &path,
                filetime::FileTime::from_system_time(when),
                filetime::FileTime::from_system_time(when),
            )?;
        }
        let has_modes = !modes.is_empty();
        // Deepest first, so locking a directory comes after its children.
        modes.sort_by_key(|(p, _)| std::cmp::Reverse(p.components().count()));
        for (path, mode) in modes {
            fs::set_permissions(&path, fs::Permissions::from_mode(mode))?;
        }
        Ok(Fixture {
            dir: Some(dir),
            root,
            initial,
            sized: large,
            has_modes,
        })
    }

    /// The canonical fixture root, substituted for `{root}`.
    pub(crate) fn root(&self) -> &Path {
        &self.root
    }

    /// Leaves the tree on disk instead of removing it, for inspecting a failure.
    pub(crate) fn keep(mut self) -> PathBuf {
        if let Some(dir) = self.dir.take() {
            let _kept_path = dir.keep();
        }
        self.root.clone()
    }

    /// The bytes a fixture file was created with, if it was a content file.
    pub(crate) fn initial_bytes(&self, name: &str) -> Option<&[u8]> {
        match self.initial.get(name) {
            Some(bytes) => Some(bytes),
            None => self.sized.get(name).map(SizedFile::bytes),
        }
    }
}

impl Drop for Fixture {
    fn drop(&mut self) {
        let Some(dir) = self.dir.take() else { return };
        let path = dir.path().to_path_buf();
        if self.has_modes {
            unlock_tree(&path);
        }
        drop(dir);
        // A server under test may have locked something too: unlock and try again.
        if path.exists() {
            unlock_tree(&path);
            let _ = fs::remove_dir_all(&path);
        }
    }
}

/// Copies `from` into `to` (files, folders, symlinks as links), recording each file's
/// bytes under its `/`-separated path below the root.
fn copy_tree(
    from: &Path,
    to: &Path,
    prefix: &str,
    initial: &mut BTreeMap<String, Vec<u8>>,
) -> io::Result<()> {
    let mut entries: Vec<_> = fs::read_dir(from)?.collect::<Result<_, _>>()?;
    entries.sort_by_key(|e| e.file_name());
    for entry in entries {
        let name = entry.file_name().to_string_lossy().into_owned();
        let rel = format!("{prefix}{name}");
        let (source, target) = (entry.path(), to.join(&name));
        let kind = entry.file_type()?;
        if kind.is_symlink() {
            std::os::unix::fs::symlink(fs::read_link(&source)?, &target)?;
        } else if kind.is_dir() {
            fs::create_dir(&target)?;
            copy_tree(&source, &target, &format!("{rel}/"), initial)?;
        } else {
            let bytes = fs::read(&source)?;
            fs::write(&target, &bytes)?;
            initial.insert(rel, bytes);
        }
    }
    Ok(())
}

/// Gives the owner full access everywhere below `dir` so the tree can be removed.
fn unlock_tree(dir: &Path) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        if kind.is_symlink() {
            continue;
        }
        let path = entry.path();
        let _ = fs::set_permissions(&path, fs::Permissions::from_mode(0o700));
        if kind.is_dir() {
            unlock_tree(&path);
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

fn content_of(detail: &FileDetail) -> Result<Vec<u8>, String> {
    if let Some(text) = &detail.text {
        return Ok(text.as_bytes().to_vec());
    }
    if let Some(bytes) = &detail.bytes {
        return Ok(bytes.0.clone());
    }
    // Sized files are written by `SizedFile`; an entry with no content is empty.
    Ok(Vec::new())
}

/// A file of `size` bytes repeating `fill` (`size:` and `fill:`). Loading allows up
/// to 256 MiB, so it is written a piece at a time rather than built in memory.
struct SizedFile {
    size: u64,
    fill: Vec<u8>,
    /// The whole content, made only when asked for.
    whole: std::sync::OnceLock<Vec<u8>>,
}

impl SizedFile {
    /// How much is written at once.
    const PIECE: usize = 64 * 1024;

    fn new(size: u64, fill: Option<&str>) -> SizedFile {
        let fill = fill
            .filter(|f| !f.is_empty())
            .unwrap_or("a")
            .as_bytes()
            .to_vec();
        SizedFile {
            size,
            fill,
            whole: std::sync::OnceLock::new(),
        }
    }

    /// The first `len` bytes of the content.
    fn prefix(&self, len: usize) -> Vec<u8> {
        self.fill.iter().copied().cycle().take(len).collect()
    }

    fn whole(&self) -> Vec<u8> {
        self.prefix(usize::try_from(self.size).unwrap_or(usize::MAX))
    }

    /// The content, made once on the first call.
    fn bytes(&self) -> &[u8] {
        self.whole.get_or_init(|| self.whole())
    }

    /// Writes the content to `out` in pieces that each start where the fill does,
    /// so the pattern runs on unbroken from one piece to the next.
    fn write_to(&self, out: &mut impl io::Write) -> io::Result<()> {
        let repeats = (Self::PIECE / self.fill.len().max(1)).max(1);
        let piece = self.prefix(repeats * self.fill.len());
        let mut left = self.size;
        while left > 0 {
            let now = piece.len().min(usize::try_from(left).unwrap_or(usize::MAX));
            out.write_all(&piece[..now])?;
            left -= now as u64;
        }
        out.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::HexBytes;

    #[test]
    fn builds_every_kind_of_entry() {
        let mut files = BTreeMap::new();
        files.insert("a/b.txt".to_string(), FileSpec::Text("hi\n".into()));
        files.insert(
            "bin".to_string(),
            FileSpec::Detailed(FileDetail {
                bytes: Some(HexBytes(vec![0, 0xff])),
                ..Default::default()
            }),
        );
        files.insert(
            "big".to_string(),
            FileSpec::Detailed(FileDetail {
                size: Some(5),
                fill: Some("xy".into()),
                ..Default::default()
            }),
        );
        files.insert(
            "empty/".to_string(),
            FileSpec::Detailed(FileDetail {
                dir: true,
                ..Default::default()
            }),
        );
        files.insert(
            "link".to_string(),
            FileSpec::Detailed(FileDetail {
                symlink: Some("a/b.txt".into()),
                ..Default::default()
            }),
        );
        let fx = Fixture::build(&files).unwrap();
        let root = fx.root();
        assert_eq!(fs::read(root.join("a/b.txt")).unwrap(), b"hi\n");
        assert_eq!(fs::read(root.join("bin")).unwrap(), vec![0, 0xff]);
        assert_eq!(fs::read(root.join("big")).unwrap(), b"xyxyx");
        assert!(root.join("empty").is_dir());
        assert_eq!(fs::read(root.join("link")).unwrap(), b"hi\n");
        assert_eq!(fx.initial_bytes("bin"), Some(&[0u8, 0xff][..]));
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
                FileSpec::Detailed(FileDetail {
                    size: Some(size),
                    fill: Some(fill.to_string()),
                    ..Default::default()
                }),
            );
            let fx = Fixture::build(&files).unwrap();
            let want: Vec<u8> = fill.bytes().cycle().take(size as usize).collect();
            assert_eq!(
                fs::read(fx.root().join("big")).unwrap(),
                want,
                "fill {fill:.12}"
            );
            assert_eq!(fx.initial_bytes("big"), Some(want.as_slice()));
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
        let fx = Fixture::build_over(Some(&tree), &files).unwrap();
        let root = fx.root();
        assert!(root.join("src/text/mod.rs").is_file());
        assert_eq!(fs::read(root.join("README.md")).unwrap(), b"replaced\n");
        assert_eq!(fx.initial_bytes("README.md"), Some(&b"replaced\n"[..]));
        assert_eq!(
            fx.initial_bytes("src/text/mod.rs"),
            Some(fs::read(tree.join("src/text/mod.rs")).unwrap().as_slice())
        );
    }
}
