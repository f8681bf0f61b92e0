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
    opposites: Vec<[Vec<String>; 2]>,
    ignore: Vec<String>,
}

/// Words and names mapped to the group (meaning) they stand for.
#[derive(Debug)]
pub(crate) struct Synonyms {
    /// A word of a tool name or description -> the first word of its group.
    words: BTreeMap<String, String>,
    /// A whole argument name, squashed (no `_`, `-`, case) -> its group's number.
    argument_names: BTreeMap<String, usize>,
    /// Pairs of word sets naming jobs that exclude each other (stop and start).
    opposites: Vec<[BTreeSet<String>; 2]>,
    /// Words that say nothing when two descriptions share them.
    ignore: BTreeSet<String>,
}

/// Why two tools may not be paired: the word of each name that names a job the
/// other's excludes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Opposed {
    /// The word of the first name (`output`).
    pub first: String,
    /// The word of the second name (`stop`).
    pub second: String,
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
        let lower = |list: &[String]| list.iter().map(|w| w.to_lowercase()).collect();
        let opposites = file
            .opposites
            .iter()
            .map(|[one, other]| [lower(one), lower(other)])
            .collect();
        Ok(Synonyms {
            words,
            argument_names,
            opposites,
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

    /// Whether two tool names name jobs that exclude each other: one holds words of
    /// one side of an opposite pair only, the other words of the other side only.
    /// A name with words of both sides, or of neither, opposes nothing.
    pub(crate) fn opposed(&self, first: &str, second: &str) -> Option<Opposed> {
        let first_words = name_words(first);
        let second_words = name_words(second);
        self.opposites.iter().find_map(|[one, other]| {
            let only = |words: &BTreeSet<String>, this: &BTreeSet<String>, that| {
                let found = words.iter().find(|w| this.contains(*w))?;
                words
                    .iter()
                    .all(|w| !BTreeSet::contains(that, w))
                    .then(|| found.clone())
            };
            let pair = |a, b| {
                Some(Opposed {
                    first: only(&first_words, a, b)?,
                    second: only(&second_words, b, a)?,
                })
            };
            pair(one, other).or_else(|| pair(other, one))
        })
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

/// Whether two names are the same words in another spelling: `task_output`,
/// `TaskOutput`, `task-output`.
pub(crate) fn same_words(a: &str, b: &str) -> bool {
    split_words(a) == split_words(b)
}

/// The lower-case words of a tool name, each also without a plural `s`
/// (`KillShells` -> kill, shells, shell).
fn name_words(name: &str) -> BTreeSet<String> {
    let mut words = BTreeSet::new();
    for word in split_words(name) {
        if let Some(single) = word.strip_suffix('s').filter(|s| s.len() > 2) {
            words.insert(single.to_string());
        }
        words.insert(word);
    }
    words
}

/// A name without `_`, `-` or case: `file_path`, `filePath`, `FILE-PATH` -> `filepath`.
pub(crate) fn squash(name: &str) -> String {
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

    #[test]
    fn opposite_jobs_oppose_and_a_name_of_both_or_neither_does_not() {
        let table = Synonyms::builtin().expect("synonyms.yaml loads");
        let opposed = |a: &str, b: &str| {
            table
                .opposed(a, b)
                .map(|o| (o.first, o.second))
                .unwrap_or_default()
        };
        let pair = |a: &str, b: &str| (a.to_string(), b.to_string());
        assert_eq!(opposed("task_output", "TaskStop"), pair("output", "stop"));
        assert_eq!(opposed("TaskStop", "task_output"), pair("stop", "output"));
        assert_eq!(opposed("read_file", "write_file"), pair("read", "write"));
        assert_eq!(
            opposed("create_file", "deleteFile"),
            pair("create", "delete")
        );
        assert_eq!(
            opposed("start_process", "KillShells"),
            pair("start", "kill")
        );
        assert_eq!(table.opposed("read_file", "view"), None);
        assert_eq!(table.opposed("bash", "KillShell"), None);
        assert_eq!(table.opposed("read_write_file", "write_file"), None);
    }
}
