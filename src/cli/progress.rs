//! The live progress line of `toolspec run` at a terminal: scenarios done of the
//! suite's total, how many failed so far, and the time left.
//!
//! Only when stderr is a terminal, and only once the suite has run for
//! [`QUIET_FOR`]: a quick run, a pipe, a CI log and the golden outputs see nothing
//! new. The line is drawn on stderr by `indicatif`, which keeps it last: what the
//! run prints meanwhile goes through [`Progress::above`], so it lands above the line
//! instead of through it.

use std::io::IsTerminal;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// How long a suite runs before its progress line appears.
pub(crate) const QUIET_FOR: Duration = Duration::from_secs(2);

/// A suite's progress, shown at a terminal once it has run for a while.
pub(crate) struct Progress {
    /// None when stderr is not a terminal: nothing is drawn, ever.
    bar: Option<ProgressBar>,
    started: Instant,
    failed: AtomicU64,
}

impl Progress {
    /// The progress of `total` scenarios of `suite`, drawn only if stderr is a
    /// terminal.
    pub(crate) fn new(suite: &str, total: usize) -> Progress {
        Progress::drawn_if(std::io::stderr().is_terminal(), suite, total)
    }

    /// As [`Progress::new`], with whether stderr is a terminal said by the caller.
    pub(crate) fn drawn_if(terminal: bool, suite: &str, total: usize) -> Progress {
        let bar = terminal.then(|| {
            // Hidden until QUIET_FOR has passed: see `scenario_ended`.
            let bar =
                ProgressBar::with_draw_target(Some(total as u64), ProgressDrawTarget::hidden());
            let style = ProgressStyle::with_template(
                "{prefix}: {pos}/{len} scenarios, {msg} failed, {elapsed} so far, about {eta} left",
            )
            .unwrap_or_else(|_| ProgressStyle::default_bar());
            bar.set_style(style);
            bar.set_prefix(suite.to_string());
            bar.set_message("0");
            bar
        });
        Progress {
            bar,
            started: Instant::now(),
            failed: AtomicU64::new(0),
        }
    }

    /// Whether a line is (or will be) drawn.
    #[cfg(test)]
    pub(crate) fn is_drawn(&self) -> bool {
        self.bar.is_some()
    }

    /// One more scenario ended; `failed` when it breaks the run.
    pub(crate) fn scenario_ended(&self, failed: bool) {
        let Some(bar) = &self.bar else {
            return;
        };
        if failed {
            let so_far = self.failed.fetch_add(1, Ordering::Relaxed) + 1;
            bar.set_message(so_far.to_string());
        }
        bar.inc(1);
        if bar.is_hidden() && self.started.elapsed() >= QUIET_FOR {
            bar.set_draw_target(ProgressDrawTarget::stderr());
            // Redrawn each second, so the time left moves while a slow server thinks.
            bar.enable_steady_tick(Duration::from_secs(1));
        }
    }

    /// Runs `print` with the line taken away, and draws it again after.
    pub(crate) fn above<R>(&self, print: impl FnOnce() -> R) -> R {
        match &self.bar {
            Some(bar) => bar.suspend(print),
            None => print(),
        }
    }

    /// Removes the line: the suite's summary line takes its place.
    pub(crate) fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Progress;

    #[test]
    fn nothing_is_drawn_when_stderr_is_not_a_terminal() {
        let progress = Progress::drawn_if(false, "boris", 3);
        assert!(!progress.is_drawn());
        progress.scenario_ended(true);
        assert_eq!(progress.above(|| 7), 7, "what is printed still runs");
        progress.finish();
    }

    #[test]
    fn at_a_terminal_it_counts_scenarios_and_failures() {
        let progress = Progress::drawn_if(true, "boris", 3);
        assert!(progress.is_drawn());
        progress.scenario_ended(false);
        progress.scenario_ended(true);
        let bar = progress.bar.as_ref().expect("a bar");
        assert_eq!(bar.position(), 2);
        assert_eq!(bar.length(), Some(3));
        assert_eq!(bar.message(), "1");
        assert!(bar.is_hidden(), "not shown in the first seconds");
        progress.finish();
    }
}
