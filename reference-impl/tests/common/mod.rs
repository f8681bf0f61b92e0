//! What the reference server's end-to-end tests share.

/// The boris tools, in the order the server lists them.
pub(crate) const BORIS_TOOLS: [&str; 7] = [
    "bash",
    "task_output",
    "view",
    "str_replace",
    "create_file",
    "grep",
    "glob",
];
