//! Failed store forwardings priced: each load the optimization report lists in
//! `forwarding_failures` (a vector read of bytes narrower stores just wrote) waits for
//! those stores to reach the cache, the machine's `forward_wide` latency, every time
//! the block holding its line runs. The wait lengthens the block's work as a
//! recurrence does (its AbOps scaled, its executions kept), so every breakdown carries
//! it. Machines without the class (profiles made before it) price nothing.

use crate::cost::{Coefficients, CostTable};
use crate::recurrence::scale_work;
use augur_ir::incore::{ClassWidth, InstrClass, Width};
use augur_ir::BlockKind;
use augur_program_profile::optreport::OptReport;
use augur_program_profile::UnitProfile;

/// Adds the failed forwardings' waits to the blocks holding their lines.
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
    for site in &report.forwarding_failures {
        for (u, unit_c) in units.iter().zip(blocks.iter_mut()) {
            if u.file != site.file {
                continue;
            }
            let Some(b) = block_of_line(u, site.line) else {
                continue;
            };
            let executions = u.blocks[b].executions.unwrap_or(0.0);
            let c = &mut unit_c[b];
            let work = table.cost_of(&crate::block::without_branches(c)).seconds;
            if executions > 0.0 && work > 0.0 {
                scale_work(c, 1.0 + executions * wait / work);
            }
        }
    }
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
    }
}
