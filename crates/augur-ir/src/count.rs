//! Static counting: the AbOps one execution of a statement performs.
//!
//! These are Saavedra-Barrera's counting rules (dissertation §2.5, digest 001
//! §3), extended for modern Fortran:
//!
//! * Loads are folded into the operators; an assignment with an operator on its
//!   right-hand side counts one **store** (`S***`) of the left-hand side's type,
//!   an assignment of a plain variable or array element counts one **transfer**
//!   (`T***`), an assignment of a constant counts one store.
//! * An operator's class is the type of its result after promotion (`R`/`C`/`I`,
//!   size `S`/`D`); its storage is **global** (`…G`) when one of its direct
//!   operands is a COMMON or module variable, local otherwise. Operators whose
//!   operands are all constants are folded by the compiler and cost nothing.
//! * `x**i` with an integer exponent is `E***`, with a real exponent `X***`; for an
//!   integer base, `i**2` is `EIS*` and any other exponent `XIS*`, except `2**j`, a
//!   shift (`PW2I`).
//! * Integer division and `MOD`/`MODULO` by a constant are `DIC2`/`MOC2` (a power of
//!   two) or `DICN`/`MOCN` (another constant): compilers shift or multiply by the
//!   reciprocal instead of dividing. Real division by a literal power of two is
//!   `DRC2` (an optimizing compiler multiplies by the exact reciprocal), and `x**2.0`
//!   is `XRE2` (it squares by a multiply).
//! * Unary minus is an add; `.AND. .OR. .NOT. .EQV. .NEQV.` are `AND*`; relational
//!   operators are compares (`C***`) of the promoted operand type.
//! * An array element costs `ARR1..ARR4` by its rank (4 and more dimensions:
//!   `ARR4`) unless every subscript is constant; a subscript `i ± constant`
//!   costs `IADD` instead of an integer add.
//! * A CALL or a user function reference costs `PROC` plus `ARGL` per argument.
//! * Intrinsics cost their parameter by the type of their first argument;
//!   `MAX`/`MIN` with k arguments cost k−1. Mixed-mode operands pay a conversion.
//! * GOTO, CYCLE, EXIT and the branch of a block or logical IF cost `GOTO`;
//!   computed and assigned GOTO, arithmetic IF and SELECT CASE cost `GCOM`.
//! * DO loop set-up and per-iteration overhead (`LOIN`/`LOOV`, non-unit step
//!   `LOIX`/`LOOX`) are placed by the front end in the loop's entry and header
//!   blocks ([`loop_setup`], [`loop_iteration`]).
//! * Whole-array statements and array intrinsics are counted **per element**:
//!   the statement costs `ALIN` once and its element group costs `ALOV` plus the
//!   element-wise operations once per element ([`ElementGroup`]).
//!
//! Beside the AbOps, the counter tallies the statement's scalar operand references
//! ([`ScalarOperands`]), once or per element like the operations around them.

use crate::abop::AbOp;
use crate::counts::{AbOpCounts, ScalarOperands};
use crate::program::{
    BaseType, BinOp, CallTarget, Expr, ExprKind, StmtKind, Subscript, Type, UnOp, VarRef,
};

/// The AbOps of one statement: those executed once, and those executed once
/// per element of a whole-array operation.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct StmtCounts {
    /// Executed once per execution of the statement.
    pub once: AbOpCounts,
    /// Executed once per element of an array operation in the statement.
    pub groups: Vec<ElementGroup>,
    /// Scalar operand references made once per execution of the statement.
    pub scalars: ScalarOperands,
}

/// Operations repeated for each element of an array-valued operation.
#[derive(Debug, Clone, PartialEq)]
pub struct ElementGroup {
    /// A Fortran expression for the number of elements, e.g. `size(a(1:n))`.
    pub elements: String,
    /// Compile-time number of elements, when known.
    pub constant_elements: Option<i64>,
    /// AbOps per element.
    pub counts: AbOpCounts,
    /// The part of `counts` that carries a value from one element to the next: the add
    /// (or multiply) of a real or complex `SUM`, `PRODUCT` or `DOT_PRODUCT`, which the
    /// compiler keeps in source order unless allowed to reassociate (gfortran 12 -O2,
    /// Zen 5: `dot_product(a(:,i), b(:,j))` 0.43 ns an element, the add's latency).
    pub chain: AbOpCounts,
    /// Scalar operand references per element (`x` in `a = b * x`, as in the DO loop
    /// the statement stands for).
    pub scalars: ScalarOperands,
}

/// Type class of an operand, as the AbOp names see it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Class {
    /// Default integer (and smaller kinds).
    IntS,
    /// INTEGER*8.
    IntD,
    /// REAL.
    RealS,
    /// DOUBLE PRECISION (and larger).
    RealD,
    /// COMPLEX.
    CplxS,
    /// DOUBLE COMPLEX.
    CplxD,
    /// LOGICAL.
    Logical,
    /// CHARACTER.
    Character,
    /// Derived or unknown types.
    Other,
}

impl Class {
    /// Class of a type.
    pub fn of(ty: Type) -> Class {
        match ty.base {
            BaseType::Integer if ty.kind >= 8 => Class::IntD,
            BaseType::Integer => Class::IntS,
            BaseType::Real if ty.kind >= 8 => Class::RealD,
            BaseType::Real => Class::RealS,
            BaseType::Complex if ty.kind >= 8 => Class::CplxD,
            BaseType::Complex => Class::CplxS,
            BaseType::Logical => Class::Logical,
            BaseType::Character => Class::Character,
            BaseType::Derived | BaseType::Unknown => Class::Other,
        }
    }

    fn is_int(self) -> bool {
        matches!(self, Class::IntS | Class::IntD)
    }
    fn is_real(self) -> bool {
        matches!(self, Class::RealS | Class::RealD)
    }
    fn is_complex(self) -> bool {
        matches!(self, Class::CplxS | Class::CplxD)
    }
}

/// Arithmetic operations of groups 1-8 (and their extensions), in code order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Arith {
    /// Store.
    Store = 0,
    /// Add or subtract.
    Add = 1,
    /// Multiply.
    Mul = 2,
    /// Divide.
    Div = 3,
    /// X**I.
    PowInt = 4,
    /// X**Y.
    PowReal = 5,
    /// Transfer.
    Transfer = 6,
}

/// The arithmetic AbOp for an operation on a class with local or global operands.
/// Logical values use the integer parameters; character and derived types have none.
pub fn arith(op: Arith, class: Class, global: bool) -> Option<AbOp> {
    // First code of each 7-parameter group (Saavedra's table 2.8 and the extensions).
    let base: u16 = match (class, global) {
        (Class::RealS, false) => 1,
        (Class::CplxS, false) => 8,
        (Class::IntS | Class::Logical, false) => 15,
        (Class::RealD, false) => 22,
        (Class::RealS, true) => 29,
        (Class::CplxS, true) => 36,
        (Class::IntS | Class::Logical, true) => 43,
        (Class::RealD, true) => 50,
        (Class::IntD, false) => 110,
        (Class::IntD, true) => 117,
        (Class::CplxD, false) => 124,
        (Class::CplxD, true) => 131,
        (Class::Character | Class::Other, _) => return None,
    };
    AbOp::from_index((base + op as u16 - 1) as usize)
}

/// The compare AbOp for operands of a class.
pub fn compare(class: Class, global: bool) -> AbOp {
    use AbOp::*;
    match (class, global) {
        (Class::RealS, false) => CRSL,
        (Class::RealS, true) => CRSG,
        (Class::RealD, false) => CRDL,
        (Class::RealD, true) => CRDG,
        (Class::CplxS, false) => CCSL,
        (Class::CplxS, true) => CCSG,
        (Class::CplxD, false) => CCDL,
        (Class::CplxD, true) => CCDG,
        (Class::IntD, false) => CIDL,
        (Class::IntD, true) => CIDG,
        (Class::Character, _) => CCHR,
        (_, false) => CISL,
        (_, true) => CISG,
    }
}

/// The conversion AbOp from one class to another, if the change costs one.
pub fn conversion(from: Class, to: Class) -> Option<AbOp> {
    if from == to {
        return None;
    }
    match (from, to) {
        (f, t) if f.is_int() && (t.is_real() || t.is_complex()) => Some(AbOp::CVIR),
        (f, t) if (f.is_real() || f.is_complex()) && t.is_int() => Some(AbOp::CVRI),
        (f, t) if f.is_real() && t.is_real() => Some(AbOp::CVSD),
        (f, t) if f.is_int() && t.is_int() => Some(AbOp::CVII),
        (f, t) if f.is_real() && t.is_complex() => Some(AbOp::CLPX),
        (f, t) if f.is_complex() && t.is_real() => Some(AbOp::REAL),
        (f, t) if f.is_complex() && t.is_complex() => Some(AbOp::CVSD),
        _ => None,
    }
}

/// Set-up of a DO loop (once per entry): `LOIN` for a unit step, `LOIX` otherwise.
pub fn loop_setup(unit_step: bool) -> AbOp {
    if unit_step {
        AbOp::LOIN
    } else {
        AbOp::LOIX
    }
}

/// Overhead of one iteration of a DO loop: `LOOV` for a unit step, `LOOX` otherwise.
pub fn loop_iteration(unit_step: bool) -> AbOp {
    if unit_step {
        AbOp::LOOV
    } else {
        AbOp::LOOX
    }
}

/// What the counter knows about a value after counting the expression producing it.
#[derive(Debug, Clone, Copy)]
struct Operand {
    class: Class,
    /// A variable or array element of COMMON/module storage (not a temporary).
    global_leaf: bool,
    constant: bool,
}

/// Where the operations being counted go: the statement's once-counts or an element group.
struct Counter<'a> {
    out: &'a mut StmtCounts,
    /// Index of the element group receiving operations (None = once).
    sink: Option<usize>,
    /// The lower bounds of the section subscripts of the array assignment being counted,
    /// in order (`None`: the bound was left out). A section of the right-hand side that
    /// starts elsewhere in the same position is the element loop's index plus a constant
    /// offset, as `u(i-1, j)` is in the DO loop the statement stands for.
    section_lows: Option<Vec<Option<Expr>>>,
    /// Depth of the contexts whose variable references are not operands: subscripts
    /// and section bounds (the address computation), arguments of inquiry intrinsics.
    not_operands: u32,
}

impl<'a> Counter<'a> {
    /// A counter of operations executed once, into `out`.
    fn new(out: &'a mut StmtCounts) -> Counter<'a> {
        Counter {
            out,
            sink: None,
            section_lows: None,
            not_operands: 0,
        }
    }
}

impl Counter<'_> {
    /// CALL: its arguments, the call, and the work of the intrinsic subroutines that do
    /// work of their own: RANDOM_NUMBER makes one number per element of its argument,
    /// RANDOM_SEED with an array argument reseeds the generator (`PUT=`) or copies its
    /// state (`GET=`; the two are not told apart: the keyword is not kept), and with a
    /// scalar (`SIZE=`) only answers.
    fn call_statement(&mut self, name: &str, args: &[Expr]) {
        for a in args {
            self.count(a);
        }
        self.add(AbOp::PROC);
        self.add_n(AbOp::ARGL, args.len() as f64);
        match name {
            "random_number" => args.iter().for_each(|a| self.random_numbers(a)),
            "random_seed" if args.iter().any(|a| a.array) => self.add(AbOp::RSED),
            _ => {}
        }
    }

    /// The numbers RANDOM_NUMBER makes into `target`: one, or one per element of an array
    /// (a loop inside the library, counted as an element group without ALIN or ALOV).
    fn random_numbers(&mut self, target: &Expr) {
        if !target.array {
            self.add(AbOp::RNGN);
            return;
        }
        let (elements, constant_elements) = elements_of(target);
        let mut counts = AbOpCounts::new();
        counts.add(AbOp::RNGN, 1.0);
        self.out.groups.push(ElementGroup {
            elements,
            constant_elements,
            counts,
            chain: AbOpCounts::new(),
            scalars: ScalarOperands::default(),
        });
    }

    fn add(&mut self, op: AbOp) {
        self.add_n(op, 1.0);
    }

    fn add_n(&mut self, op: AbOp, n: f64) {
        match self.sink {
            None => self.out.once.add(op, n),
            Some(g) => self.out.groups[g].counts.add(op, n),
        }
    }

    /// Tallies a reference to variable `v` when it is a scalar operand (not a named
    /// constant, not in an address computation or an inquiry's argument).
    fn operand(&mut self, v: &VarRef) {
        if v.rank != 0 || v.constant || self.not_operands > 0 {
            return;
        }
        let scalars = match self.sink {
            None => &mut self.out.scalars,
            Some(g) => &mut self.out.groups[g].scalars,
        };
        if v.global {
            scalars.global += 1.0;
        } else {
            scalars.local += 1.0;
        }
    }

    /// Counts `op` on the current element group's recurrence as well as in its counts.
    fn add_chained(&mut self, op: AbOp) {
        self.add(op);
        if let Some(g) = self.sink {
            self.out.groups[g].chain.add(op, 1.0);
        }
    }

    /// Opens an element group of `elements` elements. Its ALIN is counted once per
    /// execution of the statement, even for a group opened inside another (the
    /// transformational intrinsics of `cshift(cshift(a, 1, 1), 1, 2) + b`: each one is
    /// evaluated once, into a temporary, not once per element of the enclosing group).
    fn open_group(&mut self, elements: String, constant: Option<i64>) -> Option<usize> {
        self.out.once.add(AbOp::ALIN, 1.0);
        self.out.groups.push(ElementGroup {
            elements,
            constant_elements: constant,
            counts: AbOpCounts::new(),
            chain: AbOpCounts::new(),
            scalars: ScalarOperands::default(),
        });
        let prev = self.sink;
        self.sink = Some(self.out.groups.len() - 1);
        self.add(AbOp::ALOV);
        prev
    }

    fn count(&mut self, e: &Expr) -> Operand {
        // Inside an array operation, a scalar operation (`beta / rho` in `p = r + (beta
        // / rho) * p`, `sum(c)` in `a = b * sum(c)`) is evaluated once per execution of
        // the statement, before the element loop, not once per element.
        let scalar_operation = !e.array
            && matches!(
                e.kind,
                ExprKind::Binary(..) | ExprKind::Unary(..) | ExprKind::Call(..)
            );
        if self.sink.is_some() && scalar_operation {
            let inner = self.sink.take();
            let o = self.count_here(e);
            self.sink = inner;
            return o;
        }
        self.count_here(e)
    }

    fn count_here(&mut self, e: &Expr) -> Operand {
        let class = Class::of(e.ty);
        match &e.kind {
            ExprKind::Const { .. } => Operand {
                class,
                global_leaf: false,
                constant: true,
            },
            ExprKind::Var(v) => {
                if v.rank > 0 && self.sink.is_some() {
                    // A whole array inside an element loop: one address per element.
                    self.add(array_op(v.rank as usize));
                }
                self.operand(v);
                Operand {
                    class,
                    global_leaf: v.global,
                    constant: v.constant,
                }
            }
            ExprKind::Elem(v, subs) => {
                self.subscripts(v.rank as usize, subs);
                Operand {
                    class,
                    global_leaf: v.global,
                    constant: false,
                }
            }
            ExprKind::Substring(b) => {
                let o = self.count(b);
                Operand {
                    constant: false,
                    ..o
                }
            }
            ExprKind::Component(b, _) => {
                let o = self.count(b);
                Operand {
                    class,
                    global_leaf: o.global_leaf,
                    constant: false,
                }
            }
            ExprKind::Unary(op, a) => {
                let o = self.count(a);
                if o.constant {
                    return Operand { class, ..o };
                }
                match op {
                    UnOp::Neg => {
                        if let Some(ab) = arith(Arith::Add, class, o.global_leaf) {
                            self.add(ab);
                        }
                    }
                    UnOp::Plus => {}
                    UnOp::Not => self.add(if o.global_leaf {
                        AbOp::ANDG
                    } else {
                        AbOp::ANDL
                    }),
                }
                Operand {
                    class,
                    global_leaf: false,
                    constant: false,
                }
            }
            ExprKind::Binary(op, a, b) => self.binary(*op, a, b, e.ty),
            ExprKind::Call(target, args) => self.call(target, args, e),
            ExprKind::ArrayCtor(items) | ExprKind::ImpliedDo(items, _) => {
                for it in items {
                    let o = self.count(it);
                    if !o.constant {
                        if let Some(t) = arith(Arith::Transfer, o.class, false) {
                            self.add(t);
                        }
                    }
                }
                Operand {
                    class,
                    global_leaf: false,
                    constant: false,
                }
            }
            ExprKind::Opaque => Operand {
                class,
                global_leaf: false,
                constant: true,
            },
        }
    }

    fn subscripts(&mut self, rank: usize, subs: &[Subscript]) {
        self.not_operands += 1;
        self.subscript_list(rank, subs);
        self.not_operands -= 1;
    }

    /// [`Counter::subscripts`] without the operand bookkeeping.
    fn subscript_list(&mut self, rank: usize, subs: &[Subscript]) {
        let mut all_constant = true;
        let mut section = false;
        let mut position = 0;
        for s in subs {
            match s {
                Subscript::Index(ix) => {
                    if !self.index(ix) {
                        all_constant = false;
                    }
                }
                Subscript::Range(a, b, c) => {
                    section = true;
                    // `u(1:n-2)` beside `v(2:n-1) = ...`: the element loop's index minus
                    // one, an IADD per element as in the DO loop's `u(i-1)`.
                    let shifted = self.sink.is_some()
                        && self
                            .section_lows
                            .as_ref()
                            .and_then(|lows| lows.get(position))
                            .is_some_and(|low| low.as_ref() != a.as_ref());
                    if shifted {
                        self.add(AbOp::IADD);
                    }
                    position += 1;
                    // Section bounds are evaluated once, outside the element loop.
                    let saved = self.sink;
                    if section && saved.is_some() {
                        self.sink = None;
                    }
                    for x in [a, b, c].into_iter().flatten() {
                        self.count(x);
                    }
                    self.sink = saved;
                }
            }
        }
        let dims = if subs.is_empty() { rank } else { subs.len() };
        if section || !all_constant {
            self.add(array_op(dims.max(1)));
        }
    }

    /// Counts a subscript; returns whether it is a compile-time constant.
    fn index(&mut self, ix: &Expr) -> bool {
        if let ExprKind::Binary(BinOp::Add | BinOp::Sub, a, b) = &ix.kind {
            if Class::of(ix.ty).is_int() {
                let (ac, bc) = (a.is_constant(), b.is_constant());
                if ac != bc {
                    self.add(AbOp::IADD);
                    self.count(if ac { b } else { a });
                    return false;
                }
            }
        }
        self.count(ix).constant
    }

    fn binary(&mut self, op: BinOp, a: &Expr, b: &Expr, ty: Type) -> Operand {
        let oa = self.count(a);
        let ob = self.count(b);
        let class = Class::of(ty);
        let constant = oa.constant && ob.constant;
        let result = Operand {
            class,
            global_leaf: false,
            constant,
        };
        if constant {
            return result;
        }
        let global = oa.global_leaf || ob.global_leaf;
        // Integer division by a constant: every compiler replaces the divide by a shift
        // (power of two) or a multiply by the reciprocal; they get their own AbOps.
        if op == BinOp::Div && class.is_int() {
            if let Some(c) = b.int_value().filter(|&c| c != 0) {
                self.convert(oa, class);
                self.add(constant_divisor(c, AbOp::DIC2, AbOp::DICN));
                return result;
            }
        }
        // Real division by a literal power of two: an optimizing compiler multiplies by
        // the exact reciprocal (no -ffast-math needed); its own AbOp, which the machine
        // prices (a multiply at -O2, a divide at -O0).
        if op == BinOp::Div && class.is_real() && is_power_of_two_literal(b) {
            self.convert(oa, class);
            self.add(AbOp::DRC2);
            return result;
        }
        // 2**J with an integer J: a shift.
        if op == BinOp::Pow && class.is_int() && a.int_value() == Some(2) && !ob.constant {
            self.add(AbOp::PW2I);
            return result;
        }
        match op {
            BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Div => {
                self.convert(oa, class);
                self.convert(ob, class);
                let kind = match op {
                    BinOp::Add | BinOp::Sub => Arith::Add,
                    BinOp::Mul => Arith::Mul,
                    _ => Arith::Div,
                };
                if let Some(ab) = arith(kind, class, global) {
                    self.add(ab);
                }
            }
            BinOp::Pow
                if class.is_real() && ob.class.is_real() && literal_value(b) == Some(2.0) =>
            {
                // X**2.0: squared by a multiply when the compiler optimizes.
                self.convert(oa, class);
                self.add(AbOp::XRE2);
            }
            BinOp::Pow => {
                self.convert(oa, class);
                let kind = if ob.class.is_int() {
                    // Integer base: I**2 is EIS*, any other exponent XIS*.
                    if class.is_int() && b.int_value() != Some(2) {
                        Arith::PowReal
                    } else {
                        Arith::PowInt
                    }
                } else {
                    self.convert(ob, class);
                    Arith::PowReal
                };
                if let Some(ab) = arith(kind, class, global) {
                    self.add(ab);
                }
            }
            BinOp::Compare => {
                let c = promote(oa.class, ob.class);
                self.convert(oa, c);
                self.convert(ob, c);
                self.add(compare(c, global));
            }
            BinOp::Logical => self.add(if global { AbOp::ANDG } else { AbOp::ANDL }),
            BinOp::Concat => self.add(AbOp::CCAT),
            BinOp::User => {
                self.add(AbOp::PROC);
                self.add_n(AbOp::ARGL, 2.0);
            }
        }
        result
    }

    /// A mixed-mode operand pays a conversion (constants are converted at compile time).
    fn convert(&mut self, o: Operand, to: Class) {
        if !o.constant {
            if let Some(c) = conversion(o.class, to) {
                self.add(c);
            }
        }
    }

    fn call(&mut self, target: &CallTarget, args: &[Expr], e: &Expr) -> Operand {
        let class = Class::of(e.ty);
        let result = Operand {
            class,
            global_leaf: false,
            constant: false,
        };
        let name = match target {
            CallTarget::User(_) => {
                for a in args {
                    self.count(a);
                }
                self.add(AbOp::PROC);
                self.add_n(AbOp::ARGL, args.len() as f64);
                return result;
            }
            CallTarget::Intrinsic(n) => n.as_str(),
        };
        if let Some(kind) = reduction(name) {
            return self.reduction(kind, args, result);
        }
        let inquiry = u32::from(is_inquiry(name));
        self.not_operands += inquiry;
        let ops: Vec<Operand> = args.iter().map(|a| self.count(a)).collect();
        self.not_operands -= inquiry;
        if ops.iter().all(|o| o.constant) && !ops.is_empty() && !is_array_valued(args) {
            return Operand {
                constant: true,
                ..result
            };
        }
        let arg_class = ops.first().map(|o| o.class).unwrap_or(class);
        if matches!(name, "mod" | "modulo") && arg_class.is_int() && args.len() == 2 {
            if let Some(c) = args[1].int_value().filter(|&c| c != 0) {
                self.add(constant_divisor(c, AbOp::MOC2, AbOp::MOCN));
                return result;
            }
        }
        // NINT is the rounding of ANINT (half away from zero) followed by the conversion
        // to an integer, as the standard defines it; the rounding is what costs (no
        // instruction rounds half away from zero on common targets: a library call).
        if matches!(name, "nint" | "idnint") && !arg_class.is_int() {
            if let Some(round) = intrinsic_op("anint", arg_class, arg_class) {
                self.add(round);
            }
        }
        if let Some(op) = intrinsic_op(name, arg_class, class) {
            let n = if is_min_max(name) {
                (args.len().saturating_sub(1)).max(1) as f64
            } else {
                1.0
            };
            self.add_n(op, n);
        }
        result
    }

    fn reduction(&mut self, kind: Reduction, args: &[Expr], result: Operand) -> Operand {
        let Some(arr) = args.first() else {
            return result;
        };
        let (elements, constant) = match kind {
            Reduction::MatMul => {
                let b = args.get(1).map(|b| b.to_string()).unwrap_or_default();
                // In 8-byte integers: a 680 x 680 product already overflows 4 bytes.
                (
                    format!("int(size({arr}), 8)*int(size({b}), 8)/int(size({b}, 1), 8)"),
                    None,
                )
            }
            _ => (format!("size({})", conformable_reference(arr)), None),
        };
        let prev = self.open_group(elements, constant);
        // A reduction's argument is a loop of its own, not aligned with an enclosing
        // assignment's sections.
        let outer_lows = self.section_lows.take();
        let o = self.count(arr);
        let second = args.get(1).filter(|_| kind.binary()).map(|b| self.count(b));
        self.section_lows = outer_lows;
        let global = o.global_leaf || second.is_some_and(|s| s.global_leaf);
        let class = o.class;
        // A floating-point partial result is carried in order (MATMUL is a library
        // routine, free to block and reorder).
        let floating =
            |c: Class| matches!(c, Class::RealS | Class::RealD | Class::CplxS | Class::CplxD);
        match kind {
            Reduction::Sum => {
                if let Some(a) = arith(Arith::Add, class, global) {
                    if floating(class) {
                        self.add_chained(a);
                    } else {
                        self.add(a);
                    }
                }
            }
            Reduction::Product => {
                if let Some(a) = arith(Arith::Mul, class, global) {
                    if floating(class) {
                        self.add_chained(a);
                    } else {
                        self.add(a);
                    }
                }
            }
            Reduction::MatMul
                if matches!(
                    second.map(|s| promote(class, s.class)).unwrap_or(class),
                    Class::RealS | Class::RealD
                ) =>
            {
                // gfortran's library routine (`_gfortran_matmul_r8`), blocked and
                // vectorized: its own rate per multiply-add covers the element's loads
                // and loop overhead too.
                if let Some(g) = self.sink {
                    self.out.groups[g].counts = AbOpCounts::new();
                }
                self.add(AbOp::MMUL);
            }
            Reduction::Dot | Reduction::MatMul => {
                let c = second.map(|s| promote(class, s.class)).unwrap_or(class);
                if let Some(a) = arith(Arith::Mul, c, global) {
                    self.add(a);
                }
                if let Some(a) = arith(Arith::Add, c, global) {
                    if kind == Reduction::Dot && floating(c) {
                        self.add_chained(a);
                    } else {
                        self.add(a);
                    }
                }
            }
            Reduction::Norm2 => {
                if let Some(a) = arith(Arith::Mul, class, global) {
                    self.add(a);
                }
                if let Some(a) = arith(Arith::Add, class, global) {
                    self.add(a);
                }
            }
            Reduction::MaxMin => {
                if let Some(op) = intrinsic_op("max", class, class) {
                    self.add(op);
                }
                // The running maximum of a floating-point MAXVAL/MINVAL is carried in a
                // register through one `maxsd`/`minsd` an element, whose latency is an
                // add's on x86-64 (a Zen 5: `maxval` 0.476 ns an element, `sum` 0.473;
                // the MAX intrinsic's own chain, measured with its NaN handling, is
                // longer: 0.73).
                if floating(class) {
                    if let (Some(g), Some(a)) = (self.sink, arith(Arith::Add, class, global)) {
                        self.out.groups[g].chain.add(a, 1.0);
                    }
                }
            }
            Reduction::Logical => self.add(if global { AbOp::ANDG } else { AbOp::ANDL }),
            Reduction::Copy => {
                if let Some(a) = arith(Arith::Transfer, class, global) {
                    self.add(a);
                }
            }
        }
        self.sink = prev;
        result
    }
}

/// Array intrinsics counted per element.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Reduction {
    Sum,
    Product,
    MaxMin,
    Dot,
    Norm2,
    Logical,
    MatMul,
    Copy,
}

impl Reduction {
    fn binary(self) -> bool {
        matches!(self, Reduction::Dot | Reduction::MatMul)
    }
}

fn reduction(name: &str) -> Option<Reduction> {
    Some(match name {
        "sum" => Reduction::Sum,
        "product" => Reduction::Product,
        "maxval" | "minval" | "maxloc" | "minloc" => Reduction::MaxMin,
        "dot_product" => Reduction::Dot,
        "norm2" => Reduction::Norm2,
        "count" | "any" | "all" => Reduction::Logical,
        "matmul" => Reduction::MatMul,
        "transpose" | "reshape" | "spread" | "cshift" | "eoshift" | "pack" | "unpack" => {
            Reduction::Copy
        }
        _ => return None,
    })
}

fn is_array_valued(args: &[Expr]) -> bool {
    args.iter().any(|a| a.array)
}

fn is_min_max(name: &str) -> bool {
    matches!(
        name,
        "max"
            | "min"
            | "amax1"
            | "amin1"
            | "dmax1"
            | "dmin1"
            | "max0"
            | "min0"
            | "amax0"
            | "amin0"
            | "max1"
            | "min1"
    )
}

/// `pow2` when the constant divisor `c` is a power of two (in magnitude), else `other`.
fn constant_divisor(c: i64, pow2: AbOp, other: AbOp) -> AbOp {
    if c.unsigned_abs().is_power_of_two() {
        pow2
    } else {
        other
    }
}

/// The array-address AbOp for a reference of `dims` dimensions.
pub fn array_op(dims: usize) -> AbOp {
    match dims {
        0 | 1 => AbOp::ARR1,
        2 => AbOp::ARR2,
        3 => AbOp::ARR3,
        _ => AbOp::ARR4,
    }
}

/// The usual Fortran type promotion of two operand classes.
pub fn promote(a: Class, b: Class) -> Class {
    let rank = |c: Class| match c {
        Class::Logical | Class::Character | Class::Other => 0,
        Class::IntS => 1,
        Class::IntD => 2,
        Class::RealS => 3,
        Class::RealD => 4,
        Class::CplxS => 5,
        Class::CplxD => 6,
    };
    match (a, b) {
        (Class::RealD, Class::CplxS) | (Class::CplxS, Class::RealD) => Class::CplxD,
        _ if rank(a) >= rank(b) => a,
        _ => b,
    }
}

/// Whether `e` is a literal (integer or real, signed or not) whose value is a power of
/// two, such as `2`, `2.0D+00`, `0.5_dp` or `-4.`: its reciprocal is exact.
fn is_power_of_two_literal(e: &Expr) -> bool {
    literal_value(e).is_some_and(|v| v.is_normal() && v.to_bits() & ((1u64 << 52) - 1) == 0)
}

/// The value of a numeric literal (integer or real, with a sign, a kind suffix or a
/// `D` exponent), or `None` for anything else.
fn literal_value(e: &Expr) -> Option<f64> {
    match &e.kind {
        ExprKind::Unary(UnOp::Neg, a) => literal_value(a).map(|v| -v),
        ExprKind::Unary(UnOp::Plus, a) => literal_value(a),
        ExprKind::Const { value: Some(v), .. } => Some(*v as f64),
        ExprKind::Const { text, value: None } => {
            let number = text.split('_').next().unwrap_or("");
            number
                .to_ascii_lowercase()
                .replace(['d', 'q'], "e")
                .parse::<f64>()
                .ok()
        }
        _ => None,
    }
}

/// The AbOp of an elemental intrinsic by name, argument class and result class.
/// Inquiry intrinsics (SIZE, LBOUND, KIND, ...) cost nothing and return `None`.
pub fn intrinsic_op(name: &str, arg: Class, result: Class) -> Option<AbOp> {
    use AbOp::*;
    enum F {
        Log,
        Exp,
        Sin,
        Tan,
        Sqrt,
        Abs,
        Mod,
        Max,
        Atan,
        Hyp,
        Sign,
        Aint,
    }
    let f = match name {
        "log" | "alog" | "dlog" | "clog" | "cdlog" | "zlog" | "log10" | "alog10" | "dlog10"
        | "log_gamma" | "lgamma" | "gamma" => F::Log,
        "exp" | "dexp" | "cexp" | "cdexp" | "zexp" | "erf" | "erfc" | "derf" | "derfc" => F::Exp,
        "sin" | "cos" | "dsin" | "dcos" | "csin" | "ccos" | "cdsin" | "cdcos" | "zsin" | "zcos" => {
            F::Sin
        }
        "tan" | "dtan" => F::Tan,
        "sqrt" | "dsqrt" | "csqrt" | "cdsqrt" | "zsqrt" => F::Sqrt,
        "abs" | "iabs" | "dabs" | "cabs" | "cdabs" | "zabs" => F::Abs,
        "mod" | "amod" | "dmod" | "modulo" => F::Mod,
        "max" | "min" | "amax1" | "amin1" | "dmax1" | "dmin1" | "max0" | "min0" | "amax0"
        | "amin0" | "max1" | "min1" => F::Max,
        "atan" | "atan2" | "datan" | "datan2" | "asin" | "acos" | "dasin" | "dacos" => F::Atan,
        "sinh" | "cosh" | "tanh" | "dsinh" | "dcosh" | "dtanh" | "asinh" | "acosh" | "atanh" => {
            F::Hyp
        }
        "sign" | "isign" | "dsign" | "dim" | "idim" | "ddim" => F::Sign,
        "aint" | "anint" | "dint" | "dnint" => F::Aint,
        // Conversions and complex coercions.
        "real" | "float" | "sngl" | "dble" | "dfloat" | "dreal" => {
            return if arg == Class::CplxS || arg == Class::CplxD {
                Some(REAL)
            } else {
                conversion(arg, result)
            };
        }
        "int" | "nint" | "ifix" | "idint" | "idnint" | "floor" | "ceiling" | "int8" => {
            return conversion(arg, result).or(if arg.is_int() { None } else { Some(CVRI) });
        }
        "cmplx" | "dcmplx" => return Some(CLPX),
        "aimag" | "dimag" | "imag" => return Some(IMAG),
        "conjg" | "dconjg" => return Some(CONJ),
        "dprod" => return Some(MRDL),
        "iand" | "ior" | "ieor" | "not" | "ishft" | "ishftc" | "btest" | "ibset" | "ibclr"
        | "ibits" | "shiftl" | "shiftr" | "popcnt" | "leadz" | "trailz" | "xor" | "and" | "or"
        | "lshift" | "rshift" => return Some(BITI),
        // A character's code and back: one byte widened or narrowed (`movzbl`), not a
        // library routine like the other character intrinsics.
        "char" | "ichar" | "achar" | "iachar" => return Some(CVII),
        "len_trim" | "index" | "trim" | "adjustl" | "adjustr" | "repeat" | "scan" | "verify"
        | "lge" | "lgt" | "lle" | "llt" => return Some(CHIN),
        "merge" => return arith(Arith::Transfer, result, false),
        _ => return None,
    };
    let op = match arg {
        Class::RealS | Class::Logical | Class::Character | Class::Other => match f {
            F::Log => LOGS,
            F::Exp => EXPS,
            F::Sin => SINS,
            F::Tan => TANS,
            F::Sqrt => SQRS,
            F::Abs => ABSS,
            F::Mod => MODS,
            F::Max => MAXS,
            F::Atan => ATNS,
            F::Hyp => HYPS,
            F::Sign => SGNS,
            F::Aint => ANIS,
        },
        Class::RealD => match f {
            F::Log => LOGD,
            F::Exp => EXPD,
            F::Sin => SIND,
            F::Tan => TAND,
            F::Sqrt => SQRD,
            F::Abs => ABSD,
            F::Mod => MODD,
            F::Max => MAXD,
            F::Atan => ATND,
            F::Hyp => HYPD,
            F::Sign => SGND,
            F::Aint => ANID,
        },
        Class::IntS | Class::IntD => match f {
            F::Sqrt => SQRI,
            F::Abs => ABSI,
            F::Mod => MODI,
            F::Max => MAXI,
            F::Sign => SGNI,
            // Integer arguments to real functions are invalid Fortran; count the real form.
            F::Log => LOGS,
            F::Exp => EXPS,
            F::Sin => SINS,
            F::Tan => TANS,
            F::Atan => ATNS,
            F::Hyp => HYPS,
            F::Aint => ANIS,
        },
        Class::CplxS | Class::CplxD => match f {
            F::Log => LOGC,
            F::Exp => EXPC,
            F::Sin | F::Tan | F::Atan | F::Hyp => SINC,
            F::Sqrt => SQRC,
            F::Abs if arg == Class::CplxS => CABS,
            F::Abs => ABSC,
            F::Max | F::Mod | F::Sign | F::Aint => MAXC,
        },
    };
    Some(op)
}

/// Whether `name` is a Fortran intrinsic procedure augur knows (elemental,
/// inquiry, reduction or transformational).
pub fn is_intrinsic(name: &str) -> bool {
    reduction(name).is_some()
        || intrinsic_op(name, Class::RealS, Class::RealS).is_some()
        || intrinsic_op(name, Class::CplxS, Class::RealS).is_some()
        || is_inquiry(name)
        || matches!(
            name,
            "null"
                | "selected_int_kind"
                | "selected_real_kind"
                | "fraction"
                | "exponent"
                | "spacing"
                | "nearest"
                | "transfer"
                | "is_iostat_end"
        )
}

/// Whether intrinsic `name` asks about its argument's type, shape, bounds or
/// association without reading its value: its arguments are no operands.
fn is_inquiry(name: &str) -> bool {
    matches!(
        name,
        "size"
            | "shape"
            | "lbound"
            | "ubound"
            | "kind"
            | "huge"
            | "tiny"
            | "epsilon"
            | "present"
            | "allocated"
            | "associated"
            | "precision"
            | "digits"
            | "range"
            | "radix"
            | "bit_size"
            | "len"
            | "storage_size"
            | "minexponent"
            | "maxexponent"
            | "c_loc"
            | "loc"
            | "new_line"
            | "rank"
    )
}

/// Counts the AbOps of evaluating one scalar expression once: its operands' loads and
/// its operations (what a compiler saves when it hoists or reuses the value).
pub fn count_expr(e: &Expr) -> AbOpCounts {
    let mut out = StmtCounts::default();
    let mut c = Counter::new(&mut out);
    c.count(e);
    let mut total = out.once;
    for g in &out.groups {
        total.add_scaled(&g.counts, 1.0);
    }
    total
}

/// Counts the AbOps of one execution of a statement.
///
/// Control statements' branches are included (`GOTO`, `GCOM`); loop set-up and
/// per-iteration overhead are not (see [`loop_setup`] and [`loop_iteration`]).
pub fn count_stmt(kind: &StmtKind) -> StmtCounts {
    let mut out = StmtCounts::default();
    let mut c = Counter::new(&mut out);
    match kind {
        StmtKind::Assign { lhs, rhs } => c.assignment(lhs, rhs),
        StmtKind::Call { name, args } => c.call_statement(name, args),
        StmtKind::If { cond } | StmtKind::LogicalIf { cond } => {
            c.count(cond);
            c.add(AbOp::GOTO);
        }
        StmtKind::ArithmeticIf { expr, .. } | StmtKind::ComputedGoto { expr, .. } => {
            c.count(expr);
            c.add(AbOp::GCOM);
        }
        StmtKind::Select { expr } => {
            c.count(expr);
            c.add(AbOp::GCOM);
        }
        StmtKind::AssignedGoto { .. } => c.add(AbOp::GCOM),
        StmtKind::Goto { .. } | StmtKind::Cycle | StmtKind::Exit => c.add(AbOp::GOTO),
        StmtKind::AssignLabel { .. } => c.add(AbOp::SISL),
        StmtKind::Do { exprs, .. } => {
            for e in exprs {
                c.count(e);
            }
        }
        StmtKind::Io {
            keyword,
            items,
            unformatted,
            list_directed,
            format_controls,
        } => {
            // A list-directed statement has no format to parse (gfortran 12 on a Zen 5:
            // an internal WRITE of one integer 114 ns list-directed, 243 with `(i8)`).
            c.add(if *list_directed {
                AbOp::IOSL
            } else {
                AbOp::IOST
            });
            // Each string, skip or tab of the format is processed by the run-time
            // library as an item is (30-40 ns each on a Zen 5 with gfortran 12).
            c.add_n(AbOp::IOED, f64::from(*format_controls));
            let list = IoList {
                unformatted: *unformatted,
                list_directed: *list_directed,
                input: keyword == "read",
                read_into: if keyword == "read" {
                    names_read(items)
                } else {
                    vec![]
                },
            };
            c.io_level(items, &list, &IoLevel::default());
        }
        StmtKind::Allocate { objects, .. } => c.add_n(AbOp::ALLO, *objects as f64),
        StmtKind::Where { mask } => {
            c.count(mask);
        }
        StmtKind::Else
        | StmtKind::EndConstruct
        | StmtKind::Case
        | StmtKind::Return
        | StmtKind::Stop
        | StmtKind::Continue
        | StmtKind::Directive { .. }
        | StmtKind::RegionMarker { .. }
        | StmtKind::NonExecutable => {}
    }
    out
}

/// What every item of one input/output list shares: whether it converts to text, and
/// the variables a READ assigns (an element count that names one of them is read by
/// the statement itself, so it cannot be evaluated before it).
struct IoList {
    unformatted: bool,
    list_directed: bool,
    input: bool,
    read_into: Vec<String>,
}

/// The implied DOs around an input/output item: the number of times the item is
/// transferred per execution of the statement (Fortran text; `None` at the top level)
/// and their variables.
#[derive(Default, Clone)]
struct IoLevel {
    trips: Option<String>,
    constant_trips: Option<i64>,
    do_vars: Vec<String>,
}

impl Counter<'_> {
    /// Counts the items of one level of an input/output list (the statement's, or an
    /// implied DO's): the level's direct items share one element loop of the level's
    /// trips; a nested implied DO is a level of its own, or, when its trips cannot be
    /// evaluated before the statement (bounds read by the same READ, or naming an
    /// enclosing implied DO's variable: a triangular list), its items join this level.
    /// In binary records an implied DO is one item ([`Counter::io_transfer`]).
    fn io_level(&mut self, items: &[Expr], list: &IoList, level: &IoLevel) {
        let mut direct = vec![];
        self.io_split(items, list, level, &mut direct);
        if direct.is_empty() {
            return;
        }
        let prev = level
            .trips
            .as_ref()
            .map(|t| self.open_group(t.clone(), level.constant_trips));
        for x in direct {
            self.io_transfer(x, list, level);
        }
        if let Some(p) = prev {
            self.sink = p;
        }
    }

    /// [`Counter::io_level`]'s direct items of `items`, the nested levels counted.
    fn io_split<'e>(
        &mut self,
        items: &'e [Expr],
        list: &IoList,
        level: &IoLevel,
        direct: &mut Vec<&'e Expr>,
    ) {
        for x in items {
            match &x.kind {
                ExprKind::ImpliedDo(inner, control) if !list.unformatted => {
                    match implied_do_level(control, list, level) {
                        Some(l) => self.io_level(inner, list, &l),
                        None => self.io_split(inner, list, level, direct),
                    }
                }
                _ => direct.push(x),
            }
        }
    }

    /// Counts one transferred item: a scalar is one transfer; an array outside implied
    /// DOs (a whole array, a section) one per element, as the run-time library converts
    /// each (`write (u, *) w(i, 1:n)` formats n reals). Binary records take an array or
    /// an implied DO as one item: the library copies the block (gfortran 12, Zen 5: a
    /// record of 4.6e5 reals written in 0.6% of a 0.28 s run, not 27 ns a value).
    fn io_transfer(&mut self, it: &Expr, list: &IoList, level: &IoLevel) {
        let elements = (it.array && level.trips.is_none() && !list.unformatted)
            .then(|| elements_of(it))
            .filter(|(text, _)| !mentions_any_word(text, &list.read_into));
        let prev = elements.map(|(text, n)| self.open_group(text, n));
        self.count(it);
        // Reals and complexes in text: a decimal conversion each, several times an
        // integer's (gfortran 12 on a Zen 5, an item beyond its statement: written with
        // F12.4 205 ns, ES14.6 280-350, read with F12.4 85; an integer 26-40),
        // list-directed about the same either way (a double's 17 digits: 260 written,
        // 305 read).
        let text_real = !list.unformatted
            && matches!(
                Class::of(it.ty),
                Class::RealS | Class::RealD | Class::CplxS | Class::CplxD
            );
        self.add(match (text_real, list.list_directed, list.input) {
            (true, true, _) => AbOp::IORL,
            (true, false, false) => AbOp::IOFW,
            (true, false, true) => AbOp::IOFR,
            (false, _, _) => AbOp::IOIT,
        });
        if let Some(p) = prev {
            self.sink = p;
        }
    }

    fn assignment(&mut self, lhs: &Expr, rhs: &Expr) {
        let lclass = Class::of(lhs.ty);
        let prev = if lhs.array {
            let n = elements_of(lhs);
            Some(self.open_group(n.0, n.1))
        } else {
            None
        };
        let outer_lows = self.section_lows.take();
        if let ExprKind::Elem(_, subs) = &lhs.kind {
            let lows: Vec<Option<Expr>> = subs
                .iter()
                .filter_map(|s| match s {
                    Subscript::Range(a, _, _) => Some(a.clone()),
                    Subscript::Index(_) => None,
                })
                .collect();
            if !lows.is_empty() {
                self.section_lows = Some(lows);
            }
        }
        // Left-hand side: its subscripts and address.
        let lo = self.count(lhs);
        let lglobal = lo.global_leaf;
        match lclass {
            Class::Character => {
                self.count(rhs);
                self.add(AbOp::TCHR);
            }
            Class::Logical => {
                self.count(rhs);
                self.add(if lglobal { AbOp::SLGG } else { AbOp::SLGL });
            }
            Class::Other => {
                let r = self.count(rhs);
                if let Some(t) = arith(Arith::Transfer, r.class, lglobal) {
                    self.add(t);
                }
            }
            _ => {
                let simple = rhs.is_simple_operand() && !rhs.is_constant();
                let r = self.count(rhs);
                let rclass = r.class;
                if simple && rclass == lclass {
                    if let Some(t) = arith(Arith::Transfer, lclass, lglobal || r.global_leaf) {
                        self.add(t);
                    }
                } else {
                    if !r.constant {
                        if let Some(cv) = conversion(rclass, lclass) {
                            self.add(cv);
                        }
                    }
                    if let Some(s) = arith(Arith::Store, lclass, lglobal) {
                        self.add(s);
                    }
                }
            }
        }
        self.section_lows = outer_lows;
        if let Some(p) = prev {
            self.sink = p;
        }
    }
}

/// The store (or plain transfer) AbOp of an assignment to a local scalar variable:
/// `s = s + a(i)` counts `SRDL`, `k = j` counts `TISL`. Saavedra's counting rules charge
/// it as a memory store, which it is when the compiler does not optimize; an optimizing
/// compiler keeps such a variable in a register, and the store is a register write that
/// costs nothing beside the operation that produced the value. `None` for other
/// statements and for targets that stay in memory: array elements, COMMON or module
/// variables, components of derived types, characters, and transfers from an array
/// element or a COMMON or module variable (whose load is real).
pub fn register_write(kind: &StmtKind) -> Option<AbOp> {
    let StmtKind::Assign { lhs, rhs } = kind else {
        return None;
    };
    let ExprKind::Var(v) = &lhs.kind else {
        return None;
    };
    if v.rank != 0 || v.global || v.constant || lhs.array || v.name.contains('%') {
        return None;
    }
    let class = Class::of(lhs.ty);
    let counts = count_stmt(kind).once;
    let candidates = match class {
        Class::Character | Class::Other => return None,
        Class::Logical => [Some(AbOp::SLGL), None],
        // A transfer from an array element keeps its load: only a scalar's copy is free.
        _ => [
            arith(Arith::Store, class, false),
            matches!(&rhs.kind, ExprKind::Var(r) if r.rank == 0)
                .then(|| arith(Arith::Transfer, class, false))
                .flatten(),
        ],
    };
    candidates
        .into_iter()
        .flatten()
        .find(|&op| counts.get(op) > 0.0)
}

/// The level inside an implied DO with control `control` (`i = a, b[, s]`): its trips
/// times the enclosing level's, as Fortran text and, when every bound is a literal, as
/// a number; `None` when the control does not parse or its bounds name a variable the
/// statement reads or an enclosing implied DO's variable (a triangular list).
fn implied_do_level(control: &str, list: &IoList, outer: &IoLevel) -> Option<IoLevel> {
    let (var, bounds) = control.split_once('=')?;
    let var = var.trim().to_ascii_lowercase();
    let parts = split_top_level(bounds);
    let (lo, hi, step) = match parts.as_slice() {
        [lo, hi] => (lo.trim(), hi.trim(), "1"),
        [lo, hi, st] => (lo.trim(), hi.trim(), st.trim()),
        _ => return None,
    };
    if var.is_empty() || [lo, hi, step].iter().any(|b| b.is_empty()) {
        return None;
    }
    let bounds_text = format!("{lo} {hi} {step}");
    if mentions_any_word(&bounds_text, &list.read_into)
        || mentions_any_word(&bounds_text, &outer.do_vars)
    {
        return None;
    }
    let trips = format!("max(0, (({hi}) - ({lo}) + ({step})) / ({step}))");
    let constant = match (lo.parse::<i64>(), hi.parse::<i64>(), step.parse::<i64>()) {
        (Ok(a), Ok(b), Ok(s)) if s != 0 => Some(((b - a + s) / s).max(0)),
        _ => None,
    };
    let mut do_vars = outer.do_vars.clone();
    do_vars.push(var);
    Some(IoLevel {
        trips: Some(match &outer.trips {
            Some(o) => format!("({o}) * {trips}"),
            None => trips,
        }),
        constant_trips: match (outer.trips.is_some(), outer.constant_trips, constant) {
            (false, _, c) => c,
            (true, Some(o), Some(c)) => Some(o * c),
            _ => None,
        },
        do_vars,
    })
}

/// `text` split at its commas outside parentheses.
fn split_top_level(text: &str) -> Vec<&str> {
    let mut parts = vec![];
    let (mut depth, mut start) = (0i32, 0);
    for (i, ch) in text.char_indices() {
        match ch {
            '(' => depth += 1,
            ')' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(&text[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&text[start..]);
    parts
}

/// Whether Fortran text `text` names any of `names` (lower case) as a whole word.
fn mentions_any_word(text: &str, names: &[String]) -> bool {
    if names.is_empty() {
        return false;
    }
    text.split(|ch: char| !(ch.is_ascii_alphanumeric() || ch == '_'))
        .any(|w| names.iter().any(|n| w.eq_ignore_ascii_case(n)))
}

/// The variables a READ's items assign, in lower case (those of its implied DOs too).
fn names_read(items: &[Expr]) -> Vec<String> {
    let mut out = vec![];
    for it in items {
        match &it.kind {
            ExprKind::Var(v) | ExprKind::Elem(v, _) => out.push(v.name.to_ascii_lowercase()),
            ExprKind::ImpliedDo(inner, _) => out.extend(names_read(inner)),
            _ => {}
        }
    }
    out
}

/// Number of elements of an array-valued expression, as Fortran text and, when
/// the extents are constant, as a number.
fn elements_of(e: &Expr) -> (String, Option<i64>) {
    let constant = match &e.kind {
        ExprKind::Elem(_, subs) => {
            let mut n: i64 = 1;
            let mut ok = true;
            for s in subs {
                match s {
                    Subscript::Index(_) => {}
                    Subscript::Range(Some(a), Some(b), st) => {
                        let step = st.as_ref().map(|x| x.int_value()).unwrap_or(Some(1));
                        // Extents past i64 (a mistyped bound) leave the size to run time.
                        let extent = match (a.int_value(), b.int_value(), step) {
                            (Some(a), Some(b), Some(s)) if s != 0 => b
                                .checked_sub(a)
                                .and_then(|d| d.checked_add(s))
                                .and_then(|d| d.checked_div(s))
                                .map(|d| d.max(0)),
                            _ => None,
                        };
                        match extent.and_then(|x| n.checked_mul(x)) {
                            Some(v) => n = v,
                            None => ok = false,
                        }
                    }
                    Subscript::Range(..) => ok = false,
                }
            }
            ok.then_some(n)
        }
        _ => None,
    };
    (format!("size({})", conformable_reference(e)), constant)
}

/// An array reference of the same size as the array expression `e`: the first array
/// operand reached through elemental operations (`w` in `abs(w)`, `v` in `v < -0.3`),
/// or `e` itself. The counters take `size()` of it: `size(abs(w))` would have the
/// compiler build the whole expression in a temporary, whose allocation and release
/// change the program's heap (glibc's mmap threshold rises with the first large block
/// freed, and the scratch arrays the program allocates afterwards stop faulting).
pub fn conformable_reference(e: &Expr) -> &Expr {
    fn find(e: &Expr) -> Option<&Expr> {
        if !e.array {
            return None;
        }
        match &e.kind {
            ExprKind::Var(_) | ExprKind::Elem(..) => Some(e),
            ExprKind::Unary(_, a) => find(a),
            ExprKind::Binary(_, a, b) => find(a).or_else(|| find(b)),
            ExprKind::Call(CallTarget::Intrinsic(name), args) if shape_preserving(name) => {
                args.iter().find_map(find)
            }
            _ => None,
        }
    }
    find(e).unwrap_or(e)
}

/// Intrinsics whose result has the shape of their array arguments (elemental ones, and
/// the shifts).
fn shape_preserving(name: &str) -> bool {
    matches!(
        name,
        "abs"
            | "sqrt"
            | "exp"
            | "log"
            | "log10"
            | "sin"
            | "cos"
            | "tan"
            | "asin"
            | "acos"
            | "atan"
            | "atan2"
            | "sinh"
            | "cosh"
            | "tanh"
            | "real"
            | "dble"
            | "int"
            | "nint"
            | "anint"
            | "aint"
            | "floor"
            | "ceiling"
            | "mod"
            | "modulo"
            | "sign"
            | "min"
            | "max"
            | "merge"
            | "conjg"
            | "aimag"
            | "cmplx"
            | "dcmplx"
            | "iand"
            | "ior"
            | "ieor"
            | "not"
            | "ishft"
            | "btest"
            | "ibset"
            | "ibclr"
            | "dim"
            | "cshift"
            | "eoshift"
            | "logical"
            | "dabs"
            | "dsqrt"
            | "dexp"
            | "dlog"
            | "dsin"
            | "dcos"
    )
}
