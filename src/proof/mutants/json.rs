//! Mutation scores as JSON (`toolspec mutants --json`), in the shape
//! `docs/mutants.schema.json` describes.

use std::io::Write;
use std::path::Path;

use serde_json::{json, Value};

use super::score::SuiteScore;

/// The shape of the mutation scores, as `docs/mutants.schema.json` describes it:
/// raise it with any change a reader could notice, and the schema with it. 2:
/// `full_count`, since `killed_by` holds only the first killer unless `--full`.
/// 3: each suite's `variations` runs, with their false failures, and the counts
/// `spared` and `varied`.
const SCHEMA_VERSION: u64 = 3;

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
            let variations: Vec<Value> = score
                .variations
                .iter()
                .map(|run| {
                    let taken: Vec<Value> = run
                        .variations
                        .iter()
                        .map(|v| {
                            json!({
                                "name": v.name,
                                "what": v.what,
                                "allowed_by": v.allowed_by,
                                "spares": if v.spares_upstream { "all" } else { "spec" },
                            })
                        })
                        .collect();
                    let false_failures: Vec<Value> = run
                        .false_failures
                        .iter()
                        .map(|f| json!({"scenario": f.scenario, "expectations": f.expectations}))
                        .collect();
                    json!({
                        "variations": taken,
                        "spared": run.spared(),
                        "false_failures": false_failures,
                    })
                })
                .collect();
            let (spared, varied) = score.specificity();
            json!({
                "suite": score.suite,
                "scenarios": score.scenarios,
                "killed": score.killed(),
                "total": score.mutants.len(),
                "spared": spared,
                "varied": varied,
                "not_passing": score.not_passing,
                "mutants": mutants,
                "variations": variations,
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
