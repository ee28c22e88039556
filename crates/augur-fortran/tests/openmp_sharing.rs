//! Stores through which OpenMP threads share cache lines (`augur_ir::omp_sharing`),
//! found in lowered source: per-thread accumulators one word apart (false sharing),
//! padded a line apart, one element every thread stores into, and the stores left
//! alone (partitioned by the loop, private, under ATOMIC, data-dependent).

mod common;
use common::{analyze_ok, line_of};

#[test]
fn per_thread_accumulators_and_their_distances() {
    let src = "program fs
  use omp_lib
  implicit none
  integer, parameter :: n = 1000, pad = 8
  integer(8) :: acc(0:63), padded(0:1023), one(4), a(n), h(256), mine
  real(8) :: r(0:63)
  integer :: i, tid, k
  acc = 0
  padded = 0
  one = 0
  h = 0
!$omp parallel private(tid, i, k, mine)
  tid = omp_get_thread_num()
!$omp do
  do i = 1, n
    acc(tid) = acc(tid) + i ! adjacent
    padded(pad * tid) = padded(pad * tid) + i ! lineapart
    r(2 * tid + 1) = r(2 * tid + 1) + 1d0 ! pairs
    one(1) = one(1) + 1 ! same
    a(i) = i ! partitioned
    mine = mine + i ! private
    k = mod(i, 256) + 1
!$omp atomic
    h(k) = h(k) + 1 ! atomic
    h(k) = h(k) + 1 ! datadependent
  end do
!$omp end do
!$omp end parallel
  print *, acc(0), padded(0), one(1), a(n), h(1), r(1)
end program fs
";
    let a = analyze_ok(src);
    let u = a.prog.units.iter().find(|u| u.name == "fs").unwrap();
    let st = augur_ir::omp::structure(u);
    let stores: Vec<(u32, &str, u64)> = st
        .constructs
        .iter()
        .flat_map(|c| &c.shared_stores)
        .map(|s| (s.line, s.array.as_str(), s.distance_bytes))
        .collect();
    assert_eq!(
        stores,
        vec![
            (line_of(src, "adjacent"), "acc", 8),
            (line_of(src, "lineapart"), "padded", 64),
            (line_of(src, "pairs"), "r", 16),
            (line_of(src, "same"), "one", 0),
        ],
        "{st:#?}"
    );
    // Every one of them is on the DO construct, with the block of its statement.
    let on_do = st
        .constructs
        .iter()
        .find(|c| c.directive.kind == augur_ir::omp::ConstructKind::Loop)
        .unwrap();
    assert_eq!(on_do.shared_stores.len(), 4);
    for s in &on_do.shared_stores {
        let b = &u.blocks[s.block.0 as usize];
        assert!(b
            .stmts
            .iter()
            .any(|&k| u.stmts[k as usize].span.start.line == s.line));
    }
}

#[test]
fn an_atomic_on_a_table_slot_spreads_one_on_a_variable_does_not() {
    let src = "program at
  implicit none
  integer :: h(256), total, i, k
  h = 0
  total = 0
!$omp parallel do private(k)
  do i = 1, 1000
    k = mod(i * 7, 256) + 1
!$omp atomic
    h(k) = h(k) + 1 ! slot
!$omp atomic
    total = total + 1 ! variable
!$omp atomic
    h(3) = h(3) + 1 ! fixed
  end do
!$omp end parallel do
  print *, h(1), total
end program at
";
    let a = analyze_ok(src);
    let u = a.prog.units.iter().find(|u| u.name == "at").unwrap();
    let st = augur_ir::omp::structure(u);
    let atomics: Vec<(u32, bool)> = st
        .constructs
        .iter()
        .filter(|c| c.directive.kind == augur_ir::omp::ConstructKind::Atomic)
        .map(|c| (c.line + 1, c.spread_target))
        .collect();
    assert_eq!(
        atomics,
        vec![
            (line_of(src, "slot"), true),
            (line_of(src, "variable"), false),
            (line_of(src, "fixed"), false),
        ]
    );
}
