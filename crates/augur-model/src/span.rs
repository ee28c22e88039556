//! Straight-line procedure bodies at the pace of their longest dependent path, or of
//! the instructions the compiler emitted for them.
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
//! number generator's SAVE'd seed) is not overlapped at all, nor are the calls of a loop
//! that chains them through their arguments (`UnitProfile::chained_calls`: `derms` reads
//! the state the Runge-Kutta stage before it wrote).
//!
//! A procedure without loops, jumps or calls whose compiled body was recorded
//! (`OptReport::compiled_body`) takes at least that body's in-core time a call: a 5x5
//! block product written out, vectorized by pairs with its shuffles, issues 406
//! instructions a call where its AbOps said 42 cycles (session 94: 82 cycles priced, 92
//! measured alone on a Zen 4 guest).

use crate::block::without_branches;
use crate::cost::{Coefficients, CostTable};
use crate::recurrence::scale_work;
use augur_program_profile::optreport::OptReport;
use augur_program_profile::UnitProfile;

/// Scales the blocks outside loops of each unit of `units` (`blocks_c`, priced) to the
/// time of its calls' longest dependent path (where the machine's window is known) or
/// of the path a variable carries from call to call, where that is longer.
pub(crate) fn scale_bodies_to_spans(
    units: &[UnitProfile],
    table: &CostTable,
    report: Option<&OptReport>,
    blocks_c: &mut [Vec<Coefficients>],
) {
    let window = table
        .incore
        .as_ref()
        .and_then(|m| m.window)
        .filter(|w| *w > 0.0);
    let per_abop = instructions_per_abop(units, report);
    for (u, unit_c) in units.iter().zip(blocks_c.iter_mut()) {
        let compiled = compiled_body_seconds(u, table, report);
        if let Some(k) = span_scale(u, table, unit_c, window.map(|w| (w, per_abop)), compiled) {
            for (b, c) in u.blocks.iter().zip(unit_c.iter_mut()) {
                if outside_loops(b) {
                    scale_work(c, k);
                }
            }
        }
    }
}

/// The seconds the calls of `u` take at the pace of the instructions the compiler
/// emitted for it ([`compiled_body`], one body a call), or `None`.
fn compiled_body_seconds(
    u: &UnitProfile,
    table: &CostTable,
    report: Option<&OptReport>,
) -> Option<f64> {
    let calls = u.calls.filter(|c| *c > 0.0)?;
    let (_, t) = compiled_body(u, table, report)?;
    Some(calls * t.per_compiled_iteration)
}

/// The compiled body of `u` (`OptReport::compiled_body`: a procedure without loops,
/// jumps or calls) and its in-core time a call, or `None` where none was recorded, the
/// machine has no in-core section, or the compiler inlined the procedure somewhere (its
/// calls then run another code) or inlined another into it (its body then holds work
/// the callee's own counts price: corpus `callheavy77`'s `F1`, `POLY(X, ...) / (1 +
/// SQR(X))` in ten instructions).
pub(crate) fn compiled_body<'r>(
    u: &UnitProfile,
    table: &CostTable,
    report: Option<&'r OptReport>,
) -> Option<(
    &'r augur_program_profile::compiled::CompiledLoop,
    crate::incore::LoopTime,
)> {
    let r = report?;
    let m = table.incore.as_ref()?;
    let inlined = r
        .inlined
        .iter()
        .any(|i| i.callee.eq_ignore_ascii_case(&u.name) || i.caller.eq_ignore_ascii_case(&u.name));
    if !u.loops.is_empty() || inlined {
        return None;
    }
    let cl = r.compiled_body(&u.file, u.first_line, u.last_line)?;
    Some((cl, crate::incore::loop_time(cl, m)?))
}

/// The instructions the compiler emits for one AbOp, from the program's compiled
/// innermost loops (their instructions an iteration over their AbOps an iteration,
/// weighed by their iterations): about one with optimization, three to four without it,
/// where every operand is loaded from memory and every result stored (prk_pic's
/// straight-line `computeCoulomb` at -O0 on a Zen 5 guest: 15 AbOps, about 55
/// instructions a call; four calls in flight, not thirteen, overlap its 65-cycle path
/// to the 17.7 cycles a call measured). One without compiled loops, and within 1/2 to 8.
fn instructions_per_abop(units: &[UnitProfile], report: Option<&OptReport>) -> f64 {
    let Some(r) = report else { return 1.0 };
    let (mut instructions, mut abops) = (0.0, 0.0);
    for u in units {
        let parents: std::collections::HashSet<u32> =
            u.loops.iter().filter_map(|l| l.parent).collect();
        for l in u.loops.iter().filter(|l| !parents.contains(&l.id)) {
            let (Some(cl), Some(n)) = (
                r.compiled_loop(&u.file, l.line),
                l.iterations.filter(|n| *n > 0.0),
            ) else {
                continue;
            };
            instructions += f64::from(cl.issued) * n / f64::from(cl.source_iterations.max(1));
            abops += l.totals.total();
        }
    }
    if instructions <= 0.0 || abops <= 0.0 {
        return 1.0;
    }
    (instructions / abops).clamp(0.5, 8.0)
}

/// Whether block `b` is part of the straight-line body (outside loops, not an array
/// statement's elements).
fn outside_loops(b: &augur_program_profile::BlockProfile) -> bool {
    b.in_loop.is_none() && b.block_kind != augur_ir::BlockKind::Elements
}

/// The factor that brings the body of `u` (its blocks `unit_c`, priced) to its
/// calls' longest path overlapped `window / instructions a call` times (without a
/// window, not at all; `window` with the program's instructions an AbOp,
/// [`instructions_per_abop`]) but for the calls a loop chains (`chained_calls`), which
/// take the whole path each, or to its carried path one call after the other, or to
/// the time of its compiled instructions (`compiled`, seconds for all calls), the
/// longest, when above one.
fn span_scale(
    u: &UnitProfile,
    table: &CostTable,
    unit_c: &[Coefficients],
    window: Option<(f64, f64)>,
    compiled: Option<f64>,
) -> Option<f64> {
    let per_abop = window.map_or(1.0, |w| w.1);
    let calls = u.calls.filter(|c| *c > 0.0)?;
    if u.body_span.is_empty() && u.carried_span.is_empty() && compiled.is_none() {
        return None;
    }
    let mut body = Coefficients::default();
    let mut operations = 0.0;
    for (b, c) in u.blocks.iter().zip(unit_c) {
        if outside_loops(b) {
            body.add(&without_branches(c));
            let slots: f64 = b
                .counts
                .iter()
                .map(|(op, n)| n * window_slots(table, op, per_abop))
                .sum();
            operations += slots * b.executions.unwrap_or(0.0);
        }
    }
    let t_body = table.cost_of(&body).seconds;
    let at_chain_costs = |path: &augur_ir::AbOpCounts| -> f64 {
        path.iter().map(|(op, n)| n * table.get(op).seconds).sum()
    };
    // Calls a loop chains through their arguments wait for the one before: only the
    // others overlap.
    let chained = u.chained_calls.unwrap_or(0.0).clamp(0.0, calls);
    let span = at_chain_costs(&u.body_span);
    let overlapped = chained * span
        + window.map_or(0.0, |(w, _)| {
            let in_flight = (w * calls / operations.max(1.0)).max(1.0);
            (calls - chained) * span / in_flight
        });
    // The path a variable carries from one call to the next is not overlapped: the next
    // call starts it from this one's result.
    let t_span = overlapped
        .max(calls * at_chain_costs(&u.carried_span))
        .max(compiled.unwrap_or(0.0));
    (t_body > 0.0 && t_span > t_body).then(|| t_span / t_body)
}

/// The slots of the reorder window one execution of `op` takes: the program's
/// instructions an AbOp (`per_abop`) for an operation, and for a call into the
/// mathematical library (`is_library_call`) the instructions it issues in its throughput
/// time, its stream cost over the machine's time per issued instruction (Xeon guest:
/// `sin` 3.6 ns at 0.043 ns an instruction, about 80; `exp` about 50), so that a body of
/// a few such calls fills the window as its instructions do.
fn window_slots(table: &CostTable, op: augur_ir::AbOp, per_abop: f64) -> f64 {
    let issue_ns = table.incore.as_ref().map_or(0.0, |m| m.issue_ns);
    if !is_library_call(op) || issue_ns <= 0.0 {
        return per_abop;
    }
    (table.stream(op).seconds * 1e9 / issue_ns).max(1.0)
}

/// Whether `op` is a call into the mathematical library (logarithms, exponentials,
/// trigonometric and hyperbolic functions, `fmod`, rounding, `X**Y`, complex
/// intrinsics): the irregular AbOps that are neither branches, procedure calls, I/O,
/// characters nor random numbers.
fn is_library_call(op: augur_ir::AbOp) -> bool {
    let group = op.info().group;
    crate::interval::is_irregular(op)
        && !matches!(
            group,
            "branches" | "calls" | "character" | "input/output" | "random numbers"
        )
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
        scaled(&u, &CostTable::from_profile(&m), None)
    }

    /// The first block of `u` priced on `t`, before and after the rule (with `report`).
    fn scaled(u: &UnitProfile, t: &CostTable, report: Option<&OptReport>) -> (f64, f64) {
        let priced: Vec<Coefficients> = u
            .blocks
            .iter()
            .map(|b| pricing(t).total(b, BlockContext::default()))
            .collect();
        let before = t.cost_of(&priced[0]).seconds;
        let mut blocks = vec![priced];
        scale_bodies_to_spans(std::slice::from_ref(u), t, report, &mut blocks);
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

    /// A compiled body of `n` integer instructions, no chain, on `t.f90` line 2.
    fn straight_line_body(n: u32) -> augur_program_profile::compiled::CompiledLoop {
        use augur_program_profile::compiled::{ClassCount, ClassWidth, InstrClass, Width};
        let alu = ClassCount {
            class: ClassWidth::new(InstrClass::IntAlu, Width::Scalar),
            count: n,
        };
        crate::test_support::compiled_loop("t.f90", 2, vec![alu], n)
    }

    #[test]
    fn a_straight_line_body_takes_at_least_its_compiled_instructions() {
        // 100 calls of a body whose add and multiply the AbOps price at their throughput,
        // compiled to 400 instructions issued at 0.05 ns: 100 x 20 ns, unless the compiler
        // inlined the procedure (its calls run other code) or another into it, or the body
        // is shorter.
        let u = UnitProfile {
            body_span: AbOpCounts::new(),
            ..dependent_body()
        };
        let mut m = add_mul_machine();
        m.incore = Some(incore_machine(&[("int_alu", 0.25, 0.01)]));
        let t = CostTable::from_profile(&m);
        let priced = |report: &OptReport| scaled(&u, &t, Some(report));
        let long = OptReport {
            compiled_bodies: vec![straight_line_body(400)],
            ..OptReport::default()
        };
        let (before, after) = priced(&long);
        let per_call =
            crate::incore::loop_time(&long.compiled_bodies[0], t.incore.as_ref().unwrap())
                .unwrap()
                .per_compiled_iteration;
        assert!((per_call - 20e-9).abs() < 1e-12, "{per_call}");
        assert!(before < 100.0 * per_call, "{before}");
        assert!((after - 100.0 * per_call).abs() < 1e-12, "{after}");
        let inlined = OptReport {
            inlined: vec![augur_program_profile::optreport::InlinedCall {
                file: "t.f90".into(),
                line: 20,
                callee: "f".into(),
                caller: "main".into(),
            }],
            ..long.clone()
        };
        let inlining = OptReport {
            inlined: vec![augur_program_profile::optreport::InlinedCall {
                file: "t.f90".into(),
                line: 3,
                callee: "sqr".into(),
                caller: "f".into(),
            }],
            ..long.clone()
        };
        let short = OptReport {
            compiled_bodies: vec![straight_line_body(2)],
            ..OptReport::default()
        };
        for report in [inlined, inlining, short] {
            let (before, after) = priced(&report);
            assert_eq!(before, after);
        }
    }

    #[test]
    fn a_library_call_fills_the_window_with_its_instructions() {
        use crate::test_support::machine;
        use augur_machine_profile::MEASURED;
        // sin: 12 ns in a chain, 4 ns in a stream; at 0.05 ns an issued instruction a
        // call holds 80 slots of the window, an add one.
        let mut m = machine(&[
            (AbOp::SIND, MEASURED, Some(12.0), Some(0.0), 10),
            (AbOp::ARDL, MEASURED, Some(3.0), Some(0.0), 10),
        ]);
        m.stream
            .insert(AbOp::SIND, crate::test_support::entry(4.0, 0.0));
        m.incore = Some(incore_machine(&[]));
        let t = CostTable::from_profile(&m);
        assert!((window_slots(&t, AbOp::SIND, 3.0) - 80.0).abs() < 1e-9);
        assert_eq!(window_slots(&t, AbOp::ARDL, 1.0), 1.0);
        assert_eq!(window_slots(&t, AbOp::ARDL, 3.0), 3.0);
        assert_eq!(window_slots(&t, AbOp::BRMP, 1.0), 1.0);
        assert!(is_library_call(AbOp::EXPD) && !is_library_call(AbOp::PROC));
        // A body of one sin on its path, called 100 times with a window of 160: two calls
        // in flight, 100 * 12 / 2 = 600 ns, where the sins' stream cost says 400.
        let mut ops = AbOpCounts::new();
        ops.add(AbOp::SIND, 1.0);
        let block = augur_program_profile::BlockProfile {
            in_loop: None,
            executions: Some(100.0),
            ..block_profile(augur_ir::BlockKind::Entry, ops.clone(), AbOpCounts::new())
        };
        let u = UnitProfile {
            calls: Some(100.0),
            loops: vec![],
            body_span: ops,
            ..crate::test_support::unit_with_one_loop("f", vec![block])
        };
        m.incore = Some(augur_machine_profile::incore::InCoreProfile {
            window: Some(160.0),
            ..incore_machine(&[])
        });
        let (before, after) = scaled(&u, &CostTable::from_profile(&m), None);
        assert!(before < 600e-9, "{before}");
        assert!((after - 600e-9).abs() < 1e-12, "{after}");
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

    #[test]
    fn calls_a_loop_chains_wait_for_each_other_whatever_the_window() {
        // Of 100 calls, 60 come from a loop that chains them: 60 * 6 ns, and the other 40
        // overlapped 500 at a time by a window of 1,000 (0.48 ns), or not at all known
        // without a window.
        let u = UnitProfile {
            chained_calls: Some(60.0),
            ..dependent_body()
        };
        let (before, after) = body_seconds_of(u.clone(), Some(1000.0));
        assert!(before < 360e-9, "{before}");
        assert!(
            (after - (360e-9 + 40.0 * 6e-9 / 500.0)).abs() < 1e-12,
            "{after}"
        );
        let (_, after) = body_seconds_of(u, None);
        assert!((after - 360e-9).abs() < 1e-12, "{after}");
    }
}
