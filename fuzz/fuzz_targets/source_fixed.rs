//! The source normalizer and the front end on a fixed-form file of arbitrary bytes: a
//! program profile of what parses, diagnostics for the rest, never a panic.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let path = dir.path().join("fuzz.f");
    std::fs::write(&path, data).expect("written");
    let _ = augur_fortran::analyze(&[path], &augur_fortran::FrontEndOptions::default());
});
