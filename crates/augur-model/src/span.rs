//! Straight-line procedure bodies at the pace of their longest dependent path.
//!
//! A procedure without loops whose statements depend on each other (a cubic gives `cc`,
//! then `c11 = 1/cc`, then `dmg = aa - nn - ff*ff*c11`, then the derivatives from it:
//! mineos's `derms`, 73 cycles a call measured on a Xeon at -O2 where its operations at
//! throughput take 33) runs at the latency of that path on every call, unless the core
//! overlaps the next calls with it. It keeps as many calls in flight as its window holds
//! their operations (one AbOp for about one instruction), so a short body, or one whose
//! path is short, keeps its throughput price; the body's blocks are scaled up to the path
//! (`UnitProfile::body_span` at chain costs) only where it is the slower. A path a
//! variable carries from one call to the next (`UnitProfile::carried_span`: a random
//! number generator's SAVE'd seed) is not overlapped at all.

use crate::block::without_branches;
use crate::cost::{Coefficients, CostTable};
use crate::recurrence::scale_work;
use augur_program_profile::UnitProfile;

/// Scales the blocks outside loops of each unit of `units` (`blocks_c`, priced) to the
/// time of its calls' longest dependent path (where the machine's window is known) or
/// of the path a variable carries from call to call, where that is longer.
pub(crate) fn scale_bodies_to_spans(
    units: &[UnitProfile],
    table: &CostTable,
    blocks_c: &mut [Vec<Coefficients>],
) {
    let window = table
        .incore
        .as_ref()
        .and_then(|m| m.window)
        .filter(|w| *w > 0.0);
    for (u, unit_c) in units.iter().zip(blocks_c.iter_mut()) {
        if let Some(k) = span_scale(u, table, unit_c, window) {
            for (b, c) in u.blocks.iter().zip(unit_c.iter_mut()) {
                if outside_loops(b) {
                    scale_work(c, k);
                }
            }
        }
    }
}

/// Whether block `b` is part of the straight-line body (outside loops, not an array
/// statement's elements).
fn outside_loops(b: &augur_program_profile::BlockProfile) -> bool {
    b.in_loop.is_none() && b.block_kind != augur_ir::BlockKind::Elements
}

/// The factor that brings the body of `u` (its blocks `unit_c`, priced) to its
/// calls' longest path overlapped `window / operations a call` times (without a window,
/// not at all), or to its carried path one call after the other, when above one.
fn span_scale(
    u: &UnitProfile,
    table: &CostTable,
    unit_c: &[Coefficients],
    window: Option<f64>,
) -> Option<f64> {
    let calls = u.calls.filter(|c| *c > 0.0)?;
    if u.body_span.is_empty() && u.carried_span.is_empty() {
        return None;
    }
    let mut body = Coefficients::default();
    let mut operations = 0.0;
    for (b, c) in u.blocks.iter().zip(unit_c) {
        if outside_loops(b) {
            body.add(&without_branches(c));
            operations += b.counts.total() * b.executions.unwrap_or(0.0);
        }
    }
    let t_body = table.cost_of(&body).seconds;
    let at_chain_costs = |path: &augur_ir::AbOpCounts| -> f64 {
        path.iter().map(|(op, n)| n * table.get(op).seconds).sum()
    };
    let overlapped = window.map_or(0.0, |w| {
        let in_flight = (w * calls / operations.max(1.0)).max(1.0);
        calls * at_chain_costs(&u.body_span) / in_flight
    });
    // The path a variable carries from one call to the next is not overlapped: the next
    // call starts it from this one's result.
    let t_span = overlapped.max(calls * at_chain_costs(&u.carried_span));
    (t_body > 0.0 && t_span > t_body).then(|| t_span / t_body)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::block::BlockContext;
    use crate::test_support::{add_mul_machine, block_profile, incore_machine, pricing};
    use augur_ir::{AbOp, AbOpCounts};

    /// A function called 100 times whose body is one block of an add and a multiply,
    /// both on its longest path.
    fn dependent_body() -> UnitProfile {
        let mut ops = AbOpCounts::new();
        ops.add(AbOp::ARDL, 1.0);
        ops.add(AbOp::MRDL, 1.0);
        let block = augur_program_profile::BlockProfile {
            in_loop: None,
            executions: Some(100.0),
            ..block_profile(augur_ir::BlockKind::Entry, ops.clone(), AbOpCounts::new())
        };
        UnitProfile {
            calls: Some(100.0),
            loops: vec![],
            body_span: ops,
            ..crate::test_support::unit_with_one_loop("f", vec![block])
        }
    }

    /// The body's time on the add/multiply machine with a window of `window`
    /// instructions, before and after the rule.
    fn body_seconds(window: f64) -> (f64, f64) {
        body_seconds_of(dependent_body(), Some(window))
    }

    /// [`body_seconds`] of unit `u`; no in-core section without a window.
    fn body_seconds_of(u: UnitProfile, window: Option<f64>) -> (f64, f64) {
        let mut m = add_mul_machine();
        m.incore = window.map(|w| augur_machine_profile::incore::InCoreProfile {
            window: Some(w),
            ..incore_machine(&[])
        });
        let t = CostTable::from_profile(&m);
        let priced: Vec<Coefficients> = u
            .blocks
            .iter()
            .map(|b| pricing(&t).total(b, BlockContext::default()))
            .collect();
        let before = t.cost_of(&priced[0]).seconds;
        let mut blocks = vec![priced];
        scale_bodies_to_spans(std::slice::from_ref(&u), &t, &mut blocks);
        (before, t.cost_of(&blocks[0][0]).seconds)
    }

    #[test]
    fn a_body_waits_for_its_path_when_few_calls_fit_the_window() {
        // The path: 3 + 3 ns a call; 10 instructions in flight hold 5 calls of 2
        // operations: 100 calls take 100 * 6 / 5 = 120 ns, above their throughput.
        let (before, after) = body_seconds(10.0);
        assert!(before < 120e-9, "{before}");
        assert!((after - 120e-9).abs() < 1e-12, "{after}");
        // A window of 1,000 overlaps 500 calls: the throughput stands.
        let (before, after) = body_seconds(1000.0);
        assert_eq!(before, after);
    }

    #[test]
    fn a_variable_carried_to_the_next_call_is_waited_for_whatever_the_window() {
        // The same body whose add and multiply update a SAVE'd seed: each call starts
        // from the last one's result, 100 calls take 100 * 6 ns with any window, or
        // none known.
        let u = UnitProfile {
            carried_span: dependent_body().body_span,
            ..dependent_body()
        };
        for window in [Some(1000.0), None] {
            let (before, after) = body_seconds_of(u.clone(), window);
            assert!(before < 600e-9, "{before}");
            assert!((after - 600e-9).abs() < 1e-12, "{after}");
        }
        // The longest path alone needs the window to say how far calls overlap.
        let (before, after) = body_seconds_of(dependent_body(), None);
        assert_eq!(before, after);
    }
}
