program k2
  ! dot product in L1
  integer, parameter :: n = 1000
  real(8) :: a(n), b(n), s
  integer :: i, r
  a = 1.0d-3; b = 2.0d0; s = 0
  do r = 1, 300000
    do i = 1, n
      s = s + a(i) * b(i)
    end do
    a(1) = s * 1.0d-12
  end do
  print *, s
end program
