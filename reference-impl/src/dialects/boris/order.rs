//! The order boris lists what `glob` and `grep` (files_with_matches) find:
//! newest modification first. Boris 1.0.0 compares modification times in whole
//! seconds and sorts a walk that visits names in order, so entries changed
//! within the same second keep that order (name order, depth first).

use std::cmp::Reverse;
use std::time::{SystemTime, UNIX_EPOCH};

use super::mutations::Mutation;
use crate::mutations::Mutations;

/// A found item and its modification time.
pub(super) struct Dated<T> {
    pub(super) modified: Option<SystemTime>,
    pub(super) item: T,
}

/// Sorts `found` (in walk order) newest first; the sort is stable, so ties in
/// whole seconds keep the walk order.
pub(super) fn newest_first<T>(mutations: &Mutations, found: &mut [Dated<T>]) {
    if mutations.is_active(Mutation::MtimeSubsecondOrder) {
        found.sort_by_key(|f| Reverse(f.modified.unwrap_or(UNIX_EPOCH)));
    } else {
        found.sort_by_key(|f| Reverse(whole_seconds(f.modified)));
    }
}

/// Seconds since the epoch, rounded down (before it, negative); a time that
/// cannot be read counts as the epoch, as upstream's zero time.
fn whole_seconds(time: Option<SystemTime>) -> i64 {
    let Some(time) = time else { return 0 };
    match time.duration_since(UNIX_EPOCH) {
        Ok(after) => i64::try_from(after.as_secs()).unwrap_or(i64::MAX),
        Err(before) => {
            let before = before.duration();
            let whole = i64::try_from(before.as_secs()).unwrap_or(i64::MAX);
            if before.subsec_nanos() > 0 {
                -whole - 1
            } else {
                -whole
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn at(secs: u64, nanos: u32, item: &'static str) -> Dated<&'static str> {
        Dated {
            modified: Some(UNIX_EPOCH + Duration::new(secs, nanos)),
            item,
        }
    }

    fn order(mutations: &Mutations, mut found: Vec<Dated<&'static str>>) -> Vec<&'static str> {
        newest_first(mutations, &mut found);
        found.into_iter().map(|f| f.item).collect()
    }

    #[test]
    fn newest_first_with_same_second_ties_in_walk_order() {
        let found = || {
            vec![
                at(100, 1, "a"),
                at(100, 9, "b"),
                at(300, 0, "c"),
                at(200, 0, "d"),
            ]
        };
        assert_eq!(order(&Mutations::of::<Mutation>(&[]), found()), ["c", "d", "a", "b"]);
        assert_eq!(
            order(&Mutations::of(&[Mutation::MtimeSubsecondOrder]), found()),
            ["c", "d", "b", "a"]
        );
    }

    #[test]
    fn times_before_the_epoch_round_down() {
        let before = |d: Duration| Some(UNIX_EPOCH - d);
        assert_eq!(whole_seconds(before(Duration::new(1, 500))), -2);
        assert_eq!(whole_seconds(before(Duration::new(1, 0))), -1);
        assert_eq!(whole_seconds(None), 0);
    }
}
