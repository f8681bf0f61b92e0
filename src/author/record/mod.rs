//! `toolspec record`: scenarios written from calls made live, one given on the
//! command line or each of an agent's logged session (`recorded_calls.rs`, reading
//! the log with `call_log.rs` and making each call's fixture with
//! `log_fixture.rs`), each call made twice and written as a scenario
//! (`live_call.rs`), once the server's tools/list is seen to name every tool
//! called (`listed_tools.rs`), which also times the server's start
//! (`start_time.rs`: a slow one gets a `start_timeout_ms`).

pub(crate) mod call_log;
pub(crate) mod listed_tools;
pub(crate) mod live_call;
pub(crate) mod log_fixture;
pub(crate) mod recorded_calls;
pub(crate) mod start_time;
