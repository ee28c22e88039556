//! `augur bench accuracy`: `validate` over the whole corpus on one machine profile,
//! then the summary in Saavedra's form (share within 5/10/15/20/30%, mean and RMS error).

use crate::corpus;
use crate::predict::LoadedMachine;
use crate::validate::{build_setup, validate_one};
use anyhow::Result;
use augur_model::memory::Overlap;
use augur_model::validate::{relative_error, summarize, THRESHOLDS};

/// The overlap rules compared by the benchmark.
const OVERLAPS: [Overlap; 3] = [Overlap::Max, Overlap::Sum, Overlap::None];
use augur_program::toolchain::Toolchain;
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
}

/// Runs the benchmark and prints its table.
pub fn run(a: &AccuracyArgs) -> Result<ExitCode> {
    let (root, programs) = corpus::load(a.manifest, a.only)?;
    let machine = LoadedMachine::load(a.machine)?;
    let (fc, fflags) = build_setup(&machine, a.fc, a.fflags);
    let tc = Toolchain::detect(&fc, &fflags)?;
    tc.check_flags()?;
    let diffs = augur_model::validate::setup_differences(&machine.profile.provenance, &tc);
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
    println!(
        "{:<14} {:>11} {:>10} {:>10} {:>7} {:>8}  largest AbOp share of time",
        "program", "operations", "predicted", "measured", "spread", "error"
    );
    let mut errors = vec![];
    let mut rows = vec![];
    let mut failed = vec![];
    let mut by_overlap: Vec<Vec<f64>> = vec![vec![]; OVERLAPS.len()];
    for p in &programs {
        let (fortran, opts) = p.analyze_options(&root, &tc)?;
        match validate_one(&machine, &fortran, &opts, vec![], a.runs, a.overlap) {
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
                    v.predicted.seconds,
                    v.measured.median,
                    100.0 * v.measured.spread(),
                    100.0 * v.error
                );
                errors.push(v.error);
                for (k, o) in OVERLAPS.iter().enumerate() {
                    let t = machine.predict_overlap(&v.profile, *o).total.seconds;
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
    if a.markdown {
        println!("\n| program | operations | predicted s | measured s | error |");
        println!("|---|---:|---:|---:|---:|");
        for (name, v) in &rows {
            println!(
                "| {name} | {:.3e} | {:.3} | {:.3} | {:+.1}% |",
                v.prediction.operations,
                v.predicted.seconds,
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
