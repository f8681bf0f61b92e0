//! `lines_in_any_order`: a text whose lines, in whatever order, are exactly the
//! lines given, for a listing whose document says what it lists but not in what
//! order ("a newline-separated list").
//!
//! Each expected line is a one-line template (placeholders as in `text`), so
//! two expected lines may both match one actual line; the lines are paired by a
//! maximum bipartite matching, not greedily, so the order they are written in
//! never decides the verdict.

use super::template::Template;
use crate::scenario::Bindings;

/// What differs between the `expected` lines and `text`'s, or None when every
/// line pairs off. A final newline of the text is not a line.
pub(crate) fn difference(expected: &[String], text: &str, bindings: &Bindings) -> Option<String> {
    let actual = lines_of(text);
    let templates: Vec<Option<Template>> = expected
        .iter()
        .map(|line| Template::new(line, bindings).ok())
        .collect();
    let fits = |e: usize, a: usize| templates[e].as_ref().is_some_and(|t| t.matches(actual[a]));
    let pairing = max_pairing(expected.len(), actual.len(), fits);
    let unmatched_expected: Vec<String> = (0..expected.len())
        .filter(|e| !pairing.contains(&Some(*e)))
        .map(|e| format!("  - {}", bindings.fill(&expected[e])))
        .collect();
    let unmatched_actual: Vec<String> = (0..actual.len())
        .filter(|a| pairing[*a].is_none())
        .map(|a| format!("  + {}", actual[a]))
        .collect();
    if unmatched_expected.is_empty() && unmatched_actual.is_empty() {
        return None;
    }
    let mut detail = String::from("the lines, in any order, differ:\n");
    for line in unmatched_expected.iter().chain(&unmatched_actual) {
        detail.push_str(line);
        detail.push('\n');
    }
    detail.push_str("(- expected and not found, + found and not expected)\nthe text was:\n");
    detail.push_str(&super::indent(text));
    Some(detail)
}

/// The lines of `text`, a final newline not making an empty last one.
fn lines_of(text: &str) -> Vec<&str> {
    if text.is_empty() {
        return Vec::new();
    }
    text.strip_suffix('\n')
        .unwrap_or(text)
        .split('\n')
        .collect()
}

/// For each actual line, the expected line paired with it, by augmenting paths
/// (Kuhn's algorithm: a listing has few lines, so its square cost is nothing).
fn max_pairing(
    expected: usize,
    actual: usize,
    fits: impl Fn(usize, usize) -> bool,
) -> Vec<Option<usize>> {
    let mut paired: Vec<Option<usize>> = vec![None; actual];
    for e in 0..expected {
        let mut seen = vec![false; actual];
        augment(e, &fits, &mut paired, &mut seen);
    }
    paired
}

fn augment(
    e: usize,
    fits: &impl Fn(usize, usize) -> bool,
    paired: &mut [Option<usize>],
    seen: &mut [bool],
) -> bool {
    for a in 0..paired.len() {
        if seen[a] || !fits(e, a) {
            continue;
        }
        seen[a] = true;
        let free = match paired[a] {
            None => true,
            Some(other) => augment(other, fits, paired, seen),
        };
        if free {
            paired[a] = Some(e);
            return true;
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(items: &[&str]) -> Vec<String> {
        items.iter().map(|s| (*s).to_string()).collect()
    }

    #[test]
    fn the_same_lines_in_another_order_hold_and_a_final_newline_is_no_line() {
        let bindings = Bindings::new("/r");
        let want = lines(&["[DIR] docs", "readme.txt"]);
        assert_eq!(
            difference(&want, "readme.txt\n[DIR] docs\n", &bindings),
            None
        );
        assert_eq!(difference(&want, "[DIR] docs\nreadme.txt", &bindings), None);
    }

    #[test]
    fn a_missing_or_extra_line_is_shown_with_its_sign() {
        let bindings = Bindings::new("/r");
        let want = lines(&["a", "b"]);
        let detail = difference(&want, "a\nc\nb\nd", &bindings).expect("differs");
        assert!(detail.contains("  + c\n  + d\n"), "{detail}");
        let detail = difference(&want, "b", &bindings).expect("differs");
        assert!(detail.contains("  - a\n"), "{detail}");
        // A line twice is two lines.
        assert!(difference(&lines(&["a"]), "a\na", &bindings).is_some());
    }

    #[test]
    fn lines_are_paired_so_the_written_order_never_decides() {
        let bindings = Bindings::new("/r");
        // `[..]` fits both lines; greedy pairing of it first with "x" would leave
        // the literal "x" alone.
        let want = lines(&["[..]", "x"]);
        assert_eq!(difference(&want, "x\ny", &bindings), None);
        let want = lines(&["{root}/a", "b"]);
        assert_eq!(difference(&want, "b\n/r/a", &bindings), None);
    }
}
