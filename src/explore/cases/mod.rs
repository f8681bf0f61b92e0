//! Running many cases: the budget and shard, stopping at the first new
//! divergence (`--fail-fast`), the job threads, the warm spares (servers started
//! ahead of their case), the watcher told of each case, and the allocator kept
//! small.

pub(crate) mod allocator;
pub(crate) mod budget;
pub(crate) mod fail_fast;
pub(crate) mod job_threads;
pub(crate) mod run;
pub(crate) mod warm;
pub(crate) mod watch;
