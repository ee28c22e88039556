//! Probes: the locality instrumentation of a unit. The run records the runtime
//! shapes of arrays whose declarations do not give them (shape records), the
//! integer values each outermost DO nest depends on at its every entry (env
//! probes), and samples the addresses of references whose subscripts are not
//! affine in the loop indices (address probes).

use super::facts::{
    do_statement, has_word, is_else_if, is_guarded, loop_may_exit_early, UnitInfo, WhereRanges,
};
use super::rewriting::Edit;
use super::Plan;
use augur_ir::{BlockKind, LoopKind, Stmt, StmtKind, TextPos, Unit};
use std::collections::{HashMap, HashSet};

/// The values a loop nest's addresses depend on, recorded at every entry of its
/// outermost DO loop: the integer scalars its loop bounds, subscripts and array extents
/// read and it does not assign (`n`, `lda`, `st` of a subroutine called with different
/// sizes). The run keeps each distinct tuple of values with its count, so that the
/// locality analysis enumerates the nest with the values it really ran with instead of
/// mean trip counts.
#[derive(Debug, Clone, PartialEq)]
pub struct EnvProbe {
    /// Unit index in [`Program::units`](augur_ir::Program::units).
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
    /// Unit index in [`Program::units`](augur_ir::Program::units).
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
    /// Unit index in [`Program::units`](augur_ir::Program::units).
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

/// Name of the shape array in the instrumented program.
pub const SHAPE_ARRAY: &str = "augur_s";
/// Line size the address sampler hashes (bytes), as the locality analysis.
pub const PROBE_LINE_BYTES: u64 = 64;
/// Samples the run's address sampler keeps at most; when more qualify, its
/// spatial sampling rate halves (SHARDS with a fixed size). A sample is a
/// probe id, an address and the number of times the same probe touched the
/// same line right after it (distance 0, kept as a count): 16 bytes.
pub const PROBE_MAX_SAMPLES: usize = 1 << 22;

/// Most references probed in one program.
const MAX_PROBES: usize = 4096;

/// An array of at most this many bytes is not probed: whatever its subscripts, its
/// references touch at most 16 lines, which stay in the first level while its loop runs
/// and are priced there by the operation costs. Known before the run when its extents
/// are constants (no probe); for an explicit-shape array of variable extents (an
/// automatic array) the probe is called only when `size(x)` is larger. A dummy
/// argument's declared extents say nothing of what it reaches (F77's `A(1)` and
/// `A(LDA,1)` stand for any size), nor do a COMMON block's in one unit: theirs are always
/// probed. (bg_fannkuchredux's flip loop, `line(t+1-ii)` on a 12-byte automatic array: two
/// probe calls an iteration made its counting run 3.5 times its plain run.)
const SMALL_ARRAY_BYTES: i64 = 1024;

/// The condition under which a probe of array `name` of `u` is called: `Some("")` for
/// always, `None` for never (a small array of constant extents), else a Fortran test of
/// its size against [`SMALL_ARRAY_BYTES`] (an explicit-shape array of variable extents).
/// Only a local or a module's numeric or logical array qualifies (a dummy's or COMMON
/// member's declaration does not bound what it reaches).
fn probe_guard(u: &augur_ir::Unit, name: &str) -> Option<String> {
    let Some(sym) = u.symbol(name).filter(|s| {
        matches!(
            s.storage,
            augur_ir::Storage::Local | augur_ir::Storage::Module(_)
        ) && !s.dims.is_empty()
            && !matches!(
                s.ty.base,
                augur_ir::BaseType::Character | augur_ir::BaseType::Derived
            )
    }) else {
        return Some(String::new());
    };
    let elements = sym.dims.iter().try_fold(1i64, |n, d| {
        d.extent.filter(|&e| e > 0).map(|e| n.saturating_mul(e))
    });
    let explicit = || {
        sym.dims
            .iter()
            .all(|d| d.upper.as_deref().is_some_and(|x| x.trim() != "*"))
    };
    match elements {
        Some(n) if n.saturating_mul(i64::from(sym.ty.kind.max(1))) <= SMALL_ARRAY_BYTES => None,
        None if explicit() => Some(format!(
            "if (size({name}, kind=8) * storage_size({name}) > {bits}_8) ",
            bits = SMALL_ARRAY_BYTES * 8
        )),
        _ => Some(String::new()),
    }
}

/// What a declaration says about an array name, from the source text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Attr {
    Allocatable,
    Pointer,
}

/// Names declared ALLOCATABLE or POINTER anywhere in the texts (a name
/// declared both ways is left out).
pub(crate) fn declared_attributes(texts: &[Option<&str>]) -> HashMap<String, Option<Attr>> {
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

/// The locality instrumentation of one unit: shape records of arrays whose
/// declaration does not give their shape, the values its DO nests depend on, and
/// address probes of the references that are not affine inside loops.
pub(crate) fn plan_locality(
    p: &mut Plan,
    ui: usize,
    u: &Unit,
    stoppers: &HashSet<String>,
    text: &str,
    attrs: &HashMap<String, Option<Attr>>,
) {
    let info = UnitInfo::new(u);
    let wheres = WhereRanges::of(u, text);
    let mut new_edits: Vec<Edit> = vec![];
    let mut shapes = ShapeRecorder::new(ui, u, text, attrs);
    for (line, names) in shape_record_points(&info, &wheres, stoppers) {
        let text = shapes.record(p, &names);
        if !text.is_empty() {
            new_edits.push(Edit::After {
                line,
                text,
                order: 10,
            });
        }
    }
    let mut probes = UnitProbes {
        p,
        ui,
        info: &info,
        wheres: &wheres,
        new_edits,
    };
    probes.env_probes();
    probes.address_probes();
    let new_edits = probes.new_edits;
    p.edits.entry(u.source).or_default().extend(new_edits);
}

/// The probes of one unit being planned, and the edits made for its locality so far.
struct UnitProbes<'a, 'u> {
    p: &'a mut Plan,
    /// Unit index in [`Program::units`](augur_ir::Program::units).
    ui: usize,
    info: &'a UnitInfo<'u>,
    wheres: &'a WhereRanges,
    new_edits: Vec<Edit>,
}

/// The shape records of one unit: the slots given to its arrays whose declaration
/// does not give their shape, and the statements that fill them.
struct ShapeRecorder<'a> {
    /// Unit index in [`Program::units`](augur_ir::Program::units).
    ui: usize,
    u: &'a Unit,
    /// The unit's specification text (from its header to its first executable
    /// statement), in lower case.
    spec: Vec<String>,
    /// ALLOCATABLE and POINTER declarations of the whole program.
    attrs: &'a HashMap<String, Option<Attr>>,
    /// First slot and rank of each array met so far; `None` when its shape cannot be
    /// recorded.
    slot_of: HashMap<String, Option<(usize, usize)>>,
}

impl<'a> ShapeRecorder<'a> {
    fn new(
        ui: usize,
        u: &'a Unit,
        text: &str,
        attrs: &'a HashMap<String, Option<Attr>>,
    ) -> ShapeRecorder<'a> {
        let lines: Vec<&str> = text.lines().collect();
        let spec_end = u
            .stmts
            .iter()
            .find(|s| !matches!(s.kind, StmtKind::NonExecutable))
            .map_or(u.start_text.line as usize + 1, |s| s.text.line as usize);
        let spec: Vec<String> = lines
            .get(u.start_text.line as usize..spec_end.min(lines.len()))
            .unwrap_or(&[])
            .iter()
            .map(|l| l.to_ascii_lowercase())
            .collect();
        ShapeRecorder {
            ui,
            u,
            spec,
            attrs,
            slot_of: HashMap::new(),
        }
    }

    /// The guard of a shape record (`allocated`, `associated` or none), or None when
    /// it cannot be recorded safely.
    fn guard_of(&self, name: &str) -> Option<Option<&'static str>> {
        let sym = self.u.symbol(name)?;
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
        let local_decl: Vec<&String> = self.spec.iter().filter(|l| has_word(l, name)).collect();
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
            _ => Some(local_attr.or(self.attrs.get(name).copied().flatten())?),
        };
        Some(match attr {
            Some(Attr::Allocatable) => Some("allocated"),
            Some(Attr::Pointer) => Some("associated"),
            None => None,
        })
    }

    /// New slots for array `name` in the plan, when its shape can be recorded.
    fn new_slots(&self, p: &mut Plan, name: &str) -> Option<(usize, usize)> {
        self.guard_of(name)?;
        let rank = self.u.symbol(name)?.dims.len();
        let first = p.shape_slots;
        p.shape_slots += 2 * rank;
        p.shapes.push(ShapeSlots {
            unit: self.ui,
            array: name.to_string(),
            rank,
            first,
        });
        Some((first, rank))
    }

    /// The statements recording the shapes of the arrays `names` (those that can be
    /// recorded), one a line.
    fn record(&mut self, p: &mut Plan, names: &[String]) -> String {
        let mut out = vec![];
        let mut seen = HashSet::new();
        for n in names {
            if !seen.insert(n.clone()) {
                continue;
            }
            let entry = match self.slot_of.get(n) {
                Some(entry) => *entry,
                None => {
                    let entry = self.new_slots(p, n);
                    self.slot_of.insert(n.clone(), entry);
                    entry
                }
            };
            let Some((first, rank)) = entry else {
                continue;
            };
            let guard = self.guard_of(n).flatten();
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
    }
}

/// Where shapes are recorded: (line after which to record, arrays referenced). After
/// every whole-array statement, in a loop or outside, and after the outermost DO
/// loops that can take a statement after their END DO.
fn shape_record_points(
    info: &UnitInfo<'_>,
    wheres: &WhereRanges,
    stoppers: &HashSet<String>,
) -> Vec<(u32, Vec<String>)> {
    let u = info.unit;
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
        if wheres.covers(st) {
            continue;
        }
        let mut names = vec![];
        for e in stmt_exprs(st) {
            array_names(e, &mut names);
        }
        // After a logical IF's whole statement: its action may be on a continuation line.
        let end = match st.kind {
            StmtKind::LogicalIf { .. } => u
                .stmts
                .get(si as usize + 1)
                .map_or(st.text.end_line, |a| a.text.end_line.max(st.text.end_line)),
            _ => st.text.end_line,
        };
        wanted.push((end, names));
    }
    // Shapes after the outermost DO loops that reference such arrays.
    let mut stack: Vec<usize> = info.outermost_loops();
    while let Some(li) = stack.pop() {
        let l = &u.loops[li];
        if matches!(l.kind, LoopKind::ArrayElements) {
            continue;
        }
        let early = loop_may_exit_early(info, li, stoppers);
        let do_stmt = do_statement(u, li);
        let placeable = !early
            && l.end_text != TextPos::default()
            && do_stmt.is_some_and(|d| !wheres.covers(d));
        if !placeable {
            stack.extend(info.child_loops(li));
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
    wanted
}

/// Owner block of every statement: the first non-element block holding it.
fn statement_owners(u: &Unit) -> Vec<Option<usize>> {
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
    owner
}

impl UnitProbes<'_, '_> {
    /// Env probes: the values of the scalars each outermost counted DO nest depends on,
    /// recorded at its every entry.
    fn env_probes(&mut self) {
        let (ui, info, wheres) = (self.ui, self.info, self.wheres);
        let (p, new_edits) = (&mut *self.p, &mut self.new_edits);
        let u = info.unit;
        let mut roots: Vec<usize> = info.outermost_loops();
        roots.reverse();
        while let Some(li) = roots.pop() {
            let l = &u.loops[li];
            let do_stmt = do_statement(u, li);
            let Some(ds) = do_stmt.filter(|d| l.kind == LoopKind::Counted && !wheres.covers(d))
            else {
                roots.extend(info.child_loops(li));
                continue;
            };
            if p.env_probes.len() >= MAX_PROBES {
                break;
            }
            let vars = nest_env_vars(u, info, li);
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
                    "call augur_env(int({id}, 4), int({}, 4), [ &\n{} ])",
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
    }

    /// Address probes of the references that are not affine, in loops: one
    /// `augur_probe` call per reference before its statement.
    fn address_probes(&mut self) {
        let (ui, info, wheres) = (self.ui, self.info, self.wheres);
        let (p, new_edits) = (&mut *self.p, &mut self.new_edits);
        let u = info.unit;
        if u.symbol("loc").is_some() {
            // The probes take addresses with the LOC intrinsic, which a variable named
            // `loc` hides (CloverLeaf's hydro has one): such a unit's references stay
            // unsampled.
            return;
        }
        let owner = statement_owners(u);
        let defs = augur_locality::extract::Definitions::of(u);
        // The scalars each outermost loop assigns from the program's data, once a loop.
        let mut from_data_of: HashMap<usize, HashSet<String>> = HashMap::new();
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
                || wheres.covers(st)
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
            let from_data = from_data_of.entry(chain[0]).or_insert_with(|| {
                augur_locality::extract::data_scalars_inside(u, augur_ir::LoopId(chain[0] as u32))
            });
            let known = (&defs, &*from_data);
            let text_out = probe_references(p, ui, info, known, (si, st), &chain, &exprs);
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
    }
}

/// The probes of the references of `exprs` (of statement `st`, index `si`, inside the
/// loops `chain`, outermost first) that are not affine: added to the plan, and their
/// `augur_probe` calls returned. A scalar assigned in the loops is no reason when the
/// extraction substitutes its one definition (`defs`); `from_data`: the scalars the
/// outermost loop assigns from the program's data
/// ([`augur_locality::extract::data_scalars_inside`]).
fn probe_references(
    p: &mut Plan,
    ui: usize,
    info: &UnitInfo<'_>,
    (defs, from_data): (&augur_locality::extract::Definitions, &HashSet<String>),
    (si, st): (usize, &Stmt),
    chain: &[usize],
    exprs: &[&augur_ir::Expr],
) -> Vec<String> {
    let u = info.unit;
    let indices: Vec<String> = chain
        .iter()
        .filter_map(|&l| u.loops[l].var.as_ref().map(|v| v.to_lowercase()))
        .collect();
    // The loops that can make one nest with the statement's: those after the last loop
    // the extraction cannot enumerate (a DO WHILE; GOTO loops count as their enclosing
    // loop's), GOTO loops left out, as the extraction's stack of loops.
    let enumerable = |l: usize| matches!(u.loops[l].kind, LoopKind::Counted | LoopKind::Goto);
    let from = chain
        .iter()
        .rposition(|&l| !enumerable(l))
        .map_or(0, |k| k + 1);
    let stack: Vec<u32> = chain[from..]
        .iter()
        .filter(|&&l| u.loops[l].kind != LoopKind::Goto)
        .map(|&l| l as u32)
        .collect();
    let mut changing = assigned_scalars(info, chain[0]);
    changing.retain(|name| defs.reaching(u, name, si, &stack).is_none());
    let unknown_step = unknown_step_indices(u, chain, &changing, from_data);
    let mut refs = vec![];
    for e in exprs {
        element_refs(e, &mut refs);
    }
    let mut text_out = vec![];
    for r in refs {
        let augur_ir::ExprKind::Elem(v, subs) = &r.kind else {
            continue;
        };
        let Some(guard) = probe_guard(u, &v.name) else {
            continue;
        };
        let reason = subs.iter().find_map(|s| match s {
            augur_ir::Subscript::Index(x) => not_affine(x, &indices, &changing).or_else(|| {
                let mut read = vec![];
                scalar_names(x, &mut read);
                read.iter().find(|n| unknown_step.contains(n)).map(|n| {
                    format!("subscript: the loop over `{n}` starts or steps by values that move inside the nest")
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
        text_out.push(format!(
            "{guard}call augur_probe(int({id}, 4), int(loc({r}), 8))"
        ));
    }
    text_out
}

/// The scalar variables assigned inside loop `outer`.
fn assigned_scalars(info: &UnitInfo<'_>, outer: usize) -> HashSet<String> {
    let u = info.unit;
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
    changing
}

/// Indices of the loops of `chain` whose step changes inside the nest (`DO J = I*I,
/// N, I` in a GOTO loop over `I`) or whose start the data sets (`DO K = ROWPTR(I),
/// ROWPTR(I+1)-1`, [`augur_locality::extract::start_reads_data`]; `from_data`: the
/// scalars the nest assigns from its data): the extraction knows their trip counts,
/// not their addresses.
fn unknown_step_indices(
    u: &Unit,
    chain: &[usize],
    changing: &HashSet<String>,
    from_data: &HashSet<String>,
) -> Vec<String> {
    chain
        .iter()
        .filter_map(|&l| {
            let var = u.loops[l].var.as_ref()?.to_lowercase();
            let StmtKind::Do { exprs: bounds, .. } = &do_statement(u, l)?.kind else {
                return None;
            };
            let mut read = vec![];
            if let Some(step) = bounds.get(2) {
                scalar_names(step, &mut read);
            }
            let moving_start = bounds.first().is_some_and(|start| {
                augur_locality::extract::start_reads_data(start, &|n| from_data.contains(n))
            });
            (moving_start || read.iter().any(|n| changing.contains(n))).then_some(var)
        })
        .collect()
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
    let recordable = |n: &String| {
        !changed.contains(n)
            && u.symbol(n).is_some_and(|s| {
                s.dims.is_empty()
                    && !s.procedure
                    && s.ty.base == augur_ir::BaseType::Integer
                    && !matches!(s.storage, augur_ir::Storage::Parameter)
            })
    };
    let fed = definition_inputs(u, &read);
    let mut vars: Vec<String> = read.into_iter().filter(recordable).collect();
    vars.sort();
    vars.dedup();
    let mut more: Vec<String> = fed
        .into_iter()
        .filter(recordable)
        .filter(|n| !vars.contains(n))
        .collect();
    more.sort();
    more.dedup();
    vars.extend(more);
    vars.truncate(ENV_MAX_VARS);
    vars
}

/// The scalars read by the right-hand sides of the integer scalars' assignments that
/// give the names `read` their values, through as many such assignments as the
/// extraction substitutes (`jc = j * mj2` makes `mj2` an input of `c(jc + k)`;
/// [`augur_locality::extract::Definitions`]).
fn definition_inputs(u: &Unit, read: &[String]) -> Vec<String> {
    let mut wanted: HashSet<String> = read.iter().cloned().collect();
    let mut inputs = vec![];
    for _ in 0..augur_locality::extract::MAX_CHAIN {
        let mut next = vec![];
        for st in &u.stmts {
            let StmtKind::Assign { lhs, rhs } = &st.kind else {
                continue;
            };
            let augur_ir::ExprKind::Var(v) = &lhs.kind else {
                continue;
            };
            if wanted.contains(&v.name) && lhs.ty.base == augur_ir::BaseType::Integer {
                augur_ir::chain::scalars_read(rhs, &mut next);
            }
        }
        let fresh: Vec<String> = next
            .into_iter()
            .map(str::to_string)
            .filter(|n| wanted.insert(n.clone()))
            .collect();
        if fresh.is_empty() {
            break;
        }
        inputs.extend(fresh);
    }
    inputs
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
