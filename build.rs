//! The built-in suites are compiled in (`include_dir!` in src/scenario/catalogue.rs).
//! Cargo does not know that, so a scenario edited, added or removed would leave a
//! stale copy in the binary: tell it to rebuild when anything under these changes.
//!
//! Debug binaries link without PIE: `cargo test` starts the debug `toolspec` some
//! 4,400 times, and as a position-independent executable each start applied 42,000
//! relocations (0.36 ms of its 1.74 ms for `--version`). Release builds, the ones
//! users run, keep PIE and its address randomisation.

fn main() {
    println!("cargo:rerun-if-changed=specs");
    println!("cargo:rerun-if-changed=fixtures");
    if std::env::var("PROFILE").as_deref() == Ok("debug") {
        println!("cargo:rustc-link-arg-bins=-no-pie");
    }
}
