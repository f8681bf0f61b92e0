//! The five tools of seed 004, with upstream's names and parameters.

use rmcp::model::Tool;
use serde_json::json;

use crate::dialects::common::tool_schema::closed_object_tool as tool;

/// The five tools of seed 004, with upstream's parameters (all strings).
pub(super) fn tools() -> Vec<Tool> {
    vec![
        tool(
            "glob",
            "List the paths matching a glob pattern.",
            json!({
                "pattern": {"type": "string", "description": "glob pattern, e.g. 'src/*.c'"},
                "path": {"type": "string", "description": "directory the pattern is relative to (default: the working directory)"},
            }),
            &["pattern"],
        ),
        tool(
            "file_read",
            "Return a file's contents.",
            json!({"path": {"type": "string", "description": "file to read"}}),
            &["path"],
        ),
        tool(
            "grep",
            "Find the lines matching a POSIX extended regular expression.",
            json!({
                "pattern": {"type": "string", "description": "POSIX extended regular expression"},
                "path": {"type": "string", "description": "directory whose files are searched (default: the working directory)"},
                "glob": {"type": "string", "description": "which files of that directory to search, e.g. '*.c' (default: all)"},
            }),
            &["pattern"],
        ),
        tool(
            "file_write",
            "Create or replace a file with the given content.",
            json!({
                "path": {"type": "string", "description": "file to write; its directory must exist"},
                "content": {"type": "string", "description": "the complete new content"},
            }),
            &["path", "content"],
        ),
        tool(
            "bash",
            "Run a shell command and return its combined output and exit code.",
            json!({"command": {"type": "string", "description": "command line for bash -c"}}),
            &["command"],
        ),
    ]
}
