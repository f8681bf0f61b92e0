//! `toolspec report merge`: the JSON reports of a partitioned run's shards joined
//! into one run's reports, as if the run had not been split.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use super::error::CliError;
use super::outcome::Outcome;
use super::output::say;
use super::report_files::ReportFiles;
use crate::report::matrix::clause_order;
use crate::report::{read_json, RunFacts, Tally};
use crate::scenario::Partition;

/// `toolspec report ...`.
#[derive(clap::Subcommand, Debug)]
pub(crate) enum ReportCommand {
    /// Join the JSON reports of the shards of one run (`run --partition`) into one
    /// run's reports; refuses reports of different targets, suites or versions, a
    /// shard given twice, and a shard missing. Exits 1 when the joined run fails.
    Merge {
        /// The shards' JSON reports.
        #[arg(required = true, num_args = 1..)]
        shards: Vec<PathBuf>,
        /// Write the joined JSON report here.
        #[arg(long)]
        json: Option<PathBuf>,
        /// Write the joined JUnit XML here.
        #[arg(long)]
        junit: Option<PathBuf>,
        /// Write the joined Markdown matrix here.
        #[arg(long)]
        markdown: Option<PathBuf>,
        /// Write the joined run's results page (HTML) here.
        #[arg(long)]
        html: Option<PathBuf>,
    },
}

/// `toolspec report`; `specs` is the folder given with `--specs`, whose suites'
/// clause order the page follows.
pub(crate) fn report(command: &ReportCommand, specs: Option<&Path>) -> Result<Outcome, CliError> {
    let ReportCommand::Merge {
        shards,
        json,
        junit,
        markdown,
        html,
    } = command;
    let mut first: Option<RunFacts> = None;
    let mut partitions = BTreeSet::new();
    let mut reports = Vec::new();
    let mut ids = BTreeSet::new();
    for path in shards {
        let (facts, mut shard) = read_json(path).map_err(CliError::merge)?;
        let partition = facts.partition.clone().ok_or_else(|| {
            CliError::Merge(format!(
                "{}: not a shard (it was run without --partition)",
                path.display()
            ))
        })?;
        match &first {
            None => first = Some(facts.clone()),
            Some(run) => {
                if run.target != facts.target {
                    return Err(CliError::Merge(format!(
                        "{}: a run against `{}`, the first shard's against `{}`",
                        path.display(),
                        facts.target,
                        run.target
                    )));
                }
                if run.suites != facts.suites {
                    return Err(CliError::Merge(format!(
                        "{}: a run of other suites or suite versions ({}) than the first shard ({})",
                        path.display(),
                        describe(&facts),
                        describe(run)
                    )));
                }
            }
        }
        if !partitions.insert(partition.clone()) {
            return Err(CliError::Merge(format!(
                "{}: shard {partition} is given twice",
                path.display()
            )));
        }
        for r in &shard {
            if !ids.insert(r.id.clone()) {
                return Err(CliError::Merge(format!(
                    "{}: scenario `{}` is in two shards",
                    path.display(),
                    r.id
                )));
            }
        }
        reports.append(&mut shard);
    }
    let Some(mut run) = first else {
        return Err(CliError::Merge("no shard given".to_string()));
    };
    check_complete(&partitions)?;
    reports.sort_by_key(|r| r.position);
    run.partition = None;
    let names: Vec<String> = run.suites.iter().map(|s| s.name.clone()).collect();
    let (order, _) = if html.is_some() {
        clause_order(specs, &names)
    } else {
        Default::default()
    };
    ReportFiles {
        json: json.as_deref(),
        junit: junit.as_deref(),
        markdown: markdown.as_deref(),
        html: html.as_deref(),
        order: &order,
    }
    .write(&run, &reports)?;
    let tally = Tally::of(&reports);
    say(format_args!(
        "merged {} shards of {} scenarios: {}",
        partitions.len(),
        reports.len(),
        tally.counts_line()
    ));
    Ok(if tally.breaks_the_run() {
        Outcome::Broken
    } else {
        Outcome::Held
    })
}

/// The suites of a run, for a message: `boris 2 (built-in), ikigai 1 (built-in)`.
fn describe(run: &RunFacts) -> String {
    run.suites
        .iter()
        .map(|s| format!("{} {} ({})", s.name, s.version, s.origin))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Every shard K of N, of one kind, must be there: a missing one would make the
/// joined report pass on part of the run.
fn check_complete(partitions: &BTreeSet<String>) -> Result<(), CliError> {
    let parsed = partitions
        .iter()
        .map(|p| p.parse::<Partition>().map(|p| p.parts()))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|why| CliError::Merge(format!("a shard's partition {why}")))?;
    let kinds: BTreeSet<(&str, u32)> = parsed.iter().map(|(kind, _, of)| (*kind, *of)).collect();
    let [(kind, of)] = kinds.into_iter().collect::<Vec<_>>()[..] else {
        return Err(CliError::Merge(format!(
            "the shards were split in different ways: {}",
            partitions.iter().cloned().collect::<Vec<_>>().join(", ")
        )));
    };
    let missing: Vec<String> = (1..=of)
        .filter(|k| !parsed.iter().any(|(_, shard, _)| shard == k))
        .map(|k| format!("{kind}:{k}/{of}"))
        .collect();
    if missing.is_empty() {
        Ok(())
    } else {
        Err(CliError::Merge(format!(
            "shard(s) {} missing: the joined report would leave their scenarios out",
            missing.join(", ")
        )))
    }
}
