//! Models of a quantity observed at a few values of the scale variable: exact
//! polynomials (verified on at least one run more than they need) and Extra-P's normal
//! form `c0 + c1 · n^i · log2(n)^j` chosen by leave-one-out cross-validation.

use crate::poly::{q, Poly, Q};
pub use augur_program_profile::scaling::PowerLaw;
use num_traits::{ToPrimitive, Zero};

/// The polynomial of least degree in `var` through every `(xs[k], ys[k])`, of degree at
/// most `len − 2` so that at least one observation checks it: `None` when there is none.
pub fn exact_polynomial(xs: &[i64], ys: &[Q], var: &str) -> Option<Poly> {
    if xs.len() != ys.len() || xs.len() < 2 {
        return None;
    }
    for degree in 0..=xs.len() - 2 {
        let p = interpolate(&xs[..=degree], &ys[..=degree], var);
        let at = |x: i64| {
            let m = [(var.to_string(), q(x))].into_iter().collect();
            p.eval(&m)
        };
        if xs.iter().zip(ys).all(|(x, y)| at(*x).as_ref() == Some(y)) {
            return Some(p);
        }
    }
    None
}

/// Lagrange's polynomial through the points.
fn interpolate(xs: &[i64], ys: &[Q], var: &str) -> Poly {
    let mut out = Poly::zero();
    for (i, (xi, yi)) in xs.iter().zip(ys).enumerate() {
        let mut term = Poly::constant(yi.clone());
        for (j, xj) in xs.iter().enumerate() {
            if i != j {
                let factor = Poly::var(var).sub(&Poly::int(*xj));
                term = term
                    .mul(&factor)
                    .scale(&(Q::from_integer(1.into()) / q(xi - xj)));
            }
        }
        out = out.add(&term);
    }
    out
}

/// The exponents Extra-P searches (`i` as numerator/denominator).
const EXPONENTS: [(u32, u32); 19] = [
    (0, 1),
    (1, 4),
    (1, 3),
    (1, 2),
    (2, 3),
    (3, 4),
    (1, 1),
    (5, 4),
    (4, 3),
    (3, 2),
    (5, 3),
    (7, 4),
    (2, 1),
    (9, 4),
    (7, 3),
    (5, 2),
    (8, 3),
    (11, 4),
    (3, 1),
];

/// Least-squares `c0 + c1 · f` through the points (`f` the term's values).
fn least_squares(fs: &[f64], ys: &[f64]) -> Option<(f64, f64)> {
    let n = fs.len() as f64;
    let (mf, my) = (fs.iter().sum::<f64>() / n, ys.iter().sum::<f64>() / n);
    let sff: f64 = fs.iter().map(|f| (f - mf) * (f - mf)).sum();
    if sff <= f64::EPSILON * mf.abs().max(1.0) {
        return None;
    }
    let sfy: f64 = fs.iter().zip(ys).map(|(f, y)| (f - mf) * (y - my)).sum();
    let c1 = sfy / sff;
    Some((my - c1 * mf, c1))
}

/// The model of `ys` observed at `xs` (at least 3 points, `xs > 1`) in Extra-P's normal
/// form with the least leave-one-out error; a constant when the observations agree.
pub fn fit_power_law(xs: &[f64], ys: &[f64]) -> Option<PowerLaw> {
    if xs.len() < 3 || xs.len() != ys.len() || xs.iter().any(|x| *x <= 1.0) {
        return None;
    }
    let rel = |pred: f64, y: f64| (pred - y) / y.abs().max(1.0);
    let mean = ys.iter().sum::<f64>() / ys.len() as f64;
    let constant_cv = (0..xs.len())
        .map(|k| {
            let rest: Vec<f64> = ys
                .iter()
                .enumerate()
                .filter(|(i, _)| *i != k)
                .map(|(_, y)| *y)
                .collect();
            rel(rest.iter().sum::<f64>() / rest.len() as f64, ys[k]).powi(2)
        })
        .sum::<f64>();
    let mut best = PowerLaw {
        c0: mean,
        c1: 0.0,
        i_num: 0,
        i_den: 1,
        j: 0,
        cv_error: (constant_cv / xs.len() as f64).sqrt(),
    };
    for &(i_num, i_den) in &EXPONENTS {
        for j in 0..=2u32 {
            if i_num == 0 && j == 0 {
                continue;
            }
            let fs: Vec<f64> = xs
                .iter()
                .map(|x| PowerLaw::term(i_num, i_den, j, *x))
                .collect();
            let Some(cv) = leave_one_out(&fs, ys, rel) else {
                continue;
            };
            // Ties go to the simpler model found first.
            if cv < best.cv_error * (1.0 - 1e-9) {
                let (c0, c1) = least_squares(&fs, ys)?;
                best = PowerLaw {
                    c0,
                    c1,
                    i_num,
                    i_den,
                    j,
                    cv_error: cv,
                };
            }
        }
    }
    Some(best)
}

/// Root mean square of the relative errors of each point predicted by the fit of the
/// others.
fn leave_one_out(fs: &[f64], ys: &[f64], rel: impl Fn(f64, f64) -> f64) -> Option<f64> {
    let mut sq = 0.0;
    for k in 0..fs.len() {
        let (f, y): (Vec<f64>, Vec<f64>) = fs
            .iter()
            .zip(ys)
            .enumerate()
            .filter(|(i, _)| *i != k)
            .map(|(_, (f, y))| (*f, *y))
            .unzip();
        let (c0, c1) = least_squares(&f, &y)?;
        sq += rel(c0 + c1 * fs[k], ys[k]).powi(2);
    }
    Some((sq / fs.len() as f64).sqrt())
}

/// A polynomial in one variable evaluated at `x` as a float (for reporting), or `None`.
pub fn poly_at(p: &Poly, var: &str, x: i64) -> Option<f64> {
    let m = [(var.to_string(), q(x))].into_iter().collect();
    let v = p.eval(&m)?;
    if v.is_zero() {
        return Some(0.0);
    }
    v.to_f64()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_affine_count_is_found_exactly_and_checked() {
        let ys: Vec<Q> = [10i64, 15, 20].iter().map(|v| q(*v)).collect();
        let p = exact_polynomial(&[20, 30, 40], &ys, "n").unwrap();
        assert_eq!(p.to_string(), "n/2");
        let bent: Vec<Q> = [10i64, 15, 21].iter().map(|v| q(*v)).collect();
        assert_eq!(exact_polynomial(&[20, 30, 40], &bent, "n"), None);
    }

    #[test]
    fn extra_p_finds_n_log_n() {
        let xs = [32.0, 64.0, 128.0, 256.0];
        let ys: Vec<f64> = xs.iter().map(|n: &f64| 7.0 + 3.0 * n * n.log2()).collect();
        let m = fit_power_law(&xs, &ys).unwrap();
        assert_eq!((m.i_num, m.i_den, m.j), (1, 1, 1), "{m:?}");
        assert!(m.cv_error < 1e-9);
        let at = 4096.0_f64;
        assert!((m.eval(at) - (7.0 + 3.0 * at * at.log2())).abs() < 1e-6 * at * 12.0);
    }

    #[test]
    fn extra_p_keeps_a_constant_constant() {
        let m = fit_power_law(&[16.0, 32.0, 64.0], &[5.0, 5.0, 5.0]).unwrap();
        assert_eq!(m.c1, 0.0);
        assert_eq!(m.eval(1e6), 5.0);
    }
}
