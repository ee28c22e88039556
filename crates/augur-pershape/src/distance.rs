//! The pershape distance (Saavedra-Barrera's equation 2.10) and the clusters of
//! figure 2.7.
//!
//! `d(X, Y)` is the sample standard deviation (divisor n − 1) of the natural logarithms of
//! the ratios `x_i / y_i`: zero when one machine is the other at another clock rate, and
//! unchanged when both are normalized by the same reference. Dimensions that either
//! machine lacks (or whose value is not positive) are left out; `n` is the number used.

use serde::Serialize;

/// The distance between two pershapes and what it rests on.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct Distance {
    /// Equation 2.10's value.
    pub value: f64,
    /// The dimensions used (both values present and positive).
    pub dimensions: usize,
    /// Each used dimension's index and its squared deviation divided by n − 1 (they sum
    /// to `value²`; the largest say which parameters make the machines differ).
    pub terms: Vec<(usize, f64)>,
}

/// Equation 2.10 over the dimensions both vectors have; `None` below two dimensions.
pub fn distance(x: &[Option<f64>], y: &[Option<f64>]) -> Option<Distance> {
    let logs: Vec<(usize, f64)> = x
        .iter()
        .zip(y)
        .enumerate()
        .filter_map(|(i, (a, b))| match (a, b) {
            (Some(a), Some(b)) if *a > 0.0 && *b > 0.0 => Some((i, (a / b).ln())),
            _ => None,
        })
        .collect();
    let n = logs.len();
    if n < 2 {
        return None;
    }
    let mean = logs.iter().map(|l| l.1).sum::<f64>() / n as f64;
    let terms: Vec<(usize, f64)> = logs
        .iter()
        .map(|&(i, l)| (i, (l - mean).powi(2) / (n - 1) as f64))
        .collect();
    Some(Distance {
        value: terms.iter().map(|t| t.1).sum::<f64>().sqrt(),
        dimensions: n,
        terms,
    })
}

/// Every pair's distance: `matrix[i][j]`, `None` on the diagonal and where undefined.
pub fn matrix(shapes: &[Vec<Option<f64>>]) -> Vec<Vec<Option<Distance>>> {
    shapes
        .iter()
        .enumerate()
        .map(|(i, x)| {
            shapes
                .iter()
                .enumerate()
                .map(|(j, y)| if i == j { None } else { distance(x, y) })
                .collect()
        })
        .collect()
}

/// Figure 2.7's graph: machines joined when their distance is below the threshold.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct Clusters {
    /// The threshold (the thesis: 0.7).
    pub threshold: f64,
    /// Joined pairs `(i, j, distance)`, `i < j`, closest first.
    pub edges: Vec<(usize, usize, f64)>,
    /// The connected components, each sorted, ordered by their first machine; a machine
    /// joined to none is a component of its own.
    pub components: Vec<Vec<usize>>,
}

/// Joins the machines whose distance is below `threshold` and finds the components
/// (single linkage).
pub fn clusters(distances: &[Vec<Option<Distance>>], threshold: f64) -> Clusters {
    let n = distances.len();
    let mut edges = vec![];
    for (i, row) in distances.iter().enumerate() {
        for (j, d) in row.iter().enumerate().skip(i + 1) {
            if let Some(d) = d.as_ref().filter(|d| d.value < threshold) {
                edges.push((i, j, d.value));
            }
        }
    }
    edges.sort_by(|a, b| a.2.total_cmp(&b.2));
    let mut root: Vec<usize> = (0..n).collect();
    fn find(root: &mut [usize], i: usize) -> usize {
        let mut r = i;
        while root[r] != r {
            r = root[r];
        }
        root[i] = r;
        r
    }
    for &(i, j, _) in &edges {
        let (a, b) = (find(&mut root, i), find(&mut root, j));
        root[a.max(b)] = a.min(b);
    }
    let mut components: Vec<Vec<usize>> = vec![];
    for i in 0..n {
        let r = find(&mut root, i);
        match components.iter_mut().find(|c| c[0] == r) {
            Some(c) => c.push(i),
            None => components.push(vec![i]),
        }
    }
    Clusters {
        threshold,
        edges,
        components,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(x: &[f64]) -> Vec<Option<f64>> {
        x.iter().map(|&a| Some(a)).collect()
    }

    #[test]
    fn scaled_machines_are_at_distance_zero() {
        let x = v(&[1.0, 2.0, 5.0, 7.0]);
        let y = v(&[3.0, 6.0, 15.0, 21.0]);
        assert!(distance(&x, &y).unwrap().value.abs() < 1e-12);
    }

    #[test]
    fn distance_is_the_sample_deviation_of_log_ratios() {
        // log ratios 0, ln 2, 0: mean ln2/3, deviations (-1,2,-1)·ln2/3, sum of squares
        // 6 (ln2)²/9, divisor 2.
        let d = distance(&v(&[1.0, 2.0, 1.0]), &v(&[1.0, 1.0, 1.0])).unwrap();
        let want = (6.0 * 2f64.ln().powi(2) / 9.0 / 2.0).sqrt();
        assert!((d.value - want).abs() < 1e-12);
        assert_eq!(d.dimensions, 3);
        let total: f64 = d.terms.iter().map(|t| t.1).sum();
        assert!((total - d.value.powi(2)).abs() < 1e-12);
    }

    #[test]
    fn symmetric_normalization_invariant_and_triangle() {
        let x = v(&[1.0, 3.0, 2.0, 8.0]);
        let y = v(&[2.0, 1.0, 4.0, 1.0]);
        let z = v(&[5.0, 5.0, 1.0, 2.0]);
        let d = |a: &[Option<f64>], b: &[Option<f64>]| distance(a, b).unwrap().value;
        assert!((d(&x, &y) - d(&y, &x)).abs() < 1e-12);
        assert!(d(&x, &y) <= d(&x, &z) + d(&z, &y) + 1e-12);
        let norm = |a: &[Option<f64>]| -> Vec<Option<f64>> {
            a.iter()
                .zip(&z)
                .map(|(a, z)| Some(a.unwrap() / z.unwrap()))
                .collect()
        };
        assert!((d(&norm(&x), &norm(&y)) - d(&x, &y)).abs() < 1e-12);
    }

    #[test]
    fn missing_dimensions_are_left_out() {
        let x = vec![Some(1.0), None, Some(2.0), Some(0.0)];
        let y = v(&[1.0, 1.0, 1.0, 1.0]);
        assert_eq!(distance(&x, &y).unwrap().dimensions, 2);
        assert!(distance(&[Some(1.0), None], &[Some(1.0), Some(1.0)]).is_none());
    }

    #[test]
    fn clusters_join_below_the_threshold_only() {
        // a-b 0 apart, b-c far, c-d 0 apart, e isolated.
        let shapes = vec![
            v(&[1.0, 1.0, 1.0]),
            v(&[2.0, 2.0, 2.0]),
            v(&[1.0, 10.0, 100.0]),
            v(&[2.0, 20.0, 200.0]),
            v(&[100.0, 1.0, 100.0]),
        ];
        let c = clusters(&matrix(&shapes), 0.7);
        assert_eq!(c.components, vec![vec![0, 1], vec![2, 3], vec![4]]);
        assert_eq!(c.edges.len(), 2);
        let all = clusters(&matrix(&shapes), 100.0);
        assert_eq!(all.components, vec![vec![0, 1, 2, 3, 4]]);
    }
}
