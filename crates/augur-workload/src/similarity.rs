//! Program similarity from dynamic statistics (§3.5.10): the distance of equation 3.5
//! over the 13 reduced parameters and the clusters of figure 3.11.
//!
//! Equation 3.5 is `d(A, B) = Σ_i W_i (A_i − B_i)²` "where W_i is the value of parameter
//! i in the average distribution", each dimension "weighted according to the average
//! distribution of all programs". Read literally (raw shares weighted by raw shares) it
//! cannot reach the printed distances (up to 4.7; shares are below 1). Here each
//! program's parameters are first normalized by the average (`A_i / W_i`), so that
//! `d(A, B) = Σ_i W_i (A_i/W_i − B_i/W_i)² = Σ_i (A_i − B_i)² / W_i`: a chi-square
//! distance. On the thesis's own distributions (Appendix 3.A, the 23 programs whose
//! columns transcribe cleanly) it gives the printed magnitudes: mean 1.85 (printed 1.20
//! over 28 programs), TRFD–MATRIX300 0.014 (printed 0.0172), and a Spearman correlation
//! of 0.84 with the printed distances of table 3.11's pairs (`tests/thesis.rs`).
//! Parameters no program exercises are skipped.

use serde::Serialize;

/// The default threshold below which two programs are joined (figure 3.11).
pub const CLUSTER_THRESHOLD: f64 = 0.71;
/// A program whose nearest neighbour is farther than this is drawn isolated, with that
/// distance (figure 3.11).
pub const ISOLATION_THRESHOLD: f64 = 0.45;

/// The average of the programs' parameter vectors (the weights W).
pub fn average(vectors: &[Vec<f64>]) -> Vec<f64> {
    let n = vectors.len().max(1) as f64;
    let dims = vectors.first().map_or(0, Vec::len);
    (0..dims)
        .map(|i| vectors.iter().map(|v| v[i]).sum::<f64>() / n)
        .collect()
}

/// The distance of equation 3.5 between two parameter vectors with the average `w`.
pub fn distance(a: &[f64], b: &[f64], w: &[f64]) -> f64 {
    a.iter()
        .zip(b)
        .zip(w)
        .filter(|(_, w)| **w > 0.0)
        .map(|((x, y), w)| (x - y) * (x - y) / w)
        .sum()
}

/// One pair of programs (indices into the caller's list) and their distance.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct Pair {
    /// First program.
    pub a: usize,
    /// Second program.
    pub b: usize,
    /// Their distance.
    pub distance: f64,
}

/// Every pair's distance, most similar first (table 3.11).
pub fn pairs(vectors: &[Vec<f64>]) -> Vec<Pair> {
    let w = average(vectors);
    let mut out = vec![];
    for a in 0..vectors.len() {
        for b in a + 1..vectors.len() {
            out.push(Pair {
                a,
                b,
                distance: distance(&vectors[a], &vectors[b], &w),
            });
        }
    }
    out.sort_by(|x, y| x.distance.total_cmp(&y.distance));
    out
}

/// The clusters of figure 3.11: programs joined by an edge when closer than the
/// threshold, as connected components.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct Clusters {
    /// The threshold used.
    pub threshold: f64,
    /// The edges (pairs closer than the threshold), most similar first.
    pub edges: Vec<Pair>,
    /// Components of two or more programs (indices), each sorted.
    pub groups: Vec<Vec<usize>>,
    /// Programs with no neighbour closer than the threshold, with the distance to their
    /// nearest (`None` when there is no other program).
    pub isolated: Vec<(usize, Option<f64>)>,
}

/// Groups `n` programs by the pairs closer than `threshold`.
pub fn clusters(n: usize, pairs: &[Pair], threshold: f64) -> Clusters {
    let edges: Vec<Pair> = pairs
        .iter()
        .filter(|p| p.distance < threshold)
        .cloned()
        .collect();
    let mut component: Vec<usize> = (0..n).collect();
    let root = |c: &Vec<usize>, mut i: usize| {
        while c[i] != i {
            i = c[i];
        }
        i
    };
    for e in &edges {
        let (ra, rb) = (root(&component, e.a), root(&component, e.b));
        component[ra.max(rb)] = ra.min(rb);
    }
    let mut groups: Vec<Vec<usize>> = vec![];
    let mut isolated = vec![];
    for i in 0..n {
        let r = root(&component, i);
        let members: Vec<usize> = (0..n).filter(|&j| root(&component, j) == r).collect();
        if members.len() == 1 {
            isolated.push((i, nearest(i, pairs)));
        } else if members[0] == i {
            groups.push(members);
        }
    }
    Clusters {
        threshold,
        edges,
        groups,
        isolated,
    }
}

/// The distance from program `i` to its nearest neighbour.
fn nearest(i: usize, pairs: &[Pair]) -> Option<f64> {
    pairs
        .iter()
        .filter(|p| p.a == i || p.b == i)
        .map(|p| p.distance)
        .min_by(f64::total_cmp)
}

/// Execution-time similarity of two programs over the machines both ran on (§3.6.6):
/// the relative standard error of the mean of `z_i = t_A,i / t_B,i`, `s(z) / (z̄ √n)`
/// with the sample standard deviation. Benchmark-equivalent programs (a constant ratio)
/// give 0. The thesis calls it the coefficient of variation of z, but the numbers of its
/// table 3.15 are this (its coefficient of variation divided by √n): they are recomputed
/// so from table 3.35's times (`tests/thesis.rs`). `None` for fewer than two machines.
pub fn time_similarity(a: &[Option<f64>], b: &[Option<f64>]) -> Option<f64> {
    let z: Vec<f64> = a
        .iter()
        .zip(b)
        .filter_map(|(x, y)| match (x, y) {
            (Some(x), Some(y)) if *x > 0.0 && *y > 0.0 => Some(x / y),
            _ => None,
        })
        .collect();
    if z.len() < 2 {
        return None;
    }
    let n = z.len() as f64;
    let mean = z.iter().sum::<f64>() / n;
    let var = z.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / (n - 1.0);
    Some(var.sqrt() / (mean * n.sqrt()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distance_is_zero_on_identical_programs_and_symmetric() {
        let a = vec![0.5, 0.3, 0.2];
        let b = vec![0.1, 0.6, 0.3];
        let w = average(&[a.clone(), b.clone()]);
        assert!(w
            .iter()
            .zip([0.3, 0.45, 0.25])
            .all(|(x, y)| (x - y).abs() < 1e-12));
        assert_eq!(distance(&a, &a, &w), 0.0);
        assert_eq!(distance(&a, &b, &w), distance(&b, &a, &w));
        // (0.4²)/0.3 + (0.3²)/0.45 + (0.1²)/0.25 = 0.5333 + 0.2 + 0.04.
        assert!((distance(&a, &b, &w) - (0.16 / 0.3 + 0.09 / 0.45 + 0.01 / 0.25)).abs() < 1e-12);
    }

    #[test]
    fn a_parameter_no_program_uses_is_skipped() {
        let a = vec![1.0, 0.0];
        let b = vec![0.5, 0.0];
        let w = average(&[a.clone(), b.clone()]);
        assert!((distance(&a, &b, &w) - 0.25 / 0.75).abs() < 1e-12);
    }

    #[test]
    fn clusters_are_the_components_below_the_threshold() {
        // 0-1 close, 1-2 close, 3 far from all.
        let d = |a, b, distance| Pair { a, b, distance };
        let mut all = vec![
            d(0, 1, 0.1),
            d(1, 2, 0.5),
            d(0, 2, 0.9),
            d(0, 3, 2.0),
            d(1, 3, 1.5),
            d(2, 3, 3.0),
        ];
        all.sort_by(|x, y| x.distance.total_cmp(&y.distance));
        let c = clusters(4, &all, 0.71);
        assert_eq!(c.groups, vec![vec![0, 1, 2]]);
        assert_eq!(c.isolated, vec![(3, Some(1.5))]);
        assert_eq!(c.edges.len(), 2);
        let none = clusters(4, &all, 0.05);
        assert!(none.groups.is_empty());
        assert_eq!(none.isolated.len(), 4);
    }

    #[test]
    fn pairs_are_sorted_and_count_n_choose_2() {
        let v = vec![vec![0.5, 0.5], vec![0.4, 0.6], vec![0.9, 0.1]];
        let p = pairs(&v);
        assert_eq!(p.len(), 3);
        assert!(p.windows(2).all(|w| w[0].distance <= w[1].distance));
        assert_eq!((p[0].a, p[0].b), (0, 1));
    }

    #[test]
    fn time_similarity_is_zero_for_benchmark_equivalent_programs() {
        let a = [Some(2.0), Some(4.0), Some(8.0)];
        let b = [Some(1.0), Some(2.0), Some(4.0)];
        assert_eq!(time_similarity(&a, &b), Some(0.0));
        // z = 1, 3: mean 2, sample sd √2, n = 2: √2 / (2 √2) = 0.5.
        let c = [Some(1.0), Some(3.0), None];
        let one = [Some(1.0), Some(1.0), Some(1.0)];
        assert!((time_similarity(&c, &one).unwrap() - 0.5).abs() < 1e-12);
        assert_eq!(time_similarity(&[Some(1.0)], &[Some(1.0)]), None);
    }
}
