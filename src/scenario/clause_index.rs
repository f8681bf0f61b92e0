//! A suite's clause index, `clauses.yaml`: for each spec document the suite checks,
//! a readable name, where the document lives upstream, its SHA-256, and the clauses
//! (id, title, line) read from it when the index was written.
//!
//! It travels with the suite, so `toolspec coverage` needs no document beside the
//! binary; reading a document again compares it with its entry here. The file is
//! written by `toolspec scaffold`, and loaded (strictly, with the rest of the suite)
//! like every other suite file, so a mistake in it is named with file and line.

use std::collections::BTreeSet;
use std::path::Path;

use serde::Deserialize;

use super::error::{find_line, LoadError};
use super::freedom::Freedom;
use super::yaml::{parse_yaml_str, read_text};

/// The file name of a suite's clause index, beside its `suite.yaml`.
pub(crate) const CLAUSE_INDEX_FILE: &str = "clauses.yaml";

/// `specs/<suite>/clauses.yaml`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ClauseIndex {
    pub documents: Vec<IndexedDocument>,
}

/// One spec document of a suite, as it was when indexed.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct IndexedDocument {
    /// What user-facing text calls the document.
    pub name: String,
    /// The document's file name in a folder of documents (`coverage --documents DIR`).
    pub file: String,
    /// Where the document lives upstream (a URL or a repository path), or a sentence
    /// saying that it is not known.
    pub upstream: String,
    /// SHA-256 of the document's bytes, 64 lower-case hex digits.
    pub sha256: String,
    /// Its clauses in document order, each id once.
    pub clauses: Vec<IndexedClause>,
}

/// One clause as the index records it.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, serde::Serialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct IndexedClause {
    /// What a scenario's `covers:` names.
    pub id: String,
    /// The clause's own title, as the document writes it.
    pub title: String,
    /// 1-based line where the clause starts in the indexed document.
    pub line: usize,
    /// What the document leaves open (`[]`: it fixes everything); `None` when
    /// nobody has said yet.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub freedoms: Option<Vec<Freedom>>,
}

/// The clause index in `suite_dir`, or None when the suite has none.
pub(crate) fn read_clause_index(suite_dir: &Path) -> Result<Option<ClauseIndex>, Vec<LoadError>> {
    let path = suite_dir.join(CLAUSE_INDEX_FILE);
    if !path.exists() {
        return Ok(None);
    }
    // Read once: the same text is parsed and then searched for the lines of any
    // problem found.
    let source = read_text(&path).map_err(|e| vec![e])?;
    let index: ClauseIndex = parse_yaml_str(&path, &source).map_err(|e| vec![e])?;
    let problems = problems(&index, &path, &source);
    if problems.is_empty() {
        Ok(Some(index))
    } else {
        Err(problems)
    }
}

/// What the YAML shape cannot say: each name, file and clause id once, a file name
/// that stays in the folder it is looked up in, and a hash of the right form.
fn problems(index: &ClauseIndex, path: &Path, source: &str) -> Vec<LoadError> {
    let at =
        |needle: &str, message: String| LoadError::new(path, find_line(source, needle), message);
    let mut errors = Vec::new();
    if index.documents.is_empty() {
        errors.push(at(
            "documents:",
            "`documents:` is empty; list the suite's spec documents (`toolspec scaffold \
             --spec FILE` writes them)"
                .to_string(),
        ));
    }
    let mut names = BTreeSet::new();
    let mut files = BTreeSet::new();
    for document in &index.documents {
        if document.name.trim().is_empty() {
            errors.push(at(
                "name:",
                "a document's `name:` is empty; give it a readable name".into(),
            ));
        } else if !names.insert(document.name.as_str()) {
            errors.push(at(
                &document.name,
                format!(
                    "two documents are named `{}`; names must tell them apart",
                    document.name
                ),
            ));
        }
        if let Some(why) = file_name_problem(&document.file) {
            errors.push(at(
                &document.file,
                format!("`file: {}` {why}", document.file),
            ));
        } else if !files.insert(document.file.as_str()) {
            errors.push(at(
                &document.file,
                format!("two documents have `file: {}`", document.file),
            ));
        }
        if !is_sha256(&document.sha256) {
            errors.push(at(
                &document.sha256,
                format!(
                    "`sha256: {}` of `{}` is not 64 lower-case hex digits",
                    document.sha256, document.name
                ),
            ));
        }
        let mut ids = BTreeSet::new();
        for clause in &document.clauses {
            if clause.id.trim().is_empty() {
                errors.push(at(
                    "id:",
                    format!("a clause of `{}` has an empty id", document.name),
                ));
            } else if !ids.insert(clause.id.as_str()) {
                errors.push(at(
                    &clause.id,
                    format!("`{}` lists the clause `{}` twice", document.name, clause.id),
                ));
            }
            for freedom in clause.freedoms.iter().flatten() {
                if let Some(why) = freedom.problem() {
                    errors.push(at(
                        &clause.id,
                        format!("a freedom of clause `{}`: {why}", clause.id),
                    ));
                }
            }
        }
    }
    errors
}

/// Why `file` is not a plain file name, which is joined to a folder the user names.
fn file_name_problem(file: &str) -> Option<&'static str> {
    if file.is_empty() {
        Some("is empty; give the document's file name")
    } else if file == "." || file == ".." || file.contains(['/', '\\']) {
        Some("is not a plain file name; give the name alone, without a folder")
    } else if file.contains('\0') {
        Some("holds a NUL character")
    } else {
        None
    }
}

fn is_sha256(text: &str) -> bool {
    text.len() == 64
        && text
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

#[cfg(test)]
mod tests {
    use super::*;

    const HASH: &str = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

    fn index_in(
        text: &str,
    ) -> (
        tempfile::TempDir,
        Result<Option<ClauseIndex>, Vec<LoadError>>,
    ) {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::write(dir.path().join(CLAUSE_INDEX_FILE), text).expect("write");
        let read = read_clause_index(dir.path());
        (dir, read)
    }

    fn errors_of(text: &str) -> Vec<String> {
        match index_in(text).1 {
            Ok(_) => Vec::new(),
            Err(errors) => errors.iter().map(ToString::to_string).collect(),
        }
    }

    fn document(name: &str, file: &str, hash: &str, ids: &[&str]) -> String {
        let clauses: Vec<String> = ids
            .iter()
            .map(|id| format!("      - {{ id: \"{id}\", title: T, line: 1 }}\n"))
            .collect();
        format!(
            "  - name: \"{name}\"\n    file: \"{file}\"\n    upstream: nowhere\n    sha256: \"{hash}\"\n    clauses:\n{}",
            clauses.concat()
        )
    }

    #[test]
    fn a_suite_without_an_index_has_none() {
        let dir = tempfile::tempdir().expect("tempdir");
        assert!(matches!(read_clause_index(dir.path()), Ok(None)));
    }

    #[test]
    fn a_well_formed_index_loads() {
        let text = format!(
            "documents:\n{}",
            document("Doc", "doc.md", HASH, &["a/b", "c"])
        );
        let (_dir, read) = index_in(&text);
        let index = read.expect("loads").expect("present");
        assert_eq!(index.documents[0].clauses[1].id, "c");
        assert_eq!(index.documents[0].clauses[0].line, 1);
    }

    #[test]
    fn each_broken_rule_is_named_with_its_line() {
        let text = format!(
            "documents:\n{}{}",
            document("Doc", "../doc.md", "ABC", &["a", "a"]),
            document("Doc", "x.md", HASH, &[""])
        );
        let errors = errors_of(&text);
        let joined = errors.join("\n");
        assert!(
            joined.contains("`file: ../doc.md` is not a plain file name"),
            "{joined}"
        );
        assert!(
            joined.contains(":5: `sha256: ABC` of `Doc` is not 64 lower-case hex"),
            "{joined}"
        );
        assert!(
            joined.contains("`Doc` lists the clause `a` twice"),
            "{joined}"
        );
        assert!(joined.contains("two documents are named `Doc`"), "{joined}");
        assert!(
            joined.contains("a clause of `Doc` has an empty id"),
            "{joined}"
        );
        assert_eq!(errors.len(), 5, "{joined}");
    }

    #[test]
    fn an_empty_list_and_an_unknown_key_are_refused() {
        assert!(errors_of("documents: []\n")[0].contains("`documents:` is empty"));
        let text = format!(
            "documents:\n{}    extra: 1\n",
            document("D", "d.md", HASH, &["a"])
        );
        let errors = errors_of(&text);
        assert!(errors[0].contains("unknown field `extra`"), "{errors:?}");
    }
}
