//! `run_shell_command`: `bash -c <command>` in its own process group, in the
//! root or in `directory` (relative to the root), answered with gemini-cli's
//! nine-line report. Stdout and Stderr are the raw streams, not trimmed, so a
//! trailing newline shows as an empty line before the next field; empty
//! values print `(empty)` or `(none)`. A non-zero exit is a normal result.
//!
//! Differences from upstream, by design: a command still running after the
//! server's timeout is killed (`Signal: SIGKILL`, `Exit Code: (none)`);
//! processes a command leaves in the background are killed when it ends, so
//! `Background PIDs` is always `(none)`; `directory` may not lead outside the
//! root, nor name a file.

use std::path::Path;

use rmcp::model::JsonObject;
use serde_json::Value;

use super::confine::{self, Refusal};
use super::mutations::Mutation;
use super::params::Params;
use super::{invalid_params, plain_error, thrown, Context, Outcome};
use crate::dialects::{Failure, Reply};
use crate::engine::shell::SIGNALLED_EXIT_CODE;
use crate::engine::EngineError;
use crate::mutations::Mutations;

const SUBSTITUTION: &str = "Command substitution using $() is not allowed for security reasons";

/// What the report shows; `None` prints `(none)`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Report<'a> {
    pub(crate) command: &'a str,
    pub(crate) directory: Option<&'a str>,
    pub(crate) stdout: &'a str,
    pub(crate) stderr: &'a str,
    pub(crate) error: Option<String>,
    pub(crate) exit_code: Option<i32>,
    pub(crate) signal: Option<i32>,
    pub(crate) pgid: Option<i32>,
}

pub(crate) async fn run_shell_command(ctx: &Context, raw: &JsonObject) -> Outcome {
    let command = command_as_upstream_reads_it(raw)?;
    let params = Params::new(raw, &["command"]).map_err(invalid_params)?;
    let rejected = |why: String| -> Failure {
        plain_error(format!("Command rejected: {command}\nReason: {why}"))
    };
    // Upstream's check is a plain substring test, made before anything else.
    if command.contains("$(") {
        return Err(rejected(SUBSTITUTION.into()));
    }
    params.opt_string("description").map_err(rejected)?;
    let directory = params
        .opt_string("directory")
        .map_err(rejected)?
        .filter(|d| !d.is_empty());
    if command.trim().is_empty() {
        return Err(rejected("Command cannot be empty.".into()));
    }
    if command_root(&command).is_none() {
        return Err(rejected(
            "Could not identify command root to obtain permission from user.".into(),
        ));
    }
    let cwd = match directory.as_deref() {
        None => ctx.policy.root().to_path_buf(),
        Some(dir) => {
            if Path::new(dir).is_absolute() {
                return Err(rejected(
                    "Directory cannot be absolute. Must be relative to the project root directory."
                        .into(),
                ));
            }
            let real = confine::within_root(ctx, dir).map_err(|refusal| {
                rejected(match refusal {
                    Refusal::Relative | Refusal::OutsideRoot => format!(
                        "Directory must be within the root directory ({}): {dir}",
                        ctx.policy.root().display()
                    ),
                    Refusal::Unusable(why) => why,
                })
            })?;
            match ctx.policy.stat(&real) {
                Err(_) => return Err(rejected("Directory must exist.".into())),
                Ok(meta) if !meta.is_dir() => {
                    return Err(rejected(
                        "Directory must be a directory, not a file.".into(),
                    ))
                }
                Ok(_) => real,
            }
        }
    };
    let mut report = Report {
        command: &command,
        directory: directory.as_deref(),
        ..Report::default()
    };
    match ctx
        .shell
        .run_in_dir(&command, &cwd, ctx.default_timeout)
        .await
    {
        Ok(run) => {
            let exit_code = (run.signal.is_none() || run.output.exit_code != SIGNALLED_EXIT_CODE)
                .then_some(run.output.exit_code);
            report.stdout = &run.output.stdout;
            report.stderr = &run.output.stderr;
            report.exit_code = exit_code;
            report.signal = run.signal;
            report.pgid = Some(run.pgid);
            Ok(Reply::Success {
                text: render(&report, &ctx.mutations),
                exit_code: Some(run.output.exit_code),
            })
        }
        Err(err) => {
            report.error = Some(match err {
                EngineError::StartFailed { cause } => format!("spawn bash: {cause}"),
                other => format!("{other:?}"),
            });
            Err(plain_error(render(&report, &ctx.mutations)))
        }
    }
}

/// The command, read as 0.1.13 reads it (shell.js, `isCommandAllowed`): its
/// `$(` check calls `command.includes` before anything validates the
/// arguments, so a command that is not a string throws there, and the
/// scheduler sends the `TypeError`'s message as the error. An array has an
/// `includes` of its own: one holding the string `$(` is refused as a command
/// whose text is the array's JavaScript spelling, any other throws at the
/// `command.split` after it.
fn command_as_upstream_reads_it(raw: &JsonObject) -> Result<String, Failure> {
    match raw.get("command") {
        Some(Value::String(command)) => Ok(command.clone()),
        None => Err(thrown(
            "Cannot read properties of undefined (reading 'includes')",
        )),
        Some(Value::Null) => Err(thrown("Cannot read properties of null (reading 'includes')")),
        Some(Value::Array(items)) if items.iter().any(|item| item == "$(") => {
            Err(plain_error(format!(
                "Command rejected: {}\nReason: {SUBSTITUTION}",
                js_string(&Value::Array(items.clone()))
            )))
        }
        Some(Value::Array(_)) => Err(thrown("command.split is not a function")),
        Some(_) => Err(thrown("command.includes is not a function")),
    }
}

/// JavaScript's `String(value)` for a JSON value: an array joins its items
/// with commas (null as nothing), an object is `[object Object]`.
fn js_string(value: &Value) -> String {
    match value {
        Value::Null => String::new(),
        Value::String(s) => s.clone(),
        Value::Array(items) => items.iter().map(js_string).collect::<Vec<_>>().join(","),
        Value::Object(_) => "[object Object]".to_string(),
        other => other.to_string(),
    }
}

/// The first word of the command without its directory, as gemini-cli finds
/// the "command root" it asks permission for; `None` when there is none.
pub(crate) fn command_root(command: &str) -> Option<&str> {
    let first = command
        .trim()
        .split(|c: char| c.is_whitespace() || matches!(c, ';' | '&' | '|'))
        .next()?;
    let root = first.rsplit(['/', '\\']).next()?;
    // Grouping characters are dropped before the split upstream.
    (!root.trim_matches(['{', '}', '(', ')']).is_empty()).then_some(root)
}

/// The nine lines of gemini-cli's report (eight with `no-pgid-line`).
pub(crate) fn render(report: &Report, mutations: &Mutations) -> String {
    let trim = mutations.is_active(Mutation::TrimStdout);
    let blank_empty = mutations.is_active(Mutation::EmptyAsBlank);
    let stream = |text: &str| -> String {
        let text = if trim { text.trim() } else { text };
        if text.is_empty() && !blank_empty {
            "(empty)".to_string()
        } else {
            text.to_string()
        }
    };
    let none = |value: Option<String>| value.unwrap_or_else(|| "(none)".to_string());
    let mut lines = vec![
        format!("Command: {}", command_line(report.command, mutations)),
        format!("Directory: {}", report.directory.unwrap_or("(root)")),
        format!("Stdout: {}", stream(report.stdout)),
        format!("Stderr: {}", stream(report.stderr)),
        format!("Error: {}", none(report.error.clone())),
        format!(
            "Exit Code: {}",
            none(report.exit_code.map(|c| c.to_string()))
        ),
        format!("Signal: {}", none(report.signal.map(signal_name))),
        "Background PIDs: (none)".to_string(),
    ];
    if !mutations.is_active(Mutation::NoPgidLine) {
        lines.push(format!(
            "Process Group PGID: {}",
            none(report.pgid.map(|p| p.to_string()))
        ));
    }
    lines.join("\n")
}

/// Node's name for a signal number (`SIGTERM`).
/// The command as the report shows it: exactly as sent, unless the
/// `command-line-trimmed` mutation trims it.
fn command_line<'a>(command: &'a str, mutations: &Mutations) -> &'a str {
    if mutations.is_active(Mutation::CommandLineTrimmed) {
        command.trim()
    } else {
        command
    }
}

fn signal_name(signal: i32) -> String {
    const NAMES: &[(i32, &str)] = &[
        (libc::SIGHUP, "SIGHUP"),
        (libc::SIGINT, "SIGINT"),
        (libc::SIGQUIT, "SIGQUIT"),
        (libc::SIGILL, "SIGILL"),
        (libc::SIGTRAP, "SIGTRAP"),
        (libc::SIGABRT, "SIGABRT"),
        (libc::SIGBUS, "SIGBUS"),
        (libc::SIGFPE, "SIGFPE"),
        (libc::SIGKILL, "SIGKILL"),
        (libc::SIGUSR1, "SIGUSR1"),
        (libc::SIGSEGV, "SIGSEGV"),
        (libc::SIGUSR2, "SIGUSR2"),
        (libc::SIGPIPE, "SIGPIPE"),
        (libc::SIGALRM, "SIGALRM"),
        (libc::SIGTERM, "SIGTERM"),
    ];
    NAMES
        .iter()
        .find(|(n, _)| *n == signal)
        .map_or_else(|| format!("SIG{signal}"), |(_, name)| name.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mutations::Mutations;

    fn mutated(names: &[Mutation]) -> Mutations {
        Mutations::of(names)
    }

    fn sample() -> Report<'static> {
        Report {
            command: "echo hi",
            directory: None,
            stdout: "hi\n",
            stderr: "",
            exit_code: Some(0),
            pgid: Some(4242),
            ..Report::default()
        }
    }

    #[test]
    fn the_report_keeps_raw_streams_and_names_empties() {
        assert_eq!(
            render(&sample(), &mutated(&[])),
            "Command: echo hi\nDirectory: (root)\nStdout: hi\n\nStderr: (empty)\nError: (none)\n\
             Exit Code: 0\nSignal: (none)\nBackground PIDs: (none)\nProcess Group PGID: 4242"
        );
    }

    #[test]
    fn mutations_bend_the_report() {
        let text = render(
            &sample(),
            &mutated(&[
                Mutation::TrimStdout,
                Mutation::EmptyAsBlank,
                Mutation::NoPgidLine,
            ]),
        );
        assert_eq!(
            text,
            "Command: echo hi\nDirectory: (root)\nStdout: hi\nStderr: \nError: (none)\n\
             Exit Code: 0\nSignal: (none)\nBackground PIDs: (none)"
        );
    }

    #[test]
    fn the_command_is_shown_as_sent() {
        let report = Report {
            command: "  echo hi",
            ..sample()
        };
        assert!(render(&report, &mutated(&[])).starts_with("Command:   echo hi\n"));
        let trimmed = render(&report, &mutated(&[Mutation::CommandLineTrimmed]));
        assert!(trimmed.starts_with("Command: echo hi\n"), "{trimmed}");
    }

    #[test]
    fn a_signal_is_named() {
        let report = Report {
            exit_code: None,
            signal: Some(libc::SIGKILL),
            ..sample()
        };
        let text = render(&report, &mutated(&[]));
        assert!(
            text.contains("\nExit Code: (none)\nSignal: SIGKILL\n"),
            "{text}"
        );
    }

    #[test]
    fn a_command_that_is_no_string_throws_as_upstream_does() {
        let read = |value: Value| {
            let mut raw = JsonObject::new();
            raw.insert("command".into(), value);
            command_as_upstream_reads_it(&raw)
        };
        assert_eq!(read(Value::from("echo hi")), Ok("echo hi".to_string()));
        assert_eq!(
            command_as_upstream_reads_it(&JsonObject::new()),
            Err(thrown("Cannot read properties of undefined (reading 'includes')"))
        );
        assert_eq!(
            read(Value::Null),
            Err(thrown("Cannot read properties of null (reading 'includes')"))
        );
        assert_eq!(
            read(Value::from(7)),
            Err(thrown("command.includes is not a function"))
        );
        assert_eq!(
            read(serde_json::json!(["echo", 1])),
            Err(thrown("command.split is not a function"))
        );
        assert_eq!(
            read(serde_json::json!(["a", "$(", null])),
            Err(plain_error(format!(
                "Command rejected: a,$(,\nReason: {SUBSTITUTION}"
            )))
        );
    }

    #[test]
    fn the_command_root_is_the_first_word() {
        assert_eq!(command_root("ls -la"), Some("ls"));
        assert_eq!(command_root("  /usr/bin/env x"), Some("env"));
        assert_eq!(command_root("cat a | wc -l"), Some("cat"));
        assert_eq!(command_root("&& ls"), None);
        assert_eq!(command_root("/usr/bin/"), None);
    }
}
