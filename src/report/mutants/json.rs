//! Mutation scores as JSON (`toolspec mutants --json`), in the shape
//! `docs/mutants.schema.json` describes, from typed records.

use std::path::Path;

use serde::Serialize;

use crate::proof::mutants::{FalseFailure, MutantOutcome, SuiteScore, VariationOutcome};
use crate::report::records::sorted_pretty;

/// The shape of the mutation scores, as `docs/mutants.schema.json` describes it:
/// raise it with any change a reader could notice, and the schema with it. 2:
/// `full_count`, since `killed_by` holds only the first killer unless `--full`.
/// 3: each suite's `variations` runs, with their false failures, and the counts
/// `spared` and `varied`. 4: each suite's `derived` answers (along the clauses'
/// freedoms) and the ones a scenario failed.
pub(crate) const MUTANTS_SCHEMA_VERSION: u64 = 4;

#[derive(Serialize)]
struct ScoresRecord<'s> {
    schema_version: u64,
    full_count: bool,
    suites: Vec<SuiteRecord<'s>>,
}

/// One suite's score and specificity.
#[derive(Serialize)]
struct SuiteRecord<'s> {
    suite: &'s str,
    scenarios: usize,
    killed: usize,
    total: usize,
    spared: usize,
    varied: usize,
    not_passing: &'s [String],
    mutants: Vec<MutantRecord<'s>>,
    variations: Vec<VariationRunRecord<'s>>,
    derived: DerivedRecord<'s>,
}

/// The answers derived along the clauses' freedoms, and those failed.
#[derive(Serialize)]
struct DerivedRecord<'s> {
    scenarios: usize,
    answers: usize,
    false_answers: Vec<FalseAnswerRecord<'s>>,
}

#[derive(Serialize)]
struct FalseAnswerRecord<'s> {
    scenario: &'s str,
    clause: &'s str,
    dimension: &'static str,
    words: &'s str,
    how: &'s str,
    text: &'s str,
    expectations: Vec<String>,
}

#[derive(Serialize)]
struct MutantRecord<'s> {
    name: &'s str,
    what: &'s str,
    killed: bool,
    killed_by: &'s [String],
}

/// A run of conforming variations taken at once, with the scenarios it failed.
#[derive(Serialize)]
struct VariationRunRecord<'s> {
    variations: Vec<VariationRecord<'s>>,
    spared: bool,
    false_failures: Vec<FalseFailureRecord<'s>>,
}

#[derive(Serialize)]
struct VariationRecord<'s> {
    name: &'s str,
    what: &'s str,
    allowed_by: &'s str,
    /// `all` when upstream scenarios must spare it too, `spec` when only the
    /// `basis: spec` ones must.
    spares: &'static str,
}

#[derive(Serialize)]
struct FalseFailureRecord<'s> {
    scenario: &'s str,
    expectations: &'s [String],
}

/// Writes mutation scores as JSON to `path`; `full_count` says whether each
/// mutation's `killed_by` lists every killing scenario or only the first found.
pub(crate) fn write_mutants_json(
    path: &Path,
    scores: &[SuiteScore],
    full_count: bool,
) -> std::io::Result<()> {
    let text = sorted_pretty(&ScoresRecord {
        schema_version: MUTANTS_SCHEMA_VERSION,
        full_count,
        suites: scores.iter().map(suite).collect(),
    })?;
    std::fs::write(path, text)
}

fn suite(score: &SuiteScore) -> SuiteRecord<'_> {
    let (spared, varied) = score.specificity();
    SuiteRecord {
        suite: &score.suite,
        scenarios: score.scenarios,
        killed: score.killed(),
        total: score.mutants.len(),
        spared,
        varied,
        not_passing: &score.not_passing,
        mutants: score.mutants.iter().map(mutant).collect(),
        variations: score.variations.iter().map(variation_run).collect(),
        derived: DerivedRecord {
            scenarios: score.derived.scenarios,
            answers: score.derived.answers,
            false_answers: score
                .derived
                .false_answers
                .iter()
                .map(|(scenario, f)| FalseAnswerRecord {
                    scenario,
                    clause: &f.clause,
                    dimension: f.dimension.name(),
                    words: &f.words,
                    how: &f.how,
                    text: &f.text,
                    expectations: f
                        .mismatches
                        .iter()
                        .map(|m| format!("{}: {}", m.expectation, m.detail))
                        .collect(),
                })
                .collect(),
        },
    }
}

fn mutant(m: &MutantOutcome) -> MutantRecord<'_> {
    MutantRecord {
        name: &m.mutation.name,
        what: &m.mutation.what,
        killed: m.killed(),
        killed_by: &m.killed_by,
    }
}

fn variation_run(run: &VariationOutcome) -> VariationRunRecord<'_> {
    VariationRunRecord {
        variations: run
            .variations
            .iter()
            .map(|v| VariationRecord {
                name: &v.name,
                what: &v.what,
                allowed_by: &v.allowed_by,
                spares: if v.spares_upstream { "all" } else { "spec" },
            })
            .collect(),
        spared: run.spared(),
        false_failures: run
            .false_failures
            .iter()
            .map(|f: &FalseFailure| FalseFailureRecord {
                scenario: &f.scenario,
                expectations: &f.expectations,
            })
            .collect(),
    }
}
