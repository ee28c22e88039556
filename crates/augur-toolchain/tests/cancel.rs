//! Cancellation during an experiment run (its own test binary: the cancel flag is global
//! and cannot be reset).

use augur_toolchain::experiment::{run, RunFailure};
use std::time::{Duration, Instant};

/// A cancellation during a run kills the program at once, and later runs do not start.
#[test]
fn a_cancelled_run_is_killed() {
    let dir = tempfile::tempdir().unwrap();
    let exe = dir.path().join("sleeper");
    std::fs::write(&exe, "#!/bin/sh\nsleep 30\n").unwrap();
    std::fs::set_permissions(&exe, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let canceller = std::thread::spawn(|| {
        std::thread::sleep(Duration::from_millis(300));
        augur_toolchain::interrupt::cancel();
    });
    let start = Instant::now();
    let r = run(&exe, dir.path(), vec![], Duration::from_secs(60));
    canceller.join().unwrap();
    assert!(matches!(r, Err(RunFailure::Cancelled)), "{r:?}");
    assert!(
        start.elapsed() < Duration::from_secs(10),
        "{:?}",
        start.elapsed()
    );
    let again = run(&exe, dir.path(), vec![], Duration::from_secs(60));
    assert!(matches!(again, Err(RunFailure::Cancelled)), "{again:?}");
}
