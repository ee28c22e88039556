!=====================================================================
! omp_lockstep.f90 - Self-scheduling with an OpenMP lock.
!  (1) A work queue of nitems items of very different sizes (item k
!      iterates an own LCG w_k times, w_k between 1 and 60000); every
!      thread repeatedly takes the next item number from a shared
!      counter, the take protected by omp_set_lock / omp_unset_lock,
!      until the queue is empty.
!  (2) A wavefront: the longest common subsequence of two LCG strings
!      of length nl over a 4-letter alphabet by dynamic programming,
!      the (nl+1)^2 table cut into nb x nb blocks; the blocks of one
!      anti-diagonal are independent and are taken from the same
!      lock-protected counter (reset by a SINGLE), with a BARRIER
!      between anti-diagonals.
! The lock calls and the lock variable are on !$ lines, so the serial
! build simply runs both queues on one thread.  Results are stored
! per item / per cell and are integers, so the output does not depend
! on the thread count or on which thread took which item.
! Exercises: omp_lock_kind, omp_init_lock / omp_set_lock /
!   omp_unset_lock / omp_destroy_lock under !$, a shared counter in an
!   unbounded DO with EXIT, !$omp single, !$omp barrier, integer DP
!   recurrence with max and branches, integer(8) LCG.
! Runtime class: integer compute-bound, branchy, dynamic load balance
!   (95 MB DP table, block-wise access).
!=====================================================================
program omp_lockstep
!$ use omp_lib
  implicit none
  integer, parameter :: i8 = selected_int_kind(18)
  integer, parameter :: nitems = 4500, wmax = 60000
  integer, parameter :: nl = 4800, bs = 160, nb = nl / bs
  integer, allocatable :: tab(:,:)
  integer :: sa(nl), sb(nl)
  integer(i8) :: res(nitems)
!$ integer(omp_lock_kind) :: lck
  integer :: next, item, k, w, d, lo, hi, bi, bj, i, j, i0, j0, taken
  integer(i8) :: x, seed, qsum, rowsum

  allocate(tab(0:nl, 0:nl))
!$ call omp_init_lock(lck)

  ! ---------------- (1) work queue ----------------
  next = 1
  taken = 0
!$omp parallel private(item, k, w, x) reduction(+:taken)
  do
!$  call omp_set_lock(lck)
    item = next
    next = next + 1
!$  call omp_unset_lock(lck)
    if (item > nitems) exit
    taken = taken + 1
    w = 1 + int(mod(int(item, i8) * int(item, i8) * 7919_i8, int(wmax, i8)))
    x = int(item, i8)
    do k = 1, w
      x = mod(x * 1103515245_i8 + 12345_i8, 2147483648_i8)
    end do
    res(item) = mod(x, 1000003_i8) + w
  end do
!$omp end parallel
  qsum = 0_i8
  do k = 1, nitems
    qsum = mod(qsum * 31_i8 + res(k), 2147483647_i8)
  end do

  ! ---------------- (2) LCS wavefront ----------------
  seed = 777_i8
  do i = 1, nl
    seed = mod(seed * 48271_i8, 2147483647_i8)
    sa(i) = int(seed / 536870912_i8)
    seed = mod(seed * 48271_i8, 2147483647_i8)
    sb(i) = int(seed / 536870912_i8)
  end do
  tab(0, :) = 0
  tab(:, 0) = 0

!$omp parallel private(d, lo, hi, item, bi, bj, i0, j0, i, j)
  do d = 2, 2 * nb
    lo = max(1, d - nb)
    hi = min(nb, d - 1)
!$omp single
    next = lo
!$omp end single
    do
!$    call omp_set_lock(lck)
      item = next
      next = next + 1
!$    call omp_unset_lock(lck)
      if (item > hi) exit
      bi = item
      bj = d - item
      i0 = (bi - 1) * bs
      j0 = (bj - 1) * bs
      do j = j0 + 1, j0 + bs
        do i = i0 + 1, i0 + bs
          if (sa(i) == sb(j)) then
            tab(i, j) = tab(i-1, j-1) + 1
          else
            tab(i, j) = max(tab(i-1, j), tab(i, j-1))
          end if
        end do
      end do
    end do
!$omp barrier
  end do
!$omp end parallel
!$ call omp_destroy_lock(lck)

  rowsum = 0_i8
  do i = 0, nl, 7
    rowsum = rowsum + int(tab(i, nl), i8) * mod(i, 13) + int(tab(nl, i), i8)
  end do

  print '(a,i0,a,i0,a,i0)', ' OMP_LOCKSTEP nitems=', nitems, ' nl=', nl, ' block=', bs
  print '(a,i0,a,i0)', ' queue hash=', qsum, ' items taken=', taken
  print '(a,i0,a,i0,a,i0)', ' LCS length=', tab(nl, nl), ' edge sum=', rowsum, &
       ' mid=', tab(nl/2, nl/2)
  deallocate(tab)
end program omp_lockstep
