//! One cell of the page: a server's standing on one scenario, in colour and in
//! words, and for anything but a pass a `<details>` that opens on the call, the
//! diff of each broken expectation, and the server's answer (no script needed).

use std::fmt::Write as _;

use super::escape::text;
use crate::execute::standing::Standing;
use crate::execute::{ScenarioReport, Verdict};
use crate::report::matrix::cell_word;

/// The CSS class of a standing (`s-fail`), which the stylesheet colours.
pub(crate) fn class(standing: Option<Standing>) -> &'static str {
    match standing {
        None => "s-none",
        Some(Standing::Passed) => "s-pass",
        Some(Standing::Failed) => "s-fail",
        Some(Standing::Errored) => "s-error",
        Some(Standing::Skipped) => "s-skip",
        Some(Standing::Unsupported) => "s-unsupported",
        Some(Standing::Flaky) => "s-flaky",
        Some(Standing::KnownFailure) => "s-known",
        Some(Standing::StaleBaseline) => "s-stale",
        Some(Standing::New) => "s-new",
        Some(Standing::Escaped) => "s-escape",
    }
}

/// Whether the standing is something gone wrong, which "failures only" keeps.
pub(crate) fn is_failure(standing: Option<Standing>) -> bool {
    standing
        .is_some_and(|s| s.breaks_the_run() || matches!(s, Standing::KnownFailure | Standing::New))
}

/// The `<td>` of `report` (None: the server's run did not have the scenario).
pub(crate) fn cell(server: &str, report: Option<&ScenarioReport>) -> String {
    let standing = report.map(Standing::of);
    let word = cell_word(standing);
    let class = class(standing);
    let Some(report) = report.filter(|_| standing != Some(Standing::Passed)) else {
        return format!("<td class=\"{class}\" data-standing=\"{word}\"><span class=\"word\">{word}</span></td>");
    };
    let mut body = String::new();
    let _ = write!(
        body,
        "<div class=\"what\"><b>{}</b> on <b>{}</b></div>",
        text(&report.id),
        text(server)
    );
    if !report.call.is_empty() {
        let _ = write!(
            body,
            "<div class=\"label\">call</div><pre class=\"call\">{}</pre>",
            text(&report.call)
        );
    }
    match &report.verdict {
        Verdict::Fail(mismatches) => {
            for m in mismatches {
                let excused = if report.excuse.covers(m) {
                    " <i>(excused by the baseline)</i>"
                } else {
                    ""
                };
                let _ = write!(
                    body,
                    "<div class=\"label\">expected <code>{}</code>{excused}</div><pre class=\"diff\">{}</pre>",
                    text(&m.expectation),
                    diff_lines(&m.detail)
                );
            }
        }
        Verdict::Error { what, stderr_tail } => {
            let _ = write!(
                body,
                "<div class=\"label\">the server broke</div><pre class=\"diff\">{}</pre>",
                text(what)
            );
            if !stderr_tail.is_empty() {
                let _ = write!(
                    body,
                    "<div class=\"label\">its stderr (last lines)</div><pre>{}</pre>",
                    text(stderr_tail)
                );
            }
        }
        Verdict::Skip(why) | Verdict::Unsupported(why) => {
            let _ = write!(body, "<div class=\"label\">why</div><p>{}</p>", text(why));
        }
        Verdict::Escape(escape) => {
            let _ = write!(
                body,
                "<div class=\"label\">the server left its root</div><p class=\"escape\">{}</p>",
                text(&escape.line())
            );
        }
        Verdict::Pass => {}
    }
    if let Some(answer) = &report.answer {
        let _ = write!(
            body,
            "<div class=\"label\">the server's answer</div><pre class=\"answer\">{}</pre>",
            text(answer)
        );
    }
    if report.attempts.len() > 1 {
        let attempts: Vec<String> = report
            .attempts
            .iter()
            .map(|v| text(&v.headline()))
            .collect();
        let _ = write!(
            body,
            "<div class=\"label\">attempts</div><ol><li>{}</li></ol>",
            attempts.join("</li><li>")
        );
    }
    for warning in &report.warnings {
        let _ = write!(body, "<p class=\"warning\">{}</p>", text(warning));
    }
    if let Some(note) = &report.note {
        let _ = write!(body, "<p class=\"note\">note: {}</p>", text(note));
    }
    format!(
        "<td class=\"{class}\" data-standing=\"{word}\"><details><summary><span class=\"word\">{word}</span></summary><div class=\"detail\">{body}</div></details></td>"
    )
}

/// A diff's lines, escaped, each marked as removed, added, header or context so
/// the stylesheet can colour them (the `-`/`+` stay, for reading without colour).
pub(crate) fn diff_lines(detail: &str) -> String {
    let mut out = String::new();
    for line in detail.lines() {
        let class = if line.starts_with("--- ") || line.starts_with("+++ ") {
            "hd"
        } else if line.starts_with('-') {
            "del"
        } else if line.starts_with('+') {
            "ins"
        } else {
            "ctx"
        };
        let _ = writeln!(out, "<span class=\"{class}\">{}</span>", text(line));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::judge::Mismatch;

    #[test]
    fn a_failing_cell_says_fail_and_opens_on_its_diff_and_call() {
        let report = ScenarioReport {
            call: "view {\"path\":\"<x>\"}".into(),
            answer: Some("[IO_ERROR] </pre><script>".into()),
            ..ScenarioReport::blank(
                "s::f::x",
                Verdict::Fail(vec![Mismatch::new(
                    "code: PATH_NOT_FOUND",
                    "--- expected\n+++ actual\n-PATH_NOT_FOUND\n+IO_ERROR\n",
                )]),
            )
        };
        let td = cell("srv", Some(&report));
        assert!(td.starts_with("<td class=\"s-fail\""), "{td}");
        assert!(
            td.contains("<summary><span class=\"word\">FAIL</span></summary>"),
            "{td}"
        );
        assert!(
            td.contains("<span class=\"del\">-PATH_NOT_FOUND</span>"),
            "{td}"
        );
        assert!(td.contains("<span class=\"ins\">+IO_ERROR</span>"), "{td}");
        assert!(
            td.contains("view {&quot;path&quot;:&quot;&lt;x&gt;&quot;}"),
            "{td}"
        );
        assert!(
            !td.contains("<script>"),
            "server text must be escaped: {td}"
        );
        let pass = cell(
            "srv",
            Some(&ScenarioReport::blank("s::f::x", Verdict::Pass)),
        );
        assert!(
            pass.contains(">PASS<") && !pass.contains("<details>"),
            "{pass}"
        );
        assert!(cell("srv", None).contains("not run"));
    }
}
