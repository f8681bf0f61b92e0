//! The fuzzers' committed corpus (`fuzz/corpus/<target>/`, see docs/fuzzing.md)
//! and the inputs that once crashed them (`fuzz/regressions/<target>/`), replayed on the stable toolchain: every input goes through the same entry point
//! its fuzzer calls (`toolspec::fuzzing`), and none may panic or take long. The
//! fuzzers themselves need nightly; this keeps what they found checked by every
//! `cargo test`.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::support::repo;

/// The most one input may take in an unoptimised test build on a loaded machine;
/// the fuzzers ran with a limit of 10 s in an optimised one, and each input there
/// took milliseconds.
const PER_INPUT: Duration = Duration::from_secs(20);

/// The fewest inputs a corpus may hold: a corpus that went missing must not pass.
const FEWEST_INPUTS: usize = 50;

/// The files in `dir`, sorted.
fn files_in(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()))
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .filter(|path| path.is_file())
        .collect();
    files.sort();
    files
}

/// Replays every file of `fuzz/corpus/<target>/` and of `fuzz/regressions/<target>/`
/// (each input that once crashed, named for what it found) through `entry`, and
/// reports each input that panics or takes longer than [`PER_INPUT`] by its path.
fn replay(target: &str, entry: fn(&[u8])) {
    let dir = repo().join("fuzz/corpus").join(target);
    let mut inputs = files_in(&dir);
    assert!(
        inputs.len() >= FEWEST_INPUTS,
        "{} holds {} inputs; the committed corpus has more",
        dir.display(),
        inputs.len()
    );
    inputs.extend(files_in(&repo().join("fuzz/regressions").join(target)));
    let mut broken = Vec::new();
    for path in &inputs {
        let bytes = std::fs::read(path).expect("read a corpus file");
        let started = Instant::now();
        let outcome = catch_unwind(AssertUnwindSafe(|| entry(&bytes)));
        let took = started.elapsed();
        let name = path.strip_prefix(repo()).unwrap_or(path).display();
        if let Err(panic) = outcome {
            let message = panic
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default();
            broken.push(format!("{name}: panicked: {message}"));
        } else if took > PER_INPUT {
            broken.push(format!("{name}: took {took:?}, more than {PER_INPUT:?}"));
        }
    }
    assert!(
        broken.is_empty(),
        "{} of {} inputs of {target} failed:\n{}",
        broken.len(),
        inputs.len(),
        broken.join("\n")
    );
}

#[test]
fn the_scenario_file_corpus_loads_or_is_refused_without_a_panic() {
    replay("scenario_file", toolspec::fuzzing::scenario_file);
}

#[test]
fn the_target_file_corpus_loads_or_is_refused_without_a_panic() {
    replay("target_file", toolspec::fuzzing::target_file);
}

#[test]
fn the_template_corpus_matches_without_a_panic_and_shows_every_difference() {
    replay("template", toolspec::fuzzing::template);
}
