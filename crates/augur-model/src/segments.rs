//! The time of a compute segment: some executions of some blocks (an MPI rank's work
//! between two MPI calls), priced by the sequential model.

use crate::cost::CostTable;
use crate::openmp::{block_times, shared_nest_factors};
use crate::predict::{predict_with, PredictOptions};
use augur_machine_profile::MachineProfile;
use augur_program_profile::ProgramProfile;

/// Seconds per execution of every block: its operations, and for a block inside an
/// analyzed loop nest the nest's memory time beyond them in proportion (the nest's
/// combined time over its operation time).
#[derive(Debug, Clone)]
pub struct BlockSeconds {
    per_exec: Vec<Vec<f64>>,
    /// The factor either way of the sequential prediction's 90% interval (the model's
    /// error and the parameters').
    interval_factor: f64,
}

impl BlockSeconds {
    /// Prices `program`'s blocks on `machine`.
    pub fn new(
        program: &ProgramProfile,
        machine: &MachineProfile,
        options: PredictOptions,
    ) -> BlockSeconds {
        Self::sharing_node(program, machine, options, 1)
    }

    /// Prices `program`'s blocks on `machine` when `concurrent` ranks run on each node:
    /// they share its memory bandwidth, so a nest's memory time at a shared level grows
    /// by `max(1, P·D/B(P))` as a team of threads' does (the machine's `[openmp]` triad
    /// by thread count; unchanged where it was not measured).
    pub fn sharing_node(
        program: &ProgramProfile,
        machine: &MachineProfile,
        options: PredictOptions,
        concurrent: u32,
    ) -> BlockSeconds {
        let table = CostTable::from_profile(machine);
        let sequential = predict_with(program, &table, machine, options);
        let times = block_times(program, machine, &table, options, &sequential);
        let shared = shared_nest_factors(&times, machine, concurrent.max(1));
        let factor = |n: Option<usize>| {
            n.filter(|&k| times.nests[k].operations_seconds > 0.0)
                .map_or(1.0, |k| shared[k].max(1.0))
        };
        let per_exec = times
            .per_exec
            .iter()
            .zip(&times.nest)
            .map(|(pe, ne)| pe.iter().zip(ne).map(|(s, n)| s * factor(*n)).collect())
            .collect();
        BlockSeconds {
            per_exec,
            interval_factor: sequential.interval.factor(),
        }
    }

    /// The factor either way of the program's sequential 90% interval on the machine,
    /// by which a segment's seconds are uncertain.
    pub fn interval_factor(&self) -> f64 {
        self.interval_factor
    }

    /// The blocks run by a team of threads at the pace `team` gives (a rank of a hybrid
    /// MPI + OpenMP program).
    pub fn threaded(mut self, team: &crate::hybrid::ThreadedBlocks) -> BlockSeconds {
        for (u, blocks) in self.per_exec.iter_mut().enumerate() {
            for (b, s) in blocks.iter_mut().enumerate() {
                *s = team.per_execution(u as u32, b as u32, *s);
            }
        }
        self
    }

    /// Seconds of the executions `(unit, block, executions)` of a segment.
    pub fn segment(&self, segment: &[(u32, u32, f64)]) -> f64 {
        segment
            .iter()
            .map(|&(u, b, n)| {
                n * self
                    .per_exec
                    .get(u as usize)
                    .and_then(|v| v.get(b as usize))
                    .copied()
                    .unwrap_or(0.0)
            })
            .sum()
    }
}
