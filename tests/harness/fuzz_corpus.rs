//! The fuzzers' committed corpus (`fuzz/corpus/<target>/`, see docs/fuzzing.md)
//! and the inputs that once crashed them (`fuzz/regressions/<target>/`), replayed on the stable toolchain: every input goes through the same entry point
//! its fuzzer calls (`toolspec::fuzzing`), and none may panic or take long. The
//! fuzzers themselves need nightly; this keeps what they found checked by every
//! `cargo test`.
//!
//! Each corpus is replayed in [`PARTS`] tests, every input in exactly one of them:
//! libtest runs tests on threads of their own, so a corpus that took 19 s as one
//! test no longer sets the wall time of the whole binary.

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

/// How many tests each target's inputs are shared among. Input `i` (in the sorted
/// list of the corpus followed by the regressions) is replayed by part `i % PARTS`,
/// so the parts hold about as many inputs each and together all of them.
const PARTS: usize = 6;

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

/// Replays part `part` (from 0) of the files of `fuzz/corpus/<target>/` and of
/// `fuzz/regressions/<target>/` (each input that once crashed, named for what it
/// found) through `entry`, and reports each input that panics or takes longer than
/// [`PER_INPUT`] by its path. Every part checks the corpus's size first, so a
/// corpus that went missing fails each of them.
fn replay(target: &str, entry: fn(&[u8]), part: usize) {
    let dir = repo().join("fuzz/corpus").join(target);
    let mut inputs = files_in(&dir);
    assert!(
        inputs.len() >= FEWEST_INPUTS,
        "{} holds {} inputs; the committed corpus has more",
        dir.display(),
        inputs.len()
    );
    inputs.extend(files_in(&repo().join("fuzz/regressions").join(target)));
    let mine: Vec<&PathBuf> = inputs.iter().skip(part).step_by(PARTS).collect();
    let mut broken = Vec::new();
    for path in &mine {
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
        "{} of {} inputs of {target} (part {} of {PARTS}, {} inputs in all) failed:\n{}",
        broken.len(),
        mine.len(),
        part + 1,
        inputs.len(),
        broken.join("\n")
    );
}

/// A module named for what its target's corpus shows, with one test for each of
/// the [`PARTS`] parts of it: each a test libtest runs on a thread of its own and
/// names when it fails. The parts are listed once, in the second arm, and the first
/// checks at compile time that the list has as many as [`PARTS`].
macro_rules! replayed_in_parts {
    ($module:ident, $target:literal, $entry:path, parts: $($part:ident = $index:literal),+) => {
        mod $module {
            use super::{replay, PARTS};

            const _: () = assert!([$($index),+].len() == PARTS, "one test a part");

            $(
                #[test]
                fn $part() {
                    replay($target, $entry, $index);
                }
            )+
        }
    };
    ($module:ident, $target:literal, $entry:path) => {
        replayed_in_parts!($module, $target, $entry, parts:
            part_1 = 0, part_2 = 1, part_3 = 2, part_4 = 3, part_5 = 4, part_6 = 5);
    };
}

replayed_in_parts!(
    the_scenario_file_corpus_loads_or_is_refused_without_a_panic,
    "scenario_file",
    toolspec::fuzzing::scenario_file
);

replayed_in_parts!(
    the_target_file_corpus_loads_or_is_refused_without_a_panic,
    "target_file",
    toolspec::fuzzing::target_file
);

replayed_in_parts!(
    the_template_corpus_matches_without_a_panic_and_shows_every_difference,
    "template",
    toolspec::fuzzing::template
);
