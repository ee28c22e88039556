//! The cluster-file reader on arbitrary bytes: a cluster or an error naming the file,
//! never a panic.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let path = dir.path().join("cluster.toml");
    std::fs::write(&path, data).expect("written");
    let _ = augur_simgrid::Cluster::read(&path);
});
