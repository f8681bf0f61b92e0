fn main() -> std::process::ExitCode {
    toolspec::cli::main()
}
