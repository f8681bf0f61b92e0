//! Writing to stdout from a command. A closed pipe (`toolspec run | head`) is
//! ignored: the run goes on, so its servers are still stopped and its exit code
//! still counts.

use std::io::Write as _;

/// Writes `text` as it is: the harness's own text, or a report that
/// `report::text` has already made inert line by line.
pub(crate) fn print(text: &str) {
    let _ = std::io::stdout().lock().write_all(text.as_bytes());
}

/// Writes `line` and a newline. Lines can quote a server (its tool names, its
/// error while listing tools), so control characters are made inert.
pub(crate) fn say(line: impl std::fmt::Display) {
    let line = line.to_string();
    let _ = writeln!(std::io::stdout().lock(), "{}", crate::visible::inert(&line));
}
