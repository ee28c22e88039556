//! The innermost loops of compiled code, read from GNU assembler text (x86-64, AT&T
//! syntax, with `.file`/`.loc` line tables): for each, the instructions of one compiled
//! iteration by class and width, the source iterations it covers, and its loop-carried
//! dependence chains (through registers, and through stack slots as unoptimized code
//! keeps every variable).
//!
//! A loop is a jump back to a label of the same function; an innermost loop holds no
//! other. Its source line is the line of that backward jump (the DO statement's line in
//! gfortran's and flang's line tables). The records are mapped to the program's source
//! loops by the program wing.

use augur_program_profile::compiled::{
    BlockEnd, Chain, ClassCount, ClassWidth, CompiledBlock, CompiledLoop, CompiledPath,
};
use augur_program_profile::compiled::{InFlight, InstrClass, OuterIteration, Width};
use augur_program_profile::compiled::{ScheduledOp, ScheduledRead, WalkedElement};
use std::collections::{BTreeMap, HashMap, HashSet};

mod affine;
mod cfg;
mod flags;
mod places;
mod walks;

use places::Places;

/// One instruction of the assembly.
#[derive(Debug, Clone)]
struct Instr {
    mnemonic: String,
    operands: Vec<String>,
    /// `.loc` file number and line in force.
    at: Option<(u32, u32)>,
}

/// A function's instructions and where its labels point.
#[derive(Debug, Default)]
struct Function {
    name: String,
    instrs: Vec<Instr>,
    /// Label → index of the instruction it precedes.
    labels: HashMap<String, usize>,
    /// The labels an indirect jump through a table may go to (a SELECT CASE or a
    /// computed GOTO: `jmp *%rax` then the table in `.rodata`), by the jump's index.
    tables: HashMap<usize, Vec<String>>,
}

/// Where a value lives: a register (canonical name) or a stack or static slot.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
enum Loc {
    Reg(String),
    Slot(String),
}

/// The compiled loops of `asm`, for the source files of `names` (`line` is the line
/// of each loop's backward jump; the program wing maps it to its source loop).
pub fn compiled_loops(asm: &str, names: &[String]) -> Vec<CompiledLoop> {
    loops_with_text(asm, names)
        .into_iter()
        .map(|(l, _)| l)
        .collect()
}

/// The straight-line procedures of compiled code: each function of the program's files
/// without a loop, a jump or a call, its instructions recorded as the body of a loop
/// run once a call (no chain carried from one call to the next, one source iteration a
/// compiled one), on the first source line its code has. A 5x5 block operation
/// written out statement by statement (`b(i,j) = b(i,j) - a(i,1)*c(1,j) - ...`),
/// vectorized by pairs with the shuffles that takes, issues more than its AbOps say:
/// the model prices its calls from these instructions where they take longer.
pub fn compiled_bodies(asm: &str, names: &[String]) -> Vec<CompiledLoop> {
    let (files, functions) = parse(asm, names);
    functions
        .iter()
        .filter_map(|f| straight_line_body(f, &files))
        .collect()
}

/// The record of `f` as a straight-line body ([`compiled_bodies`]), or `None` when it
/// jumps, calls or names no file of the program.
fn straight_line_body(f: &Function, files: &HashMap<u32, Option<String>>) -> Option<CompiledLoop> {
    let transfers = |i: &Instr| i.mnemonic.starts_with('j') || i.mnemonic.starts_with("call");
    if f.instrs.is_empty() || f.instrs.iter().any(transfers) {
        return None;
    }
    let (file_no, line) = f
        .instrs
        .iter()
        .filter_map(|i| i.at)
        .filter(|a| files.get(&a.0).is_some_and(Option::is_some))
        .min_by_key(|a| a.1)?;
    let file = files.get(&file_no)?.clone()?;
    let body: Vec<Instr> = f
        .instrs
        .iter()
        .filter(|i| !frame_work(i))
        .cloned()
        .collect();
    let mut cl = describe(&f.name, &body, file, line);
    cl.chains = vec![];
    cl.span = vec![];
    cl.source_iterations = 1;
    cl.lanes = 1;
    Some(cl)
}

/// Whether `i` is part of a call's cost rather than its procedure's work: the frame
/// set up and taken down (`push`, `pop`, `leave`, `ret`, `movq %rsp, %rbp`, the stack
/// pointer moved by a constant) and, as unoptimized code does on entry, an argument
/// register stored to the frame. The caller's `PROC` and `ARGL` price them.
fn frame_work(i: &Instr) -> bool {
    const ARGUMENTS: [&str; 6] = ["%rdi", "%rsi", "%rdx", "%rcx", "%r8", "%r9"];
    let m = i.mnemonic.as_str();
    let ops: Vec<&str> = i.operands.iter().map(String::as_str).collect();
    let on_stack = |o: &str| o.contains("(%rbp)") || o.contains("(%rsp)");
    match ops.as_slice() {
        _ if ["push", "pop", "leave", "ret", "endbr"]
            .iter()
            .any(|p| m.starts_with(p)) =>
        {
            true
        }
        ["%rsp", "%rbp"] => m.starts_with("mov"),
        [k, "%rsp"] => k.starts_with('$') && (m.starts_with("sub") || m.starts_with("add")),
        [r, to] => m.starts_with("mov") && ARGUMENTS.contains(r) && on_stack(to),
        _ => false,
    }
}

/// [`compiled_loops`] with each loop's instructions as assembler text, one a line, its
/// jumps aimed at a label `augur_loop` at its top: a body a peer such as llvm-mca can
/// read.
pub fn loops_with_text(asm: &str, names: &[String]) -> Vec<(CompiledLoop, String)> {
    let (files, functions) = parse(asm, names);
    let mut out = vec![];
    for f in &functions {
        let g = cfg::Cfg::new(f);
        for l in g.innermost_loops() {
            out.extend(record(f, &g, &l, &files));
        }
    }
    out
}

/// The record of loop `l` of `f` with its text, or `None` when its lines name no file
/// of the program.
fn record(
    f: &Function,
    g: &cfg::Cfg,
    l: &cfg::NaturalLoop,
    files: &HashMap<u32, Option<String>>,
) -> Option<(CompiledLoop, String)> {
    let body = instructions_of(f, g, l.blocks.iter().copied());
    let latch = &f.instrs[jump_back(f, g, l)];
    let (file_no, line) = latch.at.or_else(|| body.iter().rev().find_map(|i| i.at))?;
    let file = files.get(&file_no)?.clone()?;
    let mut cl = describe(&f.name, &body, file, line);
    cl.chains = restarted_chains(f, g, l, &body);
    cl.outer = outer_iteration(f, g, l);
    cl.schedule = schedule(&placed(f, g, l, 0), &[], &[]);
    cl.lines = source_lines(&body, file_no);
    let blocks = loop_blocks(f, g, l);
    cl.inner_branches = blocks
        .iter()
        .filter(|b| match &b.end {
            BlockEnd::Branches {
                taken, not_taken, ..
            } => taken.is_some() && not_taken.is_some(),
            BlockEnd::Table { arms, .. } => arms.iter().flatten().count() > 1,
            BlockEnd::Goes { .. } => false,
        })
        .count() as u32;
    if cl.inner_branches > 0 {
        cl.paths = g
            .paths(l, 64)
            .into_iter()
            .map(|p| {
                let instrs = instructions_of(f, g, p.iter().map(|&k| l.blocks[k]));
                CompiledPath {
                    blocks: p.iter().map(|&k| k as u32).collect(),
                    chains: restarted_chains(f, g, l, &instrs),
                    span: span(&instrs),
                }
            })
            .collect();
        cl.blocks = blocks;
    }
    Some((cl, text(&body)))
}

/// One iteration of the loop around `l`, when every loop inside it is innermost: its
/// longest dependent path through its blocks in their order, each inner loop's body
/// once, and the instructions outside its inner loops.
fn outer_iteration(f: &Function, g: &cfg::Cfg, l: &cfg::NaturalLoop) -> Option<OuterIteration> {
    let outer = g.enclosing_loops(l).into_iter().next()?;
    let inner = g.innermost_inside(&outer)?;
    let own = outer
        .blocks
        .iter()
        .copied()
        .filter(|b| !inner.iter().any(|i| i.blocks.contains(b)));
    let issued = instructions_of(f, g, own).len() as u32;
    let whole = instructions_of(f, g, outer.blocks.iter().copied());
    let mut order = placed(f, g, &outer, 0);
    let mut bodies = vec![];
    for l in &inner {
        let back = jump_back(f, g, l);
        let line = f.instrs[back].at.map_or(0, |a| a.1).max(1);
        bodies.push((line, instructions_of(f, g, l.blocks.iter().copied())));
        let inside: HashSet<usize> = l
            .blocks
            .iter()
            .flat_map(|&b| g.blocks[b].start..=g.blocks[b].end)
            .collect();
        for p in order.iter_mut().filter(|p| inside.contains(&p.index)) {
            p.inner = line;
            p.back_jump |= p.index == back;
        }
    }
    // The schedule once per outer loop (on its first inner loop's record), and only
    // where a replay can use it (no call).
    let first = inner.first().is_some_and(|i| i.blocks[0] == l.blocks[0]);
    let calls = whole.iter().any(|i| i.mnemonic.starts_with("call"));
    Some(OuterIteration {
        line: f.instrs[jump_back(f, g, &outer)].at?.1,
        span: span(&whole),
        issued,
        inner_loops: inner.len() as u32,
        schedule: if first && !calls {
            let first = outer
                .blocks
                .iter()
                .map(|&b| g.blocks[b].start)
                .min()
                .unwrap_or(0);
            schedule(&order, &bodies, &f.instrs[..first])
        } else {
            vec![]
        },
    })
}

/// The loop-carried chains of `instrs`, an iteration of loop `l` of `f`, each with the
/// line of the enclosing loop that restarts it.
fn restarted_chains(
    f: &Function,
    g: &cfg::Cfg,
    l: &cfg::NaturalLoop,
    instrs: &[Instr],
) -> Vec<Chain> {
    carried_chains(instrs)
        .into_iter()
        .map(|(carried, mut chain)| {
            chain.restarted_by = restart_line(f, g, l, &carried);
            chain
        })
        .collect()
}

/// The line of the innermost loop enclosing `l` each of whose iterations starts the
/// chain `carried` afresh: its code outside the inner loops writes the location without
/// reading it, or writes what the place's address is computed from.
fn restart_line(f: &Function, g: &cfg::Cfg, l: &cfg::NaturalLoop, carried: &Loc) -> Option<u32> {
    let moved_by = match carried {
        Loc::Slot(key) => places::inputs(key),
        Loc::Reg(_) => vec![],
    };
    let none = Places::default();
    let mut inner = l.blocks.clone();
    for outer in g.enclosing_loops(l) {
        let own = outer.blocks.iter().copied().filter(|b| !inner.contains(b));
        let restarts = instructions_of(f, g, own).iter().any(|i| {
            let fl = flow(i, &none);
            let fresh = fl.writes.contains(carried) && fl.reads.iter().all(|(r, _)| r != carried);
            fresh || fl.writes.iter().any(|w| moved_by.contains(w))
        });
        if restarts {
            return f.instrs[jump_back(f, g, &outer)].at.map(|a| a.1);
        }
        inner = outer.blocks;
    }
    None
}

/// The instructions of `blocks` of `f`, in that order.
fn instructions_of(f: &Function, g: &cfg::Cfg, blocks: impl Iterator<Item = usize>) -> Vec<Instr> {
    blocks
        .flat_map(|b| {
            f.instrs[g.blocks[b].start..=g.blocks[b].end]
                .iter()
                .cloned()
        })
        .collect()
}

/// The lines of file `file_no` the instructions of `body` come from, ascending.
fn source_lines(body: &[Instr], file_no: u32) -> Vec<u32> {
    let mut lines: Vec<u32> = body
        .iter()
        .filter_map(|i| i.at)
        .filter(|a| a.0 == file_no && a.1 > 0)
        .map(|a| a.1)
        .collect();
    lines.sort_unstable();
    lines.dedup();
    lines
}

/// The instruction whose line names loop `l`: its last jump (in the function's order) to
/// one of its own blocks, the backward jump of the loop as laid out (gcc's line table
/// gives it the DO statement's line, or its body's last); else the last instruction of
/// the block that goes back to the header (a fall-through into a loop entered at its
/// test carries whatever line the compiler's moves there had).
fn jump_back(f: &Function, g: &cfg::Cfg, l: &cfg::NaturalLoop) -> usize {
    l.blocks
        .iter()
        .map(|&b| g.blocks[b].end)
        .filter(|&e| {
            is_jump(&f.instrs[e].mnemonic)
                && f.instrs[e]
                    .operands
                    .first()
                    .and_then(|t| f.labels.get(t))
                    .is_some_and(|&t| l.blocks.iter().any(|&b| g.blocks[b].start == t))
        })
        .max()
        .unwrap_or(g.blocks[l.latch].end)
}

/// The blocks of loop `l` of `f`, header first, with their successors as indices into
/// the loop's blocks.
fn loop_blocks(f: &Function, g: &cfg::Cfg, l: &cfg::NaturalLoop) -> Vec<CompiledBlock> {
    let index = |b: Option<usize>| -> Option<u32> {
        let b = b?;
        l.blocks.iter().position(|&x| x == b).map(|k| k as u32)
    };
    l.blocks
        .iter()
        .enumerate()
        .map(|(k, &b)| {
            let instrs = &f.instrs[g.blocks[b].start..=g.blocks[b].end];
            let mut counts: BTreeMap<ClassWidth, u32> = BTreeMap::new();
            for cw in instrs.iter().flat_map(classes) {
                *counts.entry(cw).or_default() += 1;
            }
            let s = g.succ[b];
            let end = if !g.switch[b].is_empty() {
                let mut arms: Vec<Option<u32>> = vec![];
                for arm in g.switch[b].iter().map(|&t| index(Some(t))) {
                    if !arms.contains(&arm) {
                        arms.push(arm);
                    }
                }
                BlockEnd::Table {
                    line: instrs.last().and_then(|i| i.at).map_or(0, |a| a.1),
                    arms,
                }
            } else if s.conditional {
                BlockEnd::Branches {
                    line: instrs.last().and_then(|i| i.at).map_or(0, |a| a.1),
                    taken: index(s.taken),
                    not_taken: index(s.next),
                    until_set: flags::set_once_arm(f, g, l, k).map(|a| a as u32),
                }
            } else {
                BlockEnd::Goes { to: index(s.next) }
            };
            CompiledBlock {
                first_line: instrs.iter().find_map(|i| i.at).map_or(0, |a| a.1),
                instructions: class_counts(&counts),
                issued: instrs.len() as u32,
                end,
                frequency: None,
                taken_share: None,
                arm_shares: vec![],
            }
        })
        .collect()
}

/// The instructions as assembler text, jumps aimed at `augur_loop` at the top.
fn text(body: &[Instr]) -> String {
    let mut out = String::from("augur_loop:\n");
    for i in body {
        let operands = if is_jump(&i.mnemonic) {
            "augur_loop".to_string()
        } else {
            i.operands.join(", ")
        };
        out.push_str(&format!("\t{}\t{}\n", i.mnemonic, operands));
    }
    out
}

/// The assembly of `sources` compiled by `tc` with `extra_fflags` (`-S -g` added), one
/// text per source file, or the compiler's complaint.
pub fn assembly(
    tc: &crate::Toolchain,
    sources: &[std::path::PathBuf],
    extra_fflags: &[String],
) -> Result<Vec<String>, String> {
    let dir = crate::interrupt::temp_dir("augur-assembly-")
        .map_err(|e| format!("cannot create a temporary directory: {e}"))?;
    let mut flags = vec!["-S".to_string(), "-g".to_string()];
    flags.extend(extra_fflags.iter().cloned());
    crate::compile_only(tc, sources, &flags, dir.path()).map_err(|e| e.to_string())?;
    let mut out = vec![];
    let entries = std::fs::read_dir(dir.path()).map_err(|e| e.to_string())?;
    for e in entries.flatten() {
        if e.path().extension().and_then(|x| x.to_str()) == Some("o") {
            out.push(std::fs::read_to_string(e.path()).map_err(|e| e.to_string())?);
        }
    }
    Ok(out)
}

/// The `.file` table (number → the matching name of `names`) and the functions.
fn parse(asm: &str, names: &[String]) -> (HashMap<u32, Option<String>>, Vec<Function>) {
    let mut files = HashMap::new();
    let mut functions: Vec<Function> = vec![];
    let mut at = None;
    let mut pending_labels: Vec<String> = vec![];
    // The indirect jump whose table the lines read now belong to.
    let mut table_of: Option<usize> = None;
    for raw in asm.lines() {
        let line = raw.trim();
        if functions
            .last_mut()
            .is_some_and(|f| table_line(line, f, &mut table_of))
        {
            continue;
        }
        if let Some((n, name)) = crate::optreport::file_directive(line) {
            files.insert(n, crate::optreport::match_name(&name, names));
            continue;
        }
        if let Some(loc) = crate::optreport::loc_directive(line) {
            at = loc;
            continue;
        }
        if let Some(label) = line
            .strip_suffix(':')
            .filter(|l| !l.contains(char::is_whitespace))
        {
            if !label.starts_with('.') {
                functions.push(Function {
                    name: label.to_string(),
                    ..Function::default()
                });
                pending_labels.clear();
            } else {
                pending_labels.push(label.to_string());
            }
            continue;
        }
        if !raw.starts_with('\t') || line.is_empty() || line.starts_with('.') {
            continue;
        }
        let Some(f) = functions.last_mut() else {
            continue;
        };
        let (mnemonic, rest) = line.split_once(char::is_whitespace).unwrap_or((line, ""));
        for l in pending_labels.drain(..) {
            f.labels.insert(l, f.instrs.len());
        }
        f.instrs.push(Instr {
            mnemonic: mnemonic.to_string(),
            operands: split_operands(rest.trim()),
            at,
        });
    }
    (files, functions)
}

/// Reads `line` as part of a jump table: after an indirect jump (`jmp *%rax`), a
/// `.section .rodata` opens its table, whose `.long .L5-.L7` (or `.quad .L5`) entries name
/// the jump's targets, until the next section. Whether the line was the table's (nothing
/// more to read in it; the directive that closes the table is not).
fn table_line(line: &str, f: &mut Function, table_of: &mut Option<usize>) -> bool {
    let directive = line.split_whitespace().next().unwrap_or("");
    match *table_of {
        None => {
            let after_indirect = f.instrs.last().is_some_and(|i| {
                i.mnemonic == "jmp" && i.operands.first().is_some_and(|o| o.starts_with('*'))
            });
            let rodata = directive == ".section"
                && line
                    .split_whitespace()
                    .nth(1)
                    .is_some_and(|s| s.trim_end_matches(',') == ".rodata");
            let opens = after_indirect && rodata;
            if opens {
                *table_of = Some(f.instrs.len() - 1);
            }
            opens
        }
        Some(jump) => {
            if directive == ".text" || directive == ".section" || directive == ".previous" {
                *table_of = None;
                return false;
            }
            if matches!(directive, ".long" | ".quad") {
                let entry = line[directive.len()..].trim();
                let target = entry.split('-').next().unwrap_or("").trim();
                if target.starts_with('.') {
                    f.tables.entry(jump).or_default().push(target.to_string());
                }
            }
            true
        }
    }
}

/// Operands separated by the commas outside parentheses.
fn split_operands(text: &str) -> Vec<String> {
    let mut out = vec![];
    let (mut depth, mut cur) = (0, String::new());
    for c in text.chars() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            ',' if depth == 0 => {
                out.push(cur.trim().to_string());
                cur.clear();
                continue;
            }
            '#' if depth == 0 => break,
            _ => {}
        }
        cur.push(c);
    }
    if !cur.trim().is_empty() {
        out.push(cur.trim().to_string());
    }
    out
}

/// Whether `m` is a jump (conditional or not).
fn is_jump(m: &str) -> bool {
    m.starts_with('j')
}

/// The record of the loop whose instructions, header first, are `body`, in function
/// `function` (its inner branches and blocks are the caller's).
fn describe(function: &str, body: &[Instr], file: String, line: u32) -> CompiledLoop {
    let mut counts: BTreeMap<ClassWidth, u32> = BTreeMap::new();
    for cw in body.iter().flat_map(classes) {
        *counts.entry(cw).or_default() += 1;
    }
    let (source_iterations, from) = source_iterations(body);
    CompiledLoop {
        file,
        line,
        function: function.to_string(),
        instructions: class_counts(&counts),
        issued: body.len() as u32,
        inner_branches: 0,
        source_iterations,
        lanes: lanes(body).map_or(1, |l| l.0),
        source_iterations_from: from,
        chains: chains(body),
        span: span(body),
        versions: 0,
        blocks: vec![],
        paths: vec![],
        lines: vec![],
        in_flight: Some(in_flight(body)),
        outer: None,
        schedule: vec![],
    }
}

/// What `body` takes of the core's in-flight resources: registers by the kind its
/// instructions write (flags count as integer; a register-to-register move is renamed
/// away), and stores.
fn in_flight(body: &[Instr]) -> InFlight {
    let mut f = InFlight::default();
    for i in body {
        let one = holds(i);
        f.integer += one.integer;
        f.vector += one.vector;
        f.stores += one.stores;
        f.waiting += one.waiting;
    }
    f
}

/// What one instruction takes of the core's in-flight resources ([`in_flight`]).
fn holds(i: &Instr) -> InFlight {
    let mut f = InFlight::default();
    let m = i.mnemonic.as_str();
    if is_jump(m) || m.starts_with("nop") || m.starts_with("call") {
        return f;
    }
    if is_compare(m) || m.starts_with("pop") {
        f.integer += 1;
        return f;
    }
    let Some(dest) = i.operands.last() else {
        f.integer += u32::from(matches!(m, "cltq" | "cqto" | "cltd"));
        return f;
    };
    if is_memory(dest) || m.starts_with("push") {
        f.stores += 1;
        let moves = m.starts_with("mov") || base_mnemonic(m).starts_with("mov");
        f.integer += u32::from(!moves && !m.starts_with("push") && !m.starts_with("set"));
        return f;
    }
    let renamed = i.operands.len() == 2
        && (m.starts_with("mov") || base_mnemonic(m).starts_with("mov"))
        && !m.starts_with("movs") // movsd/movss/movsx merge or extend
        && !m.starts_with("movz")
        && register(&i.operands[0]).is_some_and(|r| r.starts_with('v') == dest.contains("mm"));
    if renamed {
        return f;
    }
    match register(dest) {
        Some(r) if r.starts_with('v') => {
            f.vector += 1;
            let load = base_mnemonic(m).starts_with("mov") || m.starts_with("movs");
            f.waiting += u32::from(!load);
        }
        Some(_) => f.integer += 1,
        None => {}
    }
    f
}

/// One instruction of a loop's schedule: where it is (its block, the inner loop it
/// belongs to, 0 for none) and whether it is a loop's backward jump.
struct Placed<'a> {
    instr: &'a Instr,
    /// Its index among its function's instructions.
    index: usize,
    block: u32,
    inner: u32,
    back_jump: bool,
}

/// The instructions of `body` as the schedule simulation replays them: each one's
/// classes, the values it reads (with the classes between each and its result) and
/// writes, numbered per loop, and the resources it holds.
fn schedule(body: &[Placed], inner: &[(u32, Vec<Instr>)], before: &[Instr]) -> Vec<ScheduledOp> {
    let instrs: Vec<Instr> = body.iter().map(|p| p.instr.clone()).collect();
    let mut places = Places::entered_from(&instrs, &registers_written(&instrs), before);
    // An inner loop's instructions see the places of the inner loop (an element
    // `c(i,j)` inside the loop over k is one place there, and another in the next
    // iteration of the loop around it).
    let mut inner_places: HashMap<u32, Places> = inner
        .iter()
        .map(|(line, b)| (*line, Places::new(b, &registers_written(b))))
        .collect();
    let steps: walks::Steps = inner
        .iter()
        .map(|(line, b)| {
            let mut s = register_steps(b);
            if let Some(own) = inner_places.get(line) {
                s.extend(own.slot_counters().iter().map(|(k, v)| (k.clone(), *v)));
            }
            (*line, s)
        })
        .collect();
    let walked = walks::walked_elements(body, &steps, before);
    let mut numbers: HashMap<Loc, u32> = HashMap::new();
    let mut number = |l: &Loc| {
        let next = numbers.len() as u32;
        *numbers.entry(l.clone()).or_insert(next)
    };
    let mut out = Vec::with_capacity(body.len());
    let mut previous = 0;
    for (p, elements) in body.iter().zip(&walked) {
        let i = p.instr;
        walks::leave_inner(&mut places, previous, p.inner, &steps);
        previous = p.inner;
        if i.mnemonic.starts_with("nop") {
            continue;
        }
        let names: HashMap<&str, String> = elements
            .iter()
            .map(|(op, e)| (op.as_str(), walks::name(e)))
            .collect();
        let mut f = flow_named(i, &places, &names);
        places.after(i, registers(&f.writes));
        let mut local = vec![];
        if let Some(own) = inner_places.get_mut(&p.inner) {
            let seen = flow_named(i, own, &names);
            own.after(i, registers(&seen.writes));
            let outside: Vec<&Loc> = f.reads.iter().map(|r| &r.0).chain(&f.writes).collect();
            local = seen
                .reads
                .iter()
                .map(|r| &r.0)
                .chain(&seen.writes)
                .filter(|l| matches!(l, Loc::Slot(_)) && !outside.contains(l))
                .map(&mut number)
                .collect();
            f = seen;
        }
        let h = holds(i);
        let mut held = String::new();
        for (n, c) in [
            (h.integer, 'i'),
            (h.vector, 'v'),
            (h.stores, 's'),
            (h.waiting, 'w'),
        ] {
            if n > 0 {
                held.push(c);
            }
        }
        local.sort_unstable();
        local.dedup();
        let mut elements: Vec<WalkedElement> = elements
            .values()
            .map(|e| WalkedElement {
                value: number(&Loc::Slot(walks::name(e))),
                base: number(&Loc::Slot(format!("base {}", e.0))),
                offset: e.1,
                stride: e.2,
            })
            .collect();
        elements.sort_by_key(|e| e.value);
        elements.dedup();
        out.push(ScheduledOp {
            classes: classes(i),
            reads: f
                .reads
                .iter()
                .map(|(l, path)| ScheduledRead {
                    value: number(l),
                    path: path.clone(),
                })
                .collect(),
            writes: f.writes.iter().map(&mut number).collect(),
            holds: held,
            block: p.block,
            inner: p.inner,
            back_jump: p.back_jump,
            local,
            elements,
        });
    }
    out
}

/// The instructions of loop `l` of `f` in the order of its blocks, each with its
/// block's index among them, the backward jump marked.
fn placed<'a>(f: &'a Function, g: &cfg::Cfg, l: &cfg::NaturalLoop, inner: u32) -> Vec<Placed<'a>> {
    let back = jump_back(f, g, l);
    l.blocks
        .iter()
        .enumerate()
        .flat_map(|(k, &b)| {
            (g.blocks[b].start..=g.blocks[b].end).map(move |x| Placed {
                instr: &f.instrs[x],
                index: x,
                block: k as u32,
                inner,
                back_jump: x == back,
            })
        })
        .collect()
}

fn class_counts(counts: &BTreeMap<ClassWidth, u32>) -> Vec<ClassCount> {
    counts
        .iter()
        .map(|(&class, &count)| ClassCount { class, count })
        .collect()
}

/// The register family of an operand `%eax` → `a`, `%r8d` → `r8`, `%ymm3` → `v3`.
fn register(op: &str) -> Option<String> {
    let r = op.strip_prefix('%')?;
    for p in ["xmm", "ymm", "zmm"] {
        if let Some(n) = r.strip_prefix(p) {
            return Some(format!("v{n}"));
        }
    }
    if let Some(n) = r
        .strip_prefix('r')
        .filter(|n| n.starts_with(|c: char| c.is_ascii_digit()))
    {
        let digits: String = n.chars().take_while(|c| c.is_ascii_digit()).collect();
        return Some(format!("r{digits}"));
    }
    let core = match r.len() {
        3 if r.starts_with('r') || r.starts_with('e') => &r[1..],
        _ => r,
    };
    let family = match core {
        "ax" | "al" | "ah" => "a",
        "bx" | "bl" | "bh" => "b",
        "cx" | "cl" | "ch" => "c",
        "dx" | "dl" | "dh" => "d",
        "si" | "sil" => "si",
        "di" | "dil" => "di",
        "bp" | "bpl" => "bp",
        "sp" | "spl" => "sp",
        "ip" => "ip",
        other => other,
    };
    Some(family.to_string())
}

fn is_memory(op: &str) -> bool {
    op.contains('(') || (!op.starts_with('%') && !op.starts_with('$') && !op.is_empty())
}

/// The registers an address reads (`8(%rax,%rcx,8)` → `a`, `c`).
fn address_registers(op: &str) -> Vec<String> {
    let Some(inside) = op.split_once('(').map(|(_, r)| r.trim_end_matches(')')) else {
        return vec![];
    };
    inside
        .split(',')
        .filter_map(|p| register(p.trim()))
        .filter(|r| r != "ip")
        .collect()
}

/// A memory operand that names one fixed place: a stack slot (`-8(%rbp)`, no index) or
/// a static variable (`x_(%rip)`). Values carried through memory live there.
fn slot(op: &str) -> Option<String> {
    let regs = address_registers(op);
    let fixed = op.contains("(%rip)")
        || (regs.len() == 1 && (regs[0] == "bp" || regs[0] == "sp") && !op.contains(",%"));
    fixed.then(|| op.to_string())
}

/// The mnemonic without a VEX/EVEX `v` prefix (`vaddpd` → `addpd`), for the vector
/// and floating-point instructions that have one.
fn base_mnemonic(m: &str) -> &str {
    let stripped = m.strip_prefix('v').unwrap_or(m);
    if m.starts_with('v') && !m.starts_with("vfm") && !m.starts_with("vfn") {
        stripped
    } else {
        m
    }
}

/// The class of an instruction's own operation (its folded load apart), or `None` for
/// pure data movement (a load, a store or a register move gets only those).
fn operation_class(m: &str) -> Option<InstrClass> {
    let b = base_mnemonic(m);
    let c = if m.starts_with("vfm") || m.starts_with("vfn") {
        InstrClass::FpFma
    } else if b.starts_with("cvt") || b.starts_with("round") {
        InstrClass::FpConvert
    } else if b.starts_with("sqrt") {
        InstrClass::FpSqrt
    } else if b.starts_with("div") && fp_suffix(b) {
        InstrClass::FpDiv
    } else if b == "divq" || b == "idivq" {
        InstrClass::IntDiv64
    } else if b.starts_with("div") || b.starts_with("idiv") {
        InstrClass::IntDiv
    } else if b.starts_with("mul") && fp_suffix(b) {
        InstrClass::FpMul
    } else if b.starts_with("imul") || b.starts_with("mul") {
        InstrClass::IntMul
    } else if (b.starts_with("min") || b.starts_with("max")) && fp_suffix(b) {
        InstrClass::FpMinMax
    } else if ["add", "sub", "ucomi", "comi", "cmp", "hadd", "hsub"]
        .iter()
        .any(|p| b.starts_with(p))
        && fp_suffix(b)
    {
        InstrClass::FpAdd
    } else if b.starts_with('p') && is_vector_integer(b) || is_vector_logic(b) {
        InstrClass::VecInt
    } else if b.starts_with('p')
        || b.starts_with("unpck")
        || b.starts_with("shuf")
        || b.starts_with("blend")
        || b.starts_with("perm")
        || b.starts_with("broadcast")
        || b.starts_with("insert")
        || b.starts_with("extract")
        || b == "movhlps"
        || b == "movlhps"
        || [
            "align", "movddup", "movshdup", "movsldup", "compress", "expand",
        ]
        .iter()
        .any(|p| b.starts_with(p))
    {
        InstrClass::VecMove
    } else if is_mask_operation(m) {
        InstrClass::IntAlu
    } else if m.starts_with('j') {
        InstrClass::Branch
    } else if m.starts_with("call") {
        InstrClass::Call
    } else if b.starts_with("mov") || m.starts_with("lea") || m == "nop" || m.starts_with("nop") {
        // Moves of the AVX encodings (`vmovupd`, `vmovsd`) as the legacy ones.
        return None;
    } else if [
        "add", "sub", "inc", "dec", "neg", "not", "and", "or", "xor", "cmp", "test", "sal", "shl",
        "sar", "shr", "rol", "ror", "cmov", "set", "clt", "cqt", "cwt", "sbb", "adc", "bt", "bsf",
        "bsr", "tzcnt", "lzcnt", "popcnt", "xchg", "cdq", "cbw", "andn",
    ]
    .iter()
    .any(|p| m.starts_with(p))
    {
        InstrClass::IntAlu
    } else {
        InstrClass::Other
    };
    Some(c)
}

/// Whether `m` works on an AVX-512 mask register (`kmovb`, `kortestw`, `kxnorb`: the
/// masks of a loop's vector epilogue), a scalar integer operation on the core's ports.
fn is_mask_operation(m: &str) -> bool {
    [
        "kmov", "kand", "kor", "kxor", "kxnor", "knot", "kshift", "ktest", "kadd", "kunpck",
    ]
    .iter()
    .any(|p| m.starts_with(p))
}

/// Whether `b` ends in a floating-point suffix (scalar or packed, double or single).
fn fp_suffix(b: &str) -> bool {
    ["sd", "ss", "pd", "ps"].iter().any(|s| b.ends_with(s))
}

fn is_vector_integer(b: &str) -> bool {
    [
        "padd", "psub", "pmul", "pcmp", "pmax", "pmin", "psll", "psrl", "psra", "pabs", "pmadd",
    ]
    .iter()
    .any(|p| b.starts_with(p))
}

/// Whether `b` (a mnemonic without its `v` prefix) is bitwise logic on a vector
/// register (`andpd` for an `abs`, `xorpd` for a negation, `pand`): it runs on the
/// vector integer units, on as many ports as `paddd` (three an Intel Golden Cove
/// starts per cycle, where its interleaves start one), and is priced as `vec_int`.
fn is_vector_logic(b: &str) -> bool {
    let logic = |s: &str| ["and", "andn", "or", "xor"].contains(&s);
    b.strip_suffix("pd")
        .or_else(|| b.strip_suffix("ps"))
        .is_some_and(logic)
        || b.strip_prefix('p').is_some_and(logic)
        || [
            "pandd", "pandq", "pandnd", "pandnq", "pord", "porq", "pxord", "pxorq",
        ]
        .contains(&b)
}

/// The width of an instruction: a ymm or zmm register, or a packed xmm operation.
fn width(i: &Instr) -> Width {
    if i.operands.iter().any(|o| o.starts_with("%zmm")) {
        return Width::V512;
    }
    if i.operands.iter().any(|o| o.starts_with("%ymm")) {
        return Width::V256;
    }
    let b = base_mnemonic(&i.mnemonic);
    let packed = b.ends_with("pd")
        || b.ends_with("ps")
        || b.starts_with('p')
        || b.starts_with("movdq")
        || b.starts_with("unpck")
        || b.starts_with("shuf");
    if packed && i.operands.iter().any(|o| o.starts_with("%xmm")) {
        Width::V128
    } else {
        Width::Scalar
    }
}

/// Whether `m` loads into one half of a vector register, keeping the other
/// (`movhpd 8(%rax), %xmm0`, as gcc pairs two strided elements): the loaded half is
/// shuffled into the register, a second micro-operation on a shuffle pipe beside the
/// load's (Intel and AMD cores alike; Agner Fog's instruction tables).
fn is_merging_load(m: &str) -> bool {
    matches!(base_mnemonic(m), "movhpd" | "movlpd" | "movhps" | "movlps")
}

/// Whether `m` read from memory is a load alone that repeats its element across the
/// register (`vbroadcastsd (%rax), %ymm0`, `movddup`): one micro-operation on a load port
/// (Agner Fog's instruction tables), where a broadcast between registers is a shuffle.
fn is_broadcast_load(m: &str) -> bool {
    let b = base_mnemonic(m);
    b.starts_with("broadcast")
        || matches!(
            b,
            "pbroadcastd" | "pbroadcastq" | "movddup" | "movshdup" | "movsldup"
        )
}

/// The classes one instruction counts as: its folded load, its operation (a merging
/// load's shuffle, [`is_merging_load`]), its store.
fn classes(i: &Instr) -> Vec<ClassWidth> {
    let w = width(i);
    let m = i.mnemonic.as_str();
    let mut out = vec![];
    let n = i.operands.len();
    let dest_memory =
        n > 0 && is_memory(&i.operands[n - 1]) && !is_jump(m) && !m.starts_with("call");
    let reads_memory = i
        .operands
        .iter()
        .take(n.saturating_sub(1))
        .any(|o| is_memory(o))
        && !m.starts_with("lea");
    let op = operation_class(m);
    let (moves, rmw) = (
        op.is_none(),
        op.is_some() && !writes_only(m, n) && !is_compare(m),
    );
    if reads_memory || (dest_memory && (rmw || is_compare(m))) {
        // A load into a vector register takes the floating-point side's turns, scalar or
        // not (`load.v128` and wider: two a cycle on a Zen 5 against four integer loads).
        let into_vector = i
            .operands
            .iter()
            .any(|o| o.starts_with("%xmm") || o.starts_with("%ymm") || o.starts_with("%zmm"));
        let loaded = if into_vector && w == Width::Scalar {
            Width::V128
        } else {
            w
        };
        out.push(ClassWidth::new(InstrClass::Load, loaded));
    }
    match op {
        // The load port itself broadcasts an element it reads: no shuffle.
        Some(InstrClass::VecMove) if reads_memory && is_broadcast_load(m) => {}
        Some(c) => out.push(ClassWidth::new(c, w)),
        None if !dest_memory && !reads_memory && !m.starts_with("lea") && !m.starts_with("nop") => {
            // A move between registers.
            let class =
                if i.operands.iter().any(|o| {
                    o.starts_with("%xmm") || o.starts_with("%ymm") || o.starts_with("%zmm")
                }) {
                    InstrClass::VecMove
                } else {
                    InstrClass::IntAlu
                };
            out.push(ClassWidth::new(class, w));
        }
        None if m.starts_with("lea") => {
            out.push(ClassWidth::new(InstrClass::IntAlu, Width::Scalar))
        }
        None if reads_memory && !dest_memory && is_merging_load(m) => {
            out.push(ClassWidth::new(InstrClass::VecMove, Width::V128))
        }
        None => {}
    }
    if dest_memory && !is_compare(m) && (moves || rmw || m.starts_with("set")) {
        out.push(ClassWidth::new(InstrClass::Store, w));
    }
    out
}

/// The condition flags, as the dataflow names them: a value compares and integer
/// arithmetic write and conditional moves, `set` and add- or subtract-with-carry read
/// (a binary search's `comisd` then `cmova`: the loaded element's compare is on the
/// chain to the next bound). Conditional jumps do not wait for them: the core predicts.
const FLAGS: &str = "flags";

/// Whether `m` reads the condition flags as a value ([`FLAGS`]).
fn reads_flags(m: &str) -> bool {
    m.starts_with("cmov") || m.starts_with("set") || m.starts_with("adc") || m.starts_with("sbb")
}

/// Whether `m`, of operation class `op`, writes the condition flags besides its result
/// (integer arithmetic, logic and shifts; not moves, `lea`, `not`, `cmov` or `set`).
fn writes_flags(m: &str, op: Option<InstrClass>) -> bool {
    matches!(op, Some(InstrClass::IntAlu | InstrClass::IntMul))
        && [
            "add", "sub", "inc", "dec", "neg", "and", "or", "xor", "sal", "shl", "sar", "shr",
            "imul", "adc", "sbb", "bsf", "bsr", "popcnt", "lzcnt", "tzcnt",
        ]
        .iter()
        .any(|p| m.starts_with(p))
        && !matches!(m, "shlxq" | "shlxl" | "shrxq" | "shrxl" | "sarxq" | "sarxl")
}

/// Whether `m` only compares (writes flags, no operand).
fn is_compare(m: &str) -> bool {
    let b = base_mnemonic(m);
    m.starts_with("cmp") && !fp_suffix(b)
        || m.starts_with("test")
        || b.starts_with("ucomi")
        || b.starts_with("comi")
        || m.starts_with("bt")
        || is_jump(m)
}

/// Whether `m` with `n` operands writes its last operand without reading it.
fn writes_only(m: &str, n: usize) -> bool {
    let b = base_mnemonic(m);
    m.starts_with("mov")
        || b.starts_with("mov")
        || m.starts_with("lea")
        || b.starts_with("cvt")
        || b.starts_with("sqrt")
        || b.starts_with("round")
        || m.starts_with("set")
        || m.starts_with("pop")
        || b.starts_with("broadcast")
        || b.starts_with("pshuf")
        || m.starts_with("popcnt")
        || m.starts_with("lzcnt")
        || m.starts_with("tzcnt")
        || (n == 3 && m.starts_with("imul"))
        || (n == 3 && m.starts_with('v') && !m.starts_with("vfm") && !m.starts_with("vfn"))
}

/// What one instruction reads and writes, with the classes on the path from each read
/// location to its writes.
struct Flow {
    /// Locations read, each with the classes between it and the written value.
    reads: Vec<(Loc, Vec<ClassWidth>)>,
    /// Locations written.
    writes: Vec<Loc>,
}

fn flow(i: &Instr, places: &Places) -> Flow {
    flow_named(i, places, &HashMap::new())
}

/// [`flow`], the memory operands of `named` read and written as the values named there
/// (elements an inner loop walks: `walks`).
fn flow_named(i: &Instr, places: &Places, named: &HashMap<&str, String>) -> Flow {
    let m = i.mnemonic.as_str();
    let w = width(i);
    let n = i.operands.len();
    let mut reads = vec![];
    let mut writes = vec![];
    if is_jump(m) || m.starts_with("nop") || n == 0 && !matches!(m, "cltq" | "cqto" | "cltd") {
        return Flow { reads, writes };
    }
    if matches!(m, "cltq" | "cqto" | "cltd") {
        let a = Loc::Reg("a".into());
        let out = if m == "cltq" { "a" } else { "d" };
        return Flow {
            reads: vec![(a, vec![ClassWidth::new(InstrClass::IntAlu, Width::Scalar)])],
            writes: vec![Loc::Reg(out.into())],
        };
    }
    let op = operation_class(m);
    let op_path: Vec<ClassWidth> = match op {
        Some(c) => vec![ClassWidth::new(c, w)],
        // Moves between registers are renamed away on today's cores.
        None if m.starts_with("lea") => vec![ClassWidth::new(InstrClass::IntAlu, Width::Scalar)],
        None => vec![],
    };
    let zero_idiom = n >= 2
        && i.operands[0] == i.operands[n - 1]
        && [
            "xor", "pxor", "xorpd", "xorps", "vxorpd", "vxorps", "vpxor", "sub",
        ]
        .iter()
        .any(|p| m.starts_with(p));
    if zero_idiom {
        if let Some(r) = register(&i.operands[n - 1]) {
            writes.push(Loc::Reg(r));
        }
        return Flow { reads, writes };
    }
    let dest = &i.operands[n - 1];
    let dest_read = !writes_only(m, n) && !is_compare(m) || is_compare(m);
    let sources: Vec<&String> = if dest_read {
        i.operands.iter().collect()
    } else {
        i.operands[..n - 1].iter().collect()
    };
    for s in sources {
        if s.starts_with('$') {
            continue;
        }
        if let Some(r) = register(s) {
            reads.push((Loc::Reg(r), op_path.clone()));
        } else if is_memory(s) && !m.starts_with("lea") {
            let place = named.get(s.as_str()).cloned();
            let load = if let Some(sl) =
                place.or_else(|| places.place(s).or_else(|| places.carried_place(s)))
            {
                (Loc::Slot(sl), forward_class(i, places.mirrored(s)))
            } else {
                (Loc::Reg(String::new()), InstrClass::Load)
            };
            let mut path = vec![ClassWidth::new(load.1, w)];
            path.extend(op_path.iter().copied());
            if load.1.is_forwarding() {
                reads.push((load.0, path.clone()));
            }
            for a in address_registers(s) {
                let mut p = vec![ClassWidth::new(InstrClass::Load, w)];
                p.extend(op_path.iter().copied());
                reads.push((Loc::Reg(a), p));
            }
        }
        if is_memory(s) && m.starts_with("lea") {
            for a in address_registers(s) {
                reads.push((Loc::Reg(a), op_path.clone()));
            }
        }
    }
    if reads_flags(m) {
        reads.push((Loc::Reg(FLAGS.into()), op_path.clone()));
    }
    if is_compare(m) {
        writes.push(Loc::Reg(FLAGS.into()));
        return Flow { reads, writes };
    }
    if writes_flags(m, op) {
        writes.push(Loc::Reg(FLAGS.into()));
    }
    if let Some(r) = register(dest) {
        writes.push(Loc::Reg(r));
    } else if let Some(sl) = named
        .get(dest.as_str())
        .cloned()
        .or_else(|| places.place(dest).or_else(|| places.moving_place(dest)))
    {
        writes.push(Loc::Slot(sl));
    }
    if matches!(
        base_mnemonic(m),
        "idivq" | "idivl" | "divq" | "divl" | "idiv" | "div"
    ) {
        writes = vec![Loc::Reg("a".into()), Loc::Reg("d".into())];
        reads.push((Loc::Reg("a".into()), op_path.clone()));
        reads.push((Loc::Reg("d".into()), op_path.clone()));
    }
    reads.retain(|(l, _)| *l != Loc::Reg(String::new()));
    Flow { reads, writes }
}

/// The registers `body` writes.
fn registers_written(body: &[Instr]) -> HashSet<String> {
    let none = Places::default();
    body.iter()
        .flat_map(|i| registers(&flow(i, &none).writes).collect::<Vec<_>>())
        .collect()
}

/// The registers among `locs`.
fn registers(locs: &[Loc]) -> impl Iterator<Item = String> + '_ {
    locs.iter().filter_map(|l| match l {
        Loc::Reg(r) => Some(r.clone()),
        Loc::Slot(_) => None,
    })
}

/// The class of a load on a chain through memory: into a vector or floating-point
/// register ([`InstrClass::Forward`]), an integer one that sign- or zero-extends what
/// was stored ([`InstrClass::ForwardExt`]: `movslq 256(%rcx), %rax`, as gfortran -O2
/// reads a default integer it indexes with, which a core that renames memory does not
/// rename), an integer one at the stored size whose address the core cannot match to
/// the store's by its registers (`mirrored` false: [`InstrClass::ForwardReloaded`]), or
/// one it can ([`InstrClass::ForwardInt`]).
fn forward_class(i: &Instr, mirrored: bool) -> InstrClass {
    let vector = i
        .operands
        .iter()
        .any(|o| o.starts_with("%xmm") || o.starts_with("%ymm") || o.starts_with("%zmm"))
        || fp_suffix(base_mnemonic(&i.mnemonic));
    if vector {
        InstrClass::Forward
    } else if widens(&i.mnemonic) {
        InstrClass::ForwardExt
    } else if !mirrored {
        InstrClass::ForwardReloaded
    } else {
        InstrClass::ForwardInt
    }
}

/// Whether `m` loads with a sign or zero extension (`movslq`, `movzbl`, `movsx`, ...):
/// 2.0 to 2.3 ns a link on a Zen 4 where `movl` takes 0.3
/// (`measurements/zen4-2026-12-01/s61/renaming.txt`; a byte read back by `movb` is not
/// renamed either, 2.4 ns, but gcc reads bytes with `movzbl`).
fn widens(m: &str) -> bool {
    let extends = |rest: &str| {
        matches!(
            rest,
            "lq" | "bl" | "bq" | "bw" | "wl" | "wq" | "x" | "xd" | "xb" | "xw"
        )
    };
    m.strip_prefix("movs").is_some_and(extends) || m.strip_prefix("movz").is_some_and(extends)
}

/// The longest path of dependent instructions through one iteration of `body`, from
/// any value it starts from (carried or not) to any it makes, on generic latencies: the
/// classes on it. An out-of-order core overlaps it with the next iterations only as far
/// as its reorder window holds them.
fn span(body: &[Instr]) -> Vec<ClassCount> {
    let mut places = Places::new(body, &registers_written(body));
    let mut best: HashMap<Loc, (f64, Vec<ClassWidth>)> = HashMap::new();
    let mut longest: (f64, Vec<ClassWidth>) = (0.0, vec![]);
    for i in body {
        let f = flow(i, &places);
        places.after(i, registers(&f.writes));
        let mut reached: (f64, Vec<ClassWidth>) = (0.0, vec![]);
        for (loc, path) in &f.reads {
            let (lat, p) = best.get(loc).map_or((0.0, &[][..]), |(l, p)| (*l, &p[..]));
            let add: f64 = path.iter().map(|c| c.class.generic_latency_cycles()).sum();
            if lat + add > reached.0 {
                let mut q = p.to_vec();
                q.extend(path.iter().copied());
                reached = (lat + add, q);
            }
        }
        for w in &f.writes {
            best.insert(w.clone(), reached.clone());
        }
        if reached.0 > longest.0 {
            longest = reached;
        }
    }
    let mut counts: BTreeMap<ClassWidth, u32> = BTreeMap::new();
    for c in longest.1 {
        *counts.entry(c).or_default() += 1;
    }
    class_counts(&counts)
}

/// The loop-carried chains of `body`: for each location read before it is written and
/// written later, the longest path (on generic latencies) from its value at the start of
/// an iteration to its value at the end. The four longest, longest first.
fn chains(body: &[Instr]) -> Vec<Chain> {
    carried_chains(body).into_iter().map(|(_, c)| c).collect()
}

/// [`chains`] with the location that carries each.
fn carried_chains(body: &[Instr]) -> Vec<(Loc, Chain)> {
    let mut places = Places::new(body, &registers_written(body));
    // Each place as the assembly first names it, for the reader.
    let mut shown: HashMap<String, String> = HashMap::new();
    let flows: Vec<Flow> = body
        .iter()
        .map(|i| {
            for op in i.operands.iter().filter(|o| is_memory(o)) {
                let moving = places.moving_place(op);
                if let Some(key) = places.place(op).or(moving) {
                    shown.entry(key).or_insert_with(|| op.clone());
                }
            }
            let f = flow(i, &places);
            places.after(i, registers(&f.writes));
            f
        })
        .collect();
    let mut written: Vec<&Loc> = flows.iter().flat_map(|f| f.writes.iter()).collect();
    written.sort();
    written.dedup();
    let mut found: Vec<(f64, Loc, Chain)> = vec![];
    for start in written {
        // best[loc]: the longest path from `start`'s incoming value to loc's current value.
        let mut best: HashMap<&Loc, (f64, Vec<ClassWidth>)> = HashMap::new();
        best.insert(start, (0.0, vec![]));
        for f in &flows {
            let mut reached: Option<(f64, Vec<ClassWidth>)> = None;
            for (loc, path) in &f.reads {
                if let Some((lat, p)) = best.get(loc) {
                    let add: f64 = path.iter().map(|c| c.class.generic_latency_cycles()).sum();
                    if !reached.as_ref().is_some_and(|(l, _)| lat + add <= *l) {
                        let mut q = p.clone();
                        q.extend(path.iter().copied());
                        reached = Some((lat + add, q));
                    }
                }
            }
            for w in &f.writes {
                match &reached {
                    Some(r) => {
                        best.insert(w, r.clone());
                    }
                    None => {
                        best.remove(w);
                    }
                }
            }
        }
        if let Some((lat, path)) = best.get(start) {
            if *lat > 0.0 {
                let mut counts: BTreeMap<ClassWidth, u32> = BTreeMap::new();
                for c in path {
                    *counts.entry(*c).or_default() += 1;
                }
                let carried_by = match start {
                    Loc::Reg(r) => format!("%{r}"),
                    Loc::Slot(s) => shown.get(s).unwrap_or(s).clone(),
                };
                let classes: Vec<InstrClass> = path.iter().map(|c| c.class).collect();
                found.push((
                    *lat,
                    start.clone(),
                    Chain {
                        carried_by,
                        path: class_counts(&counts),
                        restarted_by: None,
                        crossings: augur_program_profile::compiled::bypass_crossings(&classes),
                    },
                ));
            }
        }
    }
    found.sort_by(|a, b| b.0.total_cmp(&a.0));
    found.into_iter().take(4).map(|(_, l, c)| (l, c)).collect()
}

/// How many source iterations one compiled iteration covers: the pointer or index the
/// loop's compare tests, stepped by a known number of bytes each iteration, over the
/// size of the elements it addresses; else the lanes of its widest packed arithmetic;
/// else one.
fn source_iterations(body: &[Instr]) -> (u32, String) {
    if let Some(n) = induction_step(body) {
        return n;
    }
    match lanes(body) {
        Some((n, bits, elem)) if n > 1 => {
            (n, format!("{n} lanes of {elem} bits ({bits}-bit vectors)"))
        }
        _ => (1, "1: scalar, no stepped pointer or index found".into()),
    }
}

/// The lanes of the widest packed arithmetic of `body`, with the vector and element
/// bits.
fn lanes(body: &[Instr]) -> Option<(u32, u32, u32)> {
    body.iter()
        .filter_map(|i| {
            let w = width(i);
            let c = operation_class(&i.mnemonic)?;
            let elem = element_bits(base_mnemonic(&i.mnemonic))?;
            (w != Width::Scalar && (c.is_floating() || is_integer_arithmetic(c, &i.mnemonic)))
                .then(|| (w.bits() / elem, w.bits(), elem))
        })
        .max()
}

/// Whether an instruction of class `c` is integer arithmetic on vector registers, not
/// the bitwise logic priced with it: a scalar loop's `abs` is a packed `andpd`, which
/// says nothing of its lanes or elements.
fn is_integer_arithmetic(c: InstrClass, mnemonic: &str) -> bool {
    c == InstrClass::VecInt && !is_vector_logic(base_mnemonic(mnemonic))
}

/// The element size in bits an instruction's suffix names.
fn element_bits(b: &str) -> Option<u32> {
    if b.ends_with("pd") || b.ends_with("sd") || b.ends_with('q') && b.starts_with('p') {
        Some(64)
    } else if b.ends_with("ps") || b.ends_with("ss") || b.ends_with('d') && b.starts_with('p') {
        Some(32)
    } else if b.ends_with('w') && b.starts_with('p') {
        Some(16)
    } else if b.ends_with('b') && b.starts_with('p') {
        Some(8)
    } else {
        None
    }
}

/// The element size in bytes of the loop's floating-point or vector-integer
/// arithmetic, the smallest when they differ.
fn arithmetic_element_bytes(body: &[Instr]) -> Option<u32> {
    body.iter()
        .filter(|i| {
            operation_class(&i.mnemonic).is_some_and(|c| {
                c.is_floating() && c != InstrClass::FpConvert
                    || is_integer_arithmetic(c, &i.mnemonic)
            })
        })
        .filter_map(|i| element_bits(base_mnemonic(&i.mnemonic)))
        .min()
        .map(|b| b / 8)
}

/// The size in bytes of the elements an instruction moves or computes on.
fn access_bytes(i: &Instr) -> Option<u32> {
    let b = base_mnemonic(&i.mnemonic);
    if let Some(bits) = element_bits(b) {
        return Some(bits / 8);
    }
    // Sign and zero extensions name the size they read in the middle (`movslq`: 4).
    if let Some(rest) = b.strip_prefix("movs").or_else(|| b.strip_prefix("movz")) {
        if rest.len() == 2 {
            match rest.as_bytes()[0] {
                b'b' => return Some(1),
                b'w' => return Some(2),
                b'l' => return Some(4),
                _ => {}
            }
        }
    }
    match b {
        "movq" => Some(8),
        "movl" | "movd" | "movss" => Some(4),
        "movw" => Some(2),
        "movb" => Some(1),
        _ if b.ends_with('q') => Some(8),
        _ if b.ends_with('l') => Some(4),
        _ => None,
    }
}

/// Source iterations from the inductions: each register the body steps by a constant
/// (`add $k`) and addresses memory with (as a base: k bytes; as an index scaled by s:
/// k·s bytes), over the size of the elements the loop works on; the smallest (a
/// pointer striding down a column of a transposed array steps many elements, the one
/// walking along the loop's own dimension as many as the loop advances).
fn induction_step(body: &[Instr]) -> Option<(u32, String)> {
    let mut best: Option<(u32, u32, u32, bool)> = None;
    let arithmetic = arithmetic_element_bytes(body);
    for (reg, step) in stepped_registers(body) {
        for i in body {
            let bytes_each = access_bytes(i).unwrap_or(8);
            for o in i.operands.iter().filter(|o| o.contains('(')) {
                let inside = o
                    .split_once('(')
                    .map(|(_, r)| r.trim_end_matches(')'))
                    .unwrap_or("");
                let parts: Vec<&str> = inside.split(',').map(str::trim).collect();
                let bytes = if register(parts[0]).as_deref() == Some(reg.as_str()) {
                    step
                } else if parts.len() >= 2 && register(parts[1]).as_deref() == Some(reg.as_str()) {
                    step * parts.get(2).and_then(|s| s.parse().ok()).unwrap_or(1)
                } else {
                    continue;
                };
                // Stores and copies of doubles often use the single-precision encodings
                // (`movups`, shorter): the arithmetic's elements say what the data moved
                // through vector registers are; a scalar instruction (`movsd`, `mulss`)
                // and an integer register's access say their own.
                let through_vector = i.operands.iter().any(|o| o.contains("mm"));
                let scalar = ["sd", "ss"]
                    .iter()
                    .any(|s| base_mnemonic(&i.mnemonic).ends_with(s));
                let elem = if through_vector && !scalar {
                    arithmetic.unwrap_or(bytes_each)
                } else {
                    bytes_each
                };
                if elem == 0 || bytes % elem != 0 || bytes / elem == 0 {
                    continue;
                }
                let k = bytes / elem;
                let smaller = match best {
                    None => true,
                    Some((b, ..)) => k < b,
                };
                if smaller {
                    let encoded = through_vector && !scalar && arithmetic.is_none();
                    best = Some((k, bytes, elem, encoded));
                }
            }
        }
    }
    let (k, bytes, elem, encoded) = best?;
    let by = if encoded { ENCODED_ELEMENTS } else { "" };
    Some((
        k,
        format!("{k}: the induction steps {bytes} bytes over {elem}-byte elements{by}"),
    ))
}

/// Said of a loop's element size when only its vector moves' encoding gives it (a copy
/// or a fill: `movups` moves doubles as well as singles); the source's arrays may say
/// otherwise (`augur_program::compiled`).
pub const ENCODED_ELEMENTS: &str = " as its vector moves are encoded";

/// The element size a compiled loop's `source_iterations_from` took from its vector
/// moves' encoding alone ([`ENCODED_ELEMENTS`]), `None` when its arithmetic or scalar
/// accesses sized the elements.
pub fn encoded_element_bytes(source_iterations_from: &str) -> Option<u32> {
    source_iterations_from
        .strip_suffix(ENCODED_ELEMENTS)?
        .rsplit_once("over ")?
        .1
        .strip_suffix("-byte elements")?
        .parse()
        .ok()
}

/// The registers the body only ever changes by adding or subtracting constants, with
/// the step's size (the largest: the arms of an IF each step the induction once): an
/// induction. A register also written otherwise (unoptimized code reloads an index from
/// its stack slot and offsets it, `subq $2, %rax`) holds a value computed afresh each
/// iteration, not a stepped one.
fn stepped_registers(body: &[Instr]) -> Vec<(String, u32)> {
    constant_steps(body)
        .into_iter()
        .map(|(r, ks)| {
            let largest = ks.iter().copied().max_by_key(|k| k.abs()).unwrap_or(0);
            (r, largest.unsigned_abs() as u32)
        })
        .filter(|(_, k)| *k != 0)
        .collect()
}

/// The registers the body only ever changes by adding or subtracting constants, with
/// what one pass through all of it adds: an inner loop's inductions, by trip.
fn register_steps(body: &[Instr]) -> HashMap<String, i64> {
    constant_steps(body)
        .into_iter()
        .map(|(r, ks)| (r, ks.iter().sum::<i64>()))
        .filter(|(_, k)| *k != 0)
        .collect()
}

/// The registers the body only ever changes by adding or subtracting constants, each
/// with the constants in order.
fn constant_steps(body: &[Instr]) -> Vec<(String, Vec<i64>)> {
    let mut steps: Vec<(String, Vec<i64>)> = vec![];
    let mut computed: Vec<String> = vec![];
    for i in body {
        let op = i.mnemonic.as_str();
        if is_jump(op) || is_compare(op) {
            continue;
        }
        // Writes of `%rax` and `%rdx` no operand names (`cltq`, `cqto`, a divide).
        let implicit = matches!(op, "cltq" | "cqto" | "cltd" | "cwtl")
            || (i.operands.len() == 1
                && ["div", "idiv", "mul", "imul"]
                    .iter()
                    .any(|p| op.starts_with(p)));
        if implicit {
            computed.extend(["a".to_string(), "d".to_string()]);
            continue;
        }
        let Some(dest) = i.operands.last().and_then(|d| register(d)) else {
            continue;
        };
        let constant = if op.starts_with("inc") || op.starts_with("dec") {
            Some(1)
        } else {
            (op.starts_with("add") || op.starts_with("sub"))
                .then(|| i.operands.first()?.strip_prefix('$')?.parse::<i64>().ok())
                .flatten()
                .filter(|_| i.operands.len() == 2)
        };
        match constant {
            Some(k) => {
                let down = op.starts_with("sub") || op.starts_with("dec");
                let k = if down { -k } else { k };
                match steps.iter_mut().find(|(r, _)| *r == dest) {
                    Some((_, ks)) => ks.push(k),
                    None => steps.push((dest, vec![k])),
                }
            }
            None => computed.push(dest),
        }
    }
    steps.retain(|(r, _)| !computed.contains(r));
    steps
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEADER: &str = "\t.file\t\"k.f90\"\n\t.text\n";

    fn loops(body: &str) -> Vec<CompiledLoop> {
        let asm = format!("{HEADER}\t.file 1 \"k.f90\"\nk_:\n{body}");
        compiled_loops(&asm, &["k.f90".to_string()])
    }

    #[test]
    fn a_straight_line_body_leaves_the_frame_to_the_call() {
        // `sqr(x) = x*x` as gfortran -O0 writes it: the frame and the argument's spill are
        // the call's; the two reloads of the argument's address, the two loads of `x`, the
        // multiply, the result's store and reload and the moves are the body's.
        let body = "\tpushq\t%rbp\n\t.loc 1 3 0\n\tmovq\t%rsp, %rbp\n\tmovq\t%rdi, -24(%rbp)\n\
            \tmovq\t-24(%rbp), %rax\n\tmovsd\t(%rax), %xmm1\n\tmovq\t-24(%rbp), %rax\n\
            \tmovsd\t(%rax), %xmm0\n\tmulsd\t%xmm1, %xmm0\n\tmovsd\t%xmm0, -8(%rbp)\n\
            \tmovsd\t-8(%rbp), %xmm0\n\tmovq\t%xmm0, %rax\n\tmovq\t%rax, %xmm0\n\
            \tpopq\t%rbp\n\tret\n";
        let asm = format!("{HEADER}\t.file 1 \"k.f90\"\nsqr_:\n{body}");
        let bodies = compiled_bodies(&asm, &["k.f90".to_string()]);
        assert_eq!(bodies.len(), 1, "{bodies:#?}");
        let b = &bodies[0];
        assert_eq!((b.function.as_str(), b.line, b.issued), ("sqr_", 3, 9));
        assert!(b.chains.is_empty() && b.span.is_empty());
        // A loop, a jump or a call makes no body.
        let jumps = format!("{HEADER}\t.file 1 \"k.f90\"\nf_:\n\t.loc 1 3 0\n\ttestl\t%edi, %edi\n\tje\t.L2\n\taddl\t$1, %edi\n.L2:\n\tret\n");
        assert!(compiled_bodies(&jumps, &["k.f90".to_string()]).is_empty());
    }

    #[test]
    fn a_divide_of_64_bit_operands_has_its_own_class() {
        // gfortran's `mod(i, j)` of default integers and of `integer(8)` ones.
        for m in ["idivl", "divl", "idivw", "idiv"] {
            assert_eq!(operation_class(m), Some(InstrClass::IntDiv), "{m}");
        }
        for m in ["idivq", "divq"] {
            assert_eq!(operation_class(m), Some(InstrClass::IntDiv64), "{m}");
        }
        assert_eq!(operation_class("divsd"), Some(InstrClass::FpDiv));
    }

    #[test]
    fn vector_logic_is_integer_vector_work_and_interleaves_are_shuffles() {
        for m in [
            "andpd", "vandnpd", "xorps", "orpd", "pand", "vpxor", "vpandq",
        ] {
            assert_eq!(operation_class(m), Some(InstrClass::VecInt), "{m}");
        }
        for m in ["unpcklpd", "vunpckhpd", "shufpd", "movlhps", "blendpd"] {
            assert_eq!(operation_class(m), Some(InstrClass::VecMove), "{m}");
        }
        assert_eq!(operation_class("paddd"), Some(InstrClass::VecInt));
    }

    /// One instruction as the assembly reader makes it.
    fn instr(m: &str, ops: &[&str]) -> Instr {
        Instr {
            mnemonic: m.to_string(),
            operands: ops.iter().map(|o| o.to_string()).collect(),
            at: None,
        }
    }

    #[test]
    fn a_load_into_half_a_register_is_a_load_and_a_shuffle() {
        let v128 = |c| ClassWidth::new(c, Width::V128);
        // gcc pairs two strided elements: `movsd` loads the low half, `movhpd` the high.
        assert_eq!(
            classes(&instr("movhpd", &["-4480(%rdx)", "%xmm0"])),
            vec![v128(InstrClass::Load), v128(InstrClass::VecMove)]
        );
        assert_eq!(
            classes(&instr("vmovlps", &["8(%rax)", "%xmm1", "%xmm1"])),
            vec![v128(InstrClass::Load), v128(InstrClass::VecMove)]
        );
        // The high half stored, and a whole register loaded: no shuffle.
        assert_eq!(
            classes(&instr("movhpd", &["%xmm0", "-4480(%rax)"])),
            vec![v128(InstrClass::Store)]
        );
        assert_eq!(
            classes(&instr("movupd", &["(%rax)", "%xmm4"])),
            vec![v128(InstrClass::Load)]
        );
    }

    #[test]
    fn the_avx_encodings_count_as_the_legacy_ones() {
        let v256 = |c| ClassWidth::new(c, Width::V256);
        // `-march=native`: moves with a `v`, AVX-512 shuffles and masks; none unclassified.
        assert_eq!(
            classes(&instr("vmovupd", &["(%rsi,%rax)", "%ymm0"])),
            vec![v256(InstrClass::Load)]
        );
        assert_eq!(
            classes(&instr("vmovupd", &["%ymm0", "(%rdx,%rax)"])),
            vec![v256(InstrClass::Store)]
        );
        assert_eq!(
            classes(&instr("vmovsd", &["8(%rax)", "%xmm0"])),
            vec![ClassWidth::new(InstrClass::Load, Width::V128)]
        );
        assert_eq!(operation_class("valignq"), Some(InstrClass::VecMove));
        assert_eq!(operation_class("vpermt2pd"), Some(InstrClass::VecMove));
        assert_eq!(operation_class("vmovddup"), Some(InstrClass::VecMove));
        assert_eq!(operation_class("kmovb"), Some(InstrClass::IntAlu));
        assert_eq!(operation_class("kortestb"), Some(InstrClass::IntAlu));
        // A broadcast from memory is the load port's; between registers, a shuffle.
        assert_eq!(
            classes(&instr("vbroadcastsd", &["(%rax)", "%ymm0"])),
            vec![v256(InstrClass::Load)]
        );
        assert_eq!(
            classes(&instr("vbroadcastsd", &["%xmm1", "%ymm0"])),
            vec![v256(InstrClass::VecMove)]
        );
    }

    #[test]
    fn the_loops_of_the_arms_an_indirect_jump_reaches_are_found() {
        // A computed GOTO (or SELECT CASE) compiled to a jump table: `jmp *%rax` names
        // no target, so the arms are reached from no instruction; each holds a loop (line
        // 7 and line 9), and both jump on to the code they share.
        let l = loops(
            "\t.loc 1 5 7\n\tmovslq\t(%rdx), %rax\n\tjmp\t*.L4(,%rax,8)\n\
             .L2:\n\tmovl\t$1, %ecx\n\
             .L5:\n\t.loc 1 7 10\n\taddsd\t(%rdi,%rcx,8), %xmm0\n\taddq\t$1, %rcx\n\
             \t.loc 1 6 12\n\tcmpq\t%rcx, %rsi\n\tjne\t.L5\n\tjmp\t.L9\n\
             .L3:\n\tmovl\t$1, %ecx\n\
             .L6:\n\t.loc 1 9 10\n\tmulsd\t(%rdi,%rcx,8), %xmm0\n\taddq\t$1, %rcx\n\
             \t.loc 1 8 12\n\tcmpq\t%rcx, %rsi\n\tjne\t.L6\n\
             .L9:\n\t.loc 1 10 7\n\tmovsd\t%xmm0, (%r8)\n\tret\n",
        );
        let mut lines: Vec<u32> = l.iter().map(|c| c.line).collect();
        lines.sort_unstable();
        assert_eq!(lines, vec![6, 8], "{l:?}");
    }

    /// A dispatch loop (`do; op = code(pc); select case (op) ...`) compiled to a jump
    /// table in `.rodata` after `jmp *%rax`: arm `.L6` pops the stack pointer kept in
    /// `256(%rcx)` (read back with a sign extension), arm `.L7` pushes, `.L8` leaves.
    const DISPATCH: &str = "\t.loc 1 30 5\n\tleaq\t.L5(%rip), %r9\n\
         .L4:\n\t.loc 1 31 7\n\tmovslq\t%edx, %rdi\n\tmovl\t-4(%r11,%rdi,4), %esi\n\
         \taddl\t$1, %edx\n\t.loc 1 33 7\n\tmovslq\t(%r9,%rsi,4), %rax\n\taddq\t%r9, %rax\n\
         \tjmp\t*%rax\n\t.section\t.rodata\n\t.align 4\n.L5:\n\t.long\t.L6-.L5\n\
         \t.long\t.L7-.L5\n\t.long\t.L6-.L5\n\t.long\t.L8-.L5\n\t.text\n\
         .L6:\n\t.loc 1 35 9\n\tmovslq\t256(%rcx), %rax\n\tsubl\t$1, %eax\n\
         \tmovl\t%eax, 256(%rcx)\n\tjmp\t.L4\n\
         .L7:\n\t.loc 1 37 9\n\tmovslq\t256(%rcx), %rax\n\taddl\t$1, %eax\n\
         \tmovl\t%eax, 256(%rcx)\n\tjmp\t.L4\n\
         .L8:\n\t.loc 1 39 9\n\tret\n";

    #[test]
    fn a_loop_that_dispatches_through_a_jump_table_is_read_with_its_arms() {
        let l = loops(DISPATCH);
        assert_eq!(l.len(), 1, "{l:#?}");
        let header = &l[0].blocks[0];
        let BlockEnd::Table { line, arms } = &header.end else {
            panic!("the header jumps through the table: {:#?}", l[0].blocks);
        };
        assert_eq!(*line, 33);
        // Two arms inside (the table names `.L6` twice), one that leaves the loop.
        assert_eq!(arms.len(), 3, "{arms:?}");
        assert_eq!(arms.iter().filter(|a| a.is_none()).count(), 1, "{arms:?}");
        assert_eq!(l[0].inner_branches, 1);
        assert_eq!(l[0].paths.len(), 2, "{:#?}", l[0].paths);
    }

    #[test]
    fn a_slot_read_back_wider_than_it_was_stored_is_forwarded_not_renamed() {
        let l = loops(DISPATCH);
        let chain = l[0]
            .chains
            .iter()
            .find(|c| c.carried_by == "256(%rcx)")
            .unwrap_or_else(|| panic!("{:#?}", l[0].chains));
        assert_eq!(
            chain.path[0].class.class,
            InstrClass::ForwardExt,
            "{chain:?}"
        );
        // Read back at the size it was stored: renamed, an integer forwarding.
        let same = DISPATCH.replace("movslq\t256(%rcx), %rax", "movl\t256(%rcx), %eax");
        let l = loops(&same);
        let chain = l[0].chains.iter().find(|c| c.carried_by == "256(%rcx)");
        assert_eq!(
            chain.map(|c| c.path[0].class.class),
            Some(InstrClass::ForwardInt),
            "{:#?}",
            l[0].chains
        );
    }

    #[test]
    fn an_integer_array_steps_in_its_own_elements() {
        // `in1 = ielel(k, iel)` of `ielel(4, n)` (4-byte integers) beside double
        // arithmetic on `du(k, iel)` of `du(4, n)`: both pointers step one column, four
        // elements.
        let l = loops(
            ".L3:\n\t.loc 1 7 10\n\tmovl\t(%rsi), %eax\n\tmovsd\t(%rdi), %xmm0\n\
             \tmulsd\t%xmm0, %xmm0\n\tmovsd\t%xmm0, (%rdi)\n\taddq\t$16, %rsi\n\taddq\t$32, %rdi\n\
             \t.loc 1 6 12\n\tcmpq\t%rdi, %rcx\n\tjne\t.L3\n",
        );
        assert_eq!(l.len(), 1);
        assert_eq!(l[0].source_iterations, 4, "{}", l[0].source_iterations_from);
        // The integer load stays an integer load; the double's goes to a vector register.
        let loads: Vec<Width> = l[0]
            .instructions
            .iter()
            .filter(|x| x.class.class == InstrClass::Load)
            .map(|x| x.class.width)
            .collect();
        assert_eq!(
            loads,
            vec![Width::Scalar, Width::V128],
            "{:?}",
            l[0].instructions
        );
    }

    #[test]
    fn a_scalar_double_store_steps_in_doubles_beside_single_divides() {
        // `mag(m) = ... 1/sqrt(real(d2)) ...`: `sqrtss` and `divss` work on floats, the
        // store of the double result steps 8 bytes: one element, not two floats.
        let l = loops(
            ".L20:\n\t.loc 1 9 5\n\tmovsd\t(%r8), %xmm0\n\taddq\t$24, %r8\n\taddq\t$8, %r9\n\
             \tcvtsd2ss\t%xmm0, %xmm7\n\tsqrtss\t%xmm7, %xmm7\n\tdivss\t%xmm7, %xmm1\n\
             \tcvtss2sd\t%xmm1, %xmm1\n\tmovsd\t%xmm1, -8(%r9)\n\
             \t.loc 1 8 5\n\tcmpq\t%r8, %rcx\n\tjne\t.L20\n",
        );
        assert_eq!(l.len(), 1);
        assert_eq!(l[0].source_iterations, 1, "{}", l[0].source_iterations_from);
    }

    #[test]
    fn each_arm_stepping_the_induction_is_one_step() {
        // `maxval(abs(u - w))` at -O2: the first-element arm and the steady arm each add 8
        // to the offset; an iteration runs one of them.
        let l = loops(
            ".L70:\n\t.loc 1 9 5\n\tcomisd\t%xmm1, %xmm0\n\tjb\t.L33\n\tmovapd\t%xmm0, %xmm1\n\
             \tmovl\t$1, %edx\n.L33:\n\taddq\t$8, %rax\n\tcmpq\t$4000, %rax\n\tje\t.L69\n\
             .L36:\n\tmovsd\t-4000(%rcx,%rax), %xmm0\n\tsubsd\t-4000(%rsi,%rax), %xmm0\n\
             \tandpd\t%xmm2, %xmm0\n\ttestl\t%edx, %edx\n\tje\t.L70\n\tmaxsd\t%xmm1, %xmm0\n\
             \taddq\t$8, %rax\n\tmovapd\t%xmm0, %xmm1\n\tcmpq\t$4000, %rax\n\tjne\t.L36\n.L69:\n\tret\n",
        );
        assert!(!l.is_empty());
        assert!(
            l.iter().all(|l| l.source_iterations == 1),
            "{:?}",
            l.iter()
                .map(|l| &l.source_iterations_from)
                .collect::<Vec<_>>()
        );
        // `maxsd` is a maximum, not an add.
        let classes: Vec<InstrClass> = l[0].instructions.iter().map(|c| c.class.class).collect();
        assert!(classes.contains(&InstrClass::FpMinMax), "{classes:?}");
    }

    #[test]
    fn an_index_recomputed_from_its_slot_is_no_induction() {
        // `a1 = x(2,j) - xi` at -O0: the index is reloaded from its slot and offset
        // (`subq $2`), the counter stepped in memory; one source iteration each.
        let l = loops(
            ".L3:\n\t.loc 1 7 10\n\tmovl\t-20(%rbp), %eax\n\tcltq\n\tsubq\t$2, %rax\n\
             \tmovsd\tx_(,%rax,8), %xmm0\n\tsubsd\t-32(%rbp), %xmm0\n\tmovsd\t%xmm0, -40(%rbp)\n\
             \t.loc 1 6 12\n\taddl\t$1, -20(%rbp)\n\tcmpl\t$99, -20(%rbp)\n\tjle\t.L3\n",
        );
        assert_eq!(l.len(), 1);
        assert_eq!(l[0].source_iterations, 1, "{}", l[0].source_iterations_from);
        // Integer: the reloaded index, its extension and offset, the counter's add (its
        // flags) and compare; vector: the loaded and subtracted element, of which the
        // subtraction waits for its operands; stores: the result and the counter.
        let f = l[0].in_flight.expect("counted");
        assert_eq!(
            (f.integer, f.vector, f.stores, f.waiting),
            (5, 2, 2, 1),
            "{f:?}"
        );
    }

    #[test]
    fn an_accumulation_at_o2_carries_its_add() {
        // `c(i,j) = c(i,j) + a(i,k)*b(k,j)` as gfortran -O2 emits it: the element is
        // loaded and stored each iteration (no carried register but the pointers).
        let l = loops(
            ".L3:\n\t.loc 1 7 39\n\tmovsd\t(%rdx), %xmm0\n\t.loc 1 6 12\n\taddq\t$8, %rax\n\taddq\t$8, %rdx\n\
             \t.loc 1 7 39\n\tmulsd\t%xmm1, %xmm0\n\taddsd\t-8(%rax), %xmm0\n\tmovsd\t%xmm0, -8(%rax)\n\
             \t.loc 1 6 12\n\tcmpq\t%rcx, %rax\n\tjne\t.L3\n",
        );
        assert_eq!(l.len(), 1);
        let l = &l[0];
        assert_eq!(l.line, 6);
        assert_eq!(l.issued, 8);
        assert_eq!(l.source_iterations, 1, "{}", l.source_iterations_from);
        let n = |c: InstrClass| -> u32 {
            l.instructions
                .iter()
                .filter(|x| x.class.class == c)
                .map(|x| x.count)
                .sum()
        };
        assert_eq!((n(InstrClass::Load), n(InstrClass::Store)), (2, 1));
        assert_eq!((n(InstrClass::FpMul), n(InstrClass::FpAdd)), (1, 1));
        // Both loads go into vector registers (`movsd`, `addsd` from memory): they take
        // the floating-point side's turns, recorded at 128 bits.
        assert!(
            l.instructions
                .iter()
                .filter(|x| x.class.class == InstrClass::Load)
                .all(|x| x.class.width == Width::V128),
            "{:?}",
            l.instructions
        );
        // One iteration's longest path: the load, the multiply, the add (and its folded
        // load), the store.
        let on_span: Vec<InstrClass> = l.span.iter().map(|c| c.class.class).collect();
        for c in [InstrClass::Load, InstrClass::FpMul, InstrClass::FpAdd] {
            assert!(on_span.contains(&c), "{:?}", l.span);
        }
        // The pointer increments are the only register chains.
        assert!(
            l.chains
                .iter()
                .all(|c| c.path.iter().all(|p| p.class.class == InstrClass::IntAlu)),
            "{:?}",
            l.chains
        );
    }

    #[test]
    fn a_dot_product_carries_its_add_chain() {
        let l = loops(
            ".L5:\n\t.loc 1 16 10\n\tmovsd\t(%rdi,%rax,8), %xmm1\n\tmulsd\t(%rsi,%rax,8), %xmm1\n\
             \taddq\t$1, %rax\n\taddsd\t%xmm1, %xmm0\n\tcmpq\t%rax, %rdx\n\tjne\t.L5\n",
        );
        let l = &l[0];
        assert_eq!(l.source_iterations, 1, "{}", l.source_iterations_from);
        let top = &l.chains[0];
        assert_eq!(top.carried_by, "%v0");
        assert_eq!(
            top.path,
            vec![ClassCount {
                class: ClassWidth::new(InstrClass::FpAdd, Width::Scalar),
                count: 1
            }]
        );
    }

    #[test]
    fn a_chain_counts_its_crossings_between_the_adders_and_the_multipliers() {
        // p = p*x + c(i) at -O2: the multiply feeds the add, the add the next multiply;
        // the dot product's chain (adds only) crosses nothing.
        let l = loops(
            ".L5:\n\t.loc 1 16 10\n\tmulsd\t%xmm2, %xmm0\n\taddsd\t(%rsi,%rax,8), %xmm0\n\
             \taddq\t$1, %rax\n\tcmpq\t%rax, %rdx\n\tjne\t.L5\n",
        );
        assert_eq!(l[0].chains[0].carried_by, "%v0");
        assert_eq!(l[0].chains[0].crossings, 2, "{:?}", l[0].chains[0]);
        let dot = loops(
            ".L5:\n\t.loc 1 16 10\n\tmovsd\t(%rdi,%rax,8), %xmm1\n\tmulsd\t(%rsi,%rax,8), %xmm1\n\
             \taddq\t$1, %rax\n\taddsd\t%xmm1, %xmm0\n\tcmpq\t%rax, %rdx\n\tjne\t.L5\n",
        );
        assert_eq!(dot[0].chains[0].crossings, 0);
    }

    #[test]
    fn a_binary_search_carries_its_compare_through_the_flags() {
        // `if (a(mid) > x) then; hi = mid; else; lo = mid; end if` at -O2: the element
        // loaded at the midpoint is compared and the compare's flags pick the next
        // bound (`cmova`), so load, compare and move are all on the chain.
        let l = loops(
            ".L5:\n\t.loc 1 7 10\n\tleal\t(%rdx,%rcx), %eax\n\tsarl\t%eax\n\tmovslq\t%eax, %r8\n\
             \tmovsd\t(%rdi,%r8,8), %xmm1\n\tcomisd\t%xmm0, %xmm1\n\tcmova\t%eax, %ecx\n\
             \tcmovbe\t%eax, %edx\n\tmovl\t%ecx, %eax\n\tsubl\t%edx, %eax\n\
             \tcmpl\t$1, %eax\n\tjg\t.L5\n",
        );
        let top = &l[0].chains[0];
        let classes: Vec<InstrClass> = top.path.iter().map(|c| c.class.class).collect();
        assert!(
            classes.contains(&InstrClass::Load) && classes.contains(&InstrClass::FpAdd),
            "{top:?}"
        );
    }

    #[test]
    fn unoptimized_code_carries_chains_through_stack_slots() {
        // `s = s + a(i)` at -O0: s and i live on the stack.
        let l = loops(
            ".L3:\n\t.loc 1 5 10\n\tmovl\t-4(%rbp), %eax\n\tcmpl\t%eax, -20(%rbp)\n\tjl\t.L2\n\
             \t.loc 1 6 10\n\tmovl\t-4(%rbp), %eax\n\tcltq\n\tmovsd\t(%rbx,%rax,8), %xmm0\n\
             \tmovsd\t-16(%rbp), %xmm1\n\taddsd\t%xmm1, %xmm0\n\tmovsd\t%xmm0, -16(%rbp)\n\
             \t.loc 1 5 10\n\taddl\t$1, -4(%rbp)\n\tjmp\t.L3\n.L2:\n\tret\n",
        );
        let l = &l[0];
        assert_eq!(l.line, 5);
        let top = &l.chains[0];
        assert_eq!(top.carried_by, "-16(%rbp)");
        let classes: Vec<InstrClass> = top.path.iter().map(|c| c.class.class).collect();
        assert_eq!(classes, vec![InstrClass::Forward, InstrClass::FpAdd]);
        assert_eq!(l.inner_branches, 0, "the exit test jumps out of the loop");
    }

    #[test]
    fn unoptimized_code_carries_an_element_it_reloads_by_the_same_address() {
        // `b(i,j) = b(i,j) + w(k) * a(k,j)` in a loop over k, gfortran 12 -O0: b(i,j)'s
        // address is recomputed from i, j (slots the loop never writes) each time, so
        // its store feeds the next iteration's load.
        // b(i,j)'s address, into %r8 (base) and %r11 (index), as computed each time.
        let b_address = "\tmovl\t-40(%rbp), %r8d\n\tmovslq\t%r8d, %r8\n\timulq\t%rax, %r8\n\
             \tleaq\t(%rcx,%r8), %r11\n\tmovl\t-36(%rbp), %r8d\n\tmovslq\t%r8d, %r8\n\
             \taddq\t%r8, %r11\n";
        let l = loops(&format!(
            ".L5:\n\t.loc 1 6 12\n\tcmpl\t%r9d, -44(%rbp)\n\tsetg\t%r8b\n\tmovzbl\t%r8b, %r8d\n\
             \ttestl\t%r8d, %r8d\n\tjne\t.L10\n\t.loc 1 7 39\n{b_address}\
             \tmovq\t-104(%rbp), %r8\n\tmovsd\t(%r8,%r11,8), %xmm1\n\
             \tmovl\t-44(%rbp), %r8d\n\tmovslq\t%r8d, %r8\n\tleaq\t-1(%r8), %r11\n\
             \tmovq\t-112(%rbp), %r8\n\tmovsd\t(%r8,%r11,8), %xmm2\n\
             \tmovl\t-40(%rbp), %r8d\n\tmovslq\t%r8d, %r8\n\timulq\t%rdx, %r8\n\
             \tleaq\t(%r10,%r8), %r11\n\tmovl\t-44(%rbp), %r8d\n\tmovslq\t%r8d, %r8\n\
             \taddq\t%r8, %r11\n\tmovq\t-120(%rbp), %r8\n\tmovsd\t(%r8,%r11,8), %xmm0\n\
             \tmulsd\t%xmm2, %xmm0\n{b_address}\taddsd\t%xmm1, %xmm0\n\
             \tmovq\t-104(%rbp), %r8\n\tmovsd\t%xmm0, (%r8,%r11,8)\n\
             \t.loc 1 6 12\n\taddl\t$1, -44(%rbp)\n\tjmp\t.L5\n\t.loc 1 10 1\n\tret\n",
        ));
        let top = &l[0].chains[0];
        let classes: Vec<InstrClass> = top.path.iter().map(|c| c.class.class).collect();
        assert_eq!(
            classes,
            vec![InstrClass::Forward, InstrClass::FpAdd],
            "{top:?}"
        );
        assert_eq!(top.carried_by, "(%r8,%r11,8)");
    }

    #[test]
    fn unoptimized_code_carries_a_recurrence_through_the_next_element() {
        // A back substitution at gfortran 12 -O0: `j = iu - i + il`, then
        // `cc(j) = (cc(j) - aa(j) * cc(j+1)) / dd(j)`; the counter i is stepped in its
        // slot, so the next iteration's cc(j+1) is this one's cc(j): the chain runs
        // through the store, the multiply, the subtract and the divide.
        let index = |slot: &str| {
            format!("\tmovl\t-84(%rbp), %eax\n\tcltq\n\tleaq\t-1(%rax), %rcx\n\tmovq\t{slot}(%rbp), %rax\n")
        };
        let l = loops(&format!(
            ".L5:\n\t.loc 1 10 15\n\tcmpl\t%edx, -36(%rbp)\n\tsetg\t%al\n\tmovzbl\t%al, %eax\n\
             \ttestl\t%eax, %eax\n\tjne\t.L7\n\t.loc 1 11 72\n\tmovq\t-112(%rbp), %rax\n\
             \tmovl\t(%rax), %eax\n\tsubl\t-36(%rbp), %eax\n\tmovl\t%eax, %ecx\n\
             \tmovq\t-104(%rbp), %rax\n\tmovl\t(%rax), %eax\n\taddl\t%ecx, %eax\n\
             \tmovl\t%eax, -84(%rbp)\n\t.loc 1 12 72\n{}\tmovss\t(%rax,%rcx,4), %xmm0\n\
             {}\tmovss\t(%rax,%rcx,4), %xmm2\n\
             \tmovl\t-84(%rbp), %eax\n\taddl\t$1, %eax\n\tcltq\n\tleaq\t-1(%rax), %rcx\n\
             \tmovq\t-136(%rbp), %rax\n\tmovss\t(%rax,%rcx,4), %xmm1\n\
             \tmulss\t%xmm2, %xmm1\n\tsubss\t%xmm1, %xmm0\n{}\tmovss\t(%rax,%rcx,4), %xmm1\n\
             \tdivss\t%xmm1, %xmm0\n{}\tmovss\t%xmm0, (%rax,%rcx,4)\n\
             \t.loc 1 10 15\n\taddl\t$1, -36(%rbp)\n\tjmp\t.L5\n.L7:\n\tret\n",
            index("-136"),
            index("-120"),
            index("-144"),
            index("-136"),
        ));
        let top = &l[0].chains[0];
        let classes: Vec<InstrClass> = top.path.iter().map(|c| c.class.class).collect();
        for c in [
            InstrClass::Forward,
            InstrClass::FpMul,
            InstrClass::FpAdd,
            InstrClass::FpDiv,
        ] {
            assert!(classes.contains(&c), "{top:?}");
        }
        assert_eq!(top.carried_by, "(%rax,%rcx,4)");
    }

    #[test]
    fn a_forward_sweep_at_o0_carries_nothing_through_the_element_it_reads_first() {
        // `cc(i) = cc(i) + w(i)` with i stepped in its slot: cc(i) is loaded before it
        // is stored, and the next iteration loads cc(i+1): no chain through memory.
        let l = loops(
            ".L3:\n\t.loc 1 5 10\n\tmovl\t-4(%rbp), %eax\n\tcmpl\t%eax, -20(%rbp)\n\tjl\t.L2\n\
             \t.loc 1 6 10\n\tmovl\t-4(%rbp), %eax\n\tcltq\n\tmovsd\t(%rbx,%rax,8), %xmm0\n\
             \tmovsd\t(%r12,%rax,8), %xmm1\n\taddsd\t%xmm1, %xmm0\n\tmovsd\t%xmm0, (%rbx,%rax,8)\n\
             \t.loc 1 5 10\n\taddl\t$1, -4(%rbp)\n\tjmp\t.L3\n.L2:\n\tret\n",
        );
        assert!(
            l[0].chains
                .iter()
                .all(|c| c.path.iter().all(|p| p.class.class != InstrClass::FpAdd)),
            "{:?}",
            l[0].chains
        );
    }

    #[test]
    fn a_call_may_move_what_a_register_it_does_not_keep_points_at() {
        // %rdx is written by no instruction of the loop, but the call may change it: its
        // target is no fixed place, so no chain runs through it.
        let l = loops(
            ".L2:\n\t.loc 1 4 10\n\tmovsd\t(%rdx), %xmm0\n\taddsd\t%xmm1, %xmm0\n\
             \tmovsd\t%xmm0, (%rdx)\n\tcall\tfoo_\n\taddl\t$1, %ebx\n\tcmpl\t%ebx, %r12d\n\
             \tjne\t.L2\n\tret\n",
        );
        assert!(
            l[0].chains.iter().all(|c| c.carried_by != "(%rdx)"),
            "{:?}",
            l[0].chains
        );
    }

    #[test]
    fn a_negation_by_a_packed_xorps_leaves_a_scalar_loop_scalar() {
        // `b(i) = -a(i)` on doubles: gfortran flips the sign with `xorps`, whose
        // 32-bit lanes say nothing of the 8-byte elements the pointer steps over.
        let l = loops(
            ".L4:\n\t.loc 1 3 9\n\tmovsd\t(%rsi,%rax), %xmm0\n\txorps\t%xmm1, %xmm0\n\
             \tmovsd\t%xmm0, (%rdx,%rax)\n\taddq\t$8, %rax\n\tcmpq\t%rax, %rcx\n\tjne\t.L4\n",
        );
        let l = &l[0];
        assert_eq!(l.source_iterations, 1, "{}", l.source_iterations_from);
        assert_eq!(l.lanes, 1);
        assert!(l
            .instructions
            .iter()
            .any(|c| c.class == ClassWidth::new(InstrClass::VecInt, Width::V128)));
    }

    #[test]
    fn a_vectorized_loop_covers_its_lanes() {
        let l = loops(
            ".L4:\n\t.loc 1 3 9\n\tvmovupd\t(%rsi,%rax), %ymm0\n\tvaddpd\t(%rdi,%rax), %ymm0, %ymm0\n\
             \tvmovupd\t%ymm0, (%rdx,%rax)\n\taddq\t$32, %rax\n\tcmpq\t%rax, %rcx\n\tjne\t.L4\n",
        );
        let l = &l[0];
        assert_eq!(l.source_iterations, 4, "{}", l.source_iterations_from);
        assert!(l
            .instructions
            .iter()
            .any(|c| c.class == ClassWidth::new(InstrClass::FpAdd, Width::V256)));
    }

    #[test]
    fn only_innermost_loops_are_read() {
        let l = loops(
            ".L1:\n\t.loc 1 2 1\n\taddq\t$1, %rcx\n.L2:\n\t.loc 1 3 1\n\taddq\t$1, %rax\n\tcmpq\t%rax, %rdx\n\tjne\t.L2\n\
             \t.loc 1 2 1\n\tcmpq\t%rcx, %rdi\n\tjne\t.L1\n",
        );
        assert_eq!(l.len(), 1);
        assert_eq!(l[0].line, 3);
    }

    #[test]
    fn a_loop_with_an_arm_out_of_line_is_one_loop_with_its_blocks() {
        // gfortran -O2 on `xnew(i) = b(i); if (1 < i) ...; if (i < n) ...`: the common
        // path jumps to a block after the function's other code and back to the top.
        let l = loops(
            ".L16:\n\t.loc 1 82 21\n\tmovsd\t(%r12,%rax,8), %xmm0\n\t.loc 1 83 10\n\tcmpl\t$1, %eax\n\tje\t.L12\n\
             \t.loc 1 84 34\n\taddsd\t(%r9,%rax,8), %xmm0\n\tmovsd\t%xmm0, (%r8,%rax,8)\n\t.loc 1 86 10\n\
             \tcmpq\t$50000, %rax\n\tjne\t.L33\n\t.loc 1 89 33\n\tmulsd\t%xmm1, %xmm0\n\
             .L15:\n\t.loc 1 98 37\n\taddsd\t%xmm0, %xmm2\n\taddq\t$8, %rax\n\tcmpq\t$400, %rax\n\tjne\t.L15\n\tret\n\
             .L12:\n\t.loc 1 87 34\n\taddsd\t8(%rip), %xmm0\n\tmovl\t$2, %eax\n\tjmp\t.L16\n\
             .L33:\n\t.loc 1 87 34\n\taddsd\t(%r15,%rax,8), %xmm0\n\t.loc 1 89 33\n\tmulsd\t%xmm1, %xmm0\n\
             \tmovsd\t%xmm0, (%r8,%rax,8)\n\t.loc 1 81 10\n\taddq\t$1, %rax\n\tjmp\t.L16\n",
        );
        assert_eq!(l.len(), 2, "{l:#?}");
        let outer = l
            .iter()
            .find(|x| x.line == 81)
            .expect("the loop of line 81");
        assert_eq!(outer.issued, 7 + 3 + 5, "{outer:#?}");
        assert_eq!(
            outer.inner_branches, 1,
            "the test of line 86 also leaves the loop"
        );
        let b = &outer.blocks;
        assert_eq!(b.len(), 4, "{b:#?}");
        assert_eq!(b[0].first_line, 82);
        assert_eq!(
            b[0].end,
            BlockEnd::Branches {
                line: 83,
                taken: Some(2),
                not_taken: Some(1),
                until_set: None
            }
        );
        assert_eq!(
            b[1].end,
            BlockEnd::Branches {
                line: 86,
                taken: Some(3),
                not_taken: None,
                until_set: None
            }
        );
        assert_eq!(b[3].end, BlockEnd::Goes { to: Some(0) });
        let inner = l
            .iter()
            .find(|x| x.line == 98)
            .expect("the loop of line 98");
        assert!(inner.blocks.is_empty());
    }

    #[test]
    fn a_loop_entered_at_its_body_is_named_by_its_jump_back() {
        // gcc -O2 on a tridiagonal sweep: the loop is entered by a jump into its body
        // (.L14); the block that falls back into it holds moves with another line's mark.
        let l = loops(
            "\t.loc 1 66 18\n\tmovq\t$0, 8(%rsp)\n\tjmp\t.L14\n.L21:\n\t.loc 1 66 18\n\tmovapd\t%xmm9, %xmm4\n\
             .L14:\n\t.loc 1 71 28\n\tmovsd\t(%r14,%rax), %xmm9\n\tsubsd\t%xmm4, %xmm9\n\
             \t.loc 1 74 99\n\tmovsd\t%xmm9, (%rdi,%rax)\n\taddq\t$8, %rax\n\tcmpq\t$3192, %rax\n\tjne\t.L21\n\tret\n",
        );
        assert_eq!(l.len(), 1, "{l:#?}");
        assert_eq!(l[0].line, 74);
        assert_eq!(l[0].lines, vec![66, 71, 74]);
    }
}
