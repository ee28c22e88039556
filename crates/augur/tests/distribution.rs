//! `augur predict --distribute/--procs` (issue 43) with the real compilers, OpenMPI and
//! SimGrid: each sequential program of `corpus/distribution` distributed by its HPF
//! directives sends, rank by rank, the messages and bytes its hand-written MPI twin
//! sends (the twin traced by `augur analyze --mpi-ranks`); a distribution that cannot
//! apply is an error that names it; with `--report`, the page of the sequential
//! program holds the distributed prediction's section.

mod page;

use augur_program_profile::ProgramProfile;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
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

/// Runs `cmd`, asserts that it failed and returns its standard error.
fn failed(cmd: &mut Command) -> String {
    let res = cmd.output().unwrap();
    let stderr = String::from_utf8_lossy(&res.stderr).to_string();
    assert!(!res.status.success(), "succeeded: {stderr}");
    stderr
}

/// One MPI job at a time (2 cores).
static ONE_JOB: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// These tests run the real MPI library: without it they fail (never skip silently).
fn require_mpi() -> std::sync::MutexGuard<'static, ()> {
    for tool in ["mpif90", "mpirun", "smpirun"] {
        assert!(
            augur_mpi::find_on_path(tool).is_some(),
            "{tool} not found: these tests need OpenMPI and SimGrid (scripts/setup.sh installs them)"
        );
    }
    ONE_JOB.lock().unwrap_or_else(|e| e.into_inner())
}

/// A machine of the library with a measured `[mpi]` network.
const MACHINE: &str = "gfortran12-O2-xeon-2core";

fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../corpus/distribution")
}

/// Copies `files` of the corpus into a new directory.
fn copied(files: &[&str]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for f in files {
        std::fs::copy(corpus().join(f), dir.path().join(f)).unwrap();
    }
    dir
}

/// Per rank of the run at `ranks`: each MPI operation's calls and bytes sent (a
/// `sendrecv`'s half to MPI_PROC_NULL sends nothing).
fn summary(p: &ProgramProfile, ranks: u32) -> Vec<BTreeMap<String, (u64, i64)>> {
    let run = p
        .mpi
        .as_ref()
        .and_then(|m| m.runs.iter().find(|r| r.ranks == ranks))
        .unwrap_or_else(|| panic!("no run at {ranks} ranks"));
    run.traces
        .iter()
        .map(|t| {
            let mut by_op: BTreeMap<String, (u64, i64)> = BTreeMap::new();
            for rec in &t.records {
                for s in &rec.steps {
                    let e = &s.event;
                    if !e.is_call() || e.op == "init" || e.op == "finalize" {
                        continue;
                    }
                    let sent = if e.op == "sendrecv" && e.peer < 0 {
                        0
                    } else {
                        e.bytes
                    };
                    let slot = by_op.entry(e.op.clone()).or_default();
                    slot.0 += rec.repeat;
                    slot.1 += sent * rec.repeat as i64;
                }
            }
            by_op
        })
        .collect()
}

/// The pair `name`: its sequential program distributed at 2 and 4 processors sends what
/// its MPI twin sends, rank by rank, operation by operation.
fn pair_matches_its_twin(name: &str) {
    twin_matches(&format!("{name}_seq.f90"), &format!("{name}_mpi.f90"), &[]);
}

/// The sequential program `seq` distributed by its directives and `distribute` (each a
/// `--distribute` value) sends what `mpi` sends.
fn twin_matches(seq: &str, mpi: &str, distribute: &[&str]) {
    let _one_job = require_mpi();
    let name = mpi.trim_end_matches(".f90");
    let (seq, mpi) = (seq.to_string(), mpi.to_string());
    let dir = copied(&[&seq, &mpi]);
    let at = |args: &[&str]| succeeded(augur().current_dir(dir.path()).args(args));
    at(&["analyze", &seq, "--no-branch-run", "-o", "s.json"]);
    at(&[
        "analyze",
        &mpi,
        "--fc",
        "mpif90",
        "--mpi-ranks",
        "2,4",
        "--no-branch-run",
        "-o",
        "m.json",
    ]);
    let mut args = vec![
        "predict",
        "s.json",
        "-m",
        MACHINE,
        "--procs",
        "2,4",
        "--profile-out",
        "d.json",
    ];
    for d in distribute {
        args.extend(["--distribute", d]);
    }
    let report = at(&args);
    assert!(
        report.contains("loop nests split over the 4 processors"),
        "{report}"
    );
    let read = |f: &str| ProgramProfile::read(&dir.path().join(f)).unwrap();
    let (distributed, twin) = (read("d.json"), read("m.json"));
    for ranks in [2, 4] {
        assert_eq!(
            summary(&distributed, ranks),
            summary(&twin, ranks),
            "{name} at {ranks} ranks: distributed (left) against its MPI twin (right)\n{report}"
        );
    }
}

#[test]
fn jacobi2d_sends_what_its_twin_sends() {
    pair_matches_its_twin("jacobi2d");
}

#[test]
fn stencil2d_sends_what_its_twin_sends() {
    pair_matches_its_twin("stencil2d");
}

#[test]
fn redblack_sends_what_its_twin_sends() {
    pair_matches_its_twin("redblack");
}

#[test]
fn matvec_sends_what_its_twin_sends() {
    pair_matches_its_twin("matvec");
}

#[test]
fn matvec_by_columns_sends_what_its_twin_sends() {
    twin_matches("matvec_seq.f90", "matvec_cols_mpi.f90", &["a(*,BLOCK)"]);
}

#[test]
fn reduce_sends_what_its_twin_sends() {
    pair_matches_its_twin("reduce");
}

#[test]
fn lu_cyclic_sends_what_its_twin_sends() {
    pair_matches_its_twin("lu_cyclic");
}

#[test]
fn transpose_sends_what_its_twin_sends() {
    pair_matches_its_twin("transpose");
}

#[test]
fn distributions_that_cannot_apply_name_what_is_wrong() {
    let _one_job = require_mpi();
    let dir = copied(&["jacobi2d_seq.f90"]);
    let at = |args: &[&str]| augur().current_dir(dir.path()).args(args).output().unwrap();
    let out = at(&[
        "analyze",
        "jacobi2d_seq.f90",
        "--no-branch-run",
        "-o",
        "s.json",
    ]);
    assert!(out.status.success());
    let predict = |extra: &[&str]| {
        let mut c = augur();
        c.current_dir(dir.path())
            .args(["predict", "s.json", "-m", MACHINE])
            .args(extra);
        c
    };
    let e = failed(&mut predict(&["--distribute", "w(BLOCK)", "--procs", "2"]));
    assert!(
        e.contains("w is distributed but the program has no array of that name"),
        "{e}"
    );
    let e = failed(&mut predict(&["--distribute", "u(BLOCK)", "--procs", "2"]));
    assert!(
        e.contains("u has 2 dimension(s) but its distribution gives 1"),
        "{e}"
    );
    let e = failed(&mut predict(&[
        "--distribute",
        "u(*,BLOCK(100))",
        "--procs",
        "2",
    ]));
    assert!(
        e.contains("BLOCK(100) over 2 processors holds 200 of its 602"),
        "{e}"
    );
    let e = failed(&mut predict(&["--distribute", "u(*,BLOK)", "--procs", "2"]));
    assert!(
        e.contains("--distribute") && e.contains("not a format"),
        "{e}"
    );
    let e = failed(&mut predict(&["--procs", "2x2"]));
    assert!(
        e.contains("the grid 2x2 has 2 axes but the arrays are distributed over 1"),
        "{e}"
    );
    // The command line's distribution replaces the directive's for the same array.
    let text = succeeded(&mut predict(&[
        "--distribute",
        "u(BLOCK,*)",
        "--procs",
        "2",
    ]));
    assert!(
        text.contains("u(BLOCK,*)") && text.contains("unew(BLOCK,*)"),
        "{text}"
    );
    assert!(
        text.contains("shift: u halo of 1 below, 1 above in dimension 1"),
        "{text}"
    );
    // A permuted alignment takes the target's formats dimension by dimension; an offset
    // is refused with what to write instead.
    let text = succeeded(&mut predict(&[
        "--distribute",
        "unew(i,j) WITH u(j,i)",
        "--procs",
        "2",
    ]));
    assert!(
        text.contains("u(*,BLOCK)") && text.contains("unew(BLOCK,*)"),
        "{text}"
    );
    let e = failed(&mut predict(&[
        "--distribute",
        "unew(i,j) WITH u(i+1,j)",
        "--procs",
        "2",
    ]));
    assert!(e.contains("offset") && e.contains("DISTRIBUTE"), "{e}");
    // A changed source is refused.
    let src = dir.path().join("jacobi2d_seq.f90");
    let mut s = std::fs::read_to_string(&src).unwrap();
    s.push_str("! changed\n");
    std::fs::write(&src, s).unwrap();
    let e = failed(&mut predict(&["--procs", "2"]));
    assert!(e.contains("changed since the analysis"), "{e}");
}

/// A new directory holding the corpus's `jacobi2d_seq.f90`, analyzed into `s.json`.
fn analyzed_jacobi2d() -> tempfile::TempDir {
    let dir = copied(&["jacobi2d_seq.f90"]);
    succeeded(augur().current_dir(dir.path()).args([
        "analyze",
        "jacobi2d_seq.f90",
        "--no-branch-run",
        "-o",
        "s.json",
    ]));
    dir
}

/// A new directory holding `heat1d.f90` (`src`), analyzed into `s.json`.
fn analyzed_heat1d(src: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("heat1d.f90"), src).unwrap();
    succeeded(augur().current_dir(dir.path()).args([
        "analyze",
        "heat1d.f90",
        "--no-branch-run",
        "-o",
        "s.json",
    ]));
    dir
}

/// F90 array statements on distributed arrays: split by the sections they assign, a
/// shifted section a halo, `sum` a reduction.
#[test]
fn array_statements_are_split_by_their_sections() {
    let _one_job = require_mpi();
    let src = "program heat1d\n  implicit none\n  integer, parameter :: n = 20000, nsteps = 50\n  real(8) :: u(n), unew(n), s\n!HPF$ DISTRIBUTE u(BLOCK)\n!HPF$ ALIGN unew(i) WITH u(i)\n  integer :: it\n  u = 0.0d0\n  u(n/2) = 1.0d0\n  unew = u\n  do it = 1, nsteps\n    unew(2:n-1) = u(2:n-1) + 0.25d0 * (u(1:n-2) - 2.0d0 * u(2:n-1) + u(3:n))\n    u = unew\n  end do\n  s = sum(u)\n  print *, s\nend program heat1d\n";
    let dir = analyzed_heat1d(src);
    let at = |args: &[&str]| succeeded(augur().current_dir(dir.path()).args(args));
    let report = at(&[
        "predict",
        "s.json",
        "-m",
        MACHINE,
        "--procs",
        "4",
        "--profile-out",
        "d.json",
    ]);
    assert!(
        report.contains("array statement (unew dim 1, 25.0%)")
            && report.contains("shift: u halo of 1 below, 1 above in dimension 1")
            && report.contains("reduction: s combined after the nest"),
        "{report}"
    );
    let d = ProgramProfile::read(&dir.path().join("d.json")).unwrap();
    let ranks = summary(&d, 4);
    // An inner rank exchanges one element each way every step; the ends one way.
    assert_eq!(ranks[1]["sendrecv"], (100, 50 * 2 * 8));
    assert_eq!(ranks[0]["sendrecv"], (100, 50 * 8));
    assert_eq!(ranks[3]["allreduce"], (1, 8));
}

/// `--distribute-alt` ranks candidates: for a stencil, columns in blocks beat columns
/// dealt round the processors (every neighbour column remote), and says why; `--json`
/// is the published `augur-distribution-ranking` document.
#[test]
fn candidate_distributions_are_ranked_with_the_reason() {
    let _one_job = require_mpi();
    let dir = analyzed_jacobi2d();
    let at = |args: &[&str]| succeeded(augur().current_dir(dir.path()).args(args));
    let args = [
        "predict",
        "s.json",
        "-m",
        MACHINE,
        "--procs",
        "2,4",
        "--distribute-alt",
        "u(*,CYCLIC)",
    ];
    let text = at(&args);
    assert!(text.contains("augur distributions compared"), "{text}");
    for p in ["2", "4"] {
        let line = text
            .lines()
            .find(|l| l.trim_start().starts_with(&format!("{p}: ")))
            .unwrap_or_else(|| panic!("no winner at {p}: {text}"));
        assert!(
            line.contains(": u(*,BLOCK), unew WITH u (") && line.contains("less time moving data"),
            "{line}"
        );
    }
    let json = at(&[&args[..], &["--json"]].concat());
    let doc: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(doc["kind"], "augur-distribution-ranking");
    let schema_path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../docs/schemas/augur-distribution-ranking.schema.json");
    let schema: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(schema_path).unwrap()).unwrap();
    let validator = jsonschema::draft202012::new(&schema).unwrap();
    assert!(validator.is_valid(&doc), "{json}");
    assert_eq!(doc["rows"].as_array().unwrap().len(), 4, "{json}");
}

/// `--procs 2,4 --report`: the page of the sequential program with the distribution,
/// the sweep's table and its figure after it; with `--distribute-alt`, the ranking.
#[test]
fn a_distributed_prediction_report_holds_its_tables_and_figure() {
    let _one_job = require_mpi();
    let dir = analyzed_jacobi2d();
    let at = |args: &[&str]| succeeded(augur().current_dir(dir.path()).args(args));
    let predict = ["predict", "s.json", "-m", MACHINE, "--procs", "2,4"];
    let out = at(&[&predict[..], &["--report", "d.html"]].concat());
    let section = page::assert_section(&dir.path().join("d.html"), "distribution", &out, 1);
    for said in [
        "Distributed: predicted at 2 and 4 processors",
        "the sequential program's as it is",
        "loop nests split over the 4 processors",
        "MPI prediction by rank count (SimGrid replay, as distributed)",
    ] {
        assert!(section.contains(said), "{said}: {section}");
    }
    let alt = ["--distribute-alt", "u(*,CYCLIC)", "--report", "alt.html"];
    let out = at(&[&predict[..], &alt].concat());
    let section = page::assert_section(&dir.path().join("alt.html"), "distribution", &out, 0);
    assert!(
        section.contains("Distributions compared at 2 and 4 processors"),
        "{section}"
    );
}

/// A long run (a time loop of thousands of steps at many ranks) is replayed at a few
/// repetitions of its pattern and extended: the same time as the whole replay, within
/// 1%, and said.
#[test]
fn a_long_run_replayed_sampled_predicts_what_the_whole_replay_does() {
    let _one_job = require_mpi();
    let src = "program heat1d\n  implicit none\n  integer, parameter :: n = 64000, nsteps = 5000\n  real(8) :: u(n), unew(n), s\n!HPF$ DISTRIBUTE u(BLOCK)\n!HPF$ ALIGN unew(i) WITH u(i)\n  integer :: i, it\n  do i = 1, n\n    u(i) = 0.0d0\n  end do\n  u(n/2) = 1.0d0\n  do it = 1, nsteps\n    do i = 2, n - 1\n      unew(i) = u(i) + 0.25d0 * (u(i-1) - 2.0d0 * u(i) + u(i+1))\n    end do\n    do i = 2, n - 1\n      u(i) = unew(i)\n    end do\n  end do\n  s = 0.0d0\n  do i = 1, n\n    s = s + u(i)\n  end do\n  print *, s\nend program heat1d\n";
    let dir = analyzed_heat1d(src);
    let at = |args: &[&str]| succeeded(augur().current_dir(dir.path()).args(args));
    let predict = |extra: &[&str]| {
        let args = [
            &[
                "predict", "s.json", "-m", MACHINE, "--procs", "64", "--json",
            ][..],
            extra,
        ]
        .concat();
        let doc: serde_json::Value = serde_json::from_str(&at(&args)).unwrap();
        (
            doc["simulated"].as_f64().unwrap(),
            doc["warnings"].to_string(),
        )
    };
    let (sampled, said) = predict(&[]);
    let (whole, none) = predict(&["--full-replay"]);
    assert!(said.contains("a long run: replayed at"), "{said}");
    assert!(!none.contains("a long run"), "{none}");
    assert!(
        (sampled / whole - 1.0).abs() < 0.01,
        "sampled {sampled} s against the whole replay's {whole} s"
    );
}
