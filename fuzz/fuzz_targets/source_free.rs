//! The source normalizer and the front end on a free-form file of arbitrary bytes: a
//! program profile of what parses, diagnostics for the rest, never a panic.
//!
//! The bytes go through the same loading, parsing and lowering as a file on disk, but
//! from memory ([`augur_fortran::analyze_bytes`]): a temporary directory and file per
//! input cost more than the analysis. The file is named in a directory that does not
//! exist, so INCLUDE lines find nothing, as they did in an empty temporary directory.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let path = std::path::Path::new("/nonexistent/augur-fuzz/fuzz.f90");
    let _ = augur_fortran::analyze_bytes(path, data, &augur_fortran::FrontEndOptions::default());
});
