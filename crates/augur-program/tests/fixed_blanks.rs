//! Fixed-form F77 spellings that free form rejects, through a real instrumented run:
//! dotted operators and logical literals with blanks inside (`N . EQ. 250`,
//! `.and .`, `. true.`), variables named `CLASS` and `ENUM`, and other blank-insensitive
//! spellings (`GO TO`, `END DO`, `DOUBLE PRECISION` written together, `END FILE`, the
//! power operator as `* *`, also split over a continuation line, `DO50I=1,10` and
//! `DOJ=1,3` beside the assignment `DO60X = 1.5`, `GOTO44`, `GO TO44`,
//! `IF(K.GT.0)GOTO46`, `CALLBUMP(K)`, `DO 70 I = 1 , 3`).
//! The front end must lower the program without errors, and the instrumented build
//! must print what the plain build prints.
//!
//! Needs gfortran and gcc; without them it fails saying so.

use augur_ir::Severity;
use augur_program::AnalyzeOptions;
use augur_toolchain::Toolchain;
use std::process::Command;

const SOURCE: &str = "      PROGRAM FB
      CHARACTER*1 CLASS
      INTEGER N, K, I, J, ENUM
      LOGICAL A, B
      DOUBLEPRECISION S
      CLASS = 'U'
      N = 250
      ENUM = N / 50
      S = 0.0D0
      IF (N . EQ. 250) THEN
         CLASS = 'S'
      END IF
      IF (CLASS .EQ. 'S') S = S + 1.0D0
      A = . true.
      B = .NOT. A
      IF ((A .and . .not.B) .AND. N . GT .2) S = S + 2.0D0
      DO 10 I=1,10
         S = S + DBLE(I)
   10 CONTINUE
      K = 0
   20 K = K + 1
      IF (K . LT. 5) GO TO 20
      DO J = 1, 3
         IF (CLASS . NE . 'S' .OR. J .GE. 2) S = S + 0.5D0
      END DO
      S = S + DBLE(K) *
     &      * 2 + DBLE(N) * * 2
      DO50I=1,10
         S = S + 1.0D0
   50 CONTINUE
      DOJ=1,3
         S = S + 0.25D0
      ENDDO
      DO60X = 1.5
      S = S + DO60X
      GOTO44
      K = K + 1000
   44 K = K + 1
      GO TO45
      K = K + 1000
   45 IF(K.GT.0)GOTO46
      K = K + 1000
   46 CALLBUMP(K)
      IF(K.GT.0)CALLBUMP(K)
      DO 70 I = 1 , 3
         K = K + 1
   70 CONTINUE
      OPEN(17, STATUS='SCRATCH')
      WRITE(17,*) S
      END FILE 17
      REWIND 17
      READ(17,*) S
      CLOSE(17)
      PRINT *, 'CLASS ', CLASS, ' N . EQ. 250 ', N, K, ENUM, S
      END
      SUBROUTINE BUMP(K)
      INTEGER K
      K = K + 10
      END
";

#[test]
fn blank_spellings_and_class_variable_compile_and_run_alike() {
    let tc = match Toolchain::detect("gfortran", "-O0") {
        Ok(tc) => tc,
        Err(e) => panic!("this test needs gfortran and gcc: {e}"),
    };
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("fb.f");
    std::fs::write(&src, SOURCE).unwrap();

    // The front end lowers it without errors.
    let program = augur_fortran::analyze(std::slice::from_ref(&src), &Default::default());
    let errors: Vec<_> = program
        .diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .collect();
    assert!(errors.is_empty(), "front-end errors: {errors:#?}");

    // The plain build's output.
    let exe = dir.path().join("plain");
    let st = Command::new("gfortran")
        .arg(&src)
        .arg("-o")
        .arg(&exe)
        .status()
        .unwrap();
    assert!(st.success(), "gfortran rejects the original");
    let plain = Command::new(&exe).output().unwrap();
    assert!(plain.status.success());
    let text = String::from_utf8_lossy(&plain.stdout);
    assert!(text.contains("CLASS S"), "{text}");

    // The instrumented build compiles and prints the same.
    let opts = AnalyzeOptions::new(tc, dir.path());
    let analysis = augur_program::analyze(std::slice::from_ref(&src), &opts)
        .unwrap_or_else(|e| panic!("analyze failed: {e}"));
    assert_eq!(
        String::from_utf8_lossy(&analysis.run.stdout),
        text,
        "the instrumented program printed something else"
    );
    // `CALLBUMP(K)`, alone and as a logical IF's action, are calls.
    let bump = analysis
        .program
        .units
        .iter()
        .position(|u| u.name == "bump")
        .expect("a unit bump");
    assert_eq!(analysis.profile.units[bump].blocks[0].executions, Some(2.0));
}
