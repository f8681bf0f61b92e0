//! The history page: one self-contained HTML file, like the results page, whose
//! columns are releases in order. An overview gives a row per requirement with its
//! spec and upstream scores in each release and a small trend line of the spec
//! score drawn inline (SVG, no network); below it, a row per scenario that changed,
//! each release's cell opening on its diff as on the results page, then the release
//! where it first failed, the one that fixed it, and the releases to bisect between
//! with the two answers diffed there.

use std::fmt::Write as _;

use super::cell::{self, diff_lines};
use super::escape::text;
use super::STYLE;
use crate::execute::standing::Score;
use crate::report::history::{requirement_tally, History, Outcome, Step};
use crate::report::matrix::percent;

/// The trend line's size, in CSS pixels.
const TREND_WIDTH: u32 = 96;
const TREND_HEIGHT: u32 = 24;

/// The history page of `history`, as one HTML document.
pub(crate) fn history_page(history: &History) -> String {
    let matrix = &history.matrix;
    let mut html = String::new();
    let _ = write!(
        html,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; img-src data:\">\n\
         <title>{}</title>\n<style>\n{STYLE}</style>\n</head>\n<body>\n<h1>{}</h1>\n",
        text(&matrix.title),
        text(&matrix.title)
    );
    let _ = writeln!(
        html,
        "<p class=\"lead\">{} releases of {}, oldest first; {} scenario(s) changed their \
         outcome. A failed cell opens on its call and diff; the last columns name the \
         release where a scenario first failed, the one that fixed it, and the two \
         releases to bisect between, with their answers diffed.</p>",
        matrix.columns.len(),
        text(&matrix.suites().join(", ")),
        history.changed.len()
    );
    for (suite, versions) in history.version_changes() {
        let each: Vec<String> = matrix
            .columns
            .iter()
            .zip(&versions)
            .map(|(c, v)| {
                format!(
                    "{} {}",
                    text(&c.name),
                    v.map_or("-".to_string(), |v| v.to_string())
                )
            })
            .collect();
        let _ = writeln!(
            html,
            "<p class=\"lead versions\">The releases ran different versions of {} ({}): \
             a scenario newer than a release's version is <i>not yet in the suite</i> \
             there, and a change across a version that sharpened the scenario is not \
             counted as a break or a fix.</p>",
            text(&suite),
            each.join(", ")
        );
    }
    overview(&mut html, history);
    changed(&mut html, history);
    html.push_str("</body>\n</html>\n");
    html
}

/// A row per requirement: its trend line, then its scores in each release.
fn overview(html: &mut String, history: &History) {
    let matrix = &history.matrix;
    html.push_str(
        "<div class=\"overview-box\"><table id=\"overview\">\n<caption>Scores per \
         requirement and release, in the spec's order</caption>\n<thead><tr>\
         <th scope=\"col\">requirement</th><th scope=\"col\">spec score, oldest to newest</th>",
    );
    for (c, not_yet) in matrix.columns.iter().zip(&history.not_yet_in_suite) {
        let _ = write!(
            html,
            "<th scope=\"col\"><div class=\"name\">{}</div>\
             <div class=\"score\">spec <b>{}</b> · upstream <b>{}</b></div>",
            text(&c.name),
            percent(&c.tally.spec),
            percent(&c.tally.upstream)
        );
        if *not_yet > 0 {
            let _ = write!(
                html,
                "<div class=\"counts\">{not_yet} not yet in the suite</div>"
            );
        }
        html.push_str("</th>");
    }
    html.push_str("</tr></thead>\n<tbody>");
    let whole: Vec<Score> = matrix.columns.iter().map(|c| c.tally.spec).collect();
    let _ = write!(
        html,
        "<tr class=\"all\"><th scope=\"row\">all requirements</th><td class=\"trend\">{}</td>",
        trend(&whole)
    );
    for c in &matrix.columns {
        let _ = write!(
            html,
            "<td>spec {} · upstream {}</td>",
            c.tally.spec, c.tally.upstream
        );
    }
    html.push_str("</tr>\n");
    for q in &matrix.requirements {
        let tallies: Vec<_> = matrix
            .columns
            .iter()
            .map(|c| requirement_tally(c, q))
            .collect();
        let _ = write!(
            html,
            "<tr><th scope=\"row\">{} <span class=\"suite\">{}</span></th><td class=\"trend\">{}</td>",
            text(&q.title),
            text(&q.suite),
            trend(&tallies.iter().map(|t| t.spec).collect::<Vec<_>>())
        );
        for t in &tallies {
            let class = if t.scenarios() == 0 {
                "s-none"
            } else if t.breaks_the_run() || t.spec.passed < t.spec.total {
                "s-fail"
            } else {
                "s-pass"
            };
            let _ = write!(
                html,
                "<td class=\"{class}\">spec {} · upstream {}</td>",
                t.spec, t.upstream
            );
        }
        html.push_str("</tr>\n");
    }
    html.push_str("</tbody></table></div>\n");
}

/// The spec score across releases as a small inline SVG line (a dot per release
/// that judged the requirement, joined), from 0% at the bottom to 100% at the top.
pub(crate) fn trend(scores: &[Score]) -> String {
    let step = if scores.len() > 1 {
        f64::from(TREND_WIDTH - 4) / (scores.len() - 1) as f64
    } else {
        0.0
    };
    let mut points = Vec::new();
    for (at, s) in scores.iter().enumerate() {
        if s.total == 0 {
            continue;
        }
        let share = s.passed as f64 / s.total as f64;
        let x = 2.0 + step * at as f64;
        let y = 2.0 + (1.0 - share) * f64::from(TREND_HEIGHT - 4);
        points.push(format!("{x:.1},{y:.1}"));
    }
    if points.is_empty() {
        return "-".to_string();
    }
    let words: Vec<String> = scores.iter().map(percent).collect();
    let dots: String = points
        .iter()
        .filter_map(|p| p.split_once(','))
        .map(|(x, y)| format!("<circle cx=\"{x}\" cy=\"{y}\" r=\"1.8\"/>"))
        .collect();
    format!(
        "<svg class=\"trend-line\" width=\"{TREND_WIDTH}\" height=\"{TREND_HEIGHT}\" viewBox=\"0 0 {TREND_WIDTH} {TREND_HEIGHT}\" role=\"img\" \
         aria-label=\"spec score: {words}\"><title>spec score: {words}</title>\
         <polyline points=\"{}\" fill=\"none\" stroke=\"currentColor\" stroke-width=\"1.5\"/>{dots}</svg>",
        points.join(" "),
        words = words.join(", ")
    )
}

/// A row per scenario that changed, grouped by requirement.
fn changed(html: &mut String, history: &History) {
    let matrix = &history.matrix;
    if history.changed.is_empty() {
        html.push_str(
            "<p class=\"lead\">No scenario changed its outcome across these releases.</p>\n",
        );
        return;
    }
    html.push_str(
        "<div class=\"scroll\"><table id=\"matrix\" class=\"history\">\n<thead><tr>\
         <th scope=\"col\" class=\"corner\">requirement / scenario</th>",
    );
    for c in &matrix.columns {
        let _ = write!(
            html,
            "<th scope=\"col\" class=\"server\"><div class=\"name\">{}</div></th>",
            text(&c.name)
        );
    }
    html.push_str(
        "<th scope=\"col\">first failed</th><th scope=\"col\">fixed in</th>\
         <th scope=\"col\">bisect between</th></tr></thead>\n",
    );
    let span = matrix.columns.len() + 3;
    for (at, q) in matrix.requirements.iter().enumerate() {
        let mut timelines = history.changed_in(q).peekable();
        if timelines.peek().is_none() {
            continue;
        }
        let _ = writeln!(
            html,
            "<tbody id=\"requirement-{at}\"><tr class=\"requirement\"><th scope=\"rowgroup\">{} \
             <span class=\"suite\">{} · {}</span></th><td colspan=\"{span}\"></td></tr>",
            text(&q.title),
            text(&q.suite),
            text(&q.file)
        );
        for t in timelines {
            let name = t.id.rsplit("::").next().unwrap_or_default();
            let _ = write!(
                html,
                "<tr class=\"scenario\" data-id=\"{}\"><th scope=\"row\"><div class=\"scenario-name\">{}</div></th>",
                text(&t.id),
                text(name)
            );
            for (c, outcome) in matrix.columns.iter().zip(&t.outcomes) {
                match (c.report(&t.id), outcome) {
                    (None, Outcome::NotYetInSuite) => html.push_str(
                        "<td class=\"s-none\" data-standing=\"not yet in the suite\"><span class=\"word\">not yet in the suite</span></td>",
                    ),
                    (report, _) => html.push_str(&cell::cell(&c.name, report)),
                }
            }
            let label =
                |at: Option<usize>| at.map_or("-".to_string(), |at| text(&matrix.columns[at].name));
            let fixed = t.fixed_in().and_then(|at| {
                t.transitions
                    .iter()
                    .find(|s| s.step == Step::Fixed && s.to == at)
            });
            let fixed_in = match fixed {
                Some(s) => answers(
                    &label(Some(s.to)),
                    &text(&matrix.columns[s.from].name),
                    &label(Some(s.to)),
                    s.diff.as_deref(),
                ),
                None => label(None),
            };
            let _ = write!(
                html,
                "<td class=\"first-failed\">{}</td><td class=\"fixed-in\">{fixed_in}</td><td class=\"bisect\">",
                label(t.first_failed())
            );
            let mut any = false;
            for s in &t.transitions {
                let (from, to) = (
                    text(&matrix.columns[s.from].name),
                    text(&matrix.columns[s.to].name),
                );
                let words = match s.step {
                    Step::Broke => {
                        any = true;
                        format!("{from} … {to}")
                    }
                    Step::Sharpened(v) => {
                        any = true;
                        format!("{from} → {to}: sharpened in version {v}, not counted")
                    }
                    Step::Fixed => continue,
                };
                html.push_str(&answers(&words, &from, &to, s.diff.as_deref()));
            }
            if !any {
                html.push('-');
            }
            html.push_str("</td></tr>\n");
        }
        html.push_str("</tbody>\n");
    }
    html.push_str("</table></div>\n");
}

/// `words` that open, when the two releases' answers differ, on their diff;
/// `from` and `to` are the releases' labels, escaped.
fn answers(words: &str, from: &str, to: &str, diff: Option<&str>) -> String {
    match diff {
        Some(diff) => format!(
            "<details><summary>{words}</summary><div class=\"detail\">\
             <div class=\"label\">the answers of {from} and {to}</div>\
             <pre class=\"diff\">{}</pre></div></details>",
            diff_lines(diff)
        ),
        None => format!("<div>{words}</div>"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_trend_line_rises_with_the_score_and_skips_releases_that_judged_nothing() {
        let s = |passed, total| Score { passed, total };
        let svg = trend(&[s(1, 2), s(0, 0), s(2, 2)]);
        assert!(
            svg.contains("points=\"2.0,12.0 94.0,2.0\""),
            "half at mid height, full at the top, the empty release left out: {svg}"
        );
        assert!(svg.contains("spec score: 50%, -, 100%"), "{svg}");
        assert_eq!(trend(&[s(0, 0)]), "-");
    }
}
