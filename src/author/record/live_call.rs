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
use std::path::Path;

use serde_json::{json, Map, Value};

use crate::author::append::appended;
use crate::author::scenario_text::yaml_value;
use crate::author::two_answers::merged;
use crate::execute::{run_scenario, RunOptions, Verdict};
use crate::scenario::{scenario_file_from_text, Suite};
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

/// The files of `folder`, for a fixture: each file's text, each empty folder;
/// a link, or a file that is not UTF-8 text, is refused with its path.
pub(crate) fn folder_files(folder: &Path) -> Result<BTreeMap<String, Option<String>>, String> {
    let mut files = BTreeMap::new();
    let mut pending = vec![folder.to_path_buf()];
    while let Some(dir) = pending.pop() {
        let entries =
            std::fs::read_dir(&dir).map_err(|e| format!("cannot read {}: {e}", dir.display()))?;
        let mut empty = true;
        for entry in entries {
            empty = false;
            let entry = entry.map_err(|e| format!("cannot read {}: {e}", dir.display()))?;
            let path = entry.path();
            let kind = entry
                .file_type()
                .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
            let relative = path
                .strip_prefix(folder)
                .map_err(|_| format!("{} is not under {}", path.display(), folder.display()))?
                .to_str()
                .ok_or_else(|| format!("{} is not a UTF-8 name", path.display()))?
                .to_string();
            if kind.is_dir() {
                pending.push(path);
            } else if kind.is_file() {
                let text = std::fs::read_to_string(&path).map_err(|e| {
                    format!("{}: only text files are recorded ({e})", path.display())
                })?;
                files.insert(relative, Some(text));
            } else {
                return Err(format!(
                    "{}: only files and folders are recorded, not links or devices",
                    path.display()
                ));
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
            recording.target.name
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

/// One scenario recorded: its lines (at two spaces, for [`appended`]) and a line
/// per placeholder made.
pub(crate) struct RecordedScenario {
    pub item: String,
    pub loosened: Vec<String>,
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
) -> Result<Answer, String> {
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
            return Err(format!(
                "`{}` gave no answer: {what}{}",
                recording.target.name,
                if stderr_tail.is_empty() {
                    String::new()
                } else {
                    format!("\nits stderr ended:\n{stderr_tail}")
                }
            ))
        }
        other => return Err(format!("the call came to {}", other.headline())),
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
            None => Err(format!(
                "the call was not answered with a tool result: {}",
                refused.detail
            )),
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
) -> Result<RecordedScenario, String> {
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
    let file = scenario_file_from_text(&suite.config, &suite.fixtures_dir, &path, &draft).map_err(
        |errors| {
            errors
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join("\n")
        },
    )?;
    let scenario = file
        .scenarios
        .first()
        .ok_or("the recorded scenario did not load")?;
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
            return Ok(RecordedScenario {
                item: item(recording, &[("protocol_error".into(), value)]),
                loosened,
            });
        }
        (Answer::Result(a), Answer::Result(b)) => (a, b),
        _ => {
            return Err(
                "one call was answered with a tool result and the other with a JSON-RPC error"
                    .into(),
            )
        }
    };
    let error = first.get("is_error") == Some(&json!(true));
    let json_answers = match (first.get("text"), second.get("text")) {
        (Some(a), Some(b)) if convention.speaks_json() => as_json(a).zip(as_json(b)),
        _ => None,
    };
    let mut values: Vec<(&str, Value, Value)> = Vec::new();
    let flag = |answers: &BTreeMap<String, Value>| answers.get("is_error").cloned();
    let (Some(a), Some(b)) = (flag(&first), flag(&second)) else {
        return Err("the two calls did not both give `is_error`".into());
    };
    values.push(("is_error", a, b));
    match (has_codes && error, first.get("code"), second.get("code")) {
        (true, Some(a), Some(b)) => values.push(("code", a.clone(), b.clone())),
        _ => match json_answers {
            Some((a, b)) => values.push(("json", a, b)),
            None => match (first.get("text"), second.get("text")) {
                (Some(a), Some(b)) => values.push(("text", a.clone(), b.clone())),
                _ => return Err("the two calls did not both give a `text`".into()),
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
) -> Result<(std::path::PathBuf, Option<String>, String), String> {
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
    let after = after.ok_or("no scenario to add")?;
    scenario_file_from_text(&suite.config, &suite.fixtures_dir, &path, &after).map_err(
        |errors| {
            let first = errors.first().map(ToString::to_string).unwrap_or_default();
            format!("the file with the recorded scenarios would not load ({first})")
        },
    )?;
    Ok((path, before, after))
}
