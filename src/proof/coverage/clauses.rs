//! Clauses: the testable statements of a spec document, each with an id that a
//! scenario names in `covers:`.
//!
//! The rules are few and exact (they are listed in `docs/coverage.md`), so that an
//! author reading a document can tell the id of every clause without running anything:
//! an OpenSpec scenario, a numbered item with a bold title, a table row, a field bullet,
//! or a section that shows an example output block and nothing else.

use std::sync::LazyLock;

use regex::Regex;
use serde::Serialize;

/// Which rule found a clause.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum ClauseKind {
    /// `#### Scenario: Y` under `### Requirement: X`.
    Scenario,
    /// `### Requirement: X` with no scenario under it.
    Requirement,
    /// `N. **Title:** text`.
    Item,
    /// A row of a pipe table, named by its first cell.
    TableRow,
    /// `` - `name`: text ``.
    Field,
    /// A section whose only content of note is an example block.
    Example,
}

/// One clause of a document.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct Clause {
    pub id: String,
    pub kind: ClauseKind,
    /// 1-based line where the clause starts.
    pub line: usize,
    /// The heading the clause belongs to (the requirement's title for OpenSpec), as
    /// written; none for a table above every heading.
    pub section: Option<String>,
    /// The clause's own title as written: the scenario title, the bold title, the
    /// first cell, the field name, or the heading.
    pub title: String,
    /// What the clause says: the WHEN/THEN lines of a scenario, the text of an item,
    /// the other cells of a row (`Header: cell`), or the body of an example section.
    pub text: Vec<String>,
}

/// The id form of a title: lower case, backticks and asterisks dropped, every run of
/// other characters than `a-z0-9` turned into one `-`, none at either end.
pub(crate) fn slug(text: &str) -> String {
    let mut out = String::new();
    let mut gap = false;
    for c in text
        .chars()
        .filter(|c| *c != '`' && *c != '*')
        .flat_map(char::to_lowercase)
    {
        if c.is_ascii_lowercase() || c.is_ascii_digit() {
            if gap && !out.is_empty() {
                out.push('-');
            }
            gap = false;
            out.push(c);
        } else {
            gap = true;
        }
    }
    out
}

/// Every clause of a markdown document, in document order. Ids may repeat if the
/// document repeats a title; the caller decides what to do about that.
pub(crate) fn extract(document: &str) -> Vec<Clause> {
    let lines = classify(document);
    let sections = sections(&lines);
    let mut clauses = Vec::new();
    for index in 0..sections.len() {
        clauses.extend(section_clauses(&lines, &sections, index));
    }
    clauses
}

/// Info strings of fenced blocks that show data or output rather than program source:
/// such a block in a section of its own is an example the spec asks a tool to produce.
/// Source code (a `go` or `rust` block in a design note) is not a clause.
const EXAMPLE_LANGUAGES: &[&str] = &[
    "",
    "json",
    "jsonc",
    "json5",
    "jsonl",
    "ndjson",
    "text",
    "txt",
    "plain",
    "plaintext",
    "output",
    "console",
    "yaml",
    "yml",
    "xml",
    "toml",
    "csv",
];

/// What one line of the document is.
#[derive(Debug, Clone, PartialEq, Eq)]
enum LineKind {
    Heading {
        level: usize,
        text: String,
    },
    /// The opening line of a fenced block, with its language (lower case).
    FenceOpen {
        language: String,
    },
    /// Inside a fenced block, or its closing line.
    Fenced,
    Text,
}

#[derive(Debug)]
struct Line<'a> {
    text: &'a str,
    kind: LineKind,
}

fn classify(document: &str) -> Vec<Line<'_>> {
    let mut lines = Vec::new();
    let mut open: Option<(char, usize)> = None;
    for text in document.lines() {
        let kind = match open {
            Some((marker, len)) => {
                if closes_fence(text, marker, len) {
                    open = None;
                }
                LineKind::Fenced
            }
            None => match opens_fence(text) {
                Some((marker, len, language)) => {
                    open = Some((marker, len));
                    LineKind::FenceOpen { language }
                }
                None => heading(text).map_or(LineKind::Text, |(level, text)| LineKind::Heading {
                    level,
                    text,
                }),
            },
        };
        lines.push(Line { text, kind });
    }
    lines
}

/// A line of three or more backticks or tildes, at any indentation (fences inside
/// list items are indented), with its marker, length and language.
fn opens_fence(line: &str) -> Option<(char, usize, String)> {
    let trimmed = line.trim_start();
    let marker = trimmed.chars().next().filter(|c| *c == '`' || *c == '~')?;
    let len = trimmed.chars().take_while(|c| *c == marker).count();
    if len < 3 {
        return None;
    }
    let info = trimmed[len..].trim();
    if marker == '`' && info.contains('`') {
        return None;
    }
    let language = info.split_whitespace().next().unwrap_or("").to_lowercase();
    Some((marker, len, language))
}

fn closes_fence(line: &str, marker: char, len: usize) -> bool {
    let trimmed = line.trim();
    trimmed.chars().take_while(|c| *c == marker).count() >= len
        && trimmed.chars().all(|c| c == marker)
}

/// An ATX heading (`## Title`, optional closing `#`s) as its level and text.
fn heading(line: &str) -> Option<(usize, String)> {
    static HEADING: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?[ \t]*$").expect("regex"));
    let caps = HEADING.captures(line)?;
    let level = caps[1].len();
    let mut text = caps.get(2).map_or("", |m| m.as_str()).to_string();
    let without_closing = text.trim_end_matches('#');
    if without_closing.is_empty() || without_closing.ends_with([' ', '\t']) {
        text = without_closing.trim_end().to_string();
    }
    Some((level, text))
}

/// A heading and the lines up to the next heading of any level (its direct body;
/// subsections are sections of their own). The part above the first heading is a
/// section without a heading.
#[derive(Debug)]
struct Section {
    /// Index of the heading line, if any.
    heading: Option<usize>,
    level: usize,
    text: String,
    /// Enclosing sections, outermost first.
    ancestors: Vec<usize>,
    /// Line indices of the body.
    body: std::ops::Range<usize>,
}

fn sections(lines: &[Line]) -> Vec<Section> {
    let mut sections = vec![Section {
        heading: None,
        level: 0,
        text: String::new(),
        ancestors: Vec::new(),
        body: 0..0,
    }];
    let mut stack: Vec<usize> = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let LineKind::Heading { level, text } = &line.kind else {
            continue;
        };
        if let Some(last) = sections.last_mut() {
            last.body.end = i;
        }
        while stack.last().is_some_and(|&s| sections[s].level >= *level) {
            stack.pop();
        }
        sections.push(Section {
            heading: Some(i),
            level: *level,
            text: text.clone(),
            ancestors: stack.clone(),
            body: i + 1..i + 1,
        });
        stack.push(sections.len() - 1);
    }
    if let Some(last) = sections.last_mut() {
        last.body.end = lines.len();
    }
    sections
}

/// `Requirement: X` -> `X` (the label is matched without regard to case).
fn labelled<'a>(text: &'a str, label: &str) -> Option<&'a str> {
    let head = text.get(..label.len())?;
    let rest = text.get(label.len()..)?;
    if head.eq_ignore_ascii_case(label) {
        rest.strip_prefix(':').map(str::trim)
    } else {
        None
    }
}

fn is_requirements_heading(text: &str) -> bool {
    text.trim().eq_ignore_ascii_case("requirements")
}

fn section_clauses(lines: &[Line], sections: &[Section], index: usize) -> Vec<Clause> {
    let section = &sections[index];
    let requirement_above = section
        .ancestors
        .iter()
        .rev()
        .find_map(|&a| labelled(&sections[a].text, "Requirement"));
    let line_of = |s: &Section| s.heading.map_or(1, |h| h + 1);

    if let Some(requirement) = requirement_above {
        // Inside a requirement only its scenarios are clauses: tables and lists there
        // are part of the requirement's statement, which its scenarios test.
        return match labelled(&section.text, "Scenario") {
            Some(scenario) if !slug(scenario).is_empty() => vec![Clause {
                id: join(&slug(requirement), &slug(scenario)),
                kind: ClauseKind::Scenario,
                line: line_of(section),
                section: Some(requirement.to_string()),
                title: scenario.to_string(),
                text: non_blank(lines, section.body.clone()),
            }],
            _ => Vec::new(),
        };
    }
    if let Some(requirement) = labelled(&section.text, "Requirement") {
        let has_scenario = sections
            .iter()
            .any(|s| s.ancestors.contains(&index) && labelled(&s.text, "Scenario").is_some());
        if has_scenario || slug(requirement).is_empty() {
            return Vec::new();
        }
        return vec![Clause {
            id: slug(requirement),
            kind: ClauseKind::Requirement,
            line: line_of(section),
            section: Some(requirement.to_string()),
            title: requirement.to_string(),
            text: non_blank(lines, section.body.clone()),
        }];
    }

    let name = std::iter::once(index)
        .chain(section.ancestors.iter().rev().copied())
        .filter(|&s| sections[s].heading.is_some())
        .map(|s| sections[s].text.as_str())
        .find(|t| !is_requirements_heading(t));
    let found = body_clauses(lines, section.body.clone(), name);
    if !found.is_empty() || section.heading.is_none() {
        return found;
    }
    let shows_example = lines[section.body.clone()].iter().any(|l| {
        matches!(&l.kind, LineKind::FenceOpen { language } if EXAMPLE_LANGUAGES.contains(&language.as_str()))
    });
    if !shows_example || slug(&section.text).is_empty() {
        return Vec::new();
    }
    vec![Clause {
        id: slug(&section.text),
        kind: ClauseKind::Example,
        line: line_of(section),
        section: Some(section.text.clone()),
        title: section.text.clone(),
        text: trimmed_block(lines, section.body.clone()),
    }]
}

/// Numbered items, field bullets and table rows in one section's body.
fn body_clauses(lines: &[Line], body: std::ops::Range<usize>, name: Option<&str>) -> Vec<Clause> {
    static ITEM: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"^ {0,3}\d{1,9}[.)][ \t]+\*\*(.+?)\*\*(.*)$").expect("regex"));
    static FIELD: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"^ {0,3}[-*+][ \t]+`([^`]+)`[ \t]*:(.*)$").expect("regex"));
    let prefix = name.map(slug).unwrap_or_default();
    let section = name.map(str::to_string);
    let mut clauses = Vec::new();
    let mut i = body.start;
    while i < body.end {
        let line = &lines[i];
        if line.kind != LineKind::Text {
            i += 1;
            continue;
        }
        let item = ITEM.captures(line.text).and_then(|c| {
            let (title, rest) = (c[1].trim(), c[2].trim());
            match title.strip_suffix(':') {
                Some(t) => Some((t.trim().to_string(), rest.to_string())),
                None => rest
                    .strip_prefix(':')
                    .map(|r| (title.to_string(), r.trim().to_string())),
            }
        });
        let (kind, title, first) = if let Some((title, text)) = item {
            (ClauseKind::Item, title, text)
        } else if let Some(c) = FIELD.captures(line.text) {
            (ClauseKind::Field, c[1].to_string(), c[2].trim().to_string())
        } else if let Some(rows) = table_at(lines, i, body.end) {
            let end = rows.end;
            clauses.extend(table_clauses(lines, i, rows, &prefix, &section));
            i = end;
            continue;
        } else {
            i += 1;
            continue;
        };
        let end = continuation_end(lines, i + 1, body.end);
        let mut text = vec![first];
        text.extend(
            lines[i + 1..end]
                .iter()
                .map(|l| l.text.trim_end().to_string()),
        );
        while text.last().is_some_and(|t| t.is_empty()) {
            text.pop();
        }
        if !slug(&title).is_empty() {
            clauses.push(Clause {
                id: join(&prefix, &slug(&title)),
                kind,
                line: i + 1,
                section: section.clone(),
                title,
                text,
            });
        }
        i = end;
    }
    clauses
}

/// The lines that continue a list item: blank, indented or fenced lines, up to the
/// first line that starts at the margin.
fn continuation_end(lines: &[Line], from: usize, end: usize) -> usize {
    let mut i = from;
    while i < end {
        let line = &lines[i];
        let continues = line.kind == LineKind::Fenced
            || line.text.trim().is_empty()
            || line.text.starts_with([' ', '\t']);
        if !continues {
            break;
        }
        i += 1;
    }
    i
}

/// If a table's header is at `at` (a line with `|` followed by a `|---|` line), the
/// range of its data rows: the following lines that contain `|`. A row may lack its
/// leading `|`.
fn table_at(lines: &[Line], at: usize, end: usize) -> Option<std::ops::Range<usize>> {
    static SEPARATOR: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"^[ \t]*\|?[ \t]*:?-+:?[ \t]*(\|[ \t]*:?-+:?[ \t]*)*\|?[ \t]*$").expect("regex")
    });
    let header = &lines[at];
    let separator = lines.get(at + 1).filter(|_| at + 1 < end)?;
    let is_table = header.kind == LineKind::Text
        && header.text.contains('|')
        && separator.kind == LineKind::Text
        && separator.text.contains('|')
        && SEPARATOR.is_match(separator.text);
    if !is_table {
        return None;
    }
    let first = at + 2;
    let mut last = first;
    while last < end
        && lines[last].kind == LineKind::Text
        && lines[last].text.contains('|')
        && !lines[last].text.trim().is_empty()
    {
        last += 1;
    }
    Some(first..last)
}

fn cells(row: &str) -> Vec<String> {
    let row = row.trim();
    let row = row.strip_prefix('|').unwrap_or(row);
    let row = row.strip_suffix('|').unwrap_or(row);
    row.split('|').map(|c| c.trim().to_string()).collect()
}

fn table_clauses(
    lines: &[Line],
    header_at: usize,
    rows: std::ops::Range<usize>,
    prefix: &str,
    section: &Option<String>,
) -> Vec<Clause> {
    let header = cells(lines[header_at].text);
    rows.filter_map(|i| {
        let row = cells(lines[i].text);
        let first = row.first()?;
        if slug(first).is_empty() {
            return None;
        }
        let text = row
            .iter()
            .enumerate()
            .skip(1)
            .map(|(k, cell)| match header.get(k).filter(|h| !h.is_empty()) {
                Some(h) => format!("{h}: {cell}"),
                None => cell.clone(),
            })
            .collect();
        Some(Clause {
            id: join(prefix, &slug(first)),
            kind: ClauseKind::TableRow,
            line: i + 1,
            section: section.clone(),
            title: first.clone(),
            text,
        })
    })
    .collect()
}

fn join(prefix: &str, name: &str) -> String {
    if prefix.is_empty() {
        name.to_string()
    } else {
        format!("{prefix}/{name}")
    }
}

fn non_blank(lines: &[Line], range: std::ops::Range<usize>) -> Vec<String> {
    lines[range]
        .iter()
        .map(|l| l.text.trim_end())
        .filter(|t| !t.trim().is_empty())
        .map(str::to_string)
        .collect()
}

/// The lines of `range` without the blank lines at either end.
fn trimmed_block(lines: &[Line], range: std::ops::Range<usize>) -> Vec<String> {
    let texts: Vec<&str> = lines[range].iter().map(|l| l.text.trim_end()).collect();
    let start = texts
        .iter()
        .position(|t| !t.is_empty())
        .unwrap_or(texts.len());
    let end = texts
        .iter()
        .rposition(|t| !t.is_empty())
        .map_or(start, |e| e + 1);
    texts[start..end].iter().map(|t| t.to_string()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(document: &str) -> Vec<String> {
        extract(document).into_iter().map(|c| c.id).collect()
    }

    #[test]
    fn slug_lowers_drops_marks_and_joins_runs() {
        assert_eq!(slug("`list_directory`"), "list-directory");
        assert_eq!(slug("**Path is a File:**"), "path-is-a-file");
        assert_eq!(
            slug("INVALID_INPUT on empty required parameter"),
            "invalid-input-on-empty-required-parameter"
        );
        assert_eq!(slug("  --Hello,   World!--  "), "hello-world");
        assert_eq!(slug("Str_replace tool"), "str-replace-tool");
        assert_eq!(slug("a`b`c*d"), "abcd");
        assert_eq!(slug("Café 2"), "caf-2");
        assert_eq!(slug("!!!"), "");
    }

    #[test]
    fn openspec_scenarios_are_requirement_slash_scenario() {
        let doc = "## ADDED Requirements\n\n### Requirement: Error format\nText.\n\n\
                   #### Scenario: Has a prefix\n- **WHEN** x\n- **THEN** y\n\n\
                   #### Scenario: Parses\n- **WHEN** a\n";
        let clauses = extract(doc);
        assert_eq!(
            ids(doc),
            ["error-format/has-a-prefix", "error-format/parses"]
        );
        assert_eq!(clauses[0].line, 6);
        assert_eq!(clauses[0].kind, ClauseKind::Scenario);
        assert_eq!(clauses[0].text, ["- **WHEN** x", "- **THEN** y"]);
        assert_eq!(clauses[0].section.as_deref(), Some("Error format"));
        assert_eq!(clauses[0].title, "Has a prefix");
    }

    #[test]
    fn a_requirement_without_scenarios_is_a_clause() {
        let doc = "### Requirement: Lonely rule\nIt SHALL hold.\n\n### Requirement: Other\n#### Scenario: S\n- x\n";
        let clauses = extract(doc);
        assert_eq!(ids(doc), ["lonely-rule", "other/s"]);
        assert_eq!(clauses[0].kind, ClauseKind::Requirement);
        assert_eq!(clauses[0].text, ["It SHALL hold."]);
    }

    #[test]
    fn tables_and_lists_inside_a_requirement_are_not_clauses() {
        let doc = "### Requirement: Codes\n| Code | When |\n|---|---|\n| `A` | a |\n\n\
                   1. **Item:** text\n- `f`: g\n\n#### Scenario: Uses A\n- x\n";
        assert_eq!(ids(doc), ["codes/uses-a"]);
    }

    #[test]
    fn numbered_items_with_a_bold_title_take_the_nearest_heading() {
        let doc = "# Doc\n\n## `read_file`\n\n### Requirements\n\n\
                   1.  **Successful Read:** returns it.\n2. **Missing File**: says so.\n\
                   3. **No colon** here\n4. plain item\n";
        let clauses = extract(doc);
        assert_eq!(
            ids(doc),
            ["read-file/successful-read", "read-file/missing-file"]
        );
        assert_eq!(clauses[0].text, ["returns it."]);
        assert_eq!(clauses[0].kind, ClauseKind::Item);
        assert_eq!(clauses[1].line, 8);
    }

    #[test]
    fn an_item_keeps_its_indented_continuation_and_code_block() {
        let doc = "## run\n1. **Ok:** format:\n    ```\n    Command: x\n    ```\n2. **Bad:** no.\n";
        let clauses = extract(doc);
        assert_eq!(ids(doc), ["run/ok", "run/bad"]);
        assert_eq!(
            clauses[0].text,
            ["format:", "    ```", "    Command: x", "    ```"]
        );
    }

    #[test]
    fn table_rows_are_named_by_their_first_cell() {
        let doc = "## Codes\n\n| Code | Meaning |\n|------|:---:|\n| `not_found` | gone |\n| io_error | broke |\n\nAfter.\n";
        let clauses = extract(doc);
        assert_eq!(ids(doc), ["codes/not-found", "codes/io-error"]);
        assert_eq!(clauses[0].kind, ClauseKind::TableRow);
        assert_eq!(clauses[0].text, ["Meaning: gone"]);
        assert_eq!(clauses[0].line, 5);
    }

    #[test]
    fn a_table_above_every_heading_and_rows_without_a_leading_pipe() {
        let doc = "Codes\n| Code | Meaning |\n|---|---|\ninvalid_input | bad |\nnot_found | gone |\nHandling\n";
        assert_eq!(ids(doc), ["invalid-input", "not-found"]);
    }

    #[test]
    fn field_bullets_take_the_section() {
        let doc = "### glob\n\n```json\n{}\n```\n\n- `output`: the files\n- `count`: how many\n- not a field\n";
        let clauses = extract(doc);
        assert_eq!(ids(doc), ["glob/output", "glob/count"]);
        assert_eq!(clauses[0].kind, ClauseKind::Field);
        assert_eq!(clauses[0].text, ["the files"]);
    }

    #[test]
    fn a_section_with_only_an_example_block_is_a_clause() {
        let doc = "# Format\n\nIntro.\n\n## Success\n\nWhen it works:\n\n```json\n{\"ok\": true}\n```\n\n\
                   ## Fields\n- `a`: b\n\n```json\n{}\n```\n\n## Plain\n\nNo block.\n";
        let clauses = extract(doc);
        assert_eq!(ids(doc), ["success", "fields/a"]);
        assert_eq!(clauses[0].kind, ClauseKind::Example);
        assert_eq!(clauses[0].text[0], "When it works:");
        assert_eq!(clauses[0].text.last().map(String::as_str), Some("```"));
    }

    #[test]
    fn a_block_of_program_source_is_not_an_example() {
        let doc = "### 2. Constants\n\n```go\nconst A = 1\n```\n\n### 3. Plain\n```\nout\n```\n";
        assert_eq!(ids(doc), ["3-plain"]);
    }

    #[test]
    fn nothing_inside_a_fence_is_a_clause() {
        let doc = "## S\n\n```text\n# Not a heading\n1. **No:** x\n- `no`: y\n| a | b |\n|---|---|\n| c | d |\n```\n";
        assert_eq!(ids(doc), ["s"]);
    }

    #[test]
    fn everything_else_is_not_a_clause() {
        let doc = "## Goals\n\n**Goals:**\n- Every response carries a code\n\n**Choice**: prefix.\n\n1. Just a step\n";
        assert!(ids(doc).is_empty());
    }

    #[test]
    fn the_requirements_heading_is_skipped_only_when_it_is_the_whole_text() {
        let doc = "## Tool Requirements\n1. **A:** x\n";
        assert_eq!(ids(doc), ["tool-requirements/a"]);
        let doc = "### Requirements\n1. **A:** x\n";
        assert_eq!(ids(doc), ["a"]);
    }
}
