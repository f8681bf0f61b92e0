//! What the process that becomes a server's supervisor enters before it starts the
//! server: a session of its own (no controlling terminal to type into), the run's
//! network namespace (with only a loopback, brought up; made once per run, since
//! making one per server cost more CPU than everything else isolation does, and its
//! teardown holds the kernel's network lock), or one of its own in a user namespace
//! of its own, the server's cgroups and file size limit (`resource_limits.rs`), the
//! server's Landlock rules (`sandbox.rs`), no capabilities and no way to gain any,
//! and the seccomp filter (`syscall_filter.rs`). All of it binds the supervisor and
//! every process it starts, so the server inherits it and cannot leave it.
//!
//! It runs between `fork` and `exec` (std's `pre_exec` hook, or the spawner's
//! child), where nothing may allocate: everything here is raw system calls on stack
//! buffers, and an error is an `errno`.

use std::os::fd::{AsRawFd, OwnedFd, RawFd};

use super::view_enter::Made;
use super::view_plan::ViewPlan;

/// How a server is cut off from the network.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum NetworkCut {
    /// Not at all: the server shares toolspec's network.
    Open,
    /// The run's network namespace, made once by toolspec (it is root), joined.
    Namespace,
    /// A user namespace and a network namespace of its own (toolspec is not root,
    /// and the kernel lets anyone make user namespaces). The server runs as the
    /// same user, mapped to itself.
    UserNamespace,
    /// A user namespace alone, the network left open (an HTTP server toolspec must
    /// reach, or `allow_network`): what lets a server's init make its view when
    /// toolspec is not root.
    UserOnly,
}

impl NetworkCut {
    /// As one word, for the spawner's request.
    pub(in crate::server) fn word(self) -> u32 {
        match self {
            NetworkCut::Open => 0,
            NetworkCut::Namespace => 1,
            NetworkCut::UserNamespace => 2,
            NetworkCut::UserOnly => 3,
        }
    }

    /// Back from [`NetworkCut::word`].
    pub(in crate::server) fn from_word(word: u32) -> Option<NetworkCut> {
        match word {
            0 => Some(NetworkCut::Open),
            1 => Some(NetworkCut::Namespace),
            2 => Some(NetworkCut::UserNamespace),
            3 => Some(NetworkCut::UserOnly),
            _ => None,
        }
    }
}

/// What one server's supervisor enters before it starts the server.
pub(in crate::server) struct Confinement {
    pub(in crate::server) network: NetworkCut,
    /// The run's network namespace, joined under [`NetworkCut::Namespace`].
    pub(in crate::server) namespace: Option<&'static OwnedFd>,
    /// A Landlock ruleset (`sandbox.rs`), put in force for the supervisor and all it
    /// starts; `None` when the server writes and reads as toolspec does.
    pub(in crate::server) rules: Option<OwnedFd>,
    /// A session of its own, no capabilities, the seccomp filter and the file size
    /// limit; `None` when the server runs as toolspec does.
    pub(in crate::server) hardening: Option<Hardening>,
    /// The server's cgroups, their `cgroup.procs` files open for writing, joined by
    /// the supervisor (`resource_limits.rs`); empty without.
    pub(in crate::server) cgroups: Vec<RawFd>,
    /// The server's view of the filesystem, made by its init (`server_init.rs`),
    /// which then enters the rules, drops the capabilities and installs the filter
    /// in the supervisor's stead; `None`: the supervisor does all of it.
    pub(in crate::server) view: Option<ViewPlan>,
}

/// What every isolated server is held to beyond its rules and its network.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(in crate::server) struct Hardening {
    /// `RLIMIT_FSIZE`: the largest file the server may write (`None`: no limit).
    pub(in crate::server) file_bytes: Option<u64>,
}

impl Confinement {
    /// Nothing at all: the server runs as toolspec does.
    pub(in crate::server) fn none() -> Confinement {
        Confinement {
            network: NetworkCut::Open,
            namespace: None,
            rules: None,
            hardening: None,
            cgroups: Vec::new(),
            view: None,
        }
    }

    /// Enters everything, in the order [`enter`] gives.
    ///
    /// # Safety
    /// Only in a process of its own between `fork` and `exec`: it only makes system
    /// calls and does not allocate.
    pub(in crate::server) unsafe fn enter(&self) -> Result<(), libc::c_int> {
        enter(&Parts {
            network: self.network,
            namespace: self.namespace.map(AsRawFd::as_raw_fd),
            rules: self.rules.as_ref().map(AsRawFd::as_raw_fd),
            hardening: self.hardening,
            cgroups: &self.cgroups,
            view: self.view.as_ref(),
            made: Made::Nothing,
        })
    }

    /// What the server's init enters, when it has one.
    pub(in crate::server) fn inside(&self) -> Option<Inside<'_>> {
        Parts::inside_of(
            self.view.as_ref(),
            Made::Nothing,
            self.rules.as_ref().map(AsRawFd::as_raw_fd),
            self.hardening,
        )
    }
}

/// A confinement as descriptors, as the spawner's child has it.
pub(in crate::server) struct Parts<'a> {
    pub(in crate::server) network: NetworkCut,
    /// An open network namespace, joined under [`NetworkCut::Namespace`].
    pub(in crate::server) namespace: Option<RawFd>,
    /// An open Landlock ruleset.
    pub(in crate::server) rules: Option<RawFd>,
    pub(in crate::server) hardening: Option<Hardening>,
    /// Open `cgroup.procs` files.
    pub(in crate::server) cgroups: &'a [RawFd],
    pub(in crate::server) view: Option<&'a ViewPlan>,
    /// What of the view is made before the init starts.
    pub(in crate::server) made: Made,
}

impl<'a> Parts<'a> {
    /// What the server's init enters, when it has one.
    pub(in crate::server) fn inside(&self) -> Option<Inside<'a>> {
        Parts::inside_of(self.view, self.made, self.rules, self.hardening)
    }

    fn inside_of(
        view: Option<&'a ViewPlan>,
        made: Made,
        rules: Option<RawFd>,
        hardening: Option<Hardening>,
    ) -> Option<Inside<'a>> {
        view.map(|view| Inside {
            view,
            made,
            rules,
            hardened: hardening.is_some(),
        })
    }
}

/// Enters `parts` in this order: a session of its own (first, while this process
/// leads no group), the network namespace, the cgroups and the file size limit
/// (writing `cgroup.procs` and making a user namespace's maps go through `/proc`
/// and `/sys`, which the rules could deny), no core dumps of this process, then
/// what [`enter_inner`] enters, unless the server has a view, whose init enters it
/// once the view is made.
///
/// # Safety
/// As [`Confinement::enter`], with every descriptor open and of its kind.
pub(in crate::server) unsafe fn enter(parts: &Parts) -> Result<(), libc::c_int> {
    if parts.hardening.is_some() && libc::setsid() < 0 {
        return Err(errno());
    }
    enter_namespace(parts.network, parts.namespace)?;
    if !parts.cgroups.is_empty() {
        super::resource_limits::join(parts.cgroups)?;
    }
    if let Some(hardening) = parts.hardening {
        if let Some(bytes) = hardening.file_bytes {
            super::resource_limits::limit_file_size(bytes)?;
        }
        // The supervisor is a copy of toolspec: its `/proc` entries (its whole
        // environment among them) are not for the server to read. The server's exec
        // makes it dumpable again, as it should be.
        if libc::prctl(libc::PR_SET_DUMPABLE, 0, 0, 0, 0) != 0 {
            return Err(errno());
        }
    }
    if parts.view.is_none() {
        enter_inner(parts.rules, parts.hardening.is_some())?;
    }
    Ok(())
}

/// The Landlock rules (which forbid mounting, so after a view is made), no
/// capabilities (dropping the bounding set needs `CAP_SETPCAP`, so after everything
/// that needs a capability), and last the seccomp filter, which refuses `setns`,
/// `unshare` and `mount`.
///
/// # Safety
/// As [`enter`], with `rules` an open Landlock ruleset.
pub(in crate::server) unsafe fn enter_inner(
    rules: Option<RawFd>,
    hardened: bool,
) -> Result<(), libc::c_int> {
    if let Some(rules) = rules {
        restrict_self(rules)?;
    }
    if hardened {
        if libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 {
            return Err(errno());
        }
        drop_capabilities()?;
        match super::syscall_filter::compiled() {
            Some(Ok(filter)) => filter.install()?,
            // No filter for this architecture: said once per run (`isolation.rs`).
            Some(Err(_)) => {}
            // Never compiled before the fork: refuse rather than run unfiltered.
            None => return Err(libc::EINVAL),
        }
    }
    Ok(())
}

/// Joins the run's network namespace, or makes one as `network` says.
unsafe fn enter_namespace(
    network: NetworkCut,
    namespace: Option<RawFd>,
) -> Result<(), libc::c_int> {
    match (network, namespace) {
        (NetworkCut::Namespace, Some(namespace)) => {
            if libc::setns(namespace, libc::CLONE_NEWNET) != 0 {
                return Err(errno());
            }
        }
        (NetworkCut::Namespace, None) => return Err(libc::EINVAL),
        (other, _) => enter_network(other)?,
    }
    Ok(())
}

/// The secure bits that keep uid 0 from having capabilities for being uid 0, at
/// exec or at a change of uid, each locked: `SECBIT_NOROOT`, `SECBIT_NO_SETUID_FIXUP`,
/// `SECBIT_NO_CAP_AMBIENT_RAISE` and their locks, and the lock of `SECBIT_KEEP_CAPS`.
const NO_ROOT_BITS: libc::c_ulong = 0b1110_1111;

/// `_LINUX_CAPABILITY_VERSION_3`: the 64-bit capability sets, in two words.
const CAPABILITY_VERSION_3: u32 = 0x2008_0522;

/// The header and data `capset` takes.
#[repr(C)]
struct CapabilityHeader {
    version: u32,
    pid: libc::c_int,
}
#[repr(C)]
#[derive(Clone, Copy)]
struct CapabilityData {
    effective: u32,
    permitted: u32,
    inheritable: u32,
}

/// Gives up every capability this process has (in its user namespace, or as root):
/// the bounding set, so no exec can bring one back, then the ambient, effective,
/// permitted and inheritable sets. A process that never had `CAP_SETPCAP` (a user
/// that is not root) has nothing in those sets to give up; its bounding set stays,
/// and `no_new_privs` keeps a set-uid program from using it.
unsafe fn drop_capabilities() -> Result<(), libc::c_int> {
    let mut may_drop = libc::prctl(libc::PR_SET_SECUREBITS, NO_ROOT_BITS, 0, 0, 0) == 0;
    let mut capability: libc::c_ulong = 0;
    while may_drop && capability < 64 {
        if libc::prctl(libc::PR_CAPBSET_DROP, capability, 0, 0, 0) != 0 {
            match errno() {
                // Past the last capability this kernel knows.
                libc::EINVAL => break,
                libc::EPERM => may_drop = false,
                other => return Err(other),
            }
        }
        capability += 1;
    }
    libc::prctl(
        libc::PR_CAP_AMBIENT,
        libc::PR_CAP_AMBIENT_CLEAR_ALL as libc::c_ulong,
        0,
        0,
        0,
    );
    let header = CapabilityHeader {
        version: CAPABILITY_VERSION_3,
        pid: 0,
    };
    let none = [CapabilityData {
        effective: 0,
        permitted: 0,
        inheritable: 0,
    }; 2];
    if libc::syscall(libc::SYS_capset, &header, none.as_ptr()) != 0 {
        return Err(errno());
    }
    Ok(())
}

/// The last `errno`.
unsafe fn errno() -> libc::c_int {
    *libc::__errno_location()
}

/// Puts this process (this thread, for [`NetworkCut::Namespace`]) in a new network
/// namespace, as `cut` says, with its loopback up.
///
/// # Safety
/// As [`Confinement::enter`]; also in a probe child that only exits after it.
pub(in crate::server) unsafe fn enter_network(cut: NetworkCut) -> Result<(), libc::c_int> {
    match cut {
        NetworkCut::Open => return Ok(()),
        NetworkCut::Namespace => {
            if libc::unshare(libc::CLONE_NEWNET) != 0 {
                return Err(errno());
            }
        }
        NetworkCut::UserNamespace | NetworkCut::UserOnly => {
            let (uid, gid) = (libc::getuid(), libc::getgid());
            let network = if cut == NetworkCut::UserOnly {
                0
            } else {
                libc::CLONE_NEWNET
            };
            if libc::unshare(libc::CLONE_NEWUSER | network) != 0 {
                return Err(errno());
            }
            // Without `deny`, an unprivileged process may not write its gid map.
            write_proc(c"/proc/self/setgroups", b"deny")?;
            let (line, length) = self_map(uid);
            write_proc(
                c"/proc/self/uid_map",
                line.get(..length).unwrap_or_default(),
            )?;
            let (line, length) = self_map(gid);
            write_proc(
                c"/proc/self/gid_map",
                line.get(..length).unwrap_or_default(),
            )?;
            if cut == NetworkCut::UserOnly {
                return Ok(());
            }
        }
    }
    loopback_up()
}

/// `"ID ID 1"`: the id mapped to itself, in a stack buffer, and its length.
fn self_map(id: u32) -> ([u8; 32], usize) {
    let mut digits = [0u8; 10];
    let mut count = 0;
    let mut rest = id;
    loop {
        if let Some(slot) = digits.get_mut(count) {
            *slot = b'0' + (rest % 10) as u8;
        }
        count += 1;
        rest /= 10;
        if rest == 0 || count == digits.len() {
            break;
        }
    }
    let mut line = [0u8; 32];
    let mut at = 0;
    let mut put = |byte: u8| {
        if let Some(slot) = line.get_mut(at) {
            *slot = byte;
        }
        at += 1;
    };
    for _ in 0..2 {
        for i in (0..count).rev() {
            put(digits.get(i).copied().unwrap_or(b'0'));
        }
        put(b' ');
    }
    put(b'1');
    (line, at.min(32))
}

/// Writes `bytes` to the `/proc` file `path` in one write.
unsafe fn write_proc(path: &std::ffi::CStr, bytes: &[u8]) -> Result<(), libc::c_int> {
    let fd = libc::open(path.as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC);
    if fd < 0 {
        return Err(errno());
    }
    let written = libc::write(fd, bytes.as_ptr().cast(), bytes.len());
    let failed = errno();
    libc::close(fd);
    if written < 0 {
        return Err(failed);
    }
    Ok(())
}

/// `SIOCGIFFLAGS` and `SIOCSIFFLAGS`: read and set an interface's flags.
const GET_FLAGS: libc::c_ulong = 0x8913;
const SET_FLAGS: libc::c_ulong = 0x8914;

/// `struct ifreq` as those two requests read it: the name, then the flags, in a
/// union of 24 bytes.
#[repr(C)]
struct InterfaceFlags {
    name: [u8; 16],
    flags: libc::c_short,
    _rest: [u8; 22],
}

/// Brings up `lo` in the current network namespace, which starts with it down.
unsafe fn loopback_up() -> Result<(), libc::c_int> {
    let socket = libc::socket(libc::AF_INET, libc::SOCK_DGRAM | libc::SOCK_CLOEXEC, 0);
    if socket < 0 {
        return Err(errno());
    }
    let mut request = InterfaceFlags {
        name: [0; 16],
        flags: 0,
        _rest: [0; 22],
    };
    request.name[0] = b'l';
    request.name[1] = b'o';
    let mut result = libc::ioctl(socket, GET_FLAGS, &mut request as *mut InterfaceFlags);
    if result == 0 {
        request.flags |= libc::IFF_UP as libc::c_short;
        result = libc::ioctl(socket, SET_FLAGS, &mut request as *mut InterfaceFlags);
    }
    let failed = errno();
    libc::close(socket);
    if result != 0 {
        return Err(failed);
    }
    Ok(())
}

/// Puts the Landlock ruleset `rules` in force for this process and what it starts.
unsafe fn restrict_self(rules: RawFd) -> Result<(), libc::c_int> {
    // Required of a process without CAP_SYS_ADMIN, and it keeps a set-uid program
    // started by the server from shedding the rules.
    if libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 {
        return Err(errno());
    }
    if libc::syscall(libc::SYS_landlock_restrict_self, rules, 0) != 0 {
        return Err(errno());
    }
    Ok(())
}

/// `struct landlock_path_beneath_attr` (packed, as the kernel has it).
#[repr(C, packed)]
struct PathBeneathRule {
    allowed_access: u64,
    parent_fd: i32,
}

/// `LANDLOCK_RULE_PATH_BENEATH`.
const RULE_PATH_BENEATH: libc::c_int = 1;

/// Adds to `rules` a rule granting `access` beneath the folder `at`: for a place
/// made after the ruleset was (the scratch tmpfs of a view), so only its init can
/// open it.
///
/// # Safety
/// Only between `fork` and `exec`, before `rules` is put in force.
pub(in crate::server) unsafe fn allow_writes_beneath(
    rules: RawFd,
    at: &std::ffi::CStr,
    access: u64,
) -> Result<(), libc::c_int> {
    let folder = libc::open(
        at.as_ptr(),
        libc::O_PATH | libc::O_DIRECTORY | libc::O_CLOEXEC,
    );
    if folder < 0 {
        return Err(errno());
    }
    let rule = PathBeneathRule {
        allowed_access: access,
        parent_fd: folder,
    };
    let added = libc::syscall(
        libc::SYS_landlock_add_rule,
        rules,
        RULE_PATH_BENEATH,
        &rule as *const PathBeneathRule,
        0,
    );
    let failed = errno();
    libc::close(folder);
    if added != 0 {
        return Err(failed);
    }
    Ok(())
}

/// Why the run's network namespace could not be made.
#[derive(Debug, thiserror::Error)]
pub(in crate::server) enum RunNamespaceError {
    /// Unsharing the network namespace (or setting up its loopback) failed.
    #[error("{0}")]
    Enter(#[source] std::io::Error),
    /// The namespace was made but could not be opened to keep.
    #[error("{0}")]
    Open(#[source] std::io::Error),
    /// The thread making it panicked.
    #[error("the thread making it failed")]
    ThreadFailed,
}

/// The run's network namespace: made by a thread of its own, which opens it and
/// ends, so no other thread of toolspec's is moved.
pub(in crate::server) fn make_run_namespace() -> Result<OwnedFd, RunNamespaceError> {
    let made = std::thread::spawn(|| {
        // SAFETY: system calls on this thread only.
        unsafe { enter_network(NetworkCut::Namespace) }
            .map_err(|errno| RunNamespaceError::Enter(std::io::Error::from_raw_os_error(errno)))?;
        std::fs::File::open("/proc/thread-self/ns/net")
            .map(OwnedFd::from)
            .map_err(RunNamespaceError::Open)
    });
    made.join().unwrap_or(Err(RunNamespaceError::ThreadFailed))
}

/// Whether this process may give a server a network namespace of its own, tried
/// the way a server's supervisor does it, in a child that exits at once: `Ok` or the
/// errno.
pub(in crate::server) fn try_network(cut: NetworkCut) -> Result<(), libc::c_int> {
    // SAFETY: the child only makes system calls and exits; the parent waits for it.
    unsafe { in_a_child(|| enter_network(cut)) }
}

/// Runs `probe` in a child that exits at once, and says how it went: `Ok` or the
/// errno it ended with.
///
/// # Safety
/// `probe` only makes system calls (it runs in a fork of this process).
pub(in crate::server) unsafe fn in_a_child(
    probe: impl FnOnce() -> Result<(), libc::c_int>,
) -> Result<(), libc::c_int> {
    let pid = libc::fork();
    if pid < 0 {
        return Err(errno());
    }
    if pid == 0 {
        libc::_exit(exit_code(probe()));
    }
    wait_code(pid)
}

/// An exit code for a probe's result: 0, or the errno (1 to 125).
pub(in crate::server) fn exit_code(result: Result<(), libc::c_int>) -> libc::c_int {
    match result {
        Ok(()) => 0,
        Err(errno) => errno.clamp(1, 125),
    }
}

/// Waits for the probe child `pid`: `Ok` if it exited 0, else its errno.
///
/// # Safety
/// `pid` is a child of this process that nothing else reaps.
pub(in crate::server) unsafe fn wait_code(pid: libc::pid_t) -> Result<(), libc::c_int> {
    let mut status = 0;
    if libc::waitpid(pid, &mut status, 0) != pid {
        return Err(errno());
    }
    match libc::WIFEXITED(status).then(|| libc::WEXITSTATUS(status)) {
        Some(0) => Ok(()),
        Some(code) => Err(code),
        None => Err(libc::ECHILD),
    }
}

/// What the init puts in force before it starts the server.
pub(in crate::server) struct Inside<'a> {
    pub(in crate::server) view: &'a ViewPlan,
    /// What of the view is made in the namespace the init copies.
    pub(in crate::server) made: Made,
    /// The Landlock ruleset, entered after the view is made.
    pub(in crate::server) rules: Option<RawFd>,
    /// No capabilities and the seccomp filter, last of all.
    pub(in crate::server) hardened: bool,
}

/// Closes every descriptor from `first` up, except `keep` and `keep_too` (the same
/// one, or a larger one).
pub(in crate::server) unsafe fn close_from(first: RawFd, keep: RawFd, keep_too: RawFd) {
    let ranges = [
        (first, keep.saturating_sub(1)),
        (keep.saturating_add(1), keep_too.saturating_sub(1)),
        (keep_too.saturating_add(1), RawFd::MAX),
    ];
    for (low, high) in ranges {
        if low > high {
            continue;
        }
        let closed = libc::syscall(
            libc::SYS_close_range,
            low as libc::c_uint,
            high as libc::c_uint,
            0,
        );
        if closed != 0 {
            // No close_range (Linux before 5.9): close one by one up to the limit.
            let mut limit: libc::rlimit = std::mem::zeroed();
            let top = if libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) == 0 {
                limit.rlim_cur.min(65_536) as RawFd
            } else {
                1024
            };
            let mut fd = low;
            while fd <= high && fd < top {
                libc::close(fd);
                fd += 1;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::self_map;

    #[test]
    fn an_id_is_mapped_to_itself() {
        for (id, line) in [
            (0u32, "0 0 1"),
            (1000, "1000 1000 1"),
            (u32::MAX, "4294967295 4294967295 1"),
        ] {
            let (bytes, length) = self_map(id);
            assert_eq!(std::str::from_utf8(&bytes[..length]), Ok(line));
        }
    }
}
