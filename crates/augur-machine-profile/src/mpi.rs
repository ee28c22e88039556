//! The MPI side of a machine profile (`[mpi]`, `augur characterize --mpi`): the network as
//! the MPI library delivers it between ranks of this machine. Point-to-point time against
//! message size (a ping-pong, as OSU's `osu_latency` and IMB's PingPong measure it), the
//! protocols it shows (a jump in the curve where the library switches from eager to
//! rendezvous), each protocol's Hockney parameters (latency and bandwidth), the LogGP
//! parameters (Alexandrov et al. 1995) and the collectives against size and rank count.

use serde::{Deserialize, Serialize};

/// The network between ranks, as measured by `augur characterize --mpi`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct MpiProfile {
    /// The MPI library (first line of `mpirun --version`).
    pub library: String,
    /// The compiler behind the MPI wrapper (first line of `mpif90 --version`).
    pub compiler: String,
    /// Cores the ranks ran on (no rank count beyond them was timed).
    pub cores: u32,
    /// The rank counts of the collective experiments, ascending.
    pub ranks: Vec<u32>,
    /// One-way time of a message (half a ping-pong round trip) with no payload, seconds.
    pub latency_seconds: f64,
    /// The largest message of the eager protocol, bytes: the ping-pong time jumps after it
    /// (the library waits for the receiver before sending). `None` when no jump was found.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub eager_limit_bytes: Option<u64>,
    /// Hockney's `t = latency + bytes / bandwidth` fitted on each protocol's sizes.
    #[serde(default, rename = "protocol")]
    pub protocols: Vec<Protocol>,
    /// LogGP's parameters.
    pub loggp: LogGp,
    /// The ping-pong per message size.
    #[serde(default, rename = "pingpong")]
    pub pingpongs: Vec<Timing>,
    /// The collectives per operation, size and rank count.
    #[serde(default, rename = "collective")]
    pub collectives: Vec<Collective>,
    /// The wall-clock time of a job that only initializes and finalizes MPI, per rank
    /// count (1 to the cores): `mpirun`'s launch, MPI_Init and MPI_Finalize, which every
    /// job's wall clock includes.
    #[serde(default, rename = "startup", skip_serializing_if = "Vec::is_empty")]
    pub startups: Vec<Startup>,
    /// A message a rank sends to itself (one `MPI_Sendrecv` to its own rank), per size:
    /// the library copies it in memory, no network is involved. Empty in profiles
    /// measured before it was added.
    #[serde(
        default,
        rename = "self_message",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub self_messages: Vec<Timing>,
}

/// The time of an empty job at a rank count.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Startup {
    /// Ranks.
    pub ranks: u32,
    /// Median wall-clock seconds of `mpirun -np ranks` of a program that calls MPI_Init
    /// and MPI_Finalize only.
    pub seconds: f64,
}

impl MpiProfile {
    /// The empty job's time at `ranks` (the largest measured count's beyond them; `None`
    /// when not measured).
    pub fn startup(&self, ranks: u32) -> Option<f64> {
        self.startups
            .iter()
            .filter(|s| s.ranks <= ranks)
            .max_by_key(|s| s.ranks)
            .or_else(|| self.startups.iter().min_by_key(|s| s.ranks))
            .map(|s| s.seconds)
    }

    /// Seconds of a message of `bytes` a rank sends to itself ([`interpolated`] on the
    /// measured curve; `None` when not measured).
    pub fn self_message_seconds(&self, bytes: u64) -> Option<f64> {
        interpolated(&self.self_messages, bytes)
    }
}

/// The time of `bytes` on a curve of timings by ascending size: interpolated linearly
/// between sizes, extended by the last two sizes' slope beyond the largest, the first
/// size's time below it (`None` for an empty curve).
pub fn interpolated(pts: &[Timing], bytes: u64) -> Option<f64> {
    let first = pts.first()?;
    if bytes <= first.bytes || pts.len() == 1 {
        return Some(first.seconds);
    }
    let k = pts
        .windows(2)
        .position(|w| bytes <= w[1].bytes)
        .unwrap_or(pts.len() - 2);
    let (a, b) = (&pts[k], &pts[k + 1]);
    let slope = (b.seconds - a.seconds) / (b.bytes - a.bytes).max(1) as f64;
    Some((a.seconds + slope * (bytes as f64 - a.bytes as f64)).max(0.0))
}

/// Hockney's model on a range of message sizes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Protocol {
    /// `eager` or `rendezvous` (`single` when the curve shows no switch).
    pub name: String,
    /// Smallest message of the range, bytes.
    pub from_bytes: u64,
    /// Largest message of the range, bytes.
    pub to_bytes: u64,
    /// Fitted start-up time, seconds.
    pub latency_seconds: f64,
    /// Fitted asymptotic bandwidth, bytes per second.
    pub bytes_per_second: f64,
}

/// LogGP (Alexandrov, Ionescu, Schauser, Scheiman 1995): `L` latency on the wire, `o`
/// CPU overhead of a send and of a receive, `g` gap between messages, `G` gap per byte.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct LogGp {
    /// `L`: the one-way time of an empty message less both overheads, seconds.
    pub latency_seconds: f64,
    /// `o_s`: the time of posting one small non-blocking send, seconds.
    pub send_overhead_seconds: f64,
    /// `o_r`: the time of receiving a small message that has already arrived, seconds.
    pub receive_overhead_seconds: f64,
    /// `g`: time per message of a stream of 1-byte messages, seconds.
    pub gap_seconds: f64,
    /// `G`: seconds per byte of the largest messages' protocol.
    pub gap_per_byte_seconds: f64,
}

/// A measured time with its 90% interval.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Timing {
    /// Message size, bytes.
    pub bytes: u64,
    /// Mean seconds.
    pub seconds: f64,
    /// Half-width of the 90% confidence interval, seconds.
    pub half_width: f64,
    /// Observations.
    pub observations: u32,
}

/// One collective operation at one size and rank count.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Collective {
    /// `barrier`, `bcast`, `reduce`, `allreduce`, `gather`, `scatter`, `allgather`,
    /// `alltoall`.
    pub operation: String,
    /// Ranks.
    pub ranks: u32,
    /// Bytes per rank (the reductions: `bytes / 8` doubles summed).
    pub bytes: u64,
    /// Mean seconds per call, the slowest rank's.
    pub seconds: f64,
    /// Half-width of the 90% confidence interval, seconds.
    pub half_width: f64,
    /// Observations.
    pub observations: u32,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_startup_of_a_rank_count_not_measured_is_the_nearest_below() {
        let m = MpiProfile {
            startups: vec![
                Startup {
                    ranks: 1,
                    seconds: 0.4,
                },
                Startup {
                    ranks: 2,
                    seconds: 0.5,
                },
            ],
            ..MpiProfile::default()
        };
        assert_eq!(m.startup(1), Some(0.4));
        assert_eq!(m.startup(64), Some(0.5));
        assert_eq!(m.startup(0), Some(0.4));
        assert_eq!(m.self_message_seconds(8), None);
        assert_eq!(
            MpiProfile {
                startups: vec![],
                ..m
            }
            .startup(2),
            None
        );
    }

    #[test]
    fn a_self_message_is_interpolated_on_the_measured_sizes() {
        let t = |bytes, seconds| Timing {
            bytes,
            seconds,
            half_width: 0.0,
            observations: 1,
        };
        let m = MpiProfile {
            self_messages: vec![t(0, 1e-7), t(1000, 2e-7), t(2000, 4e-7)],
            ..MpiProfile::default()
        };
        let at = |b| m.self_message_seconds(b).unwrap();
        assert!((at(0) - 1e-7).abs() < 1e-15);
        assert!((at(500) - 1.5e-7).abs() < 1e-15);
        assert!((at(1500) - 3e-7).abs() < 1e-15);
        assert!((at(4000) - 8e-7).abs() < 1e-15);
    }
}
