program k3
  ! 2-D 5-point stencil in L1/L2
  integer, parameter :: n = 60
  real(8) :: a(n,n), b(n,n)
  integer :: i, j, r
  a = 1.0d0; b = 0
  do r = 1, 100000
    do j = 2, n-1
      do i = 2, n-1
        b(i,j) = 0.25d0 * (a(i-1,j) + a(i+1,j) + a(i,j-1) + a(i,j+1))
      end do
    end do
    a(2,2) = b(3,3)
  end do
  print *, b(5,5)
end program
