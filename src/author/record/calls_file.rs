//! The calls of `toolspec record --calls FILE`: a YAML list, or one JSON
//! object a line (NDJSON), each item `{tool, args, name?}`; `-` reads them
//! from standard input. At a terminal, standard input is read a line at a
//! time (each line one JSON object), so each call is made as soon as it is
//! typed.

use std::path::Path;

use serde::Deserialize;
use serde_json::{Map, Value};

/// One call to make.
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub(crate) struct ListedCall {
    pub tool: String,
    #[serde(default)]
    pub args: Map<String, Value>,
    pub name: Option<String>,
}

/// Why the calls could not be read.
#[derive(Debug, thiserror::Error)]
pub(crate) enum CallsFileError {
    #[error("cannot read {0}: {1}")]
    Unreadable(String, std::io::Error),
    #[error("{where_}: line {line}: {why}; each line is one call, {{\"tool\": ..., \"args\": {{..}}, \"name\": ..}}")]
    Line {
        where_: String,
        line: usize,
        why: String,
    },
    #[error("{0}")]
    Yaml(String),
    #[error("{0} holds no call")]
    Empty(String),
}

/// One NDJSON line as a call.
pub(crate) fn call_of_line(
    line: &str,
    at: usize,
    where_: &str,
) -> Result<ListedCall, CallsFileError> {
    serde_json::from_str(line).map_err(|e| CallsFileError::Line {
        where_: where_.to_string(),
        line: at,
        why: e.to_string(),
    })
}

/// The calls of `text` (read from `where_`): one JSON object a line when its
/// first line that is not blank is one, else a YAML list.
pub(crate) fn calls_of_text(text: &str, where_: &str) -> Result<Vec<ListedCall>, CallsFileError> {
    let first = text.lines().map(str::trim).find(|l| !l.is_empty());
    let ndjson = first.is_some_and(|l| l.starts_with('{'))
        && serde_json::from_str::<Value>(first.unwrap_or_default()).is_ok();
    let calls = if ndjson {
        text.lines()
            .enumerate()
            .filter(|(_, line)| !line.trim().is_empty())
            .map(|(i, line)| call_of_line(line, i + 1, where_))
            .collect::<Result<Vec<_>, _>>()?
    } else {
        crate::scenario::parse_yaml_str::<Vec<ListedCall>>(Path::new(where_), text)
            .map_err(|e| CallsFileError::Yaml(e.to_string()))?
    };
    if calls.is_empty() {
        return Err(CallsFileError::Empty(where_.to_string()));
    }
    Ok(calls)
}

/// The calls of the file `path` (`-`: standard input, read whole).
pub(crate) fn read_calls(path: &Path) -> Result<Vec<ListedCall>, CallsFileError> {
    let where_ = path.display().to_string();
    let text = if path == Path::new("-") {
        let mut text = String::new();
        std::io::Read::read_to_string(&mut std::io::stdin(), &mut text)
            .map_err(|e| CallsFileError::Unreadable("standard input".into(), e))?;
        text
    } else {
        std::fs::read_to_string(path).map_err(|e| CallsFileError::Unreadable(where_.clone(), e))?
    };
    calls_of_text(&text, &where_)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_yaml_list_and_ndjson_give_the_same_calls() {
        let yaml = "- tool: view\n  args: { path: \"{root}/a.txt\" }\n- { tool: bash, args: { command: ls }, name: listing }\n";
        let ndjson = "{\"tool\": \"view\", \"args\": {\"path\": \"{root}/a.txt\"}}\n\n{\"tool\": \"bash\", \"args\": {\"command\": \"ls\"}, \"name\": \"listing\"}\n";
        let a = calls_of_text(yaml, "calls.yaml").expect("yaml");
        let b = calls_of_text(ndjson, "calls.ndjson").expect("ndjson");
        assert_eq!(a, b);
        assert_eq!(a[1].name.as_deref(), Some("listing"));
        let why = calls_of_text("{\"tool\": \"view\"}\n{\"tol\": 1}\n", "c")
            .expect_err("a bad line")
            .to_string();
        assert!(why.starts_with("c: line 2: "), "{why}");
        assert!(calls_of_text("[]", "c").is_err());
    }
}
