//! One program validated on one machine: analyze it (the counting run), predict it, build
//! it normally with the machine's compiler and flags and time it, and the relative error.
//! `augur validate` shows one such validation; the accuracy benchmark runs one per corpus
//! program.

use anyhow::Result;
use augur_model::{Estimate, LoadedMachine, Prediction};
use augur_program::analyze::failed_run_message;
use augur_program::scaling::ScaleSpec;
use augur_program::{AnalyzeError, AnalyzeOptions, ProgramProfile};
use augur_toolchain::{BuildInput, RunSpec};
use augur_validate::{relative_error, setup_differences, time_program, Timing};
use serde::Serialize;
use std::path::PathBuf;

/// The result of validating one program on one machine.
#[derive(Debug, Serialize, schemars::JsonSchema)]
pub struct Validation {
    /// The program (its first source file).
    pub program: String,
    /// The machine's name.
    pub machine: String,
    /// Compiler and flags of the timed build.
    pub build: String,
    /// How the timed build differs from the machine profile's (empty when it agrees).
    pub setup_differences: Vec<String>,
    /// Predicted time.
    pub predicted: Estimate,
    /// Measured CPU times (user + system) of the normal build.
    pub measured: Timing,
    /// Their wall-clock times.
    pub measured_wall: Timing,
    /// `(predicted - measured) / measured` of the median.
    pub error: f64,
    /// Warnings (uncosted AbOps, differing output...).
    pub warnings: Vec<String>,
    /// The full prediction.
    pub prediction: Prediction,
    /// Where the time went, measured by sampling, beside the prediction (when asked for
    /// and `perf` ran).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub measured_parts: Option<MeasuredParts>,
    /// The program profile (not in JSON output; written with -o).
    #[serde(skip)]
    pub profile: ProgramProfile,
    /// What the last timed run printed (not in JSON output).
    #[serde(skip)]
    pub stdout: Vec<u8>,
    /// What the instrumented (counting) run printed (not in JSON output).
    #[serde(skip)]
    pub counted_stdout: Vec<u8>,
}

/// What a validation analyzes, predicts and times: every validation (one program, a size
/// never counted, thread or rank counts) takes one.
pub struct Request<'a> {
    /// The machine the prediction is for (and the timed build's compiler and flags).
    pub machine: &'a LoadedMachine,
    /// The program's sources.
    pub fortran: &'a [PathBuf],
    /// How to analyze it (and build and run it: toolchain, arguments, input).
    pub opts: &'a AnalyzeOptions,
    /// Flags the timed build adds to the machine's (preprocessing, a manifest's).
    pub extra_fflags: Vec<String>,
    /// Timed runs (the median is compared).
    pub runs: usize,
    /// How to predict.
    pub options: augur_model::PredictOptions,
    /// Also run the normal build once under `perf record` to measure where the time went
    /// ([`MeasuredParts`]).
    pub sample: bool,
}

impl Request<'_> {
    /// The counting run's analysis (a failed run's message says what to do).
    pub(crate) fn analyze(&self) -> Result<augur_program::analyze::Analysis> {
        augur_program::analyze(self.fortran, self.opts).map_err(|e| analysis_error(e, self.opts))
    }

    /// The timed build's input: the program's sources, compiled in the counting run's
    /// order, with the extra flags.
    pub(crate) fn build_input(&self, program: &augur_ir::Program) -> BuildInput {
        plain_build_input(program, self.fortran, self.opts, self.extra_fflags.clone())
    }
}

/// Analyzes, predicts and times one program.
pub fn validate_one(req: Request<'_>) -> Result<Validation> {
    let analysis = req.analyze()?;
    let counted = Counted {
        program: analysis.program,
        profile: analysis.profile,
        stdout: Some(analysis.run.stdout),
    };
    time_and_compare(req, counted)
}

/// Analyzes a program at small sizes (`augur analyze --scale`), predicts it at `x`, then
/// builds and times it at `x`: how well a size never counted is predicted.
pub fn validate_scaled(req: Request<'_>, spec: &ScaleSpec, x: i64) -> Result<Validation> {
    let analysis = augur_program::scaling::analyze_scaled(req.fortran, req.opts, spec, |v| {
        eprintln!("augur: counting run at {}={v}", spec.symbol)
    })
    .map_err(|e| analysis_error(e, req.opts))?;
    let profile = augur_program::scaling::profile_at(&analysis.profile, x)?;
    let counted = Counted {
        program: analysis.program,
        profile,
        stdout: None,
    };
    let at_x = augur_program::scaling::options_at(req.opts, spec, x);
    let flags = req
        .extra_fflags
        .iter()
        .map(|f| spec.substitute(f, x))
        .collect();
    let at_x_req = Request {
        opts: &at_x,
        extra_fflags: flags,
        ..req
    };
    time_and_compare(at_x_req, counted)
}

/// An analysis error for the user: a failed run with its output's hint.
pub(crate) fn analysis_error(e: AnalyzeError, opts: &AnalyzeOptions) -> anyhow::Error {
    match e {
        AnalyzeError::Failed { how, run } => {
            anyhow::anyhow!(failed_run_message(
                how,
                &run,
                opts.stdin.is_some(),
                !opts.threads.is_empty(),
                false
            ))
        }
        e => e.into(),
    }
}

/// What a counting run (or an extrapolation) gave: the program, its profile and, for a
/// real run, what it printed.
struct Counted {
    program: augur_ir::Program,
    profile: ProgramProfile,
    stdout: Option<Vec<u8>>,
}

/// Predicts the counted profile, builds the program normally and times it.
fn time_and_compare(req: Request<'_>, counted: Counted) -> Result<Validation> {
    let (machine, fortran, opts, runs) = (req.machine, req.fortran, req.opts, req.runs);
    let prediction = machine.predict(&counted.profile, req.options);
    let input = req.build_input(&counted.program);
    let spec = timed_run(opts, vec![]);
    let timed = time_program(&opts.toolchain, &input, &spec, runs)?;
    let mut warnings = prediction.warnings.clone();
    let measured_parts = if req.sample {
        match MeasuredParts::sample(
            &opts.toolchain,
            &input,
            &spec,
            &prediction,
            timed.timing.median,
        ) {
            Ok(parts) => Some(parts),
            Err(e) => {
                warnings.push(format!("where the time went was not measured: {e}"));
                None
            }
        }
    } else {
        None
    };
    let tc = &opts.toolchain;
    let error = relative_error(prediction.total.seconds, timed.timing.median);
    if counted.stdout.as_ref().is_some_and(|s| *s != timed.stdout) {
        warnings.push(
            "the normally built program printed something else than the instrumented one (nondeterministic output, or a difference in floating-point results); the counts may not describe the timed runs"
                .to_string(),
        );
    }
    Ok(Validation {
        program: fortran
            .first()
            .map(|p| p.display().to_string())
            .unwrap_or_default(),
        machine: machine.name.clone(),
        build: format!("{} {}", tc.fc, tc.fflags.join(" "))
            .trim()
            .to_string(),
        setup_differences: setup_differences(&machine.profile.provenance, tc),
        predicted: prediction.total,
        measured: timed.timing,
        measured_wall: timed.wall,
        error,
        warnings,
        prediction,
        measured_parts,
        profile: counted.profile,
        stdout: timed.stdout,
        counted_stdout: counted.stdout.unwrap_or_default(),
    })
}

/// The normal (uninstrumented) build of the analyzed program: its sources in compile
/// order, with the analysis's C sources, objects and link arguments.
pub(crate) fn plain_build_input(
    program: &augur_ir::Program,
    fortran: &[PathBuf],
    opts: &AnalyzeOptions,
    extra_fflags: Vec<String>,
) -> BuildInput {
    let order = augur_program::analyze::compile_order(program, fortran.len());
    BuildInput {
        fortran: order.iter().map(|&i| fortran[i].clone()).collect(),
        extra_fflags,
        c_sources: opts.c_sources.clone(),
        objects: opts.objects.clone(),
        link_args: opts.link_args.clone(),
    }
}

/// The words of the warning that a parallel run printed something else than the counting
/// run (dropped when the manifest's `expect` checks the output instead).
pub(crate) const OUTPUT_DIFFERS: &str = "printed something else than the counting run";

/// A timed run of the normal build with the analysis's arguments and input, and `env`.
pub(crate) fn timed_run(opts: &AnalyzeOptions, env: Vec<(String, String)>) -> RunSpec {
    RunSpec {
        args: opts.args.clone(),
        stdin: opts.stdin.clone(),
        timeout: opts.timeout,
        env,
        cwd: opts.cwd.clone(),
        capture: true,
        fixed_addresses: false,
    }
}

/// The compiler and flags to build with: those given, else the machine profile's.
pub fn build_setup(
    machine: &LoadedMachine,
    fc: Option<&str>,
    fflags: Option<&str>,
) -> (String, String) {
    let p = &machine.profile.provenance;
    let fc = fc
        .map(str::to_string)
        .or_else(|| (!p.compiler.is_empty()).then(|| p.compiler.clone()))
        .unwrap_or_else(|| "gfortran".to_string());
    let fflags = fflags
        .map(str::to_string)
        .unwrap_or_else(|| p.fflags.clone());
    (fc, fflags)
}

/// Where a run's time went, measured by sampling the CPU clock of one run of the normal
/// build ([`augur_validate::sampled`]), beside the prediction, loop by loop and procedure
/// by procedure.
#[derive(Debug, Serialize, schemars::JsonSchema)]
pub struct MeasuredParts {
    /// Samples taken.
    pub samples: u64,
    /// The share (0-1) of the samples on no line of the program's sources: in the
    /// run-time and mathematical libraries (`round`, `memcpy`, the I/O library), which
    /// a sample does not trace back to the loop that called them, and in the operating
    /// system.
    pub outside_sources: f64,
    /// The functions outside the program that took samples, as `OBJECT FUNCTION`
    /// (`libm.so.6 round`), with their shares (0-1), largest first (0.5% or more).
    pub libraries: Vec<(String, f64)>,
    /// Every loop with samples or predicted time, most measured time first.
    pub loops: Vec<MeasuredPart>,
    /// Every procedure with samples or predicted time, most measured time first.
    pub procedures: Vec<MeasuredPart>,
    /// The samples by line they were measured from.
    #[serde(skip)]
    pub lines: augur_validate::sampled::LineSamples,
}

/// One loop or procedure: its predicted and measured time.
#[derive(Debug, Serialize, schemars::JsonSchema)]
pub struct MeasuredPart {
    /// Its name, as the prediction's breakdown names it.
    pub name: String,
    /// Its file.
    pub file: String,
    /// First line.
    pub first_line: u32,
    /// Last line.
    pub last_line: u32,
    /// A loop with no loop inside it (the compiled loops are these).
    pub innermost: bool,
    /// Predicted time, seconds.
    pub predicted_seconds: f64,
    /// Measured time: its lines' share of the samples times the timed runs' median.
    pub measured_seconds: f64,
}

impl MeasuredPart {
    /// Whether it lies within `other`'s lines (or on them).
    pub fn within(&self, other: &MeasuredPart) -> bool {
        self.file == other.file
            && other.first_line <= self.first_line
            && self.last_line <= other.last_line
    }
}

impl MeasuredParts {
    /// Builds `input` again with line tables, runs it once under `perf record` as `spec`
    /// says and shares `measured_seconds` (the timed runs' median) out by line.
    fn sample(
        tc: &augur_toolchain::Toolchain,
        input: &BuildInput,
        spec: &RunSpec,
        prediction: &Prediction,
        measured_seconds: f64,
    ) -> Result<MeasuredParts> {
        let lines = sample_build(tc, input, spec)?;
        Ok(Self::from_lines(lines, prediction, measured_seconds))
    }

    /// The parts of `prediction` with their measured times from `lines`.
    pub fn from_lines(
        lines: augur_validate::sampled::LineSamples,
        prediction: &Prediction,
        measured_seconds: f64,
    ) -> MeasuredParts {
        let part = |r: &augur_model::breakdown::PartRow, innermost: bool| MeasuredPart {
            name: r.name.clone(),
            file: r.file.clone(),
            first_line: r.first_line,
            last_line: r.last_line,
            innermost,
            predicted_seconds: r.estimate.seconds,
            measured_seconds: (lines.share_of(&r.file, r.first_line, r.last_line)
                * measured_seconds)
                .max(0.0),
        };
        let mut loops: Vec<MeasuredPart> = prediction.loops.iter().map(|l| part(l, true)).collect();
        for k in 0..loops.len() {
            let holds_another = (0..loops.len()).any(|o| {
                o != k
                    && loops[o].within(&loops[k])
                    && (loops[o].first_line, loops[o].last_line)
                        != (loops[k].first_line, loops[k].last_line)
            });
            loops[k].innermost = !holds_another;
        }
        let mut out = MeasuredParts {
            samples: lines.samples,
            outside_sources: 1.0 - program_share(&lines, prediction),
            libraries: lines.libraries.clone(),
            loops,
            procedures: prediction
                .procedures
                .iter()
                .map(|p| part(p, false))
                .collect(),
            lines: augur_validate::sampled::LineSamples::default(),
        };
        for parts in [&mut out.loops, &mut out.procedures] {
            parts.retain(|p| p.measured_seconds > 0.0 || p.predicted_seconds > 0.0);
            parts.sort_by(|a, b| b.measured_seconds.total_cmp(&a.measured_seconds));
        }
        out.lines = lines;
        out
    }
}

/// The share of the samples on lines of the program's own files (those its procedures
/// are in).
fn program_share(lines: &augur_validate::sampled::LineSamples, prediction: &Prediction) -> f64 {
    use augur_validate::sampled::file_name;
    let files: std::collections::BTreeSet<String> = prediction
        .procedures
        .iter()
        .map(|p| file_name(&p.file))
        .collect();
    lines
        .share
        .iter()
        .filter(|((f, _), _)| files.contains(f))
        .map(|(_, s)| s)
        .sum()
}

/// Builds `input` again with line tables (`-g`) and runs it once under `perf record` as
/// `spec` says: its samples by source line ([`augur_validate::sampled`]).
pub fn sample_build(
    tc: &augur_toolchain::Toolchain,
    input: &BuildInput,
    spec: &RunSpec,
) -> Result<augur_validate::sampled::LineSamples> {
    use augur_validate::sampled;
    let perf = sampled::find_perf()?;
    let mut with_lines = input.clone();
    with_lines.extra_fflags.push("-g".to_string());
    let (work, exe) = augur_validate::build_plain(tc, &with_lines)?;
    let lines = sampled::sample_lines(&perf, &exe, spec, work.path())?;
    anyhow::ensure!(
        lines.samples > 0,
        "perf took no sample of the run (too short a run, or perf cannot sample here)"
    );
    Ok(lines)
}
