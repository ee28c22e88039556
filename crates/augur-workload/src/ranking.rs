//! Rankings: Spearman's rank correlation (§3.6.6) and the single-number performance of
//! table 3.14 (the weighted geometric mean of normalized times).

use serde::Serialize;

/// Ranks of `values`, 1 for the smallest; tied values share the mean of their ranks.
pub fn ranks(values: &[f64]) -> Vec<f64> {
    let mut order: Vec<usize> = (0..values.len()).collect();
    order.sort_by(|&a, &b| values[a].total_cmp(&values[b]));
    let mut out = vec![0.0; values.len()];
    let mut i = 0;
    while i < order.len() {
        let mut j = i;
        while j + 1 < order.len() && values[order[j + 1]] == values[order[i]] {
            j += 1;
        }
        let mean_rank = (i + j) as f64 / 2.0 + 1.0;
        for &k in &order[i..=j] {
            out[k] = mean_rank;
        }
        i = j + 1;
    }
    out
}

/// Spearman's rank correlation of two samples, `ρ = 1 − 6 Σ d² / (n³ − n)` with `d` the
/// difference of each item's ranks (ties take mean ranks). `None` for fewer than two
/// items or samples of different lengths.
pub fn spearman(a: &[f64], b: &[f64]) -> Option<f64> {
    let n = a.len();
    if n < 2 || b.len() != n {
        return None;
    }
    let (ra, rb) = (ranks(a), ranks(b));
    let d2: f64 = ra.iter().zip(&rb).map(|(x, y)| (x - y) * (x - y)).sum();
    let n = n as f64;
    Some(1.0 - 6.0 * d2 / (n * n * n - n))
}

/// The weighted geometric mean `exp(Σ w ln x / Σ w)` of positive values; `None` when a
/// value is not positive or the weights sum to zero.
pub fn geometric_mean(values: &[f64], weights: &[f64]) -> Option<f64> {
    let total: f64 = weights.iter().sum();
    if values.len() != weights.len()
        || total <= 0.0
        || values.iter().any(|v| !(*v > 0.0 && v.is_finite()))
    {
        return None;
    }
    let log: f64 = values.iter().zip(weights).map(|(v, w)| w * v.ln()).sum();
    Some((log / total).exp())
}

/// One machine's row of table 3.14.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct MachineScore {
    /// Index of the machine.
    pub machine: usize,
    /// Per program, the reference's time over this machine's (the speed relative to the
    /// reference: 2 means twice as fast).
    pub normalized: Vec<f64>,
    /// Their weighted geometric mean.
    pub geometric_mean: f64,
}

/// Table 3.14 from a matrix of times `times[program][machine]` (seconds, positive):
/// each machine's normalized results against machine `reference` and their weighted
/// geometric mean, fastest machine first. `None` when a time is not positive or the
/// weights are unusable.
pub fn rank_machines(
    times: &[Vec<f64>],
    weights: &[f64],
    reference: usize,
) -> Option<Vec<MachineScore>> {
    let machines = times.first().map_or(0, Vec::len);
    let mut scores = (0..machines)
        .map(|m| {
            let normalized: Vec<f64> = times.iter().map(|t| t[reference] / t[m]).collect();
            let geometric_mean = geometric_mean(&normalized, weights)?;
            Some(MachineScore {
                machine: m,
                normalized,
                geometric_mean,
            })
        })
        .collect::<Option<Vec<_>>>()?;
    scores.sort_by(|a, b| b.geometric_mean.total_cmp(&a.geometric_mean));
    Some(scores)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranks_share_ties() {
        assert_eq!(ranks(&[3.0, 1.0, 2.0]), vec![3.0, 1.0, 2.0]);
        assert_eq!(ranks(&[1.0, 2.0, 2.0, 5.0]), vec![1.0, 2.5, 2.5, 4.0]);
    }

    #[test]
    fn spearman_of_known_rankings() {
        let a = [1.0, 2.0, 3.0, 4.0, 5.0];
        assert_eq!(spearman(&a, &[10.0, 20.0, 30.0, 40.0, 50.0]), Some(1.0));
        assert_eq!(spearman(&a, &[5.0, 4.0, 3.0, 2.0, 1.0]), Some(-1.0));
        // One swap of neighbours among 5: Σd² = 2, ρ = 1 − 12/120 = 0.9.
        let rho = spearman(&a, &[2.0, 1.0, 3.0, 4.0, 5.0]).unwrap();
        assert!((rho - 0.9).abs() < 1e-12);
        assert_eq!(spearman(&[1.0], &[1.0]), None);
        assert_eq!(spearman(&a, &[1.0]), None);
    }

    #[test]
    fn geometric_mean_weighted_and_plain() {
        assert!((geometric_mean(&[2.0, 8.0], &[1.0, 1.0]).unwrap() - 4.0).abs() < 1e-12);
        // 2^(1/3)·8^(2/3) = 2^(1/3 + 2) = 2^(7/3).
        let g = geometric_mean(&[2.0, 8.0], &[1.0, 2.0]).unwrap();
        assert!((g - 2f64.powf(7.0 / 3.0)).abs() < 1e-12);
        assert_eq!(geometric_mean(&[0.0], &[1.0]), None);
        assert_eq!(geometric_mean(&[1.0], &[0.0]), None);
    }

    #[test]
    fn machines_ranked_by_the_geometric_mean_of_speedups() {
        // Two programs, three machines; machine 0 the reference.
        let times = vec![vec![10.0, 5.0, 20.0], vec![4.0, 1.0, 2.0]];
        let s = rank_machines(&times, &[1.0, 1.0], 0).unwrap();
        let order: Vec<usize> = s.iter().map(|x| x.machine).collect();
        // Machine 1: √(2·4) = 2.83; machine 2: √(0.5·2) = 1; reference 1.
        assert_eq!(order[0], 1);
        assert!((s[0].geometric_mean - 8f64.sqrt()).abs() < 1e-12);
        let reference = s.iter().find(|x| x.machine == 0).unwrap();
        assert_eq!(reference.normalized, vec![1.0, 1.0]);
    }
}
