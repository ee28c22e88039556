//! A comparison of machines: their reduced parameters, the ratios to the fastest and to a
//! reference machine (Appendix 2.C's `m/f` and `v780/m` columns), the distances between
//! their pershapes and the clusters.

use crate::distance::{clusters, matrix, Clusters, Distance};
use crate::reduced::{reduce, Reduced, PARAMETERS};
use augur_machine_profile::MachineProfile;
use serde::Serialize;

/// The default clustering threshold (figure 2.7).
pub const THRESHOLD: f64 = 0.7;

/// Machines compared.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct Comparison {
    /// The machines' names, in the order given.
    pub machines: Vec<String>,
    /// Their reduced parameters (ns).
    pub reduced: Vec<Reduced>,
    /// The index of the reference machine.
    pub reference: usize,
    /// For each parameter, the machine with its smallest value (the fastest).
    pub fastest: Vec<Option<usize>>,
    /// `distances[i][j]`: equation 2.10 (`None` on the diagonal or when undefined).
    pub distances: Vec<Vec<Option<Distance>>>,
    /// The graph of figure 2.7.
    pub clusters: Clusters,
}

/// Compares named machine profiles; `reference` indexes `machines`.
pub fn compare(
    machines: &[(String, MachineProfile)],
    reference: usize,
    threshold: f64,
) -> Comparison {
    let reduced: Vec<Reduced> = machines.iter().map(|(_, p)| reduce(p)).collect();
    let shapes: Vec<Vec<Option<f64>>> = reduced.iter().map(|r| r.values.clone()).collect();
    let fastest = (0..PARAMETERS.len())
        .map(|k| {
            (0..shapes.len())
                .filter(|&m| shapes[m][k].is_some_and(|v| v > 0.0))
                .min_by(|&a, &b| {
                    shapes[a][k]
                        .unwrap_or(0.0)
                        .total_cmp(&shapes[b][k].unwrap_or(0.0))
                })
        })
        .collect();
    let distances = matrix(&shapes);
    let clusters = clusters(&distances, threshold);
    Comparison {
        machines: machines.iter().map(|(n, _)| n.clone()).collect(),
        reduced,
        reference: reference.min(machines.len().saturating_sub(1)),
        fastest,
        distances,
        clusters,
    }
}

impl Comparison {
    /// Parameter `k` (0-based) of machine `m`, ns.
    pub fn value(&self, m: usize, k: usize) -> Option<f64> {
        self.reduced.get(m)?.values.get(k).copied().flatten()
    }

    /// `m/f`: the machine's value over the fastest machine's (1 for the fastest).
    pub fn over_fastest(&self, m: usize, k: usize) -> Option<f64> {
        let f = self.value(self.fastest[k]?, k)?;
        Some(self.value(m, k)? / f)
    }

    /// `ref/m` (Appendix 2.C's `v780/m` with the reference as the VAX-11/780): how many
    /// times faster than the reference the machine is on the parameter.
    pub fn speedup(&self, m: usize, k: usize) -> Option<f64> {
        let v = self.value(m, k).filter(|v| *v > 0.0)?;
        Some(self.value(self.reference, k)? / v)
    }

    /// Every pair `(i, j, distance)`, `i < j`, closest first.
    pub fn pairs(&self) -> Vec<(usize, usize, &Distance)> {
        let mut out = vec![];
        for (i, row) in self.distances.iter().enumerate() {
            for (j, d) in row.iter().enumerate().skip(i + 1) {
                if let Some(d) = d {
                    out.push((i, j, d));
                }
            }
        }
        out.sort_by(|a, b| a.2.value.total_cmp(&b.2.value));
        out
    }
}
