//! `bash`.

use rmcp::model::JsonObject;

use super::mutations::Mutation;
use super::params::{self, argument_failure};
use super::render::Data;
use super::Outcome;
use crate::dialects::common::args::Args;
use crate::dialects::{Context, Failure};
use crate::engine::shell::CommandOutput;
use crate::engine::EngineError;

fn execution_failure(detail: impl std::fmt::Display) -> Failure {
    Failure::new("", format!("Command execution failed: {detail}"))
}

/// Runs the command; any exit code is a success (the seed's "bash
/// distinction"). Only failing to run it, or killing it at the timeout, is
/// a failure.
pub(crate) async fn bash(ctx: &Context, raw: &JsonObject) -> Outcome {
    let args = Args::new(raw, &["command"]).map_err(argument_failure)?;
    let command = params::string(&args, "command")?;
    let ran = if ctx.mutations.is_active(Mutation::BashStdoutOnly) {
        ctx.shell.run(&command, ctx.default_timeout).await
    } else {
        ctx.shell.run_merged(&command, ctx.default_timeout).await
    };
    let finished: CommandOutput = ran.map_err(|err| match err {
        EngineError::StartFailed { cause } => execution_failure(cause),
        other => execution_failure(format!("{other:?}")),
    })?;
    if let Some(limit) = finished.timed_out_after {
        return Err(execution_failure(format!(
            "timed out after {} seconds",
            limit.as_secs_f64()
        )));
    }
    // As rel-04: one trailing newline of the whole output removed
    // (tool_bash.c:72-75), then the text up to its first NUL kept.
    let mut output = finished.stdout;
    if output.ends_with('\n') {
        output.pop();
    }
    output.truncate(params::until_nul(&output).len());
    // `pclose` hands back a wait status, not the exit code; a C server that
    // forgets WEXITSTATUS reports the code shifted left by 8.
    let exit_code =
        if ctx.mutations.is_active(Mutation::ExitCodeWaitStatus) && finished.exit_code > 0 {
            finished.exit_code << 8
        } else {
            finished.exit_code
        };
    Ok(Data {
        output,
        exit_code: Some(exit_code),
        ..Data::default()
    }
    .into_reply())
}
