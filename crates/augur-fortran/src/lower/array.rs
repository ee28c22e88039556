//! Array statements: WHERE constructs with their masks, and FORALL.

use super::{is_statement_like, Lowerer};
use crate::syntax::{kind_of, named_children, text};
use augur_ir::count::count_stmt;
use augur_ir::{AbOp, LoopKind, StmtKind};
use tree_sitter::Node;

impl Lowerer<'_> {
    /// A WHERE statement or construct: its mask, then the statements of each part
    /// (a masked ELSEWHERE evaluates its own mask). The standard evaluates every mask
    /// before the assignments it controls, so a construct keeps each mask in a logical
    /// temporary that each of its assignments tests element by element ([`MaskUse`]);
    /// a WHERE with one assignment and no ELSEWHERE tests its mask as it goes.
    pub(super) fn where_statement(&mut self, node: Node<'_>) {
        self.leave_spec();
        let kids = named_children(node);
        let mask_node = kids
            .iter()
            .find(|k| kind_of(k) == "parenthesized_expression")
            .copied();
        let clauses: Vec<(bool, usize)> = kids
            .iter()
            .filter(|k| kind_of(k) == "elsewhere_clause")
            .map(|k| (clause_mask(*k).is_some(), statements_in(*k)))
            .collect();
        let body = kids
            .iter()
            .filter(|k| Some(**k) != mask_node && is_assignment_like(kind_of(k)))
            .count();
        if let Some(m) = mask_node {
            let plain_tests: usize = clauses.iter().filter(|c| !c.0).map(|c| c.1).sum();
            let kept = !(clauses.is_empty() && body <= 1);
            self.where_mask(
                node,
                m,
                MaskUse {
                    kept,
                    tests: body + plain_tests,
                    loops: if kept { body + plain_tests } else { 0 },
                },
            );
        }
        for k in kids {
            let first_new_block = self.unit.blocks.len();
            match kind_of(k) {
                "elsewhere_clause" => {
                    self.coverage.statements += 1;
                    self.coverage.lowered += 1;
                    // A masked ELSEWHERE evaluates its mask like the WHERE does, where
                    // the masks before it are false (one more test).
                    if let Some(m) = clause_mask(k) {
                        let n = statements_in(k);
                        let uses = MaskUse {
                            kept: true,
                            tests: 1 + n,
                            loops: n,
                        };
                        self.where_mask(k, m, uses);
                    }
                    self.nested_statements(k);
                }
                "end_where_statement" => {}
                other if Some(k) != mask_node && is_statement_like(other) => self.statement(k),
                _ => {}
            }
            self.loop_overhead_to_masks(first_new_block);
        }
    }

    /// Takes the loop overhead (`ALOV`) out of the element blocks of the masked
    /// assignments lowered from block `first` on: each assignment's element loop runs
    /// over every element of the mask, testing it, so its overhead is counted with the
    /// mask ([`MaskUse::loops`]); the assignment's block keeps its own work, which the
    /// analysis counts only where the mask holds (the branch run's share).
    fn loop_overhead_to_masks(&mut self, first: usize) {
        let stmts = &self.unit.stmts;
        for b in self.unit.blocks.iter_mut().skip(first) {
            let assignment = b.stmts.iter().all(|&s| {
                matches!(
                    stmts.get(s as usize).map(|s| &s.kind),
                    Some(StmtKind::Assign { .. })
                )
            });
            if b.kind == augur_ir::BlockKind::Elements
                && assignment
                && b.counts.get(AbOp::ALOV) >= 1.0
            {
                b.counts.add(AbOp::ALOV, -1.0);
            }
        }
    }

    /// The mask `m` of a WHERE statement or masked ELSEWHERE `node`: a statement whose
    /// operations run once per element of the mask's shape, with what keeping and
    /// testing it costs there.
    fn where_mask(&mut self, node: Node<'_>, m: Node<'_>, uses: MaskUse) {
        let mask = self.expr(m);
        let lhs_like = mask.clone();
        let kind = StmtKind::Where { mask };
        let mut counts = count_stmt(&kind);
        if lhs_like.array {
            let per = std::mem::take(&mut counts.once);
            let scalars = std::mem::take(&mut counts.scalars);
            counts.once.inc(AbOp::ALIN);
            let mut per = per;
            per.inc(AbOp::ALOV);
            uses.add_to(&mut per);
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
                    scalars,
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

    /// FORALL (statement or construct): a concurrent loop over its triplets.
    pub(super) fn forall(&mut self, node: Node<'_>) {
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

/// What a WHERE mask costs per element besides its own expression.
#[derive(Debug, Clone, Copy)]
struct MaskUse {
    /// Whether the mask is kept in a logical temporary (a store per element).
    kept: bool,
    /// The times an element of a kept mask is loaded and branched on: once per
    /// assignment it controls, and for a masked ELSEWHERE once more for the masks
    /// before it. Without a temporary, the one branch of a WHERE statement.
    tests: usize,
    /// The element loops of the assignments it controls, each over every element (their
    /// overhead, `ALOV`, counted here rather than with the assignments); none without a
    /// temporary, where the mask's own loop assigns.
    loops: usize,
}

impl MaskUse {
    fn add_to(self, per: &mut augur_ir::AbOpCounts) {
        if self.kept {
            per.inc(AbOp::SLGL);
            per.add(AbOp::ARR1, self.tests as f64);
            per.add(AbOp::GOTO, self.tests as f64);
            per.add(AbOp::ALOV, self.loops as f64);
        } else {
            per.inc(AbOp::GOTO);
        }
    }
}

/// The mask of a masked ELSEWHERE clause.
fn clause_mask(clause: Node<'_>) -> Option<Node<'_>> {
    named_children(clause)
        .into_iter()
        .find(|c| kind_of(c) == "parenthesized_expression")
}

/// The statements directly inside a clause.
fn statements_in(clause: Node<'_>) -> usize {
    named_children(clause)
        .iter()
        .filter(|c| is_assignment_like(kind_of(c)))
        .count()
}

/// A statement of a WHERE body (not a clause or the END WHERE).
fn is_assignment_like(kind: &str) -> bool {
    is_statement_like(kind)
        && !matches!(
            kind,
            "elsewhere_clause" | "end_where_statement" | "comment" | "statement_label"
        )
}
