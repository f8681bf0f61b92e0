//! The `toolspec` command line, as a user runs it.

use assert_cmd::Command;
use predicates::prelude::*;

fn toolspec() -> Command {
    let mut cmd = Command::cargo_bin("toolspec").expect("binary");
    cmd.current_dir(env!("CARGO_MANIFEST_DIR"));
    cmd
}

#[test]
fn run_prints_a_summary_and_succeeds_on_the_reference() {
    toolspec()
        .args([
            "run",
            "--suite",
            "boris",
            "--filter",
            "bash-tool-error-codes",
        ])
        .assert()
        .success()
        .stdout(
            predicate::str::is_match(r"boris: \d+ PASS, 0 FAIL, 0 ERROR, 0 SKIP").expect("regex"),
        )
        .stdout(predicate::str::is_match(r"(?m)^\d+ passed, 0 failed, 0 skipped$").expect("regex"));
}

#[test]
fn run_fails_with_a_diff_against_a_deviating_server() {
    toolspec()
        .args([
            "run",
            "--suite",
            "boris",
            "--filter",
            "PATH_NOT_FOUND",
            "--mutate",
            "drop-code-prefix",
        ])
        .assert()
        .code(1)
        .stdout(predicate::str::contains(
            "FAIL boris::cross-tool-error-codes::PATH_NOT_FOUND on missing file",
        ))
        .stdout(predicate::str::contains(
            "does not start with a `[CODE] ` prefix",
        ))
        .stdout(predicate::str::is_match(r"boris: 0 PASS, \d+ FAIL").expect("regex"));
}

#[test]
fn run_against_an_external_server_skips_what_it_cannot_express() {
    // The reference server given as an external command: no settings mapping, so
    // scenarios that need max_file_size, allow or deny are skipped with a reason.
    let exe = assert_cmd::cargo::cargo_bin("toolspec");
    toolspec()
        .args([
            "run",
            "--suite",
            "boris",
            "--filter",
            "FILE_TOO_LARGE",
            "--verbose",
            "--server",
            &format!(
                "{} reference-server --dialect boris --root {{root}}",
                exe.display()
            ),
        ])
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "cannot express setting max_file_size",
        ))
        .stdout(
            predicate::str::is_match(r"boris: 0 PASS, 0 FAIL, 0 ERROR, \d+ SKIP").expect("regex"),
        );
}

#[test]
fn list_names_suites_and_scenarios() {
    toolspec()
        .args(["list", "--suite", "boris"])
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "boris::bash-tool-error-codes::Empty command",
        ));
}

#[test]
fn an_unknown_suite_is_a_clear_error() {
    toolspec()
        .args(["run", "--suite", "nope"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("no suite `nope`"));
}
