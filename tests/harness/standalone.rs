//! toolspec outside its own repository: the suites built into the binary (with their
//! clause indexes, so coverage needs no document beside it), `--specs` adding or
//! replacing suites, `suites export`, and a gate that cannot pass on nothing.

use std::path::Path;

use assert_cmd::Command;
use predicates::prelude::*;

use crate::support::exe;

/// The `toolspec` binary alone in a fresh folder (linked, or copied), run from
/// there: nothing of the repository beside it, and a stray empty `specs/` in the
/// current folder.
fn lone_copy(dir: &Path) -> Command {
    let copy = dir.join("bin").join("toolspec");
    // Placed once per folder: a later call may run beside a copy already running,
    // and writing over a running program fails (ETXTBSY).
    if !copy.exists() {
        std::fs::create_dir_all(copy.parent().expect("parent")).expect("mkdir");
        crate::support::place_executable(exe(), &copy);
    }
    std::fs::create_dir_all(dir.join("work/specs")).expect("stray specs folder");
    let mut cmd = Command::new(copy);
    cmd.current_dir(dir.join("work"));
    cmd
}

#[test]
fn a_lone_copy_lists_and_runs_the_built_in_suites_from_any_folder() {
    let dir = tempfile::tempdir().expect("tempdir");
    lone_copy(dir.path())
        .arg("list")
        .assert()
        .success()
        .stdout(predicate::str::contains("boris: Boris MCP tool errors ("))
        .stdout(predicate::str::contains("ikigai: "))
        .stdout(predicate::str::contains(" scenarios, version "))
        .stdout(predicate::str::contains(", built-in)"));
    // The suite's `given.tree` fixtures are built in too.
    lone_copy(dir.path())
        .args(["run", "--suite", "gemini-cli", "--filter", "glob"])
        .assert()
        .success()
        .stdout(predicate::str::is_match(r"gemini-cli: [1-9]\d* PASS, 0 FAIL").expect("regex"))
        .stdout(predicate::str::contains("suite: built-in, version "));
    // The built-in suites written out for a command are gone after it (under a
    // TMPDIR of its own, so other tests running meanwhile do not count).
    let tmp = dir.path().join("tmp");
    std::fs::create_dir_all(&tmp).expect("tmp");
    lone_copy(dir.path())
        .env("TMPDIR", &tmp)
        .args(["list", "--suite", "boris"])
        .assert()
        .success();
    assert_eq!(
        std::fs::read_dir(&tmp).expect("tmp").count(),
        0,
        "the written-out suites are removed"
    );
}

#[test]
fn a_lone_copy_gives_coverage_from_the_built_in_clause_indexes() {
    let dir = tempfile::tempdir().expect("tempdir");
    let listing = lone_copy(dir.path())
        .arg("coverage")
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let listing = String::from_utf8_lossy(&listing);
    for line in [
        "boris: Boris MCP tool errors, spec (seed 000): 23 clauses\n",
        "boris: Boris MCP tool errors, design (seed 001): no clauses\n",
        "boris: 23 clauses, 23 covered, 0 uncovered, 0 unknown covers; ",
        "gemini-cli: 26 clauses, 26 covered, 0 uncovered, 0 unknown covers; 1 upstream topic beyond the documents\n",
        "agent-tools: 13 clauses, 13 covered, 0 uncovered, 0 unknown covers\n",
        "ikigai: 16 clauses, 16 covered, 0 uncovered, 0 unknown covers\n",
        "  upstream: Written for mjkoo/boris (https://github.com/mjkoo/boris",
    ] {
        assert!(listing.contains(line), "missing {line:?} in:\n{listing}");
    }
    // Documents are named by their readable names, never by seed file names, and
    // nothing was read: there is no document here to read.
    let seed_file = regex::Regex::new(r"\d{3}_[0-9a-f]{16}\.txt").expect("regex");
    assert!(!seed_file.is_match(&listing), "{listing}");
    assert!(!listing.contains("\n  read from "), "{listing}");
    // Asked to compare with documents that are not there, it says which and where.
    lone_copy(dir.path())
        .args(["coverage", "--suite", "ikigai", "--documents", "."])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "004_e4cdd3422e67f61f.txt: ikigai tool result format (seed 004) \
             (`004_e4cdd3422e67f61f.txt` in clauses.yaml of suite `ikigai`) is not in this folder",
        ));
}

#[test]
fn specs_adds_suites_and_replaces_a_built_in_one_of_the_same_name() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("mine");
    lone_copy(dir.path())
        .args(["suites", "export", "--suite", "ikigai"])
        .arg(&out)
        .assert()
        .success()
        .stdout(predicate::str::contains("run the suites with --specs"));
    let suite = out.join("specs/ikigai/suite.yaml");
    let text = std::fs::read_to_string(&suite).expect("exported suite.yaml");
    std::fs::write(
        &suite,
        text.replace(
            "title: ikigai tool result envelope",
            "title: my ikigai fork",
        ),
    )
    .expect("edit");
    lone_copy(dir.path())
        .arg("--specs")
        .arg(out.join("specs"))
        .arg("list")
        .assert()
        .success()
        .stdout(predicate::str::contains(format!(
            "ikigai: my ikigai fork (75 scenarios, version 3, from {})",
            out.join("specs").display()
        )))
        .stdout(predicate::str::contains("boris: Boris MCP tool errors ("));
    // Exporting over an existing suite folder is refused, not overwritten.
    lone_copy(dir.path())
        .args(["suites", "export", "--suite", "ikigai"])
        .arg(&out)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("already exists"));
    assert!(std::fs::read_to_string(&suite)
        .expect("kept")
        .contains("my ikigai fork"));
}

#[test]
fn a_specs_folder_without_suites_is_refused() {
    let dir = tempfile::tempdir().expect("tempdir");
    lone_copy(dir.path())
        .args(["--specs", "specs", "run"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "--specs names a folder with no suite in it",
        ));
}

#[test]
fn a_run_that_selects_nothing_fails_unless_allowed() {
    let dir = tempfile::tempdir().expect("tempdir");
    lone_copy(dir.path())
        .args(["run", "--suite", "boris", "--filter", "no scenario is called this"])
        .assert()
        .code(1)
        .stdout(predicate::str::contains(
            "error: no scenario was selected (--suite boris; --filter \"no scenario is called this\" matches no scenario id)",
        ));
    lone_copy(dir.path())
        .args([
            "run",
            "--suite",
            "boris",
            "--filter",
            "no scenario is called this",
            "--allow-empty",
        ])
        .assert()
        .success();
}

/// Exports the built-in boris suite into `dir/mine`, sets its version to 100 (above
/// any it has) and marks "Code is parseable" as arriving in version 100; returns the
/// specs folder.
fn boris_at_version_100(dir: &Path) -> std::path::PathBuf {
    let out = dir.join("mine");
    lone_copy(dir)
        .args(["suites", "export", "--suite", "boris"])
        .arg(&out)
        .assert()
        .success();
    let specs = out.join("specs");
    let suite = specs.join("boris/suite.yaml");
    let text = std::fs::read_to_string(&suite).expect("suite.yaml");
    let bumped = regex::Regex::new(r"(?m)^version: \d+")
        .expect("regex")
        .replace(&text, "version: 100")
        .into_owned();
    std::fs::write(&suite, bumped).expect("bump");
    let file = specs.join("boris/error-message-format.yaml");
    let text = std::fs::read_to_string(&file).expect("scenario file");
    std::fs::write(
        &file,
        text.replace(
            "  - name: Code is parseable\n",
            "  - name: Code is parseable\n    since: 100\n",
        ),
    )
    .expect("since");
    specs
}

#[test]
fn a_pinned_target_stays_green_across_a_version_bump_and_shows_what_is_new() {
    let dir = tempfile::tempdir().expect("tempdir");
    let specs = boris_at_version_100(dir.path());
    lone_copy(dir.path())
        .arg("--specs")
        .arg(&specs)
        .args(["list", "--suite", "boris", "--since", "99"])
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "boris: 1 scenarios arrived after version 99 (now at version 100, from",
        ))
        .stdout(predicate::str::contains(
            "  boris::error-message-format::Code is parseable (version 100)",
        ));
    // Of this file's scenarios, the `wrong-code` mutation fails only the new one.
    // Pinned at 99, that failure is NEW and the gate holds.
    let target = |pin: &str| crate::support::target_file(dir.path(), ", --mutate, wrong-code", pin);
    let run = |target: &Path| {
        let mut cmd = lone_copy(dir.path());
        cmd.arg("--specs")
            .arg(&specs)
            .args([
                "run",
                "--suite",
                "boris",
                "--filter",
                "error-message-format::",
                "--target",
            ])
            .arg(target);
        cmd
    };
    run(&target("suites: { boris: 99 }\n"))
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "NEW boris::error-message-format::Code is parseable: arrived in suite version 100, after the version the target pins (99)",
        ))
        .stdout(predicate::str::contains(", 1 NEW (spec"))
        .stdout(predicate::str::contains("version 100, pinned at 99)"));
    // Raised to 100, the same failure fails the gate.
    run(&target("suites: { boris: 100 }\n"))
        .assert()
        .code(1)
        .stdout(predicate::str::contains(
            "FAIL boris::error-message-format::Code is parseable",
        ));
    // A pin above the suite's version is refused.
    run(&target("suites: { boris: 101 }\n"))
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "pins a version the suite does not have (it is at version 100)",
        ));
}

#[test]
fn a_scenario_cannot_arrive_after_its_suite_version() {
    let dir = tempfile::tempdir().expect("tempdir");
    let specs = boris_at_version_100(dir.path());
    let suite = specs.join("boris/suite.yaml");
    let text = std::fs::read_to_string(&suite).expect("suite.yaml");
    std::fs::write(&suite, text.replace("\nversion: 100", "\nversion: 99")).expect("lower");
    lone_copy(dir.path())
        .arg("--specs")
        .arg(&specs)
        .args(["list", "--suite", "boris"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "scenario `Code is parseable`: `since: 100` is not a version of this suite (1 to its `version: 99`)",
        ));
}

/// A JSON report without what changes from run to run: times, temporary folders'
/// names and the random ids of background tasks (16 hex digits).
fn comparable(report: &serde_json::Value) -> serde_json::Value {
    let mut report = report.clone();
    for scenario in report["scenarios"].as_array_mut().expect("scenarios") {
        scenario["elapsed_ms"] = serde_json::Value::Null;
    }
    let text = regex::Regex::new(r"toolspec-[A-Za-z0-9]{6}|\b[0-9a-f]{16}\b")
        .expect("regex")
        .replace_all(&report.to_string(), "X")
        .into_owned();
    serde_json::from_str(&text).expect("still JSON")
}

#[test]
#[ignore = "deep tier: .ci/run runs it, as does cargo test -- --ignored"]
fn shards_merged_give_the_same_report_as_one_run() {
    let dir = tempfile::tempdir().expect("tempdir");
    let json = |name: &str| dir.path().join(name);
    let run = |extra: &[&str], out: &Path| {
        let mut cmd = lone_copy(dir.path());
        // Three small suites: one that passes, one skipped as root (or passing as
        // anyone else), and one whose scenarios all fail against the honest server.
        cmd.arg("--specs")
            .arg(crate::support::repo().join("tests/data/specs"))
            .args([
                "run",
                "--suite",
                "features",
                "--suite",
                "conditions",
                "--suite",
                "wrong",
                "--jobs",
                "4",
            ])
            .args(extra)
            .arg("--json")
            .arg(out);
        cmd.assert().code(1);
    };
    run(&[], &json("whole.json"));
    for kind in ["count", "hash"] {
        let shards: Vec<_> = (1..=3).map(|k| json(&format!("{kind}-{k}.json"))).collect();
        // The shards at once, as a CI matrix would run them.
        std::thread::scope(|scope| {
            for (k, shard) in shards.iter().enumerate() {
                let run = &run;
                scope.spawn(move || {
                    run(&["--partition", &format!("{kind}:{}/3", k + 1)], shard);
                });
            }
        });
        let merged = json(&format!("{kind}-merged.json"));
        let junit = json(&format!("{kind}-merged.xml"));
        lone_copy(dir.path())
            .args(["report", "merge"])
            .args(&shards)
            .arg("--json")
            .arg(&merged)
            .arg("--junit")
            .arg(&junit)
            .assert()
            .code(1)
            .stdout(predicate::str::contains("merged 3 shards of "));
        let read = |p: &Path| -> serde_json::Value {
            crate::support::assert_matches_schema(crate::support::REPORT_SCHEMA, p)
        };
        let (merged, whole) = (
            comparable(&read(&merged)),
            comparable(&read(&json("whole.json"))),
        );
        if merged != whole {
            let ids = |r: &serde_json::Value| -> Vec<String> {
                r["scenarios"]
                    .as_array()
                    .expect("scenarios")
                    .iter()
                    .map(|s| s.to_string())
                    .collect()
            };
            let (m, w) = (ids(&merged), ids(&whole));
            let first = m.iter().zip(&w).find(|(a, b)| a != b);
            panic!(
                "{kind} shards merged differ from one run: {} vs {} scenarios; counts {} vs {}; first difference {first:#?}",
                m.len(),
                w.len(),
                merged["counts"],
                whole["counts"]
            );
        }
        assert!(std::fs::read_to_string(&junit)
            .expect("junit")
            .contains("<testsuite name=\"wrong\""));
        // A shard missing, or given twice, is refused.
        lone_copy(dir.path())
            .args(["report", "merge"])
            .args(&shards[..2])
            .assert()
            .code(2)
            .stderr(predicate::str::contains(format!(
                "shard(s) {kind}:3/3 missing"
            )));
        lone_copy(dir.path())
            .args(["report", "merge"])
            .args(&shards)
            .arg(&shards[0])
            .assert()
            .code(2)
            .stderr(predicate::str::contains("is given twice"));
    }
    // Shards of another run (other suites) are refused.
    run(
        &["--partition", "count:3/3", "--basis", "spec"],
        &json("other.json"),
    );
    let other_suites = json("other-suites.json");
    let mut cmd = lone_copy(dir.path());
    cmd.args([
        "run",
        "--suite",
        "boris",
        "--mutate",
        "lowercase-code",
        "--partition",
        "count:3/3",
        "--json",
    ])
    .arg(&other_suites)
    .assert()
    .code(1);
    lone_copy(dir.path())
        .args(["report", "merge"])
        .arg(json("count-1.json"))
        .arg(json("count-2.json"))
        .arg(&other_suites)
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "a run of other suites or suite versions",
        ));
}

#[test]
fn a_report_whose_standing_does_not_follow_from_its_verdict_is_not_merged() {
    let dir = tempfile::tempdir().expect("tempdir");
    let shard = dir.path().join("shard.json");
    lone_copy(dir.path())
        .args([
            "run",
            "--suite",
            "boris",
            "--filter",
            "Empty command",
            "--partition",
            "count:1/1",
            "--json",
        ])
        .arg(&shard)
        .assert()
        .success();
    let text = std::fs::read_to_string(&shard).expect("shard");
    std::fs::write(
        &shard,
        text.replacen("\"verdict\": \"PASS\"", "\"verdict\": \"FAIL\"", 1),
    )
    .expect("tamper");
    lone_copy(dir.path())
        .args(["report", "merge"])
        .arg(&shard)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("does not go with the rest").or(
            predicate::str::contains("but its verdict and baseline make it"),
        ));
}
