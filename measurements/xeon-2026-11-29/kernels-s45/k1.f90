program k1
  ! triad in L1
  integer, parameter :: n = 1000
  real(8) :: a(n), b(n), c(n), s
  integer :: i, r
  b = 1.0d0; c = 2.0d0; s = 0.5d0
  do r = 1, 300000
    do i = 1, n
      a(i) = b(i) + s * c(i)
    end do
    b(1) = a(n) * 1.0d-9
  end do
  print *, a(1)
end program
