//! In-core characterization (`augur characterize --incore`): what an analytical loop
//! model needs of the core, for the machine profile's `[incore]` section
//! ([`augur_machine_profile::incore`]).
//!
//! The method is the one of uiCA's, likwid-bench's and Agner Fog's instruction tables,
//! in kernels of our own: generated x86-64 assembly ([`kernels`]), one counted loop per
//! kernel whose body repeats one instruction, either as one dependent chain (its
//! latency) or over twelve independent registers (its reciprocal throughput). A C
//! driver (`driver.c`, built by the toolchain's C compiler with the assembly, linked by
//! the machine's Fortran compiler under a Fortran main program) sizes each kernel's
//! loop to [`Settings::window_ms`] of the thread's CPU time (`clock_gettime` of
//! `CLOCK_THREAD_CPUTIME_ID`), then times every kernel [`Settings::observations`] times
//! in rounds, in [`Settings::passes`] passes over all the kernels (seconds apart: a
//! disturbance that lasts hits one pass); the fastest observation is kept. Nothing
//! makes a chain faster than its latency, while the rest of the machine can make it
//! slower: another process's time slice (not in the thread's CPU time: while other
//! sessions' compilers ran on the 2-core Zen 4 guest, the fastest of nine 5 ms windows of
//! the wall clock gave a 1-cycle chain 1.35 cycles) or another program on the core's
//! sibling thread, or the hypervisor's (in it: hence the fastest, not the median).
//!
//! * `cycle_ns` is the latency of a chain of dependent integer adds (one cycle).
//! * `issue_ns` is the time per instruction of independent adds mixed with zeroing
//!   idioms over twelve registers: the sustained issue width's reciprocal.
//! * `taken_branch_ns` is the time per jump of a chain of taken jumps.
//! * `memory_op_ns` is the time per instruction of independent loads and stores in
//!   turn; `vector_pipes_ns` of independent floating-point adds, multiplies and
//!   shuffles in turn (AVX's three-operand forms): the pipes each mix shares.
//! * `rmw_issue_slots`: the issue slots a read-modify-write of memory takes, from the
//!   issue kernel with every sixth instruction one (`addq $1` to a slot of its own).
//! * Each class at each width the host has (scalar, 128, 256 and 512 bits; FMA only
//!   with FMA3): latency and reciprocal throughput. Where a chain needs a partner
//!   instruction its cost is taken off (an integer divide's chain carries an integer
//!   add: one cycle less; a store-to-load forwarding's, of a `real(8)` in the frame as
//!   `-O0` code keeps it, a floating-point add: `fp_add`'s latency less; a failed one,
//!   `forward_wide`, two 8-byte stores read back by one 16-byte load, the same); a conversion's latency is the
//!   mean of the two directions (integer to double and back), a scalar register move's
//!   the mean of a move back and forth. A store has no result: its latency is 0 (a
//!   chain through memory is a `forward`, priced as such); a forwarded `real` load
//!   issues as a load: its throughput is the load's; an integer slot's accesses while a
//!   read-modify-write of it is in flight (a loop counter of `-O0` code) take their
//!   turns: `forward_int`'s throughput is the time per access of the slot read twice
//!   between its increments. `forward_reloaded`, an integer reached through a pointer
//!   loaded again before each access, is timed in a loop of 128 such pairs (more than
//!   the core's predictor renames: `forwarding_pairs`, from kernels of 8 to 96).
//!   Loads into vector registers (`load.v128`, `.v256`, `.v512`)
//!   have their own throughput, of independent `vmovupd`s a line apart (their data goes
//!   to the floating-point side, which may take fewer a cycle than the integer side), and
//!   the integer load's latency.
//!
//! It takes about 12 s on a 2-vCPU Zen 5 guest (484 kernels, [`Settings::DEFAULT`], session
//! 65); [`Settings::QUICK`] takes fewer observations of each.

pub mod kernels;

pub use augur_machine_profile::incore::{ClassCost, InCoreProfile};
pub use kernels::{Features, Filler, Kernel, Measure};

use augur_ir::incore::{ClassWidth, InstrClass, Width};
use augur_toolchain::experiment::{self, output_lines, RunFailure};
use augur_toolchain::{BuildError, BuildInput, Toolchain};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::Duration;

const DRIVER_C: &str = include_str!("driver.c");
const MAIN_F90: &str = include_str!("main.f90");

/// Kernels per run of the program: progress is told after each run.
const KERNELS_PER_RUN: usize = 8;

/// How long the kernels are timed.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Settings {
    /// The duration of one observation of one kernel, ms.
    pub window_ms: f64,
    /// Observations per kernel (the fastest is kept).
    pub observations: u32,
    /// How long each run spins before the first timing, ms (the core reaches its clock).
    pub warmup_ms: f64,
    /// Passes over all the kernels.
    pub passes: u32,
}

impl Settings {
    /// Two passes of seven observations of 3 ms: about 4.5 s for the 74 kernels of an
    /// AVX-512 host.
    pub const DEFAULT: Settings = Settings {
        window_ms: 3.0,
        observations: 7,
        warmup_ms: 20.0,
        passes: 2,
    };
    /// One pass of five observations of 2 ms: about a quarter of the default's time.
    pub const QUICK: Settings = Settings {
        window_ms: 2.0,
        observations: 5,
        warmup_ms: 10.0,
        passes: 1,
    };
}

/// Why the in-core characterization failed.
#[derive(Debug, thiserror::Error)]
pub enum InCoreError {
    /// The host is not x86-64.
    #[error("in-core kernels exist for x86-64 only; this host is {arch}")]
    NotX86_64 {
        /// The host's architecture (`aarch64`, ...).
        arch: &'static str,
    },
    /// The C compiler's assembler rejected the generated kernels.
    #[error("the assembler rejected the in-core kernels ({cc} on {}): {message}; the kernels need an assembler (GNU as, binutils) that knows the host's instructions (AVX, AVX-512)", .file.display())]
    Assemble {
        /// The C compiler that ran the assembler.
        cc: String,
        /// The generated assembly file.
        file: PathBuf,
        /// What it said.
        message: String,
    },
    /// The driver or the main program did not build, or the link failed.
    #[error("the in-core driver does not build with {fc} and {cc}: {message}")]
    Build {
        /// The Fortran compiler (main program, link).
        fc: String,
        /// The C compiler (driver).
        cc: String,
        /// What went wrong.
        message: String,
    },
    /// A generated file or the build directory could not be written.
    #[error("cannot write the in-core kernels into {}: {source}", .path.display())]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// The kernels' program failed or printed something unreadable.
    #[error("the in-core kernels' program {0}")]
    Run(String),
    /// Interrupted ([`augur_toolchain::interrupt`]).
    #[error("{}", augur_toolchain::interrupt::CANCELLED)]
    Cancelled,
}

/// Measures the host's in-core parameters with `tc`'s C compiler (assembler and driver)
/// and Fortran compiler (main program and link); `progress(done, total)` hears after each
/// run of the kernels' program, in kernels.
pub fn characterize(
    tc: &Toolchain,
    settings: &Settings,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<InCoreProfile, InCoreError> {
    let features = Features::host().ok_or(InCoreError::NotX86_64 {
        arch: std::env::consts::ARCH,
    })?;
    let ks = kernels::kernels(features);
    let dir = augur_toolchain::interrupt::temp_dir("augur-incore-").map_err(|source| {
        InCoreError::Io {
            path: std::env::temp_dir(),
            source,
        }
    })?;
    let exe = build(tc, dir.path(), &ks, features, settings)?;
    let times = time_kernels(&exe, dir.path(), ks.len(), settings, progress)?;
    Ok(profile(&ks, &times))
}

/// The C table the driver reads: the kernels, their counted instructions, the window.
fn driver_source(ks: &[Kernel], settings: &Settings) -> String {
    let mut s =
        String::from("/* Generated by augur-incore. */\ntypedef void (*kernel_fn)(long);\n");
    for i in 0..ks.len() {
        let _ = writeln!(s, "extern void augur_k_{i}(long);");
    }
    let names: Vec<String> = (0..ks.len()).map(|i| format!("augur_k_{i}")).collect();
    let counted: Vec<String> = ks.iter().map(|k| k.counted.to_string()).collect();
    let _ = writeln!(
        s,
        "static const kernel_fn kernels[] = {{{}}};\nstatic const double counted[] = {{{}}};\n\
         static const double window_s = {:e};\nstatic const double warmup_s = {:e};\n\
         static const int reps = {};",
        names.join(", "),
        counted.join(", "),
        settings.window_ms / 1e3,
        settings.warmup_ms / 1e3,
        settings.observations.max(1)
    );
    s.push_str(DRIVER_C);
    s
}

/// Writes the kernels, the driver and the main program into `dir` and builds them.
fn build(
    tc: &Toolchain,
    dir: &Path,
    ks: &[Kernel],
    features: Features,
    settings: &Settings,
) -> Result<PathBuf, InCoreError> {
    let files = [
        ("kernels.s", kernels::assembly(ks, features)),
        ("driver.c", driver_source(ks, settings)),
        ("main.f90", MAIN_F90.to_string()),
    ];
    let mut paths = Vec::new();
    for (name, text) in &files {
        let path = dir.join(name);
        std::fs::write(&path, text).map_err(|source| InCoreError::Io {
            path: path.clone(),
            source,
        })?;
        paths.push(path);
    }
    let input = BuildInput {
        fortran: vec![paths[2].clone()],
        c_sources: vec![paths[0].clone(), paths[1].clone()],
        ..Default::default()
    };
    let built = augur_toolchain::build_in_workdir(tc, &input, dir, "augur_incore");
    if augur_toolchain::interrupt::cancelled() {
        return Err(InCoreError::Cancelled);
    }
    built.map_err(|e| match e {
        BuildError::Interrupted => InCoreError::Cancelled,
        BuildError::Compile { file, stderr, .. } if file.extension() == Some("s".as_ref()) => {
            InCoreError::Assemble {
                cc: tc.cc.clone(),
                file,
                message: experiment::leading_lines(stderr.trim(), 5),
            }
        }
        e => InCoreError::Build {
            fc: tc.fc.clone(),
            cc: tc.cc.clone(),
            message: e.to_string(),
        },
    })
}

/// Runs the program over the kernels, [`KERNELS_PER_RUN`] at a time: each kernel's
/// observations, ns per counted instruction.
fn time_kernels(
    exe: &Path,
    dir: &Path,
    count: usize,
    settings: &Settings,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<Vec<Vec<f64>>, InCoreError> {
    let mut times = vec![Vec::new(); count];
    let passes = settings.passes.max(1) as usize;
    let runs: Vec<(usize, usize)> = (0..passes)
        .flat_map(|pass| (0..count).step_by(KERNELS_PER_RUN).map(move |f| (pass, f)))
        .collect();
    progress(0, count * passes);
    for (pass, first) in runs {
        let last = (first + KERNELS_PER_RUN).min(count);
        // Generous: a slow kernel's sizing takes more than its window.
        let expected_s = (last - first) as f64
            * settings.window_ms
            * 1e-3
            * (settings.observations as f64 + 4.0)
            + settings.warmup_ms * 1e-3;
        let timeout = Duration::from_secs_f64(10.0 + 10.0 * expected_s);
        let ran = experiment::run(exe, dir, vec![first.to_string(), last.to_string()], timeout)
            .map_err(|e| match e {
                RunFailure::Cancelled => InCoreError::Cancelled,
                RunFailure::Run(e) => InCoreError::Run(format!("could not run: {e}")),
            })?;
        if !ran.success() {
            let illegal = if ran.signal == Some(4) {
                " (an instruction the CPU does not have)"
            } else {
                ""
            };
            return Err(InCoreError::Run(format!(
                "{}{illegal} on kernels {first}..{last}: {}",
                ran.describe(),
                experiment::leading_lines(String::from_utf8_lossy(&ran.stderr).trim(), 5)
            )));
        }
        let out = String::from_utf8_lossy(&ran.stdout);
        for line in output_lines(&out).filter(|l| l.keyword() == Some("AUGINC")) {
            let i: usize = line.field(1).map_err(InCoreError::Run)?;
            let ns: f64 = line.field(2).map_err(InCoreError::Run)?;
            if !((first..last).contains(&i) && ns.is_finite() && ns > 0.0) {
                return Err(InCoreError::Run(format!("printed {}", line.malformed())));
            }
            times[i].push(ns);
        }
        let expected = (pass + 1) * settings.observations.max(1) as usize;
        if let Some(i) = (first..last).find(|&i| times[i].len() < expected) {
            return Err(InCoreError::Run(format!(
                "printed {} of {expected} observations of kernel {i}",
                times[i].len(),
            )));
        }
        progress(pass * count + last, count * passes);
    }
    Ok(times)
}

/// `x` rounded to 0.0001 ns.
fn round(x: f64) -> f64 {
    (x * 1e4).round() / 1e4
}

/// The profile from each kernel's observations (see the crate's documentation for what
/// is taken off).
pub fn profile(ks: &[Kernel], times: &[Vec<f64>]) -> InCoreProfile {
    let of = |m: Measure| {
        ks.iter()
            .position(|k| k.measure == m)
            .map(|i| times[i].iter().copied().fold(f64::INFINITY, f64::min))
            .filter(|x| x.is_finite())
    };
    let scalar = |c| ClassWidth::new(c, Width::Scalar);
    let cycle = of(Measure::Latency(scalar(InstrClass::IntAlu))).unwrap_or(f64::NAN);
    let load_throughput = of(Measure::Throughput(scalar(InstrClass::Load)));
    let fp_add = of(Measure::Latency(scalar(InstrClass::FpAdd))).unwrap_or(f64::NAN);
    let mut class = BTreeMap::new();
    for k in ks {
        let c = match k.measure {
            Measure::Latency(c) | Measure::Throughput(c) => c,
            _ => continue,
        };
        let key = c.key();
        if class.contains_key(&key) {
            continue;
        }
        let latency = match c.class {
            InstrClass::Store => Some(0.0),
            // Vector loads' throughput only is measured: their latency is the load's.
            InstrClass::Load if c.width != Width::Scalar => {
                of(Measure::Latency(scalar(InstrClass::Load)))
            }
            InstrClass::IntDiv | InstrClass::IntDiv64 => {
                of(Measure::Latency(c)).map(|l| (l - cycle).max(0.0))
            }
            InstrClass::Forward | InstrClass::ForwardWide => {
                of(Measure::Latency(c)).map(|l| (l - fp_add).max(0.0))
            }
            InstrClass::ForwardInt | InstrClass::ForwardExt | InstrClass::ForwardReloaded => {
                of(Measure::Latency(c)).map(|l| (l - cycle).max(0.0))
            }
            InstrClass::FpSqrt => {
                let multiply = of(Measure::Latency(ClassWidth::new(
                    InstrClass::FpMul,
                    c.width,
                )));
                of(Measure::Latency(c)).map(|l| (l - multiply.unwrap_or(0.0)).max(0.0))
            }
            _ => of(Measure::Latency(c)),
        };
        let throughput = match c.class {
            InstrClass::Forward | InstrClass::ForwardWide => load_throughput,
            InstrClass::ForwardInt => of(Measure::Throughput(c)).or(load_throughput),
            // Its accesses take their turns as the renamed ones do: only its latency
            // was measured apart.
            InstrClass::ForwardExt | InstrClass::ForwardReloaded => {
                of(Measure::Throughput(scalar(InstrClass::ForwardInt))).or(load_throughput)
            }
            _ => of(Measure::Throughput(c)),
        };
        if let (Some(l), Some(t)) = (latency, throughput) {
            class.insert(
                key,
                ClassCost {
                    latency_ns: round(l),
                    throughput_ns: round(t),
                    beside_add_ns: of(Measure::BesideAdd(c)).map(round),
                },
            );
        }
    }
    InCoreProfile {
        cycle_ns: round(cycle),
        issue_ns: round(of(Measure::Issue).unwrap_or(f64::NAN)),
        taken_branch_ns: round(of(Measure::TakenBranch).unwrap_or(f64::NAN)),
        memory_op_ns: of(Measure::LoadStore).map(round),
        vector_pipes_ns: of(Measure::VectorPipes).map(round),
        rmw_issue_slots: rmw_issue_slots(&of),
        class,
        window: window(&of, Filler::Integer),
        window_vector: window(&of, Filler::Vector),
        window_stores: window(&of, Filler::Store),
        window_waiting: window(&of, Filler::Waiting),
        window_waiting_integer: window(&of, Filler::WaitingInteger),
        forwarding_pairs: forwarding_pairs(&of),
        crossing_ns: crossing(&of),
        subnormal_ns: subnormal(&of),
    }
}

/// What a multiply on a subnormal number costs beyond a normal one: the
/// [`Measure::Subnormal`] kernel's multiply less a scalar multiply's latency (none below
/// zero).
fn subnormal(of: &impl Fn(Measure) -> Option<f64>) -> Option<f64> {
    let assisted = of(Measure::Subnormal)?;
    let normal = of(Measure::Latency(ClassWidth::new(
        InstrClass::FpMul,
        Width::Scalar,
    )))?;
    Some(round((assisted - normal).max(0.0)))
}

/// The bypass delay of one crossing between the adders and the multipliers: the
/// [`Measure::Crossing`] kernel's pair less a scalar add's and a multiply's latency,
/// over the pair's two crossings (none below zero).
fn crossing(of: &impl Fn(Measure) -> Option<f64>) -> Option<f64> {
    let pair = of(Measure::Crossing)?;
    let scalar = |c| Measure::Latency(ClassWidth::new(c, Width::Scalar));
    let own = of(scalar(InstrClass::FpAdd))? + of(scalar(InstrClass::FpMul))?;
    Some(round(((pair - own) / 2.0).max(0.0)))
}

/// The issue slots a read-modify-write takes: the read-modify-write kernel's time over
/// the issue kernel's, put on its read-modify-writes (one slot at least, four at most).
fn rmw_issue_slots(of: &impl Fn(Measure) -> Option<f64>) -> Option<f64> {
    let issue = of(Measure::Issue).filter(|t| *t > 0.0)?;
    let mixed = of(Measure::RmwIssue)?;
    let body = kernels::BODY as f64;
    let rmw = (kernels::BODY / kernels::RMW_SHARE) as f64;
    let slots = (body * mixed - (body - rmw) * issue) / (rmw * issue);
    Some((slots * 100.0).round().clamp(100.0, 400.0) / 100.0)
}

/// What the core keeps in flight of what `filler` takes: the fillers (with the chain's
/// own instructions of that kind) at which the window kernels' iteration, one chain's
/// latency while the two chains overlap, reaches the midpoint to two chains'
/// (interpolated between the two counts around it); `None` when the kernels did not run
/// or never slowed down. On a Zen 4: 202 integer moves (224 integer registers, fewer
/// than its 320 reorder entries), 156 vector registers, 67 stores.
fn window(of: &dyn Fn(Measure) -> Option<f64>, filler: Filler) -> Option<f64> {
    let times: Vec<(f64, f64)> = filler
        .counts()
        .filter_map(|n| of(Measure::Window(filler, n)).map(|t| (f64::from(n), t)))
        .collect();
    threshold(&times).map(|n| (n + f64::from(filler.in_chain())).round())
}

/// The store-load pairs of reloaded pointers the core renames in a loop: the pairs at
/// which the [`Measure::ForwardingPairs`] kernels' time a load reaches 1.5 times the
/// renamed one (interpolated); `None` when they never slowed down. A Zen 5: 40.
fn forwarding_pairs(of: &dyn Fn(Measure) -> Option<f64>) -> Option<f64> {
    let times: Vec<(f64, f64)> = kernels::forwarding_pair_counts()
        .filter_map(|n| of(Measure::ForwardingPairs(n)).map(|t| (f64::from(n), t)))
        .collect();
    threshold(&times).map(f64::round)
}

/// The count at which `times` (count, time), in increasing count, first reaches 1.5
/// times its least time, interpolated between the counts around it; `None` when it
/// never does.
fn threshold(times: &[(f64, f64)]) -> Option<f64> {
    let base = times.iter().map(|x| x.1).fold(f64::INFINITY, f64::min);
    let top = times.iter().map(|x| x.1).fold(0.0, f64::max);
    if !base.is_finite() || top < 1.5 * base {
        return None;
    }
    let mid = 1.5 * base;
    let k = times.iter().position(|x| x.1 >= mid)?;
    let (n1, t1) = times[k];
    let (n0, t0) = if k > 0 { times[k - 1] } else { (0.0, base) };
    let n = if t1 > t0 {
        n0 + (n1 - n0) * (mid - t0) / (t1 - t0)
    } else {
        n1
    };
    Some(n)
}

/// The section as a table: each figure in ns and in cycles.
pub fn report(p: &InCoreProfile) -> String {
    let cycles = |ns: f64| ns / p.cycle_ns;
    let mut s = format!(
        "in-core: cycle {:.4} ns ({:.2} GHz), issue {:.4} ns ({:.2} per cycle), taken branch {:.4} ns ({:.2} cycles)\n",
        p.cycle_ns,
        1.0 / p.cycle_ns,
        p.issue_ns,
        p.cycle_ns / p.issue_ns,
        p.taken_branch_ns,
        cycles(p.taken_branch_ns)
    );
    if let Some(t) = p.memory_op_ns {
        let _ = writeln!(
            s,
            "loads and stores mixed: {t:.4} ns each ({:.2} per cycle)",
            p.cycle_ns / t
        );
    }
    if let Some(t) = p.vector_pipes_ns {
        let _ = writeln!(
            s,
            "floating-point adds, multiplies and shuffles mixed: {t:.4} ns each ({:.2} per cycle)",
            p.cycle_ns / t
        );
    }
    if let Some(n) = p.rmw_issue_slots {
        let _ = writeln!(s, "a read-modify-write of memory: {n:.2} issue slots");
    }
    if let Some(w) = p.window {
        let _ = write!(s, "in flight: {w:.0} integer-register instructions");
        if let Some(v) = p.window_vector {
            let _ = write!(s, ", {v:.0} vector-register instructions");
        }
        if let Some(st) = p.window_stores {
            let _ = write!(s, ", {st:.0} stores");
        }
        if let Some(w) = p.window_waiting {
            let _ = write!(
                s,
                ", {w:.0} floating-point instructions waiting for operands"
            );
        }
        if let Some(w) = p.window_waiting_integer {
            let _ = write!(s, ", {w:.0} integer ones");
        }
        s.push('\n');
    }
    if let Some(n) = p.forwarding_pairs {
        let _ = writeln!(
            s,
            "store-load pairs through reloaded pointers renamed in a loop: {n:.0}"
        );
    }
    if let Some(x) = p.crossing_ns {
        let _ = writeln!(
            s,
            "a value passed between the adders and the multipliers: {x:.4} ns more ({:.2} cycles)",
            x / p.cycle_ns
        );
    }
    if let Some(x) = p.subnormal_ns {
        let _ = writeln!(
            s,
            "a multiply on a subnormal number: {x:.4} ns more ({:.0} cycles)",
            x / p.cycle_ns
        );
    }
    let _ = writeln!(
        s,
        "{:<16} {:>11} {:>8} {:>14} {:>8}",
        "class", "latency ns", "cycles", "throughput ns", "cycles"
    );
    for (key, c) in &p.class {
        let _ = writeln!(
            s,
            "{key:<16} {:>11.4} {:>8.2} {:>14.4} {:>8.2}",
            c.latency_ns,
            cycles(c.latency_ns),
            c.throughput_ns,
            cycles(c.throughput_ns)
        );
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn partners_are_taken_off_and_stores_have_no_latency() {
        let ks = kernels::kernels(Features::default());
        // Every kernel's fastest time: 0.25 ns per counted instruction, the forwarding
        // chain 1.25 (with an fp_add of 0.25), the divide's chain 3.25 (with an
        // integer add of 0.25) and a counter slot's accesses 0.8 each.
        let times: Vec<Vec<f64>> = ks
            .iter()
            .map(|k| match k.measure {
                Measure::Latency(c) if c.class == InstrClass::Forward => vec![1.3, 1.25, 1.4],
                Measure::Latency(c) if c.class == InstrClass::IntDiv => vec![3.25],
                Measure::Latency(c) if c.class == InstrClass::IntDiv64 => vec![4.25],
                Measure::Latency(c) if c.class == InstrClass::FpSqrt => vec![4.75],
                Measure::Throughput(c) if c.class == InstrClass::ForwardInt => vec![0.8],
                _ => vec![0.25, 0.3, 9.0],
            })
            .collect();
        let p = profile(&ks, &times);
        assert_eq!(p.cycle_ns, 0.25);
        assert_eq!(p.issue_ns, 0.25);
        let cost = |k: &str| p.class[k];
        assert_eq!(cost("forward").latency_ns, 1.0);
        assert_eq!(cost("int_div").latency_ns, 3.0);
        assert_eq!(cost("int_div64").latency_ns, 4.0);
        // A square root's chain scales each root back by a multiply (0.25).
        assert_eq!(cost("fp_sqrt").latency_ns, 4.5);
        assert_eq!(cost("store").latency_ns, 0.0);
        assert_eq!(cost("forward").throughput_ns, cost("load").throughput_ns);
        // A counter's slot accessed between its increments: its own turn.
        assert_eq!(cost("forward_int").throughput_ns, 0.8);
        assert!(!p.class.contains_key("fp_add.v256"));
        assert!(report(&p).contains("fp_add.v128"));
    }

    #[test]
    fn a_read_modify_write_takes_the_time_it_adds_over_the_issue_kernel() {
        // 48 instructions, 8 of them read-modify-writes: at 0.25 ns a slot, 40 + 8 x 2
        // slots take 14 ns, 0.2917 ns an instruction; as fast as the issue kernel, one slot
        // (noise below it too).
        let of = |rmw: f64| {
            move |m: Measure| match m {
                Measure::Issue => Some(0.25),
                Measure::RmwIssue => Some(rmw),
                _ => None,
            }
        };
        assert_eq!(rmw_issue_slots(&of(14.0 / 48.0)), Some(2.0));
        assert_eq!(rmw_issue_slots(&of(0.25)), Some(1.0));
        assert_eq!(rmw_issue_slots(&of(0.24)), Some(1.0));
        let without = |m: Measure| (m == Measure::Issue).then_some(0.25);
        assert_eq!(rmw_issue_slots(&without), None);
    }

    #[test]
    fn a_subnormal_multiply_costs_what_its_chain_takes_beyond_the_multiplys_latency() {
        // A multiply 0.75 ns, on a subnormal 38.25: 37.5 more; faster is none.
        let of = |assisted: Option<f64>| {
            move |m: Measure| match m {
                Measure::Subnormal => assisted,
                Measure::Latency(c) if c.class == InstrClass::FpMul => Some(0.75),
                _ => None,
            }
        };
        assert_eq!(subnormal(&of(Some(38.25))), Some(37.5));
        assert_eq!(subnormal(&of(Some(0.7))), Some(0.0));
        assert_eq!(subnormal(&of(None)), None);
        // The kernel multiplies a subnormal number by one, each multiply counted.
        let k = kernels::kernels(Features::default())
            .into_iter()
            .find(|k| k.measure == Measure::Subnormal)
            .expect("a subnormal kernel");
        assert_eq!(k.counted as usize, k.body.len());
        assert!(k.body.iter().all(|i| i == "mulsd %xmm14, %xmm0"));
        assert!(k.setup.iter().any(|i| i.contains(".Lsubnormal")));
        let asm = kernels::assembly(&[k], Features::default());
        assert!(asm.contains(".Lsubnormal:\t.double 1.0e-310"), "{asm}");
    }

    #[test]
    fn a_crossing_is_what_an_add_and_a_multiply_in_turn_take_beyond_their_latencies() {
        // Add 0.5 ns, multiply 0.75: a pair in turn 1.5 ns is two crossings of 0.125;
        // faster than its parts (noise) is none; without the kernel, unknown.
        let of = |pair: Option<f64>| {
            move |m: Measure| match m {
                Measure::Crossing => pair,
                Measure::Latency(c) if c.class == InstrClass::FpAdd => Some(0.5),
                Measure::Latency(c) if c.class == InstrClass::FpMul => Some(0.75),
                _ => None,
            }
        };
        assert_eq!(crossing(&of(Some(1.5))), Some(0.125));
        assert_eq!(crossing(&of(Some(1.2))), Some(0.0));
        assert_eq!(crossing(&of(None)), None);
        // The kernel is one chain of adds and multiplies in turn, each pair counted.
        let k = kernels::kernels(Features::default())
            .into_iter()
            .find(|k| k.measure == Measure::Crossing)
            .expect("a crossing kernel");
        assert_eq!(k.counted as usize * 2, k.body.len());
        assert!(k.body.iter().all(|i| i.ends_with("%xmm0")));
    }

    /// A kernel the assembler cannot read gives the assembler's error, naming the file.
    #[test]
    fn a_bad_kernel_is_the_assemblers_error() {
        let Ok(tc) = Toolchain::detect("gfortran", "-O0") else {
            eprintln!("gfortran not found; skipped");
            return;
        };
        let dir = augur_toolchain::interrupt::temp_dir("augur-incore-test-").unwrap();
        let mut ks = kernels::kernels(Features::default());
        ks.truncate(1);
        ks[0].body = vec!["notaninstruction %rax".to_string()];
        let e = build(&tc, dir.path(), &ks, Features::default(), &Settings::QUICK)
            .expect_err("the assembler must fail");
        assert!(matches!(e, InCoreError::Assemble { .. }), "{e}");
        let text = e.to_string();
        assert!(
            text.contains("kernels.s") && text.contains("notaninstruction"),
            "{text}"
        );
    }

    #[test]
    fn the_window_is_where_the_two_chains_stop_overlapping() {
        // One chain's time (100) up to 192 fillers, two chains' (200) from 224 on.
        let times = |n: u32| if n <= 192 { 100.0 } else { 200.0 };
        let of = |m: Measure| match m {
            Measure::Window(Filler::Integer | Filler::Vector, n) => Some(times(n)),
            _ => None,
        };
        // Halfway (150) between 192 and 224 moves; vector fillers plus the chain's roots.
        assert_eq!(window(&of, Filler::Integer), Some(208.0));
        let vector = 208.0 + f64::from(kernels::WINDOW_CHAIN);
        assert_eq!(window(&of, Filler::Vector), Some(vector));
        // Not measured (no such kernels), or never slower: none.
        assert_eq!(window(&of, Filler::Store), None);
        let flat = |m: Measure| matches!(m, Measure::Window(..)).then_some(100.0);
        assert_eq!(window(&flat, Filler::Integer), None);
    }
}
