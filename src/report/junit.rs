//! JUnit XML, the format CI pages read: one `<testsuite>` per suite, one
//! `<testcase>` per scenario. Known failures are reported as passing with their
//! failure in `<system-out>`, so a CI page stays green exactly when the run does;
//! each suite's counts, as the summary line gives them, are its properties.

use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};

use super::spill::Spill;
use super::{Standing, Tally};
use crate::execute::{ScenarioReport, Verdict};

/// Writes the JUnit file of `reports` (run against `target`) to `path`.
pub(crate) fn write_junit(
    path: &Path,
    target: &str,
    reports: &[ScenarioReport],
) -> std::io::Result<()> {
    let mut xml = opening(target);
    for (suite, tally) in super::by_suite(reports) {
        let cases: Vec<&ScenarioReport> = reports
            .iter()
            .filter(|r| super::suite_of(&r.id) == suite)
            .collect();
        let time: f64 = cases.iter().map(|r| r.elapsed.as_secs_f64()).sum();
        suite_opening(&mut xml, &suite, &tally, cases.len(), time);
        for r in cases {
            case(&mut xml, &suite, r);
        }
        xml.push_str(SUITE_CLOSING);
    }
    xml.push_str(CLOSING);
    std::fs::write(path, xml)
}

const SUITE_CLOSING: &str = "  </testsuite>\n";
const CLOSING: &str = "</testsuites>\n";

/// The XML declaration and the opening `<testsuites>`.
fn opening(target: &str) -> String {
    let mut xml = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let _ = writeln!(xml, "<testsuites name=\"toolspec {}\">", escape(target));
    xml
}

/// A suite's opening `<testsuite>` with its counts, of `cases` scenarios that took
/// `time` seconds in all, and its properties.
fn suite_opening(xml: &mut String, suite: &str, tally: &Tally, cases: usize, time: f64) {
    // JUnit knows failures, errors and skips; ESCAPE, FLAKY and STALE fail the
    // run, so they are failures here, and UNSUPPORTED is a skip. The summary line's own
    // counts follow as properties.
    let _ = writeln!(
        xml,
        "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"{}\" skipped=\"{}\" time=\"{time:.3}\">",
        escape(suite),
        cases,
        tally.failed + tally.flaky + tally.stale + tally.escaped,
        tally.errored,
        tally.skipped + tally.unsupported,
    );
    xml.push_str("    <properties>\n");
    for (name, value) in [
        ("PASS", tally.passed.to_string()),
        ("FAIL", tally.failed.to_string()),
        ("ERROR", tally.errored.to_string()),
        ("SKIP", tally.skipped.to_string()),
        ("UNSUPPORTED", tally.unsupported.to_string()),
        ("KNOWN", tally.known.to_string()),
        ("FLAKY", tally.flaky.to_string()),
        ("STALE", tally.stale.to_string()),
        ("NEW", tally.new.to_string()),
        ("ESCAPE", tally.escaped.to_string()),
        ("spec", tally.spec.to_string()),
        ("upstream", tally.upstream.to_string()),
    ] {
        let _ = writeln!(
            xml,
            "      <property name=\"toolspec.{name}\" value=\"{value}\"/>"
        );
    }
    xml.push_str("    </properties>\n");
}

/// One scenario's `<testcase>`.
fn case(xml: &mut String, suite: &str, r: &ScenarioReport) {
    let mut parts = r.id.splitn(3, "::");
    let (_, file, name) = (
        parts.next(),
        parts.next().unwrap_or_default(),
        parts.next().unwrap_or_default(),
    );
    let _ = write!(
        xml,
        "    <testcase classname=\"{}.{}\" name=\"{}\" time=\"{:.3}\">",
        escape(suite),
        escape(file),
        escape(name),
        r.elapsed.as_secs_f64()
    );
    let body = escape(&r.to_string());
    match (Standing::of(r), &r.verdict) {
        (Standing::Passed, _) => {}
        (
            Standing::Skipped | Standing::Unsupported,
            Verdict::Skip(why) | Verdict::Unsupported(why),
        ) => {
            let _ = write!(
                xml,
                "<skipped message=\"{}: {}\"/>",
                r.verdict.label(),
                escape(why)
            );
        }
        (Standing::Errored, _) => {
            let _ = write!(xml, "<error message=\"server error\">{body}</error>");
        }
        (Standing::Escaped, _) => {
            let _ = write!(
                xml,
                "<failure message=\"escape: the server reached a place outside its root\">{body}</failure>"
            );
        }
        (Standing::StaleBaseline, _) => {
            let _ = write!(
                xml,
                "<failure message=\"stale baseline entry: what it names passes now; remove it from the baseline\">{body}</failure>"
            );
        }
        (Standing::Flaky, _) => {
            let _ = write!(
                xml,
                "<failure message=\"flaky: the attempts did not all come to the same verdict\">{body}</failure>"
            );
        }
        (Standing::New, _) => {
            let _ = write!(
                xml,
                "<system-out>NEW: newer than the pinned suite version\n{body}</system-out>"
            );
        }
        (Standing::KnownFailure, _) => {
            let _ = write!(
                xml,
                "<system-out>known failure (baseline)\n{body}</system-out>"
            );
        }
        _ => {
            let _ = write!(
                xml,
                "<failure message=\"expectation did not hold\">{body}</failure>"
            );
        }
    }
    xml.push_str("</testcase>\n");
}

/// The JUnit file written as the run goes, the same bytes as [`write_junit`] gives
/// for the same reports in suite order (as `run` makes them): each scenario's case
/// is set aside on disk as it ends, and a suite's section (whose opening tag holds
/// its counts) is put together when its last case is in. Memory does not grow
/// with the run; the file itself is written at the end.
pub(crate) struct JunitStream {
    path: PathBuf,
    /// The sections of the suites that ended.
    done: Spill,
    /// The suite whose cases are coming in, if one is.
    current: Option<SuiteSection>,
}

/// The cases of one suite so far, with what its opening tag says of them.
struct SuiteSection {
    name: String,
    tally: Tally,
    cases: usize,
    time: f64,
    spilled: Spill,
}

impl JunitStream {
    /// A report to be written to `path` once the run ends.
    pub(crate) fn new(path: &Path) -> std::io::Result<JunitStream> {
        Ok(JunitStream {
            path: path.to_path_buf(),
            done: Spill::new()?,
            current: None,
        })
    }

    /// Adds the next scenario's report; a report of another suite ends the section
    /// of the one before.
    pub(crate) fn add(&mut self, report: &ScenarioReport) -> std::io::Result<()> {
        let suite = super::suite_of(&report.id);
        if self.current.as_ref().is_some_and(|s| s.name != suite) {
            self.end_section()?;
        }
        let section = match &mut self.current {
            Some(section) => section,
            None => self.current.insert(SuiteSection {
                name: suite.to_string(),
                tally: Tally::default(),
                cases: 0,
                time: 0.0,
                spilled: Spill::new()?,
            }),
        };
        section.tally.count(report);
        section.cases += 1;
        section.time += report.elapsed.as_secs_f64();
        let mut xml = String::new();
        case(&mut xml, suite, report);
        section.spilled.push(&xml)
    }

    fn end_section(&mut self) -> std::io::Result<()> {
        let Some(mut section) = self.current.take() else {
            return Ok(());
        };
        let mut xml = String::new();
        suite_opening(
            &mut xml,
            &section.name,
            &section.tally,
            section.cases,
            section.time,
        );
        self.done.push(&xml)?;
        self.done.append(&mut section.spilled)?;
        self.done.push(SUITE_CLOSING)
    }

    /// Writes the file, of a run against `target`.
    pub(crate) fn finish(mut self, target: &str) -> std::io::Result<()> {
        self.end_section()?;
        let mut file = std::io::BufWriter::new(std::fs::File::create(&self.path)?);
        file.write_all(opening(target).as_bytes())?;
        self.done.copy_into(&mut file)?;
        file.write_all(CLOSING.as_bytes())?;
        file.flush()
    }
}

/// Escapes text for XML attributes and content; drops characters XML 1.0 forbids.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\t' | '\n' | '\r' => out.push(c),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{{{:x}}}", c as u32);
            }
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::escape;

    #[test]
    fn escapes_markup_and_control_characters() {
        assert_eq!(
            escape("a<b & \"c\"\u{0}"),
            "a&lt;b &amp; &quot;c&quot;\\u{0}"
        );
    }
}
