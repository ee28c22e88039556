//! The optimization opportunities of `augur_ir::opportunities` on small programs:
//! loop invariants, common subexpressions and badly ordered nests.

mod common;
use augur_ir::opportunities::{find, Opportunity, OpportunityKind};
use common::*;

/// The opportunities of the loop whose DO is on the line marked `marker`.
fn at_loop(src: &str, marker: &str) -> Vec<Opportunity> {
    let a = analyze_ok(src);
    let (u, l) = loop_at(&a, src, marker);
    find(u, l)
}

fn of_kind(v: &[Opportunity], kind: OpportunityKind) -> Vec<&Opportunity> {
    v.iter().filter(|o| o.kind == kind).collect()
}

const INVARIANT: &str = "program p
  implicit none
  integer :: i, n
  real(8) :: a(100), b(100), x, y
  n = 100
  x = 2.0d0
  y = 3.0d0
  do i = 1, n ! outer
    a(i) = b(i) * (x / y) + sqrt(x) ! inv
  end do
  print *, a(1)
end program
";

#[test]
fn invariant_operations_are_found_with_their_counts() {
    let v = at_loop(INVARIANT, "outer");
    let inv = of_kind(&v, OpportunityKind::Invariant);
    let texts: Vec<&str> = inv.iter().map(|o| o.text.as_str()).collect();
    assert_eq!(texts, ["(x / y)", "sqrt(x)"], "{v:?}");
    assert!(inv.iter().all(|o| o.scope == "local"));
    assert!(inv.iter().all(|o| o.line == line_of(INVARIANT, "inv")));
    assert!(inv.iter().all(|o| o.saved.total() >= 1.0), "{inv:?}");
}

#[test]
fn an_operand_changed_in_the_loop_is_not_invariant() {
    let src = INVARIANT.replace("! inv\n", "! inv\n    x = x + 1.0d0\n");
    let v = at_loop(&src, "outer");
    assert!(of_kind(&v, OpportunityKind::Invariant).is_empty(), "{v:?}");
}

#[test]
fn a_call_in_the_loop_may_change_its_arguments() {
    let src = INVARIANT.replace("! inv\n", "! inv\n    call touch(y)\n");
    let v = at_loop(&src, "outer");
    let texts: Vec<&str> = v.iter().map(|o| o.text.as_str()).collect();
    assert_eq!(texts, ["sqrt(x)"], "{v:?}");
}

#[test]
fn an_invariant_under_a_condition_is_global() {
    let src = INVARIANT.replace(
        "    a(i) = b(i) * (x / y) + sqrt(x) ! inv\n",
        "    if (b(i) > 0) then\n      a(i) = b(i) * (x / y) ! inv\n    end if\n",
    );
    let v = at_loop(&src, "outer");
    let inv = of_kind(&v, OpportunityKind::Invariant);
    assert_eq!(inv.len(), 1, "{v:?}");
    assert_eq!(inv[0].scope, "global");
}

const CSE: &str = "program p
  implicit none
  integer :: i
  real(8) :: a(100), b(100), c(100), x, y
  x = 2.0d0
  y = 3.0d0
  do i = 1, 100 ! loop
    a(i) = (b(i) + c(i)) / y + (b(i) + c(i)) * x ! twice
  end do
  print *, a(1)
end program
";

#[test]
fn a_repeated_subexpression_is_found() {
    let v = at_loop(CSE, "loop");
    let cse = of_kind(&v, OpportunityKind::CommonSubexpression);
    assert_eq!(cse.len(), 1, "{v:?}");
    assert_eq!(cse[0].text, "(b(i) + c(i))");
    assert_eq!(cse[0].scope, "local");
    assert_eq!(cse[0].line, line_of(CSE, "twice"));
    assert!(cse[0].saved.total() >= 1.0);
}

#[test]
fn a_store_between_two_occurrences_kills_the_first() {
    let src = CSE.replace(
        "    a(i) = (b(i) + c(i)) / y + (b(i) + c(i)) * x ! twice\n",
        "    a(i) = (b(i) + c(i)) / y ! twice\n    b(i) = 0\n    x = (b(i) + c(i)) * x\n",
    );
    let v = at_loop(&src, "loop");
    assert!(
        of_kind(&v, OpportunityKind::CommonSubexpression).is_empty(),
        "{v:?}"
    );
}

#[test]
fn a_subexpression_of_the_first_block_is_reused_across_a_branch() {
    let src = CSE.replace(
        "    a(i) = (b(i) + c(i)) / y + (b(i) + c(i)) * x ! twice\n",
        "    a(i) = (b(i) + c(i)) / y\n    if (a(i) > 0) then\n      a(i) = (b(i) + c(i)) * x ! twice\n    end if\n",
    );
    let v = at_loop(&src, "loop");
    let cse = of_kind(&v, OpportunityKind::CommonSubexpression);
    assert_eq!(cse.len(), 1, "{v:?}");
    assert_eq!(cse[0].scope, "global");
    assert_eq!(cse[0].line, line_of(&src, "twice"));
}

#[test]
fn values_of_two_arms_are_not_reused() {
    let src = CSE.replace(
        "    a(i) = (b(i) + c(i)) / y + (b(i) + c(i)) * x ! twice\n",
        "    if (x > 0) then\n      a(i) = (b(i) + c(i)) / y\n    else\n      a(i) = (b(i) + c(i)) * x ! twice\n    end if\n",
    );
    let v = at_loop(&src, "loop");
    assert!(
        of_kind(&v, OpportunityKind::CommonSubexpression).is_empty(),
        "{v:?}"
    );
}

const NEST: &str = "program p
  implicit none
  integer :: i, j
  real(8) :: a(64, 64), b(64, 64)
  b = 1.0d0
  do i = 1, 64 ! outer
    do j = 1, 64 ! inner
      a(i, j) = b(i, j) * 2.0d0
    end do
  end do
  print *, a(1, 1)
end program
";

#[test]
fn a_nest_walking_rows_is_found_on_its_inner_loop() {
    let v = at_loop(NEST, "inner");
    let s = of_kind(&v, OpportunityKind::StridedNest);
    assert_eq!(s.len(), 1, "{v:?}");
    assert_eq!(s[0].outer_line, Some(line_of(NEST, "outer")));
    assert_eq!(s[0].text, "a(i, j), b(i, j)");
    assert!(at_loop(NEST, "outer").is_empty());
}

#[test]
fn a_nest_in_column_order_is_not() {
    let src = NEST.replace("a(i, j) = b(i, j)", "a(j, i) = b(j, i)");
    assert!(at_loop(&src, "inner").is_empty());
    let src = NEST.replace("a(i, j) = b(i, j)", "a(j, i) = b(i, j)");
    assert!(
        at_loop(&src, "inner").is_empty(),
        "a transpose gains nothing"
    );
}
