//! A recorded suite holds no path of the machine it was recorded on: the fixture
//! root, the server's temporary folder and home, and toolspec's temporary folder
//! are written `{root}`, `{scratch}`, `{home}` and `{tmp}`, so the suite passes
//! with another `TMPDIR` and another home, isolated or not, and the note names
//! the server's program without its folder.

use std::path::Path;
use std::process::Output;

use crate::support::{exe, toolspec};

/// `toolspec` with `TMPDIR` and `HOME` set to `machine`'s, as another machine
/// would have them.
fn on_machine(machine: &Path, specs: &Path, args: &[&str]) -> Output {
    let home = machine.join("home");
    let tmp = machine.join("tmp");
    for folder in [&home, &tmp] {
        std::fs::create_dir_all(folder).expect("a folder of the machine");
    }
    toolspec()
        .env("TMPDIR", &tmp)
        .env("HOME", &home)
        .arg("--specs")
        .arg(specs)
        .args(args)
        .output()
        .expect("toolspec runs")
}

fn shown(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

#[test]
fn a_recorded_suite_names_no_place_of_its_machine_and_passes_on_another() {
    let dir = tempfile::tempdir().expect("temporary folder");
    let specs = dir.path().join("specs");
    std::fs::create_dir(&specs).expect("an empty specs folder");
    let (first, second) = (dir.path().join("first"), dir.path().join("second"));
    let server = format!(
        "{} reference-server --dialect boris --root {{root}}",
        exe().display()
    );
    let command = "echo \"$TMPDIR/x\"; echo \"$HOME/.cache\"; pwd";
    let args = serde_json::json!({ "command": command }).to_string();
    let record = on_machine(
        &first,
        &specs,
        &[
            "record",
            "--suite",
            "mine",
            "--convention",
            "plain",
            "--no-isolation",
            "--server",
            &server,
            "--tool",
            "bash",
            "--args",
            &args,
            "--name",
            "where am I",
            "--write",
        ],
    );
    assert_eq!(record.status.code(), Some(0), "{}", shown(&record));
    let written =
        std::fs::read_to_string(specs.join("mine/recorded.yaml")).expect("the recorded file");
    for placeholder in ["{scratch}/x", "{home}/.cache", "{root}"] {
        assert!(
            written.contains(placeholder),
            "{placeholder} in:\n{written}"
        );
    }
    let machine = dir.path().to_string_lossy();
    assert!(
        !written.contains(machine.as_ref()),
        "a path of the machine in:\n{written}"
    );
    let binary = exe().parent().expect("a folder").to_string_lossy();
    assert!(
        !written.contains(binary.as_ref()),
        "the binary's folder in:\n{written}"
    );

    // Another TMPDIR and home, without isolation and with it (where the server's
    // TMPDIR and home are folders of its own).
    for isolation in [&["--no-isolation"][..], &[]] {
        let mut args = vec![
            "run", "--color", "never", "--suite", "mine", "--server", &server,
        ];
        args.extend(isolation);
        let run = on_machine(&second, &specs, &args);
        assert_eq!(run.status.code(), Some(0), "{isolation:?}: {}", shown(&run));
    }

    // The placeholders are checked, not skipped: a server whose TMPDIR is not
    // the one it says fails.
    let lying = written.replace("{scratch}/x", "/elsewhere/x");
    std::fs::write(specs.join("mine/recorded.yaml"), lying).expect("edited");
    let run = on_machine(
        &second,
        &specs,
        &[
            "run",
            "--color",
            "never",
            "--no-isolation",
            "--suite",
            "mine",
            "--server",
            &server,
        ],
    );
    assert_eq!(run.status.code(), Some(1), "{}", shown(&run));
    assert!(shown(&run).contains("/elsewhere/x"), "{}", shown(&run));
}
