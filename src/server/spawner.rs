//! The spawner: a small process forked from toolspec as it starts, before it has
//! loaded a suite or started a thread, that forks each server's supervisor on
//! toolspec's behalf.
//!
//! Why: a supervisor forked from toolspec itself copies the page tables of all of
//! toolspec's memory (20 MiB once suites are loaded and scenarios are in flight)
//! and marks every page of it copy-on-write, so toolspec's next writes fault, and,
//! with its other threads on the other cores, flush their TLBs by interrupt. `perf`
//! over `toolspec run` put about a third of toolspec's own CPU per scenario there.
//! The spawner's memory is what toolspec's was at its first line, and it runs one
//! thread, so forking it costs little and disturbs no one.
//!
//! The supervisor is forked with `CLONE_PARENT`: it is toolspec's child, as when
//! toolspec forks it, so toolspec waits for it, reads its status, and is the
//! subreaper its escaped processes come to. The spawner never has a child.
//!
//! The exchange, over a `SOCK_SEQPACKET` socket pair: toolspec sends one message
//! per supervisor (the folder, the paths to try, argv and the environment, with the
//! server's stdin, stdout and stderr and the supervisor's end of the control socket
//! passed along as descriptors); the spawner answers with the supervisor's pid, or
//! a negative `errno`. Whether the server's exec worked the supervisor says on the
//! control socket (`supervisor::supervise_for_spawner`).
//!
//! Where there is no spawner (it was not started while toolspec ran one thread, or
//! the kernel has no pidfds to wait on a child with), or a request does not fit in
//! one message, toolspec forks the supervisor itself, as before.

use std::ffi::CString;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::sync::{Mutex, MutexGuard};

use super::control_word::{receive_word, send_word};
use super::isolation::confinement::{self, Confinement, Hardening, NetworkCut, Parts};
use super::isolation::view_enter::Made;
use super::isolation::view_plan::ViewPlan;
use super::isolation::view_template::{self, ViewTemplates};
use super::proc_stat;
use super::server_exec::ServerExec;
use super::supervisor::{settle, supervise_for_spawner};

/// The descriptors a supervisor is handed, in this order: the server's stdin,
/// stdout and stderr, and the supervisor's end of the control socket.
pub(super) const HANDED: usize = 4;

/// The first bytes of a request, so that nothing else is taken for one.
const MAGIC: [u8; 4] = *b"tsp3";

/// The most cgroups a supervisor joins: cgroup v1 has one hierarchy for processes
/// and one for memory.
const MOST_CGROUPS: usize = 2;

/// At most four descriptors more than [`HANDED`]: the run's network namespace, the
/// Landlock ruleset and the server's cgroups the supervisor enters
/// (`confinement.rs`), in that order.
const MOST_HANDED: usize = HANDED + 2 + MOST_CGROUPS;

/// Set in a request's network word when a Landlock ruleset is handed along.
const WITH_RULES: u32 = 1 << 8;

/// Set in a request's network word when the supervisor is hardened (a session of
/// its own, no capabilities, the seccomp filter).
const HARDENED: u32 = 1 << 9;

/// The largest request: a `SOCK_SEQPACKET` message must fit the socket's buffer,
/// which the kernel bounds (`net.core.wmem_max`); a larger one is forked directly.
const LARGEST_REQUEST: usize = 1 << 20;

/// Set (to anything), toolspec forks every supervisor itself: to compare the two
/// ways, or to rule the spawner out when a server will not start.
pub(crate) const NO_SPAWNER_ENV: &str = "TOOLSPEC_NO_SPAWNER";

/// toolspec's end of the spawner's socket, and the spawner's pid.
struct Spawner {
    socket: OwnedFd,
    pid: libc::pid_t,
}

static SPAWNER: Mutex<Option<Spawner>> = Mutex::new(None);

fn spawner() -> MutexGuard<'static, Option<Spawner>> {
    SPAWNER
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Starts the spawner, if this process runs one thread (forking a process that
/// runs others would leave the child with their locks held) and the kernel has
/// pidfds. Its pid, also when it was started before; `None` when there is none.
pub(super) fn start() -> Option<libc::pid_t> {
    let mut spawner = spawner();
    if std::env::var_os(NO_SPAWNER_ENV).is_some() {
        return None;
    }
    if let Some(running) = spawner.as_ref() {
        return Some(running.pid);
    }
    if threads_of_this_process() != Some(1) || !pidfds_work() {
        return None;
    }
    let (ours, theirs) = seqpacket_pair().ok()?;
    // SAFETY: toolspec runs one thread, so the child may do anything; it never
    // returns to toolspec's code.
    let parent = unsafe { libc::getpid() };
    match unsafe { libc::fork() } {
        -1 => None,
        0 => unsafe { serve(theirs.as_raw_fd(), parent) },
        pid => {
            drop(theirs);
            *spawner = Some(Spawner { socket: ours, pid });
            Some(pid)
        }
    }
}

/// Whether there is a spawner to ask.
pub(super) fn running() -> bool {
    spawner().is_some()
}

/// Ends the spawner, if there is one: it exits when its socket closes. Its pid, to
/// be reaped.
pub(super) fn stop() -> Option<libc::pid_t> {
    spawner().take().map(|stopped| stopped.pid)
}

/// Asks the spawner for a supervisor of `exec` in `cwd`, handed `fds`; its pid.
/// `None` when there is no spawner, it has gone, or the request is too large for
/// it: then toolspec forks the supervisor itself.
pub(super) fn spawn(
    exec: &ServerExec,
    cwd: &Path,
    fds: [&OwnedFd; HANDED],
    confinement: &Confinement,
) -> Option<io::Result<libc::pid_t>> {
    let mut spawner = spawner();
    let socket = spawner.as_ref()?.socket.as_raw_fd();
    let request = encode(exec, cwd, confinement)?;
    let mut handed: Vec<RawFd> = fds.iter().map(|fd| fd.as_raw_fd()).collect();
    handed.extend(confinement.namespace.map(AsRawFd::as_raw_fd));
    handed.extend(confinement.rules.as_ref().map(AsRawFd::as_raw_fd));
    handed.extend(confinement.cgroups.iter().copied());
    match send_with_fds(socket, &request, &handed) {
        Ok(()) => {}
        Err(e) if e.raw_os_error() == Some(libc::EMSGSIZE) => return None,
        Err(_) => {
            // The spawner is gone (or its socket broke): fork directly from now on.
            *spawner = None;
            return None;
        }
    }
    let Some(answer) = receive_word(socket) else {
        *spawner = None;
        return None;
    };
    Some(if answer > 0 {
        Ok(answer)
    } else {
        Err(io::Error::from_raw_os_error(-answer))
    })
}

/// The request for `exec` in `cwd` under `confinement`: [`MAGIC`], the number of
/// paths, of argv's strings and of the environment's, the network cut with its
/// flags, the number of cgroups (each four bytes, this machine's order) and the file
/// size limit (eight bytes, 0 for none), then the folder and every string, each
/// ended by a NUL. `None` if the folder has a NUL in it or the whole is too large
/// for one message.
fn encode(exec: &ServerExec, cwd: &Path, confinement: &Confinement) -> Option<Vec<u8>> {
    let cwd = CString::new(cwd.as_os_str().as_bytes()).ok()?;
    let (candidates, argv, envp) = exec.parts();
    if confinement.cgroups.len() > MOST_CGROUPS {
        return None;
    }
    let mut request = MAGIC.to_vec();
    for count in [candidates.len(), argv.len(), envp.len()] {
        request.extend_from_slice(&u32::try_from(count).ok()?.to_ne_bytes());
    }
    let word = confinement.network.word()
        | if confinement.rules.is_some() {
            WITH_RULES
        } else {
            0
        }
        | if confinement.hardening.is_some() {
            HARDENED
        } else {
            0
        };
    request.extend_from_slice(&word.to_ne_bytes());
    request.extend_from_slice(&u32::try_from(confinement.cgroups.len()).ok()?.to_ne_bytes());
    let file_bytes = confinement
        .hardening
        .and_then(|h| h.file_bytes)
        .unwrap_or(0);
    request.extend_from_slice(&file_bytes.to_ne_bytes());
    let view = confinement
        .view
        .as_ref()
        .map(ViewPlan::to_strings)
        .unwrap_or_default();
    request.extend_from_slice(&u32::try_from(view.len()).ok()?.to_ne_bytes());
    for string in std::iter::once(&cwd)
        .chain(candidates)
        .chain(argv)
        .chain(envp)
        .chain(&view)
    {
        request.extend_from_slice(string.as_bytes_with_nul());
        if request.len() > LARGEST_REQUEST {
            return None;
        }
    }
    Some(request)
}

/// A request read back: the folder, the confinement and the exec.
struct Request {
    cwd: CString,
    network: NetworkCut,
    /// Whether a Landlock ruleset comes with it (after the namespace, if any).
    rules: bool,
    hardening: Option<Hardening>,
    /// How many cgroups' `cgroup.procs` come with it (after the ruleset).
    cgroups: usize,
    view: Option<ViewPlan>,
    candidates: Vec<CString>,
    strings: Vec<CString>,
    argc: usize,
}

impl Request {
    /// How many descriptors come with it: the four handed to every supervisor, the
    /// run's network namespace when it joins it, its Landlock ruleset and cgroups.
    fn descriptors(&self) -> usize {
        HANDED
            + usize::from(self.network == NetworkCut::Namespace)
            + usize::from(self.rules)
            + self.cgroups
    }
}

/// The request in `bytes`, if it is one.
fn decode(bytes: &[u8]) -> Option<Request> {
    let rest = bytes.strip_prefix(&MAGIC)?;
    let count = |at: usize| -> Option<usize> {
        let field: [u8; 4] = rest.get(at..at + 4)?.try_into().ok()?;
        usize::try_from(u32::from_ne_bytes(field)).ok()
    };
    let (paths, argc, envc) = (count(0)?, count(4)?, count(8)?);
    let word = u32::try_from(count(12)?).ok()?;
    let network = NetworkCut::from_word(word & !(WITH_RULES | HARDENED))?;
    let rules = word & WITH_RULES != 0;
    let cgroups = count(16)?;
    let file_bytes: [u8; 8] = rest.get(20..28)?.try_into().ok()?;
    let file_bytes = u64::from_ne_bytes(file_bytes);
    let hardening = (word & HARDENED != 0).then_some(Hardening {
        file_bytes: (file_bytes != 0).then_some(file_bytes),
    });
    if cgroups > MOST_CGROUPS {
        return None;
    }
    let viewc = count(28)?;
    let mut strings = rest
        .get(32..)?
        .split_inclusive(|&b| b == 0)
        .map(|s| CString::from_vec_with_nul(s.to_vec()).ok());
    let cwd = strings.next()??;
    let candidates = strings.by_ref().take(paths).collect::<Option<Vec<_>>>()?;
    let mut strings = strings.collect::<Option<Vec<_>>>()?;
    let exec_strings = argc.checked_add(envc)?;
    if candidates.len() != paths || strings.len() != exec_strings.checked_add(viewc)? {
        return None;
    }
    let view = strings.split_off(exec_strings);
    let view = if view.is_empty() {
        None
    } else {
        Some(ViewPlan::from_strings(&view)?)
    };
    Some(Request {
        cwd,
        network,
        rules,
        hardening,
        cgroups,
        view,
        candidates,
        strings,
        argc,
    })
}

/// The spawner's life: a supervisor forked for each request, until toolspec's end
/// of the socket closes (or toolspec dies).
///
/// # Safety
/// Only in the child just forked from a process that ran one thread.
unsafe fn serve(socket: RawFd, parent: libc::pid_t) -> ! {
    libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL, 0, 0, 0);
    if libc::getppid() != parent {
        libc::_exit(0);
    }
    // Nothing of toolspec's is held open here (not its stdout, a pipe someone waits
    // to end), and a Ctrl-C, which reaches toolspec's whole process group, is
    // toolspec's to wind the run up with: this process ends when toolspec does.
    settle(socket, socket);
    let mut buffer = vec![0u8; LARGEST_REQUEST];
    let mut templates = ViewTemplates::new();
    loop {
        let (length, fds) = match receive_with_fds(socket, &mut buffer) {
            Ok(Some(received)) => received,
            Ok(None) => libc::_exit(0),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) if e.raw_os_error() == Some(libc::EMSGSIZE) => {
                // Cut short, its descriptors closed: refused, and the next one read.
                send_word(socket, -libc::EMSGSIZE);
                continue;
            }
            Err(_) => libc::_exit(1),
        };
        let reply = match (buffer.get(..length).and_then(decode), fds.len()) {
            (Some(request), count) if count == request.descriptors() => {
                if request.hardening.is_some() {
                    // Compiled here, once, so each supervisor only installs it.
                    let _ = super::isolation::syscall_filter::filter();
                }
                let made = match &request.view {
                    Some(view)
                        if request.hardening.is_some()
                            && view_template::can_serve(request.network)
                            && templates.enter_for(view) =>
                    {
                        Made::Shared
                    }
                    _ => {
                        if !templates.leave() {
                            // Stuck in a template's namespace: toolspec forks
                            // every supervisor itself from now on.
                            libc::_exit(1);
                        }
                        Made::Nothing
                    }
                };
                fork_supervisor(&request, &fds, made)
            }
            _ => -libc::EINVAL,
        };
        // The supervisor has its copies; these are toolspec's to close.
        drop(fds);
        // The answer: the supervisor's pid, or `-errno`.
        send_word(socket, reply);
    }
}

/// Forks the supervisor of `request` as toolspec's child; its pid or `-errno`.
///
/// # Safety
/// Only in the spawner, which runs one thread.
unsafe fn fork_supervisor(request: &Request, fds: &[OwnedFd], made: Made) -> libc::pid_t {
    // Like fork, but the child's parent is toolspec, and toolspec gets its SIGCHLD.
    let pid = libc::syscall(
        libc::SYS_clone,
        libc::CLONE_PARENT | libc::SIGCHLD,
        0,
        0,
        0,
        0,
    );
    if pid < 0 {
        return -*libc::__errno_location();
    }
    if pid == 0 {
        become_supervisor(request, fds, made);
    }
    libc::pid_t::try_from(pid).unwrap_or(-libc::EOVERFLOW)
}

/// In the forked child: what std's spawn sets up for a child (its own process
/// group, the folder, the pipes on 0, 1 and 2, signals at their defaults and none
/// blocked), then the supervisor's life. Never returns.
unsafe fn become_supervisor(request: &Request, fds: &[OwnedFd], made: Made) -> ! {
    let [stdin, stdout, stderr, control, extra @ ..] = fds else {
        libc::_exit(127)
    };
    let joins = request.network == NetworkCut::Namespace;
    let namespace = if joins {
        extra.first().map(AsRawFd::as_raw_fd)
    } else {
        None
    };
    let rules = if request.rules {
        extra.get(usize::from(joins)).map(AsRawFd::as_raw_fd)
    } else {
        None
    };
    let mut cgroups = [0 as RawFd; MOST_CGROUPS];
    let first_cgroup = usize::from(joins) + usize::from(request.rules);
    let mut joined = 0;
    for (slot, fd) in cgroups
        .iter_mut()
        .zip(extra.iter().skip(first_cgroup).take(request.cgroups))
    {
        *slot = fd.as_raw_fd();
        joined += 1;
    }
    let control = control.as_raw_fd();
    let fail = |errno: libc::c_int| -> ! {
        send_word(control, errno);
        libc::_exit(127)
    };
    // A hardened supervisor gets a session of its own instead (`confinement.rs`),
    // which also makes it a group's leader.
    let grouped = request.hardening.is_some() || libc::setpgid(0, 0) == 0;
    if !grouped || libc::chdir(request.cwd.as_ptr()) != 0 {
        fail(*libc::__errno_location());
    }
    for (fd, onto) in [(stdin, 0), (stdout, 1), (stderr, 2)] {
        if libc::dup2(fd.as_raw_fd(), onto) < 0 {
            fail(*libc::__errno_location());
        }
    }
    for signal in [
        libc::SIGINT,
        libc::SIGTERM,
        libc::SIGHUP,
        libc::SIGQUIT,
        libc::SIGPIPE,
    ] {
        libc::signal(signal, libc::SIG_DFL);
    }
    let mut none = std::mem::zeroed::<libc::sigset_t>();
    libc::sigemptyset(&mut none);
    libc::sigprocmask(libc::SIG_SETMASK, &none, std::ptr::null_mut());
    // Before the supervisor starts the server: both are under it.
    let parts = Parts {
        network: request.network,
        namespace,
        rules,
        hardening: request.hardening,
        cgroups: cgroups.get(..joined).unwrap_or_default(),
        view: request.view.as_ref(),
        made,
    };
    if let Err(errno) = confinement::enter(&parts) {
        fail(errno);
    }
    let mut exec = ServerExec::from_parts(
        request.candidates.clone(),
        request.strings.clone(),
        request.argc,
    );
    supervise_for_spawner(control, &mut exec, parts.inside().as_ref())
}

/// How many threads this process runs, from `/proc/self/stat`.
fn threads_of_this_process() -> Option<usize> {
    // The state is field 3, the first after the name, and the thread count field 20.
    proc_stat::after_name("self")?
        .split_whitespace()
        .nth(17)?
        .parse()
        .ok()
}

/// Whether this kernel opens pidfds (Linux 5.3), which toolspec waits on a
/// supervisor it did not fork itself with.
fn pidfds_work() -> bool {
    // SAFETY: pidfd_open of this process; the descriptor is owned at once.
    let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, libc::getpid(), 0) };
    match RawFd::try_from(fd) {
        Ok(fd) if fd >= 0 => {
            // SAFETY: a descriptor just opened, owned by nothing else.
            drop(unsafe { OwnedFd::from_raw_fd(fd) });
            true
        }
        _ => false,
    }
}

/// A connected `SOCK_SEQPACKET` pair, closed on exec, with room in the first end's
/// send buffer for the largest request the kernel allows.
fn seqpacket_pair() -> io::Result<(OwnedFd, OwnedFd)> {
    let mut ends = [0; 2];
    // SAFETY: socketpair writes two descriptors into `ends`, which are then owned.
    unsafe {
        if libc::socketpair(
            libc::AF_UNIX,
            libc::SOCK_SEQPACKET | libc::SOCK_CLOEXEC,
            0,
            ends.as_mut_ptr(),
        ) != 0
        {
            return Err(io::Error::last_os_error());
        }
        let size = libc::c_int::try_from(LARGEST_REQUEST).unwrap_or(libc::c_int::MAX);
        libc::setsockopt(
            ends[0],
            libc::SOL_SOCKET,
            libc::SO_SNDBUF,
            (&size as *const libc::c_int).cast(),
            std::mem::size_of::<libc::c_int>() as libc::socklen_t,
        );
        Ok((OwnedFd::from_raw_fd(ends[0]), OwnedFd::from_raw_fd(ends[1])))
    }
}

/// Room for the control message that carries [`MOST_HANDED`] descriptors.
fn control_room() -> usize {
    // SAFETY: CMSG_SPACE only computes a size.
    unsafe { libc::CMSG_SPACE((MOST_HANDED * std::mem::size_of::<RawFd>()) as u32) as usize }
}

/// A message header over the one buffer `part` and the control buffer `room`,
/// which must both outlive its use.
fn message_header(part: &mut libc::iovec, room: &mut [u8]) -> libc::msghdr {
    // SAFETY: msghdr is plain data, for which all zeroes is a valid value.
    let mut message = unsafe { std::mem::zeroed::<libc::msghdr>() };
    message.msg_iov = part;
    message.msg_iovlen = 1;
    message.msg_control = room.as_mut_ptr().cast();
    message.msg_controllen = room.len() as _;
    message
}

/// Sends `bytes` as one message with `fds` passed along.
fn send_with_fds(socket: RawFd, bytes: &[u8], fds: &[RawFd]) -> io::Result<()> {
    let mut room = vec![0u8; control_room()];
    let mut part = libc::iovec {
        iov_base: bytes.as_ptr() as *mut libc::c_void,
        iov_len: bytes.len(),
    };
    let mut message = message_header(&mut part, &mut room);
    // SAFETY: the header, iovec and control buffer live through the call; the
    // cmsg macros stay within `room`, which CMSG_SPACE sized for `fds`.
    unsafe {
        // Exactly the room these descriptors take, however many there are.
        message.msg_controllen = libc::CMSG_SPACE(std::mem::size_of_val(fds) as u32) as _;
        let header = libc::CMSG_FIRSTHDR(&message);
        if header.is_null() {
            return Err(io::Error::from_raw_os_error(libc::EINVAL));
        }
        (*header).cmsg_level = libc::SOL_SOCKET;
        (*header).cmsg_type = libc::SCM_RIGHTS;
        (*header).cmsg_len = libc::CMSG_LEN(std::mem::size_of_val(fds) as u32) as _;
        std::ptr::copy_nonoverlapping(
            fds.as_ptr().cast::<u8>(),
            libc::CMSG_DATA(header),
            std::mem::size_of_val(fds),
        );
        if libc::sendmsg(socket, &message, libc::MSG_NOSIGNAL) < 0 {
            return Err(io::Error::last_os_error());
        }
    }
    Ok(())
}

/// Receives one message into `buffer`: its length and the descriptors passed with
/// it (closed on exec); `None` at the end of the socket. A message cut short (too
/// long, or too many descriptors) is an error, its descriptors closed.
fn receive_with_fds(socket: RawFd, buffer: &mut [u8]) -> io::Result<Option<(usize, Vec<OwnedFd>)>> {
    let mut room = vec![0u8; control_room()];
    let mut part = libc::iovec {
        iov_base: buffer.as_mut_ptr().cast(),
        iov_len: buffer.len(),
    };
    let mut message = message_header(&mut part, &mut room);
    // SAFETY: as in `send_with_fds`; every descriptor the kernel wrote into `room`
    // is owned at once.
    unsafe {
        let length = libc::recvmsg(socket, &mut message, libc::MSG_CMSG_CLOEXEC);
        if length < 0 {
            return Err(io::Error::last_os_error());
        }
        let mut fds = Vec::new();
        let mut header = libc::CMSG_FIRSTHDR(&message);
        while !header.is_null() {
            if (*header).cmsg_level == libc::SOL_SOCKET && (*header).cmsg_type == libc::SCM_RIGHTS {
                let data = libc::CMSG_DATA(header);
                let bytes = ((*header).cmsg_len as usize)
                    .saturating_sub(data.offset_from(header.cast::<u8>()) as usize);
                for i in 0..bytes / std::mem::size_of::<RawFd>() {
                    let fd = std::ptr::read_unaligned(data.cast::<RawFd>().add(i));
                    fds.push(OwnedFd::from_raw_fd(fd));
                }
            }
            header = libc::CMSG_NXTHDR(&message, header);
        }
        if length == 0 && fds.is_empty() {
            return Ok(None);
        }
        if message.msg_flags & (libc::MSG_TRUNC | libc::MSG_CTRUNC) != 0 {
            return Err(io::Error::from_raw_os_error(libc::EMSGSIZE));
        }
        Ok(Some((length as usize, fds)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_request_reads_back_as_it_was_written() {
        let exec = ServerExec::new(
            Path::new("/bin/echo"),
            &["one".to_string(), String::new()],
            true,
            [(
                std::ffi::OsStr::new("TOOLSPEC_X"),
                std::ffi::OsStr::new("y"),
            )],
        )
        .expect("exec");
        let rules = std::fs::File::open("/").expect("a descriptor");
        let confinement = Confinement {
            network: NetworkCut::Namespace,
            namespace: None,
            rules: Some(rules.into()),
            hardening: Some(Hardening {
                file_bytes: Some(1 << 30),
            }),
            cgroups: vec![7, 8],
            view: None,
        };
        let bytes = encode(&exec, Path::new("/tmp/root"), &confinement).expect("fits");
        let request = decode(&bytes).expect("decodes");
        assert_eq!(request.cwd.as_bytes(), b"/tmp/root");
        assert_eq!(request.network, NetworkCut::Namespace);
        assert!(request.rules);
        assert_eq!(request.hardening, confinement.hardening);
        assert_eq!(request.descriptors(), HANDED + 4);
        let (candidates, argv, envp) = exec.parts();
        assert_eq!(request.candidates, candidates);
        assert_eq!(request.argc, argv.len());
        assert_eq!(request.strings[..argv.len()], *argv);
        assert_eq!(request.strings[argv.len()..], *envp);
    }

    #[test]
    fn anything_else_is_not_a_request() {
        let exec = ServerExec::new(Path::new("/bin/echo"), &[], true, []).expect("exec");
        let bytes = encode(&exec, Path::new("/"), &Confinement::none()).expect("fits");
        assert!(decode(&bytes).is_some_and(|r| r.hardening.is_none() && r.cgroups == 0));
        assert!(decode(&bytes[..bytes.len() - 1]).is_none(), "cut short");
        assert!(decode(b"tsp0").is_none());
        let mut more = bytes.clone();
        more.extend_from_slice(b"x\0");
        assert!(decode(&more).is_none(), "a string too many");
        assert!(decode(&[]).is_none());
    }
}
