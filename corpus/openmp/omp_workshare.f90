!=====================================================================
! omp_workshare.f90 - Array-syntax time stepping under WORKSHARE.
!  (1) nsteps1 steps of a clipped 1-D nonlinear diffusion on 1M
!      points, each step one !$omp parallel workshare block holding
!      section assignments, a WHERE / ELSEWHERE / END WHERE construct,
!      a whole-array copy and integer COUNT / real MAXVAL scalars;
!  (2) nsteps2 steps of a damped 1-D wave (leapfrog) on the same grid,
!      the step loop running inside one !$omp parallel region, every
!      step an !$omp workshare ... !$omp end workshare block with
!      array assignments and a WHERE statement.
! gfortran 12 (the reference compiler) shares out only part of a
! WORKSHARE block: assignments to array sections and the single-mask
! WHERE statement become !$omp do loops, while the WHERE construct
! with ELSEWHERE, the whole-allocatable assignment u = f (reallocation
! semantics), COUNT and MAXVAL run inside a SINGLE; part (1) is thus
! largely serial at any thread count, part (2) fully shared out.
! Array elements are computed by the same expressions in any thread
! count; the checksums are integer sums of nint(value * 1e6) taken
! serially, so the output does not depend on the thread count.
! Exercises: !$omp parallel workshare and !$omp workshare inside
!   !$omp parallel, array sections with shifted bounds (temporaries),
!   WHERE / ELSEWHERE masks, WHERE statement, COUNT / MAXVAL
!   intrinsics, whole-array and (:) assignment, real(8) arithmetic.
! Runtime class: memory/array-bound streaming (5 x 8 MB arrays).
!=====================================================================
program omp_workshare
  implicit none
  integer, parameter :: dp = kind(1.0d0), i8 = selected_int_kind(18)
  integer, parameter :: n = 1000000, nsteps1 = 30, nsteps2 = 40
  real(dp), parameter :: r = 0.3_dp, c2 = 0.25_dp, damp = 0.999_dp
  real(dp), allocatable :: u(:), f(:), p(:), q(:), s(:)
  real(dp) :: umax, umaxsum
  integer :: i, step, npos
  integer(i8) :: seed, ku, kp, kq, nsum

  allocate(u(n), f(n), p(n), q(n), s(n))

  seed = 424242_i8
  do i = 1, n
    seed = mod(seed * 16807_i8, 2147483647_i8)
    u(i) = real(seed, dp) / 1073741823.5_dp - 1.0_dp
  end do
  u = 1.5_dp * u
  f = u
  nsum = 0_i8
  umaxsum = 0.0_dp

  ! ---------- (1) parallel workshare, one block per step ----------
  do step = 1, nsteps1
!$omp parallel workshare
    f(2:n-1) = u(2:n-1) + r * (u(1:n-2) - 2.0_dp * u(2:n-1) + u(3:n)) &
             + 0.02_dp * u(2:n-1) * (1.0_dp - u(2:n-1) * u(2:n-1))
    where (f > 1.0_dp)
      f = 1.0_dp
    elsewhere (f < -1.0_dp)
      f = -1.0_dp
    elsewhere
      f = f * 1.001_dp
    end where
    u = f
    npos = count(u > 0.0_dp)
    umax = maxval(u(2:n-1))
!$omp end parallel workshare
    nsum = nsum + npos
    umaxsum = umaxsum + umax
  end do

  ! ---------- (2) workshare inside one parallel region ----------
  ! leapfrog: q = new, p = current, s = previous
  s = u
  p = u
  q = 0.0_dp
!$omp parallel private(step)
  do step = 1, nsteps2
!$omp workshare
    q(2:n-1) = damp * (2.0_dp * p(2:n-1) - s(2:n-1) &
             + c2 * (p(1:n-2) - 2.0_dp * p(2:n-1) + p(3:n)))
    where (abs(q) < 1.0e-3_dp) q = 0.0_dp
    s(:) = p(:)
    p(:) = q(:)
!$omp end workshare
  end do
!$omp end parallel

  ku = 0_i8
  kp = 0_i8
  kq = 0_i8
  do i = 1, n
    ku = ku + nint(u(i) * 1.0e6_dp, i8)
    kp = kp + nint(p(i) * 1.0e6_dp, i8) * mod(i, 5)
    kq = kq + nint(abs(s(i)) * 1.0e6_dp, i8)
  end do

  print '(a,i0,a,i0,a,i0)', ' OMP_WORKSHARE n=', n, ' nsteps1=', nsteps1, ' nsteps2=', nsteps2
  print '(a,i0,a,i0,a,i0)', ' diffusion sum*1e6=', ku, ' positive count=', nsum, &
       ' maxsum*1e6=', nint(umaxsum * 1.0e6_dp, i8)
  print '(a,i0,a,i0)', ' wave weighted*1e6=', kp, ' previous |.|*1e6=', kq
  deallocate(u, f, p, q, s)
end program omp_workshare
