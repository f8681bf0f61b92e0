//! Isolation, proved by a server that tries every escape (`tests/servers/escape.py`):
//! under the default each attempt fails inside the server and no secret reaches a
//! report; each key of a target file's `isolation:` opens exactly its own escape.
//!
//! toolspec runs here with `HOME` set to a folder of the test's, which holds the
//! planted secret: for toolspec that folder is the real home.

use std::io::Read;
use std::net::{TcpListener, UdpSocket};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::net::UnixListener;
use std::os::unix::process::CommandExt;
use std::path::PathBuf;

use crate::support::{exe, repo};

/// What the planted secret file holds.
const SECRET: &str = "planted-secret-5e1f0c";

/// A secret in toolspec's environment, as a CI job's token would be.
const ENV_SECRET: &str = "planted-env-token-77ab";

/// A home with a secret in it, a folder outside everything, and listeners on the
/// loopback (IPv4 and IPv6, TCP and UDP) outside any namespace toolspec makes.
struct Escape {
    top: tempfile::TempDir,
    tcp: [TcpListener; 2],
    udp: [UdpSocket; 2],
    /// A terminal of the test's own (both ends), toolspec's controlling terminal, so
    /// that what a server types into it can be read back and no real one is touched.
    terminal: (OwnedFd, OwnedFd),
    /// A Unix socket outside every fixture, as a daemon's would be.
    socket: UnixListener,
}

/// What one run showed: the server's answer (as the report quotes it), everything
/// toolspec printed, the JSON report, and which listeners were reached.
struct Seen {
    answer: String,
    printed: String,
    json: serde_json::Value,
    json_text: String,
    tcp: [bool; 2],
    udp: [bool; 2],
    wrote: bool,
    /// What reached the terminal's input.
    typed: String,
    /// Whether the file outside changed (mode, times or attributes), and whether
    /// the socket outside was connected to.
    changed: bool,
    reached: bool,
}

/// A new pseudo-terminal: its controlling end and the terminal itself.
fn pseudo_terminal() -> (OwnedFd, OwnedFd) {
    let (mut controller, mut terminal) = (-1, -1);
    // SAFETY: openpty writes two descriptors, owned at once.
    unsafe {
        let made = libc::openpty(
            &mut controller,
            &mut terminal,
            std::ptr::null_mut(),
            std::ptr::null(),
            std::ptr::null(),
        );
        assert_eq!(made, 0, "openpty");
        libc::fcntl(terminal, libc::F_SETFL, libc::O_NONBLOCK);
        (
            OwnedFd::from_raw_fd(controller),
            OwnedFd::from_raw_fd(terminal),
        )
    }
}

impl Escape {
    fn new() -> Escape {
        let top = tempfile::tempdir().expect("tempdir");
        let dir = top.path();
        for folder in [
            "home/.ssh",
            "tmp/toolspec-neighbour",
            "outside",
            "specs/demo",
            "targets",
        ] {
            std::fs::create_dir_all(dir.join(folder)).expect("folder");
        }
        std::fs::write(dir.join("tmp/toolspec-neighbour/notes.txt"), SECRET).expect("neighbour");
        std::fs::write(dir.join("home/.ssh/id_planted"), SECRET).expect("secret");
        std::fs::write(dir.join("outside/kept"), "kept").expect("a file outside");
        std::fs::write(
            dir.join("specs/demo/suite.yaml"),
            "suite: demo\ntitle: Demo\ndialect: bracket-code\nreference:\n  args: [--dialect, boris, --root, \"{root}\"]\n",
        )
        .expect("suite");
        // Never holds: the report quotes the whole answer in its diff.
        std::fs::write(
            dir.join("specs/demo/case.yaml"),
            "requirement: R\nscenarios:\n  - name: escapes\n    covers: r/s\n    when: { tool: view, args: { path: \"{root}/a\" } }\n    then: { contains: [\"nothing to see\"] }\n",
        )
        .expect("case");
        let listener = |address: &str| {
            let socket = TcpListener::bind(address).expect("tcp listener");
            socket.set_nonblocking(true).expect("nonblocking");
            socket
        };
        let datagrams = |address: &str| {
            let socket = UdpSocket::bind(address).expect("udp socket");
            socket.set_nonblocking(true).expect("nonblocking");
            socket
        };
        Escape {
            tcp: [listener("127.0.0.1:0"), listener("[::1]:0")],
            udp: [datagrams("127.0.0.1:0"), datagrams("[::1]:0")],
            socket: {
                let socket = UnixListener::bind(top.path().join("outside/socket")).expect("socket");
                socket.set_nonblocking(true).expect("nonblocking");
                socket
            },
            top,
            terminal: pseudo_terminal(),
        }
    }

    fn path(&self, below: &str) -> PathBuf {
        self.top.path().join(below)
    }

    /// A target file for the escaping server with `isolation` (YAML lines) in it.
    fn target(&self, isolation: &str) -> PathBuf {
        let port = |a: std::io::Result<std::net::SocketAddr>| a.expect("address").port();
        let command = [
            "/usr/bin/python3".to_string(),
            repo().join("tests/servers/escape.py").display().to_string(),
            self.path("outside").display().to_string(),
            self.path("home/.ssh/id_planted").display().to_string(),
            port(self.tcp[0].local_addr()).to_string(),
            port(self.tcp[1].local_addr()).to_string(),
            port(self.udp[0].local_addr()).to_string(),
            port(self.udp[1].local_addr()).to_string(),
            std::fs::read_link(format!("/proc/self/fd/{}", self.terminal.1.as_raw_fd()))
                .expect("the terminal's path")
                .display()
                .to_string(),
        ];
        let words: Vec<String> = command.iter().map(|w| format!("\"{w}\"")).collect();
        let path = self.path("targets/escape.yaml");
        std::fs::write(
            &path,
            format!("name: escape\ncommand: [{}]\n{isolation}", words.join(", ")),
        )
        .expect("target");
        path
    }

    /// One run of the scenario against the escaping server, isolated as `isolation`
    /// says, with `more` arguments.
    fn run(&self, isolation: &str, more: &[&str]) -> Seen {
        let json_path = self.path("report.json");
        let terminal = self.terminal.1.as_raw_fd();
        let mut command = std::process::Command::new(exe());
        // SAFETY: two system calls in the child before exec: a session of its own,
        // with the test's terminal as its controlling terminal.
        unsafe {
            command.pre_exec(move || {
                if libc::setsid() < 0 || libc::ioctl(terminal, libc::TIOCSCTTY, 0) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
        let output = command
            .current_dir(repo())
            .env("HOME", self.path("home"))
            .env("TMPDIR", self.path("tmp"))
            .env("TOOLSPEC_TEST_TOKEN", ENV_SECRET)
            .arg("--specs")
            .arg(self.path("specs"))
            .args([
                "run",
                "--suite",
                "demo",
                "--color",
                "never",
                "--timeout-ms",
                "5000",
            ])
            .args(more)
            .arg("--json")
            .arg(&json_path)
            .arg("--target")
            .arg(self.target(isolation))
            .output()
            .expect("toolspec runs");
        let printed = format!(
            "{}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
        assert_eq!(output.status.code(), Some(1), "{printed}");
        let answer = printed
            .lines()
            .find(|l| l.contains("write: "))
            .unwrap_or_else(|| panic!("no answer quoted:\n{printed}"))
            .trim()
            .trim_start_matches("| ")
            .to_string();
        let json_text = std::fs::read_to_string(&json_path).expect("the JSON report");
        let json = serde_json::from_str(&json_text).expect("JSON");
        let accepted = |l: &TcpListener| {
            l.accept()
                .map(|(mut s, _)| {
                    let mut said = String::new();
                    s.set_nonblocking(false).expect("blocking");
                    let _ = s.read_to_string(&mut said);
                    said.contains("escape.py")
                })
                .unwrap_or(false)
        };
        let received = |u: &UdpSocket| u.recv_from(&mut [0u8; 64]).is_ok();
        let written = self.path("outside/written");
        let wrote = written.exists();
        let _ = std::fs::remove_file(written);
        let mut typed = Vec::new();
        let mut buffer = [0u8; 256];
        loop {
            // SAFETY: a non-blocking read into `buffer` from the test's terminal.
            let read = unsafe { libc::read(terminal, buffer.as_mut_ptr().cast(), buffer.len()) };
            if read <= 0 {
                break;
            }
            typed.extend_from_slice(&buffer[..read as usize]);
        }
        Seen {
            answer,
            printed,
            json,
            json_text,
            tcp: [accepted(&self.tcp[0]), accepted(&self.tcp[1])],
            udp: [received(&self.udp[0]), received(&self.udp[1])],
            wrote,
            typed: String::from_utf8_lossy(&typed).into_owned(),
            changed: self.kept_changed(),
            reached: self.socket.accept().is_ok(),
        }
    }

    /// Whether `outside/kept` lost its mode, times or lack of attributes, put back
    /// after: a server may change nothing outside its fixture.
    fn kept_changed(&self) -> bool {
        use std::os::unix::fs::PermissionsExt;
        let kept = self.path("outside/kept");
        let meta = std::fs::metadata(&kept).expect("the file outside");
        let mode = meta.permissions().mode() & 0o7777 != 0o644;
        let time = meta.modified().ok() == Some(std::time::UNIX_EPOCH);
        let path = std::ffi::CString::new(kept.to_string_lossy().as_bytes()).expect("path");
        // SAFETY: asks the size of one attribute of a path; no buffer is written.
        let attribute = unsafe {
            libc::getxattr(
                path.as_ptr(),
                c"user.escaped".as_ptr(),
                std::ptr::null_mut(),
                0,
            )
        } >= 0;
        std::fs::remove_file(&kept).expect("remove");
        std::fs::write(&kept, "kept").expect("again");
        std::fs::set_permissions(&kept, std::fs::Permissions::from_mode(0o644)).expect("mode");
        mode || time || attribute
    }
}

/// Whether `answer` says `attempt` got through (`wrote`, `read …`, `connected`).
fn got(answer: &str, attempt: &str) -> bool {
    answer
        .split("; ")
        .find_map(|part| part.strip_prefix(&format!("{attempt}: ")))
        .is_some_and(|what| !what.starts_with("refused"))
}

const READS: [&str; 4] = ["home", "home-proc", "home-link", "home-list"];

/// The attempts on the process around the server: its environment and its
/// supervisor's and toolspec's, its parent's memory (its init's, which is its
/// supervisor's), the terminal, devices, capabilities, keyrings, and climbing out
/// of a chroot (its view is entered by one), and a folder beside its fixture's folder,
/// as another scenario's fixture would be (each view copies its target's template).
const AROUND: [&str; 16] = [
    "env",
    "environ-supervisor",
    "environ-toolspec",
    "parent-memory",
    "tty",
    "pts",
    "mknod",
    "capabilities",
    "keyring",
    "chmod",
    "utime",
    "xattr",
    "socket",
    "chroot",
    "userns-chroot",
    "neighbour",
];

/// Asserts that nothing of either secret is anywhere in what the run left, and that
/// nothing was typed into the terminal.
fn no_secret(seen: &Seen) {
    for secret in [SECRET, ENV_SECRET] {
        assert!(!seen.printed.contains(secret), "{}", seen.printed);
        assert!(!seen.json_text.contains(secret), "{}", seen.json_text);
    }
    assert_eq!(seen.typed, "", "{}", seen.answer);
}

#[test]
fn under_the_default_every_escape_fails_and_no_secret_reaches_a_report() {
    let escape = Escape::new();
    let seen = escape.run("", &[]);
    let answer = &seen.answer;
    assert!(!got(answer, "write") && !seen.wrote, "{answer}");
    for read in READS {
        assert!(!got(answer, read), "{read}: {answer}");
    }
    no_secret(&seen);
    // The report says which key would have allowed the first denied action.
    assert!(
        seen.printed.contains("isolation: a permission error on `")
            && seen.printed.contains("isolation: { writable: ["),
        "{}",
        seen.printed
    );
    assert!(!got(answer, "tcp4") && !got(answer, "tcp6"), "{answer}");
    assert!(!got(answer, "signal"), "{answer}");
    for attempt in AROUND {
        assert!(!got(answer, attempt), "{attempt}: {answer}");
    }
    assert!(!seen.changed && !seen.reached, "{answer}");
    assert_eq!((seen.tcp, seen.udp), ([false; 2], [false; 2]), "{answer}");
    let layers = seen.json["isolation"].as_array().expect("isolation layers");
    for layer in [
        "writes",
        "home",
        "environment",
        "session",
        "capabilities",
        "syscalls",
    ] {
        assert!(layers.contains(&serde_json::json!(layer)), "{layers:?}");
    }
    // This machine may make namespaces; where it may not, a note said so.
    assert!(
        layers.contains(&serde_json::json!("network-namespace"))
            || seen.printed.contains("note: isolation:"),
        "{layers:?}\n{}",
        seen.printed
    );
    // Without isolation everything lands: each check above can fail.
    let open = escape.run("", &["--no-isolation"]);
    assert!(got(&open.answer, "write") && open.wrote, "{}", open.answer);
    assert!(open.printed.contains(SECRET), "{}", open.answer);
    assert!(got(&open.answer, "signal"), "{}", open.answer);
    // SAFETY: geteuid only reads this process's credentials.
    let root = unsafe { libc::geteuid() } == 0;
    for attempt in AROUND {
        // Devices, capabilities and chroot are root's (a user namespace where the
        // machine lets a user make one, which this test does not count on), and
        // so is another process's memory where Yama keeps it to ancestors.
        let roots = [
            "mknod",
            "capabilities",
            "chroot",
            "userns-chroot",
            "parent-memory",
        ]
        .contains(&attempt);
        if root || !roots {
            assert!(got(&open.answer, attempt), "{attempt}: {}", open.answer);
        }
    }
    assert!(open.printed.contains(ENV_SECRET), "{}", open.answer);
    // The test's terminal is the server's own controlling terminal there: typing
    // into it needs no capability.
    assert_eq!(open.typed, "#escaped\n#pts\n", "{}", open.answer);
    assert!(open.changed && open.reached, "{}", open.answer);
    assert_eq!(
        (open.tcp, open.udp),
        ([true; 2], [true; 2]),
        "{}",
        open.answer
    );
    assert_eq!(open.json["isolation"], serde_json::json!([]));
    assert!(!open.printed.contains("isolation: a "), "{}", open.printed);
}

#[test]
fn each_isolation_key_opens_exactly_its_own_escape() {
    let escape = Escape::new();
    let outside = escape.path("outside");
    let seen = escape.run(
        &format!("isolation:\n  writable: [\"{}\"]\n", outside.display()),
        &[],
    );
    assert!(got(&seen.answer, "write") && seen.wrote, "{}", seen.answer);
    assert!(
        READS.iter().all(|r| !got(&seen.answer, r)),
        "{}",
        seen.answer
    );
    assert_eq!(
        (seen.tcp, seen.udp),
        ([false; 2], [false; 2]),
        "{}",
        seen.answer
    );
    no_secret(&seen);

    let seen = escape.run("isolation:\n  keep_home: true\n", &[]);
    assert!(
        READS.iter().all(|r| got(&seen.answer, r)),
        "{}",
        seen.answer
    );
    assert!(seen.answer.contains(SECRET), "{}", seen.answer);
    assert!(
        !got(&seen.answer, "write") && !seen.wrote,
        "{}",
        seen.answer
    );
    assert_eq!(
        (seen.tcp, seen.udp),
        ([false; 2], [false; 2]),
        "{}",
        seen.answer
    );
    let layers = seen.json["isolation"].as_array().expect("layers");
    assert!(!layers.contains(&serde_json::json!("home")), "{layers:?}");

    let seen = escape.run("isolation:\n  allow_network: true\n", &[]);
    assert!(
        got(&seen.answer, "tcp4") && got(&seen.answer, "tcp6"),
        "{}",
        seen.answer
    );
    assert_eq!(
        (seen.tcp, seen.udp),
        ([true; 2], [true; 2]),
        "{}",
        seen.answer
    );
    assert!(
        !got(&seen.answer, "write") && !seen.wrote,
        "{}",
        seen.answer
    );
    assert!(
        READS.iter().all(|r| !got(&seen.answer, r)),
        "{}",
        seen.answer
    );
    no_secret(&seen);
}

/// A server reached over streamable HTTP still answers on its `{port}` with its
/// network cut off: toolspec connects from inside its namespace.
#[test]
fn a_server_over_http_is_reached_under_the_default_isolation() {
    let dir = tempfile::tempdir().expect("tempdir");
    let target = dir.path().join("http.yaml");
    std::fs::write(
        &target,
        format!(
            "name: reference-over-http\n\
             command: [\"{}\", reference-server, --dialect, boris, --root, \"{{root}}\", --transport, http, --port, \"{{port}}\"]\n\
             url: \"http://127.0.0.1:{{port}}/mcp\"\n",
            exe().display()
        ),
    )
    .expect("write target");
    let json = dir.path().join("report.json");
    let output = crate::support::toolspec()
        .args([
            "run",
            "--suite",
            "boris",
            "--filter",
            "success-view",
            "--json",
        ])
        .arg(&json)
        .arg("--target")
        .arg(&target)
        .output()
        .expect("toolspec runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(0), "{stdout}");
    assert!(stdout.contains(" 0 FAIL, 0 ERROR,"), "{stdout}");
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).expect("report")).expect("JSON");
    let layers = report["isolation"].as_array().expect("layers");
    assert!(
        layers.contains(&serde_json::json!("network-namespace"))
            || layers.contains(&serde_json::json!("tcp-ports"))
            || String::from_utf8_lossy(&output.stderr).contains("note: isolation:"),
        "{layers:?}"
    );
}

/// A runaway server ends in an ERROR that names the limit it hit, from the
/// cgroup's counters (processes, memory) or the signal it died of (file size), and
/// the run goes on to its next scenario; without isolation nothing stops the same
/// server, and no limit is named.
#[test]
fn a_runaway_server_is_an_error_naming_the_limit_it_hit_and_the_run_goes_on() {
    let dir = tempfile::tempdir().expect("tempdir");
    let suite = dir.path().join("specs/runaway");
    std::fs::create_dir_all(&suite).expect("suite folder");
    std::fs::write(
        suite.join("suite.yaml"),
        "suite: runaway\ntitle: Runaway\ndialect: bracket-code\nreference:\n  args: [--dialect, boris, --root, \"{root}\"]\n",
    )
    .expect("suite");
    std::fs::write(
        suite.join("case.yaml"),
        "requirement: R\nscenarios:\n  - name: first\n    covers: r/s\n    when: { tool: view, args: { path: \"{root}/a\" } }\n    then: { contains: [\"done\"] }\n  - name: second\n    covers: r/s\n    when: { tool: view, args: { path: \"{root}/b\" } }\n    then: { contains: [\"done\"] }\n",
    )
    .expect("case");
    let run = |mode: &str, limits: &str, more: &[&str]| {
        let target = dir.path().join(format!("{mode}.yaml"));
        std::fs::write(
            &target,
            format!(
                "name: {mode}\ncommand: [bash, \"{}\", {mode}, \"{{root}}\"]\nisolation:\n  limits: {limits}\n",
                repo().join("tests/servers/hostile.sh").display()
            ),
        )
        .expect("target");
        let output = std::process::Command::new(exe())
            .current_dir(repo())
            .arg("--specs")
            .arg(dir.path().join("specs"))
            .args([
                "run", "--suite", "runaway", "--color", "never", "--jobs", "1",
            ])
            .args(["--timeout-ms", "20000", "--target"])
            .arg(&target)
            .args(more)
            .output()
            .expect("toolspec runs");
        format!(
            "{}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        )
    };
    let cases = [
        (
            "fork-bomb",
            "{ pids: 24 }",
            "the server hit its limit of 24 processes (isolation.limits.pids)",
        ),
        (
            "memory-hog",
            "{ memory: 64MiB }",
            "the server hit its memory limit of 64 MiB (isolation.limits.memory) and was killed",
        ),
        (
            "big-file",
            "{ file_size: 1MiB }",
            "the server wrote past its file size limit of 1 MiB (isolation.limits.file_size)",
        ),
    ];
    for (mode, limits, said) in cases {
        let limited = run(mode, limits, &[]);
        if mode != "big-file" && limited.contains("note: isolation: no cgroup can be made here") {
            // Said once per run where the machine gives no cgroup; nothing to prove.
            continue;
        }
        assert_eq!(limited.matches(said).count(), 2, "{mode}:\n{limited}");
        assert!(
            limited.contains("0 PASS, 0 FAIL, 2 ERROR"),
            "{mode}:\n{limited}"
        );
        let open = run(mode, limits, &["--no-isolation"]);
        assert!(!open.contains("(isolation.limits."), "{mode}:\n{open}");
        if mode != "big-file" {
            assert!(open.contains("2 PASS, 0 FAIL, 0 ERROR"), "{mode}:\n{open}");
        }
    }
}

/// The scenarios that lock a fixture file with its mode (`requires: [non-root]`)
/// pass under the default isolation, as root or not: the server is refused, and
/// toolspec still reads back what it must check. Not root, toolspec cannot read a
/// file of mode 000 it owns without lending itself the right first (`.ci/run` runs
/// this module as an unprivileged user too; as root the read needs no lending).
#[test]
fn files_locked_by_their_mode_are_checked_as_root_or_not() {
    for (suite, filter, passing) in [
        ("gemini-cli", "may not read", 1),
        ("gemini-cli", "mode forbids writing", 2),
        ("ikigai", "Permission denied", 4),
    ] {
        let output = std::process::Command::new(exe())
            .current_dir(repo())
            .args([
                "run", "--suite", suite, "--filter", filter, "--color", "never",
            ])
            .output()
            .expect("toolspec runs");
        let printed = String::from_utf8_lossy(&output.stdout);
        assert!(
            printed.contains(&format!("total: {passing} PASS, 0 FAIL, 0 ERROR, 0 SKIP")),
            "{suite} / {filter}:\n{printed}{}",
            String::from_utf8_lossy(&output.stderr)
        );
    }
}
