//! `matrix.md`: the matrix in Markdown for a CI job summary
//! (`$GITHUB_STEP_SUMMARY`): each server's scores, then one row per requirement
//! with each server's count of passed scenarios, then the scenarios that did not
//! hold, by server.

use std::fmt::Write as _;

use super::{cell_word, percent, Matrix};
use crate::report::{Standing, Tally};

/// Text made inert in a Markdown table: no cell breaks, markup or HTML.
pub(crate) fn inert(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '|' | '\\' | '*' | '_' | '`' | '[' | ']' | '#' | '~' => {
                out.push('\\');
                out.push(c);
            }
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            '\n' | '\r' => out.push(' '),
            c if c.is_control() => out.push('\u{fffd}'),
            c => out.push(c),
        }
    }
    out
}

/// One server's counts on one requirement: `5/5`, or `3/5 (2 FAIL)`, marked so a
/// reader sees where it breaks.
fn cell(t: &Tally) -> String {
    let passed = t.spec.passed + t.upstream.passed;
    let total = t.spec.total + t.upstream.total;
    if t.scenarios() == 0 {
        return "-".to_string();
    }
    let mut notes = Vec::new();
    for (n, word) in [
        (t.escaped, "ESCAPE"),
        (t.failed, "FAIL"),
        (t.errored, "ERROR"),
        (t.flaky, "FLAKY"),
        (t.stale, "STALE"),
        (t.known, "known"),
        (t.unsupported, "UNSUPPORTED"),
        (t.new, "NEW"),
        (t.skipped, "SKIP"),
    ] {
        if n > 0 {
            notes.push(format!("{n} {word}"));
        }
    }
    let mark = if t.breaks_the_run() {
        "❌"
    } else if passed == total {
        "✅"
    } else {
        "⚠️"
    };
    if notes.is_empty() {
        format!("{mark} {passed}/{total}")
    } else {
        format!("{mark} {passed}/{total} ({})", notes.join(", "))
    }
}

/// The matrix as Markdown.
pub(crate) fn matrix_markdown(matrix: &Matrix) -> String {
    let mut md = format!("# {}\n\n", inert(&matrix.title));
    md.push_str("| server | spec | upstream | counts |\n|---|---:|---:|---|\n");
    for c in &matrix.columns {
        let _ = writeln!(
            md,
            "| {} | {} ({}) | {} ({}) | {} |",
            inert(&c.name),
            c.tally.spec,
            percent(&c.tally.spec),
            c.tally.upstream,
            percent(&c.tally.upstream),
            c.tally.counts_line()
        );
    }
    md.push_str("\n| requirement |");
    for c in &matrix.columns {
        let _ = write!(md, " {} |", inert(&c.name));
    }
    md.push_str("\n|---|");
    md.push_str(&"---|".repeat(matrix.columns.len()));
    md.push('\n');
    for q in &matrix.requirements {
        let _ = write!(md, "| {} ({}) |", inert(&q.title), inert(&q.suite));
        for c in &matrix.columns {
            let mut t = Tally::default();
            for row in &q.rows {
                if let Some(r) = c.report(&row.id) {
                    t.count(r);
                }
            }
            let _ = write!(md, " {} |", cell(&t));
        }
        md.push('\n');
    }
    let mut failures = String::new();
    for c in &matrix.columns {
        for q in &matrix.requirements {
            for row in &q.rows {
                let standing = c.standing(&row.id);
                if standing.is_some_and(|s| s.breaks_the_run() || s == Standing::KnownFailure) {
                    let _ = writeln!(
                        failures,
                        "- **{}**: {}: `{}`",
                        inert(&c.name),
                        cell_word(standing),
                        row.id.replace('`', "'")
                    );
                }
            }
        }
    }
    if !failures.is_empty() {
        md.push_str("\n## What did not hold\n\n");
        md.push_str(&failures);
    }
    md
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markup_and_html_from_a_name_stay_text() {
        assert_eq!(inert("a|b <script>*x*"), "a\\|b &lt;script&gt;\\*x\\*");
    }
}
