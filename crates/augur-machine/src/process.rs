//! What a run pays outside the program's code: a program that only prints a number,
//! built with the machine's compiler and flags and timed as `augur validate` times a
//! program (the CPU time, user + system, of the whole process).

use augur_machine_profile::process::ProcessProfile;
use augur_toolchain::{BuildInput, RunSpec, Toolchain};
use std::time::Duration;

/// The program: one line of list-directed output, as nearly every program writes, so
/// that the run-time library's unit for standard output is opened and flushed.
const PROGRAM: &str = "program augur_process_start\n  print *, 1.0d0\nend program\n";

/// Untimed runs first: they bring the program and its libraries into the file cache.
const WARM_RUNS: usize = 3;

/// Why the start could not be measured.
#[derive(Debug, thiserror::Error)]
pub enum ProcessError {
    /// The temporary directory or the source could not be written.
    #[error("cannot write the process-start program: {0}")]
    Io(#[from] std::io::Error),
    /// The program did not build.
    #[error("the process-start program did not build: {0}")]
    Build(#[from] augur_toolchain::BuildError),
    /// A run could not be started or was interrupted.
    #[error("the process-start program could not run: {0}")]
    Run(#[from] augur_toolchain::RunError),
    /// A run failed.
    #[error("the process-start program failed: {0}; check that programs built with these flags run here")]
    Failed(String),
}

/// Builds the program with `tc` and times `runs` executions of it (at least 5) after
/// [`WARM_RUNS`] untimed ones: the median CPU time and half the interquartile range.
pub fn measure_start(tc: &Toolchain, runs: usize) -> Result<ProcessProfile, ProcessError> {
    let work = augur_toolchain::interrupt::temp_dir("augur-process")?;
    let source = work.path().join("process_start.f90");
    std::fs::write(&source, PROGRAM)?;
    let input = BuildInput {
        fortran: vec![source],
        ..BuildInput::default()
    };
    let exe = augur_toolchain::build(tc, &input, work.path(), "process_start")?;
    let spec = RunSpec::new(work.path(), Duration::from_secs(30));
    let runs = runs.max(5);
    let mut cpu = Vec::with_capacity(runs);
    for i in 0..WARM_RUNS + runs {
        let r = augur_toolchain::run(&exe, &spec)?;
        if !r.success() {
            return Err(ProcessError::Failed(r.describe()));
        }
        if i >= WARM_RUNS {
            cpu.push(r.cpu.as_secs_f64() * 1e9);
        }
    }
    Ok(summarize(cpu))
}

/// The median and half the interquartile range of some CPU times (ns).
fn summarize(mut ns: Vec<f64>) -> ProcessProfile {
    ns.sort_by(f64::total_cmp);
    let at = |q: f64| ns[((ns.len() - 1) as f64 * q).round() as usize];
    ProcessProfile {
        start_ns: at(0.5),
        spread_ns: (at(0.75) - at(0.25)) / 2.0,
        runs: ns.len() as u32,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_start_is_the_median_and_the_spread_half_the_middle_half() {
        let p = summarize(vec![5.0, 1.0, 2.0, 4.0, 3.0]);
        assert_eq!(p.start_ns, 3.0);
        assert_eq!(p.spread_ns, 1.0);
        assert_eq!(p.runs, 5);
    }
}
