//! `matrix.json`: the matrix as data, described field by field in
//! `docs/matrix.schema.json`.

use serde_json::{json, Value};

use super::Matrix;
use crate::report::json::{counts_json, suites_json};
use crate::scenario::Basis;

/// The shape of `matrix.json`: raise it with any change a reader could notice, and
/// `docs/matrix.schema.json` with it.
pub(crate) const MATRIX_SCHEMA_VERSION: u64 = 2;

/// The matrix as the JSON document `matrix.json` holds.
pub(crate) fn matrix_json(matrix: &Matrix) -> String {
    let servers: Vec<Value> = matrix
        .columns
        .iter()
        .map(|c| {
            json!({
                "name": c.name,
                "target": c.run.target,
                "suites": suites_json(&c.run.suites),
                "counts": counts_json(&c.tally),
                "badge": {
                    "svg": format!("badges/{}.svg", c.stem),
                    "endpoint": format!("badges/{}.json", c.stem),
                },
            })
        })
        .collect();
    let requirements: Vec<Value> = matrix
        .requirements
        .iter()
        .map(|q| {
            let scenarios: Vec<Value> = q
                .rows
                .iter()
                .map(|row| {
                    let results: Vec<Value> = matrix
                        .columns
                        .iter()
                        .map(|c| match c.report(&row.id) {
                            None => Value::Null,
                            Some(r) => json!({
                                "standing": crate::report::Standing::of(r).label(),
                                "verdict": r.verdict.label(),
                            }),
                        })
                        .collect();
                    json!({
                        "id": row.id,
                        "name": row.name,
                        "covers": row.covers,
                        "basis": match row.basis {
                            Basis::Spec => "spec",
                            Basis::Upstream => "upstream",
                        },
                        "results": results,
                    })
                })
                .collect();
            json!({
                "suite": q.suite,
                "file": q.file,
                "requirement": q.title,
                "scenarios": scenarios,
            })
        })
        .collect();
    let doc = json!({
        "schema_version": MATRIX_SCHEMA_VERSION,
        "title": matrix.title,
        "servers": servers,
        "requirements": requirements,
    });
    format!("{doc:#}\n")
}
