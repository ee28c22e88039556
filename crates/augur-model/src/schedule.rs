//! A compiled loop's iterations replayed on a model of an out-of-order core: the
//! instructions of one iteration (`augur_program_profile::compiled::ScheduledOp`), in
//! order, many times over, each dispatched as soon as the core's issue width and its
//! in-flight resources allow (integer registers, vector registers, store queue: the
//! machine's `[incore] window`, `window_vector`, `window_stores`, freed as instructions
//! retire in order), started when the values it reads are ready and a unit of its class
//! is free (one instruction per reciprocal throughput on each class's units, loads and
//! stores on the address pipes they share, floating-point operations and shuffles on
//! the vector pipes they share, one taken backward jump per
//! `taken_branch_ns`), done after its latencies.
//!
//! The analytical bounds of [`crate::incore`] (throughput, longest chain, longest path
//! over the iterations in flight) each hold one mechanism apart; a loop where they
//! interact (a long dependent path through stack slots, issued slower than its window
//! drains; a chain's instruction beside independent ones on the same units) runs between
//! them, where only a replay finds it; floating-point instructions waiting for their
//! operands hold an entry of the scheduler (`window_waiting`) until they start, integer
//! computations one of the integer scheduler (`window_waiting_integer`); each
//! access of an integer slot the loop stores (an `-O0` loop's counter) takes a turn of
//! `forward_int`'s throughput. Steady
//! state: the time between the retirements of the last instructions of two iterations,
//! over the second half of the replay. A loop around short inner loops can be replayed
//! whole, each inner loop's body repeated by its trips ([`Repeats::inner_trips`]).

use crate::incore::{is_read_modify_write, is_shuffle, is_vector_copy, on_vector_pipes};
use augur_machine_profile::incore::InCoreProfile;
use augur_program_profile::compiled::{
    BypassGroup, ClassWidth, InstrClass, ScheduledOp, ScheduledRead, Width,
};
use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};

/// How often each instruction of an iteration runs: blocks run by their frequencies
/// (how often an iteration runs each), inner loops' bodies by their trip counts. Counts
/// that are not whole spread over the iterations (a block run every other iteration
/// runs in every second one).
pub struct Repeats<'a> {
    /// Per block index, how often an iteration runs it (missing: once).
    pub block_frequency: &'a [Option<f64>],
    /// Per inner loop line, its iterations per iteration of the loop replayed.
    pub inner_trips: &'a HashMap<u32, f64>,
}

/// The least and most iterations replayed, and the instructions after which it stops
/// (at the least iterations, however many instructions they hold: an outer loop replayed
/// with its inner loops' bodies reaches its steady state within a few, and 16 of them
/// took 2-3 ms each, a third of a prediction's time).
const MIN_ITERATIONS: usize = 6;
const MAX_ITERATIONS: usize = 400;
const INSTRUCTIONS: usize = 3000;

/// The time one iteration of `ops` takes on `m` in steady state, ns; `None` when `m`
/// lacks the latency or throughput of a class they hold, or there is nothing to replay.
/// A prediction asks for the same loop several times (its time, its idle units, the
/// loops around it): each replay is kept, by a hash of what it was made of, for every
/// thread of the process (`incore::replay_compiled_loops` makes them on all the host's cores).
pub fn iteration_ns(ops: &[ScheduledOp], repeats: &Repeats, m: &InCoreProfile) -> Option<f64> {
    let m = &*for_loop(ops, m);
    let key = replay_key(ops, repeats, m);
    if let Some(kept) = kept().lock().ok().and_then(|k| k.get(&key).copied()) {
        return kept;
    }
    let t = replay(ops, repeats, m);
    if let Ok(mut k) = kept().lock() {
        if k.len() > 100_000 {
            k.clear();
        }
        k.insert(key, t);
    }
    t
}

/// The store-load pairs of `ops` whose load reads what a store of the loop wrote
/// through a pointer loaded again between them (`forward_reloaded`): the pairs the
/// core's predictor must hold to rename them. A load pairs with each store that may
/// have written its value last: the one before it in its block, or else the last of
/// every block that stores it (a `select case` loop's program counter, stored in each
/// arm and read at the top, pairs with every arm's store: a Zen 5 renames a loop of 10
/// arms that store 4 such values read at the top, 40 pairs, and forwards one of 12).
fn reloaded_pairs(ops: &[ScheduledOp]) -> usize {
    let stores = |o: &ScheduledOp| o.classes.iter().any(|c| c.class == InstrClass::Store);
    let mut storing: HashMap<u32, std::collections::HashSet<u32>> = HashMap::new();
    for o in ops.iter().filter(|o| stores(o)) {
        for w in &o.writes {
            storing.entry(*w).or_default().insert(o.block);
        }
    }
    let mut stored_before = std::collections::HashSet::new();
    let mut pairs = 0;
    for o in ops {
        for r in &o.reads {
            if r.path.first().map(|c| c.class) != Some(InstrClass::ForwardReloaded) {
                continue;
            }
            pairs += if stored_before.contains(&(o.block, r.value)) {
                1
            } else {
                storing.get(&r.value).map_or(1, |b| b.len().max(1))
            };
        }
        if stores(o) {
            stored_before.extend(o.writes.iter().map(|w| (o.block, *w)));
        }
    }
    pairs
}

/// `m` as it prices the loop of `ops`: a loop with no more store-load pairs through
/// reloaded pointers than the core's predictor holds (`forwarding_pairs`) has them
/// renamed as the frame's own slots are (`forward_reloaded` priced as `forward_int`),
/// a loop with more waits `forward_reloaded`'s measured latency at each (a Zen 5: 40
/// pairs, 7 cycles). A profile without `forwarding_pairs` renames them all.
pub(crate) fn for_loop<'a>(
    ops: &[ScheduledOp],
    m: &'a InCoreProfile,
) -> std::borrow::Cow<'a, InCoreProfile> {
    use std::borrow::Cow;
    let key = ClassWidth::new(InstrClass::ForwardReloaded, Width::Scalar).key();
    let pairs = reloaded_pairs(ops);
    let beyond = m.forwarding_pairs.is_some_and(|c| pairs as f64 > c);
    if pairs == 0 || beyond || !m.class.contains_key(&key) {
        return Cow::Borrowed(m);
    }
    let mut renamed = m.clone();
    renamed.class.remove(&key);
    Cow::Owned(renamed)
}

/// What [`for_loop`] says of the loop of `ops` on `m`, for `augur predict --by loop`:
/// nothing when its reloaded pairs are renamed, else how many there are against the
/// predictor's capacity and what each waits.
pub(crate) fn unrenamed_pairs(ops: &[ScheduledOp], m: &InCoreProfile) -> String {
    let pairs = reloaded_pairs(ops);
    let cost = m.cost(ClassWidth::new(InstrClass::ForwardReloaded, Width::Scalar));
    match (m.forwarding_pairs, cost) {
        (Some(c), Some(cost)) if pairs as f64 > c && m.cycle_ns > 0.0 => format!(
            "; {pairs} store-load pairs through reloaded pointers, more than the {c:.0} the core renames: each waits {:.1} cycles",
            cost.latency_ns / m.cycle_ns
        ),
        _ => String::new(),
    }
}

/// Replays already made, by [`replay_key`].
fn kept() -> &'static std::sync::Mutex<HashMap<u64, Option<f64>>> {
    static KEPT: std::sync::OnceLock<std::sync::Mutex<HashMap<u64, Option<f64>>>> =
        std::sync::OnceLock::new();
    KEPT.get_or_init(Default::default)
}

/// A hash of everything a replay depends on.
fn replay_key(ops: &[ScheduledOp], repeats: &Repeats, m: &InCoreProfile) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    ops.hash(&mut h);
    for f in repeats.block_frequency {
        f.map(f64::to_bits).hash(&mut h);
    }
    let mut trips: Vec<(u32, u64)> = repeats
        .inner_trips
        .iter()
        .map(|(l, t)| (*l, t.to_bits()))
        .collect();
    trips.sort_unstable();
    trips.hash(&mut h);
    let numbers = [
        Some(m.cycle_ns),
        Some(m.issue_ns),
        Some(m.taken_branch_ns),
        m.memory_op_ns,
        m.window,
        m.window_vector,
        m.window_stores,
        m.window_waiting,
        m.window_waiting_integer,
        m.forwarding_pairs,
        m.rmw_issue_slots,
        m.crossing_ns,
    ];
    for x in numbers {
        x.map(f64::to_bits).hash(&mut h);
    }
    for (k, c) in &m.class {
        (k, c.latency_ns.to_bits(), c.throughput_ns.to_bits()).hash(&mut h);
    }
    h.finish()
}

/// [`iteration_ns`], replayed.
fn replay(ops: &[ScheduledOp], repeats: &Repeats, m: &InCoreProfile) -> Option<f64> {
    let prepared = Prepared::new(ops, m)?;
    let mut core = Core::new(m, prepared.values);
    let mut elements = Elements::new(ops);
    let mut ends: Vec<f64> = vec![];
    let mut done = 0usize;
    let mut k = 0usize;
    while k < MIN_ITERATIONS || (done < INSTRUCTIONS && k < MAX_ITERATIONS) {
        let before = done;
        for_each_op(ops, repeats, k, |step| match step {
            Step::Enter(line) => {
                for v in prepared.local.get(&line).into_iter().flatten() {
                    core.ready[*v as usize] = 0.0;
                }
            }
            Step::Run(i, trip) => {
                match elements.resolve(&prepared.ops[i], trip, &mut core.ready) {
                    Some(op) => core.run(&op),
                    None => core.run(&prepared.ops[i]),
                }
                done += 1;
            }
        });
        if done == before {
            return None;
        }
        ends.push(core.last_retired);
        k += 1;
    }
    let h = k / 2;
    Some((ends[k - 1] - ends[h - 1]) / (k - h) as f64)
}

/// The elements inner loops walk (`ScheduledOp::elements`), each trip's its own value:
/// per value standing for an element, its base, offset and stride; per element met so
/// far (base, byte), the value that holds it.
struct Elements {
    named: HashMap<u32, (u32, i64, i64)>,
    values: HashMap<(u32, i64), u32>,
}

impl Elements {
    fn new(ops: &[ScheduledOp]) -> Self {
        let named = ops
            .iter()
            .flat_map(|o| &o.elements)
            .map(|e| (e.value, (e.base, e.offset, e.stride)))
            .collect();
        Elements {
            named,
            values: HashMap::new(),
        }
    }

    /// `op` with the values standing for elements replaced by the elements' own on this
    /// trip (each new one given a value, ready from the start); `None` when it names
    /// none.
    fn resolve(&mut self, op: &Op, trip: i64, ready: &mut Vec<f64>) -> Option<Op> {
        if self.named.is_empty() || !op.names_elements {
            return None;
        }
        let mut value = |v: u32| -> u32 {
            let Some(&(base, offset, stride)) = self.named.get(&v) else {
                return v;
            };
            *self
                .values
                .entry((base, offset + stride * trip))
                .or_insert_with(|| {
                    ready.push(0.0);
                    (ready.len() - 1) as u32
                })
        };
        let mut out = op.clone();
        for r in &mut out.reads {
            r.0 = value(r.0);
        }
        for w in &mut out.writes {
            *w = value(*w);
        }
        Some(out)
    }
}

/// What the replay does next.
enum Step {
    /// Enter the inner loop of this line.
    Enter(u32),
    /// Run the instruction of this index, on this trip of its inner loop (0 outside).
    Run(usize, i64),
}

/// Calls `step` for each instruction iteration `k` runs, in order, and as it enters
/// each inner loop.
fn for_each_op(ops: &[ScheduledOp], repeats: &Repeats, k: usize, mut step: impl FnMut(Step)) {
    let times = |x: f64| -> usize {
        let x = x.max(0.0);
        ((k as f64 + 1.0) * x).floor() as usize - (k as f64 * x).floor() as usize
    };
    let mut start = 0;
    while start < ops.len() {
        let inner = ops[start].inner;
        let end = (start..ops.len())
            .find(|&j| ops[j].inner != inner)
            .unwrap_or(ops.len());
        let trips = if inner == 0 {
            1
        } else {
            times(repeats.inner_trips.get(&inner).copied().unwrap_or(1.0))
        };
        if trips > 0 && inner != 0 {
            step(Step::Enter(inner));
        }
        for trip in 0..trips {
            for (i, op) in ops.iter().enumerate().take(end).skip(start) {
                let f = repeats
                    .block_frequency
                    .get(op.block as usize)
                    .copied()
                    .flatten()
                    .unwrap_or(1.0);
                if f >= 1.0 || times(f) > 0 {
                    step(Step::Run(i, trip as i64));
                }
            }
        }
        start = end;
    }
}

/// A unit of the core that takes one instruction per reciprocal throughput.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Unit {
    Class(InstrClass),
    AddressPipes,
    VectorPipes,
    TakenBranch,
}

/// The units the replay keeps a calendar of: each class's, the address pipes, the vector
/// pipes, the taken branch.
const UNITS: usize = InstrClass::ALL.len() + 3;

impl Unit {
    fn index(self) -> usize {
        match self {
            Unit::Class(c) => InstrClass::ALL.iter().position(|x| *x == c).unwrap_or(0),
            Unit::AddressPipes => UNITS - 3,
            Unit::VectorPipes => UNITS - 2,
            Unit::TakenBranch => UNITS - 1,
        }
    }
}

/// One unit's calendar: per turn (a cycle), the instructions started in it so far, and
/// the first turn that may have room. A class with several units (four integer ALUs: a
/// reciprocal throughput of a quarter cycle) starts that many instructions in one cycle,
/// each when it is ready.
///
/// An instruction that holds its unit longer than a cycle (a divide, a square root)
/// takes a stretch of time instead ([`Slots::busy`]): a divide and a square root share
/// the divider with different occupancies, which turns of one length cannot count.
#[derive(Default)]
struct Slots {
    started: Vec<u16>,
    first_free: usize,
    /// The stretches of time the unit is held, `(from, to)` ns, in order and apart.
    busy: Vec<(f64, f64)>,
}

impl Slots {
    /// Holds the unit for `length` from the first time at or after `t` that it is free
    /// that long; returns that time.
    fn hold(&mut self, t: f64, length: f64) -> f64 {
        let mut at = t;
        let mut i = self.busy.partition_point(|b| b.1 <= at);
        while let Some(&(from, to)) = self.busy.get(i) {
            if from >= at + length {
                break;
            }
            at = at.max(to);
            i += 1;
        }
        self.busy.insert(i, (at, at + length));
        at
    }
}

/// An instruction with its machine's numbers.
#[derive(Clone)]
struct Op {
    /// Whether it reads or writes an element an inner loop walks.
    names_elements: bool,
    /// The issue slots it takes (a read-modify-write of memory: `rmw_issue_slots`).
    slots: f64,
    /// Per value read, its number and the latency from it to the result, ns.
    reads: Vec<(u32, f64)>,
    writes: Vec<u32>,
    /// The units it occupies (by [`Unit::index`]), with their reciprocal throughputs.
    units: Vec<(usize, f64)>,
    holds: Vec<Resource>,
    /// The scheduler it waits for its operands in, if the profile measured it.
    waits: Option<Scheduler>,
    /// Its latency when it reads nothing (a load from a fixed address), ns.
    own: f64,
}

/// The schedulers whose entries the replay tracks: an instruction holds one from its
/// dispatch until it starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Scheduler {
    /// Floating-point and vector computations (`window_waiting`).
    Float = 0,
    /// Integer computations, compares included (`window_waiting_integer`).
    Integer = 1,
}

/// The in-flight resources the replay tracks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Resource {
    Integer = 0,
    Vector = 1,
    Stores = 2,
}

/// The scheduler `o` waits in: a floating-point computation (`w`) in the
/// floating-point one, an integer computation writing a register or the flags in the
/// integer one, when `m` measured it; none without the split window.
fn waits_in(o: &ScheduledOp, split: bool, m: &InCoreProfile) -> Option<Scheduler> {
    let integer = || {
        o.holds.contains('i')
            && o.classes.iter().any(|c| {
                matches!(
                    c.class,
                    InstrClass::IntAlu
                        | InstrClass::IntMul
                        | InstrClass::IntDiv
                        | InstrClass::IntDiv64
                )
            })
    };
    if !split {
        None
    } else if o.holds.contains('w') {
        Some(Scheduler::Float)
    } else if m.window_waiting_integer.is_some() && integer() {
        Some(Scheduler::Integer)
    } else {
        None
    }
}

struct Prepared {
    ops: Vec<Op>,
    values: usize,
    /// Per inner loop line, the values that start afresh as it is entered.
    local: HashMap<u32, Vec<u32>>,
}

impl Prepared {
    fn new(ops: &[ScheduledOp], m: &InCoreProfile) -> Option<Self> {
        let latency = |c: ClassWidth| -> Option<f64> {
            if c.class == InstrClass::Branch {
                return Some(0.0);
            }
            m.cost(c)
                .or_else(|| {
                    c.class
                        .is_forwarding()
                        .then(|| m.cost(ClassWidth::new(InstrClass::Load, c.width)))
                        .flatten()
                })
                .map(|x| x.latency_ns)
        };
        let split = m.window_vector.is_some() || m.window_stores.is_some();
        let mut values = 0;
        let mut out = Vec::with_capacity(ops.len());
        let stored = stored_in_the_loop(ops);
        let mut local: HashMap<u32, Vec<u32>> = HashMap::new();
        let mut groups = ResultGroups::new(ops);
        let crossing = m.crossing_ns.unwrap_or(0.0);
        for o in ops {
            for v in &o.local {
                values = values.max(*v as usize + 1);
                local.entry(o.inner).or_default().push(*v);
            }
            let mut reads = Vec::with_capacity(o.reads.len());
            for r in &o.reads {
                let mut t = groups.crossings(r) as f64 * crossing;
                for c in &r.path {
                    t += latency(*c)?;
                }
                reads.push((r.value, t));
                values = values.max(r.value as usize + 1);
            }
            for w in &o.writes {
                values = values.max(*w as usize + 1);
            }
            groups.after(o);
            let mut units = vec![];
            for c in &o.classes {
                if matches!(c.class, InstrClass::Load | InstrClass::Store) {
                    if let Some(t) = m.memory_op_ns {
                        units.push((Unit::AddressPipes.index(), t));
                    }
                }
                if c.class == InstrClass::Branch || c.class.is_forwarding() {
                    continue;
                }
                let unit = c.class.unit();
                // A whole-register copy is the renamer's move, at any width.
                let priced = if is_vector_copy(o) {
                    ClassWidth::new(InstrClass::VecMove, Width::Scalar)
                } else {
                    *c
                };
                units.push((Unit::Class(unit).index(), m.cost(priced)?.throughput_ns));
            }
            if o.back_jump {
                units.push((Unit::TakenBranch.index(), m.taken_branch_ns));
            }
            if let Some(t) = m.vector_pipes_ns {
                let on_pipes = o
                    .classes
                    .iter()
                    .filter(|c| on_vector_pipes(c.class))
                    .count()
                    + usize::from(is_shuffle(o));
                units.extend((0..on_pipes).map(|_| (Unit::VectorPipes.index(), t)));
            }
            units.extend(forwarding_turn(o, &stored, m));
            let holds = if split {
                o.holds
                    .chars()
                    .filter_map(|c| match c {
                        'i' => Some(Resource::Integer),
                        'v' => Some(Resource::Vector),
                        's' => Some(Resource::Stores),
                        _ => None,
                    })
                    .collect()
            } else {
                vec![Resource::Integer]
            };
            let mut own = 0.0;
            for c in o.classes.iter().filter(|c| c.class != InstrClass::Store) {
                own += latency(*c)?;
            }
            let slots = match m.rmw_issue_slots {
                Some(n) if is_read_modify_write(o) => n.max(1.0),
                _ => 1.0,
            };
            out.push(Op {
                names_elements: !o.elements.is_empty(),
                slots,
                waits: waits_in(o, split, m),
                own,
                reads,
                writes: o.writes.clone(),
                units,
                holds,
            });
        }
        (!out.is_empty()).then_some(Prepared {
            ops: out,
            values,
            local,
        })
    }
}

/// The bypass group ([`BypassGroup`]) each value of a replayed iteration was computed
/// in, as the instructions make them in order (a value carried from the previous
/// iteration: its last writer's), so that a read passing a value from one group to
/// another pays the machine's crossing delay.
struct ResultGroups(HashMap<u32, BypassGroup>);

impl ResultGroups {
    /// The groups the iteration's last writers leave (the carried values').
    fn new(ops: &[ScheduledOp]) -> Self {
        let mut g = ResultGroups(HashMap::new());
        for o in ops {
            g.after(o);
        }
        g
    }

    /// The group `o` computes in: its last class that has one; a register move's is
    /// its operand's.
    fn of(&self, o: &ScheduledOp) -> Option<BypassGroup> {
        match o.classes.iter().rev().find_map(|c| c.class.bypass_group()) {
            Some(g) => Some(g),
            None if o.classes.iter().all(|c| c.class == InstrClass::VecMove) => {
                o.reads.iter().find_map(|r| self.0.get(&r.value).copied())
            }
            None => None,
        }
    }

    /// `o`'s values made: in its group, or in none.
    fn after(&mut self, o: &ScheduledOp) {
        let g = self.of(o);
        for w in &o.writes {
            match g {
                Some(g) => self.0.insert(*w, g),
                None => self.0.remove(w),
            };
        }
    }

    /// The crossings of read `r`: one where the first class on its way computes in
    /// another group than its value was made in.
    fn crossings(&self, r: &ScheduledRead) -> u32 {
        let first = r.path.first().and_then(|c| c.class.bypass_group());
        match (self.0.get(&r.value), first) {
            (Some(a), Some(b)) if *a != b => 1,
            _ => 0,
        }
    }
}

/// The values the loop's stores write (the slots of the frame and the elements it
/// updates).
fn stored_in_the_loop(ops: &[ScheduledOp]) -> std::collections::HashSet<u32> {
    ops.iter()
        .filter(|o| o.classes.iter().any(|c| c.class == InstrClass::Store))
        .flat_map(|o| o.writes.iter().copied())
        .collect()
}

/// The turn an access of an integer slot that the loop stores takes (`forward_int`'s
/// throughput: a loop counter of `-O0` code, incremented in its slot and read there for
/// each subscript, is read one access at a time), for an instruction that makes one.
fn forwarding_turn(
    o: &ScheduledOp,
    stored: &std::collections::HashSet<u32>,
    m: &InCoreProfile,
) -> Option<(usize, f64)> {
    let forwarded = o.reads.iter().any(|r| {
        stored.contains(&r.value)
            && r.path.first().is_some_and(|c| {
                matches!(
                    c.class,
                    InstrClass::ForwardInt | InstrClass::ForwardExt | InstrClass::ForwardReloaded
                )
            })
    });
    if !forwarded {
        return None;
    }
    let cost = m.cost(ClassWidth::new(InstrClass::ForwardInt, Width::Scalar))?;
    Some((
        Unit::Class(InstrClass::ForwardInt).index(),
        cost.throughput_ns,
    ))
}

/// The state of the core as the replay goes.
struct Core {
    issue_ns: f64,
    /// One core clock cycle: the turn of a unit's calendar.
    cycle_ns: f64,
    /// Per resource, its capacity and the retirement times of the instructions that
    /// held it, in order.
    capacity: [usize; 3],
    retired: [Vec<f64>; 3],
    /// When each value is ready.
    ready: Vec<f64>,
    /// Per unit, the slots taken (index = start time over the reciprocal throughput) and
    /// the first slot that may be free.
    calendar: Vec<Slots>,
    last_dispatch: f64,
    last_retired: f64,
    /// Per [`Scheduler`], its size and the start times (ps, as integers) of the
    /// instructions waiting in it.
    scheduler: [usize; 2],
    waiting: [BinaryHeap<Reverse<i64>>; 2],
}

impl Core {
    fn new(m: &InCoreProfile, values: usize) -> Self {
        let cap = |w: Option<f64>| w.filter(|w| *w >= 1.0).map_or(usize::MAX, |w| w as usize);
        Core {
            issue_ns: m.issue_ns,
            cycle_ns: m.cycle_ns.max(f64::MIN_POSITIVE),
            capacity: [cap(m.window), cap(m.window_vector), cap(m.window_stores)],
            retired: [vec![], vec![], vec![]],
            ready: vec![0.0; values],
            calendar: (0..UNITS).map(|_| Slots::default()).collect(),
            last_dispatch: 0.0,
            last_retired: 0.0,
            scheduler: [cap(m.window_waiting), cap(m.window_waiting_integer)],
            waiting: [BinaryHeap::new(), BinaryHeap::new()],
        }
    }

    /// Dispatches, executes and retires `op`.
    fn run(&mut self, op: &Op) {
        let mut dispatch = self.last_dispatch + self.issue_ns * op.slots;
        for r in &op.holds {
            let held = &self.retired[*r as usize];
            let cap = self.capacity[*r as usize];
            if held.len() >= cap {
                dispatch = dispatch.max(held[held.len() - cap]);
            }
        }
        if let Some(s) = op.waits {
            dispatch = self.scheduler_entry(s as usize, dispatch);
        }
        self.last_dispatch = dispatch;
        // When it may start (its first operand's path begins) and when its result is
        // ready if no unit delays it.
        let mut done = dispatch + if op.reads.is_empty() { op.own } else { 0.0 };
        let mut start = dispatch;
        for &(v, lat) in &op.reads {
            let t = self.ready[v as usize].max(dispatch);
            done = done.max(t + lat);
            start = start.max(t);
        }
        let mut delay: f64 = 0.0;
        for &(unit, thr) in &op.units {
            if thr > 0.0 {
                let at = self.reserve(unit, start, thr);
                delay = delay.max(at - start);
            }
        }
        if let Some(s) = op.waits {
            self.waiting[s as usize].push(Reverse(((start + delay) * 1e3) as i64));
        }
        done += delay;
        for &w in &op.writes {
            self.ready[w as usize] = done;
        }
        self.last_retired = self.last_retired.max(done);
        for r in &op.holds {
            self.retired[*r as usize].push(self.last_retired);
        }
    }

    /// The first time from `t` on when scheduler `k` has an entry free (the
    /// instructions waiting in it leave as they start).
    fn scheduler_entry(&mut self, k: usize, mut t: f64) -> f64 {
        let waiting = &mut self.waiting[k];
        loop {
            while waiting
                .peek()
                .is_some_and(|Reverse(s)| (*s as f64) / 1e3 <= t)
            {
                waiting.pop();
            }
            if waiting.len() < self.scheduler[k] {
                return t;
            }
            if let Some(Reverse(s)) = waiting.pop() {
                t = t.max(s as f64 / 1e3);
            }
        }
    }

    /// Takes a place in the first turn of `unit` from the one holding `t` on that has
    /// room (or, for an instruction that holds it longer than a cycle, the first stretch
    /// that long); returns when the instruction starts in it.
    fn reserve(&mut self, unit: usize, t: f64, thr: f64) -> f64 {
        if thr > self.cycle_ns {
            return self.calendar[unit].hold(t, thr);
        }
        let turn = self.cycle_ns;
        let room = (self.cycle_ns / thr).round().max(1.0) as u16;
        let slots = &mut self.calendar[unit];
        let full = |s: &Slots, k: usize| s.started.get(k).is_some_and(|n| *n >= room);
        let mut k = ((t / turn).floor().max(0.0) as usize).max(slots.first_free);
        while full(slots, k) {
            k += 1;
        }
        if slots.started.len() <= k {
            slots.started.resize(k + 1, 0);
        }
        slots.started[k] += 1;
        while full(slots, slots.first_free) {
            slots.first_free += 1;
        }
        t.max(k as f64 * turn)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use augur_program_profile::compiled::{ScheduledRead, Width};

    fn machine() -> InCoreProfile {
        InCoreProfile {
            memory_op_ns: Some(0.1),
            ..crate::test_support::incore_machine(&[
                ("fp_add", 0.75, 0.125),
                ("fp_mul", 0.75, 0.125),
                ("load", 1.0, 0.1),
                ("store", 0.25, 0.2),
                ("forward", 2.0, 0.1),
                ("int_alu", 0.25, 0.0625),
                ("fp_div", 3.0, 1.0),
            ])
        }
    }

    /// `m` with class `key` at `latency` and reciprocal `throughput`, ns.
    fn with_class(m: &mut InCoreProfile, key: &str, latency: f64, throughput: f64) {
        m.class.insert(
            key.into(),
            augur_machine_profile::incore::ClassCost {
                latency_ns: latency,
                throughput_ns: throughput,
                beside_add_ns: None,
            },
        );
    }

    fn cw(c: InstrClass) -> ClassWidth {
        ClassWidth::new(c, Width::Scalar)
    }

    fn op(classes: &[InstrClass], reads: &[(u32, &[InstrClass])], writes: &[u32]) -> ScheduledOp {
        ScheduledOp {
            classes: classes.iter().map(|c| cw(*c)).collect(),
            reads: reads
                .iter()
                .map(|(v, p)| ScheduledRead {
                    value: *v,
                    path: p.iter().map(|c| cw(*c)).collect(),
                })
                .collect(),
            writes: writes.to_vec(),
            holds: "v".into(),
            block: 0,
            inner: 0,
            back_jump: false,
            local: vec![],
            elements: vec![],
        }
    }

    /// One iteration of `ops` replayed on `m`, each instruction once.
    fn once(ops: &[ScheduledOp], m: &InCoreProfile) -> Option<f64> {
        let (f, t) = (vec![], HashMap::new());
        let r = Repeats {
            block_frequency: &f,
            inner_trips: &t,
        };
        iteration_ns(ops, &r, m)
    }

    #[test]
    fn replays_made_ahead_on_several_threads_are_the_ones_asked_for() {
        use InstrClass::*;
        // Chains of 1 to 12 dependent adds an iteration (0.75 ns each): replayed ahead
        // on the host's cores, then asked for one by one, each the same as made alone.
        let m = machine();
        let loops: Vec<Vec<ScheduledOp>> = (1..=12)
            .map(|k| {
                (0..k)
                    .map(|_| op(&[FpAdd], &[(0, &[FpAdd])], &[0]))
                    .collect()
            })
            .collect();
        let (f, t) = (vec![], HashMap::new());
        let jobs: Vec<(&[ScheduledOp], Repeats)> = loops
            .iter()
            .map(|ops| {
                let r = Repeats {
                    block_frequency: &f,
                    inner_trips: &t,
                };
                (ops.as_slice(), r)
            })
            .collect();
        crate::par::map(&jobs, |(ops, r)| iteration_ns(ops, r, &m));
        for (k, ops) in loops.iter().enumerate() {
            let alone = replay(ops, &jobs[k].1, &m).unwrap();
            let kept = once(ops, &m).unwrap();
            assert_eq!(alone, kept);
            assert!((kept - 0.75 * (k + 1) as f64).abs() < 1e-6, "{k}: {kept}");
        }
    }

    #[test]
    fn a_sum_runs_at_the_latency_of_its_add() {
        use InstrClass::*;
        // s = s + x(i): a load, an add carried through value 0.
        let ops = vec![
            op(&[Load], &[], &[1]),
            op(&[FpAdd], &[(0, &[FpAdd]), (1, &[FpAdd])], &[0]),
        ];
        let ns = once(&ops, &machine()).unwrap();
        assert!((ns - 0.75).abs() < 1e-6, "{ns}");
    }

    #[test]
    fn a_value_passed_between_the_adders_and_the_multipliers_waits_the_crossing() {
        use InstrClass::*;
        // p = p*x + c(i) (a Horner step): the multiply's result feeds the add, the
        // add's the next iteration's multiply: two crossings an iteration.
        let ops = vec![
            op(&[Load], &[], &[1]),
            op(&[FpMul], &[(0, &[FpMul])], &[2]),
            op(&[FpAdd], &[(2, &[FpAdd]), (1, &[FpAdd])], &[0]),
        ];
        let mut m = machine();
        let alone = once(&ops, &m).unwrap();
        assert!((alone - 1.5).abs() < 1e-6, "{alone}");
        m.crossing_ns = Some(0.125);
        let crossed = once(&ops, &m).unwrap();
        assert!((crossed - 1.75).abs() < 1e-6, "{crossed}");
        // A register move between them passes the multiply's group on.
        let moved = vec![
            op(&[Load], &[], &[1]),
            op(&[FpMul], &[(0, &[FpMul])], &[2]),
            op(&[VecMove], &[(2, &[VecMove])], &[3]),
            op(&[FpAdd], &[(3, &[FpAdd]), (1, &[FpAdd])], &[0]),
        ];
        with_class(&mut m, "vec_move", 0.0, 0.0625);
        let with_move = once(&moved, &m).unwrap();
        assert!((with_move - 1.75).abs() < 1e-6, "{with_move}");
    }

    #[test]
    fn independent_iterations_run_at_their_busiest_unit() {
        use InstrClass::*;
        // Eight independent divides an iteration: the divider, 8 ns.
        let ops: Vec<ScheduledOp> = (0..8)
            .map(|k| op(&[FpDiv], &[(k, &[FpDiv])], &[100 + k]))
            .collect();
        let ns = once(&ops, &machine()).unwrap();
        assert!((ns - 8.0).abs() < 1e-6, "{ns}");
    }

    #[test]
    fn divides_and_square_roots_take_the_divider_in_turn() {
        use InstrClass::*;
        // Four independent divides (1 ns each on the divider) and four square roots (1.5
        // ns): the divider, 10 ns an iteration (Xeon: a `sqrtsd` and a `divsd` in turn,
        // 2.63 ns a pair, 1.56 + 1.02 alone).
        let mut m = machine();
        with_class(&mut m, "fp_sqrt", 4.0, 1.5);
        let ops: Vec<ScheduledOp> = (0..8)
            .map(|k| {
                let c = if k % 2 == 0 { FpDiv } else { FpSqrt };
                op(&[c], &[(k, &[c])], &[100 + k])
            })
            .collect();
        let ns = once(&ops, &m).unwrap();
        assert!((ns - 10.0).abs() < 1e-6, "{ns}");
    }

    #[test]
    fn iterations_overlap_as_far_as_the_window_holds_them() {
        use InstrClass::*;
        // One divide an iteration, nothing carried (3 ns each, one a ns on the divider):
        // a window of one vector register runs them one after another, of two two at
        // once, of four as fast as the divider takes them.
        let ops = vec![op(&[FpDiv], &[], &[1])];
        let mut m = machine();
        for (window, ns) in [(1.0, 3.0), (2.0, 1.5), (4.0, 1.0)] {
            m.window = Some(400.0);
            m.window_vector = Some(window);
            let got = once(&ops, &m).unwrap();
            assert!((got - ns).abs() < 1e-6, "window {window}: {got}");
        }
    }

    #[test]
    fn integer_instructions_waiting_on_a_slow_result_fill_the_integer_scheduler() {
        use InstrClass::*;
        // A divide nothing waits on but four integer adds (3 ns, one a ns on the
        // divider), as an unoptimized loop's stack traffic waits on its arithmetic:
        // with room for every add waiting, the divider's 1 ns an iteration; with four
        // entries, the next iteration's adds wait for this one's to start, and its
        // divide behind them (in order): two divides overlap, 1.5 ns and the issue.
        let mut ops = vec![op(&[FpDiv], &[], &[1])];
        for k in 0..4 {
            let mut add = op(&[IntAlu], &[(1, &[IntAlu])], &[10 + k]);
            add.holds = "i".into();
            ops.push(add);
        }
        let mut m = machine();
        m.window = Some(400.0);
        m.window_vector = Some(400.0);
        let unmeasured = once(&ops, &m).unwrap();
        assert!((unmeasured - 1.0).abs() < 1e-6, "{unmeasured}");
        m.window_waiting_integer = Some(64.0);
        let roomy = once(&ops, &m).unwrap();
        assert!((roomy - 1.0).abs() < 1e-6, "{roomy}");
        m.window_waiting_integer = Some(4.0);
        let full = once(&ops, &m).unwrap();
        assert!((1.5..=1.7).contains(&full), "{full}");
    }

    #[test]
    fn a_loop_of_more_reloaded_pairs_than_the_predictor_holds_waits_for_the_forwarding() {
        use InstrClass::*;
        // `n` integers each reached through a pointer loaded again before each access,
        // each incremented in its slot (a load forwarded from the last iteration's
        // store, an add, the store): renamed while the core's predictor holds every
        // pair (1 ns an iteration, the units' turns), each pair's 2 ns forwarding beyond
        // (2.5 ns with the add and the store; a Zen 5: 40 pairs, 7 cycles).
        let pairs = |n: u32| -> Vec<ScheduledOp> {
            (0..n)
                .flat_map(|k| {
                    let mut add = op(
                        &[ForwardReloaded, IntAlu],
                        &[(k, &[ForwardReloaded, IntAlu])],
                        &[100 + k],
                    );
                    add.holds = "i".into();
                    let mut store = op(&[Store], &[(100 + k, &[Store])], &[k]);
                    store.holds = "s".into();
                    [add, store]
                })
                .collect()
        };
        let mut m = machine();
        with_class(&mut m, "forward_reloaded", 2.0, 0.1);
        with_class(&mut m, "forward_int", 0.0, 0.1);
        m.forwarding_pairs = Some(4.0);
        let few = once(&pairs(4), &m).unwrap();
        let many = once(&pairs(5), &m).unwrap();
        // `augur predict --by loop` says so (cycle 0.25 ns: 8 cycles a pair).
        assert_eq!(unrenamed_pairs(&pairs(4), &m), "");
        assert!(
            unrenamed_pairs(&pairs(5), &m).contains("5 store-load pairs through reloaded pointers, more than the 4 the core renames: each waits 8.0 cycles"),
            "{}",
            unrenamed_pairs(&pairs(5), &m)
        );
        assert!((few - 1.0).abs() < 1e-6, "{few}");
        assert!((many - 2.5).abs() < 1e-6, "{many}");
        // A profile made before the predictor was measured renames them all.
        m.forwarding_pairs = None;
        m.class.remove("forward_reloaded");
        let old = once(&pairs(5), &m).unwrap();
        assert!((old - 1.25).abs() < 1e-6, "{old}");
    }

    #[test]
    fn a_load_pairs_with_each_store_that_may_have_written_it_last() {
        use InstrClass::*;
        // Two values read at the loop's top (block 0) and stored in each of three arms
        // (blocks 1-3): each load pairs with three stores. The first value read again
        // after its store in arm 1 pairs with that store alone.
        let load = |v: u32| op(&[ForwardReloaded], &[(v, &[ForwardReloaded])], &[10 + v]);
        let mut ops = vec![load(0), load(1)];
        for arm in 1..=3 {
            for v in [0, 1] {
                let mut store = op(&[Store], &[(10 + v, &[Store])], &[v]);
                store.block = arm;
                ops.push(store);
            }
        }
        let mut again = load(0);
        again.block = 1;
        ops.insert(4, again);
        assert_eq!(reloaded_pairs(&ops), 2 * 3 + 1);
    }

    #[test]
    fn an_inner_loop_runs_by_its_trips_and_a_rare_block_by_its_frequency() {
        use InstrClass::*;
        // An outer iteration: one divide of its own, an inner loop of one divide run
        // three times, a block of one divide run every other iteration: 1 + 3 + 0.5.
        let mut ops = vec![
            op(&[FpDiv], &[], &[1]),
            op(&[FpDiv], &[], &[2]),
            op(&[FpDiv], &[], &[3]),
        ];
        ops[1].inner = 12;
        ops[2].block = 1;
        let f = vec![None, Some(0.5)];
        let t = HashMap::from([(12, 3.0)]);
        let r = Repeats {
            block_frequency: &f,
            inner_trips: &t,
        };
        let ns = iteration_ns(&ops, &r, &machine()).unwrap();
        assert!((ns - 4.5).abs() < 1e-6, "{ns}");
    }

    #[test]
    fn a_counter_read_in_its_slot_takes_a_turn_for_each_access() {
        use InstrClass::*;
        // -O0's `addl $1, -4(%rbp)` closing each iteration, the counter's slot (value
        // 0) read twice for subscripts before it: three accesses of a slot the loop
        // stores, each taking its turn of `forward_int`'s throughput (1 ns: 3 ns an
        // iteration); at a tenth of that, the address pipes: the four accesses wait
        // for the slot's add together, three start in its cycle and one in the next.
        let ops = vec![
            op(&[Load], &[(0, &[ForwardInt])], &[1]),
            op(&[Load], &[(0, &[ForwardInt])], &[2]),
            op(&[Load, IntAlu, Store], &[(0, &[ForwardInt, IntAlu])], &[0]),
        ];
        for (turn, ns) in [(1.0, 3.0), (0.1, 0.5)] {
            let mut m = machine();
            m.class.insert(
                "forward_int".into(),
                augur_machine_profile::incore::ClassCost {
                    latency_ns: 0.0,
                    throughput_ns: turn,
                    beside_add_ns: None,
                },
            );
            let got = once(&ops, &m).unwrap();
            assert!((got - ns).abs() < 1e-6, "turn {turn}: {got}");
        }
    }

    #[test]
    fn a_class_the_machine_lacks_leaves_the_loop_to_the_formulas() {
        let ops = vec![op(&[InstrClass::FpSqrt], &[], &[0])];
        assert!(once(&ops, &machine()).is_none());
    }

    #[test]
    fn each_trip_of_an_inner_loop_carries_its_own_element_to_the_next_outer_iteration() {
        // `do j; do k = 1, 3; f(k) = f(k) + x; end do; end do`: the inner loop's load
        // and store of f(k) name one element per trip (stride 8). Three chains side by
        // side, each a forwarding and an add per iteration over j; one name for all
        // three trips would run them one after the other.
        use augur_program_profile::compiled::WalkedElement;
        let m = machine();
        let element = WalkedElement {
            value: 1,
            base: 2,
            offset: 0,
            stride: 8,
        };
        let mut load_add = op(
            &[InstrClass::Load, InstrClass::FpAdd],
            &[(1, &[InstrClass::Forward, InstrClass::FpAdd])],
            &[3],
        );
        let mut store = op(&[InstrClass::Store], &[(3, &[])], &[1]);
        for o in [&mut load_add, &mut store] {
            o.inner = 7;
            o.elements = vec![element];
        }
        let ops = vec![load_add, store];
        let trips = HashMap::from([(7, 3.0)]);
        let r = Repeats {
            block_frequency: &[],
            inner_trips: &trips,
        };
        let chain = 2.0 + 0.75;
        let walked = iteration_ns(&ops, &r, &m).unwrap();
        assert!(
            (walked - chain).abs() < 0.3,
            "{walked} against one chain {chain}"
        );
        let one_name: Vec<ScheduledOp> = ops
            .iter()
            .cloned()
            .map(|mut o| {
                o.elements.clear();
                o
            })
            .collect();
        let serial = iteration_ns(&one_name, &r, &m).unwrap();
        assert!(serial > 2.5 * chain, "{serial}");
    }
}
