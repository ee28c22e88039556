//! Loops made by backward GOTOs, through a real instrumented run: a binary search
//! (`10 IF (LO .GT. HI) GOTO 30 ... GOTO 10` with an arithmetic IF) and a heap's
//! sift-down. Their entries and iterations, the sampling of their non-affine
//! references and the branch record of the arithmetic IF are checked against the same
//! algorithms run here in Rust.
//!
//! Needs gfortran and gcc; without them it fails saying so.

use augur_ir::LoopKind;
use augur_program::AnalyzeOptions;
use augur_toolchain::Toolchain;

const SOURCE: &str = "      PROGRAM G
      INTEGER N, M
      PARAMETER (N = 5000, M = 20000)
      INTEGER A(N), I, K, S, IBS
      EXTERNAL IBS
      DO 10 I = 1, N
         A(I) = 3 * I
   10 CONTINUE
      S = 0
      K = 7
      DO 20 I = 1, M
         K = MOD(K * 1103 + 12345, 3 * N + 7)
         S = S + IBS(A, N, K)
   20 CONTINUE
      CALL SIFT(A, 1, N)
      PRINT *, S, A(1)
      END
      INTEGER FUNCTION IBS(A, N, V)
      INTEGER N, A(N), V
      INTEGER LO, HI, MID
      LO = 1
      HI = N
   10 IF (LO .GT. HI) GOTO 30
      MID = (LO + HI) / 2
      IF (A(MID) - V) 20, 40, 25
   20 LO = MID + 1
      GOTO 10
   25 HI = MID - 1
      GOTO 10
   30 IBS = 0
      RETURN
   40 IBS = MID
      RETURN
      END
      SUBROUTINE SIFT(A, L, IR)
      INTEGER L, IR, A(IR)
      INTEGER I, J, V
      V = A(L)
      I = L
      J = 2 * L
   10 IF (J .GT. IR) GOTO 30
      IF (J .LT. IR) THEN
         IF (A(J) .LT. A(J+1)) J = J + 1
      END IF
      IF (V .GE. A(J)) GOTO 30
      A(I) = A(J)
      I = J
      J = 2 * J
      GOTO 10
   30 A(I) = V
      RETURN
      END
";

/// Passes through the test at label 10 and arithmetic IFs of every search, as the
/// Fortran above runs them.
fn searches() -> (u64, u64) {
    let n: i64 = 5000;
    let a: Vec<i64> = (1..=n).map(|i| 3 * i).collect();
    let (mut passes, mut ifs) = (0u64, 0u64);
    let mut k: i64 = 7;
    for _ in 0..20000 {
        k = (k * 1103 + 12345) % (3 * n + 7);
        let (mut lo, mut hi) = (1i64, n);
        loop {
            passes += 1;
            if lo > hi {
                break;
            }
            let mid = (lo + hi) / 2;
            ifs += 1;
            let d = a[(mid - 1) as usize] - k;
            if d < 0 {
                lo = mid + 1;
            } else if d == 0 {
                break;
            } else {
                hi = mid - 1;
            }
        }
    }
    (passes, ifs)
}

/// Passes through the test at label 10 of `SIFT(A, 1, N)` on the ascending array.
fn sift_passes() -> u64 {
    let n: usize = 5000;
    let mut a: Vec<i64> = (1..=n as i64).map(|i| 3 * i).collect();
    let v = a[0];
    let (mut i, mut j) = (1usize, 2usize);
    let mut passes = 0;
    loop {
        passes += 1;
        if j > n {
            break;
        }
        if j < n && a[j - 1] < a[j] {
            j += 1;
        }
        if v >= a[j - 1] {
            break;
        }
        a[i - 1] = a[j - 1];
        i = j;
        j *= 2;
    }
    a[i - 1] = v;
    passes
}

#[test]
fn backward_gotos_make_loops_with_exact_trips_sampled_references_and_branches() {
    let tc = match Toolchain::detect("gfortran", "-O2") {
        Ok(tc) => tc,
        Err(e) => panic!("this test needs gfortran and gcc: {e}"),
    };
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("g.f");
    std::fs::write(&src, SOURCE).unwrap();
    let mut opts = AnalyzeOptions::new(tc, dir.path());
    opts.branch_run = true;
    let a = augur_program::analyze(&[src], &opts).unwrap_or_else(|e| panic!("analyze: {e}"));
    let p = &a.profile;
    let unit = |name: &str| {
        p.units
            .iter()
            .find(|u| u.name == name)
            .unwrap_or_else(|| panic!("no unit {name}"))
    };

    // The binary search: one GOTO loop, entered once per call.
    let ibs = unit("ibs");
    assert_eq!(ibs.loops.len(), 1, "{:?}", ibs.loops);
    let l = &ibs.loops[0];
    assert_eq!(l.loop_kind, LoopKind::Goto);
    assert_eq!(l.line, 23);
    let (passes, ifs) = searches();
    assert_eq!(l.entries, Some(20000.0));
    assert_eq!(l.iterations, Some(passes as f64));

    // Its A(MID) is not affine: sampled, every execution counted.
    let loc = p.locality.as_ref().expect("locality");
    let r = loc
        .sampled_refs
        .iter()
        .find(|r| r.unit == "ibs" && r.line == 25)
        .unwrap_or_else(|| panic!("A(MID) not sampled: {:?}", loc.sampled_refs));
    assert_eq!(r.executions, ifs);

    // The arithmetic IF is a recorded multiway branch.
    let b = p.branches.as_ref().expect("branch run");
    let row = b
        .conditions
        .iter()
        .find(|c| c.line == 25)
        .unwrap_or_else(|| panic!("no branch row at line 25: {:?}", b.conditions));
    assert_eq!(row.kind.name(), "arithmetic_if");
    assert_eq!(row.executions, ifs);
    assert!(row.mispredictions > 0 && row.mispredictions < row.executions);

    // The sift-down: one call, a GOTO loop; its J doubles each pass.
    let sift = unit("sift");
    assert_eq!(sift.loops.len(), 1, "{:?}", sift.loops);
    let l = &sift.loops[0];
    assert_eq!(l.loop_kind, LoopKind::Goto);
    assert_eq!(l.entries, Some(1.0));
    assert_eq!(l.iterations, Some(sift_passes() as f64));
}

#[test]
fn dos_ending_on_a_labelled_logical_if_count_it_inside_the_loops() {
    // Two DOs share the terminal statement, a logical IF the instrumented copy turns
    // into an IF-THEN; a GOTO to its label still runs the IF.
    let tc = Toolchain::detect("gfortran", "-O2")
        .unwrap_or_else(|e| panic!("this test needs gfortran and gcc: {e}"));
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("t.f");
    std::fs::write(
        &src,
        "      PROGRAM T
      INTEGER I, J, N, K
      REAL A(10)
      N = 10
      K = 0
      DO 20 J = 1, 3
      DO 20 I = 1, N
         A(I) = I * J
         IF (I .EQ. 2) GOTO 20
   20 IF (A(I) .GT. 5.0) K = K + 1
      PRINT *, K
      END
",
    )
    .unwrap();
    let opts = AnalyzeOptions::new(tc, dir.path());
    let a = augur_program::analyze(&[src], &opts).unwrap_or_else(|e| panic!("analyze: {e}"));
    let blocks = &a.profile.units[0].blocks;
    let on_10: Vec<Option<f64>> = blocks
        .iter()
        .filter(|b| b.first_line == 10)
        .map(|b| b.executions)
        .collect();
    // The IF runs 30 times; K = K + 1 runs for the 5 + 8 + 9 elements above 5.
    assert!(on_10.contains(&Some(30.0)), "{on_10:?}");
    assert!(on_10.contains(&Some(22.0)), "{on_10:?}");
}
