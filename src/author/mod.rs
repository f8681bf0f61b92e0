//! Authoring, one home for every way scenario files are written: the scenario
//! writer (what was seen of a case, its fixture, its calls, the oracle's and the
//! subject's answers, turned into scenario files, each checked by running it
//! before it is kept), `bless/` (`run --bless` and `TOOLSPEC_BLESS`: a run's
//! failed values written into their files) and `record/` (`toolspec record`:
//! scenarios from live calls). A stage after `execute` (it runs the drafts with
//! it) and before `explore`, which writes its new divergences through it; the
//! writer takes a neutral description of a case, [`Observed`], and knows nothing
//! of how the case was found.
//!
//! - `expectation.rs`: the `then` of each scenario, read the suite's way;
//! - `scenario_text.rs`: a scenario file's YAML text;
//! - `covers.rs`: the clause (or topic) a scenario covers;
//! - `round_trip.rs`: a draft run on the oracle (it must pass three times) and on
//!   the subject (it must fail once);
//! - `suite_folder.rs`: `DIR/<suite>/`, a complete suite the files are written into;
//! - `bless/`: `run --bless`; `bless/in_place.rs` writes failed expectations of
//!   an existing file given the values that would have held, in place through
//!   `value_edit.rs` (one value's bytes replaced), `yaml_nodes.rs` (each node's
//!   bytes in the file) and `scalar_text.rs` (a value in the style of the
//!   scalar it replaces);
//! - `append.rs`: a scenario added at the end of a file (`toolspec record`);
//! - `two_answers.rs`: one value for two runs' answers, what differed made
//!   placeholders and named;
//! - `record/`: `toolspec record`, from the calls given or logged to scenarios;
//! - `pending.rs`: a proposal shown and kept beside the suite until written;
//! - `found_file.rs`: `explore --into`, the found scenarios added to one file of
//!   the explored suite itself (through `append.rs`), for a proposal.

pub(crate) mod append;
pub(crate) mod bless;
pub(crate) mod clock_readings;
pub(crate) mod covers;
pub(crate) mod expectation;
pub(crate) mod found_file;
pub(crate) mod new_suite;
pub(crate) mod pending;
pub(crate) mod record;
pub(crate) mod round_trip;
pub(crate) mod scalar_text;
pub(crate) mod scenario_text;
pub(crate) mod suite_folder;
pub(crate) mod two_answers;
pub(crate) mod value_edit;
pub(crate) mod yaml_nodes;

use std::collections::BTreeMap;

use regex::Regex;
use serde_json::{Map, Value};

/// What kind of difference a case showed, which decides the scenarios written: a
/// `Convention` one gets a `basis: spec` scenario with what the convention reads
/// (and a `basis: upstream` one with the exact text where the texts differ too);
/// `Text` and `Files` get a `basis: upstream` one only. An `Escape` (the subject
/// left its root) gets what a `Convention` one gets, with the places beside the
/// root given: `run` judges the escape itself whatever the `then` says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    Escape,
    Convention,
    Text,
    Files,
}

impl Kind {
    pub(crate) fn label(self) -> &'static str {
        match self {
            Kind::Escape => "escape",
            Kind::Convention => "convention",
            Kind::Text => "text",
            Kind::Files => "files",
        }
    }
}

/// One side's answer to a call, its root written `{root}`.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Answer {
    /// A tool result: its `isError` as sent and its text.
    Result {
        is_error: Option<bool>,
        text: String,
    },
    /// A JSON-RPC error instead of a result.
    Protocol { code: i32, message: String },
    /// No answer: the server died, hung or broke the protocol.
    Broken(String),
}

impl Answer {
    /// The answer in one line, for a note.
    pub(crate) fn summary(&self) -> String {
        match self {
            Answer::Result { is_error, text } => format!(
                "{}{}",
                if *is_error == Some(true) {
                    "error: "
                } else {
                    ""
                },
                crate::visible::excerpt(text, 160)
            ),
            Answer::Protocol { code, message } => {
                format!(
                    "JSON-RPC error {code}: {}",
                    crate::visible::excerpt(message, 120)
                )
            }
            Answer::Broken(why) => format!("no answer: {}", crate::visible::excerpt(why, 120)),
        }
    }
}

/// One call as the suite names it (the root written `{root}`, `{root:sh}` in a
/// shell command) and the two answers it got.
#[derive(Debug, Clone)]
pub(crate) struct RecordedCall {
    pub tool: String,
    pub args: Map<String, Value>,
    pub oracle: Answer,
    /// None when there was no subject (a recording).
    pub subject: Option<Answer>,
    /// Capture name -> regex: values the server chose in this answer that a
    /// later call uses as `{name}` (a background task's id), written as the
    /// call's `capture:`, never as literals.
    pub capture: BTreeMap<String, String>,
}

/// An entry of the fixture: a file's text, a folder, or a link, with its age and
/// mode.
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct FixtureEntry {
    /// The text of a file; None for a folder or a link.
    pub text: Option<String>,
    /// A link's target, as written; None for a file or a folder.
    pub symlink: Option<String>,
    /// Seconds since it was last modified, when that matters.
    pub age: Option<i64>,
    /// Its permission bits, when the case set them.
    pub mode: Option<u32>,
}

/// The files under the root after the last call: path -> text (lossy UTF-8).
pub(crate) type FilesAfter = BTreeMap<String, String>;

/// Everything the writer needs of one case.
#[derive(Debug, Clone)]
pub(crate) struct Observed {
    /// The suite's tool at the judged call, and a short key naming the case's class
    /// (it names the file: `<tool>-<kind>-<key>.yaml`).
    pub key: String,
    pub kind: Kind,
    /// Path under the root -> entry.
    pub fixture: BTreeMap<String, FixtureEntry>,
    /// The places beside the root (`given.outside`, written writable), when the
    /// case had some.
    pub outside: Vec<String>,
    /// The server settings the case started both sides with (`given.settings`).
    pub settings: BTreeMap<String, Value>,
    /// The calls in order; the last is the judged one, the others are set-up.
    pub calls: Vec<RecordedCall>,
    /// The files each side left, for a `Files` case: (oracle, subject).
    pub files_after: Option<(FilesAfter, FilesAfter)>,
    /// Where the case came from, for the note (`toolspec explore, seed 5, case 3`).
    pub provenance: String,
    /// Regexes for the parts of an answer the server chooses (ids, pids, times):
    /// in an expected text they become placeholders.
    pub server_chosen: Vec<Regex>,
}

impl Observed {
    /// The judged call.
    pub(crate) fn judged(&self) -> Option<&RecordedCall> {
        self.calls.last()
    }
}

/// What writing a suite came to.
#[derive(Debug, Default)]
pub(crate) struct Written {
    /// The suite folder written.
    pub dir: std::path::PathBuf,
    /// Each scenario file kept, with how many scenarios it holds.
    pub files: Vec<(String, usize)>,
    /// Each scenario (or whole case) not kept: its key and why.
    pub dropped: Vec<(String, String)>,
}

/// Why a suite could not be written.
#[derive(Debug, thiserror::Error)]
pub(crate) enum WriteSuiteError {
    #[error(transparent)]
    Folder(#[from] suite_folder::SuiteFolderError),
    #[error("cannot write {}: {source}", .path.display())]
    Write {
        path: std::path::PathBuf,
        #[source]
        source: std::io::Error,
    },
}

/// A case's scenarios that passed their round trip, drafted together: the file
/// `--out` writes, or the items `--into` appends.
pub(crate) struct CheckedDraft {
    pub file_name: String,
    pub text: String,
    pub items: String,
    /// How many scenarios it holds.
    pub scenarios: usize,
}

/// The scenarios of `case` (drafted with `suite`'s clauses for `covers:`) that
/// load in `check_in` and pass their round trip against `oracle` (and fail
/// against `subject`), drafted together; each dropped one, or the whole case,
/// added to `dropped` with why. None when none is kept.
pub(crate) fn checked_draft(
    case: &Observed,
    suite: &crate::scenario::Suite,
    check_in: &crate::scenario::Suite,
    oracle: &crate::server::Target,
    subject: Option<&crate::server::Target>,
    dropped: &mut Vec<(String, String)>,
) -> Option<CheckedDraft> {
    let expected = match expectation::expected(case, suite.config.convention) {
        Ok(expected) => expected,
        Err(why) => {
            dropped.push((case.key.clone(), why));
            return None;
        }
    };
    let mut kept = Vec::new();
    for index in 0..expected.len() {
        let Some(alone) = scenario_text::draft(case, &expected, suite, Some(index)) else {
            continue;
        };
        match round_trip::rejection(&alone, check_in, oracle, subject) {
            None => kept.push(expected[index].clone()),
            Some(why) => dropped.push((alone.file_name.clone(), why)),
        }
    }
    if kept.is_empty() {
        return None;
    }
    let draft = scenario_text::draft(case, &kept, suite, None)?;
    Some(CheckedDraft {
        file_name: draft.file_name,
        text: draft.text,
        items: draft.items,
        scenarios: kept.len(),
    })
}

/// Writes `out/<suite>/`: the suite's own files, then for each case of `observed`
/// one scenario file of the scenarios that passed their round trip against
/// `oracle` (and failed against `subject`).
pub(crate) fn write_suite(
    out: &std::path::Path,
    suite: &crate::scenario::Suite,
    observed: &[Observed],
    oracle: &crate::server::Target,
    subject: Option<&crate::server::Target>,
) -> Result<Written, WriteSuiteError> {
    let target = suite_folder::prepare(out, suite)?;
    let mut written = Written {
        dir: target.dir.clone(),
        ..Written::default()
    };
    for case in observed {
        let Some(draft) =
            checked_draft(case, suite, &target, oracle, subject, &mut written.dropped)
        else {
            continue;
        };
        let path = target.dir.join(&draft.file_name);
        std::fs::write(&path, &draft.text)
            .map_err(|source| WriteSuiteError::Write { path, source })?;
        written.files.push((draft.file_name, draft.scenarios));
    }
    Ok(written)
}
