//! Colour for people at a terminal: verdict words and diff lines. Reports written to
//! files, and output piped to CI logs, stay plain unless `--color always` is given.
//! `NO_COLOR` is honoured.

use std::io::IsTerminal;

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, Default)]
pub enum ColorChoice {
    #[default]
    Auto,
    Always,
    Never,
}

impl ColorChoice {
    /// Whether stdout should be coloured.
    pub fn for_stdout(self) -> bool {
        match self {
            ColorChoice::Always => true,
            ColorChoice::Never => false,
            ColorChoice::Auto => {
                std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none()
            }
        }
    }
}

const RED: &str = "\x1b[31m";
const GREEN: &str = "\x1b[32m";
const YELLOW: &str = "\x1b[33m";
const BOLD_RED: &str = "\x1b[1;31m";
const DIM: &str = "\x1b[2m";
const RESET: &str = "\x1b[0m";

/// Colours a printed report line by line: headers by verdict, `-`/`+` diff lines,
/// the caret, and notes dimmed.
pub fn paint(report: &str) -> String {
    report
        .lines()
        .map(|line| {
            let body = line.trim_start();
            let colour = if line.starts_with("FAIL ") || line.starts_with("ERROR ") {
                Some(BOLD_RED)
            } else if line.starts_with("PASS ") {
                Some(GREEN)
            } else if line.starts_with("SKIP ") || line.starts_with("STALE ") {
                Some(YELLOW)
            } else if body.starts_with("--- expected") || body.starts_with("+++ actual") {
                None
            } else if body.starts_with('-') {
                Some(RED)
            } else if body.starts_with('+') {
                Some(GREEN)
            } else if body.starts_with('^') || body.starts_with("note:") {
                Some(if body.starts_with('^') { YELLOW } else { DIM })
            } else {
                None
            };
            match colour {
                Some(c) => format!("{c}{line}{RESET}\n"),
                None => format!("{line}\n"),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paints_diff_lines_and_leaves_others() {
        let painted = paint("FAIL x\n    -old\n    +new\n  call: y\n");
        assert!(painted.contains("\x1b[1;31mFAIL x\x1b[0m"));
        assert!(painted.contains("\x1b[31m    -old\x1b[0m"));
        assert!(painted.contains("\x1b[32m    +new\x1b[0m"));
        assert!(painted.contains("\n  call: y\n"));
    }
}
