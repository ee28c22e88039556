//! The in-core time of a compiled loop: the instructions the compiler emitted for one
//! iteration (`augur_program_profile::compiled`) priced on the machine's measured
//! latencies and throughputs (`[incore]`).
//!
//! An iteration takes the longest of its throughput bounds (the instructions the core
//! issues, each class on its own units: the sum over its widths of count times
//! reciprocal throughput, one taken branch) and its longest loop-carried dependence
//! chain (the sum of the latencies on its path). This is the analytical model uiCA's
//! authors found competitive with detailed simulators on basic blocks, and Kerncraft's
//! in-core part of ECM; the memory term overlaps it as before.
//!
//! A loop whose profile records its instructions one by one (`schedule`) is replayed on
//! a model of the core instead ([`crate::schedule`]): the bounds above each hold one
//! mechanism apart, the replay all of them at once.

use augur_machine_profile::incore::InCoreProfile;
use augur_program_profile::compiled::{
    BlockEnd, Chain, ClassCount, ClassWidth, CompiledLoop, InstrClass, ScheduledOp, Width,
};
use std::collections::BTreeMap;
use std::fmt;

/// What bounds a compiled iteration.
#[derive(Debug, Clone, PartialEq)]
pub enum Bound {
    /// The instructions the core issues per cycle.
    Issue,
    /// The units of one class.
    Class(InstrClass),
    /// The loop's taken branch.
    Branch,
    /// The address pipes loads and stores share.
    MemoryPipes,
    /// The pipes floating-point and vector operations share.
    VectorPipes,
    /// A loop-carried dependence chain, carried by the register or slot named.
    Chain(String),
    /// A chain its loop starts afresh at each entry (every so many iterations), which
    /// overlaps the next entry's: this share of its latency a link ([`Restarts`]).
    RestartedChain {
        /// The register or slot that carries it.
        by: String,
        /// Iterations between two restarts.
        every: f64,
        /// The share of its latency an iteration takes.
        share: f64,
    },
    /// An iteration's longest dependent path, which the core overlaps with this many
    /// iterations only, as the resource named allows.
    Window(f64, InFlightLimit),
    /// The replay of its iterations on the core ([`crate::schedule`]), where its
    /// dependences, units and in-flight resources interact: this many times the largest
    /// of the bounds above.
    Schedule(f64),
}

/// The resource of the core that limits how many iterations it keeps in flight.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InFlightLimit {
    /// Its window of instructions (a profile or loop without the split below).
    Window,
    /// Its integer registers (or its reorder buffer, when smaller).
    IntegerRegisters,
    /// Its vector registers.
    VectorRegisters,
    /// Its store queue.
    StoreQueue,
}

impl fmt::Display for InFlightLimit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            InFlightLimit::Window => "window",
            InFlightLimit::IntegerRegisters => "integer registers",
            InFlightLimit::VectorRegisters => "vector registers",
            InFlightLimit::StoreQueue => "store queue",
        })
    }
}

impl fmt::Display for Bound {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Bound::Issue => f.write_str("bound by issue"),
            Bound::Class(InstrClass::FpDiv) => {
                f.write_str("bound by the divide and square-root unit")
            }
            Bound::Class(c) => write!(f, "bound by the {c} units"),
            Bound::Branch => f.write_str("bound by the loop branch"),
            Bound::MemoryPipes => f.write_str("bound by the load/store pipes"),
            Bound::VectorPipes => f.write_str("bound by the floating-point pipes"),
            Bound::Chain(by) => write!(f, "bound by the chain through {by}"),
            Bound::RestartedChain { by, every, share } => write!(
                f,
                "bound by the chain through {by}, started afresh every {every:.1} iterations and overlapping the next start ({:.0}% of its latency)",
                share * 100.0
            ),
            Bound::Schedule(x) => write!(
                f,
                "bound by its dependences, units and window together (replayed: {x:.2}x its largest single bound)"
            ),
            Bound::Window(k, by) => write!(
                f,
                "bound by its longest dependent path, {k:.1} iterations in flight (as many as the core's {by} allow)"
            ),
        }
    }
}

/// The in-core time of a compiled loop.
#[derive(Debug, Clone, PartialEq)]
pub struct LoopTime {
    /// Seconds per source iteration.
    pub per_source_iteration: f64,
    /// Seconds per compiled iteration.
    pub per_compiled_iteration: f64,
    /// Its longest throughput bound raised by the bounds near it (`interfering`), seconds
    /// per compiled iteration.
    pub throughput: f64,
    /// Its longest chain, seconds per compiled iteration.
    pub chain: f64,
    /// What bounds it.
    pub bound: Bound,
}

/// Why a compiled loop is not priced from its instructions (the AbOps price it).
pub fn unpriceable(cl: &CompiledLoop) -> Option<&'static str> {
    let has = |c: InstrClass| cl.instructions.iter().any(|x| x.class.class == c);
    if has(InstrClass::Call) {
        Some("it calls a procedure: priced by AbOps")
    } else if has(InstrClass::Other) {
        Some(
            "it holds instructions augur does not classify (a string instruction): priced by AbOps",
        )
    } else if cl.inner_branches > 0 && weighted_blocks(cl).is_none() {
        Some("it branches inside an iteration, on paths whose odds are unknown: priced by AbOps")
    } else if cl.source_iterations == 0 {
        Some("its iterations are unknown: priced by AbOps")
    } else {
        None
    }
}

/// The longest loop-carried chain of a compiled loop that calls a procedure, ns per
/// source iteration: the values it carries around the call live in stack slots, stored
/// before the call and reloaded after it (`s = s + (x(i) - anint(x(i)))**2`: the slot
/// of `s`, a forwarding and an add, 2.8 ns an iteration on a Zen 5 guest, measured 2.9,
/// where the calls alone take 1.2). The chains through the call itself are left out:
/// its instructions are the library's. `None` for a loop without a call, with
/// instructions augur does not classify, or without a chain priced on `m`.
pub fn call_loop_chain(cl: &CompiledLoop, m: &InCoreProfile) -> Option<f64> {
    if !calls_with_known_instructions(cl) {
        return None;
    }
    let m = &*crate::schedule::for_loop(&cl.schedule, m);
    let longest = cl
        .chains
        .iter()
        .filter(|ch| !ch.path.iter().any(|c| c.class.class == InstrClass::Call))
        .filter_map(|ch| Some(path_latency(&ch.path, m)? + crossing_delay(ch, m)))
        .fold(0.0, f64::max);
    (longest > 0.0).then(|| longest / f64::from(cl.source_iterations))
}

/// Whether `cl` calls a procedure, every other instruction of a class augur knows, its
/// source iterations known: a loop whose own instructions can floor its AbOps' price
/// ([`call_loop_chain`], [`call_loop_issue`]).
fn calls_with_known_instructions(cl: &CompiledLoop) -> bool {
    let has = |c: InstrClass| cl.instructions.iter().any(|x| x.class.class == c);
    has(InstrClass::Call) && !has(InstrClass::Other) && cl.source_iterations > 0
}

/// The least time an iteration of a compiled loop that calls a procedure takes to issue
/// its own instructions (the callee's are priced where they are), ns per source
/// iteration: its issue slots (the call instruction one of them, a read-modify-write of
/// memory its `rmw_issue_slots`) at the machine's issue rate. Without optimization a call
/// of array sections computes each section's address through the stack: bchain's cell
/// loop, 166 instructions around `call matvec_sub(lhs(:,:,i,j,k), ...)`, 8.8 ns an
/// iteration on an Emerald Rapids guest, where its AbOps said 3.1 and its issue says 9.4
/// (docs/ACCURACY.md "Session 101"). Only the issue: the units' bounds would count the
/// callee's divides inlined beside the call, which the AbOps price already (prk_pic's
/// particle loop +2% -> +49% with them, the runs of a Xeon of family 6 model 167). `None` for a loop without a call,
/// with instructions augur does not classify, or branching on paths whose odds are
/// unknown.
pub fn call_loop_issue(cl: &CompiledLoop, m: &InCoreProfile) -> Option<f64> {
    if !calls_with_known_instructions(cl) || cl.inner_branches > 0 && weighted_blocks(cl).is_none()
    {
        return None;
    }
    let m = &*crate::schedule::for_loop(&cl.schedule, m);
    let (issued, _) = instructions_per_iteration(cl);
    let slots = issued + extra_issue_slots(cl, m);
    Some(slots * m.issue_ns / f64::from(cl.source_iterations))
}

/// The largest throughput bound of an iteration issuing `issued` instructions, `instructions`
/// by class and width, on `m` (ns), with what it is, its time raised by the bounds near it
/// ([`interfering`]); `None` when `m` lacks a class.
fn throughput_bound(
    issued: f64,
    instructions: Vec<(ClassWidth, f64)>,
    shuffles: f64,
    m: &InCoreProfile,
) -> Option<(f64, Bound)> {
    let mut bounds: Vec<(f64, Bound)> = vec![
        (issued * m.issue_ns, Bound::Issue),
        (m.taken_branch_ns, Bound::Branch),
    ];
    if let Some(t) = m.vector_pipes_ns {
        let on_pipes: f64 = instructions
            .iter()
            .filter(|(c, _)| on_vector_pipes(c.class))
            .map(|(_, n)| n)
            .sum();
        bounds.push(((on_pipes + shuffles) * t, Bound::VectorPipes));
    }
    let mut per_class: BTreeMap<InstrClass, f64> = BTreeMap::new();
    let mut memory_ops = 0.0;
    for (class, count) in instructions {
        if matches!(class.class, InstrClass::Load | InstrClass::Store) {
            memory_ops += count;
        }
        if class.class == InstrClass::Branch || class.class.is_forwarding() {
            continue;
        }
        let cost = m.cost(class)?;
        // Classes that share units add their times up on them.
        *per_class.entry(class.class.unit()).or_default() += count * cost.throughput_ns;
    }
    if let Some(t) = m.memory_op_ns {
        bounds.push((memory_ops * t, Bound::MemoryPipes));
    }
    bounds.extend(per_class.into_iter().map(|(c, t)| (t, Bound::Class(c))));
    interfering(bounds)
}

/// How far throughput bounds near one another slow a loop down: its time is the
/// `INTERFERENCE_NORM`-norm of its bounds, one per group of units ([`unit_group`]), not
/// the largest alone. Units near saturation together lose turns to one another (an
/// instruction waits for its unit while another unit it needs next sits idle): on a Zen 4
/// guest a scalar 7-point stencil whose adds and loads both take 3.5 cycles an iteration
/// runs 4.1-4.3, gfortran -O0's 53-instruction loop of a triangular solve bound at 9.2
/// cycles by issue and 9.05 by its loads and stores runs 11.6-14.5 (docs/ACCURACY.md
/// "Session 89"). Two equal bounds cost 2^(1/6), 12% more than one; a bound at 70% of the
/// largest adds 2%, one at half of it 0.3%. Chosen among 4, 6 and 8 on the kernels written
/// in the held-out suites' kinds and the development set; one number for every core until
/// the characterizer measures each core's.
const INTERFERENCE_NORM: f64 = 6.0;

/// The largest of `bounds`, named, its time raised by the others' ([`INTERFERENCE_NORM`]):
/// within each group of units ([`unit_group`]) only the largest counts.
fn interfering(bounds: Vec<(f64, Bound)>) -> Option<(f64, Bound)> {
    let top = bounds.iter().cloned().max_by(|a, b| a.0.total_cmp(&b.0))?;
    if top.0 <= 0.0 {
        return Some(top);
    }
    let mut by_group: BTreeMap<u8, f64> = BTreeMap::new();
    for (t, b) in &bounds {
        let g = by_group.entry(unit_group(b)).or_default();
        *g = g.max(*t);
    }
    let sum: f64 = by_group
        .values()
        .map(|t| (t / top.0).powf(INTERFERENCE_NORM))
        .sum();
    Some((top.0 * sum.powf(1.0 / INTERFERENCE_NORM), top.1))
}

/// The group of units a throughput bound counts: the address pipes and the load and
/// store units are the same pipes counted two ways, as are the vector pipes and the
/// floating-point and vector classes that run on them; every other bound is a group of
/// its own.
fn unit_group(b: &Bound) -> u8 {
    match b {
        Bound::MemoryPipes | Bound::Class(InstrClass::Load | InstrClass::Store) => 1,
        Bound::VectorPipes => 2,
        Bound::Class(c) if on_vector_pipes(*c) => 2,
        Bound::Issue => 3,
        Bound::Branch => 4,
        Bound::Class(c) => 10 + InstrClass::ALL.iter().position(|x| x == c).unwrap_or(0) as u8,
        _ => 0,
    }
}

/// Whether instructions of class `c` run on the pipes floating-point and vector
/// operations share (`[incore] vector_pipes_ns`): arithmetic, comparisons, conversions,
/// vector integer operations, divides and square roots (which enter the divider through
/// one of them). Register moves are not (the renamer does them), nor loads and stores.
pub(crate) fn on_vector_pipes(c: InstrClass) -> bool {
    matches!(
        c,
        InstrClass::FpAdd
            | InstrClass::FpMul
            | InstrClass::FpFma
            | InstrClass::FpMinMax
            | InstrClass::FpConvert
            | InstrClass::FpDiv
            | InstrClass::FpSqrt
            | InstrClass::VecInt
    )
}

/// Whether a scheduled instruction is a copy of a whole vector register (`movapd
/// %xmm4, %xmm7`): a `vec_move` wider than a scalar that is no shuffle ([`is_shuffle`]).
pub(crate) fn is_vector_copy(o: &ScheduledOp) -> bool {
    o.classes.len() == 1
        && o.classes[0].class == InstrClass::VecMove
        && o.classes[0].width != Width::Scalar
        && !is_shuffle(o)
}

/// `instructions` with the whole-register copies of `cl` (from its recorded schedule,
/// each weighed by its block's frequency) moved from `vec_move` at their width to the
/// scalar `vec_move`, the register move the renamer does that the profile measured: the
/// program wing counts a `movapd` between registers at 128 bits, and a core that starts
/// shuffles on one port (an Intel Golden Cove: `unpcklpd` one a cycle) renames a dozen
/// copies in two cycles. Profiles without a schedule keep their counts.
fn copies_renamed(
    instructions: Vec<(ClassWidth, f64)>,
    cl: &CompiledLoop,
) -> Vec<(ClassWidth, f64)> {
    let mut by_class: BTreeMap<ClassWidth, f64> = instructions.into_iter().collect();
    for o in cl.schedule.iter().filter(|o| is_vector_copy(o)) {
        let f = cl
            .blocks
            .get(o.block as usize)
            .and_then(|b| b.frequency)
            .unwrap_or(1.0);
        let wide = by_class.entry(o.classes[0]).or_default();
        let moved = f.min(*wide);
        *wide -= moved;
        *by_class
            .entry(ClassWidth::new(InstrClass::VecMove, Width::Scalar))
            .or_default() += moved;
    }
    by_class.into_iter().filter(|(_, n)| *n > 0.0).collect()
}

/// Whether a scheduled instruction is a shuffle (an unpack, a blend, a broadcast: a
/// vector move whose result waits on its own class's latency; a load merged into half a
/// register, its shuffle after its load), not a register copy (a move the renamer does,
/// its result as soon as its source's).
pub(crate) fn is_shuffle(o: &ScheduledOp) -> bool {
    match o.classes.as_slice() {
        [c] => c.class == InstrClass::VecMove && o.reads.iter().any(|r| !r.path.is_empty()),
        // A load merged into half a register (`movhpd`): its second half is a shuffle.
        [l, c] => l.class == InstrClass::Load && c.class == InstrClass::VecMove,
        _ => false,
    }
}

/// The shuffles an iteration of `cl` runs, each weighed by how often an iteration runs
/// its block (from its recorded schedule; 0 without one: profiles made before it, or
/// loops that call).
fn shuffles(cl: &CompiledLoop) -> f64 {
    cl.schedule
        .iter()
        .filter(|o| is_shuffle(o))
        .map(|o| {
            cl.blocks
                .get(o.block as usize)
                .and_then(|b| b.frequency)
                .unwrap_or(1.0)
        })
        .sum()
}

/// The instructions an iteration of a loop that branches inside it issues, and those
/// by class and width: each block's weighed by how often an iteration runs it. `None`
/// for a loop without blocks or whose blocks' frequencies are unknown.
fn weighted_blocks(cl: &CompiledLoop) -> Option<(f64, Vec<(ClassWidth, f64)>)> {
    if cl.blocks.is_empty() {
        return None;
    }
    let mut issued = 0.0;
    let mut by_class: BTreeMap<ClassWidth, f64> = BTreeMap::new();
    for b in &cl.blocks {
        let f = b.frequency?;
        issued += f * f64::from(b.issued);
        for c in &b.instructions {
            *by_class.entry(c.class).or_default() += f * f64::from(c.count);
        }
    }
    Some((issued, by_class.into_iter().collect()))
}

/// The instructions an iteration of `cl` issues on average, and those by class and
/// width: each block's weighed by how often an iteration runs it where it branches
/// inside ([`weighted_blocks`]), else the loop's own counts.
pub(crate) fn instructions_per_iteration(cl: &CompiledLoop) -> (f64, Vec<(ClassWidth, f64)>) {
    weighted_blocks(cl).unwrap_or_else(|| {
        let all = cl
            .instructions
            .iter()
            .map(|c| (c.class, f64::from(c.count)));
        (f64::from(cl.issued), all.collect())
    })
}

/// Whether `op` reads memory and writes it back (`addl $1, -36(%rbp)`).
pub(crate) fn is_read_modify_write(op: &ScheduledOp) -> bool {
    let has = |k: InstrClass| op.classes.iter().any(|c| c.class == k);
    has(InstrClass::Load) && has(InstrClass::Store)
}

/// The issue slots an iteration of `cl` takes beyond one an instruction: its
/// read-modify-writes of memory (known from its schedule) at `[incore]
/// rmw_issue_slots` each, weighed by their blocks' frequencies where it branches.
fn extra_issue_slots(cl: &CompiledLoop, m: &InCoreProfile) -> f64 {
    let Some(slots) = m.rmw_issue_slots.filter(|s| *s > 1.0) else {
        return 0.0;
    };
    let frequency = |b: u32| {
        cl.blocks
            .get(b as usize)
            .and_then(|b| b.frequency)
            .unwrap_or(1.0)
    };
    let rmw: f64 = cl
        .schedule
        .iter()
        .filter(|o| is_read_modify_write(o))
        .map(|o| frequency(o.block))
        .sum();
    rmw * (slots - 1.0)
}

/// The in-core time of `cl` on `m`, or `None` when it is not priced from its
/// instructions ([`unpriceable`]) or the machine lacks a class it needs.
pub fn loop_time(cl: &CompiledLoop, m: &InCoreProfile) -> Option<LoopTime> {
    restarted_loop_time(cl, m, None)
}

/// How often the chains of a compiled loop start afresh: at each entry of the loop, for a
/// chain the loop around it restarts ([`Chain::restarted_by`] names that loop) or, in a
/// loop outermost in its procedure, a chain through a register or the stack (each call
/// sets it).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Restarts {
    /// Compiled iterations an entry of the loop runs.
    pub per_entry: f64,
    /// The line of the compiled loop around it (for a loop outermost in its procedure,
    /// the caller's loop the compiler inlined the procedure into); `None` when there is
    /// none.
    pub around: Option<u32>,
}

impl Restarts {
    /// Whether `ch` starts afresh at each entry of the loop.
    fn restarts(&self, ch: &Chain) -> bool {
        match (ch.restarted_by, self.around) {
            (Some(by), Some(around)) => by == around,
            (None, None) => !ch.carried_by.contains("%rip"),
            _ => false,
        }
    }
}

/// [`loop_time`] for a loop whose chains restart as `restarts` says: a chain that
/// restarts every `n` iterations overlaps the next entry's as far as the core keeps
/// iterations in flight (`k`, the fewest its resources allow, the floating-point
/// scheduler's entries among them), `n/(n + k)` of its latency a link.
pub fn restarted_loop_time(
    cl: &CompiledLoop,
    m: &InCoreProfile,
    restarts: Option<Restarts>,
) -> Option<LoopTime> {
    if unpriceable(cl).is_some() || m.cycle_ns <= 0.0 {
        return None;
    }
    let m = &*crate::schedule::for_loop(&cl.schedule, m);
    let ns = |x: f64| x * 1e-9;
    let (issued, instructions) = instructions_per_iteration(cl);
    let instructions = copies_renamed(instructions, cl);
    let slots = issued + extra_issue_slots(cl, m);
    let throughput = throughput_bound(slots, instructions, shuffles(cl), m)?;
    let chain = chains_bound(cl, m, &|_| 1.0)?;
    let window = window_bound(cl, m, issued).map(|(t, k)| (t, Bound::Window(k.0, k.1)));
    let analytic = largest([
        Some(throughput.clone()),
        Some(chain.clone()),
        window.clone(),
    ]);
    let (mut t, mut bound) = with_replay(cl, m, analytic.clone());
    if let Some(overlapped) = restarts.and_then(|r| overlapped_chains(cl, m, issued, r)) {
        if overlapped.0 < chain.0 && matches!(bound, Bound::Chain(_) | Bound::Schedule(_)) {
            let fresh = largest([Some(throughput.clone()), window, Some(overlapped)]);
            // What the replay adds to the analytic bounds stays, in proportion.
            t = fresh.0 * (t / analytic.0.max(f64::MIN_POSITIVE));
            bound = fresh.1;
        }
    }
    Some(LoopTime {
        per_source_iteration: ns(t) / f64::from(cl.source_iterations),
        per_compiled_iteration: ns(t),
        throughput: ns(throughput.0),
        chain: ns(chain.0),
        bound,
    })
}

/// The largest of `bounds` (the first of equals), ns.
fn largest<const N: usize>(bounds: [Option<(f64, Bound)>; N]) -> (f64, Bound) {
    bounds
        .into_iter()
        .flatten()
        .fold((0.0, Bound::Issue), |a, b| if b.0 > a.0 { b } else { a })
}

/// `analytic`, the largest of a loop's analytic bounds, or its replay on the core when
/// slower ([`replay`]): the replay holds every bound at once and names its own only where
/// it departs from them. It retires instructions one by one, and so overlaps a long path
/// with the next iterations further than the window bound; the bound stands (nemo_hermit's
/// -O0 force loop: replayed 42 cycles, bound 51; the program -2.9% with the bound, -13.5%
/// with the replay alone).
fn with_replay(cl: &CompiledLoop, m: &InCoreProfile, analytic: (f64, Bound)) -> (f64, Bound) {
    let (t, bound) = analytic;
    match replay(cl, m) {
        Some(replayed) if replayed > t * 1.1 => (replayed, Bound::Schedule(replayed / t)),
        Some(replayed) => (t.max(replayed), bound),
        None => (t, bound),
    }
}

/// The longest chain of `cl`, each chain's latency scaled by `share` ([`longest_chain`]).
fn chains_bound(
    cl: &CompiledLoop,
    m: &InCoreProfile,
    share: &dyn Fn(&Chain) -> f64,
) -> Option<(f64, Bound)> {
    match path_chains(cl, m, share) {
        Some(c) => Some(c),
        None => longest_chain(&cl.chains, adds(&cl.instructions), m, share),
    }
}

/// The longest chain of `cl` when the chains `restarts` says start afresh at each entry
/// overlap the next entry's: `n/(n + k)` of their latency ([`restarted_loop_time`]);
/// `None` when no chain restarts or nothing limits the iterations in flight.
fn overlapped_chains(
    cl: &CompiledLoop,
    m: &InCoreProfile,
    issued: f64,
    restarts: Restarts,
) -> Option<(f64, Bound)> {
    let n = restarts.per_entry;
    if n.is_nan() || n <= 0.0 || !all_chains(cl).any(|ch| restarts.restarts(ch)) {
        return None;
    }
    let k = restart_overlap(cl, m, issued)?;
    let overlap = n / (n + k);
    let share = |ch: &Chain| {
        if restarts.restarts(ch) {
            overlap
        } else {
            1.0
        }
    };
    let (t, bound) = chains_bound(cl, m, &share)?;
    let restarted = all_chains(cl).any(|ch| {
        restarts.restarts(ch) && matches!(&bound, Bound::Chain(by) if *by == ch.carried_by)
    });
    let bound = match bound {
        Bound::Chain(by) if restarted => Bound::RestartedChain {
            by,
            every: n,
            share: overlap,
        },
        other => other,
    };
    Some((t, bound))
}

/// Every chain of `cl`, its paths' too.
fn all_chains(cl: &CompiledLoop) -> impl Iterator<Item = &Chain> {
    cl.chains
        .iter()
        .chain(cl.paths.iter().flat_map(|p| &p.chains))
}

/// How many iterations of `cl` the core keeps in flight ahead of a restarted chain: the
/// fewest its resources allow ([`iterations_in_flight`]) and the floating-point
/// scheduler's entries over the instructions an iteration leaves waiting in it.
fn restart_overlap(cl: &CompiledLoop, m: &InCoreProfile, issued: f64) -> Option<f64> {
    let (k, _) = iterations_in_flight(cl, m, issued)?;
    let waiting = cl
        .in_flight
        .map(|f| f64::from(f.waiting) * issued / f64::from(cl.issued.max(1)))
        .filter(|w| *w > 0.0);
    let by_scheduler = m.window_waiting.zip(waiting).map(|(c, w)| c / w);
    Some(by_scheduler.map_or(k, |s| s.min(k)))
}

/// Replays the compiled loops of `report` that [`loop_time`] prices on `m`, all at once
/// on the host's cores, ahead of the pricing that asks for them one by one (each replay
/// is kept: [`crate::schedule::iteration_ns`]; a large program's compiled loops took a
/// third of its prediction's time one after the other, conman 90 ms on a 2-vCPU Zen 5
/// guest).
pub(crate) fn replay_compiled_loops(
    report: &augur_program_profile::optreport::OptReport,
    m: &InCoreProfile,
) {
    let priced: Vec<&CompiledLoop> = report
        .compiled_loops
        .iter()
        .filter(|cl| unpriceable(cl).is_none() && crate::replayed::is_replayed(cl))
        .collect();
    crate::par::map(&priced, |cl| replay(cl, m));
}

/// The time of one iteration of `cl` replayed on `m` ([`crate::schedule`]), ns; `None`
/// for a profile made before the schedules were recorded, and for a loop the prediction
/// under way leaves unreplayed ([`crate::replayed`]).
fn replay(cl: &CompiledLoop, m: &InCoreProfile) -> Option<f64> {
    if cl.schedule.is_empty() || !crate::replayed::is_replayed(cl) {
        return None;
    }
    let frequencies: Vec<Option<f64>> = cl.blocks.iter().map(|b| b.frequency).collect();
    let trips = std::collections::HashMap::new();
    let repeats = crate::schedule::Repeats {
        block_frequency: &frequencies,
        inner_trips: &trips,
    };
    crate::schedule::iteration_ns(&cl.schedule, &repeats, m)
}

/// How many source iterations a compiled iteration covers, from the arithmetic: the
/// compiled loop's floating-point operations (each vector instruction counted once per
/// lane, a fused multiply-add twice) over the source iteration's real adds, multiplies
/// and divides (`per_iteration`), when it is near a power of two (vector lanes times
/// unrolling). `None` when it is not, or when the source iteration has no real
/// arithmetic or complex arithmetic (whose operations the AbOps do not count one by
/// one): the induction's step stands.
pub fn iterations_by_arithmetic(
    cl: &CompiledLoop,
    per_iteration: &augur_ir::AbOpCounts,
) -> Option<u32> {
    let (mut source, mut element_bits) = (0.0, 64);
    for (op, n) in per_iteration.iter() {
        let m = op.mnemonic().as_bytes();
        // Arithmetic is `[AMD][RCI][SD][LG]`: ARR1..ARR7 (array addressing) are not.
        if n <= 0.0
            || m.len() != 4
            || !matches!(m[0], b'A' | b'M' | b'D')
            || !matches!(m[2], b'S' | b'D')
            || !matches!(m[3], b'L' | b'G')
        {
            continue;
        }
        match m[1] {
            b'C' => return None,
            b'R' => {
                source += n;
                if m[2] == b'S' {
                    element_bits = 32;
                }
            }
            _ => {}
        }
    }
    if source < 0.5 {
        return None;
    }
    let compiled: f64 = cl
        .instructions
        .iter()
        .filter_map(|c| {
            let per = match c.class.class {
                InstrClass::FpAdd | InstrClass::FpMul | InstrClass::FpDiv => 1.0,
                InstrClass::FpFma => 2.0,
                _ => return None,
            };
            let lanes = f64::from((c.class.width.bits() / element_bits).max(1));
            Some(per * lanes * f64::from(c.count))
        })
        .sum();
    if compiled <= 0.0 {
        return None;
    }
    // Only a ratio near a power of two says something: common subexpressions, or an
    // intrinsic the AbOps count otherwise, leave it in between.
    let log = (compiled / source).log2();
    if (log - log.round()).abs() > 0.2 {
        return None;
    }
    Some(2f64.powf(log.round().clamp(0.0, 6.0)) as u32)
}

/// The time an iteration's longest dependent path takes when the core's window overlaps
/// it with the next iterations as far as it holds them (the window over the instructions
/// an iteration issues, at least one), ns, with that overlap: for a loop with paths, the
/// mean over its paths weighed by their probabilities. `None` without a window or a path.
fn window_bound(
    cl: &CompiledLoop,
    m: &InCoreProfile,
    issued: f64,
) -> Option<(f64, (f64, InFlightLimit))> {
    let (overlap, by) = iterations_in_flight(cl, m, issued)?;
    let overlap = overlap.max(1.0);
    Some((iteration_span(cl, m)? / overlap, (overlap, by)))
}

/// The latency of one compiled iteration's longest dependent path (for a loop with
/// paths, the mean over its paths weighed by their probabilities), ns; `None` without a
/// recorded path.
pub(crate) fn iteration_span(cl: &CompiledLoop, m: &InCoreProfile) -> Option<f64> {
    if cl.paths.iter().all(|p| !p.span.is_empty()) && !cl.paths.is_empty() {
        Some(over_paths(cl, |p| Some((path_latency(&p.span, m)?, ())))?.0)
    } else if !cl.span.is_empty() {
        path_latency(&cl.span, m)
    } else {
        None
    }
}

/// How many compiled iterations of `cl` the core keeps in flight (its window over what an
/// average iteration holds of each resource); `None` without a window or for a loop
/// whose instructions cannot be priced.
pub(crate) fn compiled_iterations_in_flight(cl: &CompiledLoop, m: &InCoreProfile) -> Option<f64> {
    if unpriceable(cl).is_some() {
        return None;
    }
    let (issued, _) = instructions_per_iteration(cl);
    iterations_in_flight(cl, m, issued).map(|(k, _)| k)
}

/// How many iterations of `cl` (issuing `issued` instructions each on average) the core
/// keeps in flight, and what limits it: the fewest any of its resources allows, each
/// resource's capacity over what an iteration takes of it (its integer registers, vector
/// registers, store queue); the window over the instructions for a profile or loop
/// without the split. `None` without a window.
fn iterations_in_flight(
    cl: &CompiledLoop,
    m: &InCoreProfile,
    issued: f64,
) -> Option<(f64, InFlightLimit)> {
    let w = m.window.filter(|w| *w > 0.0)?;
    let whole = (w / issued.max(1.0), InFlightLimit::Window);
    let split = m.window_vector.is_some() || m.window_stores.is_some();
    let Some(f) = cl.in_flight.filter(|_| split) else {
        return Some(whole);
    };
    // Paths weighed by their frequencies issue fewer than every block's instructions.
    let scale = issued / f64::from(cl.issued.max(1));
    let allows = |capacity: Option<f64>, uses: u32, by| {
        let uses = f64::from(uses) * scale;
        capacity.filter(|_| uses > 0.0).map(|c| (c / uses, by))
    };
    [
        allows(Some(w), f.integer, InFlightLimit::IntegerRegisters),
        allows(m.window_vector, f.vector, InFlightLimit::VectorRegisters),
        allows(m.window_stores, f.stores, InFlightLimit::StoreQueue),
    ]
    .into_iter()
    .flatten()
    .min_by(|a, b| a.0.total_cmp(&b.0))
    .or(Some(whole))
}

/// The floating-point adds (and compares) among `instructions`, every width.
fn adds(instructions: &[ClassCount]) -> f64 {
    instructions
        .iter()
        .filter(|c| c.class.class == InstrClass::FpAdd)
        .map(|c| f64::from(c.count))
        .sum()
}

/// The adds a chain's links compete with, per link, at most this many (the kernels
/// of 2026-11-30 on a Zen 5: a `maxsd` chain 2.0 cycles a link alone, 2.4 beside one
/// independent `subsd`, 2.9 beside two).
const ADDS_BESIDE_A_LINK: f64 = 2.0;

/// The latency of a chain's `path` through an iteration that issues `iteration_adds`
/// floating-point adds, ns: each link of a class measured beside an independent add
/// ([`augur_machine_profile::incore::ClassCost::beside_add_ns`]) takes that latency's
/// excess once for each add of the iteration off the chain, per link, up to
/// [`ADDS_BESIDE_A_LINK`] (heated_plate's `maxval(abs(u - w))`: a `maxsd` chain beside
/// one `subsd`, 2.5 cycles an element on a Zen 5 where the chain alone takes 2).
fn chain_latency(path: &[ClassCount], iteration_adds: f64, m: &InCoreProfile) -> Option<f64> {
    let base = path_latency(path, m)?;
    let contended: Vec<(f64, f64)> = path
        .iter()
        .filter_map(|c| {
            let cost = m.cost(c.class)?;
            let excess = (cost.beside_add_ns? - cost.latency_ns).max(0.0);
            Some((f64::from(c.count), excess))
        })
        .collect();
    let links: f64 = contended.iter().map(|(n, _)| n).sum();
    if links <= 0.0 {
        return Some(base);
    }
    let off_chain = (iteration_adds - adds(path)).max(0.0);
    let per_link = (off_chain / links).min(ADDS_BESIDE_A_LINK);
    Some(base + per_link * contended.iter().map(|(n, e)| n * e).sum::<f64>())
}

/// The bypass delays of chain `ch` on `m`, ns: its crossings between groups of
/// floating-point units at the machine's measured delay (none in a profile made before
/// it was measured).
pub(crate) fn crossing_delay(ch: &Chain, m: &InCoreProfile) -> f64 {
    f64::from(ch.crossings) * m.crossing_ns.unwrap_or(0.0)
}

/// The longest of `chains` on `m`'s latencies in an iteration issuing `iteration_adds`
/// floating-point adds ([`chain_latency`]), ns, with what carries it.
fn longest_chain(
    chains: &[Chain],
    iteration_adds: f64,
    m: &InCoreProfile,
    share: &dyn Fn(&Chain) -> f64,
) -> Option<(f64, Bound)> {
    let mut chain = (0.0, Bound::Issue);
    for ch in chains {
        let t = (chain_latency(&ch.path, iteration_adds, m)? + crossing_delay(ch, m)) * share(ch);
        if t > chain.0 {
            chain = (t, Bound::Chain(ch.carried_by.clone()));
        }
    }
    Some(chain)
}

/// The chain an iteration of a loop that branches inside it waits on, on average: each
/// path's longest chain weighed by how often an iteration takes that path (its jumps'
/// taken shares), named after the likeliest path's. `None` without paths or shares.
fn path_chains(
    cl: &CompiledLoop,
    m: &InCoreProfile,
    share: &dyn Fn(&Chain) -> f64,
) -> Option<(f64, Bound)> {
    over_paths(cl, |p| {
        let path_adds: f64 = p
            .blocks
            .iter()
            .filter_map(|&b| cl.blocks.get(b as usize))
            .map(|b| adds(&b.instructions))
            .sum();
        longest_chain(&p.chains, path_adds, m, share)
    })
}

/// The mean over the paths of `cl` of `f`'s time, weighed by each path's probability,
/// with the likeliest path's label; `None` without paths, or when a path has no
/// probability or `f` none.
fn over_paths<T>(
    cl: &CompiledLoop,
    f: impl Fn(&augur_program_profile::compiled::CompiledPath) -> Option<(f64, T)>,
) -> Option<(f64, T)> {
    let (mut sum, mut weight) = (0.0, 0.0);
    let mut likeliest: Option<(f64, T)> = None;
    for path in &cl.paths {
        let p = path_probability(cl, &path.blocks)?;
        let (t, label) = f(path)?;
        sum += p * t;
        weight += p;
        if likeliest.as_ref().map_or(true, |(q, _)| p > *q) {
            likeliest = Some((p, label));
        }
    }
    let (_, label) = likeliest?;
    (weight > 0.0).then(|| (sum / weight, label))
}

/// The probability an iteration takes the path through `blocks` (then back to the
/// header), or `None` when a jump on it has no taken share.
fn path_probability(cl: &CompiledLoop, blocks: &[u32]) -> Option<f64> {
    let mut p = 1.0;
    for (k, &b) in blocks.iter().enumerate() {
        let next = blocks.get(k + 1).copied().unwrap_or(0);
        let block = cl.blocks.get(b as usize)?;
        match &block.end {
            BlockEnd::Branches {
                taken, not_taken, ..
            } => {
                let share = block.taken_share?;
                p *= match (*taken == Some(next), *not_taken == Some(next)) {
                    (true, false) => share,
                    (false, true) => 1.0 - share,
                    _ => 1.0,
                };
            }
            BlockEnd::Table { arms, .. } => {
                let arm = arms.iter().position(|a| *a == Some(next))?;
                p *= block.arm_shares.get(arm)?;
            }
            BlockEnd::Goes { .. } => {}
        }
    }
    Some(p)
}

/// The latency of a chain's path, ns.
fn path_latency(path: &[ClassCount], m: &InCoreProfile) -> Option<f64> {
    let mut t = 0.0;
    for c in path {
        let cost = m.cost(c.class).or_else(|| {
            // A forwarded load the machine did not measure: a load.
            c.class
                .class
                .is_forwarding()
                .then(|| {
                    m.cost(augur_ir::incore::ClassWidth::new(
                        InstrClass::Load,
                        c.class.width,
                    ))
                })
                .flatten()
        })?;
        t += f64::from(c.count) * cost.latency_ns;
    }
    Some(t)
}

/// A few words on what the compiler did to a loop and what bounds it, for `--by loop`:
/// "4 source iterations a compiled iteration (256-bit vectors), 11 instructions, bound
/// by the chain through %xmm0 (1.9 cycles an iteration)".
pub fn describe(cl: &CompiledLoop, t: Option<&LoopTime>, m: Option<&InCoreProfile>) -> String {
    // The arithmetic's width: a scalar loop copies its values with packed moves too,
    // and takes an `abs` with a packed `andpd` (`vec_int`): integer vector work says
    // the width only in a loop without floating-point arithmetic.
    let widest_of = |keep: &dyn Fn(InstrClass) -> bool| {
        cl.instructions
            .iter()
            .filter(|c| keep(c.class.class))
            .map(|c| c.class.width)
            .max()
    };
    let widest = widest_of(&|c| c.is_floating())
        .or_else(|| widest_of(&|c| c == InstrClass::VecInt))
        .unwrap_or_default();
    let shape = if widest.bits() > 64 {
        format!("vector code ({}-bit)", widest.bits())
    } else {
        "scalar code".to_string()
    };
    let covers = match cl.source_iterations {
        1 => "one source iteration a compiled iteration".to_string(),
        n => format!("{n} source iterations a compiled iteration"),
    };
    let flagged = cl.blocks.iter().any(|b| {
        matches!(
            b.end,
            BlockEnd::Branches {
                until_set: Some(_),
                ..
            }
        )
    });
    let table = cl
        .blocks
        .iter()
        .any(|b| matches!(b.end, BlockEnd::Table { .. }));
    let odds = match (flagged, table) {
        (true, _) => "by the counted outcomes of its IFs and a flag it sets once",
        (false, true) => {
            "by the counted outcomes of its IFs and its SELECT CASE or computed GOTO arms"
        }
        (false, false) => "by the counted outcomes of its IFs",
    };
    let mut s = match weighted_blocks(cl) {
        Some((issued, _)) => format!(
            "{shape}, {covers}, {} instructions on {} paths ({issued:.1} an iteration on average, {odds})",
            cl.issued,
            cl.paths.len().max(1)
        ),
        None => format!("{shape}, {covers}, {} instructions", cl.issued),
    };
    match (t, m) {
        (Some(t), Some(m)) if m.cycle_ns > 0.0 => {
            s.push_str(&format!(
                ", {} ({:.1} cycles a compiled iteration)",
                t.bound,
                t.per_compiled_iteration * 1e9 / m.cycle_ns
            ));
            s.push_str(&crate::schedule::unrenamed_pairs(&cl.schedule, m));
            s.push_str(&crossings_said(cl, &t.bound, m));
        }
        _ => {
            let why = unpriceable(cl)
                .unwrap_or("the machine profile has no [incore] section: priced by AbOps");
            s.push_str(&format!("; {why}"));
        }
    }
    s
}

/// What a chain that binds the loop pays to pass values between groups of
/// floating-point units ([`crossing_delay`]), for [`describe`]: empty when none.
fn crossings_said(cl: &CompiledLoop, bound: &Bound, m: &InCoreProfile) -> String {
    let by = match bound {
        Bound::Chain(by) | Bound::RestartedChain { by, .. } => by,
        _ => return String::new(),
    };
    let Some(ch) = all_chains(cl).find(|ch| ch.carried_by == *by) else {
        return String::new();
    };
    let delay = crossing_delay(ch, m);
    if delay <= 0.0 {
        return String::new();
    }
    format!(
        "; its chain passes values between the adders, the multipliers and the vector logic {} times ({:.1} cycles of it)",
        ch.crossings,
        delay / m.cycle_ns
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use augur_ir::incore::{ClassWidth, Width};
    use augur_program_profile::compiled::{Chain, InFlight};

    fn machine() -> InCoreProfile {
        crate::test_support::incore_machine(&[
            ("load", 1.0, 0.125),
            ("store", 0.0, 0.25),
            ("int_alu", 0.25, 0.0625),
            ("fp_add", 0.5, 0.125),
            ("fp_mul", 0.75, 0.125),
            ("forward", 1.5, 0.25),
        ])
    }

    fn count(c: InstrClass, n: u32) -> ClassCount {
        ClassCount {
            class: ClassWidth::new(c, Width::Scalar),
            count: n,
        }
    }

    /// Whether `t` (ns) is the interference of `bounds` (ns, one per group of units:
    /// [`interfering`]) to 0.1%.
    fn interfered(t: f64, bounds: &[f64]) -> bool {
        let top = bounds.iter().copied().fold(0.0, f64::max);
        let sum: f64 = bounds
            .iter()
            .map(|b| (b / top).powf(INTERFERENCE_NORM))
            .sum();
        let expected = top * sum.powf(1.0 / INTERFERENCE_NORM);
        (t - expected).abs() <= 1e-3 * expected
    }

    #[test]
    fn units_near_saturation_together_slow_a_loop_down() {
        // Two equal bounds: 2^(1/6) of one; the same pipes counted two ways (the address
        // pipes and the loads) once; a bound at half of the largest next to nothing.
        let two = interfering(vec![
            (2.0, Bound::Issue),
            (2.0, Bound::Class(InstrClass::FpAdd)),
        ]);
        assert!((two.unwrap().0 - 2.0 * 2f64.powf(1.0 / 6.0)).abs() < 1e-12);
        let nested = interfering(vec![
            (2.0, Bound::MemoryPipes),
            (2.0, Bound::Class(InstrClass::Load)),
        ]);
        assert_eq!(nested.map(|n| n.0), Some(2.0));
        let half = interfering(vec![(2.0, Bound::VectorPipes), (1.0, Bound::Issue)]).unwrap();
        assert_eq!(half.1, Bound::VectorPipes);
        assert!(half.0 > 2.0 && half.0 < 2.0 * 1.003, "{half:?}");
    }

    #[test]
    fn divides_of_both_widths_take_turns_in_one_divider() {
        let mut m = crate::test_support::incore_machine(&[
            ("int_alu", 0.25, 0.0625),
            ("int_div", 2.5, 1.5),
            ("int_div64", 2.5, 2.0),
        ]);
        m.issue_ns = 0.05;
        let scalar = |c| ClassWidth::new(c, Width::Scalar);
        let instructions = vec![
            (scalar(InstrClass::IntDiv), 1.0),
            (scalar(InstrClass::IntDiv64), 1.0),
            (scalar(InstrClass::IntAlu), 4.0),
        ];
        let (t, bound) = throughput_bound(6.0, instructions, 0.0, &m).unwrap();
        assert_eq!(bound, Bound::Class(InstrClass::IntDiv));
        assert!(
            interfered(t, &[3.5, 6.0 * 0.05, m.taken_branch_ns, 0.25]),
            "{t}"
        );
    }

    fn dot(chain: Vec<ClassCount>) -> CompiledLoop {
        let instructions = vec![
            count(InstrClass::Load, 2),
            count(InstrClass::IntAlu, 2),
            count(InstrClass::FpAdd, 1),
            count(InstrClass::FpMul, 1),
            count(InstrClass::Branch, 1),
        ];
        CompiledLoop {
            function: "k_".into(),
            chains: vec![Chain {
                carried_by: "%v0".into(),
                path: chain,
                restarted_by: None,
                crossings: 0,
            }],
            ..crate::test_support::compiled_loop("k.f90", 5, instructions, 6)
        }
    }

    /// A loop whose header branches to a likely arm (block 1, an add chain of one) or a
    /// rare one (block 2, a chain of four adds), both jumping back.
    fn arms(likely: f64) -> CompiledLoop {
        use augur_program_profile::compiled::{BlockEnd, CompiledBlock, CompiledPath};
        let block = |instructions: Vec<ClassCount>, end: BlockEnd, f: f64, share| {
            let issued = instructions.iter().map(|c| c.count).sum();
            CompiledBlock {
                first_line: 0,
                instructions,
                issued,
                end,
                frequency: Some(f),
                taken_share: share,
                arm_shares: vec![],
            }
        };
        let back = || BlockEnd::Goes { to: Some(0) };
        let adds = |n| Chain {
            carried_by: "%v0".into(),
            path: vec![count(InstrClass::FpAdd, n)],
            restarted_by: None,
            crossings: 0,
        };
        let mut l = dot(vec![]);
        l.inner_branches = 1;
        l.blocks = vec![
            block(
                vec![count(InstrClass::Load, 4), count(InstrClass::Branch, 1)],
                BlockEnd::Branches {
                    line: 6,
                    taken: Some(2),
                    not_taken: Some(1),
                    until_set: None,
                },
                1.0,
                Some(1.0 - likely),
            ),
            block(vec![count(InstrClass::FpAdd, 1)], back(), likely, None),
            block(
                vec![count(InstrClass::FpAdd, 4)],
                back(),
                1.0 - likely,
                None,
            ),
        ];
        l.paths = vec![
            CompiledPath {
                blocks: vec![0, 1],
                chains: vec![adds(1)],
                span: vec![],
            },
            CompiledPath {
                blocks: vec![0, 2],
                chains: vec![adds(4)],
                span: vec![],
            },
        ];
        l
    }

    #[test]
    fn a_chain_that_crosses_between_unit_groups_waits_the_crossings() {
        let mut m = machine();
        // A Horner step: a multiply and an add on the chain, crossing twice.
        let mut l = dot(vec![
            count(InstrClass::FpMul, 1),
            count(InstrClass::FpAdd, 1),
        ]);
        l.chains[0].crossings = 2;
        let before = loop_time(&l, &m).unwrap();
        assert_eq!(before.bound, Bound::Chain("%v0".into()));
        m.crossing_ns = Some(0.25);
        let after = loop_time(&l, &m).unwrap();
        let more = after.per_compiled_iteration - before.per_compiled_iteration;
        assert!((more - 0.5e-9).abs() < 1e-15, "{before:?} {after:?}");
        let said = describe(&l, Some(&after), Some(&m));
        assert!(
            said.ends_with("the multipliers and the vector logic 2 times (2.0 cycles of it)"),
            "{said}"
        );
    }

    #[test]
    fn a_long_path_the_window_cannot_overlap_binds_the_iteration() {
        let mut m = machine();
        // 100 instructions an iteration, a path of 40 fp adds (20 ns) through each.
        let mut l = dot(vec![count(InstrClass::FpAdd, 1)]);
        l.issued = 100;
        l.span = vec![count(InstrClass::FpAdd, 40)];
        // Without a window, the throughput binds (100 instructions at 0.05 ns).
        let t = loop_time(&l, &m).unwrap();
        assert!((t.per_compiled_iteration - 5e-9).abs() < 1e-15, "{t:?}");
        // A window of 200 holds two iterations: 10 ns.
        m.window = Some(200.0);
        let t = loop_time(&l, &m).unwrap();
        assert!((t.per_compiled_iteration - 10e-9).abs() < 1e-15, "{t:?}");
        assert_eq!(t.bound, Bound::Window(2.0, InFlightLimit::Window));
        // A window of 4,000 holds forty: the throughput binds again.
        m.window = Some(4000.0);
        let t = loop_time(&l, &m).unwrap();
        assert!((t.per_compiled_iteration - 5e-9).abs() < 1e-15, "{t:?}");
    }

    #[test]
    fn loads_and_stores_share_the_address_pipes() {
        let mut m = machine();
        // 40 loads, 40 stores, 80 instructions: the stores' own units bind (10 ns).
        let mut l = dot(vec![count(InstrClass::FpAdd, 1)]);
        l.issued = 80;
        l.instructions = vec![count(InstrClass::Load, 40), count(InstrClass::Store, 40)];
        let t = loop_time(&l, &m).unwrap();
        assert_eq!(t.bound, Bound::Class(InstrClass::Store));
        // Pipes doing three a cycle between them (0.0833 ns each): the 80 take 6.67 ns,
        // under the stores' 10; pipes doing one a cycle: 20 ns.
        m.memory_op_ns = Some(0.25 / 3.0);
        assert_eq!(
            loop_time(&l, &m).unwrap().bound,
            Bound::Class(InstrClass::Store)
        );
        m.memory_op_ns = Some(0.25);
        let t = loop_time(&l, &m).unwrap();
        assert_eq!(t.bound, Bound::MemoryPipes);
        assert!(
            interfered(t.per_compiled_iteration, &[20e-9, 4e-9, 0.25e-9]),
            "{t:?}"
        );
    }

    #[test]
    fn adds_multiplies_and_shuffles_share_the_vector_pipes() {
        use augur_program_profile::compiled::ScheduledRead;
        let mut m = machine();
        // 16 adds, 16 multiplies (2 a cycle each: 2 ns apart), a shuffle and a register
        // copy, 40 instructions (2 ns of issue).
        let mut l = dot(vec![count(InstrClass::FpAdd, 1)]);
        l.issued = 40;
        l.instructions = vec![count(InstrClass::FpAdd, 16), count(InstrClass::FpMul, 16)];
        let vec_move = |path: Vec<ClassWidth>| {
            let mut o = scheduled(vec![ClassWidth::new(InstrClass::VecMove, Width::V128)]);
            o.reads = vec![ScheduledRead { value: 0, path }];
            o.writes = vec![1];
            o
        };
        let shuffle = vec_move(vec![ClassWidth::new(InstrClass::VecMove, Width::V128)]);
        assert!(is_shuffle(&shuffle) && !is_shuffle(&vec_move(vec![])));
        l.schedule = vec![shuffle, vec_move(vec![])];
        assert_eq!(shuffles(&l), 1.0);
        let t = loop_time(&l, &m).unwrap();
        // The adders' and multipliers' 2 ns beside the issue's 2 ns.
        assert!(
            interfered(t.per_compiled_iteration, &[2e-9, 2e-9, 0.25e-9]),
            "{t:?}"
        );
        // Pipes starting three a cycle between them: the 33 take 2.75 ns.
        m.vector_pipes_ns = Some(0.25 / 3.0);
        let t = loop_time(&l, &m).unwrap();
        assert_eq!(t.bound, Bound::VectorPipes);
        assert!(
            interfered(t.per_compiled_iteration, &[2.75e-9, 2e-9, 0.25e-9]),
            "{t:?}"
        );
    }

    #[test]
    fn a_load_merged_into_half_a_register_takes_a_shuffle_pipe() {
        let mut m = crate::test_support::incore_machine(&[
            ("load", 1.0, 0.125),
            ("int_alu", 0.25, 0.0625),
            ("fp_add", 0.5, 0.125),
            ("fp_mul", 0.75, 0.125),
            ("vec_move", 1.0, 0.25),
        ]);
        m.vector_pipes_ns = Some(0.25 / 3.0);
        // 16 adds, 16 multiplies and 4 `movhpd` loads (a load and a shuffle each), 40
        // instructions: the 36 on the pipes take 3 ns where the 32 without the loads'
        // shuffles took 2.67.
        let mut l = dot(vec![count(InstrClass::FpAdd, 1)]);
        l.issued = 40;
        let v128 = |c| ClassWidth::new(c, Width::V128);
        l.instructions = vec![
            count(InstrClass::FpAdd, 16),
            count(InstrClass::FpMul, 16),
            ClassCount {
                class: v128(InstrClass::Load),
                count: 4,
            },
            ClassCount {
                class: v128(InstrClass::VecMove),
                count: 4,
            },
        ];
        let merge = scheduled(vec![v128(InstrClass::Load), v128(InstrClass::VecMove)]);
        assert!(is_shuffle(&merge) && !is_vector_copy(&merge));
        assert!(!is_shuffle(&scheduled(vec![v128(InstrClass::Load)])));
        l.schedule = vec![merge; 4];
        assert_eq!(shuffles(&l), 4.0);
        let t = loop_time(&l, &m).unwrap();
        assert_eq!(t.bound, Bound::VectorPipes);
        // Beside the issue's 2 ns, the shuffles' port 1 ns, the loads 0.5 ns.
        let others = [2e-9, 1e-9, 0.5e-9, 0.25e-9];
        assert!(
            interfered(t.per_compiled_iteration, &[&[3e-9][..], &others].concat()),
            "{t:?}"
        );
    }

    #[test]
    fn register_copies_are_renamed_where_shuffles_take_their_port() {
        use augur_program_profile::compiled::ScheduledRead;
        let mut m = machine();
        // Shuffles one a cycle (0.25 ns), register copies renamed (0.05 ns apart).
        let cost = |throughput_ns| augur_machine_profile::incore::ClassCost {
            latency_ns: 0.25,
            throughput_ns,
            beside_add_ns: None,
        };
        m.class.insert("vec_move.v128".into(), cost(0.25));
        m.class.insert("vec_move".into(), cost(0.05));
        // 4 shuffles and 12 copies of 128-bit registers, 20 instructions (1 ns of issue).
        let mut l = dot(vec![count(InstrClass::FpAdd, 1)]);
        l.issued = 20;
        l.instructions = vec![ClassCount {
            class: ClassWidth::new(InstrClass::VecMove, Width::V128),
            count: 16,
        }];
        let vec_move = |path: Vec<ClassWidth>| {
            let mut o = scheduled(vec![ClassWidth::new(InstrClass::VecMove, Width::V128)]);
            o.reads = vec![ScheduledRead { value: 0, path }];
            o.writes = vec![1];
            o
        };
        let shuffle = vec_move(vec![ClassWidth::new(InstrClass::VecMove, Width::V128)]);
        l.schedule = std::iter::repeat_n(shuffle, 4)
            .chain(std::iter::repeat_n(vec_move(vec![]), 12))
            .collect();
        assert!(is_vector_copy(&l.schedule[4]) && !is_vector_copy(&l.schedule[0]));
        // The shuffles' port: 4 x 0.25 + 12 x 0.05 = 1.6 ns (all 16 at the shuffle's
        // rate would take 4 ns); the replay adds its turns' order, under 10%.
        let t = loop_time(&l, &m).unwrap();
        assert_eq!(t.bound, Bound::Class(InstrClass::VecMove));
        assert!(interfered(t.throughput, &[1.6e-9, 1e-9, 0.25e-9]), "{t:?}");
        assert!(t.per_compiled_iteration < 1.6e-9 * 1.1, "{t:?}");
    }

    /// An instruction of these classes that reads and writes nothing, in block 0.
    fn scheduled(classes: Vec<ClassWidth>) -> ScheduledOp {
        ScheduledOp {
            classes,
            reads: vec![],
            writes: vec![],
            holds: String::new(),
            block: 0,
            inner: 0,
            back_jump: false,
            local: vec![],
            elements: vec![],
        }
    }

    #[test]
    fn a_chain_restarted_at_each_entry_overlaps_the_next_entrys_by_the_iterations_in_flight() {
        let mut m = machine();
        m.window = Some(60.0);
        m.window_vector = Some(90.0);
        m.window_waiting = Some(20.0);
        // An add chain (0.5 ns a link) over an issue bound of 0.3 ns; 10 iterations in
        // flight (the scheduler's 20 entries over 2 waiting instructions an iteration).
        let mut l = dot(vec![count(InstrClass::FpAdd, 1)]);
        l.in_flight = Some(augur_program_profile::compiled::InFlight {
            integer: 2,
            vector: 3,
            stores: 0,
            waiting: 2,
        });
        let at = |l: &CompiledLoop, per_entry: f64, around: Option<u32>| {
            let r = Restarts { per_entry, around };
            restarted_loop_time(l, &m, Some(r)).unwrap()
        };
        let by = |line: Option<u32>| {
            let mut l = l.clone();
            l.chains[0].restarted_by = line;
            l
        };
        // Restarted by the loop around it, every 30 iterations: 30/(30 + 10) of a link.
        let t = at(&by(Some(4)), 30.0, Some(4));
        assert!(
            (t.per_compiled_iteration * 1e9 - 0.375).abs() < 1e-9,
            "{t:?}"
        );
        let restarted = Bound::RestartedChain {
            by: "%v0".into(),
            every: 30.0,
            share: 0.75,
        };
        assert_eq!(t.bound, restarted);
        // Every 2 iterations: the issue bound (beside the loads' and the branch's 0.25
        // ns), not a sixth of a link.
        let t = at(&by(Some(4)), 2.0, Some(4));
        assert!(
            interfered(
                t.per_compiled_iteration,
                &[0.3e-9, 0.25e-9, 0.25e-9, 0.125e-9]
            ),
            "{t:?}"
        );
        // A loop further out restarts it (it spans several entries), or none does (it
        // runs on across entries): a link each iteration, as without restarts.
        for l in [by(Some(3)), by(None)] {
            let t = at(&l, 30.0, Some(4));
            assert!((t.per_compiled_iteration * 1e9 - 0.5).abs() < 1e-9, "{t:?}");
        }
        // Outermost in its procedure: each call starts a register's chain afresh.
        let t = at(&by(None), 30.0, None);
        assert!(
            (t.per_compiled_iteration * 1e9 - 0.375).abs() < 1e-9,
            "{t:?}"
        );
        assert_eq!(
            loop_time(&by(None), &m).unwrap().per_compiled_iteration,
            0.5e-9
        );
    }

    #[test]
    fn a_read_modify_write_takes_the_issue_slots_the_machine_measured() {
        let mut m = machine();
        m.issue_ns = 0.0625;
        // 32 instructions (2 ns of issue), one of them `addl $1, -36(%rbp)`.
        let mut l = dot(vec![count(InstrClass::FpAdd, 1)]);
        l.issued = 32;
        l.instructions = vec![count(InstrClass::IntAlu, 31), count(InstrClass::Load, 1)];
        let op = |classes: Vec<InstrClass>| {
            scheduled(
                classes
                    .into_iter()
                    .map(|c| ClassWidth::new(c, Width::Scalar))
                    .collect(),
            )
        };
        let rmw = op(vec![
            InstrClass::Load,
            InstrClass::IntAlu,
            InstrClass::Store,
        ]);
        assert!(is_read_modify_write(&rmw));
        assert!(!is_read_modify_write(&op(vec![InstrClass::Load])));
        l.schedule = vec![rmw];
        let before = loop_time(&l, &m).unwrap().throughput;
        // Two slots: 33 of them, 2.0625 ns.
        m.rmw_issue_slots = Some(2.0);
        let t = loop_time(&l, &m).unwrap();
        assert_eq!(t.bound, Bound::Issue);
        // Beside the 31 integer instructions' 1.94 ns.
        assert!(interfered(before, &[2.0e-9, 1.9375e-9]), "{before}");
        assert!(interfered(t.throughput, &[2.0625e-9, 1.9375e-9]), "{t:?}");
    }

    #[test]
    fn the_resource_that_runs_out_first_sets_the_overlap() {
        let mut m = machine();
        // 100 instructions: 40 write integer registers, 30 vector ones, 20 store.
        let mut l = dot(vec![count(InstrClass::FpAdd, 1)]);
        l.issued = 100;
        l.span = vec![count(InstrClass::FpAdd, 40)];
        l.in_flight = Some(InFlight {
            integer: 40,
            vector: 30,
            stores: 20,
            waiting: 25,
        });
        // 200 integer registers, 200 stores: five iterations in flight, 4 ns, under the
        // throughput's 5 ns.
        m.window = Some(200.0);
        m.window_stores = Some(200.0);
        let t = loop_time(&l, &m).unwrap();
        assert_eq!(t.bound, Bound::Issue);
        // A store queue of 40 holds two iterations' stores: 10 ns.
        m.window_stores = Some(40.0);
        m.window_vector = Some(150.0);
        let t = loop_time(&l, &m).unwrap();
        assert_eq!(t.bound, Bound::Window(2.0, InFlightLimit::StoreQueue));
        assert!((t.per_compiled_iteration - 10e-9).abs() < 1e-15, "{t:?}");
        // The schedulers' waiting instructions are measured, not yet a bound (a bound of
        // them over every computing instruction was too slow on long loops).
        m.window_waiting = Some(25.0);
        let t = loop_time(&l, &m).unwrap();
        assert_eq!(t.bound, Bound::Window(2.0, InFlightLimit::StoreQueue));
        // A profile without the split: the window over every instruction, two.
        let old = InCoreProfile {
            window_vector: None,
            window_stores: None,
            window_waiting: None,
            ..m.clone()
        };
        assert_eq!(
            loop_time(&l, &old).unwrap().bound,
            Bound::Window(2.0, InFlightLimit::Window)
        );
    }

    #[test]
    fn a_loop_with_arms_pays_the_arm_it_takes() {
        let m = machine();
        // Always the likely arm: its one add (0.5 ns) and its four loads (0.5 ns, a little
        // more beside the issue and the branch) bound; the rare arm's four adds and its
        // instructions weigh nothing.
        let t = loop_time(&arms(1.0), &m).unwrap();
        let s = t.per_source_iteration;
        assert!((0.5e-9..0.5e-9 * 1.02).contains(&s), "{t:?}");
        // Half and half: the chain is the mean of the two, 1.25 ns.
        let t = loop_time(&arms(0.5), &m).unwrap();
        assert!((t.chain - 1.25e-9).abs() < 1e-15, "{t:?}");
        // Without the odds, the AbOps price it.
        let mut l = arms(0.5);
        l.blocks[1].frequency = None;
        assert!(unpriceable(&l).is_some() && loop_time(&l, &m).is_none());
    }

    #[test]
    fn a_loop_that_calls_is_no_faster_than_its_spilled_chain() {
        // `s` lives in a stack slot around the call: a forwarding (1.5 ns) and an add
        // (0.5 ns) an iteration. The loop is still priced by its AbOps, floored by it.
        let m = machine();
        let mut l = dot(vec![
            count(InstrClass::Forward, 1),
            count(InstrClass::FpAdd, 1),
        ]);
        assert_eq!(call_loop_chain(&l, &m), None, "no call, no floor");
        l.instructions.push(count(InstrClass::Call, 1));
        assert!(unpriceable(&l).is_some());
        assert_eq!(call_loop_chain(&l, &m), Some(2.0));
        // A chain through the call's own result is the library's to price.
        l.chains[0].path.push(count(InstrClass::Call, 1));
        assert_eq!(call_loop_chain(&l, &m), None);
    }

    #[test]
    fn a_loop_that_calls_takes_at_least_its_own_instructions_issue() {
        // An unoptimized caller: 160 instructions issued an iteration, the call one of
        // them, at 0.05 ns each (8 ns an iteration); the callee's are priced in its own
        // unit.
        let mut m = machine();
        m.issue_ns = 0.05;
        let mut l = dot(vec![count(InstrClass::IntAlu, 1)]);
        l.issued = 160;
        assert_eq!(call_loop_issue(&l, &m), None, "no call, no floor");
        l.instructions.push(count(InstrClass::Call, 1));
        let t = call_loop_issue(&l, &m).unwrap();
        assert!((t - 8.0).abs() < 1e-9, "{t}");
        // Two source iterations a compiled one: half of it each.
        l.source_iterations = 2;
        assert!((call_loop_issue(&l, &m).unwrap() - 4.0).abs() < 1e-9);
        // Instructions augur does not classify: nothing said.
        l.instructions.push(count(InstrClass::Other, 1));
        assert_eq!(call_loop_issue(&l, &m), None);
    }

    #[test]
    fn a_reduction_runs_at_its_add_latency() {
        // Six instructions issue in 0.3 ns; the add chain takes 0.5.
        let t = loop_time(&dot(vec![count(InstrClass::FpAdd, 1)]), &machine()).unwrap();
        assert!((t.per_source_iteration - 0.5e-9).abs() < 1e-15);
        assert_eq!(t.bound, Bound::Chain("%v0".into()));
    }

    #[test]
    fn unoptimized_chains_pay_the_store_forwarding() {
        let t = loop_time(
            &dot(vec![
                count(InstrClass::Forward, 1),
                count(InstrClass::FpAdd, 1),
            ]),
            &machine(),
        )
        .unwrap();
        assert!((t.per_compiled_iteration - 2.0e-9).abs() < 1e-15);
    }

    #[test]
    fn a_chain_beside_independent_adds_takes_its_measured_excess_per_add() {
        // A maximum chained through the iteration (`maxval(abs(u - w))`) beside the
        // iteration's subtract: 2 cycles alone, 2.5 beside one add where measured so.
        let mut m = machine();
        let max = |beside| augur_machine_profile::incore::ClassCost {
            latency_ns: 0.5,
            throughput_ns: 0.125,
            beside_add_ns: beside,
        };
        m.class.insert("fp_min_max".into(), max(Some(0.625)));
        let chain = vec![count(InstrClass::FpMinMax, 1)];
        let t = |cl: &CompiledLoop, m: &InCoreProfile| loop_time(cl, m).unwrap().chain;
        let mut cl = dot(chain.clone());
        cl.instructions.push(count(InstrClass::FpMinMax, 1));
        assert!((t(&cl, &m) - 0.625e-9).abs() < 1e-15);
        // Two adds beside the link: twice the excess; more are taken as two.
        cl.instructions[2] = count(InstrClass::FpAdd, 2);
        assert!((t(&cl, &m) - 0.75e-9).abs() < 1e-15);
        cl.instructions[2] = count(InstrClass::FpAdd, 5);
        assert!((t(&cl, &m) - 0.75e-9).abs() < 1e-15);
        // An add on the chain itself competes with nothing; nor does a profile made
        // before the measurement.
        let on_chain = dot(vec![
            count(InstrClass::FpMinMax, 1),
            count(InstrClass::FpAdd, 1),
        ]);
        assert!((t(&on_chain, &m) - 1.0e-9).abs() < 1e-15);
        m.class.insert("fp_min_max".into(), max(None));
        assert!((t(&cl, &m) - 0.5e-9).abs() < 1e-15);
    }

    #[test]
    fn independent_iterations_run_at_their_throughput_per_lane() {
        let mut cl = dot(vec![count(InstrClass::IntAlu, 1)]);
        cl.source_iterations = 2;
        let t = loop_time(&cl, &machine()).unwrap();
        // Issue: 6 × 0.05 = 0.3 ns; loads 0.25; branch 0.25: issue binds.
        assert_eq!(t.bound, Bound::Issue);
        let per_two = 2.0 * t.per_source_iteration;
        assert!(
            interfered(per_two, &[0.3e-9, 0.25e-9, 0.25e-9, 0.125e-9]),
            "{t:?}"
        );
    }

    #[test]
    fn the_arithmetic_counts_the_source_iterations_of_a_strided_vector_loop() {
        // `c(i,j) = c(i,j) + r*b(k,j)` over j, vectorized two columns at a time: one
        // packed add and one packed multiply cover two source iterations of one add and
        // one multiply each (the pointers stride a whole column).
        let mut cl = dot(vec![]);
        cl.instructions = vec![
            ClassCount {
                class: ClassWidth::new(InstrClass::FpAdd, Width::V128),
                count: 1,
            },
            ClassCount {
                class: ClassWidth::new(InstrClass::FpMul, Width::V128),
                count: 1,
            },
        ];
        let mut per = augur_ir::AbOpCounts::new();
        per.add(augur_ir::AbOp::ARDL, 1.0);
        per.add(augur_ir::AbOp::MRDL, 1.0);
        assert_eq!(iterations_by_arithmetic(&cl, &per), Some(2));
        // The elements' addressing (ARR1, ARR2) is no arithmetic of theirs.
        per.add(augur_ir::AbOp::ARR1, 2.0);
        per.add(augur_ir::AbOp::ARR2, 1.0);
        assert_eq!(iterations_by_arithmetic(&cl, &per), Some(2));
        // Single precision: four lanes.
        let mut single = augur_ir::AbOpCounts::new();
        single.add(augur_ir::AbOp::ARSL, 1.0);
        single.add(augur_ir::AbOp::MRSL, 1.0);
        assert_eq!(iterations_by_arithmetic(&cl, &single), Some(4));
        // No real arithmetic in the source: the induction stands.
        assert_eq!(
            iterations_by_arithmetic(&cl, &augur_ir::AbOpCounts::new()),
            None
        );
    }

    #[test]
    fn loops_with_calls_or_unknown_classes_are_left_to_the_abops() {
        let mut cl = dot(vec![]);
        cl.instructions.push(count(InstrClass::Call, 1));
        assert!(loop_time(&cl, &machine()).is_none());
        let mut cl = dot(vec![]);
        cl.instructions.push(count(InstrClass::FpDiv, 1));
        assert!(
            loop_time(&cl, &machine()).is_none(),
            "the machine lacks fp_div"
        );
    }
}
