! lower-triangular solves, many right-hand sides, column-oriented
program trisolve
  implicit none
  integer, parameter :: n = 1500, nrhs = 40
  real(8), allocatable :: l(:,:), x(:,:)
  integer :: i, j, k
  allocate(l(n,n), x(n,nrhs))
  do j = 1, n
    do i = 1, n
      l(i,j) = merge(1.0d0/real(i+j,8), 0.0d0, i > j)
    end do
    l(j,j) = 2.0d0
  end do
  x = 1.0d0
  do k = 1, nrhs
    do j = 1, n
      x(j,k) = x(j,k) / l(j,j)
      do i = j + 1, n
        x(i,k) = x(i,k) - l(i,j) * x(j,k)
      end do
    end do
  end do
  print *, sum(x)
end program
