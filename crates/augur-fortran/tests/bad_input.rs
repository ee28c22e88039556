//! Bad input: syntax errors, missing files and random mutations never panic, and the
//! rest of the program is still analyzed.

mod common;
use augur_fortran::{analyze, FrontEndOptions};
use augur_ir::Severity;
use common::*;
use proptest::prelude::*;

#[test]
fn unparseable_statement_is_an_error_and_other_units_survive() {
    let src = "program p
  implicit none
  real :: x, y
  x = 1.0
  x = (y +* 2.0
  y = x + 1.0
end program p
subroutine s(a)
  real :: a
  a = a * 2.0
end subroutine s
";
    let a = analyze_src("bad.f90", src);
    let errs: Vec<_> = a
        .prog
        .diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .collect();
    assert!(!errs.is_empty());
    let pos = errs[0].pos.expect("error has a position");
    assert_eq!(pos.line, 5);
    assert!(a.prog.files.get(pos.file).path.ends_with("bad.f90"));
    assert!(errs[0].render(&a.prog.files).contains("bad.f90:5:"));
    assert!(a.prog.coverage.percent() < 100.0);
    // The statements around the error and the other unit are analyzed.
    let p = a.unit("p");
    assert_eq!(stmt_ops(p, 4), "SRSL 1");
    assert_eq!(stmt_ops(p, 6), "SRSL 1, ARSL 1");
    assert_eq!(block_ops(a.unit("s"), 10), "SRSL 1, MRSL 1");
}

#[test]
fn missing_file_is_an_error_and_other_files_are_analyzed() {
    let dir = tempfile::tempdir().unwrap();
    let good = dir.path().join("good.f90");
    std::fs::write(
        &good,
        "program g\n  real :: x\n  x = x + 1.0\nend program g\n",
    )
    .unwrap();
    let missing = dir.path().join("missing.f90");
    let prog = analyze(&[missing, good], &FrontEndOptions::default());
    let errs: Vec<_> = prog
        .diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .collect();
    assert_eq!(errs.len(), 1, "{:?}", prog.diagnostics);
    assert!(errs[0].message.contains("missing.f90"));
    assert_eq!(prog.units.len(), 1);
    assert_eq!(prog.units[0].name, "g");
    assert_eq!(
        fmt_counts(&prog.units[0].blocks[0].counts),
        "SRSL 1, ARSL 1"
    );
}

#[test]
fn empty_and_garbage_files_do_not_panic() {
    for (name, text) in [
        ("empty.f90", ""),
        ("blank.f", "\n\n\n"),
        ("garbage.f90", "@@@ ))) ((( \n end end end\n"),
        ("binary.f90", "\u{0}\u{1}\u{2}program\u{ff}"),
        (
            "unclosed.f90",
            "program p\n  do i = 1, 10\n    if (x) then\n",
        ),
        ("fixed.f", "     &continuation first\n 10   goto 10\n"),
    ] {
        let a = analyze_src(name, text);
        let _ = a.prog.coverage.percent();
    }
}

const VALID: &str = "module m
  real :: g(10)
contains
  subroutine s(x, n)
    integer :: n
    real :: x(n)
    do i = 1, n, 2
      x(i) = x(i) * g(i) + 1.0
    end do
  end subroutine s
end module m
program p
  use m
  implicit none
  integer :: i, k
  real :: a(10)
  character(len=8) :: c
  k = 0
10 k = k + 1
  if (k < 3) goto 10
  select case (k)
  case (1:2)
    a(:) = 0.0
  case default
    a = sqrt(a) + sum(a)
  end select
  do while (k > 0)
    k = k - 1
    if (k == 1) exit
  end do
  c = 'ab' // c
  call s(a, 10)
  write (*, *) a(1), k
end program p
";

#[derive(Debug, Clone)]
enum Mutation {
    Delete(usize),
    Duplicate(usize, usize),
    Insert(usize, char),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    let chars = prop::sample::select(vec![
        '(', ')', ',', '=', ':', '&', '!', '\'', '"', '\n', ' ', '*', '%', ';', '1', 'x', '.', '#',
        '/', '-', '\t',
    ]);
    prop_oneof![
        any::<usize>().prop_map(Mutation::Delete),
        (any::<usize>(), 1usize..40).prop_map(|(a, n)| Mutation::Duplicate(a, n)),
        (any::<usize>(), chars).prop_map(|(a, c)| Mutation::Insert(a, c)),
    ]
}

fn apply(src: &str, muts: &[Mutation]) -> String {
    let mut chars: Vec<char> = src.chars().collect();
    for m in muts {
        if chars.is_empty() {
            break;
        }
        match *m {
            Mutation::Delete(at) => {
                chars.remove(at % chars.len());
            }
            Mutation::Duplicate(at, n) => {
                let at = at % chars.len();
                let end = (at + n).min(chars.len());
                let piece: Vec<char> = chars[at..end].to_vec();
                chars.splice(at..at, piece);
            }
            Mutation::Insert(at, c) => {
                let at = at % (chars.len() + 1);
                chars.insert(at, c);
            }
        }
    }
    chars.into_iter().collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    #[test]
    fn mutated_programs_never_panic(muts in prop::collection::vec(mutation(), 1..12)) {
        let text = apply(VALID, &muts);
        let a = analyze_src("m.f90", &text);
        let c = &a.prog.coverage;
        prop_assert!(c.lowered <= c.statements);
        for d in &a.prog.diagnostics {
            let _ = d.render(&a.prog.files);
        }
    }

    #[test]
    fn mutated_fixed_form_never_panics(muts in prop::collection::vec(mutation(), 1..8)) {
        let fixed = "      PROGRAM T\n      DIMENSION A(10)\n      DO 10 I = 1, 10\n      DO 10 J = 1, 10\n   10 A(I) = A(I) +\n     &  1.0\n      IF (A(1)) 20, 20, 30\n   20 CONTINUE\n   30 END\n";
        let text = apply(fixed, &muts);
        let a = analyze_src("m.f", &text);
        prop_assert!(a.prog.coverage.lowered <= a.prog.coverage.statements);
    }
}

#[test]
fn undefined_macro_in_a_loop_bound_is_named_with_its_line() {
    let src = "program p\n  integer :: i\n  real :: a(100)\n  do i = 1, NMAX\n    a(i) = i\n  end do\n  print *, a(1)\nend program p\n";
    let a = analyze_src("m.F90", src);
    let warn = a
        .prog
        .diagnostics
        .iter()
        .find(|d| d.message.contains("NMAX"))
        .expect("a warning about NMAX");
    assert_eq!(warn.pos.unwrap().line, 4);
    assert!(warn.hint.as_deref().unwrap().contains("-D NMAX=VALUE"));
    // With the macro defined, the bound is a constant and no warning is given.
    let opts = FrontEndOptions {
        load: augur_fortran::LoadOptions {
            defines: vec!["NMAX=50".into()],
            ..Default::default()
        },
        ..Default::default()
    };
    let b = analyze_files_with(&[("m.F90", src)], &opts);
    assert!(b
        .prog
        .diagnostics
        .iter()
        .all(|d| !d.message.contains("NMAX")));
    let l = &b.unit("p").loops[0];
    assert_eq!(l.bounds.as_ref().unwrap().constant_trips, Some(50));
}

#[test]
fn a_bound_holding_characters_of_several_bytes_is_no_panic() {
    // Found by the `source_free` fuzz target: bytes that are not UTF-8 in an array's
    // bounds (read as U+FFFD, three bytes each) before a `+` the constant folding split at.
    let src = "program p\n  integer, parameter :: n = 4\n  real :: u(0:n+1, 0:\u{FFFD}\u{FFFD} 0:n+1)\n  u = 0\nend program p\n";
    let a = analyze_src("bytes.f90", src);
    assert!(
        a.prog.units.iter().any(|u| u.name == "p"),
        "{:?}",
        a.prog.units
    );
}

#[test]
fn an_array_section_of_more_elements_than_an_i64_holds_is_no_panic() {
    // Found by the `source_free` fuzz target: a section's constant extents whose product
    // overflows (`u(1:111111111111111111n, 1:n)` read with n's digits run together).
    let src = "program p\n  integer, parameter :: n = 400\n  real(8) :: u(0:n+1, 0:n+1), w(0:n+1, 0:n+1)\n  u(1:1111111111111111, 1:4000000) = w(1:1111111111111111, 1:4000000)\n  u(1:9223372036854775807:-1, 1:2) = 0\nend program p\n";
    let a = analyze_src("sections.f90", src);
    assert!(
        a.prog.units.iter().any(|u| u.name == "p"),
        "{:?}",
        a.prog.units
    );
}
