//! The memory term in the prediction: each analyzed loop nest's operation time (its
//! priced blocks) and memory time ([`nest_memory`]) combined by the overlap rule into
//! [`NestRow`]s, and the first touches of the program's pages.

use crate::block::only;
use crate::breakdown::loop_name;
use crate::cost::CostTable;
use crate::memory::{combine_issue, nest_memory, ArrayTraffic, LevelTraffic, Overlap};
use crate::price::PricedBlocks;
use augur_ir::AbOp;
use augur_machine_profile::MachineProfile;
use augur_program_profile::ProgramProfile;
use serde::Serialize;

/// A loop nest's operation time, memory time and their combination.
#[derive(Debug, Clone, Serialize)]
pub struct NestRow {
    /// The nest (its outermost loop).
    pub name: String,
    /// Its file.
    pub file: String,
    /// Line of the outermost DO.
    pub line: u32,
    /// Operation time (AbOps).
    pub operations_seconds: f64,
    /// Memory time (line transfers at each level's bandwidth).
    pub memory_seconds: f64,
    /// The two combined by the overlap rule.
    pub combined_seconds: f64,
    /// Memory time per level.
    pub levels: Vec<LevelTraffic>,
    /// `affine`, `array_syntax`, `sampled` or several joined by `+`.
    pub kind: String,
    /// Memory time per array (or sampled reference) and level.
    pub arrays: Vec<ArrayTraffic>,
    /// The nest's unit (index in the program profile's units).
    #[serde(skip)]
    pub unit_index: usize,
    /// The id of its outermost loop.
    #[serde(skip)]
    pub loop_id: u32,
}

/// The AbOps that issue loads and stores of memory: array references' address work
/// (group `arrays`) and stores.
fn memory_issue_abops() -> &'static [AbOp] {
    static OPS: std::sync::OnceLock<Vec<AbOp>> = std::sync::OnceLock::new();
    OPS.get_or_init(|| {
        augur_ir::abop::ALL
            .iter()
            .copied()
            .filter(|op| {
                let i = op.info();
                i.group == "arrays" || i.meaning.starts_with("Store,")
            })
            .collect()
    })
}

/// The memory rows of a program, largest memory time first, and the time they add to
/// the operation time (Σ over nests of `combine(ops, mem) - ops`). A row per loop that
/// roots a nest with a memory term; none when `overlap` is [`Overlap::None`] or a
/// profile lacks its side (the program's locality, the machine's `[memory]` section).
pub(crate) fn memory_term(
    program: &ProgramProfile,
    machine: &MachineProfile,
    table: &CostTable,
    priced: &PricedBlocks,
    overlap: Overlap,
) -> (Vec<NestRow>, f64) {
    let nest_mem = match (&program.locality, &machine.memory) {
        (Some(loc), Some(mem)) if overlap != Overlap::None => {
            let touched = program
                .run
                .first_touch_pages
                .map(|p| p * augur_program_profile::locality::PAGE_BYTES);
            nest_memory(loc, mem, touched)
        }
        _ => vec![],
    };
    let mut memory_rows = vec![];
    for (ui, u) in program.units.iter().enumerate() {
        for l in &u.loops {
            // Rows never overlap: a nest's root is tried only when the loop
            // around it made no nest, and sampled references join a row that
            // holds no other.
            let Some(nm) = nest_mem
                .iter()
                .find(|n| n.unit == u.name && n.loop_id == l.id)
            else {
                continue;
            };
            let sum = priced.loop_sum(table, ui, u, l);
            let loop_c = &sum.work;
            let ops = table.cost_of(loop_c).seconds;
            // What a floating-point recurrence leaves idle (integer ones may be
            // the addresses of the misses: a pointer chase waits for them).
            let idle = if sum.floating_chain {
                (ops - table.cost_of(&sum.throughput).seconds).max(0.0)
            } else {
                0.0
            };
            memory_rows.push(NestRow {
                name: loop_name(u, l),
                file: u.file.clone(),
                line: l.line,
                operations_seconds: ops,
                memory_seconds: nm.seconds,
                combined_seconds: combine_issue(
                    ops,
                    table.cost_of(&only(loop_c, memory_issue_abops())).seconds,
                    nm.seconds,
                    nm.sequential(),
                    idle,
                    overlap,
                ),
                levels: nm.levels.clone(),
                kind: nm.kind.clone(),
                arrays: nm.arrays.clone(),
                unit_index: ui,
                loop_id: l.id,
            });
        }
    }
    let memory_extra: f64 = memory_rows
        .iter()
        .map(|r| r.combined_seconds - r.operations_seconds)
        .sum();
    memory_rows.sort_by(|a, b| b.memory_seconds.total_cmp(&a.memory_seconds));
    (memory_rows, memory_extra)
}

/// The pages the program touches for the first time, in the machine's base pages, and
/// their time: every page the program maps costs the operating system a fault (zeroing
/// and mapping it), outside any loop nest's transfers. No time without the machine's
/// cost of a fault or when the memory term is off.
pub(crate) fn first_touches(
    program: &ProgramProfile,
    machine: &MachineProfile,
    overlap: Overlap,
) -> (f64, f64) {
    let fault_ns = machine
        .memory
        .as_ref()
        .and_then(|m| m.memory.page_fault_ns.map(|ns| (ns, m.os_page_bytes)));
    match (program.run.first_touch_pages, fault_ns) {
        (Some(pages), Some((ns, page_bytes))) if overlap != Overlap::None => {
            let pages = pages as f64 * augur_program_profile::locality::PAGE_BYTES as f64
                / page_bytes.max(1) as f64;
            (pages, pages * ns * 1e-9)
        }
        (Some(pages), _) => (pages as f64, 0.0),
        _ => (0.0, 0.0),
    }
}
