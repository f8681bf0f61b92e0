//! The live progress line of `toolspec explore` at a terminal: cases done (of the
//! total, or the seconds left of a time budget), divergences so far, and the phase
//! the run is in when it is not exploring (shrinking, once a divergence is shrunk).
//!
//! As `run`'s line (`progress.rs`): only when stderr is a terminal, and only once
//! the run has gone on for [`QUIET_FOR`], so a quick run, a pipe, a CI log and the
//! golden outputs see nothing of it. Explore prints its report after the cases have
//! run, so the line is cleared before anything is printed.

use std::io::IsTerminal;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use super::progress::QUIET_FOR;
use crate::explore::cases::budget::Budget;
use crate::explore::cases::watch::Watch;
use crate::explore::compare::differential::CaseOutcome;
use crate::explore::compare::differential::ExploredCase;

/// An explore run's progress line.
pub(crate) struct ExploreProgress {
    /// None when stderr is not a terminal: nothing is drawn, ever.
    bar: Option<ProgressBar>,
    started: Instant,
    divergences: AtomicU64,
    phase: Mutex<String>,
}

impl ExploreProgress {
    /// The progress of a run of `suite` within `budget`, drawn only if stderr is
    /// a terminal.
    pub(crate) fn new(suite: &str, budget: Budget) -> ExploreProgress {
        ExploreProgress::drawn_if(std::io::stderr().is_terminal(), suite, budget)
    }

    /// As [`ExploreProgress::new`], with whether stderr is a terminal said by the
    /// caller.
    pub(crate) fn drawn_if(terminal: bool, suite: &str, budget: Budget) -> ExploreProgress {
        let bar = terminal.then(|| {
            let (bar, template) = match budget {
                Budget::Cases(total) => (
                    ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::hidden()),
                    "explore {prefix}: {pos}/{len} cases, {msg}, about {eta} left".to_string(),
                ),
                Budget::Seconds(limit) => (
                    ProgressBar::with_draw_target(None, ProgressDrawTarget::hidden()),
                    format!(
                        "explore {{prefix}}: {{pos}} cases, {{msg}}, {{elapsed}} of {}s",
                        limit.as_secs()
                    ),
                ),
            };
            let style = ProgressStyle::with_template(&template)
                .unwrap_or_else(|_| ProgressStyle::default_bar());
            bar.set_style(style);
            bar.set_prefix(suite.to_string());
            bar.set_message("0 divergences");
            bar
        });
        ExploreProgress {
            bar,
            started: Instant::now(),
            divergences: AtomicU64::new(0),
            phase: Mutex::new(String::new()),
        }
    }

    /// The message part of the line: divergences so far, and the phase if any.
    fn message(&self) -> String {
        let divergences = self.divergences.load(Ordering::Relaxed);
        let phase = self.phase.lock().map(|p| p.clone()).unwrap_or_default();
        let noun = if divergences == 1 {
            "divergence"
        } else {
            "divergences"
        };
        if phase.is_empty() {
            format!("{divergences} {noun}")
        } else {
            format!("{divergences} {noun}; {phase}")
        }
    }

    /// Shows the line once the run has gone on for a while.
    fn show_when_due(&self, bar: &ProgressBar) {
        if bar.is_hidden() && self.started.elapsed() >= QUIET_FOR {
            bar.set_draw_target(ProgressDrawTarget::stderr());
            bar.enable_steady_tick(Duration::from_secs(1));
        }
    }

    /// Removes the line: the report takes its place.
    pub(crate) fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}

impl Watch for ExploreProgress {
    fn case_ended(&self, case: &ExploredCase) {
        let Some(bar) = &self.bar else {
            return;
        };
        let diverged = matches!(
            case.outcome,
            CaseOutcome::Ran {
                divergence: Some(_),
                ..
            }
        );
        if diverged {
            self.divergences.fetch_add(1, Ordering::Relaxed);
            bar.set_message(self.message());
        }
        bar.inc(1);
        self.show_when_due(bar);
    }

    fn phase(&self, text: &str) {
        let Some(bar) = &self.bar else {
            return;
        };
        if let Ok(mut phase) = self.phase.lock() {
            *phase = text.to_string();
        }
        bar.set_message(self.message());
        self.show_when_due(bar);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::explore::compare::differential::{CaseOutcome, Divergence};
    use crate::explore::compare::levels::{difference, Level};
    use crate::explore::generate::case::Case;
    use crate::explore::generate::fixture_gen::GeneratedFixture;

    fn ended(diverged: bool) -> ExploredCase {
        let divergence = diverged.then(|| Divergence {
            at_call: Some(0),
            difference: difference(Level::Text, "a".into(), "b".into()),
            stderr_tail: String::new(),
        });
        ExploredCase {
            case: Case {
                number: 0,
                fixture: GeneratedFixture::default(),
                settings: Default::default(),
                calls: Vec::new(),
            },
            outcome: CaseOutcome::Ran {
                calls: 1,
                divergence,
                passed_over: Vec::new(),
            },
        }
    }

    #[test]
    fn nothing_is_drawn_when_stderr_is_not_a_terminal() {
        let progress = ExploreProgress::drawn_if(false, "boris", Budget::Cases(3));
        assert!(progress.bar.is_none());
        progress.case_ended(&ended(true));
        progress.phase("shrinking 1 of 1");
        progress.finish();
    }

    #[test]
    fn at_a_terminal_it_counts_cases_divergences_and_shows_the_phase() {
        let progress = ExploreProgress::drawn_if(true, "boris", Budget::Cases(3));
        progress.case_ended(&ended(false));
        progress.case_ended(&ended(true));
        let bar = progress.bar.as_ref().expect("a bar");
        assert_eq!((bar.position(), bar.length()), (2, Some(3)));
        assert_eq!(bar.message(), "1 divergence");
        progress.phase("shrinking 1 of 1");
        assert_eq!(bar.message(), "1 divergence; shrinking 1 of 1");
        assert!(bar.is_hidden(), "not shown in the first seconds");
        let timed =
            ExploreProgress::drawn_if(true, "boris", Budget::Seconds(Duration::from_secs(30)));
        assert_eq!(timed.bar.as_ref().and_then(ProgressBar::length), None);
        progress.finish();
        timed.finish();
    }
}
