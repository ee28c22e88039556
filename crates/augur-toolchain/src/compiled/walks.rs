//! Elements of memory an inner loop walks, in the schedule of the loop around it
//! (`augur_program_profile::compiled::WalkedElement`): an address an inner loop's
//! induction registers move by a constant each trip, or unoptimized code's counter kept
//! in a stack slot (reloaded for each subscript), from where the outer iteration starts
//! it. `f(k)` summed by `do k = 1, 3` inside a loop over `j` (an N-body force
//! accumulated in a dummy argument) is stored by a trip and loaded by the same trip of
//! the next `j`: a chain through store forwarding that runs through every iteration of
//! the loop around. So is a small array one inner loop stores and the statements after
//! it load by fixed addresses (`a(1)`, `a(2)`, `a(3)` in a stack frame).

use super::places::Places;
use super::{flow, is_compare, is_jump, is_memory, registers, registers_written, Instr, Placed};
use std::collections::{HashMap, HashSet};

/// An element: what its address is relative to, the bytes from there on trip 0, and the
/// bytes it moves each trip (0 for the outer loop's own instructions).
pub(super) type Element = (String, i64, i64);

/// Per register an inner loop's body changes only by adding constants, and per counter
/// it keeps in a slot (by its symbol, `I[slot]`: unoptimized code), what one trip adds,
/// by inner loop line.
pub(super) type Steps = HashMap<u32, HashMap<String, i64>>;

/// Per instruction of `body` (an outer iteration, inner loops' bodies once; `before`, the
/// function's instructions ahead of it), its memory operands that name elements of an
/// array an inner loop walks and some instruction of the iteration stores to; every other
/// operand keeps the names it had.
pub(super) fn walked_elements(
    body: &[Placed],
    steps: &Steps,
    before: &[Instr],
) -> Vec<HashMap<String, Element>> {
    let instrs: Vec<Instr> = body.iter().map(|p| p.instr.clone()).collect();
    let mut places = Places::entered_from(&instrs, &registers_written(&instrs), before);
    let mut found: Vec<HashMap<String, Element>> = Vec::with_capacity(body.len());
    let mut walked = HashSet::new();
    let mut stored = HashSet::new();
    let mut previous = 0;
    for p in body {
        leave_inner(&mut places, previous, p.inner, steps);
        if p.inner != 0 && p.inner != previous {
            if let Some(s) = steps.get(&p.inner) {
                places.enter_inner(s.iter(), &trip(p.inner));
            }
        }
        previous = p.inner;
        let i = p.instr;
        let mut named = HashMap::new();
        for (k, op) in i.operands.iter().enumerate() {
            if !is_memory(op) || i.mnemonic.starts_with("lea") {
                continue;
            }
            let Some((base, offset, by_slots)) = places.trip_address(op, &trip(p.inner)) else {
                continue;
            };
            let stride = by_slots + steps.get(&p.inner).map_or(0, |s| stride(op, s));
            if stride != 0 {
                walked.insert(base.clone());
            }
            let is_store = k + 1 == i.operands.len() && !is_compare(&i.mnemonic);
            if is_store && !is_jump(&i.mnemonic) {
                stored.insert(base.clone());
            }
            named.insert(op.clone(), (base, offset, stride));
        }
        found.push(named);
        let writes = flow(i, &Places::default()).writes;
        places.after(i, registers(&writes));
    }
    for named in &mut found {
        named.retain(|_, e| walked.contains(&e.0) && stored.contains(&e.0));
    }
    found
}

/// Forgets, on leaving the inner loop of line `previous` for `next`, the registers it
/// steps: the outer iteration's follow took its body once.
pub(super) fn leave_inner(places: &mut Places, previous: u32, next: u32, steps: &Steps) {
    if previous != 0 && previous != next {
        if let Some(s) = steps.get(&previous) {
            places.forget(s.keys());
        }
    }
}

/// The symbol of a trip of the inner loop of line `line`, in the addresses the outer
/// iteration's follow gives its body (a counter unoptimized code keeps in a slot holds
/// its value on entry plus its step times this).
fn trip(line: u32) -> String {
    format!("T{line}")
}

/// The name of an element's value in the schedule.
pub(super) fn name((base, offset, stride): &Element) -> String {
    format!("element {base}{offset:+}~{stride}")
}

/// The bytes memory operand `op` (`disp(base,index,scale)`) moves each trip of an inner
/// loop that steps its registers by `steps`.
fn stride(op: &str, steps: &HashMap<String, i64>) -> i64 {
    let Some((_, inside)) = op.split_once('(') else {
        return 0;
    };
    let parts: Vec<&str> = inside
        .trim_end_matches(')')
        .split(',')
        .map(str::trim)
        .collect();
    let step = |r: &str| super::register(r).and_then(|r| steps.get(&r).copied());
    let mut bytes = parts.first().and_then(|b| step(b)).unwrap_or(0);
    if let Some(index) = parts.get(1).and_then(|x| step(x)) {
        let scale: i64 = parts.get(2).and_then(|s| s.parse().ok()).unwrap_or(1);
        bytes += index * scale;
    }
    bytes
}
