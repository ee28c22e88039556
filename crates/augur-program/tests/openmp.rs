//! OpenMP programs (`augur analyze --threads`): the directives paired into constructs,
//! the conditional lines compiled, and each block's executions per thread measured by
//! real counting runs with 1, 2 and 3 threads, checked against what the schedules give
//! by hand (a static schedule's blocks of iterations, a triangular loop's imbalance),
//! and totals that do not depend on the thread count.
//!
//! These tests need gfortran (with libgomp) and gcc; without them they fail saying so.

use augur_ir::omp::ConstructKind;
use augur_program::{AnalyzeError, AnalyzeOptions};
use augur_program_profile::ProgramProfile;
use augur_toolchain::Toolchain;
use std::path::{Path, PathBuf};

fn options(cwd: &Path, threads: &[u32]) -> AnalyzeOptions {
    let tc = Toolchain::detect("gfortran", "-O1")
        .unwrap_or_else(|e| panic!("these tests need gfortran and gcc: {e}"));
    let mut o = AnalyzeOptions::new(tc, cwd);
    o.branch_run = true;
    o.threads = threads.to_vec();
    o
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

/// The per-thread executions at `p` threads of the block of `unit` starting at `line`.
fn per_thread(profile: &ProgramProfile, p: u32, line: u32) -> Vec<f64> {
    let omp = profile.openmp.as_ref().expect("an OpenMP profile");
    let run = omp.run(p).expect("counted at p threads");
    let (ui, u) = profile
        .units
        .iter()
        .enumerate()
        .find(|(_, u)| u.name == "tri")
        .unwrap();
    let b = u
        .blocks
        .iter()
        .rev()
        .find(|b| b.first_line == line && b.executions.unwrap_or(0.0) > 0.0)
        .unwrap_or_else(|| panic!("no block at line {line}"));
    run.counts_of(ui as u32, b.id, b.executions.unwrap_or(0.0))
}

const TRIANGLE: &str = "program tri
!$ use omp_lib
  implicit none
  integer, parameter :: n = 60
  integer :: i, j, hits, tid
  real(8) :: a(n), s
  a = 0
  hits = 0
  tid = -1
!$ tid = 0
!$omp parallel do schedule(static) private(j)
  do i = 1, n
    do j = 1, i
      a(i) = a(i) + j
    end do
  end do
!$omp end parallel do
  s = 0
!$omp parallel do reduction(+:s) schedule(dynamic, 2)
  do i = 1, n
    s = s + a(i)
  end do
!$omp parallel
!$omp critical
  hits = hits + 1
!$omp end critical
!$omp atomic
  hits = hits + 1
!$omp end parallel
  print *, nint(s), hits, tid
end program tri
";

#[test]
fn triangular_static_loop_splits_by_hand() {
    let dir = tempfile::tempdir().unwrap();
    let f = write(dir.path(), "tri.f90", TRIANGLE);
    let a = augur_program::analyze(&[f], &options(dir.path(), &[1, 2, 3]))
        .unwrap_or_else(|e| panic!("{e}"));
    let out = String::from_utf8_lossy(&a.run.stdout).to_string();
    // The conditional line `!$ tid = 0` ran: the OpenMP build compiled it.
    assert!(out.trim().ends_with(" 0"), "{out}");
    let p = &a.profile;
    // The inner body (line 14) of the triangle: a static schedule gives thread t the
    // rows t·n/P+1 .. (t+1)·n/P, so Σ i over them.
    let rows = |lo: u32, hi: u32| (lo..=hi).map(|i| i as f64).sum::<f64>();
    assert_eq!(per_thread(p, 1, 14), vec![rows(1, 60)]);
    assert_eq!(per_thread(p, 2, 14), vec![rows(1, 30), rows(31, 60)]);
    assert_eq!(
        per_thread(p, 3, 14),
        vec![rows(1, 20), rows(21, 40), rows(41, 60)]
    );
    // The dynamic loop's body: however it split, 60 in all at every count.
    for t in [1, 2, 3] {
        let c = per_thread(p, t, 21);
        assert_eq!(c.len(), t as usize);
        assert_eq!(c.iter().sum::<f64>(), 60.0, "{t} threads: {c:?}");
    }
    // Every thread entered the critical section once.
    assert_eq!(per_thread(p, 3, 25), vec![1.0, 1.0, 1.0]);
}

#[test]
fn constructs_are_paired_and_bound() {
    let dir = tempfile::tempdir().unwrap();
    let f = write(dir.path(), "tri.f90", TRIANGLE);
    let a =
        augur_program::analyze(&[f], &options(dir.path(), &[2])).unwrap_or_else(|e| panic!("{e}"));
    let omp = a.profile.openmp.as_ref().unwrap();
    let cs = omp.constructs_of(0);
    let kinds: Vec<(ConstructKind, bool, u32)> = cs
        .iter()
        .map(|c| (c.directive.kind, c.directive.parallel, c.line))
        .collect();
    assert_eq!(
        kinds,
        vec![
            (ConstructKind::Loop, true, 11),
            (ConstructKind::Loop, true, 19),
            (ConstructKind::Parallel, true, 23),
            (ConstructKind::Critical, false, 24),
            (ConstructKind::Atomic, false, 27),
        ]
    );
    assert_eq!(cs[0].end_line, 17, "ends at its END PARALLEL DO");
    assert_eq!(cs[1].end_line, 22, "ends at its loop's END DO");
    assert_eq!(cs[0].loops.len(), 1);
    assert_eq!(cs[3].parent, Some(2));
    // The branch run built and ran despite the directives.
    assert!(
        a.profile.branches.is_some(),
        "no branch run: {:?}",
        a.profile.notes
    );
}

#[test]
fn collapse_and_orphaned_loops_count_exactly() {
    let dir = tempfile::tempdir().unwrap();
    let main = write(
        dir.path(),
        "coll.f90",
        "program coll
  implicit none
  integer :: i, j, k
  real(8) :: b(7, 9)
  b = 0
!$omp parallel private(k)
!$omp do collapse(2)
  do j = 1, 9
    do i = 1, 7
      b(i, j) = b(i, j) + i * j
    end do
  end do
!$omp end do nowait
  do k = 1, 3
    call work(b)
  end do
!$omp end parallel
  print *, nint(sum(b))
end program coll

subroutine work(b)
  implicit none
  real(8) :: b(7, 9)
  integer :: i
!$omp do
  do i = 1, 7
    b(i, 1) = b(i, 1) + 1
  end do
!$omp end do
end subroutine work
",
    );
    let a = augur_program::analyze(&[main], &options(dir.path(), &[1, 2, 4]))
        .unwrap_or_else(|e| panic!("{e}"));
    let p = &a.profile;
    let omp = p.openmp.as_ref().unwrap();
    for t in [1u32, 2, 4] {
        let run = omp.run(t).unwrap();
        // The collapsed body: 63 in all, split over the threads.
        let (ui, u) = (0usize, &p.units[0]);
        let body = u.blocks.iter().find(|b| b.first_line == 10).unwrap();
        let c = run.counts_of(ui as u32, body.id, body.executions.unwrap());
        assert_eq!(c.iter().sum::<f64>(), 63.0, "{t} threads: {c:?}");
        if t == 2 {
            assert!(c.iter().all(|&x| x > 0.0), "both threads worked: {c:?}");
        }
        // The orphaned loop in WORK: 7 iterations per call, 3 calls per thread, shared.
        let (wi, w) = p
            .units
            .iter()
            .enumerate()
            .find(|(_, u)| u.name == "work")
            .unwrap();
        let wb = w.blocks.iter().find(|b| b.first_line == 27).unwrap();
        let c = run.counts_of(wi as u32, wb.id, wb.executions.unwrap());
        assert_eq!(c.iter().sum::<f64>(), 21.0, "{t} threads: {c:?}");
    }
}

#[test]
fn a_thread_count_out_of_range_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let f = write(dir.path(), "tri.f90", TRIANGLE);
    let e = augur_program::analyze(&[f], &options(dir.path(), &[2, 1000])).unwrap_err();
    assert!(matches!(e, AnalyzeError::Run(_)));
    let msg = e.to_string();
    assert!(
        msg.contains("1000 threads") && msg.contains("from 1 to"),
        "{msg}"
    );
}

#[test]
fn constructs_inside_a_loop_construct_have_it_as_parent() {
    let dir = tempfile::tempdir().unwrap();
    let f = write(
        dir.path(),
        "nest.f90",
        "program nest
  implicit none
  integer :: i, h(4)
  h = 0
!$omp parallel do
  do i = 1, 100
!$omp critical
    h(1) = h(1) + 1
!$omp end critical
!$omp atomic
    h(2) = h(2) + 1
  end do
!$omp end parallel do
  print *, h
end program nest
",
    );
    let a =
        augur_program::analyze(&[f], &options(dir.path(), &[2])).unwrap_or_else(|e| panic!("{e}"));
    let cs = a.profile.openmp.as_ref().unwrap().constructs_of(0).to_vec();
    assert_eq!(cs.len(), 3);
    assert_eq!(cs[1].directive.kind, ConstructKind::Critical);
    assert_eq!(cs[1].parent, Some(0), "{cs:?}");
    assert_eq!(cs[2].parent, Some(0), "{cs:?}");
}

const WORKSHARE: &str = "program tri
  implicit none
  integer, parameter :: n = 1000
  real(8), allocatable :: u(:), f(:)
  real(8) :: g(n)
  integer :: step
  allocate(u(n), f(n))
  u = 0.5d0
  f = 0
  g = 0
  do step = 1, 4
!$omp parallel workshare
    f(2:n-1) = u(1:n-2) + u(3:n)
    where (f > 0.9d0) g = 1
    where (f > 1d0)
      f = 1
    elsewhere
      f = f * 1.001d0
    end where
    u = f
!$omp end parallel workshare
  end do
  print *, sum(u), sum(g)
end program tri
";

#[test]
fn the_array_statements_gfortran_shares_out_of_a_workshare_split_evenly() {
    let dir = tempfile::tempdir().unwrap();
    let f = write(dir.path(), "ws.f90", WORKSHARE);
    let a = augur_program::analyze(&[f], &options(dir.path(), &[1, 2]))
        .unwrap_or_else(|e| panic!("{e}"));
    let p = &a.profile;
    // The section assignment and the WHERE statement become `omp for` loops: each
    // thread gets half of the 4 x 998 and 4 x 1000 elements, although one thread ran
    // each statement's counter.
    assert_eq!(per_thread(p, 2, 13), vec![1996.0, 1996.0]);
    assert_eq!(per_thread(p, 2, 14), vec![2000.0, 2000.0]);
    // The WHERE construct with ELSEWHERE and the assignment that may reallocate `u`
    // run in a SINGLE: whichever thread runs one of its executions has all 1000 of
    // its elements.
    for line in [15, 16, 18, 20] {
        let c = per_thread(p, 2, line);
        assert_eq!(c.iter().sum::<f64>(), 4000.0, "line {line}: {c:?}");
        assert!(c.iter().all(|x| x % 1000.0 == 0.0), "line {line}: {c:?}");
    }
}
