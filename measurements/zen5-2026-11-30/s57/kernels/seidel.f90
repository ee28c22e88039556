! in-place Gauss-Seidel sweeps over a 2-D grid (each point uses updated neighbours)
program seidel
  implicit none
  integer, parameter :: n = 1000, sweeps = 30
  real(8), allocatable :: u(:,:)
  integer :: i, j, t
  allocate(u(n,n))
  u = 0.0d0
  u(1,:) = 1.0d0
  do t = 1, sweeps
    do j = 2, n - 1
      do i = 2, n - 1
        u(i,j) = (u(i-1,j-1) + u(i,j-1) + u(i+1,j-1) + u(i-1,j) + u(i,j) + u(i+1,j) &
                 + u(i-1,j+1) + u(i,j+1) + u(i+1,j+1)) / 9.0d0
      end do
    end do
  end do
  print *, sum(u)
end program
