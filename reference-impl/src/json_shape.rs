//! A single pass over a JSON text that measures how deeply it nests and
//! finds its top-level `"id"`, without building it. The stdio guard uses it
//! to refuse a request that the JSON parser would reject for its depth, and
//! to address the refusal to the request's id; it also works on the first
//! part of a text too large to keep.

use serde_json::Value;

/// What [`scan`] found.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Shape {
    /// The deepest nesting of arrays and objects (0 for a bare scalar).
    pub(crate) depth: usize,
    /// The top-level object's `"id"` member, when it is a string, a number
    /// or null and lies whole in the text scanned.
    pub(crate) id: Option<Value>,
}

/// Scans `text` (a JSON text, or the start of one). Invalid JSON is scanned
/// as far as it goes; the result is then only as good as the text.
pub(crate) fn scan(text: &[u8]) -> Shape {
    let mut depth = 0usize;
    let mut deepest = 0usize;
    let mut in_string = false;
    let mut escaped = false;
    let mut string_start = 0;
    // At depth 1: whether the next string is a key, whether the last key was
    // "id", and where that key's value starts.
    let mut expect_key = false;
    let mut key_is_id = false;
    let mut id_start: Option<usize> = None;
    let mut id = None;
    for (at, &byte) in text.iter().enumerate() {
        if in_string {
            if escaped {
                escaped = false;
            } else if byte == b'\\' {
                escaped = true;
            } else if byte == b'"' {
                in_string = false;
                if depth == 1 && expect_key {
                    key_is_id = &text[string_start..at] == b"id";
                    expect_key = false;
                }
            }
            continue;
        }
        match byte {
            b'"' => {
                in_string = true;
                string_start = at + 1;
            }
            b'{' | b'[' => {
                depth += 1;
                deepest = deepest.max(depth);
                expect_key = depth == 1 && byte == b'{';
            }
            b'}' | b']' => {
                if depth == 1 {
                    finish_id(text, &mut id_start, at, &mut id);
                }
                depth = depth.saturating_sub(1);
            }
            b',' if depth == 1 => {
                finish_id(text, &mut id_start, at, &mut id);
                expect_key = true;
            }
            b':' if depth == 1 && key_is_id => {
                id_start = Some(at + 1);
                key_is_id = false;
            }
            _ => {}
        }
    }
    Shape { depth: deepest, id }
}

/// Parses the id value that began at `start` and ends before `end`, once.
fn finish_id(text: &[u8], start: &mut Option<usize>, end: usize, id: &mut Option<Value>) {
    let Some(from) = start.take() else {
        return;
    };
    if id.is_some() {
        return;
    }
    *id = serde_json::from_slice::<Value>(&text[from..end])
        .ok()
        .filter(|value| value.is_string() || value.is_number() || value.is_null());
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn depth_counts_arrays_and_objects_but_not_strings() {
        assert_eq!(scan(b"3").depth, 0);
        assert_eq!(scan(br#"{"a": [1, {"b": "[[[["}]}"#).depth, 3);
        let deep = format!("{}{}", "[".repeat(200), "]".repeat(200));
        assert_eq!(scan(deep.as_bytes()).depth, 200);
    }

    #[test]
    fn the_top_level_id_is_found_wherever_it_is() {
        let found = |text: &str| scan(text.as_bytes()).id;
        assert_eq!(
            found(r#"{"jsonrpc":"2.0","id":7,"method":"x"}"#),
            Some(json!(7))
        );
        assert_eq!(
            found(r#"{"method":"x","params":{"id":1},"id":"a\"b"}"#),
            Some(json!("a\"b"))
        );
        assert_eq!(
            found(r#"{"params":{"id":1}}"#),
            None,
            "a nested id is not the id"
        );
        assert_eq!(found(r#"{"id" : null }"#), Some(Value::Null));
        assert_eq!(found(r#"{"id":{"x":1}}"#), None, "an object is no id");
        assert_eq!(found(r#"{"id":12"#), None, "cut off before the value ends");
        let prefix = r#"{"jsonrpc":"2.0","id":3,"params":{"a":[[[["#;
        assert_eq!(found(prefix), Some(json!(3)), "the start of a long text");
    }
}
