//! End-to-end: the real binary over streamable HTTP, driven by rmcp's client,
//! discovered through the `listening on` line a harness reads from stderr.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use rmcp::model::CallToolRequestParams;
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::ServiceExt;
use serde_json::{json, Value};

use crate::util;

struct Server {
    child: Child,
    /// Held open so the server never sees end of file by accident.
    stdin: Option<ChildStdin>,
    url: String,
}

/// Starts the binary with `--transport http --port 0` plus `extra` and reads
/// the announced URL from the first stderr line; the rest of stderr is passed
/// through so failures stay visible.
fn start(root: &Path, extra: &[&str]) -> Server {
    let mut child = Command::new(util::SERVER)
        .args(["--transport", "http", "--port", "0", "--dialect", "boris"])
        .arg("--root")
        .arg(root)
        .args(extra)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn server");
    let stdin = child.stdin.take();
    let mut stderr = BufReader::new(child.stderr.take().expect("stderr"));
    let mut line = String::new();
    stderr.read_line(&mut line).expect("read stderr");
    std::thread::spawn(move || {
        for line in stderr.lines().map_while(Result::ok) {
            eprintln!("server: {line}");
        }
    });
    let url = line
        .trim_end()
        .strip_prefix("listening on ")
        .unwrap_or_else(|| panic!("unexpected first stderr line {line:?}"))
        .to_string();
    let port: u16 = url
        .strip_prefix("http://127.0.0.1:")
        .and_then(|rest| rest.strip_suffix("/mcp"))
        .and_then(|port| port.parse().ok())
        .unwrap_or_else(|| panic!("unexpected URL {url:?}"));
    assert_ne!(port, 0);
    Server { child, stdin, url }
}

fn wait_exit(child: &mut Child, within: Duration) -> Option<ExitStatus> {
    let deadline = Instant::now() + within;
    loop {
        if let Some(status) = child.try_wait().expect("try_wait") {
            return Some(status);
        }
        if Instant::now() > deadline {
            return None;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn terminate(child: &mut Child) -> ExitStatus {
    let pid = i32::try_from(child.id()).expect("pid");
    // SAFETY: kill has no memory-safety preconditions; the child is unreaped,
    // so its pid cannot have been reused.
    assert_eq!(unsafe { libc::kill(pid, libc::SIGTERM) }, 0);
    wait_exit(child, Duration::from_secs(10)).unwrap_or_else(|| {
        let _ = child.kill();
        panic!("server still running 10s after SIGTERM")
    })
}

/// Running or sleeping; a killed process whose new parent has not reaped it
/// yet is a zombie (`Z`) and counts as dead.
fn alive(pid: i32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|stat| {
            stat.rsplit(')')
                .next()
                .map(|rest| rest.trim_start().to_string())
        })
        .is_some_and(|rest| !rest.starts_with('Z') && !rest.starts_with('X'))
}

fn args(value: Value) -> serde_json::Map<String, Value> {
    value.as_object().expect("object").clone()
}

#[tokio::test]
async fn boris_tools_answer_over_http_and_sigterm_cleans_up() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = std::fs::canonicalize(dir.path()).expect("canonical");
    std::fs::write(root.join("a.txt"), "one\ntwo\n").expect("write");
    let mut server = start(&root, &[]);

    let client =
        ().serve(StreamableHttpClientTransport::from_uri(server.url.as_str()))
            .await
            .expect("initialize over HTTP");
    let info = client.peer_info().expect("server info");
    let name = info.server_info.as_ref().map(|server| server.name.as_str());
    assert_eq!(name, Some("toolspec-reference"));

    let tools = client.list_all_tools().await.expect("tools/list");
    let names: Vec<&str> = tools.iter().map(|tool| tool.name.as_ref()).collect();
    assert_eq!(names, util::BORIS_TOOLS);

    let view = client
        .call_tool(
            CallToolRequestParams::new("view").with_arguments(args(json!({"path": "a.txt"}))),
        )
        .await
        .expect("tools/call view");
    let view = serde_json::to_value(&view).expect("serialize");
    assert_eq!(view["content"][0]["text"], "1\tone\n2\ttwo\n");
    assert_eq!(view.get("isError"), None);

    // A background task that would outlive the server without the cleanup.
    let started = client
        .call_tool(
            CallToolRequestParams::new("bash").with_arguments(args(json!({
                "command": "echo $$ > sleeper.pid; exec sleep 300",
                "run_in_background": true
            }))),
        )
        .await
        .expect("tools/call bash");
    let started = serde_json::to_value(&started).expect("serialize");
    assert!(
        started["content"][0]["text"]
            .as_str()
            .is_some_and(|text| text.starts_with("task_id: ")),
        "{started}"
    );
    let pid_file = root.join("sleeper.pid");
    let deadline = Instant::now() + Duration::from_secs(10);
    let sleeper: i32 = loop {
        if let Some(pid) = std::fs::read_to_string(&pid_file)
            .ok()
            .and_then(|text| text.trim().parse().ok())
        {
            break pid;
        }
        assert!(Instant::now() < deadline, "background task never started");
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    assert!(alive(sleeper));

    drop(client);
    let status = terminate(&mut server.child);
    assert!(
        status.success(),
        "server exited with {status} after SIGTERM"
    );
    let deadline = Instant::now() + Duration::from_secs(5);
    while alive(sleeper) {
        assert!(
            Instant::now() < deadline,
            "background task {sleeper} outlived the server"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn stdin_eof_stops_the_server_only_when_asked() {
    let dir = tempfile::tempdir().expect("tempdir");

    let mut asked = start(dir.path(), &["--exit-on-stdin-eof"]);
    drop(asked.stdin.take());
    let status = wait_exit(&mut asked.child, Duration::from_secs(10))
        .expect("server still running 10s after stdin closed");
    assert!(status.success(), "server exited with {status} on stdin EOF");

    let mut not_asked = start(dir.path(), &[]);
    drop(not_asked.stdin.take());
    assert_eq!(
        wait_exit(&mut not_asked.child, Duration::from_millis(500)),
        None,
        "without --exit-on-stdin-eof, stdin EOF must not stop the server"
    );
    let status = terminate(&mut not_asked.child);
    assert!(
        status.success(),
        "server exited with {status} after SIGTERM"
    );
}
