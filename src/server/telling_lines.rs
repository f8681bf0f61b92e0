//! The few lines of a server's stderr that say why it did not start. A server
//! that dies at start often writes a page (a Python traceback, a usage text, a
//! stack of `caused by`); the one error that ends a run for it should name the
//! cause in a line or three, not repeat the page: a traceback's last line (the
//! exception), else the lines that look like an error, else the last lines.

use crate::visible::{excerpt, inert};

/// At most this many lines are told.
const MOST_LINES: usize = 3;
/// Each cut to this many characters.
const LINE_CHARS: usize = 200;

/// The lines of `stderr` (its tail, as a session keeps it) that tell why the
/// server stopped, each cut and made inert for a terminal; empty when it wrote
/// nothing.
pub(crate) fn telling_lines(stderr: &str) -> Vec<String> {
    let lines: Vec<&str> = stderr
        .lines()
        .map(str::trim_end)
        .filter(|l| !l.is_empty())
        .collect();
    let chosen = exception_of_traceback(&lines)
        .map(|line| vec![line])
        .or_else(|| error_lines(&lines))
        .unwrap_or_else(|| lines[lines.len().saturating_sub(MOST_LINES)..].to_vec());
    chosen
        .into_iter()
        .map(|line| inert(&excerpt(line.trim(), LINE_CHARS)).into_owned())
        .collect()
}

/// The exception line of the last Python traceback: the first line after it
/// that is not indented (its frames are).
fn exception_of_traceback<'a>(lines: &[&'a str]) -> Option<&'a str> {
    let start = lines
        .iter()
        .rposition(|l| l.starts_with("Traceback (most recent call last)"))?;
    lines[start + 1..]
        .iter()
        .find(|l| !l.starts_with(char::is_whitespace))
        .copied()
}

/// The last few lines that look like an error (`Error:`, `error:`, `fatal`,
/// `panicked`, an exception's name), or None when none does.
fn error_lines<'a>(lines: &[&'a str]) -> Option<Vec<&'a str>> {
    let looks = |line: &&str| {
        let lower = line.to_ascii_lowercase();
        [
            "error",
            "fatal",
            "panicked",
            "exception",
            "cannot",
            "not found",
        ]
        .iter()
        .any(|word| lower.contains(word))
    };
    let found: Vec<&str> = lines.iter().copied().filter(looks).collect();
    (!found.is_empty()).then(|| found[found.len().saturating_sub(MOST_LINES)..].to_vec())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_traceback_is_told_by_its_exception() {
        let stderr = "starting\nTraceback (most recent call last):\n  File \"s.py\", line 3, in <module>\n    main()\n  File \"s.py\", line 2, in main\n    raise RuntimeError('no config at /etc/x')\nRuntimeError: no config at /etc/x\n";
        assert_eq!(
            telling_lines(stderr),
            vec!["RuntimeError: no config at /etc/x"]
        );
    }

    #[test]
    fn error_lines_win_over_the_last_lines() {
        let stderr = "loading\nError: cannot find module 'x'\n  at require\n  at main\nbye\n";
        assert_eq!(telling_lines(stderr), vec!["Error: cannot find module 'x'"]);
    }

    #[test]
    fn otherwise_the_last_lines_cut_and_inert() {
        let long = "y".repeat(300);
        let stderr = format!("a\nb\n\x1b[2Jc\n{long}\n");
        let told = telling_lines(&stderr);
        assert_eq!(told.len(), 3);
        assert_eq!(told[0], "b");
        assert_eq!(told[1], "␛[2Jc");
        assert!(told[2].ends_with("(300 chars in all)"));
        assert!(telling_lines("").is_empty());
    }
}
