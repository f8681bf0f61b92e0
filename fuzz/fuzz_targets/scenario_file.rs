//! A scenario file of the boris suite, parsed and validated (`toolspec::fuzzing`).
#![no_main]

libfuzzer_sys::fuzz_target!(|bytes: &[u8]| toolspec::fuzzing::scenario_file(bytes));
