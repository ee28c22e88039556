//! Small dense linear algebra: least squares by Householder QR, the inverse of a symmetric
//! positive definite matrix by Cholesky, and non-negative least squares (Lawson and
//! Hanson's active-set algorithm, *Solving Least Squares Problems*, 1974, ch. 23).
//!
//! Matrices are row-major `Vec<Vec<f64>>` (rows of equal length); the systems here have
//! at most a few hundred rows and a hundred columns.

/// Least squares `min |A[:, cols] z - b|` by Householder QR. `None` when the selected
/// columns are (numerically) rank deficient.
pub fn lstsq(a: &[Vec<f64>], b: &[f64], cols: &[usize]) -> Option<Vec<f64>> {
    let m = a.len();
    let n = cols.len();
    if n == 0 {
        return Some(vec![]);
    }
    if m < n {
        return None;
    }
    // Column-major copy of the selected columns.
    let mut q: Vec<Vec<f64>> = cols
        .iter()
        .map(|&c| a.iter().map(|r| r[c]).collect())
        .collect();
    let mut y = b.to_vec();
    let scale = q
        .iter()
        .map(|c| c.iter().map(|v| v * v).sum::<f64>().sqrt())
        .fold(0.0f64, f64::max);
    if scale == 0.0 {
        return None;
    }
    let mut diag = vec![0.0; n];
    for k in 0..n {
        let norm = q[k][k..].iter().map(|v| v * v).sum::<f64>().sqrt();
        let colnorm = q[k].iter().map(|v| v * v).sum::<f64>().sqrt();
        if norm <= 1e-10 * colnorm.max(1e-300) || norm <= 1e-13 * scale {
            return None;
        }
        let alpha = if q[k][k] > 0.0 { -norm } else { norm };
        // v = x - alpha e1, stored in q[k][k..].
        q[k][k] -= alpha;
        let vnorm2: f64 = q[k][k..].iter().map(|v| v * v).sum();
        diag[k] = alpha;
        if vnorm2 == 0.0 {
            continue;
        }
        let (left, right) = q.split_at_mut(k + 1);
        let v = &left[k][k..];
        for col in right.iter_mut() {
            let dot: f64 = v.iter().zip(&col[k..]).map(|(a, b)| a * b).sum();
            let f = 2.0 * dot / vnorm2;
            for (c, vi) in col[k..].iter_mut().zip(v) {
                *c -= f * vi;
            }
        }
        let dot: f64 = v.iter().zip(&y[k..]).map(|(a, b)| a * b).sum();
        let f = 2.0 * dot / vnorm2;
        for (c, vi) in y[k..].iter_mut().zip(v) {
            *c -= f * vi;
        }
    }
    // Back substitution with R (diag on the diagonal, q[j][i] above it).
    let mut z = vec![0.0; n];
    for i in (0..n).rev() {
        let mut s = y[i];
        for j in i + 1..n {
            s -= q[j][i] * z[j];
        }
        z[i] = s / diag[i];
    }
    if z.iter().all(|v| v.is_finite()) {
        Some(z)
    } else {
        None
    }
}

/// The inverse of a symmetric positive definite matrix by Cholesky; `None` if it is not
/// positive definite.
#[allow(clippy::needless_range_loop)] // triangular index loops read best as written
pub fn spd_inverse(m: &[Vec<f64>]) -> Option<Vec<Vec<f64>>> {
    let n = m.len();
    let mut l = vec![vec![0.0; n]; n];
    for i in 0..n {
        for j in 0..=i {
            let s: f64 = (0..j).map(|k| l[i][k] * l[j][k]).sum();
            if i == j {
                let d = m[i][i] - s;
                if d <= 1e-14 * m[i][i].abs().max(1e-300) {
                    return None;
                }
                l[i][i] = d.sqrt();
            } else {
                l[i][j] = (m[i][j] - s) / l[j][j];
            }
        }
    }
    // Inverse of L, then L^-T L^-1.
    let mut li = vec![vec![0.0; n]; n];
    for c in 0..n {
        for i in c..n {
            let mut s = if i == c { 1.0 } else { 0.0 };
            for k in c..i {
                s -= l[i][k] * li[k][c];
            }
            li[i][c] = s / l[i][i];
        }
    }
    let mut inv = vec![vec![0.0; n]; n];
    for i in 0..n {
        for j in 0..=i {
            let s: f64 = (i.max(j)..n).map(|k| li[k][i] * li[k][j]).sum();
            inv[i][j] = s;
            inv[j][i] = s;
        }
    }
    Some(inv)
}

/// Non-negative least squares: `min |A x - b|` subject to `x >= 0` (Lawson-Hanson).
/// Columns that are exactly zero stay at 0. Returns `x` (length = columns of `a`).
pub fn nnls(a: &[Vec<f64>], b: &[f64]) -> Vec<f64> {
    nnls_from(a, b, &[])
}

/// [`nnls`] started from `start` (a feasible point, e.g. the solution of a system one row
/// longer: a leave-one-out fit then takes a step or two instead of building its positive
/// set column by column). The same minimum; an empty or wrongly sized `start` starts from 0.
pub fn nnls_from(a: &[Vec<f64>], b: &[f64], start: &[f64]) -> Vec<f64> {
    let n = a.first().map_or(0, Vec::len);
    let warm = start.len() == n && start.iter().all(|v| v.is_finite() && *v >= 0.0);
    let mut x = if warm { start.to_vec() } else { vec![0.0; n] };
    if n == 0 {
        return x;
    }
    let mut passive: Vec<bool> = x.iter().map(|&v| v > 0.0).collect();
    let scale = b.iter().map(|v| v.abs()).fold(0.0, f64::max).max(1e-300)
        * a.iter()
            .flat_map(|r| r.iter())
            .map(|v| v.abs())
            .fold(0.0, f64::max)
            .max(1e-300);
    let tol = 1e-12 * scale * a.len() as f64;
    let gradient = |x: &[f64]| -> Vec<f64> {
        let r: Vec<f64> = a
            .iter()
            .zip(b)
            .map(|(row, bi)| bi - row.iter().zip(x).map(|(p, q)| p * q).sum::<f64>())
            .collect();
        (0..n)
            .map(|j| a.iter().zip(&r).map(|(row, ri)| row[j] * ri).sum())
            .collect()
    };
    let mut refused = vec![false; n];
    // A warm start first solves on its own positive set (no column newly added: `n`).
    let mut first = passive.iter().any(|&p| p).then_some(n);
    for _outer in 0..3 * n + 10 {
        let t = match first.take() {
            Some(t) => t,
            None => {
                let w = gradient(&x);
                let t = (0..n)
                    .filter(|&j| !passive[j] && !refused[j] && w[j] > tol)
                    .max_by(|&i, &j| w[i].total_cmp(&w[j]));
                let Some(t) = t else { break };
                passive[t] = true;
                t
            }
        };
        for _inner in 0..3 * n + 10 {
            let cols: Vec<usize> = (0..n).filter(|&j| passive[j]).collect();
            let Some(z) = lstsq(a, b, &cols) else {
                if t == n {
                    // The warm start's set is dependent here: start from 0 instead.
                    return nnls_from(a, b, &[]);
                }
                // The new column is dependent on the passive set: refuse it.
                passive[t] = false;
                refused[t] = true;
                break;
            };
            if z.iter().all(|&v| v > 0.0) {
                for (&c, &v) in cols.iter().zip(&z) {
                    x[c] = v;
                }
                break;
            }
            // Step towards z until a passive variable hits zero.
            let mut alpha = f64::INFINITY;
            for (&c, &v) in cols.iter().zip(&z) {
                if v <= 0.0 {
                    let d = x[c] - v;
                    if d > 0.0 {
                        alpha = alpha.min(x[c] / d);
                    } else {
                        alpha = 0.0f64.min(alpha);
                    }
                }
            }
            if !alpha.is_finite() {
                alpha = 0.0;
            }
            for (&c, &v) in cols.iter().zip(&z) {
                x[c] += alpha * (v - x[c]);
                if x[c] <= 1e-15 * (1.0 + v.abs()) || (v <= 0.0 && alpha == 0.0) {
                    x[c] = 0.0;
                    passive[c] = false;
                }
            }
            if !passive.iter().any(|&p| p) {
                break;
            }
        }
        // A refused column may become acceptable once the passive set changes.
        if refused.iter().any(|&r| r) && passive.iter().filter(|&&p| p).count() == 0 {
            refused.iter_mut().for_each(|r| *r = false);
        }
    }
    x
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-9 * (1.0 + b.abs())
    }

    #[test]
    fn lstsq_solves_overdetermined_systems() {
        let a = vec![
            vec![1.0, 0.0],
            vec![0.0, 1.0],
            vec![1.0, 1.0],
            vec![2.0, 1.0],
        ];
        let x = [3.0, -2.0];
        let b: Vec<f64> = a.iter().map(|r| r[0] * x[0] + r[1] * x[1]).collect();
        let z = lstsq(&a, &b, &[0, 1]).unwrap();
        assert!(close(z[0], 3.0) && close(z[1], -2.0), "{z:?}");
        // Rank deficient: the same column twice.
        let a2: Vec<Vec<f64>> = a.iter().map(|r| vec![r[0], r[0]]).collect();
        assert!(lstsq(&a2, &b, &[0, 1]).is_none());
    }

    #[test]
    fn nnls_matches_least_squares_when_the_solution_is_positive() {
        let a = vec![
            vec![1.0, 2.0, 0.5],
            vec![0.0, 1.0, 1.0],
            vec![3.0, 0.0, 1.0],
            vec![1.0, 1.0, 1.0],
            vec![2.0, 0.5, 0.0],
        ];
        let x = [0.7, 1.3, 2.1];
        let b: Vec<f64> = a
            .iter()
            .map(|r| r.iter().zip(&x).map(|(p, q)| p * q).sum())
            .collect();
        let z = nnls(&a, &b);
        for (zi, xi) in z.iter().zip(&x) {
            assert!(close(*zi, *xi), "{z:?}");
        }
    }

    #[test]
    fn nnls_clamps_negative_components() {
        // The unconstrained solution is (1, -1); the constrained one has x2 = 0.
        let a = vec![vec![1.0, 0.0], vec![0.0, 1.0], vec![1.0, 1.0]];
        let b = vec![1.0, -1.0, 0.0];
        let z = nnls(&a, &b);
        assert!(z[1] == 0.0, "{z:?}");
        // With x2 = 0: min (x1-1)^2 + x1^2 -> x1 = 0.5.
        assert!(close(z[0], 0.5), "{z:?}");
        assert!(z.iter().all(|&v| v >= 0.0));
    }

    #[test]
    fn a_warm_start_reaches_the_same_minimum_with_a_row_left_out() {
        // Pseudo-random systems (a linear congruential sequence) whose solutions have zero
        // and positive components; each row left out in turn, started from the whole fit.
        let mut seed = 12345u64;
        let mut next = || {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 11) as f64 / (1u64 << 53) as f64
        };
        for _ in 0..20 {
            let (m, n) = (40, 8);
            let a: Vec<Vec<f64>> = (0..m)
                .map(|_| {
                    (0..n)
                        .map(|_| if next() < 0.4 { 0.0 } else { next() })
                        .collect()
                })
                .collect();
            let b: Vec<f64> = (0..m).map(|_| next() - 0.2).collect();
            let whole = nnls(&a, &b);
            for left in 0..m {
                let rows: Vec<Vec<f64>> = (0..m)
                    .filter(|&i| i != left)
                    .map(|i| a[i].clone())
                    .collect();
                let rhs: Vec<f64> = (0..m).filter(|&i| i != left).map(|i| b[i]).collect();
                let cold = nnls(&rows, &rhs);
                let warm = nnls_from(&rows, &rhs, &whole);
                for (c, w) in cold.iter().zip(&warm) {
                    assert!((c - w).abs() <= 1e-9 * (1.0 + c.abs()), "{cold:?} {warm:?}");
                }
            }
        }
    }

    #[test]
    fn nnls_all_zero_when_b_is_negative() {
        let a = vec![vec![1.0, 2.0], vec![2.0, 1.0]];
        let z = nnls(&a, &[-1.0, -1.0]);
        assert_eq!(z, vec![0.0, 0.0]);
    }

    #[test]
    #[allow(clippy::needless_range_loop)]
    fn spd_inverse_inverts() {
        let m = vec![
            vec![4.0, 1.0, 0.5],
            vec![1.0, 3.0, 0.2],
            vec![0.5, 0.2, 2.0],
        ];
        let inv = spd_inverse(&m).unwrap();
        for i in 0..3 {
            for j in 0..3 {
                let s: f64 = (0..3).map(|k| m[i][k] * inv[k][j]).sum();
                assert!(close(s, if i == j { 1.0 } else { 0.0 }), "{s}");
            }
        }
        assert!(spd_inverse(&[vec![1.0, 1.0], vec![1.0, 1.0]]).is_none());
    }
}
