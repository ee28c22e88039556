!=====================================================================
! preproc.F90 - Needs the C preprocessor (upper-case .F90): the grid
! size, the number of sweeps and the precision are chosen by
! #define / #ifdef, and a debug-only block is compiled out. Computes
! a red-black Gauss-Seidel solution of a 2-D Poisson problem.
! Exercises: cpp macros (#ifndef/#define/#ifdef/#else/#if), kind
!   selected by macro, DO with step 2 (red/black colouring with a
!   start offset), mod, array syntax residual, maxval, abs.
! Build: gfortran preproc.F90   (optionally -DUSE_SINGLE, -DN=...)
! Runtime class: compute/array-bound (cache resident).
!=====================================================================
#ifndef N
#define N 256
#endif
#ifndef SWEEPS
#define SWEEPS 6500
#endif
#ifdef USE_SINGLE
#define WP kind(1.0)
#else
#define WP kind(1.0d0)
#endif

program preproc
  implicit none
  integer, parameter :: wp = WP
  integer, parameter :: n = N, nsweep = SWEEPS
  real(wp), allocatable :: u(:,:), f(:,:), r(:,:)
  real(wp) :: h2, omega
  integer :: i, j, s, color

  allocate(u(0:n+1, 0:n+1), f(n, n), r(n, n))
  h2 = (1.0_wp / (n + 1))**2
  u = 0.0_wp
  do j = 1, n
    do i = 1, n
      f(i, j) = merge(1.0_wp, -1.0_wp, mod(i / 16 + j / 16, 2) == 0)
    end do
  end do
  omega = 1.5_wp
  do s = 1, nsweep
    do color = 0, 1
      do j = 1, n
        ! start at 1 or 2 so that (i+j) has the current parity
        do i = 1 + mod(j + color, 2), n, 2
          u(i, j) = (1.0_wp - omega) * u(i, j) + omega * 0.25_wp * &
               (u(i-1, j) + u(i+1, j) + u(i, j-1) + u(i, j+1) + h2 * f(i, j))
        end do
      end do
    end do
#ifdef DEBUG
    if (mod(s, 50) == 0) print *, 'sweep', s, maxval(abs(u))
#endif
  end do
  r = f * h2 + u(0:n-1, 1:n) + u(2:n+1, 1:n) + u(1:n, 0:n-1) + u(1:n, 2:n+1) - 4.0_wp * u(1:n, 1:n)
#if N > 100
  print '(a,i5,a,es22.14,a,es12.4)', ' PREPROC n=', n, ' usum=', sum(u), ' resmax=', maxval(abs(r))
#else
  print *, 'PREPROC small', n, sum(u)
#endif
end program preproc
