//! The machine-profile reader on arbitrary text: a profile or an error naming the file,
//! line and column, never a panic.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        if let Ok(p) = augur_machine_profile::MachineProfile::from_toml(text, "fuzz.toml") {
            let _ = p.to_toml();
        }
    }
});
