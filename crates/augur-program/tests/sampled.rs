//! Non-affine references through sampled addresses: the histograms built
//! from a SHARDS-sampled address stream (as the instrumented run's sampler
//! keeps it), with hand-computable misses, and the real instrumented build
//! of a small program with a gather and whole-array statements.
//!
//! The last test needs gfortran and gcc; without them it fails saying so.

use augur_locality::hash::mix64;
use augur_locality::profile::{histogram_misses, CompactHistogramExt};
use augur_locality::reuse::SAMPLE_SEED;
use augur_locality::CacheGeometry;
use augur_program::locality::{sampled_histograms, AddressSamples};
use augur_program::AnalyzeOptions;
use augur_toolchain::Toolchain;

/// Whether the run's sampler keeps an address at rate `2^-shift` (the same
/// rule as the C runtime).
fn keep(addr: u64, shift: u32) -> bool {
    shift == 0 || mix64((addr >> 6) ^ SAMPLE_SEED) >> (64 - shift) == 0
}

/// The samples a run would write for one probe reading `x(perm(i))`,
/// `i = 1..n`, `x` of 8-byte elements at `base`.
fn samples_of(perm: &[u64], base: u64, shift: u32) -> AddressSamples {
    AddressSamples {
        calls: vec![perm.len() as u64],
        shift,
        samples: perm
            .iter()
            .map(|&p| base + 8 * p)
            .filter(|&a| keep(a, shift))
            .map(|a| (0, a))
            .collect(),
        repeats: vec![],
        failed: false,
        strides: vec![],
    }
}

/// A pseudo-random permutation of `0..n` (Fisher-Yates with a fixed LCG).
fn permutation(n: u64) -> Vec<u64> {
    let mut v: Vec<u64> = (0..n).collect();
    let mut s: u64 = 0x2545_f491_4f6c_dd1d;
    for i in (1..n as usize).rev() {
        s = s
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        let j = (s >> 33) as usize % (i + 1);
        v.swap(i, j);
    }
    v
}

const L2: CacheGeometry = CacheGeometry {
    size_bytes: 1 << 20,
    line_bytes: 64,
    ways: 16,
};

#[test]
fn gather_through_a_random_permutation_misses_once_per_access() {
    // 4 Mi doubles = 32 MiB, 32 times the cache: a random gather reuses a
    // line only after about half a million other lines, so nearly every
    // access misses. Exactly: lines hold 8 elements, so the expected hits
    // are the accesses whose line was touched among the last 16 Ki lines,
    // under 1%.
    let n = 1u64 << 22;
    let perm = permutation(n);
    for shift in [0, 4] {
        let s = samples_of(&perm, 1 << 30, shift);
        let (h, _) = sampled_histograms(&s, 1);
        let total = h[0].total() as f64;
        assert!((total - n as f64).abs() / (n as f64) < 1e-6, "{total}");
        let per_access = histogram_misses(&h[0], &L2) / n as f64;
        assert!(
            per_access > 0.97 && per_access <= 1.0,
            "shift {shift}: {per_access}"
        );
    }
}

#[test]
fn gather_through_the_identity_misses_once_per_line() {
    // The identity permutation streams: one miss per 64-byte line of eight
    // 8-byte elements, 1/8 per access, sampled or not.
    let n = 1u64 << 22;
    let perm: Vec<u64> = (0..n).collect();
    for shift in [0, 4] {
        let s = samples_of(&perm, 1 << 30, shift);
        let (h, _) = sampled_histograms(&s, 1);
        let per_access = histogram_misses(&h[0], &L2) / n as f64;
        assert!(
            (per_access - 0.125).abs() < 0.01,
            "shift {shift}: {per_access}"
        );
    }
}

#[test]
fn bad_samples_files_are_refused() {
    use augur_program::locality::read_samples;
    assert_eq!(read_samples(b""), None);
    assert_eq!(read_samples(b"augur-samples 2 0 5 0\n1\n2\n"), None);
    assert_eq!(read_samples(b"garbage\n"), None);
    let mut ok = b"augur-samples 1 0 1 0\n7\n".to_vec();
    ok.extend_from_slice(&0u32.to_ne_bytes());
    ok.extend_from_slice(&4096u64.to_ne_bytes());
    ok.extend_from_slice(&5u32.to_ne_bytes());
    let s = read_samples(&ok).expect("well-formed");
    assert_eq!(
        (
            s.calls.clone(),
            s.shift,
            s.samples.clone(),
            s.repeats.clone()
        ),
        (vec![7], 0, vec![(0, 4096)], vec![5])
    );
    // Repeats count at distance 0 like the samples: one cold sample and 5
    // repeats, scaled to the 7 calls.
    let (h, _) = sampled_histograms(&s, 1);
    assert_eq!((h[0].cold, h[0].bins.first().copied()), (1, Some(6)));
}

const PROGRAM: &str = "\
program g
  implicit none
  integer, parameter :: n = 2 * 1024 * 1024
  real(8), allocatable :: x(:), y(:)
  integer, allocatable :: idx(:)
  integer :: i
  integer(8) :: s
  real(8) :: t
  allocate(x(n), y(n), idx(n))
  x = 1.0d0
  y = x + 1.0d0
  do i = 1, n
    idx(i) = i
  end do
  s = 7
  do i = n, 2, -1
    s = modulo(s * 1103515245_8 + 12345_8, 2147483648_8)
    call swap(idx(i), idx(int(modulo(s, int(i, 8))) + 1))
  end do
  t = 0
  do i = 1, n
    t = t + x(idx(i))
  end do
  print *, t, sum(y)
contains
  subroutine swap(a, b)
    integer :: a, b, c
    c = a
    a = b
    b = c
  end subroutine swap
end program g
";

/// The locality of `source`, written to `name` in a fresh directory and analyzed by the
/// real instrumented build and run (gfortran -O2).
fn locality_of(name: &str, source: &str) -> augur_program_profile::locality::LocalityProfile {
    let tc = match Toolchain::detect("gfortran", "-O2") {
        Ok(tc) => tc,
        Err(e) => panic!("this test needs gfortran and gcc: {e}"),
    };
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join(name);
    std::fs::write(&src, source).unwrap();
    let a = augur_program::analyze(&[src], &AnalyzeOptions::new(tc, dir.path()))
        .unwrap_or_else(|e| panic!("analyze: {e}"));
    a.profile.locality.expect("locality")
}

#[test]
fn real_run_records_shapes_and_samples_the_gather() {
    let loc = locality_of("g.f90", PROGRAM);
    let n = 2 * 1024 * 1024u64;
    // The allocatable arrays' shapes as the run saw them.
    for name in ["x", "y"] {
        let s = loc
            .runtime_shapes
            .iter()
            .find(|s| s.array == name)
            .unwrap_or_else(|| panic!("no shape of {name}: {:?}", loc.runtime_shapes));
        assert_eq!(s.bounds, vec![[1, n as i64]]);
    }
    // `y = x + 1` is an array-syntax nest of n loads and n stores.
    let yx = loc
        .nests
        .iter()
        .find(|k| k.line == 11)
        .unwrap_or_else(|| panic!("no nest at line 11: {:?}", loc.nests));
    assert_eq!(yx.kind, "array_syntax");
    assert_eq!(yx.accesses, 2 * n);
    // The gather x(idx(i)) was probed n times; through a random permutation
    // of 16 MiB, almost every access misses a 1 MiB cache.
    let g = loc
        .sampled_refs
        .iter()
        .find(|r| r.reference.replace(' ', "") == "x(idx(i))")
        .unwrap_or_else(|| panic!("gather not sampled: {:?}", loc.sampled_refs));
    assert_eq!(g.executions, n);
    assert_eq!(g.line, 22);
    assert!(g.sample_rate > 0.0 && g.sample_rate <= 1.0);
    let m = histogram_misses(&g.histogram.to_histogram(), &L2) / n as f64;
    assert!(m > 0.9 && m < 1.01, "misses per access {m}");
    // No stream in a random permutation: its accesses are priced as random ones.
    assert!(g.strided_share < 0.05, "strided share {}", g.strided_share);
    let s = loc.address_sampling.expect("sampling summary");
    assert!(s.samples > 0 && s.buffer_bytes < 1 << 30);
}

const BANDED: &str = "\
program banded
  implicit none
  integer, parameter :: m = 400, n = m * m
  integer, allocatable :: col(:), rowptr(:)
  real(8), allocatable :: x(:), y(:)
  integer :: i, j, r, k, it
  allocate(col(5 * n), rowptr(n + 1), x(n), y(n))
  k = 0
  do j = 1, m
    do i = 1, m
      r = i + (j - 1) * m
      rowptr(r) = k + 1
      if (j > 1) call put(r - m)
      if (i > 1) call put(r - 1)
      call put(r)
      if (i < m) call put(r + 1)
      if (j < m) call put(r + m)
    end do
  end do
  rowptr(n + 1) = k + 1
  x = 1.0d0
  do it = 1, 3
    call matvec(x, y)
    call matvec(y, x)
    x = 0.1d0 * x
  end do
  print *, sum(x)
contains
  subroutine put(c)
    integer, intent(in) :: c
    k = k + 1
    col(k) = c
  end subroutine put
  subroutine matvec(u, v)
    real(8), intent(in) :: u(:)
    real(8), intent(out) :: v(:)
    integer :: q, l
    do q = 1, n
      v(q) = 0.0d0
      do l = rowptr(q), rowptr(q + 1) - 1
        v(q) = v(q) + u(col(l))
      end do
    end do
  end subroutine matvec
end program banded
";

/// A sparse matrix-vector product of a banded matrix (a 5-point Laplacian's rows
/// `r-m, r-1, r, r+1, r+m`) gathers `x(col(k))` from three interleaved streams, each a
/// line further every eight rows: the run follows each, as a prefetcher's stream table
/// does (the least recently used entry replaced: the streams of the other vector's
/// product have ended), and calls the reference strided (one step of one address before:
/// 20%, priced as random accesses at 17.6 ns each on a Zen 5 profile whose L3 read
/// 4 MiB, corpus `cg` +80%).
#[test]
fn a_banded_matrix_gather_walks_interleaved_streams() {
    let loc = locality_of("banded.f90", BANDED);
    let g = loc
        .sampled_refs
        .iter()
        .find(|r| r.reference.replace(' ', "") == "u(col(l))")
        .unwrap_or_else(|| panic!("gather not sampled: {:?}", loc.sampled_refs));
    assert!(g.strided_share > 0.9, "strided share {}", g.strided_share);
}

/// A sieve crosses its array at the stride of each prime, `DO J = I*I, N, I` inside a
/// GOTO loop over `I`, itself inside a DO loop: the step changes inside the nest, so the real run samples the
/// stores' addresses (every one of them counted) instead of the extraction placing
/// them at step 1.
#[test]
fn real_run_samples_a_loop_whose_step_changes() {
    let loc = locality_of(
        "s.f",
        "      PROGRAM S
      INTEGER N
      PARAMETER (N = 100000)
      LOGICAL P(N)
      INTEGER I, J, K, C, R
      C = 0
      DO 60 R = 1, 2
      DO 10 J = 1, N
   10 P(J) = .TRUE.
      I = 2
   20 IF (I * I .GT. N) GOTO 40
      DO 30 J = I * I, N, I
         P(J) = .FALSE.
   30 CONTINUE
      I = I + 1
      GOTO 20
   40 DO 50 K = 2, N
         IF (P(K)) C = C + 1
   50 CONTINUE
   60 CONTINUE
      PRINT *, C
      END
",
    );
    let r = loc
        .sampled_refs
        .iter()
        .find(|r| r.line == 13)
        .unwrap_or_else(|| panic!("P(J) not sampled: {:?}", loc.sampled_refs));
    assert!(
        r.reason
            .contains("loop over `j` starts or steps by values that move"),
        "{}",
        r.reason
    );
    // Stores of the sieve, twice: sum over I = 2..316 of (N - I*I)/I + 1.
    let stores: u64 = 2 * (2..=316u64).map(|i| (100_000 - i * i) / i + 1).sum::<u64>();
    assert_eq!(r.executions, stores);
}

/// A compressed sparse row product, `DO K = ROWPTR(I), ROWPTR(I+1)-1`: each row starts
/// where the one before ended, so the real run samples `VAL(K)` and `COL(K)` (every
/// one of them counted) instead of the extraction placing each row at the same lines;
/// read in order through 4 MiB, they miss a 1 MiB cache once a line, an eighth of the
/// eight-byte reads.
#[test]
fn real_run_samples_a_loop_that_starts_where_the_row_pointer_says() {
    let loc = locality_of(
        "c.f",
        "      PROGRAM C
      INTEGER N, NZ
      PARAMETER (N = 100000, NZ = 5 * N)
      INTEGER ROWPTR(N + 1), COL(NZ), I, K, IT
      DOUBLE PRECISION VAL(NZ), X(N), Y(N), S
      DO 10 K = 1, NZ
         COL(K) = MOD(MOD(K, 1000) * MOD(K, 997), N) + 1
         VAL(K) = 1.0D0 / K
   10 CONTINUE
      DO 20 I = 1, N + 1
         ROWPTR(I) = 5 * (I - 1) + 1
   20 CONTINUE
      DO 30 I = 1, N
         X(I) = I
   30 CONTINUE
      DO 60 IT = 1, 3
      DO 50 I = 1, N
         S = 0.0D0
         DO 40 K = ROWPTR(I), ROWPTR(I + 1) - 1
            S = S + VAL(K) * X(COL(K))
   40    CONTINUE
         Y(I) = S
   50 CONTINUE
   60 CONTINUE
      PRINT *, Y(1), Y(N)
      END
",
    );
    let n = 3 * 5 * 100_000u64;
    let val = loc
        .sampled_refs
        .iter()
        .find(|r| r.line == 20 && r.array == "val")
        .unwrap_or_else(|| panic!("VAL(K) not sampled: {:?}", loc.sampled_refs));
    assert!(
        val.reason
            .contains("loop over `k` starts or steps by values that move"),
        "{}",
        val.reason
    );
    assert_eq!(val.executions, n);
    let m = histogram_misses(&val.histogram.to_histogram(), &L2) / n as f64;
    assert!((0.1..0.15).contains(&m), "misses per read {m}");
    assert!(loc
        .sampled_refs
        .iter()
        .any(|r| r.line == 20 && r.array == "col"));
}

/// A gather whose index alternates every 32,768 executions between a walk along `x`
/// and a random permutation: 4 million executions, followed through the stream table
/// whole for the first 65,536 and then in a window of each 65,536 at a pseudo-random
/// place. Exactly, one move in nine is strided (a line's eight elements walked, then
/// eight random moves of as many executions); windows always at the start of a period
/// would see only the walks (a share near 1), windows never there only the random half.
#[test]
fn a_gather_followed_in_windows_keeps_its_phases_strided_share() {
    let loc = locality_of(
        "phases.f90",
        "program phases
  implicit none
  integer, parameter :: b = 32768, nb = 128, n = b * nb
  integer, allocatable :: idx(:)
  real(8), allocatable :: x(:), r(:)
  real(8) :: s
  integer :: i, k, j
  allocate(idx(n), x(n), r(b))
  x = 1.0d0
  do k = 0, nb - 1
    call random_number(r)
    do i = 1, b
      j = k * b + i
      if (mod(k, 2) == 0) then
        idx(j) = j
      else
        idx(j) = 1 + int(r(i) * (n - 1))
      end if
    end do
  end do
  s = 0.0d0
  do i = 1, n
    s = s + x(idx(i))
  end do
  print *, s
end program phases
",
    );
    let g = loc
        .sampled_refs
        .iter()
        .find(|r| r.reference.replace(' ', "") == "x(idx(i))")
        .unwrap_or_else(|| panic!("gather not sampled: {:?}", loc.sampled_refs));
    assert_eq!(g.executions, 128 * 32768);
    assert!(
        (0.05..0.25).contains(&g.strided_share),
        "strided share {} (exactly 1/9)",
        g.strided_share
    );
}

/// References of small arrays are not probed (their lines stay in the first level): a
/// constant 8-element table not at all, an automatic array of 12 elements by a size test
/// the run makes before each probe, while a dummy `x(n)` of 2 million elements through
/// the same kind of subscript is probed and sampled.
#[test]
fn small_arrays_are_not_probed() {
    let loc = locality_of(
        "small.f90",
        "program small
  implicit none
  integer :: np
  real(8), allocatable :: x(:)
  character(len=8) :: arg
  np = 12
  call get_command_argument(1, arg)
  allocate(x(2000000))
  x = 1.0d0
  call flips(np, x, size(x))
  print *, x(1)
contains
  subroutine flips(np, x, n)
    integer, intent(in) :: np, n
    real(8), intent(inout) :: x(n)
    integer :: line(np), tab(8), t, i, k, r
    do i = 1, np
      line(i) = np + 1 - i
    end do
    tab = [(i, i = 1, 8)]
    r = 1
    do k = 1, 200000
      t = line(1)
      do i = 1, t / 2
        r = line(i) + tab(mod(r + i, 8) + 1)
        line(i) = line(t + 1 - i)
        line(t + 1 - i) = r - tab(mod(r + i, 8) + 1)
        x(mod(k * 7919 + t * i, n) + 1) = x(mod(k * 7919 + t * i, n) + 1) + 1.0d0
      end do
    end do
  end subroutine flips
end program small
",
    );
    let refs: Vec<String> = loc
        .sampled_refs
        .iter()
        .map(|r| r.reference.replace(' ', ""))
        .collect();
    assert!(
        refs.iter()
            .all(|r| !r.starts_with("line(") && !r.starts_with("tab(")),
        "{refs:?}"
    );
    assert!(refs.iter().any(|r| r.starts_with("x(")), "{refs:?}");
}
