//! The OpenMP side of a machine profile (`[openmp]`, `augur characterize --openmp`):
//! the overheads of the constructs per thread count, measured by EPCC's method (a
//! construct around a reference delay, less the delay alone; Bull 1999), and the
//! bandwidth of each memory level against the thread count (a STREAM triad with P
//! threads). Thread counts beyond those measured are extrapolated (see
//! [`OpenMpProfile::overhead`]) and the prediction says so.

use serde::{Deserialize, Serialize};

/// Overheads and bandwidths per thread count.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OpenMpProfile {
    /// Cores the measurements could use (threads beyond share them).
    pub cores: u32,
    /// The thread counts measured, ascending.
    pub threads: Vec<u32>,
    /// The reference delay each construct wrapped, in seconds.
    pub delay_seconds: f64,
    /// Iterations per thread of the schedule experiments.
    pub schedule_iterations: u32,
    /// One row per construct and thread count.
    #[serde(default, rename = "overhead")]
    pub overheads: Vec<Overhead>,
    /// One row per memory level and thread count.
    #[serde(default, rename = "bandwidth")]
    pub bandwidths: Vec<Bandwidth>,
}

/// The overhead of one construct at one thread count.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Overhead {
    /// `parallel`, `do`, `parallel_do`, `barrier`, `single`, `critical`, `lock`,
    /// `atomic`, `atomic_table`, `false_sharing`, `reduction`, `library_lock` (a reseed of
    /// the run-time library's random generator by every thread in turn, per reseed), or a
    /// schedule: `static`, `static_chunk`, `dynamic`, `guided` (with `chunk`).
    pub construct: String,
    /// Chunk size of a schedule experiment (0: none given).
    #[serde(default)]
    pub chunk: u32,
    /// Threads.
    pub threads: u32,
    /// Seconds per execution: per region, per loop, per barrier, per entry of a
    /// critical section or lock (serialized), per atomic update on its thread; for a
    /// schedule, per execution of a loop of `schedule_iterations` per thread.
    pub seconds: f64,
    /// Half-width of its 90% confidence interval, seconds.
    pub half_width: f64,
    /// Observations.
    pub observations: u32,
}

/// The bandwidth of one working-set size at one thread count.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Bandwidth {
    /// The level the working set fits in: `L1`, `L2`, `L3`, `memory`.
    pub level: String,
    /// Bytes of the three arrays of the triad.
    pub bytes: u64,
    /// Threads.
    pub threads: u32,
    /// Bytes per second, all threads together (STREAM's count: 24 bytes per element).
    pub bytes_per_second: f64,
    /// Whether the level is shared by the cores (the OS's `shared_cpu_list`): a private
    /// cache gives each core its own bandwidth, whatever the triad shows.
    #[serde(default = "shared_by_default")]
    pub shared: bool,
}

fn shared_by_default() -> bool {
    true
}

/// A value for a thread count, and how it was obtained when not measured there.
#[derive(Debug, Clone, PartialEq)]
pub struct AtThreads {
    /// The value.
    pub value: f64,
    /// `None` when measured at that thread count, else how it was extrapolated.
    pub extrapolated: Option<String>,
}

impl OpenMpProfile {
    /// The overhead of `construct` (with `chunk`, 0 for none) at `threads` threads:
    /// measured, or beyond the measured counts `a + b·log2(P)` fitted to them (a tree
    /// barrier's growth), never below the largest measured value; `None` when the
    /// construct was not measured.
    pub fn overhead(&self, construct: &str, chunk: u32, threads: u32) -> Option<AtThreads> {
        let rows: Vec<(f64, f64)> = self
            .overheads
            .iter()
            .filter(|o| o.construct == construct && o.chunk == chunk)
            .map(|o| (o.threads as f64, o.seconds))
            .collect();
        at_threads(&rows, threads, "a + b·log2(P) fitted to", |p| p.log2())
    }

    /// Whether `level` is private to a core (its bandwidth is not shared).
    pub fn is_private(&self, level: &str) -> bool {
        self.bandwidths
            .iter()
            .any(|b| b.level == level && !b.shared)
    }

    /// The bandwidth of `level` with `threads` threads: measured, or beyond the
    /// measured counts the largest measured (the chip's bandwidth does not grow with
    /// threads it does not have); `None` when not measured.
    pub fn bandwidth(&self, level: &str, threads: u32) -> Option<AtThreads> {
        let rows: Vec<(u32, f64)> = self
            .bandwidths
            .iter()
            .filter(|b| b.level == level)
            .map(|b| (b.threads, b.bytes_per_second))
            .collect();
        if let Some(r) = rows.iter().find(|r| r.0 == threads) {
            return Some(AtThreads {
                value: r.1,
                extrapolated: None,
            });
        }
        let best = rows.iter().max_by_key(|r| r.0)?;
        Some(AtThreads {
            value: best.1,
            extrapolated: Some(format!(
                "{level} bandwidth at {threads} threads taken as at {} (the most measured)",
                best.0
            )),
        })
    }
}

/// A value at `threads` from `(threads, value)` rows: the row itself, or a least-squares
/// fit of `value = a + b·f(threads)`, clamped to at least the largest value measured.
fn at_threads(
    rows: &[(f64, f64)],
    threads: u32,
    how: &str,
    f: impl Fn(f64) -> f64,
) -> Option<AtThreads> {
    let p = threads as f64;
    if let Some(r) = rows.iter().find(|r| r.0 == p) {
        return Some(AtThreads {
            value: r.1,
            extrapolated: None,
        });
    }
    let max = rows.iter().map(|r| r.1).fold(f64::NAN, f64::max);
    if rows.is_empty() {
        return None;
    }
    let n = rows.len() as f64;
    let (sx, sy) = rows
        .iter()
        .fold((0.0, 0.0), |(a, b), r| (a + f(r.0), b + r.1));
    let (mx, my) = (sx / n, sy / n);
    let sxx: f64 = rows.iter().map(|r| (f(r.0) - mx).powi(2)).sum();
    let sxy: f64 = rows.iter().map(|r| (f(r.0) - mx) * (r.1 - my)).sum();
    let b = if sxx > 0.0 { (sxy / sxx).max(0.0) } else { 0.0 };
    let value = (my + b * (f(p) - mx)).max(if p > mx { max } else { 0.0 });
    let measured: Vec<String> = rows.iter().map(|r| format!("{}", r.0)).collect();
    Some(AtThreads {
        value,
        extrapolated: Some(format!("{how} P = {}", measured.join(", "))),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn profile() -> OpenMpProfile {
        let o = |t: u32, s: f64| Overhead {
            construct: "barrier".into(),
            chunk: 0,
            threads: t,
            seconds: s,
            half_width: s * 0.01,
            observations: 20,
        };
        OpenMpProfile {
            cores: 2,
            threads: vec![1, 2],
            delay_seconds: 1e-7,
            schedule_iterations: 128,
            overheads: vec![o(1, 1e-7), o(2, 5e-7)],
            bandwidths: vec![Bandwidth {
                level: "memory".into(),
                bytes: 1 << 28,
                threads: 2,
                bytes_per_second: 2e10,
                shared: true,
            }],
        }
    }

    #[test]
    fn measured_values_are_returned_as_such() {
        let p = profile();
        let b = p.overhead("barrier", 0, 2).unwrap();
        assert_eq!(b.value, 5e-7);
        assert!(b.extrapolated.is_none());
        assert!(p.overhead("critical", 0, 2).is_none());
    }

    #[test]
    fn beyond_the_measured_counts_grows_with_log2_p() {
        let p = profile();
        let b4 = p.overhead("barrier", 0, 4).unwrap();
        // a + b·log2 P through (0, 1e-7) and (1, 5e-7): at log2 4 = 2, 9e-7.
        assert!((b4.value - 9e-7).abs() < 1e-12, "{}", b4.value);
        assert!(b4.extrapolated.unwrap().contains("log2"));
        let bw = p.bandwidth("memory", 8).unwrap();
        assert_eq!(bw.value, 2e10);
        assert!(bw.extrapolated.is_some());
    }
}
