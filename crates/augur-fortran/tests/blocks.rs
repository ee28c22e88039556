//! Basic blocks, successor edges, loops, units and source positions.

mod common;
use augur_fortran::FrontEndOptions;
use augur_ir::{BlockId, BlockKind, LoopKind, Unit, UnitKind};
use common::*;

fn id(u: &Unit, line: u32) -> BlockId {
    block_at(u, line).id
}

fn succs(u: &Unit, line: u32) -> Vec<BlockId> {
    let mut v = block_at(u, line).succs.clone();
    v.sort();
    v
}

fn sorted(mut v: Vec<BlockId>) -> Vec<BlockId> {
    v.sort();
    v
}

#[test]
fn block_if_else_if_else() {
    let src = "program t
  implicit none
  real :: x
  x = 2.0                 ! @before
  if (x > 1.0) then       ! @if
    x = 1.0               ! @then
  else if (x < 0.0) then  ! @elseif
    x = 0.0               ! @elseifbody
  else
    x = 0.5               ! @else
  end if
  x = x + 1.0             ! @after
end program t
";
    let a = analyze_ok(src);
    let u = a.unit("t");
    let l = |m: &str| line_of(src, m);
    // The IF test ends the entry block; the block spans the IF-THEN line only.
    assert_eq!(id(u, l("@before")), id(u, l("@if")));
    let test = block_at(u, l("@if"));
    assert_eq!(test.kind, BlockKind::Entry);
    assert_eq!(
        (test.span.start.line, test.span.end_line),
        (l("@before"), l("@if"))
    );
    assert_eq!(fmt_counts(&test.counts), "SRSL 1, CRSL 1, GOTO 1");
    let if_stmt = u
        .stmts
        .iter()
        .find(|s| s.span.start.line == l("@if"))
        .unwrap();
    assert_eq!(if_stmt.span.end_line, l("@if"));
    assert_eq!(block_ops(u, l("@then")), "SRSL 1");
    assert_eq!(block_ops(u, l("@elseif")), "CRSL 1, GOTO 1");
    assert_eq!(block_ops(u, l("@elseifbody")), "SRSL 1");
    assert_eq!(block_ops(u, l("@else")), "SRSL 1");
    assert_eq!(block_ops(u, l("@after")), "SRSL 1, ARSL 1");
    // Edges: test -> then | else-if test; else-if test -> its body | else; all arms -> after.
    let after = id(u, l("@after"));
    assert_eq!(
        succs(u, l("@if")),
        sorted(vec![id(u, l("@then")), id(u, l("@elseif"))])
    );
    assert_eq!(
        succs(u, l("@elseif")),
        sorted(vec![id(u, l("@elseifbody")), id(u, l("@else"))])
    );
    for arm in ["@then", "@elseifbody", "@else"] {
        assert_eq!(succs(u, l(arm)), vec![after], "{arm}\n{}", a.dump());
    }
}

#[test]
fn if_without_else_falls_through() {
    let src = "program t
  implicit none
  real :: x
  x = 2.0
  if (x > 1.0 .and. &
      x < 5.0) then      ! @cont
    x = 1.0              ! @then
  end if
  x = 3.0                ! @after
end program t
";
    let a = analyze_ok(src);
    let u = a.unit("t");
    let test = block_at(u, 4);
    assert_eq!(test.span.end_line, line_of(src, "@cont"));
    assert_eq!(
        sorted(test.succs.clone()),
        sorted(vec![
            id(u, line_of(src, "@then")),
            id(u, line_of(src, "@after"))
        ])
    );
}

#[test]
fn shared_label_f77_nests() {
    let src = "      PROGRAM T
      DIMENSION A(10,10), B(10)
      N = 10
      DO 10 I = 1, N
      DO 10 J = 1, N
         A(I,J) = 0.0
   10 CONTINUE
      DO 20 I = 1, N
      DO 20 J = 1, N
   20 A(I,J) = A(I,J) + B(J)
      X = 1.0
      END
";
    let a = analyze_src("t.f", src);
    a.assert_clean();
    let u = a.unit("t");
    assert_eq!(u.loops.len(), 4);
    let (l0, l1) = (&u.loops[0], &u.loops[1]);
    assert_eq!((l0.depth, l1.depth), (1, 2));
    assert_eq!(l1.parent, Some(l0.id));
    assert_eq!((l0.label, l1.label), (Some(10), Some(10)));
    assert_eq!(l0.var.as_deref(), Some("i"));
    // Inner body: the assignment and the CONTINUE, in the inner loop.
    let body = block_at(u, 6);
    assert_eq!(fmt_counts(&body.counts), "SRSL 1, ARR2 1");
    assert_eq!(body.in_loop, Some(l1.id));
    assert_eq!(block_at(u, 7).id, body.id);
    assert_eq!(body.succs, vec![l1.header_block]);
    // The labelled terminal assignment belongs to the inner loop of the second nest.
    let (l2, l3) = (&u.loops[2], &u.loops[3]);
    let term = block_at(u, 10);
    assert_eq!(term.in_loop, Some(l3.id));
    assert_eq!(fmt_counts(&term.counts), "SRSL 1, ARSL 1, ARR1 1, ARR2 2");
    assert_eq!(term.succs, vec![l3.header_block]);
    let stmt = u.stmts.iter().find(|s| s.span.start.line == 10).unwrap();
    assert_eq!(stmt.label, Some(20));
    // Headers and set-ups.
    assert_eq!(
        fmt_counts(&u.blocks[l2.header_block.0 as usize].counts),
        "LOOV 1"
    );
    assert_eq!(
        fmt_counts(&u.blocks[l3.entry_block.0 as usize].counts),
        "LOIN 1"
    );
    // After both nests.
    let after = block_at(u, 11);
    assert_eq!(after.in_loop, None);
    assert_eq!(fmt_counts(&after.counts), "SRSL 1");
}

#[test]
fn goto_loop_label_starts_a_block() {
    let src = "      PROGRAM T
      K = 0
   30 K = K + 1
      IF (K .LT. 10) GOTO 30
      X = 1.0
      END
";
    let a = analyze_src("t.f", src);
    a.assert_clean();
    let u = a.unit("t");
    let entry = block_at(u, 2);
    let top = block_at(u, 3);
    assert_ne!(entry.id, top.id);
    assert_eq!(entry.succs, vec![top.id]);
    assert_eq!(fmt_counts(&top.counts), "SISL 1, AISL 1, CISL 1, GOTO 1");
    // The guarded GOTO is its own block, branching back to the label.
    let v = blocks_with(u, 4, &[BlockKind::Straight]);
    let goto = v.iter().find(|b| b.id != top.id).unwrap();
    assert_eq!(fmt_counts(&goto.counts), "GOTO 1");
    assert_eq!(goto.succs, vec![top.id]);
    let after = block_at(u, 5);
    assert!(top.succs.contains(&goto.id) && top.succs.contains(&after.id));
}

#[test]
fn backward_gotos_make_nested_loops() {
    // A GOTO loop over I (sieve style) holding a DO loop and, inside that, a GOTO
    // loop of its own; then a guarded backward GOTO at the top level.
    let src = "      PROGRAM T
      INTEGER I, J, K, N
      LOGICAL P(100)
      N = 100
      I = 2
   20 IF (I * I .GT. N) GOTO 40
      DO 30 J = I * I, N, I
         K = J
   25    K = K - 1
         IF (K .GT. J - 3) GOTO 25
         P(J) = .FALSE.
   30 CONTINUE
      I = I + 1
      GOTO 20
   40 K = 0
   50 K = K + 1
      IF (K .LT. 10) GOTO 50
      END
";
    let a = analyze_src("t.f", src);
    a.assert_clean();
    let u = a.unit("t");
    let kinds: Vec<(LoopKind, u32, Option<u32>, u32)> = u
        .loops
        .iter()
        .map(|l| {
            (
                l.kind.clone(),
                l.span.start.line,
                l.parent.map(|p| p.0),
                l.depth,
            )
        })
        .collect();
    assert_eq!(
        kinds,
        vec![
            (LoopKind::Goto, 6, None, 1),
            (LoopKind::Counted, 7, Some(0), 2),
            (LoopKind::Goto, 9, Some(1), 3),
            (LoopKind::Goto, 16, None, 1),
        ],
        "{}",
        a.dump()
    );
    for (i, l) in u.loops.iter().enumerate() {
        assert_eq!(l.id.0 as usize, i);
    }
    // The DO statement names its loop by the new numbering.
    let do_id = u
        .stmts
        .iter()
        .find_map(|s| match &s.kind {
            augur_ir::StmtKind::Do { loop_id, .. } => Some(loop_id.0),
            _ => None,
        })
        .unwrap();
    assert_eq!(do_id, 1);
    // Blocks: the test at 20 and the increment at 13 are in the outer GOTO loop, the
    // decrement at 25 in the inner one, the statement after the loops in none.
    let loop_at = |line: u32| {
        blocks_with(u, line, &[BlockKind::Straight])[0]
            .in_loop
            .map(|l| l.0)
    };
    assert_eq!(loop_at(6), Some(0));
    assert_eq!(loop_at(13), Some(0));
    assert_eq!(loop_at(9), Some(2));
    assert_eq!(loop_at(11), Some(1));
    assert_eq!(loop_at(16), Some(3));
    // The back edges are the blocks that jump back.
    let back = &u.loops[0].back_edges;
    assert_eq!(back.len(), 1);
    let last = *u.blocks[back[0].0 as usize].stmts.last().unwrap();
    assert_eq!(u.stmts[last as usize].span.start.line, 14);
}

#[test]
fn backward_gotos_that_cross_make_no_loop_and_one_out_of_a_do_holds_it() {
    let src = "      PROGRAM T
      INTEGER I, K
      K = 0
   10 K = K + 1
   20 K = K + 2
      IF (K .LT. 5) GOTO 10
      IF (K .LT. 9) GOTO 20
      K = 0
   40 DO 50 I = 1, 3
         K = K + 1
         IF (K .LT. 7) GOTO 40
   50 CONTINUE
      END
";
    let a = analyze_src("t.f", src);
    a.assert_clean();
    let u = a.unit("t");
    // GOTO 10 (line 6) makes a loop over lines 4-6; GOTO 20 (line 7) would cross it.
    // GOTO 40 from inside the DO makes a loop around the DO.
    let loops: Vec<(LoopKind, u32, Option<u32>)> = u
        .loops
        .iter()
        .map(|l| (l.kind.clone(), l.span.start.line, l.parent.map(|p| p.0)))
        .collect();
    assert_eq!(
        loops,
        vec![
            (LoopKind::Goto, 4, None),
            (LoopKind::Goto, 9, None),
            (LoopKind::Counted, 9, Some(1)),
        ],
        "{}",
        a.dump()
    );
}

#[test]
fn cycle_and_exit_edges() {
    let src = "program t
  implicit none
  integer :: i, j, n
  real :: x
  n = 5
  outer: do i = 1, n           ! @outer
    do j = 1, n                ! @inner
      if (j == 2) cycle outer  ! @cycle
      if (j == 3) exit         ! @exit
      x = x + 1.0              ! @body
    end do
    x = 0.0                    ! @afterinner
  end do outer
  x = 2.0                      ! @end
end program t
";
    let a = analyze_ok(src);
    let u = a.unit("t");
    let l = |m: &str| line_of(src, m);
    let outer_hdr = header_at(u, l("@outer")).id;
    let guarded = |line: u32| {
        let v = blocks_with(u, line, &[BlockKind::Straight]);
        assert_eq!(v.len(), 2, "{}", a.dump());
        (v[0], v[1])
    };
    let (test, cyc) = guarded(l("@cycle"));
    assert_eq!(fmt_counts(&test.counts), "CISL 1, GOTO 1");
    assert_eq!(fmt_counts(&cyc.counts), "GOTO 1");
    assert_eq!(cyc.succs, vec![outer_hdr]);
    let (_, exit) = guarded(l("@exit"));
    assert_eq!(exit.succs, vec![id(u, l("@afterinner"))]);
    assert_eq!(succs(u, l("@body")), vec![header_at(u, l("@inner")).id]);
    assert_eq!(
        sorted(header_at(u, l("@outer")).succs.clone()),
        sorted(vec![block_at(u, l("@inner")).id, id(u, l("@end"))])
    );
    assert_eq!(u.loops.len(), 2);
    assert_eq!(u.loops[0].kind, LoopKind::Counted);
}

#[test]
fn internal_and_module_procedures_and_recursion() {
    let src = "module m
  implicit none
contains
  recursive function fact(n) result(r)
    integer :: n, r
    if (n <= 1) then
      r = 1
    else
      r = n * fact(n - 1)      ! @rec
    end if
  end function fact
end module m
program t
  use m
  implicit none
  integer :: i
  i = fact(5)
  call inner(i)
contains
  subroutine inner(k)
    integer :: k
    k = k + 1                  ! @inner
  end subroutine inner
end program t
";
    let a = analyze_ok(src);
    let p = &a.prog;
    let im = a.unit_index("m");
    let it = a.unit_index("t");
    assert_eq!(a.unit("m").kind, UnitKind::Module);
    assert_eq!(a.unit("fact").kind, UnitKind::Function);
    assert_eq!(a.unit("fact").host, Some(im));
    assert_eq!(a.unit("inner").host, Some(it));
    assert_eq!(a.unit("t").host, None);
    assert_eq!(a.unit("inner").dummies, ["k"]);
    assert_eq!(p.units.len(), 4);
    assert_eq!(
        stmt_ops(a.unit("fact"), line_of(src, "@rec")),
        "SISL 1, AISL 1, MISL 1, PROC 1, ARGL 1"
    );
    assert_eq!(
        block_ops(a.unit("inner"), line_of(src, "@inner")),
        "SISL 1, AISL 1"
    );
    assert_eq!(block_ops(a.unit("t"), 17), "SISL 1, PROC 2, ARGL 2");
}

#[test]
fn fixed_form_keeps_original_lines() {
    let src = "C     A COMMENT LINE
      PROGRAM T
      REAL X, Y
C     ANOTHER COMMENT

      X = 1.0
      Y = X +
     &    2.0 *
     &    X
      DO 10 I = 1, 3
        Y = Y + X
   10 CONTINUE
      END
";
    let a = analyze_src("t.f", src);
    a.assert_clean();
    let u = a.unit("t");
    assert_eq!(u.span.start.line, 2);
    let st = u.stmts.iter().find(|s| s.span.start.line == 7).unwrap();
    assert_eq!(st.span.end_line, 9);
    assert_eq!(stmt_ops(u, 7), "SRSL 1, ARSL 1, MRSL 1");
    let entry = block_at(u, 6);
    assert_eq!((entry.span.start.line, entry.span.end_line), (6, 10));
    assert_eq!(block_ops(u, 11), "SRSL 1, ARSL 1");
    assert_eq!(fmt_counts(&header_at(u, 10).counts), "LOOV 1");
}

#[test]
fn included_lines_map_to_the_included_file() {
    let main = "      PROGRAM T
      INCLUDE 'com.inc'
      X = 1.0
      CALL SUB
      END
      SUBROUTINE SUB
      INCLUDE 'com.inc'
      X = X + Y
      END
";
    let inc = "      COMMON /C/ X, Y
      Y = 2.0
";
    let a = analyze_files(&[("main.f", main), ("com.inc", inc)]);
    a.assert_clean();
    let files = &a.prog.files.files;
    assert_eq!(files.len(), 2);
    assert!(files[1].path.ends_with("com.inc"));
    let t = a.unit("t");
    // The included statement's block lies in com.inc, line 2.
    let inc_block = t
        .blocks
        .iter()
        .find(|b| b.span.start.file.0 == 1)
        .expect("a block in the included file");
    assert_eq!((inc_block.span.start.line, inc_block.span.end_line), (2, 2));
    assert_eq!(fmt_counts(&inc_block.counts), "SRSG 1");
    // The main file's statements keep their own lines and block.
    let b = t
        .blocks
        .iter()
        .find(|b| b.span.start.file.0 == 0 && !b.stmts.is_empty())
        .unwrap();
    assert_eq!((b.span.start.line, b.span.end_line), (3, 4));
    assert_eq!(fmt_counts(&b.counts), "SRSG 1, PROC 1");
    assert!(inc_block.succs.contains(&b.id));
    let sub = a.unit("sub");
    assert_eq!(
        sub.symbol("x").unwrap().storage,
        augur_ir::Storage::Common("c".into())
    );
    let last = sub
        .blocks
        .iter()
        .find(|b| b.span.start.file.0 == 0 && !b.stmts.is_empty())
        .unwrap();
    assert_eq!(last.span.start.line, 8);
    assert_eq!(fmt_counts(&last.counts), "SRSG 1, ARSG 1");
}

#[test]
fn preprocessed_free_form_with_defines() {
    let src = "program t
  implicit none
  real :: x
#ifdef FAST
  x = 1.0
#else
  x = x * 2.0
#endif
  x = x + N
end program t
";
    let mut opts = FrontEndOptions::default();
    opts.load.defines = vec!["FAST".into(), "N=3".into()];
    let a = analyze_files_with(&[("t.F90", src)], &opts);
    a.assert_clean();
    let u = a.unit("t");
    let b = block_at(u, 5);
    assert_eq!((b.span.start.line, b.span.end_line), (5, 9));
    assert_eq!(fmt_counts(&b.counts), "SRSL 2, ARSL 1");
    // Without the defines: the other branch, and `N` is an undeclared name.
    let a = analyze_files(&[("t.F90", src)]);
    let u = a.unit("t");
    assert_eq!(stmt_ops(u, 7), "SRSL 1, MRSL 1");
    assert!(blocks_with(u, 5, &[BlockKind::Entry, BlockKind::Straight]).is_empty());
    assert!(a.all_diags().iter().any(|d| d.contains("`n` has no type")));
}
