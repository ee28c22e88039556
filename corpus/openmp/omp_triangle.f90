!=====================================================================
! omp_triangle.f90 - Triangular pair loop: for every point i of a
! 2-D cloud, the softened potential phi(i) = sum over j < i of
! 1/sqrt(|p_i - p_j|^2 + eps).  The inner trip count is i-1, so the
! work per outer iteration grows linearly.  The same loop nest is run
! three times, with SCHEDULE(STATIC) (block partition: the last
! thread gets about three times the work of the first one when two
! threads share it), SCHEDULE(DYNAMIC,4) and SCHEDULE(GUIDED); the
! three results must agree element by element.  Each phi(i) is summed
! serially in j, so it does not depend on the thread count; the
! checksum is an integer(8) reduction of nint(phi * 1000).
! Exercises: triangular loop nest (inner bound = outer index), sqrt
!   and division, !$omp parallel do with static / dynamic,4 / guided
!   schedules, PRIVATE temporaries, integer REDUCTION(+:).
! Runtime class: compute-bound (sqrt/div), load-imbalanced under
!   static scheduling; data (3 x 80 KB) cache resident.
!=====================================================================
program omp_triangle
  implicit none
  integer, parameter :: dp = kind(1.0d0), i8 = selected_int_kind(18)
  integer, parameter :: n = 9000
  real(dp), parameter :: eps = 1.0e-3_dp
  real(dp) :: x(n), y(n), phi1(n), phi2(n), phi3(n)
  real(dp) :: s, dx, dy
  integer :: i, j, nbad
  integer(i8) :: seed, k1, k2, k3

  ! points from an own 64-bit-safe LCG (modulus 2^31 - 1, Park-Miller)
  seed = 20240611_i8
  do i = 1, n
    seed = mod(16807_i8 * seed, 2147483647_i8)
    x(i) = real(seed, dp) / 2147483647.0_dp
    seed = mod(16807_i8 * seed, 2147483647_i8)
    y(i) = real(seed, dp) / 2147483647.0_dp
  end do

  ! pass 1: static block schedule (imbalanced for a triangle)
!$omp parallel do schedule(static) private(j, s, dx, dy)
  do i = 1, n
    s = 0.0_dp
    do j = 1, i - 1
      dx = x(i) - x(j)
      dy = y(i) - y(j)
      s = s + 1.0_dp / sqrt(dx*dx + dy*dy + eps)
    end do
    phi1(i) = s
  end do
!$omp end parallel do

  ! pass 2: dynamic, chunks of 4 rows
!$omp parallel do schedule(dynamic,4) private(j, s, dx, dy)
  do i = 1, n
    s = 0.0_dp
    do j = 1, i - 1
      dx = x(i) - x(j)
      dy = y(i) - y(j)
      s = s + 1.0_dp / sqrt(dx*dx + dy*dy + eps)
    end do
    phi2(i) = s
  end do
!$omp end parallel do

  ! pass 3: guided (shrinking chunks)
!$omp parallel do schedule(guided) private(j, s, dx, dy)
  do i = 1, n
    s = 0.0_dp
    do j = 1, i - 1
      dx = x(i) - x(j)
      dy = y(i) - y(j)
      s = s + 1.0_dp / sqrt(dx*dx + dy*dy + eps)
    end do
    phi3(i) = s
  end do
!$omp end parallel do

  k1 = 0_i8
  k2 = 0_i8
  k3 = 0_i8
  nbad = 0
!$omp parallel do reduction(+:k1,k2,k3,nbad)
  do i = 1, n
    k1 = k1 + nint(phi1(i) * 1000.0_dp, i8)
    k2 = k2 + nint(phi2(i) * 1000.0_dp, i8)
    k3 = k3 + nint(phi3(i) * 1000.0_dp, i8)
    if (phi1(i) /= phi2(i) .or. phi1(i) /= phi3(i)) nbad = nbad + 1
  end do
!$omp end parallel do

  print '(a,i0,a,i0)', ' OMP_TRIANGLE n=', n, ' pairs/pass=', int(n, i8)*(n-1)/2
  print '(a,i0,a,i0,a,i0)', ' static=', k1, ' dynamic=', k2, ' guided=', k3
  print '(a,i0,a,i0)', ' mismatches=', nbad, ' phi(n)*1000=', nint(phi1(n) * 1000.0_dp, i8)
end program omp_triangle
