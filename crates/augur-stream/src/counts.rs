//! AbOp counts per element iteration of each kernel, by augur's own front end and
//! counting rules, so the fitted parameters are in the same units as program counts.

use crate::gen::Kernel;
use augur_fortran::FrontEndOptions;
use augur_ir::{AbOpCounts, Program};
use std::ops::Range;
use std::path::Path;

/// Counts per element iteration of every kernel in `kernels`, whose subroutines are in the
/// file `path` at `lines` (1-based, end exclusive, one range per kernel).
///
/// A kernel's counts are the static counts of the blocks of its innermost loop (the
/// loop-header block, which holds the per-iteration overhead, and the body's blocks); for
/// IF kernels, blocks of the THEN branch weigh the pattern's THEN fraction and those of the
/// ELSE branch the rest. Whole-array kernels count their statements' per-element blocks. Kernels the front end does not find, or with no counts, get an
/// error message instead.
pub fn kernel_counts(
    path: &Path,
    kernels: &[Kernel],
    lines: &[Range<u32>],
) -> Vec<Result<AbOpCounts, String>> {
    let program = augur_fortran::analyze(&[path.to_path_buf()], &FrontEndOptions::default());
    kernels
        .iter()
        .zip(lines)
        .map(|(k, r)| one(&program, k, r))
        .collect()
}

fn one(program: &Program, k: &Kernel, lines: &Range<u32>) -> Result<AbOpCounts, String> {
    let name = k.name();
    let unit = program
        .units
        .iter()
        .find(|u| u.name == name)
        .ok_or_else(|| format!("{name}: not found by the front end"))?;
    if let Some(r) = &k.array_lines {
        // Whole-array statements: their blocks count N elements per execution.
        let abs = (r.start as u32 + lines.start)..(r.end as u32 + lines.start);
        let mut counts = AbOpCounts::new();
        for b in &unit.blocks {
            if !abs.contains(&b.span.start.line) {
                continue;
            }
            // The per-element blocks only: the statements' set-up (`ALIN`, once per N
            // elements) cannot be told apart from the per-repetition harness call in the
            // same block, and a least-squares column that small would soak up noise.
            if b.kind == augur_ir::BlockKind::Elements {
                counts.add_scaled(&b.counts, 1.0);
            }
        }
        if counts.get(augur_ir::AbOp::ALOV) <= 0.0 {
            return Err(format!(
                "{name}: the front end counts no whole-array elements"
            ));
        }
        return Ok(counts);
    }
    let inner = unit
        .loops
        .iter()
        .filter(|l| l.var.as_deref() == Some("i"))
        .max_by_key(|l| l.depth)
        .ok_or_else(|| format!("{name}: no `do i` loop found by the front end"))?;
    // Absolute (1-based) lines of the branches.
    let abs = |r: &Range<usize>| (r.start as u32 + lines.start)..(r.end as u32 + lines.start);
    let then_lines = abs(&k.then_lines);
    let else_lines = abs(&k.else_lines);
    let f = k.then_fraction.unwrap_or(1.0);
    let mut counts = AbOpCounts::new();
    for b in &unit.blocks {
        let inside = b.in_loop == Some(inner.id) || b.id == inner.header_block;
        if !inside || b.id == inner.entry_block && b.id != inner.header_block {
            continue;
        }
        let line = b.span.start.line;
        let w = if k.then_fraction.is_some() && then_lines.contains(&line) {
            f
        } else if k.then_fraction.is_some() && else_lines.contains(&line) {
            1.0 - f
        } else {
            1.0
        };
        counts.add_scaled(&b.counts, w);
    }
    if counts.is_empty() {
        return Err(format!("{name}: the front end counts no operations"));
    }
    Ok(counts)
}
