//! The YAML form of an explore baseline: the triage of a subject's divergences,
//! one entry a class. A class lists the signatures it covers and/or a rule over
//! the masked readings (one cause, such as a protocol-level refusal, can show under
//! many signatures, since a signature hashes the set of differing lines), says why
//! it is accepted, and names a witness case for the stale check.
//!
//! ```yaml
//! - class: wrong-type-refused-by-protocol
//!   verdict: departure
//!   reason: seed 000 line 30 makes an invalid value INVALID_INPUT; ...
//!   signatures: [convention/grep/71fb6f8cf8d84a95]
//!   match: { level: convention, tool: '*', oracle: '^error INVALID_INPUT$', subject: '^JSON-RPC error' }
//!   witness: '2026:17'
//! ```
//!
//! Read as strictly as a suite file: unknown keys, duplicate keys, a class named
//! twice, a bad regex or signature are errors with the file and line.

use std::collections::BTreeSet;
use std::path::Path;

use regex::Regex;
use serde::Deserialize;

use crate::explore::compare::levels::Level;
use crate::explore::triage::baseline::{
    is_signature, BaselineError, ClassProblem, FoundClass, KnownClass, Rule, RuleProblem, Verdict,
    Witness,
};
use crate::scenario::{find_line, parse_yaml_str};

/// The first lines of a written YAML baseline.
const HEADER: &str =
    "# toolspec explore baseline: one triaged divergence class an entry (docs/explore.md).\n\
# Written untriaged: give each class a name, a verdict (departure, ambiguity,\n\
# release-change) and its reason with the evidence, and merge classes of one cause\n\
# under a `match:` rule.\n";

/// An entry as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct EntryText {
    class: String,
    verdict: String,
    #[serde(default)]
    reason: String,
    #[serde(default)]
    signatures: Vec<String>,
    #[serde(default, rename = "match")]
    rule: Option<RuleText>,
    #[serde(default)]
    witness: Option<String>,
}

/// `match:` as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RuleText {
    #[serde(default)]
    level: Option<String>,
    #[serde(default)]
    tool: Option<String>,
    #[serde(default)]
    oracle: Option<String>,
    #[serde(default)]
    subject: Option<String>,
    #[serde(default)]
    call: Option<String>,
}

/// The classes of the YAML baseline `text`, read from `path`.
pub(crate) fn read_classes(path: &Path, text: &str) -> Result<Vec<KnownClass>, BaselineError> {
    let has_content = text
        .lines()
        .any(|line| !line.trim().is_empty() && !line.trim_start().starts_with('#'));
    if !has_content {
        return Ok(Vec::new());
    }
    let entries: Vec<EntryText> = parse_yaml_str(path, text)?;
    let shown = path.display();
    let mut names = BTreeSet::new();
    let mut classes = Vec::new();
    for entry in entries {
        let line = find_line(text, &format!("class: {}", entry.class))
            .or_else(|| find_line(text, &entry.class));
        let at = |problem: ClassProblem| BaselineError::Class {
            file: shown.to_string(),
            line,
            class: entry.class.clone(),
            problem: Box::new(problem),
        };
        if entry.class.trim().is_empty() {
            return Err(at(ClassProblem::Unnamed));
        }
        if !names.insert(entry.class.clone()) {
            return Err(at(ClassProblem::NamedTwice));
        }
        let verdict = Verdict::ALL
            .into_iter()
            .find(|v| v.label() == entry.verdict)
            .ok_or_else(|| {
                at(ClassProblem::Verdict {
                    given: entry.verdict.clone(),
                    allowed: labels(Verdict::ALL.iter().map(|v| v.label())),
                })
            })?;
        if verdict != Verdict::Untriaged && entry.reason.trim().is_empty() {
            return Err(at(ClassProblem::NoReason(verdict.label())));
        }
        if let Some(bad) = entry.signatures.iter().find(|s| !is_signature(s)) {
            return Err(at(ClassProblem::NotASignature(bad.clone())));
        }
        let rule = entry
            .rule
            .map(|rule| read_rule(rule).map_err(|problem| at(problem.into())))
            .transpose()?;
        if entry.signatures.is_empty() && rule.is_none() {
            return Err(at(ClassProblem::NothingListed));
        }
        let witness = entry
            .witness
            .map(|text| {
                Witness::parse(&text).ok_or_else(|| at(ClassProblem::Witness(text.clone())))
            })
            .transpose()?;
        classes.push(KnownClass {
            name: entry.class,
            verdict,
            signatures: entry.signatures.into_iter().collect(),
            rule,
            witness,
            line,
        });
    }
    Ok(classes)
}

fn labels<'a>(names: impl Iterator<Item = &'a str>) -> String {
    names
        .map(|n| format!("`{n}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// A rule as written, its level named and its regexes compiled. It must say what
/// it reads, on a side or in the call: a rule of a level and a tool alone would
/// accept every deviation there, the new ones too.
fn read_rule(rule: RuleText) -> Result<Rule, RuleProblem> {
    if rule.oracle.is_none() && rule.subject.is_none() && rule.call.is_none() {
        return Err(RuleProblem::ReadsNothing);
    }
    let level = rule
        .level
        .map(|label| {
            Level::ALL
                .into_iter()
                .find(|l| l.label() == label)
                .ok_or_else(|| RuleProblem::Level {
                    allowed: labels(Level::ALL.iter().map(|l| l.label())),
                    given: label,
                })
        })
        .transpose()?;
    let compile = |side: &'static str, pattern: Option<String>| {
        pattern
            .map(|p| {
                Regex::new(&p).map_err(|source| RuleProblem::Regex {
                    side,
                    pattern: p.clone(),
                    source,
                })
            })
            .transpose()
    };
    Ok(Rule {
        level,
        tool: rule.tool.filter(|t| t != "*"),
        oracle: compile("oracle", rule.oracle)?,
        subject: compile("subject", rule.subject)?,
        call: compile("call", rule.call)?,
    })
}

/// A YAML baseline listing `found`, each an untriaged class of its own with its
/// witness and, as comments, its two readings.
pub(crate) fn baseline_yaml(found: &[FoundClass]) -> String {
    let mut text = HEADER.to_string();
    for class in found {
        let name = class.id.replace('/', "-");
        let name = name.get(..name.len().saturating_sub(8)).unwrap_or(&name);
        text.push_str(&format!(
            "- class: {name}\n  verdict: untriaged\n  signatures: [{}]\n  witness: '{}'\n",
            class.id,
            class.witness.shown()
        ));
        for (side, reading) in [("oracle", &class.oracle), ("subject", &class.subject)] {
            let reading = crate::visible::excerpt(reading, 120);
            text.push_str(&format!("  # {side}: {reading}\n"));
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::explore::compare::signature::Signature;
    use crate::explore::triage::baseline_file::read_baseline;

    fn read(text: &str) -> Result<Vec<KnownClass>, BaselineError> {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("known.yaml");
        std::fs::write(&path, text).expect("write");
        read_baseline(&path).map(|b| b.classes)
    }

    #[test]
    fn a_rule_matches_by_level_tool_and_readings() {
        let classes = read(
            "- class: protocol-refusal\n  verdict: departure\n  reason: the seed says INVALID_INPUT\n  \
             match: { level: convention, tool: '*', oracle: '^error INVALID_INPUT$', subject: 'JSON-RPC error' }\n  \
             witness: '2026:17'\n",
        )
        .expect("reads");
        let baseline = crate::explore::triage::baseline::Baseline {
            file: "known.yaml".into(),
            classes,
        };
        let refused = Signature::for_test(
            Level::Convention,
            "grep",
            &["error INVALID_INPUT"],
            &["JSON-RPC error -{n}"],
        );
        assert_eq!(baseline.class_of(&refused), Some(0));
        for other in [
            Signature::for_test(
                Level::Text,
                "grep",
                &["error INVALID_INPUT"],
                &["JSON-RPC error"],
            ),
            Signature::for_test(
                Level::Convention,
                "view",
                &["error PATH_NOT_FOUND"],
                &["JSON-RPC error"],
            ),
            Signature::for_test(
                Level::Convention,
                "view",
                &["error INVALID_INPUT"],
                &["success"],
            ),
        ] {
            assert_eq!(baseline.class_of(&other), None, "{other:?}");
        }
        assert_eq!(
            baseline.classes[0].witness.map(Witness::shown).as_deref(),
            Some("2026:17")
        );
    }

    /// A cause that shows only in what was asked: a path through `..`, which every
    /// reading masks as `{path}` like any other.
    #[test]
    fn a_rule_can_read_the_call_where_the_sides_parted() {
        let classes = read(
            "- class: dot-dot-normalised\n  verdict: release-change\n  reason: r\n  \
             match: { level: convention, call: '\\{root\\}[^\"]*/\\.\\./' }\n",
        )
        .expect("reads");
        let baseline = crate::explore::triage::baseline::Baseline {
            file: "known.yaml".into(),
            classes,
        };
        let at = |call: &str| {
            Signature::for_test(
                Level::Convention,
                "read_file",
                &["File not found: {path}"],
                &["{words}"],
            )
            .with_call(call.to_string())
        };
        let through = at(r#"{"absolute_path":"{root}/src/../a.txt"}"#);
        assert_eq!(baseline.class_of(&through), Some(0));
        for other in [
            at(r#"{"absolute_path":"{root}/a.txt"}"#),
            at(r#"{"absolute_path":"{root}/a..b.txt"}"#),
            at(""),
        ] {
            assert_eq!(baseline.class_of(&other), None, "{other:?}");
        }
        // The call is not part of the id: one deviation is one signature wherever
        // it was asked.
        assert_eq!(through.id(), at("").id());
    }

    #[test]
    fn a_written_baseline_reads_back_and_lists_its_signatures() {
        let found = [FoundClass {
            id: "convention/view/0123456789abcdef".into(),
            oracle: "error PATH_NOT_FOUND".into(),
            subject: "error 'x': y\nz".into(),
            witness: Witness { seed: 5, case: 1 },
        }];
        let classes = read(&baseline_yaml(&found)).expect("reads back");
        assert_eq!(classes.len(), 1);
        assert_eq!(classes[0].name, "convention-view-01234567");
        assert_eq!(classes[0].verdict, Verdict::Untriaged);
        assert!(classes[0]
            .signatures
            .contains("convention/view/0123456789abcdef"));
        assert_eq!(classes[0].witness, Some(Witness { seed: 5, case: 1 }));
        assert_eq!(classes[0].line, Some(5));
        assert!(read("# nothing yet\n").expect("empty").is_empty());
    }

    #[test]
    fn a_bad_entry_is_named_with_its_line() {
        let cases = [
            ("- class: a\n  verdict: departure\n  signatures: [text/view/0123456789abcdef]\n", "known.yaml:1: class `a`: a `departure` class needs a `reason:`"),
            ("- class: a\n  verdict: wrong\n  reason: r\n  signatures: []\n", "verdict `wrong` is not one of"),
            ("- class: a\n  verdict: ambiguity\n  reason: r\n", "lists no `signatures:` and has no `match:` rule"),
            ("- class: a\n  verdict: ambiguity\n  reason: r\n  match: { level: text }\n", "needs `oracle:`, `subject:` or `call:`"),
            ("- class: a\n  verdict: ambiguity\n  reason: r\n  match: { call: '[' }\n", "match call `[` does not compile"),
            ("- class: a\n  verdict: ambiguity\n  reason: r\n  match: { level: txt, oracle: x }\n", "match level `txt` is not one of"),
            ("- class: a\n  verdict: ambiguity\n  reason: r\n  match: { subject: '(' }\n", "match subject `(` does not compile"),
            ("- class: a\n  verdict: ambiguity\n  reason: r\n  signatures: [view]\n", "`view` is not a divergence signature"),
            ("- class: a\n  verdict: ambiguity\n  reason: r\n  signatures: [text/view/0123456789abcdef]\n  witness: '12'\n", "witness `12` is not SEED:CASE"),
            ("- class: a\n  verdict: untriaged\n  signatures: [text/view/0123456789abcdef]\n- class: a\n  verdict: untriaged\n  signatures: [text/view/0123456789abcdef]\n", "named twice"),
            ("- class: a\n  verdict: untriaged\n  sigs: []\n", "known.yaml:3"),
        ];
        for (text, expected) in cases {
            let why = read(text).expect_err(text).to_string();
            assert!(why.contains(expected), "{text}\n---\n{why}");
        }
    }
}
