//! Dynamic analysis: instrument, build with the user's compiler, run, count.

use crate::instrument::{self, Plan};
use crate::profile::build_profile;
use augur_fortran::FrontEndOptions;
use augur_ir::{Pos, Program, Severity};
use augur_program_profile::{ProgramProfile, RunEntry};
use augur_toolchain::{
    self as toolchain, interrupt, BuildError, BuildInput, RunError, RunResult, RunSpec, Toolchain,
};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// What to analyze and how to build and run it.
#[derive(Debug, Clone)]
pub struct AnalyzeOptions {
    /// Front-end options (form, cpp, -D, -I).
    pub front: FrontEndOptions,
    /// The compiler and its flags.
    pub toolchain: Toolchain,
    /// C sources to build and link (not analyzed).
    pub c_sources: Vec<PathBuf>,
    /// Objects and archives to link.
    pub objects: Vec<PathBuf>,
    /// `-l`/`-L` arguments.
    pub link_args: Vec<String>,
    /// Program arguments.
    pub args: Vec<String>,
    /// Standard input file.
    pub stdin: Option<PathBuf>,
    /// Time limit of the counting run.
    pub timeout: Duration,
    /// Working directory of the run.
    pub cwd: PathBuf,
    /// Keep a profile even when the run failed (marked partial).
    pub keep_partial: bool,
    /// Keep the instrumented sources and build in this directory (for inspection).
    pub keep_build: Option<PathBuf>,
    /// Run the program a second time to simulate its branch predictions
    /// ([`crate::branches`]).
    pub branch_run: bool,
    /// Compile once more for the compiler's optimization report (vectorized loops,
    /// inlined calls) kept in the profile.
    pub optimization_report: bool,
    /// Thread counts to count at (an OpenMP analysis: the build compiles the
    /// directives, counters are kept per thread, [`crate::openmp`]); empty for a
    /// sequential analysis.
    pub threads: Vec<u32>,
    /// Rank counts to run at under `mpirun` (an MPI analysis: the build uses the MPI
    /// wrapper compilers and a tracer, each rank's compute segments and MPI calls are
    /// kept, [`crate::mpi`]); empty otherwise. The profile's counts are rank 0's at the
    /// first count.
    pub mpi_ranks: Vec<u32>,
}

impl AnalyzeOptions {
    /// Options to analyze with `toolchain` in `cwd`: no C sources, objects, libraries,
    /// arguments or input, ten minutes per run, the branch run off.
    pub fn new(toolchain: Toolchain, cwd: &std::path::Path) -> AnalyzeOptions {
        AnalyzeOptions {
            front: FrontEndOptions::default(),
            toolchain,
            c_sources: vec![],
            objects: vec![],
            link_args: vec![],
            args: vec![],
            stdin: None,
            timeout: Duration::from_secs(600),
            cwd: cwd.to_path_buf(),
            keep_partial: false,
            keep_build: None,
            branch_run: false,
            optimization_report: true,
            threads: vec![],
            mpi_ranks: vec![],
        }
    }
}

/// The result of a dynamic analysis.
#[derive(Debug)]
pub struct Analysis {
    /// The program model.
    pub program: Program,
    /// The profile (partial only with `keep_partial`).
    pub profile: ProgramProfile,
    /// How the instrumented run ended (its output is in here).
    pub run: RunResult,
}

/// A line of advice when compiler `messages` say MPI's module is missing (`use mpi`,
/// `use mpi_f08` built by the plain compiler): such a program is analyzed under MPI.
fn mpi_hint(messages: &str) -> &'static str {
    let lower = messages.to_ascii_lowercase();
    if lower.contains("'mpi.mod'") || lower.contains("'mpi_f08.mod'") {
        "\nhelp: the program uses MPI: analyze it with --mpi-ranks P (augur then builds it with \
         mpif90, whose modules it finds), or give the compiler with --fc mpif90"
    } else {
        ""
    }
}

/// Why a dynamic analysis failed.
#[derive(Debug, thiserror::Error)]
pub enum AnalyzeError {
    /// The sources have errors (listed, already rendered with file and line).
    #[error("the sources could not be analyzed:\n{0}")]
    Sources(String),
    /// The instrumented program did not compile, nor does the program itself; messages
    /// are mapped to the original lines.
    #[error("the program does not compile with {compiler}:\n{messages}{}", mpi_hint(.messages))]
    Compile {
        /// The compiler.
        compiler: String,
        /// Its messages, at the original files and lines.
        messages: String,
        /// The same messages at the lines of the instrumented copy, each with the copy's
        /// text there and where it came from (inserted by augur or not).
        in_copy: String,
    },
    /// The program compiles but augur's instrumented copy of it does not: a bug in
    /// augur. The copy is kept.
    #[error(
        "augur's instrumented copy does not compile with {compiler}, though the program itself does: \
         this is a bug in augur, please report it with the copy kept in {}\n{messages}",
        kept.display()
    )]
    InstrumentedCopy {
        /// The compiler.
        compiler: String,
        /// Its messages at the lines of the copy, each with the copy's text there and the
        /// original line it came from or was inserted at.
        messages: String,
        /// Where the copy (instrumented sources, module, runtime) is kept.
        kept: PathBuf,
    },
    /// Linking failed.
    #[error("{0}")]
    Link(String),
    /// The program could not be run.
    #[error("cannot run the program: {0}")]
    Run(String),
    /// The program failed (crash, non-zero exit, timeout); its output is kept.
    #[error(
        "the program {how}; no profile was written (use --keep-partial to keep the counts so far)"
    )]
    Failed {
        /// How it ended.
        how: String,
        /// The run, with the program's output.
        run: Box<RunResult>,
    },
    /// Files could not be written or read.
    #[error("{0}")]
    Io(String),
    /// A scalable analysis (`--scale`) cannot model the program: its structure or path
    /// changes with the size, or the size is not used.
    #[error("{0}")]
    Scale(String),
    /// Ctrl-C or SIGTERM stopped the analysis ([`augur_toolchain::interrupt`]).
    #[error("interrupted")]
    Interrupted,
}

impl From<RunError> for AnalyzeError {
    fn from(e: RunError) -> AnalyzeError {
        match e {
            RunError::Interrupted => AnalyzeError::Interrupted,
            other => AnalyzeError::Run(other.to_string()),
        }
    }
}

/// `Err(Interrupted)` once Ctrl-C or SIGTERM came: checked between the steps.
fn stop_if_interrupted() -> Result<(), AnalyzeError> {
    if interrupt::cancelled() {
        Err(AnalyzeError::Interrupted)
    } else {
        Ok(())
    }
}

/// The message of a failed counting run ([`AnalyzeError::Failed`]) as the commands show
/// it, with a hint of what to do: raise the time limit, give the program its input, raise
/// the stack limits (a crash of an `-fopenmp` build, `openmp`), or fix the run (or keep
/// the counts so far). `output_shown`: the command showed the program's output above (`augur
/// analyze`); else the message ends with its last lines.
pub fn failed_run_message(
    how: String,
    run: &RunResult,
    stdin_given: bool,
    openmp: bool,
    output_shown: bool,
) -> String {
    let how = if how.starts_with("killed") {
        format!("was {how}")
    } else {
        how
    };
    let stderr = String::from_utf8_lossy(&run.stderr).to_ascii_lowercase();
    let hint = if run.timed_out {
        "raise --timeout if the run is just long"
    } else if stderr.contains("end of file") && !stdin_given {
        "it reached the end of its input: give the input it reads with --stdin FILE"
    } else if openmp && run.signal == Some(11) {
        "-fopenmp implies -frecursive, which puts local arrays on the stack, and augur's runs already raise the main thread's stack to the hard limit (4 GiB at most) and give the others OMP_STACKSIZE=256M unless set: raise the hard limit (`ulimit -Hs`) or OMP_STACKSIZE before running augur, or make the large local arrays SAVE or ALLOCATABLE"
    } else if output_shown {
        "fix the run (its output is above), or use --keep-partial to keep the counts so far"
    } else {
        "fix the run (its output ends below); `augur analyze --keep-partial` keeps the counts so far"
    };
    let mut message = format!("the program {how}; no profile was written: {hint}");
    if !output_shown {
        message.push_str(&output_tail(run, 10));
    }
    message
}

/// The last `n` lines of a run's output (standard output, then standard error), each on a
/// line of its own after a heading, or a note that it printed nothing.
fn output_tail(run: &RunResult, n: usize) -> String {
    let lines = run.output_before_backtrace();
    if lines.is_empty() {
        return "\n(the program printed nothing)".to_string();
    }
    let from = lines.len().saturating_sub(n);
    let mut s = String::from("\n---- the program's last lines of output ----");
    for l in &lines[from..] {
        s.push_str("\n  ");
        s.push_str(l);
    }
    s
}

/// Analyzes a program dynamically: front end, instrumentation, build, run, profile.
pub fn analyze(sources: &[PathBuf], opts: &AnalyzeOptions) -> Result<Analysis, AnalyzeError> {
    let openmp = !opts.threads.is_empty();
    let openmp_opts;
    let opts = if openmp {
        openmp_opts = crate::openmp::openmp_options(opts)?;
        &openmp_opts
    } else {
        opts
    };
    let mpi_front;
    let opts = if opts.mpi_ranks.is_empty() {
        opts
    } else {
        mpi_front = crate::mpi::mpi_front_end(opts);
        &mpi_front
    };
    let (program, loaded) = front_end(sources, opts)?;
    let texts = loaded_texts(&loaded);
    let mut plan = instrument::plan_for(&program, &texts, openmp);
    if !opts.mpi_ranks.is_empty() {
        instrument::plan_mpi_sites(&mut plan, &program, &texts);
    }

    let tmp = interrupt::temp_dir("augur-build-")
        .map_err(|e| AnalyzeError::Io(format!("cannot create a build directory: {e}")))?;
    let work: PathBuf = match &opts.keep_build {
        Some(d) => {
            std::fs::create_dir_all(d)
                .map_err(|e| AnalyzeError::Io(format!("cannot create {}: {e}", d.display())))?;
            d.clone()
        }
        None => tmp.path().to_path_buf(),
    };
    let mpi = !opts.mpi_ranks.is_empty();
    let mpi_opts;
    let opts = if mpi {
        mpi_opts = crate::mpi::mpi_options(opts, &work)?;
        &mpi_opts
    } else {
        opts
    };
    let order = compile_order(&program, loaded.len());
    let ctx = BuildContext {
        program: &program,
        loaded: &loaded,
        sources,
        order: &order,
        opts,
    };
    let counts_file = work.join("augur-counts.txt");
    let _ = std::fs::remove_file(&counts_file);
    let (counted, side) = count_with_builds_beside(&ctx, &plan, &work, &counts_file, &texts);
    let (exe, run) = match counted {
        Err(AnalyzeError::Compile {
            compiler,
            messages,
            in_copy,
        }) => {
            if !plain_program_compiles(sources, &order, opts) {
                let messages = with_cpp_hint(messages, opts);
                return Err(AnalyzeError::Compile {
                    compiler,
                    messages,
                    in_copy,
                });
            }
            let kept = match &opts.keep_build {
                Some(_) => work.clone(),
                None => tmp.keep(),
            };
            return Err(AnalyzeError::InstrumentedCopy {
                compiler,
                messages: in_copy,
                kept,
            });
        }
        other => other?,
    };
    let counters = read_counts(&counts_file, plan.counters);
    let mut notes = plan.notes.clone();
    if run.left_behind {
        notes.push(
            "the program left processes running when it ended (started in the background): \
             augur killed them; what they did is not counted"
                .to_string(),
        );
    }
    let mut partial = false;
    if !run.success() || counters.is_none() {
        if !opts.keep_partial {
            let how = if counters.is_none() && run.success() {
                "ended without writing its counts".to_string()
            } else {
                run.describe()
            };
            return Err(ctx.failure_mapped(
                &plan,
                AnalyzeError::Failed {
                    how,
                    run: Box::new(run),
                },
            ));
        }
        partial = true;
        notes.insert(
            0,
            format!(
                "{}the program {}",
                augur_program_profile::PARTIAL_NOTE,
                run.describe()
            ),
        );
    }
    let counters = counters.unwrap_or_else(|| vec![0; plan.counters]);
    let mu = instrument::block_counts(&program, &plan, &counters);
    let report = side.report;
    stop_if_interrupted()?;
    let counts_text = std::fs::read_to_string(&counts_file).unwrap_or_default();
    let entry = RunEntry {
        compiler: opts.toolchain.fc.clone(),
        compiler_version: opts.toolchain.version.clone(),
        fflags: opts.toolchain.fflags.clone(),
        args: opts.args.clone(),
        stdin: opts.stdin.as_ref().map(|p| p.display().to_string()),
        exit_code: run.exit_code,
        wall_seconds: run.wall.as_secs_f64(),
        counters: plan.counters,
        first_touch_pages: read_faults(&counts_text),
        fp_flags: read_fp_flags(&counts_text),
    };
    // The locality analysis reads the profile's units, which the branch run changes only
    // where it counts masked elements: it runs on the other core beside the branch run,
    // on the profile the counts make, and again after it if those counts moved.
    let (branch_run, early_locality) = std::thread::scope(|s| {
        let early = s.spawn(|| {
            let counted = build_profile(&program, &plan.rules, &mu, entry.clone(), vec![], None);
            crate::locality::locality_of(&program, &plan, &counts_file, &counted)
        });
        let branch_run = match side.branches {
            Some(built) if !partial => match built.and_then(|b| run_branches(&ctx, b)) {
                Ok(b) => Some(b),
                Err(why) => {
                    notes.push(format!("no branch simulation: {why}"));
                    None
                }
            },
            _ => None,
        };
        (branch_run, early.join().ok())
    });
    stop_if_interrupted()?;
    let mut mu = mu;
    let counted_mu = mu.clone();
    if let Some((bp, r)) = &branch_run {
        crate::branches::masked_executions(&program, &texts, bp, r, &mut mu);
    }
    let simulated = branch_run
        .as_ref()
        .map(|(bp, r)| crate::branches::per_block(&program, bp, r));
    let mut profile = build_profile(
        &program,
        &plan.rules,
        &mu,
        entry,
        notes,
        simulated.as_deref(),
    );
    profile.partial = partial;
    if let (Some((bp, r)), Some(sim)) = (&branch_run, &simulated) {
        profile.branches = Some(branch_summary(&program, &mu, bp, r, sim));
    }
    match early_locality {
        Some((locality, notes)) if mu == counted_mu => {
            profile.locality = locality;
            profile.notes.extend(notes);
        }
        _ => crate::locality::attach_run(&program, &plan, &counts_file, &mut profile),
    }
    stop_if_interrupted()?;
    if openmp && !partial {
        let runs = crate::openmp::ThreadRuns {
            program: &program,
            plan: &plan,
            mu: &mu,
            exe: &exe,
            work: &work,
        };
        profile.openmp = Some(
            runs.profile(opts)
                .map_err(|e| ctx.failure_mapped(&plan, e))?,
        );
        profile
            .notes
            .extend(crate::openmp::directive_notes(&program));
    }
    if mpi && !partial {
        let runs = crate::mpi::RankRuns {
            program: &program,
            plan: &plan,
            exe: &exe,
            work: &work,
        };
        profile.mpi = Some(
            runs.profile(&opts.mpi_ranks, opts)
                .map_err(|e| ctx.failure_mapped(&plan, e))?,
        );
    }
    match report {
        Ok(mut r) => {
            let where_loops = if opts.toolchain.is_gfortran() {
                crate::where_passes::general_where_loops(&program, &texts)
            } else {
                vec![]
            };
            crate::compiled::map_to_source(&mut r, &profile.units, &profile.lines, |unit, id| {
                let mut walk = crate::compiled::source_walk(&program, unit, id);
                walk.where_passes = where_loops
                    .iter()
                    .any(|(u, l)| *l == id && u.eq_ignore_ascii_case(unit));
                walk
            });
            let odds = condition_odds(&program, branch_run.as_ref());
            let branching = branch_lines(&program, branch_run.as_ref());
            // Without optimization the compiler lays its code out in the order it
            // expands it, not by the arm it expects.
            let optimizes = opts.toolchain.optimizes();
            let at = |f: &str, l: u32, file: &str, line: u32| {
                l == line && augur_program_profile::optreport::same_file(f, file)
            };
            crate::compiled::block_frequencies(
                &mut r,
                |file, line| {
                    use crate::compiled::LineCondition;
                    match odds.iter().find(|(f, l, _)| at(f, *l, file, line)) {
                        Some(x) => LineCondition::Held(x.2),
                        None if optimizes
                            && branch_run.is_some()
                            && !branching.iter().any(|(f, l)| at(f, *l, file, line)) =>
                        {
                            LineCondition::Compilers
                        }
                        None => LineCondition::Unrecorded,
                    }
                },
                |file, line| line_executions(&profile.units, file, line),
            );
            profile.optimization = Some(r)
        }
        Err(e) => profile.notes.push(format!("no optimization report: {e}")),
    }
    drop(tmp);
    Ok(Analysis {
        program,
        profile,
        run,
    })
}

/// The executions of the counted block of `units` that holds `line` of `file` (the
/// narrowest, when blocks nest by their lines); `None` when no counted block holds it.
fn line_executions(
    units: &[augur_program_profile::UnitProfile],
    file: &str,
    line: u32,
) -> Option<f64> {
    units
        .iter()
        .filter(|u| augur_program_profile::optreport::same_file(&u.file, file))
        .flat_map(|u| &u.blocks)
        .filter(|b| b.first_line <= line && line <= b.last_line)
        .filter_map(|b| Some((b.last_line.saturating_sub(b.first_line), b.executions?)))
        .min_by_key(|(span, _)| *span)
        .map(|(_, n)| n)
}

/// What an instrumented build needs besides its plan.
/// The front end over `sources`: the program and its loaded texts, or its errors (unless
/// a partial profile is allowed).
fn front_end(
    sources: &[PathBuf],
    opts: &AnalyzeOptions,
) -> Result<(Program, Vec<Option<augur_source::LoadedSource>>), AnalyzeError> {
    let front = augur_fortran::FrontEndOptions {
        default_kinds: augur_fortran::DefaultKinds::from_flags(&opts.toolchain.fflags),
        ..opts.front.clone()
    };
    let (mut program, loaded) = augur_fortran::analyze_with_sources(sources, &front);
    if opts.toolchain.is_gfortran() {
        crate::where_passes::add_where_passes(&mut program, &loaded_texts(&loaded));
    }
    let errors: Vec<String> = program
        .diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .map(|d| d.render(&program.files))
        .collect();
    stop_if_interrupted()?;
    if !errors.is_empty() && !opts.keep_partial {
        return Err(AnalyzeError::Sources(errors.join("")));
    }
    Ok((program, loaded))
}

/// Builds the instrumented copy of `sources` in `work` as [`analyze`] does, without
/// running it: its executable, or why the front end or the build failed. Wherever the
/// original compiles, this must too (the guarantee the fixed-form tests check).
pub fn build_instrumented(
    sources: &[PathBuf],
    opts: &AnalyzeOptions,
    work: &Path,
) -> Result<PathBuf, AnalyzeError> {
    let (program, loaded) = front_end(sources, opts)?;
    let plan = instrument::plan(&program, &loaded_texts(&loaded));
    let order = compile_order(&program, loaded.len());
    let ctx = BuildContext {
        program: &program,
        loaded: &loaded,
        sources,
        order: &order,
        opts,
    };
    ctx.build_counting_copy(&plan, work)
}

/// The texts of the loaded sources (`None` where a file could not be read).
fn loaded_texts(loaded: &[Option<augur_source::LoadedSource>]) -> Vec<Option<&str>> {
    loaded
        .iter()
        .map(|l| l.as_ref().map(|l| l.text.as_str()))
        .collect()
}

struct BuildContext<'a> {
    program: &'a Program,
    loaded: &'a [Option<augur_source::LoadedSource>],
    sources: &'a [PathBuf],
    order: &'a [usize],
    opts: &'a AnalyzeOptions,
}

impl BuildContext<'_> {
    /// Builds the counting copy `plan` describes (rewritten sources, the counters'
    /// module, the C runtime) into `work`: its executable.
    fn build_counting_copy(&self, plan: &Plan, work: &Path) -> Result<PathBuf, AnalyzeError> {
        self.build(
            plan,
            ("augur_counts_mod.f90", &instrument::module_for(plan)),
            instrument::RUNTIME_C,
            work,
            "augur_instrumented",
        )
    }

    /// The file name of source `i`'s instrumented copy.
    fn copy_name(&self, i: usize) -> String {
        let stem = self.sources[i]
            .file_stem()
            .map(|s| s.to_string_lossy().to_string())
            .unwrap_or_else(|| format!("src{i}"));
        format!("aug{i}_{stem}.f90")
    }

    /// `err` with, when it is a failed run, the run's messages pointing at the
    /// program's own lines ([`Self::runtime_lines_mapped`]).
    fn failure_mapped(&self, plan: &Plan, err: AnalyzeError) -> AnalyzeError {
        match err {
            AnalyzeError::Failed { how, mut run } => {
                run.stderr = self
                    .runtime_lines_mapped(plan, &String::from_utf8_lossy(&run.stderr))
                    .into_bytes();
                AnalyzeError::Failed { how, run }
            }
            other => other,
        }
    }

    /// `output` (a failed run's) with each run-time error's "At line N of file F" that
    /// names a file of the instrumented copy `plan` made pointing at the program's own
    /// line instead, the copy's line after it.
    fn runtime_lines_mapped(&self, plan: &Plan, output: &str) -> String {
        let mut out = String::with_capacity(output.len());
        for line in output.split_inclusive('\n') {
            out.push_str(
                &self
                    .runtime_line(plan, line)
                    .unwrap_or_else(|| line.to_string()),
            );
        }
        out
    }

    /// One line of a run's output mapped as [`Self::runtime_lines_mapped`] says, or `None`:
    /// gfortran's `At line N of file F` and, for a failed ALLOCATE, `In file 'F', around
    /// line N: ...`.
    fn runtime_line(&self, plan: &Plan, line: &str) -> Option<String> {
        let (n, file, tail) = at_line(line).or_else(|| around_line(line))?;
        let name = Path::new(file).file_name()?.to_string_lossy().to_string();
        let i = self
            .order
            .iter()
            .copied()
            .find(|&i| self.copy_name(i) == name)?;
        let l = self.loaded[i].as_ref()?;
        let (_, map) = instrument::rewrite(plan, i as u32, &l.text);
        let text_line = *map.get(n.checked_sub(1)?)? as usize;
        let pos = l.origin(text_line, 0);
        let f = self.program.files.get(pos.file);
        Some(format!(
            "At line {} of file {}{} (line {n} of augur's instrumented copy)\n",
            pos.line,
            f.path.display(),
            tail.trim_end_matches('\n'),
        ))
    }

    /// Writes the rewritten sources, the module and the C runtime into `work` and
    /// builds them; compiler messages are mapped back to the original lines.
    fn build(
        &self,
        plan: &Plan,
        module: (&str, &str),
        runtime_c: &str,
        work: &Path,
        exe_name: &str,
    ) -> Result<PathBuf, AnalyzeError> {
        let (program, loaded, opts) = (self.program, self.loaded, self.opts);
        std::fs::create_dir_all(work)
            .map_err(|e| AnalyzeError::Io(format!("cannot create {}: {e}", work.display())))?;
        let write = |name: &str, text: &str| -> Result<PathBuf, AnalyzeError> {
            let p = work.join(name);
            std::fs::write(&p, text)
                .map_err(|e| AnalyzeError::Io(format!("cannot write {}: {e}", p.display())))?;
            Ok(p)
        };
        let mut fortran = vec![write(module.0, module.1)?];
        // Instrumented sources, with a map from their lines back to the loaded text.
        let mut maps: Vec<(PathBuf, usize, Vec<u32>, String)> = vec![];
        for &i in self.order {
            let Some(l) = &loaded[i] else { continue };
            let (text, map) = instrument::rewrite(plan, i as u32, &l.text);
            let p = write(&self.copy_name(i), &text)?;
            maps.push((p.clone(), i, map, text));
            fortran.push(p);
        }
        let mut c_sources = opts.c_sources.clone();
        c_sources.push(write("augur_rt.c", runtime_c)?);
        let mut extra: Vec<String> = if opts.toolchain.is_gfortran() {
            vec!["-ffree-form".into(), "-ffree-line-length-none".into()]
        } else {
            vec!["-ffree-form".into()]
        };
        // The definitions and include paths, for the program's C files (the Fortran
        // sources are preprocessed already).
        let load = &opts.front.load;
        extra.extend(load.defines.iter().map(|d| format!("-D{d}")));
        extra.extend(
            load.include_dirs
                .iter()
                .map(|d| format!("-I{}", d.display())),
        );
        let input = BuildInput {
            fortran,
            extra_fflags: extra,
            c_sources,
            objects: opts.objects.clone(),
            link_args: opts.link_args.clone(),
        };
        toolchain::build(&opts.toolchain, &input, work, exe_name).map_err(|e| match e {
            BuildError::Compile {
                messages, stderr, ..
            } => {
                let mut out = String::new();
                let mut in_copy = String::new();
                for m in &messages {
                    let copy = maps.iter().find(|(p, ..)| paths_match(p, &m.file));
                    let orig = copy.and_then(|(_, src, map, _)| {
                        let text_line = *map.get(m.line.saturating_sub(1) as usize)? as usize;
                        loaded[*src]
                            .as_ref()
                            .map(|l| (l.origin(text_line, 0), text_line))
                    });
                    in_copy.push_str(&copy_message(program, m, copy, orig, loaded));
                    match orig.map(|o| o.0) {
                        Some(pos) => {
                            out.push_str(&render_at(program, pos, &m.severity, &m.message))
                        }
                        None => out.push_str(&format!(
                            "{}:{}: {}: {}\n",
                            m.file.display(),
                            m.line,
                            m.severity,
                            m.message
                        )),
                    }
                }
                if messages.is_empty() {
                    out.push_str(stderr.trim());
                    out.push('\n');
                }
                if messages.is_empty() {
                    in_copy.push_str(stderr.trim());
                    in_copy.push('\n');
                }
                AnalyzeError::Compile {
                    compiler: opts.toolchain.fc.clone(),
                    messages: out,
                    in_copy,
                }
            }
            BuildError::Link { .. } => AnalyzeError::Link(e.to_string()),
            BuildError::Interrupted => AnalyzeError::Interrupted,
            other => AnalyzeError::Io(other.to_string()),
        })
    }
}

/// The counting copy built and run, and the optimization report and the branch copy
/// ([`side_builds`]) built beside it or after it.
///
/// The report's compile and the branch copy's build need nothing of the counting run: for
/// a sequential program they go on in a second thread beside its build and run (two
/// compilers, or a compiler and the program, on the host's cores); the branch run itself
/// waits for the counting run (two runs of the program at once could share its files). Not
/// beside an OpenMP or MPI counting run: its threads or ranks take the cores, and a loop that
/// waits for another thread spins as long as that thread is kept from running.
fn count_with_builds_beside(
    ctx: &BuildContext<'_>,
    plan: &Plan,
    work: &Path,
    counts_file: &Path,
    texts: &[Option<&str>],
) -> (Result<(PathBuf, RunResult), AnalyzeError>, SideBuilds) {
    let opts = ctx.opts;
    let (openmp, mpi) = (!opts.threads.is_empty(), !opts.mpi_ranks.is_empty());
    let counting_failed = AtomicBool::new(false);
    // (Not for an MPI program: its branch copy would run outside mpirun.)
    let want_branches = opts.branch_run && !mpi;
    let branch_dir = work.join("branches");
    let builds = || side_builds(ctx, texts, &branch_dir, want_branches, &counting_failed);
    std::thread::scope(|s| {
        let beside = (!openmp && !mpi).then(|| s.spawn(builds));
        let counted = ctx.build_counting_copy(plan, work).and_then(|exe| {
            let run = counting_run(&exe, counts_file, opts, openmp);
            if !matches!(&run, Ok(r) if r.success()) {
                counting_failed.store(true, Ordering::Relaxed);
            }
            Ok((exe, run?))
        });
        if counted.is_err() {
            counting_failed.store(true, Ordering::Relaxed);
        }
        let side = match beside {
            Some(thread) => thread.join().unwrap_or_else(|_| {
                SideBuilds::without(
                    "augur's build beside the counting run stopped (an internal error)",
                )
            }),
            // The analysis ends with the counting run's error: nothing more to build.
            None if counted.is_err()
                || (counting_failed.load(Ordering::Relaxed) && !opts.keep_partial) =>
            {
                SideBuilds::without("the counting run failed")
            }
            None => builds(),
        };
        (counted, side)
    })
}

/// The counting copy `exe` run with the user's arguments and input, its counts written to
/// `counts_file` (under `mpirun` at the first rank count for an MPI program).
fn counting_run(
    exe: &Path,
    counts_file: &Path,
    opts: &AnalyzeOptions,
    openmp: bool,
) -> Result<RunResult, AnalyzeError> {
    let spec = RunSpec {
        args: opts.args.clone(),
        stdin: opts.stdin.clone(),
        timeout: opts.timeout,
        env: main_run_env(counts_file, openmp),
        cwd: opts.cwd.clone(),
        capture: true,
        fixed_addresses: true,
    };
    Ok(match opts.mpi_ranks.first() {
        Some(&ranks) => {
            let (mpirun, spec) = crate::mpi::under_mpirun(exe, ranks, spec)?;
            toolchain::run(&mpirun, &spec)?
        }
        None => toolchain::run(exe, &spec)?,
    })
}

/// What is built beside the counting run: the optimization report, and the branch
/// copy (when asked for: `None` otherwise, or when the counting copy failed first).
struct SideBuilds {
    report: Result<augur_program_profile::optreport::OptReport, String>,
    branches: Option<Result<BranchBuild, String>>,
}

impl SideBuilds {
    /// Neither the report nor the branch copy, for the reason `why`.
    fn without(why: &str) -> SideBuilds {
        SideBuilds {
            report: Err(why.to_string()),
            branches: Some(Err(why.to_string())),
        }
    }
}

/// The optimization report, then the branch copy (skipped once `counting_failed` says
/// the counting copy did not build or run: its profile will not need one).
fn side_builds(
    ctx: &BuildContext<'_>,
    texts: &[Option<&str>],
    branch_dir: &Path,
    want_branches: bool,
    counting_failed: &AtomicBool,
) -> SideBuilds {
    let report = if ctx.opts.optimization_report {
        optimization_report(ctx.program, ctx.sources, ctx.order, ctx.opts)
    } else {
        Err("not asked for".to_string())
    };
    let branches = (want_branches && !counting_failed.load(Ordering::Relaxed))
        .then(|| branch_build(ctx, texts, report.as_ref().ok(), branch_dir));
    SideBuilds { report, branches }
}

/// The branch copy: the program with every condition wrapped and every counted loop's
/// trips recorded, its plan and executable (none when nothing is recorded), in `work`.
struct BranchBuild {
    plan: crate::branches::BranchPlan,
    exe: Option<PathBuf>,
    work: PathBuf,
}

/// Builds the branch copy in `work`: the conditions and loops to record are planned from
/// the program and, where there is one, the optimization report.
fn branch_build(
    ctx: &BuildContext<'_>,
    texts: &[Option<&str>],
    report: Option<&augur_program_profile::optreport::OptReport>,
    work: &Path,
) -> Result<BranchBuild, String> {
    use crate::branches;
    let mut bp = branches::plan(ctx.program, texts, report);
    if !ctx.opts.threads.is_empty() {
        instrument::place_for_openmp(&mut bp.plan, ctx.program);
    }
    if bp.branches.is_empty() && bp.loops.is_empty() {
        return Ok(BranchBuild {
            plan: bp,
            exe: None,
            work: work.to_path_buf(),
        });
    }
    let exe = ctx
        .build(
            &bp.plan,
            ("augur_branch_mod.f90", &branches::module_for(&bp)),
            branches::RUNTIME_C,
            work,
            "augur_branches",
        )
        .map_err(|e| {
            format!(
                "the branch run did not build: {}",
                first_line(&e.to_string())
            )
        })?;
    Ok(BranchBuild {
        plan: bp,
        exe: Some(exe),
        work: work.to_path_buf(),
    })
}

/// The branch run: the branch copy `b` run once, one thread, and what the predictors saw.
/// An error says why there is no simulation (the profile keeps the bound then).
fn run_branches(
    ctx: &BuildContext<'_>,
    b: BranchBuild,
) -> Result<(crate::branches::BranchPlan, crate::branches::BranchRun), String> {
    use crate::branches;
    let bp = b.plan;
    let Some(exe) = b.exe else {
        let none = branches::BranchRun {
            branches: vec![],
            loops: vec![],
        };
        return Ok((bp, none));
    };
    let file = b.work.join("augur-branches.txt");
    let _ = std::fs::remove_file(&file);
    let opts = ctx.opts;
    let spec = RunSpec {
        args: opts.args.clone(),
        stdin: opts.stdin.clone(),
        timeout: opts.timeout,
        env: vec![
            ("AUGUR_BRANCH_FILE".into(), file.display().to_string()),
            // One thread: the branch records keep one sequence.
            ("OMP_NUM_THREADS".into(), "1".into()),
        ],
        cwd: opts.cwd.clone(),
        capture: true,
        fixed_addresses: false,
    };
    let run = toolchain::run(&exe, &spec).map_err(|e| format!("the branch run failed: {e}"))?;
    if !run.success() {
        return Err(format!("the branch run {}", run.describe()));
    }
    let r = branches::read(&file, bp.branches.len(), bp.loops.len())
        .ok_or_else(|| "the branch run wrote no readable record".to_string())?;
    Ok((bp, r))
}

fn first_line(s: &str) -> String {
    s.lines()
        .map(str::trim)
        .find(|l| !l.is_empty() && !l.ends_with(':'))
        .unwrap_or("")
        .to_string()
}

/// How often the condition of each IF (block, ELSE IF, logical) held in the branch run:
/// file, line and share, for the blocks of the compiled loops.
fn condition_odds(
    program: &Program,
    run: Option<&(crate::branches::BranchPlan, crate::branches::BranchRun)>,
) -> Vec<(String, u32, f64)> {
    use augur_program_profile::BranchKind;
    let Some((bp, r)) = run else {
        return vec![];
    };
    bp.branches
        .iter()
        .zip(&r.branches)
        .filter(|(p, c)| {
            c.executions > 0
                && matches!(
                    p.kind,
                    BranchKind::If | BranchKind::ElseIf | BranchKind::LogicalIf
                )
        })
        .filter_map(|(p, c)| {
            let f = program.files.files.get(p.file as usize)?;
            Some((
                f.path.display().to_string(),
                p.line,
                c.taken as f64 / c.executions as f64,
            ))
        })
        .collect()
}

/// The lines (file, line) that hold a branch of the source of any kind, as the branch
/// run's plan records them; empty without a branch run.
fn branch_lines(
    program: &Program,
    run: Option<&(crate::branches::BranchPlan, crate::branches::BranchRun)>,
) -> Vec<(String, u32)> {
    let Some((bp, _)) = run else {
        return vec![];
    };
    bp.branches
        .iter()
        .filter_map(|p| {
            let f = program.files.files.get(p.file as usize)?;
            Some((f.path.display().to_string(), p.line))
        })
        .collect()
}

/// The branch summary of the profile: totals against the bound, and the rows.
fn branch_summary(
    program: &Program,
    mu: &[Vec<Option<f64>>],
    bp: &crate::branches::BranchPlan,
    r: &crate::branches::BranchRun,
    sim: &[Vec<Option<f64>>],
) -> augur_program_profile::BranchProfile {
    use crate::branches::PREDICTORS;
    use augur_program_profile::{BranchProfile, BranchRow, LoopExitRow};
    let bound = crate::profile::bound_per_block(program, mu);
    let file = |f: u32| {
        program
            .files
            .files
            .get(f as usize)
            .map(|x| x.path.display().to_string())
            .unwrap_or_default()
    };
    let mut conditions: Vec<BranchRow> = bp
        .branches
        .iter()
        .zip(&r.branches)
        .filter(|(_, c)| c.executions > 0)
        .map(|(p, c)| {
            let best = (0..PREDICTORS.len())
                .min_by_key(|&k| c.misses[k])
                .unwrap_or(0);
            BranchRow {
                file: file(p.file),
                line: p.line,
                kind: p.kind,
                executions: c.executions,
                taken: c.taken,
                mispredictions: c.mispredictions(),
                predictor: PREDICTORS[best].to_string(),
            }
        })
        .collect();
    conditions.sort_by_key(|c| std::cmp::Reverse(c.mispredictions));
    conditions.truncate(200);
    let mut loop_exits: Vec<LoopExitRow> = bp
        .loops
        .iter()
        .zip(&r.loops)
        .filter(|(_, l)| l.0 > 0)
        .map(|(p, l)| LoopExitRow {
            file: file(p.file),
            line: p.line,
            entries: l.0,
            mispredictions: l.1,
        })
        .collect();
    loop_exits.sort_by_key(|l| std::cmp::Reverse(l.mispredictions));
    loop_exits.truncate(200);
    // Folded from +0.0: an empty sum of floats is -0.0, which prints as "-0.0000e0".
    let mispredictions = sim.iter().flatten().flatten().fold(0.0, |a, m| a + m);
    let loop_exit_mispredictions = r.loops.iter().fold(0.0, |a, l| a + l.1 as f64);
    // The bound over the blocks the branch run recorded conditions of.
    let mut bound_total = 0.0;
    for p in &bp.branches {
        if let Some(b) = bound.get(p.unit).and_then(|u| u.get(p.block as usize)) {
            bound_total += b;
        }
    }
    BranchProfile {
        predictors: PREDICTORS.iter().map(|s| s.to_string()).collect(),
        mispredictions,
        loop_exit_mispredictions,
        bound: bound_total,
        conditions,
        loop_exits,
    }
}

/// The compiler's optimization report for the original sources (in module order), or
/// why there is none (the analysis goes on without it: a note in the profile).
fn optimization_report(
    program: &Program,
    sources: &[PathBuf],
    order: &[usize],
    opts: &AnalyzeOptions,
) -> Result<augur_program_profile::optreport::OptReport, String> {
    let files: Vec<PathBuf> = order
        .iter()
        .filter_map(|&i| sources.get(i).cloned())
        .collect();
    let names: Vec<String> = program
        .files
        .files
        .iter()
        .map(|f| f.path.display().to_string())
        .collect();
    let extra = original_source_flags(opts);
    augur_toolchain::optreport::report(&opts.toolchain, &files, &names, &extra)
        .map_err(|e| e.to_string())
}

/// The compiler's `messages`, with what to do when they reject C preprocessor lines the
/// user did not ask to preprocess (gfortran preprocesses `.F` and `.F90` files by itself,
/// not `.f90`: "Illegal preprocessor directive" at `#ifndef NSIZE`).
fn with_cpp_hint(messages: String, opts: &AnalyzeOptions) -> String {
    if opts.front.load.cpp || !messages.contains("Illegal preprocessor directive") {
        return messages;
    }
    format!(
        "{messages}hint: the sources hold C preprocessor lines (#ifdef, #define, #include) that \
         the compiler does not preprocess in a lower-case .f or .f90 file: run again with --cpp \
         (and -D NAME=VALUE for the macros they test)\n"
    )
}

/// The flags the original sources need besides the user's: the front end's
/// preprocessing (`-cpp`, `-D`, `-I`) and forced source form.
fn original_source_flags(opts: &AnalyzeOptions) -> Vec<String> {
    let mut extra: Vec<String> = vec![];
    let load = &opts.front.load;
    if load.cpp {
        extra.push("-cpp".into());
    }
    extra.extend(load.defines.iter().map(|d| format!("-D{d}")));
    for dir in &load.include_dirs {
        extra.push("-I".into());
        extra.push(dir.display().to_string());
    }
    match load.form {
        Some(augur_source::SourceForm::Fixed) => extra.push("-ffixed-form".into()),
        Some(augur_source::SourceForm::Free) => extra.push("-ffree-form".into()),
        None => {}
    }
    extra
}

/// Whether the original sources compile (each to an object, in compile order) with the
/// user's compiler and flags: when the instrumented copy does not, the fault is augur's.
fn plain_program_compiles(sources: &[PathBuf], order: &[usize], opts: &AnalyzeOptions) -> bool {
    let Ok(dir) = interrupt::temp_dir("augur-plain-") else {
        return false;
    };
    let files: Vec<PathBuf> = order
        .iter()
        .filter_map(|&i| sources.get(i).cloned())
        .collect();
    let extra = original_source_flags(opts);
    toolchain::compile_only(&opts.toolchain, &files, &extra, dir.path()).is_ok()
}

/// A compiler message `m` at its line of the instrumented copy (`copy`: its path, source
/// index, line map and text): the copy's text on that line and the original line it
/// came from (`orig`: the position and the loaded text's 0-based line), or that augur
/// inserted or changed it there.
fn copy_message(
    program: &Program,
    m: &toolchain::CompilerMessage,
    copy: Option<&(PathBuf, usize, Vec<u32>, String)>,
    orig: Option<(Pos, usize)>,
    loaded: &[Option<augur_source::LoadedSource>],
) -> String {
    let col = m.col.map(|c| format!(":{c}")).unwrap_or_default();
    let mut out = format!(
        "{}:{}{col}: {}: {}\n",
        m.file.display(),
        m.line,
        m.severity,
        m.message
    );
    let Some((_, src, _, text)) = copy else {
        return out;
    };
    let line = text
        .lines()
        .nth(m.line.saturating_sub(1) as usize)
        .unwrap_or("");
    out.push_str(&format!("{:>6} | {line}\n", m.line));
    if let Some((pos, text_line)) = orig {
        let original = loaded[*src]
            .as_ref()
            .and_then(|l| l.text.lines().nth(text_line))
            .unwrap_or("");
        let at = program.files.describe(pos);
        let at = at.rsplit_once(':').map_or(at.as_str(), |(a, _)| a);
        if original.trim() == line.trim() {
            out.push_str(&format!("       = the program's line {at}\n"));
        } else {
            out.push_str(&format!(
                "       = inserted or changed by augur at the program's line {at}\n"
            ));
        }
    }
    out
}

/// The plan alone (for tests and for inspecting where counters go).
pub fn plan_for(program: &Program, loaded: &[Option<augur_source::LoadedSource>]) -> Plan {
    instrument::plan(program, &loaded_texts(loaded))
}

fn paths_match(a: &Path, b: &Path) -> bool {
    a == b || a.file_name() == b.file_name()
}

fn render_at(program: &Program, pos: Pos, severity: &str, message: &str) -> String {
    let sev = if severity.to_ascii_lowercase().contains("warn") {
        Severity::Warning
    } else {
        Severity::Error
    };
    let d = augur_ir::Diagnostic {
        severity: sev,
        pos: Some(pos),
        message: message.to_string(),
        hint: None,
    };
    d.render(&program.files)
}

/// The environment of the main counting run: where the counts go, and one thread for
/// an OpenMP build (its probes keep one buffer; [`crate::openmp`] counts the others).
fn main_run_env(counts_file: &Path, openmp: bool) -> Vec<(String, String)> {
    let mut env = vec![(
        "AUGUR_COUNTS_FILE".to_string(),
        counts_file.display().to_string(),
    )];
    if openmp {
        env.push(("OMP_NUM_THREADS".into(), "1".into()));
    }
    env
}

/// Reads the counters the runtime wrote; `None` when missing, truncated or of the wrong size.
fn read_counts(path: &Path, expected: usize) -> Option<Vec<i64>> {
    let text = std::fs::read_to_string(path).ok()?;
    let mut lines = text.lines();
    let header = lines.next()?;
    let n: usize = header.strip_prefix("augur-counts ")?.trim().parse().ok()?;
    if n != expected.max(1) {
        return None;
    }
    let mut v = Vec::with_capacity(n);
    for _ in 0..n {
        v.push(lines.next()?.trim().parse().ok()?);
    }
    if lines.next()? != "end" {
        return None;
    }
    v.truncate(expected);
    Some(v)
}

/// The pages the program touched first (`augur-faults FAULTS BUFFER_PAGES` after the
/// shapes in the counts file's `text`; `None` in a file without the line).
fn read_faults(text: &str) -> Option<u64> {
    let line = text.lines().find_map(|l| l.strip_prefix("augur-faults "))?;
    let mut it = line.split_whitespace().map(|v| v.parse::<u64>().ok());
    let (faults, buffer) = (it.next()??, it.next()??);
    Some(faults.saturating_sub(buffer))
}

/// The floating-point flags the runtime found set at exit (`augur-fp DENORMAL
/// UNDERFLOW` in the counts file's `text`, each a name or `-`); `None` in a file
/// without the line (another architecture, an older runtime).
fn read_fp_flags(text: &str) -> Option<Vec<String>> {
    let line = text.lines().find_map(|l| l.strip_prefix("augur-fp "))?;
    Some(
        line.split_whitespace()
            .filter(|w| *w != "-")
            .map(str::to_string)
            .collect(),
    )
}

/// Orders the sources so that a file defining a module is compiled before the
/// files that use it (otherwise the order given is kept).
pub fn compile_order(program: &Program, n_sources: usize) -> Vec<usize> {
    let mut defines: Vec<Vec<&str>> = vec![vec![]; n_sources];
    let mut uses: Vec<Vec<&str>> = vec![vec![]; n_sources];
    for u in &program.units {
        let s = u.source as usize;
        if s >= n_sources {
            continue;
        }
        if u.kind == augur_ir::UnitKind::Module && u.host.is_none() {
            defines[s].push(&u.name);
        }
        uses[s].extend(u.uses.iter().map(String::as_str));
    }
    let mut order = vec![];
    let mut state = vec![0u8; n_sources]; // 0 new, 1 visiting, 2 done
    fn visit(
        i: usize,
        defines: &[Vec<&str>],
        uses: &[Vec<&str>],
        state: &mut Vec<u8>,
        order: &mut Vec<usize>,
    ) {
        if state[i] != 0 {
            return; // done, or a cycle (kept in the given order)
        }
        state[i] = 1;
        for m in &uses[i] {
            if let Some(j) = (0..defines.len()).find(|&j| j != i && defines[j].contains(m)) {
                visit(j, defines, uses, state, order);
            }
        }
        state[i] = 2;
        order.push(i);
    }
    for i in 0..n_sources {
        visit(i, &defines, &uses, &mut state, &mut order);
    }
    order
}

/// `At line N of file F<tail>`: (N, F, tail).
fn at_line(line: &str) -> Option<(usize, &str, &str)> {
    let rest = line.trim_start().strip_prefix("At line ")?;
    let (number, rest) = rest.split_once(" of file ")?;
    let n: usize = number.trim().parse().ok()?;
    let file_end = rest.find(|c: char| c.is_whitespace()).unwrap_or(rest.len());
    let (file, tail) = rest.split_at(file_end);
    Some((n, file, tail))
}

/// `In file 'F', around line N<tail>` (gfortran's failed ALLOCATE): (N, F, tail).
fn around_line(line: &str) -> Option<(usize, &str, &str)> {
    let rest = line.trim_start().strip_prefix("In file '")?;
    let (file, rest) = rest.split_once("', around line ")?;
    let digits = rest
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(rest.len());
    let n: usize = rest[..digits].parse().ok()?;
    Some((n, file, &rest[digits..]))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn a_missing_mpi_module_advises_mpi_ranks() {
        let err = AnalyzeError::Compile {
            compiler: "gfortran".into(),
            messages: "p.f90:2:7: Fatal Error: Cannot open module file 'mpi.mod' for reading"
                .into(),
            in_copy: String::new(),
        };
        assert!(err.to_string().contains("--mpi-ranks"), "{err}");
        let other = AnalyzeError::Compile {
            compiler: "gfortran".into(),
            messages: "p.f90:2:7: Fatal Error: Cannot open module file 'grid.mod' for reading"
                .into(),
            in_copy: String::new(),
        };
        assert!(!other.to_string().contains("MPI"), "{other}");
    }

    fn failed(stdout: &str, stderr: &str) -> RunResult {
        RunResult {
            exit_code: Some(3),
            signal: None,
            stdout: stdout.as_bytes().to_vec(),
            stderr: stderr.as_bytes().to_vec(),
            wall: Duration::ZERO,
            cpu: Duration::ZERO,
            timed_out: false,
            left_behind: false,
        }
    }

    #[test]
    fn a_failed_run_not_shown_ends_with_its_last_lines_before_the_backtrace() {
        let run = failed(
            " step 1\n about to fail\n",
            "ERROR STOP 3\n\nError termination. Backtrace:\n#0  0x7f in ???\n",
        );
        let m = failed_run_message("exited with status 3".into(), &run, false, false, false);
        assert!(m.ends_with("  about to fail\n  ERROR STOP 3"), "{m}");
        assert!(
            !m.contains("its output is above") && !m.contains("#0"),
            "{m}"
        );
        // Shown above it (`augur analyze`): the hint says so, no copy.
        let m = failed_run_message("exited with status 3".into(), &run, false, false, true);
        assert!(
            m.contains("its output is above") && !m.contains("ERROR STOP"),
            "{m}"
        );
    }
}
