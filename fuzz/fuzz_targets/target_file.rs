//! A target file, loaded into a `Target` (`toolspec::fuzzing`).
#![no_main]

libfuzzer_sys::fuzz_target!(|bytes: &[u8]| toolspec::fuzzing::target_file(bytes));
