//! The program profile: static counts S, block executions μ, the dynamic AbOp
//! vector C = Σ μ·S, and its breakdowns by line, procedure, loop and region.
//!
//! Profiles are machine-independent (they depend only on the source and the
//! input), versioned (`schema`) and documented in `docs/FORMATS.md`.

use crate::instrument::Rule;
use augur_ir::count::{count_stmt, loop_setup};
use augur_ir::{
    AbOp, AbOpCounts, BlockKind, FileId, LoopKind, Program, SourceFiles, StmtKind, UnitKind,
};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap};

/// Version of the program-profile format.
pub const PROFILE_SCHEMA: u32 = 1;
/// The `kind` of a program profile document.
pub const PROFILE_KIND: &str = "augur-program-profile";

/// A program profile.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct ProgramProfile {
    /// Format version ([`PROFILE_SCHEMA`]).
    pub schema: u32,
    /// Always [`PROFILE_KIND`].
    pub kind: String,
    /// augur version that wrote it.
    pub augur_version: String,
    /// Every source file read, with its content hash.
    pub sources: Vec<SourceEntry>,
    /// How the counting run was built and run.
    pub run: RunEntry,
    /// True when the counts are incomplete (written only with `--keep-partial`).
    pub partial: bool,
    /// Why the profile is partial, or notes on approximations.
    pub notes: Vec<String>,
    /// The dynamic AbOp vector C of the whole program.
    pub totals: AbOpCounts,
    /// Total number of abstract operations executed.
    pub operations: f64,
    /// Per program unit: its blocks (S and μ), loops and totals.
    pub units: Vec<UnitProfile>,
    /// Per source line with operations: the AbOps executed there.
    pub lines: Vec<LineProfile>,
    /// Per region (`!augur region NAME` ... `!augur end region`).
    pub regions: Vec<RegionProfile>,
    /// Locality of the affine loop nests: reuse-distance histograms per nest
    /// and array at 64-byte lines, from which the misses of any cache follow
    /// ([`crate::locality`]); absent when not analyzed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub locality: Option<crate::locality::LocalityProfile>,
    /// The compiler's optimization report for the counting run's compiler and flags:
    /// vectorized loops and inlined calls by line ([`crate::optreport`]); absent when
    /// it could not be made.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub optimization: Option<crate::optreport::OptReport>,
    /// Branch mispredictions simulated from the outcome sequences of a second run
    /// ([`crate::branches`]); when present, the blocks' `BRMP`/`BRMC` counts are these,
    /// otherwise the bound from the block counts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub branches: Option<BranchProfile>,
}

/// The branch run's summary: simulated mispredictions against the bound.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct BranchProfile {
    /// The reference predictors simulated; a branch's mispredictions are the fewest of any.
    pub predictors: Vec<String>,
    /// Simulated mispredictions of the run (conditions and loop exits).
    pub mispredictions: f64,
    /// The part of them at DO loop exits.
    #[serde(default)]
    pub loop_exit_mispredictions: f64,
    /// The bound from the block counts over the same branches (every outcome against
    /// the most frequent direction).
    pub bound: f64,
    /// Recorded conditions that ran, most mispredicted first (at most 200).
    pub conditions: Vec<BranchRow>,
    /// Counted DO loops that ran, most mispredicted exits first (at most 200).
    pub loop_exits: Vec<LoopExitRow>,
}

/// One simulated condition.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct BranchRow {
    /// Source file.
    pub file: String,
    /// Line of the IF, ELSE IF or DO WHILE.
    pub line: u32,
    /// What it is.
    pub kind: crate::branches::BranchKind,
    /// Executions.
    pub executions: u64,
    /// Executions with the condition true.
    pub taken: u64,
    /// Fewest mispredictions of any predictor.
    pub mispredictions: u64,
    /// The predictor that had them.
    pub predictor: String,
}

/// One simulated loop exit.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct LoopExitRow {
    /// Source file.
    pub file: String,
    /// Line of the DO statement.
    pub line: u32,
    /// Entries of the loop.
    pub entries: u64,
    /// Entries whose trip count differed from the previous entry's (exits mispredicted).
    pub mispredictions: u64,
}

/// One source file of the program.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct SourceEntry {
    /// Path as given (or as an include resolved it).
    pub path: String,
    /// Hex SHA-256 of its bytes.
    pub sha256: String,
    /// Number of lines.
    pub lines: u32,
}

/// The counting run.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Default)]
pub struct RunEntry {
    /// Compiler used for the instrumented build.
    pub compiler: String,
    /// Its version line.
    pub compiler_version: String,
    /// Flags of the build.
    pub fflags: Vec<String>,
    /// Program arguments.
    pub args: Vec<String>,
    /// Standard input file, if any.
    pub stdin: Option<String>,
    /// Exit status of the run.
    pub exit_code: Option<i32>,
    /// Wall time of the instrumented run, seconds.
    pub wall_seconds: f64,
    /// Number of counters the instrumented program carried.
    pub counters: usize,
    /// Pages the program touched for the first time (minor page faults of the counting
    /// run from its start to its end, less those of augur's own sample buffers): what
    /// the operating system zeroes and maps, at a cost per page the machine profile
    /// measures. Base pages of the run's machine (4 KiB here). Absent in older profiles.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_touch_pages: Option<u64>,
}

/// One program unit.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct UnitProfile {
    /// Lower-case name.
    pub name: String,
    /// `program`, `subroutine`, `function`, `module`, `block_data`.
    pub unit_kind: UnitKind,
    /// Its file.
    pub file: String,
    /// First line.
    pub first_line: u32,
    /// Last line.
    pub last_line: u32,
    /// Host unit of an internal or module procedure.
    pub host: Option<String>,
    /// Times the unit was entered (executions of its entry block), when measured.
    pub calls: Option<f64>,
    /// AbOps executed in the unit.
    pub totals: AbOpCounts,
    /// Its basic blocks.
    pub blocks: Vec<BlockProfile>,
    /// Its loops.
    pub loops: Vec<LoopProfile>,
}

/// One basic block: a column of S and its μ.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct BlockProfile {
    /// Block id within the unit.
    pub id: u32,
    /// `entry`, `straight`, `loop_header`, `elements`.
    pub block_kind: BlockKind,
    /// First and last line.
    pub first_line: u32,
    /// Last line.
    pub last_line: u32,
    /// Innermost loop.
    pub in_loop: Option<u32>,
    /// Static AbOp counts of one execution (S).
    pub counts: AbOpCounts,
    /// Of those, the AbOps on a recurrence (a scalar assigned from itself, e.g.
    /// `s = s + a(i)*b(i)`), whose latency bounds a loop's iteration time
    /// (`augur_ir::chain`); empty when the block has none.
    #[serde(default, skip_serializing_if = "AbOpCounts::is_empty")]
    pub chain: AbOpCounts,
    /// Of `counts`, the stores and scalar copies into local scalar variables
    /// (`augur_ir::count::register_write`): memory stores without optimization,
    /// register writes with it. Empty when the block has none, and in profiles made
    /// before the field.
    #[serde(default, skip_serializing_if = "AbOpCounts::is_empty")]
    pub register_writes: AbOpCounts,
    /// Executions (μ); `null` for blocks without operations, whose count is not needed.
    pub executions: Option<f64>,
    /// How μ was obtained (`counter`, `same_as`, `difference`, `while_tests`, `not_needed`).
    pub how: String,
}

/// One loop.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct LoopProfile {
    /// Loop id within the unit.
    pub id: u32,
    /// `counted`, `while`, `forever`, `concurrent`, `array_elements`.
    pub loop_kind: LoopKind,
    /// Line of the DO (or array) statement.
    pub line: u32,
    /// Nesting depth.
    pub depth: u32,
    /// Enclosing loop.
    pub parent: Option<u32>,
    /// Times the loop was entered.
    pub entries: Option<f64>,
    /// Iterations (elements, for whole-array statements) over all entries.
    pub iterations: Option<f64>,
    /// Mean iterations per entry.
    pub mean_trips: Option<f64>,
    /// AbOps executed inside the loop, nested loops included.
    pub totals: AbOpCounts,
    /// For an innermost loop whose body spans several blocks (IF arms, CASE arms), the
    /// expected AbOps of one iteration on its longest loop-carried recurrence across
    /// them, each statement weighted by the share of iterations that run it
    /// (`augur_ir::chain::weighted_chain_counts`): `lo`/`hi` of a bisection, `n` of a
    /// Collatz step (scalar variables only: components of derived types are left out).
    /// Empty for other loops and in profiles made before the field.
    #[serde(default, skip_serializing_if = "AbOpCounts::is_empty")]
    pub chain: AbOpCounts,
    /// For an innermost loop that iterated: the expected AbOps of one iteration's calls
    /// that wait for a recurrence (`augur_ir::chain::serial_calls`: their arguments read
    /// a scalar carried across iterations), empty when there are none; `None` for other
    /// loops and in profiles made before the field.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub serial_calls: Option<AbOpCounts>,
}

/// AbOps executed on one source line.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct LineProfile {
    /// File.
    pub file: String,
    /// Line.
    pub line: u32,
    /// AbOps executed there.
    pub abops: AbOpCounts,
}

/// A region marked in the source.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct RegionProfile {
    /// Its name.
    pub name: String,
    /// File.
    pub file: String,
    /// Line of `!augur region`.
    pub first_line: u32,
    /// Line of `!augur end region`.
    pub last_line: u32,
    /// AbOps executed inside: its own lines' and, for each call made from them, the
    /// callee's share of its inclusive operations (its own and its callees', split
    /// among its call sites by their executions).
    pub abops: AbOpCounts,
    /// The procedures called from inside whose operations `abops` includes (absent in
    /// profiles made before regions included their callees).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub callees: Vec<String>,
}

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
    for (ui, u) in program.units.iter().enumerate() {
        let mut unit_totals = AbOpCounts::new();
        let mut blocks = vec![];
        let mut mispredicted = branch_mispredictions(u, &mu[ui]);
        if let Some(sim) = simulated.and_then(|s| s.get(ui)) {
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
                if let (Some(m), (miss, simple)) = (mu[ui][bi], mispredicted[bi]) {
                    if m > 0.0 && miss > 0.0 {
                        c.add(branch_abop(simple), miss / m);
                    }
                }
                c
            })
            .collect();
        for (bi, b) in u.blocks.iter().enumerate() {
            let m = mu[ui][bi];
            if let Some(m) = m {
                unit_totals.add_scaled(&block_counts[bi], m);
                attribute_lines(u, bi, m, &mut lines);
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
            blocks.push(BlockProfile {
                id: b.id.0,
                block_kind: b.kind,
                first_line: b.span.start.line,
                last_line: b.span.end_line,
                in_loop: b.in_loop.map(|l| l.0),
                counts: block_counts[bi].clone(),
                chain: block_chain(u, bi),
                register_writes: block_register_writes(u, bi),
                executions: m,
                how: rule_name(&rules[ui][bi]).to_string(),
            });
        }
        let loops = u
            .loops
            .iter()
            .map(|l| {
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
                        if let Some(m) = mu[ui][bi] {
                            t.add_scaled(&block_counts[bi], m);
                        }
                    }
                }
                let entries = match l.kind {
                    // Each pass through the header is an entry or a jump back.
                    LoopKind::Goto => mu[ui][l.header_block.0 as usize].and_then(|passes| {
                        l.back_edges
                            .iter()
                            .try_fold(passes, |left, b| Some(left - mu[ui][b.0 as usize]?))
                    }),
                    _ => mu[ui][l.entry_block.0 as usize],
                }
                .map(|e| e.max(0.0));
                let iterations = match l.kind {
                    LoopKind::While => mu[ui][l.body_block.0 as usize],
                    _ => mu[ui][l.header_block.0 as usize],
                };
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
                    chain: iterations
                        .map(|n| loop_chain(u, l, n, &mu[ui]))
                        .unwrap_or_default(),
                    serial_calls: iterations
                        .filter(|&n| n > 0.0)
                        .filter(|_| !u.loops.iter().any(|o| o.parent == Some(l.id)))
                        .map(|n| loop_serial_calls(u, l, n, &mu[ui])),
                }
            })
            .collect();
        totals.add_scaled(&unit_totals, 1.0);
        units.push(UnitProfile {
            name: u.name.clone(),
            unit_kind: u.kind,
            file: path_of(files, u.span.start.file),
            first_line: u.span.start.line,
            last_line: u.span.end_line,
            host: u
                .host
                .and_then(|h| program.units.get(h))
                .map(|h| h.name.clone()),
            calls: mu[ui].first().copied().flatten(),
            totals: unit_totals,
            blocks,
            loops,
        });
    }
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
) -> AbOpCounts {
    if iterations <= 0.0 || u.loops.iter().any(|o| o.parent == Some(l.id)) {
        return AbOpCounts::new();
    }
    let body = body_statements(u, l, iterations, mu, &[BlockKind::Straight]);
    let blocks: std::collections::BTreeSet<usize> = body.iter().map(|b| b.0).collect();
    if blocks.len() < 2 {
        return AbOpCounts::new();
    }
    let (stmts, weights): (Vec<&augur_ir::StmtKind>, Vec<f64>) =
        body.iter().map(|&(_, k, w)| (k, w)).unzip();
    let kinds: Vec<augur_ir::StmtKind> = match loop_index(u, l.id) {
        Some(index) => augur_ir::chain::as_scalar_recurrences(stmts.iter().copied(), index),
        None => stmts.iter().map(|&k| k.clone()).collect(),
    };
    augur_ir::chain::weighted_chain_counts(kinds.iter().zip(weights))
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

/// The recurrence AbOps of one execution of a block.
fn block_chain(u: &augur_ir::Unit, bi: usize) -> AbOpCounts {
    let b = &u.blocks[bi];
    // An array statement's per-element block: its reduction's recurrence, if any.
    if b.kind == BlockKind::Elements {
        return b.element_chain.clone();
    }
    let stmts = b.stmts.iter().filter_map(|&s| u.stmts.get(s as usize));
    // In a counted loop of unit step, array elements that carry a value from one
    // iteration to the next are recurrences too ([`loop_index`]).
    let index = b.in_loop.and_then(|l| loop_index(u, l));
    match index {
        Some(index) => {
            let kinds = augur_ir::chain::as_scalar_recurrences(stmts.map(|st| &st.kind), index);
            augur_ir::chain::block_chain_counts(kinds.iter())
        }
        None => augur_ir::chain::block_chain_counts(stmts.map(|st| &st.kind)),
    }
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
        let mut by_name: HashMap<&str, Vec<usize>> = HashMap::new();
        for (i, u) in units.iter().enumerate() {
            if matches!(u.kind, UnitKind::Subroutine | UnitKind::Function) {
                by_name.entry(u.name.as_str()).or_default().push(i);
            }
        }
        // A call resolves to a procedure of its own host (internal or module
        // procedures of the same name elsewhere are other procedures), else the first.
        let resolve = |caller: usize, name: &str| -> Option<usize> {
            let candidates = by_name.get(name)?;
            let host = units[caller].host;
            candidates
                .iter()
                .copied()
                .find(|&i| {
                    units[i].host == Some(caller) || (host.is_some() && units[i].host == host)
                })
                .or_else(|| candidates.first().copied())
        };
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

/// Why a program profile could not be read.
#[derive(Debug, thiserror::Error)]
pub enum ProfileReadError {
    /// The file could not be read.
    #[error("cannot read the program profile {path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// The file is not valid JSON or not a program profile.
    #[error("{path}:{line}:{column}: not a valid augur program profile: {message}; re-create it with `augur analyze ... -o {path}`")]
    Malformed {
        /// The file.
        path: String,
        /// Line of the problem (1-based; 0 when unknown).
        line: usize,
        /// Column of the problem.
        column: usize,
        /// What is wrong.
        message: String,
    },
    /// A profile of another kind or a newer/older schema.
    #[error("{path}: {message}")]
    Mismatch {
        /// The file.
        path: String,
        /// What does not match.
        message: String,
    },
}

/// A source file whose content changed since the profile was made.
#[derive(Debug, Clone, PartialEq)]
pub struct SourceChange {
    /// Path as recorded in the profile.
    pub path: String,
    /// What changed: `"modified"` (hash differs) or `"missing"`.
    pub what: &'static str,
}

impl ProgramProfile {
    /// Parses a profile from JSON text; `path` names the file in errors.
    pub fn from_json(text: &str, path: &str) -> Result<ProgramProfile, ProfileReadError> {
        // Check the kind and schema first, so that another document gets a clear message
        // instead of a complaint about a missing field.
        let value: serde_json::Value =
            serde_json::from_str(text).map_err(|e| ProfileReadError::Malformed {
                path: path.to_string(),
                line: e.line(),
                column: e.column(),
                message: e.to_string(),
            })?;
        let kind = value.get("kind").and_then(|k| k.as_str()).unwrap_or("");
        if kind != PROFILE_KIND {
            let hint = if kind == "augur-static-analysis" {
                "it is a static analysis (`augur analyze --static --json`); a program profile comes from `augur analyze` without --static".to_string()
            } else if kind.is_empty() {
                "it has no `kind`; is it an augur program profile? create one with `augur analyze`"
                    .to_string()
            } else {
                format!("its kind is `{kind}`, not `{PROFILE_KIND}`")
            };
            return Err(ProfileReadError::Mismatch {
                path: path.to_string(),
                message: format!("not a program profile: {hint}"),
            });
        }
        let schema = value.get("schema").and_then(|s| s.as_u64()).unwrap_or(0);
        if schema != PROFILE_SCHEMA as u64 {
            return Err(ProfileReadError::Mismatch {
                path: path.to_string(),
                message: format!(
                    "program profile schema {schema}, this augur reads schema {PROFILE_SCHEMA}; re-create it with this version's `augur analyze`"
                ),
            });
        }
        serde_json::from_str(text).map_err(|e| ProfileReadError::Malformed {
            path: path.to_string(),
            line: e.line(),
            column: e.column(),
            message: e.to_string(),
        })
    }

    /// Reads a profile written by `augur analyze`.
    pub fn read(path: &std::path::Path) -> Result<ProgramProfile, ProfileReadError> {
        let shown = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|source| ProfileReadError::Io {
            path: shown.clone(),
            source,
        })?;
        ProgramProfile::from_json(&text, &shown)
    }

    /// Compares the recorded source hashes with the files as they are now; relative paths
    /// are taken from `base`. Returns the files that changed or disappeared.
    pub fn source_changes(&self, base: &std::path::Path) -> Vec<SourceChange> {
        let mut changes = vec![];
        for s in &self.sources {
            let p = base.join(&s.path);
            match std::fs::read(&p) {
                Ok(bytes) => {
                    if augur_source::sha256_hex(&bytes) != s.sha256 {
                        changes.push(SourceChange {
                            path: s.path.clone(),
                            what: "modified",
                        });
                    }
                }
                Err(_) => changes.push(SourceChange {
                    path: s.path.clone(),
                    what: "missing",
                }),
            }
        }
        changes
    }
}
