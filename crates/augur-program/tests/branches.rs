//! The branch run, with the real gfortran: conditions are wrapped and recorded in
//! every form Fortran writes them (block IF, ELSE IF, logical IF with GOTO, DO WHILE,
//! continued and fixed-form conditions, strings with parentheses, non-default logical
//! kinds, PURE procedures), the program computes what it computes without the
//! recording, and the simulated predictors tell patterned outcomes from random ones.
//!
//! These tests need gfortran and gcc; without them they fail saying so.

use augur_program::AnalyzeOptions;
use augur_toolchain::Toolchain;
use std::time::Duration;

fn analyze(name: &str, text: &str) -> augur_program::analyze::Analysis {
    analyze_with(name, text, "-O2")
}

fn analyze_with(name: &str, text: &str, fflags: &str) -> augur_program::analyze::Analysis {
    let tc = Toolchain::detect("gfortran", fflags).unwrap_or_else(|e| {
        panic!("these tests need gfortran and gcc: {e}\ninstall them: apt-get install gfortran gcc")
    });
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join(name);
    std::fs::write(&src, text).unwrap();
    let opts = AnalyzeOptions {
        front: Default::default(),
        toolchain: tc,
        c_sources: vec![],
        objects: vec![],
        link_args: vec![],
        args: vec![],
        stdin: None,
        timeout: Duration::from_secs(300),
        cwd: dir.path().to_path_buf(),
        keep_partial: false,
        keep_build: None,
        branch_run: true,
        optimization_report: true,
        threads: vec![],
        mpi_ranks: vec![],
    };
    augur_program::analyze(std::slice::from_ref(&src), &opts)
        .unwrap_or_else(|e| panic!("{name}: analyze failed: {e}"))
}

/// The profile's branch simulation, or a failure with the profile's notes.
fn simulated(a: &augur_program::analyze::Analysis) -> &augur_program_profile::BranchProfile {
    a.profile
        .branches
        .as_ref()
        .unwrap_or_else(|| panic!("no branch simulation: {:?}", a.profile.notes))
}

fn row(b: &augur_program_profile::BranchProfile, line: u32) -> &augur_program_profile::BranchRow {
    b.conditions
        .iter()
        .find(|c| c.line == line)
        .unwrap_or_else(|| panic!("no recorded condition at line {line}: {:#?}", b.conditions))
}

fn loop_exit(
    b: &augur_program_profile::BranchProfile,
    line: u32,
) -> &augur_program_profile::LoopExitRow {
    b.loop_exits
        .iter()
        .find(|l| l.line == line)
        .unwrap_or_else(|| panic!("no recorded DO loop at line {line}: {:#?}", b.loop_exits))
}

const FREE: &str = r#"program br
  implicit none
  integer, parameter :: n = 200000
  integer :: i, s, t, u, seed, k
  logical(1) :: flag
  character(len=8) :: word
  s = 0; t = 0; u = 0; seed = 12345; k = 0
  word = 'a(b)c'
  do i = 1, n
    seed = mod(seed * 1103515245 + 12345, 2147483647)
    if (seed < 0) seed = -seed
    ! line 12: random, about half true
    if (mod(seed / 7, 2) == 0) then
      s = s + seed / 3
    ! line 15: patterned (alternating)
    else if (mod(i, 2) == 0 .and. &
             word(1:5) /= ')(x)(') then
      t = t + 1
    else
      u = u + 1
    end if
    flag = mod(i, 4) == 0
    if (flag) k = k + twice(i)
  end do
  i = 0
  do while (i < 1000)
    i = i + 3
  end do
  print *, s, t, u, k, i
contains
  pure integer function twice(x)
    integer, intent(in) :: x
    if (x > 0) then
      twice = 2 * x
    else
      twice = 0
    end if
  end function twice
end program br
"#;

/// The optimization report and the branch copy are built beside the counting run, but the
/// program never runs twice at once: a program that creates a file of its own (`status='new'`)
/// and deletes it at its end runs to its end in both runs, and the profile holds the report
/// and the branch simulation both.
#[test]
fn the_builds_beside_the_counting_run_leave_the_program_running_once_at_a_time() {
    let text = "program lockfile
  implicit none
  integer :: i, u
  real(8) :: s
  open(newunit=u, file='augur_test.lock', status='new', action='write')
  s = 0
  do i = 1, 20000000
    if (mod(i, 3) == 0) then
      s = s + 1.0d0 / i
    else
      s = s - 0.5d0 / i
    end if
  end do
  close(u, status='delete')
  print *, s
end program
";
    let a = analyze("lockfile.f90", text);
    assert!(
        a.profile.optimization.is_some(),
        "no optimization report: {:?}",
        a.profile.notes
    );
    let b = simulated(&a);
    assert!(row(b, 8).executions > 0, "{:#?}", row(b, 8));
}

#[test]
fn conditions_are_recorded_and_patterns_are_predicted() {
    let a = analyze("br.f90", FREE);
    let b = simulated(&a);
    let random = row(b, 13);
    assert_eq!(random.executions, 200000);
    let rate = random.mispredictions as f64 / random.executions as f64;
    assert!(
        (0.35..0.65).contains(&rate),
        "a random condition should be mispredicted about half the time: {random:?}"
    );
    // The ELSE IF runs only when the random IF was false, so its own outcomes are
    // alternating only over those executions: still far fewer misses than the bound.
    let patterned = row(b, 16);
    assert_eq!(patterned.executions, 200000 - random.taken);
    let flag = row(b, 23);
    assert_eq!(flag.executions, 200000);
    assert_eq!(flag.taken, 50000);
    assert!(
        flag.mispredictions < 1000,
        "mod(i, 4) == 0 is a pattern a history predictor learns: {flag:?}"
    );
    // The DO WHILE: 334 true tests and one false.
    let w = row(b, 26);
    assert_eq!((w.executions, w.taken), (335, 334));
    // The PURE function's IF was recorded too (made impure in the branch run's copy).
    assert_eq!(row(b, 33).executions, 50000);
    // Simulated mispredictions are at most the bound plus the loop exits, and the
    // program printed the same as without recording.
    assert!(b.mispredictions > 0.0 && b.mispredictions < b.bound + 10.0);
    let out = String::from_utf8_lossy(&a.run.stdout);
    assert!(out.split_whitespace().count() == 5, "{out}");
}

const FIXED: &str = "      PROGRAM FX
      INTEGER I, J, N, M
      N = 0
      M = 0
      J = 1
   10 IF (J .GT. 5000
     &    .OR. J .LT. 0) GOTO 20
      J = J + 1
      IF (MOD(J, 3) .EQ. 0) N = N + 1
      DO 30 I = 1, J
        M = M + 1
   30 CONTINUE
      GOTO 10
   20 CONTINUE
      PRINT *, N, M
      END
";

#[test]
fn fixed_form_goto_loops_and_loop_exits() {
    let a = analyze("fx.f", FIXED);
    let b = simulated(&a);
    // The GOTO loop's test, continued over two lines: 5000 false, one true.
    let t = row(b, 6);
    assert_eq!((t.executions, t.taken), (5001, 1));
    assert!(t.mispredictions <= 3, "{t:?}");
    let m3 = row(b, 9);
    assert_eq!((m3.executions, m3.taken), (5000, 1667));
    assert!(m3.mispredictions < 100, "mod(j, 3) is periodic: {m3:?}");
    // The DO loop's trip count changes at every entry: every exit is mispredicted.
    let l = loop_exit(b, 10);
    assert_eq!((l.entries, l.mispredictions), (5000, 5000));
    assert_eq!(b.loop_exit_mispredictions, 5000.0);
    let out = String::from_utf8_lossy(&a.run.stdout);
    let v: Vec<i64> = out.split_whitespace().map(|x| x.parse().unwrap()).collect();
    assert_eq!(v, vec![1667, (2..=5001).sum::<i64>()]);
}

const MULTIWAY: &str = "program mw
  implicit none
  integer :: i, k, seed, a, b, c
  a = 0; b = 0; c = 0; seed = 7
  do i = 1, 90000
    seed = ieor(seed, ishft(seed, 13))
    seed = ieor(seed, ishft(seed, -17))
    seed = ieor(seed, ishft(seed, 5))
    select case (mod(i, 3))
    case (0)
      a = a + 1
    case (1)
      b = b + 1
    case default
      c = c + 1
    end select
    k = iand(ishft(seed, -7), 3)
    select case (k)
    case (0, 3)
      a = a + 2
    case (1)
      b = b + 2
    case (2)
      c = c + 2
    end select
    goto (10, 20), mod(i, 2) + 1
10  a = a + 3
    cycle
20  b = b + 3
  end do
  print *, a, b, c
end program mw
";

#[test]
fn select_case_and_computed_goto_outcomes() {
    let a = analyze("mw.f90", MULTIWAY);
    let b = simulated(&a);
    // A periodic SELECT: learned.
    let periodic = row(b, 9);
    assert_eq!(periodic.executions, 90000);
    assert!(periodic.mispredictions < 100, "{periodic:?}");
    // A random one over three arms (one taken half the time): about half mispredicted.
    let random = row(b, 18);
    assert_eq!(random.executions, 90000);
    let rate = random.mispredictions as f64 / 90000.0;
    assert!((0.4..0.75).contains(&rate), "{random:?}");
    // The alternating computed GOTO: learned.
    let cg = row(b, 26);
    assert_eq!(cg.executions, 90000);
    assert!(cg.mispredictions < 100, "{cg:?}");
    let out: Vec<i64> = String::from_utf8_lossy(&a.run.stdout)
        .split_whitespace()
        .map(|x| x.parse().unwrap())
        .collect();
    assert_eq!(out.iter().sum::<i64>(), 90000 * 6);
}

const PERIODIC_RANDOM: &str = "      PROGRAM PR
      INTEGER I, ISEED, N
      N = 0
      ISEED = 7
      DO 10 I = 1, 2097152
         ISEED = MOD(ISEED * 1029 + 1, 262144)
         IF (ISEED .GE. 131072) N = N + 1
   10 CONTINUE
      PRINT *, N
      END
";

#[test]
fn long_random_sequences_are_not_memorized() {
    // The condition repeats with the generator's full period, 2^18 outcomes, 8 times
    // over: more histories than a real core's tables hold, and than the reference
    // predictors' 2^16 counters (statemach77's lexer, a few branches per character of
    // a text of period 65,520, runs 70 ms slower than over a period-64 text); with
    // 2^20 counters the 64-outcome gshare learned it after one period.
    let a = analyze("pr.f", PERIODIC_RANDOM);
    let b = simulated(&a);
    let r = row(b, 7);
    assert_eq!(r.executions, 2097152);
    let rate = r.mispredictions as f64 / r.executions as f64;
    assert!(
        rate > 0.2,
        "a pseudo-random condition of a long period should stay mispredicted: {r:?}"
    );
}

const SHORT_CIRCUIT: &str = r#"program sc
  implicit none
  integer, parameter :: n = 400000
  logical :: g(n), h(n)
  integer :: i, c, seed, alive, twins
  seed = 7
  twins = 0; h = .false.
  do i = 1, n
    seed = int(mod(int(seed, 8) * 16807_8, 2147483647_8))
    g(i) = mod(seed, 100) < 40
  end do
  alive = 0
  do i = 2, n - 1
    c = 0
    if (g(i - 1)) c = c + 1
    if (g(i + 1)) c = c + 1
    h(i) = (c == 1) .or. (g(i) .and. c == 2)
    if (h(i)) alive = alive + 1
    if (c == 2 .and. h(i - 1)) twins = twins + 1
  end do
  print *, alive, twins
end program sc
"#;

#[test]
fn short_circuit_operands_are_recorded_and_branchless_lines_are_not() {
    // The first operand of `h(i) = (c == 1) .or. (g(i) .and. c == 2)` is recorded as a
    // branch of its own (gfortran -O2 jumps on it to skip the load of `g(i)`).
    let a = analyze("sc.f90", SHORT_CIRCUIT);
    let b = simulated(&a);
    let r = row(b, 17);
    assert_eq!(r.kind, augur_program_profile::BranchKind::ShortCircuit);
    assert_eq!(r.executions, 399998);
    // c == 1 with both neighbours alive at 40%: 2 * 0.4 * 0.6 = 48% of the cells.
    let taken = r.taken as f64 / r.executions as f64;
    assert!((0.44..0.52).contains(&taken), "{r:?}");
    // No line the compiler made branchless is recorded.
    let report = a
        .profile
        .optimization
        .as_ref()
        .expect("an optimization report");
    for c in &b.conditions {
        assert!(!report.is_branchless(&c.file, c.line), "{c:?} {report:?}");
    }
    // Told that the neighbour tests were if-converted, the plan leaves them out (they
    // are no branches on the machine, and would give a history predictor `c`).
    let file = b.conditions[0].file.clone();
    let mut converted = report.clone();
    converted.branchless = [15, 16]
        .map(|line| augur_program_profile::optreport::SourceLine {
            file: file.clone(),
            line,
        })
        .to_vec();
    let texts = [Some(SHORT_CIRCUIT)];
    let lines_of = |r: Option<&augur_program_profile::optreport::OptReport>| -> Vec<u32> {
        augur_program::branches::plan(&a.program, &texts, r)
            .branches
            .iter()
            .map(|p| p.line)
            .collect()
    };
    assert!(lines_of(None).contains(&15), "{:?}", lines_of(None));
    // An IF whose second operand loads `h(i - 1)`: the condition and its first operand.
    let probes = augur_program::branches::plan(&a.program, &texts, None).branches;
    let kinds: Vec<_> = probes
        .iter()
        .filter(|p| p.line == 19)
        .map(|p| p.kind)
        .collect();
    assert_eq!(
        kinds,
        vec![
            augur_program_profile::BranchKind::LogicalIf,
            augur_program_profile::BranchKind::ShortCircuit
        ]
    );
    let kept = lines_of(Some(&converted));
    assert!(!kept.contains(&15) && !kept.contains(&16), "{kept:?}");
    assert!(kept.contains(&17) && kept.contains(&18), "{kept:?}");
}

const WHERE_MASKS: &str = r#"program wm
  implicit none
  integer, parameter :: n = 100000
  real(8) :: r(n), u(n)
  integer :: i, s, idx(n)
  integer(8) :: seed
  seed = 7
  do i = 1, n
    seed = mod(seed * 48271_8, 2147483647_8)
    r(i) = dble(seed) / 2147483647.0d0
    idx(i) = i
  end do
  u = 0.0d0
  do s = 1, 3
    where (r > 0.5d0)
      u = u + r
    elsewhere (r < 0.1d0)
      u = u - r
    end where
    where (mod(idx, 2) == 0) u = u * 0.5d0
  end do
  print *, sum(u)
end program wm
"#;

#[test]
fn where_masks_are_recorded_element_by_element() {
    // Each mask is one outcome per element: random halves are mispredicted about half
    // the time, an alternating mask is learned.
    let a = analyze("wm.f90", WHERE_MASKS);
    let b = simulated(&a);
    let kind = augur_program_profile::BranchKind::WhereMask;
    let half = row(b, 15);
    assert_eq!(half.kind, kind);
    assert_eq!(half.executions, 300000);
    let taken = half.taken as f64 / half.executions as f64;
    assert!((0.48..0.52).contains(&taken), "{half:?}");
    assert!(half.mispredictions > 100000, "{half:?}");
    let tenth = row(b, 17);
    assert_eq!(tenth.kind, kind);
    assert!(
        (0.08..0.12).contains(&(tenth.taken as f64 / 300000.0)),
        "{tenth:?}"
    );
    let alternating = row(b, 20);
    assert_eq!(alternating.executions, 300000);
    assert!(alternating.mispredictions < 3000, "{alternating:?}");
}

/// The executions of the element blocks (a mask's, an assignment's) on `line` of the
/// main program, in order.
fn element_executions(a: &augur_program::analyze::Analysis, line: u32) -> Vec<f64> {
    let blocks = &a.profile.units[0].blocks;
    blocks
        .iter()
        .filter(|b| b.block_kind == augur_ir::BlockKind::Elements && b.first_line == line)
        .map(|b| b.executions.unwrap_or(0.0))
        .collect()
}

#[test]
fn masked_assignments_run_where_their_mask_holds() {
    // The counting run counts each assignment of a WHERE once per element of the
    // mask's shape; the branch run's masks say where they run.
    let a = analyze("wm.f90", WHERE_MASKS);
    let near = |line: u32, expected: &[f64]| {
        let n = element_executions(&a, line);
        let close = n.len() == expected.len()
            && n.iter()
                .zip(expected)
                .all(|(n, e)| (n / e - 1.0).abs() < 0.05);
        assert!(
            close,
            "line {line}: {n:?} executions, about {expected:?} expected"
        );
    };
    // The masks: every element, three times.
    near(15, &[300000.0]);
    near(17, &[300000.0]);
    // `u = u + r` where r > 0.5: half of them; `u = u - r` under ELSEWHERE (r < 0.1):
    // a tenth; the WHERE statement's mask, then its `u = u * 0.5` on even indices: half.
    near(16, &[150000.0]);
    near(18, &[30000.0]);
    near(20, &[300000.0, 150000.0]);
}

const COUNT_MASK: &str = r#"program cm
  implicit none
  real :: cumulative(4), x
  integer :: i, k, hist(4)
  integer(8) :: seed
  cumulative = [0.1, 0.4, 0.7, 1.0]
  hist = 0
  seed = 7
  do i = 1, 200000
    seed = mod(seed * 48271_8, 2147483647_8)
    x = real(seed) / 2147483647.0
    k = count(x >= cumulative)
    hist(min(k + 1, 4)) = hist(min(k + 1, 4)) + 1
  end do
  print *, hist
end program cm
"#;

#[test]
fn a_count_mask_is_recorded_where_its_loop_branches() {
    // Unoptimized, gfortran tests each element with a jump: where a random value falls
    // among four cumulative bounds is mispredicted about once a COUNT.
    let a = analyze_with("cm.f90", COUNT_MASK, "-O0");
    let mask = row(simulated(&a), 12);
    assert_eq!(mask.kind, augur_program_profile::BranchKind::CountMask);
    assert_eq!(mask.executions, 800000);
    assert!(mask.mispredictions > 100000, "{mask:?}");
    // Optimized, it adds a borrow instead (no jump in the loop's iteration): not a branch.
    let a = analyze_with("cm.f90", COUNT_MASK, "-O2");
    let b = simulated(&a);
    assert!(
        !b.conditions.iter().any(|c| c.line == 12),
        "{:#?}",
        b.conditions
    );
}

const TRIANGLE: &str = "program tri
  implicit none
  integer :: r, i, j, n, m
  n = 5
  m = 0
  do r = 1, 2000
    do i = 1, n
      do j = i + 1, n
        m = m + i * j
      end do
    end do
  end do
  print *, m
end program tri
";

#[test]
fn repeating_trip_counts_of_a_triangular_nest_are_learned() {
    let a = analyze("tri.f90", TRIANGLE);
    let b = simulated(&a);
    // The inner loop's trip counts run 4, 3, 2, 1, 0, 4, 3, ...: each follows from
    // the two before it, so only the first few entries mispredict its exit.
    let l = loop_exit(b, 8);
    assert_eq!(l.entries, 10000);
    assert!(l.mispredictions <= 10, "{l:?}");
}

const SHORT_TRIPS: &str = "program st
  implicit none
  integer :: k, j, t, seed, m, p, i
  m = 0
  seed = 12345
  do k = 1, 60000
    seed = ieor(seed, ishft(seed, 13))
    seed = ieor(seed, ishft(seed, -17))
    seed = ieor(seed, ishft(seed, 5))
    t = 1 + mod(abs(seed), 6)
    do j = 1, t
      m = m + j
    end do
  end do
  do k = 1, 3000
    do p = 1, 5
      do i = 1, 5
        if (i == p) cycle
        do j = p + 1, 5
          m = m + i * j
        end do
      end do
    end do
  end do
  print *, m
end program st
";

#[test]
fn short_loops_exits_random_or_decided_by_the_branches_before_them() {
    let a = analyze("st.f90", SHORT_TRIPS);
    let b = simulated(&a);
    // Random trips of 1 to 6: the best guess misses 5/6 of the entries; a core's
    // counters, flipping where the loop leaves a third or half of the time, 0.96.
    let random = loop_exit(b, 11);
    assert_eq!(random.entries, 60000);
    let per_entry = random.mispredictions as f64 / 60000.0;
    assert!((0.9..1.0).contains(&per_entry), "{random:?}");
    // Gauss-Jordan's `do j = p+1, 5` after `if (i == p) cycle`: the trips 4, 4, 4, 4,
    // 3, ... follow from the entries before, learned in part from the 4 and 8 outcomes
    // of history (a Zen 4 guest spends 0.3 `BRMP` an entry on such a loop): fewer than
    // the last trip count followed by the last two (0.5 an entry), more than none.
    let decided = loop_exit(b, 19);
    assert_eq!(decided.entries, 3000 * 20);
    let per_entry = decided.mispredictions as f64 / 60000.0;
    assert!((0.05..0.3).contains(&per_entry), "{decided:?}");
}

const ROUNDING: &str = "program rnd
  implicit none
  integer, parameter :: n = 100000
  real(8) :: x(n), y(n), s
  real(4) :: z(n)
  integer :: i, k
  call random_number(x)
  x = 2 * x - 1
  y = 0.4d0 * x
  z = real(3 * x, 4)
  s = 0; k = 0
  do i = 1, n
    s = s + (x(i) - anint(x(i)))**2
    s = s + ANINT ( y(i) )
    k = k + nint(z(i), kind=8)
  end do
  x = x - anint(x)
  print *, s, k, sum(x)
end program rnd
";

#[test]
fn the_c_librarys_rounding_branches_are_recorded_on_the_argument() {
    // glibc's `round` branches on |x| < 1, then on |x| >= 0.5: differences in (-1, 1)
    // mispredict the second half the time, values in (-0.4, 0.4) never; `lround` of
    // values in (-3, 3) branches on |x| < 1 a third of the time.
    use augur_program_profile::BranchKind::{Rounding, RoundingHalf};
    let a = analyze("rnd.f90", ROUNDING);
    let b = simulated(&a);
    let at = |line: u32, kind| {
        b.conditions
            .iter()
            .find(|c| c.line == line && c.kind == kind)
            .unwrap_or_else(|| panic!("no {kind:?} at line {line}: {:#?}", b.conditions))
    };
    let share =
        |c: &augur_program_profile::BranchRow| c.mispredictions as f64 / c.executions as f64;
    for line in [13, 17] {
        let half = at(line, RoundingHalf);
        assert_eq!(half.executions, 100000, "{half:?}");
        assert!((0.4..0.6).contains(&share(half)), "{half:?}");
        assert!(share(at(line, Rounding)) < 0.01);
    }
    assert!(share(at(14, RoundingHalf)) < 0.01);
    let lround = at(15, Rounding);
    assert!((0.3..0.37).contains(&(lround.taken as f64 / lround.executions as f64)));
    assert!(share(lround) > 0.1, "{lround:?}");
    // A real(4) NINT has no second branch.
    assert!(b
        .conditions
        .iter()
        .all(|c| c.line != 15 || c.kind != RoundingHalf));
}

const REMAINDER: &str = "program rem
  implicit none
  integer, parameter :: n = 20000
  real(8) :: x(n), s, y
  integer :: i
  call random_number(x)
  y = 3.0d0
  x = y * (1 + 1023 * x)
  s = 0
  do i = 1, n
    s = s + mod(x(i), y)
    s = s + dmod(y, y)
  end do
  print *, s
end program rem
";

#[test]
fn the_c_librarys_long_division_of_a_real_mod_is_recorded_bit_by_bit() {
    // glibc's `fmod` branches on each bit of the quotient but the last (about 10 here,
    // random: half mispredicted), then shifts the remainder back; mod(y, y) has one bit,
    // selected without a branch, and no remainder: nothing recorded.
    use augur_program_profile::BranchKind::Remainder;
    let a = analyze("rem.f90", REMAINDER);
    let b = simulated(&a);
    let rows = |line: u32| -> Vec<&augur_program_profile::BranchRow> {
        b.conditions
            .iter()
            .filter(|c| c.line == line && c.kind == Remainder)
            .collect()
    };
    let bits = rows(11)
        .into_iter()
        .max_by_key(|c| c.executions)
        .expect("the quotient's bits are recorded");
    assert!(bits.executions > 8 * 20000, "{bits:?}");
    let share = bits.mispredictions as f64 / bits.executions as f64;
    assert!((0.3..0.6).contains(&share), "{bits:?}");
    assert!(rows(12).iter().all(|c| c.executions == 0), "{:?}", rows(12));
}

const STEADY: &str = "program steady
  implicit none
  integer :: i, n, m, k
  n = 0; m = 0; k = 0
  do i = 1, 300000
    if (mod(i, 1000) == 0) n = n + 1
    if (n >= 0) m = m + 1
    if (mod(i, 7) < 3) k = k + 1
  end do
  print *, n, m, k
end program
";

#[test]
fn long_runs_of_one_outcome_still_miss_where_they_break() {
    // The branch run skips the tables for a test whose histories and saturated counters
    // did not change since its last execution: the rare true of a test false 999 times
    // in 1,000 is still a miss each time, a test always true is learned, and a period of
    // seven outcomes is learned under the histories it repeats.
    let a = analyze("steady.f90", STEADY);
    let b = simulated(&a);
    let rare = row(b, 6);
    assert_eq!((rare.executions, rare.taken), (300000, 300));
    assert!(
        (290..=320).contains(&rare.mispredictions),
        "one miss at each of the 300 breaks of the run: {rare:?}"
    );
    let always = row(b, 7);
    assert_eq!((always.executions, always.taken), (300000, 300000));
    assert!(always.mispredictions <= 5, "{always:?}");
    let period = row(b, 8);
    assert_eq!((period.executions, period.taken), (300000, 128572));
    assert!(
        period.mispredictions < 3000,
        "a period of seven is learned from the histories: {period:?}"
    );
    let out = String::from_utf8_lossy(&a.run.stdout);
    assert_eq!(
        out.split_whitespace().collect::<Vec<_>>(),
        ["300", "300000", "128572"],
        "{out}"
    );
}

const SAMPLED: &str = "program sampled
  implicit none
  integer(8) :: s, r, i
  integer :: heads, rare
  s = 12345; heads = 0; rare = 0
  do i = 1, 16000000
    s = mod(s * 1103515245_8 + 12345_8, 2147483648_8)
    r = merge(s, 0_8, i > 4000000)
    if (r >= 1073741824_8) heads = heads + 1
    if (mod(i, 1000_8) == 0) rare = rare + 1
  end do
  print *, heads, rare
end program
";

#[test]
fn a_long_run_is_simulated_in_windows_and_its_setup_counts_once() {
    // 32 million tests: the branch run simulates the first 8.4 million whole and then a
    // window of every period. The coin's test is decided (false) over its first 4 million
    // executions, all of them simulated, and a fair coin over the 12 million after, which
    // the windows stand for: about 6 million misses, where a rate over every simulated
    // execution (the setup's weighing as much as all the windows) says 1.6 (tried).
    let a = analyze("sampled.f90", SAMPLED);
    let b = simulated(&a);
    let coin = row(b, 9);
    assert_eq!(coin.executions, 16_000_000);
    let half = (coin.executions - 4_000_000) / 2;
    assert!(
        (half * 9 / 10..=half * 11 / 10).contains(&coin.mispredictions),
        "a fair coin's misses over its last 12 million tests: {coin:?}"
    );
    let rare = row(b, 10);
    assert_eq!((rare.executions, rare.taken), (16_000_000, 16_000));
    assert!(
        (14_400..=17_600).contains(&rare.mispredictions),
        "one miss at each of the 16,000 breaks: {rare:?}"
    );
    let out = String::from_utf8_lossy(&a.run.stdout);
    assert_eq!(out.split_whitespace().nth(1), Some("16000"), "{out}");
}

const DECIDED: &str = r#"program decided
  implicit none
  integer, parameter :: n = 2000
  real(8) :: x(n), y(n)
  integer :: i, t, m
  do i = 1, n
    x(i) = mod(i * 7919, 1000) / 1000.0d0
  end do
  y = 0
  m = n
  do t = 1, 50
    do i = 1, n
      if (1 < i) then
        y(i) = y(i) + x(i - 1)
      end if
      if (i < n) y(i) = y(i) + x(i + 1)
      if (x(i) > 0.5d0) y(i) = y(i) * 0.5d0
    end do
    do i = 1, n
      if (i < m) m = m - 1
      if (i /= t) y(i) = y(i) + 1.0d0
    end do
    m = n
  end do
  print *, sum(y)
end program decided
"#;

#[test]
fn tests_of_the_index_against_its_loops_bounds_are_not_recorded() {
    let a = analyze("decided.f90", DECIDED);
    let b = simulated(&a);
    let lines: Vec<u32> = b.conditions.iter().map(|c| c.line).collect();
    // `1 < i` and `i < n` compare the index with the loop's start and end: not
    // recorded; a data test, `i < m` with `m` assigned in the loop and `i /= t` (not a
    // bound) are.
    assert!(!lines.contains(&13) && !lines.contains(&16), "{lines:?}");
    assert!(
        lines.contains(&17) && lines.contains(&20) && lines.contains(&21),
        "{lines:?}"
    );
    // Each left out is priced no misprediction (a history predictor learns the switch at
    // the first or last iteration), where the block counts' bound says one an entry.
    let block_misses = |line: u32| -> f64 {
        let u = &a.profile.units[0];
        u.blocks
            .iter()
            .filter(|k| k.last_line == line)
            .map(|k| {
                let per = k.counts.get(augur_ir::AbOp::BRMP) + k.counts.get(augur_ir::AbOp::BRMC);
                per * k.executions.unwrap_or(0.0)
            })
            .sum()
    };
    for line in [13, 16] {
        let m = block_misses(line);
        assert!(m < 0.5, "line {line}: {m} mispredictions");
    }
}
