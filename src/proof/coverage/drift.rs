//! How a spec document differs from its entry in the suite's clause index: a changed
//! hash, and clauses added, removed or renamed since the index was written.
//!
//! A clause is *renamed* when it keeps its id under a new title, or keeps its title
//! under a new id (its section was renamed, or it moved to another one). Both show a
//! `covers:` author what to follow; anything else is one clause removed and another
//! added. A clause that only moved to another line is not a change: the hash says
//! the document changed, and its clauses are the same.

use serde::Serialize;

use super::spec_document::SpecDocument;
use crate::scenario::{IndexedClause, IndexedDocument};

/// One clause under a new title or a new id.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct Renamed {
    pub from: IndexedClause,
    pub to: IndexedClause,
}

/// A freedom whose quoted words the document no longer has: what leaves the
/// dimension open must be read again.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct LostWords {
    pub clause: String,
    pub open: &'static str,
    pub words: String,
}

/// What changed between an index entry and the document read now.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub(crate) struct IndexDrift {
    /// The index's hash, when the document's differs from it.
    pub indexed_sha256: Option<String>,
    pub added: Vec<IndexedClause>,
    pub removed: Vec<IndexedClause>,
    pub renamed: Vec<Renamed>,
    /// Freedoms of the index whose words are not in the document.
    pub lost_words: Vec<LostWords>,
}

impl IndexDrift {
    /// Compares `document` with its index `entry`.
    pub(crate) fn between(entry: &IndexedDocument, document: &SpecDocument) -> IndexDrift {
        let now = document.indexed_clauses();
        let mut drift = IndexDrift {
            indexed_sha256: (entry.sha256 != document.sha256).then(|| entry.sha256.clone()),
            ..IndexDrift::default()
        };
        let mut gone: Vec<&IndexedClause> = Vec::new();
        for before in &entry.clauses {
            match now.iter().find(|c| c.id == before.id) {
                Some(after) if after.title != before.title => drift.renamed.push(Renamed {
                    from: before.clone(),
                    to: after.clone(),
                }),
                Some(_) => {}
                None => gone.push(before),
            }
        }
        let mut new: Vec<&IndexedClause> = now
            .iter()
            .filter(|c| !entry.clauses.iter().any(|b| b.id == c.id))
            .collect();
        for before in gone {
            match new.iter().position(|c| c.title == before.title) {
                Some(i) => drift.renamed.push(Renamed {
                    from: before.clone(),
                    to: new.remove(i).clone(),
                }),
                None => drift.removed.push(before.clone()),
            }
        }
        drift.added = new.into_iter().cloned().collect();
        for clause in &entry.clauses {
            for freedom in clause.freedoms.iter().flatten() {
                if !document.says(&freedom.words) {
                    drift.lost_words.push(LostWords {
                        clause: clause.id.clone(),
                        open: freedom.open.name(),
                        words: freedom.words.clone(),
                    });
                }
            }
        }
        drift
    }

    /// Whether the document's clauses differ from the index's: the index no longer
    /// describes the document and must be written again.
    pub(crate) fn clauses_changed(&self) -> bool {
        !(self.added.is_empty() && self.removed.is_empty() && self.renamed.is_empty())
    }

    /// Whether the index no longer describes the document: its clauses, or the
    /// words a freedom quotes.
    pub(crate) fn is_stale(&self) -> bool {
        self.clauses_changed() || !self.lost_words.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;

    fn clause(id: &str, title: &str, line: usize) -> IndexedClause {
        IndexedClause {
            id: id.into(),
            title: title.into(),
            line,
            freedoms: None,
        }
    }

    fn entry_for(text: &str) -> IndexedDocument {
        let document = SpecDocument::from_text(Path::new("d.md"), text);
        IndexedDocument {
            name: "D".into(),
            file: "d.md".into(),
            upstream: "nowhere".into(),
            sha256: document.sha256.clone(),
            clauses: document.indexed_clauses(),
        }
    }

    const BEFORE: &str =
        "## Read\n\n1. **Ok:** a\n2. **Missing:** b\n3. **Gone:** c\n\n## Codes\n- `x`: one\n";

    #[test]
    fn the_same_document_has_no_drift() {
        let entry = entry_for(BEFORE);
        let drift =
            IndexDrift::between(&entry, &SpecDocument::from_text(Path::new("d.md"), BEFORE));
        assert_eq!(drift, IndexDrift::default());
        assert!(!drift.clauses_changed());
    }

    #[test]
    fn added_removed_and_both_kinds_of_rename_are_told_apart() {
        let entry = entry_for(BEFORE);
        let after = "## Read\n\n1. **OK:** a\n2. **Fresh:** n\n\n## Errors\n- `x`: one\n\n## Missing\n1. **Missing:** b\n";
        let drift = IndexDrift::between(&entry, &SpecDocument::from_text(Path::new("d.md"), after));
        assert_eq!(drift.indexed_sha256.as_deref(), Some(entry.sha256.as_str()));
        assert_eq!(
            drift.renamed,
            [
                Renamed {
                    from: clause("read/ok", "Ok", 3),
                    to: clause("read/ok", "OK", 3),
                },
                Renamed {
                    from: clause("read/missing", "Missing", 4),
                    to: clause("missing/missing", "Missing", 10),
                },
                Renamed {
                    from: clause("codes/x", "x", 8),
                    to: clause("errors/x", "x", 7),
                },
            ]
        );
        assert_eq!(drift.removed, [clause("read/gone", "Gone", 5)]);
        assert_eq!(drift.added, [clause("read/fresh", "Fresh", 4)]);
        assert!(drift.clauses_changed());
    }

    #[test]
    fn a_freedom_quoting_words_the_document_lost_is_named_and_whitespace_does_not_count() {
        use crate::scenario::{Dimension, Freedom};
        let freedom = |words: &str| Freedom::new(Dimension::ItemOrder, words);
        let mut entry = entry_for(BEFORE);
        entry.clauses[0].freedoms = Some(vec![freedom("Ok:**   a"), freedom("in any order")]);
        let drift =
            IndexDrift::between(&entry, &SpecDocument::from_text(Path::new("d.md"), BEFORE));
        assert_eq!(
            drift.lost_words,
            [LostWords {
                clause: "read/ok".into(),
                open: "item-order",
                words: "in any order".into(),
            }]
        );
        assert!(drift.is_stale() && !drift.clauses_changed());
    }

    #[test]
    fn a_new_title_under_the_same_id_is_a_rename() {
        let entry = entry_for("## A\n- `x`: one\n");
        let mut changed = entry.clone();
        changed.clauses[0].title = "old".into();
        let drift = IndexDrift::between(
            &changed,
            &SpecDocument::from_text(Path::new("d.md"), "## A\n- `x`: one\n"),
        );
        assert_eq!(drift.indexed_sha256, None);
        assert_eq!(drift.renamed.len(), 1);
        assert_eq!(drift.renamed[0].from.title, "old");
        assert_eq!(drift.renamed[0].to.title, "x");
    }

    #[test]
    fn a_changed_text_with_the_same_clauses_changes_only_the_hash() {
        let entry = entry_for(BEFORE);
        let after = format!("Intro.\n\n{BEFORE}");
        let drift =
            IndexDrift::between(&entry, &SpecDocument::from_text(Path::new("d.md"), &after));
        assert!(drift.indexed_sha256.is_some());
        assert!(!drift.clauses_changed());
    }
}
