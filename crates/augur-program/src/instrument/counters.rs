//! Counters: where the block counters go, the [`Rule`] that gives each block's
//! count after the run, local accumulation of counters inside loops, and the
//! resolution of the rules into block counts (see the parent module for the scheme).

use super::facts::{
    calls_user_function, control_succs, do_statement, else_if_parents, has_word, is_guarded,
    loop_exits, loop_may_exit_early, squeezed_code, UnitInfo, WhereRanges,
};
use super::rewriting::{replace_word, use_module_edits, Edit};
use super::Plan;
use augur_ir::omp::Structure;
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

/// Name of the counter array in the instrumented program.
pub const COUNTER_ARRAY: &str = "augur_c";
/// Name of the module holding it.
pub const COUNTER_MODULE: &str = "augur_counts_mod";

fn incr(k: usize) -> String {
    format!(
        "{COUNTER_ARRAY}({n}) = {COUNTER_ARRAY}({n}) + 1_8",
        n = k + 1
    )
}

/// `amount` with every `size(X)` written `product(shape(X))` and every `size(X, K)`
/// written `(ubound(X, K) - lbound(X, K) + 1)`: the same numbers without the SIZE
/// intrinsic, for a unit where a variable of that name hides it.
pub(crate) fn without_size_intrinsic(amount: &str) -> String {
    let mut out = String::new();
    let mut rest = amount;
    while let Some(at) = rest.find("size(") {
        let boundary = rest[..at]
            .chars()
            .next_back()
            .map_or(true, |c| !(c.is_ascii_alphanumeric() || c == '_'));
        out.push_str(&rest[..at]);
        let args_start = at + "size(".len();
        let Some(len) = closing_paren(&rest[args_start..]) else {
            out.push_str(&rest[at..]);
            return out;
        };
        let args = &rest[args_start..args_start + len];
        if !boundary {
            out.push_str(&rest[at..args_start]);
            rest = &rest[args_start..];
            continue;
        }
        let args = without_size_intrinsic(args);
        match top_level_comma(&args) {
            Some(c) => {
                let (x, k) = (args[..c].trim(), args[c + 1..].trim());
                out.push_str(&format!("(ubound({x}, {k}) - lbound({x}, {k}) + 1)"));
            }
            None => out.push_str(&format!("product(shape({args}))")),
        }
        rest = &rest[args_start + len + 1..];
    }
    out.push_str(rest);
    out
}

/// The length of `s` up to the parenthesis that closes one opened just before it.
fn closing_paren(s: &str) -> Option<usize> {
    let mut depth = 0usize;
    for (i, c) in s.char_indices() {
        match c {
            '(' => depth += 1,
            ')' if depth == 0 => return Some(i),
            ')' => depth -= 1,
            _ => {}
        }
    }
    None
}

/// The first comma of `s` outside parentheses.
fn top_level_comma(s: &str) -> Option<usize> {
    let mut depth = 0usize;
    for (i, c) in s.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth = depth.saturating_sub(1),
            ',' if depth == 0 => return Some(i),
            _ => {}
        }
    }
    None
}

fn incr_by(k: usize, amount: &str) -> String {
    format!(
        "{COUNTER_ARRAY}({n}) = {COUNTER_ARRAY}({n}) + int({amount}, 8)",
        n = k + 1
    )
}

/// Plans the counters of one unit: pushes its edits into `p` and returns the rule of
/// each of its blocks (all [`Rule::NotNeeded`] for modules, block data and units
/// without source text).
pub(crate) fn plan_unit(
    p: &mut Plan,
    u: &Unit,
    stoppers: &HashSet<String>,
    program_functions: &[String],
    text: Option<&str>,
    omp: Option<&Structure>,
) -> Vec<Rule> {
    let n = u.blocks.len();
    if matches!(u.kind, UnitKind::Module | UnitKind::BlockData) || text.is_none() {
        return vec![Rule::NotNeeded; n];
    }
    let text = text.unwrap_or("");
    let info = UnitInfo::new(u);
    let edits = p.edits.entry(u.source).or_default();
    let first_edit = edits.len();
    // Counter module in every executable unit, right after its header.
    edits.extend(use_module_edits(u, text, COUNTER_MODULE));

    // Lines covered by WHERE constructs: no statements may be inserted there.
    let wheres = WhereRanges::of(u, text);
    let mut entry_counted = entry_counted_loops(&info, &wheres, stoppers);
    // A loop whose iterations threads share counts them at the top of its body.
    for li in omp.map(super::threads::shared_loops).unwrap_or_default() {
        entry_counted[li as usize] = false;
    }
    // Labels in use, so that new ones do not clash.
    let used_labels: HashSet<u32> = u
        .stmts
        .iter()
        .filter_map(|s| s.label)
        .chain(u.loops.iter().filter_map(|l| l.label))
        .collect();
    let mut planner = UnitCounters {
        p,
        u,
        info: &info,
        stoppers,
        program_functions,
        text,
        wheres,
        entry_counted,
        used_labels,
        preds: predecessors(u),
        iteration_counter: HashMap::new(),
        rules: vec![Rule::NotNeeded; n],
    };
    // Rules and counters per block (a loop's header comes before its body).
    for bi in 0..n {
        match u.blocks[bi].kind {
            BlockKind::LoopHeader => planner.loop_header(bi),
            BlockKind::Elements => planner.elements(bi),
            BlockKind::Entry | BlockKind::Straight => planner.straight(bi),
        }
    }
    planner.count_else_if_arms();
    let rules = planner.rules;
    let directive_lines = omp
        .map(|s| super::threads::lines_with_directives(u, s))
        .unwrap_or_default();
    host_counters_locally(p, u, &info, stoppers, text, first_edit, &directive_lines);
    rules
}

/// The counted DO loops whose trip count can be added once before the DO statement
/// (bounds known and free of function calls, not in a WHERE, no early exit).
fn entry_counted_loops(
    info: &UnitInfo<'_>,
    wheres: &WhereRanges,
    stoppers: &HashSet<String>,
) -> Vec<bool> {
    let u = info.unit;
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
        if wheres.covers(do_stmt) {
            continue;
        }
        if loop_may_exit_early(info, li, stoppers) {
            continue;
        }
        entry_counted[li] = true;
    }
    entry_counted
}

/// Control-flow predecessors of each block of a unit.
fn predecessors(u: &Unit) -> Vec<Vec<u32>> {
    let mut preds: Vec<Vec<u32>> = vec![vec![]; u.blocks.len()];
    for b in &u.blocks {
        for s in control_succs(u, b) {
            preds[s.0 as usize].push(b.id.0);
        }
    }
    preds
}

/// The counter planning of one unit: what it knows of the unit and the rules decided
/// so far.
struct UnitCounters<'a, 'u> {
    p: &'a mut Plan,
    u: &'u Unit,
    info: &'a UnitInfo<'u>,
    stoppers: &'a HashSet<String>,
    program_functions: &'a [String],
    text: &'a str,
    wheres: WhereRanges,
    /// For each loop, whether its trip count is added before its DO statement.
    entry_counted: Vec<bool>,
    /// Statement labels in use.
    used_labels: HashSet<u32>,
    /// Control-flow predecessors of each block.
    preds: Vec<Vec<u32>>,
    /// The counter of the iterations of each DO WHILE loop, by loop index.
    iteration_counter: HashMap<usize, usize>,
    /// The rule of each block.
    rules: Vec<Rule>,
}

impl<'u> UnitCounters<'_, 'u> {
    /// The edits of the unit's source.
    fn edits(&mut self) -> &mut Vec<Edit> {
        self.p
            .edits
            .get_mut(&self.u.source)
            .expect("entry made above")
    }

    /// The first statement of block `bi`.
    fn first_stmt(&self, bi: usize) -> Option<&'u Stmt> {
        let u = self.u;
        u.blocks[bi].stmts.first().map(|&s| &u.stmts[s as usize])
    }

    /// The header block `bi` of a loop: its trip count, its iterations or its tests.
    fn loop_header(&mut self, bi: usize) {
        let u = self.u;
        let li = u.blocks[bi].in_loop.map(|l| l.0 as usize).unwrap_or(0);
        let do_stmt = self.first_stmt(bi);
        match u.loops[li].kind {
            LoopKind::Counted if self.entry_counted[li] => self.counted_loop(bi, li, do_stmt),
            LoopKind::While => self.while_loop(bi, li, do_stmt),
            LoopKind::ArrayElements => {}
            _ => {
                // Iterations counted at the top of the body.
                if let Some(ds) = do_stmt.filter(|ds| !self.wheres.covers(ds)) {
                    let k = new_counter(self.p);
                    iteration_edits(self.edits(), k, ds);
                    self.rules[bi] = Rule::Counter { k };
                } else {
                    self.p.notes.push(format!(
                        "{}: loop at line {} is inside a WHERE construct and is not counted",
                        u.name, u.loops[li].span.start.line
                    ));
                }
            }
        }
    }

    /// An entry-counted DO loop: its trip count added once, before the DO statement.
    fn counted_loop(&mut self, bi: usize, li: usize, do_stmt: Option<&Stmt>) {
        let l = &self.u.loops[li];
        let k = new_counter(self.p);
        let bnd = l.bounds.as_ref().expect("entry-counted loops have bounds");
        let step = bnd.step.clone().unwrap_or_else(|| "1".into());
        let trips = format!(
            "max(0_8, (int({e}, 8) - int({s}, 8) + int({st}, 8)) / int({st}, 8))",
            e = bnd.end,
            s = bnd.start,
            st = step
        );
        if let Some(ds) = do_stmt {
            self.edits().push(Edit::Before {
                line: ds.text.line,
                col: ds.text.col,
                take_label: true,
                text: incr_by(k, &trips),
                order: 2,
            });
        }
        self.rules[bi] = Rule::Counter { k };
    }

    /// A DO WHILE loop: its iterations counted at the top of its body; its tests are
    /// the iterations plus the entries, or plus the arrivals after END DO less EXITs.
    fn while_loop(&mut self, bi: usize, li: usize, do_stmt: Option<&Stmt>) {
        let l = &self.u.loops[li];
        let it = new_counter(self.p);
        let entry = l.entry_block.0 as usize;
        // Without early exits every entry ends with one false test, so
        // the tests are the iterations plus the entries.
        let entries_known = !matches!(self.rules[entry], Rule::NotNeeded)
            && entry < bi
            && !loop_may_exit_early(self.info, li, self.stoppers);
        if let Some(ds) = do_stmt {
            iteration_edits(self.edits(), it, ds);
        }
        self.iteration_counter.insert(li, it);
        if entries_known {
            self.rules[bi] = Rule::IterationsPlusEntries {
                iterations: it,
                entries: entry as u32,
            };
        } else {
            let after = new_counter(self.p);
            if do_stmt.is_some() {
                self.edits().push(Edit::After {
                    line: l.end_text.end_line,
                    text: incr(after),
                    order: 1,
                });
            }
            let exits = exit_blocks(self.info, li);
            self.rules[bi] = Rule::WhileTests {
                iterations: it,
                after,
                exits,
            };
        }
    }

    /// The element block `bi` of a whole-array statement: its elements added once per
    /// execution.
    fn elements(&mut self, bi: usize) {
        let u = self.u;
        let li = u.blocks[bi].in_loop.map(|l| l.0 as usize).unwrap_or(0);
        let l = &u.loops[li];
        let Some(stmt) = self.first_stmt(bi) else {
            return;
        };
        let original = l.elements.clone().unwrap_or_else(|| "0".into());
        let mut amount = original.clone();
        if u.symbols.iter().any(|s| s.name == "size") {
            // A local named SIZE hides the intrinsic in this unit.
            amount = without_size_intrinsic(&amount);
        }
        if mentions_any(&amount, self.program_functions) {
            // Evaluating the count would call a user function a second time.
            self.p.notes.push(format!(
                "{}: the elements of the array operation at line {} are not counted (its size depends on a function call)",
                u.name, stmt.span.start.line
            ));
            return;
        }
        let k = new_counter(self.p);
        let assigns_whole_lhs = matches!(&stmt.kind, StmtKind::Assign { lhs, .. } if lhs.array && original == format!("size({lhs})"));
        if assigns_whole_lhs
            && !self.wheres.covers(stmt)
            && !is_do_terminal_with_label(u, stmt)
            && !is_guarded(u, l.entry_block.0 as usize)
        {
            // After the assignment: an allocatable left side may only get its
            // shape from the assignment itself.
            self.edits().push(Edit::After {
                line: stmt.text.end_line,
                text: incr_by(k, &amount),
                order: 2,
            });
            self.rules[bi] = Rule::Counter { k };
            return;
        }
        if is_guarded(u, l.entry_block.0 as usize) && !self.wheres.covers(stmt) {
            // The action of a logical IF (perhaps on a continuation line): inside the
            // IF-THEN the guard becomes.
            self.edits().push(Edit::LogicalIf {
                guard: stmt.text,
                text: incr_by(k, &amount),
            });
            self.rules[bi] = Rule::Counter { k };
            return;
        }
        // Inside a WHERE construct the count goes before the WHERE statement. The
        // label stays where it is on a labelled DO's last statement (`1 READ (5, *)
        // (x(k, i), k = 1, 3)` ending `DO 1`): moved to the count, it would end the loop
        // before the statement (a jump to the label then skips the count).
        let (line, col) = self
            .wheres
            .enclosing(stmt)
            .map(|w| (w.line, w.col))
            .unwrap_or((stmt.text.line, stmt.text.col));
        self.edits().push(Edit::Before {
            line,
            col,
            take_label: !is_do_terminal_with_label(u, stmt),
            text: incr_by(k, &amount),
            order: 3,
        });
        self.rules[bi] = Rule::Counter { k };
    }

    /// An entry or straight-line block `bi`: its count derived from other counts when
    /// it can be, else a counter of its own.
    fn straight(&mut self, bi: usize) {
        let u = self.u;
        if u.blocks[bi].counts.is_empty() {
            return;
        }
        // The first block of an entry-counted loop's body runs once per iteration.
        if let Some(rule) = self.body_start_rule(bi) {
            self.rules[bi] = rule;
            return;
        }
        let Some(stmt) = self.first_stmt(bi) else {
            return;
        };
        // ELSE IF tests are derived from the previous test and arm.
        if matches!(stmt.kind, StmtKind::If { .. }) {
            if let Some((prev_test, prev_arm)) = else_if_parents(u, bi) {
                self.rules[bi] = Rule::Difference {
                    plus: prev_test,
                    minus: prev_arm,
                };
                return;
            }
        }
        if self.wheres.covers_other(stmt) {
            // Assignments of a WHERE construct share the mask's element count;
            // their scalar parts (rare) are not counted.
            self.p.notes.push(format!(
                "{}: block at line {} inside a WHERE construct is not counted",
                u.name, stmt.span.start.line
            ));
            return;
        }
        // The block after a logical IF whose guarded statement always falls
        // through runs as often as the IF itself.
        if let Some(t) = after_logical_if(u, bi, &self.preds, self.stoppers) {
            self.rules[bi] = Rule::SameAs { block: t };
            return;
        }
        let k = new_counter(self.p);
        self.rules[bi] = Rule::Counter { k };
        self.place_counter(bi, k, stmt);
    }

    /// The rule of block `bi` when it starts the body of a loop whose iterations are
    /// already known: the DO WHILE's iteration counter, or the count of the header.
    fn body_start_rule(&self, bi: usize) -> Option<Rule> {
        let u = self.u;
        let li = body_start_of(u, bi)?;
        match u.loops[li].kind {
            LoopKind::While => {
                let &it = self.iteration_counter.get(&li)?;
                Some(Rule::Counter { k: it })
            }
            _ => {
                let header = u.loops[li].header_block.0;
                (!matches!(self.rules[header as usize], Rule::NotNeeded))
                    .then_some(Rule::SameAs { block: header })
            }
        }
    }

    /// The increment of counter `k` for block `bi`, whose first statement is `stmt`.
    fn place_counter(&mut self, bi: usize, k: usize, stmt: &Stmt) {
        let u = self.u;
        match &stmt.kind {
            StmtKind::Else | StmtKind::Case => self.edits().push(Edit::After {
                line: stmt.text.end_line,
                text: incr(k),
                order: 1,
            }),
            _ if is_guarded(u, bi) => self.edits().push(Edit::LogicalIf {
                guard: stmt.text,
                text: incr(k),
            }),
            _ if is_do_terminal_with_label(u, stmt) => self.count_do_terminal(k, stmt),
            _ => self.edits().push(Edit::Before {
                line: stmt.text.line,
                col: stmt.text.col,
                take_label: true,
                text: incr(k),
                order: 1,
            }),
        }
    }

    /// Counter `k` for the labelled terminal statement `stmt` of DO loops.
    fn count_do_terminal(&mut self, k: usize, stmt: &Stmt) {
        // A GOTO to the terminal label is an arrival too (the F77 way to
        // go to the next iteration), so the label moves to the counter:
        // `30 s` becomes `30 count; s; 99999 CONTINUE`, with the DOs
        // ending at 30 ending at 99999 instead.
        if let Some(relabel) = relabel_do_terminal(self.u, stmt, self.text, &mut self.used_labels) {
            let edits = self.edits();
            edits.extend(relabel);
            edits.push(Edit::Before {
                line: stmt.text.line,
                col: stmt.text.col,
                take_label: true,
                text: incr(k),
                order: 1,
            });
            return;
        }
        // The DO statement could not be relabelled: the label stays on the
        // terminal statement and the count covers falling through only.
        self.edits().push(Edit::Before {
            line: stmt.text.line,
            col: stmt.text.col,
            take_label: false,
            text: incr(k),
            order: 1,
        });
        self.p.notes.push(format!(
            "{}: the labelled terminal statement at line {} is counted on fall-through only",
            self.u.name, stmt.span.start.line
        ));
    }

    /// An arm referenced by an ELSE IF rule must be counted even when it is empty:
    /// its counter goes right after the test's line.
    fn count_else_if_arms(&mut self) {
        let u = self.u;
        for bi in 0..u.blocks.len() {
            let Rule::Difference { plus, minus } = self.rules[bi].clone() else {
                continue;
            };
            if !matches!(self.rules[minus as usize], Rule::NotNeeded) {
                continue;
            }
            let test = &u.blocks[plus as usize];
            let Some(&ts) = test.stmts.last() else {
                continue;
            };
            let k = new_counter(self.p);
            self.rules[minus as usize] = Rule::Counter { k };
            self.edits().push(Edit::After {
                line: u.stmts[ts as usize].text.end_line,
                text: incr(k),
                order: 1,
            });
        }
    }
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
    directive_lines: &[u32],
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
        // Locals around a loop holding (or bound to) an OpenMP directive would be
        // shared by the threads of the region.
        let (from, to) = (ds.text.line.saturating_sub(1), l.end_text.end_line);
        if directive_lines.iter().any(|&d| from <= d && d <= to) {
            continue;
        }
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
    let body = text
        .lines()
        .skip(ds.text.line as usize)
        .take((l.end_text.end_line - ds.text.line) as usize + 1);
    if body.into_iter().any(|line| calls_typed_procedure(u, line)) {
        return false;
    }
    let (ends, leaves) = loop_exits(info, li, stoppers);
    !ends && leaves.iter().all(|&b| b == l.after_block.0 as usize)
}

/// Whether a line of source references a procedure whose type the unit declares
/// (`real(kind=rk) ggl` and later `ggl(seed)`). gfortran 12 refuses such a reference
/// inside a BLOCK ("'ggl' at (1) is not a function") unless the name is also EXTERNAL,
/// so loops holding one keep their counters in the global array.
fn calls_typed_procedure(u: &Unit, line: &str) -> bool {
    let line = line.to_ascii_lowercase();
    u.symbols
        .iter()
        .filter(|s| s.procedure && !s.implicit && s.dims.is_empty())
        .any(|s| {
            line.match_indices(s.name.as_str()).any(|(at, _)| {
                let before = line[..at].chars().next_back();
                let after = line[at + s.name.len()..].trim_start();
                !before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_')
                    && after.starts_with('(')
            })
        })
}

/// The Fortran module declaring the counters, shared with the C runtime.
pub fn counter_module(counters: usize) -> String {
    format!(
        "module {COUNTER_MODULE}\n  use iso_c_binding, only: c_int64_t\n  implicit none\n  integer(c_int64_t), bind(C, name=\"augur_counts\") :: {COUNTER_ARRAY}({n})\n  integer(c_int64_t), bind(C, name=\"augur_ncounts\") :: augur_n = {n}\nend module {COUNTER_MODULE}\n",
        n = counters.max(1)
    )
}

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

#[cfg(test)]
mod tests {
    use super::without_size_intrinsic;

    #[test]
    fn sizes_are_written_without_the_intrinsic() {
        assert_eq!(without_size_intrinsic("size(a)"), "product(shape(a))");
        assert_eq!(
            without_size_intrinsic("int(size(a(1:n, j)), 8)*int(size(b), 8)/int(size(b, 1), 8)"),
            "int(product(shape(a(1:n, j))), 8)*int(product(shape(b)), 8)/int((ubound(b, 1) - lbound(b, 1) + 1), 8)"
        );
        // Names that end in `size` stay.
        assert_eq!(without_size_intrinsic("bsize(3)"), "bsize(3)");
    }
}
