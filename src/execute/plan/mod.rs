//! A run's plan, made before any scenario starts: which suites run
//! (`selection.rs`), the target file checked against them (`target_checks.rs`),
//! the server each suite runs against, the scenarios of each that this run (or
//! shard) takes with their positions, and what each server's tool list says of
//! its suite, asked of every server at once. The command that runs the plan only
//! wires it to the reporters; following a run's arguments never climbs back into
//! the command.

mod error;
mod selection;
mod target_checks;

pub(crate) use error::PlanError;
pub(crate) use selection::{suites_to_run, Selection};
pub(crate) use target_checks::check_target_file;

use std::collections::BTreeSet;
use std::path::Path;
use std::time::Duration;

use super::parallel::Planned;
use super::RunOptions;
use crate::scenario::{Scenario, Suite, SuiteScenarioFile};
use crate::server::preflight::{self, PreflightError};
use crate::server::Target;

/// A suite's server did not start, or did not answer `initialize`, with its own
/// settings: no scenario of the run can, so it ends before any starts.
#[derive(Debug, thiserror::Error)]
#[error("`{target}` did not start, so no scenario ran: {why}")]
pub(crate) struct DidNotStart {
    /// The target's name.
    pub(crate) target: String,
    /// Why, with the lines of its stderr that tell it.
    pub(crate) why: String,
}

/// The server each suite runs against.
pub(crate) struct Servers<'a> {
    /// The server given (`--server`, `--target`); without one, each suite's
    /// reference server, started from this executable.
    pub(crate) given: Option<&'a Target>,
    /// This executable, for the reference servers.
    pub(crate) exe: &'a Path,
    /// The deliberate deviations the reference servers start with (`--mutate`).
    pub(crate) mutate: &'a [String],
    /// `--no-isolation`: every server runs without isolation.
    pub(crate) isolation_off: bool,
}

impl Servers<'_> {
    /// The server `suite` runs against.
    fn for_suite(&self, suite: &Suite) -> Target {
        let mut target = match self.given {
            Some(given) => given.clone(),
            None => {
                let mutate: Vec<&str> = self
                    .mutate
                    .iter()
                    .flat_map(|m| ["--mutate", m.as_str()])
                    .collect();
                Target::reference(self.exe, suite).with_extra_args(&mutate)
            }
        };
        if self.isolation_off {
            target.isolation.enabled = false;
        }
        target.with_start_timeout_of(suite)
    }
}

/// One suite of a run, planned before anything runs.
pub(crate) struct SuitePlan<'s> {
    pub(crate) suite: &'s Suite,
    pub(crate) target: Target,
    /// The selected scenarios this run (or shard) runs.
    work: Vec<(&'s SuiteScenarioFile, &'s Scenario)>,
    /// Each one's position among the selected scenarios of every suite.
    positions: Vec<usize>,
    /// Where the suite's scenarios begin in the run's list.
    first: usize,
    /// What the server's tool list says of the suite, said as the suite opens.
    pub(crate) notes: Vec<String>,
    listed: Option<BTreeSet<String>>,
}

impl SuitePlan<'_> {
    /// The position among the selected scenarios of every suite (what
    /// `--partition` counts) of the scenario at `index` of the run's work, one of
    /// this suite's.
    pub(crate) fn position(&self, index: usize) -> usize {
        self.positions[index - self.first]
    }
}

/// Every suite of a run, in order, with the scenarios of each it runs.
pub(crate) struct RunPlan<'s> {
    pub(crate) suites: Vec<SuitePlan<'s>>,
}

impl<'s> RunPlan<'s> {
    /// Each suite's server and the scenarios of it `selection` takes.
    pub(crate) fn new(
        suites: &'s [Suite],
        servers: &Servers<'_>,
        selection: &Selection<'_>,
    ) -> Self {
        let mut plans = Vec::new();
        // The position of each selected scenario across the suites, for --partition.
        let mut position = 0;
        let mut first = 0;
        for suite in suites {
            let target = servers.for_suite(suite);
            let chosen: Vec<_> = suite
                .scenarios()
                .filter(|(f, s)| selection.admits(suite, f, s))
                .collect();
            let start = position;
            position += chosen.len();
            let (positions, work): (Vec<usize>, Vec<_>) = chosen
                .into_iter()
                .enumerate()
                .map(|(i, work)| (start + i, work))
                .filter(|(at, (f, s))| {
                    selection
                        .partition
                        .is_none_or(|p| p.admits(*at, &suite.scenario_id(f, s)))
                })
                .unzip();
            let count = work.len();
            plans.push(SuitePlan {
                suite,
                target,
                work,
                positions,
                first,
                notes: Vec::new(),
                listed: None,
            });
            first += count;
        }
        RunPlan { suites: plans }
    }

    /// Asks each suite's server for its tool list, all suites at once, before any
    /// scenario runs: what it lacks becomes the suite's notes, what it lists the
    /// tools its scenarios may call. This is the first start of each server, with
    /// its own settings and no scenario's: one that cannot start or answer
    /// `initialize` here would give every scenario the same ERROR, so the run
    /// ends at once with [`DidNotStart`]. A server that starts but cannot list
    /// its tools gets a note, and its scenarios run.
    pub(crate) fn ask_for_tools(&mut self, options: &RunOptions) -> Result<(), DidNotStart> {
        let answers: Vec<_> = std::thread::scope(|scope| {
            let asking: Vec<_> = self
                .suites
                .iter()
                .map(|plan| {
                    let timeout = Duration::from_millis(
                        options
                            .call_timeout_ms
                            .unwrap_or(plan.suite.config.call_timeout_ms),
                    );
                    scope.spawn(move || preflight::check(plan.suite, &plan.target, timeout))
                })
                .collect();
            asking.into_iter().map(|a| a.join()).collect()
        });
        for (plan, answer) in self.suites.iter_mut().zip(answers) {
            match answer {
                Ok(Ok(gaps)) => {
                    plan.notes = gaps.lines(&plan.target.name);
                    plan.listed = Some(gaps.listed);
                }
                Ok(Err(PreflightError::Start(why))) => {
                    return Err(DidNotStart {
                        target: plan.target.name.clone(),
                        why,
                    })
                }
                Ok(Err(why)) => {
                    plan.notes = vec![format!(
                        "note: could not list `{}`'s tools: {why}",
                        plan.target.name
                    )];
                }
                Err(_) => {
                    plan.notes = vec![format!(
                        "note: could not list `{}`'s tools: the look-up panicked",
                        plan.target.name
                    )];
                }
            }
        }
        Ok(())
    }

    /// The run's work: every suite's scenarios, suite after suite.
    pub(crate) fn work(&self) -> Vec<Planned<'_>> {
        self.suites
            .iter()
            .flat_map(|plan| {
                plan.work.iter().map(move |(file, scenario)| Planned {
                    suite: plan.suite,
                    file,
                    scenario,
                    target: &plan.target,
                    listed: plan.listed.as_ref(),
                })
            })
            .collect()
    }

    /// For each scenario of [`RunPlan::work`], the index of its suite.
    pub(crate) fn suite_of(&self) -> Vec<usize> {
        self.suites
            .iter()
            .enumerate()
            .flat_map(|(k, plan)| std::iter::repeat_n(k, plan.work.len()))
            .collect()
    }

    /// The names of the isolation layers the first suite's server runs under, as
    /// the run's reports give them.
    pub(crate) fn isolation_layers(&self) -> Vec<String> {
        self.suites
            .first()
            .map(|plan| {
                plan.target
                    .isolation_layers()
                    .into_iter()
                    .map(|layer| layer.name().to_string())
                    .collect()
            })
            .unwrap_or_default()
    }
}
