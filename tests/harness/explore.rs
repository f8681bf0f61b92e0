//! `toolspec explore`: the reference explored against itself finds nothing in any
//! suite, a catalogue mutation of each dialect is found, a run prints the same at
//! any `--jobs`, and bad usage is refused with a message naming what is wrong.

use crate::support::{assert_matches_schema, living, target_file, toolspec, EXPLORE_SCHEMA};

/// Runs `toolspec explore` with `args`, returning the exit code, stdout and stderr.
pub(crate) fn explore(args: &[&str]) -> (Option<i32>, String, String) {
    let output = toolspec()
        .arg("explore")
        .args(args)
        .output()
        .expect("toolspec runs");
    (
        output.status.code(),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

/// The reference explored against itself: any divergence is a bug in the
/// reference server (an answer that changes from run to run) or in explore. Ten
/// cases here, to keep `cargo test` short; CI explores 300 a suite with another seed.
fn finds_nothing_against_itself(suite: &str) {
    let (code, stdout, stderr) = explore(&[
        "--suite", suite, "--seed", "29", "--cases", "10", "--jobs", "4",
    ]);
    assert_eq!(code, Some(0), "{suite}:\n{stdout}\n{stderr}");
    assert!(
        stdout.starts_with(&format!("explore {suite}: seed 29, 10 cases")),
        "{stdout}"
    );
    assert!(stdout.contains(": 10 cases, "), "{stdout}");
    assert!(stdout.contains(" 0 divergences "), "{stdout}");
}

#[test]
fn boris_against_itself_finds_nothing() {
    finds_nothing_against_itself("boris");
}

#[test]
#[ignore = "deep tier: .ci/run runs it, as does cargo test -- --ignored"]
fn gemini_cli_against_itself_finds_nothing() {
    finds_nothing_against_itself("gemini-cli");
}

#[test]
#[ignore = "deep tier: .ci/run runs it, as does cargo test -- --ignored"]
fn ikigai_against_itself_finds_nothing() {
    finds_nothing_against_itself("ikigai");
}

#[test]
#[ignore = "deep tier: .ci/run runs it, as does cargo test -- --ignored"]
fn agent_tools_against_itself_finds_nothing() {
    finds_nothing_against_itself("agent-tools");
}

/// A mutation of `suite` is found, shrunk, and written with `--out` as a suite of
/// scenario files; explore's round trip has run each kept one three times on the
/// reference (passing) and once on the mutation (failing). With `run_written`, the
/// written suite is also run with `--specs` on the reference, where it must pass.
fn found_shrunk_and_written(suite: &str, mutation: &str, seed: &str, run_written: bool) {
    let out = tempfile::tempdir().expect("tempdir");
    let out_dir = out.path().to_str().expect("utf-8 path");
    let (code, stdout, stderr) = explore(&[
        "--suite",
        suite,
        "--mutate",
        mutation,
        "--seed",
        seed,
        "--cases",
        "4",
        "--jobs",
        "4",
        "--shrink-budget",
        "4",
        "--out",
        out_dir,
    ]);
    assert_eq!(code, Some(1), "{suite} {mutation}:\n{stdout}\n{stderr}");
    assert!(
        stdout.contains("DIVERGENCE [convention]"),
        "{suite} {mutation}:\n{stdout}"
    );
    assert!(stdout.contains("--- oracle"), "{stdout}");
    assert!(stdout.contains("  shrunk in "), "{stdout}");
    assert!(!stdout.contains(" 0 divergences "), "{stdout}");
    let written: Vec<String> = std::fs::read_dir(out.path().join(suite))
        .expect("the suite folder")
        .filter_map(Result::ok)
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains("-convention-"))
        .collect();
    assert!(!written.is_empty(), "{suite}:\n{stdout}");
    let text =
        std::fs::read_to_string(out.path().join(suite).join(&written[0])).expect("a scenario file");
    assert!(text.contains("basis: spec"), "{text}");
    assert!(text.contains(&format!("seed {seed}")), "{text}");
    assert!(
        text.contains("not been checked against the real program"),
        "{text}"
    );
    if run_written {
        let run = toolspec()
            .arg("--specs")
            .arg(out.path())
            .args(["run", "--suite", suite])
            .output()
            .expect("toolspec runs");
        let run_out = String::from_utf8_lossy(&run.stdout);
        assert_eq!(run.status.code(), Some(0), "{suite}:\n{run_out}");
        assert!(run_out.contains(" 0 FAIL"), "{run_out}");
    }
}

#[test]
#[ignore = "deep tier: .ci/run runs it, as does cargo test -- --ignored"]
fn boris_drop_code_prefix_is_found_shrunk_and_written() {
    found_shrunk_and_written("boris", "drop-code-prefix", "29", true);
}

#[test]
#[ignore = "deep tier: .ci/run runs it, as does cargo test -- --ignored"]
fn agent_tools_uppercase_codes_is_found_shrunk_and_written() {
    found_shrunk_and_written("agent-tools", "uppercase-codes", "29", false);
}

#[test]
#[ignore = "deep tier: .ci/run runs it, as does cargo test -- --ignored"]
fn ikigai_omit_is_error_is_found_shrunk_and_written() {
    found_shrunk_and_written("ikigai", "omit-is-error", "29", false);
}

#[test]
#[ignore = "deep tier: .ci/run runs it, as does cargo test -- --ignored"]
fn gemini_cli_drop_trailing_period_is_found_shrunk_and_written() {
    found_shrunk_and_written("gemini-cli", "drop-trailing-period", "11", false);
}

/// A run's signatures written as a baseline (or its `--json` file) make the same
/// run exit 0, each divergence marked as known; a malformed baseline is refused
/// naming its line. The case (seed 5's case 2, alone in shard 3 of 3) diverges at
/// its last call, so going on past the known divergence finds nothing after it.
#[test]
fn a_baseline_of_known_signatures_lets_only_new_ones_fail() {
    let dir = tempfile::tempdir().expect("tempdir");
    let baseline = dir.path().join("known.txt");
    let baseline_arg = baseline.to_str().expect("utf-8 path");
    let json = dir.path().join("run.json");
    let json_arg = json.to_str().expect("utf-8 path");
    let common = [
        "--suite",
        "boris",
        "--mutate",
        "drop-code-prefix",
        "--seed",
        "5",
        "--cases",
        "1",
        "--partition",
        "3/3",
    ];
    let (code, stdout, stderr) = explore(
        &[
            &common[..],
            &[
                "--shrink-budget",
                "1",
                "--write-baseline",
                baseline_arg,
                "--json",
                json_arg,
            ],
        ]
        .concat(),
    );
    assert_eq!(code, Some(1), "{stdout}\n{stderr}");
    assert!(
        stdout.contains("(stopped by the budget of 1 re-runs)"),
        "{stdout}"
    );
    let (code, stdout, stderr) = explore(&[&common[..], &["--baseline", baseline_arg]].concat());
    assert_eq!(code, Some(0), "{stdout}\n{stderr}");
    assert!(stdout.contains(", in the baseline"), "{stdout}");
    assert!(stdout.contains(" 0 new, "), "{stdout}");
    let (code, stdout, _) = explore(&[&common[..], &["--baseline", json_arg]].concat());
    assert_eq!(code, Some(0), "{stdout}");

    std::fs::write(
        &baseline,
        "# known\nconvention/view/0123456789abcdef\nnot one\n",
    )
    .expect("write");
    let (code, _, stderr) = explore(&[&common[..], &["--baseline", baseline_arg]].concat());
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("known.txt:3:"), "{stderr}");
}

/// A YAML baseline (a triage): written untriaged with each class's witness case,
/// a class given as a rule over the readings accepts every signature it matches,
/// and a listed class whose witness case no longer diverges is reported STALE and
/// fails the run, as a run's baseline entry that starts passing does.
#[test]
#[ignore = "deep tier: .ci/run runs it, as does cargo test -- --ignored"]
fn a_yaml_baseline_accepts_classes_by_rule_and_reports_stale_ones() {
    let dir = tempfile::tempdir().expect("tempdir");
    let written = dir.path().join("written.yaml");
    let written_arg = written.to_str().expect("utf-8 path");
    let mutated = [
        "--suite",
        "boris",
        "--mutate",
        "drop-code-prefix",
        "--seed",
        "5",
        "--cases",
        "3",
        "--shrink-budget",
        "0",
    ];
    let (code, stdout, stderr) =
        explore(&[&mutated[..], &["--write-baseline", written_arg]].concat());
    assert_eq!(code, Some(1), "{stdout}\n{stderr}");
    let text = std::fs::read_to_string(&written).expect("written");
    assert!(text.contains("  verdict: untriaged\n"), "{text}");
    assert!(text.contains("  witness: '5:"), "{text}");

    // One rule for the whole cause: every error read without its code.
    let triaged = dir.path().join("triaged.yaml");
    let triaged_arg = triaged.to_str().expect("utf-8 path");
    std::fs::write(
        &triaged,
        "- class: no-code-prefix\n  verdict: departure\n  reason: the mutation drops the prefix\n  \
         match: { level: convention, subject: 'error without a code' }\n  witness: '5:0'\n",
    )
    .expect("write");
    let (code, stdout, stderr) = explore(&[&mutated[..], &["--baseline", triaged_arg]].concat());
    assert_eq!(code, Some(0), "{stdout}\n{stderr}");
    assert!(
        stdout.contains(", in the baseline as no-code-prefix (departure)"),
        "{stdout}"
    );
    assert!(
        stdout.contains(": 1 class, 1 seen, 0 not reached"),
        "{stdout}"
    );
    assert!(!stdout.contains("STALE"), "{stdout}");

    // The same classes against a server that does not deviate: all stale.
    let (code, stdout, stderr) = explore(&[
        "--suite",
        "boris",
        "--seed",
        "5",
        "--cases",
        "1",
        "--baseline",
        written_arg,
    ]);
    assert_eq!(code, Some(1), "{stdout}\n{stderr}");
    assert!(
        stdout.contains(
            " 0 seen, 0 not reached whose witness still shows them, 0 without a witness, "
        ),
        "{stdout}"
    );
    let stale = stdout.lines().filter(|l| l.starts_with("STALE ")).count();
    assert!(stale >= 2, "{stdout}");
    assert!(
        stdout.contains("written.yaml:5): its witness case 5:"),
        "{stdout}"
    );
    assert!(
        stdout.contains(" runs clean; the class no longer diverges"),
        "{stdout}"
    );
}

/// With `--baseline`, a case goes on past a divergence the baseline names while
/// the fixtures agree: boris's `drop-code-prefix`, seed 5, case 28 alone (shard
/// 29 of 40), reads a missing file with `view` (an error without its code) and
/// then fails a `str_replace` the same way. A baseline naming the `view` class
/// passes over the first and finds the second, new, shrunk toward it; the first
/// counts as its class seen and as a call that disagreed. A baseline naming only
/// the later class, or none, stops the case at the first, as before.
#[test]
#[ignore = "deep tier: .ci/run runs it, as does cargo test -- --ignored"]
fn a_case_goes_on_past_a_known_divergence_and_finds_a_later_new_one() {
    let dir = tempfile::tempdir().expect("tempdir");
    let class = |tool: &str, witness: &str| {
        format!(
            "- class: {tool}-without-code\n  verdict: departure\n  reason: the mutation drops the prefix\n  \
             match: {{ level: convention, tool: {tool}, subject: 'error without a code' }}\n{witness}"
        )
    };
    let view = dir.path().join("view.yaml");
    std::fs::write(&view, class("view", "  witness: '5:28'\n")).expect("write");
    let str_replace = dir.path().join("str_replace.yaml");
    std::fs::write(&str_replace, class("str_replace", "")).expect("write");
    let json = dir.path().join("run.json");
    let case_28 = [
        "--suite",
        "boris",
        "--mutate",
        "drop-code-prefix",
        "--seed",
        "5",
        "--cases",
        "1",
        "--partition",
        "29/40",
        "--shrink-budget",
        "20",
    ];
    let path = |p: &std::path::Path| p.to_str().expect("utf-8 path").to_string();
    let (code, stdout, stderr) = explore(
        &[
            &case_28[..],
            &["--baseline", &path(&view), "--json", &path(&json)],
        ]
        .concat(),
    );
    assert_eq!(code, Some(1), "{stdout}\n{stderr}");
    assert!(
        stdout.contains(
            "PASSED OVER [convention] case 28 call 1 of 4: view\n  signature convention/view/"
        ),
        "{stdout}"
    );
    assert!(
        stdout.contains(
            ", in the baseline as view-without-code (departure)\nDIVERGENCE [convention] case 28 call 2 of 4: str_replace\n"
        ),
        "{stdout}"
    );
    assert!(
        stdout.contains(" 1 divergence (escape 0, broken 0, convention 1, text 0, files 0), 1 known, passed over, 0 cases not run"),
        "{stdout}"
    );
    assert!(
        stdout.contains(": 2 signatures, 1 new, 1 in the baseline"),
        "{stdout}"
    );
    // The class was only passed over, and still counts as seen.
    assert!(
        stdout.contains(": 1 class, 1 seen, 0 not reached"),
        "{stdout}"
    );
    let written = assert_matches_schema(EXPLORE_SCHEMA, &json);
    assert_eq!(written["schema_version"], 7);
    // Both calls compared, and both disagreed.
    assert_eq!(written["calls"], 2);
    assert_eq!(written["agreement"]["convention"], 0.0);
    let passed = written["passed_over"].as_array().expect("passed_over");
    assert_eq!(passed.len(), 1, "{passed:?}");
    assert_eq!(passed[0]["case"], 28);
    assert_eq!(passed[0]["call"], 1);
    assert_eq!(passed[0]["class"], "view-without-code");
    assert_eq!(written["divergences"][0]["call"], 2);
    let signatures = written["signatures"].as_array().expect("signatures");
    let new: Vec<_> = signatures.iter().filter(|s| s["known"] == false).collect();
    assert_eq!(new.len(), 1, "{signatures:?}");
    assert_eq!(new[0]["tool"], "str_replace");
    // Shrunk toward the new one: it ends at the str_replace and reads as it did.
    let shrunk_calls = new[0]["shrunk"]["calls"].as_array().expect("shrunk");
    assert_eq!(
        shrunk_calls.last().map(|c| &c["tool"]),
        Some(&serde_json::json!("str_replace")),
        "{shrunk_calls:?}"
    );
    assert_eq!(new[0]["shrunk"]["oracle"], "error STR_REPLACE_NOT_FOUND");
    let known: Vec<_> = signatures.iter().filter(|s| s["known"] == true).collect();
    assert_eq!(known.len(), 1, "{signatures:?}");
    assert_eq!(known[0]["passed_over"], 1);
    assert_eq!(written["baseline"]["classes"][0]["signatures_seen"], 1);

    // Its witness is case 28, which passes over the class before it stops: a
    // run that does not reach it finds it still shown there, not stale.
    let case_0 = case_28.map(|a| if a == "29/40" { "1/40" } else { a });
    let (_, stdout, stderr) = explore(&[&case_0[..], &["--baseline", &path(&view)]].concat());
    assert!(
        stdout.contains(": 1 class, 0 seen, 1 not reached whose witness still shows it, 0 without a witness, 0 stale"),
        "{stdout}\n{stderr}"
    );

    // An unknown first divergence stops the case, as does a run without a
    // baseline: one call compared, nothing passed over.
    for baseline in [Some(path(&str_replace)), None] {
        let mut args: Vec<String> = case_28.iter().map(|a| a.to_string()).collect();
        args.extend(["--json".to_string(), path(&json)]);
        if let Some(baseline) = &baseline {
            args.extend(["--baseline".to_string(), baseline.clone()]);
        }
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let (code, stdout, stderr) = explore(&args);
        assert_eq!(code, Some(1), "{stdout}\n{stderr}");
        assert!(
            stdout.contains("DIVERGENCE [convention] case 28 call 1 of 4: view\n"),
            "{stdout}"
        );
        assert!(!stdout.contains("PASSED OVER"), "{stdout}");
        assert_eq!(
            stdout.contains(", 0 known, passed over, 0 cases not run"),
            baseline.is_some(),
            "{stdout}"
        );
        assert!(
            !stdout.contains("passed over") || baseline.is_some(),
            "{stdout}"
        );
        let written = assert_matches_schema(EXPLORE_SCHEMA, &json);
        assert_eq!(written["calls"], 1);
        assert_eq!(written["passed_over"], serde_json::json!([]));
    }
}

#[test]
#[ignore = "deep tier: .ci/run runs it, as does cargo test -- --ignored"]
fn one_seed_prints_the_same_at_any_jobs_and_the_json_has_every_divergence() {
    let dir = tempfile::tempdir().expect("tempdir");
    let json = dir.path().join("explore.json");
    let args = [
        "--suite",
        "boris",
        "--mutate",
        "drop-code-prefix",
        "--seed",
        "28",
        "--cases",
        "6",
        "--shrink-budget",
        "4",
    ];
    let (_, one, _) = explore(&[&args[..], &["--jobs", "1"]].concat());
    let out = dir.path().join("out");
    let (_, four_and_written, _) = explore(
        &[
            &args[..],
            &[
                "--jobs",
                "4",
                "--json",
                json.to_str().expect("utf-8 path"),
                "--out",
                out.to_str().expect("utf-8 path"),
            ],
        ]
        .concat(),
    );
    let (four, written_lines) = four_and_written
        .split_once("\nwrote ")
        .expect("--out says what it wrote");
    assert_eq!(one, format!("{four}\n"));
    // One case edits through a link in the root to a file beside it that is not
    // there yet: its scenarios give that place (`given.outside`) and the link,
    // and the answer naming it is written with `{outside}`, so they pass on the
    // oracle too.
    assert!(
        written_lines.contains("; 0 scenarios dropped\n"),
        "{written_lines}"
    );
    let beside = std::fs::read_dir(out.join("boris"))
        .expect("the suite written")
        .filter_map(|entry| std::fs::read_to_string(entry.ok()?.path()).ok())
        .find(|text| text.contains("\"symlink\":\"../outside/new.txt\""))
        .expect("a scenario through a link to a file beside the root");
    assert!(
        beside.contains(
            "      outside: { files: [\"secret.txt\",\"{root}-x/secret.txt\"], writable: true }\n"
        ),
        "{beside}"
    );
    assert!(
        beside.contains("path \\\"{outside}/new.txt\\\" is outside allowed directories\""),
        "{beside}"
    );
    let written = assert_matches_schema(EXPLORE_SCHEMA, &json);
    assert_eq!(written["schema_version"], 7);
    assert_eq!(written["seed"], 28);
    let headings = four.lines().filter(|l| l.starts_with("DIVERGENCE")).count();
    assert!(headings > 0, "{four}");
    // Every divergence here is a convention one: the calls before each agreed,
    // the diverging one did not, at every level from convention on.
    let calls = written["calls"].as_f64().expect("calls");
    let agreed = 1.0 - headings as f64 / calls;
    for level in ["convention", "text", "files"] {
        let fraction = written["agreement"][level].as_f64().expect(level);
        assert!(
            (fraction - agreed).abs() < 1e-9,
            "{level}: {fraction} vs {agreed}"
        );
    }
    assert!(
        four.contains(&format!(": agreement over {calls} calls: convention ")),
        "{four}"
    );
    assert!(written["baseline"].is_null());
    assert_eq!(
        written["divergences"].as_array().map(Vec::len),
        Some(headings)
    );
    let signatures = written["signatures"].as_array().expect("signatures");
    assert_eq!(
        four.lines()
            .filter(|l| l.starts_with("  signature ") && !l.contains(", as case "))
            .count(),
        signatures.len()
    );
    assert!(signatures.iter().all(|s| s["shrunk"]["runs"].is_u64()));
}

/// An escape is a divergence of its own level, judged by effect on a side meant
/// to stay inside its root: explore against a reference that lets in a sibling
/// named like its root (a check by string prefix) finds a read and a write through
/// it, shrinks each to the one place beside the root it needs, and writes scenarios
/// that give that place (`given.outside`): they pass on the reference and are
/// ESCAPE on the mutated server, which `run` judges by the same canaries.
#[test]
#[ignore = "deep tier: .ci/run runs it, as does cargo test -- --ignored"]
fn an_escape_is_found_shrunk_and_written_as_scenarios_that_catch_it() {
    let out = tempfile::tempdir().expect("tempdir");
    let json = out.path().join("explore.json");
    let (code, stdout, stderr) = explore(&[
        "--suite",
        "agent-tools",
        "--mutate",
        "escape-sibling-prefix",
        "--seed",
        "1",
        "--cases",
        "12",
        "--jobs",
        "4",
        "--shrink-budget",
        "20",
        "--out",
        out.path().to_str().expect("utf-8 path"),
        "--json",
        json.to_str().expect("utf-8 path"),
    ]);
    assert_eq!(code, Some(1), "{stdout}\n{stderr}");
    for (tool, line) in [
        ("read_file", "+ESCAPE read: read_file {root}-x/secret.txt returned the content of {root}-x/secret.txt"),
        ("write_file", "+ESCAPE write: write_file {root}-x/secret.txt changed {root}-x/secret.txt"),
    ] {
        assert!(stdout.contains("DIVERGENCE [escape] "), "{stdout}");
        assert!(stdout.contains(&format!("  signature escape/{tool}/")), "{stdout}");
        assert!(stdout.contains("\n    -stayed inside the root\n"), "{stdout}");
        assert!(stdout.contains(line), "{stdout}");
    }
    // Shrunk to the one place the escape reached.
    assert!(
        stdout.contains("  beside the root: {root}-x/secret.txt\n  1. read_file {\"path\":\"{root}-x/secret.txt\"}"),
        "{stdout}"
    );
    assert!(stdout.contains("divergences (escape 2, "), "{stdout}");
    let report = assert_matches_schema(EXPLORE_SCHEMA, &json);
    let levels: Vec<&str> = report["divergences"]
        .as_array()
        .expect("divergences")
        .iter()
        .filter_map(|d| d["level"].as_str())
        .collect();
    assert_eq!(
        levels.iter().filter(|l| **l == "escape").count(),
        2,
        "{levels:?}"
    );
    let suite = out.path().join("agent-tools");
    let escape_files: Vec<String> = std::fs::read_dir(&suite)
        .expect("the suite folder")
        .filter_map(Result::ok)
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains("-escape-"))
        .collect();
    assert_eq!(escape_files.len(), 2, "{escape_files:?}");
    for name in &escape_files {
        let text = std::fs::read_to_string(suite.join(name)).expect("a scenario file");
        assert!(
            text.contains("      outside: { files: [\"{root}-x/secret.txt\"], writable: true }\n"),
            "{text}"
        );
        assert!(text.contains("(an escape from the root)"), "{text}");
    }
    let run = |mutation: Option<&str>| {
        let mut command = toolspec();
        command
            .arg("--specs")
            .arg(out.path())
            .args(["run", "--suite", "agent-tools"]);
        if let Some(mutation) = mutation {
            command.args(["--mutate", mutation]);
        }
        let output = command.output().expect("toolspec runs");
        (
            output.status.code(),
            String::from_utf8_lossy(&output.stdout).into_owned(),
        )
    };
    let (honest, honest_out) = run(None);
    assert_eq!(honest, Some(0), "{honest_out}");
    assert!(!honest_out.contains("ESCAPE "), "{honest_out}");
    let (mutated, mutated_out) = run(Some("escape-sibling-prefix"));
    assert_eq!(mutated, Some(1), "{mutated_out}");
    assert!(
        mutated_out.contains("ESCAPE read: read_file {root}-x/secret.txt returned the content of {root}-x/secret.txt"),
        "{mutated_out}"
    );
    assert!(
        mutated_out
            .contains("ESCAPE write: write_file {root}-x/secret.txt changed {root}-x/secret.txt"),
        "{mutated_out}"
    );
}

/// `--oracle FILE` replaces the reference as the oracle: a mutated reference
/// against itself finds nothing, and the honest reference as its subject diverges
/// with the oracle's answer as the mutated one.
#[test]
#[ignore = "deep tier: .ci/run runs it, as does cargo test -- --ignored"]
fn an_oracle_from_a_target_file_is_the_one_compared_against() {
    let dir = tempfile::tempdir().expect("tempdir");
    let oracle = target_file(dir.path(), ", --mutate, drop-code-prefix", "");
    let oracle = oracle.to_str().expect("utf-8 path");
    let common = [
        "--suite",
        "boris",
        "--oracle",
        oracle,
        "--seed",
        "3",
        "--cases",
        "8",
        "--shrink-budget",
        "0",
    ];
    let (code, stdout, stderr) = explore(&common);
    assert_eq!(code, Some(0), "{stdout}\n{stderr}");
    assert!(
        stdout.contains("oracle mutated, subject mutated"),
        "{stdout}"
    );
    let honest = format!(
        "{} reference-server --dialect boris --root {{root}}",
        crate::support::exe().display()
    );
    let (code, stdout, stderr) = explore(&[&common[..], &["--server", &honest]].concat());
    assert_eq!(code, Some(1), "{stdout}\n{stderr}");
    assert!(stdout.contains("    -error without a code"), "{stdout}");
}

/// A subject that dies mid-call is a divergence of its own level, with its stderr
/// tail, and the run goes on to the next case.
#[test]
#[ignore = "deep tier: .ci/run runs it, as does cargo test -- --ignored"]
fn a_subject_that_crashes_is_a_broken_divergence() {
    let script = crate::support::repo().join("tests/servers/hostile.sh");
    let server = format!("bash {} exit {{root}}", script.display());
    let (code, stdout, stderr) = explore(&[
        "--suite", "boris", "--server", &server, "--seed", "1", "--cases", "3",
    ]);
    assert_eq!(code, Some(1), "{stdout}\n{stderr}");
    let broken = stdout
        .lines()
        .filter(|l| l.starts_with("DIVERGENCE [broken] case ") && l.contains(" call 1 of "))
        .count();
    assert_eq!(broken, 3, "{stdout}");
    assert!(stdout.contains("subject's stderr (tail):"), "{stdout}");
    // A command line maps no settings, so none are drawn, and the run says so.
    assert!(
        stdout
            .contains("settings not drawn, as the subject `bash` cannot express them: allow, deny"),
        "{stdout}"
    );
    assert!(!stdout.contains("  settings: "), "{stdout}");
}

/// A deviation that only shows under a setting is reachable: the settings drawn
/// from `explore.yaml` reach both sides through their settings mappings, and
/// shrinking leaves out every drawn setting but the one the deviation needs.
#[test]
#[ignore = "deep tier: .ci/run runs it, as does cargo test -- --ignored"]
fn a_deviation_under_a_setting_is_found_with_the_setting_shown() {
    let dir = tempfile::tempdir().expect("tempdir");
    let json = dir.path().join("explore.json");
    let (code, stdout, stderr) = explore(&[
        "--json",
        json.to_str().expect("utf-8 path"),
        "--suite",
        "agent-tools",
        "--mutate",
        "read-only-ignored",
        "--seed",
        "8",
        "--cases",
        "8",
        "--jobs",
        "4",
    ]);
    assert_eq!(code, Some(1), "{stdout}\n{stderr}");
    assert!(
        stdout.contains("settings drawn, one case in three: max_file_bytes 1024|100000"),
        "{stdout}"
    );
    let headings = stdout
        .lines()
        .filter(|l| l.starts_with("DIVERGENCE"))
        .count();
    let read_only = stdout
        .lines()
        .filter(|l| l.starts_with("  settings: {") && l.contains("\"read_only\":true"))
        .count();
    assert!(headings > 0, "{stdout}");
    assert_eq!(read_only, headings, "{stdout}");
    let shrunk: Vec<&str> = stdout
        .lines()
        .filter(|l| l.starts_with("  settings: "))
        .collect();
    assert!(
        shrunk
            .iter()
            .all(|l| *l == r#"  settings: {"read_only":true}"#),
        "{stdout}"
    );
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).expect("json")).expect("json");
    let drawn_more = report["divergences"]
        .as_array()
        .expect("divergences")
        .iter()
        .filter(|d| d["settings"].as_object().is_some_and(|s| s.len() > 1))
        .count();
    assert!(
        drawn_more > 0,
        "the cases as drawn had other settings too: {report}"
    );
}

/// The reference behind `tests/servers/renamed.py`, which hides the tools named.
fn hiding(tools: &[&str]) -> String {
    let hidden: Vec<String> = tools.iter().map(|t| format!("-{t}")).collect();
    format!(
        "{} -S {} {} -- {} reference-server --dialect ikigai --root {{root}}",
        crate::support::python(),
        crate::support::repo()
            .join("tests/servers/renamed.py")
            .display(),
        hidden.join(" "),
        crate::support::exe().display()
    )
}

/// A subject lacking a tool: its calls are UNSUPPORTED, counted and not compared;
/// lacking every explored tool, the run says so in one line and exits 1.
#[test]
#[ignore = "deep tier: .ci/run runs it, as does cargo test -- --ignored"]
fn calls_of_tools_the_subject_does_not_list_are_unsupported() {
    let dir = tempfile::tempdir().expect("tempdir");
    let json = dir.path().join("explore.json");
    let lacking_bash = hiding(&["bash"]);
    let (code, stdout, stderr) = explore(&[
        "--suite",
        "ikigai",
        "--server",
        &lacking_bash,
        "--seed",
        "3",
        "--cases",
        "3",
        "--json",
        json.to_str().expect("utf-8 path"),
    ]);
    assert_eq!(code, Some(0), "{stdout}\n{stderr}");
    assert!(
        stdout.contains("the subject does not list bash: calls to it are UNSUPPORTED"),
        "{stdout}"
    );
    let written = assert_matches_schema(EXPLORE_SCHEMA, &json);
    let unsupported = written["unsupported"]["calls"].as_u64().unwrap_or(0);
    assert!(unsupported > 0, "{stdout}");
    assert!(
        stdout.contains(&format!("explore ikigai: {unsupported} calls UNSUPPORTED")),
        "{stdout}"
    );
    assert!(stdout.contains(" 0 divergences "), "{stdout}");

    let lacking_all = hiding(&["file_read", "file_write", "glob", "grep", "bash"]);
    let (code, stdout, stderr) = explore(&[
        "--suite",
        "ikigai",
        "--server",
        &lacking_all,
        "--seed",
        "1",
        "--cases",
        "3",
    ]);
    assert_eq!(code, Some(1), "{stdout}\n{stderr}");
    let said: Vec<&str> = stdout.lines().skip(1).collect();
    assert_eq!(
        said,
        ["explore ikigai: the subject lists none of the explored tools (bash, file_read, file_write, glob, grep): every call would be UNSUPPORTED, so nothing is explored"],
        "{stdout}"
    );
}

/// Shard K of N runs every N-th case from K-1, so the shards of `--cases C`
/// together diverge exactly where one run of `--cases C*N` does.
#[test]
#[ignore = "deep tier: .ci/run runs it, as does cargo test -- --ignored"]
fn the_shards_of_a_partitioned_run_together_find_what_the_whole_run_finds() {
    let dir = tempfile::tempdir().expect("tempdir");
    let common = [
        "--suite",
        "boris",
        "--mutate",
        "drop-code-prefix",
        "--seed",
        "9",
        "--jobs",
        "3",
        // What each side found is compared, not how it shrank.
        "--shrink-budget",
        "0",
    ];
    let divergences = |extra: &[&str], name: &str| {
        let json = dir.path().join(name);
        let json_arg = json.to_str().expect("utf-8 path");
        let (code, stdout, stderr) = explore(&[&common[..], extra, &["--json", json_arg]].concat());
        assert_eq!(code, Some(1), "{stdout}\n{stderr}");
        let written = assert_matches_schema(EXPLORE_SCHEMA, &json);
        written["divergences"]
            .as_array()
            .cloned()
            .unwrap_or_default()
    };
    let whole = divergences(&["--cases", "6"], "whole.json");
    let mut shards: Vec<serde_json::Value> = ["1/3", "2/3", "3/3"]
        .iter()
        .flat_map(|k| divergences(&["--cases", "2", "--partition", k], "shard.json"))
        .collect();
    shards.sort_by_key(|d| d["case"].as_u64());
    assert!(!whole.is_empty());
    assert_eq!(shards, whole);
}

#[test]
fn bad_budgets_and_partitions_exit_2_naming_the_form() {
    for (args, expected) in [
        (&["--partition", "3/2"][..], "expected K/N (or count:K/N)"),
        (
            &["--partition", "hash:1/2"][..],
            "splits cases by number only",
        ),
        (
            &["--seconds", "0"][..],
            "expected a whole number of seconds",
        ),
        (
            &["--seconds", "5", "--cases", "3"][..],
            "cannot be used with",
        ),
    ] {
        let (code, _, stderr) = explore(&[&["--suite", "boris"][..], args].concat());
        assert_eq!(code, Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(expected), "{args:?}: {stderr}");
    }
}

#[test]
fn bad_usage_exits_2_naming_what_is_wrong() {
    let (code, _, stderr) = explore(&["--suite", "nosuch", "--cases", "1"]);
    assert_eq!(code, Some(2));
    assert!(stderr.contains("no suite `nosuch`"), "{stderr}");
    let (code, _, stderr) = explore(&["--suite", "boris", "--mutate", "nosuch", "--cases", "1"]);
    assert_eq!(code, Some(2));
    assert!(stderr.contains("nosuch"), "{stderr}");
    let taken = tempfile::tempdir().expect("tempdir");
    std::fs::create_dir(taken.path().join("boris")).expect("mkdir");
    std::fs::write(taken.path().join("boris/mine.yaml"), "keep me\n").expect("write");
    let (code, _, stderr) = explore(&[
        "--suite",
        "boris",
        "--cases",
        "1",
        "--out",
        taken.path().to_str().expect("utf-8 path"),
    ]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("is not empty"), "{stderr}");
    assert_eq!(
        std::fs::read_to_string(taken.path().join("boris/mine.yaml")).expect("kept"),
        "keep me\n"
    );

    let specs = tempfile::tempdir().expect("tempdir");
    let exported = toolspec()
        .args(["suites", "export"])
        .arg(specs.path())
        .output()
        .expect("export");
    assert!(exported.status.success());
    let explore_file = specs.path().join("specs/ikigai/explore.yaml");
    std::fs::write(
        &explore_file,
        "tools:\n  file_read: { path: path }\n  bash: { command: shell, cwd: path }\n",
    )
    .expect("write");
    let output = toolspec()
        .arg("--specs")
        .arg(specs.path().join("specs"))
        .args(["explore", "--suite", "ikigai", "--cases", "1"])
        .output()
        .expect("toolspec runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("explore.yaml:3:"), "{stderr}");
    assert!(
        stderr.contains("tool `bash` has no argument `cwd`"),
        "{stderr}"
    );
}

/// The processes (not zombies) whose working folder is under `dir` or whose
/// command line names it: what an explore run with `TMPDIR=dir` started.
fn processes_under(dir: &std::path::Path) -> Vec<String> {
    let needle = dir.as_os_str().as_encoded_bytes();
    living(|process| {
        let in_cwd = std::fs::read_link(process.join("cwd")).is_ok_and(|c| c.starts_with(dir));
        let named = std::fs::read(process.join("cmdline"))
            .is_ok_and(|c| c.windows(needle.len()).any(|w| w == needle));
        in_cwd || named
    })
}

/// An explore run interrupted mid-way exits 130 and leaves no fixture and no
/// server behind, as `run` does (tests/harness/containment.rs).
#[test]
fn an_interrupted_explore_run_exits_130_and_leaves_nothing_behind() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let tmpdir = tmp.path().canonicalize().expect("canonical");
    let child = std::process::Command::new(crate::support::exe())
        .args([
            "explore", "--suite", "boris", "--seed", "9", "--cases", "2000", "--jobs", "2",
        ])
        .env("TMPDIR", &tmpdir)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("start toolspec");
    // Once cases run (past the oracle's tools/list), and a little into them.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    let mut seen = 0;
    while seen < 3 && std::time::Instant::now() < deadline {
        if !processes_under(&tmpdir).is_empty() {
            seen += 1;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    // SAFETY: sending a signal to our own child.
    unsafe {
        libc::kill(child.id() as i32, libc::SIGINT);
    }
    let output = child.wait_with_output().expect("wait");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(seen, 3, "no case was seen running to interrupt: {stderr}");
    assert_eq!(output.status.code(), Some(130), "{stderr}");
    let left: Vec<String> = std::fs::read_dir(&tmpdir)
        .expect("read dir")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(left, Vec::<String>::new(), "fixtures left behind");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(3);
    while !processes_under(&tmpdir).is_empty() && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    assert_eq!(
        processes_under(&tmpdir),
        Vec::<String>::new(),
        "processes left behind"
    );
}

/// `--no-isolation` reaches both sides, as the first line says: an oracle that
/// notes its start in a folder outside its root and a subject that writes there
/// get their writes only with it.
#[test]
fn no_isolation_runs_the_oracle_and_the_subject_without_isolation() {
    let dir = tempfile::tempdir().expect("tempdir");
    let canary = tempfile::tempdir().expect("tempdir");
    // The subject writes its TMPDIR too: give it one of the test's own.
    let tmpdir = tempfile::tempdir().expect("tempdir");
    let exe = crate::support::exe().display().to_string();
    let canary_path = canary.path().display().to_string();
    // A JSON list is a YAML one: no quoting of the shell's words to get wrong.
    let command = serde_json::json!([
        "bash",
        "-c",
        "echo started >> \"$0\"/oracle; exec \"$@\"",
        canary_path,
        exe,
        "reference-server",
        "--dialect",
        "boris",
        "--root",
        "{root}"
    ]);
    let oracle = dir.path().join("oracle.yaml");
    std::fs::write(&oracle, format!("name: noting\ncommand: {command}\n")).expect("oracle");
    let subject = format!(
        "bash {} write-outside {canary_path}",
        crate::support::repo()
            .join("tests/servers/hostile.sh")
            .display()
    );
    let explore = |extra: &[&str]| {
        let output = toolspec()
            .env("TMPDIR", tmpdir.path())
            .args(["explore", "--suite", "boris", "--oracle"])
            .arg(&oracle)
            .args(["--server", &subject, "--seed", "1", "--cases", "2"])
            .args(["--shrink-budget", "0"])
            .args(extra)
            .output()
            .expect("toolspec runs");
        let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
        let stderr = String::from_utf8_lossy(&output.stderr);
        // Every answer of the subject differs from the oracle's.
        assert_eq!(output.status.code(), Some(1), "{stdout}\n{stderr}");
        stdout
    };
    let listing = || {
        let mut names: Vec<String> = std::fs::read_dir(canary.path())
            .expect("the canary")
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    };

    let closed = explore(&[]);
    assert!(!closed.contains("--no-isolation"), "{closed}");
    assert_eq!(listing(), Vec::<String>::new());

    let open = explore(&["--no-isolation"]);
    let first = open.lines().next().unwrap_or_default();
    assert!(
        first.ends_with("oracle noting, subject bash (isolation: off, --no-isolation)"),
        "{open}"
    );
    assert_eq!(listing(), ["oracle", "written"]);
}
