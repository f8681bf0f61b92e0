//! Runs that cap a command's output as well as its time, for dialects that
//! report the ending (exit, signal, timeout, output limit) precisely.

use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use super::supervise::{supervise, Captured, Ended, KillCause, OutputReaders};
use super::{lock, Shell};
use crate::engine::error::EngineError;

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
