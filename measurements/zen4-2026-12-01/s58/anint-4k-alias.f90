subroutine kern(reps, m, x, y)
  integer(8), intent(in) :: reps
  integer, intent(in) :: m
  real(8), intent(in) :: x(m)
  real(8), intent(out) :: y(m)
  integer(8) :: r
  integer :: i
  do r = 1, reps
    do i = 1, m
      y(i) = anint(x(i))
    end do
    call sink(y)
  end do
end subroutine
program main
  integer, parameter :: n = 512
  real(8), allocatable :: buf(:)
  integer :: i, m, d, k
  integer(8) :: c0, c1, rate
  real(8) :: best, t
  character(16) :: a
  allocate(buf(8*n))
  do i = 1, 8*n
    buf(i) = 1.0d0 + mod(i*37, 100) / 100.0d0
  end do
  m = n
  do k = 1, 2
  do d = 504, 520, 2
    best = 1d9
    do i = 1, 7
      call system_clock(c0, rate)
      call kern(20000_8, m, buf(1:), buf(1+d:))
      call system_clock(c1)
      t = dble(c1-c0)/dble(rate)/(20000d0*m)*1d9
      best = min(best, t)
    end do
    if (k == 2) print '(a,i5,a,i6,a,f8.3)', 'y - x =', d, ' elems =', 8*d, ' bytes: ns/elem', best
  end do
  end do
end program
