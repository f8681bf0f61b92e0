//! The reference server's search against ripgrep's, on one generated tree.
//!
//! Builds a tree of 100,000 text files (about 186 MiB; `TOOLSPEC_BENCH_FILES`
//! sets another count) and one large file beside it, then times each search
//! through a whole MCP call (`toolspec reference-server --dialect boris`,
//! spawned, initialized, one `tools/call`, stdin closed) and `rg` on the same
//! tree, in the same run. Each process's CPU (user + system) comes from
//! `wait4`, so the server's figure includes its start (about 8 ms); ripgrep
//! runs on all cores, and CPU is what is compared. Peak RSS is what
//! `/usr/bin/time` reports for the process it runs (where it is installed):
//! a process spawned straight from this one would report this one's peak
//! when that is higher, since Linux carries it over `exec`. For the same
//! reason the answers are read a piece at a time, never held whole.
//! With `TOOLSPEC_BENCH_BEFORE` naming another `toolspec` binary (an older
//! build), its server is timed too, for before/after figures in one run.
//!
//! Run with `cargo bench --features bench --bench overhead -- ripgrep`.

use std::ffi::OsString;
use std::fs;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

/// Files in the generated tree unless `TOOLSPEC_BENCH_FILES` says otherwise.
const DEFAULT_FILES: usize = 100_000;
/// Files per leaf folder (folders are two levels deep).
const FILES_PER_DIR: usize = 100;
/// Leaf folders per top folder.
const DIRS_PER_TOP: usize = 10;
/// Lines of the large file viewed by range.
const BIG_FILE_LINES: usize = 600_000;
/// The server's file-size limit here: the large file must fit under it.
const MAX_FILE_SIZE: &str = "64MB";
/// A word put in one file of every [`RARE_EVERY`]: few matches.
const RARE_WORD: &str = "qzxneedle";
const RARE_EVERY: usize = 22;
/// Words the lines are made of; `common` is in most lines: many matches.
const WORDS: [&str; 16] = [
    "alpha", "common", "delta", "gamma", "lambda", "omega", "sigma", "theta", "kappa", "common",
    "zeta", "beta", "epsilon", "iota", "rho", "common",
];

/// What one process cost.
#[derive(Debug, Clone, Copy)]
struct Cost {
    cpu: Duration,
    wall: Duration,
    /// `None` without `/usr/bin/time`.
    peak_rss_kib: Option<u64>,
}

/// Where `/usr/bin/time` measures peak RSS.
const TIME: &str = "/usr/bin/time";

/// `program args` to spawn, under `/usr/bin/time` where it is installed
/// (writing the peak RSS in KiB to `report`).
fn measured(program: &Path, args: &[OsString], report: &Path) -> Command {
    if Path::new(TIME).is_file() {
        let mut command = Command::new(TIME);
        command
            .args(["-f", "%M", "-o"])
            .arg(report)
            .arg(program)
            .args(args);
        command
    } else {
        let mut command = Command::new(program);
        command.args(args);
        command
    }
}

/// The peak RSS `/usr/bin/time` wrote to `report`, if it did.
fn peak_rss(report: &Path) -> Option<u64> {
    let text = fs::read_to_string(report).ok()?;
    text.lines().last()?.trim().parse().ok()
}

fn mib(kib: Option<u64>) -> String {
    kib.map_or_else(
        || "-".to_string(),
        |kib| format!("{:.1}", kib as f64 / 1024.0),
    )
}

/// One comparison: a server call and the `rg` command that does the same.
struct Case {
    label: &'static str,
    tool: &'static str,
    arguments: Value,
    rg: Vec<String>,
}

/// Runs the comparison with the server of `toolspec_exe`.
pub(super) fn run(toolspec_exe: &Path) {
    let Some(rg) = find_rg() else {
        println!("   skipped: no `rg` on PATH (apt-get install ripgrep, or cargo install ripgrep)");
        return;
    };
    let files = std::env::var("TOOLSPEC_BENCH_FILES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(DEFAULT_FILES);
    let dir = tempfile::tempdir().expect("a temporary folder for the tree");
    let root = fs::canonicalize(dir.path()).expect("the temporary folder's real path");
    let t = Instant::now();
    let bytes = build_tree(&root.join("tree"), files);
    let big = build_big_file(&root.join("big.txt"));
    println!(
        "   tree: {files} files, {:.1} MiB; big.txt: {BIG_FILE_LINES} lines, {:.1} MiB (built in {:.1} s)",
        bytes as f64 / 1048576.0,
        big as f64 / 1048576.0,
        t.elapsed().as_secs_f64()
    );
    let tree = root.join("tree").display().to_string();
    let big_path = root.join("big.txt").display().to_string();
    let cases = cases(&tree, &big_path);
    let report = root.join("time-report");
    let mut servers = vec![("server", toolspec_exe.to_path_buf())];
    if let Some(before) = std::env::var_os("TOOLSPEC_BENCH_BEFORE") {
        servers.push(("before", PathBuf::from(before)));
    }
    println!(
        "   {:<30} {:>8} {:>9} {:>8} {:>9}  {:>8} {:>9} {:>9}",
        "case", "rg cpu", "rg MiB", "who", "cpu", "wall", "MiB", "cpu / rg"
    );
    for case in &cases {
        let rg_cost = if case.rg.is_empty() {
            None
        } else {
            Some(run_rg(&rg, &case.rg, &report))
        };
        for (who, exe) in &servers {
            let cost = call_server(exe, &root, case, &report);
            let (rg_cpu, rg_mib, ratio) = match rg_cost {
                Some(rg) => (
                    format!("{:.3}", rg.cpu.as_secs_f64()),
                    mib(rg.peak_rss_kib),
                    format!(
                        "{:.2}x",
                        cost.cpu.as_secs_f64() / rg.cpu.as_secs_f64().max(1e-6)
                    ),
                ),
                None => ("-".into(), "-".into(), "-".into()),
            };
            println!(
                "   {:<30} {:>8} {:>9} {:>8} {:>9.3}  {:>8.3} {:>9} {:>9}",
                case.label,
                rg_cpu,
                rg_mib,
                who,
                cost.cpu.as_secs_f64(),
                cost.wall.as_secs_f64(),
                mib(cost.peak_rss_kib),
                ratio
            );
        }
    }
}

fn cases(tree: &str, big: &str) -> Vec<Case> {
    let grep = |label, pattern: &str, mode: &str, flag: Option<&str>| Case {
        label,
        tool: "grep",
        arguments: json!({ "pattern": pattern, "path": tree, "output_mode": mode }),
        rg: flag
            .into_iter()
            .map(str::to_string)
            .chain([pattern.to_string(), tree.to_string()])
            .collect(),
    };
    vec![
        grep("grep content, few", RARE_WORD, "content", Some("-n")),
        grep("grep count, few", RARE_WORD, "count", Some("-c")),
        grep(
            "grep files, few",
            RARE_WORD,
            "files_with_matches",
            Some("-l"),
        ),
        grep("grep content, many", "common", "content", Some("-n")),
        grep("grep count, many", "common", "count", Some("-c")),
        grep(
            "grep files, many",
            "common",
            "files_with_matches",
            Some("-l"),
        ),
        Case {
            label: "glob **/*7.txt",
            tool: "glob",
            arguments: json!({ "pattern": "**/*7.txt", "path": tree }),
            rg: ["--files", "-g", "*7.txt", tree]
                .into_iter()
                .map(str::to_string)
                .collect(),
        },
        Case {
            label: "view lines 1000-1009 of big",
            tool: "view",
            arguments: json!({ "path": big, "view_range": [1000, 1009] }),
            rg: Vec::new(),
        },
    ]
}

/// Writes `files` files of about 1.9 KiB each under `root`, two folders
/// deep; returns the bytes written.
fn build_tree(root: &Path, files: usize) -> u64 {
    let mut random = Xorshift(0x9e37_79b9_7f4a_7c15);
    let mut bytes = 0u64;
    let mut text = String::new();
    for i in 0..files {
        let dir = root
            .join(format!("top{:03}", i / (FILES_PER_DIR * DIRS_PER_TOP)))
            .join(format!("sub{:02}", (i / FILES_PER_DIR) % DIRS_PER_TOP));
        if i % FILES_PER_DIR == 0 {
            fs::create_dir_all(&dir).expect("create a folder of the tree");
        }
        text.clear();
        let lines = 24 + random.below(12);
        let rare_line = (i % RARE_EVERY == 0).then(|| random.below(lines));
        for line in 0..lines {
            if rare_line == Some(line) {
                text.push_str(RARE_WORD);
                text.push(' ');
            }
            for _ in 0..8 + random.below(4) {
                text.push_str(WORDS[random.below(WORDS.len())]);
                text.push(' ');
            }
            text.push('\n');
        }
        fs::write(dir.join(format!("file{i:06}.txt")), &text).expect("write a file of the tree");
        bytes += text.len() as u64;
    }
    bytes
}

/// Writes the large file viewed by range; returns its size.
fn build_big_file(path: &Path) -> u64 {
    let mut out = std::io::BufWriter::new(fs::File::create(path).expect("create big.txt"));
    let mut bytes = 0u64;
    for n in 1..=BIG_FILE_LINES {
        let line = format!("line {n:07} of the large file, padded to look like source text\n");
        out.write_all(line.as_bytes()).expect("write big.txt");
        bytes += line.len() as u64;
    }
    out.flush().expect("write big.txt");
    bytes
}

/// A small deterministic generator, so every run builds the same tree.
struct Xorshift(u64);

impl Xorshift {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as usize
    }
}

fn find_rg() -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join("rg"))
        .find(|candidate| candidate.is_file())
}

/// Runs `rg args` with its output read and dropped.
fn run_rg(rg: &Path, args: &[String], report: &Path) -> Cost {
    let started = Instant::now();
    let args: Vec<OsString> = args.iter().map(OsString::from).collect();
    let _ = fs::remove_file(report);
    let mut child = measured(rg, &args, report)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start rg");
    let mut out = child.stdout.take().expect("rg's stdout");
    std::io::copy(&mut out, &mut std::io::sink()).expect("read rg's output");
    let cost = reap(child.id(), started, report);
    drop(child);
    cost
}

/// Starts the reference server of `exe` in `root`, makes `case`'s call
/// (after `initialize`), checks that it answered without an error, closes
/// its stdin and waits for it.
fn call_server(exe: &Path, root: &Path, case: &Case, report: &Path) -> Cost {
    let started = Instant::now();
    let args: Vec<OsString> = [
        "reference-server",
        "--dialect",
        "boris",
        "--max-file-size",
        MAX_FILE_SIZE,
        "--root",
    ]
    .into_iter()
    .map(OsString::from)
    .chain([root.as_os_str().to_os_string()])
    .collect();
    let _ = fs::remove_file(report);
    let mut child = measured(exe, &args, report)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start the reference server");
    let mut stdin = child.stdin.take().expect("the server's stdin");
    let mut stdout = BufReader::new(child.stdout.take().expect("the server's stdout"));
    let messages = [
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-03-26", "capabilities": {},
            "clientInfo": {"name": "toolspec-bench", "version": "0"}}}),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
            "params": {"name": case.tool, "arguments": case.arguments}}),
    ];
    for message in &messages {
        writeln!(stdin, "{message}").expect("write to the server");
    }
    stdin.flush().expect("write to the server");
    let mut lines = AnswerLines::default();
    loop {
        let chunk = stdout.fill_buf().expect("read the server's answer");
        assert!(
            !chunk.is_empty(),
            "the server closed its output before answering"
        );
        let read = chunk.len();
        let answered = lines.feed(chunk);
        stdout.consume(read);
        if let Some((head, tail)) = answered {
            let failed = !head.contains("\"result\"") || tail.contains("\"isError\":true");
            assert!(
                !failed,
                "{}: the call failed: {head} ... {tail}",
                case.label
            );
            break;
        }
    }
    drop(stdin);
    std::io::copy(&mut stdout.by_ref(), &mut std::io::sink()).expect("drain the server's output");
    let cost = reap(child.id(), started, report);
    drop(child);
    cost
}

/// The server's answer lines seen a chunk at a time, keeping only the start
/// and end of each line: enough to find the answer to the call (`"id":2`)
/// and whether it failed, without holding a large answer whole.
#[derive(Default)]
struct AnswerLines {
    head: Vec<u8>,
    tail: Vec<u8>,
}

/// Bytes kept of each end of a line.
const KEPT: usize = 256;

impl AnswerLines {
    /// Takes in `chunk`; the start and end of the answer to the call once
    /// its line is complete.
    fn feed(&mut self, mut chunk: &[u8]) -> Option<(String, String)> {
        while !chunk.is_empty() {
            let (part, ended) = match chunk.iter().position(|&b| b == b'\n') {
                Some(at) => (&chunk[..at], true),
                None => (chunk, false),
            };
            let room = KEPT.saturating_sub(self.head.len());
            self.head.extend_from_slice(&part[..part.len().min(room)]);
            self.tail.extend_from_slice(part);
            if self.tail.len() > KEPT {
                self.tail.drain(..self.tail.len() - KEPT);
            }
            chunk = &chunk[(part.len() + usize::from(ended)).min(chunk.len())..];
            if ended {
                let head = String::from_utf8_lossy(&self.head).into_owned();
                let tail = String::from_utf8_lossy(&self.tail).into_owned();
                self.head.clear();
                self.tail.clear();
                if head.contains("\"id\":2") {
                    return Some((head, tail));
                }
            }
        }
        None
    }
}

/// Waits for process `pid` and reads what it cost from the kernel (and the
/// peak RSS from `report`, where `/usr/bin/time` wrote it).
fn reap(pid: u32, started: Instant, report: &Path) -> Cost {
    let pid = libc::pid_t::try_from(pid).expect("a process id fits pid_t");
    let mut status = 0;
    // SAFETY: rusage is plain data that wait4 fills in when it succeeds.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `pid` is our own child, not yet waited for; the pointers are valid.
    let waited = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    assert_eq!(waited, pid, "wait for process {pid}");
    let wall = started.elapsed();
    let seconds = |t: libc::timeval| {
        Duration::from_secs(t.tv_sec as u64) + Duration::from_micros(t.tv_usec as u64)
    };
    Cost {
        cpu: seconds(usage.ru_utime) + seconds(usage.ru_stime),
        wall,
        peak_rss_kib: peak_rss(report),
    }
}
