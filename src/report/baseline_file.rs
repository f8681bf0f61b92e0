//! The baseline file `run --write-baseline` writes, for a target file's
//! `baseline_file:`: the ids of the scenarios that failed, errored or were flaky,
//! in run order, gathered as the reports go by instead of keeping the reports.

use crate::execute::{ScenarioReport, Verdict};

/// The ids a baseline file lists, so far.
#[derive(Debug, Default)]
pub(crate) struct BaselineFile {
    ids: Vec<String>,
}

impl BaselineFile {
    /// Lists the scenario of `report` if it failed, errored or was flaky.
    pub(crate) fn consider(&mut self, report: &ScenarioReport) {
        if report.is_flaky() || matches!(report.verdict, Verdict::Fail(_) | Verdict::Error { .. }) {
            self.ids.push(report.id.clone());
        }
    }

    /// The file's text: a comment saying what it is, then an id a line.
    pub(crate) fn text(&self) -> String {
        let mut text = String::from(
            "# Scenarios that fail on this target; name this file in `baseline_file:`.\n",
        );
        for id in &self.ids {
            text.push_str(id);
            text.push('\n');
        }
        text
    }
}
