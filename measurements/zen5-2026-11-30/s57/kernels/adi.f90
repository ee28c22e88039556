! alternating-direction sweeps: tridiagonal recurrences along columns, then rows
program adi
  implicit none
  integer, parameter :: n = 1000, steps = 10
  real(8), allocatable :: u(:,:), p(:,:)
  real(8), parameter :: a = -0.25d0, b = 1.5d0
  integer :: i, j, t
  allocate(u(n,n), p(n,n))
  do j = 1, n
    do i = 1, n
      u(i,j) = real(mod(i + 2*j, 17), 8)
    end do
  end do
  do t = 1, steps
    ! forward elimination down each column (recurrence along i, contiguous)
    do j = 1, n
      p(1,j) = u(1,j) / b
      do i = 2, n
        p(i,j) = (u(i,j) - a * p(i-1,j)) / (b - a * a / b)
      end do
    end do
    ! the same along each row (recurrence along j, strided)
    do i = 1, n
      u(i,1) = p(i,1) / b
      do j = 2, n
        u(i,j) = (p(i,j) - a * u(i,j-1)) / (b - a * a / b)
      end do
    end do
  end do
  print *, sum(u)
end program
