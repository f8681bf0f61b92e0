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
#[ignore = "deep tier: .ci/run runs it, as does cargo test -- --ignored"]
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
        "FLAKY": 0, "STALE": 0, "NEW": 0, "ESCAPE": 0,
        "spec": { "passed": 1, "total": 2 }, "upstream": { "passed": 0, "total": 0 },
    });
    let valid = serde_json::json!({
        "schema_version": 2,
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
    refused(&|d| d["schema_version"] = 1.into(), "/schema_version");
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

/// The schema of `history.json`, relative to the repository root.
const HISTORY_SCHEMA: &str = "docs/history.schema.json";

/// Releases of a made-up program, played by the reference server with a deviation
/// or none: 1.0 and 1.1 honest, 1.2 `wrong-code`, 1.3 honest again, 1.4
/// `drop-code-prefix`. A scenario `wrong-code` breaks first failed in 1.2 (not 1.1,
/// which passed), was fixed in 1.3, and broke again in 1.4: two breaks to bisect.
/// One only `drop-code-prefix` breaks first failed in 1.4 and is not fixed.
#[test]
#[ignore = "deep tier: .ci/run runs it, as does cargo test -- --ignored"]
fn history_names_the_release_that_broke_a_scenario_and_the_one_that_fixed_it() {
    let dir = tempfile::tempdir().expect("tempdir");
    let honest = run_json(dir.path(), "honest", None);
    let wrong_code = run_json(dir.path(), "wrong-code", Some("wrong-code"));
    let no_prefix = run_json(dir.path(), "drop-code-prefix", Some("drop-code-prefix"));
    let out = dir.path().join("history");
    let mut cmd = toolspec();
    cmd.arg("history");
    for (label, report) in [
        ("1.0", &honest),
        ("1.1", &honest),
        ("1.2", &wrong_code),
        ("1.3", &honest),
        ("1.4", &no_prefix),
    ] {
        cmd.arg("--run")
            .arg(format!("{label}={}", report.display()));
    }
    let done = cmd.arg("--out").arg(&out).assert().code(0);
    let text = String::from_utf8_lossy(&done.get_output().stdout).into_owned();
    assert!(
        text.contains(&format!(
            "  {BROKEN}\n    1.0 pass, 1.1 pass, 1.2 fail, 1.3 pass, 1.4 fail\n    first failed in 1.2; fixed in 1.3\n    bisect between 1.1 (passes) and 1.2 (fails)\n      --- 1.1\n      +++ 1.2\n      -[PATH_NOT_FOUND] {{root}}/missing.txt"
        )),
        "{text}"
    );
    assert!(
        text.contains(
            "    bisect between 1.3 (passes) and 1.4 (fails)\n      --- 1.3\n      +++ 1.4\n"
        ),
        "{text}"
    );
    let history = assert_matches_schema(HISTORY_SCHEMA, &out.join("history.json"));
    // What each deviation broke, from its own run's report.
    let failing = |report: &Path| -> Vec<String> {
        let doc: serde_json::Value = serde_json::from_str(&read(report)).expect("the run's JSON");
        doc["scenarios"]
            .as_array()
            .expect("scenarios")
            .iter()
            .filter(|s| s["verdict"] == "FAIL")
            .filter_map(|s| s["id"].as_str().map(str::to_string))
            .collect()
    };
    let (by_wrong_code, by_no_prefix) = (failing(&wrong_code), failing(&no_prefix));
    assert!(
        by_wrong_code.iter().any(|id| id == BROKEN),
        "{by_wrong_code:?}"
    );
    let only_no_prefix: Vec<&String> = by_no_prefix
        .iter()
        .filter(|id| !by_wrong_code.contains(id))
        .collect();
    assert!(!only_no_prefix.is_empty(), "{by_no_prefix:?}");
    let changed = history["changed"].as_array().expect("changed");
    let mut expected: Vec<&String> = by_wrong_code
        .iter()
        .chain(only_no_prefix.iter().copied())
        .collect();
    expected.sort();
    let mut ids: Vec<&str> = changed.iter().filter_map(|c| c["id"].as_str()).collect();
    ids.sort_unstable();
    assert_eq!(ids, expected, "only what a deviation broke changed");
    let bisect = |pairs: &[(&str, &str)]| {
        serde_json::Value::Array(
            pairs
                .iter()
                .map(|(passes, fails)| serde_json::json!({"passes": passes, "fails": fails}))
                .collect(),
        )
    };
    for scenario in changed {
        let id = scenario["id"].as_str().unwrap_or_default().to_string();
        let again = by_no_prefix.contains(&id);
        if by_wrong_code.contains(&id) {
            assert_eq!(scenario["first_failed"], "1.2", "{scenario}");
            assert_eq!(scenario["fixed_in"], "1.3", "{scenario}");
            let pairs: &[(&str, &str)] = if again {
                &[("1.1", "1.2"), ("1.3", "1.4")]
            } else {
                &[("1.1", "1.2")]
            };
            assert_eq!(scenario["bisect"], bisect(pairs), "{scenario}");
        } else {
            assert_eq!(scenario["first_failed"], "1.4", "{scenario}");
            assert_eq!(scenario["fixed_in"], serde_json::Value::Null, "{scenario}");
            assert_eq!(scenario["bisect"], bisect(&[("1.3", "1.4")]), "{scenario}");
        }
    }
    let html = read(&out.join("index.html"));
    let broken_row = row(&html, BROKEN);
    assert!(
        broken_row.contains(
            "<td class=\"first-failed\">1.2</td><td class=\"fixed-in\"><details><summary>1.3</summary>"
        ),
        "{broken_row}"
    );
    assert!(
        broken_row.contains("<summary>1.1 … 1.2</summary>")
            && broken_row.contains("<summary>1.3 … 1.4</summary>"),
        "{broken_row}"
    );
    let other_row = row(&html, only_no_prefix[0]);
    assert!(
        other_row.contains("<td class=\"first-failed\">1.4</td><td class=\"fixed-in\">-</td>"),
        "{other_row}"
    );
    assert!(
        html.contains("<tr class=\"all\"><th scope=\"row\">all requirements</th><td class=\"trend\"><svg class=\"trend-line\""),
        "a trend line for the whole suite, then one per requirement"
    );
    let md = read(&out.join("history.md"));
    assert!(
        md.contains(&format!(
            "| ✅✅❌✅❌ {} | 1.2 | 1.3 | 1.1 … 1.2, 1.3 … 1.4 |",
            BROKEN.replace('_', "\\_")
        )),
        "{md}"
    );
}

#[test]
fn the_history_schema_refuses_a_history_that_breaks_the_contract() {
    let counts = serde_json::json!({
        "PASS": 1, "FAIL": 1, "ERROR": 0, "SKIP": 0, "UNSUPPORTED": 0, "KNOWN": 0,
        "FLAKY": 0, "STALE": 0, "NEW": 0, "ESCAPE": 0,
        "spec": { "passed": 1, "total": 2 }, "upstream": { "passed": 0, "total": 0 },
    });
    let release = |label: &str| {
        serde_json::json!({
            "label": label, "not_yet_in_suite": 0, "target": "t", "counts": counts,
            "suites": [{ "name": "boris", "version": 2, "origin": "built-in" }],
        })
    };
    let score = serde_json::json!({"spec": {"passed": 1, "total": 1}, "upstream": {"passed": 0, "total": 0}});
    let valid = serde_json::json!({
        "schema_version": 3,
        "title": "t",
        "releases": [release("1.0"), release("1.1")],
        "requirements": [{
            "suite": "boris", "file": "f", "requirement": "R", "releases": [score, score],
        }],
        "changed": [{
            "id": "boris::f::x",
            "outcomes": ["pass", "fail"],
            "standings": ["PASS", "FAIL"],
            "first_failed": "1.1",
            "fixed_in": null,
            "bisect": [{"passes": "1.0", "fails": "1.1"}],
            "transitions": [{"from": "1.0", "to": "1.1", "step": "broke", "sharpened_in": null, "diff": "--- 1.0\n+++ 1.1\n"}],
        }],
    });
    crate::support::schema_errors(HISTORY_SCHEMA, &valid).expect("the sample is valid");
    let refused = |edit: &dyn Fn(&mut serde_json::Value), says: &str| {
        let mut doc = valid.clone();
        edit(&mut doc);
        let why = crate::support::schema_errors(HISTORY_SCHEMA, &doc)
            .expect_err("a broken history is accepted");
        assert!(why.contains(says), "the message lacks {says:?}:\n{why}");
    };
    refused(&|d| d["schema_version"] = 2.into(), "/schema_version");
    // `unsupported` is an outcome of its own since version 2.
    let mut gap = valid.clone();
    gap["changed"][0]["outcomes"][1] = "unsupported".into();
    crate::support::schema_errors(HISTORY_SCHEMA, &gap).expect("unsupported is an outcome");
    refused(
        &|d| d["changed"][0]["outcomes"][1] = "failed".into(),
        "/changed/0/outcomes/1",
    );
    refused(
        &|d| d["changed"][0]["transitions"][0]["step"] = "regressed".into(),
        "/changed/0/transitions/0/step",
    );
    refused(
        &|d| d["releases"] = serde_json::json!([release("only")]),
        "/releases",
    );
    refused(
        &|d| d["releases"][0]["not_yet_in_suite"] = (-1).into(),
        "/releases/0/not_yet_in_suite",
    );
}

/// `matrix --no-isolation` makes each run a `run --no-isolation`: its report lists
/// no layer of isolation, where the same run without the flag lists some. Without
/// a target to run it means nothing, and is refused.
#[test]
fn matrix_no_isolation_runs_every_target_without_isolation() {
    let dir = tempfile::tempdir().expect("tempdir");
    let target = dir.path().join("honest.yaml");
    std::fs::write(
        &target,
        format!(
            "name: honest\ncommand: [\"{}\", reference-server, --dialect, boris, --root, \"{{root}}\"]\n",
            exe().display()
        ),
    )
    .expect("target file");
    let layers = |out: &str, extra: &[&str]| {
        let out = dir.path().join(out);
        toolspec()
            .args(["matrix", "--suite", "boris", "--filter", BROKEN])
            .arg("--target")
            .arg(&target)
            .arg("--out")
            .arg(&out)
            .args(extra)
            .assert()
            .code(0);
        let report = assert_matches_schema(REPORT_SCHEMA, &out.join("runs/1-honest.json"));
        report["isolation"]
            .as_array()
            .unwrap_or_else(|| panic!("no isolation list in {report}"))
            .clone()
    };
    assert_ne!(layers("closed", &[]), Vec::<serde_json::Value>::new());
    assert_eq!(
        layers("open", &["--no-isolation"]),
        Vec::<serde_json::Value>::new()
    );
    toolspec()
        .args(["matrix", "--from-json", "x.json", "--no-isolation", "--out"])
        .arg(dir.path().join("refused"))
        .assert()
        .code(2);
}
