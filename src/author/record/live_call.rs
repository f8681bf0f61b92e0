//! `toolspec record`: what a recorded call's answers come to. Each call is made
//! twice, once in each run of the session (`session.rs`); each answer is read
//! from the judge's mismatches of a probe `then` that cannot hold, and the two
//! merged (`author::two_answers`: what differed made a placeholder) into the
//! `then` the suite's convention reads: `protocol_error` for a call refused
//! with a JSON-RPC error; the flag and the code for an error of a convention
//! with codes; the flag and the JSON as `json:` for a JSON convention's JSON;
//! else the flag and the exact text. The scenarios are added at the end of a
//! suite file (`author::append`), shown first as a diff.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use crate::author::append::{appended, AppendError};
use crate::author::scenario_text::yaml_value;
use crate::author::two_answers::{merged, Unmergeable};
use crate::judge::Mismatch;
use crate::scenario::{scenario_file_from_text, Convention, Suite};

/// Why a file or folder cannot be a fixture's, naming its path.
#[derive(Debug, thiserror::Error)]
pub(crate) enum FixtureFileError {
    #[error("cannot read {}: {source}", .path.display())]
    Unreadable {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{} is not under {}", .path.display(), .folder.display())]
    NotUnder { path: PathBuf, folder: PathBuf },
    #[error("{} is not a UTF-8 name", .0.display())]
    NotUtf8Name(PathBuf),
    #[error("{}: only text files are recorded ({source})", .path.display())]
    NotText {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{}: only files and folders are recorded, not links or devices", .0.display())]
    NotAFile(PathBuf),
}

/// Why a call could not be recorded, or its scenarios not added to the file.
#[derive(Debug, thiserror::Error)]
pub(crate) enum RecordError {
    /// The server gave no answer: what happened, and the end of its stderr.
    #[error("`{target}` gave no answer: {what}{}", stderr_shown(.stderr_tail))]
    NoAnswer {
        target: String,
        what: String,
        stderr_tail: String,
    },
    #[error("the call was not answered with a tool result: {0}")]
    NotAToolResult(String),
    #[error("one call was answered with a tool result and the other with a JSON-RPC error")]
    MixedAnswers,
    #[error("the two calls did not both give `is_error`")]
    NoFlag,
    #[error("the two calls did not both give a `text`")]
    NoText,
    #[error(transparent)]
    Unmergeable(#[from] Unmergeable),
    #[error(transparent)]
    Append(#[from] AppendError),
    /// The fixture (or the probe that reads an answer) could not be made.
    #[error("cannot make the fixture: {0}")]
    Fixture(String),
    #[error("no scenario to add")]
    NoScenario,
    /// The file with the scenarios added does not load; its first error.
    #[error("the file with the recorded scenarios would not load ({0})")]
    WouldNotLoad(String),
}

/// The end of a server's stderr, on lines of its own after the reason.
fn stderr_shown(tail: &str) -> String {
    if tail.is_empty() {
        String::new()
    } else {
        format!("\nits stderr ended:\n{tail}")
    }
}

/// The files of `folder`, for a fixture: each file's text, each empty folder;
/// a link, or a file that is not UTF-8 text, is refused with its path.
pub(crate) fn folder_files(
    folder: &Path,
) -> Result<BTreeMap<String, Option<String>>, FixtureFileError> {
    let mut files = BTreeMap::new();
    let mut pending = vec![folder.to_path_buf()];
    while let Some(dir) = pending.pop() {
        let unreadable = |path: &Path| {
            let path = path.to_path_buf();
            move |source| FixtureFileError::Unreadable { path, source }
        };
        let entries = std::fs::read_dir(&dir).map_err(unreadable(&dir))?;
        let mut empty = true;
        for entry in entries {
            empty = false;
            let entry = entry.map_err(unreadable(&dir))?;
            let path = entry.path();
            let kind = entry.file_type().map_err(unreadable(&path))?;
            let relative = path
                .strip_prefix(folder)
                .map_err(|_| FixtureFileError::NotUnder {
                    path: path.clone(),
                    folder: folder.to_path_buf(),
                })?
                .to_str()
                .ok_or_else(|| FixtureFileError::NotUtf8Name(path.clone()))?
                .to_string();
            if kind.is_dir() {
                pending.push(path);
            } else if kind.is_file() {
                let text =
                    std::fs::read_to_string(&path).map_err(|source| FixtureFileError::NotText {
                        path: path.clone(),
                        source,
                    })?;
                files.insert(relative, Some(text));
            } else {
                return Err(FixtureFileError::NotAFile(path));
            }
        }
        if empty && dir != folder {
            let relative = dir
                .strip_prefix(folder)
                .ok()
                .and_then(Path::to_str)
                .unwrap_or_default();
            files.insert(format!("{relative}/"), None);
        }
    }
    Ok(files)
}

/// One scenario recorded: its lines (at two spaces, for [`appended`]), a line
/// per placeholder made, and whether the answer looks like a failure.
pub(crate) struct RecordedScenario {
    pub name: String,
    pub item: String,
    pub loosened: Vec<String>,
    /// What else is worth knowing of it (a file checked only to exist).
    pub notes: Vec<String>,
    /// What said the call failed, in words: `isError: true`, or a JSON-RPC
    /// error instead of a result. Such an answer is kept as golden only when
    /// the user says so (`record --accept-error`): it is more often a wrong
    /// call than the behaviour meant to be pinned.
    pub failure: Option<String>,
}

/// What one run of a call said the answer was, read from the mismatches of a
/// probe `then` that cannot hold (`session.rs`).
pub(crate) enum Answer {
    /// A tool result: each value-expectation key the probe failed with the
    /// value that would have held (`is_error`, `text`, and `code` with codes).
    Result(BTreeMap<String, Value>),
    /// A JSON-RPC error with this code, instead of a tool result.
    Protocol(i64),
}

/// The answer the judge's mismatches of the probe `then` describe: the
/// `files[..]` ones are left to the caller.
pub(crate) fn read_answer(mismatches: &[Mismatch]) -> Result<Answer, RecordError> {
    if let Some(refused) = mismatches.iter().find(|m| m.key == "result") {
        // The judge gives a JSON-RPC error's code as the `protocol_error` that
        // would have held.
        let code = refused
            .blessed
            .as_ref()
            .and_then(|held| held["code"].as_i64());
        return match code {
            Some(code) => Ok(Answer::Protocol(code)),
            None => Err(RecordError::NotAToolResult(refused.detail.clone())),
        };
    }
    let mut values: BTreeMap<String, Value> = mismatches
        .iter()
        .filter(|m| !m.key.starts_with("files["))
        .filter_map(|m| Some((m.key.clone(), m.blessed.clone()?)))
        .collect();
    // What held of the probe is what came.
    values.entry("is_error".into()).or_insert(json!(true));
    values.entry("text".into()).or_insert(json!("\u{0}"));
    Ok(Answer::Result(values))
}

/// The text of a JSON convention's answer as the JSON value it is, when it is
/// one (an object or a list: a bare string or number is compared as text).
fn as_json(text: &Value) -> Option<Value> {
    let parsed: Value = serde_json::from_str(text.as_str()?).ok()?;
    matches!(parsed, Value::Object(_) | Value::Array(_)).then_some(parsed)
}

/// The `then` of a call (without its files) that holds for both runs'
/// answers, read the suite's way.
pub(crate) struct AnswerThen {
    /// Each key and its value, in the order hand-written scenarios use.
    pub then: Vec<(String, Value)>,
    pub loosened: Vec<String>,
    pub failure: Option<String>,
}

/// The `then` for two runs' answers: `protocol_error` for a call refused at
/// the protocol level; the flag and the code for an error of a convention with
/// codes; the flag and the JSON (`json:`) for a JSON convention's JSON answer;
/// else the flag and the exact text. What differed becomes a placeholder.
pub(crate) fn answer_then(
    first: Answer,
    second: Answer,
    convention: Convention,
) -> Result<AnswerThen, RecordError> {
    let has_codes = convention.has_codes();
    let (first, second) = match (first, second) {
        (Answer::Protocol(a), Answer::Protocol(b)) => {
            let (value, loosened) = if a == b {
                (json!({ "code": a }), Vec::new())
            } else {
                (
                    json!(true),
                    vec![format!(
                        "`protocol_error`: the code left out, for JSON-RPC error {a} and {b}"
                    )],
                )
            };
            let failure = match a == b {
                true => format!("a JSON-RPC error (code {a}) instead of a tool result"),
                false => format!("a JSON-RPC error (codes {a} and {b}) instead of a tool result"),
            };
            return Ok(AnswerThen {
                then: vec![("protocol_error".into(), value)],
                loosened,
                failure: Some(failure),
            });
        }
        (Answer::Result(a), Answer::Result(b)) => (a, b),
        _ => return Err(RecordError::MixedAnswers),
    };
    let error = first.get("is_error") == Some(&json!(true));
    let failure = [&first, &second]
        .iter()
        .any(|answer| answer.get("is_error") == Some(&json!(true)))
        .then(|| "`isError: true` (the server says the call failed)".to_string());
    let json_answers = match (first.get("text"), second.get("text")) {
        (Some(a), Some(b)) if convention.speaks_json() => as_json(a).zip(as_json(b)),
        _ => None,
    };
    let mut values: Vec<(&str, Value, Value)> = Vec::new();
    let flag = |answers: &BTreeMap<String, Value>| answers.get("is_error").cloned();
    let (Some(a), Some(b)) = (flag(&first), flag(&second)) else {
        return Err(RecordError::NoFlag);
    };
    values.push(("is_error", a, b));
    match (has_codes && error, first.get("code"), second.get("code")) {
        (true, Some(a), Some(b)) => values.push(("code", a.clone(), b.clone())),
        _ => match json_answers {
            Some((a, b)) => values.push(("json", a, b)),
            None => match (first.get("text"), second.get("text")) {
                (Some(a), Some(b)) => values.push(("text", a.clone(), b.clone())),
                _ => return Err(RecordError::NoText),
            },
        },
    }
    let mut then = Vec::new();
    let mut loosened = Vec::new();
    for (key, a, b) in values {
        let made = merged(&a, &b, matches!(key, "text" | "json"))?;
        loosened.extend(made.loosened.into_iter().map(|l| format!("`{key}`: {l}")));
        then.push((key.to_string(), made.value));
    }
    Ok(AnswerThen {
        then,
        loosened,
        failure,
    })
}

/// The suite file `into` of `suite` with `items` added at its end (a new file
/// when it has none), loaded as the loader loads it: its path, its text before
/// (None: new) and after.
pub(crate) fn with_scenarios(
    suite: &Suite,
    fixtures_dir: &Path,
    into: &str,
    requirement: &str,
    items: &[&RecordedScenario],
) -> Result<(PathBuf, Option<String>, String), RecordError> {
    let path = suite.dir.join(format!("{into}.yaml"));
    let before = std::fs::read_to_string(&path).ok();
    let mut after = before.clone();
    for recorded in items {
        after = Some(appended(
            after.as_deref(),
            &yaml_value(&json!(requirement)),
            &recorded.item,
        )?);
    }
    let after = after.ok_or(RecordError::NoScenario)?;
    scenario_file_from_text(&suite.config, fixtures_dir, &path, &after).map_err(|errors| {
        RecordError::WouldNotLoad(errors.first().map(ToString::to_string).unwrap_or_default())
    })?;
    Ok((path, before, after))
}
