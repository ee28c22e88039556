//! Symbolic iteration counts of DO nests (P^3T+'s symbolic counting): the iterations
//! of a loop over one entry of the outermost DO loop of its nest, as a sum over the
//! enclosing loops' index ranges, reduced to a closed form where the bounds are
//! polynomial and the steps ±1, and evaluated exactly at any values of the scalars
//! the bounds read.

use crate::poly::{sum_over, Poly};
use augur_ir::{BaseType, BinOp, CallTarget, Expr, ExprKind, LoopKind, StmtKind, UnOp, Unit};
use std::collections::HashMap;
use std::fmt;

/// An integer expression of loop bounds: a polynomial, or what a polynomial cannot say.
#[derive(Debug, Clone, PartialEq)]
pub enum IntExpr {
    /// A polynomial in scalars, named constants and enclosing loop indices.
    Poly(Poly),
    /// `a + b`, `a − b`, `a · b` where one side is not a polynomial.
    Arith(BinOp, Box<IntExpr>, Box<IntExpr>),
    /// Fortran integer division (truncating).
    Div(Box<IntExpr>, Box<IntExpr>),
    /// `MIN(...)`.
    Min(Vec<IntExpr>),
    /// `MAX(...)`.
    Max(Vec<IntExpr>),
}

/// The names a count reads, with their integer values.
pub type Env = HashMap<String, i128>;

impl IntExpr {
    /// Its value, or `None` when a name has no value (or on overflow or division by zero).
    pub fn eval(&self, env: &Env) -> Option<i128> {
        match self {
            IntExpr::Poly(p) => p.eval_int(env),
            IntExpr::Arith(op, a, b) => {
                let (a, b) = (a.eval(env)?, b.eval(env)?);
                match op {
                    BinOp::Add => a.checked_add(b),
                    BinOp::Sub => a.checked_sub(b),
                    _ => a.checked_mul(b),
                }
            }
            IntExpr::Div(a, b) => a.eval(env)?.checked_div(b.eval(env)?),
            IntExpr::Min(v) => v
                .iter()
                .map(|e| e.eval(env))
                .collect::<Option<Vec<_>>>()?
                .into_iter()
                .min(),
            IntExpr::Max(v) => v
                .iter()
                .map(|e| e.eval(env))
                .collect::<Option<Vec<_>>>()?
                .into_iter()
                .max(),
        }
    }

    fn as_poly(&self) -> Option<&Poly> {
        match self {
            IntExpr::Poly(p) => Some(p),
            _ => None,
        }
    }

    fn arith(op: BinOp, a: IntExpr, b: IntExpr) -> IntExpr {
        match (a.as_poly(), b.as_poly()) {
            (Some(x), Some(y)) => IntExpr::Poly(match op {
                BinOp::Add => x.add(y),
                BinOp::Sub => x.sub(y),
                _ => x.mul(y),
            }),
            _ => IntExpr::Arith(op, Box::new(a), Box::new(b)),
        }
    }

    /// The integer expression of `e`: integer literals, scalar variables and named
    /// constants, `+ − * /`, unary minus, `MIN` and `MAX`; `None` for anything else
    /// (array elements, function references, reals).
    pub fn of(e: &Expr) -> Option<IntExpr> {
        if e.ty.base != BaseType::Integer || e.array {
            return None;
        }
        match &e.kind {
            ExprKind::Const { value: Some(v), .. } => Some(IntExpr::Poly(Poly::int(*v))),
            ExprKind::Var(v) if v.rank == 0 => Some(IntExpr::Poly(Poly::var(&v.name))),
            ExprKind::Unary(UnOp::Neg, a) => Some(IntExpr::arith(
                BinOp::Mul,
                IntExpr::Poly(Poly::int(-1)),
                Self::of(a)?,
            )),
            ExprKind::Unary(UnOp::Plus, a) => Self::of(a),
            ExprKind::Binary(op @ (BinOp::Add | BinOp::Sub | BinOp::Mul), a, b) => {
                Some(IntExpr::arith(*op, Self::of(a)?, Self::of(b)?))
            }
            ExprKind::Binary(BinOp::Div, a, b) => {
                Some(IntExpr::Div(Box::new(Self::of(a)?), Box::new(Self::of(b)?)))
            }
            ExprKind::Call(CallTarget::Intrinsic(name), args) if !args.is_empty() => {
                let parts: Option<Vec<IntExpr>> = args.iter().map(Self::of).collect();
                match name.as_str() {
                    "min" | "min0" => Some(IntExpr::Min(parts?)),
                    "max" | "max0" => Some(IntExpr::Max(parts?)),
                    _ => None,
                }
            }
            _ => None,
        }
    }
}

impl fmt::Display for IntExpr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let list = |v: &[IntExpr]| {
            v.iter()
                .map(|e| e.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        };
        match self {
            IntExpr::Poly(p) => write!(f, "{p}"),
            IntExpr::Arith(op, a, b) => {
                let o = match op {
                    BinOp::Add => "+",
                    BinOp::Sub => "-",
                    _ => "*",
                };
                write!(f, "({a}) {o} ({b})")
            }
            IntExpr::Div(a, b) => write!(f, "({a}) / ({b})"),
            IntExpr::Min(v) => write!(f, "min({})", list(v)),
            IntExpr::Max(v) => write!(f, "max({})", list(v)),
        }
    }
}

/// The iterations of a loop over one entry of the outermost loop of its nest: nested
/// sums over the enclosing loops' index ranges.
#[derive(Debug, Clone, PartialEq)]
pub enum Count {
    /// One (the innermost body, once).
    One,
    /// `Σ_{var = lo, hi, step} body`.
    Sum {
        /// The index variable.
        var: String,
        /// First value.
        lo: IntExpr,
        /// Last value (inclusive).
        hi: IntExpr,
        /// Step (nonzero constant).
        step: i64,
        /// What each iteration counts.
        body: Box<Count>,
    },
}

/// A [`Count`] evaluation that would enumerate more outer iterations than its budget.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OverBudget;

impl Count {
    /// The closed form: a polynomial in the names the bounds read, when every bound is a
    /// polynomial and every step ±1. Exact where each range holds zero or more values
    /// (`hi ≥ lo − 1` for step 1); the caller checks it against enumeration.
    pub fn closed(&self) -> Option<Poly> {
        match self {
            Count::One => Some(Poly::int(1)),
            Count::Sum {
                var,
                lo,
                hi,
                step,
                body,
            } => {
                let inner = body.closed()?;
                let (lo, hi) = (lo.as_poly()?, hi.as_poly()?);
                match step {
                    1 => Some(sum_over(&inner, var, lo, hi)),
                    -1 => Some(sum_over(&inner, var, hi, lo)),
                    _ => None,
                }
            }
        }
    }

    /// Its exact value by enumerating every loop but the innermost (whose trip count is
    /// computed); `Err(OverBudget)` after `budget` enumerated iterations, `Ok(None)` when
    /// a name has no value or the arithmetic overflows.
    pub fn enumerate(&self, env: &mut Env, budget: &mut u64) -> Result<Option<i128>, OverBudget> {
        let Count::Sum {
            var,
            lo,
            hi,
            step,
            body,
        } = self
        else {
            return Ok(Some(1));
        };
        let (Some(lo), Some(hi)) = (lo.eval(env), hi.eval(env)) else {
            return Ok(None);
        };
        let trips = trip_count(lo, hi, i128::from(*step));
        if **body == Count::One || trips == 0 {
            return Ok(Some(trips));
        }
        if *budget < trips as u64 {
            return Err(OverBudget);
        }
        *budget -= trips as u64;
        let saved = env.get(var).copied();
        let mut total: i128 = 0;
        for t in 0..trips {
            env.insert(var.clone(), lo + t * i128::from(*step));
            let Some(v) = body.enumerate(env, budget)? else {
                return Ok(None);
            };
            let Some(sum) = total.checked_add(v) else {
                return Ok(None);
            };
            total = sum;
        }
        match saved {
            Some(v) => env.insert(var.clone(), v),
            None => env.remove(var),
        };
        Ok(Some(total))
    }
}

/// Trips of `DO v = lo, hi, step` (Fortran: `max(0, (hi − lo + step) / step)`).
pub fn trip_count(lo: i128, hi: i128, step: i128) -> i128 {
    if step == 0 {
        return 0;
    }
    ((hi - lo + step) / step).max(0)
}

impl fmt::Display for Count {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Count::One => write!(f, "1"),
            Count::Sum {
                var,
                lo,
                hi,
                step,
                body,
            } => {
                let st = if *step == 1 {
                    String::new()
                } else {
                    format!(", {step}")
                };
                match **body {
                    Count::One => write!(f, "trips({var} = {lo}, {hi}{st})"),
                    _ => write!(f, "sum({var} = {lo}, {hi}{st}) [{body}]"),
                }
            }
        }
    }
}

/// The DO loops enclosing (and including) loop `id` that make its nest, innermost
/// first, up to the first loop that is not a counted DO: their ids.
pub fn counted_chain(unit: &Unit, id: u32) -> Vec<u32> {
    let mut out = vec![];
    let mut at = Some(id);
    while let Some(l) = at.and_then(|i| unit.loops.get(i as usize)) {
        if l.kind != LoopKind::Counted {
            break;
        }
        out.push(l.id.0);
        at = l.parent.map(|p| p.0);
    }
    out
}

/// The iterations of counted loop `id` over one entry of the outermost loop of its nest
/// ([`counted_chain`]): `None` when a loop of the chain has bounds that are not integer
/// expressions of scalars (array elements, function references) or a step that is not
/// a nonzero constant.
pub fn iterations(unit: &Unit, id: u32, params: &Env) -> Option<Count> {
    let chain = counted_chain(unit, id);
    if chain.is_empty() {
        return None;
    }
    let mut count = Count::One;
    for l in chain {
        let exprs = do_exprs(unit, l)?;
        let var = unit.loops[l as usize].var.clone()?;
        let lo = IntExpr::of(exprs.first()?)?;
        let hi = IntExpr::of(exprs.get(1)?)?;
        let step = match exprs.get(2) {
            None => 1,
            Some(e) => {
                let v = IntExpr::of(e)?.eval(params)?;
                i64::try_from(v).ok().filter(|s| *s != 0)?
            }
        };
        count = Count::Sum {
            var,
            lo,
            hi,
            step,
            body: Box::new(count),
        };
    }
    Some(count)
}

/// Start, end and step of the DO statement of loop `id`.
fn do_exprs(unit: &Unit, id: u32) -> Option<&Vec<Expr>> {
    unit.stmts.iter().find_map(|s| match &s.kind {
        StmtKind::Do { loop_id, exprs } if loop_id.0 == id => Some(exprs),
        _ => None,
    })
}

/// The integer named constants a unit sees with their values: its own, then those of
/// every other unit (module constants it may use). They enter counts as names, valued
/// per program: a `-D N=...` build changes them.
pub fn parameters(program: &augur_ir::Program, unit: usize) -> Env {
    let mut env = Env::new();
    let own = program.units.get(unit).into_iter();
    for u in own.chain(program.units.iter()) {
        for (name, v) in unit_parameters(u) {
            env.entry(name).or_insert(v);
        }
    }
    env
}

fn unit_parameters(unit: &Unit) -> Vec<(String, i128)> {
    unit.symbols
        .iter()
        .filter(|s| {
            matches!(s.storage, augur_ir::Storage::Parameter)
                && s.ty.base == BaseType::Integer
                && s.dims.is_empty()
        })
        .filter_map(|s| Some((s.name.clone(), i128::from(s.value?))))
        .collect()
}
