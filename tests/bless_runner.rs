//! `TOOLSPEC_BLESS` in the `cargo test` runner (`toolspec::target_main`), tried as
//! an implementer meets it: the boris suite exported with `suites export` (one
//! scenario file of it kept, to stay cheap), one expected value made wrong, and
//! the runner started again by this binary as a child (so that each run is a
//! fresh `cargo test` of that folder): `TOOLSPEC_BLESS=diff` prints the diff and
//! writes nothing, `write` writes back exactly the value the server gives, and
//! the next plain run passes.

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Output};

use libtest_mimic::{Arguments, Failed, Trial};

/// Six tests a core and temporary files on a tmpfs, as in every test binary of
/// the workspace (`toolspec_reference::test_binary`).
#[used]
#[link_section = ".init_array"]
static PREPARE: extern "C" fn() = toolspec_reference::test_binary::prepare;

/// Set in the child: the specs folder it runs as an implementer's test would.
const CHILD_SPECS: &str = "TOOLSPEC_BLESS_RUNNER_SPECS";
const TOOLSPEC: &str = env!("CARGO_BIN_EXE_toolspec");
const FILE: &str = "success-create-file.yaml";

fn main() -> ExitCode {
    if let Some(specs) = std::env::var_os(CHILD_SPECS) {
        let server = format!("{TOOLSPEC} reference-server --dialect boris --root {{root}}");
        return match toolspec::Target::from_command_line(&server) {
            Ok(target) => toolspec::target_main(Path::new(&specs), target),
            Err(e) => {
                eprintln!("error: {e}");
                ExitCode::from(2)
            }
        };
    }
    let trial = Trial::test(
        "bless_diff_writes_nothing_and_write_fixes_the_wrong_value",
        diff_then_write,
    );
    libtest_mimic::run(&Arguments::from_args(), vec![trial]).exit_code()
}

/// This binary run as the runner of `specs`, with `TOOLSPEC_BLESS` set to `bless`.
fn runner(specs: &Path, bless: Option<&str>) -> Result<Output, Failed> {
    let exe = std::env::current_exe().map_err(|e| format!("own executable: {e}"))?;
    let mut command = Command::new(exe);
    command
        .env(CHILD_SPECS, specs)
        .env_remove("TOOLSPEC_TARGET")
        .env_remove("TOOLSPEC_SERVER")
        .env_remove("TOOLSPEC_BLESS");
    if let Some(mode) = bless {
        command.env("TOOLSPEC_BLESS", mode);
    }
    Ok(command
        .output()
        .map_err(|e| format!("the runner did not start: {e}"))?)
}

fn check(holds: bool, what: &str, output: &Output) -> Result<(), Failed> {
    if holds {
        return Ok(());
    }
    Err(format!(
        "{what}\nexit: {:?}\nstdout:\n{}\nstderr:\n{}",
        output.status.code(),
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
    .into())
}

/// The boris suite exported into `dir`, only [`FILE`] kept of its scenarios:
/// that file's path.
fn exported(dir: &Path) -> Result<PathBuf, Failed> {
    let export = Command::new(TOOLSPEC)
        .args(["suites", "export", "--suite", "boris"])
        .arg(dir)
        .output()
        .map_err(|e| format!("toolspec suites export: {e}"))?;
    check(
        export.status.success(),
        "toolspec suites export failed",
        &export,
    )?;
    let suite = dir.join("specs/boris");
    for entry in std::fs::read_dir(&suite).map_err(|e| format!("{}: {e}", suite.display()))? {
        let path = entry.map_err(|e| format!("{e}"))?.path();
        let name = path
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default();
        let keep = ["suite.yaml", "clauses.yaml", "explore.yaml", FILE];
        if !keep.contains(&name) {
            std::fs::remove_file(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        }
    }
    Ok(suite.join(FILE))
}

fn diff_then_write() -> Result<(), Failed> {
    let dir = tempfile::tempdir().map_err(|e| format!("temporary folder: {e}"))?;
    let file = exported(dir.path())?;
    let specs = dir.path().join("specs");
    let read = |path: &Path| {
        std::fs::read_to_string(path).map_err(|e| Failed::from(format!("{}: {e}", path.display())))
    };
    let right = read(&file)?;
    let (good, bad) = ("(7 bytes)\"", "(8 bytes)\"");
    if right.matches(good).count() != 1 {
        return Err(format!("{FILE} no longer says {good} once; pick another value").into());
    }
    let wrong = right.replacen(good, bad, 1);
    std::fs::write(&file, &wrong).map_err(|e| format!("{}: {e}", file.display()))?;

    let shown = runner(&specs, Some("diff"))?;
    let stdout = String::from_utf8_lossy(&shown.stdout);
    check(!shown.status.success(), "the wrong value passed", &shown)?;
    check(
        stdout.contains("-      text: \"Created {root}/new/n.txt (8 bytes)\"\n")
            && stdout.contains("+      text: \"Created {root}/new/n.txt (7 bytes)\"\n"),
        "TOOLSPEC_BLESS=diff did not print the value's diff",
        &shown,
    )?;
    check(
        read(&file)? == wrong,
        "TOOLSPEC_BLESS=diff wrote the file",
        &shown,
    )?;

    let written = runner(&specs, Some("write"))?;
    check(
        written.status.success(),
        "TOOLSPEC_BLESS=write did not pass",
        &written,
    )?;
    check(
        read(&file)? == right,
        "TOOLSPEC_BLESS=write did not give back the file as exported, byte for byte",
        &written,
    )?;

    let again = runner(&specs, None)?;
    check(
        again.status.success(),
        "the blessed suite does not pass",
        &again,
    )
}
