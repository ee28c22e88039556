! one right-looking LU update step repeated: a(i,j) = a(i,j) - a(i,k)*a(k,j) over an m x m block
program luupd
  implicit none
  integer, parameter :: m = M, reps = REPS
  real(8), allocatable :: a(:,:)
  integer :: i, j, r
  allocate(a(m+1,m+1))
  a = 1.0d-3
  do r = 1, reps
    do j = 2, m + 1
      do i = 2, m + 1
        a(i,j) = a(i,j) - a(i,1) * a(1,j)
      end do
    end do
    a(1,2) = a(1,2) * 0.999d0
  end do
  print *, sum(a)
end program
