//! What the reference server's end-to-end tests share.

/// The server binary under test.
pub(crate) const SERVER: &str = env!("CARGO_BIN_EXE_toolspec-reference");

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
