//! `--baseline FILE`: the divergence signatures already known, so a run fails only
//! on a new one. The file is text, one signature a line (`level/tool/hash`), with
//! `#` starting a comment and blank lines ignored; `--write-baseline` writes it,
//! each signature followed by a comment giving its readings. A file whose first
//! character is `{` is read as an `explore --json` report instead, and its
//! `signatures[].id` are the known ones, so a run's JSON serves as a baseline too.

use std::collections::BTreeSet;
use std::path::Path;
use std::sync::LazyLock;

use regex::Regex;

use super::compare::Level;

/// The first line of a written baseline.
const HEADER: &str =
    "# toolspec explore baseline: one divergence signature a line (docs/explore.md)";

/// Whether `text` is a signature as `Signature::id` writes it.
fn is_signature(text: &str) -> bool {
    static SHAPE: LazyLock<Option<Regex>> = LazyLock::new(|| {
        let levels: Vec<&str> = Level::ALL.iter().map(|l| l.label()).collect();
        Regex::new(&format!(
            r"^(?:{})/[^\s/]+/[0-9a-f]{{16}}$",
            levels.join("|")
        ))
        .ok()
    });
    SHAPE.as_ref().is_some_and(|shape| shape.is_match(text))
}

/// The signatures listed in the baseline at `path`, or why it cannot be read,
/// naming the file and, for a malformed line, its number.
pub(crate) fn read_baseline(path: &Path) -> Result<BTreeSet<String>, String> {
    let shown = path.display();
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read the baseline {shown}: {e}"))?;
    if text.trim_start().starts_with('{') {
        return from_json(&text).map_err(|why| format!("{shown}: {why}"));
    }
    let mut known = BTreeSet::new();
    for (number, line) in text.lines().enumerate() {
        let entry = line.split('#').next().unwrap_or_default().trim();
        if entry.is_empty() {
            continue;
        }
        if !is_signature(entry) {
            return Err(format!(
                "{shown}:{}: `{}` is not a divergence signature (expected level/tool/16 hex digits, \
                 as `toolspec explore` prints after `signature`)",
                number + 1,
                crate::visible::excerpt(entry, 80)
            ));
        }
        known.insert(entry.to_string());
    }
    Ok(known)
}

/// The `signatures[].id` of an `explore --json` report.
fn from_json(text: &str) -> Result<BTreeSet<String>, String> {
    let report: serde_json::Value = serde_json::from_str(text)
        .map_err(|e| format!("line {}: not an explore --json report: {e}", e.line()))?;
    let listed = report.get("signatures").and_then(|s| s.as_array()).ok_or(
        "an explore --json report of schema_version 2 or later has `signatures`; this has none",
    )?;
    listed
        .iter()
        .enumerate()
        .map(|(i, entry)| {
            entry
                .get("id")
                .and_then(|id| id.as_str())
                .filter(|id| is_signature(id))
                .map(str::to_string)
                .ok_or_else(|| format!("signatures[{i}] has no `id` that is a signature"))
        })
        .collect()
}

/// A baseline listing `signatures`, each (id, what it reads) in order.
pub(crate) fn baseline_text(signatures: &[(String, String)]) -> String {
    let mut text = format!("{HEADER}\n");
    for (id, reading) in signatures {
        let reading = crate::visible::excerpt(reading, 120).replace('#', "");
        text.push_str(&format!("{id}  # {reading}\n"));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_written_baseline_reads_back_and_a_bad_line_is_named() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("known.txt");
        let written = baseline_text(&[
            (
                "convention/view/0123456789abcdef".into(),
                "error PATH_NOT_FOUND # | error NOT_FOUND".into(),
            ),
            ("text/-/fedcba9876543210".into(), "a\nb".into()),
        ]);
        std::fs::write(&path, &written).expect("write");
        let known = read_baseline(&path).expect("reads");
        assert_eq!(known.len(), 2, "{written}");
        assert!(known.contains("convention/view/0123456789abcdef"));

        std::fs::write(
            &path,
            "# known\n\nconvention/view/0123456789abcdef\nview PATH\n",
        )
        .expect("write");
        let why = read_baseline(&path).expect_err("refused");
        assert!(why.contains("known.txt:4:"), "{why}");
        assert!(why.contains("`view PATH`"), "{why}");

        std::fs::write(
            &path,
            r#"{"schema_version": 2, "signatures": [{"id": "files/bash/00000000000000aa"}]}"#,
        )
        .expect("write");
        let known = read_baseline(&path).expect("reads JSON");
        assert!(known.contains("files/bash/00000000000000aa"));
        std::fs::write(&path, "{\"signatures\": [\n{\"id\": 3}]}").expect("write");
        assert!(read_baseline(&path)
            .expect_err("refused")
            .contains("signatures[0]"));
        std::fs::write(&path, "{\n\"x\": ").expect("write");
        assert!(read_baseline(&path)
            .expect_err("refused")
            .contains("line 2"));
        assert!(read_baseline(&dir.path().join("none"))
            .expect_err("refused")
            .contains("cannot read the baseline"));
    }
}
