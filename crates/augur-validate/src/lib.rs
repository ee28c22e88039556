//! Validation: time real runs of the normally built program and compare them with the
//! prediction; the error statistics of the accuracy benchmark (Saavedra's form: the
//! share of programs within 5, 10, 15, 20 and 30%, the mean and the RMS error).

pub mod kept;
pub mod sampled;

use augur_machine_profile::flags::{code_generation_differences, same_code_generation};
use augur_machine_profile::Provenance;
use augur_toolchain::{self as toolchain, BuildInput, RunSpec, Toolchain};
use serde::Serialize;
use std::path::Path;

/// The wall times of K runs.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct Timing {
    /// Every run, seconds, in the order run.
    pub runs: Vec<f64>,
    /// Median.
    pub median: f64,
    /// Fastest.
    pub min: f64,
    /// Slowest.
    pub max: f64,
}

impl Timing {
    /// Summarizes run times (at least one).
    pub fn from_runs(runs: Vec<f64>) -> Timing {
        let mut s = runs.clone();
        s.sort_by(|a, b| a.total_cmp(b));
        let n = s.len();
        let median = if n == 0 {
            f64::NAN
        } else if n % 2 == 1 {
            s[n / 2]
        } else {
            0.5 * (s[n / 2 - 1] + s[n / 2])
        };
        Timing {
            median,
            min: s.first().copied().unwrap_or(f64::NAN),
            max: s.last().copied().unwrap_or(f64::NAN),
            runs,
        }
    }

    /// Spread of the runs relative to the median, `(max - min) / median`.
    pub fn spread(&self) -> f64 {
        if self.median > 0.0 {
            (self.max - self.min) / self.median
        } else {
            0.0
        }
    }
}

/// Why timing the program failed.
#[derive(Debug, thiserror::Error)]
pub enum TimingError {
    /// The normal build failed.
    #[error("the program does not build normally: {0}")]
    Build(#[from] toolchain::BuildError),
    /// A run could not be started.
    #[error("cannot run the program: {0}")]
    Run(#[from] toolchain::RunError),
    /// A run failed (crash, non-zero exit, timeout).
    #[error("timed run {index} of the program {how}")]
    Failed {
        /// Which run (1-based).
        index: usize,
        /// How it ended.
        how: String,
    },
    /// The build directory could not be created.
    #[error("cannot create a build directory: {0}")]
    Io(#[from] std::io::Error),
}

/// What timing produced: the times and the output of the last run.
#[derive(Debug, Clone)]
pub struct Timed {
    /// The runs' CPU times (user + system): what the program itself took, which other
    /// processes on the machine disturb far less than the wall clock.
    pub timing: Timing,
    /// The runs' wall-clock times.
    pub wall: Timing,
    /// Standard output of the last run.
    pub stdout: Vec<u8>,
}

/// Builds the program normally (no instrumentation) with `tc` in a temporary directory
/// and times `runs` executions of it (CPU time and wall clock of the whole process).
pub fn time_program(
    tc: &Toolchain,
    input: &BuildInput,
    spec: &RunSpec,
    runs: usize,
) -> Result<Timed, TimingError> {
    let (_work, exe) = build_plain(tc, input)?;
    time_executable(&exe, spec, runs)
}

/// Builds the program normally (no instrumentation) with `tc` in a temporary directory,
/// removed when the returned guard drops: the guard and the executable.
pub fn build_plain(
    tc: &Toolchain,
    input: &BuildInput,
) -> Result<(augur_toolchain::interrupt::TempDir, std::path::PathBuf), TimingError> {
    let work = augur_toolchain::interrupt::temp_dir("augur-validate")?;
    let exe = toolchain::build(tc, input, work.path(), "augur_plain")?;
    Ok((work, exe))
}

/// Which clock ranks and settles timed runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Clock {
    /// User + system CPU time: a sequential program's own time.
    Cpu,
    /// The wall clock: a multi-threaded program's time (its threads' CPU times add up).
    Wall,
}

/// The spread of a program's timed runs above which more are timed.
pub const NOISY_SPREAD: f64 = 0.05;

/// Times `runs` executions of a built program. When three or more are asked for and
/// they disagree by more than [`NOISY_SPREAD`] (a burst of another load on a shared
/// machine only ever slows a run down), up to twice as many more are timed, one at a
/// time, until the `runs` fastest agree; the timing is then that of the `runs`
/// fastest.
pub fn time_executable(exe: &Path, spec: &RunSpec, runs: usize) -> Result<Timed, TimingError> {
    time_executable_by(exe, spec, runs, Clock::Cpu)
}

/// [`time_executable`] ranking and settling the runs by `clock`.
pub fn time_executable_by(
    exe: &Path,
    spec: &RunSpec,
    runs: usize,
    clock: Clock,
) -> Result<Timed, TimingError> {
    let mut timed = time_interleaved(exe, std::slice::from_ref(spec), runs, clock)?;
    Ok(timed.remove(0))
}

/// [`time_executable_by`] for several ways of running one program (thread counts, say),
/// in rounds: one run of each way per round, so that a host that slows down or speeds up
/// for a while moves all of them alike instead of one. A way whose fastest runs already
/// agree sits out the extra rounds.
pub fn time_interleaved(
    exe: &Path,
    specs: &[RunSpec],
    runs: usize,
    clock: Clock,
) -> Result<Vec<Timed>, TimingError> {
    let k = match clock {
        Clock::Cpu => 0,
        Clock::Wall => 1,
    };
    let wanted = runs.max(1);
    let mut timed: Vec<Vec<(f64, f64)>> = vec![vec![]; specs.len()];
    let mut stdout = vec![vec![]; specs.len()];
    let most = if runs >= 3 { 3 * runs } else { wanted };
    for i in 0..most {
        for (s, spec) in specs.iter().enumerate() {
            if i >= wanted && settled(&timed[s], wanted, k) {
                continue;
            }
            let r = toolchain::run(exe, spec)?;
            if !r.success() {
                return Err(TimingError::Failed {
                    index: timed[s].len() + 1,
                    how: r.describe(),
                });
            }
            // A CPU time of zero means the platform did not report one: use the wall clock.
            let cpu = r.cpu.as_secs_f64();
            timed[s].push((
                if cpu > 0.0 { cpu } else { r.wall.as_secs_f64() },
                r.wall.as_secs_f64(),
            ));
            stdout[s] = r.stdout;
        }
    }
    Ok(timed
        .iter()
        .zip(stdout)
        .map(|(t, stdout)| {
            let kept = fastest(t, wanted, k);
            Timed {
                timing: Timing::from_runs(kept.iter().map(|t| t.0).collect()),
                wall: Timing::from_runs(kept.iter().map(|t| t.1).collect()),
                stdout,
            }
        })
        .collect())
}

/// The `n` fastest of the `(cpu, wall)` times of some runs, by CPU time (`k` 0) or
/// wall clock (`k` 1).
fn fastest(timed: &[(f64, f64)], n: usize, k: usize) -> Vec<(f64, f64)> {
    let mut s = timed.to_vec();
    let key = |t: &(f64, f64)| if k == 0 { t.0 } else { t.1 };
    s.sort_by(|a, b| key(a).total_cmp(&key(b)));
    s.truncate(n);
    s
}

/// Whether the `n` fastest runs agree within [`NOISY_SPREAD`] on clock `k`.
fn settled(timed: &[(f64, f64)], n: usize, k: usize) -> bool {
    let t: Vec<f64> = fastest(timed, n, k)
        .iter()
        .map(|t| if k == 0 { t.0 } else { t.1 })
        .collect();
    Timing::from_runs(t).spread() <= NOISY_SPREAD
}

/// `(predicted - measured) / measured`.
pub fn relative_error(predicted: f64, measured: f64) -> f64 {
    (predicted - measured) / measured
}

/// The error thresholds of Saavedra's accuracy tables.
pub const THRESHOLDS: [f64; 5] = [0.05, 0.10, 0.15, 0.20, 0.30];

/// Error statistics over a set of programs.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct ErrorSummary {
    /// Programs.
    pub programs: usize,
    /// For each of [`THRESHOLDS`]: the threshold and the share of programs whose
    /// absolute error is at most that (0-1).
    pub within: Vec<(f64, f64)>,
    /// Mean signed error (bias).
    pub mean_error: f64,
    /// Mean absolute error.
    pub mean_abs_error: f64,
    /// Root mean square error.
    pub rms_error: f64,
    /// Largest absolute error.
    pub max_abs_error: f64,
}

/// Summarizes relative errors.
pub fn summarize(errors: &[f64]) -> ErrorSummary {
    let n = errors.len();
    let nf = n.max(1) as f64;
    let within = THRESHOLDS
        .iter()
        .map(|&t| {
            let k = errors.iter().filter(|e| e.abs() <= t + 1e-12).count();
            (t, k as f64 / nf)
        })
        .collect();
    ErrorSummary {
        programs: n,
        within,
        mean_error: errors.iter().sum::<f64>() / nf,
        mean_abs_error: errors.iter().map(|e| e.abs()).sum::<f64>() / nf,
        rms_error: (errors.iter().map(|e| e * e).sum::<f64>() / nf).sqrt(),
        max_abs_error: errors.iter().map(|e| e.abs()).fold(0.0, f64::max),
    }
}

/// How the build being timed differs from the one the machine profile was measured with
/// (compiler, its version, flags); empty when they agree.
pub fn setup_differences(machine: &Provenance, tc: &Toolchain) -> Vec<String> {
    let mut out = vec![];
    let base = |s: &str| {
        Path::new(s)
            .file_name()
            .and_then(|f| f.to_str())
            .unwrap_or(s)
            .to_string()
    };
    let first_line = |s: &str| s.lines().next().unwrap_or("").trim().to_string();
    if !machine.compiler.is_empty() && base(&machine.compiler) != base(&tc.fc) {
        out.push(format!(
            "the machine profile was measured with {}, the program is built with {}",
            machine.compiler, tc.fc
        ));
    } else if !machine.compiler_version.is_empty()
        && first_line(&machine.compiler_version) != first_line(&tc.version)
    {
        out.push(format!(
            "the machine profile was measured with `{}`, the program is built with `{}`",
            first_line(&machine.compiler_version),
            first_line(&tc.version)
        ));
    }
    // Flags of source form, line length, standard, warnings, paths and preprocessing do
    // not change the code, so they do not make another machine.
    let want = machine.fflags.split_whitespace().collect::<Vec<_>>();
    let (only_machine, only_build) = code_generation_differences(&want, &tc.fflags);
    if !same_code_generation(&want, &tc.fflags) {
        out.push(format!(
            "the machine profile was measured with flags `{}`, the program is built with `{}`: they generate different code ({})",
            machine.fflags,
            tc.fflags.join(" "),
            flag_change(&only_machine, &only_build)
        ));
    }
    out.extend(host_differences(
        machine,
        &augur_toolchain::os::host_provenance(),
    ));
    out
}

/// `-O2 -> -O3 -march=native`, or the order when the same flags are given in another.
fn flag_change(only_machine: &[String], only_build: &[String]) -> String {
    if only_machine.is_empty() && only_build.is_empty() {
        return "the same code-generation flags in another order".to_string();
    }
    let words = |f: &[String]| {
        if f.is_empty() {
            "nothing".to_string()
        } else {
            f.join(" ")
        }
    };
    format!("{} -> {}", words(only_machine), words(only_build))
}

/// How the machine a profile was measured on differs from `host` in what the OS
/// reports of its caches and cores: a profile of another CPU (cloud hosts change under
/// a VM of the same name) prices the runs of this one wrongly.
pub fn host_differences(machine: &Provenance, host: &Provenance) -> Vec<String> {
    let mut out = vec![];
    let differing: Vec<String> = machine
        .caches
        .iter()
        .filter_map(|(level, size)| {
            let here = host.caches.get(level)?;
            (here != size).then(|| format!("{level} {size} there, {here} here"))
        })
        .collect();
    if !differing.is_empty() {
        out.push(format!(
            "the machine profile was measured on another CPU ({}): measure this one with `augur characterize`, or pick a profile of it from `augur machines`",
            differing.join(", ")
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn noisy_runs_are_settled_by_the_fastest() {
        let t = |cpu: &[f64]| -> Vec<(f64, f64)> { cpu.iter().map(|&c| (c, c)).collect() };
        // Three runs within 5% are settled.
        assert!(settled(&t(&[1.00, 1.02, 1.04]), 3, 0));
        // A run slowed down by another load is not...
        assert!(!settled(&t(&[1.00, 1.30, 1.02]), 3, 0));
        // ...until a fourth quiet run makes three fast ones agree, which are kept.
        let four = t(&[1.00, 1.30, 1.02, 1.01]);
        assert!(settled(&four, 3, 0));
        let kept: Vec<f64> = fastest(&four, 3, 0).iter().map(|x| x.0).collect();
        assert_eq!(kept, vec![1.00, 1.01, 1.02]);
    }

    #[test]
    fn the_wall_clock_ranks_threaded_runs() {
        // Two threads: CPU time twice the wall clock; the fastest by the wall clock.
        let runs = [(2.0, 1.10), (1.9, 1.30), (2.1, 1.00)];
        let kept: Vec<f64> = fastest(&runs, 2, 1).iter().map(|x| x.1).collect();
        assert_eq!(kept, vec![1.00, 1.10]);
        assert!(!settled(&runs, 3, 1));
    }

    #[test]
    fn another_cpu_is_named() {
        let mut there = Provenance::default();
        there.caches.insert("L1d".into(), "32K".into());
        there.caches.insert("L2".into(), "1024K".into());
        let mut here = there.clone();
        assert!(host_differences(&there, &here).is_empty());
        here.caches.insert("L1d".into(), "48K".into());
        let d = host_differences(&there, &here);
        assert_eq!(d.len(), 1);
        assert!(d[0].contains("L1d 32K there, 48K here"), "{d:?}");
    }

    #[test]
    fn only_code_generation_flags_make_another_machine() {
        let machine = Provenance {
            compiler: "gfortran".into(),
            fflags: "-O2".into(),
            ..Default::default()
        };
        let build = |flags: &[&str]| Toolchain {
            fc: "gfortran".into(),
            fflags: flags.iter().map(|f| f.to_string()).collect(),
            cc: "gcc".into(),
            version: String::new(),
        };
        let flag_notes = |flags: &[&str]| -> Vec<String> {
            setup_differences(&machine, &build(flags))
                .into_iter()
                .filter(|d| d.contains("flags"))
                .collect()
        };
        assert!(flag_notes(&["-O2", "-ffree-line-length-none", "-std=legacy"]).is_empty());
        let d = flag_notes(&["-O3", "-march=native", "-Wall"]);
        assert_eq!(d.len(), 1, "{d:?}");
        assert!(d[0].ends_with("(-O2 -> -O3 -march=native)"), "{d:?}");
    }

    #[test]
    fn timing_median_and_spread() {
        let t = Timing::from_runs(vec![3.0, 1.0, 2.0]);
        assert_eq!(t.median, 2.0);
        assert_eq!((t.min, t.max), (1.0, 3.0));
        assert_eq!(t.spread(), 1.0);
        let t = Timing::from_runs(vec![4.0, 2.0]);
        assert_eq!(t.median, 3.0);
    }

    #[test]
    fn summary_in_saavedras_form() {
        let e = [0.04, -0.08, 0.12, -0.25, 0.5];
        let s = summarize(&e);
        assert_eq!(s.programs, 5);
        let w: Vec<f64> = s.within.iter().map(|x| x.1).collect();
        assert_eq!(w, vec![0.2, 0.4, 0.6, 0.6, 0.8]);
        assert!((s.mean_error - 0.066).abs() < 1e-12);
        let rms = ((0.0016 + 0.0064 + 0.0144 + 0.0625 + 0.25) / 5.0f64).sqrt();
        assert!((s.rms_error - rms).abs() < 1e-12);
        assert_eq!(s.max_abs_error, 0.5);
        assert!((relative_error(1.1, 1.0) - 0.1).abs() < 1e-12);
    }
}
