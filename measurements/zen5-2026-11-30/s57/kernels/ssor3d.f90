! symmetric successive over-relaxation sweeps on a 3-D grid, in place
program ssor3d
  implicit none
  integer, parameter :: n = 100, iters = 6
  real(8), parameter :: w = 1.2d0
  real(8), allocatable :: u(:,:,:), f(:,:,:)
  integer :: i, j, k, t
  allocate(u(0:n+1,0:n+1,0:n+1), f(n,n,n))
  u = 0
  f = 1.0d-3
  do t = 1, iters
    do k = 1, n
      do j = 1, n
        do i = 1, n
          u(i,j,k) = (1 - w) * u(i,j,k) + w / 6 * (u(i-1,j,k) + u(i+1,j,k) + u(i,j-1,k) &
                   + u(i,j+1,k) + u(i,j,k-1) + u(i,j,k+1) + f(i,j,k))
        end do
      end do
    end do
    do k = n, 1, -1
      do j = n, 1, -1
        do i = n, 1, -1
          u(i,j,k) = (1 - w) * u(i,j,k) + w / 6 * (u(i-1,j,k) + u(i+1,j,k) + u(i,j-1,k) &
                   + u(i,j+1,k) + u(i,j,k-1) + u(i,j,k+1) + f(i,j,k))
        end do
      end do
    end do
  end do
  print *, sum(u)
end program
