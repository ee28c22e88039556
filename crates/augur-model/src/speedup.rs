//! What optimization does to a program, loop by loop (Saavedra-Barrera's chapter 4,
//! §4.4.6-4.4.9): one program profile priced on several machine profiles of the same CPU
//! with different compiler settings (`-O0`, `-O1`, `-O2`, `-O3`), each loop's predicted
//! time and speedup over the first setting, and why.
//!
//! The reasons come from four places, kept apart because the prediction contains some
//! of them and not others:
//!
//! * the **cost tables** (in the prediction): the AbOps whose time in the loop changes
//!   most between the settings, and the memory term; each setting's costs were measured
//!   with its flags, so register allocation, address arithmetic and the like are in them
//!   (Saavedra's *invariant* optimizations);
//! * the program's **optimization report** (in the prediction for the setting it was
//!   made with): vectorized, completely unrolled, inlined, if-converted;
//! * the loop's stored **opportunities** (`loops[].opportunities`: invariants,
//!   repeated subexpressions, badly ordered nests; not in the prediction: augur counts
//!   the code as written, Saavedra's *non-invariant* optimizations), each with the
//!   detection tables' ratings of its optimization;
//! * the **detection tables** (`[optimizations]`): the ratings that differ between the
//!   settings, named for a loop when its code gives the optimization something to do.

use crate::block::report_for;
use crate::breakdown::loop_name;
use crate::machine::LoadedMachine;
use crate::nest_time::memory_term;
use crate::predict::{pricing_for, PredictOptions};
use crate::price::{inside_loop, price_blocks};
use crate::risks::{opportunity_groups, optimization_of, removed_share, what, Table};
use augur_ir::{AbOp, AbOpCounts};
use augur_machine_profile::optimizations::{optimization_words, OPTIMIZATIONS};
use augur_program_profile::optreport::OptReport;
use augur_program_profile::{LoopProfile, ProgramProfile, UnitProfile};
use serde::Serialize;

/// AbOps shown per loop.
const ABOPS_SHOWN: usize = 4;

/// Smallest share of a loop's operations an optimization found in its code must
/// concern to be named.
const MIN_SHARE: f64 = 0.001;

/// One compiler setting (machine profile) of the comparison.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct Setting {
    /// The machine profile's name.
    pub name: String,
    /// Its compiler and flags.
    pub setup: String,
    /// Whether it has a detection table (`[optimizations]`).
    pub detection_table: bool,
    /// Whether the program's optimization report is this setting's (then the
    /// prediction uses it: vectorized loops, complete unrolling, inlining).
    pub report: bool,
    /// The program's predicted time, seconds.
    pub seconds: f64,
    /// The first setting's time over this one's.
    pub speedup: Option<f64>,
}

/// One optimization (and scope) with each setting's rating.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct Ratings {
    /// The table's key (`code_motion`).
    pub optimization: String,
    /// Its name (`code motion of invariants`).
    pub words: String,
    /// `local`, `global` or `-`.
    pub scope: String,
    /// Per setting: the rating, `None` without a detection table.
    pub ratings: Vec<Option<String>>,
}

/// Where a reason was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Evidence {
    /// An opportunity stored in the program profile (`augur_ir::opportunities`).
    Opportunity,
    /// The compiler's optimization report in the program profile.
    Report,
    /// The loop's operations give the optimization something to do (array addresses,
    /// calls, branches, scalar arithmetic).
    Code,
}

/// One optimization that accounts for (part of) a loop's speedup.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct Reason {
    /// The optimization and each setting's rating of it.
    #[serde(flatten)]
    pub ratings: Ratings,
    /// Where it was found.
    pub evidence: Evidence,
    /// Whether the prediction contains its effect (through the cost tables or the
    /// report); `false`: the real speedup may be larger than predicted.
    pub modeled: bool,
    /// Share of the loop's operations it concerns (removes, for opportunities).
    pub share: Option<f64>,
    /// What in the loop, in a sentence.
    pub what: String,
}

/// One AbOp's time in a loop under each setting.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct AbOpChange {
    /// The AbOp.
    pub abop: AbOp,
    /// Its executions in the loop (nested loops included).
    pub executions: f64,
    /// Its time in the loop per setting, seconds.
    pub seconds: Vec<f64>,
    /// Its share of the loop's time change from the first setting to the last
    /// (operations only; negative when it moves against the change).
    pub share_of_change: Option<f64>,
}

/// One loop under every setting.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct LoopSpeedup {
    /// The loop, as the `--by loop` rows name it.
    pub name: String,
    /// Its file.
    pub file: String,
    /// Line of its DO.
    pub first_line: u32,
    /// Last line of its blocks.
    pub last_line: u32,
    /// Predicted time per setting (operations and the memory term of the nests inside
    /// it), seconds.
    pub seconds: Vec<f64>,
    /// The memory term's part of it per setting.
    pub memory_seconds: Vec<f64>,
    /// The first setting's time over each one's (`None` when a time is zero).
    pub speedups: Vec<Option<f64>>,
    /// The AbOps whose time changes most between the first and the last setting.
    pub abops: Vec<AbOpChange>,
    /// The optimizations that account for the speedup, the stored opportunities
    /// (largest share) first.
    pub reasons: Vec<Reason>,
}

/// The per-loop explanation of a program's speedup between compiler settings.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct SpeedupExplanation {
    /// The settings, the first the base.
    pub settings: Vec<Setting>,
    /// The detection-table rows whose ratings differ between the settings.
    pub rating_changes: Vec<Ratings>,
    /// The loops, longest under the base setting first.
    pub loops: Vec<LoopSpeedup>,
    /// What the reader should know (settings without a table, whose report it is).
    pub notes: Vec<String>,
}

/// One loop's price on one machine.
#[derive(Debug, Clone, Default)]
struct LoopCost {
    operations: f64,
    memory: f64,
    abops: AbOpCounts,
}

/// The per-loop explanation of `program` on `machines` (the first the base), the
/// `top` loops by their time under the base setting. No machines, no loops.
pub fn explain(
    program: &ProgramProfile,
    machines: &[LoadedMachine],
    options: PredictOptions,
    top: usize,
) -> SpeedupExplanation {
    if machines.is_empty() {
        return SpeedupExplanation {
            settings: vec![],
            rating_changes: vec![],
            loops: vec![],
            notes: vec![],
        };
    }
    let costs: Vec<Vec<Vec<LoopCost>>> = machines
        .iter()
        .map(|m| loop_costs(program, m, options))
        .collect();
    let settings = settings(program, machines, options);
    let mut loops = vec![];
    for (ui, u) in program.units.iter().enumerate() {
        for (li, l) in u.loops.iter().enumerate() {
            let per: Vec<&LoopCost> = costs.iter().map(|c| &c[ui][li]).collect();
            if per[0].operations + per[0].memory > 0.0 {
                loops.push(one_loop(program, machines, u, l, &per));
            }
        }
    }
    loops.sort_by(|a, b| b.seconds[0].total_cmp(&a.seconds[0]));
    loops.truncate(top);
    SpeedupExplanation {
        notes: notes(&settings),
        rating_changes: rating_changes(machines),
        settings,
        loops,
    }
}

/// Each machine as a setting, with the program's predicted total.
fn settings(
    program: &ProgramProfile,
    machines: &[LoadedMachine],
    options: PredictOptions,
) -> Vec<Setting> {
    let totals: Vec<f64> = machines
        .iter()
        .map(|m| m.predict(program, options).total.seconds)
        .collect();
    machines
        .iter()
        .zip(&totals)
        .map(|(m, &t)| Setting {
            name: m.name.clone(),
            setup: m.setup(),
            detection_table: m.profile.optimizations.is_some(),
            report: report_for(program, &m.profile).is_some(),
            seconds: t,
            speedup: ratio(totals[0], t),
        })
        .collect()
}

/// `base / x`, `None` unless both are positive.
fn ratio(base: f64, x: f64) -> Option<f64> {
    (base > 0.0 && x > 0.0).then(|| base / x)
}

/// Every loop of the program priced on `m`: `[unit][loop]`.
fn loop_costs(
    program: &ProgramProfile,
    m: &LoadedMachine,
    options: PredictOptions,
) -> Vec<Vec<LoopCost>> {
    let table = &m.table;
    let report = report_for(program, &m.profile);
    let priced = price_blocks(program, pricing_for(program, table, options), report);
    let (nests, _) = memory_term(program, &m.profile, table, &priced, options.overlap, None);
    let mut out = Vec::with_capacity(program.units.len());
    for (ui, u) in program.units.iter().enumerate() {
        let unit = u
            .loops
            .iter()
            .map(|l| {
                let sum = priced.loop_sum(table, ui, u, l);
                let memory = nests
                    .iter()
                    .filter(|n| n.unit_index == ui && inside_loop(u, Some(n.loop_id), l.id))
                    .map(|n| n.combined_seconds - n.operations_seconds)
                    .sum();
                LoopCost {
                    operations: table.cost_of(&sum.work).seconds,
                    memory,
                    abops: table.seconds_by_abop(&sum.work),
                }
            })
            .collect();
        out.push(unit);
    }
    out
}

/// One loop's row: times, speedups, AbOps and reasons.
fn one_loop(
    program: &ProgramProfile,
    machines: &[LoadedMachine],
    u: &UnitProfile,
    l: &LoopProfile,
    per: &[&LoopCost],
) -> LoopSpeedup {
    let seconds: Vec<f64> = per.iter().map(|c| c.operations + c.memory).collect();
    let last_line = u
        .blocks
        .iter()
        .filter(|b| inside_loop(u, b.in_loop, l.id))
        .map(|b| b.last_line)
        .fold(l.line, u32::max);
    let mut reasons = opportunity_reasons(machines, u, l);
    reasons.extend(report_reasons(program, machines, u, l, last_line));
    let reported = machines
        .iter()
        .any(|m| report_for(program, &m.profile).is_some());
    reasons.extend(code_reasons(machines, l, &reasons, reported));
    LoopSpeedup {
        name: loop_name(u, l),
        file: u.file.clone(),
        first_line: l.line,
        last_line,
        speedups: seconds.iter().map(|&t| ratio(seconds[0], t)).collect(),
        memory_seconds: per.iter().map(|c| c.memory).collect(),
        seconds,
        abops: abop_changes(l, per),
        reasons,
    }
}

/// The AbOps whose time in the loop changes most from the first setting to the last.
fn abop_changes(l: &LoopProfile, per: &[&LoopCost]) -> Vec<AbOpChange> {
    let (first, last) = (per[0], per[per.len() - 1]);
    let change = first.operations - last.operations;
    let mut rows: Vec<AbOpChange> = augur_ir::abop::ALL
        .iter()
        .filter(|&&op| per.iter().any(|c| c.abops.get(op) > 0.0))
        .map(|&op| AbOpChange {
            abop: op,
            executions: l.totals.get(op),
            seconds: per.iter().map(|c| c.abops.get(op)).collect(),
            share_of_change: (change.abs() > 0.0)
                .then(|| (first.abops.get(op) - last.abops.get(op)) / change),
        })
        .collect();
    let moved = |r: &AbOpChange| (r.seconds[0] - r.seconds[r.seconds.len() - 1]).abs();
    rows.sort_by(|a, b| moved(b).total_cmp(&moved(a)));
    rows.retain(|r| moved(r) > 0.0);
    rows.truncate(ABOPS_SHOWN);
    rows
}

/// Each setting's rating of `key` in `scope`.
fn ratings(machines: &[LoadedMachine], key: &str, scope: &str) -> Ratings {
    Ratings {
        optimization: key.to_string(),
        words: optimization_words(key).to_string(),
        scope: scope.to_string(),
        ratings: machines
            .iter()
            .map(|m| {
                Table {
                    machine: &m.profile,
                }
                .rating(key, scope)
            })
            .collect(),
    }
}

impl Ratings {
    /// Whether the settings may differ in it: some rating differs, or is unknown.
    pub fn differ(&self) -> bool {
        let first = &self.ratings[0];
        first.is_none() || self.ratings.iter().any(|r| r != first)
    }

    /// Whether any setting has a rating.
    fn any_known(&self) -> bool {
        self.ratings.iter().any(Option::is_some)
    }
}

/// The loop's stored opportunities whose optimization the settings rate differently (or
/// that no table rates): their effect is not in the prediction.
fn opportunity_reasons(
    machines: &[LoadedMachine],
    u: &UnitProfile,
    l: &LoopProfile,
) -> Vec<Reason> {
    let mut out: Vec<Reason> = opportunity_groups(l)
        .into_iter()
        .filter_map(|(kind, scope, ops)| {
            let (key, _) = optimization_of(kind);
            let r = ratings(machines, key, scope);
            let share = removed_share(u, l, &ops);
            r.differ().then(|| Reason {
                ratings: r,
                evidence: Evidence::Opportunity,
                modeled: false,
                share,
                what: what(kind, &ops, share),
            })
        })
        .collect();
    out.sort_by(|a, b| b.share.unwrap_or(0.0).total_cmp(&a.share.unwrap_or(0.0)));
    out
}

/// What the program's report (made with one of the settings) says about the loop.
fn report_reasons(
    program: &ProgramProfile,
    machines: &[LoadedMachine],
    u: &UnitProfile,
    l: &LoopProfile,
    last: u32,
) -> Vec<Reason> {
    let Some((m, r)) = machines
        .iter()
        .find_map(|m| report_for(program, &m.profile).map(|r| (m, r)))
    else {
        return vec![];
    };
    let mut found: Vec<(&str, bool, String)> = report_findings(r, &u.file, l.line, last);
    found.extend(r.transformed_at(&u.file, l.line).into_iter().map(|t| {
        let key = if t.what.contains("interchange") {
            "interchange"
        } else {
            "unrolling"
        };
        (
            key,
            false,
            format!("the loop {} (not modeled: counted as written)", t.what),
        )
    }));
    found
        .into_iter()
        .map(|(key, modeled, said)| Reason {
            ratings: ratings(machines, key, "-"),
            evidence: Evidence::Report,
            modeled,
            share: None,
            what: format!("{}'s report: {said}", m.setup()),
        })
        .collect()
}

/// What the report says was done in `file:first..=last`, as (key, modeled, words).
fn report_findings(
    r: &OptReport,
    file: &str,
    first: u32,
    last: u32,
) -> Vec<(&'static str, bool, String)> {
    let mut out = vec![];
    if r.vectorized_within(file, first, last) {
        out.push((
            "vectorization",
            true,
            "vectorized (priced at the vectorized stream costs)".to_string(),
        ));
    }
    if r.unrolled_within(file, first, last) {
        out.push((
            "unrolling",
            true,
            "unrolled completely (its loop control dropped)".to_string(),
        ));
    }
    let inlined = r.inlined_within(file, first, last);
    if inlined > 0 {
        out.push((
            "inlining",
            true,
            format!("{inlined} call site(s) inlined (their call overhead dropped)"),
        ));
    }
    let selects = r.branchless_within(file, first, last);
    if selects > 0 {
        out.push((
            "if_conversion",
            true,
            format!("{selects} line(s) without a conditional jump (their mispredictions dropped)"),
        ));
    }
    out
}

/// Optimizations the loop's operations give something to do, rated differently by the
/// settings' tables (not already named by an opportunity or the report). With the report
/// of one of the settings (`reported`), what only a report shows (vectorized, inlined,
/// unrolled, if-converted) is left to it: its silence about the loop is an answer.
fn code_reasons(
    machines: &[LoadedMachine],
    l: &LoopProfile,
    named: &[Reason],
    reported: bool,
) -> Vec<Reason> {
    let whole = l.totals.total();
    if whole <= 0.0 {
        return vec![];
    }
    code_findings(l)
        .into_iter()
        .filter(|(_, _, modeled, _)| *modeled || !reported)
        .filter(|(key, ..)| !named.iter().any(|r| r.ratings.optimization == *key))
        .filter_map(|(key, ops, modeled, said)| {
            let r = ratings(machines, key, "-");
            let worth = ops / whole >= MIN_SHARE;
            (worth && r.any_known() && r.differ()).then(|| Reason {
                ratings: r,
                evidence: Evidence::Code,
                modeled,
                share: Some(ops / whole),
                what: said.to_string(),
            })
        })
        .collect()
}

/// The operations of the loop each optimization works on, as (key, executions,
/// modeled, words).
fn code_findings(l: &LoopProfile) -> Vec<(&'static str, f64, bool, &'static str)> {
    let sum = |f: &dyn Fn(AbOp) -> bool| -> f64 {
        l.totals
            .iter()
            .filter(|(op, _)| f(*op))
            .map(|(_, n)| n)
            .sum()
    };
    let scalar = sum(&|op| {
        let g = op.info().group;
        g.ends_with(", local") || g.ends_with(", global")
    });
    let multi = sum(&|op| matches!(op, AbOp::ARR2 | AbOp::ARR3 | AbOp::ARR4));
    let arrays = sum(&|op| op.info().group == "arrays");
    let powers = sum(&|op| op.info().meaning.starts_with("Exponent X**I"));
    let calls = sum(&|op| op == AbOp::PROC);
    let branches = sum(&|op| matches!(op, AbOp::BRMP | AbOp::BRMC));
    let short = l.mean_trips.is_some_and(|t| t <= 8.0);
    let loop_ops = if short { l.totals.total() } else { 0.0 };
    vec![
        ("register_allocation", scalar, true, "arithmetic and stores whose operands a register can hold: each setting's costs were measured with its register allocation"),
        ("address_collapsing", multi, true, "addresses of multi-dimensional array elements: each setting's costs were measured with its address arithmetic"),
        ("strength_reduction", powers, true, "powers with an integer exponent: each setting's costs were measured with its expansion"),
        ("vectorization", arrays, false, "array references: augur prices a loop vectorized only where the report of that setting says so"),
        ("inlining", calls, false, "calls: their overhead is dropped only where the report of that setting says they were inlined"),
        ("if_conversion", branches, false, "data-dependent branches: their mispredictions drop only where the report of that setting says so"),
        ("unrolling", loop_ops, false, "a short loop (8 trips or fewer per entry): complete unrolling is modeled only from the report"),
    ]
    .into_iter()
    .filter(|(_, n, ..)| *n > 0.0)
    .collect()
}

/// The detection-table rows whose ratings differ between the settings (none when no
/// setting has a table).
fn rating_changes(machines: &[LoadedMachine]) -> Vec<Ratings> {
    let mut keys: Vec<(String, String)> = vec![];
    for m in machines {
        for s in m.profile.optimizations.iter().flat_map(|o| &o.summaries) {
            let k = (s.optimization.clone(), s.scope.clone());
            if !keys.contains(&k) {
                keys.push(k);
            }
        }
    }
    let order = |k: &str| OPTIMIZATIONS.iter().position(|(o, _)| *o == k);
    keys.sort_by_key(|(k, s)| (order(k), s != "local"));
    keys.iter()
        .map(|(k, s)| ratings(machines, k, s))
        .filter(Ratings::differ)
        .collect()
}

/// Settings without a detection table, and whose report the program carries.
fn notes(settings: &[Setting]) -> Vec<String> {
    let mut notes = vec![];
    let without: Vec<&str> = settings
        .iter()
        .filter(|s| !s.detection_table)
        .map(|s| s.name.as_str())
        .collect();
    if !without.is_empty() {
        notes.push(format!(
            "no optimization detection table in {}: their ratings show as `-`; the cost tables \
             still explain the predicted speedup (`augur characterize --optimizations` adds one)",
            without.join(", ")
        ));
    }
    match settings.iter().find(|s| s.report) {
        Some(s) => notes.push(format!(
            "the program's optimization report is {}'s ({}): vectorization, complete \
             unrolling, inlining and if-conversion are modeled for that setting only",
            s.name, s.setup
        )),
        None => notes.push(
            "the program's optimization report is for none of these settings: what the \
             compiler vectorized or inlined is modeled for none (analyze the program with one \
             setting's --fc and --fflags)"
                .to_string(),
        ),
    }
    notes
}
