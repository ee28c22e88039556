//! Interrupts, in one place for every command: [`install`] (called once by the binary's
//! `main`) turns Ctrl-C, SIGTERM and SIGHUP into a cancel flag that long work polls
//! ([`cancelled`], [`check_cancel`]) and kills every registered child process group at once.
//!
//! How work stops:
//!
//! * Every child augur starts (compilers, linkers, the user's program, experiment programs)
//!   runs in a process group of its own, registered here while it lives
//!   ([`register_group`], [`spawn_in_group`]); the signal handler kills all of them with
//!   `SIGKILL`, so every wait for a child returns at once and returns an
//!   "interrupted" error; nothing new starts once the flag is set.
//! * The work then unwinds: every layer returns its error, temporary directories remove
//!   themselves as they drop, and output files, written atomically (temporary file and
//!   rename) at the very end, are never started. Rust-side loops poll [`cancelled`] at
//!   their seams.
//! * `main` sees [`cancelled`], prints [`CANCELLED`] once ([`announce`]) and exits with
//!   [`EXIT_STATUS`] (130).
//! * Last resort: if the process is still there [`FORCED_EXIT_AFTER`] (0.7 s) after the
//!   first signal (work that does not poll, e.g. a long prediction), the handler kills the
//!   groups again, removes the registered temporary directories ([`temp_dir`],
//!   [`register_dir`]), prints `interrupted (forced exit)` and ends the process, so augur
//!   always stops within a second.

use std::io;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, MutexGuard};
use std::time::Duration;

static CANCEL: AtomicBool = AtomicBool::new(false);

/// Whether the one line that says the run was interrupted was printed.
static ANNOUNCED: AtomicBool = AtomicBool::new(false);

/// The process groups of the live children (each child leads its own group).
static GROUPS: Mutex<Vec<u32>> = Mutex::new(Vec::new());

/// The temporary directories a forced exit removes.
static DIRS: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// The error text of cancelled work, and the line augur prints when interrupted.
pub const CANCELLED: &str = "interrupted";

/// The exit status after an interrupt (128 + SIGINT, as a shell reports Ctrl-C).
pub const EXIT_STATUS: u8 = 130;

/// How long after the first signal the handler ends the process itself if the work has
/// not unwound by then.
pub const FORCED_EXIT_AFTER: Duration = Duration::from_millis(700);

/// Installs the handler of SIGINT (Ctrl-C), SIGTERM and SIGHUP: each signal [`cancel`]s
/// (sets the flag and kills the registered process groups); the first also starts the
/// forced exit after [`FORCED_EXIT_AFTER`]. Call it once, from `main`, before any work.
/// Fails if a handler was installed already (then the signals keep their previous action).
pub fn install() -> Result<(), String> {
    ctrlc::set_handler(on_signal).map_err(|e| format!("cannot handle Ctrl-C: {e}"))
}

/// The handler: cancel; the first time, end the process if it has not ended in time.
fn on_signal() {
    let first = !CANCEL.swap(true, Ordering::SeqCst);
    kill_registered_groups();
    if first {
        std::thread::spawn(|| {
            std::thread::sleep(FORCED_EXIT_AFTER);
            force_exit();
        });
    }
}

/// Ends the process now: kills the registered groups, removes the registered directories,
/// says so and exits with [`EXIT_STATUS`] without running destructors.
fn force_exit() -> ! {
    kill_registered_groups();
    let dirs = lock(&DIRS).clone();
    for d in dirs {
        let _ = std::fs::remove_dir_all(d);
    }
    if !ANNOUNCED.swap(true, Ordering::SeqCst) {
        eprintln!("{CANCELLED} (forced exit)");
    }
    // SAFETY: `_exit` ends the process at once; nothing here is used afterwards.
    unsafe { libc::_exit(i32::from(EXIT_STATUS)) }
}

/// Asks running work to stop: sets the flag and kills every registered process group;
/// waits for children return, nothing new starts, temporary directories are removed as the
/// work unwinds, and the work returns [`CANCELLED`] errors. Safe to call from any thread.
pub fn cancel() {
    CANCEL.store(true, Ordering::SeqCst);
    kill_registered_groups();
}

/// Whether [`cancel`] was called (or a signal arrived).
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

/// Prints [`CANCELLED`] on stderr, once per process (the forced exit and `main` may both
/// try).
pub fn announce() {
    if !ANNOUNCED.swap(true, Ordering::SeqCst) {
        eprintln!("{CANCELLED}");
    }
}

/// An `io::Error` of kind `Interrupted` with the text [`CANCELLED`]: what a wait for a
/// child returns when the work was cancelled.
pub fn interrupted_error() -> io::Error {
    io::Error::new(io::ErrorKind::Interrupted, CANCELLED)
}

/// A mutex's contents, also after a panic elsewhere poisoned it.
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Sends `SIGKILL` to the process group `pgid` (a child started with `process_group(0)`
/// leads the group whose id is its pid). Ids 0 and 1 are refused: `kill(0)` and `kill(-1)`
/// would reach augur's own group or every process.
pub fn kill_group(pgid: u32) {
    if let Some(target) = group_target(pgid) {
        // SAFETY: kill only sends a signal; a group that is gone gives ESRCH, ignored.
        unsafe {
            libc::kill(target, libc::SIGKILL);
        }
    }
}

/// Whether any process of the group `pgid` is still running (its leader waited for, a
/// child it started may remain).
pub fn group_alive(pgid: u32) -> bool {
    // SAFETY: signal 0 only checks that the group exists and may be signalled.
    group_target(pgid).is_some_and(|target| unsafe { libc::kill(target, 0) } == 0)
}

/// The `kill` target of the group `pgid` (its negated id), or `None` for ids that do not
/// name one child's group: 0, 1 and ids beyond `i32`.
fn group_target(pgid: u32) -> Option<i32> {
    i32::try_from(pgid).ok().filter(|&id| id > 1).map(|id| -id)
}

/// Kills every registered group.
fn kill_registered_groups() {
    for &pgid in lock(&GROUPS).iter() {
        kill_group(pgid);
    }
}

/// A child process group known to the signal handler, which kills it on an interrupt;
/// dropping this forgets it (drop it once the child was waited for).
#[must_use = "the group is forgotten when this is dropped"]
#[derive(Debug)]
pub struct RegisteredGroup {
    pgid: u32,
}

impl RegisteredGroup {
    /// The process group id.
    pub fn pgid(&self) -> u32 {
        self.pgid
    }

    /// Kills the whole group (`SIGKILL`).
    pub fn kill(&self) {
        kill_group(self.pgid);
    }
}

impl Drop for RegisteredGroup {
    fn drop(&mut self) {
        let mut groups = lock(&GROUPS);
        if let Some(i) = groups.iter().position(|&g| g == self.pgid) {
            groups.swap_remove(i);
        }
    }
}

/// Registers the process group `pgid` (the pid of a child spawned with
/// `process_group(0)`) so that an interrupt kills it. If the work was cancelled already
/// (the signal came between the spawn and this call), the group is killed at once, so a
/// child is never missed. Keep the guard until the child was waited for.
pub fn register_group(pgid: u32) -> RegisteredGroup {
    lock(&GROUPS).push(pgid);
    if cancelled() {
        kill_group(pgid);
    }
    RegisteredGroup { pgid }
}

/// Spawns `cmd` in a process group of its own and registers the group: the usual way for
/// code outside this crate that starts children (e.g. an experiment harness) to be killed
/// by an interrupt. Refuses (an `Interrupted` error, [`interrupted_error`]) once the work
/// was cancelled. Wait for the child, then drop the guard; after the wait, check
/// [`cancelled`] to tell an interrupt from the child's own failure.
pub fn spawn_in_group(cmd: &mut Command) -> io::Result<(Child, RegisteredGroup)> {
    if cancelled() {
        return Err(interrupted_error());
    }
    let child = cmd.process_group(0).spawn()?;
    let group = register_group(child.id());
    Ok((child, group))
}

/// A directory known to the forced exit, which removes it; dropping this forgets it.
#[must_use = "the directory is forgotten when this is dropped"]
#[derive(Debug)]
pub struct RegisteredDir {
    path: PathBuf,
}

impl Drop for RegisteredDir {
    fn drop(&mut self) {
        let mut dirs = lock(&DIRS);
        if let Some(i) = dirs.iter().position(|d| *d == self.path) {
            dirs.swap_remove(i);
        }
    }
}

/// Registers a temporary directory (e.g. a `tempfile::TempDir`'s path) so that a forced
/// exit removes it too; keep the guard while the directory lives. [`temp_dir`] does this
/// for a new directory.
pub fn register_dir(path: &Path) -> RegisteredDir {
    let path = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    lock(&DIRS).push(path.clone());
    RegisteredDir { path }
}

/// A temporary directory that removes itself when dropped (a `tempfile::TempDir`) and
/// that a forced exit removes as well.
#[derive(Debug)]
pub struct TempDir {
    // Fields drop in order: the directory is removed, then forgotten.
    dir: tempfile::TempDir,
    _registered: RegisteredDir,
}

impl TempDir {
    /// The directory's path.
    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    /// Keeps the directory (neither dropping nor a forced exit removes it): its path.
    pub fn keep(self) -> PathBuf {
        let TempDir { dir, _registered } = self;
        drop(_registered);
        dir.keep()
    }
}

/// Creates a temporary directory named `prefix` plus random characters in the system's
/// temporary directory (`TMPDIR`), registered with [`register_dir`].
pub fn temp_dir(prefix: &str) -> io::Result<TempDir> {
    let dir = tempfile::Builder::new().prefix(prefix).tempdir()?;
    let registered = register_dir(dir.path());
    Ok(TempDir {
        dir,
        _registered: registered,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_and_dirs_are_forgotten_when_dropped() {
        let g = register_group(4_194_305);
        assert!(lock(&GROUPS).contains(&4_194_305));
        drop(g);
        assert!(!lock(&GROUPS).contains(&4_194_305));
        let d = temp_dir("augur-interrupt-test-").unwrap();
        let path = d.path().to_path_buf();
        assert!(lock(&DIRS).contains(&path));
        drop(d);
        assert!(!path.exists());
        assert!(!lock(&DIRS).contains(&path));
    }

    #[test]
    fn own_group_and_every_process_are_never_targets() {
        // kill(0) is our own group, kill(-1) every process we may signal.
        assert_eq!(group_target(0), None);
        assert_eq!(group_target(1), None);
        assert_eq!(group_target(u32::MAX), None);
        assert_eq!(group_target(1234), Some(-1234));
    }
}
