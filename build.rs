//! The built-in suites are compiled in (`include_dir!` in src/scenario/catalogue.rs).
//! Cargo does not know that, so a scenario edited, added or removed would leave a
//! stale copy in the binary: tell it to rebuild when anything under these changes.

fn main() {
    println!("cargo:rerun-if-changed=specs");
    println!("cargo:rerun-if-changed=fixtures");
    if std::env::var("PROFILE").as_deref() == Ok("debug") {
        println!("cargo:rustc-link-arg-bins=-no-pie");
    }
}
