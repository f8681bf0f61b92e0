//! A baseline file read in whichever of its three forms it has (text, an
//! `explore --json` report, YAML), and the text form written. The model is
//! `baseline.rs`, the YAML form `baseline_yaml.rs`; this sits above both.

use std::collections::BTreeSet;
use std::path::Path;

use super::baseline::{
    is_signature, Baseline, BaselineError, FoundClass, KnownClass, ReportProblem, Verdict,
};
use super::baseline_yaml::read_classes;

/// The first line of a written text baseline.
const HEADER: &str =
    "# toolspec explore baseline: one divergence signature a line (docs/explore.md)";

/// The baseline at `path`, or why it cannot be read, naming the file and, for a
/// malformed entry, its line.
pub(crate) fn read_baseline(path: &Path) -> Result<Baseline, BaselineError> {
    let shown = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|source| BaselineError::Read {
        file: shown.clone(),
        source,
    })?;
    let classes = if is_yaml(path) {
        read_classes(path, &text)?
    } else if text.trim_start().starts_with('{') {
        untriaged(from_json(&text).map_err(|problem| BaselineError::Report {
            file: shown.clone(),
            problem,
        })?)
    } else {
        untriaged(from_lines(&shown, &text)?)
    };
    Ok(Baseline {
        file: shown,
        classes,
    })
}

/// Whether `path` names a YAML baseline.
pub(crate) fn is_yaml(path: &Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case("yaml") || e.eq_ignore_ascii_case("yml"))
}

/// Each signature as a class of its own, named after it.
fn untriaged(listed: Vec<(String, Option<usize>)>) -> Vec<KnownClass> {
    listed
        .into_iter()
        .map(|(id, line)| KnownClass {
            name: id.clone(),
            verdict: Verdict::Untriaged,
            signatures: BTreeSet::from([id]),
            rule: None,
            witness: None,
            line,
        })
        .collect()
}

/// The signatures of a text baseline, each with its line.
fn from_lines(shown: &str, text: &str) -> Result<Vec<(String, Option<usize>)>, BaselineError> {
    let mut known = Vec::new();
    for (number, line) in text.lines().enumerate() {
        let entry = line.split('#').next().unwrap_or_default().trim();
        if entry.is_empty() {
            continue;
        }
        if !is_signature(entry) {
            return Err(BaselineError::NotASignature {
                file: shown.to_string(),
                line: number + 1,
                entry: crate::visible::excerpt(entry, 80),
            });
        }
        known.push((entry.to_string(), Some(number + 1)));
    }
    Ok(known)
}

/// The `signatures[].id` of an `explore --json` report.
fn from_json(text: &str) -> Result<Vec<(String, Option<usize>)>, ReportProblem> {
    let report: serde_json::Value =
        serde_json::from_str(text).map_err(|source| ReportProblem::NotAReport {
            line: source.line(),
            source,
        })?;
    let listed = report
        .get("signatures")
        .and_then(|s| s.as_array())
        .ok_or(ReportProblem::NoSignatures)?;
    listed
        .iter()
        .enumerate()
        .map(|(i, entry)| {
            entry
                .get("id")
                .and_then(|id| id.as_str())
                .filter(|id| is_signature(id))
                .map(|id| (id.to_string(), None))
                .ok_or(ReportProblem::BadEntry(i))
        })
        .collect()
}

/// A text baseline listing `found` in order.
pub(crate) fn baseline_text(found: &[FoundClass]) -> String {
    let mut text = format!("{HEADER}\n");
    for class in found {
        let reading = format!("{} | {}", class.oracle, class.subject);
        let reading = crate::visible::excerpt(&reading, 120).replace('#', "");
        text.push_str(&format!("{}  # {reading}\n", class.id));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::explore::triage::baseline::Witness;

    fn found(id: &str, oracle: &str, subject: &str) -> FoundClass {
        FoundClass {
            id: id.into(),
            oracle: oracle.into(),
            subject: subject.into(),
            witness: Witness { seed: 1, case: 2 },
        }
    }

    #[test]
    fn a_written_baseline_reads_back_and_a_bad_line_is_named() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("known.txt");
        let written = baseline_text(&[
            found(
                "convention/view/0123456789abcdef",
                "error PATH_NOT_FOUND #",
                "error NOT_FOUND",
            ),
            found("text/-/fedcba9876543210", "a\nb", ""),
        ]);
        std::fs::write(&path, &written).expect("write");
        let known = read_baseline(&path).expect("reads");
        assert_eq!(known.classes.len(), 2, "{written}");
        assert!(known.classes[0]
            .signatures
            .contains("convention/view/0123456789abcdef"));
        assert_eq!(known.classes[0].verdict, Verdict::Untriaged);
        assert_eq!(known.classes[0].line, Some(2));

        std::fs::write(
            &path,
            "# known\n\nconvention/view/0123456789abcdef\nview PATH\n",
        )
        .expect("write");
        let why = read_baseline(&path).expect_err("refused").to_string();
        assert!(why.contains("known.txt:4:"), "{why}");
        assert!(why.contains("`view PATH`"), "{why}");

        std::fs::write(
            &path,
            r#"{"schema_version": 2, "signatures": [{"id": "files/bash/00000000000000aa"}]}"#,
        )
        .expect("write");
        let known = read_baseline(&path).expect("reads JSON");
        assert!(known.classes[0]
            .signatures
            .contains("files/bash/00000000000000aa"));
        std::fs::write(&path, "{\"signatures\": [\n{\"id\": 3}]}").expect("write");
        assert!(read_baseline(&path)
            .expect_err("refused")
            .to_string()
            .contains("signatures[0]"));
        std::fs::write(&path, "{\n\"x\": ").expect("write");
        assert!(read_baseline(&path)
            .expect_err("refused")
            .to_string()
            .contains("line 2"));
        assert!(read_baseline(&dir.path().join("none"))
            .expect_err("refused")
            .to_string()
            .contains("cannot read the baseline"));
    }
}
