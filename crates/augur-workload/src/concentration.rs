//! Ordered distributions: how much of the execution the most executed basic blocks or
//! AbOps cover (tables 3.6 and 3.8), the skewness index of §3.5.7.1 (tables 3.7 and
//! 3.9), and the geometric law fitted to the cumulative distribution (§3.5.8.1, figure
//! 3.10).

use serde::Serialize;

/// An ordered distribution summarized as the thesis does.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct Concentration {
    /// Items (blocks or AbOps) executed at least once.
    pub executed: usize,
    /// Items the program has (for blocks: every block with operations; for AbOps: the
    /// catalogue's size).
    pub total: usize,
    /// Share of the operations in each band of ranks: `(first rank, last rank, share)`;
    /// the last band is open (`last = None`).
    pub bands: Vec<Band>,
    /// Cumulative share covered by the top k items, k = 1, 2, ... (at most 25).
    pub cumulative: Vec<f64>,
    /// The skewness index: the inverse of the mean rank, `1 / Σ k·p_k` (§3.5.7.1).
    pub skewness: f64,
    /// The geometric law fitted to `cumulative` (figure 3.10); `None` when too few ranks
    /// leave something uncovered.
    pub fit: Option<GeometricFit>,
}

/// The geometric law of §3.5.8.1: the `n` most executed items cover `1 − K(1 − α)^n`
/// (each takes about the share α of what the ones before it left).
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct GeometricFit {
    /// α.
    pub alpha: f64,
    /// K.
    pub k: f64,
    /// Coefficient of correlation between `n` and `ln(1 − F(n))` (−1: exactly geometric).
    pub correlation: f64,
    /// Degrees of freedom of the fit: the ranks fitted less two.
    pub degrees_of_freedom: usize,
}

/// Below this uncovered share a rank is left out of the fit: the thesis prints shares to
/// 0.0001, and the logarithm of a smaller residual is rounding noise.
const FIT_FLOOR: f64 = 1e-4;

/// Fits `F(n) = 1 − K(1 − α)^n` to a cumulative distribution (`cumulative[n - 1]` =
/// F(n)) by least squares on the straight line `ln(1 − F(n)) = ln K + n·ln(1 − α)`, whose
/// coefficient of correlation the thesis reports. Ranks leaving less than 0.0001 are
/// left out; `None` with fewer than three ranks left or a residual that does not fall.
pub fn geometric_fit(cumulative: &[f64]) -> Option<GeometricFit> {
    let points: Vec<(f64, f64)> = cumulative
        .iter()
        .enumerate()
        .filter(|(_, f)| 1.0 - **f >= FIT_FLOOR)
        .map(|(i, f)| ((i + 1) as f64, (1.0 - f).ln()))
        .collect();
    if points.len() < 3 {
        return None;
    }
    let n = points.len() as f64;
    let mean_x = points.iter().map(|p| p.0).sum::<f64>() / n;
    let mean_y = points.iter().map(|p| p.1).sum::<f64>() / n;
    let sum = |f: &dyn Fn(f64, f64) -> f64| -> f64 {
        points.iter().map(|&(x, y)| f(x - mean_x, y - mean_y)).sum()
    };
    let (sxx, sxy, syy) = (sum(&|x, _| x * x), sum(&|x, y| x * y), sum(&|_, y| y * y));
    let slope = sxy / sxx;
    if slope >= 0.0 || !slope.is_finite() {
        return None;
    }
    Some(GeometricFit {
        alpha: 1.0 - slope.exp(),
        k: (mean_y - slope * mean_x).exp(),
        correlation: sxy / (sxx * syy).sqrt(),
        degrees_of_freedom: points.len() - 2,
    })
}

/// The average of cumulative distributions rank by rank (a curve shorter than another
/// has covered everything: 1 beyond its end), as figure 3.10 averages its programs.
/// Empty curves (programs that executed nothing) are left out.
pub fn mean_cumulative(curves: &[&[f64]]) -> Vec<f64> {
    let curves: Vec<&[f64]> = curves.iter().copied().filter(|c| !c.is_empty()).collect();
    let ranks = curves.iter().map(|c| c.len()).max().unwrap_or(0);
    (0..ranks)
        .map(|n| {
            let sum: f64 = curves
                .iter()
                .map(|c| c.get(n).copied().unwrap_or(1.0))
                .sum();
            sum / curves.len() as f64
        })
        .collect()
}

/// A band of ranks and the share of execution it holds.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct Band {
    /// First rank of the band (1-based).
    pub first: usize,
    /// Last rank, or `None` for "and every rank after".
    pub last: Option<usize>,
    /// Share of all operations.
    pub share: f64,
}

/// The bands of table 3.6 (basic blocks): 1-5, 6-10, 11-15, 16-20, 21-25, >25.
pub const BLOCK_BANDS: &[usize] = &[5, 10, 15, 20, 25];
/// The bands of table 3.8 (AbOps): 1-2, 3-5, 6-10, 11-15, 16-20, >20.
pub const ABOP_BANDS: &[usize] = &[2, 5, 10, 15, 20];

/// The fractions of `weights` (non-negative), largest first; empty when they sum to 0.
pub fn ordered_fractions(weights: &[f64]) -> Vec<f64> {
    let total: f64 = weights.iter().filter(|w| **w > 0.0).sum();
    if total <= 0.0 || !total.is_finite() {
        return vec![];
    }
    let mut p: Vec<f64> = weights
        .iter()
        .filter(|w| **w > 0.0)
        .map(|w| w / total)
        .collect();
    p.sort_by(|a, b| b.total_cmp(a));
    p
}

/// The skewness index of an ordered distribution (fractions largest first): the inverse
/// of its expected rank, ranks counted from 1. One item gives 1; n equal items give
/// 2/(n+1); 0 for an empty distribution.
pub fn skewness(ordered: &[f64]) -> f64 {
    let mean_rank: f64 = ordered
        .iter()
        .enumerate()
        .map(|(k, p)| (k + 1) as f64 * p)
        .sum();
    if mean_rank > 0.0 {
        1.0 / mean_rank
    } else {
        0.0
    }
}

/// Summarizes the items' weights (operations per block or per AbOp) with the band
/// limits `bands` (last rank of each closed band).
pub fn concentration(weights: &[f64], total: usize, bands: &[usize]) -> Concentration {
    let p = ordered_fractions(weights);
    let share = |from: usize, to: usize| -> f64 { p.iter().take(to).skip(from).sum() };
    let mut out = vec![];
    let mut first = 0;
    for &last in bands {
        out.push(Band {
            first: first + 1,
            last: Some(last),
            share: share(first, last),
        });
        first = last;
    }
    out.push(Band {
        first: first + 1,
        last: None,
        share: share(first, p.len()),
    });
    let cumulative: Vec<f64> = p
        .iter()
        .take(25)
        .scan(0.0, |acc, x| {
            *acc += x;
            Some(*acc)
        })
        .collect();
    Concentration {
        executed: p.len(),
        total,
        bands: out,
        fit: geometric_fit(&cumulative),
        cumulative,
        skewness: skewness(&p),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn skewness_of_hand_computed_distributions() {
        assert_eq!(skewness(&[1.0]), 1.0);
        // Two equal items: mean rank 1.5.
        assert!((skewness(&[0.5, 0.5]) - 1.0 / 1.5).abs() < 1e-12);
        // 0.7, 0.2, 0.1: mean rank 0.7 + 0.4 + 0.3 = 1.4.
        assert!((skewness(&[0.7, 0.2, 0.1]) - 1.0 / 1.4).abs() < 1e-12);
        // n equal items: 2/(n+1).
        let ten = vec![0.1; 10];
        assert!((skewness(&ten) - 2.0 / 11.0).abs() < 1e-12);
        assert_eq!(skewness(&[]), 0.0);
    }

    #[test]
    fn bands_sum_to_one_and_the_cumulative_curve_rises() {
        let weights: Vec<f64> = (1..=40).map(|i| (i * i % 17) as f64).collect();
        let c = concentration(&weights, 40, BLOCK_BANDS);
        let sum: f64 = c.bands.iter().map(|b| b.share).sum();
        assert!((sum - 1.0).abs() < 1e-12);
        assert_eq!(c.bands.len(), 6);
        assert_eq!((c.bands[5].first, c.bands[5].last), (26, None));
        assert!(c.cumulative.windows(2).all(|w| w[1] >= w[0]));
        assert!(c.cumulative.iter().all(|x| *x <= 1.0 + 1e-12));
        // Largest first: each increment is no larger than the previous one.
        let steps: Vec<f64> = c.cumulative.windows(2).map(|w| w[1] - w[0]).collect();
        assert!(steps.windows(2).all(|w| w[1] <= w[0] + 1e-12));
        assert_eq!(c.executed, weights.iter().filter(|w| **w > 0.0).count());
    }

    #[test]
    fn an_exact_geometric_law_is_fitted_back() {
        let f: Vec<f64> = (1..=20).map(|n| 1.0 - 0.8 * 0.7f64.powi(n)).collect();
        let fit = geometric_fit(&f).unwrap();
        assert!((fit.alpha - 0.3).abs() < 1e-12, "{fit:?}");
        assert!((fit.k - 0.8).abs() < 1e-12, "{fit:?}");
        assert!((fit.correlation + 1.0).abs() < 1e-12, "{fit:?}");
        assert_eq!(fit.degrees_of_freedom, 18);
        // Ranks that leave nothing are left out; too few ranks give no fit.
        assert_eq!(geometric_fit(&[0.5, 0.75, 1.0, 1.0]), None);
        let with_tail = [0.5, 0.75, 0.875, 1.0];
        assert_eq!(geometric_fit(&with_tail).unwrap().degrees_of_freedom, 1);
    }

    #[test]
    fn curves_average_rank_by_rank_and_end_at_one() {
        let short: &[f64] = &[0.6, 1.0];
        let long: &[f64] = &[0.4, 0.7, 0.9];
        let mean = mean_cumulative(&[short, long, &[]]);
        let want = [0.5, 0.85, 0.95];
        assert!(
            mean.iter().zip(want).all(|(a, b)| (a - b).abs() < 1e-12),
            "{mean:?}"
        );
        assert!(mean_cumulative(&[]).is_empty());
    }

    #[test]
    fn an_empty_program_has_empty_bands() {
        let c = concentration(&[0.0, 0.0], 2, ABOP_BANDS);
        assert_eq!(c.executed, 0);
        assert!(c.bands.iter().all(|b| b.share == 0.0));
        assert_eq!(c.skewness, 0.0);
    }
}
