//! The per-server supervisor: a process between toolspec and the server under test
//! that holds the server's whole process tree and ends all of it.
//!
//! A server can leave processes that nothing else can find: a daemon that calls
//! `setsid` leaves the server's process group, and one started with `env -i` drops
//! any marker in its environment. So each server is started under a supervisor of
//! its own, which is a *child subreaper* (`PR_SET_CHILD_SUBREAPER`): whatever the
//! server forks, however it detaches, is reparented to the supervisor when its
//! parent dies, never to init. When the server exits, or toolspec ends the control
//! socket (on stop, on interrupt, or because toolspec itself died), the supervisor
//! kills its children until it has none left, says so on the control socket, then
//! exits with the server's own status. It kills only its own descendants, so
//! scenarios running in parallel never touch each other's processes, and it runs in
//! a process of its own, so it never reaps (`waitpid(-1)`) a child of toolspec's
//! runtime.
//!
//! A server can still kill its supervisor (same user). Then the supervisor never
//! says it finished, which toolspec notices, and what the server started is
//! reparented to toolspec, which adopts it as the subreaper of last resort
//! (`escapes.rs`).
//!
//! It is not a program of its own: [`become_supervisor`] runs as the spawn's
//! `pre_exec` hook, in the child forked for the server, and starts the server from
//! there with the exec prepared before the fork (`server_exec.rs`), so std's own
//! exec is never reached. Between `fork` and `exec` only async-signal-safe calls
//! are allowed, so everything here is raw system calls on stack buffers: no
//! allocation, no locks, no panics (no indexing that can fail, no arithmetic that
//! can overflow).

use std::io;
use std::os::fd::RawFd;

use super::control_word::send_word;
use super::isolation::confinement::{close_from, Inside};
use super::isolation::server_init;
use super::server_exec::ServerExec;

/// Runs in the child forked for a server, before `exec`. Starts the server as its
/// own child (`server_exec.rs`: without copying toolspec's memory again), and
/// becomes its supervisor, never returning unless the server could not be started.
/// `control` is the supervisor's end of the control socket; the other end is
/// toolspec's alone.
///
/// # Safety
/// Only to be called between `fork` and `exec` (a `pre_exec` hook), with `control`
/// an open descriptor.
pub(super) unsafe fn become_supervisor(
    control: RawFd,
    server: &mut ServerExec,
    inside: Option<&Inside>,
) -> io::Result<()> {
    // Before the server starts: everything its tree leaves behind comes here.
    if libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0 {
        return Err(io::Error::last_os_error());
    }
    // A failed exec comes back as this hook's error, which std hands to the spawn.
    let (server, from_init) = start(server, inside)?;
    supervise(server, control, from_init)
}

/// Starts the server, through its init when it has a view: the pid of the child
/// that stands for it here, and the pipe its init hands its status up on.
unsafe fn start(
    server: &mut ServerExec,
    inside: Option<&Inside>,
) -> io::Result<(libc::pid_t, Option<RawFd>)> {
    match inside {
        Some(inside) => server_init::start(server, inside).map(|(pid, pipe)| (pid, Some(pipe))),
        None => server.start().map(|pid| (pid, None)),
    }
}

/// As [`become_supervisor`], in a supervisor the spawner forked (`spawner.rs`),
/// where there is no spawn to hand an error back to: whether the server started is
/// said on the control socket first, as [`STARTED`] or the exec's `errno`, in
/// four bytes of this machine's order. Never returns.
///
/// # Safety
/// Only in a process of its own that nothing else runs in, with `control` an open
/// descriptor.
pub(super) unsafe fn supervise_for_spawner(
    control: RawFd,
    server: &mut ServerExec,
    inside: Option<&Inside>,
) -> ! {
    let started = if libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0 {
        Err(io::Error::last_os_error())
    } else {
        start(server, inside)
    };
    let said = match &started {
        Ok(_) => {
            ignore_the_groups_signals();
            STARTED
        }
        Err(e) => e.raw_os_error().unwrap_or(libc::EINVAL),
    };
    send_word(control, said);
    match started {
        Ok((server, from_init)) => supervise(server, control, from_init),
        Err(_) => libc::_exit(127),
    }
}

/// What a supervisor forked by the spawner says first when its server started.
pub(super) const STARTED: libc::c_int = 0;

/// The supervisor's life: wait for the server to exit or the control socket to
/// end, end every descendant, say so if none is left, and exit as the server did.
/// `server` is the server's init when it has one (`from_init` its pipe): its death
/// ends the server's namespace, and its last word is the server's status.
unsafe fn supervise(server: libc::pid_t, control: RawFd, from_init: Option<RawFd>) -> ! {
    settle(control, from_init.unwrap_or(control));
    let mut status = wait_for_the_end(server, control);
    let ended = end_every_descendant(server, &mut status);
    if let Some(pipe) = from_init {
        // Only an init that outlived its server says how the server ended.
        status = server_init::server_status(pipe).or(status);
    }
    if ended {
        // Read by toolspec once this process is reaped: a supervisor that dies
        // without sending it (killed by the server) let its tree go.
        libc::send(
            control,
            FINISHED.as_ptr().cast(),
            FINISHED.len(),
            libc::MSG_NOSIGNAL | libc::MSG_DONTWAIT,
        );
    }
    exit_like(status)
}

/// What a supervisor sends on the control socket when it has ended every process of
/// its server's tree.
pub(super) const FINISHED: [u8; 1] = [b'.'];

/// Lets go of everything inherited from toolspec: the signals aimed at the server's
/// group, stdio (so the server's pipes close when the server's tree is gone), and
/// every other descriptor but `control` and `also` (another server's control
/// socket, std's exec-error pipe). The spawner settles the same way, keeping its socket.
pub(super) unsafe fn settle(control: RawFd, also: RawFd) {
    let null = libc::open(c"/dev/null".as_ptr(), libc::O_RDWR);
    if null >= 0 {
        for fd in 0..3 {
            libc::dup2(null, fd);
        }
    }
    // Before std's exec-error pipe closes below, which tells toolspec the server runs.
    ignore_the_groups_signals();
    close_from(3, control.min(also), control.max(also));
}

/// A polite SIGTERM or a Ctrl-C goes to the server's process group, which this
/// process leads; it is for the server. The supervisor only ever ends by itself, so
/// it ignores them from before toolspec learns the server started: toolspec may stop
/// a quick server at once, and a supervisor killed then would let its tree go.
/// Called only once the server has started: a server started after would inherit
/// the ignoring.
unsafe fn ignore_the_groups_signals() {
    for signal in [
        libc::SIGTERM,
        libc::SIGINT,
        libc::SIGHUP,
        libc::SIGQUIT,
        libc::SIGPIPE,
    ] {
        libc::signal(signal, libc::SIG_IGN);
    }
}

/// Waits until the server exits (its wait status) or toolspec ends the control
/// socket (`None`: the server is still running). Orphans reparented here meanwhile are
/// reaped as they die.
unsafe fn wait_for_the_end(server: libc::pid_t, control: RawFd) -> Option<libc::c_int> {
    // A pidfd wakes the poll when the server exits; without one (Linux before 5.3)
    // the poll wakes every 20 ms to look.
    let server_fd = libc::syscall(libc::SYS_pidfd_open, server, 0) as RawFd;
    let mut polled = [
        libc::pollfd {
            fd: control,
            events: libc::POLLIN,
            revents: 0,
        },
        libc::pollfd {
            fd: server_fd,
            events: libc::POLLIN,
            revents: 0,
        },
    ];
    let (count, timeout) = if server_fd >= 0 { (2, -1) } else { (1, 20) };
    loop {
        libc::poll(polled.as_mut_ptr(), count, timeout);
        if let Some(status) = reap_ready(server) {
            return Some(status);
        }
        if polled[0].revents != 0 {
            // toolspec never writes: anything readable is the end of the socket.
            return None;
        }
    }
}

/// Reaps every child that has exited, without waiting; the server's wait status if
/// the server was one of them.
unsafe fn reap_ready(server: libc::pid_t) -> Option<libc::c_int> {
    let mut found = None;
    loop {
        let mut status = 0;
        let pid = libc::waitpid(-1, &mut status, libc::WNOHANG);
        if pid <= 0 {
            return found;
        }
        if pid == server {
            found = Some(status);
        }
    }
}

/// SIGKILLs every child, reaps it, and does it again for the grandchildren that are
/// reparented here as their parents die, until no child is left; true once none is
/// (false if some stayed out of sight too long). The server's wait status is
/// recorded into `status` if it is reaped here.
unsafe fn end_every_descendant(server: libc::pid_t, status: &mut Option<libc::c_int>) -> bool {
    let mut idle_rounds = 0u32;
    loop {
        let killed = kill_children();
        let mut child_status = 0;
        let options = if killed > 0 { 0 } else { libc::WNOHANG };
        let pid = libc::waitpid(-1, &mut child_status, options);
        if pid < 0 {
            // ECHILD: nothing is left (EINTR cannot happen: no handlers here).
            return true;
        }
        if pid == server {
            *status = Some(child_status);
        }
        if pid > 0 || killed > 0 {
            idle_rounds = 0;
            continue;
        }
        // Children exist that the listing did not show (it is racy by design, or
        // missing on a kernel without it): look again shortly, but not forever.
        idle_rounds += 1;
        if idle_rounds > 2_000 {
            return false;
        }
        let pause = libc::timespec {
            tv_sec: 0,
            tv_nsec: 1_000_000,
        };
        libc::nanosleep(&pause, std::ptr::null_mut());
    }
}

/// SIGKILLs each child listed in `/proc/thread-self/children`; says how many.
unsafe fn kill_children() -> usize {
    let listing = libc::open(
        c"/proc/thread-self/children".as_ptr(),
        libc::O_RDONLY | libc::O_CLOEXEC,
    );
    if listing < 0 {
        return 0;
    }
    let mut killed = 0;
    let mut buffer = [0u8; 512];
    let mut pid: libc::pid_t = 0;
    loop {
        let read = libc::read(listing, buffer.as_mut_ptr().cast(), buffer.len());
        if read <= 0 {
            break;
        }
        let filled = buffer.get(..read as usize).unwrap_or_default();
        for byte in filled {
            if byte.is_ascii_digit() {
                pid = pid
                    .saturating_mul(10)
                    .saturating_add(libc::pid_t::from(byte - b'0'));
            } else {
                killed += kill_listed(pid);
                pid = 0;
            }
        }
    }
    killed += kill_listed(pid);
    libc::close(listing);
    killed
}

/// SIGKILLs `pid` if it names a process (0 does not); 1 if a signal was sent.
unsafe fn kill_listed(pid: libc::pid_t) -> usize {
    usize::from(pid > 0 && libc::kill(pid, libc::SIGKILL) == 0)
}

/// Exits with the server's status: its exit code, or death by the same signal
/// (without a core dump), so toolspec sees what the server did. A server that never
/// exited by itself was killed here: SIGKILL.
unsafe fn exit_like(status: Option<libc::c_int>) -> ! {
    let signal = match status {
        Some(s) if libc::WIFEXITED(s) => libc::_exit(libc::WEXITSTATUS(s)),
        Some(s) if libc::WIFSIGNALED(s) => libc::WTERMSIG(s),
        _ => libc::SIGKILL,
    };
    let no_core = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    libc::setrlimit(libc::RLIMIT_CORE, &no_core);
    libc::signal(signal, libc::SIG_DFL);
    let mut only = std::mem::zeroed::<libc::sigset_t>();
    libc::sigemptyset(&mut only);
    libc::sigaddset(&mut only, signal);
    libc::sigprocmask(libc::SIG_UNBLOCK, &only, std::ptr::null_mut());
    libc::kill(libc::getpid(), signal);
    libc::_exit(128 + signal)
}
