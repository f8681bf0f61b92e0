//! Inputs too rare for the main draw to reach in a short run, mixed into a case
//! after it is drawn, from a stream of its own (so every other case, and every
//! other draw of this one, stays as it was): an empty or blank command, a command
//! padded with spaces or ended by a signal; a line to find with spaces around it
//! that the file's line lacks, or that holds a regex metacharacter; a path into a sibling of
//! the root whose name starts with the root's; and now and then a fixture entry
//! of a rarer kind (a run of one letter, a binary file past a kilobyte, an empty
//! folder) that a path argument is then pointed at. Each is a case the documents
//! give an answer for that the main draw hits once in thousands of cases.

use fastrand::Rng;
use serde_json::Value;

use crate::explore::explore_file::{ExploreData, Meaning};
use crate::explore::generate::call::GeneratedCall;
use crate::explore::generate::fixture_gen::{GeneratedFixture, SIBLING_FILE};

/// How often (one in N) an argument of a meaning below is given a rare value.
const ONE_IN_RARE_VALUE: u8 = 8;

/// How often (one in N) a case gets a rare fixture entry.
const ONE_IN_RARE_ENTRY: u8 = 5;

/// A file with a run of one letter (`aa` is in it three times, overlapping) and
/// a line with a regex metacharacter in it.
const RUNS_FILE: (&str, &str) = ("runs.txt", "aaaa\nhello a.c world\n");

/// A binary file (NUL bytes) of 1,536 bytes: past a kilobyte, so a size given
/// in KB differs from one in bytes.
const BLOB_FILE: &str = "blob.bin";
const BLOB_UNIT: &str = "bin\0";
const BLOB_UNITS: usize = 384;

/// A folder with nothing in it.
const EMPTY_FOLDER: &str = "empty";

/// The rare entry's age, in seconds: none of the other entries' ages, so no
/// listing sorted by time meets a tie (see `fixture_gen::LINK_AGES`).
const RARE_AGE: i64 = 105;

/// Mixes rare inputs into a drawn case: its fixture and its calls' arguments.
/// With a rare entry added, each path argument leads to it one time in two; a
/// call's rare text to find is drawn from the file its path names, so an edit
/// looks for it where it could be found.
pub(crate) fn add_rare_inputs(
    rng: &mut Rng,
    fixture: &mut GeneratedFixture,
    calls: &mut [GeneratedCall],
    data: &ExploreData,
) {
    let added = if rng.u8(..ONE_IN_RARE_ENTRY) == 0 {
        Some(add_rare_entry(rng, fixture))
    } else {
        None
    };
    for call in calls.iter_mut() {
        let Some(tool) = data.tools.iter().find(|t| t.name == call.tool) else {
            continue;
        };
        let mut file_of_call = None;
        for (name, meaning) in &tool.arguments {
            let Some(value) = call.args.get_mut(name) else {
                continue;
            };
            if *meaning != Meaning::Path {
                continue;
            }
            match &added {
                Some(added) if rng.bool() => *value = Value::String(format!("{{root}}/{added}")),
                _ if rng.u8(..ONE_IN_RARE_VALUE) == 0 => {
                    *value = Value::String(SIBLING_FILE.to_string());
                }
                _ => {}
            }
            file_of_call = value
                .as_str()
                .and_then(|v| v.strip_prefix("{root}/"))
                .filter(|name| fixture.files().any(|(n, _)| n == *name))
                .map(str::to_string);
        }
        let on_runs = file_of_call.as_deref() == Some(RUNS_FILE.0);
        for (name, meaning) in &tool.arguments {
            let Some(value) = call.args.get_mut(name) else {
                continue;
            };
            let one_in = if on_runs { 2 } else { ONE_IN_RARE_VALUE };
            let rare = match (meaning, value.as_str()) {
                (Meaning::Shell, Some(text)) if rng.u8(..ONE_IN_RARE_VALUE) == 0 => {
                    Some(rare_command(rng, text))
                }
                (Meaning::FindText, Some(_)) if rng.u8(..one_in) == 0 => {
                    rare_find_text(rng, fixture, file_of_call.as_deref())
                }
                _ => None,
            };
            if let Some(rare) = rare {
                *value = Value::String(rare);
            }
        }
    }
}

/// Adds one rare entry to `fixture` and gives its path under the root.
fn add_rare_entry(rng: &mut Rng, fixture: &mut GeneratedFixture) -> String {
    let (name, text) = match rng.u8(..3) {
        0 => (RUNS_FILE.0.to_string(), Some(RUNS_FILE.1.to_string())),
        1 => (BLOB_FILE.to_string(), Some(BLOB_UNIT.repeat(BLOB_UNITS))),
        _ => (EMPTY_FOLDER.to_string(), None),
    };
    fixture.entries.insert(name.clone(), text);
    fixture.ages.insert(name.clone(), RARE_AGE);
    name
}

/// Empty, blank, padded with spaces, or ended by a signal (the shell kills
/// itself, which reaches nothing outside the command).
fn rare_command(rng: &mut Rng, command: &str) -> String {
    match rng.u8(..4) {
        0 => String::new(),
        1 => "   ".to_string(),
        2 => format!("  {command}  "),
        _ => format!("{command}; kill -TERM $$"),
    }
}

/// A line with spaces put around it (found only by a search that tolerates
/// whitespace at the ends of lines), a word with a letter made `.` (found only by a search that takes
/// it for a regex), or in the runs file `aa` (in it three times, overlapping);
/// drawn from the text of `file` where the call names one, else of any file.
fn rare_find_text(rng: &mut Rng, fixture: &GeneratedFixture, file: Option<&str>) -> Option<String> {
    if file == Some(RUNS_FILE.0) && rng.bool() {
        return Some("aa".to_string());
    }
    let texts: Vec<&str> = fixture
        .files()
        .filter(|(n, _)| file.is_none_or(|f| f == *n))
        .map(|(_, t)| t)
        .collect();
    if rng.bool() {
        let lines: Vec<&str> = texts
            .iter()
            .flat_map(|t| t.lines())
            .filter(|l| !l.trim().is_empty())
            .collect();
        if lines.is_empty() {
            return None;
        }
        let line = lines[rng.usize(..lines.len())];
        return Some(format!("  {line} "));
    }
    let words: Vec<&str> = texts
        .iter()
        .flat_map(|t| t.split_whitespace())
        .filter(|w| w.chars().count() >= 3 && w.is_ascii())
        .collect();
    if words.is_empty() {
        return None;
    }
    let word = words[rng.usize(..words.len())];
    Some(format!("{}.{}", &word[..1], &word[2..]))
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;
    use crate::explore::explore_file::ExploredTool;

    fn data() -> ExploreData {
        let tool = |name: &str, args: &[(&str, Meaning)]| ExploredTool {
            name: name.into(),
            arguments: args
                .iter()
                .map(|(a, m)| (a.to_string(), m.clone()))
                .collect(),
            schema: serde_json::json!({}),
        };
        ExploreData {
            tools: vec![
                tool("bash", &[("command", Meaning::Shell)]),
                tool(
                    "edit",
                    &[("path", Meaning::Path), ("old", Meaning::FindText)],
                ),
            ],
            masks: Vec::new(),
            tasks: None,
            confining: Vec::new(),
            settings: BTreeMap::new(),
        }
    }

    fn call(tool: &str, args: serde_json::Value) -> GeneratedCall {
        GeneratedCall {
            tool: tool.into(),
            args: args.as_object().cloned().unwrap_or_default(),
        }
    }

    #[test]
    fn every_rare_input_is_drawn_and_none_names_a_path_outside_the_temporary_folder() {
        let data = data();
        let mut seen = BTreeMap::<String, usize>::new();
        for seed in 0..4000 {
            let mut fixture = GeneratedFixture::default();
            fixture
                .entries
                .insert("a.txt".into(), Some("alpha beta\ngamma\n".into()));
            let mut calls = vec![
                call("bash", serde_json::json!({"command": "echo hi"})),
                call(
                    "edit",
                    serde_json::json!({"path": "{root}/a.txt", "old": "beta"}),
                ),
            ];
            add_rare_inputs(&mut Rng::with_seed(seed), &mut fixture, &mut calls, &data);
            let command = calls[0].args["command"].as_str().unwrap_or_default();
            let path = calls[1].args["path"].as_str().unwrap_or_default();
            let old = calls[1].args["old"].as_str().unwrap_or_default();
            assert!(
                path.starts_with("{root}/") || path == SIBLING_FILE,
                "{path}"
            );
            for (kind, hit) in [
                ("empty command", command.is_empty()),
                ("blank command", command == "   "),
                ("padded command", command == "  echo hi  "),
                ("signal", command == "echo hi; kill -TERM $$"),
                ("sibling", path == SIBLING_FILE),
                ("runs file", path == "{root}/runs.txt"),
                ("blob", path == "{root}/blob.bin"),
                ("empty folder", path == "{root}/empty"),
                ("spaced line", old == "  alpha beta " || old == "  gamma "),
                ("dotted word", old.contains('.') && old.len() >= 3),
                ("overlapping", old == "aa"),
            ] {
                if hit {
                    *seen.entry(kind.to_string()).or_insert(0) += 1;
                }
            }
            for rare in ["runs.txt", "blob.bin", "empty"] {
                if fixture.entries.contains_key(rare) {
                    assert_eq!(fixture.ages.get(rare), Some(&RARE_AGE), "{rare}");
                }
            }
            if path == "{root}/blob.bin" {
                let blob = fixture.entries["blob.bin"].as_deref().unwrap_or_default();
                assert_eq!(blob.len(), 1536);
                assert!(blob.contains('\0'));
            }
        }
        assert_eq!(seen.len(), 11, "{seen:?}");
        // Rare, not common: the main draw's values stay most of the time.
        assert!(seen.values().all(|&n| n < 600), "{seen:?}");
    }

    #[test]
    fn the_same_seed_mixes_in_the_same_inputs() {
        let data = data();
        let draw = || {
            let mut fixture = GeneratedFixture::default();
            let mut calls = vec![call("bash", serde_json::json!({"command": "true"}))];
            let mut rng = Rng::with_seed(7);
            for _ in 0..50 {
                add_rare_inputs(&mut rng, &mut fixture, &mut calls, &data);
            }
            (fixture, calls)
        };
        assert_eq!(draw(), draw());
    }
}
