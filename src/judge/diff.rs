//! Readable differences between expected and actual text.
//!
//! Tool answers are read by a model, so invisible characters matter: tabs, carriage
//! returns, trailing spaces and the final newline are all made visible, and a changed
//! line gets a caret under its first differing character.

use std::fmt::Write;

use similar::{ChangeTag, TextDiff};

/// A unified diff of `expected` (-) against `actual` (+), whitespace made visible.
pub(crate) fn unified(expected: &str, actual: &str) -> String {
    unified_between(("expected", expected), ("actual", actual))
}

/// A unified diff of one text (-) against another (+), each named in the header
/// (`--- old`, `+++ new`), whitespace made visible: what two runs of a server
/// answered are compared the way the judge compares an answer with the spec.
pub(crate) fn unified_between(before: (&str, &str), after: (&str, &str)) -> String {
    let diff = TextDiff::from_lines(before.1, after.1);
    let mut out = String::new();
    let _ = writeln!(out, "--- {}", before.0);
    let _ = writeln!(out, "+++ {}", after.0);
    for group in diff.grouped_ops(3) {
        let mut removed: Vec<String> = Vec::new();
        for op in &group {
            for change in diff.iter_changes(op) {
                let line = crate::visible::line(change.value());
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
