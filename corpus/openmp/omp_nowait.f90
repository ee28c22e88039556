!=====================================================================
! omp_nowait.f90 - nrep passes of a small array pipeline, each pass
! ONE parallel region holding several worksharing loops:
!   a, b generated (two independent !$omp do, the first NOWAIT),
!   c = a*b + a and d = a - b/2 (independent, the first NOWAIT),
!   e = 3-point smoothing of c and d by an ORPHANED !$omp do inside
!   subroutine smooth (called from the region; END DO NOWAIT and
!   then an explicit !$omp barrier), then an !$omp do with an integer
!   REDUCTION over e.
! Each thread also counts the iterations it executed in the orphaned
! loop into its own slot per(tid) (omp_get_thread_num /
! omp_get_num_threads / omp_get_max_threads under !$; 0, 1, 1 in the
! serial build); the per-thread counts must add up to the trip count.
! smooth is called once more outside any parallel region, where its
! orphaned !$omp do runs on the calling thread alone.
! Element values do not depend on the thread count; checksums are
! integer(8) sums of nint(value * 1e6).
! Exercises: !$omp do inside !$omp parallel, !$omp end do nowait,
!   orphaned !$omp do in an external subroutine (inside and outside a
!   parallel region), omp_get_num_threads / omp_get_thread_num /
!   omp_get_max_threads under !$ sentinels, explicit !$omp barrier,
!   !$omp atomic, integer(8) REDUCTION(+:), module allocatables.
! Runtime class: memory-bound streaming (5 x 16 MB arrays).
!=====================================================================
module nowait_data
  implicit none
  integer, parameter :: dp = kind(1.0d0), i8 = selected_int_kind(18)
  integer, parameter :: n = 2000000, nrep = 15
  real(dp), allocatable :: a(:), b(:), c(:), d(:), e(:)
  integer(i8), allocatable :: per(:)   ! iterations done by each thread
  integer(i8) :: extra = 0_i8          ! used if the team outgrows per
end module nowait_data

subroutine smooth(m, x, y, z)
  ! orphaned worksharing loop: z = smoothed (x + y); counts iterations
!$ use omp_lib
  use nowait_data, only: dp, i8, per, extra
  implicit none
  integer, intent(in) :: m
  real(dp), intent(in) :: x(m), y(m)
  real(dp), intent(inout) :: z(m)
  integer :: i, tid, nth
  integer(i8) :: mine
  tid = 0
  nth = 1
!$ tid = omp_get_thread_num()
!$ nth = omp_get_num_threads()
  mine = 0_i8
!$omp do schedule(static)
  do i = 1, m
    if (i == 1 .or. i == m) then
      z(i) = x(i) + y(i)
    else
      z(i) = (x(i-1) + 2.0_dp * x(i) + x(i+1) + y(i-1) + 2.0_dp * y(i) + y(i+1)) * 0.25_dp
    end if
    mine = mine + 1_i8
  end do
!$omp end do nowait
  ! every thread adds its count to its own slot (no race); the nowait
  ! above is followed by an explicit barrier so callers see all of z
  if (nth <= size(per)) then
    per(tid) = per(tid) + mine
  else
!$omp atomic
    extra = extra + mine
  end if
!$omp barrier
end subroutine smooth

program omp_nowait
!$ use omp_lib
  use nowait_data
  implicit none
  interface
    subroutine smooth(m, x, y, z)
      import :: dp
      integer, intent(in) :: m
      real(dp), intent(in) :: x(m), y(m)
      real(dp), intent(inout) :: z(m)
    end subroutine smooth
  end interface
  integer :: i, r, maxth
  integer(i8) :: ks, ktot, ka, kd, itotal

  maxth = 1
!$ maxth = omp_get_max_threads()
  allocate(a(n), b(n), c(n), d(n), e(n), per(0:maxth-1))
  per = 0_i8
  e = 0.0_dp
  ktot = 0_i8

  do r = 1, nrep
    ks = 0_i8
!$omp parallel private(i)
!$omp do schedule(static)
    do i = 1, n
      a(i) = real(mod(i * 7 + r * 13, 1000), dp) / 500.0_dp - 1.0_dp + 0.5_dp * e(i)
    end do
!$omp end do nowait
!$omp do schedule(static)
    do i = 1, n
      b(i) = real(mod(i * 11 + r, 997), dp) / 997.0_dp
    end do
!$omp end do
!$omp do schedule(static)
    do i = 1, n
      c(i) = a(i) * b(i) + a(i)
    end do
!$omp end do nowait
!$omp do schedule(static)
    do i = 1, n
      d(i) = a(i) - 0.5_dp * b(i)
    end do
!$omp end do
    call smooth(n, c, d, e)
!$omp do schedule(static) reduction(+:ks)
    do i = 1, n
      e(i) = 0.25_dp * e(i)
      ks = ks + nint(e(i) * 1.0e6_dp, i8)
    end do
!$omp end do
!$omp end parallel
    ktot = ktot + ks
    if (r == 1 .or. r == nrep) print '(a,i3,a,i0)', ' pass ', r, ' sum(e)*1e6=', ks
  end do

  ! the orphaned loop outside any parallel region: one thread runs it
  call smooth(n, a, b, c)
  ka = 0_i8
  kd = 0_i8
  do i = 1, n
    ka = ka + nint(c(i) * 1.0e6_dp, i8)
    kd = kd + nint(d(i) * 1.0e6_dp, i8)
  end do

  itotal = sum(per) + extra
  print '(a,i0,a,i0)', ' OMP_NOWAIT n=', n, ' nrep=', nrep
  print '(a,i0,a,i0,a,i0)', ' total=', ktot, ' serial smooth=', ka, ' d=', kd
  if (itotal == int(n, i8) * (nrep + 1)) then
    print '(a,i0)', ' orphaned-loop iterations add up: ', itotal
  else
    print '(a,i0)', ' ITERATION COUNT WRONG: ', itotal
  end if
  deallocate(a, b, c, d, e, per)
end program omp_nowait
