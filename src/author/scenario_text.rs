//! A scenario file's YAML text, written so that it loads as every hand-written
//! file does: every value is written as JSON (a subset of YAML's flow style), with
//! the characters YAML may not hold raw escaped, so no text from a server can
//! change the file's shape.

use std::collections::BTreeMap;

use serde_json::{json, Map, Value};

use super::covers::cover_for;
use super::expectation::Expected;
use super::{FixtureEntry, Kind, Observed, RecordedCall};
use crate::scenario::{Basis, Suite};

/// A scenario file to write: its file name and its text.
#[derive(Debug, Clone)]
pub(crate) struct Draft {
    pub file_name: String,
    pub text: String,
    /// The scenarios alone, each at two spaces (`  - name: ...`), as
    /// `author::append` adds them to the end of an existing file.
    pub items: String,
}

/// A value as YAML: its JSON, with every character YAML does not allow raw
/// (DEL, the C1 controls, a byte-order mark, the non-characters) escaped.
pub(crate) fn yaml_value(value: &Value) -> String {
    let json = serde_json::to_string(value).unwrap_or_else(|_| "null".into());
    json.chars()
        .map(|c| {
            let printable = matches!(c, '\t' | '\n' | '\r' | ' '..='~' | '\u{85}')
                || (('\u{A0}'..='\u{D7FF}').contains(&c))
                || (('\u{E000}'..='\u{FFFD}').contains(&c) && c != '\u{FEFF}')
                || c >= '\u{10000}';
            if printable {
                c.to_string()
            } else {
                let mut units = [0u16; 2];
                c.encode_utf16(&mut units)
                    .iter()
                    .map(|u| format!("\\u{u:04x}"))
                    .collect()
            }
        })
        .collect()
}

fn quoted(text: &str) -> String {
    yaml_value(&Value::String(text.to_string()))
}

/// `given.files` of the fixture: a file's text, a folder or a link, with its age
/// as `mtime` and its mode.
fn given_files(fixture: &BTreeMap<String, FixtureEntry>) -> Vec<String> {
    fixture
        .iter()
        .map(|(path, entry)| {
            let mut detail = Map::new();
            let key = match (&entry.text, &entry.symlink) {
                (Some(text), _) => {
                    detail.insert("text".into(), Value::String(text.clone()));
                    path.clone()
                }
                (None, Some(target)) => {
                    detail.insert("symlink".into(), Value::String(target.clone()));
                    path.clone()
                }
                (None, None) => {
                    detail.insert("dir".into(), Value::Bool(true));
                    format!("{}/", path.trim_end_matches('/'))
                }
            };
            if let Some(age) = entry.age {
                detail.insert("mtime".into(), json!(-age));
            }
            // A link's mode is refused when a scenario loads: it would change what
            // the link points to.
            if let (Some(mode), None) = (entry.mode, &entry.symlink) {
                detail.insert("mode".into(), Value::String(format!("{mode:03o}")));
            }
            let value = match (&entry.text, entry.age, entry.mode) {
                (Some(text), None, None) => Value::String(text.clone()),
                _ => Value::Object(detail),
            };
            format!("        {}: {}", quoted(&key), yaml_value(&value))
        })
        .collect()
}

fn call_value(call: &RecordedCall) -> String {
    let capture = if call.capture.is_empty() {
        String::new()
    } else {
        let fields: serde_json::Map<String, Value> = call
            .capture
            .iter()
            .map(|(name, regex)| (name.clone(), Value::String(regex.clone())))
            .collect();
        format!(", capture: {}", yaml_value(&Value::Object(fields)))
    };
    format!(
        "{{ tool: {}, args: {}{capture} }}",
        quoted(&call.tool),
        yaml_value(&Value::Object(call.args.clone()))
    )
}

/// The note of one scenario: where the case came from, the kind, the subject's
/// answer, and that the expectation is the oracle's, unchecked against the real
/// program.
fn note(observed: &Observed, expected: &Expected) -> String {
    let subject = observed
        .judged()
        .and_then(|c| c.subject.as_ref())
        .map(|a| {
            format!(
                " The subject answered: {}.",
                a.summary().trim_end_matches('.')
            )
        })
        .unwrap_or_default();
    let kind = match observed.kind {
        Kind::Escape => "an escape from the root".to_string(),
        other => format!("a {} difference", other.label()),
    };
    format!(
        "Written by {} ({kind}).{subject} The expected answer ({}) was written \
         from the oracle's answer and has not been checked against the real program.",
        observed.provenance, expected.what
    )
}

/// The scenario file for `observed`, one scenario per `expected` (or only the one
/// at `only`), its `covers:` chosen from `suite`'s own scenarios and clauses. Names and covers are the same whichever are written, so
/// a scenario checked alone is written as it was checked.
pub(crate) fn draft(
    observed: &Observed,
    expected: &[Expected],
    suite: &Suite,
    only: Option<usize>,
) -> Option<Draft> {
    let judged = observed.judged()?;
    let tool = &judged.tool;
    let header = format!(
        "requirement: {}\nnote: {}\nscenarios:\n",
        quoted(&format!("{tool}, explored")),
        quoted(&format!(
            "Scenarios written by toolspec explore from a case where the oracle and the \
             subject differed ({}); each note says which.",
            observed.provenance
        )),
    );
    let mut text = String::new();
    let spec_cover = expected
        .iter()
        .find(|e| e.basis == Basis::Spec)
        .map(|e| cover_for(suite, tool, Basis::Spec, e.code.as_deref()));
    for (index, one) in expected.iter().enumerate() {
        if only.is_some_and(|o| o != index) {
            continue;
        }
        let (basis, cover, suffix) = match one.basis {
            Basis::Spec => ("spec", spec_cover.clone().unwrap_or_default(), ""),
            Basis::Upstream => (
                "upstream",
                spec_cover
                    .clone()
                    .unwrap_or_else(|| cover_for(suite, tool, Basis::Upstream, None)),
                if spec_cover.is_some() {
                    ", in the oracle's words"
                } else {
                    ""
                },
            ),
        };
        let name = format!(
            "{tool}: {} (explored {}){suffix}",
            if one.basis == Basis::Upstream && spec_cover.is_some() {
                expected
                    .iter()
                    .find(|e| e.basis == Basis::Spec)
                    .map_or(one.what.as_str(), |e| e.what.as_str())
            } else {
                one.what.as_str()
            },
            observed.key
        );
        text.push_str(&format!("  - name: {}\n", quoted(&name)));
        text.push_str(&format!("    covers: {}\n", quoted(&cover)));
        text.push_str(&format!("    basis: {basis}\n"));
        text.push_str(&format!("    note: {}\n", quoted(&note(observed, one))));
        let files = given_files(&observed.fixture);
        let setup = &observed.calls[..observed.calls.len() - 1];
        let outside = &observed.outside;
        if !files.is_empty()
            || !setup.is_empty()
            || !observed.settings.is_empty()
            || !outside.is_empty()
        {
            text.push_str("    given:\n");
            if !observed.settings.is_empty() {
                let settings: Map<String, Value> = observed
                    .settings
                    .iter()
                    .map(|(name, value)| (name.clone(), value.clone()))
                    .collect();
                text.push_str(&format!(
                    "      settings: {}\n",
                    yaml_value(&Value::Object(settings))
                ));
            }
            if !files.is_empty() {
                text.push_str("      files:\n");
                for line in files {
                    text.push_str(&line);
                    text.push('\n');
                }
            }
            if !outside.is_empty() {
                let files = Value::Array(outside.iter().cloned().map(Value::String).collect());
                text.push_str(&format!(
                    "      outside: {{ files: {}, writable: true }}\n",
                    yaml_value(&files)
                ));
            }
            if !setup.is_empty() {
                text.push_str("      calls:\n");
                for call in setup {
                    text.push_str(&format!("        - {}\n", call_value(call)));
                }
            }
        }
        text.push_str(&format!("    when: {}\n", call_value(judged)));
        text.push_str("    then:\n");
        // In the order hand-written scenarios use: the flag, then the code, then
        // the rest.
        let order = |key: &str| ["is_error", "code"].iter().position(|k| *k == key);
        let mut keys: Vec<&String> = one.then.keys().collect();
        keys.sort_by_key(|k| order(k).unwrap_or(usize::MAX));
        for key in keys {
            text.push_str(&format!("      {key}: {}\n", yaml_value(&one.then[key])));
        }
        text.push('\n');
    }
    Some(Draft {
        file_name: format!(
            "{}-{}-{}.yaml",
            tool.replace(|c: char| !c.is_ascii_alphanumeric(), "-"),
            observed.kind.label(),
            observed.key
        ),
        text: format!("{header}{text}"),
        items: text,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_yaml_cannot_hold_raw_is_escaped() {
        assert_eq!(
            yaml_value(&json!("a\u{7f}b\u{feff}")),
            r#""a\u007fb\ufeff""#
        );
        assert_eq!(yaml_value(&json!("café\n日本")), "\"café\\n日本\"");
    }
}
