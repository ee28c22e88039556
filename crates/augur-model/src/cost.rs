//! The cost table: what each AbOp costs on one machine in each context (chain,
//! scalar stream, vectorized stream, issue floor), with the standard errors recovered
//! from the machine profile's intervals, and the price of [`Coefficients`] (a part of
//! the program's executions in those contexts).

use augur_ir::{AbOp, AbOpCounts};
use augur_machine_profile::MachineProfile;
use augur_machine_profile::{AbOpEntry, MEASURED, NOT_DETECTED};
use serde::Serialize;
use statrs::distribution::{ContinuousCDF, StudentsT};

/// z value of a two-sided 90% interval of a normal distribution.
pub const Z90: f64 = 1.644_853_626_951_472_2;

/// How the cost of one AbOp is known on a machine.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum CostStatus {
    /// Measured: the mean and its standard error are used.
    Measured,
    /// Below the machine's noise floor: costs 0, with the measurement's uncertainty.
    NotDetected,
    /// The machine profile has no usable cost (not measured, failed, or absent): costs 0
    /// and the prediction warns.
    Missing,
    /// A stream cost the loop kernels did not give (the AbOp was in too few of them):
    /// its chain cost times the median stream/chain ratio of its family (or of all
    /// inline AbOps), with the spread of those ratios in its uncertainty.
    Scaled,
}

/// The cost of one AbOp as the predictor uses it.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Parameter {
    /// Cost per execution, seconds (0 when not detected or missing).
    pub seconds: f64,
    /// Standard error of that cost, seconds.
    pub se_seconds: f64,
    /// How it is known.
    pub status: CostStatus,
}

/// A time with its standard deviation.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, schemars::JsonSchema)]
pub struct Estimate {
    /// Seconds.
    pub seconds: f64,
    /// Standard deviation, seconds.
    pub sd_seconds: f64,
}

impl Estimate {
    /// The 90% confidence interval: the normal approximation while it stays above zero;
    /// when the parameters are so uncertain that it would reach below zero (a time never
    /// is), the interval of a log-normal time with the same mean and standard deviation,
    /// which is positive and skewed upwards instead of cut at 0.
    pub fn ci90(&self) -> (f64, f64) {
        let (t, sd) = (self.seconds, self.sd_seconds);
        if t - Z90 * sd > 0.0 || t <= 0.0 {
            return ((t - Z90 * sd).max(0.0), t + Z90 * sd);
        }
        let s2 = (1.0 + (sd / t).powi(2)).ln();
        let (mu, s) = (t.ln() - s2 / 2.0, s2.sqrt());
        ((mu - Z90 * s).exp(), (mu + Z90 * s).exp())
    }

    /// Half-width of the 90% interval.
    pub fn half_width90(&self) -> f64 {
        Z90 * self.sd_seconds
    }

    /// `w·self + other`, with independent errors.
    pub fn add_weighted(&self, other: &Estimate, w: f64) -> Estimate {
        Estimate {
            seconds: other.seconds + w * self.seconds,
            sd_seconds: (other.sd_seconds.powi(2) + (w * self.sd_seconds).powi(2)).sqrt(),
        }
    }
}

/// The costs of every AbOp on one machine, indexed densely by AbOp: the chain (latency)
/// costs of the narrow-spectrum experiments and, when the machine profile has them, the
/// stream (throughput) costs of the indirect loop-kernel measurement.
#[derive(Debug, Clone)]
pub struct CostTable {
    chain: Vec<Parameter>,
    stream: Vec<Option<Parameter>>,
    vector: Vec<Option<Parameter>>,
    /// Whether the machine's compiler flags optimize (an `-O` level other than `-O0`):
    /// then local scalars live in registers and the stores and copies into them (a
    /// block's `register_writes`) cost nothing. Saavedra's rules charge every
    /// assignment as a store, right without optimization, and the loop kernels that
    /// measure the stream costs store only into arrays.
    pub register_scalars: bool,
    /// The issue floor of scalar loops, seconds per abstract operation
    /// (`MachineProfile::stream_floor_ns`; 0 when not measured).
    pub floor: f64,
    /// The same for vectorized loops.
    pub vector_floor: f64,
    /// What a floating-point value carried around a call pays per iteration: on
    /// x86-64 (System V) no vector register survives a call, so the value is stored
    /// before it and reloaded after, a round trip through the first cache level (its
    /// latency from the memory characterization; 0 without one).
    pub call_spill: f64,
    /// Whether the compiler keeps floating-point reductions in source order (it may not
    /// reassociate: no `-ffast-math`, `-Ofast`, `-fassociative-math`): then a vectorized
    /// loop still adds its sum one element after another, and the reduction's chain
    /// bounds it (gfortran 12 -O2 vectorizes `s = s + a(i,k)*b(k,j)` as a vector multiply
    /// and two scalar adds in turn: measured 0.54 ns an element on a Zen 5, the add's
    /// latency, where the vector costs say 0.11).
    pub ordered_reductions: bool,
    /// Seconds each operation of the divide and square-root unit holds it in a scalar
    /// loop, by AbOp (`MachineProfile::divider`; the global-operand forms take their local
    /// form's): an iteration takes at least the sum over its divides and square roots.
    /// Empty when the machine was characterized before it.
    pub divider: Vec<(AbOp, f64)>,
    /// The in-core parameters that price compiled loops (`MachineProfile::incore`);
    /// `None` for profiles made before them (every loop is then priced by its AbOps).
    pub incore: Option<augur_machine_profile::incore::InCoreProfile>,
    /// The correlations of the stream costs fitted together (`stream_correlation`), of
    /// the pairs both of whose costs this table takes from the fit.
    stream_correlation: Correlations,
    /// The same of the vectorized-loop costs.
    vector_correlation: Correlations,
}

/// Correlations of costs fitted together, each pair kept under its first AbOp, so that a
/// sum over the pairs a block's counts hold looks only at the AbOps it holds (a profile
/// correlates some 700 pairs; a block holds a few AbOps, and a prediction prices
/// thousands of blocks).
#[derive(Debug, Clone, Default)]
struct Correlations {
    by_first: Vec<Vec<(AbOp, f64)>>,
}

impl Correlations {
    fn new(pairs: impl Iterator<Item = (AbOp, AbOp, f64)>) -> Correlations {
        let mut by_first = vec![vec![]; augur_ir::abop::ALL.len()];
        for (a, b, r) in pairs {
            by_first[a.index()].push((b, r));
        }
        Correlations { by_first }
    }

    /// The pairs whose first AbOp is `a`.
    fn of(&self, a: AbOp) -> &[(AbOp, f64)] {
        self.by_first.get(a.index()).map_or(&[], Vec::as_slice)
    }
}

/// The operations of the divide and square-root unit, each with the AbOp whose measured
/// occupancy it takes.
pub const DIVIDER_ABOPS: [(AbOp, AbOp); 9] = [
    (AbOp::DRDL, AbOp::DRDL),
    (AbOp::DRDG, AbOp::DRDL),
    (AbOp::DRSL, AbOp::DRSL),
    (AbOp::DRSG, AbOp::DRSL),
    (AbOp::SQRD, AbOp::SQRD),
    (AbOp::SQRS, AbOp::SQRS),
    (AbOp::DISL, AbOp::DISL),
    (AbOp::DISG, AbOp::DISL),
    (AbOp::MODI, AbOp::MODI),
];

/// The divider occupancies of `machine` in seconds ([`CostTable::divider`]): its measured
/// entries (a `not detected` one is left out).
fn divider_occupancies(machine: &MachineProfile) -> Vec<(AbOp, f64)> {
    DIVIDER_ABOPS
        .iter()
        .filter_map(|&(op, measured_as)| {
            let e = machine.divider.get(&measured_as)?;
            let ns = e
                .mean_ns
                .filter(|m| e.status == MEASURED && m.is_finite() && *m > 0.0)?;
            Some((op, ns * 1e-9))
        })
        .collect()
}

/// so vectorize a reduction as partial sums).
pub fn reassociating(fflags: &str) -> bool {
    fflags.split_whitespace().any(|f| {
        matches!(
            f,
            "-Ofast" | "-ffast-math" | "-fassociative-math" | "-funsafe-math-optimizations"
        )
    })
}

/// Whether compiler flags ask for optimization: the last `-O` option is not `-O0`
/// (compilers do not optimize by default).
pub fn optimizing(fflags: &str) -> bool {
    fflags
        .split_whitespace()
        .rfind(|f| f.starts_with("-O"))
        .is_some_and(|f| f != "-O0")
}

/// Standard error of a mean from its 90% half-width and observation count.
fn standard_error(ci90: f64, observations: u32) -> f64 {
    if observations >= 2 {
        let t = StudentsT::new(0.0, 1.0, (observations - 1) as f64)
            .map(|d| d.inverse_cdf(0.95))
            .unwrap_or(Z90);
        ci90 / t
    } else {
        ci90 / Z90
    }
}

/// The parameter of a machine-profile entry (`None` when it has no usable cost).
fn parameter(e: &AbOpEntry) -> Option<Parameter> {
    let se = standard_error(e.ci90_ns.unwrap_or(0.0), e.observations) * 1e-9;
    match (e.status.as_str(), e.mean_ns) {
        (MEASURED, Some(m)) => Some(Parameter {
            seconds: m.max(0.0) * 1e-9,
            se_seconds: se,
            status: CostStatus::Measured,
        }),
        (NOT_DETECTED, _) => Some(Parameter {
            seconds: 0.0,
            se_seconds: se,
            status: CostStatus::NotDetected,
        }),
        _ => None,
    }
}

/// Prices a misprediction (`BRMP`) at the larger of the two kernels that measure one.
/// A misprediction's penalty (the flush and the refill of the front end) shows in a
/// kernel's time only where the work after the branch waits for it: `BRMP`'s branch
/// tests a value stored eight units earlier, so it resolves early, and at -O0, where
/// every operation of the generator's chain goes through memory, a core with a deep
/// window refills its front end while that chain still runs (an Intel Xeon at -O0:
/// 0.31 ns, where `BRMC`'s branch on the chain's own value measures 7.05 ns; the Zen
/// 3/4/5 profiles measure the two within 13% of each other at -O0). Programs' branches
/// mostly test what was just computed (a loop's counter, an element just loaded), so the
/// penalty the other kernel shows is theirs. Where the compiler made `BRMC`'s IF a
/// conditional move (every -O2 profile: near zero), `BRMP` stands.
fn exposed_misprediction(chain: &mut [Parameter]) {
    let (p, c) = (chain[AbOp::BRMP.index()], chain[AbOp::BRMC.index()]);
    if c.status == CostStatus::Measured && c.seconds > p.seconds {
        chain[AbOp::BRMP.index()] = c;
    }
}

/// The parameter of a stream-context entry: a least-squares estimate, so its fitted
/// (non-negative) mean is the best value even when its interval includes zero ("not
/// detected" there means *uncertain*, not *too small to see* as in a chain experiment).
fn fitted_parameter(e: &AbOpEntry) -> Option<Parameter> {
    let mut p = parameter(e)?;
    if p.status == CostStatus::NotDetected {
        p.seconds = e.mean_ns.unwrap_or(0.0).max(0.0) * 1e-9;
    }
    Some(p)
}

/// Families of AbOps (the catalogue group before its comma) that compile to inline
/// instructions: without kernels of their own they borrow the ratio of all such AbOps.
/// Library calls, characters, input/output and call overhead do not, because
/// independent iterations overlap them far less.
const INLINE_FAMILIES: [&str; 9] = [
    "integer",
    "integer*8",
    "real single",
    "real double",
    "complex single",
    "complex double",
    "logical",
    "conversions",
    "complex coercion",
];

/// AbOps that compile to calls of the compiler's mathematical library (elementary
/// functions of reals and complexes, the modulus of a complex, real and complex powers
/// `X**Y`, and the rounding to the nearest whole real, `ANINT`, which no common target
/// has an instruction for: the C library's `round`). In a loop of
/// independent iterations a call overlaps with its neighbours only in part, so a stream
/// cost the loop kernels fitted as indistinguishable from zero ("not detected") is not
/// believed: such an AbOp takes its chain cost scaled like the calls the kernels did
/// measure ([`scale_missing_stream`]).
pub(crate) const LIBRARY_CALLS: [AbOp; 30] = [
    AbOp::ABSC,
    AbOp::CABS,
    AbOp::ANIS,
    AbOp::ANID,
    AbOp::MODS,
    AbOp::MODD,
    AbOp::LOGS,
    AbOp::EXPS,
    AbOp::SINS,
    AbOp::TANS,
    AbOp::LOGD,
    AbOp::EXPD,
    AbOp::SIND,
    AbOp::TAND,
    AbOp::LOGC,
    AbOp::EXPC,
    AbOp::SINC,
    AbOp::SQRC,
    AbOp::ATNS,
    AbOp::ATND,
    AbOp::HYPS,
    AbOp::HYPD,
    AbOp::XRSL,
    AbOp::XCSL,
    AbOp::XRDL,
    AbOp::XRSG,
    AbOp::XCSG,
    AbOp::XRDG,
    AbOp::XCDL,
    AbOp::XCDG,
];

/// The family of an AbOp: its catalogue group up to the comma (`intrinsics`, `integer`),
/// except the remainder of reals (the C library's `fmod`: one serial loop over the
/// quotient's bits, which independent calls hardly overlap: prk_pic's calls on a Xeon
/// took 2.2 ns each, its chain cost 2.3, where `sin` and `exp` overlap to a quarter) and
/// the complex intrinsics, each a family of their own: they are long library routines
/// (`cexp`, `clog`, `csqrt`, `cabs` with its scaling) that independent iterations
/// overlap far less than the real ones (the call kernels of `augur stream` on a Zen 5 at
/// -O2: stream/chain 0.74 for `cexp`, 0.11 for `exp`; docs/ACCURACY.md), so they do not
/// borrow the real intrinsics' stream/chain ratio.
fn family(op: AbOp) -> &'static str {
    let g = op.info().group;
    if g == "intrinsics, complex" {
        return g;
    }
    if matches!(op, AbOp::MODS | AbOp::MODD) {
        return "remainder";
    }
    g.split(',').next().unwrap_or(g)
}

/// Median and half the interquartile range of some ratios (sorted in place).
fn median_and_spread(ratios: &mut [f64]) -> (f64, f64) {
    ratios.sort_by(f64::total_cmp);
    let at = |q: f64| ratios[((ratios.len() - 1) as f64 * q).round() as usize];
    (at(0.5), (at(0.75) - at(0.25)) / 2.0)
}

/// Fills the stream costs the kernels did not give with scaled chain costs: an AbOp in
/// too few generated kernels (or added to the catalogue after the machine's stream
/// measurement) would otherwise be priced at its latency in loops whose iterations are
/// independent, several times too dear. The scale is the median stream/chain ratio of
/// the AbOps of its family measured in both contexts (at least 2 of them), else, for an
/// inline family ([`INLINE_FAMILIES`]), that of all inline AbOps (at least 3); other
/// AbOps keep their chain cost. Half the interquartile range of the ratios used goes
/// into the standard error.
fn scale_missing_stream(stream: &mut [Option<Parameter>], chain: &[Parameter]) {
    let mut by_family: std::collections::BTreeMap<&str, Vec<f64>> = Default::default();
    let mut inline = vec![];
    for (op, (s, c)) in augur_ir::abop::ALL.iter().zip(stream.iter().zip(chain)) {
        let Some(s) = s else { continue };
        if s.status == CostStatus::Measured
            && c.status == CostStatus::Measured
            && s.seconds > 0.0
            && c.seconds > 0.0
        {
            let r = s.seconds / c.seconds;
            by_family.entry(family(*op)).or_default().push(r);
            if INLINE_FAMILIES.contains(&family(*op)) {
                inline.push(r);
            }
        }
    }
    let inline = (inline.len() >= 3).then(|| median_and_spread(&mut inline));
    let scales: std::collections::BTreeMap<&str, (f64, f64)> = by_family
        .into_iter()
        .filter(|(_, r)| r.len() >= 2)
        .map(|(f, mut r)| (f, median_and_spread(&mut r)))
        .collect();
    for (op, (s, c)) in augur_ir::abop::ALL.iter().zip(stream.iter_mut().zip(chain)) {
        if s.is_some() || c.status != CostStatus::Measured {
            continue;
        }
        let f = family(*op);
        let scale = scales
            .get(f)
            .copied()
            .or(inline.filter(|_| INLINE_FAMILIES.contains(&f)));
        if let Some((median, spread)) = scale {
            *s = Some(Parameter {
                seconds: c.seconds * median,
                se_seconds: ((c.se_seconds * median).powi(2) + (c.seconds * spread).powi(2)).sqrt(),
                status: CostStatus::Scaled,
            });
        }
    }
}

/// The address computations of array elements by rank, lowest first.
const ADDRESS_RANKS: [AbOp; 4] = [AbOp::ARR1, AbOp::ARR2, AbOp::ARR3, AbOp::ARR4];

/// Gives an address computation of a higher rank that the loop kernels did not measure
/// the stream cost of the next lower rank that they did. An optimizing compiler
/// strength-reduces the address of an element whose subscripts are affine in the loop
/// (a pointer stepped by a constant stride) and hoists the terms of the outer
/// subscripts, so in a loop a 3-D reference costs what a 1-D or 2-D one does. The chain
/// experiment measures the unreduced multiply-adds (its subscripts are volatile), which
/// only references outside loops pay; some hosts cannot tell them from zero (Zen 4 and
/// 5), others measure 0.37 ns for ARR3 (a Zen 3), and without this rule that latency
/// priced every 3-D element of a stencil.
fn strength_reduced_addresses(stream: &mut [Option<Parameter>]) {
    for k in 1..ADDRESS_RANKS.len() {
        let (lower, higher) = stream.split_at_mut(ADDRESS_RANKS[k].index());
        if higher[0].is_none() {
            higher[0] = lower[ADDRESS_RANKS[k - 1].index()];
        }
    }
}

/// Seconds costed at stream and at chain prices: the coefficients of a part of the
/// program (executions of each AbOp in each context).
#[derive(Debug, Clone, Default)]
pub struct Coefficients {
    /// Executions costed at the stream (throughput) price of scalar loops.
    pub stream: AbOpCounts,
    /// Executions costed at the stream price of vectorized loops.
    pub vector: AbOpCounts,
    /// Executions costed at the chain (latency) price.
    pub chain: AbOpCounts,
    /// Executions costed at the issue floor of scalar loops (a block whose operations
    /// the stream costs price below it): one issue slot each, exact.
    pub issue: AbOpCounts,
    /// The same at the issue floor of vectorized loops.
    pub vector_issue: AbOpCounts,
    /// The abstract operations the part executes (the contexts may hold fewer, when a
    /// recurrence bounds a block, or more, when a loop's operations are scaled to its
    /// recurrence).
    pub executed: f64,
    /// The part of `stream`, `vector` and `chain` whose time a loop's compiled
    /// instructions set (the in-core model scaled it): priced by the AbOps' costs for
    /// the breakdown, but not uncertain by their uncertainty ([`CostTable::cost_of`]).
    pub compiled: CompiledPart,
}

/// Executions of each context priced from a compiled loop ([`Coefficients::compiled`]).
#[derive(Debug, Clone, Default)]
pub struct CompiledPart {
    /// Of [`Coefficients::stream`].
    pub stream: AbOpCounts,
    /// Of [`Coefficients::vector`].
    pub vector: AbOpCounts,
    /// Of [`Coefficients::chain`].
    pub chain: AbOpCounts,
}

impl CompiledPart {
    fn add_scaled(&mut self, other: &CompiledPart, w: f64) {
        self.stream.add_scaled(&other.stream, w);
        self.vector.add_scaled(&other.vector, w);
        self.chain.add_scaled(&other.chain, w);
    }

    fn is_empty(&self) -> bool {
        self.stream.is_empty() && self.vector.is_empty() && self.chain.is_empty()
    }
}

impl Coefficients {
    /// Adds another part's coefficients.
    pub fn add(&mut self, other: &Coefficients) {
        self.add_scaled(other, 1.0);
    }

    /// Adds another part's coefficients times `w`.
    pub fn add_scaled(&mut self, other: &Coefficients, w: f64) {
        self.stream.add_scaled(&other.stream, w);
        self.vector.add_scaled(&other.vector, w);
        self.chain.add_scaled(&other.chain, w);
        self.issue.add_scaled(&other.issue, w);
        self.vector_issue.add_scaled(&other.vector_issue, w);
        self.executed += w * other.executed;
        self.compiled.add_scaled(&other.compiled, w);
    }

    /// Marks every priced execution as set by a compiled loop's time (the in-core
    /// model's parameters, measured to a fraction of a cycle, carry its uncertainty:
    /// the model's error covers it).
    pub(crate) fn mark_compiled(&mut self) {
        self.compiled = CompiledPart {
            stream: self.stream.clone(),
            vector: self.vector.clone(),
            chain: self.chain.clone(),
        };
    }

    /// The executions whose parameters' uncertainty applies: those a compiled loop
    /// did not price.
    fn uncertain(&self) -> std::borrow::Cow<'_, Coefficients> {
        if self.compiled.is_empty() {
            return std::borrow::Cow::Borrowed(self);
        }
        let less = |a: &AbOpCounts, b: &AbOpCounts| {
            let mut out = a.clone();
            out.add_scaled(b, -1.0);
            out
        };
        std::borrow::Cow::Owned(Coefficients {
            stream: less(&self.stream, &self.compiled.stream),
            vector: less(&self.vector, &self.compiled.vector),
            chain: less(&self.chain, &self.compiled.chain),
            issue: self.issue.clone(),
            vector_issue: self.vector_issue.clone(),
            executed: self.executed,
            compiled: CompiledPart::default(),
        })
    }

    /// The abstract operations executed.
    pub fn operations(&self) -> f64 {
        self.executed
    }

    /// `f` applied to the executions of every context (the operations executed kept).
    pub(crate) fn each_context(&self, f: impl Fn(&AbOpCounts) -> AbOpCounts) -> Coefficients {
        Coefficients {
            stream: f(&self.stream),
            vector: f(&self.vector),
            chain: f(&self.chain),
            issue: f(&self.issue),
            vector_issue: f(&self.vector_issue),
            executed: self.executed,
            compiled: CompiledPart {
                stream: f(&self.compiled.stream),
                vector: f(&self.compiled.vector),
                chain: f(&self.compiled.chain),
            },
        }
    }
}

/// AbOps that took over part of an older AbOp's operations: `(new, old)`. A machine
/// profile measured before `new` existed prices it at `old`'s cost (real items in text
/// were `IOIT`, measured with integers, and list-directed, written and read ones `IORF`; a
/// format's strings and skips were free and cost an item's `IOIT`, a list-directed
/// statement was an `IOST`; a `MATMUL` multiply-add was a multiply and an
/// add, and takes the multiply's cost; a random number or a reseeding was a call, a division by a power of two a
/// division, a square by a literal 2.0 a power).
const SPLIT_FROM: [(AbOp, AbOp); 12] = [
    (AbOp::IORF, AbOp::IOIT),
    (AbOp::IORL, AbOp::IORF),
    (AbOp::IOFW, AbOp::IORF),
    (AbOp::IOFR, AbOp::IORF),
    (AbOp::IOED, AbOp::IOIT),
    (AbOp::IOSL, AbOp::IOST),
    (AbOp::MMUL, AbOp::MRDL),
    (AbOp::RNGN, AbOp::PROC),
    (AbOp::RSED, AbOp::PROC),
    (AbOp::DRC2, AbOp::DRDL),
    (AbOp::XRE2, AbOp::XRDL),
    (AbOp::CABS, AbOp::ABSC),
];

impl CostTable {
    /// The cost table of a machine profile.
    pub fn from_profile(machine: &MachineProfile) -> CostTable {
        let missing = Parameter {
            seconds: 0.0,
            se_seconds: 0.0,
            status: CostStatus::Missing,
        };
        let mut chain: Vec<Parameter> = augur_ir::abop::ALL
            .iter()
            .map(|op| machine.abop.get(op).and_then(parameter).unwrap_or(missing))
            .collect();
        // AbOps split from an older one after a profile was measured cost what the older
        // one cost there (its value is then a lower bound).
        for (new, old) in SPLIT_FROM {
            if chain[new.index()].status == CostStatus::Missing {
                chain[new.index()] = chain[old.index()];
            }
        }
        exposed_misprediction(&mut chain);
        let mut stream: Vec<Option<Parameter>> = augur_ir::abop::ALL
            .iter()
            .map(|op| machine.stream.get(op).and_then(fitted_parameter))
            .collect();
        // A library routine split from an older one (another precision's) takes that
        // one's stream cost too where it was not measured.
        for (new, old) in SPLIT_FROM
            .iter()
            .filter(|(new, _)| LIBRARY_CALLS.contains(new))
        {
            if stream[new.index()].is_none() {
                stream[new.index()] = stream[old.index()];
            }
        }
        for (op, s) in augur_ir::abop::ALL.iter().zip(stream.iter_mut()) {
            if LIBRARY_CALLS.contains(op) && s.is_some_and(|p| p.status != CostStatus::Measured) {
                // A call whose cost the kernels could not tell from zero: its scaled chain
                // cost below is the better estimate (a call is never nearly free).
                *s = None;
            }
        }
        let register_scalars = optimizing(&machine.provenance.fflags);
        if register_scalars {
            strength_reduced_addresses(&mut stream);
        }
        scale_missing_stream(&mut stream, &chain);
        let vector: Vec<Option<Parameter>> = augur_ir::abop::ALL
            .iter()
            .map(|op| machine.stream_vector.get(op).and_then(fitted_parameter))
            .collect();
        let fitted = |params: &[Option<Parameter>], pairs: &[(AbOp, AbOp, f64)]| {
            let from_fit =
                |op: AbOp| params[op.index()].is_some_and(|p| p.status != CostStatus::Scaled);
            Correlations::new(
                pairs
                    .iter()
                    .copied()
                    .filter(|&(a, b, r)| from_fit(a) && from_fit(b) && r.is_finite()),
            )
        };
        let stream_correlation = fitted(&stream, &machine.stream_correlation);
        let vector_correlation = fitted(&vector, &machine.stream_vector_correlation);
        CostTable {
            stream_correlation,
            vector_correlation,
            chain,
            stream,
            vector,
            register_scalars,
            floor: machine.stream_floor_ns.unwrap_or(0.0).max(0.0) * 1e-9,
            vector_floor: machine.stream_vector_floor_ns.unwrap_or(0.0).max(0.0) * 1e-9,
            ordered_reductions: !reassociating(&machine.provenance.fflags),
            call_spill: machine
                .memory
                .as_ref()
                .and_then(|m| m.levels.first())
                .map_or(0.0, |l| l.latency_ns.max(0.0) * 1e-9),
            divider: divider_occupancies(machine),
            incore: machine.incore.clone(),
        }
    }

    /// Whether the machine has stream costs of vectorized loops.
    pub fn has_vector(&self) -> bool {
        self.vector.iter().any(|p| p.is_some())
    }

    /// The vectorized-loop parameter of one AbOp, falling back to the scalar stream
    /// parameter and then to the chain parameter.
    pub fn vector(&self, op: AbOp) -> Parameter {
        self.vector[op.index()].unwrap_or_else(|| self.stream(op))
    }

    /// Whether the machine has stream costs (else the model is chain costs only).
    pub fn has_stream(&self) -> bool {
        self.stream.iter().any(|p| p.is_some())
    }

    /// The stream parameter of one AbOp as the machine profile gave it (or as scaled
    /// from its chain cost), without falling back to the chain parameter.
    pub(crate) fn own_stream(&self, op: AbOp) -> Option<Parameter> {
        self.stream[op.index()]
    }

    /// The chain (latency) parameter of one AbOp.
    pub fn get(&self, op: AbOp) -> Parameter {
        self.chain[op.index()]
    }

    /// The stream parameter of one AbOp, falling back to the chain parameter.
    pub fn stream(&self, op: AbOp) -> Parameter {
        self.stream[op.index()].unwrap_or(self.chain[op.index()])
    }

    /// `Σ C_i · P_i` at chain costs with its standard deviation `sqrt(Σ C_i² σ_i²)`.
    pub fn cost(&self, counts: &AbOpCounts) -> Estimate {
        self.cost_of(&Coefficients {
            chain: counts.clone(),
            executed: counts.total(),
            ..Coefficients::default()
        })
    }

    /// The three contexts' (executions, parameter) pairs of coefficients.
    fn priced<'a>(
        &'a self,
        c: &'a Coefficients,
    ) -> impl Iterator<Item = (AbOp, f64, Parameter)> + 'a {
        c.stream
            .iter()
            .map(|(op, n)| (op, n, self.stream(op)))
            .chain(c.vector.iter().map(|(op, n)| (op, n, self.vector(op))))
            .chain(c.chain.iter().map(|(op, n)| (op, n, self.get(op))))
            .chain(
                c.issue
                    .iter()
                    .map(|(op, n)| (op, n, self.issue_slot(self.floor))),
            )
            .chain(
                c.vector_issue
                    .iter()
                    .map(|(op, n)| (op, n, self.issue_slot(self.vector_floor))),
            )
    }

    /// The price of one issue slot at `floor` seconds: exact (its spread is the
    /// spread of the kernels' times, not of this block's operations).
    fn issue_slot(&self, floor: f64) -> Parameter {
        Parameter {
            seconds: floor,
            se_seconds: 0.0,
            status: CostStatus::Measured,
        }
    }

    /// The cost of coefficients in both contexts; the errors of one parameter in the two
    /// contexts are independent measurements, those of one parameter across blocks add
    /// linearly (they are the same number). Executions a compiled loop priced
    /// ([`Coefficients::compiled`]) add no variance.
    pub fn cost_of(&self, c: &Coefficients) -> Estimate {
        let t: f64 = self.priced(c).map(|(_, n, p)| n * p.seconds).sum();
        let u = c.uncertain();
        let u = u.as_ref();
        let mut var: f64 = self
            .priced(u)
            .map(|(_, n, p)| (n * p.se_seconds).powi(2))
            .sum();
        var += self.covariance(&u.stream, &self.stream_correlation, |op| self.stream(op))
            + self.covariance(&u.vector, &self.vector_correlation, |op| self.vector(op));
        Estimate {
            seconds: t,
            sd_seconds: var.max(0.0).sqrt(),
        }
    }

    /// The covariance terms of costs fitted together, `2 Σ_pairs n_a n_b σ_a σ_b r_ab`,
    /// over the pairs of `pairs` both of whose AbOps `counts` holds.
    fn covariance(
        &self,
        counts: &AbOpCounts,
        pairs: &Correlations,
        param: impl Fn(AbOp) -> Parameter,
    ) -> f64 {
        let mut sum = 0.0;
        for (a, na) in counts.iter().filter(|(_, n)| *n != 0.0) {
            for &(b, r) in pairs.of(a) {
                let nb = counts.get(b);
                if nb != 0.0 {
                    sum += 2.0 * na * nb * param(a).se_seconds * param(b).se_seconds * r;
                }
            }
        }
        sum
    }

    /// Seconds per AbOp of coefficients.
    pub fn seconds_by_abop(&self, c: &Coefficients) -> AbOpCounts {
        let mut out = AbOpCounts::new();
        for (op, n, p) in self.priced(c) {
            out.add(op, n * p.seconds);
        }
        out
    }

    /// Variance of the seconds of one AbOp in coefficients.
    pub(crate) fn variance_of(&self, c: &Coefficients, op: AbOp) -> f64 {
        self.variances_of(c, op).iter().map(|(v, _)| v).sum()
    }

    /// The variance of one AbOp's seconds in each context of coefficients (the issue
    /// contexts are exact: no term), with the parameter of that context: stream,
    /// vectorized loops, chain.
    pub(crate) fn variances_of(&self, c: &Coefficients, op: AbOp) -> [(f64, Parameter); 3] {
        let term = |n: f64, p: Parameter| ((n * p.se_seconds).powi(2), p);
        let u = c.uncertain();
        [
            term(u.stream.get(op), self.stream(op)),
            term(u.vector.get(op), self.vector(op)),
            term(u.chain.get(op), self.get(op)),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::{machine, Entry};

    /// A stream cost measured at `ns`, exactly.
    fn stream_entry(ns: f64) -> AbOpEntry {
        let mut e = AbOpEntry::status(MEASURED);
        e.mean_ns = Some(ns);
        e.ci90_ns = Some(0.0);
        e.observations = 10;
        e
    }

    #[test]
    fn cost_is_the_dot_product_and_variance_adds_in_squares() {
        let m = machine(&[
            (AbOp::ARDL, MEASURED, Some(2.0), Some(0.0), 10),
            (AbOp::MRDL, MEASURED, Some(3.0), Some(0.0), 10),
        ]);
        let t = CostTable::from_profile(&m);
        let mut c = AbOpCounts::new();
        c.add(AbOp::ARDL, 1e9);
        c.add(AbOp::MRDL, 2e9);
        let e = t.cost(&c);
        assert!((e.seconds - 8.0).abs() < 1e-9, "{}", e.seconds);
        assert_eq!(e.sd_seconds, 0.0);

        // With uncertainty: se = ci / t(0.95, n-1); sd = sqrt(Σ (C σ)^2).
        let m = machine(&[
            (AbOp::ARDL, MEASURED, Some(2.0), Some(0.1), 10),
            (AbOp::MRDL, MEASURED, Some(3.0), Some(0.2), 10),
        ]);
        let t = CostTable::from_profile(&m);
        let e = t.cost(&c);
        let tq = 1.833_112_9; // t(0.95, 9)
        let want = ((0.1 / tq) * 1.0f64).hypot((0.2 / tq) * 2.0);
        assert!(
            (e.sd_seconds - want).abs() < 1e-6,
            "{} vs {want}",
            e.sd_seconds
        );
    }

    #[test]
    fn executions_a_compiled_loop_priced_add_no_parameter_variance() {
        let m = machine(&[
            (AbOp::ARDL, MEASURED, Some(2.0), Some(0.1), 10),
            (AbOp::MRDL, MEASURED, Some(3.0), Some(0.2), 10),
        ]);
        let t = CostTable::from_profile(&m);
        let mut from_source = Coefficients::default();
        from_source.chain.add(AbOp::ARDL, 1e9);
        let mut from_compiled = Coefficients::default();
        from_compiled.chain.add(AbOp::MRDL, 2e9);
        from_compiled.mark_compiled();
        let mut both = from_source.clone();
        both.add_scaled(&from_compiled, 1.0);
        let e = t.cost_of(&both);
        // Both priced, only the source-priced part uncertain.
        assert!((e.seconds - 8.0).abs() < 1e-9, "{}", e.seconds);
        assert!((e.sd_seconds - t.cost_of(&from_source).sd_seconds).abs() < 1e-12);
        assert!(e.sd_seconds > 0.0);
        assert_eq!(t.variance_of(&both, AbOp::MRDL), 0.0);
        assert!(t.variance_of(&both, AbOp::ARDL) > 0.0);
    }

    #[test]
    fn costs_fitted_together_add_their_covariance() {
        // Two stream costs of ±1 ns each (standard errors), fitted together with a
        // correlation of -0.9: a loop of one of each is known to ±0.45 ns, not ±1.41.
        let mut m = machine(&[
            (AbOp::ARDL, MEASURED, Some(2.0), Some(0.0), 10),
            (AbOp::MRDL, MEASURED, Some(3.0), Some(0.0), 10),
        ]);
        let se = |sd: f64| {
            let mut e = crate::test_support::entry(1.0, 0.0);
            e.ci90_ns = Some(sd * 1.833_112_9);
            e
        };
        m.stream.insert(AbOp::ARDL, se(1.0));
        m.stream.insert(AbOp::MRDL, se(1.0));
        let mut c = Coefficients::default();
        c.stream.add(AbOp::ARDL, 1.0);
        c.stream.add(AbOp::MRDL, 1.0);
        let independent = CostTable::from_profile(&m).cost_of(&c).sd_seconds;
        assert!(
            (independent - 2f64.sqrt() * 1e-9).abs() < 1e-15,
            "{independent}"
        );
        m.stream_correlation = vec![(AbOp::ARDL, AbOp::MRDL, -0.9)];
        let t = CostTable::from_profile(&m);
        let together = t.cost_of(&c).sd_seconds;
        assert!(
            (together - 0.2f64.sqrt() * 1e-9).abs() < 1e-15,
            "{together}"
        );
        // A loop of one of them alone keeps its own.
        let mut one = Coefficients::default();
        one.stream.add(AbOp::ARDL, 1.0);
        assert!((t.cost_of(&one).sd_seconds - 1e-9).abs() < 1e-15);
    }

    #[test]
    fn undetected_costs_nothing_and_missing_is_reported() {
        let m = machine(&[
            (AbOp::ARDL, NOT_DETECTED, Some(-0.01), Some(0.05), 10),
            (AbOp::MRDL, "not yet measured", None, None, 0),
        ]);
        let t = CostTable::from_profile(&m);
        assert_eq!(t.get(AbOp::ARDL).status, CostStatus::NotDetected);
        assert_eq!(t.get(AbOp::ARDL).seconds, 0.0);
        assert!(t.get(AbOp::ARDL).se_seconds > 0.0);
        assert_eq!(t.get(AbOp::MRDL).status, CostStatus::Missing);
        assert_eq!(t.get(AbOp::DRDL).status, CostStatus::Missing);
    }

    #[test]
    fn a_misprediction_costs_the_kernel_that_exposed_its_penalty() {
        // A kernel whose misprediction hid under a longer chain (an Intel Xeon at -O0).
        let hidden = machine(&[
            (AbOp::BRMP, MEASURED, Some(0.31), Some(0.05), 20),
            (AbOp::BRMC, MEASURED, Some(7.05), Some(0.05), 20),
        ]);
        let t = CostTable::from_profile(&hidden);
        assert!((t.get(AbOp::BRMP).seconds - 7.05e-9).abs() < 1e-15);
        // A compiler that made BRMC's IF a conditional move: BRMP stands.
        let cmov = machine(&[
            (AbOp::BRMP, MEASURED, Some(5.76), Some(0.05), 20),
            (AbOp::BRMC, MEASURED, Some(0.19), Some(0.05), 20),
        ]);
        let t = CostTable::from_profile(&cmov);
        assert!((t.get(AbOp::BRMP).seconds - 5.76e-9).abs() < 1e-15);
        assert!((t.get(AbOp::BRMC).seconds - 0.19e-9).abs() < 1e-15);
    }

    #[test]
    fn a_split_abop_costs_its_origin_on_profiles_measured_before_it() {
        let m = machine(&[(AbOp::IOIT, MEASURED, Some(25.0), Some(0.3), 10)]);
        let t = CostTable::from_profile(&m);
        assert_eq!(t.get(AbOp::IORF).seconds, t.get(AbOp::IOIT).seconds);
        assert_eq!(t.get(AbOp::IORF).status, CostStatus::Measured);
        let m = machine(&[
            (AbOp::IOIT, MEASURED, Some(25.0), Some(0.3), 10),
            (AbOp::IORF, MEASURED, Some(140.0), Some(1.0), 10),
        ]);
        let t = CostTable::from_profile(&m);
        assert!((t.get(AbOp::IORF).seconds - 140e-9).abs() < 1e-15);
        // Split twice: reals written and read with a format, list-directed ones, all
        // priced at IORF's (itself from IOIT's on the oldest profiles).
        for op in [AbOp::IOFW, AbOp::IOFR, AbOp::IORL] {
            assert!((t.get(op).seconds - 140e-9).abs() < 1e-15, "{op:?}");
        }
        let m = machine(&[
            (AbOp::IOIT, MEASURED, Some(25.0), Some(0.3), 10),
            (AbOp::IORF, MEASURED, Some(140.0), Some(1.0), 10),
            (AbOp::IOFW, MEASURED, Some(230.0), Some(1.0), 10),
        ]);
        let t = CostTable::from_profile(&m);
        assert!((t.get(AbOp::IOFW).seconds - 230e-9).abs() < 1e-15);
        assert!((t.get(AbOp::IOFR).seconds - 140e-9).abs() < 1e-15);
        let m = machine(&[(AbOp::IOIT, MEASURED, Some(25.0), Some(0.3), 10)]);
        let t = CostTable::from_profile(&m);
        assert_eq!(t.get(AbOp::IOFW).seconds, t.get(AbOp::IOIT).seconds);
    }

    #[test]
    fn a_library_routine_split_by_precision_takes_the_older_ones_loops_until_measured() {
        // A profile from before CABS: the single-precision modulus costs ABSC's, in
        // chains and in loops of independent calls.
        let mut m = machine(&[(AbOp::ABSC, MEASURED, Some(16.3), Some(0.1), 10)]);
        m.stream.insert(AbOp::ABSC, stream_entry(4.4));
        let t = CostTable::from_profile(&m);
        assert_eq!(t.get(AbOp::CABS).seconds, t.get(AbOp::ABSC).seconds);
        assert!((t.stream(AbOp::CABS).seconds - 4.4e-9).abs() < 1e-15);
        // Measured on the profile, its own entries replace the older one's.
        m.abop.insert(
            AbOp::CABS,
            machine(&[(AbOp::CABS, MEASURED, Some(18.2), Some(0.1), 10)]).abop[&AbOp::CABS].clone(),
        );
        m.stream.insert(AbOp::CABS, stream_entry(20.0));
        let t = CostTable::from_profile(&m);
        assert!((t.get(AbOp::CABS).seconds - 18.2e-9).abs() < 1e-15);
        assert!((t.stream(AbOp::CABS).seconds - 20.0e-9).abs() < 1e-15);
    }

    #[test]
    fn a_remainder_of_reals_borrows_no_elementary_functions_overlap() {
        // `sin` and `exp` overlap to a quarter of their chain cost in independent
        // iterations; `fmod` (MODD), one serial loop, keeps its chain cost, while TAND,
        // of their family, takes their ratio.
        let mut m = machine(&[
            (AbOp::SIND, MEASURED, Some(12.0), Some(0.0), 10),
            (AbOp::EXPD, MEASURED, Some(8.0), Some(0.0), 10),
            (AbOp::TAND, MEASURED, Some(20.0), Some(0.0), 10),
            (AbOp::MODD, MEASURED, Some(2.4), Some(0.0), 10),
        ]);
        for (op, ns) in [(AbOp::SIND, 3.0), (AbOp::EXPD, 2.0)] {
            m.stream.insert(op, stream_entry(ns));
        }
        let t = CostTable::from_profile(&m);
        assert!((t.stream(AbOp::TAND).seconds - 5.0e-9).abs() < 1e-15);
        assert!((t.stream(AbOp::MODD).seconds - 2.4e-9).abs() < 1e-15);
    }

    #[test]
    fn stream_costs_the_kernels_missed_are_scaled_chain_costs() {
        // AbOps measured in both contexts at stream/chain ratios 0.2, 0.3, 0.25 (real
        // double) and 0.5 (real single); MOCN (integer), XRDL (real double) and IOST
        // (input/output) have only a chain cost.
        let both = [
            (AbOp::ARDL, 2.0, 0.4),
            (AbOp::MRDL, 4.0, 1.2),
            (AbOp::DRDL, 8.0, 2.0),
            (AbOp::ARSL, 2.0, 1.0),
        ];
        let mut entries: Vec<Entry> = both
            .iter()
            .map(|&(op, chain, _)| (op, MEASURED, Some(chain), Some(0.0), 10))
            .collect();
        for (op, chain) in [(AbOp::MOCN, 3.2), (AbOp::XRDL, 10.0), (AbOp::IOST, 500.0)] {
            entries.push((op, MEASURED, Some(chain), Some(0.0), 10));
        }
        let mut m = machine(&entries);
        // Two inline ratios are too few for an AbOp of another family: MOCN keeps its
        // chain cost; XRDL's own family has two.
        for &(op, _, stream) in &both[..2] {
            m.stream.insert(op, stream_entry(stream));
        }
        let t = CostTable::from_profile(&m);
        assert!((t.stream(AbOp::MOCN).seconds - 3.2e-9).abs() < 1e-18);
        assert_eq!(t.stream(AbOp::MOCN).status, CostStatus::Measured);
        assert_eq!(t.stream(AbOp::XRDL).status, CostStatus::Scaled);

        for &(op, _, stream) in &both[2..] {
            m.stream.insert(op, stream_entry(stream));
        }
        let t = CostTable::from_profile(&m);
        // MOCN: all four inline ratios 0.2, 0.25, 0.3, 0.5, median (index 2) 0.3; half
        // the interquartile range (0.3 - 0.25) / 2 of its cost is its standard error.
        let p = t.stream(AbOp::MOCN);
        assert_eq!(p.status, CostStatus::Scaled);
        assert!((p.seconds - 0.96e-9).abs() < 1e-15, "{}", p.seconds);
        assert!((p.se_seconds - 0.08e-9).abs() < 1e-15, "{}", p.se_seconds);
        // XRDL: its family's 0.2, 0.3, 0.25, median 0.25.
        assert!((t.stream(AbOp::XRDL).seconds - 2.5e-9).abs() < 1e-15);
        // Input/output keeps its chain cost; measured stream costs and AbOps without a
        // chain cost are left alone.
        assert!((t.stream(AbOp::IOST).seconds - 500e-9).abs() < 1e-15);
        assert!((t.stream(AbOp::ARDL).seconds - 0.4e-9).abs() < 1e-18);
        assert_eq!(t.stream(AbOp::SQRD).status, CostStatus::Missing);
    }

    #[test]
    fn optimized_addresses_of_higher_rank_cost_the_stream_cost_of_a_lower_one() {
        // A host whose chain experiment measured 3-D and 4-D address arithmetic, whose
        // loop kernels measured only 1-D and 2-D references.
        let mut m = machine(&[
            (AbOp::ARR3, MEASURED, Some(0.37), Some(0.05), 9),
            (AbOp::ARR4, MEASURED, Some(1.2), Some(0.05), 9),
        ]);
        m.stream
            .insert(AbOp::ARR1, crate::test_support::entry(0.08, 0.06));
        m.stream
            .insert(AbOp::ARR2, crate::test_support::entry(0.09, 0.08));
        for (flags, optimized) in [("-O2", true), ("-O0", false)] {
            m.provenance.fflags = flags.to_string();
            let t = CostTable::from_profile(&m);
            let (arr2, arr3, arr4) = (
                t.stream(AbOp::ARR2).seconds,
                t.stream(AbOp::ARR3).seconds,
                t.stream(AbOp::ARR4).seconds,
            );
            assert!((arr2 - 0.09e-9).abs() < 1e-18);
            if optimized {
                assert_eq!((arr3, arr4), (arr2, arr2), "{flags}");
            } else {
                // No strength reduction at -O0: the chain costs stand.
                assert!((arr3 - 0.37e-9).abs() < 1e-18, "{flags}: {arr3}");
                assert!((arr4 - 1.2e-9).abs() < 1e-18, "{flags}: {arr4}");
            }
            // Outside loops (chain context) the unreduced arithmetic is paid.
            assert!((t.get(AbOp::ARR3).seconds - 0.37e-9).abs() < 1e-18);
        }
    }

    #[test]
    fn interval_is_symmetric_and_weighted_sums_add_variances() {
        let a = Estimate {
            seconds: 1.0,
            sd_seconds: 0.1,
        };
        let (lo, hi) = a.ci90();
        assert!((hi - lo - 2.0 * Z90 * 0.1).abs() < 1e-12);
        // Too uncertain for a normal interval above zero: a positive, upward-skewed one.
        let wide = Estimate {
            seconds: 1.0,
            sd_seconds: 1.0,
        };
        let (lo, hi) = wide.ci90();
        assert!(lo > 0.1 && lo < 0.5, "{lo}");
        assert!(hi > 2.0 && hi < 3.0, "{hi}");
        assert_eq!(Estimate::default().ci90(), (0.0, 0.0));
        let b = a.add_weighted(&a, 2.0);
        assert!((b.seconds - 3.0).abs() < 1e-12);
        assert!((b.sd_seconds - (0.01f64 + 0.04).sqrt()).abs() < 1e-12);
    }
}
