program kij
  implicit none
  integer, parameter :: n = NN
  double precision :: a(n,n), b(n,n), c(n,n), x(n)
  common /mats/ a, b, c
  double precision :: r, t0, t1, t2
  integer :: i, j, k
  a = 1.0d-3; b = 2.0d-3; c = 0; x = 0
  call cpu_time(t0)
  do k = 1, n
    do i = 1, n
      r = a(i,k)
      do j = 1, n
        c(i,j) = c(i,j) + r*b(k,j)
      end do
    end do
  end do
  call cpu_time(t1)
  do k = 1, n
    do i = 1, n
      r = a(i,k)
      do j = 1, n
        x(j) = c(i,j) + r*b(k,j)
      end do
    end do
  end do
  call cpu_time(t2)
  print '(i5,2f8.3,a,es12.4)', n, (t1-t0)/dble(n)**3*1d9, (t2-t1)/dble(n)**3*1d9, ' ns/it rmw, read', sum(c)+sum(x)
end program
