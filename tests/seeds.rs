//! The tests that read the seed documents the suites were written from:
//! `../shared/seeds`, beside the repository. Clause extraction on each real seed (the
//! ids the suites' `covers:` use must come out exactly), boris's coverage of seed 000,
//! every suite's clause index against the documents, and a suite scaffolded from
//! seed 000. The rest of `coverage` and `scaffold` is in `tests/harness/coverage.rs`,
//! on small documents of the repository's own.
//!
//! A `harness = false` binary (libtest-mimic), so that in a clone with nothing beside
//! it each of these is reported `ignored` with the folder it needs, never passed
//! unchecked, and the rest of `cargo test` still runs. CI always has the folder;
//! `.ci/run` sets `TOOLSPEC_REQUIRE_SEEDS=1`, under which a missing folder fails
//! every one of them instead.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use libtest_mimic::{Arguments, Completion, Failed, Trial};
use predicates::prelude::*;
use serde_json::Value;

// The harness's helpers (the `toolspec` command as a user runs it, the repository
// root, the coverage command), shared rather than copied; this binary uses a few.
#[path = "harness/support.rs"]
#[allow(dead_code)]
mod support;
use support::{coverage_of, repo, toolspec};

/// Six tests a core and temporary files on a tmpfs, set as the binary is loaded
/// (`toolspec_reference::test_binary` says why), as in every test binary of the
/// workspace.
#[used]
#[link_section = ".init_array"]
static PREPARE: extern "C" fn() = toolspec_reference::test_binary::prepare;

/// Set (to anything but empty or `0`) where the seeds must be there: a missing
/// folder is then a failure, not a skip.
const REQUIRE: &str = "TOOLSPEC_REQUIRE_SEEDS";

/// Each test of this binary, by the name it is listed under (`coverage::` as when
/// these were in the harness binary, so the same filters find them).
const TESTS: [(&str, fn()); 8] = [
    (
        "coverage::seed_000_openspec_requirements_and_scenarios",
        seed_000_openspec_requirements_and_scenarios,
    ),
    (
        "coverage::seed_001_design_rationale_has_no_clauses",
        seed_001_design_rationale_has_no_clauses,
    ),
    (
        "coverage::seed_002_numbered_items_under_tool_headings",
        seed_002_numbered_items_under_tool_headings,
    ),
    (
        "coverage::seed_003_one_clause_per_code_row",
        seed_003_one_clause_per_code_row,
    ),
    (
        "coverage::seed_004_fields_rationale_and_example_sections",
        seed_004_fields_rationale_and_example_sections,
    ),
    (
        "coverage::boris_covers_every_clause_of_seed_000",
        boris_covers_every_clause_of_seed_000,
    ),
    (
        "coverage::every_suite_clause_index_matches_the_seed_documents",
        every_suite_clause_index_matches_the_seed_documents,
    ),
    (
        "coverage::scaffolding_seed_000_gives_a_suite_that_loads_and_covers_every_clause",
        scaffolding_seed_000_gives_a_suite_that_loads_and_covers_every_clause,
    ),
];

fn main() -> ExitCode {
    let args = Arguments::from_args();
    let dir = seeds();
    let present = dir.is_dir();
    let required = std::env::var(REQUIRE).is_ok_and(|v| !v.is_empty() && v != "0");
    let trials = TESTS
        .iter()
        .map(|&(name, test)| {
            let dir = dir.clone();
            Trial::ignorable_test(name, move || {
                if present {
                    test();
                    Ok(Completion::Completed)
                } else if required {
                    Err(Failed::from(format!(
                        "{} is missing and {REQUIRE} is set: this test reads the seed \
                         documents, so it may not be skipped here",
                        dir.display()
                    )))
                } else {
                    Ok(Completion::ignored_with(format!(
                        "needs the seed documents in {}, which is missing",
                        dir.display()
                    )))
                }
            })
        })
        .collect();
    libtest_mimic::run(&args, trials).exit_code()
}

/// The seed documents, `../shared/seeds` beside the repository (`main` runs a test
/// only when the folder is there).
fn seeds() -> PathBuf {
    repo().join("..").join("shared").join("seeds")
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

/// The clause ids of the seed whose file name starts with `prefix`.
fn seed_ids(prefix: &str) -> Vec<String> {
    clauses_of(&seed_path(prefix))
        .into_iter()
        .map(|(id, _)| id)
        .collect()
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

/// The path of the seed whose name starts with `prefix`.
fn seed_path(prefix: &str) -> PathBuf {
    let dir = seeds();
    std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()))
        .filter_map(Result::ok)
        .map(|e| e.path())
        .find(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with(prefix))
        })
        .unwrap_or_else(|| panic!("no seed named {prefix}* in {}", dir.display()))
}

fn seed_000_openspec_requirements_and_scenarios() {
    let ids = seed_ids("000_");
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

fn seed_001_design_rationale_has_no_clauses() {
    let seed = seed_path("001_");
    coverage_of("complete")
        .arg("--spec")
        .arg(&seed)
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "no clauses found in this document",
        ));
}

fn seed_002_numbered_items_under_tool_headings() {
    let ids = seed_ids("002_");
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

fn seed_003_one_clause_per_code_row() {
    let ids = seed_ids("003_");
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

fn seed_004_fields_rationale_and_example_sections() {
    let ids = seed_ids("004_");
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

fn boris_covers_every_clause_of_seed_000() {
    let seed = seed_path("000_");
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

/// Every suite's clause index against the seeds: each document there, byte for byte
/// the one indexed, with the same clauses. A seed edited without scaffolding the
/// index again fails here (and in CI's `coverage --documents ../shared/seeds`).
fn every_suite_clause_index_matches_the_seed_documents() {
    let output = toolspec()
        .args(["coverage", "--json", "--documents"])
        .arg(seeds())
        .output()
        .expect("toolspec runs");
    let report: Value = serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
        panic!(
            "coverage --json is not JSON ({e}):\n{}",
            String::from_utf8_lossy(&output.stderr)
        )
    });
    let mut documents = 0;
    for suite in report["suites"].as_array().expect("suites") {
        for document in suite["documents"].as_array().expect("documents") {
            documents += 1;
            let name = format!("{} / {}", suite["suite"], document["name"]);
            assert_eq!(document["indexed"], true, "{name}");
            assert_eq!(
                document["changes"],
                serde_json::json!({"indexed_sha256": null, "added": [], "removed": [], "renamed": [], "lost_words": []}),
                "{name}: the seed differs from the suite's clauses.yaml; scaffold the index again"
            );
        }
    }
    assert_eq!(documents, 5, "{report}");
    assert_eq!(output.status.code(), Some(0), "{report}");
}

fn scaffolding_seed_000_gives_a_suite_that_loads_and_covers_every_clause() {
    let seed = seed_path("000_");
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
        .stdout(predicate::str::contains("scaffolded 23 clauses"))
        .stdout(predicate::str::contains(
            "/fresh/clauses.yaml (the clause index: 1 document, 23 clauses; give each \
             document a readable `name` and its `upstream`)",
        ));
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
    // The index it wrote gives coverage without the document, and keeps the name
    // someone gives the document when the document is scaffolded again.
    let index = out.join("clauses.yaml");
    let text = std::fs::read_to_string(&index).expect("clauses.yaml");
    std::fs::write(
        &index,
        text.replace(
            "  - name: \"000_73441da57f37eb96.txt\"",
            "  - name: \"Boris errors\"",
        ),
    )
    .expect("name the document");
    toolspec()
        .arg("--specs")
        .arg(&specs)
        .args(["coverage", "--suite", "fresh"])
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "fresh: Boris errors: 23 clauses\n  upstream: unknown (TODO: where this document is published)\n",
        ));
    toolspec()
        .arg("--specs")
        .arg(&specs)
        .args(["scaffold", "--suite", "fresh", "--spec"])
        .arg(&seed)
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "every clause already has a scenario; no scenario written\n",
        ))
        .stdout(predicate::str::contains(
            "/fresh/clauses.yaml is up to date (1 document, 23 clauses)\n",
        ));
    assert!(std::fs::read_to_string(&index)
        .expect("clauses.yaml")
        .contains("Boris errors"));
}
