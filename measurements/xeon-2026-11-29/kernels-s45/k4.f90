program k4
  ! jki matrix multiply in L1/L2
  integer, parameter :: n = 40
  real(8) :: a(n,n), b(n,n), c(n,n)
  integer :: i, j, k, r
  a = 0; b = 1.0d-3; c = 0.5d0
  do r = 1, 4000
    do j = 1, n
      do k = 1, n
        do i = 1, n
          a(i,j) = a(i,j) + b(i,k) * c(k,j)
        end do
      end do
    end do
  end do
  print *, a(3,3)
end program
