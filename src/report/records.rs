//! The typed records the run report, `matrix.json` and `history.json` share: a
//! run's counts, by the summary line's names, and the suites it ran. Each file
//! turns its records into a JSON value before writing, so keys come out sorted.

use serde::Serialize;

use super::{SuiteFacts, Tally};
use crate::execute::standing::Score;
use crate::scenario::Basis;

/// A suite a run ran, as every JSON file names it.
#[derive(Serialize)]
pub(super) struct SuiteRecord<'r> {
    name: &'r str,
    version: u32,
    origin: &'r str,
}

impl<'r> SuiteRecord<'r> {
    pub(super) fn of(suite: &'r SuiteFacts) -> SuiteRecord<'r> {
        SuiteRecord {
            name: &suite.name,
            version: suite.version,
            origin: &suite.origin,
        }
    }

    /// Every suite of `suites`, in order.
    pub(super) fn all(suites: &'r [SuiteFacts]) -> Vec<SuiteRecord<'r>> {
        suites.iter().map(SuiteRecord::of).collect()
    }
}

/// The counts of the summary line, by the same names, and the two scores.
#[derive(Serialize)]
pub(super) struct CountsRecord {
    #[serde(rename = "PASS")]
    passed: usize,
    #[serde(rename = "FAIL")]
    failed: usize,
    #[serde(rename = "ERROR")]
    errored: usize,
    #[serde(rename = "SKIP")]
    skipped: usize,
    #[serde(rename = "UNSUPPORTED")]
    unsupported: usize,
    #[serde(rename = "KNOWN")]
    known: usize,
    #[serde(rename = "FLAKY")]
    flaky: usize,
    #[serde(rename = "STALE")]
    stale: usize,
    #[serde(rename = "NEW")]
    new: usize,
    #[serde(rename = "ESCAPE")]
    escaped: usize,
    spec: ScoreRecord,
    upstream: ScoreRecord,
}

impl CountsRecord {
    pub(super) fn of(t: &Tally) -> CountsRecord {
        CountsRecord {
            passed: t.passed,
            failed: t.failed,
            errored: t.errored,
            skipped: t.skipped,
            unsupported: t.unsupported,
            known: t.known,
            flaky: t.flaky,
            stale: t.stale,
            new: t.new,
            escaped: t.escaped,
            spec: ScoreRecord::of(&t.spec),
            upstream: ScoreRecord::of(&t.upstream),
        }
    }
}

/// A conformance score: how many of the scenarios of a basis passed.
#[derive(Serialize)]
pub(super) struct ScoreRecord {
    passed: usize,
    total: usize,
}

impl ScoreRecord {
    pub(super) fn of(score: &Score) -> ScoreRecord {
        ScoreRecord {
            passed: score.passed,
            total: score.total,
        }
    }
}

/// A scenario's basis, as the files write it.
pub(super) fn basis_word(basis: Basis) -> &'static str {
    match basis {
        Basis::Spec => "spec",
        Basis::Upstream => "upstream",
    }
}

/// `record` as a pretty JSON document with every object's keys sorted, as these
/// files have always been written (a record is a JSON value first, whose objects
/// are sorted maps), and a final newline.
pub(super) fn sorted_pretty(record: &impl Serialize) -> std::io::Result<String> {
    let value = serde_json::to_value(record)?;
    let mut text = serde_json::to_string_pretty(&value)?;
    text.push('\n');
    Ok(text)
}
