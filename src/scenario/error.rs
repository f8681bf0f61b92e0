//! What goes wrong reading a suite: a file, a place in it, and what to do about it.
//! Loading and validation both report through this one type, so every mistake in a
//! suite reads the same way (`path:line:column: message`).

use std::fmt;
use std::path::{Path, PathBuf};

/// A file that could not be loaded: where, and what to do about it.
#[derive(Debug, Clone)]
pub struct LoadError {
    /// The file (or folder) at fault.
    pub path: PathBuf,
    /// 1-based line, when known.
    pub line: Option<usize>,
    /// 1-based column, when known (YAML errors).
    pub column: Option<usize>,
    /// What is wrong and how to fix it.
    pub message: String,
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match (self.line, self.column) {
            (Some(line), Some(col)) => {
                write!(f, "{}:{line}:{col}: {}", self.path.display(), self.message)
            }
            (Some(line), None) => write!(f, "{}:{line}: {}", self.path.display(), self.message),
            _ => write!(f, "{}: {}", self.path.display(), self.message),
        }
    }
}

impl std::error::Error for LoadError {}

impl LoadError {
    /// An error at `path` (and `line`, when known), with no column.
    pub fn new(path: &Path, line: Option<usize>, message: impl Into<String>) -> Self {
        LoadError {
            path: path.to_path_buf(),
            line,
            column: None,
            message: message.into(),
        }
    }

    /// Several errors as one text, one a line, as a command prints them.
    pub(crate) fn one_a_line(errors: &[LoadError]) -> String {
        errors
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join("\n")
    }
}

/// The 1-based line of the first line of `source` that contains `needle`, counted
/// as the YAML parser counts them (and so as its own errors do): a line ends at
/// `\n`, `\r\n` or a lone `\r`.
pub(crate) fn find_line(source: &str, needle: &str) -> Option<usize> {
    source
        .split('\n')
        .flat_map(|line| line.strip_suffix('\r').unwrap_or(line).split('\r'))
        .position(|l| l.contains(needle))
        .map(|i| i + 1)
}

#[cfg(test)]
mod tests {
    use super::find_line;

    /// Found by the scenario-file fuzzer: the parser counts a lone CR as a line
    /// break, and the lines of toolspec's own errors must agree with its.
    #[test]
    fn lines_end_where_yaml_ends_them() {
        assert_eq!(find_line("a\nb\n", "b"), Some(2));
        assert_eq!(find_line("a\r\nb\r\n", "b"), Some(2));
        assert_eq!(find_line("a\rb\rc", "c"), Some(3));
        assert_eq!(find_line("a\r\rc", "c"), Some(3));
        assert_eq!(find_line("a\n", "z"), None);
    }
}
