//! The execution predictor: `T = Σ C_i · P_i` with variance `Σ C_i² · σ²(P_i)`
//! (Saavedra-Barrera, eqs. 2.1 and 3.x), and the breakdowns that explain it.
//!
//! `C` is the dynamic AbOp vector of a program profile (or of any part of it: a block,
//! a line, a loop, a procedure, a region) and `P` the per-AbOp cost of a machine
//! profile. The uncertainty of the prediction is that of the parameters: each
//! parameter's standard error is recovered from its 90% interval and observation
//! count, and the errors of different parameters are taken as independent. It does
//! not include the model's own error (operations that overlap, memory effects),
//! which only the accuracy benchmark (`augur bench accuracy`) measures.

use crate::memory::{combine_issue, nest_memory, ArrayTraffic, LevelTraffic, Overlap};
use augur_ir::{AbOp, AbOpCounts};
use augur_machine_profile::MachineProfile;
use augur_machine_profile::{AbOpEntry, MEASURED, NOT_DETECTED};
use augur_program_profile::ProgramProfile;
use augur_program_profile::{BlockProfile, LoopProfile, UnitProfile};
use serde::Serialize;
use statrs::distribution::{ContinuousCDF, StudentsT};

/// z value of a two-sided 90% interval of a normal distribution.
pub const Z90: f64 = 1.644_853_626_951_472_2;

/// How the cost of one AbOp is known on a machine.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
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
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize)]
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
    /// Whether branch mispredictions (`BRMP`, `BRMC`) are priced into the total even
    /// when the program profile only bounds them. Off by default: the bound counts every
    /// outcome against the most frequent direction, right for data-dependent tests on
    /// irregular data but several times too many for patterned branches that history
    /// predictors learn; the prediction reports it ([`Prediction::branch_seconds`]).
    pub branches: bool,
    /// Whether mispredictions the program profile simulated from its outcome sequences
    /// (its `branches` section) are priced. On by default.
    pub simulated_branches: bool,
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
}

/// Whether compiler flags let the compiler reassociate floating-point operations (and
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

/// The AbOps of estimated branch mispredictions.
pub const BRANCH_ABOPS: [AbOp; 2] = [AbOp::BRMP, AbOp::BRMC];

/// What the compiler did to one basic block, from the program's optimization report
/// (`augur_program_profile::optreport`) when it is for the machine's compiler and flags.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct BlockContext {
    /// The block's loop (or its array statement) was vectorized.
    pub vectorized: bool,
    /// The share (0-1) of the block's calls that were inlined: their call overhead
    /// (`PROC`, `ARGL`) disappears.
    pub inlined: f64,
    /// The block's loop (or array statement) was unrolled completely: its loop control
    /// (`LOOV`, `LOOX`, `ALIN`, `ALOV`) disappears.
    pub unrolled: bool,
    /// The block's branch (an IF ending it) compiled to code that selects without a
    /// conditional jump: its mispredictions (`BRMP`, `BRMC`) disappear.
    pub branchless: bool,
    /// The block's branch compiled to a conditional jump: mispredictions of simple arms
    /// (`BRMC`, priced as what the compiler usually does with them) cost what any
    /// mispredicted branch costs (`BRMP`).
    pub branch_kept: bool,
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
/// `X**Y`). In a loop of
/// independent iterations a call overlaps with its neighbours only in part, so a stream
/// cost the loop kernels fitted as indistinguishable from zero ("not detected") is not
/// believed: such an AbOp takes its chain cost scaled like the calls the kernels did
/// measure ([`scale_missing_stream`]).
const LIBRARY_CALLS: [AbOp; 25] = [
    AbOp::ABSC,
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
/// except the complex intrinsics, a family of their own: they are long library routines
/// (`cexp`, `clog`, `csqrt`, `cabs` with its scaling) that independent iterations
/// overlap far less than the real ones (the call kernels of `augur stream` on a Zen 5 at
/// -O2: stream/chain 0.74 for `cexp`, 0.11 for `exp`; docs/ACCURACY.md), so they do not
/// borrow the real intrinsics' stream/chain ratio.
fn family(op: AbOp) -> &'static str {
    let g = op.info().group;
    if g == "intrinsics, complex" {
        return g;
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
    }

    /// The abstract operations executed.
    pub fn operations(&self) -> f64 {
        self.executed
    }

    /// `f` applied to the executions of every context (the operations executed kept).
    fn each_context(&self, f: impl Fn(&AbOpCounts) -> AbOpCounts) -> Coefficients {
        Coefficients {
            stream: f(&self.stream),
            vector: f(&self.vector),
            chain: f(&self.chain),
            issue: f(&self.issue),
            vector_issue: f(&self.vector_issue),
            executed: self.executed,
        }
    }
}

/// AbOps that took over part of an older AbOp's operations: `(new, old)`. A machine
/// profile measured before `new` existed prices it at `old`'s cost (real items in text
/// were `IOIT`, measured with integers; a `MATMUL` multiply-add was a multiply and an
/// add, and takes the multiply's cost).
const SPLIT_FROM: [(AbOp, AbOp); 2] = [(AbOp::IORF, AbOp::IOIT), (AbOp::MMUL, AbOp::MRDL)];

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
        let mut stream: Vec<Option<Parameter>> = augur_ir::abop::ALL
            .iter()
            .map(|op| machine.stream.get(op).and_then(fitted_parameter))
            .collect();
        for (op, s) in augur_ir::abop::ALL.iter().zip(stream.iter_mut()) {
            if LIBRARY_CALLS.contains(op) && s.is_some_and(|p| p.status != CostStatus::Measured) {
                // A call whose cost the kernels could not tell from zero: its scaled chain
                // cost below is the better estimate (a call is never nearly free).
                *s = None;
            }
        }
        scale_missing_stream(&mut stream, &chain);
        let vector = augur_ir::abop::ALL
            .iter()
            .map(|op| machine.stream_vector.get(op).and_then(fitted_parameter))
            .collect();
        CostTable {
            chain,
            stream,
            vector,
            branches: false,
            simulated_branches: true,
            register_scalars: optimizing(&machine.provenance.fflags),
            floor: machine.stream_floor_ns.unwrap_or(0.0).max(0.0) * 1e-9,
            vector_floor: machine.stream_vector_floor_ns.unwrap_or(0.0).max(0.0) * 1e-9,
            ordered_reductions: !reassociating(&machine.provenance.fflags),
            call_spill: machine
                .memory
                .as_ref()
                .and_then(|m| m.levels.first())
                .map_or(0.0, |l| l.latency_ns.max(0.0) * 1e-9),
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
    /// linearly (they are the same number).
    pub fn cost_of(&self, c: &Coefficients) -> Estimate {
        let mut t = 0.0;
        let mut var = 0.0;
        for (_, n, p) in self.priced(c) {
            t += n * p.seconds;
            var += (n * p.se_seconds).powi(2);
        }
        Estimate {
            seconds: t,
            sd_seconds: var.sqrt(),
        }
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
    fn variance_of(&self, c: &Coefficients, op: AbOp) -> f64 {
        // The issue contexts are exact: no term.
        (c.stream.get(op) * self.stream(op).se_seconds).powi(2)
            + (c.vector.get(op) * self.vector(op).se_seconds).powi(2)
            + (c.chain.get(op) * self.get(op).se_seconds).powi(2)
    }

    /// The coefficients of one execution of a block: its operations at stream cost
    /// unless its recurrence (`chain`) at chain cost takes longer; without stream costs,
    /// everything at chain cost (Saavedra's single-context model). Blocks outside loops
    /// are priced the same way: a procedure body called from a loop runs in the loop's
    /// context, and straight code that runs once costs next to nothing either way.
    ///
    /// `ctx` says what the compiler did to the block: inlined calls lose their call
    /// overhead (`PROC`, `ARGL`), and a block of a vectorized loop is priced at the
    /// vectorized-loop stream costs (a loop the compiler vectorized carries no
    /// recurrence that binds it).
    pub fn block_coefficients(
        &self,
        counts: &AbOpCounts,
        chain: &AbOpCounts,
        ctx: BlockContext,
    ) -> Coefficients {
        let mut counts = counts.clone();
        if ctx.unrolled {
            for op in [AbOp::LOOV, AbOp::LOOX, AbOp::ALIN, AbOp::ALOV] {
                let n = counts.get(op);
                counts.add(op, -n);
            }
        }
        if ctx.branch_kept {
            let n = counts.get(AbOp::BRMC);
            counts.add(AbOp::BRMC, -n);
            counts.add(AbOp::BRMP, n);
        }
        if !self.branches || ctx.branchless || (ctx.vectorized && self.has_vector()) {
            // Left out, an IF turned into selects, or a vectorized loop whose IFs
            // became masks.
            for op in BRANCH_ABOPS {
                let n = counts.get(op);
                counts.add(op, -n);
            }
        }
        if ctx.inlined > 0.0 {
            for op in [AbOp::PROC, AbOp::ARGL] {
                let n = counts.get(op);
                counts.add(op, -n * ctx.inlined.min(1.0));
            }
        }
        if !self.has_stream() {
            return Coefficients {
                chain: counts,
                ..Coefficients::default()
            };
        }
        // The issue floor bounds the operations that issue; mispredictions come on top.
        let (mispredicted, issuing) = split_ops(&counts, &BRANCH_ABOPS);
        let issued = issuing.total();
        if ctx.vectorized && self.has_vector() {
            let t_vector: f64 = issuing
                .iter()
                .map(|(op, n)| n * self.vector(op).seconds)
                .sum();
            // An in-order floating-point reduction keeps its chain.
            let ordered = if self.ordered_reductions {
                floating_arithmetic(chain)
            } else {
                AbOpCounts::new()
            };
            let t_chain: f64 = ordered.iter().map(|(op, n)| n * self.get(op).seconds).sum();
            if t_chain > t_vector.max(self.vector_floor * issued) {
                return Coefficients {
                    chain: ordered,
                    vector: mispredicted,
                    ..Coefficients::default()
                };
            }
            return if self.vector_floor * issued > t_vector {
                Coefficients {
                    vector_issue: issuing,
                    vector: mispredicted,
                    ..Coefficients::default()
                }
            } else {
                Coefficients {
                    vector: counts,
                    ..Coefficients::default()
                }
            };
        }
        let at_stream =
            |c: &AbOpCounts| -> f64 { c.iter().map(|(op, n)| n * self.stream(op).seconds).sum() };
        let (t_issued, t_mispredicted) = (at_stream(&issuing), at_stream(&mispredicted));
        let t_floor = self.floor * issued;
        let t_chain: f64 = chain.iter().map(|(op, n)| n * self.get(op).seconds).sum();
        if t_chain > t_issued.max(t_floor) + t_mispredicted {
            Coefficients {
                chain: chain.clone(),
                ..Coefficients::default()
            }
        } else if t_floor > t_issued {
            Coefficients {
                issue: issuing,
                stream: mispredicted,
                ..Coefficients::default()
            }
        } else {
            Coefficients {
                stream: counts,
                ..Coefficients::default()
            }
        }
    }
}

/// The floating-point arithmetic of `counts` (the real and complex operation groups:
/// adds, multiplies, divides, ...; not the intrinsics).
fn floating_arithmetic(counts: &AbOpCounts) -> AbOpCounts {
    let mut out = AbOpCounts::new();
    for (op, n) in counts.iter() {
        let g = op.info().group;
        if g.starts_with("real") || g.starts_with("complex") {
            out.add(op, n);
        }
    }
    out
}

/// `counts` split into the executions of `ops` and the rest.
fn split_ops(counts: &AbOpCounts, ops: &[AbOp]) -> (AbOpCounts, AbOpCounts) {
    let mut picked = AbOpCounts::new();
    let mut rest = counts.clone();
    for &op in ops {
        let n = counts.get(op);
        picked.add(op, n);
        rest.add(op, -n);
    }
    (picked, rest)
}

/// One row of the AbOp breakdown (Saavedra's Fig. 3.12 report).
#[derive(Debug, Clone, Serialize)]
pub struct AbOpRow {
    /// The AbOp.
    pub abop: AbOp,
    /// Its catalogue meaning.
    pub meaning: &'static str,
    /// Executions.
    pub executions: f64,
    /// Share of all operations executed (0-1).
    pub operation_share: f64,
    /// Cost per execution on the machine, ns.
    pub cost_ns: f64,
    /// Time spent in it, seconds.
    pub seconds: f64,
    /// Share of the predicted time (0-1).
    pub time_share: f64,
    /// How the cost is known.
    pub status: CostStatus,
}

/// What a part of the program is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, PartialOrd, Ord)]
#[serde(rename_all = "snake_case")]
pub enum PartKind {
    /// A procedure (program unit), its own blocks only (callees not included).
    Procedure,
    /// A basic block.
    Block,
    /// A source line.
    Line,
    /// A loop, nested loops included (callees not included).
    Loop,
    /// A region marked with `!augur region NAME` ... `!augur end region`.
    Region,
}

/// A part of the program with its predicted time.
#[derive(Debug, Clone, Serialize)]
pub struct PartRow {
    /// What it is.
    pub kind: PartKind,
    /// Its name: `unit`, `unit block 3`, `file:line`, `unit loop 2 (line 40)`, region name.
    pub name: String,
    /// Its file.
    pub file: String,
    /// First line.
    pub first_line: u32,
    /// Last line.
    pub last_line: u32,
    /// Operations executed in it.
    pub operations: f64,
    /// Predicted time.
    pub estimate: Estimate,
    /// Share of the whole program's predicted time (0-1).
    pub time_share: f64,
    /// Executions: calls of a procedure, executions of a block, entries of a loop.
    pub executions: Option<f64>,
    /// Mean trips per entry of a loop.
    pub mean_trips: Option<f64>,
    /// The AbOp costing it most, with that AbOp's share of its time.
    pub top_abop: Option<(AbOp, f64)>,
}

/// A loop nest's operation time, memory time and their combination.
#[derive(Debug, Clone, Serialize)]
pub struct NestRow {
    /// The nest (its outermost loop).
    pub name: String,
    /// Its file.
    pub file: String,
    /// Line of the outermost DO.
    pub line: u32,
    /// Operation time (AbOps).
    pub operations_seconds: f64,
    /// Memory time (line transfers at each level's bandwidth).
    pub memory_seconds: f64,
    /// The two combined by the overlap rule.
    pub combined_seconds: f64,
    /// Memory time per level.
    pub levels: Vec<LevelTraffic>,
    /// `affine`, `array_syntax`, `sampled` or several joined by `+`.
    pub kind: String,
    /// Memory time per array (or sampled reference) and level.
    pub arrays: Vec<ArrayTraffic>,
}

/// An AbOp the program executes whose cost the machine profile does not give.
#[derive(Debug, Clone, Serialize)]
pub struct Uncosted {
    /// The AbOp.
    pub abop: AbOp,
    /// Its executions.
    pub executions: f64,
    /// Share of the program's operations.
    pub operation_share: f64,
    /// The machine profile's status for it (`not yet measured`, `failed: ...`, `absent`).
    pub machine_status: String,
}

/// A prediction: total time, the AbOp report and the breakdowns.
#[derive(Debug, Clone, Serialize)]
pub struct Prediction {
    /// The cost model: `chain` (every AbOp at its narrow-spectrum, dependent-chain cost,
    /// Saavedra's model) or `stream+chain` (blocks in loops at stream cost, bounded below
    /// by their recurrences at chain cost).
    pub model: &'static str,
    /// How operation and memory time combine in a loop nest.
    pub overlap: Overlap,
    /// Time the memory term adds to the operation time (Σ over nests of
    /// `combine(ops, mem) - ops`); included in `total`.
    pub memory_seconds: f64,
    /// Loop nests with a memory term, largest memory time first.
    pub memory: Vec<NestRow>,
    /// Pages the program touches for the first time (the counting run's minor page
    /// faults, in the machine's base pages; 0 when the program profile predates them).
    pub first_touch_pages: f64,
    /// Their time at the machine's measured cost of a page fault; in `total` unless the
    /// memory term is off (`--overlap none`).
    pub first_touch_seconds: f64,
    /// Branch mispredictions of the run (`BRMP` and `BRMC` executions outside
    /// vectorized loops): simulated when [`Prediction::branches_simulated`], else an
    /// upper bound, exact only when every data-dependent branch is unpredictable.
    pub mispredictions: f64,
    /// Whether the program profile simulated them (a branch run).
    pub branches_simulated: bool,
    /// Whether they are in the total.
    pub branches_priced: bool,
    /// Their time at the machine's misprediction costs.
    pub branch_seconds: f64,
    /// Predicted time of the whole program (operations and memory term).
    pub total: Estimate,
    /// Operations executed.
    pub operations: f64,
    /// Per AbOp executed, largest time first.
    pub abops: Vec<AbOpRow>,
    /// Procedures, largest first.
    pub procedures: Vec<PartRow>,
    /// Basic blocks, largest first.
    pub blocks: Vec<PartRow>,
    /// Source lines, largest first.
    pub lines: Vec<PartRow>,
    /// Loops, largest first.
    pub loops: Vec<PartRow>,
    /// Regions, largest first.
    pub regions: Vec<PartRow>,
    /// AbOps executed but without a cost (counted as 0).
    pub uncosted: Vec<Uncosted>,
    /// Warnings about the inputs (partial profile, uncosted AbOps, ...).
    pub warnings: Vec<String>,
}

fn share(part: f64, whole: f64) -> f64 {
    if whole > 0.0 {
        part / whole
    } else {
        0.0
    }
}

/// The AbOp costing the most time, and its share of `total`.
fn top_abop(seconds: &AbOpCounts, total: f64) -> Option<(AbOp, f64)> {
    seconds
        .iter()
        .filter(|(_, t)| *t > 0.0)
        .max_by(|a, b| a.1.total_cmp(&b.1))
        .map(|(op, t)| (op, share(t, total)))
}

/// A part of the program being priced.
struct PartSpec<'a> {
    kind: PartKind,
    name: String,
    file: &'a str,
    first_line: u32,
    last_line: u32,
    executions: Option<f64>,
    mean_trips: Option<f64>,
}

/// Prices parts: exactly from block coefficients, or (lines, regions, which the profile
/// records as AbOp counts only) at the program's effective cost of each AbOp.
struct Pricer<'a> {
    table: &'a CostTable,
    whole: f64,
    /// Effective seconds per execution of each AbOp over the whole program.
    effective: Vec<f64>,
    /// Effective standard error per execution.
    effective_se: Vec<f64>,
}

impl Pricer<'_> {
    fn row(
        &self,
        p: PartSpec,
        operations: f64,
        estimate: Estimate,
        seconds: &AbOpCounts,
    ) -> PartRow {
        PartRow {
            kind: p.kind,
            name: p.name,
            file: p.file.to_string(),
            first_line: p.first_line,
            last_line: p.last_line,
            operations,
            time_share: share(estimate.seconds, self.whole),
            top_abop: top_abop(seconds, estimate.seconds),
            estimate,
            executions: p.executions,
            mean_trips: p.mean_trips,
        }
    }

    fn exact(&self, p: PartSpec, c: &Coefficients) -> PartRow {
        let ops = c.operations();
        let est = self.table.cost_of(c);
        let secs = self.table.seconds_by_abop(c);
        self.row(p, ops, est, &secs)
    }

    fn effective(&self, p: PartSpec, counts: &AbOpCounts) -> PartRow {
        let mut t = 0.0;
        let mut var = 0.0;
        let mut secs = AbOpCounts::new();
        for (op, n) in counts.iter() {
            t += n * self.effective[op.index()];
            var += (n * self.effective_se[op.index()]).powi(2);
            secs.add(op, n * self.effective[op.index()]);
        }
        let est = Estimate {
            seconds: t,
            sd_seconds: var.sqrt(),
        };
        self.row(p, counts.total(), est, &secs)
    }
}

fn sorted(mut rows: Vec<PartRow>) -> Vec<PartRow> {
    rows.retain(|r| r.operations > 0.0);
    rows.sort_by(|a, b| {
        b.estimate
            .seconds
            .total_cmp(&a.estimate.seconds)
            .then(b.operations.total_cmp(&a.operations))
    });
    rows
}

/// The coefficients of all executions of a block.
fn block_total(table: &CostTable, b: &BlockProfile, ctx: BlockContext) -> Coefficients {
    let mu = b.executions.unwrap_or(0.0);
    if !b.chain.is_empty() && priced_chain(table, b).is_empty() {
        return block_total(table, &without_chain(b), ctx);
    }
    let per = if table.register_scalars && !b.register_writes.is_empty() {
        let mut counts = b.counts.clone();
        for (op, n) in b.register_writes.iter() {
            counts.add(op, -n.min(counts.get(op)));
        }
        table.block_coefficients(&counts, &b.chain, ctx)
    } else {
        table.block_coefficients(&b.counts, &b.chain, ctx)
    };
    let mut c = Coefficients::default();
    c.add_scaled(&per, mu);
    c.executed = mu * b.counts.total();
    c
}

/// The share of an inlined procedure's work that belongs to one loop of its caller
/// ([`inlined_shares`]): its blocks' coefficients, at throughput, and their
/// recurrences, each times the share of the procedure's calls made there.
#[derive(Debug, Clone, Default)]
struct InlinedShare {
    /// The caller's loop (id in its unit).
    loop_id: u32,
    /// The callee (index in the program's units).
    callee: usize,
    /// Share of the callee's calls made from the loop (0-1).
    share: f64,
    /// The callee's blocks as priced, times `share`.
    work: Coefficients,
    /// The same at throughput.
    throughput: Coefficients,
    /// Their recurrences at chain cost, times `share`.
    chains: Coefficients,
}

/// For each unit, the work of the procedures the compiler inlined into its innermost
/// loops: an inlined procedure's code is part of the loop body, so its throughput
/// joins the body's and its recurrences (`state = mod(a*state + c, m)` of a random
/// number generator) join the body's recurrences, instead of adding to them. Only
/// procedures without loops of their own, called from a block of the loop.
fn inlined_shares(
    units: &[UnitProfile],
    table: &CostTable,
    report: Option<&augur_program_profile::optreport::OptReport>,
    blocks_c: &[Vec<Coefficients>],
    throughput_c: &[Vec<Coefficients>],
) -> Vec<Vec<InlinedShare>> {
    let mut out: Vec<Vec<InlinedShare>> = vec![vec![]; units.len()];
    let Some(r) = report else {
        return out;
    };
    let index = |name: &str| units.iter().position(|u| u.name.eq_ignore_ascii_case(name));
    for call in &r.inlined {
        let (Some(ui), Some(vi)) = (index(&call.caller), index(&call.callee)) else {
            continue;
        };
        let (u, v) = (&units[ui], &units[vi]);
        if ui == vi
            || !v.loops.is_empty()
            || !augur_program_profile::optreport::same_file(&u.file, &call.file)
        {
            continue;
        }
        let Some(calls) = v.calls.filter(|c| *c > 0.0) else {
            continue;
        };
        // The block of the caller holding the call, in an innermost loop.
        let Some(b) = u
            .blocks
            .iter()
            .find(|b| b.first_line <= call.line && call.line <= b.last_line && b.in_loop.is_some())
        else {
            continue;
        };
        let Some(loop_id) = b.in_loop else { continue };
        if u.loops.iter().any(|o| o.parent == Some(loop_id)) {
            continue;
        }
        let share = (b.executions.unwrap_or(0.0) / calls).clamp(0.0, 1.0);
        if share <= 0.0 {
            continue;
        }
        let mut s = InlinedShare {
            loop_id,
            callee: vi,
            share,
            ..InlinedShare::default()
        };
        for (bi, vb) in v.blocks.iter().enumerate() {
            if let Some(c) = blocks_c[vi].get(bi) {
                s.work.add_scaled(&without_branches(c), share);
            }
            if let Some(c) = throughput_c[vi].get(bi) {
                s.throughput.add_scaled(&without_branches(c), share);
            }
            s.chains.chain.add_scaled(
                priced_chain(table, vb),
                share * vb.executions.unwrap_or(0.0),
            );
        }
        out[ui].push(s);
    }
    out
}

/// The loop-level recurrence rule. The operations of an innermost loop's iteration run
/// on an out-of-order core either at their throughput (stream costs) or at the pace of
/// the recurrence that carries a value from one iteration to the next (chain costs),
/// whichever is slower: the recurrence across the body's blocks
/// (`LoopProfile::chain`, the expected one of an iteration) or the ones inside its
/// blocks (a reduction's add). Priced one by one, each block takes the slower of its
/// own two and the blocks add up; the body's operations are scaled to the slowest of
/// the whole body's throughput (`unit_thru`, every block at stream cost) and its
/// recurrences, plus its library calls, which do not overlap a recurrence
/// (mispredictions apart, which come on top), so every breakdown still adds up.
/// Vectorized loops carry no recurrence across blocks (an in-order reduction inside a
/// block still binds it, [`CostTable::ordered_reductions`]).
///
/// The shares of the procedures inlined into the unit's loops (`inlined`, from
/// [`inlined_shares`]) join the loops' bodies. Returns, for each share whose loop was scaled, the
/// callee, its share and the factor `k` the loop's work takes (the caller scales the
/// callee's blocks by `1 + share·(k − 1)`).
fn loop_recurrences(
    table: &CostTable,
    report: Option<&augur_program_profile::optreport::OptReport>,
    u: &UnitProfile,
    unit_c: &mut [Coefficients],
    unit_thru: &[Coefficients],
    inlined: &[InlinedShare],
) -> Vec<(usize, f64, f64)> {
    let mut scaled = vec![];
    for l in &u.loops {
        let Some(n) = l.iterations.filter(|n| *n > 0.0) else {
            continue;
        };
        let innermost = !u.loops.iter().any(|o| o.parent == Some(l.id));
        if !innermost || report.is_some_and(|r| r.is_vectorized(&u.file, l.line)) {
            continue;
        }
        let body: Vec<usize> = u
            .blocks
            .iter()
            .enumerate()
            .filter(|(_, b)| b.in_loop == Some(l.id))
            .map(|(i, _)| i)
            .collect();
        let mut work = Coefficients::default();
        let mut throughput = Coefficients::default();
        for &i in &body {
            if let Some(c) = unit_c.get(i) {
                work.add(&without_branches(c));
            }
            if let Some(c) = unit_thru.get(i) {
                throughput.add(&without_branches(c));
            }
        }
        let here: Vec<&InlinedShare> = inlined.iter().filter(|s| s.loop_id == l.id).collect();
        for s in &here {
            work.add(&s.work);
            throughput.add(&s.throughput);
        }
        let t_body = table.cost_of(&work).seconds;
        if t_body <= 0.0 {
            continue;
        }
        let t_loop_chain: f64 = n * l
            .chain
            .iter()
            .map(|(op, k)| k * table.get(op).seconds)
            .sum::<f64>();
        // The blocks' own recurrences, whether or not they bound their blocks.
        let mut block_chains = Coefficients::default();
        for &i in &body {
            let b = &u.blocks[i];
            block_chains
                .chain
                .add_scaled(priced_chain(table, b), b.executions.unwrap_or(0.0));
        }
        for s in &here {
            block_chains.add(&s.chains);
        }
        let t_block_chains = table.cost_of(&block_chains).seconds;
        // Library calls do not overlap the recurrence: they come on top of it (on a Zen 5,
        // `z = z*z + c` takes 2.3 ns an iteration, 7.2 ns with `abs(z)` beside it, whose
        // calls alone take 3 ns each).
        let calls = only(&throughput, &LIBRARY_CALLS);
        let t_calls = table.cost_of(&calls).seconds;
        let t_throughput = table.cost_of(&throughput).seconds;
        // A floating-point recurrence around a call (library or user) is stored before
        // the call and reloaded after it, each iteration (`CostTable::call_spill`).
        let calls_inside = body.iter().any(|&i| {
            let c = &u.blocks[i].counts;
            c.get(AbOp::PROC) > 0.0 || LIBRARY_CALLS.iter().any(|&op| c.get(op) > 0.0)
        });
        let floating = |c: &AbOpCounts| {
            c.iter().any(|(op, k)| {
                let g = op.info().group;
                k > 0.0 && (g.contains("real") || g.contains("complex"))
            })
        };
        // (Without optimization every value goes through memory anyway: the chain costs
        // measured at -O0 include the store and reload.)
        let spilled = table.register_scalars
            && calls_inside
            && (floating(&l.chain)
                || body
                    .iter()
                    .any(|&i| floating(priced_chain(table, &u.blocks[i]))));
        let t_spill = if spilled { n * table.call_spill } else { 0.0 };
        let t_chain = t_loop_chain.max(t_block_chains) + t_spill;
        let t = match &l.serial_calls {
            // The calls that wait for the recurrence add to it; the others run ahead of
            // it and only count in the throughput (a Zen 5: `s = s*0.999 + exp(x(i))`
            // 3.5 ns an iteration, its chain alone 1.4 ns, its calls alone 3.1 ns).
            Some(serial) => {
                let mut waiting = Coefficients::default();
                waiting
                    .stream
                    .add_scaled(&split_ops(serial, &LIBRARY_CALLS).0, n);
                t_throughput.max(t_chain + table.cost_of(&waiting).seconds)
            }
            // Profiles made before the field: every call on top of the recurrence.
            None => (t_throughput - t_calls).max(t_chain) + t_calls,
        };
        let k = t / t_body;
        if (k - 1.0).abs() < 1e-12 {
            continue;
        }
        for s in &here {
            scaled.push((s.callee, s.share, k));
        }
        for &i in &body {
            if let Some(c) = unit_c.get_mut(i) {
                scale_work(c, k);
            }
        }
    }
    scaled
}

/// `c + (k − 1)·work`: the work of `c` scaled by `k`, its mispredictions kept (and the
/// operations executed as they were).
fn scale_work(c: &mut Coefficients, k: f64) {
    let mut work = without_branches(c);
    work.executed = 0.0;
    c.add_scaled(&work, k - 1.0);
}

/// The AbOps that issue loads and stores of memory: array references' address work
/// (group `arrays`) and stores.
fn memory_issue_abops() -> &'static [AbOp] {
    static OPS: std::sync::OnceLock<Vec<AbOp>> = std::sync::OnceLock::new();
    OPS.get_or_init(|| {
        augur_ir::abop::ALL
            .iter()
            .copied()
            .filter(|op| {
                let i = op.info();
                i.group == "arrays" || i.meaning.starts_with("Store,")
            })
            .collect()
    })
}

/// The part of `c` that is operations `ops`.
fn only(c: &Coefficients, ops: &[AbOp]) -> Coefficients {
    Coefficients {
        executed: 0.0,
        ..c.each_context(|counts| split_ops(counts, ops).0)
    }
}

/// The recurrence of block `b` as the table prices it. An array reduction's partial
/// result (the chain of an element block) is a compiler temporary kept in a register
/// even without optimization (gfortran 12 -O0: `dot_product` 0.46 ns an element, the
/// add's latency), while the chain costs measured at -O0 hold a store and a reload of
/// a variable: there the element block keeps its stream costs.
fn priced_chain<'b>(table: &CostTable, b: &'b BlockProfile) -> &'b AbOpCounts {
    static NONE: AbOpCounts = AbOpCounts::new();
    if !table.register_scalars && b.block_kind == augur_ir::BlockKind::Elements {
        &NONE
    } else {
        &b.chain
    }
}

/// A block as if it carried no recurrence.
fn without_chain(b: &BlockProfile) -> BlockProfile {
    BlockProfile {
        chain: AbOpCounts::default(),
        ..b.clone()
    }
}

/// Coefficients without the mispredictions.
fn without_branches(c: &Coefficients) -> Coefficients {
    c.each_context(|counts| split_ops(counts, &BRANCH_ABOPS).1)
}

/// The program's optimization report when it is for the machine's compiler and flags.
fn report_for<'a>(
    program: &'a ProgramProfile,
    machine: &MachineProfile,
) -> Option<&'a augur_program_profile::optreport::OptReport> {
    let r = program.optimization.as_ref()?;
    let flags: Vec<String> = machine
        .provenance
        .fflags
        .split_whitespace()
        .map(str::to_string)
        .collect();
    r.matches(&machine.provenance.compiler, &flags).then_some(r)
}

/// What the compiler did to block `b` of unit `u`, by the report.
pub fn block_context(
    report: Option<&augur_program_profile::optreport::OptReport>,
    u: &UnitProfile,
    b: &BlockProfile,
) -> BlockContext {
    let Some(r) = report else {
        return BlockContext::default();
    };
    let loop_line = b
        .in_loop
        .and_then(|id| u.loops.iter().find(|l| l.id == id))
        .map(|l| l.line);
    let array_statement = b.counts.get(AbOp::ALOV) > 0.0 || b.counts.get(AbOp::ALIN) > 0.0;
    let vectorized = loop_line.is_some_and(|line| r.is_vectorized(&u.file, line))
        || (array_statement && r.vectorized_within(&u.file, b.first_line, b.last_line));
    let header = b.block_kind == augur_ir::BlockKind::LoopHeader;
    let unrolled = (header && loop_line.is_some_and(|line| r.is_unrolled(&u.file, line)))
        || (array_statement && r.unrolled_within(&u.file, b.first_line, b.last_line));
    let calls = b.counts.get(AbOp::PROC);
    let inlined = if calls > 0.0 {
        (r.inlined_within(&u.file, b.first_line, b.last_line) as f64 / calls).min(1.0)
    } else {
        0.0
    };
    let branchless = !header && r.is_branchless(&u.file, b.last_line);
    let branch_kept = !header && r.is_branching(&u.file, b.last_line);
    BlockContext {
        vectorized,
        inlined,
        unrolled,
        branchless,
        branch_kept,
    }
}

fn loop_name(u: &UnitProfile, l: &LoopProfile) -> String {
    format!("{} loop {} (line {})", u.name, l.id, l.line)
}

/// Predicts the time of a program profile on a machine.
pub fn predict(program: &ProgramProfile, machine: &MachineProfile) -> Prediction {
    let table = CostTable::from_profile(machine);
    predict_with(program, &table, machine)
}

/// [`predict`] with a cost table built once (for workloads and benchmarks).
pub fn predict_with(
    program: &ProgramProfile,
    table: &CostTable,
    machine: &MachineProfile,
) -> Prediction {
    predict_overlap(program, table, machine, Overlap::default())
}

/// [`predict_with`] with a chosen combination of operation and memory time.
pub fn predict_overlap(
    program: &ProgramProfile,
    table: &CostTable,
    machine: &MachineProfile,
    overlap: Overlap,
) -> Prediction {
    let branches_simulated = program.branches.is_some();
    let priced;
    let table = if !table.branches && table.simulated_branches && branches_simulated {
        priced = CostTable {
            branches: true,
            ..table.clone()
        };
        &priced
    } else {
        table
    };
    let nest_mem = match (&program.locality, &machine.memory) {
        (Some(loc), Some(mem)) if overlap != Overlap::None => nest_memory(loc, mem),
        _ => vec![],
    };
    let mut memory_rows = vec![];
    let report = report_for(program, machine);
    // Price every block once (every part is a sum of blocks), and count the
    // mispredictions outside vectorized loops with their time.
    let (mut mispredictions, mut branch_seconds) = (0.0, 0.0);
    let mut blocks_c: Vec<Vec<Coefficients>> = Vec::with_capacity(program.units.len());
    // The same at throughput: every block priced as if it carried no recurrence.
    let mut throughput_c: Vec<Vec<Coefficients>> = Vec::with_capacity(program.units.len());
    for u in &program.units {
        let mut unit_c = Vec::with_capacity(u.blocks.len());
        let mut unit_thru = Vec::with_capacity(u.blocks.len());
        for b in &u.blocks {
            let ctx = block_context(report, u, b);
            let mu = b.executions.unwrap_or(0.0);
            if mu > 0.0 && !ctx.branchless && !(table.has_vector() && ctx.vectorized) {
                for op in BRANCH_ABOPS {
                    let n = mu * b.counts.get(op);
                    // A kept branch costs a full misprediction whatever its arms.
                    let priced = if ctx.branch_kept { AbOp::BRMP } else { op };
                    mispredictions += n;
                    branch_seconds += n * table.get(priced).seconds;
                }
            }
            unit_c.push(block_total(table, b, ctx));
            unit_thru.push(block_total(table, &without_chain(b), ctx));
        }
        blocks_c.push(unit_c);
        throughput_c.push(unit_thru);
    }
    if table.has_stream() {
        let shares = inlined_shares(&program.units, table, report, &blocks_c, &throughput_c);
        let mut callee_scales = vec![];
        for (((u, unit_c), thru), inlined) in program
            .units
            .iter()
            .zip(blocks_c.iter_mut())
            .zip(&throughput_c)
            .zip(&shares)
        {
            callee_scales.extend(loop_recurrences(table, report, u, unit_c, thru, inlined));
        }
        // An inlined procedure's blocks take their loops' scale, each for its share.
        for (vi, share, k) in callee_scales {
            for c in &mut blocks_c[vi] {
                scale_work(c, 1.0 + share * (k - 1.0));
            }
        }
    }
    let mut all = Coefficients::default();
    for c in blocks_c.iter().flatten() {
        all.add(c);
    }
    let total = table.cost_of(&all);
    let whole = total.seconds;
    let ops = program.operations;
    let seconds = table.seconds_by_abop(&all);
    let mut effective = vec![0.0; augur_ir::abop::COUNT];
    let mut effective_se = vec![0.0; augur_ir::abop::COUNT];
    for (op, n) in program.totals.iter() {
        if n > 0.0 {
            let i = op.index();
            effective[i] = seconds.get(op) / n;
            effective_se[i] = table.variance_of(&all, op).sqrt() / n;
        }
    }
    let pricer = Pricer {
        table,
        whole,
        effective,
        effective_se,
    };
    let mut abops: Vec<AbOpRow> = program
        .totals
        .iter()
        .filter(|(_, n)| *n > 0.0)
        .map(|(op, n)| {
            let t = seconds.get(op);
            let in_loops = all.stream.get(op) + all.vector.get(op) > 0.0;
            let status = match (table.get(op).status, table.stream[op.index()]) {
                (_, Some(p)) if p.status == CostStatus::Scaled && in_loops => CostStatus::Scaled,
                (CostStatus::Measured, _) => CostStatus::Measured,
                (_, Some(p)) if p.status == CostStatus::Measured => CostStatus::Measured,
                (CostStatus::NotDetected, _) | (_, Some(_)) => CostStatus::NotDetected,
                (CostStatus::Missing | CostStatus::Scaled, None) => CostStatus::Missing,
            };
            AbOpRow {
                abop: op,
                meaning: op.info().meaning,
                executions: n,
                operation_share: share(n, ops),
                cost_ns: 1e9 * t / n,
                seconds: t,
                time_share: share(t, whole),
                status,
            }
        })
        .collect();
    abops.sort_by(|a, b| {
        b.seconds
            .total_cmp(&a.seconds)
            .then(b.executions.total_cmp(&a.executions))
    });

    let mut procedures = vec![];
    let mut blocks = vec![];
    let mut loops = vec![];
    for (ui, u) in program.units.iter().enumerate() {
        let mut unit_c = Coefficients::default();
        for (bi, b) in u.blocks.iter().enumerate() {
            let c = &blocks_c[ui][bi];
            unit_c.add(c);
            blocks.push(pricer.exact(
                PartSpec {
                    kind: PartKind::Block,
                    name: format!("{} block {}", u.name, b.id),
                    file: &u.file,
                    first_line: b.first_line,
                    last_line: b.last_line,
                    executions: b.executions,
                    mean_trips: None,
                },
                c,
            ));
        }
        procedures.push(pricer.exact(
            PartSpec {
                kind: PartKind::Procedure,
                name: u.name.clone(),
                file: &u.file,
                first_line: u.first_line,
                last_line: u.last_line,
                executions: u.calls,
                mean_trips: None,
            },
            &unit_c,
        ));
        for l in &u.loops {
            let mut loop_c = Coefficients::default();
            let mut loop_thru = Coefficients::default();
            let mut floating_chain = !floating_arithmetic(&l.chain).is_empty();
            let mut last = l.line;
            for (bi, b) in u.blocks.iter().enumerate() {
                if inside_loop(u, b.in_loop, l.id) {
                    loop_c.add(&blocks_c[ui][bi]);
                    loop_thru.add(&throughput_c[ui][bi]);
                    floating_chain |= !floating_arithmetic(priced_chain(table, b)).is_empty();
                    last = last.max(b.last_line);
                }
            }
            // Rows never overlap: a nest's root is tried only when the loop
            // around it made no nest, and sampled references join a row that
            // holds no other.
            if let Some(nm) = nest_mem
                .iter()
                .find(|n| n.unit == u.name && n.loop_id == l.id)
            {
                let ops = table.cost_of(&loop_c).seconds;
                // What a floating-point recurrence leaves idle (integer ones may be
                // the addresses of the misses: a pointer chase waits for them).
                let idle = if floating_chain {
                    (ops - table.cost_of(&loop_thru).seconds).max(0.0)
                } else {
                    0.0
                };
                memory_rows.push(NestRow {
                    name: loop_name(u, l),
                    file: u.file.clone(),
                    line: l.line,
                    operations_seconds: ops,
                    memory_seconds: nm.seconds,
                    combined_seconds: combine_issue(
                        ops,
                        table.cost_of(&only(&loop_c, memory_issue_abops())).seconds,
                        nm.seconds,
                        nm.sequential(),
                        idle,
                        overlap,
                    ),
                    levels: nm.levels.clone(),
                    kind: nm.kind.clone(),
                    arrays: nm.arrays.clone(),
                });
            }
            loops.push(pricer.exact(
                PartSpec {
                    kind: PartKind::Loop,
                    name: loop_name(u, l),
                    file: &u.file,
                    first_line: l.line,
                    last_line: last,
                    executions: l.entries,
                    mean_trips: l.mean_trips,
                },
                &loop_c,
            ));
        }
    }
    let lines = program
        .lines
        .iter()
        .map(|l| {
            pricer.effective(
                PartSpec {
                    kind: PartKind::Line,
                    name: format!("{}:{}", l.file, l.line),
                    file: &l.file,
                    first_line: l.line,
                    last_line: l.line,
                    executions: None,
                    mean_trips: None,
                },
                &l.abops,
            )
        })
        .collect();
    let regions = program
        .regions
        .iter()
        .map(|r| {
            pricer.effective(
                PartSpec {
                    kind: PartKind::Region,
                    name: r.name.clone(),
                    file: &r.file,
                    first_line: r.first_line,
                    last_line: r.last_line,
                    executions: None,
                    mean_trips: None,
                },
                &r.abops,
            )
        })
        .collect();

    let uncosted: Vec<Uncosted> = abops
        .iter()
        .filter(|r| r.status == CostStatus::Missing)
        .filter(|r| table.branches || !BRANCH_ABOPS.contains(&r.abop))
        .map(|r| Uncosted {
            abop: r.abop,
            executions: r.executions,
            operation_share: r.operation_share,
            machine_status: machine
                .abop
                .get(&r.abop)
                .map(|e| e.status.clone())
                .unwrap_or_else(|| "absent".to_string()),
        })
        .collect();
    let mut warnings = vec![];
    if program.partial {
        warnings.push(
            "the program profile is partial (the counting run did not finish); the prediction covers only what ran"
                .to_string(),
        );
    }
    if !uncosted.is_empty() {
        let share_sum: f64 = uncosted.iter().map(|u| u.operation_share).sum();
        let names: Vec<String> = uncosted
            .iter()
            .map(|u| format!("{} ({})", u.abop, u.machine_status))
            .collect();
        warnings.push(format!(
            "{} AbOp(s) the program executes have no cost in the machine profile and count as 0: {} ({:.2}% of the operations); measure them with `augur characterize --only ...`",
            uncosted.len(),
            names.join(", "),
            100.0 * share_sum
        ));
    }
    match (&program.optimization, report) {
        (Some(r), None) => warnings.push(format!(
            "the program's optimization report is for {} {}, the machine's compiler is {} {}: \
             vectorization and inlining are not taken into account (analyze the program with \
             --fc {} --fflags \"{}\" to use them)",
            r.compiler,
            r.fflags.join(" "),
            machine.provenance.compiler,
            machine.provenance.fflags,
            machine.provenance.compiler,
            machine.provenance.fflags
        )),
        (None, _) if table.has_vector() => warnings.push(
            "the program profile has no optimization report (made by an older augur): \
             vectorized loops are priced as scalar loops and inlined calls keep their cost; \
             re-run `augur analyze`"
                .to_string(),
        ),
        _ => {}
    }
    let memory_extra: f64 = memory_rows
        .iter()
        .map(|r| r.combined_seconds - r.operations_seconds)
        .sum();
    memory_rows.sort_by(|a, b| b.memory_seconds.total_cmp(&a.memory_seconds));
    let mut total = total;
    total.seconds += memory_extra;
    // First touches: every page the program maps costs the operating system a fault
    // (zeroing and mapping it), outside any loop nest's transfers.
    let fault_ns = machine
        .memory
        .as_ref()
        .and_then(|m| m.memory.page_fault_ns.map(|ns| (ns, m.os_page_bytes)));
    let (first_touch_pages, first_touch_seconds) = match (program.run.first_touch_pages, fault_ns) {
        (Some(pages), Some((ns, page_bytes))) if overlap != Overlap::None => {
            let pages = pages as f64 * augur_program_profile::locality::PAGE_BYTES as f64
                / page_bytes.max(1) as f64;
            (pages, pages * ns * 1e-9)
        }
        (Some(pages), _) => (pages as f64, 0.0),
        _ => (0.0, 0.0),
    };
    total.seconds += first_touch_seconds;
    if program.locality.is_some() && machine.memory.is_none() && overlap != Overlap::None {
        warnings.push(
            "the machine profile has no [memory] section: no memory-hierarchy term (measure it with `augur characterize --memory -o MACHINE.toml`)".to_string(),
        );
    }
    Prediction {
        overlap,
        memory_seconds: memory_extra,
        memory: memory_rows,
        first_touch_pages,
        first_touch_seconds,
        mispredictions,
        branches_simulated,
        branches_priced: table.branches,
        branch_seconds,
        model: if table.has_stream() {
            "stream+chain"
        } else {
            "chain"
        },
        total,
        operations: ops,
        abops,
        procedures: sorted(procedures),
        blocks: sorted(blocks),
        lines: sorted(lines),
        loops: sorted(loops),
        regions: sorted(regions),
        uncosted,
        warnings,
    }
}

/// Whether a block whose innermost loop is `inner` lies inside loop `target`.
fn inside_loop(u: &UnitProfile, inner: Option<u32>, target: u32) -> bool {
    let mut cur = inner;
    let mut guard = 0;
    while let Some(l) = cur {
        if l == target {
            return true;
        }
        cur = u.loops.iter().find(|x| x.id == l).and_then(|x| x.parent);
        guard += 1;
        if guard > u.loops.len() {
            return false;
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use augur_machine_profile::{AbOpEntry, Provenance};

    /// (AbOp, status, mean ns, 90% half-width ns, observations)
    type Entry<'a> = (AbOp, &'a str, Option<f64>, Option<f64>, u32);

    /// A measured entry of `mean` ns with a 90% half-width of `ci` ns.
    fn entry(mean: f64, ci: f64) -> AbOpEntry {
        let mut e = AbOpEntry::status(MEASURED);
        e.mean_ns = Some(mean);
        e.ci90_ns = Some(ci);
        e.observations = 10;
        e
    }

    fn machine(entries: &[Entry]) -> MachineProfile {
        let mut m = MachineProfile::new(Provenance::default());
        for &(op, status, mean, ci, n) in entries {
            let mut e = AbOpEntry::status(status);
            e.mean_ns = mean;
            e.ci90_ns = ci;
            e.observations = n;
            m.abop.insert(op, e);
        }
        m
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
        let stream_entry = |ns: f64| {
            let mut e = AbOpEntry::status(MEASURED);
            e.mean_ns = Some(ns);
            e.ci90_ns = Some(0.0);
            e.observations = 10;
            e
        };
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
    fn loop_blocks_take_the_larger_of_stream_and_recurrence() {
        let mut m = machine(&[
            (AbOp::ARDL, MEASURED, Some(3.0), Some(0.0), 10),
            (AbOp::MRDL, MEASURED, Some(3.0), Some(0.0), 10),
        ]);
        let t = CostTable::from_profile(&m);
        assert!(!t.has_stream());
        let mut counts = AbOpCounts::new();
        counts.add(AbOp::ARDL, 1.0);
        counts.add(AbOp::MRDL, 1.0);
        let mut chain = AbOpCounts::new();
        chain.add(AbOp::ARDL, 1.0);
        // Without stream costs: Saavedra's model, everything at chain cost.
        let c = t.block_coefficients(&counts, &chain, BlockContext::default());
        assert!((t.cost_of(&c).seconds - 6e-9).abs() < 1e-15);

        let mut e = AbOpEntry::status(MEASURED);
        e.mean_ns = Some(0.5);
        e.ci90_ns = Some(0.0);
        e.observations = 10;
        m.stream.insert(AbOp::ARDL, e.clone());
        m.stream.insert(AbOp::MRDL, e);
        let t = CostTable::from_profile(&m);
        assert!(t.has_stream());
        // A reduction: the 3 ns add chain beats 2 x 0.5 ns of throughput.
        let c = t.block_coefficients(&counts, &chain, BlockContext::default());
        assert!((t.cost_of(&c).seconds - 3e-9).abs() < 1e-15);
        // No recurrence: throughput.
        let c = t.block_coefficients(&counts, &AbOpCounts::new(), BlockContext::default());
        assert!((t.cost_of(&c).seconds - 1e-9).abs() < 1e-15);

        // A loop the compiler vectorized: without leave to reassociate, it adds the
        // reduction in order, and the add chain still binds.
        let mut v = AbOpEntry::status(MEASURED);
        v.mean_ns = Some(0.125);
        v.ci90_ns = Some(0.0);
        v.observations = 10;
        m.stream_vector.insert(AbOp::ARDL, v);
        m.provenance.fflags = "-O2".into();
        let t = CostTable::from_profile(&m);
        assert!(t.ordered_reductions);
        let vec_ctx = BlockContext {
            vectorized: true,
            ..BlockContext::default()
        };
        let c = t.block_coefficients(&counts, &chain, vec_ctx);
        assert!((t.cost_of(&c).seconds - 3e-9).abs() < 1e-15);
        // With -ffast-math the reduction becomes partial sums: the vector costs, ARDL at
        // its vector cost, MRDL (no vector entry) at its scalar stream cost.
        m.provenance.fflags = "-O2 -ffast-math".into();
        let t = CostTable::from_profile(&m);
        assert!(!t.ordered_reductions);
        let c = t.block_coefficients(&counts, &chain, vec_ctx);
        assert!((t.cost_of(&c).seconds - 0.625e-9).abs() < 1e-15);
    }

    /// A block of loop 0 on line 1, run 10 times, with these counts and chain.
    fn block_profile(
        block_kind: augur_ir::BlockKind,
        counts: AbOpCounts,
        chain: AbOpCounts,
    ) -> BlockProfile {
        BlockProfile {
            id: 0,
            block_kind,
            first_line: 1,
            last_line: 1,
            in_loop: Some(0),
            counts,
            chain,
            register_writes: AbOpCounts::new(),
            executions: Some(10.0),
            how: "counter".into(),
        }
    }

    /// A machine whose double adds and multiplies cost 3 ns in a chain, 0.5 ns in a
    /// stream.
    fn add_mul_machine() -> MachineProfile {
        let mut m = machine(&[
            (AbOp::ARDL, MEASURED, Some(3.0), Some(0.0), 10),
            (AbOp::MRDL, MEASURED, Some(3.0), Some(0.0), 10),
        ]);
        m.stream.insert(AbOp::ARDL, entry(0.5, 0.0));
        m.stream.insert(AbOp::MRDL, entry(0.5, 0.0));
        m
    }

    /// A program unit `t.f90` of these blocks with one innermost loop (id 0, line 1)
    /// of 100 iterations.
    fn unit_with_one_loop(name: &str, blocks: Vec<BlockProfile>) -> UnitProfile {
        UnitProfile {
            name: name.into(),
            unit_kind: augur_ir::UnitKind::Program,
            file: "t.f90".into(),
            first_line: 1,
            last_line: 9,
            host: None,
            calls: Some(1.0),
            totals: AbOpCounts::new(),
            blocks,
            loops: vec![LoopProfile {
                id: 0,
                loop_kind: augur_ir::LoopKind::Counted,
                line: 1,
                depth: 1,
                parent: None,
                entries: Some(1.0),
                iterations: Some(100.0),
                mean_trips: Some(100.0),
                totals: AbOpCounts::new(),
                chain: AbOpCounts::new(),
                serial_calls: None,
            }],
        }
    }

    #[test]
    fn an_inlined_procedure_joins_its_callers_loop() {
        // `x = rand(state)` inlined into a loop of 100 iterations: the generator's
        // `state = a*state + c` is a 6 ns recurrence (two chained 3 ns operations),
        // the loop body 2 ns of independent work. Priced apart, 6 + 2 ns an
        // iteration; as one body, the recurrence hides the work: max(6, 2 + 1) ns.
        let t = CostTable::from_profile(&add_mul_machine());
        let mut ops = AbOpCounts::new();
        ops.add(AbOp::ARDL, 1.0);
        ops.add(AbOp::MRDL, 1.0);
        let mut body_ops = AbOpCounts::new();
        body_ops.add(AbOp::MRDL, 4.0);
        let caller = unit_with_one_loop(
            "main",
            vec![BlockProfile {
                first_line: 3,
                last_line: 4,
                executions: Some(100.0),
                ..block_profile(augur_ir::BlockKind::Straight, body_ops, AbOpCounts::new())
            }],
        );
        let callee = UnitProfile {
            name: "rand".into(),
            unit_kind: augur_ir::UnitKind::Function,
            first_line: 11,
            last_line: 14,
            calls: Some(100.0),
            blocks: vec![BlockProfile {
                first_line: 12,
                last_line: 13,
                in_loop: None,
                executions: Some(100.0),
                ..block_profile(augur_ir::BlockKind::Entry, ops.clone(), ops)
            }],
            loops: vec![],
            ..caller.clone()
        };
        let units = vec![caller, callee];
        let ctx = BlockContext::default();
        let price = |units: &[UnitProfile]| -> Vec<Vec<Coefficients>> {
            units
                .iter()
                .map(|u| u.blocks.iter().map(|b| block_total(&t, b, ctx)).collect())
                .collect()
        };
        let thru: Vec<Vec<Coefficients>> = units
            .iter()
            .map(|u| {
                u.blocks
                    .iter()
                    .map(|b| block_total(&t, &without_chain(b), ctx))
                    .collect()
            })
            .collect();
        let total = |c: &[Vec<Coefficients>]| {
            c.iter()
                .flatten()
                .map(|c| t.cost_of(c).seconds)
                .sum::<f64>()
        };
        let report = |line: u32| augur_program_profile::optreport::OptReport {
            inlined: vec![augur_program_profile::optreport::InlinedCall {
                file: "t.f90".into(),
                line,
                callee: "rand".into(),
                caller: "main".into(),
            }],
            ..Default::default()
        };
        let run = |r: &augur_program_profile::optreport::OptReport| -> f64 {
            let mut c = price(&units);
            let shares = inlined_shares(&units, &t, Some(r), &c, &thru);
            let (head, tail) = c.split_at_mut(1);
            let scales =
                loop_recurrences(&t, Some(r), &units[0], &mut head[0], &thru[0], &shares[0]);
            for (vi, share, k) in scales {
                assert_eq!(vi, 1);
                for c in &mut tail[0] {
                    scale_work(c, 1.0 + share * (k - 1.0));
                }
            }
            total(&c)
        };
        // Not inlined (the report names no call in the loop): 600 + 200 ns.
        assert!((total(&price(&units)) - 800e-9).abs() < 1e-15);
        assert!(
            (run(&report(20)) - 800e-9).abs() < 1e-15,
            "{}",
            run(&report(20))
        );
        // Inlined at line 3: the 6 ns recurrence bounds the merged body.
        assert!(
            (run(&report(3)) - 600e-9).abs() < 1e-15,
            "{}",
            run(&report(3))
        );
    }

    #[test]
    fn array_reductions_keep_their_chain_only_where_scalars_live_in_registers() {
        let mut m = machine(&[(AbOp::ARDL, MEASURED, Some(3.0), Some(0.0), 10)]);
        let mut counts = AbOpCounts::new();
        counts.add(AbOp::ARDL, 1.0);
        let b = block_profile(augur_ir::BlockKind::Elements, counts.clone(), counts);
        m.provenance.fflags = "-O2".into();
        let t = CostTable::from_profile(&m);
        assert_eq!(priced_chain(&t, &b).get(AbOp::ARDL), 1.0);
        // At -O0 the chain costs hold a store and a reload the temporary never pays.
        m.provenance.fflags = "-O0".into();
        let t = CostTable::from_profile(&m);
        assert!(priced_chain(&t, &b).is_empty());
        let straight = BlockProfile {
            block_kind: augur_ir::BlockKind::Straight,
            ..b.clone()
        };
        assert_eq!(priced_chain(&t, &straight).get(AbOp::ARDL), 1.0);
    }

    #[test]
    fn inlined_calls_lose_their_overhead() {
        let m = machine(&[
            (AbOp::PROC, MEASURED, Some(2.0), Some(0.0), 10),
            (AbOp::ARGL, MEASURED, Some(1.0), Some(0.0), 10),
            (AbOp::ARDL, MEASURED, Some(1.0), Some(0.0), 10),
        ]);
        let t = CostTable::from_profile(&m);
        let mut counts = AbOpCounts::new();
        counts.add(AbOp::PROC, 2.0);
        counts.add(AbOp::ARGL, 4.0);
        counts.add(AbOp::ARDL, 1.0);
        let none = AbOpCounts::new();
        let full = t.block_coefficients(&counts, &none, BlockContext::default());
        assert!((t.cost_of(&full).seconds - 9e-9).abs() < 1e-15);
        let half = BlockContext {
            inlined: 0.5,
            ..BlockContext::default()
        };
        let c = t.block_coefficients(&counts, &none, half);
        assert!((t.cost_of(&c).seconds - 5e-9).abs() < 1e-15);
    }

    #[test]
    fn no_block_issues_faster_than_the_floor_and_the_floor_is_exact() {
        let mut m = machine(&[
            (AbOp::ARDL, MEASURED, Some(3.0), Some(0.0), 10),
            (AbOp::BRMP, MEASURED, Some(8.0), Some(0.0), 10),
        ]);
        m.stream.insert(AbOp::ARDL, entry(0.01, 0.05));
        m.stream_floor_ns = Some(0.25);
        let mut t = CostTable::from_profile(&m);
        t.branches = true;
        let mut counts = AbOpCounts::new();
        counts.add(AbOp::ARDL, 4.0);
        counts.add(AbOp::BRMP, 0.5);
        let c = t.block_coefficients(&counts, &AbOpCounts::new(), BlockContext::default());
        // 4 adds at 0.01 ns are below 4 issue slots of 0.25 ns: 1 ns, plus the half
        // misprediction (its chain cost: no stream cost) at 8 ns.
        let cost = t.cost_of(&c);
        assert!((cost.seconds - 5e-9).abs() < 1e-15, "{cost:?}");
        // The floor's slots carry no uncertainty of the adds' fitted cost.
        assert!(cost.sd_seconds < 1e-15, "{cost:?}");
        assert_eq!(c.issue.get(AbOp::ARDL), 4.0);
        // Above the floor, the stream costs stand.
        m.stream_floor_ns = Some(0.001);
        let t = CostTable::from_profile(&m);
        let c = t.block_coefficients(&counts, &AbOpCounts::new(), BlockContext::default());
        assert_eq!(c.issue.total(), 0.0);
        assert_eq!(c.stream.get(AbOp::ARDL), 4.0);
    }

    #[test]
    fn a_loop_body_runs_at_its_throughput_or_its_recurrence_whichever_is_slower() {
        let mut m = add_mul_machine();
        let t = CostTable::from_profile(&m);
        let ops = |pairs: &[(AbOp, f64)]| {
            let mut c = AbOpCounts::new();
            for &(op, n) in pairs {
                c.add(op, n);
            }
            c
        };
        let block = |id: u32, counts: AbOpCounts, chain: AbOpCounts| BlockProfile {
            id,
            first_line: id + 1,
            last_line: id + 1,
            executions: Some(100.0),
            ..block_profile(augur_ir::BlockKind::Straight, counts, chain)
        };
        // Two blocks of one innermost loop, 100 iterations: a reduction `s = s + x*y`
        // (its 3 ns add chain beats its 1 ns of throughput) and `a(i) = x*y*z + w`
        // (2 ns of throughput, no recurrence). One by one: 3 + 2 ns; together the
        // reduction's add overlaps the other block: max(1 + 2, 3) = 3 ns.
        let u = unit_with_one_loop(
            "t",
            vec![
                block(
                    0,
                    ops(&[(AbOp::ARDL, 1.0), (AbOp::MRDL, 1.0)]),
                    ops(&[(AbOp::ARDL, 1.0)]),
                ),
                block(
                    1,
                    ops(&[(AbOp::ARDL, 1.0), (AbOp::MRDL, 3.0)]),
                    AbOpCounts::new(),
                ),
            ],
        );
        let ctx = BlockContext::default();
        let mut c: Vec<Coefficients> = u.blocks.iter().map(|b| block_total(&t, b, ctx)).collect();
        let thru: Vec<Coefficients> = u
            .blocks
            .iter()
            .map(|b| block_total(&t, &without_chain(b), ctx))
            .collect();
        let total = |c: &[Coefficients]| c.iter().map(|c| t.cost_of(c).seconds).sum::<f64>();
        assert!((total(&c) - 500e-9).abs() < 1e-15, "{}", total(&c));
        loop_recurrences(&t, None, &u, &mut c, &thru, &[]);
        assert!((total(&c) - 300e-9).abs() < 1e-15, "{}", total(&c));
        // A recurrence across the blocks longer than both (two chained adds per
        // iteration, 6 ns) stretches the body to it.
        let mut u2 = u.clone();
        u2.loops[0].chain = ops(&[(AbOp::ARDL, 2.0)]);
        let mut c: Vec<Coefficients> = u2.blocks.iter().map(|b| block_total(&t, b, ctx)).collect();
        loop_recurrences(&t, None, &u2, &mut c, &thru, &[]);
        assert!((total(&c) - 600e-9).abs() < 1e-15, "{}", total(&c));

        // A library call beside the recurrence comes on top of it: `s = s*r + exp(x)`,
        // a 6 ns chain (multiply, add) and a 2 ns call: 8 ns, not max(6, 3).
        m.abop.insert(AbOp::EXPD, entry(5.0, 0.0));
        m.stream.insert(AbOp::EXPD, entry(2.0, 0.0));
        let t = CostTable::from_profile(&m);
        let mut u3 = u.clone();
        u3.blocks = vec![block(
            0,
            ops(&[(AbOp::ARDL, 1.0), (AbOp::MRDL, 1.0), (AbOp::EXPD, 1.0)]),
            ops(&[(AbOp::ARDL, 1.0), (AbOp::MRDL, 1.0)]),
        )];
        let mut c: Vec<Coefficients> = u3.blocks.iter().map(|b| block_total(&t, b, ctx)).collect();
        let thru: Vec<Coefficients> = u3
            .blocks
            .iter()
            .map(|b| block_total(&t, &without_chain(b), ctx))
            .collect();
        loop_recurrences(&t, None, &u3, &mut c, &thru, &[]);
        let total = |c: &[Coefficients]| c.iter().map(|c| t.cost_of(c).seconds).sum::<f64>();
        assert!((total(&c) - 800e-9).abs() < 1e-15, "{}", total(&c));

        // With optimizing flags, the floating-point `s` is stored before the call and
        // reloaded after it: one round trip through L1 (1 ns here) more per iteration.
        let mut ts = CostTable::from_profile(&m);
        ts.register_scalars = true;
        ts.call_spill = 1e-9;
        let spilled = |u: &UnitProfile| {
            let mut c: Vec<Coefficients> =
                u.blocks.iter().map(|b| block_total(&ts, b, ctx)).collect();
            let thru: Vec<Coefficients> = u
                .blocks
                .iter()
                .map(|b| block_total(&ts, &without_chain(b), ctx))
                .collect();
            loop_recurrences(&ts, None, u, &mut c, &thru, &[]);
            c.iter().map(|c| ts.cost_of(c).seconds).sum::<f64>()
        };
        assert!((spilled(&u3) - 900e-9).abs() < 1e-15, "{}", spilled(&u3));
        // Without a call in the body nothing is spilled.
        assert!((spilled(&u) - 300e-9).abs() < 1e-15, "{}", spilled(&u));
        // A profile that says which calls wait for the recurrence: here none (the
        // `exp` reads `x`, off the chain), so the calls run ahead of it and the
        // iteration takes its 6 ns chain and the 1 ns spill.
        let mut u4 = u3.clone();
        u4.loops[0].serial_calls = Some(AbOpCounts::new());
        assert!((spilled(&u4) - 700e-9).abs() < 1e-15, "{}", spilled(&u4));
        // The call waits (its argument reads the carried scalar): on top again.
        u4.loops[0].serial_calls = Some(ops(&[(AbOp::EXPD, 1.0)]));
        assert!((spilled(&u4) - 900e-9).abs() < 1e-15, "{}", spilled(&u4));
    }

    #[test]
    fn register_writes_are_free_only_when_the_flags_optimize() {
        assert!(optimizing("-O2 -march=native"));
        assert!(optimizing("-O0 -O3"));
        assert!(!optimizing("-O2 -O0"));
        assert!(!optimizing("-g"));
        let mut m = machine(&[
            (AbOp::SRDL, MEASURED, Some(1.0), Some(0.0), 10),
            (AbOp::ARDL, MEASURED, Some(2.0), Some(0.0), 10),
        ]);
        let mut counts = AbOpCounts::new();
        counts.add(AbOp::SRDL, 2.0);
        counts.add(AbOp::ARDL, 1.0);
        let mut writes = AbOpCounts::new();
        writes.add(AbOp::SRDL, 1.0);
        // `s = s + x` (a register write) and `a(i) = y` (a store) in one block.
        let b = BlockProfile {
            last_line: 2,
            in_loop: None,
            register_writes: writes,
            ..block_profile(augur_ir::BlockKind::Straight, counts, AbOpCounts::new())
        };
        let seconds = |m: &MachineProfile| {
            let t = CostTable::from_profile(m);
            t.cost_of(&block_total(&t, &b, BlockContext::default()))
                .seconds
        };
        m.provenance.fflags = "-O0".into();
        assert!((seconds(&m) - 40e-9).abs() < 1e-15, "{}", seconds(&m));
        m.provenance.fflags = "-O2".into();
        assert!((seconds(&m) - 30e-9).abs() < 1e-15, "{}", seconds(&m));
    }

    #[test]
    fn mispredictions_priced_by_what_the_compiler_kept() {
        let m = machine(&[
            (AbOp::BRMP, MEASURED, Some(8.0), Some(0.0), 10),
            (AbOp::BRMC, MEASURED, Some(0.5), Some(0.0), 10),
            (AbOp::ARDL, MEASURED, Some(1.0), Some(0.0), 10),
        ]);
        let mut t = CostTable::from_profile(&m);
        let mut counts = AbOpCounts::new();
        counts.add(AbOp::BRMP, 1.0);
        counts.add(AbOp::BRMC, 2.0);
        counts.add(AbOp::ARDL, 1.0);
        let none = AbOpCounts::new();
        let cost = |t: &CostTable, ctx| {
            t.cost_of(&t.block_coefficients(&counts, &none, ctx))
                .seconds
        };
        // Not priced unless asked (or simulated: the table of `predict_overlap`).
        assert!((cost(&t, BlockContext::default()) - 1e-9).abs() < 1e-15);
        t.branches = true;
        assert!((cost(&t, BlockContext::default()) - 10e-9).abs() < 1e-15);
        // A kept branch: simple arms cost a full misprediction.
        let kept = BlockContext {
            branch_kept: true,
            ..BlockContext::default()
        };
        assert!((cost(&t, kept) - 25e-9).abs() < 1e-15);
        // An if-converted one: none.
        let free = BlockContext {
            branchless: true,
            ..BlockContext::default()
        };
        assert!((cost(&t, free) - 1e-9).abs() < 1e-15);
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
