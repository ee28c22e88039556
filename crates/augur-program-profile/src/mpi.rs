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
    /// `init`, `finalize`; point to point: `send` (also MPI_Ssend), `recv`, `isend`,
    /// `irecv`, `sendrecv`; completions: `wait`, `waitall`, `waitany`, `waitsome`, `test`,
    /// `testall`, `testany`, `testsome`; collectives: `barrier`, `bcast`, `reduce`,
    /// `allreduce`, `gather`, `scatter`, `allgather`, `alltoall`, `gatherv`, `scatterv`,
    /// `allgatherv`, `alltoallv`, `reduce_scatter`; communicators: `comm_split`,
    /// `comm_dup`, `cart_sub`, `comm` (the members of a communicator made otherwise,
    /// recorded before its first collective; not a call).
    pub op: String,
    /// The peer or root as a rank of MPI_COMM_WORLD (-1: none, or MPI_ANY_SOURCE not
    /// resolved; -2: MPI_PROC_NULL).
    pub peer: i32,
    /// Tag (-1: none, or MPI_ANY_TAG not resolved).
    pub tag: i32,
    /// Bytes sent (for `waitall` and the other calls on an array of requests: the
    /// requests; for `scatterv` at the root and `alltoallv`: all bytes sent; for
    /// `reduce_scatter`: all bytes reduced).
    pub bytes: i64,
    /// Bytes received where they differ (`sendrecv`, gathers and scatters; -1: none).
    pub bytes2: i64,
    /// The communicator's Fortran handle (0: none recorded, or MPI_COMM_WORLD).
    pub comm: i32,
    /// The request's Fortran handle (`sendrecv`: the source rank; `comm_split`,
    /// `comm_dup` and `cart_sub`: the new communicator's handle; -1: none).
    pub request: i64,
    /// The receive tag `sendrecv` matched (absent: the send's tag, as older profiles had).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recv_tag: Option<i32>,
    /// Bytes per rank of the communicator, in its rank order: received from each
    /// (`gatherv` at the root, `allgatherv`), sent to each (`scatterv` at the root), each
    /// rank's share (`reduce_scatter`), or sent to each then received from each
    /// (`alltoallv`, twice the ranks). Empty elsewhere.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub counts: Vec<i64>,
    /// `comm_split`, `comm_dup`, `cart_sub` (the new communicator) and `comm`: its
    /// members as ranks of MPI_COMM_WORLD, in its rank order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub members: Vec<u32>,
    /// The requests (Fortran handles) a wait or test completed (`waitall`, `waitany`,
    /// `waitsome`, `test`, `testall`, `testany`, `testsome`; empty when none did).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub completed: Vec<i64>,
    /// Where the program made the call (absent: unknown, e.g. a call from a library, or
    /// an older profile).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub site: Option<Site>,
}

impl Event {
    /// An event with only its operation (every other field -1, none or empty).
    pub fn new(op: &str) -> Event {
        Event {
            op: op.to_string(),
            peer: -1,
            tag: -1,
            bytes: 0,
            bytes2: -1,
            comm: 0,
            request: -1,
            recv_tag: None,
            counts: vec![],
            members: vec![],
            completed: vec![],
            site: None,
        }
    }

    /// Whether the event is an MPI call the program made (not a description the tracer
    /// added, `comm`).
    pub fn is_call(&self) -> bool {
        self.op != "comm"
    }
}

/// The source line of an MPI call.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Site {
    /// The file as the analysis named it.
    pub file: String,
    /// 1-based line of the CALL statement (its first line).
    pub line: u32,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_of_older_profiles_still_read() {
        let old = r#"{"op":"sendrecv","peer":1,"tag":3,"bytes":8,"bytes2":8,"comm":0,"request":1}"#;
        let e: Event = serde_json::from_str(old).unwrap();
        assert_eq!((e.recv_tag, e.site.clone()), (None, None));
        assert!(e.counts.is_empty() && e.members.is_empty() && e.completed.is_empty());
        // And new fields are written only when present.
        let back = serde_json::to_string(&e).unwrap();
        assert_eq!(back, old);
        let mut with = Event::new("gatherv");
        with.counts = vec![8, 16];
        with.site = Some(Site {
            file: "a.f90".into(),
            line: 12,
        });
        let text = serde_json::to_string(&with).unwrap();
        assert!(
            text.contains(r#""site":{"file":"a.f90","line":12}"#),
            "{text}"
        );
        assert_eq!(serde_json::from_str::<Event>(&text).unwrap(), with);
    }
}
