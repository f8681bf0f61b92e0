//! The server process: started under a supervisor of its own (`supervisor.rs`) in
//! its own process group, and ended with everything it started.
//!
//! The supervisor holds the server's whole process tree, detached daemons included,
//! and ends all of it when the server exits or when toolspec closes its control
//! pipe. Every control pipe is listed here, so that an interrupted run closes them
//! all (and waits for the supervisors to finish) before it exits; if toolspec dies
//! without that, the kernel closes the pipes and the supervisors do the same.

use std::collections::BTreeMap;
use std::os::fd::{AsRawFd, OwnedFd};
use std::path::Path;
use std::process::Stdio;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

use tokio::process::{Child, Command};

use super::sandbox::Sandbox;
use super::supervisor::become_supervisor;
use crate::fixture::Scratch;

pub(super) struct ServerProcess {
    /// The supervisor, which exits as the server does (same code or signal).
    pub child: Child,
    /// The process group the server runs in (the supervisor leads it).
    pgid: Option<i32>,
    /// This server's entry in [`SUPERVISED`]; `None` once its containment is ended.
    supervised: Option<u64>,
    /// Under `--sandbox`, the server's `TMPDIR`, removed after the server.
    _scratch: Option<Scratch>,
}

impl ServerProcess {
    /// Starts `program` in `cwd` (the fixture root); with `sandbox`, it may write
    /// only there, in a scratch folder beside it (its `TMPDIR`) and to the common
    /// devices.
    pub(super) fn spawn(
        program: &Path,
        argv: &[String],
        cwd: &Path,
        env: &BTreeMap<String, String>,
        sandbox: bool,
    ) -> std::io::Result<Self> {
        let scratch = sandbox.then(Scratch::new).transpose()?;
        let mut sandbox = match &scratch {
            Some(scratch) => Some(Sandbox::allowing(cwd, scratch.path())?),
            None => None,
        };
        // Held through the spawn, so an interrupt either finds this server listed or
        // has already forbidden it.
        let mut supervised = supervised();
        if supervised.stopping {
            return Err(std::io::Error::other("the run is being interrupted"));
        }
        let (control_read, control_write) = control_pipe()?;
        let control = control_read.as_raw_fd();
        let mut command = Command::new(program);
        command
            .args(argv)
            .current_dir(cwd)
            .envs(env)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0);
        if let Some(scratch) = &scratch {
            command.env("TMPDIR", scratch.path());
        }
        // SAFETY: the hook only makes async-signal-safe system calls (see
        // `supervisor` and `sandbox`), and `control` stays open until the spawn has
        // returned. The sandbox comes first, so the supervisor is under it too.
        unsafe {
            command.pre_exec(move || {
                if let Some(sandbox) = sandbox.as_mut() {
                    sandbox.enter()?;
                }
                become_supervisor(control)
            });
        }
        let child = command.spawn()?;
        drop(control_read);
        let pid = child.id().and_then(|id| i32::try_from(id).ok());
        let number = supervised.next;
        supervised.next += 1;
        supervised.servers.insert(
            number,
            Supervisor {
                pid,
                control: control_write,
            },
        );
        Ok(ServerProcess {
            child,
            pgid: pid,
            supervised: Some(number),
            _scratch: scratch,
        })
    }

    /// The exit status, if the server has exited.
    pub(super) fn exited(&mut self) -> Option<std::process::ExitStatus> {
        self.child.try_wait().ok().flatten()
    }

    /// Ends the server politely, then by force, and returns once every process it
    /// started is gone. With `stdin_closed`, the server was asked to stop the stdio
    /// way and gets `grace` to do so before SIGTERM; otherwise (HTTP) SIGTERM is the
    /// polite ask.
    pub(super) async fn stop(&mut self, grace: Duration, stdin_closed: bool) {
        let exited_alone =
            stdin_closed && tokio::time::timeout(grace, self.child.wait()).await.is_ok();
        if !exited_alone {
            self.signal_group(libc::SIGTERM);
            let _ = tokio::time::timeout(grace / 2, self.child.wait()).await;
        }
        // The supervisor kills whatever is left and exits once nothing is.
        self.end_containment();
        if tokio::time::timeout(SUPERVISOR_GRACE, self.child.wait())
            .await
            .is_err()
        {
            // Only a supervisor stuck in the kernel gets here; never leave it.
            let _ = self.child.start_kill();
            let _ = self.child.wait().await;
        }
    }

    /// Closes the control pipe: the supervisor kills the server's whole tree and
    /// exits. Safe to repeat.
    fn end_containment(&mut self) {
        if let Some(number) = self.supervised.take() {
            supervised().servers.remove(&number);
        }
    }

    fn signal_group(&self, signal: i32) {
        if let Some(pgid) = self.pgid {
            // SAFETY: killpg only sends a signal; a stale group id fails with ESRCH.
            // The supervisor, which leads the group, ignores the polite signals.
            unsafe {
                libc::killpg(pgid, signal);
            }
        }
    }
}

impl Drop for ServerProcess {
    fn drop(&mut self) {
        // Not a kill: a killed supervisor would hand the server's tree to init.
        self.end_containment();
    }
}

/// How long a supervisor may take to end a server's tree once asked.
const SUPERVISOR_GRACE: Duration = Duration::from_secs(5);

/// A running supervisor: its pid and the write end of its control pipe.
struct Supervisor {
    pid: Option<i32>,
    #[allow(dead_code, reason = "held, never read: closing it is the message")]
    control: OwnedFd,
}

/// Every running supervisor, and whether the run is being interrupted.
struct Supervised {
    stopping: bool,
    next: u64,
    servers: BTreeMap<u64, Supervisor>,
}

static SUPERVISED: Mutex<Supervised> = Mutex::new(Supervised {
    stopping: false,
    next: 0,
    servers: BTreeMap::new(),
});

fn supervised() -> MutexGuard<'static, Supervised> {
    // A panic elsewhere while holding the lock leaves the list itself intact.
    SUPERVISED
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// A pipe whose ends are closed on exec, so that no other program started from
/// toolspec holds a server's control pipe open.
fn control_pipe() -> std::io::Result<(OwnedFd, OwnedFd)> {
    let mut ends = [0; 2];
    // SAFETY: pipe2 writes two descriptors into `ends`, which we then own.
    unsafe {
        if libc::pipe2(ends.as_mut_ptr(), libc::O_CLOEXEC) != 0 {
            return Err(std::io::Error::last_os_error());
        }
        use std::os::fd::FromRawFd;
        Ok((OwnedFd::from_raw_fd(ends[0]), OwnedFd::from_raw_fd(ends[1])))
    }
}

/// Set once the run is being interrupted.
static STOPPING: AtomicBool = AtomicBool::new(false);

/// Whether [`kill_every_session`] has been called: the run was interrupted.
pub(crate) fn interrupted() -> bool {
    STOPPING.load(Ordering::SeqCst)
}

/// Ends every server of this toolspec process with everything it started, for when
/// the run itself is interrupted, refuses to start new ones, and waits (a few
/// seconds at most) until every supervisor has finished. Returns how many servers
/// were running.
pub(crate) fn kill_every_session() -> usize {
    STOPPING.store(true, Ordering::SeqCst);
    let servers = {
        let mut supervised = supervised();
        supervised.stopping = true;
        std::mem::take(&mut supervised.servers)
    };
    let pids: Vec<i32> = servers.values().filter_map(|s| s.pid).collect();
    // Closing the control pipes asks every supervisor at once.
    drop(servers);
    let deadline = Instant::now() + SUPERVISOR_GRACE;
    while pids.iter().any(|pid| still_running(*pid)) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(5));
    }
    pids.len()
}

/// Whether `pid` is a live process (not gone, not a zombie waiting to be reaped). A
/// supervisor exits only once its tree is gone, so this tells when that is.
fn still_running(pid: i32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
        stat.rsplit_once(") ")
            .is_some_and(|(_, rest)| !rest.starts_with('Z'))
    })
}

/// Whether the interrupted run has been wound up (servers stopped, fixtures removed,
/// the message printed). Held while that happens.
static WOUND_UP: Mutex<bool> = Mutex::new(false);

/// Stops every server, removes every fixture and says so, once. Both the interrupt
/// watcher and the main thread (which may see the interrupt first and return) call
/// it before exiting 130; whichever comes second waits for the first to finish, so
/// the message is never lost to an exit racing it nor printed twice.
pub(crate) fn finish_interrupted_run() {
    let mut wound_up = WOUND_UP
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    if *wound_up {
        return;
    }
    let stopped = kill_every_session();
    // After the servers: none may write into a fixture being removed.
    crate::fixture::remove_every_fixture();
    eprintln!("toolspec: interrupted; stopped {stopped} server(s)");
    *wound_up = true;
}

/// On Ctrl-C or SIGTERM, end every server this run started (they sit in process
/// groups of their own, so the terminal's signal does not reach them), remove every
/// fixture on disk, and exit 130.
///
/// Returns once the handlers are in place (or could not be), so that no server is
/// started while a Ctrl-C would still end toolspec the default way, leaving them.
pub(crate) fn stop_servers_on_interrupt() {
    let (ready, listening) = std::sync::mpsc::channel::<()>();
    let watcher = std::thread::Builder::new()
        .name("interrupt".into())
        .spawn(move || {
            let Ok(runtime) = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
            else {
                return;
            };
            runtime.block_on(async {
                use tokio::signal::unix::{signal, SignalKind};
                let (Ok(mut int), Ok(mut term)) = (
                    signal(SignalKind::interrupt()),
                    signal(SignalKind::terminate()),
                ) else {
                    return;
                };
                let _ = ready.send(());
                tokio::select! {
                    _ = int.recv() => {}
                    _ = term.recv() => {}
                }
                finish_interrupted_run();
                std::process::exit(130);
            });
        });
    match watcher {
        // A watcher that gave up drops `ready`, which ends the wait at once.
        Ok(_) => {
            if listening.recv_timeout(Duration::from_secs(10)).is_err() {
                eprintln!(
                    "toolspec: cannot watch for Ctrl-C; an interrupted run may leave servers behind"
                );
            }
        }
        Err(e) => eprintln!(
            "toolspec: cannot watch for Ctrl-C ({e}); an interrupted run may leave servers behind"
        ),
    }
}
