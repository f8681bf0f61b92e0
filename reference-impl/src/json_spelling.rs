//! A JSON value written in one of the spellings JSON allows: keys in either
//! byte order, with or without spaces or indentation, characters escaped or
//! not. The conforming variations use it to answer with the same object in
//! another form.

use std::fmt::Write;

use serde_json::Value;

/// How to spell a value.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Spelling {
    /// Keys in reverse byte order (else in byte order).
    pub(crate) reversed_keys: bool,
    /// A space after `:` and `,` and inside non-empty braces and brackets.
    pub(crate) spaced: bool,
    /// One member or element a line, indented by two spaces a level (wins over
    /// `spaced`).
    pub(crate) pretty: bool,
    /// `/` and every non-ASCII character written as escapes.
    pub(crate) escaped: bool,
}

/// `value` spelled as `how` says.
pub(crate) fn respell(value: &Value, how: Spelling) -> String {
    let mut out = String::new();
    write_value(value, how, 0, &mut out);
    out
}

fn write_value(value: &Value, how: Spelling, depth: usize, out: &mut String) {
    match value {
        Value::Object(map) => {
            let mut members: Vec<(&String, &Value)> = map.iter().collect();
            members.sort_by(|a, b| a.0.cmp(b.0));
            if how.reversed_keys {
                members.reverse();
            }
            let items: Vec<String> = members
                .into_iter()
                .map(|(key, item)| {
                    let mut member = String::new();
                    write_string(key, how, &mut member);
                    member.push(':');
                    if how.spaced || how.pretty {
                        member.push(' ');
                    }
                    write_value(item, how, depth + 1, &mut member);
                    member
                })
                .collect();
            enclose('{', '}', &items, how, depth, out);
        }
        Value::Array(elements) => {
            let items: Vec<String> = elements
                .iter()
                .map(|item| {
                    let mut element = String::new();
                    write_value(item, how, depth + 1, &mut element);
                    element
                })
                .collect();
            enclose('[', ']', &items, how, depth, out);
        }
        Value::String(text) => write_string(text, how, out),
        scalar => out.push_str(&scalar.to_string()),
    }
}

fn enclose(
    open: char,
    close: char,
    items: &[String],
    how: Spelling,
    depth: usize,
    out: &mut String,
) {
    out.push(open);
    if items.is_empty() {
        out.push(close);
        return;
    }
    if how.pretty {
        let inner = "  ".repeat(depth + 1);
        out.push('\n');
        out.push_str(&inner);
        out.push_str(&items.join(&format!(",\n{inner}")));
        out.push('\n');
        out.push_str(&"  ".repeat(depth));
    } else if how.spaced {
        out.push(' ');
        out.push_str(&items.join(", "));
        out.push(' ');
    } else {
        out.push_str(&items.join(","));
    }
    out.push(close);
}

fn write_string(text: &str, how: Spelling, out: &mut String) {
    if !how.escaped {
        out.push_str(&Value::from(text).to_string());
        return;
    }
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '/' => out.push_str("\\/"),
            ' '..='~' => out.push(c),
            _ => {
                let mut units = [0u16; 2];
                for unit in c.encode_utf16(&mut units) {
                    // Writing to a String cannot fail.
                    let _ = write!(out, "\\u{unit:04x}");
                }
            }
        }
    }
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn every_spelling_reads_back_as_the_same_value() {
        let value = json!({"b": [1, {"y": null}], "a": "x/é\n\"😀", "c": {}, "d": []});
        for reversed_keys in [false, true] {
            for spaced in [false, true] {
                for pretty in [false, true] {
                    for escaped in [false, true] {
                        let how = Spelling {
                            reversed_keys,
                            spaced,
                            pretty,
                            escaped,
                        };
                        let text = respell(&value, how);
                        let back: Value = serde_json::from_str(&text).expect("valid JSON");
                        assert_eq!(back, value, "{how:?}: {text}");
                    }
                }
            }
        }
    }

    #[test]
    fn the_spellings_look_as_named() {
        let value = json!({"a": 1, "b": ["/"]});
        let how = |reversed_keys, spaced, pretty, escaped| Spelling {
            reversed_keys,
            spaced,
            pretty,
            escaped,
        };
        assert_eq!(
            respell(&value, how(false, false, false, false)),
            r#"{"a":1,"b":["/"]}"#
        );
        assert_eq!(
            respell(&value, how(true, true, false, true)),
            r#"{ "b": [ "\/" ], "a": 1 }"#
        );
        assert_eq!(
            respell(&value, how(false, false, true, false)),
            "{\n  \"a\": 1,\n  \"b\": [\n    \"/\"\n  ]\n}"
        );
    }
}
