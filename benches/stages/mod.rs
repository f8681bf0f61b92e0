//! Overhead benchmarks: what a scenario costs besides the server's own work.
//!
//! A hand-written `harness = false` main (no criterion, to keep compile time low):
//! each bench times with `Instant` and prints min / median / p90 / max and, where it
//! fits, a per-second rate. Figures are printed, never asserted.
//!
//! Run all with `cargo bench --features bench --bench overhead`, or only the benches
//! whose name contains a word with `cargo bench --features bench --bench overhead -- grep`.
//!
//! Its files are here, under benches/, but it is compiled into the library (as
//! `toolspec::bench`, behind the `bench` feature) because it times the stages one
//! by one (fixture, session, one call), and those are not public API:
//! `benches/overhead.rs` only hands it the `toolspec` binary cargo built.

mod vs_ripgrep;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::execute::{run_scenario, RunOptions, ScenarioReport, Verdict};
use crate::fixture::{Fixture, Places};
use crate::scenario::{load_suite, FileDetail, FileSpec, Suite};
use crate::server::outcome::CallOutcome;
use crate::server::{Session, Target};
use serde_json::{json, Map, Value};

/// Per-call and initialize timeout: generous, a bench should not time out.
const TIMEOUT: Duration = Duration::from_secs(30);

type Bench = fn(&Ctx);

struct Ctx {
    suite: Suite,
    target: Target,
    /// The `toolspec` binary whose `reference-server` is benched.
    exe: PathBuf,
}

/// Runs the benches named on the command line (all by default) against the
/// reference server served by `toolspec_exe`, printing their figures.
pub fn main(toolspec_exe: &Path) {
    // As `toolspec run` does, before anything else (`TOOLSPEC_NO_SPAWNER` compares).
    crate::server::start_spawner();
    // `cargo bench` passes `--bench`; any other flag is ignored too.
    let filter: Option<String> = std::env::args().skip(1).find(|a| !a.starts_with('-'));
    let benches: [(&str, Bench); 10] = [
        ("session_start_stop", session_start_stop),
        ("one_call", one_call),
        ("suite_serial", suite_serial),
        ("suite_parallel", suite_parallel),
        ("scale_grep", scale_grep),
        ("ripgrep", ripgrep),
        ("bare_lifecycle", bare_lifecycle),
        ("scale_suite", scale_suite),
        ("run_floor", run_floor),
        ("isolation_cost", isolation_cost),
    ];
    let selected: Vec<_> = benches
        .iter()
        .filter(|(name, _)| filter.as_deref().is_none_or(|f| name.contains(f)))
        .collect();
    if selected.is_empty() {
        println!("no bench matches {filter:?}");
        return;
    }

    let suite_dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("specs/boris");
    let suite = load_suite(&suite_dir).unwrap_or_else(|errors| {
        let text: Vec<String> = errors.iter().map(ToString::to_string).collect();
        panic!("cannot load {}: {}", suite_dir.display(), text.join("; "))
    });
    let exe = toolspec_exe.to_path_buf();
    let target = Target::reference(&exe, &suite);
    let ctx = Ctx { suite, target, exe };

    let cpus = std::thread::available_parallelism().map_or(0, |n| n.get());
    println!("toolspec overhead benches (reference server, suite boris, {cpus} CPUs)");
    let started = Instant::now();
    for (name, bench) in selected {
        println!("\n== {name}");
        let t = Instant::now();
        bench(&ctx);
        println!("   ({name} took {})", fmt_dur(t.elapsed()));
    }
    println!("\ntotal {}", fmt_dur(started.elapsed()));
}

// ------------------------------------------------------------------ the benches

/// Spawn + MCP initialize + stop, and the fixture build on its own.
fn session_start_stop(ctx: &Ctx) {
    const WARMUP: usize = 3;
    const ITERS: usize = 50;
    let rt = runtime();
    let empty = Fixture::build(&BTreeMap::new()).expect("build an empty fixture");
    let argv = argv_for(&ctx.target, empty.root());

    let mut starts = Vec::with_capacity(ITERS);
    let mut stop = Vec::with_capacity(ITERS);
    let mut both = Vec::with_capacity(ITERS);
    for i in 0..WARMUP + ITERS {
        let t0 = Instant::now();
        let session = rt.block_on(start(&ctx.target, &argv, empty.root()));
        let t1 = Instant::now();
        rt.block_on(session.stop())
            .expect("the reference server stays in its containment");
        let t2 = Instant::now();
        if i >= WARMUP {
            starts.push(t1 - t0);
            stop.push(t2 - t1);
            both.push(t2 - t0);
        }
    }
    header();
    row("start (spawn + initialize)", &mut starts, "sessions");
    row("stop", &mut stop, "sessions");
    row("start + stop", &mut both, "sessions");

    // Fixture build alone (the drop that removes the tree is not timed).
    let empty_spec = BTreeMap::new();
    let mut t = time_builds(&empty_spec, WARMUP, ITERS);
    row("fixture build: empty", &mut t, "builds");
    let (id, files) = largest_fixture(&ctx.suite);
    let bytes: usize = files.values().map(spec_bytes).sum();
    let mut t = time_builds(&files, WARMUP, ITERS);
    row("fixture build: largest in suite", &mut t, "builds");
    println!(
        "   largest fixture: {id} ({} entries, {bytes} bytes)",
        files.len()
    );
}

/// One `view` call on a session that is already up.
fn one_call(ctx: &Ctx) {
    const WARMUP: usize = 5;
    const ITERS: usize = 200;
    let rt = runtime();
    let mut files = BTreeMap::new();
    let text: String = (1..=40).map(|i| format!("line {i} of notes\n")).collect();
    files.insert("notes.txt".to_string(), FileSpec::Text(text));
    let fixture = Fixture::build(&files).expect("build the view fixture");
    let argv = argv_for(&ctx.target, fixture.root());
    let path = fixture.root().join("notes.txt");
    let args = object(json!({ "path": path.to_string_lossy() }));

    let mut session = rt.block_on(start(&ctx.target, &argv, fixture.root()));
    let mut times = Vec::with_capacity(ITERS);
    for i in 0..WARMUP + ITERS {
        let t = Instant::now();
        let outcome = rt.block_on(session.call("view", args.clone(), TIMEOUT));
        let took = t.elapsed();
        if i == 0 {
            expect_ok(&outcome, "view");
        }
        if i >= WARMUP {
            times.push(took);
        }
    }
    rt.block_on(session.stop())
        .expect("the reference server stays in its containment");
    header();
    row("view (40-line file)", &mut times, "calls");
}

fn suite_serial(ctx: &Ctx) {
    suite_run(ctx, 1);
}

fn suite_parallel(ctx: &Ctx) {
    suite_run(ctx, 2);
}

/// Every boris scenario through `run_scenario` on `jobs` threads, `PASSES` times.
fn suite_run(ctx: &Ctx, jobs: usize) {
    const PASSES: usize = 3;
    let work: Vec<_> = ctx.suite.scenarios().collect();
    let options = RunOptions::default();
    let mut walls = Vec::with_capacity(PASSES);
    let mut all: Vec<ScenarioReport> = Vec::new();
    for _ in 0..PASSES {
        let next = AtomicUsize::new(0);
        let reports: Mutex<Vec<ScenarioReport>> = Mutex::new(Vec::with_capacity(work.len()));
        let started = Instant::now();
        std::thread::scope(|scope| {
            for _ in 0..jobs {
                scope.spawn(|| loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some((file, scenario)) = work.get(i) else {
                        break;
                    };
                    let report = run_scenario(
                        &ctx.suite,
                        &file.stem,
                        scenario,
                        &ctx.target,
                        &options,
                        None,
                    );
                    reports.lock().expect("reports lock").push(report);
                });
            }
        });
        walls.push(started.elapsed());
        all.extend(reports.into_inner().expect("reports lock"));
    }

    let n = work.len();
    let mut tally: BTreeMap<&str, usize> = BTreeMap::new();
    for r in &all {
        *tally.entry(r.verdict.label()).or_default() += 1;
    }
    let verdicts: Vec<String> = tally.iter().map(|(k, v)| format!("{v} {k}")).collect();
    let busy: Duration = all.iter().map(|r| r.elapsed).sum::<Duration>() / PASSES as u32;
    let mut sorted = walls.clone();
    sorted.sort();
    let median_wall = sorted[sorted.len() / 2];
    println!(
        "   jobs={jobs}: {n} scenarios x {PASSES} passes; median wall {} = {:.1} scenarios/s  ({} over all passes)",
        fmt_dur(median_wall),
        n as f64 / median_wall.as_secs_f64(),
        verdicts.join(", ")
    );
    println!(
        "   summed per-scenario time per pass {} (speed-up {:.2}x over that)",
        fmt_dur(busy),
        busy.as_secs_f64() / median_wall.as_secs_f64()
    );
    header();
    row("suite wall (one pass)", &mut walls, "passes");
    let mut times: Vec<Duration> = all.iter().map(|r| r.elapsed).collect();
    row("per scenario", &mut times, "scenarios");

    // Slowest by each scenario's median over the passes.
    let mut by_id: BTreeMap<&str, Vec<Duration>> = BTreeMap::new();
    for r in &all {
        by_id.entry(r.id.as_str()).or_default().push(r.elapsed);
    }
    let mut medians: Vec<(Duration, &str)> = by_id
        .into_iter()
        .map(|(id, mut t)| {
            t.sort();
            (t[t.len() / 2], id)
        })
        .collect();
    medians.sort_by(|a, b| b.cmp(a));
    println!("   slowest (median of {PASSES} passes):");
    for (t, id) in medians.iter().take(3) {
        println!("     {:>9}  {id}", fmt_dur(*t));
    }
    for r in all
        .iter()
        .filter(|r| matches!(r.verdict, Verdict::Fail(_) | Verdict::Error { .. }))
    {
        print!("   not passing: {r}");
    }
}

/// 2,000 small files in nested folders, then `grep` over the root.
fn scale_grep(ctx: &Ctx) {
    const BUILDS: usize = 3;
    const WARMUP: usize = 1;
    const ITERS: usize = 10;
    let files = nested_files();
    let mut builds = Vec::with_capacity(BUILDS);
    let mut fixture = None;
    for _ in 0..BUILDS {
        drop(fixture.take());
        let t = Instant::now();
        fixture = Some(Fixture::build(&files).expect("build the 2,000-file fixture"));
        builds.push(t.elapsed());
    }
    let fixture = fixture.expect("built at least once");
    let root = fixture.root().to_string_lossy().into_owned();

    let rt = runtime();
    let argv = argv_for(&ctx.target, fixture.root());
    let mut session = rt.block_on(start(&ctx.target, &argv, fixture.root()));
    let modes = [
        ("files_with_matches", "grep files_with_matches"),
        ("content", "grep content"),
    ];
    let mut results = Vec::new();
    for (mode, label) in modes {
        let args = object(json!({ "pattern": "needle", "path": root, "output_mode": mode }));
        let mut times = Vec::with_capacity(ITERS);
        let mut lines = 0;
        for i in 0..WARMUP + ITERS {
            let t = Instant::now();
            let outcome = rt.block_on(session.call("grep", args.clone(), TIMEOUT));
            let took = t.elapsed();
            if i == 0 {
                lines = expect_ok(&outcome, "grep").lines().count();
            }
            if i >= WARMUP {
                times.push(took);
            }
        }
        results.push((label, times, lines));
    }
    rt.block_on(session.stop())
        .expect("the reference server stays in its containment");

    let bytes: usize = files.values().map(spec_bytes).sum();
    println!(
        "   fixture: {} files, {bytes} bytes, 4 levels deep",
        files.len()
    );
    header();
    row("fixture build (2,000 files)", &mut builds, "builds");
    for (label, mut times, lines) in results {
        row(label, &mut times, "calls");
        println!("     ({lines} result lines)");
    }
}

/// The reference server's grep, glob and ranged view against ripgrep on a
/// 100,000-file tree: CPU, peak RSS and the ratio (see [`vs_ripgrep`]).
fn ripgrep(ctx: &Ctx) {
    vs_ripgrep::run(&ctx.exe);
}

// ------------------------------------------------------------------ API adapters
//
// The only places that touch `target::{Target, Session}`; adjust here if their
// signatures move.

/// The reference server's argv for `root`, with no scenario settings.
/// The harness's cost per scenario against the bare server lifecycle, in the same
/// run: a minimal JSON-RPC client that does nothing else (spawn the reference
/// server over stdio, `initialize`, one `view` call, close stdin, wait), and
/// `run_scenario` on a one-call scenario making the same call, taken in turns so
/// a change in the machine's load falls on both. Then again with `IDLE` idle
/// processes (`sleep`) started by the bench, and once more after they are killed.
fn bare_lifecycle(ctx: &Ctx) {
    const IDLE: usize = 2000;
    let Some((file, scenario)) = ctx.suite.scenarios().find(|(_, s)| {
        s.given.calls.is_empty()
            && s.given.files.iter().next().is_none()
            && s.given.tree.is_none()
            && s.given.settings.is_empty()
            && s.when.0.len() == 1
            && s.when.0[0].tool == "view"
    }) else {
        println!("   no one-call view scenario in the suite");
        return;
    };
    println!("   scenario: {}", ctx.suite.scenario_id(file, scenario));
    let root = tempfile::tempdir().expect("a root for the bare client");
    let root_path = root.path().canonicalize().expect("canonical root");
    let argv = argv_for(&ctx.target, &root_path);
    let args = serde_json::to_string(&scenario.when.0[0].args.to_map())
        .expect("arguments as JSON")
        .replace("{root}", &root_path.to_string_lossy());
    let measure = |label: &str| {
        // 120 pairs: with 2,000 idle processes a lifecycle takes about 20 ms, and
        // the harness's 1 ms is a difference of two such figures.
        const WARMUP: usize = 3;
        const ITERS: usize = 120;
        let options = RunOptions::default();
        let (mut bare, mut harness) = (Vec::new(), Vec::new());
        let (mut bare_cpu, mut harness_cpu) = (CpuSplit::default(), CpuSplit::default());
        for i in 0..WARMUP + ITERS {
            let cpu = CpuSplit::so_far();
            let t = Instant::now();
            bare_call(&ctx.target.program, &argv, &args);
            let (took, spent) = (t.elapsed(), CpuSplit::so_far().since(cpu));
            let cpu = CpuSplit::so_far();
            let t = Instant::now();
            let report = run_scenario(
                &ctx.suite,
                &file.stem,
                scenario,
                &ctx.target,
                &options,
                None,
            );
            let (h_took, h_spent) = (t.elapsed(), CpuSplit::so_far().since(cpu));
            if i == 0 && !matches!(report.verdict, Verdict::Pass) {
                print!("   not passing: {report}");
            }
            if i >= WARMUP {
                bare.push(took);
                harness.push(h_took);
                bare_cpu.add(spent);
                harness_cpu.add(h_spent);
            }
        }
        // As `row` takes it: the middle one, or the mean of the middle two.
        let median = |t: &mut Vec<Duration>| {
            t.sort();
            let n = t.len();
            if n % 2 == 1 {
                t[n / 2]
            } else {
                (t[n / 2 - 1] + t[n / 2]) / 2
            }
        };
        let (b, h) = (median(&mut bare.clone()), median(&mut harness.clone()));
        let (b_cpu, h_cpu) = (
            bare_cpu.total() / ITERS as u32,
            harness_cpu.total() / ITERS as u32,
        );
        println!("   {label}:");
        header();
        row("bare client (wall)", &mut bare, "lifecycles");
        row("harness run_scenario (wall)", &mut harness, "scenarios");
        println!(
            "   median wall: harness {} - bare {} = {} ({:.2}x); mean CPU (own + children): harness {} - bare {} = {} ({:.2}x)",
            fmt_dur(h),
            fmt_dur(b),
            fmt_dur(h.saturating_sub(b)),
            h.as_secs_f64() / b.as_secs_f64(),
            fmt_dur(h_cpu),
            fmt_dur(b_cpu),
            fmt_dur(h_cpu.saturating_sub(b_cpu)),
            h_cpu.as_secs_f64() / b_cpu.as_secs_f64().max(1e-9),
        );
        println!(
            "   mean CPU split: harness process {} + its children {}; bare client {} + its server {}",
            fmt_dur(harness_cpu.own / ITERS as u32),
            fmt_dur(harness_cpu.children / ITERS as u32),
            fmt_dur(bare_cpu.own / ITERS as u32),
            fmt_dur(bare_cpu.children / ITERS as u32),
        );
        (h.saturating_sub(b), h_cpu.saturating_sub(b_cpu))
    };
    let (before_wall, before_cpu) = measure("machine as it is");
    let mut idle: Vec<std::process::Child> = (0..IDLE)
        .filter_map(|_| {
            std::process::Command::new("sleep")
                .arg("3600")
                .stdin(std::process::Stdio::null())
                .spawn()
                .ok()
        })
        .collect();
    let started = idle.len();
    let (busy_wall, busy_cpu) = measure(&format!("with {started} idle processes"));
    for child in &mut idle {
        let _ = child.kill();
        let _ = child.wait();
    }
    // Again without them: the mean of the quiet runs before and after is what the
    // busy one is set against, so a drift over the bench's run (the first phase
    // ran 15-20% dearer than the second, whichever came first) falls on both.
    let (after_wall, after_cpu) = measure("machine as it is, again");
    let (quiet_wall, quiet_cpu) = ((before_wall + after_wall) / 2, (before_cpu + after_cpu) / 2);
    println!(
        "   harness overhead, quiet (mean of before and after) vs {started} idle processes: wall {} vs {} ({:+.0}%), CPU {} vs {} ({:+.0}%)",
        fmt_dur(quiet_wall),
        fmt_dur(busy_wall),
        percent(busy_wall, quiet_wall),
        fmt_dur(quiet_cpu),
        fmt_dur(busy_cpu),
        percent(busy_cpu, quiet_cpu),
    );
}

fn percent(now: Duration, before: Duration) -> f64 {
    (now.as_secs_f64() / before.as_secs_f64().max(1e-9) - 1.0) * 100.0
}

/// CPU time of this process and of its reaped children, apart: the harness's own
/// work and its servers' (supervisors included) are different costs.
#[derive(Default, Clone, Copy)]
struct CpuSplit {
    own: Duration,
    children: Duration,
}

impl CpuSplit {
    /// So far, since this process started.
    fn so_far() -> Self {
        let read = |who| {
            // SAFETY: getrusage fills in the plain struct it is given.
            let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
            unsafe { libc::getrusage(who, &mut usage) };
            let seconds =
                |t: libc::timeval| Duration::new(t.tv_sec as u64, t.tv_usec as u32 * 1000);
            seconds(usage.ru_utime) + seconds(usage.ru_stime)
        };
        CpuSplit {
            own: read(libc::RUSAGE_SELF),
            children: read(libc::RUSAGE_CHILDREN),
        }
    }

    fn since(self, start: CpuSplit) -> CpuSplit {
        CpuSplit {
            own: self.own.saturating_sub(start.own),
            children: self.children.saturating_sub(start.children),
        }
    }

    fn add(&mut self, more: CpuSplit) {
        self.own += more.own;
        self.children += more.children;
    }

    fn total(self) -> Duration {
        self.own + self.children
    }
}

/// One server lifecycle with nothing but JSON-RPC lines: spawn `program` with
/// `argv`, initialize, call `view` with `args` (JSON), close stdin and wait for the
/// exit.
fn bare_call(program: &Path, argv: &[String], args: &str) {
    use std::io::{BufRead, BufReader, Write};
    use std::process::{Command, Stdio};
    let mut child = Command::new(program)
        .args(argv)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn the reference server");
    let mut stdin = child.stdin.take().expect("stdin");
    let mut stdout = BufReader::new(child.stdout.take().expect("stdout"));
    let mut line = String::new();
    let mut answer = |stdin: &mut std::process::ChildStdin, message: &str, id: &str| {
        stdin
            .write_all(message.as_bytes())
            .expect("write a request");
        stdin.write_all(b"\n").expect("write a request");
        loop {
            line.clear();
            if stdout.read_line(&mut line).unwrap_or(0) == 0 {
                panic!("the server closed stdout before answering {id}");
            }
            if line.contains(id) {
                return;
            }
        }
    };
    answer(
        &mut stdin,
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bare","version":"0"}}}"#,
        r#""id":1"#,
    );
    stdin
        .write_all(b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n")
        .expect("write the notification");
    answer(
        &mut stdin,
        &format!(
            r#"{{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{{"name":"view","arguments":{args}}}}}"#
        ),
        r#""id":2"#,
    );
    drop(stdin);
    child.wait().expect("the server exits");
}

/// 10,000 one-call scenarios (100 files of 100, each with a fixture file, a
/// `contains` and two `matches` regexes) written to a temporary folder, and
/// `toolspec` run on them as a user runs it: `list`, a `run` filtered to one
/// scenario (the cost of loading and checking them all), a whole `run` with
/// `--json` and `--junit`, and the filtered `run` again, once the whole run has
/// left the time of every scenario in the cache folder. Each command's CPU time
/// and peak memory are its own, as the kernel accounts them (`wait4`). Each build
/// has a cache folder of its own in the temporary folder, empty as the bench
/// starts, so the figures do not depend on what earlier runs left in the user's.
/// With `TOOLSPEC_BENCH_BEFORE` naming another `toolspec` (an earlier build), the
/// two run each command in turn, so both are measured on the machine as it is.
fn scale_suite(ctx: &Ctx) {
    const FILES: usize = 100;
    const PER_FILE: usize = 100;
    let dir = tempfile::tempdir().expect("a temporary folder");
    let specs = dir.path().join("specs");
    write_generated_suite(&specs.join("big"), FILES, PER_FILE);
    std::fs::create_dir_all(dir.path().join("fixtures")).expect("fixtures folder");
    let specs = specs.to_string_lossy().into_owned();
    let json = dir
        .path()
        .join("report.json")
        .to_string_lossy()
        .into_owned();
    let junit = dir.path().join("report.xml").to_string_lossy().into_owned();
    let mut builds = vec![("this build", ctx.exe.clone())];
    if let Some(before) = std::env::var_os("TOOLSPEC_BENCH_BEFORE") {
        builds.insert(0, ("before", PathBuf::from(before)));
    }
    let scenarios = (FILES * PER_FILE) as f64;
    println!(
        "   {:<44} {:>9} {:>9} {:>9} {:>12}",
        "command (10,000 scenarios)", "wall", "cpu", "peak MiB", "cpu/scenario"
    );
    let filter = vec!["run", "--suite", "big", "--filter", "gen-000::view 0"];
    let commands: [(&str, Vec<&str>); 4] = [
        ("list --suite big", vec!["list", "--suite", "big"]),
        ("run --filter (one scenario)", filter.clone()),
        (
            "run --json --junit (all)",
            vec!["run", "--suite", "big", "--json", &json, "--junit", &junit],
        ),
        ("run --filter, every time kept", filter),
    ];
    for (what, args) in commands {
        let mut argv = vec!["--specs", specs.as_str()];
        argv.extend(args);
        for (k, (build, exe)) in builds.iter().enumerate() {
            let what = match builds.len() {
                1 => what.to_string(),
                _ => format!("{what} [{build}]"),
            };
            let cache = dir.path().join(format!("cache-{k}"));
            let Some(usage) = measured_in(exe, &argv, &[("TOOLSPEC_CACHE_DIR", cache.as_os_str())])
            else {
                println!("   {what:<44} (could not run)");
                continue;
            };
            println!(
                "   {what:<44} {:>9} {:>9} {:>9.1} {:>12}",
                fmt_dur(usage.wall),
                fmt_dur(usage.cpu),
                usage.peak_kib as f64 / 1024.0,
                fmt_dur(usage.cpu.div_f64(scenarios)),
            );
        }
    }
}

/// `toolspec run` of every built-in suite against the bundled server, beside its
/// floor: the longer of its slowest scenario (from the run's own JSON report) and
/// its CPU time spread over the cores; nothing can finish sooner. With
/// `TOOLSPEC_BENCH_BEFORE` naming another `toolspec` (an earlier build), the two
/// run in turn, so both are measured on the machine as it is.
fn run_floor(ctx: &Ctx) {
    const RUNS: usize = 3;
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let dir = tempfile::tempdir().expect("a temporary folder");
    let json = dir.path().join("report.json");
    let json_arg = json.to_string_lossy().into_owned();
    let mut builds = vec![("this build", ctx.exe.clone())];
    if let Some(before) = std::env::var_os("TOOLSPEC_BENCH_BEFORE") {
        builds.insert(0, ("before", PathBuf::from(before)));
    }
    println!(
        "   {:<12} {:>9} {:>9} {:>10} {:>10} {:>12}",
        "build", "wall", "cpu", "slowest", "floor", "wall/floor"
    );
    for run in 0..=RUNS {
        for (name, exe) in &builds {
            let Some(usage) = measured(exe, &["run", "--json", &json_arg]) else {
                println!("   {name:<12} (could not run)");
                continue;
            };
            let slowest = slowest_scenario(&json).unwrap_or_default();
            let floor = slowest.max(usage.cpu.div_f64(cores as f64));
            // The first round warms the caches (and the durations it keeps).
            if run == 0 {
                continue;
            }
            println!(
                "   {name:<12} {:>9} {:>9} {:>10} {:>10} {:>12.2}",
                fmt_dur(usage.wall),
                fmt_dur(usage.cpu),
                fmt_dur(slowest),
                fmt_dur(floor),
                usage.wall.as_secs_f64() / floor.as_secs_f64().max(1e-9),
            );
        }
    }
}

/// What isolation costs: `toolspec run` of every suite, in turn with and without
/// `--no-isolation`, on the machine as it is; CPU (toolspec, its supervisors and
/// servers, as the kernel counts them when each is reaped) per scenario of each,
/// and the difference. Namespaces the kernel tears down later, in its own workers,
/// are not in these figures.
fn isolation_cost(ctx: &Ctx) {
    const RUNS: usize = 5;
    let dir = tempfile::tempdir().expect("a temporary folder");
    let json = dir.path().join("report.json");
    let json_arg = json.to_string_lossy().into_owned();
    let ways: [(&str, &[&str]); 2] = [("isolated", &[]), ("no-isolation", &["--no-isolation"])];
    let mut per_scenario: [Vec<Duration>; 2] = [Vec::new(), Vec::new()];
    println!(
        "   {:<14} {:>9} {:>9} {:>10}",
        "way", "wall", "cpu", "cpu/scen"
    );
    for run in 0..=RUNS {
        for (i, (name, extra)) in ways.iter().enumerate() {
            let mut argv = vec!["run", "--json", json_arg.as_str()];
            argv.extend_from_slice(extra);
            let Some(usage) = measured(&ctx.exe, &argv) else {
                println!("   {name:<14} (could not run)");
                continue;
            };
            let scenarios = scenario_count(&json).unwrap_or(1).max(1);
            let each = usage.cpu / scenarios as u32;
            // The first round warms the caches.
            if run == 0 {
                continue;
            }
            per_scenario[i].push(each);
            println!(
                "   {name:<14} {:>9} {:>9} {:>10}",
                fmt_dur(usage.wall),
                fmt_dur(usage.cpu),
                fmt_dur(each)
            );
        }
    }
    let median = |times: &mut Vec<Duration>| {
        times.sort();
        times.get(times.len() / 2).copied().unwrap_or_default()
    };
    let [isolated, open] = &mut per_scenario;
    let (isolated, open) = (median(isolated), median(open));
    println!(
        "   median CPU per scenario: isolated {}, without {}, isolation adds {:.3} ms",
        fmt_dur(isolated),
        fmt_dur(open),
        (isolated.as_secs_f64() - open.as_secs_f64()) * 1e3
    );
}

/// How many scenarios a JSON report holds.
fn scenario_count(report: &Path) -> Option<usize> {
    let text = std::fs::read_to_string(report).ok()?;
    let doc: Value = serde_json::from_str(&text).ok()?;
    Some(doc["scenarios"].as_array()?.len())
}

/// The longest `elapsed_ms` of a JSON report's scenarios.
fn slowest_scenario(report: &Path) -> Option<Duration> {
    let text = std::fs::read_to_string(report).ok()?;
    let doc: Value = serde_json::from_str(&text).ok()?;
    doc["scenarios"]
        .as_array()?
        .iter()
        .filter_map(|s| s["elapsed_ms"].as_u64())
        .max()
        .map(Duration::from_millis)
}

/// What one finished command cost.
struct Usage {
    wall: Duration,
    /// User and system time.
    cpu: Duration,
    /// Its largest resident set, in KiB.
    peak_kib: i64,
}

/// Runs `exe` with `argv` (its output thrown away) and reads its own usage from the
/// kernel when it is reaped.
fn measured(exe: &Path, argv: &[&str]) -> Option<Usage> {
    measured_in(exe, argv, &[])
}

/// [`measured`], with `env` set for the command besides what it inherits.
fn measured_in(exe: &Path, argv: &[&str], env: &[(&str, &std::ffi::OsStr)]) -> Option<Usage> {
    use std::process::{Command, Stdio};
    let started = Instant::now();
    let child = Command::new(exe)
        .args(argv)
        .envs(env.iter().copied())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .ok()?;
    let mut status = 0;
    // SAFETY: rusage is plain data that wait4 fills in; the pid is our own child,
    // reaped here and nowhere else.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let reaped = unsafe { libc::wait4(child.id() as libc::pid_t, &mut status, 0, &mut usage) };
    let wall = started.elapsed();
    if reaped <= 0 {
        return None;
    }
    let seconds = |t: libc::timeval| Duration::new(t.tv_sec as u64, t.tv_usec as u32 * 1000);
    Some(Usage {
        wall,
        cpu: seconds(usage.ru_utime) + seconds(usage.ru_stime),
        peak_kib: usage.ru_maxrss,
    })
}

/// A suite `big` of `files` files of `per_file` scenarios each in `dir`.
fn write_generated_suite(dir: &Path, files: usize, per_file: usize) {
    std::fs::create_dir_all(dir).expect("suite folder");
    let write = |name: &str, text: &str| {
        std::fs::write(dir.join(name), text).unwrap_or_else(|e| panic!("cannot write {name}: {e}"))
    };
    write(
        "suite.yaml",
        "suite: big\ntitle: Generated for the scale bench\ndialect: bracket-code\ntools: [view]\nversion: 1\nreference:\n  args: [--dialect, boris, --root, \"{root}\"]\ncall_timeout_ms: 10000\n",
    );
    write(
        "clauses.yaml",
        &format!(
            "documents:\n  - name: \"Generated\"\n    file: \"generated.txt\"\n    upstream: \"Generated by the scale bench; it lives nowhere.\"\n    sha256: \"{}\"\n    clauses:\n      - {{ id: \"gen/view\", line: 1, title: \"View\" }}\n",
            "0".repeat(64)
        ),
    );
    for f in 0..files {
        let mut text = format!("requirement: Generated requirement {f}\nscenarios:\n");
        for s in 0..per_file {
            text.push_str(&format!(
                "  - name: view {s} of {f}\n    covers: gen/view\n    given:\n      files:\n        a.txt: \"line {s}\\nsecond line\\n\"\n    when: {{ tool: view, args: {{ path: \"{{root}}/a.txt\" }} }}\n    then:\n      is_error: false\n      contains: [\"line {s}\"]\n      matches: [\"line [0-9]+\", \"sec(o|0)nd\\\\s+line\"]\n\n"
            ));
        }
        write(&format!("gen-{f:03}.yaml"), &text);
    }
}

fn argv_for(target: &Target, root: &Path) -> Vec<String> {
    target
        .argv(root, None, &BTreeMap::new())
        .expect("the reference target takes no settings here")
}

/// Spawns the server in `root` and completes MCP `initialize`.
async fn start(target: &Target, argv: &[String], root: &Path) -> Session {
    Session::start(target, argv, Places::root_only(root), None, TIMEOUT)
        .await
        .unwrap_or_else(|e| panic!("start the reference server: {}", e.message))
}

// ------------------------------------------------------------------ helpers

fn runtime() -> tokio::runtime::Runtime {
    crate::server::runtime::thread_runtime().expect("build a current-thread tokio runtime")
}

fn object(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        other => panic!("expected a JSON object, got {other}"),
    }
}

/// The text of a non-error tool result; panics with the outcome otherwise.
fn expect_ok(outcome: &CallOutcome, tool: &str) -> String {
    match outcome {
        CallOutcome::Result(r) if !r.is_error() => r.text.clone(),
        other => panic!("{tool} did not succeed: {}", other.summary()),
    }
}

fn time_builds(files: &BTreeMap<String, FileSpec>, warmup: usize, iters: usize) -> Vec<Duration> {
    let mut times = Vec::with_capacity(iters);
    for i in 0..warmup + iters {
        let t = Instant::now();
        let fixture = Fixture::build(files).expect("build a fixture");
        let took = t.elapsed();
        drop(fixture);
        if i >= warmup {
            times.push(took);
        }
    }
    times
}

/// The scenario whose fixture has the most entries (then the most bytes).
fn largest_fixture(suite: &Suite) -> (String, BTreeMap<String, FileSpec>) {
    suite
        .scenarios()
        .map(|(file, s)| (suite.scenario_id(file, s), &s.given.files))
        .max_by_key(|(_, files)| {
            (
                files.iter().count(),
                files.values().map(spec_bytes).sum::<usize>(),
            )
        })
        .map(|(id, files)| {
            let files = files.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
            (id, files)
        })
        .expect("the boris suite has scenarios")
}

/// Roughly how many bytes a fixture entry writes.
fn spec_bytes(spec: &FileSpec) -> usize {
    match spec {
        FileSpec::Text(t) => t.len(),
        FileSpec::Detailed(detail) => {
            let FileDetail {
                text, bytes, size, ..
            } = &**detail;
            text.as_ref().map(String::len).unwrap_or(0)
                + bytes.as_ref().map(|b| b.0.len()).unwrap_or(0)
                + size.unwrap_or(0) as usize
        }
    }
}

/// `d{0..9}/e{0..4}/f{0..3}/file{0..9}.txt`: 2,000 files, one in seven with "needle".
fn nested_files() -> BTreeMap<String, FileSpec> {
    let mut files = BTreeMap::new();
    let mut n = 0usize;
    for d in 0..10 {
        for e in 0..5 {
            for f in 0..4 {
                for i in 0..10 {
                    let mut text = format!("file {n}\nsome ordinary text here\n");
                    if n.is_multiple_of(7) {
                        text.push_str("a needle in the haystack\n");
                    }
                    text.push_str("the end\n");
                    files.insert(format!("d{d}/e{e}/f{f}/file{i}.txt"), FileSpec::Text(text));
                    n += 1;
                }
            }
        }
    }
    files
}

// ------------------------------------------------------------------ the table

fn header() {
    println!(
        "   {:<32} {:>5} {:>10} {:>10} {:>10} {:>10} {:>18}",
        "what", "n", "min", "median", "p90", "max", "per second"
    );
}

/// One table row; `unit` names what the per-second rate (1 / median) counts.
fn row(what: &str, times: &mut [Duration], unit: &str) {
    if times.is_empty() {
        println!("   {what:<32} (no samples)");
        return;
    }
    times.sort();
    let n = times.len();
    let pick = |q: f64| times[((n as f64 * q).ceil() as usize).clamp(1, n) - 1];
    let median = if n % 2 == 1 {
        times[n / 2]
    } else {
        (times[n / 2 - 1] + times[n / 2]) / 2
    };
    let rate = if median.is_zero() {
        String::from("-")
    } else {
        format!("{:.1} {unit}", 1.0 / median.as_secs_f64())
    };
    println!(
        "   {what:<32} {n:>5} {:>10} {:>10} {:>10} {:>10} {rate:>18}",
        fmt_dur(times[0]),
        fmt_dur(median),
        fmt_dur(pick(0.9)),
        fmt_dur(times[n - 1]),
    );
}

fn fmt_dur(d: Duration) -> String {
    let s = d.as_secs_f64();
    if s >= 1.0 {
        format!("{s:.2} s")
    } else if s >= 1e-3 {
        format!("{:.2} ms", s * 1e3)
    } else {
        format!("{:.1} µs", s * 1e6)
    }
}
