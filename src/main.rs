//! The `toolspec` command; everything it does is `toolspec::main`.

fn main() -> std::process::ExitCode {
    toolspec::main()
}
