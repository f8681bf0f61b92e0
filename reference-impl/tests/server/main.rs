//! End-to-end tests of the reference server: the real binary, spoken to over
//! each transport as a harness does. One test binary, one module per
//! transport; helpers both use go in `util`.
//!
//! Where a new test goes: a check of what crosses stdin/stdout in `stdio`,
//! of the HTTP transport in `http`, of what a client can reach on disk
//! (symlinks, races, odd names) in `containment`, of what the server leaves
//! running when it stops in `shutdown`; thousands of random calls per
//! dialect, checked for all of these at once, in `soak`. A tool's
//! wording belongs in the dialect's unit tests or in a suite under `specs/`,
//! not here. `session` is a synchronous client for tests that hold a
//! session open.

mod containment;
mod http;
mod session;
mod shutdown;
mod soak;
mod stdio;
mod util;

/// Six tests a core and temporary files on a tmpfs, set as the binary is loaded
/// (`toolspec_reference::test_binary` says why), as in every test binary of the
/// workspace.
#[used]
#[link_section = ".init_array"]
static PREPARE: extern "C" fn() = toolspec_reference::test_binary::prepare;
