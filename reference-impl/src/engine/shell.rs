//! Running `bash -c` commands, in the foreground with a timeout or in the
//! background as numbered tasks.
//!
//! Each command gets its own process group, so a timeout (or the server
//! shutting down) kills everything it started with one `killpg`, not just the
//! shell. When the shell itself exits, whatever it left running in its group
//! is killed too: a command cannot leave processes behind, and its output
//! pipes close promptly.

use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasher, Hasher};
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{ExitStatus, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncReadExt};
use tokio::process::Command;
use tokio::sync::Notify;
use tokio::task::JoinHandle;

use super::error::EngineError;

mod merged;

/// At most this many background tasks may be running or finished-but-unread.
pub(crate) const MAX_BACKGROUND_TASKS: usize = 10;
/// How long to wait for output pipes to drain once the process group is dead
/// (only a process that escaped the group with `setsid` could hold them).
const PIPE_DRAIN_GRACE: Duration = Duration::from_secs(2);
/// Exit code reported when the shell did not exit normally (killed by a
/// signal, e.g. on timeout), as Go's `ExitCode()` does.
pub(crate) const SIGNALLED_EXIT_CODE: i32 = -1;

/// The result of a finished command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct CommandOutput {
    pub(crate) exit_code: i32,
    pub(crate) stdout: String,
    pub(crate) stderr: String,
    /// Set when the command was killed because it ran past its timeout.
    pub(crate) timed_out_after: Option<Duration>,
}

/// A finished foreground command with the process details some dialects
/// print: the id of the process group it ran in and the signal that ended
/// the shell, if one did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct GroupRun {
    pub(crate) output: CommandOutput,
    /// The command's process group id: the shell's pid, as it leads the group.
    pub(crate) pgid: i32,
    /// The signal number that terminated the shell (SIGKILL after a timeout).
    pub(crate) signal: Option<i32>,
}

/// A background task as seen by [`Shell::task_status`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum TaskStatus {
    /// Still running; the output captured so far.
    Running { stdout: String, stderr: String },
    /// Finished; the task is forgotten once this has been returned.
    Completed(CommandOutput),
}

#[derive(Default)]
struct Captured {
    stdout: Vec<u8>,
    stderr: Vec<u8>,
    /// Set when a stream passed its byte limit (only bounded runs have one).
    exceeded: bool,
}

struct BackgroundTask {
    captured: Arc<Mutex<Captured>>,
    result: Arc<Mutex<Option<CommandOutput>>>,
}

/// Runs commands in `cwd` and keeps the background task registry.
pub(crate) struct Shell {
    cwd: PathBuf,
    tasks: Mutex<HashMap<String, BackgroundTask>>,
    /// Process groups still alive, killed by [`Shell::kill_all`].
    groups: Arc<Mutex<HashSet<i32>>>,
    id_counter: AtomicU64,
}

/// Locks a mutex, recovering the data if a panicking thread poisoned it (the
/// registries stay consistent: every update is a single insert or remove).
fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Kills a process group when dropped: on normal completion (stragglers), on
/// timeout, and when the caller's future is cancelled.
struct GroupGuard {
    pgid: i32,
    groups: Arc<Mutex<HashSet<i32>>>,
}

impl Drop for GroupGuard {
    fn drop(&mut self) {
        kill_group(self.pgid);
        lock(&self.groups).remove(&self.pgid);
    }
}

fn kill_group(pgid: i32) {
    if pgid > 1 {
        // SAFETY: killpg has no memory-safety preconditions; a stale group
        // id just yields ESRCH, which is ignored.
        unsafe {
            libc::killpg(pgid, libc::SIGKILL);
        }
    }
}

impl Shell {
    pub(crate) fn new(cwd: PathBuf) -> Shell {
        Shell {
            cwd,
            tasks: Mutex::new(HashMap::new()),
            groups: Arc::new(Mutex::new(HashSet::new())),
            id_counter: AtomicU64::new(0),
        }
    }

    /// Runs `command` to completion, killing its process group after `timeout`.
    pub(crate) async fn run(
        &self,
        command: &str,
        timeout: Duration,
    ) -> Result<CommandOutput, EngineError> {
        let captured = Arc::new(Mutex::new(Captured::default()));
        let (child, guard) = self.spawn(command)?;
        Ok(drive(child, guard, Some(timeout), captured).await)
    }

    /// Runs `command` to completion in `dir` (instead of the shell's working
    /// directory), killing its process group after `timeout`, and reports the
    /// group id and terminating signal along with the output.
    pub(crate) async fn run_in_dir(
        &self,
        command: &str,
        dir: &Path,
        timeout: Duration,
    ) -> Result<GroupRun, EngineError> {
        let captured = Arc::new(Mutex::new(Captured::default()));
        let (child, guard) = self.spawn_in(command, dir)?;
        let pgid = guard.pgid;
        let (output, signal) = drive_reporting_signal(child, guard, Some(timeout), captured).await;
        Ok(GroupRun {
            output,
            pgid,
            signal,
        })
    }

    /// Starts `command` in the background and returns its 16-hex-digit id.
    /// `timeout`, if given, bounds its run time as for [`Shell::run`].
    pub(crate) fn start_background(
        &self,
        command: &str,
        timeout: Option<Duration>,
    ) -> Result<String, EngineError> {
        let mut tasks = lock(&self.tasks);
        if tasks.len() >= MAX_BACKGROUND_TASKS {
            return Err(EngineError::TaskLimit {
                limit: MAX_BACKGROUND_TASKS,
            });
        }
        let (child, guard) = self.spawn(command)?;
        let captured = Arc::new(Mutex::new(Captured::default()));
        let result = Arc::new(Mutex::new(None));
        let id = loop {
            let id = self.new_task_id();
            if !tasks.contains_key(&id) {
                break id;
            }
        };
        tasks.insert(
            id.clone(),
            BackgroundTask {
                captured: captured.clone(),
                result: result.clone(),
            },
        );
        tokio::spawn(async move {
            let output = drive(child, guard, timeout, captured).await;
            *lock(&result) = Some(output);
        });
        Ok(id)
    }

    /// How many background tasks the session holds (running, or finished but
    /// not yet reported).
    pub(crate) fn task_count(&self) -> usize {
        lock(&self.tasks).len()
    }

    /// Reports a background task; a completed task is removed once reported.
    pub(crate) fn task_status(&self, id: &str) -> Result<TaskStatus, EngineError> {
        let mut tasks = lock(&self.tasks);
        let task = tasks
            .get(id)
            .ok_or_else(|| EngineError::TaskNotFound { id: id.to_string() })?;
        let finished = lock(&task.result).clone();
        match finished {
            Some(output) => {
                tasks.remove(id);
                Ok(TaskStatus::Completed(output))
            }
            None => {
                let captured = lock(&task.captured);
                Ok(TaskStatus::Running {
                    stdout: String::from_utf8_lossy(&captured.stdout).into_owned(),
                    stderr: String::from_utf8_lossy(&captured.stderr).into_owned(),
                })
            }
        }
    }

    /// Kills every process group still alive (called when the server stops).
    pub(crate) fn kill_all(&self) {
        let groups: Vec<i32> = lock(&self.groups).drain().collect();
        for pgid in groups {
            kill_group(pgid);
        }
    }

    fn spawn(&self, command: &str) -> Result<(tokio::process::Child, GroupGuard), EngineError> {
        self.spawn_in(command, &self.cwd)
    }

    fn spawn_in(
        &self,
        command: &str,
        dir: &Path,
    ) -> Result<(tokio::process::Child, GroupGuard), EngineError> {
        self.spawn_with(command, dir, Stdio::piped(), Stdio::piped())
    }

    /// Starts `bash -c command` in `dir`, in a process group of its own that
    /// is registered for [`Shell::kill_all`], with its output going where
    /// `stdout` and `stderr` say (pipes of its own, or one shared pipe).
    fn spawn_with(
        &self,
        command: &str,
        dir: &Path,
        stdout: Stdio,
        stderr: Stdio,
    ) -> Result<(tokio::process::Child, GroupGuard), EngineError> {
        let child = Command::new("bash")
            .arg("-c")
            .arg(command)
            .current_dir(dir)
            .stdin(Stdio::null())
            .stdout(stdout)
            .stderr(stderr)
            .process_group(0)
            .kill_on_drop(true)
            .spawn()
            .map_err(|err| EngineError::StartFailed {
                cause: super::error::describe_io(&err),
            })?;
        let pgid = child
            .id()
            .and_then(|pid| i32::try_from(pid).ok())
            .ok_or_else(|| EngineError::StartFailed {
                cause: "the process exited before it could be tracked".into(),
            })?;
        lock(&self.groups).insert(pgid);
        Ok((
            child,
            GroupGuard {
                pgid,
                groups: self.groups.clone(),
            },
        ))
    }

    /// 16 lower-case hex digits from the standard library's randomly keyed
    /// SipHash over a counter: unique within a session, unguessable enough.
    fn new_task_id(&self) -> String {
        let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
        hasher.write_u64(self.id_counter.fetch_add(1, Ordering::Relaxed));
        hasher.write_u128(
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_nanos()),
        );
        format!("{:016x}", hasher.finish())
    }
}

/// Bounds for [`Shell::run_bounded`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct RunLimits {
    pub(crate) timeout: Duration,
    /// Most bytes kept per stream; one more byte on either stream kills the
    /// command's process group.
    pub(crate) output_limit: u64,
}

/// How a command run by [`Shell::run_bounded`] ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Ending {
    /// The shell ended by itself: its exit code, or the signal that ended it.
    Exited {
        code: Option<i32>,
        signal: Option<i32>,
    },
    /// Killed because it ran past its timeout.
    TimedOut,
    /// Killed (or already finished) with more output than the limit allows.
    OutputLimit,
}

/// The result of [`Shell::run_bounded`]: how it ended and the output kept
/// (at most the limit per stream).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct BoundedOutput {
    pub(crate) ending: Ending,
    pub(crate) stdout: String,
    pub(crate) stderr: String,
}

impl Shell {
    /// Runs `command` in `cwd` to completion, killing its process group when
    /// it passes `limits.timeout` or writes more than `limits.output_limit`
    /// bytes to either stream. Unlike [`Shell::run`], the exit signal is kept
    /// and the output is bounded, for dialects that report both.
    pub(crate) async fn run_bounded(
        &self,
        command: &str,
        cwd: &Path,
        limits: RunLimits,
    ) -> Result<BoundedOutput, EngineError> {
        let (mut child, guard) = self.spawn_in(command, cwd)?;
        let captured = Arc::new(Mutex::new(Captured::default()));
        let readers = OutputReaders::of_child(&mut child, captured, limits.output_limit);
        let (ended, captured) = supervise(child, guard, Some(limits.timeout), readers).await;
        let captured = lock(&captured);
        let ending = match ended {
            Ended::Killed {
                cause: KillCause::Timeout,
                ..
            } => Ending::TimedOut,
            _ if captured.exceeded => Ending::OutputLimit,
            Ended::Killed {
                cause: KillCause::OutputLimit,
                ..
            } => Ending::OutputLimit,
            Ended::Exited(status) => Ending::Exited {
                code: status.and_then(|status| status.code()),
                signal: status.and_then(|status| status.signal()),
            },
        };
        Ok(BoundedOutput {
            ending,
            stdout: String::from_utf8_lossy(&captured.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&captured.stderr).into_owned(),
        })
    }
}

/// Waits for the shell (killing the group on timeout), kills any stragglers,
/// then collects the output.
async fn drive(
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
async fn drive_reporting_signal(
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
fn command_output(
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
enum KillCause {
    Timeout,
    OutputLimit,
}

/// How a command watched by [`supervise`] ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Ended {
    /// The shell exited by itself; `None` when waiting on it failed.
    Exited(Option<ExitStatus>),
    /// Its group was killed; `signal` is what ended the shell then.
    Killed {
        cause: KillCause,
        signal: Option<i32>,
    },
}

/// The tasks copying a command's output pipes into one capture buffer.
struct OutputReaders {
    captured: Arc<Mutex<Captured>>,
    /// Woken by a reader whose stream passed its limit.
    over_limit: Arc<Notify>,
    tasks: Vec<JoinHandle<()>>,
}

impl OutputReaders {
    fn new(captured: Arc<Mutex<Captured>>) -> OutputReaders {
        OutputReaders {
            captured,
            over_limit: Arc::new(Notify::new()),
            tasks: Vec::new(),
        }
    }

    /// Readers for the child's own stdout and stderr pipes, each keeping at
    /// most `limit` bytes.
    fn of_child(
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
    fn read(&mut self, pipe: impl AsyncRead + Unpin + Send + 'static, is_stdout: bool, limit: u64) {
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
async fn supervise(
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Instant;

    fn shell() -> (tempfile::TempDir, Shell) {
        let dir = tempfile::tempdir().expect("tempdir");
        let shell = Shell::new(dir.path().to_path_buf());
        (dir, shell)
    }

    /// Running or sleeping; a killed process whose new parent has not reaped
    /// it yet is a zombie (`Z`) and counts as dead.
    fn alive(pid: i32) -> bool {
        std::fs::read_to_string(format!("/proc/{pid}/stat"))
            .ok()
            .and_then(|stat| {
                stat.rsplit(')')
                    .next()
                    .map(|rest| rest.trim_start().to_string())
            })
            .is_some_and(|rest| !rest.starts_with('Z') && !rest.starts_with('X'))
    }

    #[tokio::test]
    async fn captures_streams_and_exit_code_separately() {
        let (_dir, shell) = shell();
        let out = shell
            .run("echo out; echo err >&2; exit 3", Duration::from_secs(10))
            .await
            .expect("run");
        assert_eq!(
            out,
            CommandOutput {
                exit_code: 3,
                stdout: "out\n".into(),
                stderr: "err\n".into(),
                timed_out_after: None
            }
        );
    }

    #[tokio::test]
    async fn timeout_kills_the_whole_process_group() {
        let (dir, shell) = shell();
        let started = Instant::now();
        let out = shell
            .run(
                "sleep 30 & echo $! > child.pid; wait",
                Duration::from_millis(300),
            )
            .await
            .expect("run");
        assert!(started.elapsed() < Duration::from_secs(5));
        assert_eq!(out.exit_code, SIGNALLED_EXIT_CODE);
        assert_eq!(out.timed_out_after, Some(Duration::from_millis(300)));
        let pid: i32 = std::fs::read_to_string(dir.path().join("child.pid"))
            .expect("pid")
            .trim()
            .parse()
            .expect("int");
        tokio::time::sleep(Duration::from_millis(100)).await;
        assert!(!alive(pid), "grandchild {pid} survived the timeout");
    }

    #[tokio::test]
    async fn stragglers_are_killed_when_the_shell_exits() {
        let (dir, shell) = shell();
        let started = Instant::now();
        let out = shell
            .run("sleep 30 & echo $! > child.pid", Duration::from_secs(20))
            .await
            .expect("run");
        assert_eq!(out.exit_code, 0);
        assert!(started.elapsed() < Duration::from_secs(5));
        let pid: i32 = std::fs::read_to_string(dir.path().join("child.pid"))
            .expect("pid")
            .trim()
            .parse()
            .expect("int");
        tokio::time::sleep(Duration::from_millis(100)).await;
        assert!(!alive(pid));
    }

    #[tokio::test]
    async fn bounded_run_reports_signals_timeouts_and_output_limits() {
        let (dir, shell) = shell();
        let limits = RunLimits {
            timeout: Duration::from_secs(10),
            output_limit: 1000,
        };
        let out = shell
            .run_bounded("echo out; echo err >&2; exit 4", dir.path(), limits)
            .await
            .expect("run");
        assert_eq!(
            out,
            BoundedOutput {
                ending: Ending::Exited {
                    code: Some(4),
                    signal: None
                },
                stdout: "out\n".into(),
                stderr: "err\n".into(),
            }
        );
        let out = shell
            .run_bounded("kill -9 $$", dir.path(), limits)
            .await
            .expect("run");
        assert_eq!(
            out.ending,
            Ending::Exited {
                code: None,
                signal: Some(libc::SIGKILL)
            }
        );
        let started = Instant::now();
        let out = shell
            .run_bounded("yes; touch after", dir.path(), limits)
            .await
            .expect("run");
        assert_eq!(out.ending, Ending::OutputLimit);
        assert_eq!(out.stdout.len(), 1000);
        assert!(started.elapsed() < Duration::from_secs(5));
        assert!(
            !dir.path().join("after").exists(),
            "the command was not killed"
        );
        let short = RunLimits {
            timeout: Duration::from_millis(300),
            output_limit: 1000,
        };
        let out = shell
            .run_bounded("echo early; sleep 30", dir.path(), short)
            .await
            .expect("run");
        assert_eq!(out.ending, Ending::TimedOut);
        assert_eq!(out.stdout, "early\n");
    }

    #[tokio::test]
    async fn run_in_dir_reports_group_and_signal() {
        let (dir, shell) = shell();
        std::fs::create_dir(dir.path().join("sub")).expect("mkdir");
        let run = shell
            .run_in_dir(
                "basename \"$PWD\"; cut -d' ' -f5 /proc/$$/stat",
                &dir.path().join("sub"),
                Duration::from_secs(10),
            )
            .await
            .expect("run");
        let mut lines = run.output.stdout.lines();
        assert_eq!(lines.next(), Some("sub"));
        assert_eq!(
            lines.next().map(str::trim),
            Some(run.pgid.to_string().as_str())
        );
        assert_eq!(run.signal, None);
        let killed = shell
            .run_in_dir("kill -TERM $$", dir.path(), Duration::from_secs(10))
            .await
            .expect("run");
        assert_eq!(killed.signal, Some(libc::SIGTERM));
        assert_eq!(killed.output.exit_code, SIGNALLED_EXIT_CODE);
    }

    #[tokio::test]
    async fn background_tasks_are_limited_reported_and_forgotten() {
        let (_dir, shell) = shell();
        let quick = shell.start_background("echo done", None).expect("start");
        assert_eq!(quick.len(), 16);
        assert!(quick.chars().all(|c| c.is_ascii_hexdigit()));
        let mut slow = Vec::new();
        for _ in 0..MAX_BACKGROUND_TASKS - 1 {
            slow.push(shell.start_background("sleep 30", None).expect("start"));
        }
        assert_eq!(
            shell.start_background("true", None),
            Err(EngineError::TaskLimit {
                limit: MAX_BACKGROUND_TASKS
            })
        );
        let deadline = Instant::now() + Duration::from_secs(5);
        let done = loop {
            match shell.task_status(&quick).expect("status") {
                TaskStatus::Completed(out) => break out,
                TaskStatus::Running { .. } if Instant::now() < deadline => {
                    tokio::time::sleep(Duration::from_millis(20)).await
                }
                TaskStatus::Running { .. } => panic!("task never finished"),
            }
        };
        assert_eq!(done.stdout, "done\n");
        assert_eq!(
            shell.task_status(&quick),
            Err(EngineError::TaskNotFound { id: quick.clone() })
        );
        assert!(matches!(
            shell.task_status(&slow[0]),
            Ok(TaskStatus::Running { .. })
        ));
        shell.kill_all();
    }
}
