//! What several test modules share: the `toolspec` binary, the repository it was
//! built from, a suite loaded from it, and one named scenario run against a target.

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use toolspec::execute::{run_scenario, RunOptions, ScenarioReport};
use toolspec::scenario::{load_suite, Suite};
use toolspec::target::Target;

/// The `toolspec` binary cargo built for these tests.
pub fn exe() -> &'static Path {
    Path::new(env!("CARGO_BIN_EXE_toolspec"))
}

/// The repository root (where `specs/`, `fixtures/` and `tests/data/` are).
pub fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// `toolspec` as a user runs it, from the repository root.
pub fn toolspec() -> Command {
    let mut cmd = Command::cargo_bin("toolspec").expect("binary");
    cmd.current_dir(repo());
    cmd
}

/// The suite in `dir` (relative to the repository root), which must load.
pub fn suite(dir: &str) -> Suite {
    load_suite(&repo().join(dir)).unwrap_or_else(|e| panic!("{dir} does not load: {e:?}"))
}

/// Runs the scenario named `name` (in any file) of `suite` against `target`, with
/// `timeout_ms` as the per-call timeout when given.
pub fn run(suite: &Suite, name: &str, target: &Target, timeout_ms: Option<u64>) -> ScenarioReport {
    let (file, scenario) = suite
        .scenarios()
        .find(|(_, s)| s.name == name)
        .unwrap_or_else(|| panic!("no scenario named {name:?}"));
    let options = RunOptions {
        call_timeout_ms: timeout_ms,
        ..RunOptions::default()
    };
    run_scenario(suite, &file.stem, scenario, target, &options)
}
