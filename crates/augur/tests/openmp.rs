//! End-to-end tests of OpenMP programs with the real compiler and runtime: `augur
//! characterize --openmp`, `augur analyze --threads`, `augur predict --threads` with its
//! speedup curve and timeline, `augur validate --threads` on the wall clock, and the
//! errors a user can make with them.

mod page;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn augur() -> Command {
    Command::new(env!("CARGO_BIN_EXE_augur"))
}

fn ok(o: &Output) -> (String, String) {
    let out = String::from_utf8_lossy(&o.stdout).to_string();
    let err = String::from_utf8_lossy(&o.stderr).to_string();
    assert!(o.status.success(), "{out}\n{err}");
    (out, err)
}

/// The Zen 3 machine profile with an `[openmp]` section kept in the repository.
fn machine() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../measurements/openmp-zen3-2026-11-26-b/zen3-O2-openmp.toml")
}

/// A triangular loop under a static schedule (thread 1 gets three times thread 0's
/// work at 2 threads), a balanced one, and a critical section.
const PROGRAM: &str = "\
program tri
  implicit none
  integer, parameter :: n = 2000
  integer :: i, j, hits
  real(8) :: a(n), s
  a = 0
  hits = 0
!$omp parallel do schedule(static) private(j)
  do i = 1, n
    do j = 1, i
      a(i) = a(i) + 1.0d0 / j
    end do
  end do
!$omp end parallel do
  s = 0
!$omp parallel do reduction(+:s)
  do i = 1, n
    s = s + sqrt(a(i))
  end do
!$omp parallel
!$omp critical
  hits = hits + 1
!$omp end critical
!$omp end parallel
  print *, nint(s), hits > 0
end program tri
";

fn analyzed(dir: &Path, threads: &str) -> PathBuf {
    let src = dir.join("tri.f90");
    std::fs::write(&src, PROGRAM).unwrap();
    let prof = dir.join("tri.json");
    ok(&augur()
        .current_dir(dir)
        .args(["analyze", "tri.f90", "--threads", threads, "-o"])
        .arg(&prof)
        .output()
        .unwrap());
    prof
}

/// `source` written to `DIR/NAME.f90` and analyzed at 1 and 2 threads into
/// `DIR/NAME.json`, which is returned.
fn analyzed_at_two_threads(dir: &Path, name: &str, source: &str) -> PathBuf {
    let src = dir.join(format!("{name}.f90"));
    std::fs::write(&src, source).unwrap();
    let prof = dir.join(format!("{name}.json"));
    ok(&augur()
        .current_dir(dir)
        .arg("analyze")
        .arg(&src)
        .args(["--threads", "1,2", "-o"])
        .arg(&prof)
        .output()
        .unwrap());
    prof
}

/// The points of `augur predict PROF --threads 1,2 --json` on [`machine`].
fn predicted_points(prof: &Path) -> serde_json::Value {
    predicted_points_on(prof, &machine())
}

/// The points of `augur predict PROF --threads 1,2 --json` on `machine`.
fn predicted_points_on(prof: &Path, machine: &Path) -> serde_json::Value {
    let (json, _) = ok(&augur()
        .arg("predict")
        .arg(prof)
        .arg("-m")
        .arg(machine)
        .args(["--threads", "1,2", "--json"])
        .output()
        .unwrap());
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    v["machines"][0]["prediction"]["points"].clone()
}

#[test]
fn predict_at_thread_counts_with_figures() {
    let dir = tempfile::tempdir().unwrap();
    let prof = analyzed(dir.path(), "1,2,4");
    let (speedup, gantt) = (dir.path().join("s.svg"), dir.path().join("g.svg"));
    let (out, _) = ok(&augur()
        .arg("predict")
        .arg(&prof)
        .arg("-m")
        .arg(machine())
        .args(["--threads", "1,2,4", "--plot"])
        .arg(&speedup)
        .arg("--gantt")
        .arg(&gantt)
        .output()
        .unwrap());
    // One row per thread count, the imbalance of the triangle, the cores noted.
    for p in ["      1 ", "      2 ", "      4 "] {
        assert!(
            out.lines().any(|l| l.starts_with(p)),
            "no row {p:?}:\n{out}"
        );
    }
    assert!(out.contains("4 threads share 2 cores"), "{out}");
    assert!(out.contains("extrapolated:"), "{out}");
    assert!(out.contains("tri.f90:8 parallel do"), "{out}");
    let points = predicted_points(&prof);
    let json = points.to_string();
    let t = |k: usize| points[k]["seconds"].as_f64().unwrap();
    let speed = t(0) / t(1);
    assert!(speed > 1.0 && speed < 2.0, "speedup at 2 threads {speed}");
    // The triangle's imbalance: thread 1 has three times thread 0's rows of work.
    assert!(points[1]["imbalance"].as_f64().unwrap() > 0.0, "{json}");
    let s = std::fs::read_to_string(&speedup).unwrap();
    assert!(s.starts_with("<svg") && s.contains("ideal") && s.contains("2 cores"));
    let g = std::fs::read_to_string(&gantt).unwrap();
    assert!(g.starts_with("<svg") && g.contains("thread 3") && g.contains("waiting (imbalance)"));
}

#[test]
fn a_machine_without_an_openmp_section_says_so_first_and_shares_its_cores() {
    let dir = tempfile::tempdir().unwrap();
    let prof = analyzed(dir.path(), "1,2,4");
    // The Zen 3 profile without its [openmp] section: its provenance still says 2 cores.
    let mut m = augur_machine_profile::MachineProfile::read(&machine()).unwrap();
    assert_eq!(m.provenance.cores, 2);
    m.openmp = None;
    let bare = dir.path().join("bare.toml");
    m.write(&bare).unwrap();
    let (out, _) = ok(&augur()
        .arg("predict")
        .arg(&prof)
        .arg("-m")
        .arg(&bare)
        .args(["--threads", "1,2,4"])
        .output()
        .unwrap());
    let second = out.lines().nth(1).unwrap_or_default();
    assert!(
        second.starts_with("warning: the machine profile has no [openmp] section"),
        "{out}"
    );
    assert!(out.contains("4 threads share 2 cores"), "{out}");
}

#[test]
fn thread_counts_not_counted_and_sequential_profiles_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let prof = analyzed(dir.path(), "1,2");
    let o = augur()
        .arg("predict")
        .arg(&prof)
        .arg("-m")
        .arg(machine())
        .args(["--threads", "1,8"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success());
    assert!(
        err.contains("not at 8") && err.contains("--threads including 8"),
        "{err}"
    );
    // A sequential analysis has no per-thread counts.
    let seq = dir.path().join("seq.json");
    ok(&augur()
        .current_dir(dir.path())
        .args(["analyze", "tri.f90", "-o"])
        .arg(&seq)
        .output()
        .unwrap());
    let o = augur()
        .arg("predict")
        .arg(&seq)
        .arg("-m")
        .arg(machine())
        .args(["--threads", "2"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        !o.status.success() && err.contains("augur analyze --threads"),
        "{err}"
    );
}

#[test]
fn validate_times_each_thread_count_on_the_wall_clock() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("tri.f90"), PROGRAM).unwrap();
    let (out, _) = ok(&augur()
        .current_dir(dir.path())
        .args([
            "validate",
            "tri.f90",
            "--threads",
            "1,2",
            "--runs",
            "1",
            "-m",
        ])
        .arg(machine())
        .output()
        .unwrap());
    assert!(
        out.contains("-fopenmp") && out.contains("wall clock"),
        "{out}"
    );
    let rows: Vec<&str> = out
        .lines()
        .filter(|l| l.starts_with("      1 ") || l.starts_with("      2 "))
        .collect();
    assert_eq!(rows.len(), 2, "{out}");
    assert!(rows.iter().all(|r| r.contains('%')), "{out}");
}

/// A program each run of which spins 40 ms longer than the one before (a count kept in
/// the file `COUNTER`): its timed runs spread as on a busy machine.
const SLOWER_EACH_RUN: &str = "\
program slower
  implicit none
  integer :: c, u, i
  integer(8) :: t0, t, rate
  logical :: e
  real(8) :: s
  c = 0
  inquire(file='COUNTER', exist=e)
  if (e) then
    open(newunit=u, file='COUNTER', status='old')
    read(u, *) c
    close(u)
  end if
  c = c + 1
  open(newunit=u, file='COUNTER', status='replace')
  write(u, *) c
  close(u)
  call system_clock(t0, rate)
  do
    call system_clock(t)
    if (t - t0 > c * rate / 25) exit
  end do
  s = 0
!$omp parallel do reduction(+:s)
  do i = 1, 1000
    s = s + sqrt(dble(i))
  end do
!$omp end parallel do
  print *, nint(s)
end program slower
";

#[test]
fn validate_threads_warns_when_the_timed_runs_spread() {
    let dir = tempfile::tempdir().unwrap();
    let counter = dir.path().join("count.txt");
    let program = SLOWER_EACH_RUN.replace("COUNTER", counter.to_str().unwrap());
    std::fs::write(dir.path().join("slower.f90"), program).unwrap();
    let validate = |json: bool| {
        let _ = std::fs::remove_file(&counter);
        let mut cmd = augur();
        cmd.current_dir(dir.path())
            .args(["validate", "slower.f90", "--threads", "1,2", "--runs", "2"])
            .args(if json { &["--json"][..] } else { &[][..] })
            .arg("-m")
            .arg(machine());
        ok(&cmd.output().unwrap())
    };
    let busy = |w: &str, threads: u32| {
        w.contains(&format!("the timed runs at {threads} thread(s) spread"))
            && w.contains("something else was running")
    };
    let (_, err) = validate(false);
    assert!(busy(&err, 1) && busy(&err, 2), "{err}");
    let (out, _) = validate(true);
    let doc: serde_json::Value = serde_json::from_str(&out).unwrap();
    let warnings: Vec<&str> = doc["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|w| w.as_str())
        .collect();
    for threads in [1, 2] {
        assert!(warnings.iter().any(|w| busy(w, threads)), "{out}");
    }
}

#[test]
fn characterize_openmp_writes_its_section() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("m.toml");
    let (text, _) = ok(&augur()
        .args(["characterize", "--openmp", "--quick", "-o"])
        .arg(&out)
        .output()
        .unwrap());
    assert!(
        text.contains("OpenMP overheads") && text.contains("triad bandwidth"),
        "{text}"
    );
    let toml = std::fs::read_to_string(&out).unwrap();
    let m: augur_machine_profile::MachineProfile = toml::from_str(&toml).unwrap();
    let o = m.openmp.expect("an [openmp] section");
    assert_eq!(o.threads.first(), Some(&1));
    for construct in [
        "parallel",
        "barrier",
        "critical",
        "atomic",
        "dynamic",
        "reduction",
    ] {
        let row = o
            .overheads
            .iter()
            .find(|r| r.construct == construct && r.threads == 1)
            .unwrap_or_else(|| panic!("no {construct} at 1 thread"));
        // One thread shares no line with another: its stores cost what padded ones do.
        let least = if construct == "false_sharing" {
            -1e-6
        } else {
            0.0
        };
        // A construct as cheap as the loop around it (a critical section at one thread,
        // a few ns) measures near zero: its interval, not its point, must admit a cost.
        assert!(
            row.seconds + row.half_width > least && row.seconds < 1e-3,
            "{row:?}"
        );
    }
    // False sharing from 2 threads on (one thread shares no line).
    let sharing: Vec<u32> = o
        .overheads
        .iter()
        .filter(|r| r.construct == "false_sharing")
        .map(|r| r.threads)
        .collect();
    let from_two: Vec<u32> = o.threads.iter().copied().filter(|&p| p > 1).collect();
    assert_eq!(sharing, from_two);
    assert!(o
        .bandwidths
        .iter()
        .any(|b| b.level == "memory" && b.bytes_per_second > 1e9));
}

/// Per-thread accumulators: one word apart (false sharing) and a line apart.
const ACCUMULATORS: &str = "\
program acc
  use omp_lib
  implicit none
  integer, parameter :: n = 200000, stride = STRIDE
  integer(8), volatile :: w(0:64)
  integer :: i, tid
  w = 0
!$omp parallel private(tid, i)
  tid = omp_get_thread_num()
!$omp do
  do i = 1, n
    w(stride * tid) = w(stride * tid) + i
  end do
!$omp end do
!$omp end parallel
  print *, sum(w)
end program acc
";

#[test]
fn stores_into_a_line_threads_share_cost_each_thread() {
    let dir = tempfile::tempdir().unwrap();
    let sharing = |stride: &str| -> f64 {
        let prof = analyzed_at_two_threads(
            dir.path(),
            &format!("acc{stride}"),
            &ACCUMULATORS.replace("STRIDE", stride),
        );
        let points = predicted_points(&prof);
        assert_eq!(points[0]["line_sharing"].as_f64(), Some(0.0), "{points}");
        points[1]["line_sharing"].as_f64().unwrap()
    };
    // 100,000 stores per thread at the measured cost of a store into a shared line.
    let adjacent = sharing("1");
    assert!(adjacent > 1e-4 && adjacent < 0.1, "{adjacent}");
    assert_eq!(sharing("8"), 0.0);
}

/// Two equal sections: thread 0 runs one, thread 1 the other.
const SECTIONS: &str = "\
program two
  implicit none
  integer :: i
  real(8) :: a, b
  a = 0
  b = 0
!$omp parallel sections private(i)
!$omp section
  do i = 1, 20000000
    a = a + 1.0d0 / i
  end do
!$omp section
  do i = 1, 20000000
    b = b + 1.0d0 / (i + 1)
  end do
!$omp end parallel sections
  print *, a + b
end program two
";

#[test]
fn a_section_thread_0_runs_is_parallel_work_not_serial() {
    let dir = tempfile::tempdir().unwrap();
    let prof = analyzed_at_two_threads(dir.path(), "two", SECTIONS);
    let points = predicted_points(&prof);
    let t = |k: usize, what: &str| points[k][what].as_f64().unwrap();
    // Thread 0's section runs beside thread 1's: neither is serial time.
    assert!(t(1, "serial") < 0.1 * t(0, "seconds"), "{points}");
    let speedup = t(0, "seconds") / t(1, "seconds");
    assert!(speedup > 1.6, "speedup {speedup}: {points}");
}

/// Every iteration reseeds the generator (RANDOM_SEED with PUT=) before drawing a
/// number: the run-time library reseeds under one process-wide lock.
const RESEEDS: &str = "\
program reseed
  implicit none
  integer :: i, k
  integer :: seed(64)
  real(8) :: g(200000), s
  call random_seed(size=k)
!$omp parallel do private(seed)
  do i = 1, 200000
    seed(1:k) = i
    call random_seed(put=seed(1:k))
    call random_number(g(i))
  end do
!$omp end parallel do
  s = sum(g)
  print *, s > 0
end program reseed
";

#[test]
fn reseeding_threads_take_turns_on_the_library_lock() {
    let dir = tempfile::tempdir().unwrap();
    let prof = analyzed_at_two_threads(dir.path(), "reseed", RESEEDS);
    let points = predicted_points(&prof);
    let t = |k: usize, what: &str| points[k][what].as_f64().unwrap();
    // The reseeds, nearly all the loop's work, do not overlap: no speedup to speak of.
    assert!(t(1, "serialization") > 0.3 * t(0, "seconds"), "{points}");
    let speedup = t(0, "seconds") / t(1, "seconds");
    assert!(speedup < 1.15, "speedup {speedup}: {points}");
    // A machine whose library lock was measured (`library_lock`: a reseed alone, and by
    // two threads in turn) hands it over at that cost: 0.5 µs more a reseed on one whose
    // handover is 0.5 µs longer.
    let text = std::fs::read_to_string(machine()).unwrap();
    let two_threads = |handover: f64| {
        let row = |threads: u32, seconds: f64| {
            format!(
                "\n[[openmp.overhead]]\nconstruct = \"library_lock\"\nchunk = 0\nthreads = {threads}\nseconds = {seconds:e}\nhalf_width = 1e-9\nobservations = 20\n"
            )
        };
        let measured = dir.path().join(format!("lock-{handover}.toml"));
        let body = format!("{text}{}{}", row(1, 0.2e-6), row(2, 0.2e-6 + handover));
        std::fs::write(&measured, body).unwrap();
        predicted_points_on(&prof, &measured)[1]["seconds"]
            .as_f64()
            .unwrap()
    };
    // The reseeds are serialized: the loop lasts them all, handovers included.
    let added = two_threads(0.8e-6) - two_threads(0.3e-6);
    let expected = 200_000.0 * 0.5e-6;
    assert!(
        (added - expected).abs() < 0.2 * expected,
        "{added} s added, {expected} expected"
    );
}

/// A histogram filled in a critical section (`hc(k) = hc(k) + 1`, the shared bins
/// stored into while the lock is held) or the same sections storing nothing.
const HISTOGRAM: &str = "\
program histo
  implicit none
  integer :: hc(256), i, k
  hc = 0
!$omp parallel do private(k)
  do i = 1, 400000
    k = 1 + mod(i * 97, 256)
!$omp critical
    BODY
!$omp end critical
  end do
!$omp end parallel do
  print *, sum(hc)
end program histo
";

#[test]
fn a_critical_section_waits_for_the_shared_data_it_stores_into() {
    let dir = tempfile::tempdir().unwrap();
    // A Zen 4 profile with the table atomic (a line's trip from the other core).
    let zen4 = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../measurements/zen4-2026-11-27f/zen4-O2.toml");
    let at_two_threads = |name: &str, body: &str| -> f64 {
        let prof = analyzed_at_two_threads(dir.path(), name, &HISTOGRAM.replace("BODY", body));
        predicted_points_on(&prof, &zen4)[1]["seconds"]
            .as_f64()
            .unwrap()
    };
    let storing = at_two_threads("stores", "hc(k) = hc(k) + 1");
    let storing_nothing = at_two_threads("checks", "if (k > 256) stop 1");
    // The entries take turns, and each waits once more for a line: the table atomic's
    // figure at two threads (a few to tens of nanoseconds).
    let machine = augur_machine_profile::MachineProfile::read(&zen4).unwrap();
    let omp = machine.openmp.unwrap();
    let table = |p: u32| {
        omp.overheads
            .iter()
            .find(|o| o.construct == "atomic_table" && o.threads == p)
            .map(|o| o.seconds)
            .unwrap()
    };
    let line = table(2) - table(1);
    let added = storing - storing_nothing;
    assert!(
        added > 0.8 * 400_000.0 * line && added < 1.5 * 400_000.0 * line + 1e-3,
        "{added} s for 400000 entries, a line {line} s"
    );
}

#[test]
fn threads_spinning_on_flags_wait_rather_than_work() {
    let dir = tempfile::tempdir().unwrap();
    // The corpus's pipelined Gauss-Seidel sweep: the thread below spins on a flag the
    // thread above sets after each column.
    let spin = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../corpus/openmp/omp_wavefront.f90");
    let source = std::fs::read_to_string(spin).unwrap();
    let prof = analyzed_at_two_threads(dir.path(), "spin", &source);
    let points = predicted_points(&prof);
    let json = points.to_string();
    let phases = points[1]["phases"].as_array().unwrap();
    let spins: f64 = phases
        .iter()
        .map(|p| p["spin_iterations"].as_f64().unwrap())
        .sum();
    // The counting run's second thread spun; the spins are not its work: the two threads
    // do the same work, and the pipeline runs close to twice as fast.
    assert!(spins > 0.0, "{json}");
    let region = phases
        .iter()
        .max_by(|a, b| {
            a["seconds"]
                .as_f64()
                .unwrap()
                .total_cmp(&b["seconds"].as_f64().unwrap())
        })
        .unwrap();
    let w = |t: usize| region["thread_seconds"][t].as_f64().unwrap();
    assert!((w(1) / w(0) - 1.0).abs() < 0.05, "{json}");
    let t = |k: usize| points[k]["seconds"].as_f64().unwrap();
    assert!(t(0) / t(1) > 1.6, "speedup {}: {json}", t(0) / t(1));
    let (out, _) = ok(&augur()
        .arg("predict")
        .arg(&prof)
        .arg("-m")
        .arg(machine())
        .args(["--threads", "1,2"])
        .output()
        .unwrap());
    assert!(
        out.contains("threads wait on flags (busy-wait loops)"),
        "{out}"
    );
}

#[test]
fn fopenmp_in_the_flags_is_an_openmp_analysis() {
    // A user who builds with -fopenmp passes it in --fflags: the instrumented copy is
    // the OpenMP one, counted per thread at 1 and 2 threads, and predicts like
    // `--threads 1,2`.
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("tri.f90"), PROGRAM).unwrap();
    let prof = dir.path().join("tri.json");
    let (_, err) = ok(&augur()
        .current_dir(dir.path())
        .args(["analyze", "tri.f90", "--fflags", "-O2 -fopenmp", "-o"])
        .arg(&prof)
        .output()
        .unwrap());
    assert!(
        err.contains("counted per thread at 1 and 2 threads"),
        "{err}"
    );
    let points = predicted_points(&prof);
    assert_eq!(points.as_array().map(Vec::len), Some(2), "{points}");
    // Asked with --threads, the HTML page holds the thread table and its figures (the
    // speedup curve and the timeline at the largest count) inline, after the sequential
    // prediction, without --plot or --gantt.
    let page = dir.path().join("t.html");
    let (out, _) = ok(&augur()
        .arg("predict")
        .arg(&prof)
        .arg("-m")
        .arg(machine())
        .args(["--threads", "1,2", "--report"])
        .arg(&page)
        .output()
        .unwrap());
    let threads = page::assert_section(&page, "threads", &out, 2);
    assert!(threads.contains("Predicted speedup"), "{threads}");
    assert!(
        threads.contains("one thread, no OpenMP overhead"),
        "{threads}"
    );
}

/// A program that fails only at 2 threads: the run-time error of the extra counting
/// run names the program's own file and line, not augur's deleted instrumented copy.
#[test]
fn a_counting_run_failing_at_two_threads_names_the_programs_line() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("two.f90"),
        "\
program two
  use omp_lib
  implicit none
  integer :: u
  if (omp_get_max_threads() > 1) then
    open(newunit=u, file='no/such/dir/x.dat', status='old')
  end if
  print *, 'ran'
end program two
",
    )
    .unwrap();
    let o = augur()
        .current_dir(dir.path())
        .args(["analyze", "two.f90", "--threads", "1,2"])
        .args(["-o", "two.json"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success(), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    assert!(err.contains("OMP_NUM_THREADS=2"), "{err}");
    assert!(err.contains("At line 6 of file two.f90"), "{err}");
    assert!(!err.contains("aug0_"), "{err}");
}
