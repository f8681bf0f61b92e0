//! Every suite under `specs/` against the bundled reference server (or the server in
//! `TOOLSPEC_SERVER`), one libtest-mimic trial per scenario.

use std::path::Path;
use std::process::ExitCode;

/// Six tests a core and temporary files on a tmpfs, set as the binary is loaded
/// (`toolspec_reference::test_binary` says why), as in every test binary of the
/// workspace.
#[used]
#[link_section = ".init_array"]
static PREPARE: extern "C" fn() = toolspec_reference::test_binary::prepare;

fn main() -> ExitCode {
    let specs = Path::new(env!("CARGO_MANIFEST_DIR")).join("specs");
    toolspec::conformance_main(&specs, Path::new(env!("CARGO_BIN_EXE_toolspec")))
}
