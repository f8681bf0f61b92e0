//! `explore` on a user's own suite: one with no `explore.yaml` (derived from the
//! server's tools/list and printed, or written with `--write-explore-file`) and
//! no reference server (the server given explored against itself), lists whose
//! items declare no properties, and `--fail-fast` stopping at the first new
//! divergence.

use crate::support::{exe, repo, toolspec};

/// Runs `toolspec --specs SPECS explore ARGS`, returning the exit code, stdout
/// and stderr.
fn explore_in(specs: &std::path::Path, args: &[&str]) -> (Option<i32>, String, String) {
    let specs = specs.to_str().expect("a UTF-8 path");
    super::explore::explore(&[&["--specs", specs][..], args].concat())
}

fn own_specs() -> std::path::PathBuf {
    repo().join("tests/data/explore/specs")
}

/// The bundled server as a user's own, given by command line.
fn reference_server() -> String {
    format!(
        "{} reference-server --dialect boris --root {{root}}",
        exe().display()
    )
}

/// A suite as `record` makes it (no explore.yaml, no reference) is explored: the
/// derived file is printed with each argument's meaning, the server runs against
/// itself (the line says so), and an honest server shows nothing. With
/// `--fail-fast` and nothing new, the run goes to its end (`stopped` null).
#[test]
fn a_recorded_suite_is_explored_against_itself_with_a_derived_file() {
    let server = reference_server();
    let dir = tempfile::tempdir().expect("temporary folder");
    let json = dir.path().join("explore.json");
    let (code, stdout, stderr) = explore_in(
        &own_specs(),
        &[
            "--suite",
            "mine",
            "--server",
            &server,
            "--seed",
            "29",
            "--cases",
            "8",
            "--jobs",
            "1",
            "--fail-fast",
            "--json",
            json.to_str().expect("a UTF-8 path"),
        ],
    );
    assert_eq!(code, Some(0), "{stdout}\n{stderr}");
    let report = crate::support::assert_matches_schema(crate::support::EXPLORE_SCHEMA, &json);
    assert_eq!(report["fail_fast"], true);
    assert_eq!(
        report["stopped"],
        serde_json::Value::Null,
        "it went to its end"
    );
    for line in [
        "explore mine: no explore.yaml; derived one from the oracle's tools/list (keep it with --write-explore-file):\n",
        "  tools:\n",
        "    view:\n",
        "      path: path\n",
        "    str_replace:\n",
        "      old_str: find-text\n",
        "      command: shell-without-files\n",
        "the suite names no reference server, so the subject is explored against itself",
        "explore mine: 8 cases, ",
        " 0 divergences ",
    ] {
        assert!(stdout.contains(line), "{line:?} in\n{stdout}");
    }
    assert!(!stdout.contains("--fail-fast: stopped"), "{stdout}");
}

/// `--write-explore-file` writes the derived file beside suite.yaml, exactly as
/// printed; the suite then reads it, and asking again is refused (exit 2).
#[test]
fn write_explore_file_keeps_the_derived_file_and_refuses_to_overwrite_it() {
    let specs = tempfile::tempdir().expect("tempdir");
    let suite = specs.path().join("mine");
    std::fs::create_dir(&suite).expect("suite folder");
    for file in ["suite.yaml", "recorded.yaml"] {
        std::fs::copy(own_specs().join("mine").join(file), suite.join(file)).expect("copy");
    }
    let server = reference_server();
    let args = [
        "--suite",
        "mine",
        "--server",
        &server,
        "--seed",
        "3",
        "--cases",
        "2",
        "--write-explore-file",
    ];
    let (code, stdout, stderr) = explore_in(specs.path(), &args);
    assert_eq!(code, Some(0), "{stdout}\n{stderr}");
    let written = std::fs::read_to_string(suite.join("explore.yaml")).expect("written");
    let printed: String = stdout
        .lines()
        .skip_while(|l| !l.contains("no explore.yaml; derived one"))
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .map(|l| format!("{}\n", &l[2..]))
        .collect();
    assert_eq!(written, printed, "{stdout}");
    assert!(stdout.contains("and wrote it to "), "{stdout}");
    let (code, stdout, stderr) = explore_in(specs.path(), &args);
    assert_eq!(code, Some(2), "{stdout}\n{stderr}");
    assert!(stderr.contains("already has"), "{stderr}");
    let (code, stdout, stderr) = explore_in(specs.path(), &args[..8]);
    assert_eq!(code, Some(0), "{stdout}\n{stderr}");
    assert!(!stdout.contains("no explore.yaml"), "{stdout}");
}

/// A server whose list items declare no properties (or no `items` at all) is
/// explored, not refused: those lists are drawn as lists of plain values.
#[test]
#[ignore = "deep tier: .ci/run runs it, as does cargo test -- --ignored"]
fn lists_whose_items_declare_no_properties_are_explored() {
    // The server starts in its fixture, so the script and its list are named whole.
    let replay = format!(
        "python3 {} {} {{root}}",
        repo().join("tests/servers/replay.py").display(),
        repo()
            .join("tests/data/explore/no-properties.json")
            .display()
    );
    let (code, stdout, stderr) = explore_in(
        &own_specs(),
        &[
            "--suite", "mine", "--server", &replay, "--seed", "7", "--cases", "6", "--jobs", "1",
        ],
    );
    assert_eq!(code, Some(0), "{stdout}\n{stderr}");
    for line in [
        "    edit_file:\n",
        "      dryRun: flag\n",
        "      edits: { each: value }\n",
        "      path: path\n",
        "      tags: { each: value }\n",
        "    read_multiple_files:\n",
        "      paths: { each: path }\n",
        "explore mine: 6 cases, ",
    ] {
        assert!(stdout.contains(line), "{line:?} in\n{stdout}");
    }
}

/// `--fail-fast` stops at the first new divergence: one block, shrunk, a line
/// saying where, exit 1, and fewer cases run than asked, the same at any --jobs;
/// the `--json` report says so too (`fail_fast`, `stopped`).
#[test]
fn fail_fast_stops_at_the_first_new_divergence() {
    let dir = tempfile::tempdir().expect("temporary folder");
    let mut shown = Vec::new();
    for jobs in ["1", "3"] {
        let json = dir.path().join(format!("explore-{jobs}.json"));
        let output = toolspec()
            .args([
                "explore",
                "--suite",
                "boris",
                "--mutate",
                "drop-code-prefix",
                "--seed",
                "5",
                "--cases",
                "40",
                "--shrink-budget",
                "4",
                "--fail-fast",
                "--jobs",
                jobs,
            ])
            .arg("--json")
            .arg(&json)
            .output()
            .expect("toolspec runs");
        let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
        assert_eq!(output.status.code(), Some(1), "{stdout}");
        let blocks = stdout
            .lines()
            .filter(|l| l.starts_with("DIVERGENCE"))
            .count();
        assert_eq!(blocks, 1, "{stdout}");
        assert!(stdout.contains("  shrunk in "), "{stdout}");
        assert!(
            stdout.contains("explore boris: --fail-fast: stopped at the first new divergence, case 0, after 1 case of 40"),
            "{stdout}"
        );
        assert!(stdout.contains("explore boris: 1 case, "), "{stdout}");
        let report = crate::support::assert_matches_schema(crate::support::EXPLORE_SCHEMA, &json);
        assert_eq!(report["fail_fast"], true);
        assert_eq!(
            report["stopped"],
            serde_json::json!({ "case": 0, "cases_run": 1 })
        );
        shown.push(stdout);
    }
    assert_eq!(shown[0], shown[1]);
}

/// Against itself, a server that answers differently from one start to the next
/// (tests/servers/flaky.sh: every other start is a mutation) is found, and
/// `--fail-fast` stops there.
#[test]
#[ignore = "deep tier: .ci/run runs it, as does cargo test -- --ignored"]
fn a_flaky_server_explored_against_itself_is_found() {
    let counter = tempfile::tempdir().expect("tempdir");
    let server = format!(
        "bash {} {} {} {{root}}",
        repo().join("tests/servers/flaky.sh").display(),
        counter.path().join("starts").display(),
        exe().display()
    );
    let (code, stdout, stderr) = explore_in(
        &own_specs(),
        &[
            "--suite",
            "mine",
            "--server",
            &server,
            "--seed",
            "5",
            "--cases",
            "30",
            "--jobs",
            "1",
            "--fail-fast",
            "--no-isolation",
        ],
    );
    assert_eq!(code, Some(1), "{stdout}\n{stderr}");
    assert!(stdout.contains("DIVERGENCE ["), "{stdout}");
    assert!(
        stdout.contains("--fail-fast: stopped at the first new divergence"),
        "{stdout}"
    );
}
