#ifndef NSIZE
#define NSIZE 210
#endif
!=====================================================================
! stencil3d.f90 - 3-D 7-point Jacobi diffusion on a 210^3 grid with
! fixed hot/cold faces: two 212^3 real(8) arrays (76 MB each, 152 MB
! together), several times the last-level cache, so every sweep
! streams both arrays through memory. The arrays swap roles each
! sweep by passing them in the other order; a residual is computed
! every fourth sweep with a separate loop nest.
! Exercises: 3-D array addressing (ARR3) with +-1 offsets in every
!   dimension, explicit-shape 3-D dummies with lower bound 0,
!   allocatable actual arguments, double precision add/multiply,
!   max reduction in a loop, module procedures.
! Runtime class: memory-bound (3-D stencil, working set >> L3).
!=====================================================================
module stencil_mod
  implicit none
  integer, parameter :: dp = kind(1.0d0)
contains
  ! one Jacobi sweep v <- smooth(u) on the interior
  subroutine sweep(n, u, v, c0, c1)
    integer, intent(in) :: n
    real(dp), intent(in) :: u(0:n + 1, 0:n + 1, 0:n + 1)
    real(dp), intent(inout) :: v(0:n + 1, 0:n + 1, 0:n + 1)
    real(dp), intent(in) :: c0, c1
    integer :: i, j, k
    do k = 1, n
      do j = 1, n
        do i = 1, n
          v(i, j, k) = c0 * u(i, j, k) + c1 * (u(i - 1, j, k) + u(i + 1, j, k) &
            + u(i, j - 1, k) + u(i, j + 1, k) + u(i, j, k - 1) + u(i, j, k + 1))
        end do
      end do
    end do
  end subroutine sweep

  ! max |u - smooth(u)| over the interior
  function resid(n, u, c0, c1) result(r)
    integer, intent(in) :: n
    real(dp), intent(in) :: u(0:n + 1, 0:n + 1, 0:n + 1)
    real(dp), intent(in) :: c0, c1
    real(dp) :: r, d
    integer :: i, j, k
    r = 0.0_dp
    do k = 1, n
      do j = 1, n
        do i = 1, n
          d = u(i, j, k) - c0 * u(i, j, k) - c1 * (u(i - 1, j, k) + u(i + 1, j, k) &
            + u(i, j - 1, k) + u(i, j + 1, k) + u(i, j, k - 1) + u(i, j, k + 1))
          r = max(r, abs(d))
        end do
      end do
    end do
  end function resid
end module stencil_mod

program stencil3d
  use stencil_mod
  implicit none
  integer, parameter :: n = NSIZE, nsweep = 20
  real(dp), allocatable :: a(:, :, :), b(:, :, :)
  real(dp) :: c0, c1, r, rsum, tot
  integer :: s, i, j

  allocate(a(0:n + 1, 0:n + 1, 0:n + 1), b(0:n + 1, 0:n + 1, 0:n + 1))
  a = 0.0_dp
  ! hot face k = 0 with a bump, cold face k = n+1
  do j = 0, n + 1
    do i = 0, n + 1
      a(i, j, 0) = 1.0_dp + 0.5_dp * sin(0.05_dp * real(i, dp)) * cos(0.03_dp * real(j, dp))
      a(i, j, n + 1) = -0.5_dp
    end do
  end do
  b = a
  c0 = 0.4_dp
  c1 = (1.0_dp - c0) / 6.0_dp
  rsum = 0.0_dp
  do s = 1, nsweep, 2
    call sweep(n, a, b, c0, c1)
    call sweep(n, b, a, c0, c1)
    if (mod(s, 4) == 1) then
      r = resid(n, a, c0, c1)
      rsum = rsum + r
    end if
  end do
  tot = 0.0_dp
  do i = 1, n, 3
    tot = tot + sum(a(i, 1:n:5, 1:n / 2))
  end do
  print '(a,i4,a,es22.14,a,es22.14)', ' STENCIL3D sweeps=', nsweep, ' rsum=', rsum, ' tot=', tot
  print '(a,3es22.14)', ' STENCIL3D probe ', a(n / 2, n / 2, 1), a(1, 1, 2), a(n, n, n)
end program stencil3d
