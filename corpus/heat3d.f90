#ifndef NSIZE
#define NSIZE 96
#endif
!=====================================================================
! heat3d.f90 - Explicit 7-point 3-D heat-equation stencil on a
! 96^3 grid in real(kind=dp), written both with explicit triple
! loops and with whole-array section syntax, alternating between
! two arrays; a source term is injected with a masked WHERE.
! Exercises: 3-D array address computation, array sections
!   u(2:n-1,2:n-1,2:n-1), WHERE, sum/maxval/minval, module constants,
!   allocatable arrays, swap by move_alloc.
! Runtime class: array-bound (14 MB working set, cache-straddling).
!=====================================================================
module heat_cfg
  implicit none
  integer, parameter :: dp = kind(1.0d0)
  integer, parameter :: n = NSIZE, nsteps = 340
  real(dp), parameter :: alpha = 0.1_dp
end module heat_cfg

program heat3d
  use heat_cfg
  implicit none
  real(dp), allocatable :: u(:,:,:), v(:,:,:), tmp(:,:,:)
  integer :: i, j, k, s
  real(dp) :: total

  allocate(u(n,n,n), v(n,n,n))
  u = 0.0_dp
  do k = 1, n
    do j = 1, n
      do i = 1, n
        if (abs(i - n/2) + abs(j - n/3) + abs(k - n/2) < 10) u(i,j,k) = 100.0_dp
      end do
    end do
  end do
  v = u
  do s = 1, nsteps
    if (mod(s, 2) == 1) then
      ! explicit loops
      do k = 2, n - 1
        do j = 2, n - 1
          do i = 2, n - 1
            v(i,j,k) = u(i,j,k) + alpha * (u(i-1,j,k) + u(i+1,j,k) + u(i,j-1,k) &
                     + u(i,j+1,k) + u(i,j,k-1) + u(i,j,k+1) - 6.0_dp * u(i,j,k))
          end do
        end do
      end do
    else
      ! array syntax
      v(2:n-1,2:n-1,2:n-1) = u(2:n-1,2:n-1,2:n-1) + alpha * ( &
           u(1:n-2,2:n-1,2:n-1) + u(3:n,2:n-1,2:n-1) + &
           u(2:n-1,1:n-2,2:n-1) + u(2:n-1,3:n,2:n-1) + &
           u(2:n-1,2:n-1,1:n-2) + u(2:n-1,2:n-1,3:n) - 6.0_dp * u(2:n-1,2:n-1,2:n-1))
    end if
    where (v(n/4:n/4+3, n/4:n/4+3, n/4:n/4+3) < 50.0_dp) &
      v(n/4:n/4+3, n/4:n/4+3, n/4:n/4+3) = v(n/4:n/4+3, n/4:n/4+3, n/4:n/4+3) + 1.0_dp
    call move_alloc(u, tmp)
    call move_alloc(v, u)
    call move_alloc(tmp, v)
  end do
  total = sum(u)
  print '(a,es22.14,a,es18.10,a,es18.10)', ' HEAT3D sum=', total, ' max=', maxval(u), ' min=', minval(u)
end program heat3d
