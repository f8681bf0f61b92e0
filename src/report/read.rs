//! Reading a JSON run report back into reports, so the shards of a partitioned run
//! can be joined and written out again as one run's JSON, JUnit and Markdown.
//!
//! A report is read as the contract of `docs/report.schema.json` says: a version
//! other than this build's, a field missing or unknown, or a standing that does not
//! follow from the scenario's own verdict and baseline is refused, naming the file
//! and the scenario, rather than merged into a report that would lie.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Deserialize;

use super::json::{READABLE_SCHEMA_VERSIONS, REPORT_SCHEMA_VERSION};
use super::{RunFacts, Standing, SuiteFacts};
use crate::execute::{Escape, EscapeKind, Excuse, ScenarioReport, Verdict};
use crate::judge::Mismatch;
use crate::scenario::Basis;

/// Why a JSON report could not be read back.
#[derive(Debug, thiserror::Error)]
pub(crate) enum ReadError {
    #[error("{}: cannot read: {source}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{}: not a toolspec run report: {source}", path.display())]
    Shape {
        path: PathBuf,
        #[source]
        source: serde_json::Error,
    },
    #[error("{}: schema_version {found}, but this toolspec reads version {REPORT_SCHEMA_VERSION}", path.display())]
    Version { path: PathBuf, found: u64 },
    #[error("{}: scenario `{id}`: {why}", path.display())]
    Scenario {
        path: PathBuf,
        id: String,
        why: String,
    },
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RunJson {
    schema_version: u64,
    target: String,
    /// Not in version 3.
    #[serde(default)]
    isolation: Vec<String>,
    partition: Option<String>,
    #[allow(dead_code, reason = "recomputed from the scenarios")]
    counts: serde_json::Value,
    suites: Vec<SuiteJson>,
    scenarios: Vec<ScenarioJson>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SuiteJson {
    name: String,
    version: u32,
    origin: String,
    #[allow(dead_code, reason = "recomputed from the scenarios")]
    counts: serde_json::Value,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ScenarioJson {
    id: String,
    requirement: String,
    covers: String,
    since: u32,
    pinned: Option<u32>,
    basis: Basis,
    verdict: String,
    standing: String,
    baseline: BaselineJson,
    attempts: Vec<String>,
    /// Not before version 5.
    #[serde(default)]
    escape: Option<EscapeJson>,
    mismatches: Vec<MismatchJson>,
    error: Option<ErrorJson>,
    reason: Option<String>,
    call: String,
    answer: Option<String>,
    warnings: Vec<String>,
    note: Option<String>,
    fixture_root: String,
    /// Not in version 3.
    #[serde(default)]
    isolation_denied: Option<String>,
    position: usize,
    elapsed_ms: u64,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum BaselineJson {
    Whole(String),
    Keys(BTreeSet<String>),
    None(()),
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct MismatchJson {
    id: String,
    expectation: String,
    detail: String,
    #[allow(dead_code, reason = "recomputed from the baseline")]
    excused: bool,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct EscapeJson {
    kind: String,
    tool: String,
    given: String,
    reached: String,
    #[allow(dead_code, reason = "made again from the rest")]
    line: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ErrorJson {
    what: String,
    stderr_tail: String,
}

/// The run facts and the scenario reports of the JSON report at `path`.
pub(crate) fn read_json(path: &Path) -> Result<(RunFacts, Vec<ScenarioReport>), ReadError> {
    let text = std::fs::read_to_string(path).map_err(|source| ReadError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    // The version first, so an old or new report says so rather than failing on a
    // field it does not have.
    let version = serde_json::from_str::<serde_json::Value>(&text)
        .ok()
        .and_then(|v| v.get("schema_version").and_then(serde_json::Value::as_u64));
    if let Some(found) = version.filter(|v| !READABLE_SCHEMA_VERSIONS.contains(v)) {
        return Err(ReadError::Version {
            path: path.to_path_buf(),
            found,
        });
    }
    let run: RunJson = serde_json::from_str(&text).map_err(|source| ReadError::Shape {
        path: path.to_path_buf(),
        source,
    })?;
    if !READABLE_SCHEMA_VERSIONS.contains(&run.schema_version) {
        return Err(ReadError::Version {
            path: path.to_path_buf(),
            found: run.schema_version,
        });
    }
    let facts = RunFacts {
        target: run.target,
        isolation: run.isolation,
        partition: run.partition,
        suites: run
            .suites
            .into_iter()
            .map(|s| SuiteFacts {
                name: s.name,
                version: s.version,
                origin: s.origin,
            })
            .collect(),
    };
    let reports = run
        .scenarios
        .into_iter()
        .map(|s| scenario(path, s))
        .collect::<Result<_, _>>()?;
    Ok((facts, reports))
}

fn scenario(path: &Path, s: ScenarioJson) -> Result<ScenarioReport, ReadError> {
    let refuse = |why: String| ReadError::Scenario {
        path: path.to_path_buf(),
        id: s.id.clone(),
        why,
    };
    let mut mismatches = Vec::new();
    for m in &s.mismatches {
        let key =
            m.id.strip_prefix(s.id.as_str())
                .and_then(|rest| rest.strip_prefix('#'))
                .ok_or_else(|| refuse(format!("mismatch id `{}` is not the scenario's", m.id)))?;
        mismatches.push(Mismatch::new(m.expectation.clone(), m.detail.clone()).keyed(key));
    }
    let escape = match &s.escape {
        Some(e) => Some(Escape {
            kind: EscapeKind::from_word(&e.kind)
                .ok_or_else(|| refuse(format!("`escape.kind: {}` is not read or write", e.kind)))?,
            tool: e.tool.clone(),
            given: e.given.clone(),
            reached: e.reached.clone(),
        }),
        None => None,
    };
    let found = Found {
        error: s.error.as_ref(),
        reason: s.reason.clone(),
        escape: escape.clone(),
    };
    let verdict = verdict_of(&s.verdict, mismatches, found).ok_or_else(|| {
        refuse(format!(
            "`verdict: {}` does not go with the rest",
            s.verdict
        ))
    })?;
    let attempts = s
        .attempts
        .iter()
        .map(|label| {
            let found = Found {
                error: None,
                reason: Some(String::new()),
                escape: escape.clone(),
            };
            verdict_of(label, Vec::new(), found)
        })
        .collect::<Option<Vec<_>>>()
        .ok_or_else(|| refuse("an attempt's verdict is not a verdict".to_string()))?;
    let excuse = match &s.baseline {
        BaselineJson::None(()) => Excuse::None,
        BaselineJson::Whole(word) if word == "scenario" => Excuse::Whole,
        BaselineJson::Whole(other) => return Err(refuse(format!("`baseline: {other}`"))),
        BaselineJson::Keys(keys) => Excuse::Expectations(keys.clone()),
    };
    let report = ScenarioReport {
        id: s.id.clone(),
        requirement: s.requirement,
        covers: s.covers,
        excuse,
        warnings: s.warnings,
        verdict,
        attempts,
        call: s.call,
        answer: s.answer,
        root: s.fixture_root,
        isolation_denied: s.isolation_denied,
        root_kept: false,
        note: s.note,
        basis: s.basis,
        since: s.since,
        pinned: s.pinned,
        elapsed: Duration::from_millis(s.elapsed_ms),
        position: s.position,
        judged: None,
    };
    let standing = Standing::of(&report).label();
    if standing != s.standing {
        return Err(refuse(format!(
            "`standing: {}`, but its verdict and baseline make it {standing}",
            s.standing
        )));
    }
    Ok(report)
}

/// What a scenario's object gives besides its mismatches, for [`verdict_of`].
struct Found<'a> {
    error: Option<&'a ErrorJson>,
    reason: Option<String>,
    escape: Option<Escape>,
}

/// The verdict a label names, with what the report gives for it; None when the
/// label is no verdict, or a SKIP, UNSUPPORTED or ESCAPE lacks what it needs.
fn verdict_of(label: &str, mismatches: Vec<Mismatch>, found: Found) -> Option<Verdict> {
    let Found {
        error,
        reason,
        escape,
    } = found;
    Some(match label {
        "PASS" => Verdict::Pass,
        "FAIL" => Verdict::Fail(mismatches),
        "ERROR" => Verdict::Error {
            what: error.map(|e| e.what.clone()).unwrap_or_default(),
            stderr_tail: error.map(|e| e.stderr_tail.clone()).unwrap_or_default(),
        },
        "SKIP" => Verdict::Skip(reason?),
        "UNSUPPORTED" => Verdict::Unsupported(reason?),
        "ESCAPE" => Verdict::Escape(escape?),
        _ => return None,
    })
}
