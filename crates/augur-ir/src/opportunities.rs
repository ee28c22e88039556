//! Optimization opportunities found statically in a loop: code an optimizing compiler is
//! likely to change while augur counts it as written. Three kinds:
//!
//! * **invariants**: an operation whose operands no statement of the loop changes, counted
//!   every iteration, computed once before the loop after code motion;
//! * **common subexpressions**: an operation computed again in the same iteration with
//!   operands unchanged since (the earlier value reused after CSE);
//! * **strided nests**: an innermost loop that walks arrays along a non-contiguous
//!   dimension (Fortran is column-major) while an enclosing loop indexes the contiguous
//!   one (the nest reordered by loop interchange).
//!
//! The findings are the program's; which of them a compiler acts on is the machine's
//! business (its detection table), so nothing here knows a compiler.

use crate::count::count_expr;
use crate::counts::AbOpCounts;
use crate::program::{
    BlockId, CallTarget, Expr, ExprKind, Loop, LoopId, LoopKind, StmtKind, Subscript, UnOp, Unit,
};
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;

/// What kind of opportunity.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OpportunityKind {
    /// A loop-invariant operation (code motion of invariants).
    Invariant,
    /// A repeated subexpression (common-subexpression elimination).
    CommonSubexpression,
    /// An inner loop walking arrays along a non-contiguous dimension (loop interchange).
    StridedNest,
}

/// One opportunity in one loop.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Opportunity {
    /// What it is.
    pub kind: OpportunityKind,
    /// `local` (in the block that starts each iteration, or the same block as the value
    /// reused), `global` (across a branch or call), `-` for a nest.
    pub scope: String,
    /// Source line of the statement (of the inner loop's DO for a nest).
    pub line: u32,
    /// The expression (or the strided references), as Fortran.
    pub text: String,
    /// The block whose every execution runs the operations in `saved`.
    pub block: u32,
    /// AbOps per execution of `block` the optimization would remove (empty for a nest).
    #[serde(default, skip_serializing_if = "AbOpCounts::is_empty")]
    pub saved: AbOpCounts,
    /// For a nest: the line of the enclosing loop whose index runs along the contiguous
    /// dimension.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub outer_line: Option<u32>,
}

/// Longest expression text kept in an [`Opportunity`].
const TEXT_MAX: usize = 60;

/// The opportunities of loop `l` of `unit`, in the statements whose innermost loop it is
/// (those of nested loops belong to them). Element loops of array statements have none.
pub fn find(unit: &Unit, l: &Loop) -> Vec<Opportunity> {
    if l.kind == LoopKind::ArrayElements {
        return vec![];
    }
    let own = own_statements(unit, l.id);
    let defs = Defs::of_loop(unit, l.id);
    let mut out = vec![];
    if !defs.opaque {
        out.extend(invariants(unit, l, &own, &defs));
        out.extend(common_subexpressions(unit, l, &own, &defs));
    }
    out.extend(strided_nest(unit, l, &own));
    out
}

/// The statements (index, block) of the loop's own non-header blocks, in source order.
fn own_statements(unit: &Unit, id: LoopId) -> Vec<(u32, BlockId)> {
    let mut v: Vec<(u32, BlockId)> = unit
        .blocks
        .iter()
        .filter(|b| b.in_loop == Some(id) && b.kind != crate::BlockKind::LoopHeader)
        .flat_map(|b| b.stmts.iter().map(move |&s| (s, b.id)))
        .collect();
    v.sort_by_key(|&(s, _)| s);
    v.dedup_by_key(|&mut (s, _)| s);
    v
}

/// What a loop may change: variables assigned, read, passed to calls, loop indices.
#[derive(Debug, Default)]
struct Defs {
    names: BTreeSet<String>,
    /// A user procedure is called: COMMON and module variables may change.
    globals: bool,
    /// A statement changes storage augur cannot name (ALLOCATE, pointer games).
    opaque: bool,
}

impl Defs {
    /// Everything the statements of loop `id` (nested loops included) may change.
    fn of_loop(unit: &Unit, id: LoopId) -> Defs {
        let mut d = Defs::default();
        for l in unit
            .loops
            .iter()
            .filter(|x| unit.loop_within(Some(x.id), id))
        {
            d.names.extend(l.var.clone());
        }
        let stmts: BTreeSet<u32> = unit
            .blocks
            .iter()
            .filter(|b| unit.loop_within(b.in_loop, id))
            .flat_map(|b| b.stmts.iter().copied())
            .collect();
        for s in stmts {
            if let Some(st) = unit.stmts.get(s as usize) {
                d.add_stmt(&st.kind);
            }
        }
        d
    }

    fn add_stmt(&mut self, kind: &StmtKind) {
        match kind {
            StmtKind::Assign { lhs, rhs } => {
                self.names.extend(base_name(lhs));
                self.add_calls(rhs);
            }
            StmtKind::Call { args, .. } => {
                self.globals = true;
                args.iter().for_each(|a| self.add_argument(a));
            }
            StmtKind::Io { keyword, items, .. } if keyword == "read" => {
                items.iter().for_each(|a| self.add_argument(a));
            }
            StmtKind::Allocate { .. } | StmtKind::AssignedGoto { .. } => self.opaque = true,
            StmtKind::If { cond } | StmtKind::LogicalIf { cond } => self.add_calls(cond),
            _ => {}
        }
    }

    fn add_argument(&mut self, a: &Expr) {
        self.names.extend(base_name(a));
        self.add_calls(a);
    }

    /// User functions referenced in `e` may change their arguments and global storage.
    fn add_calls(&mut self, e: &Expr) {
        if let ExprKind::Call(CallTarget::User(_), args) = &e.kind {
            self.globals = true;
            args.iter().for_each(|a| self.add_argument(a));
        }
        for o in e.operands() {
            self.add_calls(o);
        }
    }

    /// Whether `e`'s value cannot change while the loop runs.
    fn invariant(&self, e: &Expr) -> bool {
        if e.array {
            return false;
        }
        match &e.kind {
            ExprKind::Const { .. } => true,
            ExprKind::Var(v) => self.unchanged(&v.name, v.global),
            ExprKind::Elem(v, subs) => {
                self.unchanged(&v.name, v.global)
                    && subs.iter().all(|s| match s {
                        Subscript::Index(i) => self.invariant(i),
                        Subscript::Range(..) => false,
                    })
            }
            ExprKind::Unary(_, a) | ExprKind::Component(a, _) | ExprKind::Substring(a) => {
                self.invariant(a)
            }
            ExprKind::Binary(_, a, b) => self.invariant(a) && self.invariant(b),
            ExprKind::Call(CallTarget::Intrinsic(_), args) => {
                args.iter().all(|a| self.invariant(a))
            }
            _ => false,
        }
    }

    fn unchanged(&self, name: &str, global: bool) -> bool {
        !(self.names.contains(name) || global && self.globals)
    }
}

/// The variable a reference names (`a` of `a(i)%x(2:3)`).
fn base_name(e: &Expr) -> Option<String> {
    match &e.kind {
        ExprKind::Var(v) | ExprKind::Elem(v, _) => Some(v.name.clone()),
        ExprKind::Component(b, _) | ExprKind::Substring(b) => base_name(b),
        _ => None,
    }
}

/// Whether `e` is a scalar operation worth a finding: arithmetic, a negation, a
/// comparison or an intrinsic function, reading at least one variable (constants alone
/// are constant folding's), not on characters.
fn is_operation(e: &Expr) -> bool {
    let op = matches!(
        &e.kind,
        ExprKind::Binary(..)
            | ExprKind::Unary(UnOp::Neg | UnOp::Not, _)
            | ExprKind::Call(CallTarget::Intrinsic(_), _)
    );
    op && !e.array && e.ty.base != crate::BaseType::Character && reads_variable(e)
}

fn reads_variable(e: &Expr) -> bool {
    matches!(e.kind, ExprKind::Var(_) | ExprKind::Elem(..))
        || e.operands().into_iter().any(reads_variable)
}

/// The value expressions of a statement that run every time it does.
fn value_exprs(kind: &StmtKind) -> Vec<&Expr> {
    match kind {
        StmtKind::Assign { rhs, .. } => vec![rhs],
        StmtKind::If { cond } | StmtKind::LogicalIf { cond } => vec![cond],
        StmtKind::Call { args, .. } => args.iter().collect(),
        _ => vec![],
    }
}

fn short(e: &Expr) -> String {
    let t = e.to_string();
    if t.chars().count() <= TEXT_MAX {
        return t;
    }
    let cut: String = t.chars().take(TEXT_MAX - 3).collect();
    format!("{cut}...")
}

fn scope_of(l: &Loop, block: BlockId) -> &'static str {
    if block == l.body_block {
        "local"
    } else {
        "global"
    }
}

/// The largest invariant operations of the loop's own statements.
fn invariants(unit: &Unit, l: &Loop, own: &[(u32, BlockId)], defs: &Defs) -> Vec<Opportunity> {
    let mut out = vec![];
    for &(s, b) in own {
        let Some(st) = unit.stmts.get(s as usize) else {
            continue;
        };
        let mut found = vec![];
        for e in value_exprs(&st.kind) {
            largest_invariants(e, defs, &mut found);
        }
        out.extend(found.into_iter().map(|e| Opportunity {
            kind: OpportunityKind::Invariant,
            scope: scope_of(l, b).into(),
            line: st.span.start.line,
            text: short(e),
            block: b.0,
            saved: count_expr(e),
            outer_line: None,
        }));
    }
    out
}

fn largest_invariants<'a>(e: &'a Expr, defs: &Defs, out: &mut Vec<&'a Expr>) {
    if is_operation(e) && defs.invariant(e) {
        out.push(e);
        return;
    }
    for o in e.operands() {
        largest_invariants(o, defs, out);
    }
}

/// The values an iteration has computed so far and may reuse.
struct Available<'a> {
    exprs: Vec<(&'a Expr, BlockId)>,
}

impl<'a> Available<'a> {
    /// Keeps what dominates `block`: values of the same block or of the iteration's
    /// first block.
    fn enter(&mut self, block: BlockId, first: BlockId) {
        self.exprs.retain(|&(_, b)| b == block || b == first);
    }

    /// Forgets the values a statement may change.
    fn kill(&mut self, kind: &StmtKind) {
        let mut d = Defs::default();
        d.add_stmt(kind);
        if d.globals || d.opaque || matches!(kind, StmtKind::Do { .. }) {
            self.exprs.clear();
            return;
        }
        self.exprs.retain(|(e, _)| d.invariant(e));
    }

    /// Walks `e`: a repeated operation is recorded (its parts are not), the others made
    /// available after their operands.
    fn walk(&mut self, e: &'a Expr, block: BlockId, found: &mut Vec<(&'a Expr, BlockId)>) {
        if is_operation(e) {
            if let Some(&(_, first)) = self.exprs.iter().find(|(x, _)| *x == e) {
                found.push((e, first));
                return;
            }
        }
        for o in e.operands() {
            self.walk(o, block, found);
        }
        if is_operation(e) {
            self.exprs.push((e, block));
        }
    }
}

/// Operations computed again in one iteration with their operands unchanged since.
/// (Invariant ones are left to [`invariants`]: code motion removes them all.)
fn common_subexpressions(
    unit: &Unit,
    l: &Loop,
    own: &[(u32, BlockId)],
    defs: &Defs,
) -> Vec<Opportunity> {
    let mut avail = Available { exprs: vec![] };
    let mut out = vec![];
    for &(s, b) in own {
        let Some(st) = unit.stmts.get(s as usize) else {
            continue;
        };
        avail.enter(b, l.body_block);
        let mut found = vec![];
        for e in value_exprs(&st.kind) {
            avail.walk(e, b, &mut found);
        }
        let varying = found.into_iter().filter(|(e, _)| !defs.invariant(e));
        out.extend(varying.map(|(e, first)| Opportunity {
            kind: OpportunityKind::CommonSubexpression,
            scope: if first == b { "local" } else { "global" }.into(),
            line: st.span.start.line,
            text: short(e),
            block: b.0,
            saved: count_expr(e),
            outer_line: None,
        }));
        avail.kill(&st.kind);
    }
    out
}

/// Whether `e` (subscripts included) reads variable `var`.
fn mentions(e: &Expr, var: &str) -> bool {
    if let ExprKind::Var(v) = &e.kind {
        return v.name == var;
    }
    e.operands()
        .into_iter()
        .chain(e.subscript_exprs())
        .any(|x| mentions(x, var))
}

/// Every array element reference of rank 2 or more in `e`, subscripts included.
fn element_refs<'a>(e: &'a Expr, out: &mut Vec<&'a Expr>) {
    if let ExprKind::Elem(_, subs) = &e.kind {
        if subs.len() >= 2 && subs.iter().all(|s| matches!(s, Subscript::Index(_))) {
            out.push(e);
        }
    }
    for x in e.operands().into_iter().chain(e.subscript_exprs()) {
        element_refs(x, out);
    }
}

/// How a reference's first subscript relates to the inner index `var`: `Some(true)`
/// contiguous (the first subscript reads it), `Some(false)` strided (a later one does),
/// `None` the reference does not move with it.
fn contiguity(r: &Expr, var: &str) -> Option<bool> {
    let subs = r.subscript_exprs();
    let first = subs.first()?;
    if mentions(first, var) {
        Some(true)
    } else if subs.iter().skip(1).any(|s| mentions(s, var)) {
        Some(false)
    } else {
        None
    }
}

/// The enclosing loop whose index the first subscript of `r` reads.
fn outer_index<'a>(unit: &'a Unit, l: &Loop, r: &Expr) -> Option<&'a Loop> {
    let first = *r.subscript_exprs().first()?;
    let mut at = l.parent;
    while let Some(p) = at.and_then(|x| unit.loops.get(x.0 as usize)) {
        if p.var.as_deref().is_some_and(|v| mentions(first, v)) {
            return Some(p);
        }
        at = p.parent;
    }
    None
}

/// An innermost counted loop of a nest whose strided references outnumber its
/// contiguous ones, each strided one contiguous along an enclosing loop's index.
fn strided_nest(unit: &Unit, l: &Loop, own: &[(u32, BlockId)]) -> Vec<Opportunity> {
    let innermost = !unit.loops.iter().any(|x| x.parent == Some(l.id));
    let Some(var) = l.var.as_deref().filter(|_| innermost && l.parent.is_some()) else {
        return vec![];
    };
    let mut refs = vec![];
    for &(s, _) in own {
        if let Some(StmtKind::Assign { lhs, rhs }) = unit.stmts.get(s as usize).map(|x| &x.kind) {
            element_refs(lhs, &mut refs);
            element_refs(rhs, &mut refs);
        }
    }
    let contiguous = refs
        .iter()
        .filter(|r| contiguity(r, var) == Some(true))
        .count();
    let strided: Vec<(&Expr, &Loop)> = refs
        .iter()
        .filter(|r| contiguity(r, var) == Some(false))
        .filter_map(|r| Some((*r, outer_index(unit, l, r)?)))
        .collect();
    let Some(&(_, outer)) = strided.first() else {
        return vec![];
    };
    if strided.len() <= contiguous {
        return vec![];
    }
    let text: Vec<String> = strided.iter().take(3).map(|(r, _)| short(r)).collect();
    vec![Opportunity {
        kind: OpportunityKind::StridedNest,
        scope: "-".into(),
        line: l.span.start.line,
        text: text.join(", "),
        block: l.body_block.0,
        saved: AbOpCounts::new(),
        outer_line: Some(outer.span.start.line),
    }]
}
