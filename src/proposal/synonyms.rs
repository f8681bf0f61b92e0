//! The synonym table `toolspec init` matches names with: data in `synonyms.yaml`,
//! compiled in, so a new word is a line of YAML rather than a change of code.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use serde::Deserialize;

use crate::scenario::{parse_yaml_str, LoadError};

/// The table as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct SynonymFile {
    tools: Vec<Vec<String>>,
    arguments: Vec<Vec<String>>,
    ignore: Vec<String>,
}

/// Words and names mapped to the group (meaning) they stand for.
#[derive(Debug)]
pub(crate) struct Synonyms {
    /// A word of a tool name or description -> the first word of its group.
    words: BTreeMap<String, String>,
    /// A whole argument name, squashed (no `_`, `-`, case) -> its group's number.
    argument_names: BTreeMap<String, usize>,
    /// Words that say nothing when two descriptions share them.
    ignore: BTreeSet<String>,
}

impl Synonyms {
    /// The built-in table.
    pub(crate) fn builtin() -> Result<Self, LoadError> {
        Self::parse(include_str!("synonyms.yaml"))
    }

    fn parse(text: &str) -> Result<Self, LoadError> {
        let file: SynonymFile = parse_yaml_str(Path::new("src/proposal/synonyms.yaml"), text)?;
        let mut words = BTreeMap::new();
        for group in &file.tools {
            if let Some(head) = group.first() {
                for word in group {
                    words
                        .entry(word.to_lowercase())
                        .or_insert_with(|| head.to_lowercase());
                }
            }
        }
        let mut argument_names = BTreeMap::new();
        for (at, group) in file.arguments.iter().enumerate() {
            for name in group {
                argument_names.entry(squash(name)).or_insert(at);
            }
        }
        Ok(Synonyms {
            words,
            argument_names,
            ignore: file.ignore.iter().map(|w| w.to_lowercase()).collect(),
        })
    }

    /// The meanings of the words of a name or a text: split at anything not a
    /// letter or digit and at lower-to-upper case changes, each word replaced by
    /// its group's head (a plural `s` dropped when only the singular is known).
    pub(crate) fn meanings(&self, text: &str) -> BTreeSet<String> {
        split_words(text)
            .into_iter()
            .filter(|w| !self.ignore.contains(w))
            .map(|w| self.meaning(&w))
            .collect()
    }

    fn meaning(&self, word: &str) -> String {
        if let Some(head) = self.words.get(word) {
            return head.clone();
        }
        if let Some(single) = word.strip_suffix('s').filter(|s| s.len() > 2) {
            if let Some(head) = self.words.get(single) {
                return head.clone();
            }
            return single.to_string();
        }
        word.to_string()
    }

    /// Whether two argument names are in one group of the table.
    pub(crate) fn same_argument(&self, a: &str, b: &str) -> bool {
        match (
            self.argument_names.get(&squash(a)),
            self.argument_names.get(&squash(b)),
        ) {
            (Some(x), Some(y)) => x == y,
            _ => false,
        }
    }
}

/// A name without `_`, `-` or case: `file_path`, `filePath`, `FILE-PATH` -> `filepath`.
fn squash(name: &str) -> String {
    name.chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect()
}

/// Lower-case words of `text`, split at non-alphanumerics and camelCase humps.
fn split_words(text: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut last_lower = false;
    for c in text.chars() {
        if !c.is_alphanumeric() {
            if !word.is_empty() {
                words.push(std::mem::take(&mut word));
            }
            last_lower = false;
            continue;
        }
        if c.is_uppercase() && last_lower && !word.is_empty() {
            words.push(std::mem::take(&mut word));
        }
        last_lower = c.is_lowercase() || c.is_ascii_digit();
        word.extend(c.to_lowercase());
    }
    if !word.is_empty() {
        words.push(word);
    }
    words
}

#[cfg(test)]
mod tests {
    use super::Synonyms;

    #[test]
    fn the_builtin_table_loads_and_joins_the_usual_names() {
        let table = Synonyms::builtin().expect("synonyms.yaml loads");
        assert_eq!(table.meanings("view"), table.meanings("read"));
        assert_eq!(table.meanings("readFile"), table.meanings("read_file"));
        assert!(table.same_argument("path", "file_path"));
        assert!(table.same_argument("old_str", "oldString"));
        assert!(!table.same_argument("path", "content"));
    }
}
