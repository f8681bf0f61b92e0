//! Overhead benchmarks: what a scenario costs besides the server's own work.
//!
//! A hand-written `harness = false` main (no criterion, to keep compile time low):
//! each bench times with `Instant` and prints min / median / p90 / max and, where it
//! fits, a per-second rate. Figures are printed, never asserted.
//!
//! Run all with `cargo bench --features bench --bench overhead`, or only the benches
//! whose name contains a word with `cargo bench --features bench --bench overhead -- grep`.
//!
//! It lives in the library, behind the `bench` feature, because it times the stages
//! one by one (fixture, session, one call), and those are not public API:
//! `benches/overhead.rs` only hands it the `toolspec` binary cargo built.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::execute::{run_scenario, RunOptions, ScenarioReport, Verdict};
use crate::fixture::Fixture;
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
}

/// Runs the benches named on the command line (all by default) against the
/// reference server served by `toolspec_exe`, printing their figures.
pub fn main(toolspec_exe: &Path) {
    // `cargo bench` passes `--bench`; any other flag is ignored too.
    let filter: Option<String> = std::env::args().skip(1).find(|a| !a.starts_with('-'));
    let benches: [(&str, Bench); 5] = [
        ("session_start_stop", session_start_stop),
        ("one_call", one_call),
        ("suite_serial", suite_serial),
        ("suite_parallel", suite_parallel),
        ("scale_grep", scale_grep),
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
    let ctx = Ctx { suite, target };

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

// ------------------------------------------------------------------ API adapters
//
// The only places that touch `target::{Target, Session}`; adjust here if their
// signatures move.

/// The reference server's argv for `root`, with no scenario settings.
fn argv_for(target: &Target, root: &Path) -> Vec<String> {
    target
        .argv(root, None, &BTreeMap::new())
        .expect("the reference target takes no settings here")
}

/// Spawns the server in `root` and completes MCP `initialize`.
async fn start(target: &Target, argv: &[String], root: &Path) -> Session {
    Session::start(target, argv, root, None, TIMEOUT)
        .await
        .unwrap_or_else(|e| panic!("start the reference server: {}", e.message))
}

// ------------------------------------------------------------------ helpers

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("build a current-thread tokio runtime")
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
        .max_by_key(|(_, files)| (files.len(), files.values().map(spec_bytes).sum::<usize>()))
        .map(|(id, files)| (id, files.clone()))
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
