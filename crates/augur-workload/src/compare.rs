//! The comparisons the commands print: a set of programs characterized and compared
//! (`augur compare programs`) and a workload ranked on machines (`augur rank`).

use crate::characterize::{characterize, Characterization};
use crate::concentration::{geometric_fit, mean_cumulative, GeometricFit};
use crate::ranking::{rank_machines, ranks, spearman, MachineScore};
use crate::similarity::{clusters, pairs, time_similarity, Clusters, Pair};
use crate::WorkloadError;
use augur_model::{LoadedMachine, PredictOptions};
use augur_program_profile::ProgramProfile;
use serde::Serialize;
use std::path::{Path, PathBuf};

/// A program profile as read, with the name its tables show.
pub struct Program {
    /// Name shown (the file stem; the path when two stems are equal).
    pub name: String,
    /// Its file.
    pub path: PathBuf,
    /// The profile.
    pub profile: ProgramProfile,
}

/// Reads program profiles; an unreadable or invalid one is an error naming its file.
pub fn load_programs(paths: &[PathBuf]) -> Result<Vec<Program>, WorkloadError> {
    let stem = |p: &Path| {
        p.file_stem()
            .map_or_else(|| p.display().to_string(), |s| s.to_string_lossy().into())
    };
    paths
        .iter()
        .map(|path| {
            let profile = ProgramProfile::read(path)?;
            let clash = paths.iter().filter(|q| stem(q) == stem(path)).count() > 1;
            let name = if clash {
                path.display().to_string()
            } else {
                stem(path)
            };
            Ok(Program {
                name,
                path: path.clone(),
                profile,
            })
        })
        .collect()
}

/// Loads machines by path or library name.
pub fn load_machines(specs: &[String]) -> Result<Vec<LoadedMachine>, WorkloadError> {
    specs
        .iter()
        .map(|s| LoadedMachine::load(s).map_err(WorkloadError::from))
        .collect()
}

/// Predicted seconds of every program on every machine: `times[program][machine]`.
pub fn predicted_times(programs: &[Program], machines: &[LoadedMachine]) -> Vec<Vec<f64>> {
    programs
        .iter()
        .map(|p| {
            machines
                .iter()
                .map(|m| {
                    m.predict(&p.profile, PredictOptions::default())
                        .total
                        .seconds
                })
                .collect()
        })
        .collect()
}

/// A pair of programs compared by their predicted times (table 3.15).
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct TimePair {
    /// First program (index).
    pub a: usize,
    /// Second program (index).
    pub b: usize,
    /// The execution-time similarity ([`time_similarity`]).
    pub similarity: f64,
    /// Their distance from dynamic statistics (equation 3.5).
    pub distance: f64,
}

/// How the programs' predicted times compare across machines (§3.6.6).
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct TimeComparison {
    /// Machine names.
    pub machines: Vec<String>,
    /// Predicted seconds, `times[program][machine]`.
    pub times: Vec<Vec<f64>>,
    /// Per machine, each program's rank by predicted time (1 the shortest).
    pub program_ranks: Vec<Vec<f64>>,
    /// Spearman's correlation between two machines' rankings of the programs,
    /// `[machine][machine]`.
    pub machine_spearman: Vec<Vec<f64>>,
    /// Every pair of programs by execution-time similarity, most similar first.
    pub pairs: Vec<TimePair>,
    /// Spearman's correlation between the two similarity metrics over the pairs (the
    /// thesis's check that dynamic statistics predict benchmark results); `None` for
    /// fewer than two pairs.
    pub metrics_spearman: Option<f64>,
}

/// `augur compare programs`: characterizations, distances, clusters, and with machines
/// the execution-time comparison.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct Comparison {
    /// Each program characterized, in the order given.
    pub programs: Vec<Characterization>,
    /// Every pair by the distance of equation 3.5, most similar first.
    pub pairs: Vec<Pair>,
    /// Programs joined below the threshold (figure 3.11).
    pub clusters: Clusters,
    /// The programs' average cumulative distribution of their most executed AbOps, rank
    /// by rank (figure 3.10).
    pub abop_average: Vec<f64>,
    /// The geometric law fitted to it (figure 3.10).
    pub abop_average_fit: Option<GeometricFit>,
    /// With machines: predicted times, rankings and similarity.
    pub times: Option<TimeComparison>,
}

/// Compares programs; `machines` may be empty.
pub fn compare(programs: &[Program], machines: &[LoadedMachine], threshold: f64) -> Comparison {
    let chars: Vec<Characterization> = programs
        .iter()
        .map(|p| characterize(&p.name, &p.profile))
        .collect();
    let vectors: Vec<Vec<f64>> = chars
        .iter()
        .map(|c| c.reduced.iter().map(|r| r.1).collect())
        .collect();
    let pairs = pairs(&vectors);
    let clusters = clusters(programs.len(), &pairs, threshold);
    let times = (!machines.is_empty()).then(|| time_comparison(programs, machines, &pairs));
    let curves: Vec<&[f64]> = chars
        .iter()
        .map(|c| c.abops.cumulative.as_slice())
        .collect();
    let abop_average = mean_cumulative(&curves);
    Comparison {
        abop_average_fit: geometric_fit(&abop_average),
        abop_average,
        programs: chars,
        pairs,
        clusters,
        times,
    }
}

/// The execution-time half of the comparison.
fn time_comparison(
    programs: &[Program],
    machines: &[LoadedMachine],
    distances: &[Pair],
) -> TimeComparison {
    let times = predicted_times(programs, machines);
    let column = |m: usize| -> Vec<f64> { times.iter().map(|t| t[m]).collect() };
    let program_ranks: Vec<Vec<f64>> = (0..machines.len()).map(|m| ranks(&column(m))).collect();
    let machine_spearman = (0..machines.len())
        .map(|a| {
            (0..machines.len())
                .map(|b| spearman(&column(a), &column(b)).unwrap_or(1.0))
                .collect()
        })
        .collect();
    let some = |p: usize| -> Vec<Option<f64>> { times[p].iter().map(|t| Some(*t)).collect() };
    let mut pairs: Vec<TimePair> = distances
        .iter()
        .filter_map(|d| {
            time_similarity(&some(d.a), &some(d.b)).map(|similarity| TimePair {
                a: d.a,
                b: d.b,
                similarity,
                distance: d.distance,
            })
        })
        .collect();
    pairs.sort_by(|x, y| x.similarity.total_cmp(&y.similarity));
    let sim: Vec<f64> = pairs.iter().map(|p| p.similarity).collect();
    let dist: Vec<f64> = pairs.iter().map(|p| p.distance).collect();
    TimeComparison {
        machines: machines.iter().map(|m| m.name.clone()).collect(),
        times,
        program_ranks,
        machine_spearman,
        metrics_spearman: spearman(&sim, &dist),
        pairs,
    }
}

/// `augur rank`: table 3.14 for a weighted workload.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct Ranking {
    /// Machine names.
    pub machines: Vec<String>,
    /// The reference machine (index).
    pub reference: usize,
    /// Program names.
    pub programs: Vec<String>,
    /// Program weights.
    pub weights: Vec<f64>,
    /// Predicted seconds, `times[program][machine]`.
    pub times: Vec<Vec<f64>>,
    /// Machines, fastest (largest geometric mean) first.
    pub scores: Vec<MachineScore>,
}

/// Ranks `machines` on the weighted workload; `reference` indexes `machines`.
pub fn rank(
    programs: &[Program],
    machines: &[LoadedMachine],
    weights: &[f64],
    reference: usize,
) -> Result<Ranking, WorkloadError> {
    let weights = check_weights(weights, programs.len())?;
    let times = predicted_times(programs, machines);
    for (p, row) in programs.iter().zip(&times) {
        if let Some(m) = row.iter().position(|t| !(*t > 0.0 && t.is_finite())) {
            return Err(WorkloadError::NoTime {
                program: p.path.display().to_string(),
                machine: machines[m].name.clone(),
            });
        }
    }
    let scores = rank_machines(&times, &weights, reference)
        .ok_or_else(|| WorkloadError::Weights("the weights must not all be zero".to_string()))?;
    Ok(Ranking {
        machines: machines.iter().map(|m| m.name.clone()).collect(),
        reference,
        programs: programs.iter().map(|p| p.name.clone()).collect(),
        weights,
        times,
        scores,
    })
}

/// One weight per program (default 1 each), non-negative and finite.
fn check_weights(weights: &[f64], programs: usize) -> Result<Vec<f64>, WorkloadError> {
    if weights.is_empty() {
        return Ok(vec![1.0; programs]);
    }
    if weights.len() != programs {
        return Err(WorkloadError::Weights(format!(
            "{} weight(s) for {programs} program profile(s); give one per profile, in the same order",
            weights.len()
        )));
    }
    if weights.iter().any(|w| !(w.is_finite() && *w >= 0.0)) {
        return Err(WorkloadError::Weights(
            "weights must be non-negative numbers".to_string(),
        ));
    }
    Ok(weights.to_vec())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn weights_default_to_one_and_are_checked() {
        assert_eq!(check_weights(&[], 3).unwrap(), vec![1.0; 3]);
        assert!(check_weights(&[1.0], 2).is_err());
        assert!(check_weights(&[1.0, -1.0], 2).is_err());
        assert!(check_weights(&[1.0, f64::NAN], 2).is_err());
    }
}
