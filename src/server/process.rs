//! The server process: started in its own process group with a marker in its
//! environment, and ended with everything it started.
//!
//! Killing the process group catches what the server forked directly. A server that
//! puts its own children in new groups (as a shell tool should) could still leave them
//! behind when it is killed hard, so after the group is gone every process on the
//! machine that carries this session's marker is killed too.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Stdio;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

use tokio::process::{Child, Command};

/// Environment variable that marks every process started for one session.
pub(super) const MARKER_VAR: &str = "TOOLSPEC_SESSION";

pub(super) struct ServerProcess {
    pub child: Child,
    pgid: Option<i32>,
    marker: String,
}

impl ServerProcess {
    pub(super) fn spawn(
        program: &Path,
        argv: &[String],
        cwd: &Path,
        env: &BTreeMap<String, String>,
    ) -> std::io::Result<Self> {
        if STOPPING.load(Ordering::SeqCst) {
            return Err(std::io::Error::other("the run is being interrupted"));
        }
        static COUNTER: AtomicU64 = AtomicU64::new(0);
        let marker = format!(
            "{}-{}",
            std::process::id(),
            COUNTER.fetch_add(1, Ordering::Relaxed)
        );
        let child = Command::new(program)
            .args(argv)
            .current_dir(cwd)
            .envs(env)
            .env(MARKER_VAR, &marker)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0)
            .kill_on_drop(true)
            .spawn()?;
        let pgid = child.id().and_then(|id| i32::try_from(id).ok());
        Ok(ServerProcess {
            child,
            pgid,
            marker,
        })
    }

    /// The exit status, if the server has exited.
    pub(super) fn exited(&mut self) -> Option<std::process::ExitStatus> {
        self.child.try_wait().ok().flatten()
    }

    /// Ends the server politely, then by force.
    /// With `stdin_closed`, the server was asked to stop the stdio way and gets
    /// `grace` to do so before SIGTERM; otherwise (HTTP) SIGTERM is the polite ask.
    pub(super) async fn stop(&mut self, grace: Duration, stdin_closed: bool) {
        let exited_alone =
            stdin_closed && tokio::time::timeout(grace, self.child.wait()).await.is_ok();
        if !exited_alone {
            self.signal_group(libc::SIGTERM);
            if tokio::time::timeout(grace / 2, self.child.wait())
                .await
                .is_err()
            {
                self.signal_group(libc::SIGKILL);
                let _ = self.child.wait().await;
            }
        }
        self.signal_group(libc::SIGKILL);
        // Signals are delivered asynchronously: wait until every marked process has
        // actually died, so that "nothing left running" holds when this returns.
        for _ in 0..100 {
            if kill_marked(&self.marker, false) == 0 {
                break;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }

    /// Kills the group and every marked process, without waiting. Safe to repeat.
    pub(super) fn kill_everything_left(&mut self) {
        self.signal_group(libc::SIGKILL);
        let _ = kill_marked(&self.marker, false);
    }

    fn signal_group(&self, signal: i32) {
        if let Some(pgid) = self.pgid {
            // SAFETY: killpg only sends a signal; a stale group id fails with ESRCH.
            unsafe {
                libc::killpg(pgid, signal);
            }
        }
    }
}

impl Drop for ServerProcess {
    fn drop(&mut self) {
        self.kill_everything_left();
    }
}

/// Set once the run is being interrupted: no new server may start after that.
static STOPPING: AtomicBool = AtomicBool::new(false);

/// Whether [`kill_every_session`] has been called: the run was interrupted.
pub(crate) fn interrupted() -> bool {
    STOPPING.load(Ordering::SeqCst)
}

/// Kills every process started for any session of this toolspec process, for when
/// the run itself is interrupted, and refuses to start new ones. Returns how many
/// processes were found alive at first.
pub(crate) fn kill_every_session() -> usize {
    STOPPING.store(true, Ordering::SeqCst);
    let prefix = format!("{}-", std::process::id());
    let first = kill_marked(&prefix, true);
    // A server being spawned right now, or one not yet dead, shows up again.
    for _ in 0..100 {
        if kill_marked(&prefix, true) == 0 {
            break;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    first
}

/// On Ctrl-C or SIGTERM, kill every server this run started (they sit in process
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
                let killed = kill_every_session();
                // After the servers: none may write into a fixture being removed.
                crate::fixture::remove_every_fixture();
                eprintln!("toolspec: interrupted; stopped {killed} server process(es)");
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

/// Kills every live process whose environment holds `TOOLSPEC_SESSION=<marker>`
/// (or, with `prefix`, a marker starting with `marker`),
/// and says how many there were. A zombie counts as dead: it only waits to be reaped.
fn kill_marked(marker: &str, prefix: bool) -> usize {
    let needle = format!("{MARKER_VAR}={marker}");
    let matches = |var: &[u8]| {
        if prefix {
            var.starts_with(needle.as_bytes())
        } else {
            var == needle.as_bytes()
        }
    };
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return 0;
    };
    let mut alive = 0;
    for entry in entries.flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|s| s.parse::<i32>().ok())
        else {
            continue;
        };
        let Ok(environ) = std::fs::read(entry.path().join("environ")) else {
            continue;
        };
        if !environ.split(|b| *b == 0).any(matches) {
            continue;
        }
        let zombie = std::fs::read_to_string(entry.path().join("stat")).is_ok_and(|stat| {
            stat.rsplit_once(") ")
                .is_some_and(|(_, rest)| rest.starts_with('Z'))
        });
        if !zombie {
            alive += 1;
            // SAFETY: sending a signal to a pid has no memory effects.
            unsafe {
                libc::kill(pid, libc::SIGKILL);
            }
        }
    }
    alive
}
