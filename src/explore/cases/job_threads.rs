//! Numbered jobs on a few threads, each thread with a current-thread tokio runtime
//! of its own: how explore shrinks what its cases found and runs a baseline's
//! witnesses again (the cases themselves run with warm spares, `warm.rs`). Which
//! thread takes which number varies; the results are keyed by number, so what a
//! run prints never depends on it.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

use tokio::runtime::Runtime;

/// What one numbered job came to.
pub(crate) enum Ended<T> {
    /// A result to gather under its key.
    Keep(u64, T),
    /// Done, with nothing worth keeping (a case that ran clean is only counted,
    /// so a long run's memory stays flat).
    Drop,
    /// Nothing more to do: the budget is spent or the numbers ran out.
    Stop,
}

/// Calls `job` with 0, 1, 2, ... on `threads` threads (at least one), and gathers
/// what it keeps by the key it gives. A thread stops when `job` says
/// [`Ended::Stop`] for its number (nothing more to do, or the budget is spent) or
/// the run is interrupted; a number taken after that is not started.
pub(crate) fn run_numbered<T: Send>(
    threads: usize,
    job: impl Fn(&Runtime, u64) -> Ended<T> + Sync,
) -> BTreeMap<u64, T> {
    let next = AtomicU64::new(0);
    let done: Mutex<BTreeMap<u64, T>> = Mutex::new(BTreeMap::new());
    std::thread::scope(|scope| {
        for _ in 0..threads.max(1) {
            scope.spawn(|| {
                let Ok(runtime) = crate::server::runtime::thread_runtime() else {
                    return;
                };
                loop {
                    let number = next.fetch_add(1, Ordering::Relaxed);
                    if crate::server::interrupted() {
                        return;
                    }
                    match job(&runtime, number) {
                        Ended::Keep(key, result) => {
                            if let Ok(mut done) = done.lock() {
                                done.insert(key, result);
                            }
                        }
                        Ended::Drop => {}
                        Ended::Stop => return,
                    }
                }
            });
        }
    });
    done.into_inner().unwrap_or_default()
}
