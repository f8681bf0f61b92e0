//! A deliberately broken MCP server over HTTP, served from a thread of the test
//! process, for the harness's own tests; `tests/servers/hostile.sh` is its stdio
//! sibling. Each connection gets one answer, as the mode says:
//!   status-500  answers initialize with HTTP 500 and an HTML page
//!   html        answers initialize with HTTP 200 and an HTML page
//!   redirect    answers initialize with a 302 redirect to /login
//!   no-content  completes initialize, then answers tools/call with {"isError": false}
//!   string-id   completes initialize, then answers tools/call with its id as a string
//!   sse-string-id  the same, with the answer as an event of an SSE stream
//!
//! The target's command is a plain `sleep`: the harness starts and stops it as the
//! server process, while the answers come from here, at a fixed port in the URL.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};

use toolspec::Target;

/// A target whose URL is served by a hostile thread in `mode`.
pub(crate) fn hostile_http(mode: &'static str) -> Target {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind a local port");
    let port = listener.local_addr().expect("bound address").port();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            std::thread::spawn(move || answer(stream, mode));
        }
    });
    let mut target = Target::from_command_line("sleep 600").expect("command line");
    target.url = Some(format!("http://127.0.0.1:{port}/mcp"));
    // What answers is this test's own thread, on toolspec's network, not the
    // command: the one opening a target served from outside needs.
    target.isolation.allow_network = true;
    target
}

/// Reads one request and answers it; the connection is closed after each answer.
fn answer(stream: TcpStream, mode: &str) {
    let Ok(mut reader) = stream.try_clone().map(BufReader::new) else {
        return;
    };
    let mut request_line = String::new();
    if reader.read_line(&mut request_line).is_err() {
        return;
    }
    let mut length = 0usize;
    loop {
        let mut header = String::new();
        if reader.read_line(&mut header).is_err() || header.trim().is_empty() {
            break;
        }
        if let Some((name, value)) = header.split_once(':') {
            if name.eq_ignore_ascii_case("content-length") {
                length = value.trim().parse().unwrap_or(0);
            }
        }
    }
    let mut body = vec![0u8; length];
    if reader.read_exact(&mut body).is_err() {
        return;
    }
    let message: serde_json::Value = serde_json::from_slice(&body).unwrap_or_default();
    let method = message["method"].as_str().unwrap_or_default();
    let id = message["id"].clone();
    let reply = if request_line.starts_with("POST") {
        reply_to(mode, method, &id)
    } else if request_line.starts_with("DELETE") {
        plain("200 OK", "text/plain", "")
    } else {
        plain("405 Method Not Allowed", "text/plain", "")
    };
    let mut stream = stream;
    let _ = stream.write_all(reply.as_bytes());
}

fn reply_to(mode: &str, method: &str, id: &serde_json::Value) -> String {
    let page = "<html><body><h1>Something went wrong</h1></body></html>";
    match (mode, method) {
        ("status-500", _) => plain("500 Internal Server Error", "text/html", page),
        ("html", _) => plain("200 OK", "text/html", page),
        ("redirect", _) => "HTTP/1.1 302 Found\r\nLocation: /login\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".to_string(),
        (_, "initialize") => json(&serde_json::json!({
            "jsonrpc": "2.0", "id": id,
            "result": {
                "protocolVersion": "2025-06-18",
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "hostile-http", "version": "0"}
            }
        })),
        (_, "tools/call") if mode == "no-content" => json(&serde_json::json!({
            "jsonrpc": "2.0", "id": id, "result": {"isError": false}
        })),
        (_, "tools/call") => {
            let answer = serde_json::json!({
                "jsonrpc": "2.0", "id": id.to_string(),
                "result": {"content": [{"type": "text", "text": "[PATH_NOT_FOUND] no such file"}], "isError": true}
            });
            if mode == "sse-string-id" {
                events(&answer)
            } else {
                json(&answer)
            }
        }
        _ => plain("202 Accepted", "text/plain", ""),
    }
}

fn json(message: &serde_json::Value) -> String {
    let body = message.to_string();
    format!(
        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nMcp-Session-Id: s1\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
}

fn events(message: &serde_json::Value) -> String {
    let body = format!("event: message\ndata: {message}\n\n");
    format!(
        "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
}

fn plain(status: &str, kind: &str, body: &str) -> String {
    format!(
        "HTTP/1.1 {status}\r\nContent-Type: {kind}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
}
