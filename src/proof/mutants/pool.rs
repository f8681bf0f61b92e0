//! The workers of a scoring run: `jobs` threads that share one [`Schedule`], so
//! the honest pass and every mutation of every suite keep all of them busy, and
//! that cancel the running jobs of a mutation the moment it is decided.

use std::sync::{Condvar, Mutex, MutexGuard, PoisonError};

use super::schedule::{Finding, Job, Next, Schedule};
use crate::execute::cancel::{Cancel, Canceller};

/// Runs `schedule` to the end on `jobs` threads. `run` runs one job, watching its
/// token; `on_change` sees the schedule after every finished job (under the lock,
/// so its calls come one at a time). `mutations` is the number of mutations the
/// schedule holds. Returns the schedule, every mutation decided.
pub(crate) fn run_to_the_end(
    schedule: Schedule,
    mutations: usize,
    jobs: usize,
    run: &(dyn Fn(Job, &Cancel) -> Finding + Sync),
    on_change: &mut (dyn FnMut(&Schedule) + Send),
) -> Schedule {
    let cancellers: Vec<Canceller> = (0..mutations).map(|_| Canceller::new()).collect();
    let shared = Mutex::new((schedule, on_change));
    let wake = Condvar::new();
    let lock = || shared.lock().unwrap_or_else(PoisonError::into_inner);
    std::thread::scope(|scope| {
        for _ in 0..jobs.max(1) {
            scope.spawn(|| {
                let mut guard = lock();
                loop {
                    let job = match guard.0.next() {
                        Next::Run(job) => job,
                        Next::Wait => {
                            guard = wake.wait(guard).unwrap_or_else(PoisonError::into_inner);
                            continue;
                        }
                        Next::Done => break,
                    };
                    drop(guard);
                    let token = job
                        .mutation
                        .and_then(|m| cancellers.get(m))
                        .map_or_else(Cancel::never, Canceller::token);
                    // A job that panics is still finished, so no worker waits for
                    // it forever; the panic then goes on up.
                    let ran =
                        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| run(job, &token)));
                    guard = lock();
                    let finding = ran.as_ref().copied().unwrap_or(Finding::Neither);
                    finish(&mut guard, job, finding, &cancellers);
                    wake.notify_all();
                    if let Err(panic) = ran {
                        drop(guard);
                        std::panic::resume_unwind(panic);
                    }
                }
                wake.notify_all();
            });
        }
    });
    shared
        .into_inner()
        .unwrap_or_else(PoisonError::into_inner)
        .0
}

type Shared<'a> = (Schedule, &'a mut (dyn FnMut(&Schedule) + Send));

fn finish(
    guard: &mut MutexGuard<'_, Shared<'_>>,
    job: Job,
    finding: Finding,
    cancellers: &[Canceller],
) {
    let (schedule, on_change) = &mut **guard;
    let changes = schedule.finish(job, finding);
    for mutation in changes.to_cancel {
        if let Some(canceller) = cancellers.get(mutation) {
            canceller.cancel();
        }
    }
    on_change(schedule);
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::time::Duration;

    use super::*;
    use crate::proof::mutants::order::Likelihood;
    use crate::proof::mutants::schedule::Stop;

    #[test]
    fn a_decided_mutation_cancels_its_running_jobs_and_starts_no_more() {
        // Scenario 0 kills the mutation once scenario 1 has started; scenario 1
        // would take a minute unless cancelled; scenarios 2 to 9 never start.
        let candidates = vec![(0..10).map(|s| (Likelihood::Unknown, s)).collect()];
        let schedule = Schedule::new(10, candidates, Stop::AtFirstKill);
        let against_mutation = AtomicUsize::new(0);
        let cancelled = AtomicUsize::new(0);
        let run = |job: Job, cancel: &Cancel| -> Finding {
            if job.mutation.is_none() {
                return Finding::Passed(Duration::from_millis(1));
            }
            against_mutation.fetch_add(1, Ordering::Relaxed);
            if job.scenario == 0 {
                for _ in 0..10_000 {
                    if against_mutation.load(Ordering::Relaxed) == 2 {
                        break;
                    }
                    std::thread::sleep(Duration::from_millis(1));
                }
                return Finding::Failed;
            }
            let runtime = crate::server::runtime::thread_runtime().expect("runtime");
            runtime.block_on(async {
                tokio::select! {
                    () = cancel.cancelled() => {
                        cancelled.fetch_add(1, Ordering::Relaxed);
                        Finding::Cancelled
                    }
                    () = tokio::time::sleep(Duration::from_secs(60)) => Finding::Neither,
                }
            })
        };
        let mut changes = 0;
        let mut count = |_: &Schedule| changes += 1;
        let schedule = run_to_the_end(schedule, 1, 2, &run, &mut count);
        assert!(schedule.decided(0));
        assert_eq!(schedule.killers(0), [0]);
        assert_eq!(against_mutation.load(Ordering::Relaxed), 2);
        assert_eq!(cancelled.load(Ordering::Relaxed), 1);
        assert_eq!(changes, 12, "10 honest jobs and 2 against the mutation");
    }
}
