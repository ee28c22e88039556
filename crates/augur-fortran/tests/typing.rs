//! Typing: implicit rules, declared kinds and storage classes.

mod common;
use augur_ir::{BaseType, Storage, Type, Unit};
use common::*;

fn ty(u: &Unit, name: &str) -> Type {
    u.symbol(name)
        .unwrap_or_else(|| panic!("no symbol `{name}` in `{}`", u.name))
        .ty
}

const INT8: Type = Type {
    base: BaseType::Integer,
    kind: 8,
};

#[test]
fn implicit_i_to_n_rule() {
    let src = "program t
  x = 1.0
  i = 2
  n = i + 1
  amax = x * 2.0   ! @real
  kount = n * i    ! @int
end program t
";
    let a = analyze_ok(src);
    let u = a.unit("t");
    for r in ["x", "amax"] {
        assert_eq!(ty(u, r), Type::REAL, "{r}");
        assert!(u.symbol(r).unwrap().implicit);
    }
    for i in ["i", "n", "kount"] {
        assert_eq!(ty(u, i), Type::INTEGER, "{i}");
    }
    assert_eq!(stmt_ops(u, line_of(src, "@real")), "SRSL 1, MRSL 1");
    assert_eq!(stmt_ops(u, line_of(src, "@int")), "SISL 1, MISL 1");
}

#[test]
fn implicit_double_precision() {
    let src = "      PROGRAM T
      IMPLICIT DOUBLE PRECISION (A-H,O-Z)
      X = Y * Z
      I = J + K
      H = O + I
      END
";
    let a = analyze_src("t.f", src);
    a.assert_clean();
    let u = a.unit("t");
    for r in ["x", "y", "z", "h", "o"] {
        assert_eq!(ty(u, r), Type::DOUBLE, "{r}");
    }
    assert_eq!(ty(u, "i"), Type::INTEGER);
    assert_eq!(stmt_ops(u, 3), "SRDL 1, MRDL 1");
    assert_eq!(stmt_ops(u, 4), "SISL 1, AISL 1");
    assert_eq!(stmt_ops(u, 5), "SRDL 1, ARDL 1, CVIR 1");
}

#[test]
fn implicit_none_leaves_undeclared_names_untyped() {
    let src = "program t
  implicit none
  real :: x
  x = y + 1.0
end program t
";
    let a = analyze_src("t.f90", src);
    assert_eq!(ty(a.unit("t"), "y").base, BaseType::Unknown);
    assert!(
        a.all_diags().iter().any(|d| d.contains("`y` has no type")),
        "{:?}",
        a.all_diags()
    );
    assert!(a.errors().is_empty());
}

#[test]
fn names_of_a_module_without_source_are_not_reported_one_by_one() {
    // `MPI_COMM_WORLD` and its kin come from `use mpi`, whose source is the library's.
    let src = "program t
  use mpi
  implicit none
  integer :: ierr, rank
  call mpi_comm_rank(MPI_COMM_WORLD, rank, ierr)
  call mpi_barrier(MPI_COMM_WORLD, ierr)
end program t
";
    let a = analyze_src("t.f90", src);
    assert!(
        !a.all_diags().iter().any(|d| d.contains("has no type")),
        "{:?}",
        a.all_diags()
    );
}

#[test]
fn declared_kinds() {
    let src = "module kinds
  implicit none
  integer, parameter :: dp = kind(1.0d0)
  integer, parameter :: wp = selected_real_kind(15)
  integer, parameter :: sp = selected_real_kind(6, 37)
  integer, parameter :: ik = selected_int_kind(18)
end module kinds
program t
  use kinds
  use iso_fortran_env, only: real64
  implicit none
  real*8 :: r8
  double precision :: dpv
  real(kind=8) :: rk8
  real(8) :: r8b
  real(kind=dp) :: rdp
  real(dp) :: rdp2
  real(wp) :: rwp
  real(sp) :: rsp
  real(real64) :: r64
  real :: r4
  integer*8 :: i8
  integer(8) :: i8b
  integer(kind=ik) :: iik
  integer :: i4
  complex*16 :: z16
  complex(kind=8) :: zk8
  complex(dp) :: zdp
  double complex :: zd
  complex :: z4
  logical :: lg
  character(len=8) :: ch
  rdp = rdp2 * 2.0_dp
end program t
";
    let a = analyze_ok(src);
    let u = a.unit("t");
    for d in ["r8", "dpv", "rk8", "r8b", "rdp", "rdp2", "rwp", "r64"] {
        assert_eq!(ty(u, d), Type::DOUBLE, "{d}");
    }
    assert_eq!(ty(u, "rsp"), Type::REAL);
    assert_eq!(ty(u, "r4"), Type::REAL);
    for i in ["i8", "i8b", "iik"] {
        assert_eq!(ty(u, i), INT8, "{i}");
    }
    assert_eq!(ty(u, "i4"), Type::INTEGER);
    for z in ["z16", "zk8", "zdp", "zd"] {
        assert_eq!(ty(u, z), Type::DOUBLE_COMPLEX, "{z}");
    }
    assert_eq!(ty(u, "z4"), Type::COMPLEX);
    assert_eq!(ty(u, "lg").base, BaseType::Logical);
    assert_eq!(ty(u, "ch").base, BaseType::Character);
    assert!(!u.symbol("r8").unwrap().implicit);
    assert_eq!(u.symbol("dp").unwrap().value, Some(8));
    assert_eq!(u.symbol("wp").unwrap().value, Some(8));
    assert_eq!(u.symbol("sp").unwrap().value, Some(4));
    assert_eq!(u.symbol("ik").unwrap().value, Some(8));
}

#[test]
fn iso_c_binding_kinds_are_constants() {
    let src = "program t
  use iso_c_binding, only: c_int32_t, c_double
  implicit none
  integer(c_int32_t) :: k
  real(c_double) :: d
  integer :: i
  k = int(i, c_int32_t)    ! @conv
  d = d * 2
end program t
";
    let a = analyze_ok(src);
    let u = a.unit("t");
    assert_eq!(ty(u, "d"), Type::DOUBLE);
    assert_eq!(ty(u, "k"), Type::INTEGER);
    assert_eq!(u.symbol("c_int32_t").unwrap().storage, Storage::Parameter);
    assert_eq!(stmt_ops(u, line_of(src, "@conv")), "SISL 1");
}

#[test]
fn storage_classes() {
    let src = "module m
  implicit none
  real :: mv
  integer, parameter :: mp = 7
end module m
subroutine s(arg, n)
  use m
  implicit none
  integer :: n
  real :: arg(n), loc
  real :: cv, cw(10)
  common /cb/ cv, cw
  common cblank
  real :: cblank
  integer, parameter :: np = 2*mp + 1
  real, parameter :: rp = 1.5
  loc = arg(1) + cv + mv + cblank + np
end subroutine s
";
    let a = analyze_ok(src);
    let u = a.unit("s");
    let st = |n: &str| u.symbol(n).unwrap().storage.clone();
    assert_eq!(st("arg"), Storage::Dummy);
    assert_eq!(st("n"), Storage::Dummy);
    assert_eq!(st("loc"), Storage::Local);
    assert_eq!(st("cv"), Storage::Common("cb".into()));
    assert_eq!(st("cw"), Storage::Common("cb".into()));
    assert_eq!(st("cblank"), Storage::Common(String::new()));
    assert_eq!(st("mv"), Storage::Module("m".into()));
    assert_eq!(st("np"), Storage::Parameter);
    assert_eq!(u.symbol("np").unwrap().value, Some(15));
    assert_eq!(u.symbol("mp").unwrap().value, Some(7));
    assert_eq!(st("rp"), Storage::Parameter);
    assert_eq!(u.symbol("cw").unwrap().dims.len(), 1);
    assert_eq!(u.symbol("cw").unwrap().dims[0].extent, Some(10));
    assert_eq!(u.dummies, ["arg", "n"]);
}

#[test]
fn dimension_attribute_and_statement() {
    let src = "program t
  implicit none
  real, dimension(3, 4) :: a
  real :: b
  dimension b(0:9)
  integer, parameter :: n = 5
  real :: c(n, 2*n)
  a(1, 2) = b(3)
end program t
";
    let a = analyze_ok(src);
    let u = a.unit("t");
    let dims = |n: &str| {
        u.symbol(n)
            .unwrap()
            .dims
            .iter()
            .map(|d| d.extent)
            .collect::<Vec<_>>()
    };
    assert_eq!(dims("a"), [Some(3), Some(4)]);
    assert_eq!(dims("b"), [Some(10)]);
    assert_eq!(dims("c"), [Some(5), Some(10)]);
}

#[test]
fn function_result_types_across_units() {
    let src = "program t
  implicit none
  double precision :: d, f
  integer :: ifn
  d = f(d) + 1.0d0            ! @f
  d = ifn(3)                  ! @ifn
end program t
double precision function f(x)
  double precision :: x
  f = x
end function f
function ifn(k)
  integer :: ifn, k
  ifn = k
end function ifn
";
    let a = analyze_ok(src);
    let u = a.unit("t");
    assert_eq!(
        stmt_ops(u, line_of(src, "@f")),
        "SRDL 1, ARDL 1, PROC 1, ARGL 1"
    );
    assert_eq!(
        stmt_ops(u, line_of(src, "@ifn")),
        "SRDL 1, PROC 1, ARGL 1, CVIR 1"
    );
}

#[test]
fn derived_type_components_of_module_variables() {
    let src = "module types
  implicit none
  type particle
    double precision :: x, v
  end type particle
  type(particle) :: ps(100)
end module types
program t
  use types
  implicit none
  integer :: i
  do i = 1, 100
    ps(i)%v = ps(i)%v * 0.5d0        ! @comp
  end do
end program t
";
    let a = analyze_ok(src);
    let u = a.unit("t");
    assert_eq!(
        block_ops(u, line_of(src, "@comp")),
        "SRDG 1, MRDG 1, ARR1 2"
    );
}

#[test]
fn function_result_kinds_from_named_constants() {
    // Result kinds written with a module's kind constants: in the prefix, in the type
    // of a RESULT variable, and in the type of the function-name variable. The calls
    // must not count a conversion (CVII/CVSD) on assignment to variables of that kind.
    let src = "module kinds
  implicit none
  integer, parameter :: i8 = selected_int_kind(18), dp = kind(1.0d0)
contains
  function nxt(s) result(t)
    integer(i8), intent(in) :: s
    integer(i8) :: t
    t = s + 1_i8
  end function nxt
  integer(i8) function nx2(s)
    integer(i8), intent(in) :: s
    nx2 = s + 1_i8
  end function nx2
  function half(x)
    real(dp), intent(in) :: x
    real(dp) :: half
    half = 0.5_dp * x
  end function half
end module kinds
program t
  use kinds
  implicit none
  integer(i8) :: s
  real(dp) :: x
  s = 1_i8
  x = 1.0_dp
  s = nxt(s)                  ! @nxt
  s = nx2(s)                  ! @nx2
  x = half(x)                 ! @half
  x = inner(x)                ! @inner
  print *, s, x
contains
  function inner(y) result(r)
    real(dp), intent(in) :: y
    real(dp) :: r
    r = y
  end function inner
end program t
";
    let a = analyze_ok(src);
    let u = a.unit("t");
    assert_eq!(stmt_ops(u, line_of(src, "@nxt")), "PROC 1, ARGL 1, SIDL 1");
    assert_eq!(stmt_ops(u, line_of(src, "@nx2")), "PROC 1, ARGL 1, SIDL 1");
    assert_eq!(stmt_ops(u, line_of(src, "@half")), "SRDL 1, PROC 1, ARGL 1");
    assert_eq!(
        stmt_ops(u, line_of(src, "@inner")),
        "SRDL 1, PROC 1, ARGL 1"
    );
}

#[test]
fn derived_type_component_kinds_from_named_constants() {
    // Component kinds written with a kind constant of the module (or of the program)
    // that defines the type.
    let src = "module bodies
  implicit none
  integer, parameter :: dp = selected_real_kind(15, 300)
  type body
    real(dp) :: x, m
  end type body
end module bodies
program t
  use bodies
  implicit none
  integer, parameter :: i8 = selected_int_kind(18)
  type counter
    integer(i8) :: n
  end type counter
  type(body) :: b(4)
  type(counter) :: c
  real(dp) :: s
  c%n = 0_i8
  s = b(1)%x * b(2)%m         ! @mul
  c%n = c%n + 1_i8            ! @add
  print *, s, c%n
end program t
";
    let a = analyze_ok(src);
    let u = a.unit("t");
    assert_eq!(stmt_ops(u, line_of(src, "@mul")), "SRDL 1, MRDL 1");
    assert_eq!(stmt_ops(u, line_of(src, "@add")), "SIDL 1, AIDL 1");
}

#[test]
fn function_kinds_from_constants_of_a_module_in_another_file() {
    let a = analyze_files(&[
        (
            "k.f90",
            "module k
  implicit none
  integer, parameter :: wp = kind(1.0d0)
end module k
",
        ),
        (
            "f.f90",
            "module f
  use k
  implicit none
contains
  real(wp) function sq(x)
    real(wp), intent(in) :: x
    sq = x * x
  end function sq
end module f
program t
  use f
  use k
  implicit none
  real(wp) :: y
  y = 2.0_wp
  y = sq(y)
  print *, y
end program t
",
        ),
    ]);
    a.assert_clean();
    let u = a.unit("t");
    assert_eq!(stmt_ops(u, 16), "SRDL 1, PROC 1, ARGL 1");
}

/// `USE m, ONLY: ...` imports only the names listed (renamed as `local => remote`); a
/// local name the module also has (ConMan's scalar `diff` beside `materials`' pointer
/// array `diff`) keeps its own implicit type.
#[test]
fn use_only_imports_only_the_names_listed() {
    let src = "module materials
  implicit double precision (a-h,o-z)
  pointer :: dens(:), diff(:), tref(:)
end module materials
subroutine geoid(n)
  use materials, only: dens, t0 => tref
  integer :: n
  diff = 1.0e-6
  dens(1) = diff * n
  t0(1) = 2.0 * diff
end subroutine geoid
";
    let a = analyze_ok(src);
    let u = a.unit("geoid");
    let diff = u.symbol("diff").expect("diff is a local scalar");
    assert!(diff.dims.is_empty() && diff.implicit, "{diff:?}");
    assert_eq!(u.symbol("dens").map(|s| s.dims.len()), Some(1));
    assert_eq!(u.symbol("t0").map(|s| s.dims.len()), Some(1));
    assert!(u.symbol("tref").is_none(), "tref is known as t0 here");
}
