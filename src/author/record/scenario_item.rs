//! A recorded scenario's YAML lines, written to be read: names and other short
//! texts plain where YAML reads them back as the same string
//! (`scalar_text::inline`), long or multi-line texts (an answer's `text`, a
//! file's text in `then.files`, an argument such as a file's new content) as
//! literal blocks with the chomping their final newlines need
//! (`scalar_text::literal_block`), and double quotes only where neither can
//! hold the text exactly.

use std::collections::BTreeMap;

use granit_parser::ScalarStyle;
use serde_json::{json, Map, Value};

use crate::author::scalar_text::{inline, literal_block};
use crate::author::scenario_text::yaml_value;

/// A text longer than this (in characters) is written as a literal block.
const LONG: usize = 60;

/// Everything a recorded scenario says.
pub(crate) struct ItemSpec<'a> {
    pub name: &'a str,
    pub tool: &'a str,
    /// The server recorded from, for the note.
    pub target_name: &'a str,
    /// `given.tree`: a folder of the suite's fixtures folder.
    pub tree: Option<&'a str>,
    /// `given.files`: path -> text (a folder: None).
    pub files: &'a BTreeMap<String, Option<String>>,
    /// `given.calls`: the calls of the session before this one.
    pub earlier: &'a [(String, Map<String, Value>)],
    pub args: &'a Map<String, Value>,
    /// The answer's expectations, in order (`is_error`, `code`, `text`, ...).
    pub then: &'a [(String, Value)],
    /// `then.files`: path -> a text, or `{absent: true}`, or another detail.
    pub then_files: &'a [(String, Value)],
}

/// A string that a literal block should hold.
fn wants_block(text: &str) -> bool {
    text.contains('\n') || text.chars().count() > LONG
}

/// A short text, plain when that reads back as itself, else double-quoted.
fn plain(text: &str, in_flow: bool) -> String {
    inline(&json!(text), ScalarStyle::Plain, in_flow)
}

/// `key: value` at `indent` spaces, the value a literal block when it is a
/// long or multi-line string a block can hold, else one line.
fn entry(indent: usize, key: &str, value: &Value) -> String {
    let pad = " ".repeat(indent);
    if let Value::String(text) = value {
        if wants_block(text) {
            if let Some((header, lines)) = literal_block(text, indent + 2) {
                return format!("{pad}{key}: {header}\n{lines}");
            }
        }
        return format!("{pad}{key}: {}\n", plain(text, false));
    }
    format!("{pad}{key}: {}\n", yaml_value(value))
}

/// Whether a call's arguments are best written as a block mapping: one of its
/// strings wants a literal block.
fn args_want_block(args: &Map<String, Value>) -> bool {
    args.values()
        .any(|v| matches!(v, Value::String(text) if wants_block(text)))
}

/// A call's `tool` and `args` lines at `indent` (the first line's own text
/// prefixed by `first`: `- ` in a list), inline when its arguments are short.
fn call_lines(indent: usize, first: &str, tool: &str, args: &Map<String, Value>) -> String {
    let pad = " ".repeat(indent);
    if !args_want_block(args) {
        return format!(
            "{pad}{first}{{ tool: {}, args: {} }}\n",
            plain(tool, true),
            yaml_value(&Value::Object(args.clone()))
        );
    }
    let inner = indent + first.len();
    let mut text = format!("{pad}{first}tool: {}\n", plain(tool, false));
    text.push_str(&format!("{}args:\n", " ".repeat(inner)));
    for (key, value) in args {
        text.push_str(&entry(inner + 2, &plain(key, false), value));
    }
    text
}

/// The `covers:` topic of a recorded call of `tool`.
pub(crate) fn recorded_cover(tool: &str) -> String {
    format!(
        "upstream/recorded-{}",
        tool.to_ascii_lowercase()
            .replace(|c: char| !c.is_ascii_alphanumeric(), "-")
    )
}

/// The scenario's lines, at two spaces (a `scenarios:` list item).
pub(crate) fn item(spec: &ItemSpec<'_>) -> String {
    let mut text = format!("  - name: {}\n", plain(spec.name, false));
    text.push_str(&format!(
        "    covers: {}\n",
        plain(&recorded_cover(spec.tool), false)
    ));
    text.push_str("    basis: upstream\n");
    text.push_str(&format!(
        "    note: {}\n",
        yaml_value(&json!(format!(
            "Recorded by toolspec record from `{}`: the expected answer is what that server \
             answered, not checked against a spec.",
            spec.target_name
        )))
    ));
    if spec.tree.is_some() || !spec.files.is_empty() || !spec.earlier.is_empty() {
        text.push_str("    given:\n");
    }
    if let Some(tree) = spec.tree {
        text.push_str(&format!("      tree: {}\n", plain(tree, false)));
    }
    if !spec.files.is_empty() {
        text.push_str("      files:\n");
        for (path, content) in spec.files {
            let value = match content {
                Some(text) => json!(text),
                None => json!({ "dir": true }),
            };
            text.push_str(&entry(8, &plain(path, false), &value));
        }
    }
    if !spec.earlier.is_empty() {
        text.push_str("      calls:\n");
        for (tool, args) in spec.earlier {
            text.push_str(&call_lines(8, "- ", tool, args));
        }
    }
    if args_want_block(spec.args) {
        text.push_str("    when:\n");
        text.push_str(&call_lines(6, "", spec.tool, spec.args));
    } else {
        text.push_str(&call_lines(4, "when: ", spec.tool, spec.args));
    }
    text.push_str("    then:\n");
    for (key, value) in spec.then {
        text.push_str(&entry(6, key, value));
    }
    if !spec.then_files.is_empty() {
        text.push_str("      files:\n");
        for (path, value) in spec.then_files {
            text.push_str(&entry(8, &plain(path, false), value));
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::parse_yaml_str;
    use std::path::Path;

    #[test]
    fn long_texts_are_literal_blocks_that_read_back() {
        let args = json!({"path": "{root}/a.txt", "content": "one\ntwo\n\n"});
        let Value::Object(args) = args else {
            panic!("an object")
        };
        let earlier = vec![("view".to_string(), args.clone())];
        let then = vec![
            ("is_error".to_string(), json!(false)),
            ("text".to_string(), json!("1\talpha\n2\tbeta")),
        ];
        let then_files = vec![
            ("a.txt".to_string(), json!("one\ntwo\n\n")),
            ("b.txt".to_string(), json!({"absent": true})),
        ];
        let files = BTreeMap::new();
        let text = item(&ItemSpec {
            name: "create_file a.txt",
            tool: "create_file",
            target_name: "t",
            tree: Some("example"),
            files: &files,
            earlier: &earlier,
            args: &args,
            then: &then,
            then_files: &then_files,
        });
        assert!(
            text.contains("      text: |-\n        1\talpha\n        2\tbeta\n"),
            "{text}"
        );
        assert!(
            text.contains("        a.txt: |+\n          one\n          two\n\n"),
            "{text}"
        );
        assert!(text.contains("  - name: create_file a.txt\n"), "{text}");
        let read: Value =
            parse_yaml_str(Path::new("t.yaml"), &format!("scenarios:\n{text}")).expect("parses");
        let scenario = &read["scenarios"][0];
        assert_eq!(scenario["when"]["args"]["content"], "one\ntwo\n\n");
        assert_eq!(
            scenario["given"]["calls"][0]["args"]["content"],
            "one\ntwo\n\n"
        );
        assert_eq!(scenario["then"]["text"], "1\talpha\n2\tbeta");
        assert_eq!(scenario["then"]["files"]["a.txt"], "one\ntwo\n\n");
        assert_eq!(scenario["then"]["files"]["b.txt"]["absent"], true);
    }
}
