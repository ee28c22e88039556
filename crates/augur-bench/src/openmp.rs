//! `augur bench openmp`: the OpenMP corpus (`corpus/openmp/corpus.toml`) validated at
//! each thread count (count per thread, predict, time on the wall clock), per program
//! the errors and the predicted against measured speedup, then the pooled share within
//! 10% and the RMS error, and the share of speedups within 10%. `--save` keeps each
//! program's profile and times; `--replay` prices them again without running anything.

use crate::threads::{validate_threads, ThreadRow, ThreadValidation};
use anyhow::{Context, Result};
use augur_model::openmp::predict_threads;
use augur_model::LoadedMachine;
use augur_program_profile::ProgramProfile;
use augur_validate::Timing;
use serde::{Deserialize, Serialize};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// Options of the OpenMP benchmark.
pub struct OpenMpArgs<'a> {
    /// The programs: the OpenMP corpus, or a suite of real programs (those with OpenMP
    /// directives build with them).
    pub programs: crate::accuracy::ProgramSet<'a>,
    /// Machine (path or library name).
    pub machine: &'a str,
    /// Thread counts.
    pub threads: &'a [u32],
    /// Timed runs per program and thread count.
    pub runs: usize,
    /// Only these programs.
    pub only: &'a [String],
    /// Keep profiles and times here.
    pub save: Option<&'a Path>,
    /// Price the profiles and times kept here instead of running.
    pub replay: Option<&'a Path>,
}

/// What `--save` keeps of one program besides its profile.
#[derive(Debug, Serialize, Deserialize)]
struct SavedTimes {
    build: String,
    /// (threads, wall-clock times of the runs kept).
    times: Vec<(u32, Vec<f64>)>,
}

/// One program's rows.
struct Outcome {
    name: String,
    rows: Vec<ThreadRow>,
    warnings: Vec<String>,
}

/// Runs the benchmark and returns its report.
pub fn run(a: &OpenMpArgs<'_>) -> Result<String> {
    let machine = LoadedMachine::load(a.machine)?;
    let programs = match a.programs {
        crate::accuracy::ProgramSet::Corpus(manifest) => crate::corpus::load(manifest, a.only)?.1,
        crate::accuracy::ProgramSet::Suite {
            manifests,
            sources,
            part,
        } => {
            let s = crate::suite::load(manifests, sources, part, a.only)?;
            for m in &s.missing {
                eprintln!("missing: {m}");
            }
            s.programs
        }
    };
    let mut out = String::new();
    let host = augur_toolchain::os::host_provenance();
    let _ = writeln!(
        out,
        "augur OpenMP benchmark: {} program(s) on {} ({}), threads {:?}, host {}",
        programs.len(),
        machine.name,
        machine.profile.provenance.fflags,
        a.threads,
        host.cpu_model
    );
    let mut outcomes = vec![];
    let mut failed = vec![];
    for p in &programs {
        eprintln!("augur bench openmp: {}", p.name);
        let o = match a.replay {
            Some(dir) => replay_one(dir, &p.name, &machine, a.threads),
            None => measure_one(&p.root, p, &machine, a),
        };
        match o {
            Ok(o) => outcomes.push(o),
            Err(e) => failed.push(format!("{}: {e:#}", p.name)),
        }
    }
    out.push_str(&table(&outcomes, a.threads));
    for f in &failed {
        let _ = writeln!(out, "failed: {f}");
    }
    Ok(out)
}

/// Counts, predicts and times one program (and keeps it with `--save`).
fn measure_one(
    root: &Path,
    p: &crate::corpus::CorpusProgram,
    machine: &LoadedMachine,
    a: &OpenMpArgs<'_>,
) -> Result<Outcome> {
    let tc = augur_toolchain::Toolchain::detect(
        &machine.profile.provenance.compiler,
        &machine.profile.provenance.fflags,
    )?;
    let (fortran, mut opts) = p.analyze_options(root, &tc)?;
    opts.threads = a.threads.to_vec();
    p.write_inputs()?;
    let v: ThreadValidation = validate_threads(
        machine,
        &fortran,
        &opts,
        p.preprocessing_flags(root),
        a.runs,
        augur_model::PredictOptions::default(),
    )
    .with_context(|| format!("{}: validation failed", p.name))?;
    if let Some(dir) = a.save {
        save_one(dir, &p.name, &v)?;
    }
    Ok(Outcome {
        name: p.name.clone(),
        rows: v.rows,
        warnings: v.warnings,
    })
}

fn saved_paths(dir: &Path, name: &str) -> (PathBuf, PathBuf) {
    (
        dir.join(format!("{name}.json")),
        dir.join(format!("{name}.times.json")),
    )
}

/// Keeps a program's profile and times for `--replay`.
fn save_one(dir: &Path, name: &str, v: &ThreadValidation) -> Result<()> {
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let (pp, tp) = saved_paths(dir, name);
    std::fs::write(&pp, serde_json::to_string(&v.profile)?)
        .with_context(|| format!("cannot write {}", pp.display()))?;
    let times = SavedTimes {
        build: v.build.clone(),
        times: v
            .rows
            .iter()
            .map(|r| (r.threads, r.measured.runs.clone()))
            .collect(),
    };
    std::fs::write(&tp, serde_json::to_string_pretty(&times)?)
        .with_context(|| format!("cannot write {}", tp.display()))?;
    Ok(())
}

/// Prices a kept profile against its kept times.
fn replay_one(dir: &Path, name: &str, machine: &LoadedMachine, threads: &[u32]) -> Result<Outcome> {
    let (pp, tp) = saved_paths(dir, name);
    let profile = ProgramProfile::read(&pp)?;
    let text = std::fs::read_to_string(&tp)
        .with_context(|| format!("cannot read {} (made by --save?)", tp.display()))?;
    let saved: SavedTimes = serde_json::from_str(&text)
        .with_context(|| format!("{}: not a timing file written by --save", tp.display()))?;
    let pred = predict_threads(&profile, &machine.profile, Default::default(), threads)
        .map_err(|e| anyhow::anyhow!("{name}: {e}"))?;
    let mut rows = vec![];
    for point in &pred.points {
        let Some((_, runs)) = saved.times.iter().find(|t| t.0 == point.threads) else {
            anyhow::bail!("{name}: no time kept at {} threads", point.threads);
        };
        let measured = Timing::from_runs(runs.clone());
        rows.push(ThreadRow {
            threads: point.threads,
            predicted: point.seconds,
            error: augur_validate::relative_error(point.seconds, measured.median),
            measured,
        });
    }
    Ok(Outcome {
        name: name.to_string(),
        rows,
        warnings: pred.warnings,
    })
}

/// The per-program table and the summary.
fn table(outcomes: &[Outcome], threads: &[u32]) -> String {
    let mut s = String::new();
    let f = |x: f64| format!("{x:.3}");
    let _ = write!(s, "{:<16}", "program");
    for t in threads {
        let _ = write!(
            s,
            " {:>8} {:>8} {:>7}",
            format!("pred{t}"),
            format!("meas{t}"),
            "err"
        );
    }
    let _ = writeln!(s, " {:>8} {:>8} {:>7}", "speedup", "measured", "err");
    let mut errors = vec![];
    let mut speedup_errors = vec![];
    for o in outcomes {
        let _ = write!(s, "{:<16}", o.name);
        for r in &o.rows {
            let _ = write!(
                s,
                " {:>8} {:>8} {:>+6.1}%",
                f(r.predicted),
                f(r.measured.median),
                100.0 * r.error
            );
            errors.push(r.error);
        }
        let one = o.rows.iter().find(|r| r.threads == 1);
        let last = o.rows.iter().rev().find(|r| r.threads > 1);
        if let (Some(one), Some(last)) = (one, last) {
            let ps = one.predicted / last.predicted;
            let ms = one.measured.median / last.measured.median;
            let e = ps / ms - 1.0;
            speedup_errors.push(e);
            let _ = write!(s, " {:>8.2} {:>8.2} {:>+6.1}%", ps, ms, 100.0 * e);
        }
        s.push('\n');
        for w in &o.warnings {
            let _ = writeln!(s, "    warning: {w}");
        }
    }
    let within = |v: &[f64], x: f64| {
        100.0 * v.iter().filter(|e| e.abs() <= x).count() as f64 / v.len().max(1) as f64
    };
    let rms = (errors.iter().map(|e| e * e).sum::<f64>() / errors.len().max(1) as f64).sqrt();
    let _ = writeln!(
        s,
        "\ntimes ({} predictions): {:.0}% within 10%, {:.0}% within 25%, RMS {:.1}%",
        errors.len(),
        within(&errors, 0.10),
        within(&errors, 0.25),
        100.0 * rms
    );
    let _ = writeln!(
        s,
        "speedups ({} programs): {:.0}% within 10% of the measured one",
        speedup_errors.len(),
        within(&speedup_errors, 0.10)
    );
    s
}
