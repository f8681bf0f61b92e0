//! Judges one call's outcome and the files afterwards against a scenario's `then`.
//!
//! Each expectation yields at most one [`Mismatch`] naming itself, so a report says
//! exactly which promise was broken, with a diff where text was compared.

pub(crate) mod convention;
pub(crate) mod diff;
pub(crate) mod json_subset;
pub(crate) mod json_text;
mod left_file;
mod line_set;
pub(crate) mod template;
mod unchanged;

use std::borrow::Cow;
use std::time::Instant;

use crate::fixture::{Fixture, Initial};
use crate::scenario::{
    compile_filled, Bindings, Convention, FileExpect, FileExpectDetail, ListedTools,
    ProtocolErrorExpect, Then,
};
use crate::server::outcome::{CallOutcome, ToolResult};
use left_file::{look_at, LeftFile};

/// One expectation that did not hold.
#[derive(Debug, Clone, PartialEq)]
pub struct Mismatch {
    /// Which expectation, as written in the scenario (`code`, `text`, `files: a.txt`).
    pub expectation: String,
    /// The expectation's id within its scenario (`code`, `contains[0]`,
    /// `files[a.txt]`, `any_of[1].text`): appended to the scenario id after a `#`, it
    /// names this one expectation in a baseline.
    pub key: String,
    /// What was wrong, with a diff where useful.
    pub detail: String,
    /// For an expectation that says what the answer is (`text`, `json`, `code`,
    /// `is_error`, a file's text), the value that would have held: the answer,
    /// its root and captures written as placeholders, the lines of an expected
    /// text that still match kept as written. `run --bless` writes it. For a tool
    /// result expected and a JSON-RPC error got (`result`), the `protocol_error`
    /// that would have held, which `record` writes (bless leaves it to a person).
    pub(crate) blessed: Option<serde_json::Value>,
}

impl Mismatch {
    pub(crate) fn new(expectation: impl Into<String>, detail: impl Into<String>) -> Self {
        Mismatch {
            expectation: expectation.into(),
            key: String::new(),
            detail: detail.into(),
            blessed: None,
        }
    }

    /// The same mismatch with the value that would have held (see `blessed`).
    pub(crate) fn blessing(mut self, value: serde_json::Value) -> Self {
        self.blessed = Some(value);
        self
    }

    /// The same mismatch with its expectation id set.
    pub(crate) fn keyed(mut self, key: impl Into<String>) -> Self {
        self.key = key.into();
        self
    }
}

/// Whether the baseline key `entry` excuses the expectation `key`: the same id, or
/// one that contains it (`files` excuses `files[a.txt]`, `any_of` every branch).
pub(crate) fn key_covers(entry: &str, key: &str) -> bool {
    key.strip_prefix(entry)
        .is_some_and(|rest| rest.is_empty() || rest.starts_with(['[', '.']))
}

/// Every mismatch between `then` and what happened; empty means the scenario passed.
///
/// An `any_of` holds when one of its branches does. When none does, every branch's
/// mismatches are reported, each named `any_of[i]: ...`, so the reader sees why each
/// alternative failed.
/// Placeholders (`{root}`, captures) are filled from `bindings`. Files the server
/// left are read until `deadline` at most.
pub(crate) fn judge(
    then: &Then,
    convention: Convention,
    outcome: &CallOutcome,
    fixture: &Fixture,
    bindings: &Bindings,
    deadline: Instant,
) -> Vec<Mismatch> {
    judge_with(
        then,
        convention,
        outcome,
        Some((fixture, deadline)),
        bindings,
    )
}

/// [`judge`] of the answer alone, the files left aside: for another answer to a
/// call whose files were judged already. A branch of `any_of` is then judged by
/// its answer only, so this may pass an answer that `judge` would not.
pub(crate) fn judge_answer(
    then: &Then,
    convention: Convention,
    outcome: &CallOutcome,
    bindings: &Bindings,
) -> Vec<Mismatch> {
    judge_with(then, convention, outcome, None, bindings)
}

fn judge_with(
    then: &Then,
    convention: Convention,
    outcome: &CallOutcome,
    files: Option<(&Fixture, Instant)>,
    bindings: &Bindings,
) -> Vec<Mismatch> {
    let reading = Reading::new(convention, then.exact_bytes);
    let mut found = judge_keys(then, reading, outcome, files, bindings);
    let branches: Vec<Vec<Mismatch>> = then
        .branches()
        .iter()
        .map(|branch| judge_keys(branch, reading, outcome, files, bindings))
        .collect();
    if !branches.iter().any(Vec::is_empty) {
        for (i, mismatches) in branches.into_iter().enumerate() {
            found.extend(mismatches.into_iter().map(|m| Mismatch {
                expectation: format!("any_of[{i}]: {}", m.expectation),
                key: format!("any_of[{i}].{}", m.key),
                detail: m.detail,
                blessed: m.blessed,
            }));
        }
    }
    found
}

/// How a result is read: its dialect's convention, and whether a JSON object's
/// text is judged in its canonical spelling ([`json_text`]) or as it came.
#[derive(Debug, Clone, Copy)]
struct Reading {
    convention: Convention,
    as_json: bool,
}

impl Reading {
    /// A JSON dialect reads JSON objects as JSON unless the scenario is about bytes.
    fn new(convention: Convention, exact_bytes: bool) -> Reading {
        Reading {
            convention,
            as_json: convention.speaks_json() && !exact_bytes,
        }
    }
}

/// The mismatches of the keys of one `then` or branch, leaving its `any_of` aside.
fn judge_keys(
    then: &Then,
    reading: Reading,
    outcome: &CallOutcome,
    files: Option<(&Fixture, Instant)>,
    bindings: &Bindings,
) -> Vec<Mismatch> {
    let mut found = Vec::new();
    if let Some(want) = &then.protocol_error {
        judge_protocol_error(want, outcome, bindings, &mut found);
        for m in &mut found {
            m.key = "protocol_error".to_string();
        }
    }
    match outcome {
        CallOutcome::Result(result) => judge_result(then, reading, result, bindings, &mut found),
        other if then.judges_the_result() => {
            let missing = Mismatch::new(
                "a tool result",
                format!("expected a tool result, got {}", other.summary()),
            )
            .keyed("result");
            // A JSON-RPC error instead: the `protocol_error` that would have held.
            found.push(match other {
                CallOutcome::Protocol { code, .. } => {
                    missing.blessing(serde_json::json!({ "code": code }))
                }
                _ => missing,
            });
        }
        _ => {}
    }
    if let Some((fixture, deadline)) = files {
        for (name, expect) in &then.files {
            if let Some(m) = judge_file(name, expect, fixture, bindings, deadline) {
                found.push(m.keyed(format!("files[{name}]")));
            }
        }
    }
    found
}

/// `tools/list` must name every `include` tool and none of the `exclude` ones
/// (each in the server's own spelling, given by `rename`).
pub(crate) fn judge_listed_tools(
    want: &ListedTools,
    listed: &[String],
    rename: impl Fn(&String) -> String,
) -> Vec<Mismatch> {
    let shown = if listed.is_empty() {
        "no tools".to_string()
    } else {
        listed.join(", ")
    };
    let missing: Vec<String> = want
        .include
        .iter()
        .map(&rename)
        .filter(|t| !listed.contains(t))
        .collect();
    let present: Vec<String> = want
        .exclude
        .iter()
        .map(&rename)
        .filter(|t| listed.contains(t))
        .collect();
    let mut found = Vec::new();
    if !missing.is_empty() {
        found.push(
            Mismatch::new(
                "listed_tools: include",
                format!("tools/list lacks {}; it lists {shown}", missing.join(", ")),
            )
            .keyed("listed_tools.include"),
        );
    }
    if !present.is_empty() {
        found.push(
            Mismatch::new(
                "listed_tools: exclude",
                format!(
                    "tools/list names {}, which must be hidden; it lists {shown}",
                    present.join(", ")
                ),
            )
            .keyed("listed_tools.exclude"),
        );
    }
    found
}

/// The call must have been refused at the protocol level, with the code and the
/// words in its message if given.
fn judge_protocol_error(
    want: &ProtocolErrorExpect,
    outcome: &CallOutcome,
    bindings: &Bindings,
    found: &mut Vec<Mismatch>,
) {
    let label = protocol_error_label(want);
    let CallOutcome::Protocol { code, message } = outcome else {
        found.push(Mismatch::new(
            label,
            format!("expected a JSON-RPC error, got {}", outcome.summary()),
        ));
        return;
    };
    if let Some(expected) = want.code {
        if i64::from(*code) != expected {
            found.push(Mismatch::new(
                label.clone(),
                format!(
                    "expected JSON-RPC error code {expected}, got {}",
                    outcome.summary()
                ),
            ));
        }
    }
    let missing: Vec<String> = want
        .contains
        .iter()
        .map(|needle| bindings.fill(needle))
        .filter(|needle| !message.contains(needle.as_str()))
        .collect();
    if !missing.is_empty() {
        found.push(Mismatch::new(
            label,
            format!(
                "{} does not occur in the message of {}",
                missing
                    .iter()
                    .map(|n| format!("{n:?}"))
                    .collect::<Vec<_>>()
                    .join(", "),
                outcome.summary()
            ),
        ));
    }
}

/// `protocol_error` as a scenario writes it, to name the expectation.
fn protocol_error_label(want: &ProtocolErrorExpect) -> String {
    let mut parts = Vec::new();
    if let Some(code) = want.code {
        parts.push(format!("code: {code}"));
    }
    if !want.contains.is_empty() {
        parts.push(format!("contains: [{}]", want.contains.join(", ")));
    }
    if parts.is_empty() {
        "protocol_error: true".to_string()
    } else {
        format!("protocol_error: {{{}}}", parts.join(", "))
    }
}

fn judge_result(
    then: &Then,
    reading: Reading,
    result: &ToolResult,
    bindings: &Bindings,
    found: &mut Vec<Mismatch>,
) {
    let convention = reading.convention;
    let judged = if reading.as_json {
        json_text::as_judged(&result.text)
    } else {
        Cow::Borrowed(result.text.as_str())
    };
    let respelled = matches!(judged, Cow::Owned(_));
    let text: &str = &judged;
    let before = found.len();
    if then.judges_the_result() {
        let breaks = convention.breaks(result);
        if !breaks.is_empty() {
            found.push(Mismatch::new(convention.name(), breaks.join("\n")).keyed("convention"));
        }
    }
    if let Some(expected) = &then.json {
        let detail = match serde_json::from_str::<serde_json::Value>(text) {
            Ok(actual) => {
                let differences = json_subset::differences(expected, &actual, bindings);
                (!differences.is_empty()).then(|| {
                    format!(
                        "{}\nthe text was:\n{}",
                        differences.join("\n"),
                        indent(text)
                    )
                })
            }
            Err(e) => Some(format!(
                "the text is not JSON ({e}); the text was:\n{}",
                indent(text)
            )),
        };
        if let Some(detail) = detail {
            let mut mismatch = Mismatch::new("json", detail).keyed("json");
            if let Ok(actual) = serde_json::from_str::<serde_json::Value>(text) {
                mismatch = mismatch.blessing(json_subset::blessed(expected, &actual, bindings));
            }
            found.push(mismatch);
        }
    }
    // `code` implies an error unless the scenario says otherwise.
    let want_error = then.is_error.or(then.code.as_ref().map(|_| true));
    if let Some(want) = want_error {
        if result.is_error() != want {
            let got = match result.is_error {
                Some(b) => format!("isError: {b}"),
                None => "no isError field".to_string(),
            };
            found.push(
                Mismatch::new(
                    format!("is_error: {want}"),
                    format!(
                        "expected isError: {want}, got {got}; text: {}",
                        crate::visible::excerpt(text, 300)
                    ),
                )
                .keyed("is_error")
                .blessing(serde_json::Value::Bool(result.is_error())),
            );
        }
    }
    if let Some(code) = &then.code {
        let code = bindings.fill(code);
        let read = convention.read_code(result);
        let detail = match &read {
            Ok(got) if *got == code => None,
            Ok(got) => Some(format!(
                "expected code {code}, got {got}\n{}",
                diff::unified(&code, got)
            )),
            Err(why) => Some(format!(
                "expected code {code}, but {}; text: {}",
                why.0,
                crate::visible::excerpt(text, 300)
            )),
        };
        if let Some(detail) = detail {
            let mut mismatch = Mismatch::new(format!("code: {code}"), detail).keyed("code");
            if let Ok(got) = read {
                mismatch = mismatch.blessing(serde_json::Value::String(bindings.unfill(&got)));
            }
            found.push(mismatch);
        }
    }
    if let Some(expected) = &then.text {
        let expected = match respelled.then(|| json_text::canonical(expected)).flatten() {
            Some(spelled) => Cow::Owned(spelled),
            None => Cow::Borrowed(expected.as_str()),
        };
        if let Some(difference) = template::difference(&expected, text, bindings) {
            let mut mismatch = Mismatch::new("text", difference).keyed("text");
            if let Some(blessed) = template::blessed(&expected, text, bindings) {
                mismatch = mismatch.blessing(serde_json::Value::String(blessed));
            }
            found.push(mismatch);
        }
    }
    if let Some(expected) = &then.lines_in_any_order {
        if let Some(difference) = line_set::difference(expected, text, bindings) {
            found.push(Mismatch::new("lines_in_any_order", difference).keyed("lines_in_any_order"));
        }
    }
    for (i, needle) in then.contains.iter().enumerate() {
        let needle = bindings.fill(needle);
        if !text.contains(&needle) {
            found.push(
                Mismatch::new(
                    format!("contains: {needle:?}"),
                    format!("{needle:?} does not occur in the text:\n{}", indent(text)),
                )
                .keyed(format!("contains[{i}]")),
            );
        }
    }
    for (i, needle) in then.not_contains.iter().enumerate() {
        let needle = bindings.fill(needle);
        if let Some(at) = text.find(&needle) {
            found.push(
                Mismatch::new(
                    format!("not_contains: {needle:?}"),
                    format!(
                        "{needle:?} occurs at byte {at} of the text:\n{}",
                        indent(text)
                    ),
                )
                .keyed(format!("not_contains[{i}]")),
            );
        }
    }
    for (i, pattern) in then.matches.iter().enumerate() {
        // Compiled here, once for this judging (nothing was compiled at load); one
        // with `{root}` or a capture in it is compiled with the values filled in.
        let filled = bindings.fill_with(pattern.as_str(), regex::escape);
        let regex = if filled == pattern.as_str() {
            pattern.compile()
        } else {
            compile_filled(&filled)
        };
        let pattern = filled;
        let detail = match regex {
            Ok(re) if re.is_match(text) => None,
            Ok(_) => Some(format!(
                "no match for /{pattern}/ in the text:\n{}",
                indent(text)
            )),
            Err(e) => Some(format!("bad regex: {e}")),
        };
        if let Some(detail) = detail {
            found.push(
                Mismatch::new(format!("matches: {pattern:?}"), detail)
                    .keyed(format!("matches[{i}]")),
            );
        }
    }
    if respelled {
        let text_keys = [
            "text",
            "lines_in_any_order",
            "contains[",
            "not_contains[",
            "matches[",
        ];
        for mismatch in &mut found[before..] {
            if text_keys.iter().any(|k| mismatch.key.starts_with(k)) {
                mismatch.detail.push_str(JSON_READING_NOTE);
            }
        }
    }
    if let Some(note) = result.no_text_note() {
        for mismatch in &mut found[before..] {
            mismatch.detail.push('\n');
            mismatch.detail.push_str(&note);
        }
    }
}

/// Said under a text expectation's mismatch when the text was read as JSON, so
/// the reader knows why the text shown differs in form from what came.
const JSON_READING_NOTE: &str = "\n(read as JSON: the object spelled compactly with its keys sorted, as is an expected text that is a JSON object; a scenario about the bytes says `exact_bytes: true`)";

fn judge_file(
    name: &str,
    expect: &FileExpect,
    fixture: &Fixture,
    bindings: &Bindings,
    deadline: Instant,
) -> Option<Mismatch> {
    let label = format!("files: {name}");
    let detail = match expect {
        FileExpect::Text(text) => FileExpectDetail {
            text: Some(text.clone()),
            ..Default::default()
        },
        FileExpect::Detailed(d) => d.clone(),
    };
    let left = look_at(fixture.handle(), name, deadline);
    if detail.absent {
        return left.exists().then(|| {
            Mismatch::new(
                label,
                format!(
                    "expected {name} to be absent, but it exists{}",
                    describe(&left)
                ),
            )
        });
    }
    let file = match left {
        LeftFile::Regular(file) => file,
        LeftFile::Absent => {
            return Some(Mismatch::new(
                label,
                format!("expected {name} to exist, but it does not"),
            ))
        }
        LeftFile::Unread(why) => return Some(unreadable(label, name, &why)),
    };
    if detail.unchanged {
        let initial = fixture.initial_content(name).unwrap_or(Initial::Bytes(&[]));
        match unchanged::difference(name, &file, initial) {
            Ok(None) => {}
            Ok(Some(difference)) => return Some(Mismatch::new(label, difference)),
            Err(why) => return Some(unreadable(label, name, &why)),
        }
    }
    if detail.text.is_none() && detail.contains.is_empty() {
        return None;
    }
    let bytes = match file.read_whole() {
        Ok(bytes) => bytes,
        Err(why) => return Some(unreadable(label, name, &why)),
    };
    let actual = String::from_utf8_lossy(&bytes);
    if let Some(text) = &detail.text {
        if let Some(difference) = template::difference(text, &actual, bindings) {
            let mismatch = Mismatch::new(label, difference);
            return Some(match template::blessed(text, &actual, bindings) {
                Some(blessed) => mismatch.blessing(serde_json::Value::String(blessed)),
                None => mismatch,
            });
        }
    }
    for needle in &detail.contains {
        let needle = bindings.fill(needle);
        if !actual.contains(needle.as_str()) {
            return Some(Mismatch::new(
                label,
                format!("{needle:?} does not occur in {name}:\n{}", indent(&actual)),
            ));
        }
    }
    None
}

/// The mismatch of a checked file that is not there to be read, and why.
fn unreadable(label: String, name: &str, why: &dyn std::fmt::Display) -> Mismatch {
    Mismatch::new(
        label,
        format!("expected {name} to be a file to check, but it {why}"),
    )
}

/// What a file that should be absent holds (its start), for the report.
fn describe(left: &LeftFile) -> String {
    match left {
        LeftFile::Regular(file) => {
            // Enough bytes for the excerpt's 200 characters, even of 4-byte ones.
            let start = file.read_range(0, 800);
            match (start, file.len()) {
                (Ok(bytes), Ok(len)) if len > bytes.len() as u64 => {
                    let text = String::from_utf8_lossy(&bytes);
                    let shown: String = text.chars().take(200).collect();
                    format!(
                        " with content {}… ({len} bytes in all)",
                        crate::visible::excerpt(&shown, 200)
                    )
                }
                (Ok(bytes), _) => format!(
                    " with content {}",
                    crate::visible::excerpt(&String::from_utf8_lossy(&bytes), 200)
                ),
                (Err(why), _) => format!(": it {why}"),
            }
        }
        LeftFile::Unread(why) => format!(": it {why}"),
        LeftFile::Absent => String::new(),
    }
}

/// `text` quoted in a report: each line indented behind `| `, so where the server's
/// text begins and ends is plain.
pub(crate) fn indent(text: &str) -> String {
    text.lines().map(|l| format!("    | {l}\n")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn then(yaml: &str) -> Then {
        crate::scenario::parse_yaml_str(std::path::Path::new("then.yaml"), yaml)
            .expect("a valid then")
    }

    fn answer(text: &str) -> ToolResult {
        ToolResult {
            is_error: Some(false),
            text: text.into(),
            raw: serde_json::Value::Null,
        }
    }

    /// A `matches:` regex is not compiled at load, and compiled once when judged.
    #[test]
    fn a_regex_is_compiled_once_when_judged_and_not_at_load() {
        let loaded = then("matches: [\"line [0-9]+\"]\n");
        assert_eq!(loaded.matches[0].compilations(), 0, "not compiled at load");
        let copy = loaded.clone();
        let mut found = Vec::new();
        let bindings = Bindings::new("/root");
        judge_result(
            &copy,
            Reading::new(Convention::Plain, false),
            &answer("line 12"),
            &bindings,
            &mut found,
        );
        assert!(found.is_empty(), "{found:?}");
        assert_eq!(
            loaded.matches[0].compilations(),
            1,
            "compiled once to judge"
        );
        judge_result(
            &loaded,
            Reading::new(Convention::Plain, false),
            &answer("no digits"),
            &bindings,
            &mut found,
        );
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(
            found[0]
                .detail
                .starts_with("no match for /line [0-9]+/ in the text"),
            "{}",
            found[0].detail
        );
    }

    /// A regex with `{root}` in it differs per run: it is compiled with the root
    /// filled in (escaped), and the written pattern is left uncompiled.
    #[test]
    fn a_regex_with_a_value_filled_in_is_compiled_for_that_run() {
        let loaded = then("matches: [\"^{root}/a[.]txt$\"]\n");
        let mut found = Vec::new();
        let bindings = Bindings::new("/tmp/x+y");
        judge_result(
            &loaded,
            Reading::new(Convention::Plain, false),
            &answer("/tmp/x+y/a.txt"),
            &bindings,
            &mut found,
        );
        assert!(found.is_empty(), "{found:?}");
        judge_result(
            &loaded,
            Reading::new(Convention::Plain, false),
            &answer("/tmp/xxy/a.txt"),
            &bindings,
            &mut found,
        );
        assert_eq!(found.len(), 1, "the root matched literally: {found:?}");
        assert_eq!(
            loaded.matches[0].compilations(),
            0,
            "the written pattern is not compiled"
        );
    }

    fn judged(yaml: &str, convention: Convention, text: &str) -> Vec<Mismatch> {
        let then = then(yaml);
        let mut found = Vec::new();
        let result = ToolResult {
            is_error: Some(true),
            text: text.into(),
            raw: serde_json::Value::Null,
        };
        let reading = Reading::new(convention, then.exact_bytes);
        judge_result(&then, reading, &result, &Bindings::new("/r"), &mut found);
        found
    }

    const ENVELOPE: &str = r#"{"error":"internal","message":"internal error"}"#;

    /// In a JSON dialect a `text:` that is a JSON object holds for the same object
    /// in another key order, spacing or escaping, and fails on another value with
    /// a diff of the two objects' canonical spellings.
    #[test]
    fn a_json_dialect_compares_an_object_text_as_json() {
        let yaml = format!("text: '{ENVELOPE}'\n");
        let respaced = "{\n  \"message\": \"intern\\u0061l error\",\n  \"error\": \"internal\"\n}";
        assert!(judged(&yaml, Convention::JsonErrorEnvelope, respaced).is_empty());
        let extra = r#"{"error": "internal", "message": "internal error", "path": "/r/a"}"#;
        let found = judged(&yaml, Convention::JsonErrorEnvelope, extra);
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(
            found[0].detail.contains(r#""path":"/r/a""#),
            "{}",
            found[0].detail
        );
        assert!(
            found[0].detail.contains("read as JSON"),
            "{}",
            found[0].detail
        );
    }

    /// `contains` and `matches` read the canonical spelling, so a space after a colon
    /// does not hide a match, and a wrong value is still caught.
    #[test]
    fn contains_and_matches_read_the_canonical_spelling() {
        let yaml = "contains: ['\"code\":3']\nmatches: ['\"message\":\"x{3}\"']\n";
        let spaced = r#"{ "message": "xxx", "error": "e", "code": 3 }"#;
        assert!(judged(yaml, Convention::JsonErrorEnvelope, spaced).is_empty());
        let wrong = r#"{ "message": "xx", "error": "e", "code": "3" }"#;
        let found = judged(yaml, Convention::JsonErrorEnvelope, wrong);
        assert_eq!(found.len(), 2, "{found:?}");
        let shown = r#"| {"code":"3","error":"e","message":"xx"}"#;
        assert!(found[1].detail.contains(shown), "{}", found[1].detail);
    }

    /// `exact_bytes: true` judges the text as it came, and a dialect that is not JSON
    /// always does: there, another spacing is another answer.
    #[test]
    fn exact_bytes_and_other_dialects_compare_the_bytes() {
        let spaced = r#"{"error": "internal", "message": "internal error"}"#;
        let yaml = format!("text: '{ENVELOPE}'\nexact_bytes: true\n");
        let found = judged(&yaml, Convention::JsonErrorEnvelope, spaced);
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(
            !found[0].detail.contains("read as JSON"),
            "{}",
            found[0].detail
        );
        let yaml = format!("text: '{ENVELOPE}'\n");
        assert_eq!(judged(&yaml, Convention::Plain, spaced).len(), 1);
        assert!(judged(&yaml, Convention::Plain, ENVELOPE).is_empty());
    }
}
