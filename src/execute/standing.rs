//! What a scenario's verdict means for the run once the target's baseline of known
//! failures is applied, and the counts every report gives: the summary line, JSON,
//! JUnit and Markdown all count with [`Tally`], so they cannot disagree.

use std::fmt::{self, Write as _};

use crate::execute::{Excuse, ScenarioReport, Verdict};
use crate::scenario::Basis;

/// What a scenario's verdict means for the run, once the baseline is applied.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Standing {
    Passed,
    Failed,
    Errored,
    Skipped,
    /// The server does not list a suite tool the scenario calls.
    Unsupported,
    /// Repeated attempts came to different verdicts.
    Flaky,
    /// Failed, errored or flaky, and excused by the baseline: does not fail the run.
    KnownFailure,
    /// A baseline entry that excuses nothing: the scenario, or the expectation it
    /// names, holds now. It fails the run, so baselines only ever shrink.
    StaleBaseline,
    /// Did not pass, but arrived in a suite version after the one the target pins:
    /// reported, and left for the day the pin is raised.
    New,
    /// Reached a place beside its root while meant to stay inside it: fails the
    /// run whatever the baseline or the pin says.
    Escaped,
}

impl Standing {
    pub(crate) fn of(report: &ScenarioReport) -> Standing {
        let standing = Standing::judged(report);
        if standing != Standing::Escaped
            && standing.breaks_the_run()
            && report.is_newer_than_the_pin()
        {
            Standing::New
        } else {
            standing
        }
    }

    /// The standing before the target's pin is considered.
    fn judged(report: &ScenarioReport) -> Standing {
        let escaped = |v: &Verdict| matches!(v, Verdict::Escape(_));
        if escaped(&report.verdict) || report.attempts.iter().any(escaped) {
            return Standing::Escaped;
        }
        if report.is_flaky() {
            return match report.excuse {
                Excuse::Whole => Standing::KnownFailure,
                _ => Standing::Flaky,
            };
        }
        match (&report.verdict, &report.excuse) {
            (Verdict::Pass, Excuse::None) => Standing::Passed,
            (Verdict::Pass, _) => Standing::StaleBaseline,
            (Verdict::Skip(_), _) => Standing::Skipped,
            (Verdict::Unsupported(_), _) => Standing::Unsupported,
            (Verdict::Fail(_) | Verdict::Error { .. }, Excuse::Whole) => Standing::KnownFailure,
            (Verdict::Fail(mismatches), Excuse::Expectations(keys)) => {
                let all_excused = mismatches.iter().all(|m| report.excuse.covers(m));
                let every_entry_used = keys.iter().all(|k| {
                    mismatches
                        .iter()
                        .any(|m| crate::judge::key_covers(k, &m.key))
                });
                match (all_excused, every_entry_used) {
                    (false, _) => Standing::Failed,
                    (true, false) => Standing::StaleBaseline,
                    (true, true) => Standing::KnownFailure,
                }
            }
            (Verdict::Fail(_), Excuse::None) => Standing::Failed,
            (Verdict::Error { .. }, _) => Standing::Errored,
            (Verdict::Escape(_), _) => Standing::Escaped,
        }
    }

    /// Whether this standing makes the run fail.
    pub(crate) fn breaks_the_run(self) -> bool {
        matches!(
            self,
            Standing::Failed
                | Standing::Errored
                | Standing::Flaky
                | Standing::StaleBaseline
                | Standing::Escaped
        )
    }

    /// The standing's word in reports, as the summary line counts it.
    pub(crate) fn label(self) -> &'static str {
        match self {
            Standing::Passed => "PASS",
            Standing::Failed => "FAIL",
            Standing::Errored => "ERROR",
            Standing::Skipped => "SKIP",
            Standing::Unsupported => "UNSUPPORTED",
            Standing::Flaky => "FLAKY",
            Standing::KnownFailure => "KNOWN",
            Standing::StaleBaseline => "STALE",
            Standing::New => "NEW",
            Standing::Escaped => "ESCAPE",
        }
    }
}

/// How many scenarios of one conformance level passed, of how many judged.
///
/// SKIP is left out (the target could not be asked); UNSUPPORTED stays in, so a
/// server that lists one tool does not score 100%. A stale baseline entry's
/// scenario passed, so it counts as passed.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Score {
    pub passed: usize,
    pub total: usize,
}

impl Score {
    fn count(&mut self, standing: Standing) {
        if standing == Standing::Skipped {
            return;
        }
        self.total += 1;
        if matches!(standing, Standing::Passed | Standing::StaleBaseline) {
            self.passed += 1;
        }
    }

    fn add(&mut self, other: &Score) {
        self.passed += other.passed;
        self.total += other.total;
    }
}

impl fmt::Display for Score {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "{}/{}", self.passed, self.total)
    }
}

/// Counts of each standing, and the score of each conformance level.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Tally {
    pub passed: usize,
    pub failed: usize,
    pub errored: usize,
    pub skipped: usize,
    pub unsupported: usize,
    pub known: usize,
    pub flaky: usize,
    pub stale: usize,
    pub new: usize,
    pub escaped: usize,
    /// Scenarios whose basis is the spec: the figure a conformance claim gives.
    pub spec: Score,
    /// Scenarios whose basis is the upstream program.
    pub upstream: Score,
}

impl Tally {
    pub(crate) fn of(reports: &[ScenarioReport]) -> Tally {
        let mut t = Tally::default();
        for r in reports {
            t.count(r);
        }
        t
    }

    /// Counts one scenario's report.
    pub(crate) fn count(&mut self, report: &ScenarioReport) {
        let standing = Standing::of(report);
        match standing {
            Standing::Passed => self.passed += 1,
            Standing::Failed => self.failed += 1,
            Standing::Errored => self.errored += 1,
            Standing::Skipped => self.skipped += 1,
            Standing::Unsupported => self.unsupported += 1,
            Standing::Flaky => self.flaky += 1,
            Standing::KnownFailure => self.known += 1,
            Standing::StaleBaseline => self.stale += 1,
            Standing::New => self.new += 1,
            Standing::Escaped => self.escaped += 1,
        }
        match report.basis {
            Basis::Spec => self.spec.count(standing),
            Basis::Upstream => self.upstream.count(standing),
        }
    }

    pub(crate) fn add(&mut self, other: &Tally) {
        self.passed += other.passed;
        self.failed += other.failed;
        self.errored += other.errored;
        self.skipped += other.skipped;
        self.unsupported += other.unsupported;
        self.known += other.known;
        self.flaky += other.flaky;
        self.stale += other.stale;
        self.new += other.new;
        self.escaped += other.escaped;
        self.spec.add(&other.spec);
        self.upstream.add(&other.upstream);
    }

    /// Scenarios counted, whatever their standing.
    pub(crate) fn scenarios(&self) -> usize {
        self.passed
            + self.failed
            + self.errored
            + self.skipped
            + self.unsupported
            + self.known
            + self.flaky
            + self.stale
            + self.new
            + self.escaped
    }

    /// Scenarios whose server was asked and judged: neither SKIP nor UNSUPPORTED.
    pub(crate) fn judged(&self) -> usize {
        self.scenarios() - self.skipped - self.unsupported
    }

    pub(crate) fn breaks_the_run(&self) -> bool {
        self.failed + self.errored + self.flaky + self.stale + self.escaped > 0
    }

    /// The counts as the summary line gives them, without its name:
    /// `40 PASS, 3 FAIL, 0 ERROR, 1 SKIP, 24 UNSUPPORTED, 2 KNOWN, 0 FLAKY (spec
    /// 38/41, upstream 2/3)`, with `, N STALE` and `, N NEW` before the scores when
    /// there are any, and `N ESCAPE, ` first when there is one: it matters most.
    pub(crate) fn counts_line(&self) -> String {
        let mut line = String::new();
        if self.escaped > 0 {
            let _ = write!(line, "{} ESCAPE, ", self.escaped);
        }
        let _ = write!(
            line,
            "{} PASS, {} FAIL, {} ERROR, {} SKIP, {} UNSUPPORTED, {} KNOWN, {} FLAKY",
            self.passed,
            self.failed,
            self.errored,
            self.skipped,
            self.unsupported,
            self.known,
            self.flaky
        );
        if self.stale > 0 {
            let _ = write!(line, ", {} STALE", self.stale);
        }
        if self.new > 0 {
            let _ = write!(line, ", {} NEW", self.new);
        }
        let _ = write!(line, " (spec {}, upstream {})", self.spec, self.upstream);
        line
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use super::*;
    use crate::judge::Mismatch;

    fn report(verdict: Verdict, excuse: Excuse, attempts: Vec<Verdict>) -> ScenarioReport {
        ScenarioReport {
            excuse,
            attempts,
            ..ScenarioReport::blank("s::f::x", verdict)
        }
    }

    fn failing(keys: &[&str]) -> Verdict {
        Verdict::Fail(
            keys.iter()
                .map(|k| Mismatch::new(*k, "detail").keyed(*k))
                .collect(),
        )
    }

    fn keys(keys: &[&str]) -> Excuse {
        Excuse::Expectations(keys.iter().map(|k| k.to_string()).collect::<BTreeSet<_>>())
    }

    #[test]
    fn an_expectation_entry_excuses_its_expectation_and_no_other() {
        let of = |verdict, excuse| Standing::of(&report(verdict, excuse, Vec::new()));
        assert_eq!(
            of(failing(&["code"]), keys(&["code"])),
            Standing::KnownFailure
        );
        assert_eq!(
            of(failing(&["code", "text"]), keys(&["code"])),
            Standing::Failed
        );
        assert_eq!(
            of(failing(&["files[a.txt]", "files[b.txt]"]), keys(&["files"])),
            Standing::KnownFailure
        );
        assert_eq!(
            of(failing(&["any_of[1].code"]), keys(&["any_of"])),
            Standing::KnownFailure
        );
        // `contains[1]` is not `contains[10]`'s prefix key, nor is `code` of `codes`.
        assert_eq!(
            of(failing(&["contains[10]"]), keys(&["contains[1]"])),
            Standing::Failed
        );
        // An entry that excuses nothing is stale, even beside one that does.
        assert_eq!(
            of(failing(&["code"]), keys(&["code", "text"])),
            Standing::StaleBaseline
        );
        assert_eq!(of(Verdict::Pass, keys(&["code"])), Standing::StaleBaseline);
        // An expectation entry does not excuse a server that broke.
        let error = Verdict::Error {
            what: "died".into(),
            stderr_tail: String::new(),
        };
        assert_eq!(of(error, keys(&["code"])), Standing::Errored);
    }

    /// No baseline entry and no pin excuses an escape, nor does one attempt in
    /// several hide it; the summary line counts it first.
    #[test]
    fn an_escape_fails_the_run_whatever_the_baseline_or_the_pin_says() {
        let escape = || {
            Verdict::Escape(crate::execute::Escape {
                kind: crate::execute::EscapeKind::Read,
                tool: "view".into(),
                given: "{root}/link.txt".into(),
                reached: "returned the content of {outside}/secret.txt".into(),
            })
        };
        for excuse in [Excuse::None, Excuse::Whole, keys(&["code"])] {
            let r = report(escape(), excuse, Vec::new());
            assert_eq!(Standing::of(&r), Standing::Escaped);
        }
        let pinned = ScenarioReport {
            since: 3,
            pinned: Some(2),
            ..report(escape(), Excuse::None, Vec::new())
        };
        assert_eq!(Standing::of(&pinned), Standing::Escaped);
        let once = report(
            Verdict::Pass,
            Excuse::Whole,
            vec![Verdict::Pass, escape(), Verdict::Pass],
        );
        assert_eq!(Standing::of(&once), Standing::Escaped);
        assert!(Standing::Escaped.breaks_the_run());
        let tally = Tally::of(&[once, report(Verdict::Pass, Excuse::None, Vec::new())]);
        assert!(tally.breaks_the_run());
        assert_eq!(
            tally.counts_line(),
            "1 ESCAPE, 1 PASS, 0 FAIL, 0 ERROR, 0 SKIP, 0 UNSUPPORTED, 0 KNOWN, 0 FLAKY (spec 1/2, upstream 0/0)"
        );
        assert_eq!(
            escape().headline(),
            "ESCAPE read: view {root}/link.txt returned the content of {outside}/secret.txt"
        );
    }

    #[test]
    fn attempts_that_disagree_are_flaky_unless_the_scenario_is_listed() {
        let attempts = || vec![Verdict::Pass, failing(&["code"]), Verdict::Pass];
        let flaky = report(failing(&["code"]), Excuse::None, attempts());
        assert_eq!(Standing::of(&flaky), Standing::Flaky);
        assert!(Standing::Flaky.breaks_the_run());
        let listed = report(failing(&["code"]), Excuse::Whole, attempts());
        assert_eq!(Standing::of(&listed), Standing::KnownFailure);
        let steady = report(
            failing(&["code"]),
            Excuse::None,
            vec![failing(&["code"]), failing(&["text"])],
        );
        assert_eq!(Standing::of(&steady), Standing::Failed);
    }

    #[test]
    fn scores_keep_unsupported_and_leave_skip_out() {
        let reports = [
            report(Verdict::Pass, Excuse::None, Vec::new()),
            report(
                Verdict::Unsupported("no view".into()),
                Excuse::None,
                Vec::new(),
            ),
            report(Verdict::Skip("root".into()), Excuse::None, Vec::new()),
            report(failing(&["code"]), Excuse::Whole, Vec::new()),
        ];
        let tally = Tally::of(&reports);
        assert_eq!(
            tally.spec,
            Score {
                passed: 1,
                total: 3
            }
        );
        assert_eq!(tally.upstream, Score::default());
        assert_eq!(tally.judged(), 2);
        assert_eq!(
            tally.counts_line(),
            "1 PASS, 0 FAIL, 0 ERROR, 1 SKIP, 1 UNSUPPORTED, 1 KNOWN, 0 FLAKY (spec 1/3, upstream 0/0)"
        );
    }
}
