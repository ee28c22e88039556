//! Building the program profile: static counts S, block executions μ, the dynamic AbOp
//! vector C = Σ μ·S, and its breakdowns by line, procedure, loop and region.
//!
//! Profiles are machine-independent (they depend only on the source and the
//! input), versioned (`schema`) and documented in `docs/FORMATS.md`.

use crate::instrument::Rule;
use augur_ir::count::{count_stmt, loop_setup};
use augur_ir::{AbOp, AbOpCounts, BlockKind, FileId, LoopKind, Program, SourceFiles, StmtKind};
use augur_program_profile::*;
use std::collections::BTreeMap;
fn path_of(files: &SourceFiles, id: FileId) -> String {
    files
        .files
        .get(id.0 as usize)
        .map(|f| f.path.display().to_string())
        .unwrap_or_default()
}

fn rule_name(r: &Rule) -> &'static str {
    match r {
        Rule::Counter { .. } => "counter",
        Rule::SameAs { .. } => "same_as",
        Rule::Difference { .. } => "difference",
        Rule::WhileTests { .. } | Rule::IterationsPlusEntries { .. } => "while_tests",
        Rule::NotNeeded => "not_needed",
    }
}

/// Builds the profile from the analyzed program, the rules and the block counts.
///
/// `simulated` holds the branch run's mispredictions per unit and block
/// ([`crate::branches::per_block`]); without it each branch gets the bound from the
/// block counts.
pub fn build_profile(
    program: &Program,
    rules: &[Vec<Rule>],
    mu: &[Vec<Option<f64>>],
    run: RunEntry,
    notes: Vec<String>,
    simulated: Option<&[Vec<Option<f64>>]>,
) -> ProgramProfile {
    let files = &program.files;
    let mut totals = AbOpCounts::new();
    let mut lines: BTreeMap<(u32, u32), AbOpCounts> = BTreeMap::new();
    let mut units = vec![];
    for ui in 0..program.units.len() {
        let sim = simulated.and_then(|s| s.get(ui));
        let unit = unit_profile(program, ui, &rules[ui], &mu[ui], sim, &mut lines);
        totals.add_scaled(&unit.totals, 1.0);
        units.push(unit);
    }
    add_chained_calls(program, mu, &mut units);
    let unit_totals: Vec<AbOpCounts> = units.iter().map(|u| u.totals.clone()).collect();
    let regions = regions(program, &lines, mu, &unit_totals);
    let lines = lines
        .into_iter()
        .filter(|(_, c)| !c.is_empty())
        .map(|((f, l), abops)| LineProfile {
            file: path_of(files, FileId(f)),
            line: l,
            abops,
        })
        .collect();
    ProgramProfile {
        schema: PROFILE_SCHEMA,
        kind: PROFILE_KIND.to_string(),
        augur_version: env!("CARGO_PKG_VERSION").to_string(),
        sources: files
            .files
            .iter()
            .map(|f| SourceEntry {
                path: f.path.display().to_string(),
                sha256: f.sha256.clone(),
                lines: f.lines,
            })
            .collect(),
        run,
        partial: false,
        notes,
        operations: totals.total(),
        totals,
        units,
        lines,
        regions,
        locality: None,
        optimization: None,
        branches: None,
        scaling: None,
        openmp: None,
        mpi: None,
    }
}

/// The profile of unit `ui` (its `rules`, block counts `mu` and simulated
/// mispredictions `simulated`); its operations are also attributed to `lines`.
fn unit_profile(
    program: &Program,
    ui: usize,
    rules: &[Rule],
    mu: &[Option<f64>],
    simulated: Option<&Vec<Option<f64>>>,
    lines: &mut BTreeMap<(u32, u32), AbOpCounts>,
) -> UnitProfile {
    let u = &program.units[ui];
    let mut unit_totals = AbOpCounts::new();
    let mut blocks = vec![];
    let mut mispredicted = branch_mispredictions(u, mu);
    if let Some(sim) = simulated {
        for (bi, m) in mispredicted.iter_mut().enumerate() {
            m.0 = sim.get(bi).copied().flatten().unwrap_or(0.0);
        }
    }
    // Each block's counts per execution, with its branch's mispredictions spread over
    // its executions.
    let block_counts: Vec<AbOpCounts> = u
        .blocks
        .iter()
        .enumerate()
        .map(|(bi, b)| {
            let mut c = b.counts.clone();
            if let (Some(m), (miss, simple)) = (mu[bi], mispredicted[bi]) {
                if m > 0.0 && miss > 0.0 {
                    c.add(branch_abop(simple), miss / m);
                }
            }
            c
        })
        .collect();
    for (bi, b) in u.blocks.iter().enumerate() {
        let m = mu[bi];
        if let Some(m) = m {
            unit_totals.add_scaled(&block_counts[bi], m);
            attribute_lines(u, bi, m, lines);
            let (miss, simple) = mispredicted[bi];
            if miss > 0.0 {
                if let Some(last) = b.stmts.last().and_then(|&s| u.stmts.get(s as usize)) {
                    lines
                        .entry((last.span.start.file.0, last.span.start.line))
                        .or_default()
                        .add(branch_abop(simple), miss);
                }
            }
        }
        let chain = block_chain(u, bi, mu);
        blocks.push(BlockProfile {
            id: b.id.0,
            block_kind: b.kind,
            first_line: b.span.start.line,
            last_line: b.span.end_line,
            in_loop: b.in_loop.map(|l| l.0),
            counts: block_counts[bi].clone(),
            chain_assignments: assignments_on(&chain),
            chain: chain.ops,
            register_writes: block_register_writes(u, bi),
            scalar_operands: Some(b.scalar_operands),
            executions: m,
            how: rule_name(&rules[bi]).to_string(),
        });
    }
    let loops = u
        .loops
        .iter()
        .map(|l| loop_profile(u, l, &block_counts, mu))
        .collect();
    let body = body_span(u, mu, augur_ir::chain::weighted_span_path);
    let carried = body_span(u, mu, augur_ir::chain::weighted_carried_path);
    UnitProfile {
        name: u.name.clone(),
        unit_kind: u.kind,
        file: path_of(&program.files, u.span.start.file),
        first_line: u.span.start.line,
        last_line: u.span.end_line,
        host: u
            .host
            .and_then(|h| program.units.get(h))
            .map(|h| h.name.clone()),
        calls: mu.first().copied().flatten(),
        totals: unit_totals,
        blocks,
        loops,
        body_span_assignments: assignments_on(&body),
        carried_span_assignments: assignments_on(&carried),
        chained_calls: None,
        body_span: body.ops,
        carried_span: carried.ops,
    }
}

/// Each unit's calls made by loops that chain them through their arguments
/// (`augur_ir::call_chains`), from the executions of the blocks holding them.
fn add_chained_calls(program: &Program, mu: &[Vec<Option<f64>>], units: &mut [UnitProfile]) {
    for (caller, chained) in augur_ir::call_chains::chained_calls(program)
        .iter()
        .enumerate()
    {
        for c in chained {
            let n = mu
                .get(caller)
                .and_then(|m| m.get(c.block))
                .copied()
                .flatten();
            if let (Some(n), Some(callee)) = (n.filter(|n| *n > 0.0), units.get_mut(c.callee)) {
                *callee.chained_calls.get_or_insert(0.0) += n;
            }
        }
    }
}

/// The assignments on `path` (`LoopProfile::chain_assignments` and the like), `None`
/// for a path without operations.
fn assignments_on(path: &augur_ir::chain::ChainPath) -> Option<f64> {
    (!path.ops.is_empty()).then_some(path.assignments)
}

/// A path through one call of unit `u`'s statements outside loops, each statement
/// weighted by the share of the calls (`mu` of the entry block) that run it: the longest
/// dependent one (`augur_ir::chain::weighted_span_counts`) or the one a variable carries
/// to the next call (`weighted_carried_counts`), as `path` finds it.
fn body_span<'u>(
    u: &'u augur_ir::Unit,
    mu: &[Option<f64>],
    path: impl Fn(Vec<(&'u augur_ir::StmtKind, f64)>) -> augur_ir::chain::ChainPath,
) -> augur_ir::chain::ChainPath {
    let Some(calls) = mu.first().copied().flatten().filter(|&c| c > 0.0) else {
        return Default::default();
    };
    let stmts = u
        .blocks
        .iter()
        .enumerate()
        .filter(|(_, b)| b.in_loop.is_none() && b.kind != BlockKind::Elements)
        .flat_map(|(bi, b)| {
            let w = mu.get(bi).copied().flatten().unwrap_or(0.0) / calls;
            b.stmts
                .iter()
                .filter_map(|&s| u.stmts.get(s as usize))
                .map(move |st| (&st.kind, w))
        });
    path(stmts.collect())
}

/// The profile of loop `l` of unit `u`, from the unit's per-execution block counts
/// (`block_counts`) and block executions (`mu`).
fn loop_profile(
    u: &augur_ir::Unit,
    l: &augur_ir::Loop,
    block_counts: &[AbOpCounts],
    mu: &[Option<f64>],
) -> LoopProfile {
    let li = l.id.0 as usize;
    let mut t = AbOpCounts::new();
    for (bi, b) in u.blocks.iter().enumerate() {
        let mut lp = b.in_loop;
        let mut inside = false;
        while let Some(x) = lp {
            if x.0 as usize == li {
                inside = true;
                break;
            }
            lp = u.loops[x.0 as usize].parent;
        }
        if inside {
            if let Some(m) = mu[bi] {
                t.add_scaled(&block_counts[bi], m);
            }
        }
    }
    let entries = match l.kind {
        // Each pass through the header is an entry or a jump back.
        LoopKind::Goto => mu[l.header_block.0 as usize].and_then(|passes| {
            l.back_edges
                .iter()
                .try_fold(passes, |left, b| Some(left - mu[b.0 as usize]?))
        }),
        _ => mu[l.entry_block.0 as usize],
    }
    .map(|e| e.max(0.0));
    let iterations = match l.kind {
        LoopKind::While => mu[l.body_block.0 as usize],
        _ => mu[l.header_block.0 as usize],
    };
    let chain = iterations
        .map(|n| loop_chain(u, l, n, mu))
        .unwrap_or_default();
    LoopProfile {
        id: l.id.0,
        loop_kind: l.kind.clone(),
        line: l.span.start.line,
        depth: l.depth,
        parent: l.parent.map(|p| p.0),
        entries,
        iterations,
        mean_trips: match (entries, iterations) {
            (Some(e), Some(i)) if e > 0.0 => Some(i / e),
            _ => None,
        },
        totals: t,
        chain_assignments: assignments_on(&chain),
        chain: chain.ops,
        serial_calls: iterations
            .filter(|&n| n > 0.0)
            .filter(|_| !u.loops.iter().any(|o| o.parent == Some(l.id)))
            .map(|n| loop_serial_calls(u, l, n, mu)),
        opportunities: augur_ir::opportunities::find(u, l),
        busy_wait: augur_ir::busy_wait::is_busy_wait(u, l.id),
    }
}

/// The mispredictions the bound from the block counts gives each block (for the
/// branch summary).
pub fn bound_per_block(program: &Program, mu: &[Vec<Option<f64>>]) -> Vec<Vec<f64>> {
    program
        .units
        .iter()
        .zip(mu)
        .map(|(u, m)| {
            branch_mispredictions(u, m)
                .into_iter()
                .map(|x| x.0)
                .collect()
        })
        .collect()
}

/// `BRMC` for a branch with simple arms (at most two scalar assignments and one
/// operation in all, no calls), else `BRMP`.
fn branch_abop(simple: bool) -> AbOp {
    if simple {
        AbOp::BRMC
    } else {
        AbOp::BRMP
    }
}

/// Estimated mispredictions of the branch that ends each block, over the run: a block
/// with two or more successors (an IF, ELSE IF, SELECT CASE, computed GOTO or a GOTO
/// loop's test) sends control `n_s` times to each successor `s`, and a predictor that
/// learns the most frequent direction misses the rest, `n − max n_s`. Exact for
/// branches whose outcomes are independent of each other (data-dependent tests on
/// random or irregular data); an over-estimate for patterned outcomes that history
/// predictors learn (`mod(i, 2) == 0`) and for IFs the compiler turns into conditional
/// moves. An edge count is the executions of a successor that has no other
/// predecessor; one edge may be unknown (the rest of the branch's executions), two
/// leave the branch out. DO loop tests are left out: they go one way until the last trip.
/// The flag says whether the arms are simple enough for a conditional move.
fn branch_mispredictions(u: &augur_ir::Unit, mu: &[Option<f64>]) -> Vec<(f64, bool)> {
    let n = u.blocks.len();
    // Each block's distinct successors, and each block's number of predecessors.
    let succ_lists: Vec<Vec<usize>> = u
        .blocks
        .iter()
        .map(|b| {
            let mut succs: Vec<usize> = b.succs.iter().map(|s| s.0 as usize).collect();
            succs.sort_unstable();
            succs.dedup();
            succs
        })
        .collect();
    let mut preds = vec![0usize; n];
    for &s in succ_lists.iter().flatten() {
        if s < n {
            preds[s] += 1;
        }
    }
    let mut out = vec![(0.0, false); n];
    for (bi, (b, succs)) in u.blocks.iter().zip(&succ_lists).enumerate() {
        if b.kind == BlockKind::LoopHeader {
            continue;
        }
        let Some(total) = mu[bi].filter(|&t| t > 0.0) else {
            continue;
        };
        if succs.len() < 2 {
            continue;
        }
        let mut edges = vec![];
        let mut unknown = 0;
        // The arms' assignments and operations (None: an arm does other work).
        let mut shape = Some((0, 0));
        for &s in succs {
            let arm = s < n && preds[s] == 1 && s != bi;
            if arm {
                shape = shape
                    .zip(arm_shape(u, s))
                    .map(|(a, b)| (a.0 + b.0, a.1 + b.1));
            }
            match mu.get(s).copied().flatten() {
                Some(e) if arm => edges.push(e),
                _ => unknown += 1,
            }
        }
        match unknown {
            0 => {}
            1 => edges.push((total - edges.iter().sum::<f64>()).max(0.0)),
            _ => continue,
        }
        let most = edges.iter().copied().fold(0.0, f64::max);
        // What compilers turn into conditional moves: copies, or one increment, or a
        // min/max pattern (gcc 12 -O2 keeps `x = x + k` / `y = y - c` as a branch).
        let simple = matches!(shape, Some((a, o)) if a <= 2 && o <= 1);
        out[bi] = ((total - most).max(0.0), simple);
    }
    out
}

/// The assignments and operations of an arm (a successor only one branch reaches) when
/// it does nothing but assign scalars without calls; `None` otherwise.
fn arm_shape(u: &augur_ir::Unit, bi: usize) -> Option<(usize, usize)> {
    let (mut assigns, mut ops) = (0, 0);
    for &si in &u.blocks[bi].stmts {
        let st = u.stmts.get(si as usize)?;
        match &st.kind {
            StmtKind::Assign { lhs, rhs } => {
                let scalar =
                    matches!(&lhs.kind, augur_ir::ExprKind::Var(v) if v.rank == 0) && !lhs.array;
                if !scalar || has_call(rhs) {
                    return None;
                }
                assigns += 1;
                ops += operations(rhs);
            }
            StmtKind::Else
            | StmtKind::EndConstruct
            | StmtKind::Continue
            | StmtKind::Case
            | StmtKind::Goto { .. } => {}
            _ => return None,
        }
    }
    Some((assigns, ops))
}

/// Unary and binary operations in an expression, outside subscripts.
fn operations(e: &augur_ir::Expr) -> usize {
    use augur_ir::ExprKind;
    let own = matches!(e.kind, ExprKind::Unary(..) | ExprKind::Binary(..)) as usize;
    own + e.operands().into_iter().map(operations).sum::<usize>()
}

/// Whether an expression calls a function (user or intrinsic) outside subscripts.
fn has_call(e: &augur_ir::Expr) -> bool {
    matches!(e.kind, augur_ir::ExprKind::Call(..)) || e.operands().into_iter().any(has_call)
}

/// The register writes of one execution of a block (see [`BlockProfile::register_writes`]).
fn block_register_writes(u: &augur_ir::Unit, bi: usize) -> AbOpCounts {
    let mut c = AbOpCounts::new();
    let b = &u.blocks[bi];
    if matches!(b.kind, BlockKind::Straight | BlockKind::Entry) {
        for st in b.stmts.iter().filter_map(|&s| u.stmts.get(s as usize)) {
            if let Some(op) = augur_ir::count::register_write(&st.kind) {
                c.inc(op);
            }
        }
    }
    c
}

/// The expected recurrence of one iteration of an innermost loop across the blocks of
/// its body (see [`LoopProfile::chain`]); empty when the body is one block (the
/// block's own chain covers it), for loops holding other loops, and for loops that
/// never iterated.
fn loop_chain(
    u: &augur_ir::Unit,
    l: &augur_ir::Loop,
    iterations: f64,
    mu: &[Option<f64>],
) -> augur_ir::chain::ChainPath {
    if iterations <= 0.0 || u.loops.iter().any(|o| o.parent == Some(l.id)) {
        return Default::default();
    }
    let body = body_statements(u, l, iterations, mu, &[BlockKind::Straight]);
    let blocks: std::collections::BTreeSet<usize> = body.iter().map(|b| b.0).collect();
    if blocks.len() < 2 {
        return Default::default();
    }
    let (stmts, weights): (Vec<&augur_ir::StmtKind>, Vec<f64>) =
        body.iter().map(|&(_, k, w)| (k, w)).unzip();
    let kinds: Vec<augur_ir::StmtKind> = match loop_index(u, l.id) {
        Some(index) => augur_ir::chain::as_scalar_recurrences(stmts.iter().copied(), index),
        None => stmts.iter().map(|&k| k.clone()).collect(),
    };
    augur_ir::chain::weighted_chain_path(kinds.iter().zip(weights))
}

/// The statements of the blocks of kinds `kinds` directly in loop `l`, in block order,
/// each with its block and the share of the loop's iterations that run it.
fn body_statements<'u>(
    u: &'u augur_ir::Unit,
    l: &augur_ir::Loop,
    iterations: f64,
    mu: &[Option<f64>],
    kinds: &[BlockKind],
) -> Vec<(usize, &'u augur_ir::StmtKind, f64)> {
    let mut out = vec![];
    for (bi, b) in u.blocks.iter().enumerate() {
        if b.in_loop != Some(l.id) || !kinds.contains(&b.kind) {
            continue;
        }
        let w = mu.get(bi).copied().flatten().unwrap_or(0.0) / iterations;
        for st in b.stmts.iter().filter_map(|&s| u.stmts.get(s as usize)) {
            out.push((bi, &st.kind, w));
        }
    }
    out
}

/// The calls of one iteration of an innermost loop that wait for its recurrences (see
/// [`LoopProfile::serial_calls`]): over the statements of its body and header, each
/// weighted by the share of iterations that run it.
fn loop_serial_calls(
    u: &augur_ir::Unit,
    l: &augur_ir::Loop,
    iterations: f64,
    mu: &[Option<f64>],
) -> AbOpCounts {
    let kinds = [BlockKind::Straight, BlockKind::LoopHeader];
    let stmts = body_statements(u, l, iterations, mu, &kinds)
        .into_iter()
        .map(|(_, k, w)| (k, w));
    augur_ir::chain::serial_calls(stmts)
}

/// The index of a counted loop of unit step (ascending or descending), whose array
/// elements can carry a value from one iteration to the next (`a(i) = a(i-1) + ...`).
/// (With step 2, `u(i-1)` is the other colour of a red-black sweep, not written by
/// this loop.)
fn loop_index(u: &augur_ir::Unit, id: augur_ir::LoopId) -> Option<augur_ir::chain::LoopIndex<'_>> {
    let l = u.loops.get(id.0 as usize)?;
    let var = l.var.as_deref()?;
    let step: String = l
        .bounds
        .as_ref()
        .and_then(|b| b.step.as_deref())
        .unwrap_or("1")
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect();
    let descending = match step.as_str() {
        "1" | "+1" => false,
        "-1" => true,
        _ => return None,
    };
    Some(augur_ir::chain::LoopIndex { var, descending })
}

/// The recurrence AbOps of one execution of a block. Scalars an earlier block of the
/// same loop gives a fresh value on every iteration ([`fresh_scalars`]) carry nothing
/// into it: `t = b(i) - 2*x(i)`, then under an IF `t = t + x(i-1)`, is no recurrence.
fn block_chain(u: &augur_ir::Unit, bi: usize, mu: &[Option<f64>]) -> augur_ir::chain::ChainPath {
    let b = &u.blocks[bi];
    // An array statement's per-element block: its reduction's recurrence, if any (a
    // compiler temporary: no assignment on it).
    if b.kind == BlockKind::Elements {
        return augur_ir::chain::ChainPath {
            ops: b.element_chain.clone(),
            assignments: 0.0,
        };
    }
    let fresh: Vec<augur_ir::StmtKind> = fresh_scalars(u, bi, mu)
        .iter()
        .map(|lhs| augur_ir::chain::fresh_definition(lhs))
        .collect();
    let own = b.stmts.iter().filter_map(|&s| u.stmts.get(s as usize));
    let stmts = fresh.iter().chain(own.map(|st| &st.kind));
    // In a counted loop of unit step, array elements that carry a value from one
    // iteration to the next are recurrences too ([`loop_index`]).
    let index = b.in_loop.and_then(|l| loop_index(u, l));
    match index {
        Some(index) => {
            let kinds = augur_ir::chain::as_scalar_recurrences(stmts, index);
            augur_ir::chain::block_chain_path(kinds.iter())
        }
        None => augur_ir::chain::block_chain_path(stmts),
    }
}

/// The scalars (as their assignments' left-hand sides) that a block of the same loop
/// before block `bi` assigns from values that do not read them, where that block runs
/// on every iteration of the loop (as often as the loop's body): their value in `bi` is
/// this iteration's.
fn fresh_scalars<'u>(
    u: &'u augur_ir::Unit,
    bi: usize,
    mu: &[Option<f64>],
) -> Vec<&'u augur_ir::Expr> {
    let Some(lid) = u.blocks[bi].in_loop else {
        return vec![];
    };
    let Some(l) = u.loops.get(lid.0 as usize) else {
        return vec![];
    };
    let every = mu.get(l.body_block.0 as usize).copied().flatten();
    let mut out = vec![];
    for (ai, a) in u.blocks.iter().enumerate().take(bi) {
        let runs = mu.get(ai).copied().flatten();
        if a.in_loop != Some(lid)
            || a.kind != BlockKind::Straight
            || every.is_none()
            || runs != every
        {
            continue;
        }
        for st in a.stmts.iter().filter_map(|&s| u.stmts.get(s as usize)) {
            if let augur_ir::StmtKind::Assign { lhs, rhs } = &st.kind {
                if let augur_ir::ExprKind::Var(v) = &lhs.kind {
                    let mut read = vec![];
                    augur_ir::chain::scalars_read(rhs, &mut read);
                    if v.rank == 0 && !lhs.array && !read.contains(&v.name.as_str()) {
                        out.push(lhs);
                    }
                }
            }
        }
    }
    out
}

/// Splits a block's operations over the lines of its statements.
fn attribute_lines(
    u: &augur_ir::Unit,
    bi: usize,
    mu: f64,
    lines: &mut BTreeMap<(u32, u32), AbOpCounts>,
) {
    let b = &u.blocks[bi];
    let key = |s: &augur_ir::Stmt| (s.span.start.file.0, s.span.start.line);
    let first = b.stmts.first().map(|&s| &u.stmts[s as usize]);
    match b.kind {
        BlockKind::LoopHeader | BlockKind::Elements => {
            // Per-iteration overhead and element work belong to the DO or array statement.
            if let Some(s) = first {
                lines.entry(key(s)).or_default().add_scaled(&b.counts, mu);
            }
        }
        BlockKind::Entry | BlockKind::Straight => {
            let mut rest = b.counts.clone();
            for &si in &b.stmts {
                let s = &u.stmts[si as usize];
                let mut c = count_stmt(&s.kind).once;
                if let StmtKind::Do { loop_id, .. } = &s.kind {
                    if let Some(l) = u.loops.get(loop_id.0 as usize) {
                        if matches!(l.kind, LoopKind::Counted | LoopKind::Concurrent) {
                            c.inc(loop_setup(l.unit_step));
                        }
                    }
                }
                for (op, n) in c.iter() {
                    rest.add(op, -n);
                }
                lines.entry(key(s)).or_default().add_scaled(&c, mu);
            }
            // Whatever the statements do not explain stays with the block's first line.
            let leftover: AbOpCounts = AbOpCounts::from_dense(
                &rest
                    .to_dense()
                    .iter()
                    .map(|v| if v.abs() < 1e-9 { 0.0 } else { *v })
                    .collect::<Vec<_>>(),
            );
            if !leftover.is_empty() {
                let k = first
                    .map(key)
                    .unwrap_or((b.span.start.file.0, b.span.start.line));
                lines.entry(k).or_default().add_scaled(&leftover, mu);
            }
        }
    }
}

/// Region totals: the lines between a region's markers, and what the calls made
/// from those lines execute ([`RegionProfile::abops`]).
fn regions(
    program: &Program,
    lines: &BTreeMap<(u32, u32), AbOpCounts>,
    mu: &[Vec<Option<f64>>],
    unit_totals: &[AbOpCounts],
) -> Vec<RegionProfile> {
    let mut out = vec![];
    let mut graph: Option<CallGraph> = None;
    for (ui, u) in program.units.iter().enumerate() {
        let mut stack: Vec<(String, u32, u32)> = vec![];
        for s in &u.stmts {
            if let StmtKind::RegionMarker { name } = &s.kind {
                match name {
                    Some(n) => stack.push((n.clone(), s.span.start.file.0, s.span.start.line)),
                    None => {
                        if let Some((n, f, start)) = stack.pop() {
                            let end = s.span.start.line;
                            let mut abops = AbOpCounts::new();
                            for (_, c) in lines.range((f, start)..=(f, end)) {
                                abops.add_scaled(c, 1.0);
                            }
                            let g = graph
                                .get_or_insert_with(|| CallGraph::new(program, mu, unit_totals));
                            let mut callees = vec![];
                            for (callee, n) in g.sites_within(ui, f, start, end) {
                                if let Some(share) = g.share(callee, n) {
                                    abops.add_scaled(&share, 1.0);
                                    let name = program.units[callee].name.clone();
                                    if !callees.contains(&name) {
                                        callees.push(name);
                                    }
                                }
                            }
                            out.push(RegionProfile {
                                name: n,
                                file: path_of(&program.files, FileId(f)),
                                first_line: start,
                                last_line: end,
                                abops,
                                callees,
                            });
                        }
                    }
                }
            }
        }
    }
    out
}

/// Who calls whom how often, from the block counts, and each procedure's inclusive
/// operations (its own and, recursively, its callees' shares).
struct CallGraph {
    /// Per unit: the call sites, `(file, line, callee unit, executions)`.
    sites: Vec<Vec<(u32, u32, usize, f64)>>,
    /// Per unit: times it was entered.
    calls: Vec<f64>,
    /// Per unit: its inclusive operations over all its calls.
    inclusive: Vec<AbOpCounts>,
}

impl CallGraph {
    /// `own`: each unit's operations over all its calls (mispredictions included).
    fn new(program: &Program, mu: &[Vec<Option<f64>>], own: &[AbOpCounts]) -> CallGraph {
        let units = &program.units;
        let names = augur_ir::call_chains::ProcedureNames::new(units);
        let resolve = |caller: usize, name: &str| names.resolve(caller, name);
        let mut sites = vec![vec![]; units.len()];
        for (ui, u) in units.iter().enumerate() {
            for (bi, b) in u.blocks.iter().enumerate() {
                let Some(m) = mu.get(ui).and_then(|v| v.get(bi)).copied().flatten() else {
                    continue;
                };
                for st in b.stmts.iter().filter_map(|&s| u.stmts.get(s as usize)) {
                    let mut names = vec![];
                    user_calls(&st.kind, &mut names);
                    for name in names {
                        if let Some(c) = resolve(ui, &name) {
                            sites[ui].push((st.span.start.file.0, st.span.start.line, c, m));
                        }
                    }
                }
            }
        }
        let calls: Vec<f64> = (0..units.len())
            .map(|i| {
                mu.get(i)
                    .and_then(|v| v.first())
                    .copied()
                    .flatten()
                    .unwrap_or(0.0)
            })
            .collect();
        let mut g = CallGraph {
            sites,
            calls,
            inclusive: vec![],
        };
        let mut memo: Vec<Option<AbOpCounts>> = vec![None; units.len()];
        let mut on_stack = vec![false; units.len()];
        for u in 0..units.len() {
            g.inclusive_of(u, own, &mut memo, &mut on_stack);
        }
        g.inclusive = memo.into_iter().map(Option::unwrap_or_default).collect();
        g
    }

    /// Depth-first: a call back into a procedure being summed adds nothing (its own
    /// totals already cover every invocation, recursive ones included).
    fn inclusive_of(
        &self,
        u: usize,
        own: &[AbOpCounts],
        memo: &mut Vec<Option<AbOpCounts>>,
        on_stack: &mut Vec<bool>,
    ) -> AbOpCounts {
        if let Some(c) = &memo[u] {
            return c.clone();
        }
        on_stack[u] = true;
        let mut total = own[u].clone();
        for &(_, _, c, n) in &self.sites[u] {
            if on_stack[c] || self.calls[c] <= 0.0 {
                continue;
            }
            let inc = self.inclusive_of(c, own, memo, on_stack);
            total.add_scaled(&inc, n / self.calls[c]);
        }
        on_stack[u] = false;
        memo[u] = Some(total.clone());
        total
    }

    /// The call sites of unit `u` on lines `first..=last` of file `file`: callee and
    /// executions, summed per callee.
    fn sites_within(&self, u: usize, file: u32, first: u32, last: u32) -> Vec<(usize, f64)> {
        let mut out: Vec<(usize, f64)> = vec![];
        for &(f, l, c, n) in self.sites.get(u).into_iter().flatten() {
            if f == file && (first..=last).contains(&l) {
                match out.iter_mut().find(|x| x.0 == c) {
                    Some(x) => x.1 += n,
                    None => out.push((c, n)),
                }
            }
        }
        out
    }

    /// The part of `callee`'s inclusive operations that `n` of its calls execute.
    fn share(&self, callee: usize, n: f64) -> Option<AbOpCounts> {
        let calls = *self.calls.get(callee)?;
        if calls <= 0.0 || n <= 0.0 {
            return None;
        }
        let mut c = AbOpCounts::new();
        c.add_scaled(self.inclusive.get(callee)?, n / calls);
        Some(c)
    }
}

/// The user procedures a statement calls: `CALL name` and function references in
/// its expressions (subscripts included), in order, with repeats.
fn user_calls(kind: &StmtKind, out: &mut Vec<String>) {
    fn expr(e: &augur_ir::Expr, out: &mut Vec<String>) {
        if let augur_ir::ExprKind::Call(augur_ir::CallTarget::User(n), _) = &e.kind {
            out.push(n.clone());
        }
        for x in e.subscript_exprs() {
            expr(x, out);
        }
        for o in e.operands() {
            expr(o, out);
        }
    }
    match kind {
        StmtKind::Assign { lhs, rhs } => {
            expr(lhs, out);
            expr(rhs, out);
        }
        StmtKind::Call { name, args } => {
            out.push(name.clone());
            for a in args {
                expr(a, out);
            }
        }
        StmtKind::If { cond } | StmtKind::LogicalIf { cond } => expr(cond, out),
        StmtKind::ArithmeticIf { expr: e, .. }
        | StmtKind::ComputedGoto { expr: e, .. }
        | StmtKind::Select { expr: e } => expr(e, out),
        StmtKind::Do { exprs, .. } => exprs.iter().for_each(|e| expr(e, out)),
        StmtKind::Io { items, .. } => items.iter().for_each(|e| expr(e, out)),
        _ => {}
    }
}
