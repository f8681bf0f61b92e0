//! Writing to stdout from a command. A closed pipe (`toolspec run | head`) is
//! ignored: the run goes on, so its servers are still stopped and its exit code
//! still counts.

use std::io::Write as _;

/// Writes `text` as it is.
pub(crate) fn print(text: &str) {
    let _ = std::io::stdout().lock().write_all(text.as_bytes());
}

/// Writes `line` and a newline.
pub(crate) fn say(line: impl std::fmt::Display) {
    let _ = writeln!(std::io::stdout().lock(), "{line}");
}
