//! Busy-wait loops (`augur_ir::busy_wait`): loops that only test shared data until
//! another thread changes it, told from loops that do work.

mod common;
use augur_ir::busy_wait::is_busy_wait;
use common::*;

/// Whether the loop whose DO (or label) is on the line marked `marker` is a busy wait.
fn busy(src: &str, marker: &str) -> bool {
    let a = analyze_ok(src);
    let (u, l) = loop_at(&a, src, marker);
    is_busy_wait(u, l.id)
}

const WAITS: &str = "subroutine waits(me, flag, stamp, x)
  implicit none
  integer :: me, flag(0:7), stamp, k
  real(8) :: x
  do while (flag(me - 1) < stamp) ! flush-while
!$omp flush(flag)
  end do
  do ! exit-loop
!$omp flush(flag)
    if (flag(me) /= 0) exit
  end do
  do while (flag(me) == 0) ! empty-while
  end do
  do while (x < 1.0d0) ! works
    x = x * 1.5d0
  end do
  do ! calls
    call sub(flag)
    if (flag(me) /= 0) exit
  end do
  do k = 1, 10 ! counted
!$omp flush(flag)
  end do
end subroutine
";

#[test]
fn a_loop_that_only_tests_shared_data_is_a_busy_wait() {
    assert!(busy(WAITS, "flush-while"));
    assert!(busy(WAITS, "exit-loop"));
    assert!(busy(WAITS, "empty-while"));
}

#[test]
fn a_loop_that_writes_calls_or_counts_is_not() {
    assert!(!busy(WAITS, "works"));
    assert!(!busy(WAITS, "calls"));
    assert!(!busy(WAITS, "counted"));
}

const GOTO_WAIT: &str = "      subroutine gwait(flag)
      integer flag(0:7)
   10 continue
!$omp flush(flag)
      if (flag(1) .eq. 0) goto 10
      end
";

#[test]
fn a_backward_goto_around_a_flag_test_is_a_busy_wait() {
    let a = analyze_ok(GOTO_WAIT);
    let u = &a.prog.units[0];
    let waits: Vec<_> = u.loops.iter().filter(|l| is_busy_wait(u, l.id)).collect();
    assert_eq!(waits.len(), 1, "{:?}", u.loops);
}
