//! Process groups: every command starts as the leader of a group of its own,
//! registered with the shell, so one `killpg` ends everything it started and
//! the server can kill what is left when it stops.

use std::collections::HashSet;
use std::path::Path;
use std::process::Stdio;
use std::sync::{Arc, Mutex};

use tokio::process::Command;

use super::{lock, orphans, Shell};
use crate::engine::error::{describe_io, EngineError};

/// Kills a process group when dropped: on normal completion (stragglers), on
/// timeout, and when the caller's future is cancelled.
pub(super) struct GroupGuard {
    pub(super) pgid: i32,
    groups: Arc<Mutex<HashSet<i32>>>,
}

impl Drop for GroupGuard {
    fn drop(&mut self) {
        kill_group(self.pgid);
        let mut groups = lock(&self.groups);
        groups.remove(&self.pgid);
        // A good moment to reap what left the group and has exited since;
        // under the lock, so no shell being spawned is taken for one.
        orphans::reap_adopted(&groups);
    }
}

pub(super) fn kill_group(pgid: i32) {
    if pgid > 1 {
        // SAFETY: killpg has no memory-safety preconditions; a stale group
        // id just yields ESRCH, which is ignored.
        unsafe {
            libc::killpg(pgid, libc::SIGKILL);
        }
    }
}

impl Shell {
    pub(super) fn spawn(
        &self,
        command: &str,
    ) -> Result<(tokio::process::Child, GroupGuard), EngineError> {
        self.spawn_in(command, &self.cwd)
    }

    pub(super) fn spawn_in(
        &self,
        command: &str,
        dir: &Path,
    ) -> Result<(tokio::process::Child, GroupGuard), EngineError> {
        self.spawn_with(command, dir, Stdio::piped(), Stdio::piped())
    }

    /// Starts `bash -c command` in `dir`, in a process group of its own that
    /// is registered for [`Shell::kill_all`], with its output going where
    /// `stdout` and `stderr` say (pipes of its own, or one shared pipe).
    pub(super) fn spawn_with(
        &self,
        command: &str,
        dir: &Path,
        stdout: Stdio,
        stderr: Stdio,
    ) -> Result<(tokio::process::Child, GroupGuard), EngineError> {
        // Held from the spawn to the registration, so that a shell exiting at
        // once is never taken for an adopted orphan and reaped behind tokio.
        let mut groups = lock(&self.groups);
        orphans::note_fork();
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
                cause: describe_io(&err),
            })?;
        let pgid = child
            .id()
            .and_then(|pid| i32::try_from(pid).ok())
            .ok_or_else(|| EngineError::StartFailed {
                cause: "the process exited before it could be tracked".into(),
            })?;
        groups.insert(pgid);
        drop(groups);
        Ok((
            child,
            GroupGuard {
                pgid,
                groups: self.groups.clone(),
            },
        ))
    }
}
