! upper-triangular back substitution, row-oriented, many right-hand sides
program backsub
  implicit none
  integer, parameter :: n = 300, nrhs = 480
  real(8), allocatable :: u(:,:), b(:,:)
  real(8) :: s
  integer :: i, j, k
  allocate(u(n,n), b(n,nrhs))
  do j = 1, n
    do i = 1, n
      u(i,j) = merge(1.0d0 / real(i + j, 8), 0.0d0, i < j)
    end do
    u(j,j) = 3.0d0
  end do
  b = 1.0d0
  do k = 1, nrhs
    do i = n, 1, -1
      s = b(i,k)
      do j = i + 1, n
        s = s - u(i,j) * b(j,k)
      end do
      b(i,k) = s / u(i,i)
    end do
  end do
  print *, sum(b)
end program
