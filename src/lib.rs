//! toolspec: a conformance harness and golden-output spec checker for coding-agent
//! tool servers.
//!
//! A scenario file (see `docs/scenario-format.md`) flows one way through the stages
//! below: [`scenario`] loads it, [`fixture`] builds its files, [`target`] starts the
//! server and makes the calls ([`outcome`]), [`dialect`] reads the suite's result
//! convention, [`expect`] judges with [`placeholder`] templates and [`diff`]s, and
//! [`execute`] turns it all into a verdict that [`runner`] (libtest-mimic) and
//! [`cli`] report.

pub mod visible;

pub mod scenario;

pub mod fixture;

pub mod server;

pub mod judge;

pub mod execute;

pub mod report;

pub mod runner;

pub mod proof;

pub mod cli;
