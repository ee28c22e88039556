#ifndef NSIZE
#define NSIZE 256
#endif
!=====================================================================
! nbody.f90 - Gravitational N-body simulation (softened forces,
! all pairs i<j, leapfrog integration) using a derived type for the
! bodies and type-bound-free module procedures.
! Exercises: derived types with array components, real(kind=dp),
!   sqrt, triangular pair loops (j = i+1..n), component access,
!   array syntax on components, sum, intent(in/out) arguments,
!   energy check with internal function.
! Runtime class: compute-bound (small working set, many flops).
!=====================================================================
module bodies
  implicit none
  integer, parameter :: dp = selected_real_kind(15, 300)
  type :: body
    real(dp) :: x(3), v(3), a(3)
    real(dp) :: m
  end type body
contains
  subroutine accel(b, n, eps2)
    integer, intent(in) :: n
    type(body), intent(inout) :: b(n)
    real(dp), intent(in) :: eps2
    integer :: i, j
    real(dp) :: d(3), r2, inv3
    do i = 1, n
      b(i)%a = 0.0_dp
    end do
    do i = 1, n - 1
      do j = i + 1, n
        d = b(j)%x - b(i)%x
        r2 = d(1)**2 + d(2)**2 + d(3)**2 + eps2
        inv3 = 1.0_dp / (r2 * sqrt(r2))
        b(i)%a = b(i)%a + b(j)%m * inv3 * d
        b(j)%a = b(j)%a - b(i)%m * inv3 * d
      end do
    end do
  end subroutine accel

  real(dp) function energy(b, n, eps2) result(e)
    integer, intent(in) :: n
    type(body), intent(in) :: b(n)
    real(dp), intent(in) :: eps2
    integer :: i, j
    e = 0.0_dp
    do i = 1, n
      e = e + 0.5_dp * b(i)%m * sum(b(i)%v**2)
      do j = i + 1, n
        e = e - b(i)%m * b(j)%m / sqrt(sum((b(i)%x - b(j)%x)**2) + eps2)
      end do
    end do
  end function energy
end module bodies

program nbody
  use bodies
  implicit none
  integer, parameter :: n = NSIZE, nsteps = 2600
  type(body), allocatable :: b(:)
  real(dp) :: dt, eps2, e0, e1, phi, r
  integer :: i, s

  allocate(b(n))
  eps2 = 1.0e-4_dp
  dt = 1.0e-3_dp
  do i = 1, n
    phi = 2.399963_dp * i
    r = sqrt(real(i, dp) / n)
    b(i)%x = [r * cos(phi), r * sin(phi), 0.05_dp * sin(3.0_dp * phi)]
    b(i)%v = [-sin(phi), cos(phi), 0.0_dp] * 0.3_dp * sqrt(r)
    b(i)%m = 1.0_dp / n * (1.0_dp + 0.5_dp * mod(i, 3))
  end do
  e0 = energy(b, n, eps2)
  call accel(b, n, eps2)
  do s = 1, nsteps
    do i = 1, n
      b(i)%v = b(i)%v + 0.5_dp * dt * b(i)%a
      b(i)%x = b(i)%x + dt * b(i)%v
    end do
    call accel(b, n, eps2)
    do i = 1, n
      b(i)%v = b(i)%v + 0.5_dp * dt * b(i)%a
    end do
  end do
  e1 = energy(b, n, eps2)
  print '(a,2es22.14,a,es12.4)', ' NBODY E0,E1=', e0, e1, ' drift=', abs(e1 - e0) / abs(e0)
  print '(a,3es22.14)', ' NBODY x1=', b(1)%x
end program nbody
