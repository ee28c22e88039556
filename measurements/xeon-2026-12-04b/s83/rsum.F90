program rsum
  implicit none
  integer, parameter :: n = NN, m = 48000000/NN
  real(8), allocatable :: a(:,:), r(:)
  real(8) :: s
  integer :: i, j, rep
  allocate(a(n, 64), r(m))
  a = 1.0d-9
  do i = 1, m
    s = r(i)
    do j = 1, n
      s = s + a(j, mod(i,64)+1)
    end do
    r(i) = s
  end do
  print *, sum(r)
end program
