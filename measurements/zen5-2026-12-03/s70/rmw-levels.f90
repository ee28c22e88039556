program k
  implicit none
  integer, parameter :: dp = kind(1d0)
  real(dp), allocatable :: x(:), y(:)
  integer :: sizes(7) = [16384, 65536, 262144, 524288, 1048576, 2097152, 8388608]
  integer :: s, n, r, reps, i
  integer(8) :: t0, t1, tr
  real(dp) :: a, sm, tsum, trmw, tcopy
  character(len=16) :: arg
  do s = 1, 7
    n = sizes(s)
    allocate(x(n), y(n))
    do i = 1, n
      x(i) = 1d-3 * mod(i, 7); y(i) = 1d0 * mod(i, 5)
    end do
    reps = max(2, int(2d9 / (8d0*n)))
    a = 1d-9
    sm = 0
    call system_clock(t0, tr)
    do r = 1, reps
      do i = 1, n
        sm = sm + y(i)
      end do
      call sink(sm)
    end do
    call system_clock(t1); tsum = real(t1-t0,dp)/tr/(real(reps,dp)*n)*1d9
    call system_clock(t0, tr)
    do r = 1, reps
      do i = 1, n
        y(i) = y(i) - a * x(i)
      end do
      call sink(y(1))
    end do
    call system_clock(t1); trmw = real(t1-t0,dp)/tr/(real(reps,dp)*n)*1d9
    call system_clock(t0, tr)
    do r = 1, reps
      do i = 1, n
        y(i) = a * x(i)
      end do
      call sink(y(1))
    end do
    call system_clock(t1); tcopy = real(t1-t0,dp)/tr/(real(reps,dp)*n)*1d9
    print '(a,f10.1,a,3f9.3)', 'KiB per array', 8d0*n/1024, '  ns/elem sum rmw(x,y) scale', tsum, trmw, tcopy
    deallocate(x, y)
  end do
end program
subroutine sink(v)
  double precision v
  if (v == -12345d0) print *, v
end subroutine
