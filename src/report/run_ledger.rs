//! `toolspec run`'s counts as its reports are handed on, in the run's order: each
//! suite's tally, and each suite closed once its last report has gone by (its
//! summary line, its facts for the report files), then the next one opened (the
//! notes its server's tool list gave), so the output reads as if the suites had
//! run one after the other although their scenarios share one pool.

use std::time::Instant;

use super::text::suite_summary;
use super::{RunFacts, SuiteFacts, Tally};
use crate::catalogue::Catalogue;
use crate::execute::plan::SuitePlan;
use crate::execute::ScenarioReport;

/// The suites of a run, the ones whose reports have all gone by closed.
pub(crate) struct RunLedger<'p, 's> {
    plans: &'p [SuitePlan<'s>],
    catalogue: &'p Catalogue,
    /// When the run's scenarios began, for each suite's summary line.
    started: Instant,
    tallies: Vec<Tally>,
    /// The suite open now; every one before it is closed.
    open: usize,
    facts: Vec<SuiteFacts>,
    grand: Tally,
    /// The target of the last suite closed, which the reports name.
    target: String,
}

impl<'p, 's> RunLedger<'p, 's> {
    /// A ledger of `plans`, whose scenarios began at `started`, with the first
    /// suite open.
    pub(crate) fn new(
        plans: &'p [SuitePlan<'s>],
        catalogue: &'p Catalogue,
        started: Instant,
    ) -> Self {
        RunLedger {
            plans,
            catalogue,
            started,
            tallies: vec![Tally::default(); plans.len()],
            open: 0,
            facts: Vec::new(),
            grand: Tally::default(),
            target: String::new(),
        }
    }

    /// The lines the first suite opens with.
    pub(crate) fn opening_notes(&self) -> &[String] {
        self.notes_of(0)
    }

    /// Counts a report of the suite at `k`.
    pub(crate) fn count(&mut self, k: usize, report: &ScenarioReport) {
        self.tallies[k].count(report);
    }

    /// Closes every suite before `upto` still open, and returns what to say for
    /// each, in order: its summary line, then the notes of the suite it opens.
    pub(crate) fn close_through(&mut self, upto: usize) -> Vec<String> {
        let mut lines = Vec::new();
        while self.open < upto {
            lines.push(self.close_open_suite());
            self.open += 1;
            lines.extend(self.notes_of(self.open).iter().cloned());
        }
        lines
    }

    /// The counts of the whole run, and what the report files say of it besides
    /// its scenarios, once every suite is closed.
    pub(crate) fn finish(
        self,
        isolation: Vec<String>,
        partition: Option<String>,
    ) -> (Tally, RunFacts) {
        let run = RunFacts {
            target: self.target,
            isolation,
            partition,
            suites: self.facts,
        };
        (self.grand, run)
    }

    fn notes_of(&self, k: usize) -> &[String] {
        self.plans
            .get(k)
            .map(|p| p.notes.as_slice())
            .unwrap_or_default()
    }

    /// The summary line of the open suite, whose reports have all been handed on;
    /// its facts are kept for the reports and its tally added to the run's.
    fn close_open_suite(&mut self) -> String {
        let plan = &self.plans[self.open];
        let tally = &self.tallies[self.open];
        let suite = plan.suite;
        let mut origin = self
            .catalogue
            .origin(&suite.name)
            .map(|o| o.describe())
            .unwrap_or_default();
        self.facts.push(SuiteFacts {
            name: suite.name.clone(),
            version: suite.config.version,
            origin: origin.clone(),
        });
        origin.push_str(&format!(", version {}", suite.config.version));
        if let Some(pin) = plan.target.pins.get(&suite.name) {
            origin.push_str(&format!(", pinned at {pin}"));
        }
        let summary = suite_summary(
            &suite.name,
            tally,
            self.started.elapsed(),
            &plan.target.name,
            &origin,
        );
        self.grand.add(tally);
        self.target.clone_from(&plan.target.name);
        summary
    }
}
