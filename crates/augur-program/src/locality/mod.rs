//! Program locality: reuse-distance histograms of the affine loop nests of a
//! measured run, the machine-independent half of the memory term (issue 6).
//!
//! After the counting run, [`analyze_locality`] takes every program unit,
//! extracts its affine loop nests ([`augur_locality::extract`]) and streams
//! the address stream of one execution of each nest, in program order,
//! through one reuse-distance analyzer per unit, so reuse between the nests
//! of a unit is seen. Symbolic bounds get values in this order:
//!
//! * named constants (PARAMETER) take their declared value;
//! * a name `n` that ends a counted loop `DO i = c, n ± k` (step 1, `c` a
//!   literal) whose measured mean trip count `t` is an integer gets the value
//!   `c + t − 1 ∓ k`, provided every such loop of the unit agrees and `n` is
//!   not a loop index ([`LocalityProfile::assumed_values`]); this also gives
//!   the extents of explicit-shape dummy arrays `A(N, N)`;
//! * a loop whose bounds still cannot be evaluated runs its measured mean
//!   trip count (the nest is then marked `approximate`).
//!
//! A nest that ran `E` times (its outermost loop was entered `E` times) is
//! analyzed once, on the assumption that every execution has the same
//! address pattern. Its histograms keep apart the accesses that *enter* the
//! execution (the first use of each line in it: cold, or reused from what ran
//! before) from the reuse inside it, and the distinct lines of one execution
//! (its footprint), so that [`misses`] can price executions after the first:
//! inside reuse as measured, entering lines at a distance of one footprint.
//!
//! Cost: the stream is enumerated, never stored; the analyzer's memory is
//! bounded by the distinct lines it tracks (SHARDS spatial sampling above
//! 2^21 lines). A nest with more than [`STREAM_BUDGET`] accesses per
//! execution is analyzed by a prefix of its outermost loop (the first
//! iteration, then the following ones up to the budget, scaled to all of
//! them; a triangular nest, whose inner bounds move with the outer index, by
//! as many iterations from the middle of its range, where an outer iteration
//! does the mean work), and one that still streams more than [`SAMPLE_ABOVE`] is also
//! sampled spatially at a fixed rate from the start. The time and the
//! analyzer's peak memory are recorded.
//!
//! Beyond DO nests: whole-array statements, sections, WHERE masks and the
//! arguments of array intrinsics are implicit loop nests (`array_syntax`
//! nests, [`augur_locality::extract`]), addressed with the shapes the
//! instrumented run records for allocatable, pointer and assumed-shape
//! arrays ([`attach_run`]); the elements and sections a loop passes to its
//! calls are read (and written) there once per call as the procedure's dummies
//! cover them ([`ExtractOptions::callees`]); references in loops whose subscripts are not
//! affine are probed by the run, their addresses sampled spatially (SHARDS,
//! a bounded buffer whose rate halves when full) and replayed into one reuse
//! histogram per reference, scaled to its exact executions
//! ([`LocalityProfile::sampled_refs`]).

mod run_records;
mod sampled;

pub use run_records::{read_nest_values, read_shape_slots, runtime_shapes};
pub use sampled::{add_sampled, read_samples, sampled_histograms, AddressSamples};

use crate::instrument::Plan;
use augur_ir::{BinOp, Expr, ExprKind, LoopId, LoopKind, Program, StmtKind, Unit};
use augur_locality::classes::{classes_reached, ClassReuse};
use augur_locality::extract::{
    extract_root, extract_unit, DummyUse, ExtractOptions, ExtractedNest, UnitFacts,
};
use augur_locality::{Histogram, InnerStride, Node, ReuseAnalyzer, ReuseConfig};
use augur_program_profile::locality::*;
use augur_program_profile::ProgramProfile;
use std::collections::{BTreeMap, HashMap};
use std::time::Instant;

/// Streamed accesses of a nest above which it is also sampled spatially
/// (SHARDS, fixed rate) so that about [`SAMPLE_TARGET`] are measured: a
/// nest whose outermost loop is too short for a prefix (two time steps
/// around long inner loops) would otherwise cost seconds of analysis.
pub const SAMPLE_ABOVE: u64 = 4 * STREAM_BUDGET;
/// Measured accesses aimed at when a nest is sampled.
pub const SAMPLE_TARGET: u64 = STREAM_BUDGET / 2;

/// Value sets of a nest analyzed separately at most (with more, one set stands for each
/// group of sets of like size, [`representative_sets`]); the sets share one nest's
/// streaming budget.
pub const MAX_VALUE_SETS: usize = 32;

/// The runtime shape of one array of one unit.
#[derive(Debug, Clone)]
pub struct UnitNests {
    /// Index of the unit in the program (and in the profile).
    pub unit: usize,
    /// Its nests that ran, in source order.
    pub nests: Vec<ExtractedNest>,
    /// Executions of each nest.
    pub executions: Vec<f64>,
    /// The loops that did not make a nest, with the reason.
    pub skipped: Vec<augur_locality::extract::SkippedLoop>,
    /// Values inferred from trip counts: name, value, loop line.
    pub assumed: Vec<(String, i64, u32)>,
}

/// Extracts the affine nests of every unit that ran, with the measured trip
/// counts and the values inferred from them (see the module docs).
pub fn extract_nests(program: &Program, profile: &ProgramProfile) -> Vec<UnitNests> {
    extract_nests_with(program, profile, &[], &[])
}

/// [`extract_nests`] with the runtime shapes of each unit's arrays (indexed
/// like the units; missing units have none) and the value sets recorded nests ran
/// with (per unit index): such a nest is extracted once per value set (at most
/// [`MAX_VALUE_SETS`], [`representative_sets`]), each with the entries it stands for, and
/// the entries the run did not record shared among them in proportion.
pub fn extract_nests_with(
    program: &Program,
    profile: &ProgramProfile,
    shapes: &[HashMap<String, Vec<(i64, i64)>>],
    values: &[(usize, NestValues)],
) -> Vec<UnitNests> {
    let mut out = Vec::new();
    let names = augur_ir::call_chains::ProcedureNames::new(&program.units);
    let written = augur_ir::call_chains::written_dummies(&program.units, &names);
    for (ui, unit) in program.units.iter().enumerate() {
        let Some(up) = profile.units.get(ui) else {
            continue;
        };
        if unit.loops.is_empty() {
            continue;
        }
        let trips: HashMap<u32, f64> = up
            .loops
            .iter()
            .filter_map(|l| l.mean_trips.map(|t| (l.id, t)))
            .collect();
        let entries: HashMap<u32, f64> = up
            .loops
            .iter()
            .filter_map(|l| l.entries.map(|e| (l.id, e)))
            .collect();
        let assumed = infer_values(unit, &trips);
        let opts = ExtractOptions {
            values: assumed.iter().map(|(n, v, _)| (n.clone(), *v)).collect(),
            trips,
            align: 4096,
            shapes: shapes.get(ui).cloned().unwrap_or_default(),
            every: guarded_loops(up),
            callees: dummy_uses(program, ui, &names, &written),
        };
        let ex = extract_unit(unit, &opts);
        // Computed once for the unit's nests that are extracted again per value set.
        let facts = std::cell::OnceCell::new();
        let ran = |id: u32| entries.get(&id).copied().unwrap_or(0.0);
        let mut nests = Vec::new();
        let mut executions = Vec::new();
        for n in ex.nests {
            let e = ran(n.root);
            if e <= 0.0 {
                continue;
            }
            let sets = values
                .iter()
                .find(|(u, v)| *u == ui && v.loop_id == n.root)
                .map(|(_, v)| v);
            let Some(nv) = sets else {
                executions.push(e);
                nests.push(n);
                continue;
            };
            let with_set = |set: &ValueSet| {
                let mut with = opts.clone();
                for (name, v) in nv.vars.iter().zip(&set.values) {
                    with.values.insert(name.clone(), *v);
                }
                let facts = facts.get_or_init(|| UnitFacts::of(unit));
                extract_root(unit, facts, &with, LoopId(n.root)).unwrap_or_else(|| n.clone())
            };
            let extracted: Vec<ExtractedNest> = nv.sets.iter().map(with_set).collect();
            let work: Vec<f64> = extracted
                .iter()
                .map(|m| m.nest.estimated_accesses())
                .collect();
            let recorded: u64 = nv.sets.iter().map(|s| s.count).sum::<u64>().max(1);
            for (i, runs) in representative_sets(&nv.sets, &work) {
                executions.push(e * runs / recorded as f64);
                nests.push(extracted[i].clone());
            }
        }
        let skipped = ex.skipped.into_iter().filter(|s| ran(s.id) > 0.0).collect();
        out.push(UnitNests {
            unit: ui,
            nests,
            executions,
            skipped,
            assumed,
        });
    }
    out
}

/// The value sets of a nest analyzed, at most [`MAX_VALUE_SETS`], each with the entries
/// it stands for (`work`: each set's accesses an entry). With no more sets than that,
/// each its own; else the sets ordered by their work an entry (their size) and cut into
/// groups of equal total work, each priced as its heaviest set run as many times as
/// carries the group's work: a program that sweeps sizes (an FFT from 2 to 2^20 points,
/// thousands of entries at the small ones, two at the largest) keeps its large cases,
/// where the frequent sets alone would price every size as the smallest.
fn representative_sets(sets: &[ValueSet], work: &[f64]) -> Vec<(usize, f64)> {
    let total: f64 = sets.iter().zip(work).map(|(s, w)| s.count as f64 * w).sum();
    if sets.len() <= MAX_VALUE_SETS || !total.is_finite() || total <= 0.0 {
        return (0..sets.len().min(MAX_VALUE_SETS))
            .map(|i| (i, sets[i].count as f64))
            .collect();
    }
    let mut order: Vec<usize> = (0..sets.len()).collect();
    order.sort_by(|&a, &b| work[a].total_cmp(&work[b]));
    let mut out: Vec<(usize, f64)> = vec![];
    let (mut group_work, mut heaviest, mut before) = (0.0, None::<usize>, 0.0);
    for (k, &i) in order.iter().enumerate() {
        let w = sets[i].count as f64 * work[i];
        group_work += w;
        if heaviest.map_or(true, |h| w > sets[h].count as f64 * work[h]) {
            heaviest = Some(i);
        }
        let cut = ((before + group_work) / total * MAX_VALUE_SETS as f64).floor();
        let last = k + 1 == order.len();
        if cut > (before / total * MAX_VALUE_SETS as f64).floor() || last {
            if let Some(h) = heaviest.filter(|&h| work[h] > 0.0) {
                out.push((h, group_work / work[h]));
            }
            before += group_work;
            group_work = 0.0;
            heaviest = None;
        }
    }
    out
}

/// What each procedure that unit `ui` calls (by CALL) does with its dummy arguments, by
/// the name it is called by ([`ExtractOptions::callees`]).
fn dummy_uses(
    program: &Program,
    ui: usize,
    names: &augur_ir::call_chains::ProcedureNames,
    written: &[Vec<bool>],
) -> HashMap<String, Vec<DummyUse>> {
    let mut out = HashMap::new();
    for st in &program.units[ui].stmts {
        let StmtKind::Call { name, .. } = &st.kind else {
            continue;
        };
        let key = name.to_lowercase();
        if out.contains_key(&key) {
            continue;
        }
        let Some(c) = names.resolve(ui, &key) else {
            continue;
        };
        let callee = &program.units[c];
        let uses = callee
            .dummies
            .iter()
            .enumerate()
            .map(|(k, d)| {
                let dims = callee.symbol(d).map_or(&[][..], |s| &s.dims[..]);
                DummyUse {
                    array: !dims.is_empty(),
                    elements: dims.iter().map(|x| x.extent).product(),
                    written: written
                        .get(c)
                        .and_then(|w| w.get(k))
                        .copied()
                        .unwrap_or(true),
                }
            })
            .collect();
        out.insert(key, uses);
    }
    out
}

/// `name + offset` when `e` is a variable plus or minus an integer literal.
fn name_plus(e: &Expr) -> Option<(String, i64)> {
    let lit = |e: &Expr| match &e.kind {
        ExprKind::Const { value: Some(v), .. } => Some(*v),
        _ => None,
    };
    match &e.kind {
        ExprKind::Var(v) if v.rank == 0 && !v.constant => Some((v.name.clone(), 0)),
        ExprKind::Binary(op @ (BinOp::Add | BinOp::Sub), a, b) => {
            let (n, k) = name_plus(a)?;
            let c = lit(b)?;
            Some((n, if *op == BinOp::Add { k + c } else { k - c }))
        }
        _ => None,
    }
}

/// Values of loop-ending names from integral mean trip counts (module docs).
fn infer_values(unit: &Unit, trips: &HashMap<u32, f64>) -> Vec<(String, i64, u32)> {
    let indices: Vec<String> = unit
        .loops
        .iter()
        .filter_map(|l| l.var.as_ref().map(|v| v.to_lowercase()))
        .collect();
    let mut found: BTreeMap<String, Option<(i64, u32)>> = BTreeMap::new();
    for st in &unit.stmts {
        let StmtKind::Do { loop_id, exprs } = &st.kind else {
            continue;
        };
        let l = &unit.loops[loop_id.0 as usize];
        if l.kind != LoopKind::Counted || exprs.len() < 2 {
            continue;
        }
        let Some(&t) = trips.get(&loop_id.0) else {
            continue;
        };
        if t < 1.0 || (t - t.round()).abs() > 1e-9 {
            continue;
        }
        let unit_step = match exprs.get(2) {
            None => true,
            Some(e) => matches!(e.kind, ExprKind::Const { value: Some(1), .. }),
        };
        let ExprKind::Const {
            value: Some(start), ..
        } = exprs[0].kind
        else {
            continue;
        };
        let Some((name, k)) = name_plus(&exprs[1]) else {
            continue;
        };
        if !unit_step || indices.contains(&name) {
            continue;
        }
        if unit.symbol(&name).is_some_and(|s| s.value.is_some()) {
            continue;
        }
        let v = start + t.round() as i64 - 1 - k;
        let line = l.span.start.line;
        match found.get(&name) {
            None => {
                found.insert(name, Some((v, line)));
            }
            Some(Some((old, _))) if *old != v => {
                found.insert(name, None);
            }
            _ => {}
        }
    }
    found
        .into_iter()
        .filter_map(|(n, x)| x.map(|(v, line)| (n, v, line)))
        .collect()
}

fn has_refs(nodes: &[Node]) -> bool {
    nodes.iter().any(|n| match n {
        Node::Ref(_) => true,
        Node::Loop(l) => has_refs(&l.body),
    })
}

/// Accesses per array of one execution of a nest: `.0` all of them, `.1` those of
/// references that sweep less than [`STREAM_STRIDE_BYTES`] per iteration of their
/// innermost loop (a nonzero stride: sequential streams a prefetcher follows), `.2`
/// those that sweep [`STREAM_STRIDE_BYTES`] or more (strided sweeps), `.3` the bytes of
/// lines they walk through (each access at most a line: [`PhaseAccesses::lines`]).
#[derive(Clone, Copy, Default)]
struct AccessCount(u64, u64, u64, u64);

/// The loops of `u` that an IF guards, each with how many passes of control there are
/// for one that enters it (rounded): its parent's iterations over its entries, where it
/// enters on fewer than three in four (an output sweep every 50 time steps: 50). A loop
/// entered on more runs on every pass.
fn guarded_loops(u: &augur_program_profile::UnitProfile) -> HashMap<u32, u64> {
    u.loops
        .iter()
        .filter_map(|l| {
            let parent = u.loops.iter().find(|p| Some(p.id) == l.parent)?;
            let share = l.entries? / parent.iterations.filter(|i| *i > 0.0)?;
            (share > 0.0 && share < 0.75).then(|| (l.id, (1.0 / share).round().max(1.0) as u64))
        })
        .collect()
}

/// Where [`count_accesses`] adds: the nest's counts per array, and those of each phase
/// (a loop of `phases`, by identity) when the access is inside one.
struct Counter<'a> {
    out: &'a mut [AccessCount],
    phases: Vec<*const augur_locality::Loop>,
    by_phase: Vec<Vec<AccessCount>>,
    current: Option<usize>,
    passes: HashMap<*const augur_locality::Loop, u64>,
}

impl Counter<'_> {
    fn add(&mut self, r: &augur_locality::Ref, n: u64, bytes: u64) {
        let add = |c: &mut AccessCount| {
            c.0 += n;
            c.3 += n * bytes.min(LINE_BYTES);
            if bytes > 0 && bytes < STREAM_STRIDE_BYTES {
                c.1 += n;
            } else if bytes >= STREAM_STRIDE_BYTES {
                c.2 += n;
            }
        };
        if let Some(c) = self.out.get_mut(r.array as usize) {
            add(c);
        }
        if let Some(c) = self
            .current
            .and_then(|p| self.by_phase.get_mut(p))
            .and_then(|v| v.get_mut(r.array as usize))
        {
            add(c);
        }
    }

    /// Exact accesses of `nodes` at loop indices `idx`, the innermost stepping by `step`.
    fn go(&mut self, nest: &augur_locality::Nest, nodes: &[Node], idx: &mut Vec<i64>, step: i64) {
        for n in nodes {
            if let Node::Loop(l) = n {
                let pass = self.passes.entry(l as *const _).or_default();
                *pass += 1;
                if (*pass - 1) % l.every.max(1) != 0 {
                    continue;
                }
            }
            match n {
                Node::Ref(r) => {
                    let bytes = idx
                        .len()
                        .checked_sub(1)
                        .map_or(0, |d| stride_at(nest, r, d, step));
                    self.add(r, 1, bytes);
                }
                Node::Loop(l) => {
                    let (lo, hi) = (l.lower.eval(idx), l.upper.eval(idx));
                    let trips = if l.step > 0 && hi >= lo {
                        (hi - lo) / l.step + 1
                    } else if l.step < 0 && hi <= lo {
                        (lo - hi) / -l.step + 1
                    } else {
                        0
                    };
                    if trips <= 0 || !has_refs(&l.body) {
                        continue;
                    }
                    let outer = self.current;
                    if let Some(p) = self.phases.iter().position(|&x| std::ptr::eq(x, l)) {
                        self.current = Some(p);
                    }
                    let d = idx.len();
                    if l.body.iter().all(|b| matches!(b, Node::Ref(_))) {
                        for b in &l.body {
                            if let Node::Ref(r) = b {
                                self.add(r, trips as u64, stride_at(nest, r, d, l.step));
                            }
                        }
                    } else {
                        idx.push(lo);
                        for t in 0..trips {
                            idx[d] = lo + t * l.step;
                            self.go(nest, &l.body, idx, l.step);
                        }
                        idx.pop();
                    }
                    self.current = outer;
                }
            }
        }
    }
}

/// Exact accesses per array of one execution of `nodes`, without enumerating
/// innermost loops (a guarded loop on its share of the passes, [`augur_locality::Loop::every`]).
fn count_accesses(nest: &augur_locality::Nest, nodes: &[Node], out: &mut [AccessCount]) {
    count_by_phase(nest, nodes, out, vec![]);
}

/// [`count_accesses`], and the accesses per array inside each loop of `phases`.
fn count_by_phase(
    nest: &augur_locality::Nest,
    nodes: &[Node],
    out: &mut [AccessCount],
    phases: Vec<*const augur_locality::Loop>,
) -> Vec<Vec<AccessCount>> {
    let arrays = out.len();
    let mut c = Counter {
        out,
        by_phase: vec![vec![AccessCount::default(); arrays]; phases.len()],
        phases,
        current: None,
        passes: HashMap::new(),
    };
    c.go(nest, nodes, &mut Vec::new(), 0);
    c.by_phase
}

/// The phases of an extracted nest: the loops that the first loop from its root holding
/// two or more loops directly runs one after another, with their lines, where the
/// unit's loops (`up`) and the nest's loops agree on them (the same descent, as many
/// loops); none otherwise. The predictor combines operations and transfers phase by
/// phase there.
fn phase_loops<'a>(
    up: &augur_program_profile::UnitProfile,
    n: &'a ExtractedNest,
) -> Vec<(u32, &'a augur_locality::Loop)> {
    let children = |p: u32| -> Vec<&augur_program_profile::LoopProfile> {
        up.loops.iter().filter(|c| c.parent == Some(p)).collect()
    };
    let loops_in = |nodes: &'a [Node]| -> Vec<&'a augur_locality::Loop> {
        nodes
            .iter()
            .filter_map(|x| match x {
                Node::Loop(l) => Some(l),
                Node::Ref(_) => None,
            })
            .collect()
    };
    let top = loops_in(&n.nest.body);
    let (Some(mut holder), [root]) = (up.loops.iter().find(|l| l.id == n.root), top.as_slice())
    else {
        return vec![];
    };
    let mut at: &augur_locality::Loop = root;
    loop {
        let (ir, nest) = (children(holder.id), loops_in(&at.body));
        match (ir.as_slice(), nest.as_slice()) {
            ([one], [inner]) => (holder, at) = (one, inner),
            (ir, nest) if ir.len() >= 2 && ir.len() == nest.len() => {
                return ir
                    .iter()
                    .map(|l| l.line)
                    .zip(nest.iter().copied())
                    .collect()
            }
            _ => return vec![],
        }
    }
}

/// The step per iteration below which a reference is a sequential stream the hardware
/// prefetchers follow: two lines. A step between one and two lines still touches most
/// lines of its pass in order (an array of 9-element records read one field at a time:
/// 72 bytes), which the streamers of the second level fetch ahead as they do a unit
/// stride: a lattice-Boltzmann program updating three such arrays on a Xeon guest is
/// priced 28.6% too slow with them strided, 6.0% too fast with them streamed. A step
/// of two lines touches every other line only, and the
/// prefetchers' adjacent lines double its traffic: strided.
pub const STREAM_STRIDE_BYTES: u64 = 2 * LINE_BYTES;

/// The bytes reference `r`, in the loop at `depth` stepping by `step`, moves per
/// iteration (0 for a reference the loop does not move).
fn stride_at(nest: &augur_locality::Nest, r: &augur_locality::Ref, depth: usize, step: i64) -> u64 {
    let Some(a) = nest.arrays.get(r.array as usize) else {
        return 0;
    };
    a.byte_stride(r, depth).saturating_mul(step).unsigned_abs()
}

/// Accesses streamed per nest at most (about): above, only a prefix of the
/// outermost loop's iterations is analyzed.
pub const STREAM_BUDGET: u64 = 4_000_000;

/// How a large nest is analyzed by a window of its outermost iterations: a prefix,
/// or for a triangular nest a window from the middle of the range.
struct Prefix {
    /// The window's first outer iteration alone.
    first_nest: augur_locality::Nest,
    /// Its accesses.
    first: u64,
    /// The next outer iterations analyzed.
    rest_nest: augur_locality::Nest,
    /// Their accesses.
    rest_streamed: u64,
    /// Accesses of all outer iterations but the window's first.
    rest_total: u64,
}

/// A prefix plan when `total` exceeds `budget` accesses and the outermost loop has
/// constant bounds.
fn plan_prefix(nest: &augur_locality::Nest, total: u64, budget: u64) -> Option<Prefix> {
    if total <= budget || nest.body.len() != 1 {
        return None;
    }
    let Node::Loop(root) = &nest.body[0] else {
        return None;
    };
    if !root.lower.is_constant() || !root.upper.is_constant() || root.step == 0 {
        return None;
    }
    let (lo, hi, st) = (root.lower.constant, root.upper.constant, root.step);
    let trips = if st > 0 {
        (hi - lo) / st + 1
    } else {
        (lo - hi) / -st + 1
    };
    if trips < 3 {
        return None;
    }
    let with_bounds = |a: i64, b: i64| {
        let mut n = nest.clone();
        if let Node::Loop(l) = &mut n.body[0] {
            l.lower = augur_locality::Affine::constant(a);
            l.upper = augur_locality::Affine::constant(b);
        }
        n
    };
    let count = |n: &augur_locality::Nest| {
        let mut per = vec![AccessCount::default(); n.arrays.len()];
        count_accesses(n, &n.body, &mut per);
        per.iter().map(|c| c.0).sum::<u64>()
    };
    // A triangular nest's first outer iterations run short inner loops over a small
    // part of its arrays: its window starts where an outer iteration does the mean
    // work, the middle of the range for bounds that move linearly.
    let (start, more) = if bounds_follow_root(&root.body) {
        let per_iter = total as f64 / trips as f64;
        let more = ((budget as f64 / per_iter.max(1.0)).ceil() as i64).clamp(1, trips - 1);
        let middle = (trips - 1) / 2 - more / 2 - 1;
        (middle.clamp(0, (trips - 1 - more).max(0)), more)
    } else {
        let first = count(&with_bounds(lo, lo));
        let per_iter = (total - first) as f64 / (trips - 1) as f64;
        let more = ((budget.saturating_sub(first)) as f64 / per_iter.max(1.0)).ceil() as i64;
        (0, more.clamp(1, trips - 1))
    };
    if more >= trips - 1 {
        return None;
    }
    let at = lo + start * st;
    let first_nest = with_bounds(at, at);
    let first = count(&first_nest);
    let rest_total = total.saturating_sub(first);
    let rest_nest = with_bounds(at + st, at + more * st);
    let rest_streamed = count(&rest_nest);
    Some(Prefix {
        first_nest,
        first,
        rest_nest,
        rest_streamed,
        rest_total,
    })
}

/// Whether a loop in `body` (inside a nest's outermost loop) has a bound that moves with
/// the outermost loop's index: a triangular nest (`DO I = 1, N; DO J = 1, I`).
fn bounds_follow_root(body: &[Node]) -> bool {
    body.iter().any(|n| match n {
        Node::Loop(l) => {
            [&l.lower, &l.upper]
                .iter()
                .any(|b| b.coeffs.first().is_some_and(|&c| c != 0))
                || bounds_follow_root(&l.body)
        }
        Node::Ref(_) => false,
    })
}

/// Merges the histograms of nest `scratch + k` into nest `k`, scaled.
fn merge_scaled(rep: &mut augur_locality::ReuseReport, scratch: u32, scale: &[(usize, f64)]) {
    let scaled = |h: &Histogram, f: f64| Histogram {
        bins: h
            .bins
            .iter()
            .map(|&w| (w as f64 * f).round() as u64)
            .collect(),
        cold: (h.cold as f64 * f).round() as u64,
    };
    let extra: Vec<_> = rep
        .histograms
        .iter()
        .filter(|h| h.nest >= scratch)
        .cloned()
        .collect();
    rep.histograms.retain(|h| h.nest < scratch);
    for x in extra {
        let k = (x.nest - scratch) as usize;
        let f = scale.iter().find(|s| s.0 == k).map_or(1.0, |s| s.1);
        let (h, e, w, st) = (
            scaled(&x.histogram, f),
            scaled(&x.entering, f),
            scaled(&x.writebacks, f),
            scaled(&x.stores, f),
        );
        match rep
            .histograms
            .iter_mut()
            .find(|y| y.nest as usize == k && y.array == x.array)
        {
            Some(y) => {
                y.histogram.merge(&h);
                y.entering.merge(&e);
                y.writebacks.merge(&w);
                y.stores.merge(&st);
            }
            None => rep
                .histograms
                .push(augur_locality::reuse::NestArrayHistogram {
                    nest: k as u32,
                    array: x.array,
                    histogram: h,
                    entering: e,
                    writebacks: w,
                    stores: st,
                }),
        }
    }
}

/// Streams every access of `nest` into the line and the page analyzers (and the
/// class analyzer, where there is one); nothing once Ctrl-C or SIGTERM came (the
/// analysis is abandoned: `analyze` returns `Interrupted`).
fn run_all(
    lines: &mut ReuseAnalyzer,
    pages: &mut ReuseAnalyzer,
    classes: &mut Option<ClassReuse>,
    nest: &augur_locality::Nest,
) -> Result<u64, augur_locality::nest::NestError> {
    if augur_toolchain::interrupt::cancelled() {
        return Ok(0);
    }
    match classes {
        Some(c) => nest.for_each_access(|a| {
            lines.access(a);
            pages.access(a);
            c.access(a);
        }),
        None => nest.for_each_access(|a| {
            lines.access(a);
            pages.access(a);
        }),
    }
}

/// Runs the locality analysis of a measured program (see the module docs).
pub fn analyze_locality(program: &Program, profile: &ProgramProfile) -> LocalityProfile {
    analyze_locality_with(program, profile, &[], &[])
}

/// [`analyze_locality`] with runtime shapes per unit (see
/// [`extract_nests_with`]).
pub fn analyze_locality_with(
    program: &Program,
    profile: &ProgramProfile,
    shapes: &[HashMap<String, Vec<(i64, i64)>>],
    values: &[(usize, NestValues)],
) -> LocalityProfile {
    let t0 = Instant::now();
    let mut out = LocalityProfile {
        line_bytes: LINE_BYTES,
        ..Default::default()
    };
    record_run_inputs(&mut out, profile, shapes, values);
    for un in extract_nests_with(program, profile, shapes, values) {
        analyze_unit(&mut out, profile, &un);
    }
    out.seconds = t0.elapsed().as_secs_f64();
    out
}

/// The runtime shapes and the nest values the analysis used, by unit name.
fn record_run_inputs(
    out: &mut LocalityProfile,
    profile: &ProgramProfile,
    shapes: &[HashMap<String, Vec<(i64, i64)>>],
    values: &[(usize, NestValues)],
) {
    for (ui, sh) in shapes.iter().enumerate() {
        let Some(up) = profile.units.get(ui) else {
            continue;
        };
        let mut names: Vec<&String> = sh.keys().collect();
        names.sort();
        for n in names {
            out.runtime_shapes.push(RuntimeShape {
                unit: up.name.clone(),
                array: n.clone(),
                bounds: sh[n].iter().map(|&(l, e)| [l, e]).collect(),
            });
        }
    }
    for (ui, nv) in values {
        if let Some(up) = profile.units.get(*ui) {
            let mut nv = nv.clone();
            nv.unit = up.name.clone();
            out.nest_values.push(nv);
        }
    }
}

/// The most page-offset classes a walk may cycle through for its unit to be followed
/// class by class: a stride of a multiple of four lines, whose lines fall in a quarter
/// of the first level's sets or fewer, where the lines other walks bring in between two
/// uses of its line move its price most (a walk over half of the classes or more finds
/// at most half of them outside its classes); the others are not worth the analysis.
const FOLLOWED_CLASSES: u64 = 16;

/// True when a nest of the unit walks an array along its innermost loop at a stride of
/// two lines or more that cycles through [`FOLLOWED_CLASSES`] of a page's offset classes
/// or fewer: the walks whose sets [`ClassReuse`] follows.
fn walks_strided(un: &UnitNests) -> bool {
    un.nests.iter().any(|n| {
        n.nest.inner_strides().unwrap_or_default().iter().any(|s| {
            s.stride_bytes >= 2 * LINE_BYTES
                && classes_reached(s.stride_bytes, LINE_BYTES, PAGE_BYTES) <= FOLLOWED_CLASSES
        })
    })
}

/// The analyzers of one unit's address stream.
struct UnitStream {
    /// Reuse at line granularity.
    lines: ReuseAnalyzer,
    /// The same stream at page granularity, for the TLB term.
    pages: ReuseAnalyzer,
    /// The same stream by page-offset class, for units with a walk [`walks_strided`]
    /// follows (the sets such a walk reaches).
    classes: Option<ClassReuse>,
    /// Nest ids from `scratch` on hold the later outer iterations of a nest analyzed
    /// by prefix, before they are scaled and merged.
    scratch: u32,
    /// The scale of each nest analyzed by prefix, by nest index.
    scale: Vec<(usize, f64)>,
}

impl UnitStream {
    /// Streams nest `k` (`total` accesses) within `budget`: whole, or by a prefix of
    /// its outermost loop, sampled spatially when it still streams too much. Returns
    /// the accesses streamed and whether the nest could be enumerated.
    fn stream(
        &mut self,
        k: usize,
        nest: &augur_locality::Nest,
        total: u64,
        budget: u64,
    ) -> (u64, Result<u64, augur_locality::nest::NestError>) {
        let (an, pn, cn) = (&mut self.lines, &mut self.pages, &mut self.classes);
        let scratch = self.scratch;
        let plan = plan_prefix(nest, total, budget);
        let streamed = plan.as_ref().map_or(total, |p| p.first + p.rest_streamed);
        if streamed > budget * (SAMPLE_ABOVE / STREAM_BUDGET) {
            let target = budget * SAMPLE_TARGET / STREAM_BUDGET;
            let shift = (streamed / target.max(1)).max(1).ilog2() + 1;
            an.sample_at_most(shift);
            pn.sample_at_most(shift.saturating_sub(3));
            if let Some(c) = cn.as_mut() {
                c.sample_at_most(shift);
            }
        }
        an.set_nest(k as u32);
        pn.set_nest(k as u32);
        if let Some(c) = cn.as_mut() {
            c.set_nest(k as u32);
        }
        let ran = match &plan {
            None => run_all(an, pn, cn, nest),
            Some(p) => run_all(an, pn, cn, &p.first_nest).and_then(|_| {
                an.attribute_to(scratch + k as u32);
                pn.attribute_to(scratch + k as u32);
                if let Some(c) = cn.as_mut() {
                    c.attribute_to(scratch + k as u32);
                }
                run_all(an, pn, cn, &p.rest_nest)
            }),
        };
        if let Some(p) = &plan {
            let f = p.rest_total as f64 / p.rest_streamed.max(1) as f64;
            self.scale.push((k, f));
            // The lines still dirty at the end of the prefix would sit under
            // the lines of the outer iterations left out before the next use.
            let rest = an.entering_lines(scratch + k as u32) as f64;
            let extra = ((f - 1.0).max(0.0) * rest) as u64;
            an.close_dirty(&[k as u32, scratch + k as u32], extra);
        }
        (streamed, ran)
    }
}

/// Streams the nests of one unit, in program order, through one line and one page
/// analyzer, and adds them with their histograms to `out`.
fn analyze_unit(out: &mut LocalityProfile, profile: &ProgramProfile, un: &UnitNests) {
    let up = &profile.units[un.unit];
    let (uname, file) = (up.name.clone(), up.file.clone());
    for (name, value, line) in &un.assumed {
        out.assumed_values.push(AssumedValue {
            unit: uname.clone(),
            name: name.clone(),
            value: *value,
            line: *line,
        });
    }
    for s in &un.skipped {
        out.skipped_loops.push(SkippedLoop {
            unit: uname.clone(),
            file: file.clone(),
            line: s.line,
            reason: s.reason.clone(),
        });
    }
    if un.nests.is_empty() {
        return;
    }
    let mut stream = UnitStream {
        lines: ReuseAnalyzer::new(ReuseConfig {
            line_bytes: LINE_BYTES,
            ..Default::default()
        }),
        // Sampled 8 times less (a page holds 64 lines, so far fewer distinct pages
        // are tracked).
        pages: ReuseAnalyzer::new(ReuseConfig {
            line_bytes: PAGE_BYTES,
            ..Default::default()
        }),
        classes: walks_strided(un).then(|| {
            ClassReuse::new(
                ReuseConfig {
                    line_bytes: LINE_BYTES,
                    ..Default::default()
                },
                PAGE_BYTES,
            )
        }),
        scratch: un.nests.len() as u32,
        scale: Vec::new(),
    };
    let base = out.nests.len();
    let mut pos: Vec<Option<usize>> = vec![None; un.nests.len()];
    for (k, (n, &e)) in un.nests.iter().zip(&un.executions).enumerate() {
        // A nest analyzed once per value set shares one nest's budget among them.
        let copies = un.nests.iter().filter(|m| m.root == n.root).count().max(1) as u64;
        let budget = (STREAM_BUDGET / copies).max(STREAM_BUDGET / 16);
        let first_copy = un.nests.iter().position(|m| m.root == n.root) == Some(k);
        for r in n.non_affine.iter().filter(|_| first_copy) {
            out.non_affine.push(NonAffineRef {
                unit: uname.clone(),
                file: file.clone(),
                line: r.line,
                array: r.array.clone(),
                reason: r.reason.clone(),
            });
        }
        let mut per_array = vec![AccessCount::default(); n.nest.arrays.len()];
        let phases = phase_loops(up, n);
        let by_phase = count_by_phase(
            &n.nest,
            &n.nest.body,
            &mut per_array,
            phases.iter().map(|(_, l)| *l as *const _).collect(),
        );
        let total: u64 = per_array.iter().map(|c| c.0).sum();
        if total == 0 {
            continue;
        }
        let (streamed, ran) = stream.stream(k, &n.nest, total, budget);
        if let Err(err) = ran {
            out.skipped_loops.push(SkippedLoop {
                unit: uname.clone(),
                file: file.clone(),
                line: n.line,
                reason: err.to_string(),
            });
            continue;
        }
        out.accesses += total;
        pos[k] = Some(out.nests.len());
        out.nests.push(NestLocality {
            unit: uname.clone(),
            loop_id: n.root,
            file: file.clone(),
            line: n.line,
            executions: e,
            approximate: !n.approximate_loops.is_empty(),
            accesses: total,
            streamed_accesses: streamed,
            footprint_lines: 0,
            footprint_pages: 0,
            sample_rate: stream.lines.sample_rate(),
            kind: if n.array_syntax {
                "array_syntax".into()
            } else {
                affine_kind()
            },
            arrays: array_rows(&n.nest, &per_array),
            phases: phases
                .iter()
                .zip(by_phase)
                .map(|((line, _), c)| PhaseAccesses {
                    line: *line,
                    accesses: c.iter().map(|x| x.0).collect(),
                    strided: c.iter().map(|x| x.2).collect(),
                    lines: c.iter().map(|x| x.3 / LINE_BYTES).collect(),
                })
                .collect(),
        });
    }
    fill_histograms(out, base, &pos, stream);
}

/// The rows of a nest's arrays, with their access counts and inner strides; the
/// histograms are filled in after the unit's stream.
fn array_rows(nest: &augur_locality::Nest, per_array: &[AccessCount]) -> Vec<ArrayLocality> {
    let strides = nest.inner_strides().unwrap_or_default();
    nest.arrays
        .iter()
        .zip(per_array)
        .zip(
            strides
                .iter()
                .chain(std::iter::repeat(&InnerStride::default())),
        )
        .map(|((a, &c), s)| ArrayLocality {
            name: a.name.clone(),
            elem_bytes: a.elem_bytes,
            accesses: c.0,
            sequential_accesses: Some(c.1),
            footprint_lines: 0,
            histogram: CompactHistogram::default(),
            entering: CompactHistogram::default(),
            pages: CompactHistogram::default(),
            entering_pages: CompactHistogram::default(),
            footprint_pages: 0,
            inner_stride_bytes: s.stride_bytes,
            written: s.written,
            writebacks: CompactHistogram::default(),
            stores: CompactHistogram::default(),
            class_histogram: CompactHistogram::default(),
        })
        .collect()
}

/// Fills in the histograms and footprints of the unit's nests (`out.nests[base..]`;
/// `pos`: the row of each nest of the stream) from its analyzers.
fn fill_histograms(
    out: &mut LocalityProfile,
    base: usize,
    pos: &[Option<usize>],
    stream: UnitStream,
) {
    let UnitStream {
        lines: an,
        pages: pn,
        classes: cn,
        scratch,
        scale,
    } = stream;
    let mut rep = an.report();
    merge_scaled(&mut rep, scratch, &scale);
    out.sampled |= rep.sampled
        || out.nests[base..]
            .iter()
            .any(|n| n.streamed_accesses < n.accesses);
    out.peak_bytes = out.peak_bytes.max(rep.peak_bytes as u64);
    for h in &rep.histograms {
        let Some(&Some(at)) = pos.get(h.nest as usize) else {
            continue;
        };
        let nl = &mut out.nests[at];
        if let Some(a) = nl.arrays.get_mut(h.array as usize) {
            a.histogram = h.histogram.to_compact();
            a.entering = h.entering.to_compact();
            a.footprint_lines = h.entering.total();
            a.writebacks = h.writebacks.to_compact();
            a.stores = h.stores.to_compact();
        }
    }
    if let Some(cn) = cn {
        let mut crep = cn.report();
        merge_scaled(&mut crep, scratch, &scale);
        for h in &crep.histograms {
            let Some(&Some(at)) = pos.get(h.nest as usize) else {
                continue;
            };
            if let Some(a) = out.nests[at].arrays.get_mut(h.array as usize) {
                a.class_histogram = h.histogram.to_compact();
            }
        }
    }
    let mut prep = pn.report();
    merge_scaled(&mut prep, scratch, &scale);
    out.peak_bytes = out.peak_bytes.max(prep.peak_bytes as u64);
    for h in &prep.histograms {
        let Some(&Some(at)) = pos.get(h.nest as usize) else {
            continue;
        };
        if let Some(a) = out.nests[at].arrays.get_mut(h.array as usize) {
            a.pages = h.histogram.to_compact();
            a.entering_pages = h.entering.to_compact();
            a.footprint_pages = h.entering.total();
        }
    }
    for nl in &mut out.nests[base..] {
        nl.footprint_lines = nl.arrays.iter().map(|a| a.footprint_lines).sum();
        nl.footprint_pages = nl.arrays.iter().map(|a| a.footprint_pages).sum();
    }
}

/// Runs [`analyze_locality`] and stores it in the profile; when the analysis
/// fails, the field stays `None` and a note says why.
pub fn attach(program: &Program, profile: &mut ProgramProfile) {
    let run = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        analyze_locality(program, profile)
    }));
    match run {
        Ok(loc) => profile.locality = Some(loc),
        Err(e) => {
            let why = e
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_else(|| "internal error".into());
            profile.locality = None;
            profile
                .notes
                .push(format!("no locality analysis: extraction failed ({why})"));
        }
    }
}

/// The locality analysis of an instrumented run: reads the shapes the run
/// recorded after its counters in `counts_file` and the address samples in
/// `counts_file` + `.samples`, then runs [`analyze_locality_with`] and adds
/// the sampled references. Never fails the analysis: a failure leaves the
/// locality out with a note.
pub fn attach_run(
    program: &Program,
    plan: &Plan,
    counts_file: &std::path::Path,
    profile: &mut ProgramProfile,
) {
    let (locality, notes) = locality_of(program, plan, counts_file, profile);
    profile.locality = locality;
    profile.notes.extend(notes);
}

/// What [`attach_run`] attaches: the locality analysis of `profile` (made from the counting
/// run that wrote `counts_file`), and the notes it adds. It reads the profile's units only,
/// so it can run while something else (the branch run) finishes the profile.
pub fn locality_of(
    program: &Program,
    plan: &Plan,
    counts_file: &std::path::Path,
    profile: &ProgramProfile,
) -> (
    Option<augur_program_profile::locality::LocalityProfile>,
    Vec<String>,
) {
    let counts_text = std::fs::read_to_string(counts_file).unwrap_or_default();
    let slots = read_shape_slots(&counts_text).unwrap_or_default();
    let shapes = runtime_shapes(program, plan, &slots);
    let values = read_nest_values(&counts_text, plan);
    let mut samples_path = counts_file.as_os_str().to_owned();
    samples_path.push(".samples");
    let samples = if plan.probes.is_empty() {
        None
    } else {
        std::fs::read(std::path::PathBuf::from(samples_path))
            .ok()
            .and_then(|b| read_samples(&b))
    };
    let run = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let mut loc = analyze_locality_with(program, profile, &shapes, &values);
        if let Some(s) = &samples {
            add_sampled(&mut loc, program, profile, plan, s);
        }
        loc
    }));
    let mut notes = vec![];
    let locality = match run {
        Ok(loc) => Some(loc),
        Err(_) => {
            notes.push("no locality analysis: extraction failed (internal error)".into());
            None
        }
    };
    if !plan.probes.is_empty() && samples.is_none() {
        notes.push(
            "the run wrote no address samples: non-affine references have no memory term".into(),
        );
    }
    (locality, notes)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An FFT's sizes 2 to 2^20: thousands of entries at the small sizes, two at the
    /// largest. The sets kept span the sizes where the work is, the largest among them,
    /// and together carry all of it.
    #[test]
    fn value_sets_are_kept_by_their_work_not_their_entries() {
        let (mut sets, mut work) = (vec![], vec![]);
        for log in 1..=20i64 {
            let count = if log <= 4 { 20_002 } else { 2 };
            for step in 0..log {
                sets.push(ValueSet {
                    count,
                    values: vec![1 << log, step],
                });
                work.push((1u64 << (log - 1)) as f64 * 8.0);
            }
        }
        let kept = representative_sets(&sets, &work);
        assert!(kept.len() <= MAX_VALUE_SETS && kept.len() > 4, "{kept:?}");
        let total: f64 = sets
            .iter()
            .zip(&work)
            .map(|(s, w)| s.count as f64 * w)
            .sum();
        let carried: f64 = kept.iter().map(|&(i, runs)| runs * work[i]).sum();
        assert!((carried - total).abs() < 1e-9 * total, "{carried} {total}");
        let largest = |&(i, _): &(usize, f64)| sets[i].values[0];
        assert!(kept.iter().any(|k| largest(k) == 1 << 20));
        assert!(kept.iter().any(|k| largest(k) <= 1 << 17));
        // Few sets: each its own, with its entries.
        let few = representative_sets(&sets[..3], &work[..3]);
        assert_eq!(few, [(0, 20_002.0), (1, 20_002.0), (2, 20_002.0)]);
    }
}
