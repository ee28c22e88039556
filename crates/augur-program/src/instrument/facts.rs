//! Facts about a unit that the counter and probe planners both read: which
//! procedures may end the program, loop membership and exits, logical IF and
//! ELSE IF structure, WHERE ranges, DO statements, and small text helpers.

use augur_ir::{BlockId, BlockKind, Program, Stmt, StmtKind, TextPos, Unit};
use std::collections::{HashMap, HashSet};

/// Procedures that may end the program (contain STOP, or call one that may, or
/// call a procedure augur did not analyze), and those that call MPI (directly or not):
/// the MPI tracer reads the counters at every MPI call ([`crate::mpi`]), so a loop around
/// one must keep them current, as around a call that may stop.
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
                stops.contains(c)
                    || (!names.contains(c.as_str())
                        && (ends.contains(&c.as_str()) || c.starts_with("mpi_")))
            }) {
                stops.insert(u.to_string());
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    // The external procedures themselves, for the checks of a loop's calls.
    for cs in calls.values() {
        for c in cs {
            if !names.contains(c.as_str()) && (ends.contains(&c.as_str()) || c.starts_with("mpi_"))
            {
                stops.insert(c.clone());
            }
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

/// Per-unit facts used by the planner.
pub(crate) struct UnitInfo<'u> {
    pub(crate) unit: &'u Unit,
    /// For each block, the loops containing it (innermost last).
    pub(crate) loop_chain: Vec<Vec<usize>>,
}

impl<'u> UnitInfo<'u> {
    pub(crate) fn new(unit: &'u Unit) -> UnitInfo<'u> {
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

    pub(crate) fn in_loop(&self, b: usize, l: usize) -> bool {
        self.loop_chain[b].contains(&l)
    }

    /// The loops no other loop contains, by index, in source order.
    pub(crate) fn outermost_loops(&self) -> Vec<usize> {
        self.unit
            .loops
            .iter()
            .filter(|l| l.parent.is_none())
            .map(|l| l.id.0 as usize)
            .collect()
    }

    /// The loops directly inside loop `li`, by index.
    pub(crate) fn child_loops(&self, li: usize) -> impl Iterator<Item = usize> + '_ {
        let id = self.unit.loops[li].id;
        self.unit
            .loops
            .iter()
            .filter(move |c| c.parent == Some(id))
            .map(|c| c.id.0 as usize)
    }
}

/// Where control may go from inside loop `li` other than to its next iteration:
/// whether something inside may end the program (RETURN, STOP, a call that may
/// stop) and which blocks outside the loop are reached from inside (the header's
/// normal exit edge excluded).
pub(crate) fn loop_exits(
    info: &UnitInfo<'_>,
    li: usize,
    stoppers: &HashSet<String>,
) -> (bool, Vec<usize>) {
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
pub(crate) fn loop_may_exit_early(
    info: &UnitInfo<'_>,
    li: usize,
    stoppers: &HashSet<String>,
) -> bool {
    let (ends, leaves) = loop_exits(info, li, stoppers);
    ends || !leaves.is_empty()
}

/// Whether block `bi` starts with the guarded statement of a logical IF.
pub(crate) fn is_guarded(u: &Unit, bi: usize) -> bool {
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
pub(crate) fn control_succs(u: &Unit, b: &augur_ir::Block) -> Vec<BlockId> {
    b.succs
        .iter()
        .copied()
        .filter(|s| u.blocks[s.0 as usize].kind != BlockKind::Elements)
        .collect()
}

/// Whether block `bi` holds an ELSE IF test (a test block reached from another test).
pub(crate) fn is_else_if(u: &Unit, bi: usize) -> bool {
    else_if_parents(u, bi).is_some()
}

/// For an ELSE IF test block: the previous test block and the previous arm's first block.
pub(crate) fn else_if_parents(u: &Unit, bi: usize) -> Option<(u32, u32)> {
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
    // An ELSE IF test is reached only from the test before it; a new IF right after
    // END IF is also reached from the arm before it (and counts both).
    let other_preds = u
        .blocks
        .iter()
        .filter(|p| p.id != prev.id && control_succs(u, p).contains(&me))
        .count();
    (other_preds == 0).then(|| (prev.id.0, control_succs(u, prev)[0].0))
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

/// Whether a plain ELSEWHERE (one without a mask) stands on a line of `lines` from `from`
/// up to, not including, `to`.
pub(crate) fn plain_elsewhere_between(lines: &[&str], from: u32, to: u32) -> bool {
    (from..to).any(|l| {
        lines
            .get(l as usize)
            .is_some_and(|x| squeezed_code(x) == "elsewhere")
    })
}

/// Text line ranges of WHERE constructs and statements, with the WHERE statement's position.
pub(crate) fn where_ranges(u: &Unit, text: &str) -> Vec<(u32, u32, TextPos)> {
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

/// The WHERE constructs and statements of a unit: no statement may be inserted
/// inside them.
pub(crate) struct WhereRanges(Vec<(u32, u32, TextPos)>);

impl WhereRanges {
    /// The WHERE ranges of unit `u` in its source `text`.
    pub(crate) fn of(u: &Unit, text: &str) -> WhereRanges {
        WhereRanges(where_ranges(u, text))
    }

    /// Whether statement `s` starts on a line covered by a WHERE.
    pub(crate) fn covers(&self, s: &Stmt) -> bool {
        self.0
            .iter()
            .any(|(a, b, _)| s.text.line >= *a && s.text.line <= *b)
    }

    /// Whether statement `s` lies inside a WHERE other than the one it opens itself: a
    /// block starting with a WHERE statement (or construct) can be counted right before it.
    pub(crate) fn covers_other(&self, s: &Stmt) -> bool {
        self.0
            .iter()
            .any(|(a, b, w)| s.text.line >= *a && s.text.line <= *b && *w != s.text)
    }

    /// The first and last line of the WHERE construct or statement covering statement
    /// `s`, if any.
    pub(crate) fn range_of(&self, s: &Stmt) -> Option<(u32, u32)> {
        self.0
            .iter()
            .find(|(a, b, _)| s.text.line >= *a && s.text.line <= *b)
            .map(|(a, b, _)| (*a, *b))
    }

    /// The position of the WHERE statement whose range covers statement `s`, if any.
    pub(crate) fn enclosing(&self, s: &Stmt) -> Option<TextPos> {
        self.0
            .iter()
            .find(|(a, b, _)| s.text.line >= *a && s.text.line <= *b)
            .map(|(_, _, w)| *w)
    }
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

pub(crate) fn has_word(s: &str, w: &str) -> bool {
    s.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .any(|x| x == w)
}
