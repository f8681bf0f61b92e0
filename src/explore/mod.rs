//! `toolspec explore`: generated cases run on an oracle and a subject, compared
//! call by call. A stage after `execute`: it builds fixtures and sessions with the
//! fixture and server stages, reads answers with the judge's convention code, and
//! hands the command a list of divergences in case order.
//!
//! Generation is data-driven: the tools and their argument types come from the
//! oracle's tools/list, what each argument means from the suite's `explore.yaml` (or, for a suite
//! without one, from the schemas and names themselves, `derived_file.rs`).
//! Each case has its own seed, so a run's output depends on the seed and the
//! number of cases, never on how many jobs ran them.

pub(crate) mod cases;
pub(crate) mod compare;
pub(crate) mod derived_file;
pub(crate) mod explore_file;
pub(crate) mod generate;
pub(crate) mod session;
pub(crate) mod shrink;
pub(crate) mod triage;
