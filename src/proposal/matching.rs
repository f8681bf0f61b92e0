//! Which tool of a server is which tool of the spec: every (spec tool, server tool)
//! pair is scored by its names, descriptions and argument names, and the best pairs
//! are taken one to one. Arguments of a matched pair are paired the same way.

use std::collections::BTreeSet;

use super::synonyms::{same_words, Synonyms};
use crate::server::ListedTool;

/// Below this a pair is not proposed: the tool is left for a person to map.
const LEAST_SCORE: f64 = 0.3;

/// What `init` proposes for one tool of the spec.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ToolMatch {
    /// The spec's name.
    pub spec: String,
    /// The server's tool, when one scored high enough.
    pub server: Option<String>,
    /// 0 to 1: how much of the name, description and arguments agree.
    pub score: f64,
    /// Why, in words, for the comment beside the rename.
    pub why: String,
    /// The spec's arguments, each with the server's name for it if one was found.
    pub arguments: Vec<ArgumentMatch>,
}

/// One argument of a matched tool.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ArgumentMatch {
    /// The spec's name.
    pub spec: String,
    /// The server's name, when one matched.
    pub server: Option<String>,
    /// How it matched: same name, synonyms, or shared words.
    pub how: &'static str,
}

/// One scored candidate pair.
struct Candidate {
    spec: usize,
    server: usize,
    score: f64,
    why: String,
    arguments: Vec<ArgumentMatch>,
}

/// The proposal for each of `spec`'s tools (in its order) against `server`'s.
pub(crate) fn match_tools(
    spec: &[ListedTool],
    server: &[ListedTool],
    table: &Synonyms,
) -> Vec<ToolMatch> {
    let mut candidates: Vec<Candidate> = Vec::new();
    for (s, spec_tool) in spec.iter().enumerate() {
        for (v, server_tool) in server.iter().enumerate() {
            candidates.push(score_pair(s, spec_tool, v, server_tool, table));
        }
    }
    candidates.sort_by(|a, b| b.score.total_cmp(&a.score));
    let mut taken_spec = BTreeSet::new();
    let mut taken_server = BTreeSet::new();
    let mut matches: Vec<ToolMatch> = spec
        .iter()
        .map(|tool| ToolMatch {
            spec: tool.name.clone(),
            server: None,
            score: 0.0,
            why: "no tool of the server is like it".to_string(),
            arguments: Vec::new(),
        })
        .collect();
    for candidate in candidates {
        if candidate.score < LEAST_SCORE
            || taken_spec.contains(&candidate.spec)
            || taken_server.contains(&candidate.server)
        {
            continue;
        }
        taken_spec.insert(candidate.spec);
        taken_server.insert(candidate.server);
        matches[candidate.spec] = ToolMatch {
            spec: spec[candidate.spec].name.clone(),
            server: Some(server[candidate.server].name.clone()),
            score: candidate.score,
            why: candidate.why,
            arguments: candidate.arguments,
        };
    }
    matches
}

fn score_pair(
    s: usize,
    spec: &ListedTool,
    v: usize,
    server: &ListedTool,
    table: &Synonyms,
) -> Candidate {
    let mut candidate = score_unweighted(s, spec, v, server, table);
    // Jobs that exclude each other (synonyms.yaml's `opposites`) rule the pair out,
    // however alike the rest: `task_output` is never `TaskStop`.
    if let Some(opposed) = table.opposed(&spec.name, &server.name) {
        candidate.score = 0.0;
        candidate.why = format!(
            "opposite jobs: `{}` in {}, `{}` in {}",
            opposed.first, spec.name, opposed.second, server.name
        );
        return candidate;
    }
    // A tool its own description calls deprecated counts for less, so a current
    // tool that fits as well wins: server-filesystem's `read_file` says to use
    // `read_text_file`. It still stands in where only a tool of another job is
    // left (Claude Code's deprecated `TaskOutput` beats its to-do list's `TaskGet`).
    if is_deprecated(&server.description) {
        candidate.score *= DEPRECATED_WEIGHT;
        candidate.why.push_str("; the server calls it deprecated");
    }
    candidate
}

/// What a tool's score is multiplied by when its description calls it deprecated.
const DEPRECATED_WEIGHT: f64 = 0.8;

fn is_deprecated(description: &str) -> bool {
    description.to_ascii_lowercase().contains("deprecated")
}

fn score_unweighted(
    s: usize,
    spec: &ListedTool,
    v: usize,
    server: &ListedTool,
    table: &Synonyms,
) -> Candidate {
    let spec_args = spec.arguments.as_deref().unwrap_or_default();
    let server_args = server.arguments.as_deref().unwrap_or_default();
    let arguments = match_arguments(spec_args, server_args, table);
    if spec.name == server.name || same_words(&spec.name, &server.name) {
        let why = if spec.name == server.name {
            "same name"
        } else {
            "same name, spelt otherwise"
        };
        return Candidate {
            spec: s,
            server: v,
            score: 1.0,
            why: why.to_string(),
            arguments,
        };
    }
    let name = overlap(&table.meanings(&spec.name), &table.meanings(&server.name));
    // Names that share no meaning are not one tool, however alike the arguments:
    // `path` and `pattern` are taken by too many tools to say which is which.
    if name == 0.0 {
        return Candidate {
            spec: s,
            server: v,
            score: 0.0,
            why: "names share no meaning".to_string(),
            arguments,
        };
    }
    let description = overlap(
        &table.meanings(&spec.description),
        &table.meanings(&server.description),
    );
    let found = arguments.iter().filter(|a| a.server.is_some()).count();
    let schema = if spec_args.is_empty() {
        if server_args.is_empty() {
            1.0
        } else {
            0.0
        }
    } else {
        found as f64 / spec_args.len() as f64
    };
    let score = 0.5 * name + 0.2 * description + 0.3 * schema;
    Candidate {
        spec: s,
        server: v,
        score,
        why: format!(
            "name {:.0}%, description {:.0}%, arguments {found}/{} alike",
            name * 100.0,
            description * 100.0,
            spec_args.len()
        ),
        arguments,
    }
}

/// Shared meanings over all meanings of the two (Jaccard), 0 when both are empty.
fn overlap(a: &BTreeSet<String>, b: &BTreeSet<String>) -> f64 {
    let all = a.union(b).count();
    if all == 0 {
        return 0.0;
    }
    a.intersection(b).count() as f64 / all as f64
}

/// Whether two argument names are alike, by one pass's measure.
type Alike<'a> = dyn Fn(&str, &str) -> bool + 'a;

/// Pairs each of `spec`'s argument names with one of `server`'s: the same name
/// first, then names of one synonym group, then names sharing more than half their meanings.
pub(crate) fn match_arguments(
    spec: &[String],
    server: &[String],
    table: &Synonyms,
) -> Vec<ArgumentMatch> {
    let mut result: Vec<ArgumentMatch> = spec
        .iter()
        .map(|name| ArgumentMatch {
            spec: name.clone(),
            server: None,
            how: "",
        })
        .collect();
    let mut taken: BTreeSet<&str> = BTreeSet::new();
    let passes: [(&'static str, &Alike); 3] = [
        ("same name", &|a, b| a == b),
        ("synonyms", &|a, b| table.same_argument(a, b)),
        ("shared words", &|a, b| {
            overlap(&table.meanings(a), &table.meanings(b)) > 0.5
        }),
    ];
    for (how, alike) in passes {
        for found in result.iter_mut().filter(|m| m.server.is_none()) {
            if let Some(name) = server
                .iter()
                .find(|name| !taken.contains(name.as_str()) && alike(&found.spec, name))
            {
                taken.insert(name);
                found.server = Some(name.clone());
                found.how = how;
            }
        }
    }
    result
}

#[cfg(test)]
mod tests {
    use super::{match_tools, Synonyms};
    use crate::server::ListedTool;

    fn tool(name: &str, description: &str, arguments: &[&str]) -> ListedTool {
        ListedTool {
            name: name.to_string(),
            description: description.to_string(),
            arguments: Some(arguments.iter().map(|a| a.to_string()).collect()),
            input_schema: serde_json::Value::Null,
        }
    }

    #[test]
    fn renamed_tools_and_arguments_are_found_and_a_stranger_is_left_alone() {
        let table = Synonyms::builtin().expect("table");
        let spec = [
            tool(
                "view",
                "View a file with line numbers.",
                &["path", "view_range"],
            ),
            tool(
                "create_file",
                "Create or overwrite a file.",
                &["path", "content"],
            ),
            tool(
                "str_replace",
                "Replace a unique string in a file.",
                &["path", "old_str", "new_str"],
            ),
            tool(
                "task_output",
                "Get the output of a background task.",
                &["task_id"],
            ),
        ];
        let server = [
            tool("write_file", "Write a file.", &["file_path", "content"]),
            tool(
                "read_file",
                "Read a file.",
                &["file_path", "offset", "limit"],
            ),
            tool(
                "edit",
                "Edit a file.",
                &["file_path", "old_string", "new_string"],
            ),
            tool("weather", "Tomorrow's forecast.", &["city"]),
        ];
        let found = match_tools(&spec, &server, &table);
        let pairs: Vec<(&str, Option<&str>)> = found
            .iter()
            .map(|m| (m.spec.as_str(), m.server.as_deref()))
            .collect();
        assert_eq!(
            pairs,
            [
                ("view", Some("read_file")),
                ("create_file", Some("write_file")),
                ("str_replace", Some("edit")),
                ("task_output", None),
            ]
        );
        let edit: Vec<(&str, Option<&str>)> = found[2]
            .arguments
            .iter()
            .map(|a| (a.spec.as_str(), a.server.as_deref()))
            .collect();
        assert_eq!(
            edit,
            [
                ("path", Some("file_path")),
                ("old_str", Some("old_string")),
                ("new_str", Some("new_string"))
            ]
        );
    }

    #[test]
    fn a_tool_of_the_opposite_job_is_never_proposed_however_alike_its_arguments() {
        let table = Synonyms::builtin().expect("table");
        let spec = [tool(
            "task_output",
            "Get the status and output of a background task.",
            &["task_id"],
        )];
        let stop = tool(
            "TaskStop",
            "Stops a running background task by its ID.",
            &["task_id", "shell_id"],
        );
        let found = match_tools(&spec, std::slice::from_ref(&stop), &table);
        assert_eq!(found[0].server, None, "{found:?}");
        // The same server tool under a name of the same job is proposed.
        let output = tool("TaskOutput", stop.description.as_str(), &["task_id"]);
        let found = match_tools(&spec, &[stop, output], &table);
        assert_eq!(found[0].server.as_deref(), Some("TaskOutput"), "{found:?}");
        assert_eq!(found[0].why, "same name, spelt otherwise");
    }

    /// A listing is never pointed at a tool that makes a folder, though both name a
    /// directory and take a path (what `init` once proposed for server-filesystem).
    #[test]
    fn a_listing_is_never_proposed_a_tool_that_creates() {
        let table = Synonyms::builtin().expect("table");
        let spec = [tool(
            "list_directory",
            "List the entries of a directory.",
            &["path"],
        )];
        let create = tool(
            "create_directory",
            "Create a new directory or ensure a directory exists.",
            &["path"],
        );
        let found = match_tools(&spec, std::slice::from_ref(&create), &table);
        assert_eq!(found[0].server, None, "{found:?}");
        let list = tool("list_dir", "List a directory.", &["path"]);
        let found = match_tools(&spec, &[create, list], &table);
        assert_eq!(found[0].server.as_deref(), Some("list_dir"), "{found:?}");
    }

    #[test]
    fn a_tool_whose_name_shares_no_meaning_is_not_proposed_for_its_arguments_alone() {
        let table = Synonyms::builtin().expect("table");
        let spec = [tool("glob", "Find files by pattern.", &["pattern", "path"])];
        let server = [tool("DesignSync", "Sync a design.", &["path", "files"])];
        let found = match_tools(&spec, &server, &table);
        assert_eq!(found[0].server, None, "{found:?}");
    }

    #[test]
    fn an_argument_sharing_only_half_its_meaning_is_left_unmatched() {
        let table = Synonyms::builtin().expect("table");
        let spec = ["path".to_string(), "new_str".to_string()];
        let server = ["edits".to_string(), "path".to_string()];
        let found = super::match_arguments(&spec, &server, &table);
        assert_eq!(found[0].server.as_deref(), Some("path"));
        assert_eq!(found[0].how, "same name");
        assert_eq!(found[1].server, None, "new_str paired with {:?}", found[1]);
    }

    #[test]
    fn a_tool_the_server_calls_deprecated_yields_to_a_current_one_but_stands_in_alone() {
        let table = Synonyms::builtin().expect("table");
        let spec = [tool("read_file", "Read a file.", &["path"])];
        let both = [
            tool(
                "read_file",
                "Read a file as text. DEPRECATED: use read_text_file instead.",
                &["path"],
            ),
            tool("read_text_file", "Read a file as text.", &["path"]),
        ];
        let found = match_tools(&spec, &both, &table);
        assert_eq!(
            found[0].server.as_deref(),
            Some("read_text_file"),
            "{found:?}"
        );
        let alone = match_tools(&spec, &both[..1], &table);
        assert_eq!(alone[0].server.as_deref(), Some("read_file"), "{alone:?}");
        assert!(alone[0].why.contains("deprecated"), "{alone:?}");
    }
}
