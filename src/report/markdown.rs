//! A Markdown conformance matrix: one row per spec requirement, for pointing the
//! harness at a third-party server and seeing at a glance how far it conforms.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

use super::{Standing, Tally};
use crate::execute::ScenarioReport;

pub(crate) fn write_markdown(
    path: &Path,
    target: &str,
    reports: &[ScenarioReport],
) -> std::io::Result<()> {
    let mut rows: BTreeMap<(String, String), Tally> = BTreeMap::new();
    for r in reports {
        let suite = r.id.split("::").next().unwrap_or_default().to_string();
        rows.entry((suite, r.requirement.clone()))
            .or_default()
            .count(Standing::of(r));
    }
    let mut md = format!("# Conformance of `{target}`\n\n");
    md.push_str("| suite | requirement | pass | fail | error | skip | known failure |\n");
    md.push_str("|---|---|---:|---:|---:|---:|---:|\n");
    let mut total = Tally::default();
    for ((suite, requirement), t) in &rows {
        let _ = writeln!(
            md,
            "| {suite} | {} | {} | {} | {} | {} | {} |",
            requirement.replace('|', "\\|"),
            t.passed,
            t.failed + t.stale,
            t.errored,
            t.skipped,
            t.known
        );
        total.add(t);
    }
    let _ = writeln!(
        md,
        "| **all** | | **{}** | **{}** | **{}** | **{}** | **{}** |",
        total.passed,
        total.failed + total.stale,
        total.errored,
        total.skipped,
        total.known
    );
    std::fs::write(path, md)
}
