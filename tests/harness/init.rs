//! `toolspec init`: a target file proposed from a server's tools/list, the first run
//! and its baseline, and the files it refuses to overwrite. The server is the
//! reference server served under other names by `tests/servers/renamed.py`.

use crate::support::{exe, python, repo, toolspec};

/// The ikigai reference server with its tools and `path` renamed, and `glob` hidden.
/// The suite starts this server for every scenario, twice, so Python's start is
/// most of what these tests cost: `-S` (no `site`) and the interpreter itself
/// rather than a version manager's `python3` shim (a shell script that costs ten
/// times the interpreter's own start) make it about 10 ms.
fn renamed_ikigai() -> String {
    format!(
        "{} -S {} file_read=read_file file_read.path=file_path file_write=write_file file_write.path=file_path bash=run_shell_command grep=search_text -glob -- {} reference-server --dialect ikigai --root {{root}}",
        python(),
        repo().join("tests/servers/renamed.py").display(),
        exe().display()
    )
}

fn stdout_of(output: &std::process::Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

#[test]
#[ignore = "deep tier: .ci/run runs it, as does cargo test -- --ignored"]
fn init_maps_renamed_tools_leaves_the_unknown_commented_and_its_target_gates_green() {
    let dir = tempfile::tempdir().expect("tempdir");
    let target = dir.path().join("renamed.yaml");
    let server = renamed_ikigai();

    // A bare --server: none of the suite's tools is listed under its own name (one
    // requirement's scenarios show it; each starts a Python proxy).
    let bare = toolspec()
        .args(["run", "--suite", "ikigai", "--filter", "result-format"])
        .args(["--server", &server])
        .output()
        .expect("runs");
    let bare_out = stdout_of(&bare);
    assert_eq!(bare.status.code(), Some(1), "{bare_out}");
    assert!(bare_out.contains(" 0 PASS"), "{bare_out}");
    assert!(bare_out.contains("no scenario was judged"), "{bare_out}");

    let init = toolspec()
        .args(["init", "--server", &server, "--out"])
        .arg(&target)
        .output()
        .expect("runs");
    let init_out = stdout_of(&init);
    assert_eq!(init.status.code(), Some(0), "{init_out}");
    assert!(
        init_out.contains("4 of suite ikigai's 5 tools matched"),
        "{init_out}"
    );
    assert!(init_out.contains("toolspec run --target"), "{init_out}");
    let text = std::fs::read_to_string(&target).expect("target written");
    for line in [
        "suites: { \"ikigai\": 3 }",
        "  \"file_read\": \"read_file\"   # confidence",
        "  \"file_write\": \"write_file\"   # confidence",
        "  \"bash\": \"run_shell_command\"   # confidence",
        "  \"grep\": \"search_text\"   # confidence",
        "  # \"glob\": ?   # no tool of the server matched",
        "    \"path\": \"file_path\"   # synonyms",
        "baseline_file: \"renamed.known-failures.txt\"",
    ] {
        assert!(text.contains(line), "no `{line}` in:\n{text}");
    }
    assert!(dir.path().join("renamed.known-failures.txt").exists());

    let gate = toolspec()
        .args(["run", "--target"])
        .arg(&target)
        .output()
        .expect("runs");
    let gate_out = stdout_of(&gate);
    assert_eq!(gate.status.code(), Some(0), "{gate_out}");
    let judged = gate_out
        .lines()
        .find_map(|l| l.strip_prefix("total: "))
        .and_then(|l| l.split(" PASS").next())
        .and_then(|n| n.parse::<u32>().ok())
        .unwrap_or_else(|| panic!("no total line in {gate_out}"));
    assert!(judged >= 30, "only {judged} scenarios passed:\n{gate_out}");
    assert!(gate_out.contains(" 0 FAIL, 0 ERROR"), "{gate_out}");
    // No --suite: the suite the target pins, and only that one.
    let suites: Vec<&str> = gate_out
        .lines()
        .filter(|l| l.contains(" PASS, ") && !l.starts_with("total: "))
        .filter_map(|l| l.split(':').next())
        .collect();
    assert_eq!(suites, ["ikigai"], "{gate_out}");
}

#[test]
fn init_refuses_to_overwrite_a_target_or_baseline_without_force() {
    let dir = tempfile::tempdir().expect("tempdir");
    for existing in ["t.yaml", "t.known-failures.txt"] {
        let _ = std::fs::remove_file(dir.path().join("t.yaml"));
        let _ = std::fs::remove_file(dir.path().join("t.known-failures.txt"));
        std::fs::write(dir.path().join(existing), "keep me\n").expect("write");
        let refused = toolspec()
            .args([
                "init",
                "--suite",
                "ikigai",
                "--server",
                &renamed_ikigai(),
                "--out",
            ])
            .arg(dir.path().join("t.yaml"))
            .output()
            .expect("runs");
        let stderr = String::from_utf8_lossy(&refused.stderr);
        assert_eq!(refused.status.code(), Some(2), "{stderr}");
        assert!(stderr.contains("exists; --force overwrites it"), "{stderr}");
        assert!(stderr.contains(existing), "{stderr}");
        let kept = std::fs::read_to_string(dir.path().join(existing)).expect("read");
        assert_eq!(kept, "keep me\n");
    }
}

/// `init`'s proposal for real servers, pinned: each `tests/data/tools-list/NAME.json`
/// is a real server's recorded answer to initialize and tools/list (record.py there
/// says which package and version), replayed by `tests/servers/replay.py` over real
/// MCP, and the target file `init --no-run` proposes for it must equal
/// `tests/golden/init/NAME.yaml` (the repository's folder written `<repo>`, the
/// interpreter `python3`). After an intended change, re-bless and review the diff:
/// `TRYCMD=overwrite cargo test --test harness init::`.
#[test]
fn init_proposals_for_recorded_real_servers_match_their_golden_files() {
    let dir = tempfile::tempdir().expect("tempdir");
    let repo = repo();
    let bless = std::env::var_os("TRYCMD").is_some_and(|v| v == "overwrite");
    let mut differ = Vec::new();
    for name in [
        "claude-code",
        "desktop-commander",
        "server-filesystem",
        "filesystem-mcp",
    ] {
        let server = format!(
            "{} -S {} {}",
            python(),
            repo.join("tests/servers/replay.py").display(),
            repo.join(format!("tests/data/tools-list/{name}.json"))
                .display()
        );
        let target = dir.path().join(format!("{name}.yaml"));
        let init = toolspec()
            .args(["init", "--no-run", "--server", &server, "--out"])
            .arg(&target)
            .output()
            .expect("runs");
        assert_eq!(
            init.status.code(),
            Some(0),
            "{name}: {}{}",
            stdout_of(&init),
            String::from_utf8_lossy(&init.stderr)
        );
        let proposed = std::fs::read_to_string(&target)
            .expect("target written")
            .replace(python(), "python3")
            .replace(&repo.display().to_string(), "<repo>");
        let golden = repo.join(format!("tests/golden/init/{name}.yaml"));
        if bless {
            std::fs::write(&golden, &proposed).expect("bless");
            continue;
        }
        let expected = std::fs::read_to_string(&golden).unwrap_or_default();
        if proposed != expected {
            let diff = similar::TextDiff::from_lines(&expected, &proposed)
                .unified_diff()
                .header(&golden.display().to_string(), "proposed")
                .to_string();
            differ.push(diff);
        }
    }
    assert!(
        differ.is_empty(),
        "init's proposals differ from their golden files (TRYCMD=overwrite re-blesses):\n{}",
        differ.join("\n")
    );
}

/// The golden proposal for Claude Code's server holds the renames a person accepts,
/// and never points `task_output` at the tool that stops a task.
#[test]
fn the_claude_code_golden_maps_task_output_to_its_reader_not_to_task_stop() {
    let golden = std::fs::read_to_string(repo().join("tests/golden/init/claude-code.yaml"))
        .expect("golden file");
    for line in [
        // The version the proposal was made at is whatever the suite is now.
        "suites: { \"boris\": ",
        "  \"view\": \"Read\"",
        "  \"str_replace\": \"Edit\"",
        "  \"task_output\": \"TaskOutput\"",
    ] {
        assert!(golden.contains(line), "no `{line}` in:\n{golden}");
    }
    assert!(!golden.contains(": \"TaskStop\""), "{golden}");
}

/// `--no-isolation` reaches every server `init` starts: the one asked for its tools
/// and those of the first run, whose summary says so, as does the gate it proposes.
/// The server notes each start in a folder outside its root, which the default
/// isolation refuses.
#[test]
fn init_no_isolation_starts_the_server_and_the_first_run_without_isolation() {
    let dir = tempfile::tempdir().expect("tempdir");
    let canary = tempfile::tempdir().expect("tempdir");
    let server = format!(
        "bash -c 'echo started >> \"$0\"/started; exec \"$@\"' {} {} reference-server --dialect boris --root {{root}}",
        canary.path().display(),
        exe().display()
    );
    let init = |out: &str, extra: &[&str]| {
        toolspec()
            .args(["--specs", "tests/data/specs", "init", "--suite", "features"])
            .args(["--server", &server, "--out"])
            .arg(dir.path().join(out))
            .args(extra)
            .output()
            .expect("runs")
    };

    // Isolated, the server's note is refused (it starts all the same).
    let closed = init("closed.yaml", &["--no-run"]);
    let closed_out = stdout_of(&closed);
    assert_eq!(closed.status.code(), Some(0), "{closed_out}");
    assert!(!closed_out.contains("--no-isolation"), "{closed_out}");
    assert!(!canary.path().join("started").exists());

    let open = init("open.yaml", &["--no-isolation"]);
    let open_out = stdout_of(&open);
    assert_eq!(open.status.code(), Some(0), "{open_out}");
    assert!(
        open_out.contains("(isolation: off, --no-isolation)"),
        "{open_out}"
    );
    let gate = format!(
        "toolspec run --target {} --no-isolation",
        dir.path().join("open.yaml").display()
    );
    assert!(open_out.contains(&gate), "{open_out}");
    let started = std::fs::read_to_string(canary.path().join("started")).expect("noted");
    // The server asked for its tools, and the first run's servers after it.
    assert!(started.lines().count() > 1, "{started}");
}
