//! The catalogue of narrow-spectrum experiments: one per AbOp measured today.
//!
//! Every experiment is a Fortran loop whose body repeats one operation in a typical
//! context. The cost per operation is Saavedra-Barrera's overhead subtraction
//! (digest 001 §4.4-4.5): the same loop is timed with the experiment's body and with a
//! reference body (the same statement once instead of nine times), so loop control, timer
//! calls and the sink cancel:
//!
//! ```text
//! cost = ((T_body - T_ref) / iterations / units - Σ c_i * P_i) / ops_per_unit
//! ```
//!
//! where `units` is how many more copies of the unit statement(s) the body has than the
//! reference, and `Σ c_i P_i` are other parameters subtracted in composite tests (e.g.
//! `x = sin(x + a)` measures SIND after subtracting one ARDL).
//!
//! Defeating the compiler (digest 001 §4.2), adapted to -O2/-O3 without relying on
//! `VOLATILE` (flang ignores it), by means every compiler honours:
//! * operand values are unknown to the compiler: they are written at run time into arrays
//!   by separately compiled routines (`call augsetr8(a, n, 1.25d0)`); there is no
//!   link-time optimization, so nothing sees through them;
//! * every use of an operand reads its own array element (the unit `x = x + {a}; x = x -
//!   {a}` becomes `x = x + a(aj + 8); x = x - a(aj + 16)`), so uses cannot be combined
//!   (`x + a - a` stays two ops) and each is a load from memory, as a VOLATILE read was;
//!   the elements hold equal values, so the chain behaves as with one operand;
//! * the element index moves with the iteration as far as the compiler knows (`aj =
//!   iand(it, az)` with `az` zero at run time, in the reference loop too), so the loads
//!   and stores cannot be hoisted out of the loop nor the chain summed in closed form
//!   (at -O0, where nothing is hoisted, `aj` and `az` are the constant 0 instead, so that
//!   no subscript arithmetic is added to the operation: [`crate::harness::OperandIndex`]);
//!   elements read are 8 apart so that neighbouring uses are not merged into vector
//!   loads;
//! * stores (`{b} = 3.0`) write `b(aj + az*c + 1)` for the c-th store: one element at run
//!   time, as the stores to a VOLATILE variable were, but not provably, so none is dead
//!   and none merged;
//! * the result is a dependent chain in an ordinary variable (`x`), so the compiler keeps it
//!   in a register as in real code, and it goes to a separately compiled `sink` before the
//!   clock is read, as do the local arrays stored into, so the loop cannot be deleted or
//!   moved.
//!
//! The loads (and the index) are in the reference loop in proportion, like the VOLATILE
//! reads were, and they are off the chain, so the subtraction still isolates the
//! operation.
//!
//! "Global" (`...G`) experiments keep the chain variable and the operand arrays in a module
//! of the separately compiled support file.

use augur_ir::AbOp;

/// One experiment.
#[derive(Debug, Clone, PartialEq)]
pub struct Experiment {
    /// The parameter it measures.
    pub abop: AbOp,
    /// The context in which the operation is measured (written to the profile).
    pub context: String,
    /// Declarations (local variables of the experiment routine).
    pub decl: String,
    /// Statements before the clock starts: operand initialization from the support routines.
    pub setup: String,
    /// The reference loop body.
    pub ref_body: String,
    /// The measured loop body.
    pub body: String,
    /// Statements after the loop, before the clock stops: results to the sink.
    pub sink: String,
    /// How many more units the body executes than the reference per iteration.
    pub units: f64,
    /// Operations of this AbOp per unit.
    pub ops_per_unit: f64,
    /// Other parameters subtracted per unit (composite test): `(AbOp, count)`.
    pub subtract: Vec<(AbOp, f64)>,
    /// Set when the experiment is one point of an indirect measurement: its per-unit time
    /// `y` is modelled as `abop + x * (slope + Σ c_i P_i)`, and the points of the same
    /// `abop` are solved together by least squares ([`crate::fit`]).
    pub fit: Option<FitPoint>,
}

/// One point of an indirect measurement (Saavedra's indirect test, digest 001 §4.3): the
/// unit's time is `intercept + x * (slope + Σ slope_subtract)`.
#[derive(Debug, Clone, PartialEq)]
pub struct FitPoint {
    /// The abscissa: iterations per loop entry, elements per statement, items per I/O
    /// statement.
    pub x: f64,
    /// The AbOp the slope measures.
    pub slope: AbOp,
    /// Other parameters in the slope, subtracted from it: `(AbOp, count)`.
    pub slope_subtract: Vec<(AbOp, f64)>,
}

/// AbOps that no valid Fortran statement produces under the counting rules, with why they
/// cannot be measured (written to the profile as `not measurable: <why>`).
pub const NOT_MEASURABLE: &[(AbOp, &str)] = &[
    (
        AbOp::SQRI,
        "SQRT of an integer is not valid Fortran; the counting rules produce SQRI only for it",
    ),
    (
        AbOp::MAXC,
        "MAX, MIN, MOD, SIGN and AINT of complex arguments are not valid Fortran; the counting rules produce MAXC only for them",
    ),
];

/// Trip counts of the loop experiments (indirect measurement of LOIN/LOOV, LOIX/LOOX).
const LOOP_TRIPS: [i64; 6] = [1, 2, 4, 8, 16, 32];

/// Elements per statement of the array-syntax experiments (indirect ALIN/ALOV).
const ARRAY_LENGTHS: [i64; 6] = [4, 8, 16, 32, 64, 128];

/// Items per statement of the I/O experiments (indirect IOST/IOIT).
const IO_ITEMS: [i64; 4] = [1, 2, 4, 8];

/// Copies of the unit in the measured body and in the reference body.
const BODY_UNITS: usize = 9;
const REF_UNITS: usize = 1;

/// Distance in elements between the operand array elements of two uses.
pub const STRIDE: usize = 8;
/// Uses of operand arrays one loop body may make.
pub const SLOTS: usize = 24;
/// Elements of an operand array: `SLOTS` uses `STRIDE` apart, after the moving index.
pub const SLOT_LEN: usize = STRIDE * (SLOTS + 1);

/// The element of operand array `name` for use number `c` (1-based): `name(aj + 8c)`.
fn slot(name: &str, c: usize) -> String {
    format!("{name}(aj + {})", STRIDE * c)
}

/// The element of array `name` that store number `c` (1-based) writes: `name(aj + az*c +
/// 1)`, the same element at run time (`az` is zero), as successive stores to a VOLATILE
/// variable were, but not provably, so that none is dead.
fn store_slot(name: &str, c: usize) -> String {
    format!("{name}(aj + az*{c} + 1)")
}

/// How many times each operand array (or, keyed `=name`, each stored array) has been used
/// so far in one body.
#[derive(Default)]
struct Uses(Vec<(String, usize)>);

impl Uses {
    /// The number (1-based) of this use of `key`.
    fn next(&mut self, key: String) -> usize {
        let c = match self.0.iter_mut().find(|u| u.0 == key) {
            Some(u) => {
                u.1 += 1;
                u.1
            }
            None => {
                self.0.push((key, 1));
                1
            }
        };
        assert!(c <= SLOTS, "more than {SLOTS} uses of an operand array");
        c
    }
}

/// `code` with every `{name}` replaced by the next element of array `name`: each use of an
/// array reads its own element ([`slot`]), in order; a placeholder that begins a line's
/// assignment (`{b} = ...`) is a store, to [`store_slot`].
pub(crate) fn slots(code: &str) -> String {
    let mut uses = Uses::default();
    let mut out = String::new();
    for line in code.split_inclusive('\n') {
        let mut rest = line;
        while let Some(p) = rest.find('{') {
            let q = p + rest[p..]
                .find('}')
                .expect("operand placeholders are closed");
            let name = &rest[p + 1..q];
            let first = rest.len() == line.len() && rest[..p].trim().is_empty();
            out.push_str(&rest[..p]);
            if first && rest[q + 1..].starts_with(" =") {
                out.push_str(&store_slot(name, uses.next(format!("={name}"))));
            } else {
                out.push_str(&slot(name, uses.next(name.to_string())));
            }
            rest = &rest[q + 1..];
        }
        out.push_str(rest);
    }
    out
}

/// `code` as the reader writes it: operand placeholders without their braces.
fn plain(code: &str) -> String {
    code.replace(['{', '}'], "")
}

/// Declarations of operand arrays of type `decl`.
fn arrays(decl: &str, names: &[&str]) -> String {
    let list: Vec<String> = names.iter().map(|n| format!("{n}({SLOT_LEN})")).collect();
    format!("{decl} :: {}\n", list.join(", "))
}

/// Fills operand array `name` (support routines `augset<tag>`) with `value` at run time.
fn set(tag: &str, name: &str, value: &str) -> String {
    format!("call augset{tag}({name}, {SLOT_LEN}, {value})\n")
}

/// Fills several operand arrays of one type: `(name, value)` each.
fn sets(tag: &str, values: &[(&str, &str)]) -> String {
    values.iter().map(|(n, v)| set(tag, n, v)).collect()
}

/// Hands array `name` to the separately compiled sink `augsv<tag>`.
fn sink_array(tag: &str, name: &str) -> String {
    format!("call augsv{tag}({name}, {SLOT_LEN})\n")
}

/// A Fortran type with its support routines.
#[derive(Debug, Clone, Copy)]
struct Ty {
    /// Declaration, e.g. `real(8)`.
    decl: &'static str,
    /// Suffix of the support routines and module variables, e.g. `r8`.
    tag: &'static str,
}

const R4: Ty = Ty {
    decl: "real(4)",
    tag: "r4",
};
const R8: Ty = Ty {
    decl: "real(8)",
    tag: "r8",
};
const I4: Ty = Ty {
    decl: "integer(4)",
    tag: "i4",
};
const I8: Ty = Ty {
    decl: "integer(8)",
    tag: "i8",
};
const C4: Ty = Ty {
    decl: "complex(4)",
    tag: "c4",
};
const C8: Ty = Ty {
    decl: "complex(8)",
    tag: "c8",
};

/// The types that have support routines and module variables.
pub(crate) const TAGS: &[(&str, &str)] = &[
    ("real(4)", "r4"),
    ("real(8)", "r8"),
    ("integer(4)", "i4"),
    ("integer(8)", "i8"),
    ("complex(4)", "c4"),
    ("complex(8)", "c8"),
];

impl Ty {
    fn is_int(self) -> bool {
        self.tag.starts_with('i')
    }
    fn is_complex(self) -> bool {
        self.tag.starts_with('c')
    }

    /// A literal of this type for the value `(re, im)`.
    fn lit(self, re: f64, im: f64) -> String {
        fn real(v: f64, kind8: bool) -> String {
            let mut s = format!("{v}");
            if !s.contains('.') && !s.contains('e') {
                s.push_str(".0");
            }
            if kind8 {
                s.push_str("d0");
            }
            s
        }
        match self.tag {
            "r4" => real(re, false),
            "r8" => real(re, true),
            "i4" => format!("{}", re as i64),
            "i8" => format!("{}_8", re as i64),
            "c4" => format!("({},{})", real(re, false), real(im, false)),
            _ => format!("({},{})", real(re, true), real(im, true)),
        }
    }
}

/// Storage of the chain variable and the operands.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Storage {
    Local,
    Global,
}

/// Names of the variables an arithmetic template uses.
struct Names {
    x: String,
    a: String,
    b: String,
    i: String,
}

fn names(ty: Ty, st: Storage) -> Names {
    match st {
        Storage::Local => Names {
            x: "x".into(),
            a: "a".into(),
            b: "b".into(),
            i: "i".into(),
        },
        Storage::Global => Names {
            x: format!("g_{}x", ty.tag),
            a: format!("g_{}a", ty.tag),
            b: format!("g_{}b", ty.tag),
            i: "g_i".into(),
        },
    }
}

/// The template with the chain variable named and the operands as placeholders of their
/// arrays (`{a}` becomes `{g_r8a}` for module storage), for [`slots`].
fn fill(template: &str, n: &Names) -> String {
    template
        .replace("{x}", &n.x)
        .replace("{a}", &format!("{{{}}}", n.a))
        .replace("{b}", &format!("{{{}}}", n.b))
        .replace("{i}", &format!("{{{}}}", n.i))
}

fn repeat(unit: &str, times: usize) -> String {
    let mut s = String::new();
    for _ in 0..times {
        s.push_str(unit);
        if !unit.ends_with('\n') {
            s.push('\n');
        }
    }
    s
}

/// The reference body (the unit once) and the measured body (nine times), operands
/// expanded to one array element per use.
fn bodies(unit: &str) -> (String, String) {
    (
        slots(&repeat(unit, REF_UNITS)),
        slots(&repeat(unit, BODY_UNITS)),
    )
}

/// An arithmetic-style experiment: chain variable `x`, operands `a`, `b` (and the integer
/// `i`) read from run-time arrays, one element per use.
#[allow(clippy::too_many_arguments)]
fn chain(
    abop: AbOp,
    ty: Ty,
    st: Storage,
    init: [(f64, f64); 3],
    unit: &str,
    ops_per_unit: f64,
    subtract: Vec<(AbOp, f64)>,
    context: &str,
) -> Experiment {
    let n = names(ty, st);
    let decl = match st {
        Storage::Local => format!(
            "{t} :: x\n{}{}",
            arrays(ty.decl, &["a", "b"]),
            arrays("integer(4)", &["i"]),
            t = ty.decl
        ),
        Storage::Global => String::new(),
    };
    let setup = format!(
        "{x} = aug{tag}({})\n{}{}{}",
        ty.lit(init[0].0, init[0].1),
        set(ty.tag, &n.a, &ty.lit(init[1].0, init[1].1)),
        set(ty.tag, &n.b, &ty.lit(init[2].0, init[2].1)),
        set("i4", &n.i, "3"),
        x = n.x,
        tag = ty.tag,
    );
    let unit = fill(unit, &n);
    let (where_, sink) = match st {
        Storage::Local => ("local arrays", sink_array(ty.tag, "b")),
        Storage::Global => (
            "module arrays of a separately compiled module",
            String::new(),
        ),
    };
    let (ref_body, body) = bodies(&unit);
    Experiment {
        abop,
        context: format!(
            "{context}; {} chain `{}`; operands read at run time, one element per use, {where_}",
            ty.decl,
            plain(unit.trim()).replace('\n', "; ")
        ),
        decl,
        setup,
        ref_body,
        body,
        sink: format!("call augs{}({})\n{sink}", ty.tag, n.x),
        units: (BODY_UNITS - REF_UNITS) as f64,
        ops_per_unit,
        subtract,
        fit: None,
    }
}

fn ab(s: &str) -> AbOp {
    AbOp::from_mnemonic(s).unwrap_or_else(|| panic!("unknown AbOp {s}"))
}

/// The add AbOp of a type and storage (used by composite tests).
fn add_of(ty: Ty, st: Storage) -> AbOp {
    ab(&mnem('A', ty, st))
}

/// The mnemonic `{op}{type}{size}{storage}`.
fn mnem(op: char, ty: Ty, st: Storage) -> String {
    let (t, s) = match ty.tag {
        "r4" => ('R', 'S'),
        "r8" => ('R', 'D'),
        "i4" => ('I', 'S'),
        "i8" => ('I', 'D'),
        "c4" => ('C', 'S'),
        _ => ('C', 'D'),
    };
    let g = if st == Storage::Local { 'L' } else { 'G' };
    format!("{op}{t}{s}{g}")
}

fn arithmetic(out: &mut Vec<Experiment>) {
    for st in [Storage::Local, Storage::Global] {
        for ty in [R4, C4, I4, R8, I8, C8] {
            let add = add_of(ty, st);
            // Add/subtract: x = x + a; x = x - a.
            out.push(chain(
                add,
                ty,
                st,
                [(1.0, 0.5), (1.25, 0.25), (0.0, 0.0)],
                "{x} = {x} + {a}\n{x} = {x} - {a}",
                2.0,
                vec![],
                "dependent chain of alternating add and subtract",
            ));
            // Multiply: x = x * a; x = x * b with b about 1/a (odd integers stay odd).
            let (a, b) = if ty.is_int() {
                ((3.0, 0.0), (5.0, 0.0))
            } else if ty.is_complex() {
                ((0.6, 0.8), (0.6, -0.8))
            } else {
                ((1.25, 0.0), (0.8, 0.0))
            };
            out.push(chain(
                ab(&mnem('M', ty, st)),
                ty,
                st,
                [(7.0, 0.0), a, b],
                "{x} = {x} * {a}\n{x} = {x} * {b}",
                2.0,
                vec![],
                "dependent chain of multiplies",
            ));
            // Divide: x = a / x oscillates (a = 2, x = 1, 2, 1, ...).
            let (x0, a) = if ty.is_int() {
                ((7.0, 0.0), (7000021.0, 0.0))
            } else if ty.is_complex() {
                ((1.0, 1.0), (0.0, 2.0))
            } else {
                ((1.0, 0.0), (2.0, 0.0))
            };
            out.push(chain(
                ab(&mnem('D', ty, st)),
                ty,
                st,
                [x0, a, (1.0, 0.0)],
                "{x} = {a} / {x}",
                1.0,
                vec![],
                "dependent chain of divides",
            ));
            // Exponent with an integer exponent.
            let (unit, ctx) = if ty.is_int() {
                (
                    "{x} = ({a} - {x})**2",
                    "dependent chain x = (a - x)**2 minus one add",
                )
            } else {
                (
                    "{x} = ({a} - {x})**{i}",
                    "dependent chain x = (a - x)**i, variable integer exponent i = 3, minus one add",
                )
            };
            let a = if ty.is_int() { (3.0, 0.0) } else { (0.5, 0.1) };
            out.push(chain(
                ab(&mnem('E', ty, st)),
                ty,
                st,
                [(0.0, 0.0), a, (2.5, 0.0)],
                unit,
                1.0,
                vec![(add, 1.0)],
                ctx,
            ));
            // Exponent x**y.
            let (unit, ctx) = if ty.is_int() {
                (
                    "{x} = ({a} - {x})**{i}",
                    "dependent chain x = (a - x)**i, variable exponent i = 3, minus one add",
                )
            } else {
                (
                    "{x} = ({a} - {x})**{b}",
                    "dependent chain x = (a - x)**b, b = 2.5, minus one add",
                )
            };
            out.push(chain(
                ab(&mnem('X', ty, st)),
                ty,
                st,
                [(0.0, 0.0), a, (2.5, 0.0)],
                unit,
                1.0,
                vec![(add, 1.0)],
                ctx,
            ));
        }
    }
}

/// A logical experiment: `l = l .neqv. (...)` chains; the operands `m` (logical) and `a`,
/// `b` (of type `ty`) read from run-time arrays, one element per use.
fn logical(
    abop: AbOp,
    ty: Option<Ty>,
    st: Storage,
    expr: &str,
    subtract: Vec<(AbOp, f64)>,
    context: &str,
) -> Experiment {
    let (l, m, a, b) = match st {
        Storage::Local => (
            "l".to_string(),
            "m".to_string(),
            "a".to_string(),
            "b".to_string(),
        ),
        Storage::Global => (
            "g_l".to_string(),
            "g_m".to_string(),
            ty.map(|t| format!("g_{}a", t.tag)).unwrap_or_default(),
            ty.map(|t| format!("g_{}b", t.tag)).unwrap_or_default(),
        ),
    };
    let mut decl = String::new();
    let mut setup = format!("{l} = augl(.true.)\n{}", set("l", &m, ".false."));
    let mut sink = format!("call augsl({l})\n");
    if st == Storage::Local {
        decl.push_str(&format!("logical :: l\n{}", arrays("logical", &["m"])));
        sink.push_str(&sink_array("l", "m"));
        if let Some(t) = ty {
            decl.push_str(&arrays(t.decl, &["a", "b"]));
        }
    }
    if let Some(t) = ty {
        setup.push_str(&set(t.tag, &a, &t.lit(1.0, 0.5)));
        setup.push_str(&set(t.tag, &b, &t.lit(2.0, 0.5)));
    }
    let unit = expr
        .replace("{l}", &l)
        .replace("{m}", &format!("{{{m}}}"))
        .replace("{a}", &format!("{{{a}}}"))
        .replace("{b}", &format!("{{{b}}}"));
    let (ref_body, body) = bodies(&unit);
    Experiment {
        abop,
        context: format!(
            "{context}; `{}`; operands read at run time, one element per use",
            plain(&unit)
        ),
        decl,
        setup,
        ref_body,
        body,
        sink,
        units: (BODY_UNITS - REF_UNITS) as f64,
        ops_per_unit: 1.0,
        subtract,
        fit: None,
    }
}

fn compares(out: &mut Vec<Experiment>) {
    for st in [Storage::Local, Storage::Global] {
        let andl = if st == Storage::Local {
            ab("ANDL")
        } else {
            ab("ANDG")
        };
        out.push(logical(
            andl,
            None,
            st,
            "{l} = {l} .neqv. {m}",
            vec![],
            "dependent chain of .NEQV.",
        ));
        for ty in [R4, C4, I4, R8, I8, C8] {
            let m = mnem('C', ty, st);
            let Some(op) = AbOp::from_mnemonic(&m) else {
                continue;
            };
            let rel = if ty.is_complex() { "/=" } else { "<" };
            out.push(logical(
                op,
                Some(ty),
                st,
                &format!("{{l}} = {{l}} .neqv. ({{a}} {rel} {{b}})"),
                vec![(andl, 1.0)],
                "compare feeding a .NEQV. chain, minus one .NEQV.",
            ));
        }
    }
}

/// A custom local experiment on real(8) values (`x`, `y`, `z`, the operand `a`) with an
/// integer loop variable `j`; `{name}` placeholders in the bodies read array `name`, one
/// element per use ([`slots`]).
#[allow(clippy::too_many_arguments)]
fn custom(
    abop: AbOp,
    decl: &str,
    setup: &str,
    ref_body: &str,
    body: &str,
    units: f64,
    ops_per_unit: f64,
    subtract: Vec<(AbOp, f64)>,
    context: &str,
) -> Experiment {
    Experiment {
        abop,
        context: context.to_string(),
        decl: format!("real(8) :: x, y, z, a\ninteger :: j\n{decl}"),
        setup: format!(
            "x = augr8(1.0d0)\ny = augr8(2.0d0)\nz = augr8(3.0d0)\na = augr8(1.25d0)\n{setup}"
        ),
        ref_body: slots(ref_body),
        body: slots(body),
        sink: "call augsr8(x)\n".to_string(),
        units,
        ops_per_unit,
        subtract,
        fit: None,
    }
}

/// Control: DO loops, calls, IF, branch mispredictions, SELECT CASE, array elements.
fn control(out: &mut Vec<Experiment>) {
    loops(out);
    calls(out);
    branches(out);
    array_elements(out);
}

/// DO loops, measured indirectly.
fn loops(out: &mut Vec<Experiment>) {
    let ardl = ab("ARDL");
    // DO loops: indirect (least squares). One loop entry of m iterations around
    // x = x + a costs LOIN + m (LOOV + ARDL); six trip counts give the line.
    for (init, iter, step, ctx) in [
        ("LOIN", "LOOV", "", "unit step"),
        ("LOIX", "LOOX", ", {s}", "variable step s = 2"),
    ] {
        fit_points(
            out,
            &LOOP_TRIPS,
            ab(iter),
            vec![(ardl, 1.0)],
            &format!("DO loops ({ctx}, bounds read at run time at each loop entry) of m iterations around x = x + a; time per loop entry = {init} + m ({iter} + ARDL)"),
            |m| {
                // With step 2, 2m - 1 as the end value gives m iterations.
                let end = if step.is_empty() { m } else { 2 * m - 1 };
                let unit = format!("do j = 1, {{m1}}{step}\n  x = x + a\nend do\n");
                custom(
                    ab(init),
                    &arrays("integer", &["m1", "s"]),
                    &sets("i4", &[("m1", &end.to_string()), ("s", "2")]),
                    &repeat(&unit, REF_UNITS),
                    &repeat(&unit, BODY_UNITS),
                    (BODY_UNITS - REF_UNITS) as f64,
                    1.0,
                    vec![],
                    "",
                )
            },
        );
    }
}

/// Calls (without and with arguments) and the logical IF.
fn calls(out: &mut Vec<Experiment>) {
    let ardl = ab("ARDL");
    out.push(custom(
        ab("PROC"),
        "",
        "",
        &repeat("call augnop()\n", REF_UNITS),
        &repeat("call augnop()\n", BODY_UNITS),
        (BODY_UNITS - REF_UNITS) as f64,
        1.0,
        vec![],
        "call of an empty external subroutine without arguments (separately compiled)",
    ));
    out.push(custom(
        ab("ARGL"),
        "",
        "",
        &repeat("call augnop3(x, y, z)\n", REF_UNITS),
        &repeat("call augnop3(x, y, z)\n", BODY_UNITS),
        (BODY_UNITS - REF_UNITS) as f64,
        3.0,
        vec![(ab("PROC"), 1.0)],
        "call of an empty external subroutine with 3 real(8) arguments, minus one PROC, per argument",
    ));
    out.push(custom(
        ab("GOTO"),
        &arrays("logical", &["l"]),
        &set("l", "l", ".true."),
        &repeat("if ({l}) x = x + a\n", REF_UNITS),
        &repeat("if ({l}) x = x + a\n", BODY_UNITS),
        (BODY_UNITS - REF_UNITS) as f64,
        1.0,
        vec![(ardl, 1.0)],
        "logical IF (on a logical read at run time at each IF, always true) guarding x = x + a, minus one ARDL",
    ));
}

/// Branch mispredictions and SELECT CASE.
fn branches(out: &mut Vec<Experiment>) {
    let ardl = ab("ARDL");
    // Branch mispredictions as programs meet them: on a value loaded from memory (an
    // array element, a variable), whose load and compare the core must redo after the
    // flush before the next branch resolves (on a Zen 4 20 cycles a misprediction where a
    // condition computed in registers costs 15). Each unit stores a xorshift generator's
    // value in a ring of 16 and branches on the sign of the one stored eight units
    // before: random, mispredicted half the time (`ieor(k, iand(c, 1))`: the generator's
    // sign, with the reference's two operations); the reference stores the parity of a
    // counter instead (`iand(c, 1) - 1`, alternating, which predictors learn). The
    // arms increment elements of different arrays in memory (each copy its own element as
    // far as the compiler knows, one counter per array at run time), so the compiler
    // cannot turn the IF into a conditional move: it may not invent stores.
    let branch = |value: &str| {
        (1..=BODY_UNITS)
            .map(|u| {
                let (e1, e2) = (store_slot("v1", u), store_slot("v2", u));
                format!(
                    "k = ieor(k, ishft(k, 13))\nk = ieor(k, ishft(k, -17))\nk = ieor(k, ishft(k, 5))\n\
                     w(iand(c, 15) + 1) = {value}\nc = c + 1\n\
                     if (w(iand(c + 7, 15) + 1) < 0) then\n  {e1} = {e1} + 1\nelse\n  {e2} = {e2} + 1\nend if\n"
                )
            })
            .collect::<String>()
    };
    let mut e = custom(
        ab("BRMP"),
        &format!(
            "integer :: k, c, w(16)\n{}",
            arrays("integer", &["v1", "v2"])
        ),
        &format!(
            "k = augi4(123456789)\nc = 0\nw = augi4(0)\n{}",
            sets("i4", &[("v1", "0"), ("v2", "0")])
        ),
        &branch("iand(c, 1) - 1"),
        &branch("ieor(k, iand(c, 1))"),
        BODY_UNITS as f64,
        0.5,
        vec![],
        "IF on the sign of a value loaded from memory, stored there by a xorshift generator (mispredicted half the time), against the same IF on a stored counter parity (alternating, predicted), per misprediction",
    );
    e.sink = format!(
        "call augsr8(x)\ncall augsi4(k + c + sum(w))\n{}{}",
        sink_array("i4", "v1"),
        sink_array("i4", "v2")
    );
    out.push(e);
    // The same with arms that copy one scalar each, which an optimizing compiler may
    // turn into conditional moves (then nothing is mispredicted and the cost is not
    // detected). One unit per iteration: in a run of copies gcc 12 converts some of the
    // IFs and not others.
    let simple = |cond: &str| {
        format!(
            "k = ieor(k, ishft(k, 13))\nk = ieor(k, ishft(k, -17))\nk = ieor(k, ishft(k, 5))\n\
             c = c + 1\nif ({cond}) then\n  i1 = k\nelse\n  i2 = c\nend if\n"
        )
    };
    let mut e = custom(
        ab("BRMC"),
        "integer :: k, c, i1, i2\n",
        "k = augi4(123456789)\nc = 0\ni1 = augi4(1)\ni2 = augi4(2)\n",
        &simple("iand(c, 1) == 0"),
        &simple("k < 0"),
        1.0,
        0.5,
        vec![],
        "IF with a scalar copy in each arm on the sign of a xorshift generator against the same IF on the parity of a counter, per misprediction (0 when the compiler uses conditional moves)",
    );
    e.sink = "call augsr8(x)\ncall augsi4(i1 + i2)\n".to_string();
    out.push(e);
    let select = "select case ({k})\ncase (1)\n  x = x * a\ncase (2)\n  x = x + a\ncase default\n  x = x - a\nend select\n";
    out.push(custom(
        ab("GCOM"),
        &arrays("integer", &["k"]),
        &set("i4", "k", "2"),
        &repeat(select, REF_UNITS),
        &repeat(select, BODY_UNITS),
        (BODY_UNITS - REF_UNITS) as f64,
        1.0,
        vec![(ardl, 1.0)],
        "SELECT CASE on an integer read at run time at each SELECT (3 cases, the second taken) whose case is x = x + a, minus one ARDL",
    ));
}

/// Array elements at subscripts read at run time at each use.
fn array_elements(out: &mut Vec<Experiment>) {
    let ardl = ab("ARDL");
    // Arrays: element of a separately filled array at subscripts read from run-time
    // arrays, one element per use (a load, as a VOLATILE subscript was).
    let arr = format!(
        "real(8) :: v1(64), v2(8,8), v3(4,4,4), v4(4,4,2,2)\n{}",
        arrays("integer", &["i1", "i2", "i3"])
    );
    let arr_setup = format!(
        "call augfill(v1, 64)\ncall augfill(v2, 64)\ncall augfill(v3, 64)\ncall augfill(v4, 64)\n{}",
        sets("i4", &[("i1", "3"), ("i2", "2"), ("i3", "1")])
    );
    for (op, elem, sub, ctx) in [
        (
            "ARR1",
            "v1({i1})",
            vec![(ardl, 1.0)],
            "x = x + v1(i), subscript read at run time, minus one ARDL",
        ),
        (
            "ARR2",
            "v2({i1}, {i2})",
            vec![(ardl, 1.0)],
            "x = x + v2(i, j), subscripts read at run time, minus one ARDL",
        ),
        (
            "ARR3",
            "v3({i1}, {i2}, {i3})",
            vec![(ardl, 1.0)],
            "x = x + v3(i, j, k), subscripts read at run time, minus one ARDL",
        ),
        (
            "ARR4",
            "v4({i1}, {i2}, {i3}, {i3})",
            vec![(ardl, 1.0)],
            "x = x + v4(i, j, k, k), 4 dimensions, subscripts read at run time, minus one ARDL",
        ),
        (
            "IADD",
            "v1({i1} + 1)",
            vec![(ardl, 1.0), (ab("ARR1"), 1.0)],
            "x = x + v1(i + 1), subscript read at run time, minus one ARDL and one ARR1",
        ),
    ] {
        let unit = format!("x = x + {elem}\n");
        out.push(custom(
            ab(op),
            &arr,
            &arr_setup,
            &repeat(&unit, REF_UNITS),
            &repeat(&unit, BODY_UNITS),
            (BODY_UNITS - REF_UNITS) as f64,
            1.0,
            sub,
            &format!("{ctx}; the element load is off the add chain"),
        ));
    }
}

/// Intrinsic functions: the real ones, then the integer ones.
fn intrinsics(out: &mut Vec<Experiment>) {
    real_intrinsics(out);
    integer_intrinsics(out);
}

/// The real intrinsics, single and double precision: `(single mnemonic, double mnemonic,
/// unit, a, b, context)`.
const REAL_INTRINSICS: &[(&str, &str, &str, f64, f64, &str)] = &[
    (
        "LOGS",
        "LOGD",
        "{x} = log({x} + {a})",
        2.0,
        0.0,
        "x = log(x + a), a = 2",
    ),
    (
        "EXPS",
        "EXPD",
        "{x} = exp({x} - {a})",
        1.0,
        0.0,
        "x = exp(x - a), a = 1",
    ),
    (
        "SINS",
        "SIND",
        "{x} = sin({x} + {a})",
        0.5,
        0.0,
        "x = sin(x + a), a = 0.5",
    ),
    (
        "TANS",
        "TAND",
        "{x} = tan({a} - {x})",
        1.0,
        0.0,
        "x = tan(a - x), a = 1",
    ),
    (
        "SQRS",
        "SQRD",
        "{x} = sqrt({x} + {a})",
        2.0,
        0.0,
        "x = sqrt(x + a), a = 2",
    ),
    (
        "ABSS",
        "ABSD",
        "{x} = abs({a} - {x})",
        1.0,
        0.0,
        "x = abs(a - x), a = 1",
    ),
    (
        "MODS",
        "MODD",
        "{x} = mod({x} + {a}, {b})",
        1.3,
        7.0,
        "x = mod(x + a, b), a = 1.3, b = 7",
    ),
    (
        "MAXS",
        "MAXD",
        "{x} = max({x} - {a}, {b})",
        0.5,
        -1.0,
        "x = max(x - a, b)",
    ),
    (
        "ATNS",
        "ATND",
        "{x} = atan({x} + {a})",
        0.5,
        0.0,
        "x = atan(x + a), a = 0.5",
    ),
    (
        "HYPS",
        "HYPD",
        "{x} = tanh({x} + {a})",
        0.5,
        0.0,
        "x = tanh(x + a), a = 0.5",
    ),
    (
        "SGNS",
        "SGND",
        "{x} = sign({a} - {x}, {b})",
        1.0,
        -1.0,
        "x = sign(a - x, b)",
    ),
    (
        "ANIS",
        "ANID",
        "{x} = aint({a} - {x})",
        2.5,
        0.0,
        "x = aint(a - x), a = 2.5",
    ),
];

/// Chains of the real intrinsics in both kinds, minus one add each.
fn real_intrinsics(out: &mut Vec<Experiment>) {
    for &(s, d, unit, a, b, ctx) in REAL_INTRINSICS {
        for (m, ty) in [(s, R4), (d, R8)] {
            out.push(chain(
                ab(m),
                ty,
                Storage::Local,
                [(0.0, 0.0), (a, 0.0), (b, 0.0)],
                unit,
                1.0,
                vec![(add_of(ty, Storage::Local), 1.0)],
                &format!("dependent chain {ctx}, minus one add"),
            ));
        }
    }
}

/// The integer intrinsics and operations with literal operands: `(mnemonic, unit, a, b,
/// whether one add is subtracted, context)`.
const INTEGER_INTRINSICS: &[(&str, &str, f64, f64, bool, &str)] = &[
    (
        "ABSI",
        "{x} = abs({a} - {x})",
        5.0,
        0.0,
        true,
        "x = abs(a - x)",
    ),
    (
        "MODI",
        "{x} = mod({x} + {a}, {b})",
        13.0,
        1000.0,
        true,
        "x = mod(x + a, b)",
    ),
    (
        "MAXI",
        "{x} = max({x} - {a}, {b})",
        1.0,
        -5.0,
        true,
        "x = max(x - a, b)",
    ),
    (
        "SGNI",
        "{x} = sign({a} - {x}, {b})",
        5.0,
        -1.0,
        true,
        "x = sign(a - x, b)",
    ),
    // An add between the exclusive ors: a chain of exclusive ors alone is reassociated
    // (GCC combines the operands off the chain, one XOR on it per four).
    (
        "BITI",
        "{x} = ieor({x}, {a}) + {b}",
        5.0,
        0.0,
        true,
        "x = ieor(x, a) + b",
    ),
    // Constant operands: the compiler sees the literal and strength-reduces.
    (
        "DIC2",
        "{x} = {x} / 2 + {a}",
        8.0,
        0.0,
        true,
        "x = x / 2 + a (divisor a literal power of two)",
    ),
    (
        "DICN",
        "{x} = {x} / 3 + {a}",
        6.0,
        0.0,
        true,
        "x = x / 3 + a (divisor a literal)",
    ),
    (
        "MOC2",
        "{x} = mod({x} + {a}, 8)",
        3.0,
        0.0,
        true,
        "x = mod(x + a, 8) (literal power of two)",
    ),
    (
        "MOCN",
        "{x} = mod({x} + {a}, 7)",
        3.0,
        0.0,
        true,
        "x = mod(x + a, 7) (literal)",
    ),
    ("PW2I", "{x} = 2**{x} - {a}", 2.0, 0.0, true, "x = 2**x - a"),
];

/// A real division by a literal power of two and a square by the real literal 2.0,
/// which optimizing compilers turn into multiplies.
fn real_literal_operands(out: &mut Vec<Experiment>) {
    out.push(chain(
        ab("DRC2"),
        R8,
        Storage::Local,
        [(0.0, 0.0), (1.0, 0.0), (0.0, 0.0)],
        "{x} = {x} / 2.0d0 + {a}",
        1.0,
        vec![(add_of(R8, Storage::Local), 1.0)],
        "dependent chain x = x / 2.0d0 + a (divisor a literal power of two), minus one add",
    ));
    out.push(chain(
        ab("XRE2"),
        R8,
        Storage::Local,
        [(0.0, 0.0), (0.25, 0.0), (0.5, 0.0)],
        "{x} = {x}**2.0d0 * {a} + {b}",
        1.0,
        vec![
            (ab("MRDL"), 1.0),
            (add_of(R8, Storage::Local), 1.0),
        ],
        "dependent chain x = x**2.0d0 * a + b (exponent the real literal 2), minus a multiply and an add",
    ));
}

/// Chains of the integer intrinsics.
fn integer_intrinsics(out: &mut Vec<Experiment>) {
    for &(m, unit, a, b, minus_add, ctx) in INTEGER_INTRINSICS {
        let sub = if minus_add {
            vec![(ab("AISL"), 1.0)]
        } else {
            vec![]
        };
        let tail = if minus_add { ", minus one add" } else { "" };
        out.push(chain(
            ab(m),
            I4,
            Storage::Local,
            [(1.0, 0.0), (a, 0.0), (b, 0.0)],
            unit,
            1.0,
            sub,
            &format!("dependent chain {ctx}{tail}"),
        ));
    }
}

/// An experiment with its own declarations: `unit` repeated (its `{name}` placeholders
/// read array `name`, one element per use, [`slots`]), `sink` after the loop.
#[allow(clippy::too_many_arguments)]
fn direct(
    abop: AbOp,
    decl: &str,
    setup: &str,
    unit: &str,
    sink: &str,
    ops_per_unit: f64,
    subtract: Vec<(AbOp, f64)>,
    context: &str,
) -> Experiment {
    Experiment {
        abop,
        context: format!("{context}; `{}`", plain(unit.trim()).replace('\n', "; ")),
        decl: decl.to_string(),
        setup: setup.to_string(),
        ref_body: bodies(unit).0,
        body: bodies(unit).1,
        sink: sink.to_string(),
        units: (BODY_UNITS - REF_UNITS) as f64,
        ops_per_unit,
        subtract,
        fit: None,
    }
}

/// The points of an indirect measurement: `make(x)` builds the experiment of count `x`
/// (its AbOp is the intercept's); each gets the fit and the context
/// `indirect (least squares over N experiments): {what}` with the counts listed.
fn fit_points(
    out: &mut Vec<Experiment>,
    xs: &[i64],
    slope: AbOp,
    slope_subtract: Vec<(AbOp, f64)>,
    what: &str,
    make: impl Fn(i64) -> Experiment,
) {
    let list: Vec<String> = xs.iter().map(|x| x.to_string()).collect();
    for &x in xs {
        let mut e = make(x);
        e.context = format!(
            "indirect (least squares over {} experiments): {what}; counts {}",
            xs.len(),
            list.join(", ")
        );
        e.fit = Some(FitPoint {
            x: x as f64,
            slope,
            slope_subtract: slope_subtract.clone(),
        });
        out.push(e);
    }
}

/// Stores, transfers and logical stores.
fn stores(out: &mut Vec<Experiment>) {
    for st in [Storage::Local, Storage::Global] {
        let where_ = match st {
            Storage::Local => "local",
            Storage::Global => "module",
        };
        for ty in [R4, C4, I4, R8, I8, C8] {
            let init = [(1.0, 0.5), (1.25, 0.25), (2.0, 0.0)];
            out.push(chain(
                ab(&mnem('S', ty, st)),
                ty,
                st,
                init,
                &format!("{{b}} = {}", ty.lit(3.0, 1.0)),
                1.0,
                vec![],
                &format!("store of a literal into an element of a {where_} array (the store alone, forced to memory: a different element at each store, the array read after the loop; in the arithmetic experiments the store of a register result is part of the operation)"),
            ));
            out.push(chain(
                ab(&mnem('T', ty, st)),
                ty,
                st,
                init,
                "{b} = {a}",
                1.0,
                vec![],
                &format!("memory-to-memory transfer b = a between elements of {where_} arrays (a different element at each use)"),
            ));
        }
        let (op, ctx) = match st {
            Storage::Local => (
                "SLGL",
                "store of a logical into an element of a local array (a different element at each store)",
            ),
            Storage::Global => (
                "SLGG",
                "store of a logical into an element of a module array (a different element at each store)",
            ),
        };
        out.push(logical(ab(op), None, st, "{m} = {l}", vec![], ctx));
    }
}

/// Complex intrinsics and coercions, conversions.
fn complex_and_conversions(out: &mut Vec<Experiment>) {
    let acdl = ab("ACDL");
    for (op, unit, a, ctx) in [
        (
            "LOGC",
            "{x} = log({x} + {a})",
            (2.0, 1.0),
            "x = log(x + a), a = (2,1)",
        ),
        (
            "EXPC",
            "{x} = exp({a} - {x})",
            (0.0, 0.5),
            "x = exp(a - x), a = (0,0.5)",
        ),
        (
            "SINC",
            "{x} = sin({a} - {x})",
            (0.5, 0.25),
            "x = sin(a - x), a = (0.5,0.25)",
        ),
        (
            "SQRC",
            "{x} = sqrt({x} + {a})",
            (2.0, 1.0),
            "x = sqrt(x + a), a = (2,1)",
        ),
    ] {
        out.push(chain(
            ab(op),
            C8,
            Storage::Local,
            [(0.0, 0.0), a, (0.0, 0.0)],
            unit,
            1.0,
            vec![(acdl, 1.0)],
            &format!("dependent chain {ctx}, minus one add"),
        ));
    }
    out.push(chain(
        ab("ABSC"),
        C8,
        Storage::Local,
        [(0.0, 0.0), (1.0, 0.5), (0.0, 0.0)],
        "{x} = abs({x} - {a})",
        1.0,
        vec![(acdl, 1.0), (ab("CLPX"), 1.0)],
        "dependent chain x = abs(x - a), a = (1,0.5), the real result stored back into complex x, minus one add and one CLPX",
    ));
    // The same in single precision: the C library's `cabsf`, not `cabs`.
    out.push(chain(
        ab("CABS"),
        C4,
        Storage::Local,
        [(0.0, 0.0), (1.0, 0.5), (0.0, 0.0)],
        "{x} = abs({x} - {a})",
        1.0,
        vec![(ab("ACSL"), 1.0), (ab("CLPX"), 1.0)],
        "dependent chain x = abs(x - a), a = (1,0.5), complex(4), the real result stored back into complex x, minus one add and one CLPX",
    ));
    let c8 = format!(
        "complex(8) :: x\nreal(8) :: y\ninteger(4) :: k\ninteger(8) :: k8\n{}{}{}{}",
        arrays("complex(8)", &["c"]),
        arrays("real(8)", &["r"]),
        arrays("real(4)", &["r4"]),
        arrays("integer(4)", &["i4"])
    );
    let setup = format!(
        "x = augc8((1.0d0,0.5d0))\ny = augr8(1.0d0)\nk = augi4(1)\nk8 = augi8(1_8)\n{}{}{}{}",
        set("c8", "c", "(0.25d0,0.5d0)"),
        set("r8", "r", "3.25d0"),
        set("r4", "r4", "0.5"),
        set("i4", "i4", "3")
    );
    let (ardl, sc8, sr8) = (ab("ARDL"), "call augsc8(x)\n", "call augsr8(y)\n");
    for (op, unit, sink, sub, ctx) in [
        (
            "CLPX",
            "x = x + cmplx({r}, {r}, kind=8)",
            sc8,
            acdl,
            "complex(8) chain adding CMPLX of real(8) operands read at run time, minus one complex add",
        ),
        (
            "REAL",
            "y = y + real({c}, 8)",
            sr8,
            ardl,
            "real(8) chain adding the real part of a complex(8) read at run time, minus one add",
        ),
        (
            "IMAG",
            "y = y + aimag({c})",
            sr8,
            ardl,
            "real(8) chain adding the imaginary part of a complex(8) read at run time, minus one add",
        ),
        (
            "CONJ",
            "x = conjg(x) + {c}",
            sc8,
            acdl,
            "complex(8) chain x = conjg(x) + c, minus one complex add",
        ),
        (
            "CVIR",
            "y = y + {i4}",
            sr8,
            ardl,
            "real(8) chain adding a default integer read at run time (mixed mode), minus one add",
        ),
        (
            "CVRI",
            "k = k + int({r})",
            "call augsi4(k)\n",
            ab("AISL"),
            "default-integer chain adding INT of a real(8) read at run time, minus one integer add",
        ),
        (
            "CVSD",
            "y = y + {r4}",
            sr8,
            ardl,
            "real(8) chain adding a real(4) read at run time (mixed precision), minus one add",
        ),
        (
            "CVII",
            "k8 = k8 + {i4}",
            "call augsi8(k8)\n",
            ab("AIDL"),
            "integer(8) chain adding a default integer read at run time (mixed kinds), minus one integer(8) add",
        ),
    ] {
        out.push(direct(
            ab(op),
            &c8,
            &setup,
            unit,
            sink,
            1.0,
            vec![(sub, 1.0)],
            ctx,
        ));
    }
}

/// Characters, ALLOCATE, array syntax and I/O.
fn characters_memory_io(out: &mut Vec<Experiment>) {
    let decl = format!(
        "{}logical :: l\ninteger :: k\n",
        arrays("character(len=16)", &["s1", "s2", "s3"])
    );
    let setup = format!(
        "{}l = augl(.true.)\nk = augi4(1)\n",
        sets(
            "ch",
            &[
                ("s1", "'abcdefgh'"),
                ("s2", "'ponmlkjihgfedcba'"),
                ("s3", "'ponmlkjihgfedcba'"),
            ]
        )
    );
    let sink_s3 = sink_array("ch", "s3");
    for (op, unit, sink, sub, ctx) in [
        (
            "TCHR",
            "{s3} = {s2}",
            sink_s3.as_str(),
            vec![],
            "assignment between CHARACTER(16) array elements (read and written in memory at each use)",
        ),
        (
            "CCHR",
            "l = l .neqv. ({s1} < {s2})",
            "call augsl(l)\n",
            vec![(ab("ANDL"), 1.0)],
            "comparison of CHARACTER(16) values read at run time feeding a .NEQV. chain, minus one .NEQV.",
        ),
        (
            "CCAT",
            "{s3} = {s1}(1:8) // {s2}(9:16)",
            sink_s3.as_str(),
            vec![(ab("TCHR"), 1.0)],
            "concatenation of two 8-character substrings assigned to a CHARACTER(16), minus one TCHR",
        ),
        (
            "CHIN",
            "k = k + len_trim({s1})",
            "call augsi4(k)\n",
            vec![(ab("AISL"), 1.0)],
            "LEN_TRIM of a CHARACTER(16) read at run time holding 8 characters, added to an integer chain, minus one integer add",
        ),
    ] {
        out.push(direct(ab(op), &decl, &setup, unit, sink, 1.0, sub, ctx));
    }
    // The call between the statements may use the array, so that the compiler cannot
    // drop the pair of statements (LLVM removes an allocation nothing reads).
    out.push(direct(
        ab("ALLO"),
        &arrays("integer", &["m1"]),
        &set("i4", "m1", "64"),
        "allocate (g_w({m1}))\ncall augnop()\ndeallocate (g_w)",
        "",
        2.0,
        vec![(ab("PROC"), 1.0)],
        "ALLOCATE then DEALLOCATE of a real(8) module array of 64 elements (size read at run time), with a call of an empty external subroutine between them, minus one PROC, per statement",
    ));
    // Array syntax: indirect. One statement of m elements costs ALIN + m (ALOV + 2 ARR1 +
    // ARDL) under the counting rules.
    fit_points(
        out,
        &ARRAY_LENGTHS,
        ab("ALOV"),
        vec![(ab("ARR1"), 2.0), (ab("ARDL"), 1.0)],
        "whole-array statements v(1:m) = v(1:m) + a of m elements (bound read at run time); time per statement = ALIN + m (ALOV + 2 ARR1 + ARDL)",
        |m| {
            direct(
                ab("ALIN"),
                &format!("real(8) :: v(128), a\n{}", arrays("integer", &["m1"])),
                &format!(
                    "call augfill(v, 128)\na = augr8(1.25d0)\n{}",
                    set("i4", "m1", &m.to_string())
                ),
                "v(1:{m1}) = v(1:{m1}) + a",
                "call augsvr8(v, 128)\n",
                1.0,
                vec![],
                "",
            )
        },
    );
    // I/O: indirect. A formatted internal WRITE of n items costs IOST + n IOIT.
    fit_points(
        out,
        &IO_ITEMS,
        ab("IOIT"),
        vec![],
        "formatted internal WRITE of n integers read at run time with format (8i8); time per statement = IOST + n IOIT",
        |n| {
            direct(
                ab("IOST"),
                "character(len=80) :: buf\ninteger :: k\n",
                "k = augi4(12345)\nbuf = ' '\n",
                &format!("write (buf, '(8i8)') {}", vec!["k"; n as usize].join(", ")),
                "call augsch(buf)\n",
                1.0,
                vec![],
                "",
            )
        },
    );
    // Reals in text: each item written and read back through F and ES edit
    // descriptors (a decimal conversion each way), less the two statements.
    let fmt = "'(4f12.4,4es14.6)'";
    let ys: Vec<String> = (1..=8).map(|k| format!("y({k})")).collect();
    out.push(direct(
        ab("IORF"),
        "character(len=120) :: buf\nreal(8) :: x\nreal(8) :: y(8)\n",
        "x = augr8(3.14159d0)\nbuf = ' '\n",
        &format!(
            "write (buf, {fmt}) {}\nread (buf, {fmt}) {}",
            ["x"; 8].join(", "),
            ys.join(", ")
        ),
        "call augsr8(y(1))\n",
        16.0,
        vec![(ab("IOST"), 2.0)],
        "8 real(8) items read at run time written to an internal file and read back with formats F12.4 and ES14.6, time per item less one IOST per statement",
    ));
    // The same one way at a time (a write converts binary to decimal, about three times
    // a read's parse), over magnitudes a program prints (3.1, 250, 0.0012, 1.2e5).
    let mixed = "x(1) = augr8(3.14159d0)\nx(2) = x(1) * 79.62d0\nx(3) = x(1) * 3.93d-4\n\
                 x(4) = x(1) * 39298.7d0\nx(5:8) = x(1:4)\nbuf = ' '\n";
    let xs: Vec<String> = (1..=8).map(|k| format!("x({k})")).collect();
    out.push(direct(
        ab("IOFW"),
        "character(len=120) :: buf\nreal(8) :: x(8)\n",
        mixed,
        &format!("write (buf, {fmt}) {}", xs.join(", ")),
        "call augsch(buf)\n",
        8.0,
        vec![(ab("IOST"), 1.0)],
        "8 real(8) items of four magnitudes read at run time written to an internal file with formats F12.4 and ES14.6, time per item less the statement",
    ));
    out.push(direct(
        ab("IOFR"),
        "character(len=120) :: buf\nreal(8) :: x(8), y(8)\n",
        &format!("{mixed}write (buf, {fmt}) {}\n", xs.join(", ")),
        &format!("read (buf, {fmt}) {}", ys.join(", ")),
        "call augsr8(y(1))\n",
        8.0,
        vec![(ab("IOST"), 1.0)],
        "8 real(8) items of four magnitudes read back from an internal file with formats F12.4 and ES14.6, time per item less the statement",
    ));
    // A format's strings, skips and tabs, each processed as an item is: seven around one
    // integer, less the statement and the integer.
    out.push(direct(
        ab("IOED"),
        "character(len=80) :: buf\ninteger :: k\n",
        "k = augi4(12345)\nbuf = ' '\n",
        "write (buf, '(''ab'', 2x, ''cd'', i6, ''ef'', t30, ''gh'', 1x)') k",
        "call augsch(buf)\n",
        7.0,
        vec![(ab("IOST"), 1.0), (ab("IOIT"), 1.0)],
        "an integer read at run time written to an internal file with a format of four strings, two skips and a tab, time per string, skip or tab less the statement and the integer",
    ));
    // A list-directed statement: no format to parse. One integer, less the integer.
    out.push(direct(
        ab("IOSL"),
        "character(len=80) :: buf\ninteger :: k\n",
        "k = augi4(12345)\nbuf = ' '\n",
        "write (buf, *) k",
        "call augsch(buf)\n",
        1.0,
        vec![(ab("IOIT"), 1.0)],
        "an integer read at run time written list-directed to an internal file, time per statement less the integer",
    ));
    // The same list-directed: the library's round-trip precision (a double's 17 digits).
    out.push(direct(
        ab("IORL"),
        "character(len=400) :: buf\nreal(8) :: x\nreal(8) :: y(8)\n",
        "x = augr8(3.14159d0)\nbuf = ' '\n",
        &format!(
            "write (buf, *) {}\nread (buf, *) {}",
            ["x"; 8].join(", "),
            ys.join(", ")
        ),
        "call augsr8(y(1))\n",
        16.0,
        vec![(ab("IOSL"), 2.0)],
        "8 real(8) items read at run time written list-directed to an internal file and read back list-directed, time per item less one list-directed statement (IOSL) each",
    ));
    // The random number generator: a number made (an array of 64 per call, less the
    // call) and the state reseeded from an array (less the call).
    out.push(direct(
        ab("RNGN"),
        "real(8) :: v(64)\n",
        "v = 0\n",
        "call random_number(v)",
        "call augsr8(v(64))\n",
        64.0,
        vec![(ab("PROC"), 1.0), (ab("ARGL"), 1.0)],
        "RANDOM_NUMBER of a real(8) array of 64 elements, time per number less the call",
    ));
    out.push(direct(
        ab("RSED"),
        "integer :: nseed\ninteger, allocatable :: seed(:)\n",
        "call random_seed(size=nseed)\nallocate (seed(nseed))\nseed = 12345\n",
        "call random_seed(put=seed)",
        "call augsi4(nseed)\n",
        1.0,
        vec![(ab("PROC"), 1.0), (ab("ARGL"), 1.0)],
        "RANDOM_SEED(PUT=) of the generator's whole seed array, less the call",
    ));
    // MATMUL: the library routine's rate per multiply-add on 100 x 100 real(8)
    // matrices (L2-resident, above gfortran's inline limit of 30).
    out.push(direct(
        ab("MMUL"),
        "real(8) :: a(100, 100), b(100, 100), c(100, 100)\n",
        "call augfill(a, 10000)\ncall augfill(b, 10000)\n",
        "c = matmul(a, b)",
        "call augsr8(c(1, 1))\n",
        1.0e6,
        vec![],
        "c = matmul(a, b) of 100 x 100 real(8) matrices (L2-resident), time per multiply-add",
    ));
}

/// Every experiment, in a fixed order (composite tests after the parameters they subtract
/// is not required: parameters are resolved after all are measured).
pub fn catalogue() -> Vec<Experiment> {
    let mut out = Vec::new();
    arithmetic(&mut out);
    compares(&mut out);
    control(&mut out);
    intrinsics(&mut out);
    stores(&mut out);
    complex_and_conversions(&mut out);
    characters_memory_io(&mut out);
    real_literal_operands(&mut out);
    out
}

/// Whether experiment `e` contributes to the parameter `op` (directly, or as a point of the
/// indirect measurement whose intercept or slope is `op`).
pub fn measures(e: &Experiment, op: AbOp) -> bool {
    e.abop == op || e.fit.as_ref().is_some_and(|f| f.slope == op)
}

/// The parameters an experiment's result depends on.
fn needs(e: &Experiment) -> impl Iterator<Item = AbOp> + '_ {
    e.subtract.iter().map(|d| d.0).chain(
        e.fit
            .iter()
            .flat_map(|f| f.slope_subtract.iter().map(|d| d.0)),
    )
}

/// The experiments for the given mnemonics (case-insensitive), plus the ones they subtract,
/// transitively; unknown or unmeasured names are returned in the error.
pub fn select(all: &[Experiment], names: &[String]) -> Result<Vec<Experiment>, Vec<String>> {
    let mut want: Vec<AbOp> = Vec::new();
    let mut bad = Vec::new();
    for n in names {
        match AbOp::from_mnemonic(n.trim()) {
            Some(op) if all.iter().any(|e| measures(e, op)) => want.push(op),
            _ => bad.push(n.clone()),
        }
    }
    if !bad.is_empty() {
        return Err(bad);
    }
    let mut i = 0;
    while i < want.len() {
        let op = want[i];
        for e in all.iter().filter(|e| measures(e, op)) {
            for d in needs(e).chain([e.abop]) {
                if !want.contains(&d) {
                    want.push(d);
                }
            }
        }
        i += 1;
    }
    Ok(all
        .iter()
        .filter(|e| want.iter().any(|&op| measures(e, op)))
        .cloned()
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A chain of one associative, commutative operator alone is reassociated by an
    /// optimizing compiler (GCC put one XOR on the chain per four and BITI read a quarter
    /// of a cycle): BITI's chain puts an add between its exclusive ors and subtracts it.
    #[test]
    fn the_exclusive_or_chain_alternates_with_an_add() {
        let all = catalogue();
        let biti = all.iter().find(|e| e.abop == ab("BITI")).unwrap();
        let unit = biti.body.lines().next().unwrap_or("");
        assert!(unit.contains("ieor(") && unit.contains(") +"), "{unit}");
        assert!(
            biti.subtract
                .iter()
                .any(|(op, k)| *op == ab("AISL") && *k == 1.0),
            "BITI must subtract the add it chains: {:?}",
            biti.subtract
        );
    }

    #[test]
    fn every_abop_is_measured_or_marked_and_dependencies_exist() {
        let all = catalogue();
        let mut seen = std::collections::HashSet::new();
        for e in &all {
            // Only the points of an indirect measurement share an AbOp.
            assert!(
                seen.insert(e.abop) || e.fit.is_some(),
                "duplicate experiment for {}",
                e.abop
            );
            if let Some(f) = &e.fit {
                seen.insert(f.slope);
            }
            assert!(e.units > 0.0 && e.ops_per_unit > 0.0);
            assert!(!e.context.is_empty());
            for d in needs(e) {
                assert!(
                    all.iter().any(|x| measures(x, d)),
                    "{} subtracts {} which is not measured",
                    e.abop,
                    d
                );
                assert_ne!(d, e.abop);
            }
        }
        // Every AbOp of the catalogue has an experiment or a reason why it cannot.
        for &op in augur_ir::abop::ALL {
            let marked = NOT_MEASURABLE.iter().any(|m| m.0 == op);
            assert!(
                seen.contains(&op) != marked,
                "{op}: measured {}",
                seen.contains(&op)
            );
        }
        // Indirect measurements: at least three points with distinct counts, one context.
        for op in ["LOIN", "LOIX", "ALIN", "IOST"] {
            let pts: Vec<&Experiment> = all.iter().filter(|e| e.abop == ab(op)).collect();
            assert!(pts.len() >= 3, "{op}");
            let mut xs: Vec<f64> = pts.iter().map(|e| e.fit.as_ref().unwrap().x).collect();
            xs.dedup();
            assert_eq!(xs.len(), pts.len());
            assert!(pts[0].context.starts_with("indirect (least squares over"));
        }
    }

    #[test]
    fn literals() {
        assert_eq!(R8.lit(2.0, 0.0), "2.0d0");
        assert_eq!(R4.lit(1.25, 0.0), "1.25");
        assert_eq!(I8.lit(3.0, 0.0), "3_8");
        assert_eq!(C8.lit(0.6, -0.8), "(0.6d0,-0.8d0)");
        assert_eq!(C4.lit(1.0, 1.0), "(1.0,1.0)");
    }

    #[test]
    fn body_repeats_the_unit_and_reference_once() {
        let all = catalogue();
        let e = all.iter().find(|e| e.abop == AbOp::ARDL).unwrap();
        assert_eq!(e.ref_body, "x = x + a(aj + 8)\nx = x - a(aj + 16)\n");
        assert_eq!(e.body.matches("x = x + a(aj + ").count(), 9);
        assert!(e.body.contains("x = x - a(aj + 144)"));
        assert!(
            e.context.contains("`x = x + a; x = x - a`"),
            "{}",
            e.context
        );
        assert_eq!(e.units, 8.0);
        assert_eq!(e.ops_per_unit, 2.0);
        let g = all.iter().find(|e| e.abop == AbOp::MRDG).unwrap();
        assert!(g.body.contains("g_r8x = g_r8x * g_r8a(aj + 8)"));
        assert!(g.decl.is_empty());
    }

    /// Each use of an operand array reads its own element; a store writes an element
    /// that is the same at run time but not provably.
    #[test]
    fn operands_take_one_element_per_use_and_stores_one_element() {
        assert_eq!(
            slots("x = x + {a}\nx = x - {a} * {b}\n"),
            "x = x + a(aj + 8)\nx = x - a(aj + 16) * b(aj + 8)\n"
        );
        assert_eq!(
            slots("{b} = 3.0\n  {b} = {a}\n"),
            "b(aj + az*1 + 1) = 3.0\n  b(aj + az*2 + 1) = a(aj + 8)\n"
        );
        let all = catalogue();
        let srsl = all.iter().find(|e| e.abop == ab("SRSL")).unwrap();
        assert_eq!(srsl.body.matches("b(aj + az*").count(), 9);
        assert!(srsl.sink.contains("call augsvr4(b, "), "{}", srsl.sink);
    }

    #[test]
    fn select_adds_dependencies() {
        let all = catalogue();
        let sel = select(&all, &["LOIN".to_string()]).unwrap();
        let ops: Vec<AbOp> = sel.iter().map(|e| e.abop).collect();
        assert!(ops.contains(&AbOp::LOIN));
        assert!(sel.iter().any(|e| measures(e, AbOp::LOOV)));
        assert!(ops.contains(&AbOp::ARDL));
        assert_eq!(ops.iter().filter(|&&o| o == AbOp::LOIN).count(), 6);
        // Selecting a slope brings its fit's points and what the slope subtracts.
        let sel = select(&all, &["IOIT".to_string(), "ALOV".to_string()]).unwrap();
        assert!(sel.iter().any(|e| e.abop == AbOp::IOST));
        assert!(sel.iter().any(|e| e.abop == AbOp::ARR1));
        assert_eq!(
            select(&all, &["NOPE".to_string(), "SQRI".to_string()]),
            Err(vec!["NOPE".to_string(), "SQRI".to_string()])
        );
    }
}
