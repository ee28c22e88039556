! all-pairs shortest paths by min-plus relaxation
program floyd
  implicit none
  integer, parameter :: n = 700
  real(8), allocatable :: d(:,:)
  integer :: i, j, k
  allocate(d(n,n))
  do j = 1, n
    do i = 1, n
      d(i,j) = real(mod(i*7 + j*13, 97) + 1, 8)
    end do
    d(j,j) = 0
  end do
  do k = 1, n
    do j = 1, n
      do i = 1, n
        d(i,j) = min(d(i,j), d(i,k) + d(k,j))
      end do
    end do
  end do
  print *, sum(d)
end program
