//! Profiles at sizes never run (`augur analyze --scale`, `augur predict --at`): exact
//! symbolic counts checked block by block against a real counting run at the
//! extrapolated size, a fitted model on a loop the sums cannot follow, and the errors
//! for sizes that change the program's path or its code.
//!
//! These tests need gfortran and gcc; without them they fail saying so.

use augur_program::scaling::{analyze_scaled, block_counts_of, profile_at, ScaleSpec};
use augur_program::{AnalyzeError, AnalyzeOptions};
use augur_program_profile::scaling::CountModel;
use augur_program_profile::ProgramProfile;
use augur_toolchain::Toolchain;
use std::path::{Path, PathBuf};

fn options(cwd: &Path) -> AnalyzeOptions {
    let tc = Toolchain::detect("gfortran", "-O0")
        .unwrap_or_else(|e| panic!("these tests need gfortran and gcc: {e}"));
    let mut o = AnalyzeOptions::new(tc, cwd);
    o.branch_run = false;
    o
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

fn spec(values: &[i64]) -> ScaleSpec {
    ScaleSpec {
        symbol: "n".into(),
        values: values.to_vec(),
        allow_path_changes: false,
        sized_inputs: false,
    }
}

/// Every block whose model is exact has, at `x`, the executions a counting run at `x`
/// gives: the number of mismatches (and the first, for the message).
fn exact_mismatches(scaled: &ProgramProfile, direct: &ProgramProfile) -> (usize, usize, String) {
    let sc = scaled.scaling.as_ref().unwrap();
    let want = block_counts_of(direct);
    let got = block_counts_of(scaled);
    let (mut exact, mut bad, mut first) = (0, 0, String::new());
    for b in &sc.blocks {
        if !matches!(b.model, CountModel::Exact { .. }) {
            continue;
        }
        exact += 1;
        let (g, w) = (
            got[b.unit][b.block as usize],
            want[b.unit][b.block as usize],
        );
        if g != w {
            bad += 1;
            if first.is_empty() {
                first = format!(
                    "unit {} block {}: {g:?} != {w:?} ({:?})",
                    b.unit, b.block, b.model
                );
            }
        }
    }
    (exact, bad, first)
}

const NESTS: &str = "\
program nests
  implicit none
  integer :: n, i, j, k, it, jj
  integer, parameter :: b = 8
  real(8), allocatable :: a(:,:), c(:,:)
  real(8) :: s
  character(len=32) :: arg
  call get_command_argument(1, arg)
  read (arg, *) n
  allocate (a(n,n), c(n,n))
  a = 1.0d0
  c = 0.0d0
  do it = 1, 2
    call tri(n, a, c)
  end do
  s = 0.0d0
  do jj = 1, n, b
    do j = jj, min(jj + b - 1, n)
      do i = n, 1, -3
        s = s + c(i, j)
      end do
    end do
  end do
  do i = 2, n - 1
    do j = max(1, i - 4), min(n, i + 4)
      s = s + a(j, i)
    end do
  end do
  print *, s
contains
  subroutine tri(n, a, c)
    integer, intent(in) :: n
    real(8), intent(in) :: a(n, n)
    real(8), intent(inout) :: c(n, n)
    integer :: i, j, k
    do j = 1, n
      do k = 1, j
        do i = k, n
          c(i, j) = c(i, j) + a(i, k) * a(k, j)
        end do
      end do
    end do
  end subroutine tri
end program nests
";

#[test]
fn exact_counts_hold_at_a_size_never_run() {
    let dir = tempfile::tempdir().unwrap();
    let src = write(dir.path(), "nests.f90", NESTS);
    let mut o = options(dir.path());
    o.args = vec!["{n}".into()];
    let scaled =
        analyze_scaled(std::slice::from_ref(&src), &o, &spec(&[24, 32, 48]), |_| {}).unwrap();
    let at = profile_at(&scaled.profile, 301).unwrap();
    o.args = vec!["301".into()];
    let direct = augur_program::analyze(&[src], &o).unwrap();
    let (exact, bad, first) = exact_mismatches(&at, &direct.profile);
    assert!(exact >= 10, "only {exact} exact blocks");
    assert_eq!(bad, 0, "{first}");
    let rel = (at.operations - direct.profile.operations).abs() / direct.profile.operations;
    assert!(
        rel < 1e-9,
        "operations {} vs {}",
        at.operations,
        direct.profile.operations
    );
    // The closed form of the triangular nest, as derived by hand:
    // sum_{j<=n} sum_{k<=j} (n - k + 1) = n^3/3 + n^2/2 + n/6.
    let sc = scaled.profile.scaling.as_ref().unwrap();
    let forms: Vec<&str> = sc
        .blocks
        .iter()
        .filter_map(|b| match &b.model {
            CountModel::Exact { closed_form, .. } => closed_form.as_deref(),
            _ => None,
        })
        .collect();
    assert!(forms.contains(&"n^3/3 + n^2/2 + n/6"), "{forms:?}");
}

const ALTERNATING: &str = "\
program alternating
  implicit none
  integer, parameter :: n = NSIZE
  real(8) :: u(n, n), v(n, n)
  integer :: s, i, j
  u = 1.0d0
  v = 0.0d0
  do s = 1, 9
    if (mod(s, 2) == 1) then
      do j = 2, n - 1
        do i = 2, n - 1
          v(i, j) = 0.25d0 * (u(i - 1, j) + u(i + 1, j) + u(i, j - 1) + u(i, j + 1))
        end do
      end do
    else
      u(2:n-1, 2:n-1) = 0.5d0 * (v(2:n-1, 2:n-1) + v(1:n-2, 2:n-1))
    end if
  end do
  print *, sum(u), sum(v(:, 2:n:2))
end program alternating
";

#[test]
fn nests_under_a_condition_and_array_statements_count_exactly() {
    let dir = tempfile::tempdir().unwrap();
    let src = write(dir.path(), "alternating.F90", ALTERNATING);
    let mut o = options(dir.path());
    o.front.load.defines = vec!["NSIZE={n}".into()];
    let scaled =
        analyze_scaled(std::slice::from_ref(&src), &o, &spec(&[16, 24, 40]), |_| {}).unwrap();
    let at = profile_at(&scaled.profile, 333).unwrap();
    o.front.load.defines = vec!["NSIZE=333".into()];
    let direct = augur_program::analyze(&[src], &o).unwrap();
    let (exact, bad, first) = exact_mismatches(&at, &direct.profile);
    assert_eq!(bad, 0, "{first}");
    // The stencil's nest counts from its own loop (entered 5 times of 9), the array
    // statements from their sections: every operation that grows with n is exact.
    let shares = augur_program::scaling::model_shares(&at);
    let exact_share: f64 = shares.iter().filter(|r| r.0 == "exact").map(|r| r.2).sum();
    assert!(exact >= 4 && exact_share > 0.99, "{shares:?}");
}

const PARAMETERS: &str = "\
program params
  implicit none
  integer, parameter :: n = NSIZE
  real(8) :: x(n)
  integer :: i, j
  x = 0.0d0
  do i = 1, n
    do j = i, n
      x(j) = x(j) + 1.0d0 / i
    end do
  end do
  print *, sum(x)
end program params
";

#[test]
fn named_constants_from_defines_scale_exactly() {
    let dir = tempfile::tempdir().unwrap();
    let src = write(dir.path(), "params.F90", PARAMETERS);
    let mut o = options(dir.path());
    o.front.load.defines = vec!["NSIZE={n}".into()];
    let scaled =
        analyze_scaled(std::slice::from_ref(&src), &o, &spec(&[20, 30, 40]), |_| {}).unwrap();
    let at = profile_at(&scaled.profile, 500).unwrap();
    o.front.load.defines = vec!["NSIZE=500".into()];
    let direct = augur_program::analyze(&[src], &o).unwrap();
    let (exact, bad, first) = exact_mismatches(&at, &direct.profile);
    assert!(exact >= 2, "only {exact} exact blocks");
    assert_eq!(bad, 0, "{first}");
}

const WHILE_LOOP: &str = "\
program halving
  implicit none
  integer :: n, i, m, steps
  character(len=32) :: arg
  call get_command_argument(1, arg)
  read (arg, *) n
  steps = 0
  do i = 1, n
    m = i
    do while (m > 1)
      m = m / 2
      steps = steps + 1
    end do
  end do
  print *, steps
end program halving
";

#[test]
fn loops_the_sums_cannot_follow_get_a_fitted_model_with_its_error() {
    let dir = tempfile::tempdir().unwrap();
    let src = write(dir.path(), "halving.f90", WHILE_LOOP);
    let mut o = options(dir.path());
    o.args = vec!["{n}".into()];
    let scaled = analyze_scaled(
        std::slice::from_ref(&src),
        &o,
        &spec(&[256, 512, 1024, 2048]),
        |_| {},
    )
    .unwrap();
    let sc = scaled.profile.scaling.as_ref().unwrap();
    let fitted: Vec<_> = sc
        .blocks
        .iter()
        .filter_map(|b| match &b.model {
            CountModel::Fitted(m) => Some(m),
            _ => None,
        })
        .collect();
    assert!(!fitted.is_empty(), "{:#?}", sc.blocks);
    // sum_{i<=n} floor(log2 i) grows as n log2 n.
    assert!(fitted.iter().any(|m| m.j >= 1), "{fitted:?}");
    assert!(fitted.iter().all(|m| m.cv_error < 0.1), "{fitted:?}");
    let at = profile_at(&scaled.profile, 16384).unwrap();
    o.args = vec!["16384".into()];
    let direct = augur_program::analyze(&[src], &o).unwrap();
    let rel = (at.operations - direct.profile.operations).abs() / direct.profile.operations;
    assert!(
        rel < 0.05,
        "{} vs {}",
        at.operations,
        direct.profile.operations
    );
}

const COIN: &str = "\
program coin
  implicit none
  integer :: n, i, j, heads
  integer(8) :: seed
  real :: r
  character(len=32) :: arg
  call get_command_argument(1, arg)
  read (arg, *) n
  heads = 0
  ! A fixed generator (not RANDOM_NUMBER, whose seed differs between runs): the
  ! same coin every run, so the share model's check is the same every time.
  seed = 12345
  do j = 1, n
    do i = 1, n
      seed = mod(seed * 1103515245_8 + 12345_8, 2147483648_8)
      r = real(seed) / 2147483648.0
      if (r < 0.3) then
        heads = heads + 1
      end if
    end do
  end do
  print *, heads
end program coin
";

#[test]
fn a_branch_on_data_keeps_its_share_of_the_loop() {
    let dir = tempfile::tempdir().unwrap();
    let src = write(dir.path(), "coin.f90", COIN);
    let mut o = options(dir.path());
    o.args = vec!["{n}".into()];
    let scaled =
        analyze_scaled(std::slice::from_ref(&src), &o, &spec(&[40, 60, 80]), |_| {}).unwrap();
    let sc = scaled.profile.scaling.as_ref().unwrap();
    let share = sc
        .blocks
        .iter()
        .find(|b| matches!(b.model, CountModel::Share { .. }))
        .unwrap_or_else(|| panic!("no share model: {:#?}", sc.blocks));
    let CountModel::Share { ratio, .. } = share.model else {
        unreachable!()
    };
    assert!((ratio - 0.3).abs() < 0.03, "{ratio}");
    let at = profile_at(&scaled.profile, 400).unwrap();
    o.args = vec!["400".into()];
    let direct = augur_program::analyze(&[src], &o).unwrap();
    let (got, want) = (block_counts_of(&at), block_counts_of(&direct.profile));
    let (u, b) = (share.unit, share.block as usize);
    let (g, w) = (got[u][b].unwrap(), want[u][b].unwrap());
    assert!((g - w).abs() / w < 0.03, "{g} vs {w}");
}

#[test]
fn a_size_that_changes_the_path_or_the_code_is_refused_clearly() {
    let dir = tempfile::tempdir().unwrap();
    let branch = write(
        dir.path(),
        "branch.f90",
        "program b\n integer :: n\n character(len=8) :: a\n call get_command_argument(1, a)\n read (a, *) n\n if (n > 40) then\n  print *, 'large'\n end if\n print *, n\nend program b\n",
    );
    let mut o = options(dir.path());
    o.args = vec!["{n}".into()];
    let err = analyze_scaled(&[branch], &o, &spec(&[32, 40, 48]), |_| {}).unwrap_err();
    let msg = err.to_string();
    assert!(matches!(err, AnalyzeError::Scale(_)), "{msg}");
    assert!(
        msg.contains("different path") && msg.contains("branch.f90:7"),
        "{msg}"
    );

    let code = write(
        dir.path(),
        "code.F90",
        "program c\n#if N > 40\n print *, 'large'\n print *, 'really'\n#endif\n print *, N\nend program c\n",
    );
    let mut o = options(dir.path());
    o.front.load.defines = vec!["N={n}".into()];
    let err = analyze_scaled(&[code], &o, &spec(&[32, 40, 48]), |_| {}).unwrap_err();
    assert!(err.to_string().contains("structure changes"), "{err}");

    let mut o = options(dir.path());
    o.args = vec!["7".into()];
    let src = write(
        dir.path(),
        "n.f90",
        "program p\n print *, 1\nend program p\n",
    );
    let err = analyze_scaled(&[src], &o, &spec(&[32, 40, 48]), |_| {}).unwrap_err();
    assert!(err.to_string().contains("{n}"), "{err}");
}
