//! Tests of the whole loader: preprocessing, INCLUDE, line maps, gfortran parity.

use super::*;
use augur_ir::Severity;
use std::fs;
use std::process::Command;

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    if let Some(parent) = p.parent() {
        fs::create_dir_all(parent).unwrap();
    }
    fs::write(&p, text).unwrap();
    p
}

fn lines(src: &LoadedSource) -> Vec<&str> {
    src.text.lines().collect()
}

/// The 0-based line of `text` holding `needle`.
fn find(src: &LoadedSource, needle: &str) -> usize {
    src.text
        .lines()
        .position(|l| l.contains(needle))
        .unwrap_or_else(|| panic!("{needle:?} not in:\n{}", src.text))
}

fn path_of(files: &SourceFiles, id: FileId) -> PathBuf {
    files.get(id).path.clone()
}

fn check_invariants(src: &LoadedSource) {
    assert_eq!(src.text.lines().count(), src.origins.len());
}

#[test]
fn forms_and_cpp_by_extension() {
    for (name, form, cpp) in [
        ("a.f", SourceForm::Fixed, false),
        ("a.for", SourceForm::Fixed, false),
        ("a.f77", SourceForm::Fixed, false),
        ("a.ftn", SourceForm::Fixed, false),
        ("a.F", SourceForm::Fixed, true),
        ("a.FOR", SourceForm::Fixed, true),
        ("a.F77", SourceForm::Fixed, true),
        ("a.FTN", SourceForm::Fixed, true),
        ("a.fpp", SourceForm::Fixed, true),
        ("a.FPP", SourceForm::Fixed, true),
        ("a.f90", SourceForm::Free, false),
        ("a.f95", SourceForm::Free, false),
        ("a.f03", SourceForm::Free, false),
        ("a.f08", SourceForm::Free, false),
        ("a.F90", SourceForm::Free, true),
        ("a.F95", SourceForm::Free, true),
        ("a.F03", SourceForm::Free, true),
        ("a.F08", SourceForm::Free, true),
        ("a.txt", SourceForm::Free, false),
        ("noext", SourceForm::Free, false),
    ] {
        assert_eq!(SourceForm::from_path(Path::new(name)), form, "{name}");
        assert_eq!(wants_cpp(Path::new(name)), cpp, "{name}");
    }
}

#[test]
fn loads_fixed_form_and_registers_file() {
    let dir = tempfile::tempdir().unwrap();
    let p = write(
        dir.path(),
        "p.f",
        "      PROGRAM P\r\n      X = 1 +\r\n     &    2\r\n      END\r\n",
    );
    let mut files = SourceFiles::default();
    let src = load(&p, &LoadOptions::default(), &mut files).unwrap();
    check_invariants(&src);
    assert_eq!(src.form, SourceForm::Fixed);
    assert!(!src.preprocessed);
    assert!(src.diagnostics.is_empty());
    assert_eq!(
        lines(&src),
        vec![
            "      PROGRAM P",
            "      X = 1 + &",
            "     &    2",
            "      END"
        ]
    );
    let f = files.get(src.main);
    assert_eq!(f.path, p);
    assert_eq!(f.lines, 4);
    assert_eq!(f.sha256.len(), 64);
    // sha256 of the bytes, checked against an independent computation.
    let expect = Sha256::digest(fs::read(&p).unwrap())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect::<String>();
    assert_eq!(f.sha256, expect);
    assert_eq!(
        src.origin(2, 10),
        Pos {
            file: src.main,
            line: 3,
            col: 11
        }
    );
    // Out of range clamps to the last line.
    assert_eq!(src.origin(99, 0).line, 4);
}

#[test]
fn form_override() {
    let dir = tempfile::tempdir().unwrap();
    let p = write(dir.path(), "p.f90", "C comment\n      END\n");
    let mut files = SourceFiles::default();
    let opts = LoadOptions {
        form: Some(SourceForm::Fixed),
        ..Default::default()
    };
    let src = load(&p, &opts, &mut files).unwrap();
    assert_eq!(src.form, SourceForm::Fixed);
    assert_eq!(lines(&src), vec!["! comment", "      END"]);
}

#[test]
fn tab_format_origin_columns() {
    let dir = tempfile::tempdir().unwrap();
    let p = write(dir.path(), "t.f", "\tX = 1\n10\tY = 2\n");
    let mut files = SourceFiles::default();
    let src = load(&p, &LoadOptions::default(), &mut files).unwrap();
    assert_eq!(lines(&src), vec!["      X = 1", "10    Y = 2"]);
    // `X` is parsed at 0-based column 6, original column 2.
    assert_eq!(src.origin(0, 6).col, 2);
    // `Y` is parsed at 0-based column 6, original column 4.
    assert_eq!(src.origin(1, 6).col, 4);
}

#[test]
fn missing_main_file_is_an_error() {
    let mut files = SourceFiles::default();
    let err = load(
        Path::new("/nonexistent/x.f"),
        &LoadOptions::default(),
        &mut files,
    )
    .unwrap_err();
    assert!(matches!(err, LoadError::Read { .. }));
    assert!(err.to_string().contains("/nonexistent/x.f"), "{err}");
}

#[test]
fn non_utf8_bytes_warn_once() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("l.f");
    fs::write(
        &p,
        b"      PROGRAM P\nC caf\xe9\nC na\xefve\n      END\n".as_slice(),
    )
    .unwrap();
    let mut files = SourceFiles::default();
    let src = load(&p, &LoadOptions::default(), &mut files).unwrap();
    check_invariants(&src);
    assert_eq!(src.diagnostics.len(), 1);
    let d = &src.diagnostics[0];
    assert_eq!(d.severity, Severity::Warning);
    assert_eq!(d.pos.unwrap().line, 2);
    assert!(d.message.contains("line 2"), "{}", d.message);
    assert_eq!(lines(&src)[1], "! caf\u{fffd}");
}

#[test]
fn bytes_in_memory_load_like_the_file() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "c.inc", "      X = 1\n");
    let text = "      PROGRAM P\nC caf\u{e9}\n      INCLUDE 'c.inc'\n      END\n";
    let p = write(dir.path(), "m.f", text);
    let mut disk_files = SourceFiles::default();
    let disk = load(&p, &LoadOptions::default(), &mut disk_files).unwrap();
    let mut mem_files = SourceFiles::default();
    let mem = load_bytes(&p, text.as_bytes(), &LoadOptions::default(), &mut mem_files).unwrap();
    check_invariants(&mem);
    assert_eq!(mem.text, disk.text);
    assert_eq!(mem.origins, disk.origins);
    assert_eq!(mem_files.files.len(), 2);
    assert_eq!(mem_files.files[0].sha256, disk_files.files[0].sha256);
    // Nothing is read for the source itself.
    let virtual_path = dir.path().join("absent").join("v.f");
    let v = load_bytes(
        &virtual_path,
        b"      END\n",
        &LoadOptions::default(),
        &mut mem_files,
    );
    assert_eq!(v.unwrap().text, "      END\n");
}

// ---------------------------------------------------------------- cpp

#[test]
fn cpp_define_used_in_statement() {
    let dir = tempfile::tempdir().unwrap();
    let p = write(
        dir.path(),
        "d.F",
        "      PROGRAM P\n      INTEGER, PARAMETER :: N = SIZE_N\n      END\n",
    );
    let mut files = SourceFiles::default();
    let opts = LoadOptions {
        defines: vec!["SIZE_N=42".into()],
        ..Default::default()
    };
    let src = load(&p, &opts, &mut files).unwrap();
    check_invariants(&src);
    assert!(src.preprocessed);
    let i = find(&src, "N = 42");
    assert_eq!(src.origin(i, 0).line, 2);
    assert_eq!(src.origin(i, 0).file, src.main);
}

#[test]
fn cpp_ifdef_branches_and_line_map() {
    let dir = tempfile::tempdir().unwrap();
    let text = "      PROGRAM P\n#ifdef FAST\n      X = 1\n#else\n      X = 2\n#endif\n      Y = 3\n      END\n";
    let p = write(dir.path(), "b.F", text);
    for (defines, want, line) in [(vec!["FAST".to_string()], "X = 1", 3), (vec![], "X = 2", 5)] {
        let mut files = SourceFiles::default();
        let opts = LoadOptions {
            defines,
            ..Default::default()
        };
        let src = load(&p, &opts, &mut files).unwrap();
        check_invariants(&src);
        let i = find(&src, want);
        assert_eq!(src.origin(i, 6).line, line);
        assert_eq!(src.origin(i, 6).col, 7);
        assert_eq!(src.origin(find(&src, "Y = 3"), 0).line, 7);
        assert_eq!(src.origin(find(&src, "END"), 0).line, 8);
        assert!(!src.text.contains("X = 1") || want == "X = 1");
    }
}

#[test]
fn cpp_forced_on_lower_case_and_gfortran_macro() {
    let dir = tempfile::tempdir().unwrap();
    let p = write(
        dir.path(),
        "g.f90",
        "#ifdef __GFORTRAN__\ninteger :: unix = 1, linux = 2\n#endif\n",
    );
    let mut files = SourceFiles::default();
    let opts = LoadOptions {
        cpp: true,
        ..Default::default()
    };
    let src = load(&p, &opts, &mut files).unwrap();
    // gfortran defines __GFORTRAN__ but not the C system macros `unix`, `linux`.
    let i = find(&src, "integer :: unix = 1, linux = 2");
    assert_eq!(src.origin(i, 0).line, 2);
}

#[test]
fn cpp_include_maps_into_included_file() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "inc/defs.h",
        "C header comment\n      REAL A\n\n\n\n\n\n\n\n\n\n\n      REAL B\n",
    );
    let p = write(
        dir.path(),
        "m.F",
        "      PROGRAM P\n#include \"defs.h\"\n      A = 1\n      END\n",
    );
    let mut files = SourceFiles::default();
    let opts = LoadOptions {
        include_dirs: vec![dir.path().join("inc")],
        ..Default::default()
    };
    let src = load(&p, &opts, &mut files).unwrap();
    check_invariants(&src);
    let a = src.origin(find(&src, "REAL A"), 6);
    let b = src.origin(find(&src, "REAL B"), 6);
    let hdr = path_of(&files, a.file);
    assert!(hdr.ends_with("inc/defs.h"), "{}", hdr.display());
    assert_eq!((a.line, a.col), (2, 7));
    assert_eq!(b.file, a.file);
    assert_eq!(b.line, 13);
    assert_eq!(files.get(a.file).lines, 13);
    let after = src.origin(find(&src, "A = 1"), 0);
    assert_eq!((after.file, after.line), (src.main, 3));
    // The header comment was normalized as fixed form too.
    assert!(src.text.contains("! header comment"));
}

#[test]
fn cpp_failure_carries_stderr() {
    let dir = tempfile::tempdir().unwrap();
    let p = write(
        dir.path(),
        "e.F",
        "      PROGRAM P\n#include \"nope.h\"\n      END\n",
    );
    let mut files = SourceFiles::default();
    let err = load(&p, &LoadOptions::default(), &mut files).unwrap_err();
    let LoadError::CppFailed { stderr, .. } = &err else {
        panic!("expected CppFailed, got {err:?}");
    };
    assert!(stderr.contains("nope.h"), "{stderr}");
    assert!(stderr.contains("e.F:"), "{stderr}");
    assert!(err.to_string().contains("e.F"));
}

#[test]
fn missing_cpp_is_reported_with_hint() {
    let dir = tempfile::tempdir().unwrap();
    let p = write(dir.path(), "m.F", "      END\n");
    let mut files = SourceFiles::default();
    let err = load_with_cpp(
        &p,
        None,
        &LoadOptions::default(),
        &mut files,
        "augur-no-such-cpp-program",
    )
    .unwrap_err();
    assert!(matches!(err, LoadError::CppNotFound { .. }), "{err:?}");
    let msg = err.to_string();
    assert!(msg.contains("m.F"), "{msg}");
    assert!(msg.contains("apt-get install cpp"), "{msg}");
}

// ---------------------------------------------------------------- INCLUDE

#[test]
fn include_same_dir() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "common.inc",
        "      COMMON /C/ X\nC inc comment\n",
    );
    let p = write(
        dir.path(),
        "main.f",
        "      PROGRAM P\n      INCLUDE 'common.inc'\n      X = 1\n      END\n",
    );
    let mut files = SourceFiles::default();
    let src = load(&p, &LoadOptions::default(), &mut files).unwrap();
    check_invariants(&src);
    assert!(src.diagnostics.is_empty(), "{:?}", src.diagnostics);
    assert_eq!(
        lines(&src),
        vec![
            "      PROGRAM P",
            "!     INCLUDE 'common.inc'",
            "      COMMON /C/ X",
            "! inc comment",
            "      X = 1",
            "      END"
        ]
    );
    let inc = src.origin(2, 6);
    assert!(path_of(&files, inc.file).ends_with("common.inc"));
    assert_eq!((inc.line, inc.col), (1, 7));
    assert_eq!(src.origin(3, 0).line, 2);
    let incl_line = src.origin(1, 6);
    assert_eq!(
        (incl_line.file, incl_line.line, incl_line.col),
        (src.main, 2, 7)
    );
    assert_eq!(
        src.origin(4, 0),
        Pos {
            file: src.main,
            line: 3,
            col: 1
        }
    );
    assert_eq!(files.files.len(), 2);
}

#[test]
fn include_via_include_dirs_and_free_form() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "other/mod.inc", "integer :: k\n");
    let p = write(
        dir.path(),
        "src/main.f90",
        "program p\ninclude \"mod.inc\"  ! the decls\nk = 1\nend program\n",
    );
    let mut files = SourceFiles::default();
    let opts = LoadOptions {
        include_dirs: vec![dir.path().join("nothing"), dir.path().join("other")],
        ..Default::default()
    };
    let src = load(&p, &opts, &mut files).unwrap();
    check_invariants(&src);
    assert!(src.diagnostics.is_empty());
    assert_eq!(
        lines(&src),
        vec![
            "program p",
            "!include \"mod.inc\"  ! the decls",
            "integer :: k",
            "k = 1",
            "end program"
        ]
    );
    // The commented INCLUDE line moved one column right.
    assert_eq!(src.origin(1, 1).col, 1);
    assert_eq!(src.origin(2, 0).line, 1);
    assert!(path_of(&files, src.origin(2, 0).file).ends_with("other/mod.inc"));
}

#[test]
fn include_same_dir_wins_over_include_dirs() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "a/x.inc", "      A = 1\n");
    write(dir.path(), "b/x.inc", "      B = 1\n");
    let p = write(dir.path(), "a/m.f", "      INCLUDE 'x.inc'\n");
    let mut files = SourceFiles::default();
    let opts = LoadOptions {
        include_dirs: vec![dir.path().join("b")],
        ..Default::default()
    };
    let src = load(&p, &opts, &mut files).unwrap();
    assert!(src.text.contains("A = 1"));
}

#[test]
fn include_missing_is_a_diagnostic() {
    let dir = tempfile::tempdir().unwrap();
    let p = write(
        dir.path(),
        "m.f",
        "      PROGRAM P\n   10 include \"gone.h\"\n      END\n",
    );
    let mut files = SourceFiles::default();
    let opts = LoadOptions {
        include_dirs: vec![dir.path().join("extra")],
        ..Default::default()
    };
    let src = load(&p, &opts, &mut files).unwrap();
    check_invariants(&src);
    assert_eq!(src.diagnostics.len(), 1);
    let d = &src.diagnostics[0];
    assert_eq!(d.severity, Severity::Error);
    assert_eq!(
        d.pos,
        Some(Pos {
            file: src.main,
            line: 2,
            col: 7
        })
    );
    assert!(d.message.contains("gone.h"), "{}", d.message);
    assert!(d.message.contains("extra"), "{}", d.message);
    assert!(d.hint.as_deref().unwrap().contains("-I"));
    assert_eq!(
        lines(&src),
        vec!["      PROGRAM P", "!  10 include \"gone.h\"", "      END"]
    );
}

#[test]
fn include_nested_with_line_map() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "inner.h", "      INTEGER I\n      INTEGER J\n");
    write(
        dir.path(),
        "outer.h",
        "C outer\n      INCLUDE 'inner.h'\n      REAL R\n",
    );
    let p = write(
        dir.path(),
        "m.f",
        "      SUBROUTINE S\n      INCLUDE 'outer.h'\n      END\n",
    );
    let mut files = SourceFiles::default();
    let src = load(&p, &LoadOptions::default(), &mut files).unwrap();
    check_invariants(&src);
    assert_eq!(
        lines(&src),
        vec![
            "      SUBROUTINE S",
            "!     INCLUDE 'outer.h'",
            "! outer",
            "!     INCLUDE 'inner.h'",
            "      INTEGER I",
            "      INTEGER J",
            "      REAL R",
            "      END"
        ]
    );
    let file_line = |l: usize| {
        let o = src.origin(l, 0);
        (
            path_of(&files, o.file)
                .file_name()
                .unwrap()
                .to_string_lossy()
                .into_owned(),
            o.line,
        )
    };
    assert_eq!(file_line(1), ("m.f".into(), 2));
    assert_eq!(file_line(2), ("outer.h".into(), 1));
    assert_eq!(file_line(3), ("outer.h".into(), 2));
    assert_eq!(file_line(4), ("inner.h".into(), 1));
    assert_eq!(file_line(5), ("inner.h".into(), 2));
    assert_eq!(file_line(6), ("outer.h".into(), 3));
    assert_eq!(file_line(7), ("m.f".into(), 3));
}

#[test]
fn include_twice_is_fine_recursive_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "x.h", "      X = 1\n");
    let p = write(
        dir.path(),
        "twice.f",
        "      INCLUDE 'x.h'\n      INCLUDE 'x.h'\n",
    );
    let mut files = SourceFiles::default();
    let src = load(&p, &LoadOptions::default(), &mut files).unwrap();
    assert_eq!(src.text.matches("X = 1").count(), 2);
    assert_eq!(files.files.len(), 2);

    write(dir.path(), "a.h", "      INCLUDE 'b.h'\n");
    write(dir.path(), "b.h", "      Y = 1\n      INCLUDE 'a.h'\n");
    let p = write(dir.path(), "rec.f", "      INCLUDE 'a.h'\n");
    let err = load(&p, &LoadOptions::default(), &mut files).unwrap_err();
    let LoadError::RecursiveInclude { file, line, .. } = &err else {
        panic!("expected RecursiveInclude, got {err:?}");
    };
    assert!(file.ends_with("b.h"));
    assert_eq!(*line, 2);
    assert!(err.to_string().contains("b.h:2"), "{err}");

    let p = write(dir.path(), "self.f", "      INCLUDE 'self.f'\n");
    let err = load(&p, &LoadOptions::default(), &mut files).unwrap_err();
    assert!(
        matches!(err, LoadError::RecursiveInclude { line: 1, .. }),
        "{err:?}"
    );
}

#[test]
fn include_too_deep() {
    let dir = tempfile::tempdir().unwrap();
    for i in 0..40 {
        write(
            dir.path(),
            &format!("d{i}.h"),
            &format!("      INCLUDE 'd{}.h'\n", i + 1),
        );
    }
    write(dir.path(), "d40.h", "      X = 1\n");
    let p = write(dir.path(), "deep.f", "      INCLUDE 'd0.h'\n");
    let mut files = SourceFiles::default();
    let err = load(&p, &LoadOptions::default(), &mut files).unwrap_err();
    assert!(
        matches!(err, LoadError::IncludeTooDeep { line: 1, .. }),
        "{err:?}"
    );
}

#[test]
fn include_not_taken_inside_continued_statement() {
    let dir = tempfile::tempdir().unwrap();
    let p = write(dir.path(), "c.f90", "x = 1 + &\ninclude 'q'\ny = 2\n");
    let mut files = SourceFiles::default();
    let src = load(&p, &LoadOptions::default(), &mut files).unwrap();
    assert!(src.diagnostics.is_empty());
    assert_eq!(lines(&src)[1], "include 'q'");
}

#[test]
fn cpp_then_fixed_then_include_compose() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "k.inc", "\tK = 1\n");
    let p = write(
        dir.path(),
        "c.F",
        "      PROGRAM P\n#define VAL 7\n      X = VAL +\n     &    1\n      INCLUDE 'k.inc'\n      END\n",
    );
    let mut files = SourceFiles::default();
    let src = load(&p, &LoadOptions::default(), &mut files).unwrap();
    check_invariants(&src);
    let x = find(&src, "X = 7 + &");
    assert_eq!(src.origin(x, 6).line, 3);
    assert_eq!(src.origin(x + 1, 0).line, 4);
    let k = find(&src, "K = 1");
    let o = src.origin(k, 6);
    assert!(path_of(&files, o.file).ends_with("k.inc"));
    assert_eq!((o.line, o.col), (1, 2));
}

// ---------------------------------------------------------------- gfortran parity

/// Checks that gfortran accepts `text` as free-form source.
fn gfortran_accepts_free_form(name: &str, text: &str) {
    let dir = tempfile::tempdir().unwrap();
    let p = write(dir.path(), &format!("{name}.f90"), text);
    let out = Command::new("gfortran")
        .args(["-ffree-form", "-fsyntax-only", "-std=legacy", "-fopenmp"])
        .arg(&p)
        .current_dir(dir.path())
        .output()
        .unwrap_or_else(|e| {
            panic!("gfortran is needed for this test but could not be run ({e}); install it, e.g. `apt-get install gfortran`")
        });
    assert!(
        out.status.success(),
        "gfortran rejected the normalized {name}:\n{}\n--- text ---\n{text}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Checks that gfortran accepts the fixed-form original (so the samples are valid).
fn gfortran_accepts_fixed_form(name: &str, text: &str) {
    let dir = tempfile::tempdir().unwrap();
    let p = write(dir.path(), &format!("{name}.f"), text);
    let out = Command::new("gfortran")
        .args(["-ffixed-form", "-fsyntax-only", "-std=legacy", "-fopenmp"])
        .arg(&p)
        .output()
        .unwrap_or_else(|e| {
            panic!("gfortran is needed for this test but could not be run ({e}); install it, e.g. `apt-get install gfortran`")
        });
    assert!(
        out.status.success(),
        "gfortran rejected the fixed-form sample {name}:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

const SAMPLES: &[(&str, &str)] = &[
    (
        "basic",
        "C     A classic program
      PROGRAM MAIN
      IMPLICIT DOUBLE PRECISION (A-H,O-Z)
      DIMENSION A(100)
*     loop
      DO 10 I = 1, 100
         A(I) = DBLE(I) *
     1          2.0D0 +
C        comment inside a continued statement

     2          1.0D0                                                   MAIN0100
   10 CONTINUE
      S = 0.0D0 ! inline comment
      DO 20 I = 1, 100
      S = S + A(I); T = S
   20 CONTINUE
      WRITE (*, 100) S
  100 FORMAT (1X, 'SUM = ', F12.4, 5H !'X , 2HOK)
      END
",
    ),
    (
        "strings",
        "      PROGRAM STR
      CHARACTER*80 S, T
      S = 'A string that is split across a continuation line with blanks
     &  and goes on'
      T = \"double \"\"quoted\"\" ! not a comment\"
      PRINT *, S, T, 'it''s'
      END
",
    ),
    (
        "tabs",
        "      SUBROUTINE SUB(X, N)
\tINTEGER N
\tREAL X(N)
\tDO 10 I = 1,
\t1  N
10\tX(I) = 0.0
\tRETURN
\tEND
",
    ),
    (
        "omp",
        "      SUBROUTINE PAR(A, N)
      INTEGER N, I
      REAL A(N)
C$OMP PARALLEL DO
C$OMP&PRIVATE(I)
C$OMP&   SHARED(A, N)
      DO I = 1, N
         A(I) = 0.0
      END DO
C$OMP END PARALLEL DO
      DATA_ = 1
      END
",
    ),
    (
        "hollerith",
        "      SUBROUTINE H
      INTEGER IA(2)
      DATA IA /4HAB!C, 4H'\"!X/
      CALL FOO(9HNOT ! CMT,
     &         3HEND)
      END
",
    ),
    (
        "splits",
        "      SUBROUTINE SPL
      DOUBLE
     &PRECISION D
      REAL
     &X
      INTEGER IVERYLONGNAME
      IVERYLONGNAME = 1                                           +12345
     &6
      D = 1.0
      X = 2.0
      END
",
    ),
];

#[test]
fn gfortran_accepts_normalized_samples() {
    for (name, text) in SAMPLES {
        gfortran_accepts_fixed_form(name, text);
        let n = normalize_fixed(text);
        assert_eq!(n.text.lines().count(), text.lines().count());
        gfortran_accepts_free_form(name, &n.text);
    }
}

#[test]
fn normalized_string_matches_fixed_form_value() {
    // Run both versions and compare the printed string: the padding to
    // column 72 must reproduce the significant trailing blanks.
    let fixed = "      PROGRAM P
      CHARACTER*80 S
      S = 'AB   
     &CD'
      WRITE (*, '(A)') S
      END
";
    let dir = tempfile::tempdir().unwrap();
    let run = |name: &str, text: &str, flag: &str| -> String {
        let src = write(dir.path(), name, text);
        let exe = dir.path().join(format!("{name}.exe"));
        let st = Command::new("gfortran")
            .arg(flag)
            .arg(&src)
            .arg("-o")
            .arg(&exe)
            .status()
            .unwrap_or_else(|e| {
                panic!("gfortran is needed for this test but could not be run ({e}); install it, e.g. `apt-get install gfortran`")
            });
        assert!(st.success(), "gfortran failed on {name}");
        let out = Command::new(&exe).output().unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let a = run("f.f", fixed, "-ffixed-form");
    let b = run("g.f90", &normalize_fixed(fixed).text, "-ffree-form");
    assert_eq!(a, b);
    assert_eq!(a, format!("AB{}CD{}\n", " ".repeat(59), " ".repeat(17)));
}

#[test]
fn a_missing_mpif_h_points_to_mpi_and_another_missing_file_to_its_directory() {
    let dir = tempfile::tempdir().unwrap();
    let p = write(
        dir.path(),
        "m.f90",
        "program m\n  include 'mpif.h'\n  include 'consts.h'\nend program\n",
    );
    let mut files = SourceFiles::default();
    let src = load(&p, &LoadOptions::default(), &mut files).unwrap();
    let hints: Vec<&str> = src
        .diagnostics
        .iter()
        .filter_map(|d| d.hint.as_deref())
        .collect();
    assert_eq!(hints.len(), 2, "{:?}", src.diagnostics);
    assert!(hints[0].contains("--mpi-ranks"), "{}", hints[0]);
    assert!(
        hints[1].contains("-I DIR") && !hints[1].contains("MPI"),
        "{}",
        hints[1]
    );
}
