//! One MPI program validated at several rank counts: traced at each (`augur analyze
//! --mpi-ranks`), predicted at each (segments priced by the sequential model, calls
//! replayed by SimGrid on this machine's measured network), built normally with the MPI
//! wrapper compiler and timed on the wall clock under `mpirun -np P`, rank counts
//! interleaved run by run. `augur validate --mpi-ranks` shows one. A hybrid MPI + OpenMP
//! program (`opts.threads` given) is also counted per thread, built with `-fopenmp` and
//! run at every rank count times thread count that fits the cores, with
//! `OMP_NUM_THREADS` and unbound ranks (`mpirun --bind-to none`: a rank's threads need
//! cores of their own).

use anyhow::{Context, Result};
use augur_program::mpi::under_mpirun;
use augur_program::AnalyzeOptions;
use augur_simgrid::RanksPrediction;
use augur_toolchain::{find_on_path, Toolchain};
use augur_validate::{build_plain, relative_error, time_interleaved, Clock, Timing};
use serde::Serialize;
use std::path::PathBuf;

/// One rank count: predicted against measured.
#[derive(Debug, Serialize, schemars::JsonSchema)]
pub struct RankRow {
    /// Ranks.
    pub ranks: u32,
    /// OpenMP threads per rank (1 for a program that is not hybrid).
    pub threads: u32,
    /// Predicted seconds.
    pub predicted: f64,
    /// Each rank's predicted compute seconds.
    pub compute: Vec<f64>,
    /// Measured wall-clock times of the job.
    pub measured: Timing,
    /// `(predicted - measured) / measured` of the median.
    pub error: f64,
}

/// The rows of one program, and the timed build.
#[derive(Debug, Serialize, schemars::JsonSchema)]
pub struct RankValidation {
    /// Compiler and flags of the timed build.
    pub build: String,
    /// One row per rank count.
    pub rows: Vec<RankRow>,
    /// Warnings (output that differs from the counting run's, ...).
    pub warnings: Vec<String>,
    /// The program profile with its traces (not in JSON output).
    #[serde(skip)]
    pub profile: augur_program_profile::ProgramProfile,
    /// What the counting run and the timed jobs printed (not in JSON output).
    #[serde(skip)]
    pub outputs: Vec<(String, Vec<u8>)>,
}

/// Traces, predicts and times `fortran` at each of `opts.mpi_ranks` (times each of
/// `opts.threads` for a hybrid program).
pub fn validate_ranks(req: crate::validation::Request<'_>) -> Result<RankValidation> {
    let (machine, opts, options) = (req.machine, req.opts, req.options);
    let analysis = req.analyze()?;
    let (configs, mut warnings) = configurations(opts);
    let predictions: Vec<RanksPrediction> = configs
        .iter()
        .map(|&(p, t)| {
            let how = augur_simgrid::RanksOptions {
                threads: t,
                ..Default::default()
            };
            augur_simgrid::predict_ranks(&analysis.profile, &machine.profile, options, p, &how)
        })
        .collect::<Result<_, _>>()?;
    let tc = mpi_toolchain(opts)?;
    let input = req.build_input(&analysis.program);
    let (_work, exe) = build_plain(&tc, &input)?;
    let (launcher, specs) = jobs(&exe, opts, &configs)?;
    let timed = time_interleaved(&launcher, &specs, req.runs, Clock::Wall)?;
    let mut rows = vec![];
    let mut outputs = vec![(
        "instrumented (counting)".to_string(),
        analysis.run.stdout.clone(),
    )];
    for (k, ((p, t), &(_, threads))) in predictions.into_iter().zip(timed).zip(&configs).enumerate()
    {
        // The counting run's output is the first rank count's.
        if k == 0 && t.stdout != analysis.run.stdout {
            warnings.push(format!(
                "at {} ranks the job {} (ranks printing in another order?)",
                p.ranks,
                crate::validation::OUTPUT_DIFFERS
            ));
        }
        outputs.push((
            format!("timed at {} ranks x {threads} threads", p.ranks),
            t.stdout,
        ));
        rows.push(RankRow {
            ranks: p.ranks,
            threads,
            predicted: p.seconds,
            error: relative_error(p.seconds, t.wall.median),
            compute: p.compute,
            measured: t.wall,
        });
    }
    Ok(RankValidation {
        build: format!("{} {}", tc.fc, tc.fflags.join(" ")),
        rows,
        warnings,
        profile: analysis.profile,
        outputs,
    })
}

/// The (ranks, threads per rank) timed: every rank count at one thread, and for a hybrid
/// program every rank count times thread count that fits this machine's cores (the
/// others are named in a warning: timing runs cannot share cores).
fn configurations(opts: &AnalyzeOptions) -> (Vec<(u32, u32)>, Vec<String>) {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get() as u32);
    let threads: Vec<u32> = if opts.threads.is_empty() {
        vec![1]
    } else {
        opts.threads.clone()
    };
    let mut configs = vec![];
    let mut left_out = vec![];
    for &t in &threads {
        for &p in &opts.mpi_ranks {
            if t == 1 || p * t <= cores {
                configs.push((p, t));
            } else {
                left_out.push(format!("{p} x {t}"));
            }
        }
    }
    let warnings = if left_out.is_empty() {
        vec![]
    } else {
        vec![format!(
            "not timed: {} ranks x threads (more than the {cores} cores)",
            left_out.join(", ")
        )]
    };
    (configs, warnings)
}

/// `mpirun` and the timed job of each (ranks, threads) of `configs`.
fn jobs(
    exe: &std::path::Path,
    opts: &AnalyzeOptions,
    configs: &[(u32, u32)],
) -> Result<(PathBuf, Vec<augur_toolchain::RunSpec>)> {
    let mut launcher = PathBuf::new();
    let mut specs = vec![];
    for &(p, t) in configs {
        let (mpirun, mut spec) = under_mpirun(exe, p, team_run(opts, t))?;
        if t > 1 {
            // Open MPI binds each rank to one core by default: its threads would share it.
            spec.args
                .splice(0..0, ["--bind-to".to_string(), "none".to_string()]);
        }
        launcher = mpirun;
        specs.push(spec);
    }
    Ok((launcher, specs))
}

/// The MPI wrapper compiler with the program's flags (and `-fopenmp` for a hybrid one).
fn mpi_toolchain(opts: &AnalyzeOptions) -> Result<Toolchain> {
    let mpif90 = find_on_path("mpif90").context("mpif90 was not found on PATH: install Open MPI (Debian: apt-get install openmpi-bin libopenmpi-dev)")?;
    let mut flags = opts.toolchain.fflags.clone();
    if !opts.threads.is_empty() && !augur_program::openmp::flags_enable_openmp(&flags) {
        flags.push(augur_program::openmp::OPENMP_FLAG.to_string());
    }
    let mut tc = Toolchain::detect(&mpif90.display().to_string(), &flags.join(" "))?;
    if let Some(mpicc) = find_on_path("mpicc") {
        tc.cc = mpicc.display().to_string();
    }
    Ok(tc)
}

/// A timed run of a rank with `threads` OpenMP threads (none set for a program that is
/// not hybrid).
fn team_run(opts: &AnalyzeOptions, threads: u32) -> augur_toolchain::RunSpec {
    let env = if opts.threads.is_empty() {
        vec![]
    } else {
        vec![("OMP_NUM_THREADS".to_string(), threads.to_string())]
    };
    crate::validation::timed_run(opts, env)
}
