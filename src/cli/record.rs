//! `toolspec record`: one live call to a server written as a scenario of a suite
//! of one's own (`--specs`), shown as a diff of the suite file and, with
//! `--write`, added to it.

use std::path::PathBuf;

use super::bless::refuse_built_in;
use super::catalogue::Catalogue;
use super::error::CliError;
use super::output::say;
use super::Outcome;
use crate::bless::record::{folder_files, record, Recording};
use crate::execute::RunOptions;
use crate::server::{load_target_file, Target};

/// `toolspec record`.
#[derive(clap::Args, Debug)]
pub(crate) struct RecordArgs {
    /// The suite (of --specs) to add the scenario to.
    #[arg(long)]
    suite: String,
    /// The stdio MCP server to call: 'CMD ARGS {root}'.
    #[arg(long, conflicts_with = "target")]
    server: Option<String>,
    /// A target file describing the server (command or URL, renames, settings).
    #[arg(long, required_unless_present = "server")]
    target: Option<PathBuf>,
    /// The tool to call, by the suite's name for it.
    #[arg(long)]
    tool: String,
    /// The call's arguments as a JSON object; write `{root}` for the fixture root.
    #[arg(long, default_value = "{}")]
    args: String,
    /// A folder whose files are copied into each fresh fixture (`given.files`).
    #[arg(long)]
    files: Option<PathBuf>,
    /// The scenario's name (default: the tool and its arguments).
    #[arg(long)]
    name: Option<String>,
    /// The suite file (its name without `.yaml`) the scenario is added to; made
    /// when it does not exist.
    #[arg(long, default_value = "recorded")]
    into: String,
    /// Write the file; without it, its diff is shown and nothing is written.
    #[arg(long)]
    write: bool,
    /// Per-call timeout in milliseconds, overriding the suite's.
    #[arg(long)]
    timeout_ms: Option<u64>,
}

pub(crate) fn record_command(
    catalogue: &Catalogue,
    args: &RecordArgs,
) -> Result<Outcome, CliError> {
    let refuse = |why: String| CliError::Record(why);
    let suites = catalogue.select(std::slice::from_ref(&args.suite))?;
    refuse_built_in(catalogue, &suites)?;
    let suite = suites
        .first()
        .ok_or_else(|| refuse("no such suite".into()))?;
    let target = match (&args.target, &args.server) {
        (Some(path), _) => load_target_file(path)?,
        (None, Some(line)) => {
            Target::from_command_line(line).map_err(|source| CliError::ServerLine {
                line: line.clone(),
                source,
            })?
        }
        (None, None) => return Err(refuse("say which server: --server or --target".into())),
    };
    let call_args = match serde_json::from_str::<serde_json::Value>(&args.args) {
        Ok(serde_json::Value::Object(map)) => map,
        Ok(_) => return Err(refuse("--args must be a JSON object".into())),
        Err(e) => return Err(refuse(format!("--args is not JSON: {e}"))),
    };
    let files = match &args.files {
        Some(folder) => folder_files(folder).map_err(refuse)?,
        None => Default::default(),
    };
    let name = args.name.clone().unwrap_or_else(|| {
        format!(
            "{} {}",
            args.tool,
            serde_json::Value::Object(call_args.clone())
        )
    });
    let recording = Recording {
        suite,
        target: &target,
        tool: &args.tool,
        args: call_args,
        files,
        name,
        into: args.into.clone(),
    };
    let options = RunOptions {
        call_timeout_ms: args.timeout_ms,
        ..RunOptions::default()
    };
    let recorded = record(&recording, &options).map_err(refuse)?;
    let shown = recorded.path.display().to_string();
    let before = recorded.before.as_deref().unwrap_or_default();
    let diff = similar::TextDiff::from_lines(before, &recorded.after)
        .unified_diff()
        .context_radius(3)
        .header(
            if recorded.before.is_some() {
                &shown
            } else {
                "/dev/null"
            },
            &shown,
        )
        .to_string();
    for line in diff.lines() {
        say(line);
    }
    for line in &recorded.loosened {
        say(format!("placeholder: {line}"));
    }
    if args.write {
        super::bless::write_whole(&recorded.path, &recorded.after)
            .map_err(|e| refuse(format!("cannot write {shown}: {e}")))?;
        say(format!("record: 1 scenario added to {shown}"));
        Ok(Outcome::Held)
    } else {
        say(format!(
            "record: 1 scenario would be added to {shown}; nothing written (review the diff, then --write)"
        ));
        Ok(Outcome::Held)
    }
}
