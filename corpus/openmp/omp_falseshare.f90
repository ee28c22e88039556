!=====================================================================
! omp_falseshare.f90 - The same integer sum, the sum over i = 1..n of
! the multiplicative hash (i * 2654435761) mod 1024, accumulated three
! ways inside one !$omp do each:
!  (1) adjacent: thread t adds into acc(t) of a shared array, so all
!      threads' counters share one 64-byte cache line (false sharing);
!  (2) padded: thread t adds into pad(8*t), one cache line per thread;
!  (3) private: a private scalar, added to a shared total once per
!      thread under !$omp atomic.
! acc and pad are VOLATILE, so every iteration really loads and
! stores the shared element (as an accumulation through memory in a
! larger code would); otherwise the compiler could keep the counter
! in a register.  All three totals are integer(8) sums, identical for
! any thread count; the time of (1) grows with the thread count when
! the threads run on different cores.
! Exercises: shared accumulator arrays indexed by omp_get_thread_num
!   (under !$, 0 in the serial build), omp_get_max_threads, VOLATILE
!   allocatable arrays, integer(8) multiply and iand, !$omp atomic.
! Runtime class: integer compute-bound with a load-store dependence
!   through memory; coherence-bound (false sharing) with >1 thread.
!=====================================================================
program omp_falseshare
!$ use omp_lib
  implicit none
  integer, parameter :: i8 = selected_int_kind(18)
  integer, parameter :: n = 180000000, pstride = 8
  integer(i8), volatile, allocatable :: acc(:), pad(:)
  integer(i8) :: t1, t2, t3, mine, v
  integer :: i, tid, nthr

  nthr = 1
!$ nthr = omp_get_max_threads()
  allocate(acc(0:nthr-1), pad(0:pstride*nthr-1))
  acc = 0_i8
  pad = 0_i8
  t3 = 0_i8

!$omp parallel private(tid, i, v, mine)
  tid = 0
!$ tid = omp_get_thread_num()

  ! (1) adjacent counters: false sharing
!$omp do schedule(static)
  do i = 1, n
    v = iand(int(i, i8) * 2654435761_i8, 1023_i8)
    acc(tid) = acc(tid) + v
  end do
!$omp end do

  ! (2) counters one cache line apart
!$omp do schedule(static)
  do i = 1, n
    v = iand(int(i, i8) * 2654435761_i8, 1023_i8)
    pad(pstride*tid) = pad(pstride*tid) + v
  end do
!$omp end do

  ! (3) private accumulator, one atomic update per thread
  mine = 0_i8
!$omp do schedule(static)
  do i = 1, n
    v = iand(int(i, i8) * 2654435761_i8, 1023_i8)
    mine = mine + v
  end do
!$omp end do
!$omp atomic
  t3 = t3 + mine
!$omp end parallel

  t1 = 0_i8
  t2 = 0_i8
  do i = 0, nthr - 1
    t1 = t1 + acc(i)
    t2 = t2 + pad(pstride*i)
  end do

  print '(a,i0)', ' OMP_FALSESHARE n=', n
  print '(a,i0)', ' adjacent total=', t1
  print '(a,i0)', ' padded   total=', t2
  print '(a,i0)', ' private  total=', t3
  if (t1 == t2 .and. t2 == t3) then
    print '(a)', ' totals agree'
  else
    print '(a)', ' TOTALS DIFFER'
  end if
  deallocate(acc, pad)
end program omp_falseshare
