//! `toolspec explore --json FILE`: the run as typed records, described field by
//! field in `docs/explore.schema.json`. The records are turned into a JSON value
//! before they are written, so every object's keys come out sorted, as they have
//! since the first version.

use std::collections::BTreeMap;
use std::path::Path;

use serde::Serialize;
use serde_json::{Map, Value};

use crate::explore::compare::differential::{CaseOutcome, Divergence, ExploredCase};
use crate::explore::compare::levels::Level;
use crate::explore::generate::case::Case;
use crate::explore::session::{Findings, ReportFailed};
use crate::explore::triage::baseline::Witness;
use crate::explore::triage::classes::DivergenceClass;
use crate::explore::triage::stale::WitnessRun;

/// The version of the shape written; `docs/explore.schema.json` holds it as
/// `schema_version`'s `const`, and a change of shape raises both.
pub(crate) const EXPLORE_SCHEMA_VERSION: u64 = 7;

#[derive(Serialize)]
struct ExploreReport<'r> {
    schema_version: u64,
    suite: &'r str,
    seed: u64,
    settings_drawn: &'r BTreeMap<String, Vec<Value>>,
    cases: u64,
    calls: usize,
    divergences: Vec<DivergenceRecord<'r>>,
    passed_over: Vec<PassedOverRecord<'r>>,
    signatures: Vec<SignatureRecord<'r>>,
    not_run: Vec<NotRun<'r>>,
    unsupported: Unsupported<'r>,
    agreement: AgreementRecord,
    baseline: Option<BaselineRecord<'r>>,
    /// Whether the run was given `--fail-fast` (version 7).
    fail_fast: bool,
    /// Where `--fail-fast` stopped the run; None when it did not (version 7).
    stopped: Option<StoppedRecord>,
}

/// Where `--fail-fast` stopped starting cases (version 7).
#[derive(Serialize)]
struct StoppedRecord {
    /// The case of the first new divergence.
    case: u64,
    /// How many cases ran before the stop (`cases`).
    cases_run: u64,
}

#[derive(Serialize)]
struct CallRecord<'r> {
    tool: &'r str,
    args: &'r Map<String, Value>,
}

#[derive(Serialize)]
struct DivergenceRecord<'r> {
    case: u64,
    /// From 1; null when the subject did not start.
    call: Option<usize>,
    level: &'static str,
    calls: Vec<CallRecord<'r>>,
    files: &'r BTreeMap<String, Option<String>>,
    links: &'r BTreeMap<String, String>,
    /// Octal, as `chmod` takes it.
    modes: BTreeMap<&'r str, String>,
    outside: &'r [String],
    settings: &'r BTreeMap<String, Value>,
    oracle: &'r str,
    subject: &'r str,
    signature: Option<String>,
}

/// A known divergence a case went on past (version 6).
#[derive(Serialize)]
struct PassedOverRecord<'r> {
    case: u64,
    /// From 1.
    call: Option<usize>,
    level: &'static str,
    tool: &'r str,
    oracle: &'r str,
    subject: &'r str,
    signature: String,
    class: Option<&'r str>,
}

#[derive(Serialize)]
struct NotRun<'r> {
    case: u64,
    why: &'r str,
}

#[derive(Serialize)]
struct SignatureRecord<'r> {
    id: String,
    level: &'static str,
    tool: &'r str,
    oracle: &'r [String],
    subject: &'r [String],
    call: &'r str,
    cases: &'r [u64],
    /// How many times a case went on past it (version 6).
    passed_over: usize,
    known: bool,
    class: Option<&'r str>,
    shrunk: Option<ShrunkRecord<'r>>,
}

#[derive(Serialize)]
struct ShrunkRecord<'r> {
    runs: usize,
    stopped_by_budget: bool,
    calls: Vec<CallRecord<'r>>,
    files: &'r BTreeMap<String, Option<String>>,
    oracle: &'r str,
    subject: &'r str,
}

#[derive(Serialize)]
struct Unsupported<'r> {
    tools: &'r [String],
    calls: usize,
}

#[derive(Serialize)]
struct AgreementRecord {
    calls: usize,
    convention: f64,
    text: f64,
    files: f64,
}

#[derive(Serialize)]
struct BaselineRecord<'r> {
    file: &'r str,
    classes: Vec<KnownClassRecord<'r>>,
}

#[derive(Serialize)]
struct KnownClassRecord<'r> {
    class: &'r str,
    verdict: &'static str,
    line: Option<usize>,
    signatures_seen: usize,
    witness: Option<String>,
    witness_run: Option<String>,
}

/// Writes the run's findings to `path`.
pub(crate) fn write_explore_json(path: &Path, findings: &Findings<'_>) -> Result<(), ReportFailed> {
    let text = serde_json::to_value(report(findings))
        .and_then(|value| serde_json::to_string_pretty(&value))
        .unwrap_or_default();
    std::fs::write(path, text + "\n").map_err(|source| ReportFailed {
        path: path.to_path_buf(),
        source,
    })
}

/// The run as a report: the seed, the counts, and every divergence with its calls.
fn report<'r>(findings: &'r Findings<'r>) -> ExploreReport<'r> {
    let explored = findings.explored;
    let tally = &findings.tally;
    let agreement = tally.agreement();
    ExploreReport {
        schema_version: EXPLORE_SCHEMA_VERSION,
        suite: &findings.request.suite.name,
        seed: findings.request.seed,
        settings_drawn: findings.settings_drawn,
        cases: explored.cases,
        calls: tally.calls,
        divergences: explored
            .kept
            .iter()
            .filter_map(|ExploredCase { case, outcome }| match outcome {
                CaseOutcome::Ran {
                    divergence: Some(d),
                    ..
                } => Some(divergence(findings, case, d)),
                _ => None,
            })
            .collect(),
        passed_over: explored
            .kept
            .iter()
            .flat_map(|ExploredCase { case, outcome }| passed_over(findings, case, outcome))
            .collect(),
        signatures: findings
            .classified
            .classes
            .iter()
            .map(|class| signature(findings, class))
            .collect(),
        not_run: explored
            .kept
            .iter()
            .filter_map(|ExploredCase { case, outcome }| match outcome {
                CaseOutcome::Failed(why) => Some(NotRun {
                    case: case.number,
                    why,
                }),
                CaseOutcome::Ran { .. } => None,
            })
            .collect(),
        unsupported: Unsupported {
            tools: findings.subject_lacks,
            calls: tally.unsupported,
        },
        agreement: AgreementRecord {
            calls: tally.calls,
            convention: agreement.fraction(Level::Convention),
            text: agreement.fraction(Level::Text),
            files: agreement.fraction(Level::Files),
        },
        baseline: baseline(findings),
        fail_fast: findings.request.fail_fast,
        stopped: findings.fail_fast_stop().map(|case| StoppedRecord {
            case,
            cases_run: explored.cases,
        }),
    }
}

/// The known divergences `case` went on past, each with its signature and class.
fn passed_over<'r>(
    findings: &'r Findings<'r>,
    case: &'r Case,
    outcome: &'r CaseOutcome,
) -> Vec<PassedOverRecord<'r>> {
    let CaseOutcome::Ran { passed_over, .. } = outcome else {
        return Vec::new();
    };
    passed_over
        .iter()
        .zip(findings.classified.passed_over_in_case(case.number))
        .map(|(d, class)| PassedOverRecord {
            case: case.number,
            call: d.at_call.map(|i| i + 1),
            level: d.difference.level.label(),
            tool: &class.signature.tool,
            oracle: &d.difference.oracle,
            subject: &d.difference.subject,
            signature: class.signature.id(),
            class: findings.known_class(class).map(|k| k.name.as_str()),
        })
        .collect()
}

fn calls<'r>(case: &'r Case, divergence: &Divergence) -> Vec<CallRecord<'r>> {
    divergence
        .calls_of(case)
        .iter()
        .map(|c| CallRecord {
            tool: &c.tool,
            args: &c.args,
        })
        .collect()
}

fn divergence<'r>(
    findings: &'r Findings<'r>,
    case: &'r Case,
    d: &'r Divergence,
) -> DivergenceRecord<'r> {
    DivergenceRecord {
        case: case.number,
        call: d.at_call.map(|i| i + 1),
        level: d.difference.level.label(),
        calls: calls(case, d),
        files: &case.fixture.entries,
        links: &case.fixture.links,
        modes: case
            .fixture
            .modes
            .iter()
            .map(|(name, mode)| (name.as_str(), format!("{mode:o}")))
            .collect(),
        outside: &case.fixture.outside,
        settings: &case.settings,
        oracle: &d.difference.oracle,
        subject: &d.difference.subject,
        signature: findings
            .classified
            .class_of_case(case.number)
            .map(|c| c.signature.id()),
    }
}

fn signature<'r>(
    findings: &'r Findings<'r>,
    class: &'r DivergenceClass<'r>,
) -> SignatureRecord<'r> {
    SignatureRecord {
        id: class.signature.id(),
        level: class.signature.level.label(),
        tool: &class.signature.tool,
        oracle: &class.signature.oracle,
        subject: &class.signature.subject,
        call: &class.signature.call,
        cases: &class.cases,
        passed_over: class.passed_over,
        known: class.known.is_some(),
        class: findings.known_class(class).map(|k| k.name.as_str()),
        shrunk: class.shrunk.as_ref().map(|shrunk| ShrunkRecord {
            runs: shrunk.runs,
            stopped_by_budget: shrunk.stopped_by_budget,
            calls: calls(&shrunk.case, &shrunk.divergence),
            files: &shrunk.case.fixture.entries,
            oracle: &shrunk.divergence.difference.oracle,
            subject: &shrunk.divergence.difference.subject,
        }),
    }
}

/// The baseline the run was given, each class with what the run made of it;
/// None (null) when it was given none.
fn baseline<'r>(findings: &'r Findings<'r>) -> Option<BaselineRecord<'r>> {
    let baseline = findings.baseline?;
    let classes = baseline
        .classes
        .iter()
        .enumerate()
        .map(|(i, known)| KnownClassRecord {
            class: &known.name,
            verdict: known.verdict.label(),
            line: known.line,
            signatures_seen: findings
                .classified
                .classes
                .iter()
                .filter(|c| c.known == Some(i))
                .count(),
            witness: known.witness.map(Witness::shown),
            witness_run: findings.rechecked.iter().find(|(c, _)| *c == i).map(
                |(_, run)| match run {
                    WitnessRun::Shows => "shows".to_string(),
                    WitnessRun::Stale(why) => format!("stale: {why}"),
                },
            ),
        })
        .collect();
    Some(BaselineRecord {
        file: &baseline.file,
        classes,
    })
}
