//! Affine loop nests from augur's program model.
//!
//! [`extract_unit`] walks a [`Unit`]'s loops and statements and builds one
//! [`Nest`] per outermost counted DO loop whose loops all have bounds that
//! are affine in the indices of the loops around them, once symbolic names
//! are given values:
//!
//! * named constants (PARAMETER) take their declared value;
//! * other names take the value in [`ExtractOptions::values`] (for example
//!   the problem size the user runs with);
//! * a local integer scalar that one assignment defines, before the use in
//!   the body of a loop of the nest and from the indices of the loops around
//!   it (`lag = (l - 1) * 97`), stands for that affine expression
//!   ([`Definitions`], a compiler's induction-variable substitution);
//! * a loop whose bounds still cannot be evaluated, but whose mean trip
//!   count is known ([`ExtractOptions::trips`], from the program profile's
//!   `LoopProfile::mean_trips`), becomes `DO i = lo, lo + (trips−1)·step`
//!   with its start (or 1) and step (or 1); such loops are listed in
//!   [`ExtractedNest::approximate_loops`], since a triangular loop replaced
//!   by its mean trip count keeps the number of iterations but not the exact
//!   addresses.
//!
//! Inside a nest, every array element `X(s1, ..., sr)` read or written by an
//! assignment, an IF condition or an I/O list becomes a [`Ref`] in source
//! order: the loads of the right-hand side from left to right (inner
//! subscripts first), then the loads in the left-hand side's subscripts,
//! then the store. Scalars are assumed to live in registers, as in
//! Saavedra's optimized-code convention, and generate no access. An element
//! or section passed to a CALL is read once per call (and written when the
//! procedure assigns its dummy) as the elements the dummy covers
//! ([`ExtractOptions::callees`]: `lhs(1,1,aa,i)` passed to `a(5,5)` is
//! `lhs(:,:,aa,i)`), up to [`PASSED_SECTION_BYTES`]: the procedure's own nests
//! place their dummies at the same addresses on every call, so only the
//! caller knows which section each call brings. References that cannot be
//! made affine (indirect subscripts `X(IDX(I))`, arrays of unknown leading
//! extent, whole arrays passed to a CALL, non-linear subscripts) are left
//! out of the nest and listed in [`ExtractedNest::non_affine`] with the
//! reason; the run samples the addresses of the indirect ones.
//!
//! Statements under an IF inside the nest are treated as always executed
//! (the nest is an upper bound on their accesses). Arrays are laid out one
//! after another in the order of the unit's symbol table (alphabetical), each aligned to
//! [`ExtractOptions::align`] bytes: the real addresses are the compiler's
//! and linker's choice, so conflict misses that depend on the relative
//! placement of arrays are only indicative.

use crate::nest::{Affine, ArrayDecl, Loop, Nest, Node, Ref};
use augur_ir::{
    BaseType, BinOp, CallTarget, Expr, ExprKind, LoopId, LoopKind, Stmt, StmtKind, Storage,
    Subscript, Symbol, UnOp, Unit, VarRef,
};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

/// What the extraction may assume.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ExtractOptions {
    /// Values of symbolic names (lower case) used in bounds, dimensions and
    /// subscripts.
    pub values: HashMap<String, i64>,
    /// Mean trip count per loop id of the unit, used for loops whose bounds
    /// cannot be evaluated.
    pub trips: HashMap<u32, f64>,
    /// Alignment of array base addresses in bytes (a power of two).
    pub align: u64,
    /// Shapes of arrays whose declaration does not give them (allocatable,
    /// pointer and assumed-shape arrays), as recorded by the instrumented
    /// run: per array name (lower case), `(lower bound, extent)` of each
    /// dimension.
    #[serde(default)]
    pub shapes: HashMap<String, Vec<(i64, i64)>>,
    /// Per loop id: the loop runs on one pass of control in this many (an IF guards it;
    /// [`crate::nest::Loop::every`]); absent: every pass.
    #[serde(default)]
    pub every: HashMap<u32, u64>,
    /// What the procedures the unit calls do with their dummy arguments: per name as
    /// called (lower case), one [`DummyUse`] per argument position. An element or a
    /// section passed to a procedure absent here (one the program does not hold) is left
    /// out of the nest.
    #[serde(default)]
    pub callees: HashMap<String, Vec<DummyUse>>,
}

/// What a procedure does with one of its dummy arguments, as a CALL's actual argument
/// meets it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DummyUse {
    /// Whether the dummy is an array: an element passed to it starts the sequence of
    /// elements the dummy covers (sequence association).
    pub array: bool,
    /// Elements the dummy covers: 1 for a scalar, the declared size of an array of
    /// constant extents; `None` for an array whose size the call decides (adjustable,
    /// assumed size or assumed shape).
    pub elements: Option<i64>,
    /// Whether the procedure assigns it (directly or by passing it on).
    pub written: bool,
}

/// The largest section of an array a nest takes as read (and written) by one CALL:
/// the smallest first-level data cache of the machines augur characterizes (32 KiB).
/// A procedure's own nests see the lines of a section at most this large as hits
/// after the first touch, since their analysis places its dummies at the same
/// addresses on every call: only the caller's nest knows which section each call
/// brings and from where. A larger section is left to the procedure's nests, whose
/// capacity misses already move it.
pub const PASSED_SECTION_BYTES: u64 = 32 * 1024;

impl Default for ExtractOptions {
    fn default() -> Self {
        ExtractOptions {
            values: HashMap::new(),
            trips: HashMap::new(),
            align: 4096,
            shapes: HashMap::new(),
            every: HashMap::new(),
            callees: HashMap::new(),
        }
    }
}

/// A reference left out of a nest.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct NonAffine {
    /// Source line of the statement.
    pub line: u32,
    /// Array name.
    pub array: String,
    /// Why it is not affine.
    pub reason: String,
}

/// One extracted nest.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ExtractedNest {
    /// Unit name.
    pub unit: String,
    /// Loop id of the outermost loop.
    pub root: u32,
    /// Line of its DO statement.
    pub line: u32,
    /// The nest; the array ids of its accesses index `nest.arrays`.
    pub nest: Nest,
    /// Loops whose bounds came from a mean trip count.
    pub approximate_loops: Vec<u32>,
    /// References left out.
    pub non_affine: Vec<NonAffine>,
    /// True when the nest holds whole-array statements or array sections,
    /// turned into implicit loops (the root itself may be such a statement).
    #[serde(default)]
    pub array_syntax: bool,
}

/// A loop that could not be part of an affine nest.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SkippedLoop {
    /// Loop id.
    pub id: u32,
    /// Line of its DO statement.
    pub line: u32,
    /// Why.
    pub reason: String,
}

/// The nests of one unit and the loops that did not make one.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Extraction {
    /// Affine nests, outermost loop first in source order.
    pub nests: Vec<ExtractedNest>,
    /// Loops (roots of would-be nests) that were skipped, with the reason.
    pub skipped: Vec<SkippedLoop>,
}

/// Fills the body of implicit loops: `(cx, implicit index depths, loop
/// variables with the implicit ones, nodes before the loops, loop body)`.
type BodyOf<'f, 'a> =
    dyn FnMut(&mut Cx<'a>, &[usize], &[String], &mut Vec<Node>, &mut Vec<Node>) + 'f;

struct Cx<'a> {
    unit: &'a Unit,
    opts: &'a ExtractOptions,
    /// What the extraction reads of the unit, whatever the values.
    facts: &'a UnitFacts,
    /// Arrays referenced, by name, and their id.
    arrays: Vec<(String, ArrayDecl)>,
    non_affine: Vec<NonAffine>,
    approximate: Vec<u32>,
    /// Whether the nest being built holds implicit loops.
    implicit: bool,
    /// Arrays whose last extent is a placeholder (assumed size).
    guessed_last: Vec<String>,
    /// Depths (in `vars`) of the loops being built whose step is not known or whose
    /// start the data sets ([`start_reads_data`]): a subscript in their index has no
    /// known addresses.
    unknown_addresses: Vec<usize>,
    /// Whether a section whose bounds the nest does not know starts at its array's
    /// first element ([`Cx::array_stmt`]'s second try, its shape another operand's).
    placeholder_starts: bool,
    /// The scalars the nest being built assigns from its data ([`data_scalars_inside`]).
    from_data: std::collections::HashSet<String>,
    /// The loops being built, outermost first (parallel to `vars`).
    loop_stack: Vec<u32>,
    /// The statement whose references (or, for a DO, bounds) are being built.
    current_stmt: usize,
}

/// Extracts the affine nests of one unit (see the module docs).
pub fn extract_unit(unit: &Unit, opts: &ExtractOptions) -> Extraction {
    let facts = UnitFacts::of(unit);
    let mut cx = Cx::new(unit, &facts, opts);
    let mut out = Extraction::default();
    let roots: Vec<LoopId> = unit
        .loops
        .iter()
        .filter(|l| l.parent.is_none())
        .map(|l| l.id)
        .collect();
    for r in roots {
        cx.try_root(r, &mut out);
    }
    out.nests.sort_by_key(|n| n.line);
    out
}

/// The nest rooted at loop `root` of `unit` (whose [`UnitFacts`] are `facts`), as
/// [`extract_unit`] extracts it, without extracting the unit's others: a nest extracted
/// again with each value set it ran with.
pub fn extract_root(
    unit: &Unit,
    facts: &UnitFacts,
    opts: &ExtractOptions,
    root: LoopId,
) -> Option<ExtractedNest> {
    let mut out = Extraction::default();
    Cx::new(unit, facts, opts).try_root(root, &mut out);
    out.nests.into_iter().find(|n| n.root == root.0)
}

/// What the extraction reads of a unit whatever the values it is given: computed once
/// for the many extractions of one nest ([`extract_root`]).
pub struct UnitFacts {
    /// Statements (by index) whose innermost loop is the key, in order.
    body: HashMap<Option<u32>, Vec<usize>>,
    /// Element loops (whole-array statements) of each statement, in order.
    elem_loops: HashMap<usize, Vec<u32>>,
    /// The unit's single-definition scalars ([`Cx::derived`]).
    defs: Definitions,
}

impl UnitFacts {
    /// The facts of `unit`.
    pub fn of(unit: &Unit) -> UnitFacts {
        let mut body: HashMap<Option<u32>, Vec<usize>> = HashMap::new();
        for (i, key) in statement_loops(unit).into_iter().enumerate() {
            if let Some(key) = key {
                body.entry(key).or_default().push(i);
            }
        }
        let mut elem_loops: HashMap<usize, Vec<u32>> = HashMap::new();
        for l in &unit.loops {
            if l.kind != LoopKind::ArrayElements {
                continue;
            }
            if let Some(&s) = unit
                .blocks
                .get(l.header_block.0 as usize)
                .and_then(|b| b.stmts.first())
            {
                elem_loops.entry(s as usize).or_default().push(l.id.0);
            }
        }
        for v in elem_loops.values_mut() {
            v.sort_unstable();
        }
        UnitFacts {
            body,
            elem_loops,
            defs: Definitions::of(unit),
        }
    }
}

impl<'a> Cx<'a> {
    fn new(unit: &'a Unit, facts: &'a UnitFacts, opts: &'a ExtractOptions) -> Cx<'a> {
        Cx {
            unit,
            opts,
            facts,
            loop_stack: Vec::new(),
            current_stmt: 0,
            arrays: Vec::new(),
            non_affine: Vec::new(),
            approximate: Vec::new(),
            implicit: false,
            guessed_last: Vec::new(),
            unknown_addresses: Vec::new(),
            placeholder_starts: false,
            from_data: Default::default(),
        }
    }

    fn try_root(&mut self, id: LoopId, out: &mut Extraction) {
        let l = &self.unit.loops[id.0 as usize];
        self.arrays.clear();
        self.non_affine.clear();
        self.approximate.clear();
        self.guessed_last.clear();
        self.implicit = false;
        self.from_data = data_scalars_inside(self.unit, id);
        let mut vars = Vec::new();
        let built = if l.kind == LoopKind::ArrayElements {
            // A whole-array statement outside any counted loop: its first
            // element group stands for the statement (later groups of the
            // same statement are part of it).
            let Some(si) = self
                .facts
                .elem_loops
                .iter()
                .find(|(_, ls)| ls.contains(&id.0))
                .map(|(s, ls)| (*s, ls[0] == id.0))
            else {
                return;
            };
            if !si.1 {
                return;
            }
            let st = &self.unit.stmts[si.0];
            let mut nodes = Vec::new();
            self.refs_of(si.0, st, &vars, &mut nodes);
            self.implicit = true;
            // The root runs whole at each of the nest's executions.
            for n in &mut nodes {
                if let Node::Loop(root) = n {
                    root.every = 1;
                }
            }
            Ok(nodes)
        } else {
            // The root runs whole at each of the nest's executions (its entries).
            self.build_loop(id, &mut vars).map(|mut n| {
                if let Node::Loop(root) = &mut n {
                    root.every = 1;
                }
                vec![n]
            })
        };
        match built {
            Ok(nodes) => {
                let mut arrays: Vec<(String, ArrayDecl)> = std::mem::take(&mut self.arrays);
                // Symbol-table order, then place; remap ids.
                let order = |name: &str| {
                    self.unit
                        .symbols
                        .iter()
                        .position(|s| s.name == name)
                        .unwrap_or(usize::MAX)
                };
                let mut perm: Vec<usize> = (0..arrays.len()).collect();
                perm.sort_by_key(|&i| order(&arrays[i].0));
                let mut new_id = vec![0u32; arrays.len()];
                for (new, &old) in perm.iter().enumerate() {
                    new_id[old] = new as u32;
                }
                let mut decls: Vec<ArrayDecl> = Vec::with_capacity(arrays.len());
                for &old in &perm {
                    decls.push(std::mem::replace(
                        &mut arrays[old].1,
                        ArrayDecl::new("", 0, 0, &[]),
                    ));
                }
                let mut nest = Nest {
                    arrays: decls,
                    body: nodes,
                };
                remap(&mut nest.body, &new_id);
                nest.place_arrays(0, self.opts.align.max(1));
                out.nests.push(ExtractedNest {
                    unit: self.unit.name.clone(),
                    root: id.0,
                    line: l.span.start.line,
                    nest,
                    approximate_loops: self.approximate.clone(),
                    non_affine: self.non_affine.clone(),
                    array_syntax: self.implicit,
                });
            }
            Err(reason) => {
                out.skipped.push(SkippedLoop {
                    id: id.0,
                    line: l.span.start.line,
                    reason,
                });
                let children: Vec<LoopId> = self
                    .unit
                    .loops
                    .iter()
                    .filter(|c| c.parent == Some(id))
                    .map(|c| c.id)
                    .collect();
                for c in children {
                    self.try_root(c, out);
                }
            }
        }
    }

    fn build_loop(&mut self, id: LoopId, vars: &mut Vec<String>) -> Result<Node, String> {
        let l = &self.unit.loops[id.0 as usize];
        let line = l.span.start.line;
        if l.kind != LoopKind::Counted {
            return Err(format!("loop at line {line} is not a counted DO loop"));
        }
        let var = l
            .var
            .clone()
            .ok_or_else(|| format!("loop at line {line} has no index"))?;
        let (do_stmt, do_exprs) = self
            .unit
            .stmts
            .iter()
            .enumerate()
            .find_map(|(i, s)| match &s.kind {
                StmtKind::Do { loop_id, exprs } if *loop_id == id => Some((i, exprs.clone())),
                _ => None,
            })
            .ok_or_else(|| format!("loop at line {line} has no DO statement"))?;
        self.current_stmt = do_stmt;
        let aff = |e: &Expr| self.affine(e, vars);
        // A step that reads a value not known (it changes inside the nest, `DO J = I*I,
        // N, I` in a GOTO loop over `I`) leaves the loop's trip count but not its
        // addresses: the references in its index are not affine (the instrumented run
        // samples them). So does a start the program's data sets (`DO K = ROWPTR(I),
        // ...`: each entry continues where the last ended). A step in the indices of
        // enclosing loops keeps the approximation below.
        let unknown_addresses = matches!(do_exprs.get(2).map(aff), Some(Err(_)))
            || do_exprs
                .first()
                .is_some_and(|e| start_reads_data(e, &|n| self.from_data.contains(n)));
        let start = do_exprs.first().map(aff);
        let end = do_exprs.get(1).map(aff);
        let step = match do_exprs.get(2).map(aff) {
            None => Ok(1),
            Some(Ok(a)) if a.is_constant() && a.constant != 0 => Ok(a.constant),
            Some(Ok(_)) => Err("a step that is not a non-zero constant".to_string()),
            Some(Err(e)) => Err(e),
        };
        let (lower, upper, step) = match (start, end, step) {
            (Some(Ok(lo)), Some(Ok(hi)), Ok(st)) => (lo, hi, st),
            (start, end, step) => {
                let why = [
                    start.and_then(Result::err),
                    end.and_then(Result::err),
                    step.err(),
                ]
                .into_iter()
                .flatten()
                .next()
                .unwrap_or_else(|| "missing bounds".into());
                let Some(&trips) = self.opts.trips.get(&id.0) else {
                    return Err(format!("loop at line {line}: {why}"));
                };
                let lo = do_exprs
                    .first()
                    .and_then(|e| self.affine(e, vars).ok())
                    .unwrap_or_else(|| Affine::constant(1));
                let st = do_exprs
                    .get(2)
                    .and_then(|e| self.affine(e, vars).ok())
                    .filter(|a| a.is_constant() && a.constant != 0)
                    .map_or(1, |a| a.constant);
                let n = trips.round().max(0.0) as i64;
                self.approximate.push(id.0);
                let hi = lo.clone().plus((n - 1) * st);
                (lo, hi, st)
            }
        };
        vars.push(var.to_lowercase());
        self.loop_stack.push(id.0);
        if unknown_addresses {
            self.unknown_addresses.push(vars.len() - 1);
        }
        let mut body = Vec::new();
        let stmts = self
            .facts
            .body
            .get(&Some(id.0))
            .cloned()
            .unwrap_or_default();
        for si in stmts {
            let st = &self.unit.stmts[si];
            if let StmtKind::Do { loop_id, .. } = &st.kind {
                let node = self.build_loop(*loop_id, vars);
                match node {
                    Ok(n) => body.push(n),
                    Err(e) => {
                        if unknown_addresses {
                            self.unknown_addresses.pop();
                        }
                        vars.pop();
                        self.loop_stack.pop();
                        return Err(e);
                    }
                }
            } else {
                self.refs_of(si, st, vars, &mut body);
            }
        }
        if unknown_addresses {
            self.unknown_addresses.pop();
        }
        vars.pop();
        self.loop_stack.pop();
        Ok(Node::Loop(Loop {
            var,
            lower,
            upper,
            step,
            body,
            every: self.opts.every.get(&id.0).copied().unwrap_or(1).max(1),
        }))
    }

    fn refs_of(&mut self, si: usize, st: &Stmt, vars: &[String], out: &mut Vec<Node>) {
        let line = st.span.start.line;
        self.current_stmt = si;
        match &st.kind {
            StmtKind::Assign { lhs, rhs } if lhs.array => {
                self.array_stmt(si, Some(lhs), rhs, vars, line, out)
            }
            StmtKind::Where { mask } => self.array_stmt(si, None, mask, vars, line, out),
            StmtKind::Assign { lhs, rhs } => {
                self.loads(rhs, vars, line, out);
                match &lhs.kind {
                    ExprKind::Elem(v, subs) => {
                        for s in subs {
                            if let Subscript::Index(e) = s {
                                self.loads(e, vars, line, out);
                            }
                        }
                        self.element(v, subs, true, vars, line, out);
                    }
                    ExprKind::Var(v) if v.rank > 0 => {
                        self.reject(v, line, "whole-array assignment")
                    }
                    _ => {}
                }
            }
            StmtKind::If { cond } | StmtKind::LogicalIf { cond } => {
                self.loads(cond, vars, line, out)
            }
            StmtKind::Io { items, .. } => {
                for e in items {
                    self.loads(e, vars, line, out);
                }
            }
            StmtKind::Call { name, args } => self.call_args(si, name, args, vars, line, out),
            _ => {}
        }
    }

    /// The actual arguments of a CALL: scalar expressions are read here; an element or
    /// a section of an array, once per call, through the dummy that receives it
    /// ([`Cx::passed`]); whole arrays are left to the procedure's own nests (their
    /// addresses do not move from call to call), and so are arguments of a procedure
    /// the program does not hold.
    fn call_args(
        &mut self,
        si: usize,
        name: &str,
        args: &[Expr],
        vars: &[String],
        line: u32,
        out: &mut Vec<Node>,
    ) {
        let uses = self.opts.callees.get(&name.to_lowercase()).cloned();
        for (k, a) in args.iter().enumerate() {
            let dummy = uses.as_ref().and_then(|u| u.get(k)).copied();
            match (&a.kind, dummy) {
                (ExprKind::Var(v), _) if v.rank > 0 => {
                    self.reject(v, line, "whole array passed to a CALL")
                }
                (ExprKind::Elem(v, _), None) => self.reject(
                    v,
                    line,
                    "element or section passed to a procedure the program does not hold",
                ),
                (ExprKind::Elem(v, subs), Some(d)) => {
                    self.passed(si, (v, subs, a), d, vars, line, out)
                }
                _ => self.loads(a, vars, line, out),
            }
        }
    }

    /// An element or section `a` (of `v`, subscripts `subs`) passed to dummy `d`: a
    /// scalar dummy reads the element (and writes it when the procedure assigns it);
    /// an array dummy covers the section, or the sequence of its size from the element
    /// ([`Cx::sequence_section`]), read once per call in an implicit loop (read and
    /// written when assigned) when it holds at most [`PASSED_SECTION_BYTES`].
    fn passed(
        &mut self,
        si: usize,
        (v, subs, a): (&VarRef, &[Subscript], &Expr),
        d: DummyUse,
        vars: &[String],
        line: u32,
        out: &mut Vec<Node>,
    ) {
        if !a.array && !d.array {
            for s in subs {
                if let Subscript::Index(x) = s {
                    self.loads(x, vars, line, out);
                }
            }
            self.element(v, subs, false, vars, line, out);
            if d.written {
                self.element(v, subs, true, vars, line, out);
            }
            return;
        }
        let section = if a.array {
            Ok(a.clone())
        } else {
            match d.elements {
                Some(m) => self.sequence_section(v, subs, m, vars),
                None => Err("element passed to a dummy array whose size the call decides".into()),
            }
        };
        let fits = section.and_then(|s| {
            let bytes = self.section_bytes(v, &s, vars)?;
            if bytes > PASSED_SECTION_BYTES {
                return Err(format!(
                    "a section of {bytes} bytes passed to a CALL: the procedure's nests price it"
                ));
            }
            Ok(s)
        });
        match fits {
            Ok(s) if d.written => self.array_stmt(si, Some(&s), &s, vars, line, out),
            Ok(s) => self.stream(&s, vars, line, out),
            Err(r) => self.reject(v, line, &r),
        }
    }

    /// The section that element `v(subs)` passed to an array dummy of `m` elements
    /// stands for (sequence association, column-major): the leading dimensions the
    /// sequence covers whole (the element must start them), then `m / covered`
    /// elements of the next from the element's subscript (`lhs(1,1,aa,i)` passed to
    /// `a(5,5)` is `lhs(:,:,aa,i)`; `rhs(1,i,j,k)` to `r(5)` is `rhs(1:5,i,j,k)`).
    fn sequence_section(
        &mut self,
        v: &VarRef,
        subs: &[Subscript],
        m: i64,
        vars: &[String],
    ) -> Result<Expr, String> {
        let id = self.array_id(v)?;
        let decl = self.arrays[id as usize].1.clone();
        let mut section = subs.to_vec();
        let mut covered = 1i64;
        for (d, s) in subs.iter().enumerate() {
            let Subscript::Index(x) = s else {
                return Err("array section".into());
            };
            if m % covered != 0 {
                return Err("the dummy's elements end inside a column".into());
            }
            let left = m / covered;
            if left <= decl.extents[d] || d + 1 == subs.len() {
                let more = Expr::constant(x.ty, (left - 1).to_string(), Some(left - 1));
                let last = Expr {
                    kind: ExprKind::Binary(BinOp::Add, Box::new(x.clone()), Box::new(more)),
                    ty: x.ty,
                    array: false,
                };
                section[d] = Subscript::Range(Some(x.clone()), Some(last), None);
                return Ok(Expr {
                    kind: ExprKind::Elem(v.clone(), section),
                    ty: v.ty,
                    array: true,
                });
            }
            let first = self.affine(x, vars)?;
            if !first.is_constant() || first.constant != decl.lower[d] {
                return Err("the dummy's elements run on from inside a column".into());
            }
            section[d] = Subscript::Range(None, None, None);
            covered *= decl.extents[d].max(1);
        }
        Err("no subscripts".into())
    }

    /// Bytes of section `s` of `v`, when its extents are constants.
    fn section_bytes(&mut self, v: &VarRef, s: &Expr, vars: &[String]) -> Result<u64, String> {
        let dims = self.section_dims(s, vars)?;
        let mut elements = 1u64;
        for (_, _, last) in &dims {
            if !last.is_constant() {
                return Err("a section of varying size passed to a CALL".into());
            }
            elements = elements.saturating_mul((last.constant + 1).max(0) as u64);
        }
        let id = self.array_id(v)?;
        Ok(elements.saturating_mul(self.arrays[id as usize].1.elem_bytes))
    }

    /// Loads of the array elements in `e`, inner subscripts first. An
    /// array-valued part (a section, a whole array, the argument of a
    /// reduction) is read once, in an implicit loop of its own.
    fn loads(&mut self, e: &Expr, vars: &[String], line: u32, out: &mut Vec<Node>) {
        match &e.kind {
            ExprKind::Elem(..) | ExprKind::Var(..) if e.array && is_constant_array(e) => {}
            ExprKind::Elem(..) | ExprKind::Var(..) if e.array => self.stream(e, vars, line, out),
            ExprKind::Elem(v, subs) => {
                for s in subs {
                    match s {
                        Subscript::Index(x) => self.loads(x, vars, line, out),
                        Subscript::Range(a, b, c) => {
                            for x in [a, b, c].into_iter().flatten() {
                                self.loads(x, vars, line, out);
                            }
                        }
                    }
                }
                self.element(v, subs, false, vars, line, out);
            }
            ExprKind::Var(v) if v.rank > 0 && !v.constant => self.stream(e, vars, line, out),
            ExprKind::Unary(_, a) | ExprKind::Substring(a) | ExprKind::Component(a, _) => {
                self.loads(a, vars, line, out)
            }
            ExprKind::Binary(_, a, b) => {
                self.loads(a, vars, line, out);
                self.loads(b, vars, line, out);
            }
            ExprKind::Call(CallTarget::User(_), args) => {
                for a in args {
                    if a.array {
                        self.reject_all(a, line, "array passed to a function");
                    } else {
                        self.loads(a, vars, line, out);
                    }
                }
            }
            ExprKind::Call(_, args) | ExprKind::ArrayCtor(args) | ExprKind::ImpliedDo(args, _) => {
                for a in args {
                    self.loads(a, vars, line, out);
                }
            }
            _ => {}
        }
    }

    /// Rejects every array named in `e`.
    fn reject_all(&mut self, e: &Expr, line: u32, reason: &str) {
        let mut names = Vec::new();
        arrays_in(e, &mut names);
        for v in names {
            self.reject(&v, line, reason);
        }
    }

    /// The dimensions of the section `e` (a whole array or `X(lo:hi:st, ...)`)
    /// that vary, as implicit loops `t = 0 .. last`: `(first index, step,
    /// last t)` per varying dimension, in subscript order.
    fn section_dims(
        &mut self,
        e: &Expr,
        vars: &[String],
    ) -> Result<Vec<(Affine, i64, Affine)>, String> {
        let (v, subs) = match &e.kind {
            ExprKind::Var(v) => (v, None),
            ExprKind::Elem(v, subs) => (v, Some(subs)),
            _ => return Err("not an array section".into()),
        };
        let id = self.array_id(v)?;
        let decl = self.arrays[id as usize].1.clone();
        let guessed = self.guessed_last.contains(&v.name);
        let rank = decl.extents.len();
        let full_hi = |d: usize| -> Result<i64, String> {
            if guessed && d + 1 == rank {
                Err("the extent of the last dimension is not known".into())
            } else {
                Ok(decl.lower[d] + decl.extents[d] - 1)
            }
        };
        let mut dims = Vec::new();
        match subs {
            None => {
                for d in 0..rank {
                    let hi = full_hi(d)?;
                    dims.push((
                        Affine::constant(decl.lower[d]),
                        1,
                        Affine::constant(hi - decl.lower[d]),
                    ));
                }
            }
            Some(subs) => {
                if subs.len() != rank {
                    return Err("subscripts do not match the rank".into());
                }
                for (d, s) in subs.iter().enumerate() {
                    match s {
                        Subscript::Index(x) if x.array => return Err("vector subscript".into()),
                        Subscript::Index(_) => {}
                        Subscript::Range(a, b, c) => {
                            let lo = match a.as_ref().map(|a| self.affine(a, vars)) {
                                Some(Ok(lo)) => lo,
                                Some(Err(_)) if self.placeholder_starts => {
                                    Affine::constant(decl.lower[d])
                                }
                                Some(Err(r)) => return Err(r),
                                None => Affine::constant(decl.lower[d]),
                            };
                            let hi = match b.as_ref().map(|b| self.affine(b, vars)) {
                                Some(Ok(hi)) => hi,
                                // The extent is the statement's shape's (the loops' own).
                                Some(Err(_)) if self.placeholder_starts => lo.clone(),
                                Some(Err(r)) => return Err(r),
                                None => Affine::constant(full_hi(d)?),
                            };
                            let step = match c {
                                None => 1,
                                Some(c) => {
                                    let a = self.affine(c, vars)?;
                                    if !a.is_constant() || a.constant == 0 {
                                        return Err("a section step that is not a constant".into());
                                    }
                                    a.constant
                                }
                            };
                            let span = hi.add(&lo.scale(-1));
                            let last = if step == 1 {
                                span
                            } else if span.is_constant() {
                                let n = ((span.constant + step) / step).max(0);
                                Affine::constant(n - 1)
                            } else {
                                return Err("a strided section of varying extent".into());
                            };
                            dims.push((lo, step, last));
                        }
                    }
                }
            }
        }
        Ok(dims)
    }

    /// The reference to the operand `e` (a section or whole array) at the
    /// implicit indices of depths `tdepth` (one per varying dimension).
    fn operand(
        &mut self,
        e: &Expr,
        tdepth: &[usize],
        write: bool,
        vars: &[String],
    ) -> Result<Node, String> {
        let (v, subs) = match &e.kind {
            ExprKind::Var(v) => (v, None),
            ExprKind::Elem(v, subs) => (v, Some(subs)),
            _ => return Err("not an array section".into()),
        };
        let dims = self.section_dims(e, vars)?;
        if dims.len() != tdepth.len() {
            return Err("sections do not conform".into());
        }
        let id = self.array_id(v)?;
        let t = |k: usize| Affine::var(tdepth[k]);
        let mut affs = Vec::new();
        match subs {
            None => {
                for (k, (lo, _, _)) in dims.iter().enumerate() {
                    affs.push(lo.add(&t(k)));
                }
            }
            Some(subs) => {
                let mut k = 0;
                for s in subs {
                    match s {
                        Subscript::Index(x) => affs.push(self.affine(x, vars)?),
                        Subscript::Range(..) => {
                            let (lo, st, _) = &dims[k];
                            affs.push(lo.add(&t(k).scale(*st)));
                            k += 1;
                        }
                    }
                }
            }
        }
        Ok(if write {
            Ref::write(id, affs)
        } else {
            Ref::read(id, affs)
        })
    }

    /// The loads of the array-valued expression `e` evaluated element by
    /// element at the implicit indices `tdepth` (`inner` holds the loop
    /// variables with the implicit ones); transformational intrinsics inside
    /// are read once, before the loops, into `pre`.
    #[allow(clippy::too_many_arguments)]
    fn elemental(
        &mut self,
        e: &Expr,
        tdepth: &[usize],
        outer: &[String],
        inner: &[String],
        line: u32,
        pre: &mut Vec<Node>,
        body: &mut Vec<Node>,
    ) {
        match &e.kind {
            ExprKind::Elem(v, subs) if e.array => {
                for s in subs {
                    if let Subscript::Index(x) = s {
                        self.loads(x, inner, line, body);
                    }
                }
                match self.operand(e, tdepth, false, inner) {
                    Ok(n) => body.push(n),
                    Err(r) => self.reject(v, line, &r),
                }
            }
            ExprKind::Var(v) if v.rank > 0 && !v.constant => {
                match self.operand(e, tdepth, false, inner) {
                    Ok(n) => body.push(n),
                    Err(r) => self.reject(v, line, &r),
                }
            }
            ExprKind::Unary(_, a) => self.elemental(a, tdepth, outer, inner, line, pre, body),
            ExprKind::Binary(_, a, b) => {
                self.elemental(a, tdepth, outer, inner, line, pre, body);
                self.elemental(b, tdepth, outer, inner, line, pre, body);
            }
            ExprKind::Call(CallTarget::Intrinsic(name), args) if is_elemental(name) => {
                for a in args {
                    self.elemental(a, tdepth, outer, inner, line, pre, body);
                }
            }
            // `transpose(t)` of a whole array or section in an elemental expression: the
            // compiler reads `t` in place, its element (i, j) at the result's (j, i) (no
            // temporary), so `t` strides along the result's first dimension.
            ExprKind::Call(CallTarget::Intrinsic(name), args)
                if name == "transpose" && args.len() == 1 && tdepth.len() == 2 =>
            {
                let swapped = [tdepth[1], tdepth[0]];
                match (
                    &args[0].kind,
                    self.operand(&args[0], &swapped, false, inner),
                ) {
                    (_, Ok(n)) => body.push(n),
                    (ExprKind::Var(v) | ExprKind::Elem(v, _), Err(r)) => self.reject(v, line, &r),
                    (_, Err(_)) => self.loads(&args[0], outer, line, pre),
                }
            }
            ExprKind::Call(CallTarget::Intrinsic(_), args) => {
                for a in args {
                    self.loads(a, outer, line, pre);
                }
            }
            _ if e.array => self.reject_all(e, line, "array expression not modelled"),
            _ => self.loads(e, inner, line, body),
        }
    }

    /// Implicit loops over the shape of `shape` (a section or whole array)
    /// around `body_of`, pushed to `out` after what must run before them.
    fn implicit_loops(
        &mut self,
        shape: &Expr,
        vars: &[String],
        line: u32,
        out: &mut Vec<Node>,
        body_of: &mut BodyOf<'_, 'a>,
    ) -> Result<Vec<(Affine, i64, Affine)>, String> {
        let dims = self.section_dims(shape, vars)?;
        self.implicit_loops_over(dims, vars, line, out, body_of)
    }

    /// [`Cx::implicit_loops`] over the varying dimensions `dims` (`section_dims`'s).
    fn implicit_loops_over(
        &mut self,
        dims: Vec<(Affine, i64, Affine)>,
        vars: &[String],
        line: u32,
        out: &mut Vec<Node>,
        body_of: &mut BodyOf<'_, 'a>,
    ) -> Result<Vec<(Affine, i64, Affine)>, String> {
        let r = dims.len();
        let base = vars.len();
        let mut inner: Vec<String> = vars.to_vec();
        for k in (0..r).rev() {
            inner.push(format!("${k}@{line}"));
        }
        let tdepth: Vec<usize> = (0..r).map(|k| base + (r - 1 - k)).collect();
        let mut pre = Vec::new();
        let mut body = Vec::new();
        body_of(self, &tdepth, &inner, &mut pre, &mut body);
        out.extend(pre);
        if !body.is_empty() {
            let mut node_body = body;
            for (k, (_, _, last)) in dims.iter().enumerate() {
                node_body = vec![Node::Loop(Loop {
                    var: inner[base + (r - 1 - k)].clone(),
                    lower: Affine::constant(0),
                    upper: last.clone(),
                    step: 1,
                    body: node_body,
                    every: 1,
                })];
            }
            out.extend(node_body);
        }
        self.implicit = true;
        Ok(dims)
    }

    /// An array statement's implicit loops when its left side's bounds are computed where
    /// the nest cannot follow them: over the shape of an operand of `rhs` it knows
    /// ([`Cx::known_shape`]), the sections it cannot place starting at their arrays'
    /// first elements (the pattern of each execution kept, where it falls between
    /// executions not). `None` when no operand's shape is known or the loops fail.
    fn implicit_loops_placed(
        &mut self,
        rhs: &Expr,
        vars: &[String],
        line: u32,
        out: &mut Vec<Node>,
        body_of: &mut BodyOf<'_, 'a>,
    ) -> Option<Vec<(Affine, i64, Affine)>> {
        let dims = self.known_shape(rhs, vars)?;
        self.placeholder_starts = true;
        let placed = self.implicit_loops_over(dims, vars, line, out, body_of);
        self.placeholder_starts = false;
        placed.ok()
    }

    /// The varying dimensions of the first operand of `e` whose section the nest knows
    /// whole, all of constant extent (a `transpose`'s argument's, swapped): the shape of
    /// an array statement whose left side's bounds the nest cannot follow
    /// (`B(:, lo:hi) = B(:, lo:hi) + transpose(T)`, `lo` set in the loop from
    /// `mod(me + q, np)`).
    fn known_shape(&mut self, e: &Expr, vars: &[String]) -> Option<Vec<(Affine, i64, Affine)>> {
        let constant_extents = |cx: &mut Self| {
            cx.section_dims(e, vars)
                .ok()
                .filter(|d| d.iter().all(|x| x.2.is_constant()))
        };
        match &e.kind {
            ExprKind::Elem(v, _) if e.array && !v.constant => constant_extents(self),
            ExprKind::Var(v) if v.rank > 0 && !v.constant => constant_extents(self),
            ExprKind::Unary(_, a) => self.known_shape(a, vars),
            ExprKind::Binary(_, a, b) => self
                .known_shape(a, vars)
                .or_else(|| self.known_shape(b, vars)),
            ExprKind::Call(CallTarget::Intrinsic(name), args)
                if name == "transpose" && args.len() == 1 =>
            {
                let mut dims = self.known_shape(&args[0], vars)?;
                (dims.len() == 2).then(|| {
                    dims.reverse();
                    dims
                })
            }
            ExprKind::Call(CallTarget::Intrinsic(name), args) if is_elemental(name) => {
                args.iter().find_map(|a| self.known_shape(a, vars))
            }
            _ => None,
        }
    }

    /// An array-valued expression read once (a reduction's argument, an
    /// array in an I/O list): implicit loops over its own shape.
    fn stream(&mut self, e: &Expr, vars: &[String], line: u32, out: &mut Vec<Node>) {
        let Some(shape) = first_array_operand(e) else {
            return self.reject_all(e, line, "array expression not modelled");
        };
        let shape = shape.clone();
        let outer = vars.to_vec();
        let ran = self.implicit_loops(&shape, vars, line, out, &mut |cx, td, inner, pre, body| {
            cx.elemental(e, td, &outer, inner, line, pre, body)
        });
        if let Err(r) = ran {
            self.reject_all(e, line, &r);
        }
    }

    /// A whole-array statement `lhs = rhs` (or a WHERE mask when `lhs` is
    /// absent): an implicit loop nest over the shape of the left side,
    /// first subscript innermost, reading the right side element by element
    /// and storing the left side. The extents must agree with the measured
    /// element count of the statement when both are known.
    fn array_stmt(
        &mut self,
        si: usize,
        lhs: Option<&Expr>,
        rhs: &Expr,
        vars: &[String],
        line: u32,
        out: &mut Vec<Node>,
    ) {
        let shape = match lhs {
            Some(l) => Some(l),
            None => first_array_operand(rhs),
        };
        let Some(shape) = shape.cloned() else {
            return self.loads(rhs, vars, line, out);
        };
        let outer = vars.to_vec();
        let mut local = Vec::new();
        let mut body_of = |cx: &mut Cx<'a>,
                           td: &[usize],
                           inner: &[String],
                           pre: &mut Vec<Node>,
                           body: &mut Vec<Node>| {
            cx.elemental(rhs, td, &outer, inner, line, pre, body);
            if let Some(l) = lhs {
                if let ExprKind::Elem(_, subs) = &l.kind {
                    for s in subs {
                        if let Subscript::Index(x) = s {
                            cx.loads(x, inner, line, body);
                        }
                    }
                }
                match cx.operand(l, td, true, inner) {
                    Ok(n) => body.push(n),
                    Err(r) => cx.reject_all(l, line, &r),
                }
            }
        };
        let ran = match self.implicit_loops(&shape, vars, line, &mut local, &mut body_of) {
            Err(r) if lhs.is_some() => self
                .implicit_loops_placed(rhs, vars, line, &mut local, &mut body_of)
                .ok_or(r),
            ran => ran,
        };
        let dims = match ran {
            Ok(d) => d,
            Err(r) => {
                self.reject_all(&shape, line, &r);
                if lhs.is_some() {
                    self.reject_all(rhs, line, &r);
                }
                return;
            }
        };
        // The static extents against the measured elements per execution.
        let measured = self
            .facts
            .elem_loops
            .get(&si)
            .and_then(|ls| ls.first())
            .and_then(|l| self.opts.trips.get(l));
        if let Some(&m) = measured {
            if dims.iter().all(|d| d.2.is_constant()) {
                let n: f64 = dims
                    .iter()
                    .map(|d| (d.2.constant + 1).max(0) as f64)
                    .product();
                if (n - m).abs() > 0.5 + 1e-6 * m {
                    self.reject_all(
                        &shape,
                        line,
                        &format!("section of {n} elements, {m} measured per execution"),
                    );
                    return;
                }
            }
        }
        // A statement an IF guards runs on its share of the passes, as a guarded DO.
        let every = self
            .facts
            .elem_loops
            .get(&si)
            .and_then(|ls| ls.first())
            .and_then(|l| self.opts.every.get(l))
            .copied()
            .unwrap_or(1);
        for n in &mut local {
            if let Node::Loop(l) = n {
                l.every = every.max(1);
            }
        }
        out.extend(local);
    }

    fn reject(&mut self, v: &VarRef, line: u32, reason: &str) {
        self.non_affine.push(NonAffine {
            line,
            array: v.name.clone(),
            reason: reason.to_string(),
        });
    }

    fn element(
        &mut self,
        v: &VarRef,
        subs: &[Subscript],
        write: bool,
        vars: &[String],
        line: u32,
        out: &mut Vec<Node>,
    ) {
        let mut affs = Vec::with_capacity(subs.len());
        for s in subs {
            match s {
                Subscript::Index(e) => match self.affine(e, vars) {
                    Ok(a) => affs.push(a),
                    Err(r) => return self.reject(v, line, &format!("subscript: {r}")),
                },
                Subscript::Range(..) => return self.reject(v, line, "array section"),
            }
        }
        let id = match self.array_id(v) {
            Ok(id) => id,
            Err(r) => return self.reject(v, line, &r),
        };
        if self.arrays[id as usize].1.extents.len() != affs.len() {
            return self.reject(v, line, "subscripts do not match the rank");
        }
        out.push(if write {
            Ref::write(id, affs)
        } else {
            Ref::read(id, affs)
        });
    }

    fn array_id(&mut self, v: &VarRef) -> Result<u32, String> {
        if let Some(i) = self.arrays.iter().position(|(n, _)| *n == v.name) {
            return Ok(i as u32);
        }
        let sym: &Symbol = self
            .unit
            .symbol(&v.name)
            .ok_or_else(|| "no declaration".to_string())?;
        let elem = match sym.ty.base {
            BaseType::Integer | BaseType::Real | BaseType::Logical => u64::from(sym.ty.kind),
            BaseType::Complex => 2 * u64::from(sym.ty.kind),
            _ => return Err(format!("elements of type {}", sym.ty.describe())),
        };
        let rank = sym.dims.len();
        let declared = self.declared_shape(sym);
        let recorded = self
            .opts
            .shapes
            .get(&v.name)
            .filter(|s| s.len() == rank && s.iter().all(|d| d.1 >= 0));
        let (lower, extents) = match (declared, recorded) {
            (Ok((lo, ext, false)), _) => (lo, ext),
            (_, Some(s)) => (
                s.iter().map(|d| d.0).collect(),
                s.iter().map(|d| d.1).collect(),
            ),
            (Ok((lo, ext, true)), None) => {
                self.guessed_last.push(v.name.clone());
                (lo, ext)
            }
            (Err(e), None) => return Err(e),
        };
        self.arrays.push((
            v.name.clone(),
            ArrayDecl {
                name: v.name.clone(),
                base: 0,
                elem_bytes: elem.max(1),
                lower,
                extents,
            },
        ));
        Ok((self.arrays.len() - 1) as u32)
    }

    /// Lower bounds and extents from the declaration, and whether the last
    /// extent is a placeholder (assumed size).
    fn declared_shape(&self, sym: &Symbol) -> Result<(Vec<i64>, Vec<i64>, bool), String> {
        let (mut lower, mut extents) = (Vec::new(), Vec::new());
        let rank = sym.dims.len();
        let mut guessed = false;
        for (k, d) in sym.dims.iter().enumerate() {
            let lo = match &d.lower {
                Some(t) => self.eval_text(t)?,
                None if d.upper.is_none() && d.extent.is_none() => {
                    return Err("assumed-shape or deferred-shape array".into())
                }
                None => 1,
            };
            let ext = match (d.extent, &d.upper) {
                (Some(e), _) => e,
                (None, Some(u)) if u.trim() != "*" => self.eval_text(u)? - lo + 1,
                // The last extent never enters an address.
                _ if k + 1 == rank => {
                    guessed = true;
                    1
                }
                _ => return Err("unknown extent of a leading dimension".into()),
            };
            lower.push(lo);
            extents.push(ext);
        }
        Ok((lower, extents, guessed))
    }

    fn value_of(&self, name: &str) -> Option<i64> {
        let name = name.to_lowercase();
        if let Some(s) = self.unit.symbol(&name) {
            if let Some(v) = s.value {
                return Some(v);
            }
        }
        self.opts.values.get(&name).copied()
    }

    /// An integer expression in a declaration (`n`, `0:n-1`'s parts, `2*m+1`).
    fn eval_text(&self, text: &str) -> Result<i64, String> {
        let toks = tokenize(text).ok_or_else(|| format!("cannot read the bound `{text}`"))?;
        let mut p = TextParser {
            toks: &toks,
            pos: 0,
            cx: self,
        };
        let v = p.sum()?;
        if p.pos != toks.len() {
            return Err(format!("cannot read the bound `{text}`"));
        }
        Ok(v)
    }

    /// `e` as an affine function of the loop indices `vars` (outermost
    /// first).
    fn affine(&self, e: &Expr, vars: &[String]) -> Result<Affine, String> {
        let aff = |x: &Expr| self.affine(x, vars);
        match &e.kind {
            ExprKind::Const { value: Some(v), .. } => Ok(Affine::constant(*v)),
            ExprKind::Var(v) => {
                if let Some(d) = vars.iter().rposition(|x| *x == v.name) {
                    if self.unknown_addresses.contains(&d) {
                        return Err(format!(
                            "the loop over `{}` starts or steps by values that move inside the nest",
                            v.name
                        ));
                    }
                    Ok(Affine::var(d))
                } else if let Some(value) = self.value_of(&v.name) {
                    Ok(Affine::constant(value))
                } else {
                    self.derived(&v.name, vars)
                        .ok_or_else(|| format!("the value of `{}` is not known", v.name))
                }
            }
            ExprKind::Unary(UnOp::Neg, a) => Ok(aff(a)?.scale(-1)),
            ExprKind::Unary(UnOp::Plus, a) => aff(a),
            ExprKind::Binary(op, a, b) => {
                let (x, y) = (aff(a)?, aff(b)?);
                match op {
                    BinOp::Add => Ok(x.add(&y)),
                    BinOp::Sub => Ok(x.add(&y.scale(-1))),
                    BinOp::Mul if y.is_constant() => Ok(x.scale(y.constant)),
                    BinOp::Mul if x.is_constant() => Ok(y.scale(x.constant)),
                    BinOp::Div if x.is_constant() && y.is_constant() && y.constant != 0 => {
                        Ok(Affine::constant(x.constant / y.constant))
                    }
                    _ => Err("not linear in the loop indices".into()),
                }
            }
            ExprKind::Elem(v, _) => Err(format!("indirect through `{}`", v.name)),
            ExprKind::Call(..) => Err("a function call".into()),
            _ => Err("not an integer expression".into()),
        }
    }
}

impl Cx<'_> {
    /// A scalar's value as an affine function of the loop indices `vars`, from the one
    /// statement that assigns it as the current statement sees it
    /// ([`Definitions::reaching`]). Its right-hand side reads loop indices and named
    /// constants only, so no further substitution happens inside.
    fn derived(&self, name: &str, vars: &[String]) -> Option<Affine> {
        let (def, known) =
            self.facts
                .defs
                .reaching(self.unit, name, self.current_stmt, &self.loop_stack)?;
        let StmtKind::Assign { rhs, .. } = &self.unit.stmts[def].kind else {
            return None;
        };
        self.affine(rhs, &vars[..known.min(vars.len())]).ok()
    }
}

/// Induction-variable substitution, as compilers do it: the local integer scalars that
/// exactly one assignment statement of a unit defines and nothing else may change (not
/// a DO index, not read by an input statement, not an actual argument of a CALL), such
/// as `lag = (l - 1) * 97` in a loop over `l`, which makes `y(i + lag)` the affine
/// stream `y(i + 97·l - 97)` of the loops over `l` and `i`. Their right-hand sides may
/// read integer scalars the nest does not change (`jw = j * mj` with `mj` an argument:
/// its value at the nest's entry, which the run records, makes the coefficient) and
/// other such definitions (`ja = jw`). The extraction substitutes them; the
/// instrumentation does not sample the references they make affine.
#[derive(Clone, Debug, Default)]
pub struct Definitions {
    /// Each such scalar and the index of its statement.
    single: HashMap<String, usize>,
    /// The loop whose body holds each statement ([`statement_loops`]).
    stmt_loop: Vec<Option<Option<u32>>>,
    /// Per scalar, the loops in whose bodies something may change it (an assignment,
    /// an input item, an actual argument; a DO index: its own loop); `None`: outside loops.
    changed_in: HashMap<String, Vec<Option<u32>>>,
}

/// How many single definitions one substitution may chain (`ja = jw`, `jw = j * mj`).
pub const MAX_CHAIN: usize = 4;

impl Definitions {
    /// The single-definition scalars of `unit`.
    pub fn of(unit: &Unit) -> Definitions {
        let stmt_loop = statement_loops(unit);
        Definitions {
            single: single_definitions(unit),
            changed_in: changed_scalars(unit, &stmt_loop),
            stmt_loop,
        }
    }

    /// The definition of `name` that a use in statement `at`, inside the loops `stack`
    /// (loop ids, outermost first), sees as a fixed function of those loops' indices:
    /// `(statement, how many loops of stack enclose it)`. The definition must come
    /// before `at` in the body of a loop of `stack`, or lie outside `stack`'s outermost
    /// loop; and its right-hand side must combine linearly nothing but literals, named
    /// constants, the indices of the loops around it, integer scalars that nothing
    /// inside `stack`'s outermost loop changes (their values at the nest's entry), and
    /// other such definitions that reach it. `None` otherwise (a definition in a loop
    /// that does not enclose the use changes within it).
    pub fn reaching(
        &self,
        unit: &Unit,
        name: &str,
        at: usize,
        stack: &[u32],
    ) -> Option<(usize, usize)> {
        self.reaching_within(unit, name, at, stack, 0)
            .map(|(def, known, _)| (def, known))
    }

    /// [`Definitions::reaching`] at chain depth `depth`, with the degree of the
    /// definition in the loop indices (0: fixed in the nest, 1: linear).
    fn reaching_within(
        &self,
        unit: &Unit,
        name: &str,
        at: usize,
        stack: &[u32],
        depth: usize,
    ) -> Option<(usize, usize, u8)> {
        if depth > MAX_CHAIN {
            return None;
        }
        let &def = self.single.get(name)?;
        let owner = self.stmt_loop.get(def).copied().flatten()?;
        let known = match owner.and_then(|o| stack.iter().position(|&l| l == o)) {
            Some(d) if def < at => d + 1,
            Some(_) => return None,
            None if owner.is_some_and(|o| {
                stack
                    .first()
                    .is_some_and(|&r| unit.loop_within(Some(LoopId(o)), LoopId(r)))
            }) =>
            {
                return None
            }
            None => 0,
        };
        let StmtKind::Assign { rhs, .. } = &unit.stmts[def].kind else {
            return None;
        };
        let cx = Linearity {
            defs: self,
            unit,
            at: def,
            stack,
            known,
            depth,
            apart: owner.filter(|o| !stack.contains(o)),
        };
        cx.degree(rhs).map(|d| (def, known, d))
    }

    /// Whether nothing inside loop `root` may change scalar `name`.
    fn fixed_in(&self, unit: &Unit, name: &str, root: u32) -> bool {
        self.changed_in.get(name).map_or(true, |loops| {
            !loops
                .iter()
                .any(|&l| unit.loop_within(l.map(LoopId), LoopId(root)))
        })
    }
}

/// Where a definition's right-hand side is read ([`Definitions::reaching_within`]).
struct Linearity<'d> {
    defs: &'d Definitions,
    unit: &'d Unit,
    /// The definition's statement.
    at: usize,
    /// The loops of the nest, outermost first.
    stack: &'d [u32],
    /// How many of them enclose the definition.
    known: usize,
    /// Substitutions chained so far.
    depth: usize,
    /// The loop holding the definition when it is none of the nest's (a loop before
    /// it): what that loop changes had other values when the definition last ran.
    apart: Option<u32>,
}

impl Linearity<'_> {
    /// The degree of `e` in the indices of the loops around the definition: 0 fixed in
    /// the nest, 1 linear; `None` for anything else.
    fn degree(&self, e: &Expr) -> Option<u8> {
        match &e.kind {
            ExprKind::Const { value: Some(_), .. } => Some(0),
            ExprKind::Var(v) => self.name_degree(&v.name),
            ExprKind::Unary(UnOp::Neg | UnOp::Plus, a) => self.degree(a),
            ExprKind::Binary(op, a, b) => {
                let (x, y) = (self.degree(a)?, self.degree(b)?);
                match op {
                    BinOp::Add | BinOp::Sub => Some(x.max(y)),
                    BinOp::Mul => (x + y <= 1).then_some(x + y),
                    BinOp::Div => (x == 0 && y == 0).then_some(0),
                    _ => None,
                }
            }
            _ => None,
        }
    }

    fn name_degree(&self, name: &str) -> Option<u8> {
        let unit = self.unit;
        let index = self.stack[..self.known].iter().any(|&l| {
            unit.loops
                .get(l as usize)
                .and_then(|x| x.var.as_deref())
                .is_some_and(|i| i.eq_ignore_ascii_case(name))
        });
        if index {
            return Some(1);
        }
        let sym = unit.symbol(name)?;
        if sym.value.is_some() {
            return Some(0);
        }
        if let Some((_, known, d)) =
            self.defs
                .reaching_within(unit, name, self.at, self.stack, self.depth + 1)
        {
            return (known <= self.known).then_some(d);
        }
        let root = *self.stack.first()?;
        let integer_scalar = sym.dims.is_empty() && sym.ty.base == BaseType::Integer;
        let fixed = |l: u32| self.defs.fixed_in(unit, name, l);
        (integer_scalar && !sym.procedure && fixed(root) && self.apart.map_or(true, fixed))
            .then_some(0)
    }
}

/// Per scalar, the loops in whose bodies a statement may change it
/// ([`Definitions::changed_in`]).
fn changed_scalars(
    unit: &Unit,
    stmt_loop: &[Option<Option<u32>>],
) -> HashMap<String, Vec<Option<u32>>> {
    let mut out: HashMap<String, Vec<Option<u32>>> = HashMap::new();
    for (i, st) in unit.stmts.iter().enumerate() {
        let owner = stmt_loop.get(i).copied().flatten().flatten();
        let mut names: Vec<&str> = vec![];
        match &st.kind {
            StmtKind::Assign { lhs, .. } => names.extend(var_name(lhs)),
            StmtKind::Call { args, .. } => names.extend(args.iter().filter_map(var_name)),
            StmtKind::Io { keyword, items, .. } if keyword == "read" => {
                names.extend(items.iter().filter_map(var_name))
            }
            _ => {}
        }
        for n in names {
            out.entry(n.to_lowercase()).or_default().push(owner);
        }
    }
    for l in &unit.loops {
        if let Some(v) = &l.var {
            out.entry(v.to_lowercase()).or_default().push(Some(l.id.0));
        }
    }
    out
}

/// The innermost loop of every statement (`Some(None)`: outside loops; `None`: in no
/// block): the first non-element block that holds it; a DO statement belongs to the
/// loop around its own loop. A loop made by a backward GOTO has no bounds to
/// enumerate: its statements and loops count as its enclosing loop's (a sieve's GOTO
/// loop over `I` inside a DO keeps its `DO J = I*I, N, I` in the DO's nest, with the
/// step unknown).
fn statement_loops(unit: &Unit) -> Vec<Option<Option<u32>>> {
    let mut owner: Vec<Option<Option<u32>>> = vec![None; unit.stmts.len()];
    for b in &unit.blocks {
        if b.kind == augur_ir::BlockKind::Elements {
            continue;
        }
        for &s in &b.stmts {
            let o = &mut owner[s as usize];
            if o.is_none() {
                *o = Some(b.in_loop.map(|l| l.0));
            }
        }
    }
    let flat = |mut l: Option<u32>| {
        while let Some(id) = l {
            match unit.loops.get(id as usize) {
                Some(x) if x.kind == LoopKind::Goto => l = x.parent.map(|p| p.0),
                _ => break,
            }
        }
        l
    };
    unit.stmts
        .iter()
        .enumerate()
        .map(|(i, st)| match &st.kind {
            StmtKind::Do { loop_id, .. } => {
                Some(flat(unit.loops[loop_id.0 as usize].parent.map(|p| p.0)))
            }
            _ => owner[i].map(flat),
        })
        .collect()
}

/// The local integer scalars that exactly one assignment statement of `unit` defines
/// and nothing else may change: not a DO index, not read by an input statement, not
/// an actual argument of a CALL. Each with the index of its statement.
fn single_definitions(unit: &Unit) -> HashMap<String, usize> {
    let mut count: HashMap<&str, (usize, usize)> = HashMap::new();
    let mut spoiled: Vec<&str> = vec![];
    for (i, st) in unit.stmts.iter().enumerate() {
        match &st.kind {
            StmtKind::Assign { lhs, .. } => {
                if let ExprKind::Var(v) = &lhs.kind {
                    let e = count.entry(&v.name).or_insert((0, i));
                    e.0 += 1;
                }
            }
            StmtKind::Call { args, .. } => spoiled.extend(args.iter().filter_map(var_name)),
            StmtKind::Io { keyword, items, .. } if keyword == "read" => {
                spoiled.extend(items.iter().filter_map(var_name))
            }
            _ => {}
        }
    }
    for l in &unit.loops {
        if let Some(v) = &l.var {
            spoiled.push(v);
        }
    }
    count
        .into_iter()
        .filter(|(name, (n, _))| *n == 1 && !spoiled.iter().any(|s| s.eq_ignore_ascii_case(name)))
        .filter(|(name, _)| {
            unit.symbol(name).is_some_and(|s| {
                s.storage == Storage::Local && s.dims.is_empty() && s.ty.base == BaseType::Integer
            })
        })
        .map(|(name, (_, i))| (name.to_string(), i))
        .collect()
}

/// The name of a scalar variable expression.
fn var_name(e: &Expr) -> Option<&str> {
    match &e.kind {
        ExprKind::Var(v) => Some(&v.name),
        _ => None,
    }
}

/// Intrinsics applied element by element to array arguments.
fn is_elemental(name: &str) -> bool {
    const E: &[&str] = &[
        "abs",
        "sqrt",
        "exp",
        "log",
        "log10",
        "sin",
        "cos",
        "tan",
        "asin",
        "acos",
        "atan",
        "atan2",
        "sinh",
        "cosh",
        "tanh",
        "real",
        "dble",
        "float",
        "sngl",
        "int",
        "nint",
        "anint",
        "aint",
        "floor",
        "ceiling",
        "mod",
        "modulo",
        "sign",
        "max",
        "min",
        "merge",
        "conjg",
        "aimag",
        "cmplx",
        "dcmplx",
        "dim",
        "iand",
        "ior",
        "ieor",
        "not",
        "ishft",
        "ibits",
        "btest",
        "logical",
        "dprod",
        "dabs",
        "dsqrt",
        "dexp",
        "dlog",
        "dsin",
        "dcos",
        "amax1",
        "amin1",
        "max0",
        "min0",
        "dmax1",
        "dmin1",
        "iabs",
        "idint",
        "ifix",
        "hypot",
        "erf",
        "gamma",
        "log_gamma",
        "bessel_j0",
        "huge",
        "tiny",
        "epsilon",
        "kind",
    ];
    E.contains(&name)
}

/// An array named constant (PARAMETER): no memory traffic modelled.
fn is_constant_array(e: &Expr) -> bool {
    matches!(&e.kind, ExprKind::Var(v) | ExprKind::Elem(v, _) if v.constant)
}

/// The first section or whole array of an elemental expression.
fn first_array_operand(e: &Expr) -> Option<&Expr> {
    match &e.kind {
        ExprKind::Elem(v, _) if e.array && !v.constant => Some(e),
        ExprKind::Var(v) if v.rank > 0 && !v.constant => Some(e),
        ExprKind::Unary(_, a) => first_array_operand(a),
        ExprKind::Binary(_, a, b) => first_array_operand(a).or_else(|| first_array_operand(b)),
        ExprKind::Call(CallTarget::Intrinsic(name), args) if is_elemental(name) => {
            args.iter().find_map(first_array_operand)
        }
        _ => None,
    }
}

/// Whether the start of a DO loop, `start`, reads values the program's data holds that
/// move from one entry to the next: an array element at a variable subscript, a user
/// function's result ([`reads_data`]), or a scalar `from_data` names (one the nest
/// assigns from such values, [`data_scalars_inside`]).
/// Such a loop starts where the data says each time it is entered (a compressed sparse
/// row's `DO K = ROWPTR(I), ROWPTR(I+1)-1` continues where the row before ended), so the
/// references in its index have no known addresses: the instrumented run samples them
/// (`augur_program`'s address probes), and the extraction leaves them out of the nest.
pub fn start_reads_data(start: &Expr, from_data: &dyn Fn(&str) -> bool) -> bool {
    match &start.kind {
        ExprKind::Var(v) => from_data(&v.name),
        _ => {
            reads_data(start)
                || start
                    .operands()
                    .into_iter()
                    .any(|o| start_reads_data(o, from_data))
        }
    }
}

/// Whether `e` itself is a value the program's data holds that can differ from one
/// entry of a loop to the next: an element of an array (not a named constant; a
/// derived-type component's elements included) at a subscript that reads a variable, a user
/// function's result. `LO(1)` or `M%N` is the same at every entry: the loop keeps its
/// approximation by the mean trip count.
fn reads_data(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Elem(v, _) => {
            !v.constant
                && e.subscript_exprs().into_iter().any(|x| {
                    let mut reads = false;
                    x.visit_all(&mut |y| {
                        reads |= matches!(&y.kind, ExprKind::Var(w) if !w.constant)
                    });
                    reads
                })
        }
        ExprKind::Call(CallTarget::User(_), _) => true,
        _ => false,
    }
}

/// The scalars that statements inside loop `root` of `unit` assign from values the
/// program's data holds (`K0 = ROWPTR(I)`, `KK = KK + IDX(J)`): where such a scalar
/// starts a loop, the loop starts where the data says ([`start_reads_data`]).
pub fn data_scalars_inside(unit: &Unit, root: LoopId) -> std::collections::HashSet<String> {
    let any_data = |e: &Expr| {
        let mut found = false;
        e.visit_all(&mut |x| found |= reads_data(x));
        found
    };
    unit.blocks
        .iter()
        .filter(|b| unit.loop_within(b.in_loop, root))
        .flat_map(|b| b.stmts.iter())
        .filter_map(|&s| match &unit.stmts.get(s as usize)?.kind {
            StmtKind::Assign { lhs, rhs } if any_data(rhs) => var_name(lhs).map(str::to_string),
            _ => None,
        })
        .collect()
}

/// Calls `f` on every variable and array element in `e`, outermost first
/// (subscripts and arguments included).
pub fn visit_refs<'e>(e: &'e Expr, f: &mut impl FnMut(&'e Expr)) {
    match &e.kind {
        ExprKind::Var(_) => f(e),
        ExprKind::Elem(_, subs) => {
            f(e);
            for s in subs {
                match s {
                    Subscript::Index(x) => visit_refs(x, f),
                    Subscript::Range(a, b, c) => {
                        for x in [a, b, c].into_iter().flatten() {
                            visit_refs(x, f);
                        }
                    }
                }
            }
        }
        ExprKind::Unary(_, a) | ExprKind::Substring(a) | ExprKind::Component(a, _) => {
            visit_refs(a, f)
        }
        ExprKind::Binary(_, a, b) => {
            visit_refs(a, f);
            visit_refs(b, f);
        }
        ExprKind::Call(_, args) | ExprKind::ArrayCtor(args) | ExprKind::ImpliedDo(args, _) => {
            for a in args {
                visit_refs(a, f);
            }
        }
        _ => {}
    }
}

/// Every array (not a named constant) named in `e`.
pub fn arrays_in(e: &Expr, out: &mut Vec<VarRef>) {
    visit_refs(e, &mut |x| match &x.kind {
        ExprKind::Var(v) if v.rank > 0 && !v.constant => out.push(v.clone()),
        ExprKind::Elem(v, _) if !v.constant => out.push(v.clone()),
        _ => {}
    });
}

fn remap(nodes: &mut [Node], new_id: &[u32]) {
    for n in nodes {
        match n {
            Node::Ref(r) => r.array = new_id[r.array as usize],
            Node::Loop(l) => remap(&mut l.body, new_id),
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Num(i64),
    Name(String),
    Op(char),
}

fn tokenize(s: &str) -> Option<Vec<Tok>> {
    let mut out = Vec::new();
    let cs: Vec<char> = s.chars().collect();
    let mut i = 0;
    while i < cs.len() {
        let c = cs[i];
        if c.is_whitespace() {
            i += 1;
        } else if c.is_ascii_digit() {
            let st = i;
            while i < cs.len() && cs[i].is_ascii_digit() {
                i += 1;
            }
            // Kind suffix `_8`.
            let v = cs[st..i].iter().collect::<String>().parse().ok()?;
            if i < cs.len() && cs[i] == '_' {
                i += 1;
                while i < cs.len() && cs[i].is_ascii_alphanumeric() {
                    i += 1;
                }
            }
            out.push(Tok::Num(v));
        } else if c.is_ascii_alphabetic() || c == '_' {
            let st = i;
            while i < cs.len() && (cs[i].is_ascii_alphanumeric() || cs[i] == '_') {
                i += 1;
            }
            out.push(Tok::Name(cs[st..i].iter().collect()));
        } else if "+-*/()".contains(c) {
            out.push(Tok::Op(c));
            i += 1;
        } else {
            return None;
        }
    }
    Some(out)
}

struct TextParser<'a, 'b> {
    toks: &'a [Tok],
    pos: usize,
    cx: &'a Cx<'b>,
}

impl TextParser<'_, '_> {
    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.pos)
    }

    fn sum(&mut self) -> Result<i64, String> {
        let mut v = self.product()?;
        while let Some(Tok::Op(c @ ('+' | '-'))) = self.peek().cloned() {
            self.pos += 1;
            let r = self.product()?;
            v = if c == '+' { v + r } else { v - r };
        }
        Ok(v)
    }

    fn product(&mut self) -> Result<i64, String> {
        let mut v = self.atom()?;
        while let Some(Tok::Op(c @ ('*' | '/'))) = self.peek().cloned() {
            self.pos += 1;
            let r = self.atom()?;
            v = if c == '*' {
                v * r
            } else if r != 0 {
                v / r
            } else {
                return Err("division by zero in a bound".into());
            };
        }
        Ok(v)
    }

    fn atom(&mut self) -> Result<i64, String> {
        let t = self.peek().cloned();
        self.pos += 1;
        match t {
            Some(Tok::Num(v)) => Ok(v),
            Some(Tok::Name(n)) => self
                .cx
                .value_of(&n)
                .ok_or_else(|| format!("the value of `{}` is not known", n.to_lowercase())),
            Some(Tok::Op('-')) => Ok(-self.atom()?),
            Some(Tok::Op('+')) => self.atom(),
            Some(Tok::Op('(')) => {
                let v = self.sum()?;
                if self.peek() == Some(&Tok::Op(')')) {
                    self.pos += 1;
                    Ok(v)
                } else {
                    Err("unbalanced parentheses in a bound".into())
                }
            }
            _ => Err("cannot read a bound".into()),
        }
    }
}
