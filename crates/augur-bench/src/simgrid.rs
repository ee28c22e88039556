//! `augur bench simgrid`: beyond this machine's cores, augur's MPI predictions beside
//! SimGrid's own online simulation of the same program (built with `smpif90`, its compute
//! bursts timed on this host, its calls simulated on the same platform), at rank counts
//! no timing run can check here; and what each costs: augur's counting run and replay
//! against SimGrid's run. With `--replay-cost`, the replay of the largest program's
//! traces extrapolated to many ranks, timed.

use crate::corpus::CorpusProgram;
use anyhow::{Context, Result};
use augur_model::LoadedMachine;
use augur_simgrid::{online, RanksOptions, WhatIf};
use augur_toolchain::{find_on_path, BuildInput, Toolchain};
use std::fmt::Write as _;
use std::path::Path;
use std::time::{Duration, Instant};

/// Options of the comparison.
pub struct SimGridArgs<'a> {
    /// The MPI corpus manifest.
    pub manifest: &'a Path,
    /// Machine (path or library name) with an `[mpi]` section.
    pub machine: &'a str,
    /// Rank counts.
    pub ranks: &'a [u32],
    /// Only these programs.
    pub only: &'a [String],
    /// Rank counts to time the replay at (traces extrapolated from the largest three
    /// counts of `ranks`).
    pub replay_cost: &'a [u32],
}

/// One program at one rank count.
struct Row {
    ranks: u32,
    augur: f64,
    replay_seconds: f64,
    online: Result<online::OnlineRun, String>,
}

/// Runs the comparison and returns its report.
pub fn run(a: &SimGridArgs<'_>) -> Result<String> {
    let machine = LoadedMachine::load(a.machine)?;
    let (_, programs) = crate::corpus::load(a.manifest, a.only)?;
    let host = augur_toolchain::os::host_provenance();
    let mut out = format!(
        "augur MPI predictions beside SimGrid's online simulation: {} program(s), machine {}, ranks {:?}, host {}\n",
        programs.len(),
        machine.name,
        a.ranks,
        host.cpu_model
    );
    let _ = writeln!(
        out,
        "{:<20} {:>5} {:>10} {:>10} {:>8} {:>10} {:>10}",
        "program", "ranks", "augur", "SimGrid", "ratio", "replay s", "SimGrid s"
    );
    let mut profiles: Vec<(f64, augur_program_profile::ProgramProfile, String)> = vec![];
    for p in &programs {
        eprintln!("augur bench simgrid: {}", p.name);
        match compare(p, &machine, a) {
            Ok((rows, profile, analysis_seconds)) => {
                out += &rows_text(&p.name, &rows, analysis_seconds);
                let work = rows.first().map_or(0.0, |r| r.augur * f64::from(r.ranks));
                profiles.push((work, profile, p.name.clone()));
            }
            Err(e) => {
                let _ = writeln!(out, "{:<20} failed: {e:#}", p.name);
            }
        }
    }
    if !a.replay_cost.is_empty() {
        // The largest program whose traces extrapolate to the counts asked.
        profiles.sort_by(|x, y| y.0.total_cmp(&x.0));
        for (_, profile, name) in &profiles {
            match replay_cost(profile, name, &machine, a.replay_cost) {
                Ok(text) => {
                    out += &text;
                    break;
                }
                Err(e) => {
                    let _ = writeln!(out, "replay cost: {name} left out: {e}");
                }
            }
        }
    }
    Ok(out)
}

/// Traces `p` at every rank count, predicts each (timing the replay) and simulates it
/// online; also returns the profile and the counting runs' seconds.
fn compare(
    p: &CorpusProgram,
    machine: &LoadedMachine,
    a: &SimGridArgs<'_>,
) -> Result<(Vec<Row>, augur_program_profile::ProgramProfile, f64)> {
    let tc = Toolchain::detect(
        &machine.profile.provenance.compiler,
        &machine.profile.provenance.fflags,
    )?;
    let (fortran, mut opts) = p.analyze_options(&p.root, &tc)?;
    opts.mpi_ranks = a.ranks.to_vec();
    let started = Instant::now();
    let analysis = augur_program::analyze(&fortran, &opts)
        .map_err(|e| crate::validation::analysis_error(e, &opts))?;
    let analysis_seconds = started.elapsed().as_secs_f64();
    let work = augur_toolchain::interrupt::temp_dir("augur-smpi-")
        .context("cannot create a directory for the SimGrid build")?;
    let exe = smpi_build(p, &fortran, &tc, work.path())?;
    let mut rows = vec![];
    for &ranks in a.ranks {
        let started = Instant::now();
        let pred = augur_simgrid::predict_ranks(
            &analysis.profile,
            &machine.profile,
            augur_model::PredictOptions::default(),
            ranks,
            &RanksOptions::default(),
        )?;
        let replay_seconds = started.elapsed().as_secs_f64();
        let platform =
            augur_simgrid::platform_for(&machine.profile, ranks, None, &WhatIf::default())?;
        let online = online::run(
            &exe,
            &platform,
            ranks,
            work.path(),
            Duration::from_secs(600),
        )
        .map_err(|e| e.to_string());
        rows.push(Row {
            ranks,
            augur: pred.simulated,
            replay_seconds,
            online,
        });
    }
    Ok((rows, analysis.profile, analysis_seconds))
}

/// The program built with SimGrid's `smpif90` and the machine's flags.
fn smpi_build(
    p: &CorpusProgram,
    fortran: &[std::path::PathBuf],
    tc: &Toolchain,
    dir: &Path,
) -> Result<std::path::PathBuf> {
    let smpif90 = find_on_path("smpif90").context(
        "smpif90 was not found: install SimGrid (Debian: apt-get install libsimgrid-dev simgrid)",
    )?;
    let mut flags = tc.fflags.clone();
    flags.extend(p.fflags.iter().cloned());
    let mut smpi = Toolchain::detect(&smpif90.display().to_string(), &flags.join(" "))?;
    // smpif90 wraps gfortran (SimGrid's Debian build) and prints SimGrid's version: the
    // flags it takes are gfortran's.
    smpi.version = format!("{} over {}", smpi.version.trim(), tc.version);
    let input = BuildInput {
        fortran: fortran.to_vec(),
        extra_fflags: p.preprocessing_flags(&p.root),
        c_sources: vec![],
        objects: vec![],
        link_args: vec![],
    };
    augur_toolchain::build(&smpi, &input, dir, "smpi-exe")
        .with_context(|| format!("{}: the smpif90 build failed", p.name))
}

fn rows_text(name: &str, rows: &[Row], analysis_seconds: f64) -> String {
    let mut s = String::new();
    for r in rows {
        let (sim, ratio, cost) = match &r.online {
            Ok(o) => (
                format!("{:.4}", o.simulated),
                format!("{:.2}", r.augur / o.simulated),
                format!("{:.2}", o.wall),
            ),
            Err(e) => (format!("failed: {e}"), String::new(), String::new()),
        };
        let _ = writeln!(
            s,
            "{:<20} {:>5} {:>10.4} {:>10} {:>8} {:>10.2} {:>10}",
            name, r.ranks, r.augur, sim, ratio, r.replay_seconds, cost
        );
    }
    let _ = writeln!(
        s,
        "{:<20} (augur's counting runs at every count: {analysis_seconds:.1} s)",
        ""
    );
    s
}

/// The replay of `name`'s traces extrapolated to each of `counts`, timed (an error when
/// they do not extrapolate).
fn replay_cost(
    profile: &augur_program_profile::ProgramProfile,
    name: &str,
    machine: &LoadedMachine,
    counts: &[u32],
) -> Result<String> {
    let mut s = format!("\nreplay cost ({name}, the largest program whose traces extrapolate):\n");
    for &ranks in counts {
        let started = Instant::now();
        let p = augur_simgrid::predict_ranks(
            profile,
            &machine.profile,
            augur_model::PredictOptions::default(),
            ranks,
            &RanksOptions::default(),
        )?;
        let took = started.elapsed().as_secs_f64();
        let _ = writeln!(
            s,
            "  {ranks:>5} ranks: predicted {:.4} s (traces extrapolated from {:?}), {} MPI calls replayed in {took:.2} s",
            p.simulated,
            p.extrapolated_from,
            p.calls.iter().sum::<u64>()
        );
    }
    Ok(s)
}
