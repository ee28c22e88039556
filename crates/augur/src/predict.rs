//! `augur predict`: program profiles × machine profiles → predicted times, the AbOp
//! report and the breakdowns; several programs form a weighted workload.

use anyhow::{bail, Result};
use augur_machine_profile::{library, MachineProfile};
use augur_model::memory::Overlap;
use augur_model::predict::{CostStatus, PartRow};
use augur_model::speedup::SpeedupExplanation;
use augur_model::{Estimate, LoadedMachine, PredictOptions, Prediction};
use augur_program_profile::ProgramProfile;
use clap::ValueEnum;
use serde::Serialize;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// A breakdown the report can show.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum By {
    /// Per abstract operation: executions, share of operations, time, share of time.
    Abop,
    /// Per procedure (its own blocks; callees are not included).
    Procedure,
    /// Per loop (nested loops included).
    Loop,
    /// Per source line.
    Line,
    /// Per basic block.
    Block,
    /// Per region (`!augur region NAME` ... `!augur end region`).
    Region,
}

/// A machine of a prediction.
#[derive(Serialize, schemars::JsonSchema)]
pub(crate) struct MachineJson<'a> {
    /// Its name (the profile's file stem).
    name: &'a str,
    /// Its profile's file.
    path: String,
    /// The CPU it was measured on.
    cpu: &'a str,
    /// The compiler it was measured with.
    compiler: &'a str,
    /// The compiler's flags.
    fflags: &'a str,
}

/// A program of a prediction: one prediction per machine.
#[derive(Serialize, schemars::JsonSchema)]
pub(crate) struct ProgramJson<'a> {
    /// The program profile's file.
    profile: String,
    /// Its weight in the workload.
    weight: f64,
    /// Warnings about the profile and its predictions.
    warnings: Vec<String>,
    /// The processor's floating-point flags set at the end of the counting run that
    /// say its arithmetic met subnormal numbers (`denormal`, `underflow`), which no
    /// prediction prices; empty when none was (or the profile cannot say).
    subnormal_flags: Vec<String>,
    /// One per machine, in the order of `machines`.
    predictions: Vec<&'a Prediction>,
}

/// What `augur predict --json` prints.
#[derive(Serialize, schemars::JsonSchema)]
pub(crate) struct PredictionJson<'a> {
    schema: u32,
    kind: &'static str,
    /// The machines, in the order given.
    machines: Vec<MachineJson<'a>>,
    /// The programs, in the order given.
    programs: Vec<ProgramJson<'a>>,
    /// Σ weight · time per machine.
    workload: Vec<Estimate>,
    /// One program on several machines with `--by loop`: each loop's speedup over the
    /// first machine and why.
    #[serde(skip_serializing_if = "Option::is_none")]
    speedup: Option<SpeedupExplanation>,
}

/// Options of `augur predict`.
pub struct PredictArgs {
    /// Machines, by path or library name.
    pub machines: Vec<String>,
    /// Program profiles.
    pub profiles: Vec<PathBuf>,
    /// Weights of the programs in the workload (default 1 each).
    pub weights: Vec<f64>,
    /// Breakdowns to show (default: abop, procedure, loop, line, region).
    pub by: Vec<By>,
    /// Rows per breakdown.
    pub top: usize,
    /// Only this region's prediction.
    pub region: Option<String>,
    /// JSON instead of text.
    pub json: bool,
    /// Where to write the HTML report (one profile: its sequential prediction, with a
    /// section of the threads, ranks or sizes predicted beside it).
    pub report: Option<PathBuf>,
    /// How operation and memory time combine.
    pub overlap: Overlap,
    /// Price estimated branch mispredictions into the total.
    pub branches: bool,
    /// Predict at a size never run (a profile from `augur analyze --scale`).
    pub at: Option<crate::scale::At>,
    /// With a range of sizes: the figure's file.
    pub plot: Option<PathBuf>,
    /// With one size: where to write the profile computed at that size.
    pub profile_out: Option<PathBuf>,
    /// With a range: measured times (size, seconds) to mark on the figure.
    pub measured: Vec<(i64, f64)>,
    /// Thread counts of an OpenMP prediction (empty: sequential).
    pub threads: Vec<u32>,
    /// With thread counts: the per-thread timeline's file.
    pub gantt: Option<PathBuf>,
    /// An MPI prediction (SimGrid replay).
    pub mpi: Option<crate::simgrid::MpiPredict>,
    /// With --distribute or --procs: the distributions and grids (the replay's options in
    /// `mpi`, its ranks the grids').
    pub distribution: Option<crate::distribution::DistributeArgs>,
}

/// Warnings about a profile whose sources changed since it was made.
fn source_warnings(profile: &ProgramProfile, path: &Path) -> Vec<String> {
    let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
    profile
        .source_changes(&cwd)
        .into_iter()
        .filter(|c| c.what == "modified")
        .map(|c| {
            format!(
                "{}: {} changed since this profile was made (its SHA-256 differs); the counts describe the old version: re-run `augur analyze` to update {}",
                path.display(),
                c.path,
                path.display()
            )
        })
        .collect()
}

/// Runs `augur predict`.
pub fn run(a: &PredictArgs) -> Result<ExitCode> {
    if !a.weights.is_empty() && a.weights.len() != a.profiles.len() {
        bail!(
            "--weights has {} value(s) for {} program profile(s); give one weight per profile, in the same order",
            a.weights.len(),
            a.profiles.len()
        );
    }
    if a.weights.iter().any(|w| !w.is_finite() || *w < 0.0) {
        bail!("--weights must be non-negative numbers");
    }
    let (machines, mut first) = machines_and_first_profile(a)?;
    let options = PredictOptions {
        branches: a.branches,
        overlap: a.overlap,
        ..PredictOptions::default()
    };
    if let Some(beside) = beside_sequential(a, &machines, options)? {
        print!("{}", beside.printed);
        if let Some(page) = &a.report {
            let extras = crate::report::Extras {
                measured: None,
                sections: vec![beside.section],
            };
            page_of(&a.profiles[0], &machines, options, &extras, page)?;
        }
        return Ok(ExitCode::SUCCESS);
    }
    if a.gantt.is_some() {
        bail!("--gantt draws the timeline of a parallel prediction: give --threads or --mpi-ranks");
    }
    if a.plot.is_some() {
        bail!("--plot draws a sweep (--at NAME=FROM..TO, --mpi-ranks 1,2,4) or a speedup curve (--threads 1,2,4)");
    }
    if a.report.is_some() && a.profiles.len() != 1 {
        bail!("--report writes the page of one program profile; give exactly one (or run `augur report` for each)");
    }
    if a.profile_out.is_some() && a.at.is_none() {
        bail!("--profile-out writes the profile made by --at NAME=VALUE or --distribute/--procs");
    }
    let mut programs = vec![];
    for p in &a.profiles {
        let mut profile = match first.take() {
            Some(read) => read,
            None => ProgramProfile::read(p)?,
        };
        if let Some(at) = &a.at {
            profile = crate::scale::profile_at_size(&profile, p, at, at.from)?;
            if let Some(out) = &a.profile_out {
                let json = serde_json::to_string_pretty(&profile)?;
                crate::cli::write_atomically(out, json.as_bytes())?;
            }
            eprintln!(
                "augur: {} at {}={}: {}",
                p.display(),
                at.symbol,
                at.from,
                crate::scale::models_line(&profile)
            );
        }
        let mut warnings = source_warnings(&profile, p);
        let preds: Vec<Prediction> = machines
            .iter()
            .map(|m| m.predict(&profile, options))
            .collect();
        if let Some(r) = &a.region {
            if !profile.regions.iter().any(|x| &x.name == r) {
                let names: Vec<&str> = profile.regions.iter().map(|x| x.name.as_str()).collect();
                bail!(
                    "{}: no region `{r}` (regions: {}); mark one with `!augur region {r}` ... `!augur end region` and re-run `augur analyze`",
                    p.display(),
                    if names.is_empty() { "none".to_string() } else { names.join(", ") }
                );
            }
        }
        // A partial profile's note is in the model's warning already.
        warnings.extend(
            profile
                .notes
                .iter()
                .filter(|n| {
                    !(profile.partial && n.starts_with(augur_program_profile::PARTIAL_NOTE))
                })
                .map(|n| format!("{}: note: {n}", p.display())),
        );
        if let Some(out) = &a.report {
            let none = crate::report::Extras::default();
            write_report(p, &profile, &machines, &preds, &warnings, &none, out)?;
        }
        programs.push((p.clone(), profile, preds, warnings));
    }
    let weight = |i: usize| a.weights.get(i).copied().unwrap_or(1.0);
    let workload: Vec<Estimate> = (0..machines.len())
        .map(|mi| {
            programs
                .iter()
                .enumerate()
                .fold(Estimate::default(), |acc, (pi, (_, _, preds, _))| {
                    preds[mi].total.add_weighted(&acc, weight(pi))
                })
        })
        .collect();

    let speedup = (programs.len() == 1 && machines.len() > 1 && a.by.contains(&By::Loop))
        .then(|| augur_model::speedup::explain(&programs[0].1, &machines, options, a.top));
    if a.json {
        let doc = PredictionJson {
            schema: 1,
            kind: "augur-prediction",
            machines: machines
                .iter()
                .map(|m| MachineJson {
                    name: &m.name,
                    path: m.path.display().to_string(),
                    cpu: &m.profile.provenance.cpu_model,
                    compiler: &m.profile.provenance.compiler,
                    fflags: &m.profile.provenance.fflags,
                })
                .collect(),
            programs: programs
                .iter()
                .enumerate()
                .map(|(i, (p, profile, preds, w))| {
                    let mut warnings = w.clone();
                    for pr in preds {
                        warnings.extend(pr.warnings.iter().cloned());
                    }
                    ProgramJson {
                        profile: p.display().to_string(),
                        weight: weight(i),
                        warnings,
                        subnormal_flags: profile.run.fp_flags.clone().unwrap_or_default(),
                        predictions: preds.iter().collect(),
                    }
                })
                .collect(),
            workload,
            speedup,
        };
        println!("{}", serde_json::to_string_pretty(&doc)?);
        return Ok(ExitCode::SUCCESS);
    }

    let mut out = String::new();
    let single = programs.len() == 1 && machines.len() == 1;
    if !single {
        out.push_str(&workload_table(&machines, &programs, &workload, &weight));
    }
    // With the per-loop explanation, the loop table is its, the other breakdowns stay
    // per machine.
    let by: Vec<By> = match &speedup {
        Some(_) => a.by.iter().copied().filter(|b| *b != By::Loop).collect(),
        None => a.by.clone(),
    };
    for (p, profile, preds, warnings) in &programs {
        for w in warnings {
            eprintln!("augur: warning: {w}");
        }
        for (m, pred) in machines.iter().zip(preds) {
            for w in &pred.warnings {
                eprintln!("augur: warning: {} on {}: {w}", p.display(), m.name);
            }
            if single || !by.is_empty() || a.region.is_some() {
                out.push_str(&report_by(p, profile, m, pred, a, &by));
            }
        }
    }
    if let Some(e) = &speedup {
        out.push_str(&crate::speedup::explanation_text(&programs[0].0, e));
    }
    print!("{out}");
    Ok(ExitCode::SUCCESS)
}

/// The prediction `a` asks for beside the sequential one of its profile, if any: a size
/// sweep (`--at NAME=FROM..TO`), a distribution (`--distribute`, `--procs`), rank counts
/// (`--mpi-ranks`) or thread counts (`--threads`); each of one profile.
fn beside_sequential(
    a: &PredictArgs,
    machines: &[LoadedMachine],
    options: PredictOptions,
) -> Result<Option<crate::report::Beside>> {
    let draw = a.report.is_some();
    let profile = a.profiles.first().filter(|_| a.profiles.len() == 1);
    if let Some(at) = a.at.as_ref().filter(|at| at.to.is_some()) {
        let Some(profile) = profile else {
            bail!(
                "--at {}=FROM..TO sweeps one profile; give exactly one",
                at.symbol
            );
        };
        let args = crate::scale::SweepArgs {
            at,
            plot: a.plot.as_deref(),
            measured: &a.measured,
            json: a.json,
            draw,
        };
        return crate::scale::sweep(profile, machines, options, &args).map(Some);
    }
    if let Some(mpi) = &a.mpi {
        let (Some(profile), [machine]) = (profile, machines) else {
            match a.distribution {
                Some(_) => {
                    bail!("--distribute predicts one sequential program profile on one machine")
                }
                None => bail!("--mpi-ranks predicts one MPI program profile on one machine"),
            }
        };
        let out = crate::simgrid::Outputs {
            gantt: a.gantt.as_deref(),
            plot: a.plot.as_deref(),
            json: a.json,
            draw,
        };
        let Some(d) = &a.distribution else {
            return crate::simgrid::predict(profile, machine, options, mpi, &out).map(Some);
        };
        let how = crate::distribution::How {
            out,
            profile_out: a.profile_out.as_deref(),
        };
        return crate::distribution::run(profile, machine, options, d, mpi, &how).map(Some);
    }
    if a.threads.is_empty() {
        return Ok(None);
    }
    let Some(profile) = profile else {
        bail!("--threads predicts one OpenMP program profile; give exactly one");
    };
    let args = crate::threads::ThreadArgs {
        threads: &a.threads,
        plot: a.plot.as_deref(),
        gantt: a.gantt.as_deref(),
        json: a.json,
        draw,
    };
    crate::threads::run(profile, machines, options, &args).map(Some)
}

type ProgramEntry = (PathBuf, ProgramProfile, Vec<Prediction>, Vec<String>);

/// What widens an interval beyond a typical program's, and how to narrow it: "the
/// machine's parameters widen it: ARR2's cost (not detected) makes 70% of their
/// uncertainty; measure it again with `augur characterize --only ARR2 -o m.toml`".
pub(crate) fn widest_text(w: &augur_model::interval::WidestParameter, machine: &Path) -> String {
    use augur_model::cost::CostStatus;
    let how = match w.status {
        CostStatus::Measured => "measured",
        CostStatus::NotDetected if w.context != "chain" => {
            "not told apart from zero by the loop kernels"
        }
        CostStatus::NotDetected => "not detected: below the machine's noise",
        CostStatus::Missing => "not measured",
        CostStatus::Scaled => "scaled from its chain cost",
    };
    let op = w.abop.mnemonic();
    let path = std::fs::canonicalize(machine).unwrap_or_else(|_| machine.to_path_buf());
    let (cost, remedy) = match w.context {
        "chain" => (
            "cost".to_string(),
            crate::cli::measure_advice(&path, |f| format!("augur characterize --only {op} -o {f}")),
        ),
        context => (
            format!(
                "cost in loops the compiler {}",
                if context == "vector" {
                    "vectorized"
                } else {
                    "did not vectorize"
                }
            ),
            crate::cli::measure_advice(&path, |f| format!("augur stream --machine {f}")),
        ),
    };
    format!(
        "the machine's parameters widen it beyond a typical program's: {op}'s {cost} ({how}) makes {:.0}% of their uncertainty; to narrow it, {remedy}",
        100.0 * w.share
    )
}

/// The library profile measured on this host's CPU (family, model, caches) with the
/// compiler and flags of the first program profile's counting run, said on stderr; an
/// error naming the choices when there is none.
fn host_machine(first: Option<&ProgramProfile>) -> Result<String> {
    match first.map(|p| &p.run) {
        Some(r) => host_machine_for(&r.compiler, &r.fflags),
        None => host_machine_for("gfortran", &["-O2".to_string()]),
    }
}

/// The machines of `a` and, for a sequential prediction (or when the machine is the
/// library's profile for the first program's compiler and flags), its first program
/// profile, read while the machines load: a large profile and a machine profile take
/// about as long to read (bookleaf's 6.9 MB profile 214 million instructions, a machine's
/// TOML 71 million).
fn machines_and_first_profile(
    a: &PredictArgs,
) -> Result<(Vec<LoadedMachine>, Option<ProgramProfile>)> {
    let read_first = || {
        a.profiles
            .first()
            .map(|p| ProgramProfile::read(p))
            .transpose()
    };
    if a.machines.is_empty() {
        let first = read_first()?;
        let machine = LoadedMachine::load(&host_machine(first.as_ref())?)?;
        return Ok((vec![machine], first));
    }
    let load = || {
        a.machines
            .iter()
            .map(|m| LoadedMachine::load(m))
            .collect::<Result<Vec<_>, _>>()
    };
    let sequential = a.threads.is_empty()
        && a.mpi.is_none()
        && a.distribution.is_none()
        && !a.at.as_ref().is_some_and(|at| at.to.is_some());
    if !sequential {
        return Ok((load()?, None));
    }
    std::thread::scope(|s| {
        let reading = s.spawn(read_first);
        let machines = load();
        let first = reading
            .join()
            .map_err(|_| anyhow::anyhow!("reading {} failed", a.profiles[0].display()))?;
        Ok((machines?, first?))
    })
}

/// The library profile measured on this host's CPU with `compiler` and the code-generation
/// flags of `fflags`, said on stderr; an error naming the closest choices when there is
/// none. OpenMP's `-fopenmp` makes no other machine (the profile's `[openmp]` section
/// prices the threads), nor does an MPI compiler wrapper (Open MPI's `mpif90` is the
/// compiler it wraps, by `--showme:command`).
pub(crate) fn host_machine_for(compiler: &str, fflags: &[String]) -> Result<String> {
    let host = augur_toolchain::os::host_provenance();
    let sequential = |flags: &[String]| -> Vec<String> {
        augur_machine_profile::flags::code_generation(flags)
            .into_iter()
            .filter(|f| !augur_program::openmp::flag_enables_openmp(f))
            .map(str::to_string)
            .collect()
    };
    let wanted = (
        augur_toolchain::underlying_compiler(compiler),
        sequential(fflags),
    );
    let found = library::list().into_iter().find(|(_, path)| {
        MachineProfile::read(path).is_ok_and(|m| {
            let p = &m.provenance;
            let flags: Vec<String> = p.fflags.split_whitespace().map(str::to_string).collect();
            p.same_cpu(&host)
                && (
                    augur_toolchain::underlying_compiler(&p.compiler),
                    sequential(&flags),
                ) == wanted
        })
    });
    match found {
        Some((name, _)) => {
            eprintln!(
                "augur: no --machine given: {name} (measured on this host's CPU with {} {})",
                wanted.0,
                wanted.1.join(" ")
            );
            Ok(name)
        }
        None => {
            let on_host: Vec<String> = library::list()
                .into_iter()
                .filter(|(_, path)| {
                    MachineProfile::read(path).is_ok_and(|m| m.provenance.same_cpu(&host))
                })
                .map(|(n, _)| n)
                .collect();
            bail!(
                "give a machine with --machine NAME|FILE.toml: no library profile was measured on this host's CPU with {} {} (`augur characterize -o my-machine.toml` makes one{})",
                wanted.0,
                wanted.1.join(" "),
                if on_host.is_empty() {
                    "; `augur machines` lists the library".to_string()
                } else {
                    format!("; measured on this host's CPU: {}", on_host.join(", "))
                }
            );
        }
    }
}

/// Runs `augur report`: the HTML page of `profile` predicted on `machines`.
pub fn report_page(
    profile: &Path,
    machines: &[String],
    options: PredictOptions,
    output: &Path,
) -> Result<ExitCode> {
    let machines = if machines.is_empty() {
        vec![host_machine(Some(&ProgramProfile::read(profile)?))?]
    } else {
        machines.to_vec()
    };
    let machines = machines
        .iter()
        .map(|m| LoadedMachine::load(m))
        .collect::<Result<Vec<_>, _>>()?;
    page_of(
        profile,
        &machines,
        options,
        &crate::report::Extras::default(),
        output,
    )?;
    Ok(ExitCode::SUCCESS)
}

/// Writes the report of `profile` read from its file: its sequential prediction on
/// `machines` (the breakdowns by loop, line and AbOp) with `extras` (a parallel
/// prediction's section after the predicted time).
fn page_of(
    profile: &Path,
    machines: &[LoadedMachine],
    options: PredictOptions,
    extras: &crate::report::Extras,
    page: &Path,
) -> Result<()> {
    let program = ProgramProfile::read(profile)?;
    let mut warnings = source_warnings(&program, profile);
    warnings.extend(program.notes.iter().map(|n| format!("note: {n}")));
    let preds: Vec<Prediction> = machines
        .iter()
        .map(|m| m.predict(&program, options))
        .collect();
    write_report(profile, &program, machines, &preds, &warnings, extras, page)
}

/// Counts as `1, 2, 4 and 8`.
pub(crate) fn list_counts(counts: &[u32]) -> String {
    let s: Vec<String> = counts.iter().map(u32::to_string).collect();
    match s.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} and {last}", rest.join(", ")),
        _ => s.join(""),
    }
}

/// Writes the HTML report of one program's predictions (atomically), with its measured
/// time when validated, and says where.
pub(crate) fn write_report(
    path: &Path,
    profile: &ProgramProfile,
    machines: &[LoadedMachine],
    predictions: &[Prediction],
    warnings: &[String],
    extras: &crate::report::Extras,
    output: &Path,
) -> Result<()> {
    let page = crate::report::html(&crate::report::ReportInput {
        profile_path: path,
        profile,
        machines,
        predictions,
        warnings,
        extras,
    });
    crate::cli::write_atomically(output, page.as_bytes())?;
    eprintln!(
        "augur: report written to {} (open it in a browser)",
        output.display()
    );
    Ok(())
}

fn workload_table(
    machines: &[LoadedMachine],
    programs: &[ProgramEntry],
    workload: &[Estimate],
    weight: &dyn Fn(usize) -> f64,
) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "augur workload prediction: {} program(s) on {} machine(s), seconds (×F: the 90% interval is F times smaller to F times larger, as each prediction's)",
        programs.len(),
        machines.len()
    );
    let w = machines
        .iter()
        .map(|m| m.name.chars().count())
        .max()
        .unwrap_or(0)
        .max(20);
    let _ = write!(s, "{:<28} {:>6}", "program", "weight");
    for m in machines {
        let _ = write!(s, " {:>w$}", m.name);
    }
    s.push('\n');
    for (i, (p, _, preds, _)) in programs.iter().enumerate() {
        let name = p.file_name().map(|f| f.to_string_lossy().to_string());
        let _ = write!(
            s,
            "{:<28} {:>6}",
            truncate(&name.unwrap_or_default(), 28),
            fmt_num(weight(i))
        );
        for pr in preds {
            let _ = write!(s, " {:>w$}", fmt_interval(pr.total.seconds, &pr.interval));
        }
        s.push('\n');
    }
    let _ = write!(s, "{:<28} {:>6}", "workload Σ weight·time", "");
    for (k, e) in workload.iter().enumerate() {
        // The programs' model errors, weighed by their share of the workload.
        let (mut sd, mut total) = (0.0, 0.0);
        for (i, (_, _, preds, _)) in programs.iter().enumerate() {
            if let Some(pr) = preds.get(k) {
                let t = weight(i) * pr.total.seconds;
                sd += t * pr.interval.model_log_sd;
                total += t;
            }
        }
        let sd = if total > 0.0 { sd / total } else { 0.0 };
        let interval = augur_model::Interval::new(e, sd);
        let _ = write!(s, " {:>w$}", fmt_interval(e.seconds, &interval));
    }
    s.push('\n');
    if machines.len() > 1 && workload[0].seconds > 0.0 {
        let _ = write!(s, "{:<35}", "relative to the first machine");
        for e in workload {
            let _ = write!(
                s,
                " {:>w$}",
                format!("{:.3}", e.seconds / workload[0].seconds)
            );
        }
        s.push('\n');
    }
    s.push('\n');
    s
}

/// `1.323 s ×1.81`: a time with the factor its 90% interval spans either way.
fn fmt_interval(seconds: f64, i: &augur_model::Interval) -> String {
    if i.factor() > 1.0 {
        format!("{} ×{:.2}", fmt_seconds(seconds), i.factor())
    } else {
        fmt_seconds(seconds)
    }
}

pub(crate) fn truncate(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        s.to_string()
    } else {
        let t: String = s.chars().take(n.saturating_sub(1)).collect();
        format!("{t}…")
    }
}

fn fmt_num(x: f64) -> String {
    if x == x.trunc() && x.abs() < 1e6 {
        format!("{x:.0}")
    } else {
        format!("{x:.3}")
    }
}

/// A 90% interval with its ends: `LOW .. HIGH ×F`, F the factor either way
/// (the side-by-side table's `×F` with its ends).
pub fn fmt_interval_ends(low: f64, high: f64) -> String {
    let factor = if low > 0.0 && high > 0.0 {
        (high / low).sqrt()
    } else {
        f64::NAN
    };
    if factor.is_finite() {
        format!("{} .. {} ×{factor:.2}", fmt_seconds(low), fmt_seconds(high))
    } else {
        format!("{} .. {}", fmt_seconds(low), fmt_seconds(high))
    }
}

/// Seconds with 4 significant digits and a unit that fits.
pub fn fmt_seconds(s: f64) -> String {
    let a = s.abs();
    if a >= 1.0 || a == 0.0 {
        format!("{s:.3} s")
    } else if a >= 1e-3 {
        format!("{:.3} ms", s * 1e3)
    } else if a >= 1e-6 {
        format!("{:.3} us", s * 1e6)
    } else {
        format!("{:.3} ns", s * 1e9)
    }
}

/// The full text report of one program on one machine.
pub fn report(
    path: &Path,
    profile: &ProgramProfile,
    m: &LoadedMachine,
    pred: &Prediction,
    a: &PredictArgs,
) -> String {
    report_by(path, profile, m, pred, a, &a.by)
}

/// [`report`] with these breakdowns (empty: the default ones).
fn report_by(
    path: &Path,
    profile: &ProgramProfile,
    m: &LoadedMachine,
    pred: &Prediction,
    a: &PredictArgs,
    by: &[By],
) -> String {
    let mut s = String::new();
    let prov = &m.profile.provenance;
    let _ = writeln!(
        s,
        "augur prediction: {} on {} ({}, {})",
        path.display(),
        m.name,
        m.setup(),
        if prov.cpu_model.is_empty() {
            "unknown CPU"
        } else {
            &prov.cpu_model
        }
    );
    let i = &pred.interval;
    let kind = if i.irregular_share > 0.0 {
        format!(
            " of this kind ({:.0}% of the time in calls and mispredicted branches, which it knows less well)",
            100.0 * i.irregular_share
        )
    } else {
        String::new()
    };
    let contested = if (augur_model::cost::Z90 * i.contested_log_sd).exp() >= 1.005 {
        format!(
            ", the last cache level other guests share ({:+.0}% with half of it)",
            100.0 * ((augur_model::cost::Z90 * i.contested_log_sd).exp() - 1.0)
        )
    } else {
        String::new()
    };
    let _ = writeln!(
        s,
        "predicted time {}   90% interval {} .. {} (a factor of {:.2} either way: the model's error on real programs{kind}{contested} and the machine parameters' uncertainty)",
        fmt_seconds(pred.total.seconds),
        fmt_seconds(i.low),
        fmt_seconds(i.high),
        i.factor()
    );
    if let Some(w) = &pred.widest_parameter {
        let _ = writeln!(s, "  {}", widest_text(w, &m.path));
    }
    let _ = writeln!(
        s,
        "{:.4e} abstract operations; counted with {} {} (run {:.2} s instrumented)",
        pred.operations,
        profile.run.compiler,
        profile.run.fflags.join(" "),
        profile.run.wall_seconds
    );
    if !pred.memory.is_empty() {
        let _ = writeln!(
            s,
            "memory hierarchy: {} added to the operation time ({} loop nest(s) analyzed; each line at the rate its level delivers, overlap {:?})",
            fmt_seconds(pred.memory_seconds),
            pred.memory.len(),
            pred.overlap
        );
    }
    if pred.first_touch_seconds > 0.0 {
        let _ = writeln!(
            s,
            "first touches: {:.0} pages mapped by the operating system (page faults), {} added",
            pred.first_touch_pages,
            fmt_seconds(pred.first_touch_seconds)
        );
    }
    if pred.process_start_seconds > 0.0 {
        let _ = writeln!(
            s,
            "process start and exit: {} added (the loader, the run-time libraries' start and the exit: the machine's run of a program that only prints a number)",
            fmt_seconds(pred.process_start_seconds)
        );
    }
    if pred.mispredictions > 0.0 && pred.branches_simulated {
        let _ = writeln!(
            s,
            "branches: {:.3e} mispredictions (simulated from the branch run's outcomes), {} at this machine's costs, included in the total",
            pred.mispredictions,
            fmt_seconds(pred.branch_seconds),
        );
    } else if pred.mispredictions > 0.0 {
        let _ = writeln!(
            s,
            "branches: at most {:.3e} mispredictions (every data-dependent branch unpredictable; the profile has no branch run), {} at this machine's costs: {}",
            pred.mispredictions,
            fmt_seconds(pred.branch_seconds),
            if pred.branches_priced {
                "included in the total (--branches)"
            } else {
                "not in the total (patterned branches are predicted; --branches adds it)"
            }
        );
    }
    if let Some(line) = subnormals_said(&profile.run, m.profile.incore.as_ref()) {
        let _ = writeln!(s, "{line}");
    }
    if let Some(r) = &a.region {
        if let Some(row) = pred.regions.iter().find(|x| &x.name == r) {
            let i = augur_model::Interval::new(&row.estimate, pred.interval.model_log_sd);
            let (lo, hi) = (i.low, i.high);
            let _ = writeln!(
                s,
                "region {r} ({}:{}-{}): {}   90% interval {} .. {}   {:.1}% of the program",
                row.file,
                row.first_line,
                row.last_line,
                fmt_seconds(row.estimate.seconds),
                fmt_seconds(lo),
                fmt_seconds(hi),
                100.0 * row.time_share
            );
        } else {
            let _ = writeln!(s, "region {r}: executed no operations");
        }
        if by.is_empty() {
            return s;
        }
    }
    let regions_asked = by.contains(&By::Region);
    let by: Vec<By> = if !by.is_empty() {
        by.to_vec()
    } else {
        vec![By::Abop, By::Procedure, By::Loop, By::Line, By::Region]
    };
    for b in by {
        match b {
            By::Abop => s.push_str(&abop_table(pred, a.top)),
            By::Procedure => {
                s.push_str(&part_table(
                    "procedures (own blocks)",
                    &pred.procedures,
                    a.top,
                ));
                s.push_str(&bodies_table(pred, a.top));
            }
            By::Loop => {
                s.push_str(&part_table(
                    "loops (nested loops included)",
                    &pred.loops,
                    a.top,
                ));
                s.push_str(&compiled_table(pred, a.top));
                s.push_str(&risk_table(&pred.risks));
            }
            By::Line => s.push_str(&part_table("lines", &pred.lines, a.top)),
            By::Block => s.push_str(&part_table("basic blocks", &pred.blocks, a.top)),
            By::Region => {
                if !pred.regions.is_empty() || regions_asked {
                    s.push_str(&part_table("regions", &pred.regions, a.top))
                }
            }
        }
    }
    if !pred.memory.is_empty() {
        s.push_str(&memory_table(pred, a.top));
    }
    if !pred.uncosted.is_empty() {
        let _ = writeln!(
            s,
            "\nwithout a cost on this machine (counted as 0): {}",
            pred.uncosted
                .iter()
                .map(|u| format!("{} x{:.3e} ({})", u.abop, u.executions, u.machine_status))
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    s
}

fn memory_table(pred: &Prediction, top: usize) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "\nmemory hierarchy by loop nest (largest memory time first):"
    );
    let _ = writeln!(
        s,
        "  {:<34} {:<18} {:>11} {:>11} {:>11}  misses per level (+ dirty lines written back)",
        "nest", "where", "operations", "memory", "combined"
    );
    for r in pred.memory.iter().take(top) {
        let levels = levels_text(&r.levels);
        let _ = writeln!(
            s,
            "  {:<34} {:<18} {:>11} {:>11} {:>11}  {}",
            truncate(&format!("{} [{}]", r.name, r.kind), 34),
            truncate(&format!("{}:{}", short_path(&r.file), r.line), 18),
            fmt_seconds(r.operations_seconds),
            fmt_seconds(r.memory_seconds),
            fmt_seconds(r.combined_seconds),
            levels
        );
        // Per array (or sampled reference), largest memory time first.
        let mut arrays: Vec<_> = r.arrays.iter().collect();
        let secs = |a: &augur_model::memory::ArrayTraffic| -> f64 {
            a.levels.iter().map(|l| l.seconds).sum()
        };
        arrays.sort_by(|a, b| secs(b).total_cmp(&secs(a)));
        for a in arrays.iter().take(4).filter(|a| secs(a) > 0.0) {
            let levels = levels_text(&a.levels);
            let _ = writeln!(
                s,
                "    {:<32} {:<18} {:>11} {:>11} {:>11}  {}",
                truncate(&format!("{} ({})", a.name, a.kind), 32),
                truncate(&format!("line {}", a.line), 18),
                "",
                fmt_seconds(secs(a)),
                "",
                levels
            );
        }
    }
    s
}

/// `L1d 1.000e6, L2 ... (+2.0e5 written back)`: misses per level, with the dirty lines
/// written back when there are any.
pub(crate) fn levels_text(levels: &[augur_model::memory::LevelTraffic]) -> String {
    levels
        .iter()
        .map(|l| {
            if l.writebacks >= 0.5 {
                format!("{} {:.3e} (+{:.1e})", l.level, l.misses, l.writebacks)
            } else {
                format!("{} {:.3e}", l.level, l.misses)
            }
        })
        .collect::<Vec<_>>()
        .join(", ")
}

fn abop_table(pred: &Prediction, top: usize) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "\nby abstract operation (largest time first):");
    let _ = writeln!(
        s,
        "  {:<5} {:>13} {:>7} {:>9} {:>12} {:>7}  meaning",
        "AbOp", "executions", "% ops", "ns/op", "time", "% time"
    );
    let shown = pred.abops.len().min(top);
    for r in &pred.abops[..shown] {
        let cost = match r.status {
            CostStatus::Measured => format!("{:.3}", r.cost_ns),
            CostStatus::NotDetected => "n.d.".to_string(),
            CostStatus::Missing => "missing".to_string(),
            CostStatus::Scaled => format!("{:.3}~", r.cost_ns),
        };
        let _ = writeln!(
            s,
            "  {:<5} {:>13.4e} {:>7.2} {:>9} {:>12} {:>7.2}  {}",
            r.abop.mnemonic(),
            r.executions,
            100.0 * r.operation_share,
            cost,
            fmt_seconds(r.seconds),
            100.0 * r.time_share,
            r.meaning
        );
    }
    if pred.abops[..shown]
        .iter()
        .any(|r| r.status == CostStatus::Scaled)
    {
        let _ = writeln!(
            s,
            "  (~: in loops, a chain cost scaled by its family's stream/chain ratio: the loop kernels did not measure it)"
        );
    }
    if pred.abops.len() > shown {
        let rest_t: f64 = pred.abops[shown..].iter().map(|r| r.time_share).sum();
        let rest_o: f64 = pred.abops[shown..].iter().map(|r| r.operation_share).sum();
        let _ = writeln!(
            s,
            "  ({} more AbOps: {:.2}% of operations, {:.2}% of time; --top N shows more)",
            pred.abops.len() - shown,
            100.0 * rest_o,
            100.0 * rest_t
        );
    }
    s
}

/// What the compiler emitted for the straight-line procedures shown, where their calls
/// are priced from it.
fn bodies_table(pred: &Prediction, top: usize) -> String {
    let notes: Vec<String> = pred
        .procedures
        .iter()
        .take(top)
        .filter_map(|r| {
            pred.compiled.iter().find(|c| {
                c.file == r.file
                    && (r.first_line..=r.last_line).contains(&c.line)
                    && c.text.starts_with(augur_model::predict::BODY_NOTE)
            })
        })
        .map(|c| {
            format!(
                "  {:<22} {}",
                truncate(&format!("{}:{}", short_path(&c.file), c.line), 22),
                c.text
            )
        })
        .collect();
    if notes.is_empty() {
        return String::new();
    }
    format!(
        "\nwhat the compiler emitted for these procedures (their assembly, read where a procedure has no loop, jump or call):\n{}\n",
        notes.join("\n")
    )
}

/// What the compiler did to the loops shown, read from its assembly.
fn compiled_table(pred: &Prediction, top: usize) -> String {
    let mut s = String::new();
    let shown: Vec<&augur_model::predict::CompiledNote> = pred
        .loops
        .iter()
        .take(top)
        .flat_map(|r| {
            pred.compiled.iter().filter(move |c| {
                c.file == r.file && r.first_line <= c.line && c.line <= r.last_line
            })
        })
        .collect();
    let mut seen = std::collections::BTreeSet::new();
    let shown: Vec<_> = shown
        .into_iter()
        .filter(|c| seen.insert((c.file.clone(), c.line)))
        .collect();
    if shown.is_empty() {
        return s;
    }
    let _ = writeln!(
        s,
        "
what the compiler did to these loops (its assembly: innermost loops, and the loops around them replayed whole: priced so without optimization, shown for comparison with it):"
    );
    for c in shown {
        let _ = writeln!(
            s,
            "  {:<22} {}",
            truncate(&format!("{}:{}", short_path(&c.file), c.line), 22),
            c.text
        );
    }
    s
}

fn part_table(title: &str, rows: &[PartRow], top: usize) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "\nby {title}:");
    if rows.is_empty() {
        let _ = writeln!(s, "  (none)");
        return s;
    }
    let _ = writeln!(
        s,
        "  {:<34} {:<22} {:>12} {:>7} {:>11} {:>9}  top AbOp",
        "what", "where", "time", "% time", "operations", "count"
    );
    for r in rows.iter().take(top) {
        let place = if r.first_line == r.last_line {
            format!("{}:{}", short_path(&r.file), r.first_line)
        } else {
            format!("{}:{}-{}", short_path(&r.file), r.first_line, r.last_line)
        };
        let count = match (r.executions, r.mean_trips) {
            (Some(e), Some(t)) => format!("{}x{:.0}", compact(e), t),
            (Some(e), None) => compact(e),
            _ => String::new(),
        };
        let top_op = r
            .top_abop
            .map(|(op, sh)| format!("{} {:.0}%", op.mnemonic(), 100.0 * sh))
            .unwrap_or_default();
        let _ = writeln!(
            s,
            "  {:<34} {:<22} {:>12} {:>7.2} {:>11.3e} {:>9}  {}",
            truncate(&r.name, 34),
            truncate(&place, 22),
            fmt_seconds(r.estimate.seconds),
            100.0 * r.time_share,
            r.operations,
            count,
            top_op
        );
    }
    if rows.len() > top {
        let _ = writeln!(s, "  ({} more; --top N shows more)", rows.len() - top);
    }
    s
}

/// A line saying the counting run's arithmetic met subnormal numbers, which no AbOp
/// prices, what one costs on the machine when its profile measured it (`incore`), and
/// what removes them; `None` when the run did not meet any (or the profile cannot say).
fn subnormals_said(
    run: &augur_program_profile::RunEntry,
    incore: Option<&augur_machine_profile::incore::InCoreProfile>,
) -> Option<String> {
    if !run.met_subnormals() {
        return None;
    }
    let names = run.fp_flags.as_deref().unwrap_or_default();
    let flags = match names.len() {
        1 => format!("{} flag was", names[0]),
        _ => format!("{} flags were", names.join(" and ")),
    };
    let said = format!(
        "subnormal numbers: the counting run's arithmetic met at least one (the processor's {flags} set at its end)"
    );
    let measured = incore
        .and_then(|c| c.subnormal_ns.map(|x| (x, x / c.cycle_ns)))
        .filter(|(_, cycles)| cycles.is_finite());
    Some(match measured {
        Some((_, cycles)) if cycles < CHEAP_SUBNORMAL_CYCLES => format!(
            "{said}; this machine takes them at about a normal number's speed (a multiply {cycles:.0} cycles more)"
        ),
        Some((x, cycles)) => format!(
            "{said}; on this machine a multiply on one takes {} more than on a normal number ({cycles:.0} cycles), {SUBNORMAL_ADVICE}",
            fmt_seconds(x * 1e-9)
        ),
        None => format!(
            "{said}; on Intel cores an operation on one can take a hundred cycles or more (a microcode assist), {SUBNORMAL_ADVICE}"
        ),
    })
}

/// Below this many extra cycles a multiply on a subnormal number is no cause for a
/// slower run.
const CHEAP_SUBNORMAL_CYCLES: f64 = 5.0;

/// What [`subnormals_said`] adds where subnormal numbers are dear.
const SUBNORMAL_ADVICE: &str =
    "which the prediction leaves out: a program that makes many runs slower than predicted \
     (flushing them to zero, as `-ffast-math` does, removes the cost)";

/// The risk flags under the loop table: each loop an optimization augur does not model
/// is likely to change, and why.
fn risk_table(risks: &augur_model::risks::Risks) -> String {
    let mut s = String::new();
    if risks.flags.is_empty() && risks.note.is_none() {
        return s;
    }
    let _ = writeln!(
        s,
        "\nrisk flags (loops an optimization augur does not model may change):"
    );
    if risks.flags.is_empty() {
        let _ = writeln!(s, "  (none found)");
    }
    for f in &risks.flags {
        let _ = writeln!(
            s,
            "  {} {}:{}  {}: {}",
            f.loop_name,
            short_path(&f.file),
            f.line,
            f.optimization,
            f.reason
        );
    }
    if let Some(n) = &risks.note {
        let _ = writeln!(s, "  ({n})");
    }
    s
}

pub(crate) fn short_path(p: &str) -> String {
    Path::new(p)
        .file_name()
        .map(|f| f.to_string_lossy().to_string())
        .unwrap_or_else(|| p.to_string())
}

fn compact(x: f64) -> String {
    if x < 1e5 {
        format!("{x:.0}")
    } else {
        format!("{x:.2e}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn subnormal_numbers_are_said_only_when_the_counting_run_met_them() {
        let run = |flags: Option<Vec<&str>>| augur_program_profile::RunEntry {
            fp_flags: flags.map(|f| f.into_iter().map(str::to_string).collect()),
            ..Default::default()
        };
        assert_eq!(subnormals_said(&run(None), None), None);
        assert_eq!(subnormals_said(&run(Some(vec![])), None), None);
        let one = subnormals_said(&run(Some(vec!["denormal"])), None).unwrap();
        assert!(one.contains("denormal flag was set"), "{one}");
        assert!(one.contains("on Intel cores"), "{one}");
        let measured = augur_machine_profile::incore::InCoreProfile {
            cycle_ns: 0.25,
            subnormal_ns: Some(37.5),
            ..Default::default()
        };
        let two =
            subnormals_said(&run(Some(vec!["denormal", "underflow"])), Some(&measured)).unwrap();
        assert!(
            two.contains("denormal and underflow flags were set"),
            "{two}"
        );
        assert!(
            two.contains("37.500 ns more than on a normal number (150 cycles)"),
            "{two}"
        );
        assert!(two.contains("-ffast-math"), "{two}");
        let cheap = augur_machine_profile::incore::InCoreProfile {
            cycle_ns: 0.25,
            subnormal_ns: Some(0.5),
            ..Default::default()
        };
        let zen = subnormals_said(&run(Some(vec!["denormal"])), Some(&cheap)).unwrap();
        assert!(
            zen.contains("at about a normal number's speed (a multiply 2 cycles more)"),
            "{zen}"
        );
        assert!(!zen.contains("slower than predicted"), "{zen}");
    }

    #[test]
    fn an_interval_reads_the_same_in_every_view() {
        assert_eq!(
            fmt_interval_ends(0.1, 0.4),
            "100.000 ms .. 400.000 ms ×2.00"
        );
        assert_eq!(fmt_interval_ends(0.0, 0.4), "0.000 s .. 400.000 ms");
    }
}
