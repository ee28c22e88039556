//! Indirect measurement (Saavedra-Barrera's indirect test, digest 001 §4.3 and §4.7):
//! experiments that differ in one count (iterations per loop entry, elements per
//! statement, items per I/O statement) give points `(x_i, y_i)` on the line
//! `y = c0 + c1 x`, solved by weighted least squares. Each `y_i` is the mean of an
//! experiment's observations with variance `v_i` (of the mean); the weights are `1 / v_i`
//! and the parameters' variances are the diagonal of `(Xᵀ W X)⁻¹`, which is the
//! propagation of the experiments' variances through the solution (eq. 2.8-2.9 generalized
//! to more than two experiments).

/// A fitted line with the variances of its coefficients.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Line {
    /// Intercept.
    pub c0: f64,
    /// Slope.
    pub c1: f64,
    /// Variance of the intercept.
    pub var0: f64,
    /// Variance of the slope.
    pub var1: f64,
}

/// Weighted least squares through `(x, y, variance of y)` points; `None` with fewer than
/// two distinct abscissas. Zero variances are replaced by a tiny one (equal weights among
/// them).
pub fn line(points: &[(f64, f64, f64)]) -> Option<Line> {
    let (mut s, mut sx, mut sxx, mut sy, mut sxy) = (0.0, 0.0, 0.0, 0.0, 0.0);
    for &(x, y, v) in points {
        let w = 1.0 / v.max(1e-30);
        s += w;
        sx += w * x;
        sxx += w * x * x;
        sy += w * y;
        sxy += w * x * y;
    }
    let d = s * sxx - sx * sx;
    if points.len() < 2 || !d.is_finite() || d <= 1e-12 * s * sxx {
        return None;
    }
    Some(Line {
        c0: (sxx * sy - sx * sxy) / d,
        c1: (s * sxy - sx * sy) / d,
        var0: sxx / d,
        var1: s / d,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_line_and_variances_by_hand() {
        // y = 2 + 3x at x = 0, 1, 2 with unit variances: S = 3, Sx = 3, Sxx = 5, D = 6.
        let l = line(&[(0.0, 2.0, 1.0), (1.0, 5.0, 1.0), (2.0, 8.0, 1.0)]).unwrap();
        assert!((l.c0 - 2.0).abs() < 1e-12 && (l.c1 - 3.0).abs() < 1e-12);
        assert!((l.var0 - 5.0 / 6.0).abs() < 1e-12);
        assert!((l.var1 - 3.0 / 6.0).abs() < 1e-12);
    }

    #[test]
    fn two_points_reduce_to_saavedra_differences() {
        // B1 at x = 1, B2 at x = 2: slope = B2 - B1 with variance v1 + v2 (eq. 2.9),
        // intercept = 2 B1 - B2 with variance 4 v1 + v2 (eq. 2.8).
        let l = line(&[(1.0, 10.0, 0.5), (2.0, 13.0, 2.0)]).unwrap();
        assert!((l.c1 - 3.0).abs() < 1e-9 && (l.c0 - 7.0).abs() < 1e-9);
        assert!((l.var1 - 2.5).abs() < 1e-9);
        assert!((l.var0 - 4.0).abs() < 1e-9);
    }

    #[test]
    fn weights_favour_precise_points() {
        // A far-off imprecise point barely moves the line.
        let l = line(&[
            (1.0, 1.0, 1e-4),
            (2.0, 2.0, 1e-4),
            (3.0, 3.0, 1e-4),
            (4.0, 9.0, 1e4),
        ])
        .unwrap();
        assert!((l.c1 - 1.0).abs() < 1e-3, "{l:?}");
        assert!(line(&[(1.0, 1.0, 1.0), (1.0, 2.0, 1.0)]).is_none());
        assert!(line(&[(1.0, 1.0, 1.0)]).is_none());
    }
}
