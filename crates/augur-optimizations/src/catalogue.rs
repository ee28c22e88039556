//! The tests: for each optimization (and scope and context) the naive kernel, the
//! hand-optimized kernel and the cripple, as Fortran statements inside the timed loop.
//!
//! How every test resists the optimizer without VOLATILE (which flang ignores):
//! * every value the compiler must not know comes from the support module `augoptv`,
//!   whose variables the main program sets at run time from a number on its command line
//!   (so not even link-time optimization can know them); each kernel copies them into
//!   local variables first, so that they are ordinary loop invariants;
//! * results go to module arrays or, for scalar chains, to a separately compiled sink
//!   whose running sum the program prints at the end, so nothing is dead;
//! * array kernels call a separately compiled empty routine after each sweep, which may
//!   read and write the module's arrays, so sweeps cannot be merged or hoisted.
//!
//! The cripple differs from the naive kernel only in what the compiler can know: a value
//! read at run time instead of a literal (`k = k2` instead of `k = 2`), an operand equal at
//! run time but not provably (`b` instead of `a`), a subscript read from an identity
//! array, a procedure compiled separately instead of in the same file. It does the same
//! work as the naive kernel when neither is optimized.
//!
//! Names every kernel may use (declared and set by the generator, see
//! [`crate::program`]): reals `s` (chain, 1), `a` = `b` = 1, `c` = 0.5, `d` = 3, `e` = 2,
//! `q` = 0.1, `two` = 2, `big` = huge, temporaries `u`, `v`, `xj`; integers `is` (chain, 1),
//! `ia` = `ib` = 1, `ic` = 3, `id` = 7, `k2` = 2, `k3` = 3, `k4`, `iz0` = 0, `m` = 512, `p`,
//! temporaries `iu`, `iv`, `k`, `mm`, `j`; logical `l` = false. Module arrays: `xa`, `ya`
//! (reals in [0.5, 1.5)), `za`, `zd` (results), `ea` (all 2), `ka`, `kd` (results), `kb`
//! (integers in [1, 1000]), `kc` (all 7), `kx` (the identity), `w3(8,8,64)` with `w1(4096)`
//! over the same storage, `wb(64,16384)`.

/// Where the opportunity lies: inside one basic block, across blocks, or not applicable.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// Inside one basic block (table 4.9).
    Local,
    /// Across basic blocks (table 4.10).
    Global,
    /// The distinction does not apply (table 4.11).
    None,
}

impl Scope {
    /// `local`, `global` or `-`.
    pub fn name(self) -> &'static str {
        match self {
            Scope::Local => "local",
            Scope::Global => "global",
            Scope::None => "-",
        }
    }
}

/// How a test's verdict is reached.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Rule {
    /// Naive, optimized and cripple: effectiveness `(C - N) / (C - O)` with Welch's test
    /// that the naive kernel is faster than the cripple.
    Effectiveness,
    /// Seed 000's Naive/Opt rule: applied when the interval of `N / O` lies below this
    /// ratio (the least expected when the optimization is not applied).
    NaiveOpt(f64),
    /// Seed 000's Naive/Cripple rule: applied when the interval of `N / C` lies below
    /// this ratio (the most expected when the optimization is applied).
    NaiveCripple(f64),
}

impl Rule {
    /// `effectiveness`, `naive/opt` or `naive/cripple`.
    pub fn name(self) -> &'static str {
        match self {
            Rule::Effectiveness => "effectiveness",
            Rule::NaiveOpt(_) => "naive/opt",
            Rule::NaiveCripple(_) => "naive/cripple",
        }
    }
}

/// Which part of the compiler's own report covers a test: the line of the naive kernel
/// marked `!@` is looked up in it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReportKind {
    /// The loop is in the report's vectorized loops.
    Vectorized,
    /// The call is in the report's inlined calls.
    Inlined,
    /// The loop is in the report's unrolled loops.
    Unrolled,
    /// The IF's line has selects and no conditional jump in the assembly.
    Branchless,
}

/// One version of a kernel.
#[derive(Debug, Clone, PartialEq)]
pub struct Variant {
    /// Statements before the clock starts.
    pub setup: String,
    /// The body of the timed loop (one iteration).
    pub body: String,
}

/// One test.
#[derive(Debug, Clone, PartialEq)]
pub struct Test {
    /// The optimization's key, e.g. `constant_folding`.
    pub optimization: &'static str,
    /// Local, global or neither.
    pub scope: Scope,
    /// `int`, `fp`, `mixed`.
    pub context: &'static str,
    /// How the verdict is reached.
    pub rule: Rule,
    /// The code the optimization would improve.
    pub naive: Variant,
    /// The hand-optimized equivalent.
    pub opt: Option<Variant>,
    /// The naive code with the opportunity hidden from the compiler.
    pub cripple: Option<Variant>,
    /// The part of the compiler's report that covers it.
    pub report: Option<ReportKind>,
}

impl Test {
    /// `optimization/scope/context`.
    pub fn key(&self) -> String {
        format!(
            "{}/{}/{}",
            self.optimization,
            self.scope.name(),
            self.context
        )
    }
}

/// The optimizations in table order, with their names in the tables (defined with the
/// profile format, which the predictor reads too).
pub use augur_machine_profile::optimizations::OPTIMIZATIONS;

fn v(setup: &str, body: &str) -> Variant {
    Variant {
        setup: setup.to_string(),
        body: body.to_string(),
    }
}

/// An array kernel: `stmts` inside a sweep over `j = 1, m`, then the opaque call.
fn sweep(stmts: &str) -> String {
    let inner: String = stmts.lines().map(|l| format!("  {l}\n")).collect();
    format!("do j = 1, m !@\n{inner}end do\ncall aonop()\n")
}

/// The IF that makes a kernel global: a branch never taken around a call, a boundary
/// between basic blocks that no compiler removes.
const BLOCK: &str = "if (l) call aonop()";

/// A three-version test of an effectiveness rule.
fn triple(
    optimization: &'static str,
    scope: Scope,
    context: &'static str,
    naive: Variant,
    opt: Variant,
    cripple: Variant,
) -> Test {
    Test {
        optimization,
        scope,
        context,
        rule: Rule::Effectiveness,
        naive,
        opt: Some(opt),
        cripple: Some(cripple),
        report: None,
    }
}

/// Constant folding and propagation: a divisor computed from literals (a shift or a
/// multiply once folded) on a dependent chain; the cripple starts from a value read at run
/// time. Global: the constants are set before the loop and a block boundary precedes the
/// use.
fn constant_folding(out: &mut Vec<Test>) {
    let cases = [
        (
            "int",
            ("k = 2\nmm = k*4", "k = k2\nmm = k*4"),
            "is = is/mm + 100",
            "is = is/8 + 100",
        ),
        (
            "fp",
            ("u = 2.0d0\nv = u*u", "u = two\nv = u*u"),
            "s = s/v + 1.0d0",
            "s = s*0.25d0 + 1.0d0",
        ),
        (
            "mixed",
            ("k = 2\nv = k*2.0d0", "k = k2\nv = k*2.0d0"),
            "s = s/v + 1.0d0",
            "s = s*0.25d0 + 1.0d0",
        ),
    ];
    for (context, (consts, hidden), use_, folded) in cases {
        out.push(triple(
            "constant_folding",
            Scope::Local,
            context,
            v("", &format!("{consts}\n{use_}\n")),
            v("", &format!("{folded}\n")),
            v("", &format!("{hidden}\n{use_}\n")),
        ));
        out.push(triple(
            "constant_folding",
            Scope::Global,
            context,
            v(consts, &format!("{BLOCK}\n{use_}\n")),
            v("", &format!("{BLOCK}\n{folded}\n")),
            v(hidden, &format!("{BLOCK}\n{use_}\n")),
        ));
    }
}

/// `(context, naive, cripple, optimized)` statements of the common-subexpression sweeps:
/// two divisions of the same operands (the cripple's second operand is equal only at run
/// time), throughput-bound over independent elements.
const CSE_LOCAL: &[Row] = &[
    (
        "int",
        "ka(j) = (kb(j) + ia)/id*ic + (kb(j) + ia)/id",
        "ka(j) = (kb(j) + ia)/id*ic + (kb(j) + ib)/id",
        "iu = (kb(j) + ia)/id\nka(j) = iu*ic + iu",
    ),
    (
        "fp",
        "za(j) = (xa(j) + a)/d*c + (xa(j) + a)/d",
        "za(j) = (xa(j) + a)/d*c + (xa(j) + b)/d",
        "u = (xa(j) + a)/d\nza(j) = u*c + u",
    ),
    (
        "mixed",
        "za(j) = (kb(j) + a)/d*c + (kb(j) + a)/d",
        "za(j) = (kb(j) + a)/d*c + (kb(j) + b)/d",
        "u = (kb(j) + a)/d\nza(j) = u*c + u",
    ),
];

/// The same across a block boundary: the first occurrence before it, the second after
/// (the element is copied to a local first: the call may change the module's arrays).
const CSE_GLOBAL: &[Row] = &[
    (
        "int",
        "iv = kb(j)\niu = (iv + ia)/id\nBLOCK\nka(j) = iu*ic + (iv + ia)/id",
        "iv = kb(j)\niu = (iv + ia)/id\nBLOCK\nka(j) = iu*ic + (iv + ib)/id",
        "iv = kb(j)\niu = (iv + ia)/id\nBLOCK\nka(j) = iu*ic + iu",
    ),
    (
        "fp",
        "xj = xa(j)\nu = (xj + a)/d\nBLOCK\nza(j) = u*c + (xj + a)/d",
        "xj = xa(j)\nu = (xj + a)/d\nBLOCK\nza(j) = u*c + (xj + b)/d",
        "xj = xa(j)\nu = (xj + a)/d\nBLOCK\nza(j) = u*c + u",
    ),
    (
        "mixed",
        "iv = kb(j)\nu = (iv + a)/d\nBLOCK\nza(j) = u*c + (iv + a)/d",
        "iv = kb(j)\nu = (iv + a)/d\nBLOCK\nza(j) = u*c + (iv + b)/d",
        "iv = kb(j)\nu = (iv + a)/d\nBLOCK\nza(j) = u*c + u",
    ),
];

/// One test's statements: `(context, naive, cripple, optimized)`.
type Row = (&'static str, &'static str, &'static str, &'static str);

/// A row with owned statements.
type OwnedRow = (&'static str, String, String, String);

/// The rows of `table` with `f` applied to each statement.
fn rows(table: &[Row], f: impl Fn(&str) -> String) -> Vec<OwnedRow> {
    table
        .iter()
        .map(|&(c, n, cr, o)| (c, f(n), f(cr), f(o)))
        .collect()
}

/// Sweep tests from statement tables, local and global, with `setups(scope, context)`
/// giving the statements before each loop (`(naive, cripple, optimized)`).
fn sweeps(
    out: &mut Vec<Test>,
    optimization: &'static str,
    tables: [(Scope, Vec<OwnedRow>); 2],
    setups: &dyn Fn(Scope, &str) -> (String, String, String),
) {
    for (scope, table) in tables {
        for (context, naive, cripple, opt) in table {
            let b = |s: &str| sweep(&s.replace("BLOCK", BLOCK));
            let (sn, sc, so) = setups(scope, context);
            out.push(triple(
                optimization,
                scope,
                context,
                v(&sn, &b(&naive)),
                v(&so, &b(&opt)),
                v(&sc, &b(&cripple)),
            ));
        }
    }
}

fn no_setup(_: Scope, _: &str) -> (String, String, String) {
    Default::default()
}

/// Code motion: an invariant expression with a division (and a square root) inside the
/// sweep; the cripple reads the same value from an array (equal everywhere, not provably
/// invariant); the optimized kernel computes it before the loop.
const MOTION: &[Row] = &[
    (
        "int",
        "ka(j) = kb(j) + id/ic + mod(id, ic)",
        "ka(j) = kb(j) + kc(j)/ic + mod(kc(j), ic)",
        "ka(j) = kb(j) + iu",
    ),
    (
        "fp",
        "za(j) = xa(j)*c + sqrt(e)/d",
        "za(j) = xa(j)*c + sqrt(ea(j))/d",
        "za(j) = xa(j)*c + u",
    ),
    (
        "mixed",
        "za(j) = xa(j) + sqrt(real(id, 8))/d",
        "za(j) = xa(j) + sqrt(real(kc(j), 8))/d",
        "za(j) = xa(j) + u",
    ),
];

/// The invariants computed by hand before the loop.
fn motion_setup(_: Scope, context: &str) -> (String, String, String) {
    let hoisted = match context {
        "int" => "iu = id/ic + mod(id, ic)",
        "fp" => "u = sqrt(e)/d",
        _ => "u = sqrt(real(id, 8))/d",
    };
    (String::new(), String::new(), hoisted.to_string())
}

/// Dead code: a definition with a division (and a square root) killed before any use;
/// the cripple stores it to a dump array, which every version stores to (the naive and
/// optimized kernels a live scalar), so that the versions differ by the dead work alone:
/// a store the cripple alone made would be read, on a core whose division is quick, as
/// a third of the dead work removed.
const DEAD: &[Row] = &[
    (
        "int",
        "iu = kb(j)/id + mod(kb(j), ic)\nkd(j) = id\nBLOCK\niu = kb(j)*ic + ia\nka(j) = iu",
        "iu = kb(j)/id + mod(kb(j), ic)\nkd(j) = iu\nBLOCK\niu = kb(j)*ic + ia\nka(j) = iu",
        "kd(j) = id\nBLOCK\nka(j) = kb(j)*ic + ia",
    ),
    (
        "fp",
        "u = sqrt(xa(j))/d\nzd(j) = d\nBLOCK\nu = xa(j)*c + a\nza(j) = u",
        "u = sqrt(xa(j))/d\nzd(j) = u\nBLOCK\nu = xa(j)*c + a\nza(j) = u",
        "zd(j) = d\nBLOCK\nza(j) = xa(j)*c + a",
    ),
    (
        "mixed",
        "u = sqrt(real(kb(j), 8))/d\nzd(j) = d\nBLOCK\nu = kb(j)*c + a\nza(j) = u",
        "u = sqrt(real(kb(j), 8))/d\nzd(j) = u\nBLOCK\nu = kb(j)*c + a\nza(j) = u",
        "zd(j) = d\nBLOCK\nza(j) = kb(j)*c + a",
    ),
];

/// Copy propagation that exposes a common subexpression: `v = a` then `(x + a)` and
/// `(x + v)`; the cripple copies `b` (equal at run time). Global: the copy before the
/// loop, a block boundary between the two occurrences.
const COPY_LOCAL: &[Row] = &[
    (
        "int",
        "iv = ia\nka(j) = (kb(j) + ia)/id*ic + (kb(j) + iv)/id",
        "iv = ib\nka(j) = (kb(j) + ia)/id*ic + (kb(j) + iv)/id",
        "iu = (kb(j) + ia)/id\nka(j) = iu*ic + iu",
    ),
    (
        "fp",
        "v = a\nza(j) = (xa(j) + a)/d*c + (xa(j) + v)/d",
        "v = b\nza(j) = (xa(j) + a)/d*c + (xa(j) + v)/d",
        "u = (xa(j) + a)/d\nza(j) = u*c + u",
    ),
    (
        "mixed",
        "v = a\nza(j) = (kb(j) + a)/d*c + (kb(j) + v)/d",
        "v = b\nza(j) = (kb(j) + a)/d*c + (kb(j) + v)/d",
        "u = (kb(j) + a)/d\nza(j) = u*c + u",
    ),
];

const COPY_GLOBAL: &[Row] = &[
    (
        "int",
        "iw = kb(j)\niu = (iw + ia)/id\nBLOCK\nka(j) = iu*ic + (iw + iv)/id",
        "iw = kb(j)\niu = (iw + ia)/id\nBLOCK\nka(j) = iu*ic + (iw + iv)/id",
        "iw = kb(j)\niu = (iw + ia)/id\nBLOCK\nka(j) = iu*ic + iu",
    ),
    (
        "fp",
        "xj = xa(j)\nu = (xj + a)/d\nBLOCK\nza(j) = u*c + (xj + v)/d",
        "xj = xa(j)\nu = (xj + a)/d\nBLOCK\nza(j) = u*c + (xj + v)/d",
        "xj = xa(j)\nu = (xj + a)/d\nBLOCK\nza(j) = u*c + u",
    ),
    (
        "mixed",
        "iw = kb(j)\nu = (iw + a)/d\nBLOCK\nza(j) = u*c + (iw + v)/d",
        "iw = kb(j)\nu = (iw + a)/d\nBLOCK\nza(j) = u*c + (iw + v)/d",
        "iw = kb(j)\nu = (iw + a)/d\nBLOCK\nza(j) = u*c + u",
    ),
];

/// The global copies: `iv = ia` / `v = a` before the loop (the cripple's from `ib`, `b`).
fn copy_setup(scope: Scope, context: &str) -> (String, String, String) {
    if scope != Scope::Global {
        return Default::default();
    }
    let (n, c) = match context {
        "int" => ("iv = ia", "iv = ib"),
        _ => ("v = a", "v = b"),
    };
    (n.to_string(), c.to_string(), String::new())
}

/// The tests of tables 4.9 and 4.10: five optimizations, local and global, three
/// contexts each.
fn scalar_optimizations(out: &mut Vec<Test>) {
    let same = |s: &str| s.to_string();
    constant_folding(out);
    sweeps(
        out,
        "cse",
        [
            (Scope::Local, rows(CSE_LOCAL, same)),
            (Scope::Global, rows(CSE_GLOBAL, same)),
        ],
        &no_setup,
    );
    sweeps(
        out,
        "code_motion",
        [
            (Scope::Local, rows(MOTION, same)),
            (Scope::Global, rows(MOTION, |s| format!("BLOCK\n{s}"))),
        ],
        &motion_setup,
    );
    sweeps(
        out,
        "dead_code",
        [
            (Scope::Local, rows(DEAD, |s| s.replace("BLOCK\n", ""))),
            (Scope::Global, rows(DEAD, same)),
        ],
        &no_setup,
    );
    sweeps(
        out,
        "copy_propagation",
        [
            (Scope::Local, rows(COPY_LOCAL, same)),
            (Scope::Global, rows(COPY_GLOBAL, same)),
        ],
        &copy_setup,
    );
}

/// A single-context test of table 4.11's kind.
fn single(
    optimization: &'static str,
    context: &'static str,
    rule: Rule,
    [naive, opt, cripple]: [Option<Variant>; 3],
    report: Option<ReportKind>,
) -> Test {
    Test {
        optimization,
        scope: Scope::None,
        context,
        rule,
        naive: naive.unwrap_or_else(|| v("", "")),
        opt,
        cripple,
        report,
    }
}

/// Strength reduction, induction variables, address collapsing, register allocation.
fn classic(out: &mut Vec<Test>) {
    out.push(single(
        "strength_reduction",
        "fp",
        Rule::Effectiveness,
        [
            Some(v("", "s = q*s**2.0d0 + a\n")),
            Some(v("", "s = q*(s*s) + a\n")),
            Some(v("", "s = q*s**e + a\n")),
        ],
        None,
    ));
    out.push(single(
        "induction_variable",
        "fp",
        Rule::Effectiveness,
        [
            Some(v(
                "",
                "p = 0\ndo j = 1, m !@\n  p = p + 1\n  za(p) = za(p)*c + xa(p)\nend do\ncall aonop()\n",
            )),
            Some(v("", &sweep("za(j) = za(j)*c + xa(j)"))),
            Some(v(
                "",
                "p = 0\ndo j = 1, m\n  p = p + ia\n  za(p) = za(p)*c + xa(p)\nend do\ncall aonop()\n",
            )),
        ],
        None,
    ));
    out.push(single(
        "address_collapsing",
        "fp",
        Rule::Effectiveness,
        [
            Some(v(
                "",
                "do k = 1, 64 !@\n  iw = kx(k)\n  za(k) = za(k)*c + w3(k2, k3, k)\nend do\ncall aonop()\n",
            )),
            Some(v(
                "",
                "p = (k3 - 1)*8 + k2 - 64\ndo k = 1, 64\n  iw = kx(k)\n  p = p + 64\n  za(k) = za(k)*c + w1(p)\nend do\ncall aonop()\n",
            )),
            Some(v(
                "",
                "do k = 1, 64\n  za(k) = za(k)*c + w3(k2, k3, kx(k))\nend do\ncall aonop()\n",
            )),
        ],
        None,
    ));
    out.push(single(
        "register_allocation",
        "fp",
        Rule::NaiveCripple(0.75),
        [
            Some(v("p = 1", "p = p + iz0\ns = s*c + a\n")),
            None,
            Some(v("p = 1", "p = p + iz0\nzd(p) = zd(p)*c + a\n")),
        ],
        None,
    ));
}

/// Inlining, unrolling, interchange, vectorization, if-conversion, tail recursion.
fn transformations(out: &mut Vec<Test>) {
    out.push(single(
        "inlining",
        "fp",
        Rule::Effectiveness,
        [
            Some(v("", "s = aoinl(s, c, a) !@\n")),
            Some(v("", "s = s*c + a\n")),
            Some(v("", "s = aoinx(s, c, a)\n")),
        ],
        Some(ReportKind::Inlined),
    ));
    let four = |bound: &str, mark: &str| {
        format!("do k = 1, {bound}{mark}\n  za(k) = xa(k)*c + ya(k)\nend do\ncall aonop()\n")
    };
    let mut unrolled: String = (1..=4)
        .map(|k| format!("za({k}) = xa({k})*c + ya({k})\n"))
        .collect();
    unrolled.push_str("call aonop()\n");
    out.push(single(
        "unrolling",
        "fp",
        Rule::Effectiveness,
        [
            Some(v("", &four("4", " !@"))),
            Some(v("", &unrolled)),
            Some(v("k4 = k2*2", &four("k4", ""))),
        ],
        Some(ReportKind::Unrolled),
    ));
    out.push(single(
        "interchange",
        "fp",
        Rule::NaiveOpt(1.5),
        [
            Some(v(
                "",
                "do p = 1, 64\n  do k = 1, 16384 !@\n    wb(p, k) = wb(p, k)*c + a\n  end do\nend do\ncall aonop()\n",
            )),
            Some(v(
                "",
                "do k = 1, 16384\n  do p = 1, 64\n    wb(p, k) = wb(p, k)*c + a\n  end do\nend do\ncall aonop()\n",
            )),
            None,
        ],
        None,
    ));
    out.push(single(
        "vectorization",
        "fp",
        Rule::NaiveCripple(0.7),
        [
            Some(v("", &sweep("za(j) = xa(j)*c + ya(j)"))),
            None,
            Some(v(
                "",
                "do j = 1, m\n  if (xa(j) > big) exit\n  za(j) = xa(j)*c + ya(j)\nend do\ncall aonop()\n",
            )),
        ],
        Some(ReportKind::Vectorized),
    ));
    let branchy = |arm: &str| {
        format!("do j = 1, m\n  if (xa(j) > ya(j)) then !@\n    za(j) = xa(j)\n  else\n    za(j) = ya(j){arm}\n  end if\nend do\ncall aonop()\n")
    };
    out.push(single(
        "if_conversion",
        "fp",
        Rule::Effectiveness,
        [
            Some(v("", &branchy(""))),
            Some(v("", &sweep("za(j) = max(xa(j), ya(j))"))),
            Some(v("", &branchy("\n    if (l) call aonop()"))),
        ],
        Some(ReportKind::Branchless),
    ));
    out.push(single(
        "tail_recursion",
        "fp",
        Rule::Effectiveness,
        [
            Some(v("", "s = aotr(m, s)\n")),
            Some(v("", "do k = 1, m\n  s = s*0.5d0 + 1.0d0\nend do\n")),
            Some(v("", "s = aotrc(m, s)\n")),
        ],
        None,
    ));
}

/// Every test, in table order.
pub fn catalogue() -> Vec<Test> {
    let mut out = Vec::new();
    scalar_optimizations(&mut out);
    classic(&mut out);
    transformations(&mut out);
    out
}

/// The tests of the optimizations named (keys of [`OPTIMIZATIONS`]); the unknown names
/// are the error.
pub fn select(all: &[Test], names: &[String]) -> Result<Vec<Test>, Vec<String>> {
    let unknown: Vec<String> = names
        .iter()
        .filter(|n| !OPTIMIZATIONS.iter().any(|o| o.0 == n.as_str()))
        .cloned()
        .collect();
    if !unknown.is_empty() {
        return Err(unknown);
    }
    Ok(all
        .iter()
        .filter(|t| names.iter().any(|n| n == t.optimization))
        .cloned()
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_optimization_has_tests_and_keys_are_unique() {
        let all = catalogue();
        for (key, _) in OPTIMIZATIONS {
            assert!(all.iter().any(|t| t.optimization == *key), "{key}");
        }
        let mut keys: Vec<String> = all.iter().map(Test::key).collect();
        keys.sort();
        keys.dedup();
        assert_eq!(keys.len(), all.len());
        // Tables 4.9/4.10: five optimizations x 2 scopes x 3 contexts.
        let scoped = all.iter().filter(|t| t.scope != Scope::None).count();
        assert_eq!(scoped, 30);
    }

    #[test]
    fn rules_have_the_versions_they_need() {
        for t in catalogue() {
            match t.rule {
                Rule::Effectiveness => assert!(t.opt.is_some() && t.cripple.is_some()),
                Rule::NaiveOpt(_) => assert!(t.opt.is_some()),
                Rule::NaiveCripple(_) => assert!(t.cripple.is_some()),
            }
            assert!(!t.naive.body.is_empty(), "{}", t.key());
            if t.report.is_some() {
                assert!(t.naive.body.contains("!@"), "{}", t.key());
            }
        }
    }

    #[test]
    fn selection_by_name() {
        let all = catalogue();
        let s = select(&all, &["dead_code".to_string()]).unwrap();
        assert_eq!(s.len(), 6);
        assert_eq!(
            select(&all, &["nonsense".to_string()]).unwrap_err(),
            vec!["nonsense".to_string()]
        );
    }
}
