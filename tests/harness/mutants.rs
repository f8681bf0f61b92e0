//! Mutation testing of the suites (`toolspec mutants`): every deviation in the
//! reference server's catalogue must be caught by its suite, and a deviation no
//! scenario catches is reported as a hole.

use crate::support::{assert_matches_schema, toolspec, MUTANTS_SCHEMA};
use predicates::prelude::*;

/// A survivor is a hole in a suite: close it with a scenario, never by weakening
/// the mutation.
#[test]
fn every_mutation_in_every_catalogue_is_killed_by_its_suite() {
    let output = toolspec()
        .args(["mutants", "--jobs", "2"])
        .output()
        .expect("toolspec runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "some mutation survived:\n{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(!stdout.contains("SURVIVED"), "{stdout}");
    let scored = stdout
        .lines()
        .filter(|l| l.contains("mutations killed (100%)"))
        .count();
    let suites = std::fs::read_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/specs"))
        .expect("specs")
        .filter(|e| {
            e.as_ref()
                .is_ok_and(|e| e.path().join("suite.yaml").is_file())
        })
        .count();
    assert_eq!(scored, suites, "one full score per suite:\n{stdout}");
}

#[test]
fn a_mutation_no_scenario_catches_survives_and_fails_the_command() {
    // The only scenario of this suite is skipped as root, and as non-root it does
    // not check the code's case: either way nothing catches lower-case codes.
    toolspec()
        .args([
            "--specs",
            "tests/data/specs",
            "mutants",
            "--suite",
            "conditions",
            "--mutation",
            "lowercase-code",
        ])
        .assert()
        .code(1)
        .stdout(predicate::str::contains("SURVIVED lowercase-code"))
        .stdout(predicate::str::contains(
            "hole: no scenario catches `lowercase-code`",
        ))
        .stdout(predicate::str::contains(
            "conditions: 0 of 1 mutations killed (0%)",
        ));
}

#[test]
fn an_unknown_mutation_is_refused_with_the_catalogue() {
    toolspec()
        .args(["mutants", "--suite", "boris", "--mutation", "nope"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("has no mutation `nope`"))
        .stderr(predicate::str::contains("drop-code-prefix"));
}

#[test]
fn scores_can_be_written_as_json() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("scores.json");
    toolspec()
        .args([
            "mutants",
            "--suite",
            "boris",
            "--mutation",
            "wrong-code",
            "--json",
        ])
        .arg(&path)
        .assert()
        .success();
    let doc = assert_matches_schema(MUTANTS_SCHEMA, &path);
    let mutant = &doc["suites"][0]["mutants"][0];
    assert_eq!(mutant["name"], "wrong-code");
    assert_eq!(mutant["killed"], true);
    assert!(mutant["killed_by"]
        .as_array()
        .is_some_and(|a| !a.is_empty()));
}
