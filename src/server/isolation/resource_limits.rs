//! Resource limits for each server, set by the kernel through cgroups, so that a
//! runaway server under test (a fork bomb, a memory hog) is stopped without taking
//! the machine or the rest of the run with it, and toolspec can say which limit it
//! hit.
//!
//! Each server gets a cgroup of its own (a folder per hierarchy that serves one of
//! its limits) under the run's folder, `toolspec-<pid>`, which is made once beside
//! nothing but this process's own cgroup. The limits are written before the server
//! starts; the server's supervisor joins by writing `0` to the `cgroup.procs` files
//! toolspec opened for it ([`join`], between `fork` and `exec`), so the supervisor
//! and everything the server starts are counted. After the server ended, the
//! cgroup's event counters say whether a limit was reached ([`ServerCgroup::hit`]).
//! The file size limit is not a cgroup's: it is `RLIMIT_FSIZE`
//! ([`limit_file_size`]), which the kernel enforces with `SIGXFSZ`.
//!
//! Where the controllers are is found once per process ([`cgroups`]) from
//! `/proc/self/mountinfo` and `/proc/self/cgroup`, never from fixed paths: a
//! pure cgroup v2 machine has them in `/sys/fs/cgroup` itself, a hybrid one has
//! them on cgroup v1 hierarchies beside an empty v2 mount. cgroup v2 is used where it
//! offers a controller and lets this process hand it to the cgroups below its own
//! (its "no internal processes" rule refuses that to a cgroup with processes, which
//! is not the root); else a cgroup v1 hierarchy with that controller mounted.

use std::fs::{self, OpenOptions};
use std::io::{self, ErrorKind, Write};
use std::os::fd::{AsRawFd, OwnedFd, RawFd};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard, OnceLock};
use std::time::{Duration, Instant};

use crate::server::at_exit::at_exit;

/// The limits of one server; `None` = no limit of that kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Processes and threads at once, the supervisor included (`pids.max`): a fork
    /// bomb gets `EAGAIN` from `fork` instead of filling the machine's process table.
    pub pids: Option<u64>,
    /// Memory, in bytes, swap not allowed (`memory.max`, or `memory.limit_in_bytes`
    /// on cgroup v1): past it the kernel's OOM killer kills a process of the server's.
    pub memory_bytes: Option<u64>,
    /// The largest file the server may write, in bytes (`RLIMIT_FSIZE`): a server
    /// filling the disk is stopped by `SIGXFSZ`.
    pub file_bytes: Option<u64>,
}

impl Default for Limits {
    /// Far above what a tool server needs (a Node server with its thread pools runs
    /// a dozen threads and a few hundred MiB), far below what hurts the machine.
    fn default() -> Self {
        Limits {
            pids: Some(512),
            memory_bytes: Some(2 << 30),
            file_bytes: Some(1 << 30),
        }
    }
}

/// Which limit a server hit, with the limit itself, so the report can name the
/// setting to raise.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum LimitHit {
    /// A fork was refused at this many processes.
    Pids(u64),
    /// The OOM killer acted at this many bytes.
    Memory(u64),
    /// A write went past this many bytes.
    FileSize(u64),
}

impl LimitHit {
    /// The sentence for the report, naming the target-file setting that raises the
    /// limit.
    pub(crate) fn describe(&self) -> String {
        match self {
            LimitHit::Pids(count) => {
                format!("the server hit its limit of {count} processes (isolation.limits.pids)")
            }
            LimitHit::Memory(bytes) => format!(
                "the server hit its memory limit of {} (isolation.limits.memory) and was killed",
                size_text(*bytes)
            ),
            LimitHit::FileSize(bytes) => format!(
                "the server wrote past its file size limit of {} (isolation.limits.file_size)",
                size_text(*bytes)
            ),
        }
    }

    /// The file size limit, if the server was killed by `signal` and that is the
    /// signal the kernel sends for it (`SIGXFSZ`): no cgroup counts those, but a
    /// supervisor exits by its server's signal, so the caller sees it.
    pub(crate) fn by_signal(limits: &Limits, signal: libc::c_int) -> Option<LimitHit> {
        if signal == libc::SIGXFSZ {
            limits.file_bytes.map(LimitHit::FileSize)
        } else {
            None
        }
    }
}

/// `bytes` in the largest binary unit that divides it exactly, so a limit reads as
/// it was written in a target file (`2 GiB`, not `2147483648`).
fn size_text(bytes: u64) -> String {
    const UNITS: [(u64, &str); 4] = [
        (1 << 40, "TiB"),
        (1 << 30, "GiB"),
        (1 << 20, "MiB"),
        (1 << 10, "KiB"),
    ];
    for (unit, name) in UNITS {
        if bytes >= unit && bytes.is_multiple_of(unit) {
            return format!("{} {name}", bytes / unit);
        }
    }
    if bytes == 1 {
        "1 byte".to_string()
    } else {
        format!("{bytes} bytes")
    }
}

/// A cgroup controller toolspec sets limits with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Controller {
    /// Counts processes and threads.
    Pids,
    /// Counts memory.
    Memory,
}

impl Controller {
    /// Both, in the order they are looked for.
    const ALL: [Controller; 2] = [Controller::Pids, Controller::Memory];

    /// The name the kernel gives it, in `cgroup.controllers`, mount options and
    /// `/proc/self/cgroup`.
    fn name(self) -> &'static str {
        match self {
            Controller::Pids => "pids",
            Controller::Memory => "memory",
        }
    }
}

/// The two cgroup interfaces, which name their files differently.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// One hierarchy per controller (or group of controllers), `cgroup` mounts.
    V1,
    /// The unified hierarchy, a `cgroup2` mount.
    V2,
}

/// A cgroup file system mounted on this machine, from one line of
/// `/proc/self/mountinfo`.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Mount {
    /// The folder of the hierarchy that is mounted: `/`, unless a bind mount or a
    /// cgroup namespace shows only part of it.
    root: String,
    /// Where it is mounted.
    point: PathBuf,
    /// v1 or v2.
    kind: Kind,
    /// The super options, which on v1 name the controllers bound to the hierarchy.
    options: Vec<String>,
}

/// Every cgroup file system in a `/proc/self/mountinfo` text.
fn parse_mounts(text: &str) -> Vec<Mount> {
    text.lines().filter_map(parse_mount_line).collect()
}

/// One mountinfo line, if it is a cgroup mount: `ID PARENT MAJ:MIN ROOT POINT
/// OPTIONS [OPTIONAL...] - FSTYPE SOURCE SUPER-OPTIONS`. Spaces in paths are
/// escaped (`\040`), so ` - ` only ever separates.
fn parse_mount_line(line: &str) -> Option<Mount> {
    let (before, after) = line.split_once(" - ")?;
    let mut fields = before.split(' ');
    let root = fields.nth(3)?;
    let point = fields.next()?;
    let mut after = after.split(' ');
    let kind = match after.next()? {
        "cgroup2" => Kind::V2,
        "cgroup" => Kind::V1,
        _ => return None,
    };
    let options = after.nth(1).unwrap_or_default();
    Some(Mount {
        root: unescape_mount_path(root),
        point: PathBuf::from(unescape_mount_path(point)),
        kind,
        options: options.split(',').map(str::to_string).collect(),
    })
}

/// A mountinfo path with its octal escapes (`\040` for a space, `\134` for a
/// backslash) turned back into bytes.
fn unescape_mount_path(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut at = 0;
    while let Some(&byte) = bytes.get(at) {
        let digits = bytes.get(at + 1..at + 4).unwrap_or_default();
        let octal = digits.len() == 3 && digits.iter().all(|d| (b'0'..=b'7').contains(d));
        if byte == b'\\' && octal {
            let value = digits
                .iter()
                .fold(0u32, |value, d| value * 8 + u32::from(d - b'0'));
            out.push(u8::try_from(value).unwrap_or(b'?'));
            at += 4;
        } else {
            out.push(byte);
            at += 1;
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// This process's cgroup in one hierarchy, from one line of `/proc/self/cgroup`.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Membership {
    /// The hierarchy's number: 0 for cgroup v2.
    hierarchy: u32,
    /// The controllers bound to the hierarchy (`name=...` for a named one); none on
    /// cgroup v2.
    controllers: Vec<String>,
    /// The cgroup, from the hierarchy's root (as this process's cgroup namespace
    /// sees it).
    path: String,
}

impl Membership {
    /// Whether this is the cgroup v2 line, `0::PATH`.
    fn is_v2(&self) -> bool {
        self.hierarchy == 0 && self.controllers.is_empty()
    }
}

/// Every line of a `/proc/self/cgroup` text: `ID:CONTROLLERS:PATH`, where the
/// path may itself hold colons.
fn parse_memberships(text: &str) -> Vec<Membership> {
    text.lines()
        .filter_map(|line| {
            let mut parts = line.splitn(3, ':');
            let hierarchy = parts.next()?.parse().ok()?;
            let controllers = parts.next()?;
            let path = parts.next()?;
            Some(Membership {
                hierarchy,
                controllers: controllers
                    .split(',')
                    .filter(|c| !c.is_empty())
                    .map(str::to_string)
                    .collect(),
                path: path.to_string(),
            })
        })
        .collect()
}

/// Where the cgroup `path` (from the hierarchy's root) is on disk under `mount`;
/// `None` if the mount shows only a part of the hierarchy without it.
fn folder_under(mount: &Mount, path: &str) -> Option<PathBuf> {
    let inside = if mount.root == "/" {
        path
    } else if path == mount.root {
        ""
    } else {
        path.strip_prefix(mount.root.as_str())?.strip_prefix('/')?
    };
    let inside = inside.trim_start_matches('/');
    if inside.split('/').any(|part| part == "..") {
        // Outside this process's cgroup namespace: not reachable from here.
        return None;
    }
    Some(if inside.is_empty() {
        mount.point.clone()
    } else {
        mount.point.join(inside)
    })
}

/// The number after `key` in a flat keyed cgroup file (`pids.events`,
/// `memory.events`, `memory.oom_control`: one `key value` a line).
fn counter(text: &str, key: &str) -> Option<u64> {
    text.lines().find_map(|line| {
        let mut words = line.split_whitespace();
        (words.next()? == key).then_some(())?;
        words.next()?.parse().ok()
    })
}

/// Whether a `pids.events` text says a fork was refused at `pids.max`.
fn pids_events_hit(text: &str) -> bool {
    counter(text, "max").unwrap_or(0) > 0
}

/// Whether a cgroup v2 `memory.events` text says the cgroup ran out of memory:
/// `oom_kill` counts the processes killed, `oom` the times it ran out (a kill
/// may not follow when the allocation could fail instead).
fn memory_events_hit(text: &str) -> bool {
    counter(text, "oom_kill").unwrap_or(0) > 0 || counter(text, "oom").unwrap_or(0) > 0
}

/// Whether a cgroup v1 `memory.oom_control` text says the OOM killer killed a
/// process of the cgroup (`oom_kill`, since Linux 4.13). `memory.failcnt` is not
/// used: it counts every time usage touched the limit, which reclaim often fixes.
fn oom_control_hit(text: &str) -> bool {
    counter(text, "oom_kill").unwrap_or(0) > 0
}

/// A hierarchy that serves one limit or both: where the run's folder is, and which
/// controllers it has.
#[derive(Debug)]
struct Place {
    /// v1 or v2.
    kind: Kind,
    /// The run's folder, `toolspec-<pid>` under this process's own cgroup.
    run: PathBuf,
    /// Whether it serves the pids limit.
    pids: bool,
    /// Whether it serves the memory limit.
    memory: bool,
}

impl Place {
    /// Whether it serves `controller`.
    fn serves(&self, controller: Controller) -> bool {
        match controller {
            Controller::Pids => self.pids,
            Controller::Memory => self.memory,
        }
    }

    /// Marks `controller` as served here.
    fn add(&mut self, controller: Controller) {
        match controller {
            Controller::Pids => self.pids = true,
            Controller::Memory => self.memory = true,
        }
    }
}

/// What this machine can give: the hierarchies that serve the pids and memory
/// limits, with the run's folder in each, and why a kind of limit cannot be set.
#[derive(Debug)]
pub(crate) struct Cgroups {
    /// One on cgroup v2; one or two on cgroup v1 (one when pids and memory are
    /// mounted together).
    places: Vec<Place>,
    /// For each controller no place serves, why, as a sentence.
    missing: Vec<String>,
}

impl Cgroups {
    /// Why a kind of limit cannot be set on this machine, one sentence per kind,
    /// for the caller to say once per run: a limit nothing serves is not set, and
    /// must not be dropped silently.
    pub(crate) fn missing(&self) -> &[String] {
        &self.missing
    }
}

/// What this machine can give, found once per process: the hierarchies serving
/// pids and memory, with the run's folder made in each, or why none can be made.
/// Finding out writes to this process's own cgroup v2 `cgroup.subtree_control`
/// when cgroup v2 offers the controllers there, since that is the only way to
/// learn whether it lets them be handed down.
pub(crate) fn cgroups() -> &'static Result<Cgroups, NoCgroups> {
    FOUND.get_or_init(discover)
}

/// [`cgroups`], once found.
static FOUND: OnceLock<Result<Cgroups, NoCgroups>> = OnceLock::new();

/// Why no cgroup can be made on this machine: one reason per limit (or the one
/// file of `/proc` that could not be read), joined by `; `. Kept once per process
/// and handed to every server, hence a message and not the errors themselves.
#[derive(Debug, Clone, thiserror::Error)]
#[error("{}", reasons.join("; "))]
pub(crate) struct NoCgroups {
    /// Each reason, as said to the user.
    reasons: Vec<String>,
}

/// What failed while finding or making a server's cgroup: a file or folder of
/// the cgroup file system, or the place a controller should be.
#[derive(Debug, thiserror::Error)]
pub(crate) enum CgroupError {
    /// No cgroup can be made at all.
    #[error(transparent)]
    Unavailable(#[from] NoCgroups),
    /// A small file could not be read.
    #[error("cannot read {}: {source}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: io::Error,
    },
    /// A cgroup file could not be opened for writing.
    #[error("cannot open {} to write: {source}", path.display())]
    OpenToWrite {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: io::Error,
    },
    /// A value could not be written to a cgroup file.
    #[error("cannot write `{value}` to {}: {source}", path.display())]
    Write {
        /// The file.
        path: PathBuf,
        /// What was written.
        value: String,
        /// Why.
        #[source]
        source: io::Error,
    },
    /// A cgroup folder could not be made.
    #[error("cannot make {}: {source}", path.display())]
    MakeFolder {
        /// The folder.
        path: PathBuf,
        /// Why.
        #[source]
        source: io::Error,
    },
    /// A server folder's `cgroup.procs` could not be opened for the supervisor.
    #[error("cannot open {}/cgroup.procs: {source}", folder.display())]
    OpenProcs {
        /// The server's folder.
        folder: PathBuf,
        /// Why.
        #[source]
        source: io::Error,
    },
    /// Every `server-<n>` name under the run's folder is taken.
    #[error("every server folder name under {} is taken", run.display())]
    NamesTaken {
        /// The run's folder.
        run: PathBuf,
    },
    /// No cgroup v2 file system is mounted.
    #[error("no cgroup v2 is mounted")]
    NoV2Mount,
    /// This process belongs to no cgroup v2.
    #[error("/proc/self/cgroup names no cgroup v2 of this process")]
    NoV2Membership,
    /// This process's cgroup v2 is not under the v2 mount.
    #[error("this process's cgroup v2 {cgroup} is outside what is mounted at {}", point.display())]
    V2OutsideMount {
        /// The cgroup, as `/proc/self/cgroup` names it.
        cgroup: String,
        /// Where cgroup v2 is mounted.
        point: PathBuf,
    },
    /// No cgroup v1 hierarchy this process belongs to has the controller.
    #[error("no cgroup v1 hierarchy has {controller}")]
    NoV1Hierarchy {
        /// The controller's name.
        controller: &'static str,
    },
    /// The controller's v1 hierarchy is mounted, but not over this process's cgroup.
    #[error("this process's {controller} cgroup {cgroup} is outside every mount of it")]
    V1OutsideMounts {
        /// The controller's name.
        controller: &'static str,
        /// The cgroup, as `/proc/self/cgroup` names it.
        cgroup: String,
    },
    /// The controller's v1 hierarchy is not mounted.
    #[error("the cgroup v1 hierarchy with {controller} is not mounted")]
    V1NotMounted {
        /// The controller's name.
        controller: &'static str,
    },
}

/// [`cgroups`], found.
fn discover() -> Result<Cgroups, NoCgroups> {
    let read = |path: &str| {
        read_text(Path::new(path)).map_err(|e| NoCgroups {
            reasons: vec![e.to_string()],
        })
    };
    let mounts = parse_mounts(&read("/proc/self/mountinfo")?);
    let memberships = parse_memberships(&read("/proc/self/cgroup")?);
    let run_name = format!("{RUN_PREFIX}{}", std::process::id());
    let mut places: Vec<Place> = Vec::new();
    let mut notes: Vec<(Controller, String)> = Vec::new();

    match v2_base(&mounts, &memberships) {
        Ok(base) => {
            let served = v2_hand_down(&base, &mut notes);
            if !served.is_empty() {
                match make_run_folder(&base, &run_name, Kind::V2, &served) {
                    Ok(run) => places.push(Place {
                        kind: Kind::V2,
                        run,
                        pids: served.contains(&Controller::Pids),
                        memory: served.contains(&Controller::Memory),
                    }),
                    Err(why) => {
                        let why = why.to_string();
                        notes.extend(served.iter().map(|c| (*c, why.clone())));
                    }
                }
            }
        }
        Err(why) => {
            let why = why.to_string();
            notes.extend(Controller::ALL.iter().map(|c| (*c, why.clone())));
        }
    }

    for controller in Controller::ALL {
        if places.iter().any(|p| p.serves(controller)) {
            continue;
        }
        let base = match v1_base(&mounts, &memberships, controller) {
            Ok(base) => base,
            Err(why) => {
                notes.push((controller, why.to_string()));
                continue;
            }
        };
        let run = base.join(&run_name);
        if let Some(place) = places.iter_mut().find(|p| p.run == run) {
            // pids and memory mounted together: one folder serves both.
            place.add(controller);
            continue;
        }
        match make_run_folder(&base, &run_name, Kind::V1, &[controller]) {
            Ok(run) => {
                let mut place = Place {
                    kind: Kind::V1,
                    run,
                    pids: false,
                    memory: false,
                };
                place.add(controller);
                places.push(place);
            }
            Err(why) => notes.push((controller, why.to_string())),
        }
    }

    let missing: Vec<String> = Controller::ALL
        .iter()
        .filter(|c| !places.iter().any(|p| p.serves(**c)))
        .map(|c| {
            let why: Vec<&str> = notes
                .iter()
                .filter(|(of, _)| of == c)
                .map(|(_, why)| why.as_str())
                .collect();
            format!("no {} limit: {}", c.name(), why.join("; "))
        })
        .collect();
    if places.is_empty() {
        return Err(NoCgroups { reasons: missing });
    }
    Ok(Cgroups { places, missing })
}

/// The prefix of a run's folder; the rest is toolspec's pid, so a run whose
/// process is gone can be told from one still running.
const RUN_PREFIX: &str = "toolspec-";

/// This process's own cgroup v2 folder, or why there is none to use.
fn v2_base(mounts: &[Mount], memberships: &[Membership]) -> Result<PathBuf, CgroupError> {
    let mount = mounts
        .iter()
        .find(|m| m.kind == Kind::V2)
        .ok_or(CgroupError::NoV2Mount)?;
    let ours = memberships
        .iter()
        .find(|m| m.is_v2())
        .ok_or(CgroupError::NoV2Membership)?;
    folder_under(mount, &ours.path).ok_or_else(|| CgroupError::V2OutsideMount {
        cgroup: ours.path.clone(),
        point: mount.point.clone(),
    })
}

/// The controllers cgroup v2 offers in `base` (this process's cgroup) and lets
/// through to the cgroups below it, enabling them in its `cgroup.subtree_control`
/// where they are not yet; why not, for each that it does not, into `notes`.
fn v2_hand_down(base: &Path, notes: &mut Vec<(Controller, String)>) -> Vec<Controller> {
    let offered_file = base.join("cgroup.controllers");
    let offered = match read_text(&offered_file) {
        Ok(text) => text,
        Err(why) => {
            let why = why.to_string();
            notes.extend(Controller::ALL.iter().map(|c| (*c, why.clone())));
            return Vec::new();
        }
    };
    let subtree = base.join("cgroup.subtree_control");
    let enabled = read_text(&subtree).unwrap_or_default();
    let mut served = Vec::new();
    for controller in Controller::ALL {
        let name = controller.name();
        if !offered.split_whitespace().any(|c| c == name) {
            let listed = offered.trim();
            let listed = if listed.is_empty() { "empty" } else { listed };
            notes.push((
                controller,
                format!(
                    "cgroup v2 does not offer {name} in {} ({listed})",
                    offered_file.display()
                ),
            ));
            continue;
        }
        if enabled.split_whitespace().any(|c| c == name) {
            served.push(controller);
            continue;
        }
        match write_value(&subtree, &format!("+{name}")) {
            Ok(()) => served.push(controller),
            Err(why) => notes.push((controller, format!("{why}{}", busy_hint(&why)))),
        }
    }
    served
}

/// What `EBUSY` from writing `cgroup.subtree_control` means, said plainly.
fn busy_hint(why: &CgroupError) -> &'static str {
    let busy = |source: &io::Error| source.raw_os_error() == Some(libc::EBUSY);
    let is_busy = match why {
        CgroupError::OpenToWrite { source, .. } | CgroupError::Write { source, .. } => busy(source),
        _ => false,
    };
    if is_busy {
        " (this process's cgroup holds processes, and cgroup v2 hands controllers \
         only to the cgroups below one that has none: run toolspec in a cgroup of \
         its own, a child of one with pids and memory delegated)"
    } else {
        ""
    }
}

/// This process's own folder in the cgroup v1 hierarchy `controller` is mounted
/// with, or why there is none to use.
fn v1_base(
    mounts: &[Mount],
    memberships: &[Membership],
    controller: Controller,
) -> Result<PathBuf, CgroupError> {
    let name = controller.name();
    let has = |options: &[String]| options.iter().any(|o| o == name);
    let ours = memberships
        .iter()
        .find(|m| !m.is_v2() && has(&m.controllers))
        .ok_or(CgroupError::NoV1Hierarchy { controller: name })?;
    let mut seen = false;
    for mount in mounts
        .iter()
        .filter(|m| m.kind == Kind::V1 && has(&m.options))
    {
        seen = true;
        if let Some(folder) = folder_under(mount, &ours.path) {
            return Ok(folder);
        }
    }
    Err(if seen {
        CgroupError::V1OutsideMounts {
            controller: name,
            cgroup: ours.path.clone(),
        }
    } else {
        CgroupError::V1NotMounted { controller: name }
    })
}

/// Makes (or takes over, left by an earlier process with this pid) the run's
/// folder `name` under `base`, after removing the empty run folders of toolspec
/// processes that are gone; on cgroup v2 it lets `controllers` through to the
/// servers' folders below it.
fn make_run_folder(
    base: &Path,
    name: &str,
    kind: Kind,
    controllers: &[Controller],
) -> Result<PathBuf, CgroupError> {
    remove_leftover_runs(base);
    let run = base.join(name);
    match fs::create_dir(&run) {
        Ok(()) => {}
        Err(e) if e.kind() == ErrorKind::AlreadyExists => {}
        Err(source) => return Err(CgroupError::MakeFolder { path: run, source }),
    }
    if kind == Kind::V2 {
        let subtree = run.join("cgroup.subtree_control");
        for controller in controllers {
            if let Err(why) = write_value(&subtree, &format!("+{}", controller.name())) {
                let _ = fs::remove_dir(&run);
                return Err(why);
            }
        }
    }
    Ok(run)
}

/// Removes the run folders under `base` of toolspec processes that no longer
/// exist, with their servers' folders, where they hold no process. Only `rmdir`:
/// on a cgroup file system it removes nothing but an empty cgroup.
fn remove_leftover_runs(base: &Path) {
    let Ok(entries) = fs::read_dir(base) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = name.to_str().and_then(run_pid) else {
            continue;
        };
        if pid == std::process::id() || !process_gone(pid) {
            continue;
        }
        let run = entry.path();
        if let Ok(servers) = fs::read_dir(&run) {
            for server in servers.flatten() {
                if server.file_type().is_ok_and(|t| t.is_dir()) {
                    let _ = fs::remove_dir(server.path());
                }
            }
        }
        let _ = fs::remove_dir(&run);
    }
}

/// The toolspec pid a run folder's name carries, if it is one.
fn run_pid(name: &str) -> Option<u32> {
    let digits = name.strip_prefix(RUN_PREFIX)?;
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

/// Whether no process `pid` exists (one of another user's still does: `EPERM`).
fn process_gone(pid: u32) -> bool {
    let Ok(pid) = libc::pid_t::try_from(pid) else {
        return false;
    };
    // SAFETY: signal 0 only checks that the process exists.
    let sent = unsafe { libc::kill(pid, 0) };
    sent != 0 && std::io::Error::last_os_error().raw_os_error() == Some(libc::ESRCH)
}

/// The whole of a small text file, or an error naming it.
fn read_text(path: &Path) -> Result<String, CgroupError> {
    fs::read_to_string(path).map_err(|source| CgroupError::Read {
        path: path.to_path_buf(),
        source,
    })
}

/// Writes `value` to the cgroup file `path` in one write, as the kernel wants it,
/// without creating the file if it is missing.
fn write_value(path: &Path, value: &str) -> Result<(), CgroupError> {
    let mut file = OpenOptions::new()
        .write(true)
        .open(path)
        .map_err(|source| CgroupError::OpenToWrite {
            path: path.to_path_buf(),
            source,
        })?;
    file.write_all(value.as_bytes())
        .map_err(|source| CgroupError::Write {
            path: path.to_path_buf(),
            value: value.to_string(),
            source,
        })
}

/// One folder of a server's cgroup, in one hierarchy; removed when dropped.
#[derive(Debug)]
struct Folder {
    /// The cgroup's folder.
    path: PathBuf,
    /// v1 or v2, which decides the file names.
    kind: Kind,
    /// The pids limit set here, if one is.
    pids: Option<u64>,
    /// The memory limit set here, if one is.
    memory: Option<u64>,
    /// Its `cgroup.procs`, open for writing, which the supervisor writes to join.
    procs: OwnedFd,
}

/// The number of the next server's folder, unique in this process.
static NEXT_SERVER: AtomicU64 = AtomicU64::new(0);

impl Folder {
    /// Makes a server's folder in `place` with the limits `pids` and `memory` in
    /// it (`None`: not set here), and opens its `cgroup.procs`.
    fn make(place: &Place, pids: Option<u64>, memory: Option<u64>) -> Result<Folder, CgroupError> {
        if let Some(kept) = take_kept(place, pids, memory) {
            return Ok(kept);
        }
        let path = make_fresh_folder(&place.run)?;
        // std opens every file with O_CLOEXEC: the descriptor survives the fork
        // into the supervisor, never the exec of the server.
        let procs = match OpenOptions::new()
            .write(true)
            .open(path.join("cgroup.procs"))
        {
            Ok(file) => OwnedFd::from(file),
            Err(source) => {
                let _ = fs::remove_dir(&path);
                return Err(CgroupError::OpenProcs {
                    folder: path,
                    source,
                });
            }
        };
        let folder = Folder {
            path,
            kind: place.kind,
            pids,
            memory,
            procs,
        };
        // On failure the folder is dropped, which removes it.
        if let Some(count) = pids {
            write_value(&folder.path.join("pids.max"), &count.to_string())?;
        }
        if let Some(bytes) = memory {
            folder.limit_memory(bytes)?;
        }
        Ok(folder)
    }

    /// Sets the memory limit, and the same for memory and swap together where
    /// swap is accounted, so a server cannot go on in swap.
    fn limit_memory(&self, bytes: u64) -> Result<(), CgroupError> {
        let bytes = bytes.to_string();
        let (memory, swap, swap_value) = match self.kind {
            Kind::V2 => ("memory.max", "memory.swap.max", "0"),
            Kind::V1 => (
                "memory.limit_in_bytes",
                "memory.memsw.limit_in_bytes",
                bytes.as_str(),
            ),
        };
        write_value(&self.path.join(memory), &bytes)?;
        let swap = self.path.join(swap);
        if swap.exists() {
            write_value(&swap, swap_value)?;
        }
        Ok(())
    }

    /// Whether a fork was refused at the pids limit.
    fn pids_hit(&self) -> bool {
        self.pids_hit_read() == Some(true)
    }

    /// Whether the cgroup ran out of memory.
    fn memory_hit(&self) -> bool {
        self.memory_hit_read() == Some(true)
    }

    /// Whether a fork was refused at the pids limit (`false` where none is set),
    /// or `None` if the counter cannot be read.
    fn pids_hit_read(&self) -> Option<bool> {
        if self.pids.is_none() {
            return Some(false);
        }
        read_text(&self.path.join("pids.events"))
            .ok()
            .map(|text| pids_events_hit(&text))
    }

    /// Whether the cgroup ran out of memory (`false` where no limit is set), or
    /// `None` if the counter cannot be read.
    fn memory_hit_read(&self) -> Option<bool> {
        if self.memory.is_none() {
            return Some(false);
        }
        match self.kind {
            Kind::V2 => read_text(&self.path.join("memory.events"))
                .ok()
                .map(|text| memory_events_hit(&text)),
            Kind::V1 => read_text(&self.path.join("memory.oom_control"))
                .ok()
                .map(|text| oom_control_hit(&text)),
        }
    }

    /// Whether the next server may have this folder as if it were new: no process
    /// is left in it and no limit was reached, so its counters are all zero.
    fn at_rest(&self) -> bool {
        read_text(&self.path.join("cgroup.procs")).is_ok_and(|text| text.trim().is_empty())
            && self.pids_hit_read() == Some(false)
            && self.memory_hit_read() == Some(false)
    }
}

/// Server folders at rest ([`Folder::at_rest`]) once their server ended, kept for
/// the next server with the same limits: making a cgroup and removing it (a
/// memory cgroup above all, whose removal the kernel finishes in its workers) cost
/// more CPU a server than reading whether one is at rest (docs/isolation.md,
/// "Cost"). Removed when toolspec exits.
static KEPT: Mutex<Vec<Folder>> = Mutex::new(Vec::new());

/// At most this many folders are kept: more than a run's servers at once.
const MOST_KEPT: usize = 64;

fn kept() -> MutexGuard<'static, Vec<Folder>> {
    KEPT.lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// A kept folder of `place` with exactly these limits, if there is one.
fn take_kept(place: &Place, pids: Option<u64>, memory: Option<u64>) -> Option<Folder> {
    let mut kept = kept();
    let at = kept.iter().position(|folder| {
        folder.path.parent() == Some(place.run.as_path())
            && folder.pids == pids
            && folder.memory == memory
    })?;
    Some(kept.swap_remove(at))
}

/// Keeps `folder` for the next server if it is at rest and there is room; else
/// it is dropped, which removes it.
fn keep_or_remove(folder: Folder) {
    if !folder.at_rest() {
        return;
    }
    let mut kept = kept();
    if kept.len() >= MOST_KEPT {
        return;
    }
    if kept.is_empty() {
        static REGISTERED: std::sync::Once = std::sync::Once::new();
        REGISTERED.call_once(|| at_exit(remove_kept_and_runs));
    }
    kept.push(folder);
}

/// At exit: removes every kept folder, then each run folder if nothing is left in
/// it (an interrupted run's servers may still be going; the next run removes it).
fn remove_kept_and_runs() {
    let Ok(mut kept) = KEPT.try_lock() else {
        return;
    };
    drop(std::mem::take(&mut *kept));
    if let Some(Ok(cgroups)) = FOUND.get() {
        for place in &cgroups.places {
            let _ = fs::remove_dir(&place.run);
        }
    }
}

/// Makes a new server folder `server-<n>` under `run`, skipping names an earlier
/// process with this pid left behind.
fn make_fresh_folder(run: &Path) -> Result<PathBuf, CgroupError> {
    for _ in 0..1_000 {
        let number = NEXT_SERVER.fetch_add(1, Ordering::Relaxed);
        let path = run.join(format!("server-{number}"));
        match fs::create_dir(&path) {
            Ok(()) => return Ok(path),
            Err(e) if e.kind() == ErrorKind::AlreadyExists => continue,
            Err(source) => return Err(CgroupError::MakeFolder { path, source }),
        }
    }
    Err(CgroupError::NamesTaken {
        run: run.to_path_buf(),
    })
}

/// How long a dropped server folder is retried while its last processes are
/// still exiting (a process killed a moment ago leaves its cgroup as it dies).
const REMOVAL_GRACE: Duration = Duration::from_millis(250);

impl Drop for Folder {
    /// Removes the folder, only by `rmdir`, retried while it still has processes;
    /// one that outlives the grace is left for the run that finds this process gone.
    fn drop(&mut self) {
        let deadline = Instant::now() + REMOVAL_GRACE;
        loop {
            match fs::remove_dir(&self.path) {
                Err(e) if e.raw_os_error() == Some(libc::EBUSY) && Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(2));
                }
                _ => return,
            }
        }
    }
}

/// One server's cgroup(s): made (or taken from those kept) before the server
/// starts, kept for the next server or removed when dropped.
#[derive(Debug)]
pub(crate) struct ServerCgroup {
    /// The limits asked for, which [`ServerCgroup::hit`] names.
    limits: Limits,
    /// One folder per hierarchy that sets one of the limits.
    folders: Vec<Folder>,
}

impl ServerCgroup {
    /// Makes one server's folder(s) under the run's folder, with the pids and
    /// memory limits in them, and opens each `cgroup.procs` for the supervisor to
    /// join. A limit no hierarchy on this machine serves is not set
    /// ([`Cgroups::missing`] says which and why); with neither set there is no
    /// folder at all.
    pub(crate) fn make(limits: &Limits) -> Result<ServerCgroup, CgroupError> {
        let cgroups = cgroups().as_ref().map_err(Clone::clone)?;
        let mut made = ServerCgroup {
            limits: *limits,
            folders: Vec::new(),
        };
        for place in &cgroups.places {
            let pids = limits.pids.filter(|_| place.pids);
            let memory = limits.memory_bytes.filter(|_| place.memory);
            if pids.is_some() || memory.is_some() {
                // On failure `made` is dropped, which removes the folders made so far.
                made.folders.push(Folder::make(place, pids, memory)?);
            }
        }
        Ok(made)
    }

    /// The open `cgroup.procs` files (one on cgroup v2, up to two on v1: pids and
    /// memory), for [`join`] between `fork` and `exec`. They stay owned here.
    pub(crate) fn procs(&self) -> Vec<RawFd> {
        self.folders.iter().map(|f| f.procs.as_raw_fd()).collect()
    }

    /// Which limit was hit, read after the server ended. Memory first: an OOM kill
    /// is what ended the server, where a refused fork may have been a symptom.
    /// A counter that cannot be read counts as not hit.
    pub(crate) fn hit(&self) -> Option<LimitHit> {
        if let Some(bytes) = self.limits.memory_bytes {
            if self.folders.iter().any(Folder::memory_hit) {
                return Some(LimitHit::Memory(bytes));
            }
        }
        if let Some(count) = self.limits.pids {
            if self.folders.iter().any(Folder::pids_hit) {
                return Some(LimitHit::Pids(count));
            }
        }
        None
    }
}

impl Drop for ServerCgroup {
    fn drop(&mut self) {
        for folder in self.folders.drain(..) {
            keep_or_remove(folder);
        }
    }
}

/// The last `errno`.
unsafe fn errno() -> libc::c_int {
    *libc::__errno_location()
}

/// Moves the calling process into the cgroup(s) whose `cgroup.procs` are open as
/// `fds`, by writing `0` (the writer) to each. Only `write` calls on the given
/// descriptors, no allocation: for a supervisor between `fork` and `exec`, before
/// it starts the server, so the server is counted from its first instruction.
/// `Err` is the `errno` of the first write that failed.
///
/// # Safety
/// `fds` must be open descriptors of `cgroup.procs` files (from
/// [`ServerCgroup::procs`]); async-signal-safe, so callable after `fork`.
pub(crate) unsafe fn join(fds: &[RawFd]) -> Result<(), libc::c_int> {
    for &fd in fds {
        let written = libc::write(fd, b"0".as_ptr().cast(), 1);
        if written < 0 {
            return Err(errno());
        }
        if written != 1 {
            return Err(libc::EIO);
        }
    }
    Ok(())
}

/// Sets `RLIMIT_FSIZE` to `bytes`, soft and hard, so the server can neither write
/// a larger file nor raise the limit (unless it is root). One `setrlimit` call,
/// for between `fork` and `exec`; `Err` is its `errno`.
///
/// # Safety
/// Async-signal-safe; it changes the limit of the whole calling process, so only
/// in the process that becomes the supervisor.
pub(crate) unsafe fn limit_file_size(bytes: u64) -> Result<(), libc::c_int> {
    let limit = libc::rlimit {
        rlim_cur: bytes as libc::rlim_t,
        rlim_max: bytes as libc::rlim_t,
    };
    if libc::setrlimit(libc::RLIMIT_FSIZE, &limit) != 0 {
        return Err(errno());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::CString;
    use std::os::fd::FromRawFd;

    const HYBRID_MOUNTINFO: &str = "\
31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755
32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu
35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory
39 31 0:36 / /sys/fs/cgroup/pids rw,relatime shared:5 - cgroup cgroup rw,pids
40 31 0:37 / /sys/fs/cgroup/systemd rw,relatime - cgroup cgroup rw,name=systemd
41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw
50 23 0:40 / /mnt/a\\040b rw - ext4 /dev/sda1 rw";

    const HYBRID_CGROUP: &str = "\
9:name=systemd:/
8:pids:/
4:memory:/process_api/3a43
2:cpu,cpuacct:/
0::/";

    #[test]
    fn mountinfo_lines_give_the_cgroup_mounts() {
        let mounts = parse_mounts(HYBRID_MOUNTINFO);
        assert_eq!(mounts.len(), 5);
        assert_eq!(
            mounts[2],
            Mount {
                root: "/".to_string(),
                point: PathBuf::from("/sys/fs/cgroup/pids"),
                kind: Kind::V1,
                options: vec!["rw".to_string(), "pids".to_string()],
            }
        );
        assert_eq!(mounts[4].kind, Kind::V2);
        assert_eq!(mounts[4].point, PathBuf::from("/sys/fs/cgroup/unified"));
        let pure = "25 20 0:22 / /sys/fs/cgroup rw,nosuid - cgroup2 cgroup2 rw,nsdelegate";
        assert_eq!(parse_mounts(pure)[0].point, PathBuf::from("/sys/fs/cgroup"));
        let spaced = "7 1 0:9 /a\\040b /c\\134d rw - cgroup2 none rw";
        let mount = &parse_mounts(spaced)[0];
        assert_eq!(
            (mount.root.as_str(), &mount.point),
            ("/a b", &PathBuf::from("/c\\d"))
        );
        assert!(parse_mounts("garbage\n1 2 3").is_empty());
    }

    #[test]
    fn proc_self_cgroup_lines_give_each_hierarchys_cgroup() {
        let lines = parse_memberships(HYBRID_CGROUP);
        assert_eq!(lines.len(), 5);
        assert_eq!(lines[1].controllers, vec!["pids"]);
        assert_eq!(lines[2].path, "/process_api/3a43");
        assert_eq!(lines[3].controllers, vec!["cpu", "cpuacct"]);
        assert!(lines[4].is_v2() && !lines[0].is_v2());
        let colon = parse_memberships("0::/a:b");
        assert_eq!(colon[0].path, "/a:b");
    }

    #[test]
    fn our_folder_is_found_under_each_mount() {
        let mounts = parse_mounts(HYBRID_MOUNTINFO);
        let lines = parse_memberships(HYBRID_CGROUP);
        assert_eq!(
            v1_base(&mounts, &lines, Controller::Memory).ok(),
            Some(PathBuf::from("/sys/fs/cgroup/memory/process_api/3a43"))
        );
        assert_eq!(
            v1_base(&mounts, &lines, Controller::Pids).ok(),
            Some(PathBuf::from("/sys/fs/cgroup/pids"))
        );
        assert_eq!(
            v2_base(&mounts, &lines).ok(),
            Some(PathBuf::from("/sys/fs/cgroup/unified"))
        );
        let bound = Mount {
            root: "/user.slice".to_string(),
            point: PathBuf::from("/sys/fs/cgroup"),
            kind: Kind::V2,
            options: Vec::new(),
        };
        assert_eq!(
            folder_under(&bound, "/user.slice/a.scope"),
            Some(PathBuf::from("/sys/fs/cgroup/a.scope"))
        );
        assert_eq!(
            folder_under(&bound, "/user.slice"),
            Some(bound.point.clone())
        );
        assert_eq!(folder_under(&bound, "/user.slicex"), None);
        assert_eq!(folder_under(&bound, "/system.slice"), None);
        let only_v2 = parse_mounts("1 2 0:3 / /sys/fs/cgroup rw - cgroup2 cgroup2 rw");
        assert!(v1_base(&only_v2, &lines, Controller::Pids).is_err());
    }

    #[test]
    fn event_counters_say_which_limit_was_hit() {
        assert!(pids_events_hit("max 3\n"));
        assert!(!pids_events_hit("max 0\n"));
        assert!(!pids_events_hit(""));
        let v2 = "low 0\nhigh 0\nmax 12\noom 0\noom_kill 0\noom_group_kill 0\n";
        assert!(
            !memory_events_hit(v2),
            "reaching max is reclaim, not a kill"
        );
        assert!(memory_events_hit(&v2.replace("oom_kill 0", "oom_kill 1")));
        assert!(memory_events_hit(&v2.replace("oom 0", "oom 2")));
        assert!(oom_control_hit(
            "oom_kill_disable 0\nunder_oom 0\noom_kill 1\n"
        ));
        assert!(!oom_control_hit(
            "oom_kill_disable 0\nunder_oom 0\noom_kill 0\n"
        ));
        assert_eq!(run_pid("toolspec-123"), Some(123));
        assert_eq!(run_pid("toolspec-"), None);
        assert_eq!(run_pid("toolspec-12x"), None);
        assert_eq!(run_pid("server-1"), None);
    }

    #[test]
    fn a_hit_is_described_with_its_setting() {
        let limits = Limits::default();
        assert_eq!(
            LimitHit::Pids(limits.pids.unwrap_or(0)).describe(),
            "the server hit its limit of 512 processes (isolation.limits.pids)"
        );
        assert_eq!(
            LimitHit::Memory(limits.memory_bytes.unwrap_or(0)).describe(),
            "the server hit its memory limit of 2 GiB (isolation.limits.memory) and was killed"
        );
        assert_eq!(
            LimitHit::by_signal(&limits, libc::SIGXFSZ).map(|hit| hit.describe()),
            Some(
                "the server wrote past its file size limit of 1 GiB (isolation.limits.file_size)"
                    .to_string()
            )
        );
        assert_eq!(LimitHit::by_signal(&limits, libc::SIGKILL), None);
        assert_eq!(size_text(1536 << 20), "1536 MiB");
        assert_eq!(size_text(1000), "1000 bytes");
    }

    /// The machine's cgroups, or `None` after checking that the reason given is one.
    fn cgroups_serving(controller: Controller) -> Option<&'static Cgroups> {
        match cgroups() {
            Ok(found) if found.places.iter().any(|p| p.serves(controller)) => Some(found),
            Ok(found) => {
                eprintln!("no {} limit here: {:?}", controller.name(), found.missing());
                assert!(found.missing().iter().any(|m| !m.is_empty()));
                None
            }
            Err(why) => {
                eprintln!("no cgroups here: {why}");
                assert!(!why.to_string().is_empty());
                None
            }
        }
    }

    /// A pipe, both ends closed on exec.
    fn pipe() -> (OwnedFd, OwnedFd) {
        let mut ends = [0; 2];
        // SAFETY: `ends` has room for the two descriptors.
        assert_eq!(
            unsafe { libc::pipe2(ends.as_mut_ptr(), libc::O_CLOEXEC) },
            0
        );
        // SAFETY: both were just opened and are owned by nothing else.
        unsafe { (OwnedFd::from_raw_fd(ends[0]), OwnedFd::from_raw_fd(ends[1])) }
    }

    /// One byte from `fd`, waiting at most five seconds.
    fn read_byte(fd: &OwnedFd) -> Option<u8> {
        let mut polled = libc::pollfd {
            fd: fd.as_raw_fd(),
            events: libc::POLLIN,
            revents: 0,
        };
        let mut byte = 0u8;
        // SAFETY: one pollfd, and a one-byte buffer.
        unsafe {
            if libc::poll(&mut polled, 1, 5_000) != 1 {
                return None;
            }
            (libc::read(fd.as_raw_fd(), (&mut byte as *mut u8).cast(), 1) == 1).then_some(byte)
        }
    }

    /// Waits for the child `pid`; its wait status.
    fn wait(pid: libc::pid_t) -> libc::c_int {
        let mut status = 0;
        // SAFETY: waits for our own child only.
        assert_eq!(unsafe { libc::waitpid(pid, &mut status, 0) }, pid);
        status
    }

    /// Sleeps `seconds` in a forked child.
    unsafe fn nap(seconds: libc::time_t) {
        let pause = libc::timespec {
            tv_sec: seconds,
            tv_nsec: 0,
        };
        libc::nanosleep(&pause, std::ptr::null_mut());
    }

    /// The forked child of the pids test: joins, forks twenty sleepers, says how
    /// many it got on `count`, and once told on `go` kills and reaps them and exits.
    /// Only system calls: the test process has other threads.
    unsafe fn fork_bomb(fds: &[RawFd], count: RawFd, go: RawFd) -> ! {
        if join(fds).is_err() {
            libc::_exit(101);
        }
        let mut sleepers: [libc::pid_t; 20] = [0; 20];
        let mut forked = 0u8;
        for slot in sleepers.iter_mut() {
            let pid = libc::fork();
            if pid == 0 {
                nap(10);
                libc::_exit(0);
            }
            if pid > 0 {
                *slot = pid;
                forked += 1;
            }
        }
        libc::write(count, (&forked as *const u8).cast(), 1);
        let mut byte = 0u8;
        libc::read(go, (&mut byte as *mut u8).cast(), 1);
        for &pid in sleepers.iter().filter(|pid| **pid > 0) {
            libc::kill(pid, libc::SIGKILL);
            libc::waitpid(pid, std::ptr::null_mut(), 0);
        }
        libc::_exit(0)
    }

    #[test]
    fn a_fork_bomb_stops_at_its_pids_limit() {
        let Some(_) = cgroups_serving(Controller::Pids) else {
            return;
        };
        let limits = Limits {
            pids: Some(8),
            memory_bytes: None,
            file_bytes: None,
        };
        let cgroup = ServerCgroup::make(&limits).expect("a server cgroup");
        let folders: Vec<PathBuf> = cgroup.folders.iter().map(|f| f.path.clone()).collect();
        let fds = cgroup.procs();
        assert_eq!(fds.len(), 1, "only the pids limit is set");
        let (count_read, count_write) = pipe();
        let (go_read, go_write) = pipe();
        // SAFETY: the child makes only system calls and exits.
        let pid = unsafe { libc::fork() };
        assert!(pid >= 0, "fork failed");
        if pid == 0 {
            // SAFETY: in the forked child, with descriptors open before the fork.
            unsafe { fork_bomb(&fds, count_write.as_raw_fd(), go_read.as_raw_fd()) }
        }
        drop((count_write, go_read));
        let forked = read_byte(&count_read);
        let hit = cgroup.hit();
        // SAFETY: a one-byte write to our own pipe.
        unsafe { libc::write(go_write.as_raw_fd(), b"g".as_ptr().cast(), 1) };
        let status = wait(pid);
        drop(cgroup);
        assert!(
            libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0,
            "child: {status:#x}"
        );
        assert_eq!(forked, Some(7), "the child and seven more make eight");
        assert_eq!(hit, Some(LimitHit::Pids(8)));
        for folder in folders {
            assert!(!folder.exists(), "{} is left", folder.display());
        }
    }

    #[test]
    fn a_memory_hog_is_killed_at_its_memory_limit() {
        let Some(_) = cgroups_serving(Controller::Memory) else {
            return;
        };
        let limits = Limits {
            pids: None,
            memory_bytes: Some(32 << 20),
            file_bytes: None,
        };
        let cgroup = ServerCgroup::make(&limits).expect("a server cgroup");
        let folders: Vec<PathBuf> = cgroup.folders.iter().map(|f| f.path.clone()).collect();
        let fds = cgroup.procs();
        // SAFETY: the child makes only system calls and exits.
        let pid = unsafe { libc::fork() };
        assert!(pid >= 0, "fork failed");
        if pid == 0 {
            // SAFETY: in the forked child: joins, then touches 200 MiB page by page.
            unsafe {
                if join(&fds).is_err() {
                    libc::_exit(101);
                }
                let size = 200 << 20;
                let memory = libc::mmap(
                    std::ptr::null_mut(),
                    size,
                    libc::PROT_READ | libc::PROT_WRITE,
                    libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                    -1,
                    0,
                );
                if memory == libc::MAP_FAILED {
                    libc::_exit(102);
                }
                let bytes = memory.cast::<u8>();
                for page in (0..size).step_by(4096) {
                    std::ptr::write_volatile(bytes.add(page), 1);
                }
                libc::_exit(0);
            }
        }
        let status = wait(pid);
        let hit = cgroup.hit();
        drop(cgroup);
        assert!(
            libc::WIFSIGNALED(status) && libc::WTERMSIG(status) == libc::SIGKILL,
            "the hog was not killed: {status:#x}"
        );
        assert_eq!(hit, Some(LimitHit::Memory(32 << 20)));
        for folder in folders {
            assert!(!folder.exists(), "{} is left", folder.display());
        }
    }

    #[test]
    fn a_file_past_the_size_limit_ends_the_writer() {
        let folder = tempfile::tempdir().expect("a temporary folder");
        let path = CString::new(folder.path().join("big").as_os_str().as_encoded_bytes())
            .expect("a path without NUL");
        let block = [0u8; 8192];
        // SAFETY: the child makes only system calls and exits.
        let pid = unsafe { libc::fork() };
        assert!(pid >= 0, "fork failed");
        if pid == 0 {
            // SAFETY: in the forked child, on buffers made before the fork.
            unsafe {
                libc::signal(libc::SIGXFSZ, libc::SIG_DFL);
                let no_core = libc::rlimit {
                    rlim_cur: 0,
                    rlim_max: 0,
                };
                libc::setrlimit(libc::RLIMIT_CORE, &no_core);
                if limit_file_size(4096).is_err() {
                    libc::_exit(101);
                }
                let fd = libc::open(
                    path.as_ptr(),
                    libc::O_WRONLY | libc::O_CREAT | libc::O_CLOEXEC,
                    0o600,
                );
                if fd < 0 {
                    libc::_exit(102);
                }
                libc::write(fd, block.as_ptr().cast(), block.len());
                libc::write(fd, block.as_ptr().cast(), block.len());
                libc::_exit(0);
            }
        }
        let status = wait(pid);
        assert!(
            libc::WIFSIGNALED(status),
            "the writer was not killed: {status:#x}"
        );
        let limits = Limits {
            file_bytes: Some(4096),
            ..Limits::default()
        };
        assert_eq!(
            LimitHit::by_signal(&limits, libc::WTERMSIG(status)),
            Some(LimitHit::FileSize(4096))
        );
    }
}
