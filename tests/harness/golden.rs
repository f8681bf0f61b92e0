//! The harness's own output, pinned: the console text of `toolspec` and the JSON
//! files it writes are contracts CI gates read, so a change to either must show up
//! here as a reviewed diff.
//!
//! **Console.** Each `tests/golden/*.toml` is one command line (`args`, and
//! `status.code` when it is not 0), with the whole expected stdout in the
//! `.stdout` file beside it and stderr in the `.stderr` one; trycmd runs them all
//! from the repository root. In an expected file `[..]` matches anything within a
//! line, `...` on a line of its own matches any number of lines, `[CWD]` stands for
//! the repository root and `[TMP]` for the temporary folder (fixture roots live
//! there). Only timings (`in [..]s`) and fixture roots are wildcarded, so the rest
//! of the text is pinned byte for byte. Cases that start a server by name
//! (`--server 'toolspec reference-server ...'`, the target files in
//! `tests/golden/targets/`) find the `toolspec` cargo built for these tests first on
//! `PATH`. After an intended change of output, re-bless and review the diff:
//!
//! ```text
//! TRYCMD=overwrite cargo test --test harness golden
//! ```
//!
//! Wildcards survive the overwrite where the rest of their line still matches. A new
//! case: write its `.toml`, create empty `.stdout` and `.stderr` files, bless as
//! above, then put `[..]` for the fixture suffix (`toolspec-[..]`) and the timings.
//! Beyond that, trycmd only turns `\` into `/` and CRLF into LF before comparing.
//!
//! **JSON.** `docs/report.schema.json` and `docs/mutants.schema.json` describe the
//! files `run --json` and `mutants --json` write. Every test that has toolspec write
//! one checks it with [`assert_matches_schema`]; the tests below show the schemas
//! refuse what they must, with a message that says where and why.

use serde_json::{json, Value};

use crate::support::{
    assert_matches_schema, exe, repo, schema_errors, target_file, toolspec, MUTANTS_SCHEMA,
    REPORT_SCHEMA,
};

#[test]
fn console_output_matches_the_golden_files() {
    let bin_dir = exe().parent().expect("the binary's folder");
    let path = std::env::var_os("PATH").unwrap_or_default();
    let path = std::env::join_paths(
        std::iter::once(bin_dir.to_path_buf()).chain(std::env::split_paths(&path)),
    )
    .expect("PATH");
    let tmp = std::env::temp_dir();
    trycmd::TestCases::new()
        .default_bin_path(exe())
        .env("PATH", path.to_string_lossy())
        .env("TOOLSPEC_CACHE_DIR", crate::support::CACHE_DIR)
        .insert_var("[TMP]", tmp.to_string_lossy().into_owned())
        .expect("[TMP]")
        .case("tests/golden/*.toml")
        .run();
}

/// A report with one scenario of each verdict, as `toolspec run --json` writes it.
fn a_valid_report() -> Value {
    let scenario = |id: &str, verdict: &str, standing: &str| {
        json!({
            "id": format!("boris::error-message-format::{id}"),
            "requirement": "Error message format",
            "covers": "error-message-format/prefix",
            "since": 1,
            "pinned": null,
            "basis": "spec",
            "verdict": verdict,
            "standing": standing,
            "baseline": null,
            "attempts": [],
            "escape": null,
            "mismatches": [],
            "error": null,
            "reason": null,
            "call": "view {\"path\":\"/tmp/toolspec-x/missing.txt\"}",
            "answer": "[PATH_NOT_FOUND] /tmp/toolspec-x/missing.txt does not exist",
            "warnings": [],
            "note": null,
            "fixture_root": "/tmp/toolspec-x",
            "position": 0,
            "elapsed_ms": 12,
        })
    };
    let mut fail = scenario("fails", "FAIL", "FAIL");
    fail["mismatches"] = json!([{
        "id": "boris::error-message-format::fails#code",
        "expectation": "code: PATH_NOT_FOUND",
        "detail": "-a\n+b",
        "excused": false,
    }]);
    let mut error = scenario("errs", "ERROR", "KNOWN");
    error["baseline"] = json!("scenario");
    error["error"] = json!({ "what": "exited (exit status: 3)", "stderr_tail": "" });
    let mut skip = scenario("skips", "SKIP", "SKIP");
    skip["reason"] = json!("cannot express setting max_file_size");
    skip["call"] = json!("");
    skip["answer"] = json!(null);
    let mut unsupported = scenario("lacks a tool", "UNSUPPORTED", "UNSUPPORTED");
    unsupported["reason"] = json!("the server does not list `view`");
    let mut flaky = scenario("flaky", "FAIL", "FLAKY");
    flaky["attempts"] = json!(["PASS", "FAIL"]);
    flaky["mismatches"] = fail["mismatches"].clone();
    let mut escape = scenario("escapes", "ESCAPE", "ESCAPE");
    escape["escape"] = json!({
        "kind": "read",
        "tool": "view",
        "given": "{root}/link.txt",
        "reached": "returned the content of {outside}/secret.txt",
        "line": "ESCAPE read: view {root}/link.txt returned the content of {outside}/secret.txt",
    });
    let counts = json!({
        "PASS": 1, "FAIL": 1, "ERROR": 0, "SKIP": 1, "UNSUPPORTED": 1, "KNOWN": 1,
        "FLAKY": 1, "STALE": 0, "NEW": 0, "ESCAPE": 1,
        "spec": { "passed": 1, "total": 6 }, "upstream": { "passed": 0, "total": 0 },
    });
    json!({
        "schema_version": 5,
        "target": "boris-reference",
        "isolation": ["writes", "home", "network-namespace"],
        "partition": null,
        "counts": counts,
        "suites": [{ "name": "boris", "version": 1, "origin": "built-in", "counts": counts }],
        "scenarios": [scenario("passes", "PASS", "PASS"), fail, error, skip, unsupported, flaky, escape],
    })
}

/// `edit` applied to a valid report must be refused with a message holding `says`.
fn assert_refused(schema: &str, valid: &Value, edit: impl FnOnce(&mut Value), says: &[&str]) {
    let mut doc = valid.clone();
    edit(&mut doc);
    let why = schema_errors(schema, &doc)
        .expect_err(&format!("{schema} accepts a broken document:\n{doc:#}"));
    for s in says {
        assert!(why.contains(s), "the message lacks {s:?}:\n{why}");
    }
}

#[test]
fn the_report_schema_refuses_a_report_that_breaks_the_contract() {
    let valid = a_valid_report();
    schema_errors(REPORT_SCHEMA, &valid).expect("the sample report is valid");
    assert_refused(
        REPORT_SCHEMA,
        &valid,
        |d| d["scenarios"][0]["verdict"] = json!("PASSED"),
        &[
            "/scenarios/0/verdict",
            "'PASS', 'FAIL', 'ERROR', 'SKIP', 'UNSUPPORTED'",
        ],
    );
    assert_refused(
        REPORT_SCHEMA,
        &valid,
        |d| {
            d.as_object_mut().expect("object").remove("schema_version");
        },
        &["missing properties 'schema_version'"],
    );
    assert_refused(
        REPORT_SCHEMA,
        &valid,
        |d| d["schema_version"] = json!(4),
        &["schema_version", "5"],
    );
    // An ESCAPE says what it reached, and no other verdict carries an escape.
    assert_refused(
        REPORT_SCHEMA,
        &valid,
        |d| d["scenarios"][6]["escape"] = json!(null),
        &["/scenarios/6/escape"],
    );
    assert_refused(
        REPORT_SCHEMA,
        &valid,
        |d| d["scenarios"][6]["standing"] = json!("KNOWN"),
        &["/scenarios/6/standing"],
    );
    assert_refused(
        REPORT_SCHEMA,
        &valid,
        |d| d["scenarios"][1]["escape"] = d["scenarios"][6]["escape"].clone(),
        &["/scenarios/1/escape"],
    );
    assert_refused(
        REPORT_SCHEMA,
        &valid,
        |d| {
            d["scenarios"][0]
                .as_object_mut()
                .expect("scenario")
                .remove("answer");
        },
        &["/scenarios/0", "missing properties 'answer'"],
    );
    assert_refused(
        REPORT_SCHEMA,
        &valid,
        |d| d["scenarios"][3]["standing"] = json!("Skip"),
        &["/scenarios/3/standing"],
    );
    assert_refused(
        REPORT_SCHEMA,
        &valid,
        |d| d["scenarios"][0]["colour"] = json!("green"),
        &["/scenarios/0", "colour"],
    );
    // The verdict and the rest must agree: a FAIL says what did not hold.
    assert_refused(
        REPORT_SCHEMA,
        &valid,
        |d| d["scenarios"][1]["mismatches"] = json!([]),
        &["/scenarios/1/mismatches", "minimum 1"],
    );
    // KNOWN needs a baseline entry; FLAKY needs attempts; counts are all there.
    assert_refused(
        REPORT_SCHEMA,
        &valid,
        |d| d["scenarios"][2]["baseline"] = json!(null),
        &["/scenarios/2/standing"],
    );
    assert_refused(
        REPORT_SCHEMA,
        &valid,
        |d| d["scenarios"][5]["attempts"] = json!([]),
        &["/scenarios/5/attempts", "minimum 2"],
    );
    assert_refused(
        REPORT_SCHEMA,
        &valid,
        |d| {
            d["counts"]
                .as_object_mut()
                .expect("counts")
                .remove("UNSUPPORTED");
        },
        &["/counts", "UNSUPPORTED"],
    );
    assert_refused(
        REPORT_SCHEMA,
        &valid,
        |d| d["scenarios"][1]["mismatches"][0]["id"] = json!("no key"),
        &["/scenarios/1/mismatches/0/id"],
    );
    assert_refused(
        REPORT_SCHEMA,
        &valid,
        |d| d["isolation"] = json!(["everything"]),
        &["/isolation/0"],
    );
}

#[test]
fn the_mutants_schema_refuses_scores_that_break_the_contract() {
    let valid = json!({
        "schema_version": 4,
        "full_count": true,
        "suites": [{
            "suite": "tiny",
            "scenarios": 2,
            "killed": 1,
            "total": 2,
            "spared": 1,
            "varied": 2,
            "not_passing": [],
            "variations": [
                { "variations": [{ "name": "result-meta", "what": "adds _meta",
                                   "allowed_by": "MCP: \"reserved\"", "spares": "all" }],
                  "spared": true, "false_failures": [] },
                { "variations": [{ "name": "json-spaced", "what": "spaces JSON",
                                   "allowed_by": "RFC 8259: \"whitespace\"", "spares": "all" }],
                  "spared": false,
                  "false_failures": [{ "scenario": "tiny::view::bytes",
                                       "expectations": ["text: differs"] }] },
            ],
            "derived": {
                "scenarios": 1, "answers": 2,
                "false_answers": [{ "scenario": "tiny::view::listing", "clause": "listing",
                                    "dimension": "item-order", "words": "a list",
                                    "how": "items reversed", "text": "b\na",
                                    "expectations": ["text: differs"] }],
            },
            "mutants": [
                { "name": "lowercase-code", "what": "lower-cases codes", "killed": true,
                  "killed_by": ["tiny::view::a missing file is PATH_NOT_FOUND"] },
                { "name": "wrong-code", "what": "sends another code", "killed": false,
                  "killed_by": [] },
            ],
        }],
    });
    schema_errors(MUTANTS_SCHEMA, &valid).expect("the sample scores are valid");
    assert_refused(
        MUTANTS_SCHEMA,
        &valid,
        |d| {
            d.as_object_mut().expect("object").remove("schema_version");
        },
        &["missing properties 'schema_version'"],
    );
    assert_refused(
        MUTANTS_SCHEMA,
        &valid,
        |d| d["suites"][0]["derived"]["false_answers"][0]["dimension"] = json!("ordering"),
        &["/suites/0/derived/false_answers/0/dimension"],
    );
    assert_refused(
        MUTANTS_SCHEMA,
        &valid,
        |d| d["suites"][0]["mutants"][1]["killed"] = json!(true),
        &["/suites/0/mutants/1/killed_by"],
    );
    assert_refused(
        MUTANTS_SCHEMA,
        &valid,
        |d| d["suites"][0]["variations"][1]["spared"] = json!(true),
        &["/suites/0/variations/1/false_failures"],
    );
    assert_refused(
        MUTANTS_SCHEMA,
        &valid,
        |d| d["suites"][0]["variations"][0]["variations"] = json!([]),
        &["/suites/0/variations/0/variations"],
    );
    assert_refused(
        MUTANTS_SCHEMA,
        &valid,
        |d| d["suites"][0]["killed"] = json!("1"),
        &["/suites/0/killed", "integer"],
    );
    assert_refused(
        MUTANTS_SCHEMA,
        &valid,
        |d| {
            d.as_object_mut().expect("object").remove("full_count");
        },
        &["missing properties 'full_count'"],
    );
}

/// Reports holding every standing match the schema, not only the common ones
/// (FLAKY: `verdict_model::a_server_whose_verdict_changes_is_flaky_and_fails_the_run`).
#[test]
fn reports_of_every_standing_match_the_schema() {
    let dir = tempfile::tempdir().expect("tempdir");
    // Against the reference with error-on-nonzero-exit: one failure listed in the
    // baseline (known), one passing scenario listed (stale), failures not listed,
    // passes, and `task_output` renamed to a tool the server lacks (unsupported).
    let target = target_file(
        dir.path(),
        ", --mutate, error-on-nonzero-exit",
        "tools: { task_output: task_result }\nbaseline:\n  - \"boris::non-zero-bash-exit-codes-are-not-errors::Command exits with code 1\"\n  - \"boris::bash-tool-error-codes::Empty command\"\n",
    );
    let mixed = dir.path().join("mixed.json");
    toolspec()
        .args(["run", "--suite", "boris", "--filter", "bash-"])
        .arg("--target")
        .arg(&target)
        .arg("--json")
        .arg(&mixed)
        .assert()
        .code(1);
    let doc = assert_matches_schema(REPORT_SCHEMA, &mixed);
    // A server that exits mid-call: ERROR, and SKIP for the settings it cannot express.
    let errored = dir.path().join("errored.json");
    toolspec()
        .args([
            "run",
            "--suite",
            "boris",
            "--filter",
            "cross-tool-error-codes::",
            "--timeout-ms",
            "500",
            "--server",
        ])
        .arg(format!(
            "bash {} exit",
            repo().join("tests/servers/hostile.sh").display()
        ))
        .arg("--json")
        .arg(&errored)
        .assert()
        .code(1);
    let doc2 = assert_matches_schema(REPORT_SCHEMA, &errored);
    let standings: std::collections::BTreeSet<&str> = [&doc, &doc2]
        .iter()
        .flat_map(|d| d["scenarios"].as_array().expect("scenarios"))
        .filter_map(|s| s["standing"].as_str())
        .collect();
    assert_eq!(
        standings.into_iter().collect::<Vec<_>>(),
        [
            "ERROR",
            "FAIL",
            "KNOWN",
            "PASS",
            "SKIP",
            "STALE",
            "UNSUPPORTED"
        ],
    );
}
