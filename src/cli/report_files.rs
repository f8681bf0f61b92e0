//! The report files a command was asked for (`--json`, `--junit`, `--markdown`,
//! `--html`),
//! written the same way by `run` and by `report merge`.

use std::path::Path;

use super::error::CliError;
use crate::execute::ScenarioReport;
use crate::report::matrix::ClauseOrder;
use crate::report::{self, RunFacts};

/// Where each report file goes, for those asked for.
pub(crate) struct ReportFiles<'a> {
    pub json: Option<&'a Path>,
    pub junit: Option<&'a Path>,
    pub markdown: Option<&'a Path>,
    pub html: Option<&'a Path>,
    /// The order of the page's rows: the spec's, where the suites are known.
    pub order: &'a ClauseOrder,
}

impl ReportFiles<'_> {
    /// Writes every file asked for.
    pub(crate) fn write(&self, run: &RunFacts, reports: &[ScenarioReport]) -> Result<(), CliError> {
        let failed = |path: &Path| {
            let path = path.to_path_buf();
            move |source| CliError::WriteReport { path, source }
        };
        if let Some(path) = self.junit {
            report::write_junit(path, &run.target, reports).map_err(failed(path))?;
        }
        if let Some(path) = self.json {
            report::write_json(path, run, reports).map_err(failed(path))?;
        }
        if let Some(path) = self.markdown {
            report::write_markdown(path, &run.target, reports).map_err(failed(path))?;
        }
        if let Some(path) = self.html {
            report::write_html(path, run, reports, self.order).map_err(failed(path))?;
        }
        Ok(())
    }
}
