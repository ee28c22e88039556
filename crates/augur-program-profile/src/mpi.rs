//! The MPI side of a program profile (`augur analyze --mpi-ranks P,...`): per rank count
//! analyzed, each rank's sequence of compute segments (the blocks it executed between two
//! MPI calls) and MPI events, with repeated patterns stored once and a repeat count.

use serde::{Deserialize, Serialize};

/// The traces of every rank count analyzed.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct MpiProfile {
    /// One counting run per rank count, ascending.
    pub runs: Vec<MpiRun>,
}

/// One counting run under `mpirun -np ranks`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MpiRun {
    /// Ranks.
    pub ranks: u32,
    /// Wall-clock seconds of the (instrumented) run.
    pub wall_seconds: f64,
    /// Each rank's trace, by rank.
    pub traces: Vec<RankTrace>,
}

/// One rank's trace.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RankTrace {
    /// Rank in MPI_COMM_WORLD.
    pub rank: u32,
    /// MPI calls the rank made (the records expanded).
    pub calls: u64,
    /// The records in order.
    pub records: Vec<Record>,
}

/// A pattern of steps, `repeat` times in a row.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Record {
    /// Times the pattern repeats.
    pub repeat: u64,
    /// The pattern.
    pub steps: Vec<Step>,
}

/// A compute segment and the MPI call that ends it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Step {
    /// The blocks executed since the previous call: `(unit, block, executions)`.
    pub segment: Vec<(u32, u32, f64)>,
    /// The call.
    pub event: Event,
}

/// One MPI call.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Event {
    /// `init`, `finalize`, `send`, `recv`, `isend`, `irecv`, `wait`, `waitall`,
    /// `sendrecv`, `barrier`, `bcast`, `reduce`, `allreduce`, `gather`, `scatter`,
    /// `allgather`, `alltoall`.
    pub op: String,
    /// The peer or root as a rank of MPI_COMM_WORLD (-1: none).
    pub peer: i32,
    /// Tag (-1: none).
    pub tag: i32,
    /// Bytes sent (for `waitall`: the requests waited for).
    pub bytes: i64,
    /// Bytes received where they differ (`sendrecv`, gathers and scatters; -1: none).
    pub bytes2: i64,
    /// The communicator's Fortran handle (0: none recorded).
    pub comm: i32,
    /// The request's Fortran handle (`sendrecv`: the source rank; -1: none).
    pub request: i64,
}
