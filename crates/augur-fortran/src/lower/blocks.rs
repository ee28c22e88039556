//! Building a unit's control-flow graph: blocks, edges, and the statements
//! attached to them with their AbOp counts.

use super::Lowerer;
use augur_ir::count::{count_stmt, StmtCounts};
use augur_ir::{Block, BlockId, BlockKind, Loop, LoopId, LoopKind, Span, Stmt, StmtKind, TextPos};
use tree_sitter::Node;

impl Lowerer<'_> {
    /// A new empty block of `kind`, inside the innermost open loop.
    pub(super) fn new_block(&mut self, kind: BlockKind, span: Span) -> BlockId {
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
            scalar_operands: Default::default(),
        });
        id
    }

    /// Adds the control-flow edge `from` -> `to` (once).
    pub(super) fn edge(&mut self, from: BlockId, to: BlockId) {
        let succs = &mut self.unit.blocks[from.0 as usize].succs;
        if !succs.contains(&to) {
            succs.push(to);
        }
    }

    /// Starts a new straight block reached by falling through from the current one.
    pub(super) fn begin_block(&mut self, span: Span) -> BlockId {
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
    pub(super) fn current(&mut self, span: Span) -> BlockId {
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

    /// Block `b` of the unit being lowered.
    pub(super) fn block_mut(&mut self, b: BlockId) -> &mut Block {
        &mut self.unit.blocks[b.0 as usize]
    }

    /// Appends a statement to block `b` with its counts; array element groups get their own blocks.
    pub(super) fn attach(&mut self, b: BlockId, idx: u32, counts: StmtCounts) {
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
            blk.scalar_operands.add_scaled(&counts.scalars, 1.0);
        }
        for g in counts.groups {
            let lid = LoopId(self.unit.loops.len() as u32);
            let eb = self.new_block(BlockKind::Elements, span);
            self.block_mut(eb).stmts.push(idx);
            self.block_mut(eb).counts = g.counts;
            self.block_mut(eb).element_chain = g.chain;
            self.block_mut(eb).scalar_operands = g.scalars;
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

    /// Nesting depth of the innermost open loop (0 outside loops).
    pub(super) fn depth(&self) -> u32 {
        self.loops
            .last()
            .map(|l| self.unit.loops[l.id.0 as usize].depth)
            .unwrap_or(0)
    }

    /// Records the statement of `node` in the unit (in no block); returns its index.
    pub(super) fn push_stmt(&mut self, node: Node<'_>, kind: StmtKind) -> u32 {
        let span = self.span(node);
        let text = self.text_pos(node, None);
        self.push_stmt_spanned(span, text, kind)
    }

    /// [`Lowerer::push_stmt`] with an explicit span and text; the statement takes
    /// the pending label.
    pub(super) fn push_stmt_spanned(&mut self, span: Span, text: TextPos, kind: StmtKind) -> u32 {
        let label = self.pending_label.take();
        self.unit.stmts.push(Stmt {
            span,
            text,
            label,
            kind,
        });
        (self.unit.stmts.len() - 1) as u32
    }

    /// Adds an executable statement to the current block, counting its AbOps.
    pub(super) fn simple(&mut self, node: Node<'_>, kind: StmtKind) -> u32 {
        let span = self.span(node);
        let text = self.text_pos(node, None);
        self.simple_spanned(span, text, kind)
    }

    /// [`Lowerer::simple`] with an explicit span (for a construct's opening statement).
    pub(super) fn simple_spanned(&mut self, span: Span, text: TextPos, kind: StmtKind) -> u32 {
        let counts = count_stmt(&kind);
        let idx = self.push_stmt_spanned(span, text, kind);
        let b = self.current(span);
        self.attach(b, idx, counts);
        idx
    }

    /// Records a branch from block `from` to `label`, resolved when the unit is finished.
    pub(super) fn goto_label(&mut self, from: BlockId, label: u32) {
        self.pending_gotos.push((from, label));
    }
}
