program matmul_ijk
  implicit none
  integer, parameter :: n = 700
  real(8), allocatable :: a(:,:), b(:,:), c(:,:)
  real(8) :: s
  integer :: i, j, k
  allocate(a(n,n), b(n,n), c(n,n))
  call random_number(a)
  call random_number(b)
  do i = 1, n
    do j = 1, n
      s = 0
      do k = 1, n
        s = s + a(i,k) * b(k,j)
      end do
      c(i,j) = s
    end do
  end do
  print *, sum(c)
end program
