//! Overhead benchmarks (`cargo bench --features bench --bench overhead`): the
//! stages it times are in `benches/stages/`, compiled into the library as
//! `toolspec::bench` only under the `bench` feature, since they reach stages that
//! are not public API.

fn main() {
    toolspec::bench::main(std::path::Path::new(env!("CARGO_BIN_EXE_toolspec")));
}
