//! What several test modules share: the `toolspec` binary, the repository it was
//! built from, a suite loaded from it, and one named scenario run against a target.

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use toolspec::{load_suite, run_named, RunOptions, ScenarioReport, Suite, Target};

/// The `toolspec` binary cargo built for these tests.
pub(crate) fn exe() -> &'static Path {
    Path::new(env!("CARGO_BIN_EXE_toolspec"))
}

/// Puts the executable `from` at `to` as well: a hard link where the filesystem
/// allows one (the same file under a path of its own, where a copy of the 65 MB
/// debug binary cost about 60 ms of CPU, 81 times a run), else a copy made by
/// `cp`. Either way the file is never open for writing in this process: tests run
/// on many threads, and a child forked by another test between our open and close
/// would hold it open for writing until its exec, so that starting it failed with
/// "Text file busy" (seen once in 20 loaded runs).
pub(crate) fn place_executable(from: &Path, to: &Path) {
    if std::fs::hard_link(from, to).is_ok() {
        return;
    }
    let status = std::process::Command::new("cp")
        .arg(from)
        .arg(to)
        .status()
        .expect("run cp");
    assert!(
        status.success(),
        "cp {} {} failed",
        from.display(),
        to.display()
    );
}

/// Runs the ignored tests `names` (full paths, each named `own_process_…` so
/// the deep tier's `--ignored` run can skip them) alone in a fresh process of this
/// test binary, one after another, and asserts that all of them passed: for a
/// test that needs what a process holds to itself (its peak memory, becoming a
/// subreaper), away from the tests that run beside it here.
pub(crate) fn run_in_own_process(names: &[&str]) {
    for name in names {
        let test = name.rsplit("::").next().unwrap_or(name);
        assert!(
            test.starts_with("own_process_"),
            "{name}: a test run in its own process is named own_process_…"
        );
    }
    let output = std::process::Command::new(std::env::current_exe().expect("test binary"))
        .arg("--exact")
        .args(names)
        .args(["--ignored", "--nocapture", "--test-threads", "1"])
        .output()
        .expect("run the test binary");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success() && stdout.contains(&format!("{} passed", names.len())),
        "{stdout}\n{stderr}"
    );
}

/// The repository root (where `specs/`, `fixtures/` and `tests/data/` are).
pub(crate) fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Where the tests' `toolspec` keeps its cache (the killers `mutants` tries
/// first): under the target folder, never in the user's own cache.
pub(crate) const CACHE_DIR: &str = concat!(env!("CARGO_TARGET_TMPDIR"), "/toolspec-cache");

/// `toolspec` as a user runs it, from the repository root.
pub(crate) fn toolspec() -> Command {
    let mut cmd = Command::cargo_bin("toolspec").expect("binary");
    cmd.current_dir(repo()).env("TOOLSPEC_CACHE_DIR", CACHE_DIR);
    cmd
}

/// Where the coverage tests' suites and documents are.
pub(crate) const COVERAGE_DATA: &str = "tests/data/coverage";

/// `toolspec --specs tests/data/coverage/repo/specs coverage --suite <suite>`: the
/// suites there index `mini-spec.md`, which is in `tests/data/coverage/shared/seeds`.
pub(crate) fn coverage_of(suite: &str) -> Command {
    let mut cmd = toolspec();
    cmd.args([
        "--specs",
        &format!("{COVERAGE_DATA}/repo/specs"),
        "coverage",
        "--suite",
        suite,
    ]);
    cmd
}

/// The suite in `dir` (relative to the repository root), which must load.
pub(crate) fn suite(dir: &str) -> Suite {
    load_suite(&repo().join(dir)).unwrap_or_else(|e| panic!("{dir} does not load: {e:?}"))
}

/// Runs the scenario named `name` (in any file) of `suite` against `target`, with
/// `timeout_ms` as the per-call timeout when given.
pub(crate) fn run(
    suite: &Suite,
    name: &str,
    target: &Target,
    timeout_ms: Option<u64>,
) -> ScenarioReport {
    let options = RunOptions {
        call_timeout_ms: timeout_ms,
        ..RunOptions::default()
    };
    run_named(suite, name, target, &options).unwrap_or_else(|| panic!("no scenario named {name:?}"))
}

/// The schema of `toolspec run --json` reports, relative to the repository root.
pub(crate) const REPORT_SCHEMA: &str = "docs/report.schema.json";

/// The schema of `toolspec mutants --json` scores, relative to the repository root.
pub(crate) const MUTANTS_SCHEMA: &str = "docs/mutants.schema.json";

/// The schema of `toolspec explore --json` files, relative to the repository root.
pub(crate) const EXPLORE_SCHEMA: &str = "docs/explore.schema.json";

/// Checks `doc` against the JSON Schema at `schema` (relative to the repository
/// root). The error names each place that breaks it and the rule it breaks:
/// `at '/scenarios/0/verdict': value must be one of 'PASS', 'FAIL', ...`.
pub(crate) fn schema_errors(schema: &str, doc: &serde_json::Value) -> Result<(), String> {
    let path = repo().join(schema);
    let mut schemas = boon::Schemas::new();
    let mut compiler = boon::Compiler::new();
    // A schema that is not valid 2020-12 is refused here, against the meta-schema.
    let index = compiler
        .compile(&path.to_string_lossy(), &mut schemas)
        .unwrap_or_else(|e| panic!("{schema} does not compile: {e:#}"));
    schemas.validate(doc, index).map_err(|e| e.to_string())
}

/// Asserts that the JSON file at `path`, which a test had toolspec write, matches
/// the schema at `schema`; returns the document for further checks.
pub(crate) fn assert_matches_schema(schema: &str, path: &Path) -> serde_json::Value {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    let doc: serde_json::Value = serde_json::from_str(&text)
        .unwrap_or_else(|e| panic!("{} is not JSON: {e}\n{text}", path.display()));
    if let Err(why) = schema_errors(schema, &doc) {
        panic!(
            "{} does not match {schema}:\n{why}\n--- the file:\n{text}",
            path.display()
        );
    }
    doc
}

/// Writes `dir/target.yaml`: a target file for the reference server speaking boris,
/// started with the `extra` flags (written as `, --flag, value` list items), with
/// `more` (settings, renames, a baseline) after the command.
pub(crate) fn target_file(dir: &Path, extra: &str, more: &str) -> PathBuf {
    let path = dir.join("target.yaml");
    std::fs::write(
        &path,
        format!(
            "name: mutated\ncommand: [\"{}\", reference-server, --dialect, boris, --root, \"{{root}}\"{extra}]\n{more}",
            exe().display()
        ),
    )
    .expect("write target");
    path
}

/// Pids of live processes (zombies aside) whose command line is `argv`: how a test
/// finds what a server left running, whatever session or environment it gave it.
/// Give each test's leftovers an argv of their own (`sleep 617`), since the tests
/// of this binary run servers at the same time.
pub(crate) fn running(argv: &[&str]) -> Vec<String> {
    let wanted: Vec<u8> = argv
        .iter()
        .flat_map(|a| [a.as_bytes(), b"\0"].concat())
        .collect();
    living(|process| std::fs::read(process.join("cmdline")).is_ok_and(|c| c == wanted))
}

/// Pids of live processes (zombies aside) whose `/proc/<pid>` folder `chosen`
/// accepts.
pub(crate) fn living(chosen: impl Fn(&Path) -> bool) -> Vec<String> {
    std::fs::read_dir("/proc")
        .expect("/proc")
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().parse::<u32>().is_ok())
        .filter(|e| chosen(&e.path()))
        // A zombie has been killed already; only its parent has not reaped it.
        .filter(|e| {
            std::fs::read_to_string(e.path().join("stat")).is_ok_and(|s| {
                s.rsplit_once(") ")
                    .is_some_and(|(_, rest)| !rest.starts_with('Z'))
            })
        })
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect()
}

/// The path of the Python interpreter `python3` runs, asked of it once: the
/// interpreter itself, not a version manager's `python3` shim, which is a shell
/// script costing about ten times the interpreter's own start.
pub(crate) fn python() -> &'static str {
    static PYTHON: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    PYTHON.get_or_init(|| {
        let asked = std::process::Command::new("python3")
            .args(["-S", "-c", "import sys; print(sys.executable)"])
            .output()
            .expect("python3 runs");
        let path = String::from_utf8_lossy(&asked.stdout).trim().to_owned();
        assert!(
            asked.status.success() && !path.is_empty(),
            "python3 did not say where it is: {asked:?}"
        );
        path
    })
}
