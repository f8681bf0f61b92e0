//! `toolspec record`: live calls to a server written as scenarios of a suite of
//! one's own (`--specs`): one call (`--tool`, `--args`), a session of calls
//! (`--calls FILE`, or typed at a terminal with `--calls -`), or every
//! `tools/call` request of a newline-delimited JSON log (`--log FILE --from
//! DIR`). Shown as a diff and kept as a pending proposal beside the suite,
//! which `--write` writes as shown. A suite
//! that does not exist yet is made, its `suite.yaml` of the convention given
//! with `--convention` and with no reference server. Shown as a diff of each
//! file and, with `--write`, written. A call to a tool the server does not list
//! is refused before any call is made; an answer that says the call failed is
//! shown as a failure and kept only with `--accept-error`.

use std::collections::{BTreeMap, BTreeSet};
use std::io::IsTerminal;
use std::path::{Path, PathBuf};

use super::error::CliError;
use super::outcome::Outcome;
use super::output::say;
use super::proposal_key::arguments_but;
use super::target_flags::external_target;
use crate::author::bless::{built_in_refusal, file_diff};
use crate::author::new_suite::{suite_yaml, unwritten_suite};
use crate::author::pending::{pending_path, relative_to_suite, Pending, PendingFile};
use crate::author::record::calls_file::{call_of_line, read_calls, ListedCall};
use crate::author::record::listed_tools::check_listed;
use crate::author::record::live_call::{with_scenarios, RecordedScenario};
use crate::author::record::recorded_calls::{args_object, calls_from_log};
use crate::author::record::recording::{names_taken, SessionPlan, SessionRecorder};
use crate::author::record::session::FixtureSource;
use crate::author::record::start_time::{learned_start_timeout, suite_line};
use crate::author::record::tree_place::place_tree;
use crate::catalogue::{Catalogue, Origin};
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
    /// The tool to call, by the suite's name for it (a session of one call).
    #[arg(long, required_unless_present_any = ["log", "calls"], conflicts_with_all = ["log", "calls"])]
    tool: Option<String>,
    /// The call's arguments as a JSON object; write `{root}` for the fixture root.
    #[arg(long, default_value = "{}", conflicts_with_all = ["log", "calls"])]
    args: String,
    /// A session: a YAML list, or one JSON object a line, of calls `{tool, args,
    /// name?}`, made in order on one fixture by one server; `-` reads them from
    /// standard input (at a terminal, each call is made as its line is typed).
    #[arg(long, conflicts_with = "log")]
    calls: Option<PathBuf>,
    /// A folder the fixture starts as: put in the suite once, as a fixture tree
    /// of its fixtures folder, which each scenario names (`given.tree`).
    #[arg(long, conflicts_with = "log")]
    files: Option<PathBuf>,
    /// The scenario's name (default: the tool and its most telling argument).
    #[arg(long, conflicts_with_all = ["log", "calls"])]
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
    /// Write the files. Without it, their diff is shown, nothing is written to
    /// the suite, and the proposal is kept in `<suite>/.toolspec/pending/`;
    /// `--write` with the same arguments then writes that proposal as shown,
    /// without calling the server again.
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
    #[command(flatten)]
    noise: super::target_flags::NoiseFlag,
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
    external_target(args.target.as_deref(), args.server.as_deref(), args.noise)?
        .map(|target| target.isolated_if(!args.no_isolation))
        .ok_or_else(|| CliError::Record("say which server: --server or --target".into()))
}

/// One session to make: its fixture and its calls (tool, arguments, name).
struct Group {
    files: BTreeMap<String, Option<String>>,
    calls: Vec<ListedCall>,
}

/// The sessions to record: the one of --tool, of --calls, or one a call of
/// --log (each logged call has its own fixture: the files it names); with
/// what else the log held, in words. None for calls typed at a terminal.
fn the_groups(args: &RecordArgs) -> Result<(Option<Vec<Group>>, Option<String>), CliError> {
    let refuse = |why: String| CliError::Record(why);
    if let (Some(log), Some(from)) = (&args.log, &args.from) {
        let logged = calls_from_log(log, from, args.log_root.as_deref())?;
        let groups = logged
            .calls
            .into_iter()
            .map(|call| Group {
                files: call.files,
                calls: vec![ListedCall {
                    tool: call.tool,
                    args: call.args,
                    name: Some(call.name),
                }],
            })
            .collect();
        return Ok((Some(groups), Some(logged.skipped)));
    }
    if let Some(calls) = &args.calls {
        if calls == Path::new("-") && std::io::stdin().is_terminal() {
            return Ok((None, None));
        }
        let calls = read_calls(calls).map_err(|e| refuse(e.to_string()))?;
        let group = Group {
            files: BTreeMap::new(),
            calls,
        };
        return Ok((Some(vec![group]), None));
    }
    let tool = args
        .tool
        .clone()
        .ok_or_else(|| refuse("say which call: --tool, --calls or --log".into()))?;
    let call = ListedCall {
        tool,
        args: args_object(&args.args)?,
        name: args.name.clone(),
    };
    let group = Group {
        files: BTreeMap::new(),
        calls: vec![call],
    };
    Ok((Some(vec![group]), None))
}

/// What names the proposal of this command: its arguments but `--write` and
/// how the server is run (`--server`, `--target`, `--timeout-ms`,
/// `--no-isolation`, `--skip-stdout-noise`: the proposal shown is written
/// whichever server is given then), and the text of a `--calls` file.
fn proposal_key(args: &RecordArgs) -> Vec<String> {
    let mut key = arguments_but(
        &["--write", "--no-isolation", "--skip-stdout-noise"],
        &["--server", "--target", "--timeout-ms"],
    );
    if let Some(calls) = args.calls.as_deref().filter(|c| *c != Path::new("-")) {
        key.push(std::fs::read_to_string(calls).unwrap_or_default());
    }
    key
}

/// The fixtures folder a recorded file is checked against before it is
/// shown: the suite's own, with the tree being recorded linked in when it is
/// not there yet.
fn fixtures_for_check(
    suite: &Suite,
    tree: Option<(&str, &Path)>,
) -> Result<(PathBuf, Option<tempfile::TempDir>), CliError> {
    let Some((name, folder)) = tree else {
        return Ok((suite.fixtures_dir.clone(), None));
    };
    if suite.fixtures_dir.join(name).is_dir() {
        return Ok((suite.fixtures_dir.clone(), None));
    }
    let refuse =
        |e: std::io::Error| CliError::Record(format!("cannot check the recorded file: {e}"));
    let scratch = tempfile::tempdir().map_err(refuse)?;
    if let Ok(entries) = std::fs::read_dir(&suite.fixtures_dir) {
        for entry in entries.flatten() {
            std::os::unix::fs::symlink(entry.path(), scratch.path().join(entry.file_name()))
                .map_err(refuse)?;
        }
    }
    let folder = folder.canonicalize().map_err(refuse)?;
    std::os::unix::fs::symlink(folder, scratch.path().join(name)).map_err(refuse)?;
    Ok((scratch.path().to_path_buf(), Some(scratch)))
}

/// What every session of a command shares.
struct PlanBase<'a> {
    suite: &'a Suite,
    target: &'a Target,
    timeout: std::time::Duration,
    tree: Option<&'a Path>,
    tree_name: Option<&'a str>,
}

impl<'a> PlanBase<'a> {
    fn plan(&self, files: &'a BTreeMap<String, Option<String>>) -> SessionPlan<'a> {
        SessionPlan {
            suite: self.suite,
            target: self.target,
            timeout: self.timeout,
            source: FixtureSource {
                tree: self.tree,
                files,
            },
            tree_name: self.tree_name,
        }
    }
}

/// Records the calls of `groups` (or, None, those typed at a terminal).
fn record_groups<'a>(
    base: &PlanBase<'a>,
    groups: Option<&'a [Group]>,
    target: &Target,
    taken: &mut BTreeSet<String>,
    several: bool,
    started_in: &mut Option<std::time::Duration>,
) -> Result<Vec<RecordedScenario>, CliError> {
    let refuse = |why: String| CliError::Record(why);
    let Some(groups) = groups else {
        return record_typed(base, target, taken, started_in);
    };
    let tools: Vec<&str> = groups
        .iter()
        .flat_map(|g| g.calls.iter().map(|c| c.tool.as_str()))
        .collect();
    let mut recorded = Vec::new();
    for (index, group) in groups.iter().enumerate() {
        let mut recorder = SessionRecorder::start(base.plan(&group.files))
            .map_err(|why| refuse(why.to_string()))?;
        if index == 0 {
            *started_in = Some(recorder.started_in());
            match check_listed(target, &recorder.listed(), &tools) {
                Ok(Some(why)) => say(format!("note: {why}")),
                Ok(None) => {}
                Err(why) => {
                    recorder.stop();
                    return Err(refuse(why.to_string()));
                }
            }
        }
        for call in &group.calls {
            match recorder.record(&call.tool, &call.args, call.name.as_deref(), taken) {
                Ok(made) => recorded.push(made),
                Err(why) => {
                    recorder.stop();
                    let name = call.name.clone().unwrap_or_else(|| call.tool.clone());
                    return Err(match several {
                        true => refuse(format!("{name}: {why}")),
                        false => refuse(why.to_string()),
                    });
                }
            }
        }
        if let Some(noise) = recorder.stop() {
            say(format!("note: {noise}"));
        }
    }
    Ok(recorded)
}

/// A session typed at a terminal: each line one call, made on both servers
/// and its scenario printed as soon as it is read; a line that is no call, or
/// a tool the server does not list, is said and skipped. The end of input
/// (Ctrl-D) ends the session.
fn record_typed(
    base: &PlanBase<'_>,
    target: &Target,
    taken: &mut BTreeSet<String>,
    started_in: &mut Option<std::time::Duration>,
) -> Result<Vec<RecordedScenario>, CliError> {
    let refuse = |why: String| CliError::Record(why);
    let empty = BTreeMap::new();
    let base = PlanBase {
        suite: base.suite,
        target: base.target,
        timeout: base.timeout,
        tree: base.tree,
        tree_name: base.tree_name,
    };
    let mut recorder =
        SessionRecorder::start(base.plan(&empty)).map_err(|why| refuse(why.to_string()))?;
    *started_in = Some(recorder.started_in());
    let listed = recorder.listed();
    say("record: one call a line, {\"tool\": ..., \"args\": {..}, \"name\": ..}; end with Ctrl-D");
    let mut recorded = Vec::new();
    for (index, line) in std::io::stdin().lines().enumerate() {
        let Ok(line) = line else { break };
        if line.trim().is_empty() {
            continue;
        }
        let call = match call_of_line(&line, index + 1, "standard input") {
            Ok(call) => call,
            Err(why) => {
                say(format!("skipped: {why}"));
                continue;
            }
        };
        match check_listed(target, &listed, &[call.tool.as_str()]) {
            Ok(_) => {}
            Err(why) => {
                say(format!("skipped: {why}"));
                continue;
            }
        }
        match recorder.record(&call.tool, &call.args, call.name.as_deref(), taken) {
            Ok(made) => {
                for line in made.item.lines() {
                    say(line);
                }
                recorded.push(made);
            }
            Err(why) => {
                recorder.stop();
                return Err(refuse(why.to_string()));
            }
        }
    }
    if let Some(noise) = recorder.stop() {
        say(format!("note: {noise}"));
    }
    if recorded.is_empty() {
        return Err(refuse("no call was typed; nothing to record".into()));
    }
    Ok(recorded)
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
    let proposal = pending_path(&suite.dir, "record", &proposal_key(args));
    if args.write {
        if let Some(pending) = Pending::load(&proposal).map_err(|e| refuse(e.to_string()))? {
            let written = pending
                .apply(&suite.dir, &proposal)
                .map_err(|e| refuse(e.to_string()))?;
            for path in &written {
                say(format!("wrote {}", path.display()));
            }
            say(format!(
                "record: wrote the proposal shown ({}), {} files; no server was started",
                proposal.display(),
                written.len()
            ));
            return Ok(Outcome::Held);
        }
    }
    let mut target = the_target(args)?.with_start_timeout_of(&suite);
    let (groups, skipped) = the_groups(args)?;
    let timeout =
        std::time::Duration::from_millis(args.timeout_ms.unwrap_or(suite.config.call_timeout_ms));
    let placed = match &args.files {
        Some(folder) => {
            Some(place_tree(&suite.fixtures_dir, folder).map_err(|e| refuse(e.to_string()))?)
        }
        None => None,
    };
    let tree = args.files.as_deref();
    let tree_name = placed.as_ref().map(|p| p.name.as_str());
    let base = PlanBase {
        suite: &suite,
        target: &target,
        timeout,
        tree,
        tree_name,
    };
    let mut taken = names_taken(&suite, &args.into);
    let several = args.log.is_some();
    let mut started_in = None;
    let recorded = record_groups(
        &base,
        groups.as_deref(),
        &target,
        &mut taken,
        several,
        &mut started_in,
    )?;
    if let Some(started_in) = started_in {
        learn_start_time(
            args,
            &suite,
            &mut target,
            new_suite.as_mut(),
            started_in,
            timeout,
        );
    }
    let requirement = match (&args.log, &args.calls) {
        (Some(log), _) => format!(
            "Recorded from {}",
            log.file_name().unwrap_or_default().to_string_lossy()
        ),
        (None, Some(calls)) if calls != Path::new("-") => format!(
            "Recorded from {}",
            calls.file_name().unwrap_or_default().to_string_lossy()
        ),
        (None, Some(_)) => "A recorded session".to_string(),
        (None, None) => format!("{}, recorded", args.tool.as_deref().unwrap_or_default()),
    };
    let (check_dir, _scratch) = fixtures_for_check(&suite, tree_name.zip(args.files.as_deref()))?;
    let items: Vec<_> = recorded.iter().collect();
    let (path, before, after) =
        with_scenarios(&suite, &check_dir, &args.into, &requirement, &items)
            .map_err(|e| refuse(e.to_string()))?;
    let suite_file = suite.dir.join("suite.yaml");
    let mut files = BTreeMap::new();
    let mut keep = |path: &Path, before: Option<String>, after: String| -> Result<(), CliError> {
        let mut name = relative_to_suite(&suite.dir, path)
            .ok_or_else(|| refuse(format!("{} is outside the suite", path.display())))?;
        if path.as_os_str().to_string_lossy().ends_with('/') {
            name.push('/');
        }
        files.insert(name, PendingFile { before, after });
        Ok(())
    };
    if let Some(text) = &new_suite {
        show_diff(None, text, &suite_file);
        keep(&suite_file, None, text.clone())?;
    }
    show_diff(before.as_deref(), &after, &path);
    keep(&path, before.clone(), after.clone())?;
    if let Some(placed) = &placed {
        let folder = suite.fixtures_dir.join(&placed.name);
        for (name, text) in &placed.new_files {
            let at = folder.join(name.trim_end_matches('/'));
            match text {
                Some(text) => {
                    show_diff(None, text, &at);
                    keep(&at, None, text.clone())?;
                }
                None => {
                    say(format!("+++ {}/ (an empty folder)", at.display()));
                    keep(&at.join(""), None, String::new())?;
                }
            }
        }
        if let Some(note) = &placed.note {
            say(format!("note: {note}"));
        }
    }
    let shown_names = recorded.len() > 1 || several;
    for made in &recorded {
        for line in &made.loosened {
            match shown_names {
                true => say(format!("placeholder: {}: {line}", made.name)),
                false => say(format!("placeholder: {line}")),
            }
        }
        for line in &made.notes {
            say(format!("note: {}: {line}", made.name));
        }
    }
    if let Some(skipped) = skipped {
        say(format!("skipped: {skipped}"));
    }
    let failed: Vec<_> = recorded
        .iter()
        .filter_map(|made| Some((&made.name, made.failure.as_deref()?)))
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
    let pending = Pending {
        format: 1,
        made_by: "record".into(),
        command: proposal_key(args),
        files,
    };
    if !args.write {
        pending.save(&proposal).map_err(|e| refuse(e.to_string()))?;
        say(format!(
            "record: {made}{count} would be added to {shown}; nothing written (review the diff, \
             then --write, which writes this proposal, kept in {})",
            proposal.display()
        ));
        return Ok(Outcome::Held);
    }
    pending
        .apply(&suite.dir, &proposal)
        .map_err(|e| refuse(e.to_string()))?;
    say(format!("record: {made}{count} added to {shown}"));
    Ok(Outcome::Held)
}

/// A start slower than a third of the time allowed: three times it proposed as
/// `start_timeout_ms`, written into a new suite's `suite.yaml` when the server
/// was given with `--server`, else named for the file to set it in.
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
