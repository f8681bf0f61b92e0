//! A JSON report: one object per scenario, for dashboards and for diffing two runs.

use std::io::Write;
use std::path::Path;

use serde_json::{json, Value};

use super::Standing;
use crate::execute::{ScenarioReport, Verdict};

/// The shape of the run report, as `docs/report.schema.json` describes it: raise it
/// with any change a reader could notice, and the schema with it.
const REPORT_SCHEMA_VERSION: u64 = 1;

/// Writes every report as a JSON array to `path`.
pub(crate) fn write_json(
    path: &Path,
    target: &str,
    reports: &[ScenarioReport],
) -> std::io::Result<()> {
    let scenarios: Vec<Value> = reports.iter().map(scenario_json).collect();
    let doc = json!({ "schema_version": REPORT_SCHEMA_VERSION, "target": target, "scenarios": scenarios });
    let mut file = std::fs::File::create(path)?;
    serde_json::to_writer_pretty(&mut file, &doc)?;
    file.write_all(b"\n")
}

fn scenario_json(r: &ScenarioReport) -> Value {
    let (mismatches, error, skip) = match &r.verdict {
        Verdict::Fail(m) => (
            m.iter()
                .map(|m| json!({ "expectation": m.expectation, "detail": m.detail }))
                .collect(),
            Value::Null,
            Value::Null,
        ),
        Verdict::Error { what, stderr_tail } => (
            Vec::new(),
            json!({ "what": what, "stderr_tail": stderr_tail }),
            Value::Null,
        ),
        Verdict::Skip(why) => (Vec::new(), Value::Null, json!(why)),
        Verdict::Pass => (Vec::new(), Value::Null, Value::Null),
    };
    json!({
        "id": r.id,
        "requirement": r.requirement,
        "covers": r.covers,
        "basis": match r.basis {
            crate::scenario::Basis::Spec => "spec",
            crate::scenario::Basis::Upstream => "upstream",
        },
        "verdict": r.verdict.label(),
        "standing": format!("{:?}", Standing::of(r)),
        "known_failure": r.known_failure,
        "mismatches": mismatches,
        "error": error,
        "skip_reason": skip,
        "call": r.call,
        "warnings": r.warnings,
        "elapsed_ms": r.elapsed.as_millis() as u64,
    })
}
