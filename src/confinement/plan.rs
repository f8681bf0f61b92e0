//! Which escape kinds each tool of a server is tried with, and how it is called:
//! the job of a tool (read, write, edit, list, search, glob, shell) from the words
//! of its name, the argument that holds its path from its input schema, the other
//! arguments of its job filled in (`kinds.yaml`).

use std::collections::BTreeMap;
use std::path::Path;

use serde::Deserialize;
use serde_json::{Map, Value};

use crate::proposal::synonyms::{squash, Synonyms};
use crate::scenario::{parse_yaml_str, LoadError};
use crate::server::ListedTool;

/// `kinds.yaml` as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Catalogue {
    pub kinds: Vec<Kind>,
    jobs: BTreeMap<String, Job>,
    working_folder: Vec<String>,
}

/// One escape kind.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Kind {
    pub id: String,
    pub title: String,
    /// `given.outside.files`.
    pub outside: Vec<String>,
    /// Links made inside the root: name -> target.
    #[serde(default)]
    pub links: BTreeMap<String, String>,
    /// The path a call gives, by form (`file`, `new`, `folder`).
    pub paths: BTreeMap<String, String>,
}

/// How a tool of one job is called.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Job {
    forms: Vec<String>,
    #[serde(default)]
    writable: bool,
    #[serde(default)]
    fill: BTreeMap<String, String>,
}

/// The jobs, in the order a name holding words of several is given one: a shell
/// first (`run_command_in_dir`), then what changes files, then what looks
/// (`read_multiple_files` reads, `search_files` searches).
const JOBS: [&str; 7] = ["shell", "edit", "write", "read", "list", "search", "glob"];

/// The path argument taken when a tool's schema declares no properties (some
/// servers list `{}` and check their arguments themselves): the name most servers
/// give it.
const USUAL_PATH_ARGUMENT: &str = "path";

/// One tool tried with one kind: the call, or why it is not tried.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Trial {
    Call {
        /// The tool's arguments, the path in `path_argument`.
        args: Map<String, Value>,
        /// Whether the places beside the root are writable for it.
        writable: bool,
    },
    NotApplicable(String),
}

/// A tool of the server and how each kind is tried on it.
#[derive(Debug, Clone)]
pub(crate) struct ToolPlan {
    pub tool: String,
    /// Its job, when its name says one.
    pub job: Option<String>,
    /// The argument its path goes in, when it has one.
    pub path_argument: Option<String>,
    /// Per kind (in the catalogue's order), the trial.
    pub trials: Vec<Trial>,
}

impl Catalogue {
    /// The built-in catalogue.
    pub(crate) fn builtin() -> Result<Catalogue, LoadError> {
        parse_yaml_str(
            Path::new("src/confinement/kinds.yaml"),
            include_str!("kinds.yaml"),
        )
    }

    /// How every kind is tried on `tool`.
    pub(crate) fn plan(&self, tool: &ListedTool, words: &Synonyms) -> ToolPlan {
        let meanings = words.meanings(&tool.name);
        let job = JOBS
            .iter()
            .find(|job| meanings.contains(**job))
            .map(|job| job.to_string());
        let properties = tool
            .input_schema
            .get("properties")
            .and_then(Value::as_object);
        let path_argument = job.as_deref().and_then(|job| {
            if properties.is_none() && job != "shell" {
                return Some(USUAL_PATH_ARGUMENT.to_string());
            }
            let takes_text = |schema: &Value| {
                schema.get("type").is_none_or(|t| {
                    t == "string"
                        || t.as_array()
                            .is_some_and(|a| a.contains(&Value::from("string")))
                })
            };
            properties?.iter().find_map(|(name, schema)| {
                let holds_path = if job == "shell" {
                    self.working_folder
                        .iter()
                        .any(|w| squash(w) == squash(name))
                } else {
                    words.same_argument(name, "path") || words.same_argument(name, "dir_path")
                };
                (holds_path && takes_text(schema)).then(|| name.clone())
            })
        });
        let trials = self
            .kinds
            .iter()
            .map(|kind| self.trial(tool, job.as_deref(), path_argument.as_deref(), kind, words))
            .collect();
        ToolPlan {
            tool: tool.name.clone(),
            job,
            path_argument,
            trials,
        }
    }

    fn trial(
        &self,
        tool: &ListedTool,
        job: Option<&str>,
        path_argument: Option<&str>,
        kind: &Kind,
        words: &Synonyms,
    ) -> Trial {
        let Some((name, job)) = job.and_then(|j| Some((j, self.jobs.get(j)?))) else {
            return Trial::NotApplicable("its name names no job of a file tool".into());
        };
        let Some(path_argument) = path_argument else {
            return Trial::NotApplicable(if name == "shell" {
                "a shell without a working-folder argument".into()
            } else {
                "no argument that holds one path".into()
            });
        };
        let Some(path) = job.forms.iter().find_map(|form| kind.paths.get(form)) else {
            return Trial::NotApplicable(format!("no path of this kind for its job ({name})"));
        };
        let mut args = Map::new();
        args.insert(path_argument.to_string(), Value::String(path.clone()));
        let schema = &tool.input_schema;
        fill_object(schema, &job.fill, words, &mut args);
        Trial::Call {
            args,
            writable: job.writable,
        }
    }
}

/// Fills the arguments of an object schema into `args`: each one `fill` names (by
/// the synonym table), then every other required one by its type, so a tool is
/// called with what it needs and nothing it would refuse for its shape.
fn fill_object(
    schema: &Value,
    fill: &BTreeMap<String, String>,
    words: &Synonyms,
    args: &mut Map<String, Value>,
) {
    let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
        // Nothing declared: each argument of the job by the name the table gives it.
        for (name, value) in fill {
            args.entry(name.clone())
                .or_insert_with(|| Value::String(value.clone()));
        }
        return;
    };
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    for (name, property) in properties {
        if args.contains_key(name) {
            continue;
        }
        if let Some(value) = fill
            .iter()
            .find(|(stands_for, _)| words.same_argument(name, stands_for))
            .map(|(_, value)| value)
        {
            args.insert(name.clone(), Value::String(value.clone()));
        } else if required.contains(&name.as_str()) {
            args.insert(name.clone(), value_of_type(property, fill, words));
        }
    }
}

/// A plain value of the type `schema` gives: a list of one object of its items
/// (an edit's `edits`, filled the same way), an object filled, else the simplest
/// value of the type.
fn value_of_type(schema: &Value, fill: &BTreeMap<String, String>, words: &Synonyms) -> Value {
    let kind = schema
        .get("type")
        .and_then(Value::as_str)
        .unwrap_or("string");
    match kind {
        "integer" | "number" => Value::from(1),
        "boolean" => Value::Bool(false),
        "object" => {
            let mut inner = Map::new();
            fill_object(schema, fill, words, &mut inner);
            Value::Object(inner)
        }
        "array" => match schema.get("items") {
            Some(items) if items.get("type").and_then(Value::as_str) == Some("object") => {
                Value::Array(vec![value_of_type(items, fill, words)])
            }
            _ => Value::Array(Vec::new()),
        },
        _ => Value::String("x".into()),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn listed(name: &str, schema: Value) -> ListedTool {
        ListedTool {
            name: name.into(),
            description: String::new(),
            arguments: None,
            input_schema: schema,
        }
    }

    fn plan_of(name: &str, schema: Value) -> ToolPlan {
        let catalogue = Catalogue::builtin().expect("kinds.yaml");
        let words = Synonyms::builtin().expect("synonyms");
        catalogue.plan(&listed(name, schema), &words)
    }

    fn call(plan: &ToolPlan, kind: usize) -> &Map<String, Value> {
        match &plan.trials[kind] {
            Trial::Call { args, .. } => args,
            other => panic!("kind {kind} not tried: {other:?}"),
        }
    }

    #[test]
    fn each_job_gets_its_path_form_and_the_arguments_of_its_job() {
        let edit = plan_of(
            "edit_file",
            json!({"type": "object", "required": ["path", "edits"], "properties": {
                "path": {"type": "string"},
                "edits": {"type": "array", "items": {"type": "object", "required": ["oldText", "newText"], "properties": {
                    "oldText": {"type": "string"}, "newText": {"type": "string"}}}},
                "dryRun": {"type": "boolean"}}}),
        );
        assert_eq!(edit.job.as_deref(), Some("edit"));
        assert_eq!(
            Value::Object(call(&edit, 0).clone()),
            json!({"path": "{root}/../outside/secret.txt", "edits": [{"oldText": "outside the root", "newText": "escaped"}]})
        );
        // A write takes the new file a kind names, a dangling link's included.
        let write = plan_of(
            "write_file",
            json!({"properties": {"file_path": {"type": "string"}, "content": {"type": "string"}}}),
        );
        assert_eq!(
            Value::Object(call(&write, 5).clone()),
            json!({"file_path": "{root}/new.txt", "content": "escaped\n"})
        );
        // A read has no path for a dangling link, a listing none for a file link.
        let read = plan_of(
            "read_text_file",
            json!({"properties": {"path": {"type": "string"}}}),
        );
        assert!(matches!(read.trials[5], Trial::NotApplicable(_)));
        let list = plan_of(
            "list_directory",
            json!({"properties": {"path": {"type": "string"}}}),
        );
        assert_eq!(list.job.as_deref(), Some("list"));
        assert!(matches!(list.trials[3], Trial::NotApplicable(_)));
        assert_eq!(call(&list, 4)["path"], "{root}/docs");
    }

    #[test]
    fn a_shell_is_tried_through_its_working_folder_only_and_a_tool_without_a_path_not_at_all() {
        let shell = plan_of(
            "run_shell_command",
            json!({"properties": {"command": {"type": "string"}, "directory": {"type": "string"}}}),
        );
        assert_eq!(shell.job.as_deref(), Some("shell"));
        assert_eq!(shell.path_argument.as_deref(), Some("directory"));
        let bare = plan_of(
            "bash",
            json!({"properties": {"command": {"type": "string"}}}),
        );
        assert!(bare
            .trials
            .iter()
            .all(|t| matches!(t, Trial::NotApplicable(why) if why.contains("working-folder"))));
        let many = plan_of(
            "read_multiple_files",
            json!({"properties": {"paths": {"type": "array", "items": {"type": "string"}}}}),
        );
        assert!(many.path_argument.is_none());
        let other = plan_of(
            "send_email",
            json!({"properties": {"to": {"type": "string"}}}),
        );
        assert!(other.job.is_none());
    }

    /// A schema that declares no properties (server-filesystem 2025.3.28 lists
    /// `{"$schema": ...}` alone) is called with the usual names.
    #[test]
    fn a_tool_whose_schema_names_nothing_gets_the_usual_names() {
        let write = plan_of(
            "write_file",
            json!({"$schema": "http://json-schema.org/draft-07/schema#"}),
        );
        assert_eq!(
            Value::Object(call(&write, 2).clone()),
            json!({"path": "{root}_evil/new.txt", "content": "escaped\n"})
        );
    }
}
