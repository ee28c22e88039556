//! The compiled loops of the optimization report's assembly mapped to the program's
//! source loops: each innermost source loop keeps the compiled loop that runs most of
//! its iterations (the widest, when the compiler made several versions); compiled loops
//! that match no innermost source loop are listed with the reason.

use augur_program_profile::compiled::{CompiledLoop, UnmappedLoop};
use augur_program_profile::optreport::{same_file, OptReport};
use augur_program_profile::UnitProfile;
use std::collections::BTreeMap;

/// Replaces `report.compiled_loops` (as the assembly gave them, each at the line of its
/// backward jump) by the loops mapped to an innermost source loop of `units`, one per
/// source loop, and records the others in `report.unmapped_loops`.
///
/// `step(unit, loop)` is the source loop's step when it is a constant (`None` when it is
/// not): a compiled iteration of `do i = 1, n, 2` that advances its pointers by two
/// elements covers one source iteration.
pub fn map_to_source(
    report: &mut OptReport,
    units: &[UnitProfile],
    step: impl Fn(&str, u32) -> Option<u32>,
) {
    let raw = std::mem::take(&mut report.compiled_loops);
    let mut groups: BTreeMap<(String, u32), Vec<CompiledLoop>> = BTreeMap::new();
    for cl in raw {
        let found = units
            .iter()
            .filter(|u| same_file(&u.file, &cl.file))
            .find_map(|u| source_loop(u, cl.line));
        let reason = match found {
            Some((line, true)) => {
                let mut cl = cl;
                cl.line = line;
                let unit = units
                    .iter()
                    .find(|u| same_file(&u.file, &cl.file) && source_loop(u, line).is_some());
                let id = unit.and_then(|u| u.loops.iter().find(|l| l.line == line).map(|l| (u, l.id)));
                let k = id.and_then(|(u, l)| step(&u.name, l));
                by_source_step(&mut cl, k);
                groups.entry((cl.file.clone(), line)).or_default().push(cl);
                continue;
            }
            Some((_, false)) => "the source loop here holds loops the compiled code no longer has (unrolled completely or replaced by a library call)",
            None => "no source loop starts on this line (a loop the compiler made, or a loop built with GOTO)",
        };
        report.unmapped_loops.push(UnmappedLoop {
            file: cl.file,
            line: cl.line,
            reason: reason.to_string(),
        });
    }
    for (_, mut versions) in groups {
        // The widest version runs the iterations; the first of equals is the main body
        // (a vectorized loop's scalar remainder comes after it).
        let best = (0..versions.len())
            .max_by_key(|&i| (versions[i].source_iterations, std::cmp::Reverse(i)))
            .unwrap_or(0);
        let n = versions.len() as u32;
        let mut chosen = versions.swap_remove(best);
        chosen.versions = n - 1;
        report.compiled_loops.push(chosen);
    }
}

/// The source loop of `u` a compiled loop whose backward jump is on `line` belongs to:
/// the loop whose DO statement is on that line, else the deepest loop whose lines hold
/// it (gfortran puts the jump of a loop around a continued statement on its last
/// line). Its line, and whether it is innermost.
fn source_loop(u: &UnitProfile, line: u32) -> Option<(u32, bool)> {
    let innermost = |id: u32| !u.loops.iter().any(|o| o.parent == Some(id));
    if let Some(l) = u.loops.iter().find(|l| l.line == line) {
        return Some((l.line, innermost(l.id)));
    }
    let last_line = |id: u32| {
        u.blocks
            .iter()
            .filter(|b| crate::compiled::within(u, b.in_loop, id))
            .map(|b| b.last_line)
            .max()
            .unwrap_or(0)
    };
    u.loops
        .iter()
        .filter(|l| l.line <= line && line <= last_line(l.id))
        .max_by_key(|l| l.depth)
        .map(|l| (l.line, innermost(l.id)))
}

/// Whether a block whose innermost loop is `inner` lies inside loop `target` of `u`.
fn within(u: &UnitProfile, inner: Option<u32>, target: u32) -> bool {
    let mut cur = inner;
    for _ in 0..=u.loops.len() {
        match cur {
            Some(l) if l == target => return true,
            Some(l) => cur = u.loops.iter().find(|x| x.id == l).and_then(|x| x.parent),
            None => return false,
        }
    }
    false
}

/// Divides a compiled loop's source iterations by its source loop's constant step `k`
/// (the pointers advance `k` elements a source iteration); an unknown step leaves
/// only the vector lanes to go by.
fn by_source_step(cl: &mut CompiledLoop, k: Option<u32>) {
    if !cl.source_iterations_from.contains("induction") {
        return;
    }
    match k {
        Some(1) => {}
        Some(k) if k > 1 && cl.source_iterations % k == 0 => {
            cl.source_iterations /= k;
            cl.source_iterations_from
                .push_str(&format!(", a source iteration steps {k} elements"));
        }
        _ => {
            cl.source_iterations = cl.lanes.max(1);
            cl.source_iterations_from = format!(
                "{}: the vector lanes (the source loop's step is not a constant 1)",
                cl.source_iterations
            );
        }
    }
}
