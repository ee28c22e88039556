//! `augur characterize` and `augur diff`: measure a machine profile, compare two.

use anyhow::{bail, Context, Result};
use augur_machine::experiments;
use augur_machine::harness::{Progress, Settings};
use augur_machine::stats::median;
use augur_machine_profile::process::ProcessProfile;
use augur_machine_profile::MachineProfile;
use augur_machine_profile::{MEASURED, NOT_DETECTED};
use augur_toolchain::Toolchain;
use std::io::IsTerminal;
use std::path::Path;
use std::process::ExitCode;
use std::time::Instant;

/// Progress lines on stderr with an estimate of the time left (when stderr is not a
/// terminal).
struct Lines {
    start: Instant,
}

impl Progress for Lines {
    fn update(&mut self, done: usize, total: usize) {
        let el = self.start.elapsed().as_secs_f64();
        let eta = if done > 0 {
            el / done as f64 * (total - done) as f64
        } else {
            0.0
        };
        eprintln!(
            "characterize: {done}/{total} experiments, {el:.0} s elapsed, about {eta:.0} s left"
        );
    }
    fn note(&mut self, msg: &str) {
        eprintln!("characterize: {msg}");
    }
}

/// A progress bar with the time left on stderr (when stderr is a terminal).
struct Bar(indicatif::ProgressBar);

impl Bar {
    fn new(total: usize) -> Bar {
        Bar::counting(total, "experiments")
    }

    /// A bar of `total` things called `unit`.
    fn counting(total: usize, unit: &str) -> Bar {
        let bar = indicatif::ProgressBar::new(total as u64);
        if let Ok(style) = indicatif::ProgressStyle::with_template(&format!(
            "characterize [{{elapsed_precise}}] {{bar:40}} {{pos}}/{{len}} {unit}, about {{eta}} left"
        )) {
            bar.set_style(style);
        }
        Bar(bar)
    }
}

impl Progress for Bar {
    fn update(&mut self, done: usize, total: usize) {
        self.0.set_length(total as u64);
        self.0.set_position(done as u64);
    }
    fn note(&mut self, msg: &str) {
        self.0.println(format!("characterize: {msg}"));
    }
}

impl Drop for Bar {
    fn drop(&mut self) {
        self.0.finish_and_clear();
    }
}

/// `Err(interrupted)` once Ctrl-C or SIGTERM came (`main` then says so and exits with
/// 130; see [`augur_toolchain::interrupt`]).
fn stop_if_interrupted() -> Result<()> {
    augur_toolchain::interrupt::check_cancel().map_err(anyhow::Error::msg)
}

/// `--only` with an existing profile as output: the named AbOps' entries replace theirs
/// in it and everything else is kept, so a profile can be completed or re-measured one
/// parameter at a time. The existing profile must be for the same compiler and flags.
fn merge_into_existing(
    output: &Path,
    measured: MachineProfile,
    only: &[String],
) -> Result<MachineProfile> {
    let mut existing = MachineProfile::read(output)?;
    let (a, b) = (&existing.provenance, &measured.provenance);
    if augur_program_profile::optreport::same_compiler(&a.compiler, &b.compiler)
        && a.fflags.split_whitespace().eq(b.fflags.split_whitespace())
    {
        for name in only.iter().flat_map(|o| o.split(',')) {
            if let Some(op) = augur_ir::AbOp::from_mnemonic(name.trim()) {
                if let Some(e) = measured.abop.get(&op) {
                    existing.abop.insert(op, e.clone());
                }
            }
        }
        Ok(existing)
    } else {
        bail!(
            "{} was measured with {} {}, not {} {}: --only adds entries to a profile of the same compiler and flags; choose another -o",
            output.display(),
            a.compiler,
            a.fflags,
            b.compiler,
            b.fflags
        )
    }
}

/// `augur bench repeatability`: `runs` complete characterizations one after the other,
/// written to `dir/run-K.toml`.
pub fn repeatedly(fc: &str, fflags: &str, quick: bool, runs: usize, dir: &Path) -> Result<()> {
    if runs < 2 {
        bail!("--runs {runs}: repeatability needs two or more characterizations");
    }
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    for k in 1..=runs {
        eprintln!("repeatability: characterization {k} of {runs}");
        characterize(
            fc,
            fflags,
            quick,
            false,
            &[],
            &dir.join(format!("run-{k}.toml")),
        )?;
    }
    Ok(())
}

/// Runs `augur characterize`. Ctrl-C stops the experiments, removes the temporary build
/// directory, writes nothing and exits with 130.
pub fn characterize(
    fc: &str,
    fflags: &str,
    quick: bool,
    precise: bool,
    only: &[String],
    output: &Path,
) -> Result<ExitCode> {
    let start = Instant::now();
    let tc = Toolchain::detect(fc, fflags)?;
    tc.check_flags()?;
    stop_if_interrupted()?;
    let all = experiments::catalogue();
    let exps = if only.is_empty() {
        all
    } else {
        match experiments::select(&all, only) {
            Ok(e) => e,
            Err(bad) => bail!(
                "no experiment for {} (see `augur abops`; the profile lists what is not yet measured)",
                bad.join(", ")
            ),
        }
    };
    let (settings, mode) = if quick {
        (Settings::QUICK, "quick")
    } else if precise {
        (Settings::PRECISE, "precise")
    } else {
        (Settings::DEFAULT, "default")
    };
    eprintln!(
        "characterize: {} experiments with {} {} ({mode} mode: {} observations of at least {} ms)",
        exps.len(),
        tc.fc,
        tc.fflags.join(" "),
        settings.reps,
        settings.window_ns / 1_000_000
    );
    let bar = std::io::stderr()
        .is_terminal()
        .then(|| Bar::new(exps.len()));
    let say = Say(bar.as_ref().map(|b| b.0.clone()));
    let mut progress: Box<dyn Progress> = match bar {
        Some(bar) => Box::new(bar),
        None => Box::new(Lines { start }),
    };
    let beside = only.is_empty() && side_by_side();
    // The memory experiments on the second core while the AbOps' run on the first, then
    // on that core the stream kernels' build (a build measures nothing) while the AbOps'
    // re-observations go on; `--quick` times the stream kernels there too, and the in-core
    // kernels follow the AbOps' on the first core.
    let (result, incore_first, second) = std::thread::scope(|s| {
        let second = beside.then(|| s.spawn(|| second_core(&tc, quick, &say)));
        let result = augur_machine::characterize(&tc, &exps, settings, mode, progress.as_mut());
        let incore = (beside && quick && result.is_ok())
            .then(|| incore_beside(&tc, quick, "after the AbOp experiments"));
        (result, incore, second.map(joined))
    });
    let (memory, stream) = match second {
        Some(Ok((curves, stream))) => (Some(curves), stream),
        Some(Err(e)) => (Some(Err(e)), None),
        None => (None, None),
    };
    drop(progress);
    stop_if_interrupted()?;
    let mut profile = result.map_err(anyhow::Error::msg)?;
    if !only.is_empty() && output.exists() {
        profile = merge_into_existing(output, profile, only)?;
    }
    if only.is_empty() {
        profile.memory = Some(match memory {
            Some(curves) => finish_memory(curves?),
            None => measure_memory(&tc, quick)?,
        });
        stop_if_interrupted()?;
        let incore = match (stream, incore_first) {
            (Some(Ok(StreamPhase::Measured(result))), Some(incore)) => {
                note_stream(&result, &mut profile);
                incore.inspect(|p| print!("{}", augur_incore::report(p)))
            }
            (stream, _) => stream_and_incore(&tc, quick, stream.map(built), &mut profile)?,
        };
        stop_if_interrupted()?;
        // The in-core kernels are x86-64 assembly; another host keeps the rest.
        match incore {
            Ok(p) => profile.incore = Some(p),
            Err(e) if augur_toolchain::interrupt::cancelled() => return Err(e),
            Err(e) => eprintln!("characterize: no in-core section: {e:#}"),
        }
        stop_if_interrupted()?;
        // OpenMP when the compiler supports it; a compiler without it keeps the rest.
        match measure_openmp(&tc, quick) {
            Ok(o) => {
                profile.openmp = Some(o);
                warn_if_bandwidths_disagree(&profile);
            }
            Err(e) if augur_toolchain::interrupt::cancelled() => return Err(e),
            Err(e) => eprintln!("characterize: no OpenMP section: {e:#}"),
        }
        stop_if_interrupted()?;
        match measure_process(&tc, quick) {
            Ok(p) => profile.process = Some(p),
            Err(e) if augur_toolchain::interrupt::cancelled() => return Err(e),
            Err(e) => eprintln!("characterize: no process section: {e:#}"),
        }
    }
    stop_if_interrupted()?;
    profile
        .write(output)
        .with_context(|| format!("cannot write the machine profile {}", output.display()))?;
    println!(
        "{:<5} {:>12} {:>10} {:>7}  status",
        "AbOp", "mean ns", "±90% ns", "±%"
    );
    // Every AbOp an experiment measures, in catalogue order, and those no experiment can.
    let ops: Vec<augur_ir::AbOp> = augur_ir::abop::ALL
        .iter()
        .copied()
        .filter(|&op| {
            exps.iter().any(|e| experiments::measures(e, op))
                || (only.is_empty() && experiments::NOT_MEASURABLE.iter().any(|m| m.0 == op))
        })
        .collect();
    let (mut measured, mut not_detected, mut within3) = (0, 0, 0);
    for op in &ops {
        let entry = &profile.abop[op];
        match entry.status.as_str() {
            MEASURED => measured += 1,
            NOT_DETECTED => not_detected += 1,
            _ => {}
        }
        match (entry.mean_ns, entry.ci90_ns) {
            (Some(m), ci) => {
                let ci = ci.unwrap_or(f64::INFINITY);
                if entry.status == MEASURED && ci <= 0.03 * m {
                    within3 += 1;
                }
                println!(
                    "{:<5} {:>12.4} {:>10.4} {:>6.1}%  {}",
                    op.mnemonic(),
                    m,
                    ci,
                    100.0 * ci / m.abs(),
                    entry.status
                );
            }
            _ => println!(
                "{:<5} {:>12} {:>10} {:>7}  {}",
                op.mnemonic(),
                "-",
                "-",
                "-",
                entry.status
            ),
        }
    }
    let other = ops.len() - measured - not_detected;
    let share = if measured > 0 {
        100.0 * within3 as f64 / measured as f64
    } else {
        0.0
    };
    println!(
        "{measured} measured ({within3} = {share:.1}% with a 90% half-width within 3% of the mean), {not_detected} not detected, {other} failed, noisy or not measurable; timer resolution {} ns, window {} ms; {:.1} s; profile written to {}",
        profile.provenance.timer_resolution_ns,
        profile.provenance.window_ms,
        start.elapsed().as_secs_f64(),
        output.display()
    );
    Ok(ExitCode::SUCCESS)
}

/// How far the second core took the stream costs while the AbOps' ran on the first.
enum StreamPhase {
    /// Built and counted, not timed.
    Built(augur_stream::Prepared),
    /// Timed and fitted (`--quick`).
    Measured(augur_stream::StreamResult),
}

/// A built stream phase's kernels, or the error of one that was timed (the caller times
/// the kernels again).
fn built(phase: Result<StreamPhase>) -> Result<augur_stream::Prepared> {
    match phase? {
        StreamPhase::Built(p) => Ok(p),
        StreamPhase::Measured(_) => Err(anyhow::anyhow!("the stream costs were already timed")),
    }
}

/// The second core's work: the memory experiments, then the stream kernels' build (a
/// build measures nothing) and, with `quick`, their timing and fit.
fn second_core(
    tc: &Toolchain,
    quick: bool,
    say: &Say,
) -> Result<(
    Result<augur_memory::OneCoreCurves>,
    Option<Result<StreamPhase>>,
)> {
    let curves = memory_curves(tc, quick, say);
    let stream = curves.is_ok().then(|| {
        let prepared = prepare_stream(tc, quick, say)?;
        if !quick {
            return Ok(StreamPhase::Built(prepared));
        }
        let start = Instant::now();
        let result = prepared.measure(&mut |line| say.line(stream_line(line, start)))?;
        Ok(StreamPhase::Measured(result))
    });
    Ok((curves, stream))
}

/// The stream costs timed beside the AbOps' into `profile`, their fit's notes on stderr.
fn note_stream(result: &augur_stream::StreamResult, profile: &mut MachineProfile) {
    for n in &result.notes {
        eprintln!("characterize: stream: {n}");
    }
    augur_stream::apply(profile, result);
}

/// The stream costs into `profile` and the in-core parameters (returned: a host that is
/// not x86-64 has none, and the caller goes on), on two cores side by side where there
/// are two. `stream`: the stream kernels already built, if they are.
fn stream_and_incore(
    tc: &Toolchain,
    quick: bool,
    stream: Option<Result<augur_stream::Prepared>>,
    profile: &mut MachineProfile,
) -> Result<Result<augur_incore::InCoreProfile>> {
    if !side_by_side() {
        measure_stream(tc, quick, stream, profile)?;
        stop_if_interrupted()?;
        return Ok(measure_incore(tc, quick));
    }
    let (stream, incore) = std::thread::scope(|s| {
        let incore = s.spawn(|| incore_beside(tc, quick, "beside the stream costs"));
        let stream = measure_stream(tc, quick, stream, profile);
        let incore = joined(incore).inspect(|p| print!("{}", augur_incore::report(p)));
        (stream, incore)
    });
    stream?;
    Ok(incore)
}

/// The stream costs (independent iterations, scalar and vectorized), with progress lines
/// on stderr, added to `profile`: the complete characterization needs no separate
/// `augur stream` (which re-measures them alone). `prepared`: the kernels already built
/// while the memory experiments ran ([`prepare_stream`]), else built here.
fn measure_stream(
    tc: &Toolchain,
    quick: bool,
    prepared: Option<Result<augur_stream::Prepared>>,
    profile: &mut MachineProfile,
) -> Result<()> {
    let start = Instant::now();
    let mut say = |line: &str| eprintln!("{}", stream_line(line, start));
    let prepared = match prepared {
        Some(p) => p?,
        None => {
            eprintln!("{}", stream_header(tc, quick));
            augur_stream::prepare(tc, crate::stream::settings_for(quick), &mut say)?
        }
    };
    crate::stream::measure_prepared_into(prepared, profile, "characterize: stream", &mut say)?;
    Ok(())
}

/// A progress line of the stream costs, with the time since `start` unless it has one.
fn stream_line(line: &str, start: Instant) -> String {
    if line.ends_with("elapsed)") {
        format!("characterize: {line}")
    } else {
        format!(
            "characterize: {line} ({:.0} s elapsed)",
            start.elapsed().as_secs_f64()
        )
    }
}

/// The stream costs' first line.
fn stream_header(tc: &Toolchain, quick: bool) -> String {
    format!(
        "characterize: stream costs, {} kernels with {} {}",
        crate::stream::settings_for(quick).kernels,
        tc.fc,
        tc.fflags.join(" ")
    )
}

/// The stream kernels generated, built and counted on the second core once its memory
/// experiments are done, while the AbOps' go on on the first (a build measures nothing),
/// with progress lines through `say`.
fn prepare_stream(tc: &Toolchain, quick: bool, say: &Say) -> Result<augur_stream::Prepared> {
    say.line(format!(
        "{}, built beside the AbOp experiments",
        stream_header(tc, quick)
    ));
    Ok(augur_stream::prepare(
        tc,
        crate::stream::settings_for(quick),
        &mut |line| say.line(format!("characterize: {line}")),
    )?)
}

/// The memory experiments' settings.
fn memory_settings(quick: bool) -> augur_memory::Settings {
    if quick {
        augur_memory::Settings::QUICK
    } else {
        augur_memory::Settings::DEFAULT
    }
}

/// The memory characterization's first line.
fn memory_header(tc: &Toolchain, quick: bool) -> String {
    format!(
        "characterize: memory hierarchy with {} {} ({} mode)",
        tc.fc,
        tc.fflags.join(" "),
        if quick { "quick" } else { "default" }
    )
}

/// The memory characterization with progress lines on stderr.
fn measure_memory(tc: &Toolchain, quick: bool) -> Result<augur_memory::MemoryProfile> {
    let settings = memory_settings(quick);
    eprintln!("{}", memory_header(tc, quick));
    let start = Instant::now();
    let m = augur_memory::characterize(tc, &settings, &mut |msg| {
        eprintln!(
            "characterize: memory {msg} ({:.0} s elapsed)",
            start.elapsed().as_secs_f64()
        )
    })
    .map_err(anyhow::Error::msg)?;
    print!("{}", augur_memory::report(&m));
    Ok(m)
}

/// Whether experiments of two phases run side by side, each on a core of its own: on a
/// host of two cores or more. Measured on a 2-vCPU Xeon guest (2026-12-04, each pair
/// alone and side by side, alternated twice: `measurements/xeon-2026-12-04b/s78/
/// side-by-side.txt`), the median difference of the entries between a run alone and one
/// beside the other phase, against two runs alone: AbOp entries 2.9-4.0% (alone 3.9%),
/// memory curves 3.0-3.9% (5.1%), in-core parameters 1.4-2.4% (1.9%), stream costs
/// 5.6-6.3% (4.8%), every signed median within the host's drift between runs (the cycle
/// moved 9% in that hour). The phases that use both cores (the coherence line, OpenMP)
/// run alone.
fn side_by_side() -> bool {
    std::thread::available_parallelism().is_ok_and(|n| n.get() >= 2)
}

/// Progress lines from a phase run beside another: through the progress bar when there
/// is one (so that they do not tear it), else on stderr.
struct Say(Option<indicatif::ProgressBar>);

impl Say {
    fn line(&self, msg: String) {
        match &self.0 {
            Some(bar) => bar.println(msg),
            None => eprintln!("{msg}"),
        }
    }
}

/// The result of a phase's thread; a panic in it is an error, not a panic of augur.
fn joined<T>(handle: std::thread::ScopedJoinHandle<'_, Result<T>>) -> Result<T> {
    handle.join().unwrap_or_else(|_| {
        Err(anyhow::anyhow!(
            "a characterization thread stopped unexpectedly"
        ))
    })
}

/// The memory experiments of one core, with progress lines through `say`.
fn memory_curves(tc: &Toolchain, quick: bool, say: &Say) -> Result<augur_memory::OneCoreCurves> {
    let settings = memory_settings(quick);
    say.line(format!(
        "{}, beside the AbOp experiments",
        memory_header(tc, quick)
    ));
    let start = Instant::now();
    augur_memory::measure_curves(tc, &settings, &mut |msg| {
        say.line(format!(
            "characterize: memory {msg} ({:.0} s elapsed)",
            start.elapsed().as_secs_f64()
        ))
    })
    .map_err(anyhow::Error::msg)
}

/// The two-thread part of the memory characterization and its inference, with its table.
fn finish_memory(curves: augur_memory::OneCoreCurves) -> augur_memory::MemoryProfile {
    let m = curves.finish(&mut |msg| eprintln!("characterize: memory {msg}"));
    print!("{}", augur_memory::report(&m));
    m
}

/// The in-core parameters measured beside another phase (`when` says which): a line when
/// they start and one when they end (the other phase prints its own), the table printed
/// after both.
fn incore_beside(tc: &Toolchain, quick: bool, when: &str) -> Result<augur_incore::InCoreProfile> {
    let (settings, _) = incore_settings(quick);
    eprintln!(
        "characterize: in-core kernels assembled by {}, linked by {}, {when}",
        tc.cc, tc.fc
    );
    let start = Instant::now();
    let mut kernels = 0;
    let p = augur_incore::characterize(tc, &settings, &mut |_, total| kernels = total)?;
    eprintln!(
        "characterize: in-core {kernels} kernels measured ({:.1} s)",
        start.elapsed().as_secs_f64()
    );
    Ok(p)
}

/// The in-core settings and the mode's name.
fn incore_settings(quick: bool) -> (augur_incore::Settings, &'static str) {
    if quick {
        (augur_incore::Settings::QUICK, "quick")
    } else {
        (augur_incore::Settings::DEFAULT, "default")
    }
}

/// The in-core parameters (`augur_incore`) with a progress bar (progress lines when
/// stderr is not a terminal), and their table.
fn measure_incore(tc: &Toolchain, quick: bool) -> Result<augur_incore::InCoreProfile> {
    let (settings, mode) = incore_settings(quick);
    eprintln!(
        "characterize: in-core kernels assembled by {}, linked by {} ({mode} mode: {} observations of {} ms)",
        tc.cc, tc.fc, settings.observations, settings.window_ms
    );
    let start = Instant::now();
    let mut bar: Option<Bar> = None;
    let measured = augur_incore::characterize(tc, &settings, &mut |done, total| {
        if std::io::stderr().is_terminal() {
            let b = bar.get_or_insert_with(|| Bar::counting(total, "in-core kernels"));
            b.0.set_position(done as u64);
        } else if done > 0 {
            eprintln!(
                "characterize: in-core {done}/{total} kernels ({:.1} s elapsed)",
                start.elapsed().as_secs_f64()
            );
        }
    });
    drop(bar);
    let p = measured?;
    print!("{}", augur_incore::report(&p));
    Ok(p)
}

/// How far apart the two measurements of main memory's bandwidth in one characterization
/// may be before one of them is called disturbed: the memory section's triad and, minutes
/// later, the OpenMP section's one-thread triad (on the Zen 4 guest they agree within 6%
/// when nothing disturbs them).
const BANDWIDTH_AGREEMENT: f64 = 0.2;

/// A triad is bound by memory when its figure in the first cache is at least this many
/// times its figure beyond the caches; at -O0 its own instructions bound every size alike
/// (14.2 GB/s in L1, 13.2 beyond, on the Zen 4 guest), and two triads compiled apart
/// differ by their code, not by a disturbance.
const MEMORY_BOUND: f64 = 1.5;

/// A warning when the memory section's main-memory bandwidth and the OpenMP section's
/// one-thread triad beyond the caches disagree by more than [`BANDWIDTH_AGREEMENT`], both
/// bound by memory ([`MEMORY_BOUND`]): another guest's memory traffic lowers a bandwidth
/// without the process's CPU time showing it, so the lower one was likely disturbed (a
/// memory section read 17 GB/s where the OpenMP triad read 25 and the day's other profiles
/// 25). It says which to measure again.
fn memory_bandwidth_disagreement(profile: &MachineProfile) -> Option<String> {
    let memory = profile.memory.as_ref()?;
    let sequential = memory.memory.bandwidth_gbs;
    let in_cache = memory
        .streams
        .iter()
        .filter(|s| s.kernel == "triad")
        .min_by_key(|s| s.array_bytes)?
        .gbs;
    let team_at = |level: &str| {
        profile
            .openmp
            .as_ref()?
            .bandwidths
            .iter()
            .find(|b| b.threads == 1 && b.level == level)
            .map(|b| b.bytes_per_second / 1e9)
    };
    let (team, team_in_cache) = (team_at("memory")?, team_at("L1")?);
    let bound_by_memory = |cache: f64, beyond: f64| beyond > 0.0 && cache >= MEMORY_BOUND * beyond;
    if !bound_by_memory(in_cache, sequential) || !bound_by_memory(team_in_cache, team) {
        return None;
    }
    let ratio = sequential / team;
    if (1.0 - BANDWIDTH_AGREEMENT..=1.0 / (1.0 - BANDWIDTH_AGREEMENT)).contains(&ratio) {
        return None;
    }
    let (low, again) = if sequential < team {
        ("the memory section's", "--memory")
    } else {
        ("the OpenMP section's", "--openmp")
    };
    Some(format!(
        "main memory's bandwidth measured {sequential:.1} GB/s by the memory section's triad and \
         {team:.1} GB/s by the OpenMP section's one-thread triad: {low} was likely disturbed \
         (another program's memory traffic); measure it again with `augur characterize {again} \
         -o FILE` (the rest of the file is kept)"
    ))
}

/// Prints [`memory_bandwidth_disagreement`]'s warning, if any.
fn warn_if_bandwidths_disagree(profile: &MachineProfile) {
    if let Some(warning) = memory_bandwidth_disagreement(profile) {
        eprintln!("characterize: {warning}");
    }
}

/// Measures the OpenMP overheads and bandwidth per thread count (1 to the cores) with
/// `tc` plus `-fopenmp`, and prints their table.
fn measure_openmp(
    tc: &Toolchain,
    quick: bool,
) -> Result<augur_machine_profile::openmp::OpenMpProfile> {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get() as u32);
    let mut opts = augur_openmp::Options::for_host(cores);
    if quick {
        opts.observations = 10;
        opts.max_rounds = 1;
    }
    eprintln!(
        "characterize: OpenMP overheads with {} {} -fopenmp, 1 to {cores} threads",
        tc.fc,
        tc.fflags.join(" ")
    );
    let start = Instant::now();
    let o = augur_openmp::characterize(tc, &opts, cores, &mut |msg| {
        eprintln!(
            "characterize: OpenMP {msg} ({:.0} s elapsed)",
            start.elapsed().as_secs_f64()
        )
    })?;
    print!("{}", augur_openmp::report(&o));
    Ok(o)
}

/// Measures the network between MPI ranks (2 to the cores) with the MPI wrapper compiler
/// and `tc`'s flags, and prints its tables.
fn measure_mpi(tc: &Toolchain, quick: bool) -> Result<augur_machine_profile::mpi::MpiProfile> {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get() as u32);
    let mut opts = augur_mpi::Options::for_host(cores);
    if quick {
        opts.observations = 5;
        opts.observation_seconds = 0.002;
    }
    eprintln!(
        "characterize: MPI network with mpif90 {}, 2 to {} ranks",
        tc.fflags.join(" "),
        cores.max(2)
    );
    let start = Instant::now();
    let m = augur_mpi::characterize(&tc.fflags, &opts, cores, &mut |msg| {
        eprintln!(
            "characterize: MPI {msg} ({:.0} s elapsed)",
            start.elapsed().as_secs_f64()
        )
    })?;
    print!("{}", augur_mpi::report(&m));
    Ok(m)
}

/// Runs of the process-start program (`--quick`: fewer).
const PROCESS_RUNS: usize = 21;

/// Measures what a run pays outside the program's code and says it.
fn measure_process(tc: &Toolchain, quick: bool) -> Result<ProcessProfile> {
    let runs = if quick {
        PROCESS_RUNS / 2
    } else {
        PROCESS_RUNS
    };
    let p = augur_machine::process::measure_start(tc, runs)?;
    println!(
        "process: a program that only prints a number takes {:.3} ms of CPU time (median of {} runs, ±{:.3} ms): the loader, the run-time libraries' start and the exit, added to every prediction",
        p.start_ns * 1e-6,
        p.runs,
        p.spread_ns * 1e-6
    );
    Ok(p)
}

/// Which section `augur characterize --memory`, `--openmp`, `--mpi`, `--incore` or
/// `--process` measures.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Section {
    /// The memory hierarchy.
    Memory,
    /// OpenMP overheads and bandwidth per thread count.
    OpenMp,
    /// The network between MPI ranks.
    Mpi,
    /// The in-core parameters: instruction classes' latencies and throughputs.
    InCore,
    /// What a run pays outside the program's code (the process's start and exit).
    Process,
}

/// Runs `augur characterize --memory`, `--openmp`, `--mpi`, `--incore` or `--process`: measures one section and writes it
/// into `output` (an existing profile keeps everything else; the file is replaced
/// atomically). Ctrl-C writes nothing and exits with 130.
pub fn section(
    section: Section,
    fc: &str,
    fflags: &str,
    quick: bool,
    output: &Path,
) -> Result<ExitCode> {
    let start = Instant::now();
    if section == Section::Mpi {
        // Before the compiler's checks: the MPI library is what is most likely missing.
        augur_mpi::tools()?;
    }
    let tc = Toolchain::detect(fc, fflags)?;
    tc.check_flags()?;
    let mut profile = existing_or_new(output, &tc, &format!("{section:?} only").to_lowercase())?;
    match section {
        Section::Memory => profile.memory = Some(measure_memory(&tc, quick)?),
        Section::OpenMp => profile.openmp = Some(measure_openmp(&tc, quick)?),
        Section::Mpi => profile.mpi = Some(measure_mpi(&tc, quick)?),
        Section::InCore => profile.incore = Some(measure_incore(&tc, quick)?),
        Section::Process => profile.process = Some(measure_process(&tc, quick)?),
    }
    stop_if_interrupted()?;
    warn_if_bandwidths_disagree(&profile);
    profile
        .write(output)
        .with_context(|| format!("cannot write the machine profile {}", output.display()))?;
    println!(
        "{} characterization: {:.1} s; profile written to {}",
        format!("{section:?}").to_lowercase(),
        start.elapsed().as_secs_f64(),
        output.display()
    );
    Ok(ExitCode::SUCCESS)
}

/// The profile at `output` when it exists (read first, so that a bad file fails before
/// the measurement), else a new one of `tc` with every AbOp not yet measured.
pub fn existing_or_new(output: &Path, tc: &Toolchain, mode: &str) -> Result<MachineProfile> {
    if output.exists() {
        return Ok(MachineProfile::read(output)?);
    }
    let version = env!("CARGO_PKG_VERSION");
    let prov = augur_toolchain::os::toolchain_provenance(tc, version, mode);
    Ok(MachineProfile::new(prov))
}

/// Runs `augur diff A B`: per-AbOp relative difference (B - A) / A and the median of their
/// absolute values over the AbOps measured in both.
pub fn diff(a: &Path, b: &Path) -> Result<ExitCode> {
    // A file or a library name, as `-m` takes.
    let a = &augur_machine_profile::library::resolve(&a.to_string_lossy())?;
    let b = &augur_machine_profile::library::resolve(&b.to_string_lossy())?;
    let pa = MachineProfile::read(a)?;
    let pb = MachineProfile::read(b)?;
    println!(
        "A: {} ({} {}, {})",
        a.display(),
        pa.provenance.compiler,
        pa.provenance.fflags,
        pa.provenance.date
    );
    println!(
        "B: {} ({} {}, {})",
        b.display(),
        pb.provenance.compiler,
        pb.provenance.fflags,
        pb.provenance.date
    );
    println!("{:<5} {:>12} {:>12} {:>9}", "AbOp", "A ns", "B ns", "B/A-1");
    let mut rel = Vec::new();
    for (op, ea) in &pa.abop {
        let Some(eb) = pb.abop.get(op) else { continue };
        match (pa.measured(*op), pb.measured(*op)) {
            (Some(x), Some(y)) => {
                let r = y / x - 1.0;
                rel.push(r.abs());
                println!(
                    "{:<5} {:>12.4} {:>12.4} {:>8.1}%",
                    op.mnemonic(),
                    x,
                    y,
                    100.0 * r
                );
            }
            _ if ea.status != eb.status => {
                println!(
                    "{:<5} {:>12} {:>12}  status: {} -> {}",
                    op.mnemonic(),
                    "",
                    "",
                    ea.status,
                    eb.status
                )
            }
            _ => {}
        }
    }
    if rel.is_empty() {
        println!("no AbOp is measured in both profiles");
    } else {
        println!(
            "median |B/A-1| over {} AbOps measured in both: {:.2}%",
            rel.len(),
            100.0 * median(&rel)
        );
    }
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;
    use augur_machine_profile::memory::{MemoryProfile, StreamPoint};
    use augur_machine_profile::openmp::{Bandwidth, OpenMpProfile};
    use augur_machine_profile::Provenance;

    /// A profile whose triads read `sequential_gbs` and `team_gbs` beyond the caches and
    /// `in_cache_gbs` in the first cache.
    fn with_bandwidths(sequential_gbs: f64, team_gbs: f64, in_cache_gbs: f64) -> MachineProfile {
        let mut p = MachineProfile::new(Provenance::default());
        let mut memory = MemoryProfile::default();
        memory.memory.bandwidth_gbs = sequential_gbs;
        memory.streams = vec![StreamPoint {
            kernel: "triad".into(),
            array_bytes: 8192,
            gbs: in_cache_gbs,
        }];
        p.memory = Some(memory);
        let team = |level: &str, gbs: f64| Bandwidth {
            level: level.into(),
            bytes: 1 << 28,
            threads: 1,
            bytes_per_second: gbs * 1e9,
            shared: true,
        };
        p.openmp = Some(OpenMpProfile {
            bandwidths: vec![team("L1", in_cache_gbs), team("memory", team_gbs)],
            cores: 2,
            threads: vec![1],
            delay_seconds: 2e-8,
            schedule_iterations: 128,
            overheads: vec![],
        });
        p
    }

    #[test]
    fn two_memory_bandwidths_that_disagree_name_the_section_to_measure_again() {
        assert_eq!(
            memory_bandwidth_disagreement(&with_bandwidths(24.8, 26.3, 80.0)),
            None
        );
        let low_sequential = memory_bandwidth_disagreement(&with_bandwidths(16.95, 25.0, 80.0))
            .expect("17 against 25 GB/s disagree");
        assert!(low_sequential.contains("--memory"), "{low_sequential}");
        let low_team = memory_bandwidth_disagreement(&with_bandwidths(25.0, 16.0, 80.0))
            .expect("25 against 16 GB/s disagree");
        assert!(low_team.contains("--openmp"), "{low_team}");
        // Triads their own code bounds (-O0: as fast in the first cache as beyond it)
        // differ by their code: no warning.
        assert_eq!(
            memory_bandwidth_disagreement(&with_bandwidths(21.5, 13.2, 14.2)),
            None
        );
        let bare = MachineProfile::new(Provenance::default());
        assert_eq!(memory_bandwidth_disagreement(&bare), None);
    }
}
