//! Reading the spec documents a suite is checked against, and setting each beside
//! its entry in the suite's clause index.
//!
//! Coverage works from the index alone unless a document is read: from a folder of
//! documents (`--documents DIR`, each looked up by the `file:` its entry names) or
//! given by path (`--spec FILE`), which is also how a user checks a suite against a
//! spec of their own. A document read is compared with its entry ([`drift`]).

use std::path::{Path, PathBuf};

use super::drift::IndexDrift;
use super::spec_document::{indexed, SpecDocument};
use crate::scenario::{IndexedClause, IndexedDocument, LoadError, Suite, CLAUSE_INDEX_FILE};

/// A clause as coverage lists it.
#[derive(Debug, Clone)]
pub(crate) struct ListedClause {
    pub clause: IndexedClause,
    /// The first line of what the clause says, when the document was read.
    pub says: Option<String>,
}

/// A document as coverage counts it: named and placed by the suite's clause index,
/// with the clauses of the document itself when it was read, or else the index's.
#[derive(Debug, Clone)]
pub(crate) struct CheckedDocument {
    /// The readable name from the index, or the file name of a document the index
    /// does not have.
    pub name: String,
    /// The document's file name.
    pub file: String,
    /// Where it lives upstream, as the index says.
    pub upstream: Option<String>,
    /// SHA-256 of the document read, or the index's when none was.
    pub sha256: String,
    /// Where the document was read from; None when coverage worked from the index.
    pub read_from: Option<PathBuf>,
    pub clauses: Vec<ListedClause>,
    pub duplicates: Vec<IndexedClause>,
    /// Whether the index has an entry for the document.
    pub indexed: bool,
    /// How the document differs from its index entry, when it was read and has one.
    pub drift: Option<IndexDrift>,
}

impl CheckedDocument {
    /// A document known only by its index entry.
    pub(crate) fn from_index(entry: &IndexedDocument) -> CheckedDocument {
        CheckedDocument {
            name: entry.name.clone(),
            file: entry.file.clone(),
            upstream: Some(entry.upstream.clone()),
            sha256: entry.sha256.clone(),
            read_from: None,
            clauses: entry
                .clauses
                .iter()
                .map(|c| ListedClause {
                    clause: c.clone(),
                    says: None,
                })
                .collect(),
            duplicates: Vec::new(),
            indexed: true,
            drift: None,
        }
    }

    /// A document that was read, set beside its index entry when there is one.
    pub(crate) fn read(
        document: &SpecDocument,
        entry: Option<&IndexedDocument>,
    ) -> CheckedDocument {
        let clauses = document
            .clauses
            .iter()
            .map(|c| ListedClause {
                clause: indexed(c),
                says: c
                    .text
                    .iter()
                    .map(|t| t.trim())
                    .find(|t| !t.is_empty())
                    .map(str::to_string),
            })
            .collect();
        CheckedDocument {
            name: entry.map_or_else(|| document.name.clone(), |e| e.name.clone()),
            file: document.name.clone(),
            upstream: entry.map(|e| e.upstream.clone()),
            sha256: document.sha256.clone(),
            read_from: Some(document.path.clone()),
            clauses,
            duplicates: document.duplicates.iter().map(indexed).collect(),
            indexed: entry.is_some(),
            drift: entry.map(|e| IndexDrift::between(e, document)),
        }
    }
}

/// The documents of `suite` as its clause index records them.
pub(crate) fn from_index(suite: &Suite) -> Result<Vec<CheckedDocument>, Vec<LoadError>> {
    let entries = index_entries(suite, "or give the documents with --spec FILE")?;
    Ok(entries.iter().map(CheckedDocument::from_index).collect())
}

/// The documents of `suite`'s clause index, each read from `dir` by its file name and
/// compared with its entry.
pub(crate) fn from_folder(
    suite: &Suite,
    dir: &Path,
) -> Result<Vec<CheckedDocument>, Vec<LoadError>> {
    let entries = index_entries(suite, "the index says which files of the folder to read")?;
    if !dir.is_dir() {
        return Err(vec![LoadError::new(
            dir,
            None,
            "--documents names a folder that does not exist",
        )]);
    }
    read_each(entries, |entry| {
        let path = dir.join(&entry.file);
        if path.is_file() {
            SpecDocument::read(&path).map(|d| CheckedDocument::read(&d, Some(entry)))
        } else {
            Err(LoadError::new(
                &path,
                None,
                format!(
                    "{} (`{}` in {} of suite `{}`) is not in this folder",
                    entry.name,
                    entry.file,
                    CLAUSE_INDEX_FILE,
                    suite.name()
                ),
            ))
        }
    })
}

/// Documents given by path, each set beside the index entry with its file name, or
/// else with its content hash (a renamed copy).
pub(crate) fn from_paths(
    suite: &Suite,
    paths: &[PathBuf],
) -> Result<Vec<CheckedDocument>, Vec<LoadError>> {
    let entries: &[IndexedDocument] = suite
        .clause_index
        .as_ref()
        .map_or(&[], |index| &index.documents);
    let documents = given_documents(paths)?;
    Ok(documents
        .iter()
        .map(|d| {
            let entry = entries
                .iter()
                .find(|e| e.file == d.name)
                .or_else(|| entries.iter().find(|e| e.sha256 == d.sha256));
            CheckedDocument::read(d, entry)
        })
        .collect())
}

/// The entries of `suite`'s clause index, or an error saying it has none.
fn index_entries<'a>(
    suite: &'a Suite,
    otherwise: &str,
) -> Result<&'a [IndexedDocument], Vec<LoadError>> {
    match &suite.clause_index {
        Some(index) => Ok(&index.documents),
        None => Err(vec![LoadError::new(
            &suite.dir.join(CLAUSE_INDEX_FILE),
            None,
            format!(
                "suite `{}` has no clause index; `toolspec scaffold --spec FILE --suite {}` \
                 writes it from the suite's documents, {otherwise}",
                suite.name(),
                suite.name()
            ),
        )]),
    }
}

/// Documents given by path: each must yield clauses, since a user who names a document
/// means it to be checked, and an empty list would make any suite look complete.
pub(crate) fn given_documents(paths: &[PathBuf]) -> Result<Vec<SpecDocument>, Vec<LoadError>> {
    read_each(paths, |path| {
        SpecDocument::read(path).and_then(|d| {
            if d.clauses.is_empty() {
                Err(LoadError::new(
                    path,
                    None,
                    "no clauses found in this document (see docs/coverage.md for what counts as a clause)",
                ))
            } else {
                Ok(d)
            }
        })
    })
}

/// Documents given by path, with or without clauses: a suite may list a document
/// that has none (a design rationale) in its clause index.
pub(crate) fn read_documents(paths: &[PathBuf]) -> Result<Vec<SpecDocument>, Vec<LoadError>> {
    read_each(paths, |path| SpecDocument::read(path))
}

/// Reads a document for each item, going on past failures so that one run reports
/// every missing or unreadable document: the documents, or all the errors.
fn read_each<T, D>(
    items: impl IntoIterator<Item = T>,
    mut read: impl FnMut(T) -> Result<D, LoadError>,
) -> Result<Vec<D>, Vec<LoadError>> {
    let mut documents = Vec::new();
    let mut errors = Vec::new();
    for item in items {
        match read(item) {
            Ok(d) => documents.push(d),
            Err(e) => errors.push(e),
        }
    }
    if errors.is_empty() {
        Ok(documents)
    } else {
        Err(errors)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_repeated_id_is_kept_once_and_reported() {
        let doc = SpecDocument::from_text(Path::new("d.md"), "## A\n- `x`: one\n- `x`: two\n");
        assert_eq!(doc.clauses.len(), 1);
        assert_eq!(doc.duplicates.len(), 1);
        assert_eq!(doc.duplicates[0].line, 3);
        assert_eq!(doc.name, "d.md");
    }
}
