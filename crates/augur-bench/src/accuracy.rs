//! `augur bench accuracy`: `validate` over the whole corpus on one machine profile,
//! then the summary in Saavedra's form (share within 5/10/15/20/30%, mean and RMS error).

use crate::corpus;
use crate::validation::{build_setup, validate_one};
use crate::Verdict;
use anyhow::{Context, Result};
use augur_model::memory::Overlap;
use augur_model::LoadedMachine;
use augur_model::PredictOptions;
use augur_program::AnalyzeOptions;
use augur_toolchain::Toolchain;
use augur_validate::{relative_error, summarize, ErrorSummary, THRESHOLDS};
use std::path::{Path, PathBuf};

/// The overlap rules compared by the benchmark.
const OVERLAPS: [Overlap; 5] = [
    Overlap::Max,
    Overlap::Sum,
    Overlap::Streams,
    Overlap::Ecm,
    Overlap::None,
];

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

fn saved_paths(dir: &Path, name: &str) -> (PathBuf, PathBuf) {
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
    recount: Option<(&[PathBuf], &AnalyzeOptions)>,
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

impl AccuracyArgs<'_> {
    /// The prediction options of the main table.
    fn options(&self) -> PredictOptions {
        PredictOptions {
            branches: self.branches,
            overlap: self.overlap,
            ..PredictOptions::default()
        }
    }
}

/// Runs the benchmark and prints its table; [`Verdict::Failed`] when some program failed.
pub fn run(a: &AccuracyArgs) -> Result<Verdict> {
    let (root, programs) = corpus::load(a.manifest, a.only)?;
    let machine = LoadedMachine::load(a.machine)?;
    let (fc, fflags) = build_setup(&machine, a.fc, a.fflags);
    check_save_with_replay(a)?;
    let tc = if a.replay.is_some() && !a.recount {
        None
    } else {
        let tc = Toolchain::detect(&fc, &fflags)?;
        tc.check_flags()?;
        Some(tc)
    };
    print_heading(a, &machine, tc.as_ref(), programs.len());
    println!(
        "{:<14} {:>11} {:>10} {:>10} {:>7} {:>8}  largest AbOp share of time",
        "program", "operations", "predicted", "measured", "spread", "error"
    );
    let mut tally = Tally::default();
    for p in &programs {
        // Sources and options to analyze the program with, unless only replaying.
        let analysis = match &tc {
            Some(tc) => Some(p.analyze_options(&root, tc)?),
            None => None,
        };
        let analysis = analysis.as_ref().map(|(f, o)| (f.as_slice(), o));
        match measure(a, &p.name, &machine, analysis) {
            Ok(v) => {
                print_row(&p.name, &v);
                tally.add(&p.name, v, &machine, a.options());
            }
            Err(e) => {
                println!("{:<14} failed: {e:#}", p.name);
                tally.failed.push(p.name.clone());
            }
        }
    }
    let s = summarize(&tally.errors);
    print_summaries(&tally, &s, a.overlap);
    if a.markdown {
        print_markdown(&tally.rows, &s);
    }
    Ok(if tally.failed.is_empty() {
        Verdict::Passed
    } else {
        Verdict::Failed
    })
}

/// `--save` with `--replay` needs `--recount` and another directory.
fn check_save_with_replay(a: &AccuracyArgs) -> Result<()> {
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
    Ok(())
}

/// The benchmark's first lines: what runs on which machine, how built or replayed.
fn print_heading(a: &AccuracyArgs, machine: &LoadedMachine, tc: Option<&Toolchain>, n: usize) {
    match (tc, a.replay) {
        (Some(tc), None) => {
            let diffs = augur_validate::setup_differences(&machine.profile.provenance, tc);
            println!(
                "augur accuracy benchmark: {} corpus programs on {} ({}), built with {} {}, median of {} run(s)",
                n,
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
            n,
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
}

/// One program's outcome: replayed from the kept runs (analyzed again first when
/// `analysis` gives its sources and options), or, without `--replay`, analyzed,
/// predicted and timed; kept for `--replay` with `--save`.
fn measure(
    a: &AccuracyArgs,
    name: &str,
    machine: &LoadedMachine,
    analysis: Option<(&[PathBuf], &AnalyzeOptions)>,
) -> Result<Outcome> {
    match (analysis, a.replay) {
        (None, Some(dir)) => replay_one(dir, name, machine, a.options(), None),
        (Some(analysis), Some(dir)) => {
            let o = replay_one(dir, name, machine, a.options(), Some(analysis))?;
            if let Some(to) = a.save {
                let tc = &analysis.1.toolchain;
                let build = format!("{} {}", tc.fc, tc.fflags.join(" "));
                save_one(to, name, &build, &o)?;
            }
            Ok(o)
        }
        (Some((fortran, opts)), None) => {
            let v = validate_one(machine, fortran, opts, vec![], a.runs, a.options())?;
            let o = Outcome {
                profile: v.profile,
                prediction: v.prediction,
                measured: v.measured,
                wall: v.measured_wall.runs.clone(),
                error: v.error,
            };
            if let Some(dir) = a.save {
                save_one(dir, name, &v.build, &o)?;
            }
            Ok(o)
        }
        (None, None) => unreachable!("a toolchain is detected unless replaying"),
    }
}

/// A program's line of the main table.
fn print_row(name: &str, v: &Outcome) {
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
        name,
        v.prediction.operations,
        v.prediction.total.seconds,
        v.measured.median,
        100.0 * v.measured.spread(),
        100.0 * v.error
    );
}

/// The errors gathered over the programs, for the summaries.
#[derive(Default)]
struct Tally {
    /// Errors of the main table (its overlap rule and branch pricing).
    errors: Vec<f64>,
    /// Errors with branch mispredictions priced the other way.
    by_branches: Vec<f64>,
    /// Errors under each rule of [`OVERLAPS`], in that order.
    by_overlap: [Vec<f64>; OVERLAPS.len()],
    /// Every program measured, with its outcome.
    rows: Vec<(String, Outcome)>,
    /// The programs that failed.
    failed: Vec<String>,
}

impl Tally {
    /// Adds a measured program: its error, and those of the same runs predicted with
    /// branch mispredictions left out and under every overlap rule.
    fn add(&mut self, name: &str, v: Outcome, machine: &LoadedMachine, options: PredictOptions) {
        self.errors.push(v.error);
        let without_branches = PredictOptions {
            branches: false,
            simulated_branches: false,
            ..options
        };
        let t = machine.predict(&v.profile, without_branches).total.seconds;
        self.by_branches.push(relative_error(t, v.measured.median));
        for (k, o) in OVERLAPS.iter().enumerate() {
            let with_overlap = PredictOptions {
                overlap: *o,
                ..options
            };
            let t = machine.predict(&v.profile, with_overlap).total.seconds;
            self.by_overlap[k].push(relative_error(t, v.measured.median));
        }
        self.rows.push((name.to_string(), v));
    }
}

/// The summary of the main table (`s`), then the same runs under each overlap rule and
/// with branch mispredictions priced the other way.
fn print_summaries(tally: &Tally, s: &ErrorSummary, overlap: Overlap) {
    println!(
        "\nsummary over {} programs ({} failed): {}",
        s.programs,
        tally.failed.len(),
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
    for (o, errs) in OVERLAPS.iter().zip(&tally.by_overlap) {
        println!("{}", overlap_summary(*o, errs));
    }
    println!(
        "{} with branch mispredictions left out",
        overlap_summary(overlap, &tally.by_branches)
    );
}

/// One line of the comparison of ways to combine operation and memory time: the
/// `errors` of the same runs under `overlap`, summarized.
fn overlap_summary(overlap: Overlap, errors: &[f64]) -> String {
    let s = summarize(errors);
    format!(
        "  overlap {:<5} within 10%: {:>3.0}%, within 20%: {:>3.0}%, within 30%: {:>3.0}%, mean {:+.1}%, RMS {:.1}%",
        format!("{overlap:?}").to_lowercase(),
        100.0 * s.within[1].1,
        100.0 * s.within[3].1,
        100.0 * s.within[4].1,
        100.0 * s.mean_error,
        100.0 * s.rms_error
    )
}

/// The per-program table and the summary `s` as Markdown (for docs/ACCURACY.md).
fn print_markdown(rows: &[(String, Outcome)], s: &ErrorSummary) {
    println!("\n| program | operations | predicted s | measured s | error |");
    println!("|---|---:|---:|---:|---:|");
    for (name, v) in rows {
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
