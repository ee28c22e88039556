//! MPI call sites: in an MPI analysis every CALL of a traced MPI routine gets a number,
//! and the rewritten source calls `augur_mpi_site(N)` just before it; the tracer
//! (`mpitrace.c`) reads the number at the call and writes it with the event, and the
//! reader turns it into the CALL's file and line.
//!
//! Why rewriting rather than the caller's return address (mapped to a line by the debug
//! information): the rewriting already knows every CALL's file and line in the user's own
//! sources, exactly, without debug information in the build, without `addr2line` and
//! the load address of a position-independent executable, and without the address
//! pointing elsewhere when the compiler turns a last CALL into a jump (a tail call) or
//! moves code. A call from code augur did not rewrite (a library) has no site: the tracer
//! forgets the number at each event.

use super::rewriting::Edit;
use super::Plan;
use augur_ir::{FileId, Program, StmtKind, UnitKind};

/// The MPI routines the tracer records (lower case): a site is planned for their CALLs
/// only, so that a number set before an untraced call cannot reach a later traced call.
pub const TRACED_MPI_CALLS: &[&str] = &[
    "mpi_init",
    "mpi_init_thread",
    "mpi_finalize",
    "mpi_send",
    "mpi_ssend",
    "mpi_recv",
    "mpi_isend",
    "mpi_irecv",
    "mpi_sendrecv",
    "mpi_wait",
    "mpi_waitall",
    "mpi_waitany",
    "mpi_waitsome",
    "mpi_test",
    "mpi_testall",
    "mpi_testany",
    "mpi_testsome",
    "mpi_barrier",
    "mpi_bcast",
    "mpi_reduce",
    "mpi_allreduce",
    "mpi_gather",
    "mpi_scatter",
    "mpi_allgather",
    "mpi_alltoall",
    "mpi_gatherv",
    "mpi_scatterv",
    "mpi_allgatherv",
    "mpi_alltoallv",
    "mpi_reduce_scatter",
    "mpi_comm_split",
    "mpi_comm_dup",
    "mpi_cart_sub",
];

/// Numbers the traced MPI CALLs of `program` (site `n` is `plan.mpi_sites[n - 1]`) and
/// plans the `CALL augur_mpi_site(n)` before each; `texts`: the parsed text of each
/// source (units without one are not rewritten, so they get no sites).
pub fn plan_mpi_sites(plan: &mut Plan, program: &Program, texts: &[Option<&str>]) {
    for u in &program.units {
        if matches!(u.kind, UnitKind::Module | UnitKind::BlockData)
            || texts.get(u.source as usize).copied().flatten().is_none()
        {
            continue;
        }
        for (si, stmt) in u.stmts.iter().enumerate() {
            let StmtKind::Call { name, .. } = &stmt.kind else {
                continue;
            };
            if !TRACED_MPI_CALLS.contains(&name.as_str()) {
                continue;
            }
            plan.mpi_sites
                .push((stmt.span.start.file, stmt.span.start.line));
            let text = format!("call augur_mpi_site({})", plan.mpi_sites.len());
            let guarded = si > 0 && matches!(u.stmts[si - 1].kind, StmtKind::LogicalIf { .. });
            // After the block's counter (order 1), which keeps the statement's label: a
            // GOTO to the label still passes the site.
            let edit = if guarded {
                Edit::LogicalIf {
                    guard: stmt.text,
                    text,
                }
            } else {
                Edit::Before {
                    line: stmt.text.line,
                    col: stmt.text.col,
                    take_label: false,
                    text,
                    order: 2,
                }
            };
            plan.edits.entry(u.source).or_default().push(edit);
        }
    }
    super::terminals::block_dos(program, texts, &mut plan.edits);
}

/// A site's file and line, for the reader of the traces.
pub fn site_of(plan: &Plan, n: u32) -> Option<(FileId, u32)> {
    plan.mpi_sites.get((n as usize).checked_sub(1)?).copied()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_traced_call_gets_its_number_just_before_it() {
        let dir = tempfile::tempdir().unwrap();
        let src = dir.path().join("s.f90");
        std::fs::write(
            &src,
            "program s\n  use mpi\n  implicit none\n  integer :: ierr, r\n  call MPI_Init(ierr)\n  \
             call MPI_Comm_rank(MPI_COMM_WORLD, r, ierr)\n  if (r == 0) call MPI_Barrier(MPI_COMM_WORLD, ierr)\n\
             10 call MPI_Finalize(ierr)\nend program s\n",
        )
        .unwrap();
        let (program, loaded) = augur_fortran::analyze_with_sources(&[src], &Default::default());
        let texts: Vec<Option<&str>> = loaded
            .iter()
            .map(|l| l.as_ref().map(|l| l.text.as_str()))
            .collect();
        let mut plan = Plan::default();
        plan_mpi_sites(&mut plan, &program, &texts);
        // MPI_Comm_rank is not traced: no site.
        let lines: Vec<u32> = plan.mpi_sites.iter().map(|s| s.1).collect();
        assert_eq!(lines, [5, 7, 8]);
        assert_eq!(site_of(&plan, 2), Some((FileId(0), 7)));
        assert_eq!((site_of(&plan, 0), site_of(&plan, 4)), (None, None));
        let (text, _) = super::super::rewrite(&plan, 0, texts[0].unwrap());
        let text = text.to_ascii_lowercase();
        let at = |s: &str| {
            text.find(s)
                .unwrap_or_else(|| panic!("no `{s}` in\n{text}"))
        };
        assert!(at("call augur_mpi_site(1)") < at("call mpi_init"));
        // The logical IF becomes an IF-THEN holding both calls.
        assert!(at("then") < at("call augur_mpi_site(2)"));
        assert!(at("call augur_mpi_site(2)") < at("call mpi_barrier"));
        // The label stays on the CALL.
        assert!(at("call augur_mpi_site(3)") < at("10 call mpi_finalize"));
    }
}
