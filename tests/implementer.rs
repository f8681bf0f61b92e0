//! What an implementer's own repository does: a `harness = false` test that runs the
//! suites against its server binary through `runner::target_main`. Here the "own
//! server" is the reference server, started as an external command line.

use std::path::Path;
use std::process::ExitCode;

fn main() -> ExitCode {
    let server = concat!(
        env!("CARGO_BIN_EXE_toolspec"),
        " reference-server --dialect boris --root {root}"
    );
    let target = match toolspec::target::Target::from_command_line(server) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    toolspec::runner::target_main(&Path::new(env!("CARGO_MANIFEST_DIR")).join("specs"), target)
}
