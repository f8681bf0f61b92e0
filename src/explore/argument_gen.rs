//! A tool's arguments, drawn from its input schema and what `explore.yaml` says
//! each argument means, with values taken from the generated fixture so that they
//! hit the interesting cases: a path that exists or not, text found once, many
//! times or never; and now and then an argument left out, empty or of the wrong
//! type. Paths and commands hold `{root}`, filled in per side at call time.

use std::collections::BTreeMap;

use fastrand::Rng;
use serde_json::{json, Map, Value};

use super::explore_file::{ExploredTool, Meaning};
use super::fixture_gen::{generate_text, GeneratedFixture, CANARY, WORDS};
use super::shell_gen::generate_command;

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
    args
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
    }
}

/// An existing file or folder, a missing one (in an existing folder or not), a
/// relative path, one outside the root (the canary), one through `..`, or empty.
fn path(rng: &mut Rng, fixture: &GeneratedFixture) -> String {
    let files: Vec<&str> = fixture.files().map(|(n, _)| n).collect();
    let folders = fixture.folders();
    let file = || -> Option<&str> { files.first().copied() };
    let any_file = if files.is_empty() {
        "a.txt".to_string()
    } else {
        files[rng.usize(..files.len())].to_string()
    };
    match rng.u8(..12) {
        0..=3 => format!("{{root}}/{any_file}"),
        4 => "{root}".to_string(),
        5 if !folders.is_empty() => format!("{{root}}/{}", pick(rng, &folders)),
        5 => "{root}/".to_string(),
        6 => "{root}/missing.txt".to_string(),
        7 => "{root}/no-such-dir/new.txt".to_string(),
        8 => any_file,
        9 => format!("{{root}}/../{CANARY}"),
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

/// A word found once, one found many times, one never found, or an invalid regex.
fn regex(rng: &mut Rng, fixture: &GeneratedFixture) -> String {
    let (once, many) = words_once_and_many(fixture);
    match rng.u8(..6) {
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
    use crate::explore::fixture_gen::generate_fixture;

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
        assert!(paths.iter().any(|p| p.contains("/../outside/")));
        assert!(paths.iter().any(|p| p.contains("missing")));
        assert!(paths.iter().any(|p| !p.is_empty() && !p.starts_with('{')));
        assert!(calls.iter().any(|c| !c.contains_key("pattern")));
        assert!(calls
            .iter()
            .any(|c| c.get("pattern").is_some_and(Value::is_number)));
        assert!(calls
            .iter()
            .any(|c| c.get("pattern").and_then(Value::as_str) == Some("[")));
    }
}
