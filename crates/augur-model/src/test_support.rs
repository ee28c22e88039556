//! Machine and program profiles the unit tests of the predictor's modules share.

use crate::block::BlockPricing;
use crate::cost::CostTable;
use augur_ir::{AbOp, AbOpCounts};
use augur_machine_profile::{AbOpEntry, MachineProfile, Provenance, MEASURED};
use augur_program_profile::{BlockProfile, LoopProfile, UnitProfile};

/// (AbOp, status, mean ns, 90% half-width ns, observations)
pub(crate) type Entry<'a> = (AbOp, &'a str, Option<f64>, Option<f64>, u32);

/// A measured entry of `mean` ns with a 90% half-width of `ci` ns.
pub(crate) fn entry(mean: f64, ci: f64) -> AbOpEntry {
    let mut e = AbOpEntry::status(MEASURED);
    e.mean_ns = Some(mean);
    e.ci90_ns = Some(ci);
    e.observations = 10;
    e
}

/// A machine profile of these chain-cost entries.
pub(crate) fn machine(entries: &[Entry]) -> MachineProfile {
    let mut m = MachineProfile::new(Provenance::default());
    for &(op, status, mean, ci, n) in entries {
        let mut e = AbOpEntry::status(status);
        e.mean_ns = mean;
        e.ci90_ns = ci;
        e.observations = n;
        m.abop.insert(op, e);
    }
    m
}

/// A block of loop 0 on line 1, run 10 times, with these counts and chain.
pub(crate) fn block_profile(
    block_kind: augur_ir::BlockKind,
    counts: AbOpCounts,
    chain: AbOpCounts,
) -> BlockProfile {
    BlockProfile {
        id: 0,
        block_kind,
        first_line: 1,
        last_line: 1,
        in_loop: Some(0),
        counts,
        chain,
        chain_assignments: None,
        register_writes: AbOpCounts::new(),
        scalar_operands: None,
        executions: Some(10.0),
        how: "counter".into(),
    }
}

/// A machine whose double adds and multiplies cost 3 ns in a chain, 0.5 ns in a
/// stream.
pub(crate) fn add_mul_machine() -> MachineProfile {
    let mut m = machine(&[
        (AbOp::ARDL, MEASURED, Some(3.0), Some(0.0), 10),
        (AbOp::MRDL, MEASURED, Some(3.0), Some(0.0), 10),
    ]);
    m.stream.insert(AbOp::ARDL, entry(0.5, 0.0));
    m.stream.insert(AbOp::MRDL, entry(0.5, 0.0));
    m
}

/// A program unit `t.f90` of these blocks with one innermost loop (id 0, line 1)
/// of 100 iterations.
pub(crate) fn unit_with_one_loop(name: &str, blocks: Vec<BlockProfile>) -> UnitProfile {
    UnitProfile {
        name: name.into(),
        unit_kind: augur_ir::UnitKind::Program,
        file: "t.f90".into(),
        first_line: 1,
        last_line: 9,
        host: None,
        calls: Some(1.0),
        totals: AbOpCounts::new(),
        blocks,
        loops: vec![LoopProfile {
            id: 0,
            loop_kind: augur_ir::LoopKind::Counted,
            line: 1,
            depth: 1,
            parent: None,
            entries: Some(1.0),
            iterations: Some(100.0),
            mean_trips: Some(100.0),
            totals: AbOpCounts::new(),
            chain: AbOpCounts::new(),
            chain_assignments: None,
            serial_calls: None,
            opportunities: vec![],
            busy_wait: false,
        }],
        body_span: AbOpCounts::new(),
        carried_span: AbOpCounts::new(),
        body_span_assignments: None,
        carried_span_assignments: None,
        chained_calls: None,
    }
}

/// A cost table whose double add costs `chain_ns` on a chain, on a core forwarding a
/// stored double to a load in `forward_ns`, keeping scalars in registers or not.
pub(crate) fn machine_with(chain_ns: f64, forward_ns: f64, register_scalars: bool) -> CostTable {
    let m = machine(&[(AbOp::ARDL, MEASURED, Some(chain_ns), Some(0.0), 10)]);
    let mut table = CostTable::from_profile(&m);
    table.register_scalars = register_scalars;
    table.incore = Some(incore_machine(&[("forward", forward_ns, 0.5)]));
    table
}

/// A unit of one loop whose block carries a recurrence of `adds` double adds through
/// `assignments` assignments.
pub(crate) fn unit_with_chain(adds: f64, assignments: f64) -> UnitProfile {
    let mut chain = AbOpCounts::new();
    chain.add(AbOp::ARDL, adds);
    let mut b = block_profile(augur_ir::BlockKind::Straight, chain.clone(), chain);
    b.chain_assignments = Some(assignments);
    unit_with_one_loop("t", vec![b])
}

/// Block pricing on `table` that leaves branch mispredictions out (a program
/// without a branch run, predicted with the default options).
pub(crate) fn pricing(table: &CostTable) -> BlockPricing<'_> {
    BlockPricing {
        table,
        branches_priced: false,
    }
}

/// An in-core profile of a 0.25 ns cycle, issuing one instruction each 0.05 ns, a taken
/// branch a cycle, with these classes (key, latency ns, reciprocal throughput ns).
pub(crate) fn incore_machine(
    classes: &[(&str, f64, f64)],
) -> augur_machine_profile::incore::InCoreProfile {
    let mut m = augur_machine_profile::incore::InCoreProfile {
        cycle_ns: 0.25,
        issue_ns: 0.05,
        taken_branch_ns: 0.25,
        ..Default::default()
    };
    for &(key, latency_ns, throughput_ns) in classes {
        let cost = augur_machine_profile::incore::ClassCost {
            latency_ns,
            throughput_ns,
            beside_add_ns: None,
        };
        m.class.insert(key.into(), cost);
    }
    m
}

/// A compiled loop of `file`:`line` with these instructions an iteration, `issued` of
/// them issued, one source iteration a compiled one, nothing else recorded.
pub(crate) fn compiled_loop(
    file: &str,
    line: u32,
    instructions: Vec<augur_program_profile::compiled::ClassCount>,
    issued: u32,
) -> augur_program_profile::compiled::CompiledLoop {
    augur_program_profile::compiled::CompiledLoop {
        file: file.into(),
        line,
        function: "f_".into(),
        instructions,
        issued,
        inner_branches: 0,
        source_iterations: 1,
        lanes: 1,
        source_iterations_from: String::new(),
        chains: vec![],
        span: vec![],
        versions: 0,
        blocks: vec![],
        paths: vec![],
        lines: vec![],
        in_flight: None,
        outer: None,
        schedule: vec![],
    }
}

/// The shape of [`one_array_nest`]'s nest and array.
pub(crate) struct OneArray {
    /// Times the nest ran.
    pub executions: f64,
    /// The array's accesses an execution.
    pub accesses: u64,
    /// The nest's and the array's distinct lines and pages.
    pub footprint: (u64, u64),
    /// The array's innermost stride, bytes.
    pub inner_stride_bytes: u64,
    /// Whether it is written.
    pub written: bool,
}

/// An affine nest of `augur_locality` (unit `u`, loop 0) walking one array `a` of 8-byte
/// elements at the reuse distances of `histogram` (`entering`: those of its accesses
/// whose line was last used before the execution), never sequentially.
pub(crate) fn one_array_nest(
    shape: OneArray,
    histogram: augur_program_profile::locality::CompactHistogram,
    entering: augur_program_profile::locality::CompactHistogram,
) -> augur_program_profile::locality::NestLocality {
    use augur_program_profile::locality::{ArrayLocality, NestLocality};
    let (lines, pages) = shape.footprint;
    NestLocality {
        unit: "u".into(),
        loop_id: 0,
        file: "u.f90".into(),
        line: 3,
        executions: shape.executions,
        approximate: false,
        accesses: shape.accesses,
        footprint_lines: lines,
        footprint_pages: pages,
        streamed_accesses: 0,
        sample_rate: 1.0,
        kind: "affine".into(),
        arrays: vec![ArrayLocality {
            name: "a".into(),
            elem_bytes: 8,
            accesses: shape.accesses,
            footprint_lines: lines,
            histogram,
            entering,
            pages: Default::default(),
            entering_pages: Default::default(),
            footprint_pages: pages,
            inner_stride_bytes: shape.inner_stride_bytes,
            written: shape.written,
            sequential_accesses: Some(0),
            writebacks: Default::default(),
            stores: Default::default(),
            class_histogram: Default::default(),
        }],
        phases: vec![],
    }
}
