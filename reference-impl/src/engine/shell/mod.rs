//! Running `bash -c` commands, in the foreground with a timeout or in the
//! background as numbered tasks.
//!
//! Each command gets its own process group, so a timeout (or the server
//! shutting down) kills everything it started with one `killpg`, not just the
//! shell. When the shell itself exits, whatever it left running in its group
//! is killed too: a command cannot leave processes behind, and its output
//! pipes close promptly.
//!
//! A command can leave its group (`setsid`); `orphans` makes the server the
//! subreaper of everything it starts, so such a process is still found and
//! killed on the way out ([`kill_descendants`], once the runtime's threads
//! have ended).
//!
//! `group` starts a command in its own process group, `supervise` waits for
//! it (killing the group on timeout or too much output) and captures its
//! output, `background` keeps the numbered tasks, `orphans` finds what left
//! its group, and `bounded` and `merged` are the runs that cap the output or
//! merge its two streams.

mod background;
mod bounded;
mod group;
mod merged;
mod orphans;
mod supervise;

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicU64;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use super::error::EngineError;
use background::BackgroundTask;
use group::kill_group;
use supervise::{drive, drive_reporting_signal, Captured};

pub(crate) use background::{TaskStatus, MAX_BACKGROUND_TASKS};
pub(crate) use bounded::{BoundedOutput, Ending, RunLimits};
pub(crate) use orphans::{become_subreaper, kill_descendants};

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

    /// Kills every process group still alive (called when the server stops).
    pub(crate) fn kill_all(&self) {
        let groups: Vec<i32> = lock(&self.groups).drain().collect();
        for pgid in groups {
            kill_group(pgid);
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
