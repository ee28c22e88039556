//! Instrumented copies of real-code constructs compile and run (each seen in a program
//! of bench/real):
//! * an external function whose type the calling unit declares (`real(8) ggl`, no
//!   EXTERNAL), called in a loop whose counters augur would keep in a BLOCK: gfortran 12
//!   refuses the reference inside a BLOCK (`burkardt_fft_serial`);
//! * named DO constructs (`sweep: do`) whose nest gets a probe statement before it: the
//!   probe goes before the name (`snap`, `bookleaf`);
//! * a variable named `loc` in a unit with indirect references, which augur samples
//!   with the LOC intrinsic (`cloverleaf`);
//! * a build with `-fdefault-integer-8`: the probes and the branch run pass 32-bit
//!   arguments to the C runtime whatever the default kind (`conman`);
//! * a logical IF whose action, an array assignment, is on a continuation line: its
//!   block and element counters share the IF-THEN it becomes, and the shapes its
//!   condition's arrays are recorded with go after its action (`snap`).
//!
//! Needs gfortran and gcc; without them it fails saying so.

use augur_program::AnalyzeOptions;
use augur_toolchain::Toolchain;

/// Analyzes `text` (written as `name`) with gfortran and `flags`: the instrumented copy
/// must compile and run (with the branch run when `branch_run`).
fn instrumented_run(
    name: &str,
    text: &str,
    flags: &str,
    branch_run: bool,
) -> augur_program::analyze::Analysis {
    let tc = Toolchain::detect("gfortran", flags)
        .unwrap_or_else(|e| panic!("this test needs gfortran and gcc: {e}"));
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join(name);
    std::fs::write(&src, text).unwrap();
    let opts = AnalyzeOptions {
        branch_run,
        ..AnalyzeOptions::new(tc, dir.path())
    };
    augur_program::analyze(std::slice::from_ref(&src), &opts)
        .unwrap_or_else(|e| panic!("the instrumented copy must compile and run: {e}"))
}

const SOURCE: &str = "program t
  implicit none
  real(8) ggl, s, seed
  integer i
  seed = 1.0d0
  s = 0.0d0
  do i = 1, 100
    if (mod(i, 3) == 0) then
      s = s + ggl(seed)
    else
      s = s - 1.0d-3
    end if
  end do
  print '(f12.6)', s
end program t

function ggl(seed)
  implicit none
  real(8) ggl, seed
  seed = mod(16807.0d0 * seed, 2147483647.0d0)
  ggl = seed / 2147483647.0d0
end function ggl
";

#[test]
fn typed_external_functions_in_counted_loops_compile() {
    let analysis = instrumented_run("t.f90", SOURCE, "-O2", false);
    let printed = String::from_utf8_lossy(&analysis.run.stdout);
    assert!(printed.trim().parse::<f64>().is_ok(), "{printed}");
    let calls: f64 = analysis
        .profile
        .units
        .iter()
        .filter(|u| u.name == "ggl")
        .map(|u| u.blocks.first().and_then(|b| b.executions).unwrap_or(0.0))
        .sum();
    assert_eq!(calls, 33.0, "ggl runs once every third iteration");
}

const NAMED: &str = "program named
  implicit none
  integer :: i, j, n, m
  real(8) :: a(50, 40), s
  n = 50
  m = 40
  s = 0.0d0
  a = 0.0d0
  outer: do j = 1, m
    inner : do i = 1, n
      a(i, j) = dble(i + j)
      if (i > n - 2) cycle outer
    end do inner
  end do outer
  10 sweep: do j = 1, m
    s = s + sum(a(1:n, j))
  end do sweep
  print '(f12.1)', s
end program named
";

#[test]
fn named_do_constructs_keep_their_names() {
    let analysis = instrumented_run("n.f90", NAMED, "-O2", false);
    let printed = String::from_utf8_lossy(&analysis.run.stdout);
    // Σ over j = 1..40 and i = 1..49 of i + j (row 50 is cycled past).
    assert_eq!(printed.trim(), "89180.0");
}

const LOC: &str = "program hidden
  implicit none
  integer :: loc(100), idx(100), i
  real(8) :: a(100), s
  do i = 1, 100
    idx(i) = mod(7 * i, 100) + 1
    loc(i) = i
    a(i) = dble(i)
  end do
  s = 0.0d0
  do i = 1, 100
    s = s + a(idx(i)) * loc(i)
  end do
  print '(f12.1)', s
end program hidden
";

#[test]
fn a_variable_named_loc_does_not_break_the_address_probes() {
    let analysis = instrumented_run("hidden.f90", LOC, "-O2", false);
    let expected: u64 = (1..=100u64).map(|i| ((7 * i) % 100 + 1) * i).sum();
    let printed = String::from_utf8_lossy(&analysis.run.stdout);
    assert_eq!(printed.trim(), format!("{expected}.0"));
}

const WIDE: &str = "program wide
  implicit none
  integer :: idx(200), i, n, k, m
  real(8) :: a(200), s
  n = 200
  m = 0
  do i = 1, n
    idx(i) = mod(13 * i, n) + 1
    a(i) = dble(i)
  end do
  s = 0.0d0
  do i = 1, n
    s = s + a(idx(i))
    select case (mod(i, 3))
    case (0)
      m = m + 1
    case default
      k = i
    end select
    if (a(i) > 100.0d0) m = m + 2
  end do
  print '(f12.1, i8)', s, m
end program wide
";

#[test]
fn probes_pass_32_bit_arguments_whatever_the_default_integer_kind() {
    let analysis = instrumented_run("wide.f90", WIDE, "-O2 -fdefault-integer-8", true);
    let printed = String::from_utf8_lossy(&analysis.run.stdout);
    // Σ a = 20100; 66 multiples of 3; 100 elements above 100, two each.
    assert_eq!(
        printed.split_whitespace().collect::<Vec<_>>(),
        ["20100.0", "266"]
    );
    assert!(analysis.profile.branches.is_some(), "the branch run ran");
}

const CONTINUED_IF: &str = "program lif
  implicit none
  integer :: i
  real(8) :: a(10, 4), b(10), s
  logical :: upd
  a = 1.0d0
  b = 2.0d0
  upd = .true.
  s = 0.0d0
  do i = 1, 4
    if (i > 1 .and. upd)                                     &
      a(:, i) = 2.0d0 * b - a(:, i - 1)
    if (i > 2) b = b + a(:, i)
    s = s + sum(a(:, i))
  end do
  print '(f10.2)', s
end program lif
";

#[test]
fn a_logical_if_with_its_array_action_on_a_continuation_line() {
    let analysis = instrumented_run("lif.f90", CONTINUED_IF, "-O2", false);
    assert_eq!(
        String::from_utf8_lossy(&analysis.run.stdout).trim(),
        "100.00"
    );
    // The guarded assignment ran for i = 2, 3, 4: 3 times, 30 elements.
    let on_line = |kind: augur_ir::BlockKind| -> f64 {
        analysis.profile.units[0]
            .blocks
            .iter()
            .filter(|b| b.first_line == 12 && b.block_kind == kind)
            .filter_map(|b| b.executions)
            .sum()
    };
    assert_eq!(on_line(augur_ir::BlockKind::Straight), 3.0);
    assert_eq!(on_line(augur_ir::BlockKind::Elements), 30.0);
}

const CONTINUED_CONDITION: &str = "program lif2
  implicit none
  logical, allocatable :: done(:)
  real(8) :: d
  logical :: fin
  integer :: it
  allocate(done(8))
  done = .false.
  fin = .false.
  d = 1.0d0
  do it = 1, 5
    done(it) = .true.
    d = d / 2
    if (d <= 0.1d0 .and. any(done) .and. it /= 1)          &
      fin = .true.
  end do
  print *, fin, count(done)
end program lif2
";

#[test]
fn shapes_of_a_continued_logical_if_are_recorded_after_its_action() {
    let analysis = instrumented_run("lif2.f90", CONTINUED_CONDITION, "-O2", false);
    let printed = String::from_utf8_lossy(&analysis.run.stdout);
    assert_eq!(printed.split_whitespace().collect::<Vec<_>>(), ["T", "5"]);
}

const LAGGED: &str = "program lagged
  implicit none
  integer, parameter :: n = 4096
  real(8) :: x(n), y(n), s
  integer :: i, l, lag, m
  do i = 1, n
    x(i) = dble(mod(i, 7))
    y(i) = dble(mod(i, 5))
  end do
  s = 0.0d0
  m = 0
  do l = 1, 4
    lag = (l - 1) * 97
    do i = 1, n - lag
      s = s + x(i) * y(i + lag) + x(i + m)
    end do
    m = m + 3
  end do
  print '(f14.1)', s
end program lagged
";

#[test]
fn a_subscript_the_extraction_substitutes_is_not_sampled() {
    let analysis = instrumented_run("lagged.f90", LAGGED, "-O2", false);
    let loc = analysis
        .profile
        .locality
        .as_ref()
        .expect("a locality profile");
    // `lag` has one definition per pass of `l`: y(i + lag) is part of the nest, not
    // sampled; `m` is assigned twice, so x(i + m) is sampled.
    let sampled: Vec<&str> = loc
        .sampled_refs
        .iter()
        .map(|r| r.reference.as_str())
        .collect();
    assert!(sampled.iter().all(|r| !r.starts_with('y')), "{sampled:?}");
    assert!(sampled.iter().any(|r| r.starts_with('x')), "{sampled:?}");
    assert!(
        loc.non_affine.iter().all(|r| r.array != "y"),
        "{:?}",
        loc.non_affine
    );
}

/// Analyzes `text` (written as `name`) with gfortran -O2: the error.
fn analysis_error(name: &str, text: &str) -> augur_program::AnalyzeError {
    let tc = Toolchain::detect("gfortran", "-O2")
        .unwrap_or_else(|e| panic!("this test needs gfortran and gcc: {e}"));
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join(name);
    std::fs::write(&src, text).unwrap();
    let opts = AnalyzeOptions::new(tc, dir.path());
    match augur_program::analyze(std::slice::from_ref(&src), &opts) {
        Ok(_) => panic!("{name} must not compile"),
        Err(e) => e,
    }
}

#[test]
fn a_compile_error_after_a_continued_probe_names_its_own_line() {
    // The nest's probe call is two lines in the copy (continued with `&`): the error on
    // line 10 must still be reported on line 10, not 11.
    let src = "C     COMMENT
      PROGRAM H
      REAL X(100)
      INTEGER I, N, K
      N = 100
      DO 10 I = 1, N
         X(I) = I
   10 CONTINUE
C     ANOTHER COMMENT
      K = 'ABC'
      PRINT *, X(1), K
      END
";
    match analysis_error("h.f", src) {
        augur_program::AnalyzeError::Compile { messages, .. } => {
            assert!(messages.contains("h.f:10:"), "{messages}");
            assert!(messages.contains("Cannot convert"), "{messages}");
        }
        other => panic!("expected the program's own compile error, got {other}"),
    }
}

#[test]
fn an_instrumented_copy_that_does_not_compile_is_reported_as_augurs() {
    // A variable named like augur's counter array: the program compiles, the copy (which
    // uses augur's module) does not. The report says so, keeps the copy and shows the
    // copy's line the error is on.
    let src = "      PROGRAM CLASH
      INTEGER AUGUR_C, I
      AUGUR_C = 0
      DO 10 I = 1, 5
         AUGUR_C = AUGUR_C + I
   10 CONTINUE
      PRINT *, AUGUR_C
      END
";
    match analysis_error("clash.f", src) {
        augur_program::AnalyzeError::InstrumentedCopy { messages, kept, .. } => {
            let copy = kept.join("aug0_clash.f90");
            let kept_copy = copy.exists();
            let _ = std::fs::remove_dir_all(&kept);
            assert!(kept_copy, "the copy is kept in {}", kept.display());
            assert!(messages.contains("aug0_clash.f90:3:"), "{messages}");
            assert!(messages.contains("INTEGER AUGUR_C"), "{messages}");
            assert!(messages.contains("clash.f:2"), "{messages}");
        }
        other => panic!("expected augur's copy to be blamed, got {other}"),
    }
}
