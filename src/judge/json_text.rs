//! The text a JSON dialect's expectations read: one canonical spelling of a JSON
//! object, so that `text`, `contains`, `not_contains` and `matches` judge what the
//! object says, not how the server spaced, ordered or escaped it.
//!
//! JSON (RFC 8259) leaves key order, insignificant whitespace and the escaping
//! of most characters to the writer, and the documents of the JSON dialects say
//! nothing more, so a right answer may come in any of those forms. A scenario that
//! is about the bytes themselves says `exact_bytes: true` and is judged on the
//! text as it came.

use std::borrow::Cow;

use serde_json::Value;

/// The text as the expectations read it: when `text` is a JSON object, its
/// canonical spelling ([`canonical`]); any other text (plain output, a JSON
/// string or number, what is not JSON at all) as it came.
pub(crate) fn as_judged(text: &str) -> Cow<'_, str> {
    match canonical(text) {
        Some(spelled) => Cow::Owned(spelled),
        None => Cow::Borrowed(text),
    }
}

/// A JSON object spelled one way: no whitespace between tokens, the keys of
/// every object in byte order, strings escaped as `serde_json` escapes them (only
/// `"`, `\` and control characters). `None` when `text` is not a JSON object.
pub(crate) fn canonical(text: &str) -> Option<String> {
    let value: Value = serde_json::from_str(text).ok()?;
    if !value.is_object() {
        return None;
    }
    let mut out = String::with_capacity(text.len());
    spell(&value, &mut out);
    Some(out)
}

fn spell(value: &Value, out: &mut String) {
    match value {
        Value::Object(map) => {
            let mut entries: Vec<(&String, &Value)> = map.iter().collect();
            entries.sort_by(|a, b| a.0.cmp(b.0));
            out.push('{');
            for (i, (key, item)) in entries.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&Value::String(key.clone()).to_string());
                out.push(':');
                spell(item, out);
            }
            out.push('}');
        }
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                spell(item, out);
            }
            out.push(']');
        }
        scalar => out.push_str(&scalar.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn order_spacing_and_escapes_do_not_change_the_spelling() {
        let plain = r#"{"error":"internal","message":"internal error"}"#;
        let other = "{ \"message\" : \"intern\\u0061l error\",\n  \"error\": \"internal\" }";
        assert_eq!(canonical(plain).as_deref(), Some(plain));
        assert_eq!(canonical(other).as_deref(), Some(plain));
    }

    #[test]
    fn nested_objects_are_sorted_and_arrays_keep_their_order() {
        let text = r#"{"b": [3, {"z": 1, "a": null}], "a": {"y": "\/", "x": 1.5}}"#;
        assert_eq!(
            canonical(text).as_deref(),
            Some(r#"{"a":{"x":1.5,"y":"/"},"b":[3,{"a":null,"z":1}]}"#)
        );
    }

    #[test]
    fn what_is_not_an_object_is_judged_as_it_came() {
        for text in ["plain output\n", "42", "\"a string\"", "[1, 2]", "{broken"] {
            assert_eq!(canonical(text), None, "{text}");
            assert_eq!(as_judged(text), text);
        }
    }
}
