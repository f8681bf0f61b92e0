//! What a scenario's verdict means for the run once the target's baseline of known
//! failures is applied, and the counts every report gives.

use crate::execute::{ScenarioReport, Verdict};

/// What a scenario's verdict means for the run, once the baseline is applied.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Standing {
    Passed,
    Failed,
    Errored,
    Skipped,
    /// Failed or errored, and listed in the baseline: does not fail the run.
    KnownFailure,
    /// Listed in the baseline but passed: the entry is stale and fails the run, so
    /// baselines only ever shrink.
    StaleBaseline,
}

impl Standing {
    pub(crate) fn of(report: &ScenarioReport) -> Standing {
        match (&report.verdict, report.known_failure) {
            (Verdict::Pass, false) => Standing::Passed,
            (Verdict::Pass, true) => Standing::StaleBaseline,
            (Verdict::Skip(_), _) => Standing::Skipped,
            (Verdict::Fail(_) | Verdict::Error { .. }, true) => Standing::KnownFailure,
            (Verdict::Fail(_), false) => Standing::Failed,
            (Verdict::Error { .. }, false) => Standing::Errored,
        }
    }

    /// Whether this standing makes the run fail.
    pub(crate) fn breaks_the_run(self) -> bool {
        matches!(
            self,
            Standing::Failed | Standing::Errored | Standing::StaleBaseline
        )
    }
}

/// Counts of each standing.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Tally {
    pub passed: usize,
    pub failed: usize,
    pub errored: usize,
    pub skipped: usize,
    pub known: usize,
    pub stale: usize,
}

impl Tally {
    pub(crate) fn of(reports: &[ScenarioReport]) -> Tally {
        let mut t = Tally::default();
        for r in reports {
            t.count(Standing::of(r));
        }
        t
    }

    pub(crate) fn count(&mut self, standing: Standing) {
        match standing {
            Standing::Passed => self.passed += 1,
            Standing::Failed => self.failed += 1,
            Standing::Errored => self.errored += 1,
            Standing::Skipped => self.skipped += 1,
            Standing::KnownFailure => self.known += 1,
            Standing::StaleBaseline => self.stale += 1,
        }
    }

    pub(crate) fn add(&mut self, other: &Tally) {
        self.passed += other.passed;
        self.failed += other.failed;
        self.errored += other.errored;
        self.skipped += other.skipped;
        self.known += other.known;
        self.stale += other.stale;
    }

    pub(crate) fn breaks_the_run(&self) -> bool {
        self.failed + self.errored + self.stale > 0
    }
}
