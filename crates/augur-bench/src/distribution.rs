//! `augur bench distribution`: the sequential programs of `corpus/distribution`
//! distributed by their HPF directives (`augur predict --procs`) against their MPI twins:
//! at 1 and 2 ranks the twin's measured run under `mpirun` (and augur's prediction of the
//! twin itself, traced, to tell the distribution's error from the sequential model's);
//! beyond the cores, SimGrid's online simulation of the twin (`smpirun`) as the peer.

use anyhow::{Context, Result};
use augur_distribution::spec::Grid;
use augur_model::LoadedMachine;
use augur_simgrid::{online, RanksOptions, WhatIf};
use augur_toolchain::{find_on_path, BuildInput, Toolchain};
use augur_validate::{build_plain, relative_error, time_interleaved, Clock};
use serde::Deserialize;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Options of the benchmark.
pub struct DistributionArgs<'a> {
    /// The pairs' manifest (`corpus/distribution/pairs.toml`).
    pub manifest: &'a Path,
    /// Machine (path or library name) with an `[mpi]` section.
    pub machine: &'a str,
    /// Timed runs of each twin at each rank count (the median is used).
    pub runs: usize,
    /// Rank counts simulated online beyond the cores (each pair's own list bounds them).
    pub simulate: &'a [u32],
    /// Only these pairs.
    pub only: &'a [String],
}

#[derive(Deserialize)]
struct Manifest {
    pair: Vec<Pair>,
}

/// One pair of the manifest.
#[derive(Deserialize)]
struct Pair {
    name: String,
    sequential: String,
    mpi: String,
    kind: String,
    /// Rank counts beyond 2 the twin accepts.
    ranks: Vec<u32>,
    /// Distributions given on the command line, replacing the directives' for those
    /// arrays (another candidate distribution of the same sequential program).
    #[serde(default)]
    distribute: Vec<String>,
}

/// One comparison: the distributed prediction against a reference.
struct Row {
    pair: String,
    /// The sequential program (two pairs of one program are two candidates).
    sequential: String,
    ranks: u32,
    distributed: f64,
    /// The twin's own prediction (traced), at 1 and 2 ranks.
    twin_predicted: Option<f64>,
    reference: Result<f64, String>,
}

/// Runs the benchmark and returns its report.
pub fn run(a: &DistributionArgs<'_>) -> Result<String> {
    let machine = LoadedMachine::load(a.machine)?;
    let text = std::fs::read_to_string(a.manifest)
        .with_context(|| format!("cannot read {}", a.manifest.display()))?;
    let manifest: Manifest =
        toml::from_str(&text).with_context(|| format!("{}", a.manifest.display()))?;
    let root = a.manifest.parent().unwrap_or(Path::new(".")).to_path_buf();
    let host = augur_toolchain::os::host_provenance();
    let mut measured = vec![];
    let mut simulated = vec![];
    for p in manifest
        .pair
        .iter()
        .filter(|p| a.only.is_empty() || a.only.contains(&p.name))
    {
        eprintln!("augur bench distribution: {} ({})", p.name, p.kind);
        let (m, s) = pair_rows(p, &root, &machine, a)?;
        measured.extend(m);
        simulated.extend(s);
    }
    let mut out = format!(
        "augur distributed predictions against MPI twins: machine {}, host {}\n",
        machine.name, host.cpu_model
    );
    out += "at 1 and 2 ranks: the twin's run under mpirun (wall clock, median), launch included\n";
    out += &table(&measured, "measured", true);
    out += &summary(&measured, 0.20, "measured twin");
    out += &rankings(&measured);
    out += "\nbeyond the cores: SimGrid's online simulation of the twin (smpirun, the same platform), the run without the launch\n";
    out += &table(&simulated, "SimGrid", false);
    out += &summary(&simulated, 0.25, "SimGrid online");
    Ok(out)
}

/// The rows of one pair: against the measured twin at 1 and 2 ranks, against SimGrid's
/// online simulation beyond.
fn pair_rows(
    p: &Pair,
    root: &Path,
    machine: &LoadedMachine,
    a: &DistributionArgs<'_>,
) -> Result<(Vec<Row>, Vec<Row>)> {
    let tc = Toolchain::detect(
        &machine.profile.provenance.compiler,
        &machine.profile.provenance.fflags,
    )?;
    let work = augur_toolchain::interrupt::temp_dir("augur-dist-")?;
    let seq = root.join(&p.sequential);
    let mut opts = augur_program::AnalyzeOptions::new(tc.clone(), work.path());
    let sequential = augur_program::analyze(std::slice::from_ref(&seq), &opts)
        .map_err(|e| anyhow::anyhow!("{}: {e}", seq.display()))?;
    let sim: Vec<u32> = a
        .simulate
        .iter()
        .copied()
        .filter(|r| p.ranks.contains(r))
        .collect();
    let counts: Vec<u32> = [1, 2].iter().chain(&sim).copied().collect();
    let grids: Vec<Grid> = counts.iter().map(|&c| Grid(vec![c])).collect();
    let given = p
        .distribute
        .iter()
        .map(|d| augur_distribution::spec::ArrayDistribution::parse(d))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| anyhow::anyhow!("{}: {e}", p.name))?;
    let dist = augur_program::distribute::distribute(&sequential.profile, &given, &grids)
        .map_err(|e| anyhow::anyhow!("{}: {e}", p.name))?;
    let options = augur_model::PredictOptions::default();
    let predict = |profile: &augur_program_profile::ProgramProfile, r: u32| {
        augur_simgrid::predict_ranks(
            profile,
            &machine.profile,
            options,
            r,
            &RanksOptions::default(),
        )
    };
    // The twin traced at 1 and 2 ranks, and timed.
    let twin = root.join(&p.mpi);
    opts.toolchain = mpi_toolchain(&tc)?;
    opts.mpi_ranks = vec![1, 2];
    let traced = augur_program::analyze(std::slice::from_ref(&twin), &opts)
        .map_err(|e| anyhow::anyhow!("{}: {e}", twin.display()))?;
    let (_built, exe) = build_plain(&opts.toolchain, &one_source(&twin))?;
    let mut specs = vec![];
    let mut launcher = PathBuf::new();
    for r in [1, 2] {
        let spec = augur_toolchain::RunSpec::new(work.path(), Duration::from_secs(300));
        let (mpirun, spec) = augur_program::mpi::under_mpirun(&exe, r, spec)?;
        launcher = mpirun;
        specs.push(spec);
    }
    let timed = time_interleaved(&launcher, &specs, a.runs, Clock::Wall)?;
    let mut measured = vec![];
    for (r, t) in [1u32, 2].into_iter().zip(timed) {
        measured.push(Row {
            pair: p.name.clone(),
            sequential: p.sequential.clone(),
            ranks: r,
            distributed: predict(&dist.profile, r)?.seconds,
            twin_predicted: Some(predict(&traced.profile, r)?.seconds),
            reference: Ok(t.wall.median),
        });
    }
    let exe = smpi_build(&twin, &tc, work.path())?;
    let mut simulated = vec![];
    for &r in &sim {
        let platform = augur_simgrid::platform_for(&machine.profile, r, None, &WhatIf::default())?;
        let peer = online::run(&exe, &platform, r, work.path(), Duration::from_secs(900))
            .map(|o| o.simulated)
            .map_err(|e| e.to_string());
        simulated.push(Row {
            pair: p.name.clone(),
            sequential: p.sequential.clone(),
            ranks: r,
            distributed: predict(&dist.profile, r)?.simulated,
            twin_predicted: None,
            reference: peer,
        });
    }
    Ok((measured, simulated))
}

/// The build of one Fortran file, nothing beside it.
fn one_source(file: &Path) -> BuildInput {
    BuildInput {
        fortran: vec![file.to_path_buf()],
        extra_fflags: vec![],
        c_sources: vec![],
        objects: vec![],
        link_args: vec![],
    }
}

/// mpif90 with the machine's flags.
fn mpi_toolchain(tc: &Toolchain) -> Result<Toolchain> {
    let mpif90 = find_on_path("mpif90").context(
        "mpif90 was not found on PATH: install Open MPI (Debian: apt-get install openmpi-bin libopenmpi-dev)",
    )?;
    Ok(Toolchain::detect(
        &mpif90.display().to_string(),
        &tc.fflags.join(" "),
    )?)
}

/// The twin built with SimGrid's `smpif90` and the machine's flags.
fn smpi_build(twin: &Path, tc: &Toolchain, dir: &Path) -> Result<PathBuf> {
    let smpif90 = find_on_path("smpif90").context(
        "smpif90 was not found: install SimGrid (Debian: apt-get install libsimgrid-dev simgrid)",
    )?;
    let mut smpi = Toolchain::detect(&smpif90.display().to_string(), &tc.fflags.join(" "))?;
    // smpif90 wraps gfortran (SimGrid's Debian build): the flags it takes are gfortran's.
    smpi.version = format!("{} over {}", smpi.version.trim(), tc.version);
    augur_toolchain::build(&smpi, &one_source(twin), dir, "smpi-twin")
        .with_context(|| format!("{}: the smpif90 build failed", twin.display()))
}

fn table(rows: &[Row], reference: &str, twin: bool) -> String {
    let mut out = format!(
        "  {:<12} {:>5} {:>12} {:>12} {:>8}{}\n",
        "pair",
        "ranks",
        "distributed",
        reference,
        "error",
        if twin {
            "   twin predicted  its error"
        } else {
            ""
        }
    );
    for r in rows {
        let _ = write!(
            out,
            "  {:<12} {:>5} {:>11.4}s ",
            r.pair, r.ranks, r.distributed
        );
        match &r.reference {
            Ok(m) => {
                let _ = write!(
                    out,
                    "{:>11.4}s {:>+7.1}%",
                    m,
                    100.0 * relative_error(r.distributed, *m)
                );
                if let Some(t) = r.twin_predicted {
                    let _ = write!(
                        out,
                        "   {:>13.4}s {:>+9.1}%",
                        t,
                        100.0 * relative_error(t, *m)
                    );
                }
            }
            Err(e) => {
                let _ = write!(out, "{:>12} ({e})", "failed");
            }
        }
        out.push('\n');
    }
    out
}

/// The share within `bound` and the RMS error of the rows that have a reference.
fn summary(rows: &[Row], bound: f64, what: &str) -> String {
    let errors: Vec<f64> = rows
        .iter()
        .filter_map(|r| {
            r.reference
                .as_ref()
                .ok()
                .map(|m| relative_error(r.distributed, *m))
        })
        .collect();
    if errors.is_empty() {
        return format!("  against the {what}: no row\n");
    }
    let within = errors.iter().filter(|e| e.abs() <= bound).count();
    let rms = (errors.iter().map(|e| e * e).sum::<f64>() / errors.len() as f64).sqrt();
    format!(
        "  against the {what}: {within} of {} within {:.0}%, RMS {:.1}%\n",
        errors.len(),
        bound * 100.0,
        rms * 100.0
    )
}

/// Candidate distributions of one sequential program (pairs sharing it) at each rank
/// count: whether the predicted order is the measured one (a measured difference under
/// 2% is a tie, which any order matches).
fn rankings(rows: &[Row]) -> String {
    let mut out = String::new();
    let (mut same, mut cases) = (0, 0);
    let mut programs: Vec<&str> = rows.iter().map(|r| r.sequential.as_str()).collect();
    programs.sort_unstable();
    programs.dedup();
    for prog in programs {
        for ranks in [1, 2] {
            let at: Vec<&Row> = rows
                .iter()
                .filter(|r| r.sequential == prog && r.ranks == ranks && r.reference.is_ok())
                .collect();
            for (i, a) in at.iter().enumerate() {
                for b in &at[i + 1..] {
                    let (ma, mb) = (
                        *a.reference.as_ref().unwrap_or(&0.0),
                        *b.reference.as_ref().unwrap_or(&0.0),
                    );
                    let tie = (ma - mb).abs() < 0.02 * ma.min(mb);
                    let agrees = tie || (a.distributed < b.distributed) == (ma < mb);
                    cases += 1;
                    same += usize::from(agrees);
                    let _ = writeln!(
                        out,
                        "  {prog} at {ranks} rank(s): {} {:.4}s / {} {:.4}s predicted, {:.4}s / {:.4}s measured: {}",
                        a.pair,
                        a.distributed,
                        b.pair,
                        b.distributed,
                        ma,
                        mb,
                        if tie { "a measured tie" } else if agrees { "the same order" } else { "another order" }
                    );
                }
            }
        }
    }
    if cases == 0 {
        return String::new();
    }
    format!("candidate distributions of one program ranked: {same} of {cases} as measured\n{out}")
}
