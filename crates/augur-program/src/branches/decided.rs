//! Conditions the loop bounds decide: a comparison of an enclosing counted DO loop's
//! index with a value the loop does not change (`if (1 < i)`, `if (i < n)`,
//! `if (i == k)`). Over an entry of the loop its outcome switches at most twice, at
//! iterations the bounds fix, so it costs at most a few mispredictions an entry: the
//! block counts' bound (`n − max n_s`, the executions of its rarer direction) prices it,
//! an over-estimate by as much where a history predictor learns the switch from the
//! loop's start. The branch run leaves such a condition out: on a Jacobi sweep whose
//! boundary tests are written `if (1 < i)` and `if (i < n)`, they were 1 billion calls of
//! the branch runtime, 5.1 of its analysis's 7.0 s (10,000 mispredictions simulated,
//! 20,000 bounded: 0.01% of its predicted time).

use augur_ir::{BinOp, Expr, ExprKind, LoopId, LoopKind, StmtKind, Unit};
use std::collections::HashSet;

/// Whether `cond`, the condition ending block `block` of `u`, compares the index of a
/// counted unit-step loop around the block with an expression invariant in that loop.
pub(super) fn decided_by_loop_index(u: &Unit, block: u32, cond: &Expr) -> bool {
    let ExprKind::Binary(BinOp::Compare, a, b) = &cond.kind else {
        return false;
    };
    let mut at = u.blocks.get(block as usize).and_then(|b| b.in_loop);
    while let Some(id) = at {
        let Some(l) = u.loops.get(id.0 as usize) else {
            return false;
        };
        if let (LoopKind::Counted, true, Some(var)) = (&l.kind, l.unit_step, l.var.as_deref()) {
            let index = |e: &Expr| matches!(&e.kind, ExprKind::Var(r) if r.name == var);
            let other = match (index(a), index(b)) {
                (true, _) => Some(b),
                (_, true) => Some(a),
                _ => None,
            };
            if other.is_some_and(|o| Changed::in_loop(u, id).spares(o)) {
                return true;
            }
        }
        at = l.parent;
    }
    false
}

/// What the statements of a loop (its nested loops' included) may change.
struct Changed {
    /// Names assigned, read into or used as a nested loop's index.
    names: HashSet<String>,
    /// Whether the loop calls a procedure or does input (anything may change).
    anything: bool,
}

impl Changed {
    fn in_loop(u: &Unit, root: LoopId) -> Changed {
        let mut c = Changed {
            names: HashSet::new(),
            anything: false,
        };
        for b in u.blocks.iter().filter(|b| u.loop_within(b.in_loop, root)) {
            for st in b.stmts.iter().filter_map(|&s| u.stmts.get(s as usize)) {
                c.note(u, &st.kind);
            }
        }
        c
    }

    fn note(&mut self, u: &Unit, kind: &StmtKind) {
        match kind {
            StmtKind::Assign { lhs, rhs } => {
                if let Some(name) = base_name(lhs) {
                    self.names.insert(name.to_string());
                }
                self.anything |= crate::instrument::calls_user_function(rhs);
            }
            StmtKind::Do { loop_id, .. } => {
                if let Some(v) = u.loops.get(loop_id.0 as usize).and_then(|l| l.var.clone()) {
                    self.names.insert(v);
                }
            }
            StmtKind::Call { .. } | StmtKind::Io { .. } => self.anything = true,
            StmtKind::If { cond } | StmtKind::LogicalIf { cond } => {
                self.anything |= crate::instrument::calls_user_function(cond);
            }
            _ => {}
        }
    }

    /// Whether `e` is a scalar expression of literals, named constants and variables
    /// the loop leaves alone.
    fn spares(&self, e: &Expr) -> bool {
        match &e.kind {
            ExprKind::Const { .. } => true,
            ExprKind::Var(r) => {
                r.rank == 0 && (r.constant || (!self.anything && !self.names.contains(&r.name)))
            }
            ExprKind::Unary(_, x) => self.spares(x),
            ExprKind::Binary(BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Div, x, y) => {
                self.spares(x) && self.spares(y)
            }
            _ => false,
        }
    }
}

/// The variable an assignment's left-hand side stores into.
fn base_name(lhs: &Expr) -> Option<&str> {
    match &lhs.kind {
        ExprKind::Var(r) | ExprKind::Elem(r, _) => Some(&r.name),
        ExprKind::Component(b, _) | ExprKind::Substring(b) => base_name(b),
        _ => None,
    }
}
