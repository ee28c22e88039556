//! The program-profile reader on arbitrary text: a profile or an error naming the file,
//! line and column, never a panic.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = augur_program_profile::ProgramProfile::from_json(text, "fuzz.json");
    }
});
