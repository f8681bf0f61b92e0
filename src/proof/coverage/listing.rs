//! Printing coverage: a listing for people, JSON for tools.

use std::fmt::Write as _;

use serde::Serialize;

use super::SuiteCoverage;

/// Longest clause text shown under an uncovered clause, in characters.
const HINT_WIDTH: usize = 100;

/// The listing: each document's clauses with the scenarios covering them (or the first
/// line of the clause's text when none does), the upstream topics beyond the
/// documents with their scenarios, the unknown `covers:`, then a summary line per
/// suite.
pub(crate) fn text(suites: &[SuiteCoverage]) -> String {
    let mut out = String::new();
    for (i, suite) in suites.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        suite_text(&mut out, suite);
    }
    out
}

fn suite_text(out: &mut String, suite: &SuiteCoverage) {
    let name = &suite.suite;
    for document in &suite.documents {
        if document.clauses.is_empty() {
            let _ = writeln!(out, "{name}: {}: no clauses", document.name);
            continue;
        }
        let _ = writeln!(
            out,
            "{name}: {} ({} clauses)",
            document.name,
            document.clauses.len()
        );
        for entry in &document.clauses {
            let clause = &entry.clause;
            let status = if entry.scenarios.is_empty() {
                "UNCOVERED"
            } else {
                "covered  "
            };
            let _ = writeln!(out, "  {status} {} (line {})", clause.id, clause.line);
            for scenario in &entry.scenarios {
                let _ = writeln!(out, "              {scenario}");
            }
            if entry.scenarios.is_empty() {
                if let Some(first) = clause.text.iter().find(|t| !t.trim().is_empty()) {
                    let _ = writeln!(out, "              | {}", shorten(first.trim()));
                }
            }
        }
        for duplicate in &document.duplicates {
            let _ = writeln!(
                out,
                "  note: line {} repeats the clause id `{}`; `covers:` cannot tell the two apart",
                duplicate.line, duplicate.id
            );
        }
    }
    if !suite.upstream_topics.is_empty() {
        let _ = writeln!(
            out,
            "{name}: upstream behaviour beyond the documents (basis: upstream, no clause):"
        );
        for topic in &suite.upstream_topics {
            let _ = writeln!(out, "  upstream  {}", topic.id);
            for scenario in &topic.scenarios {
                let _ = writeln!(out, "              {scenario}");
            }
        }
    }
    if !suite.unknown_covers.is_empty() {
        let _ = writeln!(
            out,
            "{name}: unknown covers (no clause of the documents has these ids):"
        );
        for unknown in &suite.unknown_covers {
            let place = match unknown.line {
                Some(line) => format!("{}:{line}", unknown.file.display()),
                None => unknown.file.display().to_string(),
            };
            let hint = unknown
                .did_you_mean
                .as_ref()
                .map(|id| format!(" (did you mean `{id}`?)"))
                .unwrap_or_default();
            let _ = writeln!(
                out,
                "  {place}: {} covers `{}`{hint}",
                unknown.scenario, unknown.covers
            );
        }
    }
    let _ = writeln!(out, "{}", suite.summary());
}

fn shorten(text: &str) -> String {
    if text.chars().count() <= HINT_WIDTH {
        return text.to_string();
    }
    let cut: String = text.chars().take(HINT_WIDTH - 3).collect();
    format!("{cut}...")
}

#[derive(Serialize)]
struct JsonReport<'a> {
    /// True when every suite is completely covered (the exit code is 0).
    complete: bool,
    suites: Vec<JsonSuite<'a>>,
}

#[derive(Serialize)]
struct JsonSuite<'a> {
    #[serde(flatten)]
    coverage: &'a SuiteCoverage,
    summary: JsonSummary,
}

#[derive(Serialize)]
struct JsonSummary {
    clauses: usize,
    covered: usize,
    uncovered: usize,
    unknown_covers: usize,
    upstream_topics: usize,
}

/// The whole result as pretty JSON, with a summary per suite.
pub(crate) fn json(suites: &[SuiteCoverage]) -> String {
    let report = JsonReport {
        complete: suites.iter().all(SuiteCoverage::is_complete),
        suites: suites
            .iter()
            .map(|s| {
                let clauses = s.clauses().count();
                let uncovered = s.uncovered().count();
                JsonSuite {
                    coverage: s,
                    summary: JsonSummary {
                        clauses,
                        covered: clauses - uncovered,
                        uncovered,
                        unknown_covers: s.unknown_covers.len(),
                        upstream_topics: s.upstream_topics.len(),
                    },
                }
            })
            .collect(),
    };
    match serde_json::to_string_pretty(&report) {
        Ok(mut text) => {
            text.push('\n');
            text
        }
        Err(e) => format!(
            "{{\"error\": {}}}\n",
            serde_json::Value::from(e.to_string())
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_text_is_cut_with_an_ellipsis() {
        let long = "x".repeat(150);
        let short = shorten(&long);
        assert_eq!(short.chars().count(), HINT_WIDTH);
        assert!(short.ends_with("..."));
        assert_eq!(shorten("short"), "short");
    }
}
