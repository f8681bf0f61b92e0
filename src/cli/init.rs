//! `toolspec init`: the first gate for a server in one command. It asks the server
//! for its tools, proposes the target file (the suite's tools and arguments mapped
//! to the server's, the suite version pinned, the settings left for review), runs
//! the suite once with it and writes the first baseline beside it.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::time::Duration;

use super::error::CliError;
use super::outcome::Outcome;
use super::output::say;
use super::run::{self, RunArgs};
use crate::catalogue::{refuse_without_reference, Catalogue};
use crate::proposal::matching::{match_tools, ToolMatch};
use crate::proposal::synonyms::Synonyms;
use crate::proposal::target_text::{render, Draft};
use crate::scenario::Suite;
use crate::server::{preflight, ListedTool, Target};

/// `toolspec init`.
#[derive(clap::Args, Debug)]
pub(crate) struct InitArgs {
    /// The stdio MCP server: 'CMD ARGS {root}'.
    #[arg(long)]
    server: String,
    /// The suite to gate on (default: the one whose tools the server matches best).
    #[arg(long)]
    suite: Option<String>,
    /// Where to write the target file; the baseline goes beside it as
    /// `<name>.known-failures.txt`.
    #[arg(long, default_value = "toolspec-target.yaml")]
    out: PathBuf,
    /// Overwrite the target and baseline files if they exist.
    #[arg(long)]
    force: bool,
    /// Write the proposal and stop: no first run, no baseline (to review the
    /// renames before anything runs against the server).
    #[arg(long)]
    no_run: bool,
    /// Time limit for the server's answer to tools/list, in milliseconds.
    #[arg(long, default_value_t = 10_000)]
    timeout_ms: u64,
    /// Run every server without isolation (docs/isolation.md), as `run
    /// --no-isolation` does: the server asked for its tools, the reference server
    /// and the first run. The next step it prints says so.
    #[arg(long)]
    no_isolation: bool,
}

/// One suite's proposal.
struct Candidate {
    suite: Suite,
    matches: Vec<ToolMatch>,
}

impl Candidate {
    /// How well the server covers the suite: the mean score over the suite's tools
    /// (an unmatched tool counts 0), so a small suite the server fully covers wins
    /// over a large one it covers in part.
    fn fit(&self) -> f64 {
        let total: f64 = self.matches.iter().map(|m| m.score).sum();
        total / self.matches.len().max(1) as f64
    }
}

pub(crate) fn init(
    catalogue: &Catalogue,
    args: &InitArgs,
    colour: bool,
) -> Result<Outcome, CliError> {
    let baseline = baseline_path(&args.out);
    if !args.force {
        for path in [&args.out, &baseline] {
            if path.exists() {
                return Err(CliError::Init(format!(
                    "{} exists; --force overwrites it",
                    path.display()
                )));
            }
        }
    }
    let table = Synonyms::builtin()?;
    let server = Target::from_command_line(&args.server)
        .map_err(|source| CliError::ServerLine {
            line: args.server.clone(),
            source,
        })?
        .isolated_if(!args.no_isolation);
    let timeout = Duration::from_millis(args.timeout_ms);
    let described = preflight::describe(&server, timeout).map_err(|why| {
        CliError::Init(format!(
            "cannot read the tools/list of `{}`: {why}",
            args.server
        ))
    })?;
    let listed = described.tools;
    let exe = std::env::current_exe().map_err(CliError::OwnExecutable)?;
    let names: Vec<String> = args.suite.iter().cloned().collect();
    let mut best: Option<Candidate> = None;
    let suites = catalogue.select(&names)?;
    if !names.is_empty() {
        refuse_without_reference(
            &suites,
            "init compares a server's tools with the reference server's, so it proposes only suites that name one",
        )?;
    }
    // A suite of one's own without a reference server is no candidate.
    for suite in suites.into_iter().filter(|s| s.config.reference.is_some()) {
        let spec = spec_tools(&exe, &suite, timeout, !args.no_isolation)?;
        let candidate = Candidate {
            matches: match_tools(&spec, &listed, &table),
            suite,
        };
        if best.as_ref().is_none_or(|b| candidate.fit() > b.fit()) {
            best = Some(candidate);
        }
    }
    let Some(Candidate { suite, matches }) = best else {
        return Err(CliError::Init(
            "no suite to propose a target for".to_string(),
        ));
    };
    let claimed: BTreeSet<&str> = matches.iter().filter_map(|m| m.server.as_deref()).collect();
    let unclaimed: Vec<String> = listed
        .iter()
        .map(|t| t.name.clone())
        .filter(|n| !claimed.contains(n.as_str()))
        .collect();
    let words = shell_words::split(&args.server)
        .map_err(|e| CliError::Init(format!("--server `{}` cannot be split: {e}", args.server)))?;
    let text = render(&Draft {
        server_line: &args.server,
        server_name: described.name.as_deref(),
        words: &words,
        suite: &suite.name,
        version: suite.config.version,
        matches: &matches,
        unclaimed: &unclaimed,
        settings: suite.config.settings(),
    });
    write(&args.out, &text)?;
    say(format_args!(
        "init: {} of suite {}'s {} tools matched a tool of the server; proposal written to {}",
        matches.iter().filter(|m| m.server.is_some()).count(),
        suite.name,
        matches.len(),
        args.out.display()
    ));
    // A server started without isolation here is gated the same way (a baseline
    // made without it holds what failed without it), so the command to copy says so.
    let open = if args.no_isolation {
        " --no-isolation"
    } else {
        ""
    };
    if args.no_run {
        say("next:");
        say(format_args!(
            "  1. review {} (each rename says why and how sure; settings are commented out)",
            args.out.display()
        ));
        say(format_args!(
            "  2. toolspec run --target {}{open} (or init again with --force and without --no-run, for the first baseline)",
            args.out.display()
        ));
        return Ok(Outcome::Held);
    }
    let mut gate = RunArgs::first_baseline(&args.out, &suite.name, &baseline)?;
    gate.no_isolation = args.no_isolation;
    let outcome = run::run(catalogue, &gate, colour)?;
    let name = baseline
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    write(
        &args.out,
        &format!(
            "{text}# What fails on the first run, written by `toolspec init`: the gate passes while exactly these fail.\nbaseline_file: {}\n",
            serde_json::Value::String(name)
        ),
    )?;
    say(format_args!(
        "init: baseline written to {}",
        baseline.display()
    ));
    say("next:");
    say(format_args!(
        "  1. review {} (each rename says why and how sure; settings are commented out)",
        args.out.display()
    ));
    say(format_args!(
        "  2. toolspec run --target {}{open}",
        args.out.display()
    ));
    // A first run that judged nothing leaves no gate worth the name.
    Ok(match outcome {
        Outcome::Broken if !baseline.exists() => Outcome::Broken,
        _ => Outcome::Held,
    })
}

/// The suite's tools as the reference server lists them (names, descriptions,
/// argument names), with any argument the suite's scenarios send that the schema
/// leaves out; the reference server runs isolated only if `isolated`.
fn spec_tools(
    exe: &Path,
    suite: &Suite,
    timeout: Duration,
    isolated: bool,
) -> Result<Vec<ListedTool>, CliError> {
    let reference = Target::reference(exe, suite).isolated_if(isolated);
    let listed = preflight::describe(&reference, timeout)
        .map_err(|why| {
            CliError::Init(format!(
                "cannot read the reference server's tools for suite {}: {why}",
                suite.name
            ))
        })?
        .tools;
    let sent = preflight::calls_of(suite, &Target::default());
    Ok(suite
        .config
        .tools
        .iter()
        .map(|name| {
            let known = listed.iter().find(|t| t.name == *name);
            let mut arguments: Vec<String> =
                known.and_then(|t| t.arguments.clone()).unwrap_or_default();
            for extra in sent.get(name).into_iter().flatten() {
                if !arguments.contains(extra) {
                    arguments.push(extra.clone());
                }
            }
            ListedTool {
                name: name.clone(),
                description: known.map(|t| t.description.clone()).unwrap_or_default(),
                arguments: Some(arguments),
                input_schema: known.map(|t| t.input_schema.clone()).unwrap_or_default(),
            }
        })
        .collect())
}

/// `DIR/NAME.yaml` -> `DIR/NAME.known-failures.txt`.
fn baseline_path(target: &Path) -> PathBuf {
    let stem = target
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "target".to_string());
    target.with_file_name(format!("{stem}.known-failures.txt"))
}

fn write(path: &Path, text: &str) -> Result<(), CliError> {
    std::fs::write(path, text).map_err(|source| CliError::WriteReport {
        path: path.to_path_buf(),
        source,
    })
}
