//! How long each scenario took against each target last time, kept between runs
//! in `scenario-durations.json` in toolspec's cache folder
//! ([`super::cache_folder`]), so the next run can start the slow ones first
//! ([`super::schedule`]). A cache: it changes only when scenarios start, never a
//! verdict or the order reports are printed in.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use super::cache_folder::cache_file_here;
use super::durations_file::{self, Measured};
use super::parallel::Planned;

/// The file's name in the cache folder.
pub(crate) const FILE_NAME: &str = "scenario-durations.json";

/// The shape of the file; a file of another version is read as empty. Version 2
/// stamps every time with the run that measured it, so that the file stays small.
const VERSION: u64 = 2;

/// The most times the file keeps. Scenario ids come and go (a suite in a
/// temporary folder, a renamed scenario) and target names with them (a server
/// given by a temporary path), so without a bound the file, which every run reads
/// and writes whole, grows for ever: the times of the runs longest ago go first.
/// Four targets of every built-in scenario fit.
const MOST_KEPT: usize = 2_000;

/// The durations a run of `toolspec run` reads from the cache folder as it starts
/// and saves there, with its own, as it ends.
pub(crate) struct KeptDurations {
    /// The file in the cache folder; none when there is no cache folder.
    file: Option<PathBuf>,
    durations: Durations,
}

impl KeptDurations {
    /// Last run's durations, from the cache folder (none when there is none).
    pub(crate) fn load() -> KeptDurations {
        let file = cache_file_here(FILE_NAME);
        let durations = file.as_deref().map(Durations::load).unwrap_or_default();
        KeptDurations { file, durations }
    }

    /// How long each scenario of `work` took last time against its target.
    pub(crate) fn expected(&self, work: &[Planned<'_>]) -> Vec<Option<Duration>> {
        work.iter()
            .map(|p| {
                self.durations
                    .of(&p.target.name, &p.suite.scenario_id(p.file, p.scenario))
            })
            .collect()
    }

    /// Sets the scenario `id`'s time against `target` to `took`.
    pub(crate) fn record(&mut self, target: &str, id: &str, took: Duration) {
        self.durations.record(target, id, took);
    }

    /// Saves the durations for the next run. A cache: a run that cannot keep it
    /// only starts the next one slower, so a failure is no error.
    pub(crate) fn save(self) {
        if let Some(file) = &self.file {
            let _ = self.durations.save(file);
        }
    }
}

/// Per target name, per scenario id, the wall time of its last run in
/// milliseconds.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Durations {
    by_target: BTreeMap<String, BTreeMap<String, Measured>>,
    /// The newest run's stamp: the greatest of the times', since the times of
    /// the newest run are never dropped.
    newest_run: u64,
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
    /// left out (`durations_file`).
    fn parse(text: &str) -> Durations {
        let Some(by_target) = durations_file::parse(text, VERSION) else {
            return Durations::default();
        };
        let newest_run = by_target
            .values()
            .flat_map(|times| times.values().map(|m| m.run))
            .max()
            .unwrap_or(0);
        Durations {
            by_target,
            newest_run,
        }
    }

    /// How long scenario `id` took against `target` last time.
    pub(crate) fn of(&self, target: &str, id: &str) -> Option<Duration> {
        self.by_target
            .get(target)
            .and_then(|times| times.get(id))
            .map(|m| Duration::from_millis(m.ms))
    }

    pub(crate) fn record(&mut self, target: &str, id: &str, took: Duration) {
        let ms = u64::try_from(took.as_millis()).unwrap_or(u64::MAX);
        self.by_target
            .entry(target.to_string())
            .or_default()
            .insert(id.to_string(), Measured { ms, run: 0 });
    }

    /// Writes these durations over those in `path`, keeping what it holds of
    /// other targets and scenarios, up to [`MOST_KEPT`] times in all. Taken by
    /// value, so the times move into what is written instead of being copied.
    pub(crate) fn save(self, path: &Path) -> std::io::Result<()> {
        let mut merged = Durations::load(path);
        merged.newest_run += 1;
        let run = merged.newest_run;
        for (target, times) in self.by_target {
            merged.by_target.entry(target).or_default().extend(
                times
                    .into_iter()
                    .map(|(id, m)| (id, Measured { ms: m.ms, run })),
            );
        }
        merged.keep_the_newest(MOST_KEPT);
        durations_file::write(path, &merged.by_target, VERSION)
    }

    /// Drops the times of the oldest runs until at most `most` are left, but
    /// never one of the newest run.
    fn keep_the_newest(&mut self, most: usize) {
        let mut stamps: Vec<u64> = self
            .by_target
            .values()
            .flat_map(|times| times.values().map(|m| m.run))
            .collect();
        if stamps.len() <= most {
            return;
        }
        stamps.sort_unstable_by(|a, b| b.cmp(a));
        // The run of the last time that fits: its times stay if all of them fit
        // (or it is the newest run), else they go too.
        let boundary = stamps[most - 1];
        let all_fit = stamps.iter().filter(|&&r| r >= boundary).count() <= most;
        let kept_from = if all_fit || boundary == self.newest_run {
            boundary
        } else {
            boundary + 1
        };
        for times in self.by_target.values_mut() {
            times.retain(|_, m| m.run >= kept_from);
        }
        self.by_target.retain(|_, times| !times.is_empty());
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
        for text in [
            "",
            "{not json",
            "[1]",
            r#"{"version": 7, "targets": {}}"#,
            r#"{"version": 1, "targets": {"r": {"a": 5}}}"#,
        ] {
            assert_eq!(Durations::parse(text), Durations::default(), "{text:?}");
        }
        let mixed = Durations::parse(
            r#"{"version": 2, "targets": {"r": {"a": [5, 4], "b": "x", "c": [-1, 4], "d": [7]}, "s": 3}}"#,
        );
        assert_eq!(mixed.of("r", "a"), Some(Duration::from_millis(5)));
        assert_eq!(mixed.of("r", "b"), None);
        assert_eq!(mixed.of("r", "c"), None);
        assert_eq!(mixed.of("r", "d"), None);
    }

    #[test]
    fn the_times_of_the_oldest_runs_go_first_once_the_file_is_full() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join(FILE_NAME);
        let run = |target: &str, ids: std::ops::Range<usize>| {
            let mut now = Durations::default();
            for i in ids {
                now.record(target, &format!("s{i}"), Duration::from_millis(i as u64));
            }
            now.save(&path).expect("saved");
        };
        // Three runs of other targets fill the file to the bound.
        run("old", 0..MOST_KEPT / 2);
        run("older-still", 0..10);
        run("newer", 0..MOST_KEPT / 2 - 10);
        let full = Durations::load(&path);
        assert_eq!(full.of("old", "s0"), Some(Duration::from_millis(0)));
        // A fourth run: the first run's times go, whole, and nothing newer.
        run("now", 0..20);
        let read = Durations::load(&path);
        assert_eq!(read.of("old", "s0"), None);
        assert_eq!(read.of("old", "s7"), None);
        assert_eq!(read.of("older-still", "s3"), Some(Duration::from_millis(3)));
        assert_eq!(read.of("newer", "s5"), Some(Duration::from_millis(5)));
        assert_eq!(read.of("now", "s19"), Some(Duration::from_millis(19)));
        // One run larger than the bound keeps every time it measured.
        run("huge", 0..MOST_KEPT + 5);
        let read = Durations::load(&path);
        assert_eq!(read.of("huge", "s0"), Some(Duration::from_millis(0)));
        assert_eq!(
            read.of("huge", &format!("s{}", MOST_KEPT + 4)),
            Some(Duration::from_millis((MOST_KEPT + 4) as u64))
        );
        assert_eq!(read.of("now", "s19"), None);
    }
}
