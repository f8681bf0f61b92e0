//! A tool's arguments, drawn from its input schema and what `explore.yaml` says
//! each argument means, with values taken from the generated fixture so that they
//! hit the interesting cases: a path that exists or not, text found once, many
//! times or never; and now and then an argument left out, empty or of the wrong
//! type. Paths and commands hold `{root}`, filled in per side at call time.

use std::collections::BTreeMap;

use fastrand::Rng;
use serde_json::{json, Map, Value};

use crate::explore::explore_file::{ExploredTool, Meaning};
use crate::explore::generate::fixture_gen::{
    generate_text, GeneratedFixture, OUTSIDE_BY_DOTS, WORDS,
};
use crate::explore::generate::patch_gen::generate_patch;
use crate::explore::generate::shell_gen::{generate_command, generate_command_without_files};

/// The placeholder a `task-id` argument is drawn as: each side fills in the id
/// of the last background task it started in the case.
pub(crate) const TASK: &str = "task";

/// A task id no task has: drawn now and then, and what `{task}` stands for on a
/// side that has started no task yet.
pub(crate) const NO_TASK: &str = "0000000000000000";

/// How often (one in N) a required argument is left out, and any argument is
/// given a value of the wrong type.
const ONE_IN_MISSING: u8 = 20;
const ONE_IN_WRONG_TYPE: u8 = 25;

/// The arguments of one call of `tool` on `fixture`, in name order.
pub(crate) fn generate_arguments(
    rng: &mut Rng,
    tool: &ExploredTool,
    fixture: &GeneratedFixture,
) -> Map<String, Value> {
    let mut args = Map::new();
    for (name, meaning) in &tool.arguments {
        let include = if tool.requires(name) {
            rng.u8(..ONE_IN_MISSING) != 0
        } else {
            rng.bool()
        };
        if !include {
            continue;
        }
        let value = if rng.u8(..ONE_IN_WRONG_TYPE) == 0 {
            wrong_type(tool.argument_schema(name))
        } else {
            value_for(rng, meaning, tool.argument_schema(name), fixture)
        };
        args.insert(name.clone(), value);
    }
    make_identical_now_and_then(rng, tool, &mut args);
    args
}

/// How often (one in N) an edit's new text is made its old text: an edit that
/// changes nothing, which the documents give an answer of its own.
const ONE_IN_IDENTICAL: u8 = 6;

/// Copies the text to find into the replacing text, one time in
/// [`ONE_IN_IDENTICAL`], when the tool takes both and both were drawn.
fn make_identical_now_and_then(rng: &mut Rng, tool: &ExploredTool, args: &mut Map<String, Value>) {
    let named = |wanted: &Meaning| {
        tool.arguments
            .iter()
            .find(|(_, meaning)| *meaning == wanted)
            .map(|(name, _)| name.clone())
    };
    let (Some(find), Some(replace)) = (named(&Meaning::FindText), named(&Meaning::Text)) else {
        return;
    };
    if rng.u8(..ONE_IN_IDENTICAL) != 0 || !args.contains_key(&replace) {
        return;
    }
    if let Some(old) = args.get(&find).cloned() {
        args.insert(replace, old);
    }
}

/// A value whose JSON type the schema does not allow.
fn wrong_type(schema: &Value) -> Value {
    match schema.get("type").and_then(Value::as_str) {
        Some("string") => json!(7),
        Some("array") | Some("object") => json!("not a list"),
        _ => json!("seven"),
    }
}

fn pick<'a, T>(rng: &mut Rng, items: &'a [T]) -> &'a T {
    &items[rng.usize(..items.len())]
}

fn value_for(
    rng: &mut Rng,
    meaning: &Meaning,
    schema: &Value,
    fixture: &GeneratedFixture,
) -> Value {
    match meaning {
        Meaning::Path => Value::String(path(rng, fixture)),
        Meaning::Regex => Value::String(regex(rng, fixture)),
        Meaning::Glob => json!(*pick(
            rng,
            &["*.txt", "**/*", "**/*.md", "src/*", "*", "nothing*", "[", "**/*.rs"]
        )),
        Meaning::FindText => Value::String(find_text(rng, fixture)),
        Meaning::Text => Value::String(generate_text(rng)),
        Meaning::Shell => {
            let files: Vec<&str> = fixture.files().map(|(n, _)| n).collect();
            Value::String(generate_command(rng, &files))
        }
        Meaning::ShellWithoutFiles => Value::String(generate_command_without_files(rng)),
        Meaning::Count => json!(*pick(rng, &[-1, 0, 1, 2, 3, 5, 100, 2001])),
        Meaning::Flag => Value::Bool(rng.bool()),
        Meaning::LineRange => {
            let start = *pick(rng, &[0, 1, 2, 3, 10]);
            let end = *pick(rng, &[-1, 1, 2, 4, 50]);
            json!([start, end])
        }
        Meaning::Enum => {
            let listed = schema.get("enum").and_then(Value::as_array);
            match listed {
                Some(values) if !values.is_empty() && rng.u8(..10) != 0 => {
                    pick(rng, values).clone()
                }
                _ => json!("bogus"),
            }
        }
        Meaning::OneOf(values) if !values.is_empty() && rng.u8(..10) != 0 => {
            pick(rng, values).clone()
        }
        Meaning::OneOf(_) => json!("bogus"),
        Meaning::Patch => Value::String(generate_patch(rng, fixture)),
        Meaning::TaskId if rng.u8(..6) == 0 => json!(NO_TASK),
        Meaning::TaskId => json!(format!("{{{TASK}}}")),
        Meaning::ListOf(fields) => {
            let items = schema.get("items").unwrap_or(&Value::Null);
            let objects = (0..rng.usize(1..=3))
                .map(|_| Value::Object(fields_of(rng, fields, items, fixture)))
                .collect();
            Value::Array(objects)
        }
        Meaning::Each(meaning) => {
            let items = schema.get("items").unwrap_or(&Value::Null);
            let values = (0..rng.usize(1..=3))
                .map(|_| value_for(rng, meaning, items, fixture))
                .collect();
            Value::Array(values)
        }
        Meaning::Value => plain_value(rng, schema, 0),
    }
}

/// A value of the type `schema` gives, for an argument whose kind is not known:
/// one of its `enum`, a word of the fixtures, a small number, a flag, or a list
/// or object of such values (an object with the properties it requires). Without
/// a type, a word: most untyped arguments are strings. `depth` bounds nested
/// schemas, which may refer to themselves.
fn plain_value(rng: &mut Rng, schema: &Value, depth: u8) -> Value {
    if let Some(values) = schema.get("enum").and_then(Value::as_array) {
        if !values.is_empty() {
            return pick(rng, values).clone();
        }
    }
    let kind = match schema.get("type") {
        Some(Value::String(kind)) => kind.as_str(),
        // `["string", "null"]`: the first type that is not null.
        Some(Value::Array(kinds)) => kinds
            .iter()
            .filter_map(Value::as_str)
            .find(|k| *k != "null")
            .unwrap_or("null"),
        _ => "string",
    };
    match kind {
        "integer" => json!(*pick(rng, &[0, 1, 2, 10])),
        "number" => json!(*pick(rng, &[0.0, 1.0, 2.5])),
        "boolean" => Value::Bool(rng.bool()),
        "null" => Value::Null,
        "array" if depth < 3 => {
            let items = schema.get("items").unwrap_or(&Value::Null);
            Value::Array(
                (0..rng.usize(..=2))
                    .map(|_| plain_value(rng, items, depth + 1))
                    .collect(),
            )
        }
        "object" if depth < 3 => {
            let required: Vec<&str> = schema
                .get("required")
                .and_then(Value::as_array)
                .map(|r| r.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            let mut object = Map::new();
            for name in required {
                let field = schema
                    .pointer(&format!("/properties/{name}"))
                    .unwrap_or(&Value::Null);
                object.insert(name.to_string(), plain_value(rng, field, depth + 1));
            }
            Value::Object(object)
        }
        "array" => json!([]),
        "object" => json!({}),
        _ => json!(*pick(rng, WORDS)),
    }
}

/// The fields of one object of a list, each drawn for what it means; a field
/// `item_schema` requires is left out one time in [`ONE_IN_MISSING`], another
/// one time in two.
fn fields_of(
    rng: &mut Rng,
    fields: &BTreeMap<String, Meaning>,
    item_schema: &Value,
    fixture: &GeneratedFixture,
) -> Map<String, Value> {
    let required = |name: &str| {
        item_schema
            .get("required")
            .and_then(Value::as_array)
            .is_some_and(|r| r.iter().any(|a| a.as_str() == Some(name)))
    };
    let mut object = Map::new();
    for (name, meaning) in fields {
        let include = if required(name) {
            rng.u8(..ONE_IN_MISSING) != 0
        } else {
            rng.bool()
        };
        if include {
            let schema = item_schema
                .pointer(&format!("/properties/{name}"))
                .unwrap_or(&Value::Null);
            object.insert(name.clone(), value_for(rng, meaning, schema, fixture));
        }
    }
    object
}

/// An existing file or folder, a missing one (in an existing folder or not), a
/// relative path, the file beside the root by `..`, one through `..` that stays
/// inside, or empty. The other ways out are mixed in later (`escape_gen.rs`).
fn path(rng: &mut Rng, fixture: &GeneratedFixture) -> String {
    let files: Vec<&str> = fixture.files().map(|(n, _)| n).collect();
    let folders = fixture.folders();
    let file = || -> Option<&str> { files.first().copied() };
    let any_file = if files.is_empty() {
        "a.txt".to_string()
    } else {
        files[rng.usize(..files.len())].to_string()
    };
    let links: Vec<&String> = fixture.links.keys().collect();
    match rng.u8(..13) {
        0..=3 => format!("{{root}}/{any_file}"),
        // Through a link: to a file or folder, dangling, or out of the root.
        12 if !links.is_empty() => format!("{{root}}/{}", pick(rng, &links)),
        12 => format!("{{root}}/{any_file}"),
        4 => "{root}".to_string(),
        5 if !folders.is_empty() => format!("{{root}}/{}", pick(rng, &folders)),
        5 => "{root}/".to_string(),
        6 => "{root}/missing.txt".to_string(),
        7 => "{root}/no-such-dir/new.txt".to_string(),
        8 => any_file,
        9 => OUTSIDE_BY_DOTS.to_string(),
        10 => match file() {
            Some(f) => format!("{{root}}/src/../{f}"),
            None => "{root}/..".to_string(),
        },
        _ => String::new(),
    }
}

/// How often each word occurs in the fixture's text.
fn word_counts(fixture: &GeneratedFixture) -> BTreeMap<&str, usize> {
    let mut counts = BTreeMap::new();
    for (_, text) in fixture.files() {
        for word in text.split_whitespace() {
            *counts.entry(word).or_insert(0) += 1;
        }
    }
    counts
}

/// The fixture's words found exactly once, and those found more than once.
fn words_once_and_many(fixture: &GeneratedFixture) -> (Vec<&str>, Vec<&str>) {
    let (mut once, mut many) = (Vec::new(), Vec::new());
    for (word, n) in word_counts(fixture) {
        if n == 1 {
            once.push(word);
        } else {
            many.push(word);
        }
    }
    (once, many)
}

/// A word found once, one found many times, one never found, or an invalid regex;
/// now and then a word of the fixture in capitals, which matches only where case
/// is ignored.
fn regex(rng: &mut Rng, fixture: &GeneratedFixture) -> String {
    let (once, many) = words_once_and_many(fixture);
    match rng.u8(..7) {
        5 => pick(rng, &[&once[..], &many[..], WORDS].concat()).to_uppercase(),
        0 if !once.is_empty() => pick(rng, &once).to_string(),
        1 if !many.is_empty() => pick(rng, &many).to_string(),
        2 => "zz_never".to_string(),
        3 => pick(rng, &["(unclosed", "[", "a{2"]).to_string(),
        4 => format!("^{}", pick(rng, WORDS)),
        _ => format!("{}.*", pick(rng, WORDS)),
    }
}

/// Text to find: a word found once or many times, a whole line with its ending,
/// text found nowhere, or empty.
fn find_text(rng: &mut Rng, fixture: &GeneratedFixture) -> String {
    let (once, many) = words_once_and_many(fixture);
    let lines: Vec<&str> = fixture
        .files()
        .flat_map(|(_, t)| t.split_inclusive('\n'))
        .collect();
    match rng.u8(..6) {
        0 | 1 if !once.is_empty() => pick(rng, &once).to_string(),
        2 if !many.is_empty() => pick(rng, &many).to_string(),
        3 if !lines.is_empty() => pick(rng, &lines).to_string(),
        4 => String::new(),
        _ => "zz_never".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::explore::generate::fixture_gen::generate_fixture;

    fn tool() -> ExploredTool {
        ExploredTool {
            name: "grep".into(),
            arguments: BTreeMap::from([
                ("path".to_string(), Meaning::Path),
                ("pattern".to_string(), Meaning::Regex),
            ]),
            schema: json!({"properties": {"path": {"type": "string"}, "pattern": {"type": "string"}},
                           "required": ["pattern"]}),
        }
    }

    #[test]
    fn edits_now_and_then_replace_a_text_with_itself_and_paths_go_through_links() {
        let edit = ExploredTool {
            name: "str_replace".into(),
            arguments: BTreeMap::from([
                ("path".to_string(), Meaning::Path),
                ("old_str".to_string(), Meaning::FindText),
                ("new_str".to_string(), Meaning::Text),
            ]),
            schema: json!({"properties": {"path": {"type": "string"}, "old_str": {"type": "string"},
                           "new_str": {"type": "string"}}, "required": ["path", "old_str", "new_str"]}),
        };
        let mut fixture = generate_fixture(&mut Rng::with_seed(5));
        fixture.links.insert("link-file".into(), "a.txt".into());
        let mut rng = Rng::with_seed(4);
        let calls: Vec<Map<String, Value>> = (0..300)
            .map(|_| generate_arguments(&mut rng, &edit, &fixture))
            .collect();
        let identical = calls
            .iter()
            .filter(|c| c.get("old_str").is_some() && c.get("old_str") == c.get("new_str"))
            .count();
        assert!((10..=120).contains(&identical), "{identical} of 300");
        assert!(calls
            .iter()
            .any(|c| c.get("path").and_then(Value::as_str) == Some("{root}/link-file")));
    }

    #[test]
    fn lists_of_plain_items_and_values_of_unknown_kinds_are_drawn() {
        let edit = ExploredTool {
            name: "edit_file".into(),
            arguments: BTreeMap::from([
                ("edits".to_string(), Meaning::Each(Box::new(Meaning::Value))),
                ("paths".to_string(), Meaning::Each(Box::new(Meaning::Path))),
                ("mode".to_string(), Meaning::Value),
            ]),
            schema: json!({"properties": {
                "edits": {"type": "array", "items": {"type": "object", "required": ["n"],
                          "properties": {"n": {"type": "integer"}}}},
                "paths": {"type": "array", "items": {"type": "string"}},
                "mode": {"type": ["string", "null"], "enum": ["fast", "slow"]}},
                "required": ["edits", "paths", "mode"]}),
        };
        let fixture = generate_fixture(&mut Rng::with_seed(5));
        let mut rng = Rng::with_seed(3);
        let calls: Vec<Map<String, Value>> = (0..200)
            .map(|_| generate_arguments(&mut rng, &edit, &fixture))
            .collect();
        let lists = |name: &str| -> Vec<&Vec<Value>> {
            calls
                .iter()
                .filter_map(|c| c.get(name)?.as_array())
                .collect()
        };
        assert!(lists("edits")
            .iter()
            .flat_map(|l| l.iter())
            .all(|item| item.get("n").is_some_and(Value::is_number)));
        assert!(lists("paths").iter().any(|l| l
            .iter()
            .any(|p| p.as_str().is_some_and(|p| p.starts_with("{root}")))));
        assert!(lists("paths").iter().all(|l| (1..=3).contains(&l.len())));
        assert!(calls
            .iter()
            .filter_map(|c| c.get("mode")?.as_str())
            .all(|m| m == "fast" || m == "slow" || m == "seven"));
    }

    #[test]
    fn one_seed_gives_one_call_and_the_cases_all_turn_up() {
        let fixture = generate_fixture(&mut Rng::with_seed(5));
        let a = generate_arguments(&mut Rng::with_seed(9), &tool(), &fixture);
        assert_eq!(
            a,
            generate_arguments(&mut Rng::with_seed(9), &tool(), &fixture)
        );
        let mut rng = Rng::with_seed(11);
        let calls: Vec<Map<String, Value>> = (0..400)
            .map(|_| generate_arguments(&mut rng, &tool(), &fixture))
            .collect();
        let paths: Vec<&str> = calls
            .iter()
            .filter_map(|c| c.get("path")?.as_str())
            .collect();
        assert!(paths.contains(&OUTSIDE_BY_DOTS));
        assert!(paths.iter().any(|p| p.contains("missing")));
        assert!(paths.iter().any(|p| !p.is_empty() && !p.starts_with('{')));
        assert!(calls.iter().any(|c| !c.contains_key("pattern")));
        assert!(calls
            .iter()
            .any(|c| c.get("pattern").is_some_and(Value::is_number)));
        assert!(calls
            .iter()
            .any(|c| c.get("pattern").and_then(Value::as_str) == Some("[")));
        assert!(calls.iter().any(|c| c
            .get("pattern")
            .and_then(Value::as_str)
            .is_some_and(|p| p.chars().any(char::is_uppercase))));
    }
}
