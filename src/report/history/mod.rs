//! One suite across the releases of one program, in release order: each
//! requirement's scores per release, and each scenario whose outcome changed at
//! least once, with the release where it first failed, the one that fixed it, and
//! the two releases to bisect between where a pass turned into a failure.
//!
//! The releases are the columns of a [`Matrix`], so the rows follow the spec's
//! order as every other page does. A scenario a release's suite version did not
//! have yet is "not yet in the suite", never a failure; a step across a suite
//! version that sharpened the scenario compares two different questions, so it is
//! marked and never taken for a break or a fix.

mod json;
mod markdown;
mod text;

pub(crate) use json::history_json;
pub(crate) use markdown::history_markdown;
pub(crate) use text::history_text;

use super::flips::rooted;
use super::matrix::{Column, Matrix, Requirement};
use super::{suite_of, Tally};
use crate::execute::{ScenarioReport, Verdict};
use crate::judge::diff::unified_between;

/// What a release says of one scenario, reduced to what a history compares.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Outcome {
    Passed,
    /// ESCAPE: the release reached a place beside its root. A later release that
    /// refuses, in whatever words, fixed it.
    Escaped,
    /// FAIL or ERROR: the release does not do what the scenario asks, excused by its
    /// baseline or not (each release has a baseline of its own).
    Failed,
    /// UNSUPPORTED: the release does not have the tool the scenario calls, so it was
    /// not asked; a release that gains the tool and passes fixed nothing.
    Unsupported,
    /// Run but not judged (SKIP).
    NotJudged,
    /// The release's suite version is older than the scenario.
    NotYetInSuite,
    /// The release's run does not have the scenario (filtered out, or removed).
    NotRun,
}

impl Outcome {
    /// The outcome's words, in the text, the page and `history.json`.
    pub(crate) fn word(self) -> &'static str {
        match self {
            Outcome::Passed => "pass",
            Outcome::Escaped => "escape",
            Outcome::Failed => "fail",
            Outcome::Unsupported => "unsupported",
            Outcome::NotJudged => "not judged",
            Outcome::NotYetInSuite => "not yet in the suite",
            Outcome::NotRun => "not run",
        }
    }

    /// How well a judged outcome stands, worst first (an escape, a failure, a
    /// pass); None when it judges nothing. A step up is a fix, a step down a break.
    fn judged(self) -> Option<u8> {
        match self {
            Outcome::Escaped => Some(0),
            Outcome::Failed => Some(1),
            Outcome::Passed => Some(2),
            _ => None,
        }
    }
}

/// What kind of step a [`Transition`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Step {
    /// Passed in the earlier release, fails in the later one (or failed, and
    /// escapes): bisect between them.
    Broke,
    /// Failed in the earlier release, passes in the later one (or escaped, and
    /// refuses, whatever the refusal's words).
    Fixed,
    /// The outcome changed, but the later release's suite version sharpened the
    /// scenario (its `since:`), so the two releases were not asked the same.
    Sharpened(u32),
}

impl Step {
    /// The step's word in `history.json`.
    pub(crate) fn word(self) -> &'static str {
        match self {
            Step::Broke => "broke",
            Step::Fixed => "fixed",
            Step::Sharpened(_) => "sharpened",
        }
    }
}

/// One change of a scenario's outcome between two releases that judged it (with
/// none judging it in between).
#[derive(Debug, Clone)]
pub(crate) struct Transition {
    /// The earlier release (its place among the releases).
    pub from: usize,
    /// The later release.
    pub to: usize,
    pub step: Step,
    /// The two answers diffed by the judge's own diff (headers: the two labels),
    /// each release's fixture root written `{root}`; None when one has no answer,
    /// or the same one.
    pub diff: Option<String>,
}

/// A scenario whose outcome changed at least once across the releases.
#[derive(Debug, Clone)]
pub(crate) struct Timeline {
    pub id: String,
    pub outcomes: Vec<Outcome>,
    pub transitions: Vec<Transition>,
}

impl Timeline {
    /// The release where it first failed: the first break, or the first release
    /// that judged it when it failed there.
    pub(crate) fn first_failed(&self) -> Option<usize> {
        let first_judged = self.outcomes.iter().position(|o| o.judged().is_some())?;
        if matches!(
            self.outcomes[first_judged],
            Outcome::Failed | Outcome::Escaped
        ) {
            return Some(first_judged);
        }
        self.transitions
            .iter()
            .find(|t| t.step == Step::Broke)
            .map(|t| t.to)
    }

    /// The first release after [`Self::first_failed`] where it passes again.
    pub(crate) fn fixed_in(&self) -> Option<usize> {
        let failed = self.first_failed()?;
        self.transitions
            .iter()
            .find(|t| t.step == Step::Fixed && t.to > failed)
            .map(|t| t.to)
    }

    /// Each pass that turned into a failure: the two releases to bisect between.
    pub(crate) fn bisect(&self) -> impl Iterator<Item = &Transition> {
        self.transitions.iter().filter(|t| t.step == Step::Broke)
    }
}

/// The releases side by side and the scenarios that changed.
#[derive(Debug)]
pub(crate) struct History {
    /// A column per release, in release order; its name is the release's label.
    pub matrix: Matrix,
    pub changed: Vec<Timeline>,
    /// Per release, how many of the scenarios the releases have between them its
    /// suite version did not have yet.
    pub not_yet_in_suite: Vec<usize>,
}

impl History {
    /// The history of `matrix`, whose columns are releases in order.
    pub(crate) fn new(matrix: Matrix) -> History {
        let mut changed = Vec::new();
        let mut not_yet_in_suite = vec![0; matrix.columns.len()];
        for q in &matrix.requirements {
            for row in &q.rows {
                let timeline = timeline(&matrix.columns, &row.id);
                for (count, outcome) in not_yet_in_suite.iter_mut().zip(&timeline.outcomes) {
                    if *outcome == Outcome::NotYetInSuite {
                        *count += 1;
                    }
                }
                if !timeline.transitions.is_empty() {
                    changed.push(timeline);
                }
            }
        }
        History {
            matrix,
            changed,
            not_yet_in_suite,
        }
    }

    /// The release labels, in order.
    pub(crate) fn labels(&self) -> Vec<&str> {
        self.matrix
            .columns
            .iter()
            .map(|c| c.name.as_str())
            .collect()
    }

    /// The suites whose version is not the same in every release, each with its
    /// version per release (None: the release did not run it).
    pub(crate) fn version_changes(&self) -> Vec<(String, Vec<Option<u32>>)> {
        let mut out = Vec::new();
        for suite in self.matrix.suites() {
            let versions: Vec<Option<u32>> = self
                .matrix
                .columns
                .iter()
                .map(|c| suite_version(c, suite))
                .collect();
            if versions.windows(2).any(|w| w[0] != w[1]) {
                out.push((suite.to_string(), versions));
            }
        }
        out
    }

    /// The scenarios of requirement `q` that changed, in its rows' order.
    pub(crate) fn changed_in<'a>(
        &'a self,
        q: &'a Requirement,
    ) -> impl Iterator<Item = &'a Timeline> {
        self.changed
            .iter()
            .filter(move |t| q.rows.iter().any(|row| row.id == t.id))
    }
}

/// A release's counts on one requirement.
pub(crate) fn requirement_tally(column: &Column, q: &Requirement) -> Tally {
    let mut tally = Tally::default();
    for row in &q.rows {
        if let Some(r) = column.report(&row.id) {
            tally.count(r);
        }
    }
    tally
}

/// The version of suite `suite` a release ran.
fn suite_version(column: &Column, suite: &str) -> Option<u32> {
    column
        .run
        .suites
        .iter()
        .find(|s| s.name == suite)
        .map(|s| s.version)
}

fn outcome_of(report: &ScenarioReport) -> Outcome {
    match report.verdict {
        Verdict::Pass => Outcome::Passed,
        Verdict::Escape(_) => Outcome::Escaped,
        Verdict::Fail(_) | Verdict::Error { .. } => Outcome::Failed,
        Verdict::Unsupported(_) => Outcome::Unsupported,
        Verdict::Skip(_) => Outcome::NotJudged,
    }
}

/// Scenario `id` across the releases.
fn timeline(columns: &[Column], id: &str) -> Timeline {
    // The scenario's `since:` as the newest release that has it says.
    let since = columns
        .iter()
        .rev()
        .find_map(|c| c.report(id))
        .map_or(0, |r| r.since);
    let suite = suite_of(id);
    let outcomes: Vec<Outcome> = columns
        .iter()
        .map(|c| match c.report(id) {
            Some(r) => outcome_of(r),
            None if suite_version(c, suite).is_some_and(|v| v < since) => Outcome::NotYetInSuite,
            None => Outcome::NotRun,
        })
        .collect();
    let mut transitions = Vec::new();
    let mut previous: Option<(usize, u8)> = None;
    for (at, outcome) in outcomes.iter().enumerate() {
        let Some(standing) = outcome.judged() else {
            continue;
        };
        if let Some((from, before)) = previous.filter(|(_, s)| *s != standing) {
            let later = columns[at].report(id);
            let sharpened = later
                .zip(suite_version(&columns[from], suite))
                .filter(|(r, old)| r.since > *old)
                .map(|(r, _)| r.since);
            let step = match sharpened {
                Some(version) => Step::Sharpened(version),
                None if before > standing => Step::Broke,
                None => Step::Fixed,
            };
            transitions.push(Transition {
                from,
                to: at,
                step,
                diff: answers_diffed(&columns[from], &columns[at], id),
            });
        }
        previous = Some((at, standing));
    }
    Timeline {
        id: id.to_string(),
        outcomes,
        transitions,
    }
}

/// The answers of two releases to scenario `id`, diffed as `toolspec diff` does.
fn answers_diffed(old: &Column, new: &Column, id: &str) -> Option<String> {
    let answer = |c: &Column| {
        c.report(id)
            .and_then(|r| r.answer.as_deref().map(|a| rooted(a, r)))
    };
    let (a, b) = (answer(old)?, answer(new)?);
    (a != b).then(|| unified_between((&old.name, &a), (&new.name, &b)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::judge::Mismatch;
    use crate::report::matrix::ClauseOrder;
    use crate::report::{RunFacts, SuiteFacts};

    fn release(label: &str, version: u32, reports: Vec<ScenarioReport>) -> Column {
        let run = RunFacts {
            target: "server".into(),
            isolation: Vec::new(),
            partition: None,
            suites: vec![SuiteFacts {
                name: "s".into(),
                version,
                origin: "built-in".into(),
            }],
        };
        Column::new(label.into(), run, reports)
    }

    fn at(id: &str, verdict: Verdict, since: u32, answer: &str) -> ScenarioReport {
        ScenarioReport {
            requirement: "Reading".into(),
            since,
            root: "/tmp/r".into(),
            answer: Some(format!("{answer} /tmp/r/x")),
            ..ScenarioReport::blank(id, verdict)
        }
    }

    fn fail() -> Verdict {
        Verdict::Fail(vec![Mismatch::new("code", "d")])
    }

    fn history(columns: Vec<Column>) -> History {
        History::new(Matrix::new("t".into(), columns, &ClauseOrder::default()))
    }

    #[test]
    fn a_scenario_that_broke_and_was_fixed_names_both_releases_and_where_to_bisect() {
        let h = history(vec![
            release(
                "1.0",
                1,
                vec![
                    at("s::r::a", Verdict::Pass, 1, "ok"),
                    at("s::r::same", Verdict::Pass, 1, "ok"),
                ],
            ),
            release(
                "1.1",
                1,
                vec![
                    at("s::r::a", Verdict::Pass, 1, "ok"),
                    at("s::r::same", Verdict::Pass, 1, "ok"),
                ],
            ),
            release(
                "1.2",
                1,
                vec![
                    at("s::r::a", fail(), 1, "bad"),
                    at("s::r::same", Verdict::Pass, 1, "ok"),
                ],
            ),
            release(
                "1.3",
                1,
                vec![
                    at("s::r::a", Verdict::Skip("x".into()), 1, "bad"),
                    at("s::r::same", Verdict::Pass, 1, "ok"),
                ],
            ),
            release(
                "1.4",
                1,
                vec![
                    at("s::r::a", Verdict::Pass, 1, "ok"),
                    at("s::r::same", Verdict::Pass, 1, "ok"),
                ],
            ),
        ]);
        assert_eq!(h.changed.len(), 1, "{:?}", h.changed);
        let t = &h.changed[0];
        assert_eq!(t.id, "s::r::a");
        assert_eq!(t.first_failed(), Some(2));
        assert_eq!(t.fixed_in(), Some(4), "the skip in between judges nothing");
        let bisect: Vec<(usize, usize)> = t.bisect().map(|t| (t.from, t.to)).collect();
        assert_eq!(bisect, [(1, 2)]);
        let diff = t.transitions[0].diff.as_deref().unwrap_or_default();
        assert!(
            diff.starts_with("--- 1.1\n+++ 1.2\n-ok {root}/x⊘ (no newline at end)\n+bad {root}/x⊘"),
            "{diff}"
        );
        assert!(h.version_changes().is_empty());
    }

    /// A release without the tool was not asked: the first that has it and passes
    /// fixed nothing, and a failure before the gap is fixed where it passes after.
    #[test]
    fn a_release_without_the_tool_judges_nothing_so_gaining_it_is_no_fix() {
        let unsupported = || Verdict::Unsupported("no tool `view`".into());
        let h = history(vec![
            release("a", 1, vec![at("s::r::x", unsupported(), 1, "none")]),
            release("b", 1, vec![at("s::r::x", Verdict::Pass, 1, "ok")]),
        ]);
        assert!(h.changed.is_empty(), "{:?}", h.changed);
        let h = history(vec![
            release("a", 1, vec![at("s::r::x", fail(), 1, "bad")]),
            release("b", 1, vec![at("s::r::x", unsupported(), 1, "none")]),
            release("c", 1, vec![at("s::r::x", Verdict::Pass, 1, "ok")]),
        ]);
        let t = &h.changed[0];
        assert_eq!(
            t.outcomes,
            [Outcome::Failed, Outcome::Unsupported, Outcome::Passed]
        );
        assert_eq!((t.first_failed(), t.fixed_in()), (Some(0), Some(2)));
        // Nor does a pass the next release cannot be asked count as a break.
        let h = history(vec![
            release("a", 1, vec![at("s::r::x", Verdict::Pass, 1, "ok")]),
            release("b", 1, vec![at("s::r::x", unsupported(), 1, "none")]),
        ]);
        assert!(h.changed.is_empty(), "{:?}", h.changed);
    }

    fn escape() -> Verdict {
        Verdict::Escape(crate::execute::Escape {
            kind: crate::execute::EscapeKind::Read,
            tool: "view".into(),
            given: "{root}/link.txt".into(),
            reached: "returned the content of {outside}/secret.txt".into(),
        })
    }

    /// An escape that becomes a refusal is fixed, though the refusal's words still
    /// fail; a failure that becomes an escape broke.
    #[test]
    fn an_escape_that_becomes_a_refusal_in_other_words_is_fixed() {
        let h = history(vec![
            release("2025.3.28", 1, vec![at("s::r::x", escape(), 1, "canary")]),
            release(
                "2025.7.1",
                1,
                vec![at("s::r::x", fail(), 1, "Access denied")],
            ),
        ]);
        let t = &h.changed[0];
        assert_eq!(t.outcomes, [Outcome::Escaped, Outcome::Failed]);
        assert_eq!(t.transitions[0].step, Step::Fixed);
        assert_eq!((t.first_failed(), t.fixed_in()), (Some(0), Some(1)));
        let h = history(vec![
            release("a", 1, vec![at("s::r::x", fail(), 1, "Access denied")]),
            release("b", 1, vec![at("s::r::x", escape(), 1, "canary")]),
        ]);
        let t = &h.changed[0];
        assert_eq!(t.transitions[0].step, Step::Broke);
        let bisect: Vec<(usize, usize)> = t.bisect().map(|t| (t.from, t.to)).collect();
        assert_eq!(bisect, [(0, 1)]);
    }

    #[test]
    fn failing_from_the_start_first_failed_in_the_first_release_with_no_bisect() {
        let h = history(vec![
            release("a", 1, vec![at("s::r::x", fail(), 1, "bad")]),
            release("b", 1, vec![at("s::r::x", Verdict::Pass, 1, "ok")]),
            release("c", 1, vec![at("s::r::x", fail(), 1, "bad")]),
        ]);
        let t = &h.changed[0];
        assert_eq!((t.first_failed(), t.fixed_in()), (Some(0), Some(1)));
        let bisect: Vec<(usize, usize)> = t.bisect().map(|t| (t.from, t.to)).collect();
        assert_eq!(bisect, [(1, 2)], "the later break is still one to bisect");
    }

    #[test]
    fn a_scenario_newer_than_a_release_suite_version_is_not_yet_in_the_suite() {
        let h = history(vec![
            release(
                "old",
                1,
                vec![
                    at("s::r::kept", Verdict::Pass, 1, "ok"),
                    at("s::r::sharp", Verdict::Pass, 1, "ok"),
                ],
            ),
            release(
                "new",
                2,
                vec![
                    at("s::r::kept", Verdict::Pass, 1, "ok"),
                    at("s::r::sharp", fail(), 2, "ok"),
                    at("s::r::arrived", fail(), 2, "bad"),
                ],
            ),
        ]);
        assert_eq!(
            h.version_changes(),
            [("s".to_string(), vec![Some(1), Some(2)])]
        );
        // The arrival is not a change; the sharpened one changed but did not break.
        assert_eq!(h.changed.len(), 1, "{:?}", h.changed);
        let t = &h.changed[0];
        assert_eq!(t.id, "s::r::sharp");
        assert_eq!(t.transitions[0].step, Step::Sharpened(2));
        assert_eq!(t.first_failed(), None);
        assert_eq!(t.bisect().count(), 0);
        assert_eq!(h.not_yet_in_suite, [1, 0]);
        let arrived = timeline(&h.matrix.columns, "s::r::arrived");
        assert_eq!(arrived.outcomes, [Outcome::NotYetInSuite, Outcome::Failed]);
        assert!(arrived.transitions.is_empty());
    }
}
