//! The seven tools, with gemini-cli's names, descriptions and parameters.
//! Their schemas do not forbid other properties, as upstream's do not.

use rmcp::model::Tool;
use serde_json::json;

use crate::dialects::common::tool_schema::open_object_tool as tool;

/// The seven tools, with gemini-cli's names and parameters.
pub(super) fn tools() -> Vec<Tool> {
    vec![
        tool(
            "list_directory",
            "List the entries of a directory, directories first.",
            json!({
                "path": {"type": "string", "description": "absolute path of the directory"},
                "ignore": {"type": "array", "items": {"type": "string"}, "description": "name patterns (* and ?) to leave out"},
            }),
            &["path"],
        ),
        tool(
            "read_file",
            "Read a text file, or a window of its lines.",
            json!({
                "absolute_path": {"type": "string", "description": "absolute path of the file"},
                "offset": {"type": "number", "description": "0-based line to start at"},
                "limit": {"type": "number", "description": "how many lines to show"},
            }),
            &["absolute_path"],
        ),
        tool(
            "write_file",
            "Write a file, creating it and its parent directories if needed.",
            json!({
                "file_path": {"type": "string", "description": "absolute path of the file"},
                "content": {"type": "string", "description": "the whole new content"},
            }),
            &["file_path", "content"],
        ),
        tool(
            "replace",
            "Replace text in a file; the number of occurrences must be the expected one.",
            json!({
                "file_path": {"type": "string", "description": "absolute path of the file"},
                "old_string": {"type": "string", "description": "the exact text to replace (empty creates a new file)"},
                "new_string": {"type": "string", "description": "the replacement text"},
                "expected_replacements": {"type": "number", "minimum": 1, "description": "how many occurrences to replace (default 1)"},
            }),
            &["file_path", "old_string", "new_string"],
        ),
        tool(
            "run_shell_command",
            "Run a command with bash -c in its own process group.",
            json!({
                "command": {"type": "string", "description": "the command"},
                "description": {"type": "string", "description": "what the command does"},
                "directory": {"type": "string", "description": "directory relative to the root to run in"},
            }),
            &["command"],
        ),
        tool(
            "search_file_content",
            "Search file contents with a regular expression.",
            json!({
                "pattern": {"type": "string", "description": "the regular expression"},
                "path": {"type": "string", "description": "directory to search (default: the root)"},
                "include": {"type": "string", "description": "glob of the files to search"},
            }),
            &["pattern"],
        ),
        tool(
            "glob",
            "Find files by glob pattern, recently modified first.",
            json!({
                "pattern": {"type": "string", "description": "the glob pattern"},
                "path": {"type": "string", "description": "directory to search (default: the root)"},
                "case_sensitive": {"type": "boolean", "description": "match case (default false)"},
            }),
            &["pattern"],
        ),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_tool_is_listed_once() {
        let names: Vec<String> = tools().iter().map(|t| t.name.to_string()).collect();
        assert_eq!(
            names,
            vec![
                "list_directory",
                "read_file",
                "write_file",
                "replace",
                "run_shell_command",
                "search_file_content",
                "glob"
            ]
        );
    }
}
