//! Instrumentation: where counters go, how each block's count is obtained, and
//! the rewritten source that carries the counters.
//!
//! Saavedra's analyzer put one counter in every basic block. augur places as
//! few counters as it can in hot code, while keeping every count exact:
//!
//! * A counted DO loop whose iterations cannot be cut short (no EXIT, GOTO out
//!   of the loop, RETURN or STOP inside, no call to a procedure that may STOP,
//!   bounds free of function calls) adds its trip count
//!   `max(0, (end - start + step) / step)` once, before the DO statement. The
//!   first block of its body runs once per iteration, so it gets no counter
//!   either: the innermost loop of a nest usually runs counter-free.
//! * Whole-array statements add `size(...)` of their elements once per execution.
//! * The test of an ELSE IF is derived (tests of the previous arm minus entries
//!   into the previous arm); the tests of a DO WHILE are its iterations plus
//!   its normal exits; blocks without operations need no count at all.
//! * Every other block with operations gets `augur_c(k) = augur_c(k) + 1`
//!   before its first statement (taking over the statement's label, so branches
//!   to the label are counted); a logical IF whose guarded statement needs a
//!   counter becomes an IF-THEN construct.
//!
//! The counters live in a module (`augur_counts_mod`) whose array is shared with a
//! small C runtime; a destructor in that runtime writes them to a file when the
//! program ends, whether by END, STOP or ERROR STOP in any procedure.

use augur_ir::{BlockId, BlockKind, LoopKind, Program, Stmt, StmtKind, TextPos, Unit, UnitKind};
use std::collections::{BTreeMap, HashMap, HashSet};

/// How the execution count of a block is obtained after the run.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case", tag = "how")]
pub enum Rule {
    /// Read directly from counter `k` (0-based).
    Counter {
        /// The counter.
        k: usize,
    },
    /// The same count as another block of the unit.
    SameAs {
        /// The block whose count this block shares.
        block: u32,
    },
    /// `tests(previous) - entries(previous arm)`: an ELSE IF test.
    Difference {
        /// Minuend block.
        plus: u32,
        /// Subtrahend block.
        minus: u32,
    },
    /// DO WHILE tests: iterations + arrivals after the loop − arrivals by EXIT.
    WhileTests {
        /// Counter of iterations (top of the body).
        iterations: usize,
        /// Counter of arrivals after END DO.
        after: usize,
        /// Blocks that EXIT this loop.
        exits: Vec<u32>,
    },
    /// DO WHILE tests of a loop without early exits: iterations + entries.
    IterationsPlusEntries {
        /// Counter of iterations (top of the body).
        iterations: usize,
        /// The block holding the DO WHILE statement (its count is the entries).
        entries: u32,
    },
    /// The block performs no operations; its count is not needed and not measured.
    NotNeeded,
}

/// The instrumentation of a whole program.
#[derive(Debug, Clone, Default)]
pub struct Plan {
    /// Number of counters.
    pub counters: usize,
    /// For each unit (index in [`Program::units`]), the rule of each block.
    pub rules: Vec<Vec<Rule>>,
    /// Text edits for each input source (index = the unit's `source`).
    pub(crate) edits: BTreeMap<u32, Vec<Edit>>,
    /// Notes about approximations, for the profile.
    pub notes: Vec<String>,
    /// Slots of the shape array (`augur_s`): the bounds of allocatable,
    /// pointer and assumed-shape arrays referenced in loops and whole-array
    /// statements, recorded by the run for the locality analysis.
    pub shapes: Vec<ShapeSlots>,
    /// Number of shape slots.
    pub shape_slots: usize,
    /// Probed references (non-affine subscripts in loops), by probe id.
    pub probes: Vec<Probe>,
    /// Loop nests whose integer scalars are recorded at each entry, by id.
    pub env_probes: Vec<EnvProbe>,
}

/// The values a loop nest's addresses depend on, recorded at every entry of its
/// outermost DO loop: the integer scalars its loop bounds, subscripts and array extents
/// read and it does not assign (`n`, `lda`, `st` of a subroutine called with different
/// sizes). The run keeps each distinct tuple of values with its count, so that the
/// locality analysis enumerates the nest with the values it really ran with instead of
/// mean trip counts.
#[derive(Debug, Clone, PartialEq)]
pub struct EnvProbe {
    /// Unit index in [`Program::units`].
    pub unit: usize,
    /// Loop id of the outermost DO loop.
    pub root: u32,
    /// The scalars recorded (lower case), in the order of the values.
    pub vars: Vec<String>,
}

/// Scalars recorded per nest at most.
pub const ENV_MAX_VARS: usize = 6;

/// Where the run records the runtime shape of one array of one unit: slot
/// `first + 2·d` holds the lower bound of dimension `d` (0-based) and
/// `first + 2·d + 1` its extent, as last seen.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ShapeSlots {
    /// Unit index in [`Program::units`].
    pub unit: usize,
    /// Array name (lower case).
    pub array: String,
    /// Its rank.
    pub rank: usize,
    /// First slot (0-based).
    pub first: usize,
}

/// A reference whose addresses the run samples (`augur_probe`): an array
/// element with a subscript that is not affine in the loop indices.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Probe {
    /// Unit index in [`Program::units`].
    pub unit: usize,
    /// Source line of the statement.
    pub line: u32,
    /// Array name (lower case).
    pub array: String,
    /// The reference as written (`x(idx(i))`).
    pub text: String,
    /// Enclosing loops, outermost first (loop ids of the unit).
    pub loops: Vec<u32>,
    /// Why it is not affine.
    pub reason: String,
    /// The scalars its subscripts read directly (`j` of `q(j)`; none of `x(idx(i))`).
    pub subscript_vars: Vec<String>,
}

#[derive(Debug, Clone)]
pub(crate) enum Edit {
    /// Insert statement text before the statement at (line, col); `label` moves from
    /// the statement to the inserted text.
    Before {
        line: u32,
        col: u32,
        take_label: bool,
        text: String,
        order: u32,
    },
    /// Insert a line after line `line`.
    After { line: u32, text: String, order: u32 },
    /// Turn `IF (c) stmt` into an IF-THEN construct with `text` before `stmt`.
    LogicalIf { guard: TextPos, text: String },
    /// Replace `from` with `to` on line `line`, from column `col` on (first occurrence,
    /// case-insensitive, word).
    Replace {
        line: u32,
        col: u32,
        from: String,
        to: String,
    },
    /// Insert `text` (no line break) at column `col` of line `line`, inside a statement;
    /// the columns of the other edits of the line refer to the text before insertion.
    Insert { line: u32, col: u32, text: String },
}

/// Name of the counter array in the instrumented program.
pub const COUNTER_ARRAY: &str = "augur_c";
/// Name of the module holding it.
pub const COUNTER_MODULE: &str = "augur_counts_mod";
/// Name of the shape array in the instrumented program.
pub const SHAPE_ARRAY: &str = "augur_s";
/// Line size the address sampler hashes (bytes), as the locality analysis.
pub const PROBE_LINE_BYTES: u64 = 64;
/// Samples the run's address sampler keeps at most; when more qualify, its
/// spatial sampling rate halves (SHARDS with a fixed size). A sample is a
/// probe id, an address and the number of times the same probe touched the
/// same line right after it (distance 0, kept as a count): 16 bytes.
pub const PROBE_MAX_SAMPLES: usize = 1 << 22;

fn incr(k: usize) -> String {
    format!(
        "{COUNTER_ARRAY}({n}) = {COUNTER_ARRAY}({n}) + 1_8",
        n = k + 1
    )
}

fn incr_by(k: usize, amount: &str) -> String {
    format!(
        "{COUNTER_ARRAY}({n}) = {COUNTER_ARRAY}({n}) + int({amount}, 8)",
        n = k + 1
    )
}

/// Procedures that may end the program (contain STOP, or call one that may, or
/// call a procedure augur did not analyze).
pub(crate) fn may_stop(program: &Program) -> HashSet<String> {
    let names: HashSet<&str> = program.units.iter().map(|u| u.name.as_str()).collect();
    let mut stops: HashSet<String> = HashSet::new();
    let mut calls: HashMap<&str, Vec<String>> = HashMap::new();
    for u in &program.units {
        let mut c = vec![];
        for s in &u.stmts {
            match &s.kind {
                StmtKind::Stop => {
                    stops.insert(u.name.clone());
                }
                StmtKind::Call { name, .. } => c.push(name.clone()),
                _ => {}
            }
        }
        calls.insert(&u.name, c);
    }
    // External procedures we did not analyze are assumed not to stop, except the
    // usual program-ending library calls.
    let ends = ["exit", "abort", "mpi_abort", "mpi_finalize"];
    loop {
        let mut changed = false;
        for (u, cs) in &calls {
            if stops.contains(*u) {
                continue;
            }
            if cs.iter().any(|c| {
                stops.contains(c) || (!names.contains(c.as_str()) && ends.contains(&c.as_str()))
            }) {
                stops.insert(u.to_string());
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    stops
}

/// Whether an expression list calls a user function (bounds must be side-effect free
/// to be evaluated twice).
pub(crate) fn calls_user_function(e: &augur_ir::Expr) -> bool {
    use augur_ir::ExprKind::*;
    match &e.kind {
        Call(augur_ir::CallTarget::User(_), _) => true,
        Call(_, args) | ArrayCtor(args) | ImpliedDo(args, _) => {
            args.iter().any(calls_user_function)
        }
        Unary(_, a) | Substring(a) | Component(a, _) => calls_user_function(a),
        Binary(_, a, b) => calls_user_function(a) || calls_user_function(b),
        Elem(_, subs) => subs.iter().any(|s| match s {
            augur_ir::Subscript::Index(x) => calls_user_function(x),
            augur_ir::Subscript::Range(a, b, c) => {
                [a, b, c].into_iter().flatten().any(calls_user_function)
            }
        }),
        _ => false,
    }
}

/// Builds the instrumentation plan of a program.
pub fn plan(program: &Program, texts: &[Option<&str>]) -> Plan {
    let stoppers = may_stop(program);
    let functions: Vec<String> = program
        .units
        .iter()
        .filter(|u| u.kind == UnitKind::Function)
        .map(|u| u.name.clone())
        .collect();
    let mut p = Plan::default();
    let attrs = declared_attributes(texts);
    for (ui, u) in program.units.iter().enumerate() {
        let rules = plan_unit(
            &mut p,
            u,
            &stoppers,
            &functions,
            texts.get(u.source as usize).copied().flatten(),
        );
        if let Some(text) = texts.get(u.source as usize).copied().flatten() {
            if !matches!(u.kind, UnitKind::Module | UnitKind::BlockData) {
                plan_locality(&mut p, ui, u, &stoppers, text, &attrs);
            }
        }
        p.rules.push(rules);
    }
    p
}

/// Per-unit facts used by the planner.
struct UnitInfo<'u> {
    unit: &'u Unit,
    /// For each block, the loops containing it (innermost last).
    loop_chain: Vec<Vec<usize>>,
}

impl<'u> UnitInfo<'u> {
    fn new(unit: &'u Unit) -> UnitInfo<'u> {
        let loop_chain = unit
            .blocks
            .iter()
            .map(|b| {
                let mut chain = vec![];
                let mut l = b.in_loop;
                while let Some(id) = l {
                    chain.push(id.0 as usize);
                    l = unit.loops[id.0 as usize].parent;
                }
                chain.reverse();
                chain
            })
            .collect();
        UnitInfo { unit, loop_chain }
    }

    fn in_loop(&self, b: usize, l: usize) -> bool {
        self.loop_chain[b].contains(&l)
    }
}

fn plan_unit(
    p: &mut Plan,
    u: &Unit,
    stoppers: &HashSet<String>,
    program_functions: &[String],
    text: Option<&str>,
) -> Vec<Rule> {
    let n = u.blocks.len();
    let mut rules = vec![Rule::NotNeeded; n];
    if matches!(u.kind, UnitKind::Module | UnitKind::BlockData) || text.is_none() {
        return rules;
    }
    let text = text.unwrap_or("");
    let info = UnitInfo::new(u);
    let edits = p.edits.entry(u.source).or_default();
    let first_edit = edits.len();
    // Counter module in every executable unit, right after its header.
    edits.extend(use_module_edits(u, text, COUNTER_MODULE));

    // Lines covered by WHERE constructs: no statements may be inserted there.
    let where_ranges = where_ranges(u, text);
    let in_where = |s: &Stmt| {
        where_ranges
            .iter()
            .any(|(a, b, _)| s.text.line >= *a && s.text.line <= *b)
    };
    // Inside a WHERE other than the one the statement itself opens: a block starting
    // with a WHERE statement (or construct) can be counted right before it.
    let inside_other_where = |s: &Stmt| {
        where_ranges
            .iter()
            .any(|(a, b, w)| s.text.line >= *a && s.text.line <= *b && *w != s.text)
    };

    // Which loops are entry-counted.
    let mut entry_counted = vec![false; u.loops.len()];
    for (li, l) in u.loops.iter().enumerate() {
        if l.kind != LoopKind::Counted {
            continue;
        }
        let do_stmt = do_statement(u, li);
        let Some(do_stmt) = do_stmt else { continue };
        let StmtKind::Do { exprs, .. } = &do_stmt.kind else {
            continue;
        };
        if exprs.iter().any(calls_user_function) || l.bounds.is_none() {
            continue;
        }
        if in_where(do_stmt) {
            continue;
        }
        if loop_may_exit_early(&info, li, stoppers) {
            continue;
        }
        entry_counted[li] = true;
    }

    // Labels in use, so that new ones do not clash.
    let mut used_labels: HashSet<u32> = u
        .stmts
        .iter()
        .filter_map(|s| s.label)
        .chain(u.loops.iter().filter_map(|l| l.label))
        .collect();
    // Control-flow predecessors of each block.
    let mut preds: Vec<Vec<u32>> = vec![vec![]; n];
    for b in &u.blocks {
        for s in control_succs(u, b) {
            preds[s.0 as usize].push(b.id.0);
        }
    }
    // Rules and counters per block (a loop's header comes before its body).
    let mut iteration_counter: HashMap<usize, usize> = HashMap::new();
    for bi in 0..n {
        let b = &u.blocks[bi];
        let first = b.stmts.first().map(|&s| &u.stmts[s as usize]);
        match b.kind {
            BlockKind::LoopHeader => {
                let li = b.in_loop.map(|l| l.0 as usize).unwrap_or(0);
                let l = &u.loops[li];
                let do_stmt = first;
                match l.kind {
                    LoopKind::Counted if entry_counted[li] => {
                        let k = new_counter(p);
                        let bnd = l.bounds.as_ref().expect("entry-counted loops have bounds");
                        let step = bnd.step.clone().unwrap_or_else(|| "1".into());
                        let trips = format!(
                            "max(0_8, (int({e}, 8) - int({s}, 8) + int({st}, 8)) / int({st}, 8))",
                            e = bnd.end,
                            s = bnd.start,
                            st = step
                        );
                        if let Some(ds) = do_stmt {
                            p.edits.get_mut(&u.source).expect("entry made above").push(
                                Edit::Before {
                                    line: ds.text.line,
                                    col: ds.text.col,
                                    take_label: true,
                                    text: incr_by(k, &trips),
                                    order: 2,
                                },
                            );
                        }
                        rules[bi] = Rule::Counter { k };
                    }
                    LoopKind::While => {
                        let it = new_counter(p);
                        let entry = l.entry_block.0 as usize;
                        // Without early exits every entry ends with one false test, so
                        // the tests are the iterations plus the entries.
                        let entries_known = !matches!(rules[entry], Rule::NotNeeded)
                            && entry < bi
                            && !loop_may_exit_early(&info, li, stoppers);
                        if let Some(ds) = do_stmt {
                            let e = p.edits.get_mut(&u.source).expect("entry made above");
                            iteration_edits(e, it, ds);
                        }
                        iteration_counter.insert(li, it);
                        if entries_known {
                            rules[bi] = Rule::IterationsPlusEntries {
                                iterations: it,
                                entries: entry as u32,
                            };
                        } else {
                            let after = new_counter(p);
                            if do_stmt.is_some() {
                                let e = p.edits.get_mut(&u.source).expect("entry made above");
                                e.push(Edit::After {
                                    line: l.end_text.end_line,
                                    text: incr(after),
                                    order: 1,
                                });
                            }
                            let exits = exit_blocks(&info, li);
                            rules[bi] = Rule::WhileTests {
                                iterations: it,
                                after,
                                exits,
                            };
                        }
                    }
                    LoopKind::ArrayElements => {}
                    _ => {
                        // Iterations counted at the top of the body.
                        if let Some(ds) = do_stmt.filter(|ds| !in_where(ds)) {
                            let k = new_counter(p);
                            let e = p.edits.get_mut(&u.source).expect("entry made above");
                            iteration_edits(e, k, ds);
                            rules[bi] = Rule::Counter { k };
                        } else {
                            p.notes.push(format!(
                                "{}: loop at line {} is inside a WHERE construct and is not counted",
                                u.name, l.span.start.line
                            ));
                        }
                    }
                }
            }
            BlockKind::Elements => {
                let li = b.in_loop.map(|l| l.0 as usize).unwrap_or(0);
                let l = &u.loops[li];
                let Some(stmt) = first else { continue };
                let amount = l.elements.clone().unwrap_or_else(|| "0".into());
                if mentions_any(&amount, program_functions) {
                    // Evaluating the count would call a user function a second time.
                    p.notes.push(format!(
                        "{}: the elements of the array operation at line {} are not counted (its size depends on a function call)",
                        u.name, stmt.span.start.line
                    ));
                    continue;
                }
                let k = new_counter(p);
                let assigns_whole_lhs = matches!(&stmt.kind, StmtKind::Assign { lhs, .. } if lhs.array && amount == format!("size({lhs})"));
                if assigns_whole_lhs
                    && !in_where(stmt)
                    && !is_do_terminal_with_label(u, stmt)
                    && !is_guarded(u, l.entry_block.0 as usize)
                {
                    // After the assignment: an allocatable left side may only get its
                    // shape from the assignment itself.
                    p.edits
                        .get_mut(&u.source)
                        .expect("entry made above")
                        .push(Edit::After {
                            line: stmt.text.end_line,
                            text: incr_by(k, &amount),
                            order: 2,
                        });
                    rules[bi] = Rule::Counter { k };
                    continue;
                }
                // Inside a WHERE construct the count goes before the WHERE statement.
                let (line, col) = where_ranges
                    .iter()
                    .find(|(a, bb, _)| stmt.text.line >= *a && stmt.text.line <= *bb)
                    .map(|(_, _, w)| (w.line, w.col))
                    .unwrap_or((stmt.text.line, stmt.text.col));
                p.edits
                    .get_mut(&u.source)
                    .expect("entry made above")
                    .push(Edit::Before {
                        line,
                        col,
                        take_label: true,
                        text: incr_by(k, &amount),
                        order: 3,
                    });
                rules[bi] = Rule::Counter { k };
            }
            BlockKind::Entry | BlockKind::Straight => {
                if b.counts.is_empty() {
                    continue;
                }
                // The first block of an entry-counted loop's body runs once per iteration.
                if let Some(li) = body_start_of(u, bi) {
                    match u.loops[li].kind {
                        LoopKind::While => {
                            if let Some(&it) = iteration_counter.get(&li) {
                                rules[bi] = Rule::Counter { k: it };
                                continue;
                            }
                        }
                        _ => {
                            if !matches!(
                                rules[u.loops[li].header_block.0 as usize],
                                Rule::NotNeeded
                            ) {
                                rules[bi] = Rule::SameAs {
                                    block: u.loops[li].header_block.0,
                                };
                                continue;
                            }
                        }
                    }
                }
                let Some(stmt) = first else { continue };
                match &stmt.kind {
                    // ELSE IF tests are derived from the previous test and arm.
                    StmtKind::If { .. } if is_else_if(u, bi) => {
                        if let Some((prev_test, prev_arm)) = else_if_parents(u, bi) {
                            rules[bi] = Rule::Difference {
                                plus: prev_test,
                                minus: prev_arm,
                            };
                            continue;
                        }
                    }
                    _ => {}
                }
                if inside_other_where(stmt) {
                    // Assignments of a WHERE construct share the mask's element count;
                    // their scalar parts (rare) are not counted.
                    p.notes.push(format!(
                        "{}: block at line {} inside a WHERE construct is not counted",
                        u.name, stmt.span.start.line
                    ));
                    continue;
                }
                // The block after a logical IF whose guarded statement always falls
                // through runs as often as the IF itself.
                if let Some(t) = after_logical_if(u, bi, &preds, stoppers) {
                    rules[bi] = Rule::SameAs { block: t };
                    continue;
                }
                let k = new_counter(p);
                rules[bi] = Rule::Counter { k };
                let edits = p.edits.get_mut(&u.source).expect("entry made above");
                match &stmt.kind {
                    StmtKind::Else | StmtKind::Case => edits.push(Edit::After {
                        line: stmt.text.end_line,
                        text: incr(k),
                        order: 1,
                    }),
                    _ if is_guarded(u, bi) => edits.push(Edit::LogicalIf {
                        guard: stmt.text,
                        text: incr(k),
                    }),
                    _ if is_do_terminal_with_label(u, stmt) => {
                        // A GOTO to the terminal label is an arrival too (the F77 way to
                        // go to the next iteration), so the label moves to the counter:
                        // `30 s` becomes `30 count; s; 99999 CONTINUE`, with the DOs
                        // ending at 30 ending at 99999 instead.
                        if let Some(relabel) = relabel_do_terminal(u, stmt, text, &mut used_labels)
                        {
                            edits.extend(relabel);
                            edits.push(Edit::Before {
                                line: stmt.text.line,
                                col: stmt.text.col,
                                take_label: true,
                                text: incr(k),
                                order: 1,
                            });
                            continue;
                        }
                        // The DO statement could not be relabelled: the label stays on the
                        // terminal statement and the count covers falling through only.
                        edits.push(Edit::Before {
                            line: stmt.text.line,
                            col: stmt.text.col,
                            take_label: false,
                            text: incr(k),
                            order: 1,
                        });
                        p.notes.push(format!(
                            "{}: the labelled terminal statement at line {} is counted on fall-through only",
                            u.name, stmt.span.start.line
                        ));
                    }
                    _ => edits.push(Edit::Before {
                        line: stmt.text.line,
                        col: stmt.text.col,
                        take_label: true,
                        text: incr(k),
                        order: 1,
                    }),
                }
            }
        }
    }
    // An arm referenced by an ELSE IF rule must be counted even when it is empty:
    // its counter goes right after the test's line.
    for bi in 0..n {
        let Rule::Difference { plus, minus } = rules[bi].clone() else {
            continue;
        };
        if !matches!(rules[minus as usize], Rule::NotNeeded) {
            continue;
        }
        let test = &u.blocks[plus as usize];
        let Some(&ts) = test.stmts.last() else {
            continue;
        };
        let k = new_counter(p);
        rules[minus as usize] = Rule::Counter { k };
        p.edits
            .get_mut(&u.source)
            .expect("entry made above")
            .push(Edit::After {
                line: u.stmts[ts as usize].text.end_line,
                text: incr(k),
                order: 1,
            });
    }
    host_counters_locally(p, u, &info, stoppers, text, first_edit);
    rules
}

/// Counters placed inside a loop whose every exit passes its END DO are kept in
/// local variables of a BLOCK around the loop and added to the global array after
/// END DO: a register increment instead of a memory one, which also leaves the
/// compiler free to if-convert guarded increments. The innermost such loop hosts
/// each counter.
fn host_counters_locally(
    p: &mut Plan,
    u: &Unit,
    info: &UnitInfo<'_>,
    stoppers: &HashSet<String>,
    text: &str,
    first_edit: usize,
) {
    // Eligible loops with their DO statement and text line range.
    let mut hosts: Vec<(usize, TextPos, u32)> = vec![];
    for (li, l) in u.loops.iter().enumerate() {
        if matches!(l.kind, LoopKind::ArrayElements | LoopKind::Concurrent) {
            continue;
        }
        let Some(ds) = do_statement(u, li) else {
            continue;
        };
        if accumulate_locally(info, li, ds, stoppers, text) {
            hosts.push((li, ds.text, l.end_text.end_line));
        }
    }
    if hosts.is_empty() {
        return;
    }
    let edits = p.edits.get_mut(&u.source).expect("entry made above");
    let mut hosted: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    for e in edits.iter_mut().skip(first_edit) {
        // The line the inserted statement lands at, and whether it goes after that line.
        let (x, after) = match e {
            Edit::Before { line, .. } => (*line, false),
            Edit::After { line, .. } => (*line, true),
            Edit::LogicalIf { guard, .. } => (guard.line, false),
            Edit::Replace { .. } | Edit::Insert { .. } => continue,
        };
        // Inside the loop: after its DO line and before (or on, when inserted before)
        // its END DO line.
        let inside = |do_line: u32, end: u32| {
            if after {
                do_line <= x && x < end
            } else {
                do_line < x && x <= end
            }
        };
        let Some(&(li, _, _)) = hosts
            .iter()
            .filter(|(_, ds, end)| inside(ds.line, *end))
            .max_by_key(|(_, ds, _)| ds.line)
        else {
            continue;
        };
        let t = match e {
            Edit::Before { text, .. } | Edit::After { text, .. } | Edit::LogicalIf { text, .. } => {
                text
            }
            Edit::Replace { .. } | Edit::Insert { .. } => continue,
        };
        let Some(k) = counter_of(t) else { continue };
        let global = format!("{COUNTER_ARRAY}({k})");
        *t = t.replace(&global, &format!("augur_l{k}"));
        hosted.entry(li).or_default().push(k);
    }
    for (li, ks) in hosted {
        let (_, ds, end) = hosts
            .iter()
            .find(|h| h.0 == li)
            .copied()
            .expect("hosted loops are hosts");
        let names: Vec<String> = ks.iter().map(|k| format!("augur_l{k}")).collect();
        let mut open = format!("block\ninteger(8) :: {}", names.join(", "));
        for n in &names {
            open.push_str(&format!("\n{n} = 0_8"));
        }
        let mut close = String::new();
        for k in &ks {
            close.push_str(&format!(
                "{COUNTER_ARRAY}({k}) = {COUNTER_ARRAY}({k}) + augur_l{k}\n"
            ));
        }
        close.push_str("end block");
        edits.push(Edit::Before {
            line: ds.line,
            col: ds.col,
            take_label: false,
            text: open,
            order: 5,
        });
        edits.push(Edit::After {
            line: end,
            text: close,
            order: 9,
        });
    }
}

/// The 1-based counter index an increment statement updates.
fn counter_of(text: &str) -> Option<usize> {
    let rest = text.strip_prefix(&format!("{COUNTER_ARRAY}("))?;
    rest[..rest.find(')')?].parse().ok()
}

fn new_counter(p: &mut Plan) -> usize {
    p.counters += 1;
    p.counters - 1
}

/// The edits that make a unit use `module`: a USE right after its header (or before its
/// first statement), and PURE and ELEMENTAL procedures made impure (they may not update
/// the instrumentation's state).
pub(crate) fn use_module_edits(u: &Unit, text: &str, module: &str) -> Vec<Edit> {
    let mut edits = vec![];
    if u.header_text != TextPos::default() {
        edits.push(Edit::After {
            line: u.header_text.end_line,
            text: format!("use {module}"),
            order: 0,
        });
        let header_line = text.lines().nth(u.header_text.line as usize).unwrap_or("");
        let lower = header_line.to_ascii_lowercase();
        if has_word(&lower, "elemental") && !has_word(&lower, "impure") {
            edits.push(Edit::Replace {
                col: 0,
                line: u.header_text.line,
                from: "elemental".into(),
                to: "impure elemental".into(),
            });
        }
        if has_word(&lower, "pure") {
            edits.push(Edit::Replace {
                col: 0,
                line: u.header_text.line,
                from: "pure".into(),
                to: "".into(),
            });
        }
    } else if let Some(first) = u.stmts.first() {
        edits.push(Edit::Before {
            line: first.text.line,
            col: 0,
            take_label: false,
            text: format!("use {module}"),
            order: 0,
        });
    }
    edits
}

pub(crate) fn has_word(s: &str, w: &str) -> bool {
    s.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .any(|x| x == w)
}

/// Where control may go from inside loop `li` other than to its next iteration:
/// whether something inside may end the program (RETURN, STOP, a call that may
/// stop) and which blocks outside the loop are reached from inside (the header's
/// normal exit edge excluded).
fn loop_exits(info: &UnitInfo<'_>, li: usize, stoppers: &HashSet<String>) -> (bool, Vec<usize>) {
    let u = info.unit;
    let header = u.loops[li].header_block.0 as usize;
    let mut ends = false;
    let mut leaves = vec![];
    for (bi, b) in u.blocks.iter().enumerate() {
        if !info.in_loop(bi, li) {
            continue;
        }
        for &s in &b.stmts {
            match &u.stmts[s as usize].kind {
                StmtKind::Return | StmtKind::Stop => ends = true,
                StmtKind::Call { name, .. } if stoppers.contains(name) => ends = true,
                _ => {}
            }
        }
        for succ in &b.succs {
            let si = succ.0 as usize;
            if bi != header && !info.in_loop(si, li) {
                leaves.push(si);
            }
        }
    }
    (ends, leaves)
}

/// Whether a loop's iterations may be cut short: a branch from inside to outside the
/// loop other than its normal exit, RETURN, STOP, or a call that may end the program.
fn loop_may_exit_early(info: &UnitInfo<'_>, li: usize, stoppers: &HashSet<String>) -> bool {
    let (ends, leaves) = loop_exits(info, li, stoppers);
    ends || !leaves.is_empty()
}

/// Blocks inside loop `li` that EXIT it (their control goes to the block after the loop).
fn exit_blocks(info: &UnitInfo<'_>, li: usize) -> Vec<u32> {
    let u = info.unit;
    let mut out = vec![];
    for (bi, b) in u.blocks.iter().enumerate() {
        if !info.in_loop(bi, li) {
            continue;
        }
        let exits = b
            .stmts
            .iter()
            .any(|&s| matches!(u.stmts[s as usize].kind, StmtKind::Exit));
        if exits && b.succs.iter().any(|s| !info.in_loop(s.0 as usize, li)) {
            out.push(bi as u32);
        }
    }
    out
}

/// The loop whose body starts at block `bi` (the block right after the header).
fn body_start_of(u: &Unit, bi: usize) -> Option<usize> {
    u.loops.iter().position(|l| {
        !matches!(l.kind, LoopKind::ArrayElements | LoopKind::Goto) && l.body_block.0 as usize == bi
    })
}

/// Whether block `bi` starts with the guarded statement of a logical IF.
fn is_guarded(u: &Unit, bi: usize) -> bool {
    u.blocks.iter().any(|p| {
        matches!(p.kind, BlockKind::Entry | BlockKind::Straight)
            && p.stmts
                .last()
                .is_some_and(|&s| matches!(u.stmts[s as usize].kind, StmtKind::LogicalIf { .. }))
            && control_succs(u, p).first() == Some(&BlockId(bi as u32))
    })
}

/// A block's successors in program order, without the element blocks of its
/// whole-array operations (those are side loops, not control flow).
fn control_succs(u: &Unit, b: &augur_ir::Block) -> Vec<BlockId> {
    b.succs
        .iter()
        .copied()
        .filter(|s| u.blocks[s.0 as usize].kind != BlockKind::Elements)
        .collect()
}

/// Whether block `bi` holds an ELSE IF test (a test block reached from another test).
fn is_else_if(u: &Unit, bi: usize) -> bool {
    else_if_parents(u, bi).is_some()
}

/// For an ELSE IF test block: the previous test block and the previous arm's first block.
fn else_if_parents(u: &Unit, bi: usize) -> Option<(u32, u32)> {
    let me = BlockId(bi as u32);
    let prev = u.blocks.iter().find(|p| {
        let succs = control_succs(u, p);
        matches!(p.kind, BlockKind::Entry | BlockKind::Straight)
            && p.id != me
            && succs.len() >= 2
            && succs[1] == me
            && p.stmts
                .last()
                .is_some_and(|&s| matches!(u.stmts[s as usize].kind, StmtKind::If { .. }))
    })?;
    Some((prev.id.0, control_succs(u, prev)[0].0))
}

/// Whether a statement is the labelled terminal statement of a labelled DO loop.
fn is_do_terminal_with_label(u: &Unit, s: &Stmt) -> bool {
    match s.label {
        Some(l) => u.loops.iter().any(|lp| lp.label == Some(l)),
        None => false,
    }
}

/// The edits that move the end of the labelled DO loops ending at `stmt` to a new
/// `CONTINUE` right after it: the DO statements name a new label, written on a
/// `CONTINUE` after the statement. `None` when a DO statement does not show the label
/// as a word of its own (e.g. fixed form written without blanks, `DO30I=1,N`).
fn relabel_do_terminal(
    u: &Unit,
    stmt: &Stmt,
    text: &str,
    used: &mut HashSet<u32>,
) -> Option<Vec<Edit>> {
    let label = stmt.label?;
    let lines: Vec<&str> = text.lines().collect();
    let new = (10000..=99999u32).rev().find(|l| !used.contains(l))?;
    let mut edits = vec![];
    for (li, l) in u.loops.iter().enumerate() {
        if l.label != Some(label) {
            continue;
        }
        let do_stmt = u.stmts.iter().find(
            |s| matches!(&s.kind, StmtKind::Do { loop_id, .. } if loop_id.0 as usize == li),
        )?;
        let line = lines.get(do_stmt.text.line as usize)?;
        let tail = line.get(do_stmt.text.col as usize..)?;
        let from = label.to_string();
        let replaced = replace_word(tail, &from, &new.to_string());
        // The label must be the first number after the DO keyword.
        let lower = tail.to_ascii_lowercase();
        let after_do = lower.trim_start().strip_prefix("do")?.trim_start();
        if replaced == tail || !after_do.starts_with(&from) {
            return None;
        }
        edits.push(Edit::Replace {
            line: do_stmt.text.line,
            col: do_stmt.text.col,
            from,
            to: new.to_string(),
        });
    }
    if edits.is_empty() {
        return None;
    }
    used.insert(new);
    edits.push(Edit::After {
        line: stmt.text.end_line,
        text: format!("{new} CONTINUE"),
        order: 0,
    });
    Some(edits)
}

/// Text line ranges of WHERE constructs and statements, with the WHERE statement's position.
fn where_ranges(u: &Unit, text: &str) -> Vec<(u32, u32, TextPos)> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = vec![];
    for s in &u.stmts {
        if !matches!(s.kind, StmtKind::Where { .. }) {
            continue;
        }
        let start = s.text.line;
        // A WHERE statement has its assignment on the same (continued) line after the
        // mask; a WHERE construct runs to its END WHERE.
        let line_rest = lines
            .get(s.text.end_line as usize)
            .map(|l| {
                l.get(s.text.end_col as usize..)
                    .unwrap_or("")
                    .trim()
                    .to_string()
            })
            .unwrap_or_default();
        let is_construct = line_rest.is_empty() || line_rest.starts_with('!');
        // A WHERE statement ends with its assignment (possibly on a continuation line).
        let mut end = u
            .stmts
            .iter()
            .find(|x| (x.text.line, x.text.col) > (s.text.end_line, s.text.end_col))
            .map(|x| x.text.end_line)
            .unwrap_or(s.text.end_line);
        if is_construct {
            let mut depth = 1;
            for (i, l) in lines.iter().enumerate().skip(s.text.end_line as usize + 1) {
                let sq = squeezed_code(l);
                if sq.starts_with("endwhere") {
                    depth -= 1;
                    if depth == 0 {
                        end = i as u32;
                        break;
                    }
                } else if sq.starts_with("where(") && sq.ends_with(')') {
                    depth += 1;
                }
            }
        }
        if is_construct {
            end = end.max(s.text.end_line);
        }
        out.push((start, end, s.text));
    }
    out
}

/// Applies the plan's edits to the text of source `source`, returning the
/// instrumented text and, for each of its lines, the 0-based line of the input
/// text it came from (inserted lines map to the line they were inserted at).
pub fn rewrite(plan: &Plan, source: u32, text: &str) -> (String, Vec<u32>) {
    let empty = vec![];
    let edits = plan.edits.get(&source).unwrap_or(&empty);
    let mut before: HashMap<u32, Vec<(u32, u32, bool, &str)>> = HashMap::new();
    let mut after: HashMap<u32, Vec<(u32, &str)>> = HashMap::new();
    let mut guards: HashMap<u32, Vec<(TextPos, &str)>> = HashMap::new();
    let mut replaces: HashMap<u32, Vec<(usize, &str, &str)>> = HashMap::new();
    let mut inserts: HashMap<u32, Vec<(u32, &str)>> = HashMap::new();
    for e in edits {
        match e {
            Edit::Before {
                line,
                col,
                take_label,
                text,
                order,
            } => before
                .entry(*line)
                .or_default()
                .push((*col, *order, *take_label, text)),
            Edit::After { line, text, order } => {
                after.entry(*line).or_default().push((*order, text))
            }
            Edit::LogicalIf { guard, text } => {
                guards.entry(guard.line).or_default().push((*guard, text))
            }
            Edit::Replace {
                line,
                col,
                from,
                to,
            } => replaces
                .entry(*line)
                .or_default()
                .push((*col as usize, from, to)),
            Edit::Insert { line, col, text } => {
                inserts.entry(*line).or_default().push((*col, text))
            }
        }
    }
    let mut out = String::with_capacity(text.len() + edits.len() * 40);
    let mut map = Vec::new();
    let mut pending_endif: Vec<(u32, u32)> = vec![]; // (line, col) after which END IF goes
    for (i, raw) in text.lines().enumerate() {
        let i = i as u32;
        let mut line = raw.to_string();
        // Insertions inside statements, right to left; the columns of this line's other
        // edits move by what was inserted before them. Texts inserted at the same column
        // keep their order (the first planned ends up leftmost).
        let mut shifts: Vec<(u32, u32)> = vec![];
        if let Some(ins) = inserts.get(&i) {
            let mut ins: Vec<(usize, (u32, &str))> = ins.iter().copied().enumerate().collect();
            ins.sort_by_key(|(k, x)| (std::cmp::Reverse(x.0), std::cmp::Reverse(*k)));
            for (_, (col, t)) in ins {
                if line.is_char_boundary(col as usize) && col as usize <= line.len() {
                    line.insert_str(col as usize, t);
                    shifts.push((col, t.len() as u32));
                }
            }
        }
        let shifted = |c: u32| c + shifts.iter().filter(|s| s.0 <= c).map(|s| s.1).sum::<u32>();
        if let Some(rs) = replaces.get(&i) {
            for (col, from, to) in rs {
                line = match (line.get(..*col), line.get(*col..)) {
                    (Some(head), Some(tail)) => format!("{head}{}", replace_word(tail, from, to)),
                    _ => replace_word(&line, from, to),
                };
            }
        }
        // Logical IFs whose guarded statement starts on this line.
        let mut segments: Vec<(u32, String)> = vec![]; // pieces of this line to emit, with breaks
        let mut cut_points: Vec<(u32, String)> = vec![];
        if let Some(gs) = guards.get(&i) {
            for (g, t) in gs {
                cut_points.push((shifted(g.col), format!("THEN\n{t}\n")));
                pending_endif.push((g.end_line, g.end_col));
            }
        }
        // Counters before statements on this line.
        let mut label_taken = false;
        if let Some(bs) = before.get(&i) {
            let mut bs = bs.clone();
            bs.sort_by_key(|b| (b.0, b.1));
            for (col, _, take_label, t) in bs {
                let col = shifted(col);
                let prefix = line.get(..col as usize).unwrap_or("");
                let only_label = prefix.trim().chars().all(|c| c.is_ascii_digit());
                if only_label {
                    // Insert whole lines before this one, moving the label if asked.
                    let label = prefix.trim();
                    if take_label && !label.is_empty() && !label_taken {
                        out.push_str(label);
                        out.push(' ');
                        out.push_str(t);
                        out.push('\n');
                        map.push(i);
                        label_taken = true;
                    } else {
                        out.push_str(t);
                        out.push('\n');
                        map.push(i);
                    }
                } else {
                    cut_points.push((col, format!("\n{t}\n")));
                }
            }
        }
        if label_taken {
            // Blank out the label (keep columns).
            let lead = line.len() - line.trim_start().len();
            let digits = line[lead..]
                .chars()
                .take_while(|c| c.is_ascii_digit())
                .count();
            line.replace_range(lead..lead + digits, &" ".repeat(digits));
        }
        // END IFs for guarded statements ending on this line.
        let ends: Vec<u32> = pending_endif
            .iter()
            .filter(|(l, _)| *l == i)
            .map(|(_, c)| *c)
            .collect();
        pending_endif.retain(|(l, _)| *l != i);
        for c in ends {
            cut_points.push((shifted(c), "\nEND IF\n".into()));
        }
        cut_points.sort_by_key(|c| c.0);
        let mut last = 0usize;
        for (col, ins) in cut_points {
            let col = (col as usize).min(line.len());
            if col < last {
                continue;
            }
            let piece = &line[last..col];
            segments.push((0, piece.to_string()));
            segments.push((0, ins));
            last = col;
        }
        segments.push((0, line[last..].to_string()));
        // Emit, cleaning a `;` left at the start of a line by a split.
        let joined: String = segments.into_iter().map(|s| s.1).collect();
        for part in joined.split('\n') {
            let p = part.trim_start();
            let p = if let Some(rest) = p.strip_prefix(';') {
                rest.to_string()
            } else {
                part.to_string()
            };
            out.push_str(&p);
            out.push('\n');
            map.push(i);
        }
        if let Some(a) = after.get(&i) {
            let mut a = a.clone();
            a.sort_by_key(|x| x.0);
            for (_, t) in a {
                out.push_str(t);
                out.push('\n');
                map.push(i);
            }
        }
    }
    (out, map)
}

fn replace_word(line: &str, from: &str, to: &str) -> String {
    let lower = line.to_ascii_lowercase();
    let bytes = lower.as_bytes();
    let mut start = 0;
    while let Some(pos) = lower[start..].find(from) {
        let a = start + pos;
        let b = a + from.len();
        let before_ok = a == 0 || !(bytes[a - 1].is_ascii_alphanumeric() || bytes[a - 1] == b'_');
        let after_ok = b >= bytes.len() || !(bytes[b].is_ascii_alphanumeric() || bytes[b] == b'_');
        if before_ok && after_ok {
            return format!("{}{}{}", &line[..a], to, &line[b..]);
        }
        start = b;
    }
    line.to_string()
}

/// The Fortran module declaring the counters, shared with the C runtime.
pub fn counter_module(counters: usize) -> String {
    format!(
        "module {COUNTER_MODULE}\n  use iso_c_binding, only: c_int64_t\n  implicit none\n  integer(c_int64_t), bind(C, name=\"augur_counts\") :: {COUNTER_ARRAY}({n})\n  integer(c_int64_t), bind(C, name=\"augur_ncounts\") :: augur_n = {n}\nend module {COUNTER_MODULE}\n",
        n = counters.max(1)
    )
}

/// What a declaration says about an array name, from the source text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Attr {
    Allocatable,
    Pointer,
}

/// Names declared ALLOCATABLE or POINTER anywhere in the texts (a name
/// declared both ways is left out).
fn declared_attributes(texts: &[Option<&str>]) -> HashMap<String, Option<Attr>> {
    let mut out: HashMap<String, Option<Attr>> = HashMap::new();
    for t in texts.iter().flatten() {
        for line in t.lines() {
            let l = line.to_ascii_lowercase();
            let code = l.split('!').next().unwrap_or("");
            let attr = if has_word(code, "allocatable") {
                Attr::Allocatable
            } else if has_word(code, "pointer") {
                Attr::Pointer
            } else {
                continue;
            };
            let names = match code.find("::") {
                Some(i) => &code[i + 2..],
                None => continue,
            };
            for w in names
                .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .filter(|w| w.chars().next().is_some_and(|c| c.is_ascii_alphabetic()))
            {
                match out.get(w) {
                    Some(Some(a)) if *a != attr => {
                        out.insert(w.to_string(), None);
                    }
                    Some(_) => {}
                    None => {
                        out.insert(w.to_string(), Some(attr));
                    }
                }
            }
        }
    }
    out
}

/// The expressions a statement evaluates.
fn stmt_exprs(st: &Stmt) -> Vec<&augur_ir::Expr> {
    match &st.kind {
        StmtKind::Assign { lhs, rhs } => vec![rhs, lhs],
        StmtKind::If { cond } | StmtKind::LogicalIf { cond } => vec![cond],
        StmtKind::Where { mask } => vec![mask],
        StmtKind::Io { items, .. } => items.iter().collect(),
        StmtKind::Call { args, .. } => args.iter().collect(),
        StmtKind::Do { exprs, .. } => exprs.iter().collect(),
        StmtKind::Select { expr } | StmtKind::ArithmeticIf { expr, .. } => vec![expr],
        StmtKind::ComputedGoto { expr, .. } => vec![expr],
        _ => vec![],
    }
}

/// The integer scalars (not named constants) the loops of the nest rooted at loop
/// `root` read in their bounds, in their subscripts and in the declared extents of the
/// arrays they reference, less those the nest may change (assigned, DO variables, READ
/// items and CALL arguments): at most [`ENV_MAX_VARS`], by name.
fn nest_env_vars(u: &Unit, info: &UnitInfo<'_>, root: usize) -> Vec<String> {
    fn scalars(e: &augur_ir::Expr, out: &mut Vec<String>) {
        match &e.kind {
            augur_ir::ExprKind::Var(v) if v.rank == 0 && !v.constant => out.push(v.name.clone()),
            augur_ir::ExprKind::Elem(..) => {
                for x in e.subscript_exprs() {
                    scalars(x, out);
                }
            }
            _ => {
                for o in e.operands() {
                    scalars(o, out);
                }
            }
        }
    }
    fn subscript_scalars(e: &augur_ir::Expr, out: &mut Vec<String>) {
        if let augur_ir::ExprKind::Elem(..) = &e.kind {
            scalars(e, out);
        }
        for o in e.operands() {
            subscript_scalars(o, out);
        }
    }
    let mut read = vec![];
    let mut changed: HashSet<String> = HashSet::new();
    let mut arrays = vec![];
    for (bi, b) in u.blocks.iter().enumerate() {
        if !info.in_loop(bi, root) {
            continue;
        }
        for &si in &b.stmts {
            let st = &u.stmts[si as usize];
            match &st.kind {
                StmtKind::Do { exprs, loop_id } => {
                    if let Some(v) = &u.loops[loop_id.0 as usize].var {
                        changed.insert(v.clone());
                    }
                    for e in exprs {
                        scalars(e, &mut read);
                    }
                }
                StmtKind::Assign { lhs, .. } => {
                    if let augur_ir::ExprKind::Var(v) = &lhs.kind {
                        changed.insert(v.name.clone());
                    }
                }
                StmtKind::Io { items, .. } | StmtKind::Call { args: items, .. } => {
                    for e in items {
                        let mut v = vec![];
                        scalars(e, &mut v);
                        changed.extend(v);
                    }
                }
                _ => {}
            }
            for e in stmt_exprs(st) {
                subscript_scalars(e, &mut read);
                array_names(e, &mut arrays);
            }
        }
    }
    for a in &arrays {
        let Some(sym) = u.symbol(a) else { continue };
        for d in &sym.dims {
            for t in [&d.lower, &d.upper].into_iter().flatten() {
                read.extend(
                    t.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                        .filter(|w| w.chars().next().is_some_and(|c| c.is_ascii_alphabetic()))
                        .map(|w| w.to_ascii_lowercase()),
                );
            }
        }
    }
    let mut vars: Vec<String> = read
        .into_iter()
        .filter(|n| !changed.contains(n))
        .filter(|n| {
            u.symbol(n).is_some_and(|s| {
                s.dims.is_empty()
                    && !s.procedure
                    && s.ty.base == augur_ir::BaseType::Integer
                    && !matches!(s.storage, augur_ir::Storage::Parameter)
            })
        })
        .collect();
    vars.sort();
    vars.dedup();
    vars.truncate(ENV_MAX_VARS);
    vars
}

/// The DO statement of loop `li` (in its entry block), if any.
pub(crate) fn do_statement(u: &Unit, li: usize) -> Option<&Stmt> {
    let l = u.loops.get(li)?;
    u.blocks[l.entry_block.0 as usize]
        .stmts
        .iter()
        .map(|&s| &u.stmts[s as usize])
        .find(|s| matches!(&s.kind, StmtKind::Do { loop_id, .. } if loop_id.0 as usize == li))
}

/// Names of the arrays referenced in `e`.
fn array_names(e: &augur_ir::Expr, out: &mut Vec<String>) {
    let mut v = vec![];
    augur_locality::extract::arrays_in(e, &mut v);
    out.extend(v.into_iter().map(|v| v.name));
}

/// Element references (scalar, numeric) in `e`, outermost first.
fn element_refs<'e>(e: &'e augur_ir::Expr, out: &mut Vec<&'e augur_ir::Expr>) {
    augur_locality::extract::visit_refs(e, &mut |x| {
        let numeric = matches!(
            x.ty.base,
            augur_ir::BaseType::Integer
                | augur_ir::BaseType::Real
                | augur_ir::BaseType::Complex
                | augur_ir::BaseType::Logical
        );
        if let augur_ir::ExprKind::Elem(v, _) = &x.kind {
            if !x.array && !v.constant && numeric {
                out.push(x);
            }
        }
    });
}

/// Why a subscript is not affine in the loop indices `indices`, when it is
/// not: it reads an array element, calls a function, or uses a variable
/// assigned inside the loops (`changing`).
fn not_affine(
    e: &augur_ir::Expr,
    indices: &[String],
    changing: &HashSet<String>,
) -> Option<String> {
    use augur_ir::{BinOp, ExprKind};
    match &e.kind {
        ExprKind::Elem(v, _) => Some(format!("subscript: indirect through `{}`", v.name)),
        ExprKind::Call(..) => Some("subscript: a function call".into()),
        ExprKind::Var(v) if !indices.contains(&v.name) && changing.contains(&v.name) => {
            Some(format!("subscript: `{}` changes inside the loop", v.name))
        }
        ExprKind::Unary(_, a) => not_affine(a, indices, changing),
        ExprKind::Binary(op, a, b) => {
            let r = not_affine(a, indices, changing).or_else(|| not_affine(b, indices, changing));
            if r.is_some() {
                return r;
            }
            let varies = |x: &augur_ir::Expr| {
                let mut n = vec![];
                scalar_names(x, &mut n);
                n.iter().any(|n| indices.contains(n))
            };
            match op {
                BinOp::Mul if varies(a) && varies(b) => {
                    Some("subscript: not linear in the loop indices".into())
                }
                BinOp::Div | BinOp::Pow if varies(a) || varies(b) => {
                    Some("subscript: not linear in the loop indices".into())
                }
                _ => None,
            }
        }
        _ => None,
    }
}

fn scalar_names(e: &augur_ir::Expr, out: &mut Vec<String>) {
    use augur_ir::ExprKind;
    match &e.kind {
        ExprKind::Var(v) => out.push(v.name.clone()),
        ExprKind::Unary(_, a) => scalar_names(a, out),
        ExprKind::Binary(_, a, b) => {
            scalar_names(a, out);
            scalar_names(b, out);
        }
        _ => {}
    }
}

/// Most references probed in one program.
const MAX_PROBES: usize = 4096;

/// The locality instrumentation of one unit: shape records of arrays whose
/// declaration does not give their shape, and address probes of the
/// references that are not affine inside loops.
fn plan_locality(
    p: &mut Plan,
    ui: usize,
    u: &Unit,
    stoppers: &HashSet<String>,
    text: &str,
    attrs: &HashMap<String, Option<Attr>>,
) {
    let info = UnitInfo::new(u);
    let where_ranges = where_ranges(u, text);
    let in_where = |s: &Stmt| {
        where_ranges
            .iter()
            .any(|(a, b, _)| s.text.line >= *a && s.text.line <= *b)
    };
    // Owner block of every statement: the first non-element block holding it.
    let mut owner: Vec<Option<usize>> = vec![None; u.stmts.len()];
    for (bi, b) in u.blocks.iter().enumerate() {
        if b.kind == BlockKind::Elements {
            continue;
        }
        for &s in &b.stmts {
            if owner[s as usize].is_none() {
                owner[s as usize] = Some(bi);
            }
        }
    }
    // The unit's specification text: from its header to its first executable
    // statement.
    let lines: Vec<&str> = text.lines().collect();
    let spec_end = u
        .stmts
        .iter()
        .find(|s| !matches!(s.kind, StmtKind::NonExecutable))
        .map_or(u.header_text.line as usize + 1, |s| s.text.line as usize);
    let spec: Vec<String> = lines
        .get(u.header_text.line as usize..spec_end.min(lines.len()))
        .unwrap_or(&[])
        .iter()
        .map(|l| l.to_ascii_lowercase())
        .collect();
    // The guard of a shape record, or None when it cannot be recorded safely.
    let guard_of = |name: &str| -> Option<Option<&'static str>> {
        let sym = u.symbol(name)?;
        if sym.dims.is_empty() || matches!(sym.storage, augur_ir::Storage::Parameter) {
            return None;
        }
        let open = sym
            .dims
            .iter()
            .any(|d| d.upper.is_none() && d.extent.is_none());
        if !open {
            return None;
        }
        let local_decl: Vec<&String> = spec.iter().filter(|l| has_word(l, name)).collect();
        let local_attr = if local_decl.iter().any(|l| has_word(l, "allocatable")) {
            Some(Attr::Allocatable)
        } else if local_decl.iter().any(|l| has_word(l, "pointer")) {
            Some(Attr::Pointer)
        } else {
            None
        };
        let attr = match sym.storage {
            augur_ir::Storage::Dummy => {
                if local_attr.is_none() && local_decl.iter().any(|l| l.contains('*')) {
                    // Possibly assumed size: SIZE of its last dimension is illegal.
                    return None;
                }
                local_attr
            }
            _ => Some(local_attr.or(attrs.get(name).copied().flatten())?),
        };
        Some(match attr {
            Some(Attr::Allocatable) => Some("allocated"),
            Some(Attr::Pointer) => Some("associated"),
            None => None,
        })
    };
    let mut slot_of: HashMap<String, Option<(usize, usize)>> = HashMap::new();
    let mut record = |p: &mut Plan, names: &[String]| -> String {
        let mut out = vec![];
        let mut seen = HashSet::new();
        for n in names {
            if !seen.insert(n.clone()) {
                continue;
            }
            let entry = slot_of.entry(n.clone()).or_insert_with(|| {
                guard_of(n)?;
                let rank = u.symbol(n)?.dims.len();
                let first = p.shape_slots;
                p.shape_slots += 2 * rank;
                p.shapes.push(ShapeSlots {
                    unit: ui,
                    array: n.clone(),
                    rank,
                    first,
                });
                Some((first, rank))
            });
            let Some((first, rank)) = *entry else {
                continue;
            };
            let guard = guard_of(n).flatten();
            for d in 0..rank {
                for (k, f) in [(0, "lbound"), (1, "size")] {
                    let st = format!(
                        "{SHAPE_ARRAY}({}) = {f}({n}, {})",
                        first + 2 * d + k + 1,
                        d + 1
                    );
                    out.push(match guard {
                        Some(g) => format!("if ({g}({n})) {st}"),
                        None => st,
                    });
                }
            }
        }
        out.join("\n")
    };
    let mut new_edits: Vec<Edit> = vec![];
    // (line after which to record, arrays)
    let mut wanted: Vec<(u32, Vec<String>)> = vec![];
    // Shapes after every whole-array statement in a loop or outside.
    for l in &u.loops {
        if l.kind != LoopKind::ArrayElements {
            continue;
        }
        let Some(&si) = u.blocks[l.header_block.0 as usize].stmts.first() else {
            continue;
        };
        let st = &u.stmts[si as usize];
        if in_where(st) {
            continue;
        }
        let mut names = vec![];
        for e in stmt_exprs(st) {
            array_names(e, &mut names);
        }
        wanted.push((st.text.end_line, names));
    }
    // Shapes after the outermost DO loops that reference such arrays.
    let mut stack: Vec<usize> = u
        .loops
        .iter()
        .filter(|l| l.parent.is_none())
        .map(|l| l.id.0 as usize)
        .collect();
    while let Some(li) = stack.pop() {
        let l = &u.loops[li];
        if matches!(l.kind, LoopKind::ArrayElements) {
            continue;
        }
        let early = loop_may_exit_early(&info, li, stoppers);
        let do_stmt = do_statement(u, li);
        let placeable =
            !early && l.end_text != TextPos::default() && do_stmt.is_some_and(|d| !in_where(d));
        if !placeable {
            stack.extend(
                u.loops
                    .iter()
                    .filter(|c| c.parent == Some(l.id))
                    .map(|c| c.id.0 as usize),
            );
            continue;
        }
        let mut names = vec![];
        for (bi, b) in u.blocks.iter().enumerate() {
            if !info.in_loop(bi, li) {
                continue;
            }
            for &s in &b.stmts {
                for e in stmt_exprs(&u.stmts[s as usize]) {
                    array_names(e, &mut names);
                }
            }
        }
        wanted.push((l.end_text.end_line, names));
    }
    for (line, names) in wanted {
        let text = record(p, &names);
        if !text.is_empty() {
            new_edits.push(Edit::After {
                line,
                text,
                order: 10,
            });
        }
    }
    // The values of the scalars each outermost DO nest depends on, at its every entry.
    let mut roots: Vec<usize> = u
        .loops
        .iter()
        .filter(|l| l.parent.is_none())
        .map(|l| l.id.0 as usize)
        .collect();
    roots.reverse();
    while let Some(li) = roots.pop() {
        let l = &u.loops[li];
        let do_stmt = do_statement(u, li);
        let Some(ds) = do_stmt.filter(|d| l.kind == LoopKind::Counted && !in_where(d)) else {
            roots.extend(
                u.loops
                    .iter()
                    .filter(|c| c.parent == Some(l.id))
                    .map(|c| c.id.0 as usize),
            );
            continue;
        };
        if p.env_probes.len() >= MAX_PROBES {
            break;
        }
        let vars = nest_env_vars(u, &info, li);
        if vars.is_empty() {
            continue;
        }
        let id = p.env_probes.len();
        let values: Vec<String> = vars.iter().map(|v| format!("int({v}, 8)")).collect();
        new_edits.push(Edit::Before {
            line: ds.text.line,
            col: ds.text.col,
            take_label: true,
            text: format!(
                "call augur_env({id}, {}, [ &\n{} ])",
                vars.len(),
                values.join(", &\n")
            ),
            order: 1,
        });
        p.env_probes.push(EnvProbe {
            unit: ui,
            root: li as u32,
            vars,
        });
    }
    // Probes of the references that are not affine, in loops.
    for (si, st) in u.stmts.iter().enumerate() {
        if p.probes.len() >= MAX_PROBES {
            break;
        }
        let Some(bi) = owner[si] else { continue };
        let chain: Vec<usize> = info.loop_chain[bi]
            .iter()
            .copied()
            .filter(|&l| u.loops[l].kind != LoopKind::ArrayElements)
            .collect();
        if chain.is_empty()
            || in_where(st)
            || is_guarded(u, bi)
            || (matches!(st.kind, StmtKind::If { .. }) && is_else_if(u, bi))
        {
            continue;
        }
        let exprs: Vec<&augur_ir::Expr> = match &st.kind {
            StmtKind::Assign { lhs, rhs } if !lhs.array => vec![rhs, lhs],
            StmtKind::If { cond } | StmtKind::LogicalIf { cond } => vec![cond],
            StmtKind::ArithmeticIf { expr, .. } => vec![expr],
            _ => continue,
        };
        let outer = chain[0];
        let indices: Vec<String> = chain
            .iter()
            .filter_map(|&l| u.loops[l].var.as_ref().map(|v| v.to_lowercase()))
            .collect();
        let mut changing: HashSet<String> = HashSet::new();
        for (bj, b) in u.blocks.iter().enumerate() {
            if !info.in_loop(bj, outer) {
                continue;
            }
            for &s in &b.stmts {
                if let StmtKind::Assign { lhs, .. } = &u.stmts[s as usize].kind {
                    if let augur_ir::ExprKind::Var(v) = &lhs.kind {
                        changing.insert(v.name.clone());
                    }
                }
            }
        }
        // Indices of the loops around whose step changes inside the nest (`DO J = I*I,
        // N, I` in a GOTO loop over `I`): the extraction knows their trip counts, not
        // their addresses.
        let unknown_step: Vec<String> = chain
            .iter()
            .filter_map(|&l| {
                let var = u.loops[l].var.as_ref()?.to_lowercase();
                let StmtKind::Do { exprs: bounds, .. } = &do_statement(u, l)?.kind else {
                    return None;
                };
                let mut read = vec![];
                scalar_names(bounds.get(2)?, &mut read);
                read.iter().any(|n| changing.contains(n)).then_some(var)
            })
            .collect();
        let mut refs = vec![];
        for e in exprs {
            element_refs(e, &mut refs);
        }
        let mut text_out = vec![];
        for r in refs {
            let augur_ir::ExprKind::Elem(v, subs) = &r.kind else {
                continue;
            };
            let reason = subs.iter().find_map(|s| match s {
                augur_ir::Subscript::Index(x) => not_affine(x, &indices, &changing).or_else(|| {
                    let mut read = vec![];
                    scalar_names(x, &mut read);
                    read.iter().find(|n| unknown_step.contains(n)).map(|n| {
                        format!(
                            "subscript: the step of the loop over `{n}` changes inside the loop"
                        )
                    })
                }),
                augur_ir::Subscript::Range(..) => None,
            });
            let Some(reason) = reason else { continue };
            if p.probes.len() >= MAX_PROBES {
                break;
            }
            let mut vars = vec![];
            for s in subs {
                if let augur_ir::Subscript::Index(x) = s {
                    augur_ir::chain::scalars_read(x, &mut vars);
                }
            }
            let id = p.probes.len();
            p.probes.push(Probe {
                unit: ui,
                line: st.span.start.line,
                array: v.name.clone(),
                text: r.to_string(),
                loops: chain.iter().map(|&l| l as u32).collect(),
                reason,
                subscript_vars: vars.into_iter().map(str::to_string).collect(),
            });
            text_out.push(format!("call augur_probe({id}, loc({r}))"));
        }
        if !text_out.is_empty() {
            new_edits.push(Edit::Before {
                line: st.text.line,
                col: st.text.col,
                take_label: false,
                text: text_out.join("\n"),
                order: 6,
            });
        }
    }
    p.edits.entry(u.source).or_default().extend(new_edits);
}

/// The Fortran module declaring the counters, the shape slots and the
/// address probe, shared with the C runtime.
pub fn module_for(plan: &Plan) -> String {
    format!(
        "module {COUNTER_MODULE}\n  use iso_c_binding, only: c_int64_t, c_int32_t\n  implicit none\n  integer(c_int64_t), bind(C, name=\"augur_counts\") :: {COUNTER_ARRAY}({n})\n  integer(c_int64_t), bind(C, name=\"augur_ncounts\") :: augur_n = {n}\n  integer(c_int64_t), bind(C, name=\"augur_shapes\") :: {SHAPE_ARRAY}({m})\n  integer(c_int64_t), bind(C, name=\"augur_nshapes\") :: augur_ns = {m}\n  integer(c_int64_t), bind(C, name=\"augur_nprobes\") :: augur_np = {q}\n  integer(c_int64_t), bind(C, name=\"augur_nenv\") :: augur_ne = {e}\n  interface\n    subroutine augur_probe(id, addr) bind(C, name=\"augur_probe\")\n      import :: c_int32_t, c_int64_t\n      integer(c_int32_t), value :: id\n      integer(c_int64_t), value :: addr\n    end subroutine augur_probe\n    subroutine augur_env(id, n, v) bind(C, name=\"augur_env\")\n      import :: c_int32_t, c_int64_t\n      integer(c_int32_t), value :: id, n\n      integer(c_int64_t), intent(in) :: v(*)\n    end subroutine augur_env\n  end interface\nend module {COUNTER_MODULE}\n",
        n = plan.counters.max(1),
        m = plan.shape_slots.max(1),
        q = plan.probes.len(),
        e = plan.env_probes.len(),
    )
}

/// The C runtime: writes the counters when the program ends (normal end, STOP,
/// ERROR STOP or `exit()`), to the file named by `AUGUR_COUNTS_FILE`.
pub const RUNTIME_C: &str = r#"/* augur runtime: dumps the block counters, the recorded array shapes and the
   program's minor page faults at program exit, and samples the addresses of probed references (SHARDS:
   a line is kept when the top `shift` bits of its hash are zero; the rate
   halves whenever more than the buffer's samples qualify). */
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <sys/resource.h>
extern int64_t augur_counts[];
extern int64_t augur_ncounts;
extern int64_t augur_shapes[];
extern int64_t augur_nshapes;
extern int64_t augur_nprobes;
#define AUGUR_MAX_SAMPLES (1u << 22)
static uint64_t *augur_addr;
static uint32_t *augur_id;
static uint32_t *augur_reps;
static uint64_t *augur_calls;
static size_t augur_ns_kept;
static size_t augur_ns_peak;
static long augur_flt0;
static unsigned augur_shift;
static int augur_failed;
static inline uint64_t augur_mix(uint64_t x) {
    x ^= x >> 30; x *= 0xbf58476d1ce4e5b9ULL;
    x ^= x >> 27; x *= 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}
static inline int augur_keep(uint64_t addr, unsigned shift) {
    return shift == 0 || (augur_mix((addr >> 6) ^ 0x5851f42d4c957f2dULL) >> (64 - shift)) == 0;
}
void augur_probe(int32_t id, int64_t addr) {
    if (augur_failed || id < 0 || id >= augur_nprobes) return;
    if (!augur_calls) {
        augur_calls = calloc((size_t)augur_nprobes, sizeof(uint64_t));
        augur_addr = malloc(AUGUR_MAX_SAMPLES * sizeof(uint64_t));
        augur_id = malloc(AUGUR_MAX_SAMPLES * sizeof(uint32_t));
        augur_reps = malloc(AUGUR_MAX_SAMPLES * sizeof(uint32_t));
        if (!augur_calls || !augur_addr || !augur_id || !augur_reps) { augur_failed = 1; return; }
    }
    augur_calls[id]++;
    if (!augur_keep((uint64_t)addr, augur_shift)) return;
    /* The same probe on the same line as the sample before: distance 0,
       kept as a repeat count (dropping it changes no other distance). */
    if (augur_ns_kept > 0 && augur_id[augur_ns_kept - 1] == (uint32_t)id
        && (augur_addr[augur_ns_kept - 1] >> 6) == ((uint64_t)addr >> 6)
        && augur_reps[augur_ns_kept - 1] < UINT32_MAX) {
        augur_reps[augur_ns_kept - 1]++;
        return;
    }
    while (augur_ns_kept == AUGUR_MAX_SAMPLES) {
        size_t j = 0;
        augur_shift++;
        if (augur_shift >= 63) { augur_failed = 1; return; }
        for (size_t i = 0; i < augur_ns_kept; i++)
            if (augur_keep(augur_addr[i], augur_shift)) {
                augur_addr[j] = augur_addr[i]; augur_id[j] = augur_id[i];
                augur_reps[j] = augur_reps[i]; j++;
            }
        augur_ns_kept = j;
        if (!augur_keep((uint64_t)addr, augur_shift)) return;
    }
    augur_addr[augur_ns_kept] = (uint64_t)addr;
    augur_id[augur_ns_kept] = (uint32_t)id;
    augur_reps[augur_ns_kept] = 0;
    augur_ns_kept++;
    if (augur_ns_kept > augur_ns_peak) augur_ns_peak = augur_ns_kept;
}
/* The integer values a loop nest depends on at each entry: distinct tuples per nest
   with their counts, in an open-addressing table; a nest's tuples beyond
   AUGUR_ENV_PER or beyond the table's three quarters are only counted. */
extern int64_t augur_nenv;
#define AUGUR_ENV_VARS 6
#define AUGUR_ENV_SLOTS (1u << 14)
#define AUGUR_ENV_PER 64
typedef struct { int32_t id, n; int64_t v[AUGUR_ENV_VARS]; uint64_t count; } augur_env_t;
static augur_env_t *augur_envs;
static uint64_t *augur_env_other;
static uint32_t *augur_env_distinct;
static size_t augur_env_used;
static int augur_env_failed;
void augur_env(int32_t id, int32_t n, const int64_t *v) {
    if (augur_env_failed || id < 0 || id >= augur_nenv || n < 0 || n > AUGUR_ENV_VARS) return;
    if (!augur_envs) {
        augur_envs = calloc(AUGUR_ENV_SLOTS, sizeof(augur_env_t));
        augur_env_other = calloc((size_t)augur_nenv, sizeof(uint64_t));
        augur_env_distinct = calloc((size_t)augur_nenv, sizeof(uint32_t));
        if (!augur_envs || !augur_env_other || !augur_env_distinct) { augur_env_failed = 1; return; }
    }
    uint64_t h = augur_mix((uint64_t)id + 1);
    for (int32_t i = 0; i < n; i++) h = augur_mix(h ^ (uint64_t)v[i]);
    size_t s = (size_t)(h & (AUGUR_ENV_SLOTS - 1));
    for (;;) {
        augur_env_t *e = &augur_envs[s];
        if (e->count == 0) {
            if (augur_env_used >= AUGUR_ENV_SLOTS / 4 * 3 || augur_env_distinct[id] >= AUGUR_ENV_PER) {
                augur_env_other[id]++;
                return;
            }
            e->id = id; e->n = n;
            for (int32_t i = 0; i < n; i++) e->v[i] = v[i];
            e->count = 1;
            augur_env_used++;
            augur_env_distinct[id]++;
            return;
        }
        if (e->id == id && e->n == n && memcmp(e->v, v, (size_t)n * sizeof(int64_t)) == 0) {
            e->count++;
            return;
        }
        s = (s + 1) & (AUGUR_ENV_SLOTS - 1);
    }
}
static long augur_minflt(void) {
    struct rusage u;
    return getrusage(RUSAGE_SELF, &u) == 0 ? u.ru_minflt : -1;
}
static void augur_dump(void) {
    long flt = augur_minflt();
    const char *path = getenv("AUGUR_COUNTS_FILE");
    if (!path) return;
    FILE *f = fopen(path, "w");
    if (!f) return;
    fprintf(f, "augur-counts %lld\n", (long long)augur_ncounts);
    for (int64_t i = 0; i < augur_ncounts; i++) fprintf(f, "%lld\n", (long long)augur_counts[i]);
    fprintf(f, "end\n");
    fprintf(f, "augur-shapes %lld\n", (long long)augur_nshapes);
    for (int64_t i = 0; i < augur_nshapes; i++) fprintf(f, "%lld\n", (long long)augur_shapes[i]);
    fprintf(f, "end\n");
    /* Minor page faults from the start of the program to its end (first touches of its
       memory), and the pages the sample buffers above took of them. */
    if (augur_flt0 >= 0 && flt >= 0)
        fprintf(f, "augur-faults %ld %lu\n", flt - augur_flt0,
                (unsigned long)((augur_ns_peak * 16 + 4095) / 4096));
    if (augur_envs) {
        fprintf(f, "augur-env %lu\n", (unsigned long)augur_env_used);
        for (size_t i = 0; i < AUGUR_ENV_SLOTS; i++) {
            augur_env_t *e = &augur_envs[i];
            if (e->count == 0) continue;
            fprintf(f, "%d %llu", e->id, (unsigned long long)e->count);
            for (int32_t k = 0; k < e->n; k++) fprintf(f, " %lld", (long long)e->v[k]);
            fprintf(f, "\n");
        }
        fprintf(f, "augur-env-other\n");
        for (int64_t i = 0; i < augur_nenv; i++)
            if (augur_env_other[i]) fprintf(f, "%lld %llu\n", (long long)i, (unsigned long long)augur_env_other[i]);
        fprintf(f, "end\n");
    }
    fclose(f);
    if (augur_nprobes <= 0) return;
    size_t n = strlen(path);
    char *sp = malloc(n + 9);
    if (!sp) return;
    memcpy(sp, path, n);
    memcpy(sp + n, ".samples", 9);
    FILE *g = fopen(sp, "wb");
    free(sp);
    if (!g) return;
    fprintf(g, "augur-samples %lld %u %llu %d\n", (long long)augur_nprobes, augur_shift,
            (unsigned long long)augur_ns_kept, augur_failed);
    for (int64_t i = 0; i < augur_nprobes; i++)
        fprintf(g, "%llu\n", (unsigned long long)(augur_calls ? augur_calls[i] : 0));
    if (augur_ns_kept) {
        fwrite(augur_id, sizeof(uint32_t), augur_ns_kept, g);
        fwrite(augur_addr, sizeof(uint64_t), augur_ns_kept, g);
        fwrite(augur_reps, sizeof(uint32_t), augur_ns_kept, g);
    }
    fclose(g);
}
__attribute__((constructor)) static void augur_init(void) {
    augur_flt0 = augur_minflt();
    atexit(augur_dump);
}
"#;

/// Counts of every block of every unit, from the counter values and the plan's rules.
/// Blocks whose count is not needed get `None`.
pub fn block_counts(program: &Program, plan: &Plan, counters: &[i64]) -> Vec<Vec<Option<f64>>> {
    program
        .units
        .iter()
        .zip(&plan.rules)
        .map(|(u, rules)| {
            let mut memo: Vec<Option<Option<f64>>> = vec![None; u.blocks.len()];
            (0..u.blocks.len())
                .map(|b| resolve(b, rules, counters, &mut memo, 0))
                .collect()
        })
        .collect()
}

fn resolve(
    b: usize,
    rules: &[Rule],
    counters: &[i64],
    memo: &mut Vec<Option<Option<f64>>>,
    depth: usize,
) -> Option<f64> {
    if let Some(v) = memo[b] {
        return v;
    }
    if depth > rules.len() {
        return None;
    }
    let c = |k: usize| counters.get(k).map(|&v| v as f64);
    let v = match &rules[b] {
        Rule::Counter { k } => c(*k),
        Rule::SameAs { block } => resolve(*block as usize, rules, counters, memo, depth + 1),
        Rule::Difference { plus, minus } => {
            let p = resolve(*plus as usize, rules, counters, memo, depth + 1);
            let m = resolve(*minus as usize, rules, counters, memo, depth + 1);
            match (p, m) {
                (Some(p), Some(m)) => Some(p - m),
                _ => None,
            }
        }
        Rule::WhileTests {
            iterations,
            after,
            exits,
        } => {
            let mut t = c(*iterations)? + c(*after)?;
            for e in exits {
                t -= resolve(*e as usize, rules, counters, memo, depth + 1)?;
            }
            Some(t)
        }
        Rule::IterationsPlusEntries {
            iterations,
            entries,
        } => Some(c(*iterations)? + resolve(*entries as usize, rules, counters, memo, depth + 1)?),
        Rule::NotNeeded => None,
    };
    memo[b] = Some(v);
    v
}

/// Whether Fortran text mentions one of the names as a whole word.
fn mentions_any(text: &str, names: &[String]) -> bool {
    let lower = text.to_ascii_lowercase();
    names.iter().any(|n| has_word(&lower, n))
}

/// If block `bi` follows a logical IF `T` whose guarded block `G` always falls
/// through to it, and nothing else reaches it, its count is `T`'s: returns `T`.
fn after_logical_if(
    u: &Unit,
    bi: usize,
    preds: &[Vec<u32>],
    stoppers: &HashSet<String>,
) -> Option<u32> {
    let ps = &preds[bi];
    if ps.len() != 2 {
        return None;
    }
    for &t in ps {
        let tb = &u.blocks[t as usize];
        let is_logical_if = matches!(tb.kind, BlockKind::Entry | BlockKind::Straight)
            && tb
                .stmts
                .last()
                .is_some_and(|&s| matches!(u.stmts[s as usize].kind, StmtKind::LogicalIf { .. }));
        if !is_logical_if {
            continue;
        }
        let succs = control_succs(u, tb);
        if succs.len() != 2 || succs[1].0 as usize != bi {
            continue;
        }
        let g = succs[0];
        let other = ps.iter().copied().find(|&x| x != t)?;
        if other != g.0 {
            continue;
        }
        let gb = &u.blocks[g.0 as usize];
        // A guarded call that may end the program would leave this block one short.
        let may_end = gb.stmts.iter().any(|&s| match &u.stmts[s as usize].kind {
            StmtKind::Stop => true,
            StmtKind::Call { name, .. } => stoppers.contains(name),
            _ => false,
        });
        if !may_end && control_succs(u, gb) == [BlockId(bi as u32)] && preds[g.0 as usize] == [t] {
            return Some(t);
        }
    }
    None
}

/// The edit counting the iterations of a loop into counter `k`: an increment at the
/// top of its body.
fn iteration_edits(e: &mut Vec<Edit>, k: usize, ds: &Stmt) {
    e.push(Edit::After {
        line: ds.text.end_line,
        text: incr(k),
        order: 1,
    });
}

/// Whether a loop's iteration count can be accumulated in a local variable flushed
/// after END DO: every way out of the loop passes there (normal end and EXIT of this
/// loop; no GOTO out, RETURN, STOP or call that may stop, no EXIT of an outer loop),
/// and the DO statement can be wrapped in a BLOCK (no label, no construct name, not
/// sharing its line, an END DO of its own).
fn accumulate_locally(
    info: &UnitInfo<'_>,
    li: usize,
    ds: &Stmt,
    stoppers: &HashSet<String>,
    text: &str,
) -> bool {
    let u = info.unit;
    let l = &u.loops[li];
    if l.label.is_some() || ds.label.is_some() || l.end_text == TextPos::default() {
        return false;
    }
    let line = text.lines().nth(ds.text.line as usize).unwrap_or("");
    if !line
        .get(..ds.text.col as usize)
        .is_some_and(|p| p.trim().is_empty())
    {
        return false;
    }
    let end_line = text.lines().nth(l.end_text.end_line as usize).unwrap_or("");
    if squeezed_code(end_line) != "enddo" {
        return false;
    }
    let (ends, leaves) = loop_exits(info, li, stoppers);
    !ends && leaves.iter().all(|&b| b == l.after_block.0 as usize)
}

/// The code of a source line without its comment, blanks and leading label, in
/// lower case: `  10 END DO ! x` gives `enddo`.
pub(crate) fn squeezed_code(line: &str) -> String {
    let code: String = line
        .split('!')
        .next()
        .unwrap_or("")
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect::<String>()
        .to_ascii_lowercase();
    code.trim_start_matches(|c: char| c.is_ascii_digit())
        .to_string()
}
