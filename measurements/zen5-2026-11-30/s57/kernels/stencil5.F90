! 5-point stencil sweeps over an m x m grid, a into b and back
program st5
  implicit none
  integer, parameter :: m = M, reps = REPS
  real(8), allocatable :: a(:,:), b(:,:)
  integer :: i, j, r
  allocate(a(0:m+1,0:m+1), b(0:m+1,0:m+1))
  a = 1.0d0; b = 0.0d0
  do r = 1, reps
    do j = 1, m
      do i = 1, m
        b(i,j) = 0.25d0 * (a(i-1,j) + a(i+1,j) + a(i,j-1) + a(i,j+1))
      end do
    end do
    do j = 1, m
      do i = 1, m
        a(i,j) = 0.25d0 * (b(i-1,j) + b(i+1,j) + b(i,j-1) + b(i,j+1))
      end do
    end do
  end do
  print *, sum(a)
end program
