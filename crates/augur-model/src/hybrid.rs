//! A rank of a hybrid MPI + OpenMP program runs its compute segments with a team of
//! threads. The OpenMP model ([`crate::openmp`]) prices the program's per-thread counts
//! at `T` threads phase by phase; each block of a phase then takes the phase's time at
//! `T` (its slowest thread, serialized work, the threads' sharing of the cores and of the
//! memory bandwidth) over the phase's time on one thread, and the phase's construct
//! overheads (fork and join, schedule, barrier, reduction) fall on its least executed
//! block, once per execution of it (once per execution of the construct, for a loop's
//! header). Blocks outside every phase run as on one thread. A rank's segment then costs
//! what its blocks' executions cost at this pace, whatever share of the work the rank has.

use crate::openmp::predict_threads;
use crate::predict::PredictOptions;
use augur_machine_profile::MachineProfile;
use augur_program_profile::ProgramProfile;
use std::collections::HashMap;

/// How the blocks of a rank run with a team of threads.
#[derive(Debug, Clone, Default)]
pub struct ThreadedBlocks {
    /// Threads per rank.
    pub threads: u32,
    /// A phase block's time at `threads` over its time on one thread.
    scale: HashMap<(u32, u32), f64>,
    /// Seconds of construct overhead per execution of a block.
    extra: HashMap<(u32, u32), f64>,
    /// Parameters of the machine extrapolated beyond its measured thread counts.
    pub extrapolated: Vec<String>,
}

impl ThreadedBlocks {
    /// Seconds per execution of block `(unit, block)` that takes `alone` seconds per
    /// execution on one thread.
    pub fn per_execution(&self, unit: u32, block: u32, alone: f64) -> f64 {
        let key = (unit, block);
        alone * self.scale.get(&key).copied().unwrap_or(1.0)
            + self.extra.get(&key).copied().unwrap_or(0.0)
    }
}

/// The pace of `program`'s blocks with `threads` threads on `machine`, from its
/// per-thread counts at that count (`augur analyze --threads`).
pub fn threaded_blocks(
    program: &ProgramProfile,
    machine: &MachineProfile,
    options: PredictOptions,
    threads: u32,
) -> Result<ThreadedBlocks, String> {
    let prediction = predict_threads(program, machine, options, &[threads])?;
    let point = &prediction.points[0];
    let mut out = ThreadedBlocks {
        threads,
        extrapolated: point.extrapolated.clone(),
        ..ThreadedBlocks::default()
    };
    let run = program
        .openmp
        .as_ref()
        .and_then(|o| o.run(threads))
        .ok_or_else(|| format!("the program was not counted at {threads} threads"))?;
    // A block's executions in the counting run at this thread count, all threads.
    let executions = |u: u32, b: u32| -> Option<f64> {
        let n: f64 = run
            .counts_of(u, b, profile_executions(program, u, b)?)
            .iter()
            .sum();
        (n > 0.0).then_some(n)
    };
    for phase in point.phases.iter().filter(|p| p.alone_seconds > 0.0) {
        let work = (phase.seconds - phase.overhead).max(0.0) / phase.alone_seconds;
        for &b in &phase.blocks {
            out.scale.insert(b, work);
        }
        let least = phase
            .blocks
            .iter()
            .filter_map(|&(u, b)| Some(((u, b), executions(u, b)?)))
            .min_by(|x, y| x.1.total_cmp(&y.1));
        if let (true, Some((b, n))) = (phase.overhead > 0.0, least) {
            *out.extra.entry(b).or_default() += phase.overhead / n;
        }
    }
    Ok(out)
}

/// The executions of a block in the profile (none when it never ran).
fn profile_executions(program: &ProgramProfile, unit: u32, block: u32) -> Option<f64> {
    program
        .units
        .get(unit as usize)?
        .blocks
        .get(block as usize)?
        .executions
        .filter(|&n| n > 0.0)
}
