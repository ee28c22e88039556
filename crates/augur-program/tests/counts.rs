//! Exactness of augur's execution counts, with the real gfortran.
//!
//! * Small programs whose counts are derived by hand: every μ asserted here is the
//!   exact number of executions (loop nests, EXIT, CYCLE, DO WHILE, GOTO loops, IF
//!   chains, SELECT CASE, calls, recursion, STOP, whole-array statements, labelled DO
//!   nests). Each is also checked against gcov.
//! * The corpus: every program's counts equal gcov's line counts wherever the two mean
//!   the same thing, and the instrumented program prints what the coverage build prints.
//!
//! These tests need gfortran, gcc and gcov; without them they fail saying so.

use augur_ir::{AbOp, BlockKind};
use augur_program::analyze::Analysis;
use augur_program::gcov::{self, CountCheck};
use augur_program::AnalyzeOptions;
use augur_toolchain::{RunSpec, Toolchain};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// gfortran at -O0, or a failure that says how to get it.
fn gfortran() -> Toolchain {
    match Toolchain::detect("gfortran", "-O0") {
        Ok(tc) => tc,
        Err(e) => panic!(
            "these tests need gfortran, gcc and gcov: {e}\ninstall them: apt-get install gfortran gcc"
        ),
    }
}

fn options(
    tc: &Toolchain,
    cwd: &Path,
    c_sources: Vec<PathBuf>,
    stdin: Option<PathBuf>,
) -> AnalyzeOptions {
    AnalyzeOptions {
        front: Default::default(),
        toolchain: tc.clone(),
        c_sources,
        objects: vec![],
        link_args: vec![],
        args: vec![],
        stdin,
        timeout: Duration::from_secs(600),
        cwd: cwd.to_path_buf(),
        keep_partial: false,
        keep_build: None,
        branch_run: false,
        optimization_report: true,
        threads: vec![],
        mpi_ranks: vec![],
    }
}

/// A hand-written program, analyzed, with gcov's counts of the same run.
struct Case {
    analysis: Analysis,
    check: CountCheck,
    gcov_stdout: Vec<u8>,
    _dir: tempfile::TempDir,
}

impl Case {
    /// The profile of the program unit named `name`.
    fn unit(&self, name: &str) -> &augur_program_profile::UnitProfile {
        self.analysis
            .profile
            .units
            .iter()
            .find(|u| u.name == name)
            .unwrap_or_else(|| panic!("{name} is profiled"))
    }
}

/// Writes `text` as `name` in a temporary directory, analyzes it at -O0 and gets gcov's
/// counts; asserts that the two agree wherever they are comparable.
fn case(name: &str, text: &str) -> Case {
    let tc = gfortran();
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join(name);
    std::fs::write(&src, text).unwrap();
    let opts = options(&tc, dir.path(), vec![], None);
    let analysis = augur_program::analyze(std::slice::from_ref(&src), &opts)
        .unwrap_or_else(|e| panic!("{name}: analyze failed: {e}"));
    let spec = RunSpec::new(dir.path(), Duration::from_secs(600));
    let counts = gcov::gcov_line_counts(&tc, &[src], &[], &spec)
        .unwrap_or_else(|e| panic!("{name}: gcov failed: {e}"));
    let check = gcov::compare(&analysis.program, &analysis.profile, &counts);
    assert!(
        check.mismatches.is_empty(),
        "{name}: augur and gcov disagree: {:#?}",
        check.mismatches
    );
    assert_eq!(
        String::from_utf8_lossy(&analysis.run.stdout),
        String::from_utf8_lossy(&counts.stdout),
        "{name}: the instrumented program printed something else"
    );
    Case {
        analysis,
        check,
        gcov_stdout: counts.stdout,
        _dir: dir,
    }
}

impl Case {
    /// μ of the block of kind `kind` whose first statement starts on `line` (of any unit);
    /// when several do (a logical IF and its guarded statement), the leftmost.
    fn mu(&self, line: u32, kind: BlockKind) -> f64 {
        self.mu_nth(line, kind, 0)
    }

    /// μ of the `nth` block (from the left) of kind `kind` starting on `line`.
    fn mu_nth(&self, line: u32, kind: BlockKind, nth: usize) -> f64 {
        let a = &self.analysis;
        let mut found = vec![];
        for (ui, u) in a.program.units.iter().enumerate() {
            for (bi, b) in u.blocks.iter().enumerate() {
                let Some(&s) = b.stmts.first() else { continue };
                let start = u.stmts[s as usize].span.start;
                if b.kind == kind && start.line == line {
                    found.push((start.col, a.profile.units[ui].blocks[bi].executions));
                }
            }
        }
        found.sort_by_key(|f| f.0);
        let cols: Vec<u32> = found.iter().map(|f| f.0).collect();
        let mut dedup = cols.clone();
        dedup.dedup();
        assert_eq!(
            cols, dedup,
            "several {kind:?} blocks start at line {line}: {found:?}"
        );
        match found.get(nth) {
            Some((_, Some(m))) => *m,
            Some((_, None)) => panic!("the {kind:?} block at line {line} has no count"),
            None => panic!("no {kind:?} block number {nth} starts at line {line}"),
        }
    }

    /// μ of the guarded statement of the logical IF on `line`.
    fn guarded(&self, line: u32) -> f64 {
        self.mu_nth(line, BlockKind::Straight, 1)
    }

    /// μ of the straight (or entry) block starting at `line`.
    fn at(&self, line: u32) -> f64 {
        let a = &self.analysis;
        let entry = a.program.units.iter().any(|u| {
            u.blocks.first().is_some_and(|b| {
                b.stmts
                    .first()
                    .is_some_and(|&s| u.stmts[s as usize].span.start.line == line)
            })
        });
        if entry {
            self.mu(line, BlockKind::Entry)
        } else {
            self.mu(line, BlockKind::Straight)
        }
    }

    /// μ of the per-iteration block of the loop whose DO statement is on `line` (for a
    /// DO WHILE: its tests).
    fn iterations(&self, line: u32) -> f64 {
        self.mu(line, BlockKind::LoopHeader)
    }

    /// Times the unit `name` was entered.
    fn calls(&self, name: &str) -> f64 {
        let a = &self.analysis;
        let ui = a
            .program
            .units
            .iter()
            .position(|u| u.name == name)
            .unwrap_or_else(|| panic!("no unit {name}"));
        a.profile.units[ui].blocks[0]
            .executions
            .unwrap_or_else(|| panic!("the entry of {name} has no count"))
    }

    fn stdout(&self) -> String {
        String::from_utf8_lossy(&self.analysis.run.stdout).into_owned()
    }
}

#[test]
fn triangular_nest() {
    let c = case(
        "tri.f90",
        "program tri
  implicit none
  integer :: i, j, n, s, t
  n = 10
  s = 0
  t = 0
  do i = 1, n
    t = t + i
    do j = 1, i
      s = s + j
    end do
  end do
  print *, s, t
end program
",
    );
    assert_eq!(c.at(4), 1.0);
    assert_eq!(c.iterations(7), 10.0);
    assert_eq!(c.at(8), 10.0);
    // The inner body runs n(n+1)/2 times.
    assert_eq!(c.iterations(9), 55.0);
    assert_eq!(c.at(10), 55.0);
    assert_eq!(c.at(13), 1.0);
    assert!(c.stdout().contains("220"), "{}", c.stdout());
}

#[test]
fn exit_and_cycle() {
    let c = case(
        "exitcycle.f90",
        "program exitcycle
  implicit none
  integer :: i, s, c, k
  s = 0
  c = 0
  k = 0
  do i = 1, 100
    if (i*i > 50) exit
    s = s + i
    k = k + 1
  end do
  do i = 1, 20
    if (mod(i, 3) == 0) cycle
    c = c + i
    k = k + 2
  end do
  print *, s, c, k
end program
",
    );
    // i = 1..8 test; 8*8 = 64 > 50 leaves at the 8th.
    assert_eq!(c.at(8), 8.0);
    assert_eq!(c.guarded(8), 1.0);
    assert_eq!(c.at(9), 7.0);
    assert_eq!(c.iterations(7), 8.0);
    // 20 tests, 6 multiples of 3 skip the rest.
    assert_eq!(c.at(13), 20.0);
    assert_eq!(c.guarded(13), 6.0);
    assert_eq!(c.at(14), 14.0);
    assert_eq!(c.iterations(12), 20.0);
    assert_eq!(c.at(17), 1.0);
}

#[test]
fn do_while_tests_are_iterations_plus_one_per_entry() {
    let c = case(
        "dowhile.f90",
        "program dowhile
  implicit none
  integer :: k, n, m
  n = 0
  do m = 1, 3
    k = 0
    do while (k < 37)
      k = k + 5
      n = n + 1
    end do
    n = n + 100
  end do
  print *, n
end program
",
    );
    // k = 0, 5, ..., 35 pass: 8 iterations and 9 tests per entry, 3 entries.
    assert_eq!(c.iterations(7), 27.0);
    assert_eq!(c.at(8), 24.0);
    assert_eq!(c.at(6), 3.0);
    assert_eq!(c.at(11), 3.0);
}

#[test]
fn goto_loop_in_fixed_form() {
    let c = case(
        "gotoloop.f",
        "      PROGRAM GTL
      INTEGER I, N, S
      N = 12
      I = 1
      S = 0
   10 IF (I .GT. N) GOTO 20
      S = S + I
      I = I + 1
      GOTO 10
   20 PRINT *, S
      END
",
    );
    assert_eq!(c.at(3), 1.0);
    assert_eq!(c.at(6), 13.0);
    assert_eq!(c.guarded(6), 1.0);
    assert_eq!(c.at(7), 12.0);
    assert_eq!(c.at(10), 1.0);
    assert!(c.stdout().contains("78"), "{}", c.stdout());
    // The backward GOTO is a loop: entered once, 13 passes through its test.
    let l = &c.analysis.profile.units[0].loops;
    assert_eq!(l.len(), 1, "{l:?}");
    assert_eq!(l[0].loop_kind, augur_ir::LoopKind::Goto);
    assert_eq!((l[0].entries, l[0].iterations), (Some(1.0), Some(13.0)));
}

#[test]
fn matmul_counts_its_multiply_adds_past_four_byte_integers() {
    // 300 x 300 times 300 x 300: 2.7e7 multiply-adds, but size(a) * size(b) = 8.1e9
    // does not fit in a default integer.
    let c = case(
        "mm.f90",
        "program mm
  implicit none
  integer, parameter :: n = 300
  real(8), allocatable :: a(:,:), b(:,:), c(:,:)
  allocate(a(n,n), b(n,n), c(n,n))
  a = 1.0d0
  b = 2.0d0
  c = matmul(a, b)
  print *, c(1,1)
end program
",
    );
    let elements: Vec<f64> = c.analysis.profile.units[0]
        .blocks
        .iter()
        .filter(|b| b.first_line == 8 && b.block_kind == BlockKind::Elements)
        .filter_map(|b| b.executions)
        .collect();
    assert!(elements.contains(&27_000_000.0), "{elements:?}");
    assert!(elements.contains(&90_000.0), "{elements:?}");
}

#[test]
fn if_else_if_chain_with_known_frequencies() {
    let c = case(
        "chain.f90",
        "program chain
  implicit none
  integer :: i, a, b, d
  a = 0
  b = 0
  d = 0
  do i = 1, 30
    if (mod(i, 4) == 0) then
      a = a + 1
    else if (mod(i, 4) == 1) then
      b = b + 1
    else
      d = d + 1
    end if
    a = a + 0
  end do
  print *, a, b, d
end program
",
    );
    // i mod 4 = 0: 4, 8, ..., 28 (7); = 1: 1, 5, ..., 29 (8); the rest: 15.
    assert_eq!(c.at(8), 30.0);
    assert_eq!(c.at(9), 7.0);
    assert_eq!(c.at(10), 23.0);
    assert_eq!(c.at(11), 8.0);
    assert_eq!(c.at(13), 15.0);
    assert_eq!(c.at(15), 30.0);
    // Mispredictions against the most frequent direction: the IF goes 7 / 23 ways, the
    // ELSE IF 8 / 15. Neither is simple enough for a conditional move (an arm holds the
    // ELSE IF test; the second branch's arms hold two operations), so both are BRMP.
    let totals = &c.analysis.profile.totals;
    assert_eq!(totals.get(AbOp::BRMP), 7.0 + 8.0, "{totals:?}");
    assert_eq!(totals.get(AbOp::BRMC), 0.0, "{totals:?}");
}

#[test]
fn branch_with_a_simple_arm_is_brmc() {
    let c = case(
        "lif.f90",
        "program lif
  implicit none
  integer :: i, n, m
  n = 0
  m = 0
  do i = 1, 40
    if (mod(i, 5) == 0) n = n + 1
    if (mod(i, 8) == 0) then
      m = m + i
      print *, m
    end if
  end do
  print *, n, m
end program
",
    );
    assert_eq!(c.at(7), 40.0);
    // The logical IF sends 8 of 40 to its increment: 8 mispredicted, and the arm is
    // one assignment with one operation (a conditional-move candidate). The block IF's
    // arm prints: 5 of 40, a real branch.
    let totals = &c.analysis.profile.totals;
    assert_eq!(totals.get(AbOp::BRMC), 8.0, "{totals:?}");
    assert_eq!(totals.get(AbOp::BRMP), 5.0, "{totals:?}");
}

#[test]
fn a_straight_line_body_records_its_longest_dependent_path() {
    let c = case(
        "span.f90",
        "program span
  implicit none
  integer :: i
  real(8) :: s, x
  s = 0.0d0
  do i = 1, 50
    x = dble(i)
    call body(x, s)
  end do
  print *, s
contains
  subroutine body(x, s)
    real(8), intent(in) :: x
    real(8), intent(inout) :: s
    real(8) :: a, b, c
    a = x * 3.0d0 + 1.0d0
    b = 1.0d0 / a
    c = x + 2.0d0
    s = s + b * b
  end subroutine body
end program
",
    );
    let u = c.unit("body");
    // x -> a (multiply, add) -> b (divide) -> s (multiply, add); c is off the path.
    let span = &u.body_span;
    assert_eq!(span.get(AbOp::DRDL), 1.0, "{span:?}");
    assert_eq!(span.total(), 5.0, "{span:?}");
    // The main program's statements outside its loop depend on nothing long.
    let main = &c.analysis.profile.units[0];
    assert!(main.body_span.total() <= 1.0, "{:?}", main.body_span);
    // s carries its add to the next call; the rest starts afresh on each.
    let carried = &u.carried_span;
    assert_eq!(carried.total(), 1.0, "{carried:?}");
    // Through three assignments (a, b, s): unoptimized code stores and reloads three
    // values on the path, not five; s's carried add, one.
    assert_eq!(u.body_span_assignments, Some(3.0));
    assert_eq!(u.carried_span_assignments, Some(1.0));
}

#[test]
fn the_calls_of_runge_kutta_stages_are_chained_through_their_arguments() {
    // Each stage's derivatives read the state the stage before wrote (f -> h -> f); the
    // second loop's calls write a column the loop moves on every iteration and read
    // nothing another wrote, and `acc` feeds only itself (its carried path), so they are
    // not chained.
    let c = case(
        "stages.f90",
        "program stages
  implicit none
  integer :: it, ni, i
  real(8) :: f(4), s(4), h(4, 3), y(4, 10), tot
  f = 1.0d0
  do it = 1, 20
    s = f
    do ni = 1, 3
      call deriv(f, h(1, ni))
      call stage(f, s, h, ni)
    end do
  end do
  tot = 0.0d0
  do i = 1, 10
    call deriv(s, y(1, i))
    call acc(y(1, i), tot)
  end do
  print *, f(1), y(1, 10), tot
contains
  subroutine deriv(f, d)
    real(8), intent(in) :: f(4)
    real(8), intent(out) :: d(4)
    real(8) :: a, b
    a = f(1) * f(2) + 1.0d0
    b = 1.0d0 / a
    d(1) = b * f(3)
    d(2) = b * f(4)
    d(3) = a - b
    d(4) = a * b
  end subroutine deriv
  subroutine stage(f, s, h, ni)
    real(8), intent(out) :: f(4)
    real(8), intent(in) :: s(4), h(4, 3)
    integer, intent(in) :: ni
    f = s + 0.1d0 * h(:, ni)
  end subroutine stage
  subroutine acc(d, tot)
    real(8), intent(in) :: d(4)
    real(8), intent(inout) :: tot
    tot = tot + sqrt(d(1) * d(1) + d(2) * d(2))
  end subroutine acc
end program
",
    );
    // 60 chained calls of each; deriv's 10 calls of the second loop are not.
    assert_eq!(c.unit("deriv").calls, Some(70.0));
    assert_eq!(c.unit("deriv").chained_calls, Some(60.0));
    assert_eq!(c.unit("stage").chained_calls, Some(60.0));
    assert_eq!(c.unit("acc").chained_calls, None);
    assert_eq!(c.analysis.profile.units[0].chained_calls, None);
}

#[test]
fn calls_that_read_the_cell_an_earlier_iteration_wrote_are_chained() {
    // A block-tridiagonal sweep: `solve` reads the cell before (x(:,i-1)) and writes
    // this one; a sweep back reads the cell after (x(:,i+1)) counting down; a sweep that
    // reads the cell after counting up reads what no iteration has written yet; `scale`
    // writes a cell `norm` reads in the same iteration, and nothing goes back.
    let c = case(
        "sweep.f90",
        "program sweep
  implicit none
  integer :: i, t
  real(8) :: a(2, 2, 8), x(2, 8), s(8)
  a = 0.5d0
  x = 1.0d0
  do t = 1, 5
    do i = 2, 8
      call solve(a(1, 1, i), x(1, i - 1), x(1, i))
    end do
    do i = 7, 1, -1
      call back(a(1, 1, i), x(1, i + 1), x(1, i))
    end do
    do i = 1, 7
      call ahead(a(1, 1, i), x(1, i + 1), x(1, i))
    end do
    do i = 1, 8
      call scale(x(1, i))
      call norm(x(1, i), s(i))
    end do
  end do
  print *, x(1, 8), s(1)
contains
  subroutine solve(m, v, r)
    real(8), intent(in) :: m(2, 2), v(2)
    real(8), intent(inout) :: r(2)
    r(1) = r(1) - m(1, 1) * v(1) - m(1, 2) * v(2)
    r(2) = r(2) - m(2, 1) * v(1) - m(2, 2) * v(2)
  end subroutine solve
  subroutine back(m, v, r)
    real(8), intent(in) :: m(2, 2), v(2)
    real(8), intent(inout) :: r(2)
    r(1) = r(1) - m(1, 1) * v(1) - m(1, 2) * v(2)
    r(2) = r(2) - m(2, 1) * v(1) - m(2, 2) * v(2)
  end subroutine back
  subroutine ahead(m, v, r)
    real(8), intent(in) :: m(2, 2), v(2)
    real(8), intent(inout) :: r(2)
    r(1) = 0.5d0 * (r(1) + m(1, 1) * v(1))
    r(2) = 0.5d0 * (r(2) + m(2, 2) * v(2))
  end subroutine ahead
  subroutine scale(r)
    real(8), intent(inout) :: r(2)
    r = 0.9d0 * r
  end subroutine scale
  subroutine norm(r, n)
    real(8), intent(in) :: r(2)
    real(8), intent(out) :: n
    n = sqrt(r(1) * r(1) + r(2) * r(2))
  end subroutine norm
end program
",
    );
    assert_eq!(c.unit("solve").chained_calls, Some(35.0));
    assert_eq!(c.unit("back").chained_calls, Some(35.0));
    assert_eq!(c.unit("ahead").chained_calls, None);
    assert_eq!(c.unit("scale").chained_calls, None);
    assert_eq!(c.unit("norm").chained_calls, None);
}

#[test]
fn a_saved_seed_carries_its_path_to_the_next_call() {
    let c = case(
        "seed.f90",
        "program seed
  implicit none
  integer :: i
  real :: s
  s = 0.0
  do i = 1, 50
    s = s + next(1.0)
  end do
  print *, s
contains
  real function next(scale)
    real, intent(in) :: scale
    integer, save :: last = 42
    integer :: t
    t = last * 3877 + 29573
    last = mod(t, 139968)
    next = real(last) * scale / 139968.0
  end function next
end program
",
    );
    let u = c.unit("next");
    // last -> t (multiply, add) -> last (remainder by a constant): the scaling of the
    // result is off it.
    let carried = &u.carried_span;
    assert_eq!(carried.get(AbOp::MOCN), 1.0, "{carried:?}");
    assert_eq!(carried.total(), 3.0, "{carried:?}");
    // Two assignments (t, last) on the three operations.
    assert_eq!(u.carried_span_assignments, Some(2.0));
}

#[test]
fn a_gauss_seidel_sweep_carries_its_recurrence_through_two_assignments() {
    let c = case(
        "gs.f",
        "      PROGRAM GS
      INTEGER N
      PARAMETER (N = 40)
      DOUBLE PRECISION P(N, N), R, W
      INTEGER I, J, IT
      W = 1.5D0
      DO 5 J = 1, N
      DO 5 I = 1, N
         P(I, J) = DBLE(I + J)
    5 CONTINUE
      DO 30 IT = 1, 10
      DO 20 J = 2, N - 1
      DO 20 I = 2, N - 1
         R = 0.25D0 * (P(I-1,J) + P(I+1,J) + P(I,J-1) + P(I,J+1))
     &       - P(I,J)
         P(I,J) = P(I,J) + W * R
   20 CONTINUE
   30 CONTINUE
      PRINT *, P(N/2, N/2)
      END
",
    );
    let u = c.unit("gs");
    // P(I-1,J) -> three adds, a multiply, a subtract -> R -> a multiply, an add -> P(I,J),
    // read as P(I-1,J) on the next iteration: seven operations, two assignments.
    let b = u
        .blocks
        .iter()
        .find(|b| !b.chain.is_empty())
        .expect("the sweep's block carries the recurrence");
    assert_eq!(b.chain.total(), 7.0, "{:?}", b.chain);
    assert_eq!(b.chain_assignments, Some(2.0));
}

#[test]
fn select_case() {
    let c = case(
        "select.f90",
        "program sel
  implicit none
  integer :: i, a, b, d
  a = 0
  b = 0
  d = 0
  do i = 1, 30
    select case (mod(i, 5))
    case (0)
      a = a + 1
    case (1:3)
      b = b + 1
      b = b + 2
    case default
      d = d + 1
    end select
    a = a + 0
  end do
  print *, a, b, d
end program
",
    );
    // mod 5 = 0: 6; 1..3: 18; 4: 6.
    assert_eq!(c.at(10), 6.0);
    assert_eq!(c.at(12), 18.0);
    assert_eq!(c.at(15), 6.0);
    assert_eq!(c.at(17), 30.0);
    // 30 selections, the most frequent case 18: 12 mispredicted.
    let totals = &c.analysis.profile.totals;
    assert_eq!(totals.get(AbOp::BRMP), 12.0, "{totals:?}");
}

#[test]
fn subroutine_called_k_times_and_recursion() {
    let c = case(
        "calls.f90",
        "program calls
  implicit none
  integer :: i, s
  s = 0
  do i = 1, 7
    call acc(s, i)
  end do
  print *, s, fib(10)
contains
  subroutine acc(s, i)
    integer, intent(inout) :: s
    integer, intent(in) :: i
    s = s + i
  end subroutine
  recursive function fib(n) result(r)
    integer, intent(in) :: n
    integer :: r
    if (n < 2) then
      r = n
    else
      r = fib(n - 1) + fib(n - 2)
    end if
  end function
end program
",
    );
    assert_eq!(c.calls("acc"), 7.0);
    assert_eq!(c.at(13), 7.0);
    // fib(10) makes 2*F(11) - 1 = 177 calls: 89 leaves (n < 2) and 88 inner calls.
    assert_eq!(c.calls("fib"), 177.0);
    assert_eq!(c.at(19), 89.0);
    assert_eq!(c.at(21), 88.0);
    assert!(c.stdout().contains("55"), "{}", c.stdout());
}

#[test]
fn stop_inside_a_subroutine_in_the_middle_of_a_loop() {
    let c = case(
        "stopper.f90",
        "program stopper
  implicit none
  integer :: i, s
  s = 0
  do i = 1, 100
    s = s + i
    call check(i, s)
    s = s + 1
    s = s * 1
  end do
  print *, 'not reached', s
end program

subroutine check(i, s)
  integer, intent(in) :: i, s
  if (i == 7) then
    print *, 'stop at', i, s
    stop
  end if
  print *, 'pass', i
end subroutine
",
    );
    // Iterations 1..7 start; the 7th stops inside check.
    assert_eq!(c.iterations(5), 7.0);
    assert_eq!(c.at(6), 7.0);
    assert_eq!(c.calls("check"), 7.0);
    assert_eq!(c.at(17), 1.0);
    assert_eq!(c.at(20), 6.0);
    // The statements after the call share the block (the front end does not end blocks
    // at calls), whose 7th entry stops inside check: they ran 6 times, and are not
    // compared with gcov.
    assert!(c
        .check
        .excluded
        .contains_key(&augur_program::gcov::Exclusion::AfterStoppingCall));
    assert!(c.stdout().contains("stop at"), "{}", c.stdout());
    assert!(!c.stdout().contains("not reached"), "{}", c.stdout());
}

#[test]
fn whole_array_statement_counts_elements() {
    let c = case(
        "wholearr.f90",
        "program wholearr
  implicit none
  integer, parameter :: n = 10
  real :: a(n), b(n)
  integer :: k, m
  m = 4
  b = 1.0
  do k = 1, m
    a(1:n) = b(1:n) + 1
    b(2:n) = a(2:n) * 0.5
  end do
  print *, sum(a), sum(b)
end program
",
    );
    assert_eq!(c.at(9), 4.0);
    // The element block runs n per execution.
    assert_eq!(c.mu(9, BlockKind::Elements), 40.0);
    assert_eq!(c.mu(10, BlockKind::Elements), 36.0);
    assert_eq!(c.mu(7, BlockKind::Elements), 10.0);
}

#[test]
fn io_lists_count_each_element_they_transfer() {
    // A labelled DO ending on an I/O statement with implied DOs (F77's way of
    // reading a table), a section written list-directed, a nested implied DO.
    let c = case(
        "iolist.f",
        "      PROGRAM IOLIST
      REAL*8 X(3,4), W(5,6)
      INTEGER I, K, N
      N = 4
      DO 5 I = 1, N
      DO 5 K = 1, 3
    5 X(K,I) = DBLE(K + I)
      OPEN(17, STATUS='SCRATCH')
      DO 1 I=1,N
    1 WRITE(17,*) (X(K,I),K=1,3), I
      REWIND 17
      DO 2 I=1,N
    2 READ(17,*) (X(K,I),K=1,3), K
      CLOSE(17)
      W = 1.0D0
      DO 3 I = 1, 2
    3 PRINT *, W(I, 1:5)
      PRINT *, ((W(I,K), I=1,5), K=1,6,2), SUM(X)
      END
",
    );
    let transfers = |line: u32| -> Vec<f64> {
        let a = &c.analysis;
        let mut out = vec![];
        for (ui, u) in a.program.units.iter().enumerate() {
            for (bi, b) in u.blocks.iter().enumerate() {
                let Some(&s) = b.stmts.first() else { continue };
                if b.kind == BlockKind::Elements && u.stmts[s as usize].span.start.line == line {
                    let n = a.profile.units[ui].blocks[bi].executions.unwrap_or(0.0);
                    let items = n
                        * (b.counts.get(augur_ir::AbOp::IORF) + b.counts.get(augur_ir::AbOp::IORL));
                    if items > 0.0 {
                        out.push(items);
                    }
                }
            }
        }
        out
    };
    // Each loop still runs its four (two) iterations: the counts did not end them early.
    assert_eq!(c.iterations(9), 4.0);
    assert_eq!(transfers(10), [12.0]);
    assert_eq!(transfers(13), [12.0]);
    assert_eq!(transfers(17), [10.0]);
    assert_eq!(transfers(18), [15.0]);
    assert!(c.stdout().contains("54.0"), "{}", c.stdout());
}

#[test]
fn masked_elsewhere_counts_its_mask_elements() {
    // The masks of WHERE and of a masked ELSEWHERE run once per element of their shape,
    // each time the construct runs; the construct sits in a loop of 3 iterations.
    let c = case(
        "elsewhere.f90",
        "program elsew
  implicit none
  real :: u(8), v(8)
  integer :: i, k
  do i = 1, 8
    v(i) = real(i) - 4.5
  end do
  do k = 1, 3
    where (v > 2.0)
      u = 1.0
    elsewhere (v < -2.0 * k)
      u = 2.0
    elsewhere
      u = 3.0
    end where
    v = v * 1.5
  end do
  print *, sum(u), sum(v)
end program
",
    );
    assert_eq!(c.mu(9, BlockKind::Elements), 24.0);
    assert_eq!(c.mu(11, BlockKind::Elements), 24.0);
    assert_eq!(c.mu(12, BlockKind::Elements), 24.0);
}

#[test]
fn labelled_do_shared_termination() {
    let c = case(
        "sharedterm.f",
        "      PROGRAM SHT
      INTEGER I, J, S, T, U, V
      S = 0
      T = 0
      U = 0
      V = 0
      DO 10 I = 1, 5
      DO 10 J = 1, I
      S = S + J
   10 CONTINUE
      DO 20 I = 1, 4
   20 T = T + I
      DO 30 I = 1, 10
      IF (MOD(I, 2) .EQ. 0) GOTO 30
      U = U + I
   30 V = V + 1
      PRINT *, S, T, U, V
      END
",
    );
    assert_eq!(c.iterations(7), 5.0);
    assert_eq!(c.iterations(8), 15.0);
    assert_eq!(c.at(9), 15.0);
    assert_eq!(c.at(12), 4.0);
    assert_eq!(c.at(14), 10.0);
    assert_eq!(c.guarded(14), 5.0);
    assert_eq!(c.at(15), 5.0);
    // Reached by falling through and by GOTO 30: every iteration.
    assert_eq!(c.at(16), 10.0);
    assert_eq!(c.at(17), 1.0);
    assert!(
        c.stdout().split_whitespace().eq(["35", "10", "25", "10"]),
        "{}",
        c.stdout()
    );
}

#[test]
fn main_program_without_program_statement_first_in_its_file() {
    // No PROGRAM statement: the instrumentation's USE must come before IMPLICIT,
    // PARAMETER, DIMENSION, COMMON and DATA, and IMPLICIT must still type the unit.
    let c = case(
        "noprog.f",
        "C     A MAIN PROGRAM WITHOUT A PROGRAM STATEMENT
      IMPLICIT DOUBLE PRECISION (A-H,O-Z)
      PARAMETER (N = 20)
      DIMENSION X(N), Y(N)
      COMMON /BLK/ SCALE
      DATA SCALE /2.0D0/
      DO 10 I = 1, N
         X(I) = I
   10 CONTINUE
      CALL AXPY(N, X, Y)
      S = 0.0D0
      DO 20 I = 1, N
         S = S + Y(I)
   20 CONTINUE
      PRINT *, S
      END
      SUBROUTINE AXPY(N, X, Y)
      IMPLICIT DOUBLE PRECISION (A-H,O-Z)
      DIMENSION X(N), Y(N)
      COMMON /BLK/ SCALE
      DO 30 I = 1, N
         Y(I) = SCALE * X(I) + 1.0D0
   30 CONTINUE
      END
",
    );
    assert_eq!(c.analysis.program.units[0].name, "main");
    assert_eq!(c.iterations(7), 20.0);
    assert_eq!(c.at(8), 20.0);
    assert_eq!(c.at(10), 1.0);
    assert_eq!(c.iterations(12), 20.0);
    assert_eq!(c.calls("axpy"), 1.0);
    assert_eq!(c.iterations(21), 20.0);
    // S and Y are double precision by the IMPLICIT statement: 20 additions in the main
    // program, 20 in AXPY, none in single precision.
    let totals = &c.analysis.profile.totals;
    assert_eq!(totals.get(AbOp::ARDL), 40.0, "{totals:?}");
    assert_eq!(totals.get(AbOp::ARSL), 0.0, "{totals:?}");
    assert_eq!(c.stdout().trim().parse::<f64>().ok(), Some(440.0));
}

#[test]
fn main_program_without_program_statement_after_a_subroutine() {
    // Its first statement is an assignment: counted, not taken for a header.
    let c = case(
        "noprog2.f",
        "      SUBROUTINE TWICE(K)
      K = 2 * K
      END
C     THE MAIN PROGRAM STARTS WITH AN ASSIGNMENT
      K = 3
      CALL TWICE(K)
      PRINT *, K
      END
",
    );
    assert_eq!(c.calls("main"), 1.0);
    assert_eq!(c.at(5), 1.0);
    let stores = c.analysis.profile.totals.get(AbOp::SISL);
    assert_eq!(stores, 2.0, "K = 3 and K = 2 * K");
    assert_eq!(c.stdout().trim(), "6");
}

// ---------------------------------------------------------------------------------------
// The corpus against gcov.

/// One program of `corpus/corpus.toml` (the manifest is simple enough to read by hand).
#[derive(Debug, Default, Clone)]
struct CorpusProgram {
    name: String,
    files: Vec<String>,
    stdin: String,
    args: Vec<String>,
    /// Preprocessed (`cpp = true`: its size is a macro with a default).
    cpp: bool,
}

/// The strings of a TOML value: `"a"` or `["a", "b"]`.
fn toml_strings(value: &str) -> Vec<String> {
    value
        .split('"')
        .skip(1)
        .step_by(2)
        .map(str::to_string)
        .collect()
}

fn read_manifest(path: &Path) -> Vec<CorpusProgram> {
    let text = std::fs::read_to_string(path).unwrap();
    let mut out: Vec<CorpusProgram> = vec![];
    for line in text.lines() {
        let line = line.trim();
        if line == "[[program]]" {
            out.push(CorpusProgram::default());
            continue;
        }
        let (Some(p), Some((key, value))) = (out.last_mut(), line.split_once('=')) else {
            continue;
        };
        let strings = toml_strings(value);
        match key.trim() {
            "name" => p.name = strings.concat(),
            "files" => p.files = strings,
            "stdin" => p.stdin = strings.concat(),
            "args" => p.args = strings,
            "cpp" => p.cpp = value.trim() == "true",
            _ => {}
        }
    }
    out
}

#[test]
fn corpus_counts_equal_gcov() {
    let tc = gfortran();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../corpus");
    let programs = read_manifest(&root.join("corpus.toml"));
    assert!(programs.len() >= 30, "{} programs", programs.len());
    let cwd = std::env::current_dir().unwrap();
    let check = |p: &CorpusProgram| -> Result<(usize, usize), String> {
        let paths: Vec<PathBuf> = p.files.iter().map(|f| root.join(f)).collect();
        let (fortran, c_sources): (Vec<_>, Vec<_>) = paths
            .into_iter()
            .partition(|f| f.extension().and_then(|e| e.to_str()) != Some("c"));
        let stdin = (!p.stdin.is_empty()).then(|| root.join(&p.stdin));
        let mut opts = options(&tc, &cwd, c_sources.clone(), stdin.clone());
        opts.args = p.args.clone();
        opts.front.load.cpp = p.cpp;
        let analysis = augur_program::analyze(&fortran, &opts)
            .map_err(|e| format!("{}: analyze failed: {e}", p.name))?;
        let mut spec = RunSpec::new(&cwd, Duration::from_secs(600));
        spec.args = p.args.clone();
        spec.stdin = stdin;
        let mut gtc = tc.clone();
        gtc.fflags.extend(gcov::front_end_flags(&opts.front));
        let counts = gcov::gcov_line_counts(&gtc, &fortran, &c_sources, &spec)
            .map_err(|e| format!("{}: gcov failed: {e}", p.name))?;
        let check = gcov::compare(&analysis.program, &analysis.profile, &counts);
        if !check.mismatches.is_empty() {
            return Err(format!("{}: mismatches {:#?}", p.name, check.mismatches));
        }
        if analysis.run.stdout != counts.stdout {
            return Err(format!(
                "{}: the instrumented program printed something else than the coverage build",
                p.name
            ));
        }
        Ok((check.compared, check.excluded.values().sum()))
    };
    // Two workers: the programs run for a few seconds each at -O0.
    let next = std::sync::atomic::AtomicUsize::new(0);
    let results = std::sync::Mutex::new(vec![]);
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                let Some(p) = programs.get(i) else { break };
                let r = check(p);
                results.lock().unwrap().push((p.name.clone(), r));
            });
        }
    });
    let results = results.into_inner().unwrap();
    assert_eq!(results.len(), programs.len());
    let mut failures = vec![];
    let mut total = 0;
    for (name, r) in &results {
        match r {
            Ok((compared, _)) => {
                total += compared;
                if *compared < 2 {
                    failures.push(format!("{name}: only {compared} line(s) compared"));
                }
            }
            Err(e) => failures.push(e.clone()),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(total >= 700, "only {total} lines compared over the corpus");
}

#[test]
fn gcov_stdout_is_the_program_output() {
    let c = case(
        "hello.f90",
        "program hello\n  integer :: i\n  do i = 1, 3\n    print *, 'line', i\n  end do\nend program\n",
    );
    assert_eq!(
        String::from_utf8_lossy(&c.gcov_stdout).lines().count(),
        3,
        "{}",
        String::from_utf8_lossy(&c.gcov_stdout)
    );
    // Line 4 is the last statement of the loop body: not comparable with gcov.
    assert_eq!(c.check.compared, 0);
}

#[test]
fn labelled_do_terminal_reached_by_goto_in_nested_loops() {
    // The terminal of the inner loop is also reached by GOTO; the DO statements are
    // written with the optional comma in the second loop.
    let c = case(
        "goto_terminal.f",
        "      PROGRAM GTT
      INTEGER I, J, U, V, W
      U = 0
      V = 0
      W = 0
      DO 40 I = 1, 4
      DO 40 J = 1, 6
      IF (J .GT. I) GOTO 40
      U = U + J
   40 V = V + 1
      DO 50, I = 1, 10
      IF (MOD(I, 3) .EQ. 0) GOTO 50
      U = U + 1
   50 W = W + I
      PRINT *, U, V, W
      END
",
    );
    assert_eq!(c.at(8), 24.0);
    assert_eq!(c.guarded(8), 14.0);
    assert_eq!(c.at(9), 10.0);
    assert_eq!(c.at(10), 24.0);
    assert_eq!(c.at(12), 10.0);
    assert_eq!(c.at(13), 7.0);
    assert!(
        c.stdout().split_whitespace().eq(["27", "24", "55"]),
        "{}",
        c.stdout()
    );
}

/// An innermost loop whose recurrence runs through the arms of an IF (a bisection:
/// `lo` or `hi` takes `mid`, `mid` comes from both, the whole of it every iteration) keeps it as the loop's expected
/// chain per iteration; a loop of one block keeps none (its block's chain covers it).
#[test]
fn loop_chain_runs_through_the_arms() {
    let c = case(
        "bisect.f90",
        "program bisect
  implicit none
  integer :: lo, hi, mid, k, found
  real :: x(1024), t
  do k = 1, 1024
    x(k) = real(k)
  end do
  found = 0
  do k = 1, 300
    t = real(mod(k * 37, 1000)) + 0.5
    lo = 1
    hi = 1024
    do while (lo + 1 < hi)
      mid = lo + (hi - lo) / 2
      if (t >= x(mid)) then
        lo = mid
      else
        hi = mid
      end if
    end do
    found = found + lo
  end do
  print *, found
end program
",
    );
    let u = &c.analysis.profile.units[0];
    let inner = u.loops.iter().find(|l| l.line == 13).expect("the DO WHILE");
    // Each iteration: lo + (hi - lo) / 2 on the path from lo (or hi) back to itself.
    assert!(inner.chain.get(AbOp::AISL) > 1.9, "{:?}", inner.chain);
    assert!(inner.chain.get(AbOp::DIC2) > 0.9, "{:?}", inner.chain);
    let fill = u.loops.iter().find(|l| l.line == 5).expect("the fill loop");
    assert!(fill.chain.is_empty(), "{:?}", fill.chain);
    let outer = u
        .loops
        .iter()
        .find(|l| l.line == 9)
        .expect("the outer loop");
    assert!(outer.chain.is_empty(), "holds a loop: {:?}", outer.chain);
}

/// A block IF right after the END IF of another (no ELSE) runs as often as the first
/// IF, not only when the first was false: it is reached from the first IF's arm too,
/// so it is no ELSE IF (miniGhost's flux accumulation counted -400 there).
#[test]
fn an_if_after_an_end_if_is_no_else_if() {
    let c = case(
        "ifs.f90",
        "program ifs
  implicit none
  integer :: i, a, b
  a = 0
  b = 0
  do i = 1, 10
    if (i > 3) then
      a = a + 1
    end if
    if (i > 5) then
      b = b + 1
    end if
  end do
  print *, a, b
end program
",
    );
    assert_eq!(c.at(7), 10.0);
    assert_eq!(c.at(8), 7.0);
    assert_eq!(c.at(10), 10.0, "the second IF runs every iteration");
    assert_eq!(c.at(11), 5.0);
    assert!(
        c.stdout().split_whitespace().eq(["7", "5"]),
        "{}",
        c.stdout()
    );
}

/// A scalar an earlier block of the loop sets every iteration carries nothing into a
/// later block that updates it under an IF (Burkardt's Jacobi residual: `t = b(i) -
/// 2*x(i)`, then `t = t + x(i-1)` for `i > 1`): only the sum `r = r + t*t` is a
/// recurrence.
#[test]
fn a_scalar_set_earlier_in_the_iteration_is_no_recurrence() {
    let c = case(
        "residual.f90",
        "program residual
  implicit none
  integer, parameter :: n = 1000
  integer :: i
  real(8) :: x(n), b(n), t, r
  do i = 1, n
    x(i) = dble(i)
    b(i) = 1.0d0
  end do
  r = 0.0d0
  do i = 1, n
    t = b(i) - 2.0d0 * x(i)
    if (1 < i) then
      t = t + x(i-1)
    end if
    if (i < n) then
      t = t + x(i+1)
    end if
    r = r + t * t
  end do
  print *, r
end program
",
    );
    let u = &c.analysis.profile.units[0];
    let chain_at = |line: u32| -> f64 {
        u.blocks
            .iter()
            .filter(|b| b.first_line == line)
            .map(|b| b.chain.get(AbOp::ARDL))
            .sum()
    };
    assert_eq!(chain_at(14), 0.0, "t was set this iteration");
    assert_eq!(chain_at(17), 0.0, "t was set this iteration");
    assert_eq!(chain_at(19), 1.0, "r carries its sum");
}

/// A region includes what the calls made inside it execute: `kernel` (which calls
/// `inner`) is called twice inside the region and once outside, so the region holds its
/// own lines and two thirds of `kernel`'s and `inner`'s operations (gprof's rule: a
/// procedure's work is split among its call sites by their calls).
#[test]
fn regions_include_their_callees() {
    let c = case(
        "reg.f90",
        "program reg
  implicit none
  real(8) :: s
  integer :: k
  s = 0
  !augur region work
  do k = 1, 2
    call kernel(s)
  end do
  !augur end region
  call kernel(s)
  print *, s
contains
  subroutine kernel(s)
    real(8), intent(inout) :: s
    integer :: i
    do i = 1, 1000
      s = s + sqrt(real(i, 8))
    end do
    call inner(s)
  end subroutine kernel
  subroutine inner(s)
    real(8), intent(inout) :: s
    integer :: i
    do i = 1, 500
      s = s * 0.999d0
    end do
  end subroutine inner
end program reg
",
    );
    let p = &c.analysis.profile;
    let r = p
        .regions
        .iter()
        .find(|r| r.name == "work")
        .expect("region work");
    assert_eq!(r.callees, vec!["kernel".to_string()]);
    let unit = |n: &str| p.units.iter().find(|u| u.name == n).unwrap();
    let callee_ops = unit("kernel").totals.total() + unit("inner").totals.total();
    let own: f64 = p
        .lines
        .iter()
        .filter(|l| (r.first_line..=r.last_line).contains(&l.line))
        .map(|l| l.abops.total())
        .sum();
    let expected = own + callee_ops * 2.0 / 3.0;
    let got = r.abops.total();
    assert!(
        (got - expected).abs() < 1e-6 * expected,
        "{got} vs {expected}"
    );
    // The square roots all happen in `kernel`: two thirds of its 3000 run in the region.
    assert!(
        (r.abops.get(AbOp::SQRD) - 2000.0).abs() < 1e-9,
        "{:?}",
        r.abops
    );
}

/// A value halved until it is subnormal and halved again sets the processor's
/// denormal-operand flag (exact halvings raise no underflow), which the counting run
/// records (x86); the same loop stopped while the value is still normal records none.
#[test]
fn the_counting_run_records_whether_its_arithmetic_met_subnormal_numbers() {
    let program = |halvings: u32| {
        format!(
            "program halve\n  implicit none\n  real(8) :: x\n  integer :: i\n  x = 1.0d0\n  do i = 1, {halvings}\n    x = x * 0.5d0\n  end do\n  print *, x > 0\nend program halve\n"
        )
    };
    let normal = case("normal.f90", &program(1000));
    let subnormal = case("subnormal.f90", &program(1060));
    let flags = |c: &Case| c.analysis.profile.run.fp_flags.clone();
    if cfg!(target_arch = "x86_64") {
        assert_eq!(flags(&normal), Some(vec![]));
        assert!(!normal.analysis.profile.run.met_subnormals());
        let met = flags(&subnormal).expect("the runtime reads the flags on x86");
        assert_eq!(met, vec!["denormal".to_string()]);
        assert!(subnormal.analysis.profile.run.met_subnormals());
    } else {
        assert_eq!(flags(&subnormal), None);
    }
}
