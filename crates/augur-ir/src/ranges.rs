//! Value ranges the compilers know: an integer divided by, or reduced modulo, a power
//! of two compiles to a plain shift or mask when the value cannot be negative.
//!
//! Signed division by `2^k` needs a correction for negative values (shift, add the sign
//! bit, shift: three dependent instructions), and so does `MOD(v, 2^k)`; both are
//! counted as `DIC2` and `MOC2`. When the compiler's value-range propagation knows the
//! value is non-negative, the division is one logical shift and the remainder one
//! `AND`, a bit operation (`BITI`) each. Two places in Fortran give that knowledge
//! without any analysis of the values a program reads:
//!
//! * the index of a counted `DO` loop whose start is a non-negative integer literal and
//!   whose step is a positive one (the index cannot be assigned inside the loop);
//! * the variable of a `DO WHILE (v > c)` or `DO WHILE (v >= c)` with an integer
//!   literal `c ≥ 0`, when every assignment to `v` inside the loop divides it by a
//!   positive literal or shifts it right (`v = v / 2`, `v = ishft(v, -1)`), and no
//!   `CALL` passes it and no `READ` reads it there: `v` is non-negative at the test
//!   and stays so until the next.
//!
//!
//! and one more, which the compilers' value-range propagation derives across a whole
//! procedure (GCC proves `x` of `x = mod(x*1103515245 + 12345, 2**31)` non-negative when
//! its first value is, and compiles the remainder to one `AND`):
//!
//! * a local integer scalar whose range is non-negative ([`non_negative_scalars`], the
//!   ranges of [`crate::intervals`]: every value the unit assigns it, loop-carried ones
//!   taken optimistically until they settle). A variable passed to a procedure, read,
//!   named in a DATA or EQUIVALENCE statement, initialized in its declaration, or
//!   shared with a host or an internal procedure is left out (values the unit does
//!   not assign).
//!
//! [`non_negative_shifts`] rewrites such divisions and remainders (inside those loops,
//! nested loops included, or anywhere for the last kind) into `ishft` and `iand` and
//! re-counts the statements, so that blocks, recurrences (`crate::chain`) and reports
//! all see the shift. Only scalar statements are rewritten.

use crate::count::count_stmt;
use crate::program::{
    BinOp, BlockKind, CallTarget, Expr, ExprKind, LoopId, LoopKind, StmtKind, Type, UnOp, Unit,
};
use crate::AbOpCounts;
use std::collections::BTreeSet;

/// A `DO WHILE` condition's guard: the variable of `v > c` or `v >= c` (`.gt.`, `.ge.`)
/// with an integer literal `c ≥ 0`, from the condition's source text (with or without
/// its parentheses; case and blanks do not matter).
pub fn while_guard(cond_text: &str) -> Option<String> {
    let t: String = cond_text
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect::<String>()
        .to_ascii_lowercase();
    let t = t.trim_start_matches('(').trim_end_matches(')');
    for op in [">=", ".ge.", ">", ".gt."] {
        if let Some((v, c)) = t.split_once(op) {
            let is_name = v.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
                && v.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
            if is_name && literal(c).is_some_and(|c| c >= 0) {
                return Some(v.to_string());
            }
            return None;
        }
    }
    None
}

/// Rewrites divisions and remainders by powers of two of values known non-negative
/// (see the module docs) in `u`, whose `DO WHILE` loops `guards` lists with their
/// guard variable ([`while_guard`]) and whose `locals` are the integer scalars only its
/// own statements give values (not DATA, EQUIVALENCE, an initialization, a host or
/// an internal procedure); re-counts the blocks of the statements changed. Returns the
/// number of operations rewritten.
pub fn non_negative_shifts(
    u: &mut Unit,
    guards: &[(LoopId, String)],
    locals: &BTreeSet<String>,
) -> usize {
    let everywhere = non_negative_scalars(u, locals);
    // Loop id → the non-negative variables it guarantees.
    let mut per_loop: Vec<(LoopId, String)> = vec![];
    for l in &u.loops {
        if l.kind == LoopKind::Counted {
            if let (Some(var), Some(b)) = (&l.var, &l.bounds) {
                let start = literal(&b.start);
                let step = b.step.as_deref().map_or(Some(1), literal);
                if start.is_some_and(|s| s >= 0) && step.is_some_and(|s| s > 0) {
                    per_loop.push((l.id, var.to_ascii_lowercase()));
                }
            }
        }
    }
    for (lid, v) in guards {
        let is_while = u
            .loops
            .get(lid.0 as usize)
            .is_some_and(|l| l.kind == LoopKind::While);
        if is_while && only_shrinks(u, *lid, v) && is_integer_scalar(u, v) {
            per_loop.push((*lid, v.clone()));
        }
    }
    if per_loop.is_empty() && everywhere.is_empty() {
        return 0;
    }
    let mut rewritten = 0;
    for bi in 0..u.blocks.len() {
        if !matches!(u.blocks[bi].kind, BlockKind::Straight | BlockKind::Entry) {
            continue;
        }
        let vars: Vec<&str> = per_loop
            .iter()
            .filter(|(lid, _)| inside(u, u.blocks[bi].in_loop, *lid))
            .map(|(_, v)| v.as_str())
            .chain(everywhere.iter().map(String::as_str))
            .collect();
        if vars.is_empty() {
            continue;
        }
        let mut delta = AbOpCounts::new();
        for k in 0..u.blocks[bi].stmts.len() {
            let s = u.blocks[bi].stmts[k] as usize;
            let Some(st) = u.stmts.get(s) else { continue };
            // Most statements hold no candidate: look before cloning and counting.
            if !stmt_has_candidate(&st.kind, &vars) {
                continue;
            }
            let old = count_stmt(&st.kind);
            if !old.groups.is_empty() {
                continue;
            }
            let mut kind = st.kind.clone();
            let n = rewrite_stmt(&mut kind, &vars);
            if n == 0 {
                continue;
            }
            let new = count_stmt(&kind);
            delta.add_scaled(&new.once, 1.0);
            delta.add_scaled(&old.once, -1.0);
            u.stmts[s].kind = kind;
            rewritten += n;
        }
        if !delta.is_empty() {
            let b = &mut u.blocks[bi];
            let mut sum = b.counts.clone();
            sum.add_scaled(&delta, 1.0);
            b.counts = AbOpCounts::new();
            for (op, n) in sum.iter() {
                if n.abs() > 1e-9 {
                    b.counts.add(op, n);
                }
            }
        }
    }
    rewritten
}

/// An integer literal (with an optional kind suffix).
pub(crate) fn literal(text: &str) -> Option<i64> {
    let t: String = text.chars().filter(|c| !c.is_whitespace()).collect();
    let t = t.strip_prefix('+').unwrap_or(&t);
    t.split('_').next()?.parse().ok()
}

fn is_integer_scalar(u: &Unit, v: &str) -> bool {
    u.stmts.iter().any(|st| match &st.kind {
        StmtKind::Assign { lhs, .. } => matches!(&lhs.kind,
            ExprKind::Var(r) if r.name == v && r.rank == 0 && r.ty.base == Type::INTEGER.base),
        _ => false,
    })
}

/// Whether block loop `inner` is `outer` or nested in it.
fn inside(u: &Unit, inner: Option<LoopId>, outer: LoopId) -> bool {
    let mut at = inner;
    while let Some(l) = at {
        if l == outer {
            return true;
        }
        at = u.loops.get(l.0 as usize).and_then(|x| x.parent);
    }
    false
}

/// Whether, inside loop `lid`, every assignment to `v` divides it by a positive literal
/// or shifts it right, and no CALL passes it nor READ reads it.
fn only_shrinks(u: &Unit, lid: LoopId, v: &str) -> bool {
    let is_v = |e: &Expr| matches!(&e.kind, ExprKind::Var(r) if r.name == v);
    for b in u.blocks.iter().filter(|b| inside(u, b.in_loop, lid)) {
        for &s in &b.stmts {
            let Some(st) = u.stmts.get(s as usize) else {
                continue;
            };
            match &st.kind {
                StmtKind::Assign { lhs, rhs } if is_v(lhs) => {
                    let shrinks = match &rhs.kind {
                        ExprKind::Binary(BinOp::Div, a, c) => {
                            is_v(a) && c.int_value().is_some_and(|c| c > 0)
                        }
                        ExprKind::Call(CallTarget::Intrinsic(name), args) => {
                            name == "ishft"
                                && args.len() == 2
                                && is_v(&args[0])
                                && args[1].int_value().is_some_and(|k| k <= 0)
                        }
                        _ => false,
                    };
                    if !shrinks {
                        return false;
                    }
                }
                StmtKind::Call { args, .. } if args.iter().any(|a| mentions(a, v)) => {
                    return false;
                }
                StmtKind::Io { keyword, items, .. }
                    if keyword != "write"
                        && keyword != "print"
                        && items.iter().any(|a| mentions(a, v)) =>
                {
                    return false;
                }
                _ => {}
            }
        }
    }
    true
}

fn mentions(e: &Expr, v: &str) -> bool {
    matches!(&e.kind, ExprKind::Var(r) if r.name == v)
        || e.operands().iter().any(|o| mentions(o, v))
}

/// Rewrites the expressions of a scalar assignment or a condition; returns how many.
fn rewrite_stmt(kind: &mut StmtKind, vars: &[&str]) -> usize {
    match kind {
        StmtKind::Assign { lhs, rhs } if !lhs.array => rewrite(lhs, vars) + rewrite(rhs, vars),
        StmtKind::If { cond } | StmtKind::LogicalIf { cond } => rewrite(cond, vars),
        _ => 0,
    }
}

/// Whether [`rewrite_stmt`] would change something, without changing it.
fn stmt_has_candidate(kind: &StmtKind, vars: &[&str]) -> bool {
    fn any(e: &Expr, vars: &[&str]) -> bool {
        let non_negative = |x: &Expr| non_negative(x, vars);
        let hit = match &e.kind {
            ExprKind::Binary(BinOp::Div, a, _) => non_negative(a),
            ExprKind::Call(CallTarget::Intrinsic(name), args) => {
                (name == "mod" || name == "modulo") && args.first().is_some_and(non_negative)
            }
            _ => false,
        };
        hit || e.operands().into_iter().any(|o| any(o, vars))
            || e.subscript_exprs().into_iter().any(|x| any(x, vars))
    }
    match kind {
        StmtKind::Assign { lhs, rhs } if !lhs.array => any(lhs, vars) || any(rhs, vars),
        StmtKind::If { cond } | StmtKind::LogicalIf { cond } => any(cond, vars),
        _ => false,
    }
}

/// Whether the integer expression `e` cannot be negative when the scalars `vars` are not
/// (see the module docs for the rules).
fn non_negative(e: &Expr, vars: &[&str]) -> bool {
    if e.ty.base != Type::INTEGER.base || e.array {
        return false;
    }
    if let Some(v) = e.int_value() {
        return v >= 0;
    }
    let nn = |x: &Expr| non_negative(x, vars);
    match &e.kind {
        ExprKind::Const { text, .. } => literal(text).is_some_and(|v| v >= 0),
        ExprKind::Var(r) => r.rank == 0 && vars.contains(&r.name.as_str()),
        ExprKind::Unary(UnOp::Plus, a) => nn(a),
        ExprKind::Binary(BinOp::Add | BinOp::Mul | BinOp::Div, a, b) => nn(a) && nn(b),
        ExprKind::Binary(BinOp::Pow, a, b) => nn(a) || b.int_value().is_some_and(|k| k % 2 == 0),
        ExprKind::Call(CallTarget::Intrinsic(name), args) => {
            intrinsic_non_negative(name, args, &nn)
        }
        _ => false,
    }
}

/// Whether intrinsic `name` gives a non-negative integer from `args`, `nn` telling which
/// arguments are non-negative.
fn intrinsic_non_negative(name: &str, args: &[Expr], nn: &dyn Fn(&Expr) -> bool) -> bool {
    let first = || args.first().is_some_and(nn);
    match name {
        "mod" => args.len() == 2 && first(),
        "modulo" => {
            args.len() == 2 && (args[1].int_value().is_some_and(|c| c > 0) || args.iter().all(nn))
        }
        "iand" | "max" | "max0" => args.iter().any(nn),
        "ior" | "ieor" | "min" | "min0" => !args.is_empty() && args.iter().all(nn),
        "ishft" => {
            args.len() == 2
                && args[1]
                    .int_value()
                    .is_some_and(|k| k < 0 || (k == 0 && first()))
        }
        "shiftr" => true,
        "int" => first(),
        "abs" | "iabs" | "size" | "len" | "len_trim" | "index" | "scan" | "verify" | "ichar"
        | "iachar" | "popcnt" | "leadz" | "trailz" | "bit_size" | "count" => true,
        _ => false,
    }
}

/// Those of the integer scalars `locals` of `u` that can only hold non-negative values:
/// their ranges ([`crate::intervals`]) start at 0 or above. Variables the unit passes to
/// a procedure or reads are left out.
pub fn non_negative_scalars(u: &Unit, locals: &BTreeSet<String>) -> BTreeSet<String> {
    let mut set = locals.clone();
    for st in &u.stmts {
        for name in defined_elsewhere(&st.kind) {
            set.remove(&name);
        }
    }
    crate::intervals::scalar_ranges(u, &set)
        .into_iter()
        .filter(|(_, r)| r.lo >= 0)
        .map(|(v, _)| v)
        .collect()
}

/// Scalars statement `kind` may define by other means than an assignment: passed whole
/// to a procedure (which may assign them), read, or an implied DO's index.
fn defined_elsewhere(kind: &StmtKind) -> Vec<String> {
    let mut out = vec![];
    match kind {
        StmtKind::Call { args, .. } => {
            for a in args {
                if let ExprKind::Var(r) = &a.kind {
                    out.push(r.name.clone());
                }
                collect_passed(a, &mut out);
            }
        }
        StmtKind::Io { keyword, items, .. } => {
            let read = keyword != "write" && keyword != "print";
            for a in items {
                if read {
                    collect_names(a, &mut out);
                }
                collect_passed(a, &mut out);
            }
        }
        StmtKind::Assign { lhs, rhs } => {
            collect_passed(lhs, &mut out);
            collect_passed(rhs, &mut out);
        }
        StmtKind::If { cond } | StmtKind::LogicalIf { cond } => collect_passed(cond, &mut out),
        _ => {}
    }
    out
}

/// Variables passed whole to a user function inside `e`, and implied DOs' indices.
fn collect_passed(e: &Expr, out: &mut Vec<String>) {
    e.visit_all(&mut |x| match &x.kind {
        ExprKind::Call(CallTarget::User(_), args) => {
            for a in args {
                if let ExprKind::Var(r) = &a.kind {
                    out.push(r.name.clone());
                }
            }
        }
        ExprKind::ImpliedDo(_, v) => out.push(v.to_ascii_lowercase()),
        _ => {}
    });
}

/// Every variable named in `e`.
fn collect_names(e: &Expr, out: &mut Vec<String>) {
    e.visit_all(&mut |x| match &x.kind {
        ExprKind::Var(r) | ExprKind::Elem(r, _) => out.push(r.name.clone()),
        ExprKind::ImpliedDo(_, v) => out.push(v.to_ascii_lowercase()),
        _ => {}
    });
}

fn power_of_two_exponent(c: i64) -> Option<u32> {
    (c > 0 && (c as u64).is_power_of_two()).then(|| c.trailing_zeros())
}

/// Rewrites `e` bottom-up, so that an operand rewritten first (`x / 2**k` into a shift)
/// can make the operation around it non-negative too.
fn rewrite(e: &mut Expr, vars: &[&str]) -> usize {
    let mut n = rewrite_operands(e, vars);
    let non_negative = |x: &Expr| non_negative(x, vars);
    let int_const = |ty: Type, v: i64| Expr::constant(ty, v.to_string(), Some(v));
    let replacement = match &e.kind {
        ExprKind::Binary(BinOp::Div, a, c) if non_negative(a) && !e.array => {
            c.int_value().and_then(power_of_two_exponent).map(|k| {
                ExprKind::Call(
                    CallTarget::Intrinsic("ishft".into()),
                    vec![(**a).clone(), int_const(Type::INTEGER, -i64::from(k))],
                )
            })
        }
        ExprKind::Call(CallTarget::Intrinsic(name), args)
            if (name == "mod" || name == "modulo") && args.len() == 2 && non_negative(&args[0]) =>
        {
            args[1]
                .int_value()
                .filter(|&c| power_of_two_exponent(c).is_some())
                .map(|c| {
                    ExprKind::Call(
                        CallTarget::Intrinsic("iand".into()),
                        vec![args[0].clone(), int_const(args[0].ty, c - 1)],
                    )
                })
        }
        _ => None,
    };
    if let Some(k) = replacement {
        e.kind = k;
        n += 1;
    }
    n
}

/// Rewrites the operands, arguments and subscripts of `e`.
fn rewrite_operands(e: &mut Expr, vars: &[&str]) -> usize {
    let mut n = 0;
    match &mut e.kind {
        ExprKind::Substring(b) | ExprKind::Component(b, _) | ExprKind::Unary(_, b) => {
            n += rewrite(b, vars)
        }
        ExprKind::Binary(_, a, b) => {
            n += rewrite(a, vars);
            n += rewrite(b, vars);
        }
        ExprKind::Call(_, args) | ExprKind::ArrayCtor(args) | ExprKind::ImpliedDo(args, _) => {
            for a in args {
                n += rewrite(a, vars);
            }
        }
        ExprKind::Elem(..) => {
            for x in e.subscript_exprs_mut() {
                n += rewrite(x, vars);
            }
        }
        _ => {}
    }
    n
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn guards_of_while_conditions() {
        assert_eq!(while_guard("(v > 0)").as_deref(), Some("v"));
        assert_eq!(while_guard("( N .GT. 0 )").as_deref(), Some("n"));
        assert_eq!(while_guard("(k >= 1_8)").as_deref(), Some("k"));
        assert_eq!(while_guard("(x /= 1)"), None);
        assert_eq!(while_guard("(v > -1)"), None);
        assert_eq!(while_guard("(v > w)"), None);
        assert_eq!(while_guard("(a(i) > 0)"), None);
        assert_eq!(literal(" 0 "), Some(0));
        assert_eq!(literal("2_8"), Some(2));
        assert_eq!(literal("n"), None);
    }
}
