//! How much a run explores and which part of the case space is its own: a number
//! of cases or a time budget, and a shard (`--partition K/N`) of the case numbers.
//!
//! Case `n` of a seed is the same case whoever runs it, so splitting the space is
//! splitting the numbers: shard K of N takes every N-th number from K-1. With
//! `--cases C` each shard runs C cases, and the N shards together run exactly the
//! numbers 0..C*N, which is the unpartitioned run with `--cases C*N`: a CI matrix
//! of N jobs explores N times as much, and the union of their divergences is that
//! run's divergences.

use std::time::{Duration, Instant};

/// How long a run goes on.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Budget {
    /// Exactly this many cases: with a seed, the same output at any `--jobs`.
    Cases(u64),
    /// New cases are started until this much time has passed; how many that is
    /// depends on the machine, so the output is not repeatable.
    Seconds(Duration),
}

impl Budget {
    /// Whether the `index`-th case of this shard is still to be started, `started`
    /// being when the run began.
    pub(crate) fn admits(&self, index: u64, started: Instant) -> bool {
        match *self {
            Budget::Cases(cases) => index < cases,
            Budget::Seconds(limit) => started.elapsed() < limit,
        }
    }
}

/// Which case numbers a run takes: all of them, or shard `shard` of `of`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Shard {
    /// From 1.
    pub shard: u64,
    pub of: u64,
}

impl Shard {
    /// Every case number: the unpartitioned run.
    pub(crate) const WHOLE: Shard = Shard { shard: 1, of: 1 };

    /// The case number of this shard's `index`-th case.
    pub(crate) fn case_number(&self, index: u64) -> u64 {
        index.saturating_mul(self.of).saturating_add(self.shard - 1)
    }

    /// Whether the run is split at all.
    pub(crate) fn is_whole(&self) -> bool {
        self.of == 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shards_together_take_each_number_of_the_whole_run_once() {
        let shards: Vec<Shard> = (1..=3).map(|shard| Shard { shard, of: 3 }).collect();
        let mut taken: Vec<u64> = shards
            .iter()
            .flat_map(|s| (0..4).map(|i| s.case_number(i)))
            .collect();
        taken.sort_unstable();
        assert_eq!(taken, (0..12).collect::<Vec<u64>>());
        assert_eq!(Shard::WHOLE.case_number(5), 5);
        assert_eq!(Shard { shard: 2, of: 3 }.case_number(1), 4);
    }

    #[test]
    fn a_case_budget_counts_and_a_time_budget_watches_the_clock() {
        let now = Instant::now();
        assert!(Budget::Cases(2).admits(1, now));
        assert!(!Budget::Cases(2).admits(2, now));
        assert!(Budget::Seconds(Duration::from_secs(60)).admits(1_000_000, now));
        let long_ago = now - Duration::from_secs(2);
        assert!(!Budget::Seconds(Duration::from_secs(1)).admits(0, long_ago));
    }
}
