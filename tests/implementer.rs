//! What an implementer's own repository does: a `harness = false` test that runs the
//! suites against its server binary through `runner::target_main`. Here the "own
//! server" is the reference server speaking boris, started as an external command
//! line; an implementer's repository holds only the suite its server speaks, so this
//! test builds a specs folder holding only `boris` (linked, with the fixture trees
//! beside it) instead of handing over every suite of this repository.

use std::os::unix::fs::symlink;
use std::path::Path;
use std::process::ExitCode;

/// Six tests a core and temporary files on a tmpfs, set as the binary is loaded
/// (`toolspec_reference::test_binary` says why), as in every test binary of the
/// workspace.
#[used]
#[link_section = ".init_array"]
static PREPARE: extern "C" fn() = toolspec_reference::test_binary::prepare;

fn main() -> ExitCode {
    let server = concat!(
        env!("CARGO_BIN_EXE_toolspec"),
        " reference-server --dialect boris --root {root}"
    );
    let target = match toolspec::Target::from_command_line(server) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let own = match tempfile::tempdir() {
        Ok(dir) => dir,
        Err(e) => {
            eprintln!("error: temporary folder: {e}");
            return ExitCode::from(2);
        }
    };
    let specs = own.path().join("specs");
    let linked = std::fs::create_dir(&specs)
        .and_then(|()| symlink(repo.join("specs/boris"), specs.join("boris")))
        .and_then(|()| symlink(repo.join("fixtures"), own.path().join("fixtures")));
    if let Err(e) = linked {
        eprintln!("error: linking the boris suite: {e}");
        return ExitCode::from(2);
    }
    toolspec::target_main(&specs, target)
}
