//! What an isolated server sees of the filesystem: a view made of the system
//! folders, the folders its program and `PATH` need, its fixture and scratch
//! folder, and nothing else. The home, `/tmp`, `/run`, `/var`, other users' places
//! and every Unix socket in them are not there; what is there is read-only but for
//! the fixture, the scratch folder and `isolation.writable`, so neither a write nor
//! a change of mode, owner, time or extended attribute reaches a file outside.
//!
//! The view is planned here, in toolspec (resolving paths allocates), as a list of
//! steps over a fresh tmpfs, each with its paths ready; the server's init carries
//! them out between `fork` and `exec` (`view_enter.rs`). Every place keeps its own
//! path inside the view, so the paths a server names in its answers are those of
//! the machine.

use std::collections::BTreeSet;
use std::ffi::{CStr, CString};
use std::os::unix::ffi::OsStrExt;
use std::path::{Component, Path, PathBuf};
use std::sync::Mutex;

use crate::fixture::Places;

/// The system folders every server reads: its programs, their libraries, the
/// configuration they read at start. Each is there if the machine has it; a link
/// (`/bin` to `usr/bin`) is made again as a link.
const SYSTEM: &[&str] = &[
    "/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt",
];

/// Bound without what is mounted below it where the kernel allows (not in a user
/// namespace, where that would uncover what those mounts hide): `/sys` has a dozen
/// mounts below it (the cgroup hierarchies among them) that no server needs, each
/// one more to make and tear down per server.
const SYSTEM_ALONE: &str = "/sys";

/// Files of `/etc` a process of uid 0 could still read without capabilities (it
/// owns them): each is replaced by an empty file.
const MASKED_FILES: &[&str] = &[
    "/etc/shadow",
    "/etc/shadow-",
    "/etc/gshadow",
    "/etc/gshadow-",
    "/etc/sudoers",
    "/etc/security/opasswd",
];

/// Folders of `/etc` that hold keys, each hidden under an empty folder.
const MASKED_FOLDERS: &[&str] = &["/etc/ssh", "/etc/sudoers.d", "/etc/ssl/private"];

/// The devices a server may open: the common ones, and its terminal's name (which
/// opens nothing, as it has no terminal).
const DEVICES: &[&str] = &[
    "/dev/null",
    "/dev/zero",
    "/dev/full",
    "/dev/random",
    "/dev/urandom",
    "/dev/tty",
];

/// The parts of a fresh `/proc` that change the machine rather than describe the
/// server's processes, made read-only (as bubblewrap does).
const PROC_READ_ONLY: &[&str] = &["sys", "sysrq-trigger", "irq", "bus"];

/// One step of making the view, its paths already inside the new root.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Step {
    /// Make a folder.
    Folder(CString),
    /// Make an empty file (to bind a file or device onto).
    File(CString),
    /// Bind `from` (a path of the machine) at `to`, read-only unless `writable`.
    Bind {
        from: CString,
        to: CString,
        writable: bool,
    },
    /// Bind `from` at `to` read-only, without the mounts below it where the kernel
    /// allows that, with them where it does not.
    BindAlone { from: CString, to: CString },
    /// Mount the server's scratch tmpfs (its `TMPDIR` and private home): its own
    /// (mode 0700) and gone with its view; its pages count against the server's
    /// memory limit.
    Scratch(CString),
    /// Mount an overlay at `at` with `options` (its lower folder a package cache of
    /// the machine's, its upper and work folders in the scratch tmpfs), so the
    /// server reads the cache and what it writes there stays its own. Left out if
    /// the kernel refuses it.
    Overlay { options: CString, at: CString },
    /// Make a symbolic link `at` pointing to `target`.
    Link { target: CString, at: CString },
    /// Mount the server's own `/proc` (its machine-wide parts are made read-only by
    /// the binds that follow).
    Proc(CString),
}

/// The whole view of one server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ViewPlan {
    /// Where the tmpfs that becomes the server's `/` is mounted while the view is
    /// made (the folder every view shares, `view_folders.rs`).
    pub(crate) new_root: CString,
    pub(crate) steps: Vec<Step>,
    /// The folder the server starts in (its fixture root), as a path of the view.
    pub(crate) start_in: CString,
    /// The scratch tmpfs, as a path of the view: made in the view, so the Landlock
    /// rule that lets the server write there is added by its init once it is
    /// mounted (`confinement::allow_writes_beneath`).
    pub(crate) scratch: CString,
    /// The Landlock rights that rule grants (0: none, the server has no rules).
    pub(crate) scratch_access: u64,
    /// How many of `steps`, from the first, are the same for every server of its
    /// target: all but its scratch tmpfs, its `/proc` and its fixture, which are
    /// its own. A spawner keeps that part made once (`view_template.rs`).
    pub(crate) shared_steps: usize,
}

/// What one server's view holds beyond the system folders.
pub(crate) struct ViewOf<'a> {
    /// Where the tmpfs that becomes the server's `/` is mounted while the view is
    /// made: an empty folder, shared by every view (`view_folders.rs`).
    pub(crate) new_root: &'a Path,
    /// The fixture root, where the server starts, and the places a scenario gave
    /// beside it (`given.outside`), bound at their own paths after the shared
    /// steps, writable if `beside_writable`.
    pub(crate) places: Places<'a>,
    /// An empty folder, bound read-only over each folder the view hides.
    pub(crate) empty: &'a Path,
    /// Where the server's scratch tmpfs is mounted (its `TMPDIR`), and the folder
    /// made in it (its private home, when it has one).
    pub(crate) scratch: &'a Path,
    pub(crate) home: Option<&'a Path>,
    /// The Landlock rights to grant beneath the scratch tmpfs.
    pub(crate) scratch_access: u64,
    /// Extra places it may write (`isolation.writable`).
    pub(crate) writable: &'a [PathBuf],
    /// Places it reads: the folders its program and `PATH` need, the target file's
    /// folder, the current folder, `isolation.read`, the home under `keep_home`.
    pub(crate) readable: &'a [PathBuf],
    /// Package caches of the machine's shown in its private home, each over an
    /// overlay whose writes stay in its scratch tmpfs (for `npx` and `uvx`).
    pub(crate) caches: &'a [PackageCache],
}

/// A package runner's cache (npm's `~/.npm`, uv's `~/.cache/uv`) and where the
/// server's runner looks for it (the same folder of its private home).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct PackageCache {
    pub(crate) machine: PathBuf,
    pub(crate) private: PathBuf,
}

/// The folder of the scratch tmpfs that holds each cache overlay's upper and work
/// folders; hidden, so a listing of the server's `TMPDIR` shows what it made.
const OVERLAYS: &str = ".toolspec-overlays";

/// A path that cannot be put in a server's view, and why.
#[derive(Debug, thiserror::Error)]
pub(crate) enum ViewError {
    /// A link (or the fixture root) whose target cannot be found.
    #[error("{} cannot be resolved: {source}", path.display())]
    Unresolvable {
        /// The path.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// A place given as a relative path.
    #[error("{} is not an absolute path", path.display())]
    NotAbsolute {
        /// The path.
        path: PathBuf,
    },
    /// A path the kernel cannot be given, with a NUL byte in it.
    #[error("{} has a NUL byte in it", path.display())]
    NulByte {
        /// The path.
        path: PathBuf,
    },
    /// An overlay's mount options with a NUL byte in them.
    #[error(transparent)]
    OverlayOptions(#[from] std::ffi::NulError),
}

/// The view for `of`; `Err` names a path that cannot be put in it.
pub(crate) fn plan(of: &ViewOf) -> Result<ViewPlan, ViewError> {
    let mut builder = shared_part(of)?;
    let Places {
        root,
        beside,
        beside_writable,
    } = of.places;
    builder.place(root, true)?;
    for place in beside {
        builder.place(place, beside_writable)?;
    }
    let start_in = std::fs::canonicalize(root).map_err(|source| ViewError::Unresolvable {
        path: root.to_path_buf(),
        source,
    })?;
    Ok(ViewPlan {
        new_root: c_path(of.new_root)?,
        steps: builder.steps,
        start_in: c_path(&start_in)?,
        scratch: c_path(of.scratch)?,
        scratch_access: of.scratch_access,
        shared_steps: builder.shared_steps,
    })
}

/// What the views of one target's servers share: all but the fixture root.
/// Everything in it depends only on the machine and on [`SharedKey`], so it is
/// planned once per key (each path looked at and resolved once, not once per
/// server: that was a fifth of a millisecond a server) and copied for each
/// server.
fn shared_part(of: &ViewOf) -> Result<Builder, ViewError> {
    static PLANNED: Mutex<Vec<(SharedKey, Builder)>> = Mutex::new(Vec::new());
    let key = SharedKey {
        new_root: of.new_root.to_path_buf(),
        empty: of.empty.to_path_buf(),
        scratch: of.scratch.to_path_buf(),
        home: of.home.map(Path::to_path_buf),
        writable: of.writable.to_vec(),
        readable: of.readable.to_vec(),
        caches: of.caches.to_vec(),
    };
    let mut planned = PLANNED
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if let Some((_, builder)) = planned.iter().find(|(k, _)| *k == key) {
        return Ok(builder.clone());
    }
    let builder = plan_shared_part(of)?;
    planned.push((key, builder.clone()));
    Ok(builder)
}

/// What [`shared_part`] is planned from.
#[derive(PartialEq, Eq)]
struct SharedKey {
    new_root: PathBuf,
    empty: PathBuf,
    scratch: PathBuf,
    home: Option<PathBuf>,
    writable: Vec<PathBuf>,
    readable: Vec<PathBuf>,
    caches: Vec<PackageCache>,
}

fn plan_shared_part(of: &ViewOf) -> Result<Builder, ViewError> {
    let mut builder = Builder {
        new_root: of.new_root.to_path_buf(),
        steps: Vec::new(),
        shared_steps: 0,
        made: BTreeSet::new(),
        bound: BTreeSet::new(),
    };
    for system in SYSTEM {
        builder.place(Path::new(system), false)?;
    }
    for file in MASKED_FILES {
        let file = Path::new(file);
        if file.is_file() {
            builder.bind_file(Path::new("/dev/null"), file, false)?;
        }
    }
    for folder in MASKED_FOLDERS {
        let folder = Path::new(folder);
        if folder.is_dir() {
            builder.steps.push(Step::Bind {
                from: c_path(of.empty)?,
                to: builder.inside(folder)?,
                writable: false,
            });
        }
    }
    let alone = Path::new(SYSTEM_ALONE);
    if alone.is_dir() {
        builder.folder(alone)?;
        builder.steps.push(Step::BindAlone {
            from: c_path(alone)?,
            to: builder.inside(alone)?,
        });
        builder.bound.insert((alone.to_path_buf(), false));
    }
    builder.devices()?;
    for path in of.readable {
        builder.place(path, false)?;
    }
    for path in of.writable {
        builder.place(path, true)?;
    }
    // The folders the server's own mounts go on are shared; the mounts are not.
    builder.folder(of.scratch)?;
    builder.folder(Path::new("/proc"))?;
    builder.shared_steps = builder.steps.len();
    builder.scratch(of.scratch, of.home)?;
    for (index, cache) in of.caches.iter().enumerate() {
        builder.cache_overlay(of.scratch, index, cache)?;
    }
    let proc = builder.inside(Path::new("/proc"))?;
    builder.steps.push(Step::Proc(proc));
    for part in PROC_READ_ONLY {
        let path = Path::new("/proc").join(part);
        if path.exists() {
            let inside = builder.inside(&path)?;
            builder.steps.push(Step::Bind {
                from: inside.clone(),
                to: inside,
                writable: false,
            });
        }
    }
    Ok(builder)
}

/// The folders inside `home` worth reading whole for one that is needed: for a
/// `bin` folder at least two levels below the home, the prefix holding it (a
/// Python or Node installation, a virtual environment: its `lib` is beside its
/// `bin`), and for a version manager's `shims`, the manager's folder. Never the
/// home itself nor a folder directly in it (`~/.local`, `~/.cargo`), which hold
/// far more than one program.
pub(crate) fn prefix_of(folder: &Path, home: &Path) -> Option<PathBuf> {
    let parent = folder.parent()?;
    let name = folder.file_name()?;
    let below_home = parent.strip_prefix(home).ok()?.components().count();
    match name.to_str()? {
        "bin" if below_home >= 2 => Some(parent.to_path_buf()),
        "shims" if below_home >= 1 => Some(parent.to_path_buf()),
        _ => None,
    }
}

/// Builds the steps, making each folder once, parents first.
#[derive(Clone)]
struct Builder {
    new_root: PathBuf,
    steps: Vec<Step>,
    /// How many of `steps` every server of the target shares.
    shared_steps: usize,
    /// Folders of the view already made (as paths of the machine).
    made: BTreeSet<PathBuf>,
    /// Places already bound, and whether writable: a place inside one of them is
    /// there already.
    bound: BTreeSet<(PathBuf, bool)>,
}

impl Builder {
    /// `path` as a path inside the new root.
    fn inside(&self, path: &Path) -> Result<CString, ViewError> {
        let relative = path.strip_prefix("/").unwrap_or(path);
        c_path(&self.new_root.join(relative))
    }

    /// Makes `folder` and each of its parents not made yet.
    fn folder(&mut self, folder: &Path) -> Result<(), ViewError> {
        let mut path = PathBuf::from("/");
        for part in folder.components() {
            if let Component::Normal(name) = part {
                path.push(name);
                if self.made.insert(path.clone()) {
                    let at = self.inside(&path)?;
                    self.steps.push(Step::Folder(at));
                }
            }
        }
        Ok(())
    }

    /// Puts `path` (a folder or a file) in the view at its own path: a link is made
    /// again as a link and its target put in too (resolved); a missing path is
    /// left out. Places inside one already there are not bound twice.
    fn place(&mut self, path: &Path, writable: bool) -> Result<(), ViewError> {
        if !path.is_absolute() {
            return Err(ViewError::NotAbsolute {
                path: path.to_path_buf(),
            });
        }
        let Ok(meta) = std::fs::symlink_metadata(path) else {
            return Ok(());
        };
        if meta.file_type().is_symlink() {
            let resolved =
                std::fs::canonicalize(path).map_err(|source| ViewError::Unresolvable {
                    path: path.to_path_buf(),
                    source,
                })?;
            if let (Some(parent), Ok(target)) = (path.parent(), std::fs::read_link(path)) {
                let at = self.inside(path)?;
                if self.made.insert(path.to_path_buf()) {
                    self.folder(parent)?;
                    self.steps.push(Step::Link {
                        target: c_path(&target)?,
                        at,
                    });
                }
            }
            return self.place(&resolved, writable);
        }
        // Its own parents may be links too (`/lib64` in `/lib64/ld.so`).
        let path = match path.parent().map(std::fs::canonicalize) {
            Some(Ok(parent)) => parent.join(path.file_name().unwrap_or_default()),
            _ => path.to_path_buf(),
        };
        // Inside a place already there, and writable if it need be: nothing to do.
        // A writable place inside a read-only one is bound again over it.
        if self
            .bound
            .iter()
            .any(|(above, open)| path.starts_with(above) && (*open || !writable))
        {
            return Ok(());
        }
        if meta.is_dir() {
            self.folder(&path)?;
        } else {
            if let Some(parent) = path.parent() {
                self.folder(parent)?;
            }
            self.steps.push(Step::File(self.inside(&path)?));
        }
        self.steps.push(Step::Bind {
            from: c_path(&path)?,
            to: self.inside(&path)?,
            writable,
        });
        self.bound.insert((path, writable));
        Ok(())
    }

    /// A tmpfs of the server's own at `scratch`, always (a place bound before may
    /// hold that path, but never the server's scratch), with `home` made in it.
    fn scratch(&mut self, scratch: &Path, home: Option<&Path>) -> Result<(), ViewError> {
        if !scratch.is_absolute() {
            return Err(ViewError::NotAbsolute {
                path: scratch.to_path_buf(),
            });
        }
        self.folder(scratch)?;
        self.steps.push(Step::Scratch(self.inside(scratch)?));
        if let Some(home) = home {
            self.steps.push(Step::Folder(self.inside(home)?));
        }
        Ok(())
    }

    /// An overlay of `cache` at its private place, its upper and work folders the
    /// `index`th in the scratch tmpfs. Left out when a path holds a character the
    /// overlay's options cannot carry (`,`, `:` or `\`), or the cache is not there.
    fn cache_overlay(
        &mut self,
        scratch: &Path,
        index: usize,
        cache: &PackageCache,
    ) -> Result<(), ViewError> {
        let own = scratch.join(OVERLAYS).join(index.to_string());
        let (upper, work) = (own.join("upper"), own.join("work"));
        let paths = [&cache.machine, &cache.private, &upper, &work];
        let plain = |p: &&PathBuf| p.to_str().is_some_and(|p| !p.contains([',', ':', '\\']));
        if !cache.machine.is_dir() || !paths.iter().all(plain) {
            return Ok(());
        }
        for folder in [&upper, &work, &cache.private] {
            self.folder(folder)?;
        }
        let inside = |p: &Path| -> Result<String, ViewError> {
            let at = self.inside(p)?;
            Ok(at.to_string_lossy().into_owned())
        };
        let options = format!(
            "lowerdir={},upperdir={},workdir={}",
            cache.machine.display(),
            inside(&upper)?,
            inside(&work)?
        );
        self.steps.push(Step::Overlay {
            options: CString::new(options)?,
            at: self.inside(&cache.private)?,
        });
        Ok(())
    }

    /// Binds the file `from` at `at` (both paths of the machine).
    fn bind_file(&mut self, from: &Path, at: &Path, writable: bool) -> Result<(), ViewError> {
        self.steps.push(Step::Bind {
            from: c_path(from)?,
            to: self.inside(at)?,
            writable,
        });
        Ok(())
    }

    /// A `/dev` of its own: a folder of the view's `/` (read-only once made, and
    /// not sticky, where the kernel would refuse to open a device its owner does
    /// not own; no tmpfs of its own, one less to make and end a server) with the
    /// common devices, a shared-memory tmpfs, and the links to the server's own
    /// descriptors.
    fn devices(&mut self) -> Result<(), ViewError> {
        let dev = Path::new("/dev");
        self.folder(dev)?;
        for device in DEVICES {
            let device = Path::new(device);
            if device.exists() {
                self.steps.push(Step::File(self.inside(device)?));
                self.bind_file(device, device, true)?;
            }
        }
        // A folder of the read-only `/`: no server may write in it (where toolspec's
        // fixtures are on `/dev/shm`, the folders beside a fixture root are there).
        self.folder(Path::new("/dev/shm"))?;
        for (name, target) in [
            ("fd", "/proc/self/fd"),
            ("stdin", "/proc/self/fd/0"),
            ("stdout", "/proc/self/fd/1"),
            ("stderr", "/proc/self/fd/2"),
        ] {
            self.steps.push(Step::Link {
                target: c_path(Path::new(target))?,
                at: self.inside(&dev.join(name))?,
            });
        }
        Ok(())
    }
}

impl ViewPlan {
    /// The plan as strings, to hand it to another process (the spawner): the new
    /// root, the folder to start in, the scratch tmpfs and its rights and the
    /// number of shared steps (in decimal), then three strings a step (its kind and two paths, the second empty where it
    /// has one).
    pub(crate) fn to_strings(&self) -> Vec<CString> {
        let mut strings = vec![
            self.new_root.clone(),
            self.start_in.clone(),
            self.scratch.clone(),
            CString::new(self.scratch_access.to_string()).unwrap_or_default(),
            CString::new(self.shared_steps.to_string()).unwrap_or_default(),
        ];
        for step in &self.steps {
            let (kind, first, second): (&CStr, &CString, Option<&CString>) = match step {
                Step::Folder(at) => (c"folder", at, None),
                Step::File(at) => (c"file", at, None),
                Step::Bind {
                    from,
                    to,
                    writable: false,
                } => (c"bind", from, Some(to)),
                Step::Bind {
                    from,
                    to,
                    writable: true,
                } => (c"bind-writable", from, Some(to)),
                Step::BindAlone { from, to } => (c"bind-alone", from, Some(to)),
                Step::Scratch(at) => (c"scratch", at, None),
                Step::Overlay { options, at } => (c"overlay", options, Some(at)),
                Step::Link { target, at } => (c"link", target, Some(at)),
                Step::Proc(at) => (c"proc", at, None),
            };
            strings.push(kind.to_owned());
            strings.push(first.clone());
            strings.push(second.cloned().unwrap_or_default());
        }
        strings
    }

    /// Back from [`ViewPlan::to_strings`]; `None` if they are not a plan.
    pub(crate) fn from_strings(strings: &[CString]) -> Option<ViewPlan> {
        let (new_root, rest) = strings.split_first()?;
        let (start_in, rest) = rest.split_first()?;
        let (scratch, rest) = rest.split_first()?;
        let (scratch_access, rest) = rest.split_first()?;
        let scratch_access = scratch_access.to_str().ok()?.parse().ok()?;
        let (shared_steps, rest) = rest.split_first()?;
        let shared_steps = shared_steps.to_str().ok()?.parse().ok()?;
        if rest.len() % 3 != 0 || shared_steps > rest.len() / 3 {
            return None;
        }
        let steps = rest
            .chunks_exact(3)
            .map(|step| {
                let [kind, first, second] = step else {
                    return None;
                };
                let (first, second) = (first.clone(), second.clone());
                Some(match kind.as_bytes() {
                    b"folder" => Step::Folder(first),
                    b"file" => Step::File(first),
                    b"bind" | b"bind-writable" => Step::Bind {
                        from: first,
                        to: second,
                        writable: kind.as_bytes() == b"bind-writable",
                    },
                    b"bind-alone" => Step::BindAlone {
                        from: first,
                        to: second,
                    },
                    b"scratch" => Step::Scratch(first),
                    b"overlay" => Step::Overlay {
                        options: first,
                        at: second,
                    },
                    b"link" => Step::Link {
                        target: first,
                        at: second,
                    },
                    b"proc" => Step::Proc(first),
                    _ => return None,
                })
            })
            .collect::<Option<Vec<_>>>()?;
        Some(ViewPlan {
            new_root: new_root.clone(),
            steps,
            start_in: start_in.clone(),
            scratch: scratch.clone(),
            scratch_access,
            shared_steps,
        })
    }
}

fn c_path(path: &Path) -> Result<CString, ViewError> {
    CString::new(path.as_os_str().as_bytes()).map_err(|_| ViewError::NulByte {
        path: path.to_path_buf(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::ffi::OsStringExt;

    fn text(c: &CString) -> &str {
        c.to_str().expect("utf-8")
    }

    /// The view of a server in `dir` (its `view`, `empty` and `scratch` folders
    /// there) with the fixture `root` and the private `home`.
    fn plan_in(
        dir: &Path,
        root: &Path,
        home: &Path,
        readable: &[PathBuf],
        caches: &[PackageCache],
    ) -> ViewPlan {
        plan(&ViewOf {
            new_root: &dir.join("view"),
            empty: &dir.join("empty"),
            places: Places::root_only(root),
            scratch: &dir.join("scratch"),
            home: Some(home),
            scratch_access: 7,
            writable: &[],
            readable,
            caches,
        })
        .expect("a view")
    }

    #[test]
    fn a_package_cache_is_an_overlay_in_the_private_home_with_its_writes_in_the_scratch_tmpfs() {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path().join("root");
        let scratch = dir.path().join("scratch");
        let cache = dir.path().join("npm-cache");
        let odd = dir.path().join("odd,cache");
        for folder in [&root, &cache, &odd] {
            std::fs::create_dir_all(folder).expect("folder");
        }
        let home = scratch.join("home");
        let caches = [
            PackageCache {
                machine: cache.clone(),
                private: home.join(".npm"),
            },
            // A comma would split the overlay's options: left out.
            PackageCache {
                machine: odd,
                private: home.join(".cache/uv"),
            },
            // Not on this machine: left out.
            PackageCache {
                machine: dir.path().join("missing"),
                private: home.join(".cache/other"),
            },
        ];
        let view = plan_in(dir.path(), &root, &home, &[], &caches);
        let in_view = |p: &Path| {
            dir.path()
                .join("view")
                .join(p.strip_prefix("/").expect("absolute"))
        };
        let overlays: Vec<(String, PathBuf)> = view
            .steps
            .iter()
            .filter_map(|step| match step {
                Step::Overlay { options, at } => Some((
                    options.to_str().expect("utf-8").to_string(),
                    PathBuf::from(at.to_str().expect("utf-8")),
                )),
                _ => None,
            })
            .collect();
        let upper = in_view(&scratch.join(OVERLAYS).join("0/upper"));
        let work = in_view(&scratch.join(OVERLAYS).join("0/work"));
        assert_eq!(
            overlays,
            [(
                format!(
                    "lowerdir={},upperdir={},workdir={}",
                    cache.display(),
                    upper.display(),
                    work.display()
                ),
                in_view(&home.join(".npm"))
            )]
        );
        // After the scratch tmpfs, so its folders are made in it; and the plan reads
        // back from its strings as it was.
        let position = |wanted: &Step| view.steps.iter().position(|s| s == wanted);
        let tmpfs = position(&Step::Scratch(c_path(&in_view(&scratch)).expect("path")));
        let overlay = view
            .steps
            .iter()
            .position(|s| matches!(s, Step::Overlay { .. }));
        assert!(tmpfs < overlay, "{:?}", view.steps);
        assert_eq!(ViewPlan::from_strings(&view.to_strings()), Some(view));
    }

    /// The places a scenario gives beside the root are bound at their own paths
    /// after the shared steps, read-only unless the scenario lets the server write.
    #[test]
    fn places_beside_the_root_are_bound_after_the_shared_steps_writable_only_when_asked() {
        let dir = tempfile::tempdir().expect("tempdir");
        let fixture = dir.path().join("fixture");
        let (root, outside, evil) = (
            fixture.join("root"),
            fixture.join("outside"),
            fixture.join("root_evil"),
        );
        for folder in [&root, &outside, &evil, &dir.path().join("scratch")] {
            std::fs::create_dir_all(folder).expect("folder");
        }
        let beside = [outside.clone(), evil.clone()];
        for writable in [false, true] {
            let view = plan(&ViewOf {
                new_root: &dir.path().join("view"),
                empty: &dir.path().join("empty"),
                places: Places {
                    root: &root,
                    beside: &beside,
                    beside_writable: writable,
                },
                scratch: &dir.path().join("scratch"),
                home: None,
                scratch_access: 0,
                writable: &[],
                readable: &[],
                caches: &[],
            })
            .expect("a view");
            for place in &beside {
                let place = std::fs::canonicalize(place).expect("place");
                let at = view
                    .steps
                    .iter()
                    .position(|s| matches!(s, Step::Bind { from, writable: w, .. } if text(from) == place.to_str().expect("utf-8") && *w == writable))
                    .unwrap_or_else(|| panic!("{} not bound (writable {writable}): {:?}", place.display(), view.steps));
                assert!(at >= view.shared_steps, "{at} < {}", view.shared_steps);
            }
        }
    }

    #[test]
    fn the_fixture_is_bound_writable_the_scratch_is_a_tmpfs_of_its_own_and_the_rest_read_only() {
        let dir = tempfile::tempdir().expect("tempdir");
        let (root, scratch, tool) = (
            dir.path().join("root"),
            dir.path().join("scratch"),
            dir.path().join("tools/bin"),
        );
        for folder in [&root, &scratch, &tool] {
            std::fs::create_dir_all(folder).expect("folder");
        }
        let home = scratch.join("home");
        let view = plan_in(dir.path(), &root, &home, std::slice::from_ref(&tool), &[]);
        let root = std::fs::canonicalize(&root).expect("root");
        let binds: Vec<(&str, bool)> = view
            .steps
            .iter()
            .filter_map(|step| match step {
                Step::Bind { from, writable, .. } => Some((text(from), *writable)),
                _ => None,
            })
            .collect();
        assert!(
            binds.contains(&(root.to_str().expect("utf-8"), true)),
            "{binds:?}"
        );
        assert!(binds
            .iter()
            .any(|(from, w)| from.ends_with("tools/bin") && !w));
        assert!(binds.contains(&("/usr", false)), "{binds:?}");
        // Nothing of the machine's writable but the fixture and the devices.
        for (from, writable) in &binds {
            if *writable {
                assert!(
                    from.starts_with("/dev/") || *from == root.to_str().expect("utf-8"),
                    "{from}"
                );
            }
        }
        // The scratch folder is not the machine's: a tmpfs, the home made in it.
        assert!(!binds.iter().any(|(from, _)| from.ends_with("/scratch")));
        let in_view = |path: &Path| {
            CString::new(
                dir.path()
                    .join("view")
                    .join(path.strip_prefix("/").expect("absolute"))
                    .into_os_string()
                    .into_vec(),
            )
            .expect("no NUL")
        };
        let tmpfs = view
            .steps
            .iter()
            .position(|step| *step == Step::Scratch(in_view(&scratch)))
            .expect("a scratch tmpfs");
        assert_eq!(view.steps[tmpfs + 1], Step::Folder(in_view(&home)));
        assert_eq!(text(&view.scratch), scratch.to_str().expect("utf-8"));
        assert_eq!(view.scratch_access, 7);
        assert!(!binds
            .iter()
            .any(|(from, _)| *from == "/tmp" || *from == "/root"));
        assert_eq!(text(&view.start_in), root.to_str().unwrap());
        assert!(view.steps.iter().any(|s| matches!(s, Step::Proc(_))));
        assert_eq!(
            ViewPlan::from_strings(&view.to_strings()),
            Some(view.clone())
        );
        // Cut in its header, or in a step.
        assert_eq!(ViewPlan::from_strings(&view.to_strings()[..3]), None);
        assert_eq!(ViewPlan::from_strings(&view.to_strings()[..6]), None);
    }

    #[test]
    fn the_shared_part_holds_every_folder_and_none_of_one_servers_own_mounts() {
        let dir = tempfile::tempdir().expect("tempdir");
        let (root, scratch) = (
            dir.path().join("fixtures/one/root"),
            dir.path().join("scratch"),
        );
        for folder in [&root, &scratch] {
            std::fs::create_dir_all(folder).expect("folder");
        }
        let home = scratch.join("home");
        let view = plan_in(dir.path(), &root, &home, &[], &[]);
        let (shared, own) = view.steps.split_at(view.shared_steps);
        let fixture = c_path(&std::fs::canonicalize(&root).expect("root")).expect("path");
        let own_mount = |step: &Step| match step {
            Step::Scratch(_) | Step::Proc(_) | Step::Overlay { .. } => true,
            Step::Bind { from, .. } => *from == fixture,
            _ => false,
        };
        assert!(!shared.iter().any(own_mount), "{shared:?}");
        assert_eq!(own.iter().filter(|s| own_mount(s)).count(), 3, "{own:?}");
        // The folders the server's own mounts go on are made with the shared part;
        // only the fixture's, which change with each server, are its own.
        let in_view = |path: &Path| {
            c_path(
                &dir.path()
                    .join("view")
                    .join(path.strip_prefix("/").expect("absolute")),
            )
            .expect("path")
        };
        for folder in [in_view(&scratch), in_view(Path::new("/proc"))] {
            assert!(shared.contains(&Step::Folder(folder.clone())), "{folder:?}");
        }
        assert!(own.iter().all(|s| !matches!(s, Step::Folder(at) if !at.to_bytes().starts_with(in_view(&dir.path().join("fixtures")).to_bytes()) && !at.to_bytes().starts_with(in_view(&scratch).to_bytes()))), "{own:?}");
        // A count of shared steps past the steps is no plan.
        let mut strings = view.to_strings();
        strings[4] = CString::new((view.steps.len() + 1).to_string()).expect("no NUL");
        assert_eq!(ViewPlan::from_strings(&strings), None);
    }

    #[test]
    fn a_place_both_read_and_written_is_bound_writable_over_its_read_only_bind() {
        let dir = tempfile::tempdir().expect("tempdir");
        let (root, scratch, shared) = (
            dir.path().join("root"),
            dir.path().join("scratch"),
            dir.path().join("shared"),
        );
        for folder in [&root, &scratch, &shared] {
            std::fs::create_dir_all(folder).expect("folder");
        }
        let view = plan(&ViewOf {
            new_root: &dir.path().join("view"),
            empty: &dir.path().join("empty"),
            places: Places::root_only(&root),
            scratch: &scratch,
            home: None,
            scratch_access: 0,
            writable: std::slice::from_ref(&shared),
            readable: std::slice::from_ref(&shared),
            caches: &[],
        })
        .expect("a view");
        let binds: Vec<bool> = view
            .steps
            .iter()
            .filter_map(|step| match step {
                Step::Bind { from, writable, .. } if text(from).ends_with("/shared") => {
                    Some(*writable)
                }
                _ => None,
            })
            .collect();
        assert_eq!(binds, [false, true]);
    }

    #[test]
    fn a_prefix_is_read_whole_only_two_levels_below_the_home() {
        let home = Path::new("/home/u");
        let prefix = |p: &str| prefix_of(Path::new(p), home);
        assert_eq!(
            prefix("/home/u/.pyenv/versions/3.12.4/bin"),
            Some(PathBuf::from("/home/u/.pyenv/versions/3.12.4"))
        );
        assert_eq!(
            prefix("/home/u/.pyenv/shims"),
            Some(PathBuf::from("/home/u/.pyenv"))
        );
        assert_eq!(prefix("/home/u/.local/bin"), None);
        assert_eq!(prefix("/home/u/.cargo/bin"), None);
        assert_eq!(prefix("/home/u/bin"), None);
        assert_eq!(prefix("/usr/local/bin"), None);
    }
}
