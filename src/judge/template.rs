//! Expected text with placeholders, matched against what a server said.
//!
//! Everything is literal except: `{root}` (the fixture root) and the scenario's
//! captures (`{task}`), each matched literally, `{int}` (an integer;
//! `{int:name}` names it, for values the server chooses such as a process group
//! id, and the name shows in a failing diff), `[..]` (the rest of a line) and a
//! line that is exactly `...` (any number of lines). Matching is exact: a missing
//! period or a final newline counts.

use regex_automata::meta::Regex;

use crate::scenario::{compile_for_one_judging, Bindings, CompileError};

/// Largest compiled template; far above any real expectation, but a bound, so that a
/// huge `text:` is reported instead of exhausting memory.
const TEMPLATE_SIZE_LIMIT: usize = 64 << 20;

/// How `actual` differs from the expectation `template`: `None` when it matches,
/// else a unified diff (placeholders that matched shown as the actual text), or why
/// the template could not be used.
///
/// The resolved view matches each line on its own, so it can agree with `actual`
/// line for line where the whole does not match (`\n...` against an empty text
/// wants a line break the text lacks). A diff of it would show no change, so the
/// template is then shown as written; and when even that is the text itself (the
/// server wrote `{int}` where a number goes), the difference is said in words.
pub(crate) fn difference(template: &str, actual: &str, bindings: &Bindings) -> Option<String> {
    let t = match Template::new(template, bindings) {
        Ok(t) if t.matches(actual) => return None,
        Ok(t) => t,
        Err(why) => return Some(why.to_string()),
    };
    let resolved = t.resolved_against(actual);
    if resolved != actual {
        return Some(crate::judge::diff::unified(&resolved, actual));
    }
    let as_written = bindings.fill(template);
    if as_written != actual {
        return Some(crate::judge::diff::unified(&as_written, actual));
    }
    Some(format!(
        "the text is the template's own words, placeholders and all ({}): a placeholder \
         stands for a value (`{{int}}` for digits), and the text holds the placeholder instead",
        crate::visible::excerpt(actual, 200)
    ))
}

/// The most template lines times text lines [`blessed`] aligns one by one; past
/// it (two texts of thousands of lines each) the whole text is taken.
const ALIGN_LIMIT: usize = 4_000_000;

/// The expectation `template` made to hold for `actual`, for `run --bless`: the
/// lines of the template that still match a line of the text (with their
/// `{int}`, `[..]` or captures) stay as written, a `...` line stays where it can
/// stand for the lines between, and every other line of the text is taken as it
/// is, its root and captured values written back as `{root}` and `{name}`. The
/// lines are aligned by the most template lines kept (a longest common
/// subsequence where "equal" is "the template line matches"), so a line added or
/// removed in the middle does not turn every line after it into a new one.
///
/// None when no template matches the text: a text holding what a template reads
/// as a placeholder (`{int}` where the server wrote those five characters) cannot
/// be written as an expectation.
pub(crate) fn blessed(template: &str, actual: &str, bindings: &Bindings) -> Option<String> {
    let made = blessed_lines(template, actual, bindings);
    Template::new(&made, bindings)
        .is_ok_and(|t| t.matches(actual))
        .then_some(made)
}

/// [`blessed`] before the check that the result matches.
fn blessed_lines(template: &str, actual: &str, bindings: &Bindings) -> String {
    let whole = bindings.unfill(actual);
    let Ok(compiled) = Template::new(template, bindings) else {
        return whole;
    };
    if compiled.matches(actual) {
        return template.to_string();
    }
    let written: Vec<&str> = template.split('\n').collect();
    let got: Vec<&str> = actual.split('\n').collect();
    let (n, m) = (written.len(), got.len());
    if n.saturating_mul(m) > ALIGN_LIMIT || compiled.lines.len() != n {
        return whole;
    }
    let fits = |i: usize, j: usize| match &compiled.lines[i] {
        TemplateLine::AnyLines => true,
        TemplateLine::Line { pattern, .. } => pattern.is_match(got[j]),
    };
    // best[i * (m + 1) + j]: aligning written[i..] with got[j..], the most
    // template lines kept (the high half) and then the most lines replaced in
    // place (the low half: a changed line stays where it was rather than fall
    // into a `...`). A `...` is always kept and takes lines until it closes.
    const KEPT: u64 = 1 << 32;
    const REPLACED: u64 = 1;
    let width = m + 1;
    let mut best = vec![0u64; (n + 1) * width];
    for i in (0..n).rev() {
        for j in (0..=m).rev() {
            let at = |i: usize, j: usize| best[i * width + j];
            let value = match &compiled.lines[i] {
                TemplateLine::AnyLines => {
                    let close = KEPT + at(i + 1, j);
                    if j < m {
                        close.max(at(i, j + 1))
                    } else {
                        close
                    }
                }
                TemplateLine::Line { .. } => {
                    let mut value = at(i + 1, j);
                    if j < m {
                        value = value.max(at(i, j + 1)).max(REPLACED + at(i + 1, j + 1));
                        if fits(i, j) {
                            value = value.max(KEPT + at(i + 1, j + 1));
                        }
                    }
                    value
                }
            };
            best[i * width + j] = value;
        }
    }
    let at = |i: usize, j: usize| best[i * width + j];
    let mut out: Vec<String> = Vec::new();
    let (mut i, mut j) = (0, 0);
    while i < n || j < m {
        if i == n {
            out.push(bindings.unfill(got[j]));
            j += 1;
            continue;
        }
        match &compiled.lines[i] {
            // A `...` takes as many lines as it can without costing a kept line.
            TemplateLine::AnyLines => {
                if j < m && at(i, j) == at(i, j + 1) {
                    j += 1;
                } else {
                    out.push(written[i].to_string());
                    i += 1;
                }
            }
            TemplateLine::Line { .. } => {
                if j < m && fits(i, j) && at(i, j) == KEPT + at(i + 1, j + 1) {
                    out.push(written[i].to_string());
                    i += 1;
                    j += 1;
                } else if j < m && at(i, j) == REPLACED + at(i + 1, j + 1) {
                    out.push(bindings.unfill(got[j]));
                    i += 1;
                    j += 1;
                } else if j < m && at(i, j) == at(i, j + 1) {
                    out.push(bindings.unfill(got[j]));
                    j += 1;
                } else {
                    i += 1;
                }
            }
        }
    }
    let lines = out.join("\n");
    match Template::new(&lines, bindings) {
        Ok(t) if t.matches(actual) => lines,
        _ => whole,
    }
}

/// Why an expected text cannot be used as a template: one of its regexes cannot
/// be compiled (too big, most often).
#[derive(Debug, thiserror::Error)]
#[error("the expected text cannot be used as a template: {0}")]
pub(crate) struct TemplateError(#[source] CompileError);

fn compile(pattern: &str) -> Result<Regex, TemplateError> {
    compile_for_one_judging(pattern, TEMPLATE_SIZE_LIMIT).map_err(TemplateError)
}

/// A compiled expectation.
pub(crate) struct Template {
    whole: Regex,
    lines: Vec<TemplateLine>,
}

enum TemplateLine {
    AnyLines,
    Line { pattern: Regex, literal: String },
}

impl Template {
    pub(crate) fn new(template: &str, bindings: &Bindings) -> Result<Template, TemplateError> {
        let raw_lines: Vec<&str> = template.split('\n').collect();
        let mut whole = String::from(r"\A");
        let mut lines = Vec::new();
        for (i, line) in raw_lines.iter().enumerate() {
            let last = i + 1 == raw_lines.len();
            if *line == "..." {
                whole.push_str(if last { r"(?s:.*)" } else { r"(?:[^\n]*\n)*?" });
                lines.push(TemplateLine::AnyLines);
                continue;
            }
            let body = line_regex(line, bindings);
            whole.push_str(&body);
            if !last {
                whole.push_str(r"\n");
            }
            lines.push(TemplateLine::Line {
                pattern: compile(&format!(r"\A{body}\z"))?,
                literal: bindings.fill(line),
            });
        }
        whole.push_str(r"\z");
        Ok(Template {
            whole: compile(&whole)?,
            lines,
        })
    }

    pub(crate) fn matches(&self, actual: &str) -> bool {
        self.whole.is_match(actual)
    }

    /// The template as it should be shown beside `actual` in a diff: lines whose
    /// placeholders match are replaced by the actual line, so only real differences
    /// show up.
    pub(crate) fn resolved_against(&self, actual: &str) -> String {
        let actual_lines: Vec<&str> = actual.split('\n').collect();
        let mut out: Vec<String> = Vec::new();
        let mut a = 0;
        for (i, line) in self.lines.iter().enumerate() {
            match line {
                TemplateLine::AnyLines => {
                    let next = self.lines.get(i + 1);
                    // Leave enough actual lines for the template lines still to come.
                    let still_needed = self.lines[i + 1..]
                        .iter()
                        .filter(|l| matches!(l, TemplateLine::Line { .. }))
                        .count();
                    let stop = actual_lines.len().saturating_sub(still_needed).max(a);
                    while a < stop {
                        if let Some(TemplateLine::Line { pattern, .. }) = next {
                            if pattern.is_match(actual_lines[a]) {
                                break;
                            }
                        }
                        out.push(actual_lines[a].to_string());
                        a += 1;
                    }
                }
                TemplateLine::Line { pattern, literal } => {
                    match actual_lines.get(a) {
                        Some(actual_line) if pattern.is_match(actual_line) => {
                            out.push((*actual_line).to_string())
                        }
                        _ => out.push(literal.clone()),
                    }
                    a += 1;
                }
            }
        }
        out.join("\n")
    }
}

fn line_regex(line: &str, bindings: &Bindings) -> String {
    let mut out = String::new();
    let mut rest = line;
    while !rest.is_empty() {
        if let Some((value, after)) = bindings.leading(rest) {
            out.push_str(&regex::escape(&value));
            rest = after;
        } else if let Some(after) = rest.strip_prefix("{int}") {
            out.push_str("-?[0-9]+");
            rest = after;
        } else if let Some(after) = named_int(rest) {
            out.push_str("-?[0-9]+");
            rest = after;
        } else if let Some(after) = rest.strip_prefix("[..]") {
            out.push_str("[^\n]*");
            rest = after;
        } else {
            let c = rest.chars().next().expect("non-empty");
            out.push_str(&regex::escape(c.encode_utf8(&mut [0; 4])));
            rest = &rest[c.len_utf8()..];
        }
    }
    out
}

/// The text after a leading `{int:name}` (name: letters, digits, `_`, `-`).
fn named_int(text: &str) -> Option<&str> {
    let after_open = text.strip_prefix("{int:")?;
    let close = after_open.find('}')?;
    let name = &after_open[..close];
    let valid = !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    valid.then(|| &after_open[close + 1..])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn root() -> Bindings {
        Bindings::new("/r")
    }

    #[test]
    fn literal_text_is_exact() {
        let t =
            Template::new("Successfully overwrote file: {root}/a.txt.", &root()).expect("template");
        assert!(t.matches("Successfully overwrote file: /r/a.txt."));
        assert!(!t.matches("Successfully overwrote file: /r/a.txt"));
        assert!(!t.matches("Successfully overwrote file: /r/a.txt.\n"));
    }

    #[test]
    fn placeholders() {
        let t = Template::new("PGID: {int}\nrest [..]\n...\nend", &root()).expect("template");
        assert!(t.matches("PGID: 123\nrest anything here\na\nb\nend"));
        assert!(t.matches("PGID: 1\nrest \nend"));
        assert!(!t.matches("PGID: x\nrest \nend"));
        assert!(!t.matches("PGID: 1\nrest\nend"));
    }

    #[test]
    fn named_integers() {
        let t = Template::new("Process Group PGID: {int:pgid}\n", &root()).expect("template");
        assert!(t.matches("Process Group PGID: 4242\n"));
        assert!(!t.matches("Process Group PGID: (none)\n"));
        assert_eq!(
            t.resolved_against("Process Group PGID: (none)\n"),
            "Process Group PGID: {int:pgid}\n"
        );
        assert!(Template::new("{int:}", &root())
            .expect("template")
            .matches("{int:}"));
    }

    #[test]
    fn resolved_view_of_any_lines_leaves_room_for_the_rest() {
        let t = Template::new("one\n...\nfour\n", &root()).expect("template");
        assert_eq!(t.resolved_against("one\ntwo\nthree\n"), "one\ntwo\nfour\n");
    }

    #[test]
    fn a_template_too_large_to_compile_is_a_difference_not_a_panic() {
        // `[..]` is a Unicode class, many NFA states to a source byte: 100,000 of them
        // pass the limit where 500,000 `{int}` were needed (0.6 s against 2.6 s).
        let huge = "[..]".repeat(150_000);
        let why = difference(&huge, "1", &root()).expect("a difference");
        assert!(why.contains("cannot be used as a template"), "{why}");
        assert_eq!(difference("a{int}", "a7", &root()), None);
    }

    #[test]
    fn a_megabyte_of_plain_text_is_a_template_within_the_limit() {
        let megabyte = "x".repeat(1 << 20);
        assert_eq!(difference(&megabyte, &megabyte, &root()), None);
    }

    /// Found by the template fuzzer: each template line matches a line of the text,
    /// yet the whole does not, so the resolved view equalled the text and the
    /// difference was a diff with no changed line.
    #[test]
    fn a_difference_always_shows_what_differs() {
        let shown = difference("\n...", "", &root()).expect("a difference");
        assert!(shown.lines().skip(2).any(|l| l.starts_with('-')), "{shown}");
        let shown = difference("PID {int}", "PID {int}", &root()).expect("a difference");
        assert!(
            shown.contains("placeholders and all (PID {int})"),
            "{shown}"
        );
    }

    #[test]
    fn a_blessed_text_keeps_the_lines_that_still_match() {
        let template = "PGID: {int}\nfirst\n[..] second\n...\nlast\n";
        let actual = "PGID: 77\nfirst\nnew line at /r/x\nthe second\nmore\nstuff\nlast\n";
        let made = blessed(template, actual, &root()).expect("a template");
        assert_eq!(
            made,
            "PGID: {int}\nfirst\nnew line at {root}/x\n[..] second\n...\nlast\n"
        );
        assert_eq!(difference(&made, actual, &root()), None);
        // A changed line is replaced where it stands, not taken by a `...`.
        assert_eq!(
            blessed_of("1\tone\n...\n3\tfour\n", "1\tone\n2\ttwo\n3\tthree\n"),
            "1\tone\n...\n3\tthree\n"
        );
        // A changed line is replaced; the others stay as written.
        assert_eq!(blessed_of("a {int}\nb\nc", "a 1\nB\nc"), "a {int}\nB\nc");
        // What the template reads as a placeholder cannot be written.
        assert_eq!(blessed("x", "took {int}s", &root()), None);
        // A text that already matches is the template itself.
        assert_eq!(blessed_of("x [..]", "x y"), "x [..]");
        // Nothing matches: the text, its root written `{root}`.
        assert_eq!(blessed_of("old", "/r/new\n"), "{root}/new\n");
    }

    fn blessed_of(template: &str, actual: &str) -> String {
        let made = blessed(template, actual, &root()).expect("a template");
        assert_eq!(difference(&made, actual, &root()), None, "{made:?}");
        made
    }

    #[test]
    fn resolved_view_keeps_only_real_differences() {
        let t = Template::new("PGID: {int}\nDone.", &root()).expect("template");
        assert_eq!(t.resolved_against("PGID: 42\nDone"), "PGID: 42\nDone.");
    }
}
