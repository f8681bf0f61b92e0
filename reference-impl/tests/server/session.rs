//! A small synchronous MCP client over the binary's stdin/stdout, for tests
//! that hold a session open (races, limits, shutdown). Replies are read on a
//! thread, so a server that never answers fails the test after a timeout
//! instead of hanging it.

use std::ffi::OsStr;
use std::io::{BufRead, BufReader, Write};
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::util;

/// How long a reply may take before the test gives up on it.
pub(crate) const REPLY_TIMEOUT: Duration = Duration::from_secs(20);

/// A running server and the reading end of its stdout.
pub(crate) struct Session {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
    next_id: u64,
}

impl Session {
    /// Starts `--dialect <dialect> --root <root>` plus `extra`, and
    /// initializes the session. The server's stderr is passed through.
    pub(crate) fn start(dialect: &str, root: &Path, extra: &[&OsStr]) -> Session {
        Session::start_with(dialect, root, extra, Stdio::inherit(), &[])
    }

    /// [`Session::start`] with the server's stderr thrown away, for tests
    /// that provoke thousands of expected failures.
    pub(crate) fn start_quiet(dialect: &str, root: &Path, extra: &[&OsStr]) -> Session {
        Session::start_with(dialect, root, extra, Stdio::null(), &[])
    }

    /// [`Session::start`] with the server's stderr going where `stderr`
    /// says and `env` added to its environment (which the commands it runs
    /// inherit, so a test can find them by it).
    pub(crate) fn start_with(
        dialect: &str,
        root: &Path,
        extra: &[&OsStr],
        stderr: Stdio,
        env: &[(&str, &str)],
    ) -> Session {
        let mut command = Command::new(util::SERVER);
        command
            .args(["--dialect", dialect, "--root"])
            .arg(root)
            .args(extra)
            .envs(env.iter().copied())
            .stderr(stderr);
        Session::spawn(command)
    }

    /// [`Session::start`] as user `uid` and group `gid` with no supplementary
    /// groups, for what an unprivileged server may do. Only root can ask.
    pub(crate) fn start_as(dialect: &str, root: &Path, uid: u32, gid: u32) -> Session {
        // The build's own folder may sit below one only root may enter (a clone in
        // a mode-0700 temporary folder, or in /root): run a copy from a folder
        // everyone may enter. Once started, the copy is no longer needed.
        use std::os::unix::fs::PermissionsExt;
        let copy_dir = tempfile::tempdir().expect("tempdir for the server copy");
        let open = std::fs::Permissions::from_mode(0o755);
        std::fs::set_permissions(copy_dir.path(), open.clone()).expect("chmod copy dir");
        let copy = copy_dir.path().join("server");
        util::copy_executable(std::path::Path::new(util::SERVER), &copy);
        std::fs::set_permissions(&copy, open).expect("chmod server copy");
        let mut command = Command::new(&copy);
        command.args(["--dialect", dialect, "--root"]).arg(root);
        // SAFETY: only async-signal-safe calls (setgroups, setgid, setuid) run
        // between fork and exec.
        unsafe {
            command.pre_exec(move || {
                if libc::setgroups(0, std::ptr::null()) != 0
                    || libc::setgid(gid) != 0
                    || libc::setuid(uid) != 0
                {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
        Session::spawn(command)
    }

    /// Starts `command` (the server with its arguments) on piped stdin and
    /// stdout, and initializes the session.
    fn spawn(mut command: Command) -> Session {
        let mut child = command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("spawn server");
        let stdin = child.stdin.take();
        let stdout = BufReader::new(child.stdout.take().expect("stdout"));
        let (sender, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in stdout.lines().map_while(Result::ok) {
                if sender.send(line).is_err() {
                    break;
                }
            }
        });
        let mut session = Session {
            child,
            stdin,
            lines,
            next_id: 1,
        };
        session.request(
            "initialize",
            json!({"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": "test", "version": "0"}}),
        );
        session.send_line(
            json!({"jsonrpc": "2.0", "method": "notifications/initialized"})
                .to_string()
                .as_bytes(),
        );
        session
    }

    /// The server's process id.
    pub(crate) fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Writes one line (a newline is added) to the server's stdin.
    pub(crate) fn send_line(&mut self, line: &[u8]) {
        let stdin = self.stdin.as_mut().expect("stdin is open");
        stdin.write_all(line).expect("write request");
        stdin.write_all(b"\n").expect("write newline");
        stdin.flush().expect("flush");
    }

    /// The next JSON line the server writes, within `timeout`.
    pub(crate) fn next_message(&self, timeout: Duration) -> Result<Value, String> {
        match self.lines.recv_timeout(timeout) {
            Ok(line) => serde_json::from_str(&line)
                .map_err(|err| format!("stdout line is not JSON ({err}): {line}")),
            Err(RecvTimeoutError::Timeout) => Err(format!("no reply within {timeout:?}")),
            Err(RecvTimeoutError::Disconnected) => Err("the server closed stdout".to_string()),
        }
    }

    /// Sends a request and returns the reply with its id.
    pub(crate) fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        let message = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        self.send_line(message.to_string().as_bytes());
        self.reply_to(id)
    }

    /// Sends a request and returns the reply with its id, or why there is
    /// none within `within` (no reply, stdout closed, stdin broken, a line
    /// that is not JSON), for tests that report it with their own context.
    pub(crate) fn try_request(
        &mut self,
        method: &str,
        params: Value,
        within: Duration,
    ) -> Result<Value, String> {
        let id = self.next_id;
        self.next_id += 1;
        let message = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        let stdin = self.stdin.as_mut().ok_or("stdin is closed")?;
        stdin
            .write_all(message.to_string().as_bytes())
            .and_then(|()| stdin.write_all(b"\n"))
            .and_then(|()| stdin.flush())
            .map_err(|err| format!("writing the request: {err}"))?;
        let deadline = Instant::now() + within;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let message = self.next_message(left)?;
            if message.get("id") == Some(&json!(id)) {
                return Ok(message);
            }
        }
    }

    /// The reply to request `id`, skipping notifications.
    pub(crate) fn reply_to(&self, id: u64) -> Value {
        let deadline = Instant::now() + REPLY_TIMEOUT;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let message = self
                .next_message(left)
                .unwrap_or_else(|why| panic!("request {id}: {why}"));
            if message.get("id") == Some(&json!(id)) {
                return message;
            }
        }
    }

    /// Calls a tool; the text of the result (or of a JSON-RPC error).
    pub(crate) fn call_text(&mut self, tool: &str, arguments: Value) -> String {
        let reply = self.request("tools/call", json!({"name": tool, "arguments": arguments}));
        match reply["result"]["content"][0]["text"].as_str() {
            Some(text) => text.to_string(),
            None => reply.to_string(),
        }
    }

    /// Closes stdin and waits for the server to exit.
    pub(crate) fn close(self, within: Duration) -> ExitStatus {
        self.try_close(within).unwrap_or_else(|why| panic!("{why}"))
    }

    /// Closes stdin and waits for the server to exit; if it does not within
    /// `within`, kills it and says so.
    pub(crate) fn try_close(mut self, within: Duration) -> Result<ExitStatus, String> {
        drop(self.stdin.take());
        match self.wait(within) {
            Some(status) => Ok(status),
            None => {
                let _ = self.child.kill();
                Err(format!(
                    "the server did not exit within {within:?} of its stdin closing"
                ))
            }
        }
    }

    /// Waits up to `within` for the server to exit on its own.
    pub(crate) fn wait(&mut self, within: Duration) -> Option<ExitStatus> {
        let deadline = Instant::now() + within;
        loop {
            if let Some(status) = self.child.try_wait().expect("try_wait") {
                return Some(status);
            }
            if Instant::now() > deadline {
                return None;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}
