//! Hostile files never crash the loaders: every scenario and target file in the
//! repository, mutated many times over (bytes changed, cut, repeated, YAML tokens
//! and extreme numbers put in), is loaded, and each one either loads or is refused
//! with an error; none panics.
//!
//! The mutations come from a fixed seed, so a run is repeatable and quick (a few
//! seconds); `TOOLSPEC_FUZZ_ROUNDS` raises the count for a longer run. A panic
//! names the seed, the round and the input, written to a file, to be turned into a
//! test of its own.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};

use toolspec::{load_suite, load_target_file};

use crate::support::repo;

/// Mutated inputs per corpus file in an ordinary `cargo test`.
const ROUNDS: usize = 30;

const SUITE: &str = "suite: fuzz\ntitle: Fuzz\ndialect: bracket-code\nreference:\n  args: [--root, \"{root}\"]\n  settings:\n    max_file_size: [--max-file-size, \"{value}\"]\n";

/// Pieces of YAML and values at the edges that a mutation puts in.
const TOKENS: &[&str] = &[
    "&a ",
    "*a",
    "!!binary ",
    "!!str ",
    "<<: *a\n",
    "---\n",
    "...\n",
    "~",
    "null",
    "{",
    "}",
    "[",
    "]",
    ": ",
    "- ",
    "? ",
    "|\n",
    ">-\n",
    "#",
    "'",
    "\"",
    "\\u0000",
    "\t",
    "\r",
    "\u{feff}",
    "\u{1b}[2J",
    "1e999",
    ".nan",
    "-.inf",
    "0x7fffffff",
    "-9223372036854775809",
    "18446744073709551616",
    "4294967295",
    "size: 18446744073709551615",
    "mtime: -9223372036854775808",
    "repeat: 0",
    "symlink: /etc",
    "dir: true",
    "../",
    "{root}",
    "{",
    "{x}",
    "::",
    "\n  ",
    "\n    - ",
    "é",
    "\u{10ffff}",
    "capture: { x: '(' }",
    "matches: ['(']",
    "any_of: []",
];

/// A small, fixed-seed generator: the same rounds every run.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        // xorshift64*
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }
}

/// One to four mutations of `input`.
fn mutate(input: &[u8], rng: &mut Rng) -> Vec<u8> {
    let mut out = input.to_vec();
    for _ in 0..=rng.below(4) {
        let at = rng.below(out.len() + 1);
        match rng.below(6) {
            0 if at < out.len() => out[at] = b"{}[]:-&*!|>#'\"\n \t\x00\xff"[rng.below(19)],
            1 => {
                let end = (at + rng.below(64)).min(out.len());
                out.drain(at..end);
            }
            2 => {
                let end = (at + rng.below(256)).min(out.len());
                let copy = out[at..end].to_vec();
                let to = rng.below(out.len() + 1);
                out.splice(to..to, copy);
            }
            3 => out.truncate(at),
            _ => {
                let token = TOKENS[rng.below(TOKENS.len())].as_bytes();
                out.splice(at..at, token.iter().copied());
            }
        }
    }
    out
}

/// Every YAML file of the repository's suites and test data: the corpus.
fn corpus() -> Vec<PathBuf> {
    let mut files = Vec::new();
    for top in ["specs", "tests/data/specs", "tests/golden/targets"] {
        collect(&repo().join(top), &mut files);
    }
    files.sort();
    files
}

fn collect(dir: &Path, files: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            collect(&path, files);
        } else if path.extension().is_some_and(|x| x == "yaml") {
            files.push(path);
        }
    }
}

/// Loads `bytes` as a scenario file of a suite and as a target file; a panic is
/// returned as its message.
fn load_both(dir: &Path, bytes: &[u8]) -> Result<(), String> {
    let suite = dir.join("fuzz");
    std::fs::write(suite.join("case.yaml"), bytes).expect("write the case");
    let target = dir.join("target.yaml");
    std::fs::write(&target, bytes).expect("write the target");
    catch_unwind(AssertUnwindSafe(|| {
        let _ = load_suite(&suite);
        let _ = load_target_file(&target);
    }))
    .map_err(|panic| {
        panic
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_default()
    })
}

#[test]
fn mutated_files_never_crash_the_loaders() {
    let rounds = std::env::var("TOOLSPEC_FUZZ_ROUNDS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(ROUNDS);
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::create_dir(dir.path().join("fuzz")).expect("mkdir");
    std::fs::write(dir.path().join("fuzz/suite.yaml"), SUITE).expect("write");
    let corpus = corpus();
    assert!(
        corpus.len() > 20,
        "the corpus is the repository's YAML files"
    );
    let mut tried = 0;
    for (index, path) in corpus.iter().enumerate() {
        let original = std::fs::read(path).expect("read the corpus");
        let seed = 0x9e37_79b9_7f4a_7c15 ^ (index as u64 + 1);
        let mut rng = Rng(seed);
        for round in 0..rounds {
            let input = if round == 0 {
                original.clone()
            } else {
                mutate(&original, &mut rng)
            };
            tried += 1;
            if let Err(panic) = load_both(dir.path(), &input) {
                let kept =
                    std::env::temp_dir().join(format!("toolspec-fuzz-crash-{index}-{round}.yaml"));
                let _ = std::fs::write(&kept, &input);
                panic!(
                    "a loader panicked on {} mutated (seed {seed:#x}, round {round}): {panic}\nthe input is in {}",
                    path.display(),
                    kept.display()
                );
            }
        }
    }
    assert!(tried >= corpus.len() * rounds);
}
