//! Other right answers, derived from one along a freedom's dimension: the
//! listing's items in another order, the message in other words, the path in
//! its other form, and so on (`docs/proof.md` lists what each dimension does).
//!
//! Each derivation changes only what its dimension names, and only where the
//! answer has something to change: an answer with one item has no other order,
//! so nothing is derived from it. A derived answer equal to the original is
//! dropped, since it proves nothing.

use regex::{NoExpand, Regex};
use serde_json::{Map, Value};

use crate::scenario::{Bindings, Dimension, Freedom};
use crate::server::outcome::ToolResult;

/// The words put into a message by `message-wording`.
const OTHER_WORDS: &str = "In other words, ";

/// The field `extra-field` adds.
const EXTRA_FIELD: &str = "toolspec_extra";

/// One derived answer and how it was made, in words.
#[derive(Debug, Clone)]
pub(crate) struct Derived {
    pub how: String,
    pub result: ToolResult,
}

/// The answers derived from `result` along `freedom`; `args` are the judged
/// call's arguments as sent, placeholders filled (the paths it named).
pub(crate) fn derive(
    freedom: &Freedom,
    result: &ToolResult,
    args: &Map<String, Value>,
    bindings: &Bindings,
) -> Vec<Derived> {
    let text = result.text.as_str();
    let texts: Vec<(String, String)> = match freedom.open {
        Dimension::ItemOrder => match &freedom.field {
            // The lines of one string of a JSON text (ikigai's `data.output`).
            Some(field) => in_json_string(text, freedom.at.as_deref(), field, |lines| {
                line_orders(lines, freedom.items.as_deref())
            }),
            None => item_orders(text, freedom.items.as_deref()),
        },
        Dimension::MessageWording => other_words(text, freedom),
        Dimension::PathForm => on_lines(
            text,
            line_filter(freedom.items.as_deref(), |_| true),
            |lines| path_forms(lines, args, bindings),
        ),
        Dimension::LineNumbers => line_numbers(text),
        Dimension::ExtraField => edit_json(text, freedom.at.as_deref(), |object| {
            object.insert(EXTRA_FIELD.into(), Value::from(1));
            Some(format!("one more field `{EXTRA_FIELD}`"))
        })
        .into_iter()
        .collect(),
        Dimension::FlagAbsent => {
            let field = freedom.field.clone().unwrap_or_default();
            edit_json(text, freedom.at.as_deref(), |object| {
                (object.get(&field) == Some(&Value::Bool(false))).then(|| {
                    object.remove(&field);
                    format!("`{field}: false` left out")
                })
            })
            .into_iter()
            .collect()
        }
        Dimension::Wording => other_wording(text, freedom, bindings),
        Dimension::FinalNewline => vec![match text.strip_suffix('\n') {
            Some(without) => ("without its final newline".into(), without.to_string()),
            None => ("with a final newline".into(), format!("{text}\n")),
        }],
    };
    let mut seen: Vec<String> = Vec::new();
    texts
        .into_iter()
        .filter(|(_, changed)| {
            // Two ways to one text (two items reversed or rotated) prove one thing.
            let new = changed != text && !seen.contains(changed);
            seen.push(changed.clone());
            new
        })
        .map(|(how, changed)| Derived {
            how,
            result: with_text(result, changed),
        })
        .collect()
}

/// `result` with its text replaced (in the wire form too, as one text block).
fn with_text(result: &ToolResult, text: String) -> ToolResult {
    let mut raw = result.raw.clone();
    if let Some(object) = raw.as_object_mut() {
        object.insert(
            "content".into(),
            serde_json::json!([{ "type": "text", "text": text }]),
        );
    }
    ToolResult {
        is_error: result.is_error,
        text,
        raw,
    }
}

/// The items reversed and rotated by one: in a JSON text every array, else the
/// lines `items` matches (every non-empty line by default), the other lines kept
/// in place.
fn item_orders(text: &str, items: Option<&str>) -> Vec<(String, String)> {
    if let Ok(value) = serde_json::from_str::<Value>(text) {
        if value.is_object() || value.is_array() {
            let mut reversed = value;
            reverse_arrays(&mut reversed);
            return vec![("every array reversed".into(), reversed.to_string())];
        }
    }
    line_orders(text, items)
}

/// The lines `items` matches (every non-empty line by default) reversed and
/// rotated by one, the others in place.
fn line_orders(text: &str, items: Option<&str>) -> Vec<(String, String)> {
    let (body, ending) = match text.strip_suffix('\n') {
        Some(body) => (body, "\n"),
        None => (text, ""),
    };
    let is_item = line_filter(items, |line| !line.is_empty());
    on_lines(body, is_item, |picked| {
        let items: Vec<&str> = picked.split('\n').collect();
        if items.len() < 2 {
            return Vec::new();
        }
        let mut reversed = items.clone();
        reversed.reverse();
        let mut rotated = items;
        rotated.rotate_left(1);
        vec![
            ("items reversed".to_string(), reversed.join("\n")),
            ("items rotated by one".to_string(), rotated.join("\n")),
        ]
    })
    .into_iter()
    .map(|(how, derived)| (how, format!("{derived}{ending}")))
    .collect()
}

fn reverse_arrays(value: &mut Value) {
    match value {
        Value::Array(items) => {
            items.reverse();
            items.iter_mut().for_each(reverse_arrays);
        }
        Value::Object(fields) => fields.values_mut().for_each(reverse_arrays),
        _ => {}
    }
}

/// The message with other words put in: after the opening `keep` matches in a
/// plain text, or at the start of the JSON text's `field` (default `message`).
fn other_words(text: &str, freedom: &Freedom) -> Vec<(String, String)> {
    if serde_json::from_str::<Value>(text).is_ok_and(|v| v.is_object()) {
        let field = freedom.field.as_deref().unwrap_or("message");
        return edit_json(text, freedom.at.as_deref(), |object| {
            let Some(Value::String(message)) = object.get_mut(field) else {
                return None;
            };
            message.insert_str(0, OTHER_WORDS);
            Some(format!("`{field}` worded otherwise"))
        })
        .into_iter()
        .collect();
    }
    let kept = match freedom.keep.as_deref().map(Regex::new) {
        None => 0,
        Some(Ok(re)) => match re.find(text) {
            Some(found) if found.start() == 0 => found.end(),
            _ => return Vec::new(),
        },
        Some(Err(_)) => return Vec::new(),
    };
    let (opening, rest) = text.split_at(kept);
    vec![(
        "the message worded otherwise".into(),
        format!("{opening}{OTHER_WORDS}{rest}"),
    )]
}

/// The relative form (the root's prefix taken off every path) and the absolute
/// form (every relative path the call named written under the root).
fn path_forms(text: &str, args: &Map<String, Value>, bindings: &Bindings) -> Vec<(String, String)> {
    let root = bindings.fill("{root}");
    let mut forms = Vec::new();
    let prefix = format!("{root}/");
    if text.contains(&prefix) {
        forms.push((
            "paths relative to the root".into(),
            text.replace(&prefix, ""),
        ));
    }
    let mut absolute = text.to_string();
    for (key, value) in args {
        // Only what names a place: a pattern or a command that happens to be
        // in the text is not a path.
        let key = key.to_ascii_lowercase();
        if !(key.contains("path") || key.contains("file") || key.contains("dir") || key == "cwd") {
            continue;
        }
        let Some(path) = value.as_str() else {
            continue;
        };
        let relative = path.strip_prefix("./").unwrap_or(path);
        if relative.is_empty()
            || relative == "."
            || relative.starts_with('/')
            || relative.contains('\n')
            || relative.contains(['*', '?', '['])
        {
            continue;
        }
        absolute = prefixed(&absolute, relative, &prefix);
    }
    if absolute != text {
        forms.push((
            "paths the call named written under the root".into(),
            absolute,
        ));
    }
    forms
}

/// Which lines a freedom's `items:` regex chooses, else `default`'s.
fn line_filter(items: Option<&str>, default: fn(&str) -> bool) -> impl Fn(&str) -> bool {
    let regex = items.and_then(|re| Regex::new(re).ok());
    move |line| match &regex {
        Some(regex) => regex.is_match(line),
        None => default(line),
    }
}

/// What `derive_lines` makes of the lines `chosen` picks (joined by newlines),
/// each derived text put back among the lines it did not touch.
fn on_lines(
    text: &str,
    chosen: impl Fn(&str) -> bool,
    derive_lines: impl Fn(&str) -> Vec<(String, String)>,
) -> Vec<(String, String)> {
    let lines: Vec<&str> = text.split('\n').collect();
    let slots: Vec<usize> = (0..lines.len()).filter(|i| chosen(lines[*i])).collect();
    let picked: Vec<&str> = slots.iter().map(|i| lines[*i]).collect();
    derive_lines(&picked.join("\n"))
        .into_iter()
        .filter_map(|(how, derived)| {
            let derived: Vec<&str> = derived.split('\n').collect();
            // A derivation that changed how many lines there are cannot be put back.
            (derived.len() == slots.len()).then(|| {
                let mut out: Vec<&str> = lines.clone();
                for (slot, line) in slots.iter().zip(&derived) {
                    out[*slot] = line;
                }
                (how, out.join("\n"))
            })
        })
        .collect()
}

/// `text` with every occurrence of `path` that stands alone (not inside a longer
/// path or word) written as `prefix` + `path`.
fn prefixed(text: &str, path: &str, prefix: &str) -> String {
    let part_of_a_path = |c: char| c.is_alphanumeric() || matches!(c, '/' | '.' | '_' | '-');
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(path) {
        out.push_str(&rest[..at]);
        let before = out.chars().last();
        let after = rest[at + path.len()..].chars().next();
        let alone = !before.is_some_and(part_of_a_path)
            && !after.is_some_and(|c| c.is_alphanumeric() || matches!(c, '/' | '_' | '-'));
        if alone {
            out.push_str(prefix);
        }
        out.push_str(path);
        rest = &rest[at + path.len()..];
    }
    out.push_str(rest);
    out
}

/// Line numbers at line starts (before a tab, `→`, `: ` or `| `) unpadded, and
/// right-aligned to six places.
fn line_numbers(text: &str) -> Vec<(String, String)> {
    let Ok(numbered) = Regex::new(r"(?m)^ *(\d+)(\t|→|: |\| )") else {
        return Vec::new();
    };
    if !numbered.is_match(text) {
        return Vec::new();
    }
    let unpadded = numbered.replace_all(text, "$1$2").into_owned();
    let padded = numbered
        .replace_all(text, |caps: &regex::Captures<'_>| {
            format!("{:>6}{}", &caps[1], &caps[2])
        })
        .into_owned();
    vec![
        ("line numbers unpadded".into(), unpadded),
        ("line numbers right-aligned to six places".into(), padded),
    ]
}

/// Each match of `from` replaced by each of `to` (whose placeholders, such as
/// `{root}`, are filled in).
fn other_wording(text: &str, freedom: &Freedom, bindings: &Bindings) -> Vec<(String, String)> {
    let Some(Ok(from)) = freedom.from.as_deref().map(Regex::new) else {
        return Vec::new();
    };
    if !from.is_match(text) {
        return Vec::new();
    }
    freedom
        .to
        .iter()
        .map(|other| {
            let filled = bindings.fill(other);
            (
                format!("{:?} worded {other:?}", from.as_str()),
                from.replace_all(text, NoExpand(&filled)).into_owned(),
            )
        })
        .collect()
}

/// What `derive_lines` makes of the string `field` of the object at pointer
/// `at` of a JSON text, each put back in its place.
fn in_json_string(
    text: &str,
    at: Option<&str>,
    field: &str,
    derive_lines: impl Fn(&str) -> Vec<(String, String)>,
) -> Vec<(String, String)> {
    let Ok(value) = serde_json::from_str::<Value>(text) else {
        return Vec::new();
    };
    let Some(Value::String(inner)) = value.pointer(at.unwrap_or("")).and_then(|o| o.get(field))
    else {
        return Vec::new();
    };
    derive_lines(inner)
        .into_iter()
        .filter_map(|(how, derived)| {
            edit_json(text, at, |object| {
                object.insert(field.to_string(), Value::String(derived));
                Some(format!("{how} in `{field}`"))
            })
        })
        .collect()
}

/// The JSON text with the object at pointer `at` (the top one by default)
/// changed by `edit`, which says how or declines (None).
fn edit_json(
    text: &str,
    at: Option<&str>,
    edit: impl FnOnce(&mut Map<String, Value>) -> Option<String>,
) -> Option<(String, String)> {
    let mut value: Value = serde_json::from_str(text).ok()?;
    let object = value.pointer_mut(at.unwrap_or(""))?.as_object_mut()?;
    let how = edit(object)?;
    Some((how, value.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn freedom(open: Dimension) -> Freedom {
        Freedom::new(open, "w")
    }

    fn result(text: &str) -> ToolResult {
        ToolResult {
            is_error: None,
            text: text.into(),
            raw: serde_json::json!({ "content": [{ "type": "text", "text": text }] }),
        }
    }

    fn texts(freedom: &Freedom, text: &str, args: Value) -> Vec<String> {
        let args = args.as_object().cloned().unwrap_or_default();
        derive(freedom, &result(text), &args, &Bindings::new("/r"))
            .into_iter()
            .map(|d| d.result.text)
            .collect()
    }

    #[test]
    fn items_are_reordered_around_the_lines_that_are_not_items() {
        let mut f = freedom(Dimension::ItemOrder);
        f.items = Some(r"^(\[DIR\] )?[a-z]$".into());
        let got = texts(&f, "Listing of /r:\n[DIR] a\nb\nc\n", Value::Null);
        assert_eq!(
            got,
            [
                "Listing of /r:\nc\nb\n[DIR] a\n",
                "Listing of /r:\nb\nc\n[DIR] a\n"
            ]
        );
        assert!(texts(&f, "Listing:\nonly\n", Value::Null).is_empty());
        let got = texts(
            &freedom(Dimension::ItemOrder),
            r#"{"files":["a","b"]}"#,
            Value::Null,
        );
        assert_eq!(got, [r#"{"files":["b","a"]}"#]);
    }

    #[test]
    fn a_message_gets_other_words_after_what_is_kept() {
        let mut f = freedom(Dimension::MessageWording);
        f.keep = Some(r"^\[[A-Z_]+\] ".into());
        assert_eq!(
            texts(&f, "[NOT_FOUND] no such file: a", Value::Null),
            ["[NOT_FOUND] In other words, no such file: a"]
        );
        assert!(texts(&f, "plain", Value::Null).is_empty());
        let f = freedom(Dimension::MessageWording);
        assert_eq!(
            texts(&f, r#"{"error":"x","message":"gone"}"#, Value::Null),
            [r#"{"error":"x","message":"In other words, gone"}"#]
        );
    }

    #[test]
    fn paths_take_their_other_form() {
        let f = freedom(Dimension::PathForm);
        assert_eq!(texts(&f, "Wrote /r/a.txt", Value::Null), ["Wrote a.txt"]);
        assert_eq!(
            texts(
                &f,
                "Wrote a.txt (not xa.txt nor b/a.txt)",
                serde_json::json!({"path": "a.txt"})
            ),
            ["Wrote /r/a.txt (not xa.txt nor b/a.txt)"]
        );
    }

    #[test]
    fn the_lines_and_the_message_of_a_nested_json_string_are_derived_too() {
        let mut f = freedom(Dimension::ItemOrder);
        f.at = Some("/data".into());
        f.field = Some("output".into());
        assert_eq!(
            texts(
                &f,
                r#"{"data":{"output":"a\nb"},"success":true}"#,
                Value::Null
            ),
            [r#"{"data":{"output":"b\na"},"success":true}"#]
        );
        let mut f = freedom(Dimension::MessageWording);
        f.at = Some("/data".into());
        f.field = Some("output".into());
        assert_eq!(
            texts(&f, r#"{"data":{"output":"Wrote 6 bytes"}}"#, Value::Null),
            [r#"{"data":{"output":"In other words, Wrote 6 bytes"}}"#]
        );
    }

    #[test]
    fn path_form_keeps_to_its_lines_and_to_the_arguments_that_name_places() {
        let mut f = freedom(Dimension::PathForm);
        f.items = Some(r"^\w+\.txt|^/r/".into());
        let heading = "Found 1 file in /r/src:\n/r/src/a.txt";
        assert_eq!(
            texts(&f, heading, Value::Null),
            ["Found 1 file in /r/src:\nsrc/a.txt"]
        );
        let f = freedom(Dimension::PathForm);
        assert!(texts(&f, "Command: ls", serde_json::json!({"command": "ls"})).is_empty());
    }

    #[test]
    fn line_numbers_fields_flags_words_and_final_newlines() {
        assert_eq!(
            texts(
                &freedom(Dimension::LineNumbers),
                "     1\tx\n     2\ty",
                Value::Null
            ),
            ["1\tx\n2\ty"]
        );
        assert_eq!(
            texts(&freedom(Dimension::ExtraField), r#"{"a":1}"#, Value::Null),
            [r#"{"a":1,"toolspec_extra":1}"#]
        );
        let mut f = freedom(Dimension::FlagAbsent);
        f.field = Some("timed_out".into());
        assert_eq!(
            texts(&f, r#"{"timed_out":false,"x":1}"#, Value::Null),
            [r#"{"x":1}"#]
        );
        assert!(texts(&f, r#"{"timed_out":true}"#, Value::Null).is_empty());
        let mut f = freedom(Dimension::Wording);
        f.from = Some(r"\(empty\)".into());
        f.to = vec![String::new(), "nothing".into()];
        assert_eq!(
            texts(&f, "out: (empty)", Value::Null),
            ["out: ", "out: nothing"]
        );
        assert_eq!(
            texts(&freedom(Dimension::FinalNewline), "x\n", Value::Null),
            ["x"]
        );
        assert_eq!(
            texts(&freedom(Dimension::FinalNewline), "x", Value::Null),
            ["x\n"]
        );
    }
}
