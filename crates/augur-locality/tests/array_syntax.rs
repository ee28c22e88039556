//! Whole-array statements and array sections as implicit loop nests
//! (column-major, first subscript innermost), with hand-computed accesses
//! and misses.

mod common;

use augur_locality::extract::{extract_unit, ExtractOptions};
use augur_locality::{Cache, CacheGeometry, ReuseAnalyzer, ReuseConfig};
use common::extract;
use std::collections::HashMap;

/// Misses of the whole stream of a nest on a cache.
fn cache_misses(n: &augur_locality::Nest, g: CacheGeometry) -> u64 {
    let mut c = Cache::new(g);
    n.for_each_access(|a| {
        c.access(a);
    })
    .unwrap();
    let t = &c.stats().total;
    t.read_misses + t.write_misses
}

/// The most frequent step (bytes) between consecutive accesses of a nest inside
/// `[base, base + bytes)`, and every step's count.
fn most_frequent_step(n: &augur_locality::Nest, base: u64, bytes: u64) -> (i64, HashMap<i64, u64>) {
    let mut previous: Option<u64> = None;
    let mut steps = HashMap::new();
    n.for_each_access(|a| {
        if a.addr >= base && a.addr < base + bytes {
            if let Some(p) = previous {
                *steps.entry(a.addr as i64 - p as i64).or_insert(0u64) += 1;
            }
            previous = Some(a.addr);
        }
    })
    .unwrap();
    let step = steps.iter().max_by_key(|(_, &c)| c).map_or(0, |(&s, _)| s);
    (step, steps)
}

#[test]
fn whole_array_copy_of_known_size() {
    // a = b over 4096 doubles (32 KiB each): 4096 loads and 4096 stores, and
    // on a cache far smaller than the arrays every line misses once:
    // 2 * 4096 * 8 / 64 = 1024 misses; on one holding both, the same (cold).
    let ex = extract(
        "program t\n  integer, parameter :: n = 4096\n  real(8) :: a(n), b(n)\n  b = 1\n  a = b\n  print *, a(1)\nend program t\n",
        &ExtractOptions::default(),
    );
    let copy = ex
        .nests
        .iter()
        .find(|n| n.line == 5)
        .unwrap_or_else(|| panic!("no nest at line 5: {:?}", ex));
    assert!(copy.array_syntax);
    assert!(copy.non_affine.is_empty(), "{:?}", copy.non_affine);
    assert_eq!(copy.nest.access_count().unwrap(), 2 * 4096);
    let small = CacheGeometry {
        size_bytes: 4096,
        line_bytes: 64,
        ways: 8,
    };
    assert_eq!(cache_misses(&copy.nest, small), 1024);
    // The reuse histogram says the same: 1024 cold lines, the other 7 of
    // every 8 accesses at distance 0 (same line as the access before).
    let mut an = ReuseAnalyzer::new(ReuseConfig::default());
    an.run_nest(&copy.nest).unwrap();
    let h = an.report().total();
    assert_eq!(h.cold, 1024);
    assert_eq!(h.misses_fully_associative(64) as u64, 1024);
}

#[test]
fn sections_in_a_do_loop_are_inner_levels() {
    // DO j: c(2:n-1, j) = 0.5 * (c(1:n-2, j) + c(3:n, j)), n = 100, 10 columns:
    // 98 elements per column, three references each.
    let ex = extract(
        "program t\n  integer, parameter :: n = 100\n  real(8) :: c(n, 10)\n  integer :: j\n  c = 1\n  do j = 1, 10\n    c(2:n-1, j) = 0.5d0 * (c(1:n-2, j) + c(3:n, j))\n  end do\n  print *, c(2,2)\nend program t\n",
        &ExtractOptions::default(),
    );
    let n = ex.nests.iter().find(|n| n.line == 6).expect("DO nest");
    assert!(n.array_syntax);
    assert!(n.non_affine.is_empty(), "{:?}", n.non_affine);
    assert_eq!(n.nest.access_count().unwrap(), 10 * 98 * 3);
    // Column-major: the first access of column j reads c(1, j), byte
    // 8 * (j - 1) * 100 from the base.
    let mut first = None;
    n.nest
        .for_each_access(|a| {
            first.get_or_insert(a.addr);
        })
        .unwrap();
    assert_eq!(first, Some(n.nest.arrays[0].base));
}

#[test]
fn allocatable_arrays_use_the_recorded_shape() {
    let src = "program t\n  real(8), allocatable :: u(:,:), v(:,:)\n  allocate(u(64, 32), v(64, 32))\n  u = 1\n  v(:, 2:31) = u(:, 1:30) + u(:, 3:32)\n  print *, v(1,2)\nend program t\n";
    // Without shapes: not modelled, and said so.
    let ex = extract(src, &ExtractOptions::default());
    assert!(ex.nests.iter().all(|n| n.nest.access_count().unwrap() == 0));
    // With the shapes the run records.
    let mut shapes = HashMap::new();
    shapes.insert("u".to_string(), vec![(1, 64), (1, 32)]);
    shapes.insert("v".to_string(), vec![(1, 64), (1, 32)]);
    let opts = ExtractOptions {
        shapes,
        ..Default::default()
    };
    let ex = extract(src, &opts);
    let whole = ex.nests.iter().find(|n| n.line == 4).expect("u = 1");
    assert_eq!(whole.nest.access_count().unwrap(), 64 * 32);
    let sec = ex.nests.iter().find(|n| n.line == 5).expect("section");
    assert_eq!(sec.nest.access_count().unwrap(), 3 * 64 * 30);
    // The section streams 62 columns of u and 30 of v: 64 doubles = 8 lines
    // per column, every line cold on a small cache.
    let small = CacheGeometry {
        size_bytes: 4096,
        line_bytes: 64,
        ways: 8,
    };
    // u(:, 1:30) and u(:, 3:32) share columns 3..30 (28 columns) only
    // within 2 columns (1 KiB): they hit; u has 32 distinct columns, v 30.
    assert_eq!(cache_misses(&sec.nest, small), (32 + 30) * 8);
}

#[test]
fn measured_element_count_must_agree() {
    // The static extents (n = 50) disagree with the measured elements per
    // execution (a different n at run time): not modelled, with the reason.
    let src = "program t\n  integer, parameter :: n = 50\n  real(8) :: a(n), b(n)\n  b = 2\n  a = b\n  print *, a(1)\nend program t\n";
    let program = {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.f90");
        std::fs::write(&path, src).unwrap();
        augur_fortran::analyze(&[path], &Default::default())
    };
    let unit = &program.units[0];
    let elem = unit
        .loops
        .iter()
        .find(|l| l.kind == augur_ir::LoopKind::ArrayElements && l.span.start.line == 5)
        .expect("element loop of line 5");
    let mut trips = HashMap::new();
    trips.insert(elem.id.0, 70.0);
    let ex = extract_unit(
        unit,
        &ExtractOptions {
            trips,
            ..Default::default()
        },
    );
    let n = ex.nests.iter().find(|n| n.line == 5).expect("nest");
    assert_eq!(n.nest.access_count().unwrap(), 0);
    assert!(
        n.non_affine.iter().any(|r| r.reason.contains("measured")),
        "{:?}",
        n.non_affine
    );
}

#[test]
fn reductions_read_their_argument_once() {
    // s = sum(a) + maxval(abs(b)) inside a DO: one streaming read of each.
    let ex = extract(
        "program t\n  integer, parameter :: n = 256\n  real(8) :: a(n), b(n), s\n  integer :: k\n  a = 1\n  b = 2\n  s = 0\n  do k = 1, 3\n    s = s + sum(a) + maxval(abs(b))\n  end do\n  print *, s\nend program t\n",
        &ExtractOptions::default(),
    );
    let n = ex.nests.iter().find(|n| n.line == 8).expect("DO nest");
    assert!(n.array_syntax);
    assert_eq!(n.nest.access_count().unwrap(), 3 * 2 * 256);
}

#[test]
fn a_transposed_operand_strides_along_the_first_dimension() {
    // b = b + transpose(t) over 512 x 512 doubles: the compiler reads t in place, t(j, i)
    // for b(i, j), so t's consecutive accesses are a column (4 KiB) apart: on a cache of
    // 32 lines every access of t misses (262,144), while b's lines each miss once (32,768).
    let ex = extract(
        "program t\n  integer, parameter :: n = 512\n  real(8) :: b(n, n), t(n, n)\n  b = 0\n  t = 1\n  b = b + transpose(t)\n  print *, b(1, 2)\nend program t\n",
        &ExtractOptions::default(),
    );
    let n = ex
        .nests
        .iter()
        .find(|n| n.line == 6)
        .expect("the statement's nest");
    assert!(n.array_syntax && n.non_affine.is_empty(), "{n:?}");
    assert_eq!(n.nest.access_count().unwrap(), 3 * 512 * 512);
    let t_base = n.nest.arrays[1].base.max(n.nest.arrays[0].base);
    let (step, steps) = most_frequent_step(&n.nest, t_base, 512 * 512 * 8);
    assert_eq!(step, 512 * 8, "t read along its rows: {steps:?}");
    let tiny = CacheGeometry {
        size_bytes: 32 * 64,
        line_bytes: 64,
        ways: 32,
    };
    assert!(cache_misses(&n.nest, tiny) >= 512 * 512 + 512 * 512 / 8);
}

#[test]
fn a_section_placed_where_the_loop_computes_it_takes_the_shape_of_its_other_operand() {
    // prk_transpose_mpi's step: `b(:, lo:hi) = b(:, lo:hi) + transpose(t)` with `lo` and `hi`
    // set in the loop from `mod(me + q, np)` (assigned twice in the unit, so no single
    // definition to substitute): the statement's shape is `transpose(t)`'s, 64 x 64, and
    // `b`'s section starts at its first column. Four passes over the loop of two blocks.
    let ex = extract(
        "program t
  integer, parameter :: n = 64, np = 2
  real(8) :: a(n, n * np), b(n, n * np), t(n, n)
  integer :: k, q, lo, hi, me
  me = 0
  b = 0
  t = 1
  lo = 1
  hi = n
  a(:, lo:hi) = 1
  do k = 1, 4
    do q = 0, np - 1
      lo = n * mod(me + q, np) + 1
      hi = n * (mod(me + q, np) + 1)
      b(:, lo:hi) = b(:, lo:hi) + transpose(t)
    end do
  end do
  print *, b(1, 2), a(1, 1)
end program t
",
        &ExtractOptions::default(),
    );
    let n = ex
        .nests
        .iter()
        .find(|n| n.line == 11)
        .unwrap_or_else(|| panic!("the loop's nest: {ex:#?}"));
    assert!(n.array_syntax, "{n:?}");
    assert!(
        n.non_affine.iter().all(|x| x.line != 15),
        "{:?}",
        n.non_affine
    );
    // Each execution reads b and t and writes b, 64 x 64 elements, 8 executions.
    assert_eq!(n.nest.access_count().unwrap(), 3 * 64 * 64 * 8);
    // t is read along its rows: a column (512 bytes) between consecutive reads.
    let t_base = n.nest.arrays.iter().find(|a| a.name == "t").unwrap().base;
    let (step, steps) = most_frequent_step(&n.nest, t_base, 64 * 64 * 8);
    assert_eq!(step, 64 * 8, "{steps:?}");
}
