//! The reader of a rank's raw MPI trace (the tracer's lines) on arbitrary text: the steps
//! or an error, never a panic.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = augur_program::mpi::parse(text);
    }
});
