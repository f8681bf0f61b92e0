//! Escapes judged by effect (docs/confinement.md), against a small boris-style server
//! whose allow-list check can be wrong (`tests/servers/unconfined.py`): a check of
//! the path's text lets it read and write beside the root, and each such call is an
//! ESCAPE naming what it reached, which no baseline excuses; a right check gives no
//! ESCAPE, whatever the words of its refusals; and nothing beside any root is left
//! behind.

use std::collections::BTreeSet;
use std::path::Path;

use crate::support::{assert_matches_schema, python, repo, toolspec, REPORT_SCHEMA};

/// Writes a target file in `dir` for `unconfined.py` with its `--check` and
/// `--words`, and `more` lines after the command.
fn target(dir: &Path, check: &str, words: &str, more: &str) -> String {
    let path = dir.join(format!("{check}-{words}.yaml"));
    std::fs::write(
        &path,
        format!(
            "name: unconfined-{check}-{words}\ncommand: [\"{}\", \"{}\", --root, \"{{root}}\", --check, {check}, --words, {words}]\nsettings:\n  allow: [--allow-dir, \"{{value}}\"]\n{more}",
            python(),
            repo().join("tests/servers/unconfined.py").display()
        ),
    )
    .expect("write the target");
    path.to_string_lossy().into_owned()
}

/// The boris escapes scenarios run against the target at `target`, with the JSON
/// report and JUnit written in `dir` and temporary folders made in `tmp`: the exit
/// code, stdout, and the report read back (checked against its schema).
fn escapes(dir: &Path, tmp: &Path, target: &str) -> (i32, String, serde_json::Value, String) {
    let json = dir.join("report.json");
    let junit = dir.join("junit.xml");
    let out = toolspec()
        .env("TMPDIR", tmp)
        .args([
            "run", "--suite", "boris", "--filter", "escapes", "--color", "never",
        ])
        .args(["--target", target])
        .arg("--json")
        .arg(&json)
        .arg("--junit")
        .arg(&junit)
        .output()
        .expect("toolspec runs");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let report = assert_matches_schema(REPORT_SCHEMA, &json);
    let junit = std::fs::read_to_string(&junit).expect("junit");
    (out.status.code().unwrap_or(-1), stdout, report, junit)
}

fn ids_with(report: &serde_json::Value, verdict: &str) -> BTreeSet<String> {
    report["scenarios"]
        .as_array()
        .expect("scenarios")
        .iter()
        .filter(|s| s["verdict"] == verdict)
        .map(|s| {
            let id = s["id"].as_str().expect("id");
            id.trim_start_matches("boris::escapes::").to_string()
        })
        .collect()
}

#[test]
fn a_check_of_the_path_text_escapes_and_each_escape_is_named_and_never_excused() {
    let dir = tempfile::tempdir().expect("tempdir");
    let tmp = tempfile::tempdir().expect("tmp");
    // Every scenario listed as a known failure: an ESCAPE is still one.
    let listed = dir.path().join("known.txt");
    let all = toolspec()
        .args(["list", "--suite", "boris"])
        .output()
        .expect("list");
    let ids: String = String::from_utf8_lossy(&all.stdout)
        .lines()
        .map(str::trim)
        .filter(|id| id.starts_with("boris::escapes::"))
        .map(|id| format!("{id}\n"))
        .collect();
    assert_eq!(ids.lines().count(), 25, "{ids}");
    std::fs::write(&listed, ids).expect("baseline");
    let lexical = target(dir.path(), "lexical", "boris", "baseline_file: known.txt\n");
    let (code, stdout, report, junit) = escapes(dir.path(), tmp.path(), &lexical);
    assert_eq!(code, 1, "{stdout}");
    let escaped = ids_with(&report, "ESCAPE");
    // `..` and an absolute path outside are refused by a check of the text too;
    // a sibling named like the root and every link get through.
    let want: BTreeSet<String> = [
        "view a sibling named like the root",
        "view through a link to a file outside",
        "view through a link to a folder outside",
        "view lists a folder outside through a link",
        "create_file in a sibling named like the root",
        "create_file through a link to a file outside",
        "create_file through a link to a folder outside",
        "create_file through a dangling link whose target is outside",
        "str_replace in a sibling named like the root",
        "str_replace through a link to a file outside",
        "str_replace through a link to a folder outside",
        "grep a sibling named like the root",
        "grep through a link to a folder outside",
        "glob a sibling named like the root",
        "glob through a link to a folder outside",
    ]
    .map(String::from)
    .into();
    assert_eq!(escaped, want, "{stdout}");
    assert_eq!(report["counts"]["ESCAPE"], 15);
    // The refusals pass, so the entries naming them are stale.
    assert_eq!(report["counts"]["STALE"], 10);
    let link = report["scenarios"]
        .as_array()
        .expect("scenarios")
        .iter()
        .find(|s| s["id"] == "boris::escapes::view through a link to a file outside")
        .expect("the scenario");
    assert_eq!(link["standing"], "ESCAPE");
    assert_eq!(link["baseline"], "scenario");
    assert_eq!(
        link["escape"]["line"],
        "ESCAPE read: view {root}/notes.txt returned the content of {outside}/secret.txt"
    );
    // The report's first line for each, and the summary counts them first.
    assert!(
        stdout.contains(
            "ESCAPE write: create_file {root}/new.txt created {outside}/new.txt\n  in boris::escapes::create_file through a dangling link whose target is outside: the server is meant to stay inside its root; no baseline excuses this"
        ),
        "{stdout}"
    );
    assert!(
        stdout.contains("ESCAPE write: str_replace {root}/notes.txt changed {outside}/secret.txt"),
        "{stdout}"
    );
    assert!(
        stdout.contains("ESCAPE read: glob {root}/docs returned the name of a file in {outside}"),
        "{stdout}"
    );
    assert!(
        stdout.contains("boris: 15 ESCAPE, 0 PASS, 0 FAIL,"),
        "{stdout}"
    );
    assert!(
        // 15 escapes and 10 stale entries.
        junit.contains("failures=\"25\"")
            && junit.contains(
                "<failure message=\"escape: the server reached a place outside its root\">"
            ),
        "{junit}"
    );
    // Every fixture and every place beside it is gone.
    let left: Vec<_> = std::fs::read_dir(tmp.path())
        .expect("tmp")
        .flatten()
        .collect();
    assert!(left.is_empty(), "left behind: {left:?}");
}

#[test]
#[ignore = "deep tier: .ci/run runs it, as does cargo test -- --ignored"]
fn a_right_check_never_escapes_whatever_the_words_of_its_refusals() {
    let dir = tempfile::tempdir().expect("tempdir");
    let tmp = tempfile::tempdir().expect("tmp");
    // Refused in other words: every scenario FAILs on its code, none ESCAPEs. (The
    // same check in the seed's words escapes nowhere either: the confinement
    // check's test below runs it.)
    let worded = target(dir.path(), "resolved", "other", "");
    let (code, stdout, report, _) = escapes(dir.path(), tmp.path(), &worded);
    assert_eq!(code, 1, "{stdout}");
    assert_eq!(ids_with(&report, "FAIL").len(), 25, "{stdout}");
    assert_eq!(report["counts"]["ESCAPE"], 0, "{stdout}");
    assert!(!stdout.contains("ESCAPE"), "{stdout}");
}

/// `toolspec confinement`: the same server with no suite written for it, each tool
/// that takes a path tried with every kind its job allows, judged by effect only;
/// the suite it writes (`--out`) runs again under `run` like any other.
#[test]
#[ignore = "deep tier: .ci/run runs it, as does cargo test -- --ignored"]
fn the_confinement_check_finds_each_escape_per_tool_and_kind_with_no_suite_written() {
    let dir = tempfile::tempdir().expect("tempdir");
    let server = |check: &str| {
        format!(
            "{} {} --root {{root}} --allow-dir {{root}} --check {check}",
            python(),
            repo().join("tests/servers/unconfined.py").display()
        )
    };
    let out = dir.path().join("suites");
    let json = dir.path().join("confinement.json");
    let lexical = toolspec()
        .args([
            "confinement",
            "--color",
            "never",
            "--server",
            &server("lexical"),
        ])
        .arg("--out")
        .arg(&out)
        .arg("--json")
        .arg(&json)
        .output()
        .expect("toolspec runs");
    let stdout = String::from_utf8_lossy(&lexical.stdout);
    assert_eq!(lexical.status.code(), Some(1), "{stdout}");
    let report = assert_matches_schema(REPORT_SCHEMA, &json);
    assert_eq!(report["counts"]["ESCAPE"], 14, "{stdout}");
    for line in [
        "24 escape(s) to try on 5 of 5 tool(s) of `unconfined`",
        "  view (read, path in `path`)\n    climbing out with ..                 refused\n    an absolute path outside             refused\n    a sibling named like the root        ESCAPE read\n    a link to a file outside             ESCAPE read\n    a link to a folder outside           ESCAPE read\n    a write through a dangling link      not applicable: no path of this kind for its job (read)\n",
        "  create_file (write, path in `path`)\n",
        "    a write through a dangling link      ESCAPE write\n",
        "  grep (search, path in `path`)\n",
    ] {
        assert!(stdout.contains(line), "{line:?} missing:\n{stdout}");
    }
    // The suite it wrote is a suite like the others.
    let again = toolspec()
        .arg("--specs")
        .arg(&out)
        .args([
            "run",
            "--suite",
            "confinement",
            "--filter",
            "view",
            "--server",
            &server("lexical"),
        ])
        .output()
        .expect("toolspec runs");
    let again_out = String::from_utf8_lossy(&again.stdout);
    assert!(
        again_out.contains("confinement: 3 ESCAPE, 2 PASS"),
        "{again_out}"
    );
    // A right check: every kind refused, nothing escapes.
    let resolved = toolspec()
        .args([
            "confinement",
            "--color",
            "never",
            "--server",
            &server("resolved"),
        ])
        .output()
        .expect("toolspec runs");
    let stdout = String::from_utf8_lossy(&resolved.stdout);
    assert_eq!(resolved.status.code(), Some(0), "{stdout}");
    assert!(stdout.contains("confinement: 24 PASS"), "{stdout}");
    assert!(!stdout.contains("ESCAPE"), "{stdout}");
}
