//! The verdict model a CI gate relies on: conformance levels, UNSUPPORTED apart from
//! FAIL, FLAKY under `--repeat`, baselines that excuse one expectation and no more,
//! and one set of counts shared by the summary line and every report file.

use std::path::Path;

use assert_cmd::Command;
use predicates::prelude::*;
use serde_json::Value;

use crate::support::{assert_matches_schema, exe, repo, target_file, toolspec, REPORT_SCHEMA};

/// A scenario with two expectations (`code` and `matches[0]`) that the `wrong-code`
/// mutation breaks both of. Filtering by its name also selects one more scenario,
/// which the mutation does not break.
const PARSEABLE: &str = "boris::error-message-format::Code is parseable";

/// `toolspec run --suite boris --filter <filter> --target <target>`.
fn boris_on(target: &Path, filter: &str) -> Command {
    let mut cmd = toolspec();
    cmd.args(["run", "--suite", "boris", "--filter", filter, "--target"])
        .arg(target);
    cmd
}

/// A target file for the reference server with the `wrong-code` mutation and the
/// baseline `entries`.
fn wrong_code_with_baseline(dir: &Path, entries: &[&str]) -> std::path::PathBuf {
    let listed: Vec<String> = entries.iter().map(|e| format!("  - {e:?}\n")).collect();
    target_file(
        dir,
        ", --mutate, wrong-code",
        &format!("baseline:\n{}", listed.concat()),
    )
}

#[test]
fn a_baseline_entry_for_one_expectation_excuses_that_one_and_no_other() {
    let dir = tempfile::tempdir().expect("tempdir");
    let code = format!("{PARSEABLE}#code");
    let target = wrong_code_with_baseline(dir.path(), &[&code]);
    boris_on(&target, "Code is parseable")
        .assert()
        .code(1)
        .stdout(predicate::str::contains(format!(
            "did not hold [{PARSEABLE}#code, known: the baseline excuses it]:"
        )))
        .stdout(predicate::str::contains(format!(
            "did not hold [{PARSEABLE}#matches[0]]:"
        )))
        .stdout(predicate::str::contains("boris: 1 PASS, 1 FAIL"));
}

#[test]
fn a_failure_is_known_when_the_baseline_names_every_broken_expectation() {
    let dir = tempfile::tempdir().expect("tempdir");
    for entries in [
        vec![
            format!("{PARSEABLE}#code"),
            format!("{PARSEABLE}#matches[0]"),
        ],
        // A key excuses the keys below it.
        vec![format!("{PARSEABLE}#code"), format!("{PARSEABLE}#matches")],
    ] {
        let entries: Vec<&str> = entries.iter().map(String::as_str).collect();
        let target = wrong_code_with_baseline(dir.path(), &entries);
        boris_on(&target, "Code is parseable")
            .assert()
            .success()
            .stdout(predicate::str::contains(
                "boris: 1 PASS, 0 FAIL, 0 ERROR, 0 SKIP, 0 UNSUPPORTED, 1 KNOWN, 0 FLAKY (spec 1/2, upstream 0/0)",
            ));
    }
}

#[test]
fn an_expectation_entry_that_excuses_nothing_is_stale() {
    let dir = tempfile::tempdir().expect("tempdir");
    // `text` is not broken (the scenario has none), so its entry is stale, although
    // the two broken expectations are excused.
    let (code, matches, text) = (
        format!("{PARSEABLE}#code"),
        format!("{PARSEABLE}#matches[0]"),
        format!("{PARSEABLE}#text"),
    );
    let target = wrong_code_with_baseline(dir.path(), &[&code, &matches, &text]);
    boris_on(&target, "Code is parseable")
        .assert()
        .code(1)
        .stdout(predicate::str::contains(format!(
            "STALE {PARSEABLE}#text: listed in the baseline, but nothing it names fails now"
        )))
        .stdout(predicate::str::contains(", 1 STALE"));
    // Against the honest server, an expectation entry is stale too.
    let honest = target_file(dir.path(), "", &format!("baseline: [{code:?}]\n"));
    boris_on(&honest, "Code is parseable")
        .assert()
        .code(1)
        .stdout(predicate::str::contains(format!("STALE {code}:")));
}

#[test]
fn an_expectation_entry_must_name_a_scenario() {
    let dir = tempfile::tempdir().expect("tempdir");
    let target = target_file(
        dir.path(),
        "",
        "baseline: [\"boris::error-message-format::No such scenario#code\"]\n",
    );
    boris_on(&target, "Code is parseable")
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "baseline names no scenario: `boris::error-message-format::No such scenario#code`",
        ));
}

/// A target file for `flaky.sh`, which serves the `wrong-code` mutation on every
/// other start, counting starts in `dir/starts`.
fn flaky_target(dir: &Path, more: &str) -> std::path::PathBuf {
    let path = dir.join("flaky.yaml");
    std::fs::write(
        &path,
        format!(
            "name: flaky\ncommand: [bash, {:?}, {:?}, {:?}, \"{{root}}\"]\n\
             # It counts its starts in a file of this folder, outside its fixture.\n\
             isolation: {{ writable: [{:?}] }}\n{more}",
            repo().join("tests/servers/flaky.sh"),
            dir.join("starts"),
            exe(),
            dir
        ),
    )
    .expect("write target");
    path
}

#[test]
fn a_server_whose_verdict_changes_is_flaky_and_fails_the_run() {
    let dir = tempfile::tempdir().expect("tempdir");
    let target = flaky_target(dir.path(), "");
    let json = dir.path().join("report.json");
    let out = boris_on(&target, "Code is parseable")
        .args(["--repeat", "3", "--jobs", "1", "--json"])
        .arg(&json)
        .assert()
        .code(1)
        .get_output()
        .stdout
        .clone();
    let text = String::from_utf8_lossy(&out);
    assert!(
        text.contains(&format!(
            "FLAKY {PARSEABLE}: 3 attempts, not all with the same verdict"
        )),
        "{text}"
    );
    // The attempts side by side, then the block of one that failed. Which
    // attempt gets which start is not fixed: on one job, the next attempt's
    // server starts while the one before runs (warm spares).
    let said = |verdict: &str| {
        (1..=3)
            .filter(|n| text.contains(&format!("  attempt {n}: {verdict}")))
            .count()
    };
    assert_eq!((said("FAIL (code: "), said("PASS\n")), (2, 1), "{text}");
    assert!(text.contains(&format!("FAIL {PARSEABLE}\n")), "{text}");
    assert!(text.contains("0 KNOWN, 1 FLAKY"), "{text}");
    let doc = assert_matches_schema(REPORT_SCHEMA, &json);
    assert_eq!(doc["scenarios"][0]["standing"], "FLAKY", "{doc:#}");
    let mut attempts: Vec<&str> = doc["scenarios"][0]["attempts"]
        .as_array()
        .expect("attempts")
        .iter()
        .filter_map(|a| a.as_str())
        .collect();
    attempts.sort_unstable();
    assert_eq!(attempts, ["FAIL", "FAIL", "PASS"], "{doc:#}");

    // Listed in the baseline, it is a known failure and the run holds.
    let _ = std::fs::remove_file(dir.path().join("starts"));
    let listed = flaky_target(dir.path(), &format!("baseline: [{PARSEABLE:?}]\n"));
    boris_on(&listed, "Code is parseable")
        .args(["--repeat", "3", "--jobs", "1"])
        .assert()
        .success()
        .stdout(predicate::str::contains("1 KNOWN, 0 FLAKY"));
}

#[test]
fn an_honest_server_repeated_is_not_flaky() {
    let dir = tempfile::tempdir().expect("tempdir");
    let json = dir.path().join("report.json");
    toolspec()
        .args([
            "run",
            "--suite",
            "boris",
            "--filter",
            "bash-tool-error-codes",
            "--repeat",
            "3",
            "--json",
        ])
        .arg(&json)
        .assert()
        .success()
        .stdout(predicate::str::contains("0 FLAKY"));
    let doc = assert_matches_schema(REPORT_SCHEMA, &json);
    for scenario in doc["scenarios"].as_array().expect("scenarios") {
        assert_eq!(
            scenario["attempts"],
            serde_json::json!(["PASS", "PASS", "PASS"]),
            "{scenario:#}"
        );
    }
}

#[test]
fn a_suite_tool_the_server_lacks_is_unsupported_not_failed() {
    let dir = tempfile::tempdir().expect("tempdir");
    // The server is asked for `shell` instead of `bash`, which it does not list.
    let target = target_file(dir.path(), "", "tools: { bash: shell }\n");
    let json = dir.path().join("report.json");
    let out = boris_on(&target, "non-zero-bash-exit-codes")
        .args(["--verbose", "--json"])
        .arg(&json)
        .assert()
        // Nothing was judged: a gate must not pass on that.
        .code(1)
        .get_output()
        .stdout
        .clone();
    let text = String::from_utf8_lossy(&out);
    assert!(
        text.contains("note: `mutated` does not list the suite's tool(s) shell: the scenarios calling them are UNSUPPORTED"),
        "{text}"
    );
    assert!(
        text.contains("UNSUPPORTED boris::non-zero-bash-exit-codes-are-not-errors::Command exits with code 1: the server does not list `shell` (the suite's `bash`)"),
        "{text}"
    );
    assert!(!text.contains("warning:"), "no set-up warnings:\n{text}");
    assert!(
        text.contains("0 PASS, 0 FAIL, 0 ERROR, 0 SKIP, 3 UNSUPPORTED"),
        "{text}"
    );
    // UNSUPPORTED stays in the score's total.
    assert!(text.contains("(spec 0/3, upstream 0/0)"), "{text}");
    assert!(text.contains("error: no scenario was judged"), "{text}");
    let doc = assert_matches_schema(REPORT_SCHEMA, &json);
    assert_eq!(doc["counts"]["UNSUPPORTED"], 3, "{doc:#}");

    // A scenario calling other tools is still judged beside them.
    boris_on(&target, "Code is parseable")
        .assert()
        .success()
        .stdout(predicate::str::contains("2 PASS, 0 FAIL"));
}

#[test]
fn a_target_that_claims_every_tool_fails_where_one_is_missing() {
    let dir = tempfile::tempdir().expect("tempdir");
    let target = target_file(
        dir.path(),
        "",
        "tools: { bash: shell }\nrequire_all_tools: true\n",
    );
    boris_on(&target, "non-zero-bash-exit-codes")
        .assert()
        .code(1)
        .stdout(predicate::str::contains(
            "the server does not list `shell` (the suite's `bash`), and the target claims every tool of the spec (require_all_tools: true)",
        ))
        .stdout(predicate::str::contains("0 PASS, 3 FAIL, 0 ERROR, 0 SKIP, 0 UNSUPPORTED"));
}

#[test]
fn basis_selects_a_conformance_level() {
    // One requirement that has scenarios of both bases (6 spec, 14 upstream) shows
    // the selection as well as the whole suite would, at a fifth of the servers.
    let summary = |basis: &str| {
        let out = toolspec()
            .args(["run", "--suite", "gemini-cli", "--filter", "read_file::"])
            .args(["--basis", basis])
            .assert()
            .success()
            .get_output()
            .stdout
            .clone();
        let text = String::from_utf8_lossy(&out).into_owned();
        text.lines()
            .find(|l| l.starts_with("gemini-cli: "))
            .unwrap_or_else(|| panic!("no summary in:\n{text}"))
            .to_string()
    };
    let spec = summary("spec");
    let upstream = summary("upstream");
    let all = summary("all");
    let level = |line: &str, name: &str| -> (u32, u32) {
        let at = line.find(&format!("{name} ")).expect("level") + name.len() + 1;
        let figure: String = line[at..]
            .chars()
            .take_while(|c| c.is_ascii_digit() || *c == '/')
            .collect();
        let (passed, total) = figure.split_once('/').expect("a/b");
        (passed.parse().expect("n"), total.parse().expect("n"))
    };
    assert_eq!(level(&spec, "upstream"), (0, 0), "{spec}");
    assert_eq!(level(&upstream, "spec"), (0, 0), "{upstream}");
    assert!(level(&spec, "spec").1 > 0 && level(&upstream, "upstream").1 > 0);
    assert_eq!(level(&all, "spec"), level(&spec, "spec"), "{all}");
    assert_eq!(
        level(&all, "upstream"),
        level(&upstream, "upstream"),
        "{all}"
    );
}

/// The numbers of a summary line, by name: `PASS` -> 40, ..., `spec` -> (38, 41).
fn summary_counts(line: &str) -> Value {
    let mut counts = serde_json::Map::new();
    let (words, levels) = line.split_once(" (spec ").expect("levels");
    for part in words.split(": ").nth(1).expect("counts").split(", ") {
        let (n, name) = part.split_once(' ').expect("N NAME");
        counts.insert(name.to_string(), Value::from(n.parse::<u64>().expect("n")));
    }
    counts.entry("STALE").or_insert(Value::from(0));
    counts.entry("NEW").or_insert(Value::from(0));
    counts.entry("ESCAPE").or_insert(Value::from(0));
    let levels = levels.split(')').next().expect(")");
    for (name, figure) in [
        ("spec", levels.split(", upstream ").next()),
        ("upstream", levels.split(", upstream ").nth(1)),
    ] {
        let (passed, total) = figure.expect("figure").split_once('/').expect("a/b");
        counts.insert(
            name.to_string(),
            serde_json::json!({ "passed": passed.parse::<u64>().expect("n"), "total": total.parse::<u64>().expect("n") }),
        );
    }
    Value::Object(counts)
}

#[test]
#[ignore = "deep tier: .ci/run runs it, as does cargo test -- --ignored"]
fn the_summary_line_and_every_report_give_the_same_counts() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (json, junit, markdown) = (
        dir.path().join("r.json"),
        dir.path().join("r.xml"),
        dir.path().join("r.md"),
    );
    // A mixed run: passes, failures, a known failure, UNSUPPORTED, both levels.
    let target = target_file(
        dir.path(),
        ", --mutate, wrong-code",
        &format!("tools: {{ task_output: task_result }}\nbaseline: [{PARSEABLE:?}]\n"),
    );
    let out = toolspec()
        .args(["run", "--suite", "boris", "--target"])
        .arg(&target)
        .arg("--json")
        .arg(&json)
        .arg("--junit")
        .arg(&junit)
        .arg("--markdown")
        .arg(&markdown)
        .assert()
        .code(1)
        .get_output()
        .stdout
        .clone();
    let text = String::from_utf8_lossy(&out);
    let line = text
        .lines()
        .find(|l| l.starts_with("boris: "))
        .expect("suite line");
    let total = text
        .lines()
        .find(|l| l.starts_with("total: "))
        .expect("total line");
    let from_text = summary_counts(line);
    assert_eq!(summary_counts(total), from_text);
    for name in ["PASS", "FAIL", "UNSUPPORTED", "KNOWN"] {
        assert!(from_text[name].as_u64() > Some(0), "{name} in {line}");
    }

    let doc = assert_matches_schema(REPORT_SCHEMA, &json);
    assert_eq!(doc["counts"], from_text, "JSON run counts vs {line}");
    assert_eq!(
        doc["suites"][0]["counts"], from_text,
        "JSON suite counts vs {line}"
    );

    let xml = std::fs::read_to_string(&junit).expect("junit");
    for (name, value) in from_text.as_object().expect("map") {
        let shown = match value {
            Value::Object(level) => format!("{}/{}", level["passed"], level["total"]),
            n => n.to_string(),
        };
        assert!(
            xml.contains(&format!(
                "<property name=\"toolspec.{name}\" value=\"{shown}\"/>"
            )),
            "{name}={shown} not in:\n{xml}"
        );
    }

    let md = std::fs::read_to_string(&markdown).expect("markdown");
    let counts_line = line
        .split_once(": ")
        .map(|(_, rest)| rest.split(" in ").next().unwrap_or_default())
        .expect("counts");
    assert!(md.contains(counts_line), "{counts_line} not in:\n{md}");
}
