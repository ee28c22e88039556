//! Stores that make threads share cache lines: inside a parallel region or a
//! worksharing loop, an element of a shared array that a thread stores into at every
//! iteration of its share, because no loop of the construct moves its subscripts.
//!
//! Two forms are found, both the classic per-thread accumulator:
//!
//! * `acc(tid) = acc(tid) + v`, the subscript a multiple of a variable assigned from
//!   `omp_get_thread_num()` (plus a constant): the threads' elements lie `stride ×
//!   element size` bytes apart, in one cache line when that is less than a line (false
//!   sharing), in lines of their own when padded;
//! * `s(1) = s(1) + v` with no thread number: every thread stores into the same
//!   element (true sharing, distance 0).
//!
//! Each such store moves the line between the cores' caches while the threads run
//! together. The distance is kept (the machine's line decides), and so are the block
//! and the stores per execution of it, so that the predictor can price each thread's
//! stores. Stores under `ATOMIC`, `CRITICAL` or `ORDERED` are left to those constructs'
//! measured overheads; subscripts that change inside the construct (a loop's index, a
//! variable it assigns) or of another form are not guessed.

use crate::omp::{Construct, ConstructKind, Structure};
use crate::program::{BinOp, BlockId, CallTarget, Expr, ExprKind, StmtKind, Unit};
use serde::{Deserialize, Serialize};
use std::collections::HashSet;

/// Stores of one statement into an element threads share a line through.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SharedStore {
    /// The block that holds the statement.
    pub block: BlockId,
    /// Original line of the statement.
    pub line: u32,
    /// The array stored into.
    pub array: String,
    /// Bytes between two threads' elements (0: the same element).
    pub distance_bytes: u64,
}

/// The shared-line stores of every parallel region and worksharing loop of `unit`,
/// each on the innermost of those constructs that holds it.
pub fn shared_line_stores(unit: &Unit, st: &Structure) -> Vec<(u32, SharedStore)> {
    if st.constructs.is_empty() {
        return vec![];
    }
    let tids = thread_number_variables(unit);
    let block_of = block_of_statement(unit);
    let mut moving_in: std::collections::HashMap<u32, Vec<String>> = Default::default();
    let mut out = vec![];
    for (si, s) in unit.stmts.iter().enumerate() {
        let StmtKind::Assign { lhs, .. } = &s.kind else {
            continue;
        };
        let ExprKind::Elem(array, _) = &lhs.kind else {
            continue;
        };
        let line = s.text.line;
        let covering: Vec<&Construct> = st
            .constructs
            .iter()
            .filter(|c| c.text_lines.0 < line && line <= c.text_lines.1)
            .collect();
        if covering.iter().any(|c| {
            matches!(
                c.directive.kind,
                ConstructKind::Atomic | ConstructKind::Critical | ConstructKind::Ordered
            )
        }) {
            continue;
        }
        let Some(c) = covering.iter().rev().find(|c| {
            matches!(
                c.directive.kind,
                ConstructKind::Parallel | ConstructKind::Loop
            )
        }) else {
            continue;
        };
        if is_private(st, c, &array.name) || lhs.array {
            continue;
        }
        let Some(Some(block)) = block_of.get(si).copied() else {
            continue;
        };
        let moving = moving_in
            .entry(c.id)
            .or_insert_with(|| moving_variables(unit, c, &tids));
        let exprs: Vec<&Expr> = lhs.subscript_exprs();
        if exprs.iter().any(|e| mentions_any(e, moving)) {
            continue;
        }
        let Some(stride) = element_stride(unit, &exprs, &tids) else {
            continue;
        };
        out.push((
            c.id,
            SharedStore {
                block,
                line: s.span.start.line,
                array: array.name.clone(),
                distance_bytes: stride.unsigned_abs() * u64::from(array.ty.kind.max(1)),
            },
        ));
    }
    out
}

/// Scalars assigned a value computed from `omp_get_thread_num()`.
fn thread_number_variables(unit: &Unit) -> HashSet<String> {
    let mut out = HashSet::new();
    for s in &unit.stmts {
        if let StmtKind::Assign { lhs, rhs } = &s.kind {
            if let ExprKind::Var(v) = &lhs.kind {
                if calls_thread_number(rhs) {
                    out.insert(v.name.clone());
                }
            }
        }
    }
    out
}

fn calls_thread_number(e: &Expr) -> bool {
    let named = matches!(&e.kind,
        ExprKind::Call(CallTarget::User(n) | CallTarget::Intrinsic(n), _) if n == "omp_get_thread_num");
    named || e.operands().into_iter().any(calls_thread_number)
}

/// The block each statement belongs to.
fn block_of_statement(unit: &Unit) -> Vec<Option<BlockId>> {
    let mut out = vec![None; unit.stmts.len()];
    for b in &unit.blocks {
        for &s in &b.stmts {
            if let Some(slot) = out.get_mut(s as usize) {
                *slot = Some(b.id);
            }
        }
    }
    out
}

/// Whether `name` is private in `c` or a construct around it (PRIVATE, FIRSTPRIVATE,
/// LASTPRIVATE, REDUCTION).
fn is_private(st: &Structure, c: &Construct, name: &str) -> bool {
    let mut at = Some(c);
    while let Some(k) = at {
        let cl = &k.directive.clauses;
        let listed = |v: &Vec<String>| v.iter().any(|x| x.eq_ignore_ascii_case(name));
        if listed(&cl.private)
            || listed(&cl.firstprivate)
            || listed(&cl.lastprivate)
            || cl.reductions.iter().any(|r| listed(&r.vars))
        {
            return true;
        }
        at = k.parent.and_then(|p| st.constructs.get(p as usize));
    }
    false
}

/// The variables that change inside construct `c`: the DO variables of its loops (its
/// bound loops included) and the scalars it assigns, but the thread number.
fn moving_variables(unit: &Unit, c: &Construct, tids: &HashSet<String>) -> Vec<String> {
    let loops = unit
        .loops
        .iter()
        .filter(|l| c.blocks.contains(&l.body_block))
        .filter_map(|l| l.var.as_ref().map(|v| v.to_ascii_lowercase()));
    let assigned = unit
        .stmts
        .iter()
        .filter(|s| c.text_lines.0 < s.text.line && s.text.line <= c.text_lines.1)
        .filter_map(|s| match &s.kind {
            StmtKind::Assign { lhs, .. } => match &lhs.kind {
                ExprKind::Var(v) if !tids.contains(&v.name) => Some(v.name.clone()),
                _ => None,
            },
            _ => None,
        });
    loops.chain(assigned).collect()
}

fn mentions_any(e: &Expr, names: &[String]) -> bool {
    matches!(&e.kind, ExprKind::Var(r) if names.contains(&r.name))
        || e.operands().into_iter().any(|o| mentions_any(o, names))
        || e.subscript_exprs()
            .into_iter()
            .any(|o| mentions_any(o, names))
}

/// Elements between two consecutive threads' stores: the first subscript's multiple
/// of the thread number (0 when no subscript holds one); `None` when a later subscript
/// holds it or the form is not a constant multiple.
fn element_stride(unit: &Unit, exprs: &[&Expr], tids: &HashSet<String>) -> Option<i64> {
    let tid_names: Vec<String> = tids.iter().cloned().collect();
    if exprs.iter().skip(1).any(|e| mentions_any(e, &tid_names)) {
        return None;
    }
    match exprs.first() {
        Some(e) if mentions_any(e, &tid_names) => thread_multiple(unit, e, &tid_names),
        _ => Some(0),
    }
}

/// `k` of a subscript `k·tid + c`.
fn thread_multiple(unit: &Unit, e: &Expr, tids: &[String]) -> Option<i64> {
    let constant = |x: &Expr| constant_value(unit, x);
    match &e.kind {
        ExprKind::Var(r) if tids.contains(&r.name) => Some(1),
        ExprKind::Binary(op @ (BinOp::Add | BinOp::Sub), a, b) => {
            if !mentions_any(b, tids) {
                thread_multiple(unit, a, tids)
            } else if !mentions_any(a, tids) {
                let k = thread_multiple(unit, b, tids)?;
                Some(if *op == BinOp::Sub { -k } else { k })
            } else {
                None
            }
        }
        ExprKind::Binary(BinOp::Mul, a, b) => match (constant(a), constant(b)) {
            (Some(c), None) => Some(c * thread_multiple(unit, b, tids)?),
            (None, Some(c)) => Some(c * thread_multiple(unit, a, tids)?),
            _ => None,
        },
        _ => None,
    }
}

/// An integer constant: a literal, or a named constant of known value.
fn constant_value(unit: &Unit, e: &Expr) -> Option<i64> {
    e.int_value().or_else(|| match &e.kind {
        ExprKind::Var(r) if r.constant => unit.symbol(&r.name).and_then(|s| s.value),
        _ => None,
    })
}
