//! One spec document read from disk (or given as text): its name, its digest,
//! and its clauses in document order, duplicates set apart. A leaf both the
//! document check (`documents.rs`) and the index drift (`drift.rs`) read.

use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use super::clauses::{extract, Clause};
use crate::scenario::{IndexedClause, LoadError};

/// A spec document read from disk, and its clauses.
#[derive(Debug, Clone)]
pub(crate) struct SpecDocument {
    pub path: PathBuf,
    /// The file name, as an index entry's `file:` names it.
    pub name: String,
    /// SHA-256 of the file's bytes, in lower-case hex.
    pub sha256: String,
    /// Clauses in document order, each id once.
    pub clauses: Vec<Clause>,
    /// Later clauses whose id an earlier clause already has: they cannot be told apart
    /// by `covers:`, so they are reported rather than counted.
    pub duplicates: Vec<Clause>,
    /// The whole text, each run of whitespace made one space: where a freedom's
    /// quoted words are looked for.
    pub words: String,
}

impl SpecDocument {
    /// Reads and extracts one document.
    pub(crate) fn read(path: &Path) -> Result<SpecDocument, LoadError> {
        let bytes = std::fs::read(path)
            .map_err(|e| LoadError::new(path, None, format!("cannot read spec document: {e}")))?;
        let text = std::str::from_utf8(&bytes).map_err(|e| {
            LoadError::new(
                path,
                None,
                format!("the spec document is not UTF-8 text ({e})"),
            )
        })?;
        let mut document = SpecDocument::from_text(path, text);
        document.sha256 = sha256_hex(&bytes);
        Ok(document)
    }

    pub(crate) fn from_text(path: &Path, text: &str) -> SpecDocument {
        let mut clauses: Vec<Clause> = Vec::new();
        let mut duplicates = Vec::new();
        for clause in extract(text) {
            if clauses.iter().any(|c| c.id == clause.id) {
                duplicates.push(clause);
            } else {
                clauses.push(clause);
            }
        }
        SpecDocument {
            path: path.to_path_buf(),
            name: path.file_name().map_or_else(
                || path.display().to_string(),
                |n| n.to_string_lossy().into_owned(),
            ),
            sha256: sha256_hex(text.as_bytes()),
            clauses,
            duplicates,
            words: one_spaced(text),
        }
    }

    /// Whether `quoted` is in the document, whitespace aside.
    pub(crate) fn says(&self, quoted: &str) -> bool {
        self.words.contains(&one_spaced(quoted))
    }

    /// Its clauses as an index records them.
    pub(crate) fn indexed_clauses(&self) -> Vec<IndexedClause> {
        self.clauses.iter().map(indexed).collect()
    }
}

/// `text` with every run of whitespace one space, none at either end.
fn one_spaced(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// A clause as the clause index lists it.
pub(crate) fn indexed(clause: &Clause) -> IndexedClause {
    IndexedClause {
        id: clause.id.clone(),
        title: clause.title.clone(),
        line: clause.line,
        freedoms: None,
    }
}
