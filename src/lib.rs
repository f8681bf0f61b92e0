//! toolspec: a conformance harness and golden-output spec checker for coding-agent
//! tool servers.
//!
//! Most users run the `toolspec` command, or a `harness = false` test whose `main`
//! is [`conformance_main`] or [`target_main`]. The rest of this page is for a Rust
//! program that wants to drive scenarios itself: load a suite ([`load_suite`]),
//! describe a server ([`Target`]), and run one scenario ([`run_named`]) into a
//! [`ScenarioReport`] whose [`Verdict`] and text say what happened.
//!
//! Inside, a scenario file flows one way through the stages, each a module that
//! imports only the ones before it: `scenario` (files to a typed model) ->
//! `fixture` (the temporary tree) -> `catalogue` (the built-in suites and those of
//! `--specs`) -> `server` (start it, talk MCP, classify each call's outcome) ->
//! `judge` (the outcome and the files against `then`, by the suite's result
//! convention) -> `execute` (one scenario to a verdict and its standing, or many in
//! parallel) -> `author` (scenario files written, blessed and recorded) ->
//! `explore` (generated cases on an oracle and a subject, compared call by call) ->
//! `report` (text, JUnit, JSON, Markdown, what explore found) -> `runner`
//! (libtest-mimic) and `proof` (coverage, scaffold, mutants) -> `cli`. `visible`
//! (how server text is shown) and `nearest` (a did-you-mean) sit under them all.

mod visible;

mod nearest;

mod scenario;

mod fixture;

mod catalogue;

mod server;

mod judge;

mod execute;

mod author;

mod explore;

mod report;

mod runner;

mod proof;

mod proposal;
// A confinement suite for any file server: its tools/list -> escape scenarios.
mod confinement;

mod cli;

/// Entry points for the fuzzers in `fuzz/` and the test that replays their corpus.
#[doc(hidden)]
pub mod fuzzing;

// The overhead bench's stages live under benches/, outside the product's source;
// they join the library only under the `bench` feature, since they time stages
// that are not public API.
#[cfg(feature = "bench")]
#[doc(hidden)]
#[path = "../benches/stages/mod.rs"]
pub mod bench;

pub use author::bless::BLESS_ENV;
pub use cli::{exit, main};
pub use execute::{run_named, Escape, EscapeKind, Excuse, RunOptions, ScenarioReport, Verdict};
pub use judge::Mismatch;
pub use runner::{conformance_main, target_main, KEEP_ENV, SERVER_ENV, TARGET_ENV, TIMEOUT_ENV};
pub use scenario::{load_suite, load_suites, Basis, LoadError, Suite};
pub use server::{
    adopt_escaped_processes, load_target_file, start_spawner, CommandLineError, InCommand,
    Isolation, Limits, Target,
};
