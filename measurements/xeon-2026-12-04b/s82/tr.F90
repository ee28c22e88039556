! trcopy77's transposed copies apart: -DCOL (b written with a stride, a read by columns) or -DROW
program tr
  implicit none
  integer, parameter :: m = 2600, n = 2300, nrep = 10
  double precision, allocatable :: a(:,:), b(:,:)
  integer :: i, j, ir
  allocate(a(m,n), b(n,m))
  do j = 1, n
    do i = 1, m
      a(i,j) = dble(i) + 1.0d-4 * dble(j)
    end do
  end do
  b = 0
  do ir = 1, nrep
#ifdef COL
    do j = 1, n
      do i = 1, m
        b(j,i) = a(i,j)
      end do
    end do
#else
    do i = 1, m
      do j = 1, n
        b(j,i) = a(i,j)
      end do
    end do
#endif
    a(1,1) = a(1,1) + b(2,2)
  end do
  print *, b(n,m), a(1,1)
end program
