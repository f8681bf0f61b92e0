//! toolspec outside its own repository: the suites built into the binary, `--specs`
//! adding or replacing suites, `suites export`, and a gate that cannot pass on nothing.

use std::path::Path;

use assert_cmd::Command;
use predicates::prelude::*;

use crate::support::exe;

/// A copy of the `toolspec` binary alone in a fresh folder, run from there: nothing
/// of the repository beside it, and a stray empty `specs/` in the current folder.
fn lone_copy(dir: &Path) -> Command {
    let copy = dir.join("bin").join("toolspec");
    std::fs::create_dir_all(copy.parent().expect("parent")).expect("mkdir");
    std::fs::copy(exe(), &copy).expect("copy the binary");
    std::fs::create_dir_all(dir.join("work/specs")).expect("stray specs folder");
    let mut cmd = Command::new(copy);
    cmd.current_dir(dir.join("work"));
    cmd
}

#[test]
fn a_lone_copy_lists_and_runs_the_built_in_suites_from_any_folder() {
    let dir = tempfile::tempdir().expect("tempdir");
    lone_copy(dir.path())
        .arg("list")
        .assert()
        .success()
        .stdout(predicate::str::contains("boris: Boris MCP tool errors ("))
        .stdout(predicate::str::contains("ikigai: "))
        .stdout(predicate::str::contains(", built-in)"));
    // The suite's `given.tree` fixtures are built in too.
    lone_copy(dir.path())
        .args(["run", "--suite", "gemini-cli", "--filter", "glob"])
        .assert()
        .success()
        .stdout(predicate::str::is_match(r"gemini-cli: [1-9]\d* PASS, 0 FAIL").expect("regex"))
        .stdout(predicate::str::contains("suite: built-in)"));
    // The built-in suites written out for a command are gone after it (under a
    // TMPDIR of its own, so other tests running meanwhile do not count).
    let tmp = dir.path().join("tmp");
    std::fs::create_dir_all(&tmp).expect("tmp");
    lone_copy(dir.path())
        .env("TMPDIR", &tmp)
        .args(["list", "--suite", "boris"])
        .assert()
        .success();
    assert_eq!(
        std::fs::read_dir(&tmp).expect("tmp").count(),
        0,
        "the written-out suites are removed"
    );
}

#[test]
fn specs_adds_suites_and_replaces_a_built_in_one_of_the_same_name() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("mine");
    lone_copy(dir.path())
        .args(["suites", "export", "--suite", "ikigai"])
        .arg(&out)
        .assert()
        .success()
        .stdout(predicate::str::contains("run the suites with --specs"));
    let suite = out.join("specs/ikigai/suite.yaml");
    let text = std::fs::read_to_string(&suite).expect("exported suite.yaml");
    std::fs::write(
        &suite,
        text.replace(
            "title: ikigai tool result envelope",
            "title: my ikigai fork",
        ),
    )
    .expect("edit");
    lone_copy(dir.path())
        .arg("--specs")
        .arg(out.join("specs"))
        .arg("list")
        .assert()
        .success()
        .stdout(predicate::str::contains(format!(
            "ikigai: my ikigai fork (53 scenarios, from {})",
            out.join("specs").display()
        )))
        .stdout(predicate::str::contains("boris: Boris MCP tool errors ("));
    // Exporting over an existing suite folder is refused, not overwritten.
    lone_copy(dir.path())
        .args(["suites", "export", "--suite", "ikigai"])
        .arg(&out)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("already exists"));
    assert!(std::fs::read_to_string(&suite)
        .expect("kept")
        .contains("my ikigai fork"));
}

#[test]
fn a_specs_folder_without_suites_is_refused() {
    let dir = tempfile::tempdir().expect("tempdir");
    lone_copy(dir.path())
        .args(["--specs", "specs", "run"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "--specs names a folder with no suite in it",
        ));
}

#[test]
fn a_run_that_selects_nothing_fails_unless_allowed() {
    let dir = tempfile::tempdir().expect("tempdir");
    lone_copy(dir.path())
        .args(["run", "--suite", "boris", "--filter", "no scenario is called this"])
        .assert()
        .code(1)
        .stdout(predicate::str::contains(
            "error: no scenario was selected (--suite boris; --filter \"no scenario is called this\" matches no scenario id)",
        ));
    lone_copy(dir.path())
        .args([
            "run",
            "--suite",
            "boris",
            "--filter",
            "no scenario is called this",
            "--allow-empty",
        ])
        .assert()
        .success();
}
