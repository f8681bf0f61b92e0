//! Printing coverage: a listing for people, JSON for tools.

use std::fmt::Write as _;

use serde::Serialize;

use super::{DocumentCoverage, SuiteCoverage};

/// Longest clause text shown under an uncovered clause, in characters.
const HINT_WIDTH: usize = 100;

/// The listing: each document (by its readable name, with where it lives upstream
/// and, when it was read, how it compares with the clause index) with its clauses
/// and the scenarios covering them (or, when none does, the first line of the
/// clause's text, or its title when only the index was read), the upstream topics
/// beyond the documents with their scenarios, the unknown `covers:`, then a summary
/// line per suite.
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
        match document.clauses.len() {
            0 => {
                let _ = writeln!(out, "{name}: {}: no clauses", document.name);
            }
            1 => {
                let _ = writeln!(out, "{name}: {}: 1 clause", document.name);
            }
            n => {
                let _ = writeln!(out, "{name}: {}: {n} clauses", document.name);
            }
        }
        document_origin(out, name, document);
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
                let hint = entry.says.as_deref().unwrap_or(&clause.title);
                let _ = writeln!(out, "              | {}", shorten(hint));
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

/// Where the document lives upstream, and, when it was read, from where and what
/// changed since the clause index was written.
fn document_origin(out: &mut String, suite: &str, document: &DocumentCoverage) {
    if let Some(upstream) = &document.upstream {
        let _ = writeln!(out, "  upstream: {upstream}");
    }
    let Some(path) = &document.read_from else {
        return;
    };
    let path = path.display();
    let Some(changes) = &document.changes else {
        let _ = writeln!(out, "  read from {path}: not in the suite's clause index");
        return;
    };
    match (&changes.indexed_sha256, changes.clauses_changed()) {
        (None, false) => {
            let _ = writeln!(out, "  read from {path}: as indexed");
        }
        (Some(before), clauses_changed) => {
            let _ = writeln!(
                out,
                "  read from {path}: changed since the clause index was written \
                 (sha256 {} there, {} now){}",
                short_hash(before),
                short_hash(&document.sha256),
                if clauses_changed {
                    ""
                } else {
                    "; its clauses are the same"
                }
            );
        }
        (None, true) => {
            let _ = writeln!(
                out,
                "  read from {path}: the same bytes, but the clause index lists other clauses"
            );
        }
    }
    for clause in &changes.added {
        let _ = writeln!(out, "  added     {} (line {})", clause.id, clause.line);
    }
    for clause in &changes.removed {
        let _ = writeln!(out, "  removed   {} (line {} then)", clause.id, clause.line);
    }
    for renamed in &changes.renamed {
        if renamed.from.id == renamed.to.id {
            let _ = writeln!(
                out,
                "  renamed   {}: title {:?} -> {:?}",
                renamed.to.id, renamed.from.title, renamed.to.title
            );
        } else {
            let _ = writeln!(
                out,
                "  renamed   {} -> {} ({:?})",
                renamed.from.id, renamed.to.id, renamed.to.title
            );
        }
    }
    for lost in &changes.lost_words {
        let _ = writeln!(
            out,
            "  freedom   {}: `open: {}` quotes {:?}, which the document no longer says; \
             read it again and write what leaves the dimension open (clauses.yaml)",
            lost.clause, lost.open, lost.words
        );
    }
    if changes.clauses_changed() {
        let _ = writeln!(
            out,
            "  the clause index is out of date; write it again with \
             `toolspec --specs DIR scaffold --suite {suite} --spec {path}`"
        );
    }
}

/// The first 12 hex digits, enough to tell two hashes apart by eye.
fn short_hash(hash: &str) -> &str {
    hash.get(..12).unwrap_or(hash)
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
    /// Documents read whose clauses differ from their clause index entries.
    stale_documents: usize,
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
                        stale_documents: s.stale_documents().count(),
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
