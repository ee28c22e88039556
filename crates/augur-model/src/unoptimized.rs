//! Recurrences of unoptimized code: one store and reload an assignment, not an operation.
//!
//! Without optimization every variable lives in memory, and the chain costs a machine
//! profile measures so (`x = x + y` at -O0) hold the operation's latency and a
//! store-to-load forwarding each. But the operations of one statement pass their values
//! in registers: `r = 0.25*(p(i-1,j) + p(i+1,j) + p(i,j-1) + p(i,j+1)) - p(i,j)` waits
//! for one forwarding, at its assignment, not one an operation. A path of `K`
//! operations through `A` assignments (`augur_ir::chain::ChainPath`, recorded in the
//! program profile as `chain_assignments` and the like) waits for `A` forwardings: each
//! arithmetic operation's chain cost loses the forwarding of its kind (`[incore]
//! forward`, `forward_int`) for the share `1 - A/K` of its executions on the path. The
//! counts the pricing takes are scaled so, and every breakdown keeps its AbOps.
//!
//! Loops' and blocks' recurrences only: the longest path through a straight-line
//! procedure body (`body_span`, `carried_span`) keeps one forwarding an operation. On
//! mineos's `derms` (a body of 215 AbOps a call, its path 18 operations through 5
//! assignments) the rule took the prediction of the whole program from +17% to -30% on
//! a Zen 5 guest at -O0, where the body runs at 40 ns a call: such a body waits for the
//! loads of its arguments and COMMON elements through their addresses as well, which
//! its path does not count, and the forwardings an operation stood in for them.
//!
//! Measured on a Zen 5 guest (gfortran 12 -O0): a Gauss-Seidel sweep whose recurrence
//! holds eight operations through two assignments takes 9.1 ns an iteration; one
//! forwarding an operation priced it at 22.5 ns, one an assignment gives 8.5 ns (corpus `mixed`).

use crate::cost::CostTable;
use augur_ir::incore::{ClassWidth, InstrClass, Width};
use augur_ir::{AbOp, AbOpCounts};
use augur_program_profile::UnitProfile;
use std::borrow::Cow;

/// The store-to-load forwarding latencies of a machine, seconds: floating-point and
/// integer values.
#[derive(Debug, Clone, Copy)]
struct Forwarding {
    floating: f64,
    integer: f64,
}

impl Forwarding {
    /// The forwarding an AbOp's chain cost holds without optimization that a statement
    /// spares: its result stored and reloaded, where the operation computes in registers
    /// inline. GCC keeps a statement's intermediate values in registers only inside one
    /// basic block and across no call, so an operation that branches (a complex
    /// division's range reduction) or calls the library (powers, intrinsics) passes them
    /// through memory in the statement too: those, and characters, branches and the
    /// rest, keep their chain cost as measured (measured on the corpus at -O0 on three
    /// hosts: a complex Newton step `z = z - (z**5 - 1)/(5*z**4)` went from -2% to -20%
    /// when its division and power lost their forwarding; `z = z*z + c` from +33% to +2%
    /// when its multiply and add did).
    fn of(&self, op: AbOp) -> Option<f64> {
        let info = op.info();
        let (group, meaning) = (info.group, info.meaning);
        let inline = meaning.starts_with("Add/subtract")
            || meaning.starts_with("Multiply")
            || (meaning.starts_with("Divide") && !group.starts_with("complex"));
        if !inline {
            None
        } else if group.starts_with("real") || group.starts_with("complex") {
            Some(self.floating)
        } else if group.starts_with("integer") {
            Some(self.integer)
        } else {
            None
        }
    }
}

/// `units` with the recurrences of their blocks and loops priced as unoptimized code
/// runs them (see the module), where the machine keeps variables in
/// memory (`CostTable::register_scalars` false) and measured its forwarding; `units`
/// itself otherwise, and for profiles made before the assignments were recorded.
pub(crate) fn unoptimized_units<'a>(
    units: &'a [UnitProfile],
    table: &CostTable,
) -> Cow<'a, [UnitProfile]> {
    let Some(forwarding) = forwarding(table) else {
        return Cow::Borrowed(units);
    };
    let recorded = units.iter().any(|u| {
        u.blocks.iter().any(|b| b.chain_assignments.is_some())
            || u.loops.iter().any(|l| l.chain_assignments.is_some())
    });
    if !recorded {
        return Cow::Borrowed(units);
    }
    let mut out = units.to_vec();
    for u in &mut out {
        for b in &mut u.blocks {
            rescale(table, forwarding, &mut b.chain, b.chain_assignments);
        }
        for l in &mut u.loops {
            rescale(table, forwarding, &mut l.chain, l.chain_assignments);
        }
    }
    Cow::Owned(out)
}

/// The machine's forwarding latencies when it prices unoptimized code and measured them.
fn forwarding(table: &CostTable) -> Option<Forwarding> {
    if table.register_scalars {
        return None;
    }
    let m = table.incore.as_ref()?;
    let latency = |class| {
        m.cost(ClassWidth::new(class, Width::Scalar))
            .map(|c| c.latency_ns.max(0.0) * 1e-9)
    };
    Some(Forwarding {
        floating: latency(InstrClass::Forward)?,
        integer: latency(InstrClass::ForwardInt).unwrap_or(0.0),
    })
}

/// The least share of its chain cost an operation keeps: a forwarding measured above an
/// operation's own chain cost (noise, or a kind of value forwarded faster) takes no
/// more than this off it.
const LEAST_KEPT: f64 = 0.1;

/// Scales `path` (operations through `assignments` assignments) so that its chain
/// costs hold one forwarding an assignment instead of one an operation. An operation
/// that keeps its forwarding ([`Forwarding::of`]) passes its result through memory
/// anyway; the inline ones supply the forwardings of the assignments, one each, as far
/// as there are inline operations.
fn rescale(
    table: &CostTable,
    forwarding: Forwarding,
    path: &mut AbOpCounts,
    assignments: Option<f64>,
) {
    let Some(a) = assignments else { return };
    let inline: f64 = path
        .iter()
        .filter(|(op, _)| forwarding.of(*op).is_some())
        .map(|(_, n)| n)
        .sum();
    if inline <= 0.0 || a >= inline {
        return;
    }
    let spared = 1.0 - a.max(0.0) / inline;
    let mut out = AbOpCounts::new();
    for (op, n) in path.iter() {
        let cost = table.get(op).seconds;
        let kept = match forwarding.of(op) {
            Some(f) if cost > 0.0 => (1.0 - spared * f / cost).clamp(LEAST_KEPT, 1.0),
            _ => 1.0,
        };
        out.add(op, n * kept);
    }
    *path = out;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::{machine_with, unit_with_chain};

    #[test]
    fn a_statement_forwards_once_however_many_operations_it_holds() {
        // Eight floating-point adds through two assignments, on a machine whose add
        // costs 2.8 ns on a chain at -O0 of which 2.3 ns are the forwarding: 2 x 2.3 +
        // 8 x 0.5 = 8.6 ns, not 8 x 2.8 = 22.4 ns.
        let (table, unit) = (machine_with(2.8, 2.3, false), unit_with_chain(8.0, 2.0));
        let units = unoptimized_units(std::slice::from_ref(&unit), &table);
        let chain = &units[0].blocks[0].chain;
        let t: f64 = chain.iter().map(|(op, n)| n * table.get(op).seconds).sum();
        assert!((t - 8.6e-9).abs() < 1e-12, "{t}");
        // One operation an assignment (`s = s + x`): priced as measured.
        let one = unit_with_chain(1.0, 1.0);
        let units = unoptimized_units(std::slice::from_ref(&one), &table);
        assert_eq!(units[0].blocks[0].chain, one.blocks[0].chain);
        // Optimized code keeps its values in registers: nothing to take off.
        let o2 = machine_with(2.8, 2.3, true);
        assert!(matches!(
            unoptimized_units(std::slice::from_ref(&unit), &o2),
            Cow::Borrowed(_)
        ));
        // A profile made before the assignments were recorded prices as it did.
        let mut old = unit.clone();
        old.blocks[0].chain_assignments = None;
        assert!(matches!(
            unoptimized_units(std::slice::from_ref(&old), &table),
            Cow::Borrowed(_)
        ));
    }
}
