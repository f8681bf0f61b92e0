//! Writing a suite's clause index (`clauses.yaml`, whose shape is
//! `scenario::ClauseIndex`) from the documents read: `toolspec scaffold` adds an
//! entry for a new document and refreshes the entry of one it already has.
//!
//! The index is data the command writes again whenever a document changes, so it is
//! rendered whole; only an entry's `name` and `upstream`, which a person gives, are
//! carried over from the file it replaces.

use std::fmt::Write as _;

use super::spec_document::SpecDocument;
use crate::scenario::{ClauseIndex, Freedom, IndexedClause, IndexedDocument};

/// What `upstream:` says of a new document until someone says where it lives.
pub(crate) const UPSTREAM_UNKNOWN: &str = "unknown (TODO: where this document is published)";

/// `existing` (or an empty index) with an entry for each of `documents`: a document
/// the index has by file name gets its hash and clauses refreshed, keeping its name
/// and upstream; a new one is added after the others, named by its file name.
pub(crate) fn with_documents(
    existing: Option<&ClauseIndex>,
    documents: &[SpecDocument],
) -> ClauseIndex {
    let mut entries: Vec<IndexedDocument> = existing.map_or_else(Vec::new, |i| i.documents.clone());
    for document in documents {
        let fresh = |name: String, upstream: String, kept: &[IndexedClause]| IndexedDocument {
            name,
            file: document.name.clone(),
            upstream,
            sha256: document.sha256.clone(),
            clauses: document
                .indexed_clauses()
                .into_iter()
                .map(|mut clause| {
                    // A person stated what the clause leaves open: a clause that
                    // keeps its id keeps that (coverage checks the quoted words).
                    clause.freedoms = kept
                        .iter()
                        .find(|k| k.id == clause.id)
                        .and_then(|k| k.freedoms.clone());
                    clause
                })
                .collect(),
        };
        match entries.iter_mut().find(|e| e.file == document.name) {
            Some(entry) => {
                *entry = fresh(entry.name.clone(), entry.upstream.clone(), &entry.clauses);
            }
            None => entries.push(fresh(
                document.name.clone(),
                UPSTREAM_UNKNOWN.to_string(),
                &[],
            )),
        }
    }
    ClauseIndex { documents: entries }
}

/// The index as the text of `clauses.yaml`.
pub(crate) fn render(index: &ClauseIndex) -> String {
    let mut text = String::new();
    let _ = writeln!(
        text,
        "# The clause index of this suite's spec documents, written by `toolspec scaffold`."
    );
    let _ = writeln!(
        text,
        "# `toolspec coverage` reads it; `--documents DIR` or `--spec FILE` compares it with the"
    );
    let _ = writeln!(
        text,
        "# documents. Edit `name` and `upstream` by hand (scaffold keeps them); the rest is"
    );
    let _ = writeln!(text, "# written again when a document is scaffolded anew.");
    let _ = writeln!(text, "documents:");
    for document in &index.documents {
        let _ = writeln!(text, "  - name: {}", quoted(&document.name));
        let _ = writeln!(text, "    file: {}", quoted(&document.file));
        let _ = writeln!(text, "    upstream: {}", quoted(&document.upstream));
        let _ = writeln!(text, "    sha256: {}", quoted(&document.sha256));
        if document.clauses.is_empty() {
            let _ = writeln!(text, "    clauses: []");
            continue;
        }
        let _ = writeln!(text, "    clauses:");
        for clause in &document.clauses {
            render_clause(&mut text, clause);
        }
    }
    text
}

/// One clause: on one line, or in block form when it states freedoms (one
/// flow mapping a line, its keys in a fixed order).
fn render_clause(text: &mut String, clause: &IndexedClause) {
    let (id, line, title) = (quoted(&clause.id), clause.line, quoted(&clause.title));
    match clause.freedoms.as_deref() {
        None => {
            let _ = writeln!(text, "      - {{ id: {id}, line: {line}, title: {title} }}");
        }
        Some([]) => {
            let _ = writeln!(
                text,
                "      - {{ id: {id}, line: {line}, title: {title}, freedoms: [] }}"
            );
        }
        Some(freedoms) => {
            let _ = writeln!(
                text,
                "      - id: {id}\n        line: {line}\n        title: {title}"
            );
            let _ = writeln!(text, "        freedoms:");
            for freedom in freedoms {
                let _ = writeln!(text, "          - {}", flow(freedom));
            }
        }
    }
}

/// A freedom as a one-line flow mapping, its keys in the order they are
/// documented.
fn flow(freedom: &Freedom) -> String {
    let mut pairs = vec![
        format!("open: {}", freedom.open.name()),
        format!("words: {}", quoted(&freedom.words)),
    ];
    let optional = [
        ("items", &freedom.items),
        ("keep", &freedom.keep),
        ("field", &freedom.field),
        ("at", &freedom.at),
        ("from", &freedom.from),
    ];
    for (key, value) in optional {
        if let Some(value) = value {
            pairs.push(format!("{key}: {}", quoted(value)));
        }
    }
    if !freedom.to.is_empty() {
        let to: Vec<String> = freedom.to.iter().map(|t| quoted(t)).collect();
        pairs.push(format!("to: [{}]", to.join(", ")));
    }
    format!("{{ {} }}", pairs.join(", "))
}

/// A YAML double-quoted string (JSON's escapes are valid YAML).
fn quoted(text: &str) -> String {
    serde_json::Value::from(text).to_string()
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;
    use crate::scenario::parse_yaml_str;

    fn document(file: &str, text: &str) -> SpecDocument {
        SpecDocument::from_text(Path::new(file), text)
    }

    #[test]
    fn a_new_document_is_added_and_a_known_one_refreshed_keeping_its_name() {
        let first = with_documents(None, &[document("a.md", "## S\n- `x`: one\n")]);
        assert_eq!(first.documents[0].name, "a.md");
        assert_eq!(first.documents[0].upstream, UPSTREAM_UNKNOWN);
        let mut named = first.clone();
        named.documents[0].name = "Spec A".into();
        named.documents[0].upstream = "https://example.org/a".into();
        let second = with_documents(
            Some(&named),
            &[
                document("b.md", "## T\n- `y`: two\n"),
                document("a.md", "## S\n- `x`: one\n- `z`: three\n"),
            ],
        );
        let a = &second.documents[0];
        assert_eq!(
            (a.name.as_str(), a.upstream.as_str()),
            ("Spec A", "https://example.org/a")
        );
        assert_eq!(a.clauses.len(), 2);
        assert_ne!(a.sha256, first.documents[0].sha256);
        assert_eq!(second.documents[1].file, "b.md");
    }

    #[test]
    fn a_clause_keeps_its_freedoms_when_scaffolded_again_and_they_read_back() {
        use crate::scenario::{Dimension, Freedom};
        let text = "## S\n- `x`: one\n- `y`: two\n";
        let mut stated = with_documents(None, &[document("a.md", text)]);
        let mut wording = Freedom::new(Dimension::Wording, "one");
        wording.from = Some("\\(empty\\)".into());
        wording.to = vec![String::new(), "none".into()];
        stated.documents[0].clauses[0].freedoms = Some(vec![wording]);
        stated.documents[0].clauses[1].freedoms = Some(Vec::new());
        let again = with_documents(
            Some(&stated),
            &[document(
                "a.md",
                "## S\n- `x`: one\n- `y`: two\n- `z`: new\n",
            )],
        );
        let clauses = &again.documents[0].clauses;
        assert_eq!(clauses[0].freedoms, stated.documents[0].clauses[0].freedoms);
        assert_eq!(clauses[1].freedoms, Some(Vec::new()));
        assert_eq!(clauses[2].freedoms, None);
        let rendered = render(&again);
        assert!(rendered.contains("freedoms: [] }"), "{rendered}");
        let back: ClauseIndex =
            parse_yaml_str(Path::new("clauses.yaml"), &rendered).expect("parses");
        assert_eq!(back, again);
    }

    #[test]
    fn the_rendered_index_reads_back_as_the_same_index() {
        let index = with_documents(
            None,
            &[
                document(
                    "we\"ird: name.md",
                    "## `read_file`\n1. **Says \"hi\": ** a\n",
                ),
                document("empty.md", "No clauses.\n"),
            ],
        );
        let text = render(&index);
        let back: ClauseIndex = parse_yaml_str(Path::new("clauses.yaml"), &text).expect("parses");
        assert_eq!(back, index);
        assert!(text.contains("    clauses: []\n"), "{text}");
    }
}
