//! The iteration of a loop around innermost loops as one dependent path: unoptimized
//! code keeps every value in memory, so an iteration of a pair loop (the separation by
//! components in one inner loop, a square root and a divide, the forces by components in
//! another) is a chain of stores and reloads longer than what it issues, and longer
//! than the core's window, which cannot reach into the next iteration to overlap it.
//!
//! Without optimization, an iteration takes at least its longest dependent path (the compiled loop's
//! [`OuterIteration`], its inner loops' bodies once each, plus each inner loop's
//! carried chain for its other iterations) over the iterations in flight (the window
//! over the instructions it issues, at least one); the loop's blocks, inner loops
//! included, are scaled up to it when they add up to less.

use crate::cost::{Coefficients, CostTable};
use crate::recurrence::{compiled_time, scale_work};
use augur_program_profile::compiled::OuterIteration;
use augur_program_profile::optreport::OptReport;
use augur_program_profile::{LoopProfile, UnitProfile};

/// Scales the blocks of each loop of `u` around innermost compiled loops up to the time
/// its iterations' dependent paths take ([`iteration_path`]), when that is longer.
pub(crate) fn outer_iterations(
    table: &CostTable,
    report: Option<&OptReport>,
    u: &UnitProfile,
    unit_c: &mut [Coefficients],
) {
    for s in &u.loops {
        let Some(t_path) = iteration_path(table, report, u, s) else {
            continue;
        };
        let body: Vec<usize> = (0..u.blocks.len())
            .filter(|&i| crate::price::inside_loop(u, u.blocks[i].in_loop, s.id))
            .collect();
        let mut work = Coefficients::default();
        for &i in &body {
            if let Some(c) = unit_c.get(i) {
                work.add(&crate::block::without_branches(c));
            }
        }
        let t_body = table.cost_of(&work).seconds;
        if t_body <= 0.0 || t_path <= t_body {
            continue;
        }
        for &i in &body {
            if let Some(c) = unit_c.get_mut(i) {
                scale_work(c, t_path / t_body);
            }
        }
    }
}

/// Seconds the iterations of loop `s` take by their dependent paths, or `None` when it
/// is not a loop around innermost loops each priced from a compiled loop that records
/// this iteration (or the machine has no window).
fn iteration_path(
    table: &CostTable,
    report: Option<&OptReport>,
    u: &UnitProfile,
    s: &LoopProfile,
) -> Option<f64> {
    // An optimizing compiler keeps the path's values in registers, and the core
    // overlaps such iterations further than their instructions over its window say
    // (a single-precision pair loop at -O2 on a Zen 4: 22 cycles an iteration measured,
    // 29 by this bound): the compiled inner loops' own bounds stand there.
    if table.register_scalars {
        return None;
    }
    let m = table.incore.as_ref()?;
    let window = m.window.filter(|w| *w > 0.0)?;
    let n = s.iterations.filter(|n| *n > 0.0)?;
    let children: Vec<&LoopProfile> = u.loops.iter().filter(|c| c.parent == Some(s.id)).collect();
    let mut outer: Option<&OuterIteration> = None;
    let (mut longer, mut issued) = (0.0, 0.0);
    for c in &children {
        if u.loops.iter().any(|o| o.parent == Some(c.id)) {
            return None;
        }
        let cl = report?.compiled_loop(&u.file, c.line)?;
        let o = cl.outer.as_ref()?;
        if o.inner_loops as usize != children.len() || outer.is_some_and(|p| p != o) {
            return None;
        }
        outer = Some(o);
        // Each inner loop's compiled iterations an outer one, beyond the first the path
        // takes: its own carried chain each.
        let trips = c.iterations? / n / f64::from(cl.source_iterations.max(1));
        compiled_time(table, report, u, c.line)?;
        let chain = crate::incore::loop_time(cl, m)?.chain;
        longer += (trips - 1.0).max(0.0) * chain;
        issued += trips * f64::from(cl.issued);
    }
    let o = outer?;
    let path = crate::incore::path_latency(&o.span, m)? * 1e-9 + longer;
    let in_flight = (window / (f64::from(o.issued) + issued)).max(1.0);
    Some(n * path / in_flight)
}
