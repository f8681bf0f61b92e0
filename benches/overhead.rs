//! Overhead benchmarks (`cargo bench --features bench --bench overhead`): the bench
//! itself is `toolspec::bench`, inside the library, so that it can time stages that
//! are not public API.

fn main() {
    toolspec::bench::main(std::path::Path::new(env!("CARGO_BIN_EXE_toolspec")));
}
