//! Scalar operand references (`augur_ir::counts::ScalarOperands`), counted beside the
//! AbOps block by block: every statement under test sits alone in a block.

mod common;
use augur_ir::{BlockKind, ScalarOperands};
use common::*;

const DECLS: &str = "
  implicit none
  integer :: i, j, n
  real :: x, y, a(10), b(10, 10), v(10), w(10)
  logical :: l1, l2
  integer, parameter :: M = 5
  real :: g, ga(10)
  integer :: ig
  common /blk/ g, ga, ig";

/// `(local, global)` references of a block, and of its element block when it has one.
type Expected = ((f64, f64), Option<(f64, f64)>);

fn pair(s: &ScalarOperands) -> (f64, f64) {
    (s.local, s.global)
}

/// Checks each `(statement, expected)` alone in a block.
fn check(cases: &[(&str, Expected)]) {
    let stmts: Vec<&str> = cases.iter().map(|c| c.0).collect();
    let (src, lines) = block_program("", DECLS, &stmts);
    let a = analyze_src("t.f90", &src);
    a.assert_clean();
    let u = a.unit("t");
    let mut failures = vec![];
    for ((stmt, want), line) in cases.iter().zip(lines) {
        let once = pair(&block_at(u, line).scalar_operands);
        let elements = blocks_with(u, line, &[BlockKind::Elements]);
        let per = elements.first().map(|b| pair(&b.scalar_operands));
        if (once, per) != *want {
            failures.push(format!(
                "  `{stmt}`: expected {want:?}, got {:?}",
                (once, per)
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "wrong scalar operands:\n{}\n--- source ---\n{src}",
        failures.join("\n")
    );
}

#[test]
fn scalar_references_in_assignments_and_conditions() {
    check(&[
        // Both sides of an assignment.
        ("x = x + y", ((3.0, 0.0), None)),
        ("x = y", ((2.0, 0.0), None)),
        // Literals and named constants are no operands.
        ("x = 1.0", ((1.0, 0.0), None)),
        ("i = 2*M + j", ((2.0, 0.0), None)),
        // COMMON variables are global.
        ("g = g * x", ((1.0, 2.0), None)),
        ("ig = ig + 1", ((0.0, 2.0), None)),
        // Subscripts are the address computation (ARRn), not operands.
        ("x = a(i)", ((1.0, 0.0), None)),
        ("x = a(i + j)", ((1.0, 0.0), None)),
        ("a(i) = b(i, j) * x", ((1.0, 0.0), None)),
        ("ga(i) = x", ((1.0, 0.0), None)),
        ("x = a(3)", ((1.0, 0.0), None)),
        // Conditions, intrinsic arguments, output items.
        ("l1 = x < y .and. i == j", ((5.0, 0.0), None)),
        ("l1 = .not. l2", ((2.0, 0.0), None)),
        ("x = sqrt(y) + max(x, g)", ((3.0, 1.0), None)),
        ("print *, x, i", ((2.0, 0.0), None)),
        // Inquiry intrinsics read no value.
        ("i = kind(x) + size(a)", ((1.0, 0.0), None)),
    ]);
}

#[test]
fn scalar_references_of_array_statements() {
    check(&[
        // A scalar in an element-wise expression: once per element.
        ("v = w + x", ((0.0, 0.0), Some((1.0, 0.0)))),
        ("v(1:n) = g * w(1:n)", ((0.0, 0.0), Some((0.0, 1.0)))),
        // A scalar operation is evaluated once, before the element loop.
        ("v = w * (x / y)", ((2.0, 0.0), Some((0.0, 0.0)))),
        // A reduction into a scalar.
        ("x = sum(v)", ((1.0, 0.0), Some((0.0, 0.0)))),
        ("v = 0.0", ((0.0, 0.0), Some((0.0, 0.0)))),
    ]);
}

#[test]
fn do_loops_count_their_bounds_once() {
    let src = "program t
  implicit none
  integer :: i, n
  real :: s, a(100)
  n = 100
  s = 0.0
  do i = 1, n              ! @do
    s = s + a(i) * 2.0     ! @body
  end do
  do while (s > 1.0)       ! @while
    s = s / 2.0
  end do
  print *, s
end program t
";
    let a = analyze_ok(src);
    let u = a.unit("t");
    let body = block_at(u, line_of(src, "@body"));
    assert_eq!(pair(&body.scalar_operands), (2.0, 0.0));
    // The bound `n` is read at the loop's set-up; each iteration tests `s`.
    assert_eq!(
        pair(&header_at(u, line_of(src, "@do")).scalar_operands),
        (0.0, 0.0)
    );
    assert_eq!(
        pair(&header_at(u, line_of(src, "@while")).scalar_operands),
        (1.0, 0.0)
    );
}
