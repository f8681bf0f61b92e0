//! `bash` (foreground, or a numbered background task) and `task_output`.
//!
//! A result is `exit_code: N\n`, then `\nstderr:\n…` and `\nstdout:\n…` when
//! non-empty, each ending with a newline even when the command printed none
//! (Boris 1.0.0 reads the streams line by line); a timeout prefixes
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
        .run(&command, explicit_timeout.unwrap_or(ctx.default_timeout))
        .await
        .map_err(engine_failure)?;
    if ctx.mutations.is_active(Mutation::NonzeroExitDropsStderr) && output.exit_code != 0 {
        output.stderr.clear();
    }
    Ok(Reply::Success {
        text: render_command(&ctx.mutations, &output),
        exit_code: Some(output.exit_code),
    })
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

/// The non-empty streams as sections, stderr first: `\nstderr:\n…\n`.
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
        .map(|(name, body)| format!("{lead}{name}:\n{}", ended(mutations, body)))
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
                render_streams(m, &stdout, &stderr)
            };
            Reply::text(format!("status: running\n{so_far}"))
        }
        TaskStatus::Completed(output) => Reply::Success {
            text: format!("status: {done}\n{}", render_command(m, &output)),
            exit_code: Some(output.exit_code),
        },
    })
}
