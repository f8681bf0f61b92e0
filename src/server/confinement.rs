//! What the process that becomes a server's supervisor enters before it starts the
//! server: the run's network namespace (with only a loopback, brought up; made once
//! per run, since making one per server cost more CPU than everything else
//! isolation does, and its teardown holds the kernel's network lock), or one of its
//! own in a user namespace of its own, and the server's Landlock rules
//! (`sandbox.rs`). Both bind the supervisor and every
//! process it starts, so the server inherits them and cannot leave them.
//!
//! It runs between `fork` and `exec` (std's `pre_exec` hook, or the spawner's
//! child), where nothing may allocate: everything here is raw system calls on stack
//! buffers, and an error is an `errno`.

use std::os::fd::{AsRawFd, OwnedFd, RawFd};

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
}

impl NetworkCut {
    /// As one word, for the spawner's request.
    pub(super) fn word(self) -> u32 {
        match self {
            NetworkCut::Open => 0,
            NetworkCut::Namespace => 1,
            NetworkCut::UserNamespace => 2,
        }
    }

    /// Back from [`NetworkCut::word`].
    pub(super) fn from_word(word: u32) -> Option<NetworkCut> {
        match word {
            0 => Some(NetworkCut::Open),
            1 => Some(NetworkCut::Namespace),
            2 => Some(NetworkCut::UserNamespace),
            _ => None,
        }
    }
}

/// What one server's supervisor enters before it starts the server.
pub(super) struct Confinement {
    pub(super) network: NetworkCut,
    /// The run's network namespace, joined under [`NetworkCut::Namespace`].
    pub(super) namespace: Option<&'static OwnedFd>,
    /// A Landlock ruleset (`sandbox.rs`), put in force for the supervisor and all it
    /// starts; `None` when the server writes and reads as toolspec does.
    pub(super) rules: Option<OwnedFd>,
}

impl Confinement {
    /// Nothing at all: the server runs as toolspec does.
    pub(super) fn none() -> Confinement {
        Confinement {
            network: NetworkCut::Open,
            namespace: None,
            rules: None,
        }
    }

    /// Enters the network namespace, then the Landlock rules (in that order: a
    /// process under Landlock may still make namespaces, but the uid map of a user
    /// namespace is written through `/proc`, which the rules could deny).
    ///
    /// # Safety
    /// Only in a process of its own between `fork` and `exec`: it only makes system
    /// calls and does not allocate.
    pub(super) unsafe fn enter(&self) -> Result<(), libc::c_int> {
        enter(
            self.network,
            self.namespace.map(AsRawFd::as_raw_fd),
            self.rules.as_ref().map(AsRawFd::as_raw_fd),
        )
    }
}

/// [`Confinement::enter`] from its parts, as the spawner's child has them.
///
/// # Safety
/// As [`Confinement::enter`], with `namespace` an open network namespace and `rules`
/// an open Landlock ruleset.
pub(super) unsafe fn enter(
    network: NetworkCut,
    namespace: Option<RawFd>,
    rules: Option<RawFd>,
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
    if let Some(rules) = rules {
        restrict_self(rules)?;
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
pub(super) unsafe fn enter_network(cut: NetworkCut) -> Result<(), libc::c_int> {
    match cut {
        NetworkCut::Open => return Ok(()),
        NetworkCut::Namespace => {
            if libc::unshare(libc::CLONE_NEWNET) != 0 {
                return Err(errno());
            }
        }
        NetworkCut::UserNamespace => {
            let (uid, gid) = (libc::getuid(), libc::getgid());
            if libc::unshare(libc::CLONE_NEWUSER | libc::CLONE_NEWNET) != 0 {
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

/// The run's network namespace: made by a thread of its own, which opens it and
/// ends, so no other thread of toolspec's is moved.
pub(super) fn make_run_namespace() -> Result<OwnedFd, String> {
    let made = std::thread::spawn(|| {
        // SAFETY: system calls on this thread only.
        unsafe { enter_network(NetworkCut::Namespace) }
            .map_err(|errno| std::io::Error::from_raw_os_error(errno).to_string())?;
        std::fs::File::open("/proc/thread-self/ns/net")
            .map(OwnedFd::from)
            .map_err(|e| e.to_string())
    });
    made.join()
        .unwrap_or_else(|_| Err("the thread making it failed".to_string()))
}

/// Whether this process may give a server a network namespace of its own, tried
/// the way a server's supervisor does it, in a child that exits at once: `Ok` or the
/// errno.
pub(super) fn try_network(cut: NetworkCut) -> Result<(), libc::c_int> {
    // SAFETY: the child only makes system calls and exits; the parent waits for it.
    unsafe {
        let pid = libc::fork();
        if pid < 0 {
            return Err(errno());
        }
        if pid == 0 {
            let code = match enter_network(cut) {
                Ok(()) => 0,
                Err(e) => e.clamp(1, 125),
            };
            libc::_exit(code);
        }
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
