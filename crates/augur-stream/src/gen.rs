//! The kernel generator: deterministic, seeded random loop kernels and the program that
//! times them.
//!
//! Every kernel is a subroutine `aug_kNN(reps, ...)` whose repetition loop
//! `do r = 1, reps` encloses one innermost `do i = 1, 512` loop (for 2-D kernels
//! `do j = 1, 8` / `do i = 1, 64`, the same 512 element iterations). Its body has 1-3
//! assignments `y(i) = EXPR` with random expression trees over array elements (`x(i)`,
//! `x(i+1)`, `a(i,j)`, gathered `x(idx1(i))`), loop-invariant scalars and literals. After
//! the inner loop the kernel passes its first result array to a separately compiled
//! routine, so the compiler must recompute it every repetition; nothing accumulates, since
//! the results are recomputed from inputs that are never written.
//!
//! The operands of *local* kernels are dummy arguments (the dispatcher passes the module's
//! arrays); those of *global* kernels are the variables of module `augsg`, in the same
//! generated file. Values stay finite and normal: inputs lie in `[1, 2)` (integers in
//! `[1, 100]`), scalars and literals in `[0.5, 7]`, divisions are by leaves (never below
//! 0.5), square roots take positive leaves or `abs(...)`, `exp` takes leaves, and every
//! expression carries a bound on its magnitude that rejects operators which could overflow.

use std::fmt::Write as _;
use std::ops::Range;

/// Element iterations of the innermost loop (per repetition).
pub const N: usize = 512;
/// At most this many bytes of arrays are touched by one kernel (L1-resident).
pub const MAX_BYTES: usize = 25 * 1024;

/// A small deterministic generator (xorshift64*).
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    /// A generator from a seed (any value).
    pub fn new(seed: u64) -> Rng {
        Rng(seed ^ 0x9E37_79B9_7F4A_7C15 | 1)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// Uniform in `[0, 1)`.
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Uniform in `lo..=hi`.
    pub fn range(&mut self, lo: usize, hi: usize) -> usize {
        lo + (self.next_u64() % (hi - lo + 1) as u64) as usize
    }

    /// True with probability `p`.
    pub fn chance(&mut self, p: f64) -> bool {
        self.unit() < p
    }
}

/// The element types of the kernels.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Ty {
    /// `real(8)`.
    R8,
    /// `real(4)`.
    R4,
    /// `integer(4)`.
    I4,
    /// `complex(8)`.
    C8,
    /// `complex(4)`: only the input of the single-precision complex calls ([`CALLS`]),
    /// not in [`TYPES`].
    C4,
}

impl Ty {
    /// Short tag used in names.
    pub fn tag(self) -> &'static str {
        match self {
            Ty::R8 => "r8",
            Ty::R4 => "r4",
            Ty::I4 => "i4",
            Ty::C8 => "c8",
            Ty::C4 => "c4",
        }
    }
    /// The Fortran declaration type.
    pub fn decl(self) -> &'static str {
        match self {
            Ty::R8 => "real(8)",
            Ty::R4 => "real(4)",
            Ty::I4 => "integer(4)",
            Ty::C8 => "complex(8)",
            Ty::C4 => "complex(4)",
        }
    }
    fn bytes(self) -> usize {
        match self {
            Ty::R8 => 8,
            Ty::R4 | Ty::I4 => 4,
            Ty::C8 => 16,
            Ty::C4 => 8,
        }
    }
    /// Largest magnitude an expression of this type may reach.
    fn limit(self) -> f64 {
        match self {
            Ty::R8 => 1e100,
            Ty::R4 => 1e20,
            Ty::I4 => 1e9,
            Ty::C8 => 1e50,
            Ty::C4 => 1e20,
        }
    }
    /// Bound on an array element's magnitude.
    fn array_bound(self) -> f64 {
        match self {
            Ty::I4 => 100.0,
            Ty::C8 | Ty::C4 => 2.3,
            _ => 2.0,
        }
    }
    /// Literals (all at least 0.5 in magnitude, at most 7).
    fn literals(self) -> &'static [&'static str] {
        match self {
            Ty::R8 => &["0.5d0", "1.25d0", "3.0d0", "0.75d0"],
            Ty::R4 => &["0.5e0", "1.25e0", "3.0e0", "0.75e0"],
            Ty::I4 => &["3", "7", "2", "5", "4", "8"],
            Ty::C8 => &["(0.5d0,0.25d0)", "(1.0d0,-0.5d0)", "(0.75d0,0.5d0)"],
            Ty::C4 => &["(0.5e0,0.25e0)", "(1.0e0,-0.5e0)", "(0.75e0,0.5e0)"],
        }
    }
    /// Values of the module scalars `s<tag>1..3`, as Fortran literals.
    pub fn scalar_values(self) -> [&'static str; 3] {
        match self {
            Ty::R8 => ["0.75d0", "1.25d0", "0.5d0"],
            Ty::R4 => ["0.75e0", "1.25e0", "0.5e0"],
            Ty::I4 => ["3", "7", "2"],
            Ty::C8 => ["(0.75d0,0.25d0)", "(0.5d0,-0.5d0)", "(1.0d0,0.5d0)"],
            Ty::C4 => ["(0.75e0,0.25e0)", "(0.5e0,-0.5e0)", "(1.0e0,0.5e0)"],
        }
    }
    fn scalar_bound(self) -> f64 {
        match self {
            Ty::I4 => 7.0,
            _ => 1.5,
        }
    }
    fn literal_bound(self) -> f64 {
        match self {
            Ty::I4 => 7.0,
            Ty::C8 | Ty::C4 => 1.2,
            _ => 3.0,
        }
    }
}

/// All element types, in order.
pub const TYPES: [Ty; 4] = [Ty::R8, Ty::R4, Ty::I4, Ty::C8];
/// Input arrays `x<tag>k` per type (1-D, 513 elements).
pub const NX: usize = 6;
/// Result arrays `y<tag>k` per type (1-D, 513 elements).
pub const NY: usize = 3;
/// 2-D input arrays `a<tag>k(65,8)` (real types only).
pub const NA: usize = 4;
/// 2-D result arrays `b<tag>k(64,8)` (real types only).
pub const NB: usize = 3;
/// 2-D input arrays with a halo, `p<tag>k(0:33,0:17)`, for stencils (real types only).
pub const NP: usize = 4;
/// 2-D result arrays `q<tag>k(32,16)` of stencils (real types only).
pub const NQ: usize = 3;
/// Declared shape of the stencil inputs and of their results, and the stencil loop's
/// rows and columns (`STENCIL_ROWS * STENCIL_COLS == N`).
const STENCIL_IN: &str = "(0:33,0:17)";
const STENCIL_OUT: &str = "(32,16)";
const STENCIL_ROWS: usize = 32;
const STENCIL_COLS: usize = 16;
/// IF thresholds `th1..3` (real(8)).
pub const THRESHOLDS: [f64; 3] = [1.25, 1.5, 1.75];

/// How the loop body is shaped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// One loop, assignments only.
    Plain,
    /// A 2-D nest over `a(i,j)`.
    TwoD,
    /// A 2-D nest reading neighbours `p(i±1,j)`, `p(i,j±1)` (a stencil), the inner loop
    /// to a trip count known only at run time (`augm`): the scalar multi-dimensional
    /// loops of real programs, which -O2 does not vectorize.
    Stencil,
    /// Some operands gathered through an index array `x(idx1(i))`.
    Gather,
    /// A data-dependent `IF (x(i) > th) THEN ... ELSE ... END IF` on a fixed random pattern.
    If,
    /// Whole-array statements over 1-D sections (`y(1:n) = x(2:n+1) * s`): the loop is
    /// the compiler's scalarization, its per-element overhead `ALOV`.
    Array,
    /// Whole-array statements with a vector subscript (`x(idx1(1:n))`).
    ArrayGather,
}

impl Shape {
    /// Whether operands are gathered through `idx1`.
    fn gathers(self) -> bool {
        matches!(self, Shape::Gather | Shape::ArrayGather)
    }

    /// Whether the statements are whole-array statements.
    pub fn array_syntax(self) -> bool {
        matches!(self, Shape::Array | Shape::ArrayGather)
    }
}

/// The recipe of one kernel.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Config {
    ty: Ty,
    mixed: bool,
    shape: Shape,
    global: bool,
}

const fn cfg(ty: Ty, mixed: bool, shape: Shape, global: bool) -> Config {
    Config {
        ty,
        mixed,
        shape,
        global,
    }
}

/// The cycle of recipes; kernel `k` uses `CONFIGS[k % len]`.
const CONFIGS: [Config; 24] = [
    cfg(Ty::R8, false, Shape::Plain, false),
    cfg(Ty::R8, false, Shape::Plain, true),
    cfg(Ty::R4, false, Shape::Plain, false),
    cfg(Ty::R4, false, Shape::Plain, true),
    cfg(Ty::I4, false, Shape::Plain, false),
    cfg(Ty::I4, false, Shape::Plain, true),
    cfg(Ty::C8, false, Shape::Plain, false),
    cfg(Ty::C8, false, Shape::Plain, true),
    cfg(Ty::R8, true, Shape::Plain, false),
    cfg(Ty::I4, true, Shape::Plain, true),
    cfg(Ty::R8, false, Shape::TwoD, false),
    cfg(Ty::R4, false, Shape::TwoD, true),
    cfg(Ty::R8, false, Shape::Gather, false),
    cfg(Ty::I4, false, Shape::Gather, true),
    cfg(Ty::R8, false, Shape::If, false),
    cfg(Ty::R8, false, Shape::If, true),
    cfg(Ty::R8, false, Shape::Gather, true),
    cfg(Ty::R4, true, Shape::Plain, false),
    cfg(Ty::R8, false, Shape::Array, false),
    cfg(Ty::R4, false, Shape::Array, true),
    cfg(Ty::I4, false, Shape::Array, false),
    cfg(Ty::R8, false, Shape::Array, true),
    cfg(Ty::R8, true, Shape::Array, false),
    cfg(Ty::R8, false, Shape::ArrayGather, false),
];

/// The recipes of the stencil kernels ([`stencil_kernels`]), in turn.
const STENCIL_CONFIGS: [Config; 3] = [
    cfg(Ty::R8, false, Shape::Stencil, false),
    cfg(Ty::R4, false, Shape::Stencil, true),
    cfg(Ty::R8, false, Shape::Stencil, true),
];

/// One generated kernel.
#[derive(Debug, Clone, PartialEq)]
pub struct Kernel {
    /// 1-based number; the subroutine is `aug_k<id>`.
    pub id: usize,
    /// A short description, e.g. `r8 local, 2 stmts`.
    pub description: String,
    /// Whether the operands are module variables.
    pub global: bool,
    /// The subroutine's text.
    pub source: String,
    /// Arguments after `reps` in the dispatcher's call (empty for global kernels).
    pub args: Vec<String>,
    /// Lines (0-based, relative to `source`) of the THEN branch's statements and the ELSE.
    pub then_lines: Range<usize>,
    /// Lines (0-based, relative to `source`) of the ELSE branch's statements.
    pub else_lines: Range<usize>,
    /// Fraction of the 512 iterations that take the THEN branch (IF kernels).
    pub then_fraction: Option<f64>,
    /// Bytes of arrays the kernel touches.
    pub bytes: usize,
    /// For whole-array kernels, the lines (0-based, relative to `source`) of the array
    /// statements, which count `N` elements each execution.
    pub array_lines: Option<Range<usize>>,
}

impl Kernel {
    /// The subroutine's name.
    pub fn name(&self) -> String {
        format!("aug_k{}", self.id)
    }
}

/// An array a kernel uses.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Arr {
    name: String,
    ty: Ty,
    decl_dims: String,
    bytes: usize,
}

/// One expression: its text, its magnitude bound, its type, and whether it is constant.
#[derive(Debug, Clone)]
struct E {
    text: String,
    bound: f64,
    ty: Ty,
    constant: bool,
    leaf: bool,
}

struct Ctx<'a> {
    rng: &'a mut Rng,
    cfg: Config,
    arrays: Vec<Arr>,
    scalars: Vec<(String, Ty)>,
    bytes: usize,
    gathers: usize,
}

fn promote(a: Ty, b: Ty) -> Ty {
    use Ty::*;
    match (a, b) {
        (C8, _) | (_, C8) => C8,
        (R8, _) | (_, R8) => R8,
        (R4, _) | (_, R4) => R4,
        _ => I4,
    }
}

impl Ctx<'_> {
    fn two_d(&self) -> bool {
        self.cfg.shape == Shape::TwoD
    }

    fn stencil(&self) -> bool {
        self.cfg.shape == Shape::Stencil
    }

    fn leaf_type(&mut self) -> Ty {
        if self.cfg.mixed {
            [Ty::R8, Ty::R4, Ty::I4][self.rng.range(0, 2)]
        } else {
            self.cfg.ty
        }
    }

    /// Uses array `name` (adding it if new and the byte budget allows); false if not.
    fn take(&mut self, name: String, ty: Ty, dims: String, bytes: usize) -> bool {
        if self.arrays.iter().any(|a| a.name == name) {
            return true;
        }
        if self.bytes + bytes > MAX_BYTES {
            return false;
        }
        self.bytes += bytes;
        self.arrays.push(Arr {
            name,
            ty,
            decl_dims: dims,
            bytes,
        });
        true
    }

    /// An input array of type `ty` (prefers one already used half the time).
    fn input_array(&mut self, ty: Ty) -> Option<String> {
        let real = ty != Ty::I4 && ty != Ty::C8;
        let two_d = self.two_d() && real;
        let stencil = self.stencil() && real;
        let (prefix, count) = if stencil {
            ("p", NP)
        } else if two_d {
            ("a", NA)
        } else {
            ("x", NX)
        };
        let count = if ty == Ty::C8 { 4 } else { count };
        let used: Vec<String> = self
            .arrays
            .iter()
            .filter(|a| a.ty == ty && a.name.starts_with(prefix))
            .map(|a| a.name.clone())
            .collect();
        if !used.is_empty() && self.rng.chance(0.5) {
            return Some(used[self.rng.range(0, used.len() - 1)].clone());
        }
        let k = self.rng.range(1, count);
        let name = format!("{prefix}{}{k}", ty.tag());
        let (dims, bytes) = if stencil {
            (STENCIL_IN.to_string(), 34 * 18 * ty.bytes())
        } else if two_d {
            ("(65,8)".to_string(), 65 * 8 * ty.bytes())
        } else {
            (format!("({})", N + 1), (N + 1) * ty.bytes())
        };
        if self.take(name.clone(), ty, dims, bytes) {
            Some(name)
        } else if !used.is_empty() {
            Some(used[self.rng.range(0, used.len() - 1)].clone())
        } else {
            None
        }
    }

    fn scalar(&mut self, ty: Ty) -> String {
        let name = format!("s{}{}", ty.tag(), self.rng.range(1, 3));
        if !self.scalars.iter().any(|(n, _)| *n == name) {
            self.scalars.push((name.clone(), ty));
        }
        name
    }

    fn subscript(&mut self, shift: bool) -> String {
        if self.stencil() {
            // The point or one of its four neighbours.
            let k = self.rng.range(0, 5);
            return ["(i,j)", "(i-1,j)", "(i+1,j)", "(i,j-1)", "(i,j+1)", "(i,j)"][k].into();
        }
        let i = if shift { "i+1" } else { "i" };
        if self.two_d() {
            format!("({i},j)")
        } else {
            format!("({i})")
        }
    }

    /// A leaf; `constant_ok` allows literals.
    fn leaf(&mut self, constant_ok: bool) -> E {
        let ty = self.leaf_type();
        let roll = self.rng.unit();
        if roll < 0.68 || !constant_ok && roll < 0.85 {
            let two_d_arr = self.two_d() && ty != Ty::I4 && ty != Ty::C8;
            if let Some(name) = self.input_array(ty) {
                let gather = self.cfg.shape.gathers()
                    && !two_d_arr
                    && self.rng.chance(0.5)
                    && self.take("idx1".into(), Ty::I4, format!("({N})"), N * 4);
                let text = if gather {
                    self.gathers += 1;
                    format!("{name}(idx1(i))")
                } else {
                    let shift = self.rng.chance(0.25);
                    let sub = self.subscript(shift);
                    format!("{name}{sub}")
                };
                return E {
                    text,
                    bound: ty.array_bound(),
                    ty,
                    constant: false,
                    leaf: true,
                };
            }
        }
        if roll < 0.85 || !constant_ok {
            let text = self.scalar(ty);
            return E {
                text,
                bound: ty.scalar_bound(),
                ty,
                constant: false,
                leaf: true,
            };
        }
        let lits = ty.literals();
        E {
            text: lits[self.rng.range(0, lits.len() - 1)].to_string(),
            bound: ty.literal_bound(),
            ty,
            constant: true,
            leaf: true,
        }
    }

    fn limit(&self, ty: Ty) -> f64 {
        if self.cfg.mixed {
            1e9
        } else {
            ty.limit()
        }
    }

    /// An expression with `ops` operators.
    fn expr(&mut self, ops: usize) -> E {
        if ops == 0 {
            return self.leaf(true);
        }
        let ty = self.cfg.ty;
        // Unary intrinsics take one operator of the budget.
        let roll = self.rng.unit();
        if !self.cfg.mixed && roll < 0.22 {
            match ty {
                Ty::R8 | Ty::R4 => {
                    let choices: &[&str] = if ty == Ty::R8 {
                        &["sqrt", "abs", "exp", "sin", "max", "log", "atan", "pow2"]
                    } else {
                        &["sqrt", "abs", "max", "sin", "log", "atan", "pow2"]
                    };
                    let f = choices[self.rng.range(0, choices.len() - 1)];
                    return self.intrinsic(f, ops);
                }
                Ty::I4 => {
                    let f = ["mod", "abs", "max"][self.rng.range(0, 2)];
                    return self.intrinsic(f, ops);
                }
                Ty::C8 | Ty::C4 => {}
            }
        }
        // Complex kernels avoid division: it is rare in real code and would need more
        // complex kernels to be told apart.
        let op = if ty == Ty::C8 && !self.cfg.mixed {
            ["+", "-", "*"][self.rng.range(0, 2)]
        } else {
            ["+", "-", "*", "/", "+", "*"][self.rng.range(0, 5)]
        };
        if op == "/" {
            let left = self.expr(ops - 1);
            let right = self.leaf(!left.constant);
            let rty = promote(left.ty, right.ty);
            let bound = left.bound * 2.0;
            if bound <= self.limit(rty) {
                return self.bin(left, "/", right, bound);
            }
            return self.bin(left, "-", right, bound);
        }
        let nl = self.rng.range(0, ops - 1);
        let left = self.expr(nl);
        let right = if left.constant {
            self.nonconstant(ops - 1 - nl)
        } else {
            self.expr(ops - 1 - nl)
        };
        let rty = promote(left.ty, right.ty);
        if op == "*" {
            let bound = left.bound * right.bound;
            if bound <= self.limit(rty) {
                return self.bin(left, "*", right, bound);
            }
        }
        let bound = left.bound + right.bound;
        let op = if op == "*" { "+" } else { op };
        self.bin(left, op, right, bound)
    }

    fn nonconstant(&mut self, ops: usize) -> E {
        if ops == 0 {
            self.leaf(false)
        } else {
            self.expr(ops)
        }
    }

    fn bin(&mut self, l: E, op: &str, r: E, bound: f64) -> E {
        // Parenthesize the right operand of - and /, and sums under * and /.
        let wrap = |e: &E| {
            if e.leaf {
                e.text.clone()
            } else {
                format!("({})", e.text)
            }
        };
        let text = match op {
            "+" => format!("{} + {}", l.text, r.text),
            "-" => format!("{} - {}", l.text, wrap(&r)),
            _ => format!("{} {op} {}", wrap(&l), wrap(&r)),
        };
        E {
            text,
            bound,
            ty: promote(l.ty, r.ty),
            constant: l.constant && r.constant,
            leaf: false,
        }
    }

    fn intrinsic(&mut self, f: &str, ops: usize) -> E {
        let ty = self.cfg.ty;
        match f {
            "sqrt" => {
                // sqrt of a positive leaf, or of abs(expr).
                if ops >= 2 && self.rng.chance(0.4) {
                    let inner = self.expr(ops - 2);
                    let inner = if inner.constant {
                        self.leaf(false)
                    } else {
                        inner
                    };
                    E {
                        text: format!("sqrt(abs({}))", inner.text),
                        bound: inner.bound.sqrt(),
                        ty,
                        constant: false,
                        leaf: true,
                    }
                } else {
                    let l = self.leaf(false);
                    E {
                        text: format!("sqrt({})", l.text),
                        bound: l.bound.sqrt(),
                        ty,
                        constant: false,
                        leaf: true,
                    }
                }
            }
            "exp" => {
                let l = self.leaf(false);
                E {
                    text: format!("exp({})", l.text),
                    bound: 21.0,
                    ty,
                    constant: false,
                    leaf: true,
                }
            }
            "sin" => {
                let inner = self.nonconstant(ops - 1);
                let inner = if inner.bound > 100.0 {
                    self.leaf(false)
                } else {
                    inner
                };
                E {
                    text: format!("sin({})", inner.text),
                    bound: 1.0,
                    ty,
                    constant: false,
                    leaf: true,
                }
            }
            "log" => {
                // Of a non-zero leaf's magnitude (the leaves are never zero).
                let l = self.leaf(false);
                E {
                    text: format!("log(abs({}))", l.text),
                    bound: 3.0,
                    ty,
                    constant: false,
                    leaf: true,
                }
            }
            "atan" => {
                let inner = self.nonconstant(ops - 1);
                E {
                    text: format!("atan({})", inner.text),
                    bound: 1.6,
                    ty,
                    constant: false,
                    leaf: true,
                }
            }
            "pow2" => {
                // x**2 (the compiler multiplies), of a small enough operand.
                let inner = self.nonconstant(ops - 1);
                let inner = if inner.bound * inner.bound > self.limit(ty) {
                    self.leaf(false)
                } else {
                    inner
                };
                let text = if inner.leaf {
                    format!("{}**2", inner.text)
                } else {
                    format!("({})**2", inner.text)
                };
                E {
                    text,
                    bound: inner.bound * inner.bound,
                    ty,
                    constant: false,
                    leaf: false,
                }
            }
            "abs" => {
                let inner = self.nonconstant(ops - 1);
                E {
                    text: format!("abs({})", inner.text),
                    bound: inner.bound,
                    ty,
                    constant: false,
                    leaf: true,
                }
            }
            "mod" => {
                let inner = self.nonconstant(ops - 1);
                let d = self.leaf(true);
                E {
                    text: format!("mod({}, {})", inner.text, d.text),
                    bound: d.bound,
                    ty,
                    constant: false,
                    leaf: true,
                }
            }
            _ => {
                // max(a, b)
                let nl = self.rng.range(0, ops - 1);
                let a = self.nonconstant(nl);
                let b = self.expr(ops - 1 - nl);
                E {
                    text: format!("max({}, {})", a.text, b.text),
                    bound: a.bound.max(b.bound),
                    ty,
                    constant: false,
                    leaf: true,
                }
            }
        }
    }

    /// A result array of the kernel's type, new.
    fn result_array(&mut self, k: usize) -> Option<String> {
        let ty = self.cfg.ty;
        let (name, dims, bytes) = if self.stencil() {
            (
                format!("q{}{k}", ty.tag()),
                STENCIL_OUT.to_string(),
                STENCIL_ROWS * STENCIL_COLS * ty.bytes(),
            )
        } else if self.two_d() {
            (
                format!("b{}{k}", ty.tag()),
                "(64,8)".to_string(),
                64 * 8 * ty.bytes(),
            )
        } else {
            (
                format!("y{}{k}", ty.tag()),
                format!("({})", N + 1),
                (N + 1) * ty.bytes(),
            )
        };
        if self.take(name.clone(), ty, dims, bytes) {
            Some(name)
        } else {
            None
        }
    }
}

/// The value the support routine `auginit_r8` gives element `i` (1-based) of the
/// real(8) array initialized with `seed`: `1 + state/2^31` of a Lehmer-style LCG.
pub fn init_value_r8(seed: u64, i: usize) -> f64 {
    let mut state = seed % 2_147_483_648;
    let mut v = 0.0;
    for _ in 0..i {
        state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
        v = 1.0 + state as f64 / 2_147_483_648.0;
    }
    v
}

/// The seed the main program uses for input array `name`.
pub fn seed_of(name: &str) -> u64 {
    let mut h: u64 = 1469598103934665603;
    for b in name.bytes() {
        h = (h ^ b as u64).wrapping_mul(1099511628211);
    }
    1 + h % 1_000_000_007
}

/// Generates `count` kernels from `seed`. The same arguments always give the same kernels.
pub fn generate_kernels(count: usize, seed: u64) -> Vec<Kernel> {
    kernels_of(&CONFIGS, count, seed, 1)
}

/// `count` stencil kernels (2-D, neighbours through a halo, scalar at -O2), numbered
/// from `first_id`, from a generator of their own so that adding them leaves the
/// kernels of [`generate_kernels`] as they were.
pub fn stencil_kernels(count: usize, seed: u64, first_id: usize) -> Vec<Kernel> {
    kernels_of(&STENCIL_CONFIGS, count, seed ^ 0x5157_e4c1, first_id)
}

fn kernels_of(configs: &[Config], count: usize, seed: u64, first_id: usize) -> Vec<Kernel> {
    let mut rng = Rng::new(seed);
    (0..count)
        .map(|k| {
            let cfg = configs[k % configs.len()];
            // Retry until the kernel has what its shape asks for.
            loop {
                if let Some(kernel) = one_kernel(&mut rng, cfg, k + first_id) {
                    break kernel;
                }
            }
        })
        .collect()
}

/// The library calls measured directly: `(function, argument type, result type, AbOp
/// mnemonic augur counts for it)`. Each gets a kernel of its own, `y(i) = f(x(i))`, whose
/// time less its other operations (a load, a store, the loop) is the call's stream cost:
/// the random kernels hold too few calls of each kind for the least squares to tell them
/// apart, and a call's cost in a loop is not a fixed fraction of its latency (on a Zen 5
/// `exp` overlaps to an eighth of its latency, `clog` not at all).
pub const CALLS: [(&str, Ty, Ty, &str); 21] = [
    ("exp", Ty::R8, Ty::R8, "EXPD"),
    ("log", Ty::R8, Ty::R8, "LOGD"),
    ("sin", Ty::R8, Ty::R8, "SIND"),
    ("tan", Ty::R8, Ty::R8, "TAND"),
    ("atan", Ty::R8, Ty::R8, "ATND"),
    ("tanh", Ty::R8, Ty::R8, "HYPD"),
    ("exp", Ty::R4, Ty::R4, "EXPS"),
    ("log", Ty::R4, Ty::R4, "LOGS"),
    ("sin", Ty::R4, Ty::R4, "SINS"),
    ("atan", Ty::R4, Ty::R4, "ATNS"),
    ("exp", Ty::C8, Ty::C8, "EXPC"),
    ("log", Ty::C8, Ty::C8, "LOGC"),
    ("sin", Ty::C8, Ty::C8, "SINC"),
    ("sqrt", Ty::C8, Ty::C8, "SQRC"),
    ("abs", Ty::C8, Ty::R8, "ABSC"),
    // The single-precision modulus is another routine (`cabsf`), measured apart.
    ("abs", Ty::C4, Ty::R4, "CABS"),
    ("**", Ty::R8, Ty::R8, "XRDL"),
    // Rounding half away from zero (ANINT, and NINT before its conversion): no common
    // target has an instruction for it, so compilers call the C library's `round`.
    ("anint", Ty::R8, Ty::R8, "ANID"),
    ("anint", Ty::R4, Ty::R4, "ANIS"),
    // The remainder of reals: a call of the C library's `fmod`, whose work is one serial
    // loop over the quotient's bits: independent calls overlap little, unlike the
    // elementary functions whose stream/chain ratio a missing entry would borrow.
    ("mod", Ty::R8, Ty::R8, "MODD"),
    ("mod", Ty::R4, Ty::R4, "MODS"),
];

/// The operations of the divide and square-root unit, and of the integer divider, whose
/// occupancy is measured: `(the operation on operands a and b, type, AbOp mnemonic)`. Each gets a kernel `y(i) = f(a(i),
/// b(i))` of independent iterations that the compiler leaves scalar, whose time per
/// element is the unit's time per operation: the loads, the store and the loop issue
/// beside it ([`divider_kernels`]).
pub const DIVIDERS: [(&str, Ty, &str); 6] = [
    ("{a} / {b}", Ty::R8, "DRDL"),
    ("sqrt({a})", Ty::R8, "SQRD"),
    ("{a} / {b}", Ty::R4, "DRSL"),
    ("sqrt({a})", Ty::R4, "SQRS"),
    // An integer divide by a value known only at run time (a divide by a constant is
    // a multiply and shifts: DICN, MOCN): one `idiv` each, which is not pipelined (a Zen
    // 4: 1.67 ns an element for `mod(a(i), b(i))` or `a(i)/b(i)`, whatever the operands'
    // size, where the least-squares MODI said 0.41).
    ("{a} / {b}", Ty::I4, "DISL"),
    ("mod({a}, {b})", Ty::I4, "MODI"),
];

/// One kernel per entry of [`DIVIDERS`], numbered from `first_id`: local operands (the
/// module's first two input arrays of the type, values in `[1, 2)`) and a trip count
/// known only at run time (`augn`), which -O2 does not vectorize (to a known count it
/// would, and the kernel would time the vector unit; one operation per iteration leaves
/// nothing to pack for the basic-block vectorizer).
pub fn divider_kernels(first_id: usize) -> Vec<Kernel> {
    DIVIDERS
        .iter()
        .enumerate()
        .map(|(k, &(op, ty, abop))| {
            let id = first_id + k;
            let t = ty.tag();
            let (a, b, y) = (format!("x{t}1"), format!("x{t}2"), format!("y{t}1"));
            let expr = op
                .replace("{a}", &format!("{a}(i)"))
                .replace("{b}", &format!("{b}(i)"));
            let source = format!(
                "! kernel {id}: divider {abop}\n\
                 subroutine aug_k{id}(reps, {a}, {b}, {y})\n\
                 \x20 use augsg, only: augn\n\
                 \x20 implicit none\n\
                 \x20 {d} :: {a}({n1}), {b}({n1}), {y}({n1})\n\
                 \x20 integer(8), intent(in) :: reps\n\
                 \x20 integer(8) :: r\n\
                 \x20 integer :: i\n\
                 \x20 do r = 1, reps\n\
                 \x20   do i = 1, augn\n\
                 \x20   {y}(i) = {expr}\n\
                 \x20   end do\n\
                 \x20   call augt_{t}({y})\n\
                 \x20 end do\n\
                 end subroutine aug_k{id}\n",
                d = ty.decl(),
                n1 = N + 1,
            );
            Kernel {
                id,
                description: format!(
                    "divider {abop} ({} of {t})",
                    op.replace("{a}", "a").replace("{b}", "b")
                ),
                global: false,
                source,
                args: vec![a, b, y],
                then_lines: 0..0,
                else_lines: 0..0,
                then_fraction: None,
                bytes: (N + 1) * 3 * ty.bytes(),
                array_lines: None,
            }
        })
        .collect()
}

/// Two kernels per entry of [`CALLS`], numbered from `first_id`: first one each to a
/// trip count the compiler knows (which -O2 vectorizes with the vector math library
/// where it can), then one each to a trip count known only at run time (`augn`, which
/// -O2 leaves scalar: the scalar library call of the loops that do not vectorize).
/// Local operands (the module's first input and result arrays of the types), inputs in
/// `[1, 2)`.
pub fn call_kernels(first_id: usize) -> Vec<Kernel> {
    let known = CALLS.iter().map(|&c| (c, false));
    let runtime = CALLS.iter().map(|&c| (c, true));
    known
        .chain(runtime)
        .enumerate()
        .map(|(k, ((f, arg, res, abop), at_run_time))| {
            let id = first_id + k;
            let x = format!("x{}1", arg.tag());
            let y = format!("y{}1", res.tag());
            let call = if f == "**" {
                format!("{x}(i)**1.37_8")
            } else if f == "mod" {
                // Inputs in [1, 2) over 1.1: a quotient below 2, the divisor's exponent
                // the dividend's, as in the chain kernel (`mod(x + 1.3, 7)`): `fmod`
                // loops once per bit the exponents differ by (glibc 2.36).
                format!("mod({x}(i), 1.1_{})", arg.bytes())
            } else {
                format!("{f}({x}(i))")
            };
            let (uses, last, how) = if at_run_time {
                (
                    "\x20 use augsg, only: augn\n",
                    "augn".to_string(),
                    ", n at run time",
                )
            } else {
                ("", N.to_string(), "")
            };
            let source = format!(
                "! kernel {id}: call {abop}{how}\n\
                 subroutine aug_k{id}(reps, {x}, {y})\n\
                 {uses}\
                 \x20 implicit none\n\
                 \x20 {} :: {x}({n1})\n\
                 \x20 {} :: {y}({n1})\n\
                 \x20 integer(8), intent(in) :: reps\n\
                 \x20 integer(8) :: r\n\
                 \x20 integer :: i\n\
                 \x20 do r = 1, reps\n\
                 \x20   do i = 1, {last}\n\
                 \x20   {y}(i) = {call}\n\
                 \x20   end do\n\
                 \x20   call augt_{}({y})\n\
                 \x20 end do\n\
                 end subroutine aug_k{id}\n",
                arg.decl(),
                res.decl(),
                res.tag(),
                n1 = N + 1,
            );
            Kernel {
                id,
                description: format!("call {abop} ({f} of {}){how}", arg.tag()),
                global: false,
                source,
                args: vec![x, y],
                then_lines: 0..0,
                else_lines: 0..0,
                then_fraction: None,
                bytes: (N + 1) * (arg.bytes() + res.bytes()),
                array_lines: None,
            }
        })
        .collect()
}

fn one_kernel(rng: &mut Rng, cfg: Config, id: usize) -> Option<Kernel> {
    let mut cx = Ctx {
        rng,
        cfg,
        arrays: vec![],
        scalars: vec![],
        bytes: 0,
        gathers: 0,
    };
    let max_stmts = if cfg.ty == Ty::C8 { 2 } else { 3 };
    let nstmts = cx.rng.range(1, max_stmts);
    let mut results = vec![];
    for k in 1..=nstmts {
        results.push(cx.result_array(k)?);
    }
    let mut body = cx.body(&results)?;
    if cfg.shape.gathers() && cx.gathers == 0 {
        return None;
    }
    // Every other kernel runs to a trip count known only at run time (`augn`, set to N
    // through an opaque function), as most loops of real programs do: compilers treat
    // the two differently (at -O2 gfortran vectorizes only loops that need no remainder).
    let runtime_trips = id % 2 == 0 && !cx.two_d() && !cx.stencil();
    if cfg.shape.array_syntax() {
        body.rewrite_as_sections(runtime_trips);
    }
    let mut description = describe(cfg, nstmts, body.then_fraction);
    if runtime_trips {
        description.push_str(", n at run time");
    }
    let (source, args, offset) =
        cx.subroutine(id, &description, &results, &body.lines, runtime_trips);
    let array_lines = cfg
        .shape
        .array_syntax()
        .then(|| offset..offset + body.lines.len());
    Some(Kernel {
        id,
        array_lines,
        description,
        global: cfg.global,
        source,
        args,
        then_lines: body.then_lines.start + offset..body.then_lines.end + offset,
        else_lines: body.else_lines.start + offset..body.else_lines.end + offset,
        then_fraction: body.then_fraction,
        bytes: cx.bytes,
    })
}

/// The element loop's trip count: `augn` (a module variable set to N through an opaque
/// function) when known only at run time, else N.
fn trip_count(runtime_trips: bool) -> String {
    if runtime_trips {
        "augn".to_string()
    } else {
        N.to_string()
    }
}

/// The statements of a kernel's loop body.
struct Body {
    /// The lines, indented.
    lines: Vec<String>,
    /// The THEN branch's statements (indices into `lines`), empty without an IF.
    then_lines: Range<usize>,
    /// The ELSE branch's statements.
    else_lines: Range<usize>,
    /// The share of iterations that take the THEN branch, for IF kernels.
    then_fraction: Option<f64>,
}

impl Body {
    /// The same statements over whole sections: `(i)` is the section `(1:N)`, `(i+1)`
    /// the shifted one; the vector subscript `idx1(i)` becomes `idx1(1:N)` (`augn` for
    /// `N` when the trip count is known only at run time).
    fn rewrite_as_sections(&mut self, runtime_trips: bool) {
        let whole = format!("(1:{})", trip_count(runtime_trips));
        let shifted = if runtime_trips {
            "(2:augn+1)".to_string()
        } else {
            format!("(2:{})", N + 1)
        };
        for l in &mut self.lines {
            *l = l.replace("(i+1)", &shifted).replace("(i)", &whole);
        }
    }
}

impl Ctx<'_> {
    /// The loop body assigning `results` (one statement each, random expressions); for
    /// IF kernels, unconditional statements first, then an IF on a fixed random pattern
    /// whose branches assign the rest. `None` when the pattern's array cannot be taken.
    fn body(&mut self, results: &[String]) -> Option<Body> {
        let cfg = self.cfg;
        let nstmts = results.len();
        let max_ops = if cfg.ty == Ty::C8 { 5 } else { 7 };
        let sub = if self.two_d() || self.stencil() {
            "(i,j)"
        } else {
            "(i)"
        };
        let pad = if self.two_d() || self.stencil() {
            "      "
        } else {
            "    "
        };
        let stmt = |cx: &mut Ctx<'_>, y: &str, ind: &str| {
            let ops = cx.rng.range(1, max_ops);
            let e = cx.expr(ops);
            let e = if e.constant { cx.leaf(false) } else { e };
            format!("{pad}{ind}{y}{sub} = {}", e.text)
        };
        let mut body = Body {
            lines: vec![],
            then_lines: 0..0,
            else_lines: 0..0,
            then_fraction: None,
        };
        if cfg.shape != Shape::If {
            for y in results {
                body.lines.push(stmt(self, y, ""));
            }
            return Some(body);
        }
        let lines = &mut body.lines;
        let before = self.rng.range(0, nstmts - 1);
        for y in &results[..before] {
            lines.push(stmt(self, y, ""));
        }
        let kx = self.rng.range(1, NX);
        let cond = format!("xr8{kx}");
        let bytes = (N + 1) * 8;
        if !self.take(cond.clone(), Ty::R8, format!("({})", N + 1), bytes) {
            return None;
        }
        let kt = self.rng.range(1, 3);
        let th = THRESHOLDS[kt - 1];
        if !self.scalars.iter().any(|(n, _)| *n == format!("th{kt}")) {
            self.scalars.push((format!("th{kt}"), Ty::R8));
        }
        let seed = seed_of(&cond);
        let above = (1..=N).filter(|&i| init_value_r8(seed, i) > th).count();
        body.then_fraction = Some(above as f64 / N as f64);
        lines.push(format!("{pad}if ({cond}(i) > th{kt}) then"));
        let start = lines.len();
        for y in &results[before..] {
            lines.push(stmt(self, y, "  "));
        }
        lines.push(format!("{pad}else"));
        body.then_lines = start..lines.len();
        let start = lines.len();
        for y in &results[before..] {
            if self.rng.chance(0.7) || y == &results[before] {
                lines.push(stmt(self, y, "  "));
            }
        }
        body.else_lines = start..lines.len();
        lines.push(format!("{pad}end if"));
        Some(body)
    }

    /// The kernel's subroutine `aug_k{id}`: declarations (the module's arrays, or its
    /// arrays and scalars as dummy arguments), the repetition loop around the element
    /// loop(s) around `body` (to a trip count known only at run time with
    /// `runtime_trips`), and the results handed to the opaque result routine. Returns the
    /// text, the dummy arguments and the line (0-based) of the body's first statement.
    fn subroutine(
        &self,
        id: usize,
        description: &str,
        results: &[String],
        body: &[String],
        runtime_trips: bool,
    ) -> (String, Vec<String>, usize) {
        let cfg = self.cfg;
        let last = trip_count(runtime_trips);
        let mut arrays = self.arrays.clone();
        arrays.sort_by(|a, b| a.name.cmp(&b.name));
        let mut scalars = self.scalars.clone();
        scalars.sort();
        let mut args: Vec<String> = vec![];
        let mut s = String::new();
        let _ = writeln!(s, "! kernel {id}: {description}");
        if cfg.global {
            let _ = writeln!(s, "subroutine aug_k{id}(reps)");
            s.push_str("  use augsg\n  implicit none\n");
        } else {
            args.extend(arrays.iter().map(|a| a.name.clone()));
            args.extend(scalars.iter().map(|(n, _)| n.clone()));
            let _ = writeln!(s, "subroutine aug_k{id}(reps, {})", args.join(", "));
            if runtime_trips {
                s.push_str("  use augsg, only: augn\n");
            } else if self.stencil() {
                s.push_str("  use augsg, only: augm\n");
            }
            s.push_str("  implicit none\n");
            for a in &arrays {
                let _ = writeln!(s, "  {} :: {}{}", a.ty.decl(), a.name, a.decl_dims);
            }
            for (n, ty) in &scalars {
                let _ = writeln!(s, "  {} :: {n}", ty.decl());
            }
        }
        s.push_str("  integer(8), intent(in) :: reps\n  integer(8) :: r\n  integer :: i");
        s.push_str(if self.two_d() || self.stencil() {
            ", j\n"
        } else {
            "\n"
        });
        s.push_str("  do r = 1, reps\n");
        if self.stencil() {
            let _ = writeln!(s, "    do j = 1, {STENCIL_COLS}\n    do i = 1, augm");
        } else if self.two_d() {
            s.push_str("    do j = 1, 8\n    do i = 1, 64\n");
        } else if !cfg.shape.array_syntax() {
            let _ = writeln!(s, "    do i = 1, {last}");
        }
        let offset = s.lines().count();
        for l in body {
            s.push_str(l);
            s.push('\n');
        }
        if self.two_d() || self.stencil() {
            s.push_str("    end do\n    end do\n");
        } else if !cfg.shape.array_syntax() {
            s.push_str("    end do\n");
        }
        let tag = cfg.ty.tag();
        let _ = writeln!(s, "    call augt_{tag}({})", results[0]);
        s.push_str("  end do\n");
        for y in &results[1..] {
            let _ = writeln!(s, "  call augt_{tag}({y})");
        }
        let _ = writeln!(s, "end subroutine aug_k{id}");
        (s, args, offset)
    }
}

fn describe(cfg: Config, nstmts: usize, frac: Option<f64>) -> String {
    let ty = if cfg.mixed {
        format!("mixed->{}", cfg.ty.tag())
    } else {
        cfg.ty.tag().to_string()
    };
    let st = if cfg.global { "global" } else { "local" };
    let shape = match cfg.shape {
        Shape::Plain => String::new(),
        Shape::TwoD => " 2-D".to_string(),
        Shape::Stencil => " 2-D stencil".to_string(),
        Shape::Gather => " gather".to_string(),
        Shape::If => format!(" IF {:.0}%", 100.0 * frac.unwrap_or(0.0)),
        Shape::Array => " array syntax".to_string(),
        Shape::ArrayGather => " array syntax gather".to_string(),
    };
    format!("{ty} {st}{shape}, {nstmts} stmt")
}

/// The generated sources of one timing program.
#[derive(Debug, Clone)]
pub struct Sources {
    /// `augsup.f90`: module `augsup` (check flag), initializers, identity functions and
    /// the result routines; compiled separately so nothing folds or vanishes.
    pub support: String,
    /// `augkern.f90`: module `augsg` (every operand array and scalar) and the kernels.
    pub kernels: String,
    /// `augmain.f90`: the dispatcher and the main program that calibrates and observes.
    pub main: String,
    /// For each kernel (in the order given), its lines in `kernels` (1-based, end exclusive).
    pub lines: Vec<Range<u32>>,
}

/// Every module array's declaration: `(name, type, dims)`.
fn pool() -> Vec<(String, Ty, String)> {
    let mut v = vec![];
    for ty in TYPES {
        let nx = if ty == Ty::C8 { 4 } else { NX };
        for k in 1..=nx {
            v.push((format!("x{}{k}", ty.tag()), ty, format!("({})", N + 1)));
        }
        for k in 1..=NY {
            v.push((format!("y{}{k}", ty.tag()), ty, format!("({})", N + 1)));
        }
        if matches!(ty, Ty::R8 | Ty::R4) {
            for k in 1..=NA {
                v.push((format!("a{}{k}", ty.tag()), ty, "(65,8)".to_string()));
            }
            for k in 1..=NB {
                v.push((format!("b{}{k}", ty.tag()), ty, "(64,8)".to_string()));
            }
            for k in 1..=NP {
                v.push((format!("p{}{k}", ty.tag()), ty, STENCIL_IN.to_string()));
            }
            for k in 1..=NQ {
                v.push((format!("q{}{k}", ty.tag()), ty, STENCIL_OUT.to_string()));
            }
        }
    }
    // The input of the single-precision complex calls.
    v.push((
        format!("x{}1", Ty::C4.tag()),
        Ty::C4,
        format!("({})", N + 1),
    ));
    v
}

/// Generates the three files for `kernels`.
pub fn program(kernels: &[Kernel]) -> Sources {
    // Module with every operand, then the kernels.
    let mut k = String::from(
        "! Generated by augur stream: loop kernels with independent iterations.\n\
         module augsg\n  implicit none\n",
    );
    for (name, ty, dims) in pool() {
        let _ = writeln!(k, "  {} :: {name}{dims}", ty.decl());
    }
    let _ = writeln!(k, "  integer(4) :: idx1({N})");
    for ty in TYPES {
        let _ = writeln!(k, "  {} :: s{t}1, s{t}2, s{t}3", ty.decl(), t = ty.tag());
    }
    k.push_str("  real(8) :: th1, th2, th3\n  integer :: augn, augm\nend module augsg\n\n");
    let mut lines = vec![];
    for kern in kernels {
        let start = k.lines().count() as u32 + 1;
        k.push_str(&kern.source);
        let end = k.lines().count() as u32 + 1;
        lines.push(start..end);
        k.push('\n');
    }
    // Dispatcher and main.
    let mut m = String::from(
        "! Generated by augur stream: dispatcher and timing loop.\n\
         subroutine augrun(id, reps)\n  use augsg\n  implicit none\n\
         \x20 integer, intent(in) :: id\n  integer(8), intent(in) :: reps\n  select case (id)\n",
    );
    for kern in kernels {
        if kern.args.is_empty() {
            let _ = writeln!(m, "  case ({})\n    call aug_k{}(reps)", kern.id, kern.id);
        } else {
            let _ = writeln!(
                m,
                "  case ({})\n    call aug_k{}(reps, {})",
                kern.id,
                kern.id,
                kern.args.join(", ")
            );
        }
    }
    m.push_str("  end select\nend subroutine augrun\n\n");
    m.push_str(
        "program augstream\n  use augsg\n  use augsup\n  implicit none\n\
         \x20 integer(8) :: rate, reps, t0, t1, t, wc, nmax\n  real(8) :: win\n\
         \x20 integer :: nobs, k, ia, id\n  character(len=64) :: arg\n\
         \x20 real(8), external :: augvr8\n  real(4), external :: augvr4\n\
         \x20 integer(4), external :: augvi4\n  complex(8), external :: augvc8\n\
         \x20 call system_clock(count_rate=rate)\n  write (*, '(a,i0)') 'AUGRATE ', rate\n",
    );
    for (name, ty, dims) in pool() {
        let size = if dims.contains(',') {
            match name.as_bytes()[0] {
                b'a' => 65 * 8,
                b'p' => 34 * 18,
                b'q' => STENCIL_ROWS * STENCIL_COLS,
                _ => 64 * 8,
            }
        } else {
            N + 1
        };
        let _ = writeln!(
            m,
            "  call auginit_{}({name}, {size}, {}_8)",
            ty.tag(),
            seed_of(&name)
        );
    }
    let _ = writeln!(m, "  call auginit_idx(idx1, {N}, {}_8)", seed_of("idx1"));
    for ty in TYPES {
        for (j, v) in ty.scalar_values().iter().enumerate() {
            let _ = writeln!(m, "  s{t}{} = augv{t}({v})", j + 1, t = ty.tag());
        }
    }
    for (j, th) in THRESHOLDS.iter().enumerate() {
        let _ = writeln!(m, "  th{} = augvr8({th:?}d0)", j + 1);
    }
    let _ = writeln!(m, "  augn = augvi4({N})");
    let _ = writeln!(m, "  augm = augvi4({STENCIL_ROWS})");
    m.push_str(MAIN_LOOP);
    Sources {
        support: support(),
        kernels: k,
        main: m,
        lines,
    }
}

const MAIN_LOOP: &str = r#"  call get_command_argument(1, arg)
  read (arg, *) win
  call get_command_argument(2, arg)
  read (arg, *) nobs
  wc = max(1_8, int(win * real(rate, 8) / 1.0d9, 8))
  nmax = 2_8**40
  do ia = 3, command_argument_count()
    call get_command_argument(ia, arg)
    read (arg, *) id
    augcheck = .true.
    augbad = .false.
    call augrun(id, 1_8)
    augcheck = .false.
    if (augbad) then
      write (*, '(a,i0)') 'AUGBAD ', id
      flush (6)
      cycle
    end if
    reps = 1
    do
      call system_clock(t0)
      call augrun(id, reps)
      call system_clock(t1)
      t = t1 - t0
      if (t >= wc / 4 .or. reps >= nmax) exit
      if (t < wc / 64) then
        reps = reps * 16
      else
        reps = reps * 2
      end if
    end do
    if (reps >= nmax) then
      write (*, '(a,i0)') 'AUGGONE ', id
      flush (6)
      cycle
    end if
    reps = max(1_8, int(real(reps, 8) * real(wc, 8) / real(max(t, 1_8), 8), 8))
    do k = 1, nobs
      call system_clock(t0)
      call augrun(id, reps)
      call system_clock(t1)
      write (*, '(a,i0,1x,i0,1x,i0,1x,i0)') 'AUGK ', id, k, reps, t1 - t0
    end do
    flush (6)
  end do
end program augstream
"#;

/// The separately compiled support file: module `augsup` (the check flag), one
/// initializer per type (the LCG `state = (state*1103515245 + 12345) mod 2^31`, which
/// [`init_value_r8`] reproduces), identity functions and the result routines, which check
/// for non-finite and denormal values when `augcheck` is set.
pub fn support() -> String {
    let mut s = String::from(
        "! Generated by augur stream: initializers, identities and result checks, compiled\n\
         ! separately so that the kernels cannot see through them.\n\
         module augsup\n  implicit none\n  logical :: augcheck = .false., augbad = .false.\n\
         end module augsup\n",
    );
    let step = "    state = mod(state * 1103515245_8 + 12345_8, 2147483648_8)\n";
    let unit = "real(state, 8) / 2147483648.0d0";
    let inits = [
        ("r8", "real(8)", format!("    a(k) = 1.0d0 + {unit}\n")),
        (
            "r4",
            "real(4)",
            format!("    a(k) = real(1.0d0 + {unit}, 4)\n"),
        ),
        (
            "i4",
            "integer(4)",
            "    a(k) = 1 + int(mod(state / 65536_8, 100_8), 4)\n".to_string(),
        ),
        (
            "idx",
            "integer(4)",
            "    a(k) = 1 + int(mod(state / 65536_8, int(m, 8)), 4)\n".to_string(),
        ),
        (
            "c8",
            "complex(8)",
            format!("    re = 1.0d0 + {unit}\n{step}    a(k) = cmplx(re, {unit}, 8)\n"),
        ),
        (
            "c4",
            "complex(4)",
            format!("    re = 1.0d0 + {unit}\n{step}    a(k) = cmplx(re, {unit}, 4)\n"),
        ),
    ];
    for (tag, decl, body) in inits {
        let _ = write!(
            s,
            "\nsubroutine auginit_{tag}(a, m, seed)\n  implicit none\n  integer :: m, k\n  {decl} :: a(m)\n\
             \x20 integer(8) :: seed, state\n  real(8) :: re\n  state = mod(seed, 2147483648_8)\n\
             \x20 do k = 1, m\n{step}{body}  end do\nend subroutine auginit_{tag}\n"
        );
    }
    for ty in TYPES {
        let (t, d) = (ty.tag(), ty.decl());
        let _ = write!(
            s,
            "\nfunction augv{t}(v)\n  {d} :: augv{t}, v\n  augv{t} = v\nend function augv{t}\n"
        );
        // The check: parts that are NaN, infinite or denormal set augbad.
        let parts: &[&str] = match ty {
            Ty::I4 => &[],
            Ty::C8 => &["real(y(k), 8)", "aimag(y(k))"],
            _ => &["y(k)"],
        };
        let mut check = String::new();
        for p in parts {
            let _ = write!(
                check,
                "      v = {p}\n      if (.not. (abs(v) <= huge(v))) augbad = .true.\n\
                 \x20     if (v /= 0 .and. abs(v) < tiny(v)) augbad = .true.\n"
            );
        }
        let vdecl = if ty == Ty::R4 { "real(4)" } else { "real(8)" };
        let _ = write!(
            s,
            "\nsubroutine augt_{t}(y)\n  use augsup\n  implicit none\n  {d} :: y(512)\n  {vdecl} :: v\n\
             \x20 integer :: k\n  if (augcheck) then\n    do k = 1, 512\n{check}    end do\n  end if\n\
             end subroutine augt_{t}\n"
        );
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deterministic_and_within_budget() {
        let a = generate_kernels(90, 7);
        let b = generate_kernels(90, 7);
        assert_eq!(a, b);
        assert!(a.iter().all(|k| k.bytes <= MAX_BYTES));
        assert!(a.iter().filter(|k| k.then_fraction.is_some()).count() >= 8);
        // Stencils read neighbours through the halo, to a run-time trip count.
        let stencils = stencil_kernels(9, 7, 91);
        assert_eq!(stencils, stencil_kernels(9, 7, 91));
        assert_eq!(stencils[0].id, 91);
        assert!(stencils.iter().all(|k| k.description.contains("stencil")));
        assert!(stencils.iter().all(|k| k.bytes <= MAX_BYTES));
        assert!(stencils.iter().all(|k| k.source.contains("do i = 1, augm")
            && k.source.contains("(0:33,0:17)")
            || k.global && k.source.contains("do i = 1, augm")));
    }

    #[test]
    fn init_value_matches_the_fortran_lcg() {
        let v = init_value_r8(1, 1);
        assert!((1.0..2.0).contains(&v));
        assert_eq!(v, 1.0 + (1103515245u64 + 12345) as f64 / 2147483648.0);
    }
}
