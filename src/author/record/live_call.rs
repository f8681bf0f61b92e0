//! `toolspec record`: a scenario written from a live call. The call is made
//! twice, each time in a fresh fixture (the files of a folder the user names,
//! or those a logged call names: `log_fixture.rs`), what differed between the
//! two answers made a placeholder (`author::two_answers`), and the scenario's
//! `then` written as the suite's convention reads an answer: `protocol_error`
//! for a call refused with a JSON-RPC error; the flag and the code for an error
//! of a convention with codes; the flag and the JSON as `json:` for a JSON
//! convention's JSON; else the flag and the exact text. The scenarios are added
//! at the end of a suite file (`author::append`), shown first as a diff.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::{json, Map, Value};

use crate::author::append::{appended, AppendError};
use crate::author::scenario_text::yaml_value;
use crate::author::two_answers::{merged, Unmergeable};
use crate::execute::{run_scenario, RunOptions, Verdict};
use crate::scenario::{scenario_file_from_text, LoadError, Suite};
use crate::server::Target;

/// What to record.
pub(crate) struct Recording<'a> {
    pub suite: &'a Suite,
    pub target: &'a Target,
    pub tool: &'a str,
    /// The call's arguments, `{root}` where the fixture root goes.
    pub args: Map<String, Value>,
    /// The fixture: path under the root -> the file's text (a folder: None).
    pub files: BTreeMap<String, Option<String>>,
    pub name: String,
    /// The suite file's stem to add the scenario to (made when absent).
    pub into: String,
}

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
    /// The probe came to a verdict that says nothing of the answer (its headline).
    #[error("the call came to {0}")]
    CameTo(String),
    #[error("the call was not answered with a tool result: {0}")]
    NotAToolResult(String),
    /// The probe scenario written for the call does not load.
    #[error("{}", LoadError::one_a_line(.0))]
    ProbeDoesNotLoad(Vec<LoadError>),
    #[error("the recorded scenario did not load")]
    NoProbe,
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

/// A server's program as a note names it: its file name only, since the folder
/// it lies in is a path of the recording machine (`/home/me/...`) that means
/// nothing on another.
fn program_name(program: &str) -> &str {
    Path::new(program)
        .file_name()
        .and_then(|name| name.to_str())
        .unwrap_or(program)
}

/// The scenario's lines (at two spaces) with `then` as given.
fn item(recording: &Recording<'_>, then: &[(String, Value)]) -> String {
    let mut text = format!("  - name: {}\n", yaml_value(&json!(recording.name)));
    text.push_str(&format!(
        "    covers: {}\n",
        yaml_value(&json!(format!(
            "upstream/recorded-{}",
            recording
                .tool
                .to_ascii_lowercase()
                .replace(|c: char| !c.is_ascii_alphanumeric(), "-")
        )))
    ));
    text.push_str("    basis: upstream\n");
    text.push_str(&format!(
        "    note: {}\n",
        yaml_value(&json!(format!(
            "Recorded by toolspec record from `{}`: the expected answer is what that server \
             answered, not checked against a spec.",
            program_name(&recording.target.name)
        )))
    ));
    if !recording.files.is_empty() {
        text.push_str("    given:\n      files:\n");
        for (path, content) in &recording.files {
            let value = match content {
                Some(text) => json!(text),
                None => json!({ "dir": true }),
            };
            text.push_str(&format!(
                "        {}: {}\n",
                yaml_value(&json!(path)),
                yaml_value(&value)
            ));
        }
    }
    text.push_str(&format!(
        "    when: {{ tool: {}, args: {} }}\n",
        yaml_value(&json!(recording.tool)),
        yaml_value(&Value::Object(recording.args.clone()))
    ));
    text.push_str("    then:\n");
    for (key, value) in then {
        text.push_str(&format!("      {key}: {}\n", yaml_value(value)));
    }
    text
}

/// One scenario recorded: its lines (at two spaces, for [`appended`]), a line
/// per placeholder made, and whether the answer looks like a failure.
pub(crate) struct RecordedScenario {
    pub item: String,
    pub loosened: Vec<String>,
    /// What said the call failed, in words: `isError: true`, or a JSON-RPC
    /// error instead of a result. Such an answer is kept as golden only when
    /// the user says so (`record --accept-error`): it is more often a wrong
    /// call than the behaviour meant to be pinned.
    pub failure: Option<String>,
}

/// What one run of the probe said the answer was.
enum Answer {
    /// A tool result: each value-expectation key the probe failed with the
    /// value that would have held (`is_error`, `text`, and `code` with codes).
    Result(BTreeMap<String, Value>),
    /// A JSON-RPC error with this code, instead of a tool result.
    Protocol(i64),
}

/// Runs `scenario` (the probe) once and reads what came.
fn answer(
    recording: &Recording<'_>,
    scenario: &crate::scenario::Scenario,
    options: &RunOptions,
) -> Result<Answer, RecordError> {
    let report = run_scenario(
        recording.suite,
        &recording.into,
        scenario,
        recording.target,
        options,
        None,
    );
    let mismatches = match report.verdict {
        Verdict::Fail(mismatches) => mismatches,
        Verdict::Error { what, stderr_tail } => {
            return Err(RecordError::NoAnswer {
                target: recording.target.name.clone(),
                what,
                stderr_tail,
            })
        }
        other => return Err(RecordError::CameTo(other.headline())),
    };
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
        .into_iter()
        .filter_map(|m| Some((m.key, m.blessed?)))
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

/// Makes the call twice, each time in a fresh fixture, and writes the scenario
/// whose `then` holds for both answers, read the suite's way: `protocol_error`
/// for a call refused at the protocol level; the flag and the code for an error
/// of a convention with codes; the flag and the JSON (`json:`) for a JSON
/// convention's JSON answer; else the flag and the exact text.
pub(crate) fn record_scenario(
    recording: &Recording<'_>,
    options: &RunOptions,
) -> Result<RecordedScenario, RecordError> {
    let suite = recording.suite;
    let convention = suite.config.convention;
    let has_codes = convention.has_codes();
    // A first `then` that cannot hold, so that the judge says what came: the
    // flag, the text and (with codes) the code each fail and carry the answer's.
    let mut probe = vec![("is_error".to_string(), json!(true))];
    if has_codes {
        probe.push(("code".into(), json!("")));
    }
    probe.push(("text".into(), json!("\u{0}")));
    let draft = format!(
        "requirement: {}\nscenarios:\n{}",
        yaml_value(&json!("recording")),
        item(recording, &probe)
    );
    let path = suite.dir.join(format!("{}.yaml", recording.into));
    let file = scenario_file_from_text(&suite.config, &suite.fixtures_dir, &path, &draft)
        .map_err(RecordError::ProbeDoesNotLoad)?;
    let scenario = file.scenarios.first().ok_or(RecordError::NoProbe)?;
    let once = RunOptions {
        repeat: 1,
        ..options.clone()
    };
    let first = answer(recording, scenario, &once)?;
    let second = answer(recording, scenario, &once)?;
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
            return Ok(RecordedScenario {
                item: item(recording, &[("protocol_error".into(), value)]),
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
    Ok(RecordedScenario {
        item: item(recording, &then),
        loosened,
        failure,
    })
}

/// The suite file `into` of `suite` with `items` added at its end (a new file
/// when it has none), loaded as the loader loads it: its path, its text before
/// (None: new) and after.
pub(crate) fn with_scenarios(
    suite: &Suite,
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
    scenario_file_from_text(&suite.config, &suite.fixtures_dir, &path, &after).map_err(
        |errors| {
            RecordError::WouldNotLoad(errors.first().map(ToString::to_string).unwrap_or_default())
        },
    )?;
    Ok((path, before, after))
}
