//! Running a built program: arguments, stdin, timeout, captured output, CPU time, and
//! the kill of its whole process group.

use crate::*;
use std::fs::File;
use std::io::{self, Read};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

/// How to run the program.
#[derive(Debug, Clone)]
pub struct RunSpec {
    /// Command-line arguments.
    pub args: Vec<String>,
    /// A file to read as stdin; `None` gives `/dev/null` (reads see end-of-file).
    pub stdin: Option<PathBuf>,
    /// The time limit; the whole process group is killed when it is reached.
    pub timeout: Duration,
    /// Environment variables set on top of the inherited environment.
    pub env: Vec<(String, String)>,
    /// The working directory of the program (an empty path keeps the current one).
    pub cwd: PathBuf,
    /// Capture stdout/stderr (`true`) or let them go to the terminal (`false`).
    pub capture: bool,
    /// Run without address-space randomization (Linux `personality(ADDR_NO_RANDOMIZE)`),
    /// so that the addresses the counting run samples (spatially, by a hash of the line
    /// address) are the same from one analysis to the next.
    pub fixed_addresses: bool,
}

impl RunSpec {
    /// A spec with no arguments, stdin from `/dev/null`, no extra environment and captured
    /// output.
    pub fn new(cwd: impl Into<PathBuf>, timeout: Duration) -> RunSpec {
        RunSpec {
            args: Vec::new(),
            stdin: None,
            timeout,
            env: Vec::new(),
            cwd: cwd.into(),
            capture: true,
            fixed_addresses: false,
        }
    }
}

/// How a run ended.
#[derive(Debug, Clone)]
pub struct RunResult {
    /// The exit status, if the program exited.
    pub exit_code: Option<i32>,
    /// The signal that killed the program, if any (`9` after a timeout).
    pub signal: Option<i32>,
    /// Captured stdout (empty when not captured).
    pub stdout: Vec<u8>,
    /// Captured stderr (empty when not captured).
    pub stderr: Vec<u8>,
    /// Wall time from spawn to the end of the wait.
    pub wall: Duration,
    /// CPU time (user + system) the program used, its children included once waited for.
    pub cpu: Duration,
    /// Whether the time limit was reached and the program killed.
    pub timed_out: bool,
    /// Whether processes the program started were still running in its process group
    /// when it ended (a child in the background): augur killed them.
    pub left_behind: bool,
}

impl RunResult {
    /// Whether the program exited with status 0 within the time limit.
    pub fn success(&self) -> bool {
        !self.timed_out && self.exit_code == Some(0)
    }

    /// The run's output (standard output, then standard error) up to a run-time
    /// library's backtrace (gfortran's `Error termination. Backtrace:`, which says less
    /// than the lines before it), without blank lines.
    pub fn output_before_backtrace(&self) -> Vec<String> {
        let mut all = String::from_utf8_lossy(&self.stdout).into_owned();
        all.push_str(&String::from_utf8_lossy(&self.stderr));
        all.lines()
            .take_while(|l| !l.to_ascii_lowercase().contains("backtrace"))
            .filter(|l| !l.trim().is_empty())
            .map(str::to_string)
            .collect()
    }

    /// `exited with status 3`, `killed by signal 11 (SIGSEGV)`, `timed out after 5 s`.
    pub fn describe(&self) -> String {
        if self.timed_out {
            let secs = self.wall.as_secs_f64();
            return if secs >= 1.0 {
                format!("timed out after {} s", secs.round() as u64)
            } else {
                format!("timed out after {} ms", self.wall.as_millis())
            };
        }
        if let Some(sig) = self.signal {
            return match signal_name(sig) {
                // augur sends it only at the time limit (reported above): another
                // process did, or the kernel's out-of-memory killer.
                Some(name) if sig == libc::SIGKILL => format!(
                    "killed by signal {sig} ({name}): another process sent it, or the \
                     kernel did because the machine ran out of memory"
                ),
                Some(name) => format!("killed by signal {sig} ({name})"),
                None => format!("killed by signal {sig}"),
            };
        }
        match self.exit_code {
            Some(code) => format!("exited with status {code}"),
            None => "ended in an unknown way".to_string(),
        }
    }
}

/// The name of a Linux signal.
pub(crate) fn signal_name(sig: i32) -> Option<&'static str> {
    const NAMES: [&str; 31] = [
        "SIGHUP",
        "SIGINT",
        "SIGQUIT",
        "SIGILL",
        "SIGTRAP",
        "SIGABRT",
        "SIGBUS",
        "SIGFPE",
        "SIGKILL",
        "SIGUSR1",
        "SIGSEGV",
        "SIGUSR2",
        "SIGPIPE",
        "SIGALRM",
        "SIGTERM",
        "SIGSTKFLT",
        "SIGCHLD",
        "SIGCONT",
        "SIGSTOP",
        "SIGTSTP",
        "SIGTTIN",
        "SIGTTOU",
        "SIGURG",
        "SIGXCPU",
        "SIGXFSZ",
        "SIGVTALRM",
        "SIGPROF",
        "SIGWINCH",
        "SIGIO",
        "SIGPWR",
        "SIGSYS",
    ];
    usize::try_from(sig)
        .ok()
        .and_then(|i| i.checked_sub(1))
        .and_then(|i| NAMES.get(i).copied())
}

/// Text for an exit status: `exited with status 1` / `was killed by signal 9`.
pub(crate) fn describe_status(status: ExitStatus) -> String {
    match (status.code(), status.signal()) {
        (Some(c), _) => format!("exited with status {c}"),
        (None, Some(s)) => format!("was killed by signal {s}"),
        _ => "failed".to_string(),
    }
}

/// What went wrong in [`run`] (a program that fails or times out is not an error; see
/// [`RunResult`]).
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// The working directory does not exist.
    #[error("the working directory {} does not exist; create it or choose another", .cwd.display())]
    Cwd {
        /// The directory.
        cwd: PathBuf,
    },
    /// The stdin file could not be opened.
    #[error("cannot open the input file {} for stdin: {source}; check the path", .path.display())]
    Stdin {
        /// The file.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: io::Error,
    },
    /// The program could not be started.
    #[error("cannot start {}: {source}; check that it was built and is executable", .exe.display())]
    Spawn {
        /// The executable.
        exe: PathBuf,
        /// The underlying error.
        #[source]
        source: io::Error,
    },
    /// Waiting for the program failed.
    #[error("lost track of {} while waiting for it: {source}", .exe.display())]
    Wait {
        /// The executable.
        exe: PathBuf,
        /// The underlying error.
        #[source]
        source: io::Error,
    },
    /// Ctrl-C or SIGTERM stopped the run, killing the program's group ([`interrupt`]).
    #[error("interrupted")]
    Interrupted,
}

/// How long to keep reading output after the program ended (a background process that
/// inherited the pipes may keep them open).
const DRAIN_GRACE: Duration = Duration::from_secs(2);

/// The stack of a program's main thread: its soft limit is raised to this (or to the hard
/// limit, if lower). gfortran's `-fopenmp` implies `-frecursive`, which puts every local
/// array on the stack, so an OpenMP build of a program that runs with the usual 8 MiB
/// often stops on it (SIGSEGV) where its sequential build does not; a user raises the
/// limit (`ulimit -s`) to run such a build at all, and augur runs every program so. A
/// finite size keeps the usual address-space layout (an unlimited stack changes it).
pub const MAIN_STACK_BYTES: u64 = 4 << 30;

/// The variable that sizes the stacks of an OpenMP program's other threads.
pub const OMP_STACKSIZE: &str = "OMP_STACKSIZE";

/// The other threads' stacks, unless the environment sets [`OMP_STACKSIZE`] (the
/// runtime's default is 2-4 MiB; the pages are reserved, not touched).
pub const THREAD_STACK: &str = "256M";

/// Raises the calling process's soft stack limit to [`MAIN_STACK_BYTES`], at most its
/// hard limit; run in the child between fork and exec (async-signal-safe calls only).
fn raise_stack_limit() {
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: plain system calls on a local struct.
    unsafe {
        if libc::getrlimit(libc::RLIMIT_STACK, &mut limit) != 0 {
            return;
        }
        let wanted = (MAIN_STACK_BYTES as libc::rlim_t).min(limit.rlim_max);
        if limit.rlim_cur < wanted {
            limit.rlim_cur = wanted;
            libc::setrlimit(libc::RLIMIT_STACK, &limit);
        }
    }
}

/// Runs the executable with the spec.
///
/// The program's main thread gets a stack of up to [`MAIN_STACK_BYTES`] and its OpenMP
/// threads [`THREAD_STACK`] unless the environment sets [`OMP_STACKSIZE`].
///
/// stdin comes from the file if given, else `/dev/null`, so a program that reads input that
/// is not there gets end-of-file instead of hanging. The program runs in its own process
/// group; when the timeout is reached the whole group is killed with `SIGKILL` and the
/// result has `timed_out` set. Output is read on separate threads, so a program that writes
/// a lot cannot block on a full pipe. A program that fails is not an error: see
/// [`RunResult::success`] and [`RunResult::describe`].
///
/// The group is registered with [`interrupt`]: Ctrl-C or SIGTERM kills it and the run
/// returns [`RunError::Interrupted`] (so does a call once the work was cancelled).
pub fn run(exe: &Path, spec: &RunSpec) -> Result<RunResult, RunError> {
    if interrupt::cancelled() {
        return Err(RunError::Interrupted);
    }
    // A relative program path with a different working directory is ambiguous: make it
    // relative to our own working directory.
    let exe_abs = if exe.is_absolute() {
        exe.to_path_buf()
    } else {
        std::env::current_dir()
            .map(|d| d.join(exe))
            .unwrap_or_else(|_| exe.to_path_buf())
    };
    let mut cmd = Command::new(&exe_abs);
    cmd.args(&spec.args);
    if !spec.cwd.as_os_str().is_empty() {
        if !spec.cwd.is_dir() {
            return Err(RunError::Cwd {
                cwd: spec.cwd.clone(),
            });
        }
        cmd.current_dir(&spec.cwd);
    }
    if std::env::var_os(OMP_STACKSIZE).is_none() {
        cmd.env(OMP_STACKSIZE, THREAD_STACK);
    }
    for (k, v) in &spec.env {
        cmd.env(k, v);
    }
    match &spec.stdin {
        Some(path) => {
            let file = File::open(path).map_err(|source| RunError::Stdin {
                path: path.clone(),
                source,
            })?;
            cmd.stdin(Stdio::from(file));
        }
        None => {
            cmd.stdin(Stdio::null());
        }
    }
    if spec.capture {
        cmd.stdout(Stdio::piped()).stderr(Stdio::piped());
    } else {
        cmd.stdout(Stdio::inherit()).stderr(Stdio::inherit());
    }
    cmd.process_group(0);
    let fixed_addresses = spec.fixed_addresses;
    // SAFETY: `getrlimit`, `setrlimit` and `personality` are async-signal-safe and only
    // change the child's own limits and address-space layout; a refusal leaves them as
    // they were.
    unsafe {
        cmd.pre_exec(move || {
            raise_stack_limit();
            if fixed_addresses {
                libc::personality(libc::ADDR_NO_RANDOMIZE as libc::c_ulong);
            }
            Ok(())
        });
    }

    let cpu_before = children_cpu();
    let start = Instant::now();
    let mut child = cmd.spawn().map_err(|source| RunError::Spawn {
        exe: exe.to_path_buf(),
        source,
    })?;
    let pid = child.id();
    let group = interrupt::register_group(pid);

    let stdout_reader = child.stdout.take().map(Reader::start);
    let stderr_reader = child.stderr.take().map(Reader::start);

    // The watchdog kills the process group at the deadline unless told the child ended.
    let timed_out = Arc::new(AtomicBool::new(false));
    let (done_tx, done_rx) = mpsc::channel::<()>();
    let watchdog = {
        let timed_out = Arc::clone(&timed_out);
        let timeout = spec.timeout;
        thread::spawn(move || {
            if let Err(mpsc::RecvTimeoutError::Timeout) = done_rx.recv_timeout(timeout) {
                timed_out.store(true, Ordering::SeqCst);
                interrupt::kill_group(pid);
            }
        })
    };

    let waited = child.wait();
    let wall = start.elapsed();
    let cpu = children_cpu().saturating_sub(cpu_before);
    let _ = done_tx.send(());
    let _ = watchdog.join();
    let status = match waited {
        Ok(s) => s,
        Err(source) => {
            let _ = child.kill();
            group.kill();
            return Err(RunError::Wait {
                exe: exe.to_path_buf(),
                source,
            });
        }
    };

    // Children the program left running in its group (`sleep 600 &` from a shell it
    // ran) would outlive the run and keep its output pipes open: killed.
    let left_behind = interrupt::group_alive(pid);
    if left_behind {
        interrupt::kill_group(pid);
    }
    let deadline = Instant::now() + DRAIN_GRACE;
    let stdout = stdout_reader
        .map(|r| r.finish(Some(deadline)))
        .unwrap_or_default();
    let stderr = stderr_reader
        .map(|r| r.finish(Some(deadline)))
        .unwrap_or_default();
    drop(group);
    if interrupt::cancelled() {
        return Err(RunError::Interrupted);
    }
    Ok(RunResult {
        exit_code: status.code(),
        signal: status.signal(),
        stdout,
        stderr,
        wall,
        cpu,
        timed_out: timed_out.load(Ordering::SeqCst),
        left_behind,
    })
}

/// User plus system CPU time of all waited-for children of this process so far
/// (`getrusage(RUSAGE_CHILDREN)`); the difference around one run is that run's CPU
/// time, as runs are waited for one at a time.
fn children_cpu() -> Duration {
    // SAFETY: getrusage only writes the struct it is given.
    let mut u: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: a valid pointer to a rusage struct.
    if unsafe { libc::getrusage(libc::RUSAGE_CHILDREN, &mut u) } != 0 {
        return Duration::ZERO;
    }
    let tv = |t: libc::timeval| {
        Duration::from_secs(t.tv_sec.max(0) as u64) + Duration::from_micros(t.tv_usec.max(0) as u64)
    };
    tv(u.ru_utime) + tv(u.ru_stime)
}

/// The first bytes of a program's output kept whole.
pub const KEPT_HEAD: usize = 16 << 20;
/// The last bytes of a program's output kept beside the first ([`KEPT_HEAD`]): where its
/// final messages are.
pub const KEPT_TAIL: usize = 1 << 20;

/// How many bytes of a kept output ([`Kept`]) were left out between its first
/// [`KEPT_HEAD`] and last [`KEPT_TAIL`] bytes (`None`: it is whole). Text looked for in
/// an output (a program's message of success) may be in the part left out.
pub fn output_left_out(kept: &[u8]) -> Option<u64> {
    let rest = kept.get(KEPT_HEAD..)?;
    let text = rest.strip_prefix(b"\n[augur: ")?;
    let end = text.iter().position(|b| *b == b' ')?;
    let n: u64 = std::str::from_utf8(&text[..end]).ok()?.parse().ok()?;
    text[end..]
        .starts_with(b" bytes of output left out here]\n")
        .then_some(n)
}

/// A program's output as kept: its first [`KEPT_HEAD`] and last [`KEPT_TAIL`] bytes (a
/// program that writes gigabytes does not fill augur's memory), and how many were left
/// out between them.
#[derive(Debug, Default)]
pub(crate) struct Kept {
    bytes: Vec<u8>,
    dropped: u64,
}

impl Kept {
    /// Appends `chunk`, leaving out the middle once the output outgrows what is kept
    /// (by a tail's length at a time, so that each byte is moved at most once).
    pub(crate) fn push(&mut self, chunk: &[u8]) {
        self.bytes.extend_from_slice(chunk);
        if self.bytes.len() > KEPT_HEAD + 2 * KEPT_TAIL {
            self.keep_ends();
        }
    }

    /// Leaves out the bytes between the first [`KEPT_HEAD`] and the last [`KEPT_TAIL`].
    fn keep_ends(&mut self) {
        if self.bytes.len() > KEPT_HEAD + KEPT_TAIL {
            let cut = self.bytes.len() - KEPT_TAIL;
            self.dropped += (cut - KEPT_HEAD) as u64;
            self.bytes.drain(KEPT_HEAD..cut);
        }
    }

    /// The bytes kept, with a line where some were left out.
    pub(crate) fn into_bytes(mut self) -> Vec<u8> {
        if self.dropped > 0 {
            self.keep_ends();
            let note = format!(
                "\n[augur: {} bytes of output left out here]\n",
                self.dropped
            );
            self.bytes.splice(KEPT_HEAD..KEPT_HEAD, note.into_bytes());
        }
        self.bytes
    }
}

/// A thread that reads a pipe to its end into a shared buffer.
pub(crate) struct Reader {
    buf: Arc<Mutex<Kept>>,
    done: mpsc::Receiver<()>,
}

impl Reader {
    /// Starts reading `pipe`.
    pub(crate) fn start<R: Read + Send + 'static>(mut pipe: R) -> Reader {
        let buf = Arc::new(Mutex::new(Kept::default()));
        let (tx, done) = mpsc::channel();
        let shared = Arc::clone(&buf);
        thread::spawn(move || {
            let mut chunk = [0u8; 65536];
            loop {
                match pipe.read(&mut chunk) {
                    Ok(0) => break,
                    Ok(n) => {
                        if let Ok(mut b) = shared.lock() {
                            b.push(&chunk[..n]);
                        }
                    }
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                    Err(_) => break,
                }
            }
            let _ = tx.send(());
        });
        Reader { buf, done }
    }

    /// Waits for the end of the pipe until `deadline` (`None`: however long it takes) or
    /// an interrupt, then returns what was read.
    pub(crate) fn finish(self, deadline: Option<Instant>) -> Vec<u8> {
        const POLL: Duration = Duration::from_millis(50);
        loop {
            let left = deadline.map_or(POLL, |d| d.saturating_duration_since(Instant::now()));
            match self.done.recv_timeout(left.min(POLL)) {
                Err(mpsc::RecvTimeoutError::Timeout)
                    if !interrupt::cancelled() && left > Duration::ZERO => {}
                _ => break,
            }
        }
        match self.buf.lock() {
            Ok(mut b) => std::mem::take(&mut *b).into_bytes(),
            Err(poisoned) => std::mem::take(&mut *poisoned.into_inner()).into_bytes(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An output beyond what is kept keeps its first and last bytes, says how much it
    /// left out, and never holds much more than it keeps while it grows.
    #[test]
    fn a_long_output_keeps_its_ends() {
        let mut k = Kept::default();
        let chunk: Vec<u8> = (0..65536u32).map(|i| (i % 251) as u8).collect();
        let chunks = (KEPT_HEAD + 5 * KEPT_TAIL) / chunk.len() + 3;
        for _ in 0..chunks {
            k.push(&chunk);
            assert!(k.bytes.len() <= KEPT_HEAD + 2 * KEPT_TAIL + chunk.len());
        }
        k.push(b"last words");
        let total = chunks * chunk.len() + 10;
        let bytes = k.into_bytes();
        assert!(bytes.ends_with(b"last words"));
        assert_eq!(&bytes[..chunk.len()], &chunk[..]);
        let note = format!(
            "\n[augur: {} bytes of output left out here]\n",
            total - KEPT_HEAD - KEPT_TAIL
        );
        assert_eq!(&bytes[KEPT_HEAD..KEPT_HEAD + note.len()], note.as_bytes());
        assert_eq!(bytes.len(), KEPT_HEAD + KEPT_TAIL + note.len());
        let left_out = (total - KEPT_HEAD - KEPT_TAIL) as u64;
        assert_eq!(output_left_out(&bytes), Some(left_out));
        assert_eq!(output_left_out(&chunk), None);
    }

    /// A short output is kept whole, without a note.
    #[test]
    fn a_short_output_is_kept_whole() {
        let mut k = Kept::default();
        k.push(b"hello\n");
        assert_eq!(k.into_bytes(), b"hello\n");
    }

    /// A program killed by SIGKILL without a time limit reached names the kernel's
    /// out-of-memory killer, the only sender left.
    #[test]
    fn a_kill_names_the_memory() {
        let r = RunResult {
            exit_code: None,
            signal: Some(libc::SIGKILL),
            stdout: vec![],
            stderr: vec![],
            wall: Duration::from_secs(1),
            cpu: Duration::from_secs(1),
            timed_out: false,
            left_behind: false,
        };
        assert!(
            r.describe().contains("ran out of memory"),
            "{}",
            r.describe()
        );
        let r = RunResult {
            signal: Some(libc::SIGSEGV),
            ..r
        };
        assert_eq!(r.describe(), "killed by signal 11 (SIGSEGV)");
    }
}
