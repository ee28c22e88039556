! LU factorization without pivoting, right-looking, column order
program lunopiv
  implicit none
  integer, parameter :: n = 1100
  real(8), allocatable :: a(:,:)
  integer :: i, j, k
  allocate(a(n,n))
  do j = 1, n
    do i = 1, n
      a(i,j) = 1.0d0 / real(i + j - 1, 8)
    end do
    a(j,j) = a(j,j) + real(n, 8)
  end do
  do k = 1, n - 1
    do i = k + 1, n
      a(i,k) = a(i,k) / a(k,k)
    end do
    do j = k + 1, n
      do i = k + 1, n
        a(i,j) = a(i,j) - a(i,k) * a(k,j)
      end do
    end do
  end do
  print *, a(n,n), a(n/2,n/3)
end program
