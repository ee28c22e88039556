program trisolve
  implicit none
  integer, parameter :: n = 1500, nrhs = 40
  real(8), allocatable :: l(:,:), x(:,:)
  integer :: i, j, k
  integer(8) :: t0, t1, rate, best
  allocate(l(n,n), x(n,nrhs))
  do j = 1, n
    do i = 1, n
      l(i,j) = merge(1.0d0/real(i+j,8), 0.0d0, i > j)
    end do
    l(j,j) = 2.0d0
  end do
  x = 1.0d0
  best = huge(best)
  do k = 1, nrhs
    call system_clock(t0, rate)
    do j = 1, n
      x(j,k) = x(j,k) / l(j,j)
      do i = j + 1, n
        x(i,k) = x(i,k) - l(i,j) * x(j,k)
      end do
    end do
    call system_clock(t1)
    best = min(best, t1 - t0)
  end do
  print *, sum(x), 'ns an iteration', real(best,8) / rate * 1d9 / (real(n,8)*(n-1)/2)
end program
