//! Conditions the loop bounds decide: a comparison of an enclosing counted unit-step DO
//! loop's index with that loop's start or end, which the loop does not change
//! (`if (1 < i)` and `if (i < n)` in `do i = 1, n`). Its outcome switches at the loop's
//! first or last iteration of every entry, which a history predictor learns as it learns
//! the loop's exit: the branch run leaves it out and it is priced no misprediction (on a
//! Jacobi sweep whose boundary tests are written so, they were 1 billion calls of the
//! branch runtime, 5.1 of its analysis's 7.0 s, and 10,000 simulated mispredictions in
//! all, 0.01% of its predicted time). A comparison with another value (`i == p`) stays
//! recorded: where `p` sits changes from entry to entry, and whether the predictors learn
//! it depends on how (a 5-iteration elimination loop's `I .EQ. P`: 45 mispredictions
//! over 7.2 million entries; an N-body code's `j .EQ. i`: about one an entry).

use augur_ir::{BinOp, Expr, ExprKind, LoopId, LoopKind, StmtKind, Unit};
use std::collections::HashSet;

/// Whether `cond`, the condition ending block `block` of `u`, compares the index of a
/// counted unit-step loop around the block with that loop's start or end, invariant in it.
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
            let bound = |o: &Expr| {
                let text = plain(&o.to_string());
                l.bounds
                    .as_ref()
                    .is_some_and(|b| plain(&b.start) == text || plain(&b.end) == text)
            };
            if other.is_some_and(|o| bound(o) && Changed::in_loop(u, id).spares(o)) {
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

/// An expression's text without blanks, outer parentheses or case.
fn plain(text: &str) -> String {
    let mut t: String = text
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect::<String>()
        .to_ascii_lowercase();
    while t.starts_with('(') && t.ends_with(')') && balanced(&t[1..t.len() - 1]) {
        t = t[1..t.len() - 1].to_string();
    }
    t
}

/// Whether `t`'s parentheses never close more than they opened and end balanced.
fn balanced(t: &str) -> bool {
    let mut depth = 0i32;
    for c in t.chars() {
        depth += match c {
            '(' => 1,
            ')' => -1,
            _ => 0,
        };
        if depth < 0 {
            return false;
        }
    }
    depth == 0
}
