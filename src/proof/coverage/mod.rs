//! Spec coverage: which clauses of a suite's spec documents have a scenario (through
//! `covers:`), which have none, and which `covers:` name no clause at all.
//!
//! The clauses come from the suite's clause index (`clauses.yaml`), or from the
//! documents themselves when they are read. [`clauses`] reads clauses out of a
//! markdown document, [`documents`] reads the documents and sets each beside its
//! index entry, [`drift`] tells what changed since the index was written, [`index`]
//! writes the index, this module matches clauses with a suite's scenarios, and
//! [`listing`] prints the result. `toolspec coverage` exits 1 when a clause is
//! uncovered, a `covers:` is unknown or a document read has other clauses than its
//! index entry, so it can guard a suite in CI (the command itself is `cli::coverage`).
//!
//! A `basis: upstream` scenario may check what no clause speaks of (a success format
//! the seed leaves to the program); its `covers: upstream/<topic>` is neither a clause
//! nor unknown, and is listed apart as upstream behaviour beyond the documents.
//! Loading refuses such a cover on a `basis: spec` scenario, so every topic listed
//! here is backed by upstream scenarios only.

pub(crate) mod clauses;
pub(crate) mod documents;
pub(crate) mod drift;
pub(crate) mod index;
pub(crate) mod listing;
pub(crate) mod spec_document;

use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::nearest::nearest;
use crate::scenario::{IndexedClause, Suite, UPSTREAM_COVERS};
use documents::CheckedDocument;
use drift::IndexDrift;

/// One clause and the ids (`suite::file::name`) of the scenarios that cover it.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct ClauseCoverage {
    #[serde(flatten)]
    pub clause: IndexedClause,
    /// The first line of what the clause says, when the document was read.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub says: Option<String>,
    pub scenarios: Vec<String>,
}

/// One document's clauses and what covers them.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct DocumentCoverage {
    /// The readable name the clause index gives it.
    pub name: String,
    /// Its file name.
    pub file: String,
    /// Where it lives upstream, as the index says; null for a document the index
    /// does not have.
    pub upstream: Option<String>,
    /// SHA-256 of the document read, or the one the index records.
    pub sha256: String,
    /// Where the document was read from; null when the index alone was used.
    pub read_from: Option<PathBuf>,
    /// Whether the suite's clause index has this document.
    pub indexed: bool,
    pub clauses: Vec<ClauseCoverage>,
    /// Clauses whose id repeats an earlier one in the same document.
    pub duplicates: Vec<IndexedClause>,
    /// What changed since the index was written, for a document read that the index
    /// has; null otherwise.
    pub changes: Option<IndexDrift>,
}

impl DocumentCoverage {
    /// The document was read and its clauses are not those of its index entry.
    pub(crate) fn index_is_stale(&self) -> bool {
        self.changes.as_ref().is_some_and(IndexDrift::is_stale)
    }
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
    pub(crate) fn of(suite: &Suite, documents: &[CheckedDocument]) -> SuiteCoverage {
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
                file: d.file.clone(),
                upstream: d.upstream.clone(),
                sha256: d.sha256.clone(),
                read_from: d.read_from.clone(),
                indexed: d.indexed,
                clauses: d
                    .clauses
                    .iter()
                    .map(|c| ClauseCoverage {
                        clause: c.clause.clone(),
                        says: c.says.clone(),
                        scenarios: covering(&c.clause.id),
                    })
                    .collect(),
                duplicates: d.duplicates.clone(),
                changes: d.drift.clone(),
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

    /// The documents read whose clauses differ from their index entries.
    pub(crate) fn stale_documents(&self) -> impl Iterator<Item = &DocumentCoverage> {
        self.documents.iter().filter(|d| d.index_is_stale())
    }

    /// Every clause covered, every `covers:` known, and every document read as its
    /// index entry describes it.
    pub(crate) fn is_complete(&self) -> bool {
        self.uncovered().next().is_none()
            && self.unknown_covers.is_empty()
            && self.stale_documents().next().is_none()
    }

    /// `boris: 23 clauses, 23 covered, 0 uncovered, 0 unknown covers`, then
    /// `; 9 upstream topics beyond the documents` when the suite has any, and
    /// `; the clause index is out of date for 1 document` when it is.
    pub(crate) fn summary(&self) -> String {
        let total = self.clauses().count();
        let uncovered = self.uncovered().count();
        let beyond = match self.upstream_topics.len() {
            0 => String::new(),
            1 => "; 1 upstream topic beyond the documents".to_string(),
            n => format!("; {n} upstream topics beyond the documents"),
        };
        let stale = match self.stale_documents().count() {
            0 => String::new(),
            1 => "; the clause index is out of date for 1 document".to_string(),
            n => format!("; the clause index is out of date for {n} documents"),
        };
        format!(
            "{}: {total} clauses, {} covered, {uncovered} uncovered, {} unknown covers{beyond}{stale}",
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
