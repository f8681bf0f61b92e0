//! `toolspec coverage` and `toolspec scaffold` as a user runs them, and clause
//! extraction on the real seed documents (when `../shared/seeds` is present): the ids
//! the suites' `covers:` use must come out exactly.

use std::path::{Path, PathBuf};

use assert_cmd::Command;

use crate::support::toolspec;
use predicates::prelude::*;
use serde_json::Value;

const DATA: &str = "tests/data/coverage";

/// `toolspec --specs tests/data/coverage/repo/specs coverage --suite <suite>`: the
/// suites there name `mini-spec.md`, found in `tests/data/coverage/shared/seeds`.
fn coverage_of(suite: &str) -> Command {
    let mut cmd = toolspec();
    cmd.args([
        "--specs",
        &format!("{DATA}/repo/specs"),
        "coverage",
        "--suite",
        suite,
    ]);
    cmd
}

fn seeds_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join("shared")
        .join("seeds")
}

/// The clauses (id, line) that `toolspec coverage --json` reads out of `document`,
/// checked against a small suite that covers none of them.
fn clauses_of(document: &Path) -> Vec<(String, u64)> {
    let output = coverage_of("complete")
        .arg("--spec")
        .arg(document)
        .arg("--json")
        .output()
        .expect("toolspec runs");
    let report: Value = serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
        panic!(
            "coverage --json is not JSON ({e}):\n{}\n{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        )
    });
    report["suites"][0]["documents"][0]["clauses"]
        .as_array()
        .expect("a clauses array")
        .iter()
        .map(|c| {
            let id = c["id"].as_str().expect("a clause id").to_string();
            (id, c["line"].as_u64().expect("a clause line"))
        })
        .collect()
}

/// The clause ids of the seed whose file name starts with `prefix`, or None (with a
/// note) when the seeds are not on this machine.
fn seed_ids(prefix: &str) -> Option<Vec<String>> {
    let Some(path) = seed_path(prefix) else {
        eprintln!(
            "note: {} is missing; seed extraction not checked",
            seeds_dir().display()
        );
        return None;
    };
    Some(clauses_of(&path).into_iter().map(|(id, _)| id).collect())
}

fn expand(groups: &[(&str, &[&str])]) -> Vec<String> {
    groups
        .iter()
        .flat_map(|(section, names)| {
            names.iter().map(move |n| {
                if section.is_empty() {
                    n.to_string()
                } else {
                    format!("{section}/{n}")
                }
            })
        })
        .collect()
}

fn assert_same(mut got: Vec<String>, mut want: Vec<String>) {
    let count = got.len();
    got.sort();
    got.dedup();
    assert_eq!(got.len(), count, "an id repeats");
    want.sort();
    assert_eq!(got, want);
}

#[test]
fn seed_000_openspec_requirements_and_scenarios() {
    let Some(ids) = seed_ids("000_") else { return };
    let want = expand(&[
        (
            "error-message-format",
            &["error-contains-code-prefix", "code-is-parseable"],
        ),
        (
            "error-codes-are-string-constants",
            &["toolerr-signature", "missing-code-causes-compile-error"],
        ),
        (
            "cross-tool-error-codes",
            &[
                "invalid-input-on-empty-required-parameter",
                "path-not-found-on-missing-file",
                "access-denied-on-scoping-violation",
                "file-too-large-on-size-limit",
                "io-error-on-filesystem-failure",
            ],
        ),
        (
            "bash-tool-error-codes",
            &[
                "empty-command",
                "task-limit-exceeded",
                "unknown-task-id",
                "subprocess-start-failure",
            ],
        ),
        (
            "str-replace-tool-error-codes",
            &["string-not-found", "ambiguous-match"],
        ),
        (
            "grep-tool-error-codes",
            &["invalid-regex", "invalid-output-mode"],
        ),
        (
            "glob-tool-error-codes",
            &["invalid-glob-pattern", "invalid-type-filter"],
        ),
        (
            "error-messages-aid-llm-self-correction",
            &[
                "message-includes-the-path",
                "message-suggests-correction",
                "io-error-wraps-context",
            ],
        ),
        (
            "non-zero-bash-exit-codes-are-not-errors",
            &["command-exits-with-code-1"],
        ),
    ]);
    assert_eq!(want.len(), 23);
    assert_same(ids, want);
}

#[test]
fn seed_001_design_rationale_has_no_clauses() {
    let Some(seed) = seed_path("001_") else {
        eprintln!("note: seeds missing; seed 001 not checked");
        return;
    };
    coverage_of("complete")
        .arg("--spec")
        .arg(&seed)
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "no clauses found in this document",
        ));
}

#[test]
fn seed_002_numbered_items_under_tool_headings() {
    let Some(ids) = seed_ids("002_") else { return };
    let want = expand(&[
        (
            "list-directory",
            &[
                "successful-listing",
                "non-existent-directory",
                "path-is-a-file",
                "ignored-files",
            ],
        ),
        (
            "read-file",
            &[
                "successful-read",
                "non-existent-file",
                "path-is-a-directory",
            ],
        ),
        (
            "write-file",
            &[
                "new-file-creation",
                "file-overwrite",
                "path-is-a-directory",
                "non-existent-directory-in-path",
            ],
        ),
        (
            "replace",
            &[
                "successful-replacement",
                "incorrect-number-of-occurrences",
                "non-existent-file",
                "string-not-found",
            ],
        ),
        (
            "run-shell-command",
            &[
                "successful-command",
                "command-with-error",
                "piped-command",
                "command-in-directory",
                "forbidden-syntax",
            ],
        ),
        (
            "search-file-content",
            &[
                "successful-search-with-matches",
                "successful-search-with-no-matches",
                "non-existent-directory",
            ],
        ),
        (
            "glob",
            &[
                "successful-glob-with-matches",
                "successful-glob-with-no-matches",
                "non-existent-directory",
            ],
        ),
    ]);
    assert_eq!(want.len(), 26);
    assert_same(ids, want);
}

#[test]
fn seed_003_one_clause_per_code_row() {
    let Some(ids) = seed_ids("003_") else { return };
    let want = expand(&[(
        "",
        &[
            "invalid-input",
            "not-found",
            "not-a-file",
            "is-binary",
            "no-match",
            "ambiguous-match",
            "patch-failed",
            "timeout",
            "output-limit",
            "too-large",
            "path-escape",
            "io-error",
            "internal",
        ],
    )]);
    assert_eq!(want.len(), 13);
    assert_same(ids, want);
}

#[test]
fn seed_004_fields_rationale_and_example_sections() {
    let Some(ids) = seed_ids("004_") else { return };
    let want = expand(&[
        ("glob", &["output", "count"]),
        ("file-read", &["output"]),
        ("grep", &["output", "count"]),
        ("file-write", &["output", "bytes"]),
        ("bash", &["output", "exit-code"]),
        (
            "design-rationale",
            &[
                "consistent-envelope",
                "tool-specific-data",
                "human-readable-errors",
                "bash-distinction",
            ],
        ),
        ("", &["success", "error", "error-examples"]),
    ]);
    assert_eq!(want.len(), 16);
    assert_same(ids, want);
}

/// The path of the seed whose name starts with `prefix`, when the seeds are here.
fn seed_path(prefix: &str) -> Option<PathBuf> {
    std::fs::read_dir(seeds_dir())
        .ok()?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .find(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with(prefix))
        })
}

#[test]
fn boris_covers_every_clause_of_seed_000() {
    let Some(seed) = seed_path("000_") else {
        eprintln!("note: seeds missing; boris coverage not checked");
        return;
    };
    let output = toolspec()
        .args(["coverage", "--suite", "boris", "--spec"])
        .arg(&seed)
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "boris: 23 clauses, 23 covered, 0 uncovered, 0 unknown covers",
        ))
        .get_output()
        .stdout
        .clone();
    let stdout = String::from_utf8_lossy(&output);
    let clauses = clauses_of(&seed);
    assert_eq!(clauses.len(), 23);
    for (id, line) in clauses {
        assert!(
            stdout.contains(&format!("covered   {id} (line {line})")),
            "{id} not listed as covered:\n{stdout}"
        );
    }
    assert!(
        stdout.contains("              boris::error-message-format::Error contains code prefix\n")
    );
    // The success formats seed 000 is silent on are upstream topics, not unknown covers.
    assert!(
        stdout.contains(
            "boris: upstream behaviour beyond the documents (basis: upstream, no clause):\n"
        ),
        "{stdout}"
    );
    assert!(
        stdout.contains("  upstream  upstream/view-directory-tree\n"),
        "{stdout}"
    );
}

#[test]
fn boris_documents_from_suite_yaml_report_the_rationale_as_no_clauses() {
    if seed_path("001_").is_none() {
        return;
    }
    toolspec()
        .args(["coverage", "--suite", "boris"])
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "boris: 001_621815e78ccb4767.txt: no clauses",
        ))
        .stdout(predicate::str::contains(
            "boris: 000_73441da57f37eb96.txt (23 clauses)",
        ));
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
    coverage_of("gappy")
        .assert()
        .code(1)
        .stdout(predicate::str::contains(
            "UNCOVERED error-message-format/code-is-parseable (line 10)\n              | - **WHEN** a client cuts the text",
        ))
        .stdout(predicate::str::contains(
            "gappy: 3 clauses, 2 covered, 1 uncovered, 0 unknown covers",
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
        "--seeds",
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
        serde_json::json!({"clauses": 3, "covered": 2, "uncovered": 1, "unknown_covers": 0, "upstream_topics": 0})
    );
    let clause = &suite["documents"][0]["clauses"][0];
    assert_eq!(
        clause["id"],
        "error-message-format/error-contains-code-prefix"
    );
    assert_eq!(clause["line"], 6);
    assert_eq!(clause["kind"], "scenario");
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
fn a_missing_seeds_folder_is_named() {
    let dir = tempfile::tempdir().expect("tempdir");
    let specs = dir.path().join("repo").join("specs");
    copy_suite(
        &format!("{DATA}/repo/specs/complete"),
        &specs.join("complete"),
    );
    toolspec()
        .arg("--specs")
        .arg(&specs)
        .args(["coverage", "--suite", "complete"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "shared/seeds, which does not exist",
        ))
        .stderr(predicate::str::contains("--spec FILE"));
    // --seeds points elsewhere.
    toolspec()
        .arg("--specs")
        .arg(&specs)
        .args([
            "coverage",
            "--suite",
            "complete",
            "--seeds",
            &format!("{DATA}/shared/seeds"),
        ])
        .assert()
        .success();
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
            "every clause already has a scenario; nothing written",
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
fn scaffolding_seed_000_gives_a_suite_that_loads_and_covers_every_clause() {
    let Some(seed) = seed_path("000_") else {
        eprintln!("note: seeds missing; seed scaffold not checked");
        return;
    };
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("specs").join("fresh");
    toolspec()
        .args(["scaffold", "--spec"])
        .arg(&seed)
        .arg("--out")
        .arg(&out)
        .assert()
        .success()
        .stdout(predicate::str::contains("suite.yaml (a suite skeleton"))
        .stdout(predicate::str::contains(
            "error-message-format.yaml (2 scenarios)",
        ))
        .stdout(predicate::str::contains("scaffolded 23 clauses"));
    let specs = dir.path().join("specs");
    let listed = toolspec()
        .arg("--specs")
        .arg(&specs)
        .args(["list", "--suite", "fresh"])
        .assert()
        .success()
        .stdout(
            predicate::str::starts_with("fresh: ")
                .and(predicate::str::contains("(23 scenarios, version 1, from ")),
        )
        .get_output()
        .stdout
        .clone();
    let listed = String::from_utf8_lossy(&listed);
    let ids: Vec<&str> = listed.lines().skip(1).map(str::trim).collect();
    assert_eq!(ids.len(), 23, "{listed}");
    assert!(
        ids.iter().all(|id| id.contains("::TODO: ")),
        "every scaffolded name starts with TODO: \n{listed}"
    );
    toolspec()
        .arg("--specs")
        .arg(&specs)
        .args(["coverage", "--suite", "fresh", "--spec"])
        .arg(&seed)
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "fresh: 23 clauses, 23 covered, 0 uncovered, 0 unknown covers",
        ));
}
