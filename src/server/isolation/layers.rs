//! Isolation: every server toolspec starts runs cut off from what is not its own,
//! unless its target opts out.
//!
//! The layers, each given where the kernel can:
//! - **environment**: the server's environment is built from an allowlist, never
//!   toolspec's whole one (a CI job's secrets are in toolspec's);
//! - **session**, **capabilities** and **syscalls**: a session of its own with no
//!   controlling terminal, no capabilities and no way to gain any, and a seccomp
//!   filter against what no tool server needs (`confinement.rs`,
//!   `syscall_filter.rs`);
//! - **limits** and **file-size**: a cgroup bounding its processes and memory, and
//!   the largest file it may write (`resource_limits.rs`);
//! - **writes**: only in the fixture root, its scratch folder (a tmpfs of its
//!   view's own, or a folder beside the fixture where it has no view) and the
//!   common devices (Landlock, `sandbox.rs`);
//! - **home**: `HOME` and the `XDG_*_HOME` folders point into the scratch folder,
//!   fresh per server, and the real home is unreadable by any path but for the
//!   folders the server needs to run (Landlock read rules, `home_view.rs`);
//! - **network**: a network namespace of its own with only a loopback
//!   (`confinement.rs`), else Landlock rules denying every TCP bind and connect but
//!   the target's `{port}` (UDP stays open), else nothing.
//!
//! What the kernel cannot give is said once per run, on stderr, and never dropped
//! silently. `docs/isolation.md` says what each layer protects and what it does not.

use std::ffi::OsString;
use std::os::fd::OwnedFd;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use super::confinement::{
    make_run_namespace, try_network, Confinement, Hardening, NetworkCut, RunNamespaceError,
};
use super::home_view::{HomeView, HomeViewError};
use super::resource_limits::{cgroups, Limits, ServerCgroup};
use super::sandbox::{landlock_abi, ruleset, write_rights, NoLandlock, RulesFor};
use super::server_init::try_view;
use super::syscall_filter;
use super::view_folders::ViewFolders;
use super::view_plan::{self, PackageCache, ViewOf, ViewPlan};
use crate::fixture::{Places, Scratch};
use crate::server::package_runner::{PackageRunner, RunnerCache};

/// How a target is isolated: on by default; `isolation:` in a target file opens
/// one thing at a time, `--no-isolation` all of it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Isolation {
    /// Whether the server is isolated at all.
    pub enabled: bool,
    /// Extra paths the server may write below (`isolation.writable`).
    pub writable: Vec<PathBuf>,
    /// Keep the real home: `HOME` as toolspec has it, and readable
    /// (`isolation.keep_home`).
    pub keep_home: bool,
    /// Leave the network open (`isolation.allow_network`).
    pub allow_network: bool,
    /// Folders inside the home the server reads besides its `PATH` and program: the
    /// target file's folder.
    pub readable: Vec<PathBuf>,
    /// Names of toolspec's environment variables passed on besides the allowlist
    /// (`isolation.pass_env`); a name ending in `*` passes every name it begins.
    pub pass_env: Vec<String>,
    /// The server's resource limits (`isolation.limits`).
    pub limits: Limits,
    /// More places the server reads, in its view and in the home
    /// (`isolation.read`).
    pub read: Vec<PathBuf>,
}

impl Default for Isolation {
    fn default() -> Self {
        Isolation {
            enabled: true,
            writable: Vec::new(),
            keep_home: false,
            allow_network: false,
            readable: Vec::new(),
            pass_env: Vec::new(),
            limits: Limits::default(),
            read: Vec::new(),
        }
    }
}

/// The variables of toolspec's environment every isolated server gets: where to
/// find programs, the language and time zone, and who the user is. Nothing else of
/// toolspec's is passed on (the target file's `env:` and `isolation.pass_env` add
/// to it); `TERM` is not, since the server has no terminal.
const PASSED_ENVIRONMENT: &[&str] = &[
    "PATH", "LANG", "LANGUAGE", "LC_*", "TZ", "USER", "LOGNAME", "SHELL",
];

/// Whether `name` is one of `patterns` (an exact name, or a prefix ending in `*`).
fn named_in(name: &str, patterns: &[impl AsRef<str>]) -> bool {
    patterns.iter().any(|pattern| {
        let pattern = pattern.as_ref();
        match pattern.strip_suffix('*') {
            Some(prefix) => name.starts_with(prefix),
            None => name == pattern,
        }
    })
}

/// A layer of isolation, as reports name it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Layer {
    /// Writes only in the fixture, the scratch folder and the common devices.
    Writes,
    /// A private home, and the real one unreadable.
    Home,
    /// A network namespace of its own.
    NetworkNamespace,
    /// TCP denied but on the target's port (UDP open).
    TcpPorts,
    /// An environment built from an allowlist.
    Environment,
    /// A session of its own: no controlling terminal.
    Session,
    /// No capabilities, and no way to gain any.
    Capabilities,
    /// The seccomp filter.
    Syscalls,
    /// A view of the filesystem of its own, in its own pid namespace.
    View,
    /// A cgroup bounding its processes and memory.
    Limits,
    /// The largest file it may write.
    FileSize,
}

impl Layer {
    /// The name in reports.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Layer::Writes => "writes",
            Layer::Home => "home",
            Layer::NetworkNamespace => "network-namespace",
            Layer::TcpPorts => "tcp-ports",
            Layer::Environment => "environment",
            Layer::Session => "session",
            Layer::Capabilities => "capabilities",
            Layer::Syscalls => "syscalls",
            Layer::View => "view",
            Layer::Limits => "limits",
            Layer::FileSize => "file-size",
        }
    }
}

/// What this kernel and this process can give, found once per run.
struct Kernel {
    /// Landlock's ABI, or why there is none.
    landlock: Result<i32, NoLandlock>,
    /// How a server gets a network namespace, or why it cannot.
    namespace: Result<NetworkCut, NoNetworkNamespace>,
    /// The run's network namespace, which every server joins, when toolspec is root.
    run_namespace: Option<OwnedFd>,
    /// The real home, or why it cannot be hidden.
    home: Result<HomeView, HomeViewError>,
    /// The folders every view is made in, where a server can have a view and a
    /// pid namespace of its own, or why it cannot.
    view: Result<ViewFolders, NoView>,
}

/// Why a server cannot have a network namespace of its own.
#[derive(Debug, thiserror::Error)]
enum NoNetworkNamespace {
    /// As root: the run's namespace could not be made.
    #[error("no network namespace can be made here ({0})")]
    RunNamespace(#[source] RunNamespaceError),
    /// Not root: a child could not make one in a user namespace.
    #[error("no network namespace can be made here ({0})")]
    UserNamespace(#[source] std::io::Error),
}

/// Why a server cannot have a view (and a pid namespace) of its own.
#[derive(Debug, thiserror::Error)]
enum NoView {
    /// No user namespace, so no mount namespace either.
    #[error("no user namespace can be made here")]
    NoUserNamespace,
    /// A child could not make a mount and pid namespace.
    #[error("no mount and pid namespace can be made here ({0})")]
    NoNamespaces(#[source] std::io::Error),
    /// The temporary folder the views are made in could not be made.
    #[error("the folder views are made in cannot be made ({0})")]
    Folders(#[source] std::io::Error),
}

/// The first ABI with TCP port rules.
const TCP_ABI: i32 = 4;

/// Finds what this kernel can give, once per run (it forks a child to try).
pub(in crate::server) fn probe() {
    kernel();
}

fn kernel() -> &'static Kernel {
    static KERNEL: OnceLock<Kernel> = OnceLock::new();
    KERNEL.get_or_init(|| {
        let landlock = landlock_abi();
        let (namespace, run_namespace) = match network_namespace() {
            Ok((cut, made)) => (Ok(cut), made),
            Err(why) => (Err(why), None),
        };
        let home = match std::env::var_os("HOME") {
            Some(home) if !home.is_empty() => HomeView::of(Path::new(&home)),
            _ => Err(HomeViewError::Unset),
        };
        let view = match &namespace {
            Ok(cut) => {
                // As root the run's namespace is joined, which the probe need not.
                let cut = match cut {
                    NetworkCut::UserNamespace => NetworkCut::UserNamespace,
                    _ => NetworkCut::Open,
                };
                try_view(cut)
                    .map_err(|errno| NoView::NoNamespaces(std::io::Error::from_raw_os_error(errno)))
                    .and_then(|()| ViewFolders::make().map_err(NoView::Folders))
            }
            Err(_) => Err(NoView::NoUserNamespace),
        };
        let kernel = Kernel {
            landlock,
            namespace,
            run_namespace,
            home,
            view,
        };
        for note in kernel.notes() {
            eprintln!("note: isolation: {note}");
        }
        kernel
    })
}

/// How this process can give a server a network namespace: as root, the run's own,
/// made here once; else one per server in a user namespace of its own, tried once
/// in a child.
fn network_namespace() -> Result<(NetworkCut, Option<OwnedFd>), NoNetworkNamespace> {
    if running_as_root() {
        return make_run_namespace()
            .map(|made| (NetworkCut::Namespace, Some(made)))
            .map_err(NoNetworkNamespace::RunNamespace);
    }
    try_network(NetworkCut::UserNamespace)
        .map(|()| (NetworkCut::UserNamespace, None))
        .map_err(|errno| {
            NoNetworkNamespace::UserNamespace(std::io::Error::from_raw_os_error(errno))
        })
}

impl Kernel {
    /// One line for each layer this kernel cannot give.
    fn notes(&self) -> Vec<String> {
        let mut notes = Vec::new();
        match &self.landlock {
            Err(why) => notes.push(format!(
                "{why}: servers may write anywhere and read the real home"
            )),
            Ok(_) => {
                if let Err(why) = &self.home {
                    notes.push(format!("the real home stays readable: {why}"));
                }
            }
        }
        if let Err(why) = &self.view {
            notes.push(format!(
                "{why}: servers see the whole filesystem (reads are confined by Landlock in \
                 the home only), and the machine's other processes"
            ));
        }
        if let Err(why) = syscall_filter::filter() {
            notes.push(format!("{why}: servers run without a seccomp filter"));
        }
        match cgroups() {
            Err(why) => notes.push(format!(
                "no cgroup can be made here ({why}): the number of processes and the memory \
                 of a server are not limited"
            )),
            Ok(found) => notes.extend(found.missing().iter().cloned()),
        }
        if let Err(why) = &self.namespace {
            if self.tcp_rules() {
                notes.push(format!(
                    "{why}; TCP is cut by Landlock port rules instead, and UDP stays open"
                ));
            } else {
                notes.push(format!("{why}: the network is not isolated on this kernel"));
            }
        }
        notes
    }

    fn tcp_rules(&self) -> bool {
        self.landlock.as_ref().is_ok_and(|abi| *abi >= TCP_ABI)
    }

    /// How a server's network is cut: `http` when toolspec must reach it on a port.
    /// A server in a user namespace cannot be reached from outside it (toolspec,
    /// not root, may not enter it), so an HTTP one gets port rules instead.
    fn network_for(&self, http: bool) -> NetworkPlan {
        match self.namespace {
            Ok(NetworkCut::UserNamespace) if http => {
                if self.tcp_rules() {
                    NetworkPlan::TcpPorts
                } else {
                    NetworkPlan::Open
                }
            }
            Ok(cut) => NetworkPlan::Namespace(cut),
            Err(_) if self.tcp_rules() => NetworkPlan::TcpPorts,
            Err(_) => NetworkPlan::Open,
        }
    }
}

/// How one server's network is cut.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum NetworkPlan {
    Open,
    Namespace(NetworkCut),
    TcpPorts,
}

impl Isolation {
    /// The layers in force for a server of this target on this kernel; `http` when
    /// it is reached over streamable HTTP.
    pub(crate) fn layers(&self, http: bool) -> Vec<Layer> {
        if !self.enabled {
            return Vec::new();
        }
        let kernel = kernel();
        let mut layers = vec![Layer::Environment, Layer::Session, Layer::Capabilities];
        if syscall_filter::filter().is_ok() {
            layers.push(Layer::Syscalls);
        }
        if kernel.view.is_ok() {
            layers.push(Layer::View);
        }
        if cgroups().is_ok() && (self.limits.pids.is_some() || self.limits.memory_bytes.is_some()) {
            layers.push(Layer::Limits);
        }
        if self.limits.file_bytes.is_some() {
            layers.push(Layer::FileSize);
        }
        let landlock = kernel.landlock.is_ok();
        if landlock {
            layers.push(Layer::Writes);
        }
        if !self.keep_home && landlock && kernel.home.is_ok() {
            layers.push(Layer::Home);
        }
        if !self.allow_network {
            match kernel.network_for(http) {
                NetworkPlan::Namespace(_) => layers.push(Layer::NetworkNamespace),
                NetworkPlan::TcpPorts => layers.push(Layer::TcpPorts),
                NetworkPlan::Open => {}
            }
        }
        layers
    }

    /// The network namespace a server of this target listens in over HTTP when it is
    /// not toolspec's own: the run's, shared by every server of the run, where its
    /// port is to be found free.
    pub(in crate::server) fn serving_namespace(&self) -> Option<&'static OwnedFd> {
        if !self.enabled || self.allow_network {
            return None;
        }
        let kernel = kernel();
        match kernel.network_for(true) {
            NetworkPlan::Namespace(NetworkCut::Namespace) => kernel.run_namespace.as_ref(),
            _ => None,
        }
    }

    /// What one server needs to start isolated: what its supervisor enters, its
    /// environment (with a private home) and its scratch folder. `root` is its
    /// fixture root, `program` and `path` what it is started from, `port` the one
    /// it serves on over HTTP.
    pub(in crate::server) fn prepare(
        &self,
        places: Places<'_>,
        program: &Path,
        path: Option<&std::ffi::OsStr>,
        port: Option<u16>,
    ) -> std::io::Result<Prepared> {
        let root = places.root;
        let kernel = kernel();
        // With a view, the scratch folder is a tmpfs of the server's own view, at a
        // path every view shares; without, a folder of its own beside the fixture.
        let (scratch, host_scratch) = match &kernel.view {
            Ok(folders) => (folders.scratch().to_path_buf(), None),
            Err(_) => {
                let made = Scratch::new()?;
                (made.path().to_path_buf(), Some(made))
            }
        };
        let home = scratch.join("home");
        let mut environment = self.passed_environment();
        environment.push((OsString::from("TMPDIR"), scratch.as_os_str().to_owned()));
        if self.keep_home {
            environment.extend(std::env::var_os("HOME").map(|home| (OsString::from("HOME"), home)));
        } else {
            if host_scratch.is_some() {
                std::fs::create_dir(&home)?;
            }
            environment.extend(private_home(&home));
        }
        // A package runner started with no network finds its cached packages in
        // its private home (below) and is told to use them (`npx` asks the
        // registry first otherwise, and waits for it).
        let runner = self.package_runner_with_cache(program);
        if let Some(runner) = runner.filter(|_| !self.allow_network) {
            let (name, value) = runner.offline;
            environment.push((OsString::from(name), OsString::from(value)));
        }
        // Compiled before the fork: the supervisor only installs it.
        let _ = syscall_filter::filter();
        let view = match &kernel.view {
            Ok(folders) => {
                let caches: Vec<PackageCache> = runner
                    .and_then(|cache| cache.in_home(&home))
                    .into_iter()
                    .collect();
                Some(self.view(places, folders, &home, program, path, &caches)?)
            }
            Err(_) => None,
        };
        let cgroup = match cgroups() {
            Ok(_) if self.limits.pids.is_some() || self.limits.memory_bytes.is_some() => {
                Some(ServerCgroup::make(&self.limits).map_err(std::io::Error::other)?)
            }
            _ => None,
        };
        let network = if self.allow_network {
            NetworkPlan::Open
        } else {
            let plan = kernel.network_for(port.is_some());
            if plan != kernel.network_for(false) {
                note_http_network_once(plan);
            }
            plan
        };
        let rules = match &kernel.landlock {
            Err(_) => None,
            Ok(_) => {
                let mut writable = vec![root];
                if places.beside_writable {
                    writable.extend(places.beside.iter().map(PathBuf::as_path));
                }
                writable.extend(host_scratch.as_ref().map(Scratch::path));
                writable.extend(self.writable.iter().map(PathBuf::as_path));
                // A server with a view has no home in it to hide, and Landlock's
                // read rules, tied to the machine's folders, would not match the
                // view's: a bind of `/work/main` is reached through the view's own
                // `/work`, not the machine's.
                let home = match (&kernel.home, self.keep_home || view.is_some()) {
                    (Ok(view), false) => {
                        let mut needed = self.needed_once(view, program, path);
                        needed.extend(view.needed_inside(&[root.to_path_buf()], &[]));
                        needed.extend(view.needed_inside(places.beside, &[]));
                        needed.extend(view.needed_inside(&self.read, &[]));
                        Some((view, needed))
                    }
                    _ => None,
                };
                let tcp_port = (network == NetworkPlan::TcpPorts).then_some(port);
                Some(ruleset(&RulesFor {
                    writable,
                    home,
                    tcp_port,
                })?)
            }
        };
        Ok(Prepared {
            confinement: Confinement {
                network: match network {
                    NetworkPlan::Namespace(cut) => cut,
                    // Not root, the view is made in a user namespace all the same.
                    _ if view.is_some() && !running_as_root() => NetworkCut::UserOnly,
                    _ => NetworkCut::Open,
                },
                namespace: match network {
                    NetworkPlan::Namespace(NetworkCut::Namespace) => kernel.run_namespace.as_ref(),
                    _ => None,
                },
                rules,
                hardening: Some(Hardening {
                    file_bytes: self.limits.file_bytes,
                }),
                cgroups: cgroup.as_ref().map(ServerCgroup::procs).unwrap_or_default(),
                view,
            },
            environment,
            inherit: false,
            cgroup,
            scratch: host_scratch,
        })
    }

    /// The package runner `program` is, where the server's view shows its cache in
    /// the server's private home, so a package cached before starts with no network
    /// (`npx`, `uvx` and their managers, with a view and no `keep_home`).
    fn package_runner_with_cache(&self, program: &Path) -> Option<&'static RunnerCache> {
        (self.enabled && !self.keep_home && kernel().view.is_ok())
            .then(|| PackageRunner::of(program).and_then(|runner| runner.cache.as_ref()))
            .flatten()
    }

    /// Whether a server started from `program` sees its package runner's cache
    /// (see [`Isolation::package_runner_with_cache`]).
    pub(in crate::server) fn shows_package_cache(&self, program: &Path) -> bool {
        self.package_runner_with_cache(program).is_some()
    }

    /// The view of a server in `root`, made on `folders` with a private `home` in
    /// its scratch tmpfs, started from `program` with `path`.
    fn view(
        &self,
        places: Places<'_>,
        folders: &ViewFolders,
        home: &Path,
        program: &Path,
        path: Option<&std::ffi::OsStr>,
        caches: &[PackageCache],
    ) -> std::io::Result<ViewPlan> {
        let mut readable = self.readable_once(program, path);
        readable.extend(self.read.iter().cloned());
        if self.keep_home {
            readable.extend(std::env::var_os("HOME").map(PathBuf::from));
        }
        view_plan::plan(&ViewOf {
            new_root: folders.mount_point(),
            empty: folders.empty(),
            places,
            scratch: folders.scratch(),
            home: (!self.keep_home).then_some(home),
            scratch_access: kernel()
                .landlock
                .as_ref()
                .map_or(0, |abi| write_rights(*abi)),
            writable: &self.writable,
            readable: &readable,
            caches,
        })
        .map_err(std::io::Error::other)
    }

    /// [`Isolation::view_readable`], found once per program, `PATH` and target
    /// folder, as [`Isolation::needed_once`] is.
    fn readable_once(&self, program: &Path, path: Option<&std::ffi::OsStr>) -> Vec<PathBuf> {
        static FOUND: Found = std::sync::Mutex::new(Vec::new());
        self.found_once(&FOUND, program, path, || self.view_readable(program, path))
    }

    /// What `find` finds for this program, `PATH` and target folder, kept in
    /// `found` the first time.
    fn found_once(
        &self,
        found: &Found,
        program: &Path,
        path: Option<&std::ffi::OsStr>,
        find: impl FnOnce() -> Vec<PathBuf>,
    ) -> Vec<PathBuf> {
        let key = (
            program.to_path_buf(),
            path.map(OsString::from),
            self.readable.clone(),
        );
        let mut found = found
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some((_, places)) = found.iter().find(|(k, _)| *k == key) {
            return places.clone();
        }
        let places = find();
        found.push((key, places.clone()));
        places
    }

    /// What a server's view holds to read besides the system folders: each `PATH`
    /// entry (exactly), the program's folder and the folder of the file it links
    /// to, the interpreter of a script and the folder of the file that links to,
    /// each installation prefix among them that is at least two levels into the home
    /// (`view_plan::prefix_of`), the target file's folder and the current folder.
    fn view_readable(&self, program: &Path, path: Option<&std::ffi::OsStr>) -> Vec<PathBuf> {
        let entries: Vec<PathBuf> = path
            .map(|p| std::env::split_paths(p).collect())
            .unwrap_or_default();
        let mut readable: Vec<PathBuf> = entries
            .iter()
            .filter(|e| e.is_absolute())
            .cloned()
            .collect();
        readable.extend(self.readable.iter().cloned());
        readable.extend(std::env::current_dir().ok());
        let mut programs: Vec<PathBuf> = program_file(program, &entries).into_iter().collect();
        programs.extend(programs.first().and_then(|p| interpreter(p)));
        let mut folders = Vec::new();
        for program in &programs {
            folders.extend(program.parent().map(Path::to_path_buf));
            if let Ok(resolved) = std::fs::canonicalize(program) {
                folders.extend(resolved.parent().map(Path::to_path_buf));
                // A package run through `node_modules/.bin` needs its dependencies.
                if let Some(modules) = resolved
                    .ancestors()
                    .filter(|a| a.file_name().is_some_and(|n| n == "node_modules"))
                    .last()
                {
                    folders.push(modules.to_path_buf());
                }
            }
        }
        folders.extend(entries.iter().cloned());
        let home = std::env::var_os("HOME").map(PathBuf::from);
        let home = home.and_then(|h| std::fs::canonicalize(h).ok());
        for folder in &folders {
            let resolved = std::fs::canonicalize(folder).unwrap_or_else(|_| folder.clone());
            if let Some(prefix) = home
                .as_deref()
                .and_then(|h| view_plan::prefix_of(&resolved, h))
            {
                readable.push(prefix);
            }
        }
        readable.extend(folders.into_iter().filter(|f| f.is_absolute()));
        readable.sort();
        readable.dedup();
        readable
    }

    /// The variables of toolspec's environment this server gets: the allowlist and
    /// `pass_env`.
    fn passed_environment(&self) -> Vec<(OsString, OsString)> {
        std::env::vars_os()
            .filter(|(name, _)| {
                name.to_str().is_some_and(|name| {
                    named_in(name, PASSED_ENVIRONMENT) || named_in(name, &self.pass_env)
                })
            })
            .collect()
    }

    /// [`Isolation::needed`], found once per program, `PATH` and target folder:
    /// resolving each `PATH` entry is many system calls, the same for every server.
    fn needed_once(
        &self,
        view: &HomeView,
        program: &Path,
        path: Option<&std::ffi::OsStr>,
    ) -> Vec<PathBuf> {
        static FOUND: Found = std::sync::Mutex::new(Vec::new());
        self.found_once(&FOUND, program, path, || self.needed(view, program, path))
    }

    /// The folders inside the real home a server needs: those holding its `PATH`
    /// entries and its program, the target file's folder, and the current folder.
    fn needed(
        &self,
        view: &HomeView,
        program: &Path,
        path: Option<&std::ffi::OsStr>,
    ) -> Vec<PathBuf> {
        let entries: Vec<PathBuf> = path
            .map(|p| std::env::split_paths(p).collect())
            .unwrap_or_default();
        let mut wanted: Vec<PathBuf> = self.readable.clone();
        wanted.extend(std::env::current_dir().ok());
        if let Some(found) = program_file(program, &entries) {
            wanted.extend(found.parent().map(Path::to_path_buf));
            // A link (`node_modules/.bin/x`) runs the file it points to.
            if let Ok(resolved) = std::fs::canonicalize(&found) {
                wanted.extend(resolved.parent().map(Path::to_path_buf));
            }
        }
        view.needed_inside(&wanted, &entries)
    }
}

/// The file `program` runs: itself when it names a path (made absolute), else the
/// first file of that name in a `PATH` entry, as `execvp` looks.
fn program_file(program: &Path, entries: &[PathBuf]) -> Option<PathBuf> {
    if program.components().count() > 1 {
        return std::path::absolute(program).ok();
    }
    entries
        .iter()
        .map(|folder| folder.join(program))
        .find(|candidate| candidate.is_file())
}

/// Whether toolspec runs as root: its servers then share the run's network
/// namespace, and, unisolated, keep root's capabilities.
pub(crate) fn running_as_root() -> bool {
    // SAFETY: geteuid only reads this process's credentials.
    unsafe { libc::geteuid() == 0 }
}

/// The interpreter a script names on its `#!` line (`/usr/bin/env node` names
/// `env`), if `program` is a script.
fn interpreter(program: &Path) -> Option<PathBuf> {
    use std::io::Read;
    let mut start = [0u8; 256];
    let read = std::fs::File::open(program).ok()?.read(&mut start).ok()?;
    let line = start.get(..read)?.strip_prefix(b"#!")?;
    let line = line.split(|&b| b == b'\n').next()?;
    let word = line
        .split(|b| b.is_ascii_whitespace())
        .find(|w| !w.is_empty())?;
    Some(PathBuf::from(std::str::from_utf8(word).ok()?))
}

/// Places found once per program, `PATH` and target folder.
type Found = std::sync::Mutex<Vec<((PathBuf, Option<OsString>, Vec<PathBuf>), Vec<PathBuf>)>>;

/// Says once per run that an HTTP server gets `plan` instead of a namespace.
fn note_http_network_once(plan: NetworkPlan) {
    static SAID: OnceLock<()> = OnceLock::new();
    SAID.get_or_init(|| match plan {
        NetworkPlan::TcpPorts => eprintln!(
            "note: isolation: a server reached over HTTP runs outside a network namespace \
             (toolspec, not root, cannot connect into one); TCP is cut by Landlock port \
             rules, and UDP stays open"
        ),
        _ => eprintln!(
            "note: isolation: a server reached over HTTP runs with the network open (no \
             namespace toolspec can connect into, no Landlock port rules on this kernel)"
        ),
    });
}

/// `HOME` and the XDG folders inside `home`. The XDG folders are left for the
/// server to make, as the XDG spec has programs do: making four folders per
/// server, and removing them after, was CPU every scenario paid for nothing.
fn private_home(home: &Path) -> Vec<(OsString, OsString)> {
    let folders = [
        ("XDG_CONFIG_HOME", ".config"),
        ("XDG_CACHE_HOME", ".cache"),
        ("XDG_DATA_HOME", ".local/share"),
        ("XDG_STATE_HOME", ".local/state"),
    ];
    let mut environment = vec![(OsString::from("HOME"), home.as_os_str().to_owned())];
    for (name, below) in folders {
        environment.push((OsString::from(name), home.join(below).into_os_string()));
    }
    environment
}

/// One server's isolation, ready for its spawn.
pub(in crate::server) struct Prepared {
    pub(in crate::server) confinement: Confinement,
    /// The server's environment, before the target's `env:`.
    pub(in crate::server) environment: Vec<(OsString, OsString)>,
    /// Whether `environment` is laid over toolspec's whole one (no isolation).
    pub(in crate::server) inherit: bool,
    /// The server's cgroup, kept until the server has ended, then read for the
    /// limit it hit and removed.
    pub(in crate::server) cgroup: Option<ServerCgroup>,
    /// Its scratch folder on the machine, where it has no view; removed after it.
    pub(in crate::server) scratch: Option<Scratch>,
}

impl Prepared {
    /// No isolation.
    pub(in crate::server) fn none() -> Prepared {
        Prepared {
            confinement: Confinement::none(),
            environment: Vec::new(),
            inherit: true,
            cgroup: None,
            scratch: None,
        }
    }
}

/// The network namespace of the process `pid`, for connecting into it.
pub(in crate::server) fn namespace_of(pid: libc::pid_t) -> std::io::Result<OwnedFd> {
    let file = std::fs::File::open(format!("/proc/{pid}/ns/net"))?;
    Ok(file.into())
}
