//! Running a command with its standard error sent into the same pipe as its
//! standard output, for tools whose result is "combined stdout/stderr".
//!
//! Capturing the two streams separately and concatenating them afterwards
//! would lose their interleaving (`echo a; echo b >&2; echo c` must read
//! `a b c`), so both descriptors of the child point at one pipe.

use std::io;
use std::os::fd::OwnedFd;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::net::unix::pipe::Receiver;

use super::group::GroupGuard;
use super::supervise::{command_output, supervise, Captured, OutputReaders};
use super::{lock, CommandOutput, Shell};
use crate::engine::error::{describe_io, EngineError};

fn start_failed(err: &io::Error) -> EngineError {
    EngineError::StartFailed {
        cause: describe_io(err),
    }
}

impl Shell {
    /// Runs `command` to completion like [`Shell::run`], but with stderr
    /// merged into stdout: the result's `stdout` holds both streams in the
    /// order they were written and `stderr` is empty.
    pub(crate) async fn run_merged(
        &self,
        command: &str,
        timeout: Duration,
    ) -> Result<CommandOutput, EngineError> {
        let (reader, writer) = io::pipe().map_err(|err| start_failed(&err))?;
        let (child, guard) = self.spawn_merged(command, writer)?;
        let receiver = match Receiver::from_owned_fd(OwnedFd::from(reader)) {
            Ok(receiver) => receiver,
            Err(err) => {
                // Dropping the guard kills the group that was just started.
                drop(guard);
                return Err(start_failed(&err));
            }
        };
        let mut readers = OutputReaders::new(Arc::new(Mutex::new(Captured::default())));
        readers.read(receiver, true, u64::MAX);
        let (ended, merged) = supervise(child, guard, Some(timeout), readers).await;
        // Nothing writes to the capture's stderr: both streams are in stdout.
        let merged = lock(&merged);
        Ok(command_output(ended, Some(timeout), &merged).0)
    }

    /// Starts `bash -c command` in its own process group with both output
    /// descriptors on `writer`. The parent's copies of `writer` are closed
    /// when this returns, so the pipe ends when the command's group is gone.
    fn spawn_merged(
        &self,
        command: &str,
        writer: io::PipeWriter,
    ) -> Result<(tokio::process::Child, GroupGuard), EngineError> {
        let stderr_writer = writer.try_clone().map_err(|err| start_failed(&err))?;
        self.spawn_with(
            command,
            &self.cwd,
            Stdio::from(writer),
            Stdio::from(stderr_writer),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn both_streams_arrive_in_one_pipe_in_order() {
        let dir = tempfile::tempdir().expect("tempdir");
        let shell = Shell::new(dir.path().to_path_buf());
        let out = shell
            .run_merged(
                "echo one; echo two >&2; echo three; exit 4",
                Duration::from_secs(10),
            )
            .await
            .expect("run");
        assert_eq!(out.stdout, "one\ntwo\nthree\n");
        assert_eq!(out.stderr, "");
        assert_eq!(out.exit_code, 4);
        assert_eq!(out.timed_out_after, None);
    }

    #[tokio::test]
    async fn a_timeout_kills_the_group_and_keeps_what_was_written() {
        let dir = tempfile::tempdir().expect("tempdir");
        let shell = Shell::new(dir.path().to_path_buf());
        let started = std::time::Instant::now();
        let out = shell
            .run_merged("echo early; sleep 30", Duration::from_millis(300))
            .await
            .expect("run");
        assert!(started.elapsed() < Duration::from_secs(5));
        assert_eq!(out.stdout, "early\n");
        assert_eq!(out.timed_out_after, Some(Duration::from_millis(300)));
    }
}
