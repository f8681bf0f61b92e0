//! One suite across several servers, from the command line: `run --html`, `matrix`
//! (from JSON reports, and by running targets), the badges and `diff`. Real FAILs
//! come from the reference server with a deliberate deviation (`wrong-code`:
//! `PATH_NOT_FOUND` reported as `IO_ERROR`). The page in a real browser is the
//! `browser` test binary's.

use std::path::{Path, PathBuf};

use predicates::prelude::*;

use crate::support::{assert_matches_schema, exe, toolspec, REPORT_SCHEMA};

/// The schema of `matrix.json`, relative to the repository root.
const MATRIX_SCHEMA: &str = "docs/matrix.schema.json";

/// The scenarios every test here runs: one requirement of boris, which `wrong-code`
/// breaks in a few scenarios and not in others.
const REQUIREMENT: &str = "boris::cross-tool-error-codes::";

/// A scenario `wrong-code` breaks.
const BROKEN: &str = "boris::cross-tool-error-codes::PATH_NOT_FOUND on missing file";

/// Runs the requirement against the reference server (with `mutate`, if any) and
/// writes its JSON report to `dir/name.json`; returns the path.
fn run_json(dir: &Path, name: &str, mutate: Option<&str>) -> PathBuf {
    let json = dir.join(format!("{name}.json"));
    let mut cmd = toolspec();
    cmd.args([
        "run",
        "--suite",
        "boris",
        "--filter",
        REQUIREMENT,
        "-j",
        "2",
    ])
    .arg("--json")
    .arg(&json);
    if let Some(m) = mutate {
        cmd.args(["--mutate", m]);
    }
    cmd.assert().code(if mutate.is_some() { 1 } else { 0 });
    json
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The `<tr>` of scenario `id` in a page.
fn row<'a>(html: &'a str, id: &str) -> &'a str {
    let start = html
        .find(&format!("data-id=\"{id}\""))
        .unwrap_or_else(|| panic!("no row for {id}"));
    let end = html[start..].find("</tr>").expect("row ends") + start;
    &html[start..end]
}

#[test]
fn run_html_shows_a_fail_as_fail_with_its_call_and_diff() {
    let dir = tempfile::tempdir().expect("tempdir");
    let page = dir.path().join("run.html");
    let json = dir.path().join("run.json");
    toolspec()
        .args([
            "run",
            "--suite",
            "boris",
            "--mutate",
            "wrong-code",
            "--filter",
            BROKEN,
        ])
        .arg("--html")
        .arg(&page)
        .arg("--json")
        .arg(&json)
        .assert()
        .code(1);
    let doc = assert_matches_schema(REPORT_SCHEMA, &json);
    let answer = doc["scenarios"][0]["answer"].as_str().expect("an answer");
    assert!(answer.starts_with("[IO_ERROR] "), "{answer}");
    let html = read(&page);
    let cells = row(&html, BROKEN);
    assert!(
        cells.contains("<td class=\"s-fail\" data-standing=\"FAIL\"><details><summary><span class=\"word\">FAIL</span>"),
        "the cell says FAIL and opens: {cells}"
    );
    assert!(
        cells.contains("<span class=\"del\">-PATH_NOT_FOUND⊘ (no newline at end)</span>"),
        "{cells}"
    );
    assert!(
        cells.contains("<span class=\"ins\">+IO_ERROR⊘ (no newline at end)</span>"),
        "{cells}"
    );
    assert!(
        cells.contains("<pre class=\"call\">view {&quot;path&quot;:"),
        "{cells}"
    );
    // The filter matches the scenario and its variants (`... (grep path)`), and
    // `wrong-code` breaks them all.
    assert!(
        html.contains("<div class=\"score\" data-level=\"spec\">spec 0/"),
        "{html}"
    );
    assert!(
        html.contains(" <b>0%</b></div>"),
        "the column's score: {html}"
    );
}

#[test]
fn matrix_from_json_writes_the_page_data_summary_and_badges() {
    let dir = tempfile::tempdir().expect("tempdir");
    let honest = run_json(dir.path(), "honest", None);
    let mutated = run_json(dir.path(), "mutated", Some("wrong-code"));
    let out = dir.path().join("out");
    let assert = toolspec()
        .args(["matrix", "--from-json"])
        .arg(&honest)
        .arg(&mutated)
        .arg("--out")
        .arg(&out)
        .assert()
        .code(0);
    let stdout = String::from_utf8_lossy(&assert.get_output().stdout).to_string();
    let report: serde_json::Value = serde_json::from_str(&read(&mutated)).expect("JSON");
    let spec = &report["counts"]["spec"];
    let (passed, total) = (
        spec["passed"].as_u64().expect("n"),
        spec["total"].as_u64().expect("n"),
    );
    assert!(
        passed < total,
        "wrong-code breaks some spec scenarios: {spec}"
    );
    let score = format!("{passed}/{total} ({}%)", passed * 100 / total);
    assert!(
        stdout.contains(&format!("reference (mutated): spec {passed}/{total}")),
        "{stdout}"
    );

    let matrix = assert_matches_schema(MATRIX_SCHEMA, &out.join("matrix.json"));
    assert_eq!(matrix["servers"][0]["name"], "reference");
    assert_eq!(matrix["servers"][1]["name"], "reference (mutated)");
    let scenario = matrix["requirements"][0]["scenarios"]
        .as_array()
        .expect("scenarios")
        .iter()
        .find(|s| s["id"] == BROKEN)
        .expect("the broken scenario");
    assert_eq!(scenario["results"][0]["standing"], "PASS");
    assert_eq!(scenario["results"][1]["standing"], "FAIL");

    let badge = read(&out.join("badges/reference-mutated.svg"));
    assert!(
        badge.contains(&format!(">{score}</text>")),
        "badge: {badge}"
    );
    let endpoint: serde_json::Value =
        serde_json::from_str(&read(&out.join("badges/reference-mutated.json"))).expect("JSON");
    assert_eq!(endpoint["message"], score.as_str());
    assert_eq!(endpoint["schemaVersion"], 1);
    assert!(read(&out.join("badges/reference.svg")).contains("(100%)</text>"));

    let md = read(&out.join("matrix.md"));
    assert!(md.contains("## What did not hold"), "{md}");
    assert!(
        md.contains(&format!("- **reference (mutated)**: FAIL: `{BROKEN}`")),
        "{md}"
    );
    assert!(
        !md.contains("- **reference**:"),
        "the honest server broke nothing: {md}"
    );

    let html = read(&out.join("index.html"));
    let cells = row(&html, BROKEN);
    let pass = cells.find("s-pass").expect("a PASS cell");
    let fail = cells.find("s-fail").expect("a FAIL cell");
    assert!(pass < fail, "columns in the order given: {cells}");
}

#[test]
fn diff_exits_1_on_a_new_failure_and_0_on_a_fix() {
    let dir = tempfile::tempdir().expect("tempdir");
    let honest = run_json(dir.path(), "honest", None);
    let mutated = run_json(dir.path(), "mutated", Some("wrong-code"));
    let text = diff_output(&honest, &mutated, 1);
    assert!(
        text.starts_with("boris: Cross-tool error codes\n"),
        "{text}"
    );
    assert!(
        text.contains(&format!("  PASS -> FAIL  {BROKEN}  (new failure)\n    call: view {{\"path\":\"{{root}}/missing.txt\"}}\n    --- old\n    +++ new\n    -[PATH_NOT_FOUND] {{root}}/missing.txt")),
        "{text}"
    );
    assert!(
        text.contains("    +[IO_ERROR] {root}/missing.txt"),
        "{text}"
    );
    let text = diff_output(&mutated, &honest, 0);
    assert!(
        text.contains(&format!("  FAIL -> PASS  {BROKEN}\n")),
        "{text}"
    );
    assert!(text.contains("(0 new failure(s))"), "{text}");
    let same = diff_output(&honest, &honest, 0);
    assert!(same.contains("0 flipped (0 new failure(s))"), "{same}");
}

/// `toolspec diff OLD NEW`'s standard output, once it has exited with `code`.
fn diff_output(old: &Path, new: &Path, code: i32) -> String {
    let done = toolspec().arg("diff").arg(old).arg(new).assert().code(code);
    String::from_utf8_lossy(&done.get_output().stdout).into_owned()
}

#[test]
fn matrix_runs_the_suite_against_every_target() {
    let dir = tempfile::tempdir().expect("tempdir");
    let target = |name: &str, extra: &str| {
        let path = dir.path().join(format!("{name}.yaml"));
        std::fs::write(
            &path,
            format!(
                "name: {name}\ncommand: [\"{}\", reference-server, --dialect, boris, --root, \"{{root}}\"{extra}]\n",
                exe().display()
            ),
        )
        .expect("target file");
        path
    };
    let honest = target("honest", "");
    let mutated = target("wrong-code", ", --mutate, wrong-code");
    let out = dir.path().join("out");
    toolspec()
        .args([
            "matrix",
            "--suite",
            "boris",
            "--filter",
            REQUIREMENT,
            "-j",
            "2",
        ])
        .arg("--target")
        .arg(&honest)
        .arg("--target")
        .arg(&mutated)
        .arg("--out")
        .arg(&out)
        .assert()
        .code(0);
    let matrix = assert_matches_schema(MATRIX_SCHEMA, &out.join("matrix.json"));
    assert_eq!(matrix["servers"][0]["name"], "honest");
    assert_eq!(matrix["servers"][1]["name"], "wrong-code");
    assert_eq!(matrix["servers"][0]["counts"]["FAIL"], 0);
    assert!(
        matrix["servers"][1]["counts"]["FAIL"].as_u64() > Some(0),
        "{matrix}"
    );
    for run in ["1-honest", "2-wrong-code"] {
        assert_matches_schema(REPORT_SCHEMA, &out.join(format!("runs/{run}.json")));
    }
    // A target that cannot be run is an error naming its log, not an empty column.
    let missing = dir.path().join("missing.yaml");
    toolspec()
        .args(["matrix", "--suite", "boris", "--target"])
        .arg(&missing)
        .arg("--out")
        .arg(dir.path().join("out2"))
        .assert()
        .code(2)
        .stderr(predicates::str::contains("missing.yaml"));
}

#[test]
fn the_matrix_schema_refuses_a_matrix_that_breaks_the_contract() {
    let counts = serde_json::json!({
        "PASS": 1, "FAIL": 1, "ERROR": 0, "SKIP": 0, "UNSUPPORTED": 0, "KNOWN": 0,
        "FLAKY": 0, "STALE": 0, "NEW": 0,
        "spec": { "passed": 1, "total": 2 }, "upstream": { "passed": 0, "total": 0 },
    });
    let valid = serde_json::json!({
        "schema_version": 1,
        "title": "t",
        "servers": [{
            "name": "a", "target": "a", "counts": counts,
            "suites": [{ "name": "boris", "version": 2, "origin": "built-in" }],
            "badge": { "svg": "badges/a.svg", "endpoint": "badges/a.json" },
        }],
        "requirements": [{
            "suite": "boris", "file": "f", "requirement": "R",
            "scenarios": [{
                "id": "boris::f::x", "name": "x", "covers": "f/x", "basis": "spec",
                "results": [{ "standing": "FAIL", "verdict": "FAIL" }],
            }],
        }],
    });
    crate::support::schema_errors(MATRIX_SCHEMA, &valid).expect("the sample is valid");
    let refused = |edit: &dyn Fn(&mut serde_json::Value), says: &str| {
        let mut doc = valid.clone();
        edit(&mut doc);
        let why = crate::support::schema_errors(MATRIX_SCHEMA, &doc)
            .expect_err("a broken matrix is accepted");
        assert!(why.contains(says), "the message lacks {says:?}:\n{why}");
    };
    refused(&|d| d["schema_version"] = 2.into(), "/schema_version");
    refused(
        &|d| d["requirements"][0]["scenarios"][0]["results"][0]["standing"] = "Failed".into(),
        "/requirements/0/scenarios/0/results/0",
    );
    refused(
        &|d| d["servers"][0]["badge"]["svg"] = "../x.svg".into(),
        "/servers/0/badge/svg",
    );
    refused(
        &|d| d["servers"][0]["counts"]["spec"] = 1.into(),
        "/servers/0/counts/spec",
    );
}

#[test]
fn rows_follow_the_spec_documents_clause_order_not_the_file_names() {
    // gemini-cli's files sort as glob, list_directory, read_file, replace,
    // search_file_content, write_file; its seed (and so its clause index) takes
    // list_directory, read_file, write_file, replace, search_file_content, glob.
    let dir = tempfile::tempdir().expect("tempdir");
    let json = dir.path().join("run.json");
    let page = dir.path().join("run.html");
    toolspec()
        .args(["run", "--suite", "gemini-cli", "--filter", "Non-Existent"])
        .args(["-j", "2", "--json"])
        .arg(&json)
        .arg("--html")
        .arg(&page)
        .assert()
        .code(0);
    let spec_order = [
        "list_directory",
        "read_file",
        "write_file",
        "replace",
        "search_file_content",
        "glob",
    ];
    let out = dir.path().join("out");
    toolspec()
        .args(["matrix", "--from-json"])
        .arg(&json)
        .arg("--out")
        .arg(&out)
        .assert()
        .code(0)
        .stdout(predicates::str::contains("note:").not());
    let matrix = assert_matches_schema(MATRIX_SCHEMA, &out.join("matrix.json"));
    let files: Vec<String> = matrix["requirements"]
        .as_array()
        .expect("requirements")
        .iter()
        .map(|q| {
            let id = q["scenarios"][0]["id"].as_str().expect("id");
            id.split("::").nth(1).expect("file").to_string()
        })
        .collect();
    assert_eq!(files, spec_order, "matrix.json");
    let at = |text: &str, what: &str| text.find(what).unwrap_or_else(|| panic!("no {what}"));
    for (text, mark) in [
        (read(&out.join("matrix.md")), "| "),
        (read(&out.join("index.html")), "data-id=\"gemini-cli::"),
        (read(&page), "data-id=\"gemini-cli::"),
    ] {
        let places: Vec<usize> = spec_order
            .iter()
            .map(|file| match mark {
                "| " => at(
                    &text,
                    &format!("| {} (gemini-cli)", file.replace('_', "\\_")),
                ),
                _ => at(&text, &format!("{mark}{file}::")),
            })
            .collect();
        assert!(
            places.windows(2).all(|w| w[0] < w[1]),
            "requirements out of the spec's order: {places:?} in\n{text}"
        );
    }
}
