//! A Markdown conformance matrix: one row per spec requirement, for pointing the
//! harness at a third-party server and seeing at a glance how far it conforms.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

use super::Tally;
use crate::execute::ScenarioReport;

pub(crate) fn write_markdown(
    path: &Path,
    target: &str,
    reports: &[ScenarioReport],
) -> std::io::Result<()> {
    let mut rows: BTreeMap<(String, String), Tally> = BTreeMap::new();
    for r in reports {
        rows.entry((super::suite_of(&r.id).to_string(), r.requirement.clone()))
            .or_default()
            .count(r);
    }
    let mut md = format!("# Conformance of `{target}`\n\n");
    let total = Tally::of(reports);
    let _ = writeln!(
        md,
        "Spec {}, upstream {}. {}\n",
        total.spec,
        total.upstream,
        total.counts_line()
    );
    md.push_str(
        "| suite | requirement | pass | fail | error | skip | unsupported | known | flaky | stale | new | escape | spec | upstream |\n",
    );
    md.push_str("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    let row = |md: &mut String, suite: &str, requirement: &str, t: &Tally, strong: bool| {
        let cells = [
            t.passed.to_string(),
            t.failed.to_string(),
            t.errored.to_string(),
            t.skipped.to_string(),
            t.unsupported.to_string(),
            t.known.to_string(),
            t.flaky.to_string(),
            t.stale.to_string(),
            t.new.to_string(),
            t.escaped.to_string(),
            t.spec.to_string(),
            t.upstream.to_string(),
        ];
        let cells: Vec<String> = cells
            .into_iter()
            .map(|c| if strong { format!("**{c}**") } else { c })
            .collect();
        let _ = writeln!(md, "| {suite} | {requirement} | {} |", cells.join(" | "));
    };
    for ((suite, requirement), t) in &rows {
        row(&mut md, suite, &requirement.replace('|', "\\|"), t, false);
    }
    row(&mut md, "**all**", "", &total, true);
    std::fs::write(path, md)
}
