//! The scenarios that killed each mutation last time, kept between runs so that
//! the next run tries them first: a mutation is usually killed by the same
//! scenario again, and then it costs one scenario instead of a search.
//!
//! The hints are a cache, not data: they only change the order scenarios are
//! tried in, never a score, so a missing, unreadable or malformed file is an
//! empty one, and a hint naming a scenario that no longer exists is passed over.
//! They live in `mutants-killers.json` in toolspec's cache folder
//! ([`crate::execute::cache_folder`]).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use crate::execute::cache_folder::{cache_file, write_json};

/// The file's name in the cache folder.
const FILE_NAME: &str = "mutants-killers.json";

/// The shape of the file; a file of another version is read as empty.
const VERSION: u64 = 1;

/// Per suite, per mutation, the ids of the scenarios that killed it last time.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Killers {
    by_suite: BTreeMap<String, BTreeMap<String, Vec<String>>>,
}

impl Killers {
    /// The killers recorded in `path`; none when it is absent or unreadable.
    pub(crate) fn load(path: &Path) -> Killers {
        std::fs::read_to_string(path)
            .ok()
            .map(|text| Killers::parse(&text))
            .unwrap_or_default()
    }

    /// The killers in a file's text; anything not of the expected shape is left out.
    fn parse(text: &str) -> Killers {
        let Ok(doc) = serde_json::from_str::<Value>(text) else {
            return Killers::default();
        };
        if doc["version"].as_u64() != Some(VERSION) {
            return Killers::default();
        }
        let mut by_suite = BTreeMap::new();
        for (suite, mutations) in doc["suites"].as_object().into_iter().flatten() {
            let mut by_mutation = BTreeMap::new();
            for (mutation, ids) in mutations.as_object().into_iter().flatten() {
                let ids: Vec<String> = ids
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(|id| id.as_str().map(str::to_string))
                    .collect();
                if !ids.is_empty() {
                    by_mutation.insert(mutation.clone(), ids);
                }
            }
            by_suite.insert(suite.clone(), by_mutation);
        }
        Killers { by_suite }
    }

    /// The scenarios that killed `mutation` of `suite` last time, best first.
    pub(crate) fn of(&self, suite: &str, mutation: &str) -> &[String] {
        self.by_suite
            .get(suite)
            .and_then(|m| m.get(mutation))
            .map_or(&[], Vec::as_slice)
    }

    /// Records what killed `mutation` of `suite` this time; nothing (a survivor)
    /// forgets what killed it before, when saved.
    pub(crate) fn record(&mut self, suite: &str, mutation: &str, killers: Vec<String>) {
        self.by_suite
            .entry(suite.to_string())
            .or_default()
            .insert(mutation.to_string(), killers);
    }

    /// Writes these killers to `path` over those already there (another run may
    /// have scored other suites or mutations meanwhile), through a temporary file
    /// renamed into place, so a reader never sees half a file.
    pub(crate) fn save(&self, path: &Path) -> std::io::Result<()> {
        let mut merged = Killers::load(path);
        for (suite, by_mutation) in &self.by_suite {
            let into = merged.by_suite.entry(suite.clone()).or_default();
            for (mutation, ids) in by_mutation {
                if ids.is_empty() {
                    into.remove(mutation);
                } else {
                    into.insert(mutation.clone(), ids.clone());
                }
            }
        }
        write_json(
            path,
            &json!({ "version": VERSION, "suites": merged.by_suite }),
        )
    }
}

/// Where the killers are kept, as the environment `var` reads names the cache
/// folder.
pub(crate) fn file_path(var: impl Fn(&str) -> Option<String>) -> Option<PathBuf> {
    cache_file(var, FILE_NAME)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(names: &[&str]) -> Vec<String> {
        names.iter().map(|n| n.to_string()).collect()
    }

    #[test]
    fn killers_survive_a_save_and_a_load() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("deeper").join(FILE_NAME);
        let mut killers = Killers::default();
        killers.record("boris", "wrong-code", ids(&["boris::a::b"]));
        killers.save(&path).expect("saved");
        assert_eq!(
            Killers::load(&path).of("boris", "wrong-code"),
            ["boris::a::b"]
        );
        assert!(Killers::load(&path).of("boris", "other").is_empty());
    }

    #[test]
    fn a_save_keeps_what_it_did_not_score_and_forgets_survivors() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join(FILE_NAME);
        let mut earlier = Killers::default();
        earlier.record("ikigai", "m", ids(&["ikigai::x::y"]));
        earlier.record("boris", "not-scored-now", ids(&["boris::x::y"]));
        earlier.record("boris", "survives", ids(&["boris::x::z"]));
        earlier.save(&path).expect("saved");

        let mut now = Killers::default();
        now.record("boris", "wrong-code", ids(&["boris::a::b"]));
        now.record("boris", "survives", Vec::new());
        now.save(&path).expect("saved");

        let read = Killers::load(&path);
        assert_eq!(read.of("ikigai", "m"), ["ikigai::x::y"]);
        assert_eq!(read.of("boris", "wrong-code"), ["boris::a::b"]);
        assert!(read.of("boris", "survives").is_empty());
        assert_eq!(read.of("boris", "not-scored-now"), ["boris::x::y"]);
    }

    #[test]
    fn an_absent_corrupt_or_foreign_file_is_no_hints() {
        let dir = tempfile::tempdir().expect("tempdir");
        assert_eq!(
            Killers::load(&dir.path().join("absent.json")),
            Killers::default()
        );
        for text in [
            "",
            "{not json",
            "[1, 2]",
            r#"{"version": 99, "suites": {"boris": {"m": ["x"]}}}"#,
        ] {
            assert_eq!(Killers::parse(text), Killers::default(), "{text:?}");
        }
        // Entries of the wrong shape are left out, the rest kept.
        let mixed = Killers::parse(
            r#"{"version": 1, "suites": {"boris": {"m": ["a", 3, null], "n": "b", "o": []}, "x": 7}}"#,
        );
        assert_eq!(mixed.of("boris", "m"), ["a"]);
        assert!(mixed.of("boris", "n").is_empty());
        assert!(mixed.of("boris", "o").is_empty());
        // A corrupt file is replaced by a good one on the next save.
        let path = dir.path().join(FILE_NAME);
        std::fs::write(&path, "{not json").expect("written");
        mixed.save(&path).expect("saved");
        assert_eq!(Killers::load(&path).of("boris", "m"), ["a"]);
    }

    #[test]
    fn the_killers_are_kept_in_their_own_file_of_the_cache_folder() {
        let var = |name: &str| (name == "HOME").then(|| "/h".to_string());
        assert_eq!(
            file_path(var),
            Some(PathBuf::from("/h/.cache/toolspec").join(FILE_NAME))
        );
    }
}
