//! Statistics of observations (Saavedra-Barrera §2.6.3-2.6.5, digest 001 §4.5-4.7).
//!
//! An experiment's observations are per-iteration times. A parameter is a difference of
//! means (body loop minus reference loop), possibly minus other parameters (composite
//! tests), divided by the operations per iteration; the variances of independent terms add
//! (eq. 2.5-2.6). The 90% confidence half-width is `t_.95(df) * sd / sqrt(R)` (eq. 2.7).

use statrs::distribution::{ContinuousCDF, StudentsT};

pub use augur_toolchain::experiment::Sample;

/// A derived parameter: an estimate with the standard deviation of one observation and the
/// number of observations it rests on.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Estimate {
    /// The estimate.
    pub mean: f64,
    /// The standard deviation of one observation of it (variances of terms added).
    pub sd: f64,
    /// Observations per term (the smallest, when terms differ).
    pub n: usize,
}

impl Estimate {
    /// `(a - b) / div`, with `σ² = (σa² + σb²) / div²` (eq. 2.5-2.6; independent terms).
    pub fn difference(a: &Sample, b: &Sample, div: f64) -> Estimate {
        Estimate {
            mean: (a.mean - b.mean) / div,
            sd: (a.var() + b.var()).sqrt() / div.abs(),
            n: a.n.min(b.n),
        }
    }

    /// Paired difference `(a_k - b_k) / div`: the mean and standard deviation of the
    /// per-observation differences. Each observation times both loops back to back with the
    /// same iteration count, so the pairs are the independent units and slow drifts common
    /// to both loops cancel. Falls back to [`Estimate::difference`] when the lengths differ.
    pub fn paired(a: &[f64], b: &[f64], div: f64) -> Estimate {
        if a.len() != b.len() {
            return Estimate::difference(&Sample::of(a), &Sample::of(b), div);
        }
        let d: Vec<f64> = a.iter().zip(b).map(|(x, y)| (x - y) / div).collect();
        let s = Sample::of(&d);
        Estimate {
            mean: s.mean,
            sd: s.sd.abs(),
            n: s.n,
        }
    }

    /// Composite test: `(self - Σ c_i p_i) / div`. The variances of the means add,
    /// `Var = (σ²/n + Σ c_i² σ_i²/n_i) / div²`; the result carries the smallest `n` (a
    /// conservative number of degrees of freedom) and the standard deviation that gives that
    /// variance of the mean at that `n`, so its interval is the propagated one even when the
    /// terms rest on different numbers of observations.
    pub fn composite(&self, terms: &[(f64, Estimate)], div: f64) -> Estimate {
        let per = |sd: f64, n: usize| sd * sd / (n.max(1) as f64);
        let mut mean = self.mean;
        let mut var_mean = per(self.sd, self.n);
        let mut n = self.n;
        for (c, p) in terms {
            mean -= c * p.mean;
            var_mean += c * c * per(p.sd, p.n);
            n = n.min(p.n);
        }
        Estimate {
            mean: mean / div,
            sd: (var_mean * n.max(1) as f64).sqrt() / div.abs(),
            n,
        }
    }

    /// The 90% confidence half-width `t_.95(n-1) * sd / sqrt(n)` (eq. 2.7); infinite for
    /// fewer than two observations.
    pub fn ci90(&self) -> f64 {
        ci90_half_width(self.sd, self.n)
    }

    /// Whether the parameter is below the noise floor: the 90% interval includes 0, or the
    /// mean is below `floor` (e.g. the timer resolution's share of one operation).
    pub fn not_detected(&self, floor: f64) -> bool {
        let hw = self.ci90();
        let low = self.mean - hw;
        low.is_nan() || low <= 0.0 || self.mean < floor
    }
}

/// Outlier rule for disturbed observations: the indices of the pairs to keep. Interrupts,
/// preemption and page faults only ever add time to a loop, so a pair is dropped when its
/// reference or its measured time is a far-out high value of its loop (Tukey's outer fence,
/// above `Q3 + 3 IQR` of that loop's times). Low values are never dropped, and with fewer
/// than 8 pairs (quartiles too rough) every pair is kept.
pub fn undisturbed(reference: &[f64], body: &[f64]) -> Vec<usize> {
    let n = reference.len().min(body.len());
    if n < 8 {
        return (0..n).collect();
    }
    let fence = |xs: &[f64]| {
        let mut v: Vec<f64> = xs[..n].to_vec();
        v.sort_by(|a, b| a.total_cmp(b));
        let q = |p: f64| {
            let h = p * (n - 1) as f64;
            let lo = h.floor() as usize;
            v[lo] + (h - lo as f64) * (v[(lo + 1).min(n - 1)] - v[lo])
        };
        let (q1, q3) = (q(0.25), q(0.75));
        q3 + 3.0 * (q3 - q1)
    };
    let (fr, fb) = (fence(reference), fence(body));
    (0..n)
        .filter(|&k| reference[k] <= fr && body[k] <= fb)
        .collect()
}

/// The 95th percentile of Student's t with `df` degrees of freedom.
pub fn t95(df: usize) -> f64 {
    match StudentsT::new(0.0, 1.0, df as f64) {
        Ok(t) => t.inverse_cdf(0.95),
        Err(_) => f64::INFINITY,
    }
}

/// The 90% confidence half-width of a mean of `n` observations with standard deviation `sd`.
pub fn ci90_half_width(sd: f64, n: usize) -> f64 {
    if n < 2 {
        return f64::INFINITY;
    }
    t95(n - 1) * sd / (n as f64).sqrt()
}

/// The median of `xs` (NaN for none): the experiment harness's.
pub use augur_toolchain::experiment::median;

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol
    }

    #[test]
    fn mean_and_sd_by_hand() {
        // 2, 4, 4, 4, 5, 5, 7, 9: mean 5, squared deviations sum 32, sd = sqrt(32/7).
        let s = Sample::of(&[2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0]);
        assert_eq!(s.mean, 5.0);
        assert!(close(s.sd, (32.0f64 / 7.0).sqrt(), 1e-12));
        assert_eq!(s.n, 8);
        assert_eq!(Sample::of(&[3.0]).sd, 0.0);
        assert!(Sample::of(&[]).mean.is_nan());
    }

    #[test]
    fn student_t_quantiles() {
        // Table values: t_.95 with 4 df = 2.132, 9 df = 1.833, 1 df = 6.314.
        assert!(close(t95(4), 2.1318, 1e-3));
        assert!(close(t95(9), 1.8331, 1e-3));
        assert!(close(t95(1), 6.3138, 1e-3));
    }

    #[test]
    fn difference_adds_variances() {
        // body: 10, 12 -> mean 11, sd sqrt(2); ref: 1, 3 -> mean 2, sd sqrt(2).
        let b = Sample::of(&[10.0, 12.0]);
        let r = Sample::of(&[1.0, 3.0]);
        let d = Estimate::difference(&b, &r, 3.0);
        assert!(close(d.mean, 3.0, 1e-12));
        // sqrt(2 + 2) / 3 = 2/3.
        assert!(close(d.sd, 2.0 / 3.0, 1e-12));
        assert_eq!(d.n, 2);
    }

    #[test]
    fn composite_subtracts_and_adds_variances() {
        let raw = Estimate {
            mean: 10.0,
            sd: 3.0,
            n: 5,
        };
        let other = Estimate {
            mean: 2.0,
            sd: 2.0,
            n: 5,
        };
        // (10 - 2*2) / 2 = 3; var = (9 + 4*4) / 4 = 25/4 -> sd 2.5.
        let p = raw.composite(&[(2.0, other)], 2.0);
        assert!(close(p.mean, 3.0, 1e-12));
        assert!(close(p.sd, 2.5, 1e-12));
        assert_eq!(p.n, 5);
        // Different n: Var of the mean = 9/5 + 4*4/20; expressed at n = 5.
        let other20 = Estimate { n: 20, ..other };
        let q = raw.composite(&[(2.0, other20)], 2.0);
        assert!(close(
            q.sd,
            (5.0f64 * (9.0 / 5.0 + 16.0 / 20.0)).sqrt() / 2.0,
            1e-12
        ));
    }

    #[test]
    fn paired_difference_uses_per_observation_differences() {
        // Differences 8, 8, 8 (common drift cancels): sd 0.
        let p = Estimate::paired(&[10.0, 11.0, 12.0], &[2.0, 3.0, 4.0], 2.0);
        assert!(close(p.mean, 4.0, 1e-12));
        assert!(close(p.sd, 0.0, 1e-12));
        assert_eq!(p.n, 3);
        let u = Estimate::paired(&[10.0, 12.0], &[1.0], 1.0);
        assert_eq!(u.n, 1);
    }

    #[test]
    fn confidence_interval_and_noise_floor() {
        // sd 1, n 5: 2.1318 / sqrt(5) = 0.9534.
        let e = Estimate {
            mean: 2.0,
            sd: 1.0,
            n: 5,
        };
        assert!(close(e.ci90(), 0.9534, 1e-3));
        assert!(!e.not_detected(0.0));
        // The interval includes 0.
        let small = Estimate { mean: 0.5, ..e };
        assert!(small.not_detected(0.0));
        // Below the floor.
        assert!(e.not_detected(3.0));
        // Negative means are not detected.
        assert!(Estimate { mean: -1.0, ..e }.not_detected(0.0));
        assert!(ci90_half_width(1.0, 1).is_infinite());
    }

    #[test]
    fn outer_fence_drops_only_far_high_values() {
        let r = [1.0, 1.01, 0.99, 1.0, 1.02, 0.98, 1.0, 1.01, 1.0, 1.0];
        let mut b = [2.0, 2.01, 1.99, 2.0, 2.02, 1.98, 2.0, 2.01, 2.0, 2.0];
        assert_eq!(undisturbed(&r, &b).len(), 10);
        b[3] = 3.0; // disturbed
        b[5] = 1.0; // low: kept
        let keep = undisturbed(&r, &b);
        assert_eq!(keep.len(), 9);
        assert!(!keep.contains(&3) && keep.contains(&5));
        // Too few pairs: all kept.
        assert_eq!(undisturbed(&r[..5], &b[..5]).len(), 5);
    }

    #[test]
    fn median_odd_even() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&[4.0, 1.0, 2.0, 3.0]), 2.5);
        assert!(median(&[]).is_nan());
    }
}
