//! `augur characterize --mpi` with the real OpenMPI (mpif90, mpirun): the `[mpi]` section
//! of a machine profile, and the error when no MPI library is installed; `augur analyze
//! --mpi-ranks` and `augur predict --mpi-ranks` (SimGrid) on the corpus ring and on the
//! test programs of `tests/fixtures/mpi` (v-collectives, wildcard receives and the
//! completions of non-blocking requests, split communicators, a grid's row and column
//! communicators extrapolated, `use mpi_f08`); `augur
//! predict --mpi-ranks --report`, the page with the ranks' section.

mod page;

use std::process::Command;

fn augur() -> Command {
    Command::new(env!("CARGO_BIN_EXE_augur"))
}

/// Runs `cmd`, asserts that it succeeded and returns its standard output.
fn succeeded(cmd: &mut Command) -> String {
    let res = cmd.output().unwrap();
    let stdout = String::from_utf8_lossy(&res.stdout).to_string();
    assert!(
        res.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&res.stderr)
    );
    stdout
}

/// One MPI job at a time: the network characterization times its ping-pongs, and on a
/// 2-core machine another test's ranks beside it made its latency read a millisecond.
static ONE_JOB: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// These tests run the real MPI library: without it they fail (never skip silently).
/// The guard returned keeps the other MPI tests waiting until the test ends.
fn require_mpi() -> std::sync::MutexGuard<'static, ()> {
    for tool in ["mpif90", "mpirun"] {
        assert!(
            augur_mpi::find_on_path(tool).is_some(),
            "{tool} not found: these tests need OpenMPI (scripts/setup.sh installs it)"
        );
    }
    ONE_JOB.lock().unwrap_or_else(|e| e.into_inner())
}

#[test]
fn characterize_mpi_writes_the_network_section() {
    let _one_job = require_mpi();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("m.toml");
    let stdout = succeeded(
        augur()
            .args(["characterize", "--mpi", "--quick", "-o"])
            .arg(&out),
    );
    assert!(
        stdout.contains("LogGP") && stdout.contains("allreduce"),
        "{stdout}"
    );
    let p = augur_machine_profile::MachineProfile::read(&out).unwrap();
    let m = p.mpi.expect("an [mpi] section");
    assert!(m.library.contains("Open MPI"), "{}", m.library);
    assert_eq!(m.ranks.first(), Some(&2));
    assert!(m.latency_seconds > 0.0 && m.latency_seconds < 1e-3);
    // Every size from 0 to 4 MiB, and 4 MiB takes longer than an empty message.
    let pp = &m.pingpongs;
    assert_eq!(pp.first().map(|t| t.bytes), Some(0));
    assert_eq!(pp.last().map(|t| t.bytes), Some(4 << 20));
    assert!(pp.last().unwrap().seconds > 10.0 * pp[0].seconds, "{pp:?}");
    assert!(!m.protocols.is_empty());
    // A rank's messages to itself (memory copies) at the same sizes, growing with size.
    let own = &m.self_messages;
    assert_eq!(own.len(), pp.len(), "{own:?}");
    assert!(
        own.last().unwrap().seconds > 10.0 * own[0].seconds,
        "{own:?}"
    );
    assert!(m.loggp.gap_seconds > 0.0 && m.loggp.gap_per_byte_seconds > 0.0);
    for op in [
        "barrier",
        "bcast",
        "reduce",
        "allreduce",
        "gather",
        "scatter",
        "allgather",
        "alltoall",
    ] {
        assert!(
            m.collectives
                .iter()
                .any(|c| c.operation == op && c.ranks == 2 && c.seconds > 0.0),
            "no {op} at 2 ranks"
        );
    }
}

#[test]
fn characterize_mpi_without_an_mpi_library_says_what_to_install() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("m.toml");
    // gfortran stays reachable (the section's compiler is checked first); MPI does not.
    let gfortran = augur_mpi::find_on_path("gfortran").expect("gfortran");
    let bin = dir.path().join("bin");
    std::fs::create_dir(&bin).unwrap();
    std::os::unix::fs::symlink(&gfortran, bin.join("gfortran")).unwrap();
    let res = augur()
        .env("PATH", &bin)
        .args(["characterize", "--mpi", "-o"])
        .arg(&out)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&res.stderr);
    assert!(!res.status.success());
    assert!(
        err.contains("mpif90 was not found") && err.contains("openmpi-bin"),
        "{err}"
    );
    assert!(
        !out.exists(),
        "a failed characterization wrote {}",
        out.display()
    );
}

#[test]
fn a_cluster_file_becomes_a_simgrid_platform() {
    let dir = tempfile::tempdir().unwrap();
    let examples = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples");
    let out = dir.path().join("platform.xml");
    let stdout = succeeded(
        augur()
            .arg("platform")
            .arg(examples.join("cluster.toml"))
            .arg("-o")
            .arg(&out),
    );
    assert!(
        stdout.contains("8 ranks") && stdout.contains("smpi/bw-factor"),
        "{stdout}"
    );
    let xml = std::fs::read_to_string(&out).unwrap();
    assert!(xml.contains("<cluster id=\"four-zen4-guests\"") && xml.contains("radical=\"0-3\""));
    let hosts = std::fs::read_to_string(out.with_extension("hosts")).unwrap();
    assert_eq!(hosts.lines().count(), 4);
    // A torus that does not wire the nodes: the file, what is wrong, what to do.
    let bad = dir.path().join("bad.toml");
    std::fs::write(
        &bad,
        "name = \"t\"\nnodes = 6\ncores_per_node = 1\n[intra]\nlatency_us = 0.2\nbandwidth_gbs = 5\n\
         [inter]\nlatency_us = 1\nbandwidth_gbs = 10\n[topology]\nkind = \"torus\"\ndimensions = [2, 2]\n",
    )
    .unwrap();
    let res = augur()
        .arg("platform")
        .arg(&bad)
        .arg("-o")
        .arg(dir.path().join("b.xml"))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&res.stderr);
    assert!(!res.status.success());
    assert!(
        err.contains("bad.toml")
            && err.contains("connects 4 nodes")
            && err.contains("make them agree"),
        "{err}"
    );
    assert!(!dir.path().join("b.xml").exists());
}

/// A ring: ten rounds of compute, an exchange with both neighbours, and a reduction
/// (the corpus program).
const RING: &str = include_str!("../../../corpus/mpi/mpi_ring.f90");

#[test]
fn analyze_mpi_ranks_traces_every_rank() {
    let _one_job = require_mpi();
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("ring.f90"), RING).unwrap();
    let prof = dir.path().join("ring.json");
    let stdout = succeeded(
        augur()
            .current_dir(dir.path())
            .args(["analyze", "ring.f90", "--mpi-ranks", "2,3", "-o"])
            .arg(&prof),
    );
    assert!(stdout.contains("3 ranks, rank 2: 33 calls"), "{stdout}");
    let p = augur_program_profile::ProgramProfile::read(&prof).unwrap();
    let m = p.mpi.expect("an mpi section");
    assert_eq!(
        m.runs.iter().map(|r| r.ranks).collect::<Vec<_>>(),
        vec![2, 3]
    );
    for run in &m.runs {
        assert_eq!(run.traces.len(), run.ranks as usize);
        for t in &run.traces {
            // init, 10 x (isend, irecv, waitall), allreduce, finalize; the rounds stored once.
            assert_eq!(t.calls, 33);
            assert!(t.records.len() < 10, "{} records", t.records.len());
            let sends: Vec<_> = t
                .records
                .iter()
                .flat_map(|r| r.steps.iter().map(move |s| (r.repeat, &s.event)))
                .filter(|(_, e)| e.op == "isend")
                .collect();
            assert_eq!(sends.iter().map(|s| s.0).sum::<u64>(), 10);
            for (_, e) in sends {
                assert_eq!(
                    (e.peer, e.tag, e.bytes),
                    ((t.rank as i32 + 1) % run.ranks as i32, 7, 800)
                );
            }
        }
    }
    // Rank 0's segments add up to the profile's block counts (rank 0 at 2 ranks), and
    // rank 1 computes more (its inner loop runs 60 times a round, rank 0's 50; rank 0
    // prints).
    let executions = |t: &augur_program_profile::mpi::RankTrace| -> f64 {
        t.records
            .iter()
            .map(|r| {
                r.repeat as f64
                    * r.steps
                        .iter()
                        .flat_map(|s| &s.segment)
                        .map(|x| x.2)
                        .sum::<f64>()
            })
            .sum()
    };
    let traced = executions(&m.runs[0].traces[0]);
    let counted: f64 = p
        .units
        .iter()
        .flat_map(|u| &u.blocks)
        .filter_map(|b| b.executions)
        .sum();
    assert_eq!(traced, counted);
    // 100 more iterations (each one or two blocks: body and loop test), one print less.
    let more = executions(&m.runs[0].traces[1]) - traced + 1.0;
    assert!(
        more == 100.0 || more == 200.0,
        "rank 1 executed {more} - 1 blocks more"
    );
}

#[test]
fn analyze_mpi_ranks_of_a_program_without_mpi_says_so() {
    let _one_job = require_mpi();
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("plain.f90"),
        "program p\nprint *, 1\nend program p\n",
    )
    .unwrap();
    let res = augur()
        .current_dir(dir.path())
        .args(["analyze", "plain.f90", "--mpi-ranks", "2", "-o", "p.json"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&res.stderr);
    assert!(!res.status.success());
    assert!(
        err.contains("wrote no MPI trace") && err.contains("MPI_Init"),
        "{err}"
    );
}

/// A job whose two ranks each wait for the other's message first: augur's counting run
/// ends at its time limit with an error that says so and names `--timeout`, no rank or
/// `mpirun` outlives it, and no profile is written.
#[test]
fn a_deadlocked_job_ends_at_its_time_limit_and_leaves_nothing_behind() {
    let _one_job = require_mpi();
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("stuck.f90"),
        "program stuck\n  use mpi\n  implicit none\n  integer :: ierr, rank, other, st(MPI_STATUS_SIZE)\n  real(8) :: x\n  call MPI_Init(ierr)\n  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)\n  other = 1 - rank\n  call MPI_Recv(x, 1, MPI_DOUBLE_PRECISION, other, 9, MPI_COMM_WORLD, st, ierr)\n  call MPI_Send(x, 1, MPI_DOUBLE_PRECISION, other, 9, MPI_COMM_WORLD, ierr)\n  call MPI_Finalize(ierr)\nend program stuck\n",
    )
    .unwrap();
    let start = std::time::Instant::now();
    let res = augur()
        .current_dir(dir.path())
        .args([
            "analyze",
            "stuck.f90",
            "--mpi-ranks",
            "2",
            "--timeout",
            "10",
            "-o",
            "stuck.json",
        ])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&res.stderr);
    assert!(!res.status.success());
    assert!(
        err.contains("timed out after") && err.contains("--timeout"),
        "{err}"
    );
    assert!(start.elapsed() < std::time::Duration::from_secs(120));
    assert!(
        !dir.path().join("stuck.json").exists(),
        "a profile was written"
    );
    // No process runs the program any more (ranks are named after the executable).
    std::thread::sleep(std::time::Duration::from_millis(500));
    let running: Vec<String> = std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter_map(|e| std::fs::read_to_string(e.path().join("cmdline")).ok())
        .filter(|c| c.contains("stuck") && !c.contains("analyze"))
        .collect();
    assert!(running.is_empty(), "still running: {running:?}");
}

/// A new directory holding the ring (`ring.f90`) traced at `ranks` into `ring.json`.
fn traced_ring(ranks: &str, more: &[&str]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("ring.f90"), RING).unwrap();
    succeeded(
        augur()
            .current_dir(dir.path())
            .args(["analyze", "ring.f90", "--mpi-ranks", ranks])
            .args(more)
            .args(["-o", "ring.json"]),
    );
    dir
}

/// The Zen 3 guest's -O2 AbOp tables with its measured [mpi] section.
fn mpi_machine() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../measurements/mpi-zen3-2026-11-26/zen3-O2-mpi.toml")
}

#[test]
fn predict_mpi_ranks_replays_the_traces_on_simgrid() {
    let _one_job = require_mpi();
    let dir = traced_ring("2", &[]);
    let out = succeeded(
        augur()
            .current_dir(dir.path())
            .args(["predict", "ring.json", "--mpi-ranks", "2", "-m"])
            .arg(mpi_machine()),
    );
    assert!(out.contains("replayed by SimGrid"), "{out}");
    let time: f64 = out
        .lines()
        .find_map(|l| l.strip_prefix("predicted time "))
        .and_then(|t| t.split_whitespace().next())
        .and_then(|t| t.parse().ok())
        .unwrap_or_else(|| panic!("no predicted time: {out}"));
    assert!(time > 0.0, "{out}");
    assert_eq!(
        out.lines()
            .filter(|l| l.trim_end().ends_with(" 33"))
            .count(),
        2,
        "{out}"
    );
    // A rank count the program was not traced at, and a profile without traces.
    let res = augur()
        .current_dir(dir.path())
        .args(["predict", "ring.json", "--mpi-ranks", "4", "-m"])
        .arg(mpi_machine())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&res.stderr);
    assert!(
        !res.status.success() && err.contains("traced at [2] ranks, not 4"),
        "{err}"
    );
}

#[test]
fn predict_mpi_ranks_report_holds_the_rank_tables_and_figures() {
    // The corpus ring traced at 2 and 3 ranks: the page is the sequential prediction of
    // the profile's counts with the MPI prediction's section after it.
    let _one_job = require_mpi();
    let dir = traced_ring("2,3", &["--no-branch-run"]);
    let predict = |ranks: &str, page: &str| {
        succeeded(
            augur()
                .current_dir(dir.path())
                .args([
                    "predict",
                    "ring.json",
                    "--mpi-ranks",
                    ranks,
                    "--report",
                    page,
                ])
                .arg("-m")
                .arg(mpi_machine()),
        )
    };
    // One count: per rank its computing, transmission and waiting, the call sites, and
    // the per-rank timeline --gantt draws.
    let out = predict("2", "one.html");
    let section = page::assert_section(&dir.path().join("one.html"), "mpi", &out, 1);
    assert!(
        section.contains("MPI: predicted at 2 ranks (SimGrid replay)"),
        "{section}"
    );
    assert!(section.contains("rank    computing"), "{section}");
    assert!(
        section.contains("rank 0's computing in the run at 2 ranks"),
        "{section}"
    );
    assert!(
        section.contains("Each rank's timeline at 2 ranks"),
        "{section}"
    );
    // Several counts: the sweep's table and the figure --plot draws.
    let out = predict("2,3", "sweep.html");
    let section = page::assert_section(&dir.path().join("sweep.html"), "mpi", &out, 1);
    assert!(
        section.contains("MPI: predicted at 2 and 3 ranks"),
        "{section}"
    );
    assert!(section.contains("efficiency"), "{section}");
    assert!(
        section.contains("MPI prediction by rank count"),
        "{section}"
    );
}

#[test]
fn validate_mpi_ranks_times_the_job_under_mpirun() {
    let _one_job = require_mpi();
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("ring.f90"), RING).unwrap();
    let out = succeeded(
        augur()
            .current_dir(dir.path())
            .args([
                "validate",
                "ring.f90",
                "--mpi-ranks",
                "1,2",
                "--runs",
                "1",
                "--json",
                "-m",
            ])
            .arg(mpi_machine()),
    );
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let rows = v["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 2, "{out}");
    for (row, ranks) in rows.iter().zip([1, 2]) {
        assert_eq!(row["ranks"], ranks);
        assert!(row["predicted"].as_f64().unwrap() > 0.0, "{out}");
        assert!(row["measured"]["median"].as_f64().unwrap() > 0.0, "{out}");
        assert_eq!(row["compute"].as_array().unwrap().len(), ranks as usize);
    }
    assert!(v["build"].as_str().unwrap().contains("mpif90"), "{out}");
}

/// Rank 0 spins 100 ms longer each run than the run before (a count kept in the file
/// `COUNTER`), the other ranks wait for it: the timed jobs spread as on a busy machine.
const SLOWER_EACH_RUN: &str = "\
program slower
  use mpi
  implicit none
  integer :: ierr, rank, c, u
  integer(8) :: t0, t, rate
  logical :: e
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  if (rank == 0) then
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
      if (t - t0 > c * rate / 10) exit
    end do
  end if
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  if (rank == 0) print *, 'done'
  call MPI_Finalize(ierr)
end program slower
";

#[test]
fn validate_mpi_ranks_warns_when_the_timed_jobs_spread() {
    let _one_job = require_mpi();
    let dir = tempfile::tempdir().unwrap();
    let counter = dir.path().join("count.txt");
    let program = SLOWER_EACH_RUN.replace("COUNTER", counter.to_str().unwrap());
    std::fs::write(dir.path().join("slower.f90"), program).unwrap();
    let validate = |json: bool| {
        let _ = std::fs::remove_file(&counter);
        let mut cmd = augur();
        cmd.current_dir(dir.path())
            .args([
                "validate",
                "slower.f90",
                "--mpi-ranks",
                "1,2",
                "--runs",
                "2",
            ])
            .args(if json { &["--json"][..] } else { &[][..] })
            .arg("-m")
            .arg(mpi_machine());
        let res = cmd.output().unwrap();
        let err = String::from_utf8_lossy(&res.stderr).to_string();
        assert!(res.status.success(), "{err}");
        (String::from_utf8_lossy(&res.stdout).to_string(), err)
    };
    let busy = |w: &str, ranks: u32| {
        w.contains(&format!("the timed runs at {ranks} rank(s) spread"))
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
    for ranks in [1, 2] {
        assert!(warnings.iter().any(|w| busy(w, ranks)), "{out}");
    }
}

/// Rank 1 computes twice what rank 0 does before each allreduce; rank 0 then sends it
/// the result.
const UNEVEN: &str = r#"program uneven
  use mpi
  implicit none
  integer :: ierr, rank, np, i, k
  integer :: st(MPI_STATUS_SIZE)
  real(8) :: s, t
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, np, ierr)
  t = 0
  do k = 1, 20
    s = 0
    do i = 1, 300000 * (rank + 1)
      s = s + sqrt(dble(i + k))
    end do
    call MPI_Allreduce(s, t, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
    if (rank == 0 .and. np > 1) call MPI_Send(t, 1, MPI_DOUBLE_PRECISION, 1, 7, MPI_COMM_WORLD, ierr)
    if (rank == 1) call MPI_Recv(t, 1, MPI_DOUBLE_PRECISION, 0, 7, MPI_COMM_WORLD, st, ierr)
  end do
  if (rank == 0) print *, t
  call MPI_Finalize(ierr)
end program uneven
"#;

/// `augur predict --mpi-ranks --json` of `profile` with `extra` arguments.
fn predict_json(dir: &std::path::Path, extra: &[&str]) -> serde_json::Value {
    let out = succeeded(
        augur()
            .current_dir(dir)
            .args(["predict", "uneven.json", "--mpi-ranks", "2", "--json", "-m"])
            .arg(mpi_machine())
            .args(extra),
    );
    serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}"))
}

#[test]
fn predict_mpi_ranks_splits_each_rank_into_computing_transmission_and_waiting() {
    let _one_job = require_mpi();
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("uneven.f90"), UNEVEN).unwrap();
    succeeded(augur().current_dir(dir.path()).args([
        "analyze",
        "uneven.f90",
        "--mpi-ranks",
        "2",
        "-o",
        "uneven.json",
    ]));
    let v = predict_json(dir.path(), &["--gantt", "g.svg", "--matrix", "m.csv"]);
    let ranks = v["timeline"]["ranks"].as_array().unwrap();
    let f = |r: usize, k: &str| ranks[r][k].as_f64().unwrap();
    // Rank 0 waits at the allreduce for rank 1's extra half: most of the difference.
    let late = f(1, "compute") - f(0, "compute");
    assert!(late > 0.0, "{v}");
    assert!(f(0, "waiting") > 0.8 * late, "{v}");
    assert!(f(1, "waiting") < 0.2 * late, "{v}");
    // The allreduce is the call site rank 0 waited at.
    let sites = v["timeline"]["sites"].as_array().unwrap();
    // The call on line 16 of the program.
    assert_eq!(sites[0]["label"], "MPI_Allreduce at uneven.f90:16", "{v}");
    assert_eq!(sites[0]["calls"], 40, "{v}");
    assert_eq!(sites[0]["worst_rank"][0], 0, "{v}");
    // Twenty messages of 8 bytes from rank 0 to rank 1.
    let csv = std::fs::read_to_string(dir.path().join("m.csv")).unwrap();
    assert_eq!(csv, "src,dst,bytes,messages\n0,1,160,20\n");
    let svg = std::fs::read_to_string(dir.path().join("g.svg")).unwrap();
    assert!(svg.starts_with("<svg") && svg.contains("rank 1") && svg.contains("waiting"));
    // What if: a 1 ms latency costs at least the 20 messages' milliseconds; cores twice
    // as fast halve the computing.
    let slow = predict_json(dir.path(), &["--latency", "1000"]);
    let added = slow["simulated"].as_f64().unwrap() - v["simulated"].as_f64().unwrap();
    assert!(added > 0.020, "{added}");
    let fast = predict_json(dir.path(), &["--cpu-speed", "2"]);
    let c = fast["timeline"]["ranks"][1]["compute"].as_f64().unwrap();
    assert!((c / f(1, "compute") - 0.5).abs() < 0.01, "{c}");
    let res = augur()
        .current_dir(dir.path())
        .args([
            "predict",
            "uneven.json",
            "--mpi-ranks",
            "2",
            "--latency",
            "fast",
            "-m",
        ])
        .arg(mpi_machine())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&res.stderr);
    assert!(
        !res.status.success() && err.contains("factor like `2x`"),
        "{err}"
    );
}

#[test]
fn predict_mpi_ranks_extrapolates_from_three_smaller_counts() {
    let _one_job = require_mpi();
    let dir = tempfile::tempdir().unwrap();
    let halo =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../corpus/mpi/mpi_halo1d.f90");
    succeeded(
        augur()
            .current_dir(dir.path())
            .arg("analyze")
            .arg(&halo)
            .args(["--mpi-ranks", "3,4,5,8", "-o", "halo.json"]),
    );
    let on = |machine: &std::path::Path, extra: &[&str]| -> (f64, String) {
        let out = succeeded(
            augur()
                .current_dir(dir.path())
                .args(["predict", "halo.json", "--json", "-m"])
                .arg(machine)
                .args(extra),
        );
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        (
            v["simulated"].as_f64().unwrap(),
            v["extrapolated_from"].to_string(),
        )
    };
    let time = |extra: &[&str]| on(&mpi_machine(), extra);
    // Traced at 8 ranks, and extrapolated to 8 from 3, 4 and 5: the same prediction.
    let (traced, none) = time(&["--mpi-ranks", "8"]);
    assert_eq!(none, "[]");
    // The eight ranks of the node share its memory bandwidth: with the machine's measured
    // triad by thread count ([openmp]) the streaming halo takes longer.
    let node = mpi_machine().with_file_name("zen3-O2-node.toml");
    let (shared, _) = on(&node, &["--mpi-ranks", "8"]);
    assert!(shared > 1.02 * traced, "{shared} {traced}");
    // (Drop the run at 8 so the prediction must extrapolate.)
    let mut p = augur_program_profile::ProgramProfile::read(&dir.path().join("halo.json")).unwrap();
    p.mpi.as_mut().unwrap().runs.retain(|r| r.ranks != 8);
    std::fs::write(
        dir.path().join("halo.json"),
        serde_json::to_string(&p).unwrap(),
    )
    .unwrap();
    let (extrapolated, from) = time(&["--mpi-ranks", "8"]);
    assert_eq!(from, "[3,4,5]");
    assert!(
        (extrapolated / traced - 1.0).abs() < 0.01,
        "{extrapolated} {traced}"
    );
}

/// A test program of `tests/fixtures/mpi`.
fn fixture(name: &str) -> String {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/mpi")
        .join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Analyzes fixture `name` at the rank counts `ranks` (`3,4`) in a new directory: the
/// directory (the profile is `p.json` there) and the profile.
fn analyze_fixture(
    name: &str,
    ranks: &str,
) -> (tempfile::TempDir, augur_program_profile::ProgramProfile) {
    let _one_job = require_mpi();
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join(name), fixture(name)).unwrap();
    succeeded(augur().current_dir(dir.path()).args([
        "analyze",
        name,
        "--mpi-ranks",
        ranks,
        "-o",
        "p.json",
    ]));
    let p = augur_program_profile::ProgramProfile::read(&dir.path().join("p.json")).unwrap();
    (dir, p)
}

/// The events of `rank` in the run at `ranks` ranks, the records expanded.
fn events(
    p: &augur_program_profile::ProgramProfile,
    ranks: u32,
    rank: usize,
) -> Vec<augur_program_profile::mpi::Event> {
    let mpi = p.mpi.as_ref().expect("an mpi section");
    let run = mpi.runs.iter().find(|r| r.ranks == ranks).expect("the run");
    let mut out = vec![];
    for r in &run.traces[rank].records {
        for _ in 0..r.repeat {
            out.extend(r.steps.iter().map(|s| s.event.clone()));
        }
    }
    out
}

/// The operations of `events`, calls only.
fn ops(events: &[augur_program_profile::mpi::Event]) -> Vec<&str> {
    events
        .iter()
        .filter(|e| e.is_call())
        .map(|e| e.op.as_str())
        .collect()
}

/// Every call of `events` names its site: the fixture `name` and the line of its
/// `CALL MPI_<op>(`.
fn assert_sites(name: &str, events: &[augur_program_profile::mpi::Event]) {
    let text = fixture(name);
    for e in events.iter().filter(|e| e.is_call()) {
        let site = e
            .site
            .as_ref()
            .unwrap_or_else(|| panic!("{} has no site", e.op));
        assert!(site.file.ends_with(name), "{site:?}");
        let line = text.lines().nth(site.line as usize - 1).unwrap_or("");
        assert!(
            line.to_ascii_lowercase()
                .contains(&format!("call mpi_{}(", e.op)),
            "{} at line {}: `{line}`",
            e.op,
            site.line
        );
    }
}

/// `augur predict p.json --mpi-ranks RANKS` in `dir` succeeds: the predicted seconds.
fn predicted(dir: &std::path::Path, ranks: u32) -> f64 {
    let out = succeeded(
        augur()
            .current_dir(dir)
            .args(["predict", "p.json", "--mpi-ranks", &ranks.to_string(), "-m"])
            .arg(mpi_machine()),
    );
    let time = out
        .lines()
        .find_map(|l| l.strip_prefix("predicted time "))
        .and_then(|t| t.split_whitespace().next())
        .and_then(|t| t.parse::<f64>().ok());
    match time {
        Some(t) if t > 0.0 => t,
        _ => panic!("no predicted time: {out}"),
    }
}

#[test]
fn v_collectives_are_traced_with_their_parts_and_call_sites() {
    let name = "mpi_vcoll.f90";
    let (dir, p) = analyze_fixture(name, "3");
    let kb = |n: i64| n * 8;
    let parts = vec![kb(100), kb(200), kb(300)];
    for rank in 0..3usize {
        let ev = events(&p, 3, rank);
        // MPI_Wtime makes no event.
        assert_eq!(
            ops(&ev),
            [
                "init",
                "gatherv",
                "scatterv",
                "barrier",
                "allgatherv",
                "alltoallv",
                "reduce_scatter",
                "gatherv",
                "barrier",
                "finalize"
            ]
        );
        let mine = kb(100 * (rank as i64 + 1));
        let (g, s, a, v, rs, g2) = (&ev[1], &ev[2], &ev[4], &ev[5], &ev[6], &ev[7]);
        // The receive counts of MPI_Gatherv at the root only; MPI_IN_PLACE at the root
        // sends its own part.
        assert_eq!((g.peer, g.bytes), (0, mine));
        assert_eq!(g.counts, if rank == 0 { parts.clone() } else { vec![] });
        assert_eq!(g2.bytes, mine);
        assert_eq!((s.peer, s.bytes2), (2, mine));
        assert_eq!(s.counts, if rank == 2 { parts.clone() } else { vec![] });
        assert_eq!((a.bytes, &a.counts), (mine, &parts));
        let to: Vec<i64> = (1..=3).map(|j| kb(10 * (rank as i64 + 1) * j)).collect();
        assert_eq!(v.counts, [to.clone(), to].concat());
        assert_eq!((&rs.counts, rs.bytes2), (&parts, mine));
        assert_sites(name, &ev);
    }
    // The barrier in a logical IF and the labelled one are two sites.
    let ev = events(&p, 3, 0);
    assert_ne!(ev[3].site, ev[8].site);
    predicted(dir.path(), 3);
}

#[test]
fn wildcard_receives_are_replayed_from_the_ranks_that_sent() {
    let name = "mpi_wildcard.f90";
    // `INCLUDE 'mpif.h'`: found in the MPI library's include directories.
    let (dir, p) = analyze_fixture(name, "3");
    let ev = events(&p, 3, 0);
    let receives: Vec<_> = ev
        .iter()
        .filter(|e| e.op == "recv" || e.op == "irecv")
        .collect();
    assert_eq!(receives.len(), 2 * 7, "{:?}", ops(&ev));
    for e in &receives {
        // Tags are 10 phase, plus the sender where the receive took any tag.
        assert!(e.peer == 1 || e.peer == 2, "{e:?}");
        assert!(e.tag % 10 == 0 || e.tag % 10 == e.peer, "{e:?}");
    }
    for phase in receives.chunks(2) {
        let mut peers: Vec<i32> = phase.iter().map(|e| e.peer).collect();
        peers.sort_unstable();
        assert_eq!(peers, [1, 2], "{phase:?}");
    }
    // Every request posted is completed by exactly one call.
    let mut posted: Vec<i64> = receives
        .iter()
        .filter(|e| e.op == "irecv")
        .map(|e| e.request)
        .collect();
    let mut completed: Vec<i64> = ev.iter().flat_map(|e| e.completed.clone()).collect();
    posted.sort_unstable();
    completed.sort_unstable();
    assert_eq!(posted, completed);
    // MPI_Probe and MPI_Iprobe make no event.
    assert!(ops(&ev).iter().all(|op| !op.contains("probe")));
    // The ring's MPI_Sendrecv from MPI_ANY_SOURCE with MPI_ANY_TAG.
    let sr = ev.iter().find(|e| e.op == "sendrecv").unwrap();
    assert_eq!((sr.peer, sr.request, sr.recv_tag), (1, 2, Some(82)));
    let sr1 = events(&p, 3, 1);
    let sr1 = sr1.iter().find(|e| e.op == "sendrecv").unwrap();
    assert_eq!((sr1.request, sr1.recv_tag), (0, Some(80)));
    assert_sites(name, &ev);
    predicted(dir.path(), 3);
}

#[test]
fn collectives_on_split_and_duplicated_communicators_replay() {
    let (dir, p) = analyze_fixture("mpi_split.f90", "3,4");
    let made = |ranks: u32, rank: usize, op: &str| {
        events(&p, ranks, rank)
            .into_iter()
            .find(|e| e.op == op)
            .unwrap_or_else(|| panic!("no {op}"))
    };
    // Even and odd ranks; the odd ones in reverse order.
    assert_eq!(made(4, 0, "comm_split").members, [0, 2]);
    assert_eq!(made(4, 1, "comm_split").members, [3, 1]);
    assert_eq!(made(3, 1, "comm_split").members, [1]);
    // The halves' roots as world ranks.
    assert_eq!(made(4, 1, "bcast").peer, 3);
    assert_eq!(made(4, 2, "gatherv").peer, 0);
    assert_eq!(made(4, 3, "gatherv").counts, [8, 16]);
    assert_eq!(made(4, 2, "comm_dup").members, [0, 1, 2, 3]);
    // The Cartesian ring is described before its first collective; not a call.
    let ev = events(&p, 4, 0);
    let cart = ev
        .iter()
        .position(|e| e.op == "comm")
        .expect("a comm event");
    assert_eq!(ev[cart].members, [0, 1, 2, 3]);
    assert_eq!(ev[cart + 1].op, "alltoall");
    let run = &p.mpi.as_ref().unwrap().runs[1];
    assert_eq!(run.traces[0].calls, ops(&ev).len() as u64);
    assert_eq!(run.traces[0].calls, 14);
    // Replayed at both rank counts (a split's half is point-to-point messages).
    predicted(dir.path(), 3);
    predicted(dir.path(), 4);
}

#[test]
fn use_mpi_f08_programs_are_traced() {
    let name = "mpi_f08.f90";
    let (dir, p) = analyze_fixture(name, "3");
    let ev = events(&p, 3, 0);
    let ring = ["irecv", "isend", "waitall"].repeat(5);
    assert_eq!(ops(&ev)[1..16], ring[..]);
    // MPI_ANY_SOURCE with a TYPE(MPI_Status), then with MPI_STATUS_IGNORE.
    // (In the order the messages arrived.)
    let mut recvs: Vec<(i32, i32)> = ev
        .iter()
        .filter(|e| e.op == "recv")
        .map(|e| (e.peer, e.tag))
        .collect();
    recvs.sort_unstable();
    assert_eq!(recvs, [(1, 21), (2, 22)]);
    let mut late: Vec<i32> = ev
        .iter()
        .filter(|e| e.op == "irecv" && e.tag == 30)
        .map(|e| e.peer)
        .collect();
    late.sort_unstable();
    assert_eq!(late, [1, 2]);
    let gv = ev.iter().find(|e| e.op == "gatherv").unwrap();
    assert_eq!(gv.counts, [8, 16, 24]);
    let split = ev.iter().find(|e| e.op == "comm_split").unwrap();
    assert_eq!(split.members, [0, 2]);
    assert_eq!(ops(&ev).last(), Some(&"finalize"));
    assert_sites(name, &ev);
    predicted(dir.path(), 3);
}

#[test]
fn a_c_main_that_starts_mpi_is_traced() {
    let _one_job = require_mpi();
    let dir = tempfile::tempdir().unwrap();
    let fixtures = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/mpi");
    succeeded(
        augur()
            .current_dir(dir.path())
            .arg("analyze")
            .arg(fixtures.join("cwork.f90"))
            .arg(fixtures.join("cmain.c"))
            .args(["--mpi-ranks", "2", "-o", "p.json"]),
    );
    let p = augur_program_profile::ProgramProfile::read(&dir.path().join("p.json")).unwrap();
    for rank in 0..2 {
        assert_eq!(
            ops(&events(&p, 2, rank)),
            ["init", "allreduce", "finalize"],
            "rank {rank}"
        );
    }
}

#[test]
fn work_rank_0_never_does_is_priced() {
    let _one_job = require_mpi();
    let dir = tempfile::tempdir().unwrap();
    let farm = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../corpus/mpi/mpi_master_worker.f90");
    // At 2 ranks rank 0 only hands out the tasks: the profile's own counts (rank 0's)
    // have none of the work, the worker's trace has it all.
    succeeded(
        augur()
            .current_dir(dir.path())
            .arg("analyze")
            .arg(&farm)
            .args(["--mpi-ranks", "2", "-o", "farm.json"]),
    );
    let out = succeeded(
        augur()
            .current_dir(dir.path())
            .args(["predict", "farm.json", "--mpi-ranks", "2", "--json", "-m"])
            .arg(mpi_machine()),
    );
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let worker = v["timeline"]["ranks"][1]["compute"].as_f64().unwrap();
    assert!(worker > 0.1, "{v}");
}

/// The Zen 3 guest's node profile: AbOp tables, `[openmp]` and `[mpi]`.
fn node_machine() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../measurements/mpi-zen3-2026-11-26/zen3-O2-node.toml")
}

/// `augur predict hybrid.json --mpi-ranks RANKS --threads THREADS` in `dir`: the output.
fn predict_hybrid(dir: &std::path::Path, ranks: u32, threads: u32) -> std::process::Output {
    augur()
        .current_dir(dir)
        .args(["predict", "hybrid.json", "--mpi-ranks", &ranks.to_string()])
        .args(["--threads", &threads.to_string(), "-m"])
        .arg(node_machine())
        .output()
        .unwrap()
}

#[test]
fn a_hybrid_program_runs_each_rank_with_a_team_of_threads() {
    let _one_job = require_mpi();
    let dir = tempfile::tempdir().unwrap();
    let source =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../corpus/mpi/mpi_hybrid.f90");
    std::fs::copy(&source, dir.path().join("hybrid.f90")).unwrap();
    succeeded(augur().current_dir(dir.path()).args([
        "analyze",
        "hybrid.f90",
        "--mpi-ranks",
        "1,2",
        "--threads",
        "1,2",
        "-o",
        "hybrid.json",
    ]));
    let time = |ranks, threads| {
        let out = predict_hybrid(dir.path(), ranks, threads);
        let text = String::from_utf8_lossy(&out.stdout).to_string();
        assert!(
            out.status.success(),
            "{text}{}",
            String::from_utf8_lossy(&out.stderr)
        );
        text.lines()
            .find_map(|l| l.strip_prefix("predicted time "))
            .and_then(|t| t.split_whitespace().next())
            .and_then(|t| t.parse::<f64>().ok())
            .unwrap_or_else(|| panic!("no predicted time: {text}"))
    };
    // The compute-bound loop splits over two threads as over two ranks; the launch
    // (about a third of a second) does not.
    let (one, team, ranks) = (time(1, 1), time(1, 2), time(2, 1));
    assert!(one / team > 1.4 && one / team < 2.0, "{one} {team}");
    assert!((team / ranks - 1.0).abs() < 0.1, "{team} {ranks}");
    // A thread count it was not counted at.
    let out = predict_hybrid(dir.path(), 2, 3);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success() && err.contains("not at 3") && err.contains("--threads"),
        "{err}"
    );
}

#[test]
fn an_open_halo_extrapolates_and_says_when_the_work_runs_out() {
    let (dir, _) = analyze_fixture("halo_open.f90", "3,4,5");
    let predict = |ranks: &str, extra: &[&str]| -> serde_json::Value {
        let out = succeeded(
            augur()
                .current_dir(dir.path())
                .args(["predict", "p.json", "--json", "--mpi-ranks", ranks, "-m"])
                .arg(mpi_machine())
                .args(extra),
        );
        serde_json::from_str(&out).unwrap()
    };
    // The end ranks' MPI_PROC_NULL peers follow the open line to any count.
    let v = predict("64", &[]);
    assert_eq!(v["extrapolated_from"].to_string(), "[3,4,5]", "{v}");
    assert_eq!(v["warnings"].as_array().unwrap().len(), 0, "{v}");
    let rank = |r: usize| v["matrix"]["bytes"][r].as_array().unwrap().clone();
    let sent: Vec<usize> = (0..64)
        .filter(|&to| rank(0)[to].as_f64().unwrap() > 0.0)
        .collect();
    assert_eq!(sent, vec![1], "rank 0 sends only to rank 1: {v}");
    // 480 cells over 1,024 ranks: the prediction says the decomposition ran out.
    let v = predict("1024", &[]);
    let w = v["warnings"][0].as_str().unwrap_or_default();
    assert!(
        w.contains("runs out at 1024 ranks") && w.contains("halo_open.f90:"),
        "{v}"
    );
    // The launch is one definition on the machine's node and on a cluster file.
    let examples = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples");
    let on_cluster = predict(
        "8",
        &["--cluster", examples.join("cluster.toml").to_str().unwrap()],
    );
    let on_node = predict("8", &[]);
    for v in [&on_cluster, &on_node] {
        let launch = v["startup"].as_f64().unwrap();
        assert!(
            launch > 0.0 && v["launch_measured_up_to"].as_u64().is_some(),
            "{v}"
        );
        let total = v["simulated"].as_f64().unwrap() + launch;
        assert!((v["seconds"].as_f64().unwrap() - total).abs() < 1e-9, "{v}");
        // The interval holds the time; it widens the computing alone.
        let (low, high) = (
            v["interval"]["low"].as_f64().unwrap(),
            v["interval"]["high"].as_f64().unwrap(),
        );
        assert!(low < total && total < high && high - low < total, "{v}");
    }
    // A sweep: a point per count, speedup and efficiency over the first, the figure.
    let v = predict("4,16,64", &["--plot", "sweep.svg"]);
    let points = v["points"].as_array().unwrap();
    assert_eq!(points.len(), 3, "{v}");
    let f = |k: usize, key: &str| points[k][key].as_f64().unwrap();
    assert_eq!(f(0, "speedup"), 1.0);
    assert!(
        (f(2, "efficiency") - f(2, "speedup") * 4.0 / 64.0).abs() < 1e-9,
        "{v}"
    );
    assert!(
        (0.0..=1.0).contains(&f(1, "mpi_share")) && f(1, "mpi_share") > 0.0,
        "{v}"
    );
    let svg = std::fs::read_to_string(dir.path().join("sweep.svg")).unwrap();
    assert!(svg.contains("efficiency") && svg.contains("share of the run in MPI calls"));
    // --matrix and --gantt take one count.
    let out = augur()
        .current_dir(dir.path())
        .args([
            "predict",
            "p.json",
            "--mpi-ranks",
            "4,8",
            "--matrix",
            "m.csv",
            "-m",
        ])
        .arg(mpi_machine())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success() && err.contains("take one rank count"),
        "{err}"
    );
}

#[test]
fn a_2d_cartesian_halo_extrapolates_on_the_grid_mpi_dims_create_gives() {
    // 3x3, 4x3 and 4x4 grids: every position (corner, edge, interior) at every count.
    let (dir, _) = analyze_fixture("halo_2d.f90", "9,12,16");
    let predict = |dir: &std::path::Path, ranks: &str| -> serde_json::Value {
        let out = succeeded(
            augur()
                .current_dir(dir)
                .args(["predict", "p.json", "--json", "--mpi-ranks", ranks, "-m"])
                .arg(mpi_machine()),
        );
        serde_json::from_str(&out).unwrap()
    };
    // 32 ranks: an 8x4 grid of 6x12 cells each; 10 steps of rows of 12 doubles to the
    // neighbours along the first dimension (4 ranks apart), columns of 6 along the second.
    let v = predict(dir.path(), "32");
    assert_eq!(v["extrapolated_from"].to_string(), "[9,12,16]", "{v}");
    assert_eq!(v["warnings"].as_array().unwrap().len(), 0, "{v}");
    let sent = |v: &serde_json::Value, r: usize| -> Vec<(usize, f64)> {
        let row = v["matrix"]["bytes"][r].as_array().unwrap().clone();
        (0..row.len())
            .map(|to| (to, row[to].as_f64().unwrap()))
            .filter(|(_, b)| *b > 0.0)
            .collect()
    };
    // A corner talks to 2 neighbours, an edge to 3, the interior to 4.
    assert_eq!(sent(&v, 0), vec![(1, 480.0), (4, 960.0)], "{v}");
    assert_eq!(sent(&v, 2).len(), 3, "{v}");
    assert_eq!(
        sent(&v, 5),
        vec![(1, 960.0), (4, 480.0), (6, 480.0), (9, 960.0)],
        "{v}"
    );
    assert_eq!(sent(&v, 31), vec![(27, 960.0), (30, 480.0)], "{v}");
    // 24 ranks (6x4) extrapolated move what a run at 24 ranks moves, pair by pair.
    let (real, _) = analyze_fixture("halo_2d.f90", "24");
    let (x, r) = (predict(dir.path(), "24"), predict(real.path(), "24"));
    assert_eq!(x["matrix"]["bytes"], r["matrix"]["bytes"], "{x}\n{r}");
    assert_eq!(x["matrix"]["messages"], r["matrix"]["messages"], "{x}\n{r}");
    assert_eq!(x["calls"], r["calls"], "{x}\n{r}");
}

#[test]
fn row_and_column_communicators_of_a_cartesian_grid_extrapolate() {
    // 3x3, 4x3 and 4x4 grids; each grid row sums along itself (MPI_Cart_sub) and each
    // column hands its first member's row down (MPI_Comm_split by the column index).
    let name = "halo_rows.f90";
    let (dir, p) = analyze_fixture(name, "9,12,16");
    // Rank 4 of 12 sits at (1, 1) of the 4x3 grid: its row holds ranks 3 to 5, its
    // column every third rank from 1, whose first member is the broadcast's root.
    let first = |op: &str| {
        events(&p, 12, 4)
            .into_iter()
            .find(|e| e.op == op)
            .unwrap_or_else(|| panic!("no {op}"))
    };
    assert_eq!(first("cart_sub").members, [3, 4, 5]);
    assert_eq!(first("comm_split").members, [1, 4, 7, 10]);
    assert_eq!(first("bcast").peer, 1);
    assert_sites(name, &events(&p, 12, 4));
    // 32 ranks (8x4): rows of 4 ranks summing 48 / 8 rows, columns of 8 handing down
    // 48 / 4 doubles; the making of both and 10 steps of each, on every rank.
    let out = succeeded(
        augur()
            .current_dir(dir.path())
            .args(["predict", "p.json", "--json", "--mpi-ranks", "32", "-m"])
            .arg(mpi_machine()),
    );
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["extrapolated_from"].to_string(), "[9,12,16]", "{v}");
    assert_eq!(v["warnings"].as_array().unwrap().len(), 0, "{v}");
    let collective = |r: usize| v["matrix"]["collective"][r].to_string();
    assert_eq!(collective(0), "[22,1440]", "{v}");
    assert_eq!(collective(9), collective(0), "{v}");
    // 24 ranks (6x4) extrapolated: every rank's calls, members, roots and bytes those of
    // a run at 24 ranks.
    let (_real, at24) = analyze_fixture(name, "24");
    let runs = p.mpi.as_ref().unwrap().runs.clone();
    let x = augur_scaling::ranks::extrapolate(&runs, 24).unwrap().run;
    let real = &at24.mpi.as_ref().unwrap().runs[0];
    for (t, r) in x.traces.iter().zip(&real.traces) {
        let rank = r.rank as usize;
        let mut ev = vec![];
        for rec in &t.records {
            for _ in 0..rec.repeat {
                ev.extend(rec.steps.iter().map(|s| s.event.clone()));
            }
        }
        assert_eq!(ev, events(&at24, 24, rank), "rank {rank}");
    }
}
