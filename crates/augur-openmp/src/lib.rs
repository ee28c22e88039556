//! OpenMP characterization (`augur characterize --openmp`): the overheads of the
//! constructs and memory bandwidth against the thread count, for the machine profile's
//! `[openmp]` section ([`augur_machine_profile::openmp`]).
//!
//! The method is EPCC's (Bull 1999, syncbench and schedbench): each construct runs
//! around a reference delay, many times per observation; its overhead is the time per
//! execution less the delay's, measured in the same process. A critical section or lock
//! serializes its entries, so its overhead is per entry; an atomic update's is per update
//! on its thread's timeline, of one variable back to back (`atomic`: every update passes
//! the line from core to core) and, after the delay, of a slot of a table the updates
//! spread over (`atomic_table`: an update waits for its line only when another core
//! wrote it last, as a histogram's do); a schedule's is per execution of a loop of
//! `schedule_iterations` delays per thread; false sharing's is per store of a thread
//! into its own word of a line the others store into, less a store into a line of its
//! own (measured from 2 threads); the run-time library's lock's (`library_lock`) is per
//! reseed of gfortran's random generator (`RANDOM_SEED(PUT=)`, which takes the library's
//! one mutex) by every thread in turn, on the wall clock: alone, the time the lock is
//! held; with P threads, that and the handover. Each construct gets its observations' mean
//! and 90% interval; constructs whose interval is wider than 5% of the mean are observed
//! again (up to [`Options::max_rounds`] rounds). Bandwidth is STREAM's triad with the
//! team, per working-set size (each cache level and memory), best of five, in three runs
//! seconds apart (the median kept: one run another program's traffic slowed, or one
//! quiet moment sped up, does not decide it).
//!
//! The benchmark is one generated Fortran program (`bench.f90`, with the delay compiled
//! apart in `delay.f90` so that nothing is optimized into it) built with the machine's
//! compiler and flags plus `-fopenmp`.

use augur_machine_profile::openmp::{Bandwidth, OpenMpProfile, Overhead};
use augur_toolchain::experiment::{
    self, mean, mean_and_half_width, output_lines, without_outliers, ExperimentBuild,
};
use augur_toolchain::Toolchain;
use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

const BENCH_F90: &str = include_str!("bench.f90");
const DELAY_F90: &str = include_str!("delay.f90");

/// What to measure and how long.
#[derive(Debug, Clone)]
pub struct Options {
    /// Thread counts, ascending (default 1 to the cores).
    pub threads: Vec<u32>,
    /// Observations per construct in the first round.
    pub observations: u32,
    /// Seconds one observation lasts.
    pub observation_seconds: f64,
    /// The reference delay, seconds.
    pub delay_seconds: f64,
    /// Iterations per thread of the schedule experiments.
    pub schedule_iterations: u32,
    /// Rounds at most (each round observes again, twice as many times, the constructs
    /// still above 5%).
    pub max_rounds: u32,
    /// The working sets of the bandwidth experiments: level name and bytes per thread
    /// (private levels) or in all (shared levels: `shared` true).
    pub levels: Vec<Level>,
}

/// A working set of the bandwidth experiments.
#[derive(Debug, Clone, PartialEq)]
pub struct Level {
    /// `L1`, `L2`, `L3`, `memory`.
    pub name: String,
    /// Bytes of the three arrays.
    pub bytes: u64,
    /// Whether `bytes` is the whole team's (a shared level) rather than each thread's.
    pub shared: bool,
}

impl Options {
    /// EPCC's method scaled to this machine's cores and caches: 20 observations of
    /// 2 ms, a 20 ns delay (short, so that its own noise does not hide overheads of a
    /// few ns), 128 iterations per thread, half of each cache level.
    pub fn for_host(cores: u32) -> Options {
        let os = augur_toolchain::os::detect();
        let mut levels = vec![];
        for c in &os.caches {
            let shared = c.shared_cpus.unwrap_or(1) > 1;
            levels.push(Level {
                name: if c.name.starts_with("L1") {
                    "L1".into()
                } else {
                    c.name.clone()
                },
                bytes: c.size / 2,
                shared,
            });
        }
        levels.push(Level {
            name: "memory".into(),
            // Past every cache, within what the memory experiments span
            // (`PAST_CACHES_MAX_BYTES`: a guest shown a socket's 480 MiB last level had
            // triads over 3.8 GB).
            bytes: (os.llc() * 8).clamp(256 << 20, augur_toolchain::os::PAST_CACHES_MAX_BYTES),
            shared: true,
        });
        Options {
            threads: (1..=cores.max(1)).collect(),
            observations: 20,
            observation_seconds: 0.002,
            delay_seconds: 2e-8,
            schedule_iterations: 128,
            max_rounds: 6,
            levels,
        }
    }
}

/// Why the characterization failed.
#[derive(Debug, thiserror::Error)]
pub enum OpenMpError {
    /// The benchmark did not build (no OpenMP support, ...).
    #[error("the OpenMP benchmark does not build with {fc} {flags}: {message}; check that the compiler supports -fopenmp (gfortran needs libgomp)")]
    Build {
        /// Compiler.
        fc: String,
        /// Flags.
        flags: String,
        /// What went wrong.
        message: String,
    },
    /// The benchmark failed or printed something unreadable.
    #[error("the OpenMP benchmark with {threads} thread(s) {message}")]
    Run {
        /// Thread count.
        threads: u32,
        /// What went wrong.
        message: String,
    },
    /// Interrupted.
    #[error("interrupted")]
    Cancelled,
}

/// The observations of one run of the benchmark program.
#[derive(Debug, Default)]
struct Observed {
    /// (construct, chunk) → seconds per execution.
    obs: BTreeMap<(String, u32), Vec<f64>>,
    /// Triad: elements → bytes per second.
    bandwidth: Vec<(u64, f64)>,
}

/// Measures the OpenMP overheads and bandwidths with `toolchain` (plus `-fopenmp`);
/// `progress` hears about each run.
pub fn characterize(
    toolchain: &Toolchain,
    opts: &Options,
    cores: u32,
    progress: &mut dyn FnMut(&str),
) -> Result<OpenMpProfile, OpenMpError> {
    let (dir, exe) = built(toolchain)?;
    let mut overheads = vec![];
    let mut bandwidths = vec![];
    for &p in &opts.threads {
        let mut all = Observed::default();
        let mut mask = ((1u64 << CONSTRUCTS.len()) - 1) & !alone_mask(p);
        for round in 0..opts.max_rounds.max(1) {
            // Twice as many observations each round, of the constructs still above 5%.
            let n = opts.observations << round;
            let sizes = if round == 0 {
                element_counts(&opts.levels, p)
            } else {
                vec![]
            };
            progress(&format!(
                "{p} thread(s), round {}: {n} observations of {} construct(s)",
                round + 1,
                mask.count_ones()
            ));
            let o = run(&exe, dir.path(), p, (n, mask), opts, &sizes)?;
            all.merge(o);
            let rows = summarize(&all, p, opts);
            mask = wide_intervals(&rows) & !alone_mask(p);
            if mask == 0 || round + 1 == opts.max_rounds {
                overheads.extend(rows);
                break;
            }
        }
        // The triads twice more, seconds apart (the reference only), and the median
        // of each size's three readings: on a shared host another program's traffic
        // lowers one (a one-thread triad read main memory at 14.1 GB/s between two of
        // 25) and a quiet moment raises one (two threads read 47.6 GB/s where the day's
        // other profiles read 32-33, and the programs timed next got 36).
        let mut triads = all.bandwidth.clone();
        for _ in 0..2 {
            let again = run(
                &exe,
                dir.path(),
                p,
                (1, 0),
                opts,
                &element_counts(&opts.levels, p),
            )?;
            triads.extend(again.bandwidth);
        }
        let typical = median_per_size(&triads);
        for (level, (elements, bps)) in opts.levels.iter().zip(&typical) {
            bandwidths.push(Bandwidth {
                level: level.name.clone(),
                bytes: elements * 24,
                threads: p,
                bytes_per_second: *bps,
                shared: level.shared,
            });
        }
    }
    Ok(OpenMpProfile {
        cores,
        threads: opts.threads.clone(),
        delay_seconds: opts.delay_seconds,
        schedule_iterations: opts.schedule_iterations,
        overheads,
        bandwidths,
    })
}

/// The constructs the benchmark observes after the reference, in its order (bit k of
/// its mask is the k-th).
const CONSTRUCTS: [(&str, u32); 21] = [
    ("parallel", 0),
    ("do", 0),
    ("parallel_do", 0),
    ("barrier", 0),
    ("single", 0),
    ("critical", 0),
    ("lock", 0),
    ("atomic", 0),
    ("reduction", 0),
    ("static", 0),
    ("static_chunk", 1),
    ("dynamic", 1),
    ("dynamic", 4),
    ("dynamic", 16),
    ("dynamic", 64),
    ("guided", 1),
    ("guided", 4),
    ("guided", 16),
    ("false_sharing", 0),
    ("atomic_table", 0),
    ("library_lock", 0),
];

/// The overhead of a parallel region's fork and join with `threads` threads on this
/// host now, seconds: EPCC's `parallel` construct alone, one round of its observations,
/// about a second with the build. A guest's virtual cores may sit on other cores of the
/// host from one hour to the next (a Zen 5 guest's fork and join: 1.08 µs in one profile,
/// 0.44 µs the same afternoon), so a validation holds this against its profile's.
pub fn fork_join_now(toolchain: &Toolchain, threads: u32) -> Result<f64, OpenMpError> {
    let (dir, exe) = built(toolchain)?;
    let mut opts = Options::for_host(threads);
    opts.threads = vec![threads];
    let parallel = CONSTRUCTS
        .iter()
        .position(|c| c.0 == "parallel")
        .map_or(1, |k| 1u64 << k);
    let o = run(
        &exe,
        dir.path(),
        threads,
        (opts.observations, parallel),
        &opts,
        &[],
    )?;
    summarize(&o, threads, &opts)
        .into_iter()
        .find(|r| r.construct == "parallel")
        .map(|r| r.seconds)
        .ok_or_else(|| OpenMpError::Run {
            threads,
            message: "printed no observation of a parallel region".into(),
        })
}

/// The constructs that mean nothing with `p` threads: with one, no line is shared.
fn alone_mask(p: u32) -> u64 {
    match CONSTRUCTS.iter().position(|c| c.0 == "false_sharing") {
        Some(k) if p < 2 => 1 << k,
        _ => 0,
    }
}

/// The mask of the constructs whose 90% interval is wider than 5% of their overhead.
fn wide_intervals(rows: &[Overhead]) -> u64 {
    let mut mask = 0;
    for (k, (name, chunk)) in CONSTRUCTS.iter().enumerate() {
        let wide = rows
            .iter()
            .find(|r| r.construct == *name && r.chunk == *chunk)
            .map_or(true, |r| r.half_width > 0.05 * r.seconds.abs());
        if wide {
            mask |= 1 << k;
        }
    }
    mask
}

impl Observed {
    /// Adds another run's observations (the reference is observed as often as each
    /// construct, so that each observation keeps its reference's index).
    fn merge(&mut self, o: Observed) {
        for (k, v) in o.obs {
            self.obs.entry(k).or_default().extend(v);
        }
        self.bandwidth.extend(o.bandwidth);
    }
}

/// The median triad of each size (the mean of the middle two for an even count), in the
/// order the sizes first come.
fn median_per_size(triads: &[(u64, f64)]) -> Vec<(u64, f64)> {
    let mut sizes: Vec<u64> = vec![];
    for &(elements, _) in triads {
        if !sizes.contains(&elements) {
            sizes.push(elements);
        }
    }
    sizes
        .into_iter()
        .map(|elements| {
            let readings: Vec<f64> = triads
                .iter()
                .filter(|t| t.0 == elements)
                .map(|t| t.1)
                .collect();
            (elements, experiment::median(&readings))
        })
        .collect()
}

/// The triad's element counts for each level at `p` threads.
fn element_counts(levels: &[Level], p: u32) -> Vec<u64> {
    levels
        .iter()
        .map(|l| {
            let bytes = if l.shared {
                l.bytes
            } else {
                l.bytes * p as u64
            };
            (bytes / 24).max(1024)
        })
        .collect()
}

/// Builds the benchmark with `-fopenmp` added.
/// The benchmark built in a temporary directory of its own (removed when dropped, or on
/// an interrupt).
fn built(
    toolchain: &Toolchain,
) -> Result<(augur_toolchain::interrupt::TempDir, std::path::PathBuf), OpenMpError> {
    let dir =
        augur_toolchain::interrupt::temp_dir("augur-openmp-").map_err(|e| OpenMpError::Build {
            fc: toolchain.fc.clone(),
            flags: toolchain.fflags.join(" "),
            message: format!("cannot create a build directory: {e}"),
        })?;
    let exe = build(toolchain, dir.path())?;
    Ok((dir, exe))
}

fn build(toolchain: &Toolchain, dir: &Path) -> Result<std::path::PathBuf, OpenMpError> {
    // In the flags, not only the compile's: the link needs the OpenMP runtime too.
    let mut tc = toolchain.clone();
    if !tc.fflags.iter().any(|f| f.starts_with("-fopenmp")) {
        tc.fflags.push("-fopenmp".into());
    }
    ExperimentBuild::new(&tc, dir, "augur_ompbench")
        .write_and_build(&[
            ("delay.f90", DELAY_F90.to_string()),
            ("bench.f90", BENCH_F90.to_string()),
        ])
        .map_err(|e| match e {
            experiment::BuildFailure::Cancelled => OpenMpError::Cancelled,
            e => OpenMpError::Build {
                fc: toolchain.fc.clone(),
                flags: toolchain.fflags.join(" "),
                message: experiment::leading_lines(&e.to_string(), 3),
            },
        })
}

/// One run of the benchmark with `p` threads and `n` observations per construct.
fn run(
    exe: &Path,
    dir: &Path,
    p: u32,
    (n, mask): (u32, u64),
    opts: &Options,
    sizes: &[u64],
) -> Result<Observed, OpenMpError> {
    let mut args = vec![
        p.to_string(),
        n.to_string(),
        opts.observation_seconds.to_string(),
        opts.delay_seconds.to_string(),
        opts.schedule_iterations.to_string(),
        mask.to_string(),
    ];
    args.extend(sizes.iter().map(u64::to_string));
    let ran = experiment::run(exe, dir, args, Duration::from_secs(600)).map_err(|e| match e {
        experiment::RunFailure::Cancelled => OpenMpError::Cancelled,
        e => OpenMpError::Run {
            threads: p,
            message: e.to_string(),
        },
    })?;
    if !ran.success() {
        return Err(OpenMpError::Run {
            threads: p,
            message: ran.describe(),
        });
    }
    parse(&String::from_utf8_lossy(&ran.stdout)).map_err(|message| OpenMpError::Run {
        threads: p,
        message,
    })
}

/// Reads the benchmark's output.
fn parse(text: &str) -> Result<Observed, String> {
    let mut o = Observed::default();
    for line in output_lines(text) {
        match line.keyword() {
            Some("AUGOBS") => {
                let name: String = line.field(1)?;
                o.obs
                    .entry((name, line.field(2)?))
                    .or_default()
                    .push(line.field(3)?);
            }
            Some("AUGBW") => o.bandwidth.push((line.field(1)?, line.field(2)?)),
            _ => {}
        }
    }
    if !o.obs.contains_key(&("reference".to_string(), 0)) {
        return Err("printed no reference delay".into());
    }
    Ok(o)
}

/// The overhead rows of thread count `p` from its observations.
fn summarize(o: &Observed, p: u32, opts: &Options) -> Vec<Overhead> {
    let references = &o.obs[&("reference".to_string(), 0)];
    let mean_reference = mean(references);
    let mut rows = vec![];
    for ((name, chunk), obs) in &o.obs {
        if name == "reference" {
            continue;
        }
        // Each observation less the reference observed just before it (the program
        // observes the reference, then every construct, in turn): a host that speeds
        // up or slows down between observations moves both.
        let overheads: Vec<f64> = obs
            .iter()
            .enumerate()
            .map(|(k, &t)| (k, t, references.get(k).copied().unwrap_or(mean_reference)))
            .map(|(_, t, reference)| match name.as_str() {
                // Per update on its thread: the team shares the updates.
                "atomic" => t * p as f64,
                // The same, each update after the delay, which is taken away.
                "atomic_table" => t * p as f64 - reference,
                // Already the difference of two store loops.
                "false_sharing" => t,
                // A reseed on the wall clock, no delay around it.
                "library_lock" => t,
                "static" | "static_chunk" | "dynamic" | "guided" => {
                    t - reference * opts.schedule_iterations as f64
                }
                _ => t - reference,
            })
            .collect();
        let overheads = without_outliers(&overheads);
        let (m, hw) = mean_and_half_width(&overheads);
        rows.push(Overhead {
            construct: name.clone(),
            chunk: *chunk,
            threads: p,
            seconds: m,
            half_width: hw,
            observations: overheads.len() as u32,
        });
    }
    rows
}

/// The table of overheads (µs, ±90% in %) by construct and thread count, and the
/// bandwidths (GB/s).
pub fn report(o: &OpenMpProfile) -> String {
    let mut s = String::from("OpenMP overheads, µs per execution (±90% interval, %):\n");
    s.push_str(&format!("{:<16}", "construct"));
    for p in &o.threads {
        s.push_str(&format!(" {:>18}", format!("{p} thread(s)")));
    }
    s.push('\n');
    let mut keys: Vec<(String, u32)> = o
        .overheads
        .iter()
        .map(|r| (r.construct.clone(), r.chunk))
        .collect();
    keys.sort();
    keys.dedup();
    for (c, chunk) in keys {
        let name = if chunk > 0 {
            format!("{c},{chunk}")
        } else {
            c.clone()
        };
        s.push_str(&format!("{name:<16}"));
        for p in &o.threads {
            match o
                .overheads
                .iter()
                .find(|r| r.construct == c && r.chunk == chunk && r.threads == *p)
            {
                Some(r) => s.push_str(&format!(
                    " {:>10.3} ±{:>5.1}%",
                    r.seconds * 1e6,
                    100.0 * r.half_width / r.seconds.abs().max(1e-15)
                )),
                None => s.push_str(&format!(" {:>18}", "-")),
            }
        }
        s.push('\n');
    }
    s.push_str("triad bandwidth, GB/s:\n");
    let mut levels: Vec<&str> = vec![];
    for b in &o.bandwidths {
        if !levels.contains(&b.level.as_str()) {
            levels.push(&b.level);
        }
    }
    for l in levels {
        s.push_str(&format!("{l:<16}"));
        for p in &o.threads {
            match o
                .bandwidths
                .iter()
                .find(|b| b.level == l && b.threads == *p)
            {
                Some(b) => s.push_str(&format!(" {:>18.1}", b.bytes_per_second / 1e9)),
                None => s.push_str(&format!(" {:>18}", "-")),
            }
        }
        s.push('\n');
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fork_and_join_is_measured_on_this_host_in_a_moment() {
        let tc = Toolchain::detect("gfortran", "-O2").unwrap_or_else(|e| {
            panic!("this test needs gfortran: {e}\ninstall it: apt-get install gfortran")
        });
        let started = std::time::Instant::now();
        let t = fork_join_now(&tc, 2).expect("measured");
        assert!(t > 0.0 && t < 1e-4, "{t} s a region");
        assert!(
            started.elapsed().as_secs_f64() < 30.0,
            "{:?}",
            started.elapsed()
        );
    }

    #[test]
    fn a_descheduled_observation_is_left_out() {
        let v = [1.0, 1.1, 0.9, 1.05, 0.95, 40.0];
        assert_eq!(without_outliers(&v).len(), 5);
        assert_eq!(without_outliers(&[2.0, 2.0, 2.0]).len(), 3);
    }

    #[test]
    fn each_triad_size_keeps_its_median_run() {
        // One run slowed (1e10) and one sped up (9e10) decide nothing.
        let runs = [
            (1024, 5e10),
            (4096, 3e10),
            (1024, 9e10),
            (4096, 1e10),
            (1024, 6e10),
            (4096, 3.2e10),
        ];
        assert_eq!(median_per_size(&runs), vec![(1024, 6e10), (4096, 3e10)]);
        assert_eq!(
            median_per_size(&runs[..4]),
            vec![(1024, 7e10), (4096, 2e10)]
        );
    }

    #[test]
    fn reads_observations_and_bandwidth() {
        let o = parse("AUGDELAY 1e-7\nAUGOBS reference 0 1.0E-07\nAUGOBS parallel 0 1.5E-06\nAUGOBS dynamic 4 2.0E-05\nAUGBW 1024 3.0E+10 2.0\n").unwrap();
        assert_eq!(o.obs[&("parallel".into(), 0)], vec![1.5e-6]);
        assert_eq!(o.bandwidth, vec![(1024, 3e10)]);
        assert!(parse("AUGOBS parallel 0 1e-6\n").is_err());
        assert!(parse("AUGOBS parallel x 1e-6\nAUGOBS reference 0 1e-7\n").is_err());
    }

    #[test]
    fn overheads_subtract_the_reference() {
        let mut o = Observed::default();
        o.obs.insert(("reference".into(), 0), vec![1e-7, 1e-7]);
        o.obs.insert(("barrier".into(), 0), vec![6e-7, 6e-7]);
        o.obs.insert(("static".into(), 0), vec![1.3e-5, 1.3e-5]);
        o.obs.insert(("atomic".into(), 0), vec![1e-8, 1e-8]);
        let opts = Options {
            schedule_iterations: 128,
            ..Options::for_host(2)
        };
        let rows = summarize(&o, 2, &opts);
        let get = |n: &str| rows.iter().find(|r| r.construct == n).unwrap().seconds;
        assert!((get("barrier") - 5e-7).abs() < 1e-15);
        assert!((get("static") - (1.3e-5 - 1.28e-5)).abs() < 1e-12);
        assert!((get("atomic") - 2e-8).abs() < 1e-15);
    }
}
