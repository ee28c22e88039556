//! Branch simulation: a second instrumented run that feeds every conditional branch's
//! outcomes to a set of reference branch predictors, so that mispredictions are
//! counted from the outcome *sequence* rather than bounded from the block counts.
//!
//! The counting run knows how often each arm of an IF ran, which bounds the
//! mispredictions (`n − max n_s`, right for outcomes independent of each other) but
//! cannot tell `mod(i, 2) == 0` (learned by any history predictor) from a comparison
//! of random keys (mispredicted half the time). The branch run wraps the condition of
//! every block IF, ELSE IF, logical IF and DO WHILE in a function that passes it
//! through and records it (`IF (augur_brf(7, a(j) > x)) THEN`), records the arm each
//! SELECT CASE enters and the selector of each computed GOTO (multiway outcomes: a
//! predictor remembers the last outcome in its context), and records the trip
//! count of every counted DO loop at entry. The runtime simulates, per branch, the
//! predictors below (2^16 two-bit counters each: the order of a real core's tables, so
//! that a long pseudo-random outcome sequence is not memorized as a 2^20-entry table
//! would) and keeps each one's mispredictions:
//!
//! * bimodal: one counter per branch (the bias);
//! * gshare over the last 8, 16, 32 and 64 outcomes of all recorded two-way
//!   branches (for a multiway branch: over a path history that also holds the
//!   multiway outcomes, as an indirect-target predictor's);
//! * local: the branch's own last 16 outcomes.
//!
//! A branch's mispredictions are the fewest of any predictor: an ideal chooser, the
//! way a TAGE predictor picks the history length that predicts a branch best. A DO
//! loop of at most 32 iterations an entry has each of its decisions (the guard, each
//! backward jump) simulated: a two-bit counter per iteration number, in the contexts of
//! the loop alone, its last two trip counts, and 4 and 8 outcomes of a global history
//! that holds the DO loops' jumps too, the fewest mispredictions of any. A constant
//! trip count is learned, and so is a repeating sequence (a triangular nest's inner
//! loop); Gauss-Jordan's `do j = p+1, 5` (trips 4, 4, 4, 4, 3, ...) misses 0.2 an
//! entry, where a Zen 4 guest spends 0.3 `BRMP` an entry on it
//! (`measurements/zen4-2026-12-05/s87/gj.f90`; longer histories learn it whole);
//! random trips of 1 to 6 miss 0.96 an entry (the counters where the loop leaves a
//! third or half of the time flip), where the same guest spends 0.95-1.05 `BRMP` an
//! entry more than with the same trips in a learned order (`tc2.f90` there). A longer
//! loop's exit is mispredicted at
//! an entry whose trip count differs from the one that followed the same two previous
//! trip counts (else the previous one). What is simulated is a
//! property of the program's outcome sequence, not of one machine; the machine
//! profile prices each misprediction (`BRMP`, `BRMC`). A comparison of a loop's index
//! with its start or end (`if (1 < i)` in `do i = 1, n`) is not recorded: it switches at
//! the loop's first or last iteration, which the predictors learn (`decided`).

use crate::instrument::{calls_user_function, do_statement, use_module_edits, Edit, Plan};
use augur_ir::{BinOp, BlockKind, ExprKind, LoopKind, Program, Stmt, StmtKind, Unit, UnitKind};
use augur_program_profile::BranchKind;
use std::path::Path;

mod decided;

/// Name of the module of the branch run.
pub const BRANCH_MODULE: &str = "augur_branch_mod";

/// Predictors the runtime simulates (the columns of a branch's mispredictions).
pub const PREDICTORS: [&str; 6] = [
    "bimodal",
    "gshare-8",
    "gshare-16",
    "gshare-32",
    "gshare-64",
    "local-16",
];

/// One recorded conditional branch.
#[derive(Debug, Clone, PartialEq)]
pub struct BranchProbe {
    /// Unit index in [`Program::units`].
    pub unit: usize,
    /// The block whose last statement is the branch (the loop header of a DO WHILE).
    pub block: u32,
    /// Original file and line.
    pub file: u32,
    /// Original line.
    pub line: u32,
    /// What it is.
    pub kind: BranchKind,
}

impl BranchProbe {
    /// The probe of statement `st` of unit `unit`, ending block `block`.
    fn of(unit: usize, block: u32, st: &Stmt, kind: BranchKind) -> BranchProbe {
        BranchProbe {
            unit,
            block,
            file: st.span.start.file.0,
            line: st.span.start.line,
            kind,
        }
    }
}

/// One counted DO loop whose trip count is recorded at entry.
#[derive(Debug, Clone, PartialEq)]
pub struct LoopProbe {
    /// Unit index in [`Program::units`].
    pub unit: usize,
    /// The loop's header block (its test).
    pub block: u32,
    /// Original file.
    pub file: u32,
    /// Original line of the DO statement.
    pub line: u32,
}

/// The instrumentation of the branch run.
#[derive(Debug, Clone, Default)]
pub struct BranchPlan {
    /// The source edits (only edits, no counters).
    pub plan: Plan,
    /// Recorded branches, by id.
    pub branches: Vec<BranchProbe>,
    /// Recorded loops, by id.
    pub loops: Vec<LoopProbe>,
}

/// Where the parentheses of a condition are in the parsed text: just after the `(` and
/// at the `)` (0-based lines and byte columns).
fn condition_parens(
    text: &[&str],
    st: &Stmt,
    keyword: &[&str],
) -> Option<((u32, u32), (u32, u32))> {
    let first = st.text.line as usize;
    let last = (st.text.end_line as usize).max(first);
    // Find the keyword as a word, then the `(` after it.
    let mut pos: Option<(usize, usize)> = None;
    'search: for (li, line) in text.iter().enumerate().take(last + 1).skip(first) {
        let lower = line.to_ascii_lowercase();
        let start = if li == first { st.text.col as usize } else { 0 };
        let bytes = lower.as_bytes();
        let mut c = start.min(bytes.len());
        while c < bytes.len() {
            if bytes[c] == b'!' {
                break;
            }
            for k in keyword {
                let end = c + k.len();
                let before_ok =
                    c == 0 || !(bytes[c - 1].is_ascii_alphanumeric() || bytes[c - 1] == b'_');
                if lower.get(c..end) == Some(*k)
                    && before_ok
                    && bytes
                        .get(end)
                        .map_or(true, |b| !(b.is_ascii_alphanumeric() || *b == b'_'))
                {
                    pos = Some((li, end));
                    break 'search;
                }
            }
            c += 1;
        }
    }
    let (mut li, mut c) = pos?;
    // The opening parenthesis (possibly after blanks or on a continuation line).
    let open = loop {
        let bytes = text.get(li)?.as_bytes();
        while c < bytes.len() && (bytes[c] == b' ' || bytes[c] == b'\t') {
            c += 1;
        }
        match bytes.get(c) {
            Some(b'(') => break (li, c),
            Some(b'&') | None => {
                li += 1;
                if li > last {
                    return None;
                }
                // A continuation line may start with `&`.
                let l = text.get(li)?;
                let lead = l.len() - l.trim_start().len();
                c = if l.trim_start().starts_with('&') {
                    lead + 1
                } else {
                    lead
                };
            }
            Some(_) => return None,
        }
    };
    // The matching parenthesis, skipping strings and comments.
    let mut depth = 0i32;
    let mut quote: Option<u8> = None;
    let (mut li, mut c) = open;
    while li <= last {
        let bytes = text.get(li)?.as_bytes();
        while c < bytes.len() {
            let b = bytes[c];
            match quote {
                Some(q) if b == q => quote = None,
                Some(_) => {}
                None => match b {
                    b'\'' | b'"' => quote = Some(b),
                    b'!' => break,
                    b'(' => depth += 1,
                    b')' => {
                        depth -= 1;
                        if depth == 0 {
                            return Some((
                                (open.0 as u32, open.1 as u32 + 1),
                                (li as u32, c as u32),
                            ));
                        }
                    }
                    _ => {}
                },
            }
            c += 1;
        }
        li += 1;
        c = 0;
    }
    None
}

/// The first element block holding statement `si`.
fn element_block(u: &Unit, si: usize) -> Option<u32> {
    u.blocks
        .iter()
        .find(|b| b.kind == BlockKind::Elements && b.stmts.contains(&(si as u32)))
        .map(|b| b.id.0)
}

/// Whether `e` holds a `COUNT` of one array argument (its mask) and no other array
/// intrinsic whose element loop would share the statement's element block.
fn counts_a_mask(e: &augur_ir::Expr) -> bool {
    let mut counts = 0;
    let mut others = 0;
    visit_calls(e, &mut |name, args| {
        if name == "count" && args.len() == 1 && args[0].array {
            counts += 1;
        } else if args.iter().any(|a| a.array) {
            others += 1;
        }
    });
    counts == 1 && others == 0 && !e.array
}

/// Calls `f` with the name and arguments of every intrinsic call in `e`, its
/// subscripts' included.
fn visit_calls(e: &augur_ir::Expr, f: &mut dyn FnMut(&str, &[augur_ir::Expr])) {
    if let augur_ir::ExprKind::Call(augur_ir::CallTarget::Intrinsic(n), args) = &e.kind {
        f(n, args);
    }
    for o in e.operands().into_iter().chain(e.subscript_exprs()) {
        visit_calls(o, f);
    }
}

/// Whether the text between `open` and `close` (one line) holds no comma outside
/// parentheses and strings: a call's single argument.
fn single_argument(lines: &[&str], open: (u32, u32), close: (u32, u32)) -> bool {
    if open.0 != close.0 {
        return false;
    }
    let Some(text) = lines
        .get(open.0 as usize)
        .and_then(|l| l.get(open.1 as usize..close.1 as usize))
    else {
        return false;
    };
    let (mut depth, mut quote) = (0i32, None);
    for b in text.bytes() {
        match (quote, b) {
            (Some(q), _) if b == q => quote = None,
            (Some(_), _) => {}
            (None, b'\'' | b'"') => quote = Some(b),
            (None, b'(') => depth += 1,
            (None, b')') => depth -= 1,
            (None, b',') if depth == 0 => return false,
            _ => {}
        }
    }
    true
}

/// The block whose last statement is statement `si` (not an array-element block).
fn block_ending_with(u: &Unit, si: usize) -> Option<u32> {
    u.blocks
        .iter()
        .find(|b| b.kind != BlockKind::Elements && b.stmts.last() == Some(&(si as u32)))
        .map(|b| b.id.0)
}

/// Plans the branch run: which conditions are wrapped and which loops record their trips.
/// With the compiler's optimization report, the conditions of lines it made branchless
/// (conditional moves, sets) are left out: they are no branches on the machine, so they
/// neither mispredict nor enter the predictors' global history (eight if-converted
/// neighbour tests before `h = c == 3 .or. ...` would tell a history predictor `c`).
pub fn plan(
    program: &Program,
    texts: &[Option<&str>],
    report: Option<&augur_program_profile::optreport::OptReport>,
) -> BranchPlan {
    let mut bp = BranchPlan::default();
    for (ui, u) in program.units.iter().enumerate() {
        if matches!(u.kind, UnitKind::Module | UnitKind::BlockData) {
            continue;
        }
        let Some(text) = texts.get(u.source as usize).copied().flatten() else {
            continue;
        };
        let file = program
            .files
            .files
            .get(u.source as usize)
            .map(|f| f.path.display().to_string())
            .unwrap_or_default();
        let branchless = |line: u32| report.is_some_and(|r| r.is_branchless(&file, line));
        // A COUNT's mask is a branch where the compiled loop of its line has paths.
        let branching_loop = |line: u32| {
            report
                .and_then(|r| r.compiled_loop(&file, line))
                .is_some_and(|c| c.inner_branches > 0)
        };
        let lines = CompiledLines {
            branchless: &branchless,
            branching_loop: &branching_loop,
        };
        plan_unit(&mut bp, ui, u, text, &lines);
    }
    bp
}

/// What the compiled code does at a source line, by the optimization report.
struct CompiledLines<'a> {
    /// Whether the line's code selects without a conditional jump.
    branchless: &'a dyn Fn(u32) -> bool,
    /// Whether the innermost loop compiled at the line branches inside an iteration.
    branching_loop: &'a dyn Fn(u32) -> bool,
}

fn plan_unit(bp: &mut BranchPlan, ui: usize, u: &Unit, text: &str, compiled: &CompiledLines) {
    let branchless = compiled.branchless;
    let lines: Vec<&str> = text.lines().collect();
    let mut edits = use_module_edits(u, text, BRANCH_MODULE);
    for (si, st) in u.stmts.iter().enumerate() {
        let (kind, keywords, block): (BranchKind, &[&str], Option<u32>) = match &st.kind {
            StmtKind::If { .. } => {
                let lower = lines
                    .get(st.text.line as usize)
                    .and_then(|l| l.get(st.text.col as usize..))
                    .unwrap_or("")
                    .trim_start()
                    .to_ascii_lowercase();
                let kind = if lower.starts_with("else") {
                    BranchKind::ElseIf
                } else {
                    BranchKind::If
                };
                (kind, &["if", "elseif"], block_ending_with(u, si))
            }
            StmtKind::LogicalIf { .. } => {
                (BranchKind::LogicalIf, &["if"], block_ending_with(u, si))
            }
            StmtKind::Do { loop_id, .. } => {
                let l = &u.loops[loop_id.0 as usize];
                if l.kind != LoopKind::While {
                    continue;
                }
                (BranchKind::DoWhile, &["while"], Some(l.header_block.0))
            }
            // The mask's outcomes, element after element, at its element block.
            StmtKind::Where { mask } if mask.array => (
                BranchKind::WhereMask,
                &["where", "elsewhere"],
                element_block(u, si),
            ),
            StmtKind::Assign { rhs, .. }
                if counts_a_mask(rhs) && (compiled.branching_loop)(st.span.start.line) =>
            {
                (BranchKind::CountMask, &["count"], element_block(u, si))
            }
            _ => continue,
        };
        let Some(block) = block else { continue };
        if let StmtKind::If { cond } | StmtKind::LogicalIf { cond } = &st.kind {
            if decided::decided_by_loop_index(u, block, cond) {
                continue;
            }
        }
        // (A mask is computed without branching; the masked assignments branch on it.)
        if !matches!(
            kind,
            BranchKind::DoWhile | BranchKind::WhereMask | BranchKind::CountMask
        ) && branchless(st.span.start.line)
        {
            continue;
        }
        let Some(((ol, oc), (cl, cc))) = condition_parens(&lines, st, keywords) else {
            continue;
        };
        // COUNT(mask, dim) or COUNT(mask, kind=...): its mask alone is not wrapped.
        if kind == BranchKind::CountMask && !single_argument(&lines, (ol, oc), (cl, cc)) {
            continue;
        }
        let id = bp.branches.len();
        // The first operand of an `.OR.`/`.AND.` the compiler branches on by itself.
        let operand = match &st.kind {
            StmtKind::If { cond } | StmtKind::LogicalIf { cond } if ol == cl => {
                let line = lines.get(ol as usize).copied().unwrap_or("");
                short_circuit(cond)
                    .then(|| first_logical_operand(line, oc as usize, Some(cc as usize)))
                    .flatten()
            }
            _ => None,
        };
        // The whole condition first: at a column both start, its text goes leftmost.
        wrap(&mut edits, (ol, oc), (cl, cc), id);
        if let Some((from, to)) = operand {
            wrap(&mut edits, (ol, from as u32), (ol, to as u32), id + 1);
        }
        bp.branches.push(BranchProbe::of(ui, block, st, kind));
        if operand.is_some() {
            bp.branches
                .push(BranchProbe::of(ui, block, st, BranchKind::ShortCircuit));
        }
    }
    plan_short_circuits(bp, ui, u, &lines, &mut edits, branchless);
    plan_library_branches(bp, ui, u, &lines, &mut edits);
    plan_multiway(bp, ui, u, &lines, &mut edits);
    for (li, l) in u.loops.iter().enumerate() {
        if l.kind != LoopKind::Counted {
            continue;
        }
        let (Some(ds), Some(bnd)) = (do_statement(u, li), l.bounds.as_ref()) else {
            continue;
        };
        let StmtKind::Do { exprs, .. } = &ds.kind else {
            continue;
        };
        if exprs.iter().any(calls_user_function) {
            continue;
        }
        let id = bp.loops.len();
        let step = bnd.step.clone().unwrap_or_else(|| "1".into());
        edits.push(Edit::Before {
            line: ds.text.line,
            col: ds.text.col,
            take_label: true,
            text: format!(
                "call augur_brloop(int({id}, 4), max(0_8, (int({e}, 8) - int({s}, 8) + int({st}, 8)) / int({st}, 8)))",
                e = bnd.end,
                s = bnd.start,
                st = step
            ),
            order: 2,
        });
        bp.loops.push(LoopProbe {
            unit: ui,
            block: l.header_block.0,
            file: ds.span.start.file.0,
            line: ds.span.start.line,
        });
    }
    bp.plan.edits.entry(u.source).or_default().extend(edits);
}

/// Wraps the text from `from` to `to` (line, byte column) in the pass-through of
/// branch `id`.
fn wrap(edits: &mut Vec<Edit>, from: (u32, u32), to: (u32, u32), id: usize) {
    edits.push(Edit::Insert {
        line: from.0,
        col: from.1,
        text: format!("augur_brf({id}, "),
    });
    edits.push(Edit::Insert {
        line: to.0,
        col: to.1,
        text: ")".into(),
    });
}

/// Wraps the first operand of every scalar logical assignment whose value is an
/// `.OR.`/`.AND.` (on one line), recording it as a [`BranchKind::ShortCircuit`] of the
/// block holding the assignment.
fn plan_short_circuits(
    bp: &mut BranchPlan,
    ui: usize,
    u: &Unit,
    lines: &[&str],
    edits: &mut Vec<Edit>,
    branchless: &dyn Fn(u32) -> bool,
) {
    for (si, st) in u.stmts.iter().enumerate() {
        let StmtKind::Assign { rhs, .. } = &st.kind else {
            continue;
        };
        if branchless(st.span.start.line) {
            continue;
        }
        let logical =
            rhs.ty.base == augur_ir::BaseType::Logical && !rhs.array && short_circuit(rhs);
        if !logical || st.text.end_line != st.text.line {
            continue;
        }
        let Some(line) = lines.get(st.text.line as usize) else {
            continue;
        };
        let Some((from, to)) = first_logical_operand(line, st.text.col as usize, None) else {
            continue;
        };
        let Some(block) = u
            .blocks
            .iter()
            .find(|b| b.kind != BlockKind::Elements && b.stmts.contains(&(si as u32)))
        else {
            continue;
        };
        let at = st.text.line;
        wrap(edits, (at, from as u32), (at, to as u32), bp.branches.len());
        bp.branches.push(BranchProbe::of(
            ui,
            block.id.0,
            st,
            BranchKind::ShortCircuit,
        ));
    }
}

/// The intrinsics whose C library routine branches on its arguments' values, as the
/// branch run records them ([`plan_library_branches`]).
const LIBRARY_BRANCHING: [&str; 6] = ["anint", "nint", "mod", "amod", "dmod", "modulo"];

/// Wraps the arguments of the intrinsics whose C library routine branches on their
/// values, in the assignments written on one line, recording those branches at the block
/// holding the assignment (its element block for an array assignment): the rounding of
/// `ANINT` and `NINT` of a real(4) or real(8) value ([`BranchKind::Rounding`], and for a
/// double `ANINT` [`BranchKind::RoundingHalf`]) and the long division of a real `MOD` or
/// `MODULO` ([`BranchKind::Remainder`]). A statement whose calls the text and the IR do
/// not list alike is left as it is, and so is a remainder whose divisor calls a user
/// function (the recording evaluates it once more).
fn plan_library_branches(
    bp: &mut BranchPlan,
    ui: usize,
    u: &Unit,
    lines: &[&str],
    edits: &mut Vec<Edit>,
) {
    for (si, st) in u.stmts.iter().enumerate() {
        let StmtKind::Assign { rhs, .. } = &st.kind else {
            continue;
        };
        if st.text.end_line != st.text.line {
            continue;
        }
        let mut calls = vec![];
        visit_calls(rhs, &mut |name, args| {
            if LIBRARY_BRANCHING.contains(&name) {
                calls.push((name.to_string(), args.to_vec()));
            }
        });
        if calls.is_empty() {
            continue;
        }
        let Some(line) = lines.get(st.text.line as usize) else {
            continue;
        };
        let found = library_calls(line, st.text.col as usize);
        if found.len() != calls.len() || found.iter().zip(&calls).any(|(f, c)| f.0 != c.0) {
            continue;
        }
        let block = if rhs.array {
            element_block(u, si)
        } else {
            u.blocks
                .iter()
                .find(|b| b.kind != BlockKind::Elements && b.stmts.contains(&(si as u32)))
                .map(|b| b.id.0)
        };
        let Some(block) = block else { continue };
        for ((name, ranges), (_, args)) in found.iter().zip(&calls) {
            let Some(first) = args.first() else { continue };
            let real = first.ty.base == augur_ir::BaseType::Real && matches!(first.ty.kind, 4 | 8);
            let Some(&(from, to)) = ranges.first().filter(|_| real) else {
                continue;
            };
            let id = bp.branches.len();
            let (wrapper, tail, kinds): (&str, String, &[BranchKind]) = match name.as_str() {
                "anint" if first.ty.kind == 8 => (
                    "augur_brh",
                    ")".into(),
                    &[BranchKind::Rounding, BranchKind::RoundingHalf],
                ),
                "anint" | "nint" => ("augur_brr", ")".into(), &[BranchKind::Rounding]),
                _ => {
                    let divisor = ranges.get(1).map(|&(a, b)| &line[a..b]);
                    let plain = args.len() == 2
                        && !args[1].array
                        && !crate::instrument::calls_user_function(&args[1]);
                    match divisor.filter(|d| plain && !d.contains('=')) {
                        Some(d) => (
                            "augur_brq",
                            format!(", {})", d.trim()),
                            &[BranchKind::Remainder, BranchKind::Remainder],
                        ),
                        None => continue,
                    }
                }
            };
            let at = st.text.line;
            edits.push(Edit::Insert {
                line: at,
                col: from as u32,
                text: format!("{wrapper}({id}, "),
            });
            edits.push(Edit::Insert {
                line: at,
                col: to as u32,
                text: tail,
            });
            for &kind in kinds {
                bp.branches.push(BranchProbe::of(ui, block, st, kind));
            }
        }
    }
}

/// The calls of [`LIBRARY_BRANCHING`]'s intrinsics in `line` from byte `col`, in the
/// order they start: each name (lower case) and the byte ranges of its arguments.
/// Strings and a trailing comment are skipped; blanks may stand between a name and its
/// parenthesis.
fn library_calls(line: &str, col: usize) -> Vec<(String, Vec<(usize, usize)>)> {
    let b = line.as_bytes();
    let word = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    let mut out = vec![];
    let (mut i, mut quote) = (col, None);
    while i < b.len() {
        let c = b[i];
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => {}
            None if c == b'\'' || c == b'"' => quote = Some(c),
            None if c == b'!' => break,
            None if word(c) && (i == 0 || !(word(b[i - 1]) || b[i - 1] == b'%')) => {
                let start = i;
                while i < b.len() && word(b[i]) {
                    i += 1;
                }
                let name = line[start..i].to_ascii_lowercase();
                if LIBRARY_BRANCHING.contains(&name.as_str()) {
                    let mut j = i;
                    while j < b.len() && b[j] == b' ' {
                        j += 1;
                    }
                    if j < b.len() && b[j] == b'(' {
                        if let Some(args) = argument_ranges(b, j + 1) {
                            out.push((name, args));
                        }
                    }
                }
                continue;
            }
            None => {}
        }
        i += 1;
    }
    out
}

/// The byte ranges of the arguments of a call whose first argument starts at `from`:
/// split at the commas outside parentheses and strings, up to the call's closing
/// parenthesis; `None` when it does not close on the line.
fn argument_ranges(b: &[u8], from: usize) -> Option<Vec<(usize, usize)>> {
    let (mut depth, mut quote, mut start) = (0i32, None, from);
    let mut out = vec![];
    for (k, &c) in b.iter().enumerate().skip(from) {
        match (quote, c) {
            (Some(q), _) if c == q => quote = None,
            (Some(_), _) => {}
            (None, b'\'' | b'"') => quote = Some(c),
            (None, b'(') => depth += 1,
            (None, b')') if depth == 0 => {
                out.push((start, k));
                return Some(out);
            }
            (None, b')') => depth -= 1,
            (None, b',') if depth == 0 => {
                out.push((start, k));
                start = k + 1;
            }
            _ => {}
        }
    }
    None
}

/// In an assignment `v = a .or. b` starting at byte `col` of `line`, or in a condition
/// `a .or. b` from byte `col` to byte `end` (`Some`, the closing parenthesis): the byte
/// range of `a`, the operand before the first `.OR.`/`.AND.` outside parentheses and
/// strings. None when there is none, or when an `.EQV.`/`.NEQV.` (of lower precedence)
/// comes first, so that wrapping the operand keeps the expression's meaning.
fn first_logical_operand(line: &str, col: usize, end: Option<usize>) -> Option<(usize, usize)> {
    let lower = line.to_ascii_lowercase();
    let b = lower.as_bytes();
    let b = &b[..end.unwrap_or(b.len()).min(b.len())];
    let (mut depth, mut quote, mut c) = (0i32, None::<u8>, col);
    let mut start = end.map(|_| col);
    while c < b.len() {
        let ch = b[c];
        if let Some(q) = quote {
            if ch == q {
                quote = None;
            }
            c += 1;
            continue;
        }
        match ch {
            b'\'' | b'"' => quote = Some(ch),
            b'!' | b';' => return None,
            b'(' | b'[' => depth += 1,
            b')' | b']' => depth -= 1,
            b'=' if depth == 0 && start.is_none() => {
                let prev = if c > 0 { b[c - 1] } else { b' ' };
                let next = b.get(c + 1).copied().unwrap_or(b' ');
                if matches!(prev, b'=' | b'/' | b'<' | b'>') || matches!(next, b'=' | b'>') {
                    return None;
                }
                start = Some(c + 1);
            }
            b'.' if depth == 0 && start.is_some() => {
                let rest = &lower[c..];
                if rest.starts_with(".eqv.") || rest.starts_with(".neqv.") {
                    return None;
                }
                if rest.starts_with(".or.") || rest.starts_with(".and.") {
                    let from = start?;
                    let text = &line[from..c];
                    let lead = text.len() - text.trim_start().len();
                    let body = text.trim();
                    if body.is_empty() {
                        return None;
                    }
                    return Some((from + lead, from + lead + body.len()));
                }
            }
            _ => {}
        }
        c += 1;
    }
    None
}

/// Whether a logical expression is an `.OR.`/`.AND.` whose later operands load from
/// memory what the first does not (an array element, a substring, a component) or call
/// a user function: a compiler evaluates such an operand only when the first does not decide
/// the value, behind a branch of its own (gfortran -O2); operands of scalars only it
/// computes without a branch, and `c >= 'a' .and. c <= 'z'` it tests at once.
fn short_circuit(e: &augur_ir::Expr) -> bool {
    let ExprKind::Binary(BinOp::Logical, ..) = &e.kind else {
        return false;
    };
    let mut first = e;
    while let ExprKind::Binary(BinOp::Logical, a, _) = &first.kind {
        first = a;
    }
    let mut loads_first = vec![];
    memory_operands(first, &mut loads_first);
    let mut loads_all = vec![];
    memory_operands(e, &mut loads_all);
    loads_all.iter().any(|l| !loads_first.contains(l))
}

/// The memory references and user function references of `e`, as written.
fn memory_operands(e: &augur_ir::Expr, out: &mut Vec<String>) {
    match &e.kind {
        ExprKind::Elem(..)
        | ExprKind::Substring(..)
        | ExprKind::Component(..)
        | ExprKind::Call(augur_ir::CallTarget::User(_), _) => out.push(e.to_string()),
        _ => {}
    }
    for o in e.operands() {
        memory_operands(o, out);
    }
}

/// Records the outcome of every SELECT CASE (a call at the top of each arm with the
/// arm's number), computed GOTO (a call before it with the selector's value, when
/// the selector is on the statement's one line and calls no user function) and
/// arithmetic IF (a call before it with 1, 2 or 3 by the sign of its expression, under
/// the same conditions).
fn plan_multiway(bp: &mut BranchPlan, ui: usize, u: &Unit, lines: &[&str], edits: &mut Vec<Edit>) {
    for (si, st) in u.stmts.iter().enumerate() {
        let Some(block) = block_ending_with(u, si) else {
            continue;
        };
        match &st.kind {
            StmtKind::Select { .. } => {
                let id = bp.branches.len();
                let cases = select_arms(u, si, lines);
                if cases.is_empty() {
                    continue;
                }
                for (k, case) in cases.iter().enumerate() {
                    edits.push(Edit::After {
                        line: case.text.line,
                        text: format!("call augur_brk(int({id}, 4), int({}, 4))", k + 1),
                        order: 0,
                    });
                }
                bp.branches
                    .push(BranchProbe::of(ui, block, st, BranchKind::SelectCase));
            }
            StmtKind::ComputedGoto { expr, .. } => {
                if calls_user_function(expr) || st.text.line != st.text.end_line {
                    continue;
                }
                let Some(selector) = computed_goto_selector(lines, st) else {
                    continue;
                };
                let id = bp.branches.len();
                edits.push(outcome_before(st, id, &format!("int({selector})")));
                bp.branches
                    .push(BranchProbe::of(ui, block, st, BranchKind::ComputedGoto));
            }
            StmtKind::ArithmeticIf { expr, .. } => {
                if calls_user_function(expr) {
                    continue;
                }
                let Some(((ol, oc), (cl, cc))) = condition_parens(lines, st, &["if"]) else {
                    continue;
                };
                if ol != cl {
                    continue;
                }
                let Some(e) = lines
                    .get(ol as usize)
                    .and_then(|l| l.get(oc as usize..cc as usize))
                    .map(str::trim)
                    .filter(|e| !e.is_empty())
                else {
                    continue;
                };
                let id = bp.branches.len();
                let outcome = format!("merge(1, merge(2, 3, ({e}) == 0), ({e}) < 0)");
                edits.push(outcome_before(st, id, &outcome));
                bp.branches
                    .push(BranchProbe::of(ui, block, st, BranchKind::ArithmeticIf));
            }
            _ => {}
        }
    }
}

/// The call recording multiway branch `id`'s outcome `outcome`, placed before statement
/// `st` (which gives it its label).
fn outcome_before(st: &Stmt, id: usize, outcome: &str) -> Edit {
    Edit::Before {
        line: st.text.line,
        col: st.text.col,
        take_label: true,
        text: format!("call augur_brk(int({id}, 4), int({outcome}, 4))"),
        order: 2,
    }
}

/// The CASE statements of the SELECT CASE at statement `si`, in order: each spans its
/// whole arm, so the next arm starts after the previous one's last line; statements
/// within an arm (nested constructs) are skipped, and anything else after an arm ends
/// the construct. A CASE continued on the next line leaves the construct out (the call
/// goes after the CASE statement's first line).
fn select_arms<'u>(u: &'u Unit, si: usize, lines: &[&str]) -> Vec<&'u Stmt> {
    let mut arms: Vec<&'u Stmt> = vec![];
    let mut end = u.stmts[si].text.line;
    for st in &u.stmts[si + 1..] {
        if st.text.line <= end {
            continue;
        }
        if st.kind != StmtKind::Case {
            break;
        }
        arms.push(st);
        end = st.text.end_line;
    }
    let continued = |c: &&Stmt| {
        let line = lines.get(c.text.line as usize).copied().unwrap_or("");
        line.split('!')
            .next()
            .unwrap_or("")
            .trim_end()
            .ends_with('&')
    };
    if !arms.iter().any(continued) {
        arms
    } else {
        vec![]
    }
}

/// The selector of a one-line computed GOTO, `GOTO (10, 20, 30) [,] expr`, as written.
fn computed_goto_selector(lines: &[&str], st: &Stmt) -> Option<String> {
    let line = lines.get(st.text.line as usize)?;
    let text = line.get(st.text.col as usize..(st.text.end_col as usize).min(line.len()))?;
    let open = text.find('(')?;
    let close = open + text[open..].find(')')?;
    let rest = text[close + 1..].trim_start();
    let rest = rest.strip_prefix(',').unwrap_or(rest).trim();
    let rest = rest.split('!').next().unwrap_or("").trim();
    (!rest.is_empty() && !rest.contains(';')).then(|| rest.to_string())
}

/// The Fortran module of the branch run: the pass-through functions for every logical
/// kind (impure elemental: a WHERE mask records each element's outcome in array element
/// order) and the interfaces of the C recorder.
pub fn module_for(bp: &BranchPlan) -> String {
    let mut specifics = String::new();
    let mut names = vec![];
    for k in [1, 2, 4, 8] {
        names.push(format!("augur_brf{k}"));
        specifics.push_str(&format!(
            "  impure elemental logical({k}) function augur_brf{k}(id, c)\n    integer, intent(in) :: id\n    logical({k}), intent(in) :: c\n    if (c) then\n      call augur_br(int(id, c_int32_t), 1_c_int32_t)\n    else\n      call augur_br(int(id, c_int32_t), 0_c_int32_t)\n    end if\n    augur_brf{k} = c\n  end function augur_brf{k}\n"
        ));
    }
    let (mut roundings, mut halves, mut remainders) = (vec![], vec![], vec![]);
    for k in [4, 8] {
        roundings.push(format!("augur_brr{k}"));
        halves.push(format!("augur_brh{k}"));
        remainders.push(format!("augur_brq{k}"));
        specifics.push_str(&rounding_wrappers(k));
        specifics.push_str(&remainder_wrapper(k));
    }
    format!(
        "module {BRANCH_MODULE}\n  use iso_c_binding, only: c_int32_t, c_int64_t\n  implicit none\n  integer(c_int64_t), bind(C, name=\"augur_nbranches\") :: augur_nb = {nb}\n  integer(c_int64_t), bind(C, name=\"augur_nloops\") :: augur_nl = {nl}\n  interface\n    subroutine augur_br(id, c) bind(C, name=\"augur_br\")\n      import :: c_int32_t\n      integer(c_int32_t), value :: id, c\n    end subroutine augur_br\n    subroutine augur_brloop(id, t) bind(C, name=\"augur_brloop\")\n      import :: c_int32_t, c_int64_t\n      integer(c_int32_t), value :: id\n      integer(c_int64_t), value :: t\n    end subroutine augur_brloop\n    subroutine augur_brk(id, k) bind(C, name=\"augur_brk\")\n      import :: c_int32_t\n      integer(c_int32_t), value :: id, k\n    end subroutine augur_brk\n  end interface\n  interface augur_brf\n    module procedure {list}\n  end interface augur_brf\n  interface augur_brr\n    module procedure {rlist}\n  end interface augur_brr\n  interface augur_brh\n    module procedure {hlist}\n  end interface augur_brh\n  interface augur_brq\n    module procedure {qlist}\n  end interface augur_brq\ncontains\n{specifics}end module {BRANCH_MODULE}\n",
        nb = bp.branches.len(),
        nl = bp.loops.len(),
        list = names.join(", "),
        rlist = roundings.join(", "),
        hlist = halves.join(", "),
        qlist = remainders.join(", "),
    )
}

/// The pass-through of a real(`k`) dividend of `MOD`/`MODULO` that records the C
/// library's long division (`fmod`): as branch `id`, one outcome a quotient bit, from the
/// highest, as glibc's loop branches on each but the last (a conditional move; a dividend
/// below the divisor returns at once); as branch `id + 1`, the loop that shifts a nonzero remainder back to a whole
/// mantissa, once a bit the remainder is shorter than the divisor, then its exit.
fn remainder_wrapper(k: u8) -> String {
    format!(
        "  impure elemental real({k}) function augur_brq{k}(id, x, y)\n    integer, intent(in) :: id\n    real({k}), intent(in) :: x, y\n    real({k}) :: r, q\n    integer :: e\n    augur_brq{k} = x\n    r = abs(x)\n    q = abs(y)\n    if (q == 0 .or. .not. (r <= huge(r)) .or. .not. (q <= huge(q)) .or. r < q) return\n    e = exponent(r) - exponent(q)\n    do while (e >= 1)\n      if (r >= scale(q, e)) then\n        call augur_br(int(id, c_int32_t), 1_c_int32_t)\n        r = r - scale(q, e)\n      else\n        call augur_br(int(id, c_int32_t), 0_c_int32_t)\n      end if\n      e = e - 1\n    end do\n    if (r >= q) r = r - q\n    if (r == 0) return\n    do e = exponent(r), exponent(q) - 1\n      call augur_br(int(id + 1, c_int32_t), 1_c_int32_t)\n    end do\n    call augur_br(int(id + 1, c_int32_t), 0_c_int32_t)\n  end function augur_brq{k}\n"
    )
}

/// The pass-throughs of a real(`k`) argument of `ANINT`/`NINT` that record the C
/// library's branches on it: `augur_brr{k}` whether `|x| < 1`, `augur_brh{k}` that and,
/// below 1, whether `|x| >= 0.5` (branch `id + 1`).
fn rounding_wrappers(k: u8) -> String {
    let record = |id: &str, c: &str| {
        format!("    if ({c}) then\n      call augur_br(int({id}, c_int32_t), 1_c_int32_t)\n    else\n      call augur_br(int({id}, c_int32_t), 0_c_int32_t)\n    end if\n")
    };
    let small = record("id", "abs(x) < 1");
    let half = record("id + 1", "abs(x) >= 0.5");
    format!(
        "  impure elemental real({k}) function augur_brr{k}(id, x)\n    integer, intent(in) :: id\n    real({k}), intent(in) :: x\n{small}    augur_brr{k} = x\n  end function augur_brr{k}\n  impure elemental real({k}) function augur_brh{k}(id, x)\n    integer, intent(in) :: id\n    real({k}), intent(in) :: x\n{small}    if (abs(x) < 1) then\n{half}    end if\n    augur_brh{k} = x\n  end function augur_brh{k}\n"
    )
}

/// The C runtime of the branch run: simulates the predictors and writes, at program
/// exit, each branch's executions, taken outcomes and mispredictions per predictor,
/// and each loop's entries and trip-count changes, to `AUGUR_BRANCH_FILE`.
pub const RUNTIME_C: &str = include_str!("branches_runtime.c");

/// What the branch run recorded for one branch.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BranchCounts {
    /// Executions.
    pub executions: u64,
    /// Executions that took the branch (condition true).
    pub taken: u64,
    /// Mispredictions under each of [`PREDICTORS`].
    pub misses: [u64; 6],
}

impl BranchCounts {
    /// The fewest mispredictions of any predictor (an ideal chooser).
    pub fn mispredictions(&self) -> u64 {
        self.misses.iter().copied().min().unwrap_or(0)
    }
}

/// What the branch run recorded.
#[derive(Debug, Clone, PartialEq)]
pub struct BranchRun {
    /// Per branch, by id.
    pub branches: Vec<BranchCounts>,
    /// Per loop, by id: entries and entries whose trip count differed from the
    /// previous entry's (the first entry counts as a change).
    pub loops: Vec<(u64, u64)>,
}

/// Reads the branch run's file; `None` when missing, truncated, of the wrong size or
/// when the runtime could not allocate its tables.
pub fn read(path: &Path, branches: usize, loops: usize) -> Option<BranchRun> {
    let text = std::fs::read_to_string(path).ok()?;
    let mut lines = text.lines();
    let mut head = lines
        .next()?
        .strip_prefix("augur-branches ")?
        .split_whitespace();
    let nb: usize = head.next()?.parse().ok()?;
    let nl: usize = head.next()?.parse().ok()?;
    let failed: i32 = head.next()?.parse().ok()?;
    if nb != branches || nl != loops || failed != 0 {
        return None;
    }
    let mut run = BranchRun {
        branches: Vec::with_capacity(nb),
        loops: Vec::with_capacity(nl),
    };
    for _ in 0..nb {
        let v: Vec<u64> = lines
            .next()?
            .split_whitespace()
            .map(|x| x.parse().ok())
            .collect::<Option<_>>()?;
        if v.len() != 2 + PREDICTORS.len() {
            return None;
        }
        let mut misses = [0u64; 6];
        misses.copy_from_slice(&v[2..]);
        run.branches.push(BranchCounts {
            executions: v[0],
            taken: v[1],
            misses,
        });
    }
    for _ in 0..nl {
        let v: Vec<u64> = lines
            .next()?
            .split_whitespace()
            .map(|x| x.parse().ok())
            .collect::<Option<_>>()?;
        if v.len() != 2 {
            return None;
        }
        run.loops.push((v[0], v[1]));
    }
    (lines.next()? == "end").then_some(run)
}

/// Simulated mispredictions per unit and block (the block a branch ends, or a loop's
/// header): `None` for a block nothing was recorded for.
pub fn per_block(program: &Program, bp: &BranchPlan, run: &BranchRun) -> Vec<Vec<Option<f64>>> {
    let mut out: Vec<Vec<Option<f64>>> = program
        .units
        .iter()
        .map(|u| vec![None; u.blocks.len()])
        .collect();
    let mut add = |unit: usize, block: u32, m: f64| {
        if let Some(slot) = out.get_mut(unit).and_then(|u| u.get_mut(block as usize)) {
            *slot = Some(slot.unwrap_or(0.0) + m);
        }
    };
    for (p, c) in bp.branches.iter().zip(&run.branches) {
        add(p.unit, p.block, c.mispredictions() as f64);
    }
    for (p, &(_, changes)) in bp.loops.iter().zip(&run.loops) {
        add(p.unit, p.block, changes as f64);
    }
    out
}

/// Gives the assignments of each recorded WHERE the executions the branch run saw its
/// mask allow: the counting run counts a masked assignment once per element of the
/// mask's shape (its counters cannot go inside the construct), while the compiled code
/// tests each element and assigns only where the mask holds (a plain ELSEWHERE where it
/// does not). A WHERE whose assignments meet a masked ELSEWHERE or a nested WHERE keeps
/// the counts from there on (each mask's share holds for its own statements only).
pub fn masked_executions(
    program: &Program,
    texts: &[Option<&str>],
    bp: &BranchPlan,
    run: &BranchRun,
    mu: &mut [Vec<Option<f64>>],
) {
    let mut ranges = std::collections::HashMap::new();
    for (p, c) in bp.branches.iter().zip(&run.branches) {
        if p.kind != BranchKind::WhereMask || c.executions == 0 {
            continue;
        }
        let Some(u) = program.units.get(p.unit) else {
            continue;
        };
        let Some(text) = texts.get(u.source as usize).copied().flatten() else {
            continue;
        };
        let share = c.taken as f64 / c.executions as f64;
        let ranges = ranges
            .entry(p.unit)
            .or_insert_with(|| crate::instrument::where_ranges(u, text));
        for (block, factor) in masked_blocks(u, text, ranges, p.block, share) {
            if let Some(Some(m)) = mu.get_mut(p.unit).and_then(|b| b.get_mut(block)) {
                *m *= factor;
            }
        }
    }
}

/// The element blocks of the assignments under the WHERE whose mask is evaluated in
/// block `mask_block` of `u`, each with the share of the mask's elements it runs for:
/// `share` up to a plain ELSEWHERE, `1 - share` after it. `ranges`: the unit's WHERE
/// ranges (`where_ranges`).
fn masked_blocks(
    u: &Unit,
    text: &str,
    ranges: &[(u32, u32, augur_ir::TextPos)],
    mask_block: u32,
    share: f64,
) -> Vec<(usize, f64)> {
    let mask_stmts = u
        .blocks
        .get(mask_block as usize)
        .map_or(&[][..], |b| &b.stmts[..]);
    let Some(si) = mask_stmts.iter().map(|&i| i as usize).find(|&i| {
        matches!(
            u.stmts.get(i).map(|s| &s.kind),
            Some(StmtKind::Where { .. })
        )
    }) else {
        return vec![];
    };
    let mask = &u.stmts[si];
    let Some(&(_, end, _)) = ranges.iter().find(|r| r.2 == mask.text) else {
        return vec![];
    };
    let lines: Vec<&str> = text.lines().collect();
    let plain_elsewhere =
        |from: u32, to: u32| crate::instrument::plain_elsewhere_between(&lines, from, to);
    let mut out = vec![];
    let mut factor = share;
    let mut after = mask.text.end_line;
    for (sj, st) in u.stmts.iter().enumerate().skip(si + 1) {
        if st.text.line > end || matches!(st.kind, StmtKind::Where { .. }) {
            break;
        }
        if plain_elsewhere(after + 1, st.text.line) {
            factor = 1.0 - share;
        }
        after = st.text.end_line.max(after);
        let blocks = u
            .blocks
            .iter()
            .filter(|b| b.kind == BlockKind::Elements && b.stmts.contains(&(sj as u32)));
        for b in blocks {
            let id = b.id.0 as usize;
            if !out.iter().any(|o: &(usize, f64)| o.0 == id) {
                out.push((id, factor));
            }
        }
    }
    out
}

#[cfg(test)]
mod short_circuit_tests {
    use super::{first_logical_operand, library_calls};

    fn operand(line: &str) -> Option<&str> {
        first_logical_operand(line, 0, None).map(|(a, b)| &line[a..b])
    }

    #[test]
    fn rounding_calls_and_their_first_arguments_are_found_in_the_text() {
        let line = "  s = ANINT ( y(i) ) + nint(z(i, 2), kind=8) - my_nint(q) ! anint(w)";
        let found = library_calls(line, 2);
        let args: Vec<(&str, Vec<&str>)> = found
            .iter()
            .map(|(n, r)| (n.as_str(), r.iter().map(|&(a, b)| &line[a..b]).collect()))
            .collect();
        assert_eq!(
            args,
            [
                ("anint", vec![" y(i) "]),
                ("nint", vec!["z(i, 2)", " kind=8"])
            ]
        );
        assert!(library_calls("  c = 'anint(x)' // t%nint(3)", 2).is_empty());
        let line = "  r = MOD (a*b, f(c, d)) + dmod(x, 2.0d0)";
        let divisors: Vec<&str> = library_calls(line, 2)
            .iter()
            .map(|(_, r)| &line[r[1].0..r[1].1])
            .collect();
        assert_eq!(divisors, [" f(c, d)", " 2.0d0"]);
    }

    #[test]
    fn the_first_operand_before_a_top_level_or_and() {
        assert_eq!(
            operand("h(i,j) = (c == 3) .or. (g(i,j) .and. c == 2)"),
            Some("(c == 3)")
        );
        assert_eq!(
            operand("f = x(i) .GT. 0.5 .AND. k /= 2"),
            Some("x(i) .GT. 0.5")
        );
        assert_eq!(operand("f = .not. a .or. b"), Some(".not. a"));
        // Inside parentheses or strings only: nothing to wrap.
        assert_eq!(operand("f = (a .or. b)"), None);
        assert_eq!(operand("f = s == 'x .or. y'"), None);
        // `.eqv.` binds looser than `.or.`: wrapping `a .eqv. b` would change the value.
        assert_eq!(operand("f = a .eqv. b .or. c"), None);
        // Not an assignment.
        assert_eq!(operand("if (a == b .or. c) x = 1"), None);
    }
}

#[cfg(test)]
mod condition_operand_tests {
    use super::first_logical_operand;

    #[test]
    fn the_first_operand_of_a_condition_between_its_parentheses() {
        let line = "      if (cols(c) .or. d1(row + c - 1)) cycle";
        let open = line.find('(').unwrap() + 1;
        let close = line.rfind(')').unwrap();
        let (a, b) = first_logical_operand(line, open, Some(close)).unwrap();
        assert_eq!(&line[a..b], "cols(c)");
        // An operator after the closing parenthesis is not the condition's.
        let line = "      if (x > 0) l = a .or. b";
        let open = line.find('(').unwrap() + 1;
        let close = line.find(')').unwrap();
        assert_eq!(first_logical_operand(line, open, Some(close)), None);
    }
}
