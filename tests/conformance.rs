//! Every suite under `specs/` against the bundled reference server (or the server in
//! `TOOLSPEC_SERVER`), one libtest-mimic trial per scenario.

use std::path::Path;
use std::process::ExitCode;

fn main() -> ExitCode {
    let specs = Path::new(env!("CARGO_MANIFEST_DIR")).join("specs");
    toolspec::conformance_main(&specs, Path::new(env!("CARGO_BIN_EXE_toolspec")))
}
