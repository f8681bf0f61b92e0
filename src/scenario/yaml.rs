//! Strict YAML parsing for suite, scenario and target files.
//!
//! serde-saphyr in strict mode: duplicate keys are refused and only `true`/`false`
//! are booleans, so `on`, `yes` or a repeated `code:` can never slip through as
//! something the author did not mean. Its resource budget stops an alias bomb; the
//! limits on values are sized to the file, so a large plain suite loads while a
//! small file cannot expand into millions of values. Errors keep the line and
//! column, and are worded for a scenario author rather than a library user.

use std::borrow::Cow;
use std::path::Path;

use serde::de::DeserializeOwned;
use serde_saphyr::budget::BudgetBreach;
use serde_saphyr::{DefaultMessageFormatter, MessageFormatter};

use super::error::LoadError;

/// The fewest YAML values (nodes) any file may have; a larger file may have as
/// many values as it has bytes, which no plain file exceeds (each value takes at
/// least a byte of text) and which keeps what aliases can expand to in proportion
/// to the file.
const MIN_NODES: usize = 250_000;

/// Parses the YAML `text` of the file at `path` strictly; a parse error keeps
/// serde-saphyr's line and column.
pub(crate) fn parse_yaml_str<T: DeserializeOwned>(path: &Path, text: &str) -> Result<T, LoadError> {
    let max_nodes = MIN_NODES.max(text.len());
    let options = serde_saphyr::options! {
        strict_booleans: true,
        duplicate_keys: serde_saphyr::DuplicateKeyPolicy::Error,
        budget: serde_saphyr::budget! {
            max_nodes: max_nodes,
            // A value is at most a start and an end event, and aliases are events too.
            max_events: 3 * max_nodes,
        },
    };
    serde_saphyr::from_str_with_options::<T>(text, options).map_err(|e| {
        let location = e.location();
        let place = location.map(|l| (l.line() as usize, l.column() as usize));
        LoadError {
            column: place.map(|(_, column)| column),
            ..LoadError::new(
                path,
                place.map(|(line, _)| line),
                reword_yaml_error(&e.render_with_formatter(&AuthorWords), path, place),
            )
        }
    })
}

/// serde-saphyr's own messages, except for a breached budget, which it names by
/// its Rust debug form (`budget breached: Nodes { nodes: 250001 }`).
struct AuthorWords;

impl MessageFormatter for AuthorWords {
    fn format_message<'a>(&self, err: &'a serde_saphyr::Error) -> Cow<'a, str> {
        match err {
            serde_saphyr::Error::Budget { breach, .. } => Cow::Owned(budget_words(breach)),
            other => DefaultMessageFormatter.format_message(other),
        }
    }
}

/// What limit a file hit, and what to do about it.
fn budget_words(breach: &BudgetBreach) -> String {
    let split = "split the scenarios over several files";
    match breach {
        BudgetBreach::Nodes { nodes } => format!(
            "the YAML expands to more than {} values: aliases (`*name`) are copied wherever \
             they are used, so aliases of aliases multiply; write the values out, use fewer \
             aliases, or {split}",
            nodes.saturating_sub(1)
        ),
        BudgetBreach::Events { events } => format!(
            "the YAML expands to more than {} parser events: aliases (`*name`) are copied \
             wherever they are used; use fewer aliases, or {split}",
            events.saturating_sub(1)
        ),
        BudgetBreach::Depth { depth } => format!(
            "the YAML is nested more than {} levels deep here; no scenario needs that: \
             flatten the value",
            depth.saturating_sub(1)
        ),
        BudgetBreach::Aliases { aliases } => format!(
            "the file uses more than {} aliases (`*name`); write the values out or {split}",
            aliases.saturating_sub(1)
        ),
        BudgetBreach::Anchors { anchors } => format!(
            "the file defines more than {} anchors (`&name`); {split}",
            anchors.saturating_sub(1)
        ),
        BudgetBreach::AliasAnchorRatio { aliases, anchors } => format!(
            "the file uses {aliases} aliases (`*name`) for {anchors} anchors (`&name`), more \
             than ten per anchor, which is how alias bombs look; write the values out"
        ),
        BudgetBreach::ScalarBytes { total_scalar_bytes } => {
            format!("the file's values hold more than {total_scalar_bytes} bytes of text; {split}")
        }
        BudgetBreach::Documents { documents } => format!(
            "the file holds {documents} YAML documents (`---`); a suite file is one document"
        ),
        other => format!("the YAML exceeds a parsing limit ({other:?}); {split}"),
    }
}

/// serde-saphyr's message without the location it repeats, with its snippet pointing
/// at the real file and place, and with advice that fits a scenario author rather
/// than a library user.
fn reword_yaml_error(raw: &str, path: &Path, place: Option<(usize, usize)>) -> String {
    let (first, snippet) = raw.split_once('\n').unwrap_or((raw, ""));
    let message = first.strip_prefix("error: ").unwrap_or(first);
    let message = match message.strip_prefix("line ") {
        Some(rest) => rest.split_once(": ").map_or(message, |(_, m)| m),
        None => message,
    };
    let fix = |s: &str| {
        s.replace(
            ", set DuplicateKeyPolicy in Options if acceptable",
            " (each key may appear only once)",
        )
        .replace("<input>", &path.display().to_string())
    };
    if snippet.is_empty() {
        return fix(message);
    }
    // The snippet's own `-->` line gives the column within a long line's cropped
    // window, not in the file: say the place the error is at.
    let mut pointed = false;
    let snippet: Vec<String> = snippet
        .lines()
        .map(
            |line| match (line.trim_start().strip_prefix("--> "), place) {
                (Some(_), Some((row, column))) if !pointed => {
                    pointed = true;
                    let indent = &line[..line.len() - line.trim_start().len()];
                    format!("{indent}--> {}:{row}:{column}", path.display())
                }
                _ => fix(line),
            },
        )
        .collect();
    format!("{}\n{}", fix(message), snippet.join("\n"))
}

/// The text of the file at `path`, or a load error naming it.
pub(crate) fn read_text(path: &Path) -> Result<String, LoadError> {
    std::fs::read_to_string(path)
        .map_err(|e| LoadError::new(path, None, format!("cannot read: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, serde::Deserialize)]
    #[allow(dead_code, reason = "only parsed")]
    struct Anything {
        value: serde_json::Value,
    }

    fn refusal(text: &str) -> LoadError {
        parse_yaml_str::<Anything>(Path::new("f.yaml"), text).expect_err("must be refused")
    }

    #[test]
    fn an_alias_bomb_is_refused_in_plain_words() {
        let mut text = String::from("value:\n  a: &a [x, x, x, x, x, x, x, x, x, x]\n");
        for (name, previous) in ["b", "c", "d", "e", "f", "g", "h"]
            .iter()
            .zip(["a", "b", "c", "d", "e", "f", "g"])
        {
            let uses = vec![format!("*{previous}"); 10].join(", ");
            text.push_str(&format!("  {name}: &{name} [{uses}]\n"));
        }
        let error = refusal(&text).to_string();
        assert!(
            error.contains("the YAML expands to more than 250000 values"),
            "{error}"
        );
        assert!(error.contains("aliases of aliases multiply"), "{error}");
        assert!(!error.contains("budget breached"), "{error}");
    }

    #[test]
    fn a_large_plain_file_is_not_refused() {
        // More values than the fewest any file may have (MIN_NODES).
        let mut text = String::from("value:\n");
        for _ in 0..30_000 {
            text.push_str("  - [a, b, c, d, e, f, g, h, i]\n");
        }
        assert!(parse_yaml_str::<Anything>(Path::new("f.yaml"), &text).is_ok());
    }

    #[test]
    fn deep_nesting_points_at_the_place_in_the_file() {
        let text = format!("value: {{x: {}{}}}\n", "[".repeat(70), "]".repeat(70));
        let error = refusal(&text);
        let shown = error.to_string();
        // The 64th level: the mapping of the file, the one of `value`, then 62 lists.
        let column = "value: {x: ".len() + 63;
        assert_eq!(
            (error.line, error.column),
            (Some(1), Some(column)),
            "{shown}"
        );
        assert!(shown.contains(&format!("--> f.yaml:1:{column}")), "{shown}");
        assert!(shown.contains("nested more than 64 levels deep"), "{shown}");
    }
}
