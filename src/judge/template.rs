//! Expected text with placeholders, matched against what a server said.
//!
//! Everything is literal except: `{root}` (the fixture root) and the scenario's
//! captures (`{task}`), each matched literally, `{int}` (an integer;
//! `{int:name}` names it, for values the server chooses such as a process group
//! id, and the name shows in a failing diff), `[..]` (the rest of a line) and a
//! line that is exactly `...` (any number of lines). Matching is exact: a missing
//! period or a final newline counts.

use regex::{Regex, RegexBuilder};

use crate::scenario::Bindings;

/// Largest compiled template; far above any real expectation, but a bound, so that a
/// huge `text:` is reported instead of exhausting memory.
const TEMPLATE_SIZE_LIMIT: usize = 64 << 20;

/// How `actual` differs from the expectation `template`: `None` when it matches,
/// else a unified diff (placeholders that matched shown as the actual text), or why
/// the template could not be used.
pub(crate) fn difference(template: &str, actual: &str, bindings: &Bindings) -> Option<String> {
    match Template::new(template, bindings) {
        Ok(t) if t.matches(actual) => None,
        Ok(t) => Some(crate::judge::diff::unified(
            &t.resolved_against(actual),
            actual,
        )),
        Err(why) => Some(why),
    }
}

fn compile(pattern: &str) -> Result<Regex, String> {
    RegexBuilder::new(pattern)
        .size_limit(TEMPLATE_SIZE_LIMIT)
        .build()
        .map_err(|e| format!("the expected text cannot be used as a template: {e}"))
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
    pub(crate) fn new(template: &str, bindings: &Bindings) -> Result<Template, String> {
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
        let huge = "{int}".repeat(500_000);
        let why = difference(&huge, "1", &root()).expect("a difference");
        assert!(why.contains("cannot be used as a template"), "{why}");
        assert_eq!(difference("a{int}", "a7", &root()), None);
        let megabyte = "x".repeat(1 << 20);
        assert_eq!(difference(&megabyte, &megabyte, &root()), None);
    }

    /// Templates and texts made of the matcher's own markers, edge characters and
    /// the fixture root, in many combinations from a fixed seed: comparing never
    /// panics, a text always matches itself written as a template when it holds no
    /// marker, and a difference is never empty.
    #[test]
    fn random_templates_never_panic_and_literal_text_matches_itself() {
        const PIECES: [&str; 16] = [
            "{int}",
            "{int:pid}",
            "[..]",
            "...",
            "\n",
            "\n...\n",
            "{root}",
            "{task}",
            "{",
            "}",
            "a",
            "7",
            "-12",
            " ",
            "é",
            "\r",
        ];
        let mut state: u64 = 0x2545_f491_4f6c_dd1d;
        let mut next = |n: usize| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % n as u64) as usize
        };
        let mut bindings = root();
        bindings.bind("task", "t1");
        for _ in 0..2000 {
            let template: String = (0..next(12)).map(|_| PIECES[next(PIECES.len())]).collect();
            let actual: String = (0..next(12)).map(|_| PIECES[next(PIECES.len())]).collect();
            if let Some(shown) = difference(&template, &actual, &bindings) {
                assert!(!shown.is_empty(), "{template:?} vs {actual:?}");
            }
            let literal = actual.replace(['{', '['], "x").replace("...", "x");
            assert_eq!(
                difference(&literal, &literal, &bindings),
                None,
                "{literal:?} must match itself"
            );
        }
    }

    #[test]
    fn resolved_view_keeps_only_real_differences() {
        let t = Template::new("PGID: {int}\nDone.", &root()).expect("template");
        assert_eq!(t.resolved_against("PGID: 42\nDone"), "PGID: 42\nDone.");
    }
}
