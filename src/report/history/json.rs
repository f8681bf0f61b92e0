//! `history.json`: the history as data, described field by field in
//! `docs/history.schema.json`.

use serde_json::{json, Value};

use super::{requirement_tally, History};
use crate::execute::standing::Standing;
use crate::report::json::{counts_json, suites_json};

/// The shape of `history.json`: raise it with any change a reader could notice,
/// and `docs/history.schema.json` with it.
pub(crate) const HISTORY_SCHEMA_VERSION: u64 = 3;

/// The history as the JSON document `history.json` holds.
pub(crate) fn history_json(history: &History) -> String {
    let labels = history.labels();
    let releases: Vec<Value> = history
        .matrix
        .columns
        .iter()
        .zip(&history.not_yet_in_suite)
        .map(|(c, not_yet)| {
            json!({
                "label": c.name,
                "not_yet_in_suite": not_yet,
                "target": c.run.target,
                "suites": suites_json(&c.run.suites),
                "counts": counts_json(&c.tally),
            })
        })
        .collect();
    let score = |s: &crate::execute::standing::Score| json!({"passed": s.passed, "total": s.total});
    let requirements: Vec<Value> = history
        .matrix
        .requirements
        .iter()
        .map(|q| {
            let per_release: Vec<Value> = history
                .matrix
                .columns
                .iter()
                .map(|c| {
                    let t = requirement_tally(c, q);
                    json!({"spec": score(&t.spec), "upstream": score(&t.upstream)})
                })
                .collect();
            json!({
                "suite": q.suite,
                "file": q.file,
                "requirement": q.title,
                "releases": per_release,
            })
        })
        .collect();
    let label = |at: Option<usize>| at.map_or(Value::Null, |at| json!(labels[at]));
    let changed: Vec<Value> = history
        .changed
        .iter()
        .map(|t| {
            let standings: Vec<Value> = history
                .matrix
                .columns
                .iter()
                .map(|c| {
                    c.report(&t.id)
                        .map_or(Value::Null, |r| json!(Standing::of(r).label()))
                })
                .collect();
            let transitions: Vec<Value> = t
                .transitions
                .iter()
                .map(|s| {
                    json!({
                        "from": labels[s.from],
                        "to": labels[s.to],
                        "step": s.step.word(),
                        "sharpened_in": match s.step {
                            super::Step::Sharpened(v) => json!(v),
                            _ => Value::Null,
                        },
                        "diff": s.diff,
                    })
                })
                .collect();
            let bisect: Vec<Value> = t
                .bisect()
                .map(|b| json!({"passes": labels[b.from], "fails": labels[b.to]}))
                .collect();
            json!({
                "id": t.id,
                "outcomes": t.outcomes.iter().map(|o| o.word()).collect::<Vec<_>>(),
                "standings": standings,
                "first_failed": label(t.first_failed()),
                "fixed_in": label(t.fixed_in()),
                "bisect": bisect,
                "transitions": transitions,
            })
        })
        .collect();
    let doc = json!({
        "schema_version": HISTORY_SCHEMA_VERSION,
        "title": history.matrix.title,
        "releases": releases,
        "requirements": requirements,
        "changed": changed,
    });
    format!("{doc:#}\n")
}
