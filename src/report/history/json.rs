//! `history.json`: the history as data, described field by field in
//! `docs/history.schema.json`, from typed records.

use serde::Serialize;

use super::{requirement_tally, History, Step, Timeline, Transition};
use crate::execute::standing::Standing;
use crate::report::records::{sorted_pretty, CountsRecord, ScoreRecord, SuiteRecord};

/// The shape of `history.json`: raise it with any change a reader could notice,
/// and `docs/history.schema.json` with it.
pub(crate) const HISTORY_SCHEMA_VERSION: u64 = 3;

#[derive(Serialize)]
struct HistoryRecord<'h> {
    schema_version: u64,
    title: &'h str,
    releases: Vec<ReleaseRecord<'h>>,
    requirements: Vec<RequirementRecord<'h>>,
    changed: Vec<ChangedRecord<'h>>,
}

#[derive(Serialize)]
struct ReleaseRecord<'h> {
    label: &'h str,
    not_yet_in_suite: usize,
    target: &'h str,
    suites: Vec<SuiteRecord<'h>>,
    counts: CountsRecord,
}

/// A requirement's scores in each release.
#[derive(Serialize)]
struct RequirementRecord<'h> {
    suite: &'h str,
    file: &'h str,
    requirement: &'h str,
    releases: Vec<ScoresRecord>,
}

#[derive(Serialize)]
struct ScoresRecord {
    spec: ScoreRecord,
    upstream: ScoreRecord,
}

/// A scenario whose outcome changed, with the releases where it did.
#[derive(Serialize)]
struct ChangedRecord<'h> {
    id: &'h str,
    outcomes: Vec<&'static str>,
    /// Per release; null where the release's run lacks the scenario.
    standings: Vec<Option<&'static str>>,
    first_failed: Option<&'h str>,
    fixed_in: Option<&'h str>,
    bisect: Vec<BisectRecord<'h>>,
    transitions: Vec<TransitionRecord<'h>>,
}

#[derive(Serialize)]
struct BisectRecord<'h> {
    passes: &'h str,
    fails: &'h str,
}

#[derive(Serialize)]
struct TransitionRecord<'h> {
    from: &'h str,
    to: &'h str,
    step: &'static str,
    sharpened_in: Option<u32>,
    diff: Option<&'h str>,
}

/// The history as the JSON document `history.json` holds.
pub(crate) fn history_json(history: &History) -> std::io::Result<String> {
    let labels = history.labels();
    let columns = &history.matrix.columns;
    sorted_pretty(&HistoryRecord {
        schema_version: HISTORY_SCHEMA_VERSION,
        title: &history.matrix.title,
        releases: columns
            .iter()
            .zip(&history.not_yet_in_suite)
            .map(|(c, not_yet)| ReleaseRecord {
                label: &c.name,
                not_yet_in_suite: *not_yet,
                target: &c.run.target,
                suites: SuiteRecord::all(&c.run.suites),
                counts: CountsRecord::of(&c.tally),
            })
            .collect(),
        requirements: history
            .matrix
            .requirements
            .iter()
            .map(|q| RequirementRecord {
                suite: &q.suite,
                file: &q.file,
                requirement: &q.title,
                releases: columns
                    .iter()
                    .map(|c| {
                        let t = requirement_tally(c, q);
                        ScoresRecord {
                            spec: ScoreRecord::of(&t.spec),
                            upstream: ScoreRecord::of(&t.upstream),
                        }
                    })
                    .collect(),
            })
            .collect(),
        changed: history
            .changed
            .iter()
            .map(|t| changed(history, &labels, t))
            .collect(),
    })
}

fn changed<'h>(history: &'h History, labels: &[&'h str], t: &'h Timeline) -> ChangedRecord<'h> {
    let label = |at: usize| labels.get(at).copied().unwrap_or_default();
    let transition = |s: &'h Transition| TransitionRecord {
        from: label(s.from),
        to: label(s.to),
        step: s.step.word(),
        sharpened_in: match s.step {
            Step::Sharpened(v) => Some(v),
            _ => None,
        },
        diff: s.diff.as_deref(),
    };
    ChangedRecord {
        id: &t.id,
        outcomes: t.outcomes.iter().map(|o| o.word()).collect(),
        standings: history
            .matrix
            .columns
            .iter()
            .map(|c| c.report(&t.id).map(|r| Standing::of(r).label()))
            .collect(),
        first_failed: t.first_failed().map(label),
        fixed_in: t.fixed_in().map(label),
        bisect: t
            .bisect()
            .map(|b| BisectRecord {
                passes: label(b.from),
                fails: label(b.to),
            })
            .collect(),
        transitions: t.transitions.iter().map(transition).collect(),
    }
}
