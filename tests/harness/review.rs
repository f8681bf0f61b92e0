//! `toolspec review`: the proposals `record` and `run --bless` keep beside a
//! suite, each accepted (written), rejected (dropped) or skipped as the
//! answers on standard input say; two proposals into one file both accepted;
//! one whose lines were edited since it was made refused, the edit kept;
//! `explore --into`'s found scenarios proposed into the explored suite, merged
//! with a recording into the same file when accepted, or rejected leaving the
//! suite as it was.

use std::path::Path;
use std::process::Output;

use crate::support::{exe, toolspec};

fn server() -> String {
    format!(
        "{} reference-server --dialect boris --root {{root}}",
        exe().display()
    )
}

fn shown(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// `toolspec --specs SPECS ARGS` with `input` on its standard input.
fn toolspec_with(specs: &Path, args: &[&str], input: &str) -> Output {
    toolspec()
        .arg("--specs")
        .arg(specs)
        .args(args)
        .write_stdin(input)
        .output()
        .expect("toolspec runs")
}

/// Records `echo WORD` as a proposal (or, with `write`, into the file).
fn record(specs: &Path, word: &str, write: bool) -> Output {
    let args = serde_json::json!({ "command": format!("echo {word}") }).to_string();
    let server = server();
    let mut line = vec![
        "record", "--suite", "mine", "--server", &server, "--tool", "bash", "--args", &args,
        "--name", word,
    ];
    if write {
        line.extend(["--convention", "plain", "--write"]);
    }
    toolspec_with(specs, &line, "")
}

fn pending(specs: &Path) -> usize {
    std::fs::read_dir(specs.join("mine/.toolspec/pending"))
        .map(|entries| entries.count())
        .unwrap_or(0)
}

fn recorded(specs: &Path) -> String {
    std::fs::read_to_string(specs.join("mine/recorded.yaml")).expect("the suite file")
}

#[test]
fn review_accepts_rejects_and_skips_each_proposal_as_answered() {
    let dir = tempfile::tempdir().expect("temporary folder");
    let specs = dir.path().join("specs");
    std::fs::create_dir(&specs).expect("specs");
    let made = record(&specs, "zero", true);
    assert_eq!(made.status.code(), Some(0), "{}", shown(&made));

    // Three proposals into one file: the first accepted, the second rejected,
    // the third skipped; nothing is written before the answer.
    for word in ["one", "two", "three"] {
        let out = record(&specs, word, false);
        assert_eq!(out.status.code(), Some(0), "{}", shown(&out));
    }
    assert_eq!(pending(&specs), 3);
    assert!(!recorded(&specs).contains("echo one"));
    let out = toolspec_with(&specs, &["review"], "a\nr\ns\n");
    let text = shown(&out);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(
        text.contains("review: 1 accepted, 1 rejected, 1 left pending"),
        "{text}"
    );
    assert!(
        text.contains("+  - name: "),
        "each proposal is shown as a diff: {text}"
    );
    assert_eq!(pending(&specs), 1);
    let file = recorded(&specs);
    let accepted = ["one", "two", "three"].map(|w| file.contains(&format!("echo {w}")));
    assert_eq!(accepted.iter().filter(|a| **a).count(), 1, "{file}");

    // The one left, made before that accept, still goes in: both added to the
    // file's end, so it is merged after the accepted one.
    let out = toolspec_with(&specs, &["review", "--accept-all"], "");
    assert_eq!(out.status.code(), Some(0), "{}", shown(&out));
    assert_eq!(pending(&specs), 0);
    let file = recorded(&specs);
    let kept = ["one", "two", "three"].map(|w| file.contains(&format!("echo {w}")));
    assert_eq!(kept.iter().filter(|k| **k).count(), 2, "{file}");
    let server = server();
    let run = toolspec_with(&specs, &["run", "--suite", "mine", "--server", &server], "");
    assert_eq!(run.status.code(), Some(0), "{}", shown(&run));
    assert!(shown(&run).contains("3 PASS"), "{}", shown(&run));
}

#[test]
fn a_blessing_is_kept_for_review_and_refused_once_its_lines_were_edited() {
    let dir = tempfile::tempdir().expect("temporary folder");
    let specs = dir.path().join("specs");
    std::fs::create_dir(&specs).expect("specs");
    let made = record(&specs, "zero", true);
    assert_eq!(made.status.code(), Some(0), "{}", shown(&made));
    let right = recorded(&specs);
    // The expected output line of the literal block, made wrong.
    let wrong = right.replace("\n        zero\n", "\n        nought\n");
    assert_ne!(right, wrong);
    std::fs::write(specs.join("mine/recorded.yaml"), &wrong).expect("a wrong expectation");
    let server = server();
    let bless = ["run", "--suite", "mine", "--server", &server, "--bless"];

    // Blessed, kept, accepted: the file is right again.
    let out = toolspec_with(&specs, &bless, "");
    assert_eq!(out.status.code(), Some(1), "{}", shown(&out));
    assert_eq!(recorded(&specs), wrong, "nothing written by --bless");
    assert_eq!(pending(&specs), 1);
    let out = toolspec_with(&specs, &["review", "--suite", "mine"], "a\n");
    assert_eq!(out.status.code(), Some(0), "{}", shown(&out));
    assert_eq!(recorded(&specs), right);

    // Blessed again, then the same line edited by hand: refused, the edit kept,
    // the proposal left for a person.
    std::fs::write(specs.join("mine/recorded.yaml"), &wrong).expect("wrong again");
    let out = toolspec_with(&specs, &bless, "");
    assert_eq!(out.status.code(), Some(1), "{}", shown(&out));
    let edited = wrong.replace("\n        nought\n", "\n        naught\n");
    assert_ne!(edited, wrong);
    std::fs::write(specs.join("mine/recorded.yaml"), &edited).expect("edited by hand");
    let out = toolspec_with(&specs, &["review", "--accept-all"], "");
    let text = shown(&out);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(
        text.contains("was edited since the proposal was made"),
        "{text}"
    );
    assert!(text.contains("1 refused"), "{text}");
    assert_eq!(recorded(&specs), edited, "the edit is kept");
    assert_eq!(pending(&specs), 1);
    // It can still be rejected.
    let out = toolspec_with(&specs, &["review", "--reject-all"], "");
    assert_eq!(out.status.code(), Some(0), "{}", shown(&out));
    assert_eq!(pending(&specs), 0);
    assert_eq!(recorded(&specs), edited);
}

/// A copy of boris's suite without its scenarios (tests/data/explore/into),
/// for `explore --into` to grow: the folder of `--specs`.
fn boris_of_ones_own(dir: &Path) -> std::path::PathBuf {
    let specs = dir.join("specs");
    let from = crate::support::repo().join("tests/data/explore/into/specs/boris");
    std::fs::create_dir_all(specs.join("boris")).expect("suite folder");
    for file in ["suite.yaml", "explore.yaml"] {
        std::fs::copy(from.join(file), specs.join("boris").join(file)).expect("copied");
    }
    specs
}

/// `explore --into` against a mutation found on the first case: exit 1, the
/// proposal shown and kept, nothing written into the suite.
fn explore_into(specs: &Path) -> Output {
    let out = toolspec_with(
        specs,
        &[
            "explore",
            "--suite",
            "boris",
            "--mutate",
            "drop-code-prefix",
            "--seed",
            "5",
            "--cases",
            "40",
            "--jobs",
            "1",
            "--fail-fast",
            "--into",
        ],
        "",
    );
    let text = shown(&out);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(
        text.contains("+++ "),
        "the proposal is shown as a diff: {text}"
    );
    assert!(text.contains("2 scenarios would be added to"), "{text}");
    assert!(!specs.join("boris/found.yaml").exists(), "{text}");
    out
}

fn boris_pending(specs: &Path) -> usize {
    std::fs::read_dir(specs.join("boris/.toolspec/pending"))
        .map(|entries| entries.count())
        .unwrap_or(0)
}

#[test]
fn explore_proposes_into_the_suite_and_review_writes_it_with_a_recording() {
    let dir = tempfile::tempdir().expect("temporary folder");
    let specs = boris_of_ones_own(dir.path());
    // A recording into the same new file, proposed first: both make it.
    let args = serde_json::json!({ "command": "echo one" }).to_string();
    let server = server();
    let recorded = toolspec_with(
        &specs,
        &[
            "record", "--suite", "boris", "--server", &server, "--tool", "bash", "--args", &args,
            "--name", "one", "--into", "found",
        ],
        "",
    );
    assert_eq!(recorded.status.code(), Some(0), "{}", shown(&recorded));
    explore_into(&specs);
    assert_eq!(boris_pending(&specs), 2);

    let out = toolspec_with(&specs, &["review", "--accept-all"], "");
    let text = shown(&out);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(text.contains("review: 2 accepted, 0 rejected"), "{text}");
    assert_eq!(boris_pending(&specs), 0);
    let found = std::fs::read_to_string(specs.join("boris/found.yaml")).expect("written");
    assert!(found.contains("echo one"), "{found}");
    assert_eq!(
        found.matches("(explored d2660d2b8b24b3af)").count(),
        2,
        "{found}"
    );

    // The found scenarios hold on the reference and fail on the mutation.
    let run = toolspec_with(&specs, &["run", "--suite", "boris"], "");
    assert_eq!(run.status.code(), Some(0), "{}", shown(&run));
    assert!(shown(&run).contains("3 PASS, 0 FAIL"), "{}", shown(&run));
    let mutated = ["run", "--suite", "boris", "--mutate", "drop-code-prefix"];
    let run = toolspec_with(&specs, &mutated, "");
    assert_eq!(run.status.code(), Some(1), "{}", shown(&run));
    assert!(shown(&run).contains("1 PASS, 2 FAIL"), "{}", shown(&run));
}

#[test]
fn an_exploration_rejected_leaves_the_suite_as_it_was() {
    let dir = tempfile::tempdir().expect("temporary folder");
    let specs = boris_of_ones_own(dir.path());
    let listing = |specs: &Path| -> Vec<(String, String)> {
        let mut files: Vec<(String, String)> = std::fs::read_dir(specs.join("boris"))
            .expect("suite folder")
            .filter_map(Result::ok)
            .filter(|e| e.path().is_file())
            .map(|e| {
                let text = std::fs::read_to_string(e.path()).expect("a suite file");
                (e.file_name().to_string_lossy().into_owned(), text)
            })
            .collect();
        files.sort();
        files
    };
    let before = listing(&specs);
    explore_into(&specs);
    assert_eq!(boris_pending(&specs), 1);
    let out = toolspec_with(&specs, &["review", "--reject-all"], "");
    let text = shown(&out);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(text.contains("review: 0 accepted, 1 rejected"), "{text}");
    assert_eq!(boris_pending(&specs), 0);
    assert_eq!(listing(&specs), before);
}
