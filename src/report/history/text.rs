//! The history as console text: each release's scores, then per requirement the
//! scenarios that changed, each with its outcome per release, where it first
//! failed and was fixed, and the releases to bisect between with the answers
//! diffed there.

use std::fmt::Write as _;

use super::{History, Step};
use crate::report::matrix::percent;

/// The history as text, one line at a time for `say`.
pub(crate) fn history_text(history: &History) -> String {
    let labels = history.labels();
    let mut out = String::new();
    for (suite, versions) in history.version_changes() {
        let each: Vec<String> = labels
            .iter()
            .zip(&versions)
            .map(|(label, v)| match v {
                Some(v) => format!("{label} {v}"),
                None => format!("{label} -"),
            })
            .collect();
        let _ = writeln!(
            out,
            "{suite}: suite versions differ ({}): a scenario newer than a release's version is \"not yet in the suite\" there, and a step across a version that sharpened it is not counted",
            each.join(", ")
        );
    }
    for (c, not_yet) in history.matrix.columns.iter().zip(&history.not_yet_in_suite) {
        let _ = write!(
            out,
            "{}: spec {} ({}), upstream {} ({})",
            c.name,
            c.tally.spec,
            percent(&c.tally.spec),
            c.tally.upstream,
            percent(&c.tally.upstream)
        );
        if *not_yet > 0 {
            let _ = write!(out, "; {not_yet} scenario(s) not yet in the suite");
        }
        out.push('\n');
    }
    let mut to_bisect = 0;
    for q in &history.matrix.requirements {
        let mut changed = history.changed_in(q).peekable();
        if changed.peek().is_none() {
            continue;
        }
        let _ = writeln!(out, "{}: {}", q.suite, q.title);
        for t in changed {
            let _ = writeln!(out, "  {}", crate::visible::excerpt(&t.id, 200));
            let steps: Vec<String> = labels
                .iter()
                .zip(&t.outcomes)
                .map(|(label, o)| format!("{label} {}", o.word()))
                .collect();
            let _ = writeln!(out, "    {}", steps.join(", "));
            let mut said = Vec::new();
            if let Some(at) = t.first_failed() {
                said.push(format!("first failed in {}", labels[at]));
            }
            match t.fixed_in() {
                Some(at) => said.push(format!("fixed in {}", labels[at])),
                None if t.first_failed().is_some() => said.push("not fixed".to_string()),
                None => {}
            }
            for s in &t.transitions {
                if let Step::Sharpened(version) = s.step {
                    said.push(format!(
                        "{} -> {}: sharpened in version {version}, not counted",
                        labels[s.from], labels[s.to]
                    ));
                }
            }
            if !said.is_empty() {
                let _ = writeln!(out, "    {}", said.join("; "));
            }
            for b in t.bisect() {
                to_bisect += 1;
                let _ = writeln!(
                    out,
                    "    bisect between {} (passes) and {} (fails)",
                    labels[b.from], labels[b.to]
                );
                for line in b.diff.iter().flat_map(|d| d.lines()) {
                    let _ = writeln!(out, "      {line}");
                }
            }
        }
    }
    let _ = writeln!(
        out,
        "{} release(s), {} scenario(s) changed, {to_bisect} break(s) to bisect",
        labels.len(),
        history.changed.len()
    );
    out
}
