//! `toolspec coverage` and `toolspec scaffold` as a user runs them, on small suites
//! and documents of the repository's own (`tests/data/coverage`).
//!
//! The tests that read the real seeds in `../shared/seeds` (clause extraction, each
//! suite's clause index against them, a suite scaffolded from seed 000) are in
//! `tests/seeds.rs`, a binary of their own, so that without that folder they are
//! reported ignored rather than failing or passing unchecked.

use std::path::{Path, PathBuf};

use assert_cmd::Command;

use crate::support::{coverage_of, toolspec, COVERAGE_DATA};
use predicates::prelude::*;

const DATA: &str = COVERAGE_DATA;

#[test]
fn boris_coverage_from_its_index_names_the_documents_and_the_rationale_has_no_clauses() {
    toolspec()
        .args(["coverage", "--suite", "boris"])
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "boris: Boris MCP tool errors, design (seed 001): no clauses\n",
        ))
        .stdout(predicate::str::contains(
            "boris: Boris MCP tool errors, spec (seed 000): 23 clauses\n",
        ))
        .stdout(predicate::str::contains("000_73441da57f37eb96.txt").not());
}

#[test]
fn a_suite_covering_its_document_passes() {
    coverage_of("complete")
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "complete: 3 clauses, 3 covered, 0 uncovered, 0 unknown covers",
        ));
}

#[test]
fn an_uncovered_clause_fails_and_is_named_with_its_text() {
    // From the index alone, the clause is shown by its title...
    coverage_of("gappy")
        .assert()
        .code(1)
        .stdout(predicate::str::contains(
            "UNCOVERED error-message-format/code-is-parseable (line 10)\n              | Code is parseable\n",
        ))
        .stdout(predicate::str::contains(
            "gappy: 3 clauses, 2 covered, 1 uncovered, 0 unknown covers",
        ));
    // ...and with the document read, by the first line of what it says.
    coverage_of("gappy")
        .args(["--documents", &format!("{DATA}/shared/seeds")])
        .assert()
        .code(1)
        .stdout(predicate::str::contains(
            "UNCOVERED error-message-format/code-is-parseable (line 10)\n              | - **WHEN** a client cuts the text",
        ));
}

#[test]
fn an_unknown_covers_fails_naming_the_scenario_and_file() {
    coverage_of("unknown")
        .assert()
        .code(1)
        .stdout(predicate::str::contains(
            "specs/unknown/typo.yaml:5: unknown::typo::Code is parseable again covers \
             `error-message-format/code-is-parsable` (did you mean `error-message-format/code-is-parseable`?)",
        ))
        .stdout(predicate::str::contains(
            "specs/unknown/typo.yaml:11: unknown::typo::Something else covers `grep-tool-error-codes/invalid-regex`\n",
        ))
        .stdout(predicate::str::contains(
            "unknown: 3 clauses, 3 covered, 0 uncovered, 2 unknown covers",
        ));
}

#[test]
fn upstream_topics_are_listed_apart_and_are_not_unknown() {
    coverage_of("beyond")
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "beyond: upstream behaviour beyond the documents (basis: upstream, no clause):\n\
             \x20 upstream  upstream/glob-success\n\
             \x20             beyond::upstream::No match\n\
             \x20 upstream  upstream/view-success\n\
             \x20             beyond::upstream::A file is numbered from 1\n\
             \x20             beyond::upstream::A range is numbered from its start\n",
        ))
        // An upstream scenario that names a clause counts for that clause.
        .stdout(predicate::str::contains(
            "  covered   error-message-format/code-is-parseable (line 10)\n\
             \x20             beyond::error-message-format::Code is parseable\n\
             \x20             beyond::upstream::The code of a missing file, as the program words it\n",
        ))
        .stdout(predicate::str::contains(
            "beyond: 3 clauses, 3 covered, 0 uncovered, 0 unknown covers; \
             2 upstream topics beyond the documents\n",
        ))
        .stdout(predicate::str::contains("unknown covers (").not());
    let output = coverage_of("beyond")
        .arg("--json")
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let json: serde_json::Value = serde_json::from_slice(&output).expect("JSON");
    let suite = &json["suites"][0];
    assert_eq!(suite["summary"]["upstream_topics"], 2);
    assert_eq!(suite["unknown_covers"], serde_json::json!([]));
    assert_eq!(
        suite["upstream_topics"][1],
        serde_json::json!({
            "id": "upstream/view-success",
            "scenarios": [
                "beyond::upstream::A file is numbered from 1",
                "beyond::upstream::A range is numbered from its start"
            ]
        })
    );
}

/// The `beyond` suite, copied into a temporary folder with one more scenario file.
fn beyond_with(extra: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().expect("tempdir");
    let specs = dir.path().join("repo").join("specs");
    copy_suite(&format!("{DATA}/repo/specs/beyond"), &specs.join("beyond"));
    std::fs::write(specs.join("beyond").join("extra.yaml"), extra).expect("write");
    (dir, specs)
}

fn coverage_in(specs: &Path) -> Command {
    let mut cmd = toolspec();
    cmd.arg("--specs").arg(specs).args([
        "coverage",
        "--suite",
        "beyond",
        "--documents",
        &format!("{DATA}/shared/seeds"),
    ]);
    cmd
}

#[test]
fn a_spec_scenario_may_not_cover_upstream_behaviour() {
    let (_dir, specs) = beyond_with(
        "requirement: Success formats\n\
         scenarios:\n\
         \x20 - name: Numbered from 1\n\
         \x20   covers: upstream/view-success\n\
         \x20   when: { tool: view, args: { path: \"{root}/a.txt\" } }\n\
         \x20   then: { text: \"1\\talpha\\n\" }\n",
    );
    coverage_in(&specs)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("extra.yaml:3"))
        .stderr(predicate::str::contains(
            "scenario `Numbered from 1`: `covers: upstream/view-success` names upstream \
             behaviour beyond the spec documents, which only a `basis: upstream` scenario may check",
        ));
}

#[test]
fn an_upstream_topic_is_a_slug() {
    for (covers, ok) in [
        ("upstream/View success", false),
        ("upstream/", false),
        ("upstream/view--success", false),
        ("upstream/view-success-2", true),
    ] {
        let (_dir, specs) = beyond_with(&format!(
            "requirement: Success formats\n\
             scenarios:\n\
             \x20 - name: Numbered from 1\n\
             \x20   covers: \"{covers}\"\n\
             \x20   basis: upstream\n\
             \x20   when: {{ tool: view, args: {{ path: \"{{root}}/a.txt\" }} }}\n\
             \x20   then: {{ text: \"1\\talpha\\n\" }}\n",
        ));
        let assert = coverage_in(&specs).assert();
        if ok {
            assert.success().stdout(predicate::str::contains(
                "upstream  upstream/view-success-2\n",
            ));
        } else {
            assert.code(2).stderr(predicate::str::contains(format!(
                "`covers: {covers}`: the topic after `upstream/` must be lower-case letters"
            )));
        }
    }
}

#[test]
fn json_output_has_the_clauses_their_scenarios_and_a_summary() {
    let output = coverage_of("gappy")
        .arg("--json")
        .assert()
        .code(1)
        .get_output()
        .stdout
        .clone();
    let json: serde_json::Value = serde_json::from_slice(&output).expect("JSON");
    assert_eq!(json["complete"], false);
    let suite = &json["suites"][0];
    assert_eq!(suite["suite"], "gappy");
    assert_eq!(
        suite["summary"],
        serde_json::json!({"clauses": 3, "covered": 2, "uncovered": 1, "unknown_covers": 0, "upstream_topics": 0, "stale_documents": 0})
    );
    let clause = &suite["documents"][0]["clauses"][0];
    assert_eq!(
        clause["id"],
        "error-message-format/error-contains-code-prefix"
    );
    assert_eq!(clause["line"], 6);
    assert_eq!(clause["title"], "Error contains code prefix");
    let document = &suite["documents"][0];
    assert_eq!(document["name"], "Mini spec (test data)");
    assert_eq!(document["file"], "mini-spec.md");
    assert_eq!(document["read_from"], serde_json::Value::Null);
    assert_eq!(document["changes"], serde_json::Value::Null);
    assert_eq!(
        clause["scenarios"],
        serde_json::json!(["gappy::error-message-format::Error contains code prefix"])
    );
    assert_eq!(
        suite["documents"][0]["clauses"][1]["scenarios"],
        serde_json::json!([])
    );
}

#[test]
fn a_suite_without_a_clause_index_or_a_missing_document_is_named() {
    let dir = tempfile::tempdir().expect("tempdir");
    let specs = dir.path().join("repo").join("specs");
    copy_suite(
        &format!("{DATA}/repo/specs/complete"),
        &specs.join("complete"),
    );
    let coverage = |extra: &[&str]| {
        let mut cmd = toolspec();
        cmd.arg("--specs")
            .arg(&specs)
            .args(["coverage", "--suite", "complete"])
            .args(extra);
        cmd
    };
    // The documents folder lacks the document the index names (by its readable name).
    coverage(&["--documents", "tests/data"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "tests/data/mini-spec.md: Mini spec (test data) (`mini-spec.md` in clauses.yaml \
             of suite `complete`) is not in this folder",
        ));
    coverage(&["--documents", "no/such/folder"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "no/such/folder: --documents names a folder that does not exist",
        ));
    // `--seeds` is the older name of `--documents`.
    coverage(&["--seeds", &format!("{DATA}/shared/seeds")])
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "  read from tests/data/coverage/shared/seeds/mini-spec.md: as indexed\n",
        ));
    std::fs::remove_file(specs.join("complete/clauses.yaml")).expect("remove the index");
    coverage(&[])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "suite `complete` has no clause index; `toolspec scaffold --spec FILE --suite \
             complete` writes it",
        ));
    // Given by path, a document is still checked without an index.
    coverage(&["--spec", &format!("{DATA}/shared/seeds/mini-spec.md")])
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "mini-spec.md: not in the suite's clause index\n",
        ));
}

/// The `complete` suite in a temporary folder, and a documents folder beside it
/// holding `mini-spec.md` as `edit` leaves it.
fn documents_edited(edit: impl Fn(&str) -> String) -> (tempfile::TempDir, PathBuf, PathBuf) {
    let dir = tempfile::tempdir().expect("tempdir");
    let specs = dir.path().join("specs");
    copy_suite(
        &format!("{DATA}/repo/specs/complete"),
        &specs.join("complete"),
    );
    let documents = dir.path().join("documents");
    std::fs::create_dir_all(&documents).expect("mkdir");
    let original = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join(DATA)
            .join("shared/seeds/mini-spec.md"),
    )
    .expect("mini-spec.md");
    std::fs::write(documents.join("mini-spec.md"), edit(&original)).expect("write");
    (dir, specs, documents)
}

#[test]
fn a_document_whose_clauses_changed_since_its_index_fails_naming_each_change() {
    let (_dir, specs, documents) = documents_edited(|text| {
        text.replace(
            "#### Scenario: Code is parseable",
            "#### Scenario: Code can be parsed",
        )
        .replace(
            "### Requirement: Bash tool error codes",
            "### Requirement: Shell errors",
        )
        .replace(
            "#### Scenario: Error contains code prefix",
            "#### Scenario: Error contains Code Prefix",
        )
    });
    let stdout = toolspec()
        .arg("--specs")
        .arg(&specs)
        .args(["coverage", "--suite", "complete", "--documents"])
        .arg(&documents)
        .assert()
        .code(1)
        .get_output()
        .stdout
        .clone();
    let stdout = String::from_utf8_lossy(&stdout);
    for line in [
        "complete: Mini spec (test data): 3 clauses\n",
        "  upstream: tests/data/coverage/shared/seeds/mini-spec.md in this repository\n",
        "/documents/mini-spec.md: changed since the clause index was written (sha256 ad59a18b9dbc there, ",
        "  added     error-message-format/code-can-be-parsed (line 10)\n",
        "  removed   error-message-format/code-is-parseable (line 10 then)\n",
        "  renamed   error-message-format/error-contains-code-prefix: title \"Error contains code prefix\" -> \"Error contains Code Prefix\"\n",
        "  renamed   bash-tool-error-codes/empty-command -> shell-errors/empty-command (\"Empty command\")\n",
        "  the clause index is out of date; write it again with `toolspec --specs DIR scaffold --suite complete --spec ",
        "complete: 3 clauses, 1 covered, 2 uncovered, 2 unknown covers; the clause index is out of date for 1 document\n",
    ] {
        assert!(stdout.contains(line), "missing {line:?} in:\n{stdout}");
    }
}

#[test]
fn a_document_with_the_same_clauses_but_other_bytes_is_noted_and_holds() {
    let (_dir, specs, documents) = documents_edited(|text| {
        text.replace(
            "## ADDED Requirements",
            "## ADDED Requirements\n\nA new line of prose.",
        )
    });
    toolspec()
        .arg("--specs")
        .arg(&specs)
        .args(["coverage", "--suite", "complete", "--documents"])
        .arg(&documents)
        .assert()
        .success()
        .stdout(predicate::str::contains("; its clauses are the same\n"))
        .stdout(predicate::str::contains("out of date").not());
}

#[test]
fn a_document_given_by_path_is_matched_by_file_name_or_content() {
    let (_dir, specs, documents) = documents_edited(str::to_string);
    let renamed = documents.join("my copy.md");
    std::fs::rename(documents.join("mini-spec.md"), &renamed).expect("rename");
    toolspec()
        .arg("--specs")
        .arg(&specs)
        .args(["coverage", "--suite", "complete", "--spec"])
        .arg(&renamed)
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "complete: Mini spec (test data): 3 clauses\n",
        ))
        .stdout(predicate::str::contains("my copy.md: as indexed\n"));
}

#[test]
fn a_given_document_without_clauses_is_refused() {
    coverage_of("complete")
        .args(["--spec", &format!("{DATA}/shared/seeds/no-clauses.md")])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("no-clauses.md: no clauses found"));
}

#[test]
fn spec_needs_exactly_one_suite() {
    toolspec()
        .args([
            "coverage",
            "--spec",
            &format!("{DATA}/shared/seeds/mini-spec.md"),
        ])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--spec needs exactly one --suite"));
}

fn copy_suite(from: &str, to: &Path) {
    std::fs::create_dir_all(to).expect("mkdir");
    let from = Path::new(env!("CARGO_MANIFEST_DIR")).join(from);
    for entry in std::fs::read_dir(from).expect("suite folder") {
        let path = entry.expect("entry").path();
        std::fs::copy(&path, to.join(path.file_name().expect("name"))).expect("copy");
    }
}

#[test]
fn scaffold_writes_only_what_a_suite_lacks_and_never_overwrites() {
    let dir = tempfile::tempdir().expect("tempdir");
    let specs = dir.path().join("specs");
    copy_suite(&format!("{DATA}/repo/specs/gappy"), &specs.join("gappy"));
    let mini = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join(DATA)
        .join("shared/seeds/mini-spec.md");
    let scaffold = || {
        let mut cmd = toolspec();
        cmd.arg("--specs")
            .arg(&specs)
            .args(["scaffold", "--suite", "gappy", "--spec"])
            .arg(&mini);
        cmd
    };
    scaffold()
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "error-message-format.scaffold.yaml (1 scenario; ",
        ))
        .stdout(predicate::str::contains("suite.yaml").not());
    let written = std::fs::read_to_string(specs.join("gappy/error-message-format.scaffold.yaml"))
        .expect("scaffold file");
    assert!(
        written.contains("covers: \"error-message-format/code-is-parseable\""),
        "{written}"
    );
    assert!(!written.contains("error-contains-code-prefix"), "{written}");
    // The scaffold loads and covers the clause; the run fails until it is filled in.
    toolspec()
        .arg("--specs")
        .arg(&specs)
        .args(["coverage", "--suite", "gappy", "--spec"])
        .arg(&mini)
        .assert()
        .success();
    toolspec()
        .arg("--specs")
        .arg(&specs)
        .args(["run", "--suite", "gappy", "--filter", "TODO"])
        .assert()
        .code(1)
        .stdout(predicate::str::contains(
            "FAIL gappy::error-message-format.scaffold::TODO: Code is parseable",
        ));
    // Now everything is covered: nothing to write.
    scaffold()
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "every clause already has a scenario; no scenario written",
        ));
    // With both files present and the clause uncovered again, it refuses.
    std::fs::write(
        specs.join("gappy/error-message-format.scaffold.yaml"),
        "requirement: R\nscenarios:\n  - name: n\n    covers: bash-tool-error-codes/empty-command\n    when: { tool: bash, args: { command: \"\" } }\n    then: { is_error: true }\n",
    )
    .expect("write");
    scaffold().assert().code(2).stderr(predicate::str::contains(
        "error-message-format.scaffold.yaml: both",
    ));
}

#[test]
fn scaffold_needs_a_place_to_write() {
    toolspec()
        .args([
            "scaffold",
            "--spec",
            &format!("{DATA}/shared/seeds/mini-spec.md"),
        ])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--suite NAME"));
}

#[test]
fn scaffold_refuses_documents_without_a_clause() {
    toolspec()
        .args(["scaffold", "--out", "unused", "--spec"])
        .arg(format!("{DATA}/shared/seeds/no-clauses.md"))
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "no-clauses.md: no clauses found in this document",
        ));
}
