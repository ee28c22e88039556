program rsv
  implicit none
  integer, parameter :: n = 150, m = 2000000
  real(8), allocatable :: a(:,:), r(:)
  real(8) :: s
  integer :: i, j, len
  allocate(a(2*n, 64), r(m))
  a = 1.0d-9
  r = 0
  do i = 1, m
#ifdef VARY
    len = 1 + mod(i * 7, 2*n - 1)
#else
    len = n
#endif
    s = r(i)
    do j = 1, len
      s = s + a(j, mod(i,64)+1)
    end do
    r(i) = s
  end do
  print *, sum(r)
end program
