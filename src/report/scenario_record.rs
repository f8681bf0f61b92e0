//! One scenario of the JSON run report, as a typed record: what
//! `docs/report.schema.json` describes under `scenarios`.

use std::collections::BTreeSet;

use serde::Serialize;

use super::records::basis_word;
use super::Standing;
use crate::execute::{Excuse, ScenarioReport, Verdict};

#[derive(Serialize)]
pub(super) struct ScenarioRecord<'r> {
    id: &'r str,
    requirement: &'r str,
    covers: &'r str,
    since: u32,
    pinned: Option<u32>,
    basis: &'static str,
    verdict: &'static str,
    standing: &'static str,
    baseline: Option<BaselineRecord<'r>>,
    attempts: Vec<&'static str>,
    escape: Option<EscapeRecord<'r>>,
    mismatches: Vec<MismatchRecord<'r>>,
    error: Option<ErrorRecord<'r>>,
    reason: Option<&'r str>,
    call: &'r str,
    answer: Option<&'r str>,
    warnings: &'r [String],
    note: Option<&'r str>,
    fixture_root: &'r str,
    isolation_denied: Option<&'r str>,
    position: usize,
    elapsed_ms: u64,
}

/// What the target's baseline excuses: the whole scenario (`"scenario"`) or these
/// expectations; no baseline entry is `null`.
#[derive(Serialize)]
#[serde(untagged)]
enum BaselineRecord<'r> {
    Whole(&'static str),
    Expectations(&'r BTreeSet<String>),
}

#[derive(Serialize)]
struct EscapeRecord<'r> {
    kind: &'static str,
    tool: &'r str,
    given: &'r str,
    reached: &'r str,
    line: String,
}

#[derive(Serialize)]
struct MismatchRecord<'r> {
    /// `id#key`, the name a baseline gives this expectation.
    id: String,
    expectation: &'r str,
    detail: &'r str,
    excused: bool,
}

#[derive(Serialize)]
struct ErrorRecord<'r> {
    what: &'r str,
    stderr_tail: &'r str,
}

impl<'r> ScenarioRecord<'r> {
    pub(super) fn of(r: &'r ScenarioReport) -> ScenarioRecord<'r> {
        let mismatches = match &r.verdict {
            Verdict::Fail(m) => m
                .iter()
                .map(|m| MismatchRecord {
                    id: format!("{}#{}", r.id, m.key),
                    expectation: &m.expectation,
                    detail: &m.detail,
                    excused: r.excuse.covers(m),
                })
                .collect(),
            _ => Vec::new(),
        };
        let error = match &r.verdict {
            Verdict::Error { what, stderr_tail } => Some(ErrorRecord { what, stderr_tail }),
            _ => None,
        };
        let reason = match &r.verdict {
            Verdict::Skip(why) | Verdict::Unsupported(why) => Some(why.as_str()),
            _ => None,
        };
        let escape = match &r.verdict {
            Verdict::Escape(e) => Some(EscapeRecord {
                kind: e.kind.word(),
                tool: &e.tool,
                given: &e.given,
                reached: &e.reached,
                line: e.line(),
            }),
            _ => None,
        };
        let baseline = match &r.excuse {
            Excuse::None => None,
            Excuse::Whole => Some(BaselineRecord::Whole("scenario")),
            Excuse::Expectations(keys) => Some(BaselineRecord::Expectations(keys)),
        };
        ScenarioRecord {
            id: &r.id,
            requirement: &r.requirement,
            covers: &r.covers,
            since: r.since,
            pinned: r.pinned,
            basis: basis_word(r.basis),
            verdict: r.verdict.label(),
            standing: Standing::of(r).label(),
            baseline,
            attempts: r.attempts.iter().map(Verdict::label).collect(),
            escape,
            mismatches,
            error,
            reason,
            call: &r.call,
            answer: r.answer.as_deref(),
            warnings: &r.warnings,
            note: r.note.as_deref(),
            fixture_root: &r.root,
            isolation_denied: r.isolation_denied.as_deref(),
            position: r.position,
            elapsed_ms: r.elapsed.as_millis() as u64,
        }
    }
}
