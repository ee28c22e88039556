//! Stream-context AbOp costs: what each abstract operation costs inside loops whose
//! iterations are independent, as the machine's compiler and flags build them.
//!
//! # Why
//!
//! The narrow-spectrum characterizer (`augur-machine`) times each AbOp in a dependent
//! chain (`x = x + a` repeated): its *latency*. An out-of-order, vectorizing CPU overlaps
//! the iterations of ordinary array loops (`y(i) = x(i) + a*x(i+1)`), so chain costs
//! over-predict such loops several times over. This crate measures the costs in the
//! *stream* context instead, indirectly, in the spirit of Saavedra-Barrera's indirect
//! tests (dissertation §2.6, digest 001 §4.3 and §4.7), generalized to a least-squares
//! fit over many experiments.
//!
//! # Method
//!
//! 1. **Kernels** ([`gen`]): about 90 deterministic, seeded random Fortran loop kernels,
//!    each one innermost loop of 512 independent iterations (L1-resident: at most 25 KB
//!    of arrays) with 1-3 assignments of random expression trees over `real(8)`,
//!    `real(4)`, `integer(4)` and `complex(8)` array elements, scalars and literals, with
//!    `+ - * /`, `sqrt abs exp sin max mod`, shifted (`x(i+1)`), 2-D and gathered
//!    (`x(idx(i))`) operands, mixed kinds, local (dummy) or global (module) operands, and
//!    data-dependent IFs on a fixed random pattern.
//! 2. **Counts** ([`counts`]): augur's own front end and counting rules give each
//!    kernel's AbOps per element iteration (the innermost loop's header and body blocks,
//!    IF branches weighted by the pattern's fraction), so the parameters are in the units
//!    of program counts.
//! 3. **Timing**: one generated program (plus a separately compiled support file for
//!    initialization and an opaque result routine, and the dispatcher in a third file so
//!    nothing is inlined across) calibrates each kernel's repetitions to a window
//!    (20 ms by default) and takes one observation; R passes over all kernels (7; quick
//!    3) spread each kernel's observations over the whole run; a kernel's time is the
//!    mean of the lower half of its observations (ns per element iteration), a trimmed
//!    mean robust to the time other processes take. Kernels that fail to build, give non-finite or
//!    denormal results, or whose loop the compiler removed are dropped with a note.
//! 4. **Fit** ([`fit`]): non-negative least squares (Lawson-Hanson, [`nnls`]) of
//!    t_k = Σ_i c_ki·p_i weighted by 1/t_k (relative errors), over the AbOps that appear
//!    in at least 4 kernels and are not collinear with others; standard errors from the
//!    residual variance and (AᵀWA)⁻¹, 90% intervals with K - P degrees of freedom, R²
//!    and leave-one-out cross-validation of the kernel times.
//!
//! 5. **The dividers** ([`gen::divider_kernels`]): one kernel per divide and square
//!    root, and per integer divide and remainder, `y(i) = a(i) / b(i)` over independent
//!    elements to a count known only at run time (left scalar), times how long each
//!    operation holds its unit, which is not pipelined (`MachineProfile::divider`): a
//!    least-squares cost is an average over
//!    kernels in which the unit overlaps other work, and would let a loop of divides and
//!    square roots run faster than the unit can serve them.
//!
//! # Limits
//!
//! * The model is linear: the cost of a kernel is the sum of its operations' costs. Real
//!   stream loops are limited by several resources at once (load/store ports, FP units,
//!   the front end), so a parameter is an *average marginal* cost over kernels like
//!   these, not a property of one instruction. The LOO error says how well it transfers.
//! * `LOOV` is present once per iteration in every kernel, so it is the intercept: it
//!   absorbs everything constant per iteration (and the per-repetition call, amortized
//!   over 512 iterations).
//! * Costs are for L1-resident data; memory traffic beyond L1 is the memory term's job.
//! * Branch misprediction of the IF kernels is linear in the THEN fraction only through
//!   the block weights; the pattern's randomness is charged to `GOTO` and the compares.
//! * AbOps that appear in too few kernels, or always in the same ratio as others, get no
//!   stream entry; the predictor falls back to their chain cost.

pub mod counts;
pub mod fit;
pub mod gen;
pub mod nnls;
mod timing;

use augur_ir::{AbOp, AbOpCounts};
use augur_machine_profile::{AbOpEntry, MachineProfile, MEASURED, NOT_DETECTED};
use augur_toolchain::{self as toolchain, Toolchain, ToolchainError};
use std::collections::BTreeMap;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// How much to measure.
#[derive(Debug, Clone, PartialEq)]
pub struct StreamSettings {
    /// Target duration of one observation, ms (10 by default).
    pub window_ms: f64,
    /// Observations per kernel at most.
    pub observations: u32,
    /// Observations of every kernel before its estimate may be taken as settled: a
    /// kernel whose lower half of observations agree within [`Self::settle`] is not
    /// observed again ([`settled`]).
    pub min_observations: u32,
    /// The relative spread of a kernel's lower half of observations under which its
    /// estimate is settled.
    pub settle: f64,
    /// Number of kernels generated.
    pub kernels: usize,
    /// Seed of the generator.
    pub seed: u64,
    /// An AbOp must appear in at least this many kernels to get a parameter.
    pub min_kernels: usize,
    /// The machine's chain (latency) costs, ns: with them, each stream cost is drawn
    /// towards its chain cost times the median stream/chain ratio of a first fit
    /// ([`fit::fit_with_prior`]); empty = no prior.
    pub chain_costs: BTreeMap<AbOp, f64>,
    /// Keep the generated sources and build here instead of a temporary directory.
    pub keep_dir: Option<PathBuf>,
}

impl Default for StreamSettings {
    /// 288 kernels, 2 to 7 observations of 10 ms each (settled within 2%).
    fn default() -> StreamSettings {
        StreamSettings {
            window_ms: 10.0,
            observations: 7,
            min_observations: 2,
            settle: 0.02,
            kernels: 288,
            seed: 20_261_122,
            min_kernels: 4,
            chain_costs: BTreeMap::new(),
            keep_dir: None,
        }
    }
}

impl StreamSettings {
    /// Quick mode: 2 observations of 4 ms (a complete characterization's 7 of 10 ms took
    /// 21 of `--quick`'s 52 s on a Xeon guest; its kernels run in the first level, where
    /// 4 ms hold tens of thousands of iterations).
    pub fn quick() -> StreamSettings {
        StreamSettings {
            window_ms: 4.0,
            observations: 2,
            ..StreamSettings::default()
        }
    }
}

/// One kernel of the result table.
#[derive(Debug, Clone, PartialEq)]
pub struct KernelRow {
    /// The subroutine's name (`aug_k12`).
    pub name: String,
    /// What it is, e.g. `r8 local gather, 2 stmt`.
    pub description: String,
    /// AbOps per element iteration.
    pub counts: AbOpCounts,
    /// Measured ns per element iteration (median of the observations); NaN if not measured.
    pub measured_ns: f64,
    /// Standard deviation of the observations, ns.
    pub sd_ns: f64,
    /// Observations taken.
    pub observations: usize,
    /// Time the fitted model gives, ns (NaN if the kernel was not in the fit).
    pub fitted_ns: f64,
    /// Leave-one-out prediction, ns (NaN if the kernel was not in the fit).
    pub loo_ns: f64,
    /// Why the kernel is not in the fit, if it is not.
    pub note: Option<String>,
    /// Whether the compiler reported the kernel's loop vectorized (its time then goes to
    /// the vector fit).
    pub vectorized: bool,
}

/// Statistics of the fit.
#[derive(Debug, Clone, PartialEq)]
pub struct FitStats {
    /// Kernels generated.
    pub generated: usize,
    /// Kernels used in the fit (K).
    pub kernels: usize,
    /// Parameters fitted (P).
    pub parameters: usize,
    /// R² of fitted against measured kernel times.
    pub r2: f64,
    /// Median relative error of the leave-one-out predictions of the kernel times.
    pub loo_median: f64,
    /// 90th percentile of the same.
    pub loo_p90: f64,
    /// Median relative error of the fitted kernel times (in-sample).
    pub fit_median: f64,
    /// Wall time of the whole measurement, s.
    pub elapsed_s: f64,
    /// AbOps that appear in kernels but got no parameter, with the reason.
    pub unfitted: Vec<(AbOp, String)>,
}

/// What [`characterize_stream`] measured.
#[derive(Debug, Clone, PartialEq)]
pub struct StreamResult {
    /// The stream-context entries of the loops the compiler did not vectorize, for
    /// [`MachineProfile::stream`] (all kernels when there is no vectorization report).
    pub entries: BTreeMap<AbOp, AbOpEntry>,
    /// The entries of the vectorized loops, for [`MachineProfile::stream_vector`]
    /// (empty when too few kernels vectorized or the compiler gives no report).
    pub vector_entries: BTreeMap<AbOp, AbOpEntry>,
    /// The vector fit's statistics, when there is one.
    pub vector_stats: Option<FitStats>,
    /// Every generated kernel.
    pub kernels: Vec<KernelRow>,
    /// The fit's statistics.
    pub stats: FitStats,
    /// Notes: kernels dropped and why.
    pub notes: Vec<String>,
    /// The issue floor of the kernels the compiler did not vectorize: the least time per
    /// element over AbOps per element (mispredictions apart) of any of them, in ns, for
    /// [`MachineProfile::stream_floor_ns`].
    pub floor_ns: Option<f64>,
    /// The same over the kernels it vectorized.
    pub vector_floor_ns: Option<f64>,
    /// The divider's occupancy per operation, for [`MachineProfile::divider`].
    pub divider_entries: BTreeMap<AbOp, AbOpEntry>,
    /// The correlations of `entries` fitted together, for
    /// [`MachineProfile::stream_correlation`].
    pub correlation: Vec<(AbOp, AbOp, f64)>,
    /// The same of `vector_entries`.
    pub vector_correlation: Vec<(AbOp, AbOp, f64)>,
}

/// The correlations of a fit's parameters, each pair once, those with |r| of at least
/// [`augur_machine_profile::MIN_CORRELATION`], leaving out the AbOps in `direct` (costs
/// measured on their own afterwards).
fn correlations_of(f: &fit::Fit, direct: &[AbOp]) -> Vec<(AbOp, AbOp, f64)> {
    let mut out = vec![];
    for (i, row) in f.correlation.iter().enumerate() {
        for (j, &r) in row.iter().enumerate().skip(i + 1) {
            let (a, b) = (f.columns[i], f.columns[j]);
            if r.abs() >= augur_machine_profile::MIN_CORRELATION
                && !direct.contains(&a)
                && !direct.contains(&b)
            {
                out.push((a, b, (r * 1000.0).round() / 1000.0));
            }
        }
    }
    out
}

/// The issue floor: the 5th percentile of `time / issued AbOps` over `rows` (library
/// calls' kernels and kernels without a time apart) whose `vectorized` flag is
/// `vectorized`, in ns. A low quantile rather than the least: a kernel whose counts
/// overstate its work (a subexpression written twice that the compiler computes once)
/// would set the floor alone.
fn issue_floor(rows: &[KernelRow], calls_from: usize, vectorized: bool) -> Option<f64> {
    let per_op: Vec<f64> = rows
        .iter()
        .take(calls_from)
        .filter(|r| r.vectorized == vectorized && r.measured_ns.is_finite() && r.measured_ns > 0.0)
        .filter_map(|r| {
            let issued: f64 = r
                .counts
                .iter()
                .filter(|(op, _)| !matches!(op, AbOp::BRMP | AbOp::BRMC))
                .map(|(_, n)| n)
                .sum();
            (issued > 0.0).then(|| r.measured_ns / issued)
        })
        .collect();
    (!per_op.is_empty()).then(|| fit::quantile(&per_op, FLOOR_QUANTILE))
}

/// The quantile of the kernels' time per AbOp taken as the issue floor.
pub const FLOOR_QUANTILE: f64 = 0.05;

/// Why a stream characterization failed.
#[derive(Debug, thiserror::Error)]
pub enum StreamError {
    /// The compiler does not exist or does not run.
    #[error("{0}")]
    NoCompiler(String),
    /// The compiler rejected the flags.
    #[error("{0}")]
    FlagsRejected(String),
    /// The generated program did not build (not the fault of single kernels).
    #[error("the stream kernels do not build: {0}")]
    Build(String),
    /// The program could not be run or printed nothing usable.
    #[error("the stream kernels did not run: {0}")]
    Run(String),
    /// Too few kernels measured for a fit.
    #[error("cannot fit the stream costs: {0}")]
    Fit(String),
    /// A file-system error.
    #[error("{0}")]
    Io(String),
}

/// Measures the stream-context costs with `tc`: generates the kernels, counts them, builds
/// and times them, and fits. `progress` gets one line per step.
pub fn characterize_stream(
    tc: &Toolchain,
    settings: StreamSettings,
    progress: &mut dyn FnMut(&str),
) -> Result<StreamResult, StreamError> {
    prepare(tc, settings, progress)?.measure(progress)
}

/// The kernels generated, built and counted, ready to be timed ([`Prepared::measure`]):
/// `augur characterize` builds them while the memory experiments still run on the other
/// core.
pub struct Prepared {
    settings: StreamSettings,
    start: Instant,
    dir: PathBuf,
    _tmp: Option<augur_toolchain::interrupt::TempDir>,
    kernels: Vec<gen::Kernel>,
    first_call: usize,
    first_divider: usize,
    notes: Vec<String>,
    failed: BTreeMap<usize, String>,
    exe: PathBuf,
    active: Vec<usize>,
    counts: Vec<AbOpCounts>,
    vectorized: Vec<bool>,
}

/// Generates, builds and counts the kernels (nothing is timed).
pub fn prepare(
    tc: &Toolchain,
    settings: StreamSettings,
    progress: &mut dyn FnMut(&str),
) -> Result<Prepared, StreamError> {
    let start = Instant::now();
    check_toolchain(tc)?;
    let (dir, tmp) = work_dir(&settings)?;
    let (kernels, first_call, first_divider) = all_kernels(&settings);
    let mut notes: Vec<String> = vec![];
    let mut failed: BTreeMap<usize, String> = BTreeMap::new();
    progress(&format!(
        "stream: {} kernels generated; building with {} {}",
        kernels.len(),
        tc.fc,
        tc.fflags.join(" ")
    ));
    // Build, leaving out kernels that do not compile.
    let (exe, active, act, lines) = timing::build_all(tc, &kernels, &dir, &mut failed, progress)?;
    let counts = count_kernels(&dir, &active, &act, &lines, kernels.len(), &mut failed);
    // Which kernels the compiler vectorized, from its own report.
    let vectorized = vectorized_kernels(tc, &dir, &active, kernels.len(), &lines, &mut notes);
    Ok(Prepared {
        settings,
        start,
        dir,
        _tmp: tmp,
        kernels,
        first_call,
        first_divider,
        notes,
        failed,
        exe,
        active,
        counts,
        vectorized,
    })
}

impl Prepared {
    /// Times the kernels and fits the costs.
    pub fn measure(self, progress: &mut dyn FnMut(&str)) -> Result<StreamResult, StreamError> {
        let Prepared {
            settings,
            start,
            dir,
            _tmp,
            kernels,
            first_call,
            first_divider,
            mut notes,
            mut failed,
            exe,
            active,
            counts,
            vectorized,
        } = self;
        let obs =
            timing::time_kernels(&exe, &dir, &settings, &active, &mut failed, start, progress)?;
        let times: Vec<f64> = (0..kernels.len())
            .map(|i| obs.get(&i).map_or(f64::NAN, |v| lower_half_mean(v)))
            .collect();
        for (i, why) in &failed {
            notes.push(format!("{}: dropped: {why}", kernels[*i].name()));
        }
        progress(&format!("stream: {} kernels timed; fitting", obs.len()));
        let m = Measurements {
            kernels: &kernels,
            first_call,
            first_divider,
            counts,
            vectorized,
            obs,
            failed,
            times,
        };
        let fits = fit_sets(&m, &settings, &mut notes)?;
        Ok(result_of(&m, &fits, start.elapsed().as_secs_f64(), notes))
    }
}

/// `tc.check_flags()`, its errors as stream errors.
fn check_toolchain(tc: &Toolchain) -> Result<(), StreamError> {
    tc.check_flags().map_err(|e| match e {
        ToolchainError::CompilerNotFound { .. } | ToolchainError::CompilerFailed { .. } => {
            StreamError::NoCompiler(e.to_string())
        }
        ToolchainError::FlagsRejected { .. } | ToolchainError::BadFlagSyntax { .. } => {
            StreamError::FlagsRejected(e.to_string())
        }
        ToolchainError::Io { .. } => StreamError::Io(e.to_string()),
    })
}

/// The directory to build in: `keep_dir` (created), else a new temporary directory,
/// returned beside it so that it lives as long as it is used.
fn work_dir(
    settings: &StreamSettings,
) -> Result<(PathBuf, Option<augur_toolchain::interrupt::TempDir>), StreamError> {
    match &settings.keep_dir {
        Some(d) => {
            std::fs::create_dir_all(d)
                .map_err(|e| StreamError::Io(format!("cannot create {}: {e}", d.display())))?;
            Ok((d.clone(), None))
        }
        None => {
            let tmp = augur_toolchain::interrupt::temp_dir("augur-stream-").map_err(|e| {
                StreamError::Io(format!("cannot create a temporary directory: {e}"))
            })?;
            Ok((tmp.path().to_path_buf(), Some(tmp)))
        }
    }
}

/// Every kernel: the random ones, the stencils (scalar multi-dimensional loops, one for
/// every nine kernels), then the library calls' own kernels and the divider's, which are
/// not in the least squares; with the indices of the first call and first divider kernel.
fn all_kernels(settings: &StreamSettings) -> (Vec<gen::Kernel>, usize, usize) {
    let mut kernels = gen::generate_kernels(settings.kernels, settings.seed);
    let first_stencil = kernels.len() + 1;
    kernels.extend(gen::stencil_kernels(
        settings.kernels.div_ceil(9),
        settings.seed,
        first_stencil,
    ));
    let first_call = kernels.len();
    kernels.extend(gen::call_kernels(first_call + 1));
    let first_divider = kernels.len();
    kernels.extend(gen::divider_kernels(first_divider + 1));
    (kernels, first_call, first_divider)
}

/// The AbOp counts of every kernel (empty for those not built); kernels the front end
/// cannot count go to `failed`. `act` are the built kernels as numbered in the program,
/// `lines` their lines in the kernel file.
fn count_kernels(
    dir: &Path,
    active: &[usize],
    act: &[gen::Kernel],
    lines: &[Range<u32>],
    n: usize,
    failed: &mut BTreeMap<usize, String>,
) -> Vec<AbOpCounts> {
    let kpath = dir.join("augkern.f90");
    let counted = counts::kernel_counts(&kpath, act, lines);
    let mut kcounts: Vec<AbOpCounts> = vec![AbOpCounts::new(); n];
    for (j, c) in counted.into_iter().enumerate() {
        match c {
            Ok(c) => kcounts[active[j]] = c,
            Err(e) => {
                failed.insert(active[j], e);
            }
        }
    }
    kcounts
}

/// The kernels with what was measured of them, by index into the generated list.
struct Measurements<'a> {
    /// Every generated kernel.
    kernels: &'a [gen::Kernel],
    /// The index of the first library-call kernel.
    first_call: usize,
    /// The index of the first divider kernel (after the calls').
    first_divider: usize,
    /// AbOps per element iteration.
    counts: Vec<AbOpCounts>,
    /// Whether the compiler reported the kernel's loop vectorized.
    vectorized: Vec<bool>,
    /// The observations of the timed kernels, ns per element iteration.
    obs: BTreeMap<usize, Vec<f64>>,
    /// The kernels dropped, with why.
    failed: BTreeMap<usize, String>,
    /// The kernel's time: the lower-half mean of its observations (NaN without).
    times: Vec<f64>,
}

/// The fit of the kernels the compiler did not vectorize (of all, without a split) and,
/// with enough vectorized kernels, the fit of those.
struct Fits {
    scalar: fit::Fit,
    vector: Option<fit::Fit>,
    /// Whether the kernels are split into the two sets.
    split: bool,
}

impl Fits {
    /// The fit a kernel belongs to.
    fn of(&self, vectorized: bool) -> &fit::Fit {
        match &self.vector {
            Some(v) if vectorized => v,
            _ => &self.scalar,
        }
    }
}

/// The fits: with at least [`MIN_VECTOR_KERNELS`] vectorized kernels timed, the scalar fit
/// leaves them out and a second fit takes only them; otherwise one fit over all kernels,
/// as without a report. The library calls' kernels are in neither.
fn fit_sets(
    m: &Measurements,
    settings: &StreamSettings,
    notes: &mut Vec<String>,
) -> Result<Fits, StreamError> {
    let (times, vectorized, first_call) = (&m.times, &m.vectorized, m.first_call);
    let n_vector = (0..m.kernels.len())
        .filter(|&i| vectorized[i] && times[i].is_finite())
        .count();
    let split = n_vector >= MIN_VECTOR_KERNELS;
    if !split && n_vector > 0 {
        notes.push(format!(
            "only {n_vector} kernels vectorized (at least {MIN_VECTOR_KERNELS} needed): one fit over all kernels"
        ));
    }
    let only = |want: bool| -> Vec<f64> {
        times
            .iter()
            .enumerate()
            .map(|(i, &t)| {
                if vectorized[i] == want && i < first_call {
                    t
                } else {
                    f64::NAN
                }
            })
            .collect()
    };
    let scalar_times = if split {
        only(false)
    } else {
        let mut t = times.clone();
        t[first_call..].fill(f64::NAN);
        t
    };
    let fit_set =
        |t: &[f64]| fit_toward_chain(&m.counts, t, settings.min_kernels, &settings.chain_costs);
    let scalar = fit_set(&scalar_times).map_err(StreamError::Fit)?;
    let vector = if split {
        match fit_set(&only(true)) {
            Ok(v) => Some(v),
            Err(e) => {
                notes.push(format!("no vector fit: {e}"));
                None
            }
        }
    } else {
        None
    };
    for fit in std::iter::once(&scalar).chain(vector.as_ref()) {
        for (i, why) in &fit.dropped {
            if !m.failed.contains_key(i) && why != fit::NO_TIME {
                notes.push(format!("{}: not in the fit: {why}", m.kernels[*i].name()));
            }
        }
    }
    Ok(Fits {
        scalar,
        vector,
        split,
    })
}

/// The result: the fits' entries with the calls' direct costs, the kernel table, the
/// statistics and the issue floors.
fn result_of(
    m: &Measurements,
    fits: &Fits,
    elapsed_s: f64,
    mut notes: Vec<String>,
) -> StreamResult {
    let stats_of = |f: &fit::Fit| FitStats {
        generated: m.kernels.len(),
        kernels: f.used.len(),
        parameters: f.columns.len(),
        r2: f.r2,
        loo_median: f.loo_median,
        loo_p90: f.loo_p90,
        fit_median: f.fit_median,
        elapsed_s,
        unfitted: f.unfitted.clone(),
    };
    let stats = stats_of(&fits.scalar);
    let scalar_what = if fits.split {
        "loop kernels the compiler did not vectorize"
    } else {
        "loop kernels"
    };
    let mut entries = entries_of(&fits.scalar, &stats, scalar_what);
    let vector_stats = fits.vector.as_ref().map(stats_of);
    let mut vector_entries = match (&fits.vector, &vector_stats) {
        (Some(v), Some(st)) => entries_of(v, st, "loop kernels the compiler vectorized"),
        _ => BTreeMap::new(),
    };
    // The calls' direct costs replace what the least squares made of them.
    let mut direct = vec![];
    for i in m.first_call..m.first_divider {
        let Some(v) = m.obs.get(&i) else {
            continue;
        };
        let own = fits.of(m.vectorized[i]);
        let call = gen::CALLS[(i - m.first_call) % gen::CALLS.len()];
        match call_entry(call.3, &m.kernels[i], &m.counts[i], m.times[i], v, own) {
            Ok((op, e)) if m.vectorized[i] && fits.vector.is_some() => {
                direct.push(op);
                vector_entries.insert(op, e);
            }
            Ok((op, e)) => {
                direct.push(op);
                entries.insert(op, e);
            }
            Err(why) => notes.push(format!("{}: {why}", m.kernels[i].name())),
        }
    }
    let divider_entries = divider_entries(m, &mut notes);
    let rows = kernel_rows(m, fits);
    let floor_ns = issue_floor(&rows, m.first_call, false);
    let vector_floor_ns = issue_floor(&rows, m.first_call, true);
    StreamResult {
        entries,
        vector_entries,
        vector_stats,
        kernels: rows,
        stats,
        notes,
        floor_ns,
        vector_floor_ns,
        divider_entries,
        correlation: correlations_of(&fits.scalar, &direct),
        vector_correlation: fits
            .vector
            .as_ref()
            .map_or_else(Vec::new, |v| correlations_of(v, &direct)),
    }
}

/// The divider's occupancy per operation from its kernels ([`gen::divider_kernels`]): the
/// time per element (one operation each). A kernel the compiler vectorized, or whose
/// counts do not hold the operation once, gives none (with a note).
fn divider_entries(m: &Measurements, notes: &mut Vec<String>) -> BTreeMap<AbOp, AbOpEntry> {
    let mut out = BTreeMap::new();
    for i in m.first_divider..m.kernels.len() {
        let Some(v) = m.obs.get(&i) else {
            continue;
        };
        let (_, _, mnemonic) = gen::DIVIDERS[i - m.first_divider];
        let name = m.kernels[i].name();
        let Some(op) = AbOp::from_mnemonic(mnemonic) else {
            continue;
        };
        let per = m.counts[i].get(op);
        if m.vectorized[i] {
            notes.push(format!("{name}: vectorized: no {op} divider occupancy"));
            continue;
        }
        if (per - 1.0).abs() > 1e-9 {
            notes.push(format!(
                "{name}: counted {per} {op} per iteration instead of 1: no divider occupancy"
            ));
            continue;
        }
        let n = v.len();
        let se = sd(v) / (n.max(1) as f64).sqrt();
        let ci = se * fit::t95(n.saturating_sub(1).max(1));
        let context = format!(
            "divider occupancy: `y(i) = {op}` over {} independent elements (L1-resident, \
             not vectorized) timed {n} times, time per element",
            gen::N
        );
        out.insert(op, stream_entry(m.times[i], se, ci, n as u32, context));
    }
    out
}

/// The table of every generated kernel.
fn kernel_rows(m: &Measurements, fits: &Fits) -> Vec<KernelRow> {
    m.kernels
        .iter()
        .enumerate()
        .map(|(i, k)| {
            let v = m.obs.get(&i);
            let own = fits.of(m.vectorized[i]);
            let note = m.failed.get(&i).cloned().or_else(|| {
                own.dropped
                    .iter()
                    .find(|(j, _)| *j == i)
                    .map(|(_, w)| w.clone())
            });
            KernelRow {
                name: k.name(),
                description: k.description.clone(),
                counts: m.counts[i].clone(),
                measured_ns: m.times[i],
                sd_ns: v.map_or(f64::NAN, |v| sd(v)),
                observations: v.map_or(0, Vec::len),
                fitted_ns: own.fitted[i],
                loo_ns: own.loo[i],
                note,
                vectorized: m.vectorized[i],
            }
        })
        .collect()
}

/// The direct stream cost of the library call (AbOp `mnemonic`) a call kernel measures:
/// the kernel's time per element less its other operations at their fitted costs
/// (`own`); an error when augur's counts of the kernel do not hold exactly one execution
/// of the call.
fn call_entry(
    mnemonic: &str,
    kernel: &gen::Kernel,
    counts: &AbOpCounts,
    time_ns: f64,
    observations: &[f64],
    own: &fit::Fit,
) -> Result<(AbOp, AbOpEntry), String> {
    let op = AbOp::from_mnemonic(mnemonic).ok_or(format!("{mnemonic} is not an AbOp"))?;
    if (counts.get(op) - 1.0).abs() > 1e-9 {
        return Err(format!(
            "counted {} {op} per iteration instead of 1: no direct cost",
            counts.get(op)
        ));
    }
    let rest: f64 = counts
        .iter()
        .filter(|(o, _)| *o != op)
        .map(|(o, n)| {
            own.columns
                .iter()
                .position(|c| *c == o)
                .map_or(0.0, |j| n * own.params[j])
        })
        .sum();
    let mean = (time_ns - rest).max(0.0);
    let n = observations.len();
    let sd = sd(observations);
    let se = if sd.is_finite() && n > 0 {
        sd / (n as f64).sqrt()
    } else {
        f64::NAN
    };
    let ci = se * fit::t95(n.saturating_sub(1).max(1));
    let context = format!(
        "stream context: direct, loop `{}` over {} elements (L1-resident) timed {n} times, \
         less its other operations at their fitted stream costs ({rest:.3} ns)",
        kernel
            .source
            .lines()
            .find(|l| l.contains("(i) = "))
            .map_or("", str::trim),
        gen::N,
    );
    Ok((op, stream_entry(mean, se, ci, n as u32, context)))
}

/// A stream-context entry: measured when its 90% interval excludes zero, else "not
/// detected" (uncertain; the predictor still uses its mean).
fn stream_entry(mean: f64, se: f64, ci90: f64, observations: u32, context: String) -> AbOpEntry {
    let status = if ci90.is_finite() && mean - ci90 > 0.0 {
        MEASURED
    } else {
        NOT_DETECTED
    };
    AbOpEntry {
        status: status.to_string(),
        mean_ns: Some(mean),
        sd_ns: se.is_finite().then_some(se),
        ci90_ns: ci90.is_finite().then_some(ci90),
        observations,
        context,
    }
}

/// Replaces the profile's stream entries with those of `result`.
pub fn apply(profile: &mut MachineProfile, result: &StreamResult) {
    profile.stream = result.entries.clone();
    profile.stream_vector = result.vector_entries.clone();
    profile.stream_floor_ns = result.floor_ns;
    profile.stream_vector_floor_ns = result.vector_floor_ns;
    profile.divider = result.divider_entries.clone();
    profile.stream_correlation = result.correlation.clone();
    profile.stream_vector_correlation = result.vector_correlation.clone();
}

/// A fit drawn towards the chain costs scaled by the median stream/chain ratio of an
/// unregularized first fit (plain [`fit::fit`] without chain costs).
fn fit_toward_chain(
    counts: &[AbOpCounts],
    times: &[f64],
    min_kernels: usize,
    chain: &BTreeMap<AbOp, f64>,
) -> Result<fit::Fit, String> {
    let first = fit::fit(counts, times, min_kernels)?;
    let ratios: Vec<f64> = first
        .columns
        .iter()
        .zip(&first.params)
        .filter_map(|(op, &p)| {
            let c = *chain.get(op)?;
            (c > 0.0 && p > 0.0).then_some(p / c)
        })
        .collect();
    if ratios.is_empty() {
        return Ok(first);
    }
    let r = fit::quantile(&ratios, 0.5);
    fit::fit_with_prior(counts, times, min_kernels, &|op| {
        chain.get(&op).map(|c| c * r)
    })
}

/// At least this many vectorized kernels are needed for a separate vector fit.
pub const MIN_VECTOR_KERNELS: usize = 16;

/// For each kernel (by index into the generated list), whether the compiler reported its
/// loop vectorized: gfortran's report written by the build itself
/// ([`timing::vector_report`]); another compiler's from the kernel file compiled once more,
/// without linking, with the report flags ([`augur_toolchain::optreport`]). A compiler
/// without a report, or a failed compile, leaves every kernel scalar with a note.
fn vectorized_kernels(
    tc: &Toolchain,
    dir: &Path,
    active: &[usize],
    n: usize,
    lines: &[Range<u32>],
    notes: &mut Vec<String>,
) -> Vec<bool> {
    let mut out = vec![false; n];
    let files = [dir.join("augsup.f90"), dir.join("augkern.f90")];
    let names = vec![files[1].display().to_string()];
    let mut mark = |printed: &str| {
        for v in augur_toolchain::optreport::parse(printed, &names).vectorized {
            if let Some(j) = lines.iter().position(|r| r.contains(&v.line)) {
                if let Some(&i) = active.get(j) {
                    out[i] = true;
                }
            }
        }
    };
    if tc.is_gfortran() {
        match std::fs::read_to_string(timing::vector_report(dir)) {
            Ok(printed) => mark(&printed),
            Err(e) => notes.push(format!(
                "no vectorization report (every kernel is fitted as one set): {e}"
            )),
        }
        return out;
    }
    let extra = augur_toolchain::optreport::report_flags(tc).unwrap_or_default();
    if extra.is_empty() {
        notes.push(format!(
            "no vectorization report from {}: every kernel is fitted as one set",
            tc.fc
        ));
        return out;
    }
    let report_dir = dir.join("optreport");
    match toolchain::compile_only(tc, &files, &extra, &report_dir) {
        Ok(printed) => mark(&printed.join("\n")),
        Err(e) => notes.push(format!(
            "no vectorization report (every kernel is fitted as one set): {e}"
        )),
    }
    out
}

/// The entries of a fit: `measured` when the 90% interval excludes 0, else `not
/// detected` (with the fitted mean). `sd_ns` is the parameter's standard error and
/// `observations` the number of kernels.
fn entries_of(f: &fit::Fit, s: &FitStats, what: &str) -> BTreeMap<AbOp, AbOpEntry> {
    f.columns
        .iter()
        .enumerate()
        .map(|(j, &op)| {
            let (p, se, ci) = (f.params[j], f.se[j], f.ci90[j]);
            let context = format!(
                "stream context: indirect least squares over {} {what} (n={}, L1-resident), \
                 {} parameters, {op} in {} kernels; R² {:.3}; LOO median error {:.1}%, p90 {:.0}%; \
                 sd_ns is the parameter's standard error",
                s.kernels,
                gen::N,
                s.parameters,
                f.appearances[j],
                s.r2,
                100.0 * s.loo_median,
                100.0 * s.loo_p90
            );
            (op, stream_entry(p, se, ci, s.kernels as u32, context))
        })
        .collect()
}

/// Whether a kernel's observations `v` settle its estimate: at least `min` of them, and
/// the lower half ([`lower_half_mean`]'s, at least two) within `tolerance` of its
/// smallest. Disturbances only add time, so further observations would move the estimate
/// only if the lowest ones disagreed.
pub fn settled(v: &[f64], min: usize, tolerance: f64) -> bool {
    let mut s: Vec<f64> = v.iter().copied().filter(|x| x.is_finite()).collect();
    if s.len() < min.max(2) {
        return false;
    }
    s.sort_by(f64::total_cmp);
    let h = s.len().div_ceil(2).max(2);
    s[0] > 0.0 && s[h - 1] / s[0] - 1.0 <= tolerance
}

/// The mean of the lower half of the observations (the lowest ceil(n/2)): a one-sided
/// trimmed mean. Disturbances (other processes, interrupts) only ever add time
/// (Saavedra §2.6.4), so on a loaded machine the upper half is where they are.
pub fn lower_half_mean(v: &[f64]) -> f64 {
    let mut s: Vec<f64> = v.iter().copied().filter(|x| x.is_finite()).collect();
    if s.is_empty() {
        return f64::NAN;
    }
    s.sort_by(f64::total_cmp);
    let h = s.len().div_ceil(2);
    s[..h].iter().sum::<f64>() / h as f64
}

fn sd(v: &[f64]) -> f64 {
    if v.len() < 2 {
        return f64::NAN;
    }
    let m = v.iter().sum::<f64>() / v.len() as f64;
    (v.iter().map(|x| (x - m).powi(2)).sum::<f64>() / (v.len() - 1) as f64).sqrt()
}

#[cfg(test)]
mod settle_tests {
    use super::settled;

    /// Two observations within 2% settle a kernel; a disturbed one above them does not
    /// unsettle it, two far apart at the bottom do, and fewer than the minimum never settle.
    #[test]
    fn a_kernel_settles_when_its_lowest_observations_agree() {
        assert!(settled(&[1.00, 1.015], 2, 0.02));
        assert!(!settled(&[1.00, 1.05], 2, 0.02));
        assert!(settled(&[1.00, 1.01, 1.60], 3, 0.02));
        assert!(!settled(&[1.00, 1.04, 1.60], 3, 0.02));
        assert!(!settled(&[1.00, 1.00], 3, 0.02));
        assert!(
            !settled(&[1.00], 1, 0.02),
            "one observation says nothing of its spread"
        );
    }
}

#[cfg(test)]
mod floor_tests {
    use super::*;

    fn row(ns: f64, ops: f64, vectorized: bool) -> KernelRow {
        let mut counts = AbOpCounts::new();
        counts.add(AbOp::ARDL, ops);
        counts.add(AbOp::BRMP, 5.0);
        KernelRow {
            name: String::new(),
            description: String::new(),
            counts,
            measured_ns: ns,
            sd_ns: 0.0,
            observations: 7,
            fitted_ns: f64::NAN,
            loo_ns: f64::NAN,
            note: None,
            vectorized,
        }
    }

    #[test]
    fn the_floor_is_a_low_quantile_of_time_per_issued_abop() {
        // 21 scalar kernels of 10 AbOps (mispredictions not counted) taking 1.0 to
        // 3.0 ns, one of them implausibly fast (0.1 ns: its counts overstate its work),
        // a vectorized one and a library call's kernel (left out).
        let mut rows: Vec<KernelRow> = (0..21)
            .map(|k| row(1.0 + 0.1 * k as f64, 10.0, false))
            .collect();
        rows[7].measured_ns = 0.1;
        rows.push(row(0.05, 10.0, true));
        rows.push(row(0.01, 10.0, false));
        let calls_from = rows.len() - 1;
        let f = issue_floor(&rows, calls_from, false).unwrap();
        // Sorted: 0.01, 0.10, 0.11, ... ns per AbOp; the 5th percentile of 21 is the
        // second value.
        assert!((f - 0.10).abs() < 1e-12, "{f}");
        assert_eq!(issue_floor(&rows, calls_from, true), Some(0.005));
        assert_eq!(issue_floor(&rows[..0], 0, false), None);
    }
}
