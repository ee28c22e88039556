//! Array assignments the compiler emitted as a call to the C library's block move
//! (`memcpy`, `memmove`, `memset`: gfortran's copy `u = w` and fill `a = 0` of a
//! contiguous array, at every optimization level). The statement's element block is
//! counted as an element loop, but what runs is the library's copy, which stores the
//! widest vector the machine has at the rate its stores issue (`-O0` included: the
//! library is not compiled with the program's flags). Its work per element becomes the
//! element's bytes over that vector, at the store's reciprocal throughput; the memory
//! term prices the lines it moves beyond the first level as for any nest. Machines
//! without in-core parameters, and profiles without the report's `library_moves`,
//! price the element loop as counted.

use crate::cost::{Coefficients, CostTable};
use crate::recurrence::scale_work;
use augur_ir::incore::{ClassWidth, InstrClass, Width};
use augur_ir::{AbOp, AbOpCounts, BlockKind};
use augur_program_profile::optreport::OptReport;
use augur_program_profile::UnitProfile;

/// Prices the element blocks of the report's `library_moves` lines as the library's
/// copy or fill.
pub(crate) fn price_library_moves(
    units: &[UnitProfile],
    table: &CostTable,
    report: Option<&OptReport>,
    blocks: &mut [Vec<Coefficients>],
) {
    let Some(report) = report.filter(|r| !r.library_moves.is_empty()) else {
        return;
    };
    let Some(per_byte) = seconds_per_byte(table) else {
        return;
    };
    for (u, unit_c) in units.iter().zip(blocks.iter_mut()) {
        let moved_lines: Vec<u32> = report
            .library_moves
            .iter()
            .filter(|s| s.file == u.file)
            .map(|s| s.line)
            .collect();
        for (b, c) in u.blocks.iter().zip(unit_c.iter_mut()) {
            let on_moved_line = moved_lines
                .iter()
                .any(|l| b.first_line <= *l && *l <= b.last_line);
            if b.block_kind != BlockKind::Elements || !on_moved_line || !only_moves(&b.counts) {
                continue;
            }
            let work = table.cost_of(&crate::block::without_branches(c)).seconds;
            let executions = b.executions.unwrap_or(0.0);
            let copy = stored_bytes(&b.counts) * per_byte * executions;
            if work > 0.0 && copy > 0.0 {
                scale_work(c, copy / work);
            }
        }
    }
}

/// What the compiler did to an array statement `l` of `u` that it emitted as a call to
/// the library's block move, for `--by loop`; `None` for any other loop.
pub(crate) fn note(
    table: &CostTable,
    report: &OptReport,
    u: &UnitProfile,
    l: &augur_program_profile::LoopProfile,
) -> Option<crate::predict::CompiledNote> {
    if l.loop_kind != augur_ir::LoopKind::ArrayElements {
        return None;
    }
    report
        .library_moves
        .iter()
        .find(|s| s.file == u.file && s.line == l.line)?;
    let bytes = u
        .blocks
        .iter()
        .find(|b| b.block_kind == BlockKind::Elements && b.in_loop == Some(l.id))
        .map(|b| stored_bytes(&b.counts))?;
    let per_byte = seconds_per_byte(table);
    let speed = per_byte.map_or(String::new(), |s| {
        format!(" ({:.1} GB/s from the first level)", 1e-9 / s)
    });
    Some(crate::predict::CompiledNote {
        file: u.file.clone(),
        line: l.line,
        seconds_per_iteration: per_byte.map(|s| s * bytes),
        text: format!(
            "a call to the C library's block move (memcpy, memmove or memset), {bytes:.0} bytes an element at the widest vector store{speed}"
        ),
    })
}

/// Seconds the library's block move takes a byte: one store of the widest vector the
/// machine's in-core parameters have, at the store's reciprocal throughput.
fn seconds_per_byte(table: &CostTable) -> Option<f64> {
    let incore = table.incore.as_ref()?;
    let store = incore
        .cost(ClassWidth::new(InstrClass::Store, Width::Scalar))?
        .throughput_ns;
    let widest = [Width::V512, Width::V256, Width::V128]
        .into_iter()
        .find(|w| {
            incore
                .class
                .contains_key(&ClassWidth::new(InstrClass::VecMove, *w).key())
        })
        .unwrap_or(Width::Scalar);
    (store > 0.0).then(|| store * 1e-9 / (f64::from(widest.bits()) / 8.0))
}

/// Whether a block's AbOps only move values (stores, transfers, their addresses and the
/// array statement's overhead): the element block of a copy or fill, not one of an
/// expression whose line also copies (a temporary).
fn only_moves(counts: &AbOpCounts) -> bool {
    counts.iter().all(|(op, _)| {
        op.is_store()
            || op.is_transfer()
            || op.mnemonic().starts_with("ARR")
            || matches!(op, AbOp::ALOV | AbOp::LOOV)
    })
}

/// Bytes one execution of a block writes, by its store and transfer AbOps' types.
fn stored_bytes(counts: &AbOpCounts) -> f64 {
    counts
        .iter()
        .filter(|(op, _)| op.is_store() || op.is_transfer())
        .map(|(op, n)| n * store_width(op))
        .sum()
}

/// Bytes of the value a store or transfer AbOp writes (`SRDL`: 8, `TCDG`: 16, `SISL`:
/// 4, ...).
fn store_width(op: AbOp) -> f64 {
    match op.mnemonic().get(1..3) {
        Some("CD") => 16.0,
        Some("RD" | "ID" | "CS") => 8.0,
        _ => 4.0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::block::BlockContext;
    use crate::test_support::{
        block_profile, incore_machine, machine, pricing, unit_with_one_loop,
    };
    use augur_machine_profile::MEASURED;
    use augur_program_profile::optreport::SourceLine;

    #[test]
    fn a_copy_the_library_makes_stores_the_widest_vector_at_the_stores_rate() {
        // `u = w` of reals: ten elements, each a transfer and two addresses as counted.
        let mut counts = AbOpCounts::new();
        counts.add(AbOp::TRDL, 1.0);
        counts.add(AbOp::ARR2, 2.0);
        let unit = unit_with_one_loop(
            "t",
            vec![block_profile(
                BlockKind::Elements,
                counts,
                AbOpCounts::new(),
            )],
        );
        let mut machine = machine(&[
            (AbOp::TRDL, MEASURED, Some(1.0), Some(0.0), 10),
            (AbOp::ARR2, MEASURED, Some(0.5), Some(0.0), 10),
        ]);
        machine.incore = Some(incore_machine(&[
            ("store", 0.0, 0.5),
            ("vec_move.v256", 1.0, 0.25),
        ]));
        let table = CostTable::from_profile(&machine);
        let report = OptReport {
            library_moves: vec![SourceLine {
                file: "t.f90".into(),
                line: 1,
            }],
            ..OptReport::default()
        };
        let priced = |report: Option<&OptReport>| {
            let mut blocks = vec![vec![
                pricing(&table).total(&unit.blocks[0], BlockContext::default())
            ]];
            price_library_moves(std::slice::from_ref(&unit), &table, report, &mut blocks);
            table.cost_of(&blocks[0][0]).seconds
        };
        let counted = priced(None);
        // Ten elements of 8 bytes, a quarter of a 32-byte store each at 0.5 ns.
        let moved = priced(Some(&report));
        assert!((moved - 10.0 * 0.125e-9).abs() < 1e-15, "{counted} {moved}");
        assert!(counted > moved);
    }

    #[test]
    fn only_a_copy_or_fill_is_a_move() {
        let mut copy = AbOpCounts::new();
        copy.add(AbOp::TRDL, 1.0);
        copy.add(AbOp::ARR2, 2.0);
        copy.add(AbOp::ALOV, 1.0);
        assert!(only_moves(&copy));
        let mut sum = copy.clone();
        sum.add(AbOp::ARDL, 1.0);
        assert!(!only_moves(&sum));
    }

    #[test]
    fn store_widths_follow_the_type() {
        assert_eq!(store_width(AbOp::SRDL), 8.0);
        assert_eq!(store_width(AbOp::SCDG), 16.0);
        assert_eq!(store_width(AbOp::SCSL), 8.0);
        assert_eq!(store_width(AbOp::SISL), 4.0);
        assert_eq!(store_width(AbOp::SIDG), 8.0);
        assert_eq!(store_width(AbOp::SLGL), 4.0);
        assert_eq!(store_width(AbOp::TRDL), 8.0);
        assert_eq!(store_width(AbOp::TCDG), 16.0);
        assert!(AbOp::TRDL.is_transfer() && !AbOp::TCHR.is_transfer());
        assert!(!AbOp::TAND.is_transfer());
    }
}
