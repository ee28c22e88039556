//! `augur analyze` (dynamic): instrumented build and run, then the program profile.

use crate::cli::{write_atomically, SourceArgs};
use crate::static_report::counts_inline;
use anyhow::{bail, Result};
use augur_program::analyze::failed_run_message;
use augur_program::{AnalyzeError, AnalyzeOptions, ProgramProfile};
use augur_toolchain::Toolchain;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

/// Options of the dynamic analysis beyond the sources.
#[derive(Debug, Clone)]
pub struct DynamicArgs {
    /// Profile path.
    pub output_file: Option<PathBuf>,
    /// Compiler.
    pub fc: String,
    /// Compiler flags.
    pub fflags: String,
    /// Program arguments (one string).
    pub args: String,
    /// Standard input file.
    pub stdin: Option<PathBuf>,
    /// Time limit, seconds.
    pub timeout: f64,
    /// Where to save the program's output.
    pub program_output: Option<PathBuf>,
    /// Libraries (-l).
    pub libs: Vec<String>,
    /// Library directories (-L).
    pub lib_dirs: Vec<PathBuf>,
    /// Keep a partial profile on failure.
    pub keep_partial: bool,
    /// Keep the build directory.
    pub keep_build: Option<PathBuf>,
    /// Run the program a second time to simulate branch prediction.
    pub branch_run: bool,
    /// Counting runs at several sizes (`--scale n=32,48,64`): one scalable profile.
    pub scale: Option<augur_program::scaling::ScaleSpec>,
    /// Thread counts of an OpenMP analysis (empty: sequential).
    pub threads: Vec<u32>,
    /// Rank counts of an MPI analysis (empty: none).
    pub mpi_ranks: Vec<u32>,
}

/// Whether a path is a C source, an object or an archive (linked, not analyzed).
pub fn is_link_only(p: &Path) -> bool {
    matches!(
        p.extension().and_then(|e| e.to_str()),
        Some("c" | "o" | "a" | "so")
    )
}

/// What a file given as a Fortran source is instead, by its extension: augur's own
/// profiles (a machine profile's `.toml`, a program profile's `.json`) are not sources.
pub fn not_a_source(p: &Path) -> Option<&'static str> {
    match p.extension().and_then(|e| e.to_str()) {
        Some("toml") => Some(
            "a TOML file (a machine profile?), not a Fortran source: a machine profile goes with `-m` (`augur predict PROFILE.json -m FILE.toml`)",
        ),
        Some("json") => Some(
            "a JSON file (a program profile?), not a Fortran source: a program profile is predicted with `augur predict FILE.json`",
        ),
        _ => None,
    }
}

/// Where gfortran's run-time error says a READ ran past the end of a file that is not
/// standard input (`At line 6 of file rd.f90 (unit = 10, file = 'data.txt')`, then `End
/// of file`): the unit and the file. `None` when the output says no such thing (an end of
/// standard input, `file = 'stdin'`, is what `--stdin` is for).
pub fn end_of_named_file(output: &str) -> Option<(String, String)> {
    if !output.to_ascii_lowercase().contains("end of file") {
        return None;
    }
    output.lines().find_map(|l| {
        let at = l.find("(unit = ")?;
        let rest = &l[at + "(unit = ".len()..];
        let (unit, rest) = rest.split_once(", file = '")?;
        let (file, _) = rest.split_once('\'')?;
        (file != "stdin").then(|| (unit.trim().to_string(), file.to_string()))
    })
}

/// The hint for a READ past the end of `file` (unit `unit`): it is the file's content,
/// not standard input, that is short.
pub fn end_of_file_hint(unit: &str, file: &str) -> String {
    format!(
        "a READ ran past the end of {file} (unit {unit}), not of standard input: check that the file holds what the program reads there (the run-time error names the line)"
    )
}

/// The Fortran sources and the analysis options of a command line; checks the files,
/// the compiler and its flags.
pub fn analyze_options(
    src: &SourceArgs,
    d: &DynamicArgs,
) -> Result<(Vec<PathBuf>, AnalyzeOptions)> {
    for f in &src.files {
        if !f.exists() {
            bail!(
                "{}: no such file (give the path of a Fortran source file)",
                f.display()
            );
        }
    }
    for f in &src.files {
        if let Some(what) = not_a_source(f) {
            bail!("{}: {what}", f.display());
        }
    }
    let (fortran, other): (Vec<PathBuf>, Vec<PathBuf>) =
        src.files.iter().cloned().partition(|p| !is_link_only(p));
    if fortran.is_empty() {
        bail!("no Fortran source among the files given (C files and objects are only linked)");
    }
    if let Some(s) = &d.stdin {
        if !s.is_file() {
            bail!(
                "{}: the --stdin file does not exist; give the file the program reads as input",
                s.display()
            );
        }
    }
    let toolchain = Toolchain::detect(&d.fc, &d.fflags)?;
    toolchain.check_flags()?;
    let args = augur_toolchain::split_flags(&d.args)?;
    let mut link_args: Vec<String> = d
        .lib_dirs
        .iter()
        .map(|p| format!("-L{}", p.display()))
        .collect();
    link_args.extend(d.libs.iter().map(|l| format!("-l{l}")));
    let (c_sources, objects): (Vec<PathBuf>, Vec<PathBuf>) = other
        .into_iter()
        .partition(|p| p.extension().and_then(|e| e.to_str()) == Some("c"));
    let opts = AnalyzeOptions {
        front: src.front_end(),
        toolchain,
        c_sources,
        objects,
        link_args,
        args,
        stdin: d.stdin.clone(),
        timeout: Duration::from_secs_f64(d.timeout.max(0.001)),
        cwd: std::env::current_dir()?,
        keep_partial: d.keep_partial,
        keep_build: d.keep_build.clone(),
        branch_run: d.branch_run,
        optimization_report: true,
        threads: d.threads.clone(),
        mpi_ranks: d.mpi_ranks.clone(),
    };
    if opts.mpi_ranks.contains(&0) {
        bail!("--mpi-ranks: a rank count is at least 1");
    }
    Ok((fortran, opts))
}

/// Runs the dynamic analysis and prints its summary.
pub fn run(src: &SourceArgs, d: &DynamicArgs) -> Result<ExitCode> {
    let (fortran, opts) = analyze_options(src, d)?;
    let (openmp, at) = if !d.mpi_ranks.is_empty() {
        (
            " (MPI wrappers, tracer)".to_string(),
            format!(" under mpirun at {:?} ranks", d.mpi_ranks),
        )
    } else if d.threads.is_empty() {
        (String::new(), String::new())
    } else {
        (
            " -fopenmp".to_string(),
            format!(" with {:?} threads", d.threads),
        )
    };
    eprintln!(
        "augur: building an instrumented copy with {} {}{openmp} and running it{at}...",
        opts.toolchain.fc,
        opts.toolchain.fflags.join(" "),
    );
    let result = match &d.scale {
        Some(spec) => augur_program::scaling::analyze_scaled(&fortran, &opts, spec, |v| {
            eprintln!("augur: counting run at {}={v}", spec.symbol)
        }),
        None => augur_program::analyze(&fortran, &opts),
    };
    let analysis = match result {
        Ok(a) => a,
        Err(AnalyzeError::Failed { how, run }) => {
            show_program_output(&run.stdout, &run.stderr, d.program_output.as_deref())?;
            if let Some((unit, file)) = end_of_named_file(&String::from_utf8_lossy(&run.stderr)) {
                bail!(
                    "the program {how}; no profile was written: {}, or use --keep-partial to keep the counts so far",
                    end_of_file_hint(&unit, &file)
                );
            }
            return Err(anyhow::anyhow!(failed_run_message(
                how,
                &run,
                d.stdin.is_some(),
                !opts.threads.is_empty(),
                true
            )));
        }
        Err(e) => return Err(e.into()),
    };
    show_program_output(
        &analysis.run.stdout,
        &analysis.run.stderr,
        d.program_output.as_deref(),
    )?;
    let path = d.output_file.clone().unwrap_or_else(|| {
        let stem = fortran[0]
            .file_stem()
            .map(|s| s.to_string_lossy().to_string())
            .unwrap_or_else(|| "program".into());
        PathBuf::from(format!("{stem}.profile.json"))
    });
    let json = serde_json::to_string_pretty(&analysis.profile)?;
    write_atomically(&path, json.as_bytes())?;
    let mut out = std::io::stdout().lock();
    out.write_all(summary(&analysis.profile).as_bytes())?;
    if let Some(sc) = &analysis.profile.scaling {
        out.write_all(scaling_summary(&analysis.profile, sc).as_bytes())?;
    }
    if let Some(m) = &analysis.profile.mpi {
        out.write_all(mpi_summary(m).as_bytes())?;
    }
    writeln!(out, "profile written to {}", path.display())?;
    for d in &analysis.program.diagnostics {
        eprint!("{}", d.render(&analysis.program.files));
    }
    Ok(if analysis.profile.partial {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

fn show_program_output(stdout: &[u8], stderr: &[u8], save: Option<&Path>) -> Result<()> {
    match save {
        Some(p) => {
            let mut all = stdout.to_vec();
            all.extend_from_slice(stderr);
            write_atomically(p, &all)?;
            eprintln!("augur: the program's output was saved to {}", p.display());
        }
        None => {
            if !stdout.is_empty() || !stderr.is_empty() {
                eprintln!("---- program output ----");
                std::io::stderr().write_all(stdout)?;
                std::io::stderr().write_all(stderr)?;
                eprintln!("---- end of program output ----");
            }
        }
    }
    Ok(())
}

/// Per rank count and rank: the MPI calls, the records they compress to, the operations
/// of the compute segments, and the bytes sent by operation.
fn mpi_summary(m: &augur_program_profile::mpi::MpiProfile) -> String {
    use std::collections::BTreeMap;
    let mut s =
        String::from("MPI traces (calls, records after compression, bytes sent by operation):\n");
    for run in &m.runs {
        for t in &run.traces {
            let mut sent: BTreeMap<&str, i64> = BTreeMap::new();
            let mut executions = 0.0;
            for r in &t.records {
                for step in &r.steps {
                    let (op, b) = (step.event.op.as_str(), step.event.bytes.max(0));
                    // Completions count requests in `bytes`; receives and
                    // communicators send nothing.
                    let sends = !(op.starts_with("wait")
                        || op.starts_with("test")
                        || op.starts_with("comm")
                        || op.ends_with("recv") && op != "sendrecv");
                    if sends {
                        *sent.entry(step.event.op.as_str()).or_default() += b * r.repeat as i64;
                    }
                    executions += r.repeat as f64 * step.segment.iter().map(|x| x.2).sum::<f64>();
                }
            }
            let bytes: Vec<String> = sent.iter().map(|(op, b)| format!("{op} {b}")).collect();
            s += &format!(
                "  {} ranks, rank {}: {} calls, {} records, {:.3e} block executions; {}\n",
                run.ranks,
                t.rank,
                t.calls,
                t.records.len(),
                executions,
                bytes.join(", ")
            );
        }
    }
    s
}

/// A short text summary of a profile: totals, top AbOps, top lines and loops, regions.
pub fn summary(p: &ProgramProfile) -> String {
    use std::fmt::Write as _;
    let mut s = String::new();
    let _ = writeln!(
        s,
        "augur program profile: {:.4e} abstract operations, run {:.2} s instrumented (exit {}), {} counters{}",
        p.operations,
        p.run.wall_seconds,
        p.run
            .exit_code
            .map(|c| c.to_string())
            .unwrap_or_else(|| "-".into()),
        p.run.counters,
        if p.partial { ", PARTIAL" } else { "" }
    );
    let total = p.operations.max(1.0);
    let mut ops: Vec<_> = p.totals.iter().collect();
    ops.sort_by(|a, b| b.1.total_cmp(&a.1));
    let _ = writeln!(s, "\ntop abstract operations:");
    for (op, n) in ops.iter().take(10) {
        let _ = writeln!(
            s,
            "  {:<5} {:>14.0}  {:>5.1}%  {}",
            op.mnemonic(),
            n,
            100.0 * n / total,
            op.info().meaning
        );
    }
    let mut lines: Vec<_> = p.lines.iter().map(|l| (l, l.abops.total())).collect();
    lines.sort_by(|a, b| b.1.total_cmp(&a.1));
    let _ = writeln!(s, "\nbusiest lines:");
    for (l, n) in lines.iter().take(8) {
        let _ = writeln!(
            s,
            "  {}:{:<5} {:>14.0}  {:>5.1}%  {}",
            l.file,
            l.line,
            n,
            100.0 * n / total,
            counts_inline(&l.abops)
        );
    }
    let _ = writeln!(s, "\nprocedures:");
    let mut units: Vec<_> = p.units.iter().filter(|u| u.totals.total() > 0.0).collect();
    units.sort_by(|a, b| b.totals.total().total_cmp(&a.totals.total()));
    for u in units {
        let _ = writeln!(
            s,
            "  {:<20} calls {:>10}  {:>14.0} ops  {:>5.1}%",
            u.name,
            u.calls
                .map(|c| format!("{c:.0}"))
                .unwrap_or_else(|| "-".into()),
            u.totals.total(),
            100.0 * u.totals.total() / total
        );
    }
    let mut loops: Vec<_> = p
        .units
        .iter()
        .flat_map(|u| u.loops.iter().map(move |l| (u, l)))
        .filter(|(_, l)| l.totals.total() > 0.0)
        .collect();
    loops.sort_by(|a, b| b.1.totals.total().total_cmp(&a.1.totals.total()));
    let _ = writeln!(s, "\nloops:");
    for (u, l) in loops.iter().take(8) {
        let _ = writeln!(
            s,
            "  {}:{:<5} {:<10} entries {:>10} trips/entry {:>10}  {:>5.1}%",
            u.file,
            l.line,
            format!("{:?}", l.loop_kind).to_ascii_lowercase(),
            l.entries
                .map(|c| format!("{c:.0}"))
                .unwrap_or_else(|| "-".into()),
            l.mean_trips
                .map(|c| format!("{c:.1}"))
                .unwrap_or_else(|| "-".into()),
            100.0 * l.totals.total() / total
        );
    }
    if !p.regions.is_empty() {
        let _ = writeln!(s, "\nregions:");
        for r in &p.regions {
            let _ = writeln!(
                s,
                "  {:<16} {}:{}-{}  {:>14.0} ops  {:>5.1}%",
                r.name,
                r.file,
                r.first_line,
                r.last_line,
                r.abops.total(),
                100.0 * r.abops.total() / total
            );
        }
    }
    if let Some(b) = &p.branches {
        let _ = writeln!(
            s,
            "\nbranches (simulated by the branch run): {:.4e} mispredictions, {:.4e} at conditions (against a bound of {:.4e} from the block counts) and {:.4e} at DO loop exits",
            b.mispredictions,
            b.mispredictions - b.loop_exit_mispredictions,
            b.bound,
            b.loop_exit_mispredictions
        );
        for c in b.conditions.iter().take(5).filter(|c| c.mispredictions > 0) {
            let _ = writeln!(
                s,
                "  {}:{:<5} {:<13} executions {:>12} taken {:>6}  mispredicted {:>5.1}% ({})",
                c.file,
                c.line,
                c.kind.name(),
                c.executions,
                if c.kind.multiway() {
                    "-".to_string()
                } else {
                    format!(
                        "{:.1}%",
                        100.0 * c.taken as f64 / c.executions.max(1) as f64
                    )
                },
                100.0 * c.mispredictions as f64 / c.executions.max(1) as f64,
                c.predictor
            );
        }
    }
    for n in &p.notes {
        let _ = writeln!(s, "note: {n}");
    }
    s
}

/// How a scalable profile's blocks scale: the models by kind, and the busiest blocks'.
fn scaling_summary(
    p: &ProgramProfile,
    sc: &augur_program_profile::scaling::ScalingProfile,
) -> String {
    use augur_program_profile::scaling::CountModel;
    use std::fmt::Write as _;
    let mut s = String::new();
    let values: Vec<String> = sc.values.iter().map(|v| v.to_string()).collect();
    let _ = writeln!(
        s,
        "\nscaling with {} (counting runs at {}): {}",
        sc.symbol,
        values.join(", "),
        crate::scale::models_line(p)
    );
    let ops = |b: &augur_program_profile::scaling::BlockScaling| {
        p.units
            .get(b.unit)
            .and_then(|u| u.blocks.get(b.block as usize))
            .map_or(0.0, |bp| bp.counts.total() * bp.executions.unwrap_or(0.0))
    };
    let mut busiest: Vec<_> = sc.blocks.iter().collect();
    busiest.sort_by(|a, b| ops(b).total_cmp(&ops(a)));
    for b in busiest.iter().take(6) {
        let Some(u) = p.units.get(b.unit) else {
            continue;
        };
        let line = u.blocks.get(b.block as usize).map_or(0, |bp| bp.first_line);
        let how = match &b.model {
            CountModel::Exact {
                closed_form,
                per_entry,
                symbols,
                ..
            } => format!(
                "exact: {} per entry; {}",
                closed_form.as_deref().unwrap_or(per_entry),
                symbols.join(", ")
            ),
            CountModel::Constant { value } => format!("constant {value}"),
            CountModel::Polynomial { form, .. } => format!("polynomial {form}"),
            CountModel::Fitted(m) => format!(
                "fitted {} (cross-validation error {:.1}%)",
                m.describe(&sc.symbol),
                m.cv_error * 100.0
            ),
            CountModel::Share {
                of_block,
                ratio,
                cv_error,
            } => format!(
                "{:.3} of the iterations of its loop (block {of_block}; cross-validation error {:.1}%)",
                ratio,
                cv_error * 100.0
            ),
        };
        let _ = writeln!(s, "  {}:{:<5} {how}", u.file, line);
    }
    s
}
