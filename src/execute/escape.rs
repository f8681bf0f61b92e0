//! Whether a call of a server meant to stay inside its root reached a place beside
//! it: a canary in its answer or its stderr, or a change there
//! (`fixture/outside.rs`), made a verdict of its own whatever the scenario's
//! expectations say.

use serde_json::{Map, Value};

use super::verdict::{Escape, EscapeKind};
use crate::fixture::Fixture;

/// The escape a call of `tool` with `args` (as the suite or explore wrote them,
/// placeholders unfilled) made, if it made one: `answer` is what it returned,
/// `stderr` what the server has written to stderr so far.
pub(crate) fn escape_of(
    fixture: &Fixture,
    (tool, args): (&str, &Map<String, Value>),
    answer: &str,
    stderr: &str,
) -> Option<Escape> {
    let outside = fixture.outside()?;
    let (kind, reached) = if let Some(whose) = outside.read_in(answer) {
        (EscapeKind::Read, format!("returned {whose}"))
    } else if let Some(whose) = outside.read_in(stderr) {
        (EscapeKind::Read, format!("wrote {whose} to its stderr"))
    } else {
        (EscapeKind::Write, fixture.changed_outside()?)
    };
    Some(Escape {
        kind,
        tool: tool.to_string(),
        given: path_given(args),
        reached,
    })
}

/// Words of an argument's name that say it holds a path (`file_path`, `cwd`,
/// `directory`).
const PATH_WORDS: [&str; 6] = ["path", "dir", "file", "cwd", "folder", "root"];

/// The argument of `args` that names a path, as the suite wrote it: the first
/// string whose argument's name says so, else the first that holds `{root}`,
/// `{outside}`, a `/` or `..`, else the first string.
fn path_given(args: &Map<String, Value>) -> String {
    let strings: Vec<(&String, &str)> = args
        .iter()
        .filter_map(|(name, value)| Some((name, value.as_str()?)))
        .collect();
    let named_a_path = |(name, _): &&(&String, &str)| {
        let name = name.to_lowercase();
        PATH_WORDS.iter().any(|w| name.contains(w))
    };
    let looks_like_a_path = |(_, s): &&(&String, &str)| {
        s.contains("{root}") || s.contains("{outside}") || s.contains('/') || s.contains("..")
    };
    strings
        .iter()
        .find(named_a_path)
        .or_else(|| strings.iter().find(looks_like_a_path))
        .or(strings.first())
        .map(|(_, s)| crate::visible::excerpt(s, 120))
        .unwrap_or_default()
}
