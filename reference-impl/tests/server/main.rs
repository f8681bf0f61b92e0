//! End-to-end tests of the reference server: the real binary, spoken to over
//! each transport as a harness does. One test binary, one module per
//! transport; helpers both use go in `util`.
//!
//! Where a new test goes: a check of what crosses stdin/stdout in `stdio`,
//! of the HTTP transport or of process shutdown in `http`. A tool's wording
//! belongs in the dialect's unit tests or in a suite under `specs/`, not here.

mod http;
mod stdio;
mod util;
