! symmetric rank-k update C = C + A*A^T on the lower triangle, row-oriented (strided)
program syrk
  implicit none
  integer, parameter :: n = 800, k = 600
  real(8), allocatable :: a(:,:), c(:,:)
  integer :: i, j, l
  allocate(a(n,k), c(n,n))
  do j = 1, k
    do i = 1, n
      a(i,j) = real(mod(i + j, 13), 8) / 13.0d0
    end do
  end do
  c = 1.0d0
  do i = 1, n
    do j = 1, i
      do l = 1, k
        c(i,j) = c(i,j) + a(i,l) * a(j,l)
      end do
    end do
  end do
  print *, sum(c)
end program
