//! Loops made by backward `GOTO`s.
//!
//! Fixed-form Fortran writes many loops without DO: a heap's sift-down
//! (`10 IF (J .GT. IR) GOTO 30 ... J = 2*J; GOTO 10`), a binary search, an
//! insertion sort's inner scan. A loop's memory term, its recurrences and its row in
//! the by-loop breakdown all need it to be a loop, so after lowering each unit
//! [`add_goto_loops`] turns every well-nested backward `GOTO` into a loop of kind
//! [`LoopKind::Goto`]: the blocks from the labelled statement's block to the block
//! that jumps back.
//!
//! A region becomes a loop only when it nests properly: the jump sits in its target's
//! enclosing loop or deeper, every loop that starts inside the region ends inside it,
//! and two regions are either disjoint or one holds the other. A backward jump from an
//! arithmetic IF, a computed or an assigned GOTO makes no loop (its iterations could not
//! be told from block counts), nor does one that crosses another region.

use crate::{Block, BlockId, Loop, LoopId, LoopKind, StmtKind, TextPos, Unit};

/// A candidate region: blocks `first..=last` (ids in source order), the blocks ending
/// in a `GOTO` back to `first`.
#[derive(Debug, Clone)]
struct Region {
    first: usize,
    last: usize,
    back: Vec<usize>,
}

/// The target label of a block that ends in an unconditional `GOTO`.
fn goto_target(u: &Unit, b: &Block) -> Option<u32> {
    let &s = b.stmts.last()?;
    match u.stmts.get(s as usize)?.kind {
        StmtKind::Goto { label } => Some(label),
        _ => None,
    }
}

/// The blocks that start with a labelled statement, by label.
fn labelled_blocks(u: &Unit) -> std::collections::HashMap<u32, usize> {
    let mut out = std::collections::HashMap::new();
    for (bi, b) in u.blocks.iter().enumerate() {
        if let Some(label) = b
            .stmts
            .first()
            .and_then(|&s| u.stmts.get(s as usize))
            .and_then(|s| s.label)
        {
            out.entry(label).or_insert(bi);
        }
    }
    out
}

/// Whether loop `inner` is `outer` or nested in it (everything is within the top level,
/// `outer` = `None`).
fn within(u: &Unit, inner: Option<LoopId>, outer: Option<LoopId>) -> bool {
    outer.map_or(true, |o| u.loop_within(inner, o))
}

/// The first and last block (ids) of every loop, nested loops' blocks included (`None`
/// for a loop without blocks): one pass over the blocks and their enclosing loops.
fn loop_spans(u: &Unit) -> Vec<Option<(usize, usize)>> {
    let mut spans: Vec<Option<(usize, usize)>> = vec![None; u.loops.len()];
    for (bi, b) in u.blocks.iter().enumerate() {
        let mut at = b.in_loop;
        while let Some(l) = at {
            let Some(span) = spans.get_mut(l.0 as usize) else {
                break;
            };
            *span = Some(span.map_or((bi, bi), |(lo, hi)| (lo.min(bi), hi.max(bi))));
            at = u.loops.get(l.0 as usize).and_then(|l| l.parent);
        }
    }
    spans
}

/// Adds a [`LoopKind::Goto`] loop for every well-nested backward `GOTO` of `u`, keeping
/// the loops ordered outer before inner (loop ids, parents, the blocks' innermost
/// loops and the DO statements' loop ids are renumbered). Blocks must already be in
/// source order.
pub fn add_goto_loops(u: &mut Unit) {
    // Backward jumps, merged by target.
    let labelled = labelled_blocks(u);
    let mut by_target: std::collections::BTreeMap<usize, Region> = Default::default();
    for (bi, b) in u.blocks.iter().enumerate() {
        let Some(&t) = goto_target(u, b).and_then(|label| labelled.get(&label)) else {
            continue;
        };
        if t > bi || !b.succs.contains(&BlockId(t as u32)) {
            continue;
        }
        let r = by_target.entry(t).or_insert(Region {
            first: t,
            last: bi,
            back: vec![],
        });
        r.last = r.last.max(bi);
        r.back.push(bi);
    }
    if by_target.is_empty() {
        return;
    }
    // Outer regions first; a region crossing one already accepted is dropped.
    let mut regions: Vec<Region> = by_target.into_values().collect();
    regions.sort_by_key(|r| (r.first, std::cmp::Reverse(r.last)));
    let spans = loop_spans(u);
    let mut accepted: Vec<Region> = vec![];
    for r in regions {
        let mut r = r;
        if well_nested(u, &spans, &mut r) && !crosses(&accepted, &r) {
            accepted.push(r);
        }
    }
    if accepted.is_empty() {
        return;
    }
    for r in &accepted {
        insert_loop(u, r);
    }
    order_loops(u);
}

/// Whether region `r` can be a loop: its back edges in the header's enclosing loop or
/// deeper (a GOTO out of a DO back to a label before it makes a loop around the DO),
/// every block of the region in that loop or deeper, and every loop of that level with
/// a block in the region wholly inside it.
fn well_nested(u: &Unit, spans: &[Option<(usize, usize)>], r: &mut Region) -> bool {
    let parent = u.blocks[r.first].in_loop;
    if r.back
        .iter()
        .any(|&b| !within(u, u.blocks[b].in_loop, parent))
    {
        return false;
    }
    let level: Vec<(usize, usize)> = u
        .loops
        .iter()
        .filter(|l| l.parent == parent)
        .filter_map(|l| spans.get(l.id.0 as usize).copied().flatten())
        .collect();
    // A loop of that level that starts in the region ends in it (a DO's terminal
    // statement may come after the jump back, or its blocks after its exit block).
    for &(first, last) in &level {
        if (r.first..=r.last).contains(&first) {
            r.last = r.last.max(last);
        }
    }
    if (r.first..=r.last).any(|b| !within(u, u.blocks[b].in_loop, parent)) {
        return false;
    }
    // Every other loop of that level lies wholly outside.
    level.iter().all(|&(first, last)| {
        last < r.first || first > r.last || (first >= r.first && last <= r.last)
    })
}

/// Whether region `r` crosses one of `accepted` (overlaps it without one holding the
/// other).
fn crosses(accepted: &[Region], r: &Region) -> bool {
    accepted.iter().any(|a| {
        let disjoint = r.last < a.first || r.first > a.last;
        let inside = r.first >= a.first && r.last <= a.last;
        !(disjoint || inside)
    })
}

/// Adds region `r` as a loop at the end of `u.loops` (order restored later).
fn insert_loop(u: &mut Unit, r: &Region) {
    let parent = u.blocks[r.first].in_loop;
    let id = LoopId(u.loops.len() as u32);
    let header = BlockId(r.first as u32);
    let span = u.blocks[r.first].span;
    let after = if r.last + 1 < u.blocks.len() {
        r.last + 1
    } else {
        r.last
    };
    for b in r.first..=r.last {
        if u.blocks[b].in_loop == parent {
            u.blocks[b].in_loop = Some(id);
        }
    }
    for l in u.loops.iter_mut() {
        if l.parent == parent && l.id != id {
            let first = match l.kind {
                LoopKind::ArrayElements => l.header_block.0 as usize,
                _ => l.entry_block.0 as usize,
            };
            let header_in = (r.first..=r.last).contains(&(l.header_block.0 as usize));
            if header_in && (r.first..=r.last).contains(&first) {
                l.parent = Some(id);
            }
        }
    }
    u.loops.push(Loop {
        id,
        kind: LoopKind::Goto,
        span,
        parent,
        depth: 0,
        var: None,
        bounds: None,
        unit_step: false,
        elements: None,
        entry_block: header,
        header_block: header,
        body_block: header,
        after_block: BlockId(after as u32),
        end_text: TextPos::default(),
        label: None,
        back_edges: r.back.iter().map(|&b| BlockId(b as u32)).collect(),
    });
}

/// Renumbers the loops outer before inner, in source order among siblings, and sets
/// their depths.
fn order_loops(u: &mut Unit) {
    let n = u.loops.len();
    let start = |l: &Loop| -> usize {
        match l.kind {
            LoopKind::Goto => l.header_block.0 as usize,
            _ => (l.entry_block.0 as usize).min(l.header_block.0 as usize),
        }
    };
    // Pre-order walk of the loop tree.
    let mut order: Vec<usize> = Vec::with_capacity(n);
    let mut stack: Vec<usize> = {
        let mut roots: Vec<usize> = (0..n).filter(|&i| u.loops[i].parent.is_none()).collect();
        roots.sort_by_key(|&i| (start(&u.loops[i]), i));
        roots.reverse();
        roots
    };
    while let Some(i) = stack.pop() {
        order.push(i);
        let mut kids: Vec<usize> = (0..n)
            .filter(|&k| u.loops[k].parent == Some(LoopId(i as u32)))
            .collect();
        kids.sort_by_key(|&k| (start(&u.loops[k]), k));
        kids.reverse();
        stack.extend(kids);
    }
    if order.len() != n {
        // A cycle cannot arise from the construction; leave the loops as they are.
        return;
    }
    let mut new_id = vec![0u32; n];
    for (new, &old) in order.iter().enumerate() {
        new_id[old] = new as u32;
    }
    let map = |l: LoopId| LoopId(new_id[l.0 as usize]);
    let mut slots: Vec<Option<Loop>> = std::mem::take(&mut u.loops).into_iter().map(Some).collect();
    for &old in &order {
        let mut l = slots[old].take().expect("each loop placed once");
        l.id = map(l.id);
        l.parent = l.parent.map(map);
        u.loops.push(l);
    }
    for i in 0..n {
        u.loops[i].depth = match u.loops[i].parent {
            Some(p) => u.loops[p.0 as usize].depth + 1,
            None => 1,
        };
    }
    for b in u.blocks.iter_mut() {
        b.in_loop = b.in_loop.map(map);
    }
    for s in u.stmts.iter_mut() {
        if let StmtKind::Do { loop_id, .. } = &mut s.kind {
            *loop_id = map(*loop_id);
        }
    }
}
