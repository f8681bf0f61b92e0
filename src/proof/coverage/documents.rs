//! Finding and reading the spec documents a suite is checked against.
//!
//! A suite names its documents in `suite.yaml` (`documents:`); they live in the seeds
//! folder, `../shared/seeds` seen from the folder that holds `specs/`. A document can
//! also be given by path, which is how a user checks a suite against a spec of their own.

use std::path::{Path, PathBuf};

use super::clauses::{extract, Clause};
use crate::scenario::LoadError;

/// A spec document and its clauses.
#[derive(Debug, Clone)]
pub(crate) struct SpecDocument {
    pub path: PathBuf,
    /// The file name, as `documents:` names it.
    pub name: String,
    /// Clauses in document order, each id once.
    pub clauses: Vec<Clause>,
    /// Later clauses whose id an earlier clause already has: they cannot be told apart
    /// by `covers:`, so they are reported rather than counted.
    pub duplicates: Vec<Clause>,
}

impl SpecDocument {
    /// Reads and extracts one document.
    pub(crate) fn read(path: &Path) -> Result<SpecDocument, LoadError> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| LoadError::new(path, None, format!("cannot read spec document: {e}")))?;
        Ok(SpecDocument::from_text(path, &text))
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
            clauses,
            duplicates,
        }
    }
}

/// The seeds folder for a specs folder: `<parent of specs>/../shared/seeds`.
pub(crate) fn default_seeds_dir(specs: &Path) -> PathBuf {
    let beside = match std::fs::canonicalize(specs) {
        Ok(real) => real.parent().and_then(Path::parent).map(Path::to_path_buf),
        Err(_) => None,
    };
    beside
        .unwrap_or_else(|| specs.join("..").join(".."))
        .join("shared")
        .join("seeds")
}

/// The documents a suite lists in `suite.yaml`, read from `seeds`.
pub(crate) fn suite_documents(
    suite_yaml: &Path,
    names: &[String],
    seeds: &Path,
) -> Result<Vec<SpecDocument>, Vec<LoadError>> {
    if names.is_empty() {
        return Err(vec![LoadError::new(
            suite_yaml,
            None,
            "the suite lists no `documents:`; add them, or give the document with --spec FILE",
        )]);
    }
    if !seeds.is_dir() {
        return Err(vec![LoadError::new(
            suite_yaml,
            None,
            format!(
                "the suite's documents are looked up in {}, which does not exist; \
                 give the folder with --seeds DIR or each document with --spec FILE",
                seeds.display()
            ),
        )]);
    }
    read_each(names, |name| {
        let path = seeds.join(name);
        if path.is_file() {
            SpecDocument::read(&path)
        } else {
            Err(LoadError::new(
                suite_yaml,
                None,
                format!("document `{name}` is not in {}", seeds.display()),
            ))
        }
    })
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

/// Reads a document for each item, going on past failures so that one run reports
/// every missing or unreadable document: the documents, or all the errors.
fn read_each<T>(
    items: impl IntoIterator<Item = T>,
    mut read: impl FnMut(T) -> Result<SpecDocument, LoadError>,
) -> Result<Vec<SpecDocument>, Vec<LoadError>> {
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

    #[test]
    fn the_seeds_folder_is_beside_the_parent_of_specs() {
        let dir = tempfile::tempdir().expect("tempdir");
        let specs = dir.path().join("repo").join("specs");
        std::fs::create_dir_all(&specs).expect("mkdir");
        let real = std::fs::canonicalize(dir.path()).expect("canonical");
        assert_eq!(default_seeds_dir(&specs), real.join("shared").join("seeds"));
    }
}
