//! The harness must be able to fail. Every kind of expectation is shown catching a
//! wrong answer with a readable report, and every kind of broken server (hang, crash,
//! garbage, flood, orphaned children) ends as ERROR without stopping the run or
//! leaving processes behind.

use std::time::Duration;

use toolspec::{ScenarioReport, Target, Verdict};

use crate::hostile_http::hostile_http;
use crate::support::{exe, repo, run, suite};

fn assert_fails_with(report: &ScenarioReport, fragments: &[&str]) {
    let text = report.to_string();
    assert!(
        matches!(report.verdict, Verdict::Fail(_)),
        "expected FAIL, got:\n{text}"
    );
    for f in fragments {
        assert!(text.contains(f), "report lacks {f:?}:\n{text}");
    }
}

/// Every scenario of the `wrong` suite expects something a correct server does not do:
/// each must fail with exactly one mismatch, naming its expectation.
#[test]
fn every_kind_of_expectation_catches_a_wrong_answer() {
    let wrong = suite("tests/data/specs/wrong");
    let target = Target::reference(exe(), &wrong);
    let expected: &[(&str, &[&str])] = &[
        (
            "is_error expected true on a success",
            &[
                "`is_error: true`",
                "expected isError: true, got no isError field",
            ],
        ),
        (
            "is_error expected false on an error",
            &["`is_error: false`", "got isError: true"],
        ),
        (
            "code is wrong",
            &[
                "`code: IO_ERROR`",
                "expected code IO_ERROR, got PATH_NOT_FOUND",
                "-IO_ERROR",
                "+PATH_NOT_FOUND",
            ],
        ),
        (
            "code on a success",
            &[
                "`is_error: true`",
                "`code: PATH_NOT_FOUND`",
                "does not start with a `[CODE] ` prefix",
            ],
        ),
        (
            "text misses a period",
            &["`text`", "-1→hello.", "+1→hello", "^ first difference"],
        ),
        (
            "text misses the final newline",
            &["`text`", "-1→hello⊘ (no newline at end)", "+1→hello"],
        ),
        (
            "text int placeholder on a word",
            &["`text`", "-{int}→{int}", "+1→hello"],
        ),
        (
            "text any-lines still needs the last line",
            &["`text`", "-3→four", "+3→three"],
        ),
        (
            "contains a string that is absent",
            &["`contains: \"no such thing\"`", "does not occur"],
        ),
        (
            "not_contains a string that is present",
            &["`not_contains: \"missing.txt\"`", "occurs at byte"],
        ),
        (
            "matches a regex that does not match",
            &["`matches:", "no match for"],
        ),
        (
            "files text differs",
            &["`files: new.txt`", "-expected", "+written"],
        ),
        (
            "files absent but present",
            &["`files: new.txt`", "to be absent, but it exists"],
        ),
        (
            "files present but absent",
            &["`files: missing.txt`", "to exist, but it does not"],
        ),
        (
            "files unchanged but changed",
            &[
                "`files: dup.txt`",
                "expected dup.txt unchanged",
                "-x x x",
                "+y y y",
            ],
        ),
        (
            "files contains a string that is absent",
            &["`files: new.txt`", "\"not written\" does not occur"],
        ),
        (
            "a tool result expected but the tool does not exist",
            &[
                "`a tool result`",
                "expected a tool result, got JSON-RPC error",
            ],
        ),
        (
            "protocol_error expected but a tool result came",
            &[
                "`protocol_error: true`",
                "expected a JSON-RPC error, got tool result",
            ],
        ),
        (
            "protocol_error with the wrong code",
            &[
                "`protocol_error: {code: -32601}`",
                "expected JSON-RPC error code -32601, got JSON-RPC error -32602",
            ],
        ),
        (
            "json on a text that is not JSON",
            &["`json`", "the text is not JSON", "| 1\thello"],
        ),
        (
            "a named int placeholder on a word",
            &["`text`", "-1→{int:count}", "+1→hello"],
        ),
        (
            "listed_tools includes a tool the server lacks",
            &[
                "`listed_tools: include`",
                "tools/list lacks no_such_tool; it lists bash, ",
            ],
        ),
        (
            "listed_tools excludes a tool the server lists",
            &[
                "`listed_tools: exclude`",
                "tools/list names bash, which must be hidden",
            ],
        ),
        (
            "protocol_error message lacks a word",
            &[
                "`protocol_error: {code: -32602, contains: [frobnicate]}`",
                "\"frobnicate\" does not occur in the message of JSON-RPC error -32602",
            ],
        ),
        (
            "any_of with no branch holding",
            &[
                "`any_of[0]: protocol_error: {code: -32602, contains: [path]}`",
                "expected a JSON-RPC error, got tool result (isError: true): [PATH_NOT_FOUND]",
                "`any_of[1]: code: IO_ERROR`",
                "expected code IO_ERROR, got PATH_NOT_FOUND",
            ],
        ),
        (
            "a capture whose regex does not match",
            &[
                "`capture: {task: \"task id=([0-9a-f]+)\"}`",
                "preparatory call 1 (bash {\"command\":\"sleep 5\",\"run_in_background\":true}): no match for /task id=([0-9a-f]+)/ in the text:",
                "    | task_id: ",
                "nothing after this call was made",
            ],
        ),
    ];
    assert_eq!(
        expected.len(),
        wrong.ids().count(),
        "every scenario of the wrong suite is listed here"
    );
    for (name, fragments) in expected {
        let report = run(&wrong, name, &target, None);
        assert_fails_with(&report, fragments);
        let Verdict::Fail(mismatches) = &report.verdict else {
            unreachable!()
        };
        // `code` on a success breaks two promises: it is not an error, and has no code.
        // An `any_of` that fails shows each of its two branches failing.
        let count = match *name {
            "code on a success" | "any_of with no branch holding" => 2,
            _ => 1,
        };
        assert_eq!(
            mismatches.len(),
            count,
            "{name}: {count} mismatch(es) expected:\n{report}"
        );
    }
}

/// A reference server started with a deliberate deviation fails the scenarios that
/// check what it breaks, with a report that says why.
#[test]
fn a_server_that_drops_the_code_prefix_fails() {
    let boris = suite("specs/boris");
    let target =
        Target::reference(exe(), &boris).with_extra_args(&["--mutate", "drop-code-prefix"]);
    let report = run(&boris, "PATH_NOT_FOUND on missing file", &target, None);
    assert_fails_with(
        &report,
        &[
            "`code: PATH_NOT_FOUND`",
            "does not start with a `[CODE] ` prefix",
            "call: view",
            "fixture root: ",
        ],
    );
    // The unmutated server passes the same scenario: the failure is the mutation's.
    let clean = run(
        &boris,
        "PATH_NOT_FOUND on missing file",
        &Target::reference(exe(), &boris),
        None,
    );
    assert!(matches!(clean.verdict, Verdict::Pass), "{clean}");
}

#[test]
fn a_server_that_reports_nonzero_exit_as_error_fails() {
    let boris = suite("specs/boris");
    let target =
        Target::reference(exe(), &boris).with_extra_args(&["--mutate", "error-on-nonzero-exit"]);
    let report = run(&boris, "Command exits with code 1", &target, None);
    assert_fails_with(&report, &["`is_error: false`", "got isError: true"]);
}

fn hostile(mode: &str) -> Target {
    let script = repo().join("tests/servers/hostile.sh");
    Target::from_command_line(&format!("bash {} {mode}", script.display())).expect("command line")
}

fn assert_error(report: &ScenarioReport, fragments: &[&str]) {
    let text = report.to_string();
    assert!(
        matches!(report.verdict, Verdict::Error { .. }),
        "expected ERROR, got:\n{text}"
    );
    for f in fragments {
        assert!(text.contains(f), "report lacks {f:?}:\n{text}");
    }
}

const PROBE: &str = "PATH_NOT_FOUND on missing file";

#[test]
fn a_server_that_hangs_is_an_error_after_the_timeout() {
    let boris = suite("specs/boris");
    assert_error(
        &run(&boris, PROBE, &hostile("hang"), Some(500)),
        &["no answer within 500 ms", "call: view"],
    );
    assert_error(
        &run(&boris, PROBE, &hostile("hang-init"), Some(500)),
        &["no answer to initialize within 500 ms"],
    );
}

/// Every call answered within its own timeout, but too many of them: the scenario
/// ends at its deadline as an ERROR that says so, and its server is stopped.
#[test]
fn a_scenario_that_runs_past_its_deadline_is_an_error() {
    let slow = suite("tests/data/specs/slow");
    let report = run(
        &slow,
        "a hundred slow set-up calls",
        &hostile("crawl"),
        None,
    );
    assert_error(
        &report,
        &["the scenario ran past its deadline of 3000 ms (scenario_timeout_ms"],
    );
    // Far less than the twenty seconds the calls would take: the deadline ended it.
    assert!(
        report.elapsed < Duration::from_secs(10),
        "ran {:?}:\n{report}",
        report.elapsed
    );
    // The crawling server's `sleep 614` lives as long as the server does.
    let left = crate::support::running(&["sleep", "614"]);
    assert!(left.is_empty(), "left running: {left:?}");
}

#[test]
fn a_server_that_exits_mid_call_is_an_error_with_its_stderr() {
    let boris = suite("specs/boris");
    let report = run(&boris, PROBE, &hostile("exit"), Some(5000));
    assert_error(
        &report,
        &[
            "exited (exit status: 3)",
            "server stderr (tail):",
            "hostile: giving up mid-call",
        ],
    );
}

#[test]
fn an_initialize_answered_with_an_error_says_the_error() {
    // The server answers, then exits: the answer is the reason, not the exit.
    let boris = suite("specs/boris");
    let report = run(&boris, PROBE, &hostile("init-error"), Some(5000));
    assert_error(
        &report,
        &["the server answered initialize with JSON-RPC error -32603: license expired"],
    );
    assert!(!report.to_string().contains("exited"), "{report}");
}

#[test]
fn a_server_that_writes_garbage_is_an_error() {
    let boris = suite("specs/boris");
    assert_error(
        &run(&boris, PROBE, &hostile("garbage"), Some(5000)),
        &["not JSON on stdout: this is not json"],
    );
    assert_error(
        &run(&boris, PROBE, &hostile("not-jsonrpc"), Some(5000)),
        &["not a JSON-RPC 2.0 message on stdout"],
    );
}

/// A banner or log line on stdout ends the session with an error that names the
/// way out; with `--skip-stdout-noise` (or `skip_stdout_noise: true` in a target
/// file) such lines are skipped, the scenario is judged, and its report warns of
/// them. JSON that is not JSON-RPC is still an error then.
#[test]
fn a_banner_on_stdout_is_an_error_unless_skipped_and_then_a_warning() {
    let dir = tempfile::tempdir().expect("tempdir");
    let banner = format!(
        "sh -c 'echo Server running on stdio; exec \"$0\" reference-server --dialect boris --root \"$1\"' {} {{root}}",
        exe().display()
    );
    let run_with = |extra: &[&str], json: &str| {
        let output = crate::support::toolspec()
            .args(["run", "--suite", "boris", "--id"])
            .arg(format!("boris::cross-tool-error-codes::{PROBE}"))
            // The wrapper runs the test's own build, which only the test's
            // machine sees: this is about stdout, not isolation.
            .args(["--no-isolation", "--server", &banner, "--json"])
            .arg(dir.path().join(json))
            .args(extra)
            .output()
            .expect("toolspec runs");
        let report = std::fs::read(dir.path().join(json))
            .ok()
            .and_then(|bytes| serde_json::from_slice::<serde_json::Value>(&bytes).ok())
            .map(|report| report["scenarios"][0].clone());
        let said = String::from_utf8_lossy(&output.stderr).into_owned();
        (output.status.code(), report, said)
    };
    // The banner comes before `initialize` is answered: the server cannot start,
    // which ends the run at once (exit 2) with the one error, naming the way out.
    let (code, report, said) = run_with(&[], "strict.json");
    assert_eq!(code, Some(2), "{said}");
    assert!(report.is_none(), "{report:?}");
    assert!(
        said.contains("not JSON on stdout: Server running on stdio")
            && said.contains("--skip-stdout-noise"),
        "{said}"
    );

    let (code, skipped, said) = run_with(&["--skip-stdout-noise"], "skipped.json");
    let skipped = skipped.unwrap_or_else(|| panic!("no report: {said}"));
    assert_eq!(code, Some(0), "{skipped}");
    assert_eq!(skipped["verdict"], "PASS", "{skipped}");
    let warnings = skipped["warnings"].to_string();
    assert!(
        warnings.contains("wrote 1 line that is not JSON on stdout, skipped"),
        "{warnings}"
    );
    assert!(warnings.contains("Server running on stdio"), "{warnings}");

    // The target file's key does the same; JSON that is not JSON-RPC still ends it.
    let target = dir.path().join("noisy.yaml");
    std::fs::write(
        &target,
        format!(
            "name: noisy\ncommand: [bash, {}, not-jsonrpc]\nskip_stdout_noise: true\n",
            repo().join("tests/servers/hostile.sh").display()
        ),
    )
    .expect("target file");
    let output = crate::support::toolspec()
        .args(["run", "--suite", "boris", "--timeout-ms", "5000", "--id"])
        .arg(format!("boris::cross-tool-error-codes::{PROBE}"))
        .arg("--target")
        .arg(&target)
        .output()
        .expect("toolspec runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(1), "{stdout}");
    assert!(
        stdout.contains("not a JSON-RPC 2.0 message on stdout"),
        "{stdout}"
    );
}

#[test]
fn a_server_that_answers_with_a_malformed_result_is_an_error() {
    let boris = suite("specs/boris");
    assert_error(
        &run(&boris, PROBE, &hostile("bad-result"), Some(5000)),
        &["not a valid CallToolResult"],
    );
    // An answer to a request never made is reported as what it is, at once.
    assert_error(
        &run(&boris, PROBE, &hostile("wrong-id"), Some(5000)),
        &["a response with id 1001 arrived; the request was 1"],
    );
    assert_error(
        &run(&boris, PROBE, &hostile("null-id"), Some(5000)),
        &["a JSON-RPC error without an id", "parse error"],
    );
}

/// A result without `content` is not an empty text: a scenario that checks only
/// `is_error: false` would pass against a server that answers every call
/// `{"isError": false}`.
#[test]
fn a_result_without_content_is_an_error_not_an_empty_text() {
    let wrong = suite("tests/data/specs/wrong");
    let scenario = "is_error expected false on an error";
    let fragments = [
        "the server's answer to tools/call is not a valid CallToolResult: it has no `content`",
        r#"the result was {"isError":false}"#,
    ];
    assert_error(
        &run(&wrong, scenario, &hostile("no-content"), Some(5000)),
        &fragments,
    );
    assert_error(
        &run(&wrong, scenario, &hostile_http("no-content"), Some(5000)),
        &fragments,
    );
}

/// A result with an image and no text fails an expectation on the text saying that
/// non-text content came back, not with an empty `text: `.
#[test]
fn an_image_only_result_says_non_text_content_came_back() {
    let boris = suite("specs/boris");
    let report = run(&boris, PROBE, &hostile("image-only"), Some(5000));
    assert!(matches!(report.verdict, Verdict::Fail(_)), "{report}");
    assert!(
        report.to_string().contains(
            "the result has no text content; non-text content came back instead: image (image/png)"
        ),
        "{report}"
    );
}

/// JSON-RPC ids are typed: the string "1" does not answer request 1, even with the
/// answer the scenario wants, and the stray response is named at once rather than
/// waited out as a timeout.
#[test]
fn a_response_with_a_string_id_does_not_answer_a_number_id() {
    let boris = suite("specs/boris");
    for target in [
        hostile("string-id"),
        hostile_http("string-id"),
        hostile_http("sse-string-id"),
    ] {
        let report = run(&boris, PROBE, &target, Some(10_000));
        assert_error(
            &report,
            &[r#"a response with id "1" arrived; the request was 1"#],
        );
        assert!(
            report.elapsed < Duration::from_secs(5),
            "waited {:?} for a stray answer:\n{report}",
            report.elapsed
        );
    }
}

/// An HTTP answer that is not MCP ends the attempt at once, said in plain words:
/// not a wait for the whole timeout ending in "no answer", and no Rust type names.
#[test]
fn an_http_initialize_answered_with_something_else_is_said_at_once() {
    let boris = suite("specs/boris");
    let cases = [
        ("status-500", "answered initialize with HTTP 500 Internal Server Error (text/html); the body begins <html>"),
        ("html", "answered initialize with HTTP 200 OK and a text/html body instead of JSON-RPC"),
        ("redirect", "answered initialize with a redirect (HTTP 302 Found) to /login"),
    ];
    for (mode, said) in cases {
        let report = run(&boris, PROBE, &hostile_http(mode), Some(10_000));
        assert_error(&report, &["MCP initialize failed: http://127.0.0.1:", said]);
        let text = report.to_string();
        assert!(!text.contains("rmcp::"), "a Rust type name in:\n{text}");
        assert!(
            report.elapsed < Duration::from_secs(5),
            "{mode}: waited {:?}:\n{text}",
            report.elapsed
        );
    }
}

#[test]
fn a_server_that_floods_stdout_is_an_error() {
    let boris = suite("specs/boris");
    assert_error(
        &run(&boris, PROBE, &hostile("flood"), Some(5000)),
        &["wrote a line of more than"],
    );
}

#[test]
fn an_http_server_that_never_listens_is_an_error() {
    let boris = suite("specs/boris");
    let mut target = Target::from_command_line("sleep 600").expect("command line");
    target.url = Some("http://127.0.0.1:{port}/mcp".to_string());
    assert_error(
        &run(&boris, PROBE, &target, Some(500)),
        &[
            "no MCP session at http://127.0.0.1:",
            "within 500 ms; last error:",
        ],
    );
}

#[test]
fn a_missing_server_program_is_an_error() {
    let boris = suite("specs/boris");
    let target = Target::from_command_line("/nonexistent/server {root}").expect("command line");
    assert_error(
        &run(&boris, PROBE, &target, Some(2000)),
        &["cannot start `/nonexistent/server`"],
    );
}

/// Processes a server leaves behind, even in a new session of their own, are killed
/// when the scenario ends.
#[test]
fn nothing_is_left_running_after_a_hostile_server() {
    let boris = suite("specs/boris");
    let report = run(&boris, PROBE, &hostile("orphan"), Some(500));
    assert_error(&report, &["no answer within 500 ms"]);
    // Other tests in this binary run servers concurrently; only `sleep 613` is the
    // orphan this hostile mode starts.
    let orphans = crate::support::running(&["sleep", "613"]);
    assert!(orphans.is_empty(), "left running: {orphans:?}");
}

/// `requires: [non-root]` asks that permission bits hold for the server. An isolated
/// server keeps no capability, root or not, so the scenario runs and its premise (an
/// unreadable file) holds; without isolation, a server run by root ignores them, so
/// there the scenario is skipped with its reason.
#[test]
fn a_scenario_needing_a_non_root_user_is_skipped_only_where_root_keeps_its_capabilities() {
    let conditions = suite("tests/data/specs/conditions");
    let isolated = Target::reference(exe(), &conditions);
    let mut open = isolated.clone();
    open.isolation.enabled = false;
    let name = "an unreadable file needs a non-root user";
    let report = run(&conditions, name, &isolated, None);
    assert!(
        matches!(report.verdict, Verdict::Pass),
        "isolated, the unreadable file is unreadable:\n{report}"
    );
    let report = run(&conditions, name, &open, None);
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } == 0 {
        let Verdict::Skip(why) = &report.verdict else {
            panic!("expected SKIP as root without isolation, got:\n{report}");
        };
        assert!(why.contains("requires non-root"), "{why}");
    } else {
        assert!(
            matches!(report.verdict, Verdict::Pass),
            "must run and pass when not root:\n{report}"
        );
    }
}

/// The ikigai envelope: a `success` sent as the string "true", or a missing
/// `count`, fails with a message naming the field.
#[test]
fn an_envelope_with_a_string_success_or_no_count_fails_naming_the_field() {
    let ikigai = suite("specs/ikigai");
    let scenario = "Matching files, one per line, with their count";
    let stringly =
        Target::reference(exe(), &ikigai).with_extra_args(&["--mutate", "success-as-string"]);
    assert_fails_with(
        &run(&ikigai, scenario, &stringly, None),
        &[
            "`result envelope`",
            r#"$.success must be a boolean, got "true" (string)"#,
        ],
    );
    let countless = Target::reference(exe(), &ikigai).with_extra_args(&["--mutate", "omit-count"]);
    assert_fails_with(
        &run(&ikigai, scenario, &countless, None),
        &[
            "`json`",
            "$.data.count: missing; the object has keys output",
        ],
    );
    let clean = run(&ikigai, scenario, &Target::reference(exe(), &ikigai), None);
    assert!(matches!(clean.verdict, Verdict::Pass), "{clean}");
}

/// The agent-tools envelope: an error that is not the JSON envelope, and an envelope
/// sent as a success (no `isError`), each fail as a broken convention with the text.
#[test]
fn an_error_outside_the_envelope_or_a_success_inside_it_fails() {
    let tools = suite("specs/agent-tools");
    let plain =
        Target::reference(exe(), &tools).with_extra_args(&["--mutate", "plain-text-errors"]);
    let report = run(&tools, "read_file on a missing file", &plain, None);
    assert_fails_with(
        &report,
        &[
            "`error envelope`",
            "an error result must be the JSON envelope",
            "the text is not JSON",
            "No such file",
        ],
    );
    let unflagged =
        Target::reference(exe(), &tools).with_extra_args(&["--mutate", "omit-is-error"]);
    let report = run(&tools, "read_file on a missing file", &unflagged, None);
    assert_fails_with(
        &report,
        &[
            "`error envelope`",
            "a success must never use the error envelope, but this one does (isError absent)",
            r#"{"error":"not_found""#,
        ],
    );
}
