//! `bash`: a command's result is the JSON object
//! `{"exit_code","stdout","stderr","signal","timed_out"}`, a success even
//! when the exit code is not 0. Running past the timeout is the `timeout`
//! failure with the output so far; writing more than the output limit to a
//! stream kills the command and is `output_limit`; a command that cannot be
//! started (for example one containing a NUL byte, which no `exec` accepts)
//! is `io_error`.

use std::time::Duration;

use rmcp::model::JsonObject;
use serde::Serialize;
use serde_json::Value;

use super::super::{Context, Failure, Reply};
use super::mutations::Mutation;
use super::params::{argument_failure, int_at_least};
use super::workspace::{self, Target};
use crate::dialects::common::args::Args;
use crate::engine::shell::{BoundedOutput, Ending, RunLimits};

/// The longest a command may be given, as upstream's `bashTimeoutMaxMs`.
const MAX_TIMEOUT_MS: u64 = 600_000;

/// The success object, fields in upstream's order.
#[derive(Debug, Serialize)]
struct CommandResult<'a> {
    exit_code: i32,
    stdout: &'a str,
    stderr: &'a str,
    signal: Option<&'static str>,
    timed_out: bool,
}

pub(super) async fn bash(ctx: &Context, raw: &JsonObject) -> Result<Reply, Failure> {
    let args = Args::new(raw, &["command", "cwd", "timeout_ms"]).map_err(argument_failure)?;
    let command = args.string("command").map_err(argument_failure)?;
    let cwd = args.opt_string("cwd").map_err(argument_failure)?;
    let requested = int_at_least(&args, "timeout_ms", 1)?;
    let cwd = match cwd {
        Some(raw_cwd) => working_directory(ctx, &raw_cwd)?,
        None => ctx.policy.root().to_path_buf(),
    };
    let timeout_ms = requested
        .map_or_else(
            || u64::try_from(ctx.default_timeout.as_millis()).unwrap_or(MAX_TIMEOUT_MS),
            |ms| u64::try_from(ms).unwrap_or(1),
        )
        .min(MAX_TIMEOUT_MS);
    let limits = RunLimits {
        timeout: Duration::from_millis(timeout_ms),
        output_limit: ctx.output_limit,
    };
    let run = ctx
        .shell
        .run_bounded(&command, &cwd, limits)
        .await
        .map_err(|err| workspace::engine_failure(err, "."))?;
    outcome(ctx, run, timeout_ms)
}

fn working_directory(ctx: &Context, raw: &str) -> Result<std::path::PathBuf, Failure> {
    let Target { real, shown, .. } = workspace::resolve(ctx, raw)?;
    let meta = ctx.policy.stat(&real).map_err(|err| workspace::fs_failure(&err, &shown, "stat"))?;
    if !meta.is_dir() {
        return Err(workspace::not_directory(&shown));
    }
    Ok(real)
}

fn outcome(ctx: &Context, run: BoundedOutput, timeout_ms: u64) -> Result<Reply, Failure> {
    match run.ending {
        Ending::Exited { code, signal } => {
            // As Node reports it: a signal's death is 128 + its number.
            let exit_code = match code {
                Some(code) => code,
                None if ctx.mutations.is_active(Mutation::SignalExitCodeMinusOne) => -1,
                None => 128 + signal.unwrap_or(0),
            };
            let result = CommandResult {
                exit_code,
                stdout: &run.stdout,
                stderr: &run.stderr,
                signal: signal.map(signal_name),
                timed_out: false,
            };
            let serialized = if ctx.mutations.is_active(Mutation::ExitCodeAsString) {
                serde_json::to_value(&result).map(|mut json| {
                    json["exit_code"] = Value::from(exit_code.to_string());
                    json.to_string()
                })
            } else {
                serde_json::to_string(&result)
            };
            let text = serialized.map_err(|err| {
                workspace::internal(format!("serializing a command result: {err}"))
            })?;
            Ok(Reply::Success {
                text,
                exit_code: Some(exit_code),
            })
        }
        Ending::TimedOut => {
            let mut failure = Failure::new("timeout", format!("Command exceeded {timeout_ms}ms"));
            failure
                .extra
                .insert("timeout_ms".into(), Value::from(timeout_ms));
            if !ctx.mutations.is_active(Mutation::TimeoutDropsOutput) {
                add_output(&mut failure, run);
            }
            Err(failure)
        }
        Ending::OutputLimit => {
            let mut failure = Failure::new(
                "output_limit",
                format!(
                    "Command output passed the {}-byte limit on one stream, so the command was killed",
                    ctx.output_limit
                ),
            );
            failure
                .extra
                .insert("limit".into(), Value::from(ctx.output_limit));
            add_output(&mut failure, run);
            Err(failure)
        }
    }
}

/// Adds the output a killed command wrote before it was killed to its
/// failure, as the `stdout` and `stderr` fields.
fn add_output(failure: &mut Failure, run: BoundedOutput) {
    failure
        .extra
        .insert("stdout".into(), Value::from(run.stdout));
    failure
        .extra
        .insert("stderr".into(), Value::from(run.stderr));
}

/// `SIGKILL` for 9, as Node names the signal that ended a child.
fn signal_name(number: i32) -> &'static str {
    const NAMES: [&str; 32] = [
        "SIG0",
        "SIGHUP",
        "SIGINT",
        "SIGQUIT",
        "SIGILL",
        "SIGTRAP",
        "SIGABRT",
        "SIGBUS",
        "SIGFPE",
        "SIGKILL",
        "SIGUSR1",
        "SIGSEGV",
        "SIGUSR2",
        "SIGPIPE",
        "SIGALRM",
        "SIGTERM",
        "SIGSTKFLT",
        "SIGCHLD",
        "SIGCONT",
        "SIGSTOP",
        "SIGTSTP",
        "SIGTTIN",
        "SIGTTOU",
        "SIGURG",
        "SIGXCPU",
        "SIGXFSZ",
        "SIGVTALRM",
        "SIGPROF",
        "SIGWINCH",
        "SIGIO",
        "SIGPWR",
        "SIGSYS",
    ];
    usize::try_from(number)
        .ok()
        .and_then(|n| NAMES.get(n).copied())
        .unwrap_or("SIGUNKNOWN")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_result_object_keeps_upstream_field_order() {
        let result = CommandResult {
            exit_code: 3,
            stdout: "out\n",
            stderr: "",
            signal: None,
            timed_out: false,
        };
        assert_eq!(
            serde_json::to_string(&result).expect("json"),
            r#"{"exit_code":3,"stdout":"out\n","stderr":"","signal":null,"timed_out":false}"#
        );
    }

    #[test]
    fn signals_are_named() {
        assert_eq!(signal_name(9), "SIGKILL");
        assert_eq!(signal_name(15), "SIGTERM");
        assert_eq!(signal_name(99), "SIGUNKNOWN");
    }
}
