//! The `toolspec-reference` binary: a thin shell around
//! [`toolspec_reference::main_with_args`], so the harness can also run the
//! server in-process through the library.

fn main() -> std::process::ExitCode {
    toolspec_reference::main_with_args(std::env::args_os().skip(1))
}
