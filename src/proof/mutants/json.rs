//! Mutation scores as JSON (`toolspec mutants --json`), in the shape
//! `docs/mutants.schema.json` describes.

use std::io::Write;
use std::path::Path;

use serde_json::{json, Value};

use super::score::SuiteScore;

/// The shape of the mutation scores, as `docs/mutants.schema.json` describes it:
/// raise it with any change a reader could notice, and the schema with it. 2:
/// `full_count`, since `killed_by` holds only the first killer unless `--full`.
const SCHEMA_VERSION: u64 = 2;

/// Writes mutation scores as JSON to `path`; `full_count` says whether each
/// mutation's `killed_by` lists every killing scenario or only the first found.
pub(crate) fn write(path: &Path, scores: &[SuiteScore], full_count: bool) -> std::io::Result<()> {
    let suites: Vec<Value> = scores
        .iter()
        .map(|score| {
            let mutants: Vec<Value> = score
                .mutants
                .iter()
                .map(|m| {
                    json!({
                        "name": m.mutation.name,
                        "what": m.mutation.what,
                        "killed": m.killed(),
                        "killed_by": m.killed_by,
                    })
                })
                .collect();
            json!({
                "suite": score.suite,
                "scenarios": score.scenarios,
                "killed": score.killed(),
                "total": score.mutants.len(),
                "not_passing": score.not_passing,
                "mutants": mutants,
            })
        })
        .collect();
    let mut file = std::fs::File::create(path)?;
    serde_json::to_writer_pretty(
        &mut file,
        &json!({
            "schema_version": SCHEMA_VERSION,
            "full_count": full_count,
            "suites": suites,
        }),
    )?;
    file.write_all(b"\n")
}
