//! The OpenMP predictor: `T(P)` from the program's per-thread counts at `P` threads
//! (its profile's `openmp` section) and the machine's OpenMP overheads and bandwidths
//! per thread count (the machine profile's `[openmp]`).
//!
//! Every block is priced as in the sequential model (its operations, and its share of
//! its loop nest's memory term). The blocks that ran on other threads than thread 0 at
//! `P` threads fall into *phases*: the worksharing construct that ends with a barrier
//! around them (a `DO`, `SECTIONS`, `SINGLE`, `WORKSHARE`; a `NOWAIT` one joins the
//! phase around it), else their parallel region, else (code of a procedure called in a
//! region) their procedure. A phase lasts as long as its slowest thread, summed over
//! its executions; what the others lack of it is *imbalance* (time waiting at its
//! barrier). Work inside `CRITICAL` or `ORDERED` is serialized: a phase lasts at least
//! the sum of every thread's. Each construct adds its measured overhead per execution
//! (EPCC's: a region's fork and join, a loop's schedule and barrier, a reduction, a
//! critical entry, an atomic update on its thread). Threads streaming memory together
//! share its bandwidth: each thread asks a shared level for lines at the rate the
//! sequential model priced its nest's lines at (`D`), the team gets `B(P)` (the
//! measured triad with `P` threads, in line transfers), so the nest's memory time at
//! that level grows by `max(1, P·D/B(P))`: a nest that does not saturate the level
//! alone (latency-bound, or much arithmetic per line) contends less than a stream.
//! Beyond the cores, threads share them: a phase lasts at least its threads' total
//! work over the cores.
//!
//! Everything else runs on thread 0 as in the sequential prediction: `T(P) = serial +
//! Σ phases + overheads`. Phases and their per-thread work are totals over all
//! executions (the slowest thread is taken over the sum, exact when the same thread is
//! slowest each time, as with a static schedule). Work handed out on demand is shared
//! again as the runtime would: a dynamic, guided or runtime loop's iterations evenly
//! over the threads, SECTIONs each to the first free thread in order (the counting run's
//! split followed its own instrumented speeds).

use crate::block::{report_for, BlockPricing};
use crate::cost::CostTable;
use crate::memory::TRIAD_LINES_PER_COUNTED;
use crate::nest_time::{memory_term, NestRow};
use crate::predict::{predict_with, PredictOptions, Prediction};
use crate::price::{inside_loop, price_blocks};
use augur_ir::omp::{Construct, ConstructKind, ScheduleKind};
use augur_ir::{AbOp, AbOpCounts};
use augur_machine_profile::openmp::OpenMpProfile as MachineOpenMp;
use augur_machine_profile::MachineProfile;
use augur_program_profile::openmp::{OpenMpProfile, ThreadRun};
use augur_program_profile::ProgramProfile;
use serde::Serialize;
use std::collections::BTreeMap;

/// Predictions at several thread counts.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct ThreadsPrediction {
    /// The sequential prediction (one thread, no OpenMP overheads).
    #[serde(skip)]
    pub sequential: Prediction,
    /// One point per thread count asked.
    pub points: Vec<ThreadPoint>,
    /// The cores the machine's OpenMP section was measured with, else the CPUs the profile
    /// was measured on.
    pub cores: Option<u32>,
    /// Warnings (no OpenMP section, thread counts not counted...).
    pub warnings: Vec<String>,
}

/// The prediction at one thread count.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct ThreadPoint {
    /// Threads.
    pub threads: u32,
    /// Predicted seconds.
    pub seconds: f64,
    /// 90% interval (the sequential prediction's relative interval).
    pub low: f64,
    /// Upper end of the interval.
    pub high: f64,
    /// Time outside the phases (thread 0 alone), seconds.
    pub serial: f64,
    /// Σ over phases of the mean thread's work.
    pub work: f64,
    /// Σ over phases of the slowest thread's work less the mean: waiting at barriers.
    pub imbalance: f64,
    /// Beyond the cores: what the threads' sharing of the cores adds beyond the slowest
    /// thread's work.
    pub sharing: f64,
    /// Time serialized critical sections (and run-time library locks, [`LOCKED`]) add
    /// beyond the slowest thread.
    pub serialization: f64,
    /// Constructs' overheads.
    pub overhead: f64,
    /// What sharing the memory bandwidth adds to the work (included in `work`).
    pub contention: f64,
    /// What stores into cache lines other threads store into add to the mean thread's
    /// work (included in `work`).
    pub line_sharing: f64,
    /// More threads than cores: threads share them.
    pub oversubscribed: bool,
    /// The phases, in program order.
    pub phases: Vec<Phase>,
    /// Machine parameters not measured at this thread count, and how they were obtained.
    pub extrapolated: Vec<String>,
}

/// One phase at one thread count.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct Phase {
    /// `unit:line kind` of its construct (or `unit (called in parallel)`).
    pub name: String,
    /// Line of its construct (0 for a procedure called in a region).
    pub line: u32,
    /// Executions of its construct.
    pub executions: f64,
    /// Each thread's work, seconds (overheads of critical entries and atomics included).
    pub thread_seconds: Vec<f64>,
    /// Overhead of its constructs, seconds.
    pub overhead: f64,
    /// Its time: the slowest thread (or the serialized critical work) plus overhead.
    pub seconds: f64,
    /// Its blocks `(unit, block)`.
    #[serde(skip)]
    pub blocks: Vec<(u32, u32)>,
    /// Its blocks' time on one thread (the sequential model's), seconds.
    #[serde(skip)]
    pub alone_seconds: f64,
    /// Iterations of busy-wait loops (threads spinning on a flag another thread sets,
    /// `augur_ir::busy_wait`) the counting run made in it, all threads together: left out
    /// of the work (their number is the counting run's timing); the wait they stand for
    /// is the time the threads that set the flags take (the slowest thread).
    pub spin_iterations: f64,
}

/// What a phase is keyed by: a construct of a unit, or a unit called in parallel.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum PhaseKey {
    /// (unit, construct id).
    Construct(usize, u32),
    /// A unit's blocks outside its constructs that ran on other threads.
    Called(usize),
}

/// Per block: seconds per execution in the sequential model, and its nest (if any).
pub(crate) struct BlockTimes {
    /// [unit][block] seconds per execution (operations only).
    pub(crate) per_exec: Vec<Vec<f64>>,
    /// [unit][block] index into `nests`.
    pub(crate) nest: Vec<Vec<Option<usize>>>,
    /// [unit][block] per execution: the seconds its operations hold a run-time
    /// library's process-wide lock, and how many times it takes it ([`LOCKED`]).
    locked: Vec<Vec<(f64, f64)>>,
    pub(crate) nests: Vec<NestRow>,
    /// Seconds the sequential total has beyond the blocks (first touches, ...).
    rest: f64,
    /// The machine's cache line, bytes.
    line_bytes: f64,
}

/// Predicts `program` on `machine` at each of `threads`.
pub fn predict_threads(
    program: &ProgramProfile,
    machine: &MachineProfile,
    options: PredictOptions,
    threads: &[u32],
) -> Result<ThreadsPrediction, String> {
    let omp = program.openmp.as_ref().ok_or_else(|| {
        "the program profile has no per-thread counts: analyze it with `augur analyze --threads 1,2,...`"
            .to_string()
    })?;
    let table = CostTable::from_profile(machine);
    let sequential = predict_with(program, &table, machine, options);
    let times = block_times(program, machine, &table, options, &sequential);
    let mut warnings = vec![];
    // The cores: those the OpenMP section was measured on, else the CPUs the profile was
    // measured on (threads beyond them share them all the same).
    let cores = machine.openmp.as_ref().map(|o| o.cores).or_else(|| {
        u32::try_from(machine.provenance.cores)
            .ok()
            .filter(|&c| c > 0)
    });
    if machine.openmp.is_none() {
        warnings.push(format!(
            "the machine profile has no [openmp] section: constructs cost nothing and threads share no bandwidth, so the speedups are an upper bound{} (measure it with `augur characterize --openmp -o MACHINE.toml`)",
            cores.map_or(String::new(), |c| format!("; threads beyond its {c} cores share them"))
        ));
    }
    let mut points = vec![];
    for &p in threads {
        let run = omp.run(p).ok_or_else(|| {
            format!(
                "the program was counted at {:?} threads, not at {p}: analyze it with --threads including {p}",
                omp.thread_counts()
            )
        })?;
        points.push(point(
            program,
            omp,
            run,
            (machine.openmp.as_ref(), cores),
            &times,
            &sequential,
        ));
    }
    Ok(ThreadsPrediction {
        sequential,
        points,
        cores,
        warnings,
    })
}

/// Prices every block per execution and finds its nest.
pub(crate) fn block_times(
    program: &ProgramProfile,
    machine: &MachineProfile,
    table: &CostTable,
    options: PredictOptions,
    sequential: &Prediction,
) -> BlockTimes {
    let pricing = BlockPricing {
        table,
        branches_priced: sequential.branches_priced,
    };
    let priced = price_blocks(program, pricing, report_for(program, machine));
    let (nests, _) = memory_term(program, machine, table, &priced, options.overlap, None);
    let mut per_exec = vec![];
    let mut nest = vec![];
    let mut blocks_total = 0.0;
    let locked = program
        .units
        .iter()
        .map(|u| {
            u.blocks
                .iter()
                .map(|b| locked_work(table, &b.counts))
                .collect()
        })
        .collect();
    for (ui, u) in program.units.iter().enumerate() {
        let mut pe = vec![];
        let mut ne = vec![];
        for (bi, b) in u.blocks.iter().enumerate() {
            let s = table.cost_of(&priced.blocks[ui][bi]).seconds;
            blocks_total += s;
            let n = b.executions.unwrap_or(0.0);
            pe.push(if n > 0.0 { s / n } else { 0.0 });
            ne.push(
                nests
                    .iter()
                    .position(|r| r.unit_index == ui && inside_loop(u, b.in_loop, r.loop_id)),
            );
        }
        per_exec.push(pe);
        nest.push(ne);
    }
    let memory: f64 = nests
        .iter()
        .map(|r| r.combined_seconds - r.operations_seconds)
        .sum();
    BlockTimes {
        per_exec,
        nest,
        locked,
        rest: sequential.total.seconds - blocks_total - memory - sequential.first_touch_seconds,
        nests,
        line_bytes: machine
            .memory
            .as_ref()
            .and_then(|m| m.levels.first())
            .map_or(64.0, |l| l.line_bytes.max(1) as f64),
    }
}

/// The operations that run under a process-wide lock of the language's run-time
/// library: RANDOM_SEED with PUT= or GET= (gfortran's libgfortran takes the generator's
/// one mutex, `random_lock`; threads reseeding in a loop take turns, measured on a Zen 4:
/// 290 ns a reseed alone, 450 ns a reseed for the loop with two threads).
pub const LOCKED: [AbOp; 1] = [AbOp::RSED];

/// Per execution of a block with `counts`: the seconds its [`LOCKED`] operations hold
/// their lock, and how many times it takes it.
fn locked_work(table: &CostTable, counts: &AbOpCounts) -> (f64, f64) {
    LOCKED.iter().fold((0.0, 0.0), |(s, n), &op| {
        let k = counts.get(op);
        (s + k * table.get(op).seconds, n + k)
    })
}

/// The level whose bandwidth serves the misses of cache level `missed` (none for the
/// page walks of a TLB, or the store buffer).
fn serving_level(missed: &str) -> Option<&'static str> {
    match missed {
        "L1d" | "L1" => Some("L2"),
        "L2" => Some("L3"),
        "L3" | "L4" => Some("memory"),
        _ => None,
    }
}

/// How the machine's parameters come out at `p` threads, with what was extrapolated.
struct MachineAt<'a> {
    omp: Option<&'a MachineOpenMp>,
    p: u32,
    extrapolated: Vec<String>,
}

impl MachineAt<'_> {
    /// A construct's overhead (0 when not measured).
    fn overhead(&mut self, construct: &str, chunk: u32) -> f64 {
        let Some(o) = self.omp else { return 0.0 };
        match o.overhead(construct, chunk, self.p) {
            Some(v) => {
                if let Some(how) = v.extrapolated {
                    let line = format!("{construct} overhead: {how}");
                    if !self.extrapolated.contains(&line) {
                        self.extrapolated.push(line);
                    }
                }
                v.value.max(0.0)
            }
            None => 0.0,
        }
    }

    /// A construct's overhead with one thread (`chunk` 0); 0 where not measured.
    fn overhead_alone(&mut self, construct: &str) -> f64 {
        let Some(o) = self.omp else { return 0.0 };
        o.overhead(construct, 0, 1)
            .map_or(0.0, |v| v.value.max(0.0))
    }

    /// What the `P` threads add to an overhead of `construct` over one thread's; `None`
    /// when the profile lacks it (one made before it was measured).
    fn added_by_threads(&mut self, construct: &str) -> Option<f64> {
        self.omp?.overhead(construct, 0, self.p)?;
        Some((self.overhead(construct, 0) - self.overhead_alone(construct)).max(0.0))
    }

    /// How much longer a nest's memory time at `level` is when `concurrent` threads
    /// each ask it for `demand` bytes of line transfers per second: `P·D/B(P)` for a
    /// shared level, at least 1, where a thread asks at most what one thread alone gets
    /// (`B(1)`; the triad's counted bytes are three of its four line transfers); 1 for
    /// a private one.
    fn contention(&mut self, level: &str, concurrent: u32, demand: f64) -> f64 {
        let Some(o) = self.omp else { return 1.0 };
        // A private cache gives each core its own bandwidth.
        if o.is_private(level) {
            return 1.0;
        }
        let (Some(one), Some(all)) = (o.bandwidth(level, 1), o.bandwidth(level, concurrent)) else {
            return 1.0;
        };
        let demand = demand.min(one.value * TRIAD_LINES_PER_COUNTED);
        if let Some(how) = all.extrapolated {
            if !self.extrapolated.contains(&how) {
                self.extrapolated.push(how);
            }
        }
        let supplied = all.value.max(1.0) * TRIAD_LINES_PER_COUNTED;
        (concurrent as f64 * demand / supplied).max(1.0)
    }
}

/// The prediction at the thread count of `run`.
fn point(
    program: &ProgramProfile,
    omp: &OpenMpProfile,
    run: &ThreadRun,
    (machine, cores): (Option<&MachineOpenMp>, Option<u32>),
    times: &BlockTimes,
    sequential: &Prediction,
) -> ThreadPoint {
    let p = run.threads.max(1);
    let cores = cores.unwrap_or(p).max(1);
    let mut m = MachineAt {
        omp: machine,
        p,
        extrapolated: vec![],
    };
    let nest_factor = nest_factors(times, &mut m, p.min(cores));
    let factor = |ui: usize, bi: usize, shared: bool| {
        times.nest[ui][bi].map_or(1.0, |k| {
            if shared {
                nest_factor[k].1
            } else {
                nest_factor[k].0
            }
        })
    };
    let structure: Vec<UnitConstructs> = (0..program.units.len())
        .map(|ui| UnitConstructs::new(omp.constructs_of(ui as u32)))
        .collect();
    let mut phases: BTreeMap<PhaseKey, PhaseAcc> = BTreeMap::new();
    // First touches: on the threads that took them, the busiest one's share (measured).
    let mut serial = times.rest + sequential.first_touch_seconds * run.first_touch_share(cores);
    let mut contention = 0.0;
    let in_run: std::collections::HashSet<(u32, u32)> =
        run.blocks.iter().map(|b| (b.unit, b.block)).collect();
    let waiting = busy_wait_blocks(program);
    for (ui, u) in program.units.iter().enumerate() {
        for (bi, b) in u.blocks.iter().enumerate() {
            let t = times.per_exec[ui][bi];
            let total = b.executions.unwrap_or(0.0);
            let key = structure[ui].phase_of_block(ui, bi as u32);
            if waiting[ui][bi] {
                // Spinning on a flag: waiting, not work.
                let spun: f64 = run.counts_of(ui as u32, bi as u32, total).iter().sum();
                phases.entry(key).or_insert_with(|| PhaseAcc::new(p)).spins += spun;
                continue;
            }
            // A block the run left out ran all its executions on thread 0: outside
            // the constructs that is serial time; inside one (a SECTION, MASTER or
            // SINGLE thread 0 took) it is thread 0's share of that phase.
            if !in_run.contains(&(ui as u32, bi as u32)) && matches!(key, PhaseKey::Called(_)) {
                serial += t * total * factor(ui, bi, false);
                continue;
            }
            let mut counts = run.counts_of(ui as u32, bi as u32, total);
            if structure[ui].dynamically_scheduled(bi as u32) {
                // Handed out on demand: the counting run's split followed its own
                // (instrumented, shared-core) speeds; the real one evens out.
                let all: f64 = counts.iter().sum();
                counts = vec![all / p as f64; p as usize];
            }
            let critical = structure[ui].is_serialized(bi as u32);
            let section = structure[ui].section_of_block(bi as u32);
            let (held, takes) = times.locked[ui][bi];
            // (The operation's measured cost holds its uncontended lock and unlock.)
            let lock_entry = if takes > 0.0 {
                library_lock_handover(&mut m)
            } else {
                0.0
            };
            let acc = phases.entry(key).or_insert_with(|| PhaseAcc::new(p));
            acc.blocks.push((ui as u32, bi as u32));
            acc.alone += t * counts.iter().sum::<f64>() * factor(ui, bi, false);
            for (tid, c) in counts.iter().enumerate().take(p as usize) {
                let s = t * c * factor(ui, bi, true);
                contention += t * c * (factor(ui, bi, true) - factor(ui, bi, false));
                acc.work[tid] += s + c * takes * lock_entry;
                if critical {
                    acc.serialized += s;
                }
                // A run-time library's lock: its holders take turns, as in a critical
                // section around those operations.
                acc.serialized += c * (held + takes * lock_entry);
                if let Some(id) = section {
                    *acc.sections.entry(id).or_default() += s;
                    acc.section_work[tid] += s;
                }
            }
        }
    }
    // Overheads of every construct at its executions.
    for (ui, s) in structure.iter().enumerate() {
        for c in s.constructs {
            add_overhead(program, run, ui, s, c, &mut m, &mut phases);
        }
    }
    let line_sharing = add_line_sharing(program, run, &structure, times, &mut m, &mut phases);
    let mut point = finish(
        program,
        p,
        cores,
        serial,
        contention,
        phases,
        m.extrapolated,
        sequential,
    );
    point.line_sharing = line_sharing;
    point
}

/// Per unit and block: whether the block lies in a busy-wait loop
/// ([`augur_program_profile::LoopProfile::busy_wait`]).
fn busy_wait_blocks(program: &ProgramProfile) -> Vec<Vec<bool>> {
    program
        .units
        .iter()
        .map(|u| {
            let busy = |mut at: Option<u32>| {
                while let Some(l) = at.and_then(|id| u.loops.iter().find(|l| l.id == id)) {
                    if l.busy_wait {
                        return true;
                    }
                    at = l.parent;
                }
                false
            };
            u.blocks.iter().map(|b| busy(b.in_loop)).collect()
        })
        .collect()
}

/// Adds to each thread the time its stores into lines other threads store into take
/// (per store, the machine's measured `false_sharing` overhead at `P`; a store whose
/// threads' elements lie a line apart or more shares nothing). Returns the mean
/// thread's share.
fn add_line_sharing(
    program: &ProgramProfile,
    run: &ThreadRun,
    structure: &[UnitConstructs<'_>],
    times: &BlockTimes,
    m: &mut MachineAt<'_>,
    phases: &mut BTreeMap<PhaseKey, PhaseAcc>,
) -> f64 {
    let p = run.threads.max(1);
    if p < 2 {
        return 0.0;
    }
    let per_store = m.overhead("false_sharing", 0);
    let mut added = 0.0;
    for (ui, s) in structure.iter().enumerate() {
        for st in s.constructs.iter().flat_map(|c| &c.shared_stores) {
            if st.distance_bytes as f64 >= times.line_bytes {
                continue;
            }
            let total = program.units[ui]
                .blocks
                .get(st.block.0 as usize)
                .and_then(|b| b.executions)
                .unwrap_or(0.0);
            let counts = run.counts_of(ui as u32, st.block.0, total);
            let acc = phases
                .entry(s.phase_of_block(ui, st.block.0))
                .or_insert_with(|| PhaseAcc::new(p));
            for (t, c) in counts.iter().enumerate().take(p as usize) {
                acc.work[t] += c * per_store;
                added += c * per_store;
            }
        }
    }
    added / p as f64
}

/// Each nest's time per second of its operations: alone, and with `concurrent` threads
/// sharing the bandwidth of the levels that serve its misses.
/// Each nest's time over its operation time when `concurrent` processes on one node
/// (MPI ranks) run it at once and share the node's bandwidth as `concurrent` threads
/// would (the machine's `[openmp]` triad by thread count; 1 where it was not measured).
pub(crate) fn shared_nest_factors(
    times: &BlockTimes,
    machine: &MachineProfile,
    concurrent: u32,
) -> Vec<f64> {
    let mut m = MachineAt {
        omp: machine.openmp.as_ref(),
        p: concurrent,
        extrapolated: vec![],
    };
    nest_factors(times, &mut m, concurrent)
        .into_iter()
        .map(|(_, shared)| shared)
        .collect()
}

fn nest_factors(times: &BlockTimes, m: &mut MachineAt<'_>, concurrent: u32) -> Vec<(f64, f64)> {
    times
        .nests
        .iter()
        .map(|n| {
            let ops = n.operations_seconds.max(1e-300);
            // Each level's transfers stretched by its contention, weighed by their time.
            let (mut moved, mut stretched) = (0.0, 0.0);
            for l in n.levels.iter().filter(|l| l.seconds > 0.0) {
                let f = match serving_level(&l.level) {
                    Some(serving) => {
                        let demand = (l.misses + l.writebacks) * times.line_bytes / l.seconds;
                        m.contention(serving, concurrent, demand)
                    }
                    None => 1.0,
                };
                moved += l.seconds;
                stretched += l.seconds * f;
            }
            let stretch = if moved > 0.0 { stretched / moved } else { 1.0 };
            let shared = n.parts.stretched(stretch).max(n.combined_seconds);
            (n.combined_seconds / ops, shared / ops)
        })
        .collect()
}

/// Sums the phases into the point.
#[allow(clippy::too_many_arguments)]
fn finish(
    program: &ProgramProfile,
    p: u32,
    cores: u32,
    serial: f64,
    contention: f64,
    phases: BTreeMap<PhaseKey, PhaseAcc>,
    extrapolated: Vec<String>,
    sequential: &Prediction,
) -> ThreadPoint {
    let (mut work, mut imbalance, mut serialization, mut overhead) = (0.0, 0.0, 0.0, 0.0);
    let mut sharing = 0.0;
    let mut rows = vec![];
    for (key, mut acc) in phases {
        acc.schedule_sections();
        acc.add_atomics();
        let max = acc.work.iter().copied().fold(0.0, f64::max);
        let sum: f64 = acc.work.iter().sum();
        let mean = sum / p as f64;
        // Beyond the cores, the threads' work shares them.
        let busy = max.max(sum / cores as f64);
        let serialized = acc.serialized.max(ordered_bound(sum, acc.ordered_chunk));
        let seconds = busy.max(serialized) + acc.overhead;
        work += mean;
        imbalance += max - mean;
        sharing += busy - max;
        serialization += (serialized - busy).max(0.0);
        overhead += acc.overhead;
        let (name, line) = phase_name(program, key, &acc);
        rows.push(Phase {
            name,
            line,
            executions: acc.executions,
            thread_seconds: acc.work,
            overhead: acc.overhead,
            seconds,
            blocks: acc.blocks,
            alone_seconds: acc.alone,
            spin_iterations: acc.spins,
        });
    }
    let seconds = serial + work + imbalance + sharing + serialization + overhead;
    let ratio = |x: f64| x / sequential.total.seconds.max(1e-300);
    ThreadPoint {
        threads: p,
        seconds,
        low: seconds * ratio(sequential.interval.low),
        high: seconds * ratio(sequential.interval.high),
        serial,
        work,
        imbalance,
        sharing,
        serialization,
        overhead,
        contention,
        line_sharing: 0.0,
        oversubscribed: p > cores,
        phases: rows,
        extrapolated,
    }
}

/// The least time of an ORDERED loop whose work is `sum` over all threads, handed out in
/// chunks of `chunk` iterations (the ordered part at the end of each iteration): chunks
/// finish in iteration order, so a chunk overlaps only its first iteration with the
/// chunk before it, and the loop lasts at least `sum·(c−1)/c` (a static schedule
/// without a chunk serializes the loop; with a chunk of one the threads take turns).
fn ordered_bound(sum: f64, chunk: Option<f64>) -> f64 {
    match chunk {
        Some(c) if c > 1.0 => sum * (c - 1.0) / c,
        _ => 0.0,
    }
}

/// A phase being summed.
struct PhaseAcc {
    work: Vec<f64>,
    /// The work of each SECTION (by construct id), all threads together.
    sections: BTreeMap<u32, f64>,
    /// Each thread's share of the sections' work in the counting run.
    section_work: Vec<f64>,
    serialized: f64,
    /// The chunk of an ORDERED loop's schedule: its chunks finish in iteration order.
    ordered_chunk: Option<f64>,
    overhead: f64,
    executions: f64,
    line: u32,
    kind: String,
    /// Its blocks, and their time on one thread.
    blocks: Vec<(u32, u32)>,
    alone: f64,
    /// Busy-wait iterations counted in it ([`Phase::spin_iterations`]).
    spins: f64,
    /// The ATOMIC updates each thread makes, and what one costs ([`AtomicCost`]).
    atomics: Vec<f64>,
    atomic_cost: AtomicCost,
}

/// What an ATOMIC update costs a thread: its overhead with one thread (a locked
/// read-modify-write of a line the thread holds, which an out-of-order core overlaps
/// with the independent work around it, as a divide overlaps: it shows only where the
/// thread's other work per update is shorter) and what `P` threads add to it (the
/// line's trip from another core: the thread waits for it). Updates of one variable wait
/// at every update (EPCC's `atomic`); updates spread over a table's slots only when
/// another core wrote the line last (the machine's `atomic_table`).
#[derive(Debug, Clone, Copy, Default)]
struct AtomicCost {
    uncontended: f64,
    contended: f64,
}

impl AtomicCost {
    /// The time `updates` atomic updates add to a thread whose other work is `work`.
    fn added(self, updates: f64, work: f64) -> f64 {
        if updates <= 0.0 {
            return 0.0;
        }
        let hidden_behind = work / updates;
        updates * (self.contended + (self.uncontended - hidden_behind).max(0.0))
    }
}

impl PhaseAcc {
    fn new(p: u32) -> PhaseAcc {
        PhaseAcc {
            work: vec![0.0; p as usize],
            sections: BTreeMap::new(),
            section_work: vec![0.0; p as usize],
            serialized: 0.0,
            ordered_chunk: None,
            overhead: 0.0,
            executions: 0.0,
            line: 0,
            kind: String::new(),
            blocks: vec![],
            alone: 0.0,
            spins: 0.0,
            atomics: vec![0.0; p as usize],
            atomic_cost: AtomicCost::default(),
        }
    }

    /// Adds each thread's ATOMIC updates to its work ([`AtomicCost::added`]).
    fn add_atomics(&mut self) {
        for (w, &updates) in self.work.iter_mut().zip(&self.atomics) {
            *w += self.atomic_cost.added(updates, *w);
        }
    }
}

impl PhaseAcc {
    /// SECTIONs go to threads in order, each to the thread that is free first (as the
    /// runtime hands them out): which thread ran which section in the counting run
    /// depended on its instrumented speeds, so the sections are scheduled again.
    fn schedule_sections(&mut self) {
        if self.sections.is_empty() {
            return;
        }
        let mut loads: Vec<f64> = self
            .work
            .iter()
            .zip(&self.section_work)
            .map(|(w, s)| (w - s).max(0.0))
            .collect();
        for w in self.sections.values() {
            let (k, _) = loads
                .iter()
                .enumerate()
                .min_by(|a, b| a.1.total_cmp(b.1))
                .expect("at least one thread");
            loads[k] += w;
        }
        self.work = loads;
    }
}

fn phase_name(program: &ProgramProfile, key: PhaseKey, acc: &PhaseAcc) -> (String, u32) {
    match key {
        PhaseKey::Construct(ui, _) => (
            format!(
                "{}:{} {}",
                std::path::Path::new(&program.units[ui].file)
                    .file_name()
                    .map_or(String::new(), |f| f.to_string_lossy().into_owned()),
                acc.line,
                acc.kind
            ),
            acc.line,
        ),
        PhaseKey::Called(ui) => (
            format!("{} (called in parallel)", program.units[ui].name),
            0,
        ),
    }
}

/// The constructs of one unit with each block's innermost construct.
struct UnitConstructs<'a> {
    constructs: &'a [Construct],
    innermost: BTreeMap<u32, u32>,
}

impl<'a> UnitConstructs<'a> {
    fn new(constructs: &'a [Construct]) -> UnitConstructs<'a> {
        let mut innermost = BTreeMap::new();
        for c in constructs {
            for b in &c.blocks {
                innermost.insert(b.0, c.id);
            }
        }
        UnitConstructs {
            constructs,
            innermost,
        }
    }

    /// Constructs around block `b`, innermost first.
    fn chain_of_block(&self, b: u32) -> Vec<&'a Construct> {
        self.chain_from(self.innermost.get(&b).copied())
    }

    fn chain_from(&self, mut c: Option<u32>) -> Vec<&'a Construct> {
        let mut out = vec![];
        while let Some(id) = c {
            let k = &self.constructs[id as usize];
            out.push(k);
            c = k.parent;
        }
        out
    }

    /// The phase of the constructs `chain` (innermost first).
    fn phase_of_chain(ui: usize, chain: &[&Construct]) -> PhaseKey {
        for c in chain {
            let d = &c.directive;
            let ends_phase = match d.kind {
                ConstructKind::Loop
                | ConstructKind::Sections
                | ConstructKind::Single
                | ConstructKind::Workshare => !d.clauses.nowait || d.parallel,
                ConstructKind::Parallel => true,
                _ => false,
            };
            if ends_phase {
                return PhaseKey::Construct(ui, c.id);
            }
        }
        PhaseKey::Called(ui)
    }

    fn phase_of_block(&self, ui: usize, b: u32) -> PhaseKey {
        Self::phase_of_chain(ui, &self.chain_of_block(b))
    }

    /// Whether block `b` is in the body of a loop whose iterations are handed out on
    /// demand (a DYNAMIC, GUIDED or RUNTIME schedule; RUNTIME is libgomp's dynamic by
    /// default).
    fn dynamically_scheduled(&self, b: u32) -> bool {
        self.chain_of_block(b)
            .iter()
            .find(|c| c.directive.kind == ConstructKind::Loop)
            .and_then(|c| c.directive.clauses.schedule.as_ref())
            .is_some_and(|s| {
                matches!(
                    s.kind,
                    ScheduleKind::Dynamic | ScheduleKind::Guided | ScheduleKind::Runtime
                )
            })
    }

    /// The SECTION block `b` is in, if any.
    fn section_of_block(&self, b: u32) -> Option<u32> {
        self.chain_of_block(b)
            .iter()
            .find(|c| c.directive.kind == ConstructKind::Section)
            .map(|c| c.id)
    }

    /// Whether block `b` runs inside CRITICAL or ORDERED (one thread at a time).
    fn is_serialized(&self, b: u32) -> bool {
        self.chain_of_block(b).iter().any(|c| {
            matches!(
                c.directive.kind,
                ConstructKind::Critical | ConstructKind::Ordered
            )
        })
    }
}

/// Adds construct `c`'s overhead at its executions to its phase.
fn add_overhead(
    program: &ProgramProfile,
    run: &ThreadRun,
    ui: usize,
    s: &UnitConstructs<'_>,
    c: &Construct,
    m: &mut MachineAt<'_>,
    phases: &mut BTreeMap<PhaseKey, PhaseAcc>,
) {
    let p = run.threads.max(1);
    let Some(per_thread) = executions_per_thread(program, run, ui, c) else {
        return;
    };
    // Every thread passes most constructs; one thread runs a SINGLE or a SECTION.
    let executions = match c.directive.kind {
        ConstructKind::Single | ConstructKind::Sections | ConstructKind::Section => {
            per_thread.iter().sum()
        }
        _ => per_thread.iter().copied().fold(0.0, f64::max),
    };
    let key = UnitConstructs::phase_of_chain(ui, &s.chain_from(Some(c.id)));
    let d = &c.directive;
    let acc = phases.entry(key).or_insert_with(|| PhaseAcc::new(p));
    let own = matches!(key, PhaseKey::Construct(_, id) if id == c.id);
    if acc.line == 0 || own {
        acc.line = c.line;
        acc.kind = d.name.clone();
    }
    if own {
        acc.executions = executions;
    }
    // Critical sections and atomics cost on the entering thread's timeline.
    if matches!(d.kind, ConstructKind::Critical | ConstructKind::Ordered) {
        let mut o = critical_entry(m);
        // The shared data a critical section stores into comes from the core that
        // entered last, while the lock is held (two threads adding to a 256-bin
        // histogram in a critical section, a Zen 4: 0.19 s for 5M entries; the same
        // sections on a private counter 0.07 s, and 0.05 s without them).
        if d.kind == ConstructKind::Critical && stores_inside(program, ui, s, c) {
            o += m.added_by_threads("atomic_table").unwrap_or(0.0);
        }
        for (t, e) in per_thread.iter().enumerate().take(p as usize) {
            acc.work[t] += e * o;
            acc.serialized += e * o;
        }
        return;
    }
    if d.kind == ConstructKind::Atomic {
        let all = m.overhead("atomic", 0);
        let alone = m.overhead_alone("atomic").min(all);
        // Updates spread over a table wait for their line as often as another thread
        // wrote it last, not at every update as on one variable.
        let spread = c
            .spread_target
            .then(|| m.added_by_threads("atomic_table"))
            .flatten();
        acc.atomic_cost = AtomicCost {
            uncontended: alone,
            contended: spread.unwrap_or(all - alone),
        };
        for (t, e) in per_thread.iter().enumerate().take(p as usize) {
            acc.atomics[t] += e;
        }
        return;
    }
    let schedule = if d.kind == ConstructKind::Loop {
        if d.clauses.ordered && own {
            acc.ordered_chunk = ordered_chunk(program, ui, c, executions, p);
        }
        schedule_overhead(program, ui, c, executions, m)
    } else {
        0.0
    };
    acc.overhead += (synchronization_overhead(d, m) + schedule) * executions;
}

/// Whether a block of construct `c` (of unit `ui`) stores a value.
fn stores_inside(
    program: &ProgramProfile,
    ui: usize,
    s: &UnitConstructs<'_>,
    c: &Construct,
) -> bool {
    let Some(u) = program.units.get(ui) else {
        return false;
    };
    u.blocks.iter().enumerate().any(|(bi, b)| {
        s.chain_of_block(bi as u32).iter().any(|x| x.id == c.id)
            && b.counts.iter().any(|(op, k)| k > 0.0 && op.is_store())
    })
}

/// What entering a critical section costs its thread: EPCC's figure (the lock handed to
/// a thread that waits for it), and at least the uncontended entry plus the lock word's
/// line coming from the core that held it last, which an atomic update of a table slot
/// shows (`atomic_table`: the line moves as often as another thread took it last, as
/// with short sections entered from loops, where EPCC's section holds a delay).
/// What a take of the run-time library's lock adds when the threads take turns: the
/// machine's reseed by every thread in turn less a reseed alone (`library_lock`: the
/// lock's handover, its line and the generator's state moving between cores; on a Zen 5
/// guest 0.34 µs a reseed with two threads against 0.22 alone), else, in a profile made
/// before it was measured, a critical section's handover.
fn library_lock_handover(m: &mut MachineAt) -> f64 {
    match m.added_by_threads("library_lock") {
        Some(added) => added,
        None => (critical_entry(m) - m.overhead_alone("critical")).max(0.0),
    }
}

fn critical_entry(m: &mut MachineAt) -> f64 {
    let handed_over = m.overhead("critical", 0);
    let line = m.added_by_threads("atomic_table").unwrap_or(0.0);
    handed_over.max(m.overhead_alone("critical") + line)
}

/// The executions of construct `c` by each thread: those of its first block (for a
/// BARRIER, of the block after it).
fn executions_per_thread(
    program: &ProgramProfile,
    run: &ThreadRun,
    ui: usize,
    c: &Construct,
) -> Option<Vec<f64>> {
    let u = &program.units[ui];
    let first = match c.blocks.first() {
        Some(b) => b.0,
        None => {
            u.blocks
                .iter()
                .filter(|b| b.first_line > c.line)
                .min_by_key(|b| b.first_line)?
                .id
        }
    };
    let profile_count = u
        .blocks
        .get(first as usize)
        .and_then(|b| b.executions)
        .unwrap_or(0.0);
    Some(run.counts_of(ui as u32, first, profile_count))
}

/// What one execution of a construct costs every thread of the team: a region's fork and
/// join, a worksharing construct's barrier (less it with NOWAIT), a reduction.
fn synchronization_overhead(d: &augur_ir::omp::Directive, m: &mut MachineAt<'_>) -> f64 {
    let barrier = m.overhead("barrier", 0);
    let reduction = if d.clauses.reductions.is_empty() {
        0.0
    } else {
        (m.overhead("reduction", 0) - m.overhead("parallel", 0)).max(0.0)
    };
    let nowait = |o: f64| {
        if d.clauses.nowait {
            (o - barrier).max(0.0)
        } else {
            o
        }
    };
    let team = if d.parallel {
        m.overhead("parallel", 0)
    } else {
        0.0
    };
    match d.kind {
        ConstructKind::Parallel => m.overhead("parallel", 0) + reduction,
        ConstructKind::Loop if d.parallel => m.overhead("parallel_do", 0) + reduction,
        ConstructKind::Loop => nowait(m.overhead("do", 0)) + reduction,
        ConstructKind::Sections => team + nowait(m.overhead("do", 0)),
        ConstructKind::Single | ConstructKind::Workshare => team + nowait(m.overhead("single", 0)),
        ConstructKind::Barrier => barrier,
        _ => 0.0,
    }
}

/// The iterations of one chunk of ORDERED loop `c` at `p` threads: the schedule's chunk
/// (static or dynamic), a static schedule's share per thread without one; `None` for a
/// schedule whose chunks the runtime decides (guided, runtime, auto).
fn ordered_chunk(
    program: &ProgramProfile,
    ui: usize,
    c: &Construct,
    executions: f64,
    p: u32,
) -> Option<f64> {
    let given = |s: &augur_ir::omp::Schedule| {
        s.chunk
            .as_deref()
            .and_then(|c| c.trim().parse::<f64>().ok())
    };
    match &c.directive.clauses.schedule {
        None => Some(loop_iterations(program, ui, c) / executions.max(1.0) / p as f64),
        Some(s) => match s.kind {
            ScheduleKind::Static => Some(given(s).unwrap_or_else(|| {
                loop_iterations(program, ui, c) / executions.max(1.0) / p as f64
            })),
            ScheduleKind::Dynamic => Some(given(s).unwrap_or(1.0)),
            _ => None,
        },
    }
}

/// The iterations of the loop construct `c` shares, over all its executions.
fn loop_iterations(program: &ProgramProfile, ui: usize, c: &Construct) -> f64 {
    c.loops
        .last()
        .and_then(|l| program.units[ui].loops.iter().find(|x| x.id == l.0))
        .and_then(|l| l.iterations)
        .unwrap_or(0.0)
}

/// The schedule's overhead per execution of a loop beyond a static schedule's: per chunk
/// handed out (dynamic, static with a chunk), or per execution (guided).
fn schedule_overhead(
    program: &ProgramProfile,
    ui: usize,
    c: &Construct,
    executions: f64,
    m: &mut MachineAt<'_>,
) -> f64 {
    let Some(s) = &c.directive.clauses.schedule else {
        return 0.0;
    };
    let p = m.p as f64;
    let iterations = loop_iterations(program, ui, c);
    let per_thread = iterations / executions.max(1.0) / p;
    let chunk = s
        .chunk
        .as_deref()
        .and_then(|c| c.trim().parse::<f64>().ok())
        .unwrap_or(1.0)
        .max(1.0);
    let measured_iters = m.omp.map_or(128.0, |o| o.schedule_iterations as f64);
    let stat = m.overhead("static", 0);
    // The measured chunk nearest to this one.
    let nearest = |chunks: &[u32]| -> u32 {
        *chunks
            .iter()
            .min_by(|a, b| {
                ((**a as f64).ln() - chunk.ln())
                    .abs()
                    .total_cmp(&((**b as f64).ln() - chunk.ln()).abs())
            })
            .unwrap_or(&1)
    };
    match s.kind {
        ScheduleKind::Static | ScheduleKind::Auto if s.chunk.is_none() => 0.0,
        ScheduleKind::Static | ScheduleKind::Auto => {
            let per_chunk = (m.overhead("static_chunk", 1) - stat).max(0.0) / measured_iters;
            per_chunk * per_thread / chunk
        }
        ScheduleKind::Dynamic | ScheduleKind::Runtime => {
            let c0 = nearest(&[1, 4, 16, 64]);
            let per_chunk =
                (m.overhead("dynamic", c0) - stat).max(0.0) / (measured_iters / c0 as f64);
            per_chunk * per_thread / chunk
        }
        ScheduleKind::Guided => {
            let c0 = nearest(&[1, 4, 16]);
            (m.overhead("guided", c0) - stat).max(0.0)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ordered_chunks_finish_in_order() {
        // A chunk of one: the threads take turns, no bound beyond the serialized work.
        assert_eq!(ordered_bound(8.0, Some(1.0)), 0.0);
        // Chunks of 4: each overlaps one iteration with the chunk before it.
        assert_eq!(ordered_bound(8.0, Some(4.0)), 6.0);
        // A static schedule without a chunk (500 iterations a thread): nearly serial.
        assert!((ordered_bound(8.0, Some(500.0)) - 7.984).abs() < 1e-12);
        // Guided, runtime, auto: the runtime decides, no bound.
        assert_eq!(ordered_bound(8.0, None), 0.0);
    }

    fn overheads(rows: &[(&str, u32, f64)]) -> MachineOpenMp {
        MachineOpenMp {
            cores: 2,
            threads: vec![1, 2],
            delay_seconds: 2e-8,
            schedule_iterations: 128,
            overheads: rows
                .iter()
                .map(
                    |&(construct, threads, seconds)| augur_machine_profile::openmp::Overhead {
                        construct: construct.into(),
                        chunk: 0,
                        threads,
                        seconds,
                        half_width: 0.0,
                        observations: 10,
                    },
                )
                .collect(),
            bandwidths: vec![],
        }
    }

    /// The machine's parameters at two threads.
    fn two_threads(omp: &MachineOpenMp) -> MachineAt<'_> {
        MachineAt {
            omp: Some(omp),
            p: 2,
            extrapolated: vec![],
        }
    }

    #[test]
    fn what_threads_add_to_a_table_atomic_is_its_own_measure() {
        let measured = overheads(&[
            ("atomic", 1, 5e-9),
            ("atomic", 2, 45e-9),
            ("atomic_table", 1, 1e-9),
            ("atomic_table", 2, 17e-9),
        ]);
        let mut at_two = two_threads(&measured);
        let table = at_two.added_by_threads("atomic_table").unwrap();
        assert!((table - 16e-9).abs() < 1e-15, "{table}");
        assert!((at_two.added_by_threads("atomic").unwrap() - 40e-9).abs() < 1e-15);
        // Entering a critical section: at least the uncontended entry and the lock's line.
        let with_critical = overheads(&[
            ("critical", 1, 3e-9),
            ("critical", 2, 11e-9),
            ("atomic_table", 1, 1e-9),
            ("atomic_table", 2, 14e-9),
        ]);
        let mut at = two_threads(&with_critical);
        assert!((critical_entry(&mut at) - 16e-9).abs() < 1e-15);
        // A profile made before the table was measured says so: the caller keeps EPCC's.
        let older = overheads(&[("atomic", 1, 5e-9), ("atomic", 2, 45e-9)]);
        let mut before = two_threads(&older);
        assert_eq!(before.added_by_threads("atomic_table"), None);
    }

    #[test]
    fn an_uncontended_atomic_hides_behind_the_work_around_it() {
        // 5 ns alone, 32 ns with two threads: 27 ns of waiting for the line.
        let cost = AtomicCost {
            uncontended: 5e-9,
            contended: 27e-9,
        };
        // 17 ns of other work per update hides the locked update; the wait adds.
        assert!((cost.added(10.0, 170e-9) - 270e-9).abs() < 1e-18);
        // 1 ns of other work per update hides 1 ns of it.
        assert!((cost.added(10.0, 10e-9) - 310e-9).abs() < 1e-18);
        // One thread: nothing contends.
        let alone = AtomicCost {
            uncontended: 5e-9,
            contended: 0.0,
        };
        assert_eq!(alone.added(10.0, 170e-9), 0.0);
        assert_eq!(alone.added(0.0, 170e-9), 0.0);
    }
}
