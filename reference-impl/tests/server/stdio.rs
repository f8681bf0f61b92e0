//! End-to-end: the real binary over stdin/stdout, as the harness runs it.

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::time::Duration;

use serde_json::{json, Value};

use crate::session::Session;
use crate::util;

fn exchange(root: &std::path::Path, calls: &[Value]) -> Vec<Value> {
    let mut child = Command::new(util::SERVER)
        .args(["--dialect", "boris", "--root"])
        .arg(root)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("spawn server");
    let mut stdin = child.stdin.take().expect("stdin");
    let mut stdout = BufReader::new(child.stdout.take().expect("stdout"));
    let mut send = |message: Value| writeln!(stdin, "{message}").expect("write");
    let mut read = || {
        let mut line = String::new();
        stdout.read_line(&mut line).expect("read");
        serde_json::from_str::<Value>(&line).expect("stdout carries only JSON-RPC")
    };
    send(
        json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}}),
    );
    read();
    send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    let mut replies = Vec::new();
    for (id, call) in calls.iter().enumerate() {
        let mut request = call.clone();
        request["jsonrpc"] = json!("2.0");
        request["id"] = json!(id + 1);
        send(request);
        replies.push(read());
    }
    drop(stdin);
    let status = child.wait().expect("wait");
    assert!(status.success(), "server exited with {status}");
    replies
}

fn tool_call(name: &str, arguments: Value) -> Value {
    json!({"method": "tools/call", "params": {"name": name, "arguments": arguments}})
}

#[test]
fn boris_tools_answer_over_stdio() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = std::fs::canonicalize(dir.path()).expect("canonical");
    std::fs::write(root.join("a.txt"), "one\ntwo\n").expect("write");
    let replies = exchange(
        &root,
        &[
            json!({"method": "tools/list", "params": {}}),
            tool_call("view", json!({"path": "a.txt"})),
            tool_call("view", json!({"path": "missing.txt"})),
            tool_call("bash", json!({"command": "exit 3"})),
            tool_call("view", json!({})),
        ],
    );
    let names: Vec<&str> = replies[0]["result"]["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    assert_eq!(names, util::BORIS_TOOLS);
    assert_eq!(
        replies[1]["result"]["content"][0]["text"],
        "1\tone\n2\ttwo\n"
    );
    assert_eq!(replies[1]["result"].get("isError"), None);
    assert_eq!(replies[2]["result"]["isError"], true);
    assert_eq!(
        replies[2]["result"]["content"][0]["text"],
        format!(
            "[PATH_NOT_FOUND] {} does not exist",
            root.join("missing.txt").display()
        )
    );
    assert_eq!(replies[3]["result"]["content"][0]["text"], "exit_code: 3\n");
    assert_eq!(replies[3]["result"].get("isError"), None);
    assert_eq!(
        replies[4]["result"]["content"][0]["text"],
        "[INVALID_INPUT] missing required parameter \"path\""
    );
}

/// A request nested deeper than the JSON parser takes, or longer than the
/// line limit, is answered with a JSON-RPC error addressed to its id, and
/// the server goes on serving.
#[test]
fn requests_too_deep_or_too_large_are_answered_and_serving_goes_on() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = std::fs::canonicalize(dir.path()).expect("canonical");
    let mut session = Session::start("boris", &root, &[]);
    let deep = format!(
        r#"{{"jsonrpc":"2.0","id":"deep","method":"tools/call","params":{{"name":"view","arguments":{{"path":{}"x"{}}}}}}}"#,
        "[".repeat(300),
        "]".repeat(300)
    );
    let large = format!(
        r#"{{"jsonrpc":"2.0","id":"large","method":"tools/call","params":{{"name":"view","arguments":{{"path":"{}"}}}}}}"#,
        "a".repeat(17 << 20)
    );
    for (id, request, says) in [("deep", deep, "levels deep"), ("large", large, "bytes")] {
        session.send_line(request.as_bytes());
        let answer = session
            .next_message(Duration::from_secs(10))
            .unwrap_or_else(|why| panic!("the {id} request: {why}"));
        assert_eq!(answer["id"], id, "{answer}");
        assert_eq!(answer["error"]["code"], -32600, "{answer}");
        let message = answer["error"]["message"].as_str().unwrap_or_default();
        assert!(message.contains(says), "{answer}");
    }
    let still = session.call_text("bash", json!({"command": "echo still serving"}));
    assert!(still.contains("still serving"), "{still}");
}

/// `--list-mutations | head -n 1`: the reader has gone before the listing is
/// written. The listing ends quietly with exit 0; before, the write panicked and
/// the process ended with 101, failing any `set -o pipefail` script.
#[test]
fn a_listing_whose_reader_has_gone_ends_quietly() {
    let (reader, writer) = std::io::pipe().expect("pipe");
    drop(reader);
    let output = Command::new(util::SERVER)
        .args(["--dialect", "boris", "--list-mutations"])
        .stdout(writer)
        .stderr(Stdio::piped())
        .output()
        .expect("run the server");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "stderr: {stderr}");
    assert!(stderr.is_empty(), "nothing is said on stderr: {stderr}");
}
