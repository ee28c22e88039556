//! Counters per thread for OpenMP builds.
//!
//! An OpenMP build counts into a two-dimensional array, `augur_c(k, t)`, whose column
//! `t` belongs to thread `t`: a thread-private module variable `augur_t` holds the
//! thread's number, set where a team starts running user code (after a `PARALLEL`
//! directive, after each `SECTION`, at the top of each iteration of a `PARALLEL DO`'s
//! loop). No two threads write the same counter, so the counts are exact and their
//! split across threads is measured, whatever the schedule.
//!
//! OpenMP also constrains where statements may go: nothing between a `DO` directive
//! and its loop (or between the loops COLLAPSE merges), nothing between `ATOMIC` and
//! its statement, no CALL inside WORKSHARE. The planners place their edits as for a
//! sequential build; [`adapt`] then moves what landed in a forbidden place before the
//! directive and rewrites every counter reference for its thread's column.

use super::facts::WhereRanges;
use super::probes::Attr;
use super::rewriting::Edit;
use super::{Plan, COUNTER_ARRAY};
use augur_ir::omp::{ConstructKind, Structure};
use augur_ir::{BlockKind, ExprKind, Program, StmtKind, Unit};
use std::collections::HashMap;

/// Columns of the per-thread counter array: thread numbers at or above this share the
/// last column (augur refuses to count with more threads).
pub const MAX_THREADS: usize = 256;

/// The thread-private variable holding the running thread's number.
pub const THREAD_VAR: &str = "augur_t";

/// The statement that sets [`THREAD_VAR`] for the running thread.
const SET_THREAD: &str = "call augur_set_thread()";

/// The loops of a unit whose trip count must not be added before the DO statement:
/// the innermost loop each `DO` construct shares (its iterations are counted at the
/// top of the body, by the thread that runs them).
pub(crate) fn shared_loops(s: &Structure) -> Vec<u32> {
    s.constructs
        .iter()
        .filter(|c| c.directive.kind == ConstructKind::Loop)
        .filter_map(|c| c.loops.last().map(|l| l.0))
        .collect()
}

/// The parsed-text lines (first, last) of the loops of `u` that hold a directive or
/// are shared by one: their counters cannot be hosted in local variables, which would
/// be shared by the threads of a region inside them.
pub(crate) fn lines_with_directives(u: &Unit, s: &Structure) -> Vec<u32> {
    let mut lines: Vec<u32> = u
        .stmts
        .iter()
        .filter(|st| matches!(&st.kind, StmtKind::Directive { sentinel, .. } if sentinel == "$OMP"))
        .map(|st| st.text.line)
        .collect();
    for c in &s.constructs {
        lines.push(c.text_lines.0);
        for l in &c.loops {
            if let Some(ds) = super::do_statement(u, l.0 as usize) {
                lines.push(ds.text.line);
            }
        }
    }
    lines
}

/// Moves the edits OpenMP forbids where they are (see the module docs): for any
/// instrumentation of an OpenMP build.
pub fn place_for_openmp(p: &mut Plan, program: &Program) {
    for u in &program.units {
        let s = augur_ir::omp::structure(u);
        if s.is_empty() {
            continue;
        }
        let edits = p.edits.entry(u.source).or_default();
        move_bound_edits(u, &s, edits);
        drop_calls_in_workshare(&s, edits);
    }
}

/// Adapts the counters' edits to an OpenMP build (see the module docs).
pub(crate) fn adapt(
    p: &mut Plan,
    program: &Program,
    structures: &[Structure],
    texts: &[Option<&str>],
) {
    place_for_openmp(p, program);
    for (ui, u) in program.units.iter().enumerate() {
        let Some(s) = structures.get(ui).filter(|s| !s.is_empty()) else {
            continue;
        };
        let Some(text) = texts.get(u.source as usize).copied().flatten() else {
            continue;
        };
        let lines: Vec<&str> = text.lines().collect();
        let edits = p.edits.entry(u.source).or_default();
        edits.extend(thread_setters(u, s, &lines));
    }
    for edits in p.edits.values_mut() {
        for e in edits.iter_mut() {
            if let Some(t) = edit_text(e) {
                *t = per_thread(t);
            }
        }
    }
}

/// The elements blocks (`(unit, block)`) of the statements gfortran shares out among a
/// team inside a WORKSHARE construct: an assignment to an array section or to a whole
/// array that is neither ALLOCATABLE nor POINTER (an assignment to one of those may
/// reallocate it) and a WHERE with one mask and one assignment become
/// `omp for schedule(static)` loops
/// (`-fdump-tree-omplower` shows them); a WHERE with ELSEWHERE or several assignments,
/// an assignment that may reallocate and a scalar assignment (COUNT, MAXVAL, ...) run
/// in a SINGLE. The counter of an elements block is itself a scalar statement, which
/// one thread runs for the whole statement, so the counting run cannot see the split.
pub(crate) fn workshared_elements(
    program: &Program,
    structures: &[Structure],
    texts: &[Option<&str>],
    attrs: &HashMap<String, Option<Attr>>,
) -> Vec<(u32, u32)> {
    let mut out = vec![];
    for (ui, u) in program.units.iter().enumerate() {
        let Some(s) = structures.get(ui) else {
            continue;
        };
        let Some(text) = texts.get(u.source as usize).copied().flatten() else {
            continue;
        };
        let wheres = WhereRanges::of(u, text);
        let blocks = s
            .constructs
            .iter()
            .filter(|c| c.directive.kind == ConstructKind::Workshare)
            .flat_map(|c| c.blocks.iter().map(|b| b.0 as usize));
        for bi in blocks {
            let b = &u.blocks[bi];
            let first = b.stmts.first().map(|&i| &u.stmts[i as usize]);
            let shared = first.is_some_and(|st| gfortran_shares(u, st, &wheres, attrs));
            // WORKSHARE constructs do not nest: each block is seen once.
            if b.kind == BlockKind::Elements && shared {
                out.push((ui as u32, bi as u32));
            }
        }
    }
    out
}

/// Whether gfortran shares statement `st` of a WORKSHARE out ([`workshared_elements`]).
fn gfortran_shares(
    u: &Unit,
    st: &augur_ir::Stmt,
    wheres: &WhereRanges,
    attrs: &HashMap<String, Option<Attr>>,
) -> bool {
    if let Some((first, last)) = wheres.range_of(st) {
        let inside = u
            .stmts
            .iter()
            .filter(|x| (first..=last).contains(&x.text.line));
        let (masks, assignments) = inside.fold((0, 0), |(m, a), x| match x.kind {
            StmtKind::Where { .. } => (m + 1, a),
            StmtKind::Assign { .. } => (m, a + 1),
            _ => (m, a),
        });
        return masks == 1 && assignments == 1;
    }
    match &st.kind {
        StmtKind::Assign { lhs, .. } if lhs.array => match &lhs.kind {
            ExprKind::Var(v) => attrs.get(&v.name).map_or(true, |a| a.is_none()),
            _ => true,
        },
        _ => false,
    }
}

/// The text of an edit that inserts statements.
fn edit_text(e: &mut Edit) -> Option<&mut String> {
    match e {
        Edit::Before { text, .. } | Edit::After { text, .. } | Edit::LogicalIf { text, .. } => {
            Some(text)
        }
        Edit::Replace { .. } | Edit::Insert { .. } => None,
    }
}

/// `augur_c(K)` → `augur_c(K, augur_t)` in a statement text.
fn per_thread(text: &str) -> String {
    let key = format!("{COUNTER_ARRAY}(");
    let mut out = String::with_capacity(text.len() + 16);
    let mut rest = text;
    while let Some(at) = rest.find(&key) {
        let after = &rest[at + key.len()..];
        let digits = after.chars().take_while(|c| c.is_ascii_digit()).count();
        out.push_str(&rest[..at + key.len()]);
        if digits > 0 && after[digits..].starts_with(')') {
            out.push_str(&after[..digits]);
            out.push_str(&format!(", {THREAD_VAR})"));
            rest = &after[digits + 1..];
        } else {
            rest = after;
        }
    }
    out.push_str(rest);
    out
}

/// Statements planned before a statement a directive binds (the DO of a `DO`
/// construct and the loops it collapses, the statement after `ATOMIC`) go before the
/// directive instead. A trip count moved there is added by thread 0 only: every thread
/// of a team passes an orphaned `DO` directive.
fn move_bound_edits(u: &Unit, s: &Structure, edits: &mut [Edit]) {
    // (bound statement line, directive line, directive column, is a DO)
    let mut bound: Vec<(u32, u32, u32, bool)> = vec![];
    for c in &s.constructs {
        let d = &u.stmts[c.stmt as usize].text;
        match c.directive.kind {
            ConstructKind::Loop => {
                for l in &c.loops {
                    if let Some(ds) = super::do_statement(u, l.0 as usize) {
                        bound.push((ds.text.line, d.line, d.col, true));
                    }
                }
            }
            ConstructKind::Atomic => {
                let next = u.stmts[c.stmt as usize + 1..].iter().find(|st| {
                    !matches!(
                        st.kind,
                        StmtKind::Directive { .. } | StmtKind::NonExecutable
                    )
                });
                if let Some(st) = next {
                    bound.push((st.text.line, d.line, d.col, false));
                }
            }
            _ => {}
        }
    }
    // (END DO line of a shared loop, its END directive's last line): nothing may come
    // between the two.
    let ends: Vec<(u32, u32)> = s
        .constructs
        .iter()
        .filter(|c| c.directive.kind == ConstructKind::Loop)
        .filter_map(|c| {
            let l = &u.loops[c.loops.first()?.0 as usize];
            (c.text_lines.1 > l.end_text.end_line).then_some((l.end_text.end_line, c.text_lines.1))
        })
        .collect();
    for e in edits.iter_mut() {
        if let Edit::After { line, .. } = e {
            if let Some(&(_, end)) = ends.iter().find(|(l, end)| *l <= *line && *line < *end) {
                *line = end;
            }
            continue;
        }
        let Edit::Before {
            line,
            col,
            take_label,
            text,
            ..
        } = e
        else {
            continue;
        };
        let Some(&(_, dline, dcol, is_do)) = bound.iter().find(|b| b.0 == *line) else {
            continue;
        };
        *line = dline;
        *col = dcol;
        *take_label = false;
        if is_do && text.contains("+ int(max(0_8,") {
            *text = format!("if ({THREAD_VAR} == 0_8) {text}");
        }
    }
}

/// Statements inserted inside a WORKSHARE construct other than counter assignments
/// (locality probes and shape records: CALLs and IFs) are dropped: a WORKSHARE block
/// holds assignments and constructs only.
fn drop_calls_in_workshare(s: &Structure, edits: &mut Vec<Edit>) {
    let ranges: Vec<(u32, u32)> = s
        .constructs
        .iter()
        .filter(|c| c.directive.kind == ConstructKind::Workshare)
        .map(|c| c.text_lines)
        .collect();
    if ranges.is_empty() {
        return;
    }
    edits.retain(|e| {
        let (line, text) = match e {
            Edit::Before { line, text, .. } | Edit::After { line, text, .. } => (*line, text),
            _ => return true,
        };
        let inside = ranges.iter().any(|(a, b)| *a < line && line < *b);
        let assignments_only = text
            .lines()
            .all(|l| l.trim_start().starts_with(&format!("{COUNTER_ARRAY}(")));
        !inside || assignments_only
    });
}

/// The statements setting each thread's number where a team starts user code.
fn thread_setters(u: &Unit, s: &Structure, lines: &[&str]) -> Vec<Edit> {
    let after = |line: u32| Edit::After {
        line,
        text: SET_THREAD.to_string(),
        order: 0,
    };
    let mut out = vec![];
    for c in &s.constructs {
        let d = &c.directive;
        let first = u.stmts[c.stmt as usize].text.line;
        let last = directive_last_line(lines, first);
        match d.kind {
            ConstructKind::Parallel if d.parallel => out.push(after(last)),
            ConstructKind::Loop if d.parallel => {
                if let Some(ds) = c
                    .loops
                    .last()
                    .and_then(|l| super::do_statement(u, l.0 as usize))
                {
                    out.push(after(ds.text.end_line));
                }
            }
            ConstructKind::Sections if d.parallel && !next_is_section(lines, last) => {
                out.push(after(last))
            }
            ConstructKind::Section if section_of_parallel(s, c.parent) => out.push(after(last)),
            _ => {}
        }
    }
    out
}

/// Whether construct `parent` is a PARALLEL SECTIONS.
fn section_of_parallel(s: &Structure, parent: Option<u32>) -> bool {
    parent.is_some_and(|p| {
        let d = &s.constructs[p as usize].directive;
        d.kind == ConstructKind::Sections && d.parallel
    })
}

/// The last line of a directive that starts on `first` (its continuation lines end
/// with `&`).
fn directive_last_line(lines: &[&str], first: u32) -> u32 {
    let mut i = first as usize;
    while i + 1 < lines.len() && code_of_directive(lines[i]).ends_with('&') {
        i += 1;
    }
    i as u32
}

/// A directive line without its trailing `!` comment.
fn code_of_directive(line: &str) -> &str {
    let t = line.trim();
    let body = t.get(2..).unwrap_or("");
    let cut = body.find('!').map(|k| k + 2).unwrap_or(t.len());
    t[..cut].trim_end()
}

/// Whether the first non-blank line after `line` is a `SECTION` directive.
fn next_is_section(lines: &[&str], line: u32) -> bool {
    lines
        .iter()
        .skip(line as usize + 1)
        .map(|l| l.trim().to_ascii_lowercase())
        .find(|l| !l.is_empty())
        .is_some_and(|l| {
            l.strip_prefix("!$omp").is_some_and(|r| {
                r.trim_start().starts_with("section") && !r.trim_start().starts_with("sections")
            })
        })
}

/// The Fortran module declaring the per-thread counters, the thread number and the
/// routine that sets it.
pub(crate) fn module_declarations(counters: usize) -> String {
    format!(
        "  integer(c_int64_t), bind(C, name=\"augur_counts\") :: {COUNTER_ARRAY}({n}, 0:{last})\n  integer(c_int64_t), bind(C, name=\"augur_ncounts\") :: augur_n = {n}\n  integer(c_int64_t), bind(C, name=\"augur_nthreads\") :: augur_nt = {t}\n  integer(c_int64_t) :: {THREAD_VAR} = 0\n!$omp threadprivate({THREAD_VAR})\n",
        n = counters.max(1),
        last = MAX_THREADS - 1,
        t = MAX_THREADS
    )
}

/// The module procedure behind [`SET_THREAD`].
pub(crate) fn module_procedures() -> String {
    format!(
        "contains\n  subroutine augur_set_thread()\n!$  use omp_lib, only: omp_get_thread_num\n    {THREAD_VAR} = 0\n!$  {THREAD_VAR} = min(int(omp_get_thread_num(), c_int64_t), {last}_c_int64_t)\n  end subroutine augur_set_thread\n",
        last = MAX_THREADS - 1
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counters_get_the_thread_column() {
        assert_eq!(
            per_thread("augur_c(12) = augur_c(12) + 1_8"),
            "augur_c(12, augur_t) = augur_c(12, augur_t) + 1_8"
        );
        assert_eq!(per_thread("augur_l3 = 0_8"), "augur_l3 = 0_8");
    }

    #[test]
    fn directive_lines_and_sections() {
        let lines = [
            "!$omp parallel do &",
            "!$omp& private(i) ! note &",
            "do i = 1, n",
        ];
        assert_eq!(directive_last_line(&lines, 0), 1);
        let s = ["!$omp parallel sections", "", "!$omp section", "x = 1"];
        assert!(next_is_section(&s, 0));
        assert!(!next_is_section(&s, 2));
    }
}
