//! Watching a running command: waiting for it, killing its group on timeout
//! or when a stream passes its limit, and copying its output pipes into a
//! shared buffer as data arrives. Every way of running a command ends here.

use std::os::unix::process::ExitStatusExt;
use std::process::ExitStatus;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncReadExt};
use tokio::sync::Notify;
use tokio::task::JoinHandle;

use super::group::{kill_group, GroupGuard};
use super::{lock, CommandOutput, SIGNALLED_EXIT_CODE};

/// How long to wait for output pipes to drain once the process group is dead
/// (only a process that escaped the group with `setsid` could hold them).
const PIPE_DRAIN_GRACE: Duration = Duration::from_secs(2);

#[derive(Default)]
pub(super) struct Captured {
    pub(super) stdout: Vec<u8>,
    pub(super) stderr: Vec<u8>,
    /// Set when a stream passed its byte limit (only bounded runs have one).
    pub(super) exceeded: bool,
}

/// Waits for the shell (killing the group on timeout), kills any stragglers,
/// then collects the output.
pub(super) async fn drive(
    child: tokio::process::Child,
    guard: GroupGuard,
    timeout: Option<Duration>,
    captured: Arc<Mutex<Captured>>,
) -> CommandOutput {
    drive_reporting_signal(child, guard, timeout, captured)
        .await
        .0
}

/// [`drive`], also returning the signal that terminated the shell.
pub(super) async fn drive_reporting_signal(
    mut child: tokio::process::Child,
    guard: GroupGuard,
    timeout: Option<Duration>,
    captured: Arc<Mutex<Captured>>,
) -> (CommandOutput, Option<i32>) {
    let readers = OutputReaders::of_child(&mut child, captured, u64::MAX);
    let (ended, captured) = supervise(child, guard, timeout, readers).await;
    let captured = lock(&captured);
    command_output(ended, timeout, &captured)
}

/// The [`CommandOutput`] of a supervised command and the signal that ended
/// its shell; `timeout` is the one it was given.
pub(super) fn command_output(
    ended: Ended,
    timeout: Option<Duration>,
    captured: &Captured,
) -> (CommandOutput, Option<i32>) {
    let (exit_code, timed_out_after, signal) = match ended {
        Ended::Exited(Some(status)) => (
            status.code().unwrap_or(SIGNALLED_EXIT_CODE),
            None,
            status.signal(),
        ),
        Ended::Exited(None) => (SIGNALLED_EXIT_CODE, None, None),
        Ended::Killed { cause, signal } => {
            let timed_out_after = match cause {
                KillCause::Timeout => timeout,
                KillCause::OutputLimit => None,
            };
            (SIGNALLED_EXIT_CODE, timed_out_after, signal)
        }
    };
    let output = CommandOutput {
        exit_code,
        stdout: String::from_utf8_lossy(&captured.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&captured.stderr).into_owned(),
        timed_out_after,
    };
    (output, signal)
}

/// Why [`supervise`] killed a command's process group.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum KillCause {
    Timeout,
    OutputLimit,
}

/// How a command watched by [`supervise`] ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Ended {
    /// The shell exited by itself; `None` when waiting on it failed.
    Exited(Option<ExitStatus>),
    /// Its group was killed; `signal` is what ended the shell then.
    Killed {
        cause: KillCause,
        signal: Option<i32>,
    },
}

/// The tasks copying a command's output pipes into one capture buffer.
pub(super) struct OutputReaders {
    pub(super) captured: Arc<Mutex<Captured>>,
    /// Woken by a reader whose stream passed its limit.
    pub(super) over_limit: Arc<Notify>,
    pub(super) tasks: Vec<JoinHandle<()>>,
}

impl OutputReaders {
    pub(super) fn new(captured: Arc<Mutex<Captured>>) -> OutputReaders {
        OutputReaders {
            captured,
            over_limit: Arc::new(Notify::new()),
            tasks: Vec::new(),
        }
    }

    /// Readers for the child's own stdout and stderr pipes, each keeping at
    /// most `limit` bytes.
    pub(super) fn of_child(
        child: &mut tokio::process::Child,
        captured: Arc<Mutex<Captured>>,
        limit: u64,
    ) -> OutputReaders {
        let mut readers = OutputReaders::new(captured);
        if let Some(pipe) = child.stdout.take() {
            readers.read(pipe, true, limit);
        }
        if let Some(pipe) = child.stderr.take() {
            readers.read(pipe, false, limit);
        }
        readers
    }

    /// Starts copying `pipe` into the capture's stdout (or stderr).
    pub(super) fn read(
        &mut self,
        pipe: impl AsyncRead + Unpin + Send + 'static,
        is_stdout: bool,
        limit: u64,
    ) {
        self.tasks.push(tokio::spawn(pump(
            pipe,
            self.captured.clone(),
            is_stdout,
            limit,
            self.over_limit.clone(),
        )));
    }
}

/// Waits until the shell exits, `timeout` passes or a reader passes its
/// limit, killing the process group in the last two cases; then kills any
/// stragglers (dropping `guard`) and gives the readers [`PIPE_DRAIN_GRACE`]
/// to finish. Every way of running a command ends here.
pub(super) async fn supervise(
    mut child: tokio::process::Child,
    guard: GroupGuard,
    timeout: Option<Duration>,
    readers: OutputReaders,
) -> (Ended, Arc<Mutex<Captured>>) {
    let deadline = async {
        match timeout {
            Some(limit) => tokio::time::sleep(limit).await,
            None => std::future::pending().await,
        }
    };
    // `biased`: a shell that has exited counts as exited even when its
    // deadline passed in the same instant.
    let stopped = tokio::select! {
        biased;
        status = child.wait() => Ok(status.ok()),
        () = deadline => Err(KillCause::Timeout),
        () = readers.over_limit.notified() => Err(KillCause::OutputLimit),
    };
    let ended = match stopped {
        Ok(status) => Ended::Exited(status),
        Err(cause) => {
            kill_group(guard.pgid);
            let signal = child.wait().await.ok().and_then(|status| status.signal());
            Ended::Killed { cause, signal }
        }
    };
    drop(guard);
    for task in readers.tasks {
        let _ = tokio::time::timeout(PIPE_DRAIN_GRACE, task).await;
    }
    (ended, readers.captured)
}

/// Copies a pipe into the shared capture buffer as data arrives (so a
/// running background task can show its output so far), keeping at most
/// `limit` bytes; past it, marks the capture exceeded, stops reading and
/// wakes whoever waits on `over_limit`.
async fn pump(
    mut pipe: impl AsyncRead + Unpin,
    captured: Arc<Mutex<Captured>>,
    is_stdout: bool,
    limit: u64,
    over_limit: Arc<Notify>,
) {
    let limit = usize::try_from(limit).unwrap_or(usize::MAX);
    let mut buf = [0u8; 8192];
    loop {
        let n = match pipe.read(&mut buf).await {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        let mut captured = lock(&captured);
        let target = if is_stdout {
            &mut captured.stdout
        } else {
            &mut captured.stderr
        };
        let room = limit.saturating_sub(target.len());
        target.extend_from_slice(&buf[..n.min(room)]);
        if n > room {
            captured.exceeded = true;
            over_limit.notify_one();
            break;
        }
    }
}
