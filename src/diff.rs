//! Readable differences between expected and actual text.
//!
//! Tool answers are read by a model, so invisible characters matter: tabs, carriage
//! returns, trailing spaces and the final newline are all made visible, and a changed
//! line gets a caret under its first differing character.

use std::fmt::Write;

use similar::{ChangeTag, TextDiff};

/// A unified diff of `expected` (-) against `actual` (+), whitespace made visible.
pub fn unified(expected: &str, actual: &str) -> String {
    let diff = TextDiff::from_lines(expected, actual);
    let mut out = String::new();
    let _ = writeln!(out, "--- expected");
    let _ = writeln!(out, "+++ actual");
    for group in diff.grouped_ops(3) {
        let mut removed: Vec<String> = Vec::new();
        for op in &group {
            for change in diff.iter_changes(op) {
                let line = visible_line(change.value());
                match change.tag() {
                    ChangeTag::Equal => {
                        let _ = writeln!(out, " {line}");
                        removed.clear();
                    }
                    ChangeTag::Delete => {
                        let _ = writeln!(out, "-{line}");
                        removed.push(line);
                    }
                    ChangeTag::Insert => {
                        let _ = writeln!(out, "+{line}");
                        if !removed.is_empty() {
                            let old = removed.remove(0);
                            if let Some(col) = first_difference(&old, &line) {
                                let _ = writeln!(out, " {}^ first difference", " ".repeat(col));
                            }
                        }
                    }
                }
            }
        }
    }
    out
}

/// A short one-line rendering of `text` for summaries.
pub fn visible_excerpt(text: &str, max_chars: usize) -> String {
    let shown: String = text
        .chars()
        .flat_map(|c| match c {
            '\n' => vec!['⏎'],
            '\t' => vec!['→'],
            '\r' => vec!['␍'],
            c => vec![c],
        })
        .collect();
    if shown.chars().count() > max_chars {
        let cut: String = shown.chars().take(max_chars).collect();
        format!("{cut}… ({} chars in all)", text.chars().count())
    } else {
        shown
    }
}

/// One diff line: tabs as `→`, CR as `␍`, trailing spaces as `·`, and a marker where
/// the text has no final newline.
fn visible_line(raw: &str) -> String {
    let (body, newline) = match raw.strip_suffix('\n') {
        Some(b) => (b, true),
        None => (raw, false),
    };
    let kept = body.trim_end_matches(' ');
    let trailing = body.len() - kept.len();
    let mut line: String = kept
        .chars()
        .map(|c| match c {
            '\t' => '→',
            '\r' => '␍',
            c => c,
        })
        .collect();
    line.push_str(&"·".repeat(trailing));
    if !newline {
        line.push_str("⊘ (no newline at end)");
    }
    line
}

/// The display column of the first differing character of two lines.
fn first_difference(a: &str, b: &str) -> Option<usize> {
    let mut col = 0;
    let mut ai = a.chars();
    let mut bi = b.chars();
    loop {
        match (ai.next(), bi.next()) {
            (Some(x), Some(y)) if x == y => col += 1,
            (None, None) => return None,
            _ => return Some(col),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shows_the_missing_period() {
        let d = unified(
            "Successfully overwrote file: /a.",
            "Successfully overwrote file: /a",
        );
        assert!(d.contains("-Successfully overwrote file: /a.⊘"), "{d}");
        assert!(d.contains("+Successfully overwrote file: /a⊘"), "{d}");
        let caret = d.lines().find(|l| l.contains('^')).unwrap();
        assert_eq!(caret.find('^'), Some(1 + 31));
    }

    #[test]
    fn makes_whitespace_visible() {
        let d = unified("a\tb  \n", "a b\n");
        assert!(d.contains("-a→b··"), "{d}");
    }
}
