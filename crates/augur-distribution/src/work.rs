//! Work distribution (P^3T+'s WD) under owner-computes: the loops of each nest that a
//! distributed array's assignment splits over the processors, and each processor's
//! share of their iterations, exact where the bounds and subscripts are affine.

use crate::owner::DimLayout;
use crate::spec::{Format, Grid};
use crate::ArrayLayout;
use augur_ir::{BinOp, Expr, ExprKind, LoopKind, Program, StmtKind, Subscript, Unit};
use augur_program_profile::ProgramProfile;
use augur_scaling::nest::{iterations_from, nest_root, parameters, trip_count, Count, Env};
use serde::Serialize;
use std::collections::BTreeMap;

/// Outer iterations a share may enumerate before it falls back to an even split.
const SHARE_BUDGET: u64 = 4_000_000;

/// A loop split over one axis of the grid: the iterations whose index (plus `offset`)
/// a processor owns in dimension `dim` of `array` are that processor's.
#[derive(Debug, Clone, Serialize)]
pub struct Partition {
    /// The loop (id in its unit).
    pub loop_id: u32,
    /// Its DO statement's line.
    pub line: u32,
    /// Its index variable.
    pub var: String,
    /// The array whose assignment splits it.
    pub array: String,
    /// The dimension (0-based) its index subscripts.
    pub dim: usize,
    /// The grid axis it is split over.
    pub axis: usize,
    /// The subscript is `var + offset`.
    pub offset: i64,
    /// The share of the loop's iterations of each coordinate along the axis.
    pub shares: Vec<f64>,
    /// Whether the shares are exact (the loop bounds evaluated); else an even split.
    pub exact: bool,
    /// The index the assignment's subscript is fixed at (its owner runs every
    /// iteration), when it is a constant.
    pub fixed: Option<i64>,
    /// The innermost loop of the assignment that asks for the split: the split covers
    /// the blocks of the split loop on the way to it, not its sibling loops.
    pub stmt_loop: u32,
    /// An array statement's loop over its elements, split by the section it assigns
    /// (`offset` is then the section's first index in the dimension).
    pub section: bool,
}

impl Partition {
    /// Whether block `b` of `unit` is split by this partition: inside the split loop,
    /// straight in it or in the child loop that holds the assignment.
    pub fn applies(&self, unit: &Unit, b: u32) -> bool {
        let Some(inside) = unit.blocks.get(b as usize).and_then(|x| x.in_loop) else {
            return false;
        };
        let split = augur_ir::LoopId(self.loop_id);
        if !unit.loop_within(Some(inside), split) {
            return false;
        }
        let mut child = inside;
        while let Some(parent) = unit.loops[child.0 as usize].parent {
            if parent == split {
                break;
            }
            child = parent;
        }
        child == split || unit.loop_within(Some(augur_ir::LoopId(self.stmt_loop)), child)
    }
}

/// A loop nest split over the processors.
#[derive(Debug, Clone, Serialize)]
pub struct Nest {
    /// The unit's index in the program.
    pub unit: usize,
    /// The unit's name.
    pub unit_name: String,
    /// The nest's outermost loop: the outermost loop whose index the partitioning
    /// assignment's subscripts read (messages are hoisted to just before it).
    pub root: u32,
    /// Its line.
    pub line: u32,
    /// Its file, as the analysis named it.
    pub file: String,
    /// Times the nest was entered in the profiled run.
    pub entries: f64,
    /// The split loops (one per grid axis at most).
    pub partitions: Vec<Partition>,
    /// The blocks inside the nest.
    pub blocks: Vec<u32>,
    /// The messages each entry needs.
    pub messages: Vec<crate::comm::Message>,
}

impl Nest {
    /// The share of a block's executions that the processor at `coords` runs.
    pub fn share(&self, unit: &Unit, block: u32, coords: &[u32]) -> f64 {
        self.partitions
            .iter()
            .filter(|p| p.applies(unit, block))
            .map(|p| p.shares[coords.get(p.axis).copied().unwrap_or(0) as usize])
            .product()
    }
}

/// A subscript as the analysis reads it.
#[derive(Debug, Clone, PartialEq)]
pub enum Sub {
    /// `var + offset`.
    Shifted(String, i64),
    /// A value known at compile time.
    Constant(i64),
    /// Anything else (a product, an array element, a function).
    Other,
}

/// Reads `i`, `i+1`, `i-k` (k a named constant), `3`, `n` (a named constant).
pub fn subscript(e: &Expr, env: &Env) -> Sub {
    match &e.kind {
        ExprKind::Const { value: Some(v), .. } => Sub::Constant(*v),
        ExprKind::Var(v) if v.constant => env
            .get(&v.name)
            .and_then(|x| i64::try_from(*x).ok())
            .map_or(Sub::Other, Sub::Constant),
        ExprKind::Var(v) if v.rank == 0 => Sub::Shifted(v.name.clone(), 0),
        ExprKind::Binary(op @ (BinOp::Add | BinOp::Sub), a, b) => {
            let sign = if *op == BinOp::Sub { -1 } else { 1 };
            match (subscript(a, env), subscript(b, env)) {
                (Sub::Shifted(v, k), Sub::Constant(c)) => Sub::Shifted(v, k + sign * c),
                (Sub::Constant(c), Sub::Shifted(v, k)) if sign == 1 => Sub::Shifted(v, k + c),
                (Sub::Constant(a), Sub::Constant(b)) => Sub::Constant(a + sign * b),
                _ => Sub::Other,
            }
        }
        _ => Sub::Other,
    }
}

/// The loop of `unit` enclosing `inside` (itself included) whose index is `var`.
pub fn loop_of_var(unit: &Unit, inside: Option<augur_ir::LoopId>, var: &str) -> Option<u32> {
    let mut at = inside;
    while let Some(l) = at.and_then(|x| unit.loops.get(x.0 as usize)) {
        if l.kind == LoopKind::Counted && l.var.as_deref() == Some(var) {
            return Some(l.id.0);
        }
        at = l.parent;
    }
    None
}

/// The profile's unit of each of the program's units (by name, with as many blocks),
/// `None` where the sources no longer match.
pub fn profile_units(program: &Program, profile: &ProgramProfile) -> Vec<Option<usize>> {
    program
        .units
        .iter()
        .map(|u| {
            profile
                .units
                .iter()
                .position(|p| p.name == u.name && p.blocks.len() == u.blocks.len())
        })
        .collect()
}

/// The value sets a nest ran with (the scalars its bounds read, with how often), the
/// unit's named constants beneath each.
fn envs(program: &Program, profile: &ProgramProfile, ui: usize, root: u32) -> Vec<(Env, f64)> {
    let base = parameters(program, ui);
    let unit = &program.units[ui];
    let recorded = profile.locality.as_ref().and_then(|l| {
        l.nest_values
            .iter()
            .find(|n| n.unit == unit.name && n.loop_id == root)
    });
    let Some(nv) = recorded.filter(|n| !n.sets.is_empty()) else {
        let mut env = base;
        if let Some(l) = &profile.locality {
            for a in l.assumed_values.iter().filter(|a| a.unit == unit.name) {
                env.entry(a.name.clone()).or_insert(i128::from(a.value));
            }
        }
        return vec![(env, 1.0)];
    };
    nv.sets
        .iter()
        .map(|s| {
            let mut env = base.clone();
            for (k, v) in nv.vars.iter().zip(&s.values) {
                env.insert(k.clone(), i128::from(*v));
            }
            (env, s.count as f64)
        })
        .collect()
}

/// Iterations of the innermost sum of `count` (the split loop, index `var`) each
/// coordinate owns, summed over the enclosing sums; `None` when a bound has no value or
/// the budget runs out.
fn owned(
    count: &Count,
    dim: &DimLayout,
    offset: i64,
    env: &mut Env,
    budget: &mut u64,
) -> Option<Vec<f64>> {
    let q = dim.procs.max(1) as usize;
    let Count::Sum {
        var,
        lo,
        hi,
        step,
        body,
    } = count
    else {
        return None;
    };
    let (lo, hi, step) = (lo.eval(env)?, hi.eval(env)?, step.eval(env)?);
    let as64 = |x: i128| i64::try_from(x).ok();
    if **body == Count::One {
        let (lo, hi) = (as64(lo)? + offset, as64(hi)? + offset);
        return Some(match step {
            1 => (0..q)
                .map(|c| dim.owned_in(c as u32, lo, hi) as f64)
                .collect(),
            -1 => (0..q)
                .map(|c| dim.owned_in(c as u32, hi, lo) as f64)
                .collect(),
            s => {
                let trips = trip_count(lo.into(), hi.into(), s);
                *budget = budget.checked_sub(trips as u64)?;
                let mut out = vec![0.0; q];
                for t in 0..as64(trips)? {
                    out[dim.owner(lo + t * as64(s)?) as usize] += 1.0;
                }
                out
            }
        });
    }
    let trips = trip_count(lo, hi, step);
    *budget = budget.checked_sub(u64::try_from(trips).ok()?)?;
    let mut out = vec![0.0; q];
    for t in 0..trips {
        env.insert(var.clone(), lo + t * step);
        for (o, x) in out.iter_mut().zip(owned(body, dim, offset, env, budget)?) {
            *o += x;
        }
    }
    env.remove(var);
    Some(out)
}

/// Each coordinate's share of the iterations of split loop `loop_id` (index plus
/// `offset` in `dim`), over every value set its nest ran with; `None`: not evaluable.
fn shares(
    program: &Program,
    profile: &ProgramProfile,
    ui: usize,
    loop_id: u32,
    dim: &DimLayout,
    offset: i64,
) -> Option<Vec<f64>> {
    let unit = &program.units[ui];
    let root = nest_root(unit, loop_id)?;
    let count = iterations_from(unit, loop_id, root)?;
    let mut total = vec![0.0; dim.procs.max(1) as usize];
    let mut budget = SHARE_BUDGET;
    for (mut env, weight) in envs(program, profile, ui, root) {
        let v = owned(&count, dim, offset, &mut env, &mut budget)?;
        for (t, x) in total.iter_mut().zip(v) {
            *t += x * weight;
        }
    }
    let sum: f64 = total.iter().sum();
    (sum > 0.0).then(|| total.iter().map(|x| x / sum).collect())
}

/// The first and last index each distributed array's dimensions are subscripted with by
/// the loops of its assignments (the bounds of arrays whose declaration and run do not
/// give them), widened by the offsets of every reference.
pub fn index_ranges(
    program: &Program,
    profile: &ProgramProfile,
    formats: &BTreeMap<String, Vec<Format>>,
) -> BTreeMap<String, Vec<Option<(i64, i64)>>> {
    let mut out: BTreeMap<String, Vec<Option<(i64, i64)>>> = BTreeMap::new();
    for (ui, unit) in program.units.iter().enumerate() {
        for b in &unit.blocks {
            for &si in &b.stmts {
                let Some(st) = unit.stmts.get(si as usize) else {
                    continue;
                };
                for e in crate::comm::statement_exprs(&st.kind) {
                    crate::comm::visit(e, &mut |x| {
                        let ExprKind::Elem(v, subs) = &x.kind else {
                            return;
                        };
                        let Some(f) = formats.get(&v.name) else {
                            return;
                        };
                        let slot = out
                            .entry(v.name.clone())
                            .or_insert_with(|| vec![None; f.len()]);
                        for (d, s) in subs.iter().enumerate().take(f.len()) {
                            if let Some((lo, hi)) = index_range(program, profile, ui, b.in_loop, s)
                            {
                                let r = slot[d].get_or_insert((lo, hi));
                                *r = (r.0.min(lo), r.1.max(hi));
                            }
                        }
                    });
                }
            }
        }
    }
    out
}

/// The indices subscript `s` takes in its loop (its loop's bounds with the most frequent
/// values of its nest), or its constant.
fn index_range(
    program: &Program,
    profile: &ProgramProfile,
    ui: usize,
    inside: Option<augur_ir::LoopId>,
    s: &Subscript,
) -> Option<(i64, i64)> {
    let unit = &program.units[ui];
    let Subscript::Index(e) = s else {
        return None;
    };
    let params = parameters(program, ui);
    match subscript(e, &params) {
        Sub::Constant(c) => Some((c, c)),
        Sub::Shifted(var, k) => {
            let l = loop_of_var(unit, inside, &var)?;
            let root = nest_root(unit, l).unwrap_or(l);
            let (env, _) = envs(program, profile, ui, root).into_iter().next()?;
            let count = iterations_from(unit, l, l)?;
            let Count::Sum { lo, hi, .. } = count else {
                return None;
            };
            let (a, b) = (lo.eval(&env)?, hi.eval(&env)?);
            let (a, b) = (i64::try_from(a.min(b)).ok()?, i64::try_from(a.max(b)).ok()?);
            Some((a + k, b + k))
        }
        Sub::Other => None,
    }
}

/// The layout of `array` with `formats` on `grid`: its bounds as the run recorded them,
/// else as declared, else the range its loops index.
pub fn layout(
    program: &Program,
    profile: &ProgramProfile,
    array: &str,
    formats: &[Format],
    grid: &Grid,
    ranges: Option<&Vec<Option<(i64, i64)>>>,
) -> Result<ArrayLayout, String> {
    let symbol = program
        .units
        .iter()
        .flat_map(|u| u.symbols.iter())
        .find(|s| s.name == array && !s.dims.is_empty());
    let Some(symbol) = symbol else {
        return Err(format!(
            "{array} is distributed but the program has no array of that name"
        ));
    };
    if symbol.dims.len() != formats.len() {
        return Err(format!(
            "{array} has {} dimension(s) but its distribution gives {} format(s)",
            symbol.dims.len(),
            formats.len()
        ));
    }
    let recorded = profile
        .locality
        .as_ref()
        .and_then(|l| l.runtime_shapes.iter().find(|s| s.array == array));
    let mut axes = vec![];
    let mut next_axis = 0;
    for f in formats {
        if *f == Format::Collapsed {
            axes.push(None);
        } else {
            axes.push(Some(next_axis));
            next_axis += 1;
        }
    }
    let mut dims = vec![];
    let mut from = "run";
    for (d, f) in formats.iter().enumerate() {
        let declared = &symbol.dims[d];
        let (lower, extent) = if let Some(r) = recorded.and_then(|r| r.bounds.get(d)) {
            (r[0], r[1])
        } else if let Some(extent) = declared.extent {
            from = if from == "loops" { from } else { "declared" };
            let lower = declared
                .lower
                .as_deref()
                .map_or(Some(1), |l| l.trim().parse().ok());
            (lower.unwrap_or(1), extent)
        } else if let Some(Some((lo, hi))) = ranges.map(|r| r.get(d).copied().flatten()) {
            from = "loops";
            (lo, hi - lo + 1)
        } else {
            return Err(format!(
                "the bounds of {array}'s dimension {} are not known (not recorded by the run, not constant in its declaration, no loop indexes it): distribute another array aligned with it",
                d + 1
            ));
        };
        let procs = axes[d].map_or(1, |a: usize| grid.0.get(a).copied().unwrap_or(1));
        if let Format::Block(Some(m)) = f {
            if m * i64::from(procs) < extent {
                return Err(format!(
                    "{array}: BLOCK({m}) over {procs} processors holds {} of its {extent} indices in dimension {}: give BLOCK without a size, or a larger one",
                    m * i64::from(procs),
                    d + 1
                ));
            }
        }
        dims.push(DimLayout {
            lower,
            extent,
            format: *f,
            procs,
        });
    }
    Ok(ArrayLayout {
        array: array.to_string(),
        dims,
        formats: formats.to_vec(),
        axes,
        element_bytes: u32::from(symbol.ty.kind.max(1))
            * if symbol.ty.base == augur_ir::BaseType::Complex {
                2
            } else {
                1
            },
        bounds_from: from.to_string(),
    })
}

/// A split loop found at an assignment: the loop, the dimension, the offset.
struct Candidate {
    loop_id: u32,
    array: String,
    dim: usize,
    offset: i64,
    /// A subscript fixed at this index: the statement's owner runs every iteration.
    fixed: Option<i64>,
    /// The statement's innermost loop.
    stmt_loop: u32,
    /// An array statement's section in the dimension: its first and last index.
    section: Option<(i64, i64)>,
    /// The loop indices the assignment's subscripts read.
    lhs_vars: Vec<String>,
    /// For a scalar reduced over the split loop: the scalar (its partial results are
    /// combined where it was last set afresh).
    reduced: Option<String>,
}

/// Every nest of the program that assigns a distributed array in a loop, with its
/// split loops, shares and messages.
pub fn nests(
    program: &Program,
    profile: &ProgramProfile,
    layouts: &BTreeMap<String, ArrayLayout>,
    grid: &Grid,
    notes: &mut Vec<String>,
) -> Result<Vec<Nest>, String> {
    let in_profile = profile_units(program, profile);
    let mut out = vec![];
    for (ui, unit) in program.units.iter().enumerate() {
        let Some(pi) = in_profile[ui] else {
            continue;
        };
        let candidates = candidates(program, profile, ui, layouts, notes)?;
        let mut by_root: BTreeMap<u32, Vec<Candidate>> = BTreeMap::new();
        for c in candidates {
            let root = nest_root_of(unit, &c);
            let group = by_root.entry(root).or_default();
            // One split per grid axis along a chain of loops (the same loop included):
            // the first assignment decides.
            let nested =
                |a: u32, b: u32| unit.loop_within(Some(augur_ir::LoopId(a)), augur_ir::LoopId(b));
            let clash = group.iter().any(|g| {
                layouts[&g.array].axes[g.dim] == layouts[&c.array].axes[c.dim]
                    && (nested(c.loop_id, g.loop_id) || nested(g.loop_id, c.loop_id))
            });
            if !clash {
                group.push(c);
            }
        }
        let roots: Vec<u32> = by_root.keys().copied().collect();
        for (root, cands) in by_root {
            let inner: Vec<u32> = roots
                .iter()
                .copied()
                .filter(|&r| {
                    r != root && unit.loop_within(Some(augur_ir::LoopId(r)), augur_ir::LoopId(root))
                })
                .collect();
            let at = NestAt {
                ui,
                pi,
                root,
                inner,
            };
            out.push(nest_of(program, profile, &at, cands, layouts, grid, notes));
        }
    }
    Ok(out)
}

/// Where a nest is: its unit in the program and the profile, its root, the roots of the
/// nests inside it (whose blocks are theirs).
struct NestAt {
    ui: usize,
    pi: usize,
    root: u32,
    inner: Vec<u32>,
}

fn nest_of(
    program: &Program,
    profile: &ProgramProfile,
    at: &NestAt,
    cands: Vec<Candidate>,
    layouts: &BTreeMap<String, ArrayLayout>,
    grid: &Grid,
    notes: &mut Vec<String>,
) -> Nest {
    let (ui, pi, root) = (at.ui, at.pi, at.root);
    let unit = &program.units[ui];
    let line = |l: u32| unit.loops[l as usize].span.start.line;
    let partitions: Vec<Partition> = cands
        .into_iter()
        .map(|c| {
            let layout = &layouts[&c.array];
            let axis = layout.axes[c.dim].unwrap_or(0);
            let dim = layout.dims[c.dim];
            let exact = match (c.fixed, c.section) {
                (Some(index), _) => {
                    let mut one = vec![0.0; dim.procs.max(1) as usize];
                    one[dim.owner(index) as usize] = 1.0;
                    Some(one)
                }
                (None, Some((lo, hi))) => {
                    let n = (hi - lo + 1).max(1) as f64;
                    Some((0..dim.procs.max(1)).map(|q| dim.owned_in(q, lo, hi) as f64 / n).collect())
                }
                (None, None) => shares(program, profile, ui, c.loop_id, &dim, c.offset),
            };
            if exact.is_none() {
                notes.push(format!(
                    "{}, line {}: the bounds of the loop over {} could not be evaluated; its iterations are split evenly",
                    unit.name,
                    line(c.loop_id),
                    c.array
                ));
            }
            let q = grid.0.get(axis).copied().unwrap_or(1) as usize;
            Partition {
                loop_id: c.loop_id,
                line: line(c.loop_id),
                var: unit.loops[c.loop_id as usize].var.clone().unwrap_or_default(),
                array: c.array,
                dim: c.dim,
                axis,
                offset: c.offset,
                exact: exact.is_some(),
                fixed: c.fixed,
                stmt_loop: c.stmt_loop,
                section: c.section.is_some(),
                shares: exact.unwrap_or_else(|| vec![1.0 / q as f64; q]),
            }
        })
        .collect();
    let blocks: Vec<u32> = unit
        .blocks
        .iter()
        .filter(|b| {
            unit.loop_within(b.in_loop, augur_ir::LoopId(root))
                && !at
                    .inner
                    .iter()
                    .any(|&r| unit.loop_within(b.in_loop, augur_ir::LoopId(r)))
        })
        .map(|b| b.id.0)
        .collect();
    let entries = profile.units[pi]
        .loops
        .get(root as usize)
        .and_then(|l| l.entries)
        .unwrap_or(0.0);
    let mut nest = Nest {
        unit: ui,
        unit_name: unit.name.clone(),
        root,
        line: line(root),
        file: unit_file(program, unit),
        entries,
        partitions,
        blocks,
        messages: vec![],
    };
    nest.messages = crate::comm::messages(program, ui, &nest, layouts, notes);
    for m in &mut nest.messages {
        if let crate::comm::Message::Broadcast {
            array,
            dim,
            scalar: Some((var, off)),
            owners,
            ..
        } = m
        {
            let outer = unit.loops[root as usize].parent;
            let layout = &layouts[array.as_str()].dims[*dim];
            if let Some(values) =
                loop_of_var(unit, outer, var).and_then(|l| loop_values(program, profile, ui, l))
            {
                *owners = values.iter().map(|v| layout.owner(v + *off)).collect();
            }
        }
    }
    nest
}

/// The outermost loop around `c`'s split loop whose index the assignment's subscripts
/// read (a time-step loop around the nest is not part of it).
fn nest_root_of(unit: &Unit, c: &Candidate) -> u32 {
    let mut root = c.loop_id;
    while let Some(p) = unit.loops[root as usize].parent {
        let parent = &unit.loops[p.0 as usize];
        let indexes = parent.kind == LoopKind::Counted
            && parent.var.as_ref().is_some_and(|v| c.lhs_vars.contains(v));
        let restarts = c.reduced.as_ref().is_some_and(|s| sets_afresh(unit, p, s));
        if !indexes || restarts {
            break;
        }
        root = p.0;
    }
    root
}

/// Whether loop `l` of `unit` sets scalar `s` from something else than itself (a
/// reduction's start: its partial results are combined inside `l`, each time).
fn sets_afresh(unit: &Unit, l: augur_ir::LoopId, s: &str) -> bool {
    unit.blocks
        .iter()
        .filter(|b| unit.loop_within(b.in_loop, l))
        .flat_map(|b| &b.stmts)
        .any(|&si| {
            matches!(&unit.stmts[si as usize].kind,
                StmtKind::Assign { lhs, rhs }
                    if matches!(&lhs.kind, ExprKind::Var(w) if w.name == s)
                        && !crate::comm::reads_var(rhs, s))
        })
}

/// The split loops the assignments of unit `ui` to distributed arrays ask for.
fn candidates(
    program: &Program,
    profile: &ProgramProfile,
    ui: usize,
    layouts: &BTreeMap<String, ArrayLayout>,
    notes: &mut Vec<String>,
) -> Result<Vec<Candidate>, String> {
    let unit = &program.units[ui];
    let env = parameters(program, ui);
    let mut out = vec![];
    for b in &unit.blocks {
        let Some(inside) = b.in_loop else {
            continue;
        };
        for &si in &b.stmts {
            let Some(st) = unit.stmts.get(si as usize) else {
                continue;
            };
            let StmtKind::Assign { lhs, rhs } = &st.kind else {
                continue;
            };
            if unit.loops[inside.0 as usize].kind == LoopKind::ArrayElements {
                out.extend(section_candidates(
                    program, profile, ui, inside, lhs, rhs, layouts,
                ));
                continue;
            }
            if lhs.array {
                // An array statement's set-up: its elements' block is split above.
                continue;
            }
            if let Some(c) = reduction_candidate(unit, inside, lhs, rhs, layouts, &env) {
                out.push(c);
                continue;
            }
            let ExprKind::Elem(v, subs) = &lhs.kind else {
                continue;
            };
            let Some(layout) = layouts.get(&v.name) else {
                continue;
            };
            if subs.len() != layout.dims.len() {
                return Err(format!(
                    "{}, line {}: {} is distributed with {} format(s) but referenced with {} subscript(s)",
                    unit.name,
                    st.span.start.line,
                    v.name,
                    layout.dims.len(),
                    subs.len()
                ));
            }
            let lhs_vars: Vec<String> = subs
                .iter()
                .filter_map(|s| match s {
                    Subscript::Index(e) => match subscript(e, &env) {
                        Sub::Shifted(v, _) => Some(v),
                        _ => None,
                    },
                    Subscript::Range(..) => None,
                })
                .collect();
            for (d, s) in subs.iter().enumerate() {
                if layout.axes[d].is_none() {
                    continue;
                }
                let split = match s {
                    Subscript::Index(e) => match subscript(e, &env) {
                        Sub::Shifted(var, off) => {
                            loop_of_var(unit, Some(inside), &var).map(|l| (l, off, None))
                        }
                        Sub::Constant(c) => Some((inside.0, 0, Some(c))),
                        Sub::Other => None,
                    },
                    Subscript::Range(..) => None,
                };
                match split {
                    Some((loop_id, offset, fixed)) => out.push(Candidate {
                        loop_id,
                        array: v.name.clone(),
                        dim: d,
                        offset,
                        fixed,
                        stmt_loop: inside.0,
                        section: None,
                        lhs_vars: lhs_vars.clone(),
                        reduced: None,
                    }),
                    None => notes.push(format!(
                        "{}, line {}: {}'s distributed dimension {} is subscripted by neither a loop index nor a constant here: every processor runs the statement",
                        unit.name,
                        st.span.start.line,
                        v.name,
                        d + 1
                    )),
                }
            }
        }
    }
    Ok(out)
}

/// A scalar reduced over a distributed array's elements (`s = s + x(i)`): the loop is
/// split by the owner of the element read, the partial results combined after.
fn reduction_candidate(
    unit: &Unit,
    inside: augur_ir::LoopId,
    lhs: &Expr,
    rhs: &Expr,
    layouts: &BTreeMap<String, ArrayLayout>,
    env: &Env,
) -> Option<Candidate> {
    let ExprKind::Var(v) = &lhs.kind else {
        return None;
    };
    if v.rank != 0 || !crate::comm::reads_var(rhs, &v.name) {
        return None;
    }
    let mut found = None;
    crate::comm::visit(rhs, &mut |x| {
        let ExprKind::Elem(a, subs) = &x.kind else {
            return;
        };
        let Some(layout) = layouts.get(&a.name).filter(|_| found.is_none()) else {
            return;
        };
        for (d, s) in subs.iter().enumerate().take(layout.dims.len()) {
            let (Some(_), Subscript::Index(e)) = (layout.axes[d], s) else {
                continue;
            };
            if let Sub::Shifted(var, off) = subscript(e, env) {
                if let Some(l) = loop_of_var(unit, Some(inside), &var) {
                    let vars = subs
                        .iter()
                        .filter_map(|s| match s {
                            Subscript::Index(e) => match subscript(e, env) {
                                Sub::Shifted(v, _) => Some(v),
                                _ => None,
                            },
                            Subscript::Range(..) => None,
                        })
                        .collect();
                    found = Some(Candidate {
                        loop_id: l,
                        array: a.name.clone(),
                        dim: d,
                        offset: off,
                        fixed: None,
                        stmt_loop: inside.0,
                        section: None,
                        lhs_vars: vars,
                        reduced: Some(v.name.clone()),
                    });
                    return;
                }
            }
        }
    });
    found
}

/// The file of `unit`'s first line, as the analysis named it.
fn unit_file(program: &Program, unit: &Unit) -> String {
    program
        .files
        .files
        .get(unit.span.start.file.0 as usize)
        .map_or(String::new(), |f| f.path.display().to_string())
}

/// Values a broadcast's owners may enumerate at most.
const OWNER_VALUES: i128 = 1_000_000;

/// The index values of one entry of counted loop `l` (its bounds with the most frequent
/// values of its nest); `None` when they cannot be evaluated or are too many.
fn loop_values(program: &Program, profile: &ProgramProfile, ui: usize, l: u32) -> Option<Vec<i64>> {
    let unit = &program.units[ui];
    let root = nest_root(unit, l).unwrap_or(l);
    let (env, _) = envs(program, profile, ui, root).into_iter().next()?;
    let Count::Sum { lo, hi, step, .. } = iterations_from(unit, l, l)? else {
        return None;
    };
    let (lo, hi, step) = (lo.eval(&env)?, hi.eval(&env)?, step.eval(&env)?);
    let trips = trip_count(lo, hi, step);
    if trips <= 0 || trips > OWNER_VALUES {
        return None;
    }
    (0..trips)
        .map(|t| i64::try_from(lo + t * step).ok())
        .collect()
}

/// The splits of an array statement (`u(2:n-1) = ...`, `u = 0`, `s = sum(u)`) over its
/// elements: each distributed dimension of the array it assigns (or, for a scalar, of
/// the first distributed array it reads) split by the section's indices each owns.
fn section_candidates(
    program: &Program,
    profile: &ProgramProfile,
    ui: usize,
    inside: augur_ir::LoopId,
    lhs: &Expr,
    rhs: &Expr,
    layouts: &BTreeMap<String, ArrayLayout>,
) -> Vec<Candidate> {
    let unit = &program.units[ui];
    let root = nest_root(unit, inside.0).unwrap_or(inside.0);
    let Some((env, _)) = envs(program, profile, ui, root).into_iter().next() else {
        return vec![];
    };
    let target = distributed_ref(lhs, layouts).or_else(|| {
        let mut found = None;
        crate::comm::visit(rhs, &mut |x| {
            if found.is_none() {
                found = distributed_ref(x, layouts);
            }
        });
        found
    });
    let Some((array, subs)) = target else {
        return vec![];
    };
    let layout = &layouts[&array];
    let mut out = vec![];
    for (d, dim) in layout.dims.iter().enumerate() {
        if layout.axes[d].is_none() {
            continue;
        }
        let whole = (dim.lower, dim.lower + dim.extent - 1);
        let Some((lo, hi)) = section_range(subs.and_then(|s| s.get(d)), whole, &env) else {
            continue;
        };
        out.push(Candidate {
            loop_id: inside.0,
            array: array.clone(),
            dim: d,
            offset: lo,
            fixed: None,
            stmt_loop: inside.0,
            section: Some((lo, hi)),
            lhs_vars: vec![],
            reduced: None,
        });
    }
    out
}

/// A distributed array referenced whole or by element or section: its name and
/// subscripts (`None`: the whole array).
fn distributed_ref<'e>(
    e: &'e Expr,
    layouts: &BTreeMap<String, ArrayLayout>,
) -> Option<(String, Option<&'e Vec<Subscript>>)> {
    match &e.kind {
        ExprKind::Var(v) if layouts.contains_key(&v.name) => Some((v.name.clone(), None)),
        ExprKind::Elem(v, subs) if layouts.contains_key(&v.name) => {
            Some((v.name.clone(), Some(subs)))
        }
        _ => None,
    }
}

/// The indices a section subscript runs over (`whole`: the dimension's, for `:` or no
/// subscript); `None` where a bound has no value or the stride is not 1.
pub fn section_range(s: Option<&Subscript>, whole: (i64, i64), env: &Env) -> Option<(i64, i64)> {
    let value = |e: &Option<Expr>, default: i64| -> Option<i64> {
        match e {
            None => Some(default),
            Some(x) => augur_scaling::nest::IntExpr::of(x)?
                .eval(env)
                .and_then(|v| i64::try_from(v).ok()),
        }
    };
    match s {
        None => Some(whole),
        Some(Subscript::Range(lo, hi, step)) => {
            if value(step, 1)? != 1 {
                return None;
            }
            Some((value(lo, whole.0)?, value(hi, whole.1)?))
        }
        Some(Subscript::Index(_)) => None,
    }
}
