//! `bash` (foreground, or a numbered background task) and `task_output`.
//!
//! A result is `exit_code: N\n`, then `\nstderr:\n…` and `\nstdout:\n…` when
//! non-empty, each ending with a newline even when the command printed none
//! (Boris 1.0.0 reads a foreground command's streams line by line, dropping
//! each line's `\r`, and the empty lines that end its stdout); a background
//! task's streams are shown as printed; a timeout prefixes
//! `Command timed out after <ms> ms\n\n`. `task_output` answers `status:
//! running\n` with the output so far, or `status: completed\n` and the
//! command's result.

use std::time::Duration;

use rmcp::model::JsonObject;

use super::failure::{argument_failure, engine_failure, failure};
use super::mutations::Mutation;
use super::params::non_empty;
use super::Outcome;
use crate::dialects::common::args::Args;
use crate::dialects::{Context, Reply};
use crate::engine::shell::{CommandOutput, TaskStatus, MAX_BACKGROUND_TASKS};
use crate::engine::EngineError;
use crate::mutations::Mutations;

pub(super) async fn bash(ctx: &Context, raw: &JsonObject) -> Outcome {
    let args = Args::new(
        raw,
        &["command", "timeout", "run_in_background", "description"],
    )
    .map_err(argument_failure)?;
    let command = args.string("command").map_err(argument_failure)?;
    let timeout_ms = args.opt_int("timeout").map_err(argument_failure)?;
    let background = args
        .opt_bool("run_in_background")
        .map_err(argument_failure)?
        .unwrap_or(false);
    args.opt_string("description").map_err(argument_failure)?;
    let blank = if ctx.mutations.is_active(Mutation::BlankCommandRuns) {
        command.is_empty()
    } else {
        command.trim().is_empty()
    };
    if blank {
        return Err(failure("BASH_EMPTY_COMMAND", "command must not be empty"));
    }
    let explicit_timeout = timeout_ms
        .filter(|ms| *ms > 0)
        .map(|ms| Duration::from_millis(ms.unsigned_abs()));
    if background {
        if ctx.mutations.is_active(Mutation::TaskLimitOffByOne)
            && ctx.shell.task_count() + 1 >= MAX_BACKGROUND_TASKS
        {
            return Err(engine_failure(EngineError::TaskLimit {
                limit: MAX_BACKGROUND_TASKS,
            }));
        }
        let id = ctx
            .shell
            .start_background(&command, explicit_timeout)
            .map_err(engine_failure)?;
        return Ok(Reply::text(format!(
            "task_id: {id}\nCommand started in background."
        )));
    }
    let mut output = ctx
        .shell
        .run(&wrapped(&command), explicit_timeout.unwrap_or(ctx.default_timeout))
        .await
        .map_err(engine_failure)?;
    output.stdout = foreground_stdout(&output.stdout);
    output.stderr = scanned(&output.stderr);
    if ctx.mutations.is_active(Mutation::NonzeroExitDropsStderr) && output.exit_code != 0 {
        output.stderr.clear();
    }
    Ok(Reply::Success {
        text: render_command(&ctx.mutations, &output, true),
        exit_code: Some(output.exit_code),
    })
}

/// The line echoed after a foreground command ends, as Boris echoes its own
/// (bash.go:66); what follows it is not the command's.
const END_MARK: &str = "__toolspec_boris_command_ended__";

/// The command as Boris runs it in the foreground, `cd DIR && CMD ; echo ;
/// echo SENTINEL ; pwd` (bash.go:66), so that the command parses alike (a
/// trailing `;` is a syntax error, a `#` comments the rest out, an `exit`
/// leaves before the mark), but keeping the command's own status, which the
/// seed asks for and Boris loses to `pwd` (a departure of Boris).
fn wrapped(command: &str) -> String {
    format!("cd . && {command} ; __boris_status=$? ; echo ; echo '{END_MARK}' ; exit $__boris_status")
}

/// A stream as Boris collects it, line by line with Go's scanner, which drops
/// the `\r` before each line's end (bash.go:161-166).
fn scanned(raw: &str) -> String {
    raw.split_inclusive('\n')
        .map(|piece| {
            let (line, end) = match piece.strip_suffix('\n') {
                Some(line) => (line, "\n"),
                None => (piece, ""),
            };
            format!("{}{end}", line.strip_suffix('\r').unwrap_or(line))
        })
        .collect()
}

/// Stdout of a foreground command: [`scanned`], and, when the command ran
/// to its end mark, the lines before the mark with every empty line at their
/// end dropped (Boris's `parseSentinel`, bash.go:313-345).
fn foreground_stdout(raw: &str) -> String {
    let text = scanned(raw);
    let lines: Vec<&str> = text.split('\n').collect();
    let Some(mark) = lines.iter().rposition(|line| *line == END_MARK) else {
        return text;
    };
    let mut kept = &lines[..mark];
    while let Some((last, rest)) = kept.split_last() {
        if !last.is_empty() {
            break;
        }
        kept = rest;
    }
    if kept.is_empty() {
        String::new()
    } else {
        format!("{}\n", kept.join("\n"))
    }
}

/// `[timeout note]exit_code: N\n[\nstderr:\n…][\nstdout:\n…]`.
fn render_command(mutations: &Mutations, output: &CommandOutput, end_lines: bool) -> String {
    let mut text = String::new();
    if let Some(limit) = output.timed_out_after {
        text.push_str(&format!(
            "Command timed out after {} ms\n\n",
            limit.as_millis()
        ));
    }
    if output.exit_code != 0 || !mutations.is_active(Mutation::OmitZeroExitCode) {
        text.push_str(&format!("exit_code: {}\n", output.exit_code));
    }
    text.push_str(&render_streams(mutations, &output.stdout, &output.stderr, end_lines));
    text
}

/// The non-empty streams as sections, stderr first: `\nstderr:\n…`, each
/// ending with a newline when `end_lines` (a foreground command's, read line
/// by line), or as printed (a background task's, read whole: bash.go:195).
fn render_streams(mutations: &Mutations, stdout: &str, stderr: &str, end_lines: bool) -> String {
    let folded;
    let (stdout, stderr) = if mutations.is_active(Mutation::StderrFoldedIntoStdout) {
        folded = format!("{}{stderr}", ended(mutations, stdout));
        (folded.as_str(), "")
    } else {
        (stdout, stderr)
    };
    let mut sections = [("stderr", stderr), ("stdout", stdout)];
    if mutations.is_active(Mutation::StdoutBeforeStderr) {
        sections.reverse();
    }
    let lead = if mutations.is_active(Mutation::NoBlankLineBeforeSection) {
        ""
    } else {
        "\n"
    };
    sections
        .iter()
        .filter(|(_, body)| !body.is_empty())
        .map(|(name, body)| {
            let body = if end_lines {
                ended(mutations, body)
            } else {
                body.to_string()
            };
            format!("{lead}{name}:\n{body}")
        })
        .collect()
}

/// A stream's text ending with a newline (unless a mutation keeps it as printed).
fn ended(mutations: &Mutations, body: &str) -> String {
    if body.is_empty()
        || body.ends_with('\n')
        || mutations.is_active(Mutation::SectionKeepsMissingNewline)
    {
        body.to_string()
    } else {
        format!("{body}\n")
    }
}

pub(super) fn task_output(ctx: &Context, raw: &JsonObject) -> Outcome {
    let args = Args::new(raw, &["task_id"]).map_err(argument_failure)?;
    let id = non_empty(&args, "task_id")?;
    let m = &ctx.mutations;
    let done = if m.is_active(Mutation::TaskStatusDone) {
        "done"
    } else {
        "completed"
    };
    Ok(match ctx.shell.task_status(&id).map_err(engine_failure)? {
        TaskStatus::Running { stdout, stderr } => {
            let so_far = if m.is_active(Mutation::TaskRunningHidesOutput) {
                String::new()
            } else {
                render_streams(m, &stdout, &stderr, false)
            };
            Reply::text(format!("status: running\n{so_far}"))
        }
        TaskStatus::Completed(output) => Reply::Success {
            text: format!("status: {done}\n{}", render_command(m, &output, false)),
            exit_code: Some(output.exit_code),
        },
    })
}
