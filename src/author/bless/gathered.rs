//! The failing scenarios the cargo-test runner's trials saw, kept for
//! `TOOLSPEC_BLESS`: trials end in any order on libtest's threads, so each one
//! hands over what there is to bless of its report, and after libtest's summary
//! they are blessed together in the order of the files, as `run --bless` does.

use std::sync::Arc;

use super::{bless, to_bless, BlessMode, FailedScenario};
use crate::execute::standing::Standing;
use crate::execute::{RunOptions, ScenarioReport};
use crate::scenario::Suite;
use crate::server::Target;

/// The failing scenarios the trials saw, for `TOOLSPEC_BLESS`.
#[derive(Default)]
pub(crate) struct Gathered {
    failed: Vec<GatheredScenario>,
    others: Vec<String>,
}

/// One failing scenario: its suite, its file and place there, its target, and
/// the mismatches to bless.
struct GatheredScenario {
    suite: Arc<Suite>,
    file: usize,
    index: usize,
    target: Arc<Target>,
    mismatches: Vec<crate::judge::Mismatch>,
}

impl Gathered {
    /// Keeps what there is to bless of `report`.
    pub(crate) fn consider(
        &mut self,
        report: &ScenarioReport,
        place: (&Arc<Suite>, usize, usize),
        target: &Arc<Target>,
    ) {
        match to_bless(report) {
            Some(mismatches) => self.failed.push(GatheredScenario {
                suite: place.0.clone(),
                file: place.1,
                index: place.2,
                target: target.clone(),
                mismatches,
            }),
            None if Standing::of(report).breaks_the_run() => {
                self.others
                    .push(format!("{} ({})", report.id, report.verdict.label()))
            }
            None => {}
        }
    }

    /// Blesses them in the order of the files (trials end in any order), printing
    /// on stdout after libtest's summary. True when all was blessed and written.
    pub(crate) fn bless(mut self, options: &RunOptions, mode: BlessMode) -> bool {
        self.failed.sort_by(|a, b| {
            (&a.suite.name, a.file, a.index).cmp(&(&b.suite.name, b.file, b.index))
        });
        let failed: Vec<FailedScenario<'_>> = self
            .failed
            .iter()
            .filter_map(|g| {
                let file = g.suite.files.get(g.file)?;
                Some(FailedScenario {
                    suite: &g.suite,
                    file,
                    scenario: file.content.scenarios.get(g.index)?,
                    target: &g.target,
                    listed: None,
                    mismatches: g.mismatches.clone(),
                })
            })
            .collect();
        println!();
        bless(&failed, &self.others, options, mode, &mut |line| {
            println!("{}", crate::visible::inert(line))
        })
    }
}
