//! What the reference server's end-to-end tests share.

/// A test's setting from the environment variable `name`, or `default` when it is
/// unset; a value that does not parse stops the test, saying it should be `what`.
pub(crate) fn setting_from_env<T: std::str::FromStr>(name: &str, default: T, what: &str) -> T {
    match std::env::var(name) {
        Ok(text) => text
            .trim()
            .parse()
            .unwrap_or_else(|_| panic!("{name}={text:?} is not {what}")),
        Err(_) => default,
    }
}

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

/// Copies an executable to `to` with `cp`, so that the copy is never open for
/// writing in this process. Tests run on many threads, and a child forked by
/// another test between our open and close would hold the copy open for writing
/// until its exec: starting the copy then fails with "Text file busy" (seen once
/// in 20 loaded runs).
pub(crate) fn copy_executable(from: &std::path::Path, to: &std::path::Path) {
    let status = std::process::Command::new("cp")
        .arg(from)
        .arg(to)
        .status()
        .expect("run cp");
    assert!(
        status.success(),
        "cp {} {} failed",
        from.display(),
        to.display()
    );
}
