//! Recurrences: the operations of a statement that lie on a loop-carried dependence
//! chain.
//!
//! In `s = s + a(i)*b(i)` the add depends on the previous iteration's `s`, so
//! successive iterations cannot overlap it: a loop made of such statements runs at the
//! *latency* of the chain, however many independent operations the rest of the body has.
//! In `y(i) = x(i) + c` nothing carries from one iteration to the next and the loop runs
//! at the *throughput* of its operations. The predictor uses both: a block's time is the
//! larger of its operations at stream (throughput) cost and its chain operations at chain
//! (latency) cost.
//!
//! A chain here is the path from a reference to the assigned scalar variable, on the
//! right-hand side of its own assignment, up to the root of the expression: the
//! operations on that path, counted by the ordinary counting rules (so the AbOps are
//! those of the statement), without the store. Recurrences through several statements
//! (`t = x*2; x = t + 1`) and through array elements (`a(i) = a(i-1) + ...`, also when
//! the carried element is read by another statement of the block) are found by
//! [`block_chain_counts`] after [`as_scalar_recurrences`].

use crate::abop::AbOp;
use crate::count::count_stmt;
use crate::counts::AbOpCounts;
use crate::program::{Expr, ExprKind, StmtKind, Subscript, VarRef};

/// Whether `e` reads scalar variable `name` outside subscripts (a data dependence).
fn reads(e: &Expr, name: &str) -> bool {
    match &e.kind {
        ExprKind::Var(v) => v.rank == 0 && v.name == name,
        _ => e.operands().into_iter().any(|o| reads(o, name)),
    }
}

/// Whether an expression is a variable or element of COMMON/module storage.
fn global_leaf(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Var(v) | ExprKind::Elem(v, _) => v.global,
        _ => false,
    }
}

/// A stand-in for a subexpression off the chain: a plain scalar of the same type whose
/// value is ready (costs nothing on the chain) but that keeps the operation it feeds
/// non-constant and of the same storage class.
fn placeholder(e: &Expr) -> Expr {
    Expr {
        kind: ExprKind::Var(VarRef {
            name: "augur%off_chain".to_string(),
            ty: e.ty,
            rank: 0,
            global: global_leaf(e),
            constant: false,
        }),
        ty: e.ty,
        array: false,
    }
}

/// The assignment `lhs = v` of a value `v` off every chain: prepended to a block, it
/// says that `lhs` (a scalar) was already given this iteration's value by an earlier
/// block, so the block's reads of it carry nothing from the previous iteration.
pub fn fresh_definition(lhs: &Expr) -> StmtKind {
    StmtKind::Assign {
        lhs: lhs.clone(),
        rhs: placeholder(lhs),
    }
}

/// `e` with every subexpression that does not read `name` replaced by a placeholder.
/// Literals and named constants stay: an operation by a constant is counted as one
/// (`s / 8` is a shift, `DIC2`, not a division).
fn prune(e: &Expr, name: &str) -> Expr {
    if !reads(e, name) {
        let constant = match &e.kind {
            ExprKind::Const { .. } => true,
            ExprKind::Var(v) => v.constant,
            _ => false,
        };
        return if constant { e.clone() } else { placeholder(e) };
    }
    let kind = match &e.kind {
        ExprKind::Substring(b) => ExprKind::Substring(Box::new(prune(b, name))),
        ExprKind::Component(b, c) => ExprKind::Component(Box::new(prune(b, name)), c.clone()),
        ExprKind::Unary(op, b) => ExprKind::Unary(*op, Box::new(prune(b, name))),
        // Both operands on the chain (`s/8 + mod(s, 8)/4`): of two paths of single
        // instructions that run side by side, the longer (by operation count) is the
        // latency and the other is ready in time. Calls, powers and complex arithmetic
        // are instruction sequences (`z**5` and `z**4` call `pow_c4_i4` one after the
        // other): both paths stay.
        ExprKind::Binary(op, a, b)
            if reads(a, name) && reads(b, name) && single_instructions(e) =>
        {
            let (pa, pb) = (prune(a, name), prune(b, name));
            if operations(&pb) > operations(&pa) {
                ExprKind::Binary(*op, Box::new(placeholder(a)), Box::new(pb))
            } else {
                ExprKind::Binary(*op, Box::new(pa), Box::new(placeholder(b)))
            }
        }
        ExprKind::Binary(op, a, b) => {
            ExprKind::Binary(*op, Box::new(prune(a, name)), Box::new(prune(b, name)))
        }
        ExprKind::Call(t, args) => {
            ExprKind::Call(t.clone(), args.iter().map(|a| prune(a, name)).collect())
        }
        ExprKind::ArrayCtor(args) => {
            ExprKind::ArrayCtor(args.iter().map(|a| prune(a, name)).collect())
        }
        ExprKind::ImpliedDo(args, control) => ExprKind::ImpliedDo(
            args.iter().map(|a| prune(a, name)).collect(),
            control.clone(),
        ),
        other => other.clone(),
    };
    Expr {
        kind,
        ty: e.ty,
        array: e.array,
    }
}

/// Whether every operation of `e` is one instruction or a few: no user or library
/// calls (the intrinsics compilers expand inline, `MOD`, `ABS`, `MAX`, conversions,
/// bit operations, are fine), no powers, no complex values.
fn single_instructions(e: &Expr) -> bool {
    let own = match &e.kind {
        ExprKind::Call(crate::program::CallTarget::Intrinsic(n), _) => matches!(
            n.as_str(),
            "mod"
                | "modulo"
                | "abs"
                | "iabs"
                | "dabs"
                | "max"
                | "min"
                | "max0"
                | "min0"
                | "amax1"
                | "amin1"
                | "dmax1"
                | "dmin1"
                | "sign"
                | "isign"
                | "dsign"
                | "dim"
                | "idim"
                | "int"
                | "nint"
                | "real"
                | "float"
                | "dble"
                | "sngl"
                | "iand"
                | "ior"
                | "ieor"
                | "not"
                | "ishft"
                | "btest"
                | "ibset"
                | "ibclr"
        ),
        ExprKind::Call(..) | ExprKind::Binary(crate::program::BinOp::Pow, ..) => false,
        _ => true,
    };
    own && e.ty.base != crate::program::BaseType::Complex
        && e.operands().into_iter().all(single_instructions)
}

/// Operations (unary, binary, calls) in an expression.
fn operations(e: &Expr) -> usize {
    let own = matches!(
        e.kind,
        ExprKind::Unary(..) | ExprKind::Binary(..) | ExprKind::Call(..)
    ) as usize;
    own + e.operands().into_iter().map(operations).sum::<usize>()
}

/// The AbOps of one execution of a statement that lie on a recurrence through the
/// scalar it assigns (empty when it assigns an array element or does not read itself).
pub fn chain_counts(kind: &StmtKind) -> AbOpCounts {
    block_chain_counts(std::iter::once(kind))
}

/// The scalar a statement assigns, with its right-hand side.
fn scalar_assignment(kind: &StmtKind) -> Option<(&Expr, &str, &Expr)> {
    let StmtKind::Assign { lhs, rhs } = kind else {
        return None;
    };
    let ExprKind::Var(v) = &lhs.kind else {
        return None;
    };
    (v.rank == 0 && !lhs.array).then_some((lhs, v.name.as_str(), rhs))
}

/// The operations on the path from scalar `name` to the root of `rhs` (assigned to
/// `lhs`), with the assignment's store (or plain transfer): [`ChainPath`] counts the
/// assignments apart.
fn path_counts(lhs: &Expr, rhs: &Expr, name: &str) -> AbOpCounts {
    let pruned = StmtKind::Assign {
        lhs: placeholder(lhs),
        rhs: prune(rhs, name),
    };
    count_stmt(&pruned).once
}

/// Whether `op` is an assignment's store or plain transfer: on a path it marks a value
/// written to its variable and read back by the next statement, not an operation.
fn is_assignment(op: AbOp) -> bool {
    let meaning = op.info().meaning;
    meaning.starts_with("Store") || meaning.starts_with("Transfer (assignment")
}

/// The operations of a path, its assignments left out: the measure paths are compared
/// by.
fn path_operations(c: &AbOpCounts) -> f64 {
    c.iter()
        .filter(|(op, _)| !is_assignment(*op))
        .map(|(_, n)| n)
        .sum()
}

/// A dependent path through statements: its operations and the assignments it passes
/// through. An optimizing compiler keeps the values in registers from one statement to
/// the next; without optimization each assignment stores its value and the next
/// statement reloads it, while the operations inside one statement stay in registers:
/// the path then waits for one store-to-load forwarding an assignment, not one an
/// operation.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ChainPath {
    /// The AbOps on the path (stores and transfers left out).
    pub ops: AbOpCounts,
    /// The assignments on it (expected, where statements run on a share of the
    /// executions).
    pub assignments: f64,
}

impl ChainPath {
    /// The path of `counts`, which hold its assignments as stores and transfers.
    fn of(counts: &AbOpCounts) -> ChainPath {
        let mut path = ChainPath::default();
        for (op, n) in counts.iter() {
            if is_assignment(op) {
                path.assignments += n;
            } else {
                path.ops.add(op, n);
            }
        }
        path
    }
}

/// A counted loop around a block: its index variable and whether it runs downwards.
#[derive(Debug, Clone, Copy)]
pub struct LoopIndex<'a> {
    /// The index variable.
    pub var: &'a str,
    /// The step is a negative constant.
    pub descending: bool,
}

/// The offset `c` of a subscript `i + c`, `c + i` or `i - c` in the loop index `i`.
fn index_offset(e: &Expr, index: &str) -> Option<i64> {
    let is_index = |e: &Expr| matches!(&e.kind, ExprKind::Var(v) if v.name == index);
    let constant = |e: &Expr| match &e.kind {
        ExprKind::Const { value, .. } => *value,
        _ => None,
    };
    match &e.kind {
        ExprKind::Var(v) if v.name == index => Some(0),
        ExprKind::Binary(crate::program::BinOp::Add, a, b) if is_index(a) => constant(b),
        ExprKind::Binary(crate::program::BinOp::Add, a, b) if is_index(b) => constant(a),
        ExprKind::Binary(crate::program::BinOp::Sub, a, b) if is_index(a) => {
            constant(b).map(|c| -c)
        }
        _ => None,
    }
}

/// Whether element `read` of the array that `written` assigns was written by an
/// earlier iteration of the loop: the subscripts agree except one, `i + r` against
/// `i + w`, with `r < w` (`r > w` when the loop runs downwards).
fn carried(written: &[Subscript], read: &[Subscript], index: LoopIndex<'_>) -> bool {
    if written.len() != read.len() {
        return false;
    }
    let mut shifted = 0;
    for (w, r) in written.iter().zip(read) {
        if w == r {
            continue;
        }
        let (Subscript::Index(w), Subscript::Index(r)) = (w, r) else {
            return false;
        };
        match (index_offset(w, index.var), index_offset(r, index.var)) {
            (Some(w), Some(r)) if (r < w) != index.descending && r != w => shifted += 1,
            _ => return false,
        }
    }
    shifted == 1
}

/// `e` with every read of an element of `array` that an earlier iteration wrote
/// replaced by the scalar `name`.
fn carried_reads(
    e: &Expr,
    array: &str,
    written: &[Subscript],
    index: LoopIndex<'_>,
    name: &str,
) -> Expr {
    let kind = match &e.kind {
        ExprKind::Elem(v, subs) if v.name == array && carried(written, subs, index) => {
            scalar_named(name.to_string(), e.ty, v.global).kind
        }
        ExprKind::Substring(b) => {
            ExprKind::Substring(Box::new(carried_reads(b, array, written, index, name)))
        }
        ExprKind::Component(b, c) => ExprKind::Component(
            Box::new(carried_reads(b, array, written, index, name)),
            c.clone(),
        ),
        ExprKind::Unary(op, b) => {
            ExprKind::Unary(*op, Box::new(carried_reads(b, array, written, index, name)))
        }
        ExprKind::Binary(op, a, b) => ExprKind::Binary(
            *op,
            Box::new(carried_reads(a, array, written, index, name)),
            Box::new(carried_reads(b, array, written, index, name)),
        ),
        ExprKind::Call(t, args) => ExprKind::Call(
            t.clone(),
            args.iter()
                .map(|a| carried_reads(a, array, written, index, name))
                .collect(),
        ),
        other => other.clone(),
    };
    Expr {
        kind,
        ty: e.ty,
        array: e.array,
    }
}

/// The scalar `name` of type `ty` (global or not) that stands for an array element
/// carrying a recurrence.
fn scalar_named(name: String, ty: crate::program::Type, global: bool) -> Expr {
    Expr {
        kind: ExprKind::Var(VarRef {
            name,
            ty,
            rank: 0,
            global,
            constant: false,
        }),
        ty,
        array: false,
    }
}

/// A statement `a(i) = ... a(i-1) ...` as the scalar recurrence `a() = ... a() ...`,
/// so that [`block_chain_counts`] sees the dependence an array element carries from
/// one iteration to the next (first-order recurrences: prefix sums, tridiagonal
/// sweeps, filters). Other statements are returned as they are.
pub fn as_scalar_recurrence(kind: &StmtKind, index: LoopIndex<'_>) -> StmtKind {
    as_scalar_recurrences([kind], index)
        .pop()
        .unwrap_or_else(|| kind.clone())
}

/// The statements of a block with every first-order recurrence through array elements
/// turned into a scalar one, across statements: when one statement writes `a(i, j)` and
/// any statement of the block (itself or another) reads an element an earlier iteration
/// wrote (`a(i-1, j)`), those reads and the write become the scalar `a()`, so that
/// [`block_chain_counts`] follows the dependence through the block (`r = ... a(i-1,j) ...;
/// a(i,j) = a(i,j) + w*r`, a Gauss-Seidel or SOR sweep). Statements without such reads are
/// returned as they are.
pub fn as_scalar_recurrences<'s>(
    stmts: impl IntoIterator<Item = &'s StmtKind>,
    index: LoopIndex<'_>,
) -> Vec<StmtKind> {
    let stmts: Vec<&StmtKind> = stmts.into_iter().collect();
    // The elements the block writes: (array, subscripts), in order.
    let mut written: Vec<(&str, &[Subscript])> = vec![];
    for kind in &stmts {
        if let StmtKind::Assign { lhs, .. } = kind {
            if let ExprKind::Elem(v, subs) = &lhs.kind {
                if !lhs.array {
                    written.push((v.name.as_str(), subs.as_slice()));
                }
            }
        }
    }
    // An array takes part when some statement reads an element carried from its write.
    let mut carried_arrays: Vec<(&str, &[Subscript])> = vec![];
    for &(array, subs) in &written {
        if carried_arrays.iter().any(|(a, _)| *a == array) {
            continue;
        }
        let name = format!("{array}()");
        let hit = stmts.iter().any(|kind| match kind {
            StmtKind::Assign { rhs, .. } => carried_reads(rhs, array, subs, index, &name) != *rhs,
            _ => false,
        });
        if hit {
            carried_arrays.push((array, subs));
        }
    }
    stmts
        .iter()
        .map(|kind| {
            let StmtKind::Assign { lhs, rhs } = kind else {
                return (*kind).clone();
            };
            let mut new_rhs = rhs.clone();
            for &(array, subs) in &carried_arrays {
                new_rhs = carried_reads(&new_rhs, array, subs, index, &format!("{array}()"));
            }
            let new_lhs = match &lhs.kind {
                ExprKind::Elem(v, subs)
                    if !lhs.array
                        && carried_arrays
                            .iter()
                            .any(|(a, s)| *a == v.name && *s == subs.as_slice()) =>
                {
                    scalar_named(format!("{}()", v.name), lhs.ty, v.global)
                }
                _ => lhs.clone(),
            };
            StmtKind::Assign {
                lhs: new_lhs,
                rhs: new_rhs,
            }
        })
        .collect()
}

/// The scalars an expression reads outside subscripts (each once, in order).
pub fn scalars_read<'e>(e: &'e Expr, out: &mut Vec<&'e str>) {
    match &e.kind {
        ExprKind::Var(v) => {
            if v.rank == 0 && !out.contains(&v.name.as_str()) {
                out.push(v.name.as_str());
            }
        }
        _ => {
            for o in e.operands() {
                scalars_read(o, out);
            }
        }
    }
}

/// The AbOps of one execution of a block (its statements in order) on its longest
/// loop-carried recurrence: a scalar whose value at the end of the block depends on its
/// own value at the start. The dependence may run through several statements and other
/// scalars (`r = mod(x, y); x = y; y = r` carries `y` through the `MOD`), so every
/// scalar assigned in the block keeps, for each scalar it depends on at the block's
/// start, the operations of the longest path from it (longest by operation count). Of
/// several independent recurrences (two reductions in one body) the longest is kept:
/// they overlap. Recurrences through array elements (`a(i) = a(i-1) + ...`) or across
/// blocks are not detected.
pub fn block_chain_counts<'s>(stmts: impl IntoIterator<Item = &'s StmtKind>) -> AbOpCounts {
    block_chain_path(stmts).ops
}

/// [`block_chain_counts`] with the assignments on the recurrence ([`ChainPath`]).
pub fn block_chain_path<'s>(stmts: impl IntoIterator<Item = &'s StmtKind>) -> ChainPath {
    ChainPath::of(&longest_self_path(&dependence_paths(
        stmts.into_iter().map(|k| (k, 1.0)),
    )))
}

/// The calls of one iteration of a loop body (its statements, each with the share of
/// iterations that run it) that wait for a recurrence: a function reference (intrinsic
/// or user) whose arguments read a scalar carried from one iteration to the next
/// (`IF (ABS(Z) > 2) EXIT` after `Z = Z*Z + C`). An out-of-order core runs the other
/// calls ahead of the recurrence (`S = S*R + EXP(X(I))`: the `EXP`s of later iterations
/// start before `S` is ready), these only after it. Their AbOps (the call's own, its
/// arguments' off the recurrence excluded), weighted; stores and transfers left out.
pub fn serial_calls<'s>(stmts: impl IntoIterator<Item = (&'s StmtKind, f64)>) -> AbOpCounts {
    let stmts: Vec<(&'s StmtKind, f64)> = stmts.into_iter().collect();
    let deps = dependence_paths(stmts.iter().copied());
    let carried: Vec<&str> = deps
        .iter()
        .filter(|(v, paths)| paths.contains_key(*v))
        .map(|(v, _)| v.as_str())
        .collect();
    let mut out = AbOpCounts::new();
    if carried.is_empty() {
        return out;
    }
    fn visit(e: &Expr, carried: &[&str], w: f64, out: &mut AbOpCounts) {
        if let ExprKind::Call(_, args) = &e.kind {
            let waits = args.iter().any(|a| {
                let mut read = vec![];
                scalars_read(a, &mut read);
                read.iter().any(|r| carried.contains(r))
            });
            if waits {
                let call = StmtKind::Assign {
                    lhs: placeholder(e),
                    rhs: e.clone(),
                };
                for (op, n) in count_stmt(&call).once.iter() {
                    let meaning = op.info().meaning;
                    if !meaning.starts_with("Store") && !meaning.starts_with("Transfer (assignment")
                    {
                        out.add(op, n * w);
                    }
                }
                return;
            }
        }
        for o in e.operands() {
            visit(o, carried, w, out);
        }
    }
    for (kind, w) in &stmts {
        let w = w.clamp(0.0, 1.0);
        match kind {
            StmtKind::Assign { rhs, .. } => visit(rhs, &carried, w, &mut out),
            StmtKind::If { cond } | StmtKind::LogicalIf { cond } => {
                visit(cond, &carried, w, &mut out)
            }
            StmtKind::Do { exprs, .. } => {
                for e in exprs {
                    visit(e, &carried, w, &mut out);
                }
            }
            _ => {}
        }
    }
    out
}

/// For each scalar assigned, the operations of the longest path to it from each scalar
/// it depends on at the start (`deps[v][u]`), statements weighted by how often they run.
type Dependences =
    std::collections::BTreeMap<String, std::collections::BTreeMap<String, AbOpCounts>>;

/// The longest path from a scalar to itself.
fn longest_self_path(deps: &Dependences) -> AbOpCounts {
    let mut best: Option<&AbOpCounts> = None;
    for (v, paths) in deps {
        if let Some(c) = paths.get(v) {
            if best.map_or(true, |b| path_operations(c) > path_operations(b)) {
                best = Some(c);
            }
        }
    }
    best.cloned().unwrap_or_default()
}

/// [`block_chain_counts`] over the statements of a loop body that spans several blocks:
/// each statement comes with the fraction of the iterations that execute it (1 outside
/// conditionals). A scalar assigned with fraction `w` keeps, from each source, `w` times
/// the path through the statement plus `1 − w` times its path before (the arm not taken
/// leaves it as it was), so the result is the expected recurrence of one iteration:
/// `IF (MOD(N, 2) == 0) THEN; N = N / 2; ELSE; N = 3*N + 1; END IF` carries `N` through
/// the division on some iterations and through the multiply and add on the others.
///
/// Scalars that depend on each other (a strongly connected group: `lo` and `hi` of a
/// bisection, each taking `mid = (lo + hi) / 2` on some iterations) form one
/// recurrence whose expected length per iteration is the sum, over its scalars assigned
/// in turn (on some iterations only, their shares adding up to at most one), of each
/// one's longest expected path from the group: the value the next `mid` waits for is
/// always the newest of the two, so the chain grows by the whole `(lo + hi) / 2` every
/// iteration although each arm runs on half of them. Other scalars of the group (one
/// assigned on every iteration, or several assigned together) are each a recurrence by
/// itself (its longest path from the group). Of several groups and scalars the longest is kept
/// (they overlap).
pub fn weighted_chain_counts<'s>(
    stmts: impl IntoIterator<Item = (&'s StmtKind, f64)>,
) -> AbOpCounts {
    weighted_chain_path(stmts).ops
}

/// [`weighted_chain_counts`] with the assignments on the recurrence ([`ChainPath`]).
pub fn weighted_chain_path<'s>(stmts: impl IntoIterator<Item = (&'s StmtKind, f64)>) -> ChainPath {
    let stmts: Vec<(&'s StmtKind, f64)> = stmts.into_iter().collect();
    // The share of iterations that assign each scalar.
    let mut assigned: std::collections::BTreeMap<&str, f64> = Default::default();
    for (kind, w) in &stmts {
        if let Some((_, name, _)) = scalar_assignment(kind) {
            *assigned.entry(name).or_default() += w.clamp(0.0, 1.0);
        }
    }
    let every_iteration = |v: &str| assigned.get(v).is_some_and(|&w| w >= 1.0 - 1e-9);
    let deps = dependence_paths(stmts);
    let names: Vec<&String> = deps.keys().collect();
    let n = names.len();
    // reach[i][j]: scalar j at the start of an iteration reaches scalar i's value at
    // its end, through any number of iterations.
    let mut reach = vec![vec![false; n]; n];
    for (i, v) in names.iter().enumerate() {
        for (j, u) in names.iter().enumerate() {
            reach[i][j] = deps[*v].contains_key(*u);
        }
    }
    for k in 0..n {
        for i in 0..n {
            for j in 0..n {
                if reach[i][k] && reach[k][j] {
                    reach[i][j] = true;
                }
            }
        }
    }
    let mut best = AbOpCounts::new();
    let mut done = vec![false; n];
    for i in 0..n {
        if done[i] || !reach[i][i] {
            continue;
        }
        let group: Vec<usize> = (0..n).filter(|&j| reach[i][j] && reach[j][i]).collect();
        // Scalars assigned on some iterations only take turns (their paths add up);
        // one assigned on every iteration carries the whole recurrence itself (the
        // `x = y; y = r` of Euclid's `r = mod(x, y)` holds one MOD per iteration, not
        // two).
        // Scalars whose shares add up to more than one iteration are assigned
        // together, not in turn.
        let share: f64 = group
            .iter()
            .filter(|&&v| !every_iteration(names[v]))
            .map(|&v| assigned.get(names[v].as_str()).copied().unwrap_or(0.0))
            .sum();
        let in_turn = share <= 1.0 + 1e-9;
        let mut turns = AbOpCounts::new();
        for &v in &group {
            done[v] = true;
            let longest = group
                .iter()
                .filter_map(|&u| deps[names[v]].get(names[u]))
                .max_by(|a, b| path_operations(a).total_cmp(&path_operations(b)));
            if let Some(c) = longest {
                if in_turn && !every_iteration(names[v]) {
                    turns.add_scaled(c, 1.0);
                } else if path_operations(c) > path_operations(&best) {
                    best = c.clone();
                }
            }
        }
        if path_operations(&turns) > path_operations(&best) {
            best = turns;
        }
    }
    ChainPath::of(&best)
}

/// The AbOps on the longest dependent path through some statements run once each, in
/// order (each with the share of executions that run it, as in
/// [`weighted_chain_counts`]): from the values ready at their start (arguments, COMMON,
/// array elements) through the scalars they assign to the last value computed on it (a
/// scalar or an array element). A procedure body without loops is such a path on every
/// call: an out-of-order core overlaps its independent operations, not the dependent
/// ones (`c11 = 1/cc` after the cubic that gives `cc`, then `dmg = aa - nn - ff*ff*c11`
/// and the derivatives from it: mineos's `derms`). Longest by [`generic_latency`]; a
/// scalar assigned by a share `w` of the executions keeps `w` times its new path and
/// `1 - w` times its path before (the arm not taken leaves it as it was), and so does the
/// longest path found so far (the expected longest over the arms taken).
pub fn weighted_span_counts<'s>(
    stmts: impl IntoIterator<Item = (&'s StmtKind, f64)>,
) -> AbOpCounts {
    weighted_span_path(stmts).ops
}

/// [`weighted_span_counts`] with the assignments on the path ([`ChainPath`]). An array
/// element at constant subscripts (`r(5)`) is followed as a scalar is: a block operation
/// written out statement by statement (`r(4) = (r(4) - b(4,5)*r(5))/b(4,4)`, the back
/// substitution of a 5x5 block, as codes of NPB BT's kind write them) waits for the
/// element the statement before computed.
pub fn weighted_span_path<'s>(stmts: impl IntoIterator<Item = (&'s StmtKind, f64)>) -> ChainPath {
    let stmts: Vec<(StmtKind, f64)> = stmts
        .into_iter()
        .map(|(k, w)| (elements_as_scalars(k), w))
        .collect();
    span_path(stmts.iter().map(|(k, w)| (k, *w)))
}

/// Assignment `kind` with each array element at integer-constant subscripts, read or
/// assigned, named as a scalar of its own (`r(5)`); other statements as they are.
fn elements_as_scalars(kind: &StmtKind) -> StmtKind {
    let mut out = kind.clone();
    if let StmtKind::Assign { lhs, rhs } = &mut out {
        rename_elements(lhs);
        rename_elements(rhs);
    }
    out
}

/// `e` with every element at integer-constant subscripts inside it a scalar named
/// `name(k1,k2,...)`, in place.
fn rename_elements(e: &mut Expr) {
    if let ExprKind::Elem(v, subs) = &e.kind {
        let constant: Option<Vec<i64>> = subs
            .iter()
            .map(|s| match s {
                crate::program::Subscript::Index(x) => x.int_value(),
                crate::program::Subscript::Range(..) => None,
            })
            .collect();
        if let Some(ks) = constant {
            let keys: Vec<String> = ks.iter().map(i64::to_string).collect();
            let mut scalar = v.clone();
            scalar.name = format!("{}({})", v.name, keys.join(","));
            scalar.rank = 0;
            e.kind = ExprKind::Var(scalar);
            e.array = false;
            return;
        }
    }
    match &mut e.kind {
        ExprKind::Substring(b) | ExprKind::Component(b, _) | ExprKind::Unary(_, b) => {
            rename_elements(b)
        }
        ExprKind::Binary(_, a, b) => {
            rename_elements(a);
            rename_elements(b);
        }
        ExprKind::Call(_, args) | ExprKind::ArrayCtor(args) | ExprKind::ImpliedDo(args, _) => {
            args.iter_mut().for_each(rename_elements)
        }
        ExprKind::Const { .. } | ExprKind::Var(_) | ExprKind::Elem(..) | ExprKind::Opaque => {}
    }
}

/// [`weighted_span_path`] over statements as they are.
fn span_path<'s>(stmts: impl IntoIterator<Item = (&'s StmtKind, f64)>) -> ChainPath {
    let mixed = |new: &AbOpCounts, old: &AbOpCounts, w: f64| {
        let mut m = AbOpCounts::new();
        m.add_scaled(new, w);
        m.add_scaled(old, 1.0 - w);
        m
    };
    let mut ready: std::collections::BTreeMap<&str, AbOpCounts> = Default::default();
    let mut longest = AbOpCounts::new();
    for (kind, w) in stmts {
        let w = w.clamp(0.0, 1.0);
        let StmtKind::Assign { lhs, rhs } = kind else {
            continue;
        };
        let mut read = vec![];
        scalars_read(rhs, &mut read);
        let mut path = AbOpCounts::new();
        for r in read {
            let mut through = ready.get(r).cloned().unwrap_or_default();
            through.add_scaled(&path_counts(lhs, rhs, r), 1.0);
            if generic_latency(&through) > generic_latency(&path) {
                path = through;
            }
        }
        if generic_latency(&path) > generic_latency(&longest) {
            longest = mixed(&path, &longest, w);
        }
        if let Some((_, name, _)) = scalar_assignment(kind) {
            let before = ready.get(name).cloned().unwrap_or_default();
            ready.insert(name, mixed(&path, &before, w));
        }
    }
    ChainPath::of(&longest)
}

/// The AbOps on the longest path from a scalar's value at the start of some statements
/// (run once each, in order, each with the share of executions that run it, as in
/// [`weighted_span_counts`]) to the same scalar's value at their end: a procedure body
/// that reads a variable it then assigns (a SAVE'd seed, a COMMON or module variable, a
/// dummy argument the caller passes again: `last = mod(last*ia + ic, im)` of a
/// linear-congruential generator) carries that path from one call to the next, and no
/// core overlaps the calls along it. Longest by [`generic_latency`]; empty when no
/// scalar's final value depends on its first.
pub fn weighted_carried_counts<'s>(
    stmts: impl IntoIterator<Item = (&'s StmtKind, f64)>,
) -> AbOpCounts {
    weighted_carried_path(stmts).ops
}

/// [`weighted_carried_counts`] with the assignments on the path ([`ChainPath`]).
pub fn weighted_carried_path<'s>(
    stmts: impl IntoIterator<Item = (&'s StmtKind, f64)>,
) -> ChainPath {
    let stmts: Vec<(&StmtKind, f64)> = stmts
        .into_iter()
        .map(|(k, w)| (k, w.clamp(0.0, 1.0)))
        .collect();
    let mut origins: Vec<&str> = stmts
        .iter()
        .filter_map(|(k, _)| scalar_assignment(k).map(|(_, name, _)| name))
        .collect();
    origins.sort_unstable();
    origins.dedup();
    let mut longest = AbOpCounts::new();
    for origin in origins {
        if let Some(path) = carried_path(&stmts, origin) {
            if generic_latency(&path) > generic_latency(&longest) {
                longest = path;
            }
        }
    }
    ChainPath::of(&longest)
}

/// The path from `origin`'s value at the start of `stmts` to its value at their end,
/// when that depends on it: each scalar that does maps to its path from `origin` (the
/// share of executions that assign it otherwise keeps its path before).
fn carried_path(stmts: &[(&StmtKind, f64)], origin: &str) -> Option<AbOpCounts> {
    let mut from: std::collections::BTreeMap<&str, AbOpCounts> = Default::default();
    from.insert(origin, AbOpCounts::new());
    for &(kind, w) in stmts {
        let Some((lhs, name, rhs)) = scalar_assignment(kind) else {
            continue;
        };
        let mut read = vec![];
        scalars_read(rhs, &mut read);
        let path = read
            .into_iter()
            .filter_map(|r| {
                let mut through = from.get(r)?.clone();
                through.add_scaled(&path_counts(lhs, rhs, r), 1.0);
                Some(through)
            })
            .max_by(|a, b| generic_latency(a).total_cmp(&generic_latency(b)));
        let before = from.remove(name);
        let mut after = AbOpCounts::new();
        if let Some(p) = &path {
            after.add_scaled(p, w);
        }
        if let Some(b) = &before {
            after.add_scaled(b, 1.0 - w);
        }
        if path.is_some() || (before.is_some() && w < 1.0) {
            from.insert(name, after);
        }
    }
    from.remove(origin).filter(|p| !p.is_empty())
}

/// The length of a path of AbOps in units of an add's latency, the same on every
/// machine: a divide, square root or remainder four (13 to 20 cycles where an add takes
/// 3 or 4), an elementary function (a library call) five, any other operation one (an
/// assignment's store none: [`ChainPath`]).
pub fn generic_latency(path: &AbOpCounts) -> f64 {
    const SLOW: [&str; 3] = ["Divide", "Square root", "Remainder"];
    const CALLS: [&str; 6] = [
        "Logarithm",
        "Exponential",
        "Sine",
        "Tangent",
        "Inverse trig",
        "Hyperbolic",
    ];
    path.iter()
        .map(|(op, n)| {
            let meaning = op.info().meaning;
            let weight = if is_assignment(op) {
                0.0
            } else if SLOW.iter().any(|m| meaning.starts_with(m)) {
                4.0
            } else if CALLS.iter().any(|m| meaning.starts_with(m)) {
                5.0
            } else {
                1.0
            };
            n * weight
        })
        .sum()
}

/// The dependence paths of some statements, each with the share of executions that
/// run it (see [`weighted_chain_counts`]).
fn dependence_paths<'s>(stmts: impl IntoIterator<Item = (&'s StmtKind, f64)>) -> Dependences {
    // Ordered maps: the same program gives the same chain in every run (of equally long
    // recurrences, the first by name).
    use std::collections::BTreeMap;
    type Paths = BTreeMap<String, AbOpCounts>;
    let mut deps: Dependences = BTreeMap::new();
    for (kind, w) in stmts {
        let w = w.clamp(0.0, 1.0);
        let Some((lhs, name, rhs)) = scalar_assignment(kind) else {
            continue;
        };
        let mut read = vec![];
        scalars_read(rhs, &mut read);
        let mut paths: Paths = BTreeMap::new();
        for r in read {
            let step = path_counts(lhs, rhs, r);
            let sources: Paths = match deps.get(r) {
                Some(p) => p.clone(),
                None => BTreeMap::from([(r.to_string(), AbOpCounts::new())]),
            };
            for (src, before) in sources {
                let mut through = before;
                through.add_scaled(&step, 1.0);
                let longer = paths
                    .get(&src)
                    .map_or(true, |old| path_operations(&through) > path_operations(old));
                if longer {
                    paths.insert(src, through);
                }
            }
        }
        if w < 1.0 {
            // Not every iteration assigns it: mix with what it held before.
            let before: Paths = match deps.get(name) {
                Some(p) => p.clone(),
                None => BTreeMap::from([(name.to_string(), AbOpCounts::new())]),
            };
            let mut mixed: Paths = BTreeMap::new();
            for src in paths.keys().chain(before.keys()) {
                if mixed.contains_key(src) {
                    continue;
                }
                let mut c = AbOpCounts::new();
                if let Some(p) = paths.get(src) {
                    c.add_scaled(p, w);
                }
                if let Some(p) = before.get(src) {
                    c.add_scaled(p, 1.0 - w);
                }
                mixed.insert(src.clone(), c);
            }
            paths = mixed;
        }
        deps.insert(name.to_string(), paths);
    }
    deps
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::abop::AbOp;
    use crate::program::{BaseType, BinOp, Type};

    fn real8() -> Type {
        Type {
            base: BaseType::Real,
            kind: 8,
        }
    }

    fn var(name: &str, global: bool) -> Expr {
        Expr {
            kind: ExprKind::Var(VarRef {
                name: name.into(),
                ty: real8(),
                rank: 0,
                global,
                constant: false,
            }),
            ty: real8(),
            array: false,
        }
    }

    fn bin(op: BinOp, a: Expr, b: Expr) -> Expr {
        Expr {
            kind: ExprKind::Binary(op, Box::new(a), Box::new(b)),
            ty: real8(),
            array: false,
        }
    }

    #[test]
    fn a_span_runs_through_the_scalars_statements_assign() {
        // c = a*b; d = 1/c; e = d + c: multiply, divide, add on one path; the
        // independent f = a + b is off it.
        let assign = |lhs: Expr, rhs: Expr| StmtKind::Assign { lhs, rhs };
        let (a, b) = (var("a", false), var("b", false));
        let one = Expr {
            kind: ExprKind::Const {
                text: "1.0d0".into(),
                value: None,
            },
            ty: real8(),
            array: false,
        };
        let stmts = [
            assign(var("c", false), bin(BinOp::Mul, a.clone(), b.clone())),
            assign(var("d", false), bin(BinOp::Div, one, var("c", false))),
            assign(var("f", false), bin(BinOp::Add, a, b)),
            assign(
                var("e", true),
                bin(BinOp::Add, var("d", false), var("c", false)),
            ),
        ];
        let span = weighted_span_counts(stmts.iter().map(|k| (k, 1.0)));
        assert_eq!(span.get(AbOp::MRDL), 1.0, "{span:?}");
        assert_eq!(span.get(AbOp::DRDL), 1.0, "{span:?}");
        assert_eq!(span.get(AbOp::ARDL), 1.0, "{span:?}");
        assert_eq!(span.total(), 3.0, "{span:?}");
        // Run on half the executions, the path is worth half.
        let half = weighted_span_counts(stmts.iter().map(|k| (k, 0.5)));
        assert!(half.total() < span.total(), "{half:?}");
    }

    #[test]
    fn a_span_runs_through_elements_at_constant_subscripts() {
        // r(2) = r(2)/b(2,2); r(1) = (r(1) - b(1,2)*r(2))/b(1,1): a back substitution
        // written out, two divides, a multiply and a subtract on one path; r(i) at a
        // subscript not known stays off it.
        let assign = |lhs: Expr, rhs: Expr| StmtKind::Assign { lhs, rhs };
        let int = |k: i64| Expr {
            kind: ExprKind::Const {
                text: k.to_string(),
                value: Some(k),
            },
            ty: Type {
                base: BaseType::Integer,
                kind: 4,
            },
            array: false,
        };
        let elem = |name: &str, subs: Vec<Expr>| Expr {
            kind: ExprKind::Elem(
                VarRef {
                    name: name.into(),
                    ty: real8(),
                    rank: subs.len() as u8,
                    global: false,
                    constant: false,
                },
                subs.into_iter()
                    .map(crate::program::Subscript::Index)
                    .collect(),
            ),
            ty: real8(),
            array: false,
        };
        let r = |k: i64| elem("r", vec![int(k)]);
        let b = |i: i64, j: i64| elem("b", vec![int(i), int(j)]);
        let stmts = [
            assign(r(2), bin(BinOp::Div, r(2), b(2, 2))),
            assign(
                r(1),
                bin(
                    BinOp::Div,
                    bin(BinOp::Sub, r(1), bin(BinOp::Mul, b(1, 2), r(2))),
                    b(1, 1),
                ),
            ),
        ];
        let span = weighted_span_counts(stmts.iter().map(|k| (k, 1.0)));
        assert_eq!(span.get(AbOp::DRDL), 2.0, "{span:?}");
        assert_eq!(span.get(AbOp::MRDL), 1.0, "{span:?}");
        assert_eq!(span.get(AbOp::ARDL), 1.0, "{span:?}");
        // The same with r(i) for r(2): the second statement does not wait for the first.
        let ri = elem("r", vec![var("i", false)]);
        let stmts = [
            assign(ri.clone(), bin(BinOp::Div, ri.clone(), b(2, 2))),
            assign(
                r(1),
                bin(
                    BinOp::Div,
                    bin(BinOp::Sub, r(1), bin(BinOp::Mul, b(1, 2), ri)),
                    b(1, 1),
                ),
            ),
        ];
        let span = weighted_span_counts(stmts.iter().map(|k| (k, 1.0)));
        assert_eq!(span.get(AbOp::DRDL), 1.0, "{span:?}");
    }

    #[test]
    fn a_seed_carries_its_path_from_one_call_to_the_next() {
        // t = x*a; x = t - m*aint(t/m) (a linear-congruential step through a
        // temporary): the multiply, the divide, the truncation, the multiply and the
        // subtract lead from x back to x; y = a + b does not touch it.
        let assign = |lhs: Expr, rhs: Expr| StmtKind::Assign { lhs, rhs };
        let (x, t, a, m) = (
            var("x", true),
            var("t", false),
            var("a", false),
            var("m", false),
        );
        let aint = Expr {
            kind: ExprKind::Call(
                crate::program::CallTarget::Intrinsic("aint".into()),
                vec![bin(BinOp::Div, t.clone(), m.clone())],
            ),
            ty: real8(),
            array: false,
        };
        let stmts = [
            assign(t.clone(), bin(BinOp::Mul, x.clone(), a.clone())),
            assign(var("y", false), bin(BinOp::Add, a, var("b", false))),
            assign(x, bin(BinOp::Sub, t, bin(BinOp::Mul, m, aint))),
        ];
        let carried = weighted_carried_counts(stmts.iter().map(|k| (k, 1.0)));
        // (The multiply of the COMMON x counts as one of a global operand.)
        assert_eq!(
            carried.get(AbOp::MRDL) + carried.get(AbOp::MRDG),
            2.0,
            "{carried:?}"
        );
        assert_eq!(carried.get(AbOp::DRDL), 1.0, "{carried:?}");
        assert_eq!(carried.get(AbOp::ANID), 1.0, "{carried:?}");
        assert_eq!(carried.get(AbOp::ARDL), 1.0, "{carried:?}");
        assert_eq!(carried.total(), 5.0, "{carried:?}");
        // A body whose variables all start afresh carries nothing.
        let fresh = [assign(
            var("c", false),
            bin(BinOp::Mul, var("a", false), var("b", false)),
        )];
        assert!(weighted_carried_counts(fresh.iter().map(|k| (k, 1.0))).is_empty());
    }

    #[test]
    fn reduction_chain_is_the_add_only() {
        // s = s + a*b : chain = one add; the multiply is off the chain.
        let rhs = bin(
            BinOp::Add,
            var("s", false),
            bin(BinOp::Mul, var("a", false), var("b", false)),
        );
        let c = chain_counts(&StmtKind::Assign {
            lhs: var("s", false),
            rhs,
        });
        assert_eq!(c.get(AbOp::ARDL), 1.0);
        assert_eq!(c.get(AbOp::MRDL), 0.0);
        assert_eq!(c.total(), 1.0);
    }

    #[test]
    fn side_by_side_paths_cost_the_longer_one() {
        // s = s*r + (s*r)*q: the two products of s run side by side; the latency is
        // the longer path (two multiplies) and the add, not all three multiplies.
        let rhs = bin(
            BinOp::Add,
            bin(BinOp::Mul, var("s", false), var("r", false)),
            bin(
                BinOp::Mul,
                bin(BinOp::Mul, var("s", false), var("r", false)),
                var("q", false),
            ),
        );
        let c = chain_counts(&StmtKind::Assign {
            lhs: var("s", false),
            rhs,
        });
        assert_eq!(c.get(AbOp::MRDL), 2.0);
        assert_eq!(c.get(AbOp::ARDL), 1.0);
        // s = s*s: one multiply on the chain.
        let sq = chain_counts(&StmtKind::Assign {
            lhs: var("s", false),
            rhs: bin(BinOp::Mul, var("s", false), var("s", false)),
        });
        assert_eq!(sq.get(AbOp::MRDL), 1.0);
        assert_eq!(sq.total(), 1.0);
        // s = s**y + s**y: powers are instruction sequences (library calls for most
        // types), one after the other: both stay on the chain.
        let pw = chain_counts(&StmtKind::Assign {
            lhs: var("s", false),
            rhs: bin(
                BinOp::Add,
                bin(BinOp::Pow, var("s", false), var("y", false)),
                bin(BinOp::Pow, var("s", false), var("y", false)),
            ),
        });
        assert_eq!(pw.get(AbOp::XRDL), 2.0);
    }

    fn call(name: &str, arg: Expr) -> Expr {
        Expr {
            kind: ExprKind::Call(
                crate::program::CallTarget::Intrinsic(name.into()),
                vec![arg],
            ),
            ty: real8(),
            array: false,
        }
    }

    #[test]
    fn calls_wait_for_a_recurrence_only_when_they_read_it() {
        // s = s*r + exp(x): the exp runs ahead of the recurrence (its argument is off it).
        let ahead = StmtKind::Assign {
            lhs: var("s", false),
            rhs: bin(
                BinOp::Add,
                bin(BinOp::Mul, var("s", false), var("r", false)),
                call("exp", var("x", false)),
            ),
        };
        assert_eq!(serial_calls([(&ahead, 1.0)]).total(), 0.0);
        // z = z*z + c; IF (abs(z) > 2) EXIT: the abs waits for z.
        let step = StmtKind::Assign {
            lhs: var("z", false),
            rhs: bin(
                BinOp::Add,
                bin(BinOp::Mul, var("z", false), var("z", false)),
                var("c", false),
            ),
        };
        let test = StmtKind::If {
            cond: bin(
                BinOp::Compare,
                call("abs", var("z", false)),
                var("two", false),
            ),
        };
        let waits = serial_calls([(&step, 1.0), (&test, 0.5)]);
        assert!((waits.get(AbOp::ABSD) - 0.5).abs() < 1e-12, "{waits:?}");
        // No recurrence: nothing waits.
        let plain = StmtKind::Assign {
            lhs: var("y", false),
            rhs: call("exp", var("z", false)),
        };
        assert_eq!(serial_calls([(&plain, 1.0)]).total(), 0.0);
    }

    #[test]
    fn arms_of_an_if_weigh_by_how_often_they_run() {
        // IF (...) THEN; x = x*r; ELSE; x = x*r + c; END IF, the THEN arm on a quarter
        // of the iterations: the expected chain is a multiply and three quarters of an
        // add.
        let then_arm = StmtKind::Assign {
            lhs: var("x", false),
            rhs: bin(BinOp::Mul, var("x", false), var("r", false)),
        };
        let else_arm = StmtKind::Assign {
            lhs: var("x", false),
            rhs: bin(
                BinOp::Add,
                bin(BinOp::Mul, var("x", false), var("r", false)),
                var("c", false),
            ),
        };
        let c = weighted_chain_counts([(&then_arm, 0.25), (&else_arm, 0.75)]);
        assert!((c.get(AbOp::MRDL) - 1.0).abs() < 1e-12, "{c:?}");
        assert!((c.get(AbOp::ARDL) - 0.75).abs() < 1e-12, "{c:?}");
        // Both every time: the block rule, the two in sequence.
        let both = block_chain_counts([&then_arm, &else_arm]);
        assert_eq!((both.get(AbOp::MRDL), both.get(AbOp::ARDL)), (2.0, 1.0));
        // An arm that never runs leaves no chain.
        let never = weighted_chain_counts([(&then_arm, 0.0)]);
        assert_eq!(never.total(), 0.0);
    }

    #[test]
    fn a_path_counts_the_assignments_it_passes_through() {
        // r = (p + q)*h - s; p = p + w*r: a recurrence of five operations through two
        // assignments (unoptimized code stores r and p and reads them back), where
        // `s = s + x` has one operation and one assignment.
        let r = StmtKind::Assign {
            lhs: var("r", false),
            rhs: bin(
                BinOp::Sub,
                bin(
                    BinOp::Mul,
                    bin(BinOp::Add, var("p", false), var("q", false)),
                    var("h", false),
                ),
                var("s", false),
            ),
        };
        let p = StmtKind::Assign {
            lhs: var("p", false),
            rhs: bin(
                BinOp::Add,
                var("p", false),
                bin(BinOp::Mul, var("w", false), var("r", false)),
            ),
        };
        let path = block_chain_path([&r, &p]);
        assert_eq!(path.ops.total(), 5.0, "{path:?}");
        assert_eq!(path.assignments, 2.0, "{path:?}");
        assert_eq!(block_chain_counts([&r, &p]), path.ops);
        let sum = StmtKind::Assign {
            lhs: var("s", false),
            rhs: bin(BinOp::Add, var("s", false), var("x", false)),
        };
        let one = block_chain_path([&sum]);
        assert_eq!((one.ops.total(), one.assignments), (1.0, 1.0));
        // Half of the calls: half an assignment expected.
        let half = weighted_chain_path([(&sum, 0.5)]);
        assert!((half.assignments - 0.5).abs() < 1e-12, "{half:?}");
    }

    #[test]
    fn scalars_assigned_every_iteration_carry_one_recurrence_not_their_sum() {
        // Euclid's shape, r = x*y; x = y; y = r, on every iteration: y waits for one
        // multiply per iteration (x only copies the old y), not one per scalar.
        let r = StmtKind::Assign {
            lhs: var("r", false),
            rhs: bin(BinOp::Mul, var("x", false), var("y", false)),
        };
        let x = StmtKind::Assign {
            lhs: var("x", false),
            rhs: var("y", false),
        };
        let y = StmtKind::Assign {
            lhs: var("y", false),
            rhs: var("r", false),
        };
        let c = weighted_chain_counts([(&r, 1.0), (&x, 1.0), (&y, 1.0)]);
        assert!((c.get(AbOp::MRDL) - 1.0).abs() < 1e-12, "{c:?}");
        // The same when the last pass (the exit test) skips them: 0.9 of one.
        let c = weighted_chain_counts([(&r, 0.9), (&x, 0.9), (&y, 0.9)]);
        assert!((c.get(AbOp::MRDL) - 0.9).abs() < 1e-12, "{c:?}");
        // Bisection's shape, lo or hi taking m = lo*hi on half of the iterations each:
        // the newest of the two is always on the chain, one multiply per iteration.
        let m = StmtKind::Assign {
            lhs: var("m", false),
            rhs: bin(BinOp::Mul, var("lo", false), var("hi", false)),
        };
        let lo = StmtKind::Assign {
            lhs: var("lo", false),
            rhs: var("m", false),
        };
        let hi = StmtKind::Assign {
            lhs: var("hi", false),
            rhs: var("m", false),
        };
        let c = weighted_chain_counts([(&m, 1.0), (&lo, 0.5), (&hi, 0.5)]);
        assert!((c.get(AbOp::MRDL) - 1.0).abs() < 1e-12, "{c:?}");
    }

    #[test]
    fn horner_chain_has_multiply_and_add() {
        // x = x*r + c : both on the chain.
        let rhs = bin(
            BinOp::Add,
            bin(BinOp::Mul, var("x", false), var("r", false)),
            var("c", false),
        );
        let c = chain_counts(&StmtKind::Assign {
            lhs: var("x", false),
            rhs,
        });
        assert_eq!(c.get(AbOp::ARDL), 1.0);
        assert_eq!(c.get(AbOp::MRDL), 1.0);
    }

    fn int4() -> Type {
        Type {
            base: crate::program::BaseType::Integer,
            kind: 4,
        }
    }

    fn ivar(name: &str) -> Expr {
        let mut e = var(name, false);
        e.ty = int4();
        if let ExprKind::Var(v) = &mut e.kind {
            v.ty = int4();
        }
        e
    }

    #[test]
    fn constant_operands_stay_on_the_chain() {
        // s = s / 8: a division by a power of two (DIC2), not a general division.
        let rhs = Expr {
            kind: ExprKind::Binary(
                BinOp::Div,
                Box::new(ivar("s")),
                Box::new(Expr::constant(int4(), "8", Some(8))),
            ),
            ty: int4(),
            array: false,
        };
        let c = chain_counts(&StmtKind::Assign {
            lhs: ivar("s"),
            rhs,
        });
        assert_eq!(c.get(AbOp::DIC2), 1.0, "{c:?}");
        assert_eq!(c.get(AbOp::DISL), 0.0, "{c:?}");
    }

    #[test]
    fn recurrence_through_several_statements() {
        // r = x * y; x = y; y = r + 1: y carries through the multiply and the add; x
        // only through y (a copy); the longest recurrence is y's.
        let stmts = [
            StmtKind::Assign {
                lhs: ivar("r"),
                rhs: Expr {
                    kind: ExprKind::Binary(BinOp::Mul, Box::new(ivar("x")), Box::new(ivar("y"))),
                    ty: int4(),
                    array: false,
                },
            },
            StmtKind::Assign {
                lhs: ivar("x"),
                rhs: ivar("y"),
            },
            StmtKind::Assign {
                lhs: ivar("y"),
                rhs: Expr {
                    kind: ExprKind::Binary(BinOp::Add, Box::new(ivar("r")), Box::new(ivar("c"))),
                    ty: int4(),
                    array: false,
                },
            },
        ];
        let c = block_chain_counts(stmts.iter());
        assert_eq!(c.get(AbOp::MISL), 1.0, "{c:?}");
        assert_eq!(c.get(AbOp::AISL), 1.0, "{c:?}");
        assert_eq!(c.total(), 2.0, "{c:?}");
        // The statements one at a time carry nothing (none reads what it assigns).
        assert!(stmts.iter().all(|s| chain_counts(s).is_empty()));
    }

    #[test]
    fn independent_reductions_overlap() {
        // s = s + a; p = p * b; p = p * c: two recurrences, the longer (two multiplies)
        // binds.
        let assign = |l: &str, op: BinOp, r: &str| StmtKind::Assign {
            lhs: var(l, false),
            rhs: bin(op, var(l, false), var(r, false)),
        };
        let stmts = [
            assign("s", BinOp::Add, "a"),
            assign("p", BinOp::Mul, "b"),
            assign("p", BinOp::Mul, "c"),
        ];
        let c = block_chain_counts(stmts.iter());
        assert_eq!(c.get(AbOp::MRDL), 2.0, "{c:?}");
        assert_eq!(c.get(AbOp::ARDL), 0.0, "{c:?}");
    }

    #[test]
    fn equally_long_recurrences_give_the_same_chain_every_time() {
        // s = s + a; p = p * b: one operation each; the first by name (p) is kept.
        let assign = |l: &str, op: BinOp, r: &str| StmtKind::Assign {
            lhs: var(l, false),
            rhs: bin(op, var(l, false), var(r, false)),
        };
        let stmts = [assign("s", BinOp::Add, "a"), assign("p", BinOp::Mul, "b")];
        for _ in 0..20 {
            let c = block_chain_counts(stmts.iter());
            assert_eq!(c.get(AbOp::MRDL), 1.0, "{c:?}");
            assert_eq!(c.total(), 1.0, "{c:?}");
        }
    }

    fn elem(name: &str, index: Expr) -> Expr {
        Expr {
            kind: ExprKind::Elem(
                VarRef {
                    name: name.into(),
                    ty: real8(),
                    rank: 1,
                    global: false,
                    constant: false,
                },
                vec![Subscript::Index(index)],
            ),
            ty: real8(),
            array: false,
        }
    }

    fn shifted(by: i64) -> Expr {
        let i = ivar("i");
        if by == 0 {
            return i;
        }
        let c = Expr::constant(int4(), by.abs().to_string(), Some(by.abs()));
        Expr {
            kind: ExprKind::Binary(
                if by < 0 { BinOp::Sub } else { BinOp::Add },
                Box::new(i),
                Box::new(c),
            ),
            ty: int4(),
            array: false,
        }
    }

    #[test]
    fn array_element_recurrence() {
        let up = LoopIndex {
            var: "i",
            descending: false,
        };
        // x(i) = x(i-1) * r + b(i): the multiply and the add carry x.
        let st = StmtKind::Assign {
            lhs: elem("x", shifted(0)),
            rhs: bin(
                BinOp::Add,
                bin(BinOp::Mul, elem("x", shifted(-1)), var("r", false)),
                elem("b", shifted(0)),
            ),
        };
        let c = block_chain_counts(std::iter::once(&as_scalar_recurrence(&st, up)));
        assert_eq!(c.get(AbOp::MRDL), 1.0, "{c:?}");
        assert_eq!(c.get(AbOp::ARDL), 1.0, "{c:?}");
        // Reading x(i+1) in an ascending loop reads an old value: no recurrence; nor
        // does x(i) = x(i) + b(i) (the same element).
        for read in [shifted(1), shifted(0)] {
            let st = StmtKind::Assign {
                lhs: elem("x", shifted(0)),
                rhs: bin(BinOp::Add, elem("x", read), elem("b", shifted(0))),
            };
            let c = block_chain_counts(std::iter::once(&as_scalar_recurrence(&st, up)));
            assert!(c.is_empty(), "{c:?}");
        }
        // Descending: x(i) = x(i+1) + b(i) is carried.
        let st = StmtKind::Assign {
            lhs: elem("x", shifted(0)),
            rhs: bin(BinOp::Add, elem("x", shifted(1)), elem("b", shifted(0))),
        };
        let down = LoopIndex {
            var: "i",
            descending: true,
        };
        let c = block_chain_counts(std::iter::once(&as_scalar_recurrence(&st, down)));
        assert_eq!(c.get(AbOp::ARDL), 1.0, "{c:?}");
    }

    #[test]
    fn array_recurrence_across_statements() {
        let up = LoopIndex {
            var: "i",
            descending: false,
        };
        // r = x(i-1) * c + b(i); x(i) = x(i) + r: the multiply and both adds carry x.
        let s1 = StmtKind::Assign {
            lhs: var("r", false),
            rhs: bin(
                BinOp::Add,
                bin(BinOp::Mul, elem("x", shifted(-1)), var("c", false)),
                elem("b", shifted(0)),
            ),
        };
        let s2 = StmtKind::Assign {
            lhs: elem("x", shifted(0)),
            rhs: bin(BinOp::Add, elem("x", shifted(0)), var("r", false)),
        };
        let kinds = as_scalar_recurrences([&s1, &s2], up);
        let c = block_chain_counts(kinds.iter());
        assert_eq!(c.get(AbOp::MRDL), 1.0, "{c:?}");
        assert_eq!(c.get(AbOp::ARDL), 2.0, "{c:?}");
        // Reading x(i+1) instead is not carried in an ascending loop.
        let s1 = StmtKind::Assign {
            lhs: var("r", false),
            rhs: bin(BinOp::Mul, elem("x", shifted(1)), var("c", false)),
        };
        let kinds = as_scalar_recurrences([&s1, &s2], up);
        assert!(block_chain_counts(kinds.iter()).is_empty());
    }

    #[test]
    fn no_recurrence_no_chain() {
        let rhs = bin(BinOp::Add, var("a", false), var("b", true));
        let c = chain_counts(&StmtKind::Assign {
            lhs: var("y", false),
            rhs,
        });
        assert!(c.is_empty());
    }
}
