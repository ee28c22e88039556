program s77
  implicit none
  integer, parameter :: nn = 8388608, nrep = 10
  real(8), allocatable :: a(:), b(:), c(:)
  real(8) :: q, t0, t1, tp(5)
  integer :: i, k, is
  allocate(a(nn), b(nn), c(nn))
  a = 1; b = 2; c = 0; q = 0.75d0; tp = 0
  do k = 1, nrep
    call cpu_time(t0)
    do i = 1, nn
      c(i) = a(i)
    end do
    call cpu_time(t1); tp(1) = tp(1) + t1 - t0; t0 = t1
    do i = 1, nn
      b(i) = q * c(i)
    end do
    call cpu_time(t1); tp(2) = tp(2) + t1 - t0; t0 = t1
    do i = 1, nn
      c(i) = a(i) + b(i)
    end do
    call cpu_time(t1); tp(3) = tp(3) + t1 - t0; t0 = t1
    do i = 1, nn
      a(i) = b(i) + q * c(i)
    end do
    call cpu_time(t1); tp(4) = tp(4) + t1 - t0; t0 = t1
    do is = k, nn, 16
      b(is) = b(is) + 1.0d-6 * a(is)
    end do
    call cpu_time(t1); tp(5) = tp(5) + t1 - t0
  end do
  print '(5f9.2,a)', tp*1e3, ' ms'
  print '(a,f7.3)', 'strided ns/iter ', tp(5)*1e9/(nrep*real(nn/16,8))
  if (sum(a)+sum(b) < 0) print *, 'x'
end program
