//! `toolspec record`: scenarios written from calls made live. The calls come
//! from the command line, a calls file (`calls_file.rs`) or an agent's logged
//! session (`recorded_calls.rs`, reading the log with `call_log.rs` and making
//! each call's fixture with `log_fixture.rs`). They are made in order as one
//! session, twice at once on two fresh fixtures (`session.rs`, each fixture
//! read before and after each call by `fixture_snapshot.rs`), once the
//! server's tools/list is seen to name every tool called (`listed_tools.rs`).
//! Each call becomes a scenario (`recording.rs`): its answers merged into a
//! `then` (`live_call.rs`), its name made short (`names.rs`), its YAML written
//! to be read (`scenario_item.rs`); a `--files` folder becomes a fixture tree
//! of the suite, once (`tree_place.rs`); the first server's start is timed
//! (`start_time.rs`: a slow one gets a `start_timeout_ms`).

pub(crate) mod call_log;
pub(crate) mod calls_file;
pub(crate) mod fixture_snapshot;
pub(crate) mod listed_tools;
pub(crate) mod live_call;
pub(crate) mod log_fixture;
pub(crate) mod names;
pub(crate) mod recorded_calls;
pub(crate) mod recording;
pub(crate) mod scenario_item;
pub(crate) mod session;
pub(crate) mod start_time;
pub(crate) mod tree_place;
