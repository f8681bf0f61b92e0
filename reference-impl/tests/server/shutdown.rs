//! Nothing the server started outlives it, on any way out: stdin closing,
//! SIGTERM, SIGINT or SIGHUP; not a background task, and not a process that
//! left its command's process group with `setsid`.

use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::json;

use crate::session::Session;

/// How long the server may take to stop, and a killed process to die.
const GRACE: Duration = Duration::from_secs(10);

/// A command that leaves behind a process in a session of its own (its pid
/// in `<name>.pid`), with its output away from the command's pipes, and
/// waits until that process has left its group.
fn escaping(name: &str) -> String {
    format!(
        "setsid bash -c 'echo $$ > {name}.tmp; mv {name}.tmp {name}.pid; exec sleep 300' \
         > /dev/null 2>&1 < /dev/null & while [ ! -e {name}.pid ]; do sleep 0.01; done"
    )
}

/// The pid written to `<root>/<name>.pid`, once it is there.
fn pid_in(root: &Path, name: &str) -> i32 {
    let path = root.join(format!("{name}.pid"));
    let deadline = Instant::now() + GRACE;
    loop {
        if let Some(pid) = std::fs::read_to_string(&path)
            .ok()
            .and_then(|text| text.trim().parse().ok())
        {
            return pid;
        }
        assert!(
            Instant::now() < deadline,
            "{} never appeared",
            path.display()
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Running or sleeping (a zombie has died; it waits only to be reaped).
pub(crate) fn alive(pid: i32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|stat| Some(stat.rsplit_once(')')?.1.trim_start().to_string()))
        .is_some_and(|rest| !rest.starts_with('Z') && !rest.starts_with('X'))
}

/// Waits for each of `pids` to die; names those still alive after [`GRACE`],
/// and kills them so the test leaves nothing behind either.
fn survivors(pids: &[(&str, i32)]) -> Vec<String> {
    let deadline = Instant::now() + GRACE;
    while Instant::now() < deadline && pids.iter().any(|(_, pid)| alive(*pid)) {
        std::thread::sleep(Duration::from_millis(50));
    }
    pids.iter()
        .filter(|(_, pid)| alive(*pid))
        .map(|(what, pid)| {
            // SAFETY: kill has no memory-safety preconditions.
            unsafe {
                libc::kill(*pid, libc::SIGKILL);
            }
            format!("{what} (pid {pid})")
        })
        .collect()
}

#[test]
fn stop_signals_kill_boris_background_tasks_and_what_they_set_loose() {
    let mut left = Vec::new();
    for (signal, name) in [
        (libc::SIGTERM, "SIGTERM"),
        (libc::SIGINT, "SIGINT"),
        (libc::SIGHUP, "SIGHUP"),
    ] {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = std::fs::canonicalize(dir.path()).expect("canonical");
        let mut session = Session::start("boris", &root, &[]);
        let started = session.call_text(
            "bash",
            json!({"command": format!("{}; echo $$ > task.pid; exec sleep 300", escaping("loose")),
                   "run_in_background": true}),
        );
        assert!(started.contains("task_id"), "{started}");
        let pids = [
            ("the background task", pid_in(&root, "task")),
            ("the process it set loose", pid_in(&root, "loose")),
        ];
        let server = i32::try_from(session.pid()).expect("pid");
        // SAFETY: kill has no memory-safety preconditions.
        assert_eq!(unsafe { libc::kill(server, signal) }, 0);
        let status = session.wait(GRACE);
        assert!(status.is_some(), "the server ignored {name}");
        left.extend(
            survivors(&pids)
                .into_iter()
                .map(|what| format!("{what} outlived {name}")),
        );
    }
    assert!(left.is_empty(), "{}", left.join("\n"));
}

#[test]
fn a_command_that_calls_setsid_does_not_outlive_the_server_in_any_dialect() {
    let mut left = Vec::new();
    for (dialect, tool) in [
        ("boris", "bash"),
        ("gemini-cli", "run_shell_command"),
        ("agent-tools", "bash"),
        ("ikigai", "bash"),
    ] {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = std::fs::canonicalize(dir.path()).expect("canonical");
        let mut session = Session::start(dialect, &root, &[]);
        session.call_text(tool, json!({"command": escaping("loose")}));
        let pid = pid_in(&root, "loose");
        assert!(
            alive(pid),
            "{dialect}: the escaped process died before the end"
        );
        let status = session.close(GRACE);
        assert!(
            status.success(),
            "{dialect}: the server exited with {status}"
        );
        left.extend(
            survivors(&[("the process", pid)])
                .into_iter()
                .map(|what| format!("{dialect}: {what} outlived the server")),
        );
    }
    assert!(left.is_empty(), "{}", left.join("\n"));
}

/// The server's zombie children: what it adopted as subreaper and did not
/// reap, or shells tokio did not wait for.
fn zombie_children(server: i32) -> Vec<i32> {
    let Ok(listing) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    listing
        .filter_map(Result::ok)
        .filter_map(|entry| entry.file_name().to_str()?.parse::<i32>().ok())
        .filter(|pid| {
            std::fs::read_to_string(format!("/proc/{pid}/stat"))
                .ok()
                .and_then(|stat| {
                    let mut fields = stat.rsplit_once(')')?.1.split_whitespace();
                    let state = fields.next()?;
                    let parent: i32 = fields.next()?.parse().ok()?;
                    Some(state == "Z" && parent == server)
                })
                .unwrap_or(false)
        })
        .collect()
}

/// Processes that left their group and ended are reaped while the server
/// runs (it adopts them as subreaper), and the exit codes of the commands
/// themselves still come through: adopting takes nothing from tokio.
#[test]
fn adopted_processes_are_reaped_and_exit_codes_still_reported() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = std::fs::canonicalize(dir.path()).expect("canonical");
    let mut session = Session::start("boris", &root, &[]);
    let server = i32::try_from(session.pid()).expect("pid");
    for round in 0..5 {
        let text = session.call_text(
            "bash",
            json!({"command": format!(
                "setsid bash -c ': > left-{round}; sleep 0.2; : > gone-{round}' > /dev/null 2>&1 < /dev/null & \
                 while [ ! -e left-{round} ]; do sleep 0.01; done; exit {round}")}),
        );
        assert_eq!(text, format!("exit_code: {round}\n"), "round {round}");
    }
    let deadline = Instant::now() + GRACE;
    while (0..5).any(|round| !root.join(format!("gone-{round}")).exists()) {
        assert!(
            Instant::now() < deadline,
            "the loose processes never finished"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    std::thread::sleep(Duration::from_millis(100));
    let text = session.call_text("bash", json!({"command": "exit 7"}));
    assert_eq!(text, "exit_code: 7\n");
    let zombies = zombie_children(server);
    assert!(
        zombies.is_empty(),
        "unreaped children of the server: {zombies:?}"
    );
    assert!(session.close(GRACE).success());
}
