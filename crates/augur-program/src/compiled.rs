//! The compiled loops of the optimization report's assembly mapped to the program's
//! source loops: each innermost source loop keeps the compiled loop that runs most of
//! its iterations (the widest, when the compiler made several versions); compiled loops
//! that match no innermost source loop are listed with the reason.

use augur_program_profile::compiled::{BlockEnd, CompiledBlock, CompiledLoop, UnmappedLoop};
use augur_program_profile::optreport::{same_file, OptReport};
use augur_program_profile::{LineProfile, UnitProfile};
use std::collections::BTreeMap;

/// Replaces `report.compiled_loops` (as the assembly gave them, each at the line of its
/// backward jump) by the loops mapped to an innermost source loop of `units`, one per
/// source loop, and records the others in `report.unmapped_loops`.
///
/// `step(unit, loop)` is the source loop's step when it is a constant (`None` when it is
/// not): a compiled iteration of `do i = 1, n, 2` that advances its pointers by two
/// elements covers one source iteration.
pub fn map_to_source(
    report: &mut OptReport,
    units: &[UnitProfile],
    statements: &[LineProfile],
    step: impl Fn(&str, u32) -> SourceWalk,
) {
    let raw = std::mem::take(&mut report.compiled_loops);
    let mut groups: BTreeMap<(String, u32), Vec<CompiledLoop>> = BTreeMap::new();
    for cl in raw {
        match place(cl, units, statements, &step) {
            Ok(cl) => groups
                .entry((cl.file.clone(), cl.line))
                .or_default()
                .push(cl),
            Err(u) => report.unmapped_loops.push(u),
        }
    }
    for ((file, line), mut versions) in groups {
        if versions.len() > 1 {
            let needed = needed_kinds(units, &file, line);
            versions = keep_the_statements_own(versions, &needed, &mut report.unmapped_loops);
        }
        // The widest version runs the iterations; the first of equals is the main body
        // (a vectorized loop's scalar remainder comes after it).
        let best = (0..versions.len())
            .max_by_key(|&i| (versions[i].source_iterations, std::cmp::Reverse(i)))
            .unwrap_or(0);
        let n = versions.len() as u32;
        let mut chosen = versions.swap_remove(best);
        chosen.versions = n - 1;
        report.compiled_loops.push(chosen);
    }
}

/// The kinds of arithmetic that tell one statement's compiled loop from another's at the
/// same line that the source loop at `line` of `file` executes: real minima and maxima
/// (`MAXS`, `MAXD`: `FpMinMax`) and square roots (`SQRS`, `SQRD`: `FpSqrt`).
fn needed_kinds(
    units: &[UnitProfile],
    file: &str,
    line: u32,
) -> Vec<augur_program_profile::compiled::InstrClass> {
    use augur_ir::AbOp;
    use augur_program_profile::compiled::InstrClass;
    let Some((u, id)) = units
        .iter()
        .filter(|u| same_file(&u.file, file))
        .find_map(|u| source_loop(u, line).map(|l| (u, l.id)))
    else {
        return vec![];
    };
    let ops = u
        .blocks
        .iter()
        .filter(|b| b.in_loop == Some(id))
        .flat_map(|b| b.counts.iter())
        .filter(|(_, n)| *n > 0.0)
        .map(|(op, _)| op);
    let mut kinds = vec![];
    for op in ops {
        let kind = match op {
            AbOp::MAXS | AbOp::MAXD => InstrClass::FpMinMax,
            AbOp::SQRS | AbOp::SQRD => InstrClass::FpSqrt,
            _ => continue,
        };
        if !kinds.contains(&kind) {
            kinds.push(kind);
        }
    }
    kinds
}

/// `versions` (the compiled loops placed at one source loop) without those that belong to
/// another statement: versions of one loop (a vector body, its scalar remainder) do the
/// same arithmetic at other widths, so when the source loop takes a kind of
/// [`needed_kinds`] (`needed`) that some version does, a version without it is the loop
/// of a statement the line table put at the same line (gfortran gives `count(u > 0)` on
/// the line after `minval(v)` the line of `minval`). Those go to `unmapped`.
fn keep_the_statements_own(
    versions: Vec<CompiledLoop>,
    needed: &[augur_program_profile::compiled::InstrClass],
    unmapped: &mut Vec<UnmappedLoop>,
) -> Vec<CompiledLoop> {
    let has = |cl: &CompiledLoop, k| cl.instructions.iter().any(|c| c.class.class == k);
    let telling: Vec<_> = needed
        .iter()
        .copied()
        .filter(|&k| versions.iter().any(|cl| has(cl, k)))
        .collect();
    if telling.is_empty() {
        return versions;
    }
    let (own, others): (Vec<_>, Vec<_>) = versions
        .into_iter()
        .partition(|cl| telling.iter().all(|&k| has(cl, k)));
    unmapped.extend(others.into_iter().map(|cl| UnmappedLoop {
        file: cl.file,
        line: cl.line,
        reason: "another statement's loop at this line (it lacks the minimum, maximum or square root the source loop here takes, which another compiled loop here has)".to_string(),
    }));
    own
}

/// `cl` at the innermost source loop of `units` it runs (its line that loop's, its source
/// iterations divided by the elements a source iteration advances), or why none. A
/// source loop whose inner loops all run a few iterations ([`unrolled_nest`]) counts as
/// innermost: the compiler unrolled them completely into its body.
fn place(
    mut cl: CompiledLoop,
    units: &[UnitProfile],
    statements: &[LineProfile],
    step: &impl Fn(&str, u32) -> SourceWalk,
) -> Result<CompiledLoop, UnmappedLoop> {
    let found = units
        .iter()
        .filter(|u| same_file(&u.file, &cl.file))
        .find_map(|u| source_loop(u, cl.line).map(|l| (u, l.id, l.line)));
    let walk = found.map(|(u, id, _)| step(&u.name, id));
    let reason = match found {
        Some(_) if walk.is_some_and(|w| w.where_passes) => {
            "a WHERE construct's loops, one per mask and per assignment at its line (priced by the AbOps, which count every pass)"
        }
        Some((u, id, line)) if innermost(u, id) || unrolled_nest(u, id, &cl) => {
            cl.line = line;
            if !covers(u, id, &cl.lines, statements) && calls_it_lacks(u, id, &cl) {
                "a loop the compiler made inside the source loop (its instructions come from half of the loop's statements or fewer, and none calls the procedures or does the input/output the loop does: a string's padding, an intrinsic's loop)"
            } else {
                if !innermost(u, id) {
                    cl.source_iterations_from
                        .push_str(", its inner loops unrolled completely into it");
                }
                let walk = walk.unwrap_or_default();
                by_element_bytes(&mut cl, walk.element_bytes);
                by_source_step(&mut cl, walk.step);
                return Ok(cl);
            }
        }
        Some(_) => "the source loop here holds loops the compiled code no longer has (replaced by a library call, or unrolled completely from more iterations than a few)",
        None => "no source loop starts on this line (a loop the compiler made, or a loop built with GOTO)",
    };
    Err(UnmappedLoop {
        file: cl.file,
        line: cl.line,
        reason: reason.to_string(),
    })
}

/// Whether loop `id` of `u` holds no other loop.
fn innermost(u: &UnitProfile, id: u32) -> bool {
    !u.loops.iter().any(|o| o.parent == Some(id))
}

/// The most iterations a loop the compiler unrolls completely runs (gfortran's
/// `max-completely-peel-times`).
const COMPLETELY_UNROLLED_TRIPS: f64 = 16.0;

/// Whether compiled loop `cl`, found at source loop `id` of `u` that holds other loops,
/// is that whole nest with its inner loops unrolled completely: it calls nothing (a
/// loop replaced by `memcpy` or `memset` is a call) and every loop inside `id` is a
/// counted DO or an array statement's element loop (not a DO WHILE, whose trips the
/// compiler cannot know) that ran at most [`COMPLETELY_UNROLLED_TRIPS`] iterations an
/// entry (`r(:,m)` of `r(3,n)`).
fn unrolled_nest(u: &UnitProfile, id: u32, cl: &CompiledLoop) -> bool {
    use augur_ir::LoopKind;
    use augur_program_profile::compiled::InstrClass;
    let calls = cl
        .instructions
        .iter()
        .any(|c| c.class.class == InstrClass::Call);
    let inner = u
        .loops
        .iter()
        .filter(|l| l.id != id && within(u, Some(l.id), id));
    !calls
        && inner.into_iter().all(|l| {
            matches!(l.loop_kind, LoopKind::Counted | LoopKind::ArrayElements)
                && l.mean_trips.is_some_and(|t| t <= COMPLETELY_UNROLLED_TRIPS)
        })
}

/// The source loop of `u` a compiled loop whose backward jump is on `line` belongs to:
/// the loop whose DO statement is on that line, else the deepest loop whose lines hold
/// it (gfortran puts the jump of a loop around a continued statement on its last
/// line).
fn source_loop(u: &UnitProfile, line: u32) -> Option<&augur_program_profile::LoopProfile> {
    if let Some(l) = u.loops.iter().find(|l| l.line == line) {
        return Some(l);
    }
    let last_line = |id: u32| {
        u.blocks
            .iter()
            .filter(|b| crate::compiled::within(u, b.in_loop, id))
            .map(|b| b.last_line)
            .max()
            .unwrap_or(0)
    };
    u.loops
        .iter()
        .filter(|l| l.line <= line && line <= last_line(l.id))
        .max_by_key(|l| l.depth)
}

/// Whether the compiled loop whose instructions come from `lines` is source loop `id`
/// of `u`: its lines reach more than half of the statements with operations in the
/// loop's body (`statements`: the profile's lines; a statement reached on any of its
/// continuation lines). Without lines, or with lines outside the unit (a procedure
/// inlined into the loop, whose lines stand for the loop's calls), it is taken to be.
fn covers(u: &UnitProfile, id: u32, lines: &[u32], statements: &[LineProfile]) -> bool {
    let (first, last) = u.blocks.iter().fold((u32::MAX, 0), |(lo, hi), b| {
        (lo.min(b.first_line), hi.max(b.last_line))
    });
    if lines.is_empty() || lines.iter().any(|&l| l < first || l > last) {
        return true;
    }
    let body = u
        .blocks
        .iter()
        .filter(|b| b.in_loop == Some(id) && b.block_kind != augur_ir::BlockKind::LoopHeader);
    let (lo, hi) = body.fold((u32::MAX, 0), |(lo, hi), b| {
        (lo.min(b.first_line), hi.max(b.last_line))
    });
    let mut starts: Vec<u32> = statements
        .iter()
        .filter(|s| same_file(&s.file, &u.file) && (lo..=hi).contains(&s.line))
        .filter(|s| !s.abops.is_empty())
        .map(|s| s.line)
        .collect();
    starts.sort_unstable();
    starts.dedup();
    let reached = starts
        .iter()
        .enumerate()
        .filter(|&(k, &first)| {
            let last = starts.get(k + 1).map_or(hi, |&n| n - 1);
            lines.iter().any(|&l| first <= l && l <= last)
        })
        .count();
    2 * reached > starts.len()
}

/// Whether source loop `id` of `u` does input/output or calls procedures while the
/// compiled loop calls nothing: the compiled loop is then a part of the source loop's
/// iteration (the calls run around it), not the whole.
fn calls_it_lacks(u: &UnitProfile, id: u32, cl: &CompiledLoop) -> bool {
    use augur_program_profile::compiled::InstrClass;
    let calls = u.blocks.iter().filter(|b| b.in_loop == Some(id)).any(|b| {
        b.counts.iter().any(|(op, n)| {
            n > 0.0 && (op == augur_ir::AbOp::PROC || op.info().group == "input/output")
        })
    });
    calls
        && !cl
            .instructions
            .iter()
            .any(|c| c.class.class == InstrClass::Call)
}

/// Whether a block whose innermost loop is `inner` lies inside loop `target` of `u`.
fn within(u: &UnitProfile, inner: Option<u32>, target: u32) -> bool {
    let mut cur = inner;
    for _ in 0..=u.loops.len() {
        match cur {
            Some(l) if l == target => return true,
            Some(l) => cur = u.loops.iter().find(|x| x.id == l).and_then(|x| x.parent),
            None => return false,
        }
    }
    false
}

/// How far a source iteration moves the arrays its loop walks ([`source_step`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SourceStep {
    /// This many elements of the arrays.
    Elements(u32),
    /// One record of an array of derived type (`b(j)%x`), whose size in bytes augur
    /// does not know: a compiled iteration that steps its pointers once is one source
    /// iteration.
    Record,
}

/// What a source loop walks, for the compiled loops mapped to it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct SourceWalk {
    /// How far a source iteration moves its arrays ([`source_step`]).
    pub step: Option<SourceStep>,
    /// The size in bytes of the elements of every array of intrinsic type its index
    /// walks, when they all have one ([`element_bytes`]).
    pub element_bytes: Option<u32>,
    /// It is the element loop of a WHERE construct the compiler makes a loop of per mask
    /// and per assignment ([`crate::where_passes`]): its compiled loops are passes, not
    /// versions of one, and it is priced by its AbOps.
    pub where_passes: bool,
}

/// Counts a compiled loop's source iterations in the source arrays' elements where only
/// its vector moves' encoding sized them: a copy of doubles with `movups` steps 16
/// bytes, two elements, not the four singles the encoding says.
fn by_element_bytes(cl: &mut CompiledLoop, source: Option<u32>) {
    let encoded = augur_toolchain::compiled::encoded_element_bytes(&cl.source_iterations_from);
    let (Some(encoded), Some(source)) = (encoded, source) else {
        return;
    };
    let bytes = cl.source_iterations * encoded;
    if source == encoded || source == 0 || bytes % source != 0 || bytes < source {
        return;
    }
    cl.source_iterations = bytes / source;
    cl.source_iterations_from = format!(
        "{}: the induction steps {bytes} bytes over the source arrays' {source}-byte elements",
        cl.source_iterations
    );
}

/// Divides a compiled loop's source iterations by its source loop's constant step `k`
/// (the pointers advance `k` elements a source iteration); an unknown step leaves
/// only the vector lanes to go by.
fn by_source_step(cl: &mut CompiledLoop, k: Option<SourceStep>) {
    if !cl.source_iterations_from.contains("induction") {
        return;
    }
    match k {
        Some(SourceStep::Elements(1)) => {}
        Some(SourceStep::Elements(k)) if k > 1 && cl.source_iterations % k == 0 => {
            cl.source_iterations /= k;
            cl.source_iterations_from
                .push_str(&format!(", a source iteration steps {k} elements"));
        }
        Some(SourceStep::Record) => {
            cl.source_iterations = 1;
            cl.source_iterations_from
                .push_str(", a source iteration steps one record of a derived type");
        }
        _ => {
            cl.source_iterations = cl.lanes.max(1);
            cl.source_iterations_from = format!(
                "{}: the vector lanes (the source loop's step is not a constant 1)",
                cl.source_iterations
            );
        }
    }
}

/// The elements a source iteration of loop `id` of unit `unit` advances the arrays it
/// walks along, when it is a constant: the loop's step (1 for unit-step loops and array
/// statements, `|k|` for a literal step `k`) times the smallest stride its index has in
/// the first subscript of the loop's array references (`x(2*k+1)` and `x(2*k+2)`: 2,
/// a pair a source iteration; 1 as soon as one reference walks the elements one by
/// one; 1 when no first subscript holds the index as a constant multiple). A unit-step
/// loop that walks only arrays of derived type steps one record.
pub fn source_step(program: &augur_ir::Program, unit: &str, id: u32) -> Option<SourceStep> {
    let u = program
        .units
        .iter()
        .find(|u| u.name.eq_ignore_ascii_case(unit))?;
    let l = u.loops.get(id as usize)?;
    let step = if l.unit_step {
        1
    } else {
        let step = l.bounds.as_ref()?.step.as_ref()?;
        step.trim().parse::<i64>().ok()?.unsigned_abs() as u32
    };
    let Some(var) = l.var.as_deref() else {
        return Some(SourceStep::Elements(step));
    };
    match index_stride(u, l.id, var) {
        Stride::Elements(k) => Some(SourceStep::Elements(step * k)),
        Stride::Records if step == 1 => Some(SourceStep::Record),
        Stride::Records => None,
    }
}

/// What loop `id` of unit `unit` walks: its step ([`source_step`]) and its arrays'
/// element size ([`element_bytes`]).
pub fn source_walk(program: &augur_ir::Program, unit: &str, id: u32) -> SourceWalk {
    SourceWalk {
        step: source_step(program, unit, id),
        element_bytes: element_bytes(program, unit, id),
        where_passes: false,
    }
}

/// The size in bytes of the elements of the arrays of intrinsic type that loop `id` of
/// unit `unit` indexes with its own index in its assignments (an array statement's
/// element loop, without an index: the arrays it assigns), when they all have the same
/// (`None` when they differ or there are none).
pub fn element_bytes(program: &augur_ir::Program, unit: &str, id: u32) -> Option<u32> {
    use augur_ir::{BaseType, ExprKind, StmtKind, Subscript};
    let u = program
        .units
        .iter()
        .find(|u| u.name.eq_ignore_ascii_case(unit))?;
    let l = u.loops.get(id as usize)?;
    let size = |t: &augur_ir::Type| match t.base {
        BaseType::Derived => None,
        BaseType::Complex => Some(2 * u32::from(t.kind)),
        _ => Some(u32::from(t.kind)),
    };
    let mut sizes = std::collections::BTreeSet::new();
    for st in loop_statements(u, l.id) {
        let StmtKind::Assign { lhs, rhs } = &st.kind else {
            continue;
        };
        let Some(var) = l.var.as_deref() else {
            if let ExprKind::Var(v) | ExprKind::Elem(v, _) = &lhs.kind {
                sizes.extend(u.symbol(&v.name).and_then(|s| size(&s.ty)));
            }
            continue;
        };
        for e in [lhs, rhs] {
            augur_locality::extract::visit_refs(e, &mut |x| {
                let ExprKind::Elem(v, subs) = &x.kind else {
                    return;
                };
                let walks = subs.iter().any(|s| {
                    matches!(s, Subscript::Index(i) if multiple_of(i, var).is_some_and(|c| c != 0))
                });
                if walks {
                    sizes.extend(u.symbol(&v.name).and_then(|s| size(&s.ty)));
                }
            });
        }
    }
    (sizes.len() == 1)
        .then(|| sizes.into_iter().next())
        .flatten()
}

/// The statements of loop `id`'s own body (not its inner loops').
fn loop_statements(
    u: &augur_ir::Unit,
    id: augur_ir::LoopId,
) -> impl Iterator<Item = &augur_ir::Stmt> {
    u.blocks
        .iter()
        .filter(move |b| b.in_loop == Some(id))
        .flat_map(|b| b.stmts.iter())
        .filter_map(|&k| u.stmts.get(k as usize))
}

/// What a step of a loop's index moves its body's array references ([`index_stride`]).
enum Stride {
    /// The fewest elements over the references of intrinsic type (1 when none holds
    /// the index as a constant multiple).
    Elements(u32),
    /// Only references of arrays of derived type hold it.
    Records,
}

/// The fewest elements a step of `var` moves the array references of loop `id`'s body:
/// its constant multiple in a subscript times the extents of the dimensions before it
/// (`x(2*k+1)`: 2; `du(is,k)` of `du(4,n)`: 4), over the references whose earlier
/// extents are known constants; 1 when none; records when only arrays of derived type
/// hold it.
fn index_stride(u: &augur_ir::Unit, id: augur_ir::LoopId, var: &str) -> Stride {
    use augur_ir::{BaseType, ExprKind, StmtKind, Subscript};
    let mut smallest: Option<u64> = None;
    let mut records = false;
    for st in loop_statements(u, id) {
        let StmtKind::Assign { lhs, rhs } = &st.kind else {
            continue;
        };
        for e in [lhs, rhs] {
            augur_locality::extract::visit_refs(e, &mut |x| {
                let ExprKind::Elem(v, subs) = &x.kind else {
                    return;
                };
                let symbol = u.symbol(&v.name);
                let dims = symbol.map_or(&[][..], |s| &s.dims[..]);
                let derived = symbol.is_some_and(|s| s.ty.base == BaseType::Derived);
                let mut before: Option<u64> = Some(1);
                for (k, sub) in subs.iter().enumerate() {
                    let Subscript::Index(i) = sub else {
                        break;
                    };
                    let c = multiple_of(i, var).filter(|&c| c != 0);
                    if let (Some(c), Some(b)) = (c, before) {
                        if derived {
                            records = true;
                        } else {
                            let stride = c.unsigned_abs().saturating_mul(b);
                            smallest = Some(smallest.map_or(stride, |s| s.min(stride)));
                        }
                        break;
                    }
                    let extent = dims.get(k).and_then(|d| d.extent).filter(|e| *e > 0);
                    before = before.zip(extent).map(|(b, e)| b.saturating_mul(e as u64));
                }
            });
        }
    }
    match smallest {
        Some(s) => Stride::Elements(s.min(1 << 20) as u32),
        None if records => Stride::Records,
        None => Stride::Elements(1),
    }
}

/// The coefficient of `var` in `e` when `e` is `var` times a constant plus terms
/// without it (other variables count as constant), else `None`.
fn multiple_of(e: &augur_ir::Expr, var: &str) -> Option<i64> {
    use augur_ir::{BinOp, ExprKind, UnOp};
    let constant = |e: &augur_ir::Expr| match &e.kind {
        ExprKind::Const { value, .. } => *value,
        _ => None,
    };
    match &e.kind {
        ExprKind::Var(v) => Some(i64::from(v.name.eq_ignore_ascii_case(var))),
        ExprKind::Const { .. } => Some(0),
        ExprKind::Unary(UnOp::Neg, a) => multiple_of(a, var).map(|c| -c),
        ExprKind::Unary(UnOp::Plus, a) => multiple_of(a, var),
        ExprKind::Binary(BinOp::Add, a, b) => Some(multiple_of(a, var)? + multiple_of(b, var)?),
        ExprKind::Binary(BinOp::Sub, a, b) => Some(multiple_of(a, var)? - multiple_of(b, var)?),
        ExprKind::Binary(BinOp::Mul, a, b) => match (constant(a), constant(b)) {
            (Some(k), _) => Some(k * multiple_of(b, var)?),
            (_, Some(k)) => Some(k * multiple_of(a, var)?),
            _ => (multiple_of(a, var)? == 0 && multiple_of(b, var)? == 0).then_some(0),
        },
        _ => None,
    }
}

/// What the counted run says of the condition of a conditional jump's source line.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum LineCondition {
    /// An IF whose condition held this share of its executions.
    Held(f64),
    /// A branch of the source whose share was not recorded (a SELECT CASE, a DO WHILE,
    /// an IF that did not run), or no branch run at all.
    Unrecorded,
    /// No branch of the source on the line (the branch run saw every source branch) in
    /// an optimized build: the compiler's own test, as an inlined `AINT`'s range check,
    /// its expected arm laid out next (without optimization the code keeps the order of
    /// its expansion: such a line is [`LineCondition::Unrecorded`]).
    Compilers,
}

/// Fills in how often an iteration runs each block of the compiled loops that branch
/// inside their iterations, from `holds(file, line)`: what the counted run says of the
/// condition on that line ([`LineCondition`]).
///
/// A conditional jump's sense is read from the line table: the arm whose first line
/// comes first is the IF's THEN (the next iteration, the loop's header, comes after
/// everything); an arm that leaves the loop is the less likely one. A jump on a line
/// with no recorded condition goes either way with even odds, or stays in the loop,
/// unless it tests a flag the loop sets once (`until_set`): it never goes to the arm
/// that sets it (once an entry into the loop, and the loop runs many iterations). A
/// jump the compiler made itself, on a line without a branch of the source, falls
/// through: the compiler lays its expected arm out next (gfortran -O2 inlines `AINT`
/// as a conversion guarded by a jump around it for magnitudes of 2^52 and more; at
/// even odds a linear-congruential generator's chain lost half of its three
/// conversions and was priced 31% fast).
/// A loop whose blocks do not form a graph without cycles apart from the jumps back
/// to the header keeps no frequencies (the AbOps price it).
///
/// A jump through a table (a SELECT CASE, a computed GOTO) goes to each arm in
/// proportion to the executions `runs(file, line)` of the arm's first line
/// ([`arm_shares`]).
pub fn block_frequencies(
    report: &mut OptReport,
    holds: impl Fn(&str, u32) -> LineCondition,
    runs: impl Fn(&str, u32) -> Option<f64>,
) {
    for cl in report.compiled_loops.iter_mut() {
        if cl.blocks.is_empty() {
            continue;
        }
        let file = cl.file.clone();
        let arms: Vec<Vec<f64>> = cl
            .blocks
            .iter()
            .map(|b| arm_shares(&cl.blocks, b, |line| runs(&file, line)))
            .collect();
        for (b, a) in cl.blocks.iter_mut().zip(arms) {
            b.arm_shares = a;
        }
        let shares = shares(&cl.blocks, |line| holds(&file, line));
        if let Some(f) = frequencies(&cl.blocks, &shares) {
            for ((b, f), share) in cl.blocks.iter_mut().zip(f).zip(shares) {
                b.frequency = Some(f);
                b.taken_share = share;
            }
        }
    }
}

/// For each of `blocks`, the share of its executions its conditional jump is taken
/// ([`taken_share`]); `None` for a block without one.
fn shares(blocks: &[CompiledBlock], holds: impl Fn(u32) -> LineCondition) -> Vec<Option<f64>> {
    blocks
        .iter()
        .map(|b| match b.end {
            BlockEnd::Branches {
                line,
                taken,
                not_taken,
                until_set,
            } => Some(taken_share(
                blocks,
                line,
                (taken, not_taken, until_set),
                &holds,
            )),
            BlockEnd::Goes { .. } | BlockEnd::Table { .. } => None,
        })
        .collect()
}

/// The share of the executions of block `b`'s jump through a table that goes to each
/// of its arms: in proportion to the executions of each arm's first source line
/// (`runs`), none to the arm that leaves the loop (the loop runs many iterations), even
/// shares among the arms inside when a line was not counted. Empty for another block.
fn arm_shares(
    blocks: &[CompiledBlock],
    b: &CompiledBlock,
    runs: impl Fn(u32) -> Option<f64>,
) -> Vec<f64> {
    let BlockEnd::Table { arms, .. } = &b.end else {
        return vec![];
    };
    let counted: Option<Vec<f64>> = arms
        .iter()
        .map(|arm| match arm {
            None => Some(0.0),
            Some(t) => blocks
                .get(*t as usize)
                .filter(|_| *t != 0)
                .and_then(|x| runs(x.first_line)),
        })
        .collect();
    let total: f64 = counted.iter().flatten().sum();
    match counted {
        Some(c) if total > 0.0 => c.iter().map(|x| x / total).collect(),
        _ => {
            let inside = arms.iter().flatten().count().max(1) as f64;
            arms.iter()
                .map(|a| if a.is_some() { 1.0 / inside } else { 0.0 })
                .collect()
        }
    }
}

/// The frequencies of `blocks` (header first) given their jumps' taken `shares`, or
/// `None` when they hold a cycle that does not pass through the header.
fn frequencies(blocks: &[CompiledBlock], shares: &[Option<f64>]) -> Option<Vec<f64>> {
    let n = blocks.len();
    let inside = |t: &Option<u32>| t.filter(|&t| t != 0 && (t as usize) < n);
    let edges = |k: usize| -> Vec<(usize, f64)> {
        match &blocks[k].end {
            BlockEnd::Goes { to } => inside(to).map(|t| (t as usize, 1.0)).into_iter().collect(),
            BlockEnd::Branches {
                taken, not_taken, ..
            } => {
                let p = shares.get(k).copied().flatten().unwrap_or(0.5);
                let mut out = vec![];
                out.extend(inside(taken).map(|t| (t as usize, p)));
                out.extend(inside(not_taken).map(|t| (t as usize, 1.0 - p)));
                out
            }
            BlockEnd::Table { arms, .. } => arms
                .iter()
                .zip(&blocks[k].arm_shares)
                .filter_map(|(t, &p)| inside(t).map(|t| (t as usize, p)))
                .collect(),
        }
    };
    let mut indegree = vec![0usize; n];
    for k in 0..n {
        for (t, _) in edges(k) {
            indegree[t] += 1;
        }
    }
    let mut freq = vec![0.0; n];
    freq[0] = 1.0;
    let mut ready = vec![0usize];
    let mut done = 0;
    while let Some(b) = ready.pop() {
        done += 1;
        for (t, p) in edges(b) {
            freq[t] += freq[b] * p;
            indegree[t] -= 1;
            if indegree[t] == 0 {
                ready.push(t);
            }
        }
    }
    (done == n).then_some(freq)
}

/// The share of a block's executions its conditional jump (on `line`) is taken, given
/// where it goes taken and not, and the arm it goes to only until that arm sets the flag
/// it tests (`until_set`).
fn taken_share(
    blocks: &[CompiledBlock],
    line: u32,
    (taken, not_taken, until_set): (Option<u32>, Option<u32>, Option<u32>),
    holds: impl Fn(u32) -> LineCondition,
) -> f64 {
    let condition = holds(line);
    let p = match condition {
        LineCondition::Held(p) => Some(p),
        _ => None,
    };
    // Where each arm goes on in the source: the next iteration after everything.
    let first = |t: u32| match t {
        0 => u32::MAX,
        t => blocks.get(t as usize).map_or(0, |b| b.first_line),
    };
    match (taken, not_taken, p) {
        (None, None, _) => 0.5,
        (Some(_), None, p) => p.map_or(1.0, |p| p.max(1.0 - p)),
        (None, Some(_), p) => p.map_or(0.0, |p| p.min(1.0 - p)),
        (Some(t), Some(f), None) => match until_set {
            Some(arm) if arm == t => 0.0,
            Some(arm) if arm == f => 1.0,
            _ if condition == LineCondition::Compilers => 0.0,
            _ => 0.5,
        },
        (Some(t), Some(f), Some(p)) => match first(t).cmp(&first(f)) {
            std::cmp::Ordering::Less => p,
            std::cmp::Ordering::Greater => 1.0 - p,
            std::cmp::Ordering::Equal => 0.5,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_copy_of_doubles_through_single_precision_moves_counts_doubles() {
        use augur_toolchain::compiled::ENCODED_ELEMENTS;
        // `movaps` stores stepping 16 bytes, no arithmetic: four singles by the
        // encoding, two doubles by the source's arrays.
        let mut cl: CompiledLoop = serde_json::from_value(serde_json::json!({
            "file": "k.f", "line": 22, "function": "MAIN__", "instructions": [],
            "source_iterations": 4,
            "source_iterations_from":
                format!("4: the induction steps 16 bytes over 4-byte elements{ENCODED_ELEMENTS}"),
            "chains": [], "issued": 5
        }))
        .unwrap();
        let copy = cl.clone();
        by_element_bytes(&mut cl, Some(8));
        assert_eq!(cl.source_iterations, 2, "{}", cl.source_iterations_from);
        // Arrays of singles, or of mixed sizes: as encoded.
        for source in [Some(4), None] {
            let mut same = copy.clone();
            by_element_bytes(&mut same, source);
            assert_eq!(same.source_iterations, 4);
        }
        // Sized by the arithmetic, not the encoding: as the toolchain said.
        let mut arithmetic = copy.clone();
        arithmetic.source_iterations_from =
            "4: the induction steps 16 bytes over 4-byte elements".into();
        by_element_bytes(&mut arithmetic, Some(8));
        assert_eq!(arithmetic.source_iterations, 4);
    }

    fn block(first_line: u32, end: BlockEnd) -> CompiledBlock {
        CompiledBlock {
            first_line,
            instructions: vec![],
            issued: 1,
            end,
            frequency: None,
            taken_share: None,
            arm_shares: vec![],
        }
    }

    #[test]
    fn the_arm_with_the_earlier_lines_is_the_then() {
        // `if (c) then` on line 10, THEN on line 11, the code after END IF on line 13:
        // the jump skips the THEN (to block 2) when the condition fails.
        let blocks = vec![
            block(
                9,
                BlockEnd::Branches {
                    line: 10,
                    taken: Some(2),
                    not_taken: Some(1),
                    until_set: None,
                },
            ),
            block(11, BlockEnd::Goes { to: Some(2) }),
            block(13, BlockEnd::Goes { to: Some(0) }),
        ];
        let f = frequencies(
            &blocks,
            &shares(&blocks, |l| {
                if l == 10 {
                    LineCondition::Held(0.9)
                } else {
                    LineCondition::Unrecorded
                }
            }),
        )
        .unwrap();
        assert!(
            (f[1] - 0.9).abs() < 1e-12 && (f[2] - 1.0).abs() < 1e-12,
            "{f:?}"
        );
        // Unrecorded: even odds.
        let f = frequencies(&blocks, &shares(&blocks, |_| LineCondition::Unrecorded)).unwrap();
        assert!((f[1] - 0.5).abs() < 1e-12, "{f:?}");
        // The compiler's own jump (no branch in the source on the line): it falls through.
        let f = frequencies(&blocks, &shares(&blocks, |_| LineCondition::Compilers)).unwrap();
        assert!((f[1] - 1.0).abs() < 1e-12 && f[2] == 1.0, "{f:?}");
    }

    #[test]
    fn a_flag_set_once_never_sends_the_iteration_to_the_arm_that_sets_it() {
        // MAXVAL's first-element flag: the jump to block 2 (which sets it) on a line
        // without a recorded condition; a recorded condition still decides.
        let blocks = vec![
            block(
                5,
                BlockEnd::Branches {
                    line: 5,
                    taken: Some(2),
                    not_taken: Some(1),
                    until_set: Some(2),
                },
            ),
            block(5, BlockEnd::Goes { to: Some(0) }),
            block(5, BlockEnd::Goes { to: Some(0) }),
        ];
        let f = frequencies(&blocks, &shares(&blocks, |_| LineCondition::Unrecorded)).unwrap();
        assert_eq!(f, vec![1.0, 1.0, 0.0]);
        let f = frequencies(&blocks, &shares(&blocks, |_| LineCondition::Held(0.3))).unwrap();
        assert!((f[2] - 0.5).abs() < 1e-12, "{f:?}");
    }

    #[test]
    fn a_jump_table_goes_to_its_arms_as_often_as_their_lines_ran() {
        // `select case (op)` on line 10: arm 1 (line 11) ran 30 times, arm 2 (line 13)
        // 10, the third arm leaves the loop.
        let mut blocks = vec![
            block(
                10,
                BlockEnd::Table {
                    line: 10,
                    arms: vec![Some(1), Some(2), None],
                },
            ),
            block(11, BlockEnd::Goes { to: Some(0) }),
            block(13, BlockEnd::Goes { to: Some(0) }),
        ];
        let runs = |line: u32| match line {
            11 => Some(30.0),
            13 => Some(10.0),
            _ => None,
        };
        blocks[0].arm_shares = arm_shares(&blocks, &blocks[0], runs);
        assert_eq!(blocks[0].arm_shares, vec![0.75, 0.25, 0.0]);
        let f = frequencies(&blocks, &shares(&blocks, |_| LineCondition::Unrecorded)).unwrap();
        assert_eq!(f, vec![1.0, 0.75, 0.25]);
        // An arm whose line was not counted: even odds among the arms inside.
        let even = arm_shares(&blocks, &blocks[0], |line| (line == 11).then_some(30.0));
        assert_eq!(even, vec![0.5, 0.5, 0.0]);
    }

    #[test]
    fn an_exit_is_the_rare_way_and_a_cycle_gives_up() {
        let exit = vec![
            block(
                5,
                BlockEnd::Branches {
                    line: 5,
                    taken: None,
                    not_taken: Some(1),
                    until_set: None,
                },
            ),
            block(6, BlockEnd::Goes { to: Some(0) }),
        ];
        assert_eq!(
            frequencies(&exit, &shares(&exit, |_| LineCondition::Unrecorded)).unwrap(),
            vec![1.0, 1.0]
        );
        let cycle = vec![
            block(5, BlockEnd::Goes { to: Some(1) }),
            block(6, BlockEnd::Goes { to: Some(2) }),
            block(7, BlockEnd::Goes { to: Some(1) }),
        ];
        assert!(frequencies(&cycle, &shares(&cycle, |_| LineCondition::Unrecorded)).is_none());
    }
}
