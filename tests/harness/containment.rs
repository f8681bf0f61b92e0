//! Nothing a scenario or a server under test does reaches outside the fixture root,
//! and nothing it starts outlives the run: fixtures are built without following
//! links, files the server left are read without trusting them, the root is quoted
//! for a shell, and every fixture and process is gone after an interrupt.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use toolspec::{load_suite, run_named, RunOptions, ScenarioReport, Target, Verdict};

use crate::support::exe;

const SUITE_YAML: &str = "suite: demo\ntitle: Demo\ndialect: bracket-code\nreference:\n  args: [--dialect, boris, --root, \"{root}\"]\nshell_commands: { bash: [command] }\n";

/// A suite `demo` in a temporary folder, as `specs/demo/` beside a `fixtures/`
/// folder, with `case.yaml` holding `scenarios`.
struct TempSuite {
    top: tempfile::TempDir,
}

impl TempSuite {
    fn new(scenarios: &str) -> TempSuite {
        let top = tempfile::tempdir().expect("tempdir");
        let dir = top.path().join("specs/demo");
        std::fs::create_dir_all(&dir).expect("mkdir specs");
        std::fs::create_dir_all(top.path().join("fixtures")).expect("mkdir fixtures");
        std::fs::write(dir.join("suite.yaml"), SUITE_YAML).expect("write suite");
        std::fs::write(
            dir.join("case.yaml"),
            format!("requirement: R\nscenarios:\n{scenarios}"),
        )
        .expect("write case");
        TempSuite { top }
    }

    /// `fixtures/<name>` (created), for a `given.tree`.
    fn tree(&self, name: &str) -> PathBuf {
        let path = self.top.path().join("fixtures").join(name);
        std::fs::create_dir_all(&path).expect("mkdir tree");
        path
    }

    /// Runs the scenario `name` against the reference server (or `target`).
    fn run(&self, name: &str, target: Option<Target>) -> ScenarioReport {
        let suite = load_suite(&self.top.path().join("specs/demo"))
            .unwrap_or_else(|e| panic!("the suite does not load: {e:?}"));
        let target = target.unwrap_or_else(|| Target::reference(exe(), &suite));
        run_named(&suite, name, &target, &RunOptions::default())
            .unwrap_or_else(|| panic!("no scenario {name}"))
    }
}

/// The names in `dir`, sorted.
fn listing(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .expect("read dir")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn a_fixture_file_below_a_link_from_the_tree_is_refused_not_written_outside() {
    let outside = tempfile::tempdir().expect("tempdir");
    std::fs::write(outside.path().join("victim.txt"), "keep\n").expect("write");
    let link_tree = |suite: &TempSuite| {
        let tree = suite.tree("escape");
        std::os::unix::fs::symlink(outside.path(), tree.join("out")).expect("link dir");
        std::os::unix::fs::symlink(outside.path().join("victim.txt"), tree.join("victim.txt"))
            .expect("link file");
    };
    // An entry below a link of the tree is refused when the suite loads (and, should
    // the tree change after that, by the fixture builder: see the unit test
    // `fixture::tests::never_writes_or_chmods_through_a_link_from_the_tree`).
    let below = TempSuite::new(
        "  - name: below\n    covers: r/s\n    given:\n      tree: escape\n      files: { out/planted.txt: \"x\\n\" }\n    when: { tool: view, args: { path: \"{root}/out/planted.txt\" } }\n    then: { is_error: false }\n",
    );
    link_tree(&below);
    let refused = load_suite(&below.top.path().join("specs/demo"))
        .expect_err("an entry below a link must not load");
    let message = format!("{refused:?}");
    assert!(
        message.contains("given.files `out/planted.txt` is below `out`, which is a symlink"),
        "{message}"
    );
    assert_eq!(listing(outside.path()), ["victim.txt"]);
    // A file laid over a link from the tree replaces the link, not its target.
    let over = TempSuite::new(
        "  - name: over\n    covers: r/s\n    given:\n      tree: escape\n      files: { victim.txt: \"replaced\\n\" }\n    when: { tool: view, args: { path: \"{root}/victim.txt\" } }\n    then: { contains: [replaced] }\n",
    );
    link_tree(&over);
    let report = over.run("over", None);
    assert!(matches!(report.verdict, Verdict::Pass), "{report}");
    assert_eq!(listing(outside.path()), ["victim.txt"]);
    assert_eq!(
        std::fs::read_to_string(outside.path().join("victim.txt")).expect("read"),
        "keep\n"
    );
}

/// `toolspec run` of the `demo` suite in `suite` against `server`, as a user runs
/// it, killed if it has not finished within `limit`: (exit code, stdout).
fn run_cli(suite: &TempSuite, server: &str, limit: Duration) -> (Option<i32>, String) {
    run_cli_with(suite, server, limit, &[])
}

/// [`run_cli`] with `more` arguments.
fn run_cli_with(
    suite: &TempSuite,
    server: &str,
    limit: Duration,
    more: &[&str],
) -> (Option<i32>, String) {
    let mut child = std::process::Command::new(exe())
        .arg("--specs")
        .arg(suite.top.path().join("specs"))
        .args([
            "run",
            "--suite",
            "demo",
            "--color",
            "never",
            "--timeout-ms",
            "1000",
        ])
        .args(["--server", server])
        .args(more)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("start toolspec");
    let started = Instant::now();
    while child.try_wait().expect("wait").is_none() {
        if started.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            panic!("toolspec against `{server}` was still running after {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let output = child.wait_with_output().expect("output");
    (
        output.status.code(),
        String::from_utf8_lossy(&output.stdout).into_owned(),
    )
}

/// `bash tests/servers/hostile.sh MODE {root} [outside]`.
fn hostile(mode: &str, outside: &str) -> String {
    format!(
        "bash {} {mode} {{root}} {outside}",
        crate::support::repo()
            .join("tests/servers/hostile.sh")
            .display()
    )
}

#[test]
fn files_the_server_left_are_named_not_followed_or_read() {
    let outside = tempfile::tempdir().expect("tempdir");
    let secret = outside.path().join("secret.txt");
    std::fs::write(&secret, "SECRET-CANARY\n").expect("write");
    let suite = TempSuite::new(
        "  - name: leaves\n    covers: r/s\n    when: { tool: view, args: { path: \"{root}/a\" } }\n    then: { files: { out.txt: \"anything\\n\" } }\n",
    );
    let cases = [
        ("leave-fifo", "is a FIFO (named pipe), not a regular file"),
        (
            "leave-zero",
            "is a symlink to /dev/zero, not a regular file",
        ),
        ("leave-outside", "is a symlink to "),
    ];
    for (mode, said) in cases {
        let server = hostile(mode, &secret.to_string_lossy());
        let (code, stdout) = run_cli(&suite, &server, Duration::from_secs(30));
        assert_eq!(code, Some(1), "{mode}: {stdout}");
        assert!(
            stdout.contains("FAIL demo::case::leaves"),
            "{mode}: {stdout}"
        );
        assert!(
            stdout.contains(&format!(
                "expected out.txt to be a file to check, but it {said}"
            )),
            "{mode}: {stdout}"
        );
        assert!(!stdout.contains("SECRET-CANARY"), "{mode}: {stdout}");
    }
}

#[test]
fn an_unquoted_root_in_a_shell_command_is_refused_at_its_scenario() {
    let top = TempSuite::new(
        "  - name: fine\n    covers: r/s\n    when: { tool: bash, args: { command: \"ls {root:sh}\" } }\n    then: { is_error: false }\n\
         \x20 - name: bare\n    covers: r/s\n    given:\n      calls:\n        - { tool: bash, args: { command: \"rm '{root}/x'\" } }\n    when: { tool: view, args: { path: \"{root}/x\" } }\n    then: { is_error: true }\n",
    );
    let errors = load_suite(&top.top.path().join("specs/demo")).expect_err("refused");
    assert_eq!(errors.len(), 1, "{errors:?}");
    let e = errors[0].to_string();
    assert!(e.contains("case.yaml:7:"), "{e}");
    assert!(
        e.contains("scenario `bare`: given.calls `bash`: argument `command` is run by a shell, so write `{root:sh}`"),
        "{e}"
    );
}

#[test]
fn a_root_with_quotes_and_command_substitution_stays_one_word_in_shell_commands() {
    // The boris IO_ERROR scenarios set up with `rm -f {root:sh}/target.txt && mkdir
    // ...`. Under this TMPDIR an unquoted root breaks the command (false FAILs) and
    // runs `touch "$CANARY"`.
    let top = tempfile::tempdir().expect("tempdir");
    let tmpdir = top.path().join("it's $(touch \"$CANARY\")");
    std::fs::create_dir(&tmpdir).expect("mkdir");
    let canary = top.path().join("canary");
    let output = crate::support::toolspec()
        .args([
            "run", "--suite", "boris", "--filter", "IO_ERROR", "--color", "never",
        ])
        .env("TMPDIR", &tmpdir)
        .env("CANARY", &canary)
        .output()
        .expect("toolspec runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(!canary.exists(), "the root ran a command:\n{stdout}");
    assert_eq!(output.status.code(), Some(0), "{stdout}");
    assert!(stdout.contains(" 0 FAIL, 0 ERROR, 0 SKIP"), "{stdout}");
    assert_eq!(
        listing(&tmpdir),
        Vec::<String>::new(),
        "fixtures left behind"
    );
}

/// Starts `toolspec run --suite boris` (against `server`, or the reference) under
/// the TMPDIR `tmpdir`, sends it `signal` after `delay`, and returns its exit code.
fn interrupt_a_run(
    tmpdir: &Path,
    server: Option<&str>,
    signal: i32,
    delay: Duration,
) -> Option<i32> {
    let mut cmd = std::process::Command::new(exe());
    cmd.current_dir(crate::support::repo())
        .args(["run", "--suite", "boris", "--timeout-ms", "3000"])
        .env("TMPDIR", tmpdir)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null());
    if let Some(server) = server {
        cmd.args(["--server", server]);
    }
    let child = cmd.spawn().expect("start toolspec");
    std::thread::sleep(delay);
    // SAFETY: sending a signal to our own child.
    unsafe {
        libc::kill(child.id() as i32, signal);
    }
    let output = child.wait_with_output().expect("wait");
    output.status.code()
}

#[test]
fn an_interrupted_run_leaves_no_fixture_behind() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let hang = hostile("hang", "");
    // While the suite loads, as its first scenarios start, and in the middle of the
    // run; and against a server that never answers, mid-call.
    let trials: [(Option<&str>, i32, u64); 5] = [
        (None, libc::SIGINT, 120),
        (None, libc::SIGTERM, 250),
        (None, libc::SIGINT, 400),
        (Some(hang.as_str()), libc::SIGINT, 500),
        (Some(hang.as_str()), libc::SIGTERM, 650),
    ];
    for (i, (server, signal, after_ms)) in trials.into_iter().enumerate() {
        let dir = tmp.path().join(format!("trial-{i}"));
        std::fs::create_dir(&dir).expect("mkdir");
        let code = interrupt_a_run(&dir, server, signal, Duration::from_millis(after_ms));
        // A run that finished before the signal is fine too; one that was cut short
        // must say so with 130.
        assert!(
            matches!(code, Some(130 | 0 | 1)),
            "trial {i}: exit {code:?}"
        );
        assert_eq!(
            listing(&dir),
            Vec::<String>::new(),
            "trial {i} (exit {code:?}) left fixtures"
        );
    }
}

/// A server whose call leaves `sleep SECONDS` behind in a new session with an empty
/// environment (`setsid env -i`): no process group, no marker leads to it.
fn daemon_server(seconds: &str) -> String {
    format!(
        "bash {} daemon {seconds}",
        crate::support::repo()
            .join("tests/servers/hostile.sh")
            .display()
    )
}

const ANSWERED: &str = "  - name: answered\n    covers: r/s\n    when: { tool: view, args: { path: \"{root}/a\" } }\n    then: { contains: [done] }\n";

#[test]
fn a_detached_daemon_dies_with_its_scenario_under_the_cli() {
    let suite = TempSuite::new(ANSWERED);
    let (code, stdout) = run_cli(&suite, &daemon_server("617"), Duration::from_secs(30));
    assert_eq!(code, Some(0), "{stdout}");
    assert_eq!(
        crate::support::running(&["sleep", "617"]),
        Vec::<String>::new()
    );
}

#[test]
fn a_detached_daemon_dies_with_its_scenario_in_a_test_binary() {
    // As under `cargo test`: the scenario runs inside this process, no CLI around.
    let suite = TempSuite::new(ANSWERED);
    let target = Target::from_command_line(&daemon_server("619")).expect("command line");
    let report = suite.run("answered", Some(target));
    assert!(matches!(report.verdict, Verdict::Pass), "{report}");
    assert_eq!(
        crate::support::running(&["sleep", "619"]),
        Vec::<String>::new()
    );
}

#[test]
fn scenarios_running_at_once_never_end_each_others_processes() {
    // One scenario waits two seconds for its answer while others, beside it, start
    // daemons and end them with everything they started.
    let suite = TempSuite::new(ANSWERED);
    let slow = std::thread::spawn({
        let target = Target::from_command_line(&format!(
            "bash {} slow",
            crate::support::repo()
                .join("tests/servers/hostile.sh")
                .display()
        ))
        .expect("command line");
        let suite = TempSuite::new(ANSWERED);
        move || suite.run("answered", Some(target))
    });
    let daemon = Target::from_command_line(&daemon_server("621")).expect("command line");
    for _ in 0..4 {
        let report = suite.run("answered", Some(daemon.clone()));
        assert!(matches!(report.verdict, Verdict::Pass), "{report}");
    }
    let report = slow.join().expect("the slow scenario");
    assert!(matches!(report.verdict, Verdict::Pass), "{report}");
    assert_eq!(
        crate::support::running(&["sleep", "621"]),
        Vec::<String>::new()
    );
}

#[test]
fn under_the_default_isolation_a_write_outside_the_root_fails_in_the_server() {
    let canary = tempfile::tempdir().expect("tempdir");
    let suite = TempSuite::new(
        "  - name: writes\n    covers: r/s\n    when: { tool: view, args: { path: \"{root}/a\" } }\n    then: { contains: [\"outside: wrote\"] }\n",
    );
    let server = format!(
        "bash {} write-outside {}",
        crate::support::repo()
            .join("tests/servers/hostile.sh")
            .display(),
        canary.path().display()
    );
    // The server writes its TMPDIR too: give it one of the test's own.
    let tmpdir = tempfile::tempdir().expect("tempdir");
    let run = |isolated: bool| {
        let mut cmd = std::process::Command::new(exe());
        cmd.env("TMPDIR", tmpdir.path())
            .arg("--specs")
            .arg(suite.top.path().join("specs"))
            .args([
                "run",
                "--suite",
                "demo",
                "--color",
                "never",
                "--timeout-ms",
                "1000",
            ])
            .args(["--server", &server]);
        if !isolated {
            cmd.arg("--no-isolation");
        }
        let output = cmd.output().expect("toolspec runs");
        (
            output.status.code(),
            String::from_utf8_lossy(&output.stdout).into_owned(),
        )
    };

    // Without isolation the write lands: the check below can fail.
    let (code, stdout) = run(false);
    assert_eq!(code, Some(0), "{stdout}");
    assert!(
        stdout.contains("(isolation: off, --no-isolation)"),
        "{stdout}"
    );
    assert_eq!(listing(canary.path()), ["written"]);
    std::fs::remove_file(canary.path().join("written")).expect("clean the canary");

    // Under it the server's own write fails, which the scenario sees; its TMPDIR (a
    // scratch folder of its own) stays writable, and `/dev/shm` does not, where
    // this test binary keeps its temporary folders.
    let (code, stdout) = run(true);
    assert_eq!(code, Some(1), "{stdout}");
    assert!(stdout.contains("outside: refused"), "{stdout}");
    assert!(stdout.contains("scratch: wrote"), "{stdout}");
    assert!(stdout.contains("shm: refused"), "{stdout}");
    assert_eq!(listing(canary.path()), Vec::<String>::new());
    // Only the run without isolation left its file: the isolated server's scratch
    // folder went with its fixture.
    assert_eq!(listing(tmpdir.path()), ["scratch"]);
}

/// `--sandbox` and `sandbox: true` once turned on what is now the default: both
/// are still accepted, say so, and change nothing.
#[test]
fn the_old_sandbox_switches_are_accepted_and_do_nothing() {
    let dir = tempfile::tempdir().expect("tempdir");
    let target = crate::support::target_file(dir.path(), "", "sandbox: true\n");
    let output = crate::support::toolspec()
        .args([
            "run",
            "--sandbox",
            "--suite",
            "boris",
            "--filter",
            "success-view",
        ])
        .args(["--color", "never", "--target"])
        .arg(&target)
        .output()
        .expect("toolspec runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stdout}{stderr}");
    assert!(stdout.contains(" 0 FAIL, 0 ERROR,"), "{stdout}");
    assert!(
        stderr.contains("note: --sandbox does nothing now"),
        "{stderr}"
    );
    assert!(
        stderr.contains("`sandbox: true` does nothing now"),
        "{stderr}"
    );
}

/// A server whose call leaves `sleep SECONDS` behind by a double fork into a new
/// session, then kills its own supervisor (`kill -9 $PPID`), which frees the sleep
/// and the server itself from it, and answers.
fn supervisor_killer(seconds: &str) -> String {
    format!(
        "bash {} kill-supervisor {seconds}",
        crate::support::repo()
            .join("tests/servers/hostile.sh")
            .display()
    )
}

/// Isolated, the server runs in a pid namespace of its own under an init of its
/// own: its parent is that init, which the kernel shields from the namespace's own
/// signals, and its supervisor is out of its sight. The kill fails, the scenario
/// passes, and what it started ends with its namespace.
#[test]
fn an_isolated_server_cannot_kill_its_supervisor_and_leaves_nothing_behind() {
    let suite = TempSuite::new(ANSWERED);
    let (code, stdout) = run_cli(&suite, &supervisor_killer("629"), Duration::from_secs(30));
    assert_eq!(code, Some(0), "{stdout}");
    assert!(stdout.contains("1 PASS, 0 FAIL, 0 ERROR"), "{stdout}");
    assert_eq!(
        crate::support::running(&["sleep", "629"]),
        Vec::<String>::new()
    );
}

/// The supervisor killers below run without isolation: only there can a server
/// reach its supervisor, and the last resorts behind it are still needed for a
/// target that turns isolation off.
fn not_isolated(line: &str) -> Target {
    let mut target = Target::from_command_line(line).expect("command line");
    target.isolation.enabled = false;
    target
}

#[test]
fn a_server_that_kills_its_supervisor_is_an_error_and_leaves_nothing_under_the_cli() {
    let suite = TempSuite::new(ANSWERED);
    let (code, stdout) = run_cli_with(
        &suite,
        &supervisor_killer("623"),
        Duration::from_secs(30),
        &["--no-isolation"],
    );
    assert_eq!(code, Some(1), "{stdout}");
    assert!(stdout.contains("ERROR demo::case::answered"), "{stdout}");
    assert!(
        stdout.contains("containment broken: the server's supervisor ended (signal: 9"),
        "{stdout}"
    );
    assert!(
        stdout.contains("toolspec adopted and ended 2 of them"),
        "{stdout}"
    );
    assert_eq!(
        crate::support::running(&["sleep", "623"]),
        Vec::<String>::new()
    );
}

#[test]
fn a_server_that_kills_its_supervisor_is_an_error_where_nothing_adopts_what_escaped() {
    // This test binary runs other tests' programs beside it, so it does not adopt
    // (it would take their children for escaped ones): the scenario still says that
    // its containment broke, and this test ends the leftover itself.
    let suite = TempSuite::new(ANSWERED);
    let target = not_isolated(&supervisor_killer("627"));
    let report = suite.run("answered", Some(target));
    let left = crate::support::running(&["sleep", "627"]);
    for pid in &left {
        let pid: i32 = pid.parse().expect("pid");
        // SAFETY: only sends a signal, to the leftover this test made.
        unsafe {
            libc::kill(pid, libc::SIGKILL);
        }
    }
    match &report.verdict {
        Verdict::Error { what, .. } => {
            assert!(what.contains("the server's supervisor ended"), "{report}");
            assert!(
                what.contains("this process does not adopt them"),
                "{report}"
            );
        }
        _ => panic!("not an ERROR: {report}"),
    }
    assert_eq!(left.len(), 1, "the sleep should have escaped: {left:?}");
}

#[test]
fn a_server_that_kills_its_supervisor_leaves_nothing_in_a_test_process_that_adopts() {
    // A test binary whose main is toolspec's runner adopts what escapes; so does
    // this binary when it runs only the test below, in a process of its own.
    crate::support::run_in_own_process(&[
        "containment::own_process_escaped_processes_are_adopted_and_ended",
    ]);
    assert_eq!(
        crate::support::running(&["sleep", "625"]),
        Vec::<String>::new()
    );
}

#[test]
#[ignore = "run in a process of its own by a_server_that_kills_its_supervisor_leaves_nothing_in_a_test_process_that_adopts"]
fn own_process_escaped_processes_are_adopted_and_ended() {
    toolspec::adopt_escaped_processes().expect("become a subreaper");
    // Beside the supervisor killers, a slow scenario whose supervisor and server
    // must survive every sweep of what escaped the others.
    let slow = std::thread::spawn({
        let target = Target::from_command_line(&format!(
            "bash {} slow",
            crate::support::repo()
                .join("tests/servers/hostile.sh")
                .display()
        ))
        .expect("command line");
        let suite = TempSuite::new(ANSWERED);
        move || suite.run("answered", Some(target))
    });
    let suite = TempSuite::new(ANSWERED);
    let killer = not_isolated(&supervisor_killer("625"));
    for _ in 0..3 {
        let report = suite.run("answered", Some(killer.clone()));
        match &report.verdict {
            Verdict::Error { what, .. } => assert!(
                what.contains("toolspec adopted and ended 2 of them"),
                "{report}"
            ),
            _ => panic!("not an ERROR: {report}"),
        }
        assert_eq!(
            crate::support::running(&["sleep", "625"]),
            Vec::<String>::new()
        );
    }
    let report = slow.join().expect("the slow scenario");
    assert!(matches!(report.verdict, Verdict::Pass), "{report}");
}

/// Four scenarios against the reference server started after a 1 s sleep,
/// whose starts `tests/servers/slow_start.sh --log` writes to `starts.log`,
/// with toolspec's temporary folder `tmp/`, both in the folder returned.
fn slow_starting_run(suite: &TempSuite) -> (tempfile::TempDir, std::process::Command) {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::create_dir(dir.path().join("tmp")).expect("mkdir tmp");
    let server = format!(
        "sh {} --log {} 1 --dialect boris --root {{root}}",
        crate::support::repo()
            .join("tests/servers/slow_start.sh")
            .display(),
        dir.path().join("starts.log").display()
    );
    let bin_dir = exe().parent().expect("the binary's folder");
    let path = std::env::var_os("PATH").unwrap_or_default();
    let path = std::env::join_paths(
        std::iter::once(bin_dir.to_path_buf()).chain(std::env::split_paths(&path)),
    )
    .expect("PATH");
    let mut cmd = std::process::Command::new(exe());
    cmd.arg("--specs")
        .arg(suite.top.path().join("specs"))
        .args(["run", "--suite", "demo", "--color", "never", "--jobs", "1"])
        // Isolated, the server could not write its log outside its root.
        .args(["--no-isolation", "--server", &server])
        .env("PATH", path)
        .env("TMPDIR", dir.path().join("tmp"))
        .env("TOOLSPEC_CACHE_DIR", crate::support::CACHE_DIR);
    (dir, cmd)
}

/// The start times `slow_starting_run`'s server logged, in order.
fn starts(dir: &Path) -> Vec<u128> {
    let log = std::fs::read_to_string(dir.join("starts.log")).unwrap_or_default();
    log.lines()
        .filter_map(|l| l.strip_prefix("begin ")?.parse().ok())
        .collect()
}

/// The processes still running on a root in `slow_starting_run`'s temporary
/// folder.
fn leftovers(dir: &Path) -> Vec<String> {
    let tmp = dir.join("tmp").to_string_lossy().into_owned();
    crate::support::living(|process| {
        std::fs::read(process.join("cmdline"))
            .is_ok_and(|c| String::from_utf8_lossy(&c).contains(&tmp))
    })
}

const FOUR_VIEWS: &str = "  - name: one\n    covers: r/s\n    given: { files: { a.txt: \"1\\n\" } }\n    when: { tool: view, args: { path: \"{root}/a.txt\" } }\n    then: { contains: [\"1\"] }\n  - name: two\n    covers: r/s\n    given: { files: { a.txt: \"2\\n\" } }\n    when: { tool: view, args: { path: \"{root}/a.txt\" } }\n    then: { contains: [\"2\"] }\n  - name: three\n    covers: r/s\n    given: { files: { a.txt: \"3\\n\" } }\n    when: { tool: view, args: { path: \"{root}/a.txt\" } }\n    then: { contains: [\"3\"] }\n  - name: four\n    covers: r/s\n    given: { files: { a.txt: \"4\\n\" } }\n    when: { tool: view, args: { path: \"{root}/a.txt\" } }\n    then: { contains: [\"4\"] }\n";

#[test]
fn a_slow_server_is_started_ahead_on_one_job_and_nothing_is_left() {
    let suite = TempSuite::new(FOUR_VIEWS);
    let (dir, mut cmd) = slow_starting_run(&suite);
    let output = cmd.output().expect("run toolspec");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(0), "{stdout}");
    assert!(stdout.contains("4 PASS"), "{stdout}");
    // Servers starting at once may log out of order.
    let mut starts = starts(dir.path());
    starts.sort_unstable();
    assert_eq!(
        starts.len(),
        5,
        "the tool list's start, then one a scenario"
    );
    // One job, run cold, starts each server after the last scenario (or the
    // tool list) ended, so at least the 1 s sleep after the one before; a
    // spare starts while the scenario before it is still starting or running.
    let overlapping = starts.windows(2).filter(|w| w[1] - w[0] < 900_000_000);
    assert!(overlapping.count() >= 1, "no start overlapped: {starts:?}");
    assert_eq!(leftovers(dir.path()), Vec::<String>::new());
    assert_eq!(listing(&dir.path().join("tmp")), Vec::<String>::new());
}

#[test]
fn an_interrupt_while_spares_start_leaves_nothing() {
    let suite = TempSuite::new(FOUR_VIEWS);
    let (dir, mut cmd) = slow_starting_run(&suite);
    let child = cmd
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("start toolspec");
    // Until the first scenario's server and its spare are both starting.
    let began = Instant::now();
    while starts(dir.path()).len() < 2 && began.elapsed() < Duration::from_secs(20) {
        std::thread::sleep(Duration::from_millis(20));
    }
    // SAFETY: sending a signal to our own child.
    unsafe {
        libc::kill(child.id() as i32, libc::SIGINT);
    }
    let output = child.wait_with_output().expect("wait");
    assert_eq!(output.status.code(), Some(130));
    assert!(starts(dir.path()).len() >= 2);
    assert_eq!(leftovers(dir.path()), Vec::<String>::new());
    assert_eq!(listing(&dir.path().join("tmp")), Vec::<String>::new());
}
