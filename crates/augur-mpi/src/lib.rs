//! MPI network characterization (`augur characterize --mpi`): the network between ranks
//! as the real MPI library delivers it, for the machine profile's `[mpi]` section
//! ([`augur_machine_profile::mpi`]).
//!
//! One generated Fortran program (`bench.f90`) is built with the MPI wrapper compiler
//! (`mpif90`) and the machine's flags and run under `mpirun -np P`. Ranks 0 and 1 time a
//! ping-pong for every message size from 0 bytes to [`Options::max_bytes`] (powers of two
//! and halfway between, as OSU's `osu_latency` and IMB's PingPong do), a stream of 1-byte
//! messages (LogGP's gap `g`), the posting of non-blocking sends (the send overhead `o_s`)
//! and receives of messages already there (`o_r`), rank 0's messages to itself by size
//! (`MPI_Sendrecv` to its own rank: a copy in memory); every rank count from 2 to the cores
//! times the collectives at 8 B, 1 KiB, 64 KiB and 1 MiB per rank. Each observation
//! repeats its operation until it lasts [`Options::observation_seconds`]; each figure is
//! the mean of its observations (outliers from a descheduled rank left out) with a 90%
//! interval.
//!
//! From the ping-pong curve: the latency (an empty message), the eager limit (the size
//! after which the time jumps: the library then waits for the receiver, [`protocols`]),
//! Hockney's latency and bandwidth per protocol, and LogGP's `L` and `G`.

use augur_machine_profile::mpi::{Collective, LogGp, MpiProfile, Protocol, Startup, Timing};
use augur_toolchain::experiment::{
    self, mean, mean_and_half_width, output_lines, without_outliers, ExperimentBuild,
};
use augur_toolchain::Toolchain;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

const BENCH_F90: &str = include_str!("bench.f90");

/// A job that only starts and ends MPI: what every job's wall clock includes.
const EMPTY_F90: &str = "program augur_empty_job\n  use mpi\n  implicit none\n  integer :: ierr\n  call MPI_Init(ierr)\n  call MPI_Finalize(ierr)\nend program augur_empty_job\n";

/// Timed runs of the empty job per rank count (the median is kept).
const STARTUP_RUNS: usize = 5;

/// What to measure and how long.
#[derive(Debug, Clone)]
pub struct Options {
    /// Observations of each size and operation.
    pub observations: u32,
    /// Seconds one observation lasts at least.
    pub observation_seconds: f64,
    /// The largest ping-pong message, bytes (the collectives stop at 1 MiB or here).
    pub max_bytes: u64,
    /// Rank counts of the collectives, ascending, each at least 2 (the point-to-point
    /// experiments run with the first).
    pub ranks: Vec<u32>,
}

impl Options {
    /// Ten observations of 5 ms, messages up to 4 MiB, 2 ranks to the cores.
    pub fn for_host(cores: u32) -> Options {
        Options {
            observations: 10,
            observation_seconds: 0.005,
            max_bytes: 4 << 20,
            ranks: (2..=cores.max(2)).collect(),
        }
    }
}

/// Why the characterization failed.
#[derive(Debug, thiserror::Error)]
pub enum MpiError {
    /// The MPI wrapper compiler or launcher is not installed.
    #[error("{tool} was not found on PATH: install an MPI library (Debian: apt-get install openmpi-bin libopenmpi-dev) or put its bin directory on PATH")]
    Missing {
        /// `mpif90` or `mpirun`.
        tool: String,
    },
    /// The benchmark did not build.
    #[error("the MPI benchmark does not build with {fc} {flags}: {message}; check that `{fc}` compiles a program with `use mpi`")]
    Build {
        /// The wrapper compiler.
        fc: String,
        /// Flags.
        flags: String,
        /// What went wrong.
        message: String,
    },
    /// mpirun failed or the benchmark printed something unreadable.
    #[error("the MPI benchmark under `mpirun -np {ranks}` {message}")]
    Run {
        /// Rank count.
        ranks: u32,
        /// What went wrong.
        message: String,
    },
    /// Interrupted.
    #[error("interrupted")]
    Cancelled,
}

/// The observations of the benchmark's runs.
#[derive(Debug, Default, PartialEq)]
struct Observed {
    /// Ping-pong: bytes → one-way seconds.
    pingpong: BTreeMap<u64, Vec<f64>>,
    /// A rank's message to itself: bytes → seconds.
    self_message: BTreeMap<u64, Vec<f64>>,
    /// Seconds per message of a stream of 1-byte messages.
    gap: Vec<f64>,
    /// Seconds per posted non-blocking send.
    send_overhead: Vec<f64>,
    /// Seconds per receive of a message already arrived.
    receive_overhead: Vec<f64>,
    /// (operation, ranks, bytes) → seconds per call.
    collectives: BTreeMap<(String, u32, u64), Vec<f64>>,
}

pub use augur_toolchain::find_on_path;

/// The MPI wrapper compiler and launcher (`mpif90`, `mpirun`) on `PATH`.
pub fn tools() -> Result<(PathBuf, PathBuf), MpiError> {
    let missing = |tool: &str| MpiError::Missing { tool: tool.into() };
    let mpif90 = find_on_path("mpif90").ok_or_else(|| missing("mpif90"))?;
    let mpirun = find_on_path("mpirun").ok_or_else(|| missing("mpirun"))?;
    Ok((mpif90, mpirun))
}

/// The first line a program prints for `--version` (empty if it prints nothing).
fn version_line(program: &Path) -> String {
    Command::new(program)
        .arg("--version")
        .env("LC_ALL", "C")
        .output()
        .map(|o| {
            String::from_utf8_lossy(&o.stdout)
                .lines()
                .next()
                .unwrap_or("")
                .trim()
                .to_string()
        })
        .unwrap_or_default()
}

/// Measures the network between ranks with the MPI wrapper compiler and `fflags`;
/// `progress` hears about each run.
pub fn characterize(
    fflags: &[String],
    opts: &Options,
    cores: u32,
    progress: &mut dyn FnMut(&str),
) -> Result<MpiProfile, MpiError> {
    let (mpif90, mpirun) = tools()?;
    let fc = mpif90.display().to_string();
    let build_error = |message: String| MpiError::Build {
        fc: fc.clone(),
        flags: fflags.join(" "),
        message,
    };
    let tc = Toolchain::detect(&fc, &fflags.join(" ")).map_err(|e| build_error(e.to_string()))?;
    let dir = augur_toolchain::interrupt::temp_dir("augur-mpi-")
        .map_err(|e| build_error(format!("cannot create a build directory: {e}")))?;
    let exe = ExperimentBuild::new(&tc, dir.path(), "augur_mpibench")
        .write_and_build(&[("bench.f90", BENCH_F90.to_string())])
        .map_err(|e| match e {
            experiment::BuildFailure::Cancelled => MpiError::Cancelled,
            e => build_error(experiment::leading_lines(&e.to_string(), 3)),
        })?;
    let mut all = Observed::default();
    for (i, &p) in opts.ranks.iter().enumerate() {
        let what = if i == 0 {
            "point to point and collectives"
        } else {
            "collectives"
        };
        progress(&format!("{p} ranks: {what}"));
        let o = run(&mpirun, &exe, dir.path(), p, i == 0, opts)?;
        all.merge(o);
    }
    let mut m = summarize(&all, opts, cores)?;
    m.library = version_line(&mpirun);
    m.compiler = tc.version.clone();
    progress("an empty job at each rank count (launch, MPI_Init, MPI_Finalize)");
    m.startups = startups(&tc, &mpirun, dir.path(), cores)?;
    Ok(m)
}

/// The median wall-clock time of the empty job at each rank count from 1 to the cores.
fn startups(
    tc: &Toolchain,
    mpirun: &Path,
    dir: &Path,
    cores: u32,
) -> Result<Vec<Startup>, MpiError> {
    let exe = ExperimentBuild::new(tc, dir, "augur_empty_job")
        .write_and_build(&[("empty.f90", EMPTY_F90.to_string())])
        .map_err(|e| match e {
            experiment::BuildFailure::Cancelled => MpiError::Cancelled,
            e => MpiError::Build {
                fc: tc.fc.clone(),
                flags: tc.fflags.join(" "),
                message: experiment::leading_lines(&e.to_string(), 3),
            },
        })?;
    let mut out = vec![];
    for p in 1..=cores.max(1) {
        let mut times = vec![];
        for _ in 0..STARTUP_RUNS {
            let args = augur_toolchain::mpirun_args(p, &exe, false, &[]);
            let failed = |message: String| MpiError::Run { ranks: p, message };
            let ran = experiment::run(mpirun, dir, args, Duration::from_secs(120)).map_err(
                |e| match e {
                    experiment::RunFailure::Cancelled => MpiError::Cancelled,
                    e => failed(e.to_string()),
                },
            )?;
            if !ran.success() {
                return Err(failed(ran.describe()));
            }
            times.push(ran.wall.as_secs_f64());
        }
        times.sort_by(f64::total_cmp);
        out.push(Startup {
            ranks: p,
            seconds: times[times.len() / 2],
        });
    }
    Ok(out)
}

/// One run of the benchmark under `mpirun -np ranks`.
fn run(
    mpirun: &Path,
    exe: &Path,
    dir: &Path,
    ranks: u32,
    point_to_point: bool,
    opts: &Options,
) -> Result<Observed, MpiError> {
    let args = augur_toolchain::mpirun_args(
        ranks,
        exe,
        false,
        &[
            opts.observations.to_string(),
            opts.observation_seconds.to_string(),
            opts.max_bytes.min(i32::MAX as u64).to_string(),
            u8::from(point_to_point).to_string(),
        ],
    );
    let failed = |message: String| MpiError::Run { ranks, message };
    let ran =
        experiment::run(mpirun, dir, args, Duration::from_secs(600)).map_err(|e| match e {
            experiment::RunFailure::Cancelled => MpiError::Cancelled,
            e => failed(e.to_string()),
        })?;
    if !ran.success() {
        let stderr = String::from_utf8_lossy(&ran.stderr);
        return Err(failed(format!(
            "{}: {}",
            ran.describe(),
            experiment::leading_lines(stderr.trim(), 4)
        )));
    }
    parse(&String::from_utf8_lossy(&ran.stdout), ranks).map_err(failed)
}

/// Reads the benchmark's output (run with `ranks` ranks).
fn parse(text: &str, ranks: u32) -> Result<Observed, String> {
    let mut o = Observed::default();
    for line in output_lines(text) {
        match line.keyword() {
            Some("AUGPP") => o
                .pingpong
                .entry(line.field(1)?)
                .or_default()
                .push(line.field(2)?),
            Some("AUGSELF") => o
                .self_message
                .entry(line.field(1)?)
                .or_default()
                .push(line.field(2)?),
            Some("AUGGAP") => o.gap.push(line.field(1)?),
            Some("AUGOS") => o.send_overhead.push(line.field(1)?),
            Some("AUGOR") => o.receive_overhead.push(line.field(1)?),
            Some("AUGCOLL") => o
                .collectives
                .entry((line.field(1)?, ranks, line.field(2)?))
                .or_default()
                .push(line.field(3)?),
            _ => {}
        }
    }
    if o.collectives.is_empty() {
        return Err("printed no collective timing".into());
    }
    Ok(o)
}

impl Observed {
    fn merge(&mut self, o: Observed) {
        for (k, v) in o.pingpong {
            self.pingpong.entry(k).or_default().extend(v);
        }
        for (k, v) in o.self_message {
            self.self_message.entry(k).or_default().extend(v);
        }
        self.gap.extend(o.gap);
        self.send_overhead.extend(o.send_overhead);
        self.receive_overhead.extend(o.receive_overhead);
        for (k, v) in o.collectives {
            self.collectives.entry(k).or_default().extend(v);
        }
    }
}

/// Mean and 90% half-width of some observations, outliers left out.
fn timing(bytes: u64, obs: &[f64]) -> Timing {
    let kept = without_outliers(obs);
    let (seconds, half_width) = mean_and_half_width(&kept);
    Timing {
        bytes,
        seconds,
        half_width,
        observations: kept.len() as u32,
    }
}

/// The profile section from the observations.
fn summarize(o: &Observed, opts: &Options, cores: u32) -> Result<MpiProfile, MpiError> {
    let pingpongs: Vec<Timing> = o.pingpong.iter().map(|(&b, v)| timing(b, v)).collect();
    let Some(empty) = pingpongs.iter().find(|t| t.bytes == 0) else {
        return Err(MpiError::Run {
            ranks: opts.ranks.first().copied().unwrap_or(2),
            message: "printed no ping-pong of an empty message".into(),
        });
    };
    let latency = empty.seconds;
    let curve: Vec<(f64, f64)> = pingpongs
        .iter()
        .map(|t| (t.bytes as f64, t.seconds))
        .collect();
    let (eager_limit_bytes, protocols) = protocols(&curve);
    let overhead = |v: &[f64]| mean(&without_outliers(v));
    let (o_s, o_r) = (overhead(&o.send_overhead), overhead(&o.receive_overhead));
    let loggp = LogGp {
        latency_seconds: (latency - o_s - o_r).max(0.0),
        send_overhead_seconds: o_s,
        receive_overhead_seconds: o_r,
        gap_seconds: overhead(&o.gap),
        gap_per_byte_seconds: protocols.last().map_or(0.0, |p| 1.0 / p.bytes_per_second),
    };
    let collectives = o
        .collectives
        .iter()
        .map(|((op, ranks, bytes), v)| {
            let t = timing(*bytes, v);
            Collective {
                operation: op.clone(),
                ranks: *ranks,
                bytes: *bytes,
                seconds: t.seconds,
                half_width: t.half_width,
                observations: t.observations,
            }
        })
        .collect();
    Ok(MpiProfile {
        library: String::new(),
        compiler: String::new(),
        cores,
        ranks: opts.ranks.clone(),
        latency_seconds: latency,
        eager_limit_bytes,
        protocols,
        loggp,
        pingpongs,
        collectives,
        startups: vec![],
        self_messages: o.self_message.iter().map(|(&b, v)| timing(b, v)).collect(),
    })
}

/// Messages below this size are all start-up: the protocols are fitted from here on.
const SMALLEST_FITTED: f64 = 64.0;

/// Hockney's line `t = a + c·bytes`: `(a, c)`.
type Line = (f64, f64);

/// One line's relative RMS error below which a curve is one protocol (a few % is the
/// noise of timings on a shared machine).
const NOISE: f64 = 0.05;

/// The protocols of a ping-pong curve `(bytes, seconds)` (ascending sizes): the split
/// into two ranges, each fitted by Hockney's `t = a + bytes/B` (least squares on relative
/// errors), that fits best, when one line misses by more than [`NOISE`], the split fits
/// at least twice as well and the time jumps at the split (the second protocol starts
/// above where the first one's line reaches); else one protocol. Returns the eager limit (the first range's largest size)
/// and the protocols.
pub fn protocols(curve: &[(f64, f64)]) -> (Option<u64>, Vec<Protocol>) {
    let pts: Vec<(f64, f64)> = curve
        .iter()
        .copied()
        .filter(|&(b, t)| b >= SMALLEST_FITTED && t > 0.0)
        .collect();
    let Some(single) = hockney(&pts) else {
        return (None, vec![]);
    };
    let protocol = |name: &str, pts: &[(f64, f64)], (a, c): (f64, f64)| Protocol {
        name: name.into(),
        from_bytes: pts.first().map_or(0, |p| p.0 as u64),
        to_bytes: pts.last().map_or(0, |p| p.0 as u64),
        latency_seconds: a,
        bytes_per_second: 1.0 / c.max(1e-15),
    };
    // (cost, split index, the two lines)
    let mut best: Option<(f64, usize, Line, Line)> = None;
    for k in 3..pts.len().saturating_sub(2) {
        let (lo, hi) = pts.split_at(k);
        let (Some(f1), Some(f2)) = (hockney(lo), hockney(hi)) else {
            continue;
        };
        let first = hi[0].0;
        let jumps = f2.0 + f2.1 * first > f1.0 + f1.1 * first;
        let cost = relative_sse(lo, f1) + relative_sse(hi, f2);
        if jumps && best.map_or(true, |b| cost < b.0) {
            best = Some((cost, k, f1, f2));
        }
    }
    let single_cost = relative_sse(&pts, single);
    let single_rms = (single_cost / pts.len() as f64).sqrt();
    match best {
        Some((cost, k, f1, f2)) if single_rms > NOISE && cost < 0.5 * single_cost => {
            let (lo, hi) = pts.split_at(k);
            let limit = lo.last().map(|p| p.0 as u64);
            (
                limit,
                vec![protocol("eager", lo, f1), protocol("rendezvous", hi, f2)],
            )
        }
        _ => (None, vec![protocol("single", &pts, single)]),
    }
}

/// Weighted least squares of `t = a + c·bytes` with weights `1/t²` (relative errors):
/// `(a, c)`, or `None` for fewer than two distinct sizes.
fn hockney(pts: &[(f64, f64)]) -> Option<(f64, f64)> {
    let (mut sw, mut sx, mut sy, mut sxx, mut sxy) = (0.0, 0.0, 0.0, 0.0, 0.0);
    for &(x, y) in pts {
        let w = 1.0 / (y * y);
        sw += w;
        sx += w * x;
        sy += w * y;
        sxx += w * x * x;
        sxy += w * x * y;
    }
    let det = sw * sxx - sx * sx;
    if pts.len() < 2 || det.abs() <= f64::EPSILON * sw * sxx {
        return None;
    }
    let c = (sw * sxy - sx * sy) / det;
    let a = (sy - c * sx) / sw;
    Some((a, c))
}

fn relative_sse(pts: &[(f64, f64)], (a, c): (f64, f64)) -> f64 {
    pts.iter()
        .map(|&(x, y)| ((a + c * x - y) / y).powi(2))
        .sum()
}

/// A half-width in percent of its mean.
fn percent(half_width: f64, seconds: f64) -> f64 {
    100.0 * half_width / seconds.max(1e-300)
}

/// The tables of `augur characterize --mpi`: latency, protocols, LogGP, the ping-pong at
/// a few sizes and the collectives (µs).
pub fn report(m: &MpiProfile) -> String {
    let us = |s: f64| s * 1e6;
    let mut s = format!(
        "MPI network ({}; {}):\nlatency {:.3} µs (one way, empty message); eager limit {}\n",
        m.library,
        m.compiler,
        us(m.latency_seconds),
        m.eager_limit_bytes
            .map_or("not found".to_string(), |b| format!("{b} bytes")),
    );
    for p in &m.protocols {
        s += &format!(
            "  {:<10} {:>8} - {:>8} bytes: latency {:8.3} µs, bandwidth {:7.2} GB/s\n",
            p.name,
            p.from_bytes,
            p.to_bytes,
            us(p.latency_seconds),
            p.bytes_per_second / 1e9
        );
    }
    let g = &m.loggp;
    s += &format!(
        "LogGP: L {:.3} µs, o_s {:.3} µs, o_r {:.3} µs, g {:.3} µs, G {:.4} ns/byte\n",
        us(g.latency_seconds),
        us(g.send_overhead_seconds),
        us(g.receive_overhead_seconds),
        us(g.gap_seconds),
        g.gap_per_byte_seconds * 1e9
    );
    s += "ping-pong, one way; a message to itself:\n     bytes         µs     ±90%     GB/s  to itself µs\n";
    for t in m
        .pingpongs
        .iter()
        .filter(|t| t.bytes.is_power_of_two() || t.bytes == 0)
    {
        let gbs = if t.seconds > 0.0 {
            t.bytes as f64 / t.seconds / 1e9
        } else {
            0.0
        };
        let own = m
            .self_messages
            .iter()
            .find(|o| o.bytes == t.bytes)
            .map_or("-".to_string(), |o| format!("{:.3}", us(o.seconds)));
        s += &format!(
            "{:>10} {:>10.3} {:>7.1}% {:>8.3} {own:>13}\n",
            t.bytes,
            us(t.seconds),
            percent(t.half_width, t.seconds),
            gbs
        );
    }
    for j in &m.startups {
        s += &format!(
            "empty job (mpirun, MPI_Init, MPI_Finalize) at {} rank(s): {:.3} s\n",
            j.ranks, j.seconds
        );
    }
    s += "collectives, µs per call (slowest rank; ±90% in %):\n";
    for c in &m.collectives {
        s += &format!(
            "  {:<10} {:>2} ranks {:>8} bytes {:>10.3} ±{:>5.1}%\n",
            c.operation,
            c.ranks,
            c.bytes,
            us(c.seconds),
            percent(c.half_width, c.seconds)
        );
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A curve with an eager protocol (0.5 µs + 10 GB/s) up to 4 KiB and a rendezvous
    /// one (3 µs + 20 GB/s) from 6 KiB: the split falls at 4 KiB.
    fn two_protocols() -> Vec<(f64, f64)> {
        let mut b = 64.0;
        let mut v = vec![];
        while b <= 4.0 * 1024.0 * 1024.0 {
            for x in [b, 1.5 * b] {
                let t = if x <= 4096.0 {
                    0.5e-6 + x / 10e9
                } else {
                    3e-6 + x / 20e9
                };
                v.push((x, t));
            }
            b *= 2.0;
        }
        v
    }

    #[test]
    fn the_eager_limit_is_where_the_time_jumps() {
        let (limit, p) = protocols(&two_protocols());
        assert_eq!(limit, Some(4096));
        assert_eq!(p.len(), 2);
        assert!((p[0].latency_seconds - 0.5e-6).abs() < 1e-9, "{p:?}");
        assert!((p[1].bytes_per_second / 20e9 - 1.0).abs() < 1e-6, "{p:?}");
    }

    #[test]
    fn one_protocol_without_a_jump() {
        let curve: Vec<(f64, f64)> = two_protocols()
            .iter()
            .map(|&(x, _)| (x, 1e-6 + x / 10e9))
            .collect();
        let (limit, p) = protocols(&curve);
        assert_eq!(limit, None);
        assert_eq!(p.len(), 1);
        assert_eq!(p[0].name, "single");
    }

    #[test]
    fn output_lines_are_read_and_bad_ones_named() {
        let text = "AUGPP 0 1.0E-06\nAUGPP 0 2.0E-06\nAUGGAP 3.0E-07\nnoise\n\
                    AUGCOLL allreduce 8 4.0E-06\n";
        let o = parse(text, 2).unwrap();
        assert_eq!(o.pingpong[&0], vec![1e-6, 2e-6]);
        assert_eq!(o.collectives[&("allreduce".into(), 2, 8)], vec![4e-6]);
        let e = parse("AUGPP x 1\n", 2).unwrap_err();
        assert!(e.contains("line 1") && e.contains("AUGPP x 1"), "{e}");
        assert!(parse("AUGPP 0 1e-6\n", 2)
            .unwrap_err()
            .contains("no collective"));
    }
}
