//! The `toolspec` command line, as a user runs it: suites, external servers, target
//! files with renames and baselines, and the report files a CI page reads.

use std::io::Read;
use std::path::Path;

use assert_cmd::Command;

use crate::support::{assert_matches_schema, target_file, toolspec, REPORT_SCHEMA};
use predicates::prelude::*;

/// `toolspec run --suite boris --filter <filter>`.
fn boris(filter: &str) -> Command {
    let mut cmd = toolspec();
    cmd.args(["run", "--suite", "boris", "--filter", filter]);
    cmd
}

#[test]
fn run_prints_a_summary_and_succeeds_on_the_reference() {
    boris("bash-tool-error-codes")
        .assert()
        .success()
        .stdout(
            predicate::str::is_match(r"boris: \d+ PASS, 0 FAIL, 0 ERROR, 0 SKIP, 0 UNSUPPORTED, 0 KNOWN, 0 FLAKY \(spec \d+/\d+, upstream \d+/\d+\)").expect("regex"),
        )
        .stdout(predicate::str::is_match(r"(?m)^total: \d+ PASS, 0 FAIL, 0 ERROR, 0 SKIP, 0 UNSUPPORTED, 0 KNOWN, 0 FLAKY \(spec \d+/\d+, upstream \d+/\d+\)$").expect("regex"));
}

#[test]
fn run_fails_with_a_diff_against_a_deviating_server() {
    boris("PATH_NOT_FOUND")
        .args(["--mutate", "drop-code-prefix"])
        .assert()
        .code(1)
        .stdout(predicate::str::contains(
            "FAIL boris::cross-tool-error-codes::PATH_NOT_FOUND on missing file",
        ))
        .stdout(predicate::str::contains(
            "does not start with a `[CODE] ` prefix",
        ))
        .stdout(predicate::str::is_match(r"boris: 0 PASS, \d+ FAIL").expect("regex"));
}

#[test]
fn run_against_an_external_server_skips_what_it_cannot_express() {
    // The reference server given as an external command: no settings mapping, so
    // scenarios that need max_file_size, allow or deny are skipped with a reason. All
    // of those selected are skipped, so nothing was judged, and the run does not pass.
    let exe = assert_cmd::cargo::cargo_bin("toolspec");
    toolspec()
        .args([
            "run",
            "--suite",
            "boris",
            "--filter",
            "FILE_TOO_LARGE",
            "--verbose",
            "--server",
            &format!(
                "{} reference-server --dialect boris --root {{root}}",
                exe.display()
            ),
        ])
        .assert()
        .code(1)
        .stdout(predicate::str::contains(
            "cannot express setting max_file_size",
        ))
        .stdout(
            predicate::str::is_match(r"boris: 0 PASS, 0 FAIL, 0 ERROR, \d+ SKIP").expect("regex"),
        )
        .stdout(predicate::str::contains("error: no scenario was judged"));
}

#[test]
fn list_names_suites_and_scenarios() {
    toolspec()
        .args(["list", "--suite", "boris"])
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "boris::bash-tool-error-codes::Empty command",
        ));
}

#[test]
fn an_unknown_suite_is_a_clear_error() {
    toolspec()
        .args(["run", "--suite", "nope"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("no suite `nope`"));
}

const NONZERO: &str = "boris::non-zero-bash-exit-codes-are-not-errors::";

#[test]
fn known_failures_do_not_fail_the_run_and_stale_entries_do() {
    let dir = tempfile::tempdir().expect("tempdir");
    // With the mutation, every non-zero-exit scenario fails; list them all.
    let baseline = dir.path().join("known.txt");
    let first = target_file(dir.path(), ", --mutate, error-on-nonzero-exit", "");
    boris(NONZERO)
        .args(["--target"])
        .arg(&first)
        .arg("--write-baseline")
        .arg(&baseline)
        .assert()
        .code(1);
    let listed = std::fs::read_to_string(&baseline).expect("baseline written");
    assert!(listed.lines().any(|l| l.starts_with(NONZERO)), "{listed}");
    let target = target_file(
        dir.path(),
        ", --mutate, error-on-nonzero-exit",
        "baseline_file: known.txt\n",
    );

    boris(NONZERO)
        .args(["--target"])
        .arg(&target)
        .assert()
        .success()
        .stdout(
            predicate::str::is_match(
                r"boris: 0 PASS, 0 FAIL, 0 ERROR, 0 SKIP, 0 UNSUPPORTED, [1-9]\d* KNOWN, 0 FLAKY",
            )
            .expect("regex"),
        );

    // Without the mutation the same entries pass: each is stale and fails the run.
    let clean = target_file(dir.path(), "", "baseline_file: known.txt\n");
    boris(NONZERO)
        .args(["--target"])
        .arg(&clean)
        .assert()
        .code(1)
        .stdout(predicate::str::contains(
            "listed in the baseline but passes now",
        ));
}

#[test]
fn a_baseline_entry_that_names_no_scenario_is_refused() {
    let dir = tempfile::tempdir().expect("tempdir");
    let target = target_file(dir.path(), "", "baseline: [\"boris::nope::Nothing\"]\n");
    toolspec()
        .args(["run", "--suite", "boris", "--target"])
        .arg(&target)
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "baseline names no scenario: `boris::nope::Nothing`",
        ));
}

#[test]
fn renamed_tools_and_arguments_reach_the_server_under_their_own_names() {
    // The suite says `view {path}`; this target says the server's `view` is called
    // `glob` with argument `pattern`, so a scenario that views a file now globs, and
    // the answer no longer matches: the rename demonstrably reached the server.
    let dir = tempfile::tempdir().expect("tempdir");
    let target = target_file(
        dir.path(),
        "",
        "tools: { view: glob }\narguments: { view: { path: pattern } }\n",
    );
    boris("PATH_NOT_FOUND on missing file")
        .args(["--target"])
        .arg(&target)
        .assert()
        .code(1)
        .stdout(predicate::str::contains("call: glob {\"pattern\":"));
}

#[test]
fn reports_are_written() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (junit, json, md) = (
        dir.path().join("r.xml"),
        dir.path().join("r.json"),
        dir.path().join("r.md"),
    );
    boris("str-replace")
        .args(["--mutate", "lowercase-code", "--junit"])
        .arg(&junit)
        .arg("--json")
        .arg(&json)
        .arg("--markdown")
        .arg(&md)
        .assert()
        .code(1);
    let xml = std::fs::read_to_string(&junit).expect("junit");
    assert!(xml.contains("<testsuite name=\"boris\""), "{xml}");
    assert!(
        xml.contains("<failure message=\"expectation did not hold\">"),
        "{xml}"
    );
    assert!(
        xml.contains("<testcase classname=\"boris.str-replace-tool-error-codes\""),
        "{xml}"
    );
    let doc = assert_matches_schema(REPORT_SCHEMA, &json);
    let scenarios = doc["scenarios"].as_array().expect("scenarios");
    assert!(!scenarios.is_empty());
    assert!(scenarios.iter().any(|s| s["verdict"] == "FAIL"
        && s["mismatches"][0]["expectation"]
            .as_str()
            .is_some_and(|e| e.starts_with("code: "))));
    assert!(scenarios
        .iter()
        .all(|s| s["verdict"].is_string() && s["covers"].is_string()));
    let table = std::fs::read_to_string(&md).expect("markdown");
    assert!(
        table.contains("| boris | Str_replace tool error codes |"),
        "{table}"
    );
}

#[test]
fn the_suite_runs_over_streamable_http() {
    let dir = tempfile::tempdir().expect("tempdir");
    let exe = assert_cmd::cargo::cargo_bin("toolspec");
    let target = dir.path().join("http.yaml");
    std::fs::write(
        &target,
        format!(
            "name: reference-over-http\n\
             command: [\"{}\", reference-server, --dialect, boris, --root, \"{{root}}\", --transport, http, --port, \"{{port}}\"]\n\
             url: \"http://127.0.0.1:{{port}}/mcp\"\n\
             settings:\n  max_file_size: [--max-file-size, \"{{value}}\"]\n  allow: [--allow-dir, \"{{value}}\"]\n  deny: [--deny-dir, \"{{value}}\"]\n  timeout: [--timeout, \"{{value}}\"]\n",
            exe.display()
        ),
    )
    .expect("write target");
    // The requirement whose scenarios call every tool, with settings: the whole
    // suite runs over HTTP in CI (.ci/run), where time is cheaper.
    toolspec()
        .args([
            "run",
            "--suite",
            "boris",
            "--filter",
            "cross-tool-error-codes",
            "--jobs",
            "8",
            "--target",
        ])
        .arg(&target)
        .assert()
        .success()
        .stdout(
            predicate::str::is_match(
                r"boris: \d+ PASS, 0 FAIL, 0 ERROR, 0 SKIP, .*\(target: reference-over-http; suite: built-in, version \d+\)",
            )
            .expect("regex"),
        );
}

#[test]
fn keep_failed_leaves_the_fixture_for_a_look() {
    let output = boris("str-replace-tool-error-codes::Ambiguous match")
        .args(["--mutate", "lowercase-code", "--keep-failed"])
        .assert()
        .code(1)
        .get_output()
        .stdout
        .clone();
    let text = String::from_utf8_lossy(&output);
    // The filter selects every "Ambiguous match" scenario: each failed one is kept.
    let roots: Vec<&str> = text
        .lines()
        .filter_map(|l| l.trim().strip_prefix("fixture root: "))
        .filter_map(|l| l.strip_suffix(" (kept)"))
        .collect();
    assert!(!roots.is_empty(), "no kept root in:\n{text}");
    for root in &roots {
        assert!(Path::new(root).join("dup.txt").is_file(), "{root}");
    }
    for root in roots {
        std::fs::remove_dir_all(root).expect("clean up");
    }
}

#[test]
fn the_preflight_names_tools_and_arguments_the_server_lacks() {
    let dir = tempfile::tempdir().expect("tempdir");
    let target = target_file(
        dir.path(),
        "",
        "tools: { bash: shell }\narguments: { view: { path: file } }\n",
    );
    boris("Empty command")
        .args(["--target"])
        .arg(&target)
        .assert()
        .code(1)
        .stdout(predicate::str::contains(
            "note: `mutated` does not list the suite's tool(s) shell: the scenarios calling them are UNSUPPORTED",
        ))
        .stdout(predicate::str::contains(
            "note: `mutated`'s tool `view` declares no argument `file`",
        ));
}

#[test]
fn an_interrupted_run_stops_every_server_it_started() {
    // Each server leaves `sleep 631` in a session of its own, then hangs.
    let orphans = || crate::support::running(&["sleep", "631"]);
    let exe = assert_cmd::cargo::cargo_bin("toolspec");
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/servers/hostile.sh");
    let child = std::process::Command::new(exe)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args([
            "run",
            "--suite",
            "boris",
            "--timeout-ms",
            "2000",
            "--server",
        ])
        .arg(format!("bash {} orphan 631", script.display()))
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("start toolspec");
    let pid = child.id();
    // Wait until its servers (and their orphans) are running.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while orphans().len() < 2 && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    assert!(!orphans().is_empty(), "no server started");
    // SAFETY: sending SIGINT to our own child.
    unsafe {
        libc::kill(pid as i32, libc::SIGINT);
    }
    let output = child.wait_with_output().expect("wait");
    assert_eq!(output.status.code(), Some(130));
    assert!(String::from_utf8_lossy(&output.stderr).contains("interrupted; stopped"));
    assert_eq!(orphans(), Vec::<String>::new());
}

/// `toolspec run` of one boris scenario against `hostile.sh MODE`, as a user runs it.
fn against_hostile(mode: &str, color: &str) -> String {
    let script = crate::support::repo().join("tests/servers/hostile.sh");
    let output = boris("PATH_NOT_FOUND on missing file")
        .args(["--timeout-ms", "1000", "--color", color, "--server"])
        .arg(format!("bash {} {mode}", script.display()))
        .output()
        .expect("toolspec runs");
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    String::from_utf8(output.stdout).expect("UTF-8 stdout")
}

/// Every ANSI sequence in `text` is one of the report's own colours (`ESC[…m`).
fn only_our_colours(text: &str) -> bool {
    text.split('\x1b').skip(1).all(|after| {
        after
            .strip_prefix('[')
            .and_then(|rest| rest.split_once('m'))
            .is_some_and(|(params, _)| params.chars().all(|c| c.is_ascii_digit() || c == ';'))
    })
}

/// A server script without a `#!` line runs under `/bin/sh`, as `execvp` has it,
/// found through `PATH` like any command.
#[test]
fn a_server_script_without_a_shebang_line_runs_under_the_shell() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().expect("tempdir");
    let script = dir.path().join("serve-ikigai");
    std::fs::write(
        &script,
        format!(
            "exec '{}' reference-server --dialect ikigai --root \"$1\"\n",
            crate::support::exe().display()
        ),
    )
    .expect("write the script");
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    let path = format!(
        "{}:{}",
        dir.path().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    toolspec()
        .env("PATH", path)
        .args([
            "run",
            "--suite",
            "ikigai",
            "--filter",
            "result-format",
            "--server",
        ])
        .arg("serve-ikigai {root}")
        .assert()
        .success()
        .stdout(predicate::str::contains(" 0 FAIL, 0 ERROR"));
}

/// The look at a server's tool list before a suite waits one call timeout at most,
/// says so, and the scenarios still run (judged as if every tool were there).
#[test]
fn a_tool_list_that_never_comes_is_said_with_its_timeout_and_the_run_goes_on() {
    let script = crate::support::repo().join("tests/servers/hostile.sh");
    let output = boris("PATH_NOT_FOUND on missing file")
        .args(["--timeout-ms", "500", "--color", "never", "--server"])
        .arg(format!("bash {} hang-list", script.display()))
        .output()
        .expect("toolspec runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        stdout
            .contains("note: could not list `bash`'s tools: no answer to tools/list within 500 ms"),
        "{stdout}"
    );
    // Every call is answered `done`, which no PATH_NOT_FOUND scenario accepts.
    assert_eq!(output.status.code(), Some(1), "{stdout}");
    assert!(stdout.contains(" FAIL, 0 ERROR"), "{stdout}");
}

#[test]
fn a_server_cannot_steer_the_terminal_through_the_report() {
    // ESC, BEL and CR in a result text (quoted in the diff) and on stderr (quoted in
    // an ERROR) reach the console as visible marks, with or without colour.
    for mode in ["escapes", "escapes-exit"] {
        let plain = against_hostile(mode, "never");
        for raw in ['\x1b', '\x07', '\r'] {
            assert!(!plain.contains(raw), "{mode}: raw {raw:?} in:\n{plain:?}");
        }
        assert!(
            plain.contains("␛[2J"),
            "{mode}: no visible ESC in:\n{plain}"
        );
        assert!(plain.contains("␇"), "{mode}: no visible BEL in:\n{plain}");
        let coloured = against_hostile(mode, "always");
        assert!(
            only_our_colours(&coloured),
            "{mode}: foreign escape in:\n{coloured:?}"
        );
        assert!(
            !coloured.contains('\x07') && !coloured.contains('\r'),
            "{coloured:?}"
        );
    }
    // A stderr line that starts with `-` is the server's, not a removed diff line.
    let coloured = against_hostile("escapes-exit", "always");
    assert!(coloured.contains("\n    -painted\n"), "{coloured:?}");
}

/// A suite folder `big` in `dir` with the scenarios `scenarios` (YAML list items),
/// run against the boris reference: its exit code, its output and its peak memory
/// (the largest resident size of toolspec and everything it waited for).
///
/// Linux counts in a child's peak the memory of the process that spawned it (the
/// image it replaced at exec), so the figure is only toolspec's in a small test
/// process: the tests that call this run in a process of their own, started by
/// [`large_fixture_files_are_made_and_compared_in_pieces`]. In the whole test
/// binary, grown by other tests to over 100 MiB on a loaded machine, both reported
/// 109 MiB.
fn run_measuring_peak_memory(dir: &Path, scenarios: &str) -> (i32, String, u64) {
    let suite = dir.join("big");
    std::fs::create_dir(&suite).expect("mkdir");
    std::fs::write(
        suite.join("suite.yaml"),
        "suite: big\ntitle: Big\ndialect: bracket-code\nreference:\n  args: [--dialect, boris, --root, \"{root}\"]\n",
    )
    .expect("write");
    std::fs::write(
        suite.join("files.yaml"),
        format!("requirement: R\nscenarios:\n{scenarios}"),
    )
    .expect("write");
    #[allow(
        clippy::zombie_processes,
        reason = "reaped below by wait4, which also gives its peak memory"
    )]
    let mut child = std::process::Command::new(crate::support::exe())
        .args(["run", "--color", "never", "--suite", "big", "--specs"])
        .arg(dir)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("toolspec starts");
    // The output is a few lines: read it to the end (the child's exit), then reap.
    let mut output = String::new();
    if let Some(mut out) = child.stdout.take() {
        let _ = out.read_to_string(&mut output);
    }
    if let Some(mut err) = child.stderr.take() {
        let _ = err.read_to_string(&mut output);
    }
    let pid = i32::try_from(child.id()).expect("pid");
    let mut status = 0;
    // SAFETY: an all-zero rusage is a valid value to be filled in.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `pid` is our own child, not yet waited for; both pointers are valid.
    let waited = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    assert_eq!(waited, pid, "wait4 failed");
    assert!(libc::WIFEXITED(status), "the run did not exit:\n{output}");
    let peak_bytes = u64::try_from(usage.ru_maxrss).unwrap_or(0) * 1024;
    (libc::WEXITSTATUS(status), output, peak_bytes)
}

/// The two peak-memory tests below, in a test process of their own (see
/// [`run_measuring_peak_memory`]).
#[test]
fn large_fixture_files_are_made_and_compared_in_pieces() {
    crate::support::run_in_own_process(&[
        "cli::own_process_a_large_fixture_file_is_not_built_in_memory",
        "cli::own_process_an_unchanged_check_on_a_large_fixture_file_compares_it_in_pieces",
    ]);
}

/// A `size:` file is written to disk in pieces, not built in memory: a run with a
/// 128 MiB fixture file peaks far below 128 MiB of memory.
#[test]
#[ignore = "run in a process of its own by large_fixture_files_are_made_and_compared_in_pieces"]
fn own_process_a_large_fixture_file_is_not_built_in_memory() {
    const SIZE: u64 = 128 * 1024 * 1024;
    let dir = tempfile::tempdir().expect("tempdir");
    let (code, output, peak_bytes) = run_measuring_peak_memory(
        dir.path(),
        &format!("  - name: a large file\n    covers: r/large\n    given: {{ files: {{ big.bin: {{ size: {SIZE} }} }} }}\n    when: {{ tool: view, args: {{ path: \"{{root}}/missing.txt\" }} }}\n    then: {{ code: PATH_NOT_FOUND }}\n"),
    );
    assert_eq!(code, 0, "the run failed:\n{output}");
    assert!(
        peak_bytes < SIZE / 2,
        "toolspec peaked at {} MiB for a {} MiB fixture file",
        peak_bytes >> 20,
        SIZE >> 20
    );
}

/// `unchanged:` on a 128 MiB `size:` file compares it with the fixture in pieces
/// (the expected bytes made again as they are read), so memory stays far below
/// the file's size; and a single byte changed in the middle is still caught, the
/// message naming the byte and showing the bytes around it.
#[test]
#[ignore = "run in a process of its own by large_fixture_files_are_made_and_compared_in_pieces"]
fn own_process_an_unchanged_check_on_a_large_fixture_file_compares_it_in_pieces() {
    const SIZE: u64 = 128 * 1024 * 1024;
    const CHANGED_AT: u64 = 100_000_000;
    let given = format!("{{ files: {{ big.bin: {{ size: {SIZE}, fill: \"0123456789\\n\" }} }} }}");
    let dir = tempfile::tempdir().expect("tempdir");
    let (code, output, peak_bytes) = run_measuring_peak_memory(
        dir.path(),
        &format!(
            "  - name: left alone\n    covers: r/large\n    given: {given}\n    when: {{ tool: view, args: {{ path: \"{{root}}/missing.txt\" }} }}\n    then: {{ code: PATH_NOT_FOUND, files: {{ big.bin: {{ unchanged: true }} }} }}\n\
             \x20 - name: one byte changed\n    covers: r/large\n    given: {given}\n    when: {{ tool: bash, args: {{ command: \"printf X | dd of={{root:sh}}/big.bin bs=1 seek={CHANGED_AT} conv=notrunc status=none\" }} }}\n    then: {{ files: {{ big.bin: {{ unchanged: true }} }} }}\n"
        ),
    );
    assert_eq!(code, 1, "one scenario fails:\n{output}");
    assert!(
        output.contains("big: 1 PASS, 1 FAIL"),
        "the untouched file passes:\n{output}"
    );
    let lines_before = CHANGED_AT / 11;
    let column = CHANGED_AT % 11 + 1;
    assert_eq!(column, 2, "the changed byte is the `1` of its line");
    for shown in [
        "FAIL big::files::one byte changed".to_string(),
        format!(
            "expected big.bin unchanged, but it differs from the fixture at byte {CHANGED_AT} (line {}, column {column})",
            lines_before + 1
        ),
        // The line around the byte, before and after: `1` became `X`.
        "-0123456789".to_string(),
        "+0X23456789".to_string(),
        "^ first difference".to_string(),
    ] {
        assert!(output.contains(&shown), "{shown:?} is not in:\n{output}");
    }
    assert!(
        peak_bytes < SIZE / 2,
        "toolspec peaked at {} MiB checking a {} MiB file unchanged",
        peak_bytes >> 20,
        SIZE >> 20
    );
}

/// The address space, in kB, of each server's supervisor and of toolspec itself,
/// as each server of a `boris` run filtered to four scenarios sees them when it
/// starts.
fn supervisor_and_toolspec_sizes(no_spawner: bool) -> Vec<(u64, u64)> {
    let dir = tempfile::tempdir().expect("tempdir");
    let seen = dir.path().join("seen");
    let script = dir.path().join("server.sh");
    std::fs::write(
        &script,
        format!(
            "#!/bin/bash\n\
             supervisor=$PPID\n\
             toolspec=$(awk '{{print $4}}' /proc/$supervisor/stat)\n\
             size() {{ awk '/^VmSize:/ {{print $2}}' /proc/$1/status; }}\n\
             echo \"$(size $supervisor) $(size $toolspec)\" >> '{}'\n\
             exec '{}' reference-server --dialect boris --root \"$1\"\n",
            seen.display(),
            crate::support::exe().display()
        ),
    )
    .expect("write the server");
    let mut cmd = boris("PATH_NOT_FOUND");
    // The server reads toolspec's `/proc` entries, which isolation keeps from it
    // (Landlock denies a confined process a look into one outside its domain).
    cmd.arg("--no-isolation")
        .arg("--server")
        .arg(format!("bash {} {{root}}", script.display()));
    if no_spawner {
        cmd.env("TOOLSPEC_NO_SPAWNER", "1");
    } else {
        cmd.env_remove("TOOLSPEC_NO_SPAWNER");
    }
    cmd.assert().success();
    let text = std::fs::read_to_string(&seen).expect("the server saw its supervisor");
    text.lines()
        .map(|line| {
            let sizes: Vec<u64> = line
                .split_whitespace()
                .map(|n| n.parse().expect("kB"))
                .collect();
            assert_eq!(sizes.len(), 2, "{line:?}");
            (sizes[0], sizes[1])
        })
        .collect()
}

/// Each supervisor is forked from the spawner, a copy of toolspec made as it
/// started, so its address space is a fraction of toolspec's own (which holds the
/// suites, the scenario threads' stacks and their heaps); forked from toolspec, it
/// is as large. The page tables of that space are what each fork copies.
#[test]
fn supervisors_are_forked_from_the_small_spawner_not_from_toolspec() {
    let spawned = supervisor_and_toolspec_sizes(false);
    // The preflight's server, then one a scenario.
    assert!(spawned.len() >= 4, "{spawned:?}");
    for (supervisor, toolspec) in &spawned {
        assert!(
            supervisor * 2 < *toolspec,
            "a supervisor of {supervisor} kB beside toolspec's {toolspec} kB: {spawned:?}"
        );
    }
    // The check can fail: forked by toolspec itself, a supervisor is toolspec's
    // size at the fork (the preflight's at least: no scenario thread starts
    // meanwhile and makes toolspec larger before the server looks).
    let forked = supervisor_and_toolspec_sizes(true);
    assert!(
        forked
            .iter()
            .any(|(supervisor, toolspec)| supervisor * 2 >= *toolspec),
        "{forked:?}"
    );
}

/// A server that cannot be started says why in the same words either way its
/// supervisor was forked: the spawner's supervisor reports the exec's error on its
/// control socket, std's through its spawn.
#[test]
fn a_server_that_cannot_start_says_why_the_same_way_with_or_without_the_spawner() {
    let lines = |no_spawner: bool| {
        let mut cmd = boris("PATH_NOT_FOUND on missing file");
        cmd.args(["--server", "/nonexistent/server {root}"]);
        if no_spawner {
            cmd.env("TOOLSPEC_NO_SPAWNER", "1");
        }
        let output = cmd.output().expect("runs");
        // The first start fails, so the run ends at once: one error, exit 2.
        assert_eq!(output.status.code(), Some(2));
        String::from_utf8_lossy(&output.stderr)
            .lines()
            .filter(|l| l.starts_with("error: "))
            .map(str::to_string)
            .collect::<Vec<String>>()
    };
    let spawned = lines(false);
    assert_eq!(spawned.len(), 1, "{spawned:?}");
    assert!(
        spawned[0]
            .contains("cannot start `/nonexistent/server`: No such file or directory (os error 2)"),
        "{spawned:?}"
    );
    assert_eq!(spawned, lines(true));
}

/// An environment too large for one message to the spawner (over 1 MiB here)
/// is not refused: toolspec forks that supervisor itself.
#[test]
fn a_server_environment_too_large_for_the_spawner_still_starts() {
    let mut cmd = boris("PATH_NOT_FOUND on missing file");
    for i in 0..10 {
        cmd.env(format!("TOOLSPEC_TEST_BULK_{i}"), "x".repeat(120 * 1024));
    }
    cmd.assert()
        .success()
        .stdout(predicate::str::is_match(r"boris: [1-9]\d* PASS, 0 FAIL, 0 ERROR").expect("regex"));
}

/// A spawner that dies mid-run (killed here, as a hostile server could) costs the
/// run nothing: toolspec forks the remaining supervisors itself. Boris's task
/// scenarios, two at a time, keep the run going for over a second after the kill,
/// so most of their servers are started after it.
#[test]
fn a_spawner_killed_mid_run_leaves_the_run_to_finish() {
    let run = std::process::Command::new(crate::support::exe())
        .current_dir(crate::support::repo())
        .args(["run", "--suite", "boris", "--filter", "glob", "--jobs", "2"])
        .env_remove("TOOLSPEC_NO_SPAWNER")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("toolspec starts");
    let toolspec = run.id();
    // The spawner is toolspec's first child: forked before anything else.
    let children = format!("/proc/{toolspec}/task/{toolspec}/children");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    let spawner = loop {
        let first = std::fs::read_to_string(&children)
            .ok()
            .and_then(|list| list.split_whitespace().next().map(str::to_string));
        if let Some(pid) = first.and_then(|p| p.parse::<i32>().ok()) {
            break pid;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "toolspec started no child"
        );
        std::thread::sleep(std::time::Duration::from_millis(5));
    };
    // SAFETY: a signal to a child of the toolspec this test started.
    assert_eq!(unsafe { libc::kill(spawner, libc::SIGKILL) }, 0);
    let output = run.wait_with_output().expect("toolspec ends");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(0), "{stdout}");
    let finished = regex::Regex::new(r"boris: [1-9]\d* PASS, 0 FAIL, 0 ERROR,").expect("regex");
    assert!(finished.is_match(&stdout), "{stdout}");
}

/// What a run prints, with what changes from run to run masked: times, fixture
/// roots and task ids.
fn printed_masked(output: &[u8]) -> String {
    let text = String::from_utf8_lossy(output);
    let times = regex::Regex::new(r"in \d+(\.\d+)?s").expect("regex");
    let roots = regex::Regex::new(r"/[^\s/]*/?toolspec-[A-Za-z0-9]+").expect("regex");
    let tasks = regex::Regex::new(r"task_id: [0-9a-f]+").expect("regex");
    let text = times.replace_all(&text, "in Xs");
    let text = roots.replace_all(&text, "ROOT");
    tasks.replace_all(&text, "task_id: X").into_owned()
}

#[test]
fn a_run_prints_in_the_suites_order_whatever_starts_first() {
    let run = |cache: &Path, jobs: Option<&str>| {
        let mut cmd = toolspec();
        cmd.env("TOOLSPEC_CACHE_DIR", cache).args([
            "run",
            "--specs",
            "tests/data/specs",
            "--suite",
            "wrong",
            "--suite",
            "features",
        ]);
        if let Some(jobs) = jobs {
            cmd.args(["--jobs", jobs]);
        }
        let output = cmd.output().expect("run");
        assert_eq!(output.status.code(), Some(1), "the wrong suite fails");
        printed_masked(&output.stdout)
    };
    // One worker, nothing known: the scenarios start in the run's order.
    let plain = tempfile::tempdir().expect("tempdir");
    let one_by_one = run(plain.path(), Some("1"));
    // The wrong suite's last scenarios were slow last time: they start first,
    // and on more workers than that.
    let slow_last = tempfile::tempdir().expect("tempdir");
    let ids: Vec<String> = String::from_utf8(
        toolspec()
            .args(["--specs", "tests/data/specs", "list", "--suite", "wrong"])
            .output()
            .expect("list")
            .stdout,
    )
    .expect("utf-8")
    .lines()
    .map(str::trim)
    .filter(|l| l.starts_with("wrong::"))
    .map(str::to_string)
    .collect();
    assert!(ids.len() > 10, "the wrong suite is listed: {ids:?}");
    let mut times = serde_json::Map::new();
    for (at, id) in ids.iter().enumerate() {
        let ms = if at + 4 >= ids.len() { 5000 } else { 10 };
        times.insert(id.clone(), serde_json::json!([ms, 1]));
    }
    let durations = serde_json::json!({ "version": 2, "targets": { "reference": times } });
    std::fs::write(
        slow_last.path().join("scenario-durations.json"),
        durations.to_string(),
    )
    .expect("write");
    let slow_first = run(slow_last.path(), None);
    assert_eq!(one_by_one, slow_first);
    // Each run keeps how long its scenarios took, for the next.
    let kept: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(plain.path().join("scenario-durations.json")).expect("kept"),
    )
    .expect("json");
    assert!(
        kept["targets"]["reference"][&ids[0]][0].is_u64(),
        "no duration kept for {}: {kept}",
        ids[0]
    );
}

/// `--id` runs exactly the scenarios named (what the pytest and node:test plugins
/// hand over), `list --json` lists the ids a plugin collects, and an id that names
/// no scenario is refused with where it came from, before anything runs.
#[test]
fn run_by_exact_ids_runs_only_those_and_refuses_an_unknown_one() {
    let listed = toolspec()
        .args(["list", "--json", "--suite", "boris"])
        .output()
        .expect("list --json");
    let listing: serde_json::Value = serde_json::from_slice(&listed.stdout).expect("JSON");
    let ids: Vec<&str> = listing["suites"][0]["scenarios"]
        .as_array()
        .expect("scenarios")
        .iter()
        .filter_map(|s| s["id"].as_str())
        .collect();
    assert!(ids.len() > 100, "boris lists {} ids", ids.len());
    // Two ids of different files: no one --filter substring picks exactly these.
    let picked = ["boris::bash-tool-error-codes::Empty command", ids[5]];
    let dir = tempfile::tempdir().expect("tempdir");
    let report = dir.path().join("report.json");
    toolspec()
        .args(["run", "--id", picked[0], "--id", picked[1], "--json"])
        .arg(&report)
        .assert()
        .success();
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&report).expect("report")).expect("JSON");
    let ran: Vec<&str> = report["scenarios"]
        .as_array()
        .expect("scenarios")
        .iter()
        .filter_map(|s| s["id"].as_str())
        .collect();
    assert_eq!(ran.len(), 2, "ran {ran:?}");
    assert!(picked.iter().all(|id| ran.contains(id)), "ran {ran:?}");

    let ids_file = dir.path().join("ids.txt");
    std::fs::write(
        &ids_file,
        format!("{}\nboris::no-such-file::x\n", picked[0]),
    )
    .expect("write");
    toolspec()
        .args(["run", "--ids-from"])
        .arg(&ids_file)
        .assert()
        .code(2)
        .stdout(predicate::str::is_empty())
        .stderr(predicate::str::contains(
            ":2: no scenario has the id `boris::no-such-file::x`",
        ));
}

/// `list --json --target FILE` lists the suites the target pins, as `run --target`
/// runs them, so a test-runner plugin collects what the binary will run; `--suite`
/// overrides the pins, as for `run`.
#[test]
fn list_json_follows_a_targets_pinned_suites_unless_suites_are_named() {
    let dir = tempfile::tempdir().expect("tempdir");
    let target = target_file(dir.path(), "", "suites: { boris: 1 }\n");
    let names = |args: &[&str]| -> Vec<String> {
        let out = toolspec()
            .args(["list", "--json", "--target"])
            .arg(&target)
            .args(args)
            .output()
            .expect("list --json");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let listing: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
        listing["suites"]
            .as_array()
            .expect("suites")
            .iter()
            .filter_map(|s| s["name"].as_str().map(str::to_string))
            .collect()
    };
    assert_eq!(names(&[]), ["boris"]);
    assert_eq!(names(&["--suite", "ikigai"]), ["ikigai"]);
}
