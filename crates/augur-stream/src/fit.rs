//! The indirect fit: t_k = Σ_i c_ki · p_i by non-negative least squares, weighted by
//! 1/t_k (relative errors), with standard errors, 90% intervals and leave-one-out
//! cross-validation.

use crate::nnls::{nnls, nnls_from, spd_inverse};
use augur_ir::{AbOp, AbOpCounts};
use statrs::distribution::{ContinuousCDF, StudentsT};
use std::collections::BTreeMap;

/// The result of [`fit`].
#[derive(Debug, Clone, PartialEq)]
pub struct Fit {
    /// The fitted AbOps, in code order.
    pub columns: Vec<AbOp>,
    /// Their costs (ns per operation), non-negative.
    pub params: Vec<f64>,
    /// Their standard errors (ns), from the residual variance and (AᵀWA)⁻¹.
    pub se: Vec<f64>,
    /// Their correlations (`correlation[i][j]`, from the same matrix): parameters the
    /// kernels tell apart poorly are strongly (often negatively) correlated, and a sum
    /// of them is known better than their standard errors alone say. Empty when AᵀWA is
    /// singular.
    pub correlation: Vec<Vec<f64>>,
    /// Half-widths of their 90% intervals (Student t, K - P degrees of freedom).
    pub ci90: Vec<f64>,
    /// In how many of the kernels used each fitted AbOp appears.
    pub appearances: Vec<usize>,
    /// Indices (into the input) of the kernels used.
    pub used: Vec<usize>,
    /// Fitted time of each input kernel (NaN for those not used).
    pub fitted: Vec<f64>,
    /// Leave-one-out prediction of each input kernel (NaN for those not used).
    pub loo: Vec<f64>,
    /// Kernels left out of the fit, with the reason.
    pub dropped: Vec<(usize, String)>,
    /// AbOps that appear in the kernels but got no parameter, with the reason.
    pub unfitted: Vec<(AbOp, String)>,
    /// R² of the fitted against the measured kernel times.
    pub r2: f64,
    /// Median of |LOO prediction - measured| / measured.
    pub loo_median: f64,
    /// 90th percentile of the same.
    pub loo_p90: f64,
    /// Median of |fitted - measured| / measured.
    pub fit_median: f64,
    /// Degrees of freedom, K - P.
    pub dof: usize,
}

/// The 95th percentile of Student's t with `df` degrees of freedom.
pub fn t95(df: usize) -> f64 {
    match StudentsT::new(0.0, 1.0, df as f64) {
        Ok(t) => t.inverse_cdf(0.95),
        Err(_) => f64::INFINITY,
    }
}

/// The `q` quantile (0..=1) of `xs` by linear interpolation (NaN for none).
pub fn quantile(xs: &[f64], q: f64) -> f64 {
    let mut v: Vec<f64> = xs.iter().copied().filter(|x| x.is_finite()).collect();
    if v.is_empty() {
        return f64::NAN;
    }
    v.sort_by(f64::total_cmp);
    let pos = q * (v.len() - 1) as f64;
    let lo = pos.floor() as usize;
    let hi = pos.ceil() as usize;
    v[lo] + (v[hi] - v[lo]) * (pos - lo as f64)
}

/// Why a kernel without a valid time (or counts) is not in a fit; also the reason for
/// kernels left out of one set on purpose (their time is given as NaN).
pub const NO_TIME: &str = "no valid time or no counts";

/// Fits per-AbOp costs to kernel times.
///
/// `counts[k]` are kernel k's AbOps per element iteration, `times[k]` its measured ns per
/// element iteration (non-finite or non-positive times are left out). An AbOp that appears
/// in fewer than `min_kernels` kernels cannot be told apart, so the kernels containing it
/// are left out (repeatedly, until every remaining AbOp is common enough). The columns are
/// then chosen in order of how many kernels they appear in; a column that is a linear
/// combination of those before it (collinear) gets no parameter, and at most
/// K - max(3, K/8) columns are kept so the residual variance has degrees of freedom.
pub fn fit(counts: &[AbOpCounts], times: &[f64], min_kernels: usize) -> Result<Fit, String> {
    fit_with_prior(counts, times, min_kernels, &|_| None)
}

/// [`fit`] with a prior: `prior(op)` is a value the cost of `op` is drawn towards by one
/// pseudo-observation `p / prior = 1` weighing as much as one kernel's relative error, so
/// a cost the kernels determine well hardly moves, and one they cannot tell apart (it
/// appears in few kernels, or with others) ends near its prior instead of at 0 or at an
/// implausible value. Its standard error is then the posterior one.
pub fn fit_with_prior(
    counts: &[AbOpCounts],
    times: &[f64],
    min_kernels: usize,
    prior: &dyn Fn(AbOp) -> Option<f64>,
) -> Result<Fit, String> {
    let n_in = counts.len();
    let mut dropped: Vec<(usize, String)> = vec![];
    let mut used: Vec<usize> = (0..n_in)
        .filter(|&k| {
            let ok = times[k].is_finite() && times[k] > 0.0 && !counts[k].is_empty();
            if !ok {
                dropped.push((k, NO_TIME.to_string()));
            }
            ok
        })
        .collect();
    let mut unfitted: Vec<(AbOp, String)> = vec![];
    let rare = leave_out_rare(counts, &mut used, min_kernels, &mut dropped, &mut unfitted);
    let k_used = used.len();
    if k_used < 6 {
        return Err(format!(
            "only {k_used} usable kernels; at least 6 are needed for a fit"
        ));
    }
    let kept = choose_columns(counts, times, &used, &rare, min_kernels, &mut unfitted);
    let columns: Vec<AbOp> = kept.iter().map(|(op, _)| *op).collect();
    let appearances: Vec<usize> = kept.iter().map(|(_, n)| *n).collect();
    let p = columns.len();
    // Weighted rows c_k / t_k, then the prior's pseudo-observations: row e_j / prior_j;
    // right-hand side 1.
    let mut a: Vec<Vec<f64>> = used
        .iter()
        .map(|&k| {
            columns
                .iter()
                .map(|&op| counts[k].get(op) / times[k])
                .collect()
        })
        .collect();
    a.extend(prior_rows(&columns, prior));
    let ones = vec![1.0; a.len()];
    let params = nnls(&a, &ones);
    let predict = |k: usize, x: &[f64]| -> f64 {
        columns
            .iter()
            .zip(x)
            .map(|(&op, v)| counts[k].get(op) * v)
            .sum()
    };
    let mut fitted = vec![f64::NAN; n_in];
    let mut rss = 0.0;
    for &k in &used {
        fitted[k] = predict(k, &params);
        let r = (times[k] - fitted[k]) / times[k];
        rss += r * r;
    }
    let dof = k_used - p;
    let sigma2 = rss / dof.max(1) as f64;
    let (se, correlation) = standard_errors(&a, p, sigma2);
    let t = t95(dof);
    let ci90: Vec<f64> = se.iter().map(|s| t * s).collect();
    // Leave-one-out: each kernel's row left out; the prior's rows (after the kernels')
    // stay.
    let mut loo = vec![f64::NAN; n_in];
    let mut loo_err = vec![];
    for (j, &k) in used.iter().enumerate() {
        let others: Vec<Vec<f64>> = a
            .iter()
            .enumerate()
            .filter(|(i, _)| *i != j)
            .map(|(_, r)| r.clone())
            .collect();
        let x = nnls_from(&others, &ones[1..], &params);
        loo[k] = predict(k, &x);
        loo_err.push((loo[k] - times[k]).abs() / times[k]);
    }
    let mean = used.iter().map(|&k| times[k]).sum::<f64>() / k_used as f64;
    let ss_tot: f64 = used.iter().map(|&k| (times[k] - mean).powi(2)).sum();
    let ss_res: f64 = used.iter().map(|&k| (times[k] - fitted[k]).powi(2)).sum();
    let fit_err: Vec<f64> = used
        .iter()
        .map(|&k| (fitted[k] - times[k]).abs() / times[k])
        .collect();
    Ok(Fit {
        columns,
        params,
        se,
        correlation,
        ci90,
        appearances,
        used,
        fitted,
        loo,
        dropped,
        unfitted,
        r2: if ss_tot > 0.0 {
            1.0 - ss_res / ss_tot
        } else {
            f64::NAN
        },
        loo_median: quantile(&loo_err, 0.5),
        loo_p90: quantile(&loo_err, 0.9),
        fit_median: quantile(&fit_err, 0.5),
        dof,
    })
}

/// Whether `op` is in the counts `c`.
fn present(c: &AbOpCounts, op: AbOp) -> bool {
    c.get(op).abs() > 1e-12
}

/// In how many of the kernels `used` each AbOp appears.
fn appearances(counts: &[AbOpCounts], used: &[usize]) -> BTreeMap<AbOp, usize> {
    let mut appear: BTreeMap<AbOp, usize> = BTreeMap::new();
    for &k in used {
        for (op, v) in counts[k].iter() {
            if v.abs() > 1e-12 {
                *appear.entry(op).or_default() += 1;
            }
        }
    }
    appear
}

/// The rare AbOps (in fewer than `min_kernels` of the kernels `used`), which cannot be
/// told apart: the kernels containing them are left out of `used` (to `dropped`) when
/// they are few (at most a sixth of the kernels); either way the rare AbOps are unfitted.
fn leave_out_rare(
    counts: &[AbOpCounts],
    used: &mut Vec<usize>,
    min_kernels: usize,
    dropped: &mut Vec<(usize, String)>,
    unfitted: &mut Vec<(AbOp, String)>,
) -> Vec<AbOp> {
    let rare: Vec<AbOp> = appearances(counts, used)
        .iter()
        .filter(|(_, &n)| n < min_kernels)
        .map(|(&op, _)| op)
        .collect();
    let with_rare: Vec<usize> = used
        .iter()
        .copied()
        .filter(|&k| rare.iter().any(|&op| present(&counts[k], op)))
        .collect();
    if with_rare.len() * 6 <= used.len() {
        for &k in &with_rare {
            let bad: Vec<String> = rare
                .iter()
                .filter(|&&op| present(&counts[k], op))
                .map(|op| op.to_string())
                .collect();
            dropped.push((
                k,
                format!(
                    "contains {} (in fewer than {min_kernels} kernels)",
                    bad.join(", ")
                ),
            ));
        }
        used.retain(|k| !with_rare.contains(k));
    }
    for &op in &rare {
        unfitted.push((op, format!("in fewer than {min_kernels} kernels")));
    }
    rare
}

/// The columns of the fit with their appearances, in code order: the candidates (AbOps of
/// the kernels `used`, not `rare`, in at least `min_kernels` of them) by appearances
/// (descending), then code, each kept unless its weighted column is a linear combination
/// of those kept before it (collinear) or K - max(3, K/8) columns are kept already. The
/// others go to `unfitted` with the reason.
fn choose_columns(
    counts: &[AbOpCounts],
    times: &[f64],
    used: &[usize],
    rare: &[AbOp],
    min_kernels: usize,
    unfitted: &mut Vec<(AbOp, String)>,
) -> Vec<(AbOp, usize)> {
    let mut cands: Vec<(AbOp, usize)> = vec![];
    for (op, n) in appearances(counts, used) {
        if rare.contains(&op) {
            continue;
        }
        if n < min_kernels {
            unfitted.push((
                op,
                format!(
                    "in fewer than {min_kernels} kernels once rarer AbOps' kernels are left out"
                ),
            ));
        } else {
            cands.push((op, n));
        }
    }
    cands.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    let k_used = used.len();
    let max_p = k_used - (k_used / 8).max(3);
    let mut basis: Vec<Vec<f64>> = vec![]; // orthonormal basis of kept columns
    let mut kept: Vec<(AbOp, usize)> = vec![];
    for (op, n) in cands {
        // Weighted column: c_k / t_k.
        let col: Vec<f64> = used.iter().map(|&k| counts[k].get(op) / times[k]).collect();
        let norm0 = col.iter().map(|v| v * v).sum::<f64>().sqrt();
        let mut r = col;
        // Twice, for numerical orthogonality.
        project_out(&mut r, &basis);
        project_out(&mut r, &basis);
        let norm = r.iter().map(|v| v * v).sum::<f64>().sqrt();
        if norm <= 1e-6 * norm0 {
            unfitted.push((
                op,
                "collinear with other AbOps in these kernels".to_string(),
            ));
            continue;
        }
        if kept.len() >= max_p {
            unfitted.push((op, "too many parameters for the kernels".to_string()));
            continue;
        }
        basis.push(r.iter().map(|v| v / norm).collect());
        kept.push((op, n));
    }
    kept.sort_by_key(|(op, _)| *op);
    kept
}

/// Removes from `r` its components along the orthonormal vectors `basis` (one pass of
/// Gram-Schmidt).
fn project_out(r: &mut [f64], basis: &[Vec<f64>]) {
    for q in basis {
        let d: f64 = q.iter().zip(r.iter()).map(|(a, b)| a * b).sum();
        for (ri, qi) in r.iter_mut().zip(q) {
            *ri -= d * qi;
        }
    }
}

/// The prior's pseudo-observations: for each column with a finite positive prior, the row
/// e_j / prior_j.
fn prior_rows(columns: &[AbOp], prior: &dyn Fn(AbOp) -> Option<f64>) -> Vec<Vec<f64>> {
    columns
        .iter()
        .enumerate()
        .filter_map(|(j, &op)| {
            let p0 = prior(op).filter(|v| v.is_finite() && *v > 0.0)?;
            let mut r = vec![0.0; columns.len()];
            r[j] = 1.0 / p0;
            Some(r)
        })
        .collect()
}

/// The parameters' standard errors, sqrt(σ² (AᵀA)⁻¹_ii), of the `p` columns of the rows
/// `a` (NaN when AᵀA is singular), and their correlations,
/// (AᵀA)⁻¹_ij / sqrt((AᵀA)⁻¹_ii (AᵀA)⁻¹_jj) (empty when singular).
fn standard_errors(a: &[Vec<f64>], p: usize, sigma2: f64) -> (Vec<f64>, Vec<Vec<f64>>) {
    let mut ata = vec![vec![0.0; p]; p];
    for row in a {
        for i in 0..p {
            for j in 0..p {
                ata[i][j] += row[i] * row[j];
            }
        }
    }
    let Some(inv) = spd_inverse(&ata) else {
        return (vec![f64::NAN; p], vec![]);
    };
    let se = (0..p)
        .map(|i| (sigma2 * inv[i][i]).max(0.0).sqrt())
        .collect();
    let correlation = (0..p)
        .map(|i| {
            (0..p)
                .map(|j| {
                    let d = (inv[i][i] * inv[j][j]).sqrt();
                    if d > 0.0 {
                        (inv[i][j] / d).clamp(-1.0, 1.0)
                    } else {
                        0.0
                    }
                })
                .collect()
        })
        .collect();
    (se, correlation)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantiles() {
        assert_eq!(quantile(&[3.0, 1.0, 2.0], 0.5), 2.0);
        assert_eq!(quantile(&[1.0, 2.0], 0.5), 1.5);
        assert!(quantile(&[], 0.5).is_nan());
        assert!((t95(10) - 1.812).abs() < 1e-3);
    }
}
