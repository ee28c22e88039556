//! `augur bench accuracy`: `validate` over the whole corpus on one machine profile,
//! then the summary in Saavedra's form (share within 5/10/15/20/30%, mean and RMS error).

use crate::corpus;
use crate::predict::LoadedMachine;
use crate::validate::{build_setup, validate_one};
use anyhow::{Context, Result};
use augur_model::memory::Overlap;
use augur_model::PredictOptions;
use augur_validate::{relative_error, summarize, THRESHOLDS};

/// The overlap rules compared by the benchmark.
const OVERLAPS: [Overlap; 5] = [
    Overlap::Max,
    Overlap::Sum,
    Overlap::Streams,
    Overlap::Ecm,
    Overlap::None,
];
use augur_toolchain::Toolchain;
use std::path::Path;
use std::process::ExitCode;

/// Options of the accuracy benchmark.
pub struct AccuracyArgs<'a> {
    /// The corpus manifest.
    pub manifest: &'a Path,
    /// Machine (path or library name).
    pub machine: &'a str,
    /// Compiler override (default: the machine profile's).
    pub fc: Option<&'a str>,
    /// Flags override (default: the machine profile's).
    pub fflags: Option<&'a str>,
    /// Timed runs per program.
    pub runs: usize,
    /// Only these programs.
    pub only: &'a [String],
    /// Print the table as Markdown too.
    pub markdown: bool,
    /// The overlap rule of the main table.
    pub overlap: Overlap,
    /// Price estimated branch mispredictions in the main table.
    pub branches: bool,
    /// Keep each program's profile and measured times in this directory.
    pub save: Option<&'a Path>,
    /// Re-price the profiles and times kept by an earlier `save` instead of analyzing
    /// and running the programs (for comparing machine profiles or model changes on the
    /// same measurements).
    pub replay: Option<&'a Path>,
    /// With `replay`: analyze the programs again (counting rules or analyzer changed) and
    /// keep only the measured times.
    pub recount: bool,
}

/// One program's outcome: its profile, prediction and measured times.
struct Outcome {
    profile: augur_program_profile::ProgramProfile,
    prediction: augur_model::Prediction,
    measured: augur_validate::Timing,
    wall: Vec<f64>,
    error: f64,
}

/// What `--save` keeps of one program, besides its profile.
#[derive(serde::Serialize, serde::Deserialize)]
struct SavedTiming {
    program: String,
    build: String,
    /// CPU times of the runs, seconds.
    runs: Vec<f64>,
    /// Their wall-clock times.
    #[serde(default)]
    wall: Vec<f64>,
}

fn saved_paths(dir: &Path, name: &str) -> (std::path::PathBuf, std::path::PathBuf) {
    (
        dir.join(format!("{name}.profile.json")),
        dir.join(format!("{name}.timing.json")),
    )
}

/// Reads a program's kept profile and times and predicts it again.
fn replay_one(
    dir: &Path,
    name: &str,
    machine: &LoadedMachine,
    options: PredictOptions,
    recount: Option<(&[std::path::PathBuf], &augur_program::AnalyzeOptions)>,
) -> Result<Outcome> {
    let (pp, tp) = saved_paths(dir, name);
    let profile = match recount {
        None => augur_program_profile::ProgramProfile::read(&pp)?,
        Some((fortran, opts)) => augur_program::analyze(fortran, opts)?.profile,
    };
    let text = std::fs::read_to_string(&tp)
        .with_context(|| format!("cannot read {} (made by --save?)", tp.display()))?;
    let t: SavedTiming = serde_json::from_str(&text)
        .with_context(|| format!("{}: not a timing file written by --save", tp.display()))?;
    anyhow::ensure!(!t.runs.is_empty(), "{}: no runs", tp.display());
    let wall = t.wall;
    let measured = augur_validate::Timing::from_runs(t.runs);
    let prediction = machine.predict(&profile, options);
    let error = relative_error(prediction.total.seconds, measured.median);
    Ok(Outcome {
        profile,
        prediction,
        measured,
        wall,
        error,
    })
}

/// Writes a program's profile and times for a later `--replay` (atomically).
fn save_one(dir: &Path, name: &str, build: &str, o: &Outcome) -> Result<()> {
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let (pp, tp) = saved_paths(dir, name);
    let t = SavedTiming {
        program: name.to_string(),
        build: build.to_string(),
        runs: o.measured.runs.clone(),
        wall: o.wall.clone(),
    };
    for (path, text) in [
        (pp, serde_json::to_string_pretty(&o.profile)?),
        (tp, serde_json::to_string_pretty(&t)?),
    ] {
        let tmp = path.with_extension("json.tmp");
        std::fs::write(&tmp, text).with_context(|| format!("cannot write {}", tmp.display()))?;
        std::fs::rename(&tmp, &path).with_context(|| format!("cannot write {}", path.display()))?;
    }
    Ok(())
}

/// Runs the benchmark and prints its table.
pub fn run(a: &AccuracyArgs) -> Result<ExitCode> {
    let (root, programs) = corpus::load(a.manifest, a.only)?;
    let machine = LoadedMachine::load(a.machine)?;
    let options = PredictOptions {
        branches: a.branches,
        overlap: a.overlap,
        ..PredictOptions::default()
    };
    // The same options with branch mispredictions priced the other way, for the summary.
    let flipped = PredictOptions {
        branches: false,
        simulated_branches: false,
        ..options
    };
    let mut by_branches: Vec<f64> = vec![];
    let (fc, fflags) = build_setup(&machine, a.fc, a.fflags);
    if let (Some(from), Some(to)) = (a.replay, a.save) {
        anyhow::ensure!(
            a.recount,
            "--save with --replay keeps the profiles of --recount; add --recount"
        );
        anyhow::ensure!(
            from != to,
            "--save {} would overwrite the kept runs being replayed; give another directory",
            to.display()
        );
    }
    let tc = if a.replay.is_some() && !a.recount {
        None
    } else {
        let tc = Toolchain::detect(&fc, &fflags)?;
        tc.check_flags()?;
        Some(tc)
    };
    match (&tc, a.replay) {
        (Some(tc), None) => {
            let diffs =
                augur_validate::setup_differences(&machine.profile.provenance, tc);
            println!(
                "augur accuracy benchmark: {} corpus programs on {} ({}), built with {} {}, median of {} run(s)",
                programs.len(),
                machine.name,
                machine.profile.provenance.cpu_model,
                tc.fc,
                tc.fflags.join(" "),
                a.runs
            );
            for d in &diffs {
                println!("warning: {d}");
            }
        }
        (_, Some(dir)) => println!(
            "augur accuracy benchmark: {} corpus programs on {} ({}), replayed from the {} times kept in {}",
            programs.len(),
            machine.name,
            machine.profile.provenance.cpu_model,
            if a.recount {
                "programs analyzed again and the"
            } else {
                "profiles and"
            },
            dir.display()
        ),
        (None, None) => {}
    }
    println!(
        "{:<14} {:>11} {:>10} {:>10} {:>7} {:>8}  largest AbOp share of time",
        "program", "operations", "predicted", "measured", "spread", "error"
    );
    let mut errors = vec![];
    let mut rows = vec![];
    let mut failed = vec![];
    let mut by_overlap: Vec<Vec<f64>> = vec![vec![]; OVERLAPS.len()];
    for p in &programs {
        let outcome = match (&tc, a.replay) {
            (None, Some(dir)) => replay_one(dir, &p.name, &machine, options, None),
            (Some(tc), Some(dir)) => {
                let (fortran, opts) = p.analyze_options(&root, tc)?;
                replay_one(dir, &p.name, &machine, options, Some((&fortran, &opts))).and_then(|o| {
                    if let Some(to) = a.save {
                        let build = format!("{} {}", tc.fc, tc.fflags.join(" "));
                        save_one(to, &p.name, &build, &o)?;
                    }
                    Ok(o)
                })
            }
            (Some(tc), None) => {
                let (fortran, opts) = p.analyze_options(&root, tc)?;
                validate_one(&machine, &fortran, &opts, vec![], a.runs, options).and_then(|v| {
                    let o = Outcome {
                        profile: v.profile,
                        prediction: v.prediction,
                        measured: v.measured,
                        wall: v.measured_wall.runs.clone(),
                        error: v.error,
                    };
                    if let Some(dir) = a.save {
                        save_one(dir, &p.name, &v.build, &o)?;
                    }
                    Ok(o)
                })
            }
            (None, None) => unreachable!("a toolchain is detected unless replaying"),
        };
        match outcome {
            Ok(v) => {
                let top = v
                    .prediction
                    .abops
                    .first()
                    .map(|r| format!("{} {:.0}%", r.abop.mnemonic(), 100.0 * r.time_share))
                    .unwrap_or_default();
                let uncosted: f64 = v
                    .prediction
                    .uncosted
                    .iter()
                    .map(|u| u.operation_share)
                    .sum();
                let note = if uncosted > 0.001 {
                    format!("; {:.1}% of ops uncosted", 100.0 * uncosted)
                } else {
                    String::new()
                };
                println!(
                    "{:<14} {:>11.3e} {:>9.3}s {:>9.3}s {:>6.1}% {:>+7.1}%  {top}{note}",
                    p.name,
                    v.prediction.operations,
                    v.prediction.total.seconds,
                    v.measured.median,
                    100.0 * v.measured.spread(),
                    100.0 * v.error
                );
                errors.push(v.error);
                let t = machine.predict(&v.profile, flipped).total.seconds;
                by_branches.push(relative_error(t, v.measured.median));
                for (k, o) in OVERLAPS.iter().enumerate() {
                    let with_overlap = PredictOptions {
                        overlap: *o,
                        ..options
                    };
                    let t = machine.predict(&v.profile, with_overlap).total.seconds;
                    by_overlap[k].push(relative_error(t, v.measured.median));
                }
                rows.push((p.name.clone(), v));
            }
            Err(e) => {
                println!("{:<14} failed: {e:#}", p.name);
                failed.push(p.name.clone());
            }
        }
    }
    let s = summarize(&errors);
    println!(
        "\nsummary over {} programs ({} failed): {}",
        s.programs,
        failed.len(),
        s.within
            .iter()
            .map(|(t, share)| format!("within {:.0}%: {:.0}%", 100.0 * t, 100.0 * share))
            .collect::<Vec<_>>()
            .join(", ")
    );
    println!(
        "mean error {:+.1}%, mean |error| {:.1}%, RMS error {:.1}%, max |error| {:.1}%",
        100.0 * s.mean_error,
        100.0 * s.mean_abs_error,
        100.0 * s.rms_error,
        100.0 * s.max_abs_error
    );
    println!("the same runs under each way of combining operation and memory time:");
    for (o, errs) in OVERLAPS.iter().zip(&by_overlap) {
        let s = summarize(errs);
        println!(
            "  overlap {:<5} within 10%: {:>3.0}%, within 20%: {:>3.0}%, within 30%: {:>3.0}%, mean {:+.1}%, RMS {:.1}%",
            format!("{o:?}").to_lowercase(),
            100.0 * s.within[1].1,
            100.0 * s.within[3].1,
            100.0 * s.within[4].1,
            100.0 * s.mean_error,
            100.0 * s.rms_error
        );
    }
    let b = summarize(&by_branches);
    println!(
        "  overlap {:<5} within 10%: {:>3.0}%, within 20%: {:>3.0}%, within 30%: {:>3.0}%, mean {:+.1}%, RMS {:.1}% with branch mispredictions left out",
        format!("{:?}", a.overlap).to_lowercase(),
        100.0 * b.within[1].1,
        100.0 * b.within[3].1,
        100.0 * b.within[4].1,
        100.0 * b.mean_error,
        100.0 * b.rms_error,
    );
    if a.markdown {
        println!("\n| program | operations | predicted s | measured s | error |");
        println!("|---|---:|---:|---:|---:|");
        for (name, v) in &rows {
            println!(
                "| {name} | {:.3e} | {:.3} | {:.3} | {:+.1}% |",
                v.prediction.operations,
                v.prediction.total.seconds,
                v.measured.median,
                100.0 * v.error
            );
        }
        let heads: Vec<String> = THRESHOLDS
            .iter()
            .map(|t| format!("≤{:.0}%", 100.0 * t))
            .collect();
        println!("\n| programs | {} | mean | RMS |", heads.join(" | "));
        println!("|---:|{}---:|---:|", "---:|".repeat(THRESHOLDS.len()));
        println!(
            "| {} | {} | {:+.1}% | {:.1}% |",
            s.programs,
            s.within
                .iter()
                .map(|(_, w)| format!("{:.0}%", 100.0 * w))
                .collect::<Vec<_>>()
                .join(" | "),
            100.0 * s.mean_error,
            100.0 * s.rms_error
        );
    }
    Ok(if failed.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}
