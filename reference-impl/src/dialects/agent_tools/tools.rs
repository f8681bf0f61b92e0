//! The nine tools of @clarvis/agent-tools v0.1.0, with upstream's parameter
//! names, as JSON Schemas for `tools/list`.

use crate::dialects::common::tool_schema::closed_object_tool as tool;

use rmcp::model::Tool;
use serde_json::json;

/// Tools that change files or run commands. Upstream marks `bash` as
/// mutating too, so read-only mode hides it with the four writers.
pub(crate) const MUTATING: &[&str] = &[
    "write_file",
    "edit_file",
    "multi_edit",
    "apply_patch",
    "bash",
];

/// Every tool, mutating or not.
pub(super) fn all() -> Vec<Tool> {
    vec![
        tool(
            "read_file",
            "Read a text file; each line is prefixed with its number (right-aligned to 6) and a tab.",
            json!({
                "path": {"type": "string", "description": "file to read, relative to the workspace root"},
                "offset": {"type": "integer", "description": "first line, 1-based; negative counts from the end; 0 is invalid"},
                "limit": {"type": "integer", "minimum": 1, "description": "most lines to return (default 2000)"},
            }),
            &["path"],
        ),
        tool(
            "list_dir",
            "List a directory: directories first as `name/`, then files as `name<TAB>size`.",
            json!({"path": {"type": "string", "description": "directory to list (default: the workspace root)"}}),
            &[],
        ),
        tool(
            "glob",
            "Find files by glob pattern; workspace-relative paths, most recently modified first.",
            json!({
                "pattern": {"type": "string", "description": "glob such as **/*.rs, relative to path"},
                "path": {"type": "string", "description": "directory to search from (default: the workspace root)"},
                "respect_gitignore": {"type": "boolean", "description": "skip .git and files the root .gitignore ignores (default true)"},
            }),
            &["pattern"],
        ),
        tool(
            "grep",
            "Search file contents with a regular expression.",
            json!({
                "pattern": {"type": "string", "description": "regular expression (Rust regex syntax)"},
                "path": {"type": "string", "description": "file or directory to search (default: the workspace root)"},
                "glob": {"type": "string", "description": "only search files whose path or name matches this glob"},
                "output_mode": {"type": "string", "enum": ["files_with_matches", "content", "count"], "description": "what to list (default files_with_matches)"},
                "ignore_case": {"type": "boolean"},
                "multiline": {"type": "boolean", "description": "let matches span lines"},
                "context": {"type": "integer", "minimum": 0, "description": "lines of context on both sides (content mode)"},
                "before_context": {"type": "integer", "minimum": 0},
                "after_context": {"type": "integer", "minimum": 0},
                "head_limit": {"type": "integer", "minimum": 1, "description": "most results to return"},
                "offset": {"type": "integer", "minimum": 0, "description": "results to skip"},
            }),
            &["pattern"],
        ),
        tool(
            "write_file",
            "Create or overwrite a file with exactly the given content (atomically).",
            json!({
                "path": {"type": "string", "description": "file to write, relative to the workspace root"},
                "content": {"type": "string", "description": "the whole new content"},
            }),
            &["path", "content"],
        ),
        tool(
            "edit_file",
            "Replace an exact, unique occurrence of old_string with new_string.",
            json!({
                "path": {"type": "string"},
                "old_string": {"type": "string", "minLength": 1, "description": "text to find, matched literally"},
                "new_string": {"type": "string", "description": "replacement; must differ from old_string"},
                "replace_all": {"type": "boolean", "description": "replace every occurrence (default false)"},
            }),
            &["path", "old_string", "new_string"],
        ),
        tool(
            "multi_edit",
            "Apply several edits to one file, in order, all or nothing.",
            json!({
                "path": {"type": "string"},
                "edits": {
                    "type": "array",
                    "minItems": 1,
                    "items": {
                        "type": "object",
                        "properties": {
                            "old_string": {"type": "string"},
                            "new_string": {"type": "string"},
                            "replace_all": {"type": "boolean"},
                        },
                        "required": ["old_string", "new_string"],
                        "additionalProperties": false,
                    },
                },
            }),
            &["path", "edits"],
        ),
        tool(
            "apply_patch",
            "Apply a unified diff to one or more files, all or nothing.",
            json!({"patch": {"type": "string", "description": "unified diff with ---/+++ headers and @@ hunks"}}),
            &["patch"],
        ),
        tool(
            "bash",
            "Run a shell command; the result is JSON {exit_code, stdout, stderr, signal, timed_out}.",
            json!({
                "command": {"type": "string"},
                "cwd": {"type": "string", "description": "working directory (default: the workspace root)"},
                "timeout_ms": {"type": "integer", "minimum": 1, "description": "time limit in ms (default from --timeout, at most 600000)"},
            }),
            &["command"],
        ),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_mutating_tool_exists() {
        let names: Vec<String> = all().iter().map(|t| t.name.to_string()).collect();
        assert_eq!(names.len(), 9);
        for name in MUTATING {
            assert!(names.iter().any(|n| n == name), "{name}");
        }
    }
}
