//! Lowering of program units: declarations into symbol tables, executable
//! statements into basic blocks with static AbOp counts.

use crate::scope::{declarator_name, parse_dims, parse_intrinsic_type, Globals, Scope};
use crate::syntax::{
    child_of_kind, children, field, kind_of, label_value, named_children, squeeze_lower, text,
};
use augur_ir::count::{count_stmt, loop_iteration, loop_setup, StmtCounts};
use augur_ir::{
    AbOp, Block, BlockId, BlockKind, Coverage, Diagnostic, Expr, Loop, LoopBounds, LoopId,
    LoopKind, Pos, Span, Stmt, StmtKind, Storage, Symbol, TextPos, Type, Unit, UnitKind,
};
use augur_source::LoadedSource;
use std::collections::{HashMap, HashSet};
use tree_sitter::Node;

/// A loop being lowered: where CYCLE and EXIT go.
struct LoopCtx {
    id: LoopId,
    header: BlockId,
    after: BlockId,
    name: Option<String>,
}

/// Lowers the units of one parsed file.
pub struct Lowerer<'a> {
    /// The parsed text (a chunk of the loaded source).
    pub src: &'a str,
    /// 0-based line of the loaded source where `src` starts.
    line_offset: usize,
    /// Index of the source file among the front end's inputs.
    pub source_index: u32,
    loaded: &'a LoadedSource,
    /// Program-wide knowledge (functions, modules, derived types).
    pub globals: &'a Globals,
    /// Symbols of the unit being lowered.
    pub scope: Scope,
    /// Names declared INTRINSIC in the unit.
    pub intrinsic_declared: HashSet<String>,
    /// User procedures referenced as functions.
    pub called: Vec<String>,
    /// The unit's statement functions by lower-case name: their dummy arguments' names
    /// and their defining expression, expanded in place at every reference (compilers
    /// always inline them).
    pub statement_functions: HashMap<String, (Vec<String>, Expr)>,
    unit: Unit,
    cur: Option<BlockId>,
    loops: Vec<LoopCtx>,
    labels: HashMap<u32, BlockId>,
    targets: HashSet<u32>,
    pending_gotos: Vec<(BlockId, u32)>,
    /// `DO WHILE` loops of the unit whose condition keeps a variable non-negative
    /// (`augur_ir::ranges::while_guard`).
    /// Keyed by the DO statement's span (loop ids change when GOTO loops are added).
    while_guards: Vec<(Span, String)>,
    pending_label: Option<u32>,
    in_spec: bool,
    warned: HashSet<String>,
    /// Start of the statement being lowered (where its diagnostics point).
    stmt_pos: Option<Pos>,
    /// Problems found.
    pub diags: Vec<Diagnostic>,
    /// Statements seen and lowered.
    pub coverage: Coverage,
    /// Finished units (the unit itself and its internal procedures).
    pub units: Vec<Unit>,
    /// Derived type of each variable of the last module lowered.
    pub module_derived: HashMap<String, String>,
}

impl<'a> Lowerer<'a> {
    /// A lowerer for `src`, a part of `loaded.text` starting at 0-based line `line_offset`.
    pub fn new(
        loaded: &'a LoadedSource,
        src: &'a str,
        line_offset: usize,
        globals: &'a Globals,
    ) -> Lowerer<'a> {
        Lowerer {
            src,
            line_offset,
            source_index: 0,
            loaded,
            globals,
            scope: Scope::default(),
            intrinsic_declared: HashSet::new(),
            called: vec![],
            statement_functions: HashMap::new(),
            unit: empty_unit(),
            cur: None,
            loops: vec![],
            labels: HashMap::new(),
            targets: HashSet::new(),
            pending_gotos: vec![],
            while_guards: vec![],
            pending_label: None,
            in_spec: true,
            warned: HashSet::new(),
            stmt_pos: None,
            diags: vec![],
            coverage: Coverage::default(),
            units: vec![],
            module_derived: HashMap::new(),
        }
    }

    /// Original position of a node's start.
    pub fn pos(&self, node: Node<'_>) -> Pos {
        let p = node.start_position();
        let start = node.start_byte();
        let col_chars = self
            .src
            .get(start.saturating_sub(p.column)..start)
            .map(|s| s.chars().count())
            .unwrap_or(p.column);
        self.loaded.origin(p.row + self.line_offset, col_chars)
    }

    /// Original span of a node.
    pub fn span(&self, node: Node<'_>) -> Span {
        let start = self.pos(node);
        let end = node.end_position();
        let row = if end.column == 0 && end.row > node.start_position().row {
            end.row - 1
        } else {
            end.row
        };
        let end_origin = self.loaded.origin(row + self.line_offset, 0);
        let end_line = if end_origin.file == start.file {
            end_origin.line.max(start.line)
        } else {
            start.line
        };
        Span { start, end_line }
    }

    /// Reports a name used but never declared under IMPLICIT NONE (once per unit).
    pub fn undeclared(&mut self, name: &str) {
        if self.warned.insert(format!("undeclared:{name}")) {
            let pos = Some(self.stmt_pos.unwrap_or(self.unit.span.start));
            self.diags.push(
                Diagnostic::warning(
                    pos,
                    format!(
                        "`{name}` has no type in unit `{}` (IMPLICIT NONE and no declaration); its operations are not counted",
                        self.unit.name
                    ),
                )
                .with_hint(format!(
                    "declare it, or if it is a preprocessor macro define it with -D {}=VALUE",
                    name.to_ascii_uppercase()
                )),
            );
        }
    }

    /// In a preprocessed file, an upper-case name in a loop bound that was never
    /// declared is most likely a preprocessor macro nobody defined.
    fn check_macro_names(&mut self, node: Node<'_>) {
        if !self.loaded.preprocessed {
            return;
        }
        let mut stack = vec![node];
        while let Some(n) = stack.pop() {
            if kind_of(n) == "identifier" {
                let t = text(n, self.src).trim();
                let name = t.to_ascii_lowercase();
                let suspicious = t.len() > 1
                    && t.bytes()
                        .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_')
                    && self.scope.symbols.get(&name).is_some_and(|s| {
                        s.implicit
                            && matches!(s.storage, Storage::Local)
                            && !s.procedure
                            && s.ty.base != augur_ir::BaseType::Unknown
                    });
                if suspicious && self.warned.insert(format!("macro:{name}")) {
                    let pos = Some(self.pos(n));
                    self.diags.push(
                        Diagnostic::warning(
                            pos,
                            format!("`{t}` in this loop bound is not declared anywhere; it looks like an undefined preprocessor macro"),
                        )
                        .with_hint(format!("define it with -D {t}=VALUE (the loop is analyzed with `{t}` as an unset variable)")),
                    );
                }
            }
            let mut c = n.walk();
            stack.extend(n.named_children(&mut c));
        }
    }

    /// Reports an expression form the lowering does not know.
    pub fn unsupported_expr(&mut self, node: Node<'_>) {
        if node.is_error() || kind_of(node) == "ERROR" {
            return; // reported by the syntax-error pass
        }
        if self.warned.insert(format!("expr:{}", kind_of(node))) {
            let pos = Some(self.pos(node));
            self.diags.push(Diagnostic::warning(
                pos,
                format!(
                    "expression of kind `{}` is not understood; it is counted as free",
                    kind_of(node)
                ),
            ));
        }
    }

    // ----- blocks -------------------------------------------------------------------

    fn new_block(&mut self, kind: BlockKind, span: Span) -> BlockId {
        let id = BlockId(self.unit.blocks.len() as u32);
        self.unit.blocks.push(Block {
            id,
            kind,
            span,
            stmts: vec![],
            counts: Default::default(),
            in_loop: self.loops.last().map(|l| l.id),
            succs: vec![],
            element_chain: Default::default(),
        });
        id
    }

    fn edge(&mut self, from: BlockId, to: BlockId) {
        let succs = &mut self.unit.blocks[from.0 as usize].succs;
        if !succs.contains(&to) {
            succs.push(to);
        }
    }

    /// Starts a new straight block reached by falling through from the current one.
    fn begin_block(&mut self, span: Span) -> BlockId {
        let b = self.new_block(BlockKind::Straight, span);
        if let Some(c) = self.cur {
            self.edge(c, b);
        }
        self.cur = Some(b);
        b
    }

    /// The block receiving the next statement. A statement from another file than
    /// the current block's (an INCLUDE boundary) starts a new block, so that every
    /// block's span lies in one file.
    fn current(&mut self, span: Span) -> BlockId {
        match self.cur {
            Some(b) => {
                let blk = &self.unit.blocks[b.0 as usize];
                if !blk.stmts.is_empty() && blk.span.start.file != span.start.file {
                    self.begin_block(span)
                } else {
                    b
                }
            }
            None => self.begin_block(span),
        }
    }

    fn block_mut(&mut self, b: BlockId) -> &mut Block {
        &mut self.unit.blocks[b.0 as usize]
    }

    /// Appends a statement to block `b` with its counts; array element groups get their own blocks.
    fn attach(&mut self, b: BlockId, idx: u32, counts: StmtCounts) {
        let span = self.unit.stmts[idx as usize].span;
        {
            let blk = self.block_mut(b);
            if blk.stmts.is_empty() {
                blk.span = span;
            } else if span.start.file == blk.span.start.file {
                blk.span.end_line = blk.span.end_line.max(span.end_line);
            }
            blk.stmts.push(idx);
            blk.counts.add_scaled(&counts.once, 1.0);
        }
        for g in counts.groups {
            let lid = LoopId(self.unit.loops.len() as u32);
            let eb = self.new_block(BlockKind::Elements, span);
            self.block_mut(eb).stmts.push(idx);
            self.block_mut(eb).counts = g.counts;
            self.block_mut(eb).element_chain = g.chain;
            self.block_mut(eb).in_loop = Some(lid);
            self.edge(b, eb);
            self.edge(eb, b);
            let parent = self.loops.last().map(|l| l.id);
            let depth = self.depth() + 1;
            self.unit.loops.push(Loop {
                id: lid,
                kind: LoopKind::ArrayElements,
                span,
                parent,
                depth,
                var: None,
                bounds: None,
                unit_step: true,
                elements: Some(g.elements),
                entry_block: b,
                header_block: eb,
                body_block: eb,
                after_block: b,
                end_text: TextPos::default(),
                label: None,
                back_edges: vec![],
            });
        }
    }

    fn depth(&self) -> u32 {
        self.loops
            .last()
            .map(|l| self.unit.loops[l.id.0 as usize].depth)
            .unwrap_or(0)
    }

    fn push_stmt(&mut self, node: Node<'_>, kind: StmtKind) -> u32 {
        let span = self.span(node);
        let text = self.text_pos(node, None);
        self.push_stmt_spanned(span, text, kind)
    }

    /// Position of a statement in the parsed text: from `node`'s start to the end of
    /// `upto` (a construct's header part) or of `node` itself.
    pub fn text_pos(&self, node: Node<'_>, upto: Option<Node<'_>>) -> TextPos {
        let start = node.start_position();
        let last = upto.unwrap_or(node);
        let mut end = last.end_position();
        if end.column == 0 && end.row > start.row {
            // The node ends with its newline: its last line is the one before.
            end.row -= 1;
            let line_start = last.end_byte().saturating_sub(1);
            let prev = self.src[..line_start]
                .rfind('\n')
                .map(|p| p + 1)
                .unwrap_or(0);
            end.column = line_start - prev;
        }
        TextPos {
            line: (start.row + self.line_offset) as u32,
            col: start.column as u32,
            end_line: (end.row + self.line_offset) as u32,
            end_col: end.column as u32,
        }
    }

    fn push_stmt_spanned(&mut self, span: Span, text: TextPos, kind: StmtKind) -> u32 {
        let label = self.pending_label.take();
        self.unit.stmts.push(Stmt {
            span,
            text,
            label,
            kind,
        });
        (self.unit.stmts.len() - 1) as u32
    }

    /// The span of a construct's opening statement: from the construct's start to the
    /// last line of `upto` (its condition or header), not to its END statement.
    fn header_span(&self, node: Node<'_>, upto: Option<Node<'_>>) -> Span {
        let mut span = self.span(node);
        span.end_line = match upto.map(|u| self.span(u)) {
            Some(u) if u.start.file == span.start.file => u.end_line.max(span.start.line),
            _ => span.start.line,
        };
        span
    }

    /// Adds an executable statement to the current block, counting its AbOps.
    fn simple(&mut self, node: Node<'_>, kind: StmtKind) -> u32 {
        let span = self.span(node);
        let text = self.text_pos(node, None);
        self.simple_spanned(span, text, kind)
    }

    /// [`Lowerer::simple`] with an explicit span (for a construct's opening statement).
    fn simple_spanned(&mut self, span: Span, text: TextPos, kind: StmtKind) -> u32 {
        let counts = count_stmt(&kind);
        let idx = self.push_stmt_spanned(span, text, kind);
        let b = self.current(span);
        self.attach(b, idx, counts);
        idx
    }

    fn goto_label(&mut self, from: BlockId, label: u32) {
        self.pending_gotos.push((from, label));
    }

    // ----- units --------------------------------------------------------------------

    /// Lowers a top-level unit node (program, subroutine, function, module, block data).
    pub fn lower_unit(&mut self, node: Node<'_>, host: Option<(usize, &Scope)>, unit_base: usize) {
        let kind = match kind_of(node) {
            "program" => UnitKind::Program,
            "subroutine" => UnitKind::Subroutine,
            "function" => UnitKind::Function,
            "module" | "submodule" => UnitKind::Module,
            "block_data" => UnitKind::BlockData,
            _ => return,
        };
        let kids = named_children(node);
        let header = kids
            .first()
            .copied()
            .filter(|k| kind_of(k).ends_with("_statement"));
        let name = header
            .and_then(|h| field(h, "name").or_else(|| child_of_kind(h, "name")))
            .map(|n| text(n, self.src).trim().to_ascii_lowercase())
            .unwrap_or_else(|| match kind {
                UnitKind::Program => "main".into(),
                UnitKind::BlockData => "block_data".into(),
                _ => "unnamed".into(),
            });
        let span = self.span(node);
        // Fresh state for this unit.
        let saved_scope = std::mem::replace(
            &mut self.scope,
            host.map(|(_, s)| {
                let mut s = s.clone();
                s.own.clear();
                s
            })
            .unwrap_or_default(),
        );
        self.unit = Unit {
            name: name.clone(),
            kind,
            span,
            host: host.map(|(h, _)| h),
            source: self.source_index,
            header_text: header.map(|h| self.text_pos(h, None)).unwrap_or_default(),
            uses: vec![],
            dummies: vec![],
            symbols: vec![],
            stmts: vec![],
            blocks: vec![],
            loops: vec![],
        };
        self.cur = None;
        self.loops.clear();
        self.labels.clear();
        self.pending_gotos.clear();
        self.pending_label = None;
        self.in_spec = true;
        self.intrinsic_declared.clear();
        self.statement_functions.clear();
        self.warned.retain(|w| !w.starts_with("undeclared:"));
        self.targets = branch_targets(node, self.src);

        let entry = self.new_block(BlockKind::Entry, span);
        self.cur = Some(entry);

        if let Some(h) = header {
            self.unit_header(h, kind, &name);
        }
        let mut internal = None;
        for k in kids.iter().skip(usize::from(header.is_some())) {
            match kind_of(k) {
                "internal_procedures" => internal = Some(*k),
                _ => self.statement(*k),
            }
        }
        self.finish_unit();
        if kind == UnitKind::Module {
            // Module variables are global, in the module's own procedures too.
            for sym in self.scope.symbols.values_mut() {
                if sym.storage == Storage::Local && !sym.procedure {
                    sym.storage = Storage::Module(name.clone());
                }
            }
        }
        let unit_scope = self.scope.clone();
        if kind == UnitKind::Module {
            self.module_derived = unit_scope.derived.clone();
        }
        let mut unit = std::mem::replace(&mut self.unit, empty_unit());
        unit.symbols = {
            let mut v: Vec<Symbol> = unit_scope.symbols.values().cloned().collect();
            v.sort_by(|a, b| a.name.cmp(&b.name));
            v
        };
        let my_index = unit_base + self.units.len();
        self.units.push(unit);
        if let Some(ip) = internal {
            for p in named_children(ip) {
                if matches!(kind_of(p), "subroutine" | "function" | "module_procedure") {
                    self.lower_unit(p, Some((my_index, &unit_scope)), unit_base);
                }
            }
        }
        self.scope = saved_scope;
    }

    fn unit_header(&mut self, h: Node<'_>, kind: UnitKind, name: &str) {
        if let Some(params) = field(h, "parameters").filter(|p| kind_of(p) == "parameters") {
            for p in named_children(params) {
                let n = text(p, self.src).trim().to_ascii_lowercase();
                if n == "*" || n.is_empty() {
                    continue;
                }
                self.scope.declare(&n).storage = Storage::Dummy;
                self.unit.dummies.push(n);
            }
        }
        if kind == UnitKind::Function {
            let result = child_of_kind(h, "function_result")
                .and_then(|r| child_of_kind(r, "identifier"))
                .map(|i| text(i, self.src).trim().to_ascii_lowercase())
                .unwrap_or_else(|| name.to_string());
            let ty = field(h, "type")
                .filter(|t| kind_of(t) == "intrinsic_type")
                .map(|t| parse_intrinsic_type(t, self.src, &self.scope));
            let sym = self.scope.declare(&result);
            if let Some(ty) = ty {
                sym.ty = ty;
                sym.implicit = false;
            }
        }
        self.coverage.statements += 1;
        self.coverage.lowered += 1;
    }

    fn finish_unit(&mut self) {
        self.resolve_gotos();
        self.renumber_blocks();
        augur_ir::goto_loops::add_goto_loops(&mut self.unit);
        let guards: Vec<(LoopId, String)> = std::mem::take(&mut self.while_guards)
            .into_iter()
            .filter_map(|(span, v)| {
                let l = self
                    .unit
                    .loops
                    .iter()
                    .find(|l| l.span == span && l.kind == LoopKind::While)?;
                Some((l.id, v))
            })
            .collect();
        augur_ir::ranges::non_negative_shifts(&mut self.unit, &guards);
    }

    /// Renumbers blocks in source order (blocks after a construct are created
    /// before its body), keeping creation order among blocks of the same line.
    fn renumber_blocks(&mut self) {
        let blocks = &self.unit.blocks;
        let mut order: Vec<usize> = (0..blocks.len()).collect();
        order.sort_by_key(|&i| {
            (
                blocks[i].span.start.file != blocks[0].span.start.file,
                i != 0,
                blocks[i].span.start.line,
                i,
            )
        });
        let mut new_id = vec![0u32; blocks.len()];
        for (new, &old) in order.iter().enumerate() {
            new_id[old] = new as u32;
        }
        let mut old_blocks = std::mem::take(&mut self.unit.blocks);
        for b in old_blocks.iter_mut() {
            b.id = BlockId(new_id[b.id.0 as usize]);
            for s in b.succs.iter_mut() {
                *s = BlockId(new_id[s.0 as usize]);
            }
        }
        let mut slots: Vec<Option<Block>> = old_blocks.into_iter().map(Some).collect();
        self.unit.blocks = order
            .iter()
            .map(|&old| slots[old].take().expect("each block placed once"))
            .collect();
        for l in self.unit.loops.iter_mut() {
            l.entry_block = BlockId(new_id[l.entry_block.0 as usize]);
            l.header_block = BlockId(new_id[l.header_block.0 as usize]);
            l.body_block = BlockId(new_id[l.body_block.0 as usize]);
            l.after_block = BlockId(new_id[l.after_block.0 as usize]);
        }
    }

    fn resolve_gotos(&mut self) {
        for (from, label) in std::mem::take(&mut self.pending_gotos) {
            match self.labels.get(&label) {
                Some(&to) => self.edge(from, to),
                None => {
                    let pos = self.unit.blocks[from.0 as usize].span.start;
                    self.diags.push(
                        Diagnostic::warning(
                            Some(pos),
                            format!(
                                "branch to label {label}, which is not defined in unit `{}`",
                                self.unit.name
                            ),
                        )
                        .with_hint(
                            "check the label; control flow after this branch is approximate",
                        ),
                    );
                }
            }
        }
    }

    // ----- statements ---------------------------------------------------------------

    /// Lowers one statement-level node.
    pub fn statement(&mut self, node: Node<'_>) {
        let kind = kind_of(node);
        if kind != "comment" {
            self.stmt_pos = Some(self.pos(node));
        }
        match kind {
            "comment" => return self.comment(node),
            "statement_label" => {
                if let Some(l) = label_value(node, self.src) {
                    let pos = self.pos(node);
                    self.define_label(l, pos);
                }
                return;
            }
            "end_program_statement"
            | "end_subroutine_statement"
            | "end_function_statement"
            | "end_module_statement"
            | "end_block_data_statement"
            | "end_submodule_statement"
            | "contains_statement"
            | "program_statement"
            | "subroutine_statement"
            | "function_statement"
            | "module_statement"
            | "block_data_statement" => return,
            _ => {}
        }
        if kind == "ERROR" || node.is_error() {
            // Reported by the syntax-error pass; its lines count as statements not lowered.
            self.coverage.statements += crate::code_lines(node, self.src);
            return;
        }
        self.coverage.statements += 1;
        let understood = self.statement_inner(node);
        if understood && !node.has_error() {
            self.coverage.lowered += 1;
        } else if !understood {
            let pos = Some(self.pos(node));
            self.diags.push(
                Diagnostic::warning(
                    pos,
                    format!("statement of kind `{kind}` is not understood and was skipped"),
                )
                .with_hint("please report it; the rest of the unit is still analyzed"),
            );
        }
    }

    /// A statement label: the next statement carries it, and a branch target starts a block.
    fn define_label(&mut self, label: u32, pos: Pos) {
        self.pending_label = Some(label);
        if self.targets.contains(&label) {
            let b = self.begin_block(Span::at(pos));
            self.labels.insert(label, b);
        }
    }

    /// Returns false for statements the lowering does not know.
    fn statement_inner(&mut self, node: Node<'_>) -> bool {
        let src = self.src;
        match kind_of(node) {
            // ---- specification part ----
            "implicit_statement" => self.scope.apply_implicit(node, src),
            "variable_declaration" => self.declaration(node),
            "variable_modification" => self.modification(node),
            "common_statement" => self.common(node),
            "parameter_statement" => {
                for pa in named_children(node) {
                    if kind_of(pa) == "parameter_assignment" {
                        let kids = named_children(pa);
                        if let (Some(n), Some(v)) = (kids.first(), kids.get(1)) {
                            let name = text(*n, src).trim().to_ascii_lowercase();
                            self.define_parameter(&name, *v);
                        }
                    }
                }
            }
            "use_statement" => self.use_module(node),
            "derived_type_definition" => {}
            "interface"
            | "import_statement"
            | "data_statement"
            | "equivalence_statement"
            | "namelist_statement"
            | "save_statement"
            | "private_statement"
            | "public_statement"
            | "format_statement"
            | "entry_statement"
            | "generic_statement"
            | "procedure_statement"
            | "bind_statement"
            | "cray_pointer_declaration"
            | "enum"
            | "enumeration_type"
            | "sequence_statement"
            | "include_statement" => {
                if kind_of(node) == "include_statement" {
                    let pos = Some(self.pos(node));
                    self.diags.push(
                        Diagnostic::warning(
                            pos,
                            "INCLUDE line was not resolved; its contents are not analyzed",
                        )
                        .with_hint("add the include directory with -I DIR"),
                    );
                }
                if kind_of(node) == "entry_statement" {
                    // A second entry point: control may arrive here from outside.
                    let span = self.span(node);
                    self.cur = None;
                    self.begin_block(span);
                }
                self.push_stmt(node, StmtKind::NonExecutable);
            }
            "preproc_def"
            | "preproc_call"
            | "preproc_if"
            | "preproc_ifdef"
            | "preproc_include"
            | "preproc_function_def" => {
                if self.warned.insert("preproc".into()) {
                    let pos = Some(self.pos(node));
                    self.diags.push(
                        Diagnostic::warning(pos, "preprocessor directive in a file that was not preprocessed")
                            .with_hint("run with --cpp (and -D/-I options), or use an upper-case extension such as .F90"),
                    );
                }
                // Lower what the directive encloses so that both branches are seen.
                for c in named_children(node) {
                    if is_statement_like(kind_of(c)) {
                        self.statement(c);
                    }
                }
            }
            // ---- executable part ----
            "assignment_statement" | "pointer_association_statement" => self.assignment(node),
            "subroutine_call" => {
                self.leave_spec();
                let name = field(node, "subroutine")
                    .map(|s| text(s, src).trim().to_ascii_lowercase())
                    .unwrap_or_default();
                let args: Vec<Expr> = child_of_kind(node, "argument_list")
                    .map(|a| {
                        named_children(a)
                            .into_iter()
                            .filter(|c| kind_of(c) != "comment")
                            .map(|c| self.expr(c))
                            .collect()
                    })
                    .unwrap_or_default();
                self.simple(node, StmtKind::Call { name, args });
            }
            "if_statement" => self.if_statement(node),
            "arithmetic_if_statement" => {
                self.leave_spec();
                let expr = child_of_kind(node, "parenthesized_expression")
                    .map(|e| self.expr(e))
                    .unwrap_or_else(|| Expr::constant(Type::INTEGER, "0", Some(0)));
                let labels = label_refs(node, src);
                self.simple(
                    node,
                    StmtKind::ArithmeticIf {
                        expr,
                        labels: labels.clone(),
                    },
                );
                let b = self.cur.expect("simple() opened a block");
                for l in labels {
                    self.goto_label(b, l);
                }
                self.cur = None;
            }
            "keyword_statement" => return self.keyword_statement(node),
            "assign_statement" => {
                self.leave_spec();
                let label = named_children(node)
                    .first()
                    .and_then(|l| text(*l, src).trim().parse().ok())
                    .unwrap_or(0);
                self.simple(node, StmtKind::AssignLabel { label });
            }
            "stop_statement" => {
                self.leave_spec();
                self.simple(node, StmtKind::Stop);
                self.cur = None;
            }
            "do_loop" => self.do_loop(node, None),
            "select_case_statement" => self.select_case(node),
            "where_statement" => self.where_statement(node),
            "forall_statement" => self.forall(node),
            "block_construct" | "associate_statement" => {
                self.leave_spec();
                for c in named_children(node) {
                    if is_statement_like(kind_of(c)) {
                        self.statement(c);
                    }
                }
            }
            "read_statement"
            | "write_statement"
            | "print_statement"
            | "open_statement"
            | "close_statement"
            | "inquire_statement"
            | "file_position_statement" => {
                self.leave_spec();
                let keyword = squeeze_lower(
                    text(node, src)
                        .split(|c: char| !c.is_ascii_alphabetic())
                        .next()
                        .unwrap_or(""),
                );
                let mut items = vec![];
                for list in ["input_item_list", "output_item_list"] {
                    if let Some(l) = child_of_kind(node, list) {
                        for it in named_children(l) {
                            if kind_of(it) != "comment" {
                                items.push(self.expr(it));
                            }
                        }
                    }
                }
                let unformatted = is_unformatted(&keyword, text(node, src));
                self.simple(
                    node,
                    StmtKind::Io {
                        keyword,
                        items,
                        unformatted,
                    },
                );
            }
            "allocate_statement" | "deallocate_statement" | "nullify_statement" => {
                self.leave_spec();
                let objects = named_children(node)
                    .iter()
                    .filter(|c| {
                        kind_of(c) != "keyword_argument"
                            && kind_of(c) != "comment"
                            && kind_of(c) != "intrinsic_type"
                    })
                    .count() as u32;
                let deallocate = kind_of(node) != "allocate_statement";
                if kind_of(node) == "nullify_statement" {
                    self.simple(node, StmtKind::Continue);
                } else {
                    self.simple(
                        node,
                        StmtKind::Allocate {
                            objects,
                            deallocate,
                        },
                    );
                }
            }
            _ => return false,
        }
        true
    }

    fn leave_spec(&mut self) {
        self.in_spec = false;
    }

    fn comment(&mut self, node: Node<'_>) {
        let t = text(node, self.src).trim();
        let lower = t.to_ascii_lowercase();
        let sentinel = ["!$omp", "!hpf$", "!$acc", "!dir$", "!$"]
            .into_iter()
            .find(|s| lower.starts_with(s) && (*s != "!$" || lower[2..].starts_with(' ')));
        if let Some(s) = sentinel {
            let kind = StmtKind::Directive {
                sentinel: s[1..].to_ascii_uppercase(),
                text: t[s.len()..].trim().to_string(),
            };
            self.push_stmt(node, kind);
            return;
        }
        let words: Vec<&str> = lower.trim_start_matches('!').split_whitespace().collect();
        if words.first() == Some(&"augur") {
            let name = match words.get(1..) {
                Some(["region", name, ..]) => Some(Some(name.to_string())),
                Some(["end", "region", ..]) => Some(None),
                _ => None,
            };
            match name {
                Some(name) => {
                    // A region boundary starts a new block so regions hold whole blocks.
                    let span = self.span(node);
                    if self.cur.is_some() {
                        self.begin_block(span);
                    }
                    let original = t
                        .trim_start_matches('!')
                        .split_whitespace()
                        .nth(2)
                        .map(str::to_string);
                    let name = name.map(|_| original.unwrap_or_default());
                    self.push_stmt(node, StmtKind::RegionMarker { name });
                }
                None => {
                    let pos = Some(self.pos(node));
                    self.diags.push(
                        Diagnostic::warning(pos, "unknown augur directive")
                            .with_hint("use `!augur region NAME` and `!augur end region`"),
                    );
                }
            }
        }
    }

    // ----- declarations -------------------------------------------------------------

    fn declaration(&mut self, node: Node<'_>) {
        let src = self.src;
        let type_node = field(node, "type");
        let (ty, derived) = match type_node {
            Some(t) if kind_of(t) == "intrinsic_type" => {
                (parse_intrinsic_type(t, src, &self.scope), None)
            }
            Some(t) if kind_of(t) == "derived_type" || kind_of(t) == "declared_type" => {
                let name =
                    child_of_kind(t, "type_name").map(|n| text(n, src).trim().to_ascii_lowercase());
                (Type::DERIVED, name)
            }
            _ => (Type::UNKNOWN, None),
        };
        let mut is_param = false;
        let mut common_dims = None;
        let mut external = false;
        let mut cursor = node.walk();
        for a in node.children_by_field_name("attribute", &mut cursor) {
            let at = squeeze_lower(text(a, src));
            if at == "parameter" {
                is_param = true;
            } else if at.starts_with("dimension") {
                common_dims =
                    child_of_kind(a, "argument_list").or_else(|| child_of_kind(a, "size"));
            } else if at == "external" {
                external = true;
            } else if at == "intrinsic" {
                external = false;
            }
        }
        let mut cursor = node.walk();
        let decls: Vec<Node<'_>> = node
            .children_by_field_name("declarator", &mut cursor)
            .collect();
        for d in decls {
            let Some((name, size, init)) = declarator_name(d, src) else {
                continue;
            };
            let dims = size
                .or(common_dims)
                .map(|s| parse_dims(s, src, &self.scope))
                .filter(|d| !d.is_empty());
            {
                let sym = self.scope.declare(&name);
                if ty.base != augur_ir::BaseType::Unknown {
                    sym.ty = ty;
                    sym.implicit = false;
                }
                if let Some(dims) = dims {
                    sym.dims = dims;
                }
                if external {
                    sym.procedure = true;
                }
            }
            if let Some(dn) = &derived {
                self.scope.derived.insert(name.clone(), dn.clone());
            }
            if is_param {
                if let Some(v) = init {
                    self.define_parameter(&name, v);
                }
            }
        }
    }

    fn define_parameter(&mut self, name: &str, value: Node<'_>) {
        let e = self.expr(value);
        let v = e
            .int_value()
            .or_else(|| crate::scope::kind_function_value(&squeeze_lower(text(value, self.src))));
        // A named constant keeps its declared (or implicit) type whatever its value's type.
        let sym = self.scope.declare(name);
        sym.storage = Storage::Parameter;
        sym.value = v;
    }

    fn modification(&mut self, node: Node<'_>) {
        let src = self.src;
        let qual = child_of_kind(node, "type_qualifier")
            .or_else(|| child_of_kind(node, "variable_attributes"))
            .map(|q| squeeze_lower(text(q, src)))
            .unwrap_or_default();
        let mut cursor = node.walk();
        let decls: Vec<Node<'_>> = node
            .children_by_field_name("declarator", &mut cursor)
            .collect();
        for d in decls {
            let Some((name, size, _)) = declarator_name(d, src) else {
                continue;
            };
            let dims = size.map(|s| parse_dims(s, src, &self.scope));
            let intrinsic = qual.starts_with("intrinsic");
            let sym = self.scope.declare(&name);
            if let Some(dims) = dims.filter(|d| !d.is_empty()) {
                sym.dims = dims;
            }
            if qual.starts_with("external") {
                sym.procedure = true;
            }
            if intrinsic {
                sym.procedure = true;
                self.intrinsic_declared.insert(name);
            }
        }
    }

    fn common(&mut self, node: Node<'_>) {
        let src = self.src;
        for (blk, name, size) in common_members(node, src) {
            let dims = size.map(|s| parse_dims(s, src, &self.scope));
            let sym = self.scope.declare(&name);
            sym.storage = Storage::Common(blk);
            if let Some(d) = dims.filter(|d| !d.is_empty()) {
                sym.dims = d;
            }
        }
    }

    fn use_module(&mut self, node: Node<'_>) {
        let src = self.src;
        let Some(m) = child_of_kind(node, "module_name") else {
            return;
        };
        let name = text(m, src).trim().to_ascii_lowercase();
        if !self.unit.uses.contains(&name) {
            self.unit.uses.push(name.clone());
        }
        match self.globals.modules.get(&name) {
            Some(ms) => {
                for (n, s) in &ms.symbols {
                    if !self.scope.own.contains(n) {
                        self.scope.symbols.insert(n.clone(), s.clone());
                    }
                }
                for (n, t) in &ms.derived {
                    self.scope.derived.insert(n.clone(), t.clone());
                }
            }
            None if name == "iso_fortran_env" || name == "iso_c_binding" => {
                // Their kind constants are named integer constants.
                let only: Option<Vec<String>> =
                    child_of_kind(node, "included_items").map(|items| {
                        named_children(items)
                            .into_iter()
                            .map(|c| squeeze_lower(text(c, src)))
                            .collect()
                    });
                for &k in crate::scope::ISO_KIND_NAMES {
                    let wanted = only.as_ref().map_or(true, |o| {
                        o.iter().any(|i| i == k || i.ends_with(&format!("=>{k}")))
                    });
                    if !wanted || self.scope.own.contains(k) {
                        continue;
                    }
                    let local = only
                        .as_ref()
                        .and_then(|o| o.iter().find_map(|i| i.strip_suffix(&format!("=>{k}"))))
                        .unwrap_or(k)
                        .to_string();
                    self.scope.symbols.insert(
                        local.clone(),
                        Symbol {
                            name: local,
                            ty: Type::INTEGER,
                            implicit: false,
                            dims: vec![],
                            storage: Storage::Parameter,
                            value: crate::scope::kind_function_value(k),
                            procedure: false,
                        },
                    );
                }
            }
            None => {
                if !matches!(
                    name.as_str(),
                    "iso_fortran_env"
                        | "iso_c_binding"
                        | "omp_lib"
                        | "mpi"
                        | "mpi_f08"
                        | "ieee_arithmetic"
                ) && self.warned.insert(format!("module:{name}"))
                {
                    let pos = Some(self.pos(node));
                    self.diags.push(
                        Diagnostic::warning(pos, format!("module `{name}` is not among the analyzed sources; its variables get implicit types"))
                            .with_hint("pass the file that defines the module too"),
                    );
                }
            }
        }
    }

    // ----- executable statements ----------------------------------------------------

    fn assignment(&mut self, node: Node<'_>) {
        let src = self.src;
        let (Some(l), Some(r)) = (
            field(node, "left").or_else(|| node.named_child(0)),
            field(node, "right").or_else(|| node.named_child(1)),
        ) else {
            return;
        };
        // Statement function definition: f(x, y) = expr in the specification part.
        if self.in_spec && kind_of(l) == "call_expression" {
            let fname = field(l, "function")
                .or_else(|| l.named_child(0))
                .filter(|f| kind_of(f) == "identifier")
                .map(|f| text(f, src).trim().to_ascii_lowercase());
            if let Some(f) = fname {
                let is_array = self
                    .scope
                    .symbols
                    .get(&f)
                    .is_some_and(|s| !s.dims.is_empty());
                if !is_array {
                    let dummies: Vec<String> = named_children(l)
                        .into_iter()
                        .filter(|c| kind_of(c) == "argument_list")
                        .flat_map(named_children)
                        .filter(|c| kind_of(c) != "comment")
                        .map(|a| text(a, src).trim().to_ascii_lowercase())
                        .collect();
                    let body = self.expr(r);
                    self.scope.get_or_implicit(&f).procedure = true;
                    self.statement_functions.insert(f, (dummies, body));
                    self.push_stmt(node, StmtKind::NonExecutable);
                    return;
                }
            }
        }
        self.leave_spec();
        let lhs = self.expr(l);
        let rhs = self.expr(r);
        self.simple(node, StmtKind::Assign { lhs, rhs });
    }

    fn keyword_statement(&mut self, node: Node<'_>) -> bool {
        let src = self.src;
        let t = squeeze_lower(text(node, src));
        self.leave_spec();
        let refs = label_refs(node, src);
        if t.starts_with("goto") {
            let exprs: Vec<Node<'_>> = named_children(node)
                .into_iter()
                .filter(|c| kind_of(c) != "statement_label_reference" && kind_of(c) != "comment")
                .collect();
            if exprs.is_empty() && refs.len() == 1 {
                self.simple(node, StmtKind::Goto { label: refs[0] });
                let b = self.cur.expect("simple() opened a block");
                self.goto_label(b, refs[0]);
                self.cur = None;
            } else if t.starts_with("goto(") {
                let expr = exprs
                    .last()
                    .map(|e| self.expr(*e))
                    .unwrap_or_else(|| Expr::constant(Type::INTEGER, "1", Some(1)));
                self.simple(
                    node,
                    StmtKind::ComputedGoto {
                        labels: refs.clone(),
                        expr,
                    },
                );
                let b = self.cur.expect("simple() opened a block");
                for l in refs {
                    self.goto_label(b, l);
                }
                // Out-of-range selectors fall through: the block continues.
                let span = self.span(node);
                self.begin_block(span);
            } else {
                self.simple(
                    node,
                    StmtKind::AssignedGoto {
                        labels: refs.clone(),
                    },
                );
                let b = self.cur.expect("simple() opened a block");
                for l in refs {
                    self.goto_label(b, l);
                }
                self.cur = None;
            }
            return true;
        }
        let word: String = t.chars().take_while(|c| c.is_ascii_alphabetic()).collect();
        match word.as_str() {
            "continue" => {
                self.simple(node, StmtKind::Continue);
            }
            "return" => {
                self.simple(node, StmtKind::Return);
                self.cur = None;
            }
            w if w.starts_with("cycle") || w.starts_with("exit") => {
                let is_cycle = w.starts_with("cycle");
                let construct = named_children(node)
                    .first()
                    .map(|n| text(*n, src).trim().to_ascii_lowercase());
                let target = match &construct {
                    Some(name) => self
                        .loops
                        .iter()
                        .rev()
                        .find(|l| l.name.as_deref() == Some(name)),
                    None => self.loops.last(),
                }
                .map(|l| if is_cycle { l.header } else { l.after });
                self.simple(
                    node,
                    if is_cycle {
                        StmtKind::Cycle
                    } else {
                        StmtKind::Exit
                    },
                );
                let b = self.cur.expect("simple() opened a block");
                match target {
                    Some(t) => self.edge(b, t),
                    None => {
                        let pos = Some(self.pos(node));
                        self.diags
                            .push(Diagnostic::warning(pos, "CYCLE or EXIT outside a loop"));
                    }
                }
                self.cur = None;
            }
            "pause" | "errorstop" | "error" => {
                self.simple(node, StmtKind::Stop);
                self.cur = None;
            }
            "end" => {}
            _ => return false,
        }
        true
    }

    fn if_statement(&mut self, node: Node<'_>) {
        self.leave_spec();
        let kids = named_children(node);
        let is_block = kids.iter().any(|k| kind_of(k) == "end_if_statement")
            || text(node, self.src)
                .lines()
                .next()
                .is_some_and(|l| squeeze_lower(l).trim_end().ends_with("then"));
        let cond_node = kids
            .iter()
            .find(|k| kind_of(k) == "parenthesized_expression")
            .copied();
        let cond = cond_node
            .map(|c| self.expr(c))
            .unwrap_or_else(|| Expr::constant(Type::LOGICAL, ".true.", None));
        if !is_block {
            // Logical IF: predicate and branch, then the guarded statement in its own block.
            let span = self.header_span(node, cond_node);
            let text = self.text_pos(node, cond_node);
            self.simple_spanned(span, text, StmtKind::LogicalIf { cond });
            let test = self.cur.expect("simple() opened a block");
            let body = self.new_block(BlockKind::Straight, span);
            self.edge(test, body);
            self.cur = Some(body);
            for k in kids.iter().filter(|k| Some(**k) != cond_node) {
                if is_statement_like(kind_of(k)) {
                    self.statement(*k);
                    // The guarded statement was counted as a statement of its own; the IF already was.
                }
            }
            let after = self.new_block(BlockKind::Straight, span);
            self.edge(test, after);
            if let Some(c) = self.cur {
                self.edge(c, after);
            }
            self.cur = Some(after);
            return;
        }
        // The IF-THEN statement spans its own lines only, not the whole construct.
        let span = self.header_span(node, cond_node);
        let text = self.text_pos(node, cond_node);
        self.simple_spanned(span, text, StmtKind::If { cond });
        let mut test = self.cur.expect("simple() opened a block");
        let after = self.new_block(BlockKind::Straight, span);
        // Then-part.
        let body = self.new_block(BlockKind::Straight, span);
        self.edge(test, body);
        self.cur = Some(body);
        let mut has_else = false;
        for k in kids.iter().filter(|k| Some(**k) != cond_node) {
            match kind_of(k) {
                "elseif_clause" => {
                    self.close_arm(after);
                    let cn = child_of_kind(*k, "parenthesized_expression");
                    let c = cn
                        .map(|c| self.expr(c))
                        .unwrap_or_else(|| Expr::constant(Type::LOGICAL, ".true.", None));
                    let espan = self.span(*k);
                    let tb = self.new_block(BlockKind::Straight, espan);
                    self.edge(test, tb);
                    self.cur = Some(tb);
                    self.coverage.statements += 1;
                    self.coverage.lowered += 1;
                    let idx = self.push_stmt(*k, StmtKind::If { cond: c.clone() });
                    // Its text is the ELSE IF line(s) up to the condition, not the arm.
                    self.unit.stmts[idx as usize].text = self.text_pos(*k, cn);
                    let counts = count_stmt(&StmtKind::If { cond: c });
                    self.attach(tb, idx, counts);
                    // The ELSE IF's own span is its first line only.
                    let first_line = self.unit.stmts[idx as usize].span.start.line;
                    self.unit.stmts[idx as usize].span.end_line = first_line;
                    self.unit.blocks[tb.0 as usize].span.end_line = first_line;
                    test = tb;
                    let b = self.new_block(BlockKind::Straight, espan);
                    self.edge(tb, b);
                    self.cur = Some(b);
                    for s in named_children(*k) {
                        if Some(s) != cn && is_statement_like(kind_of(s)) {
                            self.statement(s);
                        }
                    }
                }
                "else_clause" => {
                    has_else = true;
                    self.close_arm(after);
                    let espan = self.span(*k);
                    let b = self.new_block(BlockKind::Straight, espan);
                    self.edge(test, b);
                    self.cur = Some(b);
                    self.push_stmt(*k, StmtKind::Else);
                    for s in named_children(*k) {
                        if is_statement_like(kind_of(s)) {
                            self.statement(s);
                        }
                    }
                }
                "end_if_statement" => {}
                other if is_statement_like(other) => self.statement(*k),
                _ => {}
            }
        }
        self.close_arm(after);
        if !has_else {
            self.edge(test, after);
        }
        let end_span = kids
            .iter()
            .find(|k| kind_of(k) == "end_if_statement")
            .map(|e| self.span(*e))
            .unwrap_or(span);
        self.unit.blocks[after.0 as usize].span = end_span;
        self.cur = Some(after);
    }

    fn close_arm(&mut self, after: BlockId) {
        if let Some(c) = self.cur.take() {
            self.edge(c, after);
        }
    }

    /// Lowers a DO construct. `inherited` is the terminal statement of an enclosing
    /// labelled DO that shares this loop's label (F77 `DO 10 I` / `DO 10 J` / `10 CONTINUE`).
    fn do_loop(&mut self, node: Node<'_>, inherited: Option<Node<'_>>) {
        self.leave_spec();
        let src = self.src;
        let kids = named_children(node);
        let Some(do_stmt) = kids.iter().find(|k| kind_of(k) == "do_statement").copied() else {
            return;
        };
        let name = block_name(node, src);
        let span = self.span(do_stmt);
        let label = field(do_stmt, "do_label").and_then(|l| label_value(l, src));
        // Loop control.
        let mut kind = LoopKind::Forever;
        let mut var = None;
        let mut exprs: Vec<Expr> = vec![];
        let mut bounds = None;
        let mut unit_step = true;
        let mut while_cond = None;
        let mut while_guard = None;
        if let Some(lc) = child_of_kind(do_stmt, "loop_control_expression") {
            kind = LoopKind::Counted;
            let parts: Vec<Node<'_>> = named_children(lc)
                .into_iter()
                .filter(|c| kind_of(c) != "comment")
                .collect();
            var = parts
                .first()
                .map(|v| text(*v, src).trim().to_ascii_lowercase());
            exprs = parts.iter().skip(1).map(|p| self.expr(*p)).collect();
            for p in parts.iter().skip(1) {
                self.check_macro_names(*p);
            }
            let texts: Vec<String> = parts
                .iter()
                .skip(1)
                .map(|p| text(*p, src).trim().to_string())
                .collect();
            unit_step = exprs.get(2).map_or(true, |s| s.int_value() == Some(1));
            let constant_trips = match (
                exprs.first().and_then(Expr::int_value),
                exprs.get(1).and_then(Expr::int_value),
            ) {
                (Some(a), Some(b)) => {
                    let s = exprs.get(2).map(|s| s.int_value()).unwrap_or(Some(1));
                    s.filter(|s| *s != 0).map(|s| ((b - a + s) / s).max(0))
                }
                _ => None,
            };
            bounds = Some(LoopBounds {
                start: texts.first().cloned().unwrap_or_default(),
                end: texts.get(1).cloned().unwrap_or_default(),
                step: texts.get(2).cloned(),
                constant_trips,
            });
        } else if let Some(w) = child_of_kind(do_stmt, "while_statement") {
            kind = LoopKind::While;
            let cond = child_of_kind(w, "parenthesized_expression");
            while_guard = cond.and_then(|c| augur_ir::ranges::while_guard(text(c, src)));
            while_cond = cond.map(|c| self.expr(c));
        } else if let Some(cs) = child_of_kind(do_stmt, "concurrent_statement") {
            kind = LoopKind::Concurrent;
            let mut trip_texts = vec![];
            if let Some(h) = child_of_kind(cs, "concurrent_header") {
                for ctl in named_children(h) {
                    if kind_of(ctl) == "concurrent_control" {
                        let parts = named_children(ctl);
                        for p in parts.iter().skip(1) {
                            exprs.push(self.expr(*p));
                        }
                        trip_texts.push(text(ctl, src).trim().to_string());
                        if var.is_none() {
                            var = parts
                                .first()
                                .map(|v| text(*v, src).trim().to_ascii_lowercase());
                        }
                    } else if kind_of(ctl) != "comment" {
                        // A mask: evaluated per iteration; approximate as once per entry.
                        exprs.push(self.expr(ctl));
                    }
                }
            }
        }
        if let Some(v) = while_guard {
            self.while_guards.push((span, v));
        }
        let text = self.text_pos(do_stmt, None);
        self.open_loop(
            kind, var, bounds, unit_step, exprs, while_cond, label, name, span, text,
        );
        // Body.
        let end = kids
            .iter()
            .rev()
            .find(|k| {
                kind_of(k) == "end_do_loop_statement" || kind_of(k) == "end_do_label_loop_statement"
            })
            .copied();
        let own_terminal = end.and_then(|e| {
            named_children(e)
                .into_iter()
                .find(|c| is_statement_like(kind_of(c)) && kind_of(c) != "statement_label")
        });
        // The terminal statement's label is the DO's label (tree-sitter puts its text
        // on the innermost loop's virtual end when several loops share it).
        let terminal = own_terminal.or(inherited);
        let end_label = label.filter(|_| terminal.is_some());
        let body: Vec<Node<'_>> = kids
            .iter()
            .copied()
            .filter(|k| {
                *k != do_stmt && Some(*k) != end && kind_of(k) != "block_label_start_expression"
            })
            .collect();
        let mut terminal_done = false;
        for (i, k) in body.iter().enumerate() {
            let last = i + 1 == body.len();
            if last && kind_of(k) == "do_loop" && shares_label(*k) && terminal.is_some() {
                // The nested loop ends on the same label: it executes the terminal statement.
                self.do_loop(*k, terminal);
                terminal_done = true;
            } else {
                self.statement(*k);
            }
        }
        if !terminal_done {
            if let (Some(l), Some(t)) = (end_label, terminal) {
                let pos = self.pos(t);
                self.define_label(l, pos);
            }
            if let Some(t) = terminal {
                self.statement(t);
            }
        }
        let end_text = end.map(|e| self.text_pos(e, None)).unwrap_or(text);
        self.close_loop(end.map(|e| self.span(e)).unwrap_or(span), end_text);
    }

    #[allow(clippy::too_many_arguments)]
    fn open_loop(
        &mut self,
        kind: LoopKind,
        var: Option<String>,
        bounds: Option<LoopBounds>,
        unit_step: bool,
        exprs: Vec<Expr>,
        while_cond: Option<Expr>,
        label: Option<u32>,
        name: Option<String>,
        span: Span,
        text: TextPos,
    ) {
        let counted = matches!(kind, LoopKind::Counted | LoopKind::Concurrent);
        let stmt_kind = StmtKind::Do {
            loop_id: LoopId(self.unit.loops.len() as u32),
            exprs,
        };
        let mut counts = count_stmt(&stmt_kind);
        if counted {
            counts.once.inc(loop_setup(unit_step));
        }
        let idx = self.push_stmt_spanned(span, text, stmt_kind);
        let entry = self.current(span);
        self.attach(entry, idx, counts);
        let lid = LoopId(self.unit.loops.len() as u32);
        let parent = self.loops.last().map(|l| l.id);
        let depth = self.depth() + 1;
        self.unit.loops.push(Loop {
            id: lid,
            kind: kind.clone(),
            span,
            parent,
            depth,
            var,
            bounds,
            unit_step,
            elements: None,
            entry_block: entry,
            header_block: entry,
            body_block: entry,
            after_block: entry,
            end_text: text,
            label,
            back_edges: vec![],
        });
        let after = self.new_block(BlockKind::Straight, span);
        self.loops.push(LoopCtx {
            id: lid,
            header: entry,
            after,
            name,
        });
        let header = self.new_block(BlockKind::LoopHeader, span);
        self.edge(entry, header);
        self.edge(header, after);
        {
            let h = self.block_mut(header);
            h.stmts.push(idx);
            match kind {
                LoopKind::Counted | LoopKind::Concurrent => h.counts.inc(loop_iteration(unit_step)),
                LoopKind::While => {
                    let c = count_stmt(&StmtKind::If {
                        cond: while_cond
                            .unwrap_or_else(|| Expr::constant(Type::LOGICAL, ".true.", None)),
                    });
                    h.counts.add_scaled(&c.once, 1.0);
                }
                _ => h.counts.inc(AbOp::GOTO),
            }
        }
        self.unit.loops[lid.0 as usize].header_block = header;
        self.unit.loops[lid.0 as usize].after_block = after;
        self.loops.last_mut().expect("pushed above").header = header;
        let body = self.new_block(BlockKind::Straight, span);
        self.edge(header, body);
        self.unit.loops[lid.0 as usize].body_block = body;
        self.cur = Some(body);
    }

    fn close_loop(&mut self, end_span: Span, end_text: TextPos) {
        let ctx = self.loops.pop().expect("close_loop after open_loop");
        self.unit.loops[ctx.id.0 as usize].end_text = end_text;
        if let Some(c) = self.cur.take() {
            self.edge(c, ctx.header);
        }
        self.unit.blocks[ctx.after.0 as usize].span = end_span;
        self.cur = Some(ctx.after);
    }

    fn select_case(&mut self, node: Node<'_>) {
        self.leave_spec();
        let kids = named_children(node);
        let sel = kids
            .iter()
            .find(|k| kind_of(k) == "selector")
            .and_then(|s| s.named_child(0))
            .map(|e| self.expr(e))
            .unwrap_or_else(|| Expr::constant(Type::INTEGER, "0", Some(0)));
        self.simple(node, StmtKind::Select { expr: sel });
        let test = self.cur.expect("simple() opened a block");
        let first_line = self
            .unit
            .stmts
            .last()
            .map(|s| s.span.start.line)
            .unwrap_or(0);
        if let Some(s) = self.unit.stmts.last_mut() {
            s.span.end_line = first_line;
        }
        self.unit.blocks[test.0 as usize].span.end_line = first_line;
        let span = self.span(node);
        let after = self.new_block(BlockKind::Straight, span);
        let mut has_default = false;
        for k in kids.iter().filter(|k| kind_of(k) == "case_statement") {
            let cspan = self.span(*k);
            let b = self.new_block(BlockKind::Straight, cspan);
            self.edge(test, b);
            self.cur = Some(b);
            if child_of_kind(*k, "default").is_some() {
                has_default = true;
            }
            self.coverage.statements += 1;
            self.coverage.lowered += 1;
            self.push_stmt(*k, StmtKind::Case);
            for s in named_children(*k) {
                if is_statement_like(kind_of(s)) {
                    self.statement(s);
                }
            }
            self.close_arm(after);
        }
        if !has_default {
            self.edge(test, after);
        }
        self.cur = Some(after);
    }

    fn where_statement(&mut self, node: Node<'_>) {
        self.leave_spec();
        let kids = named_children(node);
        let mask_node = kids
            .iter()
            .find(|k| kind_of(k) == "parenthesized_expression")
            .copied();
        if let Some(m) = mask_node {
            self.where_mask(node, m);
        }
        for k in kids {
            match kind_of(k) {
                "elsewhere_clause" => {
                    self.coverage.statements += 1;
                    self.coverage.lowered += 1;
                    let clause = named_children(k);
                    // A masked ELSEWHERE evaluates its mask like the WHERE does.
                    if let Some(m) = clause
                        .iter()
                        .find(|c| kind_of(c) == "parenthesized_expression")
                    {
                        self.where_mask(k, *m);
                    }
                    for s in clause {
                        if is_statement_like(kind_of(s)) {
                            self.statement(s);
                        }
                    }
                }
                "end_where_statement" => {}
                other if Some(k) != mask_node && is_statement_like(other) => self.statement(k),
                _ => {}
            }
        }
    }

    /// The mask `m` of a WHERE statement or masked ELSEWHERE `node`: a statement whose
    /// operations run once per element of the mask's shape.
    fn where_mask(&mut self, node: Node<'_>, m: Node<'_>) {
        let mask = self.expr(m);
        let lhs_like = mask.clone();
        let kind = StmtKind::Where { mask };
        let mut counts = count_stmt(&kind);
        if lhs_like.array {
            let per = std::mem::take(&mut counts.once);
            counts.once.inc(AbOp::ALIN);
            let mut per = per;
            per.inc(AbOp::ALOV);
            counts.groups.insert(
                0,
                augur_ir::count::ElementGroup {
                    elements: format!(
                        "size({})",
                        augur_ir::count::conformable_reference(&lhs_like)
                    ),
                    constant_elements: None,
                    counts: per,
                    chain: Default::default(),
                },
            );
        }
        // The statement spans its mask, not the whole construct or clause.
        let span = self.header_span(node, Some(m));
        let text = self.text_pos(node, Some(m));
        let idx = self.push_stmt_spanned(span, text, kind);
        let b = self.current(span);
        self.attach(b, idx, counts);
    }

    fn forall(&mut self, node: Node<'_>) {
        self.leave_spec();
        let src = self.src;
        let kids = named_children(node);
        let mut exprs = vec![];
        let mut var = None;
        for t in kids.iter().filter(|k| kind_of(k) == "triplet_spec") {
            let parts = named_children(*t);
            if var.is_none() {
                var = parts
                    .first()
                    .map(|v| text(*v, src).trim().to_ascii_lowercase());
            }
            for p in parts.iter().skip(1) {
                exprs.push(self.expr(*p));
            }
        }
        // The header: triplets and the optional mask, before the first statement.
        let header: Vec<Node<'_>> = kids
            .iter()
            .copied()
            .take_while(|k| !is_statement_like(kind_of(k)))
            .collect();
        for m in header
            .iter()
            .filter(|k| kind_of(k) != "triplet_spec" && kind_of(k) != "comment")
        {
            // A mask: evaluated per iteration; approximated as once per entry (as DO CONCURRENT).
            exprs.push(self.expr(*m));
        }
        let span = self.header_span(node, header.last().copied());
        let text = self.text_pos(node, header.last().copied());
        self.open_loop(
            LoopKind::Concurrent,
            var,
            None,
            true,
            exprs,
            None,
            None,
            None,
            span,
            text,
        );
        let mut end_span = self.span(node);
        let mut end_text = self.text_pos(node, None);
        for k in kids.iter() {
            if kind_of(k) == "end_forall_statement" {
                end_span = self.span(*k);
                end_text = self.text_pos(*k, None);
            } else if kind_of(k) != "triplet_spec" && is_statement_like(kind_of(k)) {
                self.statement(*k);
            }
        }
        self.close_loop(end_span, end_text);
    }
}

fn empty_unit() -> Unit {
    Unit {
        name: String::new(),
        kind: UnitKind::Program,
        span: Span::at(Pos {
            file: augur_ir::FileId(0),
            line: 1,
            col: 1,
        }),
        host: None,
        source: 0,
        header_text: TextPos::default(),
        uses: vec![],
        dummies: vec![],
        symbols: vec![],
        stmts: vec![],
        blocks: vec![],
        loops: vec![],
    }
}

/// Whether a node kind is a statement or construct to lower (not an expression or a clause part).
fn is_statement_like(kind: &str) -> bool {
    kind.ends_with("_statement")
        || matches!(
            kind,
            "do_loop"
                | "subroutine_call"
                | "comment"
                | "statement_label"
                | "derived_type_definition"
                | "interface"
                | "block_construct"
                | "ERROR"
                | "enum"
                | "enumeration_type"
                | "preproc_def"
                | "preproc_call"
                | "preproc_if"
                | "preproc_ifdef"
                | "preproc_include"
                | "preproc_function_def"
        )
}

/// Labels referenced by a statement (GOTO targets, arithmetic IF).
fn label_refs(node: Node<'_>, src: &str) -> Vec<u32> {
    children(node)
        .into_iter()
        .filter(|c| kind_of(c) == "statement_label_reference")
        .filter_map(|c| label_value(c, src))
        .collect()
}

/// The construct name of a named DO/IF (`outer: do i = ...`).
fn block_name(node: Node<'_>, src: &str) -> Option<String> {
    child_of_kind(node, "block_label_start_expression").map(|b| {
        text(b, src)
            .trim()
            .trim_end_matches(':')
            .trim()
            .to_ascii_lowercase()
    })
}

/// Whether a DO loop ends on a label shared with its enclosing loop (its end is virtual).
fn shares_label(node: Node<'_>) -> bool {
    named_children(node)
        .into_iter()
        .rev()
        .find(|k| kind_of(k) == "end_do_label_loop_statement")
        .is_some_and(|e| child_of_kind(e, "do_label_virtual").is_some())
}

/// Labels that are targets of branches within a unit (not DO terminations or FORMATs).
fn branch_targets(unit: Node<'_>, src: &str) -> HashSet<u32> {
    let mut out = HashSet::new();
    let mut stack = vec![unit];
    while let Some(n) = stack.pop() {
        match kind_of(n) {
            "internal_procedures" | "format_identifier" | "do_statement" => continue,
            "statement_label_reference" => {
                if let Some(v) = label_value(n, src) {
                    out.insert(v);
                }
                continue;
            }
            _ => {}
        }
        let mut cursor = n.walk();
        for c in n.named_children(&mut cursor) {
            stack.push(c);
        }
    }
    out
}

/// Members of a COMMON statement: (block name, variable, dimensions node).
fn common_members<'t>(node: Node<'t>, src: &str) -> Vec<(String, String, Option<Node<'t>>)> {
    let mut block = String::new();
    let mut out = vec![];
    let mut items = vec![];
    for c in named_children(node) {
        if kind_of(c) == "variable_group" {
            items.extend(named_children(c));
        } else {
            items.push(c);
        }
    }
    for n in items {
        match kind_of(n) {
            "name" => {
                block = text(n, src)
                    .trim()
                    .trim_matches('/')
                    .trim()
                    .to_ascii_lowercase()
            }
            "identifier" | "sized_declarator" => {
                if let Some((name, size, _)) = declarator_name(n, src) {
                    out.push((block.clone(), name, size));
                }
            }
            _ => {}
        }
    }
    out
}

/// Whether a READ or WRITE statement transfers binary records: its control list names
/// no format (no second positional item, no `FMT=` or `NML=`). `READ *, x`,
/// `READ 100, x` and PRINT are formatted.
fn is_unformatted(keyword: &str, stmt: &str) -> bool {
    if keyword != "read" && keyword != "write" {
        return false;
    }
    let rest = stmt.trim_start()[keyword.len().min(stmt.trim_start().len())..].trim_start();
    let Some(inner) = rest.strip_prefix('(') else {
        return false;
    };
    // The control list up to its closing parenthesis, split at top-level commas.
    let mut depth = 0usize;
    let mut quote: Option<char> = None;
    let mut parts = vec![String::new()];
    for ch in inner.chars() {
        match quote {
            Some(q) => {
                if ch == q {
                    quote = None;
                }
                parts.last_mut().expect("one part").push(ch);
                continue;
            }
            None if ch == '\'' || ch == '"' => quote = Some(ch),
            None => {}
        }
        match ch {
            '(' => depth += 1,
            ')' if depth == 0 => break,
            ')' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(String::new());
                continue;
            }
            _ => {}
        }
        parts.last_mut().expect("one part").push(ch);
    }
    let keyword_of = |p: &str| {
        let p: String = p.chars().filter(|c| !c.is_whitespace()).collect();
        p.split_once('=')
            .filter(|(k, _)| k.chars().all(|c| c.is_ascii_alphabetic()))
            .map(|(k, _)| k.to_ascii_lowercase())
    };
    let positional = parts.iter().filter(|p| keyword_of(p).is_none()).count();
    let named_format = parts
        .iter()
        .filter_map(|p| keyword_of(p))
        .any(|k| k == "fmt" || k == "nml");
    positional < 2 && !named_format
}
