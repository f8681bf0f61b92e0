//! The boris tool list, with upstream's names, descriptions and parameters.

use rmcp::model::Tool;
use serde_json::json;

use crate::dialects::common::tool_schema::closed_object_tool as tool;

/// The boris tool list, with upstream's names and parameters.
pub(super) fn tools() -> Vec<Tool> {
    vec![
        tool(
            "bash",
            "Run a shell command in the working directory.",
            json!({
                "command": {"type": "string", "description": "the shell command to execute"},
                "timeout": {"type": "integer", "description": "timeout in milliseconds"},
                "run_in_background": {"type": "boolean", "description": "run the command in the background and return a task id"},
                "description": {"type": "string", "description": "what the command does"},
            }),
            &["command"],
        ),
        tool(
            "task_output",
            "Get the status and output of a background task.",
            json!({"task_id": {"type": "string", "description": "the id returned by bash with run_in_background"}}),
            &["task_id"],
        ),
        tool(
            "view",
            "View a file with line numbers, or list a directory.",
            json!({
                "path": {"type": "string", "description": "file or directory path to view"},
                "view_range": {"type": "array", "items": {"type": "integer"}, "description": "optional line range [start, end] (1-indexed)"},
            }),
            &["path"],
        ),
        tool(
            "str_replace",
            "Replace a unique string in a file.",
            json!({
                "path": {"type": "string", "description": "file path"},
                "old_str": {"type": "string", "description": "the string to find (must be unique unless replace_all is true)"},
                "new_str": {"type": "string", "description": "replacement string (empty or omitted to delete)"},
                "replace_all": {"type": "boolean", "description": "replace all occurrences instead of requiring a unique match"},
            }),
            &["path", "old_str"],
        ),
        tool(
            "create_file",
            "Create or overwrite a file, making parent directories.",
            json!({
                "path": {"type": "string", "description": "file path"},
                "content": {"type": "string", "description": "the full file content"},
            }),
            &["path", "content"],
        ),
        tool(
            "grep",
            "Search file contents with a regular expression.",
            json!({
                "pattern": {"type": "string", "description": "the regex pattern to search for in file contents"},
                "path": {"type": "string", "description": "file or directory to search in (defaults to the working directory)"},
                "include": {"type": "string", "description": "glob pattern to filter files (e.g. '*.js')"},
                "type": {"type": "string", "description": "file type to search (e.g. js, py, go, ts)"},
                "output_mode": {"type": "string", "description": "content, files_with_matches (default), or count"},
                "case_insensitive": {"type": "boolean"},
                "line_numbers": {"type": "boolean", "description": "show line numbers in content mode (default true)"},
                "multiline": {"type": "boolean", "description": "let . match newlines and patterns span lines"},
                "head_limit": {"type": "integer", "description": "limit output to the first N results (0 = unlimited)"},
                "offset": {"type": "integer", "description": "skip the first N results"},
                "context_before": {"type": "integer"},
                "context_after": {"type": "integer"},
                "context": {"type": "integer"},
            }),
            &["pattern"],
        ),
        tool(
            "glob",
            "Find files and directories by glob pattern.",
            json!({
                "pattern": {"type": "string", "description": "the glob pattern to match paths against"},
                "path": {"type": "string", "description": "the directory to search in (defaults to the working directory)"},
                "type": {"type": "string", "description": "filter by type: file or directory"},
            }),
            &["pattern"],
        ),
    ]
}
