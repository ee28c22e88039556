//! Calls a loop chains through their arguments.
//!
//! A loop of Runge-Kutta stages calls a procedure that computes the derivatives from the
//! state (mineos's `call derms(iq, z, f, h(1,ni), ...)`, which reads `f` and writes `h`)
//! and one that forms the next stage's state from them (`call rkdot(f, s, h, nvec, ni)`,
//! which reads `h` and writes `f`): each call waits for the results of the one before, so
//! the core cannot overlap one call's body with the next, as it does with the calls of a
//! loop whose iterations are independent. A call is chained when, among the statements
//! directly in its innermost loop (its calls and assignments), a path of values runs from
//! what it writes, through another of them, back to what it reads: `A` feeds `B` when `B`
//! reads a variable `A` writes (a call writes the actual arguments its procedure assigns,
//! directly or by passing them on), unless both name elements at subscripts the loop
//! changes (`call f(x(1,i))` writes another column on every iteration). Where both are
//! at the loop's index plus a constant, the offsets say which iteration reads what
//! another wrote: a block-tridiagonal sweep's `call solve(a(1,1,i), x(1,i-1), x(1,i))`
//! reads the cell the call before wrote (a chain from cell to cell, NPB BT's kind, which
//! holds even for one call alone), a statement after it reads `x(1,i)` in the same
//! iteration.

use crate::program::{BinOp, Expr, ExprKind, LoopId, Program, StmtKind, Unit, UnitKind};
use std::collections::{BTreeSet, HashMap};

/// A call a loop chains: the block of the caller that holds it and the procedure it calls.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ChainedCall {
    /// The caller's block holding the CALL statement.
    pub block: usize,
    /// The unit called.
    pub callee: usize,
}

/// The procedures of a program by name, as a call resolves them.
pub struct ProcedureNames<'p> {
    units: &'p [Unit],
    by_name: HashMap<&'p str, Vec<usize>>,
}

impl<'p> ProcedureNames<'p> {
    /// The subroutines and functions of `units` by name.
    pub fn new(units: &'p [Unit]) -> ProcedureNames<'p> {
        let mut by_name: HashMap<&str, Vec<usize>> = HashMap::new();
        for (i, u) in units.iter().enumerate() {
            if matches!(u.kind, UnitKind::Subroutine | UnitKind::Function) {
                by_name.entry(u.name.as_str()).or_default().push(i);
            }
        }
        ProcedureNames { units, by_name }
    }

    /// The unit a call of `name` from unit `caller` reaches: a procedure of the caller's
    /// own host (internal or module procedures of the same name elsewhere are other
    /// procedures), else the first of that name.
    pub fn resolve(&self, caller: usize, name: &str) -> Option<usize> {
        let candidates = self.by_name.get(name)?;
        let host = self.units.get(caller)?.host;
        candidates
            .iter()
            .copied()
            .find(|&i| {
                self.units[i].host == Some(caller) || (host.is_some() && self.units[i].host == host)
            })
            .or_else(|| candidates.first().copied())
    }
}

/// Per unit of `program`, the calls its loops chain, each loop among the statements
/// directly in it (see the module's doc).
pub fn chained_calls(program: &Program) -> Vec<Vec<ChainedCall>> {
    let names = ProcedureNames::new(&program.units);
    let written = written_dummies(&program.units, &names);
    program
        .units
        .iter()
        .enumerate()
        .map(|(ui, u)| {
            u.loops
                .iter()
                .flat_map(|l| chained_in_loop(u, ui, l.id, &names, &written))
                .collect()
        })
        .collect()
}

/// One statement directly in a loop, as values flow through it.
struct Node {
    /// The block holding it.
    block: usize,
    /// The unit it calls (CALL statements only).
    callee: Option<usize>,
    /// Variables it reads, each with where in the loop its element is.
    reads: Vec<(String, Place)>,
    /// Variables it writes, the same.
    writes: Vec<(String, Place)>,
}

/// Where a variable a statement names is, as the loop runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Place {
    /// The same on every iteration (a scalar, a whole array, an element at fixed
    /// subscripts).
    Fixed,
    /// An element at the loop's index plus this constant, in the loop's direction (the
    /// constant's sign turned for a loop that counts down).
    Ahead(i64),
    /// An element the loop moves otherwise.
    Moving,
}

/// How one node's writes reach another's reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Feed {
    /// Not at all.
    No,
    /// In the same iteration, or through a variable every iteration shares.
    Along,
    /// To a later iteration, through an element the loop moves.
    Carried,
}

/// How node `a` (the `ia`-th statement) feeds node `b` (the `ib`-th).
fn feed(a: &Node, ia: usize, b: &Node, ib: usize) -> Feed {
    let mut out = Feed::No;
    for (w, wp) in &a.writes {
        for (_, rp) in b.reads.iter().filter(|(r, _)| r == w) {
            let f = match (*wp, *rp) {
                (Place::Fixed, _) | (_, Place::Fixed) => Feed::Along,
                // The read is behind the write: it reads what an earlier iteration wrote.
                (Place::Ahead(kw), Place::Ahead(kr)) if kr < kw => Feed::Carried,
                (Place::Ahead(kw), Place::Ahead(kr)) if kr == kw && ia < ib => Feed::Along,
                _ => Feed::No,
            };
            out = out.max(f);
        }
    }
    out
}

/// The chained calls of loop `id` of unit `u` (index `ui`).
fn chained_in_loop(
    u: &Unit,
    ui: usize,
    id: LoopId,
    names: &ProcedureNames,
    written: &[Vec<bool>],
) -> Vec<ChainedCall> {
    let blocks: Vec<usize> = (0..u.blocks.len())
        .filter(|&b| u.blocks[b].in_loop == Some(id))
        .collect();
    let stmts = || {
        blocks.iter().flat_map(|&b| {
            u.blocks[b]
                .stmts
                .iter()
                .filter_map(move |&s| u.stmts.get(s as usize).map(|st| (b, &st.kind)))
        })
    };
    if !stmts().any(|(_, k)| matches!(k, StmtKind::Call { .. })) {
        return vec![];
    }
    let moving = Moving {
        scalars: moving_scalars(u, id, stmts().map(|(_, k)| k)),
        index: index_direction(u, id),
    };
    let nodes: Vec<Node> = stmts()
        .filter_map(|(b, k)| node(k, b, ui, names, written, &moving))
        .collect();
    (0..nodes.len())
        .filter_map(|i| {
            let callee = nodes[i].callee?;
            let carries_itself = feed(&nodes[i], i, &nodes[i], i) == Feed::Carried;
            (carries_itself || reaches_itself(&nodes, i)).then_some(ChainedCall {
                block: nodes[i].block,
                callee,
            })
        })
        .collect()
}

/// What a loop moves: the scalars it gives new values, and its index with the sign of
/// its step (`None` for a loop without an index or whose step is not a constant).
struct Moving {
    scalars: BTreeSet<String>,
    index: Option<(String, i64)>,
}

/// The index of loop `id` of `u` and its step's sign: +1 for a unit step, the sign of a
/// constant step written as an integer literal.
fn index_direction(u: &Unit, id: LoopId) -> Option<(String, i64)> {
    let l = u.loops.get(id.0 as usize)?;
    let var = l.var.clone()?;
    if l.unit_step {
        return Some((var, 1));
    }
    let step: i64 = l.bounds.as_ref()?.step.as_ref()?.trim().parse().ok()?;
    (step != 0).then_some((var, step.signum()))
}

/// Whether a path of feeds leads from node `start` back to it through another node. A
/// call that only feeds itself through a variable every iteration shares (`call
/// accumulate(x(i), total)`) carries it from one call to the next, which its procedure's
/// carried path prices: the rest of its body need not wait.
fn reaches_itself(nodes: &[Node], start: usize) -> bool {
    let feeds = |a: usize, b: usize| feed(&nodes[a], a, &nodes[b], b) != Feed::No;
    let mut seen = vec![false; nodes.len()];
    seen[start] = true;
    let mut stack = vec![start];
    while let Some(a) = stack.pop() {
        for b in (0..nodes.len()).filter(|&b| feeds(a, b)) {
            if b == start && a != start {
                return true;
            }
            if !std::mem::replace(&mut seen[b], true) {
                stack.push(b);
            }
        }
    }
    false
}

/// The scalars a loop gives new values: its index and those its statements assign.
fn moving_scalars<'s>(
    u: &Unit,
    id: LoopId,
    stmts: impl Iterator<Item = &'s StmtKind>,
) -> BTreeSet<String> {
    let mut out: BTreeSet<String> = u
        .loops
        .get(id.0 as usize)
        .and_then(|l| l.var.clone())
        .into_iter()
        .collect();
    for k in stmts {
        if let StmtKind::Assign { lhs, .. } = k {
            if let ExprKind::Var(v) = &lhs.kind {
                out.insert(v.name.clone());
            }
        }
    }
    out
}

/// A statement as a [`Node`]: a CALL or an assignment (others carry no value on).
fn node(
    kind: &StmtKind,
    block: usize,
    ui: usize,
    names: &ProcedureNames,
    written: &[Vec<bool>],
    moving: &Moving,
) -> Option<Node> {
    let mut n = Node {
        block,
        callee: None,
        reads: vec![],
        writes: vec![],
    };
    match kind {
        StmtKind::Assign { lhs, rhs } => {
            n.writes.extend(designated(lhs, moving));
            read_by(rhs, moving, &mut n.reads);
            for x in lhs.subscript_exprs() {
                read_by(x, moving, &mut n.reads);
            }
        }
        StmtKind::Call { name, args } => {
            n.callee = names.resolve(ui, name);
            let assigns = n.callee.and_then(|c| written.get(c));
            for (k, a) in args.iter().enumerate() {
                read_by(a, moving, &mut n.reads);
                // A procedure the program does not hold (a library's) may write any of
                // its arguments.
                if assigns.map_or(true, |w| w.get(k).copied().unwrap_or(false)) {
                    n.writes.extend(designated(a, moving));
                }
            }
        }
        _ => return None,
    }
    Some(n)
}

/// The variable an expression designates (a variable, an element or section of one, a
/// component or substring of one), with where the loop has its element.
fn designated(e: &Expr, moving: &Moving) -> Option<(String, Place)> {
    match &e.kind {
        ExprKind::Var(v) => Some((v.name.clone(), Place::Fixed)),
        ExprKind::Elem(v, _) => Some((v.name.clone(), place(e, moving))),
        ExprKind::Component(b, _) | ExprKind::Substring(b) => designated(b, moving),
        _ => None,
    }
}

/// Where the loop has element `e`: fixed when no subscript reads a scalar the loop gives
/// new values; ahead of the index by a constant when the only such subscript is the
/// loop's index plus or minus a constant.
fn place(e: &Expr, moving: &Moving) -> Place {
    let mut offsets = vec![];
    for x in e.subscript_exprs() {
        let mut read = vec![];
        crate::chain::scalars_read(x, &mut read);
        if read.iter().any(|r| moving.scalars.contains(*r)) {
            offsets.push(
                moving
                    .index
                    .as_ref()
                    .and_then(|(var, sign)| Some(sign * index_offset(x, var)?)),
            );
        }
    }
    match offsets.as_slice() {
        [] => Place::Fixed,
        [Some(k)] => Place::Ahead(*k),
        _ => Place::Moving,
    }
}

/// `k` where `x` is `var + k`, `k + var` or `var - k` (`k` an integer constant).
fn index_offset(x: &Expr, var: &str) -> Option<i64> {
    let is_var = |e: &Expr| matches!(&e.kind, ExprKind::Var(v) if v.name == var);
    match &x.kind {
        ExprKind::Var(_) if is_var(x) => Some(0),
        ExprKind::Binary(BinOp::Add, a, b) if is_var(a) => b.int_value(),
        ExprKind::Binary(BinOp::Add, a, b) if is_var(b) => a.int_value(),
        ExprKind::Binary(BinOp::Sub, a, b) if is_var(a) => b.int_value().map(|k| -k),
        _ => None,
    }
}

/// Every variable `e` reads (its subscripts' too), with where the loop has its element.
fn read_by(e: &Expr, moving: &Moving, out: &mut Vec<(String, Place)>) {
    e.visit_all(&mut |x| {
        if let Some(d) = designated(x, moving) {
            if matches!(x.kind, ExprKind::Var(_) | ExprKind::Elem(..)) && !out.contains(&d) {
                out.push(d);
            }
        }
    });
}

/// Per unit, which of its dummy arguments it assigns: directly (an assignment to it, an
/// element or a component of it, a READ into it) or by passing it to a procedure that
/// assigns its own (a procedure the program does not hold is taken to).
pub fn written_dummies(units: &[Unit], names: &ProcedureNames) -> Vec<Vec<bool>> {
    let mut written: Vec<Vec<bool>> = units.iter().map(|u| vec![false; u.dummies.len()]).collect();
    // Passing a dummy on makes it written once its callee's is: repeat until nothing moves
    // (a dummy only ever becomes written, so this ends).
    loop {
        let mut changed = false;
        for (ui, u) in units.iter().enumerate() {
            for st in &u.stmts {
                for name in assigned_names(&st.kind, ui, names, &written) {
                    if let Some(k) = u.dummies.iter().position(|d| *d == name) {
                        if !written[ui][k] {
                            written[ui][k] = true;
                            changed = true;
                        }
                    }
                }
            }
        }
        if !changed {
            return written;
        }
    }
}

/// The variables a statement of unit `ui` assigns.
fn assigned_names(
    kind: &StmtKind,
    ui: usize,
    names: &ProcedureNames,
    written: &[Vec<bool>],
) -> Vec<String> {
    let none = Moving {
        scalars: BTreeSet::new(),
        index: None,
    };
    let name_of = |e: &Expr| designated(e, &none).map(|d| d.0);
    match kind {
        StmtKind::Assign { lhs, .. } => name_of(lhs).into_iter().collect(),
        StmtKind::Io { keyword, items, .. } if keyword == "read" => {
            items.iter().filter_map(name_of).collect()
        }
        StmtKind::Call { name, args } => {
            let assigns = names.resolve(ui, name).and_then(|c| written.get(c));
            args.iter()
                .enumerate()
                .filter(|(k, _)| assigns.map_or(true, |w| w.get(*k).copied().unwrap_or(false)))
                .filter_map(|(_, a)| name_of(a))
                .collect()
        }
        _ => vec![],
    }
}
