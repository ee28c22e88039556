//! Failed store forwardings priced: each load the optimization report lists in
//! `forwarding_failures` (a vector read of bytes narrower stores just wrote) waits for
//! those stores to reach the cache, the machine's `forward_wide` latency, every time
//! the block holding its line runs. The wait lengthens the block's work as a
//! recurrence does (its AbOps scaled, its executions kept), so every breakdown carries
//! it. Machines without the class (profiles made before it) price nothing.

use crate::block::split_ops;
use crate::cost::{Coefficients, CostTable, LIBRARY_CALLS};
use crate::recurrence::scale_work;
use augur_ir::incore::{ClassWidth, InstrClass, Width};
use augur_ir::{AbOpCounts, BlockKind};
use augur_program_profile::optreport::OptReport;
use augur_program_profile::UnitProfile;
use std::collections::BTreeMap;

/// Adds the failed forwardings' waits to the blocks holding their lines, but for the
/// loads that hand a library call its argument inside a loop whose recurrence is priced
/// with its calls ([`forwarded_calls`]): their wait is part of the call's chain cost.
pub(crate) fn add_failed_forwardings(
    units: &[UnitProfile],
    table: &CostTable,
    report: Option<&OptReport>,
    blocks: &mut [Vec<Coefficients>],
) {
    let Some(report) = report.filter(|r| !r.forwarding_failures.is_empty()) else {
        return;
    };
    let Some(wait) = table
        .incore
        .as_ref()
        .and_then(|p| p.cost(ClassWidth::new(InstrClass::ForwardWide, Width::Scalar)))
        .map(|c| c.latency_ns * 1e-9)
        .filter(|w| *w > 0.0)
    else {
        return;
    };
    for (u, unit_c) in units.iter().zip(blocks.iter_mut()) {
        for (b, sites) in sites_per_block(u, report) {
            // Without optimization every call's load waits as any other: the rule of
            // `forwarded_calls` is for optimized code only.
            let fed = if table.register_scalars {
                calls_fed(u, b, sites)
            } else {
                0.0
            };
            let loads = sites - fed;
            let executions = u.blocks[b].executions.unwrap_or(0.0);
            let c = &mut unit_c[b];
            let work = table.cost_of(&crate::block::without_branches(c)).seconds;
            if loads > 0.0 && executions > 0.0 && work > 0.0 {
                scale_work(c, 1.0 + loads * executions * wait / work);
            }
        }
    }
}

/// The failed forwardings of `u`'s lines, per block holding them.
fn sites_per_block(u: &UnitProfile, report: &OptReport) -> BTreeMap<usize, f64> {
    let mut out = BTreeMap::new();
    for site in report
        .forwarding_failures
        .iter()
        .filter(|s| s.file == u.file)
    {
        if let Some(b) = block_of_line(u, site.line) {
            *out.entry(b).or_default() += 1.0;
        }
    }
    out
}

/// How many of the `sites` failed forwardings of block `b` hand a library call its
/// argument, in an innermost loop whose recurrence [`crate::recurrence`] prices with its
/// calls: all of them where the block makes calls (more loads than calls are copies of
/// the same argument's load, in an iteration the compiler peeled off the loop).
fn calls_fed(u: &UnitProfile, b: usize, sites: f64) -> f64 {
    let block = &u.blocks[b];
    let in_priced_loop = block.in_loop.is_some_and(|id| {
        !u.loops.iter().any(|o| o.parent == Some(id))
            && u.loops
                .iter()
                .any(|l| l.id == id && l.serial_calls.is_some())
    });
    if !in_priced_loop {
        return 0.0;
    }
    let calls: f64 = split_ops(&block.counts, &LIBRARY_CALLS)
        .0
        .iter()
        .map(|(_, k)| k)
        .sum();
    if calls > 0.0 {
        sites
    } else {
        0.0
    }
}

/// The library calls one execution of block `b` makes whose argument arrives through a
/// failed store forwarding (a single-precision complex passed by value, `cabsf(z)`:
/// its halves stored apart and read as one). Such a load waits until the stores reach
/// the cache, that is until every instruction before it has retired, the previous
/// call's included: those calls run one after another at their latency, their chain
/// cost (whose kernel passes its argument the same way), however independent their
/// arguments (on a Zen 5 guest `s = s + cabs(cmplx(x(i), y(i)))` takes 19 ns an
/// iteration, CABS's chain cost 16.7 ns, its stream cost 2.1; a double-precision
/// complex, passed in two registers, 3.7 ns). Empty where no failure lies in the block.
pub(crate) fn forwarded_calls(u: &UnitProfile, report: Option<&OptReport>, b: usize) -> AbOpCounts {
    let mut out = AbOpCounts::new();
    let Some(report) = report else {
        return out;
    };
    let sites = report
        .forwarding_failures
        .iter()
        .filter(|s| s.file == u.file && block_of_line(u, s.line) == Some(b))
        .count() as f64;
    let calls = split_ops(&u.blocks[b].counts, &LIBRARY_CALLS).0;
    let total: f64 = calls.iter().map(|(_, k)| k).sum();
    if sites > 0.0 && total > 0.0 {
        out.add_scaled(&calls, (sites / total).min(1.0));
    }
    out
}

/// The block of `u` whose lines hold `line` most narrowly (a statement's own block
/// before the loop or procedure around it), among those that ran. An array statement's
/// element block runs once per element; the load runs once per statement, in the block
/// around it.
fn block_of_line(u: &UnitProfile, line: u32) -> Option<usize> {
    u.blocks
        .iter()
        .enumerate()
        .filter(|(_, b)| b.first_line <= line && line <= b.last_line)
        .filter(|(_, b)| b.block_kind != BlockKind::Elements)
        .filter(|(_, b)| b.executions.is_some_and(|e| e > 0.0))
        .min_by_key(|(_, b)| b.last_line - b.first_line)
        .map(|(i, _)| i)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::block::BlockContext;
    use crate::test_support::{
        add_mul_machine, block_profile, incore_machine, pricing, unit_with_one_loop,
    };
    use augur_ir::{AbOp, AbOpCounts};
    use augur_program_profile::optreport::SourceLine;

    #[test]
    fn each_failed_forwarding_waits_once_per_execution_of_its_block() {
        let mut counts = AbOpCounts::new();
        counts.add(AbOp::ARDL, 4.0);
        let unit = unit_with_one_loop(
            "t",
            vec![block_profile(
                BlockKind::Straight,
                counts,
                AbOpCounts::new(),
            )],
        );
        let mut machine = add_mul_machine();
        machine.incore = Some(incore_machine(&[("forward_wide", 5.0, 0.1)]));
        let table = CostTable::from_profile(&machine);
        let priced = |report: Option<&OptReport>| {
            let mut blocks = vec![vec![
                pricing(&table).total(&unit.blocks[0], BlockContext::default())
            ]];
            add_failed_forwardings(std::slice::from_ref(&unit), &table, report, &mut blocks);
            (
                table.cost_of(&blocks[0][0]).seconds,
                blocks[0][0].operations(),
            )
        };
        let (before, ops) = priced(None);
        let report = OptReport {
            forwarding_failures: vec![SourceLine {
                file: "t.f90".into(),
                line: 1,
            }],
            ..OptReport::default()
        };
        let (after, ops_after) = priced(Some(&report));
        // Ten executions, one 5 ns wait each; the AbOps executed stay as counted.
        assert!((after - before - 50e-9).abs() < 1e-15, "{before} {after}");
        assert_eq!(ops, ops_after);
        // A machine that did not measure the wait prices nothing.
        let plain = CostTable::from_profile(&add_mul_machine());
        let mut blocks = vec![vec![
            pricing(&plain).total(&unit.blocks[0], BlockContext::default())
        ]];
        let c0 = plain.cost_of(&blocks[0][0]).seconds;
        add_failed_forwardings(
            std::slice::from_ref(&unit),
            &plain,
            Some(&report),
            &mut blocks,
        );
        assert_eq!(plain.cost_of(&blocks[0][0]).seconds, c0);
        // The load hands a library call its argument in a loop whose recurrence prices
        // that call at its chain cost (the wait inside it): nothing more here.
        let mut table = table;
        table.register_scalars = true;
        let mut caller = unit.clone();
        caller.blocks[0].counts.add(AbOp::CABS, 1.0);
        caller.blocks[0].in_loop = Some(0);
        caller.loops[0].serial_calls = Some(AbOpCounts::new());
        let mut blocks = vec![vec![
            pricing(&table).total(&caller.blocks[0], BlockContext::default())
        ]];
        let c0 = table.cost_of(&blocks[0][0]).seconds;
        add_failed_forwardings(
            std::slice::from_ref(&caller),
            &table,
            Some(&report),
            &mut blocks,
        );
        assert_eq!(table.cost_of(&blocks[0][0]).seconds, c0);
        assert_eq!(
            forwarded_calls(&caller, Some(&report), 0).get(AbOp::CABS),
            1.0
        );
        assert_eq!(
            forwarded_calls(&unit, Some(&report), 0).get(AbOp::CABS),
            0.0
        );
    }
}
