//! The proof that a spec-level verdict never fails a conforming server: every
//! `basis: spec` scenario that passed on the reference server is judged again
//! on the answers derived from the reference's own along each freedom of the
//! clause it covers ([`derive`]). A derived answer it fails is a false failure
//! of the scenario, named with the clause, the dimension and the document's
//! words that leave it open.
//!
//! The derived answers need no server: the reference's answer is kept by the
//! run (`RunOptions::keep_judged`) and judged again as it was judged, its files
//! aside (a derivation changes the answer, never the files).

pub(crate) mod derive;

use crate::execute::{ScenarioReport, Verdict};
use crate::judge::{judge_answer, Mismatch};
use crate::scenario::{Basis, Dimension, Freedom, Scenario, Suite};
use crate::server::outcome::CallOutcome;

/// A scenario that fails an answer its document allows.
#[derive(Debug, Clone)]
pub(crate) struct FalseAnswer {
    pub clause: String,
    pub dimension: Dimension,
    /// The document's words that leave the dimension open.
    pub words: String,
    /// How the answer was derived from the reference's.
    pub how: String,
    /// The derived answer's text.
    pub text: String,
    pub mismatches: Vec<Mismatch>,
}

impl FalseAnswer {
    /// One paragraph for a reader: which freedom, how the answer differs, and
    /// which expectations failed it.
    pub(crate) fn describe(&self) -> String {
        let mut said = format!(
            "fails a conforming answer: clause `{}` leaves `{}` open (\"{}\"); the reference's \
             answer with {} was refused by",
            self.clause,
            self.dimension.name(),
            self.words,
            self.how
        );
        for mismatch in &self.mismatches {
            said.push_str(&format!("\n  {}:", mismatch.expectation));
            for line in mismatch.detail.lines() {
                said.push_str("\n    ");
                said.push_str(line);
            }
        }
        said
    }
}

/// The freedoms `suite`'s clause index states for clause `id` (none when it
/// states none, or has no such clause).
pub(crate) fn freedoms_of<'a>(suite: &'a Suite, id: &str) -> &'a [Freedom] {
    suite
        .clause_index
        .iter()
        .flat_map(|index| &index.documents)
        .flat_map(|document| &document.clauses)
        .find(|clause| clause.id == id)
        .and_then(|clause| clause.freedoms.as_deref())
        .unwrap_or_default()
}

/// How one scenario fared on the answers derived from its reference answer.
#[derive(Debug, Clone, Default)]
pub(crate) struct DerivedJudgement {
    /// Answers derived and judged.
    pub derived: usize,
    /// Those the scenario failed.
    pub false_answers: Vec<FalseAnswer>,
}

/// Judges `scenario` on the answers derived from its passing `report` (which
/// kept the judged call). Only `basis: spec` scenarios are held to the
/// documents' freedoms (an upstream one checks a program's own words); None
/// for any other, or when there is no answer to derive from.
pub(crate) fn judge_derived(
    suite: &Suite,
    scenario: &Scenario,
    report: &ScenarioReport,
) -> Option<DerivedJudgement> {
    if scenario.basis != Basis::Spec || !matches!(report.verdict, Verdict::Pass) {
        return None;
    }
    let judged = report.judged.as_ref()?;
    let CallOutcome::Result(result) = &judged.outcome else {
        return None;
    };
    let mut found = DerivedJudgement::default();
    for freedom in freedoms_of(suite, &scenario.covers) {
        for derived in derive::derive(freedom, result, &judged.args, &judged.bindings) {
            found.derived += 1;
            let text = derived.result.text.clone();
            let mismatches = judge_answer(
                &scenario.then,
                suite.config.convention,
                &CallOutcome::Result(derived.result),
                &judged.bindings,
            );
            if !mismatches.is_empty() {
                found.false_answers.push(FalseAnswer {
                    clause: scenario.covers.clone(),
                    dimension: freedom.open,
                    words: freedom.words.clone(),
                    how: derived.how,
                    text,
                    mismatches,
                });
            }
        }
    }
    Some(found)
}

#[cfg(test)]
mod tests {
    /// Every clause of every built-in suite says what its document leaves open
    /// (`[]` when nothing): an unstated clause would let its spec scenarios pin
    /// anything unchecked.
    #[test]
    fn every_clause_of_the_built_in_suites_states_its_freedoms() {
        let specs = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("specs");
        let mut unstated = Vec::new();
        let mut suites = 0;
        for entry in std::fs::read_dir(&specs).expect("specs").flatten() {
            if !entry.path().join("suite.yaml").is_file() {
                continue;
            }
            suites += 1;
            let suite = crate::scenario::load_suite(&entry.path()).expect("suite loads");
            let index = suite.clause_index.as_ref().expect("a clause index");
            for clause in index.documents.iter().flat_map(|d| &d.clauses) {
                if clause.freedoms.is_none() {
                    unstated.push(format!("{}: {}", suite.name, clause.id));
                }
            }
        }
        assert_eq!(suites, 4);
        assert!(
            unstated.is_empty(),
            "clauses stating no freedoms: {unstated:?}"
        );
    }
}
