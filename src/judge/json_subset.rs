//! The `json:` expectation: the result text, parsed as JSON, must contain the
//! expected value.
//!
//! Objects match when every expected key is present and matches (other keys are
//! allowed, since documents such as seed 003 let servers add fields); arrays match
//! element by element and must have the same length; scalars must be equal and of
//! the same JSON type, so `"true"` never passes for `true`. A string with
//! placeholders is matched as a [`crate::judge::template::Template`], and a few whole-value markers
//! (`"{any}"`, `"{string}"`, `"{number}"`, ...) check presence or type only. Each
//! difference is reported with its JSON path.

use serde_json::Value;

use super::template;
use crate::scenario::Bindings;

/// Whether a value is of the kind a marker asks for.
type Accepts = fn(&Value) -> bool;

/// Whole-value markers and the JSON types they accept.
const MARKERS: &[(&str, Accepts)] = &[
    ("{any}", |_| true),
    ("{string}", Value::is_string),
    ("{number}", Value::is_number),
    ("{integer}", |v| v.is_i64() || v.is_u64()),
    ("{bool}", Value::is_boolean),
    ("{array}", Value::is_array),
    ("{object}", Value::is_object),
];

/// Every way `actual` fails to contain `expected`, as `path: what` lines.
pub(crate) fn differences(expected: &Value, actual: &Value, bindings: &Bindings) -> Vec<String> {
    let mut found = Vec::new();
    compare(expected, actual, "$", bindings, &mut found);
    found
}

fn compare(
    expected: &Value,
    actual: &Value,
    path: &str,
    bindings: &Bindings,
    found: &mut Vec<String>,
) {
    match (expected, actual) {
        (Value::String(marker), _) if is_marker(marker) => {
            let accepts = MARKERS
                .iter()
                .find(|(name, _)| name == marker)
                .is_none_or(|(_, accepts)| accepts(actual));
            if !accepts {
                found.push(format!(
                    "{path}: expected {} {marker}, got {}",
                    if marker == "{integer}" { "an" } else { "a" },
                    describe(actual)
                ));
            }
        }
        (Value::Object(want), Value::Object(got)) => {
            for (key, want_value) in want {
                let child = child_path(path, key);
                match got.get(key) {
                    Some(got_value) => compare(want_value, got_value, &child, bindings, found),
                    None => found.push(format!(
                        "{child}: missing; the object has {}",
                        key_list(got)
                    )),
                }
            }
        }
        (Value::Array(want), Value::Array(got)) => {
            if want.len() != got.len() {
                found.push(format!(
                    "{path}: expected {} element(s), got {}: {}",
                    want.len(),
                    got.len(),
                    excerpt(actual)
                ));
                return;
            }
            for (i, (w, g)) in want.iter().zip(got).enumerate() {
                compare(w, g, &format!("{path}[{i}]"), bindings, found);
            }
        }
        (Value::String(want), Value::String(got)) => {
            if let Some(difference) = template::difference(want, got, bindings) {
                found.push(format!("{path}: strings differ\n{difference}"));
            }
        }
        (Value::Number(want), Value::Number(got)) => {
            if want.as_f64() != got.as_f64() {
                found.push(format!("{path}: expected {want}, got {got}"));
            }
        }
        (want, got) if want == got => {}
        (want, got) => found.push(format!(
            "{path}: expected {}, got {}",
            describe(want),
            describe(got)
        )),
    }
}

/// The `json:` expectation `expected` made to hold for `actual`, for `run
/// --bless`: what already holds stays as written (markers, templates), a string
/// that differs is blessed line by line ([`template::blessed`]), an expected key
/// the answer lacks is dropped (the expectation stays a subset: keys it did not
/// name are not added), and anything else is the answer's value, its root and
/// captures written back as placeholders.
pub(crate) fn blessed(expected: &Value, actual: &Value, bindings: &Bindings) -> Value {
    if differences(expected, actual, bindings).is_empty() {
        return expected.clone();
    }
    match (expected, actual) {
        (Value::Object(want), Value::Object(got)) => Value::Object(
            want.iter()
                .filter_map(|(key, want_value)| {
                    let got_value = got.get(key)?;
                    Some((key.clone(), blessed(want_value, got_value, bindings)))
                })
                .collect(),
        ),
        (Value::Array(want), Value::Array(got)) if want.len() == got.len() => Value::Array(
            want.iter()
                .zip(got)
                .map(|(w, g)| blessed(w, g, bindings))
                .collect(),
        ),
        (Value::String(want), Value::String(got)) if !is_marker(want) => Value::String(
            template::blessed(want, got, bindings).unwrap_or_else(|| bindings.unfill(got)),
        ),
        (_, got) => unfilled(got, bindings),
    }
}

/// `value` with every string's root and captured values written as placeholders.
fn unfilled(value: &Value, bindings: &Bindings) -> Value {
    match value {
        Value::String(s) => Value::String(bindings.unfill(s)),
        Value::Array(items) => Value::Array(items.iter().map(|v| unfilled(v, bindings)).collect()),
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, v)| (k.clone(), unfilled(v, bindings)))
                .collect(),
        ),
        other => other.clone(),
    }
}

fn is_marker(text: &str) -> bool {
    MARKERS.iter().any(|(name, _)| *name == text)
}

fn child_path(parent: &str, key: &str) -> String {
    let plain = !key.is_empty()
        && key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        && !key.starts_with(|c: char| c.is_ascii_digit());
    if plain {
        format!("{parent}.{key}")
    } else {
        format!("{parent}[{}]", Value::String(key.to_string()))
    }
}

fn key_list(object: &serde_json::Map<String, Value>) -> String {
    if object.is_empty() {
        return "no keys".to_string();
    }
    let keys: Vec<&str> = object.keys().map(String::as_str).collect();
    format!("keys {}", keys.join(", "))
}

/// A value with its JSON type, as in `"2" (string)`.
fn describe(value: &Value) -> String {
    let kind = match value {
        Value::Null => return "null".to_string(),
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    };
    format!("{} ({kind})", excerpt(value))
}

fn excerpt(value: &Value) -> String {
    let text = value.to_string();
    if text.chars().count() > 200 {
        let cut: String = text.chars().take(200).collect();
        format!("{cut}…")
    } else {
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn diffs(expected: Value, actual: Value) -> Vec<String> {
        differences(&expected, &actual, &Bindings::new("/r"))
    }

    #[test]
    fn a_blessed_json_keeps_what_holds_and_takes_the_rest_from_the_answer() {
        let bindings = Bindings::new("/r");
        let expected = json!({"ok": "{bool}", "n": 1, "path": "{root}/a", "gone": 1, "list": [1]});
        let actual = json!({"ok": true, "n": 2, "path": "/r/b", "list": [1, 2], "new": 3});
        let made = blessed(&expected, &actual, &bindings);
        assert_eq!(
            made,
            json!({"ok": "{bool}", "n": 2, "path": "{root}/b", "list": [1, 2]})
        );
        assert!(differences(&made, &actual, &bindings).is_empty());
    }

    #[test]
    fn extra_keys_are_allowed_and_missing_ones_named() {
        assert!(diffs(json!({"error": "x"}), json!({"error": "x", "path": "a"})).is_empty());
        assert_eq!(
            diffs(
                json!({"data": {"count": 1}}),
                json!({"data": {"output": ""}})
            ),
            vec!["$.data.count: missing; the object has keys output"]
        );
    }

    #[test]
    fn types_are_strict() {
        assert_eq!(
            diffs(json!({"success": true}), json!({"success": "true"})),
            vec![r#"$.success: expected true (boolean), got "true" (string)"#]
        );
        assert_eq!(
            diffs(json!({"n": 2}), json!({"n": "2"})),
            vec![r#"$.n: expected 2 (number), got "2" (string)"#]
        );
        assert!(diffs(json!({"n": 2}), json!({"n": 2.0})).is_empty());
        assert_eq!(
            diffs(json!({"n": 2}), json!({"n": 3})),
            vec!["$.n: expected 2, got 3"]
        );
        assert!(!diffs(json!(null), json!(false)).is_empty());
    }

    #[test]
    fn markers_check_presence_and_type() {
        assert!(diffs(json!({"a": "{any}"}), json!({"a": null})).is_empty());
        assert_eq!(
            diffs(json!({"a": "{any}"}), json!({})),
            vec!["$.a: missing; the object has no keys"]
        );
        assert_eq!(
            diffs(json!({"a": "{integer}"}), json!({"a": 1.5})),
            vec!["$.a: expected an {integer}, got 1.5 (number)"]
        );
        assert!(diffs(json!(["{string}", "{bool}"]), json!(["s", false])).is_empty());
    }

    #[test]
    fn arrays_match_by_length_and_position() {
        assert!(!diffs(json!([1]), json!([1, 2])).is_empty());
        assert_eq!(
            diffs(json!([1, 2]), json!([1, 3])),
            vec!["$[1]: expected 2, got 3"]
        );
    }

    #[test]
    fn strings_are_templates_with_a_diff() {
        assert!(diffs(
            json!({"m": "No such file: {root}/a"}),
            json!({"m": "No such file: /r/a"})
        )
        .is_empty());
        let found = diffs(
            json!({"m": "Wrote 3 bytes."}),
            json!({"m": "Wrote 3 bytes"}),
        );
        assert_eq!(found.len(), 1);
        assert!(
            found[0].starts_with("$.m: strings differ\n"),
            "{}",
            found[0]
        );
        assert!(found[0].contains("-Wrote 3 bytes."), "{}", found[0]);
    }

    #[test]
    fn odd_keys_are_quoted_in_paths() {
        assert_eq!(
            diffs(json!({"a-b": 1}), json!({})),
            vec![r#"$["a-b"]: missing; the object has no keys"#]
        );
    }
}
