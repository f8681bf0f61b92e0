//! `toolspec run`: every selected scenario against one server, a block for each one
//! that did not pass, a summary line per suite and for the run, and the report files.
//! The plan (which suites, which servers, which scenarios, the tool lists) is the
//! execute stage's; this file wires it to the reporters and the exit code.

mod args;

use std::time::Instant;

use super::bless::{refuse_built_in, Collector};
use super::error::CliError;
use super::outcome::Outcome;
use super::output::{print, say};
use super::progress::Progress;
use super::report_files::{ReportFiles, ReportStreams};
use super::target_flags::external_target;
use crate::catalogue::{refuse_without_reference, Catalogue};
use crate::execute::durations::KeptDurations;
use crate::execute::parallel::{default_jobs, run_scenarios};
use crate::execute::plan::{self, RunPlan, Selection, Servers};
use crate::execute::schedule::{self, StartOrder};
use crate::execute::{RunOptions, ScenarioReport};
use crate::report::matrix::ClauseOrder;
use crate::report::text::{run_summary, scenario_text, Styles};
use crate::report::{BaselineFile, RunLedger, Standing};
use crate::scenario::IdSelection;

pub(crate) use args::RunArgs;

/// `toolspec run` (and the run `init` and `confinement` make): plans the run,
/// runs its scenarios in one pool, and hands each report to the text report, the
/// report files, `--bless` and `--write-baseline` as it goes by, in the run's order.
pub(crate) fn run(
    catalogue: &Catalogue,
    args: &RunArgs,
    colour: bool,
) -> Result<Outcome, CliError> {
    if args.sandbox {
        eprintln!(
            "note: --sandbox does nothing now: every server is isolated unless \
             --no-isolation or its target file's `isolation:` section says otherwise"
        );
    }
    let external = external_target(args.target.as_deref(), args.server.as_deref(), args.noise)?;
    let ids = IdSelection::gather(&args.ids, args.ids_from.as_deref())?;
    let suites = plan::suites_to_run(catalogue, &args.suite, ids.as_ref(), external.as_ref())?;
    if args.bless.is_some() {
        refuse_built_in(catalogue, &suites)?;
    }
    if external.is_none() {
        refuse_without_reference(
            &suites,
            "give the server to run it against with --server or --target",
        )?;
    }
    let mut blessing = args.bless.map(Collector::new);
    let exe = std::env::current_exe().map_err(CliError::OwnExecutable)?;
    if let Some(target) = &external {
        plan::check_target_file(target, &suites, args.target.as_deref())?;
    }
    let options = RunOptions {
        call_timeout_ms: args.timeout_ms,
        scenario_timeout_ms: args.scenario_timeout_ms,
        keep_failed: args.keep_failed,
        repeat: args.repeat,
        keep_judged: false,
    };
    let styles = Styles::coloured(colour);
    let order = ClauseOrder::of_suites(&suites);
    let mut streams = ReportStreams::new(ReportFiles {
        json: args.json.as_deref(),
        junit: args.junit.as_deref(),
        markdown: args.markdown.as_deref(),
        html: args.html.as_deref(),
        order: &order,
    });
    let servers = Servers {
        given: external.as_ref(),
        exe: &exe,
        mutate: &args.mutate,
        isolation_off: args.no_isolation,
    };
    let selection = Selection {
        basis: args.basis.level(),
        filter: args.filter.as_deref(),
        ids: ids.as_ref(),
        partition: args.partition,
    };
    let mut plan = RunPlan::new(&suites, &servers, &selection);
    plan.ask_for_tools(&options)?;
    let work = plan.work();
    let suite_of = plan.suite_of();
    let mut durations = KeptDurations::load();
    let start = StartOrder::slow_first(&durations.expected(&work));
    let workers = schedule::workers(args.jobs, external.is_none(), start.early, default_jobs());

    let mut baseline = args.write_baseline.is_some().then(BaselineFile::default);
    let label = match plan.suites.as_slice() {
        [one] => one.suite.name.clone(),
        all => format!("{} suites", all.len()),
    };
    let progress = Progress::new(&label, work.len());
    let show = |report: &ScenarioReport| {
        progress.scenario_ended(Standing::of(report).breaks_the_run());
    };
    // Each report is counted, printed if it did not pass, and handed to the report
    // files in the run's order as soon as those before it have ended, and not kept.
    // The ledger opens and closes the suites in that order, so the output reads as
    // if they had run one after the other.
    let mut ledger = RunLedger::new(&plan.suites, catalogue, Instant::now());
    ledger.opening_notes().iter().for_each(say);
    run_scenarios(
        &work,
        &options,
        workers,
        &start,
        &show,
        &mut |index, mut report| {
            let k = suite_of[index];
            say_above(&progress, &ledger.close_through(k));
            let suite = &plan.suites[k];
            report.position = suite.position(index);
            durations.record(&suite.target.name, &report.id, report.elapsed);
            // NEW is shown too: what raising the pin would bring is worth reading.
            let standing = Standing::of(&report);
            if args.verbose || standing.breaks_the_run() || standing == Standing::New {
                progress.above(|| print(&scenario_text(&report, styles)));
            }
            ledger.count(k, &report);
            if let Some(blessing) = &mut blessing {
                blessing.consider(index, &report);
            }
            if let Some(baseline) = &mut baseline {
                baseline.consider(&report);
            }
            streams.add(report);
        },
    );
    say_above(&progress, &ledger.close_through(plan.suites.len()));
    progress.finish();
    durations.save();
    let (grand, run) = ledger.finish(
        plan.isolation_layers(),
        args.partition.map(|p| p.to_string()),
    );
    let mut summary = run_summary(&grand);
    if args.no_isolation {
        summary.push_str(" (isolation: off, --no-isolation)");
    }
    say(summary);
    streams.finish(&run)?;
    write_baseline(args, baseline.as_ref())?;
    if grand.judged() == 0 && !args.allow_empty {
        if grand.scenarios() == 0 {
            say(format_args!(
                "error: no scenario was selected ({}): a run that checks nothing does not pass (--allow-empty lets it)",
                args.selection_words()
            ));
        } else {
            say(format_args!(
                "error: no scenario was judged ({} SKIP, {} UNSUPPORTED): a run that checks nothing does not pass (--allow-empty lets it)",
                grand.skipped, grand.unsupported
            ));
        }
        return Ok(Outcome::Broken);
    }
    if let Some(blessing) = blessing {
        return Ok(blessing.finish(&work, &options));
    }
    Ok(if grand.breaks_the_run() {
        Outcome::Broken
    } else {
        Outcome::Held
    })
}

/// Says `lines` above the progress line, which is left alone when there are none
/// (most reports close no suite).
fn say_above(progress: &Progress, lines: &[String]) {
    if !lines.is_empty() {
        progress.above(|| lines.iter().for_each(say));
    }
}

/// `--write-baseline`: the baseline file gathered, written where it was asked for.
fn write_baseline(args: &RunArgs, baseline: Option<&BaselineFile>) -> Result<(), CliError> {
    if let (Some(path), Some(baseline)) = (&args.write_baseline, baseline) {
        std::fs::write(path, baseline.text()).map_err(|source| CliError::WriteReport {
            path: path.clone(),
            source,
        })?;
    }
    Ok(())
}
