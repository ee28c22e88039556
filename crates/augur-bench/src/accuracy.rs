//! `augur bench accuracy`: `validate` over the whole corpus on one machine profile,
//! then the summary in Saavedra's form (share within 5/10/15/20/30%, mean and RMS error).

use crate::corpus::{self, CorpusProgram};
use crate::suite::{self, PartChoice};
use crate::validation::{build_setup, validate_one, Request};
use crate::Verdict;
use anyhow::{Context, Result};
use augur_model::memory::Overlap;
use augur_model::LoadedMachine;
use augur_model::PredictOptions;
use augur_program::AnalyzeOptions;
use augur_toolchain::Toolchain;
use augur_validate::kept::KeptTiming;
use augur_validate::sampled::LineSamples;
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

/// Which programs the benchmark takes.
pub enum ProgramSet<'a> {
    /// The programs of a corpus manifest (`corpus/corpus.toml`).
    Corpus(&'a Path),
    /// A suite of real programs: its manifests' directory, where their sources are, and
    /// which part.
    Suite {
        /// The directory of the manifests (`bench/real`).
        manifests: &'a Path,
        /// The directory holding each program's sources in `NAME/`.
        sources: &'a Path,
        /// The part taken.
        part: PartChoice,
    },
}

/// Options of the accuracy benchmark.
pub struct AccuracyArgs<'a> {
    /// The programs.
    pub programs: ProgramSet<'a>,
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
    /// Measure where each program's time went by sampling ([`crate::loop_errors`]).
    pub by_loop: bool,
}

/// One program's outcome: its profile, prediction and measured times.
struct Outcome {
    profile: augur_program_profile::ProgramProfile,
    prediction: augur_model::Prediction,
    measured: augur_validate::Timing,
    wall: Vec<f64>,
    error: f64,
    /// Where the time went, sampled ([`AccuracyArgs::by_loop`]).
    lines: Option<LineSamples>,
    /// The program analyzed again (`--recount`), to build it for sampling.
    program: Option<augur_ir::Program>,
}

fn saved_paths(dir: &Path, name: &str) -> (PathBuf, PathBuf) {
    (
        dir.join(format!("{name}.profile.json")),
        KeptTiming::path(dir, name),
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
    let (profile, program) = match recount {
        None => (augur_program_profile::ProgramProfile::read(&pp)?, None),
        Some((fortran, opts)) => {
            let a = augur_program::analyze(fortran, opts)?;
            (a.profile, Some(a.program))
        }
    };
    let kept_lines = LineSamples::kept_path(dir, name);
    let lines = if kept_lines.exists() {
        Some(LineSamples::read(&kept_lines).map_err(anyhow::Error::msg)?)
    } else {
        None
    };
    let t = KeptTiming::read(&tp)?;
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
        lines,
        program,
    })
}

/// Writes a program's profile and times for a later `--replay` (atomically).
fn save_one(dir: &Path, name: &str, build: &str, o: &Outcome) -> Result<()> {
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let (pp, tp) = saved_paths(dir, name);
    let t = KeptTiming {
        program: name.to_string(),
        build: build.to_string(),
        runs: o.measured.runs.clone(),
        wall: o.wall.clone(),
    };
    for (path, text) in [
        (pp, serde_json::to_string_pretty(&o.profile)?),
        (tp, serde_json::to_string_pretty(&t)?),
    ] {
        write_through_rename(&path, &text)?;
    }
    if let Some(lines) = &o.lines {
        write_through_rename(&LineSamples::kept_path(dir, name), &lines.to_json())?;
    }
    Ok(())
}

/// Writes `text` to `path` through a temporary file beside it and a rename, so an
/// interrupted run never leaves a partial file.
pub(crate) fn write_through_rename(path: &Path, text: &str) -> Result<()> {
    let tmp = path.with_extension("json.tmp");
    std::fs::write(&tmp, text).with_context(|| format!("cannot write {}", tmp.display()))?;
    std::fs::rename(&tmp, path).with_context(|| format!("cannot write {}", path.display()))
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

/// The programs to measure, and the names of those only replayed (sources missing but
/// kept runs present); prints the missing ones.
fn programs(a: &AccuracyArgs) -> Result<(Vec<CorpusProgram>, Vec<String>)> {
    match a.programs {
        ProgramSet::Corpus(manifest) => Ok((corpus::load(manifest, a.only)?.1, vec![])),
        ProgramSet::Suite {
            manifests,
            sources,
            part,
        } => {
            let s = suite::load(manifests, sources, part, a.only)?;
            let replay_only = a.replay.is_some() && !a.recount;
            if !replay_only {
                for m in &s.missing {
                    println!("missing: {m}");
                }
            }
            let names = if replay_only {
                s.missing.into_iter().map(|m| m.name).collect()
            } else {
                vec![]
            };
            Ok((s.programs, names))
        }
    }
}

/// Runs the benchmark and prints its table; [`Verdict::Failed`] when some program failed.
pub fn run(a: &AccuracyArgs) -> Result<Verdict> {
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
    let (programs, replayed) = programs(a)?;
    print_heading(a, &machine, tc.as_ref(), programs.len() + replayed.len());
    println!(
        "{:<14} {:>11} {:>10} {:>10} {:>7} {:>8}  largest AbOp share of time",
        "program", "operations", "predicted", "measured", "spread", "error"
    );
    let mut tally = Tally::default();
    let names = programs.iter().map(|p| (p.name.clone(), Some(p)));
    for (name, p) in names.chain(replayed.into_iter().map(|n| (n, None))) {
        match measure_program(a, &name, p, &machine, tc.as_ref()) {
            Ok(v) => {
                print_row(&name, &v);
                tally.add(&name, v, &machine, a.options());
            }
            Err(e) => {
                println!("{name:<14} failed: {}", crate::error_text(&e));
                tally.failed.push(name);
            }
        }
    }
    let s = summarize(&tally.errors);
    print_summaries(&tally, &s, a.overlap);
    if a.markdown {
        print_markdown(&tally.rows, &s);
    }
    if a.by_loop {
        crate::loop_errors::print(
            &tally
                .rows
                .iter()
                .map(|(n, o)| crate::loop_errors::Sampled {
                    program: n,
                    prediction: &o.prediction,
                    measured_seconds: o.measured.median,
                    lines: o.lines.as_ref(),
                })
                .collect::<Vec<_>>(),
        );
    }
    Ok(if tally.failed.is_empty() {
        Verdict::Passed
    } else {
        Verdict::Failed
    })
}

/// One program measured: its inputs written, then [`measure`] with its sources and
/// options when a toolchain builds it.
fn measure_program(
    a: &AccuracyArgs,
    name: &str,
    p: Option<&CorpusProgram>,
    machine: &LoadedMachine,
    tc: Option<&Toolchain>,
) -> Result<Outcome> {
    let (Some(p), Some(tc)) = (p, tc) else {
        return measure(a, name, machine, None);
    };
    p.write_inputs()?;
    let (fortran, opts) = p.analyze_options(&p.root, tc)?;
    let expect = (!p.expect.is_empty()).then_some(p.expect.as_str());
    let expect_in = (!p.expect_in.is_empty()).then(|| opts.cwd.join(&p.expect_in));
    if let Some(f) = &expect_in {
        // An old copy must not pass for this run's.
        let _ = std::fs::remove_file(f);
    }
    let timed = Timed {
        extra_fflags: p.preprocessing_flags(&p.root),
        expect,
        expect_in,
    };
    measure_built(a, name, machine, (&fortran, &opts), timed)
}

/// Whether the program printed `expect` (into `expect_in` when given, else on the standard
/// output of every run in `outputs`, each named).
pub(crate) fn check_expect(
    expect: Option<&str>,
    expect_in: Option<&Path>,
    outputs: &[(String, Vec<u8>)],
) -> Result<()> {
    let Some(expect) = expect else {
        return Ok(());
    };
    if let Some(file) = expect_in {
        let text = std::fs::read(file).unwrap_or_default();
        anyhow::ensure!(
            String::from_utf8_lossy(&text).contains(expect),
            "{} does not hold {expect:?} after the runs, which the manifest says the program writes there on success; check its arguments, input and data files",
            file.display()
        );
        return Ok(());
    }
    for (run, out) in outputs {
        let found = String::from_utf8_lossy(out).contains(expect);
        if let Some(left_out) = augur_toolchain::output_left_out(out).filter(|_| !found) {
            // The text may be in the middle augur did not keep: the run's exit status
            // and the other runs still check it.
            eprintln!(
                "augur: the {run} run printed more than augur keeps ({left_out} bytes of its middle left out); {expect:?} is not in the part kept, so it was not checked"
            );
            continue;
        }
        anyhow::ensure!(
            found,
            "the {run} run did not print {expect:?}, which the manifest says it prints on success; check its arguments, input and data files"
        );
    }
    Ok(())
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
                "augur accuracy benchmark: {} programs on {} ({}), built with {} {}, median of {} run(s)",
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
            "augur accuracy benchmark: {} programs on {} ({}), replayed from the {} times kept in {}",
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

/// How a program's timed build differs from the counting build, and what it must print.
struct Timed<'a> {
    /// Preprocessing flags of the normal build.
    extra_fflags: Vec<String>,
    /// Text the program prints when it ran correctly.
    expect: Option<&'a str>,
    /// The file it prints that text into, when not its standard output.
    expect_in: Option<PathBuf>,
}

/// A program's outcome replayed from the kept runs, without its sources.
fn measure(
    a: &AccuracyArgs,
    name: &str,
    machine: &LoadedMachine,
    analysis: Option<(&[PathBuf], &AnalyzeOptions)>,
) -> Result<Outcome> {
    let dir = a
        .replay
        .context("the program's sources are needed unless replaying (--replay DIR)")?;
    replay_one(dir, name, machine, a.options(), analysis)
}

/// A program's outcome from its sources: replayed from the kept runs after analyzing it
/// again (`--replay --recount`), or analyzed, predicted and timed; kept for `--replay`
/// with `--save`.
fn measure_built(
    a: &AccuracyArgs,
    name: &str,
    machine: &LoadedMachine,
    (fortran, opts): (&[PathBuf], &AnalyzeOptions),
    timed: Timed,
) -> Result<Outcome> {
    if a.replay.is_some() {
        let mut o = measure(a, name, machine, Some((fortran, opts)))?;
        let program = o.program.take();
        if let (true, None, Some(program)) = (a.by_loop, &o.lines, program) {
            o.lines = sample_now(name, &program, (fortran, opts), timed.extra_fflags);
        }
        if let Some(to) = a.save {
            let tc = &opts.toolchain;
            let build = format!("{} {}", tc.fc, tc.fflags.join(" "));
            save_one(to, name, &build, &o)?;
        }
        return Ok(o);
    }
    let v = validate_one(Request {
        machine,
        fortran,
        opts,
        extra_fflags: timed.extra_fflags,
        runs: a.runs,
        options: a.options(),
        sample: a.by_loop,
    })?;
    let outputs = [
        (
            "instrumented (counting)".to_string(),
            v.counted_stdout.clone(),
        ),
        ("timed".to_string(), v.stdout.clone()),
    ];
    check_expect(timed.expect, timed.expect_in.as_deref(), &outputs)?;
    let o = Outcome {
        profile: v.profile,
        prediction: v.prediction,
        measured: v.measured,
        wall: v.measured_wall.runs.clone(),
        error: v.error,
        lines: v.measured_parts.map(|p| p.lines),
        program: None,
    };
    if let Some(dir) = a.save {
        save_one(dir, name, &v.build, &o)?;
    }
    Ok(o)
}

/// A replayed program's samples taken now (`--replay --recount --by-loop` without kept
/// samples), `program` the recount's; `None`, said why, when they cannot be.
fn sample_now(
    name: &str,
    program: &augur_ir::Program,
    (fortran, opts): (&[PathBuf], &AnalyzeOptions),
    extra_fflags: Vec<String>,
) -> Option<LineSamples> {
    let input = crate::validation::plain_build_input(program, fortran, opts, extra_fflags);
    let spec = crate::validation::timed_run(opts, vec![]);
    crate::validation::sample_build(&opts.toolchain, &input, &spec)
        .map_err(|e| println!("{name:<14} not sampled: {}", crate::error_text(&e)))
        .ok()
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
    let inside = tally
        .rows
        .iter()
        .filter(|(_, v)| v.prediction.interval.contains(v.measured.median))
        .count();
    let log_errors: Vec<f64> = tally
        .rows
        .iter()
        .map(|(_, v)| (v.prediction.total.seconds / v.measured.median).ln())
        .filter(|e| e.is_finite())
        .collect();
    let log_rms =
        (log_errors.iter().map(|e| e * e).sum::<f64>() / log_errors.len().max(1) as f64).sqrt();
    // Each program's interval takes the model error of how it was priced (its compiled
    // loops or its AbOps) and of its kind of code: the median factor either way, and the
    // range of the model errors taken.
    let mut factors: Vec<f64> = tally
        .rows
        .iter()
        .map(|(_, v)| v.prediction.interval.factor())
        .collect();
    let mut taken: Vec<f64> = tally
        .rows
        .iter()
        .map(|(_, v)| v.prediction.interval.model_log_sd)
        .collect();
    factors.sort_by(f64::total_cmp);
    taken.sort_by(f64::total_cmp);
    let median = |xs: &[f64]| xs.get(xs.len() / 2).copied().unwrap_or(0.0);
    println!(
        "measured inside the predicted 90% interval: {inside} of {} ({:.0}%), a median factor of {:.2} either way; RMS of ln(predicted/measured) {log_rms:.3} (the model error the intervals take: {:.3} to {:.3}, median {:.3})",
        tally.rows.len(),
        100.0 * inside as f64 / tally.rows.len().max(1) as f64,
        median(&factors),
        taken.first().copied().unwrap_or(0.0),
        taken.last().copied().unwrap_or(0.0),
        median(&taken),
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

#[cfg(test)]
mod tests {
    use super::check_expect;

    /// Text missing from a whole output fails the check; missing from an output whose
    /// middle augur left out, it cannot be checked there (the middle may hold it).
    #[test]
    fn expected_text_is_checked_where_the_output_was_kept() {
        let run = |bytes: Vec<u8>| vec![("timed".to_string(), bytes)];
        let whole = b">ONE\nACGT\n>TWO\n".to_vec();
        assert!(check_expect(Some(">TWO"), None, &run(whole.clone())).is_ok());
        assert!(check_expect(Some(">THREE"), None, &run(whole)).is_err());
        let mut trimmed = vec![b'A'; augur_toolchain::KEPT_HEAD];
        trimmed.extend_from_slice(b"\n[augur: 20000000 bytes of output left out here]\nGT\n");
        assert!(check_expect(Some(">THREE"), None, &run(trimmed.clone())).is_ok());
        trimmed[augur_toolchain::KEPT_HEAD + 2] = b'x';
        assert!(check_expect(Some(">THREE"), None, &run(trimmed)).is_err());
    }
}
