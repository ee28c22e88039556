//! Interrupts, in one place for every command: a flag that long work polls, set by
//! [`cancel`] (the binary's Ctrl-C / SIGTERM handler calls it).

use std::sync::atomic::{AtomicBool, Ordering};

static CANCEL: AtomicBool = AtomicBool::new(false);

/// The error text of cancelled work.
pub const CANCELLED: &str = "interrupted";

/// Asks running work to stop: a running program is killed, temporary directories are
/// removed as the work unwinds, and the work returns [`CANCELLED`]. Safe to call from a
/// signal handler thread.
pub fn cancel() {
    CANCEL.store(true, Ordering::SeqCst);
}

/// Whether [`cancel`] was called.
pub fn cancelled() -> bool {
    CANCEL.load(Ordering::SeqCst)
}

/// `Err(CANCELLED)` once [`cancel`] was called.
pub fn check_cancel() -> Result<(), String> {
    if cancelled() {
        Err(CANCELLED.to_string())
    } else {
        Ok(())
    }
}
