//! The corpus manifest reader on arbitrary bytes: the programs or an error naming the
//! file, never a panic.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let path = dir.path().join("corpus.toml");
    std::fs::write(&path, data).expect("written");
    let _ = augur_bench::corpus::load(&path, &[]);
});
