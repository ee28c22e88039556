//! An OpenMP profile: the program's constructs (parallel regions, shared loops,
//! critical sections, ...) and, for each thread count it was counted at, how the
//! executions of every block inside them split across the threads — so the predictor
//! prices the slowest thread of each region rather than assuming balance.

use augur_ir::omp::Construct;
use serde::{Deserialize, Serialize};

/// The OpenMP side of a program profile.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct OpenMpProfile {
    /// The constructs of each unit that has any.
    pub units: Vec<UnitConstructs>,
    /// One counting run per thread count, ascending.
    pub runs: Vec<ThreadRun>,
}

/// The constructs of one unit.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct UnitConstructs {
    /// The unit's index in the profile's `units`.
    pub unit: u32,
    /// Its constructs, outer before inner (blocks and loops are the unit's ids).
    pub constructs: Vec<Construct>,
}

/// A counting run with `threads` threads.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct ThreadRun {
    /// `OMP_NUM_THREADS` of the run.
    pub threads: u32,
    /// Wall-clock seconds of the (instrumented) run.
    pub wall_seconds: f64,
    /// The blocks whose executions were not all on thread 0 or differ from the
    /// profile's count; every other block ran its profile count on thread 0.
    pub blocks: Vec<ThreadCounts>,
    /// The minor page faults (first touches) of each thread of the process, largest
    /// first: who touched the memory first (empty when not recorded).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub task_faults: Vec<u64>,
}

/// A block's executions per thread.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct ThreadCounts {
    /// Unit index.
    pub unit: u32,
    /// Block id.
    pub block: u32,
    /// Executions by thread 0, 1, ... (`threads` entries).
    pub counts: Vec<f64>,
}

impl OpenMpProfile {
    /// The run at `threads` threads, if counted.
    pub fn run(&self, threads: u32) -> Option<&ThreadRun> {
        self.runs.iter().find(|r| r.threads == threads)
    }

    /// The thread counts counted.
    pub fn thread_counts(&self) -> Vec<u32> {
        self.runs.iter().map(|r| r.threads).collect()
    }

    /// The constructs of unit `unit`.
    pub fn constructs_of(&self, unit: u32) -> &[Construct] {
        self.units
            .iter()
            .find(|u| u.unit == unit)
            .map(|u| u.constructs.as_slice())
            .unwrap_or(&[])
    }
}

impl ThreadRun {
    /// The share of the program's first touches on the thread that took the most,
    /// with `cores` cores to take them (1 when not recorded).
    pub fn first_touch_share(&self, cores: u32) -> f64 {
        let total: u64 = self.task_faults.iter().sum();
        let Some(&max) = self.task_faults.iter().max() else {
            return 1.0;
        };
        if total == 0 {
            return 1.0;
        }
        (max as f64).max(total as f64 / cores.max(1) as f64) / total as f64
    }

    /// The executions of block `block` of unit `unit` by each thread, given the
    /// profile's count of the block (which thread 0 ran when the run lists nothing).
    pub fn counts_of(&self, unit: u32, block: u32, profile_count: f64) -> Vec<f64> {
        match self
            .blocks
            .iter()
            .find(|b| b.unit == unit && b.block == block)
        {
            Some(b) => b.counts.clone(),
            None => {
                let mut v = vec![0.0; self.threads.max(1) as usize];
                v[0] = profile_count;
                v
            }
        }
    }
}
