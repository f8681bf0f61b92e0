//! Entry points for the fuzzers in `fuzz/` and for the test that replays their
//! committed corpus on the stable toolchain (`tests/harness/fuzz_corpus.rs`).
//!
//! Each takes bytes as a fuzzer makes them and sends them through the code a real
//! file or a real answer goes through, then checks what every input must keep: no
//! panic, and an error that says something. A broken promise panics, which is
//! what a fuzzer reports. Not part of the API: this module exists only so that the
//! fuzzers reach stages that are otherwise private.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use crate::judge::template;
use crate::scenario::{
    scenario_file_from_text, suite_file_from_text, Bindings, LoadError, SuiteFile,
};
use crate::server::target_from_text;

/// The suite a fuzzed scenario file is checked against: boris, whose settings,
/// tools, codes and shell commands give validation the most to compare.
const SUITE: &str = include_str!("../specs/boris/suite.yaml");

/// Where fuzzed text claims to come from: a folder that does not exist, so that
/// nothing relative to it is read.
const FUZZ_FOLDER: &str = "/nonexistent/toolspec-fuzz";

/// Loads `bytes` as a scenario file of the boris suite (parsed and validated as
/// `toolspec run` would), and as a suite file.
pub fn scenario_file(bytes: &[u8]) {
    static CONFIG: OnceLock<SuiteFile> = OnceLock::new();
    let config = CONFIG.get_or_init(|| {
        match suite_file_from_text(Path::new("specs/boris/suite.yaml"), SUITE, "boris") {
            Ok(config) => config,
            Err(e) => panic!("the boris suite file does not load: {e}"),
        }
    });
    let text = String::from_utf8_lossy(bytes);
    let path = Path::new(FUZZ_FOLDER).join("case.yaml");
    if let Err(errors) = scenario_file_from_text(config, &fixtures_dir(), &path, &text) {
        assert!(!errors.is_empty(), "a refused file names its mistakes");
        for error in &errors {
            check_error(error, &text);
        }
    }
    let suite_path = Path::new(FUZZ_FOLDER).join("suite.yaml");
    if let Err(error) = suite_file_from_text(&suite_path, &text, "boris") {
        check_error(&error, &text);
    }
}

/// Loads `bytes` as a target file in a folder that does not exist.
pub fn target_file(bytes: &[u8]) {
    let text = String::from_utf8_lossy(bytes);
    let path = Path::new(FUZZ_FOLDER).join("target.yaml");
    if let Err(error) = target_from_text(&path, &text) {
        check_error(&error, &text);
    }
}

/// Matches a template against a text, both from `bytes`: the template before the
/// first NUL byte, the text after it (empty without one). `{root}` is `/r` and
/// `{task}` a capture bound to `t1`.
///
/// Besides not panicking: a difference shows at least one changed line (or says
/// in words why there is none to show), and a text holding no marker, used as its own template, matches itself.
pub fn template(bytes: &[u8]) {
    let (template_part, actual_part) = match bytes.iter().position(|&b| b == 0) {
        Some(at) => (&bytes[..at], &bytes[at + 1..]),
        None => (bytes, &[][..]),
    };
    let expected = String::from_utf8_lossy(template_part);
    let actual = String::from_utf8_lossy(actual_part);
    let mut bindings = Bindings::new("/r");
    bindings.bind("task", "t1");
    if let Some(shown) = template::difference(&expected, &actual, &bindings) {
        let in_words = shown.starts_with("the expected text cannot be used")
            || shown.starts_with("the text is the template's own words");
        let changed = shown
            .lines()
            .skip(2)
            .any(|l| l.starts_with('-') || l.starts_with('+'));
        assert!(
            in_words || changed,
            "{expected:?} does not match {actual:?}, but the difference shows no changed line:\n{shown}"
        );
    }
    let literal = actual.replace(['{', '['], "x").replace("...", "x");
    assert_eq!(
        template::difference(&literal, &literal, &bindings),
        None,
        "{literal:?} holds no marker, so it must match itself"
    );
}

/// The repository's `fixtures/`, so that `given.tree` names real trees.
fn fixtures_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures")
}

/// A load error says what is wrong, at a line of the file.
fn check_error(error: &LoadError, text: &str) {
    assert!(
        !error.message.trim().is_empty(),
        "an empty message: {error:?}"
    );
    if let Some(line) = error.line {
        // As YAML counts them: `\n`, `\r\n` or a lone `\r` ends a line.
        let breaks = text.replace("\r\n", "\n").matches(['\n', '\r']).count();
        assert!(
            (1..=breaks + 1).contains(&line),
            "line {line} of a file with {breaks} line breaks: {error}"
        );
    }
    if let Some(column) = error.column {
        assert!(column >= 1, "column {column}: {error}");
    }
    let _shown = error.to_string();
}
