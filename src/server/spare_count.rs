//! How many servers a job thread starts ahead of need (warm spares, issue 46
//! item 5), for `run`'s workers (`execute::parallel`) and `explore`'s job
//! threads (`explore::cases::warm`) alike: a start that takes as long as so many
//! scenarios or cases is paid for in parallel when that many are starting while
//! the current one runs. Both measure as they go, so one rule serves a server
//! that starts in milliseconds and one that sleeps seconds first.

use std::time::Duration;

/// The most spares one job thread keeps starting: past this, a slow start is
/// already paid for well in parallel, and more would only hold servers idle.
pub(crate) const MOST_SPARES: usize = 4;

/// A thread's measured starts and runs, and the spares they call for.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct SpareCount {
    /// The sum and count of the starts measured (fixture built, server started
    /// and initialized).
    starts: (Duration, u32),
    /// The sum and count of the runs measured (calls and stop, after the start).
    runs: (Duration, u32),
}

impl SpareCount {
    /// Counts a start that took `took`.
    pub(crate) fn started(&mut self, took: Duration) {
        self.starts.0 += took;
        self.starts.1 += 1;
    }

    /// Counts a run (after its start) that took `took`.
    pub(crate) fn ran(&mut self, took: Duration) {
        self.runs.0 += took;
        self.runs.1 += 1;
    }

    /// How many spares to keep starting: as many as a start takes runs, rounded
    /// up, at least one (and one before both are measured), at most
    /// [`MOST_SPARES`].
    pub(crate) fn spares(&self) -> usize {
        let spares = match (self.starts, self.runs) {
            ((start, s), (run, r)) if s > 0 && r > 0 => {
                let start = start.as_secs_f64() / f64::from(s);
                let run = (run.as_secs_f64() / f64::from(r)).max(0.001);
                (start / run).ceil() as usize
            }
            _ => 1,
        };
        spares.clamp(1, MOST_SPARES)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    #[test]
    fn one_spare_until_measured_then_start_over_run_within_bounds() {
        let mut count = SpareCount::default();
        assert_eq!(count.spares(), 1);
        count.started(ms(3000));
        assert_eq!(count.spares(), 1, "no run measured yet");
        count.ran(ms(1000));
        assert_eq!(count.spares(), 3);
        count.ran(ms(0));
        assert_eq!(count.spares(), MOST_SPARES, "3 s over 0.5 s is 6, capped");
        let mut quick = SpareCount::default();
        quick.started(ms(5));
        quick.ran(ms(500));
        assert_eq!(quick.spares(), 1, "a quick start still keeps one");
    }
}
