//! Mutation testing of the suites (`toolspec mutants`): every deviation in the
//! reference server's catalogue must be caught by its suite, and a deviation no
//! scenario catches is reported as a hole. A mutation stops at its first kill,
//! its other scenarios cut short, unless `--full` asks for every killer.

use std::path::Path;

use crate::support::{assert_matches_schema, running, toolspec, MUTANTS_SCHEMA};
use predicates::prelude::*;

/// The suites the deep tier scores when run by hand: every one but boris, whose
/// scenarios, each run honestly, against all its conforming variations at once and
/// against its mutations, cost about half the CPU of the whole score.
/// `TOOLSPEC_MUTANTS_SUITES=all` (as `.ci/run` sets) scores every suite, and a
/// comma-separated list names suites.
fn suites_to_score() -> Vec<String> {
    let every: Vec<String> = std::fs::read_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/specs"))
        .expect("specs")
        .flatten()
        .filter(|e| e.path().join("suite.yaml").is_file())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    let mut chosen: Vec<String> = match std::env::var("TOOLSPEC_MUTANTS_SUITES") {
        Ok(list) if list == "all" => every,
        Ok(list) => list.split(',').map(|s| s.trim().to_string()).collect(),
        Err(_) => every.into_iter().filter(|s| s != "boris").collect(),
    };
    chosen.sort();
    chosen
}

/// A survivor is a hole in a suite: close it with a scenario, never by weakening
/// the mutation. The scores written as JSON name one killer per mutation.
#[test]
#[ignore = "deep tier: .ci/run runs it, as does cargo test -- --ignored"]
fn every_mutation_in_every_catalogue_is_killed_by_its_suite() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("scores.json");
    let suites = suites_to_score();
    assert!(!suites.is_empty(), "no suite to score");
    // Eight at once on any machine: the reference server's scenarios mostly wait
    // (on a background task, on a timeout), so the cores stay busy through those.
    let output = toolspec()
        .arg("mutants")
        .args(suites.iter().flat_map(|s| ["--suite", s.as_str()]))
        .args(["--jobs", "8", "--json"])
        .arg(&path)
        .output()
        .expect("toolspec runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "some mutation survived:\n{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(!stdout.contains("SURVIVED"), "{stdout}");
    let mut scored: Vec<&str> = stdout
        .lines()
        .filter(|l| l.contains("mutations killed (100%)"))
        .filter_map(|l| l.split(':').next())
        .collect();
    scored.sort_unstable();
    assert_eq!(scored, suites, "one full score per suite:\n{stdout}");
    assert!(!stdout.contains("false failure"), "{stdout}");
    let doc = assert_matches_schema(MUTANTS_SCHEMA, &path);
    assert_eq!(doc["full_count"], false);
    let scores = doc["suites"].as_array().expect("suites");
    assert_eq!(scores.len(), scored.len());
    for suite in scores {
        // Every conforming variation that reaches the dialect ran, all at once (those
        // for spec scenarios only apart), and no scenario failed it.
        let runs = suite["variations"].as_array().expect("variations");
        assert!((1..=2).contains(&runs.len()), "{suite}");
        for run in runs {
            assert_eq!(run["spared"], true, "{run}");
        }
        assert!(suite["varied"].as_u64() >= Some(3), "{suite}");
        assert_eq!(suite["spared"], suite["varied"], "{suite}");
        for mutant in suite["mutants"].as_array().expect("mutants") {
            assert_eq!(mutant["killed"], true, "{mutant}");
            let killers = mutant["killed_by"].as_array().expect("killed_by");
            assert_eq!(killers.len(), 1, "the first killer only: {mutant}");
        }
    }
}

#[test]
fn a_mutation_no_scenario_catches_survives_and_fails_the_command() {
    // The only scenario of this suite checks the error flag and no code: nothing
    // catches lower-case codes, whether it runs or is skipped.
    toolspec()
        .args([
            "--specs",
            "tests/data/specs",
            "mutants",
            "--suite",
            "conditions",
            "--mutation",
            "lowercase-code",
        ])
        .assert()
        .code(1)
        .stdout(predicate::str::contains("SURVIVED lowercase-code"))
        .stdout(predicate::str::contains(
            "hole: no scenario catches `lowercase-code`",
        ))
        .stdout(predicate::str::contains(
            "conditions: 0 of 1 mutations killed (0%)",
        ));
}

/// A scenario that fails a conforming answer is a false failure: named with its
/// scenario and the expectation that did not hold, and the command fails. A full
/// count runs each variation alone, so the one to blame is named; by default they
/// run at once.
#[test]
fn a_scenario_that_fails_a_conforming_variation_is_a_false_failure() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("scores.json");
    let base = [
        "--specs",
        "tests/data/specs",
        "mutants",
        "--suite",
        "over-strict",
        "--variation",
        "json-spaced",
        "--variation",
        "result-meta",
    ];
    let output = toolspec()
        .args(base)
        .args(["--full", "--json"])
        .arg(&path)
        .output()
        .expect("toolspec runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(1), "{stdout}");
    for line in [
        "  spared   result-meta ",
        "  FAILED   json-spaced ",
        "  false failure: over-strict::envelope::the envelope byte for byte fails a conforming answer",
        r#"matches: "\\A\\{\"error\":\"not_found\",\"message\":": no match for"#,
        "1 of 2 variations spared (50%)",
    ] {
        assert!(stdout.contains(line), "{line:?} in:\n{stdout}");
    }
    assert!(!stdout.contains("the envelope as JSON"), "{stdout}");
    let doc = assert_matches_schema(MUTANTS_SCHEMA, &path);
    let runs = &doc["suites"][0]["variations"];
    assert_eq!(runs[0]["spared"], true);
    assert_eq!(runs[1]["variations"][0]["name"], "json-spaced");
    let failure = &runs[1]["false_failures"][0];
    assert_eq!(
        failure["scenario"],
        "over-strict::envelope::the envelope byte for byte"
    );
    assert!(failure["expectations"][0]
        .as_str()
        .is_some_and(|e| e.starts_with("matches: ")));
    assert_eq!(
        (
            doc["suites"][0]["spared"].as_u64(),
            doc["suites"][0]["varied"].as_u64()
        ),
        (Some(1), Some(2))
    );
    toolspec()
        .args(base)
        .assert()
        .code(1)
        .stdout(predicate::str::contains(
            "FAILED   2 variations at once: result-meta, json-spaced",
        ))
        .stdout(predicate::str::contains("0 of 2 variations spared (0%)"));
}

#[test]
fn an_unknown_variation_is_refused_with_the_catalogue() {
    toolspec()
        .args(["mutants", "--suite", "boris", "--variation", "json-spaced"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("has no variation `json-spaced`"))
        .stderr(predicate::str::contains("explicit-is-error-false"));
}

#[test]
fn an_unknown_mutation_is_refused_with_the_catalogue() {
    toolspec()
        .args(["mutants", "--suite", "boris", "--mutation", "nope"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("has no mutation `nope`"))
        .stderr(predicate::str::contains("drop-code-prefix"));
}

/// The killers of one mutation of ikigai as `mutants --json` lists them, with
/// `extra` arguments, and whether the file says it is a full count.
fn killers_of_bash_stdout_only(extra: &[&str]) -> (Vec<String>, bool) {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("scores.json");
    toolspec()
        .env("TOOLSPEC_CACHE_DIR", dir.path().join("cache"))
        .args([
            "mutants",
            "--suite",
            "ikigai",
            "--mutation",
            "bash-stdout-only",
        ])
        .args(extra)
        .arg("--json")
        .arg(&path)
        .assert()
        .success();
    let doc = assert_matches_schema(MUTANTS_SCHEMA, &path);
    let killers = doc["suites"][0]["mutants"][0]["killed_by"]
        .as_array()
        .expect("killed_by")
        .iter()
        .map(|id| id.as_str().expect("an id").to_string())
        .collect();
    (killers, doc["full_count"] == true)
}

#[test]
#[ignore = "deep tier: .ci/run runs it, as does cargo test -- --ignored"]
fn a_mutation_stops_at_its_first_killer_and_full_names_every_one() {
    let (first, full_count) = killers_of_bash_stdout_only(&[]);
    assert!(!full_count);
    assert_eq!(first.len(), 1, "{first:?}");
    let (every, full_count) = killers_of_bash_stdout_only(&["--full"]);
    assert!(full_count);
    assert!(every.len() > 1, "{every:?}");
    assert!(every.contains(&first[0]), "{first:?} among {every:?}");
    let mut sorted = every.clone();
    sorted.sort();
    sorted.dedup();
    assert_eq!(sorted.len(), every.len(), "each once: {every:?}");
}

/// The files in `dir` whose names start with `prefix`.
fn marks(dir: &Path, prefix: &str) -> usize {
    std::fs::read_dir(dir)
        .expect("marks")
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with(prefix))
        .count()
}

#[test]
fn a_killed_mutation_cuts_its_running_scenarios_short_and_leaves_nothing() {
    // tests/data/specs/cancelling: the slow scenario is running against the
    // mutation when the killer fails; it marks its start and its end in `marks/`
    // beside the fixture roots, and sleeps 1.51 s in between. Writing beside the
    // roots is what isolation denies, so this run is without it.
    let dir = tempfile::tempdir().expect("tempdir");
    let tmp = dir.path().join("tmp");
    std::fs::create_dir(&tmp).expect("tmp");
    toolspec()
        .env("TMPDIR", &tmp)
        .env("TOOLSPEC_CACHE_DIR", dir.path().join("cache"))
        .args([
            "--specs",
            "tests/data/specs",
            "mutants",
            "--suite",
            "cancelling",
        ])
        .args([
            "--mutation",
            "lowercase-code",
            "--jobs",
            "2",
            "--no-isolation",
        ])
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "cancelling: 1 of 1 mutations killed (100%)",
        ));
    let marks_dir = tmp.join("marks");
    assert_eq!(marks(&marks_dir, "k-"), 2, "the killer ran twice");
    assert_eq!(
        marks(&marks_dir, "start-"),
        2,
        "the slow scenario started honestly and against the mutation"
    );
    assert_eq!(
        marks(&marks_dir, "end-"),
        1,
        "only the honest run of the slow scenario ended; the other was cut short"
    );
    let left: Vec<_> = std::fs::read_dir(&tmp)
        .expect("tmp")
        .flatten()
        .map(|e| e.file_name())
        .filter(|name| name != "marks")
        .collect();
    assert!(left.is_empty(), "fixtures left behind: {left:?}");
    let sleeping = running(&["sleep", "1.51"]);
    assert!(sleeping.is_empty(), "left running: {sleeping:?}");
}

/// A spec scenario is judged again on the answers derived from the reference's
/// own along each freedom its clause states (`clauses.yaml`): one that pins what
/// the document leaves open (the entries' order, a message's words) is a false
/// failure named with the clause, the dimension, the document's words and the
/// expectation; the same facts checked in a form the freedom allows pass.
#[test]
fn a_spec_scenario_pinning_what_its_clause_leaves_open_fails_a_derived_answer() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("scores.json");
    let output = toolspec()
        .args([
            "--specs",
            "tests/data/specs",
            "mutants",
            "--suite",
            "pinned-order",
            "--variation",
            "result-meta",
            "--json",
        ])
        .arg(&path)
        .output()
        .expect("toolspec runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(1), "{stdout}");
    for line in [
        "  false failure: pinned-order::listing::the entries in one order",
        "fails a conforming answer: clause `listing` leaves `item-order` open (\"the entries, one a line\"); the reference's answer with items reversed was refused by",
        "  false failure: pinned-order::listing::the message word for word",
        "clause `missing` leaves `message-wording` open",
        "matches: ",
        "2 of 4 derived answers passed",
    ] {
        assert!(stdout.contains(line), "{line:?} in:\n{stdout}");
    }
    for spared in ["the entries in any order", "the code alone"] {
        assert!(
            !stdout.contains(&format!("false failure: pinned-order::listing::{spared}")),
            "{stdout}"
        );
    }
    let doc = assert_matches_schema(MUTANTS_SCHEMA, &path);
    let derived = &doc["suites"][0]["derived"];
    assert_eq!(derived["scenarios"], 4);
    assert_eq!(derived["answers"], 4);
    let first = &derived["false_answers"][0];
    assert_eq!(
        first["scenario"],
        "pinned-order::listing::the entries in one order"
    );
    assert_eq!(first["dimension"], "item-order");
    assert_eq!(first["text"], "b.txt\t2\na.txt\t3");
}
