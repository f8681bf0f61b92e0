//! The results page: one self-contained HTML file (inline CSS, no network, readable
//! without JavaScript) that opens on an overview (a row per requirement, each
//! server's count on it) and then has a row per scenario, grouped by requirement,
//! and a column per server. Each column heads with the server's spec and upstream scores;
//! each cell is a standing in colour and words, and a cell that did not pass opens
//! (`<details>`) on its call and diff. A little inline script adds filters (failures
//! only, one requirement, one conformance level) and opening or folding every
//! cell; without it, everything is shown.

mod cell;
mod escape;
mod history;

pub(crate) use history::history_page;

use std::fmt::Write as _;

use super::matrix::{percent, Column, Matrix, Requirement};
use super::Tally;
use crate::scenario::Basis;
use escape::text;

const STYLE: &str = include_str!("page.css");
const SCRIPT: &str = include_str!("page.js");

/// The page of `matrix`, as one HTML document.
pub(crate) fn page(matrix: &Matrix) -> String {
    let mut html = String::new();
    let _ = write!(
        html,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:\">\n\
         <title>{}</title>\n<style>\n{STYLE}</style>\n</head>\n<body>\n<h1>{}</h1>\n",
        text(&matrix.title),
        text(&matrix.title)
    );
    let _ = writeln!(
        html,
        "<p class=\"lead\">{} scenarios of {} in {} requirements, against {} server(s). \
         A cell that did not pass opens on its call, the diff of what was expected and \
         what came, and the server's answer.</p>",
        matrix
            .requirements
            .iter()
            .map(|q| q.rows.len())
            .sum::<usize>(),
        text(&matrix.suites().join(", ")),
        matrix.requirements.len(),
        matrix.columns.len()
    );
    overview(&mut html, matrix);
    html.push_str(LEGEND);
    filters(&mut html, matrix);
    table(&mut html, matrix);
    let _ = write!(html, "<script>\n{SCRIPT}</script>\n</body>\n</html>\n");
    html
}

/// The page at a glance, before the scenarios: a row per requirement with each
/// server's count on it, and each server's two scores at the head of its column.
/// A requirement's name leads to its scenarios in the table below.
fn overview(html: &mut String, matrix: &Matrix) {
    html.push_str(
        "<div class=\"overview-box\"><table id=\"overview\">\n<caption>At a glance: \
         scenarios passed per requirement, in the spec's order</caption>\n\
         <thead><tr><th scope=\"col\">requirement</th>",
    );
    for c in &matrix.columns {
        let _ = write!(
            html,
            "<th scope=\"col\"><div class=\"name\">{}</div>\
             <div class=\"score\">spec <b>{}</b> · upstream <b>{}</b></div></th>",
            text(&c.name),
            percent(&c.tally.spec),
            percent(&c.tally.upstream)
        );
    }
    html.push_str("</tr></thead>\n<tbody>");
    for (at, q) in matrix.requirements.iter().enumerate() {
        let _ = write!(
            html,
            "<tr><th scope=\"row\"><a href=\"#requirement-{at}\">{}</a></th>",
            text(&q.title)
        );
        for c in &matrix.columns {
            html.push_str(&overview_cell(c, q));
        }
        html.push_str("</tr>\n");
    }
    html.push_str("</tbody></table></div>\n");
}

/// What each colour means, with the word each cell also carries.
const LEGEND: &str = "<ul class=\"legend\">\
<li class=\"s-pass\">PASS</li>\
<li class=\"s-fail\">FAIL: answered, not as the spec says</li>\
<li class=\"s-error\">ERROR: the server broke</li>\
<li class=\"s-flaky\">FLAKY: attempts disagree</li>\
<li class=\"s-known\">known failure: in the target's baseline</li>\
<li class=\"s-unsupported\">UNSUPPORTED: the tool is not offered</li>\
<li class=\"s-skip\">SKIP: cannot be asked of this target</li>\
<li class=\"s-stale\">STALE baseline: listed, but holds now</li>\
<li class=\"s-new\">NEW: after the target's pinned suite version</li>\
</ul>\n";

/// The filter form: hidden until the script shows it, since it needs the script.
fn filters(html: &mut String, matrix: &Matrix) {
    html.push_str(
        "<noscript><p class=\"lead\">Filters need JavaScript; every row is shown.</p></noscript>\n\
         <form id=\"filters\" hidden><a href=\"#failures\">failures, opened</a> \
         <label><input type=\"checkbox\" id=\"failures-only\"> failures only</label> \
         <label>requirement <select id=\"requirement\"><option value=\"\">all</option>",
    );
    for (at, q) in matrix.requirements.iter().enumerate() {
        let _ = write!(
            html,
            "<option value=\"{at}\">{} ({})</option>",
            text(&q.title),
            text(&q.suite)
        );
    }
    html.push_str(
        "</select></label> \
         <label>level <select id=\"basis\"><option value=\"\">spec and upstream</option>\
         <option value=\"spec\">spec</option><option value=\"upstream\">upstream</option></select></label> \
         <button type=\"button\" id=\"open-all\">open every failure</button> \
         <button type=\"button\" id=\"fold-all\">fold all</button> \
         <span id=\"shown\"></span></form>\n",
    );
}

fn table(html: &mut String, matrix: &Matrix) {
    html.push_str("<div class=\"scroll\"><table id=\"matrix\">\n<thead><tr><th scope=\"col\" class=\"corner\">requirement / scenario</th>");
    for c in &matrix.columns {
        let _ = write!(
            html,
            "<th scope=\"col\" class=\"server\"><div class=\"name\">{}</div>\
             <div class=\"score\" data-level=\"spec\">spec {} <b>{}</b></div>\
             <div class=\"score\" data-level=\"upstream\">upstream {} <b>{}</b></div>\
             <div class=\"counts\">{}</div></th>",
            text(&c.name),
            c.tally.spec,
            percent(&c.tally.spec),
            c.tally.upstream,
            percent(&c.tally.upstream),
            text(&c.tally.counts_line())
        );
    }
    html.push_str("</tr></thead>\n");
    for (at, q) in matrix.requirements.iter().enumerate() {
        let _ = write!(
            html,
            "<tbody id=\"requirement-{at}\" data-requirement=\"{at}\"><tr class=\"requirement\"><th scope=\"rowgroup\">{} <span class=\"suite\">{} · {}</span></th>",
            text(&q.title),
            text(&q.suite),
            text(&q.file)
        );
        for c in &matrix.columns {
            html.push_str(&requirement_cell(c, q));
        }
        html.push_str("</tr>\n");
        for row in &q.rows {
            let failing = matrix
                .columns
                .iter()
                .any(|c| cell::is_failure(c.standing(&row.id)));
            let basis = match row.basis {
                Basis::Spec => "spec",
                Basis::Upstream => "upstream",
            };
            let _ = write!(
                html,
                "<tr class=\"scenario\" data-basis=\"{basis}\" data-failing=\"{failing}\" data-id=\"{}\">\
                 <th scope=\"row\"><div class=\"scenario-name\">{}</div><div class=\"covers\">{basis} · {}</div></th>",
                text(&row.id),
                text(&row.name),
                text(&row.covers)
            );
            for c in &matrix.columns {
                html.push_str(&cell::cell(&c.name, c.report(&row.id)));
            }
            html.push_str("</tr>\n");
        }
        html.push_str("</tbody>\n");
    }
    html.push_str("</table></div>\n");
}

/// A server's count on one requirement, for the requirement's own row: passed of
/// judged, coloured by the worst standing among its scenarios.
fn requirement_cell(column: &Column, requirement: &Requirement) -> String {
    let (class, words, _) = requirement_count(column, requirement);
    format!("<td class=\"{class} rq\">{words}</td>")
}

/// The same count for the overview, with a bar as long as the share that passed,
/// so that 0/14 and 11/14 differ at a glance even when both are excused.
fn overview_cell(column: &Column, requirement: &Requirement) -> String {
    let (class, words, share) = requirement_count(column, requirement);
    format!(
        "<td class=\"{class}\">{words}<span class=\"bar\" aria-hidden=\"true\">\
         <span style=\"width: {share}%\"></span></span></td>"
    )
}

/// A server's count on one requirement: the cell's class (by the worst standing
/// among its scenarios), its words, and the percentage that passed.
fn requirement_count(column: &Column, requirement: &Requirement) -> (&'static str, String, u32) {
    let mut tally = Tally::default();
    for row in &requirement.rows {
        if let Some(r) = column.report(&row.id) {
            tally.count(r);
        }
    }
    let passed = tally.spec.passed + tally.upstream.passed;
    let total = tally.spec.total + tally.upstream.total;
    let share = match total {
        0 => 0,
        total => u32::try_from(passed * 100 / total).unwrap_or(100),
    };
    let (class, words) = if tally.scenarios() == 0 {
        ("s-none", "not run".to_string())
    } else if tally.breaks_the_run() {
        ("s-fail", format!("{passed}/{total} passed"))
    } else if passed == total && tally.skipped == 0 {
        ("s-pass", format!("{passed}/{total} passed"))
    } else {
        ("s-known", format!("{passed}/{total} passed"))
    };
    (class, words, share)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::execute::{ScenarioReport, Verdict};
    use crate::judge::Mismatch;
    use crate::report::RunFacts;

    #[test]
    fn the_page_has_a_column_per_server_and_a_row_per_scenario() {
        let run = |name: &str| RunFacts {
            target: name.into(),
            isolation: Vec::new(),
            partition: None,
            suites: Vec::new(),
        };
        let fail = Verdict::Fail(vec![Mismatch::new("text", "-a\n+b\n")]);
        let reports = |v: Verdict| {
            vec![
                ScenarioReport {
                    requirement: "Reading <files>".into(),
                    ..ScenarioReport::blank("s::read::one", Verdict::Pass)
                },
                ScenarioReport {
                    requirement: "Reading <files>".into(),
                    position: 1,
                    ..ScenarioReport::blank("s::read::two", v)
                },
            ]
        };
        let matrix = Matrix::new(
            "t".into(),
            vec![
                Column::new("good".into(), run("good"), reports(Verdict::Pass)),
                Column::new("<bad>".into(), run("bad"), reports(fail)),
            ],
            &crate::report::matrix::ClauseOrder::default(),
        );
        let html = page(&matrix);
        assert_eq!(
            html.matches("<th scope=\"col\" class=\"server\">").count(),
            2
        );
        assert_eq!(html.matches("<tr class=\"scenario\"").count(), 2);
        assert!(
            html.contains("<div class=\"name\">&lt;bad&gt;</div>"),
            "{html}"
        );
        assert!(html.contains("Reading &lt;files&gt;"));
        assert!(html.contains("spec 1/2 <b>50%</b>"), "{html}");
        assert_eq!(
            html.matches("<td class=\"s-fail\" data-standing=\"FAIL\"")
                .count(),
            1
        );
        // The overview: the requirement leads to its rows; the bar is the share passed.
        assert!(html.contains("<a href=\"#requirement-0\">Reading &lt;files&gt;</a>"));
        assert!(html.contains("<tbody id=\"requirement-0\""));
        assert!(
            html.contains("<td class=\"s-fail\">1/2 passed<span class=\"bar\" aria-hidden=\"true\"><span style=\"width: 50%\"></span></span></td>"),
            "{html}"
        );
        assert!(html.contains("data-failing=\"true\" data-id=\"s::read::two\""));
        assert!(
            !html.contains("http://") && !html.contains("https://"),
            "no network"
        );
    }
}
