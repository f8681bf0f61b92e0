//! The start time `record` learns. A server that loads a model, or runs `npx`
//! inside, may take seconds to start; measured once as `record` starts it, a
//! start that leaves less than a threefold margin under the start timeout in
//! force (the target's or suite's `start_timeout_ms`, else the call timeout)
//! would time out on a busier machine or with several servers starting at once,
//! so `record` proposes three times the start as `start_timeout_ms`.

use std::time::Duration;

/// How many times the measured start the timeout allows.
const MARGIN: u32 = 3;
/// The proposed timeout is rounded up to a multiple of this, to read well.
const ROUND_MS: u64 = 100;

/// The `start_timeout_ms` to propose for a server that took `started_in` to
/// start and answer `initialize`, when the start timeout in force, `allowed`,
/// leaves less than [`MARGIN`] times that; None when it is enough.
pub(crate) fn learned_start_timeout(started_in: Duration, allowed: Duration) -> Option<u64> {
    let needed = started_in.saturating_mul(MARGIN);
    if needed <= allowed {
        return None;
    }
    let millis = u64::try_from(needed.as_millis()).unwrap_or(u64::MAX);
    Some(millis.div_ceil(ROUND_MS).saturating_mul(ROUND_MS))
}

/// The line `record` adds to a new suite's `suite.yaml` for it.
pub(crate) fn suite_line(millis: u64, started_in: Duration) -> String {
    format!(
        "start_timeout_ms: {millis}   # three times the {} ms this server took to start when recorded\n",
        started_in.as_millis()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_start_within_a_third_of_the_timeout_needs_nothing() {
        let allowed = Duration::from_secs(10);
        assert_eq!(
            learned_start_timeout(Duration::from_millis(80), allowed),
            None
        );
        assert_eq!(
            learned_start_timeout(Duration::from_millis(3333), allowed),
            None
        );
    }

    #[test]
    fn a_slower_start_gets_three_times_itself_rounded_up() {
        let allowed = Duration::from_secs(10);
        assert_eq!(
            learned_start_timeout(Duration::from_millis(5010), allowed),
            Some(15_100)
        );
        assert_eq!(
            learned_start_timeout(Duration::from_millis(1000), Duration::from_secs(1)),
            Some(3000)
        );
    }
}
