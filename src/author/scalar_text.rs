//! A new value written in the style of the scalar it replaces, so that an edited
//! file reads as its author wrote it: a plain scalar stays plain when the new
//! value can be written plain and still mean that string, a single-quoted one
//! stays single-quoted while it fits on one line, a literal block stays a
//! literal block at its indentation; anything else becomes double-quoted, which
//! can hold every string (the JSON spelling, with what YAML may not hold raw
//! escaped).

use granit_parser::ScalarStyle;
use serde_json::Value;

use super::scenario_text::yaml_value;

/// `value` as the text of a flow or plain-context scalar written in `style`
/// (`in_flow`: inside `{..}` or `[..]`, where `,[]{}` end a plain scalar). A
/// value that is not a string is written as JSON (`true`, `3`, `{"a":1}`).
pub(crate) fn inline(value: &Value, style: ScalarStyle, in_flow: bool) -> String {
    let Value::String(text) = value else {
        return yaml_value(value);
    };
    match style {
        ScalarStyle::Plain if plain_is_safe(text, in_flow) => text.clone(),
        ScalarStyle::SingleQuoted if fits_single_quotes(text) => {
            format!("'{}'", text.replace('\'', "''"))
        }
        _ => yaml_value(value),
    }
}

/// A literal block's header indicators and content lines for `text` at
/// `indent` spaces, or None when a literal block cannot hold it (a character
/// YAML does not allow raw, a carriage return, a first line starting with a
/// space, a line of spaces alone, or an empty text).
pub(crate) fn literal_block(text: &str, indent: usize) -> Option<(String, String)> {
    if text.is_empty() || !text.chars().all(|c| c == '\n' || printable(c) && c != '\r') {
        return None;
    }
    if text.starts_with([' ', '\t']) {
        return None;
    }
    let body = text.trim_end_matches('\n');
    let trailing = text.len() - body.len();
    if body.is_empty() {
        return None;
    }
    let chomping = match trailing {
        0 => "-",
        1 => "",
        _ => "+",
    };
    let mut lines = String::new();
    for line in body.split('\n') {
        if !line.is_empty() && line.trim_start_matches([' ', '\t']).is_empty() {
            return None;
        }
        if !line.is_empty() {
            lines.push_str(&" ".repeat(indent));
            lines.push_str(line);
        }
        lines.push('\n');
    }
    // Keep chomping: every newline after the text's last line is an empty line.
    for _ in 1..trailing {
        lines.push('\n');
    }
    Some((format!("|{chomping}"), lines))
}

/// Whether YAML allows `c` raw in a scalar (tab and the printable characters).
fn printable(c: char) -> bool {
    matches!(c, '\t' | ' '..='~' | '\u{85}')
        || ('\u{A0}'..='\u{D7FF}').contains(&c)
        || (('\u{E000}'..='\u{FFFD}').contains(&c) && c != '\u{FEFF}')
        || c >= '\u{10000}'
}

fn fits_single_quotes(text: &str) -> bool {
    text.chars().all(|c| printable(c) && c != '\t')
        && !text.starts_with(' ')
        && !text.ends_with(' ')
}

/// Whether `text` written plain reads back as the same string: not empty, no
/// indicator at its start, no `: ` or ` #` inside, no space at either end, no
/// line break, nothing a plain scalar would read as another type (`true`,
/// `null`, `12`, `.5`, `0x1f`), and in flow context none of `,[]{}`.
fn plain_is_safe(text: &str, in_flow: bool) -> bool {
    let Some(first) = text.chars().next() else {
        return false;
    };
    if "-?:,[]{}#&*!|>'\"%@`".contains(first) || first.is_whitespace() {
        return false;
    }
    if text.ends_with([' ', ':']) || text.contains(": ") || text.contains(" #") {
        return false;
    }
    if !text.chars().all(|c| printable(c) && c != '\t') {
        return false;
    }
    if in_flow && text.contains([',', '[', ']', '{', '}']) {
        return false;
    }
    !reads_as_another_type(text)
}

/// A plain scalar YAML 1.2's core schema reads as a boolean, null or number.
fn reads_as_another_type(text: &str) -> bool {
    let lower = text.to_ascii_lowercase();
    if matches!(
        lower.as_str(),
        "true" | "false" | "null" | "~" | "yes" | "no" | "on" | "off"
    ) || lower.starts_with("0x")
        || lower.starts_with("0o")
        || lower.trim_start_matches(['+', '-']).starts_with(".inf")
        || lower == ".nan"
    {
        return true;
    }
    let digits = lower.trim_start_matches(['+', '-']);
    digits.starts_with(|c: char| c.is_ascii_digit() || c == '.') && text.parse::<f64>().is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::parse_yaml_str;
    use serde_json::json;
    use std::path::Path;

    /// Every text written in every style reads back as itself, in a block mapping
    /// and in a flow one.
    #[test]
    fn every_written_scalar_reads_back_as_its_value() {
        let texts = [
            "plain words",
            "true",
            "12",
            "-3.5",
            "a: b",
            "x #y",
            "it's",
            " lead",
            "trail ",
            "{root}/a.txt",
            "[PATH_NOT_FOUND] no such file",
            "a, b",
            "two\nlines\n",
            "tab\there",
            "bell\u{7}",
            "",
            "- item",
            "café ☕",
        ];
        let styles = [
            ScalarStyle::Plain,
            ScalarStyle::SingleQuoted,
            ScalarStyle::DoubleQuoted,
        ];
        for text in texts {
            for style in styles {
                let written = inline(&json!(text), style, false);
                let block: serde_json::Value =
                    parse_yaml_str(Path::new("t.yaml"), &format!("k: {written}\n"))
                        .expect("block parses");
                assert_eq!(block["k"], json!(text), "{style:?} {written}");
                let written = inline(&json!(text), style, true);
                let flow: serde_json::Value =
                    parse_yaml_str(Path::new("t.yaml"), &format!("{{k: {written}, z: 1}}\n"))
                        .expect("flow parses");
                assert_eq!(flow["k"], json!(text), "{style:?} in flow {written}");
            }
        }
        assert_eq!(inline(&json!("ok"), ScalarStyle::Plain, false), "ok");
        assert_eq!(
            inline(&json!("true"), ScalarStyle::Plain, false),
            "\"true\""
        );
        assert_eq!(
            inline(&json!("it's"), ScalarStyle::SingleQuoted, false),
            "'it''s'"
        );
        assert_eq!(inline(&json!(false), ScalarStyle::Plain, false), "false");
    }

    #[test]
    fn a_literal_block_keeps_its_indentation_and_says_its_chomping() {
        for text in ["one\ntwo\n", "one\n\ntwo", "one\n\n\n", "a\n  indented\n"] {
            let (header, lines) = literal_block(text, 4).expect("a block");
            let source = format!("k: {header}\n{lines}z: 1\n");
            let read: serde_json::Value =
                parse_yaml_str(Path::new("t.yaml"), &source).expect("parses");
            assert_eq!(read["k"], json!(text), "{source}");
        }
        assert_eq!(
            literal_block("a\nb", 2),
            Some(("|-".to_string(), "  a\n  b\n".to_string()))
        );
        assert_eq!(literal_block(" lead\n", 2), None);
        assert_eq!(literal_block("cr\r\n", 2), None);
        assert_eq!(literal_block("", 2), None);
    }
}
