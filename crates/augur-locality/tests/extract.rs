//! Extraction of affine nests from small Fortran programs.

mod common;

use augur_locality::extract::ExtractOptions;
use augur_locality::{Access, Affine, Cache, CacheGeometry, Loop, Nest, Ref};
use common::extract;
use std::collections::HashMap;

fn stream(n: &Nest) -> Vec<Access> {
    let mut v = Vec::new();
    n.for_each_access(|a| v.push(a)).unwrap();
    v
}

const ORDERS: [&str; 6] = ["ijk", "ikj", "jik", "jki", "kij", "kji"];

fn matmul(order: &str) -> String {
    let mut loops = String::new();
    let mut ends = String::new();
    for v in order.chars() {
        loops += &format!("  do {v} = 1, n\n");
        ends += "  end do\n";
    }
    format!(
        "program t\n  integer, parameter :: n = 16\n  real(8) :: a(n,n), b(n,n), c(n,n)\n  integer :: i, j, k\n{loops}    c(i,j) = c(i,j) + a(i,k)*b(k,j)\n{ends}end program t\n"
    )
}

#[test]
fn matrix_multiply_in_six_orders() {
    let n = 16i64;
    let mut misses = HashMap::new();
    for order in ORDERS {
        let ex = extract(&matmul(order), &ExtractOptions::default());
        assert!(ex.skipped.is_empty(), "{order}: {:?}", ex.skipped);
        assert_eq!(ex.nests.len(), 1, "{order}");
        let nest = &ex.nests[0];
        assert!(nest.non_affine.is_empty(), "{:?}", nest.non_affine);
        assert!(nest.approximate_loops.is_empty());
        let names: Vec<&str> = nest.nest.arrays.iter().map(|a| a.name.as_str()).collect();
        assert_eq!(names, ["a", "b", "c"]);
        assert!(nest.nest.arrays.iter().all(|a| a.elem_bytes == 8));
        // The same stream as the nest written by hand: load c, a, b; store c.
        let var = |ch: char| Affine::var(order.find(ch).unwrap());
        let (i, j, k) = (var('i'), var('j'), var('k'));
        let inner = vec![
            Ref::read(2, vec![i.clone(), j.clone()]),
            Ref::read(0, vec![i.clone(), k.clone()]),
            Ref::read(1, vec![k.clone(), j.clone()]),
            Ref::write(2, vec![i, j]),
        ];
        let mut body = inner;
        for v in order.chars().rev() {
            body = vec![Loop::node(
                &v.to_string(),
                Affine::constant(1),
                Affine::constant(n),
                body,
            )];
        }
        let hand = Nest {
            arrays: nest.nest.arrays.clone(),
            body,
        };
        let got = stream(&nest.nest);
        assert_eq!(got.len() as i64, 4 * n * n * n);
        assert_eq!(got, stream(&hand), "{order}");
        // A small direct-mapped cache separates the orders.
        let mut c = Cache::new(CacheGeometry::new(1024, 32, 1).unwrap());
        for a in got {
            c.access(a);
        }
        misses.insert(order, c.stats().total.misses());
    }
    // Inner loop over i (column order) is the best, over j the worst.
    assert!(misses["jki"] < misses["ijk"], "{misses:?}");
    assert!(misses["kji"] < misses["ikj"], "{misses:?}");
}

const STENCIL: &str = "program t
  integer :: n, i, j, it
  real(8), allocatable :: a(:,:)
  real(8) :: u(0:513, 0:513), v(0:513, 0:513)
  read *, n
  do it = 1, 10
    do j = 1, n
      do i = 1, n
        v(i,j) = 0.25d0*(u(i-1,j) + u(i+1,j) + u(i,j-1) + u(i,j+1))
      end do
    end do
  end do
end program t
";

#[test]
fn stencil_needs_a_value_or_a_trip_count() {
    let ex = extract(STENCIL, &ExtractOptions::default());
    assert!(ex.nests.is_empty());
    assert!(
        ex.skipped.iter().any(|s| s.reason.contains("`n`")),
        "{:?}",
        ex.skipped
    );
    // With n given.
    let mut opts = ExtractOptions::default();
    opts.values.insert("n".into(), 128);
    let ex = extract(STENCIL, &opts);
    assert_eq!(ex.nests.len(), 1, "{:?}", ex.skipped);
    let nest = &ex.nests[0].nest;
    assert_eq!(nest.access_count().unwrap(), 10 * 128 * 128 * 5);
    let u = nest.arrays.iter().find(|a| a.name == "u").unwrap();
    assert_eq!(
        (u.lower.clone(), u.extents.clone()),
        (vec![0, 0], vec![514, 514])
    );
    // u(i-1,j) is the first access: base + 8*((1-1-0) + 514*(1-0)).
    let first = stream_first(nest);
    assert_eq!(first.addr, u.base + 8 * 514);
    // With measured trip counts instead: same number of accesses.
    let mut opts = ExtractOptions::default();
    let ids = loop_ids(STENCIL);
    for id in &ids[1..] {
        opts.trips.insert(*id, 128.0);
    }
    let ex = extract(STENCIL, &opts);
    assert_eq!(ex.nests.len(), 1);
    assert_eq!(ex.nests[0].approximate_loops.len(), 2);
    assert_eq!(ex.nests[0].nest.access_count().unwrap(), 10 * 128 * 128 * 5);
}

fn stream_first(n: &Nest) -> Access {
    let mut first = None;
    n.for_each_access(|a| {
        first.get_or_insert(a);
    })
    .unwrap();
    first.unwrap()
}

fn loop_ids(src: &str) -> Vec<u32> {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.f90");
    std::fs::write(&path, src).unwrap();
    let program = augur_fortran::analyze(&[path], &Default::default());
    program.units[0].loops.iter().map(|l| l.id.0).collect()
}

#[test]
fn transposed_copy_triangular_and_indirect() {
    let src = "program t
  integer, parameter :: n = 8
  real :: a(n,n), b(n,n), x(100), y(n)
  integer :: idx(n), i, j
  do i = 1, n
    do j = 1, n
      b(j,i) = a(i,j)
    end do
  end do
  do i = 1, n
    do j = i, n
      a(i,j) = 0.0
    end do
  end do
  do i = 1, n
    y(i) = x(idx(i)) + x(2*i+1)
    call foo(a(1,i))
  end do
  do while (n > 0)
    y(1) = 0
  end do
end program t
";
    let ex = extract(src, &ExtractOptions::default());
    assert_eq!(ex.nests.len(), 3, "{:?}", ex.skipped);
    assert_eq!(ex.skipped.len(), 1);
    assert!(ex.skipped[0].reason.contains("not a counted"));
    // Transposed copy: the load walks a by columns, the store b by rows.
    let s = stream(&ex.nests[0].nest);
    assert_eq!(s.len(), 128);
    let a = &ex.nests[0].nest.arrays[0];
    assert_eq!(a.name, "a");
    assert_eq!(s[0].addr, a.base);
    assert_eq!(s[2].addr, a.base + 4 * 8);
    assert!(s[1].write && s[3].write);
    assert_eq!(s[3].addr - s[1].addr, 4);
    // Triangular: n(n+1)/2 stores.
    assert_eq!(ex.nests[1].nest.access_count().unwrap(), 36);
    // Indirect: idx(i) and x(2*i+1) and y(i) are affine, x(idx(i)) and the
    // CALL argument are not.
    let third = &ex.nests[2];
    assert_eq!(third.nest.access_count().unwrap(), 3 * 8);
    let mut reasons: Vec<(String, String)> = third
        .non_affine
        .iter()
        .map(|r| (r.array.clone(), r.reason.clone()))
        .collect();
    reasons.sort();
    assert_eq!(reasons.len(), 2, "{reasons:?}");
    assert_eq!(reasons[0].0, "a");
    assert!(reasons[0].1.contains("procedure the program does not hold"));
    assert_eq!(reasons[1].0, "x");
    assert!(reasons[1].1.contains("indirect"), "{reasons:?}");
}

/// A loop whose step changes inside the nest (a sieve's `DO J = I*I, N, I` inside a
/// GOTO loop over `I`) keeps its trip count from the profile, but the references in its
/// index have no known addresses: they are left out as not affine (the instrumented run
/// samples them), while the references outside it stay in the nest.
#[test]
fn a_step_that_changes_leaves_its_references_out() {
    let src = "program t
  integer, parameter :: n = 1000
  logical :: p(n)
  integer :: i, j, k
  do k = 1, 3
    do j = 1, n
      p(j) = .true.
    end do
    i = 2
10  if (i * i > n) goto 20
    do j = i * i, n, i
      p(j) = .false.
    end do
    i = i + 1
    goto 10
20  continue
  end do
end program t
";
    let ids = loop_ids(src);
    let mut opts = ExtractOptions::default();
    for id in &ids {
        opts.trips.insert(*id, 100.0);
    }
    let ex = extract(src, &opts);
    assert_eq!(ex.nests.len(), 1, "{:?}", ex.skipped);
    let nest = &ex.nests[0];
    assert!(
        nest.non_affine.iter().any(|r| r.array == "p"
            && r.line == 12
            && r.reason
                .contains("loop over `j` starts or steps by values that move")),
        "{:?}",
        nest.non_affine
    );
    // The first loop's stores remain: 3 passes of n.
    assert_eq!(nest.nest.access_count().unwrap(), 3 * 1000);
}

/// A compressed sparse row's inner loop starts where the row pointer says
/// (`DO K = ROWPTR(I), ROWPTR(I+1)-1`, and the same through a scalar the nest assigns
/// from it): each row continues where the one before ended, so the references in its
/// index are left out as not affine (the instrumented run samples them) rather than
/// placed at the same few lines every row; the row loop's own store stays. A start read
/// at a constant subscript is the same at every entry and keeps the approximation.
#[test]
fn a_loop_that_starts_where_the_data_says_leaves_its_references_out() {
    let src = "program t
  integer, parameter :: n = 1000
  integer :: rowptr(n+1), col(5*n), i, k, k0
  real(8) :: val(5*n), x(n), y(n), s
  do i = 1, n
    s = 0
    do k = rowptr(i), rowptr(i+1) - 1
      s = s + val(k) * x(col(k))
    end do
    y(i) = s
  end do
  do i = 1, n
    k0 = rowptr(i)
    do k = k0, k0 + 4
      y(i) = y(i) + val(k)
    end do
  end do
  do i = 1, n
    do k = rowptr(1), rowptr(2) - 1
      y(i) = y(i) + val(k)
    end do
  end do
end program t
";
    let ids = loop_ids(src);
    let mut opts = ExtractOptions::default();
    for id in &ids {
        opts.trips.insert(*id, 5.0);
    }
    let ex = extract(src, &opts);
    assert_eq!(ex.nests.len(), 3, "{:?}", ex.skipped);
    // A start at a constant subscript is the same every entry: the nest keeps `val`.
    let same_start = &ex.nests[2];
    assert!(
        same_start.non_affine.is_empty(),
        "{:?}",
        same_start.non_affine
    );
    assert!(same_start.nest.arrays.iter().any(|a| a.name == "val"));
    for (nest, line) in ex.nests.iter().zip([8, 15]) {
        assert!(
            nest.non_affine.iter().any(|r| r.array == "val"
                && r.line == line
                && r.reason
                    .contains("loop over `k` starts or steps by values that move")),
            "{:?}",
            nest.non_affine
        );
        let stays = nest.nest.arrays.iter().any(|a| a.name == "y");
        assert!(stays, "{:?}", nest.nest.arrays);
        assert!(nest.nest.arrays.iter().all(|a| a.name != "val"));
    }
}

#[test]
fn a_scalar_defined_once_from_the_outer_index_is_substituted() {
    // `lag` is set once per `l` before the inner loop: `y(i + lag)` is the affine
    // stream `y(i + 97*l - 97)`. `m` changes inside the loop that reads it after its
    // definition (it is assigned twice), `k` is defined after its use in the loop
    // body, and `s` in a loop beside the one that reads it: those stay out.
    let src = "program t
  integer, parameter :: n = 4096
  real(8) :: x(n), y(n), z(n), s8
  integer :: i, l, lag, m, k, s
  s8 = 0
  m = 1
  do l = 1, 8
    lag = (l - 1) * 97
    do i = 1, n - lag
      s8 = s8 + x(i) * y(i + lag)
    end do
    do i = 1, 10
      s8 = s8 + z(i + k)
    end do
    k = l
    do i = 1, 10
      s = i
    end do
    do i = 1, 10
      s8 = s8 + z(i + s) + z(i + m)
    end do
    m = m + 1
  end do
  print *, s8
end program t
";
    let ex = extract(src, &ExtractOptions::default());
    assert_eq!(ex.nests.len(), 1, "{:?}", ex.skipped);
    let nest = &ex.nests[0];
    assert!(
        !nest.non_affine.iter().any(|r| r.array == "y"),
        "{:?}",
        nest.non_affine
    );
    let rejected: Vec<(u32, &str)> = nest
        .non_affine
        .iter()
        .map(|r| (r.line, r.array.as_str()))
        .collect();
    assert_eq!(
        rejected,
        [(13, "z"), (20, "z"), (20, "z")],
        "{:?}",
        nest.non_affine
    );
    // The first y access of pass l is y(1 + 97(l-1)): the nest's stream reads it.
    let y = nest.nest.arrays.iter().find(|a| a.name == "y").unwrap();
    let ys: Vec<u64> = stream(&nest.nest)
        .iter()
        .filter(|a| {
            a.array as usize == nest.nest.arrays.iter().position(|a| a.name == "y").unwrap()
        })
        .map(|a| a.addr)
        .collect();
    let total: i64 = (1..=8).map(|l| 4096 - (l - 1) * 97).sum();
    assert_eq!(ys.len() as i64, total);
    assert_eq!(ys[0], y.base);
    assert_eq!(ys[4096], y.base + 8 * 97);
}

/// A loop of calls: the element `lhs(1,1,2,i)` passed to a 5x5 dummy stands for
/// `lhs(:,:,2,i)` (sequence association), `rhs(1,i)` to an assigned `r(5)` for
/// `rhs(1:5,i)` read and written, `s(i)` to an assigned scalar for one element read and
/// written; a section larger than a first-level cache and the arguments of a procedure
/// the program does not hold stay out of the nest.
#[test]
fn a_call_reads_the_section_each_dummy_covers_and_writes_the_assigned_ones() {
    use augur_locality::extract::DummyUse;
    let src = "program t\n  real(8) :: lhs(5,5,3,40), rhs(5,40), s(40), big(5000,40)\n  integer :: i\n  do i = 1, 40\n    call blk(lhs(1,1,2,i), rhs(1,i), s(i))\n    call col(big(:,i))\n    call ext(rhs(1,i))\n  end do\nend program t\n";
    let dummy = |array, elements, written| DummyUse {
        array,
        elements,
        written,
    };
    let mut opts = ExtractOptions::default();
    opts.callees.insert(
        "blk".into(),
        vec![
            dummy(true, Some(25), false),
            dummy(true, Some(5), true),
            dummy(false, Some(1), true),
        ],
    );
    opts.callees
        .insert("col".into(), vec![dummy(true, Some(5000), false)]);
    let ex = extract(src, &opts);
    assert_eq!(ex.nests.len(), 1, "{:?}", ex.skipped);
    let nest = &ex.nests[0];
    let mut left_out: Vec<(&str, &str)> = nest
        .non_affine
        .iter()
        .map(|r| (r.array.as_str(), r.reason.as_str()))
        .collect();
    left_out.sort();
    assert_eq!(left_out.len(), 2, "{left_out:?}");
    assert_eq!(left_out[0].0, "big");
    assert!(left_out[0].1.contains("40000 bytes"), "{left_out:?}");
    assert_eq!(
        left_out[1],
        (
            "rhs",
            "element or section passed to a procedure the program does not hold"
        )
    );
    let id = |name: &str| {
        nest.nest
            .arrays
            .iter()
            .position(|a| a.name == name)
            .unwrap() as u32
    };
    let accesses = stream(&nest.nest);
    let count = |name: &str, write: bool| {
        accesses
            .iter()
            .filter(|a| a.array == id(name) && a.write == write)
            .count()
    };
    assert_eq!((count("lhs", false), count("lhs", true)), (1000, 0));
    assert_eq!((count("rhs", false), count("rhs", true)), (200, 200));
    assert_eq!((count("s", false), count("s", true)), (40, 40));
    // Every element of lhs read is one of the blocks lhs(:,:,2,i), each once.
    let lhs = &nest.nest.arrays[id("lhs") as usize];
    let mut seen: Vec<u64> = accesses
        .iter()
        .filter(|a| a.array == id("lhs"))
        .map(|a| (a.addr - lhs.base) / 8)
        .collect();
    assert!(seen.iter().all(|e| (e / 25) % 3 == 1), "{seen:?}");
    seen.sort_unstable();
    seen.dedup();
    assert_eq!(seen.len(), 1000);
}

/// An FFT step's offsets: `jw = j * mj` (a coefficient the nest does not change, its
/// value at the nest's entry), `ja = jw` (a definition read through another) and
/// `jc = j * mj2` make `a` and `c` affine once the run gives `mj` (`mj2` from its own
/// definition when not given); `jm = j * m` with `m` changed inside the nest stays out.
#[test]
fn offsets_from_an_invariant_coefficient_and_through_another_definition_are_substituted() {
    let src = "subroutine t(n, mj, a, b, c)
  integer :: n, mj
  real(8) :: a(2*n), b(2*n), c(2*n)
  integer :: j, k, lj, mj2, jw, ja, jc, jm, m
  mj2 = 2 * mj
  lj = n / mj2
  m = 1
  do j = 0, lj - 1
    jw = j * mj
    ja = jw
    jc = j * mj2
    jm = j * m
    do k = 0, mj - 1
      c((jc + k) * 2 + 1) = a((ja + k) * 2 + 1) + b(jm + k + 1)
    end do
    m = m + 1
  end do
end subroutine t
";
    let values = |pairs: &[(&str, i64)]| ExtractOptions {
        values: pairs.iter().map(|(n, v)| (n.to_string(), *v)).collect(),
        ..Default::default()
    };
    let ex = extract(src, &values(&[("n", 16), ("mj", 2), ("mj2", 4), ("lj", 4)]));
    assert_eq!(ex.nests.len(), 1, "{:?}", ex.skipped);
    let nest = &ex.nests[0];
    let rejected: Vec<&str> = nest.non_affine.iter().map(|r| r.array.as_str()).collect();
    assert_eq!(rejected, ["b"], "{:?}", nest.non_affine);
    let offsets = |name: &str| -> Vec<u64> {
        let id = nest
            .nest
            .arrays
            .iter()
            .position(|a| a.name == name)
            .unwrap();
        let base = nest.nest.arrays[id].base;
        stream(&nest.nest)
            .iter()
            .filter(|x| x.array as usize == id)
            .map(|x| x.addr - base)
            .collect()
    };
    assert_eq!(offsets("a"), (0..8).map(|i| 16 * i).collect::<Vec<u64>>());
    assert_eq!(offsets("c"), [0, 16, 64, 80, 128, 144, 192, 208]);
    // `mj2` not recorded: its definition outside the nest, `2 * mj`, gives it.
    let ex = extract(src, &values(&[("n", 16), ("mj", 2), ("lj", 4)]));
    let rejected: Vec<&str> = ex.nests[0]
        .non_affine
        .iter()
        .map(|r| r.array.as_str())
        .collect();
    assert_eq!(rejected, ["b"]);
}

/// A definition in a loop before the nest read the index of that loop: what it last
/// computed is not what the index holds at the nest's entry (one step past the end), so
/// `a(j + lag)` stays out even when the run gives `i`'s value.
#[test]
fn a_definition_from_an_earlier_loops_index_is_not_substituted() {
    let src = "subroutine t(n, a)
  integer :: n, i, j, lag
  real(8) :: a(4*n)
  do i = 1, n
    lag = 2 * i
  end do
  do j = 1, n
    a(j + lag) = 0
  end do
end subroutine t
";
    let opts = ExtractOptions {
        values: [("n".to_string(), 8), ("i".to_string(), 9)].into(),
        ..Default::default()
    };
    let ex = extract(src, &opts);
    let rejected: Vec<&str> = ex
        .nests
        .iter()
        .flat_map(|n| &n.non_affine)
        .map(|r| r.array.as_str())
        .collect();
    assert_eq!(rejected, ["a"], "{:?}", ex.nests);
}
