//! The program priced block by block: every block once in its compiler context and
//! once at throughput, then the bodies of innermost loops scaled to their recurrences
//! (with the procedures inlined into them); the branch mispredictions outside
//! vectorized loops counted on the way. Every part of the program is a sum of blocks.

use crate::block::{
    block_context, floating_arithmetic, priced_chain, without_chain, BlockPricing, BRANCH_ABOPS,
};
use crate::cost::{Coefficients, CostTable};
use crate::recurrence::{inlined_shares, loop_recurrences, scale_work};
use augur_ir::AbOp;
use augur_program_profile::optreport::OptReport;
use augur_program_profile::{LoopProfile, ProgramProfile, UnitProfile};

/// Every block of a program priced, indexed by unit, then by block.
pub(crate) struct PricedBlocks {
    /// Each block's coefficients over all its executions (loop bodies scaled to their
    /// recurrences).
    pub blocks: Vec<Vec<Coefficients>>,
    /// The same at throughput: every block priced as if it carried no recurrence.
    pub throughput: Vec<Vec<Coefficients>>,
    /// Branch mispredictions outside vectorized loops.
    pub mispredictions: f64,
    /// Their time at the machine's misprediction costs.
    pub branch_seconds: f64,
    /// Per unit, the seconds each innermost loop priced from its compiled code leaves
    /// the core idle waiting on its chain (loop id, seconds).
    pub idle: Vec<Vec<(u32, f64)>>,
}

/// Prices every block of `program`; `report` is its optimization report when it is
/// for the machine's compiler and flags.
pub(crate) fn price_blocks(
    program: &ProgramProfile,
    pricing: BlockPricing,
    report: Option<&OptReport>,
) -> PricedBlocks {
    let table = pricing.table;
    if let (Some(m), Some(r)) = (&table.incore, report) {
        crate::incore::replay_compiled_loops(r, m);
    }
    // Unoptimized code forwards a recurrence's value once an assignment, not once an
    // operation.
    let units = crate::unoptimized::unoptimized_units(&program.units, table);
    let units: &[UnitProfile] = &units;
    // Price every block once (every part is a sum of blocks), and count the
    // mispredictions outside vectorized loops with their time.
    let (mut mispredictions, mut branch_seconds) = (0.0, 0.0);
    let mut blocks_c: Vec<Vec<Coefficients>> = Vec::with_capacity(program.units.len());
    // The same at throughput: every block priced as if it carried no recurrence.
    let mut throughput_c: Vec<Vec<Coefficients>> = Vec::with_capacity(program.units.len());
    for u in units {
        let mut unit_c = Vec::with_capacity(u.blocks.len());
        let mut unit_thru = Vec::with_capacity(u.blocks.len());
        for b in &u.blocks {
            let ctx = block_context(report, u, b);
            let mu = b.executions.unwrap_or(0.0);
            if mu > 0.0 && !ctx.branchless && !(table.has_vector() && ctx.vectorized) {
                for op in BRANCH_ABOPS {
                    let n = mu * b.counts.get(op);
                    // A kept branch costs a full misprediction whatever its arms.
                    let priced = if ctx.branch_kept { AbOp::BRMP } else { op };
                    mispredictions += n;
                    branch_seconds += n * table.get(priced).seconds;
                }
            }
            unit_c.push(pricing.total(b, ctx));
            unit_thru.push(pricing.total(&without_chain(b), ctx));
        }
        blocks_c.push(unit_c);
        throughput_c.push(unit_thru);
    }
    if table.has_stream() {
        scale_to_recurrences(units, table, report, &mut blocks_c, &throughput_c);
    }
    crate::span::scale_bodies_to_spans(units, table, report, &mut blocks_c);
    crate::forwarding::add_failed_forwardings(units, table, report, &mut blocks_c);
    crate::library_moves::price_library_moves(units, table, report, &mut blocks_c);
    let idle = units
        .iter()
        .map(|u| {
            u.loops
                .iter()
                .map(|l| (l.id, crate::recurrence::compiled_idle(table, report, u, l)))
                .filter(|(_, t)| *t > 0.0)
                .collect()
        })
        .collect();
    PricedBlocks {
        idle,
        blocks: blocks_c,
        throughput: throughput_c,
        mispredictions,
        branch_seconds,
    }
}

/// Scales the bodies of innermost loops to their recurrences
/// ([`loop_recurrences`]), and the blocks of procedures inlined into them with them.
fn scale_to_recurrences(
    units: &[UnitProfile],
    table: &CostTable,
    report: Option<&OptReport>,
    blocks_c: &mut [Vec<Coefficients>],
    throughput_c: &[Vec<Coefficients>],
) {
    let shares = inlined_shares(units, table, report, blocks_c, throughput_c);
    let mut callee_scales = vec![];
    for (((u, unit_c), thru), inlined) in units
        .iter()
        .zip(blocks_c.iter_mut())
        .zip(throughput_c)
        .zip(&shares)
    {
        callee_scales.extend(loop_recurrences(table, report, u, unit_c, thru, inlined));
    }
    // An inlined procedure's blocks take their loops' scale, each for its share.
    for (vi, share, k) in callee_scales {
        for c in &mut blocks_c[vi] {
            scale_work(c, 1.0 + share * (k - 1.0));
        }
    }
}

/// A loop's blocks (those of the loops nested in it included) summed.
pub(crate) struct LoopSum {
    /// Their coefficients.
    pub work: Coefficients,
    /// The same at throughput.
    pub throughput: Coefficients,
    /// Whether the loop or one of its blocks carries a floating-point recurrence.
    pub floating_chain: bool,
    /// The last line of its blocks (at least the loop's own line).
    pub last_line: u32,
    /// The seconds its compiled innermost loops leave the core idle on their chains.
    pub compiled_idle: f64,
}

impl PricedBlocks {
    /// The sum of the blocks of loop `l` of unit `u` (index `ui`).
    pub(crate) fn loop_sum(
        &self,
        table: &CostTable,
        ui: usize,
        u: &UnitProfile,
        l: &LoopProfile,
    ) -> LoopSum {
        let mut loop_c = Coefficients::default();
        let mut loop_thru = Coefficients::default();
        let mut floating_chain = !floating_arithmetic(&l.chain).is_empty();
        let mut last = l.line;
        for (bi, b) in u.blocks.iter().enumerate() {
            if inside_loop(u, b.in_loop, l.id) {
                loop_c.add(&self.blocks[ui][bi]);
                loop_thru.add(&self.throughput[ui][bi]);
                floating_chain |= !floating_arithmetic(priced_chain(table, b)).is_empty();
                last = last.max(b.last_line);
            }
        }
        let compiled_idle = self.idle[ui]
            .iter()
            .filter(|(id, _)| inside_loop(u, Some(*id), l.id))
            .map(|(_, t)| t)
            .sum();
        LoopSum {
            compiled_idle,
            work: loop_c,
            throughput: loop_thru,
            floating_chain,
            last_line: last,
        }
    }
}

/// Whether a block whose innermost loop is `inner` lies inside loop `target`.
pub(crate) fn inside_loop(u: &UnitProfile, inner: Option<u32>, target: u32) -> bool {
    let mut cur = inner;
    let mut guard = 0;
    while let Some(l) = cur {
        if l == target {
            return true;
        }
        cur = u.loops.iter().find(|x| x.id == l).and_then(|x| x.parent);
        guard += 1;
        if guard > u.loops.len() {
            return false;
        }
    }
    false
}
