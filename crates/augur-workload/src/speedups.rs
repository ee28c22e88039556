//! Speedup tables over a program set (Saavedra-Barrera's tables 4.6 and 4.7): each
//! program's speedup under each compiler setting over a base setting, the programs'
//! ranks by it, the geometric mean per setting, and the correlation of the per-program
//! speedups between every two settings (Pearson's coefficient and Spearman's rank
//! correlation, each with its one-sided significance level).

use crate::compare::{predicted_times, Program};
use crate::ranking::{geometric_mean, ranks, spearman};
use augur_model::LoadedMachine;
use serde::Serialize;
use statrs::distribution::{ContinuousCDF, StudentsT};

/// The correlation of two settings' speedups over the programs (table 4.7's row).
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct Correlation {
    /// First setting (index).
    pub a: usize,
    /// Second setting (index).
    pub b: usize,
    /// Programs with a speedup under both.
    pub programs: usize,
    /// Pearson's coefficient of correlation.
    pub pearson: Option<f64>,
    /// Probability of a coefficient this large without a positive correlation.
    pub pearson_significance: Option<f64>,
    /// Spearman's rank correlation.
    pub spearman: Option<f64>,
    /// Its significance level, by the same t approximation.
    pub spearman_significance: Option<f64>,
}

/// Speedups of one set of times (predicted or measured) over a base setting.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct Speedups {
    /// `speedups[program][setting]`: the base time over this one (`None` when a time is
    /// missing or not positive).
    pub speedups: Vec<Vec<Option<f64>>>,
    /// `ranks[program][setting]`: 1 for the largest speedup under that setting (ties
    /// share the mean rank; `None` without a speedup).
    pub ranks: Vec<Vec<Option<f64>>>,
    /// Per setting, the geometric mean of the programs' speedups (`None` when some
    /// program lacks one).
    pub geometric_means: Vec<Option<f64>>,
    /// Every pair of settings other than the base.
    pub correlations: Vec<Correlation>,
}

/// Table 4.6 and 4.7 over a program set.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct SpeedupTable {
    /// The settings (machine names), in column order.
    pub settings: Vec<String>,
    /// Each setting's compiler and flags.
    pub setups: Vec<String>,
    /// The programs, in row order.
    pub programs: Vec<String>,
    /// The base setting (index).
    pub base: usize,
    /// Predicted seconds, `[program][setting]`.
    pub predicted_seconds: Vec<Vec<f64>>,
    /// The predicted speedups.
    pub predicted: Speedups,
    /// Measured seconds where kept runs were given, `[program][setting]`.
    pub measured_seconds: Option<Vec<Vec<Option<f64>>>>,
    /// The measured speedups.
    pub measured: Option<Speedups>,
    /// Per setting, the correlation of predicted and measured speedups over the programs
    /// measured under it and the base.
    pub predicted_vs_measured: Vec<Correlation>,
}

/// The speedups of `times[program][setting]` over setting `base`.
pub fn speedups(times: &[Vec<Option<f64>>], base: usize) -> Speedups {
    let settings = times.first().map_or(0, Vec::len);
    let speedups: Vec<Vec<Option<f64>>> = times
        .iter()
        .map(|row| {
            row.iter()
                .map(|t| match (row.get(base).copied().flatten(), *t) {
                    (Some(b), Some(t)) if b > 0.0 && t > 0.0 => Some(b / t),
                    _ => None,
                })
                .collect()
        })
        .collect();
    let column = |s: usize| -> Vec<Option<f64>> { speedups.iter().map(|r| r[s]).collect() };
    let rank_columns: Vec<Vec<Option<f64>>> =
        (0..settings).map(|s| rank_column(&column(s))).collect();
    let rank_rows = (0..speedups.len())
        .map(|p| rank_columns.iter().map(|c| c[p]).collect())
        .collect();
    let geometric_means = (0..settings)
        .map(|s| {
            let all: Option<Vec<f64>> = column(s).into_iter().collect();
            all.and_then(|v| geometric_mean(&v, &vec![1.0; v.len()]))
        })
        .collect();
    let others: Vec<usize> = (0..settings).filter(|&s| s != base).collect();
    let mut correlations = vec![];
    for (i, &a) in others.iter().enumerate() {
        for &b in &others[i + 1..] {
            correlations.push(correlation(a, b, &column(a), &column(b)));
        }
    }
    Speedups {
        speedups,
        ranks: rank_rows,
        geometric_means,
        correlations,
    }
}

/// The ranks of a column's values, 1 for the largest (ties share the mean rank); `None`
/// where a value is.
fn rank_column(col: &[Option<f64>]) -> Vec<Option<f64>> {
    let known: Vec<(usize, f64)> = col
        .iter()
        .enumerate()
        .filter_map(|(p, x)| x.map(|x| (p, -x)))
        .collect();
    let values: Vec<f64> = known.iter().map(|k| k.1).collect();
    let mut out = vec![None; col.len()];
    for ((p, _), r) in known.iter().zip(ranks(&values)) {
        out[*p] = Some(r);
    }
    out
}

/// The correlation of two columns over the programs with a value in both.
pub fn correlation(a: usize, b: usize, x: &[Option<f64>], y: &[Option<f64>]) -> Correlation {
    let (xs, ys): (Vec<f64>, Vec<f64>) = x
        .iter()
        .zip(y)
        .filter_map(|(p, q)| Some(((*p)?, (*q)?)))
        .unzip();
    let n = xs.len();
    let pearson = pearson(&xs, &ys);
    let spearman = spearman(&xs, &ys).filter(|r| r.is_finite());
    Correlation {
        a,
        b,
        programs: n,
        pearson,
        pearson_significance: pearson.and_then(|r| significance(r, n)),
        spearman,
        spearman_significance: spearman.and_then(|r| significance(r, n)),
    }
}

/// Pearson's coefficient of correlation; `None` for fewer than two pairs or a sample
/// without spread.
pub fn pearson(a: &[f64], b: &[f64]) -> Option<f64> {
    let n = a.len();
    if n < 2 || b.len() != n {
        return None;
    }
    let mean = |v: &[f64]| v.iter().sum::<f64>() / n as f64;
    let (ma, mb) = (mean(a), mean(b));
    let cov: f64 = a.iter().zip(b).map(|(x, y)| (x - ma) * (y - mb)).sum();
    let va: f64 = a.iter().map(|x| (x - ma).powi(2)).sum();
    let vb: f64 = b.iter().map(|y| (y - mb).powi(2)).sum();
    (va > 0.0 && vb > 0.0).then(|| (cov / (va * vb).sqrt()).clamp(-1.0, 1.0))
}

/// One-sided significance level of a correlation `r` over `n` pairs: the probability of
/// a coefficient at least this large without a positive correlation,
/// `P(T > r √((n − 2)/(1 − r²)))` with `T` Student's t with `n − 2` degrees of freedom.
/// `None` for fewer than three pairs.
pub fn significance(r: f64, n: usize) -> Option<f64> {
    if n < 3 || !r.is_finite() {
        return None;
    }
    if r >= 1.0 {
        return Some(0.0);
    }
    if r <= -1.0 {
        return Some(1.0);
    }
    let df = (n - 2) as f64;
    let t = r * (df / (1.0 - r * r)).sqrt();
    let dist = StudentsT::new(0.0, 1.0, df).ok()?;
    Some(1.0 - dist.cdf(t))
}

/// Tables 4.6 and 4.7 for `programs` on `machines` (one per compiler setting), over
/// setting `base`; `measured[program][setting]` are kept measured times, if any.
pub fn speedup_table(
    programs: &[Program],
    machines: &[LoadedMachine],
    base: usize,
    measured: Option<Vec<Vec<Option<f64>>>>,
) -> SpeedupTable {
    let predicted_seconds = predicted_times(programs, machines);
    let as_options: Vec<Vec<Option<f64>>> = predicted_seconds
        .iter()
        .map(|r| r.iter().map(|&t| Some(t)).collect())
        .collect();
    let predicted = speedups(&as_options, base);
    let measured_speedups = measured.as_ref().map(|m| speedups(m, base));
    let predicted_vs_measured = match &measured_speedups {
        Some(ms) => (0..machines.len())
            .filter(|&s| s != base)
            .map(|s| {
                let col = |sp: &Speedups| -> Vec<Option<f64>> {
                    sp.speedups.iter().map(|r| r[s]).collect()
                };
                correlation(s, s, &col(&predicted), &col(ms))
            })
            .collect(),
        None => vec![],
    };
    SpeedupTable {
        settings: machines.iter().map(|m| m.name.clone()).collect(),
        setups: machines.iter().map(LoadedMachine::setup).collect(),
        programs: programs.iter().map(|p| p.name.clone()).collect(),
        base,
        predicted_seconds,
        predicted,
        measured_seconds: measured,
        measured: measured_speedups,
        predicted_vs_measured,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn some(rows: &[&[f64]]) -> Vec<Vec<Option<f64>>> {
        rows.iter()
            .map(|r| r.iter().map(|&x| Some(x)).collect())
            .collect()
    }

    #[test]
    fn speedups_ranks_and_geometric_means() {
        // Three programs, base setting 0 and two others.
        let t = some(&[&[8.0, 4.0, 2.0], &[9.0, 3.0, 1.0], &[2.0, 2.0, 1.0]]);
        let s = speedups(&t, 0);
        assert_eq!(s.speedups[0], vec![Some(1.0), Some(2.0), Some(4.0)]);
        assert_eq!(s.speedups[1], vec![Some(1.0), Some(3.0), Some(9.0)]);
        // Setting 1: speedups 2, 3, 1 -> ranks 2, 1, 3 (1 the largest).
        let r1: Vec<Option<f64>> = s.ranks.iter().map(|r| r[1]).collect();
        assert_eq!(r1, vec![Some(2.0), Some(1.0), Some(3.0)]);
        // Geometric mean of 2, 3, 1 is 6^(1/3); of 4, 9, 2 is 72^(1/3).
        let g = &s.geometric_means;
        assert!((g[0].unwrap() - 1.0).abs() < 1e-12);
        assert!((g[1].unwrap() - 6f64.cbrt()).abs() < 1e-12);
        assert!((g[2].unwrap() - 72f64.cbrt()).abs() < 1e-12);
        // One pair of non-base settings.
        assert_eq!(s.correlations.len(), 1);
        let c = &s.correlations[0];
        assert_eq!((c.a, c.b, c.programs), (1, 2, 3));
        // Ranks agree exactly: 2,3,1 and 4,9,2 order the programs alike.
        assert_eq!(c.spearman, Some(1.0));
    }

    #[test]
    fn missing_times_leave_gaps() {
        let t = vec![vec![Some(4.0), None], vec![Some(6.0), Some(3.0)]];
        let s = speedups(&t, 0);
        assert_eq!(s.speedups[0][1], None);
        assert_eq!(s.ranks[0][1], None);
        assert_eq!(s.ranks[1][1], Some(1.0));
        assert_eq!(s.geometric_means[1], None);
    }

    #[test]
    fn pearson_of_constructed_samples() {
        let a = [1.0, 2.0, 3.0, 4.0];
        assert!((pearson(&a, &[2.0, 4.0, 6.0, 8.0]).unwrap() - 1.0).abs() < 1e-12);
        assert!((pearson(&a, &[4.0, 3.0, 2.0, 1.0]).unwrap() + 1.0).abs() < 1e-12);
        // x = 1..4, y = 1, 3, 2, 4: cov 4, var 5 and 5 -> r = 0.8.
        assert!((pearson(&a, &[1.0, 3.0, 2.0, 4.0]).unwrap() - 0.8).abs() < 1e-12);
        assert_eq!(pearson(&a, &[1.0, 1.0, 1.0, 1.0]), None);
        assert_eq!(pearson(&[1.0], &[1.0]), None);
    }

    #[test]
    fn significance_of_a_correlation() {
        // r = 0.8 over 4 pairs: t = 0.8·√(2/0.36) = 1.8856, 2 degrees of freedom:
        // P(T > t) = 1/2 − t/(2√(t² + 2)) = 0.1).
        let p = significance(0.8, 4).unwrap();
        assert!((p - 0.1).abs() < 1e-9, "{p}");
        assert_eq!(significance(0.5, 2), None);
        assert_eq!(significance(1.0, 5), Some(0.0));
        // A zero correlation is as likely positive as not.
        assert!((significance(0.0, 10).unwrap() - 0.5).abs() < 1e-12);
    }
}
