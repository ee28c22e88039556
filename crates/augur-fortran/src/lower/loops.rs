//! DO loops: their control parsed into bounds, and the entry, header, body and
//! exit blocks of each loop.

use super::{is_statement_like, LoopCtx, Lowerer};
use crate::syntax::{child_of_kind, field, kind_of, label_value, named_children, text};
use augur_ir::count::{count_stmt, loop_iteration, loop_setup};
use augur_ir::{
    AbOp, BlockKind, Expr, Loop, LoopBounds, LoopId, LoopKind, Span, StmtKind, TextPos, Type,
};
use tree_sitter::Node;

impl Lowerer<'_> {
    /// Lowers a DO construct. `inherited` is the terminal statement of an enclosing
    /// labelled DO that shares this loop's label (F77 `DO 10 I` / `DO 10 J` / `10 CONTINUE`).
    pub(super) fn do_loop(&mut self, node: Node<'_>, inherited: Option<Node<'_>>) {
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

    /// Opens a loop: its DO statement in the entry block, then its header, body and
    /// after blocks; the body becomes the current block.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn open_loop(
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
                    h.scalar_operands.add_scaled(&c.scalars, 1.0);
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

    /// Closes the innermost loop: the body's end branches back to the header and the
    /// after block becomes the current block.
    pub(super) fn close_loop(&mut self, end_span: Span, end_text: TextPos) {
        let ctx = self.loops.pop().expect("close_loop after open_loop");
        self.unit.loops[ctx.id.0 as usize].end_text = end_text;
        if let Some(c) = self.cur.take() {
            self.edge(c, ctx.header);
        }
        self.unit.blocks[ctx.after.0 as usize].span = end_span;
        self.cur = Some(ctx.after);
    }
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
