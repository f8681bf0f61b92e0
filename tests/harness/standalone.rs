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
        .stdout(predicate::str::contains(", version 1, built-in)"));
    // The suite's `given.tree` fixtures are built in too.
    lone_copy(dir.path())
        .args(["run", "--suite", "gemini-cli", "--filter", "glob"])
        .assert()
        .success()
        .stdout(predicate::str::is_match(r"gemini-cli: [1-9]\d* PASS, 0 FAIL").expect("regex"))
        .stdout(predicate::str::contains("suite: built-in, version 1)"));
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
            "ikigai: my ikigai fork (53 scenarios, version 1, from {})",
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

/// Exports the built-in boris suite into `dir/mine`, raises its version to 2 and
/// marks "Code is parseable" as arriving in version 2; returns the specs folder.
fn boris_at_version_2(dir: &Path) -> std::path::PathBuf {
    let out = dir.join("mine");
    lone_copy(dir)
        .args(["suites", "export", "--suite", "boris"])
        .arg(&out)
        .assert()
        .success();
    let specs = out.join("specs");
    let suite = specs.join("boris/suite.yaml");
    let text = std::fs::read_to_string(&suite).expect("suite.yaml");
    std::fs::write(&suite, text.replace("\nversion: 1 ", "\nversion: 2 ")).expect("bump");
    let file = specs.join("boris/error-message-format.yaml");
    let text = std::fs::read_to_string(&file).expect("scenario file");
    std::fs::write(
        &file,
        text.replace(
            "  - name: Code is parseable\n",
            "  - name: Code is parseable\n    since: 2\n",
        ),
    )
    .expect("since");
    specs
}

#[test]
fn a_pinned_target_stays_green_across_a_version_bump_and_shows_what_is_new() {
    let dir = tempfile::tempdir().expect("tempdir");
    let specs = boris_at_version_2(dir.path());
    lone_copy(dir.path())
        .arg("--specs")
        .arg(&specs)
        .args(["list", "--suite", "boris", "--since", "1"])
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "boris: 1 scenarios arrived after version 1 (now at version 2, from",
        ))
        .stdout(predicate::str::contains(
            "  boris::error-message-format::Code is parseable (version 2)",
        ));
    // Of this file's scenarios, the `wrong-code` mutation fails only the new one.
    // Pinned at 1, that failure is NEW and the gate holds.
    let target = |pin: &str| crate::support::target_file(dir.path(), ", --mutate, wrong-code", pin);
    let run = |target: &Path| {
        let mut cmd = lone_copy(dir.path());
        cmd.arg("--specs")
            .arg(&specs)
            .args([
                "run",
                "--suite",
                "boris",
                "--filter",
                "error-message-format::",
                "--target",
            ])
            .arg(target);
        cmd
    };
    run(&target("suites: { boris: 1 }\n"))
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "NEW boris::error-message-format::Code is parseable: arrived in suite version 2, after the version the target pins (1)",
        ))
        .stdout(predicate::str::contains(", 1 NEW (spec"))
        .stdout(predicate::str::contains("version 2, pinned at 1)"));
    // Raised to 2, the same failure fails the gate.
    run(&target("suites: { boris: 2 }\n"))
        .assert()
        .code(1)
        .stdout(predicate::str::contains(
            "FAIL boris::error-message-format::Code is parseable",
        ));
    // A pin above the suite's version is refused.
    run(&target("suites: { boris: 3 }\n"))
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "pins a version the suite does not have (it is at version 2)",
        ));
}

#[test]
fn a_scenario_cannot_arrive_after_its_suite_version() {
    let dir = tempfile::tempdir().expect("tempdir");
    let specs = boris_at_version_2(dir.path());
    let suite = specs.join("boris/suite.yaml");
    let text = std::fs::read_to_string(&suite).expect("suite.yaml");
    std::fs::write(&suite, text.replace("\nversion: 2 ", "\nversion: 1 ")).expect("lower");
    lone_copy(dir.path())
        .arg("--specs")
        .arg(&specs)
        .args(["list", "--suite", "boris"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "scenario `Code is parseable`: `since: 2` is not a version of this suite (1 to its `version: 1`)",
        ));
}
