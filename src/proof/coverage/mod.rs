//! Spec coverage: which clauses of a suite's spec documents have a scenario (through
//! `covers:`), which have none, and which `covers:` name no clause at all.
//!
//! [`clauses`] reads clauses out of a markdown document, [`documents`] finds the
//! documents, this module matches them with a suite's scenarios, and [`listing`] prints
//! the result. `toolspec coverage` exits 1 when a clause is uncovered or a `covers:` is
//! unknown, so it can guard a suite in CI (the command itself is `cli::coverage`).
//!
//! A `basis: upstream` scenario may check what no clause speaks of (a success format
//! the seed leaves to the program); its `covers: upstream/<topic>` is neither a clause
//! nor unknown, and is listed apart as upstream behaviour beyond the documents.
//! Loading refuses such a cover on a `basis: spec` scenario, so every topic listed
//! here is backed by upstream scenarios only.

pub(crate) mod clauses;
pub(crate) mod documents;
pub(crate) mod listing;

use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::scenario::{Suite, UPSTREAM_COVERS};
use clauses::Clause;
use documents::SpecDocument;

/// One clause and the ids (`suite::file::name`) of the scenarios that cover it.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct ClauseCoverage {
    #[serde(flatten)]
    pub clause: Clause,
    pub scenarios: Vec<String>,
}

#[derive(Debug, Clone, Serialize)]
pub(crate) struct DocumentCoverage {
    pub name: String,
    pub path: PathBuf,
    pub clauses: Vec<ClauseCoverage>,
    /// Clauses whose id repeats an earlier one in the same document.
    pub duplicates: Vec<Clause>,
}

/// A `covers:` that names no clause of the suite's documents.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct UnknownCover {
    pub scenario: String,
    pub file: PathBuf,
    pub line: Option<usize>,
    pub covers: String,
    /// The clause id most like it, when one is close enough to be a typo.
    pub did_you_mean: Option<String>,
}

/// A topic of upstream behaviour beyond the documents (`covers: upstream/<topic>`)
/// and the `basis: upstream` scenarios that check it.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct UpstreamTopic {
    /// The whole cover, `upstream/<topic>`.
    pub id: String,
    pub scenarios: Vec<String>,
}

/// The coverage of one suite by its documents.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct SuiteCoverage {
    pub suite: String,
    pub documents: Vec<DocumentCoverage>,
    pub unknown_covers: Vec<UnknownCover>,
    /// Upstream behaviour the suite checks beyond its documents, by topic id.
    pub upstream_topics: Vec<UpstreamTopic>,
}

impl SuiteCoverage {
    /// Matches every scenario's `covers:` against the clauses of `documents`. A clause id
    /// that two documents share is covered in both by the same scenario.
    pub(crate) fn of(suite: &Suite, documents: &[SpecDocument]) -> SuiteCoverage {
        let covering = |id: &str| -> Vec<String> {
            suite
                .scenarios()
                .filter(|(_, s)| s.covers == id)
                .map(|(f, s)| suite.scenario_id(f, s))
                .collect()
        };
        let documents: Vec<DocumentCoverage> = documents
            .iter()
            .map(|d| DocumentCoverage {
                name: d.name.clone(),
                path: d.path.clone(),
                clauses: d
                    .clauses
                    .iter()
                    .map(|c| ClauseCoverage {
                        clause: c.clone(),
                        scenarios: covering(&c.id),
                    })
                    .collect(),
                duplicates: d.duplicates.clone(),
            })
            .collect();
        let known: Vec<&str> = documents
            .iter()
            .flat_map(|d| d.clauses.iter().map(|c| c.clause.id.as_str()))
            .collect();
        let beyond = |covers: &str| !known.contains(&covers) && covers.starts_with(UPSTREAM_COVERS);
        let mut upstream_topics: Vec<UpstreamTopic> = Vec::new();
        for (f, s) in suite.scenarios().filter(|(_, s)| beyond(&s.covers)) {
            let id = suite.scenario_id(f, s);
            match upstream_topics.iter_mut().find(|t| t.id == s.covers) {
                Some(topic) => topic.scenarios.push(id),
                None => upstream_topics.push(UpstreamTopic {
                    id: s.covers.clone(),
                    scenarios: vec![id],
                }),
            }
        }
        upstream_topics.sort_by(|a, b| a.id.cmp(&b.id));
        let unknown_covers = suite
            .scenarios()
            .filter(|(_, s)| !known.contains(&s.covers.as_str()) && !beyond(&s.covers))
            .map(|(f, s)| UnknownCover {
                scenario: suite.scenario_id(f, s),
                file: f.path.clone(),
                line: covers_line(&f.path, &s.name, &s.covers),
                covers: s.covers.clone(),
                did_you_mean: nearest(&s.covers, &known).map(str::to_string),
            })
            .collect();
        SuiteCoverage {
            suite: suite.name.clone(),
            documents,
            unknown_covers,
            upstream_topics,
        }
    }

    pub(crate) fn clauses(&self) -> impl Iterator<Item = &ClauseCoverage> {
        self.documents.iter().flat_map(|d| d.clauses.iter())
    }

    pub(crate) fn uncovered(&self) -> impl Iterator<Item = &ClauseCoverage> {
        self.clauses().filter(|c| c.scenarios.is_empty())
    }

    /// Every clause covered and every `covers:` known.
    pub(crate) fn is_complete(&self) -> bool {
        self.uncovered().next().is_none() && self.unknown_covers.is_empty()
    }

    /// `boris: 23 clauses, 23 covered, 0 uncovered, 0 unknown covers`, then
    /// `; 9 upstream topics beyond the documents` when the suite has any.
    pub(crate) fn summary(&self) -> String {
        let total = self.clauses().count();
        let uncovered = self.uncovered().count();
        let beyond = match self.upstream_topics.len() {
            0 => String::new(),
            1 => "; 1 upstream topic beyond the documents".to_string(),
            n => format!("; {n} upstream topics beyond the documents"),
        };
        format!(
            "{}: {total} clauses, {} covered, {uncovered} uncovered, {} unknown covers{beyond}",
            self.suite,
            total - uncovered,
            self.unknown_covers.len()
        )
    }
}

/// The 1-based line of `covers: <id>` in the scenario named `name`, found by reading
/// the file again (the YAML model keeps no positions).
fn covers_line(path: &Path, name: &str, covers: &str) -> Option<usize> {
    let source = std::fs::read_to_string(path).ok()?;
    let lines: Vec<&str> = source.lines().collect();
    let is_covers = |l: &str| l.contains("covers:") && l.contains(covers);
    let from = lines
        .iter()
        .position(|l| l.contains("name:") && l.contains(name))
        .unwrap_or(0);
    lines
        .iter()
        .skip(from)
        .position(|l| is_covers(l))
        .map(|i| from + i + 1)
        .or_else(|| lines.iter().position(|l| is_covers(l)).map(|i| i + 1))
}

/// The known id closest to `id` by edit distance, if within a typo's reach.
fn nearest<'a>(id: &str, known: &[&'a str]) -> Option<&'a str> {
    let (best, distance) = known
        .iter()
        .map(|k| (*k, edit_distance(id, k)))
        .min_by_key(|(_, d)| *d)?;
    (distance <= (id.len() / 4).max(2)).then_some(best)
}

fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let above = row[j + 1];
            row[j + 1] = (above + 1)
                .min(row[j] + 1)
                .min(diagonal + usize::from(ca != *cb));
            diagonal = above;
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_near_miss_is_suggested_and_a_far_one_is_not() {
        let known = ["glob/output", "glob/count", "bash/exit-code"];
        assert_eq!(nearest("glob/ouptut", &known), Some("glob/output"));
        assert_eq!(nearest("bash/exit_code", &known), Some("bash/exit-code"));
        assert_eq!(nearest("write-file/bytes", &known), None);
        assert_eq!(nearest("x", &[]), None);
    }

    #[test]
    fn edit_distance_counts_single_edits() {
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(edit_distance("", "ab"), 2);
        assert_eq!(edit_distance("same", "same"), 0);
    }
}
