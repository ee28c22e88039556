//! Which compiled loops a prediction replays on the model of the core
//! ([`crate::schedule`]). A replay is most of a large program's prediction (bookleaf at
//! -O2: 425 compiled loops, their replays 38% of the instructions of `augur predict`),
//! while most of those loops hold almost none of its time (405 of bookleaf's 425 hold
//! 0.5% of it). The loops that together hold at most [`UNREPLAYED_SHARE`] of the
//! program's operation time, smallest first, are priced by their analytic bounds alone
//! ([`crate::incore`]): the largest of their throughput bounds, chains and window, which
//! a replay only ever raises.
//!
//! The choice holds for the prediction under way on the calling thread while its
//! [`Unreplayed`] guard lives, so that the total, the loop table and the notes on what
//! the compiler did all price a loop the same way.

use crate::cost::CostTable;
use augur_program_profile::compiled::CompiledLoop;
use augur_program_profile::optreport::OptReport;
use augur_program_profile::ProgramProfile;
use std::cell::RefCell;
use std::collections::HashSet;

/// The share of a program's operation time (its AbOps at the machine's costs) that the
/// compiled loops priced without a replay may hold together. A replay raises a loop's
/// analytic time by a few tens of percent at most on the development set, so a
/// prediction moves by a small fraction of this.
pub const UNREPLAYED_SHARE: f64 = 0.002;

thread_local! {
    /// The compiled loops, by file and line, that the prediction under way on this
    /// thread prices without a replay.
    static UNREPLAYED: RefCell<HashSet<(String, u32)>> = RefCell::new(HashSet::new());
}

/// While it lives, the calling thread prices the compiled loops it was made with by
/// their analytic bounds alone; dropped, the choice before it holds again (a prediction
/// made inside another keeps the outer one's choice intact).
pub(crate) struct Unreplayed(HashSet<(String, u32)>);

impl Unreplayed {
    /// Installs the choice of [`negligible_loops`] for `program` on this thread.
    pub(crate) fn install(
        program: &ProgramProfile,
        table: &CostTable,
        report: Option<&OptReport>,
    ) -> Unreplayed {
        let loops = negligible_loops(program, table, report);
        Unreplayed(UNREPLAYED.with(|u| u.replace(loops)))
    }
}

impl Drop for Unreplayed {
    fn drop(&mut self) {
        let outer = std::mem::take(&mut self.0);
        UNREPLAYED.with(|u| *u.borrow_mut() = outer);
    }
}

/// Whether the prediction under way on this thread replays `cl`.
pub(crate) fn is_replayed(cl: &CompiledLoop) -> bool {
    UNREPLAYED.with(|u| {
        let u = u.borrow();
        u.is_empty() || !u.contains(&(cl.file.clone(), cl.line))
    })
}

/// The compiled loops of `report` that together hold at most [`UNREPLAYED_SHARE`] of
/// the operation time of `program` on `table`, smallest first (each loop's time: the
/// AbOps it runs in all its executions, inner loops included, at the machine's costs).
fn negligible_loops(
    program: &ProgramProfile,
    table: &CostTable,
    report: Option<&OptReport>,
) -> HashSet<(String, u32)> {
    let Some(report) = report.filter(|r| !r.compiled_loops.is_empty()) else {
        return HashSet::new();
    };
    let mut total = 0.0;
    let mut loops: Vec<(f64, (String, u32))> = vec![];
    for u in &program.units {
        for b in &u.blocks {
            total += b.executions.unwrap_or(0.0) * table.cost(&b.counts).seconds;
        }
        for l in &u.loops {
            if let Some(cl) = report.compiled_loop(&u.file, l.line) {
                let seconds = table.cost(&l.totals).seconds;
                loops.push((seconds, (cl.file.clone(), cl.line)));
            }
        }
    }
    loops.sort_by(|a, b| a.0.total_cmp(&b.0));
    let budget = UNREPLAYED_SHARE * total;
    let mut spent = 0.0;
    loops
        .into_iter()
        .take_while(|(seconds, _)| {
            spent += seconds;
            spent <= budget
        })
        .map(|(_, key)| key)
        .collect()
}
