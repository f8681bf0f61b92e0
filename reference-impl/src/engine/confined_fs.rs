//! File access beneath directory handles opened once, at start-up.
//!
//! Checking a path and then opening it by name is a race: between the two, a
//! directory on the way can be swapped for a symlink to somewhere else. So
//! every file operation of the server goes through here, and here a path is
//! never opened by name from `/`. It is split at the jail that holds it (the
//! root, or each allowed directory; see [`Jail`]), and opened one component
//! at a time from that jail's handle, without following any symlink, with
//! `cap-std` making sure no step leaves the handle. A caller hands in a path
//! it has already resolved (its symlinks replaced by what they point to, see
//! [`super::paths`]), so an honest tree opens exactly as resolved, and a tree
//! changed since then fails with an error instead of leading elsewhere.
//!
//! Each step is a directory opened with `O_PATH` (cap-std asks for no more
//! when a directory's entries are not read), so passing through a folder
//! needs only its search permission, as a plain `open()` does: a server run as
//! an ordinary user reaches a file below a folder of mode 0111.
//!
//! Writes make a temporary file in the target's own (confined) directory and
//! rename it there, so a write is atomic and never goes through a link. Where
//! no file can be made (a folder the server may enter but not write), a file
//! that is already there and that the server may write is rewritten in place,
//! as a plain `open()` would: opened from the same directory handle, without
//! following a link.
//!
//! The one exception is a server started with a confinement bug (an escape
//! mutation, [`super::breach`]): a path that bug admits, and that is not a
//! real path a jail holds, is opened by name, as the buggy server would open
//! it, and only such a path.

use std::ffi::{CString, OsStr, OsString};
use std::io::{self, Read, Write};
use std::mem::MaybeUninit;
use std::os::fd::{AsFd, AsRawFd};
use std::os::unix::ffi::OsStrExt;
use std::path::{Component, Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use cap_fs_ext::{DirExt, FollowSymlinks, OpenOptionsFollowExt};
use cap_std::fs::{Dir, OpenOptions, OpenOptionsExt, Permissions, PermissionsExt};

use super::breach::{by_name, Breaches};
use super::resolve::resolve_real;

/// What a stat answers (cap-std's, which has the same methods as std's).
pub(crate) type Metadata = cap_std::fs::Metadata;

/// Prefix of the temporary files that writes rename into place.
const TEMP_PREFIX: &str = ".toolspec-write-";
/// Attempts at a fresh temporary name before giving up.
const TEMP_ATTEMPTS: u32 = 64;

/// Where the server may go: one directory handle per confinement directory.
#[derive(Debug)]
pub(crate) struct ConfinedFs {
    jails: Vec<Jail>,
    /// The confinement bugs switched on (none but for a mutation).
    breaches: Breaches,
}

/// One confinement directory: its real path (to split paths at) and the
/// handle every access under it starts from.
#[derive(Debug)]
struct Jail {
    path: PathBuf,
    dir: Dir,
}

/// A path split at its jail: the jail's handle itself, or the directory
/// holding the last component (opened without following links) and that
/// component's name.
enum Located<'a> {
    Jail(&'a Dir),
    Child { parent: Dir, name: OsString },
}

/// One entry of [`ConfinedFs::read_dir`]: its own metadata (a link not
/// followed), and what it leads to.
#[derive(Debug)]
pub(crate) struct ListedEntry {
    pub(crate) name: OsString,
    pub(crate) metadata: Metadata,
    pub(crate) leads_to: LeadsTo,
    /// A link's own text (where it points, as written), read without
    /// following it; `None` for anything else.
    pub(crate) link_target: Option<PathBuf>,
}

/// What a listed entry is once a link is followed, wherever it leads: only the
/// type is read (see [`through_link`]), so a listing can show a link to a
/// directory as a directory, as the real programs do, without reading or
/// listing anything through it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum LeadsTo {
    /// A directory, or a link to one.
    Directory,
    /// Anything else that exists: a file, a device, a link to one.
    NotADirectory,
    /// A link that leads nowhere: dangling, a loop, or through a folder the
    /// server may not search.
    Nowhere,
}

impl ConfinedFs {
    /// Opens a handle on each of `paths` (real, absolute directories).
    pub(crate) fn open(paths: &[PathBuf]) -> io::Result<ConfinedFs> {
        let jails = paths
            .iter()
            .map(|path| {
                Ok(Jail {
                    path: path.clone(),
                    dir: Dir::open_ambient_dir(path, cap_std::ambient_authority())?,
                })
            })
            .collect::<io::Result<Vec<_>>>()?;
        Ok(ConfinedFs {
            jails,
            breaches: Breaches::default(),
        })
    }

    /// Switches the confinement bugs `breaches` on (the escape mutations).
    pub(crate) fn breached_by(&mut self, breaches: Breaches) {
        self.breaches = breaches;
    }

    /// Whether `real` lies in one of the jails.
    pub(crate) fn contains(&self, real: &Path) -> bool {
        self.jails.iter().any(|jail| real.starts_with(&jail.path))
    }

    /// Whether `path` is opened by name: a confinement bug switched on admits
    /// it, and it is not a real path (no link, no `..`) that a jail holds, so
    /// that a jail would refuse it. Never without a bug; a real path in a jail
    /// is always opened beneath it.
    fn by_name(&self, path: &Path) -> bool {
        self.breaches.admit(path)
            && !(self.contains(path) && resolve_real(path).is_ok_and(|real| real == path))
    }

    /// Splits `real` at the deepest jail holding it and opens its parent
    /// directory from there, one component at a time, following no link.
    fn locate(&self, real: &Path) -> io::Result<Located<'_>> {
        let jail = self
            .jails
            .iter()
            .filter(|jail| real.starts_with(&jail.path))
            .max_by_key(|jail| jail.path.components().count())
            .ok_or_else(|| outside(real))?;
        let rest = real.strip_prefix(&jail.path).map_err(|_| outside(real))?;
        let mut names = rest
            .components()
            .map(|component| match component {
                Component::Normal(name) => Ok(name),
                _ => Err(outside(real)),
            })
            .collect::<io::Result<Vec<&OsStr>>>()?;
        let Some(name) = names.pop() else {
            return Ok(Located::Jail(&jail.dir));
        };
        let mut parent = jail.dir.try_clone()?;
        for step in names {
            parent = parent.open_dir_nofollow(step)?;
        }
        Ok(Located::Child {
            parent,
            name: name.to_os_string(),
        })
    }

    /// Stats `real` without following a link at its end. A path opened by
    /// name is stat'ed through its links, as a server that checked it by its
    /// own name and looks it up by name reads it (a dangling link: missing).
    pub(crate) fn metadata(&self, real: &Path) -> io::Result<Metadata> {
        if self.by_name(real) {
            return by_name::metadata(real);
        }
        match self.locate(real)? {
            Located::Jail(dir) => dir.dir_metadata(),
            Located::Child { parent, name } => parent.symlink_metadata(name),
        }
    }

    /// Opens `real` for reading, refusing a link at its end. `O_NONBLOCK`
    /// keeps a FIFO from hanging the call; directories are refused with
    /// EISDIR, as reading one would be.
    pub(crate) fn open_read(&self, real: &Path) -> io::Result<std::fs::File> {
        if self.by_name(real) {
            return by_name::open_read(real);
        }
        let file = match self.locate(real)? {
            Located::Jail(_) => return Err(io::Error::from_raw_os_error(libc::EISDIR)),
            Located::Child { parent, name } => parent.open_with(
                name,
                OpenOptions::new()
                    .read(true)
                    .follow(FollowSymlinks::No)
                    .custom_flags(libc::O_NONBLOCK),
            )?,
        };
        let file = file.into_std();
        if file.metadata()?.is_dir() {
            return Err(io::Error::from_raw_os_error(libc::EISDIR));
        }
        Ok(file)
    }

    /// Opens directory `real` for reading as if it were a file, as `open(2)`
    /// with `O_RDONLY` opens a folder: for a dialect whose program reads a
    /// folder with `fopen` and seeks in it (ikigai's file_read). Reading it
    /// fails with EISDIR; where its end lies is the file system's to say.
    pub(crate) fn open_dir_as_file(&self, real: &Path) -> io::Result<std::fs::File> {
        let file = self
            .dir_at(real)?
            .open_with(".", OpenOptions::new().read(true))?
            .into_std();
        if !file.metadata()?.is_dir() {
            return Err(io::Error::from_raw_os_error(libc::ENOTDIR));
        }
        Ok(file)
    }

    /// Opens `real` for writing without truncating or creating it, refusing a
    /// link at its end (`O_NONBLOCK`, so a FIFO cannot hang the call).
    pub(crate) fn open_write(&self, real: &Path) -> io::Result<std::fs::File> {
        if self.by_name(real) {
            return by_name::open_write(real);
        }
        match self.locate(real)? {
            Located::Jail(_) => Err(is_a_directory()),
            Located::Child { parent, name } => open_existing_for_write(&parent, &name),
        }
    }

    /// Reads `real` whole (see [`ConfinedFs::open_read`]).
    pub(crate) fn read(&self, real: &Path) -> io::Result<Vec<u8>> {
        let mut bytes = Vec::new();
        self.open_read(real)?.read_to_end(&mut bytes)?;
        Ok(bytes)
    }

    /// The entries of directory `real`, in the order the system gives them.
    pub(crate) fn read_dir(&self, real: &Path) -> io::Result<Vec<ListedEntry>> {
        let dir = self.dir_at(real)?;
        let mut entries = Vec::new();
        for entry in dir.entries()? {
            let entry = entry?;
            let name = entry.file_name();
            let metadata = entry.metadata()?;
            let link_target = metadata
                .is_symlink()
                .then(|| dir.read_link_contents(&name).ok())
                .flatten();
            let leads_to = if metadata.is_symlink() {
                through_link(&dir, &name).map_or(LeadsTo::Nowhere, |through| through.leads_to)
            } else if metadata.is_dir() {
                LeadsTo::Directory
            } else {
                LeadsTo::NotADirectory
            };
            entries.push(ListedEntry {
                name,
                metadata,
                leads_to,
                link_target,
            });
        }
        Ok(entries)
    }

    /// Opens directory `real` for a walk: the walk then lists it and opens
    /// what is in it from this handle, one name at a time, instead of looking
    /// every path up again from its jail.
    pub(crate) fn open_dir(&self, real: &Path) -> io::Result<OpenedDir> {
        Ok(OpenedDir {
            dir: self.dir_at(real)?,
        })
    }

    /// A handle on directory `real`, opened beneath its jail (or by name).
    fn dir_at(&self, real: &Path) -> io::Result<Dir> {
        if self.by_name(real) {
            return by_name::open_dir(real);
        }
        match self.locate(real)? {
            Located::Jail(dir) => dir.try_clone(),
            Located::Child { parent, name } => parent.open_dir_nofollow(name),
        }
    }

    /// Creates directory `real` and its missing parents.
    pub(crate) fn create_dir_all(&self, real: &Path) -> io::Result<()> {
        if self.by_name(real) {
            return by_name::create_dir_all(real);
        }
        self.make_dirs(real).map(drop)
    }

    /// Opens directory `real`, creating it and its missing parents, each
    /// step from the handle of the one before.
    fn make_dirs(&self, real: &Path) -> io::Result<Dir> {
        match self.locate(real) {
            Ok(Located::Jail(dir)) => dir.try_clone(),
            Ok(Located::Child { parent, name }) => open_or_create_dir(&parent, &name),
            Err(err) if err.kind() == io::ErrorKind::NotFound => {
                let up = real.parent().ok_or(err)?;
                let parent = self.make_dirs(up)?;
                let name = real.file_name().ok_or_else(|| outside(real))?;
                open_or_create_dir(&parent, name)
            }
            Err(err) => Err(err),
        }
    }

    /// Replaces (or creates) file `real` with `content` and permission bits
    /// `mode`: a temporary file in the same directory, then a rename there.
    /// Missing parent directories are created.
    pub(crate) fn write_atomic(&self, real: &Path, content: &[u8], mode: u32) -> io::Result<()> {
        self.stage(real, content, mode)?.persist()
    }

    /// The first half of [`ConfinedFs::write_atomic`]: `content` written to
    /// a temporary file beside `real` (its parents created), renamed over
    /// `real` by [`StagedWrite::persist`] and removed if never persisted. A
    /// caller that changes several files stages them all first.
    pub(crate) fn stage(&self, real: &Path, content: &[u8], mode: u32) -> io::Result<StagedWrite> {
        self.stage_with(real, content, mode, true)
    }

    /// [`ConfinedFs::stage`] without the fall-back to writing in place: a
    /// folder in which no temporary file can be made refuses the write, as
    /// it does a program that always stages one (agent-tools v0.1.0,
    /// src/lib/atomic.ts:36-49).
    pub(crate) fn stage_beside(
        &self,
        real: &Path,
        content: &[u8],
        mode: u32,
    ) -> io::Result<StagedWrite> {
        self.stage_with(real, content, mode, false)
    }

    /// Replaces (or creates) file `real` as [`ConfinedFs::write_atomic`]
    /// does, through [`ConfinedFs::stage_beside`].
    pub(crate) fn write_beside(&self, real: &Path, content: &[u8], mode: u32) -> io::Result<()> {
        self.stage_beside(real, content, mode)?.persist()
    }

    fn stage_with(
        &self,
        real: &Path,
        content: &[u8],
        mode: u32,
        in_place: bool,
    ) -> io::Result<StagedWrite> {
        let name = real.file_name().ok_or_else(is_a_directory)?;
        if self.by_name(real) {
            return Ok(StagedWrite::ByName {
                path: real.to_path_buf(),
                content: content.to_vec(),
            });
        }
        let parent = self.make_dirs(real.parent().ok_or_else(|| outside(real))?)?;
        let (temp_name, mut temp) = match create_temp(&parent) {
            Ok(created) => created,
            Err(err) if in_place && err.kind() == io::ErrorKind::PermissionDenied => {
                // The folder is not writable; an existing, writable file in it
                // still is (and keeps its mode), else the folder's refusal stands.
                return open_in_place(&parent, name)
                    .map(|file| StagedWrite::InPlace {
                        file,
                        content: content.to_vec(),
                    })
                    .map_err(|_| err);
            }
            Err(err) => return Err(err),
        };
        let staged = TempBeside {
            parent,
            temp: temp_name,
            name: name.to_os_string(),
            persisted: false,
        };
        temp.write_all(content)?;
        temp.sync_all()?;
        temp.set_permissions(Permissions::from_mode(mode))?;
        Ok(StagedWrite::Renamed(staged))
    }

    /// Truncates the existing file `real` and writes `content` into it, as
    /// Go's `os.WriteFile` does: its directory is left as it was (no entry
    /// added or renamed, so the directory's time stays), and the file keeps
    /// its mode. A link at `real` is refused, as is anything not a file.
    pub(crate) fn rewrite_existing(&self, real: &Path, content: &[u8]) -> io::Result<()> {
        let name = real.file_name().ok_or_else(is_a_directory)?;
        if self.by_name(real) {
            return write_over(by_name::open_write(real)?, content);
        }
        let parent = self.open_dir(real.parent().ok_or_else(|| outside(real))?)?;
        write_over(open_in_place(&parent.dir, name)?, content)
    }

    /// Truncates `real` and writes `content` into it, not atomically. Only
    /// the `partial-write` mutation uses this.
    pub(crate) fn write_in_place(&self, real: &Path, content: &[u8]) -> io::Result<()> {
        let name = real.file_name().ok_or_else(is_a_directory)?;
        if self.by_name(real) {
            return by_name::write(real, content);
        }
        let parent = self.make_dirs(real.parent().ok_or_else(|| outside(real))?)?;
        let mut file = parent.open_with(
            name,
            OpenOptions::new()
                .write(true)
                .create(true)
                .truncate(true)
                .follow(FollowSymlinks::No),
        )?;
        file.write_all(content)
    }

    /// Removes the file (or link) `real` itself.
    pub(crate) fn remove_file(&self, real: &Path) -> io::Result<()> {
        if self.by_name(real) {
            return by_name::remove_file(real);
        }
        match self.locate(real)? {
            Located::Jail(_) => Err(is_a_directory()),
            Located::Child { parent, name } => parent.remove_file(name),
        }
    }
}

/// A directory opened beneath a jail (see [`ConfinedFs::open_dir`]). Nothing
/// is opened through a link: a subdirectory or file that is a link is
/// refused, so a walk from here cannot leave the directory it started in.
#[derive(Debug)]
pub(crate) struct OpenedDir {
    dir: Dir,
}

/// One name of an [`OpenedDir`] and its type as the listing gives it (a link
/// is a link, not what it leads to).
#[derive(Debug)]
pub(crate) struct NamedEntry {
    pub(crate) name: OsString,
    pub(crate) is_dir: bool,
    pub(crate) is_symlink: bool,
}

impl OpenedDir {
    /// The names in this directory, in the order the system gives them. The
    /// type comes from the listing itself where the system records it there,
    /// so a walk does not stat every entry.
    pub(crate) fn entries(&self) -> io::Result<Vec<NamedEntry>> {
        let mut entries = Vec::new();
        for entry in self.dir.entries()? {
            let entry = entry?;
            let file_type = entry.file_type()?;
            entries.push(NamedEntry {
                name: entry.file_name(),
                is_dir: file_type.is_dir(),
                is_symlink: file_type.is_symlink(),
            });
        }
        Ok(entries)
    }

    /// Opens subdirectory `name`, refusing a link.
    pub(crate) fn subdir(&self, name: &OsStr) -> io::Result<OpenedDir> {
        Ok(OpenedDir {
            dir: self.dir.open_dir_nofollow(name)?,
        })
    }

    /// Stats this directory itself.
    pub(crate) fn own_metadata(&self) -> io::Result<Metadata> {
        self.dir.dir_metadata()
    }

    /// What link `name` leads to, wherever that is, without opening it
    /// (`None` for a link that leads nowhere); see [`through_link`].
    pub(crate) fn through_link(&self, name: &OsStr) -> Option<Through> {
        through_link(&self.dir, name)
    }

    /// Stats `name` itself, a link not followed.
    pub(crate) fn metadata(&self, name: &OsStr) -> io::Result<Metadata> {
        self.dir.symlink_metadata(name)
    }

    /// Opens file `name` for reading, refusing a link, and stats what was
    /// opened (as [`ConfinedFs::open_read`] does, a FIFO is opened without
    /// blocking and a directory is refused with EISDIR).
    pub(crate) fn open_file(&self, name: &OsStr) -> io::Result<(std::fs::File, std::fs::Metadata)> {
        let file = self
            .dir
            .open_with(
                name,
                OpenOptions::new()
                    .read(true)
                    .follow(FollowSymlinks::No)
                    .custom_flags(libc::O_NONBLOCK),
            )?
            .into_std();
        let metadata = file.metadata()?;
        if metadata.is_dir() {
            return Err(is_a_directory());
        }
        Ok((file, metadata))
    }
}

/// A write waiting to land (see [`ConfinedFs::stage`]).
#[derive(Debug)]
pub(crate) enum StagedWrite {
    /// A temporary file beside the target, to be renamed over it.
    Renamed(TempBeside),
    /// The target itself, opened for writing, to be rewritten in place: its
    /// folder lets no temporary file be made.
    InPlace {
        file: std::fs::File,
        content: Vec<u8>,
    },
    /// A path a confinement bug admitted, written by name when persisted
    /// (through any link in it, a dangling one's target created).
    ByName { path: PathBuf, content: Vec<u8> },
}

impl StagedWrite {
    /// Puts the content in place: renames the temporary file over the target
    /// (in the same directory), or truncates the target and writes it.
    pub(crate) fn persist(self) -> io::Result<()> {
        match self {
            StagedWrite::Renamed(mut staged) => {
                staged
                    .parent
                    .rename(&staged.temp, &staged.parent, &staged.name)?;
                staged.persisted = true;
                Ok(())
            }
            StagedWrite::InPlace { file, content } => write_over(file, &content),
            StagedWrite::ByName { path, content } => by_name::write(&path, &content),
        }
    }
}

/// A temporary file beside its target, removed unless renamed over it.
#[derive(Debug)]
pub(crate) struct TempBeside {
    parent: Dir,
    temp: OsString,
    name: OsString,
    persisted: bool,
}

impl Drop for TempBeside {
    fn drop(&mut self) {
        if !self.persisted {
            // Best effort: a temporary file that cannot be removed is harmless.
            let _ = self.parent.remove_file(&self.temp);
        }
    }
}

/// What a link leads to, read without opening it: see [`through_link`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Through {
    /// A directory or anything else (never [`LeadsTo::Nowhere`]).
    pub(crate) leads_to: LeadsTo,
    pub(crate) modified: Option<std::time::SystemTime>,
}

/// The type and time of what link `name` of `dir` leads to, wherever it
/// leads (`None` for nowhere): one `fstatat` that follows the link from the
/// listing's own directory handle. It opens nothing and reads no content or
/// entries, so a link out of the confinement shows only whether it leads to
/// a directory and when it changed (the order of a listing sorted by time).
fn through_link(dir: &Dir, name: &OsStr) -> Option<Through> {
    let name = CString::new(name.as_bytes()).ok()?;
    let mut stat = MaybeUninit::<libc::stat>::uninit();
    // SAFETY: the descriptor is an open directory and `name` a NUL-terminated
    // string; fstatat fills `stat` when it returns 0.
    let found =
        unsafe { libc::fstatat(dir.as_fd().as_raw_fd(), name.as_ptr(), stat.as_mut_ptr(), 0) };
    if found != 0 {
        return None;
    }
    // SAFETY: fstatat returned 0, so it filled `stat`.
    let stat = unsafe { stat.assume_init() };
    let modified = u64::try_from(stat.st_mtime).ok().map(|secs| {
        let nanos = u32::try_from(stat.st_mtime_nsec).unwrap_or(0);
        std::time::UNIX_EPOCH + std::time::Duration::new(secs, nanos)
    });
    Some(Through {
        leads_to: if stat.st_mode & libc::S_IFMT == libc::S_IFDIR {
            LeadsTo::Directory
        } else {
            LeadsTo::NotADirectory
        },
        modified,
    })
}

/// Opens directory `name` of `parent` (not through a link), creating it first
/// when it is missing.
fn open_or_create_dir(parent: &Dir, name: &OsStr) -> io::Result<Dir> {
    match parent.open_dir_nofollow(name) {
        Err(err) if err.kind() == io::ErrorKind::NotFound => {
            match parent.create_dir(name) {
                Err(err) if err.kind() != io::ErrorKind::AlreadyExists => return Err(err),
                _ => {}
            }
            parent.open_dir_nofollow(name)
        }
        other => other,
    }
}

/// Opens the existing `name` of `parent` for writing, neither creating nor
/// truncating it, not through a link, and `O_NONBLOCK` so a FIFO cannot hang.
fn open_existing_for_write(parent: &Dir, name: &OsStr) -> io::Result<std::fs::File> {
    Ok(parent
        .open_with(
            name,
            OpenOptions::new()
                .write(true)
                .follow(FollowSymlinks::No)
                .custom_flags(libc::O_NONBLOCK),
        )?
        .into_std())
}

/// Truncates the open `file` and writes `content` into it, synced.
fn write_over(mut file: std::fs::File, content: &[u8]) -> io::Result<()> {
    file.set_len(0)?;
    file.write_all(content)?;
    file.sync_all()
}

/// Opens the existing regular file `name` of `parent` for writing, neither
/// creating nor truncating it and not through a link (`O_NONBLOCK`, so a FIFO
/// cannot hang the call; anything but a regular file is refused).
fn open_in_place(parent: &Dir, name: &OsStr) -> io::Result<std::fs::File> {
    let file = open_existing_for_write(parent, name)?;
    if !file.metadata()?.is_file() {
        return Err(io::Error::from(io::ErrorKind::InvalidInput));
    }
    Ok(file)
}

/// A new, empty temporary file in `dir`, created exclusively (so never
/// through a link) under a fresh name.
fn create_temp(dir: &Dir) -> io::Result<(OsString, cap_std::fs::File)> {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let mut last = io::Error::from(io::ErrorKind::AlreadyExists);
    for _ in 0..TEMP_ATTEMPTS {
        let name = OsString::from(format!(
            "{TEMP_PREFIX}{}-{}",
            std::process::id(),
            COUNTER.fetch_add(1, Ordering::Relaxed)
        ));
        match dir.open_with(
            &name,
            OpenOptions::new().write(true).create_new(true).mode(0o600),
        ) {
            Ok(file) => return Ok((name, file)),
            Err(err) if err.kind() == io::ErrorKind::AlreadyExists => last = err,
            Err(err) => return Err(err),
        }
    }
    Err(last)
}

/// The error for a path that no jail holds (or that is not a resolved path).
fn outside(real: &Path) -> io::Error {
    io::Error::new(
        io::ErrorKind::PermissionDenied,
        format!("{} is outside the confined directories", real.display()),
    )
}

fn is_a_directory() -> io::Error {
    io::Error::from_raw_os_error(libc::EISDIR)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    fn jail() -> (tempfile::TempDir, PathBuf, ConfinedFs) {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = std::fs::canonicalize(dir.path()).expect("canonical");
        let fs = ConfinedFs::open(std::slice::from_ref(&root)).expect("open");
        (dir, root, fs)
    }

    #[test]
    fn writes_create_parents_and_leave_no_temporary_file() {
        let (_dir, root, fs) = jail();
        let path = root.join("a/b/c.txt");
        fs.write_atomic(&path, b"hello", 0o640).expect("write");
        assert_eq!(fs.read(&path).expect("read"), b"hello");
        let mode = fs.metadata(&path).expect("stat").permissions().mode();
        assert_eq!(mode & 0o777, 0o640);
        let names: Vec<_> = fs
            .read_dir(&root.join("a/b"))
            .expect("ls")
            .into_iter()
            .map(|e| e.name)
            .collect();
        assert_eq!(names, vec![OsString::from("c.txt")]);
    }

    #[test]
    fn a_link_on_the_way_is_never_followed() {
        let (_dir, root, fs) = jail();
        let outside = tempfile::tempdir().expect("tempdir");
        std::fs::write(outside.path().join("secret.txt"), "secret").expect("write");
        symlink(outside.path(), root.join("d")).expect("symlink");
        let through = root.join("d/secret.txt");
        assert!(fs.read(&through).is_err());
        assert!(fs.metadata(&through).is_err());
        assert!(fs
            .write_atomic(&root.join("d/new.txt"), b"x", 0o644)
            .is_err());
        assert!(fs.create_dir_all(&root.join("d/sub")).is_err());
        assert!(!outside.path().join("new.txt").exists());
        assert!(!outside.path().join("sub").exists());
        std::fs::write(root.join("inside.txt"), "in").expect("write");
        symlink(root.join("inside.txt"), root.join("link.txt")).expect("symlink");
        assert!(fs.read(&root.join("link.txt")).is_err(), "a final link too");
    }

    #[test]
    fn a_listing_tells_where_links_lead_without_following_them_further() {
        let (_dir, root, fs) = jail();
        let outside = tempfile::tempdir().expect("tempdir");
        std::fs::create_dir(outside.path().join("sub")).expect("mkdir");
        std::fs::write(outside.path().join("secret.txt"), "secret").expect("write");
        std::fs::create_dir(root.join("dir")).expect("mkdir");
        std::fs::write(root.join("file.txt"), "x").expect("write");
        symlink(outside.path().join("sub"), root.join("out-dir")).expect("symlink");
        symlink(outside.path().join("secret.txt"), root.join("out-file")).expect("symlink");
        symlink("dir", root.join("in-dir")).expect("symlink");
        symlink("missing", root.join("dangling")).expect("symlink");
        symlink("loop", root.join("loop")).expect("symlink");
        let mut found: Vec<(String, LeadsTo)> = fs
            .read_dir(&root)
            .expect("ls")
            .into_iter()
            .map(|e| (e.name.to_string_lossy().into_owned(), e.leads_to))
            .collect();
        found.sort_by(|a, b| a.0.cmp(&b.0));
        let expected = [
            ("dangling", LeadsTo::Nowhere),
            ("dir", LeadsTo::Directory),
            ("file.txt", LeadsTo::NotADirectory),
            ("in-dir", LeadsTo::Directory),
            ("loop", LeadsTo::Nowhere),
            ("out-dir", LeadsTo::Directory),
            ("out-file", LeadsTo::NotADirectory),
        ];
        let expected: Vec<(String, LeadsTo)> =
            expected.iter().map(|(n, l)| (n.to_string(), *l)).collect();
        assert_eq!(found, expected);
        // Only the type: nothing is read or listed through the link.
        assert!(fs.read(&root.join("out-file")).is_err());
        assert!(fs.read_dir(&root.join("out-dir")).is_err());
    }

    #[test]
    fn paths_outside_every_jail_are_refused() {
        let (_dir, root, fs) = jail();
        let err = fs.read(Path::new("/etc/hostname")).expect_err("outside");
        assert_eq!(err.kind(), io::ErrorKind::PermissionDenied);
        assert!(!fs.contains(Path::new("/etc")));
        assert!(fs.contains(&root.join("x")));
        let err = fs
            .read(&root.join("a/../../etc"))
            .expect_err("not resolved");
        assert_eq!(err.kind(), io::ErrorKind::PermissionDenied);
    }

    #[test]
    fn errors_keep_their_os_meaning() {
        let (_dir, root, fs) = jail();
        std::fs::write(root.join("file.txt"), "x").expect("write");
        let missing = fs.metadata(&root.join("missing")).expect_err("missing");
        assert_eq!(missing.kind(), io::ErrorKind::NotFound);
        let through_file = fs.metadata(&root.join("file.txt/child")).expect_err("file");
        assert_eq!(through_file.raw_os_error(), Some(libc::ENOTDIR));
        let dir = fs.read(&root).expect_err("dir");
        assert_eq!(dir.raw_os_error(), Some(libc::EISDIR));
        std::fs::create_dir(root.join("sub")).expect("mkdir");
        let sub = fs.read(&root.join("sub")).expect_err("dir");
        assert_eq!(sub.raw_os_error(), Some(libc::EISDIR));
    }
}
