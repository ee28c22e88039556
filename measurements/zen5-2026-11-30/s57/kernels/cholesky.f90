! Cholesky factorization, left-looking, lower triangle in place
program cholesky
  implicit none
  integer, parameter :: n = 900
  real(8), allocatable :: a(:,:)
  real(8) :: s
  integer :: i, j, k
  allocate(a(n,n))
  do j = 1, n
    do i = 1, n
      a(i,j) = 1.0d0 / real(i + j, 8)
    end do
    a(j,j) = a(j,j) + real(n, 8)
  end do
  do j = 1, n
    do k = 1, j - 1
      do i = j, n
        a(i,j) = a(i,j) - a(i,k) * a(j,k)
      end do
    end do
    s = sqrt(a(j,j))
    a(j,j) = s
    do i = j + 1, n
      a(i,j) = a(i,j) / s
    end do
  end do
  print *, a(n,n), a(n/2,n/3)
end program
