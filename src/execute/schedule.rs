//! When a run starts each scenario, and how many scenarios run at once.
//!
//! Most scenarios are over in tens of milliseconds; a few wait on purpose for a
//! second or more (a command run past its timeout, a background task read
//! later). Started in suite order on one worker a core, a waiting scenario holds
//! a worker it leaves idle, and a run lasts several times its floor: the longer
//! of its slowest scenario and its CPU time spread over the cores. So:
//!
//! - the scenarios known to be slow from their last run ([`super::durations`])
//!   start first, slowest first, and unless the user capped the workers with
//!   `--jobs`, each gets a worker of its own beside the usual ones, so the
//!   slowest one ends about when the others do;
//! - against the bundled server, whose scenarios spend their time waiting on
//!   process starts and pipes rather than computing, the usual workers are
//!   [`BUNDLED_WORKERS_PER_CORE`] a core, as in the conformance test binary; an
//!   external server may be heavy to start (a Node program takes a second of
//!   CPU), so it keeps one a core.
//!
//! Reports are handed on in suite order whatever the start order
//! ([`super::parallel`]), so what a run prints and writes does not change.

use std::time::Duration;

/// Workers a core against the bundled reference server.
pub(crate) const BUNDLED_WORKERS_PER_CORE: usize = 4;

/// A scenario is slow when it took at least this long last time...
const SLOW_AT_LEAST: Duration = Duration::from_millis(250);

/// ...and at least this many times the median scenario: against a server that
/// takes a second to start, every scenario takes a second, and none is slow.
const SLOW_OVER_MEDIAN: u32 = 4;

/// At most this many scenarios start ahead of their turn: their reports wait
/// for those before them, so this bounds what is held.
pub(crate) const MOST_EARLY: usize = 64;

/// The order to start a run's items in: first the `early` ones, slowest first,
/// then the others in their own order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct StartOrder {
    /// Every item's index once.
    pub(crate) order: Vec<usize>,
    /// How many of `order`'s first items start ahead of their turn.
    pub(crate) early: usize,
}

impl StartOrder {
    /// The items in their own order, none early.
    pub(crate) fn as_listed(items: usize) -> StartOrder {
        StartOrder {
            order: (0..items).collect(),
            early: 0,
        }
    }

    /// The known-slow items first, slowest first (the earlier of two equal ones
    /// first), then the rest in their own order. `expected` is each item's last
    /// duration, where known.
    pub(crate) fn slow_first(expected: &[Option<Duration>]) -> StartOrder {
        let mut known: Vec<Duration> = expected.iter().flatten().copied().collect();
        if known.is_empty() {
            return StartOrder::as_listed(expected.len());
        }
        known.sort_unstable();
        let median = known[known.len() / 2];
        let slow = SLOW_AT_LEAST.max(median * SLOW_OVER_MEDIAN);
        let mut early: Vec<(Duration, usize)> = expected
            .iter()
            .enumerate()
            .filter_map(|(index, took)| took.filter(|t| *t >= slow).map(|t| (t, index)))
            .collect();
        early.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
        early.truncate(MOST_EARLY);
        let mut is_early = vec![false; expected.len()];
        for (_, index) in &early {
            is_early[*index] = true;
        }
        let count = early.len();
        let order = early
            .into_iter()
            .map(|(_, index)| index)
            .chain((0..expected.len()).filter(|i| !is_early[*i]))
            .collect();
        StartOrder {
            order,
            early: count,
        }
    }
}

/// How many workers a run has, and whether each opens its next scenarios ahead
/// of their turn (warm spares, `super::warm`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Workers {
    pub(crate) count: usize,
    pub(crate) warm: bool,
}

/// How many scenarios run at once: what the user said with `--jobs`, else the
/// usual workers for the server (see the module docs) and one more for each
/// scenario that starts early. Each keeps warm spares, but for the bundled
/// server's usual workers: four a core already overlap its brief starts, and a
/// spare each only put twice the servers on the cores (measured: a whole run of
/// every suite 10% slower, in system time).
pub(crate) fn workers(
    jobs: Option<usize>,
    bundled_server: bool,
    early: usize,
    cores: usize,
) -> Workers {
    let count = match jobs {
        Some(jobs) => jobs.max(1),
        None if bundled_server => cores.max(1) * BUNDLED_WORKERS_PER_CORE + early,
        None => cores.max(1) + early,
    };
    Workers {
        count,
        warm: jobs.is_some() || !bundled_server,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(n: u64) -> Option<Duration> {
        Some(Duration::from_millis(n))
    }

    #[test]
    fn slow_items_start_first_slowest_first_and_the_rest_keep_their_order() {
        let expected = [
            ms(20),
            ms(1500),
            None,
            ms(30),
            ms(1000),
            ms(25),
            ms(1500),
            ms(20),
            ms(30),
        ];
        let order = StartOrder::slow_first(&expected);
        assert_eq!(order.order, [1, 6, 4, 0, 2, 3, 5, 7, 8]);
        assert_eq!(order.early, 3);
    }

    #[test]
    fn nothing_is_slow_beside_a_slow_median_or_without_durations() {
        // A heavy server: every scenario takes about a second.
        let heavy = [ms(1000), ms(1100), ms(900), ms(1200)];
        assert_eq!(StartOrder::slow_first(&heavy), StartOrder::as_listed(4));
        assert_eq!(
            StartOrder::slow_first(&[None, None]),
            StartOrder::as_listed(2)
        );
        // Quick ones under the floor are never slow, however the median goes.
        let quick = [ms(1), ms(1), ms(1), ms(200)];
        assert_eq!(StartOrder::slow_first(&quick), StartOrder::as_listed(4));
    }

    #[test]
    fn at_most_so_many_items_start_early() {
        let mut expected = vec![ms(10); 1000];
        for took in expected.iter_mut().take(200) {
            *took = ms(2000);
        }
        let order = StartOrder::slow_first(&expected);
        assert_eq!(order.early, MOST_EARLY);
        let mut seen = order.order.clone();
        seen.sort_unstable();
        assert_eq!(seen, (0..1000).collect::<Vec<_>>(), "each item once");
    }

    #[test]
    fn jobs_cap_the_workers_and_the_default_adds_one_per_early_item() {
        let count = |jobs, bundled, early, cores| workers(jobs, bundled, early, cores).count;
        assert_eq!(count(Some(3), true, 10, 2), 3);
        assert_eq!(count(Some(0), false, 0, 2), 1);
        assert_eq!(count(None, true, 10, 2), 18);
        assert_eq!(count(None, false, 2, 2), 4);
    }

    #[test]
    fn spares_are_kept_but_by_the_bundled_servers_usual_workers() {
        assert!(workers(None, false, 0, 2).warm);
        assert!(workers(Some(2), false, 0, 2).warm);
        assert!(workers(Some(2), true, 0, 2).warm, "--jobs caps the workers");
        assert!(!workers(None, true, 0, 2).warm);
    }
}
