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
    // Each stream ends with a newline as read line by line, then is cut to
    // Boris's limit (bash.go:138-139).
    output.stdout = truncated(ended(&ctx.mutations, &foreground_stdout(&output.stdout)));
    output.stderr = truncated(ended(&ctx.mutations, &scanned(&output.stderr)));
    if ctx.mutations.is_active(Mutation::NonzeroExitDropsStderr) && output.exit_code != 0 {
        output.stderr.clear();
    }
    Ok(Reply::Success {
        text: render_command(&ctx.mutations, &output),
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
/// end dropped (Boris's `parseSentinel`, bash.go:313-345), which then ends
/// with a newline whether the command printed one or not.
fn foreground_stdout(raw: &str) -> String {
    let text = scanned(raw);
    let lines: Vec<&str> = text.split('\n').collect();
    let Some(mark) = lines.iter().rposition(|line| *line == END_MARK) else {
        return text;
    };
    // The mark's own `echo` ends the command's last line: an empty line just
    // before the mark means the command's output ended with a newline.
    let ended_itself = mark > 0 && lines[mark - 1].is_empty();
    let mut kept = &lines[..mark];
    while let Some((last, rest)) = kept.split_last() {
        if !last.is_empty() {
            break;
        }
        kept = rest;
    }
    if kept.is_empty() {
        return String::new();
    }
    // A missing final newline is left to `ended`, as for every section.
    let end = if ended_itself { "\n" } else { "" };
    format!("{}{end}", kept.join("\n"))
}

/// `[timeout note]exit_code: N\n[\nstderr:\n…][\nstdout:\n…]`.
fn render_command(mutations: &Mutations, output: &CommandOutput) -> String {
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
    text.push_str(&render_streams(mutations, &output.stdout, &output.stderr));
    text
}

/// The non-empty streams as sections, stderr first: `\nstderr:\n…`, each
/// as given: a foreground command's ends with a newline (read line by line),
/// a background task's is as printed (read whole: bash.go:195).
fn render_streams(mutations: &Mutations, stdout: &str, stderr: &str) -> String {
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
        .map(|(name, body)| format!("{lead}{name}:\n{body}"))
        .collect()
}

/// Bytes of a stream Boris shows (`maxOutputChars`, bash.go:22).
const MAX_OUTPUT_BYTES: usize = 30_000;

/// A stream cut to [`MAX_OUTPUT_BYTES`] with Boris's note (`truncateOutput`,
/// bash.go:347-353). Go cuts bytes, so a character split at the cut leaves
/// bytes that are no UTF-8, each sent as U+FFFD.
fn truncated(text: String) -> String {
    if text.len() <= MAX_OUTPUT_BYTES {
        return text;
    }
    let cut = &text.as_bytes()[..MAX_OUTPUT_BYTES];
    let valid = std::str::from_utf8(cut).map_or_else(|err| err.valid_up_to(), str::len);
    format!(
        "{}{}\n\n[Truncated: output was {} characters, showing first {MAX_OUTPUT_BYTES}]",
        &text[..valid],
        "\u{FFFD}".repeat(MAX_OUTPUT_BYTES - valid),
        text.len()
    )
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
                render_streams(m, &truncated(stdout), &truncated(stderr))
            };
            Reply::text(format!("status: running\n{so_far}"))
        }
        TaskStatus::Completed(mut output) => {
            output.stdout = truncated(output.stdout);
            output.stderr = truncated(output.stderr);
            Reply::Success {
                text: format!("status: {done}\n{}", render_command(m, &output)),
                exit_code: Some(output.exit_code),
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_lose_their_carriage_returns_and_a_missing_end_stays_missing() {
        assert_eq!(scanned("a\r\nb\r\nc"), "a\nb\nc");
        assert_eq!(scanned("a\r\r\n"), "a\r\n");
    }

    #[test]
    fn a_long_stream_is_cut_at_a_byte_with_the_note() {
        let long = format!("{}é", "a".repeat(MAX_OUTPUT_BYTES - 1));
        let cut = truncated(long);
        assert!(cut.starts_with(&"a".repeat(MAX_OUTPUT_BYTES - 1)));
        assert!(cut.ends_with(
            "a\u{FFFD}\n\n[Truncated: output was 30001 characters, showing first 30000]"
        ));
        assert_eq!(truncated("short".to_string()), "short");
    }

    #[test]
    fn stdout_ends_at_the_mark_without_its_empty_lines() {
        let mark = |before: &str| format!("{before}\n{END_MARK}\n");
        assert_eq!(foreground_stdout(&mark("a\n\n\n")), "a\n");
        assert_eq!(foreground_stdout(&mark("no newline")), "no newline");
        assert_eq!(foreground_stdout(&mark("\n\n")), "");
        assert_eq!(foreground_stdout("left early\n"), "left early\n");
    }
}
