//! `augur validate`: analyze, predict, then time real runs of the normally built
//! program and print predicted against measured.

use crate::cli::SourceArgs;
use crate::dynamic::{analyze_options, DynamicArgs};
use crate::predict::{fmt_seconds, truncate, By, PredictArgs};
use anyhow::Result;
use augur_bench::validation::{
    build_setup, validate_one, validate_scaled, MeasuredPart, MeasuredParts, Request, Validation,
};
use augur_model::LoadedMachine;
use augur_validate::sampled::file_name;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Preprocessing flags the normal build needs to see what the analysis saw.
pub fn preprocessing_flags(src: &SourceArgs) -> Vec<String> {
    let mut f = vec![];
    if src.cpp {
        f.push("-cpp".to_string());
    }
    f.extend(src.defines.iter().map(|d| format!("-D{d}")));
    f.extend(src.include.iter().map(|d| format!("-I{}", d.display())));
    f
}

/// Options of `augur validate` beyond the sources.
pub struct ValidateArgs {
    /// Machine (path or library name).
    pub machine: String,
    /// Compiler (default: the machine profile's).
    pub fc: Option<String>,
    /// Flags (default: the machine profile's).
    pub fflags: Option<String>,
    /// Timed runs.
    pub runs: usize,
    /// Program arguments.
    pub args: String,
    /// Standard input.
    pub stdin: Option<PathBuf>,
    /// Time limit of each run, seconds.
    pub timeout: f64,
    /// -l.
    pub libs: Vec<String>,
    /// -L.
    pub lib_dirs: Vec<PathBuf>,
    /// Where to write the program profile.
    pub profile_out: Option<PathBuf>,
    /// Where to write the HTML report (sequential validations).
    pub report: Option<PathBuf>,
    /// JSON output.
    pub json: bool,
    /// Breakdowns to show.
    pub by: Vec<By>,
    /// Rows per breakdown.
    pub top: usize,
    /// How operation and memory time combine.
    pub overlap: augur_model::memory::Overlap,
    /// Price estimated branch mispredictions into the total.
    pub branches: bool,
    /// Analyze at these sizes and validate at `at` (never counted).
    pub scale: Option<(augur_program::scaling::ScaleSpec, i64)>,
    /// Thread counts of an OpenMP validation (empty: sequential).
    pub threads: Vec<u32>,
    /// Rank counts of an MPI validation (empty: none).
    pub mpi_ranks: Vec<u32>,
}

/// Runs `augur validate`.
pub fn run(src: &SourceArgs, v: &ValidateArgs) -> Result<ExitCode> {
    let machine = LoadedMachine::load(&v.machine)?;
    let (fc, fflags) = build_setup(&machine, v.fc.as_deref(), v.fflags.as_deref());
    let d = DynamicArgs {
        output_file: None,
        fc,
        fflags,
        args: v.args.clone(),
        stdin: v.stdin.clone(),
        timeout: v.timeout,
        program_output: None,
        libs: v.libs.clone(),
        lib_dirs: v.lib_dirs.clone(),
        keep_partial: false,
        keep_build: None,
        branch_run: true,
        scale: None,
        threads: vec![],
        mpi_ranks: vec![],
    };
    let (fortran, opts) = analyze_options(src, &d)?;
    let openmp = if v.threads.is_empty() {
        String::new()
    } else {
        format!(" -fopenmp, at {:?} threads", v.threads)
    };
    eprintln!(
        "augur: counting run (instrumented build with {} {}{openmp}), then {} timed run(s) of the normal build...",
        opts.toolchain.fc,
        opts.toolchain.fflags.join(" "),
        v.runs.max(1)
    );
    let options = augur_model::PredictOptions {
        branches: v.branches,
        overlap: v.overlap,
        ..augur_model::PredictOptions::default()
    };
    let flags = preprocessing_flags(src);
    let mut opts = opts;
    if !v.mpi_ranks.is_empty() {
        opts.mpi_ranks = v.mpi_ranks.clone();
        opts.threads = v.threads.clone();
    } else if !v.threads.is_empty() {
        opts.threads = v.threads.clone();
    }
    let req = Request {
        machine: &machine,
        fortran: &fortran,
        opts: &opts,
        extra_fflags: flags,
        runs: v.runs,
        options,
        sample: v.by.contains(&By::Loop) || v.by.contains(&By::Procedure),
    };
    // A sequential run at the size given is run once more to show its output when a
    // timed run fails (the other kinds run at sizes, threads or ranks of their own).
    let sequential = v.mpi_ranks.is_empty() && v.threads.is_empty() && v.scale.is_none();
    let said = |e: anyhow::Error| failure(e, src, &fortran, &opts, sequential);
    if !v.mpi_ranks.is_empty() {
        let mut val = augur_bench::ranks::validate_ranks(req).map_err(said)?;
        let busy = busy_rows(&val.rows, rank_label, |r| &r.measured);
        val.warnings.extend(busy);
        return ranks_report(&val, v);
    }
    if !v.threads.is_empty() {
        let mut val = augur_bench::threads::validate_threads(req).map_err(said)?;
        let busy = busy_rows(&val.rows, thread_label, |r| &r.measured);
        val.warnings.extend(busy);
        return threads_report(&val, v);
    }
    let mut val = match &v.scale {
        Some((spec, x)) => validate_scaled(req, spec, *x),
        None => validate_one(req),
    }
    .map_err(said)?;
    val.warnings.extend(busy_warnings(&[("", &val.measured)]));
    if let Some(p) = &v.profile_out {
        let json = serde_json::to_string_pretty(&val.profile)?;
        crate::cli::write_atomically(p, json.as_bytes())?;
        eprintln!("augur: program profile written to {}", p.display());
    }
    if let Some(out) = &v.report {
        let extras = crate::report::Extras {
            measured: Some(crate::report::Measured {
                seconds: val.measured.median,
                runs: val.measured.runs.len(),
                spread: val.measured.spread(),
                build: val.build.clone(),
            }),
            sections: vec![],
        };
        crate::predict::write_report(
            Path::new(&val.program),
            &val.profile,
            std::slice::from_ref(&machine),
            std::slice::from_ref(&val.prediction),
            &val.warnings,
            &extras,
            out,
        )?;
    }
    if v.json {
        let doc = crate::schemas::Document::new("augur-validation", &val);
        println!("{}", serde_json::to_string_pretty(&doc)?);
        return Ok(ExitCode::SUCCESS);
    }
    let pa = PredictArgs {
        machines: vec![],
        profiles: vec![],
        weights: vec![],
        by: if v.by.is_empty() {
            vec![By::Abop, By::Loop]
        } else {
            v.by.clone()
        },
        top: v.top,
        region: None,
        json: false,
        report: None,
        overlap: v.overlap,
        branches: v.branches,
        at: None,
        plot: None,
        profile_out: None,
        measured: vec![],
        threads: vec![],
        gantt: None,
        mpi: None,
        distribution: None,
    };
    let shown = Path::new(&val.program);
    print!(
        "{}",
        crate::predict::report(shown, &val.profile, &machine, &val.prediction, &pa)
    );
    if let Some(parts) = &val.measured_parts {
        print!("{}", measured_report(parts, &pa.by, v.top));
    }
    println!("\n{}", comparison(&val));
    print_warnings(val.setup_differences.iter().chain(&val.warnings));
    Ok(ExitCode::SUCCESS)
}

/// What the counting run's failure message says that `augur validate` does not do: it
/// writes no profile, and keeps no partial counts.
const NOT_VALIDATE: [(&str, &str); 2] = [
    ("; no profile was written:", ":"),
    (
        "; `augur analyze --keep-partial` keeps the counts so far",
        "",
    ),
];

/// A failed validation as `augur validate` says it. A timed run of the normal build that
/// failed (after the counting run of the instrumented copy succeeded) says so, what
/// usually causes it and, for a sequential run (`rerun`), the output of one more run; a
/// failed counting run's message names only what `validate` does, and a READ past the end
/// of a named file is not blamed on a missing `--stdin`.
fn failure(
    e: anyhow::Error,
    src: &SourceArgs,
    fortran: &[PathBuf],
    opts: &augur_program::AnalyzeOptions,
    rerun: bool,
) -> anyhow::Error {
    if augur_toolchain::interrupt::cancelled() {
        return e;
    }
    if let Some(augur_validate::TimingError::Failed { index, how }) = e.downcast_ref() {
        let tc = &opts.toolchain;
        let mut text = format!(
            "timed run {index} of the normal build ({} {}, without augur's instrumentation) {how}, though augur's counting run of the instrumented copy ran to its end: does the program depend on what an earlier run left behind (a file it opens with STATUS='NEW', say) or on anything else that changes from one run to the next?",
            tc.fc,
            tc.fflags.join(" ")
        );
        if rerun {
            text.push_str(&one_more_run(src, fortran, opts));
        }
        return anyhow::anyhow!(text);
    }
    let mut text = augur_bench::error_text(&e);
    if !text.starts_with("the program ") {
        return e;
    }
    for (from, to) in NOT_VALIDATE {
        text = text.replacen(from, to, 1);
    }
    if let Some((unit, file)) = crate::dynamic::end_of_named_file(&text) {
        text = text.replacen(
            "it reached the end of its input: give the input it reads with --stdin FILE",
            &crate::dynamic::end_of_file_hint(&unit, &file),
            1,
        );
    }
    anyhow::anyhow!(text)
}

/// The longest that [`one_more_run`] waits for the program.
const RERUN_LIMIT: std::time::Duration = std::time::Duration::from_secs(60);

/// The normal build run once more, as the timed runs were, for its output: the last lines
/// it printed (before a backtrace), or why none are shown.
fn one_more_run(
    src: &SourceArgs,
    fortran: &[PathBuf],
    opts: &augur_program::AnalyzeOptions,
) -> String {
    let program = augur_fortran::analyze(fortran, &opts.front);
    let order = augur_program::analyze::compile_order(&program, fortran.len());
    let input = augur_toolchain::BuildInput {
        fortran: order.iter().map(|&i| fortran[i].clone()).collect(),
        extra_fflags: preprocessing_flags(src),
        c_sources: opts.c_sources.clone(),
        objects: opts.objects.clone(),
        link_args: opts.link_args.clone(),
    };
    let exe = match augur_validate::build_plain(&opts.toolchain, &input) {
        Ok(built) => built,
        Err(e) => return format!("\n(built again to show its output, it did not build: {e})"),
    };
    let spec = augur_toolchain::RunSpec {
        args: opts.args.clone(),
        stdin: opts.stdin.clone(),
        timeout: opts.timeout.min(RERUN_LIMIT),
        env: vec![],
        cwd: opts.cwd.clone(),
        capture: true,
        fixed_addresses: false,
    };
    let run = match augur_toolchain::run(&exe.1, &spec) {
        Ok(run) => run,
        Err(e) => return format!("\n(run again to show its output, it did not start: {e})"),
    };
    let how = if run.success() {
        "it ran to its end this time".to_string()
    } else {
        format!("it {}", run.describe())
    };
    let lines = run.output_before_backtrace();
    let mut text = format!("\n---- the program's output, run once more ({how}) ----");
    if lines.is_empty() {
        text.push_str("\n  (nothing)");
    }
    for l in &lines[lines.len().saturating_sub(10)..] {
        text.push_str("\n  ");
        text.push_str(l);
    }
    text
}

/// Where the time went, measured by sampling, beside the prediction: the innermost
/// loops (where the compiled code is priced) and the procedures, most measured time first.
fn measured_report(parts: &MeasuredParts, by: &[By], top: usize) -> String {
    let mut out = format!(
        "\nwhere the time went, measured ({} samples of the CPU clock in one run of the normal \
         build, `perf record`; {:.1}% outside the program's sources: in libraries it calls, not \
         traced back to their callers) against predicted (a loop's operations; its nest's \
         memory term is in the memory table):\n",
        parts.samples,
        100.0 * parts.outside_sources
    );
    if !parts.libraries.is_empty() {
        let _ = writeln!(
            out,
            "  outside the program: {}",
            augur_validate::sampled::describe_functions(&parts.libraries, 5)
        );
    }
    if by.contains(&By::Loop) {
        let loops: Vec<&MeasuredPart> = parts.loops.iter().filter(|r| r.innermost).collect();
        measured_table(&mut out, "innermost loop", &loops, top);
    }
    if by.contains(&By::Procedure) {
        let procedures: Vec<&MeasuredPart> = parts.procedures.iter().collect();
        measured_table(&mut out, "procedure (its own lines)", &procedures, top);
    }
    out
}

/// The first `top` of `rows` under `title`: where, measured, predicted, error.
fn measured_table(out: &mut String, title: &str, rows: &[&MeasuredPart], top: usize) {
    let _ = writeln!(
        out,
        "  {:<34} {:<26} {:>10} {:>10} {:>7}",
        title, "where", "measured", "predicted", "error"
    );
    for r in rows.iter().take(top) {
        let place = format!("{}:{}-{}", file_name(&r.file), r.first_line, r.last_line);
        let error = if r.measured_seconds > 0.0 {
            let e = 100.0 * (r.predicted_seconds / r.measured_seconds - 1.0);
            format!("{:+.0}%", if e.abs() < 0.5 { 0.0 } else { e })
        } else {
            "-".to_string()
        };
        let _ = writeln!(
            out,
            "  {:<34} {:<26} {:>10} {:>10} {:>7}",
            truncate(&r.name, 34),
            truncate(&place, 26),
            fmt_seconds(r.measured_seconds),
            fmt_seconds(r.predicted_seconds),
            error
        );
    }
    if rows.len() > top {
        let _ = writeln!(out, "  ({} more; --top N shows more)", rows.len() - top);
    }
}

/// The spread of timed runs above which the machine was likely busy with other work.
const BUSY_SPREAD: f64 = 0.10;

/// Prints a validation's warnings on standard error, each as `augur: warning: ...`.
fn print_warnings<'a>(warnings: impl IntoIterator<Item = &'a String>) {
    for w in warnings {
        eprintln!("augur: warning: {w}");
    }
}

/// [`busy_warnings`] of the rows of a parallel validation (one per thread or rank
/// count), each row named by `label` and timed by `timing`.
fn busy_rows<R>(
    rows: &[R],
    label: impl Fn(&R) -> String,
    timing: impl Fn(&R) -> &augur_validate::Timing,
) -> Vec<String> {
    let labels: Vec<String> = rows.iter().map(&label).collect();
    let timings: Vec<(&str, &augur_validate::Timing)> = labels
        .iter()
        .zip(rows)
        .map(|(l, r)| (l.as_str(), timing(r)))
        .collect();
    busy_warnings(&timings)
}

/// A row of an OpenMP validation named in a warning: `at 2 thread(s)`.
fn thread_label(r: &augur_bench::threads::ThreadRow) -> String {
    format!("at {} thread(s)", r.threads)
}

/// A row of an MPI validation named in a warning: `at 2 rank(s)`, or `at 2 rank(s) x 2
/// threads` for a hybrid program.
fn rank_label(r: &augur_bench::ranks::RankRow) -> String {
    match r.threads {
        1 => format!("at {} rank(s)", r.ranks),
        t => format!("at {} rank(s) x {t} threads", r.ranks),
    }
}

/// One warning per timing whose runs spread more than [`BUSY_SPREAD`]: each entry a
/// label (`at 2 thread(s)`, or empty) and its timing.
fn busy_warnings(timings: &[(&str, &augur_validate::Timing)]) -> Vec<String> {
    timings
        .iter()
        .filter(|(_, t)| t.runs.len() >= 2 && t.spread() > BUSY_SPREAD)
        .map(|(label, t)| {
            format!(
                "the timed runs{} spread {:.0}% (from {} to {}): something else was running; the measured time and the error are uncertain: time again on a quiet machine (more --runs, nothing else running)",
                if label.is_empty() { String::new() } else { format!(" {label}") },
                100.0 * t.spread(),
                fmt_seconds(t.min),
                fmt_seconds(t.max)
            )
        })
        .collect()
}

/// Predicted against measured, as text.
pub fn comparison(v: &Validation) -> String {
    let (lo, hi) = (v.prediction.interval.low, v.prediction.interval.high);
    let t = &v.measured;
    format!(
        "predicted vs measured on {} (built with {}):\n  predicted  {:>12}   (90% interval {} .. {})\n  measured   {:>12}   (CPU time, median of {} run(s), {} .. {}, spread {:.1}%; wall clock {})\n  error      {:>+11.1}%   (predicted - measured) / measured",
        v.machine,
        v.build,
        fmt_seconds(v.predicted.seconds),
        fmt_seconds(lo),
        fmt_seconds(hi),
        fmt_seconds(t.median),
        t.runs.len(),
        fmt_seconds(t.min),
        fmt_seconds(t.max),
        100.0 * t.spread(),
        fmt_seconds(v.measured_wall.median),
        100.0 * v.error
    )
}

/// Prints an OpenMP validation: per thread count predicted against measured (wall
/// clock), the speedups, and the prediction's breakdown.
fn threads_report(
    val: &augur_bench::threads::ThreadValidation,
    v: &ValidateArgs,
) -> Result<ExitCode> {
    if let Some(p) = &v.profile_out {
        let json = serde_json::to_string_pretty(&val.profile)?;
        crate::cli::write_atomically(p, json.as_bytes())?;
        eprintln!("augur: program profile written to {}", p.display());
    }
    if v.json {
        let doc = crate::schemas::Document::new("augur-thread-validation", val);
        println!("{}", serde_json::to_string_pretty(&doc)?);
        return Ok(ExitCode::SUCCESS);
    }
    println!(
        "{} on {} (built with {}), wall clock:",
        val.program, val.machine, val.build
    );
    println!(
        "{:>7} {:>11} {:>11} {:>7} {:>8} {:>8} {:>8}",
        "threads", "predicted", "measured", "spread", "error", "speedup", "measured"
    );
    let speedups = val.speedups();
    for r in &val.rows {
        let s = speedups.iter().find(|s| s.0 == r.threads);
        println!(
            "{:>7} {:>11} {:>11} {:>6.1}% {:>+7.1}% {:>8} {:>8}",
            r.threads,
            fmt_seconds(r.predicted),
            fmt_seconds(r.measured.median),
            100.0 * r.measured.spread(),
            100.0 * r.error,
            s.map_or("-".into(), |s| format!("{:.2}", s.1)),
            s.map_or("-".into(), |s| format!("{:.2}", s.2)),
        );
    }
    print_warnings(&val.warnings);
    Ok(ExitCode::SUCCESS)
}

/// The table of `augur validate --mpi-ranks`: per rank count, predicted and measured
/// (median of the job's wall-clock times) with the error and the busiest rank's compute.
fn ranks_report(val: &augur_bench::ranks::RankValidation, v: &ValidateArgs) -> Result<ExitCode> {
    if v.json {
        let doc = crate::schemas::Document::new("augur-rank-validation", val);
        println!("{}", serde_json::to_string_pretty(&doc)?);
        return Ok(ExitCode::SUCCESS);
    }
    println!(
        "built with {}, timed under mpirun (wall clock of the job); prediction replayed by SimGrid on the machine's measured [mpi] network",
        val.build
    );
    println!(
        "{:>5} {:>7} {:>12} {:>12} {:>7} {:>8} {:>16}",
        "ranks", "threads", "predicted", "measured", "spread", "error", "busiest compute"
    );
    for r in &val.rows {
        let busiest = r.compute.iter().copied().fold(0.0, f64::max);
        println!(
            "{:>5} {:>7} {:>10.3} s {:>10.3} s {:>6.1}% {:>+7.1}% {:>14.3} s",
            r.ranks,
            r.threads,
            r.predicted,
            r.measured.median,
            100.0 * r.measured.spread(),
            100.0 * r.error,
            busiest
        );
    }
    print_warnings(&val.warnings);
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_that_spread_say_the_machine_was_busy() {
        let quiet = augur_validate::Timing::from_runs(vec![1.00, 1.02, 1.01]);
        let busy = augur_validate::Timing::from_runs(vec![1.00, 1.60, 1.05]);
        let one = augur_validate::Timing::from_runs(vec![1.0]);
        assert!(busy_warnings(&[("", &quiet), ("", &one)]).is_empty());
        let w = busy_warnings(&[("at 2 thread(s)", &busy)]);
        assert_eq!(w.len(), 1);
        assert!(w[0].contains("at 2 thread(s) spread 57%"), "{}", w[0]);
    }

    #[test]
    fn parallel_rows_that_spread_are_named_in_the_warnings() {
        let timing = |runs: Vec<f64>| augur_validate::Timing::from_runs(runs);
        let rank = |ranks: u32, threads: u32, runs: Vec<f64>| augur_bench::ranks::RankRow {
            ranks,
            threads,
            predicted: 1.0,
            compute: vec![1.0; ranks as usize],
            measured: timing(runs),
            error: 0.0,
        };
        let rows = [
            rank(1, 1, vec![1.0, 1.01]),
            rank(2, 1, vec![0.5, 0.9]),
            rank(2, 2, vec![0.3, 0.6]),
        ];
        let w = busy_rows(&rows, rank_label, |r| &r.measured);
        assert_eq!(w.len(), 2, "{w:?}");
        assert!(w[0].contains("at 2 rank(s) spread 57%"), "{}", w[0]);
        assert!(w[1].contains("at 2 rank(s) x 2 threads spread"), "{}", w[1]);
        let thread = |threads: u32, runs: Vec<f64>| augur_bench::threads::ThreadRow {
            threads,
            predicted: 1.0,
            measured: timing(runs),
            error: 0.0,
        };
        let rows = [thread(1, vec![1.0, 1.02]), thread(2, vec![0.6, 0.5])];
        let w = busy_rows(&rows, thread_label, |r| &r.measured);
        assert_eq!(w.len(), 1, "{w:?}");
        assert!(w[0].contains("at 2 thread(s) spread 18%"), "{}", w[0]);
    }
}
