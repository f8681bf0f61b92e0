//! Mutation testing of suites: the bundled reference server is started once per
//! scenario and entry of its dialect's catalogue of deliberate deviations
//! (`--mutate NAME`). A mutation is killed when a scenario that passes against
//! the honest server fails (or errors) against the mutated one; a survivor is a
//! hole in the suite.
//!
//! A score is wanted in seconds, so by default a mutation stops at its first
//! kill (its other running scenarios are cancelled), its likeliest killers are
//! tried first ([`order`], with the killers of the last run from [`hints`]), and
//! the honest pass and every mutation of every suite share one pool of workers
//! ([`pool`], run by the state machine in [`schedule`]). A full count, which
//! runs every scenario against every mutation, is there for the table in docs/proof.md
//! of how many scenarios fail each one.
//!
//! The same run proves the other half: that a right answer in another allowed
//! form passes. The reference server's catalogue of conforming variations
//! (`--vary NAME`) is run against every scenario that passes honestly; a
//! scenario that fails one is a false failure, named with the expectations that
//! did not hold. A variation that words a message otherwise is right by the
//! documents, not by the upstream program, so it runs against the `basis: spec`
//! scenarios only. By default the variations run at once, on one server (they
//! combine, and together cost one more pass per suite), those of each reach
//! apart; a full count runs each alone, so that a false failure names its
//! variation.

pub(crate) mod catalogue;
pub(crate) mod hints;
mod order;
mod pool;
mod schedule;
mod score;

pub(crate) use catalogue::MutantsError;
pub(crate) use score::{
    DerivedOutcome, FalseFailure, MutantOutcome, SuiteScore, Totals, VariationOutcome,
};

use std::collections::{BTreeMap, BTreeSet};
use std::ops::Range;
use std::path::Path;
use std::sync::{Mutex, PoisonError};

use self::catalogue::{Mutation, Variation};
use self::hints::Killers;
use self::order::{likelihood, mutation_words, scenario_words, Rarity};
use self::schedule::{Finding, Job, Schedule, Stop};
use crate::execute::cancel::Cancel;
use crate::execute::{run_scenario_unless_cancelled, RunOptions, Verdict};
use crate::proof::freedoms::{self, DerivedJudgement};
use crate::scenario::{Basis, Scenario, Suite, SuiteScenarioFile};
use crate::server::Target;

/// How a scoring run goes.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Scoring<'a> {
    /// The mutations to score, by name (every one of the catalogue when empty,
    /// none when only variations are named).
    pub only: &'a [String],
    /// The variations to run, by name (every one when empty, none when only
    /// mutations are named).
    pub only_variations: &'a [String],
    pub options: &'a RunOptions,
    /// Scenarios run at once.
    pub jobs: usize,
    /// Run every honestly passing scenario against every mutation and name all
    /// that kill it, instead of stopping each mutation at its first kill.
    pub full_count: bool,
    /// The scenarios that killed each mutation last time, tried first.
    pub hints: &'a Killers,
    /// Whether the servers run isolated (off with `--no-isolation`).
    pub isolated: bool,
}

/// What a scoring run reports as it goes, suite by suite, each suite's mutations
/// in catalogue order.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Progress<'a> {
    /// A mutation of `suite` is scored.
    Mutant {
        suite: &'a str,
        outcome: &'a MutantOutcome,
    },
    /// A run of variations of `suite` is over.
    Variation {
        suite: &'a str,
        outcome: &'a VariationOutcome,
    },
    /// Every mutation of a suite is scored and its honest pass is over.
    Suite(&'a SuiteScore),
}

/// One scenario of the run, with where it comes from.
struct Entry<'s> {
    suite: usize,
    file: &'s SuiteScenarioFile,
    scenario: &'s Scenario,
    id: String,
}

/// What a server of the run does differently from the honest one.
enum Deviation {
    /// A mistake, which some scenario must catch.
    Mutation(Mutation),
    /// Conforming variations taken at once, which every scenario must accept.
    Variations(Vec<Variation>),
}

/// One deviation of the run, with the server that has it.
struct Mutant {
    suite: usize,
    deviation: Deviation,
    target: Target,
}

/// Scores `suites`: reads each catalogue (and refuses a mutation `scoring.only`
/// names that one lacks) before running anything, then runs the honest pass and
/// the mutations of every suite on one pool, calling `progress` as scores are
/// decided. Returns the scores in the order of `suites`.
pub(crate) fn score(
    exe: &Path,
    suites: &[Suite],
    scoring: &Scoring<'_>,
    progress: &mut (dyn FnMut(Progress<'_>) + Send),
) -> Result<Vec<SuiteScore>, MutantsError> {
    let mut mutants = Vec::new();
    let mutations_wanted = !scoring.only.is_empty() || scoring.only_variations.is_empty();
    let variations_wanted = !scoring.only_variations.is_empty() || scoring.only.is_empty();
    for (index, suite) in suites.iter().enumerate() {
        if mutations_wanted {
            let selected = catalogue::select(suite, catalogue::read(exe, suite)?, scoring.only)?;
            mutants.extend(selected.into_iter().map(|mutation| {
                Mutant {
                    suite: index,
                    target: Target::reference(exe, suite)
                        .with_extra_args(&["--mutate", &mutation.name])
                        .isolated_if(scoring.isolated),
                    deviation: Deviation::Mutation(mutation),
                }
            }));
        }
        if variations_wanted {
            let selected = catalogue::select_variations(
                suite,
                catalogue::read_variations(exe, suite)?,
                scoring.only_variations,
            )?;
            let runs: Vec<Vec<Variation>> = if scoring.full_count {
                selected.into_iter().map(|v| vec![v]).collect()
            } else {
                let (every, spec): (Vec<Variation>, Vec<Variation>) =
                    selected.into_iter().partition(|v| v.spares_upstream);
                [every, spec]
                    .into_iter()
                    .filter(|run| !run.is_empty())
                    .collect()
            };
            mutants.extend(runs.into_iter().map(|variations: Vec<Variation>| {
                let flags: Vec<&str> = variations
                    .iter()
                    .flat_map(|v| ["--vary", v.name.as_str()])
                    .collect();
                Mutant {
                    suite: index,
                    target: Target::reference(exe, suite)
                        .with_extra_args(&flags)
                        .isolated_if(scoring.isolated),
                    deviation: Deviation::Variations(variations),
                }
            }));
        }
    }
    let mut entries = Vec::new();
    let mut ranges = Vec::new();
    for (index, suite) in suites.iter().enumerate() {
        let start = entries.len();
        entries.extend(suite.scenarios().map(|(file, scenario)| Entry {
            suite: index,
            file,
            scenario,
            id: suite.scenario_id(file, scenario),
        }));
        ranges.push(start..entries.len());
    }
    let honest: Vec<Target> = suites
        .iter()
        .map(|s| Target::reference(exe, s).isolated_if(scoring.isolated))
        .collect();
    let stop = if scoring.full_count {
        Stop::AfterEveryScenario
    } else {
        Stop::AtFirstKill
    };
    let exhaustive: Vec<bool> = mutants
        .iter()
        .map(|m| matches!(m.deviation, Deviation::Variations(_)))
        .collect();
    let schedule = Schedule::new(
        entries.len(),
        candidates(suites, &entries, &ranges, &mutants, scoring.hints),
        stop,
    )
    .with_exhaustive(&exhaustive);
    // What each false failure found, by variation run and scenario.
    let found: Mutex<BTreeMap<(usize, usize), Vec<String>>> = Mutex::new(BTreeMap::new());
    // The honest pass keeps each judged answer, to derive other right ones from.
    let honest_options = RunOptions {
        keep_judged: variations_wanted,
        ..scoring.options.clone()
    };
    let derived: Mutex<BTreeMap<usize, DerivedJudgement>> = Mutex::new(BTreeMap::new());
    let run = |job: Job, cancel: &Cancel| -> Finding {
        let Some(entry) = entries.get(job.scenario) else {
            return Finding::Neither;
        };
        let target = match job.mutation {
            Some(m) => mutants.get(m).map(|m| &m.target),
            None => honest.get(entry.suite),
        };
        let (Some(target), Some(suite)) = (target, suites.get(entry.suite)) else {
            return Finding::Neither;
        };
        let options = match job.mutation {
            Some(_) => scoring.options,
            None => &honest_options,
        };
        let report = run_scenario_unless_cancelled(
            suite,
            &entry.file.stem,
            entry.scenario,
            target,
            options,
            None,
            cancel,
        );
        let Some(r) = report else {
            return Finding::Cancelled;
        };
        if job.mutation.is_none() {
            if let Some(judgement) = freedoms::judge_derived(suite, entry.scenario, &r) {
                derived
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .insert(job.scenario, judgement);
            }
        }
        let failed = match &r.verdict {
            Verdict::Pass => return Finding::Passed(r.elapsed),
            Verdict::Skip(_) | Verdict::Unsupported(_) => return Finding::Neither,
            Verdict::Fail(mismatches) => mismatches
                .iter()
                .map(|m| {
                    // The first line says what was wrong; one ending in `:` is
                    // followed by the text it speaks of, whose first line is kept.
                    let mut lines = m.detail.lines();
                    let mut why = lines.next().unwrap_or_default().to_string();
                    if why.ends_with(':') {
                        if let Some(next) = lines.next() {
                            why.push(' ');
                            why.push_str(next.trim());
                        }
                    }
                    format!("{}: {why}", m.expectation)
                })
                .collect(),
            Verdict::Error { what, .. } => vec![format!("error: {what}")],
            Verdict::Escape(escape) => vec![escape.line()],
        };
        if let Some(m) = job.mutation.filter(|m| exhaustive.get(*m) == Some(&true)) {
            found
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .insert((m, job.scenario), failed);
        }
        Finding::Failed
    };
    let mut tally = Tally {
        found: &found,
        derived: &derived,
        suites,
        entries: &entries,
        ranges: &ranges,
        mutants: &mutants,
        progress,
        next_suite: 0,
        next_mutant: 0,
        outcomes: Vec::new(),
        variations: Vec::new(),
        scores: Vec::new(),
    };
    let mut on_change = |schedule: &Schedule| tally.catch_up(schedule);
    let finished =
        pool::run_to_the_end(schedule, mutants.len(), scoring.jobs, &run, &mut on_change);
    tally.catch_up(&finished);
    Ok(tally.scores)
}

/// For each mutation, the scenarios of its suite with how likely each is to kill it.
fn candidates(
    suites: &[Suite],
    entries: &[Entry<'_>],
    ranges: &[Range<usize>],
    mutants: &[Mutant],
    hints: &Killers,
) -> Vec<Vec<(order::Likelihood, usize)>> {
    let words: Vec<BTreeSet<String>> = entries
        .iter()
        .map(|e| scenario_words(&e.file.stem, e.scenario))
        .collect();
    let rarities: Vec<Rarity> = ranges
        .iter()
        .map(|range| Rarity::of(&words[range.clone()]))
        .collect();
    mutants
        .iter()
        .map(|mutant| {
            let (Some(range), Some(rarity)) =
                (ranges.get(mutant.suite), rarities.get(mutant.suite))
            else {
                return Vec::new();
            };
            let mutation = match &mutant.deviation {
                Deviation::Mutation(mutation) => mutation,
                // Variations run against every scenario they must spare: no order
                // is likelier.
                Deviation::Variations(variations) => {
                    let upstream_too = variations.iter().all(|v| v.spares_upstream);
                    return range
                        .clone()
                        .filter(|s| upstream_too || entries[*s].scenario.basis == Basis::Spec)
                        .map(|s| (order::Likelihood::Unknown, s))
                        .collect();
                }
            };
            let about = mutation_words(&mutation.name, &mutation.what);
            let suite = suites.get(mutant.suite).map_or("", |s| s.name.as_str());
            let hinted = hints.of(suite, &mutation.name);
            range
                .clone()
                .map(|s| {
                    let likely = likelihood(&entries[s].id, &words[s], &about, hinted, rarity);
                    (likely, s)
                })
                .collect()
        })
        .collect()
}

/// Turns decided mutations into outcomes and finished suites into scores, in
/// order, as the schedule decides them.
struct Tally<'a, 's> {
    found: &'a Mutex<BTreeMap<(usize, usize), Vec<String>>>,
    derived: &'a Mutex<BTreeMap<usize, DerivedJudgement>>,
    suites: &'s [Suite],
    entries: &'a [Entry<'s>],
    ranges: &'a [Range<usize>],
    mutants: &'a [Mutant],
    progress: &'a mut (dyn FnMut(Progress<'_>) + Send),
    next_suite: usize,
    /// The first mutation not reported yet (mutations are grouped by suite).
    next_mutant: usize,
    /// The outcomes of the suite being reported.
    outcomes: Vec<MutantOutcome>,
    variations: Vec<VariationOutcome>,
    scores: Vec<SuiteScore>,
}

impl Tally<'_, '_> {
    fn catch_up(&mut self, schedule: &Schedule) {
        while let Some(range) = self.ranges.get(self.next_suite).cloned() {
            match self.mutants.get(self.next_mutant) {
                Some(mutant) if mutant.suite == self.next_suite => {
                    if !schedule.decided(self.next_mutant) {
                        return;
                    }
                    let killers = schedule.killers(self.next_mutant);
                    let suite = self.suites[self.next_suite].name.as_str();
                    match &mutant.deviation {
                        Deviation::Mutation(mutation) => {
                            let outcome = MutantOutcome {
                                mutation: mutation.clone(),
                                killed_by: killers
                                    .into_iter()
                                    .map(|s| self.entries[s].id.clone())
                                    .collect(),
                            };
                            (self.progress)(Progress::Mutant {
                                suite,
                                outcome: &outcome,
                            });
                            self.outcomes.push(outcome);
                        }
                        Deviation::Variations(variations) => {
                            let found = self.found.lock().unwrap_or_else(PoisonError::into_inner);
                            let outcome = VariationOutcome {
                                variations: variations.clone(),
                                false_failures: killers
                                    .into_iter()
                                    .map(|s| FalseFailure {
                                        scenario: self.entries[s].id.clone(),
                                        expectations: found
                                            .get(&(self.next_mutant, s))
                                            .cloned()
                                            .unwrap_or_default(),
                                    })
                                    .collect(),
                            };
                            drop(found);
                            (self.progress)(Progress::Variation {
                                suite,
                                outcome: &outcome,
                            });
                            self.variations.push(outcome);
                        }
                    }
                    self.next_mutant += 1;
                }
                _ => {
                    if !schedule.honest_settled(range.clone()) {
                        return;
                    }
                    let score = SuiteScore {
                        suite: self.suites[self.next_suite].name.clone(),
                        scenarios: range.len(),
                        not_passing: range
                            .clone()
                            .filter(|s| !schedule.passed_honestly(*s))
                            .map(|s| self.entries[s].id.clone())
                            .collect(),
                        mutants: std::mem::take(&mut self.outcomes),
                        variations: std::mem::take(&mut self.variations),
                        derived: self.derived_of(range),
                    };
                    (self.progress)(Progress::Suite(&score));
                    self.scores.push(score);
                    self.next_suite += 1;
                }
            }
        }
    }
}

impl Tally<'_, '_> {
    /// The derived answers of the scenarios in `range`, gathered in suite order.
    fn derived_of(&self, range: Range<usize>) -> DerivedOutcome {
        let derived = self.derived.lock().unwrap_or_else(PoisonError::into_inner);
        let mut outcome = DerivedOutcome::default();
        for s in range {
            let Some(judgement) = derived.get(&s) else {
                continue;
            };
            outcome.scenarios += 1;
            outcome.answers += judgement.derived;
            outcome.false_answers.extend(
                judgement
                    .false_answers
                    .iter()
                    .map(|f| (self.entries[s].id.clone(), f.clone())),
            );
        }
        outcome
    }
}

/// How many killers of a mutation are kept for the next run: the first is nearly
/// always enough, and a full count may name dozens.
const KILLERS_KEPT: usize = 3;

/// Records what killed each mutation in `scores` into `hints`, for the next run.
pub(crate) fn remember(scores: &[SuiteScore], hints: &mut Killers) {
    for score in scores {
        for outcome in &score.mutants {
            let kept = outcome
                .killed_by
                .iter()
                .take(KILLERS_KEPT)
                .cloned()
                .collect();
            hints.record(&score.suite, &outcome.mutation.name, kept);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn outcome(name: &str, killed_by: &[&str]) -> MutantOutcome {
        MutantOutcome {
            mutation: Mutation {
                name: name.to_string(),
                what: String::new(),
            },
            killed_by: killed_by.iter().map(|k| k.to_string()).collect(),
        }
    }

    #[test]
    fn the_first_few_killers_are_remembered_and_a_survivor_forgets_its_own() {
        let mut hints = Killers::default();
        hints.record("s", "survivor", vec!["s::f::old".to_string()]);
        let score = SuiteScore {
            suite: "s".to_string(),
            scenarios: 5,
            not_passing: Vec::new(),
            mutants: vec![
                outcome("many", &["s::f::a", "s::f::b", "s::f::c", "s::f::d"]),
                outcome("survivor", &[]),
            ],
            variations: Vec::new(),
            derived: DerivedOutcome::default(),
        };
        remember(&[score], &mut hints);
        assert_eq!(hints.of("s", "many"), ["s::f::a", "s::f::b", "s::f::c"]);
        assert!(hints.of("s", "survivor").is_empty());
    }
}
