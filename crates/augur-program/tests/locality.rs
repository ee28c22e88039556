//! The locality profile of real runs (gfortran at -O0, the normal analyze
//! path): matrix multiply in the DOT and SAXPY orders against the exact
//! cache simulator, a stencil's short reuse distances, an indirect reference
//! reported as not affine, and the cost of the analysis on a corpus program.
//!
//! These tests need gfortran and gcc; without them they fail saying so.

use augur_locality::profile::{misses, CompactHistogramExt};
use augur_locality::{Cache, CacheGeometry};
use augur_program::locality::extract_nests;
use augur_program::AnalyzeOptions;
use augur_program_profile::locality::{LocalityProfile, NestLocality};
use augur_toolchain::Toolchain;
use std::path::{Path, PathBuf};
use std::time::Instant;

fn gfortran() -> Toolchain {
    match Toolchain::detect("gfortran", "-O0") {
        Ok(tc) => tc,
        Err(e) => panic!("these tests need gfortran and gcc: {e}"),
    }
}

fn options(cwd: &Path) -> AnalyzeOptions {
    AnalyzeOptions::new(gfortran(), cwd)
}

fn analyze(name: &str, text: &str) -> (augur_program::analyze::Analysis, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join(name);
    std::fs::write(&src, text).unwrap();
    let a = augur_program::analyze(&[src], &options(dir.path()))
        .unwrap_or_else(|e| panic!("{name}: analyze failed: {e}"));
    (a, dir)
}

fn nest<'a>(loc: &'a LocalityProfile, unit: &str) -> &'a NestLocality {
    loc.nests
        .iter()
        .find(|n| n.unit == unit)
        .unwrap_or_else(|| panic!("no nest in {unit}: {:#?}", loc.nests))
}

/// The misses of the first nest of `unit`, every access through the exact simulator
/// of a cache of geometry `g`.
fn simulate(an: &augur_program::analyze::Analysis, unit: &str, g: CacheGeometry) -> f64 {
    let nests = extract_nests(&an.program, &an.profile);
    let un = nests
        .iter()
        .find(|u| an.program.units[u.unit].name == unit)
        .unwrap();
    let mut c = Cache::new(g);
    un.nests[0]
        .nest
        .for_each_access(|a| {
            c.access(a);
        })
        .unwrap();
    c.stats().total.misses() as f64
}

/// Line (1-based) of the first line of `text` containing `pat`.
fn line_of(text: &str, pat: &str) -> u32 {
    text.lines().position(|l| l.contains(pat)).expect(pat) as u32 + 1
}

const MATMUL: &str = "\
program mm
  implicit none
  integer, parameter :: n = 128
  real(8), allocatable :: a(:,:), b(:,:), c(:,:)
  allocate(a(n,n), b(n,n), c(n,n))
  call random_number(a)
  call random_number(b)
  c = 0
  call dot(n, a, b, c)
  call saxpy(n, a, b, c)
  call ikj(n, a, b, c)
  print *, c(1,1), c(n,n)
end program mm

subroutine dot(n, a, b, c)
  integer :: n, i, j, k
  real(8) :: a(n,n), b(n,n), c(n,n), s
  do i = 1, n
    do j = 1, n
      s = c(i,j)
      do k = 1, n
        s = s + a(i,k) * b(k,j)
      end do
      c(i,j) = s
    end do
  end do
end subroutine dot

subroutine saxpy(n, a, b, c)
  integer :: n, i, j, k
  real(8) :: a(n,n), b(n,n), c(n,n), r
  do i = 1, n
    do j = 1, n
      r = b(i,j)
      do k = 1, n
        c(k,j) = c(k,j) + a(k,i) * r
      end do
    end do
  end do
end subroutine saxpy

subroutine ikj(n, a, b, c)
  integer :: n, i, j, k
  real(8) :: a(n,n), b(n,n), c(n,n), r
  do i = 1, n
    do k = 1, n
      r = a(i,k)
      do j = 1, n
        c(i,j) = c(i,j) + r * b(k,j)
      end do
    end do
  end do
end subroutine ikj
";

#[test]
fn matmul_dot_misses_more_than_saxpy_and_matches_the_simulator() {
    let (an, _dir) = analyze("mm.f90", MATMUL);
    let loc = an.profile.locality.as_ref().expect("locality analyzed");
    // No spatial sampling; the larger nests are analyzed by a prefix of
    // their outer iterations (the first, then up to the stream budget).
    assert!(loc.nests.iter().all(|n| n.sample_rate == 1.0));
    // n = 128 came from the measured trip counts of `do i = 1, n`.
    assert!(loc
        .assumed_values
        .iter()
        .any(|v| v.unit == "dot" && v.name == "n" && v.value == 128));
    for u in ["dot", "saxpy", "ikj"] {
        let n = nest(loc, u);
        assert_eq!(n.executions, 1.0);
        assert!(!n.approximate);
        let (n3, n2) = (128 * 128 * 128, 128 * 128);
        let want = if u == "dot" {
            2 * n3 + 2 * n2
        } else {
            3 * n3 + n2
        };
        assert_eq!(n.accesses, want, "{u}");
    }
    let l1 = CacheGeometry::new(32 * 1024, 64, 8).unwrap();
    let fa = CacheGeometry::new(32 * 1024, 64, 0).unwrap();
    let predicted = |g: &CacheGeometry, unit: &str| {
        misses(loc, g, None)
            .into_iter()
            .find(|m| m.unit == unit)
            .unwrap()
            .misses
    };
    let simulated = |g: CacheGeometry, unit: &str| simulate(&an, unit, g);
    for u in ["dot", "saxpy", "ikj"] {
        let (p, s) = (predicted(&fa, u), simulated(fa, u));
        println!(
            "{u}: 32 KiB fully associative: predicted {p}, simulated {s}; 8-way: Smith {}, simulated {}",
            predicted(&l1, u),
            simulated(l1, u)
        );
        assert!((p - s).abs() <= 0.01 * s, "{u}: {p} vs {s}");
    }
    // On the 32 KiB 8-way cache the exact simulator sees DOT miss far more
    // than SAXPY: at n = 128 a row of A (128 lines, 1 KiB apart) falls into 4
    // of the 64 sets. These are conflict misses, which a reuse histogram
    // cannot see (the fully associative misses of the two orders are equal)
    // and Smith's random-placement model does not predict.
    let (sd, ss) = (simulated(l1, "dot"), simulated(l1, "saxpy"));
    assert!(sd > 5.0 * ss, "simulated DOT {sd} vs SAXPY {ss}");
    let (dot, saxpy) = (predicted(&l1, "dot"), predicted(&l1, "saxpy"));
    assert!(dot >= saxpy, "DOT {dot} vs SAXPY {saxpy}");
    // Where capacity decides (8 KiB, 8-way: a row of A plus a column of B no
    // longer fit), the histogram shows it: DOT misses on every A access.
    let small = CacheGeometry::new(8 * 1024, 64, 8).unwrap();
    let small_fa = CacheGeometry::new(8 * 1024, 64, 0).unwrap();
    let (dot, saxpy) = (predicted(&small, "dot"), predicted(&small, "saxpy"));
    println!("8 KiB 8-way: DOT {dot}, SAXPY {saxpy}");
    assert!(dot > 3.0 * saxpy, "DOT {dot} vs SAXPY {saxpy}");
    for u in ["dot", "saxpy"] {
        let (p, s) = (predicted(&small_fa, u), simulated(small_fa, u));
        assert!((p - s).abs() <= 0.01 * s, "{u} 8 KiB: {p} vs {s}");
    }
}

const STENCIL: &str = "\
program st
  implicit none
  integer, parameter :: n = 100
  real(8) :: a(n,n), b(n,n)
  integer :: i, j, it
  a = 1
  do it = 1, 5
    do j = 2, n - 1
      do i = 2, n - 1
        b(i,j) = 0.25d0 * (a(i-1,j) + a(i+1,j) + a(i,j-1) + a(i,j+1))
      end do
    end do
    a = b
  end do
  print *, b(2,2)
end program st
";

#[test]
fn stencil_neighbours_reuse_within_a_few_kib() {
    let (an, _dir) = analyze("st.f90", STENCIL);
    let loc = an.profile.locality.as_ref().expect("locality analyzed");
    let line = line_of(STENCIL, "do it = 1");
    let n = loc
        .nests
        .iter()
        .find(|n| n.line == line)
        .unwrap_or_else(|| panic!("no stencil nest: {loc:#?}"));
    // The time loop is the nest, run once; its whole-array assignment is an
    // implicit loop over the 100 x 100 elements inside it.
    assert_eq!(n.executions, 1.0);
    assert_eq!(n.kind, "array_syntax");
    assert!(!loc
        .non_affine
        .iter()
        .any(|r| r.line == line_of(STENCIL, "a = b")));
    let a = n.arrays.iter().find(|a| a.name == "a").unwrap();
    assert_eq!(a.accesses, 5 * (4 * 98 * 98 + 100 * 100));
    assert_eq!(a.elem_bytes, 8);
    // The neighbour references reuse a line within 64 lines (4 KiB): the
    // columns of a and b between a(i,j-1) and its previous use are 4x13 lines. Only
    // the first touch of each line in a time step comes from farther, in the
    // stencil and in the copy `a = b` (b's lines in between): 2 per line and step.
    let near = a.histogram.below(64);
    let far = a.histogram.total() - near - a.histogram.cold;
    let lines = 100 * 100 / 8;
    assert!(a.histogram.cold <= lines, "{}", a.histogram.cold);
    assert!(far <= 2 * 5 * lines, "{near} near, {far} far");
    assert!(near as f64 >= 0.90 * a.accesses as f64, "{near} near");
    assert!(n.footprint_lines > 2400 && n.footprint_lines <= 2500);
}

const GATHER: &str = "\
program g
  implicit none
  integer, parameter :: n = 1000
  real(8) :: x(n), s
  integer :: idx(n), i
  do i = 1, n
    idx(i) = mod(7 * i, n) + 1
    x(i) = i
  end do
  s = 0
  do i = 1, n
    s = s + x(idx(i))
  end do
  print *, s
end program g
";

#[test]
fn indirect_reference_is_reported_as_not_affine() {
    let (an, _dir) = analyze("g.f90", GATHER);
    let loc = an.profile.locality.as_ref().expect("locality analyzed");
    let line = line_of(GATHER, "x(idx(i))");
    let r = loc
        .non_affine
        .iter()
        .find(|r| r.array == "x")
        .unwrap_or_else(|| panic!("no non-affine x: {loc:#?}"));
    assert_eq!(r.line, line);
    assert!(r.reason.contains("indirect"), "{}", r.reason);
    assert!(r.file.ends_with("g.f90"));
    // The rest of the loop (the load of idx) is still analyzed.
    let n = loc.nests.iter().find(|n| n.line == line - 1).unwrap();
    assert_eq!(n.arrays.len(), 1);
    assert_eq!(n.arrays[0].name, "idx");
    assert_eq!(n.arrays[0].footprint_lines, 1000 * 4 / 64 + 1);
    // The profile round-trips through JSON with the field.
    let json = serde_json::to_string(&an.profile).unwrap();
    assert!(json.contains("\"locality\""));
    let mut back: augur_program_profile::ProgramProfile = serde_json::from_str(&json).unwrap();
    // serde_json reads a float back to within its last bit (no `float_roundtrip`): a
    // stream share such as 1724/1750 comes back one ulp away.
    if let Some(b) = back.locality.as_mut() {
        for (r, orig) in b.sampled_refs.iter_mut().zip(&loc.sampled_refs) {
            assert!((r.strided_share - orig.strided_share).abs() <= 1e-12);
            r.strided_share = orig.strided_share;
        }
    }
    assert_eq!(back.locality.as_ref(), Some(loc));
}

/// The cost of the analysis on the corpus' largest matrix program (run with
/// `--ignored --nocapture`).
#[test]
#[ignore]
fn corpus_mm6_locality_cost() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../corpus");
    for name in ["mm6.f90", "stencil3d.f90", "heat3d.f90", "transpose.f90"] {
        let src = root.join(name);
        let dir = tempfile::tempdir().unwrap();
        let t = Instant::now();
        let mut opts = options(dir.path());
        opts.front.load.cpp = true;
        let an = augur_program::analyze(&[src], &opts).unwrap();
        let wall = t.elapsed().as_secs_f64();
        let loc = an.profile.locality.as_ref().unwrap();
        println!(
            "{name}: analyze {wall:.2} s (run {:.2} s), locality {:.2} s, peak {:.1} MB, {} nests, {} accesses, sampled {}, {} non-affine, {} skipped loops",
            an.profile.run.wall_seconds,
            loc.seconds,
            loc.peak_bytes as f64 / 1e6,
            loc.nests.len(),
            loc.accesses,
            loc.sampled,
            loc.non_affine.len(),
            loc.skipped_loops.len()
        );
        let l1 = CacheGeometry::new(32 * 1024, 64, 8).unwrap();
        for (n, m) in loc.nests.iter().zip(misses(loc, &l1, None)) {
            println!(
                "  {}:{} x{} {} accesses, rate {}, L1 misses {:.3e}",
                n.unit, n.line, n.executions, n.accesses, n.sample_rate, m.misses
            );
        }
    }
}

const PAGES_AND_CHASE: &str = "\
program pc
  implicit none
  integer, parameter :: n = 512, m = 4096
  real(8) :: a(n, n), s
  integer :: nxt(m), idx(m), i, j, p
  a = 1.0d0
  s = 0
  do i = 1, n
    do j = 1, n
      s = s + a(i, j)
    end do
  end do
  do i = 1, m
    nxt(i) = mod(i * 37, m) + 1
    idx(i) = mod(i * 101, m) + 1
  end do
  p = 1
  do i = 1, m
    p = nxt(p)
    s = s + nxt(idx(i))
  end do
  print *, s, p
end program pc
";

/// Page histograms: a row walk of a 512 x 512 real(8) array (4 KiB columns) touches a
/// new page at every access and comes back to it after 512 pages; and the address of a
/// pointer chase (`p = nxt(p)`) is marked dependent, a gather's (`nxt(idx(i))`) not.
#[test]
fn page_histograms_and_pointer_chases() {
    let (an, _dir) = analyze("pc.f90", PAGES_AND_CHASE);
    let loc = an.profile.locality.as_ref().expect("locality analyzed");
    let line = line_of(PAGES_AND_CHASE, "do i = 1, n");
    let n = loc
        .nests
        .iter()
        .find(|n| n.line == line)
        .unwrap_or_else(|| panic!("no nest at {line}: {:#?}", loc.nests));
    let a = n.arrays.iter().find(|a| a.name == "a").unwrap();
    assert_eq!(a.footprint_pages, 512, "{a:#?}");
    // The run touched the 2 MiB of `a` (512 pages) for the first time, and little else.
    let pages = an
        .profile
        .run
        .first_touch_pages
        .expect("page faults counted");
    assert!((512..4096).contains(&pages), "{pages}");
    assert_eq!(a.pages.total(), 512 * 512);
    // 512 x 512 accesses, each page reused at a distance of 511 pages (the first use
    // of each since `a = 1.0d0` too): a TLB of 256 entries misses them all, one of 1024
    // none.
    let tlb = |entries| {
        augur_locality::profile::tlb_misses(loc, entries, None)
            .into_iter()
            .find(|m| m.line == line)
            .unwrap()
            .arrays
            .into_iter()
            .find(|x| x.name == "a")
            .unwrap()
            .misses
    };
    assert_eq!(tlb(256), (512 * 512) as f64);
    assert_eq!(tlb(1024), 0.0);
    let chase = loc
        .sampled_refs
        .iter()
        .find(|r| r.reference == "nxt(p)")
        .unwrap_or_else(|| panic!("no sampled nxt(p): {:#?}", loc.sampled_refs));
    assert!(chase.dependent, "{chase:#?}");
    let gather = loc
        .sampled_refs
        .iter()
        .find(|r| r.reference == "nxt(idx(i))")
        .unwrap_or_else(|| panic!("no sampled nxt(idx(i)): {:#?}", loc.sampled_refs));
    assert!(!gather.dependent, "{gather:#?}");
    assert!(gather.span_bytes > 0 && gather.span_bytes <= 4096 * 4);
}

const TWO_SIZES: &str = "\
program two
  implicit none
  real(8) :: a(65536), s
  integer :: k
  a = 1.0d0
  s = 0
  do k = 1, 3
    call walk(a, 1024, 1, s)
  end do
  call walk(a, 65536, 16, s)
  print *, s
end program two

subroutine walk(x, n, st, s)
  integer :: n, st, i
  real(8) :: x(n), s
  do i = 1, n, st
    s = s + x(i)
  end do
end subroutine walk
";

/// A subroutine called with two sizes and strides: the run records both value sets of
/// its nest, and the nest is analyzed once with each (1024 unit-stride accesses over 128
/// lines three times; 4096 accesses a line apart over 512 KiB once), not once with the
/// mean trip count.
#[test]
fn a_nest_run_with_several_sizes_is_analyzed_with_each() {
    let (an, _dir) = analyze("two.f90", TWO_SIZES);
    let loc = an.profile.locality.as_ref().expect("locality analyzed");
    let nv = loc
        .nest_values
        .iter()
        .find(|v| v.unit == "walk")
        .unwrap_or_else(|| panic!("no value sets of walk: {:#?}", loc.nest_values));
    assert_eq!(nv.vars, ["n", "st"]);
    assert_eq!(nv.sets.len(), 2, "{nv:#?}");
    assert_eq!(
        (nv.sets[0].count, &nv.sets[0].values[..]),
        (3, &[1024, 1][..])
    );
    assert_eq!(
        (nv.sets[1].count, &nv.sets[1].values[..]),
        (1, &[65536, 16][..])
    );
    let rows: Vec<_> = loc.nests.iter().filter(|n| n.unit == "walk").collect();
    assert_eq!(rows.len(), 2, "{rows:#?}");
    assert_eq!((rows[0].executions, rows[0].accesses), (3.0, 1024));
    assert_eq!((rows[1].executions, rows[1].accesses), (1.0, 4096));
    assert_eq!(rows[0].footprint_lines, 128);
    assert_eq!(rows[1].footprint_lines, 4096);
}

const SIZE_SWEEP: &str = "\
program sweep
  implicit none
  real(8), allocatable :: a(:), c(:)
  integer :: ln, n, mj, rep
  do ln = 1, 14
    n = 2**ln
    allocate(a(2*n), c(2*n))
    a = 1.0d0
    do rep = 1, max(1, 4096 / n)
      mj = 1
      do while (mj < n)
        call step(n, mj, a, c)
        mj = mj * 2
      end do
    end do
    print *, c(1)
    deallocate(a, c)
  end do
end program sweep

subroutine step(n, mj, a, c)
  integer :: n, mj
  real(8) :: a(2*n), c(2*n)
  integer :: j, k, lj, mj2, jw, jc
  mj2 = 2 * mj
  lj = n / mj2
  do j = 0, lj - 1
    jw = j * mj
    jc = j * mj2
    do k = 0, mj - 1
      c((jc + k) * 2 + 1) = a((jw + k) * 2 + 1)
    end do
  end do
end subroutine step
";

/// An FFT's step over sizes 2 to 2^14, its offsets `j * mj` and `j * mj2` from its
/// arguments: its references are affine (not sampled) with the values each entry ran
/// with; of its 105 value sets, the most frequent the smallest, at most
/// `MAX_VALUE_SETS` are analyzed, the largest size among them, and together they carry
/// every access the run made.
#[test]
fn a_nest_run_with_many_sizes_keeps_the_sizes_its_work_is_at() {
    let (an, _dir) = analyze("sweep.f90", SIZE_SWEEP);
    let loc = an.profile.locality.as_ref().expect("locality analyzed");
    assert!(
        !loc.sampled_refs.iter().any(|r| r.unit == "step"),
        "{:#?}",
        loc.sampled_refs
    );
    let nv = loc.nest_values.iter().find(|v| v.unit == "step").unwrap();
    assert_eq!(nv.sets.len(), 105, "{:?}", nv.vars);
    let rows: Vec<_> = loc.nests.iter().filter(|n| n.unit == "step").collect();
    assert!(
        rows.len() <= augur_program::locality::MAX_VALUE_SETS,
        "{}",
        rows.len()
    );
    assert!(rows.iter().any(|r| r.accesses == 1 << 14), "{rows:#?}");
    let made: f64 = (1..=14)
        .map(|ln: i32| (4096 >> ln).max(1) as f64 * ln as f64 * 2f64.powi(ln))
        .sum();
    let analyzed: f64 = rows.iter().map(|r| r.executions * r.accesses as f64).sum();
    assert!((analyzed - made).abs() < 1e-6 * made, "{analyzed} {made}");
}

const TRANSPOSE: &str = "\
program tr
  implicit none
  integer, parameter :: n = 512
  real(8), allocatable :: a(:,:), b(:,:)
  allocate(a(n,n), b(n,n))
  call random_number(a)
  call bycol(n, a, b)
  print *, b(1,n), b(n,1)
end program tr
subroutine bycol(n, a, b)
  integer :: n, i, j
  real(8) :: a(n,n), b(n,n)
  do j = 1, n
    do i = 1, n
      b(j,i) = a(i,j)
    end do
  end do
end subroutine bycol
";

/// Stores, write-backs and sequential shares of a column-order transpose of a 512 x
/// 512 `real(8)` matrix: `a` is read at unit stride (all of its accesses sequential,
/// never written back), `b` is stored at a stride of 4 KiB. On a fully associative
/// cache of 256 lines every store misses and every residency it begins is written
/// back; on one of 8192 lines the eight stores into a line share a residency (an
/// eighth miss) and the 32768 lines of `b` are written back but for the 4096 still in
/// the cache at the end (the last 8192 lines used are half `a`'s, half `b`'s).
#[test]
fn stores_and_write_backs_of_a_transpose() {
    let (an, _dir) = analyze("tr.f90", TRANSPOSE);
    let loc = an.profile.locality.as_ref().expect("locality analyzed");
    let n = nest(loc, "bycol");
    let a = n.arrays.iter().find(|x| x.name == "a").unwrap();
    let b = n.arrays.iter().find(|x| x.name == "b").unwrap();
    assert_eq!(a.sequential_accesses, Some(a.accesses));
    assert_eq!(b.sequential_accesses, Some(0));
    assert_eq!(b.stores.total(), b.accesses, "every access of b stores");
    assert_eq!(a.stores.total(), 0);
    assert!(a.writebacks.is_empty());
    let full = |lines: u64| CacheGeometry::new(lines * 64, 64, lines as u32).unwrap();
    let at = |lines: u64| {
        let m = misses(loc, &full(lines), None);
        let k = loc.nests.iter().position(|x| x.unit == "bycol").unwrap();
        let arr = |name: &str| m[k].arrays.iter().find(|x| x.name == name).unwrap().clone();
        (arr("a"), arr("b"))
    };
    let accesses = (512 * 512) as f64;
    let (sa, sb) = at(256);
    assert_eq!(sa.writebacks, 0.0);
    assert_eq!(sa.store_misses, 0.0);
    assert!(
        (sb.store_misses - accesses).abs() < 0.01 * accesses,
        "{sb:?}"
    );
    assert!((sb.writebacks - accesses).abs() < 0.01 * accesses, "{sb:?}");
    let (_, lb) = at(8192);
    assert!(
        (lb.store_misses - accesses / 8.0).abs() < 0.02 * accesses / 8.0,
        "{lb:?}"
    );
    let expected = 32768.0 - 4096.0;
    assert!((lb.writebacks - expected).abs() < 0.05 * expected, "{lb:?}");
}

const RECORDS: &str = "\
program rec
  implicit none
  integer, parameter :: n = 4096
  real(8), allocatable :: f(:,:), g(:,:), h(:,:)
  allocate(f(0:8,n), g(0:15,n), h(0:16,n))
  f = 1; g = 2; h = 3
  call fields(n, f, g, h)
  print *, f(1,n), g(1,n), h(1,n)
end program rec
subroutine fields(n, f, g, h)
  integer :: n, i, k
  real(8) :: f(0:8,n), g(0:15,n), h(0:16,n)
  do k = 0, 8
    do i = 1, n
      f(k,i) = f(k,i) + g(k,i) + h(k,i)
    end do
  end do
end subroutine fields
";

/// One field of an array of records at a time: a step of 72 bytes (9 doubles) still
/// touches most lines in order, a stream the prefetchers follow; 128 bytes (16), every
/// other line, is strided.
#[test]
fn a_field_of_short_records_is_a_sequential_stream() {
    let (an, _dir) = analyze("rec.f90", RECORDS);
    let loc = an.profile.locality.as_ref().expect("locality analyzed");
    let n = nest(loc, "fields");
    let array = |name: &str| n.arrays.iter().find(|x| x.name == name).unwrap();
    let f = array("f");
    assert_eq!(f.sequential_accesses, Some(f.accesses));
    for name in ["g", "h"] {
        assert_eq!(array(name).sequential_accesses, Some(0), "{name}");
    }
}

const TRIANGLE: &str = "\
program tri
  implicit none
  integer, parameter :: n = 200, k = 400
  real(8), allocatable :: a(:,:), c(:,:)
  allocate(a(n,k), c(n,n))
  a = 0.5d0
  c = 1.0d0
  call syrk(n, k, a, c)
  print *, sum(c)
end program tri
subroutine syrk(n, k, a, c)
  integer :: n, k, i, j, l
  real(8) :: a(n,k), c(n,n)
  do i = 1, n
    do j = 1, i
      do l = 1, k
        c(i,j) = c(i,j) + a(i,l) * a(j,l)
      end do
    end do
  end do
end subroutine syrk
";

/// A triangular nest too large to stream whole (`DO J = 1, I` inside `DO I`, 48 million
/// accesses) is analyzed by a window from the middle of its outer range: a prefix of
/// its first outer iterations runs the inner loop once or twice over a few rows and
/// saw every reuse of `A` hit (SYRK at n = 800 on a Zen 5: predicted -41%, its misses
/// a twentieth of the real ones). The misses on a 32 KiB fully associative cache, where
/// a row of `A` and the row it meets (800 lines) do not fit, match the exact simulator.
#[test]
fn a_triangular_nest_too_large_to_stream_is_analyzed_from_the_middle_of_its_range() {
    let (an, _dir) = analyze("tri.f90", TRIANGLE);
    let loc = an.profile.locality.as_ref().expect("locality analyzed");
    let n = nest(loc, "syrk");
    assert_eq!(n.accesses, 200 * 201 / 2 * 400 * 4);
    let fa = CacheGeometry::new(32 * 1024, 64, 0).unwrap();
    let predicted = misses(loc, &fa, None)
        .into_iter()
        .find(|m| m.unit == "syrk")
        .unwrap()
        .misses;
    let simulated = simulate(&an, "syrk", fa);
    println!("predicted {predicted}, simulated {simulated}");
    assert!(
        (predicted - simulated).abs() <= 0.1 * simulated,
        "predicted {predicted} vs simulated {simulated}"
    );
}

const GUARDED: &str = "\
program gu
  implicit none
  integer, parameter :: n = 1000
  real(8) :: u(n), snap(n), w(n)
  integer :: it, i
  u = 1.0d0
  snap = 0.0d0
  w = 0.0d0
  do it = 1, 100
    do i = 1, n
      u(i) = 0.5d0 * u(i) + 1.0d0
    end do
    if (mod(it, 10) == 0) then
      do i = 1, n
        snap(i) = snap(i) + u(i)
      end do
      w = w + u
    end if
  end do
  print *, sum(snap) + sum(w)
end program gu
";

#[test]
fn a_loop_an_if_guards_is_streamed_on_its_share_of_the_passes() {
    // The snapshot loop and the array statement after it run in one time step of ten:
    // their arrays are read and written 10 times, not 100 (u: 100 sweeps of the update,
    // 10 of the snapshot, 10 of the statement).
    let (an, _dir) = analyze("gu.f90", GUARDED);
    let loc = an.profile.locality.as_ref().expect("locality analyzed");
    let line = line_of(GUARDED, "do it = 1");
    let n = loc
        .nests
        .iter()
        .find(|n| n.line == line)
        .unwrap_or_else(|| panic!("no time-step nest: {loc:#?}"));
    let accesses = |name: &str| n.arrays.iter().find(|a| a.name == name).unwrap().accesses;
    assert_eq!(accesses("snap"), 10 * 2 * 1000);
    assert_eq!(accesses("w"), 10 * 2 * 1000);
    assert_eq!(accesses("u"), 100 * 2 * 1000 + 10 * 1000 + 10 * 1000);
    assert_eq!(
        n.accesses,
        2 * 10 * 2 * 1000 + 100 * 2 * 1000 + 2 * 10 * 1000
    );
    // The stream the reuse distances come from runs it as often.
    let snap = n.arrays.iter().find(|a| a.name == "snap").unwrap();
    assert_eq!(
        snap.histogram.total(),
        10 * 2 * 1000,
        "{:?}",
        snap.histogram
    );
}

/// A loop of calls, the block pattern of CFD codes: `lhs(:,:,i,j)` passed to a 5x5
/// dummy, an F77 element `u(1,i,j)` to a 5-vector, `rhs(:,i,j)` to an assigned one. The
/// caller's nest reads each call's sections (the callee's own nest sees the same
/// addresses on every call).
#[test]
fn a_loop_of_calls_reads_the_sections_it_passes() {
    let text = "\
module blk
contains
  subroutine matvec(a, v, r)
    real(8), intent(in) :: a(5,5), v(5)
    real(8), intent(inout) :: r(5)
    integer :: i, j
    do j = 1, 5
      do i = 1, 5
        r(i) = r(i) - a(i,j) * v(j)
      end do
    end do
  end subroutine
end module
program calls
  use blk
  implicit none
  integer, parameter :: n = 6
  real(8) :: lhs(5,5,n,n), u(5,n,n), rhs(5,n,n)
  integer :: i, j
  lhs = 0.01d0
  u = 1.0d0
  rhs = 0.0d0
  do j = 1, n
    do i = 1, n
      call matvec(lhs(:,:,i,j), u(1,i,j), rhs(:,i,j))
    end do
  end do
  print *, sum(rhs)
end program calls
";
    let (an, _dir) = analyze("calls.f90", text);
    let loc = an.profile.locality.as_ref().expect("a locality profile");
    let caller = loc
        .nests
        .iter()
        .find(|n| n.unit == "calls" && n.line == line_of(text, "do j = 1, n"))
        .unwrap_or_else(|| panic!("no nest of the calls: {:#?}", loc.nests));
    let mut names: Vec<&str> = caller.arrays.iter().map(|a| a.name.as_str()).collect();
    names.sort_unstable();
    assert_eq!(names, ["lhs", "rhs", "u"], "{:#?}", loc.non_affine);
    // 36 calls: 25 + 5 elements read, 5 read and written.
    assert_eq!(caller.accesses, 36 * (25 + 5 + 10));
}

const TWO_ROWS: &str = "\
program tworows
  implicit none
  integer, parameter :: n = 512, k = 200
  real(8) :: a(n,k), c(n,n)
  integer :: i, j, l
  a = 1.0d0
  c = 0.0d0
  do i = 1, n, 64
    do j = 1, i, 8
      do l = 1, k
        c(i,j) = c(i,j) + a(i,l) * a(j,l)
      end do
    end do
  end do
  print *, c(1,1)
end program tworows
";

#[test]
fn rows_of_a_power_of_two_matrix_reuse_within_their_page_offset_class() {
    // `a(i,l)` and `a(j,l)` walk two rows of 4 KiB columns: every line of a row sits at
    // the same offset inside its page (one class), the other row's at another offset
    // unless i and j share a line. Between two uses of a line of row i, 400 lines;
    // 200 of them its class's.
    let (an, _dir) = analyze("tworows.f90", TWO_ROWS);
    let loc = an.profile.locality.as_ref().expect("locality analyzed");
    let line = line_of(TWO_ROWS, "do i = 1, n, 64");
    let n = loc.nests.iter().find(|n| n.line == line).unwrap();
    let a = n.arrays.iter().find(|a| a.name == "a").unwrap();
    assert_eq!(a.inner_stride_bytes, 4096);
    assert_eq!(a.class_histogram.total(), a.histogram.total());
    let (all, class) = (a.histogram.below(300), a.class_histogram.below(300));
    assert!(
        class as f64 > 0.4 * a.accesses as f64 && all < class / 4,
        "below 300 lines: {all} of all, {class} by class, of {}",
        a.accesses
    );
}

const TIME_STEP: &str = "\
program tstep
  implicit none
  integer, parameter :: n = 64
  real(8) :: a(n,n), b(n,n)
  integer :: i, j, it
  a = 1
  b = 0
  do it = 1, 3
    do j = 1, n
      do i = 2, n
        a(i,j) = a(i,j) + 0.5d0 * a(i-1,j)
      end do
    end do
    do j = 1, n
      do i = 1, n
        b(i,j) = a(j,i)
      end do
    end do
  end do
  print *, b(2,3)
end program tstep
";

#[test]
fn a_time_step_counts_each_sweep_apart() {
    // The step runs a recurrence down a's columns, then a transpose into b: the phases
    // the predictor combines one by one, each with its own accesses; only the
    // transpose walks a strided, a whole line an access.
    let (an, _dir) = analyze("tstep.f90", TIME_STEP);
    let loc = an.profile.locality.as_ref().expect("locality analyzed");
    let n = loc
        .nests
        .iter()
        .find(|n| n.line == line_of(TIME_STEP, "do it = 1"))
        .expect("the time step is a nest");
    let lines: Vec<u32> = n.phases.iter().map(|p| p.line).collect();
    let transpose = line_of(TIME_STEP, "b(i,j) = a(j,i)") - 2;
    assert_eq!(lines, [line_of(TIME_STEP, "do j = 1, n"), transpose]);
    let idx = |name: &str| n.arrays.iter().position(|a| a.name == name).unwrap();
    let (a, b) = (idx("a"), idx("b"));
    let (rec, tr) = (&n.phases[0], &n.phases[1]);
    // Per execution of the nest: 3 steps of 64 x 63 updates (a read twice, written once).
    assert_eq!(rec.accesses[a], 3 * 64 * 63 * 3);
    assert_eq!((rec.accesses[b], rec.strided[a]), (0, 0));
    assert_eq!((tr.accesses[a], tr.strided[a]), (3 * 64 * 64, 3 * 64 * 64));
    assert_eq!((tr.accesses[b], tr.strided[b]), (3 * 64 * 64, 0));
    // A unit-stride real(8) access walks an eighth of a line, a strided one a line.
    assert_eq!(rec.lines[a], 3 * 64 * 63 * 3 / 8);
    assert_eq!((tr.lines[a], tr.lines[b]), (3 * 64 * 64, 3 * 64 * 64 / 8));
}
