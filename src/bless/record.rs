//! `toolspec record`: a scenario written from a live call. The call is made
//! twice, each time in a fresh fixture (the files of a folder the user names),
//! what differed between the two answers made a placeholder
//! (`author::two_answers`), and the scenario's `then` written as the suite's
//! convention reads an answer: the flag and the code for an error of a
//! convention with codes, else the flag and the exact text (a JSON text in the
//! canonical spelling the judge reads). The scenario is added at the end of a
//! suite file (`author::append`), shown first as a diff.

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::{json, Map, Value};

use crate::author::append::appended;
use crate::author::scenario_text::yaml_value;
use crate::author::two_answers::merged;
use crate::execute::{run_scenario, RunOptions, Verdict};
use crate::scenario::{scenario_file_from_text, Convention, Suite};
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

/// What recording came to: the file's path, its text before (None: new) and
/// after, and the placeholders made.
pub(crate) struct Recorded {
    pub path: std::path::PathBuf,
    pub before: Option<String>,
    pub after: String,
    pub loosened: Vec<String>,
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

/// Makes the call twice and writes the scenario into the suite file's text.
pub(crate) fn record(recording: &Recording<'_>, options: &RunOptions) -> Result<Recorded, String> {
    let suite = recording.suite;
    let convention = suite.config.convention;
    let has_codes = matches!(
        convention,
        Convention::BracketCode | Convention::JsonErrorEnvelope
    );
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
    let mut answers: Vec<BTreeMap<String, Value>> = Vec::new();
    for _ in 0..2 {
        let report = run_scenario(
            suite,
            &recording.into,
            scenario,
            recording.target,
            &once,
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
            return Err(format!(
                "the call was not answered with a tool result ({}); write its `protocol_error:` by hand",
                refused.detail
            ));
        }
        let mut values: BTreeMap<String, Value> = mismatches
            .into_iter()
            .filter_map(|m| Some((m.key, m.blessed?)))
            .collect();
        // What held of the probe is what came.
        values.entry("is_error".into()).or_insert(json!(true));
        values.entry("text".into()).or_insert(json!("\u{0}"));
        answers.push(values);
    }
    let (first, second) = (&answers[0], &answers[1]);
    let error = first.get("is_error") == Some(&json!(true));
    let keys: Vec<&str> = match (has_codes && error, first.get("code")) {
        (true, Some(_)) => vec!["is_error", "code"],
        _ => vec!["is_error", "text"],
    };
    let mut then = Vec::new();
    let mut loosened = Vec::new();
    for key in keys {
        let (Some(a), Some(b)) = (first.get(key), second.get(key)) else {
            return Err(format!("the two calls did not both give a `{key}`"));
        };
        let made = merged(a, b, key == "text")?;
        loosened.extend(made.loosened.into_iter().map(|l| format!("`{key}`: {l}")));
        then.push((key.to_string(), made.value));
    }
    let before = std::fs::read_to_string(&path).ok();
    let after = appended(
        before.as_deref(),
        &yaml_value(&json!(format!("{}, recorded", recording.tool))),
        &item(recording, &then),
    )?;
    scenario_file_from_text(&suite.config, &suite.fixtures_dir, &path, &after).map_err(
        |errors| {
            let first = errors.first().map(ToString::to_string).unwrap_or_default();
            format!("the file with the recorded scenario would not load ({first})")
        },
    )?;
    Ok(Recorded {
        path,
        before,
        after,
        loosened,
    })
}
