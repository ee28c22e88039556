//! The execution predictor: `T = Σ C_i · P_i` with variance `Σ C_i² · σ²(P_i)`
//! (Saavedra-Barrera, eqs. 2.1 and 3.x), and the breakdowns that explain it.
//!
//! `C` is the dynamic AbOp vector of a program profile (or of any part of it: a block,
//! a line, a loop, a procedure, a region) and `P` the per-AbOp cost of a machine
//! profile. The uncertainty of the prediction is that of the parameters: each
//! parameter's standard error is recovered from its 90% interval and observation
//! count, and the errors of different parameters are taken as independent. It does
//! not include the model's own error (operations that overlap, memory effects),
//! which only the accuracy benchmark (`augur bench accuracy`) measures.
//!
//! The prediction is cut at its seams: [`crate::cost`] (the cost table),
//! [`crate::block`] (one block's price), `recurrence` (loop bodies and their
//! recurrences), `price` (every block of the program), [`crate::nest_time`]
//! (the memory term of loop nests) and [`crate::breakdown`] (the report rows); this
//! module puts them together.

use crate::block::{report_for, BlockPricing};
use crate::breakdown::{abop_rows, uncosted, PartRows};
use crate::interval::{model_error_sd, Interval};
use crate::memory::Overlap;
use crate::nest_time::{first_touches, memory_term};
use crate::price::price_blocks;
use augur_machine_profile::MachineProfile;
use augur_program_profile::optreport::OptReport;
use augur_program_profile::ProgramProfile;
use serde::Serialize;

pub use crate::block::{block_context, BlockContext, BRANCH_ABOPS};
pub use crate::breakdown::{AbOpRow, PartKind, PartRow, Uncosted};
pub use crate::cost::{
    optimizing, reassociating, Coefficients, CostStatus, CostTable, Estimate, Parameter, Z90,
};
pub use crate::nest_time::NestRow;

/// What the caller chooses about a prediction; everything else follows from the two
/// profiles.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PredictOptions {
    /// Whether branch mispredictions (`BRMP`, `BRMC`) are priced into the total even
    /// when the program profile only bounds them. Off by default: the bound counts every
    /// outcome against the most frequent direction, right for data-dependent tests on
    /// irregular data but several times too many for patterned branches that history
    /// predictors learn; the prediction reports it ([`Prediction::branch_seconds`]).
    pub branches: bool,
    /// Whether mispredictions the program profile simulated from its outcome sequences
    /// (its `branches` section) are priced. On by default.
    pub simulated_branches: bool,
    /// How operation and memory time combine in a loop nest (default
    /// [`Overlap::Ecm`]).
    pub overlap: Overlap,
}

impl Default for PredictOptions {
    fn default() -> PredictOptions {
        PredictOptions {
            branches: false,
            simulated_branches: true,
            overlap: Overlap::default(),
        }
    }
}

/// A prediction: total time, the AbOp report and the breakdowns.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct Prediction {
    /// The cost model: `chain` (every AbOp at its narrow-spectrum, dependent-chain cost,
    /// Saavedra's model) or `stream+chain` (blocks in loops at stream cost, bounded below
    /// by their recurrences at chain cost).
    pub model: &'static str,
    /// How operation and memory time combine in a loop nest.
    pub overlap: Overlap,
    /// Time the memory term adds to the operation time (Σ over nests of
    /// `combine(ops, mem) - ops`); included in `total`.
    pub memory_seconds: f64,
    /// Loop nests with a memory term, largest memory time first.
    pub memory: Vec<NestRow>,
    /// Pages the program touches for the first time (the counting run's minor page
    /// faults, in the machine's base pages; 0 when the program profile predates them).
    pub first_touch_pages: f64,
    /// Their time at the machine's measured cost of a page fault; in `total` unless the
    /// memory term is off (`--overlap none`).
    pub first_touch_seconds: f64,
    /// What the run pays outside the program's code: the machine's measured CPU time of a
    /// program that only prints a number (the loader, the run-time libraries' start, the
    /// exit; `[process]`); in `total`. 0 when the profile predates it.
    pub process_start_seconds: f64,
    /// Branch mispredictions of the run (`BRMP` and `BRMC` executions outside
    /// vectorized loops): simulated when [`Prediction::branches_simulated`], else an
    /// upper bound, exact only when every data-dependent branch is unpredictable.
    pub mispredictions: f64,
    /// Whether the program profile simulated them (a branch run).
    pub branches_simulated: bool,
    /// Whether they are in the total.
    pub branches_priced: bool,
    /// Their time at the machine's misprediction costs.
    pub branch_seconds: f64,
    /// Predicted time of the whole program (operations and memory term), with the
    /// standard deviation from the machine parameters' uncertainty alone.
    pub total: Estimate,
    /// The 90% interval of the total with the model's own error on real programs
    /// ([`crate::interval`]).
    pub interval: Interval,
    /// The machine parameter that widens the interval most, when the parameters widen it
    /// beyond a typical program's.
    pub widest_parameter: Option<crate::interval::WidestParameter>,
    /// Operations executed.
    pub operations: f64,
    /// Per AbOp executed, largest time first.
    pub abops: Vec<AbOpRow>,
    /// Procedures, largest first.
    pub procedures: Vec<PartRow>,
    /// Basic blocks, largest first.
    pub blocks: Vec<PartRow>,
    /// Source lines, largest first.
    pub lines: Vec<PartRow>,
    /// Loops, largest first.
    pub loops: Vec<PartRow>,
    /// Regions, largest first.
    pub regions: Vec<PartRow>,
    /// AbOps executed but without a cost (counted as 0).
    pub uncosted: Vec<Uncosted>,
    /// Warnings about the inputs (partial profile, uncosted AbOps, ...).
    pub warnings: Vec<String>,
    /// The loops an optimization augur does not model is likely to change
    /// ([`crate::risks`]).
    pub risks: crate::risks::Risks,
    /// What the compiler did to each innermost loop whose compiled code was read, in the
    /// program's loop order ([`crate::incore::describe`]), each procedure priced from its
    /// compiled straight-line body before its loops' (text starting "straight-line
    /// procedure, as compiled: ").
    pub compiled: Vec<CompiledNote>,
}

/// What the compiler did to one source loop, or to a straight-line procedure, in words.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct CompiledNote {
    /// The source file.
    pub file: String,
    /// The loop's line (a procedure's: the first line of its compiled body).
    pub line: u32,
    /// Its in-core seconds per source iteration (a procedure's: per call), when priced
    /// from its instructions.
    pub seconds_per_iteration: Option<f64>,
    /// "vector code (256-bit), 4 source iterations a compiled iteration, 11
    /// instructions, bound by the chain through %v0 (4.0 cycles a compiled iteration)".
    pub text: String,
}

/// An outer loop is replayed whole for its note only when it holds at least this share
/// of the predicted time: the replay is for comparison (the total prices its inner
/// loops), and replaying every outer loop took a fifth of a prediction's time.
const OUTER_NOTE_SHARE: f64 = 0.01;

/// The notes of the innermost loops of `program` whose compiled loops `report` holds,
/// and of the loops around them that hold [`OUTER_NOTE_SHARE`] of the time (`loops`).
fn compiled_notes(
    program: &ProgramProfile,
    table: &CostTable,
    report: Option<&OptReport>,
    loops: &[PartRow],
) -> Vec<CompiledNote> {
    let Some(r) = report else { return vec![] };
    let worth_replaying = |file: &str, line: u32| {
        loops.iter().any(|row| {
            row.file == file && row.first_line == line && row.time_share >= OUTER_NOTE_SHARE
        })
    };
    let mut out = vec![];
    for u in &program.units {
        if let Some((cl, t)) = crate::span::compiled_body(u, table, report) {
            out.push(CompiledNote {
                file: u.file.clone(),
                line: cl.line,
                seconds_per_iteration: Some(t.per_compiled_iteration),
                text: body_note(cl, &t, table),
            });
        }
        for l in &u.loops {
            if let Some(note) = crate::library_moves::note(table, r, u, l) {
                out.push(note);
                continue;
            }
            let Some(cl) = r.compiled_loop(&u.file, l.line) else {
                if !worth_replaying(&u.file, l.line) {
                    continue;
                }
                if let Some(o) = crate::recurrence::outer_replay(table, report, u, l) {
                    out.push(CompiledNote {
                        file: u.file.clone(),
                        line: l.line,
                        seconds_per_iteration: Some(o.seconds),
                        text: o.describe(),
                    });
                }
                continue;
            };
            let m = table.incore.as_ref();
            let cl =
                crate::recurrence::as_priced(cl, u, l).unwrap_or(std::borrow::Cow::Borrowed(cl));
            let t = crate::recurrence::priced_loop_time(table, &cl, l);
            out.push(CompiledNote {
                file: u.file.clone(),
                line: l.line,
                seconds_per_iteration: t.as_ref().map(|t| t.per_source_iteration),
                text: crate::incore::describe(&cl, t.as_ref(), m),
            });
        }
    }
    out
}

/// "straight-line procedure, as compiled: vector code (128-bit), 406 instructions, bound
/// by issue (83.1 cycles a call); its calls cost no less": the note of a procedure priced
/// from its compiled body ([`crate::span`]).
pub const BODY_NOTE: &str = "straight-line procedure, as compiled: ";

fn body_note(
    cl: &augur_program_profile::compiled::CompiledLoop,
    t: &crate::incore::LoopTime,
    table: &CostTable,
) -> String {
    let said = crate::incore::describe(cl, Some(t), table.incore.as_ref())
        .replace("one source iteration a compiled iteration, ", "")
        .replace("a compiled iteration", "a call");
    format!("{BODY_NOTE}{said}; its calls cost no less")
}

/// Predicts the time of a program profile on a machine.
pub fn predict(
    program: &ProgramProfile,
    machine: &MachineProfile,
    options: PredictOptions,
) -> Prediction {
    let table = CostTable::from_profile(machine);
    predict_with(program, &table, machine, options)
}

/// [`predict`] with a cost table built once (for workloads and benchmarks).
pub fn predict_with(
    program: &ProgramProfile,
    table: &CostTable,
    machine: &MachineProfile,
    options: PredictOptions,
) -> Prediction {
    let overlap = options.overlap;
    let branches_simulated = program.branches.is_some();
    let pricing = pricing_for(program, table, options);
    let report = report_for(program, machine);
    let _unreplayed = crate::replayed::Unreplayed::install(program, table, report);
    // The memory term's misses are counted while the blocks are priced.
    let (priced, counted) = std::thread::scope(|s| {
        let counting = s.spawn(|| crate::nest_time::counted_misses(program, machine, overlap));
        let priced = price_blocks(program, pricing, report);
        let counted = counting
            .join()
            .unwrap_or_else(|panicked| std::panic::resume_unwind(panicked));
        (priced, counted)
    });
    let mut all = Coefficients::default();
    for c in priced.blocks.iter().flatten() {
        all.add(c);
    }
    let mut total = table.cost_of(&all);
    let whole = total.seconds;
    let seconds = table.seconds_by_abop(&all);
    let abops = abop_rows(program, table, &all, &seconds, whole);
    let uncosted = uncosted(&abops, machine, pricing.branches_priced);
    let parts = PartRows::new(program, table, &priced, &all, &seconds, whole);
    let loops = parts.loops();
    let notes = compiled_notes(program, table, report, &loops);
    let warnings = warnings(program, machine, table, report, &uncosted, overlap);
    let (memory, memory_extra) =
        memory_term(program, machine, table, &priced, overlap, counted.as_ref());
    let contested = match (&counted, &program.locality, &machine.memory) {
        (Some(c), Some(loc), Some(mem)) => crate::memory::contested_seconds(c, loc, mem),
        _ => 0.0,
    };
    total.seconds += memory_extra;
    let (first_touch_pages, first_touch_seconds) = first_touches(program, machine, overlap);
    total.seconds += first_touch_seconds;
    let process_start_seconds = machine.process.as_ref().map_or(0.0, |p| p.start_seconds());
    total.seconds += process_start_seconds;
    let compiled = table.incore.is_some() && report.is_some_and(|r| !r.compiled_loops.is_empty());
    let by_abop: Vec<(augur_ir::AbOp, f64)> = abops.iter().map(|r| (r.abop, r.seconds)).collect();
    let irregular = crate::interval::irregular_share(&by_abop, total.seconds);
    let sd = model_error_sd(&machine.provenance.fflags, compiled, irregular);
    let mut interval = Interval::new(&total, sd)
        .with_counts(crate::interval::count_log_sd(program))
        .with_contested(crate::interval::contested_log_sd(contested, total.seconds));
    interval.irregular_share = if compiled { irregular } else { 0.0 };
    Prediction {
        overlap,
        memory_seconds: memory_extra,
        memory,
        first_touch_pages,
        first_touch_seconds,
        process_start_seconds,
        mispredictions: priced.mispredictions,
        branches_simulated,
        branches_priced: pricing.branches_priced,
        branch_seconds: priced.branch_seconds,
        widest_parameter: crate::interval::widest_parameter(table, &all, &total, &interval),
        interval,
        model: if table.has_stream() {
            "stream+chain"
        } else {
            "chain"
        },
        total,
        operations: program.operations,
        abops,
        procedures: parts.procedures(),
        blocks: parts.blocks(),
        lines: parts.lines(),
        loops,
        regions: parts.regions(),
        uncosted,
        warnings,
        risks: crate::risks::risks(program, machine, report),
        compiled: notes,
    }
}

/// How a prediction of `program` with `options` prices its blocks.
pub(crate) fn pricing_for<'a>(
    program: &ProgramProfile,
    table: &'a CostTable,
    options: PredictOptions,
) -> BlockPricing<'a> {
    BlockPricing {
        table,
        branches_priced: options.branches
            || (options.simulated_branches && program.branches.is_some()),
    }
}

/// Warnings about the inputs: a partial profile, uncosted AbOps, an optimization
/// report for another compiler (or none), no memory characterization.
fn warnings(
    program: &ProgramProfile,
    machine: &MachineProfile,
    table: &CostTable,
    report: Option<&OptReport>,
    uncosted: &[Uncosted],
    overlap: Overlap,
) -> Vec<String> {
    let mut warnings = vec![];
    // A machine transcribed from a publication cannot be measured again.
    let historical = !machine.provenance.source.is_empty();
    let advice = |measure: &str, published: &str| {
        if historical {
            format!(
                "{published}; a historical machine, {}",
                machine.provenance.source
            )
        } else {
            measure.to_string()
        }
    };
    if program.partial {
        let why = program.partial_reason().map_or_else(
            || String::from("the counting run did not finish"),
            |w| format!("the counting run did not finish: {w}"),
        );
        warnings.push(format!(
            "the program profile is partial ({why}); the prediction covers only what ran"
        ));
    }
    if !uncosted.is_empty() {
        let share_sum: f64 = uncosted.iter().map(|u| u.operation_share).sum();
        let names: Vec<String> = uncosted
            .iter()
            .map(|u| format!("{} ({})", u.abop, u.machine_status))
            .collect();
        warnings.push(format!(
            "{} AbOp(s) the program executes have no cost in the machine profile and count as 0: {} ({:.2}% of the operations); {}",
            uncosted.len(),
            names.join(", "),
            100.0 * share_sum,
            advice(
                "measure them with `augur characterize --only ...`",
                "the publication gives no cost for them"
            )
        ));
    }
    match (&program.optimization, report) {
        (Some(r), None) if historical => warnings.push(format!(
            "the program's optimization report is for {} {}: vectorization and inlining are not taken into account on {}",
            r.compiler,
            r.fflags.join(" "),
            advice("", "this machine's compiler")
        )),
        (Some(r), None) => warnings.push(format!(
            "the program's optimization report is for {} {}, the machine's compiler is {} {}: \
             vectorization and inlining are not taken into account (analyze the program with \
             --fc {} --fflags \"{}\" to use them)",
            r.compiler,
            r.fflags.join(" "),
            machine.provenance.compiler,
            machine.provenance.fflags,
            machine.provenance.compiler,
            machine.provenance.fflags
        )),
        (None, _) if table.has_vector() => warnings.push(
            "the program profile has no optimization report (made by an older augur): \
             vectorized loops are priced as scalar loops and inlined calls keep their cost; \
             re-run `augur analyze`"
                .to_string(),
        ),
        _ => {}
    }
    if program.locality.is_some() && machine.memory.is_none() && overlap != Overlap::None {
        warnings.push(format!(
            "the machine profile has no [memory] section: no memory-hierarchy term ({})",
            advice(
                "measure it with `augur characterize --memory -o MACHINE.toml`",
                "the publication has no memory characterization"
            )
        ));
    }
    warnings
}
