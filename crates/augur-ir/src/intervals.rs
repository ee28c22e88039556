//! Value ranges of a unit's local integer scalars, as a compiler's value-range
//! propagation finds them: every value assigned to a variable (its assignments, a DO
//! loop's index from start to end) gives an interval, and the variable's range is their
//! union. Loop-carried values are taken optimistically: an assignment that reads a
//! variable with no range yet is left out of the first passes, and the ranges are
//! computed again until they settle. A range that still moves after [`PASSES`] passes
//! is given up (any value), as GCC's ranger gives up a loop's PHI whose range keeps
//! growing: the linear congruential step `x = mod(x*a + c, 2**31)` settles at once in
//! `[0, 2**31 - 1]` (GCC compiles the remainder to an `AND`), a bisection's `mid = (lo +
//! hi) / 2` keeps moving (GCC keeps the signed division).
//!
//! Signed overflow is undefined in Fortran, so arithmetic saturates at the kind's
//! bounds, as compilers assume it does not happen.

use crate::program::{BinOp, CallTarget, Expr, ExprKind, LoopKind, StmtKind, UnOp, Unit};
use std::collections::{BTreeMap, BTreeSet};

/// Passes before a range that still moves is given up.
pub const PASSES: usize = 6;

/// A closed interval of integers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Interval {
    /// Least value.
    pub lo: i128,
    /// Greatest value.
    pub hi: i128,
}

const I64: Interval = Interval {
    lo: i64::MIN as i128,
    hi: i64::MAX as i128,
};

impl Interval {
    fn point(v: i128) -> Interval {
        Interval { lo: v, hi: v }
    }

    fn new(lo: i128, hi: i128) -> Interval {
        Interval {
            lo: lo.max(I64.lo),
            hi: hi.min(I64.hi),
        }
    }

    fn union(self, o: Interval) -> Interval {
        Interval::new(self.lo.min(o.lo), self.hi.max(o.hi))
    }

    fn non_negative(self) -> bool {
        self.lo >= 0
    }

    /// The same range within an integer kind of `bytes` bytes (saturating).
    fn of_kind(self, bytes: u8) -> Interval {
        let bits = u32::from(bytes.clamp(1, 8)) * 8;
        let max = (1i128 << (bits - 1)) - 1;
        Interval::new(self.lo.clamp(-max - 1, max), self.hi.clamp(-max - 1, max))
    }
}

/// The ranges of the integer scalars `locals` of `u` (a variable missing from the result
/// can hold any value).
pub fn scalar_ranges(u: &Unit, locals: &BTreeSet<String>) -> BTreeMap<String, Interval> {
    let mut env: BTreeMap<String, Interval> = BTreeMap::new();
    let mut moving: BTreeSet<String> = locals.clone();
    for _ in 0..PASSES {
        let next = one_pass(u, locals, &env);
        moving = locals
            .iter()
            .filter(|v| next.get(*v) != env.get(*v))
            .cloned()
            .collect();
        env = next;
        if moving.is_empty() {
            break;
        }
    }
    let given_up = readers_of(u, locals, moving);
    env.retain(|v, _| !given_up.contains(v));
    env
}

/// `moving` and every variable one of whose definitions reads one of them, repeatedly.
fn readers_of(
    u: &Unit,
    locals: &BTreeSet<String>,
    mut moving: BTreeSet<String>,
) -> BTreeSet<String> {
    let definitions: Vec<(String, Vec<&Expr>)> = u
        .stmts
        .iter()
        .filter_map(|st| match &st.kind {
            StmtKind::Assign { lhs, rhs } => match &lhs.kind {
                ExprKind::Var(r) if locals.contains(&r.name) => Some((r.name.clone(), vec![rhs])),
                _ => None,
            },
            StmtKind::Do { loop_id, exprs } => {
                let var = u.loops.get(loop_id.0 as usize)?.var.as_ref()?;
                Some((var.to_ascii_lowercase(), exprs.iter().collect()))
            }
            _ => None,
        })
        .collect();
    loop {
        let before = moving.len();
        for (v, exprs) in &definitions {
            if !moving.contains(v) && exprs.iter().any(|e| reads_any(e, &moving)) {
                moving.insert(v.clone());
            }
        }
        if moving.len() == before {
            return moving;
        }
    }
}

fn reads_any(e: &Expr, names: &BTreeSet<String>) -> bool {
    matches!(&e.kind, ExprKind::Var(r) if names.contains(&r.name))
        || e.operands().into_iter().any(|o| reads_any(o, names))
        || e.subscript_exprs().into_iter().any(|o| reads_any(o, names))
}

/// Every variable's range from its definitions under `env` (those that read a variable
/// with no range yet left out).
fn one_pass(
    u: &Unit,
    locals: &BTreeSet<String>,
    env: &BTreeMap<String, Interval>,
) -> BTreeMap<String, Interval> {
    let mut next: BTreeMap<String, Interval> = BTreeMap::new();
    let mut add = |v: &str, r: Option<Interval>| {
        if let Some(r) = r {
            next.entry(v.to_string())
                .and_modify(|x| *x = x.union(r))
                .or_insert(r);
        }
    };
    for st in &u.stmts {
        match &st.kind {
            StmtKind::Assign { lhs, rhs } => {
                if let ExprKind::Var(r) = &lhs.kind {
                    if locals.contains(&r.name) {
                        add(
                            &r.name,
                            eval(u, rhs, locals, env).map(|i| i.of_kind(r.ty.kind)),
                        );
                    }
                }
            }
            StmtKind::Do { loop_id, exprs } => {
                let Some(l) = u.loops.get(loop_id.0 as usize) else {
                    continue;
                };
                if let Some(var) = l.var.as_ref().filter(|_| l.kind == LoopKind::Counted) {
                    let var = var.to_ascii_lowercase();
                    if locals.contains(&var) {
                        add(&var, index_range(u, exprs, locals, env));
                    }
                }
            }
            _ => {}
        }
    }
    next
}

/// A counted DO's index from its start to its end, and the value after the loop.
fn index_range(
    u: &Unit,
    exprs: &[Expr],
    locals: &BTreeSet<String>,
    env: &BTreeMap<String, Interval>,
) -> Option<Interval> {
    let start = eval(u, exprs.first()?, locals, env)?;
    let end = eval(u, exprs.get(1)?, locals, env)?;
    let step = match exprs.get(2) {
        None => 1,
        Some(e) => match e.int_value() {
            Some(k) if k != 0 => i128::from(k),
            _ => return Some(I64),
        },
    };
    Some(if step > 0 {
        Interval::new(start.lo, start.hi.max(end.hi.saturating_add(step)))
    } else {
        Interval::new(start.lo.min(end.lo.saturating_add(step)), start.hi)
    })
}

/// The range of integer expression `e` (`None`: it reads a variable with no range yet).
fn eval(
    u: &Unit,
    e: &Expr,
    locals: &BTreeSet<String>,
    env: &BTreeMap<String, Interval>,
) -> Option<Interval> {
    if e.ty.base != crate::program::Type::INTEGER.base || e.array {
        return Some(I64);
    }
    if let Some(v) = e.int_value() {
        return Some(Interval::point(i128::from(v)));
    }
    let ev = |x: &Expr| eval(u, x, locals, env);
    Some(
        match &e.kind {
            ExprKind::Const { text, .. } => {
                crate::ranges::literal(text).map_or(I64, |v| Interval::point(i128::from(v)))
            }
            ExprKind::Var(r) if r.constant => u
                .symbol(&r.name)
                .and_then(|s| s.value)
                .map_or(I64, |v| Interval::point(i128::from(v))),
            ExprKind::Var(r) if locals.contains(&r.name) => return env.get(&r.name).copied(),
            ExprKind::Unary(UnOp::Neg, a) => {
                let a = ev(a)?;
                Interval::new(-a.hi, -a.lo)
            }
            ExprKind::Unary(UnOp::Plus, a) => ev(a)?,
            ExprKind::Binary(op, a, b) => binary(*op, ev(a)?, ev(b)?, b.int_value()),
            ExprKind::Call(CallTarget::Intrinsic(name), args) => {
                let ranges: Option<Vec<Interval>> = args.iter().map(ev).collect();
                intrinsic(name, &ranges?, args)
            }
            _ => I64,
        }
        .of_kind(e.ty.kind),
    )
}

fn binary(op: BinOp, a: Interval, b: Interval, divisor: Option<i64>) -> Interval {
    match op {
        BinOp::Add => Interval::new(a.lo.saturating_add(b.lo), a.hi.saturating_add(b.hi)),
        BinOp::Sub => Interval::new(a.lo.saturating_sub(b.hi), a.hi.saturating_sub(b.lo)),
        BinOp::Mul => {
            let p = [a.lo * b.lo, a.lo * b.hi, a.hi * b.lo, a.hi * b.hi];
            // i128 holds any product of two i64 values.
            Interval::new(*p.iter().min().unwrap_or(&0), *p.iter().max().unwrap_or(&0))
        }
        BinOp::Div => match divisor {
            Some(c) if c > 0 => Interval::new(a.lo / i128::from(c), a.hi / i128::from(c)),
            _ if a.non_negative() && b.lo > 0 => Interval::new(0, a.hi),
            _ => I64,
        },
        BinOp::Pow if a.non_negative() => Interval::new(0, I64.hi),
        _ => I64,
    }
}

fn intrinsic(name: &str, r: &[Interval], args: &[Expr]) -> Interval {
    let constant = |k: usize| args.get(k).and_then(Expr::int_value).map(i128::from);
    let all_non_negative = !r.is_empty() && r.iter().all(|x| x.non_negative());
    // Below the next power of two of `hi`: what bit operations on values up to it give.
    let below_power = |hi: i128| (1i128 << (128 - hi.max(0).leading_zeros()).min(126)) - 1;
    match (name, r) {
        ("mod", [a, _]) => match constant(1) {
            Some(c) if c != 0 => {
                let m = c.abs() - 1;
                if a.non_negative() {
                    Interval::new(0, a.hi.min(m))
                } else if a.hi <= 0 {
                    Interval::new(a.lo.max(-m), 0)
                } else {
                    Interval::new(-m, m)
                }
            }
            _ => I64,
        },
        ("modulo", [_, _]) => match constant(1) {
            Some(c) if c > 0 => Interval::new(0, c - 1),
            _ => I64,
        },
        ("iand", [a, b]) => match (a.non_negative(), b.non_negative()) {
            (true, true) => Interval::new(0, a.hi.min(b.hi)),
            (true, false) => Interval::new(0, a.hi),
            (false, true) => Interval::new(0, b.hi),
            _ => I64,
        },
        ("ior" | "ieor", [a, b]) if all_non_negative => {
            Interval::new(0, below_power(a.hi.max(b.hi)))
        }
        ("ishft", [a, _]) => match constant(1) {
            Some(0) => *a,
            Some(k) if k < 0 && a.non_negative() => Interval::new(a.lo >> -k, a.hi >> -k),
            Some(k) if k < 0 => Interval::new(0, I64.hi >> (-k - 1).min(62)),
            _ => I64,
        },
        ("int", [a, ..]) => *a,
        ("abs" | "iabs", [a]) => Interval::new(0, a.lo.abs().max(a.hi.abs())),
        ("max" | "max0", _) if !r.is_empty() => Interval::new(
            r.iter().map(|x| x.lo).max().unwrap_or(0),
            r.iter().map(|x| x.hi).max().unwrap_or(0),
        ),
        ("min" | "min0", _) if !r.is_empty() => Interval::new(
            r.iter().map(|x| x.lo).min().unwrap_or(0),
            r.iter().map(|x| x.hi).min().unwrap_or(0),
        ),
        ("ichar" | "iachar", _) => Interval::new(0, 255),
        (
            "size" | "len" | "len_trim" | "index" | "scan" | "verify" | "popcnt" | "leadz"
            | "trailz" | "bit_size" | "count",
            _,
        ) => Interval::new(0, I64.hi),
        _ => I64,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interval_arithmetic() {
        let a = Interval::new(0, 10);
        assert_eq!(
            binary(BinOp::Mul, a, Interval::point(-3), None),
            Interval::new(-30, 0)
        );
        assert_eq!(
            binary(BinOp::Div, a, Interval::point(4), Some(4)),
            Interval::new(0, 2)
        );
        assert_eq!(Interval::new(-5, 300).of_kind(1), Interval::new(-5, 127));
        assert_eq!(Interval::new(0, 1 << 40).of_kind(4).hi, i32::MAX as i128);
    }
}
