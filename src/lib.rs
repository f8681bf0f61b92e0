//! toolspec: a conformance harness and golden-output spec checker for coding-agent
//! tool servers.
//!
//! A scenario file (see `docs/scenario-format.md`) flows one way through the stages
//! below: [`scenario`] loads it, [`fixture`] builds its files, [`target`] starts the
//! server and makes the calls ([`outcome`]), [`dialect`] reads the suite's result
//! convention, [`expect`] judges with [`placeholder`] templates and [`diff`]s, and
//! [`execute`] turns it all into a verdict that [`runner`] (libtest-mimic) and
//! [`cli`] report.

pub mod cli;
pub mod color;
pub mod coverage;
pub mod dialect;
pub mod diff;
pub mod execute;
pub mod expect;
pub mod fixture;
pub mod json_subset;
pub mod mutants;
pub mod outcome;
pub mod parallel;
pub mod placeholder;
pub mod preflight;
pub mod report;
pub mod runner;
pub mod scaffold;
pub mod scenario;
pub mod target;
