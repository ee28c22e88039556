//! Ctrl-C and SIGTERM stop `augur analyze`, `validate` and `characterize` within a second
//! at every stage (the build, the counting run, the optimization report, the branch run,
//! the timed runs, the experiments), with real gfortran and real runs: exit status 130 and
//! the one line `interrupted` (not the forced exit), no child process left, no temporary
//! directory (nor compiler scratch file) left in the `TMPDIR` augur was given, and no output
//! file, or the previous one byte-identical.
//!
//! Work that does not poll the interrupt flag (here the front-end benchmark) ends by the
//! forced exit within the second: `interrupted (forced exit)`, and its registered temporary
//! directory removed all the same.
//!
//! The moment to signal is chosen by watching the processes augur starts (a compiler on
//! a given source, or the program of a stage) or the files it writes, not by sleeps. Ctrl-C is SIGINT to augur's
//! process group, as a terminal sends it (augur runs in a group of its own here, so its
//! children, each in a group of their own, do not get it); SIGTERM goes to augur alone.

use std::collections::{BTreeMap, BTreeSet};
use std::io::Read;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// The longest an interrupted augur may take to exit.
const STOP_WITHIN: Duration = Duration::from_secs(1);
/// How long a case may take to reach its stage.
const STAGE_WITHIN: Duration = Duration::from_secs(60);

/// These tests run the real compiler: without it they fail (never skip silently).
fn require_gfortran() {
    assert!(
        Command::new("gfortran").arg("--version").output().is_ok(),
        "gfortran not found: these tests need it (scripts/setup.sh installs it)"
    );
}

/// An argument that stands for the library's gfortran -O2 machine profile.
const MACHINE: &str = "<machine>";

/// `args` with [`MACHINE`] replaced by the profile's path.
fn with_machine(args: &[&str]) -> Vec<String> {
    let path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../machines/gfortran12-O2-epyc-2core.toml");
    args.iter()
        .map(|&a| {
            if a == MACHINE {
                path.display().to_string()
            } else {
                a.to_string()
            }
        })
        .collect()
}

/// A program that runs for the seconds given as its argument (a wall-clock loop, so the
/// time does not depend on the machine), with a condition for the branch run.
const SPIN: &str = "\
program spin
  implicit none
  integer(8) :: t0, t, rate
  real(8) :: s, secs
  character(len=32) :: arg
  integer :: i
  secs = 2.0d0
  if (command_argument_count() > 0) then
    call get_command_argument(1, arg)
    read (arg, *) secs
  end if
  call system_clock(t0, rate)
  s = 0.0d0
  do
    do i = 1, 20000
      if (mod(i, 3) == 0) then
        s = s + sin(dble(i))
      else
        s = s - 1.0d-3
      end if
    end do
    call system_clock(t)
    if (dble(t - t0) / dble(rate) > secs) exit
  end do
  print *, s
end program spin
";

/// A program that takes the compiler a while (about a second at -O0): a long chain of
/// statements.
fn slow_source() -> String {
    let mut s = String::from("program slow\n  implicit none\n  real(8) :: x(4000)\n  x = 1.0d0\n");
    for k in 3..1200 {
        s.push_str(&format!(
            "  x({k}) = x({})*1.0001d0 + sin(x({})) + x({})\n",
            k - 1,
            k - 2,
            k % 97 + 1
        ));
    }
    s.push_str("  print *, sum(x)\nend program slow\n");
    s
}

/// How the signal is sent.
#[derive(Debug, Clone, Copy)]
enum Signal {
    /// SIGINT to augur's process group, as a terminal's Ctrl-C.
    CtrlC,
    /// SIGTERM to augur alone, as `kill PID`.
    Term,
}

/// The stage to interrupt, told by a process augur started.
#[derive(Debug, Clone, Copy)]
enum Stage {
    /// The Fortran compiler proper (`f951`) with every one of these in its command line.
    Compiling(&'static [&'static str]),
    /// A program of this file name runs (after it ran this long).
    Running(&'static str, Duration),
    /// A file of this name appeared in a directory of augur's `TMPDIR` (this long ago).
    Written(&'static str, Duration),
}

/// One process of `/proc`.
#[derive(Debug)]
struct Proc {
    pid: u32,
    pgid: u32,
    /// `R`, `S`, `D`, `Z`...
    state: char,
    /// The arguments, joined with spaces.
    cmdline: String,
}

/// Every process now.
fn processes() -> Vec<Proc> {
    let mut out = Vec::new();
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return out;
    };
    for e in entries.flatten() {
        let Some(pid) = e.file_name().to_str().and_then(|s| s.parse::<u32>().ok()) else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(e.path().join("stat")) else {
            continue;
        };
        // `pid (comm) state ppid pgrp ...`; comm may hold spaces and parentheses.
        let Some(after) = stat.rfind(')').map(|i| &stat[i + 1..]) else {
            continue;
        };
        let fields: Vec<&str> = after.split_whitespace().collect();
        let (Some(state), Some(pgid)) = (
            fields.first().and_then(|s| s.chars().next()),
            fields.get(2).and_then(|s| s.parse().ok()),
        ) else {
            continue;
        };
        let cmdline = std::fs::read(e.path().join("cmdline"))
            .map(|b| {
                b.split(|&c| c == 0)
                    .filter(|a| !a.is_empty())
                    .map(|a| String::from_utf8_lossy(a).into_owned())
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .unwrap_or_default();
        out.push(Proc {
            pid,
            pgid,
            state,
            cmdline,
        });
    }
    out
}

impl Stage {
    /// Whether the case is at this stage, given every process now.
    fn reached(&self, case: &Case, all: &[Proc]) -> bool {
        let root = case.root_str();
        let program = |p: &Proc| {
            let argv0 = p.cmdline.split(' ').next().unwrap_or("");
            let name = Path::new(argv0).file_name().and_then(|n| n.to_str());
            (argv0.starts_with(&root), name.map(str::to_string))
        };
        match self {
            Stage::Compiling(words) => all.iter().any(|p| {
                program(p).1.as_deref() == Some("f951")
                    && words.iter().all(|w| p.cmdline.contains(w))
            }),
            Stage::Running(name, _) => all.iter().any(|p| {
                let (ours, n) = program(p);
                ours && n.as_deref() == Some(*name)
            }),
            Stage::Written(name, _) => std::fs::read_dir(case.tmp())
                .unwrap()
                .flatten()
                .any(|d| d.path().join(name).exists()),
        }
    }

    /// How long to let the stage go on before the signal.
    fn settle(&self) -> Duration {
        match self {
            Stage::Compiling(_) => Duration::ZERO,
            Stage::Running(_, d) | Stage::Written(_, d) => *d,
        }
    }
}

/// Every file under `dir` with its bytes (relative names).
fn snapshot(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                out.insert(
                    p.strip_prefix(dir).unwrap().to_path_buf(),
                    b"<dir>".to_vec(),
                );
                stack.push(p);
            } else {
                let bytes = std::fs::read(&p).unwrap_or_default();
                out.insert(p.strip_prefix(dir).unwrap().to_path_buf(), bytes);
            }
        }
    }
    out
}

/// A case's directories: `src` (the sources and the working directory; its files are
/// the "previous outputs"), `tmp` (augur's `TMPDIR`, empty at the start).
struct Case {
    root: tempfile::TempDir,
}

impl Case {
    fn new() -> Case {
        let root = tempfile::tempdir().unwrap();
        std::fs::create_dir(root.path().join("src")).unwrap();
        std::fs::create_dir(root.path().join("tmp")).unwrap();
        std::fs::write(root.path().join("src/spin.f90"), SPIN).unwrap();
        std::fs::write(root.path().join("src/slow.f90"), slow_source()).unwrap();
        // An earlier output that an interrupted run must leave as it is.
        std::fs::write(
            root.path().join("src/previous.out"),
            "an earlier output, kept byte for byte\n",
        )
        .unwrap();
        Case { root }
    }

    fn src(&self) -> PathBuf {
        self.root.path().join("src")
    }

    fn tmp(&self) -> PathBuf {
        self.root.path().join("tmp")
    }

    fn root_str(&self) -> String {
        self.root.path().display().to_string()
    }
}

/// A running augur with its stderr read on a thread.
struct Augur {
    child: Child,
    stderr: JoinHandle<String>,
}

impl Augur {
    fn start(case: &Case, args: &[&str]) -> Augur {
        let mut child = Command::new(env!("CARGO_BIN_EXE_augur"))
            .args(with_machine(args))
            .current_dir(case.src())
            .env("TMPDIR", case.tmp())
            .env_remove("AUGUR_MACHINES")
            .process_group(0)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut pipe = child.stderr.take().unwrap();
        let stderr = std::thread::spawn(move || {
            let mut s = String::new();
            let _ = pipe.read_to_string(&mut s);
            s
        });
        Augur { child, stderr }
    }

    fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Kills augur's group (after a failure, so that nothing is left behind) and returns
    /// what it wrote on stderr.
    fn abandon(mut self) -> String {
        // SAFETY: kill only sends a signal, to augur's own group (its pid, > 1).
        unsafe { libc::kill(-(self.pid() as i32), libc::SIGKILL) };
        let _ = self.child.wait();
        self.stderr.join().unwrap_or_default()
    }
}

/// What an interrupted augur did.
struct Stopped {
    status: ExitStatus,
    took: Duration,
    stderr: String,
    /// The process groups of the processes of the case seen while it ran, augur's own too.
    groups: BTreeSet<u32>,
}

/// Runs augur with `args`, waits for `stage`, sends `signal`, and waits (at most 5 s) for
/// augur to exit.
fn interrupt_at(case: &Case, args: &[&str], stage: Stage, signal: Signal) -> Stopped {
    let root = case.root_str();
    let mut augur = Augur::start(case, args);
    let mut groups: BTreeSet<u32> = BTreeSet::from([augur.pid()]);
    // Every process now, noting the groups of the case's processes.
    let note = |groups: &mut BTreeSet<u32>| -> Vec<Proc> {
        let all = processes();
        groups.extend(
            all.iter()
                .filter(|p| p.cmdline.contains(&root))
                .map(|p| p.pgid),
        );
        all
    };
    let started = Instant::now();
    loop {
        let all = note(&mut groups);
        if stage.reached(case, &all) {
            break;
        }
        if let Ok(Some(status)) = augur.child.try_wait() {
            let err = augur.abandon();
            panic!("augur ended ({status}) before {stage:?}:\n{err}");
        }
        if started.elapsed() > STAGE_WITHIN {
            let err = augur.abandon();
            panic!("augur did not reach {stage:?} in {STAGE_WITHIN:?}:\n{err}");
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    if stage.settle() > Duration::ZERO {
        std::thread::sleep(stage.settle());
        note(&mut groups);
    }
    let pid = augur.pid() as i32;
    let sent = Instant::now();
    // SAFETY: kill only sends a signal, to augur (its pid > 1) or to its own group.
    let sent_ok = unsafe {
        match signal {
            Signal::CtrlC => libc::kill(-pid, libc::SIGINT),
            Signal::Term => libc::kill(pid, libc::SIGTERM),
        }
    } == 0;
    assert!(sent_ok, "cannot signal augur");
    let status = loop {
        if let Some(status) = augur.child.try_wait().unwrap() {
            break status;
        }
        if sent.elapsed() > Duration::from_secs(5) {
            let err = augur.abandon();
            panic!("augur did not stop within 5 s of {signal:?} at {stage:?}:\n{err}");
        }
        std::thread::sleep(Duration::from_millis(2));
    };
    let took = sent.elapsed();
    let stderr = augur.stderr.join().unwrap_or_default();
    Stopped {
        status,
        took,
        stderr,
        groups,
    }
}

/// The processes of the case still alive: any in a group seen while augur ran, or with
/// the case's directory on its command line. Zombies (dead, not yet reaped) do not count;
/// processes killed a moment ago are given 300 ms to go.
fn left_over(case: &Case, groups: &BTreeSet<u32>) -> Vec<String> {
    let root = case.root_str();
    let until = Instant::now() + Duration::from_millis(300);
    loop {
        let alive: Vec<String> = processes()
            .into_iter()
            .filter(|p| !matches!(p.state, 'Z' | 'X'))
            .filter(|p| groups.contains(&p.pgid) || p.cmdline.contains(&root))
            .map(|p| format!("{} (group {}): {}", p.pid, p.pgid, p.cmdline))
            .collect();
        if alive.is_empty() || Instant::now() > until {
            return alive;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Interrupts augur `args` at `stage` with `signal` and checks that it stopped cleanly,
/// by unwinding.
fn check(args: &[&str], stage: Stage, signal: Signal) {
    check_ending(args, stage, signal, "interrupted");
}

/// Interrupts augur `args` at `stage` with `signal` and checks that it stopped cleanly,
/// its last line on stderr being `last_line`.
fn check_ending(args: &[&str], stage: Stage, signal: Signal, last_line: &str) {
    require_gfortran();
    let case = Case::new();
    let before = snapshot(&case.src());
    let stopped = interrupt_at(&case, args, stage, signal);
    let what = format!("augur {} at {stage:?} by {signal:?}", args.join(" "));
    eprintln!("{what}: stopped in {:?}", stopped.took);
    let err = &stopped.stderr;
    let leftovers = left_over(&case, &stopped.groups);
    for p in &leftovers {
        // Leave nothing running after a failure.
        if let Some(pid) = p.split(' ').next().and_then(|s| s.parse::<i32>().ok()) {
            // SAFETY: kill only sends a signal, to a process of this case (pid > 1).
            unsafe { libc::kill(pid, libc::SIGKILL) };
        }
    }
    assert_eq!(stopped.status.code(), Some(130), "{what}: {err}");
    assert!(
        stopped.took < STOP_WITHIN,
        "{what}: took {:?} to stop:\n{err}",
        stopped.took
    );
    let last = err
        .lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("");
    assert_eq!(last, last_line, "{what}:\n{err}");
    assert!(!err.contains("panicked"), "{what}:\n{err}");
    assert!(leftovers.is_empty(), "{what}: left running: {leftovers:#?}");
    let tmp_left: Vec<_> = std::fs::read_dir(case.tmp())
        .unwrap()
        .flatten()
        .map(|e| e.file_name())
        .collect();
    assert!(tmp_left.is_empty(), "{what}: left in TMPDIR: {tmp_left:?}");
    let after = snapshot(&case.src());
    assert!(
        after == before,
        "{what}: the outputs changed: before {:?}, after {:?}",
        before.keys().collect::<Vec<_>>(),
        after.keys().collect::<Vec<_>>()
    );
}

/// How long a program runs before the signal: long enough to be well into its run.
const SHORT: Duration = Duration::from_millis(200);

/// One test per case: `name: augur's arguments, the stage, the signal;`.
macro_rules! interrupt_tests {
    ($($name:ident: $args:expr, $stage:expr, $signal:expr;)*) => {
        $(
            #[test]
            fn $name() {
                check($args, $stage, $signal);
            }
        )*
    };
}

interrupt_tests! {
    analyze_stops_during_the_build_on_ctrl_c:
        &["analyze", "slow.f90", "--fflags", "-O0"],
        Stage::Compiling(&["aug0_slow.f90"]), Signal::CtrlC;
    analyze_stops_during_the_build_on_sigterm:
        &["analyze", "slow.f90", "--fflags", "-O0", "-o", "previous.out"],
        Stage::Compiling(&["aug0_slow.f90"]), Signal::Term;
    analyze_stops_during_the_counting_run_on_sigterm:
        &["analyze", "spin.f90", "--args", "3", "-o", "previous.out"],
        Stage::Running("augur_instrumented", SHORT), Signal::Term;
    analyze_stops_during_the_optimization_report_on_ctrl_c:
        &["analyze", "slow.f90", "--fflags", "-O0"],
        Stage::Compiling(&["-fopt-info", "slow.f90"]), Signal::CtrlC;
    analyze_stops_during_the_branch_run_on_ctrl_c:
        &["analyze", "spin.f90", "--args", "1", "-o", "previous.out"],
        Stage::Running("augur_branches", SHORT), Signal::CtrlC;
    validate_stops_during_the_timed_runs_on_ctrl_c:
        &["validate", "spin.f90", "--args", "0.5", "--runs", "1", "-o", "previous.out", "-m", MACHINE],
        Stage::Running("augur_plain", SHORT), Signal::CtrlC;
    validate_stops_during_the_normal_build_on_sigterm:
        &["validate", "slow.f90", "--fflags", "-O0", "--runs", "1", "-m", MACHINE],
        Stage::Compiling(&["augur-validate", "slow.f90"]), Signal::Term;
    // --precise: 20 observations of 80 ms, so that the experiment still runs when the
    // signal comes (the default's 6 x 15 ms could end within the settling time).
    characterize_stops_during_the_experiments_on_ctrl_c:
        &["characterize", "--only", "ARDL", "--precise", "-o", "previous.out"],
        Stage::Running("augchar", SHORT), Signal::CtrlC;
    characterize_stops_during_the_build_on_sigterm:
        &["characterize", "--only", "ARDL", "-o", "previous.out"],
        Stage::Compiling(&["augchar.f90"]), Signal::Term;
    // The complete characterization runs the memory experiments beside the AbOps': both
    // stop, on both cores.
    characterize_stops_with_its_two_phases_side_by_side_on_ctrl_c:
        &["characterize", "-o", "previous.out"],
        Stage::Running("augmem", SHORT), Signal::CtrlC;
}

#[test]
fn work_that_does_not_poll_ends_by_the_forced_exit() {
    check_ending(
        &[
            "bench",
            "front-end",
            "--lines",
            "20000",
            "--repeat",
            "100000",
        ],
        Stage::Written("generated.f90", Duration::from_millis(300)),
        Signal::CtrlC,
        "interrupted (forced exit)",
    );
}
