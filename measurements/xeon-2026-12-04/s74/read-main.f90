program m
  implicit none
  integer(8) :: n, r, t0, t1, rate
  real(8), allocatable :: x(:), y(:), z(:)
  real(8) :: best, t
  character(len=32) :: arg
  integer :: k
  call get_command_argument(1, arg); read(arg,*) n
  n = n / 8
  allocate(x(n), y(n), z(n)); x = 1; y = 2; z = 0.5
  do k = 1, 2
  best = 1d9
  do r = 1, 5
    call system_clock(t0, rate)
    if (k == 1) call augread(n, x, z)
    if (k == 2) call augtriad(n, x, y, z, 3d0)
    call system_clock(t1)
    t = real(t1 - t0, 8) / rate
    best = min(best, t)
  end do
  if (k == 1) print '(a,f8.3,a,f8.2,a)', 'read  ', best / (n / 8) * 1d9, ' ns/line ', n * 8 / best / 1d9, ' GB/s'
  if (k == 2) print '(a,f8.3,a,f8.2,a)', 'triad ', best / (n / 8) * 1d9, ' ns/line(of one array) ', n * 24 / best / 1d9, ' GB/s'
  end do
end program
