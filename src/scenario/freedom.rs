//! What a clause's document leaves open (`freedoms:` in `clauses.yaml`): each a
//! dimension along which a right answer may differ from the reference server's,
//! with the document's own words that leave it open.
//!
//! A spec-level verdict promises every implementer that a right answer passes.
//! Stating the freedoms as data lets `toolspec mutants` derive the conforming
//! answers along each of them and prove that no `basis: spec` scenario fails one
//! (SibylFS's model: the oracle is a set of allowed outcomes, not one outcome).

use serde::{Deserialize, Serialize};

/// A dimension a document leaves open. Each has a fixed way of deriving other
/// right answers from one (`proof::freedoms`), so a new one is a code change.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum Dimension {
    /// The order of the items of a listing.
    ItemOrder,
    /// The words of a message whose code or opening alone is fixed.
    MessageWording,
    /// Whether a path is written relative to the root or absolute.
    PathForm,
    /// The padding and layout of line numbers.
    LineNumbers,
    /// Fields of a JSON object beyond those the document names.
    ExtraField,
    /// An optional flag absent rather than `false`.
    FlagAbsent,
    /// A word the document does not give (an empty value's, the root's).
    Wording,
    /// Whether the text ends in a newline.
    FinalNewline,
}

impl Dimension {
    /// The name written in `open:`.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Dimension::ItemOrder => "item-order",
            Dimension::MessageWording => "message-wording",
            Dimension::PathForm => "path-form",
            Dimension::LineNumbers => "line-numbers",
            Dimension::ExtraField => "extra-field",
            Dimension::FlagAbsent => "flag-absent",
            Dimension::Wording => "wording",
            Dimension::FinalNewline => "final-newline",
        }
    }
}

/// One freedom of a clause: the dimension, the words that leave it open, and
/// what narrows it where a dimension needs that.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Freedom {
    pub open: Dimension,
    /// The document's words that leave it open, verbatim but for whitespace
    /// (`coverage --documents` checks they are still there).
    pub words: String,
    /// `item-order`: a regex a line must match to be an item (default: every
    /// non-empty line); `path-form`: the lines whose paths may take the other
    /// form (default: every line).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub items: Option<String>,
    /// `message-wording`: a regex for the opening the document fixes, kept.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub keep: Option<String>,
    /// `message-wording` of a JSON text (default `message`), `flag-absent`: the
    /// key; `item-order`: a JSON string whose lines are the items.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub field: Option<String>,
    /// `extra-field`, `flag-absent`, and `item-order` or `message-wording` with
    /// `field`: a JSON pointer to the object (default the text's top object).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub at: Option<String>,
    /// `wording`: a regex for the word.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from: Option<String>,
    /// `wording`: the other words it may be.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub to: Vec<String>,
}

impl Freedom {
    /// A freedom along `open` with the document's `words` and no parameters
    /// (the tests' way to write one; files give them in YAML).
    #[cfg(test)]
    pub(crate) fn new(open: Dimension, words: impl Into<String>) -> Freedom {
        Freedom {
            open,
            words: words.into(),
            items: None,
            keep: None,
            field: None,
            at: None,
            from: None,
            to: Vec::new(),
        }
    }

    /// What this freedom's fields cannot say by their shape: a regex that does
    /// not parse, a parameter its dimension does not take, or one it needs.
    pub(crate) fn problem(&self) -> Option<String> {
        let dimension = self.open;
        let given = [
            (
                "items",
                self.items.is_some(),
                matches!(dimension, Dimension::ItemOrder | Dimension::PathForm),
            ),
            (
                "keep",
                self.keep.is_some(),
                dimension == Dimension::MessageWording,
            ),
            (
                "field",
                self.field.is_some(),
                matches!(
                    dimension,
                    Dimension::ItemOrder | Dimension::MessageWording | Dimension::FlagAbsent
                ),
            ),
            (
                "at",
                self.at.is_some(),
                matches!(
                    dimension,
                    Dimension::ItemOrder
                        | Dimension::MessageWording
                        | Dimension::ExtraField
                        | Dimension::FlagAbsent
                ),
            ),
            ("from", self.from.is_some(), dimension == Dimension::Wording),
            ("to", !self.to.is_empty(), dimension == Dimension::Wording),
        ];
        if let Some((key, _, _)) = given.iter().find(|(_, set, takes)| *set && !*takes) {
            return Some(format!("`open: {}` takes no `{key}`", dimension.name()));
        }
        if self.words.trim().is_empty() {
            return Some(format!(
                "`open: {}` has empty `words`; quote the document's words that leave it open",
                dimension.name()
            ));
        }
        match dimension {
            Dimension::Wording if self.from.is_none() || self.to.is_empty() => {
                return Some(
                    "`open: wording` needs `from` (a regex) and `to` (the other words)".into(),
                )
            }
            Dimension::FlagAbsent if self.field.is_none() => {
                return Some("`open: flag-absent` needs `field` (the flag's key)".into())
            }
            _ => {}
        }
        for (key, regex) in [
            ("items", &self.items),
            ("keep", &self.keep),
            ("from", &self.from),
        ] {
            if let Some(Err(e)) = regex.as_deref().map(regex::Regex::new) {
                return Some(format!("`{key}` is not a regex: {e}"));
            }
        }
        if let Some(at) = &self.at {
            if !(at.is_empty() || at.starts_with('/')) {
                return Some(format!(
                    "`at: {at}` is not a JSON pointer (it starts with `/`)"
                ));
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn freedom(open: Dimension) -> Freedom {
        Freedom::new(open, "a list")
    }

    #[test]
    fn a_parameter_its_dimension_does_not_take_or_needs_is_named() {
        let mut f = freedom(Dimension::PathForm);
        f.keep = Some("x".into());
        assert_eq!(
            f.problem().as_deref(),
            Some("`open: path-form` takes no `keep`")
        );
        let f = freedom(Dimension::Wording);
        assert!(f.problem().is_some_and(|p| p.contains("needs `from`")));
        let mut f = freedom(Dimension::ItemOrder);
        f.items = Some("(".into());
        assert!(f
            .problem()
            .is_some_and(|p| p.starts_with("`items` is not a regex")));
        let mut f = freedom(Dimension::ItemOrder);
        f.items = Some("^x".into());
        assert_eq!(f.problem(), None);
    }
}
