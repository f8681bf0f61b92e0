//! How long each scenario took against each target last time, kept between runs
//! in `scenario-durations.json` in toolspec's cache folder
//! ([`super::cache_folder`]), so the next run can start the slow ones first
//! ([`super::schedule`]). A cache: it changes only when scenarios start, never a
//! verdict or the order reports are printed in.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

use serde_json::{json, Value};

use super::cache_folder::write_json;

/// The file's name in the cache folder.
pub(crate) const FILE_NAME: &str = "scenario-durations.json";

/// The shape of the file; a file of another version is read as empty.
const VERSION: u64 = 1;

/// Per target name, per scenario id, the wall time of its last run in
/// milliseconds.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Durations {
    by_target: BTreeMap<String, BTreeMap<String, u64>>,
}

impl Durations {
    /// The durations recorded in `path`; none when it is absent or unreadable.
    pub(crate) fn load(path: &Path) -> Durations {
        std::fs::read_to_string(path)
            .ok()
            .map(|text| Durations::parse(&text))
            .unwrap_or_default()
    }

    /// The durations in a file's text; anything not of the expected shape is
    /// left out.
    fn parse(text: &str) -> Durations {
        let Ok(doc) = serde_json::from_str::<Value>(text) else {
            return Durations::default();
        };
        if doc["version"].as_u64() != Some(VERSION) {
            return Durations::default();
        }
        let mut by_target = BTreeMap::new();
        for (target, scenarios) in doc["targets"].as_object().into_iter().flatten() {
            let times: BTreeMap<String, u64> = scenarios
                .as_object()
                .into_iter()
                .flatten()
                .filter_map(|(id, ms)| ms.as_u64().map(|ms| (id.clone(), ms)))
                .collect();
            by_target.insert(target.clone(), times);
        }
        Durations { by_target }
    }

    /// How long scenario `id` took against `target` last time.
    pub(crate) fn of(&self, target: &str, id: &str) -> Option<Duration> {
        self.by_target
            .get(target)
            .and_then(|times| times.get(id))
            .map(|&ms| Duration::from_millis(ms))
    }

    pub(crate) fn record(&mut self, target: &str, id: &str, took: Duration) {
        let ms = u64::try_from(took.as_millis()).unwrap_or(u64::MAX);
        self.by_target
            .entry(target.to_string())
            .or_default()
            .insert(id.to_string(), ms);
    }

    /// Writes these durations over those in `path`, keeping what it holds of
    /// other targets and scenarios.
    pub(crate) fn save(&self, path: &Path) -> std::io::Result<()> {
        let mut merged = Durations::load(path);
        for (target, times) in &self.by_target {
            merged
                .by_target
                .entry(target.clone())
                .or_default()
                .extend(times.iter().map(|(id, ms)| (id.clone(), *ms)));
        }
        write_json(
            path,
            &json!({ "version": VERSION, "targets": merged.by_target }),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_survive_a_save_and_a_load_and_merge_with_what_was_there() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("deeper").join(FILE_NAME);
        let mut first = Durations::default();
        first.record("reference", "boris::a::b", Duration::from_millis(1500));
        first.record("other", "boris::a::b", Duration::from_millis(7));
        first.save(&path).expect("saved");
        let mut second = Durations::default();
        second.record("reference", "boris::a::b", Duration::from_millis(900));
        second.record("reference", "boris::a::c", Duration::from_millis(20));
        second.save(&path).expect("saved");
        let read = Durations::load(&path);
        assert_eq!(
            read.of("reference", "boris::a::b"),
            Some(Duration::from_millis(900))
        );
        assert_eq!(
            read.of("reference", "boris::a::c"),
            Some(Duration::from_millis(20))
        );
        assert_eq!(
            read.of("other", "boris::a::b"),
            Some(Duration::from_millis(7))
        );
        assert_eq!(read.of("other", "boris::a::c"), None);
    }

    #[test]
    fn an_absent_corrupt_or_foreign_file_is_no_durations() {
        let dir = tempfile::tempdir().expect("tempdir");
        assert_eq!(
            Durations::load(&dir.path().join("absent.json")),
            Durations::default()
        );
        for text in ["", "{not json", "[1]", r#"{"version": 7, "targets": {}}"#] {
            assert_eq!(Durations::parse(text), Durations::default(), "{text:?}");
        }
        let mixed = Durations::parse(
            r#"{"version": 1, "targets": {"r": {"a": 5, "b": "x", "c": -1}, "s": 3}}"#,
        );
        assert_eq!(mixed.of("r", "a"), Some(Duration::from_millis(5)));
        assert_eq!(mixed.of("r", "b"), None);
        assert_eq!(mixed.of("r", "c"), None);
    }
}
