//! `toolspec confinement`: every escape kind against every tool of a server that
//! takes a path, with no suite written for it (docs/confinement.md). The server's
//! tools/list becomes a suite of one's own (`src/confinement/`), written to `--out`
//! or a private temporary folder, which `run` then runs with the flags given here;
//! the end is a table per tool and kind: refused, ESCAPE read or write, or not
//! applicable.

use std::path::PathBuf;
use std::time::Duration;

use super::error::CliError;
use super::outcome::Outcome;
use super::output::say;
use super::run::{run, RunArgs};
use super::target_flags::external_target;
use crate::catalogue::Catalogue;
use crate::confinement::{write_suite, Catalogue as Kinds, ToolPlan, Trial, SUITE};
use crate::execute::Verdict;
use crate::proposal::synonyms::Synonyms;
use crate::server::preflight;

/// `toolspec confinement`.
#[derive(clap::Args, Debug)]
pub(crate) struct ConfinementArgs {
    /// Keep the suite written from the server's tools in this folder (as
    /// `DIR/confinement/`), to run again with `toolspec run --specs DIR --suite
    /// confinement`, filter, or gate on with a baseline.
    #[arg(long)]
    out: Option<PathBuf>,
    #[command(flatten)]
    run: RunArgs,
}

pub(crate) fn confinement(mut args: ConfinementArgs, colour: bool) -> Result<Outcome, CliError> {
    if !args.run.suite.is_empty() {
        return Err(CliError::Confinement(
            "--suite: the suite is the one written from the server's tools".into(),
        ));
    }
    let Some(mut target) = external_target(
        args.run.target.as_deref(),
        args.run.server.as_deref(),
        args.run.noise,
    )?
    else {
        return Err(CliError::Confinement(
            "give the server: --server 'CMD {root}' or --target FILE".into(),
        ));
    };
    if args.run.no_isolation {
        target.isolation.enabled = false;
    }
    let timeout = Duration::from_millis(args.run.timeout_ms.unwrap_or(10_000));
    let described = preflight::describe(&target, timeout).map_err(|why| {
        CliError::Confinement(format!(
            "cannot read the tools/list of `{}`: {why}",
            target.name
        ))
    })?;
    let kinds = Kinds::builtin()?;
    let words = Synonyms::builtin()?;
    let plans: Vec<ToolPlan> = described
        .tools
        .iter()
        .map(|t| kinds.plan(t, &words))
        .collect();
    let temporary;
    let folder = match &args.out {
        Some(out) => out.clone(),
        None => {
            temporary = tempfile::Builder::new()
                .prefix("toolspec-confinement-")
                .tempdir()
                .map_err(|e| CliError::Confinement(format!("cannot make a folder: {e}")))?;
            temporary.path().to_path_buf()
        }
    };
    let server = described
        .name
        .clone()
        .unwrap_or_else(|| target.name.clone());
    let written = write_suite(&folder, &server, &kinds, &plans)
        .map_err(|e| CliError::Confinement(format!("cannot write the suite: {e}")))?;
    let count = written.scenarios;
    say(format_args!(
        "{count} escape(s) to try on {} of {} tool(s) of `{server}`{}",
        written.stems.iter().flatten().count(),
        plans.len(),
        match &args.out {
            Some(out) => format!(" (suite written to {})", out.join(SUITE).display()),
            None => String::new(),
        }
    ));
    if count == 0 {
        table(&kinds, &plans, &written.stems, &[]);
        return Ok(Outcome::Held);
    }
    // The run's own report, read back for the table, unless one was asked for.
    let report_file = folder.join("confinement-report.json");
    let asked = args.run.json.is_some();
    if !asked {
        args.run.json = Some(report_file.clone());
    }
    args.run.suite = vec![SUITE.to_string()];
    let catalogue = Catalogue::open(Some(&folder))?;
    let outcome = run(&catalogue, &args.run, colour)?;
    let read = args.run.json.as_deref().unwrap_or(&report_file);
    let (_, reports) = crate::report::read_json(read)?;
    let verdicts: Vec<(String, String)> = reports
        .iter()
        .map(|r| {
            let word = match &r.verdict {
                Verdict::Pass => "refused".to_string(),
                Verdict::Escape(e) => format!("ESCAPE {}", e.kind.word()),
                other => other.label().to_string(),
            };
            (r.id.clone(), word)
        })
        .collect();
    table(&kinds, &plans, &written.stems, &verdicts);
    if !asked {
        let _ = std::fs::remove_file(&report_file);
    }
    Ok(outcome)
}

/// Per tool and kind: what came of it (`verdicts`, by scenario id; `stems` the
/// file of each tool's scenarios), or why it was not tried.
fn table(
    kinds: &Kinds,
    plans: &[ToolPlan],
    stems: &[Option<String>],
    verdicts: &[(String, String)],
) {
    say("confinement, per tool and escape kind:");
    for (plan, stem) in plans.iter().zip(stems) {
        let what = match (&plan.job, &plan.path_argument) {
            (Some(job), Some(arg)) => format!(" ({job}, path in `{arg}`)"),
            (Some(job), None) => format!(" ({job})"),
            _ => String::new(),
        };
        say(format_args!(
            "  {}{what}",
            crate::visible::excerpt(&plan.tool, 80)
        ));
        for (kind, trial) in kinds.kinds.iter().zip(&plan.trials) {
            let word = match (trial, stem) {
                (Trial::NotApplicable(why), _) => format!("not applicable: {why}"),
                (Trial::Call { .. }, Some(stem)) => {
                    let id = format!("{SUITE}::{stem}::{}", kind.title);
                    verdicts
                        .iter()
                        .find(|(of, _)| *of == id)
                        .map_or_else(|| "not run".to_string(), |(_, w)| w.clone())
                }
                (Trial::Call { .. }, None) => "not run".to_string(),
            };
            say(format_args!("    {:<36} {word}", kind.title));
        }
    }
}
