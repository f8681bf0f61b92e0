//! `toolspec run --bless`: a suite of one's own (a copy in a temporary folder),
//! its failed values shown as a diff and then written, only those bytes changed,
//! and the suite passing again; what says what must appear needs a person;
//! `record` adds a scenario from a live call, which then passes.

use std::path::Path;

use crate::support::{repo, toolspec};

/// A suite named `mine` in `dir`, speaking boris, with `file` as its one
/// scenario file.
fn own_suite(dir: &Path, file: &str) {
    let suite = dir.join("mine");
    std::fs::create_dir_all(&suite).expect("suite folder");
    let config = std::fs::read_to_string(repo().join("specs/boris/suite.yaml"))
        .expect("boris suite.yaml")
        .replace("suite: boris ", "suite: mine ");
    std::fs::write(suite.join("suite.yaml"), config).expect("suite.yaml");
    std::fs::write(suite.join("own.yaml"), file).expect("own.yaml");
}

const OWN: &str = "requirement: Blessed   # a comment that stays
scenarios:
  - name: passes already
    covers: upstream/view-numbering
    basis: upstream
    note: Stays as written.
    given: { files: { a.txt: \"hello\\n\" } }
    when: { tool: view, args: { path: \"{root}/a.txt\" } }
    then:
      is_error: false   # the flag
      text: \"1\\thello\\n\"

  - name: a changed line in a literal block
    covers: upstream/view-numbering
    basis: upstream
    note: Only the second line changes.
    given: { files: { a.txt: \"one\\ntwo\\nthree\\n\" } }
    when: { tool: view, args: { path: \"{root}/a.txt\" } }
    then:
      text: |   # the lines
        {int}\tone
        2\tTWO
        3\tthree

  - name: a wrong code
    covers: upstream/view-numbering
    basis: upstream
    note: The code is blessed in its quotes.
    when: { tool: view, args: { path: \"{root}/missing.txt\" } }
    then:
      is_error: true
      code: 'NOT_THERE'
";

#[test]
fn bless_shows_then_writes_only_the_failed_values_and_the_suite_passes_again() {
    let dir = tempfile::tempdir().expect("temporary folder");
    own_suite(dir.path(), OWN);
    let file = dir.path().join("mine/own.yaml");
    let specs = dir.path().to_str().expect("a UTF-8 path");
    let run = |extra: &[&str]| {
        toolspec()
            .args([
                "--specs", specs, "run", "--color", "never", "--suite", "mine",
            ])
            .args(extra)
            .output()
            .expect("toolspec runs")
    };
    let shown = run(&["--bless"]);
    let stdout = String::from_utf8_lossy(&shown.stdout);
    assert_eq!(shown.status.code(), Some(1), "{stdout}");
    assert!(
        stdout.contains("-        2\tTWO\n+        2\ttwo\n"),
        "{stdout}"
    );
    assert!(
        stdout.contains("-      code: 'NOT_THERE'\n+      code: 'PATH_NOT_FOUND'\n"),
        "{stdout}"
    );
    assert!(
        stdout.contains(
            "bless: 2 expectations in 2 scenarios of 1 file would change; nothing written"
        ),
        "{stdout}"
    );
    assert_eq!(
        std::fs::read_to_string(&file).expect("file"),
        OWN,
        "diff wrote"
    );

    let written = run(&["--bless=write"]);
    let stdout = String::from_utf8_lossy(&written.stdout);
    assert_eq!(written.status.code(), Some(0), "{stdout}");
    assert!(
        stdout.contains("bless: 2 expectations in 2 scenarios of 1 file changed and written"),
        "{stdout}"
    );
    let want = OWN
        .replace("2\tTWO", "2\ttwo")
        .replace("'NOT_THERE'", "'PATH_NOT_FOUND'");
    assert_eq!(std::fs::read_to_string(&file).expect("file"), want);
    let again = run(&[]);
    assert_eq!(
        again.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&again.stdout)
    );
}

#[test]
fn what_says_what_must_appear_needs_a_person_and_the_rest_is_written() {
    let dir = tempfile::tempdir().expect("temporary folder");
    let own = OWN.replace(
        "      code: 'NOT_THERE'\n",
        "      code: 'NOT_THERE'\n      contains: [nowhere]\n",
    );
    own_suite(dir.path(), &own);
    let specs = dir.path().to_str().expect("a UTF-8 path");
    let out = toolspec()
        .args([
            "--specs", specs, "run", "--color", "never", "--suite", "mine",
        ])
        .args(["--filter", "wrong code", "--bless=write"])
        .output()
        .expect("toolspec runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(
        stdout.contains("needs a person: mine::own::a wrong code: `contains: \"nowhere\"` needs a person: it says what must or must not appear"),
        "{stdout}"
    );
    let file = std::fs::read_to_string(dir.path().join("mine/own.yaml")).expect("file");
    assert_eq!(file, own.replace("'NOT_THERE'", "'PATH_NOT_FOUND'"));
}

/// `record` writes a scenario from a live call (made twice: the differing
/// number becomes `{int}`, and the output says so) with the files of a folder,
/// adds it at the end of the suite file, and the suite passes.
#[test]
fn record_adds_a_scenario_from_a_live_call_that_then_passes() {
    let top = tempfile::tempdir().expect("temporary folder");
    // The suites in `specs/`, so that the fixture tree record puts in the
    // fixtures folder beside it stays in the temporary folder.
    let base = top.path().join("specs");
    std::fs::create_dir(&base).expect("specs folder");
    own_suite(&base, OWN);
    let files = top.path().join("given");
    std::fs::create_dir(&files).expect("folder");
    std::fs::write(files.join("a.txt"), "alpha\nbeta\n").expect("a.txt");
    let specs = base.as_path().to_str().expect("a UTF-8 path");
    let server = format!(
        "{} reference-server --dialect boris --root {{root}}",
        crate::support::exe().display()
    );
    let record = |args: &[&str]| {
        toolspec()
            .args([
                "--specs", specs, "record", "--suite", "mine", "--server", &server,
            ])
            .args(args)
            .args(["--into", "own", "--write"])
            .output()
            .expect("toolspec runs")
    };
    let out = record(&[
        "--tool",
        "view",
        "--args",
        r#"{"path": "{root}/a.txt"}"#,
        "--files",
        files.to_str().expect("UTF-8"),
        "--name",
        "view of a.txt",
    ]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    let out = record(&[
        "--tool",
        "bash",
        "--args",
        r#"{"command": "echo $RANDOM$RANDOM"}"#,
        "--name",
        "a random number",
    ]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    assert!(
        stdout.contains("placeholder: `text`: `{int}` in line 4"),
        "{stdout}"
    );
    let file = std::fs::read_to_string(base.as_path().join("mine/own.yaml")).expect("file");
    assert!(
        file.starts_with(OWN),
        "what was there is kept byte for byte"
    );
    let added = &file[OWN.len()..];
    assert!(added.contains("      tree: given\n"), "{added}");
    assert_eq!(
        std::fs::read_to_string(top.path().join("fixtures/given/a.txt")).expect("tree"),
        "alpha\nbeta\n"
    );
    assert!(
        added.contains("      text: |\n        1\talpha\n        2\tbeta\n"),
        "{added}"
    );
    assert!(added.contains("stdout:\n        {int}\n"), "{added}");
    for recorded in ["view of a.txt", "a random number"] {
        let run = toolspec()
            .args([
                "--specs", specs, "run", "--suite", "mine", "--filter", recorded,
            ])
            .args(["--server", &server])
            .output()
            .expect("toolspec runs");
        assert_eq!(
            run.status.code(),
            Some(0),
            "{recorded}: {}",
            String::from_utf8_lossy(&run.stdout)
        );
    }
}
