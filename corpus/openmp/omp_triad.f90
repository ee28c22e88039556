!=====================================================================
! omp_triad.f90 - Memory-bound vector kernels copy / scale / add /
! triad over three arrays of 8M doubles (3 x 64 MB = 192 MB), each
! kernel a PARALLEL DO SCHEDULE(STATIC), the four-kernel cycle
! repeated nrep times.  The arrays are first touched (initialised) in
! a parallel loop with the same static schedule, so that each page is
! placed near the thread that later streams it.  Checksum: integer(8)
! reduction of the scaled final array values (exact in any order).
! Exercises: !$omp parallel do schedule(static) on unit-stride loops,
!   parallel first-touch initialisation, REDUCTION(+:) on integer(8),
!   dyadic real(8) values (exactly representable), int() conversion.
! Runtime class: memory-bound (192 MB working set, far beyond L3).
!=====================================================================
program omp_triad
  implicit none
  integer, parameter :: dp = kind(1.0d0), i8 = selected_int_kind(18)
  integer, parameter :: n = 8*1024*1024, nrep = 8
  real(dp), parameter :: q = 0.5_dp
  real(dp), allocatable :: a(:), b(:), c(:)
  integer :: i, r
  integer(i8) :: ka, kb, kc

  allocate(a(n), b(n), c(n))

  ! first touch in parallel: every thread initialises its own block
!$omp parallel do schedule(static)
  do i = 1, n
    a(i) = real(mod(37*i + 11, 1024), dp) / 64.0_dp
    b(i) = real(mod(13*i + 5, 512), dp) / 128.0_dp
    c(i) = 0.0_dp
  end do
!$omp end parallel do

  do r = 1, nrep
    ! copy
!$omp parallel do schedule(static)
    do i = 1, n
      c(i) = a(i)
    end do
!$omp end parallel do
    ! scale
!$omp parallel do schedule(static)
    do i = 1, n
      b(i) = q * c(i)
    end do
!$omp end parallel do
    ! add
!$omp parallel do schedule(static)
    do i = 1, n
      c(i) = a(i) + b(i)
    end do
!$omp end parallel do
    ! triad
!$omp parallel do schedule(static)
    do i = 1, n
      a(i) = b(i) + q * c(i)
    end do
!$omp end parallel do
  end do

  ka = 0_i8
  kb = 0_i8
  kc = 0_i8
!$omp parallel do schedule(static) reduction(+:ka,kb,kc)
  do i = 1, n
    ka = ka + int(a(i) * 4096.0_dp, i8)
    kb = kb + int(b(i) * 4096.0_dp, i8)
    kc = kc + int(c(i) * 4096.0_dp, i8)
  end do
!$omp end parallel do

  print '(a,i0,a,i0)', ' OMP_TRIAD n=', n, ' nrep=', nrep
  print '(a,i0,a,i0,a,i0)', ' sum(a)*4096=', ka, ' sum(b)*4096=', kb, ' sum(c)*4096=', kc
  print '(a,i0)', ' checksum=', mod(ka + 3_i8*kb + 7_i8*kc, 1000000007_i8)
  deallocate(a, b, c)
end program omp_triad
