//! `augur bench openmp` and `augur bench mpi`: a corpus of parallel programs
//! (`corpus/openmp/corpus.toml`, `corpus/mpi/corpus.toml`) validated at each thread or
//! rank count (counted per thread or traced per rank, predicted, timed on the wall
//! clock), per program the errors and the predicted against measured speedup, then the
//! pooled shares within 10%, 15% and 25%, the RMS error, and the share of speedups within
//! 10% (and, for MPI, of the communication-only programs within 10%). `--save` keeps each
//! program's profile and times; `--replay` prices them again without running anything.

use crate::corpus::CorpusProgram;
use crate::validation::Request;
use anyhow::{Context, Result};
use augur_model::openmp::predict_threads;
use augur_model::LoadedMachine;
use augur_program_profile::ProgramProfile;
use augur_validate::{relative_error, Timing};
use serde::{Deserialize, Serialize};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// What the counts of a parallel benchmark are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Parallelism {
    /// OpenMP threads (`OMP_NUM_THREADS`).
    Threads,
    /// MPI ranks (`mpirun -np`).
    Ranks,
}

impl Parallelism {
    fn noun(self) -> &'static str {
        match self {
            Parallelism::Threads => "threads",
            Parallelism::Ranks => "ranks",
        }
    }

    fn command(self) -> &'static str {
        match self {
            Parallelism::Threads => "openmp",
            Parallelism::Ranks => "mpi",
        }
    }
}

/// Options of a parallel benchmark.
pub struct ParallelArgs<'a> {
    /// The programs: a corpus, or a suite of real programs.
    pub programs: crate::accuracy::ProgramSet<'a>,
    /// Machine (path or library name): `[openmp]` or `[mpi]` section as needed.
    pub machine: &'a str,
    /// Threads or ranks.
    pub parallelism: Parallelism,
    /// The thread or rank counts.
    pub counts: &'a [u32],
    /// Timed runs per program and count.
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
    /// (threads or ranks, wall-clock times of the runs kept).
    times: Vec<(u32, Vec<f64>)>,
    /// A hybrid program's runs with several threads per rank: (ranks, threads, times).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    teams: Vec<(u32, u32, Vec<f64>)>,
}

/// One thread or rank count of one program: predicted against measured.
struct CountRow {
    count: u32,
    /// Threads per rank (a hybrid MPI program; 1 otherwise).
    threads: u32,
    predicted: f64,
    measured: Timing,
    error: f64,
}

/// One program's rows.
struct Outcome {
    name: String,
    communication_only: bool,
    rows: Vec<CountRow>,
    warnings: Vec<String>,
}

/// A program measured: its profile, the timed build, its rows and warnings, and what
/// its runs printed.
struct Measured {
    profile: ProgramProfile,
    build: String,
    rows: Vec<CountRow>,
    warnings: Vec<String>,
    outputs: Vec<(String, Vec<u8>)>,
}

impl Measured {
    fn new<R: Into<CountRow>>(
        (profile, build): (ProgramProfile, String),
        rows: Vec<R>,
        warnings: Vec<String>,
        outputs: Vec<(String, Vec<u8>)>,
    ) -> Measured {
        Measured {
            profile,
            build,
            rows: rows.into_iter().map(Into::into).collect(),
            warnings,
            outputs,
        }
    }
}

impl From<crate::threads::ThreadRow> for CountRow {
    fn from(r: crate::threads::ThreadRow) -> CountRow {
        CountRow {
            count: r.threads,
            threads: 1,
            predicted: r.predicted,
            measured: r.measured,
            error: r.error,
        }
    }
}

impl From<crate::ranks::RankRow> for CountRow {
    fn from(r: crate::ranks::RankRow) -> CountRow {
        CountRow {
            count: r.ranks,
            threads: r.threads,
            predicted: r.predicted,
            measured: r.measured,
            error: r.error,
        }
    }
}

/// Runs the benchmark and returns its report.
pub fn run(a: &ParallelArgs<'_>) -> Result<String> {
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
        "augur {} benchmark: {} program(s) on {} ({}), {} {:?}, host {}",
        if a.parallelism == Parallelism::Threads {
            "OpenMP"
        } else {
            "MPI"
        },
        programs.len(),
        machine.name,
        machine.profile.provenance.fflags,
        a.parallelism.noun(),
        a.counts,
        host.cpu_model
    );
    let mut outcomes = vec![];
    let mut failed = vec![];
    for p in &programs {
        eprintln!("augur bench {}: {}", a.parallelism.command(), p.name);
        let rows = match a.replay {
            Some(dir) => replay_one(dir, &p.name, &machine, a),
            None => measure_one(p, &machine, a),
        };
        match rows {
            Ok((rows, warnings)) => outcomes.extend(by_team(p, rows, warnings)),
            Err(e) => failed.push(format!("{}: {e:#}", p.name)),
        }
    }
    out.push_str(&table(&outcomes, a));
    for f in &failed {
        let _ = writeln!(out, "failed: {f}");
    }
    Ok(out)
}

/// One program's outcomes: one per thread count of its ranks (a hybrid program's rows
/// with T threads per rank are `NAME xT threads`), the warnings on the first.
fn by_team(p: &CorpusProgram, rows: Vec<CountRow>, warnings: Vec<String>) -> Vec<Outcome> {
    let mut teams: Vec<u32> = rows.iter().map(|r| r.threads).collect();
    teams.sort_unstable();
    teams.dedup();
    let mut rows = rows;
    let mut warnings = Some(warnings);
    teams
        .into_iter()
        .map(|t| {
            let (mine, rest): (Vec<_>, Vec<_>) = rows.drain(..).partition(|r| r.threads == t);
            rows = rest;
            Outcome {
                name: if t == 1 {
                    p.name.clone()
                } else {
                    format!("{} x{t} threads", p.name)
                },
                communication_only: p.communication_only,
                rows: mine,
                warnings: warnings.take().unwrap_or_default(),
            }
        })
        .collect()
}

/// Counts, predicts and times one program (and keeps it with `--save`).
fn measure_one(
    p: &CorpusProgram,
    machine: &LoadedMachine,
    a: &ParallelArgs<'_>,
) -> Result<(Vec<CountRow>, Vec<String>)> {
    let tc = augur_toolchain::Toolchain::detect(
        &machine.profile.provenance.compiler,
        &machine.profile.provenance.fflags,
    )?;
    let (fortran, mut opts) = p.analyze_options(&p.root, &tc)?;
    let flags = p.preprocessing_flags(&p.root);
    p.write_inputs()?;
    let options = augur_model::PredictOptions::default();
    let failed = || format!("{}: validation failed", p.name);
    let expect_in = (!p.expect_in.is_empty()).then(|| opts.cwd.join(&p.expect_in));
    if let Some(f) = &expect_in {
        // An old copy must not pass for this run's.
        let _ = std::fs::remove_file(f);
    }
    match a.parallelism {
        Parallelism::Threads => opts.threads = a.counts.to_vec(),
        Parallelism::Ranks => {
            opts.mpi_ranks = a.counts.to_vec();
            opts.threads = p.threads.clone();
        }
    }
    let req = Request {
        machine,
        fortran: &fortran,
        opts: &opts,
        extra_fflags: flags,
        runs: a.runs,
        options,
        sample: false,
    };
    let mut m = match a.parallelism {
        Parallelism::Threads => {
            let v = crate::threads::validate_threads(req).with_context(failed)?;
            Measured::new((v.profile, v.build), v.rows, v.warnings, v.outputs)
        }
        Parallelism::Ranks => {
            let v = crate::ranks::validate_ranks(req).with_context(failed)?;
            Measured::new((v.profile, v.build), v.rows, v.warnings, v.outputs)
        }
    };
    if !p.expect.is_empty() {
        // The manifest says what a correct run prints: checked instead of comparing runs.
        crate::accuracy::check_expect(Some(&p.expect), expect_in.as_deref(), &m.outputs)
            .with_context(|| p.name.clone())?;
        m.warnings
            .retain(|w| !w.contains(crate::validation::OUTPUT_DIFFERS));
    }
    if let Some(dir) = a.save {
        save_one(dir, &p.name, &m)?;
    }
    Ok((m.rows, m.warnings))
}

fn saved_paths(dir: &Path, name: &str) -> (PathBuf, PathBuf) {
    (
        dir.join(format!("{name}.json")),
        dir.join(format!("{name}.times.json")),
    )
}

/// Keeps a program's profile and times for `--replay`.
fn save_one(dir: &Path, name: &str, m: &Measured) -> Result<()> {
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let (pp, tp) = saved_paths(dir, name);
    crate::accuracy::write_through_rename(&pp, &serde_json::to_string(&m.profile)?)?;
    let times = SavedTimes {
        build: m.build.clone(),
        times: m
            .rows
            .iter()
            .filter(|r| r.threads == 1)
            .map(|r| (r.count, r.measured.runs.clone()))
            .collect(),
        teams: m
            .rows
            .iter()
            .filter(|r| r.threads > 1)
            .map(|r| (r.count, r.threads, r.measured.runs.clone()))
            .collect(),
    };
    crate::accuracy::write_through_rename(&tp, &serde_json::to_string_pretty(&times)?)
}

/// Prices a kept profile against its kept times.
fn replay_one(
    dir: &Path,
    name: &str,
    machine: &LoadedMachine,
    a: &ParallelArgs<'_>,
) -> Result<(Vec<CountRow>, Vec<String>)> {
    let (pp, tp) = saved_paths(dir, name);
    let profile = ProgramProfile::read(&pp)?;
    let text = std::fs::read_to_string(&tp)
        .with_context(|| format!("cannot read {} (made by --save?)", tp.display()))?;
    let saved: SavedTimes = serde_json::from_str(&text)
        .with_context(|| format!("{}: not a timing file written by --save", tp.display()))?;
    let teams: Vec<(u32, u32)> = saved.teams.iter().map(|t| (t.0, t.1)).collect();
    let (predicted, warnings) = predict(&profile, machine, a, &teams)?;
    let mut rows = vec![];
    for ((count, threads), seconds) in predicted {
        let runs = if threads == 1 {
            saved.times.iter().find(|t| t.0 == count).map(|t| &t.1)
        } else {
            saved
                .teams
                .iter()
                .find(|t| (t.0, t.1) == (count, threads))
                .map(|t| &t.2)
        };
        let Some(runs) = runs else {
            anyhow::bail!("{name}: no time kept at {count} {}", a.parallelism.noun());
        };
        let measured = Timing::from_runs(runs.clone());
        rows.push(CountRow {
            count,
            threads,
            predicted: seconds,
            error: relative_error(seconds, measured.median),
            measured,
        });
    }
    Ok((rows, warnings))
}

/// A count with its threads per rank, and the seconds predicted there.
type Predicted = ((u32, u32), f64);

/// The predicted seconds at each count of a kept profile (and at each of `teams`, ranks
/// with several threads each), and the warnings.
fn predict(
    profile: &ProgramProfile,
    machine: &LoadedMachine,
    a: &ParallelArgs<'_>,
    teams: &[(u32, u32)],
) -> Result<(Vec<Predicted>, Vec<String>)> {
    let options = augur_model::PredictOptions::default();
    match a.parallelism {
        Parallelism::Threads => {
            let pred = predict_threads(profile, &machine.profile, options, a.counts)
                .map_err(anyhow::Error::msg)?;
            let points = pred
                .points
                .iter()
                .map(|p| ((p.threads, 1), p.seconds))
                .collect();
            Ok((points, pred.warnings))
        }
        Parallelism::Ranks => {
            let points = a
                .counts
                .iter()
                .map(|&p| (p, 1))
                .chain(teams.iter().copied())
                .map(|(p, threads)| {
                    let how = augur_simgrid::RanksOptions {
                        threads,
                        ..Default::default()
                    };
                    augur_simgrid::predict_ranks(profile, &machine.profile, options, p, &how)
                        .map(|r| ((p, threads), r.seconds))
                })
                .collect::<Result<_, _>>()?;
            Ok((points, vec![]))
        }
    }
}

/// The share of `errors` within `x` (percent).
fn within(errors: &[f64], x: f64) -> f64 {
    100.0 * errors.iter().filter(|e| e.abs() <= x).count() as f64 / errors.len().max(1) as f64
}

/// The per-program table and the summary.
fn table(outcomes: &[Outcome], a: &ParallelArgs<'_>) -> String {
    let mut s = String::new();
    let _ = write!(s, "{:<24}", "program");
    for c in a.counts {
        let (p, m) = (format!("pred{c}"), format!("meas{c}"));
        let _ = write!(s, " {p:>8} {m:>8} {:>7}", "err");
    }
    let _ = writeln!(s, " {:>8} {:>8} {:>7}", "speedup", "measured", "err");
    let mut errors = vec![];
    let mut speedup_errors = vec![];
    let mut micro_errors = vec![];
    for o in outcomes {
        let _ = write!(s, "{:<24}", o.name);
        for c in a.counts {
            let Some(r) = o.rows.iter().find(|r| r.count == *c) else {
                // Not timed (a hybrid program's ranks x threads beyond the cores).
                let _ = write!(s, " {:>8} {:>8} {:>7}", "-", "-", "-");
                continue;
            };
            let (p, m) = (
                format!("{:.3}", r.predicted),
                format!("{:.3}", r.measured.median),
            );
            let _ = write!(s, " {p:>8} {m:>8} {:>+6.1}%", 100.0 * r.error);
            errors.push(r.error);
            if o.communication_only {
                micro_errors.push(r.error);
            }
        }
        if let Some((ps, ms)) = speedup(&o.rows) {
            let e = ps / ms - 1.0;
            speedup_errors.push(e);
            let _ = write!(s, " {:>8.2} {:>8.2} {:>+6.1}%", ps, ms, 100.0 * e);
        }
        s.push('\n');
        for w in &o.warnings {
            let _ = writeln!(s, "    warning: {w}");
        }
    }
    let rms = (errors.iter().map(|e| e * e).sum::<f64>() / errors.len().max(1) as f64).sqrt();
    let _ = writeln!(
        s,
        "\ntimes ({} predictions): {:.0}% within 10%, {:.0}% within 15%, {:.0}% within 25%, RMS {:.1}%",
        errors.len(),
        within(&errors, 0.10),
        within(&errors, 0.15),
        within(&errors, 0.25),
        100.0 * rms
    );
    let _ = writeln!(
        s,
        "speedups ({} programs): {:.0}% within 10% of the measured one",
        speedup_errors.len(),
        within(&speedup_errors, 0.10)
    );
    if !micro_errors.is_empty() {
        let _ = writeln!(
            s,
            "communication-only programs ({} predictions): {:.0}% within 10%",
            micro_errors.len(),
            within(&micro_errors, 0.10)
        );
    }
    s
}

/// Predicted and measured speedup from the count 1 row to the last row above 1.
fn speedup(rows: &[CountRow]) -> Option<(f64, f64)> {
    let one = rows.iter().find(|r| r.count == 1)?;
    let last = rows.iter().rev().find(|r| r.count > 1)?;
    Some((
        one.predicted / last.predicted,
        one.measured.median / last.measured.median,
    ))
}
