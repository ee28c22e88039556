//! Loops that wait for another thread by spinning (busy-wait synchronization): a
//! `DO WHILE (flag(me-1) < stamp)` around an `!$OMP FLUSH`, an `IF (...) EXIT` loop, a
//! labelled `GOTO` back to a test of a shared flag.
//!
//! Such a loop writes nothing and calls nothing: on one thread it could never end, so
//! what ends it is another thread's store. Its iterations in a counting run are waiting,
//! their number set by the counting run's own timing (a slower instrumented thread makes
//! its neighbour spin longer), not work; the OpenMP predictor leaves them out of the
//! threads' work and lets the wait follow from the other threads' work.

use crate::program::{LoopId, LoopKind, StmtKind, Unit};

/// Whether loop `id` of `unit` is a busy wait: a conditional loop (DO WHILE, a DO that
/// EXITs, a backward GOTO) with no loop inside, whose statements only test, jump and
/// carry directives (a FLUSH): no assignment, call, I/O or allocation.
pub fn is_busy_wait(unit: &Unit, id: LoopId) -> bool {
    let Some(l) = unit.loops.get(id.0 as usize) else {
        return false;
    };
    if !matches!(l.kind, LoopKind::While | LoopKind::Forever | LoopKind::Goto) {
        return false;
    }
    let mut tests = l.kind == LoopKind::While;
    for b in unit
        .blocks
        .iter()
        .filter(|b| unit.loop_within(b.in_loop, id))
    {
        for &s in &b.stmts {
            let Some(st) = unit.stmts.get(s as usize) else {
                return false;
            };
            match &st.kind {
                StmtKind::Do { loop_id, .. } if *loop_id == id => {}
                StmtKind::If { .. } | StmtKind::LogicalIf { .. } | StmtKind::Exit => tests = true,
                StmtKind::Directive { .. }
                | StmtKind::Continue
                | StmtKind::EndConstruct
                | StmtKind::Else
                | StmtKind::Cycle
                | StmtKind::Goto { .. }
                | StmtKind::NonExecutable => {}
                _ => return false,
            }
        }
    }
    tests
}

/// The busy-wait loops of `unit` ([`is_busy_wait`]).
pub fn busy_wait_loops(unit: &Unit) -> Vec<LoopId> {
    unit.loops
        .iter()
        .map(|l| l.id)
        .filter(|&id| is_busy_wait(unit, id))
        .collect()
}
