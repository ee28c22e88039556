//! One OpenMP program validated at several thread counts: counted per thread at each
//! (`augur analyze --threads`), predicted at each, built normally with `-fopenmp` and
//! timed on the wall clock with `OMP_NUM_THREADS` set; errors and speedups.
//! `augur validate --threads` shows one; `augur bench openmp` runs one per program.

use anyhow::Result;
use augur_model::openmp::{predict_threads, ThreadsPrediction};
use augur_program::openmp::openmp_options;
use augur_program::ProgramProfile;
use augur_validate::{build_plain, relative_error, time_interleaved, Clock, Timing};
use serde::Serialize;

/// The result of validating one OpenMP program at several thread counts.
#[derive(Debug, Serialize, schemars::JsonSchema)]
pub struct ThreadValidation {
    /// The program (its first source file).
    pub program: String,
    /// The machine's name.
    pub machine: String,
    /// Compiler and flags of the timed build.
    pub build: String,
    /// One row per thread count.
    pub rows: Vec<ThreadRow>,
    /// The prediction.
    pub prediction: ThreadsPrediction,
    /// Warnings (differing output, ...).
    pub warnings: Vec<String>,
    /// The program profile (not in JSON output).
    #[serde(skip)]
    pub profile: ProgramProfile,
    /// What the counting run and the timed runs printed (not in JSON output).
    #[serde(skip)]
    pub outputs: Vec<(String, Vec<u8>)>,
}

/// One thread count: predicted against measured.
#[derive(Debug, Serialize, schemars::JsonSchema)]
pub struct ThreadRow {
    /// Threads.
    pub threads: u32,
    /// Predicted seconds.
    pub predicted: f64,
    /// Measured wall-clock times.
    pub measured: Timing,
    /// `(predicted - measured) / measured` of the median.
    pub error: f64,
}

impl ThreadValidation {
    /// Predicted and measured speedup `T(1)/T(P)` of each row (none without a 1-thread
    /// row).
    pub fn speedups(&self) -> Vec<(u32, f64, f64)> {
        let Some(one) = self.rows.iter().find(|r| r.threads == 1) else {
            return vec![];
        };
        self.rows
            .iter()
            .map(|r| {
                (
                    r.threads,
                    one.predicted / r.predicted,
                    one.measured.median / r.measured.median,
                )
            })
            .collect()
    }
}

/// Counts, predicts and times `fortran` at each of `opts.threads`.
pub fn validate_threads(req: crate::validation::Request<'_>) -> Result<ThreadValidation> {
    let (machine, opts, options) = (req.machine, req.opts, req.options);
    let analysis = req.analyze()?;
    let prediction = predict_threads(&analysis.profile, &machine.profile, options, &opts.threads)
        .map_err(anyhow::Error::msg)?;
    let omp = openmp_options(opts)?;
    let input = req.build_input(&analysis.program);
    let (_work, exe) = build_plain(&omp.toolchain, &input)?;
    let mut rows = vec![];
    let mut warnings = prediction.warnings.clone();
    let mut outputs = vec![(
        "instrumented (counting)".to_string(),
        analysis.run.stdout.clone(),
    )];
    // One run at each thread count per round: a host that drifts moves them all alike.
    let specs: Vec<_> = prediction
        .points
        .iter()
        .map(|point| {
            let env = vec![("OMP_NUM_THREADS".into(), point.threads.to_string())];
            crate::validation::timed_run(opts, env)
        })
        .collect();
    let all = time_interleaved(&exe, &specs, req.runs, Clock::Wall)?;
    for (point, timed) in prediction.points.iter().zip(all) {
        if timed.stdout != analysis.run.stdout {
            warnings.push(format!(
                "with {} thread(s) the program {} (nondeterministic output, or floating-point reductions in another order)",
                point.threads,
                crate::validation::OUTPUT_DIFFERS
            ));
        }
        outputs.push((
            format!("timed at {} thread(s)", point.threads),
            timed.stdout,
        ));
        rows.push(ThreadRow {
            threads: point.threads,
            predicted: point.seconds,
            error: relative_error(point.seconds, timed.wall.median),
            measured: timed.wall,
        });
    }
    let tc = &omp.toolchain;
    let most = prediction
        .points
        .iter()
        .map(|p| p.threads)
        .max()
        .unwrap_or(1);
    if let Some(w) = fork_join_drift(&machine.profile, tc, most) {
        warnings.push(w);
    }
    Ok(ThreadValidation {
        program: req
            .fortran
            .first()
            .map(|p| p.display().to_string())
            .unwrap_or_default(),
        machine: machine.name.clone(),
        build: format!("{} {}", tc.fc, tc.fflags.join(" ")),
        rows,
        prediction,
        warnings,
        profile: analysis.profile,
        outputs,
    })
}

/// Factor by which this host's fork and join may differ from its profile's before a
/// validation says so.
const FORK_JOIN_DRIFT: f64 = 1.5;

/// A warning when a parallel region's fork and join with `threads` threads costs this
/// host now ([`augur_openmp::fork_join_now`]) more than [`FORK_JOIN_DRIFT`] times more or
/// less than the machine profile says: the predictions of a program that opens many
/// regions would be held against a machine other than the one characterized. `None`
/// with one thread, without a measured `parallel` overhead, or when the probe fails (the
/// validation itself goes on).
fn fork_join_drift(
    machine: &augur_machine_profile::MachineProfile,
    toolchain: &augur_toolchain::Toolchain,
    threads: u32,
) -> Option<String> {
    if threads < 2 {
        return None;
    }
    let profiled = machine
        .openmp
        .as_ref()?
        .overheads
        .iter()
        .find(|o| o.construct == "parallel" && o.threads == threads)?
        .seconds;
    let now = augur_openmp::fork_join_now(toolchain, threads).ok()?;
    drift_warning(profiled, now, threads)
}

/// The warning of [`fork_join_drift`] for a profiled and a measured overhead.
fn drift_warning(profiled: f64, now: f64, threads: u32) -> Option<String> {
    if profiled <= 0.0 || now <= 0.0 {
        return None;
    }
    let ratio = now / profiled;
    if (1.0 / FORK_JOIN_DRIFT..=FORK_JOIN_DRIFT).contains(&ratio) {
        return None;
    }
    Some(format!(
        "a parallel region's fork and join with {threads} threads costs {:.2} us on this host now, the machine profile says {:.2} us ({ratio:.2} times): the cores talk to each other {} than when it was characterized (a virtual machine's cores moved on the host, or another load); predictions of programs that open many regions are held against another machine: measure it again with `augur characterize --openmp -o PROFILE`",
        now * 1e6,
        profiled * 1e6,
        if ratio < 1.0 { "faster" } else { "slower" }
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fork_and_join_far_from_the_profiles_is_named_with_both_costs() {
        assert_eq!(drift_warning(1.0e-6, 1.2e-6, 2), None);
        assert_eq!(drift_warning(1.0e-6, 0.7e-6, 2), None);
        let w = drift_warning(1.08e-6, 0.44e-6, 2).expect("a warning");
        assert!(
            w.contains("0.44 us") && w.contains("1.08 us") && w.contains("faster"),
            "{w}"
        );
        assert!(w.contains("augur characterize --openmp"), "{w}");
        let w = drift_warning(0.4e-6, 1.3e-6, 2).expect("a warning");
        assert!(w.contains("slower"), "{w}");
    }
}
