//! `run`'s warm spares: each worker opens the scenarios it takes next (fixture
//! built whole, server started on it with the scenario's settings and
//! initialized: [`super::open`], as a cold run does) while it runs the current
//! one, so a server that takes seconds to start is paid for in parallel, not once
//! per scenario (issue 46 item 5). `explore` has the same for its cases
//! (`explore::cases::warm`); both keep as many spares as a start takes scenarios
//! or cases to run, measured as they go (`server::spare_count`).
//!
//! A spare's opening is a future this worker polls beside the scenario it runs,
//! on the worker's one current-thread runtime, so a server's start and its calls
//! are driven by the thread that started it, as elsewhere. A spare waiting for
//! its turn counts for neither its deadline nor its duration ([`super::finish`]).
//! Every job taken is run: a spare is only ever left unused by a panic or an
//! interrupt, and then dropping it ends its server's containment and removes
//! its fixture, as the interrupt ends every server.

use std::collections::VecDeque;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Instant;

use tokio::runtime::Runtime;

use super::cancel::Cancel;
use super::parallel::{Planned, Worker};
use super::{error, finish, open, run_scenario, Opened, RunOptions, ScenarioReport, ScenarioRun};
use crate::server::spare_count::SpareCount;

/// What a worker does with a scenario attempt's report: the item's report once
/// its last attempt has ended (`parallel::run_scenarios`).
type Ended<'a, R> = &'a (dyn Fn(usize, usize, ScenarioReport) -> Option<R> + Sync);

/// One worker thread's scenarios opened ahead, in the order it took them.
pub(crate) struct WarmWorker<'a, R> {
    work: &'a [Planned<'a>],
    options: &'a RunOptions,
    ended: Ended<'a, R>,
    /// Whether it opens scenarios ahead at all (`schedule::warm_spares`).
    warm: bool,
    /// The worker's runtime, or why there is none (each scenario then runs on
    /// a runtime of its own, which says so in its report).
    runtime: Option<Runtime>,
    spares: VecDeque<Spare<'a>>,
    measured: SpareCount,
}

/// A scenario opening (or opened) ahead of its turn.
struct Spare<'a> {
    index: usize,
    number: usize,
    run: ScenarioRun<'a>,
    state: State<'a>,
}

enum State<'a> {
    Opening(Pin<Box<dyn Future<Output = Opened> + 'a>>),
    Opened(Box<Opened>),
}

impl Spare<'_> {
    /// Polls the opening, keeping what it opened once it is done.
    fn go_on(&mut self, cx: &mut Context<'_>) {
        if let State::Opening(opening) = &mut self.state {
            if let Poll::Ready(opened) = opening.as_mut().poll(cx) {
                self.state = State::Opened(Box::new(opened));
            }
        }
    }
}

impl<'a, R> WarmWorker<'a, R> {
    pub(crate) fn new(
        work: &'a [Planned<'a>],
        options: &'a RunOptions,
        ended: Ended<'a, R>,
        warm: bool,
    ) -> Self {
        WarmWorker {
            work,
            options,
            ended,
            warm,
            runtime: crate::server::runtime::thread_runtime().ok(),
            spares: VecDeque::new(),
            measured: SpareCount::default(),
        }
    }

    fn scenario_run(&self, index: usize) -> ScenarioRun<'a> {
        let planned = self.work[index];
        ScenarioRun {
            suite: planned.suite,
            file_stem: &planned.file.stem,
            scenario: planned.scenario,
            target: planned.target,
            options: self.options,
            listed: planned.listed,
        }
    }
}

impl<R> Worker<R> for WarmWorker<'_, R> {
    /// The scenario to run next and, when warm, as many spares as a start takes
    /// scenarios.
    fn wanted(&self) -> usize {
        match self.warm {
            true => 1 + self.measured.spares(),
            false => 1,
        }
    }

    fn start(&mut self, index: usize, number: usize) {
        let run = self.scenario_run(index);
        self.spares.push_back(Spare {
            index,
            number,
            run,
            state: State::Opening(Box::pin(open(run))),
        });
    }

    fn run_next(&mut self) -> Option<R> {
        let Spare {
            index,
            number,
            run,
            state,
        } = self.spares.pop_front()?;
        let Some(runtime) = &self.runtime else {
            let report = run_scenario(
                run.suite,
                run.file_stem,
                run.scenario,
                run.target,
                run.options,
                run.listed,
            );
            return (self.ended)(index, number, report);
        };
        let opened = match state {
            State::Opened(opened) => *opened,
            State::Opening(opening) => runtime.block_on(alongside(opening, &mut self.spares)),
        };
        self.measured.started(opened.took());
        let began = Instant::now();
        let never = Cancel::never();
        let finished = runtime.block_on(alongside(finish(run, opened, &never), &mut self.spares));
        self.measured.ran(began.elapsed());
        let report = finished.unwrap_or_else(|| {
            let mut report = run.begin_report();
            report.verdict = error("cancelled".into(), String::new());
            report
        });
        (self.ended)(index, number, report)
    }
}

/// Runs `work` to its end while the spares go on opening. `work` is polled
/// first, so where it and a spare start a server in the same turn, the
/// scenario due first starts first.
async fn alongside<T>(work: impl Future<Output = T>, spares: &mut VecDeque<Spare<'_>>) -> T {
    let mut work = std::pin::pin!(work);
    std::future::poll_fn(|cx| {
        let polled = work.as_mut().poll(cx);
        if polled.is_pending() {
            spares.iter_mut().for_each(|spare| spare.go_on(cx));
        }
        polled
    })
    .await
}
