//! An `explore.yaml` derived from a server's tools/list, for a suite that has
//! none (one `toolspec record` made, say): every listed tool, each argument with
//! a meaning read from its schema (`enum`, `type`, `items`) and, for strings,
//! from its name (`path`, `file_path`, `command`, `pattern`, `old_string`, ...).
//! An argument whose kind neither tells is drawn as a plain value of its type
//! (`value`), so the call is still made. The result is text, written as a user
//! would write the file, so it is loaded and checked by the same code as a
//! hand-written one and can be kept and edited as it is.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde_json::Value;

use crate::explore::explore_file::Meaning;
use crate::server::ListedTool;

/// The text of an `explore.yaml` exploring every tool `listed` names.
pub(crate) fn derive_explore_text(suite: &str, listed: &[ListedTool]) -> String {
    let mut text = format!(
        "# Derived by `toolspec explore` from the tools/list of suite `{suite}`'s oracle\n\
         # (docs/explore.md, \"No explore.yaml\"). Each argument's meaning was read from\n\
         # its schema or its name; `value` is a plain value of its type. Edit freely.\n\
         tools:\n"
    );
    let mut tools: Vec<&ListedTool> = listed.iter().collect();
    tools.sort_by(|a, b| a.name.cmp(&b.name));
    for tool in tools {
        let properties = tool
            .input_schema
            .get("properties")
            .and_then(Value::as_object);
        let arguments: Vec<(&String, &Value)> =
            properties.map(|p| p.iter().collect()).unwrap_or_default();
        if arguments.is_empty() {
            let _ = writeln!(text, "  {}: {{}}", key(&tool.name));
            continue;
        }
        let _ = writeln!(text, "  {}:", key(&tool.name));
        let meanings: Vec<(&String, Meaning)> = arguments
            .iter()
            .map(|(argument, schema)| (*argument, meaning_of(&tool.name, argument, schema)))
            .collect();
        let background = meanings.iter().any(|(argument, meaning)| {
            *meaning == Meaning::Flag && argument.contains("background")
        });
        for (argument, meaning) in meanings {
            // A command the tool may run in the background would race with the
            // calls made meanwhile if it read or wrote files.
            let meaning = match meaning {
                Meaning::Shell if background => Meaning::ShellWithoutFiles,
                other => other,
            };
            let _ = writeln!(text, "    {}: {}", key(argument), flow(&meaning));
        }
    }
    text.push_str(MASKS);
    text
}

/// The ids a server makes up anew each run (task ids, request ids), which two
/// honest runs of one case never share: masked from the start, so a server
/// explored against itself is not found to differ by them.
const MASKS: &str = "mask:\n  - '\\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\\b'   # UUIDs\n  - '\\b[0-9a-f]{16,}\\b'   # long hex ids\n";

/// What an argument means, from its schema first (a listed `enum`, a boolean, a
/// number, a list) and then, for a string or an untyped one, from its name.
pub(crate) fn meaning_of(tool: &str, argument: &str, schema: &Value) -> Meaning {
    let name = snake_case(argument);
    if schema
        .get("enum")
        .and_then(Value::as_array)
        .is_some_and(|e| !e.is_empty())
    {
        return Meaning::Enum;
    }
    match type_of(schema) {
        Some("boolean") => Meaning::Flag,
        Some("integer") | Some("number") => Meaning::Count,
        Some("array") => list_meaning(tool, &name, schema),
        Some("object") => Meaning::Value,
        // A string, or no type at all: the name says what it is, if anything does.
        _ => meaning_from_name(tool, &name).unwrap_or(Meaning::Value),
    }
}

/// A list: of objects with declared fields, each field read as an argument is;
/// of two numbers named a range (`view_range`); else of values, each read from
/// the items' schema and the list's name made singular (`paths` -> `path`), so
/// items that declare no properties, or no schema at all, are drawn all the same.
fn list_meaning(tool: &str, name: &str, schema: &Value) -> Meaning {
    let items = schema.get("items").unwrap_or(&Value::Null);
    if let Some(fields) = items
        .get("properties")
        .and_then(Value::as_object)
        .filter(|f| !f.is_empty())
    {
        let fields: BTreeMap<String, Meaning> = fields
            .iter()
            .map(|(field, schema)| (field.clone(), meaning_of(tool, field, schema)))
            .collect();
        return Meaning::ListOf(fields);
    }
    let numbers = matches!(type_of(items), Some("integer") | Some("number"));
    if numbers && name.ends_with("range") {
        return Meaning::LineRange;
    }
    let singular = name.strip_suffix('s').unwrap_or(name);
    let each = match type_of(items) {
        Some("string") | None => {
            meaning_from_name(tool, singular).unwrap_or_else(|| meaning_of(tool, singular, items))
        }
        _ => meaning_of(tool, singular, items),
    };
    Meaning::Each(Box::new(each))
}

/// The schema's type; of a list of types (`["string", "null"]`), the first that
/// is not null.
fn type_of(schema: &Value) -> Option<&str> {
    match schema.get("type")? {
        Value::String(kind) => Some(kind),
        Value::Array(kinds) => kinds
            .iter()
            .filter_map(Value::as_str)
            .find(|k| *k != "null"),
        _ => None,
    }
}

/// Path-like argument names, whole.
const PATH_NAMES: &[&str] = &[
    "path",
    "file",
    "filepath",
    "filename",
    "dir",
    "directory",
    "folder",
    "cwd",
    "root",
    "source",
    "destination",
    "src",
    "dst",
    "dest",
    "workdir",
    "working_directory",
];

/// Endings that make a name path-like (`file_path`, `notebook_path`, `old_dir`).
const PATH_ENDINGS: &[&str] = &["_path", "_file", "_dir", "_directory", "_folder"];

/// What a string argument's name says it is, if anything: a path, a shell
/// command, a regex or glob, text to find or to write, a patch, or a number
/// (an untyped `offset`).
fn meaning_from_name(tool: &str, name: &str) -> Option<Meaning> {
    let tool = tool.to_ascii_lowercase();
    let meaning = match name {
        n if PATH_NAMES.contains(&n) || PATH_ENDINGS.iter().any(|e| n.ends_with(e)) => {
            Meaning::Path
        }
        "command" | "cmd" | "script" | "shell" => Meaning::Shell,
        n if n.contains("glob") => Meaning::Glob,
        "include" | "exclude" => Meaning::Glob,
        "pattern" if tool.contains("glob") => Meaning::Glob,
        "pattern" | "regex" | "query" | "search_pattern" => Meaning::Regex,
        "old_string" | "old_str" | "old_text" | "old" | "search" | "find" | "target_text" => {
            Meaning::FindText
        }
        "new_string" | "new_str" | "new_text" | "new" | "content" | "contents" | "text"
        | "replacement" | "body" | "data" => Meaning::Text,
        "patch" | "diff" => Meaning::Patch,
        "offset" | "limit" | "line" | "lines" | "count" | "depth" | "head" | "tail"
        | "head_limit" | "timeout" | "start_line" | "end_line" | "max_results" => Meaning::Count,
        _ => return None,
    };
    Some(meaning)
}

/// `filePath` -> `file_path`, `old-string` -> `old_string`: names are matched in
/// one spelling.
fn snake_case(name: &str) -> String {
    let mut out = String::new();
    for (i, c) in name.chars().enumerate() {
        if c.is_ascii_uppercase() {
            if i > 0 && !out.ends_with('_') {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
        } else if c == '-' {
            out.push('_');
        } else {
            out.push(c);
        }
    }
    out
}

/// A meaning as `explore.yaml` writes it, in flow style.
fn flow(meaning: &Meaning) -> String {
    match meaning {
        Meaning::Path => "path".into(),
        Meaning::Regex => "regex".into(),
        Meaning::Glob => "glob".into(),
        Meaning::FindText => "find-text".into(),
        Meaning::Text => "text".into(),
        Meaning::Shell => "shell".into(),
        Meaning::ShellWithoutFiles => "shell-without-files".into(),
        Meaning::Count => "count".into(),
        Meaning::Flag => "flag".into(),
        Meaning::LineRange => "line-range".into(),
        Meaning::Enum => "enum".into(),
        Meaning::Patch => "patch".into(),
        Meaning::TaskId => "task-id".into(),
        Meaning::Value => "value".into(),
        Meaning::OneOf(values) => {
            let values: Vec<String> = values.iter().map(Value::to_string).collect();
            format!("{{ one-of: [{}] }}", values.join(", "))
        }
        Meaning::ListOf(fields) => {
            let fields: Vec<String> = fields
                .iter()
                .map(|(field, meaning)| format!("{}: {}", key(field), flow(meaning)))
                .collect();
            format!("{{ list-of: {{ {} }} }}", fields.join(", "))
        }
        Meaning::Each(meaning) => format!("{{ each: {} }}", flow(meaning)),
    }
}

/// A tool or argument name as a YAML key: plain when it cannot be read as
/// anything but that string, else quoted.
fn key(name: &str) -> String {
    let plain = name
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
        && !matches!(
            name.to_ascii_lowercase().as_str(),
            "y" | "n" | "yes" | "no" | "on" | "off" | "true" | "false" | "null"
        );
    if plain {
        name.to_string()
    } else {
        Value::String(name.to_string()).to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn listed(name: &str, schema: Value) -> ListedTool {
        ListedTool {
            name: name.into(),
            description: String::new(),
            arguments: None,
            input_schema: schema,
        }
    }

    #[test]
    fn kinds_come_from_schemas_and_names() {
        let edit = listed(
            "edit_file",
            json!({"type": "object", "properties": {
                "filePath": {"type": "string"},
                "old_string": {"type": "string"},
                "new_string": {"type": "string"},
                "mode": {"type": "string", "enum": ["a", "b"]},
                "dryRun": {"type": "boolean"},
                "offset": {},
                "encoding": {"type": "string"},
                "view_range": {"type": "array", "items": {"type": "integer"}}
            }}),
        );
        let bash = listed(
            "bash",
            json!({"properties": {"command": {"type": "string"}, "run_in_background": {"type": "boolean"}}}),
        );
        let text = derive_explore_text("mine", &[edit, bash]);
        for line in [
            "  edit_file:\n",
            "    filePath: path\n",
            "    old_string: find-text\n",
            "    new_string: text\n",
            "    mode: enum\n",
            "    dryRun: flag\n",
            "    offset: count\n",
            "    encoding: value\n",
            "    view_range: line-range\n",
            "    command: shell-without-files\n",
        ] {
            assert!(text.contains(line), "{line:?} in\n{text}");
        }
    }

    #[test]
    fn lists_whose_items_declare_no_properties_are_drawn_all_the_same() {
        let tools = [
            listed(
                "read_multiple_files",
                json!({"properties": {"paths": {"type": "array", "items": {"type": "string"}}}}),
            ),
            listed(
                "edit",
                json!({"properties": {
                    "edits": {"type": "array", "items": {"type": "object"}},
                    "tags": {"type": "array"},
                    "changes": {"type": "array", "items": {"type": "object", "properties": {
                        "oldText": {"type": "string"}, "newText": {"type": "string"}}}}
                }}),
            ),
            listed("list_allowed_directories", json!({"type": "object"})),
        ];
        let text = derive_explore_text("mine", &tools);
        for line in [
            "    paths: { each: path }\n",
            "    edits: { each: value }\n",
            "    tags: { each: value }\n",
            "    changes: { list-of: { newText: text, oldText: find-text } }\n",
            "  list_allowed_directories: {}\n",
        ] {
            assert!(text.contains(line), "{line:?} in\n{text}");
        }
    }

    #[test]
    fn a_glob_tools_pattern_is_a_glob_and_odd_names_are_quoted() {
        assert_eq!(meaning_of("Glob", "pattern", &json!({})), Meaning::Glob);
        assert_eq!(meaning_of("grep", "pattern", &json!({})), Meaning::Regex);
        assert_eq!(key("on"), "\"on\"");
        assert_eq!(key("a b"), "\"a b\"");
        assert_eq!(key("file_path"), "file_path");
    }
}
