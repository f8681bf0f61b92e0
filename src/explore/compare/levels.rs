//! The two sides' answers to one call, compared at the levels explore reports:
//! whether either side escaped its root where the suite's program is meant to stay
//! inside it (judged by effect, as `run` judges it), by the suite's result convention (what the spec fixes), by the exact text with
//! the root and the suite's masks applied (JSON compared as JSON), and by the files
//! each side left behind. The convention is read by the judge's own code.

use std::collections::BTreeMap;

use regex::Regex;
use serde_json::Value;

use crate::fixture::OutsidePlaces;
use crate::judge::diff::unified_between;
use crate::scenario::Convention;
use crate::server::outcome::CallOutcome;

/// Where two answers part.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Level {
    /// A side meant to stay inside its root read or changed a place beside it.
    Escape,
    /// One side crashed, hung or broke the protocol and the other did not.
    Broken,
    /// The suite's convention reads the two answers differently.
    Convention,
    /// Same reading, different text.
    Text,
    /// Same answers, different files left behind.
    Files,
}

impl Level {
    pub(crate) fn label(self) -> &'static str {
        match self {
            Level::Escape => "escape",
            Level::Broken => "broken",
            Level::Convention => "convention",
            Level::Text => "text",
            Level::Files => "files",
        }
    }

    pub(crate) const ALL: [Level; 5] = [
        Level::Escape,
        Level::Broken,
        Level::Convention,
        Level::Text,
        Level::Files,
    ];
}

/// What differs at one level: each side's reading and their diff.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Difference {
    pub level: Level,
    pub oracle: String,
    pub subject: String,
    pub diff: String,
}

/// How a side's texts are masked before they are compared: the canaries beside
/// its root (each named by what holds it), its own root, the folder beside it, the
/// fixture around them, and the suite's masks.
pub(crate) struct Masking<'a> {
    pub root: &'a str,
    /// The folder beside the root that `{outside}` names, as an absolute path.
    pub outside_folder: &'a str,
    pub fixture: &'a str,
    pub outside: Option<&'a OutsidePlaces>,
    pub masks: &'a [Regex],
}

impl Masking<'_> {
    pub(crate) fn apply(&self, text: &str) -> String {
        let mut masked = self
            .with_placeholders(text, |shown| format!("{{canary: the {shown}}}"))
            .replace(self.fixture, "{fixture}");
        for mask in self.masks {
            masked = mask.replace_all(&masked, "{masked}").into_owned();
        }
        masked
    }

    /// `text` with each canary written as `canary` makes what holds it, the root
    /// `{root}` and the folder beside it `{outside}`: the placeholders a scenario
    /// knows, which both the comparison and the scenario writer use.
    pub(crate) fn with_placeholders(&self, text: &str, canary: impl Fn(&str) -> String) -> String {
        let text = match self.outside {
            Some(outside) => outside.masked(text, canary),
            None => text.into(),
        };
        text.replace(self.root, "{root}")
            .replace(self.outside_folder, "{outside}")
    }
}

/// Whether an outcome means the server is broken (crashed, hung, not MCP).
pub(crate) fn is_broken(outcome: &CallOutcome) -> bool {
    matches!(outcome, CallOutcome::Transport(_) | CallOutcome::Timeout(_))
}

/// The first level at which the two outcomes of one call differ, if any. Two
/// broken sides do not differ here: the sequence cannot go on, and the caller stops.
pub(crate) fn compare_answers(
    convention: Convention,
    oracle: (&CallOutcome, &Masking<'_>),
    subject: (&CallOutcome, &Masking<'_>),
) -> Option<Difference> {
    match (is_broken(oracle.0), is_broken(subject.0)) {
        (true, true) => return None,
        (false, false) => {}
        _ => {
            let o = oracle.1.apply(&oracle.0.summary());
            let s = subject.1.apply(&subject.0.summary());
            return Some(difference(Level::Broken, o, s));
        }
    }
    let o_reading = convention_reading(convention, oracle.0, oracle.1);
    let s_reading = convention_reading(convention, subject.0, subject.1);
    if o_reading != s_reading {
        return Some(difference(Level::Convention, o_reading, s_reading));
    }
    let (o_text, o_json) = text_reading(oracle.0, oracle.1);
    let (s_text, s_json) = text_reading(subject.0, subject.1);
    let same = match (o_json, s_json) {
        (Some(a), Some(b)) => a == b,
        _ => o_text == s_text,
    };
    (!same).then(|| difference(Level::Text, o_text, s_text))
}

/// The difference at `level` between two readings, with their diff.
pub(crate) fn difference(level: Level, oracle: String, subject: String) -> Difference {
    // Readings are lines of their own: a final newline on both keeps the diff from
    // marking each side as missing one, while a difference in final newlines shows.
    let diff = unified_between(
        ("oracle", &format!("{oracle}\n")),
        ("subject", &format!("{subject}\n")),
    );
    Difference {
        level,
        oracle,
        subject,
        diff,
    }
}

/// What the convention reads in an outcome: error or not and the code
/// (bracket-code, json-error-envelope), `success` and `data` (json-result-envelope),
/// the exact text (plain), and whether the result keeps the convention's rules.
pub(crate) fn convention_reading(
    convention: Convention,
    outcome: &CallOutcome,
    masking: &Masking<'_>,
) -> String {
    let result = match outcome {
        CallOutcome::Result(result) => result,
        CallOutcome::Protocol { code, .. } => return format!("JSON-RPC error {code}"),
        other => return masking.apply(&other.summary()),
    };
    let kept = if convention.breaks(result).is_empty() {
        String::new()
    } else {
        format!(" (breaks the {})", convention.name())
    };
    let reading = match convention {
        Convention::BracketCode | Convention::JsonErrorEnvelope if result.is_error() => {
            match convention.read_code(result) {
                Ok(code) => format!("error {code}"),
                Err(why) => format!("error without a code: {}", why.0),
            }
        }
        Convention::BracketCode | Convention::JsonErrorEnvelope => "success".to_string(),
        Convention::JsonResultEnvelope => {
            let value: Option<Value> = serde_json::from_str(&masking.apply(&result.text)).ok();
            let success = value.as_ref().and_then(|v| v.get("success")).cloned();
            let data = value.as_ref().and_then(|v| v.get("data")).cloned();
            format!(
                "isError {}, success {}, data {}",
                result.is_error(),
                success.map_or("absent".to_string(), |s| s.to_string()),
                data.map_or("absent".to_string(), |d| canonical_json(&d))
            )
        }
        Convention::Plain => masking.apply(&result.text),
    };
    format!("{reading}{kept}")
}

/// The masked text (with the isError flag), and its JSON when it parses as JSON.
/// An absent `isError` reads `false`, as MCP defines it (and as `run`'s judge
/// reads it), so a server that leaves the flag out of a success and one that
/// writes it `false` do not differ.
fn text_reading(outcome: &CallOutcome, masking: &Masking<'_>) -> (String, Option<Value>) {
    match outcome {
        CallOutcome::Result(result) => {
            let text = masking.apply(&result.text);
            let json: Option<Value> = serde_json::from_str(&text).ok();
            let flag = format!("isError {}", result.is_error());
            match json {
                Some(value) => (
                    format!("{flag}\n{}", canonical_json(&value)),
                    Some(serde_json::json!([flag, value])),
                ),
                None => (format!("{flag}\n{text}"), None),
            }
        }
        other => (masking.apply(&other.answer_text(4096)), None),
    }
}

/// JSON with keys sorted and fixed spacing, pretty-printed so a diff shows fields.
pub(crate) fn canonical_json(value: &Value) -> String {
    fn sorted(value: &Value) -> Value {
        match value {
            Value::Object(map) => {
                let ordered: BTreeMap<&String, Value> =
                    map.iter().map(|(k, v)| (k, sorted(v))).collect();
                Value::Object(ordered.into_iter().map(|(k, v)| (k.clone(), v)).collect())
            }
            Value::Array(items) => Value::Array(items.iter().map(sorted).collect()),
            other => other.clone(),
        }
    }
    serde_json::to_string_pretty(&sorted(value)).unwrap_or_default()
}

/// What two sides left behind, compared: each listing is one line per entry.
pub(crate) fn compare_files(oracle: &str, subject: &str) -> Option<Difference> {
    (oracle != subject).then(|| difference(Level::Files, oracle.to_string(), subject.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::server::outcome::ToolResult;

    fn result(is_error: Option<bool>, text: &str) -> CallOutcome {
        CallOutcome::Result(ToolResult {
            is_error,
            text: text.to_string(),
            raw: Value::Null,
        })
    }

    const NO_MASKS: &[Regex] = &[];

    fn at(root: &str) -> Masking<'_> {
        Masking {
            root,
            outside_folder: "/tmp/f/outside",
            fixture: "/tmp/f",
            outside: None,
            masks: NO_MASKS,
        }
    }

    fn level(convention: Convention, o: &CallOutcome, s: &CallOutcome) -> Option<Level> {
        compare_answers(convention, (o, &at("/tmp/f/root")), (s, &at("/tmp/g/root")))
            .map(|d| d.level)
    }

    #[test]
    fn a_different_code_is_a_convention_difference() {
        let o = result(Some(true), "[FILE_NOT_FOUND] no /tmp/f/root/a");
        let s = result(Some(true), "[NOT_FOUND] no /tmp/g/root/a");
        assert_eq!(
            level(Convention::BracketCode, &o, &s),
            Some(Level::Convention)
        );
        let dropped = result(Some(true), "no /tmp/g/root/a");
        assert_eq!(
            level(Convention::BracketCode, &o, &dropped),
            Some(Level::Convention)
        );
        let same = result(Some(true), "[FILE_NOT_FOUND] no /tmp/g/root/a");
        assert_eq!(level(Convention::BracketCode, &o, &same), None);
    }

    #[test]
    fn the_same_code_with_other_words_is_a_text_difference() {
        let o = result(
            Some(true),
            r#"{"error":"not_found","message":"No such file"}"#,
        );
        let s = result(
            Some(true),
            r#"{"error":"not_found","message":"No such file."}"#,
        );
        let d = compare_answers(
            Convention::JsonErrorEnvelope,
            (&o, &at("/r")),
            (&s, &at("/r")),
        )
        .expect("differs");
        assert_eq!(d.level, Level::Text);
        assert!(d.diff.contains("-") && d.diff.contains("+"), "{}", d.diff);
    }

    #[test]
    fn an_absent_is_error_is_false_and_true_differs_from_both() {
        for convention in [Convention::Plain, Convention::JsonResultEnvelope] {
            let absent = result(None, r#"{"success":true,"data":1}"#);
            let written = result(Some(false), r#"{"success":true,"data":1}"#);
            assert_eq!(level(convention, &absent, &written), None, "{convention:?}");
            assert_eq!(level(convention, &written, &absent), None, "{convention:?}");
            let flagged = result(Some(true), r#"{"success":true,"data":1}"#);
            let d = compare_answers(convention, (&absent, &at("/r")), (&flagged, &at("/r")))
                .expect("isError true is not false");
            assert!(
                d.diff.contains("isError false") && d.diff.contains("isError true"),
                "{}",
                d.diff
            );
        }
    }

    #[test]
    fn json_key_order_and_spacing_are_not_differences() {
        let o = result(
            None,
            r#"{"success":true,"data":{"a":1,"b":"/tmp/f/root/x"}}"#,
        );
        let s = result(
            None,
            "{ \"data\": {\"b\": \"/tmp/g/root/x\", \"a\": 1},\n \"success\": true }",
        );
        assert_eq!(level(Convention::JsonResultEnvelope, &o, &s), None);
        let other_data = result(
            None,
            r#"{"success":true,"data":{"a":2,"b":"/tmp/g/root/x"}}"#,
        );
        assert_eq!(
            level(Convention::JsonResultEnvelope, &o, &other_data),
            Some(Level::Convention)
        );
    }

    #[test]
    fn plain_reads_the_exact_text_and_a_crash_is_broken() {
        let o = result(None, "Successfully wrote to file: /tmp/f/root/a.txt");
        let s = result(None, "Successfully wrote to file: /tmp/g/root/a.txt.");
        assert_eq!(level(Convention::Plain, &o, &s), Some(Level::Convention));
        let crashed = CallOutcome::Transport("the server exited".into());
        assert_eq!(level(Convention::Plain, &o, &crashed), Some(Level::Broken));
        assert_eq!(level(Convention::Plain, &crashed, &crashed), None);
    }

    #[test]
    fn masks_hide_what_changes_between_runs() {
        let masks = [Regex::new(r"PGID: \d+").expect("regex")];
        let masking = |root| Masking {
            root,
            outside_folder: "/x/outside",
            fixture: "/x",
            outside: None,
            masks: &masks,
        };
        let o = result(None, "ok\nPGID: 12");
        let s = result(None, "ok\nPGID: 345");
        assert!(compare_answers(
            Convention::Plain,
            (&o, &masking("/a")),
            (&s, &masking("/b"))
        )
        .is_none());
    }

    #[test]
    fn files_differ_when_their_listings_do() {
        assert!(compare_files("a.txt: x\n", "a.txt: x\n").is_none());
        let d = compare_files("a.txt: x\n", "a.txt: y\n").expect("differs");
        assert_eq!(d.level, Level::Files);
    }
}
