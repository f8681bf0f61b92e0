//! A bounded soak: in each dialect, a few thousand tool calls with random,
//! mostly invalid, arguments (see `arguments`), in a root whose symlinks
//! lead to a canary folder beside it (see `fixture`). After every call the
//! server must have answered (a result or a JSON-RPC error, in time), shown
//! nothing from the canary, changed nothing there or beside the root, and
//! printed no panic; at the end it must still answer, stop when its stdin
//! closes, and leave no process behind (see `processes`).
//!
//! The seed is fixed so that a failure replays; it and the call count can be
//! changed for longer runs by hand: `TOOLSPEC_SOAK_SEED=7
//! TOOLSPEC_SOAK_CALLS=50000 cargo test -p toolspec-reference --test server
//! soak::boris -- --nocapture`.

mod arguments;
mod fixture;
mod processes;

use std::ffi::OsStr;
use std::fs::File;
use std::os::unix::fs::FileExt;
use std::process::Stdio;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::session::Session;
use crate::util;
use arguments::{Pools, Tool};
use fixture::{Fixture, State, TOKEN};
use processes::MARK_VAR;

/// The seed unless `TOOLSPEC_SOAK_SEED` says otherwise.
const DEFAULT_SEED: u64 = 14;
/// Calls per dialect unless `TOOLSPEC_SOAK_CALLS` says otherwise: enough for
/// every tool to meet most kinds of bad argument in a `cargo test` of seconds.
/// CI sets 3000 (`.ci/run`), and longer soaks are run by hand.
const DEFAULT_CALLS: usize = 400;
/// How long one call may take to be answered.
const CALL_TIMEOUT: Duration = Duration::from_secs(20);
/// How long the server may take to stop, and what it started to die.
const GRACE: Duration = Duration::from_secs(10);
/// How much of a call's parameters a failure shows.
const SHOWN_CHARS: usize = 400;

/// The seed and call count, from the environment or the defaults.
fn settings() -> (u64, usize) {
    const WHOLE: &str = "a non-negative whole number";
    (
        util::setting_from_env("TOOLSPEC_SOAK_SEED", DEFAULT_SEED, WHOLE),
        util::setting_from_env("TOOLSPEC_SOAK_CALLS", DEFAULT_CALLS, WHOLE),
    )
}

/// `value` as JSON, each long string in it cut short (saying how long it
/// was), and the whole cut short if still long.
fn shown(value: &Value) -> String {
    let text = abbreviated(value).to_string();
    match text.char_indices().nth(SHOWN_CHARS) {
        Some((cut, _)) => format!("{}… ({} bytes in all)", &text[..cut], text.len()),
        None => text,
    }
}

fn abbreviated(value: &Value) -> Value {
    const KEPT: usize = 40;
    match value {
        Value::String(text) => match text.char_indices().nth(KEPT) {
            Some((cut, _)) => json!(format!("{}…[{} bytes]", &text[..cut], text.len())),
            None => value.clone(),
        },
        Value::Array(items) => Value::Array(items.iter().map(abbreviated).collect()),
        Value::Object(fields) => Value::Object(
            fields
                .iter()
                .map(|(name, field)| (name.clone(), abbreviated(field)))
                .collect(),
        ),
        other => other.clone(),
    }
}

/// The server's stderr, in a file read a piece at a time.
struct StderrLog {
    file: File,
    read: u64,
}

impl StderrLog {
    /// What the server wrote since the last look.
    fn new_text(&mut self) -> String {
        let mut fresh = Vec::new();
        let mut chunk = [0u8; 64 * 1024];
        loop {
            match self.file.read_at(&mut chunk, self.read) {
                Ok(0) | Err(_) => break,
                Ok(count) => {
                    fresh.extend_from_slice(&chunk[..count]);
                    self.read += count as u64;
                }
            }
        }
        String::from_utf8_lossy(&fresh).into_owned()
    }

    /// A panic the server reported since the last look, with its lines.
    fn panic(&mut self) -> Option<String> {
        let text = self.new_text();
        text.contains("panicked")
            .then(|| format!("the server panicked; its stderr:\n{text}"))
    }
}

/// What is wrong with a reply, if anything: it must be a JSON-RPC result
/// holding MCP content, or a JSON-RPC error with a code and a message.
fn malformed(reply: &Value) -> Option<String> {
    let well_formed = reply["jsonrpc"] == "2.0"
        && match (reply.get("result"), reply.get("error")) {
            (Some(result), None) => result["content"].is_array(),
            (None, Some(error)) => error["code"].is_i64() && error["message"].is_string(),
            _ => false,
        };
    (!well_formed).then(|| {
        format!(
            "the reply is neither a tool result nor an error: {}",
            shown(reply)
        )
    })
}

/// Tallies of how the calls were answered.
#[derive(Default)]
struct Tally {
    succeeded: usize,
    tool_errors: usize,
    protocol_errors: usize,
}

/// Where the soak runs: the tree, its state before, and the server's log.
struct Watch<'a> {
    fixture: &'a Fixture,
    before: &'a State,
    log: StderrLog,
}

impl Watch<'_> {
    /// Makes one call and checks everything a call may break; the problem,
    /// if any.
    fn call(&mut self, session: &mut Session, params: &Value, tally: &mut Tally) -> Option<String> {
        let reply = match session.try_request("tools/call", params.clone(), CALL_TIMEOUT) {
            Ok(reply) => reply,
            Err(why) => {
                let panic = self.log.panic().unwrap_or_default();
                return Some(format!("no answer: {why}\n{panic}"));
            }
        };
        if let Some(problem) = malformed(&reply) {
            return Some(problem);
        }
        if reply.get("error").is_some() {
            tally.protocol_errors += 1;
        } else if reply["result"]["isError"] == true {
            tally.tool_errors += 1;
        } else {
            tally.succeeded += 1;
        }
        if reply.to_string().contains(TOKEN) {
            return Some(format!(
                "the answer shows a canary file's content (read outside the root): {}",
                shown(&reply)
            ));
        }
        let changes = self.before.changes(&self.fixture.state());
        if !changes.is_empty() {
            return Some(format!(
                "written outside the root:\n    {}\n  the answer: {}",
                changes.join("\n    "),
                shown(&reply)
            ));
        }
        self.log.panic()
    }
}

/// The soak of one dialect; panics with every problem found, each naming
/// the dialect, the seed, and the call.
fn soak(dialect: &str) {
    let (seed, calls) = settings();
    eprintln!(
        "soak {dialect}: seed {seed}, {calls} calls (set TOOLSPEC_SOAK_SEED and TOOLSPEC_SOAK_CALLS to change)"
    );
    let fixture = Fixture::new();
    let before = fixture.state();
    let pools = Pools::new(&fixture);
    let mark = processes::new_mark(dialect);
    let log_file = tempfile::tempfile().expect("stderr log");
    // boris and ikigai confine file tools only to their allowed directories
    // (ikigai, like rel-04, confines nothing without one).
    let allow_root = [OsStr::new("--allow-dir"), fixture.root.as_os_str()];
    let extra: &[&OsStr] = if matches!(dialect, "boris" | "ikigai") {
        &allow_root
    } else {
        &[]
    };
    let mut session = Session::start_with(
        dialect,
        &fixture.root,
        extra,
        Stdio::from(log_file.try_clone().expect("stderr log")),
        &[(MARK_VAR, &mark)],
    );
    let server = session.pid();
    let listed = session.request("tools/list", json!({}));
    let tools = Tool::listed(&listed["result"])
        .unwrap_or_else(|| panic!("{dialect}: tools/list listed no tools: {listed}"));
    let mut watch = Watch {
        fixture: &fixture,
        before: &before,
        log: StderrLog {
            file: log_file,
            read: 0,
        },
    };
    let mut rng = fastrand::Rng::with_seed(seed);
    let mut tally = Tally::default();
    let mut problems = Vec::new();
    let started = Instant::now();
    let mut made = 0;
    for number in 1..=calls {
        made = number;
        let params = pools.call(&mut rng, &tools);
        if let Some(problem) = watch.call(&mut session, &params, &mut tally) {
            problems.push(format!(
                "{dialect}, seed {seed}, call {number} of {calls}: tools/call {}\n  {problem}",
                shown(&params)
            ));
            break;
        }
    }
    let elapsed = started.elapsed();
    if problems.is_empty() {
        problems.extend(
            finish(session, server, &tools, &mark, &mut watch)
                .into_iter()
                .map(|problem| format!("{dialect}, seed {seed}, after the calls: {problem}")),
        );
    } else {
        // Killed, the server cannot end what it started: the sweep below
        // does, and what it finds is not the server's fault.
        drop(session);
    }
    processes::survivors(&mark, Duration::ZERO);
    eprintln!(
        "soak {dialect}: {made} calls in {elapsed:.1?}: {} succeeded, {} tool errors, {} JSON-RPC errors",
        tally.succeeded, tally.tool_errors, tally.protocol_errors
    );
    assert!(
        problems.is_empty(),
        "the soak of {dialect} failed (replay: TOOLSPEC_SOAK_SEED={seed} TOOLSPEC_SOAK_CALLS={calls} \
         cargo test -p toolspec-reference --test server soak::{}):\n{}",
        dialect.replace('-', "_"),
        problems.join("\n")
    );
}

/// The end of a soak that got through its calls: the server still answers
/// and lists the same tools; a process left running on purpose is seen by
/// the check and then ended with the server when its stdin closes; nothing
/// else it started outlives it, and it did not panic on the way out.
fn finish(
    mut session: Session,
    server: u32,
    tools: &[Tool],
    mark: &str,
    watch: &mut Watch<'_>,
) -> Vec<String> {
    let mut problems = Vec::new();
    match session.try_request("tools/list", json!({}), CALL_TIMEOUT) {
        Ok(reply) => {
            let names: Vec<&str> = tools.iter().map(|tool| tool.name.as_str()).collect();
            let now: Vec<String> = Tool::listed(&reply["result"])
                .unwrap_or_default()
                .into_iter()
                .map(|tool| tool.name)
                .collect();
            if now != names {
                problems.push(format!(
                    "tools/list changed from {names:?} to {}",
                    shown(&reply)
                ));
            }
        }
        Err(why) => problems.push(format!("tools/list got no answer: {why}")),
    }
    let Some(shell) = tools.iter().find(|tool| tool.is_shell()) else {
        problems.push("no listed tool takes a command, so nothing can be left running".into());
        return problems;
    };
    // The command waits until the process has left its group: the server
    // kills the group when the shell exits, and would otherwise often kill
    // the process before it got away.
    let leave = json!({"name": shell.name, "arguments": {"command":
        "setsid sh -c ': > .soak-left; exec sleep 300' > /dev/null 2>&1 < /dev/null & \
         while [ ! -e .soak-left ]; do sleep 0.01; done"}});
    let answer = session
        .try_request("tools/call", leave, CALL_TIMEOUT)
        .unwrap_or_else(|why| json!(format!("no answer: {why}")));
    let deadline = Instant::now() + GRACE;
    while processes::marked(mark, Some(server)).is_empty() {
        if Instant::now() > deadline {
            problems.push(format!(
                "the process left running on purpose never showed up, so the leftover \
                 check would see nothing; the call's answer: {}",
                shown(&answer)
            ));
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    match session.try_close(GRACE) {
        Ok(status) if status.success() => {}
        Ok(status) => problems.push(format!(
            "the server exited with {status} when its stdin closed"
        )),
        Err(why) => problems.push(why),
    }
    problems.extend(watch.log.panic());
    problems.extend(
        processes::survivors(mark, GRACE)
            .into_iter()
            .map(|left| format!("left running after the server stopped: {left}")),
    );
    problems
}

#[test]
fn boris() {
    soak("boris");
}

#[test]
fn gemini_cli() {
    soak("gemini-cli");
}

#[test]
fn agent_tools() {
    soak("agent-tools");
}

#[test]
fn ikigai() {
    soak("ikigai");
}
