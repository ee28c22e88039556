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
            // A named constant stays a name (valued per program by `parameters`), so that
            // counts read `n^2/2`, not a number of one build.
            ExprKind::Const {
                text,
                value: Some(_),
            } if text.starts_with(|c: char| c.is_ascii_alphabetic()) => {
                Some(IntExpr::Poly(Poly::var(&text.to_ascii_lowercase())))
            }
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
        /// Step (nonzero when evaluated; a constant or a scalar such as a tile size).
        step: IntExpr,
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
                let step = step.as_poly()?.as_constant()?;
                if step == crate::poly::q(1) {
                    Some(sum_over(&inner, var, lo, hi))
                } else if step == crate::poly::q(-1) {
                    Some(sum_over(&inner, var, hi, lo))
                } else {
                    None
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
        let (Some(lo), Some(hi), Some(step)) = (lo.eval(env), hi.eval(env), step.eval(env)) else {
            return Ok(None);
        };
        if step == 0 {
            return Ok(None);
        }
        let trips = trip_count(lo, hi, step);
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
            env.insert(var.clone(), lo + t * step);
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
                let st = match step.as_poly().and_then(|p| p.as_constant()) {
                    Some(c) if c == crate::poly::q(1) => String::new(),
                    _ => format!(", {step}"),
                };
                match **body {
                    Count::One => write!(f, "trips({var} = {lo}, {hi}{st})"),
                    _ => write!(f, "sum({var} = {lo}, {hi}{st}) [{body}]"),
                }
            }
        }
    }
}

/// The loops enclosing (and including) loop `id` that make its nest, innermost first:
/// `id` itself (a counted DO or the elements of an array statement), then the counted
/// DO loops around it up to the first loop that is not one: their ids.
pub fn counted_chain(unit: &Unit, id: u32) -> Vec<u32> {
    let mut out = vec![];
    let mut at = Some(id);
    while let Some(l) = at.and_then(|i| unit.loops.get(i as usize)) {
        let elements = out.is_empty() && l.kind == LoopKind::ArrayElements;
        if l.kind != LoopKind::Counted && !elements {
            break;
        }
        out.push(l.id.0);
        at = l.parent.map(|p| p.0);
    }
    out
}

/// The outermost loop of the nest of loop `id` ([`counted_chain`]), when it is a counted
/// DO (the loop whose entries the run records values at).
pub fn nest_root(unit: &Unit, id: u32) -> Option<u32> {
    let chain = counted_chain(unit, id);
    let root = *chain.last()?;
    (unit.loops.get(root as usize)?.kind == LoopKind::Counted).then_some(root)
}

/// The elements of array statement loop `id` per execution of its statement: nested
/// sums over the section's index ranges (`a(2:n-1, :)`, declared extents for `:` and
/// whole arrays), found as the reference the loop's element count names.
fn elements(unit: &Unit, id: u32, inner: Count) -> Option<Count> {
    let l = unit.loops.get(id as usize)?;
    let wanted = l.elements.as_deref()?;
    let si = *unit.blocks.get(l.header_block.0 as usize)?.stmts.first()?;
    let mut found = None;
    for e in statement_exprs(&unit.stmts.get(si as usize)?.kind) {
        visit(e, &mut |x| {
            if found.is_none() && x.array && format!("size({x})") == wanted {
                found = Some(x.clone());
            }
        });
    }
    let reference = found?;
    let (name, subs) = match &reference.kind {
        ExprKind::Elem(v, subs) => (&v.name, Some(subs)),
        ExprKind::Var(v) => (&v.name, None),
        _ => return None,
    };
    let dims = &unit.symbol(name)?.dims;
    let mut count = inner;
    for (d, dim) in dims.iter().enumerate().rev() {
        let (lo, hi, step) = match subs.map(|s| s.get(d)) {
            Some(Some(augur_ir::Subscript::Index(_))) => continue,
            Some(Some(augur_ir::Subscript::Range(lo, hi, st))) => {
                let lo = lo.as_ref().map(IntExpr::of);
                let hi = hi.as_ref().map(IntExpr::of);
                let step = match st {
                    None => IntExpr::Poly(Poly::int(1)),
                    Some(e) => IntExpr::of(e)?,
                };
                match (lo, hi, st) {
                    (Some(lo), Some(hi), _) => (lo?, hi?, step),
                    (None, None, None) => whole_dimension(dim)?,
                    _ => return None,
                }
            }
            Some(None) => return None,
            None => whole_dimension(dim)?,
        };
        count = Count::Sum {
            var: format!("#{id}.{d}"),
            lo,
            hi,
            step,
            body: Box::new(count),
        };
    }
    Some(count)
}

/// `1 .. extent` of a dimension whose extent the declaration gives as a constant.
fn whole_dimension(dim: &augur_ir::Dim) -> Option<(IntExpr, IntExpr, IntExpr)> {
    let extent = dim.extent?;
    let one = IntExpr::Poly(Poly::int(1));
    Some((one.clone(), IntExpr::Poly(Poly::int(extent)), one))
}

/// The expressions of a statement.
fn statement_exprs(kind: &StmtKind) -> Vec<&Expr> {
    match kind {
        StmtKind::Assign { lhs, rhs } => vec![lhs, rhs],
        StmtKind::Call { args, .. } | StmtKind::Io { items: args, .. } => args.iter().collect(),
        StmtKind::If { cond, .. } | StmtKind::LogicalIf { cond, .. } => vec![cond],
        StmtKind::Where { mask, .. } => vec![mask],
        _ => vec![],
    }
}

/// Calls `f` on `e` and every expression inside it (subscripts included).
fn visit<'e>(e: &'e Expr, f: &mut impl FnMut(&'e Expr)) {
    f(e);
    for o in e.operands() {
        visit(o, f);
    }
    for o in e.subscript_exprs() {
        visit(o, f);
    }
}

/// The iterations of counted loop `id` over one entry of the outermost loop of its nest
/// ([`counted_chain`]): `None` when a loop of the chain has bounds that are not integer
/// expressions of scalars (array elements, function references) or a step that is not
/// an integer expression of scalars.
pub fn iterations(unit: &Unit, id: u32) -> Option<Count> {
    let root = *counted_chain(unit, id).last()?;
    iterations_from(unit, id, root)
}

/// The iterations of loop `id` over one entry of loop `root`, one of the loops of its
/// nest ([`counted_chain`]); `None` as [`iterations`].
pub fn iterations_from(unit: &Unit, id: u32, root: u32) -> Option<Count> {
    let chain = counted_chain(unit, id);
    let at = chain.iter().position(|l| *l == root)?;
    let mut count = Count::One;
    for &l in &chain[..=at] {
        if unit.loops[l as usize].kind == LoopKind::ArrayElements {
            count = elements(unit, l, count)?;
            continue;
        }
        let exprs = do_exprs(unit, l)?;
        let var = unit.loops[l as usize].var.clone()?;
        let lo = IntExpr::of(exprs.first()?)?;
        let hi = IntExpr::of(exprs.get(1)?)?;
        let step = match exprs.get(2) {
            None => IntExpr::Poly(Poly::int(1)),
            Some(e) => IntExpr::of(e)?,
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
