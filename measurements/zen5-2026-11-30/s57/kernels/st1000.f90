program stencil_wrong_order
  implicit none
  integer, parameter :: n = 1000, reps = 40
  real(8), allocatable :: a(:,:), b(:,:)
  integer :: i, j, k
  allocate(a(n,n), b(n,n))
  do j = 1, n
    do i = 1, n
      a(i,j) = real(mod(i*j, 7), 8)
    end do
  end do
  b = 0
  do k = 1, reps
    do i = 2, n - 1
      do j = 2, n - 1
        b(i,j) = 0.25d0 * (a(i-1,j) + a(i+1,j) + a(i,j-1) + a(i,j+1))
      end do
    end do
    a(2:n-1, 2:n-1) = b(2:n-1, 2:n-1)
  end do
  print *, sum(a)
end program
