//! The report a person reads in a terminal or a CI log: one block per scenario that
//! did not pass (or every one with `--verbose`), then a summary line per suite and
//! one for the run.
//!
//! Colour is chosen while writing, from what each line is (a verdict header, a diff
//! line, a caret, a note), never guessed afterwards from how finished text looks:
//! a line of server stderr that starts with `-` is the server's, not a diff's.

use std::fmt;
use std::time::Duration;

use super::{Standing, Tally};
use crate::execute::{Excuse, ScenarioReport, Verdict};
use crate::scenario::Basis;

/// Whether to write ANSI colour, and the colour of each kind of line.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Styles {
    colour: bool,
}

/// The kinds of line that get a colour.
#[derive(Debug, Clone, Copy)]
enum Tone {
    /// FAIL and ERROR headers.
    Broken,
    /// PASS headers, and `+` (actual) diff lines.
    Good,
    /// SKIP and STALE headers, and the caret under a first difference.
    Warn,
    /// `-` (expected) diff lines.
    Removed,
    /// Notes.
    Dim,
}

impl Styles {
    /// Plain text, as written to files and pipes.
    pub(crate) fn plain() -> Styles {
        Styles { colour: false }
    }

    /// ANSI colour when `colour` is true.
    pub(crate) fn coloured(colour: bool) -> Styles {
        Styles { colour }
    }

    /// Writes one line, with whatever a server put in it made inert
    /// ([`crate::visible::inert`]) before any colour of ours is added.
    fn line(self, out: &mut impl fmt::Write, tone: Option<Tone>, text: &str) -> fmt::Result {
        let text = crate::visible::inert(text);
        match tone.filter(|_| self.colour) {
            None => writeln!(out, "{text}"),
            Some(tone) => {
                let code = match tone {
                    Tone::Broken => "\x1b[1;31m",
                    Tone::Good => "\x1b[32m",
                    Tone::Warn => "\x1b[33m",
                    Tone::Removed => "\x1b[31m",
                    Tone::Dim => "\x1b[2m",
                };
                writeln!(out, "{code}{text}\x1b[0m")
            }
        }
    }
}

/// The tone of a line of a mismatch's detail, which the judge wrote: unified diff
/// lines (`-`, `+`, the caret) and notes stand out, the rest is plain.
fn detail_tone(line: &str) -> Option<Tone> {
    let body = line.trim_start();
    if body.starts_with("--- expected") || body.starts_with("+++ actual") {
        None
    } else if body.starts_with('-') {
        Some(Tone::Removed)
    } else if body.starts_with('+') {
        Some(Tone::Good)
    } else if body.starts_with('^') {
        Some(Tone::Warn)
    } else if body.starts_with("note:") {
        Some(Tone::Dim)
    } else {
        None
    }
}

/// Writes the block of one scenario: its verdict, what did not hold (with diffs),
/// the call, warnings, the fixture root and the scenario's notes.
pub(crate) fn write_scenario(
    out: &mut impl fmt::Write,
    report: &ScenarioReport,
    styles: Styles,
) -> fmt::Result {
    let id = &report.id;
    match Standing::of(report) {
        Standing::StaleBaseline => match &report.excuse {
            Excuse::Expectations(keys) => {
                for key in keys {
                    styles.line(
                        out,
                        Some(Tone::Warn),
                        &format!(
                            "STALE {id}#{key}: listed in the baseline, but nothing it names fails now; remove it from the baseline"
                        ),
                    )?;
                }
            }
            _ => styles.line(
                out,
                Some(Tone::Warn),
                &format!(
                    "STALE {id}: listed in the baseline but passes now; remove it from the baseline"
                ),
            )?,
        },
        Standing::KnownFailure => {
            styles.line(out, None, "(known failure, listed in the baseline)")?;
        }
        Standing::New => {
            styles.line(
                out,
                Some(Tone::Warn),
                &format!(
                    "NEW {id}: arrived in suite version {}, after the version the target pins ({}); it does not fail the run until the pin is raised",
                    report.since,
                    report.pinned.unwrap_or_default()
                ),
            )?;
        }
        Standing::Flaky => {
            styles.line(
                out,
                Some(Tone::Broken),
                &format!(
                    "FLAKY {id}: {} attempts, not all with the same verdict",
                    report.attempts.len()
                ),
            )?;
            for (i, attempt) in report.attempts.iter().enumerate() {
                styles.line(
                    out,
                    None,
                    &format!("  attempt {}: {}", i + 1, attempt.headline()),
                )?;
            }
        }
        _ => {}
    }
    match &report.verdict {
        Verdict::Pass => styles.line(out, Some(Tone::Good), &format!("PASS {id}"))?,
        Verdict::Escape(escape) => {
            styles.line(out, Some(Tone::Broken), &escape.line())?;
            styles.line(
                out,
                Some(Tone::Broken),
                &format!(
                    "  in {id}: the server is meant to stay inside its root; no baseline excuses this (docs/confinement.md)"
                ),
            )?;
        }
        Verdict::Skip(why) => styles.line(out, Some(Tone::Warn), &format!("SKIP {id}: {why}"))?,
        Verdict::Unsupported(why) => {
            styles.line(out, Some(Tone::Warn), &format!("UNSUPPORTED {id}: {why}"))?
        }
        Verdict::Fail(mismatches) => {
            styles.line(out, Some(Tone::Broken), &format!("FAIL {id}"))?;
            for m in mismatches {
                let excused = if matches!(report.excuse, Excuse::Expectations(_))
                    && report.excuse.covers(m)
                {
                    ", known: the baseline excuses it"
                } else {
                    ""
                };
                let named = if m.key.is_empty() {
                    String::new()
                } else {
                    format!(" [{id}#{}{excused}]", m.key)
                };
                styles.line(
                    out,
                    None,
                    &format!("  expectation `{}` did not hold{named}:", m.expectation),
                )?;
                for line in m.detail.lines() {
                    styles.line(out, detail_tone(line), &format!("    {line}"))?;
                }
            }
        }
        Verdict::Error { what, stderr_tail } => {
            styles.line(out, Some(Tone::Broken), &format!("ERROR {id}: {what}"))?;
            if !stderr_tail.trim().is_empty() {
                styles.line(out, None, "  server stderr (tail):")?;
                for line in stderr_tail.lines() {
                    styles.line(out, None, &format!("    {line}"))?;
                }
            }
        }
    }
    if !report.call.is_empty() {
        styles.line(out, None, &format!("  call: {}", report.call))?;
    }
    if !matches!(
        report.verdict,
        Verdict::Pass | Verdict::Skip(_) | Verdict::Unsupported(_)
    ) {
        for warning in &report.warnings {
            styles.line(out, None, &format!("  warning: {warning}"))?;
        }
    }
    if !report.root.is_empty() && !matches!(report.verdict, Verdict::Pass | Verdict::Unsupported(_))
    {
        let kept = if report.root_kept {
            " (kept)"
        } else {
            " (removed; --keep-failed keeps it)"
        };
        styles.line(out, None, &format!("  fixture root: {}{kept}", report.root))?;
    }
    if let Some(denied) = &report.isolation_denied {
        styles.line(out, Some(Tone::Warn), &format!("  {denied}"))?;
    }
    if matches!(report.verdict, Verdict::Fail(_)) {
        if report.basis == Basis::Upstream {
            styles.line(
                out,
                None,
                "  basis: upstream (the seed is silent here; the scenario checks what the upstream program does)",
            )?;
        }
        if let Some(note) = &report.note {
            styles.line(out, Some(Tone::Dim), &format!("  note: {}", note.trim()))?;
        }
    }
    Ok(())
}

/// One scenario's block as a string.
pub(crate) fn scenario_text(report: &ScenarioReport, styles: Styles) -> String {
    let mut text = String::new();
    // Writing to a String cannot fail.
    let _ = write_scenario(&mut text, report, styles);
    text
}

impl fmt::Display for ScenarioReport {
    /// The failure text a person acts on: which expectation, the diff, the call, the root.
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write_scenario(f, self, Styles::plain())
    }
}

/// The line that ends a suite: its counts and scores (see [`Tally::counts_line`]),
/// time, target, and where the suite came from (`built-in`, `from DIR`).
pub(crate) fn suite_summary(
    suite: &str,
    tally: &Tally,
    elapsed: Duration,
    target: &str,
    origin: &str,
) -> String {
    format!(
        "{suite}: {} in {:.1}s (target: {target}; suite: {origin})",
        tally.counts_line(),
        elapsed.as_secs_f64()
    )
}

/// The line that ends a run: the same counts over every suite.
pub(crate) fn run_summary(grand: &Tally) -> String {
    format!("total: {}", grand.counts_line())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::judge::Mismatch;

    fn failing(detail: &str, stderr: Option<&str>) -> ScenarioReport {
        let verdict = match stderr {
            Some(tail) => Verdict::Error {
                what: "died".into(),
                stderr_tail: tail.into(),
            },
            None => Verdict::Fail(vec![Mismatch::new("text", detail)]),
        };
        ScenarioReport {
            call: "view {}".into(),
            ..ScenarioReport::blank("s::f::x", verdict)
        }
    }

    #[test]
    fn diff_lines_are_coloured_and_the_rest_is_not() {
        let text = scenario_text(
            &failing("--- expected\n-old\n+new\n ^ first", None),
            Styles::coloured(true),
        );
        assert!(text.contains("\x1b[1;31mFAIL s::f::x\x1b[0m"), "{text}");
        assert!(text.contains("\x1b[31m    -old\x1b[0m"), "{text}");
        assert!(text.contains("\x1b[32m    +new\x1b[0m"), "{text}");
        assert!(text.contains("\x1b[33m     ^ first\x1b[0m"), "{text}");
        assert!(text.contains("\n    --- expected\n"), "{text}");
        assert!(text.contains("\n  call: view {}\n"), "{text}");
    }

    #[test]
    fn server_stderr_is_never_painted_as_a_diff() {
        let text = scenario_text(
            &failing("", Some("-rw-r--r-- x\n+ y")),
            Styles::coloured(true),
        );
        assert!(text.contains("\n    -rw-r--r-- x\n    + y\n"), "{text}");
    }

    #[test]
    fn plain_styles_write_no_escapes() {
        let text = scenario_text(&failing("-old\n+new", None), Styles::plain());
        assert!(!text.contains('\x1b'), "{text}");
    }
}
