//! The one way toolspec builds an async runtime: a current-thread runtime with
//! timers and I/O, one per worker thread. Every server a thread starts is driven
//! by that thread alone, so no runtime needs more threads than the one it runs
//! on, and a hung server can only stall the thread that started it.

use std::io;

use tokio::runtime::{Builder, Runtime};

/// A current-thread runtime with timers and I/O enabled.
pub(crate) fn thread_runtime() -> io::Result<Runtime> {
    Builder::new_current_thread().enable_all().build()
}
