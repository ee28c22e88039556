//! The control flow of a function's assembly: its basic blocks, and its innermost
//! natural loops (a header that dominates a block jumping back to it, and the blocks
//! that reach that jump without passing through it), whose blocks need not be
//! contiguous nor start at the top: gcc moves a loop's less likely arms out of line,
//! after the function's other code, and enters a loop at its test at the bottom.

use super::{is_jump, Function};
use std::collections::HashMap;

/// A basic block: the instructions `start..=end` of a function.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Block {
    pub start: usize,
    pub end: usize,
}

/// Where control goes after a block: its conditional jump's target, and where it goes
/// otherwise (the next block, an unconditional jump's target, or nowhere after a
/// return or an indirect jump). Block indices.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(super) struct Successors {
    pub taken: Option<usize>,
    pub next: Option<usize>,
    pub conditional: bool,
}

/// The control flow of one function.
pub(super) struct Cfg {
    pub blocks: Vec<Block>,
    pub succ: Vec<Successors>,
    /// The blocks an indirect jump through a table may go to (its distinct targets, in
    /// the table's order), per block; empty for the others.
    pub switch: Vec<Vec<usize>>,
    /// Every natural loop, found once on first use.
    loops: std::cell::OnceCell<Vec<NaturalLoop>>,
}

/// An innermost natural loop: its blocks, the header first, then the others in the
/// order they appear after it (those before it last).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct NaturalLoop {
    pub blocks: Vec<usize>,
    /// The block of the last jump back to the header.
    pub latch: usize,
}

/// Whether a call's target never returns (the Fortran runtime's STOP and error stops,
/// the C library's exits): the code after it belongs to another path.
fn never_returns(target: &str) -> bool {
    let name = target.trim_end_matches("@PLT");
    const NAMES: [&str; 6] = [
        "_gfortran_stop_",
        "_gfortran_error_stop_",
        "_gfortran_runtime_error",
        "_gfortran_os_error",
        "_gfortran_generate_error",
        "__stack_chk_fail",
    ];
    NAMES.iter().any(|p| name.starts_with(p))
        || matches!(name, "abort" | "exit" | "_exit" | "_gfortran_abort")
}

impl Cfg {
    /// The blocks of `f` and their successors.
    pub fn new(f: &Function) -> Cfg {
        let n = f.instrs.len();
        let target = |j: usize| -> Option<usize> {
            f.instrs[j]
                .operands
                .first()
                .and_then(|l| f.labels.get(l))
                .copied()
        };
        let mut leader = vec![false; n + 1];
        if n > 0 {
            leader[0] = true;
        }
        for &t in f.labels.values() {
            if t < n {
                leader[t] = true;
            }
        }
        for (j, i) in f.instrs.iter().enumerate() {
            let ends = is_jump(&i.mnemonic)
                || i.mnemonic.starts_with("ret")
                || (i.mnemonic == "call" && i.operands.first().is_some_and(|t| never_returns(t)));
            if ends {
                leader[j + 1] = true;
                if let Some(t) = target(j) {
                    leader[t] = true;
                }
            }
        }
        let starts: Vec<usize> = (0..n).filter(|&j| leader[j]).collect();
        let blocks: Vec<Block> = starts
            .iter()
            .enumerate()
            .map(|(k, &s)| Block {
                start: s,
                end: starts.get(k + 1).map_or(n, |&e| e) - 1,
            })
            .collect();
        let of: HashMap<usize, usize> = starts.iter().enumerate().map(|(k, &s)| (s, k)).collect();
        let succ = blocks
            .iter()
            .enumerate()
            .map(|(k, b)| {
                let last = &f.instrs[b.end];
                let after = (k + 1 < blocks.len()).then_some(k + 1);
                let to = target(b.end).and_then(|t| of.get(&t).copied());
                match last.mnemonic.as_str() {
                    "jmp" => Successors {
                        next: to,
                        ..Successors::default()
                    },
                    m if is_jump(m) => Successors {
                        taken: to,
                        next: after,
                        conditional: true,
                    },
                    m if m.starts_with("ret") || m == "ud2" => Successors::default(),
                    "call" if last.operands.first().is_some_and(|t| never_returns(t)) => {
                        Successors::default()
                    }
                    _ => Successors {
                        next: after,
                        ..Successors::default()
                    },
                }
            })
            .collect();
        let switch = blocks
            .iter()
            .map(|b| {
                let mut to: Vec<usize> = vec![];
                let labels = f.tables.get(&b.end).map_or(&[][..], |t| &t[..]);
                for t in labels.iter().filter_map(|l| f.labels.get(l)) {
                    if let Some(&k) = of.get(t) {
                        if !to.contains(&k) {
                            to.push(k);
                        }
                    }
                }
                to
            })
            .collect();
        Cfg {
            blocks,
            succ,
            switch,
            loops: Default::default(),
        }
    }

    /// Where control may go after block `b`.
    fn targets(&self, b: usize) -> impl Iterator<Item = usize> + '_ {
        let s = self.succ[b];
        s.taken
            .into_iter()
            .chain(s.next)
            .chain(self.switch[b].iter().copied())
    }

    /// Each block's immediate dominator (a root's is itself; `None` for blocks no root
    /// reaches), by Cooper, Harvey and Kennedy's iteration over the reverse postorder.
    /// The roots are the entry and the blocks nothing jumps or falls to: the targets of
    /// an indirect jump through a table (a computed GOTO or a SELECT CASE compiled to
    /// `jmp *%rax`), which the instructions do not name; a virtual root above them all
    /// keeps the code their arms share dominated by neither.
    fn dominators(&self) -> Vec<Option<usize>> {
        let n = self.blocks.len();
        if n == 0 {
            return vec![];
        }
        let roots = self.roots();
        let root = n;
        let targets = |b: usize| -> Vec<usize> {
            if b == root {
                roots.clone()
            } else {
                self.targets(b).collect()
            }
        };
        let mut order = vec![];
        let mut seen = vec![false; n + 1];
        let mut stack: Vec<(usize, bool)> = vec![(root, false)];
        while let Some((b, expanded)) = stack.pop() {
            if expanded {
                order.push(b);
                continue;
            }
            if seen[b] {
                continue;
            }
            seen[b] = true;
            stack.push((b, true));
            stack.extend(
                targets(b)
                    .into_iter()
                    .filter(|&t| !seen[t])
                    .map(|t| (t, false)),
            );
        }
        order.reverse();
        let mut rank = vec![usize::MAX; n + 1];
        for (k, &b) in order.iter().enumerate() {
            rank[b] = k;
        }
        let mut preds: Vec<Vec<usize>> = vec![vec![]; n + 1];
        for &b in &order {
            for t in targets(b) {
                preds[t].push(b);
            }
        }
        let mut idom: Vec<Option<usize>> = vec![None; n + 1];
        idom[root] = Some(root);
        let mut changed = true;
        while changed {
            changed = false;
            for &b in order.iter().skip(1) {
                let mut new: Option<usize> = None;
                for &p in &preds[b] {
                    if idom[p].is_none() {
                        continue;
                    }
                    new = Some(match new {
                        None => p,
                        Some(q) => {
                            let (mut x, mut y) = (p, q);
                            while x != y {
                                while rank[x] > rank[y] {
                                    x = idom[x].unwrap_or(root);
                                }
                                while rank[y] > rank[x] {
                                    y = idom[y].unwrap_or(root);
                                }
                            }
                            x
                        }
                    });
                }
                if new.is_some() && idom[b] != new {
                    idom[b] = new;
                    changed = true;
                }
            }
        }
        idom.truncate(n);
        for (b, d) in idom.iter_mut().enumerate() {
            if *d == Some(root) {
                *d = Some(b);
            }
        }
        idom
    }

    /// The entry and the blocks no block jumps or falls to.
    fn roots(&self) -> Vec<usize> {
        let n = self.blocks.len();
        let mut has_pred = vec![false; n];
        for b in 0..n {
            for t in self.targets(b) {
                has_pred[t] = true;
            }
        }
        (0..n).filter(|&b| b == 0 || !has_pred[b]).collect()
    }

    /// The innermost natural loops: for each block that dominates a block jumping to
    /// it (a back edge), the blocks that reach such a jump without passing through it;
    /// those none of whose blocks heads another loop.
    pub fn innermost_loops(&self) -> Vec<NaturalLoop> {
        let loops = self.natural_loops();
        let headers: Vec<usize> = loops.iter().map(|l| l.blocks[0]).collect();
        loops
            .iter()
            .filter(|l| {
                !headers
                    .iter()
                    .any(|&o| o != l.blocks[0] && l.blocks.contains(&o))
            })
            .cloned()
            .collect()
    }

    /// The loops that hold every block of `l` and more, innermost first.
    pub fn enclosing_loops(&self, l: &NaturalLoop) -> Vec<NaturalLoop> {
        let mut out: Vec<NaturalLoop> = self
            .natural_loops()
            .iter()
            .filter(|o| o.blocks.len() > l.blocks.len())
            .filter(|o| l.blocks.iter().all(|b| o.blocks.contains(b)))
            .cloned()
            .collect();
        out.sort_by_key(|o| o.blocks.len());
        out
    }

    /// The loops strictly inside `outer`, when each of them is innermost; `None` when one
    /// holds another loop.
    pub fn innermost_inside(&self, outer: &NaturalLoop) -> Option<Vec<NaturalLoop>> {
        let inside: Vec<NaturalLoop> = self
            .natural_loops()
            .iter()
            .filter(|o| o.blocks[0] != outer.blocks[0])
            .filter(|o| o.blocks.iter().all(|b| outer.blocks.contains(b)))
            .cloned()
            .collect();
        let nested = inside.iter().any(|o| {
            inside
                .iter()
                .any(|q| q.blocks[0] != o.blocks[0] && o.blocks.contains(&q.blocks[0]))
        });
        (!nested).then_some(inside)
    }

    /// Every natural loop, one a header, header first.
    fn natural_loops(&self) -> &[NaturalLoop] {
        self.loops.get_or_init(|| self.find_natural_loops())
    }

    /// [`Cfg::natural_loops`], found: for each block that dominates a block jumping to it,
    /// the blocks that reach such a jump without passing through it.
    fn find_natural_loops(&self) -> Vec<NaturalLoop> {
        let n = self.blocks.len();
        let idom = self.dominators();
        let dominates = |h: usize, mut b: usize| loop {
            if b == h {
                return true;
            }
            match idom[b] {
                Some(d) if d != b => b = d,
                _ => return false,
            }
        };
        let mut preds: Vec<Vec<usize>> = vec![vec![]; n];
        let mut latches: std::collections::BTreeMap<usize, Vec<usize>> = Default::default();
        for b in (0..n).filter(|&b| idom[b].is_some()) {
            for t in self.targets(b) {
                preds[t].push(b);
                if dominates(t, b) {
                    latches.entry(t).or_default().push(b);
                }
            }
        }
        let mut loops: Vec<NaturalLoop> = vec![];
        for (&h, ls) in &latches {
            let mut inside = vec![false; n];
            inside[h] = true;
            let mut stack: Vec<usize> = ls.clone();
            while let Some(b) = stack.pop() {
                if !inside[b] {
                    inside[b] = true;
                    stack.extend(preds[b].iter().copied());
                }
            }
            let body: Vec<usize> = (h..n).chain(0..h).filter(|&b| inside[b]).collect();
            let latch = ls
                .iter()
                .copied()
                .max_by_key(|&b| (b + n - h) % n)
                .unwrap_or(h);
            loops.push(NaturalLoop {
                blocks: body,
                latch,
            });
        }
        loops
    }

    /// The blocks of `l` (indices into `l.blocks`) reached from its block `from` before
    /// control comes back to the header, `from` included.
    pub fn reached_within(&self, l: &NaturalLoop, from: usize) -> Vec<usize> {
        let index = |b: usize| l.blocks.iter().position(|&x| x == b);
        let mut seen = vec![from];
        let mut open = vec![from];
        while let Some(k) = open.pop() {
            for t in self.targets(l.blocks[k]).filter_map(index) {
                if t != 0 && !seen.contains(&t) {
                    seen.push(t);
                    open.push(t);
                }
            }
        }
        seen
    }

    /// The paths of an iteration of `l` from its header back to it, as indices into
    /// `l.blocks` (paths that leave the loop apart); none when there are more than
    /// `most`.
    pub fn paths(&self, l: &NaturalLoop, most: usize) -> Vec<Vec<usize>> {
        let index = |b: usize| l.blocks.iter().position(|&x| x == b);
        let mut done: Vec<Vec<usize>> = vec![];
        let mut open: Vec<Vec<usize>> = vec![vec![0]];
        while let Some(p) = open.pop() {
            let last = *p.last().unwrap_or(&0);
            for t in self.targets(l.blocks[last]).filter_map(index) {
                if t == 0 {
                    done.push(p.clone());
                } else if !p.contains(&t) {
                    let mut q = p.clone();
                    q.push(t);
                    open.push(q);
                }
            }
            if done.len() + open.len() > most {
                return vec![];
            }
        }
        done
    }
}
