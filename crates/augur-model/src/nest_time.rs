//! The memory term in the prediction: each analyzed loop nest's operation time (its
//! priced blocks) and memory time ([`nest_memory`]) combined by the overlap rule into
//! [`NestRow`]s, and the first touches of the program's pages.

use crate::block::{only, without_branches};
use crate::breakdown::loop_name;
use crate::cost::CostTable;
use crate::memory::{
    combine_issue, count_misses, nest_memory_counted, ArrayTraffic, CountedMisses, IssuingLoop,
    LevelTraffic, OuterVector, Overlap, SequentialTime, TestedLoad,
};
use crate::price::inside_loop;
use crate::price::PricedBlocks;
use augur_ir::AbOp;
use augur_machine_profile::MachineProfile;
use augur_program_profile::compiled::InstrClass;
use augur_program_profile::optreport::same_file;
use augur_program_profile::ProgramProfile;
use serde::Serialize;

/// A loop nest's operation time, memory time and their combination.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
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
    /// What the overlap rule combined, to combine again with the transfers stretched
    /// (threads sharing a level's bandwidth: [`CombineParts::stretched`]).
    #[serde(skip)]
    pub(crate) parts: CombineParts,
}

/// The inputs of a nest's overlap rule ([`combine_issue`]).
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct CombineParts {
    /// For a nest that runs loops one after another inside it (a time step's sweeps),
    /// its time with the rule held in each of them, not over the whole
    /// ([`phased_combined`]); a stretch of the transfers then adds
    /// ([`CombineParts::stretched`]). `None` for a nest of one loop in another.
    phased: Option<f64>,
    ops: f64,
    issue: f64,
    memory: f64,
    sequential: SequentialTime,
    idle: f64,
    overlap: Overlap,
}

impl CombineParts {
    /// The nest's time when every transfer takes `stretch` times as long (the level that
    /// serves them shared by threads), the operations unchanged: a nest its operations
    /// bound absorbs the stretch until its transfers outgrow them.
    pub(crate) fn stretched(&self, stretch: f64) -> f64 {
        if let Some(alone) = self.phased {
            return alone + self.memory * (stretch - 1.0);
        }
        self.combined(stretch)
    }

    fn combined(&self, stretch: f64) -> f64 {
        combine_issue(
            self.ops,
            self.issue,
            self.memory * stretch,
            self.sequential.scaled(stretch),
            self.idle,
            self.overlap,
        )
    }
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

/// The time loop `root` of `u` (index `ui`) spends issuing its loads and stores: in an
/// innermost loop priced from its compiled code, the share of its time its load and
/// store instructions hold the address pipes (`[incore] memory_op_ns` each: what the
/// ECM model calls the time that does not overlap the transfers into the first level);
/// elsewhere its array references' address work and stores at their AbOp costs. An
/// unoptimized loop's address work reloads its indices from the stack and multiplies
/// them, in integer units that run while the lines move (heated_plate's -O0 sweep: 32
/// instructions an element, 6 of them loads and stores).
fn memory_issue(
    table: &CostTable,
    report: Option<&augur_program_profile::optreport::OptReport>,
    priced: &PricedBlocks,
    ui: usize,
    u: &augur_program_profile::UnitProfile,
    root: u32,
) -> f64 {
    let mut shares: std::collections::HashMap<u32, Option<f64>> = Default::default();
    let mut seconds = 0.0;
    for (bi, b) in u.blocks.iter().enumerate() {
        if !inside_loop(u, b.in_loop, root) {
            continue;
        }
        let c = &priced.blocks[ui][bi];
        let share = b.in_loop.and_then(|id| {
            *shares
                .entry(id)
                .or_insert_with(|| compiled_memory_share(table, report, u, id))
        });
        seconds += match share {
            Some(f) => f * table.cost_of(c).seconds,
            None => table.cost_of(&only(c, memory_issue_abops())).seconds,
        };
    }
    seconds
}

/// The share of an iteration of innermost loop `id` of `u`, priced from its compiled
/// code, that its load and store instructions hold the address pipes; `None` when the
/// loop is not priced from its compiled code or the machine lacks the pipes' time.
fn compiled_memory_share(
    table: &CostTable,
    report: Option<&augur_program_profile::optreport::OptReport>,
    u: &augur_program_profile::UnitProfile,
    id: u32,
) -> Option<f64> {
    let per_op = table.incore.as_ref()?.memory_op_ns?;
    let l = u.loops.iter().find(|l| l.id == id)?;
    let t = crate::recurrence::compiled_time(table, report, u, l.line)?;
    let cl = report?.compiled_loop(&u.file, l.line)?;
    let memory_ops: f64 = crate::incore::instructions_per_iteration(cl)
        .1
        .iter()
        .filter(|(c, _)| matches!(c.class, InstrClass::Load | InstrClass::Store))
        .map(|(_, n)| n)
        .sum();
    let ns = t.per_compiled_iteration * 1e9;
    (ns > 0.0).then(|| (memory_ops * per_op / ns).min(1.0))
}

/// The nests whose compiled code vectorized a loop around their innermost one, by the
/// program's optimization report when it is the machine's (gfortran: "loop vectorized
/// using 16 byte vectors" on a DO holding another loop).
fn outer_vectors(program: &ProgramProfile, machine: &MachineProfile) -> Vec<OuterVector> {
    let Some(report) = crate::block::report_for(program, machine) else {
        return vec![];
    };
    let mut out = vec![];
    for u in &program.units {
        for l in &u.loops {
            let bytes = u
                .loops
                .iter()
                .filter(|o| inside_loop(u, Some(o.id), l.id))
                .filter(|o| u.loops.iter().any(|c| c.parent == Some(o.id)))
                .find_map(|o| {
                    report
                        .vectorized
                        .iter()
                        .find(|v| v.line == o.line && v.file == u.file)
                        .and_then(|v| vector_bytes(&v.how))
                });
            if let Some(vector_bytes) = bytes {
                out.push(OuterVector {
                    unit: u.name.clone(),
                    loop_id: l.id,
                    vector_bytes,
                });
            }
        }
    }
    out
}

/// The vector width a report's "using 16 byte vectors" names, bytes.
fn vector_bytes(how: &str) -> Option<u64> {
    let words: Vec<&str> = how.split_whitespace().collect();
    words
        .windows(2)
        .find(|w| w[1] == "byte")
        .and_then(|w| w[0].parse().ok())
}

/// The memory rows of a program, largest memory time first, and the time they add to
/// the operation time (Σ over nests of `combine(ops, mem) - ops`). A row per loop that
/// roots a nest with a memory term; none when `overlap` is [`Overlap::None`] or a
/// profile lacks its side (the program's locality, the machine's `[memory]` section).
/// The mispredictions of the program's branches by line ([`TestedLoad`]): empty without
/// a branch run.
fn tested_loads(program: &ProgramProfile) -> Vec<TestedLoad> {
    program.branches.as_ref().map_or(vec![], |b| {
        b.conditions
            .iter()
            // (A library routine's branch tests its argument, not a load of the line.)
            .filter(|c| {
                !matches!(
                    c.kind,
                    augur_program_profile::BranchKind::Rounding
                        | augur_program_profile::BranchKind::RoundingHalf
                        | augur_program_profile::BranchKind::Remainder
                )
            })
            .map(|c| TestedLoad {
                file: c.file.clone(),
                line: c.line,
                mispredictions: c.mispredictions as f64,
            })
            .collect()
    })
}

/// For each sampled reference of `program`, the compiled loop whose body holds its line
/// (the innermost: the fewest lines) with its compiled iterations and the iterations the
/// machine's window keeps in flight; `None` without a compiled loop, the loop's count or
/// the machine's window.
fn issuing_loops(
    program: &ProgramProfile,
    machine: &MachineProfile,
    table: &CostTable,
    priced: &PricedBlocks,
) -> Vec<Option<IssuingLoop>> {
    let Some(loc) = &program.locality else {
        return vec![];
    };
    // Unoptimized code keeps its variables in memory: its iterations wait on the stack's
    // store-to-load chains long enough to cover the misses (-O0 collatz runs as fast as
    // -O2, misses included), so the window is left to optimized code.
    let (Some(report), Some(m), true) = (
        crate::block::report_for(program, machine),
        &table.incore,
        table.register_scalars,
    ) else {
        return vec![None; loc.sampled_refs.len()];
    };
    let issuing = |r: &augur_program_profile::locality::SampledRef| {
        let (group, cl) = report
            .compiled_loops
            .iter()
            .enumerate()
            .filter(|(_, c)| c.lines.contains(&r.line) && same_file(&c.file, &r.file))
            .min_by_key(|(_, c)| c.lines.len())?;
        let ui = program.units.iter().position(|u| u.name == r.unit)?;
        let unit = &program.units[ui];
        let source = unit.loops.iter().find(|l| l.line == cl.line)?;
        let iterations = source.iterations? / f64::from(cl.source_iterations.max(1));
        let in_flight = crate::incore::compiled_iterations_in_flight(cl, m)?;
        let work = priced.loop_sum(table, ui, unit, source).work;
        let seconds = table.cost_of(&without_branches(&work)).seconds;
        Some(IssuingLoop {
            group,
            iterations,
            in_flight,
            fill_seconds: in_flight * seconds / iterations.max(1.0),
        })
    };
    loc.sampled_refs.iter().map(issuing).collect()
}

/// The misses of `program`'s loop nests on `machine`'s caches and TLB, the bulk of
/// [`memory_term`]'s work, which needs neither the blocks' prices nor the combining
/// (a prediction counts them while it prices its blocks); `None` when there is no memory
/// term to compute.
pub(crate) fn counted_misses(
    program: &ProgramProfile,
    machine: &MachineProfile,
    overlap: Overlap,
) -> Option<CountedMisses> {
    match (&program.locality, &machine.memory) {
        (Some(loc), Some(mem)) if overlap != Overlap::None => {
            let touched = program
                .run
                .first_touch_pages
                .map(|p| p * augur_program_profile::locality::PAGE_BYTES);
            Some(count_misses(loc, mem, touched))
        }
        _ => None,
    }
}

/// The memory term of each analyzed nest of `program` on `machine` (its row, the operation
/// and memory times combined by `overlap`) and the seconds it adds to the operations', from
/// the misses `counted` ahead ([`counted_misses`]; counted here when `None`).
pub(crate) fn memory_term(
    program: &ProgramProfile,
    machine: &MachineProfile,
    table: &CostTable,
    priced: &PricedBlocks,
    overlap: Overlap,
    counted: Option<&CountedMisses>,
) -> (Vec<NestRow>, f64) {
    let own;
    let counted = match counted {
        Some(c) => Some(c),
        None => {
            own = counted_misses(program, machine, overlap);
            own.as_ref()
        }
    };
    let nest_mem = match (&program.locality, &machine.memory, counted) {
        (Some(loc), Some(mem), Some(counted)) => nest_memory_counted(
            counted,
            loc,
            mem,
            &outer_vectors(program, machine),
            &tested_loads(program),
            &issuing_loops(program, machine, table, priced),
        ),
        _ => vec![],
    };
    let report = crate::block::report_for(program, machine);
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
            }
            .max(sum.compiled_idle);
            let mut parts = CombineParts {
                phased: None,
                ops,
                issue: memory_issue(table, report, priced, ui, u, l.id),
                memory: nm.seconds,
                sequential: nm.sequential(),
                idle,
                overlap,
            };
            let counted = program.locality.as_ref().and_then(|loc| {
                loc.nests
                    .iter()
                    .find(|n| n.unit == u.name && n.loop_id == l.id)
            });
            parts.phased = phase_split(table, report, priced, ui, u, l.id).map(|mut phases| {
                if let Some(shares) = counted.and_then(|c| phase_memory_shares(c, nm, &phases)) {
                    for (p, s) in phases.iter_mut().zip(shares) {
                        p.share = Some(s);
                    }
                }
                phased_combined(&parts, &phases)
            });
            memory_rows.push(NestRow {
                name: loop_name(u, l),
                file: u.file.clone(),
                line: l.line,
                operations_seconds: ops,
                memory_seconds: nm.seconds,
                combined_seconds: parts.stretched(1.0),
                parts,
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

/// One phase of a nest (a loop it runs after another): its operation time, its loads'
/// and stores' issue time and its array references over the run.
struct Phase {
    ops: f64,
    issue: f64,
    references: f64,
    /// Line of its DO.
    line: u32,
    /// Its share of the nest's transfers (and of their sequential streams) where the
    /// locality analysis counted each array's accesses in each phase
    /// ([`phase_memory_shares`]); its share of the references otherwise.
    share: Option<f64>,
}

/// The phases of nest `root`: the loops that the outermost loop inside it holding two or
/// more loops directly runs one after another, each with its operations and its array
/// references. `None` for a nest that runs no loops in sequence.
fn phase_split(
    table: &CostTable,
    report: Option<&augur_program_profile::optreport::OptReport>,
    priced: &PricedBlocks,
    ui: usize,
    u: &augur_program_profile::UnitProfile,
    root: u32,
) -> Option<Vec<Phase>> {
    let children = |p: u32| -> Vec<&augur_program_profile::LoopProfile> {
        u.loops.iter().filter(|c| c.parent == Some(p)).collect()
    };
    let mut holder = root;
    loop {
        let c = children(holder);
        match c.len() {
            0 => return None,
            1 => holder = c[0].id,
            _ => break,
        }
    }
    let references = |inside: &dyn Fn(Option<u32>) -> bool| -> f64 {
        u.blocks
            .iter()
            .filter(|b| inside(b.in_loop))
            .map(|b| {
                let n = b.executions.unwrap_or(0.0);
                memory_issue_abops()
                    .iter()
                    .map(|&op| b.counts.get(op))
                    .sum::<f64>()
                    * n
            })
            .sum()
    };
    let mut phases = vec![];
    for c in children(holder) {
        let ops = table
            .cost_of(&priced.loop_sum(table, ui, u, c).work)
            .seconds;
        phases.push(Phase {
            ops,
            issue: memory_issue(table, report, priced, ui, u, c.id),
            references: references(&|l| inside_loop(u, l, c.id)),
            line: c.line,
            share: None,
        });
    }
    Some(phases)
}

/// Each phase's share of nest `nm`'s transfers, from the accesses the locality analysis
/// counted per array and phase (`counted`, its phases the same loops as `phases`): an
/// array's transfers at a level go to the phases in the proportion of the lines its
/// references walk there (a strided access a line, a unit-stride one a fraction), those
/// of its strided sweeps (the level [`SWEPT`](crate::memory::SWEPT)) in the proportion of
/// its strided accesses (a transpose beside a recurrence over the same arrays: the
/// transpose's phase pays the walk). `None` where the phases differ or nothing is counted.
fn phase_memory_shares(
    counted: &augur_program_profile::locality::NestLocality,
    nm: &crate::memory::NestMemory,
    phases: &[Phase],
) -> Option<Vec<f64>> {
    let cp = &counted.phases;
    if cp.len() != phases.len() || cp.iter().zip(phases).any(|(c, p)| c.line != p.line) {
        return None;
    }
    use augur_program_profile::locality::PhaseAccesses;
    let share = |of: &dyn Fn(&PhaseAccesses) -> u64| {
        let all: u64 = cp.iter().map(of).sum();
        (all > 0).then(|| {
            cp.iter()
                .map(|c| of(c) as f64 / all as f64)
                .collect::<Vec<_>>()
        })
    };
    let mut memory = vec![0.0; cp.len()];
    for at in &nm.arrays {
        let a = counted.arrays.iter().position(|x| x.name == at.name)?;
        let by_lines = share(&|c| c.lines.get(a).copied().unwrap_or(0))
            .or_else(|| share(&|c| c.accesses.get(a).copied().unwrap_or(0)))?;
        let by_strides = share(&|c| c.strided.get(a).copied().unwrap_or(0));
        for level in &at.levels {
            let split = match &by_strides {
                Some(s) if level.level == crate::memory::SWEPT => s,
                _ => &by_lines,
            };
            for (m, f) in memory.iter_mut().zip(split) {
                *m += level.seconds * f;
            }
        }
    }
    let total = memory.iter().sum::<f64>();
    (total > 0.0).then(|| memory.iter().map(|m| m / total).collect())
}

/// A phased nest's time. The core overlaps transfers with operations within a loop, not
/// across the loops a time step runs one after another: a sweep the memory bounds does
/// not hide behind the next one's arithmetic. Each phase's operations are combined with
/// its share of the nest's transfers (its share of the array references), the nest's
/// operations outside its phases on top (a Zen 4: a time step of array-syntax sweeps over
/// 2 MiB arrays, arrays.f90, -31.6% combined over the whole nest, -27.3% phase by phase).
fn phased_combined(parts: &CombineParts, phases: &[Phase]) -> f64 {
    let refs: f64 = phases.iter().map(|p| p.references).sum();
    let ops: f64 = phases.iter().map(|p| p.ops).sum();
    if refs <= 0.0 || parts.ops <= 0.0 {
        return parts.combined(1.0);
    }
    let rest = (parts.ops - ops).max(0.0);
    phases
        .iter()
        .map(|p| {
            let share = p.share.unwrap_or(p.references / refs);
            combine_issue(
                p.ops,
                p.issue,
                parts.memory * share,
                parts.sequential.scaled(share),
                parts.idle * p.ops / parts.ops,
                parts.overlap,
            )
        })
        .sum::<f64>()
        + rest
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

#[cfg(test)]
mod tests {
    use super::*;

    fn parts(phased: bool, ops: f64, memory: f64) -> CombineParts {
        CombineParts {
            phased: phased.then_some(ops.max(memory)),
            ops,
            issue: 0.0,
            memory,
            sequential: SequentialTime {
                total: memory,
                by_supplier: memory,
                first_level_others: 0.0,
                fill_floor: 0.0,
            },
            idle: 0.0,
            overlap: Overlap::Streams,
        }
    }

    #[test]
    fn a_nest_its_operations_bound_absorbs_a_stretch_of_its_transfers() {
        // Operations 3, transfers 2: shared by threads, the transfers take 2.8, then 4.
        let one_loop = parts(false, 3.0, 2.0);
        assert_eq!(one_loop.stretched(1.0), 3.0);
        assert_eq!(one_loop.stretched(1.4), 3.0);
        assert_eq!(one_loop.stretched(2.0), 4.0);
        // Loops in sequence: the transfers of the memory-bound ones stretch whatever
        // the others compute.
        let phased = parts(true, 3.0, 2.0);
        assert!((phased.stretched(1.4) - 3.8).abs() < 1e-12);
    }

    #[test]
    fn the_loops_of_a_time_step_overlap_their_transfers_each_with_its_own_operations() {
        // Operations 3 + 1, transfers 4 split evenly by the references: over the whole
        // nest they hide each other (4); loop by loop the second waits on its transfers
        // (3 + 2).
        let whole = parts(false, 4.0, 4.0);
        assert_eq!(whole.stretched(1.0), 4.0);
        let phase = |ops: f64| Phase {
            ops,
            issue: 0.0,
            references: 10.0,
            line: 0,
            share: None,
        };
        assert_eq!(phased_combined(&whole, &[phase(3.0), phase(1.0)]), 5.0);
        // Operations outside the phases come on top.
        let more = parts(false, 4.5, 4.0);
        assert_eq!(phased_combined(&more, &[phase(3.0), phase(1.0)]), 5.5);
    }

    #[test]
    fn a_transpose_beside_a_recurrence_pays_its_strided_walk_in_its_own_phase() {
        use crate::memory::{ArrayTraffic, LevelTraffic, NestMemory, SWEPT};
        use augur_program_profile::locality::{NestLocality, PhaseAccesses};
        // A time step over `a`: a recurrence (8 reads a line walked, 6 units of operations)
        // then a transpose reading `a` a line an access (1 unit). Of a's transfers, 3
        // at the levels and 4 in the strided walk.
        let phase = |line: u32, ops: f64, accesses: u64, strided: u64, lines: u64| {
            let counted = PhaseAccesses {
                line,
                accesses: vec![accesses],
                strided: vec![strided],
                lines: vec![lines],
            };
            let p = Phase {
                ops,
                issue: 0.0,
                references: accesses as f64,
                line,
                share: None,
            };
            (counted, p)
        };
        let (c1, p1) = phase(5, 6.0, 8000, 0, 1000);
        let (c2, p2) = phase(9, 1.0, 1000, 1000, 1000);
        let counted: NestLocality = serde_json::from_value(serde_json::json!({
            "unit": "t", "loop_id": 0, "file": "t.f90", "line": 4, "executions": 1.0,
            "approximate": false, "accesses": 9000, "footprint_lines": 100,
            "streamed_accesses": 9000, "sample_rate": 1.0,
            "arrays": [{"name": "a", "elem_bytes": 8, "accesses": 9000, "footprint_lines": 100,
                        "histogram": {"cold": 0, "bins": []}, "entering": {"cold": 0, "bins": []},
                        "inner_stride_bytes": 8192, "written": true}],
        }))
        .unwrap();
        let counted = NestLocality {
            phases: vec![c1, c2],
            ..counted
        };
        let level = |level: &str, seconds: f64| LevelTraffic {
            level: level.into(),
            misses: 0.0,
            writebacks: 0.0,
            seconds,
        };
        let nm = NestMemory {
            unit: "t".into(),
            loop_id: 0,
            line: 4,
            kind: "affine".into(),
            seconds: 7.0,
            levels: vec![],
            arrays: vec![ArrayTraffic {
                name: "a".into(),
                kind: "affine".into(),
                line: 4,
                accesses: 9000.0,
                sequential: false,
                sequential_share: 8.0 / 9.0,
                levels: vec![level("L1d", 3.0), level(SWEPT, 4.0)],
            }],
            fill_floor_seconds: 0.0,
        };
        let mut phases = vec![p1, p2];
        let shares = phase_memory_shares(&counted, &nm, &phases).expect("the same phases");
        // The levels' 3 split by lines walked (1000 each), the walk's 4 to the transpose.
        assert!((shares[1] - 5.5 / 7.0).abs() < 1e-12, "{shares:?}");
        let whole = parts(false, 7.0, 7.0);
        // By references, the transpose would wait on a ninth of the transfers.
        let by_references = phased_combined(&whole, &phases);
        for (p, s) in phases.iter_mut().zip(&shares) {
            p.share = Some(*s);
        }
        // The transpose waits on its walk: more than the references' split gave.
        let by_lines = phased_combined(&whole, &phases);
        assert!(by_lines > by_references + 1.0, "{by_lines} {by_references}");
        // Other loops than the counted ones: no shares.
        phases[1].line = 10;
        assert!(phase_memory_shares(&counted, &nm, &phases).is_none());
    }

    #[test]
    fn a_compiled_loop_issues_its_loads_and_stores_for_their_share_of_its_time() {
        use crate::test_support::{
            add_mul_machine, block_profile, entry, incore_machine, pricing, unit_with_one_loop,
        };
        use augur_program_profile::compiled::CompiledLoop;
        use augur_program_profile::optreport::OptReport;
        // `do i = 1, 100: a(i) = b(i) * c` at -O0: ten instructions an iteration, three of
        // them loads and stores, issued one a 0.05 ns: 0.5 ns an iteration, of which the
        // address pipes (0.05 ns a load or store) hold 0.15 ns: 30%, whatever share of
        // the AbOps the address work has.
        let mut counts = augur_ir::AbOpCounts::new();
        counts.add(AbOp::ARR1, 2.0);
        counts.add(AbOp::MRDL, 1.0);
        let b = block_profile(augur_ir::BlockKind::Straight, counts, Default::default());
        let b = augur_program_profile::BlockProfile {
            executions: Some(100.0),
            ..b
        };
        let u = unit_with_one_loop("t", vec![b]);
        let mut machine = add_mul_machine();
        machine.abop.insert(AbOp::ARR1, entry(1.0, 0.0));
        machine.stream.insert(AbOp::ARR1, entry(1.0, 0.0));
        let mut t = CostTable::from_profile(&machine);
        let c = pricing(&t).total(&u.blocks[0], Default::default());
        let priced = PricedBlocks {
            blocks: vec![vec![c.clone()]],
            throughput: vec![vec![c]],
            mispredictions: 0.0,
            branch_seconds: 0.0,
            idle: vec![vec![]],
        };
        let abops = memory_issue(&t, None, &priced, 0, &u, 0);
        let all = t.cost_of(&priced.blocks[0][0]).seconds;
        assert!(abops > 0.0 && abops < all, "{abops} of {all}");
        let mut m = incore_machine(&[
            ("int_alu", 0.25, 0.05),
            ("load", 1.0, 0.05),
            ("store", 1.0, 0.05),
        ]);
        m.memory_op_ns = Some(0.05);
        t.incore = Some(m);
        let cl: CompiledLoop = serde_json::from_value(serde_json::json!({
            "file": "t.f90", "line": 1, "function": "t_",
            "instructions": [{"class": "load", "count": 2}, {"class": "store", "count": 1},
                             {"class": "int_alu", "count": 7}],
            "source_iterations": 1, "source_iterations_from": "", "chains": [], "issued": 10
        }))
        .unwrap();
        let report = OptReport {
            compiled_loops: vec![cl],
            ..OptReport::default()
        };
        let share = compiled_memory_share(&t, Some(&report), &u, 0).unwrap();
        // The three loads' and stores' 0.15 ns of the loop's issue (0.5 ns), which its
        // integer instructions (0.35 ns) and its branch (0.25 ns) slow a little.
        let loop_ns =
            0.5 * (1.0 + 0.7f64.powi(6) + 0.3f64.powi(6) + 0.5f64.powi(6)).powf(1.0 / 6.0);
        assert!((share - 0.15 / loop_ns).abs() < 1e-9, "{share}");
        let compiled = memory_issue(&t, Some(&report), &priced, 0, &u, 0);
        assert!(
            (compiled - share * all).abs() < 1e-15,
            "{compiled} of {all}"
        );
    }

    #[test]
    fn the_vector_width_is_read_from_the_report() {
        assert_eq!(vector_bytes("using 16 byte vectors"), Some(16));
        assert_eq!(
            vector_bytes("using 32 byte vectors and unroll factor 2"),
            Some(32)
        );
        assert_eq!(
            vector_bytes("replaced by 2 library call(s) (memcpy, memset)"),
            None
        );
    }
}
