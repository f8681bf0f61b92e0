//! `toolspec mutants`'s console text, a line at a time as the scores are decided:
//! a heading per suite, a line per mutation and per run of variations (with its
//! killers or false failures when asked), then each suite's notes, holes and
//! score, and the run's total. Lines only: the command prints them (making a
//! server's control characters inert on the way).

use std::time::Instant;

use crate::proof::mutants::{MutantOutcome, Progress, SuiteScore, Totals, VariationOutcome};

/// The lines of one scoring run, which remembers the suite whose heading was
/// given last.
pub(crate) struct MutantsText {
    /// `--full`: each mutation's line counts the scenarios that kill it.
    full: bool,
    /// `--verbose`: the scenarios that killed each mutation are named.
    verbose: bool,
    started: Instant,
    announced: Option<String>,
}

impl MutantsText {
    /// The text of a run that started at `started`.
    pub(crate) fn new(full: bool, verbose: bool, started: Instant) -> MutantsText {
        MutantsText {
            full,
            verbose,
            started,
            announced: None,
        }
    }

    /// The lines `progress` adds, after its suite's heading when it is the suite's
    /// first.
    pub(crate) fn lines(&mut self, progress: Progress<'_>) -> Vec<String> {
        let suite = match progress {
            Progress::Mutant { suite, .. } | Progress::Variation { suite, .. } => suite,
            Progress::Suite(score) => score.suite.as_str(),
        };
        let mut lines = Vec::new();
        if self.announced.as_deref() != Some(suite) {
            lines.push(format!("{suite}: mutating the bundled server"));
            self.announced = Some(suite.to_string());
        }
        match progress {
            Progress::Mutant { outcome, .. } => self.mutant(outcome, &mut lines),
            Progress::Variation { outcome, .. } => variation(outcome, &mut lines),
            Progress::Suite(score) => self.summary(score, &mut lines),
        }
        lines
    }

    fn mutant(&self, m: &MutantOutcome, lines: &mut Vec<String>) {
        let verdict = if m.killed() { "killed  " } else { "SURVIVED" };
        lines.push(if self.full {
            format!(
                "  {verdict} {:<32} {:>3} failing  {}",
                m.mutation.name,
                m.killed_by.len(),
                m.mutation.what
            )
        } else {
            format!("  {verdict} {:<32} {}", m.mutation.name, m.mutation.what)
        });
        if self.verbose {
            lines.extend(m.killed_by.iter().map(|id| format!("             by {id}")));
        }
    }

    /// A suite's notes, holes and score, once all its mutations are scored.
    fn summary(&self, score: &SuiteScore, lines: &mut Vec<String>) {
        if !score.not_passing.is_empty() {
            lines.push(format!(
                "  note: {} scenario(s) do not pass against the honest server and cannot kill: {}",
                score.not_passing.len(),
                score.not_passing.join(", ")
            ));
        }
        for m in score.survivors() {
            lines.push(format!(
                "  hole: no scenario catches `{}` ({}); add one the spec justifies",
                m.mutation.name, m.mutation.what
            ));
        }
        for (scenario, false_answer) in &score.derived.false_answers {
            lines.push(format!("  false failure: {scenario}"));
            lines.extend(
                false_answer
                    .describe()
                    .lines()
                    .map(|line| format!("             {line}")),
            );
        }
        let total = score.mutants.len();
        let (spared, varied) = score.specificity();
        let specificity = if varied == 0 {
            String::new()
        } else {
            format!(
                ", {spared} of {varied} variations spared ({}%)",
                (spared * 100).checked_div(varied).unwrap_or(100)
            )
        };
        let derived = &score.derived;
        let derived = if derived.answers == 0 {
            String::new()
        } else {
            format!(
                ", {} of {} derived answers passed",
                derived.answers - derived.false_answers.len(),
                derived.answers
            )
        };
        lines.push(format!(
            "{}: {} of {total} mutations killed ({}%){specificity}{derived} over {} scenarios in {:.1}s",
            score.suite,
            score.killed(),
            (score.killed() * 100).checked_div(total).unwrap_or(100),
            score.scenarios,
            self.started.elapsed().as_secs_f64()
        ));
    }

    /// The whole run's line, when it scored more than one suite.
    pub(crate) fn total(&self, scores: &[SuiteScore]) -> Option<String> {
        if scores.len() < 2 {
            return None;
        }
        let t = Totals::of(scores);
        Some(format!(
            "all {} suites: {} of {} killed, {} of {} variations spared, {} of {} derived answers passed in {:.1}s",
            scores.len(),
            t.killed,
            t.total,
            t.spared,
            t.varied,
            t.derived - t.derived_failed,
            t.derived,
            self.started.elapsed().as_secs_f64()
        ))
    }
}

/// A run of variations: spared or failed, and each false failure with the
/// expectations that did not hold.
fn variation(outcome: &VariationOutcome, lines: &mut Vec<String>) {
    let verdict = if outcome.spared() {
        "spared  "
    } else {
        "FAILED  "
    };
    let what = match outcome.variations.as_slice() {
        [one] => format!("{:<32} {}", one.name, one.what),
        every => format!("{} variations at once: {}", every.len(), outcome.names()),
    };
    lines.push(format!("  {verdict} {what}"));
    for failure in &outcome.false_failures {
        lines.push(format!(
            "  false failure: {} fails a conforming answer",
            failure.scenario
        ));
        lines.extend(
            failure
                .expectations
                .iter()
                .map(|expectation| format!("             {expectation}")),
        );
    }
}
