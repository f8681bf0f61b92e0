//! A template and a text, separated by a NUL byte, matched (`toolspec::fuzzing`).
#![no_main]

libfuzzer_sys::fuzz_target!(|bytes: &[u8]| toolspec::fuzzing::template(bytes));
