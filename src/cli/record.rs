//! `toolspec record`: live calls to a server written as scenarios of a suite of
//! one's own (`--specs`): one call (`--tool`, `--args`), or every `tools/call`
//! request of a newline-delimited JSON log (`--log FILE --from DIR`). A suite
//! that does not exist yet is made, its `suite.yaml` of the convention given
//! with `--convention` and with no reference server. Shown as a diff of each
//! file and, with `--write`, written. A call to a tool the server does not list
//! is refused before any call is made; an answer that says the call failed is
//! shown as a failure and kept only with `--accept-error`.

use std::path::{Path, PathBuf};

use super::error::CliError;
use super::outcome::Outcome;
use super::output::say;
use super::target_flags::external_target;
use crate::author::bless::{built_in_refusal, file_diff, write_in_place};
use crate::author::new_suite::{suite_yaml, unwritten_suite};
use crate::author::record::listed_tools::check_listed;
use crate::author::record::live_call::{record_scenario, with_scenarios, Recording};
use crate::author::record::recorded_calls::{calls_from_log, one_call, CallToRecord};
use crate::author::record::start_time::{learned_start_timeout, suite_line};
use crate::catalogue::{Catalogue, Origin};
use crate::execute::RunOptions;
use crate::scenario::{Convention, Suite};
use crate::server::Target;

/// `toolspec record`.
#[derive(clap::Args, Debug)]
pub(crate) struct RecordArgs {
    /// The suite (of --specs) to add the scenarios to; made there when it does
    /// not exist (give --convention).
    #[arg(long)]
    suite: String,
    /// For a new suite: its result convention (bracket-code, plain,
    /// json-error-envelope, json-result-envelope).
    #[arg(long)]
    convention: Option<String>,
    /// The stdio MCP server to call: 'CMD ARGS {root}'.
    #[arg(long, conflicts_with = "target")]
    server: Option<String>,
    /// A target file describing the server (command or URL, renames, settings).
    #[arg(long, required_unless_present = "server")]
    target: Option<PathBuf>,
    /// The tool to call, by the suite's name for it.
    #[arg(long, required_unless_present = "log", conflicts_with = "log")]
    tool: Option<String>,
    /// The call's arguments as a JSON object; write `{root}` for the fixture root.
    #[arg(long, default_value = "{}", conflicts_with = "log")]
    args: String,
    /// A folder whose files are copied into each fresh fixture (`given.files`).
    #[arg(long, conflicts_with = "log")]
    files: Option<PathBuf>,
    /// The scenario's name (default: the tool and its arguments).
    #[arg(long, conflicts_with = "log")]
    name: Option<String>,
    /// A newline-delimited JSON log of JSON-RPC messages: one scenario per
    /// `tools/call` request in it (give --from).
    #[arg(long, requires = "from")]
    log: Option<PathBuf>,
    /// The folder the logged session worked in: each call's fixture holds the
    /// files and folders its arguments name there, written `{root}/...`.
    #[arg(long, requires = "log")]
    from: Option<PathBuf>,
    /// The folder's path as the log names it, when the log was written with it
    /// elsewhere (default: the path of --from).
    #[arg(long, requires = "from")]
    log_root: Option<String>,
    /// The suite file (its name without `.yaml`) the scenarios are added to;
    /// made when it does not exist.
    #[arg(long, default_value = "recorded")]
    into: String,
    /// Write the files; without it, their diff is shown and nothing is written.
    #[arg(long)]
    write: bool,
    /// Keep an answer that says the call failed (`isError: true`, or a JSON-RPC
    /// error instead of a result) as the expected one; without it, such an
    /// answer is shown as a failure, nothing is written, and record exits 1.
    #[arg(long)]
    accept_error: bool,
    /// Per-call timeout in milliseconds, overriding the suite's.
    #[arg(long)]
    timeout_ms: Option<u64>,
    /// Run the server without isolation (docs/isolation.md), as `run
    /// --no-isolation` does: what it answers then is what is recorded.
    #[arg(long)]
    no_isolation: bool,
}

/// The suite to record into: one of --specs, or a new one (its `suite.yaml`
/// text, to write first).
fn the_suite(
    catalogue: &Catalogue,
    specs: Option<&Path>,
    args: &RecordArgs,
) -> Result<(Suite, Option<String>), CliError> {
    let refuse = |why: String| CliError::Record(why);
    let convention = args
        .convention
        .as_deref()
        .map(Convention::named)
        .transpose()
        .map_err(|e| refuse(e.to_string()))?;
    match catalogue.origin(&args.suite) {
        Some(Origin::BuiltIn) => Err(CliError::Bless(built_in_refusal(&[&args.suite]))),
        Some(Origin::Folder(_)) => {
            let suite = catalogue
                .select(std::slice::from_ref(&args.suite))?
                .into_iter()
                .next()
                .ok_or_else(|| refuse("no such suite".into()))?;
            match convention {
                Some(c) if c != suite.config.convention => Err(refuse(format!(
                    "suite `{}` exists, and --convention is not its own; leave --convention out",
                    args.suite
                ))),
                _ => Ok((suite, None)),
            }
        }
        None => {
            let specs = specs.ok_or_else(|| {
                refuse(format!(
                    "no suite `{}`: give --specs DIR, the folder to make it in",
                    args.suite
                ))
            })?;
            let convention = convention.ok_or_else(|| {
                refuse(format!(
                    "no suite `{}` in {}: to make it, name its result convention with --convention ({})",
                    args.suite,
                    specs.display(),
                    Convention::names()
                ))
            })?;
            let text = suite_yaml(&args.suite, convention);
            let suite =
                unwritten_suite(specs, &args.suite, &text).map_err(|e| refuse(e.to_string()))?;
            Ok((suite, Some(text)))
        }
    }
}

fn the_target(args: &RecordArgs) -> Result<Target, CliError> {
    external_target(args.target.as_deref(), args.server.as_deref())?
        .map(|target| target.isolated_if(!args.no_isolation))
        .ok_or_else(|| CliError::Record("say which server: --server or --target".into()))
}

/// The calls to record: the one of --tool, or those of --log (with what else the
/// log held, in words).
fn the_calls(args: &RecordArgs) -> Result<(Vec<CallToRecord>, Option<String>), CliError> {
    if let (Some(log), Some(from)) = (&args.log, &args.from) {
        let logged = calls_from_log(log, from, args.log_root.as_deref())?;
        return Ok((logged.calls, Some(logged.skipped)));
    }
    let tool = args
        .tool
        .clone()
        .ok_or_else(|| CliError::Record("say which call: --tool (or --log)".into()))?;
    let call = one_call(tool, &args.args, args.files.as_deref(), args.name.clone())?;
    Ok((vec![call], None))
}

fn show_diff(before: Option<&str>, after: &str, path: &Path) {
    for line in file_diff(before, after, path).lines() {
        say(line);
    }
}

pub(crate) fn record_command(
    catalogue: &Catalogue,
    specs: Option<&Path>,
    args: &RecordArgs,
) -> Result<Outcome, CliError> {
    let refuse = |why: String| CliError::Record(why);
    let (suite, mut new_suite) = the_suite(catalogue, specs, args)?;
    let mut target = the_target(args)?.with_start_timeout_of(&suite);
    let (calls, skipped) = the_calls(args)?;
    let options = RunOptions {
        call_timeout_ms: args.timeout_ms,
        ..RunOptions::default()
    };
    let timeout = args.timeout_ms.unwrap_or(suite.config.call_timeout_ms);
    let tools: Vec<&str> = calls.iter().map(|call| call.tool.as_str()).collect();
    let call_timeout = std::time::Duration::from_millis(timeout);
    let listed =
        check_listed(&target, &tools, call_timeout).map_err(|why| refuse(why.to_string()))?;
    if let Some(why) = listed.unchecked {
        say(format!("note: {why}"));
    }
    if let Some(started_in) = listed.started_in {
        learn_start_time(
            args,
            &suite,
            &mut target,
            new_suite.as_mut(),
            started_in,
            call_timeout,
        );
    }
    let mut recorded = Vec::new();
    for call in calls {
        let recording = Recording {
            suite: &suite,
            target: &target,
            tool: &call.tool,
            args: call.args,
            files: call.files,
            name: call.name,
            into: args.into.clone(),
        };
        let made = record_scenario(&recording, &options).map_err(|why| match &args.log {
            Some(_) => refuse(format!("{}: {why}", recording.name)),
            None => refuse(why.to_string()),
        })?;
        recorded.push((recording.name, made));
    }
    let requirement = match &args.log {
        Some(log) => format!(
            "Recorded from {}",
            log.file_name().unwrap_or_default().to_string_lossy()
        ),
        None => format!("{}, recorded", args.tool.as_deref().unwrap_or_default()),
    };
    let items: Vec<_> = recorded.iter().map(|(_, made)| made).collect();
    let (path, before, after) = with_scenarios(&suite, &args.into, &requirement, &items)
        .map_err(|e| refuse(e.to_string()))?;
    let suite_file = suite.dir.join("suite.yaml");
    if let Some(text) = &new_suite {
        show_diff(None, text, &suite_file);
    }
    show_diff(before.as_deref(), &after, &path);
    let several = args.log.is_some();
    for (name, made) in &recorded {
        for line in &made.loosened {
            match several {
                true => say(format!("placeholder: {name}: {line}")),
                false => say(format!("placeholder: {line}")),
            }
        }
    }
    if let Some(skipped) = skipped {
        say(format!("skipped: {skipped}"));
    }
    let failed: Vec<_> = recorded
        .iter()
        .filter_map(|(name, made)| Some((name, made.failure.as_deref()?)))
        .collect();
    for (name, failure) in &failed {
        say(format!("FAILURE: `{name}` was answered with {failure}"));
    }
    let count = match recorded.len() {
        1 => "1 scenario".to_string(),
        n => format!("{n} scenarios"),
    };
    let made = match &new_suite {
        Some(_) => format!("suite `{}` made and ", suite.name),
        None => String::new(),
    };
    let shown = path.display();
    if !failed.is_empty() && !args.accept_error {
        let which = match (failed.len(), recorded.len()) {
            (1, 1) => "the call was answered with a failure".to_string(),
            (1, n) => format!("1 of the {n} calls was answered with a failure"),
            (f, n) => format!("{f} of the {n} calls were answered with a failure"),
        };
        say(format!(
            "record: {which}, not kept as the expected answer; nothing written \
             (pass --accept-error to keep a failure as golden)"
        ));
        return Ok(Outcome::Broken);
    }
    if !args.write {
        say(format!(
            "record: {made}{count} would be added to {shown}; nothing written (review the diff, then --write)"
        ));
        return Ok(Outcome::Held);
    }
    if let Some(text) = &new_suite {
        std::fs::create_dir_all(&suite.dir)
            .map_err(|e| refuse(format!("cannot make {}: {e}", suite.dir.display())))?;
        write_new(&suite_file, text)?;
    }
    write_in_place(&path, &after).map_err(|e| refuse(format!("cannot write {shown}: {e}")))?;
    say(format!("record: {made}{count} added to {shown}"));
    Ok(Outcome::Held)
}

/// A start slower than a third of the start timeout in force: its threefold is
/// the timeout from now on for this recording, written into a new suite's
/// `suite.yaml` (when the server is given with --server), else named with the
/// file to set it in (the target file's key wins over the suite's).
fn learn_start_time(
    args: &RecordArgs,
    suite: &Suite,
    target: &mut Target,
    new_suite: Option<&mut String>,
    started_in: std::time::Duration,
    call_timeout: std::time::Duration,
) {
    let allowed = target.start_timeout(call_timeout);
    let Some(millis) = learned_start_timeout(started_in, allowed) else {
        return;
    };
    target.start_timeout_ms = Some(millis);
    let took = format!(
        "`{}` took {} ms to start and answer initialize, more than a third of the {} ms it is allowed",
        target.name,
        started_in.as_millis(),
        allowed.as_millis()
    );
    match (&args.target, new_suite) {
        (Some(file), _) => say(format!(
            "note: {took}: set `start_timeout_ms: {millis}` in {} (three times the start)",
            file.display()
        )),
        (None, Some(text)) => {
            text.push_str(&suite_line(millis, started_in));
            say(format!(
                "note: {took}: `start_timeout_ms: {millis}` (three times the start) is written into the new suite.yaml"
            ));
        }
        (None, None) => say(format!(
            "note: {took}: set `start_timeout_ms: {millis}` in {} (three times the start)",
            suite.dir.join("suite.yaml").display()
        )),
    }
}

/// Writes a new file, refusing one that appeared since the suite was looked for.
fn write_new(path: &Path, text: &str) -> Result<(), CliError> {
    use std::io::Write;
    std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path)
        .and_then(|mut file| file.write_all(text.as_bytes()))
        .map_err(|e| CliError::Record(format!("cannot write {}: {e}", path.display())))
}
