//! toolspec's hold on a server's supervisor, however it was forked: by std's spawn
//! in toolspec (a tokio `Child`), or by the spawner (`spawner.rs`) as toolspec's
//! child all the same, waited for through a pidfd. And the server's stdio pipes,
//! the same types either way.

use std::io;
use std::os::fd::{FromRawFd, OwnedFd};
use std::os::unix::process::ExitStatusExt;
use std::process::ExitStatus;
use std::sync::Mutex;

use tokio::io::unix::AsyncFd;
use tokio::net::unix::pipe;

/// toolspec's ends of the server's stdin, stdout and stderr.
pub(super) struct ServerPipes {
    pub stdin: pipe::Sender,
    pub stdout: pipe::Receiver,
    pub stderr: pipe::Receiver,
}

impl ServerPipes {
    /// The three ends as the tokio reactor of the current runtime reads them.
    pub(super) fn new(stdin: OwnedFd, stdout: OwnedFd, stderr: OwnedFd) -> io::Result<Self> {
        Ok(ServerPipes {
            stdin: pipe::Sender::from_owned_fd(stdin)?,
            stdout: pipe::Receiver::from_owned_fd(stdout)?,
            stderr: pipe::Receiver::from_owned_fd(stderr)?,
        })
    }
}

/// A supervisor, a child of toolspec's.
pub(super) enum SupervisorChild {
    /// Forked by toolspec through std's spawn; tokio waits for it.
    Forked(tokio::process::Child),
    /// Forked by the spawner.
    Cloned(Cloned),
}

/// A supervisor the spawner forked: its pid, a pidfd that becomes readable when it
/// exits, and its status once reaped.
pub(super) struct Cloned {
    pid: libc::pid_t,
    exit: AsyncFd<OwnedFd>,
    status: Option<ExitStatus>,
}

impl SupervisorChild {
    /// The supervisor `pid`, toolspec's child, watched from the current runtime.
    pub(super) fn cloned(pid: libc::pid_t) -> io::Result<SupervisorChild> {
        // SAFETY: pidfd_open of a child of this process, which nothing reaps but
        // this value; the descriptor is owned at once.
        let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid, libc::O_NONBLOCK) };
        let fd = i32::try_from(fd)
            .ok()
            .filter(|fd| *fd >= 0)
            .ok_or_else(io::Error::last_os_error)?;
        // SAFETY: just opened, owned by nothing else.
        let fd = unsafe { OwnedFd::from_raw_fd(fd) };
        Ok(SupervisorChild::Cloned(Cloned {
            pid,
            // SAFETY: the descriptor is owned by the AsyncFd, which neither
            // replaces nor closes it while registered.
            exit: unsafe { AsyncFd::register_with_interest(fd, tokio::io::Interest::READABLE) }
                .map_err(io::Error::from)?,
            status: None,
        }))
    }

    /// The supervisor's pid.
    pub(super) fn id(&self) -> Option<libc::pid_t> {
        match self {
            SupervisorChild::Forked(child) => child.id().and_then(|id| i32::try_from(id).ok()),
            SupervisorChild::Cloned(cloned) => Some(cloned.pid),
        }
    }

    /// The supervisor's status, if it has exited (reaping it).
    pub(super) fn try_wait(&mut self) -> Option<ExitStatus> {
        match self {
            SupervisorChild::Forked(child) => child.try_wait().ok().flatten(),
            SupervisorChild::Cloned(cloned) => cloned.try_wait(),
        }
    }

    /// Waits for the supervisor to exit and reaps it.
    pub(super) async fn wait(&mut self) -> io::Result<ExitStatus> {
        match self {
            SupervisorChild::Forked(child) => child.wait().await,
            SupervisorChild::Cloned(cloned) => loop {
                if let Some(status) = cloned.try_wait() {
                    return Ok(status);
                }
                if gone(cloned.pid) {
                    return Err(io::Error::from_raw_os_error(libc::ECHILD));
                }
                let mut ready = cloned.exit.readable().await?;
                match reap(cloned.pid) {
                    Some(status) => {
                        drop(ready);
                        cloned.status = Some(status);
                        return Ok(status);
                    }
                    None => ready.clear_ready(),
                }
            },
        }
    }

    /// Sends SIGKILL to the supervisor (not to its tree: that would go to init).
    pub(super) fn start_kill(&mut self) {
        match self {
            SupervisorChild::Forked(child) => {
                let _ = child.start_kill();
            }
            SupervisorChild::Cloned(cloned) => {
                if cloned.status.is_none() {
                    // SAFETY: a signal to a child not yet reaped, so the pid is its.
                    unsafe {
                        libc::kill(cloned.pid, libc::SIGKILL);
                    }
                }
            }
        }
    }
}

impl Cloned {
    fn try_wait(&mut self) -> Option<ExitStatus> {
        if self.status.is_none() {
            self.status = reap(self.pid);
        }
        self.status
    }
}

impl Drop for Cloned {
    fn drop(&mut self) {
        if self.try_wait().is_none() {
            // Still running (it ends soon: its control socket is closed). Reaped by
            // the next spawn, or never taken for an escaped process meanwhile.
            LEFT_RUNNING
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .push(self.pid);
        }
    }
}

/// The status of the child `pid` if it has exited, reaping it; `None` while it runs.
fn reap(pid: libc::pid_t) -> Option<ExitStatus> {
    let mut raw = 0;
    // SAFETY: waitpid of that one child, without blocking.
    let waited = unsafe { libc::waitpid(pid, &mut raw, libc::WNOHANG) };
    (waited == pid).then(|| ExitStatus::from_raw(raw))
}

/// Whether `pid` is no child of this process any more (reaped elsewhere).
fn gone(pid: libc::pid_t) -> bool {
    let mut info = std::mem::MaybeUninit::<libc::siginfo_t>::zeroed();
    // SAFETY: waitid of that one child, without blocking or reaping (WNOWAIT).
    let waited = unsafe {
        libc::waitid(
            libc::P_PID,
            pid as libc::id_t,
            info.as_mut_ptr(),
            libc::WEXITED | libc::WNOHANG | libc::WNOWAIT,
        )
    };
    waited < 0
}

/// Supervisors dropped before they were reaped.
static LEFT_RUNNING: Mutex<Vec<libc::pid_t>> = Mutex::new(Vec::new());

/// Reaps the supervisors dropped unreaped that have exited since; their pids.
pub(super) fn reap_left_running() -> Vec<libc::pid_t> {
    let mut left = LEFT_RUNNING
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let mut reaped = Vec::new();
    left.retain(|&pid| {
        if reap(pid).is_none() && !gone(pid) {
            return true;
        }
        reaped.push(pid);
        false
    });
    reaped
}
