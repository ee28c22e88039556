//! Loop bodies priced as one: an innermost loop's iteration runs at its throughput or
//! at the pace of its recurrence, whichever is slower, with the procedures the compiler
//! inlined into it as part of its body.

use crate::block::{only, priced_chain, split_ops, without_branches};
use crate::cost::{Coefficients, CostTable, LIBRARY_CALLS};
use crate::forwarding::forwarded_calls;
use augur_ir::{AbOp, AbOpCounts};
use augur_program_profile::compiled::{CompiledLoop, InstrClass};
use augur_program_profile::optreport::OptReport;
use augur_program_profile::{LoopProfile, UnitProfile};
use std::collections::HashMap;

/// The share of an inlined procedure's work that belongs to one loop of its caller
/// ([`inlined_shares`]): its blocks' coefficients, at throughput, and their
/// recurrences, each times the share of the procedure's calls made there.
#[derive(Debug, Clone, Default)]
pub(crate) struct InlinedShare {
    /// The caller's loop (id in its unit).
    loop_id: u32,
    /// The callee (index in the program's units).
    callee: usize,
    /// Share of the callee's calls made from the loop (0-1).
    share: f64,
    /// The callee's blocks as priced, times `share`.
    work: Coefficients,
    /// The same at throughput.
    throughput: Coefficients,
    /// Their recurrences at chain cost, times `share`.
    chains: Coefficients,
    /// Whether one of those recurrences holds complex arithmetic.
    complex_chain: bool,
}

/// For each unit, the work of the procedures the compiler inlined into its innermost
/// loops: an inlined procedure's code is part of the loop body, so its throughput
/// joins the body's and its recurrences (`state = mod(a*state + c, m)` of a random
/// number generator) join the body's recurrences, instead of adding to them. Only
/// procedures without loops of their own, called from a block of the loop.
pub(crate) fn inlined_shares(
    units: &[UnitProfile],
    table: &CostTable,
    report: Option<&OptReport>,
    blocks_c: &[Vec<Coefficients>],
    throughput_c: &[Vec<Coefficients>],
) -> Vec<Vec<InlinedShare>> {
    let mut out: Vec<Vec<InlinedShare>> = vec![vec![]; units.len()];
    let Some(r) = report else {
        return out;
    };
    let index = |name: &str| units.iter().position(|u| u.name.eq_ignore_ascii_case(name));
    for call in &r.inlined {
        let (Some(ui), Some(vi)) = (index(&call.caller), index(&call.callee)) else {
            continue;
        };
        let (u, v) = (&units[ui], &units[vi]);
        if ui == vi
            || !v.loops.is_empty()
            || !augur_program_profile::optreport::same_file(&u.file, &call.file)
        {
            continue;
        }
        let Some(calls) = v.calls.filter(|c| *c > 0.0) else {
            continue;
        };
        // The block of the caller holding the call, in an innermost loop.
        let Some(b) = u
            .blocks
            .iter()
            .find(|b| b.first_line <= call.line && call.line <= b.last_line && b.in_loop.is_some())
        else {
            continue;
        };
        let Some(loop_id) = b.in_loop else { continue };
        if u.loops.iter().any(|o| o.parent == Some(loop_id)) {
            continue;
        }
        let share = (b.executions.unwrap_or(0.0) / calls).clamp(0.0, 1.0);
        if share <= 0.0 {
            continue;
        }
        let mut s = InlinedShare {
            loop_id,
            callee: vi,
            share,
            ..InlinedShare::default()
        };
        for (bi, vb) in v.blocks.iter().enumerate() {
            if let Some(c) = blocks_c[vi].get(bi) {
                s.work.add_scaled(&without_branches(c), share);
            }
            if let Some(c) = throughput_c[vi].get(bi) {
                s.throughput.add_scaled(&without_branches(c), share);
            }
            s.chains.chain.add_scaled(
                priced_chain(table, vb),
                share * vb.executions.unwrap_or(0.0),
            );
            s.complex_chain |= complex_chain(&vb.chain);
        }
        out[ui].push(s);
    }
    out
}

/// The loop-level recurrence rule. The operations of an innermost loop's iteration run
/// on an out-of-order core either at their throughput (stream costs) or at the pace of
/// the recurrence that carries a value from one iteration to the next (chain costs),
/// whichever is slower: the recurrence across the body's blocks
/// (`LoopProfile::chain`, the expected one of an iteration) or the ones inside its
/// blocks (a reduction's add). Priced one by one, each block takes the slower of its
/// own two and the blocks add up; the body's operations are scaled to the slowest of
/// the whole body's throughput (`unit_thru`, every block at stream cost) and its
/// recurrences, plus its library calls, which do not overlap a recurrence
/// (mispredictions apart, which come on top), so every breakdown still adds up.
/// An iteration also takes at least the time its divides and square roots hold the
/// machine's divide unit, which is not pipelined ([`divider_time`]).
/// Vectorized loops carry no recurrence across blocks (an in-order reduction inside a
/// block still binds it, [`CostTable::ordered_reductions`]).
///
/// The shares of the procedures inlined into the unit's loops (`inlined`, from
/// [`inlined_shares`]) join the loops' bodies. Returns, for each share whose loop was scaled, the
/// callee, its share and the factor `k` the loop's work takes (the caller scales the
/// callee's blocks by `1 + share·(k − 1)`).
pub(crate) fn loop_recurrences(
    table: &CostTable,
    report: Option<&OptReport>,
    u: &UnitProfile,
    unit_c: &mut [Coefficients],
    unit_thru: &[Coefficients],
    inlined: &[InlinedShare],
) -> Vec<(usize, f64, f64)> {
    let mut scaled = vec![];
    for l in &u.loops {
        let Some(n) = l.iterations.filter(|n| *n > 0.0) else {
            continue;
        };
        let innermost = !u.loops.iter().any(|o| o.parent == Some(l.id));
        let compiled = compiled_time(table, report, u, l.line)
            .map(|t| t.per_source_iteration)
            .or_else(|| unoptimized_outer(table, report, u, l));
        // A nest whose inner loops the compiler unrolled completely is priced whole
        // from its compiled loop, and its inner loops with it.
        if !(innermost || compiled.is_some()) || in_compiled_nest(table, report, u, l) {
            continue;
        }
        if compiled.is_none() && report.is_some_and(|r| r.is_vectorized(&u.file, l.line)) {
            continue;
        }
        let body: Vec<usize> = u
            .blocks
            .iter()
            .enumerate()
            .filter(|(_, b)| crate::price::inside_loop(u, b.in_loop, l.id))
            .map(|(i, _)| i)
            .collect();
        // The recurrences of the loop's own blocks (an unrolled inner loop's reduction
        // starts again each iteration).
        let own: Vec<usize> = body
            .iter()
            .copied()
            .filter(|&i| u.blocks[i].in_loop == Some(l.id))
            .collect();
        let mut work = Coefficients::default();
        let mut throughput = Coefficients::default();
        for &i in &body {
            if let Some(c) = unit_c.get(i) {
                work.add(&without_branches(c));
            }
            if let Some(c) = unit_thru.get(i) {
                throughput.add(&without_branches(c));
            }
        }
        let here: Vec<&InlinedShare> = inlined
            .iter()
            .filter(|s| crate::price::inside_loop(u, Some(s.loop_id), l.id))
            .collect();
        // An optimizing compiler keeps a real recurrence in a register, where the compiled
        // loop's chains see it with the machine's own latencies (a `maxval`'s `maxsd`, not
        // an add's): its chains stand for the source's. Not a complex one, whose parts
        // the compiled chains follow only in part (cplxpoly77 -33% -> -37% when they did).
        let chains_seen = table.register_scalars
            && !complex_chain(&l.chain)
            && !body.iter().any(|&i| complex_chain(&u.blocks[i].chain))
            && !here.iter().any(|s| s.complex_chain)
            && report
                .and_then(|r| r.compiled_loop(&u.file, l.line))
                .is_some_and(chains_stand_for_the_source);
        for s in &here {
            work.add(&s.work);
            throughput.add(&s.throughput);
        }
        let t_body = table.cost_of(&work).seconds;
        if t_body <= 0.0 {
            continue;
        }
        let t_loop_chain: f64 = n * l
            .chain
            .iter()
            .map(|(op, k)| k * table.get(op).seconds)
            .sum::<f64>();
        // The blocks' own recurrences, whether or not they bound their blocks.
        let mut block_chains = Coefficients::default();
        for &i in &own {
            let b = &u.blocks[i];
            block_chains
                .chain
                .add_scaled(priced_chain(table, b), b.executions.unwrap_or(0.0));
        }
        for s in &here {
            block_chains.add(&s.chains);
        }
        let t_block_chains = table.cost_of(&block_chains).seconds;
        // Library calls do not overlap the recurrence: they come on top of it (on a Zen 5,
        // `z = z*z + c` takes 2.3 ns an iteration, 7.2 ns with `abs(z)` beside it, whose
        // calls alone take 3 ns each).
        let calls = only(&throughput, &LIBRARY_CALLS);
        let t_calls = table.cost_of(&calls).seconds;
        let t_throughput = table.cost_of(&throughput).seconds;
        // A floating-point recurrence around a call (library or user) is stored before
        // the call and reloaded after it, each iteration (`CostTable::call_spill`).
        let calls_inside = body.iter().any(|&i| {
            let c = &u.blocks[i].counts;
            c.get(AbOp::PROC) > 0.0 || LIBRARY_CALLS.iter().any(|&op| c.get(op) > 0.0)
        });
        let floating = |c: &AbOpCounts| {
            c.iter().any(|(op, k)| {
                let g = op.info().group;
                k > 0.0 && (g.contains("real") || g.contains("complex"))
            })
        };
        // (Without optimization every value goes through memory anyway: the chain costs
        // measured at -O0 include the store and reload.)
        let spilled = table.register_scalars
            && calls_inside
            && (floating(&l.chain)
                || body
                    .iter()
                    .any(|&i| floating(priced_chain(table, &u.blocks[i]))));
        let t_spill = if spilled { n * table.call_spill } else { 0.0 };
        // The compiled loop's own chains through the slots it spills around its calls of
        // the library (a user procedure's body, priced in its own unit, runs while the
        // chain waits: callheavy77's Simpson loop around `F(x)`, 3.0 ns an iteration
        // measured with its callee, the spilled sum's chain 2.8 alone).
        let user_calls = body
            .iter()
            .any(|&i| u.blocks[i].counts.get(AbOp::PROC) > 0.0);
        let t_call_chain = match (compiled, &table.incore, report) {
            (None, Some(m), Some(r)) if !user_calls => r
                .compiled_loop(&u.file, l.line)
                .and_then(|cl| crate::incore::call_loop_chain(cl, m))
                .map_or(0.0, |ns| n * ns * 1e-9),
            _ => 0.0,
        };
        let t_chain = (t_loop_chain.max(t_block_chains) + t_spill).max(t_call_chain);
        let t = match &l.serial_calls {
            // The calls that wait for the recurrence add to it; the others run ahead of
            // it and only count in the throughput (a Zen 5: `s = s*0.999 + exp(x(i))`
            // 3.5 ns an iteration, its chain alone 1.4 ns, its calls alone 3.1 ns).
            // Calls handed their argument through a failed store forwarding run one
            // after another at their chain cost, waiting or not ([`forwarded_calls`]).
            Some(serial) => {
                // Without optimization, where every operand goes through memory, the
                // chain costs carry the stack's round trips and a failed load only waits
                // its own latency (with -O0's loads of a complex argument read as
                // failures, cplxpoly77 at -O0 came out +12..+18% on three hosts by the
                // rule, +2..+7% priced so).
                let forwarded = if table.register_scalars {
                    forwarded_per_iteration(u, report, &body, n)
                } else {
                    AbOpCounts::new()
                };
                let calls = Recurrence {
                    seconds: t_chain,
                    chain: &l.chain,
                    serial,
                    forwarded: &forwarded,
                    iterations: n,
                };
                t_throughput.max(calls.with_its_calls(table))
            }
            // Profiles made before the field: every call on top of the recurrence.
            None => (t_throughput - t_calls).max(t_chain) + t_calls,
        };
        let t = match compiled {
            // The compiled loop's instructions hold its divides and its chains through
            // registers and fixed slots; a recurrence through array elements (`x(i)`
            // from `x(i-1)`, kept in memory at -O0) moves its address each iteration:
            // the source's recurrence finds it.
            Some(per_iteration) if chains_seen => n * per_iteration,
            Some(per_iteration) => (n * per_iteration).max(t_chain),
            None => t
                .max(divider_time(table, u, &body))
                .max(call_loop_issue(table, report, u, l, n)),
        } + chained_drain(table, report, u, l, compiled);
        let k = t / t_body;
        if (k - 1.0).abs() < 1e-12 {
            continue;
        }
        for s in &here {
            scaled.push((s.callee, s.share, k));
        }
        for &i in &body {
            if let Some(c) = unit_c.get_mut(i) {
                scale_work(c, k);
                if compiled.is_some() {
                    c.mark_compiled();
                }
            }
        }
    }
    scaled
}

/// The least time the `n` iterations of loop `l` of `u` take to issue their own compiled
/// instructions when the loop calls a procedure ([`crate::incore::call_loop_issue`]),
/// seconds; 0 without the compiled loop or the machine's in-core section. A user
/// procedure's body is priced in its own unit; a library call's price holds its own
/// instructions, which a long call (`fmod`'s serial loop) leaves the caller's room to
/// issue beside: the floor stands alone, not added to the calls (prk_pic's particle loop,
/// 120 instructions around two `fmod` calls, on a Xeon of model 167: +70% with the calls
/// added).
fn call_loop_issue(
    table: &CostTable,
    report: Option<&OptReport>,
    u: &UnitProfile,
    l: &LoopProfile,
    n: f64,
) -> f64 {
    match (&table.incore, report) {
        (Some(m), Some(r)) => r
            .compiled_loop(&u.file, l.line)
            .and_then(|cl| crate::incore::call_loop_issue(cl, m))
            .map_or(0.0, |ns| n * ns * 1e-9),
        _ => 0.0,
    }
}

/// The time the entries of loop `l` of `u` wait, beyond its steady pace, for its last
/// iteration's longest dependent path, where the next call waits for its results.
///
/// A compiled loop entered for a few iterations issues them at its steady pace, but its
/// results are ready only when the last iteration's longest path has run: one path's
/// latency after its start, more than its iterations' issue when they are few. Where the
/// code after the loop overlaps that tail with independent work (the next pairs of an
/// n-body step), nothing shows; where it waits for the loop's results (mineos's `rkdot`,
/// whose stage `derms` reads next, in a loop that chains the two calls through their
/// arguments: `UnitProfile::chained_calls`), each entry pays the path's latency less one
/// compiled iteration's steady time. Only a loop outermost in its procedure, in optimized
/// code (whose chains run in registers), and only the share of the procedure's calls that
/// are chained. Session 90's kernels (`rkn6.f`, every call a loop of 6 iterations whose
/// path is about 30 cycles): 19 cycles an entry more than the same work in loops of 600.
fn chained_drain(
    table: &CostTable,
    report: Option<&OptReport>,
    u: &UnitProfile,
    l: &augur_program_profile::LoopProfile,
    per_source_iteration: Option<f64>,
) -> f64 {
    let (Some(per_iteration), Some(m), Some(r)) = (per_source_iteration, &table.incore, report)
    else {
        return 0.0;
    };
    let positive = |x: Option<f64>| x.filter(|v| *v > 0.0);
    let (Some(calls), Some(chained), Some(entries)) = (
        positive(u.calls),
        positive(u.chained_calls),
        positive(l.entries),
    ) else {
        return 0.0;
    };
    if !table.register_scalars || l.parent.is_some() {
        return 0.0;
    }
    let Some(cl) = r
        .compiled_loop(&u.file, l.line)
        .and_then(|cl| as_priced(cl, u, l))
    else {
        return 0.0;
    };
    let Some(span) = crate::incore::iteration_span(&cl, m) else {
        return 0.0;
    };
    let steady = per_iteration * f64::from(cl.source_iterations.max(1));
    entries * (chained / calls).min(1.0) * (span * 1e-9 - steady).max(0.0)
}

/// The library calls of one iteration over `body` (blocks of `u`, the loop iterating
/// `n` times) handed their argument through a failed store forwarding.
fn forwarded_per_iteration(
    u: &UnitProfile,
    report: Option<&OptReport>,
    body: &[usize],
    n: f64,
) -> AbOpCounts {
    let mut out = AbOpCounts::new();
    for &i in body {
        let executions = u.blocks[i].executions.unwrap_or(0.0);
        out.add_scaled(&forwarded_calls(u, report, i), executions / n);
    }
    out
}

/// Gfortran's complex powers with an integer exponent: calls of `_gfortran_pow_c*_i*`.
const COMPLEX_POWERS: [AbOp; 4] = [AbOp::ECSL, AbOp::ECSG, AbOp::ECDL, AbOp::ECDG];

/// A loop's recurrence and the calls of its iterations ([`Self::with_its_calls`]).
struct Recurrence<'a> {
    /// The recurrence's time over all iterations (with its spills).
    seconds: f64,
    /// Its AbOps per iteration.
    chain: &'a AbOpCounts,
    /// The calls of an iteration that wait for it (`LoopProfile::serial_calls`).
    serial: &'a AbOpCounts,
    /// The library calls of an iteration handed their argument through a failed store
    /// forwarding ([`forwarded_calls`]).
    forwarded: &'a AbOpCounts,
    /// Iterations.
    iterations: f64,
}

impl Recurrence<'_> {
    /// The time of the recurrence with its calls. The calls that wait for it add to it
    /// at their stream cost. Forwarded calls each wait for every instruction before them
    /// to retire, so they run one after another at their chain cost: where the recurrence
    /// passes through a call (a Newton step `z = z - p(z)/p'(z)` with `z**5` a call of the
    /// library), the work between them waits too and everything adds up (cplxpoly77's
    /// Newton loop on a Zen 5 guest: 79 ns an iteration measured, its chains and its four
    /// calls at their chain costs 79 ns); where it does not, the recurrence runs beside
    /// them (`z = z*c + d; s = s + cabs(z)`: 17.6 ns, the call's chain cost 16.7, the
    /// recurrence 2.4; six updates of `z` before the call: 22.1 ns, this bound 17.5).
    fn with_its_calls(&self, table: &CostTable) -> f64 {
        let n = self.iterations;
        let serial = split_ops(self.serial, &LIBRARY_CALLS).0;
        let mut waiting = Coefficients::default();
        waiting.stream.add_scaled(&serial, n);
        if self.forwarded.iter().all(|(_, k)| k <= 0.0) {
            return self.seconds + table.cost_of(&waiting).seconds;
        }
        let through_calls = self.chain.iter().any(|(op, k)| {
            k > 0.0 && (LIBRARY_CALLS.contains(&op) || COMPLEX_POWERS.contains(&op))
        });
        let mut one_by_one = Coefficients::default();
        for (op, f) in self.forwarded.iter() {
            one_by_one
                .chain
                .add(op, n * (f - self.chain.get(op)).max(0.0));
        }
        if !through_calls {
            return (self.seconds + table.cost_of(&waiting).seconds)
                .max(table.cost_of(&one_by_one).seconds);
        }
        // The serial calls that are forwarded are priced in `one_by_one`.
        let mut rest = Coefficients::default();
        for (op, k) in serial.iter() {
            rest.stream
                .add(op, n * (k - self.forwarded.get(op)).max(0.0));
        }
        self.seconds + table.cost_of(&rest).seconds + table.cost_of(&one_by_one).seconds
    }
}

/// Whether loop `l` of `u` lies inside a loop priced from a compiled loop (a nest the
/// compiler unrolled completely into one loop).
fn in_compiled_nest(
    table: &CostTable,
    report: Option<&OptReport>,
    u: &UnitProfile,
    l: &augur_program_profile::LoopProfile,
) -> bool {
    let mut parent = l.parent;
    for _ in 0..u.loops.len() {
        let Some(p) = parent.and_then(|id| u.loops.iter().find(|o| o.id == id)) else {
            return false;
        };
        if compiled_time(table, report, u, p.line).is_some()
            || unoptimized_outer(table, report, u, p).is_some()
        {
            return true;
        }
        parent = p.parent;
    }
    false
}

/// The compiled loop of `l` as it is priced: an induction stepping more elements than
/// vector lanes and unrolling explain is a pointer striding across a dimension (a
/// transposed access, or a loop around it vectorized: `s(i) = s(i) + a(i,j)` over `j`
/// two `i` at a time), so the arithmetic says how many source iterations the compiled
/// one covers, else the lanes. (Taking the arithmetic's word for every loop fixed an
/// FFT's pairs, `x(2*k+1)` and `x(2*k+2)`, and lost more elsewhere: corpus RMS 23.7% ->
/// 25.3% on the Zen 4 of 2026-11-28.) `None` when the loop has no counted iterations.
/// Borrowed as recorded unless its iterations are corrected (a copy then: a compiled
/// loop holds its whole schedule, and a prediction asks for each loop several times).
pub(crate) fn as_priced<'a>(
    cl: &'a CompiledLoop,
    u: &UnitProfile,
    l: &LoopProfile,
) -> Option<std::borrow::Cow<'a, CompiledLoop>> {
    if cl.source_iterations <= 8 * cl.lanes.max(1) {
        return Some(std::borrow::Cow::Borrowed(cl));
    }
    let mut cl = cl.clone();
    cl.source_iterations =
        crate::incore::iterations_by_arithmetic(&cl, &body_floating_ops(u, l.id)?)
            .unwrap_or(cl.lanes.max(1));
    Some(std::borrow::Cow::Owned(cl))
}

/// The in-core time of the innermost loop of `u` on `line` (or of the nest the compiler
/// unrolled into one loop there), from the instructions the
/// compiler emitted for it, when the report holds its compiled loop and the machine its
/// in-core parameters ([`crate::incore`]).
pub(crate) fn compiled_time(
    table: &CostTable,
    report: Option<&OptReport>,
    u: &UnitProfile,
    line: u32,
) -> Option<crate::incore::LoopTime> {
    let cl = report?.compiled_loop(&u.file, line)?;
    let l = u.loops.iter().find(|l| l.line == line)?;
    let cl = as_priced(cl, u, l)?;
    priced_loop_time(table, &cl, l)
}

/// The in-core time of compiled loop `cl` (as priced, [`as_priced`]) of source loop `l`:
/// in optimized code, its chains that start afresh at each entry overlapping the next
/// entry's ([`crate::incore::restarted_loop_time`]). Unoptimized code carries its values
/// through the stack: a loop around short inner loops is replayed whole there
/// ([`unoptimized_outer`]).
pub(crate) fn priced_loop_time(
    table: &CostTable,
    cl: &augur_program_profile::compiled::CompiledLoop,
    l: &augur_program_profile::LoopProfile,
) -> Option<crate::incore::LoopTime> {
    let m = table.incore.as_ref()?;
    let restarts = restarts(cl, l).filter(|_| table.register_scalars);
    crate::incore::restarted_loop_time(cl, m, restarts)
}

/// How often the chains of compiled loop `cl` of source loop `l` restart: at each entry,
/// every `iterations / entries` source iterations. `None` for a loop inside another
/// whose compiled loop around it was not recorded, or never entered.
fn restarts(
    cl: &augur_program_profile::compiled::CompiledLoop,
    l: &augur_program_profile::LoopProfile,
) -> Option<crate::incore::Restarts> {
    // A loop outermost in its procedure runs inside the caller's compiled loop when the
    // compiler inlined the procedure there (spline's binary search, a function called
    // once an iteration): that loop restarts its chains at each call.
    let around = match l.parent {
        None => cl.outer.as_ref().map(|o| o.line),
        Some(_) => Some(cl.outer.as_ref()?.line),
    };
    let per_entry = l.iterations? / l.entries.filter(|e| *e > 0.0)?;
    Some(crate::incore::Restarts {
        per_entry: per_entry / f64::from(cl.source_iterations.max(1)),
        around,
    })
}

/// The seconds one iteration of loop `l` of `u` takes when it holds only innermost
/// loops and the compiler's code for it was recorded whole (`OuterIteration::schedule`):
/// its instructions replayed on the core ([`crate::schedule`]), each inner loop's body
/// as many times as the counts say it runs an iteration of `l`. Inner loops of a few
/// iterations restart their chains every iteration of `l`, and unoptimized code carries
/// its values through the stack from one inner loop to the next: the core overlaps the
/// iterations of `l` as far as its window holds them, which neither the inner loops
/// priced apart nor one iteration's longest path says. `None` when an inner loop is
/// vectorized or has versions or branches (its trips by source line would not be its
/// compiled iterations'), holds a call, or is not counted.
///
/// Shown beside the loop's notes, not priced: on the real programs of session 38 the
/// replay of a whole outer iteration moved -O0 N-body codes toward their measured times
/// (nemo_nbody0h4 -34% -> -11%) and -O2 ones away (nemo_firstn -0.4% -> -29%), -O2 RMS
/// 15.1% -> 16.0% (docs/ACCURACY.md). With the elements the inner loops walk told apart
/// by trip (session 52: a force summed into `f(k)` carries a chain per trip to the next
/// iteration, 11.9 cycles replayed against 12.7 measured where the parts say 5.9) the
/// -O2 replays still run faster than the measured loops: priced, nemo_firstn +5.4% ->
/// -13.7%, nemo_nbody0h4 -20.7% -> -34.0%, -O2 RMS 15.7% -> 16.8% on a Zen 5 guest.
pub(crate) fn outer_replay(
    table: &CostTable,
    report: Option<&OptReport>,
    u: &UnitProfile,
    l: &augur_program_profile::LoopProfile,
) -> Option<OuterReplay> {
    let m = table.incore.as_ref()?;
    let n = l.iterations.filter(|n| *n > 0.0)?;
    let inner: Vec<&augur_program_profile::compiled::CompiledLoop> = report?
        .compiled_loops
        .iter()
        .filter(|c| {
            augur_program_profile::optreport::same_file(&c.file, &u.file)
                && c.outer.as_ref().is_some_and(|o| o.line == l.line)
        })
        .collect();
    let outer = inner
        .iter()
        .filter_map(|c| c.outer.as_ref())
        .find(|o| !o.schedule.is_empty())?;
    if inner.len() != outer.inner_loops as usize {
        return None;
    }
    let mut trips = HashMap::new();
    for c in &inner {
        let simple = c.source_iterations == 1
            && c.versions == 0
            && c.inner_branches == 0
            && crate::incore::unpriceable(c).is_none();
        let counted = u
            .loops
            .iter()
            .find(|o| o.line == c.line && o.parent == Some(l.id))?
            .iterations?;
        if !simple || trips.insert(c.line, counted / n).is_some() {
            return None;
        }
    }
    let calls = outer.schedule.iter().any(|o| {
        o.classes
            .iter()
            .any(|c| matches!(c.class, InstrClass::Call | InstrClass::Other))
    });
    if calls
        || outer
            .schedule
            .iter()
            .any(|o| o.inner != 0 && !trips.contains_key(&o.inner))
    {
        return None;
    }
    // Long inner loops set the pace alone: their own replays price them, and the
    // restarts between them are a small part of the time.
    let per_iteration: f64 = outer
        .schedule
        .iter()
        .map(|o| trips.get(&o.inner).copied().unwrap_or(1.0))
        .sum();
    if per_iteration > MAX_REPLAYED_INSTRUCTIONS {
        return None;
    }
    let repeats = crate::schedule::Repeats {
        block_frequency: &[],
        inner_trips: &trips,
    };
    // Its inner loops each as fast as priced alone, restarts apart: a chain an inner
    // loop carries does not overlap the next entry's (blas_dblat2's gauges at -O0, an
    // inner loop of 12 to 32 iterations around `yt(iy) = yt(iy) + a(j,i)*x(jx)`: 14 cycles
    // an iteration measured at every length, alone 12.9, in the replay of the loop
    // around it 11.7; session 37's restarted chains did not overlap on programs either).
    let mut parts = 0.0;
    for c in &inner {
        let t = crate::incore::loop_time(c, m)?;
        parts += t.per_compiled_iteration * 1e9 * trips.get(&c.line).copied().unwrap_or(0.0);
    }
    let ns = crate::schedule::iteration_ns(&outer.schedule, &repeats, m)?.max(parts);
    let mut trips: Vec<(u32, f64)> = trips.into_iter().collect();
    trips.sort_by_key(|t| t.0);
    Some(OuterReplay {
        seconds: ns * 1e-9,
        cycles: ns / m.cycle_ns.max(f64::MIN_POSITIVE),
        trips,
    })
}

/// The seconds an iteration of loop `l` around innermost loops takes in unoptimized
/// code, replayed whole ([`outer_replay`]), or `None` for optimized code and loops not
/// replayed. Without optimization an outer iteration's inner loops of a few iterations
/// pass their values through the stack to each other and to the statements between
/// them, and the core overlaps whole outer iterations only as far as its window holds
/// them: the inner loops priced apart miss it (nemo_nbody0h4 -O0 on a Zen 5 guest:
/// -41% apart). Optimized code keeps those values in registers and the replay of the
/// whole iteration moved it away (session 38: nemo_firstn -0.4% -> -29% at -O2).
fn unoptimized_outer(
    table: &CostTable,
    report: Option<&OptReport>,
    u: &UnitProfile,
    l: &augur_program_profile::LoopProfile,
) -> Option<f64> {
    if table.register_scalars || !u.loops.iter().any(|o| o.parent == Some(l.id)) {
        return None;
    }
    outer_replay(table, report, u, l).map(|o| o.seconds)
}

/// The most instructions an iteration of a loop around innermost loops runs for it to
/// be replayed whole ([`outer_replay`]): a hundred iterations of an inner loop of forty.
const MAX_REPLAYED_INSTRUCTIONS: f64 = 4000.0;

/// A loop around innermost loops replayed whole ([`outer_replay`]).
pub(crate) struct OuterReplay {
    /// Seconds an iteration.
    pub seconds: f64,
    /// The same in core cycles.
    pub cycles: f64,
    /// Per inner loop (its line), its iterations per iteration of the loop.
    pub trips: Vec<(u32, f64)>,
}

impl OuterReplay {
    /// "around 2 innermost loops (lines 108 and 115: 3.0 and 3.0 iterations each
    /// time), its instructions replayed whole on the core, 85.2 cycles an iteration".
    pub fn describe(&self) -> String {
        let lines: Vec<String> = self.trips.iter().map(|t| t.0.to_string()).collect();
        let trips: Vec<String> = self.trips.iter().map(|t| format!("{:.1}", t.1)).collect();
        let (n, s) = (
            self.trips.len(),
            if self.trips.len() == 1 { "" } else { "s" },
        );
        format!(
            "around {n} innermost loop{s} (line{s} {}: {} iterations each time), its instructions replayed whole on the core, {:.1} cycles an iteration (for comparison: the total prices the inner loops and the statements around them one by one)",
            lines.join(", "),
            trips.join(", "),
            self.cycles
        )
    }
}

/// Whether a source recurrence holds complex arithmetic (`ACDL`, `MCSG`: a `C` second).
fn complex_chain(chain: &AbOpCounts) -> bool {
    chain
        .iter()
        .any(|(op, n)| n > 0.0 && op.mnemonic().as_bytes().get(1) == Some(&b'C'))
}

/// Whether a compiled loop's chains stand for its source's recurrences: it carries a
/// floating-point value in a register ([`floating_chain`]), or it is vectorized, its
/// recurrences split into partial sums over the lanes (an integer sum `k = k + 3*ia(i)`
/// vectorized 4 wide by gfortran 12 at -O2: 0.5 cycles an element on the Xeon guest of
/// 2026-11-29, its chain through `paddd` 2 cycles a vector; the source's chain at one
/// integer add an element said 2 cycles, 3.5 times the measured time).
fn chains_stand_for_the_source(cl: &augur_program_profile::compiled::CompiledLoop) -> bool {
    floating_chain(cl) || cl.lanes > 1
}

/// Whether a compiled loop carries a floating-point value from one iteration to the next
/// in a register (on any of its paths).
fn floating_chain(cl: &augur_program_profile::compiled::CompiledLoop) -> bool {
    let floating = |c: &augur_program_profile::compiled::Chain| {
        c.carried_by.starts_with("%v") && c.path.iter().any(|p| p.class.class.is_floating())
    };
    cl.chains.iter().any(floating) || cl.paths.iter().any(|p| p.chains.iter().any(floating))
}

/// The seconds a compiled loop bound by its dependence chain leaves its core's units
/// idle (its chain's time minus its throughput's, over its iterations): independent
/// loads and their misses run in that time.
pub(crate) fn compiled_idle(
    table: &CostTable,
    report: Option<&OptReport>,
    u: &UnitProfile,
    l: &augur_program_profile::LoopProfile,
) -> f64 {
    let Some(t) = compiled_time(table, report, u, l.line) else {
        return 0.0;
    };
    let n = l.iterations.unwrap_or(0.0);
    let per = t.per_compiled_iteration / t.per_source_iteration.max(f64::MIN_POSITIVE);
    n * (t.chain - t.throughput).max(0.0) / per
}

/// The real floating-point operations of one iteration of loop `id` of `u` (its body's
/// blocks' AbOps over its iterations), or `None` when it did not iterate.
fn body_floating_ops(u: &UnitProfile, id: u32) -> Option<AbOpCounts> {
    let n = u
        .loops
        .iter()
        .find(|l| l.id == id)?
        .iterations
        .filter(|n| *n > 0.0)?;
    let mut out = AbOpCounts::new();
    for b in u.blocks.iter().filter(|b| b.in_loop == Some(id)) {
        out.add_scaled(&b.counts, b.executions.unwrap_or(0.0) / n);
    }
    Some(out)
}

/// The time the blocks `body` of `u` hold the busier of the two dividers, neither of
/// them pipelined: the floating-point divide and square-root unit and the integer
/// divider, each taking its operations one after another for their occupancies
/// ([`CostTable::divider`]). An iteration with `1/sqrt(x)` takes a divide plus a square
/// root even when its other operations would run faster (3.7 ns on a Zen 4 where the
/// stream costs say 2.5); a trial division's `mod(i, d)` takes its 1.7 ns (the stream
/// costs said 0.4).
fn divider_time(table: &CostTable, u: &UnitProfile, body: &[usize]) -> f64 {
    let mut floating = 0.0;
    let mut integer = 0.0;
    for &i in body {
        let b = &u.blocks[i];
        let runs = b.executions.unwrap_or(0.0);
        for &(op, s) in &table.divider {
            let t = b.counts.get(op) * s * runs;
            if INTEGER_DIVIDES.contains(&op) {
                integer += t;
            } else {
                floating += t;
            }
        }
    }
    f64::max(floating, integer)
}

/// The operations of the integer divider, a unit of its own beside the floating-point
/// one (they overlap).
const INTEGER_DIVIDES: [AbOp; 3] = [AbOp::DISL, AbOp::DISG, AbOp::MODI];

/// `c + (k − 1)·work`: the work of `c` scaled by `k`, its mispredictions kept (and the
/// operations executed as they were).
pub(crate) fn scale_work(c: &mut Coefficients, k: f64) {
    let mut work = without_branches(c);
    work.executed = 0.0;
    c.add_scaled(&work, k - 1.0);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::block::{without_chain, BlockContext};
    use crate::test_support::{add_mul_machine, block_profile, entry, pricing, unit_with_one_loop};
    use augur_program_profile::BlockProfile;

    /// Each block of `u` priced in its own context, and at throughput.
    fn priced(t: &CostTable, u: &UnitProfile) -> (Vec<Coefficients>, Vec<Coefficients>) {
        let ctx = BlockContext::default();
        let c = u.blocks.iter().map(|b| pricing(t).total(b, ctx)).collect();
        let thru = u
            .blocks
            .iter()
            .map(|b| pricing(t).total(&without_chain(b), ctx))
            .collect();
        (c, thru)
    }

    #[test]
    fn a_procedure_inlined_into_a_loop_restarts_its_chains_at_each_call() {
        use augur_program_profile::compiled::CompiledLoop;
        // A binary search outermost in its function, 9 iterations a call, compiled
        // inside the caller's loop at line 35: each call starts its chains afresh.
        let mut cl: CompiledLoop = serde_json::from_value(serde_json::json!({
            "file": "k.f90", "line": 86, "function": "MAIN__", "instructions": [],
            "source_iterations": 1, "source_iterations_from": "", "chains": [],
            "issued": 15, "outer": {"line": 35, "span": [], "issued": 51, "inner_loops": 1}
        }))
        .unwrap();
        let mut l = unit_with_one_loop("locate", vec![]).loops[0].clone();
        l.entries = Some(10.0);
        l.iterations = Some(90.0);
        let r = restarts(&cl, &l).expect("restarts");
        assert_eq!((r.per_entry, r.around), (9.0, Some(35)));
        // Called, not inlined: no compiled loop around it.
        cl.outer = None;
        assert_eq!(restarts(&cl, &l).map(|r| r.around), Some(None));
    }

    #[test]
    fn compiled_chains_stand_for_real_recurrences_in_registers_only() {
        use augur_program_profile::compiled::{Chain, ClassCount, ClassWidth, CompiledLoop};
        use augur_program_profile::compiled::{InstrClass, Width};
        let chain = |by: &str, class| Chain {
            carried_by: by.into(),
            path: vec![ClassCount {
                class: ClassWidth::new(class, Width::Scalar),
                count: 1,
            }],
            restarted_by: None,
            crossings: 0,
        };
        let mut cl: CompiledLoop = serde_json::from_value(serde_json::json!({
            "file": "k.f90", "line": 5, "function": "k_", "instructions": [],
            "source_iterations": 1, "source_iterations_from": "", "chains": [],
            "issued": 6
        }))
        .unwrap();
        // A pointer's increment is no floating-point recurrence; `maxsd` through a
        // register is; a value kept in a stack slot is not in a register.
        cl.chains = vec![chain("%a", InstrClass::IntAlu)];
        assert!(!floating_chain(&cl));
        cl.chains.push(chain("%v1", InstrClass::FpMinMax));
        assert!(floating_chain(&cl));
        cl.chains = vec![chain("-8(%rbp)", InstrClass::FpAdd)];
        assert!(!floating_chain(&cl));
        // A vectorized loop's chains are the source's recurrences split over its lanes.
        cl.chains = vec![chain("%v1", InstrClass::VecInt)];
        assert!(!chains_stand_for_the_source(&cl));
        cl.lanes = 4;
        assert!(chains_stand_for_the_source(&cl));
        // A complex recurrence keeps the source's chain.
        let mut ops = AbOpCounts::new();
        ops.add(AbOp::ARDL, 1.0);
        assert!(!complex_chain(&ops));
        ops.add(AbOp::MCDL, 1.0);
        assert!(complex_chain(&ops));
    }

    /// A loop of 100 iterations (line 1, a multiply of its own) around a loop of three
    /// (line 2) adding into a chain: `do m = 1, 100; ...; do k = 1, 3; s = s + ...`.
    fn sum_of_three_in_a_loop_of_100() -> UnitProfile {
        use augur_program_profile::LoopProfile;
        let ops = |op: AbOp| {
            let mut c = AbOpCounts::new();
            c.add(op, 1.0);
            c
        };
        let outer = BlockProfile {
            executions: Some(100.0),
            ..block_profile(
                augur_ir::BlockKind::Straight,
                ops(AbOp::MRDL),
                AbOpCounts::new(),
            )
        };
        let inner = BlockProfile {
            id: 1,
            first_line: 2,
            last_line: 2,
            in_loop: Some(1),
            executions: Some(300.0),
            ..block_profile(
                augur_ir::BlockKind::Straight,
                ops(AbOp::ARDL),
                ops(AbOp::ARDL),
            )
        };
        let mut u = unit_with_one_loop("t", vec![outer, inner]);
        u.loops.push(LoopProfile {
            id: 1,
            line: 2,
            depth: 2,
            parent: Some(0),
            entries: Some(100.0),
            iterations: Some(300.0),
            mean_trips: Some(3.0),
            ..u.loops[0].clone()
        });
        u
    }

    #[test]
    fn a_nest_unrolled_into_one_compiled_loop_is_priced_whole() {
        use augur_program_profile::compiled::CompiledLoop;
        let m = add_mul_machine();
        let mut t = CostTable::from_profile(&m);
        t.incore = Some(augur_machine_profile::incore::InCoreProfile {
            cycle_ns: 1.0,
            issue_ns: 1.0,
            ..Default::default()
        });
        // `do m = 1, 100; d = sum(r(:,m)**2); mag(m) = d*d; end do`: the sum's loop of
        // three (its add a 3 ns chain, 900 ns priced alone) unrolled into the loop
        // over `m`, whose compiled iteration issues 4 instructions: 4 ns each, 400 ns.
        let u = sum_of_three_in_a_loop_of_100();
        let cl: CompiledLoop = serde_json::from_value(serde_json::json!({
            "file": "t.f90", "line": 1, "function": "t_", "instructions": [],
            "source_iterations": 1, "source_iterations_from": "", "chains": [],
            "issued": 4
        }))
        .unwrap();
        let report = OptReport {
            compiled_loops: vec![cl],
            ..OptReport::default()
        };
        let (mut c, thru) = priced(&t, &u);
        let total = |c: &[Coefficients]| c.iter().map(|c| t.cost_of(c).seconds).sum::<f64>();
        loop_recurrences(&t, Some(&report), &u, &mut c, &thru, &[]);
        assert!((total(&c) - 400e-9).abs() < 1e-15, "{}", total(&c));
        // Without the compiled loop, the inner loop keeps its chain: 50 + 900 ns.
        let (mut c, _) = priced(&t, &u);
        loop_recurrences(&t, None, &u, &mut c, &thru, &[]);
        assert!((total(&c) - 950e-9).abs() < 1e-15, "{}", total(&c));
    }

    #[test]
    fn a_short_loop_whose_results_the_next_chained_call_waits_for_pays_its_path_at_each_entry() {
        use augur_program_profile::compiled::CompiledLoop;
        let mut t = CostTable::from_profile(&add_mul_machine());
        t.register_scalars = true;
        t.incore = Some(crate::test_support::incore_machine(&[("fp_add", 3.0, 0.5)]));
        // `do j = 1, 6; f(j) = s(j) + b1*(h(j,1) + b2*h(j,2) + ...); end do` in a
        // procedure called 10 times: 2 instructions an iteration (0.1 ns at issue), a
        // path of 10 dependent adds through each (30 ns).
        let mut ops = AbOpCounts::new();
        ops.add(AbOp::ARDL, 1.0);
        let body = BlockProfile {
            in_loop: Some(0),
            executions: Some(60.0),
            ..block_profile(augur_ir::BlockKind::Straight, ops, AbOpCounts::new())
        };
        let mut u = unit_with_one_loop("rkdot", vec![body]);
        u.calls = Some(10.0);
        u.loops[0].entries = Some(10.0);
        u.loops[0].iterations = Some(60.0);
        let cl: CompiledLoop = serde_json::from_value(serde_json::json!({
            "file": "t.f90", "line": 1, "function": "rkdot_", "instructions": [],
            "source_iterations": 1, "source_iterations_from": "", "chains": [],
            "issued": 2, "span": [{"class": "fp_add", "count": 10}]
        }))
        .unwrap();
        let report = OptReport {
            compiled_loops: vec![cl],
            ..OptReport::default()
        };
        let total = |u: &UnitProfile, t: &CostTable| {
            let (mut c, thru) = priced(t, u);
            loop_recurrences(t, Some(&report), u, &mut c, &thru, &[]);
            c.iter().map(|c| t.cost_of(c).seconds).sum::<f64>()
        };
        let steady = compiled_time(&t, Some(&report), &u, 1)
            .unwrap()
            .per_compiled_iteration;
        assert!(steady < 1e-9, "{steady}");
        // Its calls independent: the loop runs at its steady pace.
        let free = total(&u, &t);
        assert!((free - 60.0 * steady).abs() < 1e-15, "{free}");
        // Every call chained to the next (the next stage reads `f`): each entry waits
        // for the last iteration's path, 30 ns less one iteration's steady time.
        u.chained_calls = Some(10.0);
        let chained = total(&u, &t);
        let expected = 60.0 * steady + 10.0 * (30e-9 - steady);
        assert!(
            (chained - expected).abs() < 1e-14,
            "{chained} vs {expected}"
        );
        // Half of the calls chained: half of that.
        u.chained_calls = Some(5.0);
        let half = total(&u, &t);
        assert!((half - (free + chained) / 2.0).abs() < 1e-14, "{half}");
        // A loop inside another, and unoptimized code, pay nothing more.
        u.chained_calls = Some(10.0);
        u.loops[0].parent = Some(7);
        assert!((total(&u, &t) - free).abs() < 1e-15);
        u.loops[0].parent = None;
        t.register_scalars = false;
        let (mut c, thru) = priced(&t, &u);
        loop_recurrences(&t, Some(&report), &u, &mut c, &thru, &[]);
        let unoptimized: f64 = c.iter().map(|c| t.cost_of(c).seconds).sum();
        u.chained_calls = None;
        let (mut c, thru) = priced(&t, &u);
        loop_recurrences(&t, Some(&report), &u, &mut c, &thru, &[]);
        let unchained: f64 = c.iter().map(|c| t.cost_of(c).seconds).sum();
        assert!((unoptimized - unchained).abs() < 1e-15);
    }

    #[test]
    fn a_loop_around_a_short_inner_loop_replays_no_faster_than_its_inner_loops_alone_and_prices_unoptimized_code(
    ) {
        use augur_program_profile::compiled::CompiledLoop;
        let m = add_mul_machine();
        let mut t = CostTable::from_profile(&m);
        let mut incore = augur_machine_profile::incore::InCoreProfile {
            cycle_ns: 1.0,
            issue_ns: 0.25,
            window: Some(100.0),
            window_vector: Some(100.0),
            ..Default::default()
        };
        for (class, latency_ns, throughput_ns) in [("fp_add", 3.0, 1.0), ("int_alu", 1.0, 0.25)] {
            let cost = augur_machine_profile::incore::ClassCost {
                latency_ns,
                throughput_ns,
                beside_add_ns: None,
            };
            incore.class.insert(class.into(), cost);
        }
        t.incore = Some(incore);
        // `do m = 1, 100; s = 0; do k = 1, 3; s = s + r(k,m); end do; ...`: the sum's
        // chain of three adds (3 ns each) restarts every iteration of the loop over m.
        // The inner loop priced alone from its compiled code waits on its chain: 3 adds,
        // 9 ns an iteration over m, 900 ns. Replayed whole, the restarts would overlap
        // (the adders take three adds an iteration, 300 ns), which real loops do not do:
        // the inner loops' own times stand, 900 ns. When the code around the inner loop
        // carries the sum on (`s = s + 1` between entries), its add joins the path: 4
        // adds an iteration, 1200 ns.
        let u = sum_of_three_in_a_loop_of_100();
        let compiled = |restart: &str| -> CompiledLoop {
            serde_json::from_value(serde_json::json!({
                "file": "t.f90", "line": 2, "function": "t_", "instructions": [],
                "source_iterations": 1, "source_iterations_from": "",
                "chains": [{"carried_by": "%v0", "path": [{"class": "fp_add", "count": 1}]}],
                "issued": 1,
                "outer": {"line": 1, "span": [], "issued": 1, "inner_loops": 1, "schedule": [
                    restart,
                    "fp_add; 0:fp_add; 0; hold=v inner=2 back"
                ]}
            }))
            .unwrap()
        };
        for (restart, ns) in [
            ("int_alu; ; 0; hold=v", 9.0),
            ("fp_add; 0:fp_add; 0; hold=v", 12.0),
        ] {
            let report = OptReport {
                compiled_loops: vec![compiled(restart)],
                ..OptReport::default()
            };
            let r = outer_replay(&t, Some(&report), &u, &u.loops[0]).expect("replayed");
            assert!(
                (r.seconds - ns * 1e-9).abs() < 0.02 * ns * 1e-9,
                "{restart}: {}",
                r.seconds
            );
            assert_eq!(r.trips, vec![(2, 3.0)]);
            assert!(
                r.describe().contains("line 2: 3.0 iterations"),
                "{}",
                r.describe()
            );
        }
        // Unoptimized code is priced by the replay: 9 ns an iteration over m, 900 ns.
        let report = OptReport {
            compiled_loops: vec![compiled("int_alu; ; 0; hold=v")],
            ..OptReport::default()
        };
        let total =
            |t: &CostTable, c: &[Coefficients]| c.iter().map(|c| t.cost_of(c).seconds).sum::<f64>();
        assert!(!t.register_scalars);
        let (mut c, thru) = priced(&t, &u);
        loop_recurrences(&t, Some(&report), &u, &mut c, &thru, &[]);
        assert!(
            (total(&t, &c) - 900e-9).abs() < 0.02 * 900e-9,
            "{}",
            total(&t, &c)
        );
        // Optimized code is not: the loops keep their own times (the inner loop its
        // compiled chain, 3 ns an iteration: 50 + 900 ns).
        t.register_scalars = true;
        let (mut c, thru) = priced(&t, &u);
        loop_recurrences(&t, Some(&report), &u, &mut c, &thru, &[]);
        assert!((total(&t, &c) - 950e-9).abs() < 1e-12, "{}", total(&t, &c));
    }

    #[test]
    fn an_inlined_procedure_joins_its_callers_loop() {
        // `x = rand(state)` inlined into a loop of 100 iterations: the generator's
        // `state = a*state + c` is a 6 ns recurrence (two chained 3 ns operations),
        // the loop body 2 ns of independent work. Priced apart, 6 + 2 ns an
        // iteration; as one body, the recurrence hides the work: max(6, 2 + 1) ns.
        let t = CostTable::from_profile(&add_mul_machine());
        let mut ops = AbOpCounts::new();
        ops.add(AbOp::ARDL, 1.0);
        ops.add(AbOp::MRDL, 1.0);
        let mut body_ops = AbOpCounts::new();
        body_ops.add(AbOp::MRDL, 4.0);
        let caller = unit_with_one_loop(
            "main",
            vec![BlockProfile {
                first_line: 3,
                last_line: 4,
                executions: Some(100.0),
                ..block_profile(augur_ir::BlockKind::Straight, body_ops, AbOpCounts::new())
            }],
        );
        let callee = UnitProfile {
            name: "rand".into(),
            unit_kind: augur_ir::UnitKind::Function,
            first_line: 11,
            last_line: 14,
            calls: Some(100.0),
            blocks: vec![BlockProfile {
                first_line: 12,
                last_line: 13,
                in_loop: None,
                executions: Some(100.0),
                ..block_profile(augur_ir::BlockKind::Entry, ops.clone(), ops)
            }],
            loops: vec![],
            ..caller.clone()
        };
        let units = vec![caller, callee];
        let ctx = BlockContext::default();
        let price = |units: &[UnitProfile]| -> Vec<Vec<Coefficients>> {
            units
                .iter()
                .map(|u| u.blocks.iter().map(|b| pricing(&t).total(b, ctx)).collect())
                .collect()
        };
        let thru: Vec<Vec<Coefficients>> = units
            .iter()
            .map(|u| {
                u.blocks
                    .iter()
                    .map(|b| pricing(&t).total(&without_chain(b), ctx))
                    .collect()
            })
            .collect();
        let total = |c: &[Vec<Coefficients>]| {
            c.iter()
                .flatten()
                .map(|c| t.cost_of(c).seconds)
                .sum::<f64>()
        };
        let report = |line: u32| augur_program_profile::optreport::OptReport {
            inlined: vec![augur_program_profile::optreport::InlinedCall {
                file: "t.f90".into(),
                line,
                callee: "rand".into(),
                caller: "main".into(),
            }],
            ..Default::default()
        };
        let run = |r: &augur_program_profile::optreport::OptReport| -> f64 {
            let mut c = price(&units);
            let shares = inlined_shares(&units, &t, Some(r), &c, &thru);
            let (head, tail) = c.split_at_mut(1);
            let scales =
                loop_recurrences(&t, Some(r), &units[0], &mut head[0], &thru[0], &shares[0]);
            for (vi, share, k) in scales {
                assert_eq!(vi, 1);
                for c in &mut tail[0] {
                    scale_work(c, 1.0 + share * (k - 1.0));
                }
            }
            total(&c)
        };
        // Not inlined (the report names no call in the loop): 600 + 200 ns.
        assert!((total(&price(&units)) - 800e-9).abs() < 1e-15);
        assert!(
            (run(&report(20)) - 800e-9).abs() < 1e-15,
            "{}",
            run(&report(20))
        );
        // Inlined at line 3: the 6 ns recurrence bounds the merged body.
        assert!(
            (run(&report(3)) - 600e-9).abs() < 1e-15,
            "{}",
            run(&report(3))
        );
    }

    /// The seconds of `u`'s blocks priced with `t`, their loop's recurrences and dividers
    /// applied.
    fn priced_loop(t: &CostTable, u: &UnitProfile) -> f64 {
        let ctx = BlockContext::default();
        let mut c: Vec<Coefficients> = u.blocks.iter().map(|b| pricing(t).total(b, ctx)).collect();
        let thru: Vec<Coefficients> = u
            .blocks
            .iter()
            .map(|b| pricing(t).total(&without_chain(b), ctx))
            .collect();
        loop_recurrences(t, None, u, &mut c, &thru, &[]);
        c.iter().map(|c| t.cost_of(c).seconds).sum()
    }

    #[test]
    fn divides_and_square_roots_take_their_turns_on_the_divider() {
        // `s = s + 1/sqrt(x(i))`, 100 iterations: stream costs 0.5 ns each for the
        // divide and the square root (and the add), 3 ns chain for the add. The divider
        // holds a square root 2.5 ns and a divide 1.3 ns: an iteration takes 3.8 ns, not
        // max(1.5, 3) = 3 ns.
        let mut m = add_mul_machine();
        for op in [AbOp::DRDL, AbOp::SQRD] {
            m.abop.insert(op, entry(10.0, 0.0));
            m.stream.insert(op, entry(0.5, 0.0));
        }
        let mut counts = AbOpCounts::new();
        for op in [AbOp::ARDL, AbOp::DRDL, AbOp::SQRD] {
            counts.add(op, 1.0);
        }
        let mut chain = AbOpCounts::new();
        chain.add(AbOp::ARDL, 1.0);
        let u = unit_with_one_loop(
            "t",
            vec![BlockProfile {
                executions: Some(100.0),
                ..block_profile(augur_ir::BlockKind::Straight, counts, chain)
            }],
        );
        let priced = |t: &CostTable| priced_loop(t, &u);
        // A profile without the divider section: the add's chain bounds it.
        let before = priced(&CostTable::from_profile(&m));
        assert!((before - 300e-9).abs() < 1e-15, "{before}");
        m.divider.insert(AbOp::DRDL, entry(1.3, 0.0));
        m.divider.insert(AbOp::SQRD, entry(2.5, 0.0));
        let after = priced(&CostTable::from_profile(&m));
        assert!((after - 380e-9).abs() < 1e-15, "{after}");
    }

    #[test]
    fn integer_divides_take_their_turns_on_a_divider_of_their_own() {
        // `k = k + mod(i, d) + mod(j, d) + mod(l, d)` beside `x = x + 1/sqrt(y)`, 100
        // iterations: the integer divider holds each `mod` 1.7 ns (5.1 ns for three), the
        // floating-point one 3.8 ns; the two overlap, so an iteration takes 5.1 ns.
        let mut m = add_mul_machine();
        for op in [AbOp::DRDL, AbOp::SQRD, AbOp::MODI] {
            m.abop.insert(op, entry(10.0, 0.0));
            m.stream.insert(op, entry(0.4, 0.0));
        }
        let mut counts = AbOpCounts::new();
        for (op, k) in [(AbOp::ARDL, 1.0), (AbOp::DRDL, 1.0), (AbOp::SQRD, 1.0)] {
            counts.add(op, k);
        }
        let one_iteration = |mods: f64| {
            let mut c = counts.clone();
            c.add(AbOp::MODI, mods);
            let mut chain = AbOpCounts::new();
            chain.add(AbOp::ARDL, 1.0);
            unit_with_one_loop(
                "t",
                vec![BlockProfile {
                    executions: Some(100.0),
                    ..block_profile(augur_ir::BlockKind::Straight, c, chain)
                }],
            )
        };
        m.divider.insert(AbOp::DRDL, entry(1.3, 0.0));
        m.divider.insert(AbOp::SQRD, entry(2.5, 0.0));
        m.divider.insert(AbOp::MODI, entry(1.7, 0.0));
        let t = CostTable::from_profile(&m);
        let two = priced_loop(&t, &one_iteration(2.0));
        assert!((two - 380e-9).abs() < 1e-15, "{two}");
        let three = priced_loop(&t, &one_iteration(3.0));
        assert!((three - 510e-9).abs() < 1e-12, "{three}");
    }

    #[test]
    fn a_loop_body_runs_at_its_throughput_or_its_recurrence_whichever_is_slower() {
        let mut m = add_mul_machine();
        let t = CostTable::from_profile(&m);
        let ops = |pairs: &[(AbOp, f64)]| {
            let mut c = AbOpCounts::new();
            for &(op, n) in pairs {
                c.add(op, n);
            }
            c
        };
        let block = |id: u32, counts: AbOpCounts, chain: AbOpCounts| BlockProfile {
            id,
            first_line: id + 1,
            last_line: id + 1,
            executions: Some(100.0),
            ..block_profile(augur_ir::BlockKind::Straight, counts, chain)
        };
        // Two blocks of one innermost loop, 100 iterations: a reduction `s = s + x*y`
        // (its 3 ns add chain beats its 1 ns of throughput) and `a(i) = x*y*z + w`
        // (2 ns of throughput, no recurrence). One by one: 3 + 2 ns; together the
        // reduction's add overlaps the other block: max(1 + 2, 3) = 3 ns.
        let u = unit_with_one_loop(
            "t",
            vec![
                block(
                    0,
                    ops(&[(AbOp::ARDL, 1.0), (AbOp::MRDL, 1.0)]),
                    ops(&[(AbOp::ARDL, 1.0)]),
                ),
                block(
                    1,
                    ops(&[(AbOp::ARDL, 1.0), (AbOp::MRDL, 3.0)]),
                    AbOpCounts::new(),
                ),
            ],
        );
        let ctx = BlockContext::default();
        let (mut c, thru) = priced(&t, &u);
        let total = |c: &[Coefficients]| c.iter().map(|c| t.cost_of(c).seconds).sum::<f64>();
        assert!((total(&c) - 500e-9).abs() < 1e-15, "{}", total(&c));
        loop_recurrences(&t, None, &u, &mut c, &thru, &[]);
        assert!((total(&c) - 300e-9).abs() < 1e-15, "{}", total(&c));
        // A recurrence across the blocks longer than both (two chained adds per
        // iteration, 6 ns) stretches the body to it.
        let mut u2 = u.clone();
        u2.loops[0].chain = ops(&[(AbOp::ARDL, 2.0)]);
        let mut c: Vec<Coefficients> = u2
            .blocks
            .iter()
            .map(|b| pricing(&t).total(b, ctx))
            .collect();
        loop_recurrences(&t, None, &u2, &mut c, &thru, &[]);
        assert!((total(&c) - 600e-9).abs() < 1e-15, "{}", total(&c));

        // A library call beside the recurrence comes on top of it: `s = s*r + exp(x)`,
        // a 6 ns chain (multiply, add) and a 2 ns call: 8 ns, not max(6, 3).
        m.abop.insert(AbOp::EXPD, entry(5.0, 0.0));
        m.stream.insert(AbOp::EXPD, entry(2.0, 0.0));
        let t = CostTable::from_profile(&m);
        let mut u3 = u.clone();
        u3.blocks = vec![block(
            0,
            ops(&[(AbOp::ARDL, 1.0), (AbOp::MRDL, 1.0), (AbOp::EXPD, 1.0)]),
            ops(&[(AbOp::ARDL, 1.0), (AbOp::MRDL, 1.0)]),
        )];
        let mut c: Vec<Coefficients> = u3
            .blocks
            .iter()
            .map(|b| pricing(&t).total(b, ctx))
            .collect();
        let thru: Vec<Coefficients> = u3
            .blocks
            .iter()
            .map(|b| pricing(&t).total(&without_chain(b), ctx))
            .collect();
        loop_recurrences(&t, None, &u3, &mut c, &thru, &[]);
        let total = |c: &[Coefficients]| c.iter().map(|c| t.cost_of(c).seconds).sum::<f64>();
        assert!((total(&c) - 800e-9).abs() < 1e-15, "{}", total(&c));

        // With optimizing flags, the floating-point `s` is stored before the call and
        // reloaded after it: one round trip through L1 (1 ns here) more per iteration.
        let mut ts = CostTable::from_profile(&m);
        ts.register_scalars = true;
        ts.call_spill = 1e-9;
        let priced_with = |u: &UnitProfile, report: Option<&OptReport>| {
            let mut c: Vec<Coefficients> = u
                .blocks
                .iter()
                .map(|b| pricing(&ts).total(b, ctx))
                .collect();
            let thru: Vec<Coefficients> = u
                .blocks
                .iter()
                .map(|b| pricing(&ts).total(&without_chain(b), ctx))
                .collect();
            loop_recurrences(&ts, report, u, &mut c, &thru, &[]);
            c.iter().map(|c| ts.cost_of(c).seconds).sum::<f64>()
        };
        let spilled = |u: &UnitProfile| priced_with(u, None);
        assert!((spilled(&u3) - 900e-9).abs() < 1e-15, "{}", spilled(&u3));
        // Without a call in the body nothing is spilled.
        assert!((spilled(&u) - 300e-9).abs() < 1e-15, "{}", spilled(&u));
        // A profile that says which calls wait for the recurrence: here none (the
        // `exp` reads `x`, off the chain), so the calls run ahead of it and the
        // iteration takes its 6 ns chain and the 1 ns spill.
        let mut u4 = u3.clone();
        u4.loops[0].serial_calls = Some(AbOpCounts::new());
        assert!((spilled(&u4) - 700e-9).abs() < 1e-15, "{}", spilled(&u4));
        // The call waits (its argument reads the carried scalar): on top again.
        u4.loops[0].serial_calls = Some(ops(&[(AbOp::EXPD, 1.0)]));
        assert!((spilled(&u4) - 900e-9).abs() < 1e-15, "{}", spilled(&u4));

        // The call's argument read through a failed store forwarding (its halves stored
        // apart): it costs its 5 ns latency, beside the recurrence that does not pass
        // through it: max(6 + 1 + 2, 5) ns ([`Recurrence::with_its_calls`]).
        let report = OptReport {
            forwarding_failures: vec![augur_program_profile::optreport::SourceLine {
                file: "t.f90".into(),
                line: 1,
            }],
            ..OptReport::default()
        };
        let forwarded = |u: &UnitProfile| priced_with(u, Some(&report));
        assert!(
            (forwarded(&u4) - 900e-9).abs() < 1e-15,
            "{}",
            forwarded(&u4)
        );
        u4.loops[0].serial_calls = Some(AbOpCounts::new());
        assert!(
            (forwarded(&u4) - 700e-9).abs() < 1e-15,
            "{}",
            forwarded(&u4)
        );
        // A profile made before `serial_calls` keeps its rule.
        u4.loops[0].serial_calls = None;
        assert!(
            (forwarded(&u4) - 900e-9).abs() < 1e-15,
            "{}",
            forwarded(&u4)
        );
    }

    #[test]
    fn forwarded_calls_run_one_after_another_at_their_latency() {
        let mut m = add_mul_machine();
        m.abop.insert(AbOp::EXPD, entry(5.0, 0.0));
        m.stream.insert(AbOp::EXPD, entry(2.0, 0.0));
        let t = CostTable::from_profile(&m);
        let ops = |pairs: &[(AbOp, f64)]| {
            let mut c = AbOpCounts::new();
            for &(op, k) in pairs {
                c.add(op, k);
            }
            c
        };
        let (exp, none) = (ops(&[(AbOp::EXPD, 1.0)]), AbOpCounts::new());
        let time = |seconds: f64, chain: &AbOpCounts, forwarded: &AbOpCounts| {
            Recurrence {
                seconds,
                chain,
                serial: &exp,
                forwarded,
                iterations: 1.0,
            }
            .with_its_calls(&t)
        };
        let adds = ops(&[(AbOp::ARDL, 1.0)]);
        // A waiting call at its stream cost on top of a 2 ns recurrence.
        assert!((time(2e-9, &adds, &none) - 4e-9).abs() < 1e-18);
        // Forwarded, it takes its latency beside the recurrence.
        assert!((time(2e-9, &adds, &exp) - 5e-9).abs() < 1e-18);
        assert!((time(8e-9, &adds, &exp) - 10e-9).abs() < 1e-18);
        // A recurrence through a call of the library (a complex power): the work
        // between the calls waits for them, and the forwarded call adds its latency.
        let through = ops(&[(AbOp::ARDL, 1.0), (AbOp::ECSL, 1.0)]);
        assert!((time(8e-9, &through, &exp) - 13e-9).abs() < 1e-18);
    }
}
