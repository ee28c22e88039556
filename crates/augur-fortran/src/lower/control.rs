//! Branching statements: GOTO forms, CYCLE and EXIT, RETURN, arithmetic IF, IF
//! constructs and SELECT CASE.

use super::{is_statement_like, Lowerer};
use crate::syntax::{
    child_of_kind, children, kind_of, label_value, named_children, squeeze_lower, text,
};
use augur_ir::count::count_stmt;
use augur_ir::{BlockId, BlockKind, Diagnostic, Expr, StmtKind, Type};
use tree_sitter::Node;

impl Lowerer<'_> {
    /// GOTO (plain, computed or assigned), CONTINUE, RETURN, CYCLE, EXIT, PAUSE and
    /// ERROR STOP. Returns false for a keyword statement the lowering does not know.
    pub(super) fn keyword_statement(&mut self, node: Node<'_>) -> bool {
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

    /// Arithmetic IF: a three-way branch on the sign of an expression.
    pub(super) fn arithmetic_if(&mut self, node: Node<'_>) {
        self.leave_spec();
        let expr = child_of_kind(node, "parenthesized_expression")
            .map(|e| self.expr(e))
            .unwrap_or_else(|| Expr::constant(Type::INTEGER, "0", Some(0)));
        let labels = label_refs(node, self.src);
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

    /// A logical IF, or an IF construct with its ELSE IF and ELSE arms.
    pub(super) fn if_statement(&mut self, node: Node<'_>) {
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
                    self.nested_statements(*k);
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

    /// Ends an arm of a branch: the current block continues at `after`.
    fn close_arm(&mut self, after: BlockId) {
        if let Some(c) = self.cur.take() {
            self.edge(c, after);
        }
    }

    /// SELECT CASE: the selector's block branches to each CASE arm, and to the end
    /// when there is no CASE DEFAULT.
    pub(super) fn select_case(&mut self, node: Node<'_>) {
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
            self.nested_statements(*k);
            self.close_arm(after);
        }
        if !has_default {
            self.edge(test, after);
        }
        self.cur = Some(after);
    }
}

/// Labels referenced by a statement (GOTO targets, arithmetic IF).
fn label_refs(node: Node<'_>, src: &str) -> Vec<u32> {
    children(node)
        .into_iter()
        .filter(|c| kind_of(c) == "statement_label_reference")
        .filter_map(|c| label_value(c, src))
        .collect()
}
