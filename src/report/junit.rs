//! JUnit XML, the format CI pages read: one `<testsuite>` per suite, one
//! `<testcase>` per scenario. Known failures are reported as passing with their
//! failure in `<system-out>`, so a CI page stays green exactly when the run does;
//! each suite's counts, as the summary line gives them, are its properties.

use std::fmt::Write as _;
use std::path::Path;

use super::Standing;
use crate::execute::{ScenarioReport, Verdict};

pub(crate) fn write_junit(
    path: &Path,
    target: &str,
    reports: &[ScenarioReport],
) -> std::io::Result<()> {
    let mut xml = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let _ = writeln!(xml, "<testsuites name=\"toolspec {}\">", escape(target));
    for (suite, tally) in super::by_suite(reports) {
        let cases: Vec<&ScenarioReport> = reports
            .iter()
            .filter(|r| super::suite_of(&r.id) == suite)
            .collect();
        let time: f64 = cases.iter().map(|r| r.elapsed.as_secs_f64()).sum();
        // JUnit knows failures, errors and skips; FLAKY and STALE fail the run, so
        // they are failures here, and UNSUPPORTED is a skip. The summary line's own
        // counts follow as properties.
        let _ = writeln!(
            xml,
            "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"{}\" skipped=\"{}\" time=\"{time:.3}\">",
            escape(&suite),
            cases.len(),
            tally.failed + tally.flaky + tally.stale,
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
            ("spec", tally.spec.to_string()),
            ("upstream", tally.upstream.to_string()),
        ] {
            let _ = writeln!(
                xml,
                "      <property name=\"toolspec.{name}\" value=\"{value}\"/>"
            );
        }
        xml.push_str("    </properties>\n");
        for r in cases {
            let mut parts = r.id.splitn(3, "::");
            let (_, file, name) = (
                parts.next(),
                parts.next().unwrap_or_default(),
                parts.next().unwrap_or_default(),
            );
            let _ = write!(
                xml,
                "    <testcase classname=\"{}.{}\" name=\"{}\" time=\"{:.3}\">",
                escape(&suite),
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
        xml.push_str("  </testsuite>\n");
    }
    xml.push_str("</testsuites>\n");
    std::fs::write(path, xml)
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
