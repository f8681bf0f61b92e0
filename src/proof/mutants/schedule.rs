//! The plan of a scoring run, as a state machine with no threads and no servers
//! in it: which job a free worker takes next, what a finished job means for its
//! mutation, and when a mutation is decided.
//!
//! Jobs are scenarios run against the honest server (the honest pass) or against
//! one mutation. Every honest job is handed out before any mutation job, since a
//! scenario kills a mutation only if it passes honestly: a mutation's failure
//! whose honest verdict is not in yet waits for it, and a scenario that does not
//! pass honestly is never run against a mutation at all. Stopping at the first
//! kill, a mutation is decided as soon as one of its failures is confirmed, and
//! its other running jobs are to be cancelled. A free worker then starts the
//! mutation with the fewest jobs in hand, so each gets its likeliest killer tried
//! first; in a full count, it finishes the earliest undecided mutation first, so
//! the scores come out in order.

use std::collections::BTreeSet;
use std::time::Duration;

use super::order::Likelihood;

/// A scenario that took this long against the honest server (a timeout waited
/// out, a sleeping command) is tried after the quick ones of its likelihood.
const SLOW: Duration = Duration::from_secs(1);

/// One scenario to run, against the honest server or one mutation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Job {
    /// Index of the scenario in the run's list.
    pub scenario: usize,
    /// Index of the mutation in the run's list; None for the honest server.
    pub mutation: Option<usize>,
}

/// What one job found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Finding {
    /// The scenario passed, after this long.
    Passed(Duration),
    /// It failed or errored: against a mutation, a kill if it passes honestly.
    Failed,
    /// Any other verdict (skipped, unsupported): neither a pass nor a kill.
    Neither,
    /// The job was cancelled before its verdict.
    Cancelled,
}

/// What a free worker does next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Next {
    Run(Job),
    /// Nothing to start now, but running jobs may make more (a failure the honest
    /// pass refutes sends its mutation on searching).
    Wait,
    /// Every mutation is decided and nothing runs.
    Done,
}

/// When a mutation is decided.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Stop {
    /// At its first confirmed kill.
    AtFirstKill,
    /// Once every scenario that passes honestly has run against it.
    AfterEveryScenario,
}

/// A scenario's honest verdict, as far as it is known.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Honest {
    Waiting,
    Running,
    Passed { slow: bool },
    NotPassed,
}

impl Honest {
    fn settled(self) -> bool {
        matches!(self, Honest::Passed { .. } | Honest::NotPassed)
    }
}

#[derive(Debug, Clone)]
struct MutationState {
    /// Scenarios not yet started against it, each with its likelihood.
    untried: Vec<(Likelihood, usize)>,
    running: BTreeSet<usize>,
    /// Scenarios that failed against it and whose honest verdict is not in yet.
    unconfirmed: BTreeSet<usize>,
    killers: BTreeSet<usize>,
    decided: bool,
    /// Run against every scenario whatever the stop: a conforming variation, whose
    /// every false failure is to be named.
    exhaustive: bool,
}

impl MutationState {
    fn in_hand(&self) -> usize {
        self.running.len() + self.unconfirmed.len()
    }
}

/// What a finished job changed.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(crate) struct Changes {
    /// Mutations decided by it.
    pub decided: Vec<usize>,
    /// Mutations decided while jobs of theirs still run: those are to be cancelled.
    pub to_cancel: Vec<usize>,
}

/// The state of a scoring run.
#[derive(Debug, Clone)]
pub(crate) struct Schedule {
    stop: Stop,
    honest: Vec<Honest>,
    next_honest: usize,
    mutations: Vec<MutationState>,
    running_jobs: usize,
}

impl Schedule {
    /// A run over `scenarios` scenarios and one mutation per entry of `candidates`:
    /// the scenarios it may be tried with, each with its likelihood of killing it.
    pub(crate) fn new(
        scenarios: usize,
        candidates: Vec<Vec<(Likelihood, usize)>>,
        stop: Stop,
    ) -> Schedule {
        let mutations = candidates
            .into_iter()
            .map(|untried| MutationState {
                untried,
                running: BTreeSet::new(),
                unconfirmed: BTreeSet::new(),
                killers: BTreeSet::new(),
                decided: false,
                exhaustive: false,
            })
            .collect();
        let mut schedule = Schedule {
            stop,
            honest: vec![Honest::Waiting; scenarios],
            next_honest: 0,
            mutations,
            running_jobs: 0,
        };
        // A mutation with no scenario to try is decided (it survives) at once.
        for index in 0..schedule.mutations.len() {
            schedule.settle(index);
        }
        schedule
    }

    /// The same schedule, with the entries whose flag in `exhaustive` is set run
    /// against every scenario that passes honestly, not stopped at a first kill.
    pub(crate) fn with_exhaustive(mut self, exhaustive: &[bool]) -> Schedule {
        for (state, flag) in self.mutations.iter_mut().zip(exhaustive) {
            state.exhaustive = *flag;
        }
        self
    }

    /// The job a free worker takes next.
    pub(crate) fn next(&mut self) -> Next {
        if let Some(state) = self.honest.get_mut(self.next_honest) {
            *state = Honest::Running;
            self.running_jobs += 1;
            self.next_honest += 1;
            return Next::Run(Job {
                scenario: self.next_honest - 1,
                mutation: None,
            });
        }
        let honest = &self.honest;
        // The mutation to serve, by rank, then catalogue order; and its job.
        let mut best: Option<((usize, bool), usize, usize)> = None;
        for (index, mutation) in self.mutations.iter_mut().enumerate() {
            if mutation.decided {
                continue;
            }
            mutation
                .untried
                .retain(|(_, scenario)| honest[*scenario] != Honest::NotPassed);
            let Some((place, slow)) = likeliest(&mutation.untried, honest) else {
                continue;
            };
            // Stopping at first kills: the fewest jobs in hand, and of those a
            // slow job first, so that no slow job is left to run alone at the end.
            let rank = match self.stop {
                Stop::AtFirstKill => (mutation.in_hand(), !slow),
                Stop::AfterEveryScenario => (0, false),
            };
            if best.is_none_or(|(best_rank, _, _)| rank < best_rank) {
                best = Some((rank, index, place));
            }
        }
        let Some((_, index, place)) = best else {
            return if self.running_jobs == 0 {
                Next::Done
            } else {
                Next::Wait
            };
        };
        let mutation = &mut self.mutations[index];
        let (_, scenario) = mutation.untried.remove(place);
        mutation.running.insert(scenario);
        self.running_jobs += 1;
        Next::Run(Job {
            scenario,
            mutation: Some(index),
        })
    }

    /// Takes in what `job` found.
    pub(crate) fn finish(&mut self, job: Job, finding: Finding) -> Changes {
        self.running_jobs = self.running_jobs.saturating_sub(1);
        let mut changes = Changes::default();
        match job.mutation {
            None => {
                self.honest[job.scenario] = match finding {
                    Finding::Passed(took) => Honest::Passed { slow: took >= SLOW },
                    Finding::Failed | Finding::Neither | Finding::Cancelled => Honest::NotPassed,
                };
                for index in 0..self.mutations.len() {
                    self.settle_and_note(index, &mut changes);
                }
            }
            Some(index) => {
                let honest = self.honest[job.scenario];
                let Some(mutation) = self.mutations.get_mut(index) else {
                    return changes;
                };
                mutation.running.remove(&job.scenario);
                if !mutation.decided && finding == Finding::Failed {
                    match honest {
                        Honest::Passed { .. } => {
                            mutation.killers.insert(job.scenario);
                        }
                        Honest::NotPassed => {}
                        Honest::Waiting | Honest::Running => {
                            mutation.unconfirmed.insert(job.scenario);
                        }
                    }
                }
                self.settle_and_note(index, &mut changes);
            }
        }
        changes
    }

    fn settle_and_note(&mut self, index: usize, changes: &mut Changes) {
        if self.settle(index) {
            changes.decided.push(index);
            if !self.mutations[index].running.is_empty() {
                changes.to_cancel.push(index);
            }
        }
    }

    /// Brings a mutation up to date with the honest verdicts; true when this
    /// decides it.
    fn settle(&mut self, index: usize) -> bool {
        let honest = &self.honest;
        let Some(mutation) = self.mutations.get_mut(index) else {
            return false;
        };
        if mutation.decided {
            return false;
        }
        let settled: Vec<usize> = mutation
            .unconfirmed
            .iter()
            .copied()
            .filter(|s| honest[*s].settled())
            .collect();
        for scenario in settled {
            mutation.unconfirmed.remove(&scenario);
            if matches!(honest[scenario], Honest::Passed { .. }) {
                mutation.killers.insert(scenario);
            }
        }
        mutation
            .untried
            .retain(|(_, scenario)| honest[*scenario] != Honest::NotPassed);
        let killed_early =
            self.stop == Stop::AtFirstKill && !mutation.exhaustive && !mutation.killers.is_empty();
        let nothing_left = mutation.untried.is_empty()
            && mutation.running.is_empty()
            && mutation.unconfirmed.is_empty();
        mutation.decided = killed_early || nothing_left;
        mutation.decided
    }

    /// Whether the mutation at `index` is decided.
    pub(crate) fn decided(&self, index: usize) -> bool {
        self.mutations.get(index).is_some_and(|m| m.decided)
    }

    /// The scenarios that killed the mutation at `index`, in scenario order: the
    /// first confirmed one when stopping at the first kill, every one otherwise.
    pub(crate) fn killers(&self, index: usize) -> Vec<usize> {
        let Some(mutation) = self.mutations.get(index) else {
            return Vec::new();
        };
        match self.stop {
            Stop::AtFirstKill if !mutation.exhaustive => {
                mutation.killers.iter().take(1).copied().collect()
            }
            _ => mutation.killers.iter().copied().collect(),
        }
    }

    /// Whether the honest verdicts of `scenarios` are all in.
    pub(crate) fn honest_settled(&self, scenarios: std::ops::Range<usize>) -> bool {
        self.honest
            .get(scenarios)
            .is_some_and(|verdicts| verdicts.iter().all(|h| h.settled()))
    }

    /// Whether the scenario at `index` passed against the honest server (false
    /// while its verdict is not in).
    pub(crate) fn passed_honestly(&self, scenario: usize) -> bool {
        matches!(self.honest.get(scenario), Some(Honest::Passed { .. }))
    }
}

/// The place in `untried` of the scenario to try next: the likeliest killer, and
/// of equally likely ones, those quick against the honest server first, then
/// those not yet run there, then the slow ones; and whether it is a slow one.
fn likeliest(untried: &[(Likelihood, usize)], honest: &[Honest]) -> Option<(usize, bool)> {
    let speed = |scenario: usize| match honest[scenario] {
        Honest::Passed { slow: false } => 0,
        Honest::Waiting | Honest::Running | Honest::NotPassed => 1,
        Honest::Passed { slow: true } => 2,
    };
    untried
        .iter()
        .enumerate()
        .min_by_key(|(_, (likelihood, scenario))| (*likelihood, speed(*scenario), *scenario))
        .map(|(place, (_, scenario))| (place, speed(*scenario) == 2))
}

#[cfg(test)]
mod tests {
    use super::*;

    const QUICK: Finding = Finding::Passed(Duration::from_millis(10));

    fn honest(scenario: usize) -> Job {
        Job {
            scenario,
            mutation: None,
        }
    }

    fn against(mutation: usize, scenario: usize) -> Job {
        Job {
            scenario,
            mutation: Some(mutation),
        }
    }

    fn unknown(scenarios: &[usize]) -> Vec<(Likelihood, usize)> {
        scenarios
            .iter()
            .map(|s| (Likelihood::Unknown, *s))
            .collect()
    }

    /// Runs every honest job with the findings given, in order.
    fn honest_pass(schedule: &mut Schedule, findings: &[Finding]) {
        for (scenario, finding) in findings.iter().enumerate() {
            assert_eq!(schedule.next(), Next::Run(honest(scenario)));
            schedule.finish(honest(scenario), *finding);
        }
    }

    #[test]
    fn the_honest_pass_is_handed_out_before_any_mutation() {
        let mut schedule = Schedule::new(2, vec![unknown(&[0, 1])], Stop::AtFirstKill);
        assert_eq!(schedule.next(), Next::Run(honest(0)));
        assert_eq!(schedule.next(), Next::Run(honest(1)));
        assert_eq!(schedule.next(), Next::Run(against(0, 0)));
    }

    #[test]
    fn a_first_kill_decides_the_mutation_and_cancels_its_other_jobs() {
        let mut schedule = Schedule::new(3, vec![unknown(&[0, 1, 2])], Stop::AtFirstKill);
        honest_pass(&mut schedule, &[QUICK, QUICK, QUICK]);
        assert_eq!(schedule.next(), Next::Run(against(0, 0)));
        assert_eq!(schedule.next(), Next::Run(against(0, 1)));
        let changes = schedule.finish(against(0, 0), Finding::Failed);
        assert_eq!(
            changes,
            Changes {
                decided: vec![0],
                to_cancel: vec![0]
            }
        );
        assert!(schedule.decided(0));
        // Scenario 2 is never started; the cancelled job ends the run.
        assert_eq!(schedule.next(), Next::Wait);
        schedule.finish(against(0, 1), Finding::Cancelled);
        assert_eq!(schedule.next(), Next::Done);
        assert_eq!(schedule.killers(0), [0]);
    }

    #[test]
    fn an_exhaustive_entry_runs_on_past_its_first_failure_and_names_every_one() {
        let mut schedule =
            Schedule::new(3, vec![unknown(&[0, 1, 2])], Stop::AtFirstKill).with_exhaustive(&[true]);
        honest_pass(&mut schedule, &[QUICK, QUICK, QUICK]);
        for scenario in 0..3 {
            assert_eq!(schedule.next(), Next::Run(against(0, scenario)));
            let finding = if scenario == 1 {
                QUICK
            } else {
                Finding::Failed
            };
            let changes = schedule.finish(against(0, scenario), finding);
            assert_eq!(changes.decided.is_empty(), scenario < 2, "{changes:?}");
        }
        assert_eq!(schedule.next(), Next::Done);
        assert_eq!(schedule.killers(0), [0, 2]);
    }

    #[test]
    fn a_survivor_is_decided_only_once_every_honestly_passing_scenario_ran() {
        let mut schedule = Schedule::new(3, vec![unknown(&[0, 1, 2])], Stop::AtFirstKill);
        honest_pass(&mut schedule, &[QUICK, Finding::Failed, QUICK]);
        // Scenario 1 does not pass honestly, so it is never run against the mutation.
        assert_eq!(schedule.next(), Next::Run(against(0, 0)));
        assert!(schedule.finish(against(0, 0), QUICK).decided.is_empty());
        assert_eq!(schedule.next(), Next::Run(against(0, 2)));
        let changes = schedule.finish(against(0, 2), Finding::Neither);
        assert_eq!(changes.decided, [0]);
        assert!(changes.to_cancel.is_empty());
        assert!(schedule.killers(0).is_empty());
        assert_eq!(schedule.next(), Next::Done);
    }

    #[test]
    fn a_failure_waits_for_its_honest_verdict_which_confirms_or_refutes_it() {
        let mut schedule = Schedule::new(
            2,
            vec![unknown(&[0, 1]), unknown(&[0, 1])],
            Stop::AtFirstKill,
        );
        assert_eq!(schedule.next(), Next::Run(honest(0)));
        assert_eq!(schedule.next(), Next::Run(honest(1)));
        assert_eq!(schedule.next(), Next::Run(against(0, 0)));
        assert_eq!(schedule.next(), Next::Run(against(1, 0)));
        assert!(schedule
            .finish(against(0, 0), Finding::Failed)
            .decided
            .is_empty());
        assert!(schedule
            .finish(against(1, 0), Finding::Failed)
            .decided
            .is_empty());
        // Honestly, scenario 0 fails: neither failure counts, both mutations go on.
        assert!(schedule
            .finish(honest(0), Finding::Failed)
            .decided
            .is_empty());
        assert_eq!(schedule.next(), Next::Run(against(0, 1)));
        assert_eq!(schedule.next(), Next::Run(against(1, 1)));
        assert!(schedule
            .finish(against(0, 1), Finding::Failed)
            .decided
            .is_empty());
        // Honestly, scenario 1 passes: mutation 0's failure is a kill.
        assert_eq!(schedule.finish(honest(1), QUICK).decided, [0]);
        assert_eq!(schedule.killers(0), [1]);
        assert_eq!(schedule.finish(against(1, 1), QUICK).decided, [1]);
        assert!(schedule.killers(1).is_empty());
        assert_eq!(schedule.next(), Next::Done);
    }

    #[test]
    fn likely_killers_go_first_and_slow_scenarios_last_within_their_likelihood() {
        let candidates = vec![vec![
            (Likelihood::Unknown, 0),
            (Likelihood::Unknown, 1),
            (Likelihood::SharesWords(std::cmp::Reverse(1)), 2),
            (Likelihood::SharesWords(std::cmp::Reverse(1)), 3),
            (Likelihood::KilledBefore(0), 4),
        ]];
        let mut schedule = Schedule::new(5, candidates, Stop::AtFirstKill);
        let slow = Finding::Passed(Duration::from_secs(3));
        honest_pass(&mut schedule, &[slow, QUICK, slow, QUICK, QUICK]);
        let mut order = Vec::new();
        while let Next::Run(job) = schedule.next() {
            order.push(job.scenario);
            schedule.finish(job, QUICK);
        }
        assert_eq!(order, [4, 3, 2, 1, 0]);
    }

    #[test]
    fn a_free_worker_starts_the_mutation_with_the_fewest_jobs_in_hand() {
        let mut schedule = Schedule::new(
            2,
            vec![unknown(&[0, 1]), unknown(&[0, 1])],
            Stop::AtFirstKill,
        );
        honest_pass(&mut schedule, &[QUICK, QUICK]);
        assert_eq!(schedule.next(), Next::Run(against(0, 0)));
        assert_eq!(schedule.next(), Next::Run(against(1, 0)));
        assert_eq!(schedule.next(), Next::Run(against(0, 1)));
    }

    #[test]
    fn of_mutations_with_as_few_jobs_in_hand_one_whose_next_job_is_slow_goes_first() {
        let slow = Finding::Passed(Duration::from_secs(3));
        let mut schedule = Schedule::new(
            2,
            vec![unknown(&[0]), unknown(&[1]), unknown(&[0])],
            Stop::AtFirstKill,
        );
        honest_pass(&mut schedule, &[QUICK, slow]);
        assert_eq!(schedule.next(), Next::Run(against(1, 1)));
        assert_eq!(schedule.next(), Next::Run(against(0, 0)));
        assert_eq!(schedule.next(), Next::Run(against(2, 0)));
    }

    #[test]
    fn a_full_count_runs_every_scenario_and_keeps_every_killer() {
        let mut schedule = Schedule::new(
            3,
            vec![unknown(&[0, 1, 2]), unknown(&[0, 1, 2])],
            Stop::AfterEveryScenario,
        );
        honest_pass(&mut schedule, &[QUICK, QUICK, QUICK]);
        let mut ran = Vec::new();
        while let Next::Run(job) = schedule.next() {
            ran.push(job);
            let finding = if job.scenario == 1 {
                QUICK
            } else {
                Finding::Failed
            };
            schedule.finish(job, finding);
        }
        // The earliest undecided mutation first, so scores come out in order.
        assert_eq!(
            ran,
            [
                against(0, 0),
                against(0, 1),
                against(0, 2),
                against(1, 0),
                against(1, 1),
                against(1, 2)
            ]
        );
        assert_eq!(schedule.killers(0), [0, 2]);
        assert_eq!(schedule.killers(1), [0, 2]);
    }

    #[test]
    fn a_mutation_with_nothing_to_try_is_decided_at_once() {
        let mut schedule = Schedule::new(1, vec![Vec::new()], Stop::AtFirstKill);
        assert!(schedule.decided(0));
        assert_eq!(schedule.next(), Next::Run(honest(0)));
        assert_eq!(schedule.next(), Next::Wait);
        schedule.finish(honest(0), QUICK);
        assert_eq!(schedule.next(), Next::Done);
        assert!(schedule.honest_settled(0..1));
        assert!(schedule.passed_honestly(0));
    }
}
