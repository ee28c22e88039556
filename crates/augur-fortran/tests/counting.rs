//! Counting rules (see the module doc of `augur_ir::count`), checked block by block on
//! small hand-verified programs: every statement under test sits alone in a block.

mod common;
use common::*;

const DECLS: &str = "
  implicit none
  integer :: i, j, k, n
  integer*8 :: i8, j8
  real :: x, y, a(10), b(10, 10), c3(2, 2, 2), c4(2, 2, 2, 2), v(10), w(10)
  double precision :: d, e, f
  complex :: z, zw
  double complex :: zd, zdw
  logical :: l1, l2
  character(len=10) :: s, s2
  integer, parameter :: M = 5
  real :: g, ga(10)
  integer :: ig
  common /blk/ g, ga, ig";

#[test]
fn stores_transfers_and_constant_stores() {
    check_blocks(
        "",
        DECLS,
        &[
            // An operator on the right: a store of the left-hand side's type.
            ("x = x + y", "SRSL 1, ARSL 1"),
            // A plain variable: a transfer.
            ("x = y", "TRSL 1"),
            ("d = e", "TRDL 1"),
            ("i = j", "TISL 1"),
            ("z = zw", "TCSL 1"),
            ("zd = zdw", "TCDL 1"),
            ("i8 = j8", "TIDL 1"),
            // A constant: a store.
            ("x = 1.0", "SRSL 1"),
            ("i = 3", "SISL 1"),
            ("d = 2.5d0", "SRDL 1"),
            // COMMON operands are global.
            ("g = x", "TRSG 1"),
            ("x = g", "TRSG 1"),
            ("g = 2.0", "SRSG 1"),
            ("g = g * x", "SRSG 1, MRSG 1"),
            ("x = g + y", "SRSL 1, ARSG 1"),
            ("ig = ig + 1", "SISG 1, AISG 1"),
            ("ga(i) = x", "TRSG 1, ARR1 1"),
            // Logical stores.
            ("l1 = l2", "SLGL 1"),
        ],
    );
}

#[test]
fn module_variables_are_global() {
    let module = "module mvars
  implicit none
  real :: mv
  integer :: mi
  double precision :: md
end module mvars";
    check_blocks(
        module,
        "  use mvars\n  implicit none\n  real :: x\n  double precision :: d",
        &[
            ("mv = x", "TRSG 1"),
            ("x = mv + x", "SRSL 1, ARSG 1"),
            ("mi = mi + 1", "SISG 1, AISG 1"),
            ("md = md * d", "SRDG 1, MRDG 1"),
        ],
    );
}

#[test]
fn module_variables_are_global_in_module_procedures() {
    let src = "module m
  implicit none
  real :: mv
  double precision :: md
contains
  subroutine s(x)
    real :: x
    mv = mv + x   ! @add
    x = mv        ! @transfer
    md = 1.0d0    ! @store
  end subroutine s
end module m
";
    let a = analyze_ok(src);
    let u = a.unit("s");
    assert_eq!(stmt_ops(u, line_of(src, "@add")), "SRSG 1, ARSG 1");
    assert_eq!(stmt_ops(u, line_of(src, "@transfer")), "TRSG 1");
    assert_eq!(stmt_ops(u, line_of(src, "@store")), "SRDG 1");
    assert_eq!(
        block_ops(u, line_of(src, "@add")),
        "SRSG 1, ARSG 1, TRSG 1, SRDG 1"
    );
    // The module's own symbols have module storage.
    let m = a.unit("m");
    assert_eq!(
        m.symbol("mv").unwrap().storage,
        augur_ir::Storage::Module("m".into())
    );
}

#[test]
fn arithmetic_by_type() {
    check_blocks(
        "",
        DECLS,
        &[
            ("i = i + j", "SISL 1, AISL 1"),
            ("i = i - j", "SISL 1, AISL 1"),
            ("i = i * j", "SISL 1, MISL 1"),
            ("i = i / j", "SISL 1, DISL 1"),
            // Integer division and MOD by a constant: the compiler's shift or multiply.
            ("i = i / 2", "SISL 1, DIC2 1"),
            ("i = i / 8", "SISL 1, DIC2 1"),
            ("i = i / 10", "SISL 1, DICN 1"),
            ("i = mod(i, 2)", "SISL 1, MOC2 1"),
            ("i = modulo(i, 7)", "SISL 1, MOCN 1"),
            // Real division by a literal power of two: a multiply by the exact
            // reciprocal when the compiler optimizes; by another literal, a divide.
            ("x = x / 2.0", "SRSL 1, DRC2 1"),
            ("d = d / 2.0D+00", "SRDL 1, DRC2 1"),
            ("d = d / 0.25d0", "SRDL 1, DRC2 1"),
            ("d = d / (-4)", "SRDL 1, DRC2 1"),
            ("x = x / 3.0", "SRSL 1, DRSL 1"),
            ("d = d / 0.1d0", "SRDL 1, DRDL 1"),
            // X**2.0 is squared by a multiply; X**3.0 stays a call of pow.
            ("d = d**2.0d0", "SRDL 1, XRE2 1"),
            ("x = x**2.", "SRSL 1, XRE2 1"),
            ("d = d**3.0d0", "SRDL 1, XRDL 1"),
            ("i8 = i8 + j8", "SIDL 1, AIDL 1"),
            ("i8 = i8 * j8", "SIDL 1, MIDL 1"),
            ("i8 = i8 / j8", "SIDL 1, DIDL 1"),
            ("x = x + y", "SRSL 1, ARSL 1"),
            ("x = x * y", "SRSL 1, MRSL 1"),
            ("x = x / y", "SRSL 1, DRSL 1"),
            ("d = d + e", "SRDL 1, ARDL 1"),
            ("d = d * e", "SRDL 1, MRDL 1"),
            ("d = d / e", "SRDL 1, DRDL 1"),
            ("z = z + zw", "SCSL 1, ACSL 1"),
            ("z = z * zw", "SCSL 1, MCSL 1"),
            ("z = z / zw", "SCSL 1, DCSL 1"),
            ("zd = zd + zdw", "SCDL 1, ACDL 1"),
            ("zd = zd * zdw", "SCDL 1, MCDL 1"),
            ("zd = zd / zdw", "SCDL 1, DCDL 1"),
            // Two operators, one store.
            ("d = d * e + f", "SRDL 1, ARDL 1, MRDL 1"),
            (
                "x = (x + y) * (x - y) / y",
                "SRSL 1, ARSL 2, MRSL 1, DRSL 1",
            ),
        ],
    );
}

#[test]
fn exponents() {
    check_blocks(
        "",
        DECLS,
        &[
            ("x = x**2", "SRSL 1, ERSL 1"),
            ("x = x**i", "SRSL 1, ERSL 1"),
            ("d = d**2", "SRDL 1, ERDL 1"),
            ("x = x**y", "SRSL 1, XRSL 1"),
            ("x = x**0.5", "SRSL 1, XRSL 1"),
            ("d = d**e", "SRDL 1, XRDL 1"),
            ("i = i**2", "SISL 1, EISL 1"),
            ("i = i**3", "SISL 1, XISL 1"),
            ("i = i**j", "SISL 1, XISL 1"),
            ("i = 2**j", "SISL 1, PW2I 1"),
            ("z = z**2", "SCSL 1, ECSL 1"),
        ],
    );
}

#[test]
fn unary_minus_is_an_add() {
    check_blocks(
        "",
        DECLS,
        &[
            ("x = -y", "SRSL 1, ARSL 1"),
            ("d = -e", "SRDL 1, ARDL 1"),
            ("i = -j", "SISL 1, AISL 1"),
            ("x = +y", "SRSL 1"),
            // A negative constant is folded.
            ("x = -1.0", "SRSL 1"),
        ],
    );
}

#[test]
fn compares_and_logical_operators() {
    check_blocks(
        "",
        DECLS,
        &[
            ("l1 = x < y", "CRSL 1, SLGL 1"),
            ("l1 = i .lt. j", "CISL 1, SLGL 1"),
            ("l1 = d >= e", "CRDL 1, SLGL 1"),
            ("l1 = z == zw", "CCSL 1, SLGL 1"),
            ("l1 = zd /= zdw", "CCDL 1, SLGL 1"),
            ("l1 = i8 < j8", "CIDL 1, SLGL 1"),
            ("l1 = g > x", "CRSG 1, SLGL 1"),
            // Mixed mode: compared in the promoted type, the integer converted.
            ("l1 = x < i", "CRSL 1, CVIR 1, SLGL 1"),
            ("l1 = l1 .and. l2", "ANDL 1, SLGL 1"),
            ("l1 = .not. l2", "ANDL 1, SLGL 1"),
            ("l1 = l1 .or. l2 .and. l1", "ANDL 2, SLGL 1"),
            ("l1 = l1 .eqv. l2", "ANDL 1, SLGL 1"),
            ("l1 = x < y .and. i == j", "ANDL 1, CRSL 1, CISL 1, SLGL 1"),
            ("l1 = s == s2", "CCHR 1, SLGL 1"),
        ],
    );
}

#[test]
fn array_references() {
    check_blocks(
        "",
        DECLS,
        &[
            ("x = a(i)", "TRSL 1, ARR1 1"),
            ("x = b(i, j)", "TRSL 1, ARR2 1"),
            ("x = c3(i, j, k)", "TRSL 1, ARR3 1"),
            ("x = c4(i, j, k, n)", "TRSL 1, ARR4 1"),
            // i ± constant: IADD instead of an integer add.
            ("x = a(i + 1)", "TRSL 1, ARR1 1, IADD 1"),
            ("x = a(i - 1)", "TRSL 1, ARR1 1, IADD 1"),
            ("x = b(i + 1, j - 1)", "TRSL 1, ARR2 1, IADD 2"),
            ("x = a(i + M)", "TRSL 1, ARR1 1, IADD 1"),
            // A subscript with a real operator costs it.
            ("x = a(2*i)", "TRSL 1, MISL 1, ARR1 1"),
            ("x = a(i + j)", "TRSL 1, AISL 1, ARR1 1"),
            // Constant subscripts cost no address computation.
            ("x = a(3)", "TRSL 1"),
            ("x = b(1, 2)", "TRSL 1"),
            ("x = a(M)", "TRSL 1"),
            ("x = a(M + 1)", "TRSL 1"),
            ("x = a(i - 1) + a(1)", "SRSL 1, ARSL 1, ARR1 1, IADD 1"),
            ("a(i) = b(i, j) * x", "SRSL 1, MRSL 1, ARR1 1, ARR2 1"),
        ],
    );
}

#[test]
fn parameters_are_folded() {
    check_blocks(
        "",
        DECLS,
        &[
            ("i = 2*M", "SISL 1"),
            ("i = M*M + 1", "SISL 1"),
            ("i = M + j", "SISL 1, AISL 1"),
            ("x = 2.0*3.0", "SRSL 1"),
        ],
    );
}

#[test]
fn calls_and_function_references() {
    let src = "program t
  implicit none
  real :: x, y, a(10)
  integer :: i
  call s0                   ! @call0
  call s3(x, y, a)          ! @call3
  x = f1(y)                 ! @fref1
  x = f1(y) + f1(x)         ! @fref2
  call s3(x + y, 2.0, a(i)) ! @callexpr
contains
  real function f1(z)
    real :: z
    f1 = z*z                ! @fbody
  end function f1
  subroutine s0
  end subroutine s0
  subroutine s3(p, q, v)
    real :: p, q, v(:)
    p = q                   ! @sbody
  end subroutine s3
end program t
";
    let a = analyze_ok(src);
    let u = a.unit("t");
    assert_eq!(stmt_ops(u, line_of(src, "@call0")), "PROC 1");
    assert_eq!(stmt_ops(u, line_of(src, "@call3")), "PROC 1, ARGL 3");
    assert_eq!(
        stmt_ops(u, line_of(src, "@fref1")),
        "SRSL 1, PROC 1, ARGL 1"
    );
    assert_eq!(
        stmt_ops(u, line_of(src, "@fref2")),
        "SRSL 1, ARSL 1, PROC 2, ARGL 2"
    );
    assert_eq!(
        stmt_ops(u, line_of(src, "@callexpr")),
        "ARSL 1, PROC 1, ARGL 3, ARR1 1"
    );
    // All in the entry block.
    assert_eq!(
        block_ops(u, line_of(src, "@call0")),
        "SRSL 2, ARSL 2, PROC 6, ARGL 9, ARR1 1"
    );
    assert_eq!(
        block_ops(a.unit("f1"), line_of(src, "@fbody")),
        "SRSL 1, MRSL 1"
    );
    assert_eq!(block_ops(a.unit("s3"), line_of(src, "@sbody")), "TRSL 1");
}

#[test]
fn intrinsics_by_type() {
    check_blocks(
        "",
        DECLS,
        &[
            ("x = sqrt(y)", "SRSL 1, SQRS 1"),
            ("d = sqrt(e)", "SRDL 1, SQRD 1"),
            ("d = dsqrt(e)", "SRDL 1, SQRD 1"),
            ("x = sin(y)", "SRSL 1, SINS 1"),
            ("x = cos(y)", "SRSL 1, SINS 1"),
            ("d = sin(e)", "SRDL 1, SIND 1"),
            ("d = exp(e)", "SRDL 1, EXPD 1"),
            ("x = exp(y)", "SRSL 1, EXPS 1"),
            ("d = log(e)", "SRDL 1, LOGD 1"),
            ("x = alog(y)", "SRSL 1, LOGS 1"),
            ("d = tan(e)", "SRDL 1, TAND 1"),
            ("d = atan2(d, e)", "SRDL 1, ATND 1"),
            ("d = tanh(e)", "SRDL 1, HYPD 1"),
            ("i = abs(j)", "SISL 1, ABSI 1"),
            ("x = abs(y)", "SRSL 1, ABSS 1"),
            ("d = abs(e)", "SRDL 1, ABSD 1"),
            // The single-precision modulus is another library routine (`cabsf`).
            ("x = abs(z)", "SRSL 1, CABS 1"),
            ("x = cabs(z)", "SRSL 1, CABS 1"),
            ("d = abs(zd)", "SRDL 1, ABSC 1"),
            ("i = mod(i, j)", "SISL 1, MODI 1"),
            ("d = mod(d, e)", "SRDL 1, MODD 1"),
            // MAX/MIN with k arguments cost k-1.
            ("d = max(d, e, f)", "SRDL 1, MAXD 2"),
            ("x = min(x, y)", "SRSL 1, MAXS 1"),
            ("i = max(i, j, k, n)", "SISL 1, MAXI 3"),
            ("d = sign(d, e)", "SRDL 1, SGND 1"),
            ("i = iand(i, j)", "SISL 1, BITI 1"),
            // Intrinsics of constants are folded.
            ("x = sqrt(2.0)", "SRSL 1"),
            // Inquiry intrinsics are free.
            ("i = size(a)", "SISL 1"),
        ],
    );
}

#[test]
fn complex_coercions_and_conversions() {
    check_blocks(
        "",
        DECLS,
        &[
            ("z = cmplx(x, y)", "SCSL 1, CLPX 1"),
            ("zd = dcmplx(d, e)", "CLPX 1, SCDL 1"),
            ("z = x", "SCSL 1, CLPX 1"),
            ("x = real(z)", "SRSL 1, REAL 1"),
            ("x = aimag(z)", "SRSL 1, IMAG 1"),
            ("z = conjg(zw)", "SCSL 1, CONJ 1"),
            ("zd = dconjg(zdw)", "CONJ 1, SCDL 1"),
            // Conversions.
            ("d = dble(i)", "SRDL 1, CVIR 1"),
            ("x = real(i)", "SRSL 1, CVIR 1"),
            ("x = float(i)", "SRSL 1, CVIR 1"),
            ("i = int(x)", "SISL 1, CVRI 1"),
            // NINT rounds as ANINT does (half away from zero), then converts.
            ("i = nint(d)", "SISL 1, CVRI 1, ANID 1"),
            ("i = nint(x)", "SISL 1, CVRI 1, ANIS 1"),
            ("d = dble(x)", "SRDL 1, CVSD 1"),
            ("x = sngl(d)", "SRSL 1, CVSD 1"),
            // Assignment and mixed-mode arithmetic pay the conversion.
            ("x = i", "SRSL 1, CVIR 1"),
            ("i = x", "SISL 1, CVRI 1"),
            ("d = x", "SRDL 1, CVSD 1"),
            ("x = d", "SRSL 1, CVSD 1"),
            ("x = x + i", "SRSL 1, ARSL 1, CVIR 1"),
            ("d = d + x", "SRDL 1, ARDL 1, CVSD 1"),
            ("i8 = i8 + i", "SIDL 1, AIDL 1, CVII 1"),
            // A constant of another type is converted by the compiler.
            ("x = x + 1", "SRSL 1, ARSL 1"),
            ("d = d * 2.0", "SRDL 1, MRDL 1"),
        ],
    );
}

#[test]
fn branches() {
    let src = "program t
  implicit none
  integer :: i
  real :: x
  logical :: l
  x = 0.0
  goto 10                   ! @goto
  x = 5.0
10 x = x + 1.0              ! @l10
  go to (20, 30) i          ! @cgoto
20 x = 2.0
30 continue
  if (i) 40, 50, 40         ! @arith
40 x = 4.0
50 continue
  if (l) x = 7.0            ! @logif
  select case (i)           ! @select
  case (1)
    x = 1.0
  case default
    x = 3.0
  end select
end program t
";
    let a = analyze_ok(src);
    let u = a.unit("t");
    assert_eq!(block_ops(u, line_of(src, "@goto")), "SRSL 1, GOTO 1");
    assert_eq!(stmt_ops(u, line_of(src, "@goto")), "GOTO 1");
    assert_eq!(block_ops(u, line_of(src, "@l10")), "SRSL 1, ARSL 1, GCOM 1");
    assert_eq!(stmt_ops(u, line_of(src, "@cgoto")), "GCOM 1");
    assert_eq!(block_ops(u, line_of(src, "@arith")), "GCOM 1");
    // Logical IF: predicate block (the GOTO), then the guarded statement's own block.
    let line = line_of(src, "@logif");
    let v = blocks_with(u, line, &[augur_ir::BlockKind::Straight]);
    let counts: Vec<String> = v.iter().map(|b| fmt_counts(&b.counts)).collect();
    assert_eq!(counts, ["GOTO 1", "SRSL 1"], "{}", a.dump());
    assert_eq!(stmt_ops(u, line_of(src, "@select")), "GCOM 1");
}

#[test]
fn do_loop_overheads() {
    let src = "program t
  implicit none
  integer :: i, n, k
  real :: x
  n = 10
  k = 3
  do i = 1, n          ! @unit0
    x = x + 1.0
  end do
  do i = 1, n, 1       ! @unit1
    x = x + 1.0
  end do
  do i = 1, n, 2       ! @step2
    x = x + 1.0
  end do
  do i = n, 1, -1      ! @stepm1
    x = x + 1.0
  end do
  do i = 1, n, k       ! @stepvar
    x = x + 1.0
  end do
  do i = 1, n - 1      ! @boundexpr
    x = x + 1.0
  end do
  do while (x < 100.0) ! @while
    x = x * 2.0        ! @whilebody
  end do
  do                   ! @forever
    if (x > 5.0) exit
    x = x + 1.0
  end do
end program t
";
    let a = analyze_ok(src);
    let u = a.unit("t");
    let hdr = |m: &str| fmt_counts(&header_at(u, line_of(src, m)).counts);
    let entry = |m: &str| block_ops(u, line_of(src, m));
    assert_eq!(entry("@unit0"), "SISL 2, LOIN 1");
    assert_eq!(hdr("@unit0"), "LOOV 1");
    assert_eq!(entry("@unit1"), "LOIN 1");
    assert_eq!(hdr("@unit1"), "LOOV 1");
    assert_eq!(entry("@step2"), "LOIX 1");
    assert_eq!(hdr("@step2"), "LOOX 1");
    assert_eq!(entry("@stepm1"), "LOIX 1");
    assert_eq!(hdr("@stepm1"), "LOOX 1");
    assert_eq!(entry("@stepvar"), "LOIX 1");
    assert_eq!(hdr("@stepvar"), "LOOX 1");
    // Bounds are evaluated once, at set-up.
    assert_eq!(entry("@boundexpr"), "AISL 1, LOIN 1");
    assert_eq!(hdr("@boundexpr"), "LOOV 1");
    // DO WHILE: the test is a compare and a branch, each iteration.
    assert_eq!(entry("@while"), "");
    assert_eq!(hdr("@while"), "CRSL 1, GOTO 1");
    assert_eq!(entry("@whilebody"), "SRSL 1, MRSL 1");
    // DO without control: the back branch.
    assert_eq!(hdr("@forever"), "GOTO 1");
    // Loop records.
    let l = &u.loops[2];
    assert!(!l.unit_step);
    assert_eq!(l.bounds.as_ref().unwrap().step.as_deref(), Some("2"));
    assert!(u.loops[1].unit_step);
}

#[test]
fn whole_array_statements() {
    let src = "program t
  implicit none
  integer :: n
  real :: a(10), b(10), c, x
  double precision :: d, m1(40, 40), m2(40, 40), m3(40, 40)
  integer :: k1(40, 40), k2(40, 40), k3(40, 40)
  n = 5
  a(:) = b(:) + c          ! @sect
  a = b                    ! @whole
  a(1:n) = 2.0*b(1:n)      ! @range
  x = sum(a)               ! @sum
  d = sum(a*b)             ! @sumprod
  x = dot_product(a, b)    ! @dot
  a = b * (c / x)          ! @hoist
  m3 = matmul(m1, m2)      ! @matmul
  k3 = matmul(k1, k2)      ! @imatmul
end program t
";
    let a = analyze_ok(src);
    let u = a.unit("t");
    let el = |m: &str| elements_at(u, line_of(src, m));
    // One ALIN per statement in the straight block (two for each MATMUL assignment:
    // the product and the copy into the result), the element work in the element block.
    assert_eq!(
        block_ops(u, line_of(src, "@sect")),
        "SRSL 2, DRSL 1, SISL 1, SRDL 1, CVSD 1, ALIN 11"
    );
    assert_eq!(
        fmt_counts(&el("@sect").counts),
        "SRSL 1, ARSL 1, ARR1 2, ALOV 1"
    );
    assert_eq!(fmt_counts(&el("@whole").counts), "TRSL 1, ARR1 2, ALOV 1");
    assert_eq!(
        fmt_counts(&el("@range").counts),
        "SRSL 1, MRSL 1, ARR1 2, ALOV 1"
    );
    // Reductions: one add per element.
    assert_eq!(fmt_counts(&el("@sum").counts), "ARSL 1, ARR1 1, ALOV 1");
    assert_eq!(
        fmt_counts(&el("@sumprod").counts),
        "ARSL 1, MRSL 1, ARR1 2, ALOV 1"
    );
    assert_eq!(
        fmt_counts(&el("@dot").counts),
        "ARSL 1, MRSL 1, ARR1 2, ALOV 1"
    );
    // A real reduction carries its partial sum from element to element: the add is
    // its recurrence; element-wise statements carry none.
    assert_eq!(fmt_counts(&el("@sum").element_chain), "ARSL 1");
    assert_eq!(fmt_counts(&el("@sumprod").element_chain), "ARSL 1");
    assert_eq!(fmt_counts(&el("@dot").element_chain), "ARSL 1");
    assert!(el("@sect").element_chain.is_empty());
    assert!(el("@range").element_chain.is_empty());
    // MATMUL of reals is gfortran's library routine: one MMUL per multiply-add, which
    // covers its loads and loop; of integers, the multiply and the add.
    // (Each line also has the element block of its assignment.)
    let groups = |m: &str| -> Vec<String> {
        let line = line_of(src, m);
        u.blocks
            .iter()
            .filter(|b| b.kind == augur_ir::BlockKind::Elements && b.span.start.line == line)
            .map(|b| fmt_counts(&b.counts))
            .collect()
    };
    assert!(
        groups("@matmul").contains(&"MMUL 1".to_string()),
        "{:?}",
        groups("@matmul")
    );
    assert!(
        groups("@imatmul").contains(&"AISL 1, MISL 1, ARR2 2, ALOV 1".to_string()),
        "{:?}",
        groups("@imatmul")
    );
    // A scalar operation inside an array statement runs once per statement, before
    // its element loop (the divide is in the straight block above).
    assert_eq!(
        fmt_counts(&el("@hoist").counts),
        "SRSL 1, MRSL 1, ARR1 2, ALOV 1"
    );
    // The element loops and their element counts.
    let elements = |m: &str| {
        let b = el(m).id;
        u.loops
            .iter()
            .find(|l| l.header_block == b)
            .and_then(|l| l.elements.clone())
            .unwrap()
    };
    assert_eq!(elements("@sect"), "size(a(:))");
    assert_eq!(elements("@whole"), "size(a)");
    assert_eq!(elements("@range"), "size(a(1:n))");
    assert_eq!(elements("@sum"), "size(a)");
    let sect = el("@sect");
    assert_eq!(sect.kind, augur_ir::BlockKind::Elements);
    let straight = block_at(u, line_of(src, "@sect")).id;
    assert!(sect.succs.contains(&straight));
}

#[test]
fn character_assignment_and_concatenation() {
    check_blocks(
        "",
        DECLS,
        &[
            ("s = s2", "TCHR 1"),
            ("s = 'abc'", "TCHR 1"),
            ("s = s // s2", "TCHR 1, CCAT 1"),
            ("s(1:2) = s2(3:4)", "TCHR 1"),
            ("s = trim(s2) // 'x' // s", "TCHR 1, CCAT 2, CHIN 1"),
            ("i = len_trim(s)", "SISL 1, CHIN 1"),
            // A character's code and back widen or narrow one byte.
            ("i = ichar(s(1:1))", "SISL 1, CVII 1"),
            ("s(1:1) = char(i)", "CVII 1, TCHR 1"),
        ],
    );
}

#[test]
fn io_statements() {
    check_blocks(
        "",
        DECLS,
        &[
            // Reals in text are decimal conversions (with a format IOFW written,
            // IOFR read; IORL list-directed either way), integers IOIT; a list-directed
            // statement parses no format (IOSL).
            ("print *, x", "IORL 1, IOSL 1"),
            (
                "write (*, *) x, y + 1.0, i",
                "ARSL 1, IOIT 1, IORL 2, IOSL 1",
            ),
            ("read (*, *) i, j", "IOIT 2, IOSL 1"),
            ("write (s, '(f8.3)') d", "IOST 1, IOFW 1"),
            ("write (6, 100) d", "IOST 1, IOFW 1"),
            ("write (6, fmt='(es12.4)') d", "IOST 1, IOFW 1"),
            ("print '(f8.3)', x", "IOST 1, IOFW 1"),
            ("read (s, '(2f8.3)') d, x", "IOST 1, IOFR 2"),
            ("read (5, 100) i, z", "IOST 1, IOIT 1, IOFR 1"),
            ("read *, x", "IORL 1, IOSL 1"),
            ("read (5, fmt=*) d, z", "IORL 2, IOSL 1"),
            ("read (5, fmt = *) d", "IORL 1, IOSL 1"),
            // Binary records copy their items: reals stay IOIT.
            ("write (10) x, d", "IOST 1, IOIT 2"),
            ("read (10, rec=3) x", "IOST 1, IOIT 1"),
            ("write (unit=10) d", "IOST 1, IOIT 1"),
        ],
    );
}

#[test]
fn a_formats_strings_skips_and_tabs_are_counted_per_statement() {
    // FORMAT statements among the declarations (before their use, as the label 200 is
    // after its first use in real code) and character-constant formats.
    let decls = format!(
        "{DECLS}
100 format ('K', i5.5, ';V=', f10.3)
200 format (1x, 2(f8.3, 1x), /)
300 format (t4, f8.3)
"
    );
    check_blocks(
        "",
        &decls,
        &[
            ("write (s, 100) i, d", "IOST 1, IOIT 1, IOFW 1, IOED 2"),
            ("write (s, fmt=200) d, e", "IOST 1, IOFW 2, IOED 4"),
            ("print 100, i, d", "IOST 1, IOIT 1, IOFW 1, IOED 2"),
            (
                "write (s, '(''k='', i3, 2x, f8.3)') i, d",
                "IOST 1, IOIT 1, IOFW 1, IOED 2",
            ),
            ("read (s, 300) d", "IOST 1, IOFR 1, IOED 1"),
            // A format in a variable is not known before the run; list-directed and
            // binary records have none.
            ("write (s, s) d", "IOST 1, IOFW 1"),
            ("write (s, *) 'k=', i", "IOIT 2, IOSL 1"),
        ],
    );
}

#[test]
fn io_items_that_are_arrays_transfer_each_element() {
    let src = "program t
  implicit none
  integer :: i, j, n, m
  real(8) :: w(5, 7), v(9)
  n = 7
  m = 5
  write (*, *) w(1, 1:n)                     ! @section
  print *, v                                 ! @whole
  write (*, *) (w(2, j), j = 1, n)           ! @ido
  write (*, *) ((w(i, j), i = 1, m), j = 1, n, 2) ! @nested
  write (*, *) ((w(i, j), j = 1, i), i = 1, m) ! @triangle
  read (*, *) n, (v(j), j = 1, n)            ! @readn
  write (10) v, (w(1, j), j = 1, n)          ! @binary
end program t
";
    let a = analyze_ok(src);
    let u = a.unit("t");
    let elements = |m: &str| -> Vec<(String, String)> {
        let line = line_of(src, m);
        u.loops
            .iter()
            .filter(|l| l.span.start.line == line)
            .map(|l| {
                let b = &u.blocks[l.header_block.0 as usize];
                (
                    l.elements.clone().unwrap_or_default(),
                    fmt_counts(&b.counts),
                )
            })
            .collect()
    };
    // A section and a whole array: one decimal conversion per element.
    assert_eq!(
        elements("@section"),
        [(
            "size(w(1, 1:n))".to_string(),
            "ARR2 1, ALOV 1, IORL 1".to_string()
        )]
    );
    assert_eq!(elements("@whole")[0].0, "size(v)");
    // An implied DO: its items once per trip; nested ones multiply.
    let ido = elements("@ido");
    assert_eq!(ido[0].0, "max(0, ((n) - (1) + (1)) / (1))");
    assert!(ido[0].1.contains("IORL 1"), "{ido:?}");
    let nested = elements("@nested");
    assert_eq!(
        nested[0].0,
        "(max(0, ((n) - (1) + (2)) / (2))) * max(0, ((m) - (1) + (1)) / (1))"
    );
    // Bounds naming an enclosing implied DO's variable, or a variable the same READ
    // assigns, cannot be evaluated before the statement: counted once, as before.
    assert_eq!(
        elements("@triangle").len(),
        1,
        "{:?}",
        elements("@triangle")
    );
    assert!(elements("@readn").is_empty(), "{:?}", elements("@readn"));
    // Binary records copy an array or an implied DO as one block: one item each.
    assert!(elements("@binary").is_empty(), "{:?}", elements("@binary"));
}

#[test]
fn array_constructor_with_type_spec() {
    // `[character(len=8) :: ...]`: the type-spec is not an expression (no warning).
    let src = "program t
  implicit none
  character(len=8), parameter :: words(2) = [character(len=8) :: 'ab', 'cde']
  real :: r(3)
  real :: x
  r = [real :: 1, 2, x]     ! @ctor
end program t
";
    let a = analyze_ok(src);
    let u = a.unit("t");
    let el = elements_at(u, line_of(src, "@ctor"));
    assert_eq!(el.counts.get(augur_ir::AbOp::ALOV), 1.0);
    assert_eq!(el.counts.get(augur_ir::AbOp::ARR1), 1.0);
}

#[test]
fn a_where_statement_tests_its_mask_as_it_goes() {
    let src = "program t
  implicit none
  real :: u(10), v(10)
  v = 1.0
  where (v > 2.0) u = 1.0     ! @where
end program t
";
    let a = analyze_ok(src);
    let u = a.unit("t");
    // The mask's block and the assignment's share the line.
    let masks: Vec<String> =
        blocks_with(u, line_of(src, "@where"), &[augur_ir::BlockKind::Elements])
            .iter()
            .map(|b| fmt_counts(&b.counts))
            .collect();
    assert!(
        masks.iter().any(|c| c == "CRSL 1, GOTO 1, ALOV 1"),
        "{masks:?}"
    );
}

#[test]
fn masked_elsewhere_evaluates_its_mask() {
    // The mask of a masked ELSEWHERE is an array expression evaluated per element, like
    // the WHERE's own mask; a plain ELSEWHERE has none.
    let src = "program t
  implicit none
  real :: u(10), v(10)
  v = 1.0
  where (v > 2.0)             ! @where
    u = 1.0
  elsewhere (v < -2.0)        ! @masked
    u = 2.0
  elsewhere                   ! @plain
    u = 3.0
  end where
end program t
";
    let a = analyze_ok(src);
    let u = a.unit("t");
    let el = |m: &str| elements_at(u, line_of(src, m));
    // The standard evaluates each mask before its assignments: kept in a logical
    // temporary (SLGL), loaded and tested by the WHERE's assignment and the plain
    // ELSEWHERE's (ARR1, GOTO), and by the masked ELSEWHERE's mask and assignment.
    // Each assignment's element loop runs over every element: its overhead (ALOV) is
    // the mask's (two loops for the WHERE's, one for the masked ELSEWHERE's), and the
    // assignment keeps only its own work, run where its mask holds.
    assert_eq!(
        fmt_counts(&el("@where").counts),
        "CRSL 1, GOTO 2, ARR1 2, ALOV 3, SLGL 1"
    );
    assert_eq!(
        fmt_counts(&el("@masked").counts),
        "CRSL 1, GOTO 2, ARR1 2, ALOV 2, SLGL 1"
    );
    let assignments = blocks_with(
        u,
        line_of(src, "@where") + 1,
        &[augur_ir::BlockKind::Elements],
    );
    assert!(
        !assignments.is_empty()
            && assignments
                .iter()
                .all(|b| b.counts.get(augur_ir::AbOp::ALOV) == 0.0),
        "{:?}",
        assignments
            .iter()
            .map(|b| fmt_counts(&b.counts))
            .collect::<Vec<_>>()
    );
    assert!(blocks_with(u, line_of(src, "@plain"), &[augur_ir::BlockKind::Elements]).is_empty());
    // One ALIN for each mask and each assignment, and for `v = 1.0`.
    assert_eq!(block_ops(u, line_of(src, "@where")), "ALIN 6");
}

/// Which assignments write a register when the compiler optimizes
/// (`augur_ir::count::register_write`): stores and scalar copies into local scalars,
/// never array elements, COMMON variables, components or loads of array elements.
#[test]
fn register_writes_of_local_scalars() {
    use augur_ir::count::register_write;
    use augur_ir::AbOp;
    let cases: &[(&str, Option<AbOp>)] = &[
        ("x = x + y", Some(AbOp::SRSL)),
        ("i = 3", Some(AbOp::SISL)),
        ("d = e", Some(AbOp::TRDL)),
        ("l1 = l2", Some(AbOp::SLGL)),
        ("x = a(i)", None),
        ("a(i) = x + y", None),
        ("g = g * x", None),
        ("x = g", None),
        ("x = g + y", Some(AbOp::SRSL)),
        ("s = s2", None),
    ];
    let stmts: Vec<&str> = cases.iter().map(|c| c.0).collect();
    let (src, lines) = block_program("", DECLS, &stmts);
    let a = analyze_ok(&src);
    let u = a.unit("t");
    for ((stmt, want), line) in cases.iter().zip(lines) {
        let b = block_at(u, line);
        let got: Vec<Option<AbOp>> = b
            .stmts
            .iter()
            .map(|&s| register_write(&u.stmts[s as usize].kind))
            .collect();
        assert_eq!(got, vec![*want], "`{stmt}`");
    }
}

/// Divisions and remainders by powers of two of values the compiler knows are
/// non-negative are a shift and a mask (`BITI`, `augur_ir::ranges`): the index of a DO
/// loop from a non-negative literal, the variable of `DO WHILE (v > 0)` that the loop
/// only halves. Elsewhere they keep the signed forms (`DIC2`, `MOC2`), and so does the
/// recurrence of a loop that may see negative values.
#[test]
fn shifts_of_values_known_non_negative() {
    let src = "program rg
  implicit none
  integer :: x, v, w, c, i, s, a(100)
  read *, x
  v = x
  c = 0
  do while (v > 0)
    c = c + mod(v, 2) ! popcount
    v = v / 2 ! halve
  end do
  w = x
  do while (w > 0)
    c = c + mod(w, 2) ! grows
    w = w / 2 + x ! not only halved
  end do
  s = 0
  do i = 1, 100
    a(i) = i / 4 + mod(i, 8) ! fromone
  end do
  do i = -5, 5
    s = s + i / 2 ! from minus five
  end do
  do i = 0, 100, 2
    s = s + a(i / 2 + 1) ! subscript
  end do
  print *, c, s, a(7)
end program rg
";
    let a = analyze_ok(src);
    let u = a.unit("rg");
    assert_eq!(
        block_ops(u, line_of(src, "popcount")),
        "SISL 2, AISL 1, BITI 2"
    );
    assert_eq!(
        block_ops(u, line_of(src, "grows")),
        "SISL 2, AISL 2, DIC2 1, MOC2 1"
    );
    assert_eq!(
        block_ops(u, line_of(src, "fromone")),
        "SISL 1, AISL 1, ARR1 1, BITI 2"
    );
    assert_eq!(block_ops(u, line_of(src, "five")), "SISL 1, AISL 1, DIC2 1");
    assert_eq!(
        block_ops(u, line_of(src, "subscript")),
        "SISL 1, AISL 1, ARR1 1, IADD 1, BITI 1"
    );
    // The recurrence `v = v / 2` is a shift now; `w = w / 2 + x` keeps its division.
    let halve = a
        .unit("rg")
        .stmts
        .iter()
        .find(|s| s.span.start.line == line_of(src, "halve"))
        .unwrap();
    let chain = augur_ir::chain::chain_counts(&halve.kind);
    assert_eq!(fmt_counts(&chain), "BITI 1", "{chain:?}");
}

/// A variable whose range (`augur_ir::intervals`) is non-negative across the whole unit,
/// as GCC's value-range propagation finds it: the linear congruential generator's
/// `mod(x*a + c, 2**31)` is a mask and `x / 8192` a shift. One possibly negative
/// assignment, a procedure it is passed to, a READ, an initial value from elsewhere
/// (DATA) or a range that does not settle leaves the signed forms.
#[test]
fn shifts_of_variables_only_assigned_non_negative_values() {
    let src = "program lcg
  implicit none
  integer, parameter :: i8 = selected_int_kind(18)
  integer :: i, s, k, h, lo, hi, mid
  integer(i8) :: x, y, z, d, t
  data d /5/
  t = 0
  h = 64
  call flip()
  h = h / 2 ! hosted
  lo = 1
  hi = 400
  do while (hi - lo > 1)
    mid = (lo + hi) / 2 ! bisect
    if (mod(mid, 3) == 0) then
      hi = mid
    else
      lo = mid
    end if
  end do
  t = lo
  do i = 1, 1000
    x = mod(int(i, i8) * 69069_i8 + 1_i8, 2147483648_i8)
    y = -x
    z = x
    do s = 1, 8
      x = mod(x * 1103515245_i8 + 12345_i8, 2147483648_i8) ! step
      x = ieor(x, x / 8192_i8) ! mix
      y = mod(y * 3_i8 + 1_i8, 1024_i8) ! negative
      d = d / 2_i8 ! fromdata
    end do
    call touch(z)
    z = z / 4_i8 ! passed
    k = int(mod(x / 8388608_i8, 256_i8)) + 1 ! bin
    t = t + x + y + z + d + k
  end do
  print *, t
contains
  subroutine flip()
    h = -h
  end subroutine
  subroutine touch(v)
    integer(i8) :: v
    v = v - 7
  end subroutine
end program lcg
";
    let a = analyze_ok(src);
    let u = a.unit("lcg");
    let step = stmt_ops(u, line_of(src, "step"));
    assert!(step.contains("BITI 1") && !step.contains("MOC2"), "{step}");
    let mix = stmt_ops(u, line_of(src, "mix"));
    assert!(mix.contains("BITI 2") && !mix.contains("DIC2"), "{mix}");
    let negative = stmt_ops(u, line_of(src, "negative"));
    assert!(negative.contains("MOC2 1"), "{negative}");
    assert!(stmt_ops(u, line_of(src, "fromdata")).contains("DIC2 1"));
    assert!(stmt_ops(u, line_of(src, "passed")).contains("DIC2 1"));
    assert!(stmt_ops(u, line_of(src, "hosted")).contains("DIC2 1"));
    // A bisection's bounds keep moving pass after pass: given up, as GCC does.
    assert!(stmt_ops(u, line_of(src, "bisect")).contains("DIC2 1"));
    let bin = stmt_ops(u, line_of(src, "bin"));
    assert!(bin.contains("BITI 2") && !bin.contains("MOC2"), "{bin}");
}

#[test]
fn side_by_side_paths_of_a_recurrence_cost_the_longer() {
    // `s/8 + mod(s, 8)/4` reads the carried value twice; the shift and the mask run
    // side by side, so the recurrence is the longer path (mask, shift, add) and the
    // sum of the loads before it: one `DIC2`, not two.
    let src = "program sbs
  implicit none
  integer :: i, s, h(100)
  h = 1
  s = 0
  do i = 2, 100
    s = 4 * h(i) + h(i - 1)
    h(i) = s / 8 + mod(s, 8) / 4 ! update
  end do
  print *, h(100)
end program sbs
";
    let a = analyze_ok(src);
    let u = a.unit("sbs");
    let b = block_at(u, line_of(src, "update"));
    let stmts: Vec<&augur_ir::StmtKind> =
        b.stmts.iter().map(|&k| &u.stmts[k as usize].kind).collect();
    let index = augur_ir::chain::LoopIndex {
        var: "i",
        descending: false,
    };
    let kinds = augur_ir::chain::as_scalar_recurrences(stmts, index);
    let chain = augur_ir::chain::block_chain_counts(kinds.iter());
    assert_eq!(
        chain.get(augur_ir::AbOp::DIC2),
        1.0,
        "{}",
        fmt_counts(&chain)
    );
    assert_eq!(
        chain.get(augur_ir::AbOp::MOC2),
        1.0,
        "{}",
        fmt_counts(&chain)
    );
    assert_eq!(
        chain.get(augur_ir::AbOp::AISL),
        2.0,
        "{}",
        fmt_counts(&chain)
    );
}

#[test]
fn statement_functions_are_expanded_where_referenced() {
    // Compilers always inline a statement function: its reference costs the operations
    // of its expression on the actual arguments, and no call.
    let src = "      program t
      double precision x, y, s, f, g, z, w
      integer i
      f(z) = dexp(-0.5d0 * z * z) / z
      g(z, w) = f(z) + w * w
      s = 0.0d0
      do i = 1, 10
         x = dble(i)
         y = f(x)
         s = s + g(x, y)
      end do
      print *, s
      end
";
    let a = analyze_ok(src);
    let u = a.unit("t");
    assert_eq!(stmt_ops(u, 9), "SRDL 1, ARDL 1, MRDL 2, DRDL 1, EXPD 1");
    // A statement function inside another: both expanded; the reduction reads `s`.
    assert_eq!(stmt_ops(u, 10), "SRDL 1, ARDL 3, MRDL 3, DRDL 1, EXPD 1");
    let sum = u.stmts.iter().find(|s| s.span.start.line == 10).unwrap();
    let chain = augur_ir::chain::chain_counts(&sum.kind);
    assert_eq!(fmt_counts(&chain), "ARDL 1", "{chain:?}");
    assert!(!stmt_ops(u, 9).contains("PROC"));
}

#[test]
fn transformational_intrinsics_start_once_per_statement() {
    // Each CSHIFT is evaluated once into a temporary: its start (ALIN) is counted once per
    // execution of the statement, not once per element of the enclosing expression.
    let src = "program t
  implicit none
  integer :: ig(64, 64), nb(64, 64)
  ig = 1
  nb = cshift(ig, 1, 1) + cshift(cshift(ig, -1, 1), 1, 2)   ! @shift
  print *, sum(nb)
end program t
";
    let a = analyze_ok(src);
    let u = a.unit("t");
    let line = line_of(src, "@shift");
    assert!(
        stmt_ops(u, line).contains("ALIN 4"),
        "{}",
        stmt_ops(u, line)
    );
    for b in u
        .blocks
        .iter()
        .filter(|b| b.kind == augur_ir::BlockKind::Elements && b.span.start.line == line)
    {
        assert_eq!(b.counts.get(augur_ir::AbOp::ALIN), 0.0, "{:?}", b.counts);
    }
}

#[test]
fn shifted_sections_count_as_the_do_loop_they_stand_for() {
    // `v(2:n-1) = u(1:n-2) + u(3:n)` is `v(i) = u(i-1) + u(i+1)` over i = 2, n-1: each
    // section starting where the left-hand side's does not adds the same IADD per
    // element as the offset in the DO loop's subscript (gfortran compiles both alike).
    let src = "program t
  implicit none
  integer, parameter :: n = 64
  real(8) :: u(n, n), v(n, n)
  integer :: i, j
  u = 1.0d0
  v = 0.0d0
  do j = 2, n - 1
    do i = 2, n - 1
      v(i, j) = u(i-1, j) + u(i+1, j) + u(i, j-1) + u(i, j+1) - 4.0d0 * u(i, j)   ! @loop
    end do
  end do
  v(2:n-1, 2:n-1) = u(1:n-2, 2:n-1) + u(3:n, 2:n-1) + u(2:n-1, 1:n-2) &   ! @sections
                  + u(2:n-1, 3:n) - 4.0d0 * u(2:n-1, 2:n-1)
  print *, sum(v)
end program t
";
    let a = analyze_ok(src);
    let u = a.unit("t");
    let without_loop_overhead = |b: &augur_ir::Block| {
        b.counts
            .iter()
            .filter(|&(op, n)| op != augur_ir::AbOp::ALOV && n != 0.0)
            .collect::<Vec<_>>()
    };
    let do_form = without_loop_overhead(block_at(u, line_of(src, "@loop")));
    let sections = without_loop_overhead(elements_at(u, line_of(src, "@sections")));
    assert!(
        sections.contains(&(augur_ir::AbOp::IADD, 4.0)),
        "{sections:?}"
    );
    assert_eq!(do_form, sections);
}

#[test]
fn floating_maxval_carries_its_maximum() {
    // `maxval` of a real array keeps its running maximum in a register, one `maxsd` an
    // element after the other: a recurrence like `sum`'s, priced at the add's latency.
    // An integer one is left without (its compare and move are not modelled as a chain).
    let src = "program t
  implicit none
  real(8) :: w(1000), mx
  integer :: k(1000), km
  w = 1.0d0
  k = 2
  mx = maxval(abs(w))   ! @real
  km = minval(k)        ! @int
  print *, mx, km
end program t
";
    let a = analyze_ok(src);
    let u = a.unit("t");
    let chain_on = |marker: &str| &elements_at(u, line_of(src, marker)).element_chain;
    assert_eq!(chain_on("@real").get(augur_ir::AbOp::ARDL), 1.0);
    assert_eq!(chain_on("@int").total(), 0.0);
}

#[test]
fn element_counts_take_the_size_of_an_array_operand() {
    // The instrumented run counts `size(w)`, not `size(abs(w))`: the latter has the
    // compiler build the expression in a temporary (a heap block whose release changes
    // when the program's own scratch arrays fault).
    let src = "program t
  implicit none
  real(8) :: w(1000), v(1000), mx
  integer :: c, i
  w = 1.0d0
  v = 2.0d0
  mx = maxval(abs(w))        ! @abs
  c = count(v < -0.3d0)      ! @mask
  mx = sum([(w(i), i = 1, 1000, 2)])   ! @ctor
  print *, mx, c, sum(transpose(reshape(w, [10, 100])))
end program t
";
    let a = analyze_ok(src);
    let u = a.unit("t");
    let elements_on = |marker: &str| {
        let line = line_of(src, marker);
        u.loops
            .iter()
            .find(|l| l.span.start.line == line)
            .and_then(|l| l.elements.clone())
            .unwrap_or_else(|| panic!("no array loop on line {line}"))
    };
    assert_eq!(elements_on("@abs"), "size(w)");
    assert_eq!(elements_on("@mask"), "size(v)");
    // An implied DO prints back with its loop control.
    assert_eq!(elements_on("@ctor"), "size([(w(i), i = 1, 1000, 2)])");
}

#[test]
fn a_reduction_inside_a_section_assignment_is_not_shifted() {
    // `sum(w(1:n))` is its own loop: its section is not an offset of `v(2:n)`'s index.
    let src = "program t
  implicit none
  integer, parameter :: n = 100
  real(8) :: v(n), w(n)
  w = 1.0d0
  v(2:n) = w(1:n-1) * sum(w(1:n))   ! @mixed
  print *, sum(v)
end program t
";
    let a = analyze_ok(src);
    let u = a.unit("t");
    let iadds: Vec<f64> = blocks_with(u, line_of(src, "@mixed"), &[augur_ir::BlockKind::Elements])
        .iter()
        .map(|b| b.counts.get(augur_ir::AbOp::IADD))
        .collect();
    // The assignment's element block: one IADD (`w(1:n-1)` beside `v(2:n)`); the sum's: none.
    assert_eq!(iadds.len(), 2, "{iadds:?}");
    assert_eq!(iadds.iter().sum::<f64>(), 1.0, "{iadds:?}");
}

/// The static AbOps of unit `name` of `src` analyzed as built with `flags`.
fn unit_ops_with_flags(src: &str, flags: &[&str]) -> augur_ir::AbOpCounts {
    let flags: Vec<String> = flags.iter().map(|f| f.to_string()).collect();
    let opts = augur_fortran::FrontEndOptions {
        default_kinds: augur_fortran::DefaultKinds::from_flags(&flags),
        ..Default::default()
    };
    let a = analyze_files_with(&[("k.f", src)], &opts);
    a.assert_clean();
    a.unit("kp").static_total()
}

#[test]
fn kind_promotion_flags_change_the_precision_counted() {
    use augur_ir::AbOp;
    let src = "      PROGRAM KP
      DOUBLE PRECISION D, E
      REAL*8 R8
      REAL(KIND=8) Q8
      REAL S, T
      REAL(4) S4
      INTEGER(4) I4, J4
      D = D + E
      R8 = R8 + 1.0D0
      Q8 = Q8 + 2.0_8
      S = S + T
      S4 = S4 + 1.0_4
      I4 = I4 + J4
      PRINT *, D, R8, Q8, S, S4, I4
      END
";
    let ops = |flags: &[&str]| {
        let c = unit_ops_with_flags(src, flags);
        [
            c.get(AbOp::ARSL),
            c.get(AbOp::ARDL),
            c.get(AbOp::AISL),
            c.get(AbOp::AIDL),
        ]
    };
    // Single, double, default integer, 8-byte integer additions.
    assert_eq!(ops(&["-O2"]), [2.0, 3.0, 1.0, 0.0]);
    // REAL(8), REAL*8, DOUBLE PRECISION and 1.0_8 are single precision.
    assert_eq!(ops(&["-O2", "-freal-8-real-4"]), [5.0, 0.0, 1.0, 0.0]);
    // REAL, REAL(4) and 1.0_4 are double precision.
    assert_eq!(ops(&["-freal-4-real-8"]), [0.0, 5.0, 1.0, 0.0]);
    // The default real only (DOUBLE PRECISION goes to 16 bytes, counted as double);
    // REAL(4) stays single.
    assert_eq!(ops(&["-fdefault-real-8"]), [1.0, 4.0, 1.0, 0.0]);
    assert_eq!(
        ops(&["-fdefault-real-8", "-fdefault-double-8"]),
        [1.0, 4.0, 1.0, 0.0]
    );
    // INTEGER(4) is 8 bytes.
    assert_eq!(ops(&["-finteger-4-integer-8"]), [2.0, 3.0, 0.0, 1.0]);
    assert_eq!(ops(&["-fdefault-integer-8"]), [2.0, 3.0, 1.0, 0.0]);
}
