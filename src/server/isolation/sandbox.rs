//! The Landlock rules of one server: where it may write, what of the real home it
//! may read, and (where a network namespace cannot be had) which TCP port it may
//! bind and connect to.
//!
//! A server that writes outside its fixture root (to the user's home, to the
//! repository it was started from) goes unnoticed otherwise: no expectation looks
//! there. Under these rules the server (and everything it starts) is denied every
//! write outside a few places, so such a write fails in the server, where the
//! scenario sees it. Writes are allowed in the fixture root, in a scratch folder
//! beside it (never inside it, so a listing of the root shows only what the
//! scenario built), which holds the server's `TMPDIR` and private home, in the
//! target's extra `isolation.writable` paths, and on the character devices every
//! process writes to (`/dev/null` and the like).
//!
//! Reads are allowed everywhere but in the real home (`home_view.rs`), where only
//! the folders a server needs to run are readable.
//!
//! The rules are made in toolspec (opening the allowed paths allocates) and put in
//! force in the child between `fork` and `exec` (`confinement.rs`), which only
//! makes system calls.

use std::io;
use std::os::fd::{AsFd, OwnedFd};
use std::path::{Path, PathBuf};

use landlock::{
    Access, AccessFs, AccessNet, BitFlags, NetPort, PathBeneath, PathFd, Ruleset, RulesetAttr,
    RulesetCreatedAttr, Scope, ABI,
};

use super::home_view::{is_dir, HomeView};

/// The Landlock ABI whose write rights are handled: V4 (Linux 6.7) adds truncation
/// to V1's writes and V2's cross-folder links; later ones add device `ioctl`, which
/// would deny a terminal's ordinary use, so they are left out. On an older kernel
/// the crate enforces what it can (best effort).
const WRITE_ABI: ABI = ABI::V4;

/// Devices any process may write to, wherever it runs.
const WRITABLE_DEVICES: &[&str] = &["/dev/null", "/dev/zero", "/dev/full", "/dev/tty"];

/// What one server's rules allow.
pub(in crate::server) struct RulesFor<'a> {
    /// The fixture root and the scratch folder, then any extra writable paths.
    pub(in crate::server) writable: Vec<&'a Path>,
    /// The real home, hidden but for what the server needs; `None` leaves reads
    /// alone.
    pub(in crate::server) home: Option<(&'a HomeView, Vec<PathBuf>)>,
    /// `Some` when TCP is cut by port: the one port the server may bind and
    /// connect to (`None`: none).
    pub(in crate::server) tcp_port: Option<Option<u16>>,
}

/// The write rights a ruleset handles on a kernel of Landlock ABI `abi`, as the
/// kernel's bits: what a rule on a folder the server may write grants, where the
/// rule is added in the server's init (`confinement::allow_writes_beneath`).
pub(in crate::server) fn write_rights(abi: i32) -> u64 {
    (AccessFs::from_write(WRITE_ABI) & AccessFs::from_all(ABI::from(abi))).bits()
}

/// The ruleset for `rules`, as a descriptor the child puts in force.
pub(in crate::server) fn ruleset(rules: &RulesFor) -> io::Result<OwnedFd> {
    let writes = AccessFs::from_write(WRITE_ABI);
    let reads = AccessFs::from_read(WRITE_ABI);
    let handled_fs = if rules.home.is_some() {
        reads | writes
    } else {
        writes
    };
    let mut ruleset = Ruleset::default()
        .handle_access(handled_fs)
        .map_err(io::Error::other)?;
    if rules.tcp_port.is_some() {
        ruleset = ruleset
            .handle_access(AccessNet::BindTcp | AccessNet::ConnectTcp)
            .map_err(io::Error::other)?;
    }
    // Signals and abstract Unix sockets (ABI 6, Linux 6.12) stay within the server's
    // own processes: it cannot signal toolspec or another program of the user's, nor
    // reach a desktop's or a daemon's abstract socket (best effort on older kernels).
    ruleset = ruleset
        .scope(Scope::Signal | Scope::AbstractUnixSocket)
        .map_err(io::Error::other)?;
    let mut created = ruleset.create().map_err(io::Error::other)?;
    let writable = rules
        .writable
        .iter()
        .copied()
        .chain(WRITABLE_DEVICES.iter().map(Path::new));
    for path in writable {
        // A missing extra path is no error: nothing there to write to.
        let Ok(fd) = PathFd::new(path) else { continue };
        let kind = is_dir(&fd);
        created = created
            .add_rule(PathBeneath::new(fd, fitted(handled_fs, kind)))
            .map_err(io::Error::other)?;
    }
    if let Some((home, needed)) = &rules.home {
        for (fd, kind) in home.outside() {
            created = created
                .add_rule(PathBeneath::new(fd.as_fd(), fitted(reads, *kind)))
                .map_err(io::Error::other)?;
        }
        for path in needed {
            let Ok(fd) = PathFd::new(path) else { continue };
            let kind = is_dir(&fd);
            created = created
                .add_rule(PathBeneath::new(fd, fitted(reads, kind)))
                .map_err(io::Error::other)?;
        }
    }
    if let Some(Some(port)) = rules.tcp_port {
        created = created
            .add_rule(NetPort::new(
                port,
                AccessNet::BindTcp | AccessNet::ConnectTcp,
            ))
            .map_err(io::Error::other)?;
    }
    Option::<OwnedFd>::from(created)
        .ok_or_else(|| io::Error::other("this kernel made no Landlock ruleset"))
}

/// `access` as a rule on a file (not a folder) may hold it.
fn fitted(access: BitFlags<AccessFs>, folder: bool) -> BitFlags<AccessFs> {
    if folder {
        access
    } else {
        access & AccessFs::from_file(WRITE_ABI)
    }
}

/// Why Landlock is not there.
#[derive(Debug, thiserror::Error)]
pub(crate) enum NoLandlock {
    /// The kernel was built without it.
    #[error("this kernel has no Landlock")]
    NotBuiltIn,
    /// Built in, but not among the security modules turned on.
    #[error("Landlock is turned off on this kernel")]
    TurnedOff,
    /// Any other answer to asking its ABI version.
    #[error("Landlock answers {0}")]
    Answers(#[source] io::Error),
}

/// The Landlock ABI of this kernel (0: none), or why Landlock is not there.
pub(crate) fn landlock_abi() -> Result<i32, NoLandlock> {
    const VERSION: libc::c_uint = 1;
    // SAFETY: asks the kernel its ABI version; no memory is passed.
    let abi = unsafe {
        libc::syscall(
            libc::SYS_landlock_create_ruleset,
            std::ptr::null::<libc::c_void>(),
            0usize,
            VERSION,
        )
    };
    if abi > 0 {
        return Ok(i32::try_from(abi).unwrap_or(i32::MAX));
    }
    let why = io::Error::last_os_error();
    Err(match why.raw_os_error() {
        Some(libc::ENOSYS) => NoLandlock::NotBuiltIn,
        Some(libc::EOPNOTSUPP) => NoLandlock::TurnedOff,
        _ => NoLandlock::Answers(why),
    })
}
