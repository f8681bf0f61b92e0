//! `history.md`: the history in Markdown for a CI job summary: each requirement's
//! spec score per release, then the scenarios that changed, with where each first
//! failed, where it was fixed, and the releases to bisect between.

use std::fmt::Write as _;

use super::{requirement_tally, History, Outcome};
use crate::report::matrix::{inert_markdown as inert, percent};

/// The history as Markdown.
pub(crate) fn history_markdown(history: &History) -> String {
    let labels = history.labels();
    let mut md = format!("# {}\n\n", inert(&history.matrix.title));
    for (suite, versions) in history.version_changes() {
        let each: Vec<String> = versions
            .iter()
            .map(|v| v.map_or("-".to_string(), |v| v.to_string()))
            .collect();
        let _ = writeln!(
            md,
            "Suite versions of {} differ across the releases ({}): a scenario newer than a release's version is *not yet in the suite* there.\n",
            inert(&suite),
            each.join(", ")
        );
    }
    md.push_str("| requirement |");
    for label in &labels {
        let _ = write!(md, " {} |", inert(label));
    }
    md.push_str("\n|---|");
    md.push_str(&"---:|".repeat(labels.len()));
    md.push_str("\n| **all (spec score)** |");
    for c in &history.matrix.columns {
        let _ = write!(md, " **{} ({})** |", c.tally.spec, percent(&c.tally.spec));
    }
    if history.not_yet_in_suite.iter().any(|n| *n > 0) {
        md.push_str("| *not yet in the suite* |");
        for n in &history.not_yet_in_suite {
            let _ = write!(md, " {n} |");
        }
        md.push('\n');
    }
    for q in &history.matrix.requirements {
        let _ = write!(md, "| {} ({}) |", inert(&q.title), inert(&q.suite));
        for c in &history.matrix.columns {
            let t = requirement_tally(c, q);
            let _ = write!(
                md,
                " {} |",
                if t.spec.total == 0 {
                    "-".to_string()
                } else {
                    t.spec.to_string()
                }
            );
        }
        md.push('\n');
    }
    if history.changed.is_empty() {
        md.push_str("\nNo scenario changed its outcome across these releases.\n");
        return md;
    }
    md.push_str("\n## Scenarios that changed\n\n| scenario | first failed | fixed in | bisect between |\n|---|---|---|---|\n");
    for t in &history.changed {
        let label = |at: Option<usize>| at.map_or("-".to_string(), |at| inert(labels[at]));
        let bisect: Vec<String> = t
            .bisect()
            .map(|b| format!("{} … {}", inert(labels[b.from]), inert(labels[b.to])))
            .collect();
        let path: Vec<&str> = t
            .outcomes
            .iter()
            .map(|o| match o {
                Outcome::Passed => "✅",
                Outcome::Failed => "❌",
                Outcome::Escaped => "🚨",
                Outcome::NotJudged | Outcome::Unsupported => "·",
                Outcome::NotYetInSuite | Outcome::NotRun => "–",
            })
            .collect();
        let _ = writeln!(
            md,
            "| {} {} | {} | {} | {} |",
            path.join(""),
            inert(&t.id),
            label(t.first_failed()),
            label(t.fixed_in()),
            if bisect.is_empty() {
                "-".to_string()
            } else {
                bisect.join(", ")
            }
        );
    }
    md
}
