//! `run --bless`: the run's failing scenarios gathered as their reports are
//! handed on, then blessed by the `bless` stage, which prints each file's diff
//! (and with `--bless=write` writes it).

use super::error::CliError;
use super::outcome::Outcome;
use super::output::say;
use crate::author::bless::{bless, built_in_refusal, to_bless, BlessMode, FailedScenario};
use crate::catalogue::{Catalogue, Origin};
use crate::execute::parallel::Planned;
use crate::execute::standing::Standing;
use crate::execute::{RunOptions, ScenarioReport};
use crate::judge::Mismatch;
use crate::scenario::Suite;

/// `--bless` on a built-in suite is refused, with the way to a copy of it.
pub(crate) fn refuse_built_in(catalogue: &Catalogue, suites: &[Suite]) -> Result<(), CliError> {
    let built_in: Vec<&str> = suites
        .iter()
        .filter(|s| catalogue.origin(&s.name) == Some(&Origin::BuiltIn))
        .map(|s| s.name.as_str())
        .collect();
    if built_in.is_empty() {
        Ok(())
    } else {
        Err(CliError::Bless(built_in_refusal(&built_in)))
    }
}

/// The run's failing scenarios, by their place in the run's work.
pub(crate) struct Collector {
    mode: BlessMode,
    failed: Vec<(usize, Vec<Mismatch>)>,
    /// Scenarios that broke the run and are not blessed (ERROR, FLAKY).
    others: Vec<String>,
}

impl Collector {
    pub(crate) fn new(mode: BlessMode) -> Collector {
        Collector {
            mode,
            failed: Vec::new(),
            others: Vec::new(),
        }
    }

    /// Keeps what there is to bless of the report of the scenario at `index`.
    pub(crate) fn consider(&mut self, index: usize, report: &ScenarioReport) {
        match to_bless(report) {
            Some(mismatches) => self.failed.push((index, mismatches)),
            None if Standing::of(report).breaks_the_run() => {
                self.others
                    .push(format!("{} ({})", report.id, report.verdict.label()))
            }
            None => {}
        }
    }

    /// Blesses what was gathered: Held when every failure was blessed and
    /// written and nothing else broke the run.
    pub(crate) fn finish(self, work: &[Planned<'_>], options: &RunOptions) -> Outcome {
        let failed: Vec<FailedScenario<'_>> = self
            .failed
            .into_iter()
            .filter_map(|(index, mismatches)| {
                let planned = work.get(index)?;
                Some(FailedScenario {
                    suite: planned.suite,
                    file: planned.file,
                    scenario: planned.scenario,
                    target: planned.target,
                    listed: planned.listed,
                    mismatches,
                })
            })
            .collect();
        let done = bless(&failed, &self.others, options, self.mode, &mut |line| {
            say(line)
        });
        if done {
            Outcome::Held
        } else {
            Outcome::Broken
        }
    }
}
