//! OpenMP directives: the text of a `!$OMP` directive parsed into a construct and
//! its clauses ([`parse`]), and the constructs of a unit paired, nested and bound
//! to the loops and blocks they cover ([`structure`]).
//!
//! The front end keeps every directive as a [`StmtKind::Directive`] statement in
//! source order (fixed-form `C$OMP` lines arrive normalized to `!$OMP`, continuation
//! lines as their own statements); this module is the lowering of those statements
//! into regions the instrumentation and the predictor share.

use crate::{BlockId, LoopId, StmtKind, Unit};
use serde::{Deserialize, Serialize};

/// What a directive opens, closes or is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ConstructKind {
    /// `PARALLEL`: a team of threads runs the enclosed block.
    Parallel,
    /// `DO` (also the loop of `PARALLEL DO`, `DO SIMD`): the iterations are shared.
    Loop,
    /// `SECTIONS`: each `SECTION` runs once, on some thread.
    Sections,
    /// `SECTION` inside `SECTIONS`.
    Section,
    /// `SINGLE`: one thread runs the block, the others wait at its end.
    Single,
    /// `MASTER` (or `MASKED`): thread 0 runs the block, no barrier.
    Master,
    /// `CRITICAL [(name)]`: one thread at a time.
    Critical,
    /// `ATOMIC`: the next statement is one atomic update.
    Atomic,
    /// `BARRIER`.
    Barrier,
    /// `WORKSHARE`: the array statements of the block are shared.
    Workshare,
    /// `ORDERED` block inside an ordered loop.
    Ordered,
    /// `FLUSH`, `TASKWAIT`, `THREADPRIVATE`, `DECLARE ...`, `SIMD`, `TASK` and other
    /// directives augur keeps but does not price.
    Other,
}

impl ConstructKind {
    /// Whether the construct ends with an implicit barrier (unless NOWAIT).
    pub fn has_barrier(self) -> bool {
        matches!(
            self,
            ConstructKind::Loop
                | ConstructKind::Sections
                | ConstructKind::Single
                | ConstructKind::Workshare
                | ConstructKind::Parallel
                | ConstructKind::Barrier
        )
    }

    /// Whether the construct is a block closed by an END directive.
    fn is_block(self) -> bool {
        !matches!(
            self,
            ConstructKind::Barrier
                | ConstructKind::Atomic
                | ConstructKind::Other
                | ConstructKind::Section
        )
    }
}

/// The loop schedule of a `DO` construct.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ScheduleKind {
    /// `STATIC` (the default): blocks of iterations fixed in advance.
    Static,
    /// `DYNAMIC`: chunks handed out on demand.
    Dynamic,
    /// `GUIDED`: shrinking chunks handed out on demand.
    Guided,
    /// `RUNTIME`: chosen by `OMP_SCHEDULE`.
    Runtime,
    /// `AUTO`: chosen by the compiler.
    Auto,
}

/// A `SCHEDULE(kind[, chunk])` clause.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Schedule {
    /// The kind.
    pub kind: ScheduleKind,
    /// The chunk size expression, as written (lower case), if given.
    pub chunk: Option<String>,
}

/// A `REDUCTION(op: vars)` clause.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Reduction {
    /// The operator or intrinsic (`+`, `*`, `max`, `.and.`, ...), lower case.
    pub op: String,
    /// The reduced variables.
    pub vars: Vec<String>,
}

/// The clauses of a directive augur reads (others are kept by name in `other`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Clauses {
    /// `SCHEDULE`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub schedule: Option<Schedule>,
    /// `COLLAPSE(n)` (1 when absent).
    #[serde(default = "one")]
    pub collapse: u32,
    /// `NOWAIT` (on the directive or its END).
    #[serde(default)]
    pub nowait: bool,
    /// `ORDERED` clause of a loop.
    #[serde(default)]
    pub ordered: bool,
    /// `REDUCTION` clauses.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub reductions: Vec<Reduction>,
    /// `PRIVATE` variables.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub private: Vec<String>,
    /// `FIRSTPRIVATE` variables.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub firstprivate: Vec<String>,
    /// `LASTPRIVATE` variables.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub lastprivate: Vec<String>,
    /// `SHARED` variables.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub shared: Vec<String>,
    /// `NUM_THREADS(expr)`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub num_threads: Option<String>,
    /// `IF(expr)`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub if_expr: Option<String>,
    /// Other clauses, by name.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub other: Vec<String>,
}

fn one() -> u32 {
    1
}

/// One directive, parsed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Directive {
    /// What it opens (or closes, when `end`).
    pub kind: ConstructKind,
    /// It opens a team of threads: `PARALLEL` or a combined construct (`PARALLEL DO`, ...).
    pub parallel: bool,
    /// An `END ...` directive.
    pub end: bool,
    /// The directive's name as written, lower case (`parallel do`, `end critical`).
    pub name: String,
    /// The name of a CRITICAL section.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub critical_name: Option<String>,
    /// Its clauses.
    pub clauses: Clauses,
}

/// One item of a directive: a word and its parenthesized argument.
struct Item {
    word: String,
    arg: Option<String>,
}

/// Splits directive text into words with their parenthesized arguments.
fn items(text: &str) -> Result<Vec<Item>, String> {
    let chars: Vec<char> = text.chars().collect();
    let mut out: Vec<Item> = vec![];
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c.is_whitespace() || c == ',' {
            i += 1;
        } else if c == '(' {
            let start = i + 1;
            let mut depth = 0;
            while i < chars.len() {
                match chars[i] {
                    '(' => depth += 1,
                    ')' => {
                        depth -= 1;
                        if depth == 0 {
                            break;
                        }
                    }
                    _ => {}
                }
                i += 1;
            }
            if depth != 0 {
                return Err("unbalanced parentheses".into());
            }
            let arg: String = chars[start..i].iter().collect();
            match out.last_mut() {
                Some(item) if item.arg.is_none() => item.arg = Some(arg.trim().to_string()),
                _ => return Err(format!("`({arg})` follows no clause")),
            }
            i += 1;
        } else {
            let start = i;
            while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            if i == start {
                return Err(format!("unexpected `{c}`"));
            }
            let word: String = chars[start..i].iter().collect();
            out.push(Item {
                word: word.to_ascii_lowercase(),
                arg: None,
            });
        }
    }
    Ok(out)
}

/// The construct a directive-name word starts, and whether the word may be followed
/// by more name words.
fn construct_word(w: &str) -> Option<ConstructKind> {
    Some(match w {
        "parallel" => ConstructKind::Parallel,
        "do" => ConstructKind::Loop,
        "sections" => ConstructKind::Sections,
        "section" => ConstructKind::Section,
        "single" => ConstructKind::Single,
        "master" | "masked" => ConstructKind::Master,
        "critical" => ConstructKind::Critical,
        "atomic" => ConstructKind::Atomic,
        "barrier" => ConstructKind::Barrier,
        "workshare" => ConstructKind::Workshare,
        "ordered" => ConstructKind::Ordered,
        "simd" | "flush" | "taskwait" | "threadprivate" | "declare" | "task" | "taskloop"
        | "taskgroup" | "taskyield" | "target" | "teams" | "distribute" | "loop" | "cancel"
        | "cancellation" | "requires" | "scan" | "depobj" => ConstructKind::Other,
        _ => return None,
    })
}

/// Parses the text of an OpenMP directive (what follows `!$OMP`, continuation lines
/// joined). Unknown clauses are kept by name; an unknown construct is an error.
pub fn parse(text: &str) -> Result<Directive, String> {
    let items = items(text)?;
    let mut it = items.into_iter().peekable();
    let end = it.peek().is_some_and(|i| i.word == "end");
    if end {
        it.next();
    }
    let mut names: Vec<String> = vec![];
    let mut kinds: Vec<ConstructKind> = vec![];
    let mut critical_name = None;
    while let Some(kind) = it.peek().and_then(|i| construct_word(&i.word)) {
        // After a construct's name, ORDERED is the clause (`parallel do ordered`).
        if kind == ConstructKind::Ordered && !kinds.is_empty() {
            break;
        }
        let item = it.next().expect("peeked");
        if kind == ConstructKind::Critical {
            critical_name = item.arg.clone();
        }
        names.push(item.word);
        kinds.push(kind);
        // ATOMIC's UPDATE/READ/WRITE/CAPTURE and the words after OTHER are clauses.
        if matches!(kind, ConstructKind::Atomic | ConstructKind::Other) {
            break;
        }
    }
    let Some(&first) = kinds.first() else {
        let word = it.peek().map(|i| i.word.clone()).unwrap_or_default();
        return Err(format!("unknown OpenMP directive `{word}`"));
    };
    let parallel = first == ConstructKind::Parallel;
    let kind = if parallel && kinds.len() > 1 {
        kinds[1..]
            .iter()
            .copied()
            .find(|k| *k != ConstructKind::Other)
            .unwrap_or(ConstructKind::Parallel)
    } else {
        first
    };
    let mut clauses = Clauses {
        collapse: 1,
        ..Clauses::default()
    };
    for item in it {
        clause(&mut clauses, item)?;
    }
    Ok(Directive {
        kind,
        parallel,
        end,
        name: names.join(" "),
        critical_name,
        clauses,
    })
}

fn list(arg: &str) -> Vec<String> {
    arg.split(',')
        .map(|v| v.trim().to_ascii_lowercase())
        .filter(|v| !v.is_empty())
        .collect()
}

/// Reads one clause into `c`.
fn clause(c: &mut Clauses, item: Item) -> Result<(), String> {
    let arg = item.arg.as_deref().unwrap_or("");
    match item.word.as_str() {
        "schedule" => {
            let mut parts = arg.splitn(2, ',');
            let kind_text = parts.next().unwrap_or("").trim().to_ascii_lowercase();
            // OpenMP 4.5 modifiers: `schedule(monotonic: dynamic, 4)`.
            let kind_text = kind_text
                .rsplit(':')
                .next()
                .unwrap_or("")
                .trim()
                .to_string();
            let kind = match kind_text.as_str() {
                "static" => ScheduleKind::Static,
                "dynamic" => ScheduleKind::Dynamic,
                "guided" => ScheduleKind::Guided,
                "runtime" => ScheduleKind::Runtime,
                "auto" => ScheduleKind::Auto,
                other => return Err(format!("unknown schedule kind `{other}`")),
            };
            let chunk = parts.next().map(|s| s.trim().to_ascii_lowercase());
            c.schedule = Some(Schedule { kind, chunk });
        }
        "collapse" => {
            c.collapse = arg
                .trim()
                .parse()
                .map_err(|_| format!("COLLAPSE needs a constant, not `{arg}`"))?;
        }
        "nowait" => c.nowait = true,
        "ordered" => c.ordered = true,
        "reduction" => {
            let (op, vars) = arg
                .split_once(':')
                .ok_or_else(|| format!("REDUCTION({arg}) has no `:`"))?;
            c.reductions.push(Reduction {
                op: op.trim().to_ascii_lowercase(),
                vars: list(vars),
            });
        }
        "private" => c.private.extend(list(arg)),
        "firstprivate" => c.firstprivate.extend(list(arg)),
        "lastprivate" => c.lastprivate.extend(list(arg)),
        "shared" => c.shared.extend(list(arg)),
        "num_threads" => c.num_threads = Some(arg.trim().to_ascii_lowercase()),
        "if" => c.if_expr = Some(arg.trim().to_ascii_lowercase()),
        other => c.other.push(other.to_string()),
    }
    Ok(())
}

/// One construct of a unit: where it is, what it covers, and its clauses.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Construct {
    /// Its index in [`Structure::constructs`].
    pub id: u32,
    /// The opening directive (clauses of its END merged: NOWAIT).
    pub directive: Directive,
    /// Index of the opening directive statement in [`Unit::stmts`].
    pub stmt: u32,
    /// Original line of the directive (1-based, in the file of its statement).
    pub line: u32,
    /// Last original line the construct covers.
    pub end_line: u32,
    /// First and last line (0-based) of the unit's parsed text it covers.
    pub text_lines: (u32, u32),
    /// The enclosing construct.
    pub parent: Option<u32>,
    /// The loops whose iterations a `DO` construct shares: the bound loop, then the
    /// loops COLLAPSE merges into it.
    pub loops: Vec<LoopId>,
    /// The blocks inside the construct (lexically).
    pub blocks: Vec<BlockId>,
    /// Its stores into elements threads share a cache line through (a parallel region
    /// or worksharing loop; see [`crate::omp_sharing`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub shared_stores: Vec<crate::omp_sharing::SharedStore>,
    /// An `ATOMIC` whose statement updates an array element with a subscript that is not
    /// a constant (a histogram's bin, a scatter-add's slot): the updates spread over a
    /// table, and the line an update needs is another core's only as often as that core
    /// wrote it last, where updates of one variable pass its line from core to core.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub spread_target: bool,
}

/// The OpenMP constructs of a unit.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Structure {
    /// Constructs, outer before inner, in source order.
    pub constructs: Vec<Construct>,
    /// Directives that could not be read or paired: (original line, message).
    pub problems: Vec<(u32, String)>,
}

impl Structure {
    /// Whether the unit has any construct.
    pub fn is_empty(&self) -> bool {
        self.constructs.is_empty()
    }
}

/// The directives of a unit with continuation lines joined: (first statement index,
/// text).
fn joined_directives(unit: &Unit) -> Vec<(u32, String)> {
    let mut out: Vec<(u32, String)> = vec![];
    let mut continuing = false;
    for (i, s) in unit.stmts.iter().enumerate() {
        let StmtKind::Directive { sentinel, text } = &s.kind else {
            continuing = false;
            continue;
        };
        if sentinel != "$OMP" {
            continuing = false;
            continue;
        }
        let body = text.trim();
        let body = body.strip_prefix('&').unwrap_or(body).trim();
        // A trailing `!` comment ends the directive's text.
        let body = body.split('!').next().unwrap_or("").trim();
        let (body, more) = match body.strip_suffix('&') {
            Some(b) => (b.trim(), true),
            None => (body, false),
        };
        match out.last_mut() {
            Some(last) if continuing => {
                last.1.push(' ');
                last.1.push_str(body);
            }
            _ => out.push((i as u32, body.to_string())),
        }
        continuing = more;
    }
    out
}

/// The constructs of `unit`, paired with their END directives, nested, bound to
/// their loops and to the blocks they cover.
pub fn structure(unit: &Unit) -> Structure {
    let mut st = Structure::default();
    let mut open: Vec<u32> = vec![];
    for (si, text) in joined_directives(unit) {
        let stmt = &unit.stmts[si as usize];
        let line = stmt.span.start.line;
        let d = match parse(&text) {
            Ok(d) => d,
            Err(e) => {
                st.problems.push((line, format!("!$OMP {text}: {e}")));
                continue;
            }
        };
        if d.end {
            close(unit, &mut st, &mut open, &d, si);
            continue;
        }
        // A SECTION ends the SECTION before it.
        if d.kind == ConstructKind::Section {
            if let Some(&top) = open.last() {
                if st.constructs[top as usize].directive.kind == ConstructKind::Section {
                    let prev = si.saturating_sub(1);
                    set_end(unit, &mut st, top, prev);
                    open.pop();
                }
            }
        }
        let id = st.constructs.len() as u32;
        st.constructs.push(Construct {
            id,
            directive: d.clone(),
            stmt: si,
            line,
            end_line: stmt.span.end_line,
            text_lines: (stmt.text.line, stmt.text.end_line),
            parent: open.last().copied(),
            loops: vec![],
            blocks: vec![],
            shared_stores: vec![],
            spread_target: false,
        });
        match d.kind {
            ConstructKind::Loop => bind_loop(unit, &mut st, id, si),
            ConstructKind::Atomic => {
                if let Some(next) = next_statement(unit, si) {
                    set_end(unit, &mut st, id, next);
                    st.constructs[id as usize].spread_target =
                        updates_a_table_slot(&unit.stmts[next as usize].kind);
                }
            }
            ConstructKind::Section => open.push(id),
            k if k.is_block() => open.push(id),
            _ => {}
        }
    }
    for id in open {
        let c = &st.constructs[id as usize];
        st.problems.push((
            c.line,
            format!("!$OMP {} has no matching END directive", c.directive.name),
        ));
    }
    nest_by_lines(&mut st);
    assign_blocks(unit, &mut st);
    for (id, store) in crate::omp_sharing::shared_line_stores(unit, &st) {
        st.constructs[id as usize].shared_stores.push(store);
    }
    st
}

/// Each construct's parent: the innermost other construct whose lines hold it (a DO
/// construct ends with its loop, so the open-construct stack does not see what it
/// holds).
fn nest_by_lines(st: &mut Structure) {
    let ranges: Vec<(u32, u32, bool)> = st
        .constructs
        .iter()
        .map(|c| {
            let holds = !matches!(
                c.directive.kind,
                ConstructKind::Barrier | ConstructKind::Atomic | ConstructKind::Other
            );
            (c.text_lines.0, c.text_lines.1, holds)
        })
        .collect();
    for (i, c) in st.constructs.iter_mut().enumerate() {
        let (a, b, _) = ranges[i];
        c.parent = ranges
            .iter()
            .enumerate()
            .filter(|(j, r)| {
                let (same, inside) = ((r.0, r.1) == (a, b), r.0 <= a && b <= r.1);
                // Holding it strictly, or the same lines and opened before it.
                r.2 && ((inside && !same) || (same && *j < i))
            })
            .max_by_key(|(j, r)| (r.0, *j))
            .map(|(j, _)| j as u32);
    }
}

/// An END directive: closes the innermost open construct of its kind (and an open
/// SECTION when it ends SECTIONS); its NOWAIT goes to the construct.
fn close(unit: &Unit, st: &mut Structure, open: &mut Vec<u32>, d: &Directive, si: u32) {
    let line = unit.stmts[si as usize].span.start.line;
    // A bound DO without a matching open entry: its END DO extends it.
    if d.kind == ConstructKind::Loop {
        if let Some(c) = st.constructs.iter_mut().rev().find(|c| {
            c.directive.kind == ConstructKind::Loop
                && c.directive.parallel == d.parallel
                && !c.loops.is_empty()
                && c.text_lines.1 <= unit.stmts[si as usize].text.line
        }) {
            c.directive.clauses.nowait |= d.clauses.nowait;
            let id = c.id;
            set_end(unit, st, id, si);
            return;
        }
    }
    if d.kind == ConstructKind::Sections {
        if let Some(&top) = open.last() {
            if st.constructs[top as usize].directive.kind == ConstructKind::Section {
                let prev = si.saturating_sub(1);
                set_end(unit, st, top, prev);
                open.pop();
            }
        }
    }
    let Some(pos) = open.iter().rposition(|&id| {
        let o = &st.constructs[id as usize].directive;
        o.kind == d.kind && o.parallel == d.parallel
    }) else {
        st.problems.push((
            line,
            format!("!$OMP END {} closes no open construct", d.name),
        ));
        return;
    };
    let id = open[pos];
    open.truncate(pos);
    st.constructs[id as usize].directive.clauses.nowait |= d.clauses.nowait;
    set_end(unit, st, id, si);
}

/// Extends construct `id` to the end of statement `si`.
fn set_end(unit: &Unit, st: &mut Structure, id: u32, si: u32) {
    let s = &unit.stmts[si as usize];
    let c = &mut st.constructs[id as usize];
    c.end_line = c.end_line.max(s.span.end_line);
    c.text_lines.1 = c.text_lines.1.max(s.text.end_line);
}

/// The first statement after `si` that is not a directive or a non-executable one.
/// Whether an ATOMIC's statement stores into an array element at a subscript that is
/// not a constant ([`Construct::spread_target`]).
fn updates_a_table_slot(kind: &StmtKind) -> bool {
    let StmtKind::Assign { lhs, .. } = kind else {
        return false;
    };
    let crate::ExprKind::Elem(_, subscripts) = &lhs.kind else {
        return false;
    };
    subscripts.iter().any(|s| match s {
        crate::Subscript::Index(e) => !matches!(e.kind, crate::ExprKind::Const { .. }),
        crate::Subscript::Range(..) => false,
    })
}

fn next_statement(unit: &Unit, si: u32) -> Option<u32> {
    unit.stmts
        .iter()
        .enumerate()
        .skip(si as usize + 1)
        .find(|(_, s)| !matches!(s.kind, StmtKind::Directive { .. } | StmtKind::NonExecutable))
        .map(|(i, _)| i as u32)
}

/// Binds a DO construct to the loop that follows it (and the loops COLLAPSE merges).
fn bind_loop(unit: &Unit, st: &mut Structure, id: u32, si: u32) {
    let Some(next) = next_statement(unit, si) else {
        return;
    };
    let next_text = unit.stmts[next as usize].text;
    let Some(first) = unit.loops.iter().find(|l| {
        l.kind != crate::LoopKind::ArrayElements && header_line(unit, l) == Some(next_text.line)
    }) else {
        let line = unit.stmts[si as usize].span.start.line;
        st.problems
            .push((line, "!$OMP DO is not followed by a DO loop".to_string()));
        return;
    };
    let collapse = st.constructs[id as usize].directive.clauses.collapse.max(1);
    let mut loops = vec![first.id];
    while (loops.len() as u32) < collapse {
        let outer = *loops.last().expect("one loop");
        let child = unit
            .loops
            .iter()
            .find(|l| l.parent == Some(outer) && l.kind != crate::LoopKind::ArrayElements);
        match child {
            Some(c) => loops.push(c.id),
            None => break,
        }
    }
    let end = unit.loops[first.id.0 as usize].end_text;
    let c = &mut st.constructs[id as usize];
    c.end_line = c
        .end_line
        .max(first.span.end_line.max(end_original_line(unit, first)));
    c.text_lines.1 = c.text_lines.1.max(end.end_line);
    c.loops = loops;
}

/// The parsed-text line of a loop's DO statement (the first statement of its header).
fn header_line(unit: &Unit, l: &crate::Loop) -> Option<u32> {
    let h = unit.blocks.get(l.header_block.0 as usize)?;
    let s = h.stmts.first()?;
    Some(unit.stmts[*s as usize].text.line)
}

/// The original line of a loop's END DO: the last statement before it, moved on by
/// the lines between them in the parsed text (END DO is no statement of its own).
fn end_original_line(unit: &Unit, l: &crate::Loop) -> u32 {
    let end = l.end_text.end_line;
    unit.stmts
        .iter()
        .filter(|s| s.text.end_line <= end)
        .max_by_key(|s| s.text.end_line)
        .map(|s| s.span.end_line + (end - s.text.end_line))
        .unwrap_or(l.span.end_line)
}

/// Each construct's blocks: every block goes to the innermost construct holding the
/// parsed-text line of its first statement, and to those around it.
fn assign_blocks(unit: &Unit, st: &mut Structure) {
    for b in &unit.blocks {
        let Some(&first) = b.stmts.first() else {
            continue;
        };
        let line = unit.stmts[first as usize].text.line;
        // Constructs are outer before inner: the last one covering the line is innermost.
        let inner = st
            .constructs
            .iter()
            .filter(|c| {
                c.text_lines.0 <= line
                    && line <= c.text_lines.1
                    && c.directive.kind != ConstructKind::Barrier
            })
            .map(|c| c.id)
            .next_back();
        let mut c = inner;
        while let Some(id) = c {
            st.constructs[id as usize].blocks.push(b.id);
            c = st.constructs[id as usize].parent;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_combined_loop_with_clauses() {
        let d =
            parse("PARALLEL DO PRIVATE(i, j) SCHEDULE(dynamic, 4) REDUCTION(+:s, t) collapse(2)")
                .unwrap();
        assert_eq!(d.kind, ConstructKind::Loop);
        assert!(d.parallel && !d.end);
        assert_eq!(d.clauses.private, vec!["i", "j"]);
        assert_eq!(
            d.clauses.schedule,
            Some(Schedule {
                kind: ScheduleKind::Dynamic,
                chunk: Some("4".into())
            })
        );
        assert_eq!(d.clauses.reductions[0].op, "+");
        assert_eq!(d.clauses.reductions[0].vars, vec!["s", "t"]);
        assert_eq!(d.clauses.collapse, 2);
        // ORDERED after the name is the clause; alone, the construct.
        let o = parse("parallel do ordered schedule(dynamic,4)").unwrap();
        assert_eq!(
            (o.kind, o.name.as_str()),
            (ConstructKind::Loop, "parallel do")
        );
        assert!(o.clauses.ordered);
        assert!(parse("do ordered").unwrap().clauses.ordered);
        assert_eq!(parse("ordered").unwrap().kind, ConstructKind::Ordered);
    }

    #[test]
    fn parses_ends_and_named_critical() {
        let d = parse("end do nowait").unwrap();
        assert!(d.end && d.clauses.nowait);
        assert_eq!(d.kind, ConstructKind::Loop);
        let c = parse("critical (update)").unwrap();
        assert_eq!(c.kind, ConstructKind::Critical);
        assert_eq!(c.critical_name.as_deref(), Some("update"));
        let a = parse("atomic update").unwrap();
        assert_eq!(a.kind, ConstructKind::Atomic);
        let r = parse("REDUCTION(max: x)");
        assert!(r.is_err(), "a clause alone is no directive");
        assert!(parse("parallel do schedule(weird)").is_err());
        let p = parse("parallel").unwrap();
        assert_eq!(p.kind, ConstructKind::Parallel);
        assert!(p.parallel);
        let w = parse("end parallel workshare").unwrap();
        assert!(w.end && w.parallel && w.kind == ConstructKind::Workshare);
    }
}
