//! v0.1.0's second search when `old_string` is not in the file exactly
//! (`findCascadeMatch`, src/lib/match-cascade.ts): four ever looser tiers,
//! the first that finds anything deciding. Three compare whole lines: with
//! the block's common indentation removed, with each line trimmed, with every
//! run of whitespace made one space; the last looks for `old_string` trimmed
//! as a plain substring. A place whose region is out of proportion to
//! `old_string` (twice its lines or more, or 500 characters longer) is not a
//! match. One place is edited; several are an ambiguity the caller reports.
//!
//! Both texts have `\n` line ends (the file is decoded first, and
//! `old_string`'s own ends are made `\n` here). Offsets are byte offsets into
//! the file's text; lengths are counted in characters, as JavaScript counts
//! them for the text this meets.

/// Where a match lies in the file's text, as byte offsets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Span {
    pub(crate) start: usize,
    pub(crate) end: usize,
}

/// The places the first tier that finds any finds; `None` when none does.
pub(crate) fn find(text: &str, old_string: &str) -> Option<Vec<Span>> {
    let old = old_string.replace("\r\n", "\n").replace('\r', "\n");
    if old.is_empty() {
        return None;
    }
    let starts = line_starts(text);
    let old_lines = trim_trailing_empty(old.split('\n').collect());
    let old_chars = old.chars().count();
    let tiers: [Tier; 4] = [indentation_flexible, line_trimmed, whitespace_normalized, trimmed_boundary];
    for tier in tiers {
        let mut spans: Vec<Span> = Vec::new();
        for span in tier(text, &old, &starts) {
            if !disproportionate(span, text, old_chars, old_lines.len()) && !spans.contains(&span) {
                spans.push(span);
            }
        }
        if !spans.is_empty() {
            return Some(spans);
        }
    }
    None
}

type Tier = fn(&str, &str, &[usize]) -> Vec<Span>;

/// JavaScript's whitespace (`\s`, and what `trim` removes).
fn js_space(c: char) -> bool {
    matches!(
        c,
        '\t' | '\n' | '\u{b}' | '\u{c}' | '\r' | ' ' | '\u{a0}' | '\u{1680}' | '\u{2000}'
            ..='\u{200a}' | '\u{2028}' | '\u{2029}' | '\u{202f}' | '\u{205f}' | '\u{3000}'
            | '\u{feff}'
    )
}

fn js_trim(s: &str) -> &str {
    s.trim_matches(js_space)
}

/// Every run of whitespace made one space, then trimmed (`norm`).
fn normalized(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut in_space = false;
    for c in s.chars() {
        if js_space(c) {
            in_space = true;
        } else {
            if in_space && !out.is_empty() {
                out.push(' ');
            }
            in_space = false;
            out.push(c);
        }
    }
    out
}

fn trim_trailing_empty(mut lines: Vec<&str>) -> Vec<&str> {
    while lines.last() == Some(&"") {
        lines.pop();
    }
    lines
}

/// The byte offset where each line starts.
fn line_starts(text: &str) -> Vec<usize> {
    let mut starts = vec![0];
    starts.extend(text.match_indices('\n').map(|(at, _)| at + 1));
    starts
}

/// Where line `k`'s text ends (before its newline).
fn end_of_content(starts: &[usize], len: usize, k: usize) -> usize {
    starts.get(k + 1).map_or(len, |next| next - 1)
}

/// The region of lines `i..i+m`, through the last one's newline when
/// `old_string` ends with one.
fn block_span(starts: &[usize], len: usize, i: usize, m: usize, old_ends_nl: bool) -> Span {
    let last = i + m - 1;
    let mut end = end_of_content(starts, len, last);
    if old_ends_nl {
        if let Some(&next) = starts.get(last + 1) {
            end = next;
        }
    }
    Span {
        start: starts.get(i).copied().unwrap_or(0),
        end,
    }
}

/// The lines with their common leading spaces and tabs removed; a blank line
/// becomes empty.
fn dedent(lines: &[&str]) -> Vec<String> {
    let indent = |l: &str| l.len() - l.trim_start_matches([' ', '\t']).len();
    let strip = lines
        .iter()
        .filter(|l| !js_trim(l).is_empty())
        .map(|l| indent(l))
        .min()
        .unwrap_or(0);
    lines
        .iter()
        .map(|l| {
            if js_trim(l).is_empty() {
                String::new()
            } else {
                l[strip..].to_string()
            }
        })
        .collect()
}

fn indentation_flexible(text: &str, old: &str, starts: &[usize]) -> Vec<Span> {
    let old_lines = trim_trailing_empty(old.split('\n').collect());
    let hay: Vec<&str> = text.split('\n').collect();
    let m = old_lines.len();
    if m == 0 || m > hay.len() {
        return Vec::new();
    }
    let wanted = dedent(&old_lines);
    (0..=hay.len() - m)
        .filter(|&i| dedent(&hay[i..i + m]) == wanted)
        .map(|i| block_span(starts, text.len(), i, m, old.ends_with('\n')))
        .collect()
}

/// The first line of each block of `need.len()` consecutive lines of `hay`
/// that `eq` accepts line by line.
fn scan_line_blocks<F>(hay: &[&str], need: &[String], eq: F) -> Vec<usize>
where
    F: Fn(&str, &str) -> bool,
{
    if need.is_empty() || need.len() > hay.len() {
        return Vec::new();
    }
    (0..=hay.len() - need.len())
        .filter(|&i| need.iter().zip(&hay[i..]).all(|(n, h)| eq(h, n)))
        .collect()
}

fn line_blocks<F>(text: &str, old: &str, starts: &[usize], key: F) -> Vec<Span>
where
    F: Fn(&str) -> String,
{
    let old_lines = trim_trailing_empty(old.split('\n').collect());
    let hay: Vec<&str> = text.split('\n').collect();
    let need: Vec<String> = old_lines.iter().map(|l| key(l)).collect();
    scan_line_blocks(&hay, &need, |h, n| key(h) == n)
        .into_iter()
        .map(|i| block_span(starts, text.len(), i, old_lines.len(), old.ends_with('\n')))
        .collect()
}

fn line_trimmed(text: &str, old: &str, starts: &[usize]) -> Vec<Span> {
    line_blocks(text, old, starts, |l| js_trim(l).to_string())
}

fn whitespace_normalized(text: &str, old: &str, starts: &[usize]) -> Vec<Span> {
    line_blocks(text, old, starts, normalized)
}

fn trimmed_boundary(text: &str, old: &str, _starts: &[usize]) -> Vec<Span> {
    let trimmed = js_trim(old);
    if trimmed == old || trimmed.is_empty() {
        return Vec::new();
    }
    text.match_indices(trimmed)
        .map(|(at, found)| Span {
            start: at,
            end: at + found.len(),
        })
        .collect()
}

fn disproportionate(span: Span, text: &str, old_chars: usize, old_lines: usize) -> bool {
    let slice = &text[span.start..span.end];
    let lines = slice.matches('\n').count() + 1;
    lines >= 2 * old_lines || slice.chars().count() >= old_chars + 500
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found(text: &str, old: &str) -> Option<Vec<(usize, usize)>> {
        find(text, old).map(|spans| spans.iter().map(|s| (s.start, s.end)).collect())
    }

    #[test]
    fn indentation_is_flexible_first() {
        let text = "def f():\n    return 1\n";
        // The block's own indentation differs, its shape does not.
        assert_eq!(found(text, "  def f():\n      return 1\n"), Some(vec![(0, 22)]));
        // Its shape differs too: each line trimmed still matches.
        assert_eq!(found(text, "def f():\n  return 1\n"), Some(vec![(0, 22)]));
    }

    #[test]
    fn trimmed_lines_then_normalized_spaces() {
        assert_eq!(found("  a  b\n", "a  b"), Some(vec![(0, 6)]));
        assert_eq!(found("x\n  a   b\n", "a b"), Some(vec![(2, 9)]));
    }

    #[test]
    fn a_trimmed_fragment_is_the_last_resort_and_several_places_are_all_given() {
        assert_eq!(found("say hello world\n", " hello "), Some(vec![(4, 9)]));
        assert_eq!(found("ab ab\n", " ab "), Some(vec![(0, 2), (3, 5)]));
        assert_eq!(found("abc\n", "zzz"), None);
    }

    #[test]
    fn a_region_out_of_proportion_is_no_match() {
        // One wanted line against a region of two lines.
        assert!(disproportionate(Span { start: 0, end: 3 }, "a\nb", 1, 1));
        assert!(!disproportionate(Span { start: 0, end: 1 }, "a\nb", 1, 1));
    }
}
