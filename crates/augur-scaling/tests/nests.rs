//! Symbolic iteration counts of DO nests against closed forms derived by hand, on
//! programs parsed by the real front end.

use augur_scaling::nest::{self, Count, Env};
use std::io::Write;

/// The innermost loop's symbolic count of the single unit in `body` (a subroutine with
/// integer scalars `n`, `m`).
fn innermost(body: &str) -> Count {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("k.f90");
    let mut f = std::fs::File::create(&path).unwrap();
    write!(
        f,
        "subroutine k(n, m, a)\n  integer :: n, m, i, j, l\n  integer, parameter :: b = 4\n  real :: a(*)\n{body}\nend subroutine k\n"
    )
    .unwrap();
    let program = augur_fortran::analyze(&[path], &Default::default());
    let unit = &program.units[0];
    let deepest = unit.loops.iter().max_by_key(|l| l.depth).unwrap();
    nest::iterations(unit, deepest.id.0).unwrap()
}

fn at(c: &Count, n: i64, m: i64) -> i128 {
    let mut env: Env = [
        ("n".to_string(), n as i128),
        ("m".to_string(), m as i128),
        ("b".to_string(), 4),
    ]
    .into();
    let mut budget = u64::MAX;
    c.enumerate(&mut env, &mut budget).unwrap().unwrap()
}

fn closed_at(c: &Count, n: i64, m: i64) -> i128 {
    let vals = [("n", n), ("m", m), ("b", 4)]
        .iter()
        .map(|(k, v)| (k.to_string(), augur_scaling::poly::q(*v)))
        .collect();
    let v = c.closed().unwrap().eval(&vals).unwrap();
    assert!(v.is_integer());
    v.to_integer().try_into().unwrap()
}

#[test]
fn rectangular_nest_counts_n_times_m() {
    let c = innermost("do i = 1, n\n do j = 2, m - 1\n a(j) = 0\n end do\n end do");
    assert_eq!(c.closed().unwrap().to_string(), "m*n - 2*n");
    for (n, m) in [(10, 7), (33, 100), (1, 2)] {
        assert_eq!(at(&c, n, m), (n * (m - 2).max(0)) as i128);
    }
}

#[test]
fn triangular_nest_counts_n_n_minus_1_over_2() {
    let c = innermost("do i = 1, n\n do j = i + 1, n\n a(j) = 0\n end do\n end do");
    assert_eq!(c.closed().unwrap().to_string(), "n^2/2 - n/2");
    for n in [1, 2, 17, 1000] {
        assert_eq!(at(&c, n, 0), (n * (n - 1) / 2) as i128);
        assert_eq!(closed_at(&c, n, 0), (n * (n - 1) / 2) as i128);
    }
}

#[test]
fn three_deep_simplex_counts_n_n1_n2_over_6() {
    let c =
        innermost("do i = 1, n\n do j = 1, i\n do l = j, i\n a(l) = 0\n end do\n end do\n end do");
    // sum_{i<=n} sum_{j<=i} (i - j + 1) = sum_i i(i+1)/2 = n(n+1)(n+2)/6
    for n in [1, 5, 40] {
        let want = (n * (n + 1) * (n + 2) / 6) as i128;
        assert_eq!(at(&c, n, 0), want);
        assert_eq!(closed_at(&c, n, 0), want);
    }
}

#[test]
fn strided_loops_count_by_the_fortran_trip_formula() {
    let c = innermost("do i = 1, n, 2\n do j = n, 1, -3\n a(j) = 0\n end do\n end do");
    assert!(
        c.closed().is_none(),
        "a step of 2 has no polynomial closed form"
    );
    for n in [1, 2, 9, 10, 100] {
        let want = ((n + 1) / 2) * ((n + 2) / 3);
        assert_eq!(at(&c, n, 0), want as i128, "n={n}");
    }
}

#[test]
fn min_and_max_bounds_follow_the_cases() {
    // sum_{i=1}^{n} min(i, m) = m(m+1)/2 + (n - m) m when n >= m, n(n+1)/2 otherwise.
    let c = innermost("do i = 1, n\n do j = 1, min(i, m)\n a(j) = 0\n end do\n end do");
    assert!(c.closed().is_none());
    for (n, m) in [(100, 30), (10, 30), (64, 64)] {
        let want = if n >= m {
            m * (m + 1) / 2 + (n - m) * m
        } else {
            n * (n + 1) / 2
        };
        assert_eq!(at(&c, n, m), want as i128, "n={n} m={m}");
    }
    // Tiles of b (a named constant): every i once, whatever n.
    let t = innermost("do j = 1, n, b\n do i = j, min(j + b - 1, n)\n a(i) = 0\n end do\n end do");
    for n in [1, 4, 5, 103] {
        assert_eq!(at(&t, n, 0), n as i128);
    }
    // max(1, i - m) .. i: a band of width m + 1 clipped at 1.
    let band = innermost("do i = 1, n\n do j = max(1, i - m), i\n a(j) = 0\n end do\n end do");
    for (n, m) in [(50, 3), (5, 10)] {
        let want: i64 = (1..=n).map(|i| i - (i - m).max(1) + 1).sum();
        assert_eq!(at(&band, n, m), want as i128);
    }
}

#[test]
fn bounds_read_from_input_are_names_valued_per_run() {
    // `n` read at run time: the count is a formula in n, valued with what the run read.
    let c = innermost("read (*, *) l\n do i = 1, n / 2\n do j = 1, n\n a(j) = 0\n end do\n end do");
    assert_eq!(at(&c, 7, 0), 21);
    assert_eq!(at(&c, 8, 0), 32);
}

#[test]
fn bounds_the_sums_cannot_follow_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("k.f90");
    std::fs::write(
        &path,
        "subroutine k(n, idx, a)\n integer :: n, i, j, idx(*)\n real :: a(*)\n do i = 1, n\n do j = 1, idx(i)\n a(j) = 0\n end do\n end do\nend subroutine k\n",
    )
    .unwrap();
    let program = augur_fortran::analyze(&[path], &Default::default());
    let unit = &program.units[0];
    let inner = unit.loops.iter().max_by_key(|l| l.depth).unwrap();
    assert!(nest::iterations(unit, inner.id.0).is_none());
}
