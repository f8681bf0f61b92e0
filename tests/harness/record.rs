//! `toolspec record` into a suite that does not exist yet (from an empty
//! `--specs` folder), what it writes as each convention reads an answer (the
//! code, the JSON, a JSON-RPC error), and the log import: each recorded suite
//! passes against the server it was recorded from and fails against one that
//! answers otherwise; a bad log is refused naming its line, nothing written; a
//! tool the server does not list is refused (exit 2), and an answer that says
//! the call failed is kept only with `--accept-error` (else exit 1).

use std::path::Path;
use std::process::Output;

use crate::support::{exe, repo, toolspec};

/// The reference server speaking `dialect`, with `extra` flags.
fn server(dialect: &str, extra: &str) -> String {
    format!(
        "{} reference-server --dialect {dialect} --root {{root}} {extra}",
        exe().display()
    )
}

fn toolspec_in(specs: &Path, args: &[&str]) -> Output {
    toolspec()
        .arg("--specs")
        .arg(specs)
        .args(args)
        .output()
        .expect("toolspec runs")
}

/// `record --write --accept-error` of the log `log` into suite `logged` of
/// `specs`, with the files from `project` (which the log names
/// `/home/dev/project`).
fn record_log(specs: &Path, convention: &str, server: &str, log: &Path, project: &Path) -> Output {
    toolspec_in(
        specs,
        &[
            "record",
            "--suite",
            "logged",
            "--convention",
            convention,
            "--server",
            server,
            "--log",
            log.to_str().expect("UTF-8"),
            "--from",
            project.to_str().expect("UTF-8"),
            "--log-root",
            "/home/dev/project",
            "--write",
            "--accept-error",
        ],
    )
}

/// Runs suite `suite` of `specs` against `server`: its exit code and stdout.
fn run(specs: &Path, suite: &str, server: &str) -> (Option<i32>, String) {
    let out = toolspec_in(
        specs,
        &[
            "run", "--color", "never", "--suite", suite, "--server", server,
        ],
    );
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

/// Every file under `dir`, relative, sorted; a suite's pending proposals
/// (`.toolspec/`) left out: they are not the suite.
fn files_under(dir: &Path) -> Vec<String> {
    let mut found = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(at) = pending.pop() {
        for entry in std::fs::read_dir(&at).expect("a folder").flatten() {
            let path = entry.path();
            if path.ends_with(".toolspec") {
                continue;
            }
            if path.is_dir() {
                pending.push(path);
            } else {
                let relative = path.strip_prefix(dir).expect("under the folder");
                found.push(relative.display().to_string());
            }
        }
    }
    found.sort();
    found
}

#[test]
fn record_makes_a_new_suite_that_runs_only_with_a_server_given() {
    let dir = tempfile::tempdir().expect("temporary folder");
    let specs = dir.path().join("specs");
    std::fs::create_dir(&specs).expect("an empty specs folder");
    let example = dir.path().join("example");
    std::fs::create_dir(&example).expect("folder");
    std::fs::write(example.join("a.txt"), "alpha\nbeta\n").expect("a.txt");
    let honest = server("boris", "");
    let record = |extra: &[&str]| {
        let mut args = vec![
            "record", "--suite", "mine", "--server", &honest, "--tool", "view",
        ];
        args.extend_from_slice(extra);
        toolspec_in(&specs, &args)
    };
    let a_txt = ["--args", r#"{"path": "{root}/a.txt"}"#, "--files"];
    let example = example.to_str().expect("UTF-8");

    // No convention named: refused, listing the conventions; an unknown one too.
    for (extra, want) in [
        (vec![], "name its result convention with --convention (bracket-code, plain, json-error-envelope, json-result-envelope)"),
        (vec!["--convention", "brackets"], "no result convention `brackets`; the conventions are: bracket-code, plain"),
    ] {
        let out = record(&[&a_txt[..], &[example], &extra[..]].concat());
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{stderr}");
        assert!(stderr.contains(want), "{stderr}");
    }
    // Shown, not written.
    let out = record(&[&a_txt[..], &[example, "--convention", "bracket-code"]].concat());
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    assert!(stdout.contains("+dialect: bracket-code\n"), "{stdout}");
    assert!(stdout.contains("nothing written"), "{stdout}");
    assert!(files_under(&specs).is_empty(), "nothing written");
    // Written: a suite.yaml without `reference:`, and the scenario.
    let out = record(
        &[
            &a_txt[..],
            &[example, "--convention", "bracket-code", "--write"],
        ]
        .concat(),
    );
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert_eq!(
        files_under(&specs),
        ["mine/recorded.yaml", "mine/suite.yaml"]
    );
    let config = std::fs::read_to_string(specs.join("mine/suite.yaml")).expect("suite.yaml");
    assert!(config.contains("dialect: bracket-code\n"), "{config}");
    assert!(!config.contains("reference:"), "{config}");
    // A second scenario, an error: shown as a failure and not kept without
    // --accept-error (exit 1, the file as it was); with it, its code.
    let written = std::fs::read_to_string(specs.join("mine/recorded.yaml")).expect("file");
    let gone = ["--args", r#"{"path": "{root}/gone.txt"}"#, "--write"];
    let out = record(&gone);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout} {out:?}");
    assert!(
        stdout.contains("FAILURE: `view gone.txt (error)` was answered with `isError: true`"),
        "{stdout}"
    );
    assert!(
        stdout.contains("record: the call was answered with a failure, not kept as the expected answer; nothing written (pass --accept-error to keep a failure as golden)"),
        "{stdout}"
    );
    let unchanged = std::fs::read_to_string(specs.join("mine/recorded.yaml")).expect("file");
    assert_eq!(unchanged, written, "nothing written");
    let out = record(&[&gone[..], &["--accept-error"]].concat());
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let file = std::fs::read_to_string(specs.join("mine/recorded.yaml")).expect("file");
    assert!(
        file.contains("    covers: upstream/recorded-view\n"),
        "{file}"
    );
    assert!(
        file.contains("      is_error: true\n      code: PATH_NOT_FOUND\n"),
        "{file}"
    );

    // Without a server: refused, with the reason.
    let out = toolspec_in(&specs, &["run", "--suite", "mine"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("suite `mine` has no reference server (its suite.yaml has no `reference:`): give the server to run it against with --server or --target"),
        "{stderr}"
    );
    let out = toolspec_in(&specs, &["mutants", "--suite", "mine"]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("suite `mine` has no reference server"));
    // The honest server passes; one that numbers lines otherwise, and one that
    // gives another code, fail.
    assert_eq!(run(&specs, "mine", &honest).0, Some(0));
    let (code, stdout) = run(
        &specs,
        "mine",
        &server("boris", "--mutate view-fixed-width"),
    );
    assert_eq!(code, Some(1), "{stdout}");
    assert!(stdout.contains("1 PASS, 1 FAIL"), "{stdout}");
    let (code, stdout) = run(&specs, "mine", &server("boris", "--mutate wrong-code"));
    assert_eq!(code, Some(1), "{stdout}");
    assert!(stdout.contains("1 PASS, 1 FAIL"), "{stdout}");
}

/// A JSON convention's answer is written as `json:` (compared as JSON), and a
/// call refused at the protocol level as `protocol_error:`.
#[test]
#[ignore = "deep tier: .ci/run runs it, as does cargo test -- --ignored"]
fn record_writes_json_as_json_and_a_refused_call_as_a_protocol_error() {
    let dir = tempfile::tempdir().expect("temporary folder");
    let specs = dir.path().join("specs");
    let honest = server("ikigai", "");
    let out = toolspec_in(
        &specs,
        &[
            "record",
            "--suite",
            "ik",
            "--convention",
            "json-result-envelope",
            "--server",
            &honest,
            "--tool",
            "bash",
            "--args",
            r#"{"command": "echo $RANDOM$RANDOM; pwd"}"#,
            "--write",
        ],
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout} {out:?}");
    assert!(
        stdout.contains("placeholder: `json`: `{int}` at .data.output in line 1"),
        "{stdout}"
    );
    let file = std::fs::read_to_string(specs.join("ik/recorded.yaml")).expect("file");
    assert!(
        file.contains(
            r#"      json: {"data":{"exit_code":0,"output":"{int}\n{root}"},"success":true}"#
        ),
        "{file}"
    );
    assert!(!file.contains("text:"), "{file}");
    assert_eq!(run(&specs, "ik", &honest).0, Some(0));
    let (code, stdout) = run(
        &specs,
        "ik",
        &server("ikigai", "--mutate success-as-string"),
    );
    assert_eq!(code, Some(1), "{stdout}");

    // A server that lists its tools and refuses every call with a JSON-RPC
    // error: shown as a failure, kept only with --accept-error.
    let replay = format!(
        "python3 {} {} {{root}}",
        repo().join("tests/servers/replay.py").display(),
        repo()
            .join("tests/data/tools-list/claude-code.json")
            .display()
    );
    let refused = |extra: &[&str]| {
        let mut args = vec![
            "record",
            "--suite",
            "refused",
            "--convention",
            "plain",
            "--server",
            &replay,
            "--tool",
            "Read",
            "--args",
            r#"{"file_path": "{root}/a.txt"}"#,
            "--write",
        ];
        args.extend_from_slice(extra);
        toolspec_in(&specs, &args)
    };
    let out = refused(&[]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout} {out:?}");
    assert!(
        stdout
            .contains("was answered with a JSON-RPC error (code -32601) instead of a tool result"),
        "{stdout}"
    );
    assert!(stdout.contains("pass --accept-error"), "{stdout}");
    assert!(!specs.join("refused").exists(), "nothing written");
    let out = refused(&["--accept-error"]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let file = std::fs::read_to_string(specs.join("refused/recorded.yaml")).expect("file");
    assert!(
        file.contains("    then:\n      protocol_error: {\"code\":-32601}\n"),
        "{file}"
    );
    assert_eq!(run(&specs, "refused", &replay).0, Some(0));
    // A server that answers the call fails it.
    let (code, stdout) = run(&specs, "refused", &server("boris", ""));
    assert_eq!(code, Some(1), "{stdout}");
}

/// A tool the server's tools/list does not name is refused before any call,
/// with the tools it lists and the closest one; exit 2, nothing written. A
/// target's rename is applied before the list is read.
#[test]
fn record_refuses_a_tool_the_server_does_not_list() {
    let dir = tempfile::tempdir().expect("temporary folder");
    let specs = dir.path().join("specs");
    let boris = server("boris", "");
    let record = |tool: &str| {
        toolspec_in(
            &specs,
            &[
                "record",
                "--suite",
                "mine",
                "--convention",
                "bracket-code",
                "--server",
                &boris,
                "--tool",
                tool,
                "--write",
                "--accept-error",
            ],
        )
    };
    for (tool, want) in [
        ("veiw", "lists no tool `veiw`; its tools/list names: "),
        ("ls", "lists no tool `ls`; its tools/list names: "),
    ] {
        let out = record(tool);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{tool}: {stderr}");
        assert!(stderr.contains(want), "{tool}: {stderr}");
        assert!(stderr.contains(", view, "), "{tool}: {stderr}");
        assert!(!specs.exists(), "{tool}: something was written");
        let guessed = stderr.contains("(did you mean `view`?)");
        assert_eq!(guessed, tool == "veiw", "{tool}: {stderr}");
    }
    // A log that calls an unlisted tool: refused the same way.
    let project = session(dir.path());
    let log = dir.path().join("session.ndjson");
    std::fs::write(
        &log,
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"ls","arguments":{}}}"#,
    )
    .expect("log");
    let out = record_log(&specs, "bracket-code", &boris, &log, &project);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("lists no tool `ls`"), "{stderr}");
    assert!(!specs.exists(), "something was written");
}

/// A session's folder: what the logged calls name, and what they do not.
fn session(dir: &Path) -> std::path::PathBuf {
    let project = dir.join("project");
    std::fs::create_dir_all(project.join("src/empty")).expect("folders");
    std::fs::write(project.join("a.txt"), "alpha\nbeta\n").expect("a.txt");
    std::fs::write(project.join("unnamed.txt"), "no call names me\n").expect("unnamed");
    std::fs::write(project.join("src/main.rs"), "fn main() {}\n").expect("main.rs");
    project
}

const LOG: &str = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"agent","version":"1"}}}
{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-03-26","capabilities":{},"serverInfo":{"name":"s","version":"1"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"view","arguments":{"path":"/home/dev/project/a.txt"}}}
{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"1\talpha\n2\tbeta\n"}]}}
{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"view","arguments":{"path":"/home/dev/project/src"}}}
{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"view","arguments":{"path":"/home/dev/project/gone.txt"}}}
"#;

#[test]
fn a_log_becomes_one_scenario_per_call_with_only_the_files_it_names() {
    let dir = tempfile::tempdir().expect("temporary folder");
    let project = session(dir.path());
    let log = dir.path().join("session.ndjson");
    std::fs::write(&log, LOG).expect("log");
    let specs = dir.path().join("specs");
    let honest = server("boris", "");
    let out = record_log(&specs, "bracket-code", &honest, &log, &project);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout} {out:?}");
    assert!(
        stdout.contains("skipped: 4 lines that are not tools/call requests (2 responses, 1 notifications, 1 requests of other methods, 0 blank)"),
        "{stdout}"
    );
    assert!(stdout.contains("3 scenarios added"), "{stdout}");
    let file = std::fs::read_to_string(specs.join("logged/recorded.yaml")).expect("file");
    assert_eq!(file.matches("  - name: ").count(), 3, "{file}");
    assert!(file.contains(r#"args: {"path":"{root}/a.txt"}"#), "{file}");
    assert!(file.contains(r#"args: {"path":"{root}/src"}"#), "{file}");
    assert!(
        file.contains("      files:\n        src/empty/: {\"dir\":true}\n        src/main.rs: |\n          fn main() {}\n"),
        "{file}"
    );
    assert!(!file.contains("unnamed"), "{file}");
    assert!(!file.contains("/home/dev"), "{file}");
    assert_eq!(run(&specs, "logged", &honest).0, Some(0));
    let (code, stdout) = run(
        &specs,
        "logged",
        &server("boris", "--mutate tree-ascii-glyphs"),
    );
    assert_eq!(code, Some(1), "{stdout}");
    assert!(stdout.contains("2 PASS, 1 FAIL"), "{stdout}");
}

#[test]
fn a_bad_log_line_is_refused_naming_it_and_nothing_is_written() {
    let dir = tempfile::tempdir().expect("temporary folder");
    let project = session(dir.path());
    let specs = dir.path().join("specs");
    let call = |path: &str| {
        format!(
            r#"{{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{{"name":"view","arguments":{{"path":"{path}"}}}}}}"#
        )
    };
    let good = call("/home/dev/project/a.txt");
    let huge = format!("\"{}\"", "x".repeat(9 * 1024 * 1024));
    let cases: Vec<(Vec<u8>, &str)> = vec![
        (
            format!("{good}\n{{\"id\": 3,\n").into_bytes(),
            "line 2: not JSON",
        ),
        (
            [good.as_bytes(), b"\n", b"{\"id\": \"\xff\"}\n"].concat(),
            "line 2: not UTF-8 text",
        ),
        (
            format!("{good}\n[{good}]\n").into_bytes(),
            "line 2: a JSON value that is not an object",
        ),
        (
            format!("{good}\n{good}\n{huge}\n").into_bytes(),
            "line 3: longer than 8 MiB",
        ),
        (
            format!("{good}\n{}\n", call("/home/dev/project/../secret.txt")).into_bytes(),
            "line 2: argument `path` names \"/home/dev/project/../secret.txt\", a path with `..`",
        ),
        (
            format!("{}\n", call("/etc/passwd")).into_bytes(),
            "line 1: argument `path` names \"/etc/passwd\", outside the folder",
        ),
    ];
    let log = dir.path().join("bad.ndjson");
    for (bytes, want) in cases {
        std::fs::write(&log, &bytes).expect("log");
        let out = record_log(&specs, "plain", "no-such-server {root}", &log, &project);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{want}: {stderr}");
        assert!(stderr.contains(want), "{want}: {stderr}");
        assert!(!specs.exists(), "{want}: something was written");
    }
}

/// `--no-isolation` reaches the server `record` calls: its write outside the root
/// lands, and the answer recorded says so; isolated, the write is refused and the
/// answer recorded says that.
#[test]
fn record_no_isolation_records_what_the_server_answers_without_isolation() {
    let dir = tempfile::tempdir().expect("temporary folder");
    let specs = dir.path().join("specs");
    std::fs::create_dir(&specs).expect("an empty specs folder");
    let canary = tempfile::tempdir().expect("tempdir");
    // The server writes its TMPDIR too: give it one of the test's own.
    let tmpdir = tempfile::tempdir().expect("tempdir");
    let server = format!(
        "bash {} write-outside {}",
        repo().join("tests/servers/hostile.sh").display(),
        canary.path().display()
    );
    let record = |extra: &[&str]| {
        let out = toolspec()
            .env("TMPDIR", tmpdir.path())
            .arg("--specs")
            .arg(&specs)
            .args(["record", "--suite", "mine", "--convention", "plain"])
            .args(["--server", &server, "--tool", "view"])
            .args(extra)
            .output()
            .expect("toolspec runs");
        let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
        assert_eq!(out.status.code(), Some(0), "{stdout}{out:?}");
        stdout
    };

    let closed = record(&[]);
    assert!(closed.contains("outside: refused"), "{closed}");
    assert!(files_under(canary.path()).is_empty());

    let open = record(&["--no-isolation"]);
    assert!(open.contains("outside: wrote"), "{open}");
    assert_eq!(files_under(canary.path()), ["written"]);
    assert!(files_under(&specs).is_empty(), "nothing written");
}

/// A session from a calls file: the calls made in order on one fixture, each
/// a scenario whose `given.calls` are the calls before it and whose
/// `then.files` holds what it changed; the `--files` folder put in the suite
/// once, as a fixture tree. `--write` then writes the proposal shown without
/// starting the server (its command does not exist), and the suite passes
/// three runs in a row and fails against a server that answers otherwise.
#[test]
fn a_recorded_session_is_written_as_shown_and_passes_three_runs() {
    let dir = tempfile::tempdir().expect("temporary folder");
    let specs = dir.path().join("work/specs");
    let example = dir.path().join("example");
    std::fs::create_dir_all(&example).expect("folder");
    std::fs::write(example.join("a.txt"), "alpha\nbeta\n").expect("a.txt");
    let calls = dir.path().join("calls.yaml");
    std::fs::write(
        &calls,
        "- { tool: view, args: { path: \"{root}/a.txt\" } }\n\
         - { tool: str_replace, args: { path: \"{root}/a.txt\", old_str: beta, new_str: \"gamma\\ndelta\" } }\n\
         - { tool: bash, args: { command: \"rm {root:sh}/a.txt\" } }\n\
         - { tool: view, args: { path: \"{root}/a.txt\" } }\n",
    )
    .expect("calls");
    let honest = server("boris", "");
    let record = |server: &str, extra: &[&str]| {
        let mut args = vec![
            "record",
            "--suite",
            "mine",
            "--convention",
            "bracket-code",
            "--server",
            server,
            "--calls",
            calls.to_str().expect("UTF-8"),
            "--files",
            example.to_str().expect("UTF-8"),
            "--accept-error",
        ];
        args.extend_from_slice(extra);
        toolspec_in(&specs, &args)
    };
    let out = record(&honest, &[]);
    let shown = String::from_utf8_lossy(&out.stdout).into_owned();
    assert_eq!(out.status.code(), Some(0), "{shown} {out:?}");
    assert!(
        files_under(dir.path().join("work").as_path()).is_empty(),
        "nothing written"
    );
    let pending = std::fs::read_dir(specs.join("mine/.toolspec/pending"))
        .expect("a pending folder")
        .count();
    assert_eq!(pending, 1, "one proposal kept");
    for want in [
        "+  - name: view a.txt\n",
        "+  - name: str_replace a.txt\n",
        "+  - name: view a.txt (error)\n",
        "+      tree: example\n",
        "+      files:\n+        a.txt: |\n+          alpha\n+          gamma\n+          delta\n",
        "+        a.txt: {\"absent\":true}\n",
        "+++ ",
    ] {
        assert!(shown.contains(want), "{want:?} in {shown}");
    }
    assert_eq!(shown.matches("tree: example").count(), 4, "{shown}");
    // Written as shown: the server is never started (its command does not exist).
    let out = record("no-such-program-here {root}", &["--write"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout} {out:?}");
    assert!(stdout.contains("no server was started"), "{stdout}");
    assert_eq!(
        files_under(dir.path().join("work").as_path()),
        [
            "fixtures/example/a.txt",
            "specs/mine/recorded.yaml",
            "specs/mine/suite.yaml"
        ]
    );
    let file = std::fs::read_to_string(specs.join("mine/recorded.yaml")).expect("file");
    let added: String = shown
        .lines()
        .skip_while(|l| !l.ends_with("mine/recorded.yaml"))
        .skip(1)
        .take_while(|l| !l.starts_with("--- "))
        .filter(|l| l.starts_with('+') && !l.starts_with("+++"))
        .map(|l| format!("{}\n", &l[1..]))
        .collect();
    assert_eq!(file, added, "what is written is what was shown");
    assert!(!specs
        .join("mine/.toolspec/pending")
        .read_dir()
        .expect("folder")
        .any(|_| true));
    for _ in 0..3 {
        let (code, stdout) = run(&specs, "mine", &honest);
        assert_eq!(code, Some(0), "{stdout}");
        assert!(stdout.contains("4 PASS, 0 FAIL"), "{stdout}");
    }
    let (code, stdout) = run(
        &specs,
        "mine",
        &server("boris", "--mutate view-fixed-width"),
    );
    assert_eq!(code, Some(1), "{stdout}");
    // The same folder again: the tree is reused. Another folder of the same
    // name: a new tree, and a note says which.
    std::fs::write(example.join("a.txt"), "other\n").expect("a.txt");
    let out = record(&honest, &["--into", "again"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("this one is `example-2`"), "{stdout}");
    assert!(stdout.contains("+      tree: example-2\n"), "{stdout}");
    // A suite file changed since the proposal was shown: nothing written.
    std::fs::copy(
        specs.join("mine/recorded.yaml"),
        specs.join("mine/again.yaml"),
    )
    .expect("made");
    let out = record(
        "no-such-program-here {root}",
        &["--into", "again", "--write"],
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("changed since the proposal was shown"),
        "{stderr}"
    );
    assert!(
        !dir.path().join("work/fixtures/example-2").exists(),
        "nothing written"
    );
}

/// Two runs at once read the clock in the same second, so `record` loosens what
/// reads as the clock of the recording (a date near it, with names or ISO 8601,
/// a Unix time) and says so; a date far from it stays as it was. The suite then
/// passes a run made later.
#[test]
fn clock_readings_of_the_recording_are_loosened_and_said() {
    let dir = tempfile::tempdir().expect("temporary folder");
    let specs = dir.path().join("specs");
    let command = "date; date -u +%Y-%m-%dT%H:%M:%SZ; date +%s; date -u -d @978307200";
    let args = serde_json::json!({ "command": command }).to_string();
    let out = toolspec_in(
        &specs,
        &[
            "record",
            "--suite",
            "clock",
            "--convention",
            "bracket-code",
            "--server",
            &server("boris", ""),
            "--tool",
            "bash",
            "--args",
            &args,
            "--write",
        ],
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    assert_eq!(
        stdout.matches("a clock reading of the recording").count(),
        2,
        "{stdout}"
    );
    assert!(stdout.contains("a Unix time of the recording"), "{stdout}");
    let written = std::fs::read_to_string(specs.join("clock/recorded.yaml")).expect("written");
    for line in [
        "[..]",
        "{int}-{int}-{int}T{int}:{int}:{int}Z",
        "Mon Jan  1 00:00:00 UTC 2001",
    ] {
        assert!(written.contains(line), "no `{line}` in:\n{written}");
    }
    std::thread::sleep(std::time::Duration::from_millis(1100));
    let (code, ran) = run(&specs, "clock", &server("boris", ""));
    assert_eq!(code, Some(0), "{ran}");
}
