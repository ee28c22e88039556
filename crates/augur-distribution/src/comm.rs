//! Communication (P^3T+'s NT, TD): the references of a split nest to data another
//! processor owns, classified as HPF compilers vectorize them out of the nest: a shift
//! (halo) where the subscript is the split index plus a constant, a broadcast of the
//! cross-section at an index fixed during the nest, a gather of the whole array where
//! nothing simpler applies, and a reduction where a scalar accumulates over split
//! iterations.

use crate::work::{loop_of_var, subscript, Nest, Sub};
use crate::ArrayLayout;
use augur_ir::{Expr, ExprKind, Program, StmtKind, Subscript};
use augur_scaling::nest::parameters;
use serde::Serialize;
use std::collections::BTreeMap;

/// One message pattern a nest's entry needs.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum Message {
    /// Layers of `array` across dimension `dim` from the neighbours along `axis`:
    /// `below` layers from the lower neighbour, `above` from the upper one.
    Halo {
        /// The array.
        array: String,
        /// Its dimension (0-based).
        dim: usize,
        /// The grid axis.
        axis: usize,
        /// Layers needed from the lower neighbour.
        below: i64,
        /// Layers needed from the upper neighbour.
        above: i64,
    },
    /// The cross-section of `array` at one index of dimension `dim`, from its owner to
    /// every processor (`index`: the index, when a constant).
    Broadcast {
        /// The array.
        array: String,
        /// Its dimension (0-based).
        dim: usize,
        /// The grid axis.
        axis: usize,
        /// The index when known at compile time.
        index: Option<i64>,
        /// The scalar (and offset) the index is, when it is one (a loop's index
        /// outside the nest).
        scalar: Option<(String, i64)>,
        /// The owner's coordinate along `axis` at each entry of the nest, in order
        /// (cycled; empty: the owner of `index`, or of the first index).
        #[serde(skip)]
        owners: Vec<u32>,
    },
    /// `array` redistributed so that the split index runs along a dimension it is not
    /// distributed in (`b(i,j) = a(j,i)`): every processor sends each other one its
    /// share of its part (an all-to-all).
    Transpose {
        /// The array.
        array: String,
    },
    /// Every processor's part of `array` to every processor.
    Gather {
        /// The array.
        array: String,
    },
    /// A scalar combined over the processors after the nest.
    Reduction {
        /// The variable.
        var: String,
        /// Its bytes.
        bytes: u32,
    },
}

impl Message {
    /// Which rule made it, as the report says.
    pub fn rule(&self) -> String {
        match self {
            Message::Halo {
                array,
                dim,
                below,
                above,
                ..
            } => format!(
                "shift: {array} halo of {below} below, {above} above in dimension {}",
                dim + 1
            ),
            Message::Broadcast {
                array,
                dim,
                index,
                scalar,
                ..
            } => match (index, scalar) {
                (Some(i), _) => format!("broadcast: {array} at index {i} of dimension {}", dim + 1),
                (None, Some((v, _))) => format!(
                    "broadcast: {array} at index {v} of dimension {} (from its owner, each entry)",
                    dim + 1
                ),
                (None, None) => format!(
                    "broadcast: {array} at a fixed index of dimension {} (from its owner)",
                    dim + 1
                ),
            },
            Message::Gather { array } => format!("gather: all of {array} to every processor"),
            Message::Transpose { array } => {
                format!("transpose: {array} redistributed all-to-all")
            }
            Message::Reduction { var, .. } => format!("reduction: {var} combined after the nest"),
        }
    }
}

/// The expressions of a statement whose values it reads or writes.
pub fn statement_exprs(kind: &StmtKind) -> Vec<&Expr> {
    match kind {
        StmtKind::Assign { lhs, rhs } => vec![lhs, rhs],
        StmtKind::Call { args, .. } => args.iter().collect(),
        StmtKind::If { cond } | StmtKind::LogicalIf { cond } => vec![cond],
        _ => vec![],
    }
}

/// The expressions a statement reads (the assignment's left-hand side left out, its
/// subscripts kept).
fn read_exprs(kind: &StmtKind) -> Vec<&Expr> {
    match kind {
        StmtKind::Assign { lhs, rhs } => {
            let mut v = lhs.subscript_exprs();
            v.push(rhs);
            v
        }
        other => statement_exprs(other),
    }
}

/// Whether `e` reads the scalar `name`.
pub fn reads_var(e: &Expr, name: &str) -> bool {
    let mut found = false;
    visit(e, &mut |x| {
        if let ExprKind::Var(w) = &x.kind {
            found |= w.name == name;
        }
    });
    found
}

/// Calls `f` on `e` and every expression inside it, subscripts included.
pub fn visit<'e>(e: &'e Expr, f: &mut impl FnMut(&'e Expr)) {
    f(e);
    for o in e.operands() {
        visit(o, f);
    }
    for o in e.subscript_exprs() {
        visit(o, f);
    }
}

/// The messages one entry of `nest` needs.
pub fn messages(
    program: &Program,
    ui: usize,
    nest: &Nest,
    layouts: &BTreeMap<String, ArrayLayout>,
    notes: &mut Vec<String>,
) -> Vec<Message> {
    let unit = &program.units[ui];
    let env = parameters(program, ui);
    let mut out: Vec<Message> = vec![];
    let mut seen = std::collections::BTreeSet::new();
    for &b in &nest.blocks {
        let block = &unit.blocks[b as usize];
        for &si in &block.stmts {
            if !seen.insert(si) {
                continue;
            }
            let Some(st) = unit.stmts.get(si as usize) else {
                continue;
            };
            for e in read_exprs(&st.kind) {
                visit(e, &mut |x| {
                    let ExprKind::Elem(v, subs) = &x.kind else {
                        return;
                    };
                    if let Some(layout) = layouts.get(&v.name) {
                        for m in reference(unit, block.in_loop, nest, layout, subs, &env) {
                            add(&mut out, m);
                        }
                    }
                });
            }
            if let Some(m) = reduction(unit, block.in_loop, nest, &st.kind, layouts) {
                add(&mut out, m);
            }
        }
    }
    if out.iter().any(|m| matches!(m, Message::Gather { .. })) {
        notes.push(format!(
            "{}, line {}: a reference no shift or broadcast describes: the whole array is gathered before each entry",
            unit.name, nest.line
        ));
    }
    out
}

/// Adds `m`, merging a halo with one of the same array and dimension.
fn add(out: &mut Vec<Message>, m: Message) {
    if let Message::Halo {
        array,
        dim,
        below,
        above,
        ..
    } = &m
    {
        for o in out.iter_mut() {
            if let Message::Halo {
                array: a,
                dim: d,
                below: b,
                above: u,
                ..
            } = o
            {
                if a == array && d == dim {
                    *b = (*b).max(*below);
                    *u = (*u).max(*above);
                    return;
                }
            }
        }
    }
    if !out.contains(&m) {
        out.push(m);
    }
}

/// The messages one reference `array(subs)` in the nest needs.
fn reference(
    unit: &augur_ir::Unit,
    inside: Option<augur_ir::LoopId>,
    nest: &Nest,
    layout: &ArrayLayout,
    subs: &[Subscript],
    env: &augur_scaling::nest::Env,
) -> Vec<Message> {
    let mut out = vec![];
    let array = layout.array.clone();
    for (d, s) in subs.iter().enumerate().take(layout.dims.len()) {
        let Some(axis) = layout.axes[d] else {
            continue;
        };
        let gather = Message::Gather {
            array: array.clone(),
        };
        let Subscript::Index(e) = s else {
            match section_reference(nest, layout, d, axis, s, env) {
                Some(shift) => out.extend(shift),
                None => out.push(gather),
            }
            continue;
        };
        match subscript(e, env) {
            Sub::Shifted(var, off) => {
                if let Some(p) = nest.partitions.iter().find(|p| p.var == var) {
                    let delta = off - p.offset;
                    if p.axis != axis {
                        out.push(gather);
                    } else if delta != 0 {
                        out.push(Message::Halo {
                            array: array.clone(),
                            dim: d,
                            axis,
                            below: (-delta).max(0),
                            above: delta.max(0),
                        });
                    }
                } else if loop_of_var(unit, inside, &var).is_some_and(|l| {
                    unit.loop_within(Some(augur_ir::LoopId(l)), augur_ir::LoopId(nest.root))
                }) {
                    out.push(if transposed(nest, subs, d, env) {
                        Message::Transpose {
                            array: array.clone(),
                        }
                    } else {
                        gather
                    });
                } else {
                    out.push(Message::Broadcast {
                        array: array.clone(),
                        dim: d,
                        axis,
                        index: None,
                        scalar: Some((var, off)),
                        owners: vec![],
                    });
                }
            }
            Sub::Constant(c) => out.push(Message::Broadcast {
                array: array.clone(),
                dim: d,
                axis,
                index: Some(c),
                scalar: None,
                owners: vec![],
            }),
            Sub::Other => out.push(gather),
        }
    }
    out
}

/// A section of a distributed dimension in an array statement split by sections:
/// `Some(None)` (local) where it starts where the assigned section does, `Some(shift)` by
/// the difference; `None` (a gather) where the nest is not split by a section on that
/// axis or a bound has no value.
fn section_reference(
    nest: &Nest,
    layout: &ArrayLayout,
    d: usize,
    axis: usize,
    s: &Subscript,
    env: &augur_scaling::nest::Env,
) -> Option<Option<Message>> {
    let p = nest
        .partitions
        .iter()
        .find(|p| p.section && p.axis == axis)?;
    let dim = &layout.dims[d];
    let whole = (dim.lower, dim.lower + dim.extent - 1);
    let (lo, _) = crate::work::section_range(Some(s), whole, env)?;
    let delta = lo - p.offset;
    Some((delta != 0).then(|| Message::Halo {
        array: layout.array.clone(),
        dim: d,
        axis,
        below: (-delta).max(0),
        above: delta.max(0),
    }))
}

/// Whether a split index subscripts another dimension of the reference than `d`, which
/// another index runs along: the data is laid out across what the nest splits.
fn transposed(nest: &Nest, subs: &[Subscript], d: usize, env: &augur_scaling::nest::Env) -> bool {
    subs.iter().enumerate().any(|(k, s)| {
        k != d
            && matches!(s, Subscript::Index(e)
                if matches!(subscript(e, env), Sub::Shifted(v, _) if nest.partitions.iter().any(|p| p.var == v)))
    })
}

/// A scalar accumulated inside a split loop (`s = s + a(i)`, `m = max(m, a(i))`).
fn reduction(
    unit: &augur_ir::Unit,
    inside: Option<augur_ir::LoopId>,
    nest: &Nest,
    kind: &StmtKind,
    layouts: &BTreeMap<String, ArrayLayout>,
) -> Option<Message> {
    let StmtKind::Assign { lhs, rhs } = kind else {
        return None;
    };
    let ExprKind::Var(v) = &lhs.kind else {
        return None;
    };
    if v.rank != 0 || layouts.contains_key(&v.name) {
        return None;
    }
    let split = nest
        .partitions
        .iter()
        .any(|p| unit.loop_within(inside, augur_ir::LoopId(p.loop_id)));
    let private = || {
        // Set afresh inside a split loop: a temporary of each iteration.
        nest.blocks.iter().any(|&b| {
            let block = &unit.blocks[b as usize];
            let in_split = nest
                .partitions
                .iter()
                .any(|p| unit.loop_within(block.in_loop, augur_ir::LoopId(p.loop_id)));
            in_split
                && block.stmts.iter().any(|&si| {
                    matches!(&unit.stmts[si as usize].kind,
                        StmtKind::Assign { lhs: l, rhs: r }
                            if matches!(&l.kind, ExprKind::Var(w) if w.name == v.name)
                                && !reads_var(r, &v.name))
                })
        })
    };
    // An array statement's scalar result (`s = sum(u)`) is a reduction of its elements.
    let elements =
        inside.is_some_and(|l| unit.loops[l.0 as usize].kind == augur_ir::LoopKind::ArrayElements);
    let reduced = elements || (reads_var(rhs, &v.name) && !private());
    (split && reduced).then(|| Message::Reduction {
        var: v.name.clone(),
        bytes: u32::from(v.ty.kind.max(1)),
    })
}
