//! The program model: units, symbols, statements, basic blocks and loops.
//!
//! The front end (`augur-fortran`) builds it; the analyzer, the instrumenter and
//! the predictor read it. It keeps every statement's original source span,
//! every basic block's static AbOp counts (a column of Saavedra's S matrix),
//! and the constructs the roadmap needs later: directives (`!$OMP`, `!HPF$`),
//! MPI calls and whole-array statements.

use crate::counts::{AbOpCounts, ScalarOperands};
use crate::diag::Diagnostic;
use crate::source::{SourceFiles, Span};
use serde::{Deserialize, Serialize};

/// Index of a basic block inside its unit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct BlockId(pub u32);

impl BlockId {
    /// Block 0 (the entry block).
    pub fn zero() -> BlockId {
        BlockId(0)
    }
}

/// Index of a loop inside its unit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct LoopId(pub u32);

/// A whole analyzed program: its files, its units and what went wrong.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Program {
    /// Every file read (main sources and includes).
    pub files: SourceFiles,
    /// Program units in source order (internal procedures follow their host).
    pub units: Vec<Unit>,
    /// Problems found while loading, parsing or lowering.
    pub diagnostics: Vec<Diagnostic>,
    /// How much of the source was understood.
    pub coverage: Coverage,
}

/// How many statements were lowered to the IR, and which were skipped.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Coverage {
    /// Executable and declaration statements seen.
    pub statements: u64,
    /// Statements fully lowered.
    pub lowered: u64,
    /// Number of source lines (all files, comments included).
    pub source_lines: u64,
}

impl Coverage {
    /// Percentage of statements lowered (100 when there are none).
    pub fn percent(&self) -> f64 {
        if self.statements == 0 {
            100.0
        } else {
            100.0 * self.lowered as f64 / self.statements as f64
        }
    }

    /// Adds another coverage to this one.
    pub fn merge(&mut self, o: &Coverage) {
        self.statements += o.statements;
        self.lowered += o.lowered;
        self.source_lines += o.source_lines;
    }
}

/// What kind of program unit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum UnitKind {
    /// `PROGRAM` (or a main program without a PROGRAM statement).
    Program,
    /// `SUBROUTINE`.
    Subroutine,
    /// `FUNCTION`.
    Function,
    /// `MODULE` (its variables are global; its procedures are separate units).
    Module,
    /// `BLOCK DATA`.
    BlockData,
}

/// A program unit or internal/module procedure.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Unit {
    /// Name in lower case (`main` for an unnamed main program).
    pub name: String,
    /// What kind of unit it is.
    pub kind: UnitKind,
    /// From the unit's first statement to its END.
    pub span: Span,
    /// The host unit (index in [`Program::units`]) for internal and module procedures.
    pub host: Option<usize>,
    /// Index of the top-level source file (in the order given to the front end) the unit is in.
    #[serde(default)]
    pub source: u32,
    /// Position of the unit's header (PROGRAM, SUBROUTINE, ... statement) in the parsed
    /// text of its source; the default when it has none (a main program without PROGRAM
    /// statement).
    #[serde(default)]
    pub header_text: TextPos,
    /// Position of the unit's first statement of any kind (its header, or for a main
    /// program without PROGRAM statement its first specification or executable
    /// statement) in the parsed text of its source.
    #[serde(default)]
    pub start_text: TextPos,
    /// Modules the unit USEs (lower case), in order of appearance.
    #[serde(default)]
    pub uses: Vec<String>,
    /// Dummy argument names, in order.
    pub dummies: Vec<String>,
    /// Symbols declared or used in the unit, sorted by name.
    pub symbols: Vec<Symbol>,
    /// Statements in source order.
    pub stmts: Vec<Stmt>,
    /// Basic blocks; block 0 is the entry.
    pub blocks: Vec<Block>,
    /// Loops (DO, DO WHILE, whole-array statements), outer before inner.
    pub loops: Vec<Loop>,
}

impl Unit {
    /// Whether loop `inner` is loop `outer` or nested in it (`None`: outside every loop).
    pub fn loop_within(&self, inner: Option<LoopId>, outer: LoopId) -> bool {
        let mut at = inner;
        while let Some(x) = at {
            if x == outer {
                return true;
            }
            at = self.loops.get(x.0 as usize).and_then(|l| l.parent);
        }
        false
    }

    /// The symbol named `name` (lower case), if declared or used.
    pub fn symbol(&self, name: &str) -> Option<&Symbol> {
        self.symbols
            .binary_search_by(|s| s.name.as_str().cmp(name))
            .ok()
            .map(|i| &self.symbols[i])
    }

    /// Static AbOp counts of the whole unit if every block ran once.
    pub fn static_total(&self) -> AbOpCounts {
        let mut t = AbOpCounts::new();
        for b in &self.blocks {
            t.add_scaled(&b.counts, 1.0);
        }
        t
    }
}

/// A Fortran intrinsic type (or a derived type).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BaseType {
    /// INTEGER of any kind.
    Integer,
    /// REAL / DOUBLE PRECISION.
    Real,
    /// COMPLEX / DOUBLE COMPLEX.
    Complex,
    /// LOGICAL.
    Logical,
    /// CHARACTER.
    Character,
    /// TYPE(...) or CLASS(...).
    Derived,
    /// Not known (e.g. an undeclared name under IMPLICIT NONE).
    Unknown,
}

/// A type with its kind in bytes (complex: bytes of each part).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Type {
    /// The base type.
    pub base: BaseType,
    /// Kind in bytes: 4 for default INTEGER/REAL, 8 for DOUBLE PRECISION, INTEGER*8, COMPLEX*16.
    pub kind: u8,
}

impl Type {
    /// Default INTEGER.
    pub const INTEGER: Type = Type {
        base: BaseType::Integer,
        kind: 4,
    };
    /// Default REAL.
    pub const REAL: Type = Type {
        base: BaseType::Real,
        kind: 4,
    };
    /// DOUBLE PRECISION.
    pub const DOUBLE: Type = Type {
        base: BaseType::Real,
        kind: 8,
    };
    /// Default COMPLEX.
    pub const COMPLEX: Type = Type {
        base: BaseType::Complex,
        kind: 4,
    };
    /// DOUBLE COMPLEX.
    pub const DOUBLE_COMPLEX: Type = Type {
        base: BaseType::Complex,
        kind: 8,
    };
    /// Default LOGICAL.
    pub const LOGICAL: Type = Type {
        base: BaseType::Logical,
        kind: 4,
    };
    /// CHARACTER.
    pub const CHARACTER: Type = Type {
        base: BaseType::Character,
        kind: 1,
    };
    /// A derived type.
    pub const DERIVED: Type = Type {
        base: BaseType::Derived,
        kind: 0,
    };
    /// Unknown type.
    pub const UNKNOWN: Type = Type {
        base: BaseType::Unknown,
        kind: 0,
    };

    /// Short readable name, e.g. `real(8)`.
    pub fn describe(&self) -> String {
        match self.base {
            BaseType::Integer => format!("integer({})", self.kind),
            BaseType::Real => format!("real({})", self.kind),
            BaseType::Complex => format!("complex({})", self.kind),
            BaseType::Logical => "logical".into(),
            BaseType::Character => "character".into(),
            BaseType::Derived => "type".into(),
            BaseType::Unknown => "unknown".into(),
        }
    }

    /// Whether it is INTEGER, REAL or COMPLEX.
    pub fn is_numeric(&self) -> bool {
        matches!(
            self.base,
            BaseType::Integer | BaseType::Real | BaseType::Complex
        )
    }
}

/// Where a variable lives: Saavedra's local/global distinction.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "class", content = "of")]
pub enum Storage {
    /// A local variable of the unit (including SAVEd and host-associated locals).
    Local,
    /// A dummy argument.
    Dummy,
    /// A variable in the named COMMON block (blank COMMON is `""`): global.
    Common(String),
    /// A variable of the named module: global.
    Module(String),
    /// A named constant (PARAMETER): no storage, folded by the compiler.
    Parameter,
}

impl Storage {
    /// Whether operands of this class count as global (COMMON or module).
    pub fn is_global(&self) -> bool {
        matches!(self, Storage::Common(_) | Storage::Module(_))
    }
}

/// One dimension of an array declaration.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Dim {
    /// Lower bound as written (`None` = 1 or deferred).
    pub lower: Option<String>,
    /// Upper bound as written (`None` for `:` or `*`).
    pub upper: Option<String>,
    /// Extent when both bounds are constants known at compile time.
    pub extent: Option<i64>,
}

/// A named entity of a unit.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Symbol {
    /// Lower-case name.
    pub name: String,
    /// Declared or implicit type.
    pub ty: Type,
    /// Whether the type came from the implicit rules rather than a declaration.
    pub implicit: bool,
    /// Array dimensions (empty for scalars).
    pub dims: Vec<Dim>,
    /// Storage class.
    pub storage: Storage,
    /// Value of a PARAMETER constant when it is an integer known at compile time.
    pub value: Option<i64>,
    /// Whether the name is a procedure (EXTERNAL, a called function, a statement function).
    pub procedure: bool,
}

/// A reference to a variable as an expression sees it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct VarRef {
    /// Lower-case name.
    pub name: String,
    /// Type of the variable.
    pub ty: Type,
    /// Declared rank (0 for scalars).
    pub rank: u8,
    /// Whether it lives in COMMON or a module.
    pub global: bool,
    /// Whether it is a named constant.
    pub constant: bool,
}

/// A subscript of an array reference.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Subscript {
    /// A single index.
    Index(Expr),
    /// A section `lo:hi:step` (each part optional).
    Range(Option<Expr>, Option<Expr>, Option<Expr>),
}

/// Arithmetic, relational, logical and character operators.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BinOp {
    /// `+`
    Add,
    /// `-`
    Sub,
    /// `*`
    Mul,
    /// `/`
    Div,
    /// `**`
    Pow,
    /// Any relational operator.
    Compare,
    /// `.AND.`, `.OR.`, `.EQV.`, `.NEQV.`
    Logical,
    /// `//`
    Concat,
    /// A user-defined operator (`.op.`): a function call.
    User,
}

/// Unary operators.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum UnOp {
    /// `-x`
    Neg,
    /// `+x`
    Plus,
    /// `.NOT.`
    Not,
}

/// How a name in a function-call position was resolved.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CallTarget {
    /// A Fortran intrinsic procedure (lower-case generic or specific name).
    Intrinsic(String),
    /// A user procedure (external, module, internal or statement function).
    User(String),
}

/// An expression with its type.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Expr {
    /// What the expression is.
    pub kind: ExprKind,
    /// Its type after the usual promotions.
    pub ty: Type,
    /// Whether the value is an array (whole array, section or elemental result).
    pub array: bool,
}

/// The shape of an expression.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum ExprKind {
    /// A literal: its text as written and, for integers, its value.
    Const {
        /// The literal as written (`1.5d0`, `'abc'`, `.true.`).
        text: String,
        /// Integer value, for integer literals.
        value: Option<i64>,
    },
    /// A scalar variable or a whole array.
    Var(VarRef),
    /// An array element or section.
    Elem(VarRef, Vec<Subscript>),
    /// A substring `s(i:j)`.
    Substring(Box<Expr>),
    /// A derived-type component `base%name`.
    Component(Box<Expr>, String),
    /// A unary operation.
    Unary(UnOp, Box<Expr>),
    /// A binary operation.
    Binary(BinOp, Box<Expr>, Box<Expr>),
    /// A function reference.
    Call(CallTarget, Vec<Expr>),
    /// An array constructor `[...]` / `(/.../)`.
    ArrayCtor(Vec<Expr>),
    /// An implied DO inside a constructor or an I/O list, `(item, ..., i = a, b)`: its
    /// items and its loop control as written (`i = a, b`), so that the expression can
    /// be printed back as Fortran. Its trip count is not modelled (items counted once).
    ImpliedDo(Vec<Expr>, String),
    /// Something the counter need not look into (a keyword argument's name, `*`, ...).
    Opaque,
}

impl Expr {
    /// The sub-expressions whose values this one's value is computed from: operands,
    /// arguments, constructor items, the base of a substring or component. Subscripts
    /// are left out (they compute an address, not the value).
    pub fn operands(&self) -> Vec<&Expr> {
        match &self.kind {
            ExprKind::Substring(b) | ExprKind::Component(b, _) | ExprKind::Unary(_, b) => {
                vec![b]
            }
            ExprKind::Binary(_, a, b) => vec![a, b],
            ExprKind::Call(_, args) | ExprKind::ArrayCtor(args) | ExprKind::ImpliedDo(args, _) => {
                args.iter().collect()
            }
            ExprKind::Const { .. } | ExprKind::Var(_) | ExprKind::Elem(..) | ExprKind::Opaque => {
                vec![]
            }
        }
    }

    /// The expressions of an array reference's subscripts (indices and the bounds and
    /// strides of sections, in order); empty for other expressions.
    pub fn subscript_exprs(&self) -> Vec<&Expr> {
        let ExprKind::Elem(_, subs) = &self.kind else {
            return vec![];
        };
        let mut out = vec![];
        for s in subs {
            match s {
                Subscript::Index(x) => out.push(x),
                Subscript::Range(a, b, c) => out.extend([a, b, c].into_iter().flatten()),
            }
        }
        out
    }

    /// Calls `f` on this expression and every expression inside it (operands,
    /// arguments, subscripts), outermost first.
    pub fn visit_all(&self, f: &mut dyn FnMut(&Expr)) {
        f(self);
        for o in self.operands() {
            o.visit_all(f);
        }
        for x in self.subscript_exprs() {
            x.visit_all(f);
        }
    }

    /// [`Expr::subscript_exprs`], mutable.
    pub fn subscript_exprs_mut(&mut self) -> Vec<&mut Expr> {
        let ExprKind::Elem(_, subs) = &mut self.kind else {
            return vec![];
        };
        let mut out = vec![];
        for s in subs {
            match s {
                Subscript::Index(x) => out.push(x),
                Subscript::Range(a, b, c) => out.extend([a, b, c].into_iter().flatten()),
            }
        }
        out
    }

    /// A literal of type `ty`.
    pub fn constant(ty: Type, text: impl Into<String>, value: Option<i64>) -> Expr {
        Expr {
            kind: ExprKind::Const {
                text: text.into(),
                value,
            },
            ty,
            array: false,
        }
    }

    /// Whether the expression is a compile-time constant (literal, named constant, or an operator on those).
    pub fn is_constant(&self) -> bool {
        match &self.kind {
            ExprKind::Const { .. } => true,
            ExprKind::Var(v) => v.constant,
            ExprKind::Unary(_, a) => a.is_constant(),
            ExprKind::Binary(_, a, b) => a.is_constant() && b.is_constant(),
            _ => false,
        }
    }

    /// Integer value when known at compile time.
    pub fn int_value(&self) -> Option<i64> {
        match &self.kind {
            ExprKind::Const { value, .. } => *value,
            ExprKind::Unary(UnOp::Neg, a) => a.int_value().map(|v| -v),
            ExprKind::Unary(UnOp::Plus, a) => a.int_value(),
            ExprKind::Binary(op, a, b) => {
                let (x, y) = (a.int_value()?, b.int_value()?);
                match op {
                    BinOp::Add => x.checked_add(y),
                    BinOp::Sub => x.checked_sub(y),
                    BinOp::Mul => x.checked_mul(y),
                    BinOp::Div if y != 0 => Some(x / y),
                    _ => None,
                }
            }
            _ => None,
        }
    }

    /// Whether the expression is a plain operand (variable, array element, constant)
    /// with no operator: Saavedra's memory transfer `a = b` has such a right-hand side.
    pub fn is_simple_operand(&self) -> bool {
        matches!(
            self.kind,
            ExprKind::Const { .. }
                | ExprKind::Var(_)
                | ExprKind::Elem(..)
                | ExprKind::Component(..)
        )
    }
}

/// How a DO loop is controlled.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LoopKind {
    /// `DO i = start, end [, step]`.
    Counted,
    /// `DO WHILE (cond)`.
    While,
    /// `DO` without control (left by EXIT, GOTO or RETURN).
    Forever,
    /// `DO CONCURRENT` or `FORALL`.
    Concurrent,
    /// The implied loop over the elements of a whole-array statement or array intrinsic.
    ArrayElements,
    /// A loop made by a backward `GOTO` (F77's `10 IF (J .GT. N) GOTO 30 ... GOTO 10`):
    /// its header is the block of the labelled statement, its iterations the header's
    /// executions, its entries those less the executions of its back edges
    /// ([`Loop::back_edges`]). See [`crate::goto_loops`].
    Goto,
}

/// A loop and what is known of its bounds.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Loop {
    /// Its id (index in [`Unit::loops`]).
    pub id: LoopId,
    /// How it is controlled.
    pub kind: LoopKind,
    /// The DO statement (or the array statement).
    pub span: Span,
    /// The enclosing loop.
    pub parent: Option<LoopId>,
    /// Nesting depth (1 for an outermost loop).
    pub depth: u32,
    /// Index variable of a counted loop.
    pub var: Option<String>,
    /// Start, end and step as written in the source (step absent = 1).
    pub bounds: Option<LoopBounds>,
    /// Whether the step is the constant 1 (Saavedra's LOIN/LOOV vs LOIX/LOOX).
    pub unit_step: bool,
    /// For [`LoopKind::ArrayElements`]: a Fortran expression giving the number of elements.
    pub elements: Option<String>,
    /// Block executed once per entry into the loop (holds the initialization).
    pub entry_block: BlockId,
    /// Block executed once per iteration (holds the per-iteration overhead).
    pub header_block: BlockId,
    /// First block of the body (for whole-array statements, the element block).
    #[serde(default = "BlockId::zero")]
    pub body_block: BlockId,
    /// Block control reaches when the loop ends normally.
    #[serde(default = "BlockId::zero")]
    pub after_block: BlockId,
    /// Position of the END DO (or terminal statement) in the parsed text.
    #[serde(default)]
    pub end_text: TextPos,
    /// Shared terminating label of an F77 labelled DO.
    pub label: Option<u32>,
    /// For [`LoopKind::Goto`]: the blocks that end in the unconditional `GOTO` back to
    /// the header (each execution is one more iteration).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub back_edges: Vec<BlockId>,
}

/// Bounds of a counted loop.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LoopBounds {
    /// Start expression (source text).
    pub start: String,
    /// End expression (source text).
    pub end: String,
    /// Step expression (source text), when given.
    pub step: Option<String>,
    /// Trip count when all bounds are compile-time constants.
    pub constant_trips: Option<i64>,
}

/// Why a basic block exists.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BlockKind {
    /// The unit's first block.
    Entry,
    /// An ordinary straight-line block.
    Straight,
    /// The per-iteration block of a loop (its overhead, or a DO WHILE test).
    LoopHeader,
    /// The per-element block of a whole-array statement.
    Elements,
}

/// A basic block: statements that always execute together the same number of times.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Block {
    /// Its id (index in [`Unit::blocks`]).
    pub id: BlockId,
    /// Why it exists.
    pub kind: BlockKind,
    /// Source span: first line of its first statement to the last line of its last.
    pub span: Span,
    /// Indices of its statements in [`Unit::stmts`] (a statement may contribute to
    /// two blocks: a DO statement's set-up and its per-iteration overhead).
    pub stmts: Vec<u32>,
    /// AbOps executed each time the block runs (one column of the S matrix).
    pub counts: AbOpCounts,
    /// Innermost enclosing loop.
    pub in_loop: Option<LoopId>,
    /// Blocks control may flow to next.
    pub succs: Vec<BlockId>,
    /// For the per-element block of an array reduction (`SUM`, `PRODUCT`,
    /// `DOT_PRODUCT` of real or complex values): the operations that carry the partial
    /// result from one element to the next ([`crate::count::ElementGroup::chain`]).
    #[serde(default)]
    pub element_chain: AbOpCounts,
    /// Scalar operand references each time the block runs (beside `counts`, which fold
    /// them into the operators; [`ScalarOperands`]).
    #[serde(default, skip_serializing_if = "ScalarOperands::is_zero")]
    pub scalar_operands: ScalarOperands,
}

/// Where a statement sits in the text the parser saw (the loaded, normalized
/// source of its top-level file): 0-based lines and column in characters. The
/// instrumenter edits that text, so it needs these rather than original lines.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TextPos {
    /// First line (0-based) of the statement.
    pub line: u32,
    /// Column (0-based, in bytes) where the statement starts, after any label.
    pub col: u32,
    /// Last line (0-based) of the statement.
    pub end_line: u32,
    /// Column (0-based, in bytes) just after the statement's last character.
    pub end_col: u32,
}

/// One statement and its source span.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Stmt {
    /// Original source span.
    pub span: Span,
    /// Position in the parsed text of the unit's source (see [`Unit::source`]).
    #[serde(default)]
    pub text: TextPos,
    /// Statement label, if any.
    pub label: Option<u32>,
    /// What the statement is.
    pub kind: StmtKind,
}

/// The statements the IR distinguishes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "stmt")]
pub enum StmtKind {
    /// `lhs = rhs` (also whole-array and pointer assignment).
    Assign {
        /// Left-hand side.
        lhs: Expr,
        /// Right-hand side.
        rhs: Expr,
    },
    /// `CALL name(args)`; MPI calls are kept by name (`mpi_*`).
    Call {
        /// Lower-case procedure name.
        name: String,
        /// Actual arguments.
        args: Vec<Expr>,
    },
    /// Predicate of a block IF or ELSE IF.
    If {
        /// The condition.
        cond: Expr,
    },
    /// `ELSE`.
    Else,
    /// `END IF`, `END DO`, `END SELECT` and other construct ends.
    EndConstruct,
    /// Predicate of a logical IF; the guarded statement follows as its own statement.
    LogicalIf {
        /// The condition.
        cond: Expr,
    },
    /// Arithmetic IF `IF (e) l1, l2, l3`.
    ArithmeticIf {
        /// The expression tested.
        expr: Expr,
        /// The three target labels.
        labels: Vec<u32>,
    },
    /// `GOTO l`.
    Goto {
        /// Target label.
        label: u32,
    },
    /// Computed `GOTO (l1, l2, ...) e`.
    ComputedGoto {
        /// Target labels.
        labels: Vec<u32>,
        /// The selector.
        expr: Expr,
    },
    /// Assigned `GOTO v [, (labels)]`.
    AssignedGoto {
        /// Possible targets, when listed.
        labels: Vec<u32>,
    },
    /// `ASSIGN l TO v`.
    AssignLabel {
        /// The label assigned.
        label: u32,
    },
    /// `DO` statement of any kind (see the loop for details).
    Do {
        /// The loop it opens.
        loop_id: LoopId,
        /// Start, end and step expressions of a counted loop, or the WHILE condition.
        exprs: Vec<Expr>,
    },
    /// `SELECT CASE (e)`.
    Select {
        /// The selector.
        expr: Expr,
    },
    /// A `CASE` of a SELECT CASE.
    Case,
    /// `CYCLE`.
    Cycle,
    /// `EXIT`.
    Exit,
    /// `RETURN`.
    Return,
    /// `STOP` or `ERROR STOP`.
    Stop,
    /// `CONTINUE`.
    Continue,
    /// READ, WRITE, PRINT, OPEN, CLOSE, INQUIRE, REWIND, ...
    Io {
        /// Lower-case statement keyword.
        keyword: String,
        /// Items transferred (expressions evaluated for output, variables for input).
        items: Vec<Expr>,
        /// A READ or WRITE without a format (binary records): its items are copied,
        /// not converted to or from decimal text.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        unformatted: bool,
        /// A READ, WRITE or PRINT with `*` as its format: reals take the library's
        /// round-trip precision (17 significant digits for a double), not a format's.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        list_directed: bool,
        /// The edit descriptors of its format that transfer no item (quoted and `nH`
        /// strings, `nX`, `T`, `TL`, `TR`, `/`) in one pass through the format, group
        /// repeats multiplied; 0 when the format is not known before the run (a
        /// character variable).
        #[serde(default, skip_serializing_if = "is_zero")]
        format_controls: u32,
    },
    /// ALLOCATE or DEALLOCATE.
    Allocate {
        /// Number of objects.
        objects: u32,
        /// Whether it is a DEALLOCATE.
        deallocate: bool,
    },
    /// WHERE mask (statement or construct).
    Where {
        /// The mask.
        mask: Expr,
    },
    /// A directive comment kept for later analyses: `!$OMP ...`, `!HPF$ ...`, `!$ACC ...`.
    Directive {
        /// Sentinel in upper case: `$OMP`, `HPF$`, `$ACC`.
        sentinel: String,
        /// The rest of the directive, as written.
        text: String,
    },
    /// An `!augur region NAME` / `!augur end region` marker.
    RegionMarker {
        /// Region name (None for the end marker).
        name: Option<String>,
    },
    /// A statement that executes nothing augur counts (FORMAT, declarations, ...).
    NonExecutable,
}

impl std::fmt::Display for Expr {
    /// Renders the expression as Fortran source (used to emit element counts such as `size(a(1:n))`).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        fn list(f: &mut std::fmt::Formatter<'_>, items: &[Expr]) -> std::fmt::Result {
            for (i, a) in items.iter().enumerate() {
                if i > 0 {
                    f.write_str(", ")?;
                }
                write!(f, "{a}")?;
            }
            Ok(())
        }
        match &self.kind {
            ExprKind::Const { text, .. } => f.write_str(text),
            ExprKind::Var(v) => f.write_str(&v.name),
            ExprKind::Elem(v, subs) => {
                write!(f, "{}(", v.name)?;
                for (i, s) in subs.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    match s {
                        Subscript::Index(e) => write!(f, "{e}")?,
                        Subscript::Range(a, b, c) => {
                            if let Some(a) = a {
                                write!(f, "{a}")?;
                            }
                            f.write_str(":")?;
                            if let Some(b) = b {
                                write!(f, "{b}")?;
                            }
                            if let Some(c) = c {
                                write!(f, ":{c}")?;
                            }
                        }
                    }
                }
                f.write_str(")")
            }
            ExprKind::Substring(b) => write!(f, "{b}"),
            ExprKind::Component(b, n) => write!(f, "{b}%{n}"),
            ExprKind::Unary(op, a) => match op {
                UnOp::Neg => write!(f, "(-{a})"),
                UnOp::Plus => write!(f, "{a}"),
                UnOp::Not => write!(f, "(.not. {a})"),
            },
            ExprKind::Binary(op, a, b) => {
                let o = match op {
                    BinOp::Add => "+",
                    BinOp::Sub => "-",
                    BinOp::Mul => "*",
                    BinOp::Div => "/",
                    BinOp::Pow => "**",
                    BinOp::Compare => "==",
                    BinOp::Logical => ".and.",
                    BinOp::Concat => "//",
                    BinOp::User => ".op.",
                };
                write!(f, "({a} {o} {b})")
            }
            ExprKind::Call(t, args) => {
                let n = match t {
                    CallTarget::Intrinsic(n) | CallTarget::User(n) => n,
                };
                write!(f, "{n}(")?;
                list(f, args)?;
                f.write_str(")")
            }
            ExprKind::ArrayCtor(items) => {
                f.write_str("[")?;
                list(f, items)?;
                f.write_str("]")
            }
            ExprKind::ImpliedDo(items, control) => {
                f.write_str("(")?;
                list(f, items)?;
                write!(f, ", {control})")
            }
            ExprKind::Opaque => f.write_str("*"),
        }
    }
}

/// Whether a count is zero (fields left out of the JSON when they are).
fn is_zero(n: &u32) -> bool {
    *n == 0
}
