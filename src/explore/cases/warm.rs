//! Warm spares: each job thread starts the servers of its next cases while it
//! runs the current one, so a server that takes seconds to start and answer
//! `initialize` is paid for in parallel, not once per case (issue 46 item 5).
//!
//! A spare is a whole case's start: its fixture built whole, then both sides
//! started on it with the case's settings (`differential::start_pair`), never a
//! server started on an empty root filled later, so a server that reads its root
//! as it starts sees what a cold start would. A thread keeps as many spares as a
//! start takes cases to run (both measured as it goes, the first guess one, at
//! most four: `server::spare_count`, which `run`'s workers share); those the
//! budget leaves unused are stopped with all they started and their fixtures
//! removed.

use std::collections::VecDeque;
use std::rc::Rc;
use std::time::{Duration, Instant};

use tokio::runtime::Runtime;
use tokio::task::{JoinHandle, LocalSet};

use crate::explore::compare::differential::{start_pair, stop_unused, Started};
use crate::explore::generate::case::Case;
use crate::server::spare_count::SpareCount;
use crate::server::Target;

/// A case whose servers are starting (or started) ahead of its turn.
pub(crate) struct Spare {
    /// Its place in the shard's order.
    pub index: u64,
    /// Its case number.
    pub number: u64,
    pub case: Case,
    /// The start under way, and how long it took once done.
    pub start: JoinHandle<(Started, Duration)>,
}

/// One job thread's spares, in the order it claimed their cases, and what it
/// has measured of starts and cases.
pub(crate) struct Spares {
    oracle: Rc<Target>,
    subject: Rc<Target>,
    call_timeout: Duration,
    local: LocalSet,
    queue: VecDeque<Spare>,
    /// The starts and cases (calls and stop, after the start) measured.
    measured: SpareCount,
}

impl Spares {
    pub(crate) fn new(oracle: &Target, subject: &Target, call_timeout: Duration) -> Self {
        Spares {
            oracle: Rc::new(oracle.clone()),
            subject: Rc::new(subject.clone()),
            call_timeout,
            local: LocalSet::new(),
            queue: VecDeque::new(),
            measured: SpareCount::default(),
        }
    }

    /// How many cases this thread should have claimed, the next to run
    /// included: one, and as many spares as a start takes cases
    /// (`SpareCount::spares`).
    pub(crate) fn wanted(&self) -> usize {
        1 + self.measured.spares()
    }

    /// How many cases are claimed and starting or waiting.
    pub(crate) fn claimed(&self) -> usize {
        self.queue.len()
    }

    /// Starts `case`'s servers now, on its finished fixture, to run in turn.
    pub(crate) fn claim(&mut self, index: u64, number: u64, case: Case) {
        let (oracle, subject) = (self.oracle.clone(), self.subject.clone());
        let (started_case, timeout) = (case.clone(), self.call_timeout);
        let start = self.local.spawn_local(async move {
            let began = Instant::now();
            let started = start_pair(&oracle, &subject, &started_case, timeout).await;
            (started, began.elapsed())
        });
        self.queue.push_back(Spare {
            index,
            number,
            case,
            start,
        });
    }

    /// The next case claimed, if any, without waiting for its start.
    pub(crate) fn next(&mut self) -> Option<Spare> {
        self.queue.pop_front()
    }

    /// Waits for a spare's `start` (the other spares go on starting meanwhile);
    /// None when the start panicked.
    pub(crate) fn started(
        &mut self,
        runtime: &Runtime,
        start: JoinHandle<(Started, Duration)>,
    ) -> Option<Started> {
        let (started, took) = self.local.block_on(runtime, start).ok()?;
        self.measured.started(took);
        Some(started)
    }

    /// Runs `work` (a case's calls on its started servers) while the spares go
    /// on starting, and counts how long it took.
    pub(crate) fn run<T>(
        &mut self,
        runtime: &Runtime,
        work: impl std::future::Future<Output = T>,
    ) -> T {
        let began = Instant::now();
        let done = self.local.block_on(runtime, work);
        self.measured.ran(began.elapsed());
        done
    }

    /// Stops every spare left: each start is waited for, then its servers
    /// stopped and its fixtures removed, so nothing is left running.
    pub(crate) fn stop_all(mut self, runtime: &Runtime) {
        while let Some(spare) = self.queue.pop_front() {
            if let Ok((started, _)) = self.local.block_on(runtime, spare.start) {
                self.local.block_on(runtime, stop_unused(started));
            }
        }
    }
}
