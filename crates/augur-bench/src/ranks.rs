//! One MPI program validated at several rank counts: traced at each (`augur analyze
//! --mpi-ranks`), predicted at each (segments priced by the sequential model, calls
//! replayed by SimGrid on this machine's measured network), built normally with the MPI
//! wrapper compiler and timed on the wall clock under `mpirun -np P`, rank counts
//! interleaved run by run. `augur validate --mpi-ranks` shows one.

use anyhow::{Context, Result};
use augur_model::LoadedMachine;
use augur_program::mpi::under_mpirun;
use augur_program::AnalyzeOptions;
use augur_simgrid::RanksPrediction;
use augur_toolchain::{find_on_path, Toolchain};
use augur_validate::{build_plain, relative_error, time_interleaved, Clock, Timing};
use serde::Serialize;
use std::path::PathBuf;

/// One rank count: predicted against measured.
#[derive(Debug, Serialize)]
pub struct RankRow {
    /// Ranks.
    pub ranks: u32,
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
#[derive(Debug, Serialize)]
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

/// Traces, predicts and times `fortran` at each of `opts.mpi_ranks`.
pub fn validate_ranks(
    machine: &LoadedMachine,
    fortran: &[PathBuf],
    opts: &AnalyzeOptions,
    extra_fflags: Vec<String>,
    runs: usize,
    options: augur_model::PredictOptions,
) -> Result<RankValidation> {
    let analysis = augur_program::analyze(fortran, opts)
        .map_err(|e| crate::validation::analysis_error(e, opts))?;
    let predictions: Vec<RanksPrediction> = opts
        .mpi_ranks
        .iter()
        .map(|&p| {
            augur_simgrid::predict_ranks(
                &analysis.profile,
                &machine.profile,
                options,
                p,
                &Default::default(),
            )
        })
        .collect::<Result<_, _>>()?;
    let mpif90 = find_on_path("mpif90").context("mpif90 was not found on PATH: install Open MPI (Debian: apt-get install openmpi-bin libopenmpi-dev)")?;
    let mut tc = Toolchain::detect(
        &mpif90.display().to_string(),
        &opts.toolchain.fflags.join(" "),
    )?;
    if let Some(mpicc) = find_on_path("mpicc") {
        tc.cc = mpicc.display().to_string();
    }
    let input =
        crate::validation::plain_build_input(&analysis.program, fortran, opts, extra_fflags);
    let (_work, exe) = build_plain(&tc, &input)?;
    let mut launcher = PathBuf::new();
    let mut specs = vec![];
    for &p in &opts.mpi_ranks {
        let (mpirun, spec) = under_mpirun(&exe, p, crate::validation::timed_run(opts, vec![]))?;
        launcher = mpirun;
        specs.push(spec);
    }
    let timed = time_interleaved(&launcher, &specs, runs, Clock::Wall)?;
    let mut warnings = vec![];
    let mut rows = vec![];
    let mut outputs = vec![(
        "instrumented (counting)".to_string(),
        analysis.run.stdout.clone(),
    )];
    for (k, (p, t)) in predictions.into_iter().zip(timed).enumerate() {
        // The counting run's output is the first rank count's.
        if k == 0 && t.stdout != analysis.run.stdout {
            warnings.push(format!(
                "at {} ranks the job {} (ranks printing in another order?)",
                p.ranks,
                crate::validation::OUTPUT_DIFFERS
            ));
        }
        outputs.push((format!("timed at {} ranks", p.ranks), t.stdout));
        rows.push(RankRow {
            ranks: p.ranks,
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
