//! The report files a command was asked for (`--json`, `--junit`, `--markdown`,
//! `--html`),
//! written the same way by `run` and by `report merge`.

use std::path::Path;

use super::error::CliError;
use crate::execute::ScenarioReport;
use crate::report::matrix::ClauseOrder;
use crate::report::{self, JsonStream, JunitStream, RunFacts};

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

/// The report files of `run`, written as the run goes. JSON and JUnit are streamed
/// (`report::JsonStream`, `report::JunitStream`), so their memory does not grow
/// with the run; Markdown and the results page are built from every report at
/// once, so reports are kept only when one of them is asked for. Every file is
/// written when the run ends, and a failure to write one is reported then, as
/// when the files were built whole.
pub(crate) struct ReportStreams<'a> {
    files: ReportFiles<'a>,
    json: Option<std::io::Result<JsonStream>>,
    junit: Option<std::io::Result<JunitStream>>,
    kept: Vec<ScenarioReport>,
}

impl<'a> ReportStreams<'a> {
    /// Streams for the files asked for.
    pub(crate) fn new(files: ReportFiles<'a>) -> ReportStreams<'a> {
        ReportStreams {
            json: files.json.map(JsonStream::new),
            junit: files.junit.map(JunitStream::new),
            files,
            kept: Vec::new(),
        }
    }

    /// Adds the next report, in the run's order.
    pub(crate) fn add(&mut self, report: ScenarioReport) {
        if let Some(Ok(stream)) = &mut self.json {
            if let Err(e) = stream.add(&report) {
                self.json = Some(Err(e));
            }
        }
        if let Some(Ok(stream)) = &mut self.junit {
            if let Err(e) = stream.add(&report) {
                self.junit = Some(Err(e));
            }
        }
        if self.files.markdown.is_some() || self.files.html.is_some() {
            self.kept.push(report);
        }
    }

    /// Writes every file asked for, in the order [`ReportFiles::write`] does.
    pub(crate) fn finish(self, run: &RunFacts) -> Result<(), CliError> {
        let failed = |path: Option<&Path>| {
            let path = path.map(Path::to_path_buf).unwrap_or_default();
            move |source| CliError::WriteReport { path, source }
        };
        if let Some(stream) = self.junit {
            stream
                .and_then(|s| s.finish(&run.target))
                .map_err(failed(self.files.junit))?;
        }
        if let Some(stream) = self.json {
            stream
                .and_then(|s| s.finish(run))
                .map_err(failed(self.files.json))?;
        }
        let rest = ReportFiles {
            json: None,
            junit: None,
            ..self.files
        };
        rest.write(run, &self.kept)
    }
}
