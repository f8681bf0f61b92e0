//! `--baseline FILE`: the divergence classes already known, so a run fails only on
//! a new one. Three forms, told apart by the file:
//! - text, one signature a line (`level/tool/hash`), `#` starting a comment;
//! - an `explore --json` report (its first character is `{`), whose
//!   `signatures[].id` are the known ones, so a run's JSON serves as it is;
//! - YAML (`.yaml` or `.yml`), a list of triaged classes
//!   ([`super::baseline_yaml`]): each with a name, a verdict and its reason, the
//!   signatures it lists and/or a rule matching the readings of many, and a
//!   witness case that the stale check re-runs.
//!
//! A text or JSON signature is a class of its own with no rule and no witness.

use std::collections::BTreeSet;
use std::path::Path;
use std::sync::LazyLock;

use regex::Regex;

use super::compare::Level;
use super::signature::Signature;

/// The first line of a written text baseline.
const HEADER: &str =
    "# toolspec explore baseline: one divergence signature a line (docs/explore.md)";

/// Why a known class is accepted, as a triage gives it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Verdict {
    /// The subject departs from its document; the document wins.
    Departure,
    /// The document allows both answers.
    Ambiguity,
    /// Two releases differ where the document is silent.
    ReleaseChange,
    /// Listed without a triage (a text or JSON baseline, or one just written).
    Untriaged,
}

impl Verdict {
    pub(crate) const ALL: [Verdict; 4] = [
        Verdict::Departure,
        Verdict::Ambiguity,
        Verdict::ReleaseChange,
        Verdict::Untriaged,
    ];

    pub(crate) fn label(self) -> &'static str {
        match self {
            Verdict::Departure => "departure",
            Verdict::Ambiguity => "ambiguity",
            Verdict::ReleaseChange => "release-change",
            Verdict::Untriaged => "untriaged",
        }
    }
}

/// A case that showed a class, by the seed and number that generate it again.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Witness {
    pub seed: u64,
    pub case: u64,
}

impl Witness {
    /// `SEED:CASE`, as a baseline writes it.
    pub(crate) fn parse(text: &str) -> Option<Witness> {
        let (seed, case) = text.trim().split_once(':')?;
        Some(Witness {
            seed: seed.parse().ok()?,
            case: case.parse().ok()?,
        })
    }

    pub(crate) fn shown(self) -> String {
        format!("{}:{}", self.seed, self.case)
    }
}

/// What a class's rule asks of a signature: each part given must hold.
#[derive(Debug, Clone)]
pub(crate) struct Rule {
    pub level: Option<Level>,
    /// `None` for any tool (`*`).
    pub tool: Option<String>,
    /// Searched in the oracle's masked reading, its lines joined by `\n`.
    pub oracle: Option<Regex>,
    /// Searched in the subject's masked reading.
    pub subject: Option<Regex>,
    /// Searched in the arguments of the call where the sides parted, as compact
    /// JSON (`Signature::call`).
    pub call: Option<Regex>,
}

impl Rule {
    fn matches(&self, signature: &Signature) -> bool {
        self.level.is_none_or(|level| level == signature.level)
            && self
                .tool
                .as_ref()
                .is_none_or(|tool| *tool == signature.tool)
            && self
                .oracle
                .as_ref()
                .is_none_or(|r| r.is_match(&signature.oracle.join("\n")))
            && self
                .subject
                .as_ref()
                .is_none_or(|r| r.is_match(&signature.subject.join("\n")))
            && self
                .call
                .as_ref()
                .is_none_or(|r| r.is_match(&signature.call))
    }
}

/// One known class.
#[derive(Debug, Clone)]
pub(crate) struct KnownClass {
    pub name: String,
    pub verdict: Verdict,
    pub signatures: BTreeSet<String>,
    pub rule: Option<Rule>,
    pub witness: Option<Witness>,
    /// The 1-based line of its entry in the file, for messages.
    pub line: Option<usize>,
}

/// The classes a baseline knows, and the file they came from.
#[derive(Debug, Clone, Default)]
pub(crate) struct Baseline {
    pub file: String,
    pub classes: Vec<KnownClass>,
}

impl Baseline {
    /// The index of the class `signature` belongs to: the first that lists its
    /// id, else the first whose rule matches it.
    pub(crate) fn class_of(&self, signature: &Signature) -> Option<usize> {
        let id = signature.id();
        self.classes
            .iter()
            .position(|class| class.signatures.contains(&id))
            .or_else(|| {
                self.classes.iter().position(|class| {
                    class
                        .rule
                        .as_ref()
                        .is_some_and(|rule| rule.matches(signature))
                })
            })
    }

    /// Where class `index` is written: `file:line`, or the file alone for a
    /// class whose line is not known (one read from a JSON report).
    pub(crate) fn place(&self, index: usize) -> String {
        let Some(class) = self.classes.get(index) else {
            return self.file.clone();
        };
        match class.line {
            Some(line) => format!("{}:{line}", self.file),
            None => self.file.clone(),
        }
    }
}

/// Whether `text` is a signature as `Signature::id` writes it.
pub(crate) fn is_signature(text: &str) -> bool {
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

/// The baseline at `path`, or why it cannot be read, naming the file and, for a
/// malformed entry, its line.
pub(crate) fn read_baseline(path: &Path) -> Result<Baseline, String> {
    let shown = path.display().to_string();
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read the baseline {shown}: {e}"))?;
    let classes = if is_yaml(path) {
        super::baseline_yaml::read_classes(path, &text)?
    } else if text.trim_start().starts_with('{') {
        untriaged(from_json(&text).map_err(|why| format!("{shown}: {why}"))?)
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
fn from_lines(shown: &str, text: &str) -> Result<Vec<(String, Option<usize>)>, String> {
    let mut known = Vec::new();
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
        known.push((entry.to_string(), Some(number + 1)));
    }
    Ok(known)
}

/// The `signatures[].id` of an `explore --json` report.
fn from_json(text: &str) -> Result<Vec<(String, Option<usize>)>, String> {
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
                .map(|id| (id.to_string(), None))
                .ok_or_else(|| format!("signatures[{i}] has no `id` that is a signature"))
        })
        .collect()
}

/// One class a run found, as `--write-baseline` writes it.
pub(crate) struct FoundClass {
    pub id: String,
    pub oracle: String,
    pub subject: String,
    pub witness: Witness,
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
        let why = read_baseline(&path).expect_err("refused");
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
            .contains("signatures[0]"));
        std::fs::write(&path, "{\n\"x\": ").expect("write");
        assert!(read_baseline(&path)
            .expect_err("refused")
            .contains("line 2"));
        assert!(read_baseline(&dir.path().join("none"))
            .expect_err("refused")
            .contains("cannot read the baseline"));
    }

    #[test]
    fn witnesses_read_as_seed_and_case() {
        assert_eq!(
            Witness::parse("2026:17"),
            Some(Witness {
                seed: 2026,
                case: 17
            })
        );
        assert_eq!(
            Witness::parse(" 1:0 ").map(Witness::shown).as_deref(),
            Some("1:0")
        );
        for bad in ["2026", "a:1", "1:-2", ":", "1:2:3"] {
            assert_eq!(Witness::parse(bad), None, "{bad}");
        }
    }
}
