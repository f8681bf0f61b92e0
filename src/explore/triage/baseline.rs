//! `--baseline FILE`: the divergence classes already known, so a run fails only on
//! a new one. This is the model; `baseline_file.rs` reads it from any of its three
//! forms, told apart by the file:
//! - text, one signature a line (`level/tool/hash`), `#` starting a comment;
//! - an `explore --json` report (its first character is `{`), whose
//!   `signatures[].id` are the known ones, so a run's JSON serves as it is;
//! - YAML (`.yaml` or `.yml`), a list of triaged classes
//!   ([`crate::explore::triage::baseline_yaml`]): each with a name, a verdict and its reason, the
//!   signatures it lists and/or a rule matching the readings of many, and a
//!   witness case that the stale check re-runs.
//!
//! A text or JSON signature is a class of its own with no rule and no witness.

use std::collections::BTreeSet;
use std::sync::LazyLock;

use regex::Regex;

use crate::explore::compare::levels::Level;
use crate::explore::compare::pass_over::KnownSignatures;
use crate::explore::compare::signature::Signature;

/// Why a baseline file cannot be used, naming the file and, where it can, the
/// line.
#[derive(Debug, thiserror::Error)]
pub(crate) enum BaselineError {
    #[error("cannot read the baseline {file}: {source}")]
    Read {
        file: String,
        #[source]
        source: std::io::Error,
    },
    /// A line of a text baseline that is not a signature (`entry` cut short).
    #[error(
        "{file}:{line}: `{entry}` is not a divergence signature (expected level/tool/16 hex digits, as `toolspec explore` prints after `signature`)"
    )]
    NotASignature {
        file: String,
        line: usize,
        entry: String,
    },
    /// An `explore --json` report given as a baseline.
    #[error("{file}: {problem}")]
    Report {
        file: String,
        problem: ReportProblem,
    },
    /// A YAML baseline that does not parse as a list of classes.
    #[error("{0}")]
    Yaml(#[from] crate::scenario::LoadError),
    /// A class of a YAML baseline that is wrong, at its line when it is found.
    #[error("{file}{}: class `{class}`: {problem}", line.map(|l| format!(":{l}")).unwrap_or_default())]
    Class {
        file: String,
        line: Option<usize>,
        class: String,
        problem: Box<ClassProblem>,
    },
}

/// What is wrong with an `explore --json` report read as a baseline.
#[derive(Debug, thiserror::Error)]
pub(crate) enum ReportProblem {
    #[error("line {line}: not an explore --json report: {source}")]
    NotAReport {
        line: usize,
        #[source]
        source: serde_json::Error,
    },
    #[error(
        "an explore --json report of schema_version 2 or later has `signatures`; this has none"
    )]
    NoSignatures,
    #[error("signatures[{0}] has no `id` that is a signature")]
    BadEntry(usize),
}

/// What is wrong with one class of a YAML baseline.
#[derive(Debug, thiserror::Error)]
pub(crate) enum ClassProblem {
    #[error("a class needs a name")]
    Unnamed,
    #[error("named twice")]
    NamedTwice,
    #[error("verdict `{given}` is not one of {allowed}")]
    Verdict { given: String, allowed: String },
    #[error("a `{0}` class needs a `reason:` with its evidence")]
    NoReason(&'static str),
    #[error("`{0}` is not a divergence signature (level/tool/16 hex digits)")]
    NotASignature(String),
    #[error("lists no `signatures:` and has no `match:` rule")]
    NothingListed,
    #[error("witness `{0}` is not SEED:CASE")]
    Witness(String),
    #[error(transparent)]
    Rule(#[from] RuleProblem),
}

/// What is wrong with a class's `match:` rule.
#[derive(Debug, thiserror::Error)]
pub(crate) enum RuleProblem {
    #[error("a `match:` rule needs `oracle:`, `subject:` or `call:` (a regex of what it reads)")]
    ReadsNothing,
    #[error("match level `{given}` is not one of {allowed}")]
    Level { given: String, allowed: String },
    #[error("match {side} `{pattern}` does not compile: {source}")]
    Regex {
        side: &'static str,
        pattern: String,
        #[source]
        source: regex::Error,
    },
}

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

/// A case goes on past a divergence whose signature one of the classes accepts.
impl KnownSignatures for Baseline {
    fn knows(&self, signature: &Signature) -> bool {
        self.class_of(signature).is_some()
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

/// One class a run found, as `--write-baseline` writes it.
pub(crate) struct FoundClass {
    pub id: String,
    pub oracle: String,
    pub subject: String,
    pub witness: Witness,
}

#[cfg(test)]
mod tests {
    use super::*;

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
