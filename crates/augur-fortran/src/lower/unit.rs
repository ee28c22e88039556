//! Lowering of whole program units: per-unit state, the unit's header, its
//! internal procedures, and the finishing passes (branches resolved, blocks
//! renumbered in source order, GOTO loops found).

use super::{empty_unit, Lowerer};
use crate::scope::{parse_intrinsic_type, Scope};
use crate::syntax::{child_of_kind, field, kind_of, label_value, named_children, text};
use augur_ir::{
    Block, BlockId, BlockKind, Diagnostic, LoopId, LoopKind, Storage, Symbol, Unit, UnitKind,
};
use std::collections::{BTreeSet, HashSet};
use tree_sitter::Node;

impl Lowerer<'_> {
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
        // A main program may have no PROGRAM statement: its first statement (IMPLICIT,
        // a declaration, an assignment) is then no header.
        let header = kids.first().copied().filter(|k| {
            matches!(
                kind_of(k),
                "program_statement"
                    | "subroutine_statement"
                    | "function_statement"
                    | "module_statement"
                    | "submodule_statement"
                    | "block_data_statement"
            )
        });
        let name = header
            .and_then(|h| field(h, "name").or_else(|| child_of_kind(h, "name")))
            .map(|n| text(n, self.src).trim().to_ascii_lowercase())
            .unwrap_or_else(|| match kind {
                UnitKind::Program => "main".into(),
                UnitKind::BlockData => "block_data".into(),
                _ => "unnamed".into(),
            });
        // The header, or the first child that is not a comment (a main program without
        // PROGRAM statement starts there).
        let first_statement = header
            .or_else(|| kids.iter().copied().find(|k| kind_of(k) != "comment"))
            .unwrap_or(node);
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
            start_text: self.text_pos(first_statement, None),
            ..empty_unit()
        };
        self.cur = None;
        // A host's variables get values from the host: no range is assumed for them.
        self.inherited = host
            .map(|(_, s)| s.symbols.keys().cloned().collect())
            .unwrap_or_default();
        self.loops.clear();
        self.labels.clear();
        self.pending_gotos.clear();
        self.pending_label = None;
        self.in_spec = true;
        self.intrinsic_declared.clear();
        self.statement_functions.clear();
        self.warned.retain(|w| !w.starts_with("undeclared:"));
        self.targets = branch_targets(node, self.src);
        self.formats = super::format::format_statements(node, self.src);

        let entry = self.new_block(BlockKind::Entry, span);
        self.cur = Some(entry);

        if let Some(h) = header {
            self.unit_header(h, kind, &name);
        }
        let mut internal = None;
        for k in kids.iter().skip(usize::from(header.is_some())) {
            match kind_of(k) {
                "internal_procedures" => {
                    // What they assign of the host's variables is not seen here.
                    self.names_valued_elsewhere(*k);
                    internal = Some(*k);
                }
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

    /// The unit's opening statement: its dummy arguments and a function's result variable.
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

    /// Ends the unit: branches resolved, blocks renumbered in source order, GOTO
    /// loops added, and divisions of values known non-negative rewritten as shifts.
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
        let elsewhere = std::mem::take(&mut self.valued_elsewhere);
        let inherited = std::mem::take(&mut self.inherited);
        let own = &self.scope.own;
        let locals: BTreeSet<String> = self
            .scope
            .symbols
            .values()
            .filter(|s| {
                s.storage == Storage::Local
                    && s.ty.base == augur_ir::BaseType::Integer
                    && s.dims.is_empty()
                    && !s.procedure
                    && !elsewhere.contains(&s.name)
                    && (own.contains(&s.name) || !inherited.contains(&s.name))
            })
            .map(|s| s.name.clone())
            .collect();
        augur_ir::ranges::non_negative_shifts(&mut self.unit, &guards, &locals);
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

    /// Adds the edges of the recorded branches; a label not defined is reported.
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
