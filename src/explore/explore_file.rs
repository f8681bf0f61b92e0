//! A suite's `explore.yaml`: which tools explore calls, what each of their
//! arguments means, and which parts of an answer change from run to run. Read
//! strictly like every suite file, then checked against the oracle's tools/list,
//! so a misspelt tool or argument is a clear error instead of a silent gap.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use regex::Regex;
use serde::Deserialize;

use crate::scenario::{find_line, parse_yaml_str, LoadError, Suite, EXPLORE_FILE};
use crate::server::ListedTool;

/// What an argument's value stands for, which decides how values are drawn.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub(crate) enum Meaning {
    /// A file or folder path: existing, missing, relative, outside the root, `..`.
    Path,
    /// A regular expression drawn from the fixture's text.
    Regex,
    /// A glob pattern.
    Glob,
    /// Text to find in a file, drawn from the fixture's text.
    FindText,
    /// Text to write.
    Text,
    /// A shell command from the safe grammar.
    Shell,
    /// A shell command that touches no file (prints, sleeps, exits): for one run
    /// in the background, which would race with the calls made meanwhile.
    ShellWithoutFiles,
    /// A whole number.
    Count,
    /// A boolean.
    Flag,
    /// `[start, end]` line numbers.
    LineRange,
    /// One of the values the tool's schema lists in `enum`.
    Enum,
    /// One of these values.
    OneOf(Vec<serde_json::Value>),
    /// A unified diff of the fixture's files (a change that applies, one that
    /// does not, a new file).
    Patch,
    /// A list of one to three objects whose fields mean these (`multi_edit`'s
    /// edits); where the schema's `items` declares `properties`, the fields must
    /// be among them (items that declare none are taken on trust).
    ListOf(BTreeMap<String, Meaning>),
    /// A list of one to three values, each drawn for this meaning (a list of
    /// paths, of words): for items that are not objects, or declare no fields.
    Each(Box<Meaning>),
    /// A plain value of the type the argument's schema gives (a word, a small
    /// number, a flag, an empty list or object): for an argument whose kind
    /// neither its schema nor its name tells, so the call is still made.
    Value,
    /// The id of the background task an earlier call of the case started, which
    /// each side fills in with its own (`{task}`, read with `tasks.started`), or
    /// now and then an id no task has.
    TaskId,
}

/// How a suite's background tasks are read, as `explore.yaml`'s `tasks:` gives it.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct TasksText {
    started: String,
    running: String,
    /// The call that starts a task: a tool of `tools:` and arguments fixed on
    /// top of those drawn for it.
    start: StartText,
}

/// `tasks.start` as written.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct StartText {
    tool: String,
    args: serde_json::Map<String, serde_json::Value>,
    /// Arguments drawn with another meaning than `tools:` gives them.
    #[serde(default)]
    draw: BTreeMap<String, Meaning>,
}

/// How a suite's background tasks are read: the id an answer that started one
/// gives, and an answer saying a task still runs, which is asked again until it
/// ends so that two honest runs read the same.
#[derive(Debug, Clone)]
pub(crate) struct TaskRules {
    /// Its first group is the task's id.
    pub started: Regex,
    pub running: Regex,
    /// The tool whose call starts a task, and the arguments that make it.
    pub start_tool: String,
    pub start_args: serde_json::Map<String, serde_json::Value>,
    /// Arguments of the starting call drawn with another meaning.
    pub start_draw: BTreeMap<String, Meaning>,
}

/// `explore.yaml` as written.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct ExploreText {
    /// Suite tool name -> (argument name -> meaning). Only these tools are called,
    /// with only these arguments.
    tools: BTreeMap<String, BTreeMap<String, Meaning>>,
    /// Regexes for the parts of an answer that differ between two honest runs
    /// (process ids, task ids): each match is masked before texts are compared.
    #[serde(default)]
    mask: Vec<String>,
    /// Server setting -> the values drawn for it. Each must be in the suite's
    /// `reference.settings`; a case gets some of them now and then.
    #[serde(default)]
    settings: BTreeMap<String, Vec<serde_json::Value>>,
    /// How background tasks are read, for `task-id` arguments.
    #[serde(default)]
    tasks: Option<TasksText>,
}

/// One tool explore calls: its arguments' meanings and its listed input schema.
#[derive(Debug, Clone)]
pub(crate) struct ExploredTool {
    pub name: String,
    pub arguments: BTreeMap<String, Meaning>,
    pub schema: serde_json::Value,
}

impl ExploredTool {
    /// Whether the schema lists `argument` as required.
    pub(crate) fn requires(&self, argument: &str) -> bool {
        self.schema
            .get("required")
            .and_then(|r| r.as_array())
            .is_some_and(|r| r.iter().any(|a| a.as_str() == Some(argument)))
    }

    /// The schema of one argument, or `null`.
    pub(crate) fn argument_schema(&self, argument: &str) -> &serde_json::Value {
        self.schema
            .pointer(&format!("/properties/{argument}"))
            .unwrap_or(&serde_json::Value::Null)
    }
}

/// A suite's explore data, checked against the oracle's tools.
#[derive(Debug, Clone)]
pub(crate) struct ExploreData {
    /// In name order, which is the order generation draws from.
    pub tools: Vec<ExploredTool>,
    pub masks: Vec<Regex>,
    /// Setting -> the values drawn for it, in name order; only settings both
    /// sides can express are kept (see [`ExploreData::keep_settings`]).
    pub settings: BTreeMap<String, Vec<serde_json::Value>>,
    /// How background tasks are read; required when an argument is a `task-id`.
    pub tasks: Option<TaskRules>,
    /// The settings under which the suite's program stays inside its root
    /// (`confinement.when_settings` in `suite.yaml`): a case given a route out of
    /// its root draws one of them more often (`escape_gen.rs`).
    pub confining: Vec<String>,
}

impl ExploreData {
    /// Keeps only the settings `expressible` says a side maps to flags, and
    /// returns the names of those left out.
    pub(crate) fn keep_settings(&mut self, expressible: impl Fn(&str) -> bool) -> Vec<String> {
        let dropped: Vec<String> = self
            .settings
            .keys()
            .filter(|name| !expressible(name))
            .cloned()
            .collect();
        self.settings.retain(|name, _| expressible(name));
        dropped
    }
}

/// The `tasks:` section compiled; an error when a regex does not compile, when
/// `started` has no group for the id, or when a `task-id` argument has no
/// `tasks:` to be read with.
fn task_rules(
    path: &Path,
    text: &str,
    written: Option<&TasksText>,
    tools: &[ExploredTool],
    errors: &mut Vec<LoadError>,
) -> Option<TaskRules> {
    let Some(written) = written else {
        if let Some((tool, argument)) = tools.iter().find_map(|t| {
            t.arguments
                .iter()
                .find(|(_, m)| **m == Meaning::TaskId)
                .map(|(a, _)| (&t.name, a))
        }) {
            errors.push(LoadError::new(
                path,
                find_line(text, "task-id"),
                format!("`{tool}.{argument}: task-id` needs a `tasks:` section saying how a task's id and a running task's answer are read"),
            ));
        }
        return None;
    };
    let line = find_line(text, "tasks");
    let mut compiled = |key: &str, pattern: &str| match Regex::new(pattern) {
        Ok(regex) => Some(regex),
        Err(e) => {
            errors.push(LoadError::new(
                path,
                line,
                format!("tasks.{key} `{pattern}` is not a valid regex: {e}"),
            ));
            None
        }
    };
    let started = compiled("started", &written.started);
    let running = compiled("running", &written.running);
    let (started, running) = (started?, running?);
    if started.captures_len() < 2 {
        errors.push(LoadError::new(
            path,
            line,
            format!(
                "tasks.started `{}` has no group for the id",
                written.started
            ),
        ));
        return None;
    }
    if !tools.iter().any(|t| t.name == written.start.tool) {
        errors.push(LoadError::new(
            path,
            line_of_key(text, "tool", line.unwrap_or(0)),
            format!(
                "tasks.start names tool `{}`, which `tools:` does not explore",
                written.start.tool
            ),
        ));
        return None;
    }
    Some(TaskRules {
        started,
        running,
        start_tool: written.start.tool.clone(),
        start_args: written.start.args.clone(),
        start_draw: written.start.draw.clone(),
    })
}

/// Every argument `tasks.start` sets (`args:`) or draws (`draw:`) must be one of
/// the starting tool's input schema, as every argument under `tools:` must: a
/// misspelt one would start no task, and every `task-id` drawn after it would
/// name none.
fn start_arguments_in_schema(
    path: &Path,
    text: &str,
    rules: &TaskRules,
    listed: &[ListedTool],
    errors: &mut Vec<LoadError>,
) {
    let properties = listed
        .iter()
        .find(|t| t.name == rules.start_tool)
        .and_then(|t| t.input_schema.get("properties"))
        .and_then(|p| p.as_object());
    let tasks_line = find_line(text, "tasks");
    let named = rules
        .start_args
        .keys()
        .map(|a| ("args", a))
        .chain(rules.start_draw.keys().map(|a| ("draw", a)));
    for (under, argument) in named {
        if properties.is_some_and(|p| p.contains_key(argument)) {
            continue;
        }
        errors.push(LoadError::new(
            path,
            line_of_key(text, argument, tasks_line.unwrap_or(0)),
            format!(
                "tasks.start.{under} names `{argument}`, which is not in tool `{}`'s input schema (it has: {})",
                rules.start_tool,
                names_in(properties)
            ),
        ));
    }
}

/// The names of a schema's `properties`, comma-separated, for an error that
/// says which there are.
fn names_in(properties: Option<&serde_json::Map<String, serde_json::Value>>) -> String {
    let names: Vec<&str> = properties
        .map(|p| p.keys().map(String::as_str).collect())
        .unwrap_or_default();
    names.join(", ")
}

/// Where a suite's explore file is.
pub(crate) fn explore_file_path(suite: &Suite) -> PathBuf {
    suite.dir.join(EXPLORE_FILE)
}

/// Reads an explore file's text (the suite's `explore.yaml`, or one derived from
/// the oracle's tools/list, `derived_file.rs`) and checks it against `listed`, the
/// oracle's tools/list: every tool must be listed, every argument in its input
/// schema, every `enum` argument must have an `enum` there, and every mask must
/// compile; every setting must be one the suite's reference server maps to flags
/// (`reference_settings`, its `reference.settings`).
pub(crate) fn explore_data_from_text(
    path: &Path,
    text: &str,
    listed: &[ListedTool],
    reference_settings: &BTreeMap<String, Vec<String>>,
) -> Result<ExploreData, Vec<LoadError>> {
    let written: ExploreText = parse_yaml_str(path, text).map_err(|e| vec![e])?;
    let mut errors = Vec::new();
    if written.tools.is_empty() {
        errors.push(LoadError::new(
            path,
            find_line(text, "tools"),
            "`tools` names no tool to explore",
        ));
    }
    let mut tools = Vec::new();
    for (name, arguments) in &written.tools {
        let tool_line = line_of_key(text, name, 0);
        let Some(found) = listed.iter().find(|t| &t.name == name) else {
            let names: Vec<&str> = listed.iter().map(|t| t.name.as_str()).collect();
            errors.push(LoadError::new(
                path,
                tool_line,
                format!(
                    "tool `{name}` is not in the oracle's tools/list, which lists: {}",
                    names.join(", ")
                ),
            ));
            continue;
        };
        let properties = found
            .input_schema
            .get("properties")
            .and_then(|p| p.as_object());
        for (argument, meaning) in arguments {
            let line = line_of_key(text, argument, tool_line.unwrap_or(0));
            let Some(schema) = properties.and_then(|p| p.get(argument)) else {
                errors.push(LoadError::new(
                    path,
                    line,
                    format!(
                        "tool `{name}` has no argument `{argument}` in its input schema (it has: {})",
                        names_in(properties)
                    ),
                ));
                continue;
            };
            // Items that declare no properties (or no schema at all) say nothing
            // a field could be checked against, so the fields are taken as written.
            let items = schema
                .pointer("/items/properties")
                .and_then(|p| p.as_object());
            if let (Meaning::ListOf(fields), Some(declared)) = (meaning, items) {
                for field in fields.keys() {
                    if !declared.contains_key(field) {
                        errors.push(LoadError::new(
                            path,
                            line_of_key(text, field, line.unwrap_or(0)),
                            format!(
                                "`{name}.{argument}` lists objects with no field `{field}` in its schema's `items` (they have: {})",
                                names_in(items)
                            ),
                        ));
                    }
                }
            }
            if *meaning == Meaning::Enum && schema.get("enum").and_then(|e| e.as_array()).is_none()
            {
                errors.push(LoadError::new(
                    path,
                    line,
                    format!(
                        "`{name}.{argument}: enum`, but its schema lists no `enum`; give the values with `one-of: [...]`"
                    ),
                ));
            }
        }
        tools.push(ExploredTool {
            name: name.clone(),
            arguments: arguments.clone(),
            schema: found.input_schema.clone(),
        });
    }
    let mut masks = Vec::new();
    for pattern in &written.mask {
        match Regex::new(pattern) {
            Ok(regex) => masks.push(regex),
            Err(e) => errors.push(LoadError::new(
                path,
                find_line(text, pattern),
                format!("mask `{pattern}` is not a valid regex: {e}"),
            )),
        }
    }
    let settings_line = find_line(text, "settings");
    for (name, values) in &written.settings {
        let line = line_of_key(text, name, settings_line.unwrap_or(0));
        if !reference_settings.contains_key(name) {
            let known: Vec<&str> = reference_settings.keys().map(String::as_str).collect();
            errors.push(LoadError::new(
                path,
                line,
                format!(
                    "setting `{name}` is not in the suite's reference.settings (it has: {})",
                    if known.is_empty() {
                        "none".to_string()
                    } else {
                        known.join(", ")
                    }
                ),
            ));
        } else if values.is_empty() {
            errors.push(LoadError::new(
                path,
                line,
                format!("setting `{name}` lists no value to draw"),
            ));
        }
    }
    let tasks = task_rules(path, text, written.tasks.as_ref(), &tools, &mut errors);
    if let Some(rules) = &tasks {
        start_arguments_in_schema(path, text, rules, listed, &mut errors);
    }
    if errors.is_empty() {
        Ok(ExploreData {
            tools,
            masks,
            tasks,
            settings: written.settings,
            confining: Vec::new(),
        })
    } else {
        Err(errors)
    }
}

/// The 1-based line of the first line from line `from` on (1-based; 0 is the
/// start) where `key:` is written as a key, in block or flow style, for errors
/// that name a key the YAML parser accepted.
fn line_of_key(text: &str, key: &str, from: usize) -> Option<usize> {
    let plain = format!("{key}:");
    let quoted = format!("\"{key}\":");
    let is_key_at = |line: &str, at: usize| {
        line[..at]
            .chars()
            .next_back()
            .is_none_or(|c| c.is_whitespace() || c == '{' || c == ',')
    };
    text.lines()
        .enumerate()
        .skip(from.saturating_sub(1))
        .find(|(_, line)| {
            [&plain, &quoted].iter().any(|needle| {
                line.match_indices(needle.as_str())
                    .any(|(at, _)| is_key_at(line, at))
            })
        })
        .map(|(i, _)| i + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn view() -> ListedTool {
        ListedTool {
            name: "view".into(),
            description: String::new(),
            arguments: Some(vec!["path".into()]),
            input_schema: serde_json::json!({
                "type": "object",
                "properties": {"path": {"type": "string"}},
                "required": ["path"]
            }),
        }
    }

    #[test]
    fn a_known_tool_and_argument_load() {
        let data = explore_data_from_text(
            Path::new("explore.yaml"),
            "tools:\n  view:\n    path: path\nmask: ['pid \\d+']\n",
            &[view()],
            &BTreeMap::new(),
        )
        .expect("loads");
        assert_eq!(data.tools[0].arguments["path"], Meaning::Path);
        assert!(data.tools[0].requires("path"));
        assert_eq!(data.masks.len(), 1);
    }

    #[test]
    fn an_argument_the_tool_lacks_is_an_error_at_its_line() {
        let errors = explore_data_from_text(
            Path::new("explore.yaml"),
            "tools:\n  view:\n    path: path\n    lines: count\n",
            &[view()],
            &BTreeMap::new(),
        )
        .expect_err("refused");
        let shown = errors[0].to_string();
        assert!(shown.starts_with("explore.yaml:4:"), "{shown}");
        assert!(shown.contains("no argument `lines`"), "{shown}");
    }

    #[test]
    fn a_list_of_objects_names_only_fields_its_items_have() {
        let multi_edit = ListedTool {
            name: "multi_edit".into(),
            description: String::new(),
            arguments: Some(vec!["edits".into()]),
            input_schema: serde_json::json!({
                "properties": {"edits": {"type": "array", "items": {
                    "type": "object",
                    "properties": {"old_string": {"type": "string"}, "new_string": {"type": "string"}},
                    "required": ["old_string", "new_string"]}}}
            }),
        };
        let good = "tools:\n  multi_edit:\n    edits: { list-of: { old_string: find-text, new_string: text } }\n";
        let data = explore_data_from_text(
            Path::new("e.yaml"),
            good,
            std::slice::from_ref(&multi_edit),
            &BTreeMap::new(),
        )
        .expect("loads");
        assert!(matches!(&data.tools[0].arguments["edits"], Meaning::ListOf(f) if f.len() == 2));
        let bad = "tools:\n  multi_edit:\n    edits:\n      list-of:\n        old_string: find-text\n        old: text\n";
        let errors =
            explore_data_from_text(Path::new("e.yaml"), bad, &[multi_edit], &BTreeMap::new())
                .expect_err("refused");
        let shown = errors[0].to_string();
        assert!(
            shown.starts_with("e.yaml:6: `multi_edit.edits` lists objects with no field `old`"),
            "{shown}"
        );
        assert!(
            shown.contains("(they have: new_string, old_string)"),
            "{shown}"
        );
    }

    #[test]
    fn a_list_whose_items_declare_no_properties_takes_its_fields_on_trust() {
        let edit = ListedTool {
            name: "edit_file".into(),
            description: String::new(),
            arguments: Some(vec!["edits".into(), "paths".into()]),
            input_schema: serde_json::json!({
                "properties": {
                    "edits": {"type": "array", "items": {"type": "object"}},
                    "paths": {"type": "array"}
                }
            }),
        };
        let text = "tools:\n  edit_file:\n    edits: { list-of: { oldText: find-text, newText: text } }\n    paths: { each: path }\n";
        let data = explore_data_from_text(Path::new("e.yaml"), text, &[edit], &BTreeMap::new())
            .expect("loads");
        assert!(matches!(&data.tools[0].arguments["edits"], Meaning::ListOf(f) if f.len() == 2));
        assert_eq!(
            data.tools[0].arguments["paths"],
            Meaning::Each(Box::new(Meaning::Path))
        );
    }

    #[test]
    fn a_task_id_needs_a_tasks_section_that_names_an_explored_tool() {
        let task_output = ListedTool {
            name: "task_output".into(),
            description: String::new(),
            arguments: Some(vec!["task_id".into()]),
            input_schema: serde_json::json!({"properties": {"task_id": {"type": "string"}}}),
        };
        let listed = [task_output, view()];
        let load = |text: &str| {
            explore_data_from_text(Path::new("e.yaml"), text, &listed, &BTreeMap::new())
                .map_err(|errors| errors[0].to_string())
        };
        let without = load("tools:\n  task_output: { task_id: task-id }\n").expect_err("refused");
        assert!(
            without
                .starts_with("e.yaml:2: `task_output.task_id: task-id` needs a `tasks:` section"),
            "{without}"
        );
        let tasks = "tasks:\n  started: 'id: (\\w+)'\n  running: 'running'\n  start: { tool: view, args: {} }\n";
        let good = load(&format!(
            "tools:\n  task_output: {{ task_id: task-id }}\n  view: {{ path: path }}\n{tasks}"
        ))
        .expect("loads");
        assert_eq!(good.tasks.map(|t| t.start_tool).as_deref(), Some("view"));
        let unexplored = load(&format!(
            "tools:\n  task_output: {{ task_id: task-id }}\n{tasks}"
        ))
        .expect_err("refused");
        assert!(
            unexplored.contains("tasks.start names tool `view`, which `tools:` does not explore"),
            "{unexplored}"
        );
        let no_group = load(&format!(
            "tools:\n  view: {{ path: path }}\n{}",
            tasks.replace("(\\w+)", "\\w+")
        ))
        .expect_err("refused");
        assert!(no_group.contains("has no group for the id"), "{no_group}");
        for (start, named) in [
            (
                "{ tool: view, args: { depth: 2 } }",
                "tasks.start.args names `depth`",
            ),
            (
                "{ tool: view, args: {}, draw: { command: shell } }",
                "tasks.start.draw names `command`",
            ),
        ] {
            let misspelt = load(&format!(
                "tools:\n  task_output: {{ task_id: task-id }}\n  view: {{ path: path }}\n{}",
                tasks.replace("{ tool: view, args: {} }", start)
            ))
            .expect_err("refused");
            assert!(
                misspelt.starts_with("e.yaml:")
                    && misspelt.contains(named)
                    && misspelt
                        .contains("which is not in tool `view`'s input schema (it has: path)"),
                "{misspelt}"
            );
        }
    }

    #[test]
    fn an_argument_in_a_flow_mapping_is_found_on_its_line() {
        let errors = explore_data_from_text(
            Path::new("explore.yaml"),
            "tools:\n  view: { path: path, depth: count }\n",
            &[view()],
            &BTreeMap::new(),
        )
        .expect_err("refused");
        assert!(
            errors[0]
                .to_string()
                .starts_with("explore.yaml:2: tool `view` has no argument `depth`"),
            "{:?}",
            errors
        );
    }

    #[test]
    fn an_unknown_tool_meaning_or_key_is_an_error() {
        let unknown_tool = explore_data_from_text(
            Path::new("e.yaml"),
            "tools:\n  cat:\n    path: path\n",
            &[view()],
            &BTreeMap::new(),
        )
        .expect_err("refused");
        assert!(
            unknown_tool[0].to_string().contains("e.yaml:2: tool `cat`"),
            "{:?}",
            unknown_tool
        );
        let bad_meaning = explore_data_from_text(
            Path::new("e.yaml"),
            "tools:\n  view:\n    path: file\n",
            &[view()],
            &BTreeMap::new(),
        )
        .expect_err("refused");
        assert!(
            bad_meaning[0].to_string().contains("e.yaml:3"),
            "{:?}",
            bad_meaning
        );
        let bad_key = explore_data_from_text(
            Path::new("e.yaml"),
            "tool: {}\n",
            &[view()],
            &BTreeMap::new(),
        )
        .expect_err("refused");
        assert!(
            bad_key[0].to_string().contains("unknown field"),
            "{:?}",
            bad_key
        );
    }

    #[test]
    fn settings_must_be_the_oracles_and_list_values() {
        let oracle = BTreeMap::from([(
            "max_file_size".to_string(),
            vec!["--max-file-size".to_string(), "{value}".to_string()],
        )]);
        let text = "tools:\n  view: { path: path }\nsettings:\n  max_file_size: [16, 64]\n";
        let mut data =
            explore_data_from_text(Path::new("e.yaml"), text, &[view()], &oracle).expect("loads");
        assert_eq!(data.settings["max_file_size"].len(), 2);
        assert_eq!(data.keep_settings(|_| false), vec!["max_file_size"]);
        assert!(data.settings.is_empty());
        let errors = explore_data_from_text(
            Path::new("e.yaml"),
            "tools:\n  view: { path: path }\nsettings:\n  max_file_size: []\n  read_only: [true]\n",
            &[view()],
            &oracle,
        )
        .expect_err("refused");
        let shown: Vec<String> = errors.iter().map(ToString::to_string).collect();
        assert!(
            shown[0].starts_with("e.yaml:4: setting `max_file_size` lists no value"),
            "{shown:?}"
        );
        assert!(
            shown[1].starts_with("e.yaml:5: setting `read_only` is not in the suite's"),
            "{shown:?}"
        );
    }
}
